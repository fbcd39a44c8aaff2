/* Tests of the tiling (runtime/rt_tiling.h): the field table; every legality rule at its
 * boundary (accepted, and one step over refused with its exact message), every buffer at one byte
 * (fits when it has exactly what the tiling needs, refused with one byte less); the blocks, tile
 * orders and L1 loads of the schedule against hand-built lists (the A2 sample's 4 x 6 and 2 x 12
 * splits, the L2 rounds); the search's results; and the TCubeTiling JSON form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_tiling.h"

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

/* The simplest legal tiling of an m x n x k matmul: one core, one block, 16 x 16 x C0 tiles,
 * one buffer everywhere. */
static rt_tiling simple(uint32_t m, uint32_t n, uint32_t k, uint32_t c0) {
  rt_tiling t;
  memset(&t, 0, sizeof t);
  t.used_core_num = 1;
  t.m = t.single_core_m = m;
  t.n = t.single_core_n = n;
  t.ka = t.kb = t.single_core_k = k;
  t.base_m = t.base_n = 16;
  t.base_k = c0;
  t.depth_a1 = t.depth_b1 = t.step_m = t.step_n = t.step_ka = t.step_kb = 1;
  t.db_l0a = t.db_l0b = t.db_l0c = 1;
  t.l2_split = 1;
  return t;
}

/* The A2 sample's tiling at C5 (docs/KERNELS.md, "The A2 sample's optimisation ladder"; anchor
 * A1-C5): fp16 8192^3, 4 x 6 blocks of 2048 x 1536 on 24 cores, base 128 x 256 x 64, depthA1 16
 * with stepKa 8, depthB1 8 with stepKb 4, L0A and L0B double-buffered, one L0C buffer. */
static rt_tiling sample_c5(void) {
  rt_tiling t = simple(8192, 8192, 8192, 16);
  t.used_core_num = 24;
  t.single_core_m = 2048;
  t.single_core_n = 1536;
  t.base_m = 128;
  t.base_n = 256;
  t.base_k = 64;
  t.depth_a1 = 16;
  t.step_ka = 8;
  t.depth_b1 = 8;
  t.step_kb = 4;
  t.db_l0a = t.db_l0b = 2;
  return t;
}

static void check_ok(const sim_config *cfg, const rt_matmul_types *ty, const rt_tiling *t) {
  cs_err err;
  memset(&err, 0, sizeof err);
  if (rt_tiling_check(cfg, ty, t, &err) != CS_OK) fail_msg("refused: %s", err.msg);
}

static void check_fails(const sim_config *cfg, const rt_matmul_types *ty, const rt_tiling *t, const char *msg) {
  cs_err err;
  memset(&err, 0, sizeof err);
  assert_int_equal(rt_tiling_check(cfg, ty, t, &err), CS_EINVAL);
  assert_string_equal(err.msg, msg);
}

/* ---- the table ------------------------------------------------------------------------------- */

static void test_rt_tiling_table(void **state) {
  (void)state;
  /* TCubeTiling's order, then cubesim's own five */
  static const char *const camel[] = {"usedCoreNum", "M", "N", "Ka", "Kb", "singleCoreM", "singleCoreN", "singleCoreK",
                                      "baseM", "baseN", "baseK", "depthA1", "depthB1", "stepM", "stepN", "stepKa",
                                      "stepKb", "iterateOrder", "isBias", "dbL0A", "dbL0B", "dbL0C", "l2Split",
                                      "unitFlag", "coreSplit", "constTiling", "api"};
  assert_int_equal(RT_TF_COUNT, sizeof camel / sizeof camel[0]);
  rt_tiling t;
  memset(&t, 0, sizeof t);
  for (int i = 0; i < RT_TF_COUNT; i++) {
    assert_string_equal(rt_tiling_field_at(i)->camel, camel[i]);
    assert_int_equal(rt_tiling_field_find(camel[i]), i);
    assert_int_equal(rt_tiling_field_find(rt_tiling_field_at(i)->name), i);
    rt_tiling_set(&t, i, 1000u + (uint32_t)i);
  }
  assert_int_equal(t.used_core_num, 1000);
  assert_int_equal(t.base_k, 1010);
  assert_int_equal(t.core_split, 1024);
  for (int i = 0; i < RT_TF_COUNT; i++) assert_int_equal(rt_tiling_get(&t, i), 1000u + (uint32_t)i);
  assert_int_equal(rt_tiling_field_find("stepK"), -1);
  /* the fields that are not attributes follow from the inputs */
  const int shape[] = {RT_TF_m, RT_TF_n, RT_TF_ka, RT_TF_kb, RT_TF_is_bias};
  unsigned attrs = 0;
  for (int i = 0; i < RT_TF_COUNT; i++) attrs += rt_tiling_field_at(i)->attr;
  assert_int_equal(attrs, RT_TF_COUNT - 5);
  for (size_t i = 0; i < 5; i++) assert_false(rt_tiling_field_at(shape[i])->attr);
  assert_string_equal(rt_tiling_field_at(RT_TF_core_split)->names, "block,round_robin");
  assert_string_equal(rt_tiling_field_at(RT_TF_api)->names, "matmul,basic");
  assert_null(rt_tiling_field_at(RT_TF_base_m)->names);
  assert_null(rt_tiling_field_at(RT_TF_const_tiling)->names);
  /* the values of the named fields, both ways */
  assert_string_equal(rt_tiling_value_name(RT_TF_core_split, RT_SPLIT_ROUND_ROBIN), "round_robin");
  assert_string_equal(rt_tiling_value_name(RT_TF_api, RT_API_BASIC), "basic");
  assert_null(rt_tiling_value_name(RT_TF_api, 2));
  assert_null(rt_tiling_value_name(RT_TF_base_m, 0));
  assert_int_equal(rt_tiling_value_parse(RT_TF_core_split, "block"), RT_SPLIT_BLOCK);
  assert_int_equal(rt_tiling_value_parse(RT_TF_api, "matmul"), RT_API_MATMUL);
  assert_int_equal(rt_tiling_value_parse(RT_TF_api, "basic"), RT_API_BASIC);
  assert_int_equal(rt_tiling_value_parse(RT_TF_api, "block"), -1);
  assert_int_equal(rt_tiling_value_parse(RT_TF_api, "basi"), -1);
  assert_int_equal(rt_tiling_value_parse(RT_TF_base_m, "basic"), -1);
  assert_null(rt_tiling_field_at(RT_TF_COUNT));
}

/* ---- legality: every rule at its boundary ---------------------------------------------------- */

