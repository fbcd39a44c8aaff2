/* isa_sem_vbinary — element-wise binary operations on UB (docs/ISA.md §vector): vadd, vsub,
 * vmul, vdiv, vmax, vmin; dst = src0 op src1 lane by lane (arithmetic in isa_vec.h). */
#include "isa/isa_vec.h"

#define ARITH_TYPES (ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_FP32) | ISA_DTBIT(ISA_INT16) | ISA_DTBIT(ISA_INT32))
#define FLOAT_TYPES (ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_FP32))

/* Each instruction, indexed by opcode: its arithmetic, rate class and the types Ascend's A2
 * accepts. */
static const struct {
  isa_vec_arith k;
  isa_vclass cls;
  uint32_t types;
} rows[ISA_OP_COUNT] = {
    [ISA_OP_VADD] = {ISA_VEC_ADD, ISA_VCLASS_SIMPLE, ARITH_TYPES},
    [ISA_OP_VSUB] = {ISA_VEC_SUB, ISA_VCLASS_SIMPLE, ARITH_TYPES},
    [ISA_OP_VMUL] = {ISA_VEC_MUL, ISA_VCLASS_SIMPLE, ARITH_TYPES},
    [ISA_OP_VDIV] = {ISA_VEC_DIV, ISA_VCLASS_DIV, FLOAT_TYPES},
    [ISA_OP_VMAX] = {ISA_VEC_MAX, ISA_VCLASS_SIMPLE, ARITH_TYPES},
    [ISA_OP_VMIN] = {ISA_VEC_MIN, ISA_VCLASS_SIMPLE, ARITH_TYPES},
};

static isa_vshape shape(const isa_fmt_vbinary *p) {
  return isa_vshape_of(p->mask_mode, p->mask_hi, p->mask_lo, p->repeat_times,
                       ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype));
}

static void operands(const isa_fmt_vbinary *p, isa_vopnd o[3]) {
  unsigned es = isa_vec_elem_bytes(p->dtype);
  o[0] = isa_vopnd_std(p->src0, es, p->src0_blk_stride, p->src0_rep_stride, 0);
  o[1] = isa_vopnd_std(p->src1, es, p->src1_blk_stride, p->src1_rep_stride, 0);
  o[2] = isa_vopnd_std(p->dst, es, p->dst_blk_stride, p->dst_rep_stride, 1);
}

bool isa_sem_vbinary_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vbinary *p = &in->u.vbinary;
  const char *mn = isa_op_info((isa_op)in->op)->mnemonic;
  return isa_vec_check_dtype(mn, "dtype", p->dtype, rows[in->op].types, f) &&
         isa_vec_check_ub(mn, "src0", p->src0, f) && isa_vec_check_ub(mn, "src1", p->src1, f) &&
         isa_vshape_check(mn, p->mask_mode, p->mask_hi, p->mask_lo,
                          ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype), f);
}

size_t isa_sem_vbinary_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vbinary);
  const isa_vshape *shapes[3] = {&s, &s, &s};
  isa_vopnd o[3];
  operands(&in->u.vbinary, o);
  return isa_vec_ranges(o, shapes, 3, out);
}

void isa_sem_vbinary_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vbinary);
  const isa_vshape *shapes[3] = {&s, &s, &s};
  isa_vopnd o[3];
  operands(&in->u.vbinary, o);
  isa_vec_work(&s, rows[in->op].cls, in->u.vbinary.dtype, o, shapes, 3, w);
}

void isa_sem_vbinary_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vbinary *p = &in->u.vbinary;
  isa_vec_arith k = rows[in->op].k;
  isa_vshape s = shape(p);
  isa_vopnd o[3];
  operands(p, o);
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint8_t *a[ISA_VEC_MAX_LANES], *b[ISA_VEC_MAX_LANES], *d[ISA_VEC_MAX_LANES];
  uint32_t y[ISA_VEC_MAX_LANES];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, &o[0], r, a);
    isa_vec_lanes(m, &s, &o[1], r, b);
    isa_vec_lanes(m, &s, &o[2], r, d);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i])
        y[i] = isa_vec_arith_apply(k, p->dtype, (uint32_t)isa_le_load(a[i], es),
                                   (uint32_t)isa_le_load(b[i], es), m->env.fixpipe_saturation);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i]) isa_le_store(d[i], y[i], es);
  }
}
