/* rt_intrin — the low-level intrinsics: each call is one instruction on the core's stream.
 *
 * Parameters are the instruction's own operand struct (isa/isa_insn.h, named like Ascend's
 * DataCopyParams, Nd2NzParams, LoadData2DParams, MmadParams, FixpipeParamsV220); the address
 * fields are filled from the tensors given, so callers leave them zero. A bad operand is a fault
 * of the core (see rt.h), never a crash.
 */
#ifndef RT_INTRIN_H
#define RT_INTRIN_H

#include "runtime/rt.h"

/* DataCopy GM -> L1 (A1/B1/C1) or GM -> UB (VECIN/VECCALC), plain bursts. */
void rt_copy_gm_to_local(rt_ctx *ctx, rt_ltensor dst, rt_gtensor src, isa_fmt_copy p);
/* DataCopy UB -> GM. */
void rt_copy_local_to_gm(rt_ctx *ctx, rt_gtensor dst, rt_ltensor src, isa_fmt_copy p);
/* DataCopy L1 -> BT (C2) or L1 -> FB (C2PIPE2GM). */
void rt_copy_local(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_copy p);
/* One contiguous burst of `bytes` (the common case of the three above). */
isa_fmt_copy rt_copy_params(uint64_t bytes);

/* DataCopy GM -> L1 with ND -> NZ. */
void rt_copy_nd2nz(rt_ctx *ctx, rt_ltensor dst, rt_gtensor src, isa_fmt_nd2nz p);
/* LoadData2D L1 -> L0A (A2) or L0B (B2). */
void rt_load2d(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_load2d p);
/* Mmad: c (CO1) = a (A2) * b (B2) [+ c] [+ bias (C2)]; bias may be NULL. */
void rt_mmad(rt_ctx *ctx, rt_ltensor c, rt_ltensor a, rt_ltensor b, const rt_ltensor *bias, isa_fmt_mmad p);
/* Fixpipe CO1 -> GM; fb (C2PIPE2GM) holds the per-column words of vector modes, or NULL. */
void rt_fixpipe(rt_ctx *ctx, rt_gtensor dst, rt_ltensor src, const rt_ltensor *fb, isa_fmt_fixpipe p);

/* Vector operations on UB. */
void rt_vdeq(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, rt_ltensor scale, isa_fmt_vdeq p);
void rt_vcast(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_vcast p);
void rt_vadd(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, isa_fmt_vbinary p);

/* Synchronisation. */
void rt_set_flag(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int event_id);
void rt_wait_flag(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int event_id);
void rt_pipe_barrier(rt_ctx *ctx, isa_pipe pipe);

/* Issues an instruction built by hand. */
void rt_issue(rt_ctx *ctx, const isa_insn *in);

#endif
