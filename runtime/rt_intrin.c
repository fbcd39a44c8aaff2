/* rt_intrin — intrinsics: operands from tensors, one instruction each. */
#include "runtime/rt_intrin.h"

#include <string.h>

#include "runtime/rt_internal.h"

void rt_issue(rt_ctx *ctx, const isa_insn *in) {
  if (rt_ok(ctx)) sim_core_issue(ctx->core, in);
}

static isa_addr laddr(rt_ltensor t) { return (isa_addr){rt_pos_mem(t.pos), t.off}; }
static isa_addr gaddr(rt_gtensor t) { return (isa_addr){ISA_MEM_GM, t.addr}; }

isa_fmt_copy rt_copy_params(uint64_t bytes) {
  isa_fmt_copy p;
  memset(&p, 0, sizeof p);
  p.block_count = 1;
  p.block_len_bytes = (uint32_t)bytes;
  return p;
}

static void issue_copy(rt_ctx *ctx, isa_op op, isa_addr dst, isa_addr src, isa_fmt_copy p) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  p.dst = dst;
  p.src = src;
  in.u.copy = p;
  rt_issue(ctx, &in);
}

void rt_copy_gm_to_local(rt_ctx *ctx, rt_ltensor dst, rt_gtensor src, isa_fmt_copy p) {
  isa_op op = rt_pos_mem(dst.pos) == ISA_MEM_UB ? ISA_OP_COPY_GM_UB : ISA_OP_COPY_GM_L1;
  issue_copy(ctx, op, laddr(dst), gaddr(src), p);
}

void rt_copy_local_to_gm(rt_ctx *ctx, rt_gtensor dst, rt_ltensor src, isa_fmt_copy p) {
  issue_copy(ctx, ISA_OP_COPY_UB_GM, gaddr(dst), laddr(src), p);
}

void rt_copy_local(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_copy p) {
  isa_op op = rt_pos_mem(dst.pos) == ISA_MEM_FB ? ISA_OP_COPY_L1_FB : ISA_OP_COPY_L1_BT;
  issue_copy(ctx, op, laddr(dst), laddr(src), p);
}

void rt_copy_nd2nz(rt_ctx *ctx, rt_ltensor dst, rt_gtensor src, isa_fmt_nd2nz p) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_COPY_GM_L1_ND2NZ;
  p.dst = laddr(dst);
  p.src = gaddr(src);
  in.u.nd2nz = p;
  rt_issue(ctx, &in);
}

void rt_load2d(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_load2d p) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = rt_pos_mem(dst.pos) == ISA_MEM_L0B ? ISA_OP_LOAD_L0B : ISA_OP_LOAD_L0A;
  p.dst = laddr(dst);
  p.src = laddr(src);
  in.u.load2d = p;
  rt_issue(ctx, &in);
}

void rt_mmad(rt_ctx *ctx, rt_ltensor c, rt_ltensor a, rt_ltensor b, const rt_ltensor *bias, isa_fmt_mmad p) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_MMAD;
  p.dst = laddr(c);
  p.a = laddr(a);
  p.b = laddr(b);
  p.bias = bias ? laddr(*bias) : (isa_addr){ISA_MEM_GM, 0};
  p.bias_en = bias != NULL;
  in.u.mmad = p;
  rt_issue(ctx, &in);
}

void rt_fixpipe(rt_ctx *ctx, rt_gtensor dst, rt_ltensor src, const rt_ltensor *fb, isa_fmt_fixpipe p) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_FIXPIPE;
  p.dst = gaddr(dst);
  p.src = laddr(src);
  p.fb = fb ? laddr(*fb) : (isa_addr){ISA_MEM_GM, 0};
  in.u.fixpipe = p;
  rt_issue(ctx, &in);
}

void rt_vdeq(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, rt_ltensor scale, isa_fmt_vdeq p) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VDEQ;
  p.dst = laddr(dst);
  p.src = laddr(src);
  p.scale = laddr(scale);
  in.u.vdeq = p;
  rt_issue(ctx, &in);
}

void rt_vcast(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_vcast p) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VCAST;
  p.dst = laddr(dst);
  p.src = laddr(src);
  in.u.vcast = p;
  rt_issue(ctx, &in);
}

void rt_vadd(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, isa_fmt_vbinary p) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VADD;
  p.dst = laddr(dst);
  p.src0 = laddr(src0);
  p.src1 = laddr(src1);
  in.u.vbinary = p;
  rt_issue(ctx, &in);
}

static void issue_flag(rt_ctx *ctx, isa_op op, isa_pipe src, isa_pipe dst, int id) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  in.u.flag.src_pipe = src;
  in.u.flag.dst_pipe = dst;
  in.u.flag.event_id = (uint32_t)id;
  rt_issue(ctx, &in);
}

void rt_set_flag(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int id) { issue_flag(ctx, ISA_OP_SET_FLAG, src, dst, id); }
void rt_wait_flag(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int id) { issue_flag(ctx, ISA_OP_WAIT_FLAG, src, dst, id); }

void rt_pipe_barrier(rt_ctx *ctx, isa_pipe pipe) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_PIPE_BARRIER;
  in.u.barrier.pipe = pipe;
  rt_issue(ctx, &in);
}
