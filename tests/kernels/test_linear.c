/* Tests of ATB Linear (kernels/kn_linear.c) through the operator driver (kn_ctx): the seed's
 * worked example bit for bit, a matrix of layouts, biases, scales, batches, tails and tilings
 * compared bit for bit with a reference written here (int64 dot products, then the documented
 * dequantization of docs/DESIGN.md §5.3) and with the operator's own reference, and every
 * input error with its code and message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kn_op.h"
#include "runtime/rt_host.h"
#include "sim/sim.h"
#include "support/kn_test.h"
#include "support/ref_num.h"
#include "support/rng.h"

/* ---- the seed's worked example (seed 002) --------------------------------------------------- */

/* x = [[1, 2], [3, 4]], weight = [[1, 2, 3], [4, 5, 6]], bias = [1, 2, 3], deq_scale = [1, 2, 3]:
 * (1*1 + 2*4 + 1)*1 = 10, (1*2 + 2*5 + 2)*2 = 28, (1*3 + 2*6 + 3)*3 = 54, and row 2 gives
 * (3 + 16 + 1)*1 = 20, (6 + 20 + 2)*2 = 56, (9 + 24 + 3)*3 = 108. In fp16: 10 = 1.25*2^3 ->
 * 0x4900, 28 = 1.75*2^4 -> 0x4F00, 54 = 1.6875*2^5 -> 0x52C0, 20 = 1.25*2^4 -> 0x4D00,
 * 56 = 1.75*2^5 -> 0x5300, 108 = 1.6875*2^6 -> 0x56C0. */
static const int8_t seed_x[4] = {1, 2, 3, 4};
static const int8_t seed_w[6] = {1, 2, 3, 4, 5, 6};
static const int32_t seed_bias[3] = {1, 2, 3};
static const float seed_scale[3] = {1, 2, 3};
static const uint16_t seed_fp16[6] = {0x4900, 0x4F00, 0x52C0, 0x4D00, 0x5300, 0x56C0};
static const float seed_values[6] = {10, 28, 54, 20, 56, 108};

static void put_seed(kt_runner *r, bool words) {
  const uint64_t sx[2] = {2, 2}, sw[2] = {2, 3}, sb[1] = {3};
  kt_put_ok(r, "x", ISA_INT8, 2, sx, seed_x);
  kt_put_ok(r, "weight", ISA_INT8, 2, sw, seed_w);
  kt_put_ok(r, "bias", ISA_INT32, 1, sb, seed_bias);
  if (!words) {
    kt_put_ok(r, "deq_scale", ISA_FP32, 1, sb, seed_scale);
  } else { /* the documented packing of 1, 2, 3: the fp32 bits with bit 46 set */
    const uint64_t w[3] = {UINT64_C(0x00004000) << 32 | 0x3F800000u, UINT64_C(0x00004000) << 32 | 0x40000000u,
                           UINT64_C(0x00004000) << 32 | 0x40400000u};
    kt_put_ok(r, "deq_scale", ISA_UINT64, 1, sb, w);
  }
}

static void test_linear_seed_example_fp16(void **state) {
  (void)state;
  for (int words = 0; words < 2; words++) {
    kt_runner r;
    kt_init(&r, "linear", 0);
    put_seed(&r, words);
    kt_run_ok(&r);
    const kn_tensor *out = kn_ctx_output(r.ctx, "output");
    assert_non_null(out);
    assert_int_equal(out->dtype, ISA_FP16);
    assert_int_equal(out->ndim, 2);
    assert_int_equal(out->shape[0], 2);
    assert_int_equal(out->shape[1], 3);
    const uint16_t *h = out->data;
    for (int i = 0; i < 6; i++) assert_int_equal(h[i], seed_fp16[i]);
    kt_own_reference_agrees(&r, "output");
    kt_free(&r);
  }
}

static void test_linear_seed_example_bf16(void **state) {
  (void)state;
  const char *names[2] = {"bf16", "bfloat16"};
  for (int words = 0; words < 2; words++) {
    kt_runner r;
    kt_init(&r, "linear", 0);
    kt_set_attr(&r, "out_dtype", names[words]);
    put_seed(&r, words);
    kt_run_ok(&r);
    const kn_tensor *out = kn_ctx_output(r.ctx, "output");
    assert_int_equal(out->dtype, ISA_BF16);
    const float *f = out->data; /* bf16 held as fp32 */
    for (int i = 0; i < 6; i++) {
      assert_true(f[i] == seed_values[i]);
      assert_int_equal(ref_f32_bits(f[i]) & 0xFFFF, 0);
    }
    kt_own_reference_agrees(&r, "output");
    kt_free(&r);
  }
}

/* ---- the case matrix ------------------------------------------------------------------------ */

enum { BIAS_NONE, BIAS_N, BIAS_1N, BIAS_BN };
enum { SC_N, SC_1N, SC_BN, SC_1 };
enum { SCALES_SMALL, SCALES_HUGE };

