/* Tests of the tiling helper (runtime/rt_matmul.h): rt_tiling_auto on the 910B defaults and on
 * smaller chips, every choice checked against rt_tiling_check and the buffer capacities, a few
 * choices derived by hand, and every rt_tiling_check error with its exact message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_matmul.h"

static sim_config defaults(void) {
  sim_config c;
  sim_config_defaults(&c);
  return c;
}

static rt_matmul_types types(isa_dtype in, isa_dtype out) {
  rt_matmul_types t;
  memset(&t, 0, sizeof t);
  t.a = t.b = in;
  t.c = out;
  return t;
}

static rt_tiling tiling(uint32_t m, uint32_t n, uint32_t k, uint32_t bm, uint32_t bn, uint32_t bk, uint32_t step,
                        uint32_t depth, uint32_t l0, uint32_t l0c) {
  rt_tiling t = {m, n, k, bm, bn, bk, step, depth, depth, l0, l0c};
  return t;
}

static uint64_t capacity(const sim_config *c, isa_mem m) {
  switch (m) {
    case ISA_MEM_L1: return c->buffers_l1_bytes;
    case ISA_MEM_L0A: return c->buffers_l0a_bytes;
    case ISA_MEM_L0B: return c->buffers_l0b_bytes;
    case ISA_MEM_L0C: return c->buffers_l0c_bytes;
    case ISA_MEM_UB: return c->buffers_ub_bytes;
    case ISA_MEM_BT: return c->buffers_bt_bytes;
    case ISA_MEM_FB: return c->buffers_fb_bytes;
    default: return 0;
  }
}

static uint32_t up(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

/* rt_tiling_auto must succeed; the result must pass the check and fit every buffer, and never be
 * larger than the problem needs. */
static rt_tiling auto_ok(const sim_config *cfg, const rt_matmul_types *ty, uint32_t m, uint32_t n, uint32_t k) {
  rt_tiling t;
  memset(&t, 0xAB, sizeof t);
  cs_err err;
  memset(&err, 0, sizeof err);
  cs_status st = rt_tiling_auto(cfg, ty, m, n, k, &t, &err);
  if (st != CS_OK) fail_msg("auto %s->%s %ux%ux%u: %s", isa_dtype_name(ty->a), isa_dtype_name(ty->c), m, n, k, err.msg);
  if (rt_tiling_check(cfg, ty, &t, &err) != CS_OK) fail_msg("check of auto: %s", err.msg);
  uint32_t c0 = isa_dtype_c0(ty->a);
  assert_int_equal(t.m, m);
  assert_int_equal(t.n, n);
  assert_int_equal(t.k, k);
  assert_int_equal(t.base_m % 16, 0);
  assert_int_equal(t.base_n % 16, 0);
  assert_int_equal(t.base_k % c0, 0);
  assert_true(t.base_m <= up(m, 16));
  assert_true(t.base_n <= up(n, ty->b_nz && !ty->b_trans ? c0 : 16));
  assert_true(t.base_k <= up(k, c0));
  assert_true((uint64_t)t.step_k * t.base_k <= up(k, c0) || t.step_k == 1);
  uint64_t fp[ISA_MEM_COUNT];
  rt_tiling_footprint(ty, &t, fp);
  for (int b = ISA_MEM_L1; b < ISA_MEM_COUNT; b++)
    if (fp[b] > capacity(cfg, (isa_mem)b))
      fail_msg("%s: footprint %llu over %llu", isa_mem_name((isa_mem)b), (unsigned long long)fp[b],
               (unsigned long long)capacity(cfg, (isa_mem)b));
  return t;
}

static void expect_tiling(const rt_tiling *t, uint32_t bm, uint32_t bn, uint32_t bk, uint32_t step, uint32_t depth,
                          uint32_t l0, uint32_t l0c) {
  char got[160], want[160];
  snprintf(got, sizeof got, "%ux%ux%u step %u depth %u/%u l0 %u l0c %u", t->base_m, t->base_n, t->base_k, t->step_k,
           t->depth_a1, t->depth_b1, t->l0_slots, t->l0c_slots);
  snprintf(want, sizeof want, "%ux%ux%u step %u depth %u/%u l0 %u l0c %u", bm, bn, bk, step, depth, depth, l0, l0c);
  assert_string_equal(got, want);
}

