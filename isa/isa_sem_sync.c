/* isa_sem_sync — set_flag, wait_flag, pipe_barrier, scalar work, cross-core flags and SyncAll:
 * no data, no bytes; the timing engine gives them their meaning (docs/DESIGN.md §6,
 * docs/TIMING.md). */
#include "isa/isa_insn.h"

bool isa_sem_flag_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_flag *p = &in->u.flag;
  if (p->src_pipe == p->dst_pipe)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "dst_pipe", p->dst_pipe, p->src_pipe,
                         "%s: src_pipe and dst_pipe are both %s; a flag joins two pipes "
                         "(use pipe_barrier within one pipe)",
                         isa_op_info((isa_op)in->op)->mnemonic, isa_pipe_name((isa_pipe)p->src_pipe));
  return true;
}

size_t isa_sem_flag_ranges(const isa_insn *in, isa_range *out) {
  (void)in;
  (void)out;
  return 0;
}

void isa_sem_flag_work(const isa_insn *in, isa_work *w) {
  (void)in;
  w->path = ISA_PATH_NONE;
}

void isa_sem_flag_exec(const isa_insn *in, const isa_mach *m) {
  (void)in;
  (void)m;
}

bool isa_sem_barrier_check(const isa_insn *in, isa_fault *f) {
  (void)in;
  (void)f;
  return true;
}

size_t isa_sem_barrier_ranges(const isa_insn *in, isa_range *out) {
  (void)in;
  (void)out;
  return 0;
}

void isa_sem_barrier_work(const isa_insn *in, isa_work *w) {
  (void)in;
  w->path = ISA_PATH_NONE;
}

void isa_sem_barrier_exec(const isa_insn *in, const isa_mach *m) {
  (void)in;
  (void)m;
}

bool isa_sem_scalar_check(const isa_insn *in, isa_fault *f) {
  (void)in;
  (void)f;
  return true;
}

size_t isa_sem_scalar_ranges(const isa_insn *in, isa_range *out) {
  (void)in;
  (void)out;
  return 0;
}

void isa_sem_scalar_work(const isa_insn *in, isa_work *w) {
  (void)in;
  w->path = ISA_PATH_NONE;
}

void isa_sem_scalar_exec(const isa_insn *in, const isa_mach *m) {
  (void)in;
  (void)m;
}

/* CrossCoreSetFlag takes any pipe but S (Ascend C: "not PIPE_S or PIPE_ALL"); the wait may hold S
 * (its default: the scalar unit stops issuing) or any pipe. */
bool isa_sem_xflag_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_xflag *p = &in->u.xflag;
  if (in->op == ISA_OP_CROSS_SET_FLAG && p->pipe == ISA_PIPE_S)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "pipe", p->pipe, 0,
                         "cross_set_flag: pipe S; a cross-core set waits for the work of a pipe that "
                         "moves or computes data (MTE2, MTE1, M, FIX, MTE3 or V)");
  return true;
}

size_t isa_sem_xflag_ranges(const isa_insn *in, isa_range *out) {
  (void)in;
  (void)out;
  return 0;
}

void isa_sem_xflag_work(const isa_insn *in, isa_work *w) {
  (void)in;
  w->path = ISA_PATH_NONE;
}

void isa_sem_xflag_exec(const isa_insn *in, const isa_mach *m) {
  (void)in;
  (void)m;
}

bool isa_sem_syncall_check(const isa_insn *in, isa_fault *f) {
  (void)in;
  (void)f;
  return true;
}

size_t isa_sem_syncall_ranges(const isa_insn *in, isa_range *out) {
  (void)in;
  (void)out;
  return 0;
}

void isa_sem_syncall_work(const isa_insn *in, isa_work *w) {
  (void)in;
  w->path = ISA_PATH_NONE;
}

void isa_sem_syncall_exec(const isa_insn *in, const isa_mach *m) {
  (void)in;
  (void)m;
}
