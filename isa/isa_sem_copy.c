/* isa_sem_copy — DataCopy with byte bursts: GM->L1, GM->UB, UB->GM, L1->BT, L1->FB.
 *
 * block_count bursts of block_len_bytes; burst i reads src + i*(block_len + src_gap) and writes
 * dst + i*(block_len + dst_gap) (DataCopyParams / DataCopyPad with byte lengths). */
#include "isa/isa_insn.h"

#include <string.h>

/* Path taken by a copy, from its two memories. */
static isa_path copy_path(const isa_fmt_copy *p) {
  static const struct { uint32_t src, dst; isa_path path; } paths[] = {
      {ISA_MEM_GM, ISA_MEM_L1, ISA_PATH_GM_TO_L1}, {ISA_MEM_GM, ISA_MEM_UB, ISA_PATH_GM_TO_UB},
      {ISA_MEM_UB, ISA_MEM_GM, ISA_PATH_UB_TO_GM}, {ISA_MEM_L1, ISA_MEM_BT, ISA_PATH_L1_TO_BT},
      {ISA_MEM_L1, ISA_MEM_FB, ISA_PATH_L1_TO_FB},
  };
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
    if (paths[i].src == p->src.mem && paths[i].dst == p->dst.mem) return paths[i].path;
  return ISA_PATH_NONE;
}

bool isa_sem_copy_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_copy *p = &in->u.copy;
  if (copy_path(p) == ISA_PATH_NONE)
    return isa_fault_set(f, ISA_FAULT_BAD_MEM, "dst", p->dst.mem, 0, "%s: no copy path %s -> %s",
                         isa_op_info((isa_op)in->op)->mnemonic, isa_mem_name((isa_mem)p->src.mem),
                         isa_mem_name((isa_mem)p->dst.mem));
  if (p->l2_bypass && p->src.mem != ISA_MEM_GM && p->dst.mem != ISA_MEM_GM)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "l2_bypass", 1, 0,
                         "%s: l2_bypass = 1 needs a GM operand; this copy does not reach the L2",
                         isa_op_info((isa_op)in->op)->mnemonic);
  return true;
}

size_t isa_sem_copy_ranges(const isa_insn *in, isa_range *out) {
  const isa_fmt_copy *p = &in->u.copy;
  out[0] = (isa_range){p->src.mem, 0, p->src.off, p->block_len_bytes,
                       (uint64_t)p->block_len_bytes + p->src_gap_bytes, p->block_count};
  out[1] = (isa_range){p->dst.mem, 1, p->dst.off, p->block_len_bytes,
                       (uint64_t)p->block_len_bytes + p->dst_gap_bytes, p->block_count};
  return 2;
}

void isa_sem_copy_work(const isa_insn *in, isa_work *w) {
  const isa_fmt_copy *p = &in->u.copy;
  w->path = copy_path(p);
  w->bytes = (uint64_t)p->block_count * p->block_len_bytes;
}

void isa_sem_copy_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_copy *p = &in->u.copy;
  uint64_t src_step = (uint64_t)p->block_len_bytes + p->src_gap_bytes;
  uint64_t dst_step = (uint64_t)p->block_len_bytes + p->dst_gap_bytes;
  for (uint32_t i = 0; i < p->block_count; i++) {
    const uint8_t *s = m->ptr(m->ctx, (isa_mem)p->src.mem, p->src.off + i * src_step, p->block_len_bytes);
    uint8_t *d = m->ptr(m->ctx, (isa_mem)p->dst.mem, p->dst.off + i * dst_step, p->block_len_bytes);
    memmove(d, s, p->block_len_bytes);
  }
}
