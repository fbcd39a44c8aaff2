/* kn_quant_ops — TensorFlow QuantizeV2 / Dequantize and ONNX QuantizeLinear / DequantizeLinear on
 * the host, bit for bit (docs/QUANT_OPS.md explains every rule and its source). */
#include "kernels/kn_quant_ops.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa_num.h"

/* Every float expression below is evaluated in binary32, one rounding per operation, as the
 * sources' C++ does it on x86-64 (SSE, FLT_EVAL_METHOD 0). GCC in ISO C mode does not fuse a*b+c
 * (-ffp-contract=off); clang fuses within an expression unless told not to. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- host tensor access ---------------------------------------------------------------- */

static float read_f32(const kn_tensor *t, uint64_t i) {
  if (t->dtype == ISA_FP16) return isa_f16_to_f32(((const uint16_t *)t->data)[i]);
  return ((const float *)t->data)[i]; /* fp32, and bf16 held as fp32 */
}

static void write_f32(kn_tensor *t, uint64_t i, float f) {
  switch (t->dtype) {
    case ISA_FP16: ((uint16_t *)t->data)[i] = isa_f32_to_f16(f); break;
    case ISA_BF16: ((float *)t->data)[i] = isa_bf16_to_f32(isa_f32_to_bf16(f)); break;
    default: ((float *)t->data)[i] = f; break;
  }
}

static bool is_int_type(isa_dtype t) {
  switch (t) {
    case ISA_INT4: case ISA_UINT4: case ISA_INT8: case ISA_UINT8: case ISA_INT16:
    case ISA_UINT16: case ISA_INT32: return true;
    default: return false;
  }
}

static void int_range(isa_dtype t, int64_t *lo, int64_t *hi) {
  switch (t) {
    case ISA_INT4: *lo = ISA_INT4_MIN; *hi = ISA_INT4_MAX; break;
    case ISA_UINT4: *lo = 0; *hi = ISA_UINT4_MAX; break;
    case ISA_INT8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case ISA_UINT8: *lo = 0; *hi = UINT8_MAX; break;
    case ISA_INT16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case ISA_UINT16: *lo = 0; *hi = UINT16_MAX; break;
    default: *lo = INT32_MIN; *hi = INT32_MAX; break;
  }
}

static int64_t read_int(const kn_tensor *t, uint64_t i) {
  const void *p = t->data;
  switch (t->dtype) {
    case ISA_INT4: case ISA_INT8: return ((const int8_t *)p)[i];
    case ISA_UINT4: case ISA_UINT8: return ((const uint8_t *)p)[i];
    case ISA_INT16: return ((const int16_t *)p)[i];
    case ISA_UINT16: return ((const uint16_t *)p)[i];
    default: return ((const int32_t *)p)[i];
  }
}

/* v must lie in the type's range. */
static void write_int(kn_tensor *t, uint64_t i, int64_t v) {
  void *p = t->data;
  switch (t->dtype) {
    case ISA_INT4: case ISA_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case ISA_UINT4: case ISA_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case ISA_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case ISA_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    default: ((int32_t *)p)[i] = (int32_t)v; break;
  }
}

/* The low `bits` bits of v, as a signed or unsigned number (a C++ conversion to a narrower
 * integer, which GCC defines as modular). bits <= 32. */
static int64_t wrap_bits(int64_t v, unsigned bits, bool is_signed) {
  uint64_t mask = (1ull << bits) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (is_signed && (u >> (bits - 1)) != 0) return (int64_t)u - (int64_t)(1ull << bits);
  return (int64_t)u;
}

static uint64_t dims_product(const kn_tensor *t, uint32_t from, uint32_t to) {
  uint64_t p = 1;
  for (uint32_t d = from; d < to; d++) p *= t->shape[d];
  return p;
}

/* Values of a tensor declared as int4/uint4 must fit (an int8 .npy can hold anything). */
static cs_status check_nibbles(const char *op, const char *name, const kn_tensor *t, cs_err *err) {
  if (t->dtype != ISA_INT4 && t->dtype != ISA_UINT4) return CS_OK;
  int64_t lo, hi;
  int_range(t->dtype, &lo, &hi);
  for (uint64_t i = 0; i < t->count; i++) {
    int64_t v = read_int(t, i);
    if (v < lo || v > hi)
      return cs_err_set(err, CS_EINVAL, "%s: %s[%llu] = %lld is outside %s's range [%lld, %lld]",
                        op, name, (unsigned long long)i, (long long)v, isa_dtype_name(t->dtype),
                        (long long)lo, (long long)hi);
  }
  return CS_OK;
}

/* =========================================================================================
 * TensorFlow
 * ========================================================================================= */

typedef struct tf_type {
  isa_dtype dt;
  const char *name;
  unsigned bits;
  bool is_signed;
  int64_t lowest, highest;  /* std::numeric_limits<T>::min() / max() */
} tf_type;

