/* kn_op_qmatmul — registry entries of the quantized matrix products onnx_matmul_integer,
 * onnx_qlinear_matmul and dml_quantized_linear_matmul: run multiplies on the simulated cube
 * (kn_qmatmul.c); reference is the exact host computation (kn_qmatmul_ref.c). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "kernels/kn_mm.h"
#include "kernels/kn_op.h"
#include "kernels/kn_qmatmul.h"
#include "kernels/kn_qmatmul_ref.h"

/* The seeded synchronisation bugs of the tests (docs/KERNELS.md). */
#define CROSS_SYNC_ATTR                                                                            \
  {"cross_sync", KN_ATTR_ENUM, "flags", KN_QCORR_SYNC_NAMES,                                       \
   "flags: each int32 tile handed to the AIVs by a cross-core flag; no_wait: the AIVs correct "    \
   "a tile without waiting for it (a race, for the tests)"}

#define GEN_ATTRS(a_name)                                                                          \
  {"precision", KN_ATTR_ENUM, "exact", "exact,fixpipe",                                             \
   "exact: the operator's requantization; fixpipe: REQ8/VREQ8 words, reporting the differences"},   \
  {"m", KN_ATTR_INT, "256", NULL, "rows (generated inputs)"},                                     \
  {"n", KN_ATTR_INT, "256", NULL, "columns (generated inputs)"},                                  \
  {"k", KN_ATTR_INT, "512", NULL, "reduction length (generated inputs)"},                         \
  {"a_dtype", KN_ATTR_ENUM, "uint8", "int8,uint8", "type of " a_name " (generated inputs)"},       \
  {"b_dtype", KN_ATTR_ENUM, "int8", "int8,uint8", "type of the weights (generated inputs)"},       \
  {"per_channel", KN_ATTR_BOOL, "true", NULL, "per-column weight scales (generated inputs)"},      \
  CROSS_SYNC_ATTR,                                                                                 \
  KN_MM_TILING_ATTRS

/* precision=fixpipe was given (MatMulInteger has no such attribute: its products are exact). */
static bool fixpipe_precision(const kn_ctx *ctx) {
  const char *v = NULL;
  cs_err e;
  return kn_attr_given(ctx, "precision") && kn_attr_str(ctx, "precision", &v, &e) == CS_OK && strcmp(v, "fixpipe") == 0;
}

/* The shared pieces of a simulated run: the prepared product, its output and (for the fixpipe
 * precision) the exact reference to compare with. */
static cs_status simulate(kn_ctx *ctx, kn_qmm *q, const char *out_name, isa_dtype a_t, isa_dtype b_t,
                          const kn_tensor *exact_src, cs_err *err) {
  kn_precision prec = fixpipe_precision(ctx) ? KN_PRECISION_FIXPIPE : KN_PRECISION_EXACT;
  const kn_matmul_geom *g = kn_qmm_geom(q);
  kn_tensor *out;
  cs_status st = kn_output_alloc(ctx, out_name, kn_qmm_out_dtype(q), g->out_ndim, g->out_shape, &out, err);
  if (st == CS_OK) st = kn_qmatmul_simulate(ctx, q, a_t, b_t, prec, exact_src, out, err);
  return st;
}

/* ---- generated inputs ------------------------------------------------------------------------ */

/* Deterministic inputs for the three products, named by `names` (a, a_scale, a_zero_point, b,
 * b_scale, b_zero_point, y_scale, y_zero_point; NULL where the operator has none): a of a_dtype
 * over its whole range with its zero point near the middle of the data, b of b_dtype with the
 * usual symmetric weights (zero point 0 for int8, 128 for uint8), per-column scales when
 * per_channel, and an output scale that spreads the results over the output type. */
