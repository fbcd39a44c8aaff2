/* Tests of isa/isa_num: fp32 <-> fp16 / bf16 against an independent reference.
 *
 * The reference decodes every finite non-negative fp16 (bf16) pattern with ldexp into a table of
 * doubles (pattern order is value order), finds the two neighbours of |x| by binary search and
 * picks one by comparing x with their midpoint. Doubles hold every fp32, fp16 and bf16 value and
 * every such midpoint exactly, so the comparison is exact. The code under test works on bits
 * with shifts; the two share nothing but the format definitions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "isa/isa_num.h"
#include "support/rng.h"

/* A narrow format's finite non-negative values, indexed by bit pattern; pattern `count` is +Inf.
 * `beyond` is the value pattern `count` would have if the exponent range went on (2^16 for
 * fp16, 2^128 for bf16): the overflow threshold is the midpoint between it and the largest. */
typedef struct ref_format {
  double *value;
  uint16_t count;
  double beyond;
  uint16_t max_finite;
  uint16_t quiet_bit;
  unsigned payload_drop; /* fp32 mantissa bits not kept in the narrow mantissa */
} ref_format;

typedef struct ref_tables {
  ref_format f16;
  ref_format bf16;
} ref_tables;

static double decode_f16_magnitude(uint16_t p) {
  int e = (p >> 10) & 0x1F;
  int m = p & 0x3FF;
  return e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
}

static double decode_bf16_magnitude(uint16_t p) {
  int e = (p >> 7) & 0xFF;
  int m = p & 0x7F;
  return e == 0 ? ldexp(m, -133) : ldexp(128 + m, e - 134);
}

static int setup_tables(void **state) {
  ref_tables *t = calloc(1, sizeof *t);
  if (!t) return -1;
  t->f16 = (ref_format){NULL, 0x7C00, 65536.0, 0x7BFF, 0x0200, 13};
  t->bf16 = (ref_format){NULL, 0x7F80, ldexp(1.0, 128), 0x7F7F, 0x0040, 16};
  t->f16.value = malloc(t->f16.count * sizeof(double));
  t->bf16.value = malloc(t->bf16.count * sizeof(double));
  if (!t->f16.value || !t->bf16.value) return -1;
  for (uint32_t p = 0; p < t->f16.count; p++) t->f16.value[p] = decode_f16_magnitude((uint16_t)p);
  for (uint32_t p = 0; p < t->bf16.count; p++)
    t->bf16.value[p] = decode_bf16_magnitude((uint16_t)p);
  *state = t;
  return 0;
}

static int teardown_tables(void **state) {
  ref_tables *t = *state;
  free(t->f16.value);
  free(t->bf16.value);
  free(t);
  return 0;
}

/* Nearest pattern to a >= 0 (finite), ties to the even pattern; `count` means +Inf. */
static uint16_t ref_round_magnitude(const ref_format *fmt, double a) {
  if (a >= fmt->beyond) return fmt->count;
  size_t lo = 0, hi = fmt->count; /* value[lo] <= a < value[hi] (value[count] = beyond) */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (fmt->value[mid] <= a)
      lo = mid;
    else
      hi = mid;
  }
  double below = fmt->value[lo];
  double above = hi == fmt->count ? fmt->beyond : fmt->value[hi];
  if (a == below) return (uint16_t)lo;
  double midpoint = (below + above) / 2;
  if (a < midpoint) return (uint16_t)lo;
  if (a > midpoint) return (uint16_t)hi;
  return (uint16_t)((lo & 1) ? hi : lo);
}

/* The expected narrow pattern for fp32 bits x (round to nearest even, NaN quieted). */
static uint16_t ref_narrow(const ref_format *fmt, uint32_t x) {
  float f = isa_f32_from_bits(x);
  uint16_t sign = (x >> 31) ? 0x8000 : 0;
  if (isnan(f)) {
    /* quiet bit set, and the payload's leading bits are the fp32 payload's leading bits */
    uint32_t payload = (x & 0x007FFFFFu) >> fmt->payload_drop;
    return (uint16_t)(sign | fmt->count | fmt->quiet_bit | payload);
  }
  if (isinf(f)) return (uint16_t)(sign | fmt->count);
  return (uint16_t)(sign | ref_round_magnitude(fmt, fabs((double)f)));
}

