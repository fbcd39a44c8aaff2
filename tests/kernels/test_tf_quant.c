/* Tests of TensorFlow QuantizeV2 / Dequantize on the host (kernels/kn_quant_ops, registry entries
 * tf_quantize_v2 and tf_dequantize): TensorFlow's own test cases, hand-derived values, errors
 * (code and message), and thousands of random elements against an independent reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_num.h"
#include "kernels/kn_op.h"
#include "kernels/kn_quant_ops.h"
#include "support/kn_test.h"
#include "support/ref_num.h"
#include "support/rng.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- helpers ------------------------------------------------------------------------------ */

static kn_tensor make_f32(const char *name, uint32_t ndim, const uint64_t *shape, const float *v) {
  kn_tensor t;
  assert_int_equal(kn_tensor_alloc(&t, name, ISA_FP32, ndim, shape, NULL), CS_OK);
  memcpy(t.data, v, t.count * sizeof(float));
  return t;
}

static float get_f32(const kn_tensor *t, uint64_t i) { return ((const float *)t->data)[i]; }

static void assert_same_float(float got, float want) {
  if (ref_f32_bits(got) != ref_f32_bits(want)) fail_msg("got %.9g (0x%08x), want %.9g (0x%08x)", (double)got, ref_f32_bits(got), (double)want, ref_f32_bits(want));
}

static kn_tf_quantize_params qparams(isa_dtype T, kn_tf_mode mode) {
  kn_tf_quantize_params p = {T, mode, KN_TF_HALF_AWAY_FROM_ZERO, false, -1, 0.01f};
  return p;
}

static kn_tf_dequantize_params dqparams(isa_dtype T, kn_tf_mode mode) {
  kn_tf_dequantize_params p = {T, mode, false, -1, ISA_FP32};
  return p;
}

typedef struct qresult {
  kn_tensor out, omin, omax;
} qresult;

/* Runs QuantizeV2 on a 1-D input with scalar-like ranges of shape [1] (as TF's tests give them). */
static qresult quantize_1d(const float *x, uint64_t n, float mn, float mx, kn_tf_quantize_params p) {
  uint64_t shape[1] = {n}, one[1] = {1};
  kn_tensor in = make_f32("input", 1, shape, x), tmin = make_f32("min_range", 1, one, &mn),
            tmax = make_f32("max_range", 1, one, &mx);
  qresult r;
  cs_err err;
  cs_status st = kn_tf_quantize_v2(&in, &tmin, &tmax, &p, &r.out, &r.omin, &r.omax, &err);
  if (st != CS_OK) fail_msg("%s", err.msg);
  kn_tensor_free(&in);
  kn_tensor_free(&tmin);
  kn_tensor_free(&tmax);
  return r;
}

static void qresult_free(qresult *r) {
  kn_tensor_free(&r->out);
  kn_tensor_free(&r->omin);
  kn_tensor_free(&r->omax);
}

/* std::minstd_rand (a = 48271, m = 2^31 - 1), the generator of TF's ScalePerSliceAlongAxis. */
static uint32_t minstd_next(uint32_t *state) {
  *state = (uint32_t)((uint64_t)*state * 48271u % 2147483647u);
  return *state;
}

/* ---- TensorFlow's published cases (tensorflow/core/kernels/quantize_op_test.cc) ------------ */

/* TEST_F(QuantizedOpTest, QuantizeV2): MIN_FIRST quint8 over [0, 255]. */
static void test_tf_quantize_v2_min_first_quint8(void **state) {
  (void)state;
  const float x[] = {0.0f, 1.0f, 1.25f, 1.75f, 127.0f, 255.0f, 500.0f};
  qresult r = quantize_1d(x, 7, 0.0f, 255.0f, qparams(ISA_UINT8, KN_TF_MIN_FIRST));
  const int64_t want[] = {0, 1, 1, 2, 127, 255, 255};
  kt_assert_ints(&r.out, want, 7);
  assert_int_equal(r.out.dtype, ISA_UINT8);
  /* QuantizeV2Ports: output_min 0, output_max 255 (the adjusted range) */
  assert_int_equal(r.omin.ndim, 0);
  assert_same_float(get_f32(&r.omin, 0), 0.0f);
  assert_same_float(get_f32(&r.omax, 0), 255.0f);
  qresult_free(&r);
}

/* TEST_F(QuantizedOpTest, QuantizeV2EqualRange): min = max = 0 is widened by
 * ensure_minimum_range (0.01 * max(1, 0)), so output_max = 0.01f > 0. */
static void test_tf_quantize_v2_equal_range(void **state) {
  (void)state;
  const float x[] = {0, 0, 0, 0, 0, 0};
  qresult r = quantize_1d(x, 6, 0.0f, 0.0f, qparams(ISA_UINT8, KN_TF_MIN_FIRST));
  const int64_t want[] = {0, 0, 0, 0, 0, 0};
  kt_assert_ints(&r.out, want, 6);
  assert_same_float(get_f32(&r.omin, 0), 0.0f);
  assert_same_float(get_f32(&r.omax, 0), 0.01f);
  qresult_free(&r);
}

/* QuantizeV2MovesMinToIncludeZero / QuantizeV2MovesMaxToIncludeZero */
static void test_tf_quantize_v2_range_includes_zero(void **state) {
  (void)state;
  const float up[] = {0.1f, 0.2f, 0.3f}, down[] = {-0.1f, -0.2f, -0.3f};
  qresult r = quantize_1d(up, 3, 0.1f, 0.3f, qparams(ISA_UINT8, KN_TF_MIN_FIRST));
  const int64_t want_up[] = {85, 170, 255};
  kt_assert_ints(&r.out, want_up, 3);
  assert_same_float(get_f32(&r.omin, 0), 0.0f);
  assert_same_float(get_f32(&r.omax, 0), 0.3f);
  qresult_free(&r);
  r = quantize_1d(down, 3, -0.3f, -0.1f, qparams(ISA_UINT8, KN_TF_MIN_FIRST));
  const int64_t want_down[] = {170, 85, 0};
  kt_assert_ints(&r.out, want_down, 3);
  assert_same_float(get_f32(&r.omin, 0), -0.3f);
  assert_same_float(get_f32(&r.omax, 0), 0.0f);
  qresult_free(&r);
}

/* QuantizeV2_32Bit: TF allows 256 of fuzz; the exact values are derived by hand: range_scale =
 * float(4294967295 / 512) = 2^23, range_min_scaled = -2^31, so q = clamp(round(x * 2^23),
 * -2^31, 2147483520) (the largest float below 2^31). */
static void test_tf_quantize_v2_min_first_qint32(void **state) {
  (void)state;
  const float x[] = {-500.0f, 0.0f, 1.0f, 1.25f, 1.75f, 127.0f, 255.0f, 500.0f};
  qresult r = quantize_1d(x, 8, -256.0f, 256.0f, qparams(ISA_INT32, KN_TF_MIN_FIRST));
  const int64_t tf_expected[] = {INT32_MIN, 0, 1 << 23, (int64_t)(1.25 * (1 << 23)), (int64_t)(1.75 * (1 << 23)),
                                 (int64_t)127 << 23, (int64_t)255 << 23, INT32_MAX};
  const int64_t exact[] = {INT32_MIN, 0, 8388608, 10485760, 14680064, 1065353216, 2139095040, 2147483520};
  for (int i = 0; i < 8; i++) assert_true(llabs(kt_get_int(&r.out, i) - tf_expected[i]) < 256);
  kt_assert_ints(&r.out, exact, 8);
  qresult_free(&r);
}

