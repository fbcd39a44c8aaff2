/* kn_op_qmatmul — registry entries of the quantized matrix products onnx_matmul_integer,
 * onnx_qlinear_matmul and dml_quantized_linear_matmul. For now run computes the exact host result
 * (kn_qmatmul_ref.c), and reference is that same computation; a simulated-cube run replaces run
 * later and keeps these references. */
#include <string.h>

#include "kernels/kn_op.h"
#include "kernels/kn_qmatmul_ref.h"

/* Moves a tensor computed by the library into output `name` (or its reference). */
static cs_status emit(kn_ctx *ctx, bool reference, const char *name, kn_tensor *t, cs_err *err) {
  kn_tensor *dst = NULL;
  cs_status st = reference ? kn_reference_alloc(ctx, name, t->dtype, t->ndim, t->shape, &dst, err)
                           : kn_output_alloc(ctx, name, t->dtype, t->ndim, t->shape, &dst, err);
  if (st == CS_OK) memcpy(dst->data, t->data, t->count * kn_host_elem_bytes(t->dtype));
  kn_tensor_free(t);
  return st;
}

/* ---- onnx_matmul_integer ------------------------------------------------------------------- */

static const kn_io_desc mmi_inputs[] = {
    {"A", "int8,uint8", false, "[..., M, K] (or [K])"},
    {"B", "int8,uint8", false, "[..., K, N] (or [K])"},
    {"a_zero_point", "int8,uint8", true, "A's type: scalar, per row [M] or [..., M, 1] (default 0)"},
    {"b_zero_point", "int8,uint8", true, "B's type: scalar, per column [N] or [..., 1, N] (default 0)"},
};
static const kn_io_desc mmi_outputs[] = {
    {"Y", "int32", false, "(A - a_zero_point) x (B - b_zero_point), int32 (wraps around)"},
};

static cs_status mmi_compute(kn_ctx *ctx, bool reference, cs_err *err) {
  kn_tensor y;
  cs_status st = kn_onnx_matmul_integer(kn_input(ctx, "A"), kn_input(ctx, "B"), kn_input(ctx, "a_zero_point"),
                                        kn_input(ctx, "b_zero_point"), &y, err);
  return st != CS_OK ? st : emit(ctx, reference, "Y", &y, err);
}
static cs_status mmi_run(kn_ctx *ctx, cs_err *err) { return mmi_compute(ctx, false, err); }
static cs_status mmi_reference(kn_ctx *ctx, cs_err *err) { return mmi_compute(ctx, true, err); }

const kn_op kn_op_onnx_matmul_integer = {
    .name = "onnx_matmul_integer",
    .summary = "ONNX MatMulInteger: int8/uint8 matrix product with zero points -> int32",
    .source = "ONNX operator MatMulInteger (opset 10), onnx/reference/ops/op_matmul_integer.py",
    .simulated = false,
    .inputs = mmi_inputs,
    .ninputs = sizeof mmi_inputs / sizeof mmi_inputs[0],
    .attrs = NULL,
    .nattrs = 0,
    .outputs = mmi_outputs,
    .noutputs = sizeof mmi_outputs / sizeof mmi_outputs[0],
    .run = mmi_run,
    .reference = mmi_reference,
    .make_inputs = NULL,
};

/* ---- onnx_qlinear_matmul ------------------------------------------------------------------- */

static const kn_io_desc qlm_inputs[] = {
    {"a", "int8,uint8", false, "[..., M, K] (or [K])"},
    {"a_scale", "fp32,fp16,bf16", false, "scalar, or per row [M] / [..., M, 1]"},
    {"a_zero_point", "int8,uint8", false, "a's type, a_scale's shape"},
    {"b", "int8,uint8", false, "[..., K, N] (or [K])"},
    {"b_scale", "fp32,fp16,bf16", false, "scalar, or per column [N] / [..., 1, N]"},
    {"b_zero_point", "int8,uint8", false, "b's type, b_scale's shape"},
    {"y_scale", "fp32,fp16,bf16", false, "scalar"},
    {"y_zero_point", "int8,uint8", false, "scalar; its type is y's"},
};
static const kn_io_desc qlm_outputs[] = {
    {"y", "int8,uint8", false, "saturate(rne(acc * a_scale * b_scale / y_scale) + y_zero_point)"},
};

static cs_status qlm_compute(kn_ctx *ctx, bool reference, cs_err *err) {
  kn_qlinear_matmul_inputs in = {
      .a = kn_input(ctx, "a"), .a_scale = kn_input(ctx, "a_scale"), .a_zero_point = kn_input(ctx, "a_zero_point"),
      .b = kn_input(ctx, "b"), .b_scale = kn_input(ctx, "b_scale"), .b_zero_point = kn_input(ctx, "b_zero_point"),
      .y_scale = kn_input(ctx, "y_scale"), .y_zero_point = kn_input(ctx, "y_zero_point"),
  };
  kn_tensor y;
  cs_status st = kn_onnx_qlinear_matmul(&in, &y, err);
  return st != CS_OK ? st : emit(ctx, reference, "y", &y, err);
}
static cs_status qlm_run(kn_ctx *ctx, cs_err *err) { return qlm_compute(ctx, false, err); }
static cs_status qlm_reference(kn_ctx *ctx, cs_err *err) { return qlm_compute(ctx, true, err); }

