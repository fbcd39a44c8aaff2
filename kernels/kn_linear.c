/* kn_linear — ATB Linear (seed 002, docs/DESIGN.md §5.3): output = (x · weight + bias) * deq_scale,
 * int8 inputs, fp16 or bf16 output, per-channel or per-tensor dequantization.
 *
 * fp16 output dequantizes in the fixpipe: VDEQF16 with one FB word per column (per-channel), or
 * DEQF16 with the scalar word (deq_scale of one element). Float scales are packed by the kernel
 * with the documented formula (truncated to fp19); uint64/int64 scales are used as the words they
 * are. bf16 output: arch 2201's fixpipe has no int32 -> bf16 mode, so the int32 result leaves the
 * fixpipe unchanged (to a GM workspace) and a vector epilogue computes bf16_rne(fp32(acc) * scale)
 * with the full fp32 scale (a word contributes its low 32 bits as an fp32). The epilogue runs on
 * the AI core's two AIVs, a MIX 1:2 launch (1:1 with one AIV per AI core): the cube hands each
 * tile over with a cross-core flag once the fixpipe has written it, and each AIV dequantizes half
 * of its rows (kernels/kn_mm.c, epilogue_aiv).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_num.h"
#include "isa/isa_quant.h"
#include "kernels/kn_mm.h"

static const kn_io_desc linear_inputs[] = {
    {"x", "int8", false, "[m, k] or [batch, m, k] ([k, m] / [batch, k, m] with transpose_a)"},
    {"weight", "int8", false,
     "ND [k, n] / [batch, k, n] ([n, k] with transpose_b), or NZ [1 or batch, n/32, k, 32] "
     "([.., k/32, n, 32] with transpose_b)"},
    {"bias", "int32", true, "[n], [1, n] or [batch, n]"},
    {"deq_scale", "fp32,int64,uint64", false,
     "[n], [1, n], [batch, n] (per channel) or [1] (per tensor); float scales, or packed words"},
};

static const kn_attr_desc linear_attrs[] = {
    {"transpose_a", KN_ATTR_BOOL, "false", NULL, "x is stored transposed"},
    {"transpose_b", KN_ATTR_BOOL, "false", NULL, "weight is stored transposed"},
    {"weight_format", KN_ATTR_ENUM, "nd", "nd,nz", "layout of weight"},
    {"out_dtype", KN_ATTR_ENUM, "fp16", "fp16,bf16,float16,bfloat16", "output type"},
    {"m", KN_ATTR_INT, "512", NULL, "rows of the output (generated inputs)"},
    {"n", KN_ATTR_INT, "1024", NULL, "columns of the output (generated inputs)"},
    {"k", KN_ATTR_INT, "2048", NULL, "reduction length (generated inputs)"},
    {"batch", KN_ATTR_INT, "1", NULL, "batch (generated inputs; 1: 2-D tensors)"},
    {"has_bias", KN_ATTR_BOOL, "true", NULL, "generate a bias (generated inputs)"},
    {"quant_mode", KN_ATTR_ENUM, "per_channel", "per_channel,per_tensor",
     "generated deq_scale: one per column or one in all"},
    {"deq_scale_dtype", KN_ATTR_ENUM, "fp32", "fp32,uint64", "generated deq_scale: floats or packed words"},
    KN_MM_TILING_ATTRS,
};

static const kn_io_desc linear_outputs[] = {
    {"output", "fp16,bf16", false, "[m, n] or [batch, m, n] (bf16 written as fp32 .npy)"},
};

typedef struct linear_shape {
  bool ta, tb, nz, bf16;
  uint32_t batch, m, n, k;
  bool x3, bias_batched, q_batched, q_per_tensor;
} linear_shape;

static cs_status get_bool(const kn_ctx *c, const char *n, bool *v, cs_err *e) { return kn_attr_bool(c, n, v, e); }

static cs_status attrs_common(const kn_ctx *ctx, linear_shape *s, cs_err *err) {
  const char *fmt, *out;
  cs_status st;
  if ((st = get_bool(ctx, "transpose_a", &s->ta, err)) != CS_OK || (st = get_bool(ctx, "transpose_b", &s->tb, err)) != CS_OK ||
      (st = kn_attr_str(ctx, "weight_format", &fmt, err)) != CS_OK || (st = kn_attr_str(ctx, "out_dtype", &out, err)) != CS_OK)
    return st;
  s->nz = strcmp(fmt, "nz") == 0;
  s->bf16 = strcmp(out, "bf16") == 0 || strcmp(out, "bfloat16") == 0;
  return CS_OK;
}

/* Reads and checks every shape (ATB's rules, seed 002). */
static cs_status shapes(const kn_ctx *ctx, linear_shape *s, cs_err *err) {
  memset(s, 0, sizeof *s); /* fields for absent inputs (bias_batched) stay false */
  cs_status st = attrs_common(ctx, s, err);
  if (st != CS_OK) return st;
  const kn_tensor *x = kn_input(ctx, "x"), *w = kn_input(ctx, "weight");
  const kn_tensor *bias = kn_input(ctx, "bias"), *q = kn_input(ctx, "deq_scale");
  char sh[96];
  kn_shape_str(x, sh, sizeof sh);
  if (x->ndim != 2 && x->ndim != 3)
    return cs_err_set(err, CS_EINVAL, "x: shape %s; expected [m, k] or [batch, m, k]", sh);
  s->x3 = x->ndim == 3;
  uint64_t xb = s->x3 ? x->shape[0] : 1;
  uint64_t xr = x->shape[x->ndim - 2], xc = x->shape[x->ndim - 1];
  if ((st = kn_mm_dim("batch", xb, &s->batch, err)) != CS_OK ||
      (st = kn_mm_dim("m", s->ta ? xc : xr, &s->m, err)) != CS_OK || (st = kn_mm_dim("k", s->ta ? xr : xc, &s->k, err)) != CS_OK) {
    cs_err_prefix(err, "x %s", sh);
    return st;
  }
  kn_shape_str(w, sh, sizeof sh);
  uint64_t wb, wn, wk;
  if (!s->nz) {
    if (w->ndim != 2 && w->ndim != 3)
      return cs_err_set(err, CS_EINVAL, "weight: shape %s; expected [k, n] or [batch, k, n] (weight_format nd)", sh);
    wb = w->ndim == 3 ? w->shape[0] : 1;
    uint64_t r = w->shape[w->ndim - 2], c = w->shape[w->ndim - 1];
    wk = s->tb ? c : r;
    wn = s->tb ? r : c;
  } else {
    if (w->ndim != 4)
      return cs_err_set(err, CS_EINVAL, "weight: shape %s; weight_format nz expects 4 dimensions [1 or batch, n/32, k, 32]", sh);
    if (w->shape[3] != 32)
      return cs_err_set(err, CS_EINVAL,
                        "weight: NZ shape %s has fractal width %" PRIu64 "; cubesim takes int8 NZ with C0 = 32 "
                        "([1, n/32, k, 32], the hardware's 32-byte fractal rows; ATB's document writes it 16 wide)",
                        sh, w->shape[3]);
    wb = w->shape[0];
    if (!s->tb) { /* [b, n/32, k, 32] */
      wn = w->shape[1] * 32;
      wk = w->shape[2];
    } else { /* [b, k/32, n, 32] */
      wk = w->shape[1] * 32;
      wn = w->shape[2];
    }
  }
  if (wk != s->k)
    return cs_err_set(err, CS_EINVAL, "weight: shape %s has k = %" PRIu64 " but x has k = %u", sh, wk, s->k);
  if ((st = kn_mm_dim("n", wn, &s->n, err)) != CS_OK) {
    cs_err_prefix(err, "weight %s", sh);
    return st;
  }
  if (s->nz && (s->tb ? (s->k % 32 || s->n % 16) : (s->n % 32 || s->k % 16)))
    return cs_err_set(err, CS_EINVAL,
                      "weight: NZ needs %s (ATB); here n = %u, k = %u", s->tb ? "k a multiple of 32 and n of 16"
                                                                              : "n a multiple of 32 and k of 16",
                      s->n, s->k);
  if (wb != 1 && wb != s->batch)
    return cs_err_set(err, CS_EINVAL, "weight: batch %" PRIu64 " but x has batch %u", wb, s->batch);
  if (bias) {
    kn_shape_str(bias, sh, sizeof sh);
    uint64_t last = bias->ndim ? bias->shape[bias->ndim - 1] : 1;
    uint64_t lead = bias->ndim == 2 ? bias->shape[0] : 1;
    if (bias->ndim < 1 || bias->ndim > 2 || last != s->n || (lead != 1 && lead != s->batch))
      return cs_err_set(err, CS_EINVAL, "bias: shape %s; expected [%u], [1, %u] or [%u, %u]", sh, s->n, s->n, s->batch, s->n);
    s->bias_batched = lead != 1;
  }
  kn_shape_str(q, sh, sizeof sh);
  uint64_t qlast = q->ndim ? q->shape[q->ndim - 1] : 1, qlead = q->ndim == 2 ? q->shape[0] : 1;
  s->q_per_tensor = q->count == 1; /* [1]; with n = 1 per channel is the same thing */
  if (!s->q_per_tensor && (q->ndim < 1 || q->ndim > 2 || qlast != s->n || (qlead != 1 && qlead != s->batch)))
    return cs_err_set(err, CS_EINVAL, "deq_scale: shape %s; expected [%u], [1, %u], [%u, %u] or [1]", sh, s->n, s->n,
                      s->batch, s->n);
  s->q_batched = !s->q_per_tensor && qlead != 1;
  return CS_OK;
}

