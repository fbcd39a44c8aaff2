/* Tests of the quantized matmuls' zero-point corrections on the AIVs (kernels/kn_qmatmul.c,
 * KN_EPI_QCORR in kernels/kn_mm.c): bit-exact outputs against a reference written here (int64 dot
 * products of the zero-point-shifted operands, wrapped to int32; the requantization of
 * docs/QUANT_OPS.md) for int8 and uint8 operands, zero points per tensor, per row and per column,
 * shapes with every tail; where the work runs (vector instructions and UB copies on the AIVs
 * only, none on the AICs, counted per kind from the phases' documented structure), how the cores
 * synchronise (SyncAll per core, a cross-core wait per AIV and tile), no hazard; a seeded race
 * (cross_sync=no_wait) reported by the cross-core check; timing-only runs timed exactly like the
 * runs with data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kn_op.h"

/* ---- numbers, written for this test ------------------------------------------------------ */

static uint64_t mix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi) { return lo + (int64_t)(mix64(s) % (uint64_t)(hi - lo + 1)); }

static int32_t wrap32(int64_t v) {
  uint32_t u = (uint32_t)((uint64_t)v & 0xFFFFFFFFu);
  return u >= 0x80000000u ? (int32_t)(u - 0x80000000u) - 0x7FFFFFFF - 1 : (int32_t)u;
}

/* ---- a case: MatMulInteger or QLinearMatMul with chosen zero points ------------------------ */

typedef enum zp_kind { ZP_NONE, ZP_TENSOR, ZP_VECTOR } zp_kind; /* absent, one value, per row / column */

typedef struct qcase {
  bool qlinear;           /* QLinearMatMul (requantized, uint8 output), else MatMulInteger */
  isa_dtype at, bt;       /* int8 or uint8 */
  uint32_t batch, m, k, n;
  zp_kind za, zb;
  int64_t za_lo, za_hi, zb_lo, zb_hi; /* zero point ranges (in the operand's type) */
  int64_t a_lo, a_hi, b_lo, b_hi;     /* data ranges */
  uint64_t seed;
} qcase;

typedef struct qdata {
  int64_t *a, *b, *za, *zb; /* host values; za: m (or 1), zb: n (or 1) */
  float sa, sb, sy;
  int64_t zy;
  int64_t *want;            /* batch x m x n */
} qdata;

static void qdata_free(qdata *d) {
  free(d->a);
  free(d->b);
  free(d->za);
  free(d->zb);
  free(d->want);
}

static int64_t clamp_to(isa_dtype t, int64_t v) {
  int64_t lo = t == ISA_UINT8 ? 0 : -128, hi = t == ISA_UINT8 ? 255 : 127;
  return v < lo ? lo : v > hi ? hi : v;
}

