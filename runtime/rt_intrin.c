/* rt_intrin — intrinsics: operands from tensors, one instruction each. */
#include "runtime/rt_intrin.h"

#include <math.h>
#include <string.h>

#include "isa/isa_num.h"

#include "runtime/rt_internal.h"

void rt_issue(rt_ctx *ctx, const isa_insn *in) {
  if (rt_ok(ctx)) sim_core_issue(ctx->core, in);
}

/* A blank instruction of op: copied from a zero one, since a memset of an instruction compiles
 * to `rep stos`, whose start costs more than the stores (an instruction is recorded each time). */
static inline isa_insn insn_of(uint32_t op) {
  static const isa_insn blank;
  isa_insn in;
  memcpy(&in, &blank, sizeof in);
  in.op = op;
  return in;
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
  isa_insn in = insn_of(op);
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
  isa_insn in = insn_of(ISA_OP_COPY_GM_L1_ND2NZ);
  p.dst = laddr(dst);
  p.src = gaddr(src);
  in.u.nd2nz = p;
  rt_issue(ctx, &in);
}

void rt_load2d(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_load2d p) {
  isa_insn in = insn_of(rt_pos_mem(dst.pos) == ISA_MEM_L0B ? ISA_OP_LOAD_L0B : ISA_OP_LOAD_L0A);
  p.dst = laddr(dst);
  p.src = laddr(src);
  in.u.load2d = p;
  rt_issue(ctx, &in);
}

void rt_load3d(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_load3d p) {
  isa_insn in = insn_of(ISA_OP_LOAD3D_L0A);
  p.dst = laddr(dst);
  p.src = laddr(src);
  in.u.load3d = p;
  rt_issue(ctx, &in);
}

void rt_mmad(rt_ctx *ctx, rt_ltensor c, rt_ltensor a, rt_ltensor b, const rt_ltensor *bias, isa_fmt_mmad p) {
  isa_insn in = insn_of(ISA_OP_MMAD);
  p.dst = laddr(c);
  p.a = laddr(a);
  p.b = laddr(b);
  p.bias = bias ? laddr(*bias) : (isa_addr){ISA_MEM_GM, 0};
  p.bias_en = bias != NULL;
  in.u.mmad = p;
  rt_issue(ctx, &in);
}

void rt_fixpipe(rt_ctx *ctx, rt_gtensor dst, rt_ltensor src, const rt_ltensor *fb, isa_fmt_fixpipe p) {
  isa_insn in = insn_of(ISA_OP_FIXPIPE);
  p.dst = gaddr(dst);
  p.src = laddr(src);
  p.fb = fb ? laddr(*fb) : (isa_addr){ISA_MEM_GM, 0};
  in.u.fixpipe = p;
  rt_issue(ctx, &in);
}

void rt_vdeq(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, rt_ltensor scale, isa_fmt_vdeq p) {
  isa_insn in = insn_of(ISA_OP_VDEQ);
  p.dst = laddr(dst);
  p.src = laddr(src);
  p.scale = laddr(scale);
  in.u.vdeq = p;
  rt_issue(ctx, &in);
}

/* ---- vector ------------------------------------------------------------------------------ */

static unsigned elem_bytes(isa_dtype t) { return isa_dtype_bits(t) / 8; }

/* Counter mode over count elements. */
#define COUNTER_MASK(p, count)          \
  do {                                  \
    (p).mask_mode = ISA_VMASK_COUNTER;  \
    (p).mask_hi = 0;                    \
    (p).mask_lo = (count);              \
    (p).repeat_times = 1;               \
  } while (0)

/* Contiguous repeats of an operand whose elements are `bytes` wide, in a repeat of `lanes`. */
static uint32_t rep_blocks(uint32_t lanes, unsigned bytes) { return lanes * bytes / 32; }
static uint32_t lanes_of(unsigned widest_bytes) { return widest_bytes ? 256 / widest_bytes : 0; }

static void issue_vec(rt_ctx *ctx, isa_op op, const void *fmt, size_t bytes) {
  isa_insn in = insn_of(op);
  memcpy(&in.u, fmt, bytes);
  rt_issue(ctx, &in);
}

void rt_vbinary(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, isa_fmt_vbinary p) {
  p.dst = laddr(dst);
  p.src0 = laddr(src0);
  p.src1 = laddr(src1);
  p.dtype = dst.dtype;
  issue_vec(ctx, op, &p, sizeof p);
}

