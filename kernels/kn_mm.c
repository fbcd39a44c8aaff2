/* kn_mm — the shared multi-core matmul kernel, its launcher and its host reference. */
#include "kernels/kn_mm.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_fixpipe.h"
#include "isa/isa_mmad.h"
#include "isa/isa_num.h"
#include "runtime/rt_intrin.h"

static uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
static uint32_t round_up(uint32_t a, uint32_t b) { return cdiv(a, b) * b; }
static uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }

size_t kn_mm_out_elem_bytes(const kn_mm_job *job) {
  return job->epilogue == KN_EPI_DEQ_BF16 ? 2 : isa_dtype_bytes(job->ty.c, 1);
}

/* ---- conversions ------------------------------------------------------------------------ */

cs_status kn_to_device(const kn_tensor *t, isa_dtype as, void **out, uint64_t *inexact, cs_err *err) {
  uint64_t n = t->count;
  void *d = calloc(isa_dtype_bytes(as, n) + 1, 1);
  if (!d) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", t->name);
  if (as == ISA_INT4) {
    cs_status st = isa_int4_pack((const int8_t *)t->data, n, d, err);
    if (st != CS_OK) {
      free(d);
      cs_err_prefix(err, "%s", t->name);
      return st;
    }
  } else if (as == ISA_BF16) {
    const float *f = t->data;
    uint16_t *h = d;
    for (uint64_t i = 0; i < n; i++) {
      h[i] = isa_f32_to_bf16(f[i]);
      if (inexact && isa_bf16_to_f32(h[i]) != f[i] && f[i] == f[i]) (*inexact)++;
    }
  } else {
    memcpy(d, t->data, isa_dtype_bytes(as, n));
  }
  *out = d;
  return CS_OK;
}

void kn_from_device(const void *dev, isa_dtype as, kn_tensor *t) {
  if (as == ISA_INT4) isa_int4_unpack(dev, t->count, t->data);
  else if (as == ISA_BF16)
    for (uint64_t i = 0; i < t->count; i++) ((float *)t->data)[i] = isa_bf16_to_f32(((const uint16_t *)dev)[i]);
  else
    memcpy(t->data, dev, isa_dtype_bytes(as, t->count));
}

cs_status kn_mm_dim(const char *what, uint64_t v, uint32_t *out, cs_err *err) {
  if (v == 0 || v > 1u << 24)
    return cs_err_set(err, CS_EINVAL, "%s = %" PRIu64 " is out of range [1, %u]", what, v, 1u << 24);
  *out = (uint32_t)v;
  return CS_OK;
}

cs_status kn_mm_tiling_attrs(const kn_ctx *ctx, kn_mm_job *j, cs_err *err) {
  static const char *const names[4] = {"base_m", "base_n", "base_k", "step_k"};
  bool any = false;
  for (int i = 0; i < 4; i++) any = any || kn_attr_given(ctx, names[i]);
  if (!any) return CS_OK;
  rt_tiling *t = &j->tiling;
  cs_status st = rt_tiling_auto(kn_options(ctx)->cfg, &j->ty, j->m, j->n, j->k, t, err);
  if (st != CS_OK) return st;
  uint32_t *fields[4] = {&t->base_m, &t->base_n, &t->base_k, &t->step_k};
  for (int i = 0; i < 4; i++) {
    int64_t v;
    if (!kn_attr_given(ctx, names[i])) continue;
    if ((st = kn_attr_int(ctx, names[i], &v, err)) != CS_OK) return st;
    if (v <= 0 || v > 4095)
      return cs_err_set(err, CS_EINVAL, "attribute %s = %" PRId64 " is out of range [1, 4095]", names[i], v);
    *fields[i] = (uint32_t)v;
  }
  /* what the overrides leave room for: L0C double-buffered if it fits, L1 as deep as fits, and
   * (unless given) fewer base_k per L1 chunk */
  const sim_config *cfg = kn_options(ctx)->cfg;
  t->l0c_slots = 2;
  if (rt_tiling_check(cfg, &j->ty, t, NULL) != CS_OK) t->l0c_slots = 1;
  for (;;) {
    uint32_t depth = 3;
    for (; depth > 1; depth--) {
      t->depth_a1 = t->depth_b1 = depth;
      if (rt_tiling_check(cfg, &j->ty, t, NULL) == CS_OK) break;
    }
    if (depth > 1 || t->step_k == 1 || kn_attr_given(ctx, "step_k")) break;
    t->step_k /= 2;
  }
  j->tiling_given = true;
  return CS_OK;
}

