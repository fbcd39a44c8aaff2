/* Tests of Ascend's rounding modes (isa/isa_round.c) and of vcast (isa/isa_sem_vcast.c): random
 * values against tests/support/ref_num's references (which round a signed unit count with
 * nearbyint, round, floor, ceil and trunc, where isa/ decides on magnitudes), the worked
 * examples of Ascend's precision-conversion document, every type pair A2 offers with each of its
 * modes, NaN, Inf and saturation, and the faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa_round.h"
#include "support/insn_build.h"
#include "support/insn_check.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/ref_num.h"
#include "support/rng.h"

#define UB_BYTES (192u * 1024u)

/* ref_num's mode letters for isa_round_mode. */
static char mode_char(isa_round_mode m) {
  static const char c[ISA_ROUND_COUNT] = {'n', 'n', 'd', 'u', 'a', 'z', 'o'};
  return c[m];
}

static const struct {
  isa_dtype t;
  isa_float_fmt f;
  unsigned mbits;
  int emin, emax;
} floats[] = {
    {ISA_FP32, ISA_FLOAT_FP32, 23, -126, 127},
    {ISA_FP16, ISA_FLOAT_FP16, 10, -14, 15},
    {ISA_BF16, ISA_FLOAT_BF16, 7, -126, 127},
};

/* A random exact value: an fp32 (any bits but NaN, or a small fraction with ties), or an int32. */
static double random_value(uint64_t *seed) {
  uint64_t r = rng_lcg(seed);
  switch (r % 4) {
    case 0: {
      float f = ref_f32_of_bits((uint32_t)(r >> 8));
      return isnan(f) ? 0.0 : f;
    }
    case 1: return (double)(int32_t)(uint32_t)(r >> 8);
    case 2: return ldexp((double)((int64_t)((r >> 8) % 4001) - 2000), -(int)((r >> 30) % 4)); /* ties */
    default: return ldexp((double)((int64_t)((r >> 8) % 2000001) - 1000000), (int)((r >> 40) % 60) - 40);
  }
}

/* ---- isa_round -------------------------------------------------------------------------------- */

static void test_vcast_round_to_float_random(void **state) {
  (void)state;
  uint64_t seed = 3;
  for (int i = 0; i < 200000; i++) {
    double v = random_value(&seed);
    if (fabs(v) > 0 && (double)(float)v != v) continue; /* an exact fp32 or int32 */
    for (size_t k = 0; k < 3; k++)
      for (int m = 0; m < ISA_ROUND_COUNT; m++) {
        uint32_t got = isa_round_to_float(v, floats[k].f, (isa_round_mode)m);
        uint32_t want = ref_round_float(v, floats[k].mbits, floats[k].emin, floats[k].emax, mode_char((isa_round_mode)m));
        if (got != want)
          fail_msg("%a to %s by %s: 0x%x, want 0x%x", v, isa_dtype_name(floats[k].t),
                   isa_field_enum_name(ISA_FK_ROUND, (uint32_t)m), got, want);
      }
  }
}

static void test_vcast_round_to_int_random(void **state) {
  (void)state;
  uint64_t seed = 5;
  for (int i = 0; i < 200000; i++) {
    double v = random_value(&seed);
    for (int m = 0; m < ISA_ROUND_COUNT; m++) {
      int64_t got = isa_round_to_int(v, (isa_round_mode)m, INT16_MIN, INT16_MAX);
      assert_int_equal(got, ref_round_int(v, mode_char((isa_round_mode)m), INT16_MIN, INT16_MAX));
      got = isa_round_to_int(v, (isa_round_mode)m, 0, 255);
      assert_int_equal(got, ref_round_int(v, mode_char((isa_round_mode)m), 0, 255));
    }
  }
  assert_int_equal(isa_round_to_int(NAN, ISA_ROUND_RINT, -128, 127), 0);
  assert_int_equal(isa_round_to_int(INFINITY, ISA_ROUND_TRUNC, -128, 127), 127);
  assert_int_equal(isa_round_to_int(-INFINITY, ISA_ROUND_TRUNC, -128, 127), -128);
}

