/* Tests of the vector machinery the families share (isa/isa_vec.c: the mask in normal and counter
 * mode, strided operands, execution order, ranges, work) through vbinary, vscalar and vdup, their
 * lane arithmetic against plain references, and of vdeq (isa/isa_sem_vdeq.c).
 *
 * References are written here: lane addresses from the formula of docs/ISA.md, arithmetic in
 * double (exact for fp16 sums and products; one rounding for fp32, innocuous when the double
 * result is rounded again) rounded by tests/support/ref_num, integer arithmetic in int64. The fake
 * machine also checks that each instruction touches only bytes inside its own ranges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_insn.h"
#include "support/insn_build.h"
#include "support/insn_check.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/ref_num.h"
#include "support/rng.h"

#define UB_BYTES (192u * 1024u)
#define FILL 0x5Au

static isa_testmach *new_machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_GM] = 4096;
  sizes[ISA_MEM_L1] = 4096;
  sizes[ISA_MEM_UB] = UB_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  memset(itm_mem(t, ISA_MEM_UB), FILL, UB_BYTES);
  return t;
}

static uint32_t canon32(float f) { return f != f ? 0x7FC00000u : ref_f32_bits(f); }

static uint32_t random_f32(uint64_t *seed) {
  uint64_t r = rng_lcg(seed);
  static const uint32_t specials[] = {0x7FC00000u, 0xFFC12345u, 0x7F800000u, 0xFF800000u,
                                      0x80000000u, 0x00000000u, 0x477FF000u /* 65520 */,
                                      0x477FEF00u, 0x7F7FFFFFu, 0x00000001u, 0x33800000u};
  switch (r % 8) {
    case 0: return specials[(r >> 3) % (sizeof specials / sizeof specials[0])];
    case 1: return (uint32_t)(r >> 3); /* any bits */
    default: return ref_f32_bits((float)((int64_t)((r >> 3) % 2000001) - 1000000) / 137.0f);
  }
}

/* A random element of type dt, with the cancellations and ties that test rounding. */
static uint32_t random_elem(isa_dtype dt, uint64_t *seed) {
  uint64_t r = rng_lcg(seed);
  switch (dt) {
    case ISA_FP32: return random_f32(seed);
    case ISA_FP16: return (uint32_t)(r >> 5) & 0xFFFFu;
    case ISA_INT16: return (uint32_t)(r >> 7) & 0xFFFFu;
    default: return r % 3 ? (uint32_t)(r >> 11) : (uint32_t)((int32_t)((r >> 11) % 2001) - 1000);
  }
}

static double value_of(isa_dtype dt, uint32_t bits) {
  return dt == ISA_FP16 ? ref_f16_value((uint16_t)bits) : (double)ref_f32_of_bits(bits);
}

/* IEEE 754-2019 maximum / minimum on doubles: NaN wins, +0 above -0. */
static double ref_max(double a, double b, bool is_max) {
  if (isnan(a) || isnan(b)) return NAN;
  if (a == b) return (signbit(a) != 0) == is_max ? b : a;
  return (a > b) == is_max ? a : b;
}

/* The lane arithmetic of vadd .. vmin (and the scalar forms) on element bits. */
static uint32_t ref_arith(isa_op op, isa_dtype dt, uint32_t a, uint32_t b, bool sat) {
  if (dt == ISA_INT16 || dt == ISA_INT32) {
    int64_t x = dt == ISA_INT16 ? (int16_t)a : (int32_t)a, y = dt == ISA_INT16 ? (int16_t)b : (int32_t)b, r;
    switch (op) {
      case ISA_OP_VADD: case ISA_OP_VADDS: r = x + y; break;
      case ISA_OP_VSUB: r = x - y; break;
      case ISA_OP_VMUL: case ISA_OP_VMULS: r = x * y; break;
      case ISA_OP_VMAX: case ISA_OP_VMAXS: r = x > y ? x : y; break;
      default: r = x < y ? x : y; break;
    }
    return dt == ISA_INT16 ? (uint32_t)r & 0xFFFFu : (uint32_t)r;
  }
  double x = value_of(dt, a), y = value_of(dt, b), r;
  switch (op) {
    case ISA_OP_VADD: case ISA_OP_VADDS: r = x + y; break;
    case ISA_OP_VSUB: r = x - y; break;
    case ISA_OP_VMUL: case ISA_OP_VMULS: r = x * y; break;
    case ISA_OP_VDIV: r = x / y; break;
    case ISA_OP_VMAX: case ISA_OP_VMAXS: r = ref_max(x, y, true); break;
    default: r = ref_max(x, y, false); break;
  }
  return dt == ISA_FP16 ? ref_f16_of(r, sat) : ref_f32_of(r);
}

/* ---- binary: the arithmetic ------------------------------------------------------------------ */

/* Every binary op on every type it takes, 1000 elements in counter mode (fp32: 15 repeats and a
 * tail of 40), saturation on and off; the bytes after the last result are untouched. */
