/* kn_quant_ops — TensorFlow QuantizeV2 / Dequantize and ONNX QuantizeLinear / DequantizeLinear
 * computed on the host, bit for bit as their sources compute them (docs/QUANT_OPS.md says which
 * source line each rule comes from and every choice made where the sources are silent).
 *
 * Plain library functions: inputs are host tensors (kn_tensor), outputs are allocated here with
 * kn_tensor_alloc and belong to the caller (kn_tensor_free). On error nothing is left allocated
 * and err names the operator, the input and the offending value. The registry entries
 * tf_quantize_v2, tf_dequantize, onnx_quantize_linear and onnx_dequantize_linear (kn_op_quant.c)
 * are thin wrappers around these.
 *
 * Type mapping (.npy carries no quantized types): TensorFlow's qint8/quint8/qint16/quint16/qint32
 * are ISA_INT8/UINT8/INT16/UINT16/INT32; ONNX int4/uint4 are ISA_INT4/UINT4 held one value per
 * byte (an int8/uint8 .npy).
 */
#ifndef KN_QUANT_OPS_H
#define KN_QUANT_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_dtype.h"
#include "kernels/kn_op.h"

/* ---- TensorFlow (tensorflow/core/kernels/quantize_op.cc, dequantize_op.cc) ------------------ */

typedef enum kn_tf_mode { KN_TF_MIN_COMBINED, KN_TF_MIN_FIRST, KN_TF_SCALED } kn_tf_mode;
typedef enum kn_tf_round_mode { KN_TF_HALF_AWAY_FROM_ZERO, KN_TF_HALF_TO_EVEN } kn_tf_round_mode;

/* "qint8" -> ISA_INT8, ... ; ISA_DTYPE_COUNT when not a TensorFlow quantized type name. */
isa_dtype kn_tf_type_from_name(const char *name);
/* ISA_INT8 -> "qint8", ... ; NULL for a type TensorFlow does not quantize to. */
const char *kn_tf_type_name(isa_dtype t);
/* "MIN_COMBINED" -> KN_TF_MIN_COMBINED ...; -1 when unknown. */
int kn_tf_mode_from_name(const char *name);
const char *kn_tf_mode_name(kn_tf_mode m);

typedef struct kn_tf_quantize_params {
  isa_dtype T;                  /* output type: ISA_INT8 (qint8), UINT8, INT16, UINT16, INT32 */
  kn_tf_mode mode;              /* TF default MIN_COMBINED */
  kn_tf_round_mode round_mode;  /* TF default HALF_AWAY_FROM_ZERO; HALF_TO_EVEN needs SCALED */
  bool narrow_range;            /* TF default false */
  int64_t axis;                 /* -1: per tensor (TF default) */
  float ensure_minimum_range;   /* TF default 0.01 */
} kn_tf_quantize_params;

/* QuantizeV2. input fp32; min_range/max_range fp32, one element each (axis -1) or 1-D with one
 * element per slice of `axis`. output: T, the input's shape; output_min/output_max: fp32, scalars
 * (one slice) or min_range's shape. */
cs_status kn_tf_quantize_v2(const kn_tensor *input, const kn_tensor *min_range,
                            const kn_tensor *max_range, const kn_tf_quantize_params *p,
                            kn_tensor *output, kn_tensor *output_min, kn_tensor *output_max,
                            cs_err *err);

typedef struct kn_tf_dequantize_params {
  isa_dtype T;        /* the input's type; ISA_DTYPE_COUNT: take it from the input */
  kn_tf_mode mode;    /* TF default MIN_COMBINED */
  bool narrow_range;  /* SCALED only */
  int64_t axis;       /* -1: per tensor */
  isa_dtype dtype;    /* ISA_FP32 (TF default) or ISA_BF16 (MIN_COMBINED only; held as fp32) */
} kn_tf_dequantize_params;

/* Dequantize. input int8/uint8/int16/uint16/int32; min_range/max_range fp32 with one element per
 * slice (1 when axis is -1). output: dtype, the input's shape. */
cs_status kn_tf_dequantize(const kn_tensor *input, const kn_tensor *min_range,
                           const kn_tensor *max_range, const kn_tf_dequantize_params *p,
                           kn_tensor *output, cs_err *err);

/* ---- ONNX (opset 21: onnx/defs/quantization, onnx/reference/ops/op_*quantize_linear.py) ------ */

typedef struct kn_onnx_quantize_params {
  int64_t axis;          /* default 1; negative counts from the back */
  int64_t saturate;      /* default 1; applies to float8 only, so ignored for integer outputs */
  int64_t block_size;    /* default 0 (per tensor / per axis) */
  isa_dtype output_dtype;/* ISA_DTYPE_COUNT when not given */
} kn_onnx_quantize_params;

/* QuantizeLinear: y = saturate(rne(x / y_scale) + y_zero_point). x fp32/fp16/bf16 and y_scale of
 * the same type; y_zero_point (NULL: 0) int8/uint8/int16/uint16/int4/uint4, or int8/uint8
 * holding int4/uint4 values when output_dtype says so. y: the output type, x's shape. */
cs_status kn_onnx_quantize_linear(const kn_tensor *x, const kn_tensor *y_scale,
                                  const kn_tensor *y_zero_point,
                                  const kn_onnx_quantize_params *p, kn_tensor *y, cs_err *err);

typedef struct kn_onnx_dequantize_params {
  int64_t axis;        /* default 1 */
  int64_t block_size;  /* default 0 */
} kn_onnx_dequantize_params;

/* DequantizeLinear: y = (x - x_zero_point) * x_scale. x int8/uint8/int16/uint16/int32/int4/uint4,
 * x_zero_point (NULL: 0) of x's type; x_scale fp32/fp16/bf16 gives y's type. */
cs_status kn_onnx_dequantize_linear(const kn_tensor *x, const kn_tensor *x_scale,
                                    const kn_tensor *x_zero_point,
                                    const kn_onnx_dequantize_params *p, kn_tensor *y,
                                    cs_err *err);

#endif