/* Every field one over its largest value, and one under its smallest. */
static void test_rt_tiling_check_ranges(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP32);
  for (int i = 0; i < RT_TF_COUNT; i++) {
    const rt_tiling_field *f = rt_tiling_field_at(i);
    rt_tiling t = simple(64, 64, 64, 16);
    char want[160];
    rt_tiling_set(&t, i, f->hi + 1);
    snprintf(want, sizeof want, "tiling: %s = %u is out of range [%u, %u]", f->name, f->hi + 1, f->lo, f->hi);
    check_fails(&cfg, &ty, &t, want);
    if (f->lo == 0) continue;
    rt_tiling_set(&t, i, f->lo - 1);
    snprintf(want, sizeof want, "tiling: %s = %u is out of range [%u, %u]", f->name, f->lo - 1, f->lo, f->hi);
    check_fails(&cfg, &ty, &t, want);
  }
}

static void test_rt_tiling_check_shape_and_split(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP32);
  rt_tiling t = simple(64, 48, 32, 16);
  check_ok(&cfg, &ty, &t);
  t.kb = 48;
  check_fails(&cfg, &ty, &t, "tiling: ka = 32 and kb = 48 differ; A's columns and B's rows are one K");
  t = simple(64, 48, 32, 16);
  t.single_core_k = 16;
  check_fails(&cfg, &ty, &t,
              "tiling: single_core_k = 16 but k = 32: like Ascend's Matmul, cubesim does not split K across cores");
  /* blocks: at most C (or a round) */
  t = simple(64, 48, 32, 16);
  t.single_core_m = 65;
  check_fails(&cfg, &ty, &t, "tiling: single_core_m = 65 is more than the 64 rows of C");
  t.single_core_m = 64;
  t.single_core_n = 49;
  check_fails(&cfg, &ty, &t, "tiling: single_core_n = 49 is more than the 48 columns of C");
  /* L2 rounds of ceil(m / l2_split) rows, none empty: 16 rows make 4 rounds of 4, not 5 */
  t = simple(16, 48, 32, 16);
  t.l2_split = 4;
  t.single_core_m = 4;
  check_ok(&cfg, &ty, &t);
  t.single_core_m = 5;
  check_fails(&cfg, &ty, &t, "tiling: single_core_m = 5 is more than the 4 rows of an l2_split round");
  t.single_core_m = 4;
  t.l2_split = 5;
  check_fails(&cfg, &ty, &t, "tiling: l2_split = 5 leaves a round empty (m = 16 in rounds of 4 rows)");
  /* the cores of the chip */
  t = simple(64, 48, 32, 16);
  t.used_core_num = 24;
  check_ok(&cfg, &ty, &t);
  t.used_core_num = 25;
  check_fails(&cfg, &ty, &t, "tiling: used_core_num = 25 but the chip has 24 cores (chip.aic_cores)");
  /* is_bias says what the matmul is */
  t = simple(64, 48, 32, 16);
  t.is_bias = 1;
  check_fails(&cfg, &ty, &t, "tiling: is_bias = 1 but the matmul has no bias");
  ty.has_bias = true;
  check_ok(&cfg, &ty, &t);
  t.is_bias = 0;
  check_fails(&cfg, &ty, &t, "tiling: is_bias = 0 but the matmul has a bias");
}

static void test_rt_tiling_check_bases_and_steps(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types f16 = types(ISA_FP16, ISA_FP32), i8 = types(ISA_INT8, ISA_INT32), i4 = types(ISA_INT4, ISA_INT32);
  rt_tiling t = simple(256, 256, 256, 16);
  t.base_m = 32;
  check_ok(&cfg, &f16, &t);
  t.base_m = 40;
  check_fails(&cfg, &f16, &t, "tiling: base_m = 40 and base_n = 16 must be multiples of 16 (whole fractals)");
  t.base_m = 16;
  t.base_n = 24;
  check_fails(&cfg, &f16, &t, "tiling: base_m = 16 and base_n = 24 must be multiples of 16 (whole fractals)");
  t.base_n = 16;
  t.base_k = 24;
  check_fails(&cfg, &f16, &t, "tiling: base_k = 24 must be a multiple of C0 = 16 for fp16");
  t.base_k = 32;
  check_ok(&cfg, &i8, &t);
  t.base_k = 48;
  check_fails(&cfg, &i8, &t, "tiling: base_k = 48 must be a multiple of C0 = 32 for int8");
  t.base_k = 64;
  check_ok(&cfg, &i4, &t);
  t.base_k = 96;
  check_fails(&cfg, &i4, &t, "tiling: base_k = 96 must be a multiple of C0 = 64 for int4");
  /* step_ka and step_kb: the larger a multiple of the smaller */
  t = simple(256, 256, 256, 16);
  t.step_ka = t.depth_a1 = 4;
  t.step_kb = t.depth_b1 = 2;
  check_ok(&cfg, &f16, &t);
  t.step_ka = t.depth_a1 = 3;
  check_fails(&cfg, &f16, &t, "tiling: step_ka = 3 and step_kb = 2: the larger must be a multiple of the smaller");
  /* step_m > 1 needs all of K in one L1 load of A: 16 x 16 = 256 = k */
  t = simple(256, 256, 256, 16);
  t.step_m = 2;
  t.step_ka = 16;
  t.depth_a1 = 32;
  check_ok(&cfg, &f16, &t);
  t.step_ka = 8;
  t.step_kb = 8;
  t.depth_a1 = 16;
  t.depth_b1 = 8;
  check_fails(&cfg, &f16, &t, "tiling: step_m = 2 needs all of K in one L1 load of A (step_ka * base_k = 128 < k = 256)");
  t = simple(256, 256, 256, 16);
  t.step_n = 2;
  t.step_kb = 16;
  t.depth_b1 = 32;
  check_ok(&cfg, &f16, &t);
  t.step_kb = 8;
  t.depth_b1 = 16;
  check_fails(&cfg, &f16, &t, "tiling: step_n = 2 needs all of K in one L1 load of B (step_kb * base_k = 128 < k = 256)");
  /* depth: one load (step_m * step_ka blocks) or two */
  t = simple(256, 256, 256, 16);
  t.step_ka = 4;
  t.depth_a1 = 4;
  check_ok(&cfg, &f16, &t);
  t.depth_a1 = 8;
  check_ok(&cfg, &f16, &t);
  t.depth_a1 = 5;
  check_fails(&cfg, &f16, &t, "tiling: depth_a1 = 5 must be step_m * step_ka = 4 (one L1 buffer) or 8 (two)");
  t.depth_a1 = 12;
  check_fails(&cfg, &f16, &t, "tiling: depth_a1 = 12 must be step_m * step_ka = 4 (one L1 buffer) or 8 (two)");
  t = simple(256, 256, 256, 16);
  t.depth_b1 = 3;
  check_fails(&cfg, &f16, &t, "tiling: depth_b1 = 3 must be step_n * step_kb = 1 (one L1 buffer) or 2 (two)");
  /* inside one L1 load, a transposing load starts on C0 x C0 squares */
  rt_matmul_types ta = i8;
  ta.a_trans = true;
  t = simple(128, 64, 64, 32);
  t.step_m = 2;
  t.step_ka = 2;
  t.depth_a1 = 4;
  t.base_m = 32;
  check_ok(&cfg, &ta, &t);
  t.base_m = 48;
  check_fails(&cfg, &ta, &t, "tiling: step_m = 2 with a transposed A needs base_m a multiple of C0 = 32 (got 48)");
  t = simple(64, 128, 64, 32);
  t.step_n = 2;
  t.step_kb = 2;
  t.depth_b1 = 4;
  t.base_n = 32;
  check_ok(&cfg, &i8, &t);
  t.base_n = 48;
  check_fails(&cfg, &i8, &t, "tiling: step_n = 2 with B not transposed needs base_n a multiple of C0 = 32 (got 48)");
}

