/* Tests of the operators on the vector cores (kernels/kn_vec_ops.c, kernels/kn_mm.c's
 * KN_EPI_GELU_AIV): add and gelu on AIV-only launches and matmul_gelu on MIX 1:2, bit-exact
 * against references computed here (tests/support/ref_num: exact values, rounded once; e^x by the
 * host's expl), every tiling of the work over blocks and tiles; matmul_gelu's cross-core flag
 * removed is a race, never set a deadlock, under several timings; and a MIX run's trace has
 * arrows from the AIC's fixpipe to its AIVs; nd2nz (ND -> NZ by vcopy) bit-exact with its UB bank
 * groups by hand; data_copy's GM -> UB path on the AIVs. */
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
#include "sim/sim_trace.h"
#include "support/kn_test.h"
#include "support/ref_num.h"
#include "support/rng.h"
#include "support/tmp_files.h"

/* ---- references --------------------------------------------------------------------------- */

static double f32(double v) { return (double)ref_f32_of_bits(ref_f32_of(v)); }

/* e^t rounded to fp32 by the host's expl, subnormal results flushed to +0 (docs/ISA.md). */
static double exp32(double t) {
  double e = f32((double)expl((long double)t));
  return fabs(e) < ldexp(1, -126) ? 0.0 : e;
}

/* GELU's 8 steps (docs/ISA.md, rt_gelu), each rounded to fp32; the scalars are fp32 constants. */
static float ref_gelu(float xf) {
  double x = xf;
  double t = f32(x * x);
  t = f32(t * x);
  t = f32(t * (double)(float)0.044715);
  t = f32(x + t);
  t = f32(t * (double)(float)-1.595769);
  t = exp32(t);
  t = f32(t + 1.0);
  return (float)f32(x / t);
}

/* ---- add ---------------------------------------------------------------------------------- */

/* 3 x 1001 fp16 elements (not a multiple of the blocks' 16-element slices: the last block is
 * short) with infinities, NaN and overflow among them; every tile length and buffer count gives
 * x + y rounded once to fp16 with the saturation of CTRL[48] (65504 + 65504 is 65504). */
static void test_vec_ops_add_bit_exact(void **state) {
  (void)state;
  uint64_t shape[2] = {3, 1001}, n = 3003;
  uint16_t *x = malloc(n * 2), *y = malloc(n * 2);
  assert_non_null(x);
  assert_non_null(y);
  uint64_t r = 7;
  for (uint64_t i = 0; i < n; i++) {
    x[i] = (uint16_t)rng_xorshift(&r);
    y[i] = (uint16_t)rng_xorshift(&r);
  }
  x[0] = 0x7BFF, y[0] = 0x7BFF; /* 65504 + 65504 */
  x[1] = 0x7C00, y[1] = 0xFC00; /* inf - inf */
  x[2] = 0x7E00, y[2] = 0x3C00; /* NaN + 1 */
  const char *tiles[] = {"16", "256", "4096"}, *bufs[] = {"1", "2"};
  for (int t = 0; t < 3; t++)
    for (int b = 0; b < 2; b++) {
      kt_runner kr;
      kt_init(&kr, "add", 0);
      kt_set_attr(&kr, "tile_len", tiles[t]);
      kt_set_attr(&kr, "buffer_num", bufs[b]);
      kt_put_ok(&kr, "x", ISA_FP16, 2, shape, x);
      kt_put_ok(&kr, "y", ISA_FP16, 2, shape, y);
      kt_run_ok(&kr);
      const kn_tensor *z = kn_ctx_output(kr.ctx, "z");
      assert_non_null(z);
      const uint16_t *zb = z->data;
      for (uint64_t i = 0; i < n; i++) {
        double a = ref_f16_value(x[i]), c = ref_f16_value(y[i]);
        uint16_t want = isnan(a) || isnan(c) || (isinf(a) && isinf(c) && a != c) ? 0 : (uint16_t)ref_f16_of(a + c, true);
        if (zb[i] != want) fail_msg("tile %s, %s buffers: z[%llu] = 0x%04x, want 0x%04x (x 0x%04x, y 0x%04x)", tiles[t],
                                    bufs[b], (unsigned long long)i, zb[i], want, x[i], y[i]);
      }
      assert_int_equal(zb[0], 0x7BFF);
      assert_int_equal(zb[1], 0x0000); /* NaN under saturation is +0 */
      kt_own_reference_agrees(&kr, "z");
      kt_free(&kr);
    }
  free(x);
  free(y);
}