static const tf_type TF_TYPES[] = {
    {ISA_INT8, "qint8", 8, true, INT8_MIN, INT8_MAX},
    {ISA_UINT8, "quint8", 8, false, 0, UINT8_MAX},
    {ISA_INT16, "qint16", 16, true, INT16_MIN, INT16_MAX},
    {ISA_UINT16, "quint16", 16, false, 0, UINT16_MAX},
    {ISA_INT32, "qint32", 32, true, INT32_MIN, INT32_MAX},
};
#define TF_TYPE_COUNT (sizeof TF_TYPES / sizeof TF_TYPES[0])

static const char *const TF_MODE_NAMES[] = {"MIN_COMBINED", "MIN_FIRST", "SCALED"};

static const tf_type *tf_type_of(isa_dtype t) {
  for (size_t i = 0; i < TF_TYPE_COUNT; i++)
    if (TF_TYPES[i].dt == t) return &TF_TYPES[i];
  return NULL;
}

isa_dtype kn_tf_type_from_name(const char *name) {
  for (size_t i = 0; i < TF_TYPE_COUNT; i++)
    if (strcmp(TF_TYPES[i].name, name) == 0) return TF_TYPES[i].dt;
  return ISA_DTYPE_COUNT;
}

const char *kn_tf_type_name(isa_dtype t) {
  const tf_type *q = tf_type_of(t);
  return q ? q->name : NULL;
}

int kn_tf_mode_from_name(const char *name) {
  for (int i = 0; i < 3; i++)
    if (strcmp(TF_MODE_NAMES[i], name) == 0) return i;
  return -1;
}

const char *kn_tf_mode_name(kn_tf_mode m) {
  return (unsigned)m < 3 ? TF_MODE_NAMES[m] : "?";
}

/* std::min / std::max as libstdc++ defines them: (b < a) ? b : a and (a < b) ? b : a. With a
 * NaN the first argument comes back; Eigen's cwiseMin/cwiseMax on floats behave the same. */
static float std_min_f(float a, float b) { return b < a ? b : a; }
static float std_max_f(float a, float b) { return a < b ? b : a; }

/* static_cast<intN_t>(float) / static_cast<uintN_t>(float) as GCC compiles it on x86-64:
 * cvttss2si into a 32-bit register (truncation toward zero; NaN and values outside int32 give
 * 0x80000000), then the low N bits. Eigen's QInt8/QUInt8/QInt16/QUInt16 are built this way from
 * a float, and the int32 casts of MIN_FIRST too. */
static int64_t tf_cast_trunc(float v, const tf_type *t) {
  int64_t i = (v >= -0x1p31f && v < 0x1p31f) ? (int64_t)(int32_t)v : INT32_MIN;
  return wrap_bits(i, t->bits, t->is_signed);
}

/* Eigen's QInt32(float): static_cast<int32_t>(lrint(v)). lrint returns a 64-bit long on x86-64
 * Linux (NaN and values outside int64 give INT64_MIN, whose low 32 bits are 0); the cast keeps the
 * low 32 bits, so 2^31 becomes -2^31. */
static int64_t tf_qint32_from_float(float v) {
  if (!(v >= -0x1p63f && v < 0x1p63f)) return 0;
  return wrap_bits((int64_t)isa_round_half_even(v), 32, true);
}

/* `.cast<T>()` of a float that MIN_COMBINED / SCALED produced. */
static int64_t tf_float_to_T(float v, const tf_type *t) {
  return t->dt == ISA_INT32 ? tf_qint32_from_float(v) : tf_cast_trunc(v, t);
}

/* The range adjustment of QuantizeV2 (QuantizeTensor / QuantizeSlice): the range is widened to
 * contain 0 and to be at least ensure_minimum_range * max(1, |min|, |max|) wide. */
static void tf_adjust_range(float in_min, float in_max, float ensure_minimum_range,
                            float *min_range, float *max_range) {
  float mn = std_min_f(0.0f, in_min);
  float epsilon = std_max_f(1.0f, std_max_f(fabsf(in_min), fabsf(in_max))) * ensure_minimum_range;
  float widened = mn + epsilon;
  *min_range = mn;
  *max_range = std_max_f(0.0f, std_max_f(in_max, widened));
}

/* One slice's constants, from its (input) min and max. */
typedef struct tf_qslice {
  const tf_type *t;
  kn_tf_mode mode;
  kn_tf_round_mode round_mode;
  float clamp_min, clamp_max;  /* MIN_COMBINED / SCALED: the input is limited to this range */
  float scale_factor;          /* MIN_COMBINED / SCALED */
  float half_range;            /* MIN_COMBINED, signed T */
  float range_scale;           /* MIN_FIRST (FloatToQuantizedStruct) */
  float min_offset;            /* MIN_FIRST: range_min_scaled - lowest_quantized */
  float lower_bound, upper_bound;
  float out_min, out_max;      /* output_min / output_max */
} tf_qslice;