void rt_vbinary_n(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, uint32_t count) {
  isa_fmt_vbinary p;
  memset(&p, 0, sizeof p);
  COUNTER_MASK(p, count);
  p.dst_blk_stride = p.src0_blk_stride = p.src1_blk_stride = 1;
  p.dst_rep_stride = p.src0_rep_stride = p.src1_rep_stride = 8;
  rt_vbinary(ctx, op, dst, src0, src1, p);
}

void rt_vunary(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, isa_fmt_vunary p) {
  p.dst = laddr(dst);
  p.src = laddr(src);
  p.dtype = dst.dtype;
  issue_vec(ctx, op, &p, sizeof p);
}

void rt_vunary_n(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, uint32_t count) {
  isa_fmt_vunary p;
  memset(&p, 0, sizeof p);
  COUNTER_MASK(p, count);
  p.dst_blk_stride = p.src_blk_stride = 1;
  p.dst_rep_stride = p.src_rep_stride = 8;
  rt_vunary(ctx, op, dst, src, p);
}

void rt_vcopy(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_vcopy p) {
  p.dst = laddr(dst);
  p.src = laddr(src);
  p.dtype = dst.dtype;
  issue_vec(ctx, ISA_OP_VCOPY, &p, sizeof p);
}

void rt_vscalar(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, isa_fmt_vscalar p) {
  p.dst = laddr(dst);
  p.src = laddr(src);
  p.dtype = dst.dtype;
  issue_vec(ctx, op, &p, sizeof p);
}

void rt_vscalar_n(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, double scalar, uint32_t count) {
  isa_fmt_vscalar p;
  memset(&p, 0, sizeof p);
  COUNTER_MASK(p, count);
  p.scalar = rt_scalar_bits(ctx, dst.dtype, scalar);
  p.dst_blk_stride = p.src_blk_stride = 1;
  p.dst_rep_stride = p.src_rep_stride = 8;
  rt_vscalar(ctx, op, dst, src, p);
}

void rt_vdup(rt_ctx *ctx, rt_ltensor dst, isa_fmt_vdup p) {
  p.dst = laddr(dst);
  p.dtype = dst.dtype;
  issue_vec(ctx, ISA_OP_VDUP, &p, sizeof p);
}

void rt_vdup_n(rt_ctx *ctx, rt_ltensor dst, double scalar, uint32_t count) {
  isa_fmt_vdup p;
  memset(&p, 0, sizeof p);
  COUNTER_MASK(p, count);
  p.scalar = rt_scalar_bits(ctx, dst.dtype, scalar);
  p.dst_blk_stride = 1;
  p.dst_rep_stride = 8;
  rt_vdup(ctx, dst, p);
}

void rt_vbrcb(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_vbrcb p) {
  p.dst = laddr(dst);
  p.src = laddr(src);
  p.dtype = dst.dtype;
  issue_vec(ctx, ISA_OP_VBRCB, &p, sizeof p);
}

void rt_vcmp(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, isa_fmt_vcmp p) {
  p.dst = laddr(dst);
  p.src0 = laddr(src0);
  p.src1 = laddr(src1);
  p.dtype = src0.dtype;
  issue_vec(ctx, ISA_OP_VCMP, &p, sizeof p);
}

void rt_vcmp_n(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, isa_cmp_mode mode,
               uint32_t count) {
  isa_fmt_vcmp p;
  memset(&p, 0, sizeof p);
  COUNTER_MASK(p, count);
  p.cmp_mode = mode;
  p.src0_blk_stride = p.src1_blk_stride = 1;
  p.src0_rep_stride = p.src1_rep_stride = 8;
  rt_vcmp(ctx, dst, src0, src1, p);
}

void rt_vsel(rt_ctx *ctx, rt_ltensor dst, rt_ltensor sel, rt_ltensor src0, const rt_ltensor *src1,
             isa_fmt_vsel p) {
  p.dst = laddr(dst);
  p.sel = laddr(sel);
  p.src0 = laddr(src0);
  p.src1 = src1 ? laddr(*src1) : (isa_addr){ISA_MEM_UB, 0};
  p.dtype = dst.dtype;
  issue_vec(ctx, ISA_OP_VSEL, &p, sizeof p);
}

void rt_vcast(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_vcast p) {
  p.dst = laddr(dst);
  p.src = laddr(src);
  p.src_dtype = src.dtype;
  p.dst_dtype = dst.dtype;
  issue_vec(ctx, ISA_OP_VCAST, &p, sizeof p);
}

