/* isa_sem_vbrcb — Brcb on UB (docs/ISA.md §vector): repeat r reads the 8 contiguous elements
 * src[8r .. 8r+7] and fills destination block j of the repeat (32 bytes) with copies of
 * src[8r + j]: the per-row value of a column broadcast. */
#include "isa/isa_vec.h"

#define BRCB_LANES 8u /* source elements, and destination blocks, of a repeat */
#define BRCB_TYPES                                                                      \
  (ISA_DTBIT(ISA_INT16) | ISA_DTBIT(ISA_UINT16) | ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_BF16) | \
   ISA_DTBIT(ISA_INT32) | ISA_DTBIT(ISA_FP32))

static isa_vshape shape(const isa_fmt_vbrcb *p) {
  return isa_vshape_of(ISA_VMASK_NORM, 0, (1u << BRCB_LANES) - 1, p->repeat_times, BRCB_LANES);
}

static void operands(const isa_fmt_vbrcb *p, isa_vopnd o[2]) {
  unsigned es = isa_vec_elem_bytes(p->dtype);
  o[0] = (isa_vopnd){p->src.off, es, ISA_VEC_BLOCK_BYTES / es, 0, (uint64_t)BRCB_LANES * es, 0};
  /* a destination lane is a whole block */
  o[1] = (isa_vopnd){p->dst.off, ISA_VEC_BLOCK_BYTES, 1, (uint64_t)p->dst_blk_stride * ISA_VEC_BLOCK_BYTES,
                     (uint64_t)p->dst_rep_stride * ISA_VEC_BLOCK_BYTES, 1};
}

bool isa_sem_vbrcb_check(const isa_insn *in, isa_fault *f) {
  return isa_vec_check_dtype("vbrcb", "dtype", in->u.vbrcb.dtype, BRCB_TYPES, f);
}

size_t isa_sem_vbrcb_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vbrcb);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vbrcb, o);
  return isa_vec_ranges(o, shapes, 2, out);
}

void isa_sem_vbrcb_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vbrcb);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vbrcb, o);
  isa_vec_work(&s, ISA_VCLASS_SIMPLE, in->u.vbrcb.dtype, o, shapes, 2, w);
}

void isa_sem_vbrcb_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vbrcb *p = &in->u.vbrcb;
  isa_vshape s = shape(p);
  isa_vopnd o[2];
  operands(p, o);
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint8_t *a[ISA_VEC_MAX_LANES], *d[ISA_VEC_MAX_LANES];
  uint32_t v[BRCB_LANES];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, &o[0], r, a);
    isa_vec_lanes(m, &s, &o[1], r, d);
    for (uint32_t j = 0; j < BRCB_LANES; j++) v[j] = (uint32_t)isa_le_load(a[j], es);
    for (uint32_t j = 0; j < BRCB_LANES; j++)
      for (uint32_t b = 0; b < ISA_VEC_BLOCK_BYTES; b += es) isa_le_store(d[j] + b, v[j], es);
  }
}