/* NZ operands in whole fractals, blocks and tiles starting on them (Ascend's TCubeTiling rules). */
static void test_rt_tiling_check_nz_alignment(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_INT8, ISA_INT32);
  ty.a_nz = true;
  rt_tiling t = simple(64, 48, 64, 32);
  check_ok(&cfg, &ty, &t);
  t = simple(72, 48, 64, 32);
  check_fails(&cfg, &ty, &t, "tiling: m = 72 must be a multiple of 16 with an NZ A (whole 16-row fractals)");
  t = simple(64, 48, 80, 32);
  check_fails(&cfg, &ty, &t, "tiling: k = 80 must be a multiple of 32 with an NZ A (whole C0-wide column blocks)");
  t = simple(64, 48, 64, 32);
  t.single_core_m = 24;
  check_fails(&cfg, &ty, &t, "tiling: single_core_m = 24 must be a multiple of 16 with an NZ A (whole 16-row fractals)");
  t.single_core_m = 32;
  check_ok(&cfg, &ty, &t);
  t = simple(64, 48, 64, 32);
  t.l2_split = 2; /* rounds of 32 rows */
  t.single_core_m = 32;
  check_ok(&cfg, &ty, &t);
  t = simple(96, 48, 64, 32);
  t.l2_split = 4; /* rounds of 24 rows */
  t.single_core_m = 16;
  check_fails(&cfg, &ty, &t, "tiling: the rows of an l2_split round = 24 must be a multiple of 16 with an NZ A "
                             "(whole 16-row fractals)");
  /* transposed A (stored K x M): M in C0-wide column blocks, K in 16-row fractals */
  ty.a_trans = true;
  t = simple(64, 48, 48, 32);
  t.base_m = 32;
  check_ok(&cfg, &ty, &t);
  t.base_m = 16;
  check_fails(&cfg, &ty, &t, "tiling: base_m = 16 must be a multiple of 32 with an NZ A stored transposed (whole "
                             "C0-wide column blocks)");
  t = simple(48, 48, 48, 32);
  t.base_m = 32;
  check_fails(&cfg, &ty, &t, "tiling: m = 48 must be a multiple of 32 with an NZ A stored transposed (whole C0-wide "
                             "column blocks)");
  /* B not transposed (K x N): N in column blocks, K in fractals */
  ty = types(ISA_INT8, ISA_INT32);
  ty.b_nz = true;
  t = simple(64, 64, 48, 32);
  t.base_n = 32;
  check_ok(&cfg, &ty, &t);
  t.base_n = 16;
  check_fails(&cfg, &ty, &t, "tiling: base_n = 16 must be a multiple of 32 with an NZ B (whole C0-wide column blocks)");
  t.base_n = 32;
  t.single_core_n = 48;
  check_fails(&cfg, &ty, &t, "tiling: single_core_n = 48 must be a multiple of 32 with an NZ B (whole C0-wide column "
                             "blocks)");
  t = simple(64, 64, 40, 32);
  t.base_n = 32;
  check_fails(&cfg, &ty, &t, "tiling: k = 40 must be a multiple of 16 with an NZ B (whole 16-row fractals)");
  /* B transposed (N x K): K in column blocks, N in fractals */
  ty.b_trans = true;
  t = simple(64, 48, 64, 32);
  check_ok(&cfg, &ty, &t);
  t = simple(64, 48, 48, 32);
  check_fails(&cfg, &ty, &t, "tiling: k = 48 must be a multiple of 32 with an NZ B stored transposed (whole C0-wide "
                             "column blocks)");
  t = simple(64, 40, 64, 32);
  check_fails(&cfg, &ty, &t, "tiling: n = 40 must be a multiple of 16 with an NZ B stored transposed (whole 16-row "
                             "fractals)");
}

/* The rows a GM -> L1 copy with ND -> NZ reads (at most 65535 elements) and writes (16384). */
static void test_rt_tiling_check_nd_copy_limits(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP32);
  rt_tiling t = simple(16, 16, 65535, 16);
  check_ok(&cfg, &ty, &t);
  t = simple(16, 16, 65536, 16);
  check_fails(&cfg, &ty, &t, "tiling: k = 65536: an ND A has rows of 65536 elements, more than the 65535 a GM -> L1 copy "
                             "reads");
  ty.a_trans = true; /* A stored K x M: rows of m; B K x N: rows of n */
  check_ok(&cfg, &ty, &t);
  t = simple(16, 65536, 16, 16);
  check_fails(&cfg, &ty, &t, "tiling: n = 65536: an ND B has rows of 65536 elements, more than the 65535 a GM -> L1 copy "
                             "reads");
  ty.b_trans = true;
  check_ok(&cfg, &ty, &t);
  /* a transposed A's L1 load is step_ka * base_k rows: 16384 fit (with the K tail it is smaller) */
  ty = types(ISA_FP16, ISA_FP32);
  ty.a_trans = true;
  cfg.buffers_l1_bytes = 4 << 20; /* room for the long loads */
  t = simple(16, 16, 32768, 16);
  t.step_ka = 1024;
  t.depth_a1 = 1024;
  check_ok(&cfg, &ty, &t);
  t.step_ka = t.step_kb = 1025;
  t.depth_a1 = t.depth_b1 = 1025;
  check_fails(&cfg, &ty, &t, "tiling: step_ka * base_k = 16400 rows of an ND A stored transposed in one L1 load; a GM -> "
                             "L1 copy takes at most 16384");
}