/* ---- the kernel ------------------------------------------------------------------------- */

typedef struct launch {
  const kn_mm_job *job;
  rt_tiling tiling;
  rt_gtensor a, b, bias, qvec, c, work, scale;
  uint64_t a_batch, b_batch, c_batch; /* elements per batch */
  uint64_t tiles_per_batch;
} launch;

/* The vector epilogue for one tile: rows of int32 from the workspace, times the column scales,
 * to bf16 in C (ATB Linear with bf16 output, docs/DESIGN.md §5.3). */
static void epilogue_tile(rt_ctx *ctx, const launch *L, rt_queue *qin, rt_queue *qscale, rt_queue *qout,
                          uint32_t batch, uint32_t m0, uint32_t n0, uint32_t ml, uint32_t nl, uint32_t rows) {
  const kn_mm_job *j = L->job;
  uint32_t in_stride = round_up(nl * 4, 32) / 4, out_stride = round_up(nl * 2, 32) / 2;
  rt_ltensor sc = rt_alloc(qscale, ISA_FP32);
  rt_gtensor scale = rt_gtensor_at(L->scale, (uint64_t)(j->q_batched ? batch : 0) * j->n + n0);
  rt_copy_gm_to_local(ctx, sc, scale, rt_copy_params((uint64_t)nl * 4));
  rt_enque(qscale, sc);
  sc = rt_deque(qscale);
  for (uint32_t r0 = 0; r0 < ml; r0 += rows) {
    uint32_t rn = umin(rows, ml - r0);
    rt_ltensor in = rt_alloc(qin, ISA_INT32);
    isa_fmt_copy cp;
    memset(&cp, 0, sizeof cp);
    cp.block_count = rn;
    cp.block_len_bytes = nl * 4;
    cp.src_gap_bytes = (j->n - nl) * 4;
    cp.dst_gap_bytes = (in_stride - nl) * 4;
    rt_gtensor src = rt_gtensor_at(L->work, (uint64_t)batch * L->c_batch + (uint64_t)(m0 + r0) * j->n + n0);
    rt_copy_gm_to_local(ctx, in, src, cp);
    rt_enque(qin, in);
    in = rt_deque(qin);
    rt_ltensor out = rt_alloc(qout, ISA_BF16);
    isa_fmt_vdeq v;
    memset(&v, 0, sizeof v);
    v.out_dtype = ISA_BF16;
    v.rows = rn;
    v.cols = nl;
    v.src_row_stride = in_stride;
    v.dst_row_stride = out_stride;
    rt_vdeq(ctx, out, in, sc, v);
    rt_free(qin, in);
    rt_enque(qout, out);
    out = rt_deque(qout);
    memset(&cp, 0, sizeof cp);
    cp.block_count = rn;
    cp.block_len_bytes = nl * 2;
    cp.src_gap_bytes = (out_stride - nl) * 2;
    cp.dst_gap_bytes = (j->n - nl) * 2;
    rt_gtensor dst = rt_gtensor_at(L->c, (uint64_t)batch * L->c_batch + (uint64_t)(m0 + r0) * j->n + n0);
    rt_copy_local_to_gm(ctx, dst, out, cp);
    rt_free(qout, out);
  }
  rt_free(qscale, sc);
}