static void tf_qslice_init(tf_qslice *s, const kn_tf_quantize_params *p, const tf_type *t,
                           float in_min, float in_max) {
  memset(s, 0, sizeof *s);
  s->t = t;
  s->mode = p->mode;
  s->round_mode = p->round_mode;
  float mn, mx;
  tf_adjust_range(in_min, in_max, p->ensure_minimum_range, &mn, &mx);
  s->out_min = mn;
  s->out_max = mx;
  s->clamp_min = mn;
  s->clamp_max = mx;
  if (p->mode == KN_TF_MIN_COMBINED) {
    /* (double(max_T) - double(min_T)) / (max_range - min_range): the float difference is
     * promoted, the quotient rounded to float once. half_range_ = (max_T - min_T + 1) / 2. */
    float range = mx - mn;
    s->scale_factor = (float)(((double)t->highest - (double)t->lowest) / (double)range);
    s->half_range = t->is_signed ? (float)(((double)t->highest - (double)t->lowest + 1.0) / 2.0) : 0.0f;
  } else if (p->mode == KN_TF_SCALED) {
    int64_t min_output = t->lowest + (p->narrow_range ? 1 : 0);
    float min_out = (float)min_output, max_out = (float)t->highest; /* int -> float, RNE */
    float from_min = (min_out * mn > 0) ? min_out / mn : FLT_MAX;
    float from_max = (max_out * mx > 0) ? max_out / mx : FLT_MAX;
    float sf = std_min_f(from_min, from_max);
    s->scale_factor = sf;
    s->clamp_min = s->out_min = min_out / sf;
    s->clamp_max = s->out_max = max_out / sf;
  } else { /* MIN_FIRST: FloatToQuantizedStruct<T>(min_range, max_range) */
    double steps = ldexp(1.0, (int)t->bits);
    float range = mx - mn;
    s->range_scale = (mx == mn) ? 0.0f : (float)((steps - 1.0) / (double)range);
    float scaled_min = mn * s->range_scale;
    float range_min_scaled = (float)isa_round_half_away(scaled_min);
    s->min_offset = range_min_scaled - (float)t->lowest;
    s->lower_bound = std_max_f((float)t->lowest, -2.147483648e+09f);
    s->upper_bound = std_min_f((float)t->highest, +2.147483520e+09f);
  }
}

static int64_t tf_quantize_one(const tf_qslice *s, float x) {
  const tf_type *t = s->t;
  if (s->mode == KN_TF_MIN_COMBINED) {
    float c = std_max_f(std_min_f(x, s->clamp_max), s->clamp_min);
    float shifted = c - s->clamp_min;
    float scaled = shifted * s->scale_factor;
    if (t->is_signed) {
      float v = scaled - s->half_range;
      return tf_float_to_T((float)isa_round_half_away(v), t); /* Eigen .round(): std::round */
    }
    float v = scaled + 0.5f; /* the unsigned path adds 0.5 and truncates: no round() */
    return tf_float_to_T(v, t);
  }
  if (s->mode == KN_TF_SCALED) {
    float c = std_max_f(std_min_f(x, s->clamp_max), s->clamp_min);
    float v = c * s->scale_factor;
    double r = s->round_mode == KN_TF_HALF_TO_EVEN ? isa_round_half_even(v) : isa_round_half_away(v);
    return tf_float_to_T((float)r, t);
  }
  /* MIN_FIRST: QUANTIZE_WITH_EIGEN */
  float scaled = x * s->range_scale;
  float r = (float)isa_round_half_away(scaled);
  float v = r - s->min_offset;
  v = std_max_f(v, s->lower_bound);
  v = std_min_f(v, s->upper_bound);
  int64_t i32 = (v >= -0x1p31f && v < 0x1p31f) ? (int64_t)(int32_t)v : INT32_MIN;
  return wrap_bits(i32, t->bits, t->is_signed);
}

/* Shared shape rules of the min_range / max_range inputs. */
static cs_status tf_check_quantize_ranges(const char *op, const kn_tensor *input,
                                          const kn_tensor *mn, const kn_tensor *mx, int64_t axis,
                                          uint64_t *num_slices, cs_err *err) {
  if (axis < -1)
    return cs_err_set(err, CS_EINVAL, "%s: axis should be at least -1, got %lld", op, (long long)axis);
  *num_slices = 1;
  if (axis > -1) {
    if (axis >= (int64_t)input->ndim)
      return cs_err_set(err, CS_EINVAL,
                        "%s: Axis is on a zero-based index, so its value must always be less than "
                        "number of input's dims, but given axis value was %lld and input's dims was %u",
                        op, (long long)axis, input->ndim);
    *num_slices = input->shape[axis];
    const kn_tensor *r[2] = {mn, mx};
    const char *names[2] = {"min_range", "max_range"};
    for (int i = 0; i < 2; i++) {
      if (r[i]->ndim != 1)
        return cs_err_set(err, CS_EINVAL,
                          "%s: If axis is specified, %s must be a 1-D tensor whose size matches the "
                          "axis dimension of the input and output tensors, but %s dims are %u",
                          op, names[i], names[i], r[i]->ndim);
      if (r[i]->shape[0] != *num_slices)
        return cs_err_set(err, CS_EINVAL,
                          "%s: If axis is specified, %s must be a 1-D tensor whose size matches the "
                          "axis dimension of the input and output tensors, but %s is a 1-D tensor "
                          "of size %llu and input's axis dimension is of size %llu",
                          op, names[i], names[i], (unsigned long long)r[i]->shape[0],
                          (unsigned long long)*num_slices);
    }
  } else {
    if (mn->count != 1)
      return cs_err_set(err, CS_EINVAL,
                        "%s: If axis is not specified, min_range must contain a single float "
                        "element, but it contains %llu elements",
                        op, (unsigned long long)mn->count);
    if (mx->count != 1)
      return cs_err_set(err, CS_EINVAL,
                        "%s: If axis is not specified, max_range must contain a single float "
                        "element, but it contains %llu elements",
                        op, (unsigned long long)mx->count);
  }
  return CS_OK;
}