/* QuantizeV2DisableEnsureMinimumRange: MIN_FIRST qint8, ensure_minimum_range 0. */
static void test_tf_quantize_v2_disable_ensure_minimum_range(void **state) {
  (void)state;
  const float x[] = {-0.000001f, 0.0f, 0.000042f};
  kn_tf_quantize_params p = qparams(ISA_INT8, KN_TF_MIN_FIRST);
  p.ensure_minimum_range = 0.0f;
  qresult r = quantize_1d(x, 3, -0.000128f, 0.000127f, p);
  const int64_t want[] = {-1, 0, 42};
  kt_assert_ints(&r.out, want, 3);
  assert_true(fabs(get_f32(&r.omin, 0) - -0.000128) < 1e-7);
  assert_true(fabs(get_f32(&r.omax, 0) - 0.000127) < 1e-7);
  qresult_free(&r);
}

/* QuantizeV2Quint8ScaledSmallInputRange / QuantizeV2Qint8ScaledSmallInputRange (exact ranges). */
static void test_tf_quantize_v2_scaled_small_ranges(void **state) {
  (void)state;
  const float xu[] = {-1.0f, 0.0f, 2.0f};
  qresult r = quantize_1d(xu, 3, -1.0f, 2.0f, qparams(ISA_UINT8, KN_TF_SCALED));
  const int64_t want_u[] = {0, 0, 255};
  kt_assert_ints(&r.out, want_u, 3);
  assert_same_float(get_f32(&r.omin, 0), 0.0f);
  assert_same_float(get_f32(&r.omax, 0), 2.0f);
  qresult_free(&r);
  const float xs[] = {-0.064f, 0.0f, 0.127f};
  r = quantize_1d(xs, 3, -0.064f, 0.127f, qparams(ISA_INT8, KN_TF_SCALED));
  const int64_t want_s[] = {-64, 0, 127};
  kt_assert_ints(&r.out, want_s, 3);
  assert_same_float(get_f32(&r.omin, 0), -0.128f);
  assert_same_float(get_f32(&r.omax, 0), 0.127f);
  qresult_free(&r);
}

/* QuantizeV2Qint8ScaledRoundToEven / ...RoundAwayFromZero: ties at .5 under both rules; the
 * range [-128, -128] becomes [-128, 0] and the scale 1. */
static void test_tf_quantize_v2_scaled_round_modes(void **state) {
  (void)state;
  const float x[] = {-126.5f, 0.0f, 1.0f, 2.5f, 3.5f, 64.0f, 127.0f};
  kn_tf_quantize_params p = qparams(ISA_INT8, KN_TF_SCALED);
  p.round_mode = KN_TF_HALF_TO_EVEN;
  qresult r = quantize_1d(x, 7, -128.0f, -128.0f, p);
  const int64_t even[] = {-126, 0, 1, 2, 4, 64, 127};
  kt_assert_ints(&r.out, even, 7);
  assert_same_float(get_f32(&r.omin, 0), -128.0f);
  assert_same_float(get_f32(&r.omax, 0), 127.0f);
  qresult_free(&r);
  p.round_mode = KN_TF_HALF_AWAY_FROM_ZERO;
  r = quantize_1d(x, 7, -128.0f, -128.0f, p);
  const int64_t away[] = {-127, 0, 1, 3, 4, 64, 127};
  kt_assert_ints(&r.out, away, 7);
  qresult_free(&r);
}

/* The parameterized TEST_P cases QuantizeV2Quint8Scaled, QuantizeV2Qint8Scaled and
 * QuantizeV2Qint8ScaledNarrowRange for axis -1, 1 and 3 on dims {2, 3, 4, 5}: each element is
 * data[rng() % size] times (its slice + 1), rng = std::minstd_rand(123). */
typedef struct scaled_case {
  isa_dtype T;
  bool narrow;
  float data[8];
  int64_t expected[8];
  int size;
  float min_base, max_base;        /* min_range[s] = (s + 1) * min_base, likewise max */
  float out_min_base, out_max_base;
} scaled_case;

static void run_scaled_case(const scaled_case *c, int axis) {
  const uint64_t dims[4] = {2, 3, 4, 5};
  uint64_t count = 120, slices = axis == -1 ? 1 : dims[axis], minor = 1;
  for (int d = axis + 1; d < 4 && axis >= 0; d++) minor *= dims[d];
  if (axis == -1) minor = count;
  float x[120], mins[5], maxs[5];
  int64_t want[120];
  uint32_t rng = 123;
  for (uint64_t i = 0; i < count; i++) {
    uint32_t pick = minstd_next(&rng) % (uint32_t)c->size;
    float mult = (float)((i / minor) % slices + 1);
    x[i] = c->data[pick] * mult;
    want[i] = c->expected[pick];
  }
  for (uint64_t s = 0; s < slices; s++) {
    mins[s] = (float)(s + 1) * c->min_base;
    maxs[s] = (float)(s + 1) * c->max_base;
  }
  uint64_t sl[1] = {slices};
  kn_tensor in = make_f32("input", 4, dims, x), tmin = make_f32("min_range", 1, sl, mins),
            tmax = make_f32("max_range", 1, sl, maxs);
  kn_tf_quantize_params p = qparams(c->T, KN_TF_SCALED);
  p.narrow_range = c->narrow;
  p.axis = axis;
  qresult r;
  cs_err err;
  assert_int_equal(kn_tf_quantize_v2(&in, &tmin, &tmax, &p, &r.out, &r.omin, &r.omax, &err), CS_OK);
  kt_assert_ints(&r.out, want, count);
  assert_int_equal(r.omin.count, slices);
  assert_int_equal(r.omin.ndim, slices == 1 ? 0 : 1);
  for (uint64_t s = 0; s < slices; s++) {
    assert_same_float(get_f32(&r.omin, s), (float)(s + 1) * c->out_min_base);
    assert_same_float(get_f32(&r.omax, s), (float)(s + 1) * c->out_max_base);
  }
  qresult_free(&r);
  kn_tensor_free(&in);
  kn_tensor_free(&tmin);
  kn_tensor_free(&tmax);
}

static void test_tf_quantize_v2_scaled_per_axis(void **state) {
  (void)state;
  const scaled_case cases[] = {
      /* QuantizeV2Quint8Scaled: scale 255 / 127, negative values to 0, clipped at 255 */
      {ISA_UINT8, false, {-255.0f, 0.0f, 1.0f, 1.25f, 1.75f, 64.0f, 127.0f, 500.0f}, {0, 0, 2, 3, 4, 129, 255, 255}, 8,
       -255.0f, 127.0f, 0.0f, 127.0f},
      /* QuantizeV2Qint8Scaled: the min side decides (128 > 100), 127 maps to 127 */
      {ISA_INT8, false, {-128.0f, 0.0f, 1.0f, 1.25f, 1.75f, 64.0f, 127.0f}, {-128, 0, 1, 1, 2, 64, 127}, 7,
       -128.0f, 100.0f, -128.0f, 127.0f},
      /* QuantizeV2Qint8ScaledNarrowRange: scale 127 / 128; 64 * 127/128 = 63.5 is a tie (away: 64) */
      {ISA_INT8, true, {-128.0f, 0.0f, 1.0f, 1.25f, 1.75f, 64.0f, 127.0f}, {-127, 0, 1, 1, 2, 64, 126}, 7,
       -128.0f, 100.0f, -128.0f, 128.0f},
  };
  const int axes[] = {-1, 1, 3};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int a = 0; a < 3; a++) run_scaled_case(&cases[c], axes[a]);
}