typedef struct lin_case {
  uint32_t batch;      /* > 1: x is 3-D */
  bool x3;             /* x 3-D even with batch 1 */
  uint32_t m, n, k;
  bool ta, tb, nz;
  bool w_batched;      /* weight has one matrix per batch */
  int bias;            /* BIAS_* */
  int scale;           /* SC_* */
  bool words;          /* deq_scale as uint64 words (all 32 scale bits kept, bit 46 set) */
  bool bf16;
  int magnitude;       /* SCALES_* */
  const char *base_m, *base_n, *base_k, *step_k;
  uint64_t seed;
  uint64_t ub_bytes;   /* 0: the 910B's UB */
} lin_case;

typedef struct lin_data {
  int8_t *X, *W;       /* logical X[b][i][kk], W[b][kk][j] */
  int32_t *bias;       /* [nb][n] */
  float *scale;        /* [ns][n] (ns = 1 for SC_1, with n = 1 there) */
  uint64_t *word;
  uint32_t wb, bb, sb, sn; /* batches of weight, bias, scale; scale elements per batch */
} lin_data;

static void lin_data_free(lin_data *d) {
  free(d->X);
  free(d->W);
  free(d->bias);
  free(d->scale);
  free(d->word);
}

/* Builds the logical data and the stored inputs of case c, and sets them on r. */
static void lin_build(kt_runner *r, const lin_case *c, lin_data *d) {
  uint64_t st = c->seed ? c->seed : 7;
  uint32_t B = c->batch, m = c->m, n = c->n, k = c->k;
  memset(d, 0, sizeof *d);
  d->wb = c->w_batched ? B : 1;
  d->bb = c->bias == BIAS_BN ? B : 1;
  d->sb = c->scale == SC_BN ? B : 1;
  d->sn = c->scale == SC_1 ? 1 : n;
  d->X = malloc((size_t)B * m * k);
  d->W = malloc((size_t)d->wb * k * n);
  d->bias = calloc((size_t)d->bb * n, 4);
  d->scale = calloc((size_t)d->sb * d->sn, 4);
  d->word = calloc((size_t)d->sb * d->sn, 8);
  for (size_t i = 0; i < (size_t)B * m * k; i++) d->X[i] = (int8_t)rng_lcg_int(&st, -128, 127);
  for (size_t i = 0; i < (size_t)d->wb * k * n; i++) d->W[i] = (int8_t)rng_lcg_int(&st, -128, 127);
  for (size_t i = 0; i < (size_t)d->bb * n; i++) d->bias[i] = rng_lcg_int(&st, -40000, 40000);
  for (size_t i = 0; i < (size_t)d->sb * d->sn; i++) {
    /* arbitrary low mantissa bits, so the fp19 truncation shows; both signs */
    double base = c->magnitude == SCALES_HUGE ? 3.0 : 1.0 / (64.0 * 128.0 * sqrt((double)k));
    float v = (float)(base * (0.5 + (double)rng_lcg(&st) / 9007199254740992.0));
    if (rng_lcg(&st) & 1) v = -v;
    d->scale[i] = v;
    d->word[i] = (UINT64_C(1) << 46) | ref_f32_bits(v); /* the "no mask" host packer: 32 bits kept */
  }
  /* x, stored [b?][m][k] or [b?][k][m] */
  int8_t *xs = malloc((size_t)B * m * k);
  for (uint32_t b = 0; b < B; b++)
    for (uint32_t i = 0; i < m; i++)
      for (uint32_t kk = 0; kk < k; kk++) {
        size_t src = ((size_t)b * m + i) * k + kk;
        size_t dst = c->ta ? ((size_t)b * k + kk) * m + i : src;
        xs[dst] = d->X[src];
      }
  uint64_t shape[4];
  uint32_t nd = 0;
  if (c->batch > 1 || c->x3) shape[nd++] = B;
  shape[nd++] = c->ta ? k : m;
  shape[nd++] = c->ta ? m : k;
  kt_put_ok(r, "x", ISA_INT8, nd, shape, xs);
  free(xs);
  /* weight: ND [b?][k][n] / [b?][n][k], or NZ [wb][n/32][k][32] / [wb][k/32][n][32] built here */
  int8_t *ws = calloc((size_t)d->wb * k * n, 1);
  for (uint32_t b = 0; b < d->wb; b++)
    for (uint32_t kk = 0; kk < k; kk++)
      for (uint32_t j = 0; j < n; j++) {
        size_t dst;
        if (!c->nz) dst = c->tb ? ((size_t)b * n + j) * k + kk : ((size_t)b * k + kk) * n + j;
        else if (!c->tb) dst = (((size_t)b * (n / 32) + j / 32) * k + kk) * 32 + j % 32;
        else dst = (((size_t)b * (k / 32) + kk / 32) * n + j) * 32 + kk % 32;
        ws[dst] = d->W[((size_t)b * k + kk) * n + j];
      }
  nd = 0;
  if (!c->nz) {
    if (c->w_batched) shape[nd++] = B;
    shape[nd++] = c->tb ? n : k;
    shape[nd++] = c->tb ? k : n;
  } else {
    shape[nd++] = d->wb;
    shape[nd++] = c->tb ? k / 32 : n / 32;
    shape[nd++] = c->tb ? n : k;
    shape[nd++] = 32;
  }
  kt_put_ok(r, "weight", ISA_INT8, nd, shape, ws);
  free(ws);
  if (c->bias != BIAS_NONE) {
    nd = 0;
    if (c->bias == BIAS_1N) shape[nd++] = 1;
    if (c->bias == BIAS_BN) shape[nd++] = B;
    shape[nd++] = n;
    kt_put_ok(r, "bias", ISA_INT32, nd, shape, d->bias);
  }
  nd = 0;
  if (c->scale == SC_1N) shape[nd++] = 1;
  if (c->scale == SC_BN) shape[nd++] = B;
  shape[nd++] = d->sn;
  if (c->words) kt_put_ok(r, "deq_scale", ISA_UINT64, nd, shape, d->word);
  else kt_put_ok(r, "deq_scale", ISA_FP32, nd, shape, d->scale);
  if (c->nz) kt_set_attr(r, "weight_format", "nz");
  if (c->ta) kt_set_attr(r, "transpose_a", "true");
  if (c->tb) kt_set_attr(r, "transpose_b", "true");
  if (c->bf16) kt_set_attr(r, "out_dtype", "bf16");
  if (c->base_m) kt_set_attr(r, "base_m", c->base_m);
  if (c->base_n) kt_set_attr(r, "base_n", c->base_n);
  if (c->base_k) kt_set_attr(r, "base_k", c->base_k);
  if (c->step_k) kt_set_attr(r, "step_k", c->step_k);
}