static cs_status check_dtype(const char *op, const char *name, const kn_tensor *t, isa_dtype want,
                             cs_err *err) {
  if (!t) return cs_err_set(err, CS_EINVAL, "%s: input '%s' is required", op, name);
  if (t->dtype != want)
    return cs_err_set(err, CS_EINVAL, "%s: input '%s' is %s, expected %s", op, name,
                      isa_dtype_name(t->dtype), isa_dtype_name(want));
  return CS_OK;
}

static void free_all(kn_tensor *a, kn_tensor *b, kn_tensor *c) {
  if (a) kn_tensor_free(a);
  if (b) kn_tensor_free(b);
  if (c) kn_tensor_free(c);
}

cs_status kn_tf_quantize_v2(const kn_tensor *input, const kn_tensor *min_range,
                            const kn_tensor *max_range, const kn_tf_quantize_params *p,
                            kn_tensor *output, kn_tensor *output_min, kn_tensor *output_max,
                            cs_err *err) {
  static const char op[] = "tf_quantize_v2";
  memset(output, 0, sizeof *output);
  memset(output_min, 0, sizeof *output_min);
  memset(output_max, 0, sizeof *output_max);
  const tf_type *t = tf_type_of(p->T);
  if (!t)
    return cs_err_set(err, CS_EINVAL, "%s: T is %s, expected one of qint8, quint8, qint16, quint16, qint32",
                      op, isa_dtype_name(p->T));
  if ((unsigned)p->mode > KN_TF_SCALED)
    return cs_err_set(err, CS_EINVAL, "%s: mode %d is not MIN_COMBINED, MIN_FIRST or SCALED", op, (int)p->mode);
  /* The kernel's constructor (quantize_op.cc) refuses this pairing before anything runs. */
  if (p->round_mode == KN_TF_HALF_TO_EVEN && p->mode != KN_TF_SCALED)
    return cs_err_set(err, CS_EINVAL,
                      "%s: Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is '%s'.",
                      op, kn_tf_mode_name(p->mode));
  cs_status st = check_dtype(op, "input", input, ISA_FP32, err);
  if (st == CS_OK) st = check_dtype(op, "min_range", min_range, ISA_FP32, err);
  if (st == CS_OK) st = check_dtype(op, "max_range", max_range, ISA_FP32, err);
  uint64_t slices = 1;
  if (st == CS_OK) st = tf_check_quantize_ranges(op, input, min_range, max_range, p->axis, &slices, err);
  if (st != CS_OK) return st;
  if (slices != 1 && p->mode == KN_TF_MIN_FIRST)
    return cs_err_set(err, CS_EINVAL, "%s: MIN_FIRST mode is not implemented for Quantize with axis != -1.", op);

  const float *mins = min_range->data, *maxs = max_range->data;
  for (uint64_t s = 0; s < slices; s++)
    if (maxs[s] < mins[s]) {
      char where[48] = "";
      if (slices != 1) snprintf(where, sizeof where, " (slice %llu)", (unsigned long long)s);
      return cs_err_set(err, CS_EINVAL,
                        "%s: input_max_range must be larger than input_min_range.%s min_range %.9g, max_range %.9g",
                        op, where, (double)mins[s], (double)maxs[s]);
    }

  st = kn_tensor_alloc(output, "output", t->dt, input->ndim, input->shape, err);
  if (st == CS_OK) {
    /* One slice: scalar outputs; per axis: min_range's shape (quantize_op.cc). */
    uint32_t nd = slices == 1 ? 0 : min_range->ndim;
    st = kn_tensor_alloc(output_min, "output_min", ISA_FP32, nd, min_range->shape, err);
    if (st == CS_OK) st = kn_tensor_alloc(output_max, "output_max", ISA_FP32, nd, min_range->shape, err);
  }
  if (st != CS_OK) {
    free_all(output, output_min, output_max);
    return st;
  }

  uint64_t pre = 1, post = input->count;
  if (slices != 1 || p->axis > -1) {
    int64_t axis = p->axis > -1 ? p->axis : 0;
    pre = dims_product(input, 0, (uint32_t)axis);
    post = dims_product(input, (uint32_t)axis + 1, input->ndim);
  }
  const float *in = input->data;
  for (uint64_t s = 0; s < slices; s++) {
    tf_qslice qs;
    tf_qslice_init(&qs, p, t, mins[s], maxs[s]);
    for (uint64_t a = 0; a < pre; a++)
      for (uint64_t b = 0; b < post; b++) {
        uint64_t e = (a * slices + s) * post + b;
        write_int(output, e, tf_quantize_one(&qs, in[e]));
      }
    ((float *)output_min->data)[s] = qs.out_min;
    ((float *)output_max->data)[s] = qs.out_max;
  }
  return CS_OK;
}