/* ---- TensorFlow's dequantize cases (tensorflow/core/kernels/dequantize_op_test.cc) -------- */

static kn_tensor dequantize_1d(isa_dtype T, const int64_t *q, uint64_t n, float mn, float mx,
                               kn_tf_dequantize_params p) {
  uint64_t shape[1] = {n};
  kn_tensor in = kt_int_tensor("input", T, 1, shape, q);
  kn_tensor tmin = make_f32("min_range", 0, NULL, &mn), tmax = make_f32("max_range", 0, NULL, &mx);
  kn_tensor out;
  cs_err err;
  if (kn_tf_dequantize(&in, &tmin, &tmax, &p, &out, &err) != CS_OK) fail_msg("%s", err.msg);
  kn_tensor_free(&in);
  kn_tensor_free(&tmin);
  kn_tensor_free(&tmax);
  return out;
}

/* RunDequantizeScaledTest: (T, min, max, input, expected). */
static void test_tf_dequantize_scaled_cases(void **state) {
  (void)state;
  const struct {
    isa_dtype T;
    float mn, mx;
    int64_t q;
    float want;
  } cases[] = {
      {ISA_UINT8, -255.0f, 127.0f, 0, 0.0f},      /* DequantizeScaledQuint8Zero */
      {ISA_UINT8, -512.0f, 255.0f, 255, 255.0f},  /* ...Quint8CheckIgnoresNegative */
      {ISA_UINT8, -1.0f, 2.0f, 255, 2.0f},        /* ...Quint8ScaleDown */
      {ISA_UINT8, 200.0f, 400.0f, 255, 400.0f},   /* ...Quint8ScaleUp */
      {ISA_INT8, -255.0f, 127.0f, 0, 0.0f},       /* ...Qint8Zero */
      {ISA_INT8, -10.0f, 127.0f, -127, -127.0f},  /* ...Qint8ScaleIdentity */
      {ISA_INT8, -2.0f, 1.0f, -128, -2.0f},       /* ...Qint8ScaleDown */
      {ISA_INT8, -1.0f, 300.0f, 42, 99.212601f},  /* ...Qint8ScaleUp (ExpectClose) */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kn_tensor out = dequantize_1d(cases[i].T, &cases[i].q, 1, cases[i].mn, cases[i].mx,
                                  dqparams(cases[i].T, KN_TF_SCALED));
    assert_true(fabsf(get_f32(&out, 0) - cases[i].want) <= 1e-5f * fmaxf(1.0f, fabsf(cases[i].want)));
    kn_tensor_free(&out);
  }
  /* ScaleUp exactly: 42 * float(300 / 127) */
  int64_t q = 42;
  kn_tensor out = dequantize_1d(ISA_INT8, &q, 1, -1.0f, 300.0f, dqparams(ISA_INT8, KN_TF_SCALED));
  assert_same_float(get_f32(&out, 0), 42.0f * (300.0f / 127.0f));
  kn_tensor_free(&out);
}

/* RunDequantizeMinCombinedTest over [0, 255]: TF compares against
 * ((float(q) + half_range) * scale_factor) + min_range computed in float for every q in
 * [min_T, max_T). */
static void test_tf_dequantize_min_combined_all_values(void **state) {
  (void)state;
  const isa_dtype types[] = {ISA_UINT8, ISA_INT8, ISA_INT16, ISA_UINT16};
  for (int ti = 0; ti < 4; ti++) {
    isa_dtype T = types[ti];
    int64_t lo = T == ISA_UINT8 || T == ISA_UINT16 ? 0 : T == ISA_INT8 ? -128 : -32768;
    int64_t hi = T == ISA_UINT8 ? 255 : T == ISA_INT8 ? 127 : T == ISA_INT16 ? 32767 : 65535;
    uint64_t n = (uint64_t)(hi - lo);
    int64_t *q = malloc(n * sizeof *q);
    assert_non_null(q);
    for (uint64_t i = 0; i < n; i++) q[i] = lo + (int64_t)i;
    kn_tensor out = dequantize_1d(T, q, n, 0.0f, 255.0f, dqparams(T, KN_TF_MIN_COMBINED));
    float half = lo < 0 ? ((float)hi - (float)lo + 1.0f) / 2.0f : 0.0f;
    float sf = (255.0f - 0.0f) / ((float)hi - (float)lo);
    for (uint64_t i = 0; i < n; i++) {
      volatile float a = (float)q[i] + half; /* one rounding per operation */
      volatile float b = a * sf;
      assert_same_float(get_f32(&out, i), b + 0.0f);
    }
    kn_tensor_free(&out);
    free(q);
  }
}

/* TEST_F(QuantizedOpTest, Dequantize): MIN_FIRST quint8 over [0, 255] within 0.5 of q; exactly q
 * here (range_scale = 1, range_min_rounded = 0). */
static void test_tf_dequantize_min_first_quint8(void **state) {
  (void)state;
  const int64_t q[] = {1, 2, 4, 8, 16, 255};
  kn_tensor out = dequantize_1d(ISA_UINT8, q, 6, 0.0f, 255.0f, dqparams(ISA_UINT8, KN_TF_MIN_FIRST));
  for (int i = 0; i < 6; i++) assert_same_float(get_f32(&out, i), (float)q[i]);
  kn_tensor_free(&out);
}

/* ---- hand-derived behaviour ---------------------------------------------------------------- */

/* MIN_COMBINED (seed 001): [0, 6] to quint8 multiplies by 255 / 6 and adds 0.5 before the
 * truncating cast; qint8 subtracts 128 and rounds half away from zero. */
static void test_tf_quantize_v2_min_combined_by_hand(void **state) {
  (void)state;
  /* [0, 255]: scale 1, so x + 0.5 truncated: 2.5 -> 3, 2.4999 -> 2, saturation at both ends */
  const float x[] = {-3.0f, 0.0f, 2.4999f, 2.5f, 254.5f, 300.0f};
  qresult r = quantize_1d(x, 6, 0.0f, 255.0f, qparams(ISA_UINT8, KN_TF_MIN_COMBINED));
  const int64_t want_u[] = {0, 0, 2, 3, 255, 255};
  kt_assert_ints(&r.out, want_u, 6);
  assert_same_float(get_f32(&r.omax, 0), 255.0f);
  qresult_free(&r);
  /* qint8 over [-128, 127]: (x + 128) * 1 - 128 rounded away: -0.5 -> -1, 0.5 -> 1, 126.5 -> 127 */
  const float y[] = {-200.0f, -127.5f, -0.5f, 0.5f, 1.5f, 126.5f, 200.0f};
  r = quantize_1d(y, 7, -128.0f, 127.0f, qparams(ISA_INT8, KN_TF_MIN_COMBINED));
  const int64_t want_s[] = {-128, -128, -1, 1, 2, 127, 127};
  kt_assert_ints(&r.out, want_s, 7);
  qresult_free(&r);
  /* [0, 6] quint8 (the seed's example): 3 * 42.5 + 0.5 = 128; 6 -> 255 */
  const float z[] = {0.0f, 3.0f, 6.0f};
  r = quantize_1d(z, 3, 0.0f, 6.0f, qparams(ISA_UINT8, KN_TF_MIN_COMBINED));
  const int64_t want_z[] = {0, 128, 255};
  kt_assert_ints(&r.out, want_z, 3);
  qresult_free(&r);
}

