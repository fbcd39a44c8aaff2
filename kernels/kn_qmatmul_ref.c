/* kn_qmatmul_ref — exact host references of ONNX MatMulInteger / QLinearMatMul and DirectML's
 * quantized linear matrix multiply (docs/QUANT_OPS.md). */
#include "kernels/kn_qmatmul_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_num.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* one rounding per float operation (see kn_quant_ops.c) */
#endif

/* ---- shapes ------------------------------------------------------------------------------ */

/* An operand's shape with a 1-D A promoted to [1, K] and a 1-D B to [K, 1] (numpy.matmul). */
typedef struct operand {
  uint32_t ndim;
  uint64_t shape[KN_MAX_DIMS];
} operand;

static void promote(const kn_tensor *t, bool is_a, operand *o) {
  memset(o, 0, sizeof *o);
  if (t->ndim == 1) {
    o->ndim = 2;
    o->shape[is_a ? 0 : 1] = 1;
    o->shape[is_a ? 1 : 0] = t->shape[0];
    return;
  }
  o->ndim = t->ndim;
  memcpy(o->shape, t->shape, sizeof o->shape);
}

static void shape_str(const operand *o, char *out, size_t n) {
  kn_tensor t;
  memset(&t, 0, sizeof t);
  t.ndim = o->ndim;
  memcpy(t.shape, o->shape, sizeof t.shape);
  kn_shape_str(&t, out, n);
}

cs_status kn_matmul_geometry(const char *op, const kn_tensor *a, const kn_tensor *b,
                             kn_matmul_geom *g, cs_err *err) {
  memset(g, 0, sizeof *g);
  char as[96], bs[96];
  kn_shape_str(a, as, sizeof as);
  kn_shape_str(b, bs, sizeof bs);
  if (a->ndim == 0 || b->ndim == 0)
    return cs_err_set(err, CS_EINVAL, "%s: %s %s and %s %s: a matrix product needs at least 1 dimension each",
                      op, a->name, as, b->name, bs);
  operand oa, ob;
  promote(a, true, &oa);
  promote(b, false, &ob);
  g->a_vector = a->ndim == 1;
  g->b_vector = b->ndim == 1;
  g->m = oa.shape[oa.ndim - 2];
  g->k = oa.shape[oa.ndim - 1];
  g->n = ob.shape[ob.ndim - 1];
  if (ob.shape[ob.ndim - 2] != g->k)
    return cs_err_set(err, CS_EINVAL, "%s: %s %s and %s %s: K differs (%llu vs %llu)", op, a->name, as,
                      b->name, bs, (unsigned long long)g->k, (unsigned long long)ob.shape[ob.ndim - 2]);
  uint32_t nba = oa.ndim - 2, nbb = ob.ndim - 2;
  g->batch_ndim = nba > nbb ? nba : nbb;
  g->batch_count = 1;
  for (uint32_t d = 0; d < g->batch_ndim; d++) {
    /* right-aligned: dim d of the batch is dim d - (batch_ndim - nb) of each operand */
    uint64_t da = d + nba >= g->batch_ndim ? oa.shape[d + nba - g->batch_ndim] : 1;
    uint64_t db = d + nbb >= g->batch_ndim ? ob.shape[d + nbb - g->batch_ndim] : 1;
    if (da != db && da != 1 && db != 1)
      return cs_err_set(err, CS_EINVAL,
                        "%s: the batch dims of %s %s and %s %s do not broadcast (%llu vs %llu)", op,
                        a->name, as, b->name, bs, (unsigned long long)da, (unsigned long long)db);
    g->batch_shape[d] = da == 1 ? db : da;
    g->batch_count *= g->batch_shape[d];
  }
  g->out_ndim = g->batch_ndim;
  memcpy(g->out_shape, g->batch_shape, sizeof g->out_shape);
  if (!g->a_vector) g->out_shape[g->out_ndim++] = g->m;
  if (!g->b_vector) g->out_shape[g->out_ndim++] = g->n;
  return CS_OK;
}

static void batch_index(const kn_matmul_geom *g, uint64_t bi, uint64_t *idx) {
  for (uint32_t d = g->batch_ndim; d-- > 0;) {
    idx[d] = bi % g->batch_shape[d];
    bi /= g->batch_shape[d];
  }
}

