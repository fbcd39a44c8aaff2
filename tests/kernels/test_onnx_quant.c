/* Tests of ONNX QuantizeLinear / DequantizeLinear on the host (kernels/kn_quant_ops, registry
 * entries onnx_quantize_linear and onnx_dequantize_linear): ONNX's published test cases,
 * hand-derived values, errors (code and message), and thousands of random elements against an
 * independent reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

/* ---- helpers ------------------------------------------------------------------------------ */

static void assert_floats(const kn_tensor *t, const float *want, uint64_t n) {
  assert_int_equal(t->count, n);
  for (uint64_t i = 0; i < n; i++) {
    float got = (float)kn_tensor_get(t, i);
    if (ref_f32_bits(got) != ref_f32_bits(want[i])) fail_msg("element %llu: got %.9g, want %.9g", (unsigned long long)i, (double)got, (double)want[i]);
  }
}

static kn_onnx_quantize_params qp(int64_t axis, int64_t block, isa_dtype out) {
  kn_onnx_quantize_params p = {axis, 1, block, out};
  return p;
}

static kn_tensor quantize(const kn_tensor *x, const kn_tensor *s, const kn_tensor *z, kn_onnx_quantize_params p) {
  kn_tensor y;
  cs_err err;
  if (kn_onnx_quantize_linear(x, s, z, &p, &y, &err) != CS_OK) fail_msg("%s", err.msg);
  return y;
}

static kn_tensor dequantize(const kn_tensor *x, const kn_tensor *s, const kn_tensor *z, int64_t axis, int64_t block) {
  kn_onnx_dequantize_params p = {axis, block};
  kn_tensor y;
  cs_err err;
  if (kn_onnx_dequantize_linear(x, s, z, &p, &y, &err) != CS_OK) fail_msg("%s", err.msg);
  return y;
}

static void free3(kn_tensor *a, kn_tensor *b, kn_tensor *c) {
  kn_tensor_free(a);
  kn_tensor_free(b);
  if (c) kn_tensor_free(c);
}

/* ---- ONNX's published cases: onnx/backend/test/case/node/quantizelinear.py ---------------- */

/* test_quantizelinear: 3 / 2 = 1.5 is a tie (-> 2), 1000 and -1000 saturate */
static void test_onnx_quantize_linear_example(void **state) {
  (void)state;
  const uint64_t n6[1] = {6};
  const float x[6] = {0, 2, 3, 1000, -254, -1000}, s = 2.0f;
  const int64_t z = 128;
  kn_tensor tx = kt_float_tensor("x", ISA_FP32, 1, n6, x), ts = kt_float_tensor("y_scale", ISA_FP32, 0, NULL, &s),
            tz = kt_int_tensor("y_zero_point", ISA_UINT8, 0, NULL, &z);
  kn_tensor y = quantize(&tx, &ts, &tz, qp(1, 0, ISA_DTYPE_COUNT));
  const int64_t want[6] = {128, 129, 130, 255, 1, 0};
  assert_int_equal(y.dtype, ISA_UINT8);
  kt_assert_ints(&y, want, 6);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
}

/* test_quantizelinear_axis: x (1, 3, 3, 2), per-axis scale [2, 4, 5], zero point [84, 24, 196] */
static const float AXIS_X[18] = {-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245, -485, -960, -270, -375, -470};
static const int64_t AXIS_Q[18] = {3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102};

static void test_onnx_quantize_linear_axis_example(void **state) {
  (void)state;
  const uint64_t xs[4] = {1, 3, 3, 2}, n3[1] = {3};
  const float s[3] = {2, 4, 5};
  const int64_t z[3] = {84, 24, 196};
  kn_tensor tx = kt_float_tensor("x", ISA_FP32, 4, xs, AXIS_X), ts = kt_float_tensor("y_scale", ISA_FP32, 1, n3, s),
            tz = kt_int_tensor("y_zero_point", ISA_UINT8, 1, n3, z);
  kn_tensor y = quantize(&tx, &ts, &tz, qp(1, 0, ISA_DTYPE_COUNT));
  kt_assert_ints(&y, AXIS_Q, 18);
  assert_int_equal(y.ndim, 4);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
}

/* test_quantizelinear_uint16 and test_quantizelinear_int16 */
static void test_onnx_quantize_linear_16bit_examples(void **state) {
  (void)state;
  const uint64_t n12[1] = {12}, n16[1] = {16};
  const float s = 2.0f;
  const float xu[12] = {0.0f, -128.0f, 3.0f, -3.0f, 2.9f, -2.9f, 3.1f, -3.1f, 65536.0f, -65534.0f, 70000.0f, -70000.0f};
  const int64_t zu = 32767, want_u[12] = {32767, 32703, 32769, 32765, 32768, 32766, 32769, 32765, 65535, 0, 65535, 0};
  kn_tensor tx = kt_float_tensor("x", ISA_FP32, 1, n12, xu), ts = kt_float_tensor("y_scale", ISA_FP32, 0, NULL, &s),
            tz = kt_int_tensor("y_zero_point", ISA_UINT16, 0, NULL, &zu);
  kn_tensor y = quantize(&tx, &ts, &tz, qp(1, 0, ISA_DTYPE_COUNT));
  assert_int_equal(y.dtype, ISA_UINT16);
  kt_assert_ints(&y, want_u, 12);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
  const float xs[16] = {0.0f, -514.0f, 3.0f, -3.0f, 2.9f, -2.9f, 3.1f, -3.1f,
                        65022.0f, -66046.0f, 65023.0f, -66047.0f, 65024.0f, -66048.0f, 70000.0f, -70000.0f};
  const int64_t zs = 256, want_s[16] = {256, -1, 258, 254, 257, 255, 258, 254,
                                        32767, -32767, 32767, -32768, 32767, -32768, 32767, -32768};
  tx = kt_float_tensor("x", ISA_FP32, 1, n16, xs);
  ts = kt_float_tensor("y_scale", ISA_FP32, 0, NULL, &s);
  tz = kt_int_tensor("y_zero_point", ISA_INT16, 0, NULL, &zs);
  y = quantize(&tx, &ts, &tz, qp(1, 0, ISA_DTYPE_COUNT));
  assert_int_equal(y.dtype, ISA_INT16);
  kt_assert_ints(&y, want_s, 16);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
}

