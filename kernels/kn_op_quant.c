/* kn_op_quant — registry entries of the host quantize / dequantize operators of TensorFlow
 * (tf_quantize_v2, tf_dequantize) and ONNX (onnx_quantize_linear, onnx_dequantize_linear): names
 * as in the sources, computation in kn_quant_ops.c. They run on the host: no cycles, no trace;
 * the run is itself the host reference, so they declare no separate one. */
#include <string.h>

#include "kernels/kn_op.h"
#include "kernels/kn_quant_ops.h"

static isa_dtype attr_dtype(const kn_ctx *ctx, const char *name, cs_err *err, cs_status *st) {
  if (!kn_attr_given(ctx, name)) return ISA_DTYPE_COUNT;
  const char *v = NULL;
  *st = kn_attr_str(ctx, name, &v, err);
  if (*st != CS_OK) return ISA_DTYPE_COUNT;
  isa_dtype t = kn_tf_type_from_name(v);
  return t != ISA_DTYPE_COUNT ? t : isa_dtype_from_name(v);
}

/* ---- tf_quantize_v2 ------------------------------------------------------------------------ */

static const kn_io_desc tf_quantize_inputs[] = {
    {"input", "fp32", false, "the float tensor to quantize"},
    {"min_range", "fp32", false, "minimum of the input range: one value, or one per slice of axis (1-D)"},
    {"max_range", "fp32", false, "maximum of the input range: one value, or one per slice of axis (1-D)"},
};
static const kn_attr_desc tf_quantize_attrs[] = {
    {"T", KN_ATTR_ENUM, NULL, "qint8,quint8,qint16,quint16,qint32", "output type (.npy: int8, uint8, int16, uint16, int32)"},
    {"mode", KN_ATTR_ENUM, "MIN_COMBINED", "MIN_COMBINED,MIN_FIRST,SCALED", "quantization mode"},
    {"round_mode", KN_ATTR_ENUM, "HALF_AWAY_FROM_ZERO", "HALF_AWAY_FROM_ZERO,HALF_TO_EVEN", "rounding (HALF_TO_EVEN needs SCALED)"},
    {"narrow_range", KN_ATTR_BOOL, "false", NULL, "SCALED: leave the lowest value of T unused"},
    {"axis", KN_ATTR_INT, "-1", NULL, "dimension quantized per slice; -1: per tensor"},
    {"ensure_minimum_range", KN_ATTR_FLOAT, "0.01", NULL, "minimum range width, relative to max(1, |min|, |max|)"},
};
static const kn_io_desc tf_quantize_outputs[] = {
    {"output", "int8,uint8,int16,uint16,int32", false, "the quantized tensor (type T)"},
    {"output_min", "fp32", false, "the minimum the output's range stands for (scalar, or per slice)"},
    {"output_max", "fp32", false, "the maximum the output's range stands for (scalar, or per slice)"},
};

static cs_status tf_quantize_run(kn_ctx *ctx, cs_err *err) {
  kn_tf_quantize_params p;
  memset(&p, 0, sizeof p);
  const char *t = NULL, *mode = NULL, *round = NULL;
  double emr = 0;
  cs_status st = kn_attr_str(ctx, "T", &t, err);
  if (st == CS_OK) st = kn_attr_str(ctx, "mode", &mode, err);
  if (st == CS_OK) st = kn_attr_str(ctx, "round_mode", &round, err);
  if (st == CS_OK) st = kn_attr_bool(ctx, "narrow_range", &p.narrow_range, err);
  if (st == CS_OK) st = kn_attr_int(ctx, "axis", &p.axis, err);
  if (st == CS_OK) st = kn_attr_float(ctx, "ensure_minimum_range", &emr, err);
  if (st != CS_OK) return st;
  p.T = kn_tf_type_from_name(t);
  p.mode = (kn_tf_mode)kn_tf_mode_from_name(mode);
  p.round_mode = strcmp(round, "HALF_TO_EVEN") == 0 ? KN_TF_HALF_TO_EVEN : KN_TF_HALF_AWAY_FROM_ZERO;
  p.ensure_minimum_range = (float)emr;
  kn_tensor out, out_min, out_max;
  st = kn_tf_quantize_v2(kn_input(ctx, "input"), kn_input(ctx, "min_range"), kn_input(ctx, "max_range"),
                         &p, &out, &out_min, &out_max, err);
  if (st != CS_OK) return st;
  st = kn_output_move(ctx, false, "output", &out, err);
  cs_status st2 = kn_output_move(ctx, false, "output_min", &out_min, err);
  cs_status st3 = kn_output_move(ctx, false, "output_max", &out_max, err);
  return st != CS_OK ? st : st2 != CS_OK ? st2 : st3;
}