/* The examples of Ascend's precision-conversion rules, each mode in turn
 * (rint, floor, ceil, round, trunc, odd). */
static void test_vcast_round_documented_examples(void **state) {
  (void)state;
  static const isa_round_mode modes[] = {ISA_ROUND_RINT, ISA_ROUND_FLOOR, ISA_ROUND_CEIL,
                                         ISA_ROUND_ROUND, ISA_ROUND_TRUNC, ISA_ROUND_ODD};
  /* float -> half, 0.5 + 2^-12: 0.5 (0x3800) or 0.5 + 2^-11 (0x3801) */
  static const uint32_t f2h[] = {0x3800, 0x3800, 0x3801, 0x3801, 0x3800, 0x3801};
  /* float -> bf16, 0.5 + 2^-9 + 2^-11: 0.5 + 2^-8 (0x3F01) or 0.5 (0x3F00) */
  static const uint32_t f2b[] = {0x3F01, 0x3F00, 0x3F01, 0x3F01, 0x3F00, 0x3F01};
  /* int32 -> float, 2^25 + 3: 2^25 + 4 (0x4C000001) or 2^25 (0x4C000000) */
  static const uint32_t i2f[] = {0x4C000001u, 0x4C000000u, 0x4C000001u, 0x4C000001u, 0x4C000000u, 0x4C000001u};
  /* int16 -> half, 2^12 + 2: 2^12 (0x6C00) or 2^12 + 4 (0x6C01) */
  static const uint32_t s2h[] = {0x6C00, 0x6C00, 0x6C01, 0x6C01, 0x6C00, 0x6C01};
  /* half -> int32, -1.5; float -> float, 0.5; half -> int16, 127.5 */
  static const int64_t h2i[] = {-2, -2, -1, -2, -1};
  static const double f2f[] = {0.0, 0.0, 1.0, 1.0, 0.0};
  static const int64_t h2s[] = {128, 127, 128, 128, 127};
  for (size_t k = 0; k < 6; k++) {
    assert_int_equal(isa_round_to_float(0.5 + ldexp(1, -12), ISA_FLOAT_FP16, modes[k]), f2h[k]);
    assert_int_equal(isa_round_to_float(0.5 + ldexp(1, -9) + ldexp(1, -11), ISA_FLOAT_BF16, modes[k]), f2b[k]);
    assert_int_equal(isa_round_to_float(33554435.0, ISA_FLOAT_FP32, modes[k]), i2f[k]);
    assert_int_equal(isa_round_to_float(4098.0, ISA_FLOAT_FP16, modes[k]), s2h[k]);
    if (k == 5) break;
    assert_int_equal(isa_round_to_int(-1.5, modes[k], INT32_MIN, INT32_MAX), h2i[k]);
    assert_true(isa_round_integral(0.5, modes[k]) == f2f[k]);
    assert_int_equal(isa_round_to_int(127.5, modes[k], INT16_MIN, INT16_MAX), h2s[k]);
    /* saturation: half 127.5 -> int8 is 127 in every mode; float 2^22 + 0.5 -> int16 32767 */
    assert_int_equal(isa_round_to_int(127.5, modes[k], INT8_MIN, INT8_MAX), 127);
    assert_int_equal(isa_round_to_int(4194304.5, modes[k], INT16_MIN, INT16_MAX), INT16_MAX);
  }
  /* overflow to fp16 by mode: +-70000 */
  assert_int_equal(isa_round_to_float(70000, ISA_FLOAT_FP16, ISA_ROUND_RINT), 0x7C00);
  assert_int_equal(isa_round_to_float(70000, ISA_FLOAT_FP16, ISA_ROUND_ROUND), 0x7C00);
  assert_int_equal(isa_round_to_float(70000, ISA_FLOAT_FP16, ISA_ROUND_TRUNC), 0x7BFF);
  assert_int_equal(isa_round_to_float(70000, ISA_FLOAT_FP16, ISA_ROUND_ODD), 0x7BFF);
  assert_int_equal(isa_round_to_float(70000, ISA_FLOAT_FP16, ISA_ROUND_FLOOR), 0x7BFF);
  assert_int_equal(isa_round_to_float(70000, ISA_FLOAT_FP16, ISA_ROUND_CEIL), 0x7C00);
  assert_int_equal(isa_round_to_float(-70000, ISA_FLOAT_FP16, ISA_ROUND_FLOOR), 0xFC00);
  assert_int_equal(isa_round_to_float(-70000, ISA_FLOAT_FP16, ISA_ROUND_CEIL), 0xFBFF);
  /* the sign of zero */
  assert_true(signbit(isa_round_integral(-0.4, ISA_ROUND_TRUNC)));
  assert_int_equal(isa_round_to_float(-ldexp(1, -30), ISA_FLOAT_FP16, ISA_ROUND_RINT), 0x8000);
  assert_int_equal(isa_round_to_float(-ldexp(1, -30), ISA_FLOAT_FP16, ISA_ROUND_FLOOR), 0x8001);
}