/* qint32 MIN_COMBINED over [-1, 1]: the scale float(4294967295 / 2) is 2^31, so 1.0 maps to 2^31,
 * and Eigen's QInt32(float) (static_cast<int32_t>(lrint(v))) wraps it to -2^31 — as TensorFlow's
 * source computes it. -1 -> -2^31, 0 -> 0. */
static void test_tf_quantize_v2_qint32_min_combined_wraps(void **state) {
  (void)state;
  const float x[] = {-1.0f, 0.0f, 0.5f, 1.0f};
  qresult r = quantize_1d(x, 4, -1.0f, 1.0f, qparams(ISA_INT32, KN_TF_MIN_COMBINED));
  const int64_t want[] = {INT32_MIN, 0, 1073741824, INT32_MIN};
  kt_assert_ints(&r.out, want, 4);
  qresult_free(&r);
}

/* narrow_range on quint8 (SCALED): the lowest output becomes 1 and the clamp bound 1 / scale. */
static void test_tf_quantize_v2_scaled_narrow_quint8(void **state) {
  (void)state;
  const float x[] = {-5.0f, 0.0f, 1.0f, 255.0f};
  kn_tf_quantize_params p = qparams(ISA_UINT8, KN_TF_SCALED);
  p.narrow_range = true;
  qresult r = quantize_1d(x, 4, -10.0f, 255.0f, p);
  const int64_t want[] = {1, 1, 1, 255};
  kt_assert_ints(&r.out, want, 4);
  assert_same_float(get_f32(&r.omin, 0), 1.0f);
  assert_same_float(get_f32(&r.omax, 0), 255.0f);
  qresult_free(&r);
}

/* NaN inputs: the clamps keep NaN (std::min/max return their first argument), and the casts of
 * x86-64 turn it into 0 (low bits of 0x80000000); MIN_FIRST qint32 gives INT32_MIN. */
static void test_tf_quantize_v2_nan_inputs(void **state) {
  (void)state;
  const float x[] = {NAN, 1.0f};
  const kn_tf_mode modes[] = {KN_TF_MIN_COMBINED, KN_TF_MIN_FIRST, KN_TF_SCALED};
  const isa_dtype types[] = {ISA_INT8, ISA_UINT8, ISA_INT32};
  for (int m = 0; m < 3; m++)
    for (int t = 0; t < 3; t++) {
      qresult r = quantize_1d(x, 2, -4.0f, 4.0f, qparams(types[t], modes[m]));
      int64_t want = modes[m] == KN_TF_MIN_FIRST && types[t] == ISA_INT32 ? INT32_MIN : 0;
      assert_int_equal(kt_get_int(&r.out, 0), want);
      qresult_free(&r);
    }
}

/* Dequantize to bfloat16 rounds the float result to nearest even. */
static void test_tf_dequantize_bfloat16(void **state) {
  (void)state;
  const int64_t q[] = {0, 1, 255};
  kn_tf_dequantize_params p = dqparams(ISA_UINT8, KN_TF_MIN_COMBINED);
  p.dtype = ISA_BF16;
  kn_tensor out = dequantize_1d(ISA_UINT8, q, 3, 0.0f, 1.0f, p);
  assert_int_equal(out.dtype, ISA_BF16);
  /* 1 * float(1/255) = 0.0039215688 = 2^-8 * (1 + 0.50196 * 2^-7): above the midpoint, so bf16
   * 0x3B81 (0.003936767578125), not 0x3B80; 255 * float(1/255) rounds to 1 */
  assert_same_float(get_f32(&out, 0), 0.0f);
  assert_same_float(get_f32(&out, 1), 0.003936767578125f);
  assert_same_float(get_f32(&out, 2), 1.0f);
  kn_tensor_free(&out);
}

/* ---- errors: where TensorFlow refuses ------------------------------------------------------ */

static void expect_quantize_error(const float *mins, uint32_t min_ndim, const uint64_t *min_shape,
                                  uint32_t in_ndim, const uint64_t *in_shape, kn_tf_quantize_params p,
                                  const char *msg) {
  uint64_t n = 1;
  for (uint32_t d = 0; d < in_ndim; d++) n *= in_shape[d];
  float *x = calloc(n ? n : 1, sizeof *x);
  assert_non_null(x);
  float maxs[8];
  uint64_t mc = 1;
  for (uint32_t d = 0; d < min_ndim; d++) mc *= min_shape[d];
  for (uint64_t i = 0; i < mc; i++) maxs[i] = mins[i] + 1.0f;
  kn_tensor in = make_f32("input", in_ndim, in_shape, x), tmin = make_f32("min_range", min_ndim, min_shape, mins),
            tmax = make_f32("max_range", min_ndim, min_shape, maxs);
  qresult r;
  cs_err err;
  assert_int_equal(kn_tf_quantize_v2(&in, &tmin, &tmax, &p, &r.out, &r.omin, &r.omax, &err), CS_EINVAL);
  assert_int_equal(err.code, CS_EINVAL);
  assert_string_equal(err.msg, msg);
  assert_null(r.out.data);
  kn_tensor_free(&in);
  kn_tensor_free(&tmin);
  kn_tensor_free(&tmax);
  free(x);
}