/* The accumulator of output (b, i, j): an int64 dot product plus the bias, wrapped to int32. */
static int32_t lin_acc(const lin_case *c, const lin_data *d, uint32_t b, uint32_t i, uint32_t j) {
  int64_t acc = 0;
  uint32_t wb = c->w_batched ? b : 0;
  for (uint32_t kk = 0; kk < c->k; kk++)
    acc += (int64_t)d->X[((size_t)b * c->m + i) * c->k + kk] * d->W[((size_t)wb * c->k + kk) * c->n + j];
  if (c->bias != BIAS_NONE) acc += d->bias[(size_t)(c->bias == BIAS_BN ? b : 0) * c->n + j];
  return (int32_t)(uint32_t)(uint64_t)acc;
}

static size_t lin_scale_index(const lin_case *c, uint32_t b, uint32_t j) {
  if (c->scale == SC_1) return 0;
  return (size_t)(c->scale == SC_BN ? b : 0) * c->n + j;
}

/* docs/DESIGN.md §5.3: fp16 = fp16_rne_sat(fp32(acc) * fp19(scale)); bf16 = bf16_rne(fp32(acc) *
 * scale) with the full fp32 scale (a word's low 32 bits). Returns the output's bits (bf16: the
 * fp32 bits the host tensor holds). */
static uint32_t lin_expected(const lin_case *c, const lin_data *d, uint32_t b, uint32_t i, uint32_t j) {
  int32_t acc = lin_acc(c, d, b, i, j);
  size_t si = lin_scale_index(c, b, j);
  float x = (float)acc; /* int32 -> fp32, round to nearest even */
  if (!c->bf16) {
    float m1 = c->words ? ref_word_fp19(d->word[si]) : ref_f32_of_bits(ref_f32_bits(d->scale[si]) & 0xFFFFE000u);
    return ref_f16_rne(x * m1, true);
  }
  float s = c->words ? ref_f32_of_bits((uint32_t)d->word[si]) : d->scale[si];
  return (uint32_t)ref_bf16_rne(x * s, false) << 16;
}

/* Runs case c and compares every element with lin_expected and with the operator's reference.
 * Returns how many fp16 elements would differ had the full fp32 scale been used (0 for bf16). */
