/* Tests of the exact host references of the quantized matrix products (kernels/kn_qmatmul_ref)
 * and their registry entries: ONNX's published examples, hand-derived cases, errors (code and
 * message), and random shapes with broadcasting against an independent reference in double. */
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
#include "kernels/kn_qmatmul_ref.h"
#include "support/kn_test.h"
#include "support/ref_num.h"
#include "support/rng.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static void assert_shape(const kn_tensor *t, uint32_t ndim, const uint64_t *shape) {
  assert_int_equal(t->ndim, ndim);
  for (uint32_t d = 0; d < ndim; d++) assert_int_equal(t->shape[d], shape[d]);
}

/* ---- ONNX's published examples -------------------------------------------------------------- */

/* onnx/backend/test/case/node/matmulinteger.py (the MatMulInteger example of the operator docs) */
static void test_qmm_matmul_integer_example(void **state) {
  (void)state;
  const uint64_t as[2] = {4, 3}, bs[2] = {3, 2}, one[1] = {1};
  const int64_t a[12] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}, b[6] = {1, 4, 2, 5, 3, 6}, za = 12, zb = 0;
  kn_tensor A = kt_int_tensor("A", ISA_UINT8, 2, as, a), B = kt_int_tensor("B", ISA_UINT8, 2, bs, b),
            ZA = kt_int_tensor("a_zero_point", ISA_UINT8, 1, one, &za), ZB = kt_int_tensor("b_zero_point", ISA_UINT8, 1, one, &zb);
  kn_tensor Y;
  cs_err err;
  assert_int_equal(kn_onnx_matmul_integer(&A, &B, &ZA, &ZB, &Y, &err), CS_OK);
  const int64_t want[8] = {-38, -83, -44, -98, -50, -113, -56, -128};
  const uint64_t ys[2] = {4, 2};
  assert_int_equal(Y.dtype, ISA_INT32);
  assert_shape(&Y, 2, ys);
  kt_assert_ints(&Y, want, 8);
  kn_tensor_free(&Y);
  kn_tensor_free(&A);
  kn_tensor_free(&B);
  kn_tensor_free(&ZA);
  kn_tensor_free(&ZB);
}

/* onnx/backend/test/case/node/qlinearmatmul.py (the QLinearMatMul example): 2-D and 3-D, uint8 and
 * int8 (every value minus 127), scales as float32 and as float16. */
static void test_qmm_qlinear_matmul_example(void **state) {
  (void)state;
  const int64_t a0[8] = {208, 236, 0, 238, 3, 214, 255, 29};
  const int64_t b0[12] = {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247};
  const int64_t want_u[6] = {168, 115, 255, 1, 66, 151}, want_s[6] = {41, -12, -9, 1, -75, -128};
  const float as = 0.0066f, bs = 0.00705f, ys = 0.0107f;
  const uint64_t one[1] = {1};
  for (int signed_ = 0; signed_ < 2; signed_++)
    for (int fp16 = 0; fp16 < 2; fp16++)
      for (int three_d = 0; three_d < 2; three_d++) {
        isa_dtype qt = signed_ ? ISA_INT8 : ISA_UINT8, st = fp16 ? ISA_FP16 : ISA_FP32;
        int64_t shift = signed_ ? 127 : 0, a[16], b[24], want[12];
        uint64_t reps = three_d ? 2 : 1;
        for (uint64_t r = 0; r < reps; r++) {
          for (int i = 0; i < 8; i++) a[r * 8 + i] = a0[i] - shift;
          for (int i = 0; i < 12; i++) b[r * 12 + i] = b0[i] - shift;
          for (int i = 0; i < 6; i++) want[r * 6 + i] = signed_ ? want_s[i] : want_u[i];
        }
        const int64_t za = 113 - shift, zb = 114 - shift, zy = 118 - shift;
        uint64_t ashape[3] = {2, 2, 4}, bshape[3] = {2, 4, 3};
        uint32_t nd = three_d ? 3 : 2;
        kn_tensor ta = kt_int_tensor("a", qt, nd, three_d ? ashape : ashape + 1, a);
        kn_tensor tb = kt_int_tensor("b", qt, nd, three_d ? bshape : bshape + 1, b);
        kn_tensor tas = kt_float_tensor("a_scale", st, 1, one, &as), tbs = kt_float_tensor("b_scale", st, 1, one, &bs),
                  tys = kt_float_tensor("y_scale", st, 1, one, &ys);
        kn_tensor taz = kt_int_tensor("a_zero_point", qt, 1, one, &za), tbz = kt_int_tensor("b_zero_point", qt, 1, one, &zb),
                  tyz = kt_int_tensor("y_zero_point", qt, 1, one, &zy);
        kn_qlinear_matmul_inputs in = {&ta, &tas, &taz, &tb, &tbs, &tbz, &tys, &tyz};
        kn_tensor y;
        cs_err err;
        if (kn_onnx_qlinear_matmul(&in, &y, &err) != CS_OK) fail_msg("%s", err.msg);
        assert_int_equal(y.dtype, qt);
        kt_assert_ints(&y, want, 6 * reps);
        kn_tensor list[] = {y, ta, tb, tas, tbs, tys, taz, tbz, tyz};
        for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) kn_tensor_free(&list[i]);
      }
}

/* ---- hand-derived cases ----------------------------------------------------------------- */

/* The int32 accumulation wraps: 255 * 255 * 33100 = 2152327500 = 2^32 - 2142639796. */
static void test_qmm_matmul_integer_wraps(void **state) {
  (void)state;
  const uint64_t k = 33100, as[2] = {1, 33100}, bs[2] = {33100, 1};
  int64_t *v = malloc(k * sizeof *v);
  assert_non_null(v);
  for (uint64_t i = 0; i < k; i++) v[i] = 255;
  kn_tensor A = kt_int_tensor("A", ISA_UINT8, 2, as, v), B = kt_int_tensor("B", ISA_UINT8, 2, bs, v), Y;
  cs_err err;
  assert_int_equal(kn_onnx_matmul_integer(&A, &B, NULL, NULL, &Y, &err), CS_OK);
  assert_int_equal(kt_get_int(&Y, 0), -2142639796);
  kn_tensor_free(&Y);
  kn_tensor_free(&A);
  kn_tensor_free(&B);
  free(v);
}

