/* isa_sem_vscalar — tensor-scalar operations on UB (docs/ISA.md §vector): vadds, vmuls, vmaxs,
 * vmins; dst = src op scalar lane by lane, the scalar an element of dtype (arithmetic in
 * isa_vec.h, the same as the binary forms'). */
#include "isa/isa_vec.h"

#define ARITH_TYPES (ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_FP32) | ISA_DTBIT(ISA_INT16) | ISA_DTBIT(ISA_INT32))

/* Each instruction, indexed by opcode: its arithmetic. */
static const struct {
  isa_vec_arith k;
} rows[ISA_OP_COUNT] = {
    [ISA_OP_VADDS] = {ISA_VEC_ADD},
    [ISA_OP_VMULS] = {ISA_VEC_MUL},
    [ISA_OP_VMAXS] = {ISA_VEC_MAX},
    [ISA_OP_VMINS] = {ISA_VEC_MIN},
};

static isa_vshape shape(const isa_fmt_vscalar *p) {
  return isa_vshape_of(p->mask_mode, p->mask_hi, p->mask_lo, p->repeat_times,
                       ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype));
}

static void operands(const isa_fmt_vscalar *p, isa_vopnd o[2]) {
  unsigned es = isa_vec_elem_bytes(p->dtype);
  o[0] = isa_vopnd_std(p->src, es, p->src_blk_stride, p->src_rep_stride, 0);
  o[1] = isa_vopnd_std(p->dst, es, p->dst_blk_stride, p->dst_rep_stride, 1);
}

bool isa_sem_vscalar_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vscalar *p = &in->u.vscalar;
  const char *mn = isa_op_info((isa_op)in->op)->mnemonic;
  return isa_vec_check_dtype(mn, "dtype", p->dtype, ARITH_TYPES, f) &&
         isa_vec_check_scalar(mn, p->scalar, p->dtype, f) &&
         isa_vshape_check(mn, p->mask_mode, p->mask_hi, p->mask_lo,
                          ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype), f);
}

size_t isa_sem_vscalar_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vscalar);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vscalar, o);
  return isa_vec_ranges(o, shapes, 2, out);
}

void isa_sem_vscalar_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vscalar);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vscalar, o);
  isa_vec_work(&s, ISA_VCLASS_SIMPLE, in->u.vscalar.dtype, o, shapes, 2, w);
}

void isa_sem_vscalar_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vscalar *p = &in->u.vscalar;
  isa_vec_arith k = rows[in->op].k;
  isa_vshape s = shape(p);
  isa_vopnd o[2];
  operands(p, o);
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint32_t scalar = (uint32_t)p->scalar;
  uint8_t *a[ISA_VEC_MAX_LANES], *d[ISA_VEC_MAX_LANES];
  uint32_t y[ISA_VEC_MAX_LANES];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, &o[0], r, a);
    isa_vec_lanes(m, &s, &o[1], r, d);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i])
        y[i] = isa_vec_arith_apply(k, p->dtype, (uint32_t)isa_le_load(a[i], es), scalar,
                                   m->env.fixpipe_saturation);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i]) isa_le_store(d[i], y[i], es);
  }
}