static void check_fails(const sim_config *cfg, const rt_matmul_types *ty, const rt_tiling *t, const char *msg) {
  cs_err err;
  memset(&err, 0, sizeof err);
  assert_int_equal(rt_tiling_check(cfg, ty, t, &err), CS_EINVAL);
  assert_string_equal(err.msg, msg);
}

/* ---- hand-derived choices on the 910B ------------------------------------------------------ */

/* int8 4096^3 (fp16 out, per-column words). The tile starts at 128 x 256; its int32 L0C block is
 * 128*256*4 = 131072 B = all of L0C, so one slot. base_k from 32 doubles while two L0B slots of
 * (base_k/32)*(256/16)*512 B fit 64 KiB: 128 needs 2*32768 = 65536 (fits), 256 would need
 * 131072. step_k doubles while L1 holds 3 A chunks (128*128*step B) and 3 B chunks
 * (256*128*step B) plus 2 staging slots of 256*8 B: step 2 needs 98304 + 196608 + 4096 = 299008
 * (fits 524288), step 4 needs 593920. */
static void test_rt_tiling_auto_int8_4096_cubed(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_INT8, ISA_FP16);
  rt_tiling t = auto_ok(&cfg, &ty, 4096, 4096, 4096);
  expect_tiling(&t, 128, 256, 128, 2, 3, 2, 1);
  uint64_t fp[ISA_MEM_COUNT];
  rt_tiling_footprint(&ty, &t, fp);
  assert_int_equal(fp[ISA_MEM_GM], 0);
  assert_int_equal(fp[ISA_MEM_L1], 3 * 32768 + 3 * 65536 + 2 * 2048);
  assert_int_equal(fp[ISA_MEM_L0A], 2 * 16384); /* 4 k-blocks x 8 m-blocks x 512 B, two slots */
  assert_int_equal(fp[ISA_MEM_L0B], 2 * 32768);
  assert_int_equal(fp[ISA_MEM_L0C], 131072);
  assert_int_equal(fp[ISA_MEM_UB], 0);
  assert_int_equal(fp[ISA_MEM_BT], 0); /* no bias */
  assert_int_equal(fp[ISA_MEM_FB], 256 * 8);
  ty.has_bias = true;
  rt_tiling_footprint(&ty, &t, fp);
  assert_int_equal(fp[ISA_MEM_BT], 256 * 4);
}

/* fp16 8192^3 (fp32 out), Huawei's calibration sample: fp16 fractals are 16 x 16, so base_k 64
 * fills two L0B slots (4*16*512*2 = 65536) and L1 takes step 2 (3*32768 + 3*65536 + 4096). */
static void test_rt_tiling_auto_fp16_8192_cubed(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP32);
  rt_tiling t = auto_ok(&cfg, &ty, 8192, 8192, 8192);
  expect_tiling(&t, 128, 256, 64, 2, 3, 2, 1);
  ty = types(ISA_BF16, ISA_BF16);
  t = auto_ok(&cfg, &ty, 8192, 8192, 8192);
  expect_tiling(&t, 128, 256, 64, 2, 3, 2, 1);
}

/* int4: C0 = 64 and half a byte per element, so base_k reaches 256 (4 k-blocks, as int8's 128). */
static void test_rt_tiling_auto_int4_4096_cubed(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_INT4, ISA_INT32);
  rt_tiling t = auto_ok(&cfg, &ty, 4096, 4096, 4096);
  expect_tiling(&t, 128, 256, 256, 2, 3, 2, 1);
}

/* Small problems: the tile shrinks to ceil16 of m and n, base_k to ceil(k, C0); the L0C block
 * (16 x 32 x 4 B) is small enough for two slots; K holds a single chunk. */
