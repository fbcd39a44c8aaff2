/* Tests of isa/isa_vmath (exp and ln correctly rounded to fp32 and fp16) and of the unary vector
 * family that uses them (isa/isa_sem_vunary.c: vexp, vln, vsqrt, vrec, vrelu, vabs).
 *
 * The reference is the host's long double expl / logl (64-bit significand on x86, 113 on
 * aarch64), rounded to the target here with nextafter and midpoints computed in long double; an
 * input whose long double result lies too near a rounding midpoint to decide is counted as
 * undecided and left out (there should be none, or nearly none, among the samples). Every fp16
 * input is checked, and about a million fp32 inputs of each function, spread over the range
 * where the result is neither 0, 1 nor Inf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa_vmath.h"
#include "support/insn_build.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/ref_num.h"
#include "support/rng.h"

#define UB_BYTES (192u * 1024u)

/* ---- the reference ------------------------------------------------------------------------ */

/* How close (relative) to a midpoint the long double result may lie and still be trusted: a few
 * units of its last place. */
static long double trust(void) { return ldexpl(1.0L, -(LDBL_MANT_DIG - 4)); }

/* y (a long double approximation, relative error below a unit of its last place) rounded to
 * nearest even in fp32, as bits; *undecided when y is too near a midpoint between two floats. */
static uint32_t ref_to_f32(long double y, bool *undecided) {
  float r = (float)y; /* to nearest even */
  *undecided = false;
  if (isinf(r) || y == (long double)r) {
    if (isinf(r) && !isinf(y)) { /* beyond the largest float: the midpoint is (2 - 2^-24) 2^127 */
      long double mid = ldexpl(2.0L - ldexpl(1.0L, -24), 127);
      *undecided = fabsl(fabsl(y) - mid) <= trust() * fabsl(y);
    }
    return ref_f32_bits(r);
  }
  float other = nextafterf(r, y > (long double)r ? INFINITY : -INFINITY);
  long double mid = ((long double)r + (long double)other) / 2;
  if (isinf(other)) mid = copysignl(ldexpl(2.0L - ldexpl(1.0L, -24), 127), y);
  *undecided = fabsl(y - mid) <= trust() * fabsl(y);
  return ref_f32_bits(r);
}

/* The same for fp16: the neighbours of the double nearest to y, by exact fp16 values. */
static uint32_t ref_to_f16(long double y, bool *undecided) {
  uint32_t b = ref_f16_of((double)y, false);
  *undecided = false;
  if ((b & 0x7FFFu) >= 0x7C00u) { /* Inf: the midpoint 65520 */
    *undecided = !isinf(y) && fabsl(fabsl(y) - 65520.0L) <= trust() * fabsl(y);
    return b;
  }
  long double r = ref_f16_value((uint16_t)b);
  if (r == y) return b;
  uint32_t nb = y > r ? ((b & 0x8000u) ? b - 1 : b + 1) : ((b & 0x8000u) ? b + 1 : b - 1);
  if ((b & 0x7FFFu) == 0) nb = (y > 0 ? 0x0000u : 0x8000u) | 1u; /* around zero */
  long double other = (nb & 0x7FFFu) >= 0x7C00u ? copysignl(65536.0L, y) : ref_f16_value((uint16_t)nb);
  long double mid = (r + other) / 2;
  *undecided = fabsl(y - mid) <= trust() * fabsl(y);
  return b;
}

typedef enum { FN_EXP, FN_LN } fn;

static long double ref_fn(fn f, long double x) { return f == FN_EXP ? expl(x) : logl(x); }

static uint32_t isa_fn(fn f, double x, isa_float_fmt fmt) {
  return f == FN_EXP ? isa_vmath_exp(x, fmt) : isa_vmath_ln(x, fmt);
}

static uint32_t isa_fn_slow(fn f, double x, isa_float_fmt fmt) {
  return f == FN_EXP ? isa_vmath_exp_slow(x, fmt) : isa_vmath_ln_slow(x, fmt);
}