/* The chip's every AIV runs a block by default (4 AI cores x 2 = 8 here); blocks = 3 spreads the
 * same elements over 3. */
static void test_vec_ops_add_blocks_run_on_aivs(void **state) {
  (void)state;
  for (int b = 0; b < 2; b++) {
    kt_runner kr;
    kt_init(&kr, "add", 0);
    kt_set_attr(&kr, "m", "16");
    kt_set_attr(&kr, "n", "512");
    if (b) kt_set_attr(&kr, "blocks", "3");
    kt_run_ok(&kr);
    const sim_result *res = rt_device_result(kn_device(kr.ctx));
    assert_int_equal(res->stats.cores, 4 + 8);
    unsigned ran = 0;
    for (unsigned c = 0; c < res->stats.cores; c++) {
      if (!res->stats.core[c].instructions) continue;
      assert_true(c >= 4); /* AIVs only */
      ran++;
    }
    assert_int_equal(ran, b ? 3 : 8);
    kt_own_reference_agrees(&kr, "z");
    kt_free(&kr);
  }
}

/* Where the UB buffers lie decides the vector unit's bank conflicts (docs/TIMING.md, "UB
 * banks"). Two tiles of 16256 fp16 (127 repeats each, slots of 32512 B), two buffers, one AIV:
 *   ub_layout=queues: x0 0, x1 32512, y0 65024, ...: x0 and y0 are 65024 = 127 x 512 B apart, in
 *   the same bank groups: 2 beats a repeat, each vadd 22 + 254 cycles: V busy 2 x 276 = 552;
 *   ub_layout=ping_pong: x0 0, y0 32512, z0 65024, x1 97536, ...: x and y 256 B off in the
 *   groups: 1 beat, 2 x (22 + 127) = 298. The result is the same. */
static void test_vec_ops_add_ub_layout_and_banks(void **state) {
  (void)state;
  static const struct {
    const char *layout;
    uint64_t x1, y0, z0, v_busy;
  } cases[] = {{"queues", 32512, 65024, 130048, 552}, {"ping_pong", 97536, 32512, 65024, 298}};
  uint64_t shape[2] = {1, 32512};
  uint16_t *x = malloc(32512 * 2), *y = malloc(32512 * 2);
  assert_non_null(x);
  assert_non_null(y);
  uint64_t r = 11;
  for (uint64_t i = 0; i < 32512; i++) {
    x[i] = (uint16_t)(rng_xorshift(&r) & 0x3FFF); /* finite, no NaN */
    y[i] = (uint16_t)(rng_xorshift(&r) & 0x3FFF);
  }
  for (int k = 0; k < 2; k++) {
    kt_runner kr;
    kt_init(&kr, "add", 0);
    kt_set_attr(&kr, "blocks", "1");
    kt_set_attr(&kr, "tile_len", "16256");
    kt_set_attr(&kr, "buffer_num", "2");
    kt_set_attr(&kr, "ub_layout", cases[k].layout);
    kt_put_ok(&kr, "x", ISA_FP16, 2, shape, x);
    kt_put_ok(&kr, "y", ISA_FP16, 2, shape, y);
    kt_run_ok(&kr);
    const uint16_t *zb = kn_ctx_output(kr.ctx, "z")->data;
    for (uint64_t i = 0; i < 32512; i++) {
      uint16_t want = (uint16_t)ref_f16_of(ref_f16_value(x[i]) + ref_f16_value(y[i]), true);
      if (zb[i] != want) fail_msg("%s: z[%llu] = 0x%04x, want 0x%04x", cases[k].layout, (unsigned long long)i, zb[i], want);
    }
    sim *s = rt_device_sim(kn_device(kr.ctx));
    const sim_result *res = rt_device_result(kn_device(kr.ctx));
    unsigned aiv = 4; /* the first AIV, after the 4 cube cores */
    const isa_insn *st = sim_core_stream(sim_get_core(s, aiv));
    uint64_t n = res->stats.core[aiv].instructions, vadds = 0;
    for (uint64_t i = 0; i < n; i++) {
      if (st[i].op != ISA_OP_VADD) continue;
      const isa_fmt_vbinary *v = &st[i].u.vbinary;
      uint64_t want_x = vadds ? cases[k].x1 : 0;
      assert_int_equal(v->src0.off, want_x);
      if (!vadds) {
        assert_int_equal(v->src1.off, cases[k].y0);
        assert_int_equal(v->dst.off, cases[k].z0);
      }
      vadds++;
    }
    assert_int_equal(vadds, 2);
    assert_int_equal(res->stats.core[aiv].pipe_busy_cycles[ISA_PIPE_V], cases[k].v_busy);
    kt_free(&kr);
  }
  free(x);
  free(y);
}

