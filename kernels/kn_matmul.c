/* kn_matmul — the plain and quantizing matmuls of the Ascend C Matmul API (seed 003):
 *   matmul          fp16/bf16 in -> fp32/fp16/bf16 out (NoQuant, F322F16, F322BF16);
 *                   int8/int4 in -> int32 out (NoQuant)
 *   matmul_quant    fp16/bf16 in -> int8/uint8 out with SetQuantScalar or SetQuantVector
 *                   (QF322B8_PRE / VQF322B8_PRE), offset and ReLU honoured
 *   matmul_requant  int8 in -> int8/uint8 out (REQ8 / VREQ8)
 * The quant parameters come either as packed uint64 words (`quant`, [1] or [n]) or as float
 * `scale` (and `offset`) that the kernel packs with the documented formula
 * (docs/DESIGN.md §5.1). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_num.h"
#include "isa/isa_quant.h"
#include "kernels/kn_mm.h"

typedef enum mm_kind { MM_PLAIN, MM_QUANT, MM_REQUANT, MM_GELU } mm_kind;

#define COMMON_ATTRS                                                                                     \
  {"transpose_a", KN_ATTR_BOOL, "false", NULL, "a is stored K x M"},                                      \
  {"transpose_b", KN_ATTR_BOOL, "false", NULL, "b is stored N x K"},                                      \
  {"a_format", KN_ATTR_ENUM, "nd", "nd,nz", "layout of a: ND, or NZ [batch, cols/C0, rows, C0] of the stored matrix"}, \
  {"b_format", KN_ATTR_ENUM, "nd", "nd,nz", "layout of b: ND, or NZ [batch, cols/C0, rows, C0] of the stored matrix"}, \
  {"relu", KN_ATTR_BOOL, "false", NULL, "ReLU in the fixpipe"},                                           \
  {"m", KN_ATTR_INT, "512", NULL, "rows of c (generated inputs)"},                                        \
  {"n", KN_ATTR_INT, "1024", NULL, "columns of c (generated inputs)"},                                    \
  {"k", KN_ATTR_INT, "2048", NULL, "reduction length (generated inputs)"},                                \
  {"batch", KN_ATTR_INT, "1", NULL, "batch (generated inputs; 1: 2-D tensors)"},                          \
  {"has_bias", KN_ATTR_BOOL, "false", NULL, "generate a bias (generated inputs)"},                        \
  KN_MM_TILING_ATTRS

static const kn_io_desc plain_inputs[] = {
    {"a", "fp16,fp32,int8", false,
     "[m, k] or [batch, m, k] ([k, m] with transpose_a; NZ: [batch, k/C0, m, C0]); bf16 as fp32, int4 as int8"},
    {"b", "fp16,fp32,int8", false, "[k, n], [batch, k, n] ([n, k] with transpose_b; NZ: [1 or batch, n/C0, k, C0])"},
    {"bias", "fp32,int32", true, "[n] or [batch, n]: fp32 for float inputs, int32 for integer inputs"},
};
static const kn_attr_desc plain_attrs[] = {
    {"in_dtype", KN_ATTR_ENUM, NULL, "fp16,bf16,int8,int4", "type of a and b (default: from a's .npy)"},
    {"out_dtype", KN_ATTR_ENUM, NULL, "fp32,fp16,bf16,int32", "type of c (default fp32, int32 for integers)"},
    COMMON_ATTRS,
};
static const kn_attr_desc gelu_attrs[] = {
    {"in_dtype", KN_ATTR_ENUM, NULL, "fp16,bf16", "type of a and b (default: from a's .npy)"},
    {"cross_sync", KN_ATTR_ENUM, "flags", KN_GELU_SYNC_NAMES,
     "flags: each tile handed to the AIVs by a cross-core flag; no_wait: the AIVs do not wait (a race); "
     "no_set: the AIC never sets it (a deadlock)"},
    COMMON_ATTRS,
};
static const kn_io_desc gelu_output[] = {{"c", "fp32", false, "GELU(a x b (+ bias)), [m, n] or [batch, m, n]"}};
static const kn_io_desc c_output[] = {{"c", "fp32,fp16,bf16,int32,int8,uint8", false, "[m, n] or [batch, m, n]"}};

static const kn_io_desc quant_inputs[] = {
    {"a", "fp16,fp32", false, "[m, k] or [batch, m, k] (NZ: [batch, k/C0, m, C0]); bf16 as fp32"},
    {"b", "fp16,fp32", false, "[k, n] or [batch, k, n] (NZ: [1 or batch, n/C0, k, C0])"},
    {"bias", "fp32", true, "[n] or [batch, n]"},
    {"quant", "uint64,int64", true, "packed words: [1] (SetQuantScalar) or [n] (SetQuantVector)"},
    {"scale", "fp32", true, "instead of quant: [1] or [n] float scales, packed by the documented formula"},
    {"offset", "fp32", true, "with scale: [1] or [n] offsets (rounded half away from zero, clamped to [-256, 255])"},
};
static const kn_io_desc requant_inputs[] = {
    {"a", "int8", false, "[m, k] or [batch, m, k] (NZ: [batch, k/32, m, 32])"},
    {"b", "int8", false, "[k, n] or [batch, k, n] (NZ: [1 or batch, n/32, k, 32])"},
    {"bias", "int32", true, "[n] or [batch, n]"},
    {"quant", "uint64,int64", true, "packed words: [1] (SetQuantScalar) or [n] (SetQuantVector)"},
    {"scale", "fp32", true, "instead of quant: [1] or [n] float scales"},
    {"offset", "fp32", true, "with scale: [1] or [n] offsets"},
};
static const kn_attr_desc quant_attrs[] = {
    {"in_dtype", KN_ATTR_ENUM, NULL, "fp16,bf16", "type of a and b (default: from a's .npy: fp16, or bf16 for fp32)"},
    {"out_dtype", KN_ATTR_ENUM, "int8", "int8,uint8", "type of c (the words' S bit should agree)"},
    COMMON_ATTRS,
};
static const kn_attr_desc requant_attrs[] = {
    {"out_dtype", KN_ATTR_ENUM, "int8", "int8,uint8", "type of c (the words' S bit should agree)"},
    COMMON_ATTRS,
};

typedef struct mm_setup {
  kn_mm_job job;
  bool c3;                 /* 3-D output */
  void *a, *b, *bias, *c;  /* device-form copies we own */
  uint64_t *words;
  uint64_t inexact;        /* bf16 inputs rounded */
} mm_setup;