/* The operand's own batch index (its size-1 dims broadcast) from the output's. */
static void operand_batch_index(const kn_matmul_geom *g, const operand *o, const uint64_t *out_idx,
                                uint64_t *idx) {
  uint32_t nb = o->ndim - 2;
  for (uint32_t d = 0; d < nb; d++) idx[d] = o->shape[d] == 1 ? 0 : out_idx[g->batch_ndim - nb + d];
}

static uint64_t operand_offset(const operand *o, const uint64_t *idx) {
  uint32_t nb = o->ndim - 2;
  uint64_t off = 0, stride = o->shape[nb] * o->shape[nb + 1];
  for (uint32_t d = nb; d-- > 0;) {
    off += idx[d] * stride;
    stride *= o->shape[d];
  }
  return off;
}

void kn_matmul_batch_offsets(const kn_matmul_geom *g, const kn_tensor *a, const kn_tensor *b,
                             uint64_t bi, uint64_t *a_offset, uint64_t *b_offset) {
  operand oa, ob;
  promote(a, true, &oa);
  promote(b, false, &ob);
  uint64_t idx[KN_MAX_DIMS] = {0}, oi[KN_MAX_DIMS] = {0};
  batch_index(g, bi, idx);
  operand_batch_index(g, &oa, idx, oi);
  *a_offset = operand_offset(&oa, oi);
  operand_batch_index(g, &ob, idx, oi);
  *b_offset = operand_offset(&ob, oi);
}

/* ---- quantization parameters -------------------------------------------------------------- */

/* Where a parameter's value for (operand batch index, row or column) is. */
typedef struct qparam {
  const kn_tensor *t;              /* NULL: absent */
  uint64_t lin_stride;             /* per row (rows) or per column (cols); 0: constant */
  uint32_t nb;                     /* the operand's batch dims */
  uint64_t bstride[KN_MAX_DIMS];   /* per operand batch dim; 0 where the parameter has size 1 */
} qparam;

typedef struct qparam_rule {
  bool rows;            /* per row of the operand (else per column) */
  bool allow_1d_rows;   /* ONNX: a 1-D [M] means per row */
  bool allow_batch;     /* leading dims may follow the operand's batch (ONNX [D1, D2, M, 1]) */
  bool allow_extra_ones;/* more dims than the operand, if the extra leading ones are 1 (DirectML's
                         * {1,1,M,1} with a 2-D ATensor); numpy would widen ONNX's output instead */
} qparam_rule;

static cs_status qparam_resolve(const char *op, const kn_tensor *p, const char *operand_name,
                                const operand *o, qparam_rule rule, qparam *q, cs_err *err) {
  memset(q, 0, sizeof *q);
  q->t = p;
  q->nb = o->ndim - 2;
  if (!p || p->count == 1) return CS_OK;
  uint64_t m = o->shape[o->ndim - 2], n = o->shape[o->ndim - 1];
  char ps[96], os[96];
  kn_shape_str(p, ps, sizeof ps);
  shape_str(o, os, sizeof os);
  const char *kind = rule.rows ? "per row" : "per column";
  if (p->ndim == 1) {
    uint64_t want = rule.rows ? m : n;
    if ((rule.rows && !rule.allow_1d_rows) || p->shape[0] != want)
      return cs_err_set(err, CS_EINVAL,
                        "%s: %s has shape %s; with %s %s it must have one element (per tensor) or be "
                        "%s: %s",
                        op, p->name, ps, operand_name, os, kind,
                        rule.rows ? (rule.allow_1d_rows ? "[M] or [..., M, 1]" : "[..., M, 1]")
                                  : "[N] or [..., 1, N]");
    q->lin_stride = 1;
    return CS_OK;
  }
  bool ok = p->ndim <= o->ndim || rule.allow_extra_ones;
  /* right-aligned: parameter dim d faces operand dim d + o->ndim - p->ndim (negative: none) */
  int64_t off = (int64_t)o->ndim - (int64_t)p->ndim;
  uint64_t stride = 1;
  for (uint32_t d = p->ndim; ok && d-- > 0;) {
    uint64_t pd = p->shape[d];
    if ((int64_t)d + off < 0) {
      ok = pd == 1;
      continue;
    }
    uint32_t od = (uint32_t)((int64_t)d + off);
    if (od == o->ndim - 1)
      ok = rule.rows ? pd == 1 : (pd == 1 || pd == n);
    else if (od == o->ndim - 2)
      ok = rule.rows ? (pd == 1 || pd == m) : pd == 1;
    else
      ok = pd == 1 || (rule.allow_batch && pd == o->shape[od]);
    uint64_t s = pd == 1 ? 0 : stride;
    if (od >= o->ndim - 2) {
      if (pd != 1) q->lin_stride = s;
    } else {
      q->bstride[od] = s;
    }
    stride *= pd;
  }
  if (!ok)
    return cs_err_set(err, CS_EINVAL,
                      "%s: %s has shape %s; with %s %s it must have one element (per tensor) or be %s: %s%s",
                      op, p->name, ps, operand_name, os, kind,
                      rule.rows ? (rule.allow_1d_rows ? "[M] or [..., M, 1]" : "[..., M, 1]")
                                : "[N] or [..., 1, N]",
                      rule.allow_batch ? " (leading dims 1 or the operand's)" : " (leading dims 1)");
  return CS_OK;
}