/* One Dequantize slice (DequantizeTensor / DequantizeSlice of dequantize_op.cc). */
typedef struct tf_dqslice {
  const tf_type *t;
  kn_tf_mode mode;
  float half_range, scale_factor, min_range;  /* MIN_COMBINED; SCALED uses scale_factor */
  float base, range_scale;                    /* MIN_FIRST */
} tf_dqslice;

static void tf_dqslice_init(tf_dqslice *s, const kn_tf_dequantize_params *p, const tf_type *t,
                            float min_range, float max_range) {
  memset(s, 0, sizeof *s);
  s->t = t;
  s->mode = p->mode;
  float lowest = (float)t->lowest, highest = (float)t->highest;
  if (p->mode == KN_TF_MIN_COMBINED) {
    float span = highest - lowest;
    s->half_range = t->is_signed ? (span + 1.0f) / 2.0f : 0.0f;
    s->scale_factor = (max_range - min_range) / span;
    s->min_range = min_range;
  } else if (p->mode == KN_TF_SCALED) {
    float min_output = (float)(t->lowest + (p->narrow_range ? 1 : 0));
    if (t->lowest == 0)
      s->scale_factor = max_range / highest;
    else
      s->scale_factor = std_max_f(min_range / min_output, max_range / highest);
  } else { /* MIN_FIRST: QuantizedToFloatStruct<T> and DEQUANTIZE_WITH_EIGEN */
    double steps = ldexp(1.0, (int)t->bits);
    float range = max_range - min_range;
    s->range_scale = (float)((double)range / (steps - 1.0));
    float rounded_min = min_range;
    if (max_range != min_range) {
      float q = min_range / s->range_scale;
      float n = (float)isa_round_half_away(q);
      rounded_min = n * s->range_scale;
    }
    float low_scaled = lowest * s->range_scale;
    s->base = rounded_min - low_scaled;
  }
}

static float tf_dequantize_one(const tf_dqslice *s, int64_t q) {
  float qf = (float)q; /* int -> float, RNE (exact below 2^24) */
  if (s->mode == KN_TF_MIN_COMBINED) {
    float shifted = qf + s->half_range;
    float scaled = shifted * s->scale_factor;
    return scaled + s->min_range;
  }
  if (s->mode == KN_TF_SCALED) return qf * s->scale_factor;
  float scaled = qf * s->range_scale;
  return s->base + scaled;
}