/* The saturation-mode expectation derived from the plain one: Inf -> max, NaN -> +0. */
static uint16_t ref_saturate(const ref_format *fmt, uint16_t h) {
  uint16_t mag = h & 0x7FFF;
  if (mag > fmt->count) return 0;
  if (mag == fmt->count) return (uint16_t)((h & 0x8000) | fmt->max_finite);
  return h;
}

static void check_both_formats(const ref_tables *t, uint32_t x) {
  float f = isa_f32_from_bits(x);
  uint16_t want16 = ref_narrow(&t->f16, x);
  uint16_t wantb = ref_narrow(&t->bf16, x);
  uint16_t got16 = isa_f32_to_f16(f);
  uint16_t gotb = isa_f32_to_bf16(f);
  if (got16 != want16) fail_msg("fp16 of 0x%08x: got 0x%04x, want 0x%04x", x, got16, want16);
  if (gotb != wantb) fail_msg("bf16 of 0x%08x: got 0x%04x, want 0x%04x", x, gotb, wantb);
  uint16_t got16s = isa_f32_to_f16_sat(f);
  uint16_t gotbs = isa_f32_to_bf16_sat(f);
  if (got16s != ref_saturate(&t->f16, want16))
    fail_msg("fp16 sat of 0x%08x: got 0x%04x, want 0x%04x", x, got16s,
             ref_saturate(&t->f16, want16));
  if (gotbs != ref_saturate(&t->bf16, wantb))
    fail_msg("bf16 sat of 0x%08x: got 0x%04x, want 0x%04x", x, gotbs,
             ref_saturate(&t->bf16, wantb));
}

/* ---- the reference itself, on values derived by hand ----------------------------------------- */

static void test_isa_num_reference_sanity(void **state) {
  const ref_tables *t = *state;
  assert_int_equal(ref_narrow(&t->f16, 0x477FE000u), 0x7BFF); /* 65504 */
  assert_int_equal(ref_narrow(&t->f16, 0x477FF000u), 0x7C00); /* 65520 */
  assert_int_equal(ref_narrow(&t->f16, 0x33000000u), 0x0000); /* 2^-25 */
  assert_int_equal(ref_narrow(&t->bf16, 0x3F808000u), 0x3F80); /* 1 + 2^-8 */
  assert_int_equal(ref_narrow(&t->bf16, 0x7F7F8000u), 0x7F80);
  assert_true(t->f16.value[0x7BFF] == 65504.0);
  assert_true(t->f16.value[0x0001] == ldexp(1.0, -24));
  assert_true(t->bf16.value[0x7F7F] == (double)FLT_MAX - ldexp(1.0, 104) * 0xFFFF);
}

/* ---- raw bits ---------------------------------------------------------------------------------- */

static void test_isa_num_f32_bits_round_trip(void **state) {
  (void)state;
  assert_int_equal(isa_f32_bits(1.0f), 0x3F800000u);
  assert_int_equal(isa_f32_bits(-0.0f), 0x80000000u);
  assert_int_equal(isa_f32_bits(-2.5f), 0xC0200000u);
  assert_true(isa_f32_from_bits(0x3F800000u) == 1.0f);
  assert_true(isa_f32_from_bits(0x7F7FFFFFu) == FLT_MAX);
  assert_int_equal(isa_f32_bits(isa_f32_from_bits(0x7FA12345u)), 0x7FA12345u); /* sNaN kept */
  assert_int_equal(isa_f32_bits(isa_f32_from_bits(0xFFC00001u)), 0xFFC00001u);
}

/* ---- widening, all 65,536 patterns ------------------------------------------------------------ */