/* ---- nd2nz -------------------------------------------------------------------------------- */

/* ND -> compact NZ (kernels/kn_nd2nz.c) on 4 AIVs, bit for bit against the layout's definition
 * (random bits, NaNs included), and the vcopy's UB bank groups by hand. x [120, 512], tiles
 * 48 x 256 (two vcopies of 128 columns each), 2 x 2 splits: tile rows of 48, 48 and 24, the first
 * row split takes two, the second one; one tile column per column split. Each vcopy repeat
 * writes a row's 8 blocks to 8 C0 columns c0_stride blocks apart (the NZ buffers start on
 * multiples of 16 blocks; ND rows of 16 blocks put the 8 reads in 8 groups):
 *   c0_stride 48 (3 x 16): all 8 writes in one group, 8 beats a repeat: the first row split's
 *     AIVs 2 tiles x 2 vcopies x (22 + 48 x 8) = 1624 V cycles, the second's 2 x (22 + 24 x 8) =
 *     428;
 *   c0_stride 49: the writes in 8 groups, 1 beat: 4 x (22 + 48) = 280 and 2 x (22 + 24) = 92. */
static void test_vec_ops_nd2nz_bit_exact_and_banks(void **state) {
  (void)state;
  enum { M = 120, N = 512 };
  uint64_t shape[2] = {M, N};
  uint16_t *x = malloc(M * N * 2);
  assert_non_null(x);
  uint64_t r = 3;
  for (uint64_t i = 0; i < M * N; i++) x[i] = (uint16_t)rng_xorshift(&r);
  static const struct {
    const char *stride;
    uint64_t busy_first, busy_second;
  } cases[] = {{"0", 1624, 428}, {"48", 1624, 428}, {"49", 280, 92}};
  for (int k = 0; k < 3; k++) {
    kt_runner kr;
    kt_init(&kr, "nd2nz", 0);
    kt_set_attr(&kr, "tile_h", "48");
    kt_set_attr(&kr, "tile_w", "256");
    kt_set_attr(&kr, "row_splits", "2");
    kt_set_attr(&kr, "col_splits", "2");
    kt_set_attr(&kr, "c0_stride", cases[k].stride);
    kt_put_ok(&kr, "x", ISA_FP16, 2, shape, x);
    kt_run_ok(&kr);
    const kn_tensor *z = kn_ctx_output(kr.ctx, "z");
    assert_int_equal(z->ndim, 3);
    assert_int_equal(z->shape[0], N / 16);
    assert_int_equal(z->shape[1], M);
    assert_int_equal(z->shape[2], 16);
    const uint16_t *zb = z->data;
    for (uint64_t row = 0; row < M; row++)
      for (uint64_t c = 0; c < N; c++) {
        uint16_t want = x[row * N + c], got = zb[(c / 16) * M * 16 + row * 16 + c % 16];
        if (got != want) fail_msg("stride %s: z at (%llu, %llu) = 0x%04x, want 0x%04x", cases[k].stride, (unsigned long long)row,
                                  (unsigned long long)c, got, want);
      }
    kt_own_reference_agrees(&kr, "z");
    const sim_result *res = rt_device_result(kn_device(kr.ctx));
    assert_int_equal(res->hazard_count, 0);
    unsigned first = 0, second = 0;
    for (unsigned c = 4; c < res->stats.cores; c++) { /* the AIVs, after the 4 cube cores */
      uint64_t busy = res->stats.core[c].pipe_busy_cycles[ISA_PIPE_V];
      if (!res->stats.core[c].instructions) continue;
      if (busy == cases[k].busy_first) first++;
      else if (busy == cases[k].busy_second) second++;
      else fail_msg("stride %s: AIV %u V busy %llu", cases[k].stride, c, (unsigned long long)busy);
    }
    assert_int_equal(first, 2);
    assert_int_equal(second, 2);
    kt_free(&kr);
  }
  free(x);
}