static void setup_free(mm_setup *s) {
  free(s->a);
  free(s->b);
  free(s->bias);
  free(s->c);
  free(s->words);
}

/* The type the inputs are computed in. */
static cs_status in_type(const kn_ctx *ctx, mm_kind kind, const kn_tensor *a, isa_dtype *out, cs_err *err) {
  if (kind == MM_REQUANT) {
    *out = ISA_INT8;
    return CS_OK;
  }
  const char *t = NULL;
  cs_status st;
  if (kn_attr_given(ctx, "in_dtype") && (st = kn_attr_str(ctx, "in_dtype", &t, err)) != CS_OK) return st;
  isa_dtype want = t ? isa_dtype_from_name(t) : (a->dtype == ISA_FP32 ? ISA_BF16 : a->dtype);
  bool ok = (want == ISA_FP16 && a->dtype == ISA_FP16) || (want == ISA_BF16 && a->dtype == ISA_FP32) ||
            ((want == ISA_INT8 || want == ISA_INT4) && a->dtype == ISA_INT8);
  if (!ok)
    return cs_err_set(err, CS_EINVAL, "a: a %s .npy cannot hold %s inputs (fp16: float16; bf16: float32; int8 and int4: int8)",
                      isa_dtype_name(a->dtype), isa_dtype_name(want));
  *out = want;
  return CS_OK;
}

/* The stored matrix an operand holds (rows x cols, before any transpose) and its batch: ND
 * [rows, cols] or [batch, rows, cols] (nd: what the message says), or NZ [batch, cols/C0, rows,
 * C0] in whole fractals (rows a multiple of 16; C0 of the input type). */