static void test_vector_binary_random(void **state) {
  (void)state;
  static const isa_op ops[] = {ISA_OP_VADD, ISA_OP_VSUB, ISA_OP_VMUL, ISA_OP_VDIV, ISA_OP_VMAX, ISA_OP_VMIN};
  static const isa_dtype dts[] = {ISA_FP32, ISA_FP16, ISA_INT16, ISA_INT32};
  uint64_t seed = 9;
  const uint64_t s0 = 0, s1 = 16384, dst = 32768;
  const uint32_t n = 1000;
  for (size_t o = 0; o < 6; o++)
    for (size_t d = 0; d < 4; d++)
      for (int sat = 0; sat <= 1; sat++) {
        if (ops[o] == ISA_OP_VDIV && (dts[d] == ISA_INT16 || dts[d] == ISA_INT32)) continue;
        isa_testmach *t = new_machine();
        itm_set_env(t, (isa_env){sat});
        uint8_t *ub = itm_mem(t, ISA_MEM_UB);
        unsigned es = isa_dtype_bits(dts[d]) / 8;
        for (uint32_t i = 0; i < n; i++) {
          uint32_t a = random_elem(dts[d], &seed), b = random_elem(dts[d], &seed);
          if (dts[d] == ISA_FP16 && i % 4 == 0) b = (a ^ 0x8000u) + (uint32_t)(i % 5) - 2u; /* cancellation */
          pk_le_put(ub + s0 + (uint64_t)i * es, a, es);
          pk_le_put(ub + s1 + (uint64_t)i * es, b & (es == 2 ? 0xFFFFu : 0xFFFFFFFFu), es);
        }
        isa_insn in = ib_vbinary_n(ops[o], dts[d], dst, s0, s1, n);
        isa_fault f;
        if (!itm_run(t, &in, &f)) fail_msg("%s", f.msg);
        for (uint32_t i = 0; i < n; i++) {
          uint32_t a = (uint32_t)pk_le_get(ub + s0 + (uint64_t)i * es, es);
          uint32_t b = (uint32_t)pk_le_get(ub + s1 + (uint64_t)i * es, es);
          uint32_t want = ref_arith(ops[o], dts[d], a, b, sat), got = (uint32_t)pk_le_get(ub + dst + (uint64_t)i * es, es);
          if (got != want)
            fail_msg("%s %s sat=%d lane %u: 0x%x op 0x%x = 0x%x, want 0x%x", isa_op_info(ops[o])->mnemonic,
                     isa_dtype_name(dts[d]), sat, i, a, b, got, want);
        }
        assert_int_equal(ub[dst + (uint64_t)n * es], FILL);
        itm_destroy(t);
      }
}

static uint32_t bin1(isa_op op, isa_dtype dt, uint32_t a, uint32_t b, bool sat) {
  isa_testmach *t = new_machine();
  itm_set_env(t, (isa_env){sat});
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  unsigned es = isa_dtype_bits(dt) / 8;
  pk_le_put(ub, a, es);
  pk_le_put(ub + 32, b, es);
  isa_insn in = ib_vbinary_n(op, dt, 64, 0, 32, 1);
  assert_true(itm_run(t, &in, NULL));
  uint32_t r = (uint32_t)pk_le_get(ub + 64, es);
  itm_destroy(t);
  return r;
}

static void test_vector_binary_by_hand(void **state) {
  (void)state;
  /* fp16: 1 + 2^-10 = 0x3C01 exactly; 1 + 2^-11 is a tie -> 1.0; (1 + 2^-10) + 2^-11 is a tie
   * -> even 1 + 2^-9 = 0x3C02; 65504 + 8 -> 65504; 65504 + 16 = 65520 -> Inf, or 65504 with
   * saturation */
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x3C00, 0x1400, false), 0x3C01);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x3C00, 0x1000, false), 0x3C00);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x3C01, 0x1000, false), 0x3C02);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x7BFF, 0x4800, false), 0x7BFF);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x7BFF, 0x4C00, false), 0x7C00);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x7BFF, 0x4C00, true), 0x7BFF);
  assert_int_equal(bin1(ISA_OP_VSUB, ISA_FP16, 0xFBFF, 0x4C00, true), 0xFBFF);
  /* subnormals add exactly; 1 - 1 = +0; -0 + -0 = -0 */
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x0001, 0x0001, false), 0x0002);
  assert_int_equal(bin1(ISA_OP_VSUB, ISA_FP16, 0x3C00, 0x3C00, false), 0x0000);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x8000, 0x8000, false), 0x8000);
  /* NaN: the canonical one, or 0 with saturation; Inf - Inf too */
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0xFE55, 0x3C00, false), 0x7E00);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x7C00, 0xFC00, false), 0x7E00);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP16, 0x7C00, 0xFC00, true), 0x0000);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP32, 0x7F800000u, 0xFF800000u, true), 0x7FC00000u);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP32, 0xFFC12345u, 0x3F800000u, true), 0x7FC00000u);
  /* fp32 has no saturation: FLT_MAX + FLT_MAX = Inf either way; 1 + 2^-24 ties to 1 */
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP32, 0x7F7FFFFFu, 0x7F7FFFFFu, true), 0x7F800000u);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_FP32, 0x3F800000u, 0x33800000u, true), 0x3F800000u);
  /* division: 1 / 3 in fp16 = 0x3555 (0.33325195...); 1 / 0 = Inf; 0 / 0 NaN; fp32 1 / 3 */
  assert_int_equal(bin1(ISA_OP_VDIV, ISA_FP16, 0x3C00, 0x4200, false), 0x3555);
  assert_int_equal(bin1(ISA_OP_VDIV, ISA_FP16, 0x3C00, 0x0000, false), 0x7C00);
  assert_int_equal(bin1(ISA_OP_VDIV, ISA_FP32, 0x00000000u, 0x80000000u, false), 0x7FC00000u);
  assert_int_equal(bin1(ISA_OP_VDIV, ISA_FP32, 0x3F800000u, 0x40400000u, false), 0x3EAAAAABu);
  /* max / min: +0 above -0, NaN wins */
  assert_int_equal(bin1(ISA_OP_VMAX, ISA_FP32, 0x80000000u, 0x00000000u, false), 0x00000000u);
  assert_int_equal(bin1(ISA_OP_VMIN, ISA_FP32, 0x00000000u, 0x80000000u, false), 0x80000000u);
  assert_int_equal(bin1(ISA_OP_VMAX, ISA_FP32, 0x7FC00001u, 0x3F800000u, false), 0x7FC00000u);
  assert_int_equal(bin1(ISA_OP_VMIN, ISA_FP16, 0x3C00, 0xBC00, false), 0xBC00);
  /* integers wrap */
  assert_int_equal(bin1(ISA_OP_VADD, ISA_INT32, 0x7FFFFFFFu, 1, false), 0x80000000u);
  assert_int_equal(bin1(ISA_OP_VADD, ISA_INT16, 0x7FFF, 1, false), 0x8000);
  assert_int_equal(bin1(ISA_OP_VMUL, ISA_INT16, 0x0100, 0x0100, false), 0x0000);
  assert_int_equal(bin1(ISA_OP_VMAX, ISA_INT16, 0xFFFF, 0x0001, false), 0x0001);
  assert_int_equal(bin1(ISA_OP_VMIN, ISA_INT32, 0xFFFFFFFFu, 0x00000001u, false), 0xFFFFFFFFu);
}