/* test_quantizelinear_uint4 / test_quantizelinear_int4: axis 0, zero point 1 of the 4-bit type;
 * here the zero point also comes as an int8/uint8 .npy with output_dtype saying int4/uint4. */
static void test_onnx_quantize_linear_4bit_examples(void **state) {
  (void)state;
  const uint64_t xs[2] = {3, 4}, n3[1] = {3};
  const float x[12] = {0.0f, 2.5f, 4.8f, 8.6f, -30, -20, 6, 9, 12, 15, 16, 40}, s[3] = {2.0f, 3.0f, 4.0f};
  const int64_t ones[3] = {1, 1, 1};
  const int64_t want_u[12] = {1, 2, 3, 5, 0, 0, 3, 4, 4, 5, 5, 11};
  const int64_t want_s[12] = {1, 2, 3, 5, -8, -6, 3, 4, 4, 5, 5, 7};
  for (int storage = 0; storage < 2; storage++) {
    kn_tensor tx = kt_float_tensor("x", ISA_FP32, 2, xs, x), ts = kt_float_tensor("y_scale", ISA_FP32, 1, n3, s);
    kn_tensor tz = kt_int_tensor("y_zero_point", storage ? ISA_UINT8 : ISA_UINT4, 1, n3, ones);
    kn_tensor y = quantize(&tx, &ts, &tz, qp(0, 0, storage ? ISA_UINT4 : ISA_DTYPE_COUNT));
    assert_int_equal(y.dtype, ISA_UINT4);
    kt_assert_ints(&y, want_u, 12);
    kn_tensor_free(&y);
    kn_tensor_free(&tz);
    tz = kt_int_tensor("y_zero_point", storage ? ISA_INT8 : ISA_INT4, 1, n3, ones);
    y = quantize(&tx, &ts, &tz, qp(0, 0, storage ? ISA_INT4 : ISA_DTYPE_COUNT));
    assert_int_equal(y.dtype, ISA_INT4);
    kt_assert_ints(&y, want_s, 12);
    kn_tensor_free(&y);
    free3(&tx, &ts, &tz);
  }
}

/* test_quantizelinear_blocked_asymmetric (uint8) and ..._blocked_symmetric (int16, no zero point):
 * x (3, 4), scale (3, 2), axis 1, block_size 2; expected values worked out from the test's
 * numpy formula. */
static void test_onnx_quantize_linear_blocked_examples(void **state) {
  (void)state;
  const uint64_t xs[2] = {3, 4}, ss[2] = {3, 2};
  const float s[6] = {1.5f, 2.5f, 3.0f, 4.9f, 5.1f, 6.9f};
  const float xa[12] = {6, 12, 50, 5, 1, 8, 4, 5, 0, 20, 10, 4};
  const int64_t z[6] = {0, 1, 1, 0, 2, 3};
  const int64_t want_a[12] = {4, 8, 21, 3, 1, 4, 1, 1, 2, 6, 4, 4};
  kn_tensor tx = kt_float_tensor("x", ISA_FP32, 2, xs, xa), ts = kt_float_tensor("y_scale", ISA_FP32, 2, ss, s),
            tz = kt_int_tensor("y_zero_point", ISA_UINT8, 2, ss, z);
  kn_tensor y = quantize(&tx, &ts, &tz, qp(1, 2, ISA_DTYPE_COUNT));
  kt_assert_ints(&y, want_a, 12);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
  const float xb[12] = {6, -8, -10, 5, 1, 8, 4, 5, 0, 20, 10, 4};
  const int64_t want_b[12] = {4, -5, -4, 2, 0, 3, 1, 1, 0, 4, 1, 1};
  tx = kt_float_tensor("x", ISA_FP32, 2, xs, xb);
  ts = kt_float_tensor("y_scale", ISA_FP32, 2, ss, s);
  y = quantize(&tx, &ts, NULL, qp(1, 2, ISA_INT16));
  assert_int_equal(y.dtype, ISA_INT16);
  kt_assert_ints(&y, want_b, 12);
  kn_tensor_free(&y);
  free3(&tx, &ts, NULL);
}

/* ---- onnx/backend/test/case/node/dequantizelinear.py --------------------------------------- */