/* Checks one fp32 input against the reference and the slow path; returns 1 when undecided. */
static int check_f32(fn f, float x) {
  bool undecided;
  uint32_t want = ref_to_f32(ref_fn(f, x), &undecided);
  if (undecided) return 1;
  uint32_t got = isa_fn(f, x, ISA_FLOAT_FP32), slow = isa_fn_slow(f, x, ISA_FLOAT_FP32);
  if (got != want || slow != want)
    fail_msg("%s(%a): fast path 0x%08x, slow path 0x%08x, want 0x%08x", f == FN_EXP ? "exp" : "ln",
             (double)x, got, slow, want);
  return 0;
}

/* ---- fp32 ----------------------------------------------------------------------------------- */

/* exp on ~1M inputs: uniform bit patterns of x in [-103.97, 88.72] (results from the smallest
 * subnormal's half to the largest float) and a dense band around 0. */
static void test_vmath_exp_f32_against_long_double(void **state) {
  (void)state;
  uint64_t seed = 11;
  int undecided = 0;
  for (int i = 0; i < 1000000; i++) {
    uint64_t r = rng_lcg(&seed);
    float x;
    if (i % 4 == 0) x = ldexpf((float)((int64_t)(r % 2000001) - 1000000), -20); /* |x| < 1 */
    else {
      x = ref_f32_of_bits((uint32_t)(r >> 8) & 0x7FFFFFFFu);
      if (!(x <= 103.9f)) continue;
      if (r & 1) x = -x;
      if (x > 88.72f) continue;
    }
    undecided += check_f32(FN_EXP, x);
  }
  assert_true(undecided <= 2);
}

/* ln on ~1M inputs: uniform positive bit patterns (subnormals included) and a dense band around
 * 1 where ln is tiny. */
static void test_vmath_ln_f32_against_long_double(void **state) {
  (void)state;
  uint64_t seed = 13;
  int undecided = 0;
  for (int i = 0; i < 1000000; i++) {
    uint64_t r = rng_lcg(&seed);
    float x;
    if (i % 4 == 0) x = 1.0f + ldexpf((float)((int64_t)(r % 2000001) - 1000000), -26);
    else x = ref_f32_of_bits((uint32_t)(r >> 8) % 0x7F800000u + 1u);
    undecided += check_f32(FN_LN, x);
  }
  assert_true(undecided <= 2);
}

/* Special values and edges, by hand. */
static void test_vmath_specials(void **state) {
  (void)state;
  isa_float_fmt f32 = ISA_FLOAT_FP32, f16 = ISA_FLOAT_FP16;
  assert_int_equal(isa_vmath_exp(0.0, f32), 0x3F800000u);
  assert_int_equal(isa_vmath_exp(-0.0, f32), 0x3F800000u);
  assert_int_equal(isa_vmath_exp(NAN, f32), 0x7FC00000u);
  assert_int_equal(isa_vmath_exp(INFINITY, f32), 0x7F800000u);
  assert_int_equal(isa_vmath_exp(-INFINITY, f32), 0);
  assert_int_equal(isa_vmath_exp(1e4, f32), 0x7F800000u);
  assert_int_equal(isa_vmath_exp(-1e4, f32), 0);
  /* e^1 = 2.71828182845904523... -> 0x402DF854 (2.7182817459...; the next float is further) */
  assert_int_equal(isa_vmath_exp(1.0, f32), 0x402DF854u);
  /* e^88.72283935546875 (0x42B17218) = 3.40279851e38 < FLT_MAX; e^88.7228394 (next) overflows:
   * FLT_MAX's midpoint to 2^128 is 3.4028235678e38 */
  assert_int_equal(isa_vmath_exp(ref_f32_of_bits(0x42B17217u), f32), 0x7F7FFF84u);
  assert_int_equal(isa_vmath_exp(ref_f32_of_bits(0x42B17218u), f32), 0x7F800000u);
  /* the smallest subnormal 2^-149: e^-103.279 ~ 1.4e-45 */
  assert_int_equal(isa_vmath_exp(-103.0, f32), ref_to_f32(expl(-103.0L), &(bool){false}));
  /* ln */
  assert_int_equal(isa_vmath_ln(1.0, f32), 0);
  assert_int_equal(isa_vmath_ln(0.0, f32), 0xFF800000u);
  assert_int_equal(isa_vmath_ln(-0.0, f32), 0xFF800000u);
  assert_int_equal(isa_vmath_ln(-1.0, f32), 0x7FC00000u);
  assert_int_equal(isa_vmath_ln(INFINITY, f32), 0x7F800000u);
  assert_int_equal(isa_vmath_ln(NAN, f32), 0x7FC00000u);
  /* ln 2 = 0.693147180559945309 -> 0x3F317218 */
  assert_int_equal(isa_vmath_ln(2.0, f32), 0x3F317218u);
  /* ln(2^-149) = -103.2789306640625 -> 0xC2CE8ED0 */
  assert_int_equal(isa_vmath_ln(ldexp(1.0, -149), f32), 0xC2CE8ED0u);
  /* fp16: e^1 = 2.71875 (0x4170; 2.716796875 is further), e^11.0898 = 65504 region, overflow
   * from e^11.09375; ln(65504) = 11.0898... -> 0x498C */
  assert_int_equal(isa_vmath_exp(1.0, f16), 0x4170u);
  assert_int_equal(isa_vmath_exp(12.0, f16), 0x7C00u);
  assert_int_equal(isa_vmath_ln(65504.0, f16), 0x498Cu);
  assert_int_equal(isa_vmath_ln(-2.0, f16), 0x7E00u);
}