static void test_isa_num_f16_all_patterns_decode_and_round_trip(void **state) {
  (void)state;
  for (uint32_t p = 0; p <= 0xFFFF; p++) {
    uint16_t h = (uint16_t)p;
    float f = isa_f16_to_f32(h);
    uint32_t bits = isa_f32_bits(f);
    int neg = (h & 0x8000) != 0;
    int e = (h >> 10) & 0x1F;
    int m = h & 0x3FF;
    if ((bits >> 31) != (uint32_t)neg) fail_msg("fp16 0x%04x: sign lost (0x%08x)", h, bits);
    if (e == 31 && m == 0) {
      if (bits != (neg ? 0xFF800000u : 0x7F800000u)) fail_msg("fp16 0x%04x: not Inf", h);
    } else if (e == 31) {
      /* NaN: the 10-bit payload (quiet bit included) becomes the fp32 mantissa's top bits */
      if (!isnan(f) || ((bits >> 13) & 0x3FF) != (uint32_t)m || (bits & 0x1FFF) != 0)
        fail_msg("fp16 0x%04x: NaN widened to 0x%08x", h, bits);
    } else {
      double want = decode_f16_magnitude(h & 0x7FFF);
      if (neg) want = -want;
      if ((double)f != want) fail_msg("fp16 0x%04x: got %a, want %a", h, (double)f, want);
    }
    uint16_t back = isa_f32_to_f16(f);
    uint16_t want_back = (e == 31 && m != 0) ? (uint16_t)(h | 0x0200) : h; /* sNaN -> quiet */
    if (back != want_back)
      fail_msg("fp16 0x%04x -> 0x%08x -> 0x%04x, want 0x%04x", h, bits, back, want_back);
  }
  /* Hand-derived: 1.0, max, min subnormal, largest subnormal, a signalling NaN. */
  assert_int_equal(isa_f32_bits(isa_f16_to_f32(0x3C00)), 0x3F800000u);
  assert_int_equal(isa_f32_bits(isa_f16_to_f32(0x7BFF)), 0x477FE000u);
  assert_int_equal(isa_f32_bits(isa_f16_to_f32(0x0001)), 0x33800000u);
  assert_int_equal(isa_f32_bits(isa_f16_to_f32(0x83FF)), 0xB87FC000u);
  assert_int_equal(isa_f32_bits(isa_f16_to_f32(0x7C01)), 0x7F802000u);
  assert_int_equal(isa_f32_to_f16(isa_f16_to_f32(0x7C01)), 0x7E01);
}

static void test_isa_num_bf16_all_patterns_decode_and_round_trip(void **state) {
  (void)state;
  for (uint32_t p = 0; p <= 0xFFFF; p++) {
    uint16_t b = (uint16_t)p;
    float f = isa_bf16_to_f32(b);
    uint32_t bits = isa_f32_bits(f);
    int neg = (b & 0x8000) != 0;
    int e = (b >> 7) & 0xFF;
    int m = b & 0x7F;
    if ((bits >> 31) != (uint32_t)neg) fail_msg("bf16 0x%04x: sign lost (0x%08x)", b, bits);
    if (e == 255 && m == 0) {
      if (!isinf(f)) fail_msg("bf16 0x%04x: not Inf", b);
    } else if (e == 255) {
      if (!isnan(f) || ((bits >> 16) & 0x7F) != (uint32_t)m || (bits & 0xFFFF) != 0)
        fail_msg("bf16 0x%04x: NaN widened to 0x%08x", b, bits);
    } else {
      double want = decode_bf16_magnitude(b & 0x7FFF);
      if (neg) want = -want;
      if ((double)f != want) fail_msg("bf16 0x%04x: got %a, want %a", b, (double)f, want);
    }
    uint16_t back = isa_f32_to_bf16(f);
    uint16_t want_back = (e == 255 && m != 0) ? (uint16_t)(b | 0x0040) : b;
    if (back != want_back)
      fail_msg("bf16 0x%04x -> 0x%08x -> 0x%04x, want 0x%04x", b, bits, back, want_back);
  }
  assert_int_equal(isa_f32_bits(isa_bf16_to_f32(0x3F80)), 0x3F800000u);
  assert_int_equal(isa_f32_bits(isa_bf16_to_f32(0x0001)), 0x00010000u); /* 2^-133 */
  assert_int_equal(isa_f32_to_bf16(isa_bf16_to_f32(0x7F81)), 0x7FC1);
}

/* ---- narrowing: every midpoint, and one fp32 ulp either side ----------------------------------- */

/* For each pair of neighbours (p, p + 1) of fmt (the last pair being max finite and Inf), the
 * midpoint must go to the even one, one fp32 ulp below to p, one above to p + 1; both signs.
 * Every value is also checked for both formats against the reference. */