void rt_vcast_n(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_round_mode mode, uint32_t count) {
  isa_fmt_vcast p;
  memset(&p, 0, sizeof p);
  COUNTER_MASK(p, count);
  p.round_mode = mode;
  unsigned sb = elem_bytes(src.dtype), db = elem_bytes(dst.dtype);
  uint32_t lanes = lanes_of(sb > db ? sb : db);
  p.dst_blk_stride = p.src_blk_stride = 1;
  p.src_rep_stride = rep_blocks(lanes, sb);
  p.dst_rep_stride = rep_blocks(lanes, db);
  rt_vcast(ctx, dst, src, p);
}

void rt_vreduce(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, isa_fmt_vreduce p) {
  p.dst = laddr(dst);
  p.src = laddr(src);
  p.dtype = src.dtype;
  issue_vec(ctx, op, &p, sizeof p);
}

uint64_t rt_scalar_bits(rt_ctx *ctx, isa_dtype t, double v) {
  switch (t) {
    case ISA_FP32: return isa_f32_bits((float)v);
    case ISA_FP16: return isa_f32_to_f16((float)v);
    case ISA_BF16: return isa_f32_to_bf16((float)v);
    default: break;
  }
  unsigned bits = isa_dtype_bits(t);
  bool is_signed = t == ISA_INT8 || t == ISA_INT16 || t == ISA_INT32;
  double lo = is_signed ? -ldexp(1.0, (int)bits - 1) : 0.0;
  double hi = is_signed ? ldexp(1.0, (int)bits - 1) - 1.0 : ldexp(1.0, (int)bits) - 1.0;
  if (!(v >= lo && v <= hi) || v != floor(v)) {
    rt_fail(ctx, "scalar %g is not a %s value", v, isa_dtype_name(t));
    return 0;
  }
  return (uint64_t)(int64_t)v & ((UINT64_C(1) << bits) - 1);
}

static void issue_flag(rt_ctx *ctx, isa_op op, isa_pipe src, isa_pipe dst, int id) {
  isa_insn in = insn_of(op);
  in.u.flag.src_pipe = src;
  in.u.flag.dst_pipe = dst;
  in.u.flag.event_id = (uint32_t)id;
  rt_issue(ctx, &in);
}

void rt_set_flag(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int id) { issue_flag(ctx, ISA_OP_SET_FLAG, src, dst, id); }
void rt_wait_flag(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int id) { issue_flag(ctx, ISA_OP_WAIT_FLAG, src, dst, id); }

void rt_pipe_barrier(rt_ctx *ctx, isa_pipe pipe) {
  isa_insn in = insn_of(ISA_OP_PIPE_BARRIER);
  in.u.barrier.pipe = pipe;
  rt_issue(ctx, &in);
}

void rt_cross_set_flag(rt_ctx *ctx, unsigned mode, isa_pipe pipe, unsigned flag_id) {
  if (!rt_ok(ctx)) return;
  bool aiv = rt_core_kind_of(ctx) == RT_CORE_AIV;
  bool mix = ctx->mode == RT_LAUNCH_MIX_1_1 || ctx->mode == RT_LAUNCH_MIX_1_2;
  if (mode == 1 && !aiv) {
    rt_fail(ctx, "cross_set_flag mode 1 (the AIVs of an AI core) on an AIC");
    return;
  }
  if (mode == 2 && !mix) {
    rt_fail(ctx, "cross_set_flag mode 2 (AIC <-> AIV) outside a MIX launch");
    return;
  }
  isa_insn in = insn_of(ISA_OP_CROSS_SET_FLAG);
  in.u.xflag.mode = mode;
  in.u.xflag.pipe = pipe;
  in.u.xflag.flag_id = flag_id;
  rt_issue(ctx, &in);
}

void rt_cross_wait_flag_pipe(rt_ctx *ctx, isa_pipe pipe, unsigned flag_id) {
  isa_insn in = insn_of(ISA_OP_CROSS_WAIT_FLAG);
  in.u.xflag.pipe = pipe;
  in.u.xflag.flag_id = flag_id;
  rt_issue(ctx, &in);
}

void rt_cross_wait_flag(rt_ctx *ctx, unsigned flag_id) { rt_cross_wait_flag_pipe(ctx, ISA_PIPE_S, flag_id); }

void rt_sync_all(rt_ctx *ctx, bool aiv_only) {
  isa_insn in = insn_of(ISA_OP_SYNC_ALL);
  in.u.syncall.aiv_only = aiv_only;
  rt_issue(ctx, &in);
}

void rt_scalar(rt_ctx *ctx, uint32_t cycles) {
  if (!cycles) return;
  isa_insn in = insn_of(ISA_OP_SCALAR);
  in.u.scalar.cycles = cycles;
  rt_issue(ctx, &in);
}