/* ---- the mask, strides and execution order ---------------------------------------------------- */

typedef struct geo {
  uint32_t mode;
  uint64_t hi, lo;
  uint32_t repeats;
  uint32_t dblk, s0blk, s1blk, drep, s0rep, s1rep;
} geo;

static isa_insn vbin(isa_op op, isa_dtype dt, uint64_t d, uint64_t a, uint64_t b, geo g) {
  isa_insn in = ib_vbinary_n(op, dt, d, a, b, 0);
  isa_fmt_vbinary *p = &in.u.vbinary;
  p->mask_mode = g.mode;
  p->mask_hi = g.hi;
  p->mask_lo = g.lo;
  p->repeat_times = g.repeats;
  p->dst_blk_stride = g.dblk;
  p->src0_blk_stride = g.s0blk;
  p->src1_blk_stride = g.s1blk;
  p->dst_rep_stride = g.drep;
  p->src0_rep_stride = g.s0rep;
  p->src1_rep_stride = g.s1rep;
  return in;
}

/* docs/ISA.md: lane i of repeat r at base + r * rep * 32 + (i / (32 / s)) * blk * 32 + (i % (32 / s)) * s. */
static uint64_t lane_addr(uint64_t base, unsigned s, uint32_t blk, uint32_t rep, uint64_t r, uint32_t i) {
  return base + r * rep * 32 + (uint64_t)(i / (32 / s)) * blk * 32 + (uint64_t)(i % (32 / s)) * s;
}

static bool lane_on(geo g, uint32_t lanes, uint64_t r, uint64_t repeats, uint32_t i) {
  if (g.mode == ISA_VMASK_COUNTER) return r + 1 < repeats || i < g.lo - r * lanes;
  return (i < 64 ? g.lo >> i : g.hi >> (i - 64)) & 1u;
}

/* Runs vadd of type dt with geometry g on random data and checks every byte of UB: enabled
 * lanes hold src0 + src1 read from their own addresses, every other byte is as it was. */
static void check_geometry(isa_dtype dt, geo g) {
  uint64_t seed = 31;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  rng_lcg_bytes(&seed, ub, UB_BYTES);
  uint8_t *before = malloc(UB_BYTES);
  assert_non_null(before);
  memcpy(before, ub, UB_BYTES);
  const uint64_t d = 0x10000, a = 0x1000, b = 0x20000;
  isa_insn in = vbin(ISA_OP_VADD, dt, d, a, b, g);
  isa_fault f;
  if (!itm_run(t, &in, &f)) fail_msg("%s", f.msg);
  unsigned s = isa_dtype_bits(dt) / 8;
  uint32_t lanes = 256 / s;
  uint64_t repeats = g.mode == ISA_VMASK_COUNTER ? (g.lo + lanes - 1) / lanes : g.repeats;
  uint8_t *want = malloc(UB_BYTES);
  assert_non_null(want);
  memcpy(want, before, UB_BYTES);
  for (uint64_t r = 0; r < repeats; r++)
    for (uint32_t i = 0; i < lanes; i++) {
      if (!lane_on(g, lanes, r, repeats, i)) continue;
      uint32_t x = (uint32_t)pk_le_get(before + lane_addr(a, s, g.s0blk, g.s0rep, r, i), s);
      uint32_t y = (uint32_t)pk_le_get(before + lane_addr(b, s, g.s1blk, g.s1rep, r, i), s);
      pk_le_put(want + lane_addr(d, s, g.dblk, g.drep, r, i), ref_arith(ISA_OP_VADD, dt, x, y, true), s);
    }
  for (uint64_t k = 0; k < UB_BYTES; k++)
    if (ub[k] != want[k]) fail_msg("%s: UB byte 0x%llx is 0x%02x, want 0x%02x", isa_dtype_name(dt), (unsigned long long)k, ub[k], want[k]);
  free(before);
  free(want);
  itm_destroy(t);
}

static void test_vector_mask_and_strides(void **state) {
  (void)state;
  /* fp16, 128 lanes: holes in both mask words, 3 repeats; dst blocks 2 apart and repeats 20
   * blocks apart; src0 contiguous; src1 reads one block 8 times, the next repeat one block on */
  check_geometry(ISA_INT16, (geo){ISA_VMASK_NORM, 0xF0F00000FFFF0001ull, 0x8000000000FF00F3ull, 3, 2, 1, 0, 20, 8, 1});
  check_geometry(ISA_FP16, (geo){ISA_VMASK_NORM, 0xF0F00000FFFF0001ull, 0x8000000000FF00F3ull, 3, 2, 1, 0, 20, 8, 1});
  /* fp32, 64 lanes: every lane, src0 repeats overlapping (rep stride 4 < 8 blocks) */
  check_geometry(ISA_FP32, (geo){ISA_VMASK_NORM, 0, UINT64_MAX, 5, 1, 1, 1, 8, 4, 8});
  /* counter mode: 100 fp32 = one full repeat and 36 lanes, dst repeats 10 blocks apart */
  check_geometry(ISA_FP32, (geo){ISA_VMASK_COUNTER, 0, 100, 1, 1, 1, 1, 10, 8, 8});
  /* counter mode across many repeats with block strides of 3 */
  check_geometry(ISA_INT32, (geo){ISA_VMASK_COUNTER, 0, 1000, 0, 3, 3, 1, 24, 24, 8});
}

/* Each repeat reads all its inputs before writing: dst = src0 in place works, and a later repeat
 * sees an earlier one's result (Ascend's accumulate pattern, dst = src1 with repeat stride 0):
 * column sums of 6 rows of 64 fp32 added in row order. */
