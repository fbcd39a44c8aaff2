/* Tests of the quantized matrix products on the simulated cube (kernels/kn_qmatmul.c) through the
 * operator registry: random shapes, types and parameter layouts against an independent reference
 * written here (int64 dot products, int32 wrap, the requantization of docs/QUANT_OPS.md), the
 * fixpipe precision against the REQ8 rule of docs/DESIGN.md §5.2 with words packed here,
 * hand-derived differences, the difference report, the statistics and the trace of each run, and the refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/kn_op.h"
#include "sim/sim_trace.h"
#include "base/cs_jsonr.h"
#include "support/json_expect.h"

/* ---- the operators, by slot ---------------------------------------------------------------- */

typedef enum op_kind { OP_MMI, OP_QLM, OP_DML } op_kind;
enum { S_A, S_SA, S_ZA, S_B, S_SB, S_ZB, S_SY, S_ZY, NSLOTS };

static const char *const op_names[3] = {"onnx_matmul_integer", "onnx_qlinear_matmul", "dml_quantized_linear_matmul"};
static const char *const slot_names[3][NSLOTS] = {
    {"A", NULL, "a_zero_point", "B", NULL, "b_zero_point", NULL, NULL},
    {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"},
    {"ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor", "BZeroPointTensor", "OutputScaleTensor",
     "OutputZeroPointTensor"},
};
static const char *const out_names[3] = {"Y", "y", "OutputTensor"};

/* One case: the eight inputs (data NULL where absent) and what the reference needs to know. */
typedef struct qcase {
  op_kind op;
  kn_tensor t[NSLOTS];
  isa_dtype ts;        /* the scales' type: fp32, or fp16 (QLinearMatMul) */
  isa_dtype y_t;       /* output type of the requantizing operators */
  bool set_out_dtype;  /* DirectML: give OutputDataType = y_t */
  const char *precision; /* NULL: not given */
} qcase;

static void qcase_free(qcase *c) {
  for (int i = 0; i < NSLOTS; i++) kn_tensor_free(&c->t[i]);
}

/* ---- numbers, written for this test --------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi) { return lo + (int64_t)(splitmix64(s) % (uint64_t)(hi - lo + 1)); }
static double unit(uint64_t *s) { return (double)(splitmix64(s) >> 11) / 9007199254740992.0; }

/* x rounded to the nearest binary16 value, ties to even (x >= 0, below 65520): the quantum is
 * 2^(e - 10) for x in [2^e, 2^(e+1)), and 2^-24 below 2^-14 (subnormals). */
static double f16_round(double x) {
  if (x == 0) return 0;
  int e;
  frexp(x, &e); /* x = f * 2^e, f in [0.5, 1): x in [2^(e-1), 2^e) */
  int lsb = (e - 1 < -14 ? -14 : e - 1) - 10;
  return ldexp(nearbyint(ldexp(x, -lsb)), lsb);
}

/* The bits of a binary16 value (x >= 0, exactly representable). */
static uint16_t f16_bits(double x) {
  if (x == 0) return 0;
  int e;
  frexp(x, &e);
  if (e - 1 < -14) return (uint16_t)ldexp(x, 24); /* subnormal: x / 2^-24 */
  double frac = ldexp(x, -(e - 1)) - 1.0;          /* in [0, 1) */
  return (uint16_t)(((uint32_t)(e - 1 + 15) << 10) | (uint32_t)ldexp(frac, 10));
}

static double f16_value(uint16_t h) {
  int e = (h >> 10) & 0x1F;
  double m = h & 0x3FF;
  double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
  return (h & 0x8000) ? -v : v;
}

static int64_t tget_int(const kn_tensor *t, uint64_t i) {
  if (t->dtype == ISA_INT8) return ((const int8_t *)t->data)[i];
  if (t->dtype == ISA_UINT8) return ((const uint8_t *)t->data)[i];
  return ((const int32_t *)t->data)[i];
}
static double tget_scale(const kn_tensor *t, uint64_t i) {
  if (t->dtype == ISA_FP16) return f16_value(((const uint16_t *)t->data)[i]);
  return ((const float *)t->data)[i];
}

/* ---- the independent reference ------------------------------------------------------------ */

/* An operand's shape with numpy.matmul's promotion of a 1-D A to [1, K] and a 1-D B to [K, 1]. */
static uint32_t promoted(const kn_tensor *t, bool is_a, uint64_t *sh) {
  if (t->ndim == 1) {
    sh[0] = is_a ? 1 : t->shape[0];
    sh[1] = is_a ? t->shape[0] : 1;
    return 2;
  }
  memcpy(sh, t->shape, t->ndim * sizeof *sh);
  return t->ndim;
}

/* Flat index into parameter p for the element at multi-index idx of a tensor of nd dims, by
 * right-aligned broadcasting (a size-1 dim reads index 0). row_1d: ONNX's 1-D [M] parameter of A
 * is per row (the spec), whatever broadcasting would say. */
static uint64_t param_at(const kn_tensor *p, uint32_t nd, const uint64_t *idx, bool row_1d) {
  if (p->count == 1) return 0;
  if (p->ndim == 1 && row_1d) return idx[nd - 2];
  uint64_t flat = 0;
  for (uint32_t d = 0; d < p->ndim; d++) {
    int64_t od = (int64_t)nd - (int64_t)p->ndim + (int64_t)d;
    uint64_t i = (od < 0 || p->shape[d] == 1) ? 0 : idx[od];
    flat = flat * p->shape[d] + i;
  }
  return flat;
}

typedef struct geom {
  uint32_t bnd;           /* batch dims of the output */
  uint64_t bsh[KN_MAX_DIMS];
  uint64_t batch, m, k, n;
  uint32_t and_, bnd_b;   /* promoted ranks of A and B */
  uint64_t ash[KN_MAX_DIMS], bsh_b[KN_MAX_DIMS];
} geom;

static void geometry(const qcase *c, geom *g) {
  memset(g, 0, sizeof *g);
  g->and_ = promoted(&c->t[S_A], true, g->ash);
  g->bnd_b = promoted(&c->t[S_B], false, g->bsh_b);
  g->m = g->ash[g->and_ - 2];
  g->k = g->ash[g->and_ - 1];
  g->n = g->bsh_b[g->bnd_b - 1];
  uint32_t na = g->and_ - 2, nb = g->bnd_b - 2;
  g->bnd = na > nb ? na : nb;
  g->batch = 1;
  for (uint32_t d = 0; d < g->bnd; d++) {
    uint64_t da = d + na >= g->bnd ? g->ash[d + na - g->bnd] : 1, db = d + nb >= g->bnd ? g->bsh_b[d + nb - g->bnd] : 1;
    g->bsh[d] = da > db ? da : db;
    g->batch *= g->bsh[d];
  }
}

/* The operand multi-index (its batch dims, then row and column) of output batch bi. */
static void operand_index(const geom *g, const uint64_t *bidx, uint32_t nd, const uint64_t *sh, uint64_t *oi,
                          uint64_t *offset) {
  uint32_t nb = nd - 2;
  uint64_t off = 0;
  for (uint32_t j = 0; j < nb; j++) {
    oi[j] = sh[j] == 1 ? 0 : bidx[g->bnd - nb + j];
    off = off * sh[j] + oi[j];
  }
  *offset = off * sh[nd - 2] * sh[nd - 1];
}

/* (a_scale * b_scale) / y_scale in the scales' type: float operations, each fp16 result rounded
 * to fp16 (docs/QUANT_OPS.md, QLinearMatMul). */
static float ref_multiplier(double sa, double sb, double sy, isa_dtype ts) {
  float ab = (float)sa * (float)sb;
  if (ts == ISA_FP16) ab = (float)f16_round(ab);
  float m = ab / (float)sy;
  if (ts == ISA_FP16) m = (float)f16_round(m);
  return m;
}

static int32_t type_lo(isa_dtype t) { return t == ISA_INT8 ? -128 : 0; }
static int32_t type_hi(isa_dtype t) { return t == ISA_INT8 ? 127 : 255; }

/* rint(double(acc) * double(m) + zp), ties to even, limited to the output type. */
static int32_t ref_requantize(int32_t acc, float m, int32_t zp, isa_dtype out) {
  double d = (double)acc * (double)m + (double)zp;
  double r = nearbyint(d);
  if (r < type_lo(out)) return type_lo(out);
  if (r > type_hi(out)) return type_hi(out);
  return (int32_t)r;
}

/* docs/DESIGN.md §5.2 REQ8 with a word packed here: fp19 = the fp32 multiplier with its low 13 bits
 * cleared; y = fp32(acc) * fp19 in fp32; q = clamp(rne(y), -256, 255) + offset (= y_zero_point);
 * then int8 (S = 1) or uint8 (S = 0). */
static int32_t ref_fixpipe(int32_t acc, float m, int32_t zp, isa_dtype out) {
  uint32_t bits;
  memcpy(&bits, &m, sizeof bits);
  bits &= 0xFFFFE000u;
  float m19;
  memcpy(&m19, &bits, sizeof m19);
  float y = (float)acc * m19;
  float r = nearbyintf(y);
  int32_t q = r > 255.0f ? 255 : r < -256.0f ? -256 : (int32_t)r;
  q += zp;
  return q < type_lo(out) ? type_lo(out) : q > type_hi(out) ? type_hi(out) : q;
}

typedef struct ref_out {
  uint64_t count;
  int32_t *acc;   /* the exact int32 accumulators */
  int32_t *exact; /* the operator's output */
  int32_t *fix;   /* the fixpipe's output (requantizing operators) */
} ref_out;

static void ref_free(ref_out *r) {
  free(r->acc);
  free(r->exact);
  free(r->fix);
}

static void reference(const qcase *c, ref_out *r) {
  geom g;
  geometry(c, &g);
  r->count = g.batch * g.m * g.n;
  r->acc = calloc(r->count + 1, sizeof *r->acc);
  r->exact = calloc(r->count + 1, sizeof *r->exact);
  r->fix = calloc(r->count + 1, sizeof *r->fix);
  assert_non_null(r->acc);
  assert_non_null(r->exact);
  assert_non_null(r->fix);
  const kn_tensor *A = &c->t[S_A], *B = &c->t[S_B];
  const kn_tensor *za = c->t[S_ZA].data ? &c->t[S_ZA] : NULL, *zb = c->t[S_ZB].data ? &c->t[S_ZB] : NULL,
                  *zy = c->t[S_ZY].data ? &c->t[S_ZY] : NULL;
  bool onnx = c->op != OP_DML;
  for (uint64_t bi = 0; bi < g.batch; bi++) {
    uint64_t bidx[KN_MAX_DIMS] = {0}, rem = bi;
    for (uint32_t d = g.bnd; d-- > 0;) {
      bidx[d] = rem % g.bsh[d];
      rem /= g.bsh[d];
    }
    uint64_t ai[KN_MAX_DIMS + 2] = {0}, bj[KN_MAX_DIMS + 2] = {0}, yi[KN_MAX_DIMS + 2] = {0}, aoff, boff;
    operand_index(&g, bidx, g.and_, g.ash, ai, &aoff);
    operand_index(&g, bidx, g.bnd_b, g.bsh_b, bj, &boff);
    memcpy(yi, bidx, g.bnd * sizeof *yi);
    for (uint64_t row = 0; row < g.m; row++)
      for (uint64_t col = 0; col < g.n; col++) {
        ai[g.and_ - 2] = row;
        ai[g.and_ - 1] = 0;
        bj[g.bnd_b - 2] = 0;
        bj[g.bnd_b - 1] = col;
        yi[g.bnd] = row;
        yi[g.bnd + 1] = col;
        int64_t zav = za ? tget_int(za, param_at(za, g.and_, ai, onnx)) : 0;
        int64_t zbv = zb ? tget_int(zb, param_at(zb, g.bnd_b, bj, false)) : 0;
        int64_t sum = 0;
        for (uint64_t t = 0; t < g.k; t++)
          sum += (tget_int(A, aoff + row * g.k + t) - zav) * (tget_int(B, boff + t * g.n + col) - zbv);
        uint64_t w = (uint64_t)sum & 0xFFFFFFFFu;
        int32_t acc = w >= 0x80000000u ? (int32_t)((int64_t)w - 0x100000000ll) : (int32_t)w;
        uint64_t e = (bi * g.m + row) * g.n + col;
        r->acc[e] = acc;
        if (c->op == OP_MMI) {
          r->exact[e] = r->fix[e] = acc;
          continue;
        }
        const kn_tensor *sa = &c->t[S_SA], *sb = &c->t[S_SB], *sy = &c->t[S_SY];
        float m = ref_multiplier(tget_scale(sa, param_at(sa, g.and_, ai, onnx)),
                                 tget_scale(sb, param_at(sb, g.bnd_b, bj, false)),
                                 tget_scale(sy, param_at(sy, g.bnd + 2, yi, false)), c->ts);
        int32_t zyv = zy ? (int32_t)tget_int(zy, param_at(zy, g.bnd + 2, yi, false)) : 0;
        r->exact[e] = ref_requantize(acc, m, zyv, c->y_t);
        r->fix[e] = ref_fixpipe(acc, m, zyv, c->y_t);
      }
  }
}

/* ---- building cases ------------------------------------------------------------------------- */

static void make_tensor(qcase *c, int slot, isa_dtype dt, uint32_t ndim, const uint64_t *shape) {
  kn_tensor_free(&c->t[slot]);
  assert_int_equal(kn_tensor_alloc(&c->t[slot], slot_names[c->op][slot], dt, ndim, shape, NULL), CS_OK);
}

static void set_int(kn_tensor *t, uint64_t i, int64_t v) {
  if (t->dtype == ISA_INT8) ((int8_t *)t->data)[i] = (int8_t)v;
  else ((uint8_t *)t->data)[i] = (uint8_t)v;
}

static void set_scale(const qcase *c, kn_tensor *t, uint64_t i, double v) {
  if (c->ts == ISA_FP16) ((uint16_t *)t->data)[i] = f16_bits(f16_round(v));
  else ((float *)t->data)[i] = (float)v;
}

static void fill_operand(uint64_t *rng, kn_tensor *t) {
  for (uint64_t i = 0; i < t->count; i++)
    set_int(t, i, t->dtype == ISA_INT8 ? rnd(rng, -128, 127) : rnd(rng, 0, 255));
}

/* A zero point: mostly near the middle of the data (as calibrated ones are), sometimes anywhere. */
static int64_t zp_value(uint64_t *rng, isa_dtype t) {
  if (rnd(rng, 0, 4) == 0) return t == ISA_INT8 ? rnd(rng, -128, 127) : rnd(rng, 0, 255);
  return (t == ISA_INT8 ? 0 : 128) + rnd(rng, -12, 12);
}

typedef enum layout { L_ABSENT, L_TENSOR, L_ROW, L_COL } layout;

/* The shape of a parameter of the given layout. ONNX: per tensor a scalar or [1]; per row [M],
 * [M, 1] or [A's batch dims..., M, 1]; per column [N], [1, N] or [B's batch dims..., 1, N].
 * DirectML: pnd dims, ones except M (per row, dim pnd-2) or N (per column, last dim). */
static uint32_t param_shape(uint64_t *rng, const qcase *c, layout l, uint32_t pnd, uint64_t *sh) {
  const kn_tensor *op = l == L_COL ? &c->t[S_B] : &c->t[S_A];
  uint64_t m = c->t[S_A].ndim == 1 ? 1 : c->t[S_A].shape[c->t[S_A].ndim - 2];
  uint64_t n = c->t[S_B].ndim == 1 ? 1 : c->t[S_B].shape[c->t[S_B].ndim - 1];
  if (c->op == OP_DML) {
    for (uint32_t d = 0; d < pnd; d++) sh[d] = 1;
    if (l == L_ROW) sh[pnd - 2] = m;
    if (l == L_COL) sh[pnd - 1] = n;
    return pnd;
  }
  int form = (int)rnd(rng, 0, 2);
  if (l == L_TENSOR) {
    sh[0] = 1;
    return form == 0 ? 0 : 1;
  }
  if (form == 0) {
    sh[0] = l == L_ROW ? m : n;
    return 1;
  }
  uint32_t nb = form == 2 && op->ndim > 2 ? op->ndim - 2 : 0;
  for (uint32_t d = 0; d < nb; d++) sh[d] = op->shape[d];
  sh[nb] = l == L_ROW ? m : 1;
  sh[nb + 1] = l == L_ROW ? 1 : n;
  return nb + 2;
}

/* Scale and zero point of one input (zp_slot < 0: none), in layout l. */
static void make_params(uint64_t *rng, qcase *c, int s_slot, int z_slot, layout l, bool with_zp, uint32_t pnd,
                        double nominal, isa_dtype zt) {
  uint64_t sh[KN_MAX_DIMS];
  uint32_t nd = param_shape(rng, c, l, pnd, sh);
  if (s_slot >= 0) {
    make_tensor(c, s_slot, c->ts, nd, sh);
    for (uint64_t i = 0; i < c->t[s_slot].count; i++) set_scale(c, &c->t[s_slot], i, nominal * (0.5 + unit(rng)));
  }
  if (with_zp) {
    make_tensor(c, z_slot, zt, nd, sh);
    for (uint64_t i = 0; i < c->t[z_slot].count; i++) set_int(&c->t[z_slot], i, zp_value(rng, zt));
  }
}

typedef struct shape_plan {
  uint32_t a_nd, b_nd;
  uint64_t a_sh[4], b_sh[4];
} shape_plan;

/* Batch dims with broadcasting: rank 2 to 4 for the output; each batch dim is shared, or 1 on one
 * side; ONNX operands may also lack leading batch dims (one broadcast over the other's batch). */
static void plan_shapes(uint64_t *rng, op_kind op, unsigned idx, shape_plan *p, uint64_t *M, uint64_t *K, uint64_t *N) {
  bool big_n = idx % 6 == 3, m1 = idx % 5 == 1;
  uint32_t nb = idx % 3; /* 2-D, 3-D, 4-D */
  if (big_n && nb > 1) nb = 1;
  *M = m1 ? 1 : (uint64_t)rnd(rng, 2, big_n ? 2 : 9);
  *N = big_n ? (uint64_t)rnd(rng, 257, 300) : (uint64_t)rnd(rng, 1, 40);
  *K = (uint64_t)rnd(rng, 1, 100);
  if (*K % 32 == 0 && idx % 4) *K += (uint64_t)rnd(rng, 1, 31); /* mostly not a multiple of 32 */
  uint64_t bdim[2];
  for (uint32_t d = 0; d < nb; d++) bdim[d] = (uint64_t)rnd(rng, 2, big_n ? 2 : 3);
  uint32_t a_nb = nb, b_nb = nb;
  if (op != OP_DML && nb > 0) {
    int mode = (int)rnd(rng, 0, 2); /* same rank; A lower; B lower */
    if (mode == 1) a_nb = (uint32_t)rnd(rng, 0, nb - 1);
    if (mode == 2) b_nb = (uint32_t)rnd(rng, 0, nb - 1);
  }
  p->a_nd = a_nb + 2;
  p->b_nd = b_nb + 2;
  for (uint32_t d = 0; d < nb; d++) {
    int pat = (int)rnd(rng, 0, 2); /* shared; 1 in A; 1 in B */
    if (d >= nb - a_nb) p->a_sh[d - (nb - a_nb)] = pat == 1 ? 1 : bdim[d];
    if (d >= nb - b_nb) p->b_sh[d - (nb - b_nb)] = pat == 2 ? 1 : bdim[d];
  }
  p->a_sh[a_nb] = *M;
  p->a_sh[a_nb + 1] = *K;
  p->b_sh[b_nb] = *K;
  p->b_sh[b_nb + 1] = *N;
}

/* The nominal scales: the output scale spreads the typical accumulator (74^2 sqrt(K), uniform
 * data) over about +-40 output steps. */
#define NOMINAL_SA 0.05
#define NOMINAL_SB 0.02
static double nominal_sy(uint64_t K) { return NOMINAL_SA * NOMINAL_SB * 74.0 * 74.0 * sqrt((double)K) / 40.0; }

/* A random case of operator op (idx varies the rank and the special shapes). fixpipe: only layouts
 * the fixpipe can requantize (b symmetric, a's zero point per tensor, a's and y's scales per
 * tensor). */
static void gen_case(uint64_t *rng, op_kind op, unsigned idx, bool fixpipe, qcase *c) {
  memset(c, 0, sizeof *c);
  c->op = op;
  c->ts = op == OP_QLM && rnd(rng, 0, 2) == 0 ? ISA_FP16 : ISA_FP32;
  isa_dtype a_t = rnd(rng, 0, 1) ? ISA_UINT8 : ISA_INT8, b_t = rnd(rng, 0, 1) ? ISA_UINT8 : ISA_INT8;
  c->y_t = rnd(rng, 0, 1) ? ISA_UINT8 : ISA_INT8;
  shape_plan p;
  uint64_t M, K, N;
  plan_shapes(rng, op, idx, &p, &M, &K, &N);
  make_tensor(c, S_A, a_t, p.a_nd, p.a_sh);
  make_tensor(c, S_B, b_t, p.b_nd, p.b_sh);
  fill_operand(rng, &c->t[S_A]);
  fill_operand(rng, &c->t[S_B]);
  uint32_t pnd = (uint32_t)rnd(rng, 2, 4);
  if (op == OP_MMI) {
    layout la = (layout)rnd(rng, 0, 2), lb = (layout)rnd(rng, 0, 2);
    if (la != L_ABSENT) make_params(rng, c, -1, S_ZA, la, true, pnd, 0, a_t);
    if (lb != L_ABSENT) make_params(rng, c, -1, S_ZB, lb == L_ROW ? L_COL : lb, true, pnd, 0, b_t);
    return;
  }
  layout la = fixpipe ? L_TENSOR : rnd(rng, 0, 1) ? L_ROW : L_TENSOR;
  layout lb = rnd(rng, 0, 1) ? L_COL : L_TENSOR;
  layout ly = op == OP_DML && !fixpipe && rnd(rng, 0, 1) ? L_ROW : L_TENSOR;
  bool dml = op == OP_DML;
  if (dml && rnd(rng, 0, 5) == 0 && la == L_TENSOR && ly == L_TENSOR) pnd = 1; /* [1] and [N] */
  make_params(rng, c, S_SA, S_ZA, la, !dml || rnd(rng, 0, 2), pnd, NOMINAL_SA, a_t);
  make_params(rng, c, S_SB, S_ZB, lb, !dml || rnd(rng, 0, 2) || (fixpipe && b_t == ISA_UINT8), pnd, NOMINAL_SB, b_t);
  bool with_zy = !dml || rnd(rng, 0, 2);
  make_params(rng, c, S_SY, S_ZY, ly, with_zy, pnd, nominal_sy(K), c->y_t);
  if (fixpipe && c->t[S_ZB].data) /* symmetric weights: int8 0, uint8 128 */
    for (uint64_t i = 0; i < c->t[S_ZB].count; i++) set_int(&c->t[S_ZB], i, b_t == ISA_UINT8 ? 128 : 0);
  if (dml && !with_zy) {
    c->set_out_dtype = rnd(rng, 0, 1);
    if (!c->set_out_dtype) c->y_t = a_t;
  } else if (dml) {
    c->set_out_dtype = rnd(rng, 0, 2) == 0;
  }
  c->precision = fixpipe ? "fixpipe" : rnd(rng, 0, 1) ? "exact" : NULL;
}

/* ---- running a case ----------------------------------------------------------------------- */

static kn_ctx *ctx_for(const qcase *c, unsigned cores, sim_trace *trace) {
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = cores;
  kn_run_options o = {.cfg = &cfg, .trace = trace, .seed = 1};
  kn_ctx *ctx = NULL;
  cs_err err;
  assert_int_equal(kn_ctx_create(kn_op_find(op_names[c->op]), &o, &ctx, &err), CS_OK);
  for (int i = 0; i < NSLOTS; i++) {
    if (!c->t[i].data) continue;
    kn_tensor copy;
    assert_int_equal(kn_tensor_alloc(&copy, c->t[i].name, c->t[i].dtype, c->t[i].ndim, c->t[i].shape, NULL), CS_OK);
    memcpy(copy.data, c->t[i].data, c->t[i].count * kn_host_elem_bytes(c->t[i].dtype));
    if (kn_set_input(ctx, slot_names[c->op][i], &copy, &err) != CS_OK) fail_msg("%s", err.msg);
  }
  if (c->set_out_dtype) assert_int_equal(kn_ctx_set_attr(ctx, "OutputDataType", isa_dtype_name(c->y_t), &err), CS_OK);
  if (c->precision) assert_int_equal(kn_ctx_set_attr(ctx, "precision", c->precision, &err), CS_OK);
  return ctx;
}

static void describe(const qcase *c, char *out, size_t n) {
  size_t used = (size_t)snprintf(out, n, "%s ts=%s y=%s prec=%s:", op_names[c->op], isa_dtype_name(c->ts),
                                 isa_dtype_name(c->y_t), c->precision ? c->precision : "-");
  for (int i = 0; i < NSLOTS && used < n; i++) {
    if (!c->t[i].data) continue;
    char sh[96];
    kn_shape_str(&c->t[i], sh, sizeof sh);
    used += (size_t)snprintf(out + used, n - used, " %s %s %s", c->t[i].name, isa_dtype_name(c->t[i].dtype), sh);
  }
}

static void assert_output(const qcase *c, const kn_tensor *got, const int32_t *want, uint64_t count, const char *what) {
  assert_non_null(got);
  assert_int_equal(got->count, count);
  assert_int_equal(got->dtype, c->op == OP_MMI ? ISA_INT32 : c->y_t);
  for (uint64_t e = 0; e < count; e++) {
    int64_t g = (int64_t)kn_tensor_get(got, e);
    if (g != want[e]) {
      char d[768];
      describe(c, d, sizeof d);
      fail_msg("%s: %s element %" PRIu64 ": got %" PRId64 ", want %d", d, what, e, g, want[e]);
    }
  }
}

/* The expected difference report of a fixpipe run (kn_qmatmul.c's wording, counted here). */
static void expected_note(const ref_out *r, char *out, size_t n) {
  uint64_t diff = 0, hist[6] = {0}; /* <=-3, -2, -1, +1, +2, >=+3 */
  int64_t maxd = 0;
  for (uint64_t e = 0; e < r->count; e++) {
    int64_t d = (int64_t)r->fix[e] - r->exact[e];
    if (!d) continue;
    diff++;
    if (llabs(d) > maxd) maxd = llabs(d);
    hist[d <= -3 ? 0 : d == -2 ? 1 : d == -1 ? 2 : d == 1 ? 3 : d == 2 ? 4 : 5]++;
  }
  if (!diff) {
    snprintf(out, n, "precision=fixpipe: all %" PRIu64 " elements equal the exact requantization\n", r->count);
    return;
  }
  static const char *const labels[6] = {"<=-3", "-2", "-1", "+1", "+2", ">=+3"};
  char h[200] = "";
  size_t used = 0;
  for (int i = 0; i < 6; i++)
    if (hist[i]) used += (size_t)snprintf(h + used, sizeof h - used, "%s%s: %" PRIu64, used ? ", " : "", labels[i], hist[i]);
  snprintf(out, n,
           "precision=fixpipe: %" PRIu64 " of %" PRIu64 " elements (%.3f%%) differ from the exact requantization, by at "
           "most %" PRId64 " (%s); causes: the fp19 multiplier (truncated) and the fp32 product (the int32 accumulator "
           "rounded to fp32 first)\n",
           diff, r->count, 100.0 * (double)diff / (double)r->count, maxd, h);
}

/* CUBE slices in the trace, and the MACs their mmads report. */
static void trace_cube(const char *path, uint64_t *cube_events, uint64_t *macs, const char *quant_pre) {
  cs_jdoc *d = je_parse_file(path);
  const cs_jvalue *ev = cs_jget(cs_jroot(d), "traceEvents");
  assert_non_null(ev);
  *cube_events = *macs = 0;
  uint64_t fixpipes = 0;
  for (size_t i = 0; i < cs_jcount(ev); i++) {
    const cs_jvalue *e = cs_jat(ev, i);
    const char *ph = cs_jget_string(e, "ph"), *cat = cs_jget_string(e, "cat"), *name = cs_jget_string(e, "name");
    if (!ph || strcmp(ph, "X") || !cat) continue;
    if (strcmp(cat, "CUBE") == 0) {
      (*cube_events)++;
      uint64_t v = 0;
      if (name && strcmp(name, "mmad") == 0) {
        assert_true(cs_jget_u64(e, "args.macs", &v));
        *macs += v;
        assert_string_equal(cs_jget_string(e, "args.dtype"), "int8");
      }
    }
    if (name && strcmp(name, "fixpipe") == 0) {
      fixpipes++;
      assert_string_equal(cs_jget_string(e, "args.quant_pre"), quant_pre);
    }
  }
  assert_true(fixpipes > 0);
  cs_jfree(d);
}

typedef struct run_stats {
  uint64_t cases, elements, fix_diffs, saturated, notes_with_diffs;
} run_stats;

/* Runs c on a small chip and checks the output against the independent reference and the
 * operator's own reference, the statistics, and (with_trace) the trace. */
static void run_case(const qcase *c, unsigned cores, bool with_trace, run_stats *st) {
  ref_out r;
  memset(&r, 0, sizeof r);
  reference(c, &r);
  char path[96] = "";
  sim_trace *trace = NULL;
  cs_err err;
  if (with_trace) {
    snprintf(path, sizeof path, "/tmp/cubesim_qmm_sim_%d.json", (int)getpid());
    sim_config cfg;
    sim_config_defaults(&cfg);
    cfg.chip_aic_cores = cores;
    assert_int_equal(sim_trace_open(path, &cfg, &trace, &err), CS_OK);
  }
  kn_ctx *ctx = ctx_for(c, cores, trace);
  cs_status rs = kn_ctx_run(ctx, &err);
  if (trace) assert_int_equal(sim_trace_close(trace, rs == CS_OK, NULL), CS_OK);
  if (rs != CS_OK) {
    char d[768];
    describe(c, d, sizeof d);
    fail_msg("%s: %s", d, err.msg);
  }
  bool fix = c->precision && strcmp(c->precision, "fixpipe") == 0 && c->op != OP_MMI;
  const kn_tensor *got = kn_ctx_output(ctx, out_names[c->op]);
  assert_output(c, got, fix ? r.fix : r.exact, r.count, "simulated");
  if (kn_ctx_reference(ctx, &err) != CS_OK) fail_msg("reference: %s", err.msg);
  const kn_tensor *ref = kn_ctx_reference_output(ctx, out_names[c->op]);
  assert_output(c, ref, fix ? r.fix : r.exact, r.count, "kn_ctx_reference");
  /* the output's shape: the batch of the two, then M and N unless an operand was 1-D */
  geom g;
  geometry(c, &g);
  uint32_t nd = g.bnd + (c->t[S_A].ndim == 1 ? 0 : 1) + (c->t[S_B].ndim == 1 ? 0 : 1);
  assert_int_equal(got->ndim, nd);
  for (uint32_t d = 0; d < g.bnd; d++) assert_int_equal(got->shape[d], g.bsh[d]);
  /* statistics */
  const sim_result *res = rt_device_result(kn_device(ctx));
  assert_non_null(res);
  assert_int_equal(res->stats.macs, g.batch * g.m * g.n * g.k);
  assert_true(res->total_cycles > 0);
  assert_int_equal(res->hazard_count, 0);
  /* the note of the fixpipe precision, counted independently */
  const char *notes = kn_ctx_notes(ctx);
  if (fix) {
    char want[600];
    expected_note(&r, want, sizeof want);
    if (!strstr(notes, want)) fail_msg("notes:\n%s\nwant:\n%s", notes, want);
    if (!strstr(want, "all ")) st->notes_with_diffs++;
  } else {
    assert_null(strstr(notes, "precision=fixpipe"));
  }
  if (with_trace) {
    uint64_t events, macs;
    trace_cube(path, &events, &macs, fix ? "VREQ8" : "NoQuant");
    assert_true(events > 0);
    assert_int_equal(macs, g.batch * g.m * g.n * g.k);
    remove(path);
  }
  st->cases++;
  st->elements += r.count;
  for (uint64_t e = 0; e < r.count; e++) {
    st->fix_diffs += r.fix[e] != r.exact[e];
    if (c->op != OP_MMI) st->saturated += r.exact[e] == type_lo(c->y_t) || r.exact[e] == type_hi(c->y_t);
  }
  kn_ctx_destroy(ctx);
  ref_free(&r);
}

/* ---- random cases ------------------------------------------------------------------------------ */

static void random_cases(op_kind op, bool fixpipe, unsigned n, uint64_t seed, run_stats *st) {
  uint64_t rng = seed;
  for (unsigned i = 0; i < n; i++) {
    qcase c;
    gen_case(&rng, op, i, fixpipe, &c);
    run_case(&c, 2 + i % 3, i % 8 == 0, st);
    qcase_free(&c);
  }
}

static void test_qmm_sim_matmul_integer_random(void **state) {
  (void)state;
  run_stats st = {0};
  random_cases(OP_MMI, false, 36, 11, &st);
  assert_int_equal(st.cases, 36);
  assert_true(st.elements >= 36 * 100);
}

static void test_qmm_sim_qlinear_matmul_random(void **state) {
  (void)state;
  run_stats st = {0};
  random_cases(OP_QLM, false, 36, 22, &st);
  assert_true(st.elements >= 36 * 100);
  /* the requantization is exercised, not just saturated */
  assert_true(st.saturated < st.elements / 4);
}

static void test_qmm_sim_dml_random(void **state) {
  (void)state;
  run_stats st = {0};
  random_cases(OP_DML, false, 36, 33, &st);
  assert_true(st.elements >= 36 * 100);
  /* uint8 outputs without a zero point (DirectML's default 0) saturate their negative half */
  assert_true(st.saturated < st.elements * 2 / 5);
}

static void test_qmm_sim_fixpipe_random(void **state) {
  (void)state;
  run_stats st = {0};
  random_cases(OP_QLM, true, 30, 44, &st);
  random_cases(OP_DML, true, 30, 55, &st);
  assert_int_equal(st.cases, 60);
  /* the fp19 multiplier does show: some runs report differences */
  assert_true(st.fix_diffs > 0);
  assert_true(st.notes_with_diffs > 0);
}

/* The shapes the issue names, once each, by hand: M = 1 from a 1-D a (numpy drops the dim), N >
 * 256 with per-column words (the fixpipe buffer holds 256), K = 33 and K = 1. */
static void test_qmm_sim_edge_shapes(void **state) {
  (void)state;
  uint64_t rng = 99;
  run_stats st = {0};
  for (int variant = 0; variant < 4; variant++) {
    qcase c;
    memset(&c, 0, sizeof c);
    c.op = OP_QLM;
    c.ts = ISA_FP32;
    c.y_t = variant % 2 ? ISA_INT8 : ISA_UINT8;
    c.precision = variant >= 2 ? "fixpipe" : NULL;
    uint64_t K = variant % 2 ? 33 : 1, N = 300, ash[1] = {K}, bsh[3] = {2, K, N};
    make_tensor(&c, S_A, ISA_UINT8, 1, ash);
    make_tensor(&c, S_B, variant % 2 ? ISA_INT8 : ISA_UINT8, 3, bsh);
    fill_operand(&rng, &c.t[S_A]);
    fill_operand(&rng, &c.t[S_B]);
    uint64_t one[1] = {1}, cols[3] = {2, 1, N};
    make_tensor(&c, S_SA, ISA_FP32, 1, one);
    make_tensor(&c, S_ZA, ISA_UINT8, 1, one);
    make_tensor(&c, S_SB, ISA_FP32, 3, cols);
    make_tensor(&c, S_ZB, c.t[S_B].dtype, 3, cols);
    make_tensor(&c, S_SY, ISA_FP32, 0, NULL);
    make_tensor(&c, S_ZY, c.y_t, 0, NULL);
    ((float *)c.t[S_SA].data)[0] = 0.05f;
    set_int(&c.t[S_ZA], 0, 131);
    for (uint64_t i = 0; i < c.t[S_SB].count; i++) {
      ((float *)c.t[S_SB].data)[i] = (float)(NOMINAL_SB * (0.5 + unit(&rng)));
      set_int(&c.t[S_ZB], i, c.t[S_B].dtype == ISA_UINT8 ? 128 : 0);
    }
    ((float *)c.t[S_SY].data)[0] = (float)nominal_sy(K);
    set_int(&c.t[S_ZY], 0, c.y_t == ISA_INT8 ? -3 : 125);
    run_case(&c, 3, true, &st);
    qcase_free(&c);
  }
  assert_int_equal(st.elements, 4 * 2 * 300);
}

/* The int32 accumulation wraps on the cube as in numpy: 255 * 255 * 33100 = 2152327500 is
 * 2^32 - 2142639796. With zero points 0 the uint8 operands re-centre to 127 and the corrections
 * (128 * row sums, 128 * column sums, K * 128 * 128) all wrap too. */
static void test_qmm_sim_matmul_integer_wraps(void **state) {
  (void)state;
  qcase c;
  memset(&c, 0, sizeof c);
  c.op = OP_MMI;
  uint64_t ash[2] = {1, 33100}, bsh[2] = {33100, 1};
  make_tensor(&c, S_A, ISA_UINT8, 2, ash);
  make_tensor(&c, S_B, ISA_UINT8, 2, bsh);
  memset(c.t[S_A].data, 255, 33100);
  memset(c.t[S_B].data, 255, 33100);
  kn_ctx *ctx = ctx_for(&c, 2, NULL);
  cs_err err;
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("%s", err.msg);
  const kn_tensor *y = kn_ctx_output(ctx, "Y");
  assert_non_null(y);
  assert_int_equal(((const int32_t *)y->data)[0], -2142639796);
  assert_int_equal(rt_device_result(kn_device(ctx))->stats.macs, 33100);
  kn_ctx_destroy(ctx);
  qcase_free(&c);
}

/* ---- the fixpipe precision, by hand ---------------------------------------------------------- */

/* a [M, K] int8, b [K, 1] int8 of ones or given, per-tensor parameters with zero points 0 except
 * y's; multiplier = a_scale (b_scale = y_scale = 1). */
static void hand_case(qcase *c, const int64_t *a, uint64_t M, uint64_t K, const int64_t *b, float a_scale, int64_t y_zp,
                      isa_dtype y_t, const char *precision) {
  memset(c, 0, sizeof *c);
  c->op = OP_QLM;
  c->ts = ISA_FP32;
  c->y_t = y_t;
  c->precision = precision;
  uint64_t ash[2] = {M, K}, bsh[2] = {K, 1};
  make_tensor(c, S_A, ISA_INT8, 2, ash);
  make_tensor(c, S_B, ISA_INT8, 2, bsh);
  for (uint64_t i = 0; i < M * K; i++) set_int(&c->t[S_A], i, a[i]);
  for (uint64_t i = 0; i < K; i++) set_int(&c->t[S_B], i, b ? b[i] : 1);
  for (int s = S_SA; s < NSLOTS; s++) {
    if (s == S_B) continue;
    bool scale = s == S_SA || s == S_SB || s == S_SY;
    make_tensor(c, s, scale ? ISA_FP32 : s == S_ZY ? y_t : ISA_INT8, 0, NULL);
    if (scale) ((float *)c->t[s].data)[0] = s == S_SA ? a_scale : 1.0f;
    else set_int(&c->t[s], 0, s == S_ZY ? y_zp : 0);
  }
}

static void run_hand(const qcase *c, const int64_t *want, uint64_t n, const char *note) {
  kn_ctx *ctx = ctx_for(c, 2, NULL);
  cs_err err;
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("%s", err.msg);
  const kn_tensor *y = kn_ctx_output(ctx, "y");
  assert_non_null(y);
  assert_int_equal(y->count, n);
  for (uint64_t i = 0; i < n; i++)
    if ((int64_t)kn_tensor_get(y, i) != want[i])
      fail_msg("element %" PRIu64 ": got %g, want %" PRId64, i, kn_tensor_get(y, i), want[i]);
  if (note) {
    if (!strstr(kn_ctx_notes(ctx), note)) fail_msg("notes:\n%s\nwant:\n%s", kn_ctx_notes(ctx), note);
    /* parse the report back: the counts are numbers a script can read */
    unsigned long long diff = 0, total = 0;
    long long maxd = 0;
    const char *p = strstr(kn_ctx_notes(ctx), "precision=fixpipe: ");
    assert_non_null(p);
    if (sscanf(p, "precision=fixpipe: %llu of %llu elements (%*f%%) differ from the exact requantization, by at most %lld",
               &diff, &total, &maxd) == 3) {
      uint64_t my = 0;
      int64_t mymax = 0;
      kn_ctx *ex = NULL;
      qcase exact = *c;
      exact.precision = "exact";
      ex = ctx_for(&exact, 2, NULL);
      if (kn_ctx_run(ex, &err) != CS_OK) fail_msg("%s", err.msg);
      const kn_tensor *ye = kn_ctx_output(ex, "y");
      for (uint64_t i = 0; i < n; i++) {
        int64_t d = (int64_t)kn_tensor_get(y, i) - (int64_t)kn_tensor_get(ye, i);
        my += d != 0;
        if (llabs(d) > mymax) mymax = llabs(d);
      }
      assert_int_equal(diff, my);
      assert_int_equal(total, n);
      assert_int_equal(maxd, mymax);
      kn_ctx_destroy(ex);
    }
  }
  kn_ctx_destroy(ctx);
}

/* (a) The fp19 truncation. multiplier = 0.5 + 2^-14 = 0x3F000400: bit 10 of the mantissa is below
 * the 10 kept, so the word's scale is 0.5. With acc = v (K = 1, b = 1):
 *   exact   rint(v * (0.5 + 2^-14)):  v = 1..8 -> 1 (0.50006), 1, 2 (1.50018), 2, 3 (2.5003), 3, 4 (3.5004), 4
 *   fixpipe rne(v * 0.5):             v = 1..8 -> 0 (0.5 ties to even), 1, 2, 2, 2 (2.5), 3, 4, 4
 * so v = 1 and v = 5 differ by -1: 2 of 8 elements. */
static void test_qmm_sim_fixpipe_fp19_truncation(void **state) {
  (void)state;
  const int64_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  float m = 0.5f + 0x1p-14f;
  uint32_t bits;
  memcpy(&bits, &m, sizeof bits);
  assert_int_equal(bits, 0x3F000400u);
  qcase c;
  hand_case(&c, a, 8, 1, NULL, m, 0, ISA_INT8, NULL);
  const int64_t exact[8] = {1, 1, 2, 2, 3, 3, 4, 4}, fix[8] = {0, 1, 2, 2, 2, 3, 4, 4};
  run_hand(&c, exact, 8, NULL);
  c.precision = "fixpipe";
  run_hand(&c, fix, 8,
           "precision=fixpipe: 2 of 8 elements (25.000%) differ from the exact requantization, by at most 1 (-1: 2); "
           "causes: the fp19 multiplier (truncated) and the fp32 product (the int32 accumulator rounded to fp32 first)\n");
  qcase_free(&c);
}

/* (b) The clamp to [-256, 255] before the offset cannot make a difference when the offset is a
 * zero point of the output type. int8, y_zero_point = -100, y = 300: exact 300 - 100 = 200 -> 127;
 * fixpipe min(300, 255) - 100 = 155 -> 127. y = -300 with y_zero_point = 100: exact -200 -> -128;
 * fixpipe -256 + 100 = -156 -> -128. In general, q > 255 gives 255 + zp >= 127 (zp >= -128) and
 * q < -256 gives -256 + zp <= -129 (zp <= 127): both saturate the same way; for uint8 (zp in
 * [0, 255]) 255 + zp >= 255 and -256 + zp <= -1. Checked here over every zp and q in [-2000, 2000],
 * and through the fixpipe with y = +-300 (multiplier 1, acc = 3 * 100). */
static void test_qmm_sim_fixpipe_clamp_before_offset(void **state) {
  (void)state;
  for (int out = 0; out < 2; out++) {
    isa_dtype t = out ? ISA_UINT8 : ISA_INT8;
    for (int32_t zp = type_lo(t); zp <= type_hi(t); zp++)
      for (int32_t q = -2000; q <= 2000; q++) {
        int32_t ex = q + zp < type_lo(t) ? type_lo(t) : q + zp > type_hi(t) ? type_hi(t) : q + zp;
        int32_t fq = (q > 255 ? 255 : q < -256 ? -256 : q) + zp;
        fq = fq < type_lo(t) ? type_lo(t) : fq > type_hi(t) ? type_hi(t) : fq;
        if (ex != fq) fail_msg("%s zp %d q %d: %d vs %d", isa_dtype_name(t), zp, q, ex, fq);
      }
  }
  const int64_t a[6] = {100, 100, 100, -100, -100, -100};
  const int64_t zps[2] = {-100, 100}, want_i8[2][2] = {{127, -128}, {127, -128}};
  for (int z = 0; z < 2; z++) {
    qcase c;
    hand_case(&c, a, 2, 3, NULL, 1.0f, zps[z], ISA_INT8, NULL);
    run_hand(&c, want_i8[z], 2, NULL);
    c.precision = "fixpipe";
    run_hand(&c, want_i8[z], 2, "precision=fixpipe: all 2 elements equal the exact requantization\n");
    qcase_free(&c);
  }
  /* uint8 output, zero point 255 and 0 */
  const int64_t want_u8[2][2] = {{255, 0}, {255, 0}}, uzps[2] = {255, 0};
  for (int z = 0; z < 2; z++) {
    qcase c;
    hand_case(&c, a, 2, 3, NULL, 1.0f, uzps[z], ISA_UINT8, "fixpipe");
    run_hand(&c, want_u8[z], 2, "precision=fixpipe: all 2 elements equal the exact requantization\n");
    qcase_free(&c);
  }
}

/* (c) The int32 accumulator rounded to fp32: acc = 1024 * (-128)(-128) + 1 = 2^24 + 1, multiplier
 * 2^-25 (exact in fp19). Exact: (2^24 + 1) * 2^-25 = 0.5 + 2^-25 -> 1. Fixpipe: fp32(2^24 + 1) =
 * 2^24 (ties to even), * 2^-25 = 0.5 -> 0. */
static void test_qmm_sim_fixpipe_fp32_accumulator(void **state) {
  (void)state;
  int64_t a[1025], b[1025];
  for (int i = 0; i < 1025; i++) a[i] = b[i] = i < 1024 ? -128 : 1;
  qcase c;
  hand_case(&c, a, 1, 1025, b, 0x1p-25f, 0, ISA_INT8, NULL);
  const int64_t one = 1, zero = 0;
  run_hand(&c, &one, 1, NULL);
  c.precision = "fixpipe";
  run_hand(&c, &zero, 1,
           "precision=fixpipe: 1 of 1 elements (100.000%) differ from the exact requantization, by at most 1 (-1: 1); "
           "causes: the fp19 multiplier (truncated) and the fp32 product (the int32 accumulator rounded to fp32 first)\n");
  qcase_free(&c);
}

/* ---- what the fixpipe cannot do ------------------------------------------------------------ */

static void expect_refusal(const qcase *c, const char *msg) {
  kn_ctx *ctx = ctx_for(c, 2, NULL);
  cs_err err;
  assert_int_equal(kn_ctx_run(ctx, &err), CS_EINVAL);
  assert_int_equal(err.code, CS_EINVAL);
  assert_string_equal(err.msg, msg);
  assert_null(kn_ctx_output(ctx, out_names[c->op]));
  kn_ctx_destroy(ctx);
  /* the exact precision takes the same inputs */
  qcase ex = *c;
  ex.precision = "exact";
  ctx = ctx_for(&ex, 2, NULL);
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("%s", err.msg);
  kn_ctx_destroy(ctx);
}

static void test_qmm_sim_fixpipe_refusals(void **state) {
  (void)state;
  const int64_t a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {1, 2, 3};
  qcase c;
  /* b's zero point 5: the row part -5 x (row sum of a) */
  hand_case(&c, a, 2, 3, b, 0.25f, 0, ISA_INT8, "fixpipe");
  set_int(&c.t[S_ZB], 0, 5);
  expect_refusal(&c, "precision=fixpipe: b's zero point 5 (column 0) is 5 after re-centring int8 b to int8, so -5 x "
                     "(each row's sum of a) must be added row by row; the accumulator takes per-column terms only (use "
                     "precision=exact)");
  qcase_free(&c);
  /* uint8 b with zero point 0: -128 after re-centring */
  hand_case(&c, a, 2, 3, b, 0.25f, 0, ISA_INT8, "fixpipe");
  uint64_t bsh[2] = {3, 1}, one[1] = {1};
  make_tensor(&c, S_B, ISA_UINT8, 2, bsh);
  for (int i = 0; i < 3; i++) set_int(&c.t[S_B], (uint64_t)i, 200 + i);
  make_tensor(&c, S_ZB, ISA_UINT8, 1, one);
  set_int(&c.t[S_ZB], 0, 0);
  expect_refusal(&c, "precision=fixpipe: b's zero point 0 (column 0) is -128 after re-centring uint8 b to int8, so 128 "
                     "x (each row's sum of a) must be added row by row; the accumulator takes per-column terms only (use "
                     "precision=exact)");
  qcase_free(&c);
  /* a per-row a_scale (a_zero_point takes its shape) */
  hand_case(&c, a, 2, 3, b, 0.25f, 0, ISA_INT8, "fixpipe");
  uint64_t m2[1] = {2};
  make_tensor(&c, S_SA, ISA_FP32, 1, m2);
  make_tensor(&c, S_ZA, ISA_INT8, 1, m2);
  ((float *)c.t[S_SA].data)[0] = 0.25f;
  ((float *)c.t[S_SA].data)[1] = 0.5f;
  set_int(&c.t[S_ZA], 0, 0);
  set_int(&c.t[S_ZA], 1, 0);
  expect_refusal(&c, "precision=fixpipe: the scales or the output zero point of row 1 differ from row 0's; the fixpipe "
                     "applies one word per column (use precision=exact)");
  /* a per-row zero point (the scales equal) */
  ((float *)c.t[S_SA].data)[1] = 0.25f;
  set_int(&c.t[S_ZA], 1, 3);
  expect_refusal(&c, "precision=fixpipe: a's zero point changes from row to row, which makes a correction per row and "
                     "column; the accumulator takes per-column terms only (use precision=exact)");
  /* equal per-row values are per tensor in effect: accepted */
  set_int(&c.t[S_ZA], 1, 0);
  kn_ctx *ctx = ctx_for(&c, 2, NULL);
  cs_err err;
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("%s", err.msg);
  kn_ctx_destroy(ctx);
  qcase_free(&c);
  /* DirectML: a per-row output scale */
  memset(&c, 0, sizeof c);
  c.op = OP_DML;
  c.ts = ISA_FP32;
  c.y_t = ISA_INT8;
  c.precision = "fixpipe";
  uint64_t ash[2] = {2, 3}, bsh2[2] = {3, 1}, p1[2] = {1, 1}, prow[2] = {2, 1};
  make_tensor(&c, S_A, ISA_INT8, 2, ash);
  make_tensor(&c, S_B, ISA_INT8, 2, bsh2);
  for (int i = 0; i < 6; i++) set_int(&c.t[S_A], (uint64_t)i, a[i]);
  for (int i = 0; i < 3; i++) set_int(&c.t[S_B], (uint64_t)i, b[i]);
  make_tensor(&c, S_SA, ISA_FP32, 2, p1);
  make_tensor(&c, S_SB, ISA_FP32, 2, p1);
  make_tensor(&c, S_SY, ISA_FP32, 2, prow);
  ((float *)c.t[S_SA].data)[0] = ((float *)c.t[S_SB].data)[0] = 1.0f;
  ((float *)c.t[S_SY].data)[0] = 1.0f;
  ((float *)c.t[S_SY].data)[1] = 2.0f;
  expect_refusal(&c, "precision=fixpipe: the scales or the output zero point of row 1 differ from row 0's; the fixpipe "
                     "applies one word per column (use precision=exact)");
  qcase_free(&c);
  /* MatMulInteger does not requantize: it has no precision attribute */
  memset(&c, 0, sizeof c);
  c.op = OP_MMI;
  make_tensor(&c, S_A, ISA_INT8, 2, ash);
  make_tensor(&c, S_B, ISA_INT8, 2, bsh2);
  ctx = ctx_for(&c, 2, NULL);
  assert_int_equal(kn_ctx_set_attr(ctx, "precision", "fixpipe", &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_matmul_integer has no attribute 'precision' (it has: m, n, k, a_dtype, b_dtype, cross_sync, "
                               "used_core_num, single_core_m, single_core_n, single_core_k, base_m, base_n, base_k, "
                               "depth_a1, depth_b1, step_m, step_n, step_ka, step_kb, iterate_order, db_l0a, db_l0b, "
                               "db_l0c, l2_split, unit_flag, core_split, const_tiling, api, step_k, tiling)");
  kn_ctx_destroy(ctx);
  qcase_free(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_qmm_sim_matmul_integer_random),
      cmocka_unit_test(test_qmm_sim_qlinear_matmul_random),
      cmocka_unit_test(test_qmm_sim_dml_random),
      cmocka_unit_test(test_qmm_sim_fixpipe_random),
      cmocka_unit_test(test_qmm_sim_edge_shapes),
      cmocka_unit_test(test_qmm_sim_matmul_integer_wraps),
      cmocka_unit_test(test_qmm_sim_fixpipe_fp19_truncation),
      cmocka_unit_test(test_qmm_sim_fixpipe_clamp_before_offset),
      cmocka_unit_test(test_qmm_sim_fixpipe_fp32_accumulator),
      cmocka_unit_test(test_qmm_sim_fixpipe_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