static void test_onnx_dequantize_linear_examples(void **state) {
  (void)state;
  const uint64_t n4[1] = {4}, n5[1] = {5}, n1[1] = {1}, n3[1] = {3}, xs[4] = {1, 3, 3, 2};
  const float two = 2.0f;
  /* test_dequantizelinear */
  const int64_t x0[4] = {0, 3, 128, 255}, z0 = 128;
  const float y0[4] = {-256, -250, 0, 254};
  kn_tensor tx = kt_int_tensor("x", ISA_UINT8, 1, n4, x0), ts = kt_float_tensor("x_scale", ISA_FP32, 0, NULL, &two),
            tz = kt_int_tensor("x_zero_point", ISA_UINT8, 0, NULL, &z0);
  kn_tensor y = dequantize(&tx, &ts, &tz, 1, 0);
  assert_int_equal(y.dtype, ISA_FP32);
  assert_floats(&y, y0, 4);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
  /* test_dequantizelinear_axis: the inverse of the quantize axis case */
  const float s[3] = {2, 4, 5};
  const int64_t z[3] = {84, 24, 196};
  tx = kt_int_tensor("x", ISA_UINT8, 4, xs, AXIS_Q);
  ts = kt_float_tensor("x_scale", ISA_FP32, 1, n3, s);
  tz = kt_int_tensor("x_zero_point", ISA_UINT8, 1, n3, z);
  y = dequantize(&tx, &ts, &tz, 1, 0);
  assert_floats(&y, AXIS_X, 18);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
  /* test_dequantizelinear_uint16 / _int16 */
  const int64_t xu[4] = {30000, 31000, 32768, 33000}, zu = 32767;
  const float yu[4] = {-5534.0f, -3534.0f, 2.0f, 466.0f};
  tx = kt_int_tensor("x", ISA_UINT16, 1, n4, xu);
  ts = kt_float_tensor("x_scale", ISA_FP32, 0, NULL, &two);
  tz = kt_int_tensor("x_zero_point", ISA_UINT16, 0, NULL, &zu);
  y = dequantize(&tx, &ts, &tz, 1, 0);
  assert_floats(&y, yu, 4);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
  const int64_t xi[4] = {-300, -30, -1025, 1270}, zi = -1024;
  const float yi[4] = {1448.0f, 1988.0f, -2.0f, 4588.0f};
  tx = kt_int_tensor("x", ISA_INT16, 1, n4, xi);
  ts = kt_float_tensor("x_scale", ISA_FP32, 0, NULL, &two);
  tz = kt_int_tensor("x_zero_point", ISA_INT16, 0, NULL, &zi);
  y = dequantize(&tx, &ts, &tz, 1, 0);
  assert_floats(&y, yi, 4);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
  /* test_dequantizelinear_uint4 / _int4: a scalar scale with a [1] zero point */
  const int64_t x4u[5] = {0, 1, 7, 10, 15}, x4s[5] = {0, 1, 7, -4, -8}, one = 1;
  const float y4u[5] = {-2, 0, 12, 18, 28}, y4s[5] = {-2, 0, 12, -10, -18};
  tx = kt_int_tensor("x", ISA_UINT4, 1, n5, x4u);
  ts = kt_float_tensor("x_scale", ISA_FP32, 0, NULL, &two);
  tz = kt_int_tensor("x_zero_point", ISA_UINT4, 1, n1, &one);
  y = dequantize(&tx, &ts, &tz, 0, 0);
  assert_floats(&y, y4u, 5);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
  tx = kt_int_tensor("x", ISA_INT4, 1, n5, x4s);
  ts = kt_float_tensor("x_scale", ISA_FP32, 0, NULL, &two);
  tz = kt_int_tensor("x_zero_point", ISA_INT4, 1, n1, &one);
  y = dequantize(&tx, &ts, &tz, 0, 0);
  assert_floats(&y, y4s, 5);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
}

/* test_dequantizelinear_blocked: x (1, 4, 3, 2) uint8, scale and zero point (1, 2, 3, 2), axis 1,
 * block_size 2; (x - zp) * scale worked out element by element. */
static void test_onnx_dequantize_linear_blocked_example(void **state) {
  (void)state;
  const uint64_t xs[4] = {1, 4, 3, 2}, ss[4] = {1, 2, 3, 2};
  const int64_t x[24] = {3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 5, 12, 12, 33, 65, 42, 245, 99, 4, 142, 121, 102};
  const float s[12] = {3, 2, 4, 1, 2, 2, 5, 2, 4, 3, 5, 2};
  const int64_t z[12] = {1, 0, 0, 1, 2, 20, 3, 2, 4, 3, 15, 2};
  const float want[24] = {6, 178, 136, 199, 144, 78, 12, 48, 96, 86, 60, -14,
                          10, 20, 32, 90, 250, 80, 1210, 194, 0, 417, 530, 200};
  kn_tensor tx = kt_int_tensor("x", ISA_UINT8, 4, xs, x), ts = kt_float_tensor("x_scale", ISA_FP32, 4, ss, s),
            tz = kt_int_tensor("x_zero_point", ISA_UINT8, 4, ss, z);
  kn_tensor y = dequantize(&tx, &ts, &tz, 1, 2);
  assert_floats(&y, want, 24);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
}

/* ---- hand-derived: the precision of fp16 ---------------------------------------------------
 * fp16 0.4 is 0x3666 = 0.39990234375; 1 / 0.39990234375 = 2.50061... rounds to the fp16 2.5 (its
 * neighbours are 2.5 and 2.501953125), and rint(2.5) = 2: numpy divides float16 in float16, as
 * the reference does (a float32 division would give 3). */
static void test_onnx_quantize_linear_fp16_division(void **state) {
  (void)state;
  const uint64_t n2[1] = {2};
  const float x[2] = {1.0f, -1.0f}, s = 0.4f;
  const int64_t z = 0;
  kn_tensor tx = kt_float_tensor("x", ISA_FP16, 1, n2, x), ts = kt_float_tensor("y_scale", ISA_FP16, 0, NULL, &s),
            tz = kt_int_tensor("y_zero_point", ISA_INT8, 0, NULL, &z);
  assert_int_equal(((uint16_t *)ts.data)[0], 0x3666);
  kn_tensor y = quantize(&tx, &ts, &tz, qp(1, 0, ISA_DTYPE_COUNT));
  const int64_t want[2] = {2, -2};
  kt_assert_ints(&y, want, 2);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
}

