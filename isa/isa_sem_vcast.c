/* isa_sem_vcast — Cast on UB (docs/ISA.md §vector): dst = src converted to dst_dtype with
 * round_mode (isa/isa_round.h), for the type pairs and modes Ascend lists for A2.
 *
 * A repeat covers 256 bytes of the wider type: P = 256 / max(size(src), size(dst)) lanes, and
 * the mask counts those lanes. Results: a float result is the exact value rounded by the mode;
 * an integer result is rounded by the mode and saturated to the type (Ascend's default), NaN
 * giving 0; fp16 and bf16 results follow CTRL[48] (saturation: Inf to ±max, NaN to 0), else
 * overflow gives what the mode gives (isa_round_to_float). A NaN converted to a float type keeps
 * its sign and the top bits of its payload, quieted (as isa/isa_num.h's conversions do). */
#include <stdio.h>

#include "isa/isa_num.h"
#include "isa/isa_round.h"
#include "isa/isa_vec.h"

#define M(r) (1u << ISA_ROUND_##r)
#define FIVE (M(RINT) | M(FLOOR) | M(CEIL) | M(ROUND) | M(TRUNC))

/* The conversions Ascend's Cast offers on A2 among cubesim's types, with the rounding modes each
 * accepts (int4, int64 and the dequantizing int32 -> fp16 are not modelled: vdeq does the
 * latter). */
static const struct {
  isa_dtype from, to;
  uint32_t modes;
} pairs[] = {
    {ISA_INT8, ISA_FP16, M(NONE)},          {ISA_UINT8, ISA_FP16, M(NONE)},
    {ISA_INT16, ISA_FP16, FIVE | M(NONE)},  {ISA_INT16, ISA_FP32, M(NONE)},
    {ISA_FP16, ISA_INT8, FIVE | M(NONE)},   {ISA_FP16, ISA_UINT8, FIVE | M(NONE)},
    {ISA_FP16, ISA_INT16, FIVE},            {ISA_FP16, ISA_INT32, FIVE},
    {ISA_FP16, ISA_FP32, M(NONE)},          {ISA_BF16, ISA_INT32, FIVE},
    {ISA_BF16, ISA_FP32, M(NONE)},          {ISA_INT32, ISA_INT16, M(NONE)},
    {ISA_INT32, ISA_FP32, FIVE | M(NONE)},  {ISA_FP32, ISA_INT16, FIVE},
    {ISA_FP32, ISA_FP16, FIVE | M(ODD) | M(NONE)}, {ISA_FP32, ISA_BF16, FIVE},
    {ISA_FP32, ISA_INT32, FIVE},            {ISA_FP32, ISA_FP32, FIVE},
};

static int pair_of(uint32_t from, uint32_t to) {
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (pairs[i].from == from && pairs[i].to == to) return (int)i;
  return -1;
}

static bool is_float(uint32_t t) { return t == ISA_FP32 || t == ISA_FP16 || t == ISA_BF16; }

static uint32_t lanes(const isa_fmt_vcast *p) {
  unsigned sb = isa_vec_elem_bytes(p->src_dtype), db = isa_vec_elem_bytes(p->dst_dtype);
  return ISA_VEC_REPEAT_BYTES / (sb > db ? sb : db);
}

static isa_vshape shape(const isa_fmt_vcast *p) {
  return isa_vshape_of(p->mask_mode, p->mask_hi, p->mask_lo, p->repeat_times, lanes(p));
}

static void operands(const isa_fmt_vcast *p, isa_vopnd o[2]) {
  o[0] = isa_vopnd_std(p->src, isa_vec_elem_bytes(p->src_dtype), p->src_blk_stride, p->src_rep_stride, 0);
  o[1] = isa_vopnd_std(p->dst, isa_vec_elem_bytes(p->dst_dtype), p->dst_blk_stride, p->dst_rep_stride, 1);
}

/* "fp16, bf16, ..." : the types `from` converts to, for the fault message. */
static void targets_of(uint32_t from, char *out, size_t n) {
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0] && len < n; i++)
    if (pairs[i].from == from)
      len += (size_t)snprintf(out + len, n - len, "%s%s", len ? ", " : "", isa_dtype_name(pairs[i].to));
}

