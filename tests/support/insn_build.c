/* insn_build — instruction records for tests. */
#include "support/insn_build.h"

#include <string.h>

isa_insn ib_copy_bursts(isa_op op, isa_mem dst, uint64_t dst_off, isa_mem src, uint64_t src_off,
                        uint32_t count, uint32_t len, uint32_t src_gap, uint32_t dst_gap) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  in.u.copy.dst = (isa_addr){dst, dst_off};
  in.u.copy.src = (isa_addr){src, src_off};
  in.u.copy.block_count = count;
  in.u.copy.block_len_bytes = len;
  in.u.copy.src_gap_bytes = src_gap;
  in.u.copy.dst_gap_bytes = dst_gap;
  return in;
}

isa_insn ib_copy(isa_op op, isa_mem dst, uint64_t dst_off, isa_mem src, uint64_t src_off, uint32_t bytes) {
  return ib_copy_bursts(op, dst, dst_off, src, src_off, 1, bytes, 0, 0);
}

isa_insn ib_flag(isa_op op, isa_pipe src, isa_pipe dst, uint32_t event_id) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  in.u.flag.src_pipe = src;
  in.u.flag.dst_pipe = dst;
  in.u.flag.event_id = event_id;
  return in;
}

isa_insn ib_barrier(uint32_t pipe) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_PIPE_BARRIER;
  in.u.barrier.pipe = pipe;
  return in;
}