/* Scales and words for the job: floats are packed (fp16 output) or kept (bf16); words are used
 * as they are (fp16) or contribute their low 32 bits (bf16). Zero, NaN and Inf scales are
 * refused, naming the element. */
static cs_status scales(const kn_tensor *q, bool bf16, uint64_t **words, float **fscale, cs_err *err) {
  uint64_t n = q->count;
  *words = NULL;
  *fscale = NULL;
  uint64_t *w = calloc(n, sizeof *w);
  float *f = calloc(n, sizeof *f);
  if (!w || !f) {
    free(w);
    free(f);
    return cs_err_set(err, CS_ENOMEM, "deq_scale: no host memory");
  }
  for (uint64_t i = 0; i < n; i++) {
    float v;
    if (q->dtype == ISA_FP32) {
      v = ((const float *)q->data)[i];
      if (v == 0 || isnan(v) || isinf(v)) {
        free(w);
        free(f);
        return cs_err_set(err, CS_EINVAL, "deq_scale[%" PRIu64 "] = %g: a dequant scale must be finite and non-zero", i, v);
      }
      if (!bf16) {
        isa_qw_packed pk;
        cs_status st = isa_qw_pack(v, NULL, NULL, &pk, err);
        if (st != CS_OK) {
          free(w);
          free(f);
          cs_err_prefix(err, "deq_scale[%" PRIu64 "]", i);
          return st;
        }
        w[i] = pk.fields.word;
      }
    } else {
      uint64_t word = ((const uint64_t *)q->data)[i];
      w[i] = word;
      float eff = bf16 ? isa_f32_from_bits((uint32_t)word) : isa_qw_scale_effective(word);
      v = isa_f32_from_bits((uint32_t)word);
      if (eff == 0 || isnan(eff) || isinf(eff)) {
        free(w);
        free(f);
        return cs_err_set(err, CS_EINVAL,
                          "deq_scale[%" PRIu64 "] = 0x%016" PRIx64 ": its %s scale is %g; a dequant scale must be "
                          "finite and non-zero (cubesim quant unpack explains the word)",
                          i, word, bf16 ? "fp32" : "fp19", eff);
      }
    }
    f[i] = v;
  }
  *words = w;
  *fscale = f;
  return CS_OK;
}

