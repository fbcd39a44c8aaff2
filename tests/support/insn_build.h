/* insn_build — instruction records for tests, built field by field (every other field zero). */
#ifndef TESTS_INSN_BUILD_H
#define TESTS_INSN_BUILD_H

#include "isa/isa_insn.h"

/* A copy-family instruction of block_count bursts (gaps in bytes). */
isa_insn ib_copy_bursts(isa_op op, isa_mem dst, uint64_t dst_off, isa_mem src, uint64_t src_off,
                        uint32_t count, uint32_t len, uint32_t src_gap, uint32_t dst_gap);
/* One contiguous burst of `bytes`. */
isa_insn ib_copy(isa_op op, isa_mem dst, uint64_t dst_off, isa_mem src, uint64_t src_off, uint32_t bytes);
/* set_flag / wait_flag. */
isa_insn ib_flag(isa_op op, isa_pipe src, isa_pipe dst, uint32_t event_id);
/* pipe_barrier (pipe may be ISA_PIPE_ALL, or out of range for fault tests). */
isa_insn ib_barrier(uint32_t pipe);

#endif