static void test_rt_tiling_auto_small_shapes(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_INT8, ISA_INT32);
  rt_tiling t = auto_ok(&cfg, &ty, 1, 17, 32);
  expect_tiling(&t, 16, 32, 32, 1, 3, 2, 2);
  ty = types(ISA_FP16, ISA_FP32);
  t = auto_ok(&cfg, &ty, 16, 17, 32);
  expect_tiling(&t, 16, 32, 32, 1, 3, 2, 2);
  t = auto_ok(&cfg, &ty, 1, 1, 1);
  expect_tiling(&t, 16, 16, 16, 1, 3, 2, 2);
  /* M = 1 with a long K: base_k 64 fills two L0B slots of 4*16*512 B; L1 takes step 4 (three A
   * chunks of 16*256*2 B, three B chunks of 256*256*2 B, 4096 B of staging: 421888 B) but not 8 */
  t = auto_ok(&cfg, &ty, 1, 4096, 8192);
  expect_tiling(&t, 16, 256, 64, 4, 3, 2, 2);
}

/* ---- every combination: valid, fitting, no larger than needed ------------------------------- */

static void test_rt_tiling_auto_results_pass_the_check(void **state) {
  (void)state;
  sim_config cfg = defaults();
  const struct {
    isa_dtype in, out;
  } kinds[] = {{ISA_INT8, ISA_INT32}, {ISA_INT8, ISA_FP16}, {ISA_INT8, ISA_INT8}, {ISA_INT4, ISA_INT32},
               {ISA_INT4, ISA_FP16}, {ISA_FP16, ISA_FP32}, {ISA_FP16, ISA_FP16}, {ISA_FP16, ISA_INT8},
               {ISA_BF16, ISA_BF16}, {ISA_BF16, ISA_UINT8}};
  const uint32_t shapes[][3] = {{1, 1, 1},      {1, 16, 32},     {1, 17, 32},        {16, 17, 32},
                                {16, 32, 4096}, {37, 300, 45},   {4096, 16, 8192},   {16, 4096, 64},
                                {4096, 4096, 4096}, {8192, 8192, 8192}, {130, 258, 4094}};
  unsigned checked = 0;
  for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++)
    for (unsigned flags = 0; flags < 16; flags++)
      for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        rt_matmul_types ty = types(kinds[ki].in, kinds[ki].out);
        ty.has_bias = flags & 1;
        ty.a_trans = (flags >> 1) & 1;
        ty.b_trans = (flags >> 2) & 1;
        ty.b_nz = (flags >> 3) & 1;
        uint32_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
        if (ty.a == ISA_INT4 && ((!ty.a_trans && k % 2) || (ty.a_trans && m % 2) ||
                                 (!ty.b_trans && !ty.b_nz && n % 2) || (ty.b_trans && k % 2)))
          continue; /* odd int4 rows: refused, see test_rt_tiling_check_int4_rows */
        auto_ok(&cfg, &ty, m, n, k);
        checked++;
      }
  assert_true(checked > 1500);
}

/* ---- smaller chips ------------------------------------------------------------------------- */

/* configs/teaching.yaml: L1 64 KiB, L0A/L0B 16 KiB, L0C 32 KiB. fp16 4096^3: 128 x 256 of fp32
 * is 128 KiB, so the tile halves its wider side: 128 x 128 (64 KiB), 128 x 64 (32 KiB, one
 * slot). base_k 32 fills L0A (2*8*512*2 = 16384); step 2 would need 3*16384 + 3*8192 + 1024 =
 * 74752 B of L1. int8: base_k 64 is the same bytes as fp16's 32. */
static void test_rt_tiling_auto_teaching_config(void **state) {
  (void)state;
  sim_config cfg = defaults();
  cs_err err;
  if (sim_config_load_file(&cfg, CUBESIM_SOURCE_DIR "/configs/teaching.yaml", &err) != CS_OK) fail_msg("%s", err.msg);
  assert_int_equal(sim_config_validate(&cfg, &err), CS_OK);
  rt_matmul_types ty = types(ISA_FP16, ISA_FP32);
  rt_tiling t = auto_ok(&cfg, &ty, 4096, 4096, 4096);
  expect_tiling(&t, 128, 64, 32, 1, 3, 2, 1);
  ty = types(ISA_INT8, ISA_INT32);
  t = auto_ok(&cfg, &ty, 4096, 4096, 4096);
  expect_tiling(&t, 128, 64, 64, 1, 3, 2, 1);
  /* smaller than the 910B's choice for the same problem */
  sim_config big = defaults();
  rt_tiling tb = auto_ok(&big, &ty, 4096, 4096, 4096);
  assert_true((uint64_t)t.base_m * t.base_n < (uint64_t)tb.base_m * tb.base_n);
}