static unsigned run_case(const lin_case *c) {
  kt_runner r;
  kt_init(&r, "linear", c->ub_bytes);
  lin_data d;
  lin_build(&r, c, &d);
  kt_run_ok(&r);
  const kn_tensor *out = kn_ctx_output(r.ctx, "output");
  assert_non_null(out);
  assert_int_equal(out->dtype, c->bf16 ? ISA_BF16 : ISA_FP16);
  bool o3 = c->batch > 1 || c->x3;
  assert_int_equal(out->ndim, o3 ? 3 : 2);
  if (o3) assert_int_equal(out->shape[0], c->batch);
  assert_int_equal(out->shape[out->ndim - 2], c->m);
  assert_int_equal(out->shape[out->ndim - 1], c->n);
  unsigned truncation_shows = 0;
  for (uint32_t b = 0; b < c->batch; b++)
    for (uint32_t i = 0; i < c->m; i++)
      for (uint32_t j = 0; j < c->n; j++) {
        size_t idx = ((size_t)b * c->m + i) * c->n + j;
        uint32_t got = c->bf16 ? ref_f32_bits(((const float *)out->data)[idx]) : ((const uint16_t *)out->data)[idx];
        uint32_t want = lin_expected(c, &d, b, i, j);
        if (got != want)
          fail_msg("output[%u, %u, %u]: got 0x%x, expected 0x%x (acc %d)", b, i, j, got, want, lin_acc(c, &d, b, i, j));
        if (!c->bf16) {
          size_t si = lin_scale_index(c, b, j);
          float full = c->words ? ref_f32_of_bits((uint32_t)d.word[si]) : d.scale[si];
          if (ref_f16_rne((float)lin_acc(c, &d, b, i, j) * full, true) != want) truncation_shows++;
        }
      }
  if (c->bf16) { /* a MIX launch: the 4 AI cores compute, their AIVs (cores 4..11) dequantize */
    const sim_result *res = rt_device_result(kn_device(r.ctx));
    assert_int_equal(res->stats.cores, 4 + 8);
    assert_int_equal(res->hazard_count, 0);
    uint64_t sets = 0, waits = 0, aiv_vdeq = 0;
    for (unsigned k = 0; k < res->stats.cores; k++) {
      const sim_core_stats *cs = &res->stats.core[k];
      if (k < 4) {
        assert_int_equal(cs->op_count[ISA_OP_VDEQ], 0);
        assert_int_equal(cs->op_count[ISA_OP_COPY_GM_UB], 0);
        sets += cs->op_count[ISA_OP_CROSS_SET_FLAG];
      } else {
        aiv_vdeq += cs->op_count[ISA_OP_VDEQ];
        waits += cs->op_count[ISA_OP_CROSS_WAIT_FLAG];
        assert_int_equal(cs->op_count[ISA_OP_MMAD], 0);
      }
    }
    assert_true(sets > 0);
    assert_int_equal(waits, 2 * sets); /* each tile's flag raises both AIVs of its AI core */
    assert_true(aiv_vdeq >= sets);
  }
  kt_own_reference_agrees(&r, "output");
  lin_data_free(&d);
  kt_free(&r);
  return truncation_shows;
}

/* Transposes, bias, scale kinds and both outputs, on a shape with every tail (37 x 50 x 45). */
static void test_linear_layouts_bias_and_scales_nd(void **state) {
  (void)state;
  unsigned shows = 0;
  for (unsigned v = 0; v < 32; v++) {
    lin_case c = {1, false, 37, 50, 45, (v & 1) != 0, (v & 2) != 0, false, false,
                  (v & 4) ? BIAS_N : BIAS_NONE, SC_N, (v & 8) != 0, (v & 16) != 0, SCALES_SMALL,
                  NULL, NULL, NULL, NULL, 100 + v, 0};
    shows += run_case(&c);
  }
  assert_true(shows > 0); /* the fp19 truncation made a difference somewhere */
}

/* NZ weight: n a multiple of 32 and k of 16 ([1, n/32, k, 32]); transposed, k of 32 and n of 16
 * ([1, k/32, n, 32]). */
static void test_linear_nz_weight(void **state) {
  (void)state;
  for (unsigned v = 0; v < 32; v++) {
    bool tb = v & 1;
    lin_case c = {1, false, 21, tb ? 48 : 64, tb ? 64 : 48, (v & 2) != 0, tb, true, false,
                  (v & 4) ? BIAS_1N : BIAS_NONE, SC_1N, (v & 8) != 0, (v & 16) != 0, SCALES_SMALL,
                  NULL, NULL, NULL, NULL, 200 + v, 0};
    run_case(&c);
  }
}

/* Per tensor: deq_scale [1] (DEQF16's scalar word, or one scale broadcast by the epilogue). */
static void test_linear_per_tensor_scale(void **state) {
  (void)state;
  for (unsigned v = 0; v < 4; v++) {
    lin_case c = {1, false, 20, 33, 70, false, false, false, false, BIAS_N, SC_1, (v & 1) != 0, (v & 2) != 0,
                  SCALES_SMALL, NULL, NULL, NULL, NULL, 300 + v, 0};
    run_case(&c);
  }
}