static void test_vector_in_place_and_accumulate(void **state) {
  (void)state;
  uint64_t seed = 37;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  float rows[6][64], acc[64];
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 64; c++) {
      rows[r][c] = (float)((int64_t)(rng_lcg(&seed) % 2000001) - 1000000) / 977.0f;
      pk_le_put(ub + 4 * (64 * r + c), ref_f32_bits(rows[r][c]), 4);
    }
  for (int c = 0; c < 64; c++) {
    acc[c] = 0.5f;
    pk_le_put(ub + 0x4000 + 4 * c, ref_f32_bits(acc[c]), 4);
  }
  isa_insn in = vbin(ISA_OP_VADD, ISA_FP32, 0x4000, 0, 0x4000, (geo){ISA_VMASK_NORM, 0, UINT64_MAX, 6, 1, 1, 1, 0, 8, 0});
  assert_true(itm_run(t, &in, NULL));
  for (int c = 0; c < 64; c++) {
    for (int r = 0; r < 6; r++) acc[c] = ref_f32_of_bits(ref_f32_of((double)acc[c] + rows[r][c]));
    assert_int_equal(pk_le_get(ub + 0x4000 + 4 * c, 4), ref_f32_bits(acc[c]));
  }
  /* in place: rows[0] = rows[0] * rows[1] */
  in = ib_vbinary_n(ISA_OP_VMUL, ISA_FP32, 0, 0, 256, 64);
  assert_true(itm_run(t, &in, NULL));
  for (int c = 0; c < 64; c++)
    assert_int_equal(pk_le_get(ub + 4 * c, 4), ref_f32_of((double)rows[0][c] * rows[1][c]));
  itm_destroy(t);
}

/* A zero mask, zero repeats or a zero count do nothing: no ranges, no work, no writes. */
static void test_vector_nothing_to_do(void **state) {
  (void)state;
  const geo none[] = {{ISA_VMASK_NORM, 0, 0, 4, 1, 1, 1, 8, 8, 8},
                      {ISA_VMASK_NORM, 0, UINT64_MAX, 0, 1, 1, 1, 8, 8, 8},
                      {ISA_VMASK_COUNTER, 0, 0, 1, 1, 1, 1, 8, 8, 8}};
  for (size_t k = 0; k < 3; k++) {
    isa_insn in = vbin(ISA_OP_VADD, ISA_FP32, 0x100, 0x200, 0x300, none[k]);
    isa_range r[ISA_MAX_RANGES];
    assert_int_equal(isa_insn_ranges(&in, r), 0);
    isa_work w;
    isa_insn_work(&in, &w);
    assert_int_equal(w.bytes, 0);
    assert_int_equal(w.elements, 0);
    isa_testmach *t = new_machine();
    assert_true(itm_run(t, &in, NULL));
    for (uint64_t i = 0; i < UB_BYTES; i++) assert_int_equal(itm_mem(t, ISA_MEM_UB)[i], FILL);
    itm_destroy(t);
  }
}

/* ---- ranges and work --------------------------------------------------------------------------- */

static void test_vector_ranges_and_work(void **state) {
  (void)state;
  isa_range r[ISA_MAX_RANGES];
  isa_work w;
  /* contiguous counter mode, 100 fp32: one run per operand (full repeat and tail joined) */
  isa_insn in = ib_vbinary_n(ISA_OP_VADD, ISA_FP32, 0x1000, 0x2000, 0x3000, 100);
  assert_int_equal(isa_insn_ranges(&in, r), 6);
  ic_range(&r[0], ISA_MEM_UB, 0, 0x2000, 256, 256, 1);
  ic_range(&r[1], ISA_MEM_UB, 0, 0x2000 + 256, 144, 144, 1);
  ic_range(&r[2], ISA_MEM_UB, 0, 0x3000, 256, 256, 1);
  ic_range(&r[3], ISA_MEM_UB, 0, 0x3000 + 256, 144, 144, 1);
  ic_range(&r[4], ISA_MEM_UB, 1, 0x1000, 256, 256, 1);
  ic_range(&r[5], ISA_MEM_UB, 1, 0x1000 + 256, 144, 144, 1);
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_VECTOR);
  assert_int_equal(w.bytes, 2 * 256);
  assert_int_equal(w.elements, 100);
  assert_int_equal(w.vclass, ISA_VCLASS_SIMPLE);
  assert_int_equal(w.dtype, ISA_FP32);
  /* normal mode, fp32, lanes 8..23 of each of 3 repeats (blocks 1 and 2, which touch), dst
   * block stride 2 (two pieces), src1 block stride 0 (both blocks at the same bytes) and
   * repeat stride 1 */
  in = vbin(ISA_OP_VDIV, ISA_FP32, 0x1000, 0x2000, 0x3000, (geo){ISA_VMASK_NORM, 0, 0xFFFF00ull, 3, 2, 1, 0, 16, 8, 1});
  assert_int_equal(isa_insn_ranges(&in, r), 4);
  ic_range(&r[0], ISA_MEM_UB, 0, 0x2000 + 32, 64, 256, 3);
  ic_range(&r[1], ISA_MEM_UB, 0, 0x3000, 96, 96, 1); /* repeats one block apart: one run */
  ic_range(&r[2], ISA_MEM_UB, 1, 0x1000 + 64, 32, 512, 3);
  ic_range(&r[3], ISA_MEM_UB, 1, 0x1000 + 128, 32, 512, 3);
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 3 * 256);
  assert_int_equal(w.elements, 48);
  assert_int_equal(w.vclass, ISA_VCLASS_DIV);
  in = ib_vunary_n(ISA_OP_VEXP, ISA_FP16, 0, 0x1000, 300);
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 3 * 256);
  assert_int_equal(w.elements, 300);
  assert_int_equal(w.vclass, ISA_VCLASS_TRANSC);
  /* more ranges than fit: counter mode with a tail and block strides of 2 needs 16 pieces per
   * operand, 48 in all; each operand gets one bounding range instead */
  in = vbin(ISA_OP_VADD, ISA_FP32, 0x1000, 0x8000, 0x10000, (geo){ISA_VMASK_COUNTER, 0, 100, 1, 2, 2, 2, 16, 16, 16});
  assert_int_equal(isa_insn_ranges(&in, r), 3);
  /* lanes 0..99: the last, lane 35 of repeat 1, is block 4 (+ 3 lanes) of it: 512 + 4 * 64 + 12 */
  ic_range(&r[0], ISA_MEM_UB, 0, 0x8000, 512 + 256 + 16, 512 + 256 + 16, 1);
  ic_range(&r[1], ISA_MEM_UB, 0, 0x10000, 784, 784, 1);
  ic_range(&r[2], ISA_MEM_UB, 1, 0x1000, 784, 784, 1);
}