/* A 4 KiB L1 cannot hold three A and three B chunks even at 16 x 16 (3*512 + 3*1024 + 2*128 =
 * 4864 B): the helper falls back to two (1024 + 2048 + 256 = 3328 B). Going through 128 x 256,
 * ..., 32 x 16 at depth 2 first, none fits; base_k 64 would need 6400 B. */
static void test_rt_tiling_auto_falls_back_to_fewer_slots(void **state) {
  (void)state;
  sim_config cfg = defaults();
  cfg.buffers_l1_bytes = 4096;
  rt_matmul_types ty = types(ISA_INT8, ISA_INT32);
  rt_tiling t = auto_ok(&cfg, &ty, 256, 256, 256);
  expect_tiling(&t, 16, 16, 32, 1, 2, 2, 2);
  /* a one-fractal L0A and L0B: only single L0 slots fit (fp16, 16 x 16 x 16 = 512 B each) */
  cfg = defaults();
  cfg.buffers_l0a_bytes = 512;
  cfg.buffers_l0b_bytes = 512;
  ty = types(ISA_FP16, ISA_FP32);
  t = auto_ok(&cfg, &ty, 64, 64, 64);
  expect_tiling(&t, 16, 16, 16, 4, 1, 1, 2);
}

/* When nothing fits, the error describes the last (smallest) attempt. */
static void test_rt_tiling_auto_reports_when_nothing_fits(void **state) {
  (void)state;
  sim_config cfg = defaults();
  cfg.buffers_l1_bytes = 1024;
  rt_matmul_types ty = types(ISA_INT8, ISA_INT32);
  rt_tiling t;
  cs_err err;
  assert_int_equal(rt_tiling_auto(&cfg, &ty, 256, 256, 256, &t, &err), CS_EINVAL);
  assert_string_equal(err.msg, "tiling: L1 needs 1792 bytes (base_m 16, base_n 16, base_k 32, step_k 1, slots 1/1/1/1) but has 1024");
  /* an int8 NZ B keeps base_n a multiple of 32: with a one-fractal L0B nothing fits (this used to
   * loop forever) */
  cfg = defaults();
  cfg.buffers_l0b_bytes = 512;
  ty.b_nz = true;
  assert_int_equal(rt_tiling_auto(&cfg, &ty, 64, 64, 64, &t, &err), CS_EINVAL);
  assert_string_equal(err.msg, "tiling: L0B needs 1024 bytes (base_m 16, base_n 32, base_k 32, step_k 1, slots 1/1/1/1) but has 512");
  /* and an error of the types comes out as it is */
  cfg = defaults();
  ty.b = ISA_FP16;
  assert_int_equal(rt_tiling_auto(&cfg, &ty, 64, 64, 64, &t, &err), CS_EINVAL);
  assert_string_equal(err.msg, "matmul: A is int8 and B is fp16; the cube multiplies equal types");
}

/* ---- rt_tiling_check errors ----------------------------------------------------------------- */