/* Batch 3: batched weight, bias and scales, and the 2-D / [n] / [1, n] ones broadcast. */
static void test_linear_batch(void **state) {
  (void)state;
  const lin_case cases[] = {
      {3, true, 17, 40, 33, false, false, false, true, BIAS_BN, SC_BN, false, false, SCALES_SMALL, NULL, NULL, NULL, NULL, 401, 0},
      {3, true, 17, 40, 33, false, false, false, true, BIAS_BN, SC_BN, true, true, SCALES_SMALL, NULL, NULL, NULL, NULL, 402, 0},
      {3, true, 17, 40, 33, true, true, false, false, BIAS_N, SC_N, false, false, SCALES_SMALL, NULL, NULL, NULL, NULL, 403, 0},
      {3, true, 17, 40, 33, false, true, false, false, BIAS_1N, SC_1N, true, true, SCALES_SMALL, NULL, NULL, NULL, NULL, 404, 0},
      {3, true, 17, 40, 33, false, false, false, true, BIAS_N, SC_1, false, true, SCALES_SMALL, NULL, NULL, NULL, NULL, 405, 0},
      {3, true, 17, 64, 48, false, false, true, true, BIAS_BN, SC_BN, false, false, SCALES_SMALL, NULL, NULL, NULL, NULL, 406, 0},
      {3, true, 17, 64, 48, false, false, true, false, BIAS_NONE, SC_N, true, true, SCALES_SMALL, NULL, NULL, NULL, NULL, 407, 0},
      {1, true, 17, 40, 33, false, false, false, true, BIAS_BN, SC_BN, false, false, SCALES_SMALL, NULL, NULL, NULL, NULL, 408, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
}

/* M = 1, N = 1, K = 1, and N > 256: the per-column words go through the 2 KiB FB in chunks. */
static void test_linear_edges_and_fb_chunks(void **state) {
  (void)state;
  const lin_case cases[] = {
      {1, false, 1, 50, 45, false, false, false, false, BIAS_N, SC_N, false, false, SCALES_SMALL, NULL, NULL, NULL, NULL, 501, 0},
      {1, false, 1, 50, 45, true, true, false, false, BIAS_N, SC_N, true, true, SCALES_SMALL, NULL, NULL, NULL, NULL, 502, 0},
      {1, false, 1, 1, 1, false, false, false, false, BIAS_N, SC_N, false, false, SCALES_SMALL, NULL, NULL, NULL, NULL, 503, 0},
      {1, false, 9, 300, 40, false, false, false, false, BIAS_N, SC_N, false, false, SCALES_SMALL, NULL, NULL, NULL, NULL, 504, 0},
      {1, false, 9, 300, 40, false, true, false, false, BIAS_NONE, SC_N, true, true, SCALES_SMALL, NULL, NULL, NULL, NULL, 505, 0},
      {1, false, 9, 600, 40, false, false, false, false, BIAS_N, SC_N, true, false, SCALES_SMALL, NULL, NULL, NULL, NULL, 506, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
}

/* Tiling attributes: small tiles, several K chunks per tile, base_n not dividing n. */
static void test_linear_custom_tiling(void **state) {
  (void)state;
  const lin_case cases[] = {
      {1, false, 37, 50, 100, false, false, false, false, BIAS_N, SC_N, false, false, SCALES_SMALL, "16", "32", "32", "2", 601, 0},
      {2, false, 37, 50, 100, true, true, false, true, BIAS_BN, SC_BN, true, true, SCALES_SMALL, "32", "16", "64", "1", 602, 0},
      {1, false, 40, 96, 96, false, false, true, false, BIAS_N, SC_N, false, false, SCALES_SMALL, "16", "64", "32", "3", 603, 0},
      {1, false, 37, 50, 100, false, false, false, false, BIAS_N, SC_N, false, false, SCALES_SMALL, NULL, NULL, "96", NULL, 604, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
}

/* bf16 on a 16 KiB UB: the epilogue, on the AIVs, takes (16384 - 1024 - 256) / (2 x (1024 + 512))
 * = 4 rows of a 256-column tile at a time, so each AIV's half of a tile goes through its UB in
 * several row chunks. */
static void test_linear_bf16_epilogue_in_row_chunks(void **state) {
  (void)state;
  const lin_case cases[] = {
      {1, false, 40, 300, 64, false, false, false, false, BIAS_N, SC_N, false, true, SCALES_SMALL, NULL, NULL, NULL, NULL, 801, 16384},
      {2, false, 37, 300, 45, true, true, false, true, BIAS_BN, SC_BN, true, true, SCALES_SMALL, NULL, NULL, NULL, NULL, 802, 16384},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
  /* a UB without room for one row is a fault that says so */
  kt_runner r;
  kt_init(&r, "linear", 1024);
  lin_case c = cases[0];
  c.base_n = "256";
  lin_data d;
  lin_build(&r, &c, &d);
  cs_err e;
  assert_int_equal(kn_ctx_run(r.ctx, &e), CS_EFAULT);
  /* the AIVs run the epilogue: core 4 is AIV 0.0 on this 4-AI-core chip */
  assert_string_equal(e.msg, "core 4, before its first instruction: linear epilogue: UB cannot hold one row of 256 "
                             "columns [runtime]");
  lin_data_free(&d);
  kt_free(&r);
}

/* Large scales: fp16 saturates to +-65504 (0x7BFF / 0xFBFF) in the fixpipe; bf16 has room. */
static void test_linear_fp16_saturates(void **state) {
  (void)state;
  lin_case c = {1, false, 16, 32, 64, false, false, false, false, BIAS_N, SC_N, false, false, SCALES_HUGE,
                NULL, NULL, NULL, NULL, 701, 0};
  kt_runner r;
  kt_init(&r, "linear", 0);
  lin_data d;
  lin_build(&r, &c, &d);
  kt_run_ok(&r);
  const uint16_t *h = kn_ctx_output(r.ctx, "output")->data;
  unsigned saturated = 0;
  for (uint32_t i = 0; i < c.m * c.n; i++) {
    assert_int_equal(h[i], lin_expected(&c, &d, 0, i / c.n, i % c.n));
    saturated += (h[i] & 0x7FFF) == 0x7BFF;
  }
  assert_true(saturated > 100);
  lin_data_free(&d);
  kt_free(&r);
  c.bf16 = true;
  run_case(&c);
  c.words = true;
  c.bf16 = false;
  run_case(&c);
}

/* Generated inputs (make_inputs) are deterministic and agree with the reference too. */
static void test_linear_generated_inputs(void **state) {
  (void)state;
  kt_runner r;
  kt_init(&r, "linear", 0);
  kt_set_attr(&r, "m", "24");
  kt_set_attr(&r, "n", "40");
  kt_set_attr(&r, "k", "64");
  kt_set_attr(&r, "batch", "2");
  kt_set_attr(&r, "deq_scale_dtype", "uint64");
  kt_run_ok(&r);
  const kn_tensor *x = kn_input(r.ctx, "x"), *w = kn_input(r.ctx, "weight"), *q = kn_input(r.ctx, "deq_scale");
  assert_int_equal(x->ndim, 3);
  assert_int_equal(x->shape[0], 2);
  assert_int_equal(x->shape[1], 24);
  assert_int_equal(x->shape[2], 64);
  assert_int_equal(w->shape[1], 64);
  assert_int_equal(w->shape[2], 40);
  assert_int_equal(q->dtype, ISA_UINT64);
  assert_non_null(kn_input(r.ctx, "bias"));
  kt_own_reference_agrees(&r, "output");
  kt_free(&r);
}

/* ---- errors --------------------------------------------------------------------------------- */

static void seed_with(kt_runner *r, const uint64_t *sx, uint32_t ndx, const uint64_t *sw, uint32_t ndw) {
  static const int8_t zeros[256];
  kt_put_ok(r, "x", ISA_INT8, ndx, sx, zeros);
  kt_put_ok(r, "weight", ISA_INT8, ndw, sw, zeros);
}

static void test_linear_error_shapes(void **state) {
  (void)state;
  static const int8_t z8[256];
  static const int32_t z32[16];
  float ones[64];
  for (int i = 0; i < 64; i++) ones[i] = 1;
  kt_runner r;
  /* k of x vs weight */
  kt_init(&r, "linear", 0);
  {
    const uint64_t sx[2] = {2, 3}, sw[2] = {4, 5}, sq[1] = {5};
    seed_with(&r, sx, 2, sw, 2);
    kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, ones);
    kt_run_fails(&r, CS_EINVAL, "weight: shape [4, 5] has k = 4 but x has k = 3");
  }
  kt_free(&r);
  /* with transpose_b the weight is [n, k] */
  kt_init(&r, "linear", 0);
  {
    const uint64_t sx[2] = {2, 3}, sw[2] = {3, 5}, sq[1] = {5};
    kt_set_attr(&r, "transpose_b", "true");
    seed_with(&r, sx, 2, sw, 2);
    kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, ones);
    kt_run_fails(&r, CS_EINVAL, "weight: shape [3, 5] has k = 5 but x has k = 3");
  }
  kt_free(&r);
  /* bias length */
  kt_init(&r, "linear", 0);
  {
    const uint64_t sx[3] = {2, 2, 3}, sw[2] = {3, 5}, sb[1] = {4}, sq[1] = {5};
    seed_with(&r, sx, 3, sw, 2);
    kt_put_ok(&r, "bias", ISA_INT32, 1, sb, z32);
    kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, ones);
    kt_run_fails(&r, CS_EINVAL, "bias: shape [4]; expected [5], [1, 5] or [2, 5]");
  }
  kt_free(&r);
  /* bias batch */
  kt_init(&r, "linear", 0);
  {
    const uint64_t sx[3] = {2, 2, 3}, sw[2] = {3, 5}, sb[2] = {3, 5}, sq[1] = {5};
    seed_with(&r, sx, 3, sw, 2);
    kt_put_ok(&r, "bias", ISA_INT32, 2, sb, z32);
    kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, ones);
    kt_run_fails(&r, CS_EINVAL, "bias: shape [3, 5]; expected [5], [1, 5] or [2, 5]");
  }
  kt_free(&r);
  /* deq_scale length */
  kt_init(&r, "linear", 0);
  {
    const uint64_t sx[2] = {2, 3}, sw[2] = {3, 5}, sq[1] = {4};
    seed_with(&r, sx, 2, sw, 2);
    kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, ones);
    kt_run_fails(&r, CS_EINVAL, "deq_scale: shape [4]; expected [5], [1, 5], [1, 5] or [1]");
  }
  kt_free(&r);
  /* batch of x vs weight */
  kt_init(&r, "linear", 0);
  {
    const uint64_t sx[3] = {2, 2, 3}, sw[3] = {3, 3, 5}, sq[1] = {5};
    seed_with(&r, sx, 3, sw, 3);
    kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, ones);
    kt_run_fails(&r, CS_EINVAL, "weight: batch 3 but x has batch 2");
  }
  kt_free(&r);
  /* x must be 2-D or 3-D */
  kt_init(&r, "linear", 0);
  {
    const uint64_t sx[1] = {6}, sw[2] = {3, 5}, sq[1] = {5};
    seed_with(&r, sx, 1, sw, 2);
    kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, ones);
    kt_run_fails(&r, CS_EINVAL, "x: shape [6]; expected [m, k] or [batch, m, k]");
  }
  kt_free(&r);
  /* NZ weight with ATB's 16-wide fractals */
  kt_init(&r, "linear", 0);
  {
    const uint64_t sx[2] = {2, 32}, sw[4] = {1, 2, 32, 16}, sq[1] = {32};
    kt_set_attr(&r, "weight_format", "nz");
    kt_put_ok(&r, "x", ISA_INT8, 2, sx, z8);
    kt_put_ok(&r, "weight", ISA_INT8, 4, sw, NULL);
    kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, ones);
    kt_run_fails(&r, CS_EINVAL,
                 "weight: NZ shape [1, 2, 32, 16] has fractal width 16; cubesim takes int8 NZ with C0 = 32 ([1, n/32, k, 32], "
                 "the hardware's 32-byte fractal rows; ATB's document writes it 16 wide)");
  }
  kt_free(&r);
  /* NZ weight whose k is not a multiple of 16 */
  kt_init(&r, "linear", 0);
  {
    const uint64_t sx[2] = {2, 8}, sw[4] = {1, 1, 8, 32}, sq[1] = {32};
    kt_set_attr(&r, "weight_format", "nz");
    kt_put_ok(&r, "x", ISA_INT8, 2, sx, z8);
    kt_put_ok(&r, "weight", ISA_INT8, 4, sw, z8);
    kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, ones);
    kt_run_fails(&r, CS_EINVAL, "weight: NZ needs n a multiple of 32 and k of 16 (ATB); here n = 32, k = 8");
  }
  kt_free(&r);
}

