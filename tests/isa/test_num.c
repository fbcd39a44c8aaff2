/* Tests of isa/isa_num: rounding to integers, saturating casts, int32 -> fp32, int4/uint4. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "isa/isa_num.h"
#include "support/rng.h"

static uint64_t double_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

static double double_from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

/* Same value and same sign of zero. */
static void assert_same_double(double got, double want) {
  if (double_bits(got) != double_bits(want)) fail_msg("got %a, want %a", got, want);
}

/* ---- rounding a double to an integral double ----------------------------------------------- */

static void test_isa_num_round_half_even_values(void **state) {
  (void)state;
  const double two52 = 4503599627370496.0;
  struct { double x, want; } cases[] = {
      {0.5, 0.0},   {1.5, 2.0},   {2.5, 2.0},   {3.5, 4.0},  {-0.5, -0.0}, {-1.5, -2.0},
      {-2.5, -2.0}, {-3.5, -4.0}, {0.0, 0.0},   {-0.0, -0.0}, {0.4, 0.0},  {-0.4, -0.0},
      {0.6, 1.0},   {-0.6, -1.0}, {1.0, 1.0},   {-7.0, -7.0},
      {0.49999999999999994, 0.0},       /* largest double below 0.5 */
      {-0.49999999999999994, -0.0},
      {0.5000000000000001, 1.0},
      {DBL_MIN / 4, 0.0},                /* subnormal */
      {two52 - 0.5, two52},              /* 2^52 - 0.5: tie, to even 2^52 */
      {two52 - 1.5, two52 - 2.0},        /* 4503599627370494.5: tie, to even */
      {-(two52 - 1.5), -(two52 - 2.0)},
      {two52 + 1.0, two52 + 1.0},        /* already integral */
      {1e300, 1e300},
      {-1e300, -1e300},
      {INFINITY, INFINITY},
      {-INFINITY, -INFINITY},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_same_double(isa_round_half_even(cases[i].x), cases[i].want);
  assert_true(isnan(isa_round_half_even(NAN)));
}

static void test_isa_num_round_half_away_values(void **state) {
  (void)state;
  const double two52 = 4503599627370496.0;
  struct { double x, want; } cases[] = {
      {0.5, 1.0},   {1.5, 2.0},   {2.5, 3.0},   {-0.5, -1.0}, {-1.5, -2.0}, {-2.5, -3.0},
      {0.0, 0.0},   {-0.0, -0.0}, {0.4, 0.0},   {-0.4, -0.0}, {-0.6, -1.0},
      {0.49999999999999994, 0.0},
      {-0.49999999999999994, -0.0},
      {two52 - 0.5, two52},
      {two52 - 1.5, two52 - 1.0},        /* 4503599627370494.5 -> ...495 */
      {-(two52 - 1.5), -(two52 - 1.0)},
      {1e300, 1e300},
      {-INFINITY, -INFINITY},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_same_double(isa_round_half_away(cases[i].x), cases[i].want);
  assert_true(isnan(isa_round_half_away(NAN)));
}

/* Random doubles against libm: nearbyint in the default (to-nearest-even) mode and round(). */
static void test_isa_num_round_random_match_libm(void **state) {
  (void)state;
  assert_int_equal(fegetround(), FE_TONEAREST);
  uint64_t s = 0x243F6A8885A308D3ull;
  for (int i = 0; i < 400000; i++) {
    uint64_t r = rng_xorshift(&s);
    uint64_t exp = 1013u + (r >> 58); /* 2^-10 .. 2^53 */
    double x = double_from_bits((r & 0x800FFFFFFFFFFFFFull) | (exp << 52));
    assert_same_double(isa_round_half_even(x), nearbyint(x));
    assert_same_double(isa_round_half_away(x), round(x));
    /* exact ties k + 0.5 */
    double k = (double)(rng_xorshift(&s) >> 12); /* < 2^52 */
    double tie = ((r & 1) ? -1.0 : 1.0) * (k + 0.5);
    assert_same_double(isa_round_half_even(tie), nearbyint(tie));
    assert_same_double(isa_round_half_away(tie), round(tie));
  }
}

/* ---- saturating casts ----------------------------------------------------------------------- */

static void test_isa_num_saturating_casts_at_both_ends(void **state) {
  (void)state;
  assert_int_equal(isa_sat_i8(-129), -128);
  assert_int_equal(isa_sat_i8(-128), -128);
  assert_int_equal(isa_sat_i8(127), 127);
  assert_int_equal(isa_sat_i8(128), 127);
  assert_int_equal(isa_sat_i8(INT64_MIN), -128);
  assert_int_equal(isa_sat_i8(INT64_MAX), 127);
  assert_int_equal(isa_sat_i8(-5), -5);
  assert_int_equal(isa_sat_u8(-1), 0);
  assert_int_equal(isa_sat_u8(0), 0);
  assert_int_equal(isa_sat_u8(255), 255);
  assert_int_equal(isa_sat_u8(256), 255);
  assert_int_equal(isa_sat_u8(INT64_MIN), 0);
  assert_int_equal(isa_sat_u8(INT64_MAX), 255);
  assert_int_equal(isa_sat_i16(-32769), -32768);
  assert_int_equal(isa_sat_i16(-32768), -32768);
  assert_int_equal(isa_sat_i16(32767), 32767);
  assert_int_equal(isa_sat_i16(32768), 32767);
  assert_int_equal(isa_sat_i16(INT64_MIN), -32768);
  assert_int_equal(isa_sat_u16(-1), 0);
  assert_int_equal(isa_sat_u16(65535), 65535);
  assert_int_equal(isa_sat_u16(65536), 65535);
  assert_int_equal(isa_sat_u16(INT64_MAX), 65535);
  assert_true(isa_sat_i32(-2147483649LL) == INT32_MIN);
  assert_true(isa_sat_i32(-2147483648LL) == INT32_MIN);
  assert_true(isa_sat_i32(2147483647LL) == INT32_MAX);
  assert_true(isa_sat_i32(2147483648LL) == INT32_MAX);
  assert_true(isa_sat_i32(INT64_MIN) == INT32_MIN);
  assert_true(isa_sat_i32(INT64_MAX) == INT32_MAX);
  assert_true(isa_sat_i32(-123456) == -123456);
  assert_true(isa_clamp_i64(-257, -256, 255) == -256);
  assert_true(isa_clamp_i64(-256, -256, 255) == -256);
  assert_true(isa_clamp_i64(255, -256, 255) == 255);
  assert_true(isa_clamp_i64(256, -256, 255) == 255);
  assert_true(isa_clamp_i64(INT64_MIN, INT64_MIN, INT64_MAX) == INT64_MIN);
  assert_true(isa_clamp_i64(7, 7, 7) == 7);
}

static void test_isa_num_round_sat(void **state) {
  (void)state;
  /* ties by mode */
  assert_true(isa_round_sat(2.5, 1, -128, 127) == 2);
  assert_true(isa_round_sat(2.5, 0, -128, 127) == 3);
  assert_true(isa_round_sat(-2.5, 1, -128, 127) == -2);
  assert_true(isa_round_sat(-2.5, 0, -128, 127) == -3);
  assert_true(isa_round_sat(0.5, 1, -128, 127) == 0);
  assert_true(isa_round_sat(-0.5, 0, -128, 127) == -1);
  assert_true(isa_round_sat(-0.0, 1, -128, 127) == 0);
  /* saturation after rounding */
  assert_true(isa_round_sat(127.4, 1, -128, 127) == 127);
  assert_true(isa_round_sat(127.5, 1, -128, 127) == 127);
  assert_true(isa_round_sat(-128.5, 1, -128, 127) == -128);
  assert_true(isa_round_sat(-128.5, 0, -128, 127) == -128);
  assert_true(isa_round_sat(-0.7, 1, 0, 255) == 0);
  assert_true(isa_round_sat(255.5, 0, 0, 255) == 255);
  assert_true(isa_round_sat(254.5, 1, 0, 255) == 254);
  assert_true(isa_round_sat(1e30, 1, -256, 255) == 255);
  assert_true(isa_round_sat(-1e30, 0, -256, 255) == -256);
  assert_true(isa_round_sat(INFINITY, 1, -128, 127) == 127);
  assert_true(isa_round_sat(-INFINITY, 1, -128, 127) == -128);
  /* NaN -> 0, also when 0 is inside a range not centred on it; clamped when outside */
  assert_true(isa_round_sat(NAN, 1, -128, 127) == 0);
  assert_true(isa_round_sat(-NAN, 0, 0, 255) == 0);
  assert_true(isa_round_sat(NAN, 1, 5, 9) == 5);
  /* the int64 edges */
  assert_true(isa_round_sat(9223372036854775808.0, 1, INT64_MIN, INT64_MAX) == INT64_MAX);
  assert_true(isa_round_sat(1e19, 0, INT64_MIN, INT64_MAX) == INT64_MAX);
  assert_true(isa_round_sat(-9223372036854775808.0, 1, INT64_MIN, INT64_MAX) == INT64_MIN);
  assert_true(isa_round_sat(-1e19, 1, INT64_MIN, INT64_MAX) == INT64_MIN);
  assert_true(isa_round_sat(9223372036854774784.0, 1, INT64_MIN, INT64_MAX) ==
              9223372036854774784LL); /* largest double below 2^63 */
  assert_true(isa_round_sat(4503599627370494.5, 1, INT64_MIN, INT64_MAX) == 4503599627370494LL);
  assert_true(isa_round_sat(4503599627370494.5, 0, INT64_MIN, INT64_MAX) == 4503599627370495LL);
  assert_true(isa_round_sat(-4503599627370494.5, 0, INT64_MIN, INT64_MAX) ==
              -4503599627370495LL);
}

/* ---- int32 -> fp32 --------------------------------------------------------------------------- */

static void check_i32_to_f32(int32_t v) {
  /* Reference: int32 -> double is exact; double -> float rounds in the FPU's default mode
   * (to nearest even, checked by the caller). */
  float want = (float)(double)v;
  float got = isa_i32_to_f32(v);
  if (isa_f32_bits(got) != isa_f32_bits(want))
    fail_msg("%d: got 0x%08x, want 0x%08x", v, isa_f32_bits(got), isa_f32_bits(want));
}

static void test_isa_num_i32_to_f32(void **state) {
  (void)state;
  assert_int_equal(fegetround(), FE_TONEAREST);
  /* hand-derived */
  assert_int_equal(isa_f32_bits(isa_i32_to_f32(0)), 0x00000000u);
  assert_int_equal(isa_f32_bits(isa_i32_to_f32(1)), 0x3F800000u);
  assert_int_equal(isa_f32_bits(isa_i32_to_f32(-1)), 0xBF800000u);
  assert_true(isa_i32_to_f32(16777216) == 16777216.0f);
  assert_true(isa_i32_to_f32(16777217) == 16777216.0f); /* tie, to even */
  assert_true(isa_i32_to_f32(16777218) == 16777218.0f);
  assert_true(isa_i32_to_f32(16777219) == 16777220.0f); /* tie, to even (up) */
  assert_true(isa_i32_to_f32(-16777217) == -16777216.0f);
  assert_true(isa_i32_to_f32(33554434) == 33554432.0f); /* 2^25 + 2: tie, to even */
  assert_true(isa_i32_to_f32(33554435) == 33554436.0f);
  assert_true(isa_i32_to_f32(33554438) == 33554440.0f); /* 2^25 + 6: tie, to even (up) */
  assert_int_equal(isa_f32_bits(isa_i32_to_f32(INT32_MAX)), 0x4F000000u); /* 2^31 */
  assert_int_equal(isa_f32_bits(isa_i32_to_f32(INT32_MIN)), 0xCF000000u);
  assert_int_equal(isa_f32_bits(isa_i32_to_f32(2147483583)), 0x4EFFFFFFu); /* below the tie */
  assert_int_equal(isa_f32_bits(isa_i32_to_f32(2147483584)), 0x4F000000u); /* tie: up, even */
  /* every integer near each power of two from 2^20 up, both signs */
  for (int k = 20; k <= 31; k++) {
    int64_t p = (int64_t)1 << k;
    for (int64_t d = -3000; d <= 3000; d++) {
      int64_t v = p + d;
      if (v <= INT32_MAX) check_i32_to_f32((int32_t)v);
      if (-v >= INT32_MIN) check_i32_to_f32((int32_t)-v);
    }
  }
  /* every integer in [-2^22, 2^22] */
  for (int32_t v = -(1 << 22); v <= (1 << 22); v++) check_i32_to_f32(v);
  uint64_t s = 0xB7E151628AED2A6Bull;
  for (int i = 0; i < 1000000; i++) check_i32_to_f32((int32_t)(uint32_t)(rng_xorshift(&s) >> 32));
}

/* ---- int4 / uint4 ---------------------------------------------------------------------------- */

static void test_isa_num_int4_get_every_byte(void **state) {
  (void)state;
  for (int b = 0; b < 256; b++) {
    uint8_t byte = (uint8_t)b;
    int lo = b % 16, hi = b / 16;
    if (lo >= 8) lo -= 16;
    if (hi >= 8) hi -= 16;
    assert_int_equal(isa_int4_get(&byte, 0), lo);
    assert_int_equal(isa_int4_get(&byte, 1), hi);
    assert_int_equal(isa_uint4_get(&byte, 0), b % 16);
    assert_int_equal(isa_uint4_get(&byte, 1), b / 16);
  }
  const uint8_t packed[] = {0x21, 0x8F, 0x70};
  assert_int_equal(isa_int4_get(packed, 0), 1);
  assert_int_equal(isa_int4_get(packed, 1), 2);
  assert_int_equal(isa_int4_get(packed, 2), -1);
  assert_int_equal(isa_int4_get(packed, 3), -8);
  assert_int_equal(isa_int4_get(packed, 4), 0);
  assert_int_equal(isa_int4_get(packed, 5), 7);
  assert_int_equal(isa_uint4_get(packed, 2), 15);
  assert_int_equal(isa_uint4_get(packed, 3), 8);
}

static void test_isa_num_int4_set_keeps_other_nibble(void **state) {
  (void)state;
  for (int b = 0; b < 256; b++) {
    for (int v = -8; v <= 7; v++) {
      uint8_t buf[2] = {(uint8_t)b, (uint8_t)b};
      isa_int4_set(buf, 0, (int8_t)v);
      assert_int_equal(buf[0], (b & 0xF0) | (v & 0x0F));
      assert_int_equal(buf[1], b);
      isa_int4_set(buf, 3, (int8_t)v);
      assert_int_equal(buf[1], (b & 0x0F) | ((v & 0x0F) << 4));
      assert_int_equal(isa_int4_get(buf, 0), v);
      assert_int_equal(isa_int4_get(buf, 3), v);
      assert_int_equal(isa_int4_get(buf, 2), isa_int4_get((uint8_t[]){(uint8_t)b}, 0));
    }
    for (int v = 0; v <= 15; v++) {
      uint8_t buf[1] = {(uint8_t)b};
      isa_uint4_set(buf, 1, (uint8_t)v);
      assert_int_equal(buf[0], (b & 0x0F) | (v << 4));
      isa_uint4_set(buf, 0, (uint8_t)v);
      assert_int_equal(buf[0], v * 17);
    }
  }
}

static void test_isa_num_int4_pack_unpack_odd_n(void **state) {
  (void)state;
  const int8_t values[] = {1, -2, 3, -8, 7};
  uint8_t packed[4];
  memset(packed, 0xAA, sizeof packed);
  cs_err e;
  assert_int_equal(isa_int4_pack(values, 5, packed, &e), CS_OK);
  assert_int_equal(packed[0], 0xE1);
  assert_int_equal(packed[1], 0x83);
  assert_int_equal(packed[2], 0x07); /* odd tail: high nibble 0 */
  assert_int_equal(packed[3], 0xAA); /* past ceil(5 / 2) bytes: untouched */
  int8_t out[6];
  memset(out, 0x55, sizeof out);
  isa_int4_unpack(packed, 5, out);
  assert_memory_equal(out, values, 5);
  assert_int_equal(out[5], 0x55);
  /* n = 0 writes nothing */
  assert_int_equal(isa_int4_pack(values, 0, packed + 3, &e), CS_OK);
  assert_int_equal(packed[3], 0xAA);
  /* every value, in both nibble positions, round-trips */
  int8_t all[33];
  for (int i = 0; i < 33; i++) all[i] = (int8_t)(i % 16 - 8);
  uint8_t buf[17];
  assert_int_equal(isa_int4_pack(all, 33, buf, NULL), CS_OK);
  int8_t back[33];
  isa_int4_unpack(buf, 33, back);
  assert_memory_equal(back, all, 33);
  assert_int_equal(buf[16], 0x08); /* element 32 = -8 alone in the low nibble */
}

static void test_isa_num_int4_pack_rejects_out_of_range(void **state) {
  (void)state;
  uint8_t packed[2] = {0x5A, 0x5A};
  cs_err e;
  const int8_t high[] = {0, 1, 2, 8};
  assert_int_equal(isa_int4_pack(high, 4, packed, &e), CS_EINVAL);
  assert_int_equal(e.code, CS_EINVAL);
  assert_string_equal(e.msg, "int4 pack: value 8 at index 3 is outside [-8, 7]");
  assert_int_equal(packed[0], 0x5A); /* nothing written */
  assert_int_equal(packed[1], 0x5A);
  const int8_t low[] = {-9};
  assert_int_equal(isa_int4_pack(low, 1, packed, &e), CS_EINVAL);
  assert_string_equal(e.msg, "int4 pack: value -9 at index 0 is outside [-8, 7]");
  const int8_t extreme[] = {7, -128};
  assert_int_equal(isa_int4_pack(extreme, 2, packed, &e), CS_EINVAL);
  assert_string_equal(e.msg, "int4 pack: value -128 at index 1 is outside [-8, 7]");
  assert_int_equal(isa_int4_pack(extreme, 2, packed, NULL), CS_EINVAL);
  assert_int_equal(packed[0], 0x5A);
}

static void test_isa_num_uint4_pack_unpack_and_errors(void **state) {
  (void)state;
  const uint8_t values[] = {0, 15, 9};
  uint8_t packed[3];
  memset(packed, 0xAA, sizeof packed);
  cs_err e;
  assert_int_equal(isa_uint4_pack(values, 3, packed, &e), CS_OK);
  assert_int_equal(packed[0], 0xF0);
  assert_int_equal(packed[1], 0x09);
  assert_int_equal(packed[2], 0xAA);
  uint8_t out[4] = {0x55, 0x55, 0x55, 0x55};
  isa_uint4_unpack(packed, 3, out);
  assert_memory_equal(out, values, 3);
  assert_int_equal(out[3], 0x55);
  const uint8_t bad[] = {15, 0, 16};
  assert_int_equal(isa_uint4_pack(bad, 3, packed, &e), CS_EINVAL);
  assert_int_equal(e.code, CS_EINVAL);
  assert_string_equal(e.msg, "uint4 pack: value 16 at index 2 is outside [0, 15]");
  assert_int_equal(packed[0], 0xF0);
  const uint8_t big[] = {255};
  assert_int_equal(isa_uint4_pack(big, 1, packed, &e), CS_EINVAL);
  assert_string_equal(e.msg, "uint4 pack: value 255 at index 0 is outside [0, 15]");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_isa_num_round_half_even_values),
      cmocka_unit_test(test_isa_num_round_half_away_values),
      cmocka_unit_test(test_isa_num_round_random_match_libm),
      cmocka_unit_test(test_isa_num_saturating_casts_at_both_ends),
      cmocka_unit_test(test_isa_num_round_sat),
      cmocka_unit_test(test_isa_num_i32_to_f32),
      cmocka_unit_test(test_isa_num_int4_get_every_byte),
      cmocka_unit_test(test_isa_num_int4_set_keeps_other_nibble),
      cmocka_unit_test(test_isa_num_int4_pack_unpack_odd_n),
      cmocka_unit_test(test_isa_num_int4_pack_rejects_out_of_range),
      cmocka_unit_test(test_isa_num_uint4_pack_unpack_and_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