/* numpy.matmul's 1-D operands: [3] x [3] is a scalar, [3] x [2, 3, 2] is [2, 2]. Per-row
 * ([M] = [2]) and per-column ([N] = [2]) zero points. */
static void test_qmm_matmul_integer_vectors_and_per_row(void **state) {
  (void)state;
  const uint64_t n3[1] = {3}, b3[3] = {2, 3, 2}, a2[2] = {2, 3}, n2[1] = {2};
  const int64_t a[3] = {1, -2, 3}, b[12] = {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6};
  kn_tensor A = kt_int_tensor("A", ISA_INT8, 1, n3, a), B = kt_int_tensor("B", ISA_INT8, 1, n3, a), Y;
  cs_err err;
  assert_int_equal(kn_onnx_matmul_integer(&A, &B, NULL, NULL, &Y, &err), CS_OK);
  assert_int_equal(Y.ndim, 0);
  assert_int_equal(kt_get_int(&Y, 0), 14);
  kn_tensor_free(&Y);
  kn_tensor_free(&B);
  B = kt_int_tensor("B", ISA_INT8, 3, b3, b);
  assert_int_equal(kn_onnx_matmul_integer(&A, &B, NULL, NULL, &Y, &err), CS_OK);
  const uint64_t ys[2] = {2, 2};
  assert_shape(&Y, 2, ys);
  /* [1,-2,3] x [[1,2],[3,4],[5,6]] = [10, 12]; the second batch is its negative */
  const int64_t want[4] = {10, 12, -10, -12};
  kt_assert_ints(&Y, want, 4);
  kn_tensor_free(&Y);
  kn_tensor_free(&A);
  /* A [[1,-2,3],[0,1,0]] with per-row zero points [1, -1] and B[0] with per-column [0, 2]:
   * (A - za) = [[0,-3,2],[1,2,1]], (B - zb) = [[1,0],[3,2],[5,4]] -> [[1, 2], [12, 8]] */
  const int64_t am[6] = {1, -2, 3, 0, 1, 0}, za[2] = {1, -1}, zb[2] = {0, 2};
  const uint64_t bs2[2] = {3, 2};
  kn_tensor_free(&B);
  A = kt_int_tensor("A", ISA_INT8, 2, a2, am);
  B = kt_int_tensor("B", ISA_INT8, 2, bs2, b);
  kn_tensor ZA = kt_int_tensor("a_zero_point", ISA_INT8, 1, n2, za), ZB = kt_int_tensor("b_zero_point", ISA_INT8, 1, n2, zb);
  assert_int_equal(kn_onnx_matmul_integer(&A, &B, &ZA, &ZB, &Y, &err), CS_OK);
  const int64_t want2[4] = {1, 2, 12, 8};
  kt_assert_ints(&Y, want2, 4);
  kn_tensor list[] = {Y, A, B, ZA, ZB};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) kn_tensor_free(&list[i]);
}

/* DirectML (seed 000): A [[1,2],[3,4]] x B [[5,6],[7,8]] = [[19,22],[43,50]]; scales 0.5 * 0.5 / 1
 * give the multiplier 0.25: 4.75 -> 5, 5.5 -> 6 (tie, even), 10.75 -> 11, 12.5 -> 12 (tie, even);
 * per-row output zero points [0, 100] (shape {1,1,2,1}) and uint8 output. 4-D parameter tensors
 * with 2-D operands, as DirectML's {1,1,M,1} shapes read. */
static void test_qmm_dml_by_hand(void **state) {
  (void)state;
  const uint64_t s22[2] = {2, 2}, p1[4] = {1, 1, 1, 1}, prow[4] = {1, 1, 2, 1};
  const int64_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, zo[2] = {0, 100};
  const float half = 0.5f, one = 1.0f, so[2] = {1.0f, 1.0f};
  kn_tensor A = kt_int_tensor("ATensor", ISA_UINT8, 2, s22, a), B = kt_int_tensor("BTensor", ISA_UINT8, 2, s22, b);
  kn_tensor SA = kt_float_tensor("AScaleTensor", ISA_FP32, 4, p1, &half), SB = kt_float_tensor("BScaleTensor", ISA_FP32, 4, p1, &half),
            SO = kt_float_tensor("OutputScaleTensor", ISA_FP32, 4, prow, so),
            ZO = kt_int_tensor("OutputZeroPointTensor", ISA_UINT8, 4, prow, zo);
  kn_dml_qmatmul_inputs in = {&A, &SA, NULL, &B, &SB, NULL, &SO, &ZO, ISA_DTYPE_COUNT};
  kn_tensor out;
  cs_err err;
  if (kn_dml_quantized_linear_matmul(&in, &out, &err) != CS_OK) fail_msg("%s", err.msg);
  assert_int_equal(out.dtype, ISA_UINT8);
  const int64_t want[4] = {5, 6, 111, 112};
  kt_assert_ints(&out, want, 4);
  kn_tensor_free(&out);
  /* 2.0 output scale on row 0 and int8 output: 19 * 0.125 = 2.375 -> 2, 22 * 0.125 = 2.75 -> 3 */
  const float so2[2] = {2.0f, 1.0f};
  kn_tensor SO2 = kt_float_tensor("OutputScaleTensor", ISA_FP32, 4, prow, so2);
  in.OutputScaleTensor = &SO2;
  in.OutputZeroPointTensor = NULL;
  in.output_dtype = ISA_INT8;
  if (kn_dml_quantized_linear_matmul(&in, &out, &err) != CS_OK) fail_msg("%s", err.msg);
  const int64_t want2[4] = {2, 3, 11, 12};
  assert_int_equal(out.dtype, ISA_INT8);
  kt_assert_ints(&out, want2, 4);
  (void)one;
  kn_tensor list[] = {out, A, B, SA, SB, SO, ZO, SO2};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) kn_tensor_free(&list[i]);
}