static void test_linear_error_dtypes(void **state) {
  (void)state;
  kt_runner r;
  kt_init(&r, "linear", 0);
  const uint64_t sx[2] = {2, 2};
  const float xf[4] = {1, 2, 3, 4};
  assert_int_equal(kt_put(&r, "x", ISA_FP32, 2, sx, xf), CS_EINVAL);
  assert_string_equal(r.err.msg, "linear: input 'x' is fp32, expected one of int8");
  assert_null(kn_input(r.ctx, "x"));
  const int32_t b64[2] = {1, 2};
  const uint64_t sb[1] = {2};
  assert_int_equal(kt_put(&r, "bias", ISA_FP32, 1, sb, b64), CS_EINVAL);
  assert_string_equal(r.err.msg, "linear: input 'bias' is fp32, expected one of int32");
  assert_int_equal(kt_put(&r, "deq_scale", ISA_INT32, 1, sb, b64), CS_EINVAL);
  assert_string_equal(r.err.msg, "linear: input 'deq_scale' is int32, expected one of fp32,int64,uint64");
  assert_int_equal(kt_put(&r, "nope", ISA_INT8, 1, sb, b64), CS_EINVAL);
  assert_string_equal(r.err.msg, "linear has no input 'nope'");
  kt_free(&r);
}