static cs_status stored_matrix(const kn_tensor *t, isa_dtype it, bool nz, const char *nd, uint64_t *batch, uint64_t *rows,
                               uint64_t *cols, cs_err *err) {
  char sh[96];
  kn_shape_str(t, sh, sizeof sh);
  if (!nz) {
    if (t->ndim != 2 && t->ndim != 3) return cs_err_set(err, CS_EINVAL, "%s: shape %s; expected %s", t->name, sh, nd);
    *batch = t->ndim == 3 ? t->shape[0] : 1;
    *rows = t->shape[t->ndim - 2];
    *cols = t->shape[t->ndim - 1];
    return CS_OK;
  }
  uint32_t c0 = isa_dtype_c0(it);
  if (t->ndim != 4 || t->shape[3] != c0)
    return cs_err_set(err, CS_EINVAL, "%s: NZ shape %s; %s NZ is [batch, cols/%u, rows, %u] (C0 = %u)", t->name, sh,
                      isa_dtype_name(it), c0, c0, c0);
  if (t->shape[2] % 16)
    return cs_err_set(err, CS_EINVAL, "%s: NZ shape %s has %" PRIu64 " rows; NZ holds whole fractals of 16 rows", t->name, sh,
                      t->shape[2]);
  *batch = t->shape[0];
  *rows = t->shape[2];
  *cols = t->shape[1] * c0;
  return CS_OK;
}

static bool is_int_type(isa_dtype t) { return t == ISA_INT8 || t == ISA_INT4; }