/* Values and the expected output: the ONNX definitions, independently. */
static void make_data(const qcase *c, qdata *d) {
  memset(d, 0, sizeof *d);
  uint64_t s = c->seed, mk = (uint64_t)c->batch * c->m * c->k, kn = (uint64_t)c->batch * c->k * c->n;
  uint64_t mn = (uint64_t)c->batch * c->m * c->n;
  d->a = malloc(mk * sizeof *d->a);
  d->b = malloc(kn * sizeof *d->b);
  d->za = calloc(c->m, sizeof *d->za);
  d->zb = calloc(c->n, sizeof *d->zb);
  d->want = malloc(mn * sizeof *d->want);
  assert_true(d->a && d->b && d->za && d->zb && d->want);
  for (uint64_t i = 0; i < mk; i++) d->a[i] = clamp_to(c->at, rnd(&s, c->a_lo, c->a_hi));
  for (uint64_t i = 0; i < kn; i++) d->b[i] = clamp_to(c->bt, rnd(&s, c->b_lo, c->b_hi));
  uint32_t nza = c->za == ZP_VECTOR ? c->m : 1, nzb = c->zb == ZP_VECTOR ? c->n : 1;
  for (uint32_t i = 0; i < nza; i++) d->za[i] = c->za == ZP_NONE ? 0 : clamp_to(c->at, rnd(&s, c->za_lo, c->za_hi));
  for (uint32_t i = 0; i < nzb; i++) d->zb[i] = c->zb == ZP_NONE ? 0 : clamp_to(c->bt, rnd(&s, c->zb_lo, c->zb_hi));
  d->sa = 0.02f;
  d->sb = 0.004f;
  d->sy = (float)(0.02 * 0.004 * 30.0 * sqrt((double)c->k));
  d->zy = 128;
  /* the multiplier of QLinearMatMul with fp32 scales: (a_scale * b_scale) / y_scale, each in fp32 */
  float ab = d->sa * d->sb;
  float mult = ab / d->sy;
  for (uint32_t b = 0; b < c->batch; b++)
    for (uint32_t r = 0; r < c->m; r++)
      for (uint32_t col = 0; col < c->n; col++) {
        int64_t za = d->za[c->za == ZP_VECTOR ? r : 0], zb = d->zb[c->zb == ZP_VECTOR ? col : 0], acc = 0;
        for (uint32_t t = 0; t < c->k; t++)
          acc += (d->a[((uint64_t)b * c->m + r) * c->k + t] - za) * (d->b[((uint64_t)b * c->k + t) * c->n + col] - zb);
        int32_t acc32 = wrap32(acc);
        uint64_t e = ((uint64_t)b * c->m + r) * c->n + col;
        if (!c->qlinear) {
          d->want[e] = acc32;
          continue;
        }
        double y = nearbyint((double)acc32 * (double)mult + (double)d->zy); /* ties to even */
        d->want[e] = y < 0 ? 0 : y > 255 ? 255 : (int64_t)y;
      }
}

static void put(kn_ctx *ctx, const char *name, isa_dtype dt, uint32_t nd, const uint64_t *shape, const int64_t *iv,
                const float *fv) {
  kn_tensor t;
  cs_err err;
  assert_int_equal(kn_tensor_alloc(&t, name, dt, nd, shape, &err), CS_OK);
  for (uint64_t i = 0; i < t.count; i++) {
    if (dt == ISA_INT8) ((int8_t *)t.data)[i] = (int8_t)iv[i];
    else if (dt == ISA_UINT8) ((uint8_t *)t.data)[i] = (uint8_t)iv[i];
    else ((float *)t.data)[i] = fv[i];
  }
  if (kn_set_input(ctx, name, &t, &err) != CS_OK) fail_msg("%s: %s", name, err.msg);
}

typedef struct chip {
  unsigned cores;
  bool timing_only;
  uint64_t flag_cycles; /* aiv.cross_flag_cycles; UINT64_MAX: the default */
  const char *cross_sync;
} chip;

static kn_ctx *make_ctx(const qcase *c, const qdata *d, const chip *h) {
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = h->cores;
  if (h->flag_cycles != UINT64_MAX) cfg.aiv_cross_flag_cycles = h->flag_cycles;
  kn_run_options o;
  memset(&o, 0, sizeof o);
  o.cfg = &cfg;
  o.seed = 1;
  o.timing_only = h->timing_only;
  kn_ctx *ctx = NULL;
  cs_err err;
  const char *op = c->qlinear ? "onnx_qlinear_matmul" : "onnx_matmul_integer";
  assert_int_equal(kn_ctx_create(kn_op_find(op), &o, &ctx, &err), CS_OK);
  bool b3 = c->batch > 1;
  uint64_t as[3], bs[3], one = 1, zas = c->m, zbs = c->n;
  uint32_t nd = 0;
  if (b3) as[nd] = bs[nd] = c->batch, nd++;
  as[nd] = c->m, bs[nd] = c->k, nd++;
  as[nd] = c->k, bs[nd] = c->n, nd++;
  put(ctx, c->qlinear ? "a" : "A", c->at, nd, as, d->a, NULL);
  put(ctx, c->qlinear ? "b" : "B", c->bt, nd, bs, d->b, NULL);
  if (c->za != ZP_NONE || c->qlinear)
    put(ctx, "a_zero_point", c->at, c->za == ZP_VECTOR ? 1 : 0, c->za == ZP_VECTOR ? &zas : NULL, d->za, NULL);
  if (c->zb != ZP_NONE || c->qlinear)
    put(ctx, "b_zero_point", c->bt, c->zb == ZP_VECTOR ? 1 : 0, c->zb == ZP_VECTOR ? &zbs : NULL, d->zb, NULL);
  if (c->qlinear) {
    /* a_scale takes a_zero_point's shape, b_scale b_zero_point's; the values do not vary */
    float sa[512], sb[512];
    for (int i = 0; i < 512; i++) sa[i] = d->sa, sb[i] = d->sb;
    assert_true(c->m <= 512 && c->n <= 512);
    put(ctx, "a_scale", ISA_FP32, c->za == ZP_VECTOR ? 1 : 0, c->za == ZP_VECTOR ? &zas : NULL, NULL, sa);
    put(ctx, "b_scale", ISA_FP32, c->zb == ZP_VECTOR ? 1 : 0, c->zb == ZP_VECTOR ? &zbs : NULL, NULL, sb);
    put(ctx, "y_scale", ISA_FP32, 0, &one, NULL, &d->sy);
    put(ctx, "y_zero_point", ISA_UINT8, 0, &one, &d->zy, NULL);
  }
  if (h->cross_sync) assert_int_equal(kn_ctx_set_attr(ctx, "cross_sync", h->cross_sync, &err), CS_OK);
  return ctx;
}