static cs_status gen_inputs(kn_ctx *ctx, const char *const names[8], bool dml, cs_err *err) {
  static const char *const dims[3] = {"m", "n", "k"};
  int64_t dv[3];
  const char *at, *bt;
  bool per_channel = false;
  cs_status st;
  if ((st = kn_attr_dims(ctx, dims, 3, 1 << 16, dv, err)) || (st = kn_attr_str(ctx, "a_dtype", &at, err)) ||
      (st = kn_attr_str(ctx, "b_dtype", &bt, err)))
    return st;
  if (names[4] && (st = kn_attr_bool(ctx, "per_channel", &per_channel, err))) return st;
  const int64_t m = dv[0], n = dv[1], k = dv[2];
  isa_dtype a_t = isa_dtype_from_name(at), b_t = isa_dtype_from_name(bt);
  uint64_t seed = kn_options(ctx)->seed ? kn_options(ctx)->seed : 1;
  uint32_t pnd = dml ? 4 : 1; /* DirectML parameters are {1,1,1,1}-shaped */
  kn_tensor t;
  uint64_t shape[4];
  /* operands */
  for (int which = 0; which < 2; which++) {
    const char *nm = names[which ? 3 : 0];
    if (kn_input(ctx, nm)) continue;
    isa_dtype dt = which ? b_t : a_t;
    shape[0] = (uint64_t)(which ? k : m);
    shape[1] = (uint64_t)(which ? n : k);
    if ((st = kn_tensor_alloc(&t, nm, dt, 2, shape, err)) != CS_OK) return st;
    for (uint64_t i = 0; i < t.count; i++) {
      if (dt == ISA_UINT8) ((uint8_t *)t.data)[i] = (uint8_t)kn_rng_int(&seed, 0, 255);
      else ((int8_t *)t.data)[i] = (int8_t)kn_rng_int(&seed, -128, 127);
    }
    if ((st = kn_set_input(ctx, nm, &t, err)) != CS_OK) return st;
  }
  /* parameters: scalar or per column, stored as {1,1,1,x} for DirectML */
  for (int i = 1; i < 8; i++) {
    const char *nm = names[i];
    if (!nm || i == 3 || kn_input(ctx, nm)) continue;
    bool is_scale = i == 1 || i == 4 || i == 6, col = per_channel && (i == 4 || i == 5);
    for (uint32_t d = 0; d < pnd; d++) shape[d] = 1;
    if (col) shape[pnd - 1] = (uint64_t)n;
    isa_dtype dt = is_scale ? ISA_FP32 : i == 2 ? a_t : i == 5 ? b_t : ISA_UINT8;
    if ((st = kn_tensor_alloc(&t, nm, dt, pnd, shape, err)) != CS_OK) return st;
    for (uint64_t e = 0; e < t.count; e++) {
      if (i == 1) ((float *)t.data)[e] = 0.02f;
      else if (i == 4) ((float *)t.data)[e] = (float)(0.005 * (0.5 + kn_rng_unit(&seed)));
      else if (i == 6) ((float *)t.data)[e] = (float)(0.02 * 0.005 * 74.0 * 74.0 * sqrt((double)k) / 40.0);
      else if (i == 2) {
        if (a_t == ISA_UINT8) ((uint8_t *)t.data)[e] = 128;
        else ((int8_t *)t.data)[e] = (int8_t)kn_rng_int(&seed, -3, 3);
      } else if (i == 5) {
        if (b_t == ISA_UINT8) ((uint8_t *)t.data)[e] = 128;
        else ((int8_t *)t.data)[e] = 0;
      } else
        ((uint8_t *)t.data)[e] = 128;
    }
    if ((st = kn_set_input(ctx, nm, &t, err)) != CS_OK) return st;
  }
  return CS_OK;
}

static cs_status mmi_make(kn_ctx *ctx, cs_err *err) {
  static const char *const names[8] = {"A", NULL, "a_zero_point", "B", NULL, "b_zero_point", NULL, NULL};
  return gen_inputs(ctx, names, false, err);
}
static cs_status qlm_make(kn_ctx *ctx, cs_err *err) {
  static const char *const names[8] = {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale",
                                       "y_zero_point"};
  return gen_inputs(ctx, names, false, err);
}
static cs_status dml_make(kn_ctx *ctx, cs_err *err) {
  static const char *const names[8] = {"ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor",
                                       "BZeroPointTensor", "OutputScaleTensor", "OutputZeroPointTensor"};
  return gen_inputs(ctx, names, true, err);
}

