/* isa_sem_vsel — Select on UB (docs/ISA.md §vector): dst = bit ? src0 : src1 (or the scalar),
 * lane by lane, the bits read from sel as vcmp writes them. sel_mode (Ascend's SELMODE):
 *   cmpmask        every repeat uses bits 0 .. P-1 (Ascend keeps them in the CMPMASK register,
 *                  set by a compare or SetCmpMask; cubesim reads them from sel);
 *   tensor_scalar  repeat r uses bits r*P .. r*P+P-1; the second choice is the scalar;
 *   tensor_tensor  repeat r uses bits r*P .. r*P+P-1; the second choice is src1.
 * A data move: the chosen bits are written as they are. Lanes the mask leaves out keep dst. The
 * P / 8 bytes of sel a repeat uses are read whole. */
#include "isa/isa_vec.h"

#define SEL_TYPES (ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_FP32))

static uint32_t lanes(const isa_fmt_vsel *p) { return ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype); }

static isa_vshape shape(const isa_fmt_vsel *p) {
  return isa_vshape_of(p->mask_mode, p->mask_hi, p->mask_lo, p->repeat_times, lanes(p));
}

/* The selection bytes: one "lane" of P / 8 bytes a repeat (the same bytes in cmpmask mode). */
static isa_vshape sel_shape(const isa_vshape *s) { return isa_vshape_of(ISA_VMASK_COUNTER, 0, s->repeats, 0, 1); }

/* src0, src1 (tensor modes), sel, dst; returns the number of operands. */
static size_t operands(const isa_fmt_vsel *p, isa_vopnd o[4], isa_vshape *s, isa_vshape *ss,
                       const isa_vshape *shapes[4]) {
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint32_t bytes = lanes(p) / 8;
  size_t n = 0;
  o[n] = isa_vopnd_std(p->src0, es, p->src0_blk_stride, p->src0_rep_stride, 0);
  shapes[n++] = s;
  if (p->sel_mode != ISA_SEL_TENSOR_SCALAR) {
    o[n] = isa_vopnd_std(p->src1, es, p->src1_blk_stride, p->src1_rep_stride, 0);
    shapes[n++] = s;
  }
  o[n] = (isa_vopnd){p->sel.off, bytes, 1, 0, p->sel_mode == ISA_SEL_CMPMASK ? 0 : bytes, 0};
  shapes[n++] = ss;
  o[n] = isa_vopnd_std(p->dst, es, p->dst_blk_stride, p->dst_rep_stride, 1);
  shapes[n++] = s;
  return n;
}

bool isa_sem_vsel_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vsel *p = &in->u.vsel;
  return isa_vec_check_dtype("vsel", "dtype", p->dtype, SEL_TYPES, f) &&
         isa_vec_check_ub("vsel", "sel", p->sel, f) && isa_vec_check_ub("vsel", "src0", p->src0, f) &&
         (p->sel_mode == ISA_SEL_TENSOR_SCALAR || isa_vec_check_ub("vsel", "src1", p->src1, f)) &&
         isa_vec_check_scalar("vsel", p->scalar, p->dtype, f) &&
         isa_vshape_check("vsel", p->mask_mode, p->mask_hi, p->mask_lo, lanes(p), f);
}

size_t isa_sem_vsel_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vsel), ss = sel_shape(&s);
  const isa_vshape *shapes[4];
  isa_vopnd o[4];
  size_t n = operands(&in->u.vsel, o, &s, &ss, shapes);
  return isa_vec_ranges(o, shapes, n, out);
}

void isa_sem_vsel_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vsel), ss = sel_shape(&s);
  const isa_vshape *shapes[4];
  isa_vopnd o[4];
  size_t n = operands(&in->u.vsel, o, &s, &ss, shapes);
  isa_vec_work(&s, ISA_VCLASS_SIMPLE, in->u.vsel.dtype, o, shapes, n, w);
}

void isa_sem_vsel_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vsel *p = &in->u.vsel;
  isa_vshape s = shape(p), ss = sel_shape(&s);
  const isa_vshape *shapes[4];
  isa_vopnd o[4];
  size_t n = operands(p, o, &s, &ss, shapes);
  bool scalar = p->sel_mode == ISA_SEL_TENSOR_SCALAR;
  const isa_vopnd *src0 = &o[0], *src1 = scalar ? NULL : &o[1], *sel = &o[n - 2], *dst = &o[n - 1];
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint8_t *a[ISA_VEC_MAX_LANES], *b[ISA_VEC_MAX_LANES], *bits[ISA_VEC_MAX_LANES], *d[ISA_VEC_MAX_LANES];
  uint32_t y[ISA_VEC_MAX_LANES];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, src0, r, a);
    if (src1) isa_vec_lanes(m, &s, src1, r, b);
    isa_vec_lanes(m, &ss, sel, r, bits);
    isa_vec_lanes(m, &s, dst, r, d);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i]) {
        bool take0 = (bits[0][i / 8] >> (i % 8)) & 1u;
        y[i] = take0 ? (uint32_t)isa_le_load(a[i], es) : scalar ? (uint32_t)p->scalar : (uint32_t)isa_le_load(b[i], es);
      }
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i]) isa_le_store(d[i], y[i], es);
  }
}
