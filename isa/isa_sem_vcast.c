/* isa_sem_vcast — vector type conversion on UB (docs/ISA.md §vector): fp32 <-> fp16 / bf16,
 * int32 <-> fp32, round to nearest even, IEEE overflow (the saturation switch is the fixpipe's).
 *
 * Elements are converted in increasing order, each read just before its result is written: an
 * in-place conversion to a type no wider than the source works. */
#include <stdint.h>

#include "isa/isa_insn.h"
#include "isa/isa_num.h"

/* The conversions vcast offers. */
static const struct {
  isa_dtype from, to;
} vcast_pairs[] = {
    {ISA_FP32, ISA_FP16}, {ISA_FP32, ISA_BF16}, {ISA_FP16, ISA_FP32},
    {ISA_BF16, ISA_FP32}, {ISA_INT32, ISA_FP32}, {ISA_FP32, ISA_INT32},
};

static bool vcast_pair_ok(uint32_t from, uint32_t to) {
  for (size_t i = 0; i < sizeof vcast_pairs / sizeof vcast_pairs[0]; i++)
    if (vcast_pairs[i].from == from && vcast_pairs[i].to == to) return true;
  return false;
}

static uint64_t elem_bytes(uint32_t dt) { return isa_dtype_bits((isa_dtype)dt) / 8; }

bool isa_sem_vcast_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vcast *p = &in->u.vcast;
  if (!vcast_pair_ok(p->src_dtype, p->dst_dtype))
    return isa_fault_set(f, ISA_FAULT_DTYPE, "dst_dtype", p->dst_dtype, 0,
                         "vcast: no conversion from %s to %s (fp32->fp16, fp32->bf16, "
                         "fp16->fp32, bf16->fp32, int32->fp32, fp32->int32)",
                         isa_dtype_name((isa_dtype)p->src_dtype),
                         isa_dtype_name((isa_dtype)p->dst_dtype));
  return true;
}

size_t isa_sem_vcast_ranges(const isa_insn *in, isa_range *out) {
  const isa_fmt_vcast *p = &in->u.vcast;
  uint64_t sb = p->count * elem_bytes(p->src_dtype), db = p->count * elem_bytes(p->dst_dtype);
  out[0] = (isa_range){ISA_MEM_UB, 0, p->src.off, sb, sb, 1};
  out[1] = (isa_range){ISA_MEM_UB, 1, p->dst.off, db, db, 1};
  return 2;
}

void isa_sem_vcast_work(const isa_insn *in, isa_work *w) {
  const isa_fmt_vcast *p = &in->u.vcast;
  w->path = ISA_PATH_VECTOR;
  w->elements = p->count;
  /* a vector repeat covers 256 B of the wider operand (isa_work): fp32 -> fp16 counts 4 B */
  uint64_t sb = elem_bytes(p->src_dtype), db = elem_bytes(p->dst_dtype);
  w->bytes = p->count * (sb > db ? sb : db);
  w->dtype = p->dst_dtype;
}

/* One element: from the source bits to the destination bits. */
static uint32_t convert(uint32_t from, uint32_t to, uint32_t x) {
  switch (from) {
    case ISA_FP16: return isa_f32_bits(isa_f16_to_f32((uint16_t)x));
    case ISA_BF16: return isa_f32_bits(isa_bf16_to_f32((uint16_t)x));
    case ISA_INT32: return isa_f32_bits(isa_i32_to_f32((int32_t)x));
    default: { /* fp32 */
      float f = isa_f32_from_bits(x);
      if (to == ISA_FP16) return isa_f32_to_f16(f);
      if (to == ISA_BF16) return isa_f32_to_bf16(f);
      return (uint32_t)(int32_t)isa_round_sat((double)f, 1, INT32_MIN, INT32_MAX);
    }
  }
}

void isa_sem_vcast_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vcast *p = &in->u.vcast;
  uint64_t sb = elem_bytes(p->src_dtype), db = elem_bytes(p->dst_dtype);
  const uint8_t *src = m->ptr(m->ctx, ISA_MEM_UB, p->src.off, p->count * sb);
  uint8_t *dst = m->ptr(m->ctx, ISA_MEM_UB, p->dst.off, p->count * db);
  for (uint64_t i = 0; i < p->count; i++) {
    uint32_t y = convert(p->src_dtype, p->dst_dtype, (uint32_t)isa_le_load(src + i * sb, sb));
    isa_le_store(dst + i * db, y, db);
  }
}
