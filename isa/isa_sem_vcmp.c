/* isa_sem_vcmp — Compare on UB (docs/ISA.md §vector): one bit per element, bit n of dst (byte
 * n / 8, bit n % 8, little-endian) = src0[n] <cmp_mode> src1[n] for element n = r * P + i.
 *
 * As Ascend documents for A2: the mask bits are not used in normal mode (every lane of each of
 * repeat_times repeats is compared), and in counter mode only whole repeats are compared (the
 * last count % P elements are left out). fp16 and fp32 in every mode (IEEE comparisons: NaN
 * compares unequal to everything, -0 equals +0), int32 with eq only. */
#include "isa/isa_vec.h"

#define CMP_TYPES (ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_FP32) | ISA_DTBIT(ISA_INT32))

static uint32_t lanes(const isa_fmt_vcmp *p) { return ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype); }

static isa_vshape shape(const isa_fmt_vcmp *p) {
  uint32_t n = lanes(p);
  uint32_t repeats = p->mask_mode == ISA_VMASK_COUNTER ? (uint32_t)(p->mask_lo / n) : p->repeat_times;
  isa_vshape s = isa_vshape_of(ISA_VMASK_COUNTER, 0, (uint64_t)repeats * n, 0, n);
  return s;
}

/* The result bytes: one "lane" of P / 8 bytes a repeat, packed. */
static isa_vshape dst_shape(const isa_vshape *s) {
  isa_vshape d = isa_vshape_of(ISA_VMASK_COUNTER, 0, s->repeats, 0, 1);
  return d;
}

static void operands(const isa_fmt_vcmp *p, isa_vopnd o[3]) {
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint32_t bytes = lanes(p) / 8;
  o[0] = isa_vopnd_std(p->src0, es, p->src0_blk_stride, p->src0_rep_stride, 0);
  o[1] = isa_vopnd_std(p->src1, es, p->src1_blk_stride, p->src1_rep_stride, 0);
  o[2] = (isa_vopnd){p->dst.off, bytes, 1, 0, bytes, 1};
}

bool isa_sem_vcmp_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vcmp *p = &in->u.vcmp;
  if (!isa_vec_check_dtype("vcmp", "dtype", p->dtype, CMP_TYPES, f) ||
      !isa_vec_check_ub("vcmp", "src0", p->src0, f) || !isa_vec_check_ub("vcmp", "src1", p->src1, f))
    return false;
  if (p->dtype == ISA_INT32 && p->cmp_mode != ISA_CMP_EQ)
    return isa_fault_set(f, ISA_FAULT_DTYPE, "cmp_mode", p->cmp_mode, ISA_CMP_EQ,
                         "vcmp: int32 compares with eq only, not %s",
                         isa_field_enum_name(ISA_FK_CMP, p->cmp_mode));
  /* normal mode: the mask is not used on A2, so any bits are accepted */
  return p->mask_mode != ISA_VMASK_COUNTER ||
         isa_vshape_check("vcmp", p->mask_mode, p->mask_hi, p->mask_lo, lanes(p), f);
}

size_t isa_sem_vcmp_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vcmp), d = dst_shape(&s);
  const isa_vshape *shapes[3] = {&s, &s, &d};
  isa_vopnd o[3];
  operands(&in->u.vcmp, o);
  return isa_vec_ranges(o, shapes, 3, out);
}

void isa_sem_vcmp_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vcmp), d = dst_shape(&s);
  const isa_vshape *shapes[3] = {&s, &s, &d};
  isa_vopnd o[3];
  operands(&in->u.vcmp, o);
  isa_vec_work(&s, ISA_VCLASS_SIMPLE, ISA_UINT8, o, shapes, 3, w);
}

static bool compare(uint32_t dtype, isa_cmp_mode mode, uint32_t a, uint32_t b) {
  if (dtype == ISA_INT32) return a == b;
  float x = isa_vec_to_f32(dtype, a), y = isa_vec_to_f32(dtype, b);
  switch (mode) {
    case ISA_CMP_LT: return x < y;
    case ISA_CMP_GT: return x > y;
    case ISA_CMP_EQ: return x == y;
    case ISA_CMP_LE: return x <= y;
    case ISA_CMP_GE: return x >= y;
    default: return x != y;
  }
}

void isa_sem_vcmp_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vcmp *p = &in->u.vcmp;
  isa_vshape s = shape(p), ds = dst_shape(&s);
  isa_vopnd o[3];
  operands(p, o);
  unsigned es = isa_vec_elem_bytes(p->dtype);
  uint8_t *a[ISA_VEC_MAX_LANES], *b[ISA_VEC_MAX_LANES], *d[ISA_VEC_MAX_LANES];
  uint8_t bits[ISA_VEC_MAX_LANES / 8];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, &o[0], r, a);
    isa_vec_lanes(m, &s, &o[1], r, b);
    for (uint32_t i = 0; i < s.lanes / 8; i++) bits[i] = 0;
    for (uint32_t i = 0; i < s.lanes; i++)
      if (compare(p->dtype, (isa_cmp_mode)p->cmp_mode, (uint32_t)isa_le_load(a[i], es),
                  (uint32_t)isa_le_load(b[i], es)))
        bits[i / 8] |= (uint8_t)(1u << (i % 8));
    isa_vec_lanes(m, &ds, &o[2], r, d);
    for (uint32_t i = 0; i < s.lanes / 8; i++) d[0][i] = bits[i];
  }
}