/* nd2nz's attributes: a clear error naming the value, nothing run. */
static void test_vec_ops_nd2nz_refusals(void **state) {
  (void)state;
  static const struct {
    const char *attr[4][2];
    uint64_t n;
    const char *msg;
  } cases[] = {
      {{{"tile_w", "200"}}, 512, "attribute tile_w = 200: a multiple of 128 columns is needed (one vcopy repeat)"},
      {{{"tile_h", "48"}, {"c0_stride", "40"}}, 512,
       "attribute c0_stride = 40: the C0 columns of a tile of 48 rows overlap (at least 48)"},
      {{{"tile_w", "256"}, {"col_splits", "2"}}, 640,
       "x: n = 640 must be a multiple of tile_w = 256, in a number of tiles divisible by col_splits = 2"},
      {{{"tile_h", "255"}, {"tile_w", "1024"}}, 1024,
       "tile 255 x 1024 with c0_stride 255 needs 2 x (522240 + 522240) bytes of UB, the AIV has 196608 (aiv.ub_bytes)"},
      {{{"tile_h", "256"}}, 512, "attribute tile_h = 256 is out of range [1, 255]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kt_runner kr;
    kt_init(&kr, "nd2nz", 0);
    kt_set_attr(&kr, "col_splits", "1"); /* 16 x n inputs: one column split unless the case says */
    for (int a = 0; a < 4 && cases[i].attr[a][0]; a++) kt_set_attr(&kr, cases[i].attr[a][0], cases[i].attr[a][1]);
    uint64_t shape[2] = {16, cases[i].n};
    uint16_t *x = calloc(16 * cases[i].n, 2);
    assert_non_null(x);
    kt_put_ok(&kr, "x", ISA_FP16, 2, shape, x);
    kt_run_fails(&kr, CS_EINVAL, cases[i].msg);
    free(x);
    kt_free(&kr);
  }
}

/* ---- data_copy GM -> UB ------------------------------------------------------------------- */

/* data_copy's GM -> UB path runs on the AIVs, as the sample's DataCopyPad kernel does (the AICs
 * run nothing), each AIV its m / 4 rows: x [16, 256], tiles [1, 64]: 4 rows x 4 tiles = 16 copies
 * of one 128-byte row. An AIV's MTE2 is busy aiv.mte2_setup_cycles per copy before its byte
 * streams, so 100 more cycles of set-up make each AIV's MTE2 busy 1600 cycles longer. With no
 * AIV the run is refused, and m must be shared evenly. */
static kn_ctx *data_copy_ctx(const sim_config *cfg, uint64_t m) {
  kn_run_options o = {.cfg = cfg, .timing_only = true, .seed = 1};
  kn_ctx *ctx;
  cs_err err;
  assert_int_equal(kn_ctx_create(kn_op_find("data_copy"), &o, &ctx, &err), CS_OK);
  char mv[24];
  snprintf(mv, sizeof mv, "%llu", (unsigned long long)m);
  static const char *const kv[][2] = {{"path", "ub"}, {"n", "256"}, {"tile_m", "1"}, {"tile_n", "64"}};
  for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) assert_int_equal(kn_ctx_set_attr(ctx, kv[i][0], kv[i][1], &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "m", mv, &err), CS_OK);
  return ctx;
}