/* isa_round_is_safe at the midpoint between 1 and 1 + 2^-23 (fp32) and around it. */
static void test_vcast_round_is_safe(void **state) {
  (void)state;
  double mid = 1.0 + ldexp(1, -24);
  assert_false(isa_round_is_safe(mid, 0x1p-50, ISA_FLOAT_FP32));
  assert_false(isa_round_is_safe(mid + ldexp(1, -75), 0x1p-50, ISA_FLOAT_FP32));
  assert_true(isa_round_is_safe(mid + ldexp(1, -45), 0x1p-50, ISA_FLOAT_FP32));
  assert_true(isa_round_is_safe(mid - ldexp(1, -45), 0x1p-50, ISA_FLOAT_FP32));
  assert_true(isa_round_is_safe(1.0, 0x1p-50, ISA_FLOAT_FP32));
  /* fp16: the overflow threshold 65520 is a midpoint */
  assert_false(isa_round_is_safe(65520.0, 0x1p-50, ISA_FLOAT_FP16));
  assert_true(isa_round_is_safe(65521.0, 0x1p-50, ISA_FLOAT_FP16));
  /* fp16 subnormals: 1.5 * 2^-24 lies between 2^-24 and 2^-23 */
  assert_false(isa_round_is_safe(1.5 * ldexp(1, -24), 0x1p-50, ISA_FLOAT_FP16));
  assert_true(isa_round_is_safe(1.25 * ldexp(1, -24), 0x1p-50, ISA_FLOAT_FP16));
}

/* ---- vcast ------------------------------------------------------------------------------------- */

static const struct {
  isa_dtype from, to;
  uint32_t modes; /* bit per isa_round_mode */
} pairs[] = {
#define M(r) (1u << ISA_ROUND_##r)
#define FIVE (M(RINT) | M(FLOOR) | M(CEIL) | M(ROUND) | M(TRUNC))
    {ISA_INT8, ISA_FP16, M(NONE)},         {ISA_UINT8, ISA_FP16, M(NONE)},
    {ISA_INT16, ISA_FP16, FIVE | M(NONE)}, {ISA_INT16, ISA_FP32, M(NONE)},
    {ISA_FP16, ISA_INT8, FIVE | M(NONE)},  {ISA_FP16, ISA_UINT8, FIVE | M(NONE)},
    {ISA_FP16, ISA_INT16, FIVE},           {ISA_FP16, ISA_INT32, FIVE},
    {ISA_FP16, ISA_FP32, M(NONE)},         {ISA_BF16, ISA_INT32, FIVE},
    {ISA_BF16, ISA_FP32, M(NONE)},         {ISA_INT32, ISA_INT16, M(NONE)},
    {ISA_INT32, ISA_FP32, FIVE | M(NONE)}, {ISA_FP32, ISA_INT16, FIVE},
    {ISA_FP32, ISA_FP16, FIVE | M(ODD) | M(NONE)}, {ISA_FP32, ISA_BF16, FIVE},
    {ISA_FP32, ISA_INT32, FIVE},           {ISA_FP32, ISA_FP32, FIVE},
#undef FIVE
#undef M
};

