/* isa_sem_vcopy — Copy within UB (docs/ISA.md §vector): every enabled lane of dst gets the bits
 * of the same lane of src, as they are (no rounding, no saturation: a data move). Block and
 * repeat strides are 16-bit, so one instruction can scatter the 8 blocks of a repeat across UB —
 * the way Ascend's kernels turn an ND tile into NZ columns in UB, where the blocks' bank groups
 * decide the instruction's time (docs/TIMING.md, "UB bank groups"). */
#include "isa/isa_vec.h"

#define COPY_TYPES                                                                            \
  (ISA_DTBIT(ISA_INT16) | ISA_DTBIT(ISA_UINT16) | ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_BF16) | \
   ISA_DTBIT(ISA_INT32) | ISA_DTBIT(ISA_FP32))

static isa_vshape shape(const isa_fmt_vcopy *p) {
  return isa_vshape_of(p->mask_mode, p->mask_hi, p->mask_lo, p->repeat_times,
                       ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype));
}

static void operands(const isa_fmt_vcopy *p, isa_vopnd o[2]) {
  unsigned es = isa_vec_elem_bytes(p->dtype);
  o[0] = isa_vopnd_std(p->src, es, p->src_blk_stride, p->src_rep_stride, 0);
  o[1] = isa_vopnd_std(p->dst, es, p->dst_blk_stride, p->dst_rep_stride, 1);
}

bool isa_sem_vcopy_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vcopy *p = &in->u.vcopy;
  return isa_vec_check_dtype("vcopy", "dtype", p->dtype, COPY_TYPES, f) &&
         isa_vshape_check("vcopy", p->mask_mode, p->mask_hi, p->mask_lo,
                          ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype), f);
}

size_t isa_sem_vcopy_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vcopy);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vcopy, o);
  return isa_vec_ranges(o, shapes, 2, out);
}

void isa_sem_vcopy_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vcopy);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vcopy, o);
  isa_vec_work(&s, ISA_VCLASS_SIMPLE, in->u.vcopy.dtype, o, shapes, 2, w);
}

void isa_sem_vcopy_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vcopy *p = &in->u.vcopy;
  isa_vshape s = shape(p);
  isa_vopnd o[2];
  operands(p, o);
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint8_t *a[ISA_VEC_MAX_LANES], *d[ISA_VEC_MAX_LANES];
  uint32_t y[ISA_VEC_MAX_LANES];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, &o[0], r, a);
    isa_vec_lanes(m, &s, &o[1], r, d);
    for (uint32_t i = 0; i < s.lanes; i++) /* every read of the repeat before any write */
      if (d[i]) y[i] = (uint32_t)isa_le_load(a[i], es);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i]) isa_le_store(d[i], y[i], es);
  }
}