static uint64_t qparam_index(const qparam *q, const uint64_t *obidx, uint64_t lin) {
  uint64_t i = lin * q->lin_stride;
  for (uint32_t d = 0; d < q->nb; d++) i += obidx[d] * q->bstride[d];
  return i;
}

static int64_t read_int(const kn_tensor *t, uint64_t i) {
  switch (t->dtype) {
    case ISA_INT8: return ((const int8_t *)t->data)[i];
    case ISA_UINT8: return ((const uint8_t *)t->data)[i];
    default: return ((const int32_t *)t->data)[i];
  }
}

static float read_scale(const kn_tensor *t, uint64_t i) {
  if (t->dtype == ISA_FP16) return isa_f16_to_f32(((const uint16_t *)t->data)[i]);
  return ((const float *)t->data)[i]; /* fp32, bf16 held as fp32 */
}

static int64_t qparam_int(const qparam *q, const uint64_t *obidx, uint64_t lin) {
  return q->t ? read_int(q->t, qparam_index(q, obidx, lin)) : 0;
}

static float qparam_scale(const qparam *q, const uint64_t *obidx, uint64_t lin) {
  return read_scale(q->t, qparam_index(q, obidx, lin));
}

/* ---- requantization ----------------------------------------------------------------------- */

static float round_to(float f, isa_dtype t) {
  if (t == ISA_FP16) return isa_f16_to_f32(isa_f32_to_f16(f));
  if (t == ISA_BF16) return isa_bf16_to_f32(isa_f32_to_bf16(f));
  return f;
}

float kn_qlinear_multiplier(float a_scale, float b_scale, float y_scale, isa_dtype scale_type) {
  /* numpy: a_scale * b_scale / y_scale, left to right, in the scales' type (float16 products and
   * quotients are computed in float32 and rounded to float16: exact products, innocuous double
   * rounding for the quotient). */
  float ab = round_to(a_scale * b_scale, scale_type);
  return round_to(ab / y_scale, scale_type);
}

int32_t kn_qlinear_requantize(int32_t acc, float multiplier, int32_t zero_point, int32_t lo,
                              int32_t hi) {
  /* numpy: int32 matrix times a float32 (or float16) array is float64; D += zero point;
   * clip(rint(D)); astype. */
  double d = (double)acc * (double)multiplier;
  d += (double)zero_point;
  if (isnan(d)) return 0;
  return (int32_t)isa_round_sat(d, 1, lo, hi);
}

/* ---- the product ---------------------------------------------------------------------------- */

typedef struct qmm_job {
  const kn_tensor *a, *b;
  operand oa, ob, oy;
  qparam za, zb;          /* zero points of A (rows) and B (columns) */
  bool requant;
  qparam sa, sb, sy, zy;  /* scales; output scale and zero point (rows of the output) */
  isa_dtype scale_type;
  int32_t lo, hi;         /* output range */
} qmm_job;

