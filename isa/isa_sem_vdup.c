/* isa_sem_vdup — Duplicate on UB (docs/ISA.md §vector): every enabled lane of dst gets the
 * scalar's bits, as they are. */
#include "isa/isa_vec.h"

#define DUP_TYPES                                                                       \
  (ISA_DTBIT(ISA_INT16) | ISA_DTBIT(ISA_UINT16) | ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_BF16) | \
   ISA_DTBIT(ISA_INT32) | ISA_DTBIT(ISA_FP32))

static isa_vshape shape(const isa_fmt_vdup *p) {
  return isa_vshape_of(p->mask_mode, p->mask_hi, p->mask_lo, p->repeat_times,
                       ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype));
}

static isa_vopnd operand(const isa_fmt_vdup *p) {
  return isa_vopnd_std(p->dst, isa_vec_elem_bytes(p->dtype), p->dst_blk_stride, p->dst_rep_stride, 1);
}

bool isa_sem_vdup_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vdup *p = &in->u.vdup;
  return isa_vec_check_dtype("vdup", "dtype", p->dtype, DUP_TYPES, f) &&
         isa_vec_check_scalar("vdup", p->scalar, p->dtype, f) &&
         isa_vshape_check("vdup", p->mask_mode, p->mask_hi, p->mask_lo,
                          ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype), f);
}

size_t isa_sem_vdup_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vdup);
  const isa_vshape *shapes[1] = {&s};
  isa_vopnd o = operand(&in->u.vdup);
  return isa_vec_ranges(&o, shapes, 1, out);
}

void isa_sem_vdup_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vdup);
  const isa_vshape *shapes[1] = {&s};
  isa_vopnd o = operand(&in->u.vdup);
  isa_vec_work(&s, ISA_VCLASS_SIMPLE, in->u.vdup.dtype, &o, shapes, 1, w);
}

void isa_sem_vdup_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vdup *p = &in->u.vdup;
  isa_vshape s = shape(p);
  isa_vopnd o = operand(p);
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint8_t *d[ISA_VEC_MAX_LANES];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, &o, r, d);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i]) isa_le_store(d[i], p->scalar, es);
  }
}