/* The slow path alone agrees with the reference on inputs the fast path never sends to it. */
static void test_vmath_slow_path_alone(void **state) {
  (void)state;
  uint64_t seed = 17;
  for (int i = 0; i < 20000; i++) {
    uint64_t r = rng_lcg(&seed);
    float x = ldexpf((float)((int64_t)(r % 2000001) - 1000000), -14); /* |x| < 61 */
    bool u;
    uint32_t want = ref_to_f32(expl(x), &u);
    if (!u) assert_int_equal(isa_vmath_exp_slow(x, ISA_FLOAT_FP32), want);
    float y = ref_f32_of_bits((uint32_t)(r >> 8) % 0x7F800000u + 1u);
    want = ref_to_f32(logl(y), &u);
    if (!u) assert_int_equal(isa_vmath_ln_slow(y, ISA_FLOAT_FP32), want);
  }
}

/* Inputs whose exact result lies within 2^-40 (relative) of a rounding midpoint: where a double
 * evaluation cannot decide, the fast path must hand over to the slow one. Found by scanning;
 * each is checked against the reference. */
static void test_vmath_hard_cases(void **state) {
  (void)state;
  uint64_t seed = 19;
  int found = 0;
  for (int i = 0; i < 3000000 && found < 40; i++) {
    uint64_t r = rng_lcg(&seed);
    float x = ldexpf((float)((int64_t)(r % 20000001) - 10000000), -17); /* |x| < 77 */
    fn f = i % 2 ? FN_EXP : FN_LN;
    if (f == FN_LN) x = fabsf(x) + 0x1p-20f;
    long double y = ref_fn(f, x);
    float rr = (float)y;
    float other = nextafterf(rr, y > (long double)rr ? INFINITY : -INFINITY);
    long double mid = ((long double)rr + (long double)other) / 2;
    if (fabsl(y - mid) > ldexpl(fabsl(y), -40)) continue;
    found++;
    check_f32(f, x);
  }
  assert_true(found >= 1);
}

/* ---- fp16: every input ------------------------------------------------------------------------ */

