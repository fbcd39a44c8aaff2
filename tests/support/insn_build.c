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

isa_insn ib_nd2nz(isa_dtype t, uint64_t l1_off, uint64_t gm_off, uint32_t rows, uint32_t cols) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_COPY_GM_L1_ND2NZ;
  isa_fmt_nd2nz *p = &in.u.nd2nz;
  p->dst = (isa_addr){ISA_MEM_L1, l1_off};
  p->src = (isa_addr){ISA_MEM_GM, gm_off};
  p->dtype = t;
  p->nd_num = 1;
  p->n_value = rows;
  p->d_value = cols;
  p->src_d_value = cols;
  p->dst_nz_c0_stride = (rows + 15) / 16 * 16;
  p->dst_nz_n_stride = 1;
  return in;
}

isa_insn ib_load2d(isa_op op, isa_dtype t, uint64_t dst_off, uint64_t src_off, uint32_t start_index,
                   uint32_t repeat_times, uint32_t src_stride, uint32_t if_transpose) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  isa_fmt_load2d *p = &in.u.load2d;
  p->dst = (isa_addr){op == ISA_OP_LOAD_L0A ? ISA_MEM_L0A : ISA_MEM_L0B, dst_off};
  p->src = (isa_addr){ISA_MEM_L1, src_off};
  p->dtype = t;
  p->start_index = start_index;
  p->repeat_times = repeat_times;
  p->src_stride = src_stride;
  p->if_transpose = if_transpose;
  return in;
}

isa_insn ib_mmad(isa_dtype t, uint32_t m, uint32_t n, uint32_t k) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_MMAD;
  in.u.mmad.dst = (isa_addr){ISA_MEM_L0C, 0};
  in.u.mmad.a = (isa_addr){ISA_MEM_L0A, 0};
  in.u.mmad.b = (isa_addr){ISA_MEM_L0B, 0};
  in.u.mmad.dtype = t;
  in.u.mmad.m = m;
  in.u.mmad.n = n;
  in.u.mmad.k = k;
  in.u.mmad.init_c = 1;
  return in;
}

isa_insn ib_fixpipe_nd(isa_mem dst, uint64_t dst_off, isa_quant_mode q, isa_dtype out, uint32_t m,
                       uint32_t n) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_FIXPIPE;
  isa_fmt_fixpipe *p = &in.u.fixpipe;
  p->dst = (isa_addr){dst, dst_off};
  p->src = (isa_addr){ISA_MEM_L0C, 0};
  p->l0c_dtype = ISA_INT32;
  p->out_dtype = out;
  p->quant_pre = q;
  p->deq_scalar = 0x400000000000ull | 0x3F800000u; /* S = 1, scale 1.0 */
  p->nz2nd_en = 1;
  p->n_size = n;
  p->m_size = m;
  p->src_stride = (m + 15) / 16 * 16;
  p->dst_stride = n;
  p->nd_num = 1;
  return in;
}

isa_insn ib_vdeq(uint64_t dst_off, uint64_t src_off, uint64_t scale_off, isa_dtype out, uint32_t rows,
                 uint32_t cols) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VDEQ;
  isa_fmt_vdeq *p = &in.u.vdeq;
  p->dst = (isa_addr){ISA_MEM_UB, dst_off};
  p->src = (isa_addr){ISA_MEM_UB, src_off};
  p->scale = (isa_addr){ISA_MEM_UB, scale_off};
  p->out_dtype = out;
  p->rows = rows;
  p->cols = cols;
  p->src_row_stride = cols;
  p->dst_row_stride = cols;
  return in;
}
