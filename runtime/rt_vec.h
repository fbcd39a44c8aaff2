/* rt_vec — vector routines built from the vector intrinsics, the way Ascend's kernels and
 * high-level APIs build them (docs/ISA.md §vector, "Built from the instructions").
 *
 * Each routine issues vector instructions with PipeBarrier<PIPE_V> between dependent ones (the
 * V pipe does not order its own reads after its writes) and none after the last: the caller
 * synchronises the result with its consumer (a queue's enque, a flag). Operands are UB tensors;
 * counts are elements; element types come from the tensors.
 */
#ifndef RT_VEC_H
#define RT_VEC_H

#include "runtime/rt_intrin.h"

/* GELU, tanh form, as Ascend's matmul_gelu sample computes it in 8 instructions:
 *   dst = x * x; dst = dst * x; dst = dst * 0.044715; dst = x + dst;
 *   dst = dst * -1.595769; dst = exp(dst); dst = dst + 1; dst = x / dst
 * i.e. x / (1 + e^(-2 sqrt(2/pi) (x + 0.044715 x^3))). dst is the scratch; src (x) is kept.
 * fp32 or fp16. */
void rt_gelu(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, uint32_t count);

/* SiLU, x * sigmoid(x) = x / (1 + e^-x), in 4 instructions: dst = x * -1; dst = exp(dst);
 * dst = dst + 1; dst = x / dst. fp32 or fp16. */
void rt_silu(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, uint32_t count);

/* dst[0] = the sum (or the max) of src[0 .. count-1], fp32 or fp16, as Ascend's ReduceSum /
 * ReduceMax do it: a vreduce pass turns each repeat of P elements into one (the last repeat
 * partial), into work, and passes repeat on work until one value is left. work holds
 * n1 = ceil(count / P) elements rounded up to 32 bytes, then ceil(n1 / P) more (the passes
 * alternate between the two regions); src is kept. */
void rt_reduce_sum(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, rt_ltensor work, uint32_t count);
void rt_reduce_max(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, rt_ltensor work, uint32_t count);

/* Row broadcast: dst[r][c] = src[r][c] op row[c] for r < rows, c < cols (op: vadd, vsub, vmul,
 * vdiv, vmax, vmin). Rows lie row_stride elements apart in dst and src (row_stride * size a
 * multiple of 32 bytes); row is cols contiguous elements. One instruction per chunk of P columns
 * and 255 rows: the rows are the repeats, row's repeat stride is 0. */
void rt_vbinary_rows(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, rt_ltensor row,
                     uint32_t rows, uint32_t cols, uint32_t row_stride);

/* Column broadcast: dst[r][c] = src[r][c] op col[r]. Brcb spreads col into work (one 32-byte
 * block per row: rows rounded up to 8 blocks), then, per chunk of P columns and 255 rows, one
 * instruction reads row r's block with block stride 0 and repeat stride 1. */
void rt_vbinary_cols(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, rt_ltensor col,
                     rt_ltensor work, uint32_t rows, uint32_t cols, uint32_t row_stride);

#endif