/* The requantization multiplier and rounding: ties to even, saturation at both ends. */
static void test_qmm_requantize_rules(void **state) {
  (void)state;
  assert_true(kn_qlinear_multiplier(0.5f, 0.25f, 0.125f, ISA_FP32) == 1.0f);
  /* fp16: 0.0066 * 0.00705 in fp16 is 4.65e-5 (a subnormal-range product rounded to fp16) */
  float m16 = kn_qlinear_multiplier(isa_f16_to_f32(isa_f32_to_f16(0.0066f)), isa_f16_to_f32(isa_f32_to_f16(0.00705f)),
                                    isa_f16_to_f32(isa_f32_to_f16(0.0107f)), ISA_FP16);
  assert_true(m16 == isa_f16_to_f32(isa_f32_to_f16(m16)));
  assert_int_equal(kn_qlinear_requantize(5, 0.5f, 0, -128, 127), 2);    /* 2.5 -> 2 */
  assert_int_equal(kn_qlinear_requantize(7, 0.5f, 0, -128, 127), 4);    /* 3.5 -> 4 */
  assert_int_equal(kn_qlinear_requantize(-5, 0.5f, 0, -128, 127), -2);  /* -2.5 -> -2 */
  assert_int_equal(kn_qlinear_requantize(1000, 1.0f, 0, -128, 127), 127);
  assert_int_equal(kn_qlinear_requantize(-1000, 1.0f, 10, 0, 255), 0);
  assert_int_equal(kn_qlinear_requantize(INT32_MAX, INFINITY, 0, 0, 255), 255);
  assert_int_equal(kn_qlinear_requantize(0, INFINITY, 0, 0, 255), 0); /* 0 * inf = NaN -> 0 */
}

/* ---- errors ---------------------------------------------------------------------------------- */