static void test_tf_quantize_v2_errors(void **state) {
  (void)state;
  const uint64_t s23[2] = {2, 3}, s1[1] = {1}, s3[1] = {3}, s2[1] = {2}, s31[2] = {3, 1};
  const float m[3] = {0, 0, 0};
  kn_tf_quantize_params p = qparams(ISA_INT8, KN_TF_MIN_COMBINED);
  p.round_mode = KN_TF_HALF_TO_EVEN;
  expect_quantize_error(m, 1, s1, 2, s23, p,
                        "tf_quantize_v2: Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is 'MIN_COMBINED'.");
  p = qparams(ISA_INT8, KN_TF_SCALED);
  p.axis = 2;
  expect_quantize_error(m, 1, s3, 2, s23, p,
                        "tf_quantize_v2: Axis is on a zero-based index, so its value must always be less than number "
                        "of input's dims, but given axis value was 2 and input's dims was 2");
  p.axis = -2;
  expect_quantize_error(m, 1, s1, 2, s23, p, "tf_quantize_v2: axis should be at least -1, got -2");
  p.axis = 1;
  expect_quantize_error(m, 2, s31, 2, s23, p,
                        "tf_quantize_v2: If axis is specified, min_range must be a 1-D tensor whose size matches "
                        "the axis dimension of the input and output tensors, but min_range dims are 2");
  expect_quantize_error(m, 1, s2, 2, s23, p,
                        "tf_quantize_v2: If axis is specified, min_range must be a 1-D tensor whose size matches "
                        "the axis dimension of the input and output tensors, but min_range is a 1-D tensor of size 2 "
                        "and input's axis dimension is of size 3");
  p.axis = -1;
  expect_quantize_error(m, 1, s2, 2, s23, p,
                        "tf_quantize_v2: If axis is not specified, min_range must contain a single float element, "
                        "but it contains 2 elements");
  p = qparams(ISA_UINT8, KN_TF_MIN_FIRST);
  p.axis = 1;
  expect_quantize_error(m, 1, s3, 2, s23, p,
                        "tf_quantize_v2: MIN_FIRST mode is not implemented for Quantize with axis != -1.");
  p = qparams(ISA_INT16, KN_TF_SCALED);
  p.T = ISA_FP16;
  expect_quantize_error(m, 1, s1, 2, s23, p,
                        "tf_quantize_v2: T is fp16, expected one of qint8, quint8, qint16, quint16, qint32");

  /* max < min, per tensor and per slice */
  uint64_t one[1] = {1}, three[1] = {3};
  float x = 0.0f, lo = 1.0f, hi = 0.5f;
  kn_tensor in = make_f32("input", 1, one, &x), tmin = make_f32("min_range", 1, one, &lo),
            tmax = make_f32("max_range", 1, one, &hi);
  qresult r;
  cs_err err;
  p = qparams(ISA_INT8, KN_TF_SCALED);
  assert_int_equal(kn_tf_quantize_v2(&in, NULL, &tmax, &p, &r.out, &r.omin, &r.omax, &err), CS_EINVAL);
  assert_string_equal(err.msg, "tf_quantize_v2: input 'min_range' is required");
  assert_int_equal(kn_tf_quantize_v2(&in, &tmin, &tmax, &p, &r.out, &r.omin, &r.omax, &err), CS_EINVAL);
  assert_string_equal(err.msg, "tf_quantize_v2: input_max_range must be larger than input_min_range. min_range 1, max_range 0.5");
  kn_tensor_free(&in);
  kn_tensor_free(&tmin);
  kn_tensor_free(&tmax);
  float x3[3] = {0, 0, 0}, lo3[3] = {-1, -1, -1}, hi3[3] = {1, -2, 1};
  in = make_f32("input", 1, three, x3);
  tmin = make_f32("min_range", 1, three, lo3);
  tmax = make_f32("max_range", 1, three, hi3);
  p.axis = 0;
  assert_int_equal(kn_tf_quantize_v2(&in, &tmin, &tmax, &p, &r.out, &r.omin, &r.omax, &err), CS_EINVAL);
  assert_string_equal(err.msg, "tf_quantize_v2: input_max_range must be larger than input_min_range. (slice 1) min_range -1, max_range -2");
  kn_tensor_free(&in);
  kn_tensor_free(&tmin);
  kn_tensor_free(&tmax);
}