static void qmm_run(const qmm_job *j, const kn_matmul_geom *g, kn_tensor *y) {
  uint64_t m = g->m, k = g->k, n = g->n;
  uint64_t idx[KN_MAX_DIMS] = {0}, ia[KN_MAX_DIMS] = {0}, ib[KN_MAX_DIMS] = {0};
  for (uint64_t bi = 0; bi < g->batch_count; bi++) {
    batch_index(g, bi, idx);
    operand_batch_index(g, &j->oa, idx, ia);
    operand_batch_index(g, &j->ob, idx, ib);
    uint64_t a_off = operand_offset(&j->oa, ia), b_off = operand_offset(&j->ob, ib);
    for (uint64_t r = 0; r < m; r++) {
      int64_t za = qparam_int(&j->za, ia, r);
      for (uint64_t c = 0; c < n; c++) {
        int64_t zb = qparam_int(&j->zb, ib, c);
        int64_t acc = 0;
        for (uint64_t t = 0; t < k; t++)
          acc += (read_int(j->a, a_off + r * k + t) - za) * (read_int(j->b, b_off + t * n + c) - zb);
        /* int32 accumulation: wraps around (numpy int32 matmul). */
        int32_t acc32 = (int32_t)(uint32_t)((uint64_t)acc & 0xFFFFFFFFu);
        uint64_t e = (bi * m + r) * n + c;
        if (!j->requant) {
          ((int32_t *)y->data)[e] = acc32;
          continue;
        }
        float mult = kn_qlinear_multiplier(qparam_scale(&j->sa, ia, r), qparam_scale(&j->sb, ib, c),
                                           qparam_scale(&j->sy, idx, r), j->scale_type);
        int32_t v = kn_qlinear_requantize(acc32, mult, (int32_t)qparam_int(&j->zy, idx, r), j->lo, j->hi);
        if (y->dtype == ISA_INT8)
          ((int8_t *)y->data)[e] = (int8_t)v;
        else
          ((uint8_t *)y->data)[e] = (uint8_t)v;
      }
    }
  }
}

/* Required inputs of the library API (the registry checks them before it calls). */
static cs_status require(const char *op, const char *const *names, const kn_tensor *const *ts, int n,
                         cs_err *err) {
  for (int i = 0; i < n; i++)
    if (!ts[i]) return cs_err_set(err, CS_EINVAL, "%s: input '%s' is required", op, names[i]);
  return CS_OK;
}

static bool is_8bit(const kn_tensor *t) { return t->dtype == ISA_INT8 || t->dtype == ISA_UINT8; }

static cs_status check_8bit(const char *op, const kn_tensor *t, cs_err *err) {
  if (!is_8bit(t))
    return cs_err_set(err, CS_EINVAL, "%s: %s is %s, expected int8 or uint8", op, t->name,
                      isa_dtype_name(t->dtype));
  return CS_OK;
}

static cs_status check_pair(const char *op, const kn_tensor *t, const kn_tensor *zp, cs_err *err) {
  if (zp && zp->dtype != t->dtype)
    return cs_err_set(err, CS_EINVAL, "%s: %s is %s but %s is %s: a zero point has its input's type", op,
                      zp->name, isa_dtype_name(zp->dtype), t->name, isa_dtype_name(t->dtype));
  return CS_OK;
}

/* Scale and zero point of one input have the same shape (one element each counts as equal). */
static cs_status check_same_shape(const char *op, const kn_tensor *s, const kn_tensor *z, cs_err *err) {
  if (!z || (s->count == 1 && z->count == 1)) return CS_OK;
  bool same = s->ndim == z->ndim;
  for (uint32_t d = 0; same && d < s->ndim; d++) same = s->shape[d] == z->shape[d];
  if (same) return CS_OK;
  char ss[96], zs[96];
  kn_shape_str(s, ss, sizeof ss);
  kn_shape_str(z, zs, sizeof zs);
  return cs_err_set(err, CS_EINVAL, "%s: %s shape %s must match %s shape %s", op, z->name, zs, s->name, ss);
}

static cs_status alloc_output(const char *name, isa_dtype t, const kn_matmul_geom *g, kn_tensor *y,
                              cs_err *err) {
  cs_status st = kn_tensor_alloc(y, name, t, g->out_ndim, g->out_shape, err);
  if (st != CS_OK) kn_tensor_free(y);
  return st;
}

static void out_operand(const kn_matmul_geom *g, operand *o) {
  memset(o, 0, sizeof *o);
  o->ndim = g->batch_ndim + 2;
  memcpy(o->shape, g->batch_shape, sizeof o->shape);
  o->shape[g->batch_ndim] = g->m;
  o->shape[g->batch_ndim + 1] = g->n;
}