static void test_rt_tiling_check_alignment_of_the_bases(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types f16 = types(ISA_FP16, ISA_FP32), i8 = types(ISA_INT8, ISA_INT32), i4 = types(ISA_INT4, ISA_INT32);
  rt_tiling t = tiling(256, 256, 256, 128, 256, 24, 1, 3, 2, 1);
  check_fails(&cfg, &f16, &t, "tiling: base_k = 24 must be a positive multiple of C0 = 16 for fp16");
  t.base_k = 16;
  assert_int_equal(rt_tiling_check(&cfg, &f16, &t, NULL), CS_OK);
  check_fails(&cfg, &i8, &t, "tiling: base_k = 16 must be a positive multiple of C0 = 32 for int8");
  t.base_k = 32;
  check_fails(&cfg, &i4, &t, "tiling: base_k = 32 must be a positive multiple of C0 = 64 for int4");
  t.base_k = 0;
  check_fails(&cfg, &f16, &t, "tiling: base_k = 0 must be a positive multiple of C0 = 16 for fp16");
  t = tiling(256, 256, 256, 24, 256, 64, 1, 3, 2, 1);
  check_fails(&cfg, &f16, &t, "tiling: base_m = 24 and base_n = 256 must be positive multiples of 16");
  t.base_m = 128;
  t.base_n = 0;
  check_fails(&cfg, &f16, &t, "tiling: base_m = 128 and base_n = 0 must be positive multiples of 16");
  t.base_n = 4096;
  check_fails(&cfg, &f16, &t, "tiling: base_m/n/k = 128/4096/64; mmad takes at most 4095");
  t = tiling(0, 16, 16, 16, 16, 16, 1, 1, 1, 1);
  check_fails(&cfg, &f16, &t, "tiling: m, n, k = 0, 16, 16; none may be 0");
  t = tiling(16, 16, 16, 16, 16, 16, 0, 1, 1, 1);
  check_fails(&cfg, &f16, &t, "tiling: step_k is 0");
}

/* Each buffer's need against its size, with the numbers (hand-computed). */
static void test_rt_tiling_check_buffer_overflow(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP32);
  /* L1: A 128*64*4*2 B, B 256*64*4*2 B, three each, and 2 x 2048: 196608 + 393216 + 4096 */
  rt_tiling t = tiling(8192, 8192, 8192, 128, 256, 64, 4, 3, 2, 1);
  check_fails(&cfg, &ty, &t,
               "tiling: L1 needs 593920 bytes (base_m 128, base_n 256, base_k 64, step_k 4, slots 3/3/2/1) but has 524288");
  /* L0B: 8 k-blocks x 16 n-blocks x 512 B, two slots */
  t = tiling(8192, 8192, 8192, 128, 256, 128, 1, 3, 2, 1);
  check_fails(&cfg, &ty, &t,
               "tiling: L0B needs 131072 bytes (base_m 128, base_n 256, base_k 128, step_k 1, slots 3/3/2/1) but has 65536");
  /* L0A: 256 rows (16 m-blocks) x 8 k-blocks x 512 B, two slots; L0B would fit */
  t = tiling(8192, 8192, 8192, 256, 64, 128, 1, 3, 2, 1);
  check_fails(&cfg, &ty, &t,
               "tiling: L0A needs 131072 bytes (base_m 256, base_n 64, base_k 128, step_k 1, slots 3/3/2/1) but has 65536");
  /* L0C: 128 x 256 x 4 B, two slots */
  t = tiling(8192, 8192, 8192, 128, 256, 64, 1, 3, 2, 2);
  check_fails(&cfg, &ty, &t,
               "tiling: L0C needs 262144 bytes (base_m 128, base_n 256, base_k 64, step_k 1, slots 3/3/2/2) but has 131072");
  /* BT: 512 biases x 4 B */
  ty.has_bias = true;
  t = tiling(64, 512, 64, 16, 512, 16, 1, 3, 2, 1);
  check_fails(&cfg, &ty, &t,
               "tiling: BT needs 2048 bytes (base_m 16, base_n 512, base_k 16, step_k 1, slots 3/3/2/1) but has 1024");
  /* FB: fp32 output takes no quant words, so no FB at all, even 512 columns wide */
  ty.has_bias = false;
  cs_err err;
  assert_int_equal(rt_tiling_check(&cfg, &ty, &t, &err), CS_OK);
  uint64_t fp[ISA_MEM_COUNT];
  rt_tiling_footprint(&ty, &t, fp);
  assert_int_equal(fp[ISA_MEM_FB], 0);
  /* int8 output takes one word per column: 256 x 8 B over a 1 KiB FB */
  ty = types(ISA_FP16, ISA_INT8);
  cfg.buffers_fb_bytes = 1024;
  t = tiling(64, 256, 64, 16, 256, 16, 1, 3, 2, 1);
  check_fails(&cfg, &ty, &t,
               "tiling: FB needs 2048 bytes (base_m 16, base_n 256, base_k 16, step_k 1, slots 3/3/2/1) but has 1024");
}