static cs_status build(kn_ctx *ctx, mm_kind kind, mm_setup *s, cs_err *err) {
  memset(s, 0, sizeof *s);
  kn_mm_job *j = &s->job;
  const kn_tensor *a = kn_input(ctx, "a"), *b = kn_input(ctx, "b"), *bias = kn_input(ctx, "bias");
  cs_status st;
  bool ta, tb, relu;
  if ((st = kn_attr_bool(ctx, "transpose_a", &ta, err)) || (st = kn_attr_bool(ctx, "transpose_b", &tb, err)) ||
      (st = kn_attr_bool(ctx, "relu", &relu, err)))
    return st;
  isa_dtype it = ISA_INT8;
  if ((st = in_type(ctx, kind, a, &it, err)) != CS_OK) return st;
  if (b->dtype != a->dtype)
    return cs_err_set(err, CS_EINVAL, "b: dtype %s but a is %s; both operands have one type", isa_dtype_name(b->dtype),
                      isa_dtype_name(a->dtype));
  const char *af = "nd", *bf = "nd";
  if ((st = kn_attr_str(ctx, "a_format", &af, err)) || (st = kn_attr_str(ctx, "b_format", &bf, err))) return st;
  j->ty.a_nz = strcmp(af, "nz") == 0;
  j->ty.b_nz = strcmp(bf, "nz") == 0;
  char sh[96];
  uint64_t ab, ar, ac, bb, br, bc; /* batch, rows and columns of the stored matrices */
  if ((st = stored_matrix(a, it, j->ty.a_nz, "[m, k] or [batch, m, k]", &ab, &ar, &ac, err)) != CS_OK) return st;
  s->c3 = j->ty.a_nz ? ab > 1 : a->ndim == 3;
  if ((st = kn_mm_dim("batch", ab, &j->batch, err)) || (st = kn_mm_dim("m", ta ? ac : ar, &j->m, err)) ||
      (st = kn_mm_dim("k", ta ? ar : ac, &j->k, err)))
    return st;
  kn_shape_str(b, sh, sizeof sh);
  if ((st = stored_matrix(b, it, j->ty.b_nz, "[k, n] or [batch, k, n]", &bb, &br, &bc, err)) != CS_OK) return st;
  if ((tb ? bc : br) != j->k)
    return cs_err_set(err, CS_EINVAL, "b: shape %s has k = %" PRIu64 " but a has k = %u", sh, tb ? bc : br, j->k);
  if (bb != 1 && bb != j->batch) return cs_err_set(err, CS_EINVAL, "b: batch %" PRIu64 " but a has batch %u", bb, j->batch);
  if ((st = kn_mm_dim("n", tb ? br : bc, &j->n, err))) return st;
  j->b_batched = bb != 1;
  j->ty.a = j->ty.b = it;
  j->ty.a_trans = ta;
  j->ty.b_trans = tb;
  j->relu = relu;
  bool is_int = it == ISA_INT8 || it == ISA_INT4;
  /* output type */
  const char *ot = kind == MM_GELU ? "fp32" : NULL;
  if (kind == MM_GELU) {
    const char *sync;
    if (is_int_type(it)) return cs_err_set(err, CS_EINVAL, "matmul_gelu: in_dtype %s; fp16 or bf16 inputs", isa_dtype_name(it));
    if ((st = kn_attr_str(ctx, "cross_sync", &sync, err)) != CS_OK) return st;
    j->epilogue = KN_EPI_GELU_AIV;
    j->gelu_sync = strcmp(sync, "no_wait") == 0 ? KN_GELU_NO_WAIT : strcmp(sync, "no_set") == 0 ? KN_GELU_NO_SET : KN_GELU_FLAGS;
  } else if (kn_attr_given(ctx, "out_dtype") || kind != MM_PLAIN) { /* quant kinds: out_dtype has a default */
    if ((st = kn_attr_str(ctx, "out_dtype", &ot, err)) != CS_OK) return st;
  }
  j->ty.c = ot ? isa_dtype_from_name(ot) : (is_int ? ISA_INT32 : ISA_FP32);
  if (kind == MM_PLAIN && is_int && j->ty.c != ISA_INT32)
    return cs_err_set(err, CS_EINVAL, "out_dtype %s: integer inputs give int32 (matmul_requant and linear dequantize)",
                      isa_dtype_name(j->ty.c));
  if (kind == MM_PLAIN && !is_int && j->ty.c == ISA_INT32)
    return cs_err_set(err, CS_EINVAL, "out_dtype int32: float inputs give fp32, fp16 or bf16 (matmul_quant gives int8)");
  /* bias */
  if (bias) {
    isa_dtype want = is_int ? ISA_INT32 : ISA_FP32;
    kn_shape_str(bias, sh, sizeof sh);
    if (bias->dtype != want)
      return cs_err_set(err, CS_EINVAL, "bias: dtype %s; %s inputs take a %s bias", isa_dtype_name(bias->dtype),
                        isa_dtype_name(it), isa_dtype_name(want));
    uint64_t lead = bias->ndim == 2 ? bias->shape[0] : 1, last = bias->ndim ? bias->shape[bias->ndim - 1] : 0;
    if (bias->ndim < 1 || bias->ndim > 2 || last != j->n || (lead != 1 && lead != j->batch))
      return cs_err_set(err, CS_EINVAL, "bias: shape %s; expected [%u] or [%u, %u]", sh, j->n, j->batch, j->n);
    j->ty.has_bias = true;
    j->bias_batched = lead != 1;
    if ((st = kn_to_device(bias, bias->dtype, &s->bias, NULL, err)) != CS_OK) return st;
    j->bias = s->bias;
  }
  /* quant words */
  if (kind == MM_QUANT || kind == MM_REQUANT) {
    const kn_tensor *q = kn_input(ctx, "quant"), *sc = kn_input(ctx, "scale"), *off = kn_input(ctx, "offset");
    if (!!q == !!sc) return cs_err_set(err, CS_EINVAL, "give either quant (packed words) or scale (floats), %s",
                                       q ? "not both" : "one of them is required");
    if (off && !sc) return cs_err_set(err, CS_EINVAL, "offset goes with scale (a packed quant word carries its own offset)");
    const kn_tensor *src = q ? q : sc;
    kn_shape_str(src, sh, sizeof sh);
    if (src->count != 1 && src->count != j->n)
      return cs_err_set(err, CS_EINVAL, "%s: shape %s; expected [1] (one word for all of c) or [%u] (one per column)",
                        src->name, sh, j->n);
    s->words = calloc(src->count, sizeof *s->words);
    if (!s->words) return cs_err_set(err, CS_ENOMEM, "no host memory");
    if (q) {
      memcpy(s->words, q->data, q->count * 8);
    } else {
      if (off && off->count != 1 && off->count != sc->count)
        return cs_err_set(err, CS_EINVAL, "offset: %" PRIu64 " values for %" PRIu64 " scales (1 or one per scale)",
                          off->count, sc->count);
      st = isa_qw_pack_array(sc->data, sc->count, off ? off->data : NULL, off ? off->count : 0, NULL, s->words, NULL, err);
      if (st != CS_OK) {
        cs_err_prefix(err, "%s", off ? "scale, offset" : "scale"); /* name the inputs */
        return st;
      }
    }
    if (src->count == 1 && j->n != 1) {
      j->has_qscalar = true;
      j->qscalar = s->words[0];
    } else {
      j->qvec = s->words;
    }
    /* the S bit decides the clamp; a mismatch with out_dtype is legal but surprising */
    uint64_t bad = 0;
    for (uint64_t i = 0; i < src->count; i++) {
      bool sbit = (s->words[i] >> 46) & 1u;
      if (sbit != (j->ty.c == ISA_INT8)) bad++;
    }
    if (bad)
      kn_note(ctx, "warning: %" PRIu64 " quant word%s S bit %s, but out_dtype is %s: the fixpipe clamps to %s",
              bad, bad == 1 ? "'s" : "s'", j->ty.c == ISA_INT8 ? "clear (uint8)" : "set (int8)", isa_dtype_name(j->ty.c),
              j->ty.c == ISA_INT8 ? "[0, 255] and the bytes read back as int8" : "[-128, 127] and the bytes read back as uint8");
  }
  if ((st = kn_to_device(a, it, &s->a, &s->inexact, err)) != CS_OK || (st = kn_to_device(b, it, &s->b, &s->inexact, err)) != CS_OK)
    return st;
  if (s->inexact) kn_note(ctx, "note: %" PRIu64 " input values were not bf16 and were rounded to nearest even", s->inexact);
  j->a = s->a;
  j->b = s->b;
  return kn_mm_tiling_attrs(ctx, j, err);
}