cs_status kn_tf_dequantize(const kn_tensor *input, const kn_tensor *min_range,
                           const kn_tensor *max_range, const kn_tf_dequantize_params *p,
                           kn_tensor *output, cs_err *err) {
  static const char op[] = "tf_dequantize";
  memset(output, 0, sizeof *output);
  if (!input) return cs_err_set(err, CS_EINVAL, "%s: input 'input' is required", op);
  const tf_type *t = tf_type_of(input->dtype);
  if (!t)
    return cs_err_set(err, CS_EINVAL, "%s: input is %s, expected int8 (qint8), uint8 (quint8), int16 "
                      "(qint16), uint16 (quint16) or int32 (qint32)", op, isa_dtype_name(input->dtype));
  if (p->T != ISA_DTYPE_COUNT && p->T != input->dtype) {
    const char *tn = kn_tf_type_name(p->T);
    return cs_err_set(err, CS_EINVAL, "%s: T is %s but input is %s (%s)", op, tn ? tn : isa_dtype_name(p->T),
                      isa_dtype_name(input->dtype), t->name);
  }
  if ((unsigned)p->mode > KN_TF_SCALED)
    return cs_err_set(err, CS_EINVAL, "%s: mode %d is not MIN_COMBINED, MIN_FIRST or SCALED", op, (int)p->mode);
  if (p->dtype != ISA_FP32 && p->dtype != ISA_BF16)
    return cs_err_set(err, CS_EINVAL, "%s: Output type must be bfloat16 or float, is '%s'", op,
                      isa_dtype_name(p->dtype));
  if (p->dtype == ISA_BF16 && p->mode != KN_TF_MIN_COMBINED)
    return cs_err_set(err, CS_EINVAL,
                      "%s: When output type is bfloat16, Mode string must be 'MIN_COMBINED', is '%s'",
                      op, kn_tf_mode_name(p->mode));
  cs_status st = check_dtype(op, "min_range", min_range, ISA_FP32, err);
  if (st == CS_OK) st = check_dtype(op, "max_range", max_range, ISA_FP32, err);
  if (st != CS_OK) return st;
  if (p->axis < -1)
    return cs_err_set(err, CS_EINVAL, "%s: axis should be at least -1, got %lld", op, (long long)p->axis);
  if (p->axis >= (int64_t)input->ndim)
    return cs_err_set(err, CS_EINVAL, "%s: Axis must be less than input dimension(%u), got %lld", op,
                      input->ndim, (long long)p->axis);
  uint64_t slices = p->axis > -1 ? input->shape[p->axis] : 1;
  if (min_range->count != slices)
    return cs_err_set(err, CS_EINVAL,
                      "%s: input_min_tensor must have as many elements as input on the dequantization "
                      "axis (%lld), got %llu, expected %llu",
                      op, (long long)p->axis, (unsigned long long)min_range->count, (unsigned long long)slices);
  if (max_range->count != slices)
    return cs_err_set(err, CS_EINVAL,
                      "%s: input_max_tensor must have as many elements as input on the dequantization "
                      "axis (%lld), got %llu, expected %llu",
                      op, (long long)p->axis, (unsigned long long)max_range->count, (unsigned long long)slices);
  if (slices != 1 && p->mode == KN_TF_MIN_FIRST)
    return cs_err_set(err, CS_EINVAL, "%s: MIN_FIRST mode is not implemented for Dequantize with axis != -1.", op);

  st = kn_tensor_alloc(output, "output", p->dtype, input->ndim, input->shape, err);
  if (st != CS_OK) {
    kn_tensor_free(output);
    return st;
  }
  uint64_t pre = 1, post = input->count;
  if (p->axis > -1) {
    pre = dims_product(input, 0, (uint32_t)p->axis);
    post = dims_product(input, (uint32_t)p->axis + 1, input->ndim);
  }
  const float *mins = min_range->data, *maxs = max_range->data;
  for (uint64_t s = 0; s < slices; s++) {
    tf_dqslice ds;
    tf_dqslice_init(&ds, p, t, mins[s], maxs[s]);
    for (uint64_t a = 0; a < pre; a++)
      for (uint64_t b = 0; b < post; b++) {
        uint64_t e = (a * slices + s) * post + b;
        /* bf16: static_cast<bfloat16>(float), round to nearest even (Eigen's bfloat16). */
        write_f32(output, e, tf_dequantize_one(&ds, read_int(input, e)));
      }
  }
  return CS_OK;
}

/* =========================================================================================
 * ONNX
 * ========================================================================================= */

/* Where each element finds its scale and zero point (onnx/reference/ops/_quant_utils.py). */
typedef enum { Q_PER_TENSOR, Q_PER_AXIS, Q_BLOCKED } qkind;
typedef struct qlayout {
  qkind kind;
  uint64_t dim, inner;  /* x's size along the axis, and the product of the dims after it */
  uint64_t sdim, block; /* blocked: the scale's size along the axis, and block_size */
} qlayout;

static uint64_t qlayout_index(const qlayout *l, uint64_t e) {
  switch (l->kind) {
    case Q_PER_TENSOR: return 0;
    case Q_PER_AXIS: return (e / l->inner) % l->dim;
    default: {
      uint64_t outer = e / (l->dim * l->inner), a = (e / l->inner) % l->dim, r = e % l->inner;
      return (outer * l->sdim + a / l->block) * l->inner + r;
    }
  }
}

static bool same_shape(const kn_tensor *a, const kn_tensor *b) {
  if (a->ndim != b->ndim) return false;
  for (uint32_t d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d]) return false;
  return true;
}

static cs_status onnx_layout(const char *op, const char *scale_name, const char *zp_name,
                             const kn_tensor *x, const kn_tensor *scale, const kn_tensor *zp,
                             int64_t axis, int64_t block_size, qlayout *l, cs_err *err) {
  char ss[96], xs[96], zs[96];
  kn_shape_str(scale, ss, sizeof ss);
  kn_shape_str(x, xs, sizeof xs);
  memset(l, 0, sizeof *l);
  /* The operator spec: the zero point has the scale's shape (a scalar and a [1] both mean one
   * value, as ONNX's own tests mix them). */
  if (zp && !(scale->count == 1 && zp->count == 1) && !same_shape(scale, zp)) {
    kn_shape_str(zp, zs, sizeof zs);
    return cs_err_set(err, CS_EINVAL, "%s: %s shape %s must match %s shape %s", op, zp_name, zs,
                      scale_name, ss);
  }
  if (scale->count == 1) {
    l->kind = Q_PER_TENSOR;
    return CS_OK;
  }
  int64_t r = (int64_t)x->ndim;
  if (axis < -r || axis >= r)
    return cs_err_set(err, CS_EINVAL, "%s: axis %lld is out of range [%lld, %lld] for x of shape %s",
                      op, (long long)axis, (long long)-r, (long long)(r - 1), xs);
  uint32_t ax = (uint32_t)(axis < 0 ? axis + r : axis);
  l->dim = x->shape[ax];
  l->inner = dims_product(x, ax + 1, x->ndim);
  if (block_size == 0) {
    if (scale->ndim != 1)
      return cs_err_set(err, CS_EINVAL,
                        "%s: %s of shape %s must be a scalar or a 1-D tensor for per-axis "
                        "quantization (blocked quantization needs block_size > 0)", op, scale_name, ss);
    if (scale->shape[0] != l->dim)
      return cs_err_set(err, CS_EINVAL, "%s: %s has %llu elements, x %s has %llu along axis %u", op,
                        scale_name, (unsigned long long)scale->shape[0], xs,
                        (unsigned long long)l->dim, ax);
    l->kind = Q_PER_AXIS;
    return CS_OK;
  }
  if (block_size < 0)
    return cs_err_set(err, CS_EINVAL, "%s: block_size must be a positive integer, got %lld", op,
                      (long long)block_size);
  l->kind = Q_BLOCKED;
  l->block = (uint64_t)block_size;
  bool ok = scale->ndim == x->ndim;
  for (uint32_t d = 0; ok && d < x->ndim; d++) {
    uint64_t want = d == ax ? (x->shape[d] + l->block - 1) / l->block : x->shape[d];
    if (scale->shape[d] != want) ok = false;
  }
  if (!ok)
    return cs_err_set(err, CS_EINVAL,
                      "%s: Invalid shapes for Blocked Quantization: %s is %s; for x %s, axis %u and "
                      "block_size %lld it must be x's shape with ceil(%llu / %lld) = %llu along the axis",
                      op, scale_name, ss, xs, ax, (long long)block_size, (unsigned long long)l->dim,
                      (long long)block_size, (unsigned long long)((l->dim + l->block - 1) / l->block));
  l->sdim = scale->shape[ax];
  return CS_OK;
}