static void test_qmm_onnx_errors(void **state) {
  (void)state;
  const uint64_t s23[2] = {2, 3}, s42[2] = {4, 2}, s32[2] = {3, 2}, b223[3] = {2, 2, 3}, b332[3] = {3, 3, 2}, n3[1] = {3},
                 n2[1] = {2}, one[1] = {1};
  const int64_t v[18] = {0};
  const float s[3] = {1, 1, 1};
  kn_tensor A = kt_int_tensor("A", ISA_INT8, 2, s23, v), B42 = kt_int_tensor("B", ISA_INT8, 2, s42, v), B = kt_int_tensor("B", ISA_INT8, 2, s32, v),
            ZU = kt_int_tensor("a_zero_point", ISA_UINT8, 0, NULL, v), S0 = kt_int_tensor("A", ISA_INT8, 0, NULL, v), Y;
  cs_err err;
  assert_int_equal(kn_onnx_matmul_integer(&A, NULL, NULL, NULL, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_matmul_integer: input 'B' is required");
  assert_int_equal(kn_onnx_matmul_integer(&A, &B42, NULL, NULL, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_matmul_integer: A [2, 3] and B [4, 2]: K differs (3 vs 4)");
  assert_null(Y.data);
  assert_int_equal(kn_onnx_matmul_integer(&A, &B, &ZU, NULL, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_matmul_integer: a_zero_point is uint8 but A is int8: a zero point has its input's type");
  assert_int_equal(kn_onnx_matmul_integer(&S0, &B, NULL, NULL, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_matmul_integer: A [] and B [3, 2]: a matrix product needs at least 1 dimension each");
  kn_tensor ZA3 = kt_int_tensor("a_zero_point", ISA_INT8, 1, n3, v);
  assert_int_equal(kn_onnx_matmul_integer(&A, &B, &ZA3, NULL, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_matmul_integer: a_zero_point has shape [3]; with A [2, 3] it must have one element "
                               "(per tensor) or be per row: [M] or [..., M, 1]");

  kn_tensor a = kt_int_tensor("a", ISA_UINT8, 3, b223, v), b = kt_int_tensor("b", ISA_UINT8, 3, b332, v);
  kn_tensor as = kt_float_tensor("a_scale", ISA_FP32, 1, one, s), bs = kt_float_tensor("b_scale", ISA_FP16, 1, one, s),
            ys = kt_float_tensor("y_scale", ISA_FP32, 1, n2, s), az = kt_int_tensor("a_zero_point", ISA_UINT8, 1, one, v),
            bz = kt_int_tensor("b_zero_point", ISA_UINT8, 1, one, v), yz = kt_int_tensor("y_zero_point", ISA_UINT8, 1, one, v);
  kn_qlinear_matmul_inputs in = {&a, &as, &az, &b, &bs, &bz, &ys, NULL};
  assert_int_equal(kn_onnx_qlinear_matmul(&in, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_qlinear_matmul: input 'y_zero_point' is required");
  in.y_zero_point = &yz;
  assert_int_equal(kn_onnx_qlinear_matmul(&in, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_qlinear_matmul: b_scale is fp16 but a_scale is fp32: the three scales share one type (TS)");
  kn_tensor bs32 = kt_float_tensor("b_scale", ISA_FP32, 1, one, s);
  in.b_scale = &bs32;
  assert_int_equal(kn_onnx_qlinear_matmul(&in, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_qlinear_matmul: y_scale and y_zero_point must be per tensor (one element), got 2 and 1");
  kn_tensor ys1 = kt_float_tensor("y_scale", ISA_FP32, 0, NULL, s);
  in.y_scale = &ys1;
  assert_int_equal(kn_onnx_qlinear_matmul(&in, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_qlinear_matmul: the batch dims of a [2, 2, 3] and b [3, 3, 2] do not broadcast (2 vs 3)");
  kn_tensor as2 = kt_float_tensor("a_scale", ISA_FP32, 1, n2, s);
  in.a_scale = &as2;
  assert_int_equal(kn_onnx_qlinear_matmul(&in, &Y, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_qlinear_matmul: a_zero_point shape [1] must match a_scale shape [2]");
  assert_null(Y.data);
  kn_tensor list[] = {A, B42, B, ZU, S0, ZA3, a, b, as, bs, ys, az, bz, yz, bs32, ys1, as2};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) kn_tensor_free(&list[i]);
}

static void expect_dml_error(const kn_dml_qmatmul_inputs *in, const char *msg) {
  kn_tensor out;
  cs_err err;
  assert_int_equal(kn_dml_quantized_linear_matmul(in, &out, &err), CS_EINVAL);
  assert_int_equal(err.code, CS_EINVAL);
  assert_string_equal(err.msg, msg);
  assert_null(out.data);
}

static void test_qmm_dml_errors(void **state) {
  (void)state;
  const uint64_t s34[2] = {3, 4}, s42[2] = {4, 2}, b342[3] = {1, 4, 2}, p4[4] = {1, 1, 1, 1}, p2[2] = {1, 1},
                 n3[1] = {3}, pb[4] = {1, 1, 1, 2}, prow_batch[4] = {2, 1, 3, 1}, s5[5] = {1, 1, 1, 3, 4}, s5b[5] = {1, 1, 1, 4, 2};
  const int64_t v[24] = {0};
  const float s[6] = {1, 1, 1, 1, 1, 1}, sz[2] = {1, 0};
  kn_tensor A = kt_int_tensor("ATensor", ISA_UINT8, 2, s34, v), B = kt_int_tensor("BTensor", ISA_UINT8, 2, s42, v),
            B3 = kt_int_tensor("BTensor", ISA_UINT8, 3, b342, v), SA = kt_float_tensor("AScaleTensor", ISA_FP32, 4, p4, s),
            SB = kt_float_tensor("BScaleTensor", ISA_FP32, 4, p4, s), SO = kt_float_tensor("OutputScaleTensor", ISA_FP32, 4, p4, s),
            SB0 = kt_float_tensor("BScaleTensor", ISA_FP32, 4, pb, sz), SB2 = kt_float_tensor("BScaleTensor", ISA_FP32, 2, p2, s),
            SA1 = kt_float_tensor("AScaleTensor", ISA_FP32, 1, n3, s), SA3 = kt_float_tensor("AScaleTensor", ISA_FP32, 1, n3, s),
            SAb = kt_float_tensor("AScaleTensor", ISA_FP32, 4, prow_batch, s),
            ZA = kt_int_tensor("AZeroPointTensor", ISA_INT8, 4, p4, v), ZO = kt_int_tensor("OutputZeroPointTensor", ISA_INT8, 4, p4, v),
            A5 = kt_int_tensor("ATensor", ISA_UINT8, 5, s5, v), B5 = kt_int_tensor("BTensor", ISA_UINT8, 5, s5b, v);
  kn_dml_qmatmul_inputs in = {&A, &SA, NULL, &B, &SB0, NULL, &SO, NULL, ISA_DTYPE_COUNT};
  expect_dml_error(&in, "dml_quantized_linear_matmul: BScaleTensor[1] is 0: a zero scale is undefined behaviour in DirectML");
  in.BScaleTensor = &SB;
  in.BTensor = &B3;
  expect_dml_error(&in, "dml_quantized_linear_matmul: ATensor has 2 dims and BTensor 3: both must have the same "
                        "DimensionCount, 2 to 4");
  in.ATensor = &A5;
  in.BTensor = &B5;
  expect_dml_error(&in, "dml_quantized_linear_matmul: ATensor has 5 dims and BTensor 5: both must have the same "
                        "DimensionCount, 2 to 4");
  in.ATensor = &A;
  in.BTensor = &B;
  in.BScaleTensor = &SB2;
  expect_dml_error(&in, "dml_quantized_linear_matmul: BScaleTensor has 2 dims but AScaleTensor has 4: the scale and "
                        "zero-point tensors must have the same DimensionCount");
  in.BScaleTensor = &SB;
  in.AZeroPointTensor = &ZA;
  expect_dml_error(&in, "dml_quantized_linear_matmul: AZeroPointTensor is int8 but ATensor is uint8: a zero point has its "
                        "input's type");
  in.AZeroPointTensor = NULL;
  in.OutputZeroPointTensor = &ZO;
  in.output_dtype = ISA_UINT8;
  expect_dml_error(&in, "dml_quantized_linear_matmul: OutputTensor is uint8 but OutputZeroPointTensor is int8: they must "
                        "have the same DataType");
  in.OutputZeroPointTensor = NULL;
  in.output_dtype = ISA_DTYPE_COUNT;
  in.AScaleTensor = &SAb;
  expect_dml_error(&in, "dml_quantized_linear_matmul: AScaleTensor has shape [2, 1, 3, 1]; with ATensor [3, 4] it must "
                        "have one element (per tensor) or be per row: [..., M, 1] (leading dims 1)");
  /* a 1-D per-row scale would face K, not M: DirectML's per-row shape is {.., M, 1} */
  in.AScaleTensor = &SA1;
  in.BScaleTensor = &SB;
  in.OutputScaleTensor = &SO;
  kn_tensor SB1 = kt_float_tensor("BScaleTensor", ISA_FP32, 1, n3, s), SO1 = kt_float_tensor("OutputScaleTensor", ISA_FP32, 1, n3, s);
  in.BScaleTensor = &SB1;
  in.OutputScaleTensor = &SO1;
  expect_dml_error(&in, "dml_quantized_linear_matmul: AScaleTensor has shape [3]; with ATensor [3, 4] it must have one "
                        "element (per tensor) or be per row: [..., M, 1]");
  (void)SA3;
  kn_tensor list[] = {A, B, B3, SA, SB, SO, SB0, SB2, SA1, SA3, SAb, ZA, ZO, A5, B5, SB1, SO1};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) kn_tensor_free(&list[i]);
}

/* ---- through the registry, on a small chip (kt_ctx(op, 2): 2 cores) ----------------------- */

static void run_and_check(kn_ctx *ctx, const char *out_name, const int64_t *want, uint64_t n) {
  cs_err err;
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("%s", err.msg);
  if (kn_ctx_reference(ctx, &err) != CS_OK) fail_msg("%s", err.msg);
  const kn_tensor *got = kn_ctx_output(ctx, out_name), *ref = kn_ctx_reference_output(ctx, out_name);
  assert_non_null(got);
  assert_non_null(ref);
  kt_assert_ints(got, want, n);
  kn_compare cmp;
  assert_int_equal(kn_compare_tensors(got, ref, &cmp, &err), CS_OK);
  assert_int_equal(cmp.count, n);
  assert_int_equal(cmp.mismatches, 0);
}

static void test_qmm_registry_entries(void **state) {
  (void)state;
  const char *names[3] = {"onnx_matmul_integer", "onnx_qlinear_matmul", "dml_quantized_linear_matmul"};
  for (int i = 0; i < 3; i++) {
    const kn_op *op = kn_op_find(names[i]);
    assert_non_null(op);
    assert_string_equal(op->name, names[i]);
    assert_non_null(op->run);
    assert_non_null(op->reference);
  }
  const uint64_t as[2] = {4, 3}, bs[2] = {3, 2}, one[1] = {1};
  const int64_t a[12] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}, b[6] = {1, 4, 2, 5, 3, 6}, za = 12;
  kn_ctx *ctx = kt_ctx("onnx_matmul_integer", 2);
  kt_set_input(ctx, "A", kt_int_tensor("A", ISA_UINT8, 2, as, a));
  kt_set_input(ctx, "B", kt_int_tensor("B", ISA_UINT8, 2, bs, b));
  kt_set_input(ctx, "a_zero_point", kt_int_tensor("a_zero_point", ISA_UINT8, 1, one, &za));
  const int64_t want[8] = {-38, -83, -44, -98, -50, -113, -56, -128};
  run_and_check(ctx, "Y", want, 8);
  kn_ctx_destroy(ctx);

  ctx = kt_ctx("onnx_qlinear_matmul", 2);
  const uint64_t a2[2] = {2, 4}, b2[2] = {4, 3};
  const int64_t qa[8] = {208, 236, 0, 238, 3, 214, 255, 29}, qb[12] = {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247};
  const int64_t zs[3] = {113, 114, 118};
  const float ss[3] = {0.0066f, 0.00705f, 0.0107f};
  kt_set_input(ctx, "a", kt_int_tensor("a", ISA_UINT8, 2, a2, qa));
  kt_set_input(ctx, "a_scale", kt_float_tensor("a_scale", ISA_FP32, 1, one, &ss[0]));
  kt_set_input(ctx, "a_zero_point", kt_int_tensor("a_zero_point", ISA_UINT8, 1, one, &zs[0]));
  kt_set_input(ctx, "b", kt_int_tensor("b", ISA_UINT8, 2, b2, qb));
  kt_set_input(ctx, "b_scale", kt_float_tensor("b_scale", ISA_FP32, 1, one, &ss[1]));
  kt_set_input(ctx, "b_zero_point", kt_int_tensor("b_zero_point", ISA_UINT8, 1, one, &zs[1]));
  kt_set_input(ctx, "y_scale", kt_float_tensor("y_scale", ISA_FP32, 1, one, &ss[2]));
  cs_err err;
  assert_int_equal(kn_ctx_run(ctx, &err), CS_EINVAL);
  assert_string_equal(err.msg, "onnx_qlinear_matmul: input 'y_zero_point' is required (--in y_zero_point=FILE.npy)");
  kt_set_input(ctx, "y_zero_point", kt_int_tensor("y_zero_point", ISA_UINT8, 1, one, &zs[2]));
  const int64_t want_q[6] = {168, 115, 255, 1, 66, 151};
  run_and_check(ctx, "y", want_q, 6);
  kn_ctx_destroy(ctx);

  ctx = kt_ctx("dml_quantized_linear_matmul", 2);
  const uint64_t s22[2] = {2, 2}, p1[2] = {1, 1}, prow[2] = {2, 1};
  const int64_t da[4] = {1, 2, 3, 4}, db[4] = {5, 6, 7, 8}, zo[2] = {0, 100};
  const float half = 0.5f, so[2] = {1.0f, 1.0f};
  kt_set_input(ctx, "ATensor", kt_int_tensor("ATensor", ISA_UINT8, 2, s22, da));
  kt_set_input(ctx, "AScaleTensor", kt_float_tensor("AScaleTensor", ISA_FP32, 2, p1, &half));
  kt_set_input(ctx, "BTensor", kt_int_tensor("BTensor", ISA_UINT8, 2, s22, db));
  kt_set_input(ctx, "BScaleTensor", kt_float_tensor("BScaleTensor", ISA_FP32, 2, p1, &half));
  kt_set_input(ctx, "OutputScaleTensor", kt_float_tensor("OutputScaleTensor", ISA_FP32, 2, prow, so));
  kt_set_input(ctx, "OutputZeroPointTensor", kt_int_tensor("OutputZeroPointTensor", ISA_UINT8, 2, prow, zo));
  const int64_t want_d[4] = {5, 6, 111, 112};
  run_and_check(ctx, "OutputTensor", want_d, 4);
  assert_int_equal(kn_ctx_set_attr(ctx, "OutputDataType", "int8", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_EINVAL);
  assert_string_equal(err.msg, "dml_quantized_linear_matmul: OutputTensor is int8 but OutputZeroPointTensor is uint8: they "
                               "must have the same DataType");
  kn_ctx_destroy(ctx);
}

/* ---- random shapes against an independent reference ----------------------------------------
 * The reference walks every output element by its multi-index, maps it to A, B and each
 * parameter by right-aligned broadcasting (a size-1 dim reads index 0), accumulates in double
 * (exact here), forms the multiplier by rounding double products and quotients to float (and
 * fp16 / bf16), and rounds ties to even with floor. */

typedef struct rshape {
  uint32_t ndim;
  uint64_t shape[6];
  uint64_t count;
} rshape;

static void rshape_fix(rshape *r) {
  r->count = 1;
  for (uint32_t d = 0; d < r->ndim; d++) r->count *= r->shape[d];
}

/* Reads element `idx` (right-aligned against a coordinate vector of length n) of a tensor whose
 * size-1 dims broadcast. */
static uint64_t ref_flat(const rshape *t, const uint64_t *coord, uint32_t n) {
  uint64_t flat = 0;
  for (uint32_t d = 0; d < t->ndim; d++) {
    uint32_t cd = n - t->ndim + d;
    uint64_t c = t->shape[d] == 1 ? 0 : coord[cd];
    flat = flat * t->shape[d] + c;
  }
  return flat;
}

typedef enum { P_NONE, P_TENSOR, P_1D, P_ND } pkind;

/* A parameter tensor's shape of the given kind for rows (M) or columns (N) of an operand with
 * batch dims `batch` (nb of them). */
static rshape param_shape(uint64_t *s, pkind k, bool rows, uint64_t m, uint64_t n, const uint64_t *batch, uint32_t nb,
                          bool allow_batch, uint32_t dml_ndim) {
  rshape r;
  memset(&r, 0, sizeof r);
  if (dml_ndim) { /* DirectML: a fixed DimensionCount, leading dims 1 */
    r.ndim = dml_ndim;
    for (uint32_t d = 0; d < r.ndim; d++) r.shape[d] = 1;
    if (k == P_ND || k == P_1D) {
      if (rows && r.ndim >= 2) r.shape[r.ndim - 2] = m;
      if (!rows) r.shape[r.ndim - 1] = n;
    }
  } else if (k == P_TENSOR) {
    r.ndim = (uint32_t)rng_xorshift_below(s, 2);
    r.shape[0] = 1;
  } else if (k == P_1D) {
    r.ndim = 1;
    r.shape[0] = rows ? m : n;
  } else {
    uint32_t keep = allow_batch ? (uint32_t)rng_xorshift_below(s, nb + 1) : 0;
    r.ndim = keep + 2;
    for (uint32_t d = 0; d < keep; d++) r.shape[d] = rng_xorshift_below(s, 2) ? batch[nb - keep + d] : 1;
    r.shape[keep] = rows ? m : 1;
    r.shape[keep + 1] = rows ? 1 : n;
  }
  rshape_fix(&r);
  return r;
}

typedef struct rcase {
  int op;                      /* 0 MatMulInteger, 1 QLinearMatMul, 2 DirectML */
  rshape a, b, out;            /* a and b as given (1-D possible for ONNX) */
  rshape pa, pb;               /* promoted to matrices */
  uint64_t m, k, n;
  isa_dtype ta, tb, ty, ts;
  pkind kza, kzb, ksa, ksb, kzy, ksy;
  rshape za, zb, sa, sb, zy, sy;
} rcase;

static void random_case(uint64_t *s, int op, rcase *c) {
  memset(c, 0, sizeof *c);
  c->op = op;
  c->m = 1 + rng_xorshift_below(s, 5);
  c->k = 1 + rng_xorshift_below(s, 8);
  c->n = 1 + rng_xorshift_below(s, 5);
  uint32_t nbat = (uint32_t)rng_xorshift_below(s, 3);
  uint64_t batch[4];
  for (uint32_t d = 0; d < nbat; d++) batch[d] = 1 + rng_xorshift_below(s, 3);
  uint32_t na, nb;
  if (op == 2) {
    na = nb = nbat; /* DirectML: same DimensionCount */
  } else {
    na = (uint32_t)rng_xorshift_below(s, nbat + 1);
    nb = (uint32_t)rng_xorshift_below(s, nbat + 1);
  }
  bool a_vec = op != 2 && na == 0 && rng_xorshift_below(s, 4) == 0, b_vec = op != 2 && nb == 0 && rng_xorshift_below(s, 4) == 0;
  if (a_vec) c->m = 1;
  if (b_vec) c->n = 1;
  c->pa.ndim = na + 2;
  c->pb.ndim = nb + 2;
  for (uint32_t d = 0; d < na; d++) c->pa.shape[d] = rng_xorshift_below(s, 3) ? batch[nbat - na + d] : 1;
  for (uint32_t d = 0; d < nb; d++) c->pb.shape[d] = rng_xorshift_below(s, 3) ? batch[nbat - nb + d] : 1;
  c->pa.shape[na] = c->m;
  c->pa.shape[na + 1] = c->k;
  c->pb.shape[nb] = c->k;
  c->pb.shape[nb + 1] = c->n;
  rshape_fix(&c->pa);
  rshape_fix(&c->pb);
  c->a = c->pa;
  c->b = c->pb;
  if (a_vec) {
    c->a.ndim = 1;
    c->a.shape[0] = c->k;
  }
  if (b_vec) {
    c->b.ndim = 1;
    c->b.shape[0] = c->k;
  }
  /* output: the broadcast batch (max rank, max of each dim) then M, N */
  uint32_t nbo = na > nb ? na : nb;
  c->out.ndim = nbo + 2;
  for (uint32_t d = 0; d < nbo; d++) {
    uint64_t da = d + na >= nbo ? c->pa.shape[d + na - nbo] : 1, db = d + nb >= nbo ? c->pb.shape[d + nb - nbo] : 1;
    c->out.shape[d] = da > db ? da : db;
  }
  c->out.shape[nbo] = c->m;
  c->out.shape[nbo + 1] = c->n;
  rshape_fix(&c->out);
  c->ta = rng_xorshift_below(s, 2) ? ISA_INT8 : ISA_UINT8;
  c->tb = rng_xorshift_below(s, 2) ? ISA_INT8 : ISA_UINT8;
  c->ty = op == 0 ? ISA_INT32 : rng_xorshift_below(s, 2) ? ISA_INT8 : ISA_UINT8;
  c->ts = op == 1 ? (rng_xorshift_below(s, 4) == 0 ? ISA_FP16 : rng_xorshift_below(s, 4) == 0 ? ISA_BF16 : ISA_FP32) : ISA_FP32;
  uint32_t dml_nd = op == 2 ? 1 + (uint32_t)rng_xorshift_below(s, 4) : 0;
  pkind kinds[3] = {P_TENSOR, P_1D, P_ND};
  if (op == 0) {
    c->kza = rng_xorshift_below(s, 4) == 0 ? P_NONE : kinds[rng_xorshift_below(s, 3)];
    c->kzb = rng_xorshift_below(s, 4) == 0 ? P_NONE : kinds[rng_xorshift_below(s, 3)];
  } else if (op == 1) {
    c->ksa = kinds[rng_xorshift_below(s, 3)];
    c->ksb = kinds[rng_xorshift_below(s, 3)];
    c->kza = c->ksa;
    c->kzb = c->ksb;
    c->ksy = c->kzy = P_TENSOR;
  } else {
    /* DirectML: per tensor, or per row (A, output) / per column (B) in the common DimensionCount */
    c->ksa = dml_nd >= 2 && rng_xorshift_below(s, 2) ? P_ND : P_TENSOR;
    c->ksb = rng_xorshift_below(s, 2) ? P_ND : P_TENSOR;
    c->ksy = dml_nd >= 2 && rng_xorshift_below(s, 2) ? P_ND : P_TENSOR;
    c->kza = rng_xorshift_below(s, 3) == 0 ? P_NONE : c->ksa;
    c->kzb = rng_xorshift_below(s, 3) == 0 ? P_NONE : c->ksb;
    c->kzy = rng_xorshift_below(s, 3) == 0 ? P_NONE : c->ksy;
  }
  const uint64_t *ab = c->pa.shape, *bb = c->pb.shape, *ob = c->out.shape;
  /* same shape for a scale and its zero point: draw once, copy */
  c->za = param_shape(s, c->kza == P_NONE ? P_TENSOR : c->kza, true, c->m, c->n, ab, na, true, dml_nd);
  c->sa = c->za;
  c->zb = param_shape(s, c->kzb == P_NONE ? P_TENSOR : c->kzb, false, c->m, c->n, bb, nb, true, dml_nd);
  c->sb = c->zb;
  c->zy = param_shape(s, c->kzy == P_NONE ? P_TENSOR : c->kzy, true, c->m, c->n, ob, nbo, false, dml_nd);
  c->sy = c->zy;
  if (op == 1) { /* QLinearMatMul's y parameters are per tensor */
    c->zy.ndim = c->sy.ndim = 0;
    c->zy.count = c->sy.count = 1;
  }
  if (op == 2 && c->ksa != P_ND) {
    c->sa = param_shape(s, P_TENSOR, true, c->m, c->n, ab, na, false, dml_nd);
    c->za = c->sa;
  }
  if (op == 2 && c->ksb != P_ND) {
    c->sb = param_shape(s, P_TENSOR, false, c->m, c->n, bb, nb, false, dml_nd);
    c->zb = c->sb;
  }
  if (op == 2 && c->ksy != P_ND) {
    c->sy = param_shape(s, P_TENSOR, true, c->m, c->n, ob, nbo, false, dml_nd);
    c->zy = c->sy;
  }
}

/* The parameter value index for (batch coordinates of the operand, row or column). The 1-D
 * per-row case reads [i]; everything else is right-aligned broadcasting over (batch..., M, N)
 * with the other matrix dim at 1. */
static uint64_t ref_param_index(const rshape *p, pkind k, bool rows, const uint64_t *bcoord, uint32_t nb, uint64_t i) {
  if (p->count == 1) return 0;
  if (k == P_1D) return i;
  uint64_t coord[8];
  for (uint32_t d = 0; d < nb; d++) coord[d] = bcoord[d];
  coord[nb] = rows ? i : 0;
  coord[nb + 1] = rows ? 0 : i;
  uint32_t n = nb + 2;
  if (p->ndim > n) { /* DirectML's leading ones beyond the operand */
    rshape q = *p;
    q.ndim = n;
    memmove(q.shape, p->shape + (p->ndim - n), n * sizeof q.shape[0]);
    return ref_flat(&q, coord, n);
  }
  return ref_flat(p, coord, n);
}

static float ref_narrow(float f, isa_dtype t) {
  if (t == ISA_FP16) return isa_f16_to_f32(isa_f32_to_f16(f));
  if (t == ISA_BF16) return isa_bf16_to_f32(isa_f32_to_bf16(f));
  return f;
}

static void fill_random(uint64_t *s, int64_t *v, uint64_t n, isa_dtype t) {
  for (uint64_t i = 0; i < n; i++) v[i] = t == ISA_INT8 ? (int64_t)rng_xorshift_below(s, 256) - 128 : (int64_t)rng_xorshift_below(s, 256);
}

static void test_qmm_random_against_reference(void **state) {
  (void)state;
  uint64_t s = 0x243F6A8885A308D3ull, elements[3] = {0, 0, 0}, ties = 0, saturated = 0;
  for (int iter = 0; iter < 900; iter++) {
    rcase c;
    random_case(&s, iter % 3, &c);
    int64_t *a = malloc(c.a.count * sizeof *a), *b = malloc(c.b.count * sizeof *b);
    int64_t za[64], zb[64], zy[64];
    float sa[64], sb[64], sy[64];
    assert_true(a && b && c.za.count <= 64 && c.zb.count <= 64 && c.zy.count <= 64);
    fill_random(&s, a, c.a.count, c.ta);
    fill_random(&s, b, c.b.count, c.tb);
    fill_random(&s, za, c.za.count, c.ta);
    fill_random(&s, zb, c.zb.count, c.tb);
    fill_random(&s, zy, c.zy.count, c.ty == ISA_INT32 ? ISA_UINT8 : c.ty);
    const float pow2[4] = {0.25f, 0.5f, 0.125f, 1.0f};
    bool exact_scales = rng_xorshift_below(&s, 2) == 0; /* products of powers of two: exact .5 ties */
    for (uint64_t i = 0; i < 64; i++) {
      sa[i] = ref_narrow(exact_scales ? pow2[rng_xorshift_below(&s, 4)] : (float)(0.001 + rng_xorshift_unit(&s) * 0.05), c.ts);
      sb[i] = ref_narrow(exact_scales ? pow2[rng_xorshift_below(&s, 4)] : (float)(0.001 + rng_xorshift_unit(&s) * 0.05), c.ts);
      sy[i] = ref_narrow(exact_scales ? 8.0f * pow2[rng_xorshift_below(&s, 4)] : (float)(0.0005 + rng_xorshift_unit(&s) * 0.01), c.ts);
    }
    kn_tensor A = kt_int_tensor(c.op == 2 ? "ATensor" : c.op ? "a" : "A", c.ta, c.a.ndim, c.a.shape, a);
    kn_tensor B = kt_int_tensor(c.op == 2 ? "BTensor" : c.op ? "b" : "B", c.tb, c.b.ndim, c.b.shape, b);
    kn_tensor ZA = kt_int_tensor("za", c.ta, c.za.ndim, c.za.shape, za), ZB = kt_int_tensor("zb", c.tb, c.zb.ndim, c.zb.shape, zb);
    kn_tensor ZY = kt_int_tensor("zy", c.ty == ISA_INT32 ? ISA_UINT8 : c.ty, c.zy.ndim, c.zy.shape, zy);
    kn_tensor SA = kt_float_tensor("sa", c.ts, c.sa.ndim, c.sa.shape, sa), SB = kt_float_tensor("sb", c.ts, c.sb.ndim, c.sb.shape, sb),
              SY = kt_float_tensor("sy", c.ts, c.sy.ndim, c.sy.shape, sy);
    kn_tensor Y;
    cs_err err;
    cs_status st;
    if (c.op == 0) {
      st = kn_onnx_matmul_integer(&A, &B, c.kza == P_NONE ? NULL : &ZA, c.kzb == P_NONE ? NULL : &ZB, &Y, &err);
    } else if (c.op == 1) {
      kn_qlinear_matmul_inputs in = {&A, &SA, &ZA, &B, &SB, &ZB, &SY, &ZY};
      st = kn_onnx_qlinear_matmul(&in, &Y, &err);
    } else {
      kn_dml_qmatmul_inputs in = {&A, &SA, c.kza == P_NONE ? NULL : &ZA, &B, &SB, c.kzb == P_NONE ? NULL : &ZB, &SY,
                                  c.kzy == P_NONE ? NULL : &ZY, c.kzy == P_NONE ? c.ty : ISA_DTYPE_COUNT};
      st = kn_dml_quantized_linear_matmul(&in, &Y, &err);
    }
    if (st != CS_OK) fail_msg("iter %d op %d: %s", iter, c.op, err.msg);
    assert_int_equal(Y.dtype, c.ty);
    assert_int_equal(Y.count, c.out.count);
    /* ONNX drops the dims of 1-D operands: the count is the same, the rank tells */
    assert_int_equal(Y.ndim, c.out.ndim - (c.a.ndim == 1) - (c.b.ndim == 1));

    uint32_t nbo = c.out.ndim - 2, nba = c.pa.ndim - 2, nbb = c.pb.ndim - 2;
    int64_t lo = c.ty == ISA_INT8 ? -128 : 0, hi = c.ty == ISA_INT8 ? 127 : 255;
    for (uint64_t e = 0; e < c.out.count; e++) {
      uint64_t coord[8], rem = e;
      for (uint32_t d = c.out.ndim; d-- > 0;) {
        coord[d] = rem % c.out.shape[d];
        rem /= c.out.shape[d];
      }
      uint64_t i = coord[nbo], j = coord[nbo + 1];
      /* each operand's own batch coordinates (broadcast dims read 0) */
      uint64_t ca[8], cb[8];
      for (uint32_t d = 0; d < nba; d++) ca[d] = c.pa.shape[d] == 1 ? 0 : coord[nbo - nba + d];
      for (uint32_t d = 0; d < nbb; d++) cb[d] = c.pb.shape[d] == 1 ? 0 : coord[nbo - nbb + d];
      double zav = c.kza == P_NONE ? 0 : (double)za[ref_param_index(&c.za, c.kza, true, ca, nba, i)];
      double zbv = c.kzb == P_NONE ? 0 : (double)zb[ref_param_index(&c.zb, c.kzb, false, cb, nbb, j)];
      double acc = 0;
      for (uint64_t t = 0; t < c.k; t++) {
        uint64_t ac[8], bc[8];
        memcpy(ac, ca, sizeof ac);
        memcpy(bc, cb, sizeof bc);
        ac[nba] = i;
        ac[nba + 1] = t;
        bc[nbb] = t;
        bc[nbb + 1] = j;
        acc += ((double)a[ref_flat(&c.pa, ac, nba + 2)] - zav) * ((double)b[ref_flat(&c.pb, bc, nbb + 2)] - zbv);
      }
      int64_t want;
      if (c.op == 0) {
        want = (int64_t)acc;
      } else {
        float fa = (float)kn_tensor_get(&SA, ref_param_index(&c.sa, c.ksa, true, ca, nba, i));
        float fb = (float)kn_tensor_get(&SB, ref_param_index(&c.sb, c.ksb, false, cb, nbb, j));
        float fy = (float)kn_tensor_get(&SY, ref_param_index(&c.sy, c.ksy, true, coord, nbo, i));
        float ab = ref_narrow((float)((double)fa * (double)fb), c.ts);
        float mult = ref_narrow((float)((double)ab / (double)fy), c.ts);
        double zyv = c.kzy == P_NONE ? 0 : (double)zy[ref_param_index(&c.zy, c.kzy, true, coord, nbo, i)];
        double d = acc * (double)mult + zyv;
        if (d - floor(d) == 0.5) ties++;
        double r = ref_round_half_even(d);
        if (r < (double)lo || r > (double)hi) saturated++;
        want = r < (double)lo ? lo : r > (double)hi ? hi : (int64_t)r;
      }
      if (kt_get_int(&Y, e) != want)
        fail_msg("iter %d op %d element %llu: got %lld, want %lld", iter, c.op, (unsigned long long)e,
                 (long long)kt_get_int(&Y, e), (long long)want);
    }
    elements[c.op] += c.out.count;
    kn_tensor list[] = {Y, A, B, ZA, ZB, ZY, SA, SB, SY};
    for (size_t x = 0; x < sizeof list / sizeof list[0]; x++) kn_tensor_free(&list[x]);
    free(a);
    free(b);
  }
  for (int op = 0; op < 3; op++) assert_true(elements[op] > 3000);
  assert_true(ties > 100);
  assert_true(saturated > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_qmm_matmul_integer_example),
      cmocka_unit_test(test_qmm_qlinear_matmul_example),
      cmocka_unit_test(test_qmm_matmul_integer_wraps),
      cmocka_unit_test(test_qmm_matmul_integer_vectors_and_per_row),
      cmocka_unit_test(test_qmm_dml_by_hand),
      cmocka_unit_test(test_qmm_requantize_rules),
      cmocka_unit_test(test_qmm_onnx_errors),
      cmocka_unit_test(test_qmm_dml_errors),
      cmocka_unit_test(test_qmm_registry_entries),
      cmocka_unit_test(test_qmm_random_against_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
