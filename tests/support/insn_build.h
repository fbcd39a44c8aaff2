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
/* Scalar work of `cycles` cycles on the S pipe. */
isa_insn ib_scalar(uint32_t cycles);

/* ND rows x cols in GM at gm_off -> NZ in L1 at l1_off: one matrix whose column blocks lie
 * `rows` rounded up to 16 rows apart (docs/ISA.md "Building mmad's operands"). */
isa_insn ib_nd2nz(isa_dtype t, uint64_t l1_off, uint64_t gm_off, uint32_t rows, uint32_t cols);
/* load_l0a or load_l0b (by op) from L1:src_off into L0A/L0B:dst_off, no destination gap. */
isa_insn ib_load2d(isa_op op, isa_dtype t, uint64_t dst_off, uint64_t src_off, uint32_t start_index,
                   uint32_t repeat_times, uint32_t src_stride, uint32_t if_transpose);
/* C (L0C:0) = A (L0A:0) * B (L0B:0), init_c = 1, no bias. */
/* load3d_l0a from L1+src_off to L0A+dst_off: an h x w map of `channels` channels, m_ext x k_ext
 * of it from (m_start, k_start). */
isa_insn ib_load3d(isa_dtype t, uint64_t dst_off, uint64_t src_off, uint32_t h, uint32_t w, uint32_t channels,
                   uint32_t m_ext, uint32_t k_ext, uint32_t m_start, uint32_t k_start);
isa_insn ib_mmad(isa_dtype t, uint32_t m, uint32_t n, uint32_t k);
/* An m x n int32 tile of L0C:0 (rows rounded up to 16 between column blocks) out to dst as one
 * ND matrix of row stride n, with the scalar word S = 1, scale 1.0. */
isa_insn ib_fixpipe_nd(isa_mem dst, uint64_t dst_off, isa_quant_mode q, isa_dtype out, uint32_t m,
                       uint32_t n);
/* vdeq of rows x cols on UB, rows packed (row strides = cols). */
isa_insn ib_vdeq(uint64_t dst_off, uint64_t src_off, uint64_t scale_off, isa_dtype out, uint32_t rows,
                 uint32_t cols);

/* Counter-mode vector instructions over count contiguous elements of UB (block stride 1,
 * repeats back to back): binary (vadd, ...) and unary (vexp, ...) of type t, and a cast. */
isa_insn ib_vbinary_n(isa_op op, isa_dtype t, uint64_t dst, uint64_t src0, uint64_t src1, uint32_t count);
isa_insn ib_vunary_n(isa_op op, isa_dtype t, uint64_t dst, uint64_t src, uint32_t count);
isa_insn ib_vcast_n(isa_dtype from, isa_dtype to, isa_round_mode mode, uint64_t dst, uint64_t src,
                    uint32_t count);

#endif