/* ---- where the work ran ------------------------------------------------------------------ */

static const isa_op vector_ops[] = {ISA_OP_VADD, ISA_OP_VSUB, ISA_OP_VMUL, ISA_OP_VMULS, ISA_OP_VDUP,
                                    ISA_OP_VBRCB, ISA_OP_VCAST, ISA_OP_VREDUCE_SUM, ISA_OP_VDEQ};

typedef struct split {
  uint64_t aic_vector, aic_ub_copies, aic_sets, aiv_waits, aiv_mmads, aiv_vcast, aiv_vbrcb, aiv_vector;
  uint64_t aic_sync, aiv_sync;          /* SyncAlls */
  unsigned aics_ran, aivs_ran;
  uint64_t aiv_vec_busy, aiv_max_finish; /* V pipe cycles summed over the AIVs; the last AIV's finish */
} split;

static split work_split(const sim_result *res, unsigned cores) {
  split s;
  memset(&s, 0, sizeof s);
  for (unsigned k = 0; k < res->stats.cores; k++) {
    const sim_core_stats *cs = &res->stats.core[k];
    uint64_t all = 0, vec = 0;
    for (int op = 0; op < ISA_OP_COUNT; op++) all += cs->op_count[op];
    for (size_t i = 0; i < sizeof vector_ops / sizeof vector_ops[0]; i++) vec += cs->op_count[vector_ops[i]];
    if (k < cores) {
      s.aic_vector += vec;
      s.aic_ub_copies += cs->op_count[ISA_OP_COPY_GM_UB] + cs->op_count[ISA_OP_COPY_UB_GM];
      s.aic_sets += cs->op_count[ISA_OP_CROSS_SET_FLAG];
      s.aic_sync += cs->op_count[ISA_OP_SYNC_ALL];
      s.aics_ran += all > 0;
    } else {
      s.aiv_vector += vec;
      s.aiv_waits += cs->op_count[ISA_OP_CROSS_WAIT_FLAG];
      s.aiv_mmads += cs->op_count[ISA_OP_MMAD];
      s.aiv_vcast += cs->op_count[ISA_OP_VCAST];
      s.aiv_vbrcb += cs->op_count[ISA_OP_VBRCB];
      s.aiv_sync += cs->op_count[ISA_OP_SYNC_ALL];
      s.aivs_ran += all > 0;
      s.aiv_vec_busy += cs->pipe_busy_cycles[ISA_PIPE_V];
      if (all && cs->finish_cycles > s.aiv_max_finish) s.aiv_max_finish = cs->finish_cycles;
    }
  }
  return s;
}

/* Which corrections a case needs (docs/QUANT_OPS.md): za' = za - 128 for uint8, likewise zb'. */
typedef struct needs {
  bool col, row, row_za;
} needs;