/* ---- faults ------------------------------------------------------------------------------------- */

static void test_vector_faults(void **state) {
  (void)state;
  isa_insn in = ib_vbinary_n(ISA_OP_VADD, ISA_FP16, 0, 1024, 2048, 8), bad;
  ic_ok(&in);
  bad = in;
  bad.u.vbinary.dtype = ISA_BF16;
  ic_fault(&bad, ISA_FAULT_DTYPE, "dtype", ISA_BF16, 0,
           "vadd: dtype bf16 is not supported (int16, int32, fp16, fp32)");
  bad = ib_vbinary_n(ISA_OP_VDIV, ISA_INT32, 0, 1024, 2048, 8);
  ic_fault(&bad, ISA_FAULT_DTYPE, "dtype", ISA_INT32, 0, "vdiv: dtype int32 is not supported (fp16, fp32)");
  bad = in;
  bad.u.vbinary.src0.mem = ISA_MEM_GM;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "src0", ISA_MEM_GM, 1u << ISA_MEM_UB,
           "vadd: operand src0 names GM; vector operands must be in UB");
  bad = in;
  bad.u.vbinary.src1.mem = ISA_MEM_L1;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "src1", ISA_MEM_L1, 1u << ISA_MEM_UB,
           "vadd: operand src1 names L1; vector operands must be in UB");
  bad = in;
  bad.u.vbinary.dst.mem = ISA_MEM_L0C;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "dst", ISA_MEM_L0C, 1u << ISA_MEM_UB,
           "vadd: operand dst names L0C, which vadd cannot access");
  /* masks: bits beyond the 64 lanes of fp32, a counter-mode mask_hi, a count beyond 32 bits */
  bad = vbin(ISA_OP_VADD, ISA_FP32, 0, 1024, 2048, (geo){ISA_VMASK_NORM, 1, UINT64_MAX, 1, 1, 1, 1, 8, 8, 8});
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "mask_hi", 1, 64,
           "vadd: mask_hi = 0x1 enables elements beyond the 64 of a repeat");
  bad = vbin(ISA_OP_VADD, ISA_FP16, 0, 1024, 2048, (geo){ISA_VMASK_NORM, UINT64_MAX, UINT64_MAX, 1, 1, 1, 1, 8, 8, 8});
  ic_ok(&bad); /* fp16: all 128 lanes */
  bad = vbin(ISA_OP_VADD, ISA_FP32, 0, 1024, 2048, (geo){ISA_VMASK_COUNTER, 2, 64, 1, 1, 1, 1, 8, 8, 8});
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "mask_hi", 2, 0,
           "vadd: mask_hi = 0x2 in counter mode; the count is mask_lo alone");
  bad = vbin(ISA_OP_VADD, ISA_FP32, 0, 1024, 2048, (geo){ISA_VMASK_COUNTER, 0, 1ull << 32, 1, 1, 1, 1, 8, 8, 8});
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "mask_lo", 1ull << 32, 0xFFFFFFFFu,
           "vadd: mask_lo = 4294967296 elements is beyond the counter's 4294967295");
  /* the table's ranges: dst_blk_stride 0 (undefined on the hardware), repeats and modes */
  bad = in;
  bad.u.vbinary.dst_blk_stride = 0;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "dst_blk_stride", 0, 1,
           "vadd: dst_blk_stride = 0 is out of range [1, 255]");
  bad = in;
  bad.u.vbinary.repeat_times = 256;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "repeat_times", 256, 255,
           "vadd: repeat_times = 256 is out of range [0, 255]");
  bad = in;
  bad.u.vbinary.mask_mode = 2;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "mask_mode", 2, 1, "vadd: mask_mode = 2 is out of range [0, 1]");
  /* beyond UB on the machine */
  isa_testmach *t = new_machine();
  bad = ib_vbinary_n(ISA_OP_VADD, ISA_FP32, UB_BYTES - 8, 0, 64, 3);
  isa_fault f;
  assert_false(itm_run(t, &bad, &f));
  assert_int_equal(f.cause, ISA_FAULT_OUT_OF_BOUNDS);
  assert_string_equal(f.operand, "dst");
  itm_destroy(t);
}

/* ---- tensor-scalar and duplicate ----------------------------------------------------------------- */