const kn_op kn_op_tf_quantize_v2 = {
    .name = "tf_quantize_v2",
    .summary = "TensorFlow QuantizeV2: float -> qint8/quint8/qint16/quint16/qint32 (host)",
    .source = "tensorflow/core/kernels/quantize_op.cc (tf.quantization.quantize)",
    .simulated = false,
    .inputs = KN_LIST(tf_quantize_inputs),
    .attrs = KN_LIST(tf_quantize_attrs),
    .outputs = KN_LIST(tf_quantize_outputs),
    .run = tf_quantize_run,
    .reference = NULL,
    .make_inputs = NULL,
};

/* ---- tf_dequantize ------------------------------------------------------------------------- */

static const kn_io_desc tf_dequantize_inputs[] = {
    {"input", "int8,uint8,int16,uint16,int32", false, "the quantized tensor (qint8, quint8, qint16, quint16, qint32)"},
    {"min_range", "fp32", false, "minimum of the range: one value, or one per slice of axis"},
    {"max_range", "fp32", false, "maximum of the range: one value, or one per slice of axis"},
};
static const kn_attr_desc tf_dequantize_attrs[] = {
    {"T", KN_ATTR_ENUM, NULL, "qint8,quint8,qint16,quint16,qint32", "the input's type (default: from the input)"},
    {"mode", KN_ATTR_ENUM, "MIN_COMBINED", "MIN_COMBINED,MIN_FIRST,SCALED", "quantization mode"},
    {"narrow_range", KN_ATTR_BOOL, "false", NULL, "SCALED: the lowest value of T was left unused"},
    {"axis", KN_ATTR_INT, "-1", NULL, "dimension dequantized per slice; -1: per tensor"},
    {"dtype", KN_ATTR_ENUM, "float32", "float32,bfloat16", "output type (bfloat16 with MIN_COMBINED only; .npy: fp32)"},
};
static const kn_io_desc tf_dequantize_outputs[] = {
    {"output", "fp32,bf16", false, "the dequantized tensor"},
};

static cs_status tf_dequantize_run(kn_ctx *ctx, cs_err *err) {
  kn_tf_dequantize_params p;
  memset(&p, 0, sizeof p);
  const char *mode = NULL, *dtype = NULL;
  cs_status st = CS_OK;
  p.T = attr_dtype(ctx, "T", err, &st);
  if (st == CS_OK) st = kn_attr_str(ctx, "mode", &mode, err);
  if (st == CS_OK) st = kn_attr_bool(ctx, "narrow_range", &p.narrow_range, err);
  if (st == CS_OK) st = kn_attr_int(ctx, "axis", &p.axis, err);
  if (st == CS_OK) st = kn_attr_str(ctx, "dtype", &dtype, err);
  if (st != CS_OK) return st;
  p.mode = (kn_tf_mode)kn_tf_mode_from_name(mode);
  p.dtype = strcmp(dtype, "bfloat16") == 0 ? ISA_BF16 : ISA_FP32;
  kn_tensor out;
  st = kn_tf_dequantize(kn_input(ctx, "input"), kn_input(ctx, "min_range"), kn_input(ctx, "max_range"),
                        &p, &out, err);
  return st != CS_OK ? st : kn_output_move(ctx, false, "output", &out, err);
}

const kn_op kn_op_tf_dequantize = {
    .name = "tf_dequantize",
    .summary = "TensorFlow Dequantize: qint8/quint8/qint16/quint16/qint32 -> float (host)",
    .source = "tensorflow/core/kernels/dequantize_op.cc (tf.quantization.dequantize)",
    .simulated = false,
    .inputs = KN_LIST(tf_dequantize_inputs),
    .attrs = KN_LIST(tf_dequantize_attrs),
    .outputs = KN_LIST(tf_dequantize_outputs),
    .run = tf_dequantize_run,
    .reference = NULL,
    .make_inputs = NULL,
};

/* ---- onnx_quantize_linear ------------------------------------------------------------------ */