/* 3 * fp16(0.1) = 3 * 0.0999755859375 = 0.2999267578125 (exact in float32) is halfway between the
 * fp16 values 0x34CC (0.2998046875) and 0x34CD: the even one, 0x34CC. */
static void test_onnx_dequantize_linear_fp16_tie(void **state) {
  (void)state;
  const uint64_t n1[1] = {1};
  const int64_t x = 3;
  const float s = 0.1f;
  kn_tensor tx = kt_int_tensor("x", ISA_INT8, 1, n1, &x), ts = kt_float_tensor("x_scale", ISA_FP16, 0, NULL, &s);
  assert_int_equal(((uint16_t *)ts.data)[0], 0x2E66);
  kn_tensor y = dequantize(&tx, &ts, NULL, 1, 0);
  assert_int_equal(y.dtype, ISA_FP16);
  assert_int_equal(((uint16_t *)y.data)[0], 0x34CC);
  kn_tensor_free(&y);
  free3(&tx, &ts, NULL);
}

/* int32 x with a zero point: numpy computes float32(x) - zp in float64 (and the product too):
 * x = 16777217 becomes 16777216.0f first, so (x - 1) * 1 = 16777215, not 16777216. */
static void test_onnx_dequantize_linear_int32(void **state) {
  (void)state;
  const uint64_t n2[1] = {2};
  const int64_t x[2] = {16777217, -5}, z = 1;
  const float one = 1.0f;
  kn_tensor tx = kt_int_tensor("x", ISA_INT32, 1, n2, x), ts = kt_float_tensor("x_scale", ISA_FP32, 0, NULL, &one),
            tz = kt_int_tensor("x_zero_point", ISA_INT32, 0, NULL, &z);
  kn_tensor y = dequantize(&tx, &ts, &tz, 1, 0);
  const float want[2] = {16777215.0f, -6.0f};
  assert_floats(&y, want, 2);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
}

/* Saturation beyond int32 and infinities follow the spec (saturate), NaN follows the reference
 * on x86-64 (INT32_MIN plus the zero point, clipped). */
static void test_onnx_quantize_linear_extremes(void **state) {
  (void)state;
  const uint64_t n5[1] = {5};
  const float x[5] = {1e20f, -1e20f, INFINITY, -INFINITY, NAN}, s = 1.0f;
  const int64_t zu = 10, zs = -3;
  kn_tensor tx = kt_float_tensor("x", ISA_FP32, 1, n5, x), ts = kt_float_tensor("y_scale", ISA_FP32, 0, NULL, &s),
            tz = kt_int_tensor("y_zero_point", ISA_UINT8, 0, NULL, &zu);
  kn_tensor y = quantize(&tx, &ts, &tz, qp(1, 0, ISA_DTYPE_COUNT));
  const int64_t want_u[5] = {255, 0, 255, 0, 0};
  kt_assert_ints(&y, want_u, 5);
  kn_tensor_free(&y);
  kn_tensor_free(&tz);
  /* int32: INT32_MIN + (-3) wraps to INT32_MAX - 2, clipped to 127 */
  tz = kt_int_tensor("y_zero_point", ISA_INT8, 0, NULL, &zs);
  y = quantize(&tx, &ts, &tz, qp(1, 0, ISA_DTYPE_COUNT));
  const int64_t want_s[5] = {127, -128, 127, -128, 127};
  kt_assert_ints(&y, want_s, 5);
  kn_tensor_free(&y);
  free3(&tx, &ts, &tz);
}

/* ---- errors ---------------------------------------------------------------------------------- */

static void expect_q_error(const kn_tensor *x, const kn_tensor *s, const kn_tensor *z, kn_onnx_quantize_params p,
                           const char *msg) {
  kn_tensor y;
  cs_err err;
  assert_int_equal(kn_onnx_quantize_linear(x, s, z, &p, &y, &err), CS_EINVAL);
  assert_int_equal(err.code, CS_EINVAL);
  assert_string_equal(err.msg, msg);
  assert_null(y.data);
}

static void expect_dq_error(const kn_tensor *x, const kn_tensor *s, const kn_tensor *z, int64_t axis, int64_t block,
                            const char *msg) {
  kn_onnx_dequantize_params p = {axis, block};
  kn_tensor y;
  cs_err err;
  assert_int_equal(kn_onnx_dequantize_linear(x, s, z, &p, &y, &err), CS_EINVAL);
  assert_int_equal(err.code, CS_EINVAL);
  assert_string_equal(err.msg, msg);
  assert_null(y.data);
}

