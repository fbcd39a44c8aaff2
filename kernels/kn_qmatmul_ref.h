/* kn_qmatmul_ref — exact host references of the quantized matrix products: ONNX MatMulInteger,
 * ONNX QLinearMatMul and DirectML QUANTIZED_LINEAR_MATRIX_MULTIPLY (seed 000). A simulated-cube
 * version of each runs later and must match these bit for bit; docs/QUANT_OPS.md gives the exact
 * arithmetic order and why.
 *
 * Shapes follow numpy.matmul: A [..., M, K] x B [..., K, N] -> [..., M, N], batch dims broadcast
 * (each pair equal, or one of them 1); ONNX also takes a 1-D A ([K], as [1, K]) or B ([K], as
 * [K, 1]) and drops that dim from the result. Quantization parameters are per tensor (one
 * element), per row of A / of the output (1-D [M] for ONNX, or [..., M, 1]) or per column of B
 * (1-D [N] or [..., 1, N]); leading dims of an N-D parameter broadcast against its operand's
 * batch dims. The int32 accumulation wraps around like numpy's int32 matmul.
 *
 * Outputs are allocated here (kn_tensor_alloc) and belong to the caller; on error nothing is
 * allocated and err names the operator, the input and the value.
 */
#ifndef KN_QMATMUL_REF_H
#define KN_QMATMUL_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "kernels/kn_op.h"

/* The broadcast geometry of one matmul. */
typedef struct kn_matmul_geom {
  uint64_t m, k, n;
  uint32_t batch_ndim;                 /* dims of the broadcast batch */
  uint64_t batch_shape[KN_MAX_DIMS];
  uint64_t batch_count;                /* product of batch_shape (1 without batch) */
  uint32_t out_ndim;
  uint64_t out_shape[KN_MAX_DIMS];
  bool a_vector, b_vector;             /* 1-D A / B promoted to a matrix */
} kn_matmul_geom;

/* Validates the shapes of a and b (op names the operator in messages) and fills g. */
cs_status kn_matmul_geometry(const char *op, const kn_tensor *a, const kn_tensor *b,
                             kn_matmul_geom *g, cs_err *err);
/* Flat element offsets of the A matrix (M x K) and B matrix (K x N) that output batch bi uses. */
void kn_matmul_batch_offsets(const kn_matmul_geom *g, const kn_tensor *a, const kn_tensor *b,
                             uint64_t bi, uint64_t *a_offset, uint64_t *b_offset);

/* The requantization multiplier of QLinearMatMul / DirectML: (a_scale * b_scale) / y_scale,
 * each operation rounded to the scales' type (ISA_FP32, ISA_FP16 or ISA_BF16; the values are
 * given as the floats they hold). */
float kn_qlinear_multiplier(float a_scale, float b_scale, float y_scale, isa_dtype scale_type);
/* One output: rint_half_even(double(acc) * double(multiplier) + zero_point) limited to [lo, hi];
 * a NaN product gives 0 (numpy's float -> int8 cast on x86-64). */
int32_t kn_qlinear_requantize(int32_t acc, float multiplier, int32_t zero_point, int32_t lo,
                              int32_t hi);

/* MatMulInteger (opset 10): Y int32 = (A - a_zero_point) x (B - b_zero_point). A, B int8/uint8;
 * each zero point optional (NULL: 0) and of its operand's type. */
cs_status kn_onnx_matmul_integer(const kn_tensor *A, const kn_tensor *B,
                                 const kn_tensor *a_zero_point, const kn_tensor *b_zero_point,
                                 kn_tensor *Y, cs_err *err);

/* QLinearMatMul (opset 21) inputs, all required, named as in the operator. */
typedef struct kn_qlinear_matmul_inputs {
  const kn_tensor *a, *a_scale, *a_zero_point;
  const kn_tensor *b, *b_scale, *b_zero_point;
  const kn_tensor *y_scale, *y_zero_point;  /* per tensor */
} kn_qlinear_matmul_inputs;

/* y (y_zero_point's type) = saturate(rne(((a - a_zp) x (b - b_zp)) * multiplier) + y_zp). */
cs_status kn_onnx_qlinear_matmul(const kn_qlinear_matmul_inputs *in, kn_tensor *y, cs_err *err);

/* DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC (seed 000), members named as in directml.h;
 * the zero points are optional (NULL: 0). */
typedef struct kn_dml_qmatmul_inputs {
  const kn_tensor *ATensor, *AScaleTensor, *AZeroPointTensor;
  const kn_tensor *BTensor, *BScaleTensor, *BZeroPointTensor;
  const kn_tensor *OutputScaleTensor, *OutputZeroPointTensor;
  /* OutputTensor's data type, ISA_INT8 or ISA_UINT8; ISA_DTYPE_COUNT: OutputZeroPointTensor's
   * type, else ATensor's. */
  isa_dtype output_dtype;
} kn_dml_qmatmul_inputs;

/* OutputTensor = clamp(rne(acc * multiplier) + OutputZeroPoint) with the per-row (A, output) and
 * per-column (B) parameters; A and B 2-D to 4-D of the same rank; a zero scale is an error. */
cs_status kn_dml_quantized_linear_matmul(const kn_dml_qmatmul_inputs *in, kn_tensor *OutputTensor,
                                         cs_err *err);

/* ---- a prepared product, for the simulated kernels ---------------------------------------- */

/* The checks and the broadcast resolution of an operator, without the product: the simulated
 * kernels read operands and parameters from it and requantize exactly as the reference does. */
typedef struct kn_qmm kn_qmm;
cs_status kn_qmm_prepare_matmul_integer(const kn_tensor *A, const kn_tensor *B, const kn_tensor *a_zero_point,
                                        const kn_tensor *b_zero_point, kn_qmm **out, cs_err *err);
cs_status kn_qmm_prepare_qlinear(const kn_qlinear_matmul_inputs *in, kn_qmm **out, cs_err *err);
cs_status kn_qmm_prepare_dml(const kn_dml_qmatmul_inputs *in, kn_qmm **out, cs_err *err);
void kn_qmm_free(kn_qmm *q);
const kn_matmul_geom *kn_qmm_geom(const kn_qmm *q);
/* int32 (MatMulInteger), int8 or uint8. */
isa_dtype kn_qmm_out_dtype(const kn_qmm *q);
bool kn_qmm_requantizes(const kn_qmm *q);

/* The parameters of row r of A / the output, and of column c of B, for one output batch. */
typedef struct kn_qmm_row_params {
  int32_t zero_point;   /* A's */
  float scale;          /* A's (requantizing products) */
  float y_scale;        /* the output's */
  int32_t y_zero_point; /* the output's */
} kn_qmm_row_params;
typedef struct kn_qmm_col_params {
  int32_t zero_point; /* B's */
  float scale;        /* B's */
} kn_qmm_col_params;

/* Output batch bi's A (M x K) and B (K x N), as the stored integers. */
void kn_qmm_operands(const kn_qmm *q, uint64_t bi, int32_t *a, int32_t *b);
/* Output batch bi's M row and N column parameters. */
void kn_qmm_params(const kn_qmm *q, uint64_t bi, kn_qmm_row_params *rows, kn_qmm_col_params *cols);
/* The multiplier of one output element (kn_qlinear_multiplier of its scales). */
float kn_qmm_multiplier(const kn_qmm *q, const kn_qmm_row_params *row, const kn_qmm_col_params *col);
/* The reference's requantization of one int32 accumulator. */
int32_t kn_qmm_requantize(const kn_qmm *q, int32_t acc, const kn_qmm_row_params *row,
                          const kn_qmm_col_params *col);

#endif
