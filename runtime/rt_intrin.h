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
/* LoadData 3-D into L0A (the 1 x 1 filter case: an NZ matrix in L1 to Zz, one instruction). */
void rt_load3d(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_load3d p);
/* Mmad: c (CO1) = a (A2) * b (B2) [+ c] [+ bias (C2)]; bias may be NULL. */
void rt_mmad(rt_ctx *ctx, rt_ltensor c, rt_ltensor a, rt_ltensor b, const rt_ltensor *bias, isa_fmt_mmad p);
/* Fixpipe CO1 -> GM; fb (C2PIPE2GM) holds the per-column words of vector modes, or NULL. */
void rt_fixpipe(rt_ctx *ctx, rt_gtensor dst, rt_ltensor src, const rt_ltensor *fb, isa_fmt_fixpipe p);

/* ---- vector instructions on UB (docs/ISA.md §vector) ----------------------------------------
 * Each call is one instruction. The operand struct carries what Ascend C's high-dimension API
 * passes (mask or count, repeatTime, Binary/UnaryRepeatParams); the addresses and the element
 * types come from the tensors (dtype of dst, or of src0 for vcmp; vcast: both), so callers leave
 * them zero. The _n forms are Ascend C's "first count elements" API: one counter-mode instruction
 * over count contiguous elements (block stride 1, repeats back to back). */

/* Dequant int32 -> fp32/fp16/bf16 with a column scale (not repeat-based; see isa_fmt_vdeq). */
void rt_vdeq(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, rt_ltensor scale, isa_fmt_vdeq p);

/* vadd, vsub, vmul, vdiv, vmax, vmin. */
void rt_vbinary(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, isa_fmt_vbinary p);
void rt_vbinary_n(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, uint32_t count);
/* vexp, vln, vsqrt, vrec, vrelu, vabs. */
void rt_vunary(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, isa_fmt_vunary p);
void rt_vunary_n(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, uint32_t count);
/* vadds, vmuls, vmaxs, vmins; the _n form takes the scalar as a value (rt_scalar_bits). */
void rt_vscalar(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, isa_fmt_vscalar p);
void rt_vscalar_n(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, double scalar, uint32_t count);
/* Duplicate. */
void rt_vdup(rt_ctx *ctx, rt_ltensor dst, isa_fmt_vdup p);
void rt_vdup_n(rt_ctx *ctx, rt_ltensor dst, double scalar, uint32_t count);
/* Copy within UB, bits as they are (Ascend C's Copy with CopyRepeatParams: dstStride and srcStride
 * are p's block strides, dstRepeatSize and srcRepeatSize its repeat strides). */
void rt_vcopy(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_vcopy p);
/* Brcb: repeat r spreads src[8r .. 8r+7] over 8 blocks of dst. */
void rt_vbrcb(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_vbrcb p);
/* Compare into bits; the _n form compares whole repeats only (count a multiple of 256 B). */
void rt_vcmp(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, isa_fmt_vcmp p);
void rt_vcmp_n(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src0, rt_ltensor src1, isa_cmp_mode mode,
               uint32_t count);
/* Select by the bits in sel; src1 is NULL in tensor_scalar mode (p.scalar is then the choice). */
void rt_vsel(rt_ctx *ctx, rt_ltensor dst, rt_ltensor sel, rt_ltensor src0, const rt_ltensor *src1,
             isa_fmt_vsel p);
/* Cast src.dtype -> dst.dtype. */
void rt_vcast(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_fmt_vcast p);
void rt_vcast_n(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, isa_round_mode mode, uint32_t count);
/* vreduce_sum, vreduce_max, vreduce_min: one result a repeat. */
void rt_vreduce(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, isa_fmt_vreduce p);

/* The bits of scalar v as an element of type t: floats rounded to fp32 first (as a C float
 * constant is), then to nearest even in t; integers must be whole and in t's range (else a
 * runtime fault, and 0). */
uint64_t rt_scalar_bits(rt_ctx *ctx, isa_dtype t, double v);

/* Synchronisation. */
void rt_set_flag(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int event_id);
void rt_wait_flag(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int event_id);
void rt_pipe_barrier(rt_ctx *ctx, isa_pipe pipe);
/* CrossCoreSetFlag<mode, pipe>(flag_id) (docs/ISA.md, "Cross-core flags"): once every earlier
 * instruction of `pipe` has completed, raises the counters of the cores `mode` names — 0: every
 * core of this kind in the launch, once all of them have set it; 1 (on an AIV): the AIVs of
 * this AI core, once all of them have set it; 2: an AIC raises its AIVs', the AIVs of a MIX
 * launch raise their AIC's once all of them have set it. Mode 1 on an AIC, and mode 2 outside a
 * MIX launch, are runtime faults. */
void rt_cross_set_flag(rt_ctx *ctx, unsigned mode, isa_pipe pipe, unsigned flag_id);
/* CrossCoreWaitFlag(flag_id) with Ascend C's default pipe S (the scalar unit stops issuing)
 * until this core's counter of flag_id is above 0, then takes one; _pipe holds `pipe` only. */
void rt_cross_wait_flag(rt_ctx *ctx, unsigned flag_id);
void rt_cross_wait_flag_pipe(rt_ctx *ctx, isa_pipe pipe, unsigned flag_id);
/* SyncAll: every pipe of this core drains, then it waits until every core of the launch (with
 * aiv_only, every AIV: SyncAll<true>) has reached its SyncAll. */
void rt_sync_all(rt_ctx *ctx, bool aiv_only);
/* Scalar work of `cycles` (loop control, address arithmetic, tiling reads): the scalar unit is
 * busy, and dispatches nothing else, for that long. 0 issues nothing. */
void rt_scalar(rt_ctx *ctx, uint32_t cycles);

/* Issues an instruction built by hand. */
void rt_issue(rt_ctx *ctx, const isa_insn *in);

#endif
