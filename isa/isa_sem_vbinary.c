/* isa_sem_vbinary — element-wise binary vector operations on UB (docs/ISA.md §vector): vadd in
 * fp32 (RNE), fp16 (the exact sum rounded once to fp16) and int32 (wrapping).
 *
 * Elements are processed in increasing order, each reading both inputs just before writing its
 * result, so dst may be src0 or src1 (in place). */
#include <stdint.h>

#include "isa/isa_fparith.h"
#include "isa/isa_insn.h"
#include "isa/isa_num.h"

static bool is_vadd_dtype(uint32_t dt) { return dt == ISA_FP32 || dt == ISA_FP16 || dt == ISA_INT32; }

static uint64_t elem_bytes(uint32_t dt) { return isa_dtype_bits((isa_dtype)dt) / 8; }

bool isa_sem_vbinary_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vbinary *p = &in->u.vbinary;
  const char *mn = isa_op_info((isa_op)in->op)->mnemonic;
  if (!is_vadd_dtype(p->dtype))
    return isa_fault_set(f, ISA_FAULT_DTYPE, "dtype", p->dtype, 0,
                         "%s: dtype %s is not supported (fp32, fp16 or int32)", mn,
                         isa_dtype_name((isa_dtype)p->dtype));
  if (p->src0.mem != ISA_MEM_UB)
    return isa_fault_set(f, ISA_FAULT_BAD_MEM, "src0", p->src0.mem, ISA_MEMBIT(UB),
                         "%s: operand src0 names %s; the inputs must be in UB", mn,
                         isa_mem_name((isa_mem)p->src0.mem));
  if (p->src1.mem != ISA_MEM_UB)
    return isa_fault_set(f, ISA_FAULT_BAD_MEM, "src1", p->src1.mem, ISA_MEMBIT(UB),
                         "%s: operand src1 names %s; the inputs must be in UB", mn,
                         isa_mem_name((isa_mem)p->src1.mem));
  return true;
}

size_t isa_sem_vbinary_ranges(const isa_insn *in, isa_range *out) {
  const isa_fmt_vbinary *p = &in->u.vbinary;
  uint64_t bytes = p->count * elem_bytes(p->dtype);
  out[0] = (isa_range){ISA_MEM_UB, 0, p->src0.off, bytes, bytes, 1};
  out[1] = (isa_range){ISA_MEM_UB, 0, p->src1.off, bytes, bytes, 1};
  out[2] = (isa_range){ISA_MEM_UB, 1, p->dst.off, bytes, bytes, 1};
  return 3;
}

void isa_sem_vbinary_work(const isa_insn *in, isa_work *w) {
  const isa_fmt_vbinary *p = &in->u.vbinary;
  w->path = ISA_PATH_VECTOR;
  w->elements = p->count;
  w->bytes = p->count * elem_bytes(p->dtype); /* inputs and output have one type */
  w->dtype = p->dtype;
}

/* a + b on the element bits. fp16: the fp32 sum of two fp16 values is their exact sum rounded
 * to 24 bits, and rounding that to fp16 (11 bits) gives the exact sum rounded once: with
 * 24 >= 2*11 + 2 bits in between, double rounding is innocuous for addition (S. A. Figueroa,
 * "When is double rounding innocuous?", SIGNUM Newsletter 30(3), 1995). */
static uint32_t add(uint32_t dt, uint32_t a, uint32_t b) {
  switch (dt) {
    case ISA_INT32: return a + b; /* wraps modulo 2^32 */
    case ISA_FP16: {
      float s = isa_f32_add(isa_f16_to_f32((uint16_t)a), isa_f16_to_f32((uint16_t)b));
      return s != s ? ISA_F16_QNAN : isa_f32_to_f16(s);
    }
    default: return isa_f32_bits(isa_f32_add(isa_f32_from_bits(a), isa_f32_from_bits(b)));
  }
}

void isa_sem_vbinary_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vbinary *p = &in->u.vbinary;
  uint64_t es = elem_bytes(p->dtype), bytes = p->count * es;
  const uint8_t *s0 = m->ptr(m->ctx, ISA_MEM_UB, p->src0.off, bytes);
  const uint8_t *s1 = m->ptr(m->ctx, ISA_MEM_UB, p->src1.off, bytes);
  uint8_t *d = m->ptr(m->ctx, ISA_MEM_UB, p->dst.off, bytes);
  for (uint64_t i = 0; i < p->count; i++) {
    uint32_t a = (uint32_t)isa_le_load(s0 + i * es, es), b = (uint32_t)isa_le_load(s1 + i * es, es);
    uint32_t r = add(p->dtype, a, b);
    isa_le_store(d + i * es, r, es);
  }
}