static void test_rt_tiling_check_int4_bytes(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_INT4, ISA_INT32);
  rt_tiling t = simple(1, 17, 64, 64);
  check_fails(&cfg, &ty, &t, "matmul: int4 rows must be whole bytes: the stored row length (m 1, n 17, k 64) must be even");
  ty.b_trans = true; /* B stored N x K: rows of k = 64 */
  check_ok(&cfg, &ty, &t);
  ty.a_trans = true; /* A stored K x M: rows of m = 1 */
  check_fails(&cfg, &ty, &t, "matmul: int4 rows must be whole bytes: the stored row length (m 1, n 17, k 64) must be even");
  /* a block of a transposed A starts at an even column */
  t = simple(64, 16, 64, 64);
  t.single_core_m = 22;
  check_ok(&cfg, &ty, &t);
  t.single_core_m = 21;
  check_fails(&cfg, &ty, &t, "tiling: int4 blocks must start on whole bytes: single_core_m = 21 and the l2_split rounds "
                             "must be even");
}

static void test_rt_tiling_check_types(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_tiling t = simple(64, 64, 64, 32);
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

/* ---- buffers: exactly enough fits, one byte less is refused ---------------------------------- */

/* The A2 sample's C5 L1: A1 two loads of 128 x (8 x 64) fp16 = 131072 B, B1 two of 256 x (4 x 64)
 * = 131072 B: 524288 B, all of the 910B's L1. Without a bias nothing else is staged there; with
 * one, a C1 buffer of 256 biases x 4 B comes on top. */
static void test_rt_tiling_l1_to_the_byte(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP16);
  rt_tiling t = sample_c5();
  uint64_t fp[ISA_MEM_COUNT];
  rt_tiling_footprint(&ty, &t, fp);
  assert_int_equal(fp[ISA_MEM_L1], 524288);
  assert_int_equal(fp[ISA_MEM_L0A], 2 * 4 * 8 * 512); /* 4 k-blocks x 8 m-blocks of 512 B, twice */
  assert_int_equal(fp[ISA_MEM_L0B], 2 * 4 * 16 * 512);
  assert_int_equal(fp[ISA_MEM_L0C], 128 * 256 * 4);
  assert_int_equal(fp[ISA_MEM_BT], 0);
  assert_int_equal(fp[ISA_MEM_FB], 0);
  check_ok(&cfg, &ty, &t);
  cfg.buffers_l1_bytes = 524287;
  check_fails(&cfg, &ty, &t,
              "tiling: L1 needs 524288 bytes but has 524287: A1 2 x 131072 B (depth_a1 16 = 2 x step_m 1 x step_ka 8 "
              "blocks of base_m 128 x base_k 64) + B1 2 x 131072 B (depth_b1 8 = 2 x step_n 1 x step_kb 4 blocks of "
              "base_n 256 x base_k 64); lower depth_a1/depth_b1, step_ka/step_kb or the base sizes");
  cfg = defaults();
  ty.has_bias = true;
  t.is_bias = 1;
  rt_tiling_footprint(&ty, &t, fp);
  assert_int_equal(fp[ISA_MEM_L1], 524288 + 1024);
  assert_int_equal(fp[ISA_MEM_BT], 1024);
  check_fails(&cfg, &ty, &t,
              "tiling: L1 needs 525312 bytes but has 524288: A1 2 x 131072 B (depth_a1 16 = 2 x step_m 1 x step_ka 8 "
              "blocks of base_m 128 x base_k 64) + B1 2 x 131072 B (depth_b1 8 = 2 x step_n 1 x step_kb 4 blocks of "
              "base_n 256 x base_k 64) + C1 1 x 1024 B (bias staging); lower depth_a1/depth_b1, step_ka/step_kb or the "
              "base sizes");
  cfg.buffers_l1_bytes = 525312;
  check_ok(&cfg, &ty, &t);
  /* the case: base 128 x 128 x 64, step_k 8, two buffers each: 4 x 131072 B */
  cfg = defaults();
  ty.has_bias = false;
  t = simple(4096, 4096, 4096, 16);
  t.base_m = t.base_n = 128;
  t.base_k = 64;
  t.step_ka = t.step_kb = 8;
  t.depth_a1 = t.depth_b1 = 16;
  check_ok(&cfg, &ty, &t);
  /* int8 to fp16 with per-column words: C1 stages 8-byte words (and 4-byte biases in a second buffer) */
  ty = types(ISA_INT8, ISA_FP16);
  ty.has_bias = true;
  t = simple(256, 256, 256, 32);
  t.is_bias = 1;
  t.base_n = 64;
  rt_tiling_footprint(&ty, &t, fp);
  assert_int_equal(fp[ISA_MEM_L1], 16 * 32 + 64 * 32 + 2 * 64 * 8);
  assert_int_equal(fp[ISA_MEM_FB], 64 * 8);
  assert_int_equal(fp[ISA_MEM_BT], 64 * 4);
}

static void test_rt_tiling_l0_to_the_byte(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP32);
  /* L0A: 128 x 128 fp16 = 8 k-blocks x 8 m-blocks x 512 B = 32768 B, two buffers = all of L0A */
  rt_tiling t = simple(1024, 1024, 1024, 16);
  t.base_m = 128;
  t.base_k = 128;
  t.db_l0a = 2;
  check_ok(&cfg, &ty, &t);
  cfg.buffers_l0a_bytes = 65535;
  check_fails(&cfg, &ty, &t, "tiling: L0A needs 65536 bytes but has 65535: 2 x 32768 B (db_l0a 2; base_m 128 x base_k 128 "
                             "of fp16); set db_l0a = 1 or lower base_m or base_k");
  /* L0B: base_k 128 with base_n 256 on fp16 fills L0B once: accepted with one buffer, not two */
  cfg = defaults();
  t = simple(1024, 1024, 1024, 16);
  t.base_m = 128;
  t.base_n = 256;
  t.base_k = 128;
  check_ok(&cfg, &ty, &t);
  t.db_l0b = 2;
  check_fails(&cfg, &ty, &t, "tiling: L0B needs 131072 bytes but has 65536: 2 x 65536 B (db_l0b 2; base_n 256 x base_k 128 "
                             "of fp16); set db_l0b = 1 or lower base_n or base_k");
  t.db_l0b = 1;
  cfg.buffers_l0b_bytes = 65535;
  check_fails(&cfg, &ty, &t, "tiling: L0B needs 65536 bytes but has 65535: 1 x 65536 B (db_l0b 1; base_n 256 x base_k 128 "
                             "of fp16); lower base_n or base_k");
  /* an int8 B that is not transposed pads its columns to C0 = 32 for the transposing load */
  cfg = defaults();
  rt_matmul_types i8 = types(ISA_INT8, ISA_INT32);
  t = simple(64, 64, 4096, 32);
  t.base_k = 2048;
  check_ok(&cfg, &i8, &t); /* 64 k-blocks x 2 fractals x 512 B = 65536 */
  t.base_k = 2080;
  check_fails(&cfg, &i8, &t, "tiling: L0B needs 66560 bytes but has 65536: 1 x 66560 B (db_l0b 1; base_n 16 (padded to 32, "
                             "whole C0 x C0 squares) x base_k 2080 of int8); lower base_n or base_k");
  /* L0C: 128 x 256 accumulators of 4 B = all of it, once */
  t = simple(1024, 1024, 1024, 16);
  t.base_m = 128;
  t.base_n = 256;
  check_ok(&cfg, &ty, &t);
  t.db_l0c = 2;
  check_fails(&cfg, &ty, &t, "tiling: L0C needs 262144 bytes but has 131072: 2 x 131072 B (db_l0c 2; base_m 128 x base_n "
                             "256 of 4-byte accumulators); set db_l0c = 1 or lower base_m or base_n");
  t.db_l0c = 1;
  cfg.buffers_l0c_bytes = 131071;
  check_fails(&cfg, &ty, &t, "tiling: L0C needs 131072 bytes but has 131071: 1 x 131072 B (db_l0c 1; base_m 128 x base_n "
                             "256 of 4-byte accumulators); lower base_m or base_n");
}