static void mm_kernel(rt_ctx *ctx, void *arg) {
  const launch *L = arg;
  const kn_mm_job *j = L->job;
  const rt_tiling *t = &L->tiling;
  rt_matmul_types ty = j->ty;
  rt_matmul *mm = rt_matmul_init(ctx, &ty, t);
  if (!mm) return;
  rt_matmul_set_relu(mm, j->relu);
  /* the tiles of all batches are dealt round-robin: block c takes global tiles c, c + P, ... */
  uint64_t T = L->tiles_per_batch, P = rt_block_num(ctx), c = rt_block_idx(ctx);
  rt_gtensor out = j->epilogue == KN_EPI_DEQ_BF16 ? L->work : L->c;
  for (uint32_t b = 0; b < j->batch && rt_ok(ctx); b++) {
    uint64_t first = (c + P - ((uint64_t)b * T) % P) % P;
    if (first >= T) continue;
    uint64_t count = (T - first + P - 1) / P;
    rt_matmul_set_tensor_a(mm, rt_gtensor_at(L->a, b * L->a_batch));
    rt_matmul_set_tensor_b(mm, rt_gtensor_at(L->b, j->b_batched ? b * L->b_batch : 0));
    if (ty.has_bias) rt_matmul_set_bias(mm, rt_gtensor_at(L->bias, j->bias_batched ? (uint64_t)b * j->n : 0));
    if (j->qvec) rt_matmul_set_quant_vector(mm, rt_gtensor_at(L->qvec, j->q_batched ? (uint64_t)b * j->n : 0));
    else if (j->has_qscalar) rt_matmul_set_quant_scalar(mm, j->qscalar);
    rt_matmul_set_tile_range(mm, first, count, P);
    rt_matmul_iterate_all(mm, rt_gtensor_at(out, b * L->c_batch));
  }
  rt_matmul_end(mm);
  uint64_t total = (uint64_t)j->batch * T;
  if (j->epilogue != KN_EPI_DEQ_BF16 || c >= total || !rt_ok(ctx)) return;
  /* the epilogue reads what the fixpipe wrote to GM: wait for the fixpipe to drain */
  int ev = rt_event_alloc(ctx, ISA_PIPE_FIX, ISA_PIPE_MTE2);
  rt_set_flag(ctx, ISA_PIPE_FIX, ISA_PIPE_MTE2, ev);
  rt_wait_flag(ctx, ISA_PIPE_FIX, ISA_PIPE_MTE2, ev);
  rt_event_release(ctx, ISA_PIPE_FIX, ISA_PIPE_MTE2, ev);
  uint32_t nl_max = umin(t->base_n, j->n);
  uint64_t in_row = round_up(nl_max * 4, 32), out_row = round_up(nl_max * 2, 32);
  uint64_t fixed = round_up(nl_max * 4, 32) + 256, free_ub = rt_buf_free_bytes(ctx, RT_POS_VECIN);
  uint64_t room = free_ub > fixed ? free_ub - fixed : 0; /* a small UB must not wrap around */
  uint32_t rows = (uint32_t)(room / (2 * (in_row + out_row)));
  if (rows > t->base_m) rows = t->base_m;
  if (rows == 0) {
    rt_fail(ctx, "linear epilogue: UB cannot hold one row of %u columns", nl_max);
    return;
  }
  rt_queue *qscale = rt_queue_init(ctx, RT_POS_VECIN, 1, (uint64_t)nl_max * 4, "scale");
  rt_queue *qin = rt_queue_init(ctx, RT_POS_VECIN, 2, rows * in_row, "epilogue in");
  rt_queue *qout = rt_queue_init(ctx, RT_POS_VECOUT, 2, rows * out_row, "epilogue out");
  uint32_t tiles_n = cdiv(j->n, t->base_n);
  for (uint64_t tile = c; tile < total && rt_ok(ctx); tile += P) {
    uint32_t b = (uint32_t)(tile / L->tiles_per_batch);
    uint64_t in_batch = tile % L->tiles_per_batch;
    uint32_t m0 = (uint32_t)(in_batch / tiles_n) * t->base_m, n0 = (uint32_t)(in_batch % tiles_n) * t->base_n;
    epilogue_tile(ctx, L, qin, qscale, qout, b, m0, n0, umin(t->base_m, j->m - m0), umin(t->base_n, j->n - n0), rows);
  }
}

/* Allocates a GM tensor and fills it from host data (unless timing-only or data is NULL). */
static cs_status gm_tensor(sim *s, const char *name, isa_dtype dt, uint64_t count, const void *data,
                           rt_gtensor *out, cs_err *err) {
  uint64_t bytes = isa_dtype_bytes(dt, count);
  out->dtype = dt;
  out->count = count;
  cs_status st = sim_gm_alloc(s, name, bytes ? bytes : 1, &out->addr, err);
  if (st != CS_OK) return st;
  uint8_t *p = sim_gm_ptr(s, out->addr, bytes);
  if (p && data) memcpy(p, data, bytes);
  return CS_OK;
}

