/* isa_sem_vunary — element-wise unary operations on UB (docs/ISA.md §vector): vexp, vln (both
 * correctly rounded, isa/isa_vmath.h), vsqrt, vrec, vrelu, vabs; dst = op(src) lane by lane. */
#include <math.h>

#include "isa/isa_fparith.h"
#include "isa/isa_vec.h"
#include "isa/isa_vmath.h"

#define FLOAT_TYPES (ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_FP32))

/* One lane: the result's bits before the fp16 saturation rule (applied by the caller). */
typedef uint32_t (*unary_fn)(uint32_t dtype, uint32_t x);

/* A floating result given as fp32 (correctly rounded, or exact) to the element type. */
static uint32_t from_f32(uint32_t dtype, float y) { return isa_vec_from_f32(dtype, y, false); }

/* Exp flushes subnormal results to +0: Ascend documents its Exp instruction as flush-to-zero. */
static uint32_t op_exp(uint32_t dtype, uint32_t x) {
  isa_float_fmt f = isa_float_fmt_of((isa_dtype)dtype);
  uint32_t y = isa_vmath_exp(isa_vec_to_f32(dtype, x), f);
  return y < (1u << f.mant_bits) ? 0 : y; /* zero or subnormal (the result is never negative) */
}

static uint32_t op_ln(uint32_t dtype, uint32_t x) {
  return isa_vmath_ln(isa_vec_to_f32(dtype, x), isa_float_fmt_of((isa_dtype)dtype));
}

/* sqrt in double is correctly rounded, and rounding it to fp32 (and fp32 to fp16) is innocuous:
 * 53 >= 2 * 24 + 2 (and 24 >= 2 * 11 + 2). sqrt(-0) = -0; below zero: NaN. */
static uint32_t op_sqrt(uint32_t dtype, uint32_t x) {
  double v = isa_vec_to_f32(dtype, x);
  return from_f32(dtype, (float)sqrt(v));
}

static uint32_t op_rec(uint32_t dtype, uint32_t x) {
  return from_f32(dtype, isa_f32_div(1.0f, isa_vec_to_f32(dtype, x)));
}

/* max(x, 0): +0 for every x <= 0 (-0 included); NaN stays NaN. */
static uint32_t op_relu(uint32_t dtype, uint32_t x) {
  if (dtype == ISA_INT32) return (int32_t)x > 0 ? x : 0;
  float v = isa_vec_to_f32(dtype, x);
  return from_f32(dtype, v != v || v > 0.0f ? v : 0.0f);
}

static uint32_t op_abs(uint32_t dtype, uint32_t x) {
  return from_f32(dtype, fabsf(isa_vec_to_f32(dtype, x)));
}

/* Each instruction, indexed by opcode: its lane function, rate class and the types Ascend's A2
 * accepts. */
static const struct {
  unary_fn fn;
  isa_vclass cls;
  uint32_t types;
} rows[ISA_OP_COUNT] = {
    [ISA_OP_VEXP] = {op_exp, ISA_VCLASS_TRANSC, FLOAT_TYPES},
    [ISA_OP_VLN] = {op_ln, ISA_VCLASS_TRANSC, FLOAT_TYPES},
    [ISA_OP_VSQRT] = {op_sqrt, ISA_VCLASS_DIV, FLOAT_TYPES},
    [ISA_OP_VREC] = {op_rec, ISA_VCLASS_DIV, FLOAT_TYPES},
    [ISA_OP_VRELU] = {op_relu, ISA_VCLASS_SIMPLE, FLOAT_TYPES | ISA_DTBIT(ISA_INT32)},
    [ISA_OP_VABS] = {op_abs, ISA_VCLASS_SIMPLE, FLOAT_TYPES},
};

static isa_vshape shape(const isa_fmt_vunary *p) {
  return isa_vshape_of(p->mask_mode, p->mask_hi, p->mask_lo, p->repeat_times,
                       ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype));
}

static void operands(const isa_fmt_vunary *p, isa_vopnd o[2]) {
  unsigned es = isa_vec_elem_bytes(p->dtype);
  o[0] = isa_vopnd_std(p->src, es, p->src_blk_stride, p->src_rep_stride, 0);
  o[1] = isa_vopnd_std(p->dst, es, p->dst_blk_stride, p->dst_rep_stride, 1);
}

bool isa_sem_vunary_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vunary *p = &in->u.vunary;
  const char *mn = isa_op_info((isa_op)in->op)->mnemonic;
  return isa_vec_check_dtype(mn, "dtype", p->dtype, rows[in->op].types, f) &&
         isa_vshape_check(mn, p->mask_mode, p->mask_hi, p->mask_lo,
                          ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype), f);
}

size_t isa_sem_vunary_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vunary);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vunary, o);
  return isa_vec_ranges(o, shapes, 2, out);
}

void isa_sem_vunary_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vunary);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vunary, o);
  isa_vec_work(&s, rows[in->op].cls, in->u.vunary.dtype, o, shapes, 2, w);
}

void isa_sem_vunary_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vunary *p = &in->u.vunary;
  unary_fn fn = rows[in->op].fn;
  bool sat = p->dtype == ISA_FP16 && m->env.fixpipe_saturation;
  isa_vshape s = shape(p);
  isa_vopnd o[2];
  operands(p, o);
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint8_t *a[ISA_VEC_MAX_LANES], *d[ISA_VEC_MAX_LANES];
  uint32_t y[ISA_VEC_MAX_LANES];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, &o[0], r, a);
    isa_vec_lanes(m, &s, &o[1], r, d);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i]) {
        y[i] = fn(p->dtype, (uint32_t)isa_le_load(a[i], es));
        if (sat) y[i] = isa_vec_saturate(p->dtype, y[i]);
      }
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i]) isa_le_store(d[i], y[i], es);
  }
}