static void test_onnx_quantize_linear_errors(void **state) {
  (void)state;
  const uint64_t xs[2] = {3, 4}, n3[1] = {3}, n4[1] = {4}, n2[1] = {2}, s32[2] = {3, 2}, s33[2] = {3, 3};
  const float x[12] = {0}, s[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  const int64_t z[9] = {0}, z8 = 8;
  kn_tensor tx = kt_float_tensor("x", ISA_FP32, 2, xs, x), t3 = kt_float_tensor("y_scale", ISA_FP32, 1, n3, s),
            t4 = kt_float_tensor("y_scale", ISA_FP32, 1, n4, s), tb = kt_float_tensor("y_scale", ISA_FP32, 2, s32, s),
            tbad = kt_float_tensor("y_scale", ISA_FP32, 2, s33, s), th = kt_float_tensor("y_scale", ISA_FP16, 0, NULL, s),
            t1 = kt_float_tensor("y_scale", ISA_FP32, 0, NULL, s);
  kn_tensor z2 = kt_int_tensor("y_zero_point", ISA_UINT8, 1, n2, z), z3 = kt_int_tensor("y_zero_point", ISA_UINT8, 1, n3, z),
            zi8 = kt_int_tensor("y_zero_point", ISA_INT8, 0, NULL, &z8), zi32 = kt_int_tensor("y_zero_point", ISA_INT32, 0, NULL, z);
  expect_q_error(&tx, &t3, &z2, qp(0, 0, ISA_DTYPE_COUNT), "onnx_quantize_linear: y_zero_point shape [2] must match y_scale shape [3]");
  expect_q_error(&tx, &t3, &z3, qp(2, 0, ISA_DTYPE_COUNT),
                 "onnx_quantize_linear: axis 2 is out of range [-2, 1] for x of shape [3, 4]");
  expect_q_error(&tx, &t3, &z3, qp(-3, 0, ISA_DTYPE_COUNT),
                 "onnx_quantize_linear: axis -3 is out of range [-2, 1] for x of shape [3, 4]");
  /* default axis 1 has 4 elements, the scale 3 */
  expect_q_error(&tx, &t3, &z3, qp(1, 0, ISA_DTYPE_COUNT),
                 "onnx_quantize_linear: y_scale has 3 elements, x [3, 4] has 4 along axis 1");
  expect_q_error(&tx, &tb, NULL, qp(1, 0, ISA_DTYPE_COUNT),
                 "onnx_quantize_linear: y_scale of shape [3, 2] must be a scalar or a 1-D tensor for per-axis "
                 "quantization (blocked quantization needs block_size > 0)");
  expect_q_error(&tx, &tb, NULL, qp(1, -1, ISA_DTYPE_COUNT), "onnx_quantize_linear: block_size must be a positive integer, got -1");
  expect_q_error(&tx, &tbad, NULL, qp(1, 2, ISA_DTYPE_COUNT),
                 "onnx_quantize_linear: Invalid shapes for Blocked Quantization: y_scale is [3, 3]; for x [3, 4], axis 1 "
                 "and block_size 2 it must be x's shape with ceil(4 / 2) = 2 along the axis");
  expect_q_error(&tx, &t4, NULL, qp(-1, 3, ISA_DTYPE_COUNT),
                 "onnx_quantize_linear: Invalid shapes for Blocked Quantization: y_scale is [4]; for x [3, 4], axis 1 "
                 "and block_size 3 it must be x's shape with ceil(4 / 3) = 2 along the axis");
  expect_q_error(&tx, &th, NULL, qp(1, 0, ISA_DTYPE_COUNT),
                 "onnx_quantize_linear: y_scale is fp16 but x is fp32 (QuantizeLinear-21 gives both type T1)");
  expect_q_error(&tx, &t1, &z3, qp(1, 0, ISA_INT8), "onnx_quantize_linear: output_dtype int8 does not match y_zero_point type uint8.");
  expect_q_error(&tx, &t1, &zi8, qp(1, 0, ISA_INT4), "onnx_quantize_linear: y_zero_point[0] = 8 is outside int4's range [-8, 7]");
  expect_q_error(&tx, &t1, &zi32, qp(1, 0, ISA_DTYPE_COUNT),
                 "onnx_quantize_linear: y_zero_point is int32, expected int8, uint8, int16, uint16, int4 or uint4");
  expect_q_error(&tx, &t1, NULL, qp(1, 0, ISA_INT32),
                 "onnx_quantize_linear: output_dtype int32 is not one of int8, uint8, int16, uint16, int4, uint4");
  kn_tensor ti = kt_int_tensor("x", ISA_INT8, 0, NULL, z);
  expect_q_error(&ti, &t1, NULL, qp(1, 0, ISA_DTYPE_COUNT), "onnx_quantize_linear: x is int8, expected fp32, fp16 or bf16");
  kn_tensor list[] = {tx, t3, t4, tb, tbad, th, t1, z2, z3, zi8, zi32, ti};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) kn_tensor_free(&list[i]);
}

static void test_onnx_dequantize_linear_errors(void **state) {
  (void)state;
  const uint64_t n3[1] = {3}, n2[1] = {2};
  const int64_t x[3] = {1, 9, 2}, z[3] = {0};
  const float s[3] = {1, 1, 1};
  kn_tensor tx = kt_int_tensor("x", ISA_INT8, 1, n3, x), tx4 = kt_int_tensor("x", ISA_INT4, 1, n3, x),
            ts = kt_float_tensor("x_scale", ISA_FP32, 0, NULL, s), ts3 = kt_float_tensor("x_scale", ISA_FP32, 1, n3, s),
            ti = kt_int_tensor("x_scale", ISA_INT32, 0, NULL, z);
  kn_tensor zu = kt_int_tensor("x_zero_point", ISA_UINT8, 0, NULL, z), z2 = kt_int_tensor("x_zero_point", ISA_INT8, 1, n2, z);
  expect_dq_error(&tx, &ts, &zu, 0, 0,
                  "onnx_dequantize_linear: Type mismatch int8 != uint8 in DequantizeLinear (x_zero_point must have x's type)");
  expect_dq_error(&tx4, &ts, NULL, 0, 0, "onnx_dequantize_linear: x[1] = 9 is outside int4's range [-8, 7]");
  expect_dq_error(&tx, &ts3, &z2, 0, 0, "onnx_dequantize_linear: x_zero_point shape [2] must match x_scale shape [3]");
  expect_dq_error(&tx, &ts3, NULL, 1, 0, "onnx_dequantize_linear: axis 1 is out of range [-1, 0] for x of shape [3]");
  expect_dq_error(&tx, &ti, NULL, 0, 0, "onnx_dequantize_linear: x_scale is int32, expected fp32, fp16 or bf16");
  kn_tensor list[] = {tx, tx4, ts, ts3, ti, zu, z2};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) kn_tensor_free(&list[i]);
}