static void test_vec_ops_data_copy_ub_on_the_aivs(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 2;
  uint64_t busy[2][4];
  for (int k = 0; k < 2; k++) {
    cfg.aiv_mte2_setup_cycles = k ? 115 : 15;
    kn_ctx *ctx = data_copy_ctx(&cfg, 16);
    cs_err err;
    if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("run: %s", err.msg);
    const sim_result *r = rt_device_result(kn_device(ctx));
    assert_int_equal(r->stats.cores, 2 + 4);
    for (unsigned c = 0; c < 2; c++) assert_int_equal(r->stats.core[c].instructions, 0);
    for (unsigned v = 0; v < 4; v++) {
      const sim_core_stats *cs = &r->stats.core[2 + v];
      assert_int_equal(cs->op_count[ISA_OP_COPY_GM_UB], 16);
      assert_int_equal(cs->path_bytes[ISA_PATH_GM_TO_UB], 16 * 128);
      busy[k][v] = cs->pipe_busy_cycles[ISA_PIPE_MTE2];
    }
    kn_ctx_destroy(ctx);
  }
  for (unsigned v = 0; v < 4; v++) assert_int_equal(busy[1][v] - busy[0][v], 1600);
  cs_err err;
  kn_ctx *ctx = data_copy_ctx(&cfg, 18);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_EINVAL);
  assert_string_equal(err.msg, "data_copy: m = 18 must be a multiple of the 4 AIV cores (each copies m / 4 rows)");
  kn_ctx_destroy(ctx);
  cfg.chip_aiv_per_aic = 0;
  ctx = data_copy_ctx(&cfg, 16);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_EINVAL);
  assert_string_equal(err.msg, "data_copy path=ub runs on AIV cores: the chip has none (chip.aiv_per_aic = 0)");
  kn_ctx_destroy(ctx);
}

/* ---- gelu --------------------------------------------------------------------------------- */

static void test_vec_ops_gelu_bit_exact(void **state) {
  (void)state;
  uint64_t shape[1] = {4000};
  float *x = malloc(4000 * sizeof *x);
  assert_non_null(x);
  for (int i = 0; i < 4000; i++) x[i] = -10.0f + 20.0f * (float)i / 4000.0f + (float)i * 1e-7f;
  x[0] = 0.0f, x[1] = -0.0f, x[2] = 88.0f, x[3] = -88.0f;
  kt_runner kr;
  kt_init(&kr, "gelu", 0);
  kt_set_attr(&kr, "tile_len", "512");
  kt_put_ok(&kr, "x", ISA_FP32, 1, shape, x);
  kt_run_ok(&kr);
  const float *y = kn_ctx_output(kr.ctx, "y")->data;
  for (int i = 0; i < 4000; i++) {
    float want = ref_gelu(x[i]);
    if (ref_f32_bits(y[i]) != ref_f32_bits(want))
      fail_msg("gelu(%a) = %a, want %a", (double)x[i], (double)y[i], (double)want);
    /* and it is GELU: within 1e-3 of x * Phi(x) */
    double exact = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)));
    if (fabs(exact) < 1e30) assert_true(fabs(y[i] - exact) < 1e-3 * (1 + fabs(exact)));
  }
  kt_own_reference_agrees(&kr, "y");
  kt_free(&kr);
  free(x);
}

/* ---- matmul_gelu -------------------------------------------------------------------------- */

/* c = GELU(a x b) for fp16 a [m, k] and b [k, n]: the cube's fp32 result (k-blocks of 16 exact
 * products, each block's sum rounded once to fp32, added in fp32) and then GELU. */
static void ref_matmul_gelu(const uint16_t *a, const uint16_t *b, uint32_t m, uint32_t n, uint32_t k, float *c) {
  double terms[16];
  for (uint32_t i = 0; i < m; i++)
    for (uint32_t j = 0; j < n; j++) {
      float acc = 0.0f;
      for (uint32_t kb = 0; kb < k; kb += 16) {
        uint32_t cnt = k - kb < 16 ? k - kb : 16;
        for (uint32_t q = 0; q < cnt; q++)
          terms[q] = ref_f16_value(a[(uint64_t)i * k + kb + q]) * ref_f16_value(b[(uint64_t)(kb + q) * n + j]);
        acc = (float)f32((double)acc + (double)ref_exact_sum_f32(terms, cnt));
      }
      c[(uint64_t)i * n + j] = ref_gelu(acc);
    }
}

typedef struct mg_case {
  uint32_t m, n, k;
  const char *base_m, *base_n;
} mg_case;