static bool is_float(isa_dtype t) { return t == ISA_FP32 || t == ISA_FP16 || t == ISA_BF16; }
static unsigned bytes_of(isa_dtype t) { return isa_dtype_bits(t) / 8; }

/* A source element of type t, with NaN, Inf, ties and out-of-range values among them. */
static uint32_t random_src(isa_dtype t, uint64_t *seed) {
  uint64_t r = rng_lcg(seed);
  switch (t) {
    case ISA_FP32:
      if (r % 5 == 0) return ref_f32_bits(ldexpf((float)((int64_t)((r >> 8) % 4001) - 2000), -1 - (int)((r >> 30) % 3)));
      return (uint32_t)(r >> 8);
    case ISA_FP16:
      if (r % 5 == 0) return (uint32_t)((r >> 8) % 0x5C00u | ((r >> 40) & 1u) << 15); /* |x| < 256 */
      return (uint32_t)(r >> 8) & 0xFFFFu;
    case ISA_BF16: return (uint32_t)(r >> 8) & 0xFFFFu;
    case ISA_INT8: case ISA_UINT8: return (uint32_t)(r >> 8) & 0xFFu;
    case ISA_INT16: return (uint32_t)(r >> 8) & 0xFFFFu;
    default: return (uint32_t)(r >> 8);
  }
}

static double src_value(isa_dtype t, uint32_t b) {
  switch (t) {
    case ISA_FP32: return ref_f32_of_bits(b);
    case ISA_FP16: return ref_f16_value((uint16_t)b);
    case ISA_BF16: return ref_bf16_value((uint16_t)b);
    case ISA_INT8: return (int8_t)(uint8_t)b;
    case ISA_UINT8: return (uint8_t)b;
    case ISA_INT16: return (int16_t)(uint16_t)b;
    default: return (int32_t)b;
  }
}

/* The reference conversion (docs/ISA.md): floats by ref_round_float, integers by ref_round_int
 * saturated, NaN to an integer 0, a NaN to a float kept quiet with its sign and payload's top
 * bits (0 with saturation for fp16 / bf16), saturation turning fp16 / bf16 Inf into +-max. */
static uint32_t ref_convert(isa_dtype from, isa_dtype to, isa_round_mode m, uint32_t x, bool sat) {
  double v = src_value(from, x);
  char c = mode_char(m);
  if (!is_float(to)) {
    int64_t lo = to == ISA_INT8 ? -128 : to == ISA_INT16 ? -32768 : to == ISA_INT32 ? INT32_MIN : 0;
    int64_t hi = to == ISA_INT8 ? 127 : to == ISA_UINT8 ? 255 : to == ISA_INT16 ? 32767 : INT32_MAX;
    int64_t r = ref_round_int(v, c, lo, hi);
    return to == ISA_INT32 ? (uint32_t)r : (uint32_t)r & ((1u << (8 * bytes_of(to))) - 1);
  }
  if (isnan(v)) {
    if (sat && to != ISA_FP32) return 0;
    uint32_t f32 = from == ISA_FP16   ? (x & 0x8000u) << 16 | 0x7F800000u | (x & 0x3FFu) << 13
                   : from == ISA_BF16 ? x << 16
                                      : x;
    f32 |= 0x00400000u; /* quieted */
    if (to == ISA_FP32) return f32;
    return to == ISA_FP16 ? ((f32 >> 16) & 0x8000u) | 0x7C00u | ((f32 >> 13) & 0x3FFu) : f32 >> 16;
  }
  if (from == ISA_FP32 && to == ISA_FP32 && fabs(v) < ldexp(1, 23)) { /* to an integral value */
    double r = (double)ref_round_int(v, c, INT64_MIN, INT64_MAX);
    v = r == 0 ? copysign(0.0, v) : r;
  }
  unsigned mb = to == ISA_FP32 ? 23 : to == ISA_FP16 ? 10 : 7;
  int emin = to == ISA_FP16 ? -14 : -126, emax = to == ISA_FP16 ? 15 : 127;
  uint32_t bits = ref_round_float(v, mb, emin, emax, c);
  if (sat && to != ISA_FP32) {
    uint32_t inf = to == ISA_FP16 ? 0x7C00u : 0x7F80u;
    if ((bits & 0x7FFFu) == inf) bits = (bits & 0x8000u) | (inf - 1);
  }
  return bits;
}