/* ---- through the registry ------------------------------------------------------------------ */

static void test_onnx_registry_entries(void **state) {
  (void)state;
  /* test_quantizelinear_int4 through `run`, the zero point given as int8 (its .npy form) */
  kn_ctx *ctx = kt_ctx("onnx_quantize_linear", 0);
  const uint64_t xs[2] = {3, 4}, n3[1] = {3};
  const float x[12] = {0.0f, 2.5f, 4.8f, 8.6f, -30, -20, 6, 9, 12, 15, 16, 40}, s[3] = {2.0f, 3.0f, 4.0f};
  const int64_t ones[3] = {1, 1, 1};
  kt_set_input(ctx, "x", kt_float_tensor("x", ISA_FP32, 2, xs, x));
  kt_set_input(ctx, "y_scale", kt_float_tensor("y_scale", ISA_FP32, 1, n3, s));
  kt_set_input(ctx, "y_zero_point", kt_int_tensor("y_zero_point", ISA_INT8, 1, n3, ones));
  cs_err err;
  assert_int_equal(kn_ctx_set_attr(ctx, "axis", "0", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "output_dtype", "int4", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_OK);
  const kn_tensor *y = kn_ctx_output(ctx, "y");
  assert_non_null(y);
  assert_int_equal(y->dtype, ISA_INT4);
  const int64_t want[12] = {1, 2, 3, 5, -8, -6, 3, 4, 4, 5, 5, 7};
  kt_assert_ints(y, want, 12);
  assert_int_equal(kn_ctx_set_attr(ctx, "output_dtype", "int32", &err), CS_EINVAL);
  assert_string_equal(err.msg, "attribute output_dtype: 'int32' is not one of int8,uint8,int16,uint16,int4,uint4");
  assert_int_equal(kn_ctx_set_attr(ctx, "output_dtype", "uint8", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_quantize_linear: output_dtype uint8 does not match y_zero_point type int8.");
  kn_tensor bad = kt_int_tensor("x", ISA_INT8, 2, xs, want);
  assert_int_equal(kn_set_input(ctx, "x", &bad, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_quantize_linear: input 'x' is int8, expected one of fp32,fp16,bf16");
  kn_ctx_destroy(ctx);

  ctx = kt_ctx("onnx_dequantize_linear", 0);
  const int64_t q[4] = {0, 3, 128, 255}, z = 128;
  const uint64_t n4[1] = {4};
  const float two = 2.0f, yw[4] = {-256, -250, 0, 254};
  kt_set_input(ctx, "x", kt_int_tensor("x", ISA_UINT8, 1, n4, q));
  kt_set_input(ctx, "x_scale", kt_float_tensor("x_scale", ISA_FP32, 0, NULL, &two));
  assert_int_equal(kn_ctx_run(ctx, &err), CS_OK); /* no zero point: 0 */
  const float yz[4] = {0, 6, 256, 510};
  assert_floats(kn_ctx_output(ctx, "y"), yz, 4);
  kt_set_input(ctx, "x_zero_point", kt_int_tensor("x_zero_point", ISA_UINT8, 0, NULL, &z));
  assert_int_equal(kn_ctx_run(ctx, &err), CS_OK);
  assert_floats(kn_ctx_output(ctx, "y"), yw, 4);
  kn_ctx_destroy(ctx);
}

/* ---- random elements against an independent reference -------------------------------------
 * The reference divides in double and rounds once to float (exact, as double has more than
 * 2 * 24 + 2 bits), narrows fp16/bf16 quotients with isa_num, rounds ties to even with floor,
 * saturates in double, and finds each element's scale from its multi-index. */

static void type_range(isa_dtype t, int64_t *lo, int64_t *hi) {
  switch (t) {
    case ISA_INT4: *lo = -8; *hi = 7; break;
    case ISA_UINT4: *lo = 0; *hi = 15; break;
    case ISA_INT8: *lo = -128; *hi = 127; break;
    case ISA_UINT8: *lo = 0; *hi = 255; break;
    case ISA_INT16: *lo = -32768; *hi = 32767; break;
    default: *lo = 0; *hi = 65535; break;
  }
}

typedef struct layout_case {
  uint32_t ndim;
  uint64_t shape[4], count;
  int kind;              /* 0 per tensor, 1 per axis, 2 blocked */
  uint32_t axis;
  uint64_t block;
  uint32_t sndim;
  uint64_t sshape[4], scount;
} layout_case;

static layout_case random_layout(uint64_t *s) {
  layout_case c;
  memset(&c, 0, sizeof c);
  c.ndim = 1 + (uint32_t)rng_xorshift_below(s, 4);
  c.count = 1;
  for (uint32_t d = 0; d < c.ndim; d++) {
    c.shape[d] = 1 + rng_xorshift_below(s, 7);
    c.count *= c.shape[d];
  }
  c.kind = (int)rng_xorshift_below(s, 3);
  c.axis = (uint32_t)rng_xorshift_below(s, c.ndim);
  if (c.kind == 0) {
    c.sndim = 0;
  } else if (c.kind == 1) {
    c.sndim = 1;
    c.sshape[0] = c.shape[c.axis];
  } else {
    c.block = 1 + rng_xorshift_below(s, 4);
    c.sndim = c.ndim;
    for (uint32_t d = 0; d < c.ndim; d++) c.sshape[d] = d == c.axis ? (c.shape[d] + c.block - 1) / c.block : c.shape[d];
  }
  c.scount = 1;
  for (uint32_t d = 0; d < c.sndim; d++) c.scount *= c.sshape[d];
  if (c.scount == 1) c.kind = 0; /* a one-element scale is per tensor */
  return c;
}

/* The scale index of element e, from its multi-index. */
static uint64_t ref_scale_index(const layout_case *c, uint64_t e) {
  if (c->kind == 0) return 0;
  uint64_t idx[4];
  for (uint32_t d = c->ndim; d-- > 0;) {
    idx[d] = e % c->shape[d];
    e /= c->shape[d];
  }
  if (c->kind == 1) return idx[c->axis];
  uint64_t flat = 0;
  for (uint32_t d = 0; d < c->ndim; d++) flat = flat * c->sshape[d] + (d == c->axis ? idx[d] / c->block : idx[d]);
  return flat;
}

static void test_onnx_quantize_linear_random_against_reference(void **state) {
  (void)state;
  const isa_dtype outs[6] = {ISA_UINT8, ISA_INT8, ISA_INT16, ISA_UINT16, ISA_INT4, ISA_UINT4};
  const isa_dtype xts[3] = {ISA_FP32, ISA_FP16, ISA_BF16};
  uint64_t s = 0xA0761D6478BD642Full, elements = 0, ties = 0, saturated = 0;
  for (int iter = 0; iter < 700; iter++) {
    layout_case c = random_layout(&s);
    isa_dtype ot = outs[rng_xorshift_below(&s, 6)], xt = iter % 4 == 3 ? xts[1 + rng_xorshift_below(&s, 2)] : ISA_FP32;
    int64_t lo, hi;
    type_range(ot, &lo, &hi);
    bool has_zp = rng_xorshift_below(&s, 4) != 0;
    float *x = malloc(c.count * sizeof *x), *sc = malloc(c.scount * sizeof *sc);
    int64_t *zp = malloc(c.scount * sizeof *zp), *want = malloc(c.count * sizeof *want);
    assert_true(x && sc && zp && want);
    for (uint64_t i = 0; i < c.scount; i++) {
      /* powers of two (exact ties) or arbitrary positive scales, in the x type's precision */
      float v = rng_xorshift_below(&s, 2) ? (float)ldexp(1.0, (int)rng_xorshift_below(&s, 8) - 4) : (float)(0.01 + rng_xorshift_unit(&s) * 3.0);
      sc[i] = xt == ISA_FP16 ? isa_f16_to_f32(isa_f32_to_f16(v)) : xt == ISA_BF16 ? isa_bf16_to_f32(isa_f32_to_bf16(v)) : v;
      zp[i] = has_zp ? lo + (int64_t)rng_xorshift_below(&s, (uint64_t)(hi - lo + 1)) : 0;
    }
    for (uint64_t e = 0; e < c.count; e++) {
      uint64_t si = ref_scale_index(&c, e);
      int kind = (int)rng_xorshift_below(&s, 4);
      double k = floor(rng_xorshift_unit(&s) * (double)(hi - lo + 8)) + (double)(lo - zp[si]) - 4.0;
      double v = kind == 0 ? (k + 0.5) * sc[si] : kind == 1 ? (k + rng_xorshift_unit(&s)) * sc[si]
               : kind == 2 ? (rng_xorshift_unit(&s) * 2 - 1) * 1e5 : k * sc[si];
      x[e] = xt == ISA_FP16 ? isa_f16_to_f32(isa_f32_to_f16((float)v))
           : xt == ISA_BF16 ? isa_bf16_to_f32(isa_f32_to_bf16((float)v)) : (float)v;
      float q = (float)((double)x[e] / (double)sc[si]);
      if (xt == ISA_FP16) q = isa_f16_to_f32(isa_f32_to_f16(q));
      if (xt == ISA_BF16) q = isa_bf16_to_f32(isa_f32_to_bf16(q));
      if (q - floor(q) == 0.5) ties++;
      double r = ref_round_half_even(q) + (double)zp[si];
      want[e] = r < (double)lo ? lo : r > (double)hi ? hi : (int64_t)r;
      if (r < (double)lo || r > (double)hi) saturated++;
    }
    kn_tensor tx = kt_float_tensor("x", xt, c.ndim, c.shape, x), ts = kt_float_tensor("y_scale", xt, c.sndim, c.sshape, sc);
    kn_tensor tz = kt_int_tensor("y_zero_point", ot, c.sndim, c.sshape, zp);
    kn_tensor y = quantize(&tx, &ts, has_zp ? &tz : NULL, qp(c.axis, c.kind == 2 ? (int64_t)c.block : 0, has_zp ? ISA_DTYPE_COUNT : ot));
    assert_int_equal(y.dtype, ot);
    for (uint64_t e = 0; e < c.count; e++)
      if (kt_get_int(&y, e) != want[e])
        fail_msg("iter %d: %s -> %s element %llu: x %.9g scale %.9g: got %lld, want %lld", iter, isa_dtype_name(xt),
                 isa_dtype_name(ot), (unsigned long long)e, (double)x[e], (double)sc[ref_scale_index(&c, e)],
                 (long long)kt_get_int(&y, e), (long long)want[e]);
    elements += c.count;
    kn_tensor_free(&y);
    free3(&tx, &ts, &tz);
    free(x);
    free(want);
    free(sc);
    free(zp);
  }
  assert_true(elements > 10000);
  assert_true(ties > 1000);
  assert_true(saturated > 1000);
}

static void test_onnx_dequantize_linear_random_against_reference(void **state) {
  (void)state;
  const isa_dtype xts[7] = {ISA_UINT8, ISA_INT8, ISA_INT16, ISA_UINT16, ISA_INT4, ISA_UINT4, ISA_INT32};
  const isa_dtype sts[3] = {ISA_FP32, ISA_FP16, ISA_BF16};
  uint64_t s = 0xE7037ED1A0B428DBull, elements = 0;
  for (int iter = 0; iter < 700; iter++) {
    layout_case c = random_layout(&s);
    isa_dtype xt = xts[rng_xorshift_below(&s, 7)], st = sts[rng_xorshift_below(&s, 3)];
    int64_t lo, hi;
    if (xt == ISA_INT32) {
      lo = -((int64_t)1 << 30);
      hi = ((int64_t)1 << 30) - 1;
    } else {
      type_range(xt, &lo, &hi);
    }
    bool has_zp = rng_xorshift_below(&s, 3) != 0;
    int64_t *q = malloc(c.count * sizeof *q), *zp = malloc(c.scount * sizeof *zp);
    float *sc = malloc(c.scount * sizeof *sc);
    assert_true(q && zp && sc);
    for (uint64_t i = 0; i < c.scount; i++) {
      sc[i] = (float)((rng_xorshift_unit(&s) * 2.0 - 1.0) * ldexp(1.0, (int)rng_xorshift_below(&s, 20) - 10));
      zp[i] = has_zp ? lo + (int64_t)rng_xorshift_below(&s, (uint64_t)(hi - lo + 1)) : 0;
    }
    for (uint64_t e = 0; e < c.count; e++) q[e] = lo + (int64_t)rng_xorshift_below(&s, (uint64_t)(hi - lo + 1));
    kn_tensor tx = kt_int_tensor("x", xt, c.ndim, c.shape, q), ts = kt_float_tensor("x_scale", st, c.sndim, c.sshape, sc);
    kn_tensor tz = kt_int_tensor("x_zero_point", xt, c.sndim, c.sshape, zp);
    kn_tensor y = dequantize(&tx, &ts, has_zp ? &tz : NULL, c.axis, c.kind == 2 ? (int64_t)c.block : 0);
    assert_int_equal(y.dtype, st);
    for (uint64_t e = 0; e < c.count; e++) {
      uint64_t si = ref_scale_index(&c, e);
      float scale = (float)kn_tensor_get(&ts, si);
      double exact = xt == ISA_INT32 && has_zp ? ((double)(float)q[e] - (double)zp[si]) * (double)scale
                                                : (double)(float)((double)(float)(q[e] - zp[si]) * (double)scale);
      float want;
      if (st == ISA_FP32) {
        want = (float)exact;
      } else if (st == ISA_FP16 && fabs(exact) >= 65520.0) {
        want = exact > 0 ? INFINITY : -INFINITY; /* beyond the midpoint of 65504 and 2^16 */
      } else {
        /* the correctly rounded fp16 / bf16 of `exact`: the nearer of the two neighbours of its
         * float32 rounding toward zero, ties to even, found by comparing in double */
        uint16_t (*narrow)(float) = st == ISA_FP16 ? isa_f32_to_f16 : isa_f32_to_bf16;
        float (*widen)(uint16_t) = st == ISA_FP16 ? isa_f16_to_f32 : isa_bf16_to_f32;
        uint16_t a = narrow((float)exact), best = a;
        double best_err = fabs((double)widen(a) - exact);
        for (int d = -1; d <= 1; d += 2) {
          uint16_t b = (uint16_t)(a + d);
          double e2 = fabs((double)widen(b) - exact);
          if (e2 < best_err || (e2 == best_err && (b & 1) == 0)) {
            best = b;
            best_err = e2;
          }
        }
        want = widen(best);
      }
      float got = (float)kn_tensor_get(&y, e);
      if (ref_f32_bits(got) != ref_f32_bits(want))
        fail_msg("iter %d: %s x %lld zp %lld scale %.9g (%s): got %.9g, want %.9g", iter, isa_dtype_name(xt), (long long)q[e],
                 (long long)zp[si], (double)scale, isa_dtype_name(st), (double)got, (double)want);
    }
    elements += c.count;
    kn_tensor_free(&y);
    free3(&tx, &ts, &tz);
    free(q);
    free(zp);
    free(sc);
  }
  assert_true(elements > 10000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_onnx_quantize_linear_example),
      cmocka_unit_test(test_onnx_quantize_linear_axis_example),
      cmocka_unit_test(test_onnx_quantize_linear_16bit_examples),
      cmocka_unit_test(test_onnx_quantize_linear_4bit_examples),
      cmocka_unit_test(test_onnx_quantize_linear_blocked_examples),
      cmocka_unit_test(test_onnx_dequantize_linear_examples),
      cmocka_unit_test(test_onnx_dequantize_linear_blocked_example),
      cmocka_unit_test(test_onnx_quantize_linear_fp16_division),
      cmocka_unit_test(test_onnx_dequantize_linear_fp16_tie),
      cmocka_unit_test(test_onnx_dequantize_linear_int32),
      cmocka_unit_test(test_onnx_quantize_linear_extremes),
      cmocka_unit_test(test_onnx_quantize_linear_errors),
      cmocka_unit_test(test_onnx_dequantize_linear_errors),
      cmocka_unit_test(test_onnx_registry_entries),
      cmocka_unit_test(test_onnx_quantize_linear_random_against_reference),
      cmocka_unit_test(test_onnx_dequantize_linear_random_against_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
