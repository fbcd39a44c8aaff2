/* isa_sem_vdeq — SCAFFOLD: replaced by the real implementation before this reaches main. */
#include "isa/isa_insn.h"

bool isa_sem_vdeq_check(const isa_insn *in, isa_fault *f) {
  (void)in;
  return isa_fault_set(f, ISA_FAULT_BAD_OPCODE, "op", in->op, 0, "vdeq: not implemented yet");
}
size_t isa_sem_vdeq_ranges(const isa_insn *in, isa_range *out) { (void)in; (void)out; return 0; }
void isa_sem_vdeq_work(const isa_insn *in, isa_work *w) { (void)in; (void)w; }
void isa_sem_vdeq_exec(const isa_insn *in, const isa_mach *m) { (void)in; (void)m; }