/* Every slot of A1, B1 and C1 (2) takes an MTE2 -> MTE1 event id: 3 + 3 + 2 is the whole budget
 * of 8, and the range of the depths (1 to 3) keeps the sum within it. */
static void test_rt_tiling_check_slot_ranges_and_event_budget(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP32);
  rt_tiling t = tiling(256, 256, 256, 64, 64, 16, 1, 3, 2, 2);
  assert_int_equal(rt_tiling_check(&cfg, &ty, &t, NULL), CS_OK);
  t.depth_a1 = 4;
  check_fails(&cfg, &ty, &t, "tiling: depth_a1 and depth_b1 are 1 to 3, l0_slots and l0c_slots 1 or 2 (got 4, 3, 2, 2)");
  t.depth_a1 = 3;
  t.depth_b1 = 0;
  check_fails(&cfg, &ty, &t, "tiling: depth_a1 and depth_b1 are 1 to 3, l0_slots and l0c_slots 1 or 2 (got 3, 0, 2, 2)");
  t.depth_b1 = 1;
  t.l0_slots = 3;
  check_fails(&cfg, &ty, &t, "tiling: depth_a1 and depth_b1 are 1 to 3, l0_slots and l0c_slots 1 or 2 (got 3, 1, 3, 2)");
  t.l0_slots = 2;
  t.l0c_slots = 0;
  check_fails(&cfg, &ty, &t, "tiling: depth_a1 and depth_b1 are 1 to 3, l0_slots and l0c_slots 1 or 2 (got 3, 1, 2, 0)");
}

static void test_rt_tiling_check_quant_words_and_nz(void **state) {
  (void)state;
  sim_config cfg = defaults();
  /* per-column words (VDEQF16) go through FB 256 at a time */
  rt_matmul_types ty = types(ISA_INT8, ISA_FP16);
  rt_tiling t = tiling(64, 512, 64, 16, 272, 32, 1, 3, 2, 1);
  check_fails(&cfg, &ty, &t, "tiling: base_n = 272; per-column quant words go through FB in chunks of at most 256");
  ty = types(ISA_FP16, ISA_INT8); /* VQF322B8_PRE too */
  t.base_k = 16;
  check_fails(&cfg, &ty, &t, "tiling: base_n = 272; per-column quant words go through FB in chunks of at most 256");
  /* an NZ K x N B is copied in whole C0-wide column blocks */
  ty = types(ISA_INT8, ISA_INT32);
  ty.b_nz = true;
  t = tiling(64, 64, 64, 16, 48, 32, 1, 3, 2, 1);
  check_fails(&cfg, &ty, &t, "tiling: base_n = 48 must be a multiple of C0 = 32 with an NZ B");
  ty.b_trans = true; /* an NZ N x K B has 16-row blocks: 48 is fine */
  assert_int_equal(rt_tiling_check(&cfg, &ty, &t, NULL), CS_OK);
}

static void test_rt_tiling_check_types(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_tiling t = tiling(64, 64, 64, 16, 16, 64, 1, 1, 1, 1);
  rt_matmul_types ty = types(ISA_INT8, ISA_INT32);
  ty.b = ISA_FP16;
  check_fails(&cfg, &ty, &t, "matmul: A is int8 and B is fp16; the cube multiplies equal types");
  ty = types(ISA_FP32, ISA_FP32);
  check_fails(&cfg, &ty, &t, "matmul: input type fp32 is not one the cube takes (int8, int4, fp16, bf16)");
  ty = types(ISA_FP16, ISA_INT32);
  check_fails(&cfg, &ty, &t, "matmul: fp16 inputs cannot produce int32 output");
  ty = types(ISA_INT8, ISA_BF16);
  check_fails(&cfg, &ty, &t, "matmul: int8 inputs cannot produce bf16 output");
}