static bool is_onnx_float(isa_dtype t) { return t == ISA_FP32 || t == ISA_FP16 || t == ISA_BF16; }

/* x / y_scale in x's type: numpy divides float16 (and ml_dtypes bfloat16) in float32 and rounds
 * the quotient to the narrow type. */
static float onnx_divide(float x, float s, isa_dtype t) {
  float q = x / s;
  if (t == ISA_FP16) return isa_f16_to_f32(isa_f32_to_f16(q));
  if (t == ISA_BF16) return isa_bf16_to_f32(isa_f32_to_bf16(q));
  return q;
}

cs_status kn_onnx_quantize_linear(const kn_tensor *x, const kn_tensor *y_scale,
                                  const kn_tensor *y_zero_point,
                                  const kn_onnx_quantize_params *p, kn_tensor *y, cs_err *err) {
  static const char op[] = "onnx_quantize_linear";
  memset(y, 0, sizeof *y);
  if (!x || !y_scale) return cs_err_set(err, CS_EINVAL, "%s: input '%s' is required", op, x ? "y_scale" : "x");
  if (!is_onnx_float(x->dtype))
    return cs_err_set(err, CS_EINVAL, "%s: x is %s, expected fp32, fp16 or bf16", op, isa_dtype_name(x->dtype));
  if (y_scale->dtype != x->dtype)
    return cs_err_set(err, CS_EINVAL, "%s: y_scale is %s but x is %s (QuantizeLinear-21 gives both type T1)",
                      op, isa_dtype_name(y_scale->dtype), isa_dtype_name(x->dtype));
  isa_dtype out = p->output_dtype;
  if (out != ISA_DTYPE_COUNT && (!is_int_type(out) || out == ISA_INT32))
    return cs_err_set(err, CS_EINVAL, "%s: output_dtype %s is not one of int8, uint8, int16, uint16, int4, uint4",
                      op, isa_dtype_name(out));
  if (y_zero_point) {
    isa_dtype zt = y_zero_point->dtype;
    if (!is_int_type(zt) || zt == ISA_INT32)
      return cs_err_set(err, CS_EINVAL, "%s: y_zero_point is %s, expected int8, uint8, int16, uint16, int4 or uint4",
                        op, isa_dtype_name(zt));
    /* .npy has no 4-bit types: an int8/uint8 zero point stands for int4/uint4 when output_dtype
     * says so (its values are then checked below). */
    bool nibble_storage = (out == ISA_INT4 && zt == ISA_INT8) || (out == ISA_UINT4 && zt == ISA_UINT8);
    if (out != ISA_DTYPE_COUNT && out != zt && !nibble_storage)
      return cs_err_set(err, CS_EINVAL, "%s: output_dtype %s does not match y_zero_point type %s.", op,
                        isa_dtype_name(out), isa_dtype_name(zt));
    if (out == ISA_DTYPE_COUNT) out = zt;
  } else if (out == ISA_DTYPE_COUNT) {
    out = ISA_UINT8; /* neither given: uint8 */
  }
  int64_t lo, hi;
  int_range(out, &lo, &hi);
  if (y_zero_point)
    for (uint64_t i = 0; i < y_zero_point->count; i++) {
      int64_t z = read_int(y_zero_point, i);
      if (z < lo || z > hi)
        return cs_err_set(err, CS_EINVAL, "%s: y_zero_point[%llu] = %lld is outside %s's range [%lld, %lld]",
                          op, (unsigned long long)i, (long long)z, isa_dtype_name(out), (long long)lo, (long long)hi);
    }
  qlayout l;
  cs_status st = onnx_layout(op, "y_scale", "y_zero_point", x, y_scale, y_zero_point, p->axis,
                             p->block_size, &l, err);
  if (st != CS_OK) return st;
  st = kn_tensor_alloc(y, "y", out, x->ndim, x->shape, err);
  if (st != CS_OK) {
    kn_tensor_free(y);
    return st;
  }
  for (uint64_t e = 0; e < x->count; e++) {
    uint64_t si = qlayout_index(&l, e);
    float q = onnx_divide(read_f32(x, e), read_f32(y_scale, si), x->dtype);
    int64_t zp = y_zero_point ? read_int(y_zero_point, si) : 0;
    int64_t v;
    if (isnan(q)) {
      /* The reference's np.rint(NaN).astype(np.int32) is INT32_MIN on x86-64; the zero point is
       * then added in int32 (wrapping) and the sum clipped. */
      v = wrap_bits((int64_t)INT32_MIN + zp, 32, true);
    } else {
      /* Saturation as the spec says, also beyond int32 (where the reference's int32 cast
       * would wrap): rne, then the zero point, then the type's range. */
      double r = isa_round_half_even(q);
      int64_t ri = r >= 0x1p40 ? (int64_t)0x1p40 : r <= -0x1p40 ? -(int64_t)0x1p40 : (int64_t)r;
      v = ri + zp;
    }
    write_int(y, e, isa_clamp_i64(v, lo, hi));
  }
  return CS_OK;
}