static const kn_attr_desc mmi_attrs[] = {
    {"m", KN_ATTR_INT, "256", NULL, "rows (generated inputs)"},
    {"n", KN_ATTR_INT, "256", NULL, "columns (generated inputs)"},
    {"k", KN_ATTR_INT, "512", NULL, "reduction length (generated inputs)"},
    {"a_dtype", KN_ATTR_ENUM, "uint8", "int8,uint8", "type of A (generated inputs)"},
    {"b_dtype", KN_ATTR_ENUM, "int8", "int8,uint8", "type of B (generated inputs)"},
    CROSS_SYNC_ATTR,
    KN_MM_TILING_ATTRS,
};
static const kn_attr_desc qlm_attrs[] = {GEN_ATTRS("a")};

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
  return st != CS_OK ? st : kn_output_move(ctx, reference, "Y", &y, err);
}
static cs_status mmi_run(kn_ctx *ctx, cs_err *err) {
  const kn_tensor *A = kn_input(ctx, "A"), *B = kn_input(ctx, "B");
  kn_qmm *q;
  cs_status st = kn_qmm_prepare_matmul_integer(A, B, kn_input(ctx, "a_zero_point"), kn_input(ctx, "b_zero_point"), &q, err);
  if (st != CS_OK) return st;
  st = simulate(ctx, q, "Y", A->dtype, B->dtype, NULL, err);
  kn_qmm_free(q);
  return st;
}
static cs_status mmi_reference(kn_ctx *ctx, cs_err *err) { return mmi_compute(ctx, true, err); }