/* Builds the job; *owned collects what must be freed. */
typedef struct job_mem {
  void *words, *fscale, *c;
} job_mem;

static cs_status build_job(kn_ctx *ctx, kn_mm_job *j, linear_shape *s, job_mem *mem, cs_err *err) {
  memset(j, 0, sizeof *j);
  memset(mem, 0, sizeof *mem);
  cs_status st = shapes(ctx, s, err);
  if (st != CS_OK) return st;
  const kn_tensor *x = kn_input(ctx, "x"), *w = kn_input(ctx, "weight");
  const kn_tensor *bias = kn_input(ctx, "bias"), *q = kn_input(ctx, "deq_scale");
  j->ty.a = j->ty.b = ISA_INT8;
  j->ty.c = s->bf16 ? ISA_INT32 : ISA_FP16;
  j->ty.has_bias = bias != NULL;
  j->ty.a_trans = s->ta;
  j->ty.b_trans = s->tb;
  j->ty.b_nz = s->nz;
  j->batch = s->batch;
  j->m = s->m;
  j->n = s->n;
  j->k = s->k;
  j->b_batched = (s->nz ? w->shape[0] : (w->ndim == 3 ? w->shape[0] : 1)) != 1;
  j->bias_batched = s->bias_batched;
  j->q_batched = s->q_batched;
  j->a = x->data;
  j->b = w->data;
  j->bias = bias ? bias->data : NULL;
  uint64_t *words;
  float *fs;
  if ((st = scales(q, s->bf16, &words, &fs, err)) != CS_OK) return st;
  mem->words = words;
  mem->fscale = fs;
  if (s->bf16) {
    j->epilogue = KN_EPI_DEQ_BF16;
    if (s->q_per_tensor) { /* the epilogue takes one scale per column: broadcast */
      float *b = calloc(s->n, sizeof *b);
      if (!b) return cs_err_set(err, CS_ENOMEM, "deq_scale: no host memory");
      for (uint32_t i = 0; i < s->n; i++) b[i] = fs[0];
      free(fs);
      mem->fscale = fs = b;
    }
    j->epi_scale = fs;
  } else if (s->q_per_tensor) {
    j->has_qscalar = true;
    j->qscalar = words[0];
  } else {
    j->qvec = words;
  }
  return kn_mm_tiling_attrs(ctx, j, err);
}