static void test_rt_tiling_bt_and_fb_to_the_byte(void **state) {
  (void)state;
  sim_config cfg = defaults();
  /* BT holds 1024 B: 256 fp32 biases */
  rt_matmul_types ty = types(ISA_FP16, ISA_FP32);
  ty.has_bias = true;
  rt_tiling t = simple(64, 512, 64, 16);
  t.is_bias = 1;
  t.base_n = 256;
  check_ok(&cfg, &ty, &t);
  t.base_n = 272;
  check_fails(&cfg, &ty, &t, "tiling: BT needs 1088 bytes (base_n 272 biases of 4 B) but has 1024; lower base_n");
  /* no bias: no BT, no C1, whatever base_n */
  ty.has_bias = false;
  t.is_bias = 0;
  t.base_n = 512;
  check_ok(&cfg, &ty, &t);
  uint64_t fp[ISA_MEM_COUNT];
  rt_tiling_footprint(&ty, &t, fp);
  assert_int_equal(fp[ISA_MEM_BT], 0);
  assert_int_equal(fp[ISA_MEM_L1], 16 * 16 * 2 + 512 * 16 * 2);
  /* FB holds 2048 B: 256 quant words; fp32 output takes none */
  ty = types(ISA_FP16, ISA_INT8);
  t.base_n = 256;
  check_ok(&cfg, &ty, &t);
  t.base_n = 272;
  check_fails(&cfg, &ty, &t, "tiling: FB needs 2176 bytes (base_n 272 quant words of 8 B) but has 2048; lower base_n");
  cfg.buffers_fb_bytes = 2176;
  check_ok(&cfg, &ty, &t);
}

/* ---- the schedule ---------------------------------------------------------------------------- */

static void expect_rect(rt_rect r, uint32_t m0, uint32_t n0, uint32_t ml, uint32_t nl) {
  char got[64], want[64];
  snprintf(got, sizeof got, "(%u, %u) %u x %u", r.m0, r.n0, r.ml, r.nl);
  snprintf(want, sizeof want, "(%u, %u) %u x %u", m0, n0, ml, nl);
  assert_string_equal(got, want);
}

/* The ladder of docs/KERNELS.md (anchors A1-C*): C3 splits 8192 x 8192 into 4 x 6 blocks of
 * 2048 x 1536, so the last column of blocks has a 512-column tail; C2 into 2 x 12 blocks of
 * 4096 x 683, tail 679; C6 cuts M into two rounds with blocks of 1024 rows. Blocks go down M
 * first. */
static void test_rt_tiling_blocks_of_the_a2_sample(void **state) {
  (void)state;
  rt_tiling t = sample_c5();
  assert_int_equal(rt_tiling_block_count(&t), 24);
  expect_rect(rt_tiling_block(&t, 0), 0, 0, 2048, 1536);
  expect_rect(rt_tiling_block(&t, 1), 2048, 0, 2048, 1536);
  expect_rect(rt_tiling_block(&t, 3), 6144, 0, 2048, 1536);
  expect_rect(rt_tiling_block(&t, 4), 0, 1536, 2048, 1536);
  expect_rect(rt_tiling_block(&t, 23), 6144, 7680, 2048, 512);
  assert_int_equal(rt_tiling_tile_count(&t, 2048, 1536), 16 * 6);
  assert_int_equal(rt_tiling_tile_count(&t, 2048, 512), 16 * 2);
  t.single_core_m = 4096;
  t.single_core_n = 683;
  assert_int_equal(rt_tiling_block_count(&t), 24);
  expect_rect(rt_tiling_block(&t, 1), 4096, 0, 4096, 683);
  expect_rect(rt_tiling_block(&t, 22), 0, 7513, 4096, 679);
  expect_rect(rt_tiling_block(&t, 23), 4096, 7513, 4096, 679);
  assert_int_equal(rt_tiling_tile_count(&t, 4096, 683), 32 * 3); /* 683 = 2 x 256 + 171 */
  t = sample_c5();
  t.l2_split = 2;
  t.single_core_m = 1024;
  assert_int_equal(rt_tiling_block_count(&t), 48);
  expect_rect(rt_tiling_block(&t, 3), 3072, 0, 1024, 1536);
  expect_rect(rt_tiling_block(&t, 23), 3072, 7680, 1024, 512);
  expect_rect(rt_tiling_block(&t, 24), 4096, 0, 1024, 1536);
  expect_rect(rt_tiling_block(&t, 47), 7168, 7680, 1024, 512);
  /* rounds of unequal rows: 100 = 50 + 50 in blocks of 32 */
  t = simple(100, 64, 64, 16);
  t.l2_split = 2;
  t.single_core_m = 32;
  assert_int_equal(rt_tiling_block_count(&t), 4);
  expect_rect(rt_tiling_block(&t, 1), 32, 0, 18, 64);
  expect_rect(rt_tiling_block(&t, 2), 50, 0, 32, 64);
  expect_rect(rt_tiling_block(&t, 3), 82, 0, 18, 64);
}