const kn_op kn_op_onnx_matmul_integer = {
    .name = "onnx_matmul_integer",
    .summary = "ONNX MatMulInteger: int8/uint8 matrix product with zero points -> int32",
    .source = "ONNX operator MatMulInteger (opset 10), onnx/reference/ops/op_matmul_integer.py",
    .simulated = true,
    .inputs = KN_LIST(mmi_inputs),
    .attrs = KN_LIST(mmi_attrs),
    .outputs = KN_LIST(mmi_outputs),
    .run = mmi_run,
    .reference = mmi_reference,
    .make_inputs = mmi_make,
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

static kn_qlinear_matmul_inputs qlm_inputs_of(const kn_ctx *ctx) {
  kn_qlinear_matmul_inputs in = {
      .a = kn_input(ctx, "a"), .a_scale = kn_input(ctx, "a_scale"), .a_zero_point = kn_input(ctx, "a_zero_point"),
      .b = kn_input(ctx, "b"), .b_scale = kn_input(ctx, "b_scale"), .b_zero_point = kn_input(ctx, "b_zero_point"),
      .y_scale = kn_input(ctx, "y_scale"), .y_zero_point = kn_input(ctx, "y_zero_point"),
  };
  return in;
}

static cs_status qlm_compute(kn_ctx *ctx, bool reference, cs_err *err) {
  kn_qlinear_matmul_inputs in = qlm_inputs_of(ctx);
  kn_tensor y;
  cs_status st = kn_onnx_qlinear_matmul(&in, &y, err);
  return st != CS_OK ? st : kn_output_move(ctx, reference, "y", &y, err);
}

static cs_status qlm_run(kn_ctx *ctx, cs_err *err) {
  kn_qlinear_matmul_inputs in = qlm_inputs_of(ctx);
  kn_qmm *q;
  cs_status st = kn_qmm_prepare_qlinear(&in, &q, err);
  if (st != CS_OK) return st;
  kn_tensor exact;
  memset(&exact, 0, sizeof exact);
  if (!kn_options(ctx)->timing_only) st = kn_onnx_qlinear_matmul(&in, &exact, err);
  if (st == CS_OK) st = simulate(ctx, q, "y", in.a->dtype, in.b->dtype, exact.data ? &exact : NULL, err);
  kn_tensor_free(&exact);
  kn_qmm_free(q);
  return st;
}
/* The reference of a fixpipe-precision run is the fixpipe's own arithmetic on the exact
 * accumulators (the difference from the operator's definition is reported by the run). */
static cs_status fixpipe_reference(kn_ctx *ctx, kn_qmm *q, const char *name, isa_dtype a_t, isa_dtype b_t,
                                   cs_err *err) {
  const kn_matmul_geom *g = kn_qmm_geom(q);
  kn_tensor *out;
  cs_status st = kn_reference_alloc(ctx, name, kn_qmm_out_dtype(q), g->out_ndim, g->out_shape, &out, err);
  if (st == CS_OK) st = kn_qmatmul_fixpipe_reference(q, a_t, b_t, kn_options(ctx)->cfg, out, err);
  kn_qmm_free(q);
  return st;
}

static cs_status qlm_reference(kn_ctx *ctx, cs_err *err) {
  if (!fixpipe_precision(ctx)) return qlm_compute(ctx, true, err);
  kn_qlinear_matmul_inputs in = qlm_inputs_of(ctx);
  kn_qmm *q;
  cs_status st = kn_qmm_prepare_qlinear(&in, &q, err);
  return st != CS_OK ? st : fixpipe_reference(ctx, q, "y", in.a->dtype, in.b->dtype, err);
}

const kn_op kn_op_onnx_qlinear_matmul = {
    .name = "onnx_qlinear_matmul",
    .summary = "ONNX QLinearMatMul: quantized matrix product, requantized to int8/uint8",
    .source = "ONNX operator QLinearMatMul (opset 21), onnx/reference/ops/op_qlinear_matmul.py",
    .simulated = true,
    .inputs = KN_LIST(qlm_inputs),
    .attrs = KN_LIST(qlm_attrs),
    .outputs = KN_LIST(qlm_outputs),
    .run = qlm_run,
    .reference = qlm_reference,
    .make_inputs = qlm_make,
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
    GEN_ATTRS("ATensor"),
};
static const kn_io_desc dml_outputs[] = {
    {"OutputTensor", "int8,uint8", false, "{[BatchCount, [ChannelCount,]] M, N}"},
};

static cs_status dml_inputs_of(const kn_ctx *ctx, kn_dml_qmatmul_inputs *out, cs_err *err) {
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
  *out = in;
  return CS_OK;
}

static cs_status dml_compute(kn_ctx *ctx, bool reference, cs_err *err) {
  kn_dml_qmatmul_inputs in;
  cs_status st = dml_inputs_of(ctx, &in, err);
  if (st != CS_OK) return st;
  kn_tensor out;
  st = kn_dml_quantized_linear_matmul(&in, &out, err);
  return st != CS_OK ? st : kn_output_move(ctx, reference, "OutputTensor", &out, err);
}

static cs_status dml_run(kn_ctx *ctx, cs_err *err) {
  kn_dml_qmatmul_inputs in;
  cs_status st = dml_inputs_of(ctx, &in, err);
  kn_qmm *q = NULL;
  if (st == CS_OK) st = kn_qmm_prepare_dml(&in, &q, err);
  if (st != CS_OK) return st;
  kn_tensor exact;
  memset(&exact, 0, sizeof exact);
  if (!kn_options(ctx)->timing_only) st = kn_dml_quantized_linear_matmul(&in, &exact, err);
  if (st == CS_OK) st = simulate(ctx, q, "OutputTensor", in.ATensor->dtype, in.BTensor->dtype, exact.data ? &exact : NULL, err);
  kn_tensor_free(&exact);
  kn_qmm_free(q);
  return st;
}
static cs_status dml_reference(kn_ctx *ctx, cs_err *err) {
  if (!fixpipe_precision(ctx)) return dml_compute(ctx, true, err);
  kn_dml_qmatmul_inputs in;
  kn_qmm *q = NULL;
  cs_status st = dml_inputs_of(ctx, &in, err);
  if (st == CS_OK) st = kn_qmm_prepare_dml(&in, &q, err);
  return st != CS_OK ? st : fixpipe_reference(ctx, q, "OutputTensor", in.ATensor->dtype, in.BTensor->dtype, err);
}

const kn_op kn_op_dml_quantized_linear_matmul = {
    .name = "dml_quantized_linear_matmul",
    .summary = "DirectML QUANTIZED_LINEAR_MATRIX_MULTIPLY: dequantize, matmul, quantize (int8/uint8)",
    .source = "DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC (directml.h, seed 000)",
    .simulated = true,
    .inputs = KN_LIST(dml_inputs),
    .attrs = KN_LIST(dml_attrs),
    .outputs = KN_LIST(dml_outputs),
    .run = dml_run,
    .reference = dml_reference,
    .make_inputs = dml_make,
};