cs_status kn_mm_simulate(kn_ctx *ctx, kn_mm_job *job, cs_err *err) {
  const kn_run_options *o = kn_options(ctx);
  cs_status st;
  launch L;
  memset(&L, 0, sizeof L);
  L.job = job;
  if (job->tiling_given) {
    L.tiling = job->tiling;
    L.tiling.m = job->m;
    L.tiling.n = job->n;
    L.tiling.k = job->k;
    st = rt_tiling_check(o->cfg, &job->ty, &L.tiling, err);
  } else {
    st = rt_tiling_auto(o->cfg, &job->ty, job->m, job->n, job->k, &L.tiling, err);
  }
  if (st != CS_OK) return st;
  sim_options so = {o->timing_only};
  sim *s;
  st = sim_create(o->cfg, &so, &s, err);
  if (st != CS_OK) return st;
  kn_set_sim(ctx, s);
  const rt_matmul_types *ty = &job->ty;
  uint64_t mk = (uint64_t)job->m * job->k, kn = (uint64_t)job->k * job->n, mn = (uint64_t)job->m * job->n;
  if (ty->b_nz) kn = ty->b_trans ? (uint64_t)round_up(job->n, 16) * round_up(job->k, isa_dtype_c0(ty->b))
                                 : (uint64_t)round_up(job->n, isa_dtype_c0(ty->b)) * round_up(job->k, 16);
  L.a_batch = mk;
  L.b_batch = kn;
  L.c_batch = mn;
  uint32_t nb = job->b_batched ? job->batch : 1;
  uint32_t pb = job->bias_batched ? job->batch : 1, qb = job->q_batched ? job->batch : 1;
  isa_dtype bias_t = ty->a == ISA_INT8 || ty->a == ISA_INT4 ? ISA_INT32 : ISA_FP32;
  isa_dtype cdt = job->epilogue == KN_EPI_DEQ_BF16 ? ISA_BF16 : ty->c;
  if ((st = gm_tensor(s, "A", ty->a, job->batch * mk, job->a, &L.a, err)) != CS_OK ||
      (st = gm_tensor(s, "B", ty->b, nb * kn, job->b, &L.b, err)) != CS_OK ||
      (st = gm_tensor(s, "C", cdt, job->batch * mn, NULL, &L.c, err)) != CS_OK)
    return st;
  if (ty->has_bias && (st = gm_tensor(s, "bias", bias_t, (uint64_t)pb * job->n, job->bias, &L.bias, err)) != CS_OK)
    return st;
  if (job->qvec && (st = gm_tensor(s, "quant words", ISA_UINT64, (uint64_t)qb * job->n, job->qvec, &L.qvec, err)) != CS_OK)
    return st;
  if (job->epilogue == KN_EPI_DEQ_BF16 &&
      ((st = gm_tensor(s, "workspace", ISA_INT32, job->batch * mn, NULL, &L.work, err)) != CS_OK ||
       (st = gm_tensor(s, "scale", ISA_FP32, (uint64_t)qb * job->n, job->epi_scale, &L.scale, err)) != CS_OK))
    return st;
  L.tiles_per_batch = (uint64_t)cdiv(job->m, L.tiling.base_m) * cdiv(job->n, L.tiling.base_n);
  uint64_t total = job->batch * L.tiles_per_batch;
  unsigned cores = sim_core_count(s);
  unsigned blocks = total < cores ? (unsigned)total : cores;
  st = rt_launch(s, blocks, mm_kernel, &L, err);
  if (st != CS_OK) return st;
  sim_run_options ro = {o->trace, o->allow_hazards};
  st = sim_run(s, &ro, kn_sim_result(ctx), err);
  kn_mark_sim_result(ctx);
  if (st != CS_OK) return st;
  if (!o->timing_only && job->c) {
    const uint8_t *p = sim_gm_ptr(s, L.c.addr, isa_dtype_bytes(cdt, L.c.count));
    memcpy(job->c, p, isa_dtype_bytes(cdt, L.c.count));
  }
  return CS_OK;
}

/* ---- the host reference ----------------------------------------------------------------- */

/* Element (r, c) of a stored matrix in device form, as a double (ints exact, floats exact). */
static double elem(const void *base, isa_dtype t, uint64_t idx) {
  switch (t) {
    case ISA_INT8: return ((const int8_t *)base)[idx];
    case ISA_INT4: return isa_int4_get(base, idx);
    case ISA_FP16: return isa_f16_to_f32(((const uint16_t *)base)[idx]);
    case ISA_BF16: return isa_bf16_to_f32(((const uint16_t *)base)[idx]);
    default: return 0;
  }
}

/* Index of B(κ, j) in its stored form. */
static uint64_t b_index(const kn_mm_job *j, uint32_t kk, uint32_t col) {
  const rt_matmul_types *ty = &j->ty;
  uint32_t c0 = isa_dtype_c0(ty->b);
  if (!ty->b_nz) return ty->b_trans ? (uint64_t)col * j->k + kk : (uint64_t)kk * j->n + col;
  if (!ty->b_trans) /* NZ of K x N: [N/C0][K16][C0] */
    return ((uint64_t)(col / c0) * round_up(j->k, 16) + kk) * c0 + col % c0;
  return ((uint64_t)(kk / c0) * round_up(j->n, 16) + col) * c0 + kk % c0; /* NZ of N x K */
}