static void check_midpoints(const ref_tables *t, const ref_format *fmt,
                            uint16_t (*narrow)(float), uint16_t (*narrow_sat)(float)) {
  for (uint32_t p = 0; p < fmt->count; p++) {
    double above = p + 1 == fmt->count ? fmt->beyond : fmt->value[p + 1];
    double mid = (fmt->value[p] + above) / 2;
    float fm = (float)mid;
    if ((double)fm != mid) fail_msg("midpoint after 0x%04x is not an fp32", p);
    uint16_t even = (uint16_t)((p & 1) ? p + 1 : p);
    float below_f = nextafterf(fm, 0.0f), above_f = nextafterf(fm, INFINITY);
    for (int neg = 0; neg <= 1; neg++) {
      uint16_t s = neg ? 0x8000 : 0;
      float sg = neg ? -1.0f : 1.0f;
      struct { float x; uint16_t want; } cases[] = {
          {sg * fm, (uint16_t)(s | even)},
          {sg * below_f, (uint16_t)(s | p)},
          {sg * above_f, (uint16_t)(s | (p + 1))},
      };
      for (size_t i = 0; i < 3; i++) {
        uint16_t got = narrow(cases[i].x);
        if (got != cases[i].want)
          fail_msg("0x%08x: got 0x%04x, want 0x%04x", isa_f32_bits(cases[i].x), got,
                   cases[i].want);
        uint16_t got_sat = narrow_sat(cases[i].x);
        if (got_sat != ref_saturate(fmt, cases[i].want))
          fail_msg("sat 0x%08x: got 0x%04x", isa_f32_bits(cases[i].x), got_sat);
        check_both_formats(t, isa_f32_bits(cases[i].x));
      }
    }
  }
}

static void test_isa_num_f16_every_midpoint_ties_to_even(void **state) {
  const ref_tables *t = *state;
  check_midpoints(t, &t->f16, isa_f32_to_f16, isa_f32_to_f16_sat);
}

static void test_isa_num_bf16_every_midpoint_ties_to_even(void **state) {
  const ref_tables *t = *state;
  check_midpoints(t, &t->bf16, isa_f32_to_bf16, isa_f32_to_bf16_sat);
}

/* ---- narrowing: boundaries derived by hand ------------------------------------------------------ */

typedef struct narrow_case {
  uint32_t x;       /* fp32 bits */
  uint16_t want;    /* round to nearest even */
  uint16_t want_sat;
} narrow_case;