/* Zero, NaN and Inf scales are refused, naming the element; so is a word whose fp19 scale is 0
 * (bits 12..0 only) — although its fp32 value is not 0. */
static void test_linear_error_bad_scales(void **state) {
  (void)state;
  const uint64_t sx[2] = {2, 2}, sw[2] = {2, 3}, sq[1] = {3};
  const float bad[4][3] = {{1, 0, 3}, {NAN, 1, 1}, {1, 1, INFINITY}, {1, -0.0f, 1}};
  const char *msgs[4] = {"deq_scale[1] = 0: a dequant scale must be finite and non-zero",
                         "deq_scale[0] = nan: a dequant scale must be finite and non-zero",
                         "deq_scale[2] = inf: a dequant scale must be finite and non-zero",
                         "deq_scale[1] = -0: a dequant scale must be finite and non-zero"};
  for (int out = 0; out < 2; out++)
    for (int i = 0; i < 4; i++) {
      kt_runner r;
      kt_init(&r, "linear", 0);
      if (out) kt_set_attr(&r, "out_dtype", "bf16");
      kt_put_ok(&r, "x", ISA_INT8, 2, sx, seed_x);
      kt_put_ok(&r, "weight", ISA_INT8, 2, sw, seed_w);
      kt_put_ok(&r, "deq_scale", ISA_FP32, 1, sq, bad[i]);
      kt_run_fails(&r, CS_EINVAL, msgs[i]);
      assert_null(kn_ctx_output(r.ctx, "output"));
      kt_free(&r);
    }
  const uint64_t words[3] = {(UINT64_C(1) << 46) | 0x3F800000u, (UINT64_C(1) << 46) | 0x1FFFu, (UINT64_C(1) << 46) | 0x7F800000u};
  kt_runner r;
  kt_init(&r, "linear", 0);
  kt_put_ok(&r, "x", ISA_INT8, 2, sx, seed_x);
  kt_put_ok(&r, "weight", ISA_INT8, 2, sw, seed_w);
  kt_put_ok(&r, "deq_scale", ISA_UINT64, 1, sq, words);
  kt_run_fails(&r, CS_EINVAL,
               "deq_scale[1] = 0x0000400000001fff: its fp19 scale is 0; a dequant scale must be finite and non-zero "
               "(cubesim quant unpack explains the word)");
  kt_free(&r);
  /* bf16 uses all 32 bits: word 1 is a (tiny) non-zero fp32, word 2 is +Inf */
  kt_init(&r, "linear", 0);
  kt_set_attr(&r, "out_dtype", "bf16");
  kt_put_ok(&r, "x", ISA_INT8, 2, sx, seed_x);
  kt_put_ok(&r, "weight", ISA_INT8, 2, sw, seed_w);
  kt_put_ok(&r, "deq_scale", ISA_UINT64, 1, sq, words);
  kt_run_fails(&r, CS_EINVAL,
               "deq_scale[2] = 0x000040007f800000: its fp32 scale is inf; a dequant scale must be finite and non-zero "
               "(cubesim quant unpack explains the word)");
  kt_free(&r);
}

