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

isa_insn ib_scalar(uint32_t cycles) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_SCALAR;
  in.u.scalar.cycles = cycles;
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

isa_insn ib_load3d(isa_dtype t, uint64_t dst_off, uint64_t src_off, uint32_t h, uint32_t w, uint32_t channels,
                   uint32_t m_ext, uint32_t k_ext, uint32_t m_start, uint32_t k_start) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_LOAD3D_L0A;
  isa_fmt_load3d *p = &in.u.load3d; /* field by field: the padding stays zero for memcmp */
  p->dst.mem = ISA_MEM_L0A;
  p->dst.off = dst_off;
  p->src.mem = ISA_MEM_L1;
  p->src.off = src_off;
  p->dtype = t;
  p->l1_h = h;
  p->l1_w = w;
  p->channel_size = channels;
  p->m_extension = m_ext;
  p->k_extension = k_ext;
  p->m_start = m_start;
  p->k_start = k_start;
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

/* Counter mode over count elements, every operand contiguous: block stride 1, and a repeat
 * stride of one repeat's blocks (lanes = 256 B of the widest type). */
#define IB_COUNTER(p, n)                 \
  do {                                   \
    (p)->mask_mode = ISA_VMASK_COUNTER;  \
    (p)->mask_lo = (n);                  \
    (p)->repeat_times = 1;               \
  } while (0)

static uint32_t ib_rep_blocks(isa_dtype t, unsigned widest_bytes) {
  return 256 / widest_bytes * (isa_dtype_bits(t) / 8) / 32;
}

isa_insn ib_vbinary_n(isa_op op, isa_dtype t, uint64_t dst, uint64_t src0, uint64_t src1, uint32_t count) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  isa_fmt_vbinary *p = &in.u.vbinary;
  p->dst = (isa_addr){ISA_MEM_UB, dst};
  p->src0 = (isa_addr){ISA_MEM_UB, src0};
  p->src1 = (isa_addr){ISA_MEM_UB, src1};
  p->dtype = t;
  IB_COUNTER(p, count);
  p->dst_blk_stride = p->src0_blk_stride = p->src1_blk_stride = 1;
  p->dst_rep_stride = p->src0_rep_stride = p->src1_rep_stride = 8;
  return in;
}

isa_insn ib_vunary_n(isa_op op, isa_dtype t, uint64_t dst, uint64_t src, uint32_t count) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  isa_fmt_vunary *p = &in.u.vunary;
  p->dst = (isa_addr){ISA_MEM_UB, dst};
  p->src = (isa_addr){ISA_MEM_UB, src};
  p->dtype = t;
  IB_COUNTER(p, count);
  p->dst_blk_stride = p->src_blk_stride = 1;
  p->dst_rep_stride = p->src_rep_stride = 8;
  return in;
}

isa_insn ib_vcast_n(isa_dtype from, isa_dtype to, isa_round_mode mode, uint64_t dst, uint64_t src,
                    uint32_t count) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VCAST;
  isa_fmt_vcast *p = &in.u.vcast;
  p->dst = (isa_addr){ISA_MEM_UB, dst};
  p->src = (isa_addr){ISA_MEM_UB, src};
  p->src_dtype = from;
  p->dst_dtype = to;
  p->round_mode = mode;
  IB_COUNTER(p, count);
  unsigned widest = isa_dtype_bits(from) > isa_dtype_bits(to) ? isa_dtype_bits(from) / 8 : isa_dtype_bits(to) / 8;
  p->dst_blk_stride = p->src_blk_stride = 1;
  p->src_rep_stride = ib_rep_blocks(from, widest);
  p->dst_rep_stride = ib_rep_blocks(to, widest);
  return in;
}