/* Every pair, every mode it takes, 700 elements in counter mode (P from the wider type),
 * saturation on and off; the byte after the last result is untouched. */
static void test_vcast_every_pair_and_mode(void **state) {
  (void)state;
  uint64_t seed = 7;
  const uint32_t n = 700;
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
    for (int m = 0; m < ISA_ROUND_COUNT; m++) {
      if (!((pairs[k].modes >> m) & 1u)) continue;
      for (int sat = 0; sat <= 1; sat++) {
        uint64_t sizes[ISA_MEM_COUNT] = {0};
        sizes[ISA_MEM_UB] = UB_BYTES;
        isa_testmach *t = itm_create(sizes);
        itm_set_env(t, (isa_env){sat});
        uint8_t *ub = itm_mem(t, ISA_MEM_UB);
        memset(ub, 0x5A, UB_BYTES);
        unsigned sb = bytes_of(pairs[k].from), db = bytes_of(pairs[k].to);
        for (uint32_t i = 0; i < n; i++) pk_le_put(ub + (uint64_t)i * sb, random_src(pairs[k].from, &seed), sb);
        isa_insn in = ib_vcast_n(pairs[k].from, pairs[k].to, (isa_round_mode)m, 0x8000, 0, n);
        isa_fault f;
        if (!itm_run(t, &in, &f)) fail_msg("%s", f.msg);
        for (uint32_t i = 0; i < n; i++) {
          uint32_t x = (uint32_t)pk_le_get(ub + (uint64_t)i * sb, sb);
          uint32_t want = ref_convert(pairs[k].from, pairs[k].to, (isa_round_mode)m, x, sat);
          uint32_t got = (uint32_t)pk_le_get(ub + 0x8000 + (uint64_t)i * db, db);
          if (got != want)
            fail_msg("%s -> %s by %s (sat %d), x = 0x%x: 0x%x, want 0x%x", isa_dtype_name(pairs[k].from),
                     isa_dtype_name(pairs[k].to), isa_field_enum_name(ISA_FK_ROUND, (uint32_t)m), sat, x, got, want);
        }
        assert_int_equal(ub[0x8000 + (uint64_t)n * db], 0x5A);
        itm_destroy(t);
      }
    }
}

/* Normal mode with mixed widths: fp32 -> fp16 covers 64 lanes a repeat, its destination 4
 * blocks (repeat stride 4 keeps the results back to back); int8 -> fp16 128 lanes, the source 4
 * blocks a repeat. */