static cs_status out_tensor(kn_ctx *ctx, const mm_setup *s, bool ref, kn_tensor **out, cs_err *err) {
  uint64_t shape[3];
  uint32_t nd = 0;
  if (s->c3) shape[nd++] = s->job.batch;
  shape[nd++] = s->job.m;
  shape[nd++] = s->job.n;
  return ref ? kn_reference_alloc(ctx, "c", s->job.ty.c, nd, shape, out, err)
             : kn_output_alloc(ctx, "c", s->job.ty.c, nd, shape, out, err);
}

static cs_status run_kind(kn_ctx *ctx, mm_kind kind, bool ref, cs_err *err) {
  mm_setup s;
  cs_status st = build(ctx, kind, &s, err);
  kn_tensor *out = NULL;
  if (st == CS_OK) st = out_tensor(ctx, &s, ref, &out, err);
  bool data = ref || !kn_options(ctx)->timing_only;
  /* c's host form is its device form for every type but bf16 (held as fp32): GM (or the
   * reference) is read straight into the output tensor, else into a device-form copy */
  isa_dtype ct = s.job.ty.c;
  bool direct = kn_host_elem_bytes(ct) * 8 == isa_dtype_bits(ct) && kn_mm_out_elem_bytes(&s.job) == kn_host_elem_bytes(ct);
  if (st == CS_OK && data && direct) {
    s.job.c = out->data;
  } else if (st == CS_OK && data) {
    s.c = calloc((uint64_t)s.job.batch * s.job.m * s.job.n + 1, kn_mm_out_elem_bytes(&s.job));
    if (!s.c) st = cs_err_set(err, CS_ENOMEM, "c: no host memory");
    s.job.c = s.c;
  }
  if (st == CS_OK) st = ref ? kn_mm_reference(&s.job, kn_options(ctx)->cfg, s.job.c, err) : kn_mm_simulate(ctx, &s.job, err);
  if (st == CS_OK && s.c) kn_from_device(s.c, ct, out);
  setup_free(&s);
  return st;
}

/* Generated inputs: values uniform over a small range of the input type (int8 over [-128, 127],
 * int4 over [-8, 7], floats over [-1, 1) rounded to the type), bias small, and quant scales that
 * bring the output near the middle of the int8 range. */