static void put_mg_inputs(kt_runner *kr, const mg_case *mc, uint16_t **a, uint16_t **b) {
  uint64_t r = mc->m * 131u + mc->n;
  *a = malloc((size_t)mc->m * mc->k * 2);
  *b = malloc((size_t)mc->k * mc->n * 2);
  assert_non_null(*a);
  assert_non_null(*b);
  for (uint64_t i = 0; i < (uint64_t)mc->m * mc->k; i++) (*a)[i] = ref_f16_of(((double)rng_xorshift_below(&r, 2001) - 1000) / 1000.0, true);
  for (uint64_t i = 0; i < (uint64_t)mc->k * mc->n; i++) (*b)[i] = ref_f16_of(((double)rng_xorshift_below(&r, 2001) - 1000) / 1000.0, true);
  uint64_t sa[2] = {mc->m, mc->k}, sb[2] = {mc->k, mc->n};
  kt_put_ok(kr, "a", ISA_FP16, 2, sa, *a);
  kt_put_ok(kr, "b", ISA_FP16, 2, sb, *b);
}

/* Shapes with tails in m, n and k (tiles of fewer rows than the AIVs' halves, an odd number of
 * rows), base tiles that split the work over 4 AI cores or leave some idle: bit-exact. */
static void test_vec_ops_matmul_gelu_bit_exact(void **state) {
  (void)state;
  const mg_case cases[] = {{96, 160, 64, "32", "32"}, {37, 70, 50, "16", "32"}, {128, 256, 128, NULL, NULL}, {1, 17, 16, "16", "16"}};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    const mg_case *mc = &cases[ci];
    kt_runner kr;
    kt_init(&kr, "matmul_gelu", 0);
    if (mc->base_m) kt_set_attr(&kr, "base_m", mc->base_m);
    if (mc->base_n) kt_set_attr(&kr, "base_n", mc->base_n);
    uint16_t *a, *b;
    put_mg_inputs(&kr, mc, &a, &b);
    kt_run_ok(&kr);
    const kn_tensor *c = kn_ctx_output(kr.ctx, "c");
    float *want = malloc((size_t)mc->m * mc->n * sizeof *want);
    assert_non_null(want);
    ref_matmul_gelu(a, b, mc->m, mc->n, mc->k, want);
    const float *got = c->data;
    for (uint64_t i = 0; i < (uint64_t)mc->m * mc->n; i++)
      if (ref_f32_bits(got[i]) != ref_f32_bits(want[i]))
        fail_msg("%ux%ux%u: c[%llu] = %a, want %a", mc->m, mc->n, mc->k, (unsigned long long)i, (double)got[i], (double)want[i]);
    const sim_result *res = rt_device_result(kn_device(kr.ctx));
    assert_int_equal(res->hazard_count, 0);
    kt_own_reference_agrees(&kr, "c");
    free(want);
    free(a);
    free(b);
    kt_free(&kr);
  }
}

/* The AIVs not waiting for the AIC's flag: a RAW race between the fixpipe's write and an AIV's
 * read of the same GM bytes, under any timing; the AIC never setting it: a deadlock naming the
 * AIV's wait. */