/* A block of 4 x 4 tiles of 16 x 16 (and a 40 x 40 block with tails). */
static void test_rt_tiling_tile_orders(void **state) {
  (void)state;
  rt_tiling t = simple(64, 64, 64, 16);
  /* N first: row by row */
  t.iterate_order = 1;
  const uint32_t row_by_row[6][2] = {{0, 0}, {0, 16}, {0, 32}, {0, 48}, {16, 0}, {16, 16}};
  for (int i = 0; i < 6; i++) expect_rect(rt_tiling_tile(&t, 64, 64, (uint64_t)i), row_by_row[i][0], row_by_row[i][1], 16, 16);
  /* M first: column by column */
  t.iterate_order = 0;
  const uint32_t col_by_col[6][2] = {{0, 0}, {16, 0}, {32, 0}, {48, 0}, {0, 16}, {16, 16}};
  for (int i = 0; i < 6; i++) expect_rect(rt_tiling_tile(&t, 64, 64, (uint64_t)i), col_by_col[i][0], col_by_col[i][1], 16, 16);
  /* M first with step_m = step_n = 2: columns of 2 tiles; in them rows of 2 tiles; row by row */
  t.step_m = t.step_n = 2;
  const uint32_t m_steps[10][2] = {{0, 0},  {0, 16}, {16, 0},  {16, 16}, {32, 0},
                                   {32, 16}, {48, 0}, {48, 16}, {0, 32},  {0, 48}};
  for (int i = 0; i < 10; i++) expect_rect(rt_tiling_tile(&t, 64, 64, (uint64_t)i), m_steps[i][0], m_steps[i][1], 16, 16);
  /* N first with the same steps: rows of 2 tiles; in them columns of 2; column by column */
  t.iterate_order = 1;
  const uint32_t n_steps[10][2] = {{0, 0},  {16, 0}, {0, 16},  {16, 16}, {0, 32},
                                   {16, 32}, {0, 48}, {16, 48}, {32, 0},  {48, 0}};
  for (int i = 0; i < 10; i++) expect_rect(rt_tiling_tile(&t, 64, 64, (uint64_t)i), n_steps[i][0], n_steps[i][1], 16, 16);
  /* tails: 40 = 16 + 16 + 8, and a group of 3 tile rows with step_m 2 ends with one */
  t = simple(40, 40, 64, 16);
  t.iterate_order = 0;
  t.step_m = 2;
  assert_int_equal(rt_tiling_tile_count(&t, 40, 40), 9);
  expect_rect(rt_tiling_tile(&t, 40, 40, 0), 0, 0, 16, 16);
  expect_rect(rt_tiling_tile(&t, 40, 40, 1), 16, 0, 16, 16);
  expect_rect(rt_tiling_tile(&t, 40, 40, 2), 32, 0, 8, 16);
  expect_rect(rt_tiling_tile(&t, 40, 40, 8), 32, 32, 8, 8);
}

/* rt_tile_walk gives rt_tiling_tile's tiles one after the other, from any start, in both
 * orders, over steps that do and do not divide the tile counts, blocks with tails, and one tile
 * row or column. */
static void test_rt_tile_walk_matches_tiling_tile(void **state) {
  (void)state;
  static const uint32_t dims[] = {16, 40, 64, 100, 208, 333};
  static const uint32_t steps[] = {1, 2, 3, 4, 8};
  unsigned checked = 0;
  for (size_t a = 0; a < sizeof dims / sizeof dims[0]; a++)
    for (size_t b = 0; b < sizeof dims / sizeof dims[0]; b++)
      for (size_t x = 0; x < sizeof steps / sizeof steps[0]; x++)
        for (size_t y = 0; y < sizeof steps / sizeof steps[0]; y++)
          for (uint32_t order = 0; order < 2; order++) {
            rt_tiling t = simple(dims[a], dims[b], 64, 16);
            t.step_m = steps[x];
            t.step_n = steps[y];
            t.iterate_order = order;
            uint64_t nt = rt_tiling_tile_count(&t, dims[a], dims[b]);
            for (uint64_t first = 0; first < nt; first += 1 + nt / 3) {
              rt_tile_walk w;
              rt_tile_walk_init(&w, &t, dims[a], dims[b], first);
              for (uint64_t i = first; i < nt; i++, checked++) {
                rt_rect want = rt_tiling_tile(&t, dims[a], dims[b], i), got = rt_tile_walk_next(&w);
                if (memcmp(&want, &got, sizeof want) != 0)
                  fail_msg("%u x %u, steps %u x %u, order %u, tile %llu from %llu: (%u, %u, %u, %u), want (%u, %u, %u, %u)",
                           dims[a], dims[b], steps[x], steps[y], order, (unsigned long long)i,
                           (unsigned long long)first, got.m0, got.n0, got.ml, got.nl, want.m0, want.n0, want.ml,
                           want.nl);
              }
            }
          }
  assert_true(checked > 100000);
}

/* K = 64 in base_k 16: A loads all of K at once (step_ka 4), B half of it (step_kb 2), so each
 * tile takes two steps of 32; with step_m 1 a tile row keeps its A load, B changes every step. */
static void test_rt_tiling_schedule_loads(void **state) {
  (void)state;
  rt_tiling t = simple(32, 32, 64, 16);
  t.iterate_order = 1;
  t.step_ka = 4;
  t.depth_a1 = 8;
  t.step_kb = 2;
  t.depth_b1 = 4;
  rt_sched sc;
  rt_sched_init(&sc, &t, 32, 32, 0, 4, 1);
  assert_int_equal(rt_sched_steps(&sc), 8);
  const struct {
    uint32_t m0, n0, k0;
    bool first, last, new_a, new_b;
    uint32_t b_k0;
  } want[8] = {
      {0, 0, 0, true, false, true, true, 0},     {0, 0, 32, false, true, false, true, 32},
      {0, 16, 0, true, false, false, true, 0},   {0, 16, 32, false, true, false, true, 32},
      {16, 0, 0, true, false, true, true, 0},    {16, 0, 32, false, true, false, true, 32},
      {16, 16, 0, true, false, false, true, 0},  {16, 16, 32, false, true, false, true, 32},
  };
  for (uint64_t i = 0; i < 8; i++) {
    rt_step s = rt_sched_step(&sc, i);
    assert_int_equal(s.tile.m0, want[i].m0);
    assert_int_equal(s.tile.n0, want[i].n0);
    assert_int_equal(s.k0, want[i].k0);
    assert_int_equal(s.kl, 32);
    assert_int_equal(s.first_k, want[i].first);
    assert_int_equal(s.last_k, want[i].last);
    assert_int_equal(s.new_a, want[i].new_a);
    assert_int_equal(s.new_b, want[i].new_b);
    expect_rect(s.a_unit, want[i].m0, 0, 16, 64);         /* A: the tile's rows, all of K */
    expect_rect(s.b_unit, want[i].b_k0, want[i].n0, 32, 16); /* B: half of K, the tile's columns */
  }
  /* B all of K in groups of step_n 2: one B load for the whole block, two A loads (rows) */
  t.step_kb = 4;
  t.depth_b1 = 8;
  t.step_n = 2;
  t.depth_b1 = 16;
  rt_sched_init(&sc, &t, 32, 32, 0, 4, 1);
  assert_int_equal(rt_sched_steps(&sc), 4);
  unsigned a_loads = 0, b_loads = 0;
  for (uint64_t i = 0; i < 4; i++) {
    rt_step s = rt_sched_step(&sc, i);
    a_loads += s.new_a;
    b_loads += s.new_b;
    expect_rect(s.b_unit, 0, 0, 64, 32);
  }
  assert_int_equal(a_loads, 2);
  assert_int_equal(b_loads, 1);
  /* a range of tiles 1, 3 (round-robin over 2 cores): the second tile is another row */
  rt_sched_init(&sc, &t, 32, 32, 1, 2, 2);
  assert_int_equal(rt_sched_steps(&sc), 2);
  rt_step s = rt_sched_step(&sc, 1);
  expect_rect(s.tile, 16, 16, 16, 16);
  assert_true(s.new_a);
  assert_false(s.new_b);
}