static void test_vector_scalar_ops(void **state) {
  (void)state;
  static const isa_op ops[] = {ISA_OP_VADDS, ISA_OP_VMULS, ISA_OP_VMAXS, ISA_OP_VMINS};
  static const isa_dtype dts[] = {ISA_FP32, ISA_FP16, ISA_INT16, ISA_INT32};
  uint64_t seed = 41;
  for (size_t o = 0; o < 4; o++)
    for (size_t d = 0; d < 4; d++) {
      isa_testmach *t = new_machine();
      uint8_t *ub = itm_mem(t, ISA_MEM_UB);
      unsigned es = isa_dtype_bits(dts[d]) / 8;
      const uint32_t n = 700;
      for (uint32_t i = 0; i < n; i++) pk_le_put(ub + (uint64_t)i * es, random_elem(dts[d], &seed), es);
      uint32_t scalar = random_elem(dts[d], &seed);
      if (dts[d] == ISA_FP32 && ref_f32_of_bits(scalar) != ref_f32_of_bits(scalar)) scalar = 0x3F000000u;
      isa_insn in;
      memset(&in, 0, sizeof in);
      in.op = ops[o];
      isa_fmt_vscalar *p = &in.u.vscalar;
      p->dst = (isa_addr){ISA_MEM_UB, 0x8000};
      p->src = (isa_addr){ISA_MEM_UB, 0};
      p->dtype = dts[d];
      p->scalar = scalar;
      p->mask_mode = ISA_VMASK_COUNTER;
      p->mask_lo = n;
      p->dst_blk_stride = p->src_blk_stride = 1;
      p->dst_rep_stride = p->src_rep_stride = 8;
      isa_fault f;
      if (!itm_run(t, &in, &f)) fail_msg("%s", f.msg);
      for (uint32_t i = 0; i < n; i++) {
        uint32_t x = (uint32_t)pk_le_get(ub + (uint64_t)i * es, es);
        assert_int_equal(pk_le_get(ub + 0x8000 + (uint64_t)i * es, es), ref_arith(ops[o], dts[d], x, scalar, true));
      }
      itm_destroy(t);
    }
  /* a scalar wider than the type */
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VMULS;
  in.u.vscalar.dst = in.u.vscalar.src = (isa_addr){ISA_MEM_UB, 0};
  in.u.vscalar.dtype = ISA_FP16;
  in.u.vscalar.scalar = 0x13C00;
  in.u.vscalar.dst_blk_stride = 1;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "scalar", 0x13C00, 0xFFFF, "vmuls: scalar = 0x13c00 does not fit a fp16 element");
  in.u.vscalar.dtype = ISA_BF16;
  in.u.vscalar.scalar = 0x3C00;
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_BF16, 0, "vmuls: dtype bf16 is not supported (int16, int32, fp16, fp32)");
}

/* vdup writes the scalar's bits (a NaN's payload too) into the enabled lanes only. */
static void test_vector_dup(void **state) {
  (void)state;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VDUP;
  isa_fmt_vdup *p = &in.u.vdup;
  p->dst = (isa_addr){ISA_MEM_UB, 0x100};
  p->dtype = ISA_FP32;
  p->scalar = 0x7FA00001u;
  p->mask_mode = ISA_VMASK_NORM;
  p->mask_lo = 0x8000000000000005ull; /* lanes 0, 2 and 63 */
  p->repeat_times = 2;
  p->dst_blk_stride = 3;
  p->dst_rep_stride = 30;
  assert_true(itm_run(t, &in, NULL));
  for (uint64_t k = 0; k < UB_BYTES; k += 4) {
    bool lane = false;
    for (uint64_t r = 0; r < 2; r++) { /* lane 63 is lane 7 of block 7 */
      uint64_t at = 0x100 + r * 960;
      lane |= k == at || k == at + 8 || k == at + 7 * 96 + 28;
    }
    assert_int_equal(pk_le_get(ub + k, 4), lane ? 0x7FA00001u : 0x5A5A5A5Au);
  }
  itm_destroy(t);
  p->scalar = 0x1FFFF;
  p->dtype = ISA_INT16;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "scalar", 0x1FFFF, 0xFFFF, "vdup: scalar = 0x1ffff does not fit a int16 element");
  p->dtype = ISA_INT8;
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_INT8, 0, "vdup: dtype int8 is not supported (int16, uint16, int32, fp16, bf16, fp32)");
}

/* ---- vcopy --------------------------------------------------------------------------------- */

/* vcopy moves bits: NaN payloads and infinities stay as they are even in saturation mode (a data
 * move, not arithmetic), and its block stride goes past the 8 bits of the arithmetic families: 3
 * repeats of 8 blocks, the blocks of a repeat 300 blocks apart in dst (an ND row scattered to 8
 * NZ columns), the repeats 1 block apart; src rows of 256 bytes back to back. */
static void test_vector_copy(void **state) {
  (void)state;
  isa_testmach *t = new_machine();
  itm_set_env(t, (isa_env){true});
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  uint64_t seed = 5;
  for (uint64_t k = 0; k < 3 * 256; k += 2) pk_le_put(ub + 0x100 + k, random_elem(ISA_FP16, &seed), 2);
  pk_le_put(ub + 0x100, 0x7E01, 2);     /* a NaN with a payload */
  pk_le_put(ub + 0x100 + 34, 0xFC00, 2); /* -Inf */
  uint8_t src[3 * 256];
  memcpy(src, ub + 0x100, sizeof src);
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VCOPY;
  isa_fmt_vcopy *p = &in.u.vcopy;
  p->dst = (isa_addr){ISA_MEM_UB, 0x1000};
  p->src = (isa_addr){ISA_MEM_UB, 0x100};
  p->dtype = ISA_FP16;
  p->mask_mode = ISA_VMASK_NORM;
  p->mask_hi = p->mask_lo = UINT64_MAX;
  p->repeat_times = 3;
  p->dst_blk_stride = 300;
  p->src_blk_stride = 1;
  p->dst_rep_stride = 1;
  p->src_rep_stride = 8;
  ic_ok(&in);
  assert_true(itm_run(t, &in, NULL));
  for (uint64_t k = 0x1000; k < UB_BYTES; k++) {
    uint64_t blk = (k - 0x1000) / 32, j = blk / 300, r = blk % 300;
    bool written = j < 8 && r < 3;
    uint8_t want = written ? src[r * 256 + j * 32 + (k - 0x1000) % 32] : FILL;
    if (ub[k] != want) fail_msg("UB[0x%llx] = 0x%02x, want 0x%02x", (unsigned long long)k, ub[k], want);
  }
  assert_memory_equal(ub + 0x100, src, sizeof src); /* the source is kept */
  /* the ranges cover exactly the bytes read and the bytes written */
  isa_range rg[ISA_MAX_RANGES];
  size_t n = isa_insn_ranges(&in, rg);
  uint8_t *cover = calloc(UB_BYTES, 1);
  assert_non_null(cover);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(rg[i].mem, ISA_MEM_UB);
    for (uint64_t row = 0; row < rg[i].rows; row++)
      for (uint64_t b = 0; b < rg[i].row_bytes; b++) cover[rg[i].base + row * rg[i].stride_bytes + b] |= (uint8_t)(1u << rg[i].write);
  }
  for (uint64_t k = 0; k < UB_BYTES; k++) {
    uint64_t blk = k >= 0x1000 ? (k - 0x1000) / 32 : UINT64_MAX;
    uint8_t want = (uint8_t)((k >= 0x100 && k < 0x100 + 768 ? 1 : 0) | (blk / 300 < 8 && blk % 300 < 3 ? 2 : 0));
    if (cover[k] != want) fail_msg("range cover of UB[0x%llx] = %u, want %u", (unsigned long long)k, cover[k], want);
  }
  free(cover);
  isa_work w;
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_VECTOR);
  assert_int_equal(w.repeats, 3);
  itm_destroy(t);
  p->dtype = ISA_INT8;
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_INT8, 0, "vcopy: dtype int8 is not supported (int16, uint16, int32, fp16, bf16, fp32)");
}