static needs needs_of(const qcase *c, const qdata *d) {
  needs n = {false, false, false};
  int64_t ca = c->at == ISA_UINT8 ? 128 : 0, cb = c->bt == ISA_UINT8 ? 128 : 0;
  uint32_t nza = c->za == ZP_VECTOR ? c->m : 1, nzb = c->zb == ZP_VECTOR ? c->n : 1;
  for (uint32_t i = 0; i < nza; i++) {
    n.col = n.col || d->za[i] - ca != 0;
    n.row_za = n.row_za || d->za[i] != d->za[0];
  }
  for (uint32_t i = 0; i < nzb; i++) n.row = n.row || d->zb[i] - cb != 0;
  return n;
}

static uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/* The split of an exact run of c on `cores` AI cores (each with two AIVs): nothing of the
 * corrections on the AICs; on the AIVs, with K <= 64 and M <= 100 (one pass per item, one row
 * item a batch: kernels/kn_mm.c's phases), two vcasts per column item (of 128 columns, or 64
 * when there would be fewer items than AIVs) and per row item, a vbrcb per row item for the sums
 * and one for a's zero points; one SyncAll per AIV that ran and none on the AICs (the cube does
 * not wait: the AIVs add every correction to its int32 tiles); a cross-core wait per tile and
 * AIV. */
static void check_split(const qcase *c, const qdata *d, const sim_result *res, unsigned cores) {
  needs n = needs_of(c, d);
  bool tiles = n.col || n.row || n.row_za;
  split s = work_split(res, cores);
  assert_int_equal(res->stats.cores, cores * 3);
  assert_int_equal(res->hazard_count, 0);
  assert_int_equal(s.aic_vector, 0);
  assert_int_equal(s.aic_ub_copies, 0);
  assert_int_equal(s.aiv_mmads, 0);
  assert_true(s.aiv_vector > 0);
  assert_true(s.aics_ran >= 1);
  assert_int_equal(s.aivs_ran, 2 * s.aics_ran); /* the AIVs of the MIX launch's AI cores */
  assert_int_equal(s.aiv_sync, s.aivs_ran);
  assert_int_equal(s.aic_sync, 0);
  if (tiles) {
    assert_true(s.aic_sets > 0);
    assert_int_equal(s.aiv_waits, 2 * s.aic_sets); /* each tile's flag raises both AIVs of its AI core */
  } else {
    assert_int_equal(s.aic_sets, 0);
    assert_int_equal(s.aiv_waits, 0);
  }
  if (c->k <= 64 && c->m <= 100) {
    uint32_t w = (uint64_t)c->batch * cdiv(c->n, 128) >= s.aivs_ran ? 128 : 64;
    uint64_t col_items = n.col ? (uint64_t)c->batch * cdiv(c->n, w) : 0, row_items = n.row ? c->batch : 0;
    assert_int_equal(s.aiv_vcast, 2 * (col_items + row_items));
    assert_int_equal(s.aiv_vbrcb, row_items + (n.row_za ? c->batch : 0));
  }
}

static void assert_output(const qcase *c, const kn_tensor *y, const qdata *d) {
  uint64_t mn = (uint64_t)c->batch * c->m * c->n;
  assert_non_null(y);
  assert_int_equal(y->count, mn);
  assert_int_equal(y->dtype, c->qlinear ? ISA_UINT8 : ISA_INT32);
  for (uint64_t e = 0; e < mn; e++) {
    int64_t got = c->qlinear ? ((const uint8_t *)y->data)[e] : ((const int32_t *)y->data)[e];
    if (got != d->want[e])
      fail_msg("%s %s x %s, %u x %u x %u x %u, zero points %d/%d: element %llu: got %lld, want %lld",
               c->qlinear ? "QLinearMatMul" : "MatMulInteger", isa_dtype_name(c->at), isa_dtype_name(c->bt), c->batch,
               c->m, c->k, c->n, (int)c->za, (int)c->zb, (unsigned long long)e, (long long)got, (long long)d->want[e]);
  }
}

/* Runs c with data, checks output and split; returns the run's total cycles. */
static uint64_t run_checked(const qcase *c, unsigned cores) {
  qdata d;
  make_data(c, &d);
  chip h = {cores, false, UINT64_MAX, NULL};
  kn_ctx *ctx = make_ctx(c, &d, &h);
  cs_err err;
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("run: %s", err.msg);
  assert_output(c, kn_ctx_output(ctx, c->qlinear ? "y" : "Y"), &d);
  const sim_result *res = rt_device_result(kn_device(ctx));
  check_split(c, &d, res, cores);
  uint64_t cycles = res->total_cycles;
  kn_ctx_destroy(ctx);
  qdata_free(&d);
  return cycles;
}

