/* isa_sem_vreduce — ReduceRepeat on UB (docs/ISA.md §vector): vreduce_sum, vreduce_max,
 * vreduce_min reduce the enabled lanes of each repeat to one result, written at
 * dst + r * dst_rep_stride results.
 *
 *   sum      a binary tree over the repeat's P lanes, as Ascend documents (lanes 2i and 2i + 1
 *            added, then the sums pairwise, ...), lanes the mask leaves out counting +0; each
 *            addition rounded to dtype (fp16: as vadd, with CTRL[48]'s saturation). A result is
 *            one element; order is not used.
 *   max/min  the greatest / least enabled lane (IEEE 754-2019 maximum / minimum: a NaN lane
 *            wins, giving the quiet NaN; +0 is above -0), its index the lowest lane holding it,
 *            written per order: value_index and index_value as two elements (the index as an
 *            unsigned integer of the element's width), only_value one element, only_index one
 *            uint32. */
#include <math.h>

#include "isa/isa_vec.h"

#define REDUCE_TYPES (ISA_DTBIT(ISA_FP16) | ISA_DTBIT(ISA_FP32))
#define INDEX_ONLY_BYTES 4u

static uint32_t lanes(const isa_fmt_vreduce *p) { return ISA_VEC_REPEAT_BYTES / isa_vec_elem_bytes(p->dtype); }

static isa_vshape shape(const isa_fmt_vreduce *p) {
  return isa_vshape_of(p->mask_mode, p->mask_hi, p->mask_lo, p->repeat_times, lanes(p));
}

/* Bytes of one result. */
static uint32_t result_bytes(uint32_t op, const isa_fmt_vreduce *p) {
  unsigned es = isa_vec_elem_bytes(p->dtype);
  if (op == ISA_OP_VREDUCE_SUM || p->order == ISA_ORDER_ONLY_VALUE) return es;
  return p->order == ISA_ORDER_ONLY_INDEX ? INDEX_ONLY_BYTES : 2 * es;
}

static isa_vshape dst_shape(const isa_vshape *s) { return isa_vshape_of(ISA_VMASK_COUNTER, 0, s->repeats, 0, 1); }

static void operands(uint32_t op, const isa_fmt_vreduce *p, isa_vopnd o[2]) {
  uint32_t rb = result_bytes(op, p);
  o[0] = isa_vopnd_std(p->src, isa_vec_elem_bytes(p->dtype), p->src_blk_stride, p->src_rep_stride, 0);
  o[1] = (isa_vopnd){p->dst.off, rb, 1, 0, (uint64_t)p->dst_rep_stride * rb, 1};
}

bool isa_sem_vreduce_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vreduce *p = &in->u.vreduce;
  const char *mn = isa_op_info((isa_op)in->op)->mnemonic;
  return isa_vec_check_dtype(mn, "dtype", p->dtype, REDUCE_TYPES, f) &&
         isa_vshape_check(mn, p->mask_mode, p->mask_hi, p->mask_lo, lanes(p), f);
}

size_t isa_sem_vreduce_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vreduce), d = dst_shape(&s);
  const isa_vshape *shapes[2] = {&s, &d};
  isa_vopnd o[2];
  operands(in->op, &in->u.vreduce, o);
  return isa_vec_ranges(o, shapes, 2, out);
}

void isa_sem_vreduce_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vreduce), d = dst_shape(&s);
  const isa_vshape *shapes[2] = {&s, &d};
  isa_vopnd o[2];
  operands(in->op, &in->u.vreduce, o);
  isa_vec_work(&s, ISA_VCLASS_SIMPLE, in->u.vreduce.dtype, o, shapes, 2, w);
}

/* The tree sum of one repeat's lanes (NULL lanes count +0). */
static uint32_t tree_sum(uint32_t dtype, uint8_t *const *lane, uint32_t n, bool sat) {
  unsigned es = isa_vec_elem_bytes(dtype);
  uint32_t v[ISA_VEC_MAX_LANES];
  for (uint32_t i = 0; i < n; i++) v[i] = lane[i] ? (uint32_t)isa_le_load(lane[i], es) : 0;
  for (uint32_t w = n; w > 1; w /= 2)
    for (uint32_t i = 0; i < w / 2; i++) v[i] = isa_vec_arith_apply(ISA_VEC_ADD, dtype, v[2 * i], v[2 * i + 1], sat);
  return v[0];
}

/* Is x beyond b for max (or for min)? +0 is above -0. */
static bool beyond(bool is_max, float x, float b) {
  if (x == b) return x == 0.0f && signbit(x) != signbit(b) && (signbit(b) != 0) == is_max;
  return is_max ? x > b : x < b;
}

/* The extreme enabled lane: its value as a result element, and its index. */
static uint32_t extreme(uint32_t dtype, bool is_max, uint8_t *const *lane, uint32_t n, bool sat,
                        uint32_t *index) {
  unsigned es = isa_vec_elem_bytes(dtype);
  float best = 0.0f;
  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    if (!lane[i]) continue;
    float x = isa_vec_to_f32(dtype, (uint32_t)isa_le_load(lane[i], es));
    if (!any || (best == best && (x != x || beyond(is_max, x, best)))) { /* the first NaN stays */
      best = x;
      *index = i;
      any = true;
    }
  }
  return isa_vec_from_f32(dtype, best, sat);
}

void isa_sem_vreduce_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vreduce *p = &in->u.vreduce;
  isa_vshape s = shape(p), ds = dst_shape(&s);
  isa_vopnd o[2];
  operands(in->op, p, o);
  unsigned es = isa_vec_elem_bytes(p->dtype);
  bool sat = m->env.fixpipe_saturation;
  uint8_t *a[ISA_VEC_MAX_LANES], *d[ISA_VEC_MAX_LANES];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, &o[0], r, a);
    uint32_t value, index = 0;
    if (in->op == ISA_OP_VREDUCE_SUM)
      value = tree_sum(p->dtype, a, s.lanes, sat);
    else
      value = extreme(p->dtype, in->op == ISA_OP_VREDUCE_MAX, a, s.lanes, sat, &index);
    isa_vec_lanes(m, &ds, &o[1], r, d);
    if (in->op == ISA_OP_VREDUCE_SUM || p->order == ISA_ORDER_ONLY_VALUE) {
      isa_le_store(d[0], value, es);
    } else if (p->order == ISA_ORDER_ONLY_INDEX) {
      isa_le_store(d[0], index, INDEX_ONLY_BYTES);
    } else {
      bool value_first = p->order == ISA_ORDER_VALUE_INDEX;
      isa_le_store(d[0], value_first ? value : index, es);
      isa_le_store(d[0] + es, value_first ? index : value, es);
    }
  }
}