static const kn_io_desc onnx_q_inputs[] = {
    {"x", "fp32,fp16,bf16", false, "the full-precision tensor"},
    {"y_scale", "fp32,fp16,bf16", false, "scale (x's type): scalar, 1-D per axis, or blocked"},
    {"y_zero_point", "int8,uint8,int16,uint16,int4,uint4", true, "zero point, y_scale's shape; its type is y's (default uint8 0)"},
};
static const kn_attr_desc onnx_q_attrs[] = {
    {"axis", KN_ATTR_INT, "1", NULL, "axis of per-axis and blocked quantization"},
    {"saturate", KN_ATTR_INT, "1", NULL, "float8 only: ignored for integer outputs"},
    {"block_size", KN_ATTR_INT, "0", NULL, "block size of blocked quantization (0: none)"},
    {"output_dtype", KN_ATTR_ENUM, NULL, "int8,uint8,int16,uint16,int4,uint4", "y's type (default: y_zero_point's, else uint8)"},
};
static const kn_io_desc onnx_q_outputs[] = {
    {"y", "int8,uint8,int16,uint16,int4,uint4", false, "the quantized tensor (int4/uint4: one value per byte)"},
};

static cs_status onnx_q_run(kn_ctx *ctx, cs_err *err) {
  kn_onnx_quantize_params p;
  memset(&p, 0, sizeof p);
  cs_status st = kn_attr_int(ctx, "axis", &p.axis, err);
  if (st == CS_OK) st = kn_attr_int(ctx, "saturate", &p.saturate, err);
  if (st == CS_OK) st = kn_attr_int(ctx, "block_size", &p.block_size, err);
  if (st == CS_OK) p.output_dtype = attr_dtype(ctx, "output_dtype", err, &st);
  if (st != CS_OK) return st;
  kn_tensor y;
  st = kn_onnx_quantize_linear(kn_input(ctx, "x"), kn_input(ctx, "y_scale"), kn_input(ctx, "y_zero_point"),
                               &p, &y, err);
  return st != CS_OK ? st : kn_output_move(ctx, false, "y", &y, err);
}

const kn_op kn_op_onnx_quantize_linear = {
    .name = "onnx_quantize_linear",
    .summary = "ONNX QuantizeLinear-21: y = saturate(rne(x / y_scale) + y_zero_point) (host)",
    .source = "ONNX operator QuantizeLinear (opset 21), onnx/reference/ops/op_quantize_linear.py",
    .simulated = false,
    .inputs = KN_LIST(onnx_q_inputs),
    .attrs = KN_LIST(onnx_q_attrs),
    .outputs = KN_LIST(onnx_q_outputs),
    .run = onnx_q_run,
    .reference = NULL,
    .make_inputs = NULL,
};

/* ---- onnx_dequantize_linear ---------------------------------------------------------------- */

static const kn_io_desc onnx_dq_inputs[] = {
    {"x", "int8,uint8,int16,uint16,int32,int4,uint4", false, "the quantized tensor"},
    {"x_scale", "fp32,fp16,bf16", false, "scale: scalar, 1-D per axis, or blocked; its type is y's"},
    {"x_zero_point", "int8,uint8,int16,uint16,int32,int4,uint4", true, "zero point of x's type, x_scale's shape (default 0)"},
};
static const kn_attr_desc onnx_dq_attrs[] = {
    {"axis", KN_ATTR_INT, "1", NULL, "axis of per-axis and blocked dequantization"},
    {"block_size", KN_ATTR_INT, "0", NULL, "block size of blocked dequantization (0: none)"},
};
static const kn_io_desc onnx_dq_outputs[] = {
    {"y", "fp32,fp16,bf16", false, "the dequantized tensor (x_scale's type)"},
};

static cs_status onnx_dq_run(kn_ctx *ctx, cs_err *err) {
  kn_onnx_dequantize_params p;
  memset(&p, 0, sizeof p);
  cs_status st = kn_attr_int(ctx, "axis", &p.axis, err);
  if (st == CS_OK) st = kn_attr_int(ctx, "block_size", &p.block_size, err);
  if (st != CS_OK) return st;
  kn_tensor y;
  st = kn_onnx_dequantize_linear(kn_input(ctx, "x"), kn_input(ctx, "x_scale"), kn_input(ctx, "x_zero_point"),
                                 &p, &y, err);
  return st != CS_OK ? st : kn_output_move(ctx, false, "y", &y, err);
}

const kn_op kn_op_onnx_dequantize_linear = {
    .name = "onnx_dequantize_linear",
    .summary = "ONNX DequantizeLinear-21: y = (x - x_zero_point) * x_scale (host)",
    .source = "ONNX operator DequantizeLinear (opset 21), onnx/reference/ops/op_dequantize_linear.py",
    .simulated = false,
    .inputs = KN_LIST(onnx_dq_inputs),
    .attrs = KN_LIST(onnx_dq_attrs),
    .outputs = KN_LIST(onnx_dq_outputs),
    .run = onnx_dq_run,
    .reference = NULL,
    .make_inputs = NULL,
};