/* ---- estimate and search --------------------------------------------------------------------- */

/* Two L1 buffers let the copies run under the cube; one makes them wait: never slower. The same
 * for L0. */
static void test_rt_tiling_estimate_prefers_double_buffers(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP16);
  rt_tiling two = sample_c5(), one = two;
  one.depth_a1 = 8;
  one.depth_b1 = 4;
  rt_estimate e2 = rt_tiling_estimate(&cfg, &ty, &two, 1), e1 = rt_tiling_estimate(&cfg, &ty, &one, 1);
  assert_true(e2.cycles < e1.cycles);
  assert_true(e2.cube_cycles > 0 && e2.mte2_cycles > 0 && e2.mte1_cycles > 0 && e2.instructions > 0);
  /* the cube of the slowest core: 16 x 6 tiles of 128 x 128 x 8192 in mmads of 128 x 256 x 64;
   * MTE2 feeds it slower than it computes, so each mmad starts on an idle cube and pays its
   * restart too */
  double mmads = 16.0 * 6 * 128, compute = mmads * (8 * 16 * 4 + (double)cfg.cube_head_cycles);
  assert_true(e2.mte2_cycles > compute);
  assert_true(e2.cube_cycles == compute + mmads * (double)cfg.cube_restart_cycles);
  one = two;
  one.db_l0a = one.db_l0b = 1;
  assert_true(rt_tiling_estimate(&cfg, &ty, &one, 1).cycles > e2.cycles);
}

static void test_rt_tiling_search_results_are_legal(void **state) {
  (void)state;
  sim_config cfg = defaults();
  const struct {
    isa_dtype in, out;
  } kinds[] = {{ISA_INT8, ISA_INT32}, {ISA_INT8, ISA_FP16}, {ISA_INT4, ISA_INT32}, {ISA_FP16, ISA_FP32},
               {ISA_BF16, ISA_BF16},  {ISA_FP16, ISA_INT8}};
  const uint32_t shapes[][3] = {{1, 1, 1}, {1, 17, 32}, {37, 300, 45}, {4096, 16, 1024}, {16, 4096, 64}, {130, 258, 4094},
                                {2048, 2048, 2048}};
  unsigned checked = 0;
  for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++)
    for (unsigned flags = 0; flags < 8; flags++)
      for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        rt_matmul_types ty = types(kinds[ki].in, kinds[ki].out);
        ty.has_bias = flags & 1;
        ty.a_trans = (flags >> 1) & 1;
        ty.b_trans = (flags >> 2) & 1;
        uint32_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
        if (ty.a == ISA_INT4 && ((!ty.a_trans && k % 2) || (ty.a_trans && m % 2) || (!ty.b_trans && n % 2) ||
                                 (ty.b_trans && k % 2)))
          continue;
        rt_tiling start;
        memset(&start, 0, sizeof start);
        start.m = m;
        start.n = n;
        start.ka = start.kb = k;
        rt_tiling_choice out[8];
        unsigned count = 0;
        cs_err err;
        if (rt_tiling_search(&cfg, &ty, 1, &start, 0, out, 8, &count, &err) != CS_OK) fail_msg("%s", err.msg);
        assert_true(count >= 1);
        for (unsigned i = 0; i < count; i++) {
          if (rt_tiling_check(&cfg, &ty, &out[i].t, &err) != CS_OK) fail_msg("candidate %u: %s", i, err.msg);
          if (i) assert_true(out[i].est.cycles >= out[i - 1].est.cycles * (1 - 1e-3));
        }
        checked++;
      }
  assert_true(checked > 300);
}

/* Given fields stay as given; the rest is chosen; a given combination nothing can complete is
 * refused with the check's verdict on the simplest candidate that keeps it. */
static void test_rt_tiling_search_keeps_given_fields(void **state) {
  (void)state;
  sim_config cfg = defaults();
  rt_matmul_types ty = types(ISA_FP16, ISA_FP16);
  rt_tiling start;
  memset(&start, 0, sizeof start);
  start.m = start.n = start.ka = start.kb = 2048;
  start.base_m = 64;
  start.iterate_order = 0;
  start.core_split = RT_SPLIT_BLOCK;
  start.single_core_n = 512;
  rt_tiling_mask given = RT_TILING_BIT(base_m) | RT_TILING_BIT(iterate_order) | RT_TILING_BIT(core_split) |
                         RT_TILING_BIT(single_core_n);
  rt_tiling_choice out[4];
  unsigned count = 0;
  cs_err err;
  assert_int_equal(rt_tiling_search(&cfg, &ty, 1, &start, given, out, 4, &count, &err), CS_OK);
  assert_true(count >= 1);
  for (unsigned i = 0; i < count; i++) {
    assert_int_equal(out[i].t.base_m, 64);
    assert_int_equal(out[i].t.iterate_order, 0);
    assert_int_equal(out[i].t.core_split, RT_SPLIT_BLOCK);
    assert_int_equal(out[i].t.single_core_n, 512);
    assert_int_equal(out[i].t.single_core_k, 2048);
  }
  /* base_k 4064 on int8 cannot fit L0B even in the smallest tile */
  ty = types(ISA_INT8, ISA_INT32);
  memset(&start, 0, sizeof start);
  start.m = start.n = 64;
  start.ka = start.kb = 8192;
  start.base_k = 4064;
  assert_int_equal(rt_tiling_search(&cfg, &ty, 1, &start, RT_TILING_BIT(base_k), out, 4, &count, &err), CS_EINVAL);
  assert_string_equal(err.msg, "tiling: L0B needs 130048 bytes but has 65536: 1 x 130048 B (db_l0b 1; base_n 16 (padded to "
                               "32, whole C0 x C0 squares) x base_k 4064 of int8); lower base_n or base_k");
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static char *json_of(const rt_tiling *t) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cs_json j;
  cs_json_init(&j, f, false);
  cs_json_obj_begin(&j);
  rt_tiling_json_members(t, &j);
  cs_json_obj_end(&j);
  fclose(f);
  return buf;
}