cs_status kn_mm_reference(const kn_mm_job *j, const sim_config *cfg, void *c, cs_err *err) {
  const rt_matmul_types *ty = &j->ty;
  bool is_int = ty->a == ISA_INT8 || ty->a == ISA_INT4;
  uint32_t k0 = isa_dtype_c0(ty->a);
  uint64_t mk = (uint64_t)j->m * j->k, mn = (uint64_t)j->m * j->n;
  uint64_t kn = (uint64_t)j->k * j->n;
  if (ty->b_nz)
    kn = ty->b_trans ? (uint64_t)round_up(j->n, 16) * round_up(j->k, k0) : (uint64_t)round_up(j->n, k0) * round_up(j->k, 16);
  isa_quant_mode mode = j->epilogue == KN_EPI_DEQ_BF16 ? ISA_QUANT_NO_QUANT : rt_matmul_quant_mode(ty, j->qvec != NULL);
  size_t ob = kn_mm_out_elem_bytes(j);
  double *arow = malloc(sizeof(double) * j->k);
  double *terms = malloc(sizeof(double) * k0);
  if (!arow || !terms) {
    free(arow);
    free(terms);
    return cs_err_set(err, CS_ENOMEM, "reference: no host memory");
  }
  for (uint32_t b = 0; b < j->batch; b++) {
    const uint8_t *abase = j->a;
    uint64_t a_off = (uint64_t)b * mk;
    uint64_t b_off = j->b_batched ? (uint64_t)b * kn : 0;
    for (uint32_t i = 0; i < j->m; i++) {
      for (uint32_t kk = 0; kk < j->k; kk++)
        arow[kk] = elem(abase, ty->a, a_off + (ty->a_trans ? (uint64_t)kk * j->m + i : (uint64_t)i * j->k + kk));
      for (uint32_t col = 0; col < j->n; col++) {
        uint32_t x_bits;
        uint64_t bias_idx = (j->bias_batched ? (uint64_t)b * j->n : 0) + col;
        if (is_int) { /* exact, wrapping into int32 */
          uint32_t acc = ty->has_bias ? (uint32_t)((const int32_t *)j->bias)[bias_idx] : 0;
          for (uint32_t kk = 0; kk < j->k; kk++)
            acc += (uint32_t)(int32_t)(arow[kk] * elem(j->b, ty->b, b_off + b_index(j, kk, col)));
          x_bits = acc;
        } else { /* k-blocks of k0 products, each exact and rounded once, added in fp32 */
          float acc = ty->has_bias ? ((const float *)j->bias)[bias_idx] : 0.0f;
          for (uint32_t kb = 0; kb < j->k; kb += k0) {
            uint32_t cnt = umin(k0, j->k - kb);
            for (uint32_t q = 0; q < cnt; q++) terms[q] = arow[kb + q] * elem(j->b, ty->b, b_off + b_index(j, kb + q, col));
            acc += isa_mmad_exact_sum_f32(terms, cnt);
          }
          x_bits = isa_f32_bits(acc);
        }
        uint64_t word = j->has_qscalar ? j->qscalar : 0;
        if (j->qvec) word = j->qvec[(j->q_batched ? (uint64_t)b * j->n : 0) + col];
        uint32_t out = isa_fixpipe_convert_elem(mode, is_int ? ISA_INT32 : ISA_FP32, word, j->relu, x_bits,
                                                cfg->chip_fixpipe_saturation);
        uint64_t oi = (uint64_t)b * mn + (uint64_t)i * j->n + col;
        if (j->epilogue == KN_EPI_DEQ_BF16) {
          float scale = j->epi_scale[(j->q_batched ? (uint64_t)b * j->n : 0) + col];
          float y = isa_i32_to_f32((int32_t)out) * scale; /* int32 -> fp32 RNE, product fp32 RNE */
          ((uint16_t *)c)[oi] = isa_f32_to_bf16(y);
        } else {
          memcpy((uint8_t *)c + oi * ob, &out, ob); /* little-endian host */
        }
      }
    }
  }
  free(arow);
  free(terms);
  return CS_OK;
}