static cs_status output_tensor(kn_ctx *ctx, const linear_shape *s, bool ref, kn_tensor **out, cs_err *err) {
  uint64_t shape[3];
  uint32_t nd = 0;
  if (s->x3) shape[nd++] = s->batch;
  shape[nd++] = s->m;
  shape[nd++] = s->n;
  isa_dtype dt = s->bf16 ? ISA_BF16 : ISA_FP16;
  return ref ? kn_reference_alloc(ctx, "output", dt, nd, shape, out, err)
             : kn_output_alloc(ctx, "output", dt, nd, shape, out, err);
}

static void free_mem(job_mem *m) {
  free(m->words);
  free(m->fscale);
  free(m->c);
}

/* The output on the simulated chip, or (ref) the reference output on the host. */
static cs_status linear_compute(kn_ctx *ctx, bool ref, cs_err *err) {
  kn_mm_job j;
  linear_shape s;
  job_mem mem;
  cs_status st = build_job(ctx, &j, &s, &mem, err);
  kn_tensor *out = NULL;
  if (st == CS_OK) st = output_tensor(ctx, &s, ref, &out, err);
  if (st == CS_OK && (ref || !kn_options(ctx)->timing_only)) {
    mem.c = calloc((uint64_t)s.batch * s.m * s.n, 2);
    if (!mem.c) st = cs_err_set(err, CS_ENOMEM, "%s: no host memory", ref ? "reference" : "output");
    j.c = mem.c;
  }
  if (st == CS_OK) st = ref ? kn_mm_reference(&j, kn_options(ctx)->cfg, mem.c, err) : kn_mm_simulate(ctx, &j, err);
  if (st == CS_OK && mem.c) kn_from_device(mem.c, s.bf16 ? ISA_BF16 : ISA_FP16, out);
  free_mem(&mem);
  return st;
}

static cs_status linear_run(kn_ctx *ctx, cs_err *err) { return linear_compute(ctx, false, err); }
static cs_status linear_reference(kn_ctx *ctx, cs_err *err) { return linear_compute(ctx, true, err); }

/* Deterministic inputs: int8 x and weight uniform over [-128, 127], bias uniform over
 * [-2^15, 2^15), and scales 0.5..1.5 / (64·sqrt(k)·128) so outputs stay near ±256. */