static void test_linear_error_attributes(void **state) {
  (void)state;
  kt_runner r;
  kt_init(&r, "linear", 0);
  assert_int_equal(kn_ctx_set_attr(r.ctx, "transpose_c", "true", &r.err), CS_EINVAL);
  assert_string_equal(r.err.msg,
                      "linear has no attribute 'transpose_c' (it has: transpose_a, transpose_b, weight_format, out_dtype, "
                      "m, n, k, batch, has_bias, quant_mode, deq_scale_dtype, used_core_num, single_core_m, single_core_n, "
                      "single_core_k, base_m, base_n, base_k, depth_a1, depth_b1, step_m, step_n, step_ka, step_kb, "
                      "iterate_order, db_l0a, db_l0b, db_l0c, l2_split, unit_flag, core_split, const_tiling, api, step_k, tiling)");
  assert_int_equal(kn_ctx_set_attr(r.ctx, "out_dtype", "fp32", &r.err), CS_EINVAL);
  assert_string_equal(r.err.msg, "attribute out_dtype: 'fp32' is not one of fp16,bf16,float16,bfloat16");
  assert_int_equal(kn_ctx_set_attr(r.ctx, "transpose_a", "maybe", &r.err), CS_EINVAL);
  assert_string_equal(r.err.msg, "attribute transpose_a: 'maybe' is not a boolean (true or false)");
  assert_int_equal(kn_ctx_set_attr(r.ctx, "base_k", "3x", &r.err), CS_EINVAL);
  assert_string_equal(r.err.msg, "attribute base_k: '3x' is not an integer");
  kt_free(&r);
}

/* A tiling attribute that does not fit: base_k 4064 with the smallest tile the search can try
 * (16 x 16, one L0B buffer) needs 4064 / 32 = 127 k-blocks of B, whose 16 columns are padded to
 * the 32 of int8's C0 x C0 squares: 127 x 2 fractals x 512 B = 130048 B of a 65536 B L0B. */
static void test_linear_error_tiling_does_not_fit(void **state) {
  (void)state;
  kt_runner r;
  kt_init(&r, "linear", 0);
  put_seed(&r, false);
  kt_set_attr(&r, "base_k", "4064");
  kt_run_fails(&r, CS_EINVAL, "tiling: L0B needs 130048 bytes but has 65536: 1 x 130048 B (db_l0b 1; base_n 16 (padded to 32, "
                              "whole C0 x C0 squares) x base_k 4064 of int8); lower base_n or base_k");
  kt_free(&r);
  kt_init(&r, "linear", 0);
  put_seed(&r, false);
  kt_set_attr(&r, "base_m", "24");
  kt_run_fails(&r, CS_EINVAL, "tiling: base_m = 24 and base_n = 16 must be multiples of 16 (whole fractals)");
  kt_free(&r);
  kt_init(&r, "linear", 0);
  put_seed(&r, false);
  kt_set_attr(&r, "step_k", "0");
  kt_run_fails(&r, CS_EINVAL, "attribute step_k = 0 is out of range [1, 65535]");
  kt_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_linear_seed_example_fp16),
      cmocka_unit_test(test_linear_seed_example_bf16),
      cmocka_unit_test(test_linear_layouts_bias_and_scales_nd),
      cmocka_unit_test(test_linear_nz_weight),
      cmocka_unit_test(test_linear_per_tensor_scale),
      cmocka_unit_test(test_linear_batch),
      cmocka_unit_test(test_linear_edges_and_fb_chunks),
      cmocka_unit_test(test_linear_custom_tiling),
      cmocka_unit_test(test_linear_bf16_epilogue_in_row_chunks),
      cmocka_unit_test(test_linear_fp16_saturates),
      cmocka_unit_test(test_linear_generated_inputs),
      cmocka_unit_test(test_linear_error_shapes),
      cmocka_unit_test(test_linear_error_dtypes),
      cmocka_unit_test(test_linear_error_bad_scales),
      cmocka_unit_test(test_linear_error_attributes),
      cmocka_unit_test(test_linear_error_tiling_does_not_fit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