/* A validated product: its geometry and where every parameter is. */
struct kn_qmm {
  qmm_job j;
  kn_matmul_geom g;
  isa_dtype out;
};

static cs_status qmm_new(kn_qmm **out, cs_err *err) {
  *out = calloc(1, sizeof **out);
  return *out ? CS_OK : cs_err_set(err, CS_ENOMEM, "no host memory");
}

cs_status kn_qmm_prepare_matmul_integer(const kn_tensor *A, const kn_tensor *B, const kn_tensor *a_zero_point,
                                        const kn_tensor *b_zero_point, kn_qmm **out, cs_err *err) {
  static const char op[] = "onnx_matmul_integer";
  *out = NULL;
  const char *const names[2] = {"A", "B"};
  const kn_tensor *const ts[2] = {A, B};
  cs_status st = require(op, names, ts, 2, err);
  if (st == CS_OK) st = check_8bit(op, A, err);
  if (st == CS_OK) st = check_8bit(op, B, err);
  if (st == CS_OK) st = check_pair(op, A, a_zero_point, err);
  if (st == CS_OK) st = check_pair(op, B, b_zero_point, err);
  kn_qmm *q = NULL;
  if (st == CS_OK) st = qmm_new(&q, err);
  if (st == CS_OK) st = kn_matmul_geometry(op, A, B, &q->g, err);
  if (st == CS_OK) {
    qmm_job *j = &q->j;
    j->a = A;
    j->b = B;
    q->out = ISA_INT32;
    promote(A, true, &j->oa);
    promote(B, false, &j->ob);
    const qparam_rule rows = {true, true, true, false}, cols = {false, false, true, false};
    st = qparam_resolve(op, a_zero_point, A->name, &j->oa, rows, &j->za, err);
    if (st == CS_OK) st = qparam_resolve(op, b_zero_point, B->name, &j->ob, cols, &j->zb, err);
  }
  if (st != CS_OK) {
    free(q);
    return st;
  }
  *out = q;
  return CS_OK;
}

/* The host computation of a prepared product into a new tensor named `name`. */
static cs_status qmm_host(kn_qmm *q, const char *name, kn_tensor *y, cs_err *err) {
  cs_status st = alloc_output(name, q->out, &q->g, y, err);
  if (st == CS_OK) qmm_run(&q->j, &q->g, y);
  kn_qmm_free(q);
  return st;
}

cs_status kn_onnx_matmul_integer(const kn_tensor *A, const kn_tensor *B,
                                 const kn_tensor *a_zero_point, const kn_tensor *b_zero_point,
                                 kn_tensor *Y, cs_err *err) {
  memset(Y, 0, sizeof *Y);
  kn_qmm *q;
  cs_status st = kn_qmm_prepare_matmul_integer(A, B, a_zero_point, b_zero_point, &q, err);
  return st != CS_OK ? st : qmm_host(q, "Y", Y, err);
}

static bool is_scale_type(isa_dtype t) { return t == ISA_FP32 || t == ISA_FP16 || t == ISA_BF16; }

