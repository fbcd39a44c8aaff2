/* isa_sem_load3d — LoadData 3-D in the matmul's case (a 1 x 1 filter, stride 1, no padding):
 * an NZ matrix in L1 to Zz in L0A in one instruction (LoadData3DParamsV2, docs/ISA.md §load3d).
 *
 * The feature map holds P = l1_h * l1_w positions of channel_size channels: C1 = ceil(channel_size
 * / C0) channel blocks, block c1 the P positions of C0 elements each, one 32-byte row per
 * position. With a 1 x 1 filter the img2col matrix is [P, C1 * C0]: row p, column c is the element
 * at row c1 * P + p, lane c % C0, of L1 (c1 = c / C0). The instruction writes its rows m_start ..
 * m_start + m_extension and columns k_start .. k_start + k_extension as Zz: for each block of 16
 * rows, its k_extension / C0 fractals of 16 x C0, one after the other. Because m_start is a
 * multiple of 16, every destination fractal is 16 consecutive 32-byte rows of one channel block:
 * one contiguous 512-byte run of L1.
 */
#include "isa/isa_insn.h"

#include <string.h>

#define LOAD3D_FRACTAL_BYTES 512u
#define LOAD3D_ROW_BYTES 32u

static const char *mnemonic(const isa_insn *in) { return isa_op_info((isa_op)in->op)->mnemonic; }

/* Positions of the feature map, its channel blocks, and the fractal counts of the result. */
static uint64_t positions(const isa_fmt_load3d *p) { return (uint64_t)p->l1_h * p->l1_w; }
static uint64_t c0_of(const isa_fmt_load3d *p) { return isa_dtype_c0((isa_dtype)p->dtype); }

bool isa_sem_load3d_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_load3d *p = &in->u.load3d;
  isa_dtype t = (isa_dtype)p->dtype;
  if (t != ISA_INT4 && t != ISA_INT8 && t != ISA_UINT8 && t != ISA_FP16 && t != ISA_BF16)
    return isa_fault_set(f, ISA_FAULT_DTYPE, "dtype", p->dtype, 0,
                         "%s: dtype %s is not one of int4, int8, uint8, fp16, bf16", mnemonic(in),
                         isa_dtype_name(t));
  uint64_t c0 = c0_of(p), P = positions(p), kmax = (p->channel_size + c0 - 1) / c0 * c0;
  if (p->m_extension % 16)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "m_extension", p->m_extension, 16,
                         "%s: m_extension %u is not a multiple of 16 (whole fractal rows)", mnemonic(in),
                         p->m_extension);
  if (p->m_start % 16)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "m_start", p->m_start, 16,
                         "%s: m_start %u is not a multiple of 16 (whole fractal rows)", mnemonic(in), p->m_start);
  if (p->k_extension % c0)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "k_extension", p->k_extension, c0,
                         "%s: k_extension %u is not a multiple of C0 = %u for %s", mnemonic(in), p->k_extension,
                         (unsigned)c0, isa_dtype_name(t));
  if (p->k_start % c0)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "k_start", p->k_start, c0,
                         "%s: k_start %u is not a multiple of C0 = %u for %s", mnemonic(in), p->k_start,
                         (unsigned)c0, isa_dtype_name(t));
  if ((uint64_t)p->m_start + p->m_extension > P)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "m_extension", (uint64_t)p->m_start + p->m_extension, P,
                         "%s: rows %u .. %u of a feature map of %u x %u = %llu positions", mnemonic(in),
                         p->m_start, p->m_start + p->m_extension, p->l1_h, p->l1_w, (unsigned long long)P);
  if ((uint64_t)p->k_start + p->k_extension > kmax)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "k_extension", (uint64_t)p->k_start + p->k_extension, kmax,
                         "%s: columns %u .. %u of %u channels (%llu with the padding to C0)", mnemonic(in),
                         p->k_start, p->k_start + p->k_extension, p->channel_size, (unsigned long long)kmax);
  return true;
}

size_t isa_sem_load3d_ranges(const isa_insn *in, isa_range *out) {
  const isa_fmt_load3d *p = &in->u.load3d;
  uint64_t c0 = c0_of(p), P = positions(p), kb = p->k_extension / c0;
  /* each channel block read: m_extension rows of 32 bytes from row m_start */
  out[0] = isa_range_normalize((isa_range){p->src.mem, 0,
                                           p->src.off + ((uint64_t)p->k_start / c0 * P + p->m_start) * LOAD3D_ROW_BYTES,
                                           (uint64_t)p->m_extension * LOAD3D_ROW_BYTES, P * LOAD3D_ROW_BYTES, kb});
  out[1] = isa_range_normalize((isa_range){p->dst.mem, 1, p->dst.off,
                                           (uint64_t)p->m_extension * kb * LOAD3D_ROW_BYTES, 0, 1});
  return 2;
}

void isa_sem_load3d_work(const isa_insn *in, isa_work *w) {
  const isa_fmt_load3d *p = &in->u.load3d;
  w->path = ISA_PATH_L1_TO_L0A;
  w->bytes = (uint64_t)p->m_extension * (p->k_extension / c0_of(p)) * LOAD3D_ROW_BYTES;
}

void isa_sem_load3d_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_load3d *p = &in->u.load3d;
  uint64_t c0 = c0_of(p), P = positions(p), kb = p->k_extension / c0, mb = p->m_extension / 16;
  for (uint64_t i = 0; i < mb; i++)
    for (uint64_t j = 0; j < kb; j++) {
      uint64_t row = (p->k_start / c0 + j) * P + p->m_start + i * 16;
      const void *s = m->ptr(m->ctx, (isa_mem)p->src.mem, p->src.off + row * LOAD3D_ROW_BYTES, LOAD3D_FRACTAL_BYTES);
      memcpy(m->ptr(m->ctx, (isa_mem)p->dst.mem, p->dst.off + (i * kb + j) * LOAD3D_FRACTAL_BYTES,
                    LOAD3D_FRACTAL_BYTES),
             s, LOAD3D_FRACTAL_BYTES);
    }
}