/* int4 rows are stored two values a byte: every stored row must be whole bytes. */
static void test_rt_tiling_check_int4_rows(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_INT4, ISA_INT32);
  rt_tiling t = tiling(1, 17, 64, 16, 32, 64, 1, 1, 1, 1);
  check_fails(&cfg, &ty, &t, "matmul: int4 rows must be whole bytes: the stored row length (m 1, n 17, k 64) must be even");
  ty.b_trans = true; /* B stored N x K: rows of k = 64, fine; A rows of k too */
  assert_int_equal(rt_tiling_check(&cfg, &ty, &t, NULL), CS_OK);
  ty.a_trans = true; /* A stored K x M: rows of m = 1 */
  check_fails(&cfg, &ty, &t, "matmul: int4 rows must be whole bytes: the stored row length (m 1, n 17, k 64) must be even");
  /* rt_tiling_auto says the same */
  cs_err err;
  assert_int_equal(rt_tiling_auto(&cfg, &ty, 1, 17, 64, &t, &err), CS_EINVAL);
  assert_string_equal(err.msg, "matmul: int4 rows must be whole bytes: the stored row length (m 1, n 17, k 64) must be even");
}

static void test_rt_matmul_quant_mode_by_types(void **state) {
  (void)state;
  const struct {
    isa_dtype in, out;
    isa_quant_mode scalar, vector;
  } rows[] = {
      {ISA_INT8, ISA_INT32, ISA_QUANT_NO_QUANT, ISA_QUANT_NO_QUANT},
      {ISA_INT8, ISA_FP16, ISA_QUANT_DEQF16, ISA_QUANT_VDEQF16},
      {ISA_INT4, ISA_FP16, ISA_QUANT_DEQF16, ISA_QUANT_VDEQF16},
      {ISA_INT8, ISA_INT8, ISA_QUANT_REQ8, ISA_QUANT_VREQ8},
      {ISA_INT8, ISA_UINT8, ISA_QUANT_REQ8, ISA_QUANT_VREQ8},
      {ISA_FP16, ISA_FP32, ISA_QUANT_NO_QUANT, ISA_QUANT_NO_QUANT},
      {ISA_FP16, ISA_FP16, ISA_QUANT_F322F16, ISA_QUANT_F322F16},
      {ISA_BF16, ISA_BF16, ISA_QUANT_F322BF16, ISA_QUANT_F322BF16},
      {ISA_FP16, ISA_INT8, ISA_QUANT_QF322B8_PRE, ISA_QUANT_VQF322B8_PRE},
      {ISA_BF16, ISA_UINT8, ISA_QUANT_QF322B8_PRE, ISA_QUANT_VQF322B8_PRE},
      {ISA_FP16, ISA_INT32, ISA_QUANT_COUNT, ISA_QUANT_COUNT},
      {ISA_INT8, ISA_FP32, ISA_QUANT_COUNT, ISA_QUANT_COUNT},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    rt_matmul_types ty = types(rows[i].in, rows[i].out);
    assert_int_equal(rt_matmul_quant_mode(&ty, false), rows[i].scalar);
    assert_int_equal(rt_matmul_quant_mode(&ty, true), rows[i].vector);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rt_tiling_auto_int8_4096_cubed),
      cmocka_unit_test(test_rt_tiling_auto_fp16_8192_cubed),
      cmocka_unit_test(test_rt_tiling_auto_int4_4096_cubed),
      cmocka_unit_test(test_rt_tiling_auto_small_shapes),
      cmocka_unit_test(test_rt_tiling_auto_results_pass_the_check),
      cmocka_unit_test(test_rt_tiling_auto_teaching_config),
      cmocka_unit_test(test_rt_tiling_auto_falls_back_to_fewer_slots),
      cmocka_unit_test(test_rt_tiling_auto_reports_when_nothing_fits),
      cmocka_unit_test(test_rt_tiling_check_alignment_of_the_bases),
      cmocka_unit_test(test_rt_tiling_check_buffer_overflow),
      cmocka_unit_test(test_rt_tiling_check_slot_ranges_and_event_budget),
      cmocka_unit_test(test_rt_tiling_check_quant_words_and_nz),
      cmocka_unit_test(test_rt_tiling_check_types),
      cmocka_unit_test(test_rt_tiling_check_int4_rows),
      cmocka_unit_test(test_rt_matmul_quant_mode_by_types),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