static void test_vmath_f16_every_input(void **state) {
  (void)state;
  int undecided = 0;
  for (uint32_t h = 0; h < 0x10000u; h++) {
    double x = ref_f16_value((uint16_t)h);
    if (isnan(x)) {
      assert_int_equal(isa_vmath_exp(x, ISA_FLOAT_FP16), 0x7E00u);
      assert_int_equal(isa_vmath_ln(x, ISA_FLOAT_FP16), 0x7E00u);
      continue;
    }
    bool u;
    uint32_t want = isinf(x) ? (x > 0 ? 0x7C00u : 0u) : ref_to_f16(expl(x), &u);
    if (!isinf(x) && u) undecided++;
    else assert_int_equal(isa_vmath_exp(x, ISA_FLOAT_FP16), want);
    if (x < 0) want = 0x7E00u, u = false;
    else if (x == 0) want = 0xFC00u, u = false;
    else if (isinf(x)) want = 0x7C00u, u = false;
    else want = ref_to_f16(logl(x), &u);
    if (u) undecided++;
    else assert_int_equal(isa_vmath_ln(x, ISA_FLOAT_FP16), want);
  }
  assert_int_equal(undecided, 0);
}

/* ---- the unary family ------------------------------------------------------------------------- */

static isa_testmach *new_machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_UB] = UB_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  memset(itm_mem(t, ISA_MEM_UB), 0x5A, UB_BYTES);
  return t;
}

/* Runs op on n elements of type dt at UB:0 into UB:0x10000 (saturation per sat) and returns
 * the machine. */
static isa_testmach *run_unary(isa_op op, isa_dtype dt, const uint32_t *x, uint32_t n, bool sat) {
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  unsigned es = isa_dtype_bits(dt) / 8;
  for (uint32_t i = 0; i < n; i++) pk_le_put(ub + (uint64_t)i * es, x[i], es);
  itm_set_env(t, (isa_env){sat});
  isa_insn in = ib_vunary_n(op, dt, 0x10000, 0, n);
  isa_fault f;
  if (!itm_run(t, &in, &f)) fail_msg("%s", f.msg);
  return t;
}

static uint32_t out_at(isa_testmach *t, isa_dtype dt, uint32_t i) {
  unsigned es = isa_dtype_bits(dt) / 8;
  return (uint32_t)pk_le_get(itm_mem(t, ISA_MEM_UB) + 0x10000 + (uint64_t)i * es, es);
}

/* A fp16 reference result with CTRL[48]'s saturation applied when sat. */
static uint32_t sat16(uint32_t b, bool sat) {
  if (!sat) return b;
  if ((b & 0x7FFFu) == 0x7C00u) return (b & 0x8000u) | 0x7BFFu;
  if ((b & 0x7FFFu) > 0x7C00u) return 0;
  return b;
}

/* vexp flushes subnormal results to +0; fp16 results saturate under CTRL[48]; everything else
 * is isa_vmath's value. Every fp16 input, then fp32 samples. */
static void test_vmath_vexp_vln_instructions(void **state) {
  (void)state;
  enum { N = 4096 };
  uint32_t x[N];
  for (int sat = 0; sat <= 1; sat++)
    for (uint32_t base = 0; base < 0x10000u; base += N) {
      for (uint32_t i = 0; i < N; i++) x[i] = base + i;
      isa_testmach *te = run_unary(ISA_OP_VEXP, ISA_FP16, x, N, sat);
      isa_testmach *tl = run_unary(ISA_OP_VLN, ISA_FP16, x, N, sat);
      for (uint32_t i = 0; i < N; i++) {
        double v = ref_f16_value((uint16_t)x[i]);
        uint32_t e = isa_vmath_exp(v, ISA_FLOAT_FP16);
        if ((e & 0x7C00u) == 0 && e != 0) e = 0; /* subnormal: flushed */
        assert_int_equal(out_at(te, ISA_FP16, i), sat16(e, sat));
        assert_int_equal(out_at(tl, ISA_FP16, i), sat16(isa_vmath_ln(v, ISA_FLOAT_FP16), sat));
      }
      itm_destroy(te);
      itm_destroy(tl);
    }
  /* fp32: e^-100 = 3.7e-44 is subnormal -> +0; e^-87 = 1.6e-38 is normal */
  uint32_t f[4] = {ref_f32_bits(-100.0f), ref_f32_bits(-87.0f), ref_f32_bits(0.5f), 0x7FC00001u};
  isa_testmach *t = run_unary(ISA_OP_VEXP, ISA_FP32, f, 4, true);
  assert_int_equal(out_at(t, ISA_FP32, 0), 0);
  assert_int_equal(out_at(t, ISA_FP32, 1), isa_vmath_exp(-87.0, ISA_FLOAT_FP32));
  assert_true(out_at(t, ISA_FP32, 1) >= 0x00800000u);
  assert_int_equal(out_at(t, ISA_FP32, 2), 0x3FD3094Cu); /* e^0.5 = 1.6487212707 */
  assert_int_equal(out_at(t, ISA_FP32, 3), 0x7FC00000u);
  itm_destroy(t);
}