bool isa_sem_vcast_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vcast *p = &in->u.vcast;
  int k = pair_of(p->src_dtype, p->dst_dtype);
  if (k < 0) {
    char list[96];
    targets_of(p->src_dtype, list, sizeof list);
    return isa_fault_set(f, ISA_FAULT_DTYPE, "dst_dtype", p->dst_dtype, 0,
                         "vcast: no conversion from %s to %s (from %s: %s)",
                         isa_dtype_name((isa_dtype)p->src_dtype),
                         isa_dtype_name((isa_dtype)p->dst_dtype),
                         isa_dtype_name((isa_dtype)p->src_dtype), list[0] ? list : "none");
  }
  if (!((pairs[k].modes >> p->round_mode) & 1u)) {
    char list[96] = "";
    size_t len = 0;
    for (unsigned r = 0; r < ISA_ROUND_COUNT; r++)
      if ((pairs[k].modes >> r) & 1u)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                isa_field_enum_name(ISA_FK_ROUND, r));
    return isa_fault_set(f, ISA_FAULT_DTYPE, "round_mode", p->round_mode, 0,
                         "vcast: %s -> %s does not take round_mode %s (%s)",
                         isa_dtype_name((isa_dtype)p->src_dtype),
                         isa_dtype_name((isa_dtype)p->dst_dtype),
                         isa_field_enum_name(ISA_FK_ROUND, p->round_mode), list);
  }
  return isa_vshape_check("vcast", p->mask_mode, p->mask_hi, p->mask_lo, lanes(p), f);
}

size_t isa_sem_vcast_ranges(const isa_insn *in, isa_range *out) {
  isa_vshape s = shape(&in->u.vcast);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vcast, o);
  return isa_vec_ranges(o, shapes, 2, out);
}

void isa_sem_vcast_work(const isa_insn *in, isa_work *w) {
  isa_vshape s = shape(&in->u.vcast);
  const isa_vshape *shapes[2] = {&s, &s};
  isa_vopnd o[2];
  operands(&in->u.vcast, o);
  isa_vec_work(&s, ISA_VCLASS_SIMPLE, in->u.vcast.dst_dtype, o, shapes, 2, w);
}

/* A NaN element of a float type, converted to float type `to`: sign and payload top bits kept,
 * quieted (through fp32, which holds every fp16 and bf16 NaN payload). */
static uint32_t nan_to(uint32_t to, float nan) {
  if (to == ISA_FP16) return isa_f32_to_f16(nan);
  if (to == ISA_BF16) return isa_f32_to_bf16(nan);
  return isa_f32_bits(nan) | 0x00400000u;
}

static uint32_t convert(uint32_t from, uint32_t to, isa_round_mode mode, uint32_t x, bool sat) {
  double v;
  if (is_float(from)) {
    float fv = isa_vec_to_f32(from, x);
    if (fv != fv) {
      if (!is_float(to)) return 0;
      uint32_t bits = nan_to(to, fv);
      return sat ? isa_vec_saturate(to, bits) : bits;
    }
    v = fv;
  } else {
    v = (double)isa_vec_to_int(from, x);
  }
  if (!is_float(to)) {
    int64_t lo = to == ISA_INT8 ? INT8_MIN : to == ISA_INT16 ? INT16_MIN : to == ISA_INT32 ? INT32_MIN : 0;
    int64_t hi = to == ISA_INT8 ? INT8_MAX : to == ISA_UINT8 ? UINT8_MAX : to == ISA_INT16 ? INT16_MAX : INT32_MAX;
    return isa_vec_from_int(to, isa_round_to_int(v, mode, lo, hi));
  }
  if (from == ISA_FP32 && to == ISA_FP32) v = isa_round_integral(v, mode); /* to an integral value */
  uint32_t bits = isa_round_to_float(v, isa_float_fmt_of((isa_dtype)to), mode);
  return sat ? isa_vec_saturate(to, bits) : bits;
}

void isa_sem_vcast_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vcast *p = &in->u.vcast;
  isa_vshape s = shape(p);
  isa_vopnd o[2];
  operands(p, o);
  unsigned sb = isa_vec_elem_bytes(p->src_dtype), db = isa_vec_elem_bytes(p->dst_dtype);
  uint8_t *a[ISA_VEC_MAX_LANES], *d[ISA_VEC_MAX_LANES];
  uint32_t y[ISA_VEC_MAX_LANES];
  for (uint64_t r = 0; r < s.repeats; r++) {
    isa_vec_lanes(m, &s, &o[0], r, a);
    isa_vec_lanes(m, &s, &o[1], r, d);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i])
        y[i] = convert(p->src_dtype, p->dst_dtype, (isa_round_mode)p->round_mode,
                       (uint32_t)isa_le_load(a[i], sb), m->env.fixpipe_saturation);
    for (uint32_t i = 0; i < s.lanes; i++)
      if (d[i]) isa_le_store(d[i], y[i], db);
  }
}