static void test_vcast_mixed_widths(void **state) {
  (void)state;
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_UB] = UB_BYTES;
  isa_testmach *t = itm_create(sizes);
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  memset(ub, 0, UB_BYTES);
  for (int i = 0; i < 192; i++) pk_le_put(ub + 4 * i, ref_f32_bits((float)i + 0.1f), 4);
  isa_insn in = ib_vcast_n(ISA_FP32, ISA_FP16, ISA_ROUND_CEIL, 0x4000, 0, 0);
  in.u.vcast.mask_mode = ISA_VMASK_NORM;
  in.u.vcast.mask_lo = UINT64_MAX;
  in.u.vcast.repeat_times = 3;
  assert_int_equal(in.u.vcast.src_rep_stride, 8);
  assert_int_equal(in.u.vcast.dst_rep_stride, 4);
  assert_true(itm_run(t, &in, NULL));
  for (int i = 0; i < 192; i++) /* i + 0.1 rounded up to fp16 */
    assert_int_equal(pk_le_get(ub + 0x4000 + 2 * i, 2), ref_round_float((float)i + 0.1f, 10, -14, 15, 'u'));
  assert_int_equal(pk_le_get(ub + 0x4000 + 2 * 192, 2), 0);
  for (int i = 0; i < 256; i++) ub[0x8000 + i] = (uint8_t)(i - 128);
  in = ib_vcast_n(ISA_INT8, ISA_FP16, ISA_ROUND_NONE, 0x9000, 0x8000, 256);
  assert_int_equal(in.u.vcast.src_rep_stride, 4);
  assert_int_equal(in.u.vcast.dst_rep_stride, 8);
  assert_true(itm_run(t, &in, NULL));
  for (int i = 0; i < 256; i++) assert_int_equal(pk_le_get(ub + 0x9000 + 2 * i, 2), ref_f16_of(i - 128, false));
  isa_work w;
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 2 * 256); /* two repeats of 128 lanes */
  assert_int_equal(w.elements, 256);
  assert_int_equal(w.dtype, ISA_FP16);
  /* in place narrowing: fp32 -> fp16 over its own source */
  in = ib_vcast_n(ISA_FP32, ISA_FP16, ISA_ROUND_RINT, 0, 0, 64);
  assert_true(itm_run(t, &in, NULL));
  for (int i = 0; i < 64; i++) assert_int_equal(pk_le_get(ub + 2 * i, 2), ref_f16_of((float)i + 0.1f, false));
  itm_destroy(t);
}

static void test_vcast_faults(void **state) {
  (void)state;
  isa_insn in = ib_vcast_n(ISA_FP32, ISA_BF16, ISA_ROUND_RINT, 0x100, 0, 8);
  ic_ok(&in);
  in.u.vcast.round_mode = ISA_ROUND_NONE;
  ic_fault(&in, ISA_FAULT_DTYPE, "round_mode", ISA_ROUND_NONE, 0,
           "vcast: fp32 -> bf16 does not take round_mode none (rint, floor, ceil, round, trunc)");
  in = ib_vcast_n(ISA_FP16, ISA_INT8, ISA_ROUND_ODD, 0x100, 0, 8);
  ic_fault(&in, ISA_FAULT_DTYPE, "round_mode", ISA_ROUND_ODD, 0,
           "vcast: fp16 -> int8 does not take round_mode odd (none, rint, floor, ceil, round, trunc)");
  in = ib_vcast_n(ISA_INT32, ISA_FP16, ISA_ROUND_NONE, 0x100, 0, 8);
  ic_fault(&in, ISA_FAULT_DTYPE, "dst_dtype", ISA_FP16, 0,
           "vcast: no conversion from int32 to fp16 (from int32: int16, fp32)");
  in = ib_vcast_n(ISA_FP32, ISA_FP16, 9, 0x100, 0, 8);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "round_mode", 9, ISA_ROUND_COUNT - 1,
           "vcast: round_mode = 9 is out of range [0, 6]");
  in = ib_vcast_n(ISA_FP32, ISA_FP16, ISA_ROUND_NONE, 0x100, 0, 8);
  in.u.vcast.mask_mode = ISA_VMASK_NORM;
  in.u.vcast.mask_hi = 1; /* P = 64 */
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "mask_hi", 1, 64,
           "vcast: mask_hi = 0x1 enables elements beyond the 64 of a repeat");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vcast_round_to_float_random),
      cmocka_unit_test(test_vcast_round_to_int_random),
      cmocka_unit_test(test_vcast_round_documented_examples),
      cmocka_unit_test(test_vcast_round_is_safe),
      cmocka_unit_test(test_vcast_every_pair_and_mode),
      cmocka_unit_test(test_vcast_mixed_widths),
      cmocka_unit_test(test_vcast_faults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