/* vsqrt, vrec, vrelu, vabs against plain C references (double sqrt and division rounded
 * through ref_num, comparisons), fp32 and fp16, saturation on and off. */
static void test_vmath_sqrt_rec_relu_abs(void **state) {
  (void)state;
  enum { N = 2000 };
  static const isa_op ops[] = {ISA_OP_VSQRT, ISA_OP_VREC, ISA_OP_VRELU, ISA_OP_VABS};
  uint64_t seed = 23;
  uint32_t x[N];
  for (size_t o = 0; o < 4; o++)
    for (int dti = 0; dti < 2; dti++)
      for (int sat = 0; sat <= 1; sat++) {
        isa_dtype dt = dti ? ISA_FP16 : ISA_FP32;
        for (uint32_t i = 0; i < N; i++) {
          uint64_t r = rng_lcg(&seed);
          x[i] = dt == ISA_FP16 ? (uint32_t)(r >> 20) & 0xFFFFu : (uint32_t)(r >> 16);
        }
        x[0] = dt == ISA_FP16 ? 0x8000u : 0x80000000u; /* -0 */
        x[1] = dt == ISA_FP16 ? 0x0001u : 0x00000001u; /* the smallest subnormal */
        isa_testmach *t = run_unary(ops[o], dt, x, N, sat);
        for (uint32_t i = 0; i < N; i++) {
          double v = dt == ISA_FP16 ? ref_f16_value((uint16_t)x[i]) : ref_f32_of_bits(x[i]);
          double y;
          switch (ops[o]) {
            case ISA_OP_VSQRT: y = sqrt(v); break;
            case ISA_OP_VREC: y = 1.0 / v; break;
            case ISA_OP_VRELU: y = isnan(v) ? v : v > 0 ? v : 0.0; break;
            default: y = fabs(v); break;
          }
          uint32_t want = dt == ISA_FP16 ? ref_f16_of(y, sat) : ref_f32_of(y);
          uint32_t got = out_at(t, dt, i);
          if (got != want)
            fail_msg("%s %s sat=%d x=0x%x: 0x%x, want 0x%x", isa_op_info(ops[o])->mnemonic,
                     isa_dtype_name(dt), sat, x[i], got, want);
        }
        itm_destroy(t);
      }
  /* relu on int32 */
  uint32_t xi[4] = {5, 0, 0x80000000u, 0xFFFFFFFFu};
  isa_testmach *t = run_unary(ISA_OP_VRELU, ISA_INT32, xi, 4, true);
  assert_int_equal(out_at(t, ISA_INT32, 0), 5);
  assert_int_equal(out_at(t, ISA_INT32, 1), 0);
  assert_int_equal(out_at(t, ISA_INT32, 2), 0);
  assert_int_equal(out_at(t, ISA_INT32, 3), 0);
  itm_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vmath_exp_f32_against_long_double),
      cmocka_unit_test(test_vmath_ln_f32_against_long_double),
      cmocka_unit_test(test_vmath_specials),
      cmocka_unit_test(test_vmath_slow_path_alone),
      cmocka_unit_test(test_vmath_hard_cases),
      cmocka_unit_test(test_vmath_f16_every_input),
      cmocka_unit_test(test_vmath_vexp_vln_instructions),
      cmocka_unit_test(test_vmath_sqrt_rec_relu_abs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