static cs_status make_inputs_kind(kn_ctx *ctx, mm_kind kind, cs_err *err) {
  static const char *const dims[4] = {"m", "n", "k", "batch"};
  int64_t d[4];
  bool ta, tb, has_bias;
  cs_status st;
  if ((st = kn_attr_dims(ctx, dims, 4, 1 << 20, d, err)) || (st = kn_attr_bool(ctx, "transpose_a", &ta, err)) ||
      (st = kn_attr_bool(ctx, "transpose_b", &tb, err)) || (st = kn_attr_bool(ctx, "has_bias", &has_bias, err)))
    return st;
  const int64_t m = d[0], n = d[1], k = d[2], batch = d[3];
  isa_dtype it = ISA_INT8;
  if (kind != MM_REQUANT) {
    const char *t = "fp16";
    if (kn_attr_given(ctx, "in_dtype") && (st = kn_attr_str(ctx, "in_dtype", &t, err)) != CS_OK) return st;
    it = isa_dtype_from_name(t);
  }
  if (it == ISA_INT4 && ((ta ? m : k) % 2 || (tb ? k : n) % 2))
    return cs_err_set(err, CS_EINVAL, "int4 rows must be whole bytes: m, n, k = %" PRId64 ", %" PRId64 ", %" PRId64
                      " give an odd stored row", m, n, k);
  isa_dtype npy = it == ISA_FP16 ? ISA_FP16 : it == ISA_BF16 ? ISA_FP32 : ISA_INT8;
  uint64_t seed = kn_options(ctx)->seed ? kn_options(ctx)->seed : 1;
  kn_tensor t;
  uint64_t shape[4];
  const char *fmt[2];
  if ((st = kn_attr_str(ctx, "a_format", &fmt[0], err)) || (st = kn_attr_str(ctx, "b_format", &fmt[1], err))) return st;
  for (int which = 0; which < 2; which++) {
    const char *nm = which ? "b" : "a";
    if (kn_input(ctx, nm)) continue;
    uint32_t nd = 0;
    bool tr = which ? tb : ta;
    int64_t r = which ? k : m, c = which ? n : k;
    uint64_t rows = (uint64_t)(tr ? c : r), cols = (uint64_t)(tr ? r : c), c0 = isa_dtype_c0(it);
    if (strcmp(fmt[which], "nz") == 0) { /* [batch, cols/C0, rows, C0]: the values are drawn in storage order */
      if (rows % 16 || cols % c0)
        return cs_err_set(err, CS_EINVAL, "%s_format nz: the stored %s is %" PRIu64 " x %" PRIu64 "; NZ needs rows a multiple "
                          "of 16 and columns of C0 = %" PRIu64 " (%s)", nm, nm, rows, cols, c0, isa_dtype_name(it));
      shape[nd++] = (uint64_t)batch;
      shape[nd++] = cols / c0;
      shape[nd++] = rows;
      shape[nd++] = c0;
    } else {
      if (batch > 1) shape[nd++] = (uint64_t)batch;
      shape[nd++] = rows;
      shape[nd++] = cols;
    }
    bool data = kn_ctx_has_data(ctx); /* timing-only: a and b are shapes, never read */
    if ((st = data ? kn_tensor_alloc(&t, nm, npy, nd, shape, err) : kn_tensor_shape(&t, nm, npy, nd, shape, err)) != CS_OK)
      return st;
    for (uint64_t i = 0; data && i < t.count; i++) {
      if (it == ISA_INT8) ((int8_t *)t.data)[i] = (int8_t)kn_rng_int(&seed, -128, 127);
      else if (it == ISA_INT4) ((int8_t *)t.data)[i] = (int8_t)kn_rng_int(&seed, -8, 7);
      else {
        float f = (float)(kn_rng_unit(&seed) * 2 - 1);
        if (it == ISA_FP16) ((uint16_t *)t.data)[i] = isa_f32_to_f16(f);
        else ((float *)t.data)[i] = isa_bf16_to_f32(isa_f32_to_bf16(f));
      }
    }
    if ((st = kn_set_input(ctx, nm, &t, err)) != CS_OK) return st;
  }
  bool is_int = it == ISA_INT8 || it == ISA_INT4;
  if (has_bias && !kn_input(ctx, "bias")) {
    uint32_t nd = 0;
    if (batch > 1) shape[nd++] = (uint64_t)batch;
    shape[nd++] = (uint64_t)n;
    if ((st = kn_tensor_alloc(&t, "bias", is_int ? ISA_INT32 : ISA_FP32, nd, shape, err)) != CS_OK) return st;
    for (uint64_t i = 0; i < t.count; i++) {
      if (is_int) ((int32_t *)t.data)[i] = (int32_t)kn_rng_int(&seed, -1000, 1000);
      else ((float *)t.data)[i] = (float)(kn_rng_unit(&seed) * 2 - 1);
    }
    if ((st = kn_set_input(ctx, "bias", &t, err)) != CS_OK) return st;
  }
  if (kind != MM_PLAIN && kind != MM_GELU && !kn_input(ctx, "quant") && !kn_input(ctx, "scale")) {
    shape[0] = (uint64_t)n;
    if ((st = kn_tensor_alloc(&t, "scale", ISA_FP32, 1, shape, err)) != CS_OK) return st;
    /* the accumulator's spread: sqrt(k) x (value spread)^2 */
    double spread = sqrt((double)k) * (is_int ? 74.0 * 74.0 : 0.58 * 0.58);
    for (uint64_t i = 0; i < t.count; i++) ((float *)t.data)[i] = (float)(40.0 / spread * (0.5 + kn_rng_unit(&seed)));
    if ((st = kn_set_input(ctx, "scale", &t, err)) != CS_OK) return st;
  }
  return CS_OK;
}