static void test_rt_tiling_json_round_trip(void **state) {
  (void)state;
  rt_tiling t = sample_c5();
  t.l2_split = 2;
  t.core_split = RT_SPLIT_ROUND_ROBIN;
  char *text = json_of(&t);
  assert_non_null(strstr(text, "\"usedCoreNum\":24,\"M\":8192,\"N\":8192,\"Ka\":8192,\"Kb\":8192,\"singleCoreM\":2048,"));
  assert_non_null(strstr(text, "\"l2Split\":2,\"unitFlag\":0,\"coreSplit\":\"round_robin\",\"constTiling\":0,\"api\":\"matmul\"}"));
  rt_tiling back;
  memset(&back, 0xAB, sizeof back);
  rt_tiling_mask found = 0;
  char ignored[64];
  cs_err err;
  assert_int_equal(rt_tiling_read_json(text, strlen(text), "t.json", &back, &found, ignored, sizeof ignored, &err), CS_OK);
  assert_int_equal(found, (rt_tiling_mask)((1u << RT_TF_COUNT) - 1));
  assert_memory_equal(&back, &t, sizeof t);
  assert_string_equal(ignored, "");
  free(text);
}

static void test_rt_tiling_json_reading(void **state) {
  (void)state;
  /* what Ascend prints has more fields: those cubesim does not model are named when not zero */
  const char *text = "{\n  \"baseM\": 128, \"baseN\": 256,\n  \"shareMode\": 0, \"transLength\": 131072,\n"
                     "  \"isBias\": true, \"coreSplit\": 0, \"BatchNum\": 1\n}\n";
  rt_tiling t;
  memset(&t, 0, sizeof t);
  rt_tiling_mask found = 0;
  char ignored[64];
  cs_err err;
  assert_int_equal(rt_tiling_read_json(text, strlen(text), "t.json", &t, &found, ignored, sizeof ignored, &err), CS_OK);
  assert_int_equal(found, RT_TILING_BIT(base_m) | RT_TILING_BIT(base_n) | RT_TILING_BIT(is_bias) | RT_TILING_BIT(core_split));
  assert_int_equal(t.base_m, 128);
  assert_int_equal(t.base_n, 256);
  assert_int_equal(t.is_bias, 1);
  assert_string_equal(ignored, "transLength, BatchNum");
  const struct {
    const char *text, *msg;
  } bad[] = {
      {"{\"baseMM\": 128}", "t.json: unknown TCubeTiling field \"baseMM\" (cubesim reads usedCoreNum, M, N, Ka, Kb, "
                           "singleCoreM, singleCoreN, singleCoreK, baseM, baseN, baseK, depthA1, depthB1, stepM, stepN, "
                           "stepKa, stepKb, iterateOrder, isBias, dbL0A, dbL0B, dbL0C, l2Split, unitFlag, coreSplit, constTiling, api)"},
      {"{\"baseM\": 4096}", "t.json: baseM = 4096 is out of range [16, 4080]"},
      {"{\"dbL0A\": -1}", "t.json: dbL0A = -1 is out of range [1, 2]"},
      {"{\"baseK\": 64.0}", "t.json: baseK: expected an integer, got 64.0"},
      {"{\"baseK\": \"64\"}", "t.json: baseK: expected an integer, got a string"},
      {"{\"isBias\": null}", "t.json: isBias: expected an integer or true/false, got null"},
      {"{\"coreSplit\": \"blocks\"}", "t.json: coreSplit: \"blocks\" is not one of block,round_robin"},
      {"{\"coreSplit\": true}", "t.json: coreSplit: expected an integer or a name (block,round_robin), got true or false"},
      {"{\"shareMode\": \"x\"}", "t.json: shareMode: expected an integer, got a string"},
      {"{\"baseM\": {\"x\": 1}}", "t.json: baseM: expected an integer, got an object or array"},
      {"[1]", "t.json: a TCubeTiling is a JSON object of its fields, not array"},
      /* the document itself: the reader's verdict, where it is */
      {"{\"baseM\": 16,\n \"baseM\": 32}", "t.json:2:2: duplicate key \"baseM\" in an object"},
      {"{\"baseM\": 016}", "t.json:1:11: leading zeros are not allowed in numbers"},
      {"{\"baseM\": 16", "t.json:1:13: ',' or '}' expected after an object member, found end of input"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&err, 0, sizeof err);
    assert_int_equal(rt_tiling_read_json(bad[i].text, strlen(bad[i].text), "t.json", &t, &found, ignored, sizeof ignored,
                                         &err),
                     CS_EINVAL);
    assert_string_equal(err.msg, bad[i].msg);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rt_tiling_table),
      cmocka_unit_test(test_rt_tiling_check_ranges),
      cmocka_unit_test(test_rt_tiling_check_shape_and_split),
      cmocka_unit_test(test_rt_tiling_check_bases_and_steps),
      cmocka_unit_test(test_rt_tiling_check_nz_alignment),
      cmocka_unit_test(test_rt_tiling_check_nd_copy_limits),
      cmocka_unit_test(test_rt_tiling_check_int4_bytes),
      cmocka_unit_test(test_rt_tiling_check_types),
      cmocka_unit_test(test_rt_tiling_l1_to_the_byte),
      cmocka_unit_test(test_rt_tiling_l0_to_the_byte),
      cmocka_unit_test(test_rt_tiling_bt_and_fb_to_the_byte),
      cmocka_unit_test(test_rt_tiling_blocks_of_the_a2_sample),
      cmocka_unit_test(test_rt_tiling_tile_orders),
      cmocka_unit_test(test_rt_tile_walk_matches_tiling_tile),
      cmocka_unit_test(test_rt_tiling_schedule_loads),
      cmocka_unit_test(test_rt_tiling_estimate_prefers_double_buffers),
      cmocka_unit_test(test_rt_tiling_search_results_are_legal),
      cmocka_unit_test(test_rt_tiling_search_keeps_given_fields),
      cmocka_unit_test(test_rt_tiling_json_round_trip),
      cmocka_unit_test(test_rt_tiling_json_reading),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