static void test_vec_ops_matmul_gelu_seeded_bugs(void **state) {
  (void)state;
  const char *flag_cycles[] = {"0", "100", "20000"};
  for (int t = 0; t < 3; t++) {
    sim_config c;
    sim_config_defaults(&c);
    c.chip_aic_cores = 4;
    c.aiv_cross_flag_cycles = (uint64_t)atoi(flag_cycles[t]);
    for (int bug = 0; bug < 2; bug++) {
      kn_run_options ro = {.cfg = &c, .seed = 1};
      kn_ctx *ctx;
      cs_err err;
      assert_int_equal(kn_ctx_create(kn_op_find("matmul_gelu"), &ro, &ctx, &err), CS_OK);
      assert_int_equal(kn_ctx_set_attr(ctx, "cross_sync", bug ? "no_set" : "no_wait", &err), CS_OK);
      assert_int_equal(kn_ctx_set_attr(ctx, "m", "64", &err), CS_OK);
      assert_int_equal(kn_ctx_set_attr(ctx, "n", "64", &err), CS_OK);
      assert_int_equal(kn_ctx_set_attr(ctx, "k", "32", &err), CS_OK);
      assert_int_equal(kn_ctx_set_attr(ctx, "base_m", "32", &err), CS_OK);
      assert_int_equal(kn_ctx_set_attr(ctx, "base_n", "32", &err), CS_OK);
      cs_status st = kn_ctx_run(ctx, &err);
      if (bug) {
        assert_int_equal(st, CS_EDEADLOCK);
        assert_non_null(strstr(err.msg, "AIV 0.0: the root cause: MTE2 waits at instruction 0 (cross_wait_flag #0, counter 0) "
                                        "and no core has a cross_set_flag #0 left that raises it"));
      } else {
        assert_int_equal(st, CS_EHAZARD);
        const sim_result *res = rt_device_result(kn_device(ctx));
        assert_true(res->hazard_count > 0);
        const sim_hazard *h = &res->hazards[0];
        assert_true(h->cross_core);
        assert_int_equal(h->kind, SIM_HAZARD_RAW);
        assert_int_equal(h->earlier_op, ISA_OP_FIXPIPE);
        assert_int_equal(h->later_op, ISA_OP_COPY_GM_UB);
        assert_int_equal(h->earlier_core, 0);
        assert_string_equal(h->core_name, "AIV 0.0");
      }
      kn_ctx_destroy(ctx);
    }
  }
}

/* A MIX run's trace: the AIC's FIXP track starts an arrow that ends on each of its AIVs' MTE2
 * tracks (pid 1: core 0; pids 5 and 6: AIV 0.0 and 0.1 on a 4-AI-core chip). */
static void test_vec_ops_matmul_gelu_trace_arrows(void **state) {
  (void)state;
  tf_dir td;
  tf_dir_make(&td);
  char path[256];
  tf_join(path, sizeof path, td.path, "mix.json");
  sim_config c;
  sim_config_defaults(&c);
  c.chip_aic_cores = 4;
  sim_trace *t;
  cs_err err;
  assert_int_equal(sim_trace_open(path, &c, &t, &err), CS_OK);
  kn_run_options ro = {.cfg = &c, .seed = 1, .trace = t};
  kn_ctx *ctx;
  assert_int_equal(kn_ctx_create(kn_op_find("matmul_gelu"), &ro, &ctx, &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "m", "64", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "n", "64", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "k", "32", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_OK);
  kn_ctx_destroy(ctx);
  assert_int_equal(sim_trace_close(t, true, &err), CS_OK);
  char *text = tf_read(path, NULL);
  assert_non_null(strstr(text, "\"args\":{\"name\":\"AIV 0.1\"}"));
  /* an arrow starting on core 0's FIXP track (tid 105) and ending on AIV 0.0's MTE2 (pid 5, tid 502) */
  const char *s = strstr(text, "{\"ph\":\"s\",\"pid\":1,\"tid\":105,");
  assert_non_null(s);
  const char *id = strstr(s, "\"id\":");
  assert_non_null(id);
  unsigned long arrow = strtoul(id + 5, NULL, 10);
  char want[96];
  snprintf(want, sizeof want, "\"name\":\"flag\",\"cat\":\"flag\",\"id\":%lu}", arrow);
  const char *f = strstr(text, "{\"ph\":\"f\",\"bp\":\"e\",\"pid\":5,\"tid\":502,");
  assert_non_null(f);
  assert_non_null(strstr(text, want));
  free(text);
  tf_dir_remove(&td);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vec_ops_add_bit_exact),
      cmocka_unit_test(test_vec_ops_add_blocks_run_on_aivs),
      cmocka_unit_test(test_vec_ops_add_ub_layout_and_banks),
      cmocka_unit_test(test_vec_ops_nd2nz_bit_exact_and_banks),
      cmocka_unit_test(test_vec_ops_nd2nz_refusals),
      cmocka_unit_test(test_vec_ops_data_copy_ub_on_the_aivs),
      cmocka_unit_test(test_vec_ops_gelu_bit_exact),
      cmocka_unit_test(test_vec_ops_matmul_gelu_bit_exact),
      cmocka_unit_test(test_vec_ops_matmul_gelu_seeded_bugs),
      cmocka_unit_test(test_vec_ops_matmul_gelu_trace_arrows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