static cs_status plain_run(kn_ctx *c, cs_err *e) { return run_kind(c, MM_PLAIN, false, e); }
static cs_status plain_ref(kn_ctx *c, cs_err *e) { return run_kind(c, MM_PLAIN, true, e); }
static cs_status plain_make(kn_ctx *c, cs_err *e) { return make_inputs_kind(c, MM_PLAIN, e); }
static cs_status quant_run(kn_ctx *c, cs_err *e) { return run_kind(c, MM_QUANT, false, e); }
static cs_status quant_ref(kn_ctx *c, cs_err *e) { return run_kind(c, MM_QUANT, true, e); }
static cs_status quant_make(kn_ctx *c, cs_err *e) { return make_inputs_kind(c, MM_QUANT, e); }
static cs_status gelu_run(kn_ctx *c, cs_err *e) { return run_kind(c, MM_GELU, false, e); }
static cs_status gelu_ref(kn_ctx *c, cs_err *e) { return run_kind(c, MM_GELU, true, e); }
static cs_status gelu_make(kn_ctx *c, cs_err *e) { return make_inputs_kind(c, MM_GELU, e); }
static cs_status requant_run(kn_ctx *c, cs_err *e) { return run_kind(c, MM_REQUANT, false, e); }
static cs_status requant_ref(kn_ctx *c, cs_err *e) { return run_kind(c, MM_REQUANT, true, e); }
static cs_status requant_make(kn_ctx *c, cs_err *e) { return make_inputs_kind(c, MM_REQUANT, e); }

const kn_op kn_op_matmul = {
    "matmul", "C = A x B (+ bias): fp16/bf16 to fp32/fp16/bf16, int8/int4 to int32",
    "Ascend C Matmul (SetTensorA/B, SetBias, IterateAll)", true,
    KN_LIST(plain_inputs), KN_LIST(plain_attrs), KN_LIST(c_output),
    plain_run, plain_ref, plain_make,
};

const kn_op kn_op_matmul_quant = {
    "matmul_quant", "fp16/bf16 matmul quantized to int8/uint8 by the fixpipe (QF322B8_PRE / VQF322B8_PRE)",
    "Ascend C Matmul::SetQuantScalar / SetQuantVector, quant scenario (seed 003)", true,
    KN_LIST(quant_inputs), KN_LIST(quant_attrs), KN_LIST(c_output),
    quant_run, quant_ref, quant_make,
};

const kn_op kn_op_matmul_requant = {
    "matmul_requant", "int8 matmul requantized to int8/uint8 by the fixpipe (REQ8 / VREQ8)",
    "Ascend C Matmul::SetQuantScalar / SetQuantVector, int8 in and out (seed 003)", true,
    KN_LIST(requant_inputs), KN_LIST(requant_attrs), KN_LIST(c_output),
    requant_run, requant_ref, requant_make,
};

const kn_op kn_op_matmul_gelu = {
    "matmul_gelu", "c = GELU(a x b (+ bias)): the cube's fp32 tiles, GELU on the AI core's two AIVs (MIX 1:2)",
    "Huawei's Ascend C sample matmul_gelu_high_performance (CV fusion through GM, cross-core flags)", true,
    KN_LIST(plain_inputs), KN_LIST(gelu_attrs), KN_LIST(gelu_output),
    gelu_run, gelu_ref, gelu_make,
};