const kn_op kn_op_onnx_qlinear_matmul = {
    .name = "onnx_qlinear_matmul",
    .summary = "ONNX QLinearMatMul: quantized matrix product, requantized to int8/uint8",
    .source = "ONNX operator QLinearMatMul (opset 21), onnx/reference/ops/op_qlinear_matmul.py",
    .simulated = false,
    .inputs = qlm_inputs,
    .ninputs = sizeof qlm_inputs / sizeof qlm_inputs[0],
    .attrs = NULL,
    .nattrs = 0,
    .outputs = qlm_outputs,
    .noutputs = sizeof qlm_outputs / sizeof qlm_outputs[0],
    .run = qlm_run,
    .reference = qlm_reference,
    .make_inputs = NULL,
};

/* ---- dml_quantized_linear_matmul ----------------------------------------------------------- */

static const kn_io_desc dml_inputs[] = {
    {"ATensor", "int8,uint8", false, "{[BatchCount, [ChannelCount,]] M, K}"},
    {"AScaleTensor", "fp32", false, "{1,1,1,1} per tensor or {1,1,M,1} per row (1 to 4 dims)"},
    {"AZeroPointTensor", "int8,uint8", true, "ATensor's type, AScaleTensor's shapes"},
    {"BTensor", "int8,uint8", false, "{[BatchCount, [ChannelCount,]] K, N}"},
    {"BScaleTensor", "fp32", false, "{1,1,1,1} per tensor or {1,1,1,N} per column"},
    {"BZeroPointTensor", "int8,uint8", true, "BTensor's type"},
    {"OutputScaleTensor", "fp32", false, "{1,1,1,1} per tensor or {1,1,M,1} per row"},
    {"OutputZeroPointTensor", "int8,uint8", true, "OutputTensor's type"},
};
static const kn_attr_desc dml_attrs[] = {
    {"OutputDataType", KN_ATTR_ENUM, NULL, "int8,uint8",
     "OutputTensor's DataType (default: OutputZeroPointTensor's, else ATensor's)"},
};
static const kn_io_desc dml_outputs[] = {
    {"OutputTensor", "int8,uint8", false, "{[BatchCount, [ChannelCount,]] M, N}"},
};

static cs_status dml_compute(kn_ctx *ctx, bool reference, cs_err *err) {
  kn_dml_qmatmul_inputs in = {
      .ATensor = kn_input(ctx, "ATensor"), .AScaleTensor = kn_input(ctx, "AScaleTensor"),
      .AZeroPointTensor = kn_input(ctx, "AZeroPointTensor"), .BTensor = kn_input(ctx, "BTensor"),
      .BScaleTensor = kn_input(ctx, "BScaleTensor"), .BZeroPointTensor = kn_input(ctx, "BZeroPointTensor"),
      .OutputScaleTensor = kn_input(ctx, "OutputScaleTensor"),
      .OutputZeroPointTensor = kn_input(ctx, "OutputZeroPointTensor"),
      .output_dtype = ISA_DTYPE_COUNT,
  };
  if (kn_attr_given(ctx, "OutputDataType")) {
    const char *v = NULL;
    cs_status st = kn_attr_str(ctx, "OutputDataType", &v, err);
    if (st != CS_OK) return st;
    in.output_dtype = isa_dtype_from_name(v);
  }
  kn_tensor out;
  cs_status st = kn_dml_quantized_linear_matmul(&in, &out, err);
  return st != CS_OK ? st : emit(ctx, reference, "OutputTensor", &out, err);
}
static cs_status dml_run(kn_ctx *ctx, cs_err *err) { return dml_compute(ctx, false, err); }
static cs_status dml_reference(kn_ctx *ctx, cs_err *err) { return dml_compute(ctx, true, err); }

const kn_op kn_op_dml_quantized_linear_matmul = {
    .name = "dml_quantized_linear_matmul",
    .summary = "DirectML QUANTIZED_LINEAR_MATRIX_MULTIPLY: dequantize, matmul, quantize (int8/uint8)",
    .source = "DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC (directml.h, seed 000)",
    .simulated = false,
    .inputs = dml_inputs,
    .ninputs = sizeof dml_inputs / sizeof dml_inputs[0],
    .attrs = dml_attrs,
    .nattrs = sizeof dml_attrs / sizeof dml_attrs[0],
    .outputs = dml_outputs,
    .noutputs = sizeof dml_outputs / sizeof dml_outputs[0],
    .run = dml_run,
    .reference = dml_reference,
    .make_inputs = NULL,
};