/* ---- vdeq ---------------------------------------------------------------------------------- */

static isa_insn vdeq_insn(uint64_t dst, uint64_t src, uint64_t scale, isa_dtype out, uint32_t rows,
                          uint32_t cols, uint32_t src_rs, uint32_t dst_rs) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VDEQ;
  in.u.vdeq.dst = (isa_addr){ISA_MEM_UB, dst};
  in.u.vdeq.src = (isa_addr){ISA_MEM_UB, src};
  in.u.vdeq.scale = (isa_addr){ISA_MEM_UB, scale};
  in.u.vdeq.out_dtype = out;
  in.u.vdeq.rows = rows;
  in.u.vdeq.cols = cols;
  in.u.vdeq.src_row_stride = src_rs;
  in.u.vdeq.dst_row_stride = dst_rs;
  return in;
}

static void test_vector_vdeq_random(void **state) {
  (void)state;
  uint64_t seed = 3;
  const isa_dtype outs[] = {ISA_FP32, ISA_FP16, ISA_BF16};
  for (size_t o = 0; o < 3; o++) {
    isa_testmach *t = new_machine();
    uint8_t *ub = itm_mem(t, ISA_MEM_UB);
    const uint32_t rows = 13, cols = 37, srs = 40, drs = 45;
    const uint64_t src = 0, scale = 8192, dst = 16384;
    for (uint32_t i = 0; i < rows * srs; i++) {
      uint64_t r = rng_lcg(&seed);
      uint32_t v = r % 4 == 0 ? (uint32_t)(r >> 2) : (uint32_t)((int32_t)((r >> 2) % 200001) - 100000);
      pk_le_put(ub + src + 4 * i, v, 4);
    }
    for (uint32_t c = 0; c < cols; c++) pk_le_put(ub + scale + 4 * c, random_f32(&seed), 4);
    uint8_t before[16384];
    memcpy(before, ub + dst, sizeof before);
    isa_insn in = vdeq_insn(dst, src, scale, outs[o], rows, cols, srs, drs);
    isa_fault f;
    assert_true(itm_run(t, &in, &f));
    unsigned es = outs[o] == ISA_FP32 ? 4 : 2;
    for (uint32_t r = 0; r < rows; r++)
      for (uint32_t c = 0; c < drs; c++) {
        uint64_t off = dst + ((uint64_t)r * drs + c) * es;
        uint64_t got = pk_le_get(ub + off, es);
        if (c >= cols) { /* the gap between rows is untouched */
          assert_int_equal(got, pk_le_get(before + (off - dst), es));
          continue;
        }
        int32_t x = (int32_t)pk_le_get(ub + src + ((uint64_t)r * srs + c) * 4, 4);
        float y = (float)x * ref_f32_of_bits((uint32_t)pk_le_get(ub + scale + 4 * c, 4));
        uint32_t yb = canon32(y);
        /* fp16 / bf16 under CTRL[48]'s saturation (the machine's default) */
        uint32_t want = outs[o] == ISA_FP32   ? yb
                        : outs[o] == ISA_FP16 ? ref_f16_of(ref_f32_of_bits(yb), true)
                                              : ref_bf16_of(ref_f32_of_bits(yb), true);
        if (got != want)
          fail_msg("vdeq %s r=%u c=%u x=%d: 0x%llx, want 0x%x", outs[o] == ISA_FP32 ? "fp32" : "16-bit", r,
                   c, x, (unsigned long long)got, want);
      }
    itm_destroy(t);
  }
}

static void test_vector_vdeq_by_hand(void **state) {
  (void)state;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  /* src = [1000, -3, 100000, 16777217]; scale = [0.1f, 0.5, 1.0, 1.0] */
  const int32_t x[4] = {1000, -3, 100000, 16777217};
  const float s[4] = {0.1f, 0.5f, 1.0f, 1.0f};
  for (int c = 0; c < 4; c++) {
    pk_le_put(ub + 4 * c, (uint32_t)x[c], 4);
    pk_le_put(ub + 64 + 4 * c, ref_f32_bits(s[c]), 4);
  }
  /* fp16: 1000 * 0.1f = 100.0000015 in fp32 -> 100 = 0x5640; -1.5 = 0xBE00; 100000 overflows:
   * Inf without saturation, 65504 (0x7BFF) with it (CTRL[48] = 0, the default); 16777217 ->
   * 2^24 in fp32 -> the same */
  isa_insn in = vdeq_insn(128, 0, 64, ISA_FP16, 1, 4, 4, 4);
  itm_set_env(t, (isa_env){false});
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 128, 2), 0x5640);
  assert_int_equal(pk_le_get(ub + 130, 2), 0xBE00);
  assert_int_equal(pk_le_get(ub + 132, 2), 0x7C00);
  assert_int_equal(pk_le_get(ub + 134, 2), 0x7C00);
  itm_set_env(t, (isa_env){true});
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 128, 2), 0x5640);
  assert_int_equal(pk_le_get(ub + 132, 2), 0x7BFF);
  assert_int_equal(pk_le_get(ub + 134, 2), 0x7BFF);
  /* fp32: 1000 * 0.1f = 100.0000015: 0x42C80000 + 1 ulp? 0.1f = 0x3DCCCCCD = 13421773 * 2^-27;
   * times 1000 = 13421773000 * 2^-27 = 99.99999... no: 13421773000 / 2^27 = 100.0000015497,
   * fp32 step at 100 is 2^-17: 100.0000015497 = 100 + 0.2031 steps -> 100.0 = 0x42C80000 */
  in = vdeq_insn(256, 0, 64, ISA_FP32, 1, 4, 4, 4);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 256, 4), 0x42C80000u);
  assert_int_equal(pk_le_get(ub + 260, 4), 0xBFC00000u);
  assert_int_equal(pk_le_get(ub + 264, 4), 0x47C35000u);
  assert_int_equal(pk_le_get(ub + 268, 4), 0x4B800000u); /* 16777217 -> 16777216 */
  /* bf16: 100.0 -> 0x42C8; 100000 = 0x47C35000 -> 0x47C3 (0x5000 < 0x8000: down) */
  in = vdeq_insn(512, 0, 64, ISA_BF16, 1, 4, 4, 4);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 512, 2), 0x42C8);
  assert_int_equal(pk_le_get(ub + 516, 2), 0x47C3);
  /* a NaN scale gives the canonical NaN: fp32 0x7FC00000, fp16 0x7E00 (0 with saturation) */
  pk_le_put(ub + 64, 0xFFC12345u, 4);
  in = vdeq_insn(256, 0, 64, ISA_FP32, 1, 1, 1, 1);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 256, 4), 0x7FC00000u);
  in = vdeq_insn(128, 0, 64, ISA_FP16, 1, 1, 1, 1);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 128, 2), 0x0000);
  itm_set_env(t, (isa_env){false});
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 128, 2), 0x7E00);
  itm_destroy(t);
}