static cs_status linear_make_inputs(kn_ctx *ctx, cs_err *err) {
  static const char *const dims[4] = {"m", "n", "k", "batch"};
  int64_t d[4];
  bool ta, tb, has_bias;
  const char *fmt, *qm, *qdt;
  cs_status st;
  if ((st = kn_attr_dims(ctx, dims, 4, 1 << 20, d, err)) || (st = kn_attr_bool(ctx, "transpose_a", &ta, err)) ||
      (st = kn_attr_bool(ctx, "transpose_b", &tb, err)) || (st = kn_attr_bool(ctx, "has_bias", &has_bias, err)) ||
      (st = kn_attr_str(ctx, "weight_format", &fmt, err)) || (st = kn_attr_str(ctx, "quant_mode", &qm, err)) ||
      (st = kn_attr_str(ctx, "deq_scale_dtype", &qdt, err)))
    return st;
  const int64_t m = d[0], n = d[1], k = d[2], batch = d[3];
  bool nz = strcmp(fmt, "nz") == 0;
  if (nz && (tb ? (k % 32 || n % 16) : (n % 32 || k % 16)))
    return cs_err_set(err, CS_EINVAL, "weight_format nz needs %s (ATB); here n = %" PRId64 ", k = %" PRId64,
                      tb ? "k a multiple of 32 and n of 16" : "n a multiple of 32 and k of 16", n, k);
  uint64_t seed = kn_options(ctx)->seed ? kn_options(ctx)->seed : 1;
  bool b3 = batch > 1;
  kn_tensor t;
  uint64_t shape[4];
  uint32_t nd = 0;
  /* x */
  bool data = kn_ctx_has_data(ctx); /* timing-only: x and weight are shapes, never read */
  if (!kn_input(ctx, "x")) {
    nd = 0;
    if (b3) shape[nd++] = (uint64_t)batch;
    shape[nd++] = (uint64_t)(ta ? k : m);
    shape[nd++] = (uint64_t)(ta ? m : k);
    if ((st = data ? kn_tensor_alloc(&t, "x", ISA_INT8, nd, shape, err) : kn_tensor_shape(&t, "x", ISA_INT8, nd, shape, err)) !=
        CS_OK)
      return st;
    for (uint64_t i = 0; data && i < t.count; i++) ((int8_t *)t.data)[i] = (int8_t)kn_rng_int(&seed, -128, 127);
    if ((st = kn_set_input(ctx, "x", &t, err)) != CS_OK) return st;
  }
  if (!kn_input(ctx, "weight")) {
    nd = 0;
    if (!nz) {
      if (b3) shape[nd++] = (uint64_t)batch;
      shape[nd++] = (uint64_t)(tb ? n : k);
      shape[nd++] = (uint64_t)(tb ? k : n);
    } else {
      shape[nd++] = (uint64_t)batch;
      shape[nd++] = (uint64_t)(tb ? k / 32 : n / 32);
      shape[nd++] = (uint64_t)(tb ? n : k);
      shape[nd++] = 32;
    }
    if ((st = data ? kn_tensor_alloc(&t, "weight", ISA_INT8, nd, shape, err) : kn_tensor_shape(&t, "weight", ISA_INT8, nd, shape, err)) !=
        CS_OK)
      return st;
    for (uint64_t i = 0; data && i < t.count; i++) ((int8_t *)t.data)[i] = (int8_t)kn_rng_int(&seed, -128, 127);
    if ((st = kn_set_input(ctx, "weight", &t, err)) != CS_OK) return st;
  }
  if (has_bias && !kn_input(ctx, "bias")) {
    nd = 0;
    if (b3) shape[nd++] = (uint64_t)batch;
    shape[nd++] = (uint64_t)n;
    if ((st = kn_tensor_alloc(&t, "bias", ISA_INT32, nd, shape, err)) != CS_OK) return st;
    for (uint64_t i = 0; i < t.count; i++) ((int32_t *)t.data)[i] = (int32_t)kn_rng_int(&seed, -32768, 32767);
    if ((st = kn_set_input(ctx, "bias", &t, err)) != CS_OK) return st;
  }
  if (!kn_input(ctx, "deq_scale")) {
    bool per_tensor = strcmp(qm, "per_tensor") == 0, as_words = strcmp(qdt, "uint64") == 0;
    nd = 0;
    if (!per_tensor && b3) shape[nd++] = (uint64_t)batch;
    shape[nd++] = per_tensor ? 1 : (uint64_t)n;
    if ((st = kn_tensor_alloc(&t, "deq_scale", as_words ? ISA_UINT64 : ISA_FP32, nd, shape, err)) != CS_OK) return st;
    double base = 1.0 / (64.0 * sqrt((double)k) * 128.0);
    for (uint64_t i = 0; i < t.count; i++) {
      float v = (float)(base * (0.5 + kn_rng_unit(&seed)));
      if (as_words) {
        isa_qw_packed pk;
        if ((st = isa_qw_pack(v, NULL, NULL, &pk, err)) != CS_OK) {
          kn_tensor_free(&t);
          return st;
        }
        ((uint64_t *)t.data)[i] = pk.fields.word;
      } else {
        ((float *)t.data)[i] = v;
      }
    }
    if ((st = kn_set_input(ctx, "deq_scale", &t, err)) != CS_OK) return st;
  }
  return CS_OK;
}

const kn_op kn_op_linear = {
    "linear",
    "ATB Linear: int8 matmul + int32 bias, dequantized per channel or per tensor to fp16/bf16",
    "Ascend ATB LinearParam (matmul with dequant and bias), seed 002",
    true,
    KN_LIST(linear_inputs),
    KN_LIST(linear_attrs),
    KN_LIST(linear_outputs),
    linear_run,
    linear_reference,
    linear_make_inputs,
};