/* ---- the tests --------------------------------------------------------------------------- */

/* Non-zero zero points of both operands, all four type pairs, tails in M, N and K. */
static void test_qmm_aiv_both_zero_points(void **state) {
  (void)state;
  static const isa_dtype types[2] = {ISA_INT8, ISA_UINT8};
  static const uint32_t shapes[4][3] = {{37, 45, 50}, {1, 1, 1}, {19, 7, 133}, {70, 33, 300}};
  unsigned i = 0;
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      for (int sh = 0; sh < 4; sh++, i++) {
        qcase c = {false, types[ta], types[tb], 1, shapes[sh][0], shapes[sh][1], shapes[sh][2], ZP_TENSOR, ZP_TENSOR,
                   -60, 200, -60, 200, -128, 255, -128, 255, 1000 + i};
        /* zero points away from the re-centring value, so both parts are there */
        if (types[ta] == ISA_UINT8) c.za_lo = 0, c.za_hi = 100;
        if (types[tb] == ISA_UINT8) c.zb_lo = 140, c.zb_hi = 255;
        if (types[ta] == ISA_INT8) c.za_lo = 1, c.za_hi = 100;
        if (types[tb] == ISA_INT8) c.zb_lo = -100, c.zb_hi = -1;
        run_checked(&c, 2 + i % 2);
      }
}

/* Per-row zero points of a (the column part then goes on the tiles, row by row) and per-column
 * ones of b, with batches; and the same per-row case requantized (QLinearMatMul). */
static void test_qmm_aiv_per_row_and_column_zero_points(void **state) {
  (void)state;
  static const uint32_t shapes[3][4] = {{1, 29, 17, 41}, {2, 37, 45, 150}, {3, 9, 60, 5}};
  for (int sh = 0; sh < 3; sh++)
    for (int v = 0; v < 4; v++) {
      qcase c = {false, v & 1 ? ISA_UINT8 : ISA_INT8, v & 2 ? ISA_UINT8 : ISA_INT8, shapes[sh][0], shapes[sh][1],
                 shapes[sh][2], shapes[sh][3], ZP_VECTOR, v < 2 ? ZP_VECTOR : ZP_TENSOR,
                 -128, 255, -128, 255, -128, 255, -128, 255, 2000 + (uint64_t)(sh * 4 + v)};
      run_checked(&c, 3);
    }
  /* QLinearMatMul, per-row a (scale and zero point), per-column b: the AIVs' int32, requantized */
  qcase q = {true, ISA_UINT8, ISA_INT8, 1, 23, 40, 31, ZP_VECTOR, ZP_VECTOR, 0, 255, -128, 127, 0, 255, -128, 127, 77};
  run_checked(&q, 2);
  q.at = ISA_INT8, q.a_lo = -128, q.a_hi = 127, q.za_lo = -128, q.za_hi = 127, q.bt = ISA_UINT8, q.b_lo = 0,
  q.b_hi = 255, q.zb_lo = 0, q.zb_hi = 255, q.seed = 78;
  run_checked(&q, 3);
}

/* Only a's zero point (b's is the re-centring value): the column part alone; only b's: the row
 * part alone. Neither: the cube alone, on a chip without AIVs. */
static void test_qmm_aiv_one_part_or_none(void **state) {
  (void)state;
  qcase col = {false, ISA_INT8, ISA_UINT8, 2, 21, 30, 200, ZP_TENSOR, ZP_TENSOR, 5, 5, 128, 128, -128, 127, 0, 255, 5};
  run_checked(&col, 2);
  qcase row = {false, ISA_UINT8, ISA_INT8, 1, 40, 64, 70, ZP_TENSOR, ZP_VECTOR, 128, 128, -9, 9, 0, 255, -128, 127, 6};
  run_checked(&row, 3);
  qcase none = {false, ISA_UINT8, ISA_INT8, 1, 16, 20, 24, ZP_TENSOR, ZP_TENSOR, 128, 128, 0, 0, 0, 255, -128, 127, 7};
  qdata d;
  make_data(&none, &d);
  chip h = {2, false, UINT64_MAX, NULL};
  kn_ctx *ctx = make_ctx(&none, &d, &h);
  cs_err err;
  assert_int_equal(kn_ctx_run(ctx, &err), CS_OK);
  assert_output(&none, kn_ctx_output(ctx, "Y"), &d);
  const sim_result *res = rt_device_result(kn_device(ctx));
  assert_int_equal(res->stats.cores, 2); /* no AIVs were made */
  assert_null(strstr(kn_ctx_notes(ctx), "AIVs"));
  kn_ctx_destroy(ctx);
  qdata_free(&d);
}