static void test_isa_num_f16_boundaries(void **state) {
  const ref_tables *t = *state;
  static const narrow_case cases[] = {
      {0x00000000u, 0x0000, 0x0000}, /* +0 */
      {0x80000000u, 0x8000, 0x8000}, /* -0 */
      {0x3F800000u, 0x3C00, 0x3C00}, /* 1 */
      {0x3F801000u, 0x3C00, 0x3C00}, /* 1 + 2^-11: tie, to even */
      {0x3F801001u, 0x3C01, 0x3C01}, /* just above the tie */
      {0x3F803000u, 0x3C02, 0x3C02}, /* 1 + 3 * 2^-11: tie, to even (up) */
      {0x45001000u, 0x6800, 0x6800}, /* 2049: tie between 2048 and 2050 */
      {0x45003000u, 0x6802, 0x6802}, /* 2051: tie between 2050 and 2052 */
      {0x477FE000u, 0x7BFF, 0x7BFF}, /* 65504, largest finite */
      {0x477FEFFFu, 0x7BFF, 0x7BFF}, /* 65519.996, just below the overflow threshold */
      {0x477FF000u, 0x7C00, 0x7BFF}, /* 65520: tie, to even = Inf */
      {0xC77FF000u, 0xFC00, 0xFBFF}, /* -65520 */
      {0xC77FEFFFu, 0xFBFF, 0xFBFF},
      {0x47800000u, 0x7C00, 0x7BFF}, /* 65536 */
      {0x7F7FFFFFu, 0x7C00, 0x7BFF}, /* FLT_MAX */
      {0xFF7FFFFFu, 0xFC00, 0xFBFF},
      {0x7F800000u, 0x7C00, 0x7BFF}, /* +Inf */
      {0xFF800000u, 0xFC00, 0xFBFF}, /* -Inf */
      {0x33800000u, 0x0001, 0x0001}, /* 2^-24, smallest subnormal */
      {0xB3800000u, 0x8001, 0x8001},
      {0x33000000u, 0x0000, 0x0000}, /* 2^-25, half of it: tie, to even = 0 */
      {0xB3000000u, 0x8000, 0x8000},
      {0x33000001u, 0x0001, 0x0001}, /* just above half */
      {0x32FFFFFFu, 0x0000, 0x0000}, /* just below half */
      {0x33C00000u, 0x0002, 0x0002}, /* 1.5 * 2^-24: tie, to even = 2 */
      {0x34200000u, 0x0002, 0x0002}, /* 2.5 * 2^-24: tie, to even = 2 */
      {0x387FC000u, 0x03FF, 0x03FF}, /* largest subnormal 1023 * 2^-24 */
      {0x387FE000u, 0x0400, 0x0400}, /* 1023.5 * 2^-24: tie, to even = smallest normal */
      {0x387FDFFFu, 0x03FF, 0x03FF},
      {0x387FFFFFu, 0x0400, 0x0400}, /* just below 2^-14 */
      {0x38800000u, 0x0400, 0x0400}, /* 2^-14, smallest normal */
      {0x38801000u, 0x0400, 0x0400}, /* 2^-14 (1 + 2^-11): tie, to even */
      {0x00000001u, 0x0000, 0x0000}, /* fp32 subnormals */
      {0x807FFFFFu, 0x8000, 0x8000},
      {0x7FC00000u, 0x7E00, 0x0000}, /* quiet NaN */
      {0xFFC00000u, 0xFE00, 0x0000}, /* negative quiet NaN: sat gives +0 */
      {0x7F800001u, 0x7E00, 0x0000}, /* signalling NaN, payload below fp16's: quiet, not Inf */
      {0xFF800001u, 0xFE00, 0x0000},
      {0x7FA00000u, 0x7F00, 0x0000}, /* signalling NaN, payload top bit kept */
      {0x7F802000u, 0x7E01, 0x0000},
      {0xFFFFFFFFu, 0xFFFF, 0x0000},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    float f = isa_f32_from_bits(cases[i].x);
    if (isa_f32_to_f16(f) != cases[i].want)
      fail_msg("fp16 of 0x%08x: got 0x%04x, want 0x%04x", cases[i].x, isa_f32_to_f16(f),
               cases[i].want);
    if (isa_f32_to_f16_sat(f) != cases[i].want_sat)
      fail_msg("fp16 sat of 0x%08x: got 0x%04x, want 0x%04x", cases[i].x,
               isa_f32_to_f16_sat(f), cases[i].want_sat);
    check_both_formats(t, cases[i].x);
  }
  assert_true(isa_f32_from_bits(0x477FEFFFu) == 65519.99609375f);
}

