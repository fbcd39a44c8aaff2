/* rt_matmul — the high-level Matmul object (Ascend C's Matmul: SetTensorA/B, SetBias,
 * SetQuantScalar, SetQuantVector, IterateAll, End) and the tiling helper.
 *
 * One object per kernel block. It owns the queues of every position a matmul uses (A1/B1 in L1,
 * A2/B2 in L0A/L0B, CO1 in L0C, C1/C2 for the bias, C1/C2PIPE2GM for quant words), and
 * rt_matmul_iterate_all issues the whole tiled loop for one block of C: per base tile, the K
 * loop (L1 chunks of step_k × base_k, L0 sub-chunks of base_k, one mmad each, the first one
 * initialising C from zero or the bias), then one fixpipe into GM with the quant mode the types
 * and quant parameters call for. Double buffering comes from the queues' slots.
 */
#ifndef RT_MATMUL_H
#define RT_MATMUL_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/rt.h"

/* Types and layouts (Ascend's MatmulType per operand). */
typedef struct rt_matmul_types {
  isa_dtype a, b;   /* int8, int4, fp16, bf16 (a == b) */
  isa_dtype c;      /* in GM: int32 or fp32 (as accumulated), fp16, bf16, int8, uint8 */
  bool has_bias;    /* int32 bias for integer inputs, fp32 for float inputs, one per column */
  bool a_trans;     /* A is stored K x M */
  bool b_trans;     /* B is stored N x K */
  bool b_nz;        /* B is stored FRACTAL_NZ (C0-wide column blocks, rows padded to 16) */
} rt_matmul_types;

/* The tiling (Ascend's TCubeTiling, reduced to what this model uses). */
typedef struct rt_tiling {
  uint32_t m, n, k;                /* the whole matrices (give the GM strides) */
  uint32_t base_m, base_n, base_k; /* one L0 tile: multiples of 16, 16, C0 */
  uint32_t step_k;                 /* base_k chunks per L1 load of A and B */
  uint32_t depth_a1, depth_b1;     /* L1 slots for A and B: 1, 2 (double buffer) or 3 (the copies
                                    * run depth - 1 K chunks ahead of the cube) */
  uint32_t l0_slots;               /* L0A / L0B slots: 1 or 2 */
  uint32_t l0c_slots;              /* L0C slots: 1 or 2 */
} rt_tiling;

/* Picks a tiling that fits the configuration's buffers with double buffering where it can, for
 * an m x n x k matmul of the given types (see docs/KERNELS.md for the rules). */
cs_status rt_tiling_auto(const sim_config *cfg, const rt_matmul_types *types, uint32_t m,
                         uint32_t n, uint32_t k, rt_tiling *out, cs_err *err);
/* Checks a tiling against the types and the configuration's buffers; the message names the
 * field or buffer and the numbers. */
cs_status rt_tiling_check(const sim_config *cfg, const rt_matmul_types *types,
                          const rt_tiling *t, cs_err *err);
/* Bytes each buffer needs for a tiling, indexed by isa_mem. */
void rt_tiling_footprint(const rt_matmul_types *types, const rt_tiling *t, uint64_t bytes[ISA_MEM_COUNT]);

typedef struct rt_matmul rt_matmul;

/* Creates the object and its queues (a fault if the tiling does not fit). */
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
/* The block of C the next iterate_all computes: rows m0 .. m0+m_len, columns n0 .. n0+n_len
 * (default: all of C). */
void rt_matmul_set_block(rt_matmul *mm, uint32_t m0, uint32_t n0, uint32_t m_len, uint32_t n_len);
/* Restricts the next iterate_all to `count` base tiles of the block: tiles first, first +
 * stride, first + 2 stride, ..., numbered row by row (M-major) over the block (default: every
 * tile). A stride of the core count deals the tiles round-robin, so the cores work on
 * neighbouring tiles at any moment and share what they read in L2. */
void rt_matmul_set_tile_range(rt_matmul *mm, uint64_t first, uint64_t count, uint64_t stride);
/* Base tiles in the current block. */
uint64_t rt_matmul_tile_count(const rt_matmul *mm);
/* Computes the block into C (row-major, m x n, of types->c). */
void rt_matmul_iterate_all(rt_matmul *mm, rt_gtensor c);
/* Ends the object's use (its queues drain at the end of the block). */
void rt_matmul_end(rt_matmul *mm);

/* The fixpipe quant mode a matmul of these types uses (scalar or vector word). */
isa_quant_mode rt_matmul_quant_mode(const rt_matmul_types *types, bool vector_word);

#endif