/* The int32 wrap, at the cube's longest K (65535, an ND row's GM -> L1 limit): a = -128 with
 * za = 127 and b = 127 with zb = -128 make each term -255 * 255; the bias the AIVs compute,
 * 127 * (65535 * -128 - 127 * 65535) = -2122350975, and their row part 128 * (-128 * 65535) =
 * -1073725440 fit, but the cube's sum from that bias and the AIVs' subtraction wrap. */
static void test_qmm_aiv_wraps_like_int32(void **state) {
  (void)state;
  qcase c = {false, ISA_INT8, ISA_INT8, 1, 2, 65535, 3, ZP_TENSOR, ZP_TENSOR, 127, 127, -128, -128,
             -128, -128, 127, 127, 9};
  qdata d;
  make_data(&c, &d);
  /* by hand: 65535 * -65025 = -4261413375 = -2^32 + 33553921 */
  for (int e = 0; e < 6; e++) assert_int_equal(d.want[e], 33553921);
  qdata_free(&d);
  run_checked(&c, 2);
}

/* precision=fixpipe: the fixpipe requantizes, so the column part must be in the accumulator: the
 * AIVs compute the bias, every core passes one SyncAll before the cube reads it, and no tile is
 * handed over (test_qmatmul_sim checks these outputs against its own REQ8 reference; here the
 * operator's reference, which computes the bias on the host). */
static void test_qmm_aiv_fixpipe_bias_from_the_aivs(void **state) {
  (void)state;
  qcase c = {true, ISA_INT8, ISA_INT8, 1, 40, 77, 50, ZP_TENSOR, ZP_TENSOR, -7, -7, 0, 0, -128, 127, -128, 127, 31};
  qdata d;
  make_data(&c, &d);
  chip h = {3, false, UINT64_MAX, NULL};
  kn_ctx *ctx = make_ctx(&c, &d, &h);
  cs_err err;
  assert_int_equal(kn_ctx_set_attr(ctx, "precision", "fixpipe", &err), CS_OK);
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("run: %s", err.msg);
  const sim_result *res = rt_device_result(kn_device(ctx));
  split s = work_split(res, 3);
  assert_int_equal(res->hazard_count, 0);
  assert_int_equal(s.aic_vector, 0);
  assert_true(s.aiv_vector > 0);
  assert_int_equal(s.aic_sync, s.aics_ran);
  assert_int_equal(s.aiv_sync, s.aivs_ran);
  assert_int_equal(s.aic_sets, 0);
  assert_int_equal(s.aiv_waits, 0);
  assert_int_equal(s.aiv_vbrcb, 0); /* no row sums */
  assert_non_null(strstr(kn_ctx_notes(ctx), "the column sums of b' and the bias the cube starts from"));
  if (kn_ctx_reference(ctx, &err) != CS_OK) fail_msg("reference: %s", err.msg);
  const kn_tensor *got = kn_ctx_output(ctx, "y"), *want = kn_ctx_reference_output(ctx, "y");
  assert_int_equal(got->count, want->count);
  assert_memory_equal(got->data, want->data, got->count);
  kn_ctx_destroy(ctx);
  qdata_free(&d);
}

/* Without the AIVs' wait for the cube's flag, an AIV reads a tile before the fixpipe wrote it:
 * the cross-core check reports the RAW race, whatever the flag latency. */
