/* rt_matmul — the high-level Matmul object (Ascend C's Matmul: SetTensorA/B, SetBias,
 * SetQuantScalar, SetQuantVector, SetTail-like blocks, IterateAll, End).
 *
 * One object per kernel block. It owns the queues of every position a matmul uses (A1/B1 in L1,
 * A2/B2 in L0A/L0B, CO1 in L0C, and, only when the matmul uses them, C1 in L1 with C2 for the bias
 * and C2PIPE2GM for quant words), sized by the tiling (runtime/rt_tiling.h). rt_matmul_iterate_all
 * computes one block of C the way Ascend's MDL template does: the base tiles in iterate_order,
 * each tile's K loop in stretches of min(step_ka, step_kb) base_k; A and B copied GM -> L1 in
 * loads of step_m x step_ka (step_n x step_kb) blocks, a load copied only when it differs from the
 * one before and, with two L1 buffers, the next load copied while the current one is in use;
 * each base_k loaded to L0A/L0B and multiplied by one mmad (the first of a tile initialises C from
 * zero or the bias); each tile out through one fixpipe with the quant mode the types and quant
 * parameters call for.
 */
#ifndef RT_MATMUL_H
#define RT_MATMUL_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/rt.h"
#include "runtime/rt_tiling.h"

typedef struct rt_matmul rt_matmul;

/* Creates the object and its queues (a fault if the tiling is not legal or does not fit). */
rt_matmul *rt_matmul_init(rt_ctx *ctx, const rt_matmul_types *types, const rt_tiling *tiling);
void rt_matmul_set_tensor_a(rt_matmul *mm, rt_gtensor a);
void rt_matmul_set_tensor_b(rt_matmul *mm, rt_gtensor b);
/* One bias value per column of C (int32 or fp32). */
void rt_matmul_set_bias(rt_matmul *mm, rt_gtensor bias);
/* One quant word for all of C (DEQF16 / REQ8 / QF322B8_PRE). */
void rt_matmul_set_quant_scalar(rt_matmul *mm, uint64_t word);
/* One uint64 quant word per column of C, in GM (VDEQF16 / VREQ8 / VQF322B8_PRE). */
void rt_matmul_set_quant_vector(rt_matmul *mm, rt_gtensor words);
void rt_matmul_set_relu(rt_matmul *mm, bool relu);
/* The block of C the next iterate_all computes (its offset and actual size, as Ascend kernels
 * set with their offsets and SetTail): rows m0 .. m0+m_len, columns n0 .. n0+n_len (default:
 * all of C). Its base tiles, their order and the L1 loads are counted from the block's corner. */
void rt_matmul_set_block(rt_matmul *mm, uint32_t m0, uint32_t n0, uint32_t m_len, uint32_t n_len);
/* Restricts the next iterate_all to `count` base tiles of the block: tiles first, first +
 * stride, first + 2 stride, ..., numbered in iterate_order (default: every tile). A stride of the
 * core count deals the tiles round-robin. */
void rt_matmul_set_tile_range(rt_matmul *mm, uint64_t first, uint64_t count, uint64_t stride);
/* Base tiles in the current block. */
uint64_t rt_matmul_tile_count(const rt_matmul *mm);
/* Computes the block into C (row-major, m x n, of types->c). */
void rt_matmul_iterate_all(rt_matmul *mm, rt_gtensor c);
/* Ends the object's use (its queues drain at the end of the block). */
void rt_matmul_end(rt_matmul *mm);

#endif