static void test_isa_num_bf16_boundaries(void **state) {
  const ref_tables *t = *state;
  static const narrow_case cases[] = {
      {0x00000000u, 0x0000, 0x0000},
      {0x80000000u, 0x8000, 0x8000},
      {0x3F800000u, 0x3F80, 0x3F80}, /* 1 */
      {0x3F808000u, 0x3F80, 0x3F80}, /* 1 + 2^-8: tie, to even */
      {0x3F807FFFu, 0x3F80, 0x3F80},
      {0x3F808001u, 0x3F81, 0x3F81},
      {0x3F818000u, 0x3F82, 0x3F82}, /* 1 + 3 * 2^-8: tie, to even (up) */
      {0x477FE000u, 0x4780, 0x4780}, /* 65504 -> 65536 */
      {0x7F7F0000u, 0x7F7F, 0x7F7F}, /* bf16's largest finite */
      {0x7F7F7FFFu, 0x7F7F, 0x7F7F}, /* just below its overflow threshold */
      {0x7F7F8000u, 0x7F80, 0x7F7F}, /* (2 - 2^-8) * 2^127: tie, to even = Inf */
      {0xFF7F8000u, 0xFF80, 0xFF7F},
      {0x7F7FFFFFu, 0x7F80, 0x7F7F}, /* FLT_MAX */
      {0xFF7FFFFFu, 0xFF80, 0xFF7F},
      {0x7F800000u, 0x7F80, 0x7F7F}, /* Inf */
      {0xFF800000u, 0xFF80, 0xFF7F},
      {0x00000001u, 0x0000, 0x0000}, /* 2^-149 */
      {0x00008000u, 0x0000, 0x0000}, /* 2^-134, half of bf16's smallest subnormal: to 0 */
      {0x00008001u, 0x0001, 0x0001},
      {0x00018000u, 0x0002, 0x0002}, /* 1.5 * 2^-133: tie, to even = 2 */
      {0x80008001u, 0x8001, 0x8001},
      {0x007FFFFFu, 0x0080, 0x0080}, /* largest fp32 subnormal rounds up to bf16 2^-126 */
      {0x007F7FFFu, 0x007F, 0x007F},
      {0x7FC00000u, 0x7FC0, 0x0000},
      {0xFFC00000u, 0xFFC0, 0x0000},
      {0x7F800001u, 0x7FC0, 0x0000}, /* signalling NaN: quiet, not Inf */
      {0x7F810000u, 0x7FC1, 0x0000},
      {0xFF810000u, 0xFFC1, 0x0000},
      {0x7FFFFFFFu, 0x7FFF, 0x0000},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    float f = isa_f32_from_bits(cases[i].x);
    if (isa_f32_to_bf16(f) != cases[i].want)
      fail_msg("bf16 of 0x%08x: got 0x%04x, want 0x%04x", cases[i].x, isa_f32_to_bf16(f),
               cases[i].want);
    if (isa_f32_to_bf16_sat(f) != cases[i].want_sat)
      fail_msg("bf16 sat of 0x%08x: got 0x%04x, want 0x%04x", cases[i].x,
               isa_f32_to_bf16_sat(f), cases[i].want_sat);
    check_both_formats(t, cases[i].x);
  }
}

/* ---- narrowing: pseudo-random fp32 patterns ---------------------------------------------------- */

static void test_isa_num_random_patterns_match_reference(void **state) {
  const ref_tables *t = *state;
  uint64_t s = 0x9E3779B97F4A7C15ull;
  /* Uniform bit patterns: every exponent, NaNs and Infs included. */
  for (int i = 0; i < 300000; i++) check_both_formats(t, (uint32_t)(rng_xorshift(&s) >> 16));
  /* Exponents in and around fp16's range (2^-27 .. 2^17), where its rounding happens. */
  for (int i = 0; i < 300000; i++) {
    uint64_t r = rng_xorshift(&s);
    uint32_t exp = 100u + (uint32_t)((r >> 40) % 45u);
    uint32_t x = (uint32_t)(r & 0x807FFFFFu) | (exp << 23);
    check_both_formats(t, x);
  }
  /* Patterns with few mantissa bits: near ties of both formats. */
  for (int i = 0; i < 200000; i++) {
    uint64_t r = rng_xorshift(&s);
    uint32_t x = (uint32_t)(r >> 32);
    x &= 0xFFFFE000u | (uint32_t)(1u << (r % 13)); /* fp16's dropped bits: at most one kept */
    check_both_formats(t, x);
    check_both_formats(t, (uint32_t)(r >> 32) & 0xFFFF8000u);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_isa_num_reference_sanity),
      cmocka_unit_test(test_isa_num_f32_bits_round_trip),
      cmocka_unit_test(test_isa_num_f16_all_patterns_decode_and_round_trip),
      cmocka_unit_test(test_isa_num_bf16_all_patterns_decode_and_round_trip),
      cmocka_unit_test(test_isa_num_f16_every_midpoint_ties_to_even),
      cmocka_unit_test(test_isa_num_bf16_every_midpoint_ties_to_even),
      cmocka_unit_test(test_isa_num_f16_boundaries),
      cmocka_unit_test(test_isa_num_bf16_boundaries),
      cmocka_unit_test(test_isa_num_random_patterns_match_reference),
  };
  return cmocka_run_group_tests(tests, setup_tables, teardown_tables);
}