static void test_qmm_aiv_no_wait_is_a_race(void **state) {
  (void)state;
  static const uint64_t flag_cycles[3] = {0, 100, 20000};
  qcase c = {false, ISA_INT8, ISA_INT8, 1, 64, 32, 64, ZP_TENSOR, ZP_TENSOR, 3, 3, 7, 7, -128, 127, -128, 127, 11};
  qdata d;
  make_data(&c, &d);
  for (int t = 0; t < 3; t++) {
    chip h = {4, false, flag_cycles[t], "no_wait"};
    kn_ctx *ctx = make_ctx(&c, &d, &h);
    cs_err err;
    assert_int_equal(kn_ctx_run(ctx, &err), CS_EHAZARD);
    const sim_result *res = rt_device_result(kn_device(ctx));
    assert_true(res->hazard_count > 0);
    const sim_hazard *hz = &res->hazards[0];
    assert_true(hz->cross_core);
    assert_int_equal(hz->kind, SIM_HAZARD_RAW);
    assert_int_equal(hz->earlier_op, ISA_OP_FIXPIPE);
    assert_int_equal(hz->later_op, ISA_OP_COPY_GM_UB);
    assert_true(hz->earlier_core < 4);
    assert_int_equal(strncmp(hz->core_name, "AIV ", 4), 0);
    kn_ctx_destroy(ctx);
    /* the same with the flags: no hazard */
    chip ok = {4, false, flag_cycles[t], "flags"};
    ctx = make_ctx(&c, &d, &ok);
    assert_int_equal(kn_ctx_run(ctx, &err), CS_OK);
    assert_int_equal(rt_device_result(kn_device(ctx))->hazard_count, 0);
    assert_output(&c, kn_ctx_output(ctx, "Y"), &d);
    kn_ctx_destroy(ctx);
  }
  qdata_free(&d);
}

/* A timing-only run records the same instructions and takes the same time as the run with data. */
static void test_qmm_aiv_timing_only(void **state) {
  (void)state;
  qcase cases[2] = {
      {false, ISA_UINT8, ISA_UINT8, 2, 45, 70, 130, ZP_VECTOR, ZP_VECTOR, 0, 255, 0, 255, 0, 255, 0, 255, 21},
      {true, ISA_UINT8, ISA_INT8, 1, 33, 129, 65, ZP_TENSOR, ZP_TENSOR, 3, 3, 5, 5, 0, 255, -128, 127, 22},
  };
  for (int i = 0; i < 2; i++) {
    qdata d;
    make_data(&cases[i], &d);
    uint64_t cycles[2], ops[2][ISA_OP_COUNT];
    for (int to = 0; to < 2; to++) {
      chip h = {3, to == 1, UINT64_MAX, NULL};
      kn_ctx *ctx = make_ctx(&cases[i], &d, &h);
      cs_err err;
      if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("timing_only %d: %s", to, err.msg);
      const sim_result *res = rt_device_result(kn_device(ctx));
      assert_int_equal(res->stats.cores, 9);
      cycles[to] = res->total_cycles;
      memset(ops[to], 0, sizeof ops[to]);
      for (unsigned k = 0; k < res->stats.cores; k++)
        for (int op = 0; op < ISA_OP_COUNT; op++) ops[to][op] += res->stats.core[k].op_count[op];
      if (!to) {
        assert_output(&cases[i], kn_ctx_output(ctx, cases[i].qlinear ? "y" : "Y"), &d);
        check_split(&cases[i], &d, res, 3);
      }
      kn_ctx_destroy(ctx);
    }
    assert_int_equal(cycles[1], cycles[0]);
    for (int op = 0; op < ISA_OP_COUNT; op++) assert_int_equal(ops[1][op], ops[0][op]);
    assert_true(ops[0][ISA_OP_VCAST] > 0);
    qdata_free(&d);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_qmm_aiv_both_zero_points),
      cmocka_unit_test(test_qmm_aiv_per_row_and_column_zero_points),
      cmocka_unit_test(test_qmm_aiv_one_part_or_none),
      cmocka_unit_test(test_qmm_aiv_wraps_like_int32),
      cmocka_unit_test(test_qmm_aiv_fixpipe_bias_from_the_aivs),
      cmocka_unit_test(test_qmm_aiv_no_wait_is_a_race),
      cmocka_unit_test(test_qmm_aiv_timing_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
