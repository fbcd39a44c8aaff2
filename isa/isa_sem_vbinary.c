/* isa_sem_vbinary — SCAFFOLD: replaced by the real implementation before this reaches main. */
#include "isa/isa_insn.h"

bool isa_sem_vbinary_check(const isa_insn *in, isa_fault *f) {
  (void)in;
  return isa_fault_set(f, ISA_FAULT_BAD_OPCODE, "op", in->op, 0, "vbinary: not implemented yet");
}
size_t isa_sem_vbinary_ranges(const isa_insn *in, isa_range *out) { (void)in; (void)out; return 0; }
void isa_sem_vbinary_work(const isa_insn *in, isa_work *w) { (void)in; (void)w; }
void isa_sem_vbinary_exec(const isa_insn *in, const isa_mach *m) { (void)in; (void)m; }