cs_status kn_qmm_prepare_qlinear(const kn_qlinear_matmul_inputs *in, kn_qmm **out, cs_err *err) {
  static const char op[] = "onnx_qlinear_matmul";
  *out = NULL;
  const kn_tensor *scales[3] = {in->a_scale, in->b_scale, in->y_scale};
  const char *const names[8] = {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"};
  const kn_tensor *const ts[8] = {in->a, in->a_scale, in->a_zero_point, in->b, in->b_scale, in->b_zero_point,
                                  in->y_scale, in->y_zero_point};
  cs_status st = require(op, names, ts, 8, err);
  if (st == CS_OK) st = check_8bit(op, in->a, err);
  if (st == CS_OK) st = check_8bit(op, in->b, err);
  if (st == CS_OK) st = check_8bit(op, in->y_zero_point, err);
  if (st == CS_OK) st = check_pair(op, in->a, in->a_zero_point, err);
  if (st == CS_OK) st = check_pair(op, in->b, in->b_zero_point, err);
  for (int i = 0; st == CS_OK && i < 3; i++) {
    if (!is_scale_type(scales[i]->dtype))
      st = cs_err_set(err, CS_EINVAL, "%s: %s is %s, expected fp32, fp16 or bf16", op, scales[i]->name,
                      isa_dtype_name(scales[i]->dtype));
    else if (scales[i]->dtype != in->a_scale->dtype)
      st = cs_err_set(err, CS_EINVAL, "%s: %s is %s but %s is %s: the three scales share one type (TS)", op,
                      scales[i]->name, isa_dtype_name(scales[i]->dtype), in->a_scale->name,
                      isa_dtype_name(in->a_scale->dtype));
  }
  if (st == CS_OK) st = check_same_shape(op, in->a_scale, in->a_zero_point, err);
  if (st == CS_OK) st = check_same_shape(op, in->b_scale, in->b_zero_point, err);
  if (st == CS_OK && (in->y_scale->count != 1 || in->y_zero_point->count != 1))
    st = cs_err_set(err, CS_EINVAL, "%s: y_scale and y_zero_point must be per tensor (one element), got %llu and %llu",
                    op, (unsigned long long)in->y_scale->count, (unsigned long long)in->y_zero_point->count);
  kn_qmm *q = NULL;
  if (st == CS_OK) st = qmm_new(&q, err);
  if (st == CS_OK) st = kn_matmul_geometry(op, in->a, in->b, &q->g, err);
  if (st != CS_OK) {
    free(q);
    return st;
  }
  q->out = in->y_zero_point->dtype;
  const kn_matmul_geom g = q->g;
  qmm_job j;
  memset(&j, 0, sizeof j);
  j.a = in->a;
  j.b = in->b;
  j.requant = true;
  j.scale_type = in->a_scale->dtype;
  j.lo = in->y_zero_point->dtype == ISA_INT8 ? INT8_MIN : 0;
  j.hi = in->y_zero_point->dtype == ISA_INT8 ? INT8_MAX : UINT8_MAX;
  promote(in->a, true, &j.oa);
  promote(in->b, false, &j.ob);
  out_operand(&g, &j.oy);
  const qparam_rule rows = {true, true, true, false}, cols = {false, false, true, false};
  st = qparam_resolve(op, in->a_zero_point, in->a->name, &j.oa, rows, &j.za, err);
  if (st == CS_OK) st = qparam_resolve(op, in->a_scale, in->a->name, &j.oa, rows, &j.sa, err);
  if (st == CS_OK) st = qparam_resolve(op, in->b_zero_point, in->b->name, &j.ob, cols, &j.zb, err);
  if (st == CS_OK) st = qparam_resolve(op, in->b_scale, in->b->name, &j.ob, cols, &j.sb, err);
  if (st == CS_OK) st = qparam_resolve(op, in->y_scale, "y", &j.oy, rows, &j.sy, err);
  if (st == CS_OK) st = qparam_resolve(op, in->y_zero_point, "y", &j.oy, rows, &j.zy, err);
  if (st != CS_OK) {
    free(q);
    return st;
  }
  q->j = j;
  *out = q;
  return CS_OK;
}

cs_status kn_onnx_qlinear_matmul(const kn_qlinear_matmul_inputs *in, kn_tensor *y, cs_err *err) {
  memset(y, 0, sizeof *y);
  kn_qmm *q;
  cs_status st = kn_qmm_prepare_qlinear(in, &q, err);
  return st != CS_OK ? st : qmm_host(q, "y", y, err);
}

static cs_status check_nonzero_scale(const char *op, const kn_tensor *s, cs_err *err) {
  for (uint64_t i = 0; i < s->count; i++)
    if (read_scale(s, i) == 0.0f)
      return cs_err_set(err, CS_EINVAL, "%s: %s[%llu] is 0: a zero scale is undefined behaviour in DirectML",
                        op, s->name, (unsigned long long)i);
  return CS_OK;
}

cs_status kn_qmm_prepare_dml(const kn_dml_qmatmul_inputs *in, kn_qmm **qout, cs_err *err) {
  static const char op[] = "dml_quantized_linear_matmul";
  *qout = NULL;
  const kn_tensor *a = in->ATensor, *b = in->BTensor;
  const char *const names[5] = {"ATensor", "AScaleTensor", "BTensor", "BScaleTensor", "OutputScaleTensor"};
  const kn_tensor *const ts[5] = {a, in->AScaleTensor, b, in->BScaleTensor, in->OutputScaleTensor};
  cs_status st = require(op, names, ts, 5, err);
  if (st != CS_OK) return st;
  st = check_8bit(op, a, err);
  if (st == CS_OK) st = check_8bit(op, b, err);
  if (st == CS_OK && (a->ndim < 2 || a->ndim > 4 || b->ndim != a->ndim))
    st = cs_err_set(err, CS_EINVAL, "%s: ATensor has %u dims and BTensor %u: both must have the same "
                    "DimensionCount, 2 to 4", op, a->ndim, b->ndim);
  if (st == CS_OK) st = check_pair(op, a, in->AZeroPointTensor, err);
  if (st == CS_OK) st = check_pair(op, b, in->BZeroPointTensor, err);
  isa_dtype out = in->output_dtype;
  if (st == CS_OK && out != ISA_DTYPE_COUNT && out != ISA_INT8 && out != ISA_UINT8)
    st = cs_err_set(err, CS_EINVAL, "%s: the OutputTensor type %s is not int8 or uint8", op, isa_dtype_name(out));
  if (st == CS_OK && in->OutputZeroPointTensor) {
    st = check_8bit(op, in->OutputZeroPointTensor, err);
    if (st == CS_OK && out != ISA_DTYPE_COUNT && out != in->OutputZeroPointTensor->dtype)
      st = cs_err_set(err, CS_EINVAL, "%s: OutputTensor is %s but OutputZeroPointTensor is %s: they must "
                      "have the same DataType", op, isa_dtype_name(out),
                      isa_dtype_name(in->OutputZeroPointTensor->dtype));
    if (out == ISA_DTYPE_COUNT) out = in->OutputZeroPointTensor->dtype;
  }
  if (out == ISA_DTYPE_COUNT) out = a->dtype;
  /* The six parameter tensors: FLOAT32 scales, 1 to 4 dims, all the same DimensionCount. */
  const kn_tensor *params[6] = {in->AScaleTensor, in->AZeroPointTensor, in->BScaleTensor,
                                in->BZeroPointTensor, in->OutputScaleTensor, in->OutputZeroPointTensor};
  for (int i = 0; st == CS_OK && i < 6; i++) {
    const kn_tensor *p = params[i];
    if (!p) continue;
    if (i % 2 == 0 && p->dtype != ISA_FP32)
      st = cs_err_set(err, CS_EINVAL, "%s: %s is %s, expected fp32", op, p->name, isa_dtype_name(p->dtype));
    else if (p->ndim < 1 || p->ndim > 4)
      st = cs_err_set(err, CS_EINVAL, "%s: %s has %u dims, expected 1 to 4", op, p->name, p->ndim);
    else if (p->ndim != in->AScaleTensor->ndim)
      st = cs_err_set(err, CS_EINVAL, "%s: %s has %u dims but AScaleTensor has %u: the scale and zero-point "
                      "tensors must have the same DimensionCount", op, p->name, p->ndim, in->AScaleTensor->ndim);
    else if (i % 2 == 0)
      st = check_nonzero_scale(op, p, err);
  }
  kn_qmm *q = NULL;
  if (st == CS_OK) st = qmm_new(&q, err);
  if (st == CS_OK) st = kn_matmul_geometry(op, a, b, &q->g, err);
  if (st != CS_OK) {
    free(q);
    return st;
  }
  q->out = out;
  const kn_matmul_geom g = q->g;
  qmm_job j;
  memset(&j, 0, sizeof j);
  j.a = a;
  j.b = b;
  j.requant = true;
  j.scale_type = ISA_FP32;
  j.lo = out == ISA_INT8 ? INT8_MIN : 0;
  j.hi = out == ISA_INT8 ? INT8_MAX : UINT8_MAX;
  promote(a, true, &j.oa);
  promote(b, false, &j.ob);
  out_operand(&g, &j.oy);
  /* DirectML documents {1,1,1,1}, {1,1,M,1} (A, output) and {1,1,1,N} (B): no per-batch values. */
  const qparam_rule rows = {true, false, false, true}, cols = {false, false, false, true};
  st = qparam_resolve(op, in->AScaleTensor, a->name, &j.oa, rows, &j.sa, err);
  if (st == CS_OK) st = qparam_resolve(op, in->AZeroPointTensor, a->name, &j.oa, rows, &j.za, err);
  if (st == CS_OK) st = qparam_resolve(op, in->BScaleTensor, b->name, &j.ob, cols, &j.sb, err);
  if (st == CS_OK) st = qparam_resolve(op, in->BZeroPointTensor, b->name, &j.ob, cols, &j.zb, err);
  if (st == CS_OK) st = qparam_resolve(op, in->OutputScaleTensor, "OutputTensor", &j.oy, rows, &j.sy, err);
  if (st == CS_OK)
    st = qparam_resolve(op, in->OutputZeroPointTensor, "OutputTensor", &j.oy, rows, &j.zy, err);
  if (st != CS_OK) {
    free(q);
    return st;
  }
  q->j = j;
  *qout = q;
  return CS_OK;
}

cs_status kn_dml_quantized_linear_matmul(const kn_dml_qmatmul_inputs *in, kn_tensor *OutputTensor,
                                         cs_err *err) {
  memset(OutputTensor, 0, sizeof *OutputTensor);
  kn_qmm *q;
  cs_status st = kn_qmm_prepare_dml(in, &q, err);
  return st != CS_OK ? st : qmm_host(q, "OutputTensor", OutputTensor, err);
}

/* ---- a prepared product, element by element (the simulated kernels) ------------------------ */

void kn_qmm_free(kn_qmm *q) { free(q); }
const kn_matmul_geom *kn_qmm_geom(const kn_qmm *q) { return &q->g; }
isa_dtype kn_qmm_out_dtype(const kn_qmm *q) { return q->out; }
bool kn_qmm_requantizes(const kn_qmm *q) { return q->j.requant; }

/* Batch indices of output batch bi in the output, in A and in B. */
static void qmm_batch(const kn_qmm *q, uint64_t bi, uint64_t *idx, uint64_t *ia, uint64_t *ib) {
  batch_index(&q->g, bi, idx);
  operand_batch_index(&q->g, &q->j.oa, idx, ia);
  operand_batch_index(&q->g, &q->j.ob, idx, ib);
}

void kn_qmm_operands(const kn_qmm *q, uint64_t bi, int32_t *a, int32_t *b) {
  uint64_t idx[KN_MAX_DIMS] = {0}, ia[KN_MAX_DIMS] = {0}, ib[KN_MAX_DIMS] = {0};
  qmm_batch(q, bi, idx, ia, ib);
  uint64_t a_off = operand_offset(&q->j.oa, ia), b_off = operand_offset(&q->j.ob, ib);
  uint64_t mk = q->g.m * q->g.k, kn = q->g.k * q->g.n;
  for (uint64_t i = 0; i < mk; i++) a[i] = (int32_t)read_int(q->j.a, a_off + i);
  for (uint64_t i = 0; i < kn; i++) b[i] = (int32_t)read_int(q->j.b, b_off + i);
}

void kn_qmm_params(const kn_qmm *q, uint64_t bi, kn_qmm_row_params *rows, kn_qmm_col_params *cols) {
  uint64_t idx[KN_MAX_DIMS] = {0}, ia[KN_MAX_DIMS] = {0}, ib[KN_MAX_DIMS] = {0};
  qmm_batch(q, bi, idx, ia, ib);
  const qmm_job *j = &q->j;
  for (uint64_t r = 0; r < q->g.m; r++) {
    rows[r].zero_point = (int32_t)qparam_int(&j->za, ia, r);
    rows[r].scale = j->requant ? qparam_scale(&j->sa, ia, r) : 0;
    rows[r].y_scale = j->requant ? qparam_scale(&j->sy, idx, r) : 0;
    rows[r].y_zero_point = j->requant ? (int32_t)qparam_int(&j->zy, idx, r) : 0;
  }
  for (uint64_t c = 0; c < q->g.n; c++) {
    cols[c].zero_point = (int32_t)qparam_int(&j->zb, ib, c);
    cols[c].scale = j->requant ? qparam_scale(&j->sb, ib, c) : 0;
  }
}

float kn_qmm_multiplier(const kn_qmm *q, const kn_qmm_row_params *row, const kn_qmm_col_params *col) {
  return kn_qlinear_multiplier(row->scale, col->scale, row->y_scale, q->j.scale_type);
}

int32_t kn_qmm_requantize(const kn_qmm *q, int32_t acc, const kn_qmm_row_params *row,
                          const kn_qmm_col_params *col) {
  return kn_qlinear_requantize(acc, kn_qmm_multiplier(q, row, col), row->y_zero_point, q->j.lo, q->j.hi);
}