static void test_tf_dequantize_errors(void **state) {
  (void)state;
  const uint64_t two[1] = {2}, three[1] = {3};
  const int64_t q[2] = {1, 2};
  const float r2[3] = {0, 0, 0};
  struct {
    kn_tf_dequantize_params p;
    const uint64_t *range_shape;
    const char *msg;
  } cases[] = {
      /* python/kernel_tests/array_ops/array_ops_test.py testOutOfBoundAxis: axis = 2**31 - 1 */
      {{ISA_DTYPE_COUNT, KN_TF_MIN_COMBINED, false, 2147483647, ISA_FP32}, two,
       "tf_dequantize: Axis must be less than input dimension(1), got 2147483647"},
      {{ISA_DTYPE_COUNT, KN_TF_MIN_COMBINED, false, -3, ISA_FP32}, two, "tf_dequantize: axis should be at least -1, got -3"},
      {{ISA_DTYPE_COUNT, KN_TF_SCALED, false, 0, ISA_FP32}, three,
       "tf_dequantize: input_min_tensor must have as many elements as input on the dequantization axis (0), got 3, expected 2"},
      {{ISA_DTYPE_COUNT, KN_TF_SCALED, false, -1, ISA_FP32}, two,
       "tf_dequantize: input_min_tensor must have as many elements as input on the dequantization axis (-1), got 2, expected 1"},
      {{ISA_DTYPE_COUNT, KN_TF_MIN_FIRST, false, 0, ISA_FP32}, two,
       "tf_dequantize: MIN_FIRST mode is not implemented for Dequantize with axis != -1."},
      {{ISA_DTYPE_COUNT, KN_TF_SCALED, false, -1, ISA_BF16}, NULL,
       "tf_dequantize: When output type is bfloat16, Mode string must be 'MIN_COMBINED', is 'SCALED'"},
      {{ISA_UINT8, KN_TF_SCALED, false, -1, ISA_FP32}, NULL, "tf_dequantize: T is quint8 but input is int8 (qint8)"},
      {{ISA_DTYPE_COUNT, KN_TF_SCALED, false, -1, ISA_FP16}, NULL, "tf_dequantize: Output type must be bfloat16 or float, is 'fp16'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kn_tensor in = kt_int_tensor("input", ISA_INT8, 1, two, q);
    kn_tensor tmin, tmax;
    if (cases[i].range_shape) {
      tmin = make_f32("min_range", 1, cases[i].range_shape, r2);
      tmax = make_f32("max_range", 1, cases[i].range_shape, r2);
    } else {
      tmin = make_f32("min_range", 0, NULL, r2);
      tmax = make_f32("max_range", 0, NULL, r2);
    }
    kn_tensor out;
    cs_err err;
    assert_int_equal(kn_tf_dequantize(&in, &tmin, &tmax, &cases[i].p, &out, &err), CS_EINVAL);
    assert_int_equal(err.code, CS_EINVAL);
    assert_string_equal(err.msg, cases[i].msg);
    assert_null(out.data);
    kn_tensor_free(&in);
    kn_tensor_free(&tmin);
    kn_tensor_free(&tmax);
  }
}

/* ---- through the registry --------------------------------------------------------------- */

static void test_tf_registry_entries(void **state) {
  (void)state;
  /* The narrow-range case of quantize_op_test.cc, axis 1, through `run`. */
  kn_ctx *ctx = kt_ctx("tf_quantize_v2", 0);
  const kn_op *op = kn_ctx_op(ctx);
  assert_string_equal(op->inputs[0].name, "input");
  assert_string_equal(op->outputs[2].name, "output_max");
  assert_false(op->simulated);
  uint64_t shape[2] = {2, 2}, two[1] = {2};
  const float x[4] = {-128.0f, 64.0f, -256.0f, 254.0f}, mins[2] = {-128.0f, -256.0f}, maxs[2] = {100.0f, 200.0f};
  kt_set_input(ctx, "input", make_f32("input", 2, shape, x));
  kt_set_input(ctx, "min_range", make_f32("min_range", 1, two, mins));
  kt_set_input(ctx, "max_range", make_f32("max_range", 1, two, maxs));
  cs_err err;
  assert_int_equal(kn_ctx_run(ctx, &err), CS_EINVAL); /* T is required */
  assert_string_equal(err.msg, "tf_quantize_v2: attribute 'T' is required");
  assert_int_equal(kn_ctx_set_attr(ctx, "T", "qint9", &err), CS_EINVAL);
  assert_string_equal(err.msg, "attribute T: 'qint9' is not one of qint8,quint8,qint16,quint16,qint32");
  assert_int_equal(kn_ctx_set_attr(ctx, "T", "qint8", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "mode", "SCALED", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "narrow_range", "true", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "axis", "0", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_OK);
  const kn_tensor *out = kn_ctx_output(ctx, "output");
  assert_non_null(out);
  assert_int_equal(out->dtype, ISA_INT8);
  const int64_t want[4] = {-127, 64, -127, 126};
  kt_assert_ints(out, want, 4);
  assert_same_float(get_f32(kn_ctx_output(ctx, "output_max"), 1), 256.0f);
  assert_int_equal(kn_ctx_reference(ctx, &err), CS_EINVAL);
  assert_string_equal(err.msg, "tf_quantize_v2 has no host reference to check against");
  assert_int_equal(kn_ctx_set_attr(ctx, "round_mode", "HALF_TO_EVEN", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "mode", "MIN_FIRST", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_EINVAL);
  assert_string_equal(err.msg, "tf_quantize_v2: Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is 'MIN_FIRST'.");
  kn_ctx_destroy(ctx);

  ctx = kt_ctx("tf_dequantize", 0);
  const int64_t q[2] = {-128, 127};
  float mn = -1.0f, mx = 1.0f;
  kt_set_input(ctx, "input", kt_int_tensor("input", ISA_INT8, 1, two, q));
  kt_set_input(ctx, "min_range", make_f32("min_range", 0, NULL, &mn));
  kt_set_input(ctx, "max_range", make_f32("max_range", 0, NULL, &mx));
  assert_int_equal(kn_ctx_set_attr(ctx, "mode", "SCALED", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_OK);
  out = kn_ctx_output(ctx, "output");
  assert_int_equal(out->dtype, ISA_FP32);
  /* scale max(-1 / -128, 1 / 127) = 1/127 */
  assert_same_float(get_f32(out, 0), -128.0f * (1.0f / 127.0f));
  assert_same_float(get_f32(out, 1), 127.0f * (1.0f / 127.0f));
  assert_int_equal(kn_ctx_set_attr(ctx, "T", "quint8", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_EINVAL);
  assert_string_equal(err.msg, "tf_dequantize: T is quint8 but input is int8 (qint8)");
  kn_ctx_destroy(ctx);
}

/* ---- random elements against an independent reference ------------------------------------
 * The reference emulates each binary32 operation in double followed by one rounding to float
 * (exact: double has more than 2 * 24 + 2 bits), rounds with floor-based rules, clamps with
 * comparisons and finds slices from the multi-index. Ranges are often powers of two times the
 * type's bounds, so that exact .5 ties occur under every rule. */

static float f_add(float a, float b) { return (float)((double)a + (double)b); }
static float f_sub(float a, float b) { return (float)((double)a - (double)b); }
static float f_mul(float a, float b) { return (float)((double)a * (double)b); }
static float f_div(float a, float b) { return (float)((double)a / (double)b); }

static double ref_round_away(double v) {
  double a = fabs(v), fl = floor(a);
  double r = a - fl >= 0.5 ? fl + 1.0 : fl;
  return v < 0 ? -r : r;
}

static double ref_round_even(double v) {
  double a = fabs(v), fl = floor(a), f = a - fl;
  double r = f > 0.5 ? fl + 1.0 : f < 0.5 ? fl : (fmod(fl, 2.0) == 0.0 ? fl : fl + 1.0);
  return v < 0 ? -r : r;
}

typedef struct ref_type {
  isa_dtype dt;
  int bits;
  int64_t lo, hi;
} ref_type;

static const ref_type REF_TYPES[] = {
    {ISA_INT8, 8, -128, 127}, {ISA_UINT8, 8, 0, 255}, {ISA_INT16, 16, -32768, 32767},
    {ISA_UINT16, 16, 0, 65535}, {ISA_INT32, 32, INT32_MIN, INT32_MAX},
};

/* An integral value to the type's width, two's complement (what the casts do to 2^31). */
static int64_t ref_wrap(double r, const ref_type *t) {
  int64_t v = (int64_t)r, span = (int64_t)1 << t->bits;
  int64_t m = (v - t->lo) % span;
  if (m < 0) m += span;
  return m + t->lo;
}

typedef struct ref_range {
  float mn, mx;
} ref_range;

static ref_range ref_adjust(float in_min, float in_max, float ens) {
  ref_range r;
  r.mn = in_min < 0.0f ? in_min : 0.0f;
  float big = fabsf(in_min) > fabsf(in_max) ? fabsf(in_min) : fabsf(in_max);
  if (big < 1.0f) big = 1.0f;
  float w = f_add(r.mn, f_mul(big, ens));
  r.mx = in_max;
  if (w > r.mx) r.mx = w;
  if (!(r.mx > 0.0f)) r.mx = 0.0f;
  return r;
}

/* *tie is set when the value rounded (or truncated after + 0.5) lies exactly halfway. */
static int64_t ref_quantize(float x, float in_min, float in_max, const kn_tf_quantize_params *p,
                            const ref_type *t, float *omin, float *omax, bool *tie) {
  ref_range r = ref_adjust(in_min, in_max, p->ensure_minimum_range);
  *omin = r.mn;
  *omax = r.mx;
  if (p->mode == KN_TF_MIN_COMBINED) {
    float sf = (float)(((double)t->hi - (double)t->lo) / (double)f_sub(r.mx, r.mn));
    float c = x > r.mx ? r.mx : x;
    if (c < r.mn) c = r.mn;
    float v = f_mul(f_sub(c, r.mn), sf);
    *tie = v - floorf(v) == 0.5f;
    if (t->lo < 0) return ref_wrap(ref_round_away(f_sub(v, (float)((t->hi - t->lo + 1) / 2))), t);
    return ref_wrap(floor(f_add(v, 0.5f)), t);
  }
  if (p->mode == KN_TF_SCALED) {
    float lo = (float)(t->lo + (p->narrow_range ? 1 : 0)), hi = (float)t->hi;
    float a = f_mul(lo, r.mn) > 0.0f ? f_div(lo, r.mn) : FLT_MAX;
    float b = f_mul(hi, r.mx) > 0.0f ? f_div(hi, r.mx) : FLT_MAX;
    float sf = a < b ? a : b;
    *omin = f_div(lo, sf);
    *omax = f_div(hi, sf);
    float c = x > *omax ? *omax : x;
    if (c < *omin) c = *omin;
    float v = f_mul(c, sf);
    *tie = v - floorf(v) == 0.5f;
    return ref_wrap(p->round_mode == KN_TF_HALF_TO_EVEN ? ref_round_even(v) : ref_round_away(v), t);
  }
  float rs = r.mx == r.mn ? 0.0f : (float)((ldexp(1.0, t->bits) - 1.0) / (double)f_sub(r.mx, r.mn));
  float off = f_sub((float)ref_round_away(f_mul(r.mn, rs)), (float)t->lo);
  float scaled = f_mul(x, rs);
  *tie = scaled - floorf(scaled) == 0.5f;
  float v = f_sub((float)ref_round_away(scaled), off);
  float lb = (float)t->lo, ub = t->bits == 32 ? 2147483520.0f : (float)t->hi;
  if (v < lb) v = lb;
  if (v > ub) v = ub;
  return (int64_t)v;
}

static float ref_dequantize(int64_t q, float mn, float mx, const kn_tf_dequantize_params *p, const ref_type *t) {
  float qf = (float)q;
  if (p->mode == KN_TF_MIN_COMBINED) {
    float span = f_sub((float)t->hi, (float)t->lo);
    float half = t->lo < 0 ? f_div(f_add(span, 1.0f), 2.0f) : 0.0f;
    return f_add(f_mul(f_add(qf, half), f_div(f_sub(mx, mn), span)), mn);
  }
  if (p->mode == KN_TF_SCALED) {
    float sf;
    if (t->lo == 0) {
      sf = f_div(mx, (float)t->hi);
    } else {
      float a = f_div(mn, (float)(t->lo + (p->narrow_range ? 1 : 0))), b = f_div(mx, (float)t->hi);
      sf = a < b ? b : a;
    }
    return f_mul(qf, sf);
  }
  float rs = (float)((double)f_sub(mx, mn) / (ldexp(1.0, t->bits) - 1.0));
  float rmin = mx == mn ? mn : f_mul((float)ref_round_away(f_div(mn, rs)), rs);
  return f_add(f_sub(rmin, f_mul((float)t->lo, rs)), f_mul(qf, rs));
}

typedef struct rand_shape {
  uint32_t ndim;
  uint64_t shape[4];
  uint64_t count;
} rand_shape;

static rand_shape random_shape(uint64_t *s) {
  rand_shape r;
  r.ndim = 1 + (uint32_t)rng_xorshift_below(s, 4);
  r.count = 1;
  for (uint32_t d = 0; d < r.ndim; d++) {
    r.shape[d] = 1 + rng_xorshift_below(s, 6);
    r.count *= r.shape[d];
  }
  return r;
}

/* The slice of element e along axis (independently: from its multi-index). */
static uint64_t slice_of(const rand_shape *sh, uint64_t e, int64_t axis) {
  if (axis < 0) return 0;
  uint64_t idx[4];
  for (uint32_t d = sh->ndim; d-- > 0;) {
    idx[d] = e % sh->shape[d];
    e /= sh->shape[d];
  }
  return idx[axis];
}

static void random_range(uint64_t *s, const ref_type *t, float *mn, float *mx) {
  int kind = (int)rng_xorshift_below(s, 5);
  double p2 = ldexp(1.0, (int)rng_xorshift_below(s, 12) - 8);
  if (kind <= 1) { /* the type's own bounds times a power of two: ties are exact */
    *mn = (float)((double)t->lo * p2);
    *mx = (float)((double)t->hi * p2);
    if (t->lo == 0 && kind == 1) *mn = (float)(-(double)t->hi * p2 * rng_xorshift_unit(s));
  } else if (kind == 2) { /* symmetric power of two */
    *mn = (float)-p2 * 128.0f;
    *mx = (float)p2 * 128.0f;
  } else { /* anything, possibly not containing 0, possibly tiny */
    double a = (rng_xorshift_unit(s) * 2.0 - 1.0) * p2 * 100.0, b = (rng_xorshift_unit(s) * 2.0 - 1.0) * p2 * 100.0;
    if (kind == 4) b = a + rng_xorshift_unit(s) * 1e-3;
    *mn = (float)fmin(a, b);
    *mx = (float)fmax(a, b);
  }
}

static float random_input(uint64_t *s, float mn, float mx, const ref_type *t) {
  int kind = (int)rng_xorshift_below(s, 5);
  double lo = mn < 0 ? mn : 0, hi = mx > 0 ? mx : 0;
  double span = hi - lo;
  if (kind == 0) return (float)(lo + span * (rng_xorshift_unit(s) * 1.4 - 0.2)); /* beyond both ends too */
  if (kind == 1) { /* exact .5 ties of the grid step implied by the type's bounds */
    double step = span / ((double)t->hi - (double)t->lo);
    double k = floor(rng_xorshift_unit(s) * ((double)t->hi - (double)t->lo)) + (double)t->lo;
    return (float)((k + 0.5) * ldexp(1.0, ilogb(step > 0 ? step : 1.0)));
  }
  if (kind == 2) return (float)((floor(rng_xorshift_unit(s) * 64.0) - 32.0) + 0.5);
  if (kind == 3) return rng_xorshift_unit(s) < 0.5 ? mn : mx;
  return (float)((rng_xorshift_unit(s) * 2.0 - 1.0) * 1e6);
}

static void test_tf_quantize_v2_random_against_reference(void **state) {
  (void)state;
  uint64_t s = 0x9E3779B97F4A7C15ull;
  uint64_t elements = 0, ties[3] = {0, 0, 0}, even_ties = 0;
  for (int iter = 0; iter < 600; iter++) {
    const ref_type *t = &REF_TYPES[rng_xorshift_below(&s, 5)];
    kn_tf_quantize_params p = qparams(t->dt, (kn_tf_mode)rng_xorshift_below(&s, 3));
    p.narrow_range = rng_xorshift_below(&s, 2) == 0;
    if (p.mode == KN_TF_SCALED && rng_xorshift_below(&s, 2)) p.round_mode = KN_TF_HALF_TO_EVEN;
    p.ensure_minimum_range = rng_xorshift_below(&s, 3) == 0 ? 0.0f : 0.01f;
    rand_shape sh = random_shape(&s);
    p.axis = (p.mode == KN_TF_MIN_FIRST || rng_xorshift_below(&s, 2)) ? -1 : (int64_t)rng_xorshift_below(&s, sh.ndim);
    uint64_t slices = p.axis < 0 ? 1 : sh.shape[p.axis];
    float mins[8], maxs[8], *x = malloc(sh.count * sizeof *x);
    assert_non_null(x);
    for (uint64_t k = 0; k < slices; k++) random_range(&s, t, &mins[k], &maxs[k]);
    for (uint64_t e = 0; e < sh.count; e++) {
      uint64_t k = slice_of(&sh, e, p.axis);
      x[e] = random_input(&s, mins[k], maxs[k], t);
    }
    uint64_t rs[1] = {slices};
    kn_tensor in = make_f32("input", sh.ndim, sh.shape, x), tmin = make_f32("min_range", 1, rs, mins),
              tmax = make_f32("max_range", 1, rs, maxs);
    qresult r;
    cs_err err;
    if (kn_tf_quantize_v2(&in, &tmin, &tmax, &p, &r.out, &r.omin, &r.omax, &err) != CS_OK) fail_msg("%s", err.msg);
    for (uint64_t e = 0; e < sh.count; e++) {
      uint64_t k = slice_of(&sh, e, p.axis);
      float omin, omax;
      bool tie = false;
      int64_t want = ref_quantize(x[e], mins[k], maxs[k], &p, t, &omin, &omax, &tie);
      ties[p.mode] += tie;
      even_ties += tie && p.round_mode == KN_TF_HALF_TO_EVEN;
      if (kt_get_int(&r.out, e) != want)
        fail_msg("iter %d %s mode %d narrow %d round %d axis %lld: x %.9g in [%.9g, %.9g]: got %lld, want %lld", iter,
                 isa_dtype_name(t->dt), p.mode, p.narrow_range, p.round_mode, (long long)p.axis, (double)x[e],
                 (double)mins[k], (double)maxs[k], (long long)kt_get_int(&r.out, e), (long long)want);
      assert_same_float(get_f32(&r.omin, k), omin);
      assert_same_float(get_f32(&r.omax, k), omax);
      /* whatever the rule, the result is in T (qint32 MIN_COMBINED's wrap included) */
      assert_true(want >= t->lo && want <= t->hi);
    }
    elements += sh.count;
    qresult_free(&r);
    kn_tensor_free(&in);
    kn_tensor_free(&tmin);
    kn_tensor_free(&tmax);
    free(x);
  }
  assert_true(elements > 10000);
  for (int m = 0; m < 3; m++) assert_true(ties[m] > 200);
  assert_true(even_ties > 100);
}

/* Exact semantics where no float rounding intervenes: ranges [lo * 2^e, hi * 2^e] make every
 * scale a power of two, so SCALED and MIN_COMBINED (signed) are round(x / 2^e) saturated. */
static void test_tf_quantize_v2_power_of_two_ranges_exact(void **state) {
  (void)state;
  uint64_t s = 12345;
  for (int iter = 0; iter < 4000; iter++) {
    const ref_type *t = &REF_TYPES[rng_xorshift_below(&s, 2) * 2]; /* int8 or int16 */
    int e = (int)rng_xorshift_below(&s, 10) - 5;
    float mn = (float)ldexp((double)t->lo, e), mx = (float)ldexp((double)t->hi, e);
    double k = floor(rng_xorshift_unit(&s) * (double)(t->hi - t->lo + 40)) + (double)t->lo - 20;
    float x = (float)ldexp(k + (rng_xorshift_below(&s, 2) ? 0.5 : 0.25), e);
    kn_tf_quantize_params p = qparams(t->dt, rng_xorshift_below(&s, 2) ? KN_TF_SCALED : KN_TF_MIN_COMBINED);
    if (p.mode == KN_TF_SCALED && rng_xorshift_below(&s, 2)) p.round_mode = KN_TF_HALF_TO_EVEN;
    qresult r = quantize_1d(&x, 1, mn, mx, p);
    double exact = ldexp((double)x, -e);
    double rounded = p.round_mode == KN_TF_HALF_TO_EVEN ? ref_round_even(exact) : ref_round_away(exact);
    int64_t want = (int64_t)fmin(fmax(rounded, (double)t->lo), (double)t->hi);
    assert_int_equal(kt_get_int(&r.out, 0), want);
    qresult_free(&r);
  }
}

static void test_tf_dequantize_random_against_reference(void **state) {
  (void)state;
  uint64_t s = 0xD1B54A32D192ED03ull;
  uint64_t elements = 0;
  for (int iter = 0; iter < 600; iter++) {
    const ref_type *t = &REF_TYPES[rng_xorshift_below(&s, 5)];
    kn_tf_dequantize_params p = dqparams(t->dt, (kn_tf_mode)rng_xorshift_below(&s, 3));
    p.narrow_range = rng_xorshift_below(&s, 2) == 0;
    rand_shape sh = random_shape(&s);
    p.axis = (p.mode == KN_TF_MIN_FIRST || rng_xorshift_below(&s, 2)) ? -1 : (int64_t)rng_xorshift_below(&s, sh.ndim);
    uint64_t slices = p.axis < 0 ? 1 : sh.shape[p.axis];
    float mins[8], maxs[8];
    int64_t *q = malloc(sh.count * sizeof *q);
    assert_non_null(q);
    for (uint64_t k = 0; k < slices; k++) random_range(&s, t, &mins[k], &maxs[k]);
    for (uint64_t e = 0; e < sh.count; e++) {
      int kind = (int)rng_xorshift_below(&s, 4);
      q[e] = kind == 0 ? t->lo : kind == 1 ? t->hi : t->lo + (int64_t)rng_xorshift_below(&s, (uint64_t)(t->hi - t->lo) + 1);
    }
    uint64_t rs[1] = {slices};
    kn_tensor in = kt_int_tensor("input", t->dt, sh.ndim, sh.shape, q), tmin = make_f32("min_range", 1, rs, mins),
              tmax = make_f32("max_range", 1, rs, maxs), out;
    cs_err err;
    if (kn_tf_dequantize(&in, &tmin, &tmax, &p, &out, &err) != CS_OK) fail_msg("%s", err.msg);
    for (uint64_t e = 0; e < sh.count; e++) {
      uint64_t k = slice_of(&sh, e, p.axis);
      float want = ref_dequantize(q[e], mins[k], maxs[k], &p, t);
      if (ref_f32_bits(get_f32(&out, e)) != ref_f32_bits(want))
        fail_msg("iter %d %s mode %d: q %lld in [%.9g, %.9g]: got %.9g, want %.9g", iter, isa_dtype_name(t->dt),
                 p.mode, (long long)q[e], (double)mins[k], (double)maxs[k], (double)get_f32(&out, e), (double)want);
    }
    elements += sh.count;
    kn_tensor_free(&out);
    kn_tensor_free(&in);
    kn_tensor_free(&tmin);
    kn_tensor_free(&tmax);
    free(q);
  }
  assert_true(elements > 10000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tf_quantize_v2_min_first_quint8),
      cmocka_unit_test(test_tf_quantize_v2_equal_range),
      cmocka_unit_test(test_tf_quantize_v2_range_includes_zero),
      cmocka_unit_test(test_tf_quantize_v2_min_first_qint32),
      cmocka_unit_test(test_tf_quantize_v2_disable_ensure_minimum_range),
      cmocka_unit_test(test_tf_quantize_v2_scaled_small_ranges),
      cmocka_unit_test(test_tf_quantize_v2_scaled_round_modes),
      cmocka_unit_test(test_tf_quantize_v2_scaled_per_axis),
      cmocka_unit_test(test_tf_dequantize_scaled_cases),
      cmocka_unit_test(test_tf_dequantize_min_combined_all_values),
      cmocka_unit_test(test_tf_dequantize_min_first_quint8),
      cmocka_unit_test(test_tf_quantize_v2_min_combined_by_hand),
      cmocka_unit_test(test_tf_quantize_v2_qint32_min_combined_wraps),
      cmocka_unit_test(test_tf_quantize_v2_scaled_narrow_quint8),
      cmocka_unit_test(test_tf_quantize_v2_nan_inputs),
      cmocka_unit_test(test_tf_dequantize_bfloat16),
      cmocka_unit_test(test_tf_quantize_v2_errors),
      cmocka_unit_test(test_tf_dequantize_errors),
      cmocka_unit_test(test_tf_registry_entries),
      cmocka_unit_test(test_tf_quantize_v2_random_against_reference),
      cmocka_unit_test(test_tf_quantize_v2_power_of_two_ranges_exact),
      cmocka_unit_test(test_tf_dequantize_random_against_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