/* d rounded to float toward zero with the sticky bit kept (round to odd): rounding that float
 * once more to fp16 or bf16 gives d correctly rounded, as numpy's float64 -> float16 does. */
static float f64_to_f32_odd(double d) {
  float f = (float)d;
  if (isnan(d) || isinf(d) || (double)f == d) return f;
  if (isinf(f)) f = copysignf(FLT_MAX, f);
  uint32_t b = isa_f32_bits(f);
  if (fabs((double)f) > fabs(d)) b -= 1; /* one step toward zero (sign-magnitude) */
  return isa_f32_from_bits(b | 1u);
}

static void write_f64(kn_tensor *t, uint64_t i, double d) {
  if (t->dtype == ISA_FP32)
    ((float *)t->data)[i] = (float)d;
  else
    write_f32(t, i, f64_to_f32_odd(d));
}

cs_status kn_onnx_dequantize_linear(const kn_tensor *x, const kn_tensor *x_scale,
                                    const kn_tensor *x_zero_point,
                                    const kn_onnx_dequantize_params *p, kn_tensor *y,
                                    cs_err *err) {
  static const char op[] = "onnx_dequantize_linear";
  memset(y, 0, sizeof *y);
  if (!x || !x_scale) return cs_err_set(err, CS_EINVAL, "%s: input '%s' is required", op, x ? "x_scale" : "x");
  if (!is_int_type(x->dtype))
    return cs_err_set(err, CS_EINVAL, "%s: x is %s, expected int8, uint8, int16, uint16, int32, int4 or uint4",
                      op, isa_dtype_name(x->dtype));
  if (!is_onnx_float(x_scale->dtype))
    return cs_err_set(err, CS_EINVAL, "%s: x_scale is %s, expected fp32, fp16 or bf16", op,
                      isa_dtype_name(x_scale->dtype));
  if (x_zero_point && x_zero_point->dtype != x->dtype)
    return cs_err_set(err, CS_EINVAL, "%s: Type mismatch %s != %s in DequantizeLinear (x_zero_point must have x's type)",
                      op, isa_dtype_name(x->dtype), isa_dtype_name(x_zero_point->dtype));
  cs_status st = check_nibbles(op, "x", x, err);
  if (st == CS_OK && x_zero_point) st = check_nibbles(op, "x_zero_point", x_zero_point, err);
  qlayout l;
  if (st == CS_OK)
    st = onnx_layout(op, "x_scale", "x_zero_point", x, x_scale, x_zero_point, p->axis, p->block_size, &l, err);
  if (st != CS_OK) return st;
  st = kn_tensor_alloc(y, "y", x_scale->dtype, x->ndim, x->shape, err);
  if (st != CS_OK) {
    kn_tensor_free(y);
    return st;
  }
  for (uint64_t e = 0; e < x->count; e++) {
    uint64_t si = qlayout_index(&l, e);
    int64_t q = read_int(x, e);
    float s = read_f32(x_scale, si);
    if (x->dtype == ISA_INT32 && x_zero_point) {
      /* numpy: float32(x) - int32 zero point is float64, and so is the product. */
      double dx = (double)(float)q - (double)read_int(x_zero_point, si);
      write_f64(y, e, dx * (double)s);
    } else {
      /* float32(x) - zero point is exact below int32; the product is float32. */
      int64_t zp = x_zero_point ? read_int(x_zero_point, si) : 0;
      float dx = (float)(q - zp);
      write_f32(y, e, dx * s);
    }
  }
  return CS_OK;
}