/* In place: dst = src, fp32 out, same strides. */
static void test_vector_vdeq_in_place(void **state) {
  (void)state;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  for (int i = 0; i < 6; i++) pk_le_put(ub + 4 * i, (uint32_t)(i - 2), 4); /* 2 rows of 3, stride 3 */
  for (int c = 0; c < 3; c++) pk_le_put(ub + 1024 + 4 * c, ref_f32_bits(0.25f * (float)(c + 1)), 4);
  isa_insn in = vdeq_insn(0, 0, 1024, ISA_FP32, 2, 3, 3, 3);
  assert_true(itm_run(t, &in, NULL));
  const float want[6] = {-0.5f, -0.5f, 0.0f, 0.25f, 1.0f, 2.25f};
  for (int i = 0; i < 6; i++) assert_int_equal(pk_le_get(ub + 4 * i, 4), ref_f32_bits(want[i]));
  itm_destroy(t);
}

/* ---- vdeq faults, ranges, work ------------------------------------------------------------- */

static void test_vector_vdeq_faults_ranges_work(void **state) {
  (void)state;
  isa_insn in = vdeq_insn(0, 1024, 2048, ISA_FP16, 4, 8, 8, 8), bad;
  assert_true(isa_insn_check(&in, NULL));
  bad = in;
  bad.u.vdeq.out_dtype = ISA_INT8;
  ic_fault(&bad, ISA_FAULT_DTYPE, "out_dtype", ISA_INT8, 0,
           "vdeq: out_dtype int8 is not a vdeq output (fp32, fp16 or bf16)");
  bad = in;
  bad.u.vdeq.scale.mem = ISA_MEM_L1;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "scale", ISA_MEM_L1, 1u << ISA_MEM_UB,
           "vdeq: operand scale names L1; the scales must be in UB");
  bad = in;
  bad.u.vdeq.dst_row_stride = 7;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "dst_row_stride", 7, 8,
           "vdeq: dst_row_stride = 7 is below cols = 8: output rows would overlap");
  bad.u.vdeq.rows = 1; /* one row: any stride */
  assert_true(isa_insn_check(&bad, NULL));
  bad = in;
  bad.u.vdeq.src_row_stride = 1; /* overlapping source rows are allowed */
  assert_true(isa_insn_check(&bad, NULL));
  bad = in;
  bad.u.vdeq.src.mem = ISA_MEM_GM;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "src", ISA_MEM_GM, 1u << ISA_MEM_UB,
           "vdeq: operand src names GM, which vdeq cannot access");
  bad = in;
  bad.u.vdeq.cols = 0;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "cols", 0, 1, "vdeq: cols = 0 is out of range [1, 65535]");

  isa_range r[ISA_MAX_RANGES];
  isa_work w;
  in = vdeq_insn(4096, 1024, 2048, ISA_BF16, 5, 7, 9, 11);
  assert_int_equal(isa_insn_ranges(&in, r), 3);
  ic_range(&r[0], ISA_MEM_UB, 0, 1024, 7 * 4, 9 * 4, 5);
  ic_range(&r[1], ISA_MEM_UB, 0, 2048, 7 * 4, 7 * 4, 1);
  ic_range(&r[2], ISA_MEM_UB, 1, 4096, 7 * 2, 11 * 2, 5);
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_VECTOR);
  assert_int_equal(w.elements, 35);
  assert_int_equal(w.bytes, 35 * 4); /* the wider side: the int32 input */
  assert_int_equal(w.dtype, ISA_BF16);
  assert_int_equal(w.vclass, ISA_VCLASS_SIMPLE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vector_binary_random),
      cmocka_unit_test(test_vector_binary_by_hand),
      cmocka_unit_test(test_vector_mask_and_strides),
      cmocka_unit_test(test_vector_in_place_and_accumulate),
      cmocka_unit_test(test_vector_nothing_to_do),
      cmocka_unit_test(test_vector_ranges_and_work),
      cmocka_unit_test(test_vector_faults),
      cmocka_unit_test(test_vector_scalar_ops),
      cmocka_unit_test(test_vector_dup),
      cmocka_unit_test(test_vector_copy),
      cmocka_unit_test(test_vector_vdeq_random),
      cmocka_unit_test(test_vector_vdeq_by_hand),
      cmocka_unit_test(test_vector_vdeq_in_place),
      cmocka_unit_test(test_vector_vdeq_faults_ranges_work),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
