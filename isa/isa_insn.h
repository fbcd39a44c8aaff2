/* isa_insn — the instruction table: every instruction cubesim models, declared once.
 *
 * One row of ISA_INSN_TABLE per instruction (Spike's DECLARE_INSN): its mnemonic, the pipe that
 * executes it, its operand format, the semantic family that implements it, and the memories its
 * destination and source operands may name. The table expands into the opcode enum, the names
 * used by traces and the disassembler, the pipe routing of the timing engine and the dispatch of
 * the functional model. Each semantic family lives in one small file isa/isa_sem_<family>.c.
 *
 * Operand formats are X-macros too (ISA_FMT_<name>): one row per field with its storage kind,
 * range and unit. They expand into the operand structs and into the field descriptors read by
 * the assembler, the disassembler and the generic operand checks (range, memory, alignment).
 * Field names follow the hardware's own parameter structs (DataCopyParams, Nd2NzParams,
 * LoadData2DParams, MmadParams, FixpipeParamsV220) in snake_case; units are in the names or in
 * the unit column.
 */
#ifndef ISA_INSN_H
#define ISA_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_dtype.h"

/* ---- memories -------------------------------------------------------------------------- */

/* enum suffix, name, description */
#define ISA_MEM_TABLE(X)                                              \
  X(GM, "GM", "global memory: HBM behind the chip-wide L2")           \
  X(L1, "L1", "L1 buffer (A1/B1/C1): staging for the cube")           \
  X(L0A, "L0A", "L0A buffer (A2): left operand of the cube, Zz")      \
  X(L0B, "L0B", "L0B buffer (B2): right operand of the cube, Zn")     \
  X(L0C, "L0C", "L0C buffer (CO1): cube accumulator, Nz 16x16")      \
  X(UB, "UB", "unified buffer (VECIN/VECOUT): vector unit data")      \
  X(BT, "BT", "bias table (C2): bias rows for mmad init")            \
  X(FB, "FB", "fixpipe buffer (C2PIPE2GM): per-channel quant words")

typedef enum isa_mem {
#define ISA_MEM_ENUM(sfx, name, desc) ISA_MEM_##sfx,
  ISA_MEM_TABLE(ISA_MEM_ENUM)
#undef ISA_MEM_ENUM
  ISA_MEM_COUNT
} isa_mem;

#define ISA_MEMBIT(sfx) (1u << ISA_MEM_##sfx)

const char *isa_mem_name(isa_mem m);
/* ISA_MEM_COUNT when unknown (case-insensitive). */
isa_mem isa_mem_from_name(const char *name);

/* ---- pipes ----------------------------------------------------------------------------- */

/* enum suffix, name used in programs, name of the trace track (Ascend's), description */
#define ISA_PIPE_TABLE(X)                                                       \
  X(S, "S", "SCALAR", "scalar unit: dispatches the stream")                    \
  X(MTE2, "MTE2", "MTE2", "memory transfer engine 2: GM -> L1 / UB")            \
  X(MTE1, "MTE1", "MTE1", "memory transfer engine 1: L1 -> L0A / L0B / BT / FB") \
  X(M, "M", "CUBE", "cube unit: mmad")                                          \
  X(FIX, "FIX", "FIXP", "fixpipe: L0C -> GM / L1 with quantization")            \
  X(MTE3, "MTE3", "MTE3", "memory transfer engine 3: UB -> GM")                 \
  X(V, "V", "VECTOR", "vector unit: operations on UB")

typedef enum isa_pipe {
#define ISA_PIPE_ENUM(sfx, name, track, desc) ISA_PIPE_##sfx,
  ISA_PIPE_TABLE(ISA_PIPE_ENUM)
#undef ISA_PIPE_ENUM
  ISA_PIPE_COUNT,
  ISA_PIPE_ALL = ISA_PIPE_COUNT /* pipe_barrier(ALL) only */
} isa_pipe;

const char *isa_pipe_name(isa_pipe p);        /* "MTE2"; "ALL" for ISA_PIPE_ALL */
const char *isa_pipe_track_name(isa_pipe p);  /* "MTE2", "CUBE", "FIXP", ... */
/* ISA_PIPE_COUNT + 1 when unknown; accepts "ALL" and the track names. */
isa_pipe isa_pipe_from_name(const char *name);

/* ---- fixpipe quant modes (arch 2201, docs/DESIGN.md §5.2) ----------------------------------- */

/* enum suffix, name (as Ascend's QuantMode_t), L0C type (0: either), description */
#define ISA_QUANT_TABLE(X)                                                               \
  X(NO_QUANT, "NoQuant", 0, "no conversion: fp32/int32 out as stored")                  \
  X(F322F16, "F322F16", ISA_FP32, "fp32 -> fp16, round to nearest even")                  \
  X(F322BF16, "F322BF16", ISA_FP32, "fp32 -> bf16, round to nearest even")                \
  X(DEQF16, "DEQF16", ISA_INT32, "int32 -> fp16 with the scalar word's fp19 scale")       \
  X(VDEQF16, "VDEQF16", ISA_INT32, "int32 -> fp16 with one FB word per output column")    \
  X(QF322B8_PRE, "QF322B8_PRE", ISA_FP32, "fp32 -> int8/uint8 with the scalar word")      \
  X(VQF322B8_PRE, "VQF322B8_PRE", ISA_FP32, "fp32 -> int8/uint8 with FB words per column") \
  X(REQ8, "REQ8", ISA_INT32, "int32 -> int8/uint8 with the scalar word")                  \
  X(VREQ8, "VREQ8", ISA_INT32, "int32 -> int8/uint8 with FB words per column")

typedef enum isa_quant_mode {
#define ISA_QUANT_ENUM(sfx, name, l0c, desc) ISA_QUANT_##sfx,
  ISA_QUANT_TABLE(ISA_QUANT_ENUM)
#undef ISA_QUANT_ENUM
  ISA_QUANT_COUNT
} isa_quant_mode;

const char *isa_quant_mode_name(isa_quant_mode q);
isa_quant_mode isa_quant_mode_from_name(const char *name); /* ISA_QUANT_COUNT when unknown */
/* True for the modes that read one word per output column from FB. */
bool isa_quant_mode_is_vector(isa_quant_mode q);

/* ---- enumerated operand values of the vector instructions (docs/ISA.md §vector) ------------ */

/* Each table: enum suffix, name (the text form), description. The values are Ascend C's own
 * (RoundMode, CMPMODE, SELMODE, ReduceOrder), so a value can be compared with a kernel's source. */

/* How a vector instruction's mask is read: Ascend's mask mode (CTRL[56], SetMaskNorm and
 * SetMaskCount), an operand of each instruction here. */
#define ISA_VMASK_TABLE(X)                                                                   \
  X(NORM, "norm", "normal: mask_hi:mask_lo enable elements of each repeat; repeat_times repeats") \
  X(COUNTER, "counter", "counter: mask_lo elements in all, in as many repeats as they need")

/* Rounding of a conversion (Ascend C RoundMode; CAST_HYBRID is not on A2). */
#define ISA_ROUND_TABLE(X)                                                                  \
  X(NONE, "none", "CAST_NONE: as rint where the conversion is inexact")                   \
  X(RINT, "rint", "CAST_RINT: to nearest, ties to even")                                  \
  X(FLOOR, "floor", "CAST_FLOOR: toward -inf")                                            \
  X(CEIL, "ceil", "CAST_CEIL: toward +inf")                                               \
  X(ROUND, "round", "CAST_ROUND: to nearest, ties away from zero")                        \
  X(TRUNC, "trunc", "CAST_TRUNC: toward zero")                                            \
  X(ODD, "odd", "CAST_ODD: to odd (Von Neumann): an inexact result gets an odd last bit")

/* Comparison of vcmp (Ascend C CMPMODE): src0 <op> src1. */
#define ISA_CMP_TABLE(X)                   \
  X(LT, "lt", "src0 < src1")               \
  X(GT, "gt", "src0 > src1")               \
  X(EQ, "eq", "src0 == src1")              \
  X(LE, "le", "src0 <= src1")              \
  X(GE, "ge", "src0 >= src1")              \
  X(NE, "ne", "src0 != src1")

/* Where vsel's second choice and its selection bits come from (Ascend C SELMODE). */
#define ISA_SEL_TABLE(X)                                                                       \
  X(CMPMASK, "cmpmask", "VSEL_CMPMASK_SPR: bits 0..P-1 of sel for every repeat; src1 a tensor")  \
  X(TENSOR_SCALAR, "tensor_scalar", "VSEL_TENSOR_SCALAR_MODE: bits r*P.. for repeat r; src1 the scalar") \
  X(TENSOR_TENSOR, "tensor_tensor", "VSEL_TENSOR_TENSOR_MODE: bits r*P.. for repeat r; src1 a tensor")

/* What a max/min reduction writes per repeat (Ascend C ReduceOrder). */
#define ISA_ORDER_TABLE(X)                                         \
  X(VALUE_INDEX, "value_index", "the value, then its index")       \
  X(INDEX_VALUE, "index_value", "the index, then the value")       \
  X(ONLY_VALUE, "only_value", "the value")                         \
  X(ONLY_INDEX, "only_index", "the index, as a uint32")

typedef enum isa_vmask_mode {
#define ISA_VMASK_ENUM(sfx, name, desc) ISA_VMASK_##sfx,
  ISA_VMASK_TABLE(ISA_VMASK_ENUM)
#undef ISA_VMASK_ENUM
  ISA_VMASK_COUNT
} isa_vmask_mode;

typedef enum isa_round_mode {
#define ISA_ROUND_ENUM(sfx, name, desc) ISA_ROUND_##sfx,
  ISA_ROUND_TABLE(ISA_ROUND_ENUM)
#undef ISA_ROUND_ENUM
  ISA_ROUND_COUNT
} isa_round_mode;

typedef enum isa_cmp_mode {
#define ISA_CMP_ENUM(sfx, name, desc) ISA_CMP_##sfx,
  ISA_CMP_TABLE(ISA_CMP_ENUM)
#undef ISA_CMP_ENUM
  ISA_CMP_COUNT
} isa_cmp_mode;

typedef enum isa_sel_mode {
#define ISA_SEL_ENUM(sfx, name, desc) ISA_SEL_##sfx,
  ISA_SEL_TABLE(ISA_SEL_ENUM)
#undef ISA_SEL_ENUM
  ISA_SEL_COUNT
} isa_sel_mode;

typedef enum isa_reduce_order {
#define ISA_ORDER_ENUM(sfx, name, desc) ISA_ORDER_##sfx,
  ISA_ORDER_TABLE(ISA_ORDER_ENUM)
#undef ISA_ORDER_ENUM
  ISA_ORDER_COUNT
} isa_reduce_order;

/* ---- operand fields -------------------------------------------------------------------- */

/* A memory operand: which memory, and the byte offset in it (GM: the global address). */
typedef struct isa_addr {
  uint32_t mem; /* isa_mem */
  uint64_t off; /* bytes */
} isa_addr;

/* Storage kinds of operand fields. All small scalars are stored as uint32_t. */
typedef enum isa_field_kind {
  ISA_FK_ADDR,  /* isa_addr, written MEM:offset */
  ISA_FK_U32,   /* uint32_t, decimal */
  ISA_FK_U64,   /* uint64_t, hex (quant words) */
  ISA_FK_BOOL,  /* uint32_t 0/1 */
  ISA_FK_DTYPE, /* uint32_t isa_dtype */
  ISA_FK_QUANT, /* uint32_t isa_quant_mode */
  ISA_FK_PIPE,  /* uint32_t isa_pipe (ALL allowed where the max says so) */
  ISA_FK_VMASK, /* uint32_t isa_vmask_mode */
  ISA_FK_ROUND, /* uint32_t isa_round_mode */
  ISA_FK_CMP,   /* uint32_t isa_cmp_mode */
  ISA_FK_SEL,   /* uint32_t isa_sel_mode */
  ISA_FK_ORDER  /* uint32_t isa_reduce_order */
} isa_field_kind;

/* The value names of an enumerated kind taken from the tables above (VMASK, ROUND, CMP, SEL,
 * ORDER), their number in *n; NULL for the other kinds (DTYPE, QUANT and PIPE have their own
 * name functions, with aliases). Readers of the operand tables use it to write and parse the
 * names, so a new enumerated kind needs no code in them. */
const char *const *isa_field_enum_names(isa_field_kind k, size_t *n);
/* The name of value v of an enumerated kind; "?" when it names nothing. */
const char *isa_field_enum_name(isa_field_kind k, uint32_t v);

#define ISA_CTYPE_ADDR isa_addr
#define ISA_CTYPE_U32 uint32_t
#define ISA_CTYPE_U64 uint64_t
#define ISA_CTYPE_BOOL uint32_t
#define ISA_CTYPE_DTYPE uint32_t
#define ISA_CTYPE_QUANT uint32_t
#define ISA_CTYPE_PIPE uint32_t
#define ISA_CTYPE_VMASK uint32_t
#define ISA_CTYPE_ROUND uint32_t
#define ISA_CTYPE_CMP uint32_t
#define ISA_CTYPE_SEL uint32_t
#define ISA_CTYPE_ORDER uint32_t

/* Formats: F(kind, field, min, max, unit, description). For ADDR fields, min is the bitmask of
 * memories the field may name in any instruction using the format (the instruction row narrows
 * it) and max is unused. Ranges are the hardware's documented limits where known. */

/* DataCopy with byte lengths (DataCopyParams / DataCopyPad): block_count bursts of
 * block_len_bytes; gaps are the bytes skipped between bursts on each side. */
#define ISA_FMT_copy(F)                                                                  \
  F(ADDR, dst, 0, 0, "", "destination")                                                  \
  F(ADDR, src, 0, 0, "", "source")                                                       \
  F(U32, block_count, 1, 4095, "bursts", "number of bursts")                             \
  F(U32, block_len_bytes, 1, 2097152, "bytes", "bytes per burst")                        \
  F(U32, src_gap_bytes, 0, 4294967295u, "bytes", "bytes skipped in the source between bursts") \
  F(U32, dst_gap_bytes, 0, 4294967295u, "bytes", "bytes skipped in the destination between bursts") \
  F(BOOL, l2_bypass, 0, 1, "", "GM side: neither look up nor fill the L2 (CACHE_MODE_DISABLE)")

/* DataCopy GM -> L1 with ND -> NZ conversion (Nd2NzParams, docs/DESIGN.md §4). */
#define ISA_FMT_nd2nz(F)                                                                    \
  F(ADDR, dst, 0, 0, "", "destination (NZ)")                                                \
  F(ADDR, src, 0, 0, "", "source (ND)")                                                     \
  F(DTYPE, dtype, 0, 0, "", "element type")                                                 \
  F(U32, nd_num, 1, 4095, "matrices", "number of ND matrices")                              \
  F(U32, n_value, 1, 16384, "rows", "rows of each ND matrix")                               \
  F(U32, d_value, 1, 65535, "elements", "columns of each ND matrix")                        \
  F(U32, src_nd_matrix_stride, 0, 65535, "elements", "source distance between matrices")    \
  F(U32, src_d_value, 1, 65535, "elements", "source row stride")                            \
  F(U32, dst_nz_c0_stride, 1, 16384, "32B blocks", "destination distance between C0 column blocks") \
  F(U32, dst_nz_n_stride, 1, 16384, "32B blocks", "destination distance between rows")       \
  F(U32, dst_nz_matrix_stride, 0, 65535, "elements", "destination distance between matrices") \
  F(BOOL, l2_bypass, 0, 1, "", "neither look up nor fill the L2 (CACHE_MODE_DISABLE)")

/* LoadData 2-D: whole 512-byte fractals L1 -> L0A/L0B (LoadData2DParams). With if_transpose,
 * each repeat moves one C0 x C0 square (C0/16 fractals) transposed (docs/DESIGN.md §3). */
#define ISA_FMT_load2d(F)                                                              \
  F(ADDR, dst, 0, 0, "", "destination")                                                \
  F(ADDR, src, 0, 0, "", "source")                                                     \
  F(DTYPE, dtype, 0, 0, "", "element type")                                            \
  F(U32, start_index, 0, 65535, "fractals", "first source fractal")                    \
  F(U32, repeat_times, 1, 255, "repeats", "fractals (squares when transposing) moved") \
  F(U32, src_stride, 0, 65535, "fractals", "source distance between repeats")          \
  F(U32, dst_gap, 0, 65535, "fractals", "destination fractals skipped between repeats") \
  F(BOOL, if_transpose, 0, 1, "", "transpose each C0 x C0 square")                     \
  F(U32, dst_frac_gap, 0, 65535, "fractals", "transposing: destination fractals skipped between the fractals of one square")

/* LoadData 3-D (LoadData3DParamsV2) in the case a matmul uses: a 1 x 1 filter, stride 1, no
 * padding, so the feature map [l1_h x l1_w positions, channel_size channels] in L1 (C0-wide
 * channel blocks of l1_h * l1_w positions, each position C0 elements: an NZ matrix) is the
 * matrix [positions, channels]. One instruction writes its m_extension x k_extension part from
 * (m_start, k_start) into L0A as Zz: 16 x C0 fractals, row block by row block, the k blocks of a
 * row block one after the other (docs/ISA.md, "load3d"). */
#define ISA_FMT_load3d(F)                                                              \
  F(ADDR, dst, 0, 0, "", "destination (L0A)")                                          \
  F(ADDR, src, 0, 0, "", "feature map in L1")                                          \
  F(DTYPE, dtype, 0, 0, "", "element type")                                            \
  F(U32, l1_h, 1, 32767, "positions", "feature map height")                            \
  F(U32, l1_w, 1, 32767, "positions", "feature map width")                             \
  F(U32, channel_size, 1, 65535, "elements", "channels of the feature map (padded to C0 in L1)") \
  F(U32, m_extension, 16, 65535, "positions", "rows written (a multiple of 16)")      \
  F(U32, k_extension, 1, 65535, "elements", "columns written (a multiple of C0)")      \
  F(U32, m_start, 0, 65535, "positions", "first row (a multiple of 16)")               \
  F(U32, k_start, 0, 65535, "elements", "first column (a multiple of C0)")

/* Mmad: C[m x n] (L0C, Nz) = A[m x k] (L0A, Zz) * B[k x n] (L0B, Zn) (+ C, or + bias). */
#define ISA_FMT_mmad(F)                                                              \
  F(ADDR, dst, 0, 0, "", "C in L0C")                                                 \
  F(ADDR, a, 0, 0, "", "A in L0A")                                                   \
  F(ADDR, b, 0, 0, "", "B in L0B")                                                   \
  F(ADDR, bias, 0, 0, "", "bias row in BT (used when bias_en)")                      \
  F(DTYPE, dtype, 0, 0, "", "type of A and B (int8, int4, fp16, bf16)")              \
  F(U32, m, 1, 4095, "rows", "rows of A and C")                                       \
  F(U32, n, 1, 4095, "columns", "columns of B and C")                                 \
  F(U32, k, 1, 4095, "elements", "columns of A, rows of B")                           \
  F(BOOL, init_c, 0, 1, "", "1: C = A*B (+bias); 0: C += A*B")                      \
  F(BOOL, bias_en, 0, 1, "", "initialise C from the BT bias row (needs init_c)")        \
  F(U32, unit_flag, 0, 3, "", "UnitFlag: 0 off; 2 on, more mmads follow into this C; 3 on, the last (1 reserved)")

/* Fixpipe L0C -> GM / L1 (FixpipeParamsV220, docs/DESIGN.md §5.2). */
#define ISA_FMT_fixpipe(F)                                                                 \
  F(ADDR, dst, 0, 0, "", "destination")                                                    \
  F(ADDR, src, 0, 0, "", "source in L0C (Nz)")                                             \
  F(ADDR, fb, 0, 0, "", "per-column quant words in FB (vector modes)")                     \
  F(DTYPE, l0c_dtype, 0, 0, "", "type held in L0C (int32 or fp32)")                        \
  F(DTYPE, out_dtype, 0, 0, "", "type written")                                            \
  F(QUANT, quant_pre, 0, 0, "", "quant mode")                                              \
  F(U64, deq_scalar, 0, 0, "", "scalar quant word (scalar modes)")                         \
  F(BOOL, relu_en, 0, 1, "", "ReLU")                                                       \
  F(BOOL, nz2nd_en, 0, 1, "", "1: write ND; 0: keep the 16-column Nz blocks")              \
  F(U32, n_size, 1, 4095, "columns", "columns moved")                                      \
  F(U32, m_size, 1, 65535, "rows", "rows moved")                                           \
  F(U32, src_stride, 1, 65535, "rows", "L0C rows (of 16 elements) between column blocks")  \
  F(U32, dst_stride, 1, 4294967295u, "elements", "ND: row stride; Nz: rows between column blocks") \
  F(U32, nd_num, 1, 65535, "matrices", "matrices moved")                                   \
  F(U32, src_nd_stride, 0, 65535, "rows", "L0C rows (of 16 elements) between matrices")    \
  F(U32, dst_nd_stride, 0, 4294967295u, "elements", "destination distance between matrices") \
  F(U32, unit_flag, 0, 3, "", "UnitFlag: 0 off; 2 or 3: follow the unit-flag mmad in 512 B units (1 reserved)")

/* set_flag / wait_flag: an event from one pipe to another. */
#define ISA_FMT_flag(F)                                          \
  F(PIPE, src_pipe, 0, ISA_PIPE_COUNT - 1, "", "pipe that sets") \
  F(PIPE, dst_pipe, 0, ISA_PIPE_COUNT - 1, "", "pipe that waits") \
  F(U32, event_id, 0, 7, "", "event id")

/* cross_set_flag / cross_wait_flag: Ascend C's CrossCoreSetFlag<mode, pipe>(flag_id) and
 * CrossCoreWaitFlag(flag_id), between the cores of a chip (docs/ISA.md, "Cross-core flags").
 * Each core has a counter per flag id; a set raises the counters of the cores its mode names,
 * a wait on `pipe` passes when its own counter is above 0 and takes one. */
#define ISA_FMT_xflag(F)                                                                         \
  F(U32, mode, 0, 2, "", "set: 0 all cores of its kind, 1 the AIVs of its AI core, 2 AIC <-> AIVs; wait: unused") \
  F(PIPE, pipe, 0, ISA_PIPE_COUNT - 1, "", "set: the pipe whose earlier work it waits for (not S); wait: the pipe it holds") \
  F(U32, flag_id, 0, 10, "", "flag id (A2: 0 to 10)")

/* sync_all: Ascend C's SyncAll, a barrier of the launch's cores (every pipe drained first). */
#define ISA_FMT_syncall(F) F(U32, aiv_only, 0, 1, "", "1: the AIVs only (SyncAll<true>); 0: every core")

/* scalar: work of the scalar unit itself (loop control, address arithmetic, reading tiling
 * data) that occupies it, and so the dispatch of what follows, for `cycles`. */
#define ISA_FMT_scalar(F) F(U32, cycles, 1, 100000000, "cycles", "cycles of scalar work")

/* pipe_barrier: the pipe (or ALL) waits for all its earlier work. */
#define ISA_FMT_barrier(F) F(PIPE, pipe, 0, ISA_PIPE_ALL, "", "pipe, or ALL")

/* Vector dequant on UB: dst[r][c] = out_dtype(fp32(src[r][c]) * scale[c]), RNE. */
#define ISA_FMT_vdeq(F)                                                           \
  F(ADDR, dst, 0, 0, "", "result")                                                \
  F(ADDR, src, 0, 0, "", "int32 input")                                           \
  F(ADDR, scale, 0, 0, "", "fp32 scale per column")                               \
  F(DTYPE, out_dtype, 0, 0, "", "fp32, fp16 or bf16")                             \
  F(U32, rows, 1, 65535, "rows", "rows")                                          \
  F(U32, cols, 1, 65535, "elements", "columns")                                   \
  F(U32, src_row_stride, 1, 4294967295u, "elements", "source row stride")         \
  F(U32, dst_row_stride, 1, 4294967295u, "elements", "destination row stride")

/* The vector instructions below work in repeats, as Ascend's vector unit does (docs/ISA.md
 * §vector): a repeat covers 256 bytes of its widest operand, P = 256 / (widest element size)
 * elements, in 8 blocks of 32 bytes. Element i of repeat r of an operand with elements of s
 * bytes lies at
 *     base + r * rep_stride * 32 + (i / (32 / s)) * blk_stride * 32 + (i % (32 / s)) * s
 * (the strides of Ascend's BinaryRepeatParams / UnaryRepeatParams, in 32-byte blocks). Which
 * elements take part is said by the mask fields, the same in every format: */
#define ISA_VEC_MASK_FIELDS(F)                                                                 \
  F(VMASK, mask_mode, 0, ISA_VMASK_COUNT - 1, "",                                              \
    "norm: the mask bits enable elements of each repeat; counter: mask_lo elements in all")      \
  F(U64, mask_hi, 0, 0, "", "norm: enable bits of elements 64..127 of a repeat (16-bit types)")  \
  F(U64, mask_lo, 0, 0, "", "norm: enable bits of elements 0..63 of a repeat; counter: elements") \
  F(U32, repeat_times, 0, 255, "repeats", "norm: repeats (0: nothing); counter: not used")

/* The strides of Ascend's UnaryRepeatParams and BinaryRepeatParams, in 32-byte blocks. */
#define ISA_VEC_UNARY_STRIDES(F)                                                                \
  F(U32, dst_blk_stride, 1, 255, "32B blocks", "dst: distance between the blocks of a repeat") \
  F(U32, src_blk_stride, 0, 255, "32B blocks", "src: distance between the blocks of a repeat") \
  F(U32, dst_rep_stride, 0, 255, "32B blocks", "dst: distance between repeats")             \
  F(U32, src_rep_stride, 0, 255, "32B blocks", "src: distance between repeats")
#define ISA_VEC_BINARY_STRIDES(F)                                                               \
  F(U32, dst_blk_stride, 1, 255, "32B blocks", "dst: distance between the blocks of a repeat") \
  F(U32, src0_blk_stride, 0, 255, "32B blocks", "src0: distance between the blocks of a repeat") \
  F(U32, src1_blk_stride, 0, 255, "32B blocks", "src1: distance between the blocks of a repeat") \
  F(U32, dst_rep_stride, 0, 255, "32B blocks", "dst: distance between repeats")             \
  F(U32, src0_rep_stride, 0, 255, "32B blocks", "src0: distance between repeats")           \
  F(U32, src1_rep_stride, 0, 255, "32B blocks", "src1: distance between repeats")

/* Element-wise binary operations (Add, Sub, Mul, Div, Max, Min): dst = src0 op src1. */
#define ISA_FMT_vbinary(F)                                                                  \
  F(ADDR, dst, 0, 0, "", "result")                                                          \
  F(ADDR, src0, 0, 0, "", "first input")                                                    \
  F(ADDR, src1, 0, 0, "", "second input")                                                   \
  F(DTYPE, dtype, 0, 0, "", "element type of every operand")                                \
  ISA_VEC_MASK_FIELDS(F)                                                                    \
  ISA_VEC_BINARY_STRIDES(F)

/* Element-wise unary operations (Exp, Ln, Sqrt, Reciprocal, Relu, Abs): dst = op(src). */
#define ISA_FMT_vunary(F)                                                                   \
  F(ADDR, dst, 0, 0, "", "result")                                                          \
  F(ADDR, src, 0, 0, "", "input")                                                           \
  F(DTYPE, dtype, 0, 0, "", "element type of both operands")                                \
  ISA_VEC_MASK_FIELDS(F)                                                                    \
  ISA_VEC_UNARY_STRIDES(F)

/* Tensor-scalar operations (Adds, Muls, Maxs, Mins): dst = src op scalar. */
#define ISA_FMT_vscalar(F)                                                                  \
  F(ADDR, dst, 0, 0, "", "result")                                                          \
  F(ADDR, src, 0, 0, "", "input")                                                           \
  F(DTYPE, dtype, 0, 0, "", "element type of both operands and of the scalar")              \
  F(U64, scalar, 0, 0, "", "the scalar's bits in dtype (low 16 bits for 16-bit types)")      \
  ISA_VEC_MASK_FIELDS(F)                                                                    \
  ISA_VEC_UNARY_STRIDES(F)

/* Duplicate: dst = scalar. */
#define ISA_FMT_vdup(F)                                                                     \
  F(ADDR, dst, 0, 0, "", "result")                                                          \
  F(DTYPE, dtype, 0, 0, "", "element type")                                                 \
  F(U64, scalar, 0, 0, "", "the scalar's bits in dtype (low 16 bits for 16-bit types)")      \
  ISA_VEC_MASK_FIELDS(F)                                                                    \
  F(U32, dst_blk_stride, 1, 65535, "32B blocks", "dst: distance between the blocks of a repeat") \
  F(U32, dst_rep_stride, 0, 255, "32B blocks", "dst: distance between repeats")

/* Copy within UB (Ascend's vcopy, Ascend C's Copy with CopyRepeatParams): dst = src lane by
 * lane, bits as they are. Its strides are 16-bit, where the arithmetic families' repeat strides
 * are 8-bit: a copy can scatter a repeat's blocks far apart (ND -> NZ in UB). */
#define ISA_FMT_vcopy(F)                                                                    \
  F(ADDR, dst, 0, 0, "", "result")                                                          \
  F(ADDR, src, 0, 0, "", "input")                                                           \
  F(DTYPE, dtype, 0, 0, "", "element type of both operands (16 or 32 bits)")                \
  ISA_VEC_MASK_FIELDS(F)                                                                    \
  F(U32, dst_blk_stride, 1, 65535, "32B blocks", "dst: distance between the blocks of a repeat (dstStride)") \
  F(U32, src_blk_stride, 0, 65535, "32B blocks", "src: distance between the blocks of a repeat (srcStride)") \
  F(U32, dst_rep_stride, 0, 65535, "32B blocks", "dst: distance between repeats (dstRepeatSize)") \
  F(U32, src_rep_stride, 0, 65535, "32B blocks", "src: distance between repeats (srcRepeatSize)")

/* Brcb: repeat r reads the 8 elements src[8r .. 8r+7] and fills destination block j of the
 * repeat with copies of src[8r + j]. No mask. */
#define ISA_FMT_vbrcb(F)                                                                    \
  F(ADDR, dst, 0, 0, "", "result: 8 blocks a repeat")                                       \
  F(ADDR, src, 0, 0, "", "input: 8 contiguous elements a repeat")                           \
  F(DTYPE, dtype, 0, 0, "", "element type")                                                 \
  F(U32, repeat_times, 0, 255, "repeats", "repeats (0: nothing)")                           \
  F(U32, dst_blk_stride, 1, 255, "32B blocks", "dst: distance between the blocks of a repeat") \
  F(U32, dst_rep_stride, 0, 255, "32B blocks", "dst: distance between repeats")

/* Compare: bit n of dst (byte n / 8, bit n % 8) = src0[n] <cmp_mode> src1[n] for element n =
 * r * P + i. On A2 the mask bits are not used: every element of a repeat is compared, and a
 * counter-mode instruction compares whole repeats only (the tail is left out). */
#define ISA_FMT_vcmp(F)                                                                     \
  F(ADDR, dst, 0, 0, "", "result bits, P / 8 bytes a repeat, packed")                       \
  F(ADDR, src0, 0, 0, "", "first input")                                                    \
  F(ADDR, src1, 0, 0, "", "second input")                                                   \
  F(DTYPE, dtype, 0, 0, "", "element type of the inputs")                                   \
  F(CMP, cmp_mode, 0, ISA_CMP_COUNT - 1, "", "the comparison")                              \
  ISA_VEC_MASK_FIELDS(F)                                                                    \
  F(U32, src0_blk_stride, 0, 255, "32B blocks", "src0: distance between the blocks of a repeat") \
  F(U32, src1_blk_stride, 0, 255, "32B blocks", "src1: distance between the blocks of a repeat") \
  F(U32, src0_rep_stride, 0, 255, "32B blocks", "src0: distance between repeats")           \
  F(U32, src1_rep_stride, 0, 255, "32B blocks", "src1: distance between repeats")

/* Select: dst = sel bit ? src0 : (src1 or the scalar), per sel_mode. */
#define ISA_FMT_vsel(F)                                                                     \
  F(ADDR, dst, 0, 0, "", "result")                                                          \
  F(ADDR, sel, 0, 0, "", "selection bits (as vcmp writes them)")                            \
  F(ADDR, src0, 0, 0, "", "chosen where the bit is 1")                                      \
  F(ADDR, src1, 0, 0, "", "chosen where the bit is 0 (not used in tensor_scalar mode)")     \
  F(DTYPE, dtype, 0, 0, "", "element type of dst, src0, src1 and the scalar")               \
  F(SEL, sel_mode, 0, ISA_SEL_COUNT - 1, "", "where the bits and the second choice come from") \
  F(U64, scalar, 0, 0, "", "tensor_scalar mode: the second choice's bits in dtype")         \
  ISA_VEC_MASK_FIELDS(F)                                                                    \
  ISA_VEC_BINARY_STRIDES(F)

/* Cast: dst = src converted to dst_dtype with round_mode. P follows the wider of the two types;
 * the mask counts elements of that P. */
#define ISA_FMT_vcast(F)                                                                    \
  F(ADDR, dst, 0, 0, "", "result")                                                          \
  F(ADDR, src, 0, 0, "", "input")                                                           \
  F(DTYPE, src_dtype, 0, 0, "", "input type")                                               \
  F(DTYPE, dst_dtype, 0, 0, "", "result type")                                              \
  F(ROUND, round_mode, 0, ISA_ROUND_COUNT - 1, "", "rounding (the pair says which are allowed)") \
  ISA_VEC_MASK_FIELDS(F)                                                                    \
  ISA_VEC_UNARY_STRIDES(F)

/* ReduceRepeat (WholeReduceSum / Max / Min): each repeat's enabled elements reduced to one
 * result, written at dst + r * dst_rep_stride results. */
#define ISA_FMT_vreduce(F)                                                                  \
  F(ADDR, dst, 0, 0, "", "results, one per repeat")                                         \
  F(ADDR, src, 0, 0, "", "input")                                                           \
  F(DTYPE, dtype, 0, 0, "", "element type of src and of the values written")               \
  F(ORDER, order, 0, ISA_ORDER_COUNT - 1, "", "max / min: value and index written, and in which order") \
  ISA_VEC_MASK_FIELDS(F)                                                                    \
  F(U32, dst_rep_stride, 0, 65535, "results", "dst: distance between the results of repeats") \
  F(U32, src_blk_stride, 0, 65535, "32B blocks", "src: distance between the blocks of a repeat") \
  F(U32, src_rep_stride, 0, 65535, "32B blocks", "src: distance between repeats")

/* The list of formats, for generic expansion. */
#define ISA_FORMAT_LIST(X) X(copy) X(nd2nz) X(load2d) X(load3d) X(mmad) X(fixpipe) X(flag) X(barrier) X(scalar) X(xflag) X(syncall) \
  X(vdeq) X(vbinary) X(vunary) X(vscalar) X(vdup) X(vcopy) X(vbrcb) X(vcmp) X(vsel) X(vcast) X(vreduce)

#define ISA_FIELD_MEMBER(kind, name, min, max, unit, desc) ISA_CTYPE_##kind name;
#define ISA_FMT_STRUCT(fmt) typedef struct isa_fmt_##fmt { ISA_FMT_##fmt(ISA_FIELD_MEMBER) } isa_fmt_##fmt;
ISA_FORMAT_LIST(ISA_FMT_STRUCT)
#undef ISA_FMT_STRUCT

/* ---- the instruction table ------------------------------------------------------------- */

/* X(OP, mnemonic, pipe, format, dst memories, src memories, description). The format is also
 * the semantic family: isa/isa_sem_<format>.c implements every instruction of that format.
 * The pipe DYN means the instruction names its pipe in an operand (flags and barriers). For
 * formats with more than two ADDR fields, the family's check narrows the others itself. */
#define ISA_PIPE_DYN ISA_PIPE_COUNT
#define ISA_INSN_TABLE(X)                                                                      \
  X(COPY_GM_L1, copy_gm_l1, MTE2, copy, ISA_MEMBIT(L1), ISA_MEMBIT(GM),                  \
    "DataCopy GM -> L1, plain")                                                                \
  X(COPY_GM_L1_ND2NZ, copy_gm_l1_nd2nz, MTE2, nd2nz, ISA_MEMBIT(L1), ISA_MEMBIT(GM),    \
    "DataCopy GM -> L1 converting ND to NZ")                                                   \
  X(LOAD_L0A, load_l0a, MTE1, load2d, ISA_MEMBIT(L0A), ISA_MEMBIT(L1),                 \
    "LoadData L1 -> L0A, whole fractals")                                                      \
  X(LOAD_L0B, load_l0b, MTE1, load2d, ISA_MEMBIT(L0B), ISA_MEMBIT(L1),                 \
    "LoadData L1 -> L0B, whole fractals, optionally transposed")                               \
  X(LOAD3D_L0A, load3d_l0a, MTE1, load3d, ISA_MEMBIT(L0A), ISA_MEMBIT(L1),            \
    "LoadData L1 -> L0A as img2col of a 1 x 1 filter: an NZ matrix to Zz in one instruction") \
  X(COPY_L1_BT, copy_l1_bt, MTE1, copy, ISA_MEMBIT(BT), ISA_MEMBIT(L1),                  \
    "DataCopy L1 -> bias table")                                                               \
  X(COPY_L1_FB, copy_l1_fb, MTE1, copy, ISA_MEMBIT(FB), ISA_MEMBIT(L1),                  \
    "DataCopy L1 -> fixpipe buffer (quant words)")                                             \
  X(MMAD, mmad, M, mmad, ISA_MEMBIT(L0C), ISA_MEMBIT(L0A), "matrix multiply-accumulate") \
  X(FIXPIPE, fixpipe, FIX, fixpipe, ISA_MEMBIT(GM) | ISA_MEMBIT(L1), ISA_MEMBIT(L0C),  \
    "Fixpipe L0C -> GM / L1 with quantization, ReLU and Nz -> ND")                             \
  X(COPY_GM_UB, copy_gm_ub, MTE2, copy, ISA_MEMBIT(UB), ISA_MEMBIT(GM),                  \
    "DataCopy GM -> UB")                                                                       \
  X(COPY_UB_GM, copy_ub_gm, MTE3, copy, ISA_MEMBIT(GM), ISA_MEMBIT(UB),                  \
    "DataCopy UB -> GM")                                                                       \
  X(VDEQ, vdeq, V, vdeq, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                                 \
    "vector dequant: int32 x fp32 column scale -> fp32/fp16/bf16")                             \
  X(VADD, vadd, V, vbinary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                           \
    "Add: dst = src0 + src1")                                                         \
  X(VSUB, vsub, V, vbinary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                           \
    "Sub: dst = src0 - src1")                                                         \
  X(VMUL, vmul, V, vbinary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                           \
    "Mul: dst = src0 * src1")                                                         \
  X(VDIV, vdiv, V, vbinary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                           \
    "Div: dst = src0 / src1")                                                         \
  X(VMAX, vmax, V, vbinary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                           \
    "Max: dst = max(src0, src1)")                                                     \
  X(VMIN, vmin, V, vbinary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                           \
    "Min: dst = min(src0, src1)")                                                     \
  X(VEXP, vexp, V, vunary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                            \
    "Exp: dst = e^src, correctly rounded")                                            \
  X(VLN, vln, V, vunary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                              \
    "Ln: dst = ln(src), correctly rounded")                                           \
  X(VSQRT, vsqrt, V, vunary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                          \
    "Sqrt: dst = sqrt(src)")                                                          \
  X(VREC, vrec, V, vunary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                            \
    "Reciprocal: dst = 1 / src")                                                      \
  X(VRELU, vrelu, V, vunary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                          \
    "Relu: dst = max(src, 0)")                                                        \
  X(VABS, vabs, V, vunary, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                            \
    "Abs: dst = |src|")                                                               \
  X(VADDS, vadds, V, vscalar, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                         \
    "Adds: dst = src + scalar")                                                       \
  X(VMULS, vmuls, V, vscalar, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                         \
    "Muls: dst = src * scalar")                                                       \
  X(VMAXS, vmaxs, V, vscalar, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                         \
    "Maxs: dst = max(src, scalar)")                                                   \
  X(VMINS, vmins, V, vscalar, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                         \
    "Mins: dst = min(src, scalar)")                                                   \
  X(VDUP, vdup, V, vdup, ISA_MEMBIT(UB), 0,                                           \
    "Duplicate: dst = scalar")                                                        \
  X(VCOPY, vcopy, V, vcopy, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                          \
    "Copy: dst = src within UB, bits as they are")                                    \
  X(VBRCB, vbrcb, V, vbrcb, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                           \
    "Brcb: each of 8 elements fills one 32-byte block")                               \
  X(VCMP, vcmp, V, vcmp, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                              \
    "Compare: one result bit per element")                                            \
  X(VSEL, vsel, V, vsel, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                              \
    "Select: by bits, from src0 or src1 / the scalar")                                \
  X(VCAST, vcast, V, vcast, ISA_MEMBIT(UB), ISA_MEMBIT(UB),                           \
    "Cast: type conversion with a rounding mode")                                     \
  X(VREDUCE_SUM, vreduce_sum, V, vreduce, ISA_MEMBIT(UB), ISA_MEMBIT(UB),             \
    "ReduceRepeat SUM: each repeat's sum")                                            \
  X(VREDUCE_MAX, vreduce_max, V, vreduce, ISA_MEMBIT(UB), ISA_MEMBIT(UB),             \
    "ReduceRepeat MAX: each repeat's max")                                            \
  X(VREDUCE_MIN, vreduce_min, V, vreduce, ISA_MEMBIT(UB), ISA_MEMBIT(UB),             \
    "ReduceRepeat MIN: each repeat's min")                                            \
  X(SET_FLAG, set_flag, DYN, flag, 0, 0, "set an event flag when the source pipe drains") \
  X(WAIT_FLAG, wait_flag, DYN, flag, 0, 0, "block the destination pipe until the flag")  \
  X(PIPE_BARRIER, pipe_barrier, DYN, barrier, 0, 0, "wait for all earlier work of a pipe") \
  X(SCALAR, scalar, S, scalar, 0, 0, "scalar work: loop control, address arithmetic, tiling reads") \
  X(CROSS_SET_FLAG, cross_set_flag, DYN, xflag, 0, 0, "CrossCoreSetFlag: raise other cores' counters when the pipe drains") \
  X(CROSS_WAIT_FLAG, cross_wait_flag, DYN, xflag, 0, 0, "CrossCoreWaitFlag: hold the pipe until the core's counter is above 0") \
  X(SYNC_ALL, sync_all, DYN, syncall, 0, 0, "SyncAll: every core of the launch (or every AIV) meets here")

typedef enum isa_op {
#define ISA_OP_ENUM(op, mn, pipe, fmt, dstm, srcm, desc) ISA_OP_##op,
  ISA_INSN_TABLE(ISA_OP_ENUM)
#undef ISA_OP_ENUM
  ISA_OP_COUNT
} isa_op;

/* One instruction record: the opcode and its operands. Plain data, copied by value. */
typedef struct isa_insn {
  uint32_t op; /* isa_op */
  union {
#define ISA_FMT_UNION_MEMBER(fmt) isa_fmt_##fmt fmt;
    ISA_FORMAT_LIST(ISA_FMT_UNION_MEMBER)
#undef ISA_FMT_UNION_MEMBER
  } u;
} isa_insn;

/* ---- table introspection --------------------------------------------------------------- */

typedef struct isa_field_desc {
  const char *name;
  isa_field_kind kind;
  size_t offset; /* within the format struct (== within isa_insn.u) */
  uint64_t min, max;
  const char *unit;
  const char *desc;
} isa_field_desc;

typedef struct isa_op_desc {
  const char *mnemonic;
  isa_pipe pipe; /* ISA_PIPE_DYN: from the operands */
  const char *format;
  const isa_field_desc *fields;
  size_t field_count;
  uint32_t dst_mems, src_mems; /* bitmasks of isa_mem for the fields named dst and src */
  const char *desc;
} isa_op_desc;

const isa_op_desc *isa_op_info(isa_op op);
/* ISA_OP_COUNT when unknown. */
isa_op isa_op_from_mnemonic(const char *mnemonic);
/* The pipe that executes this instruction (resolving DYN from the operands: set_flag runs on
 * its src_pipe, wait_flag on its dst_pipe, pipe_barrier on its pipe — ALL: see the engine). */
isa_pipe isa_insn_pipe(const isa_insn *in);
/* Pointer to field f of the instruction's operands. */
void *isa_field_ptr(isa_insn *in, const isa_field_desc *f);
const void *isa_field_cptr(const isa_insn *in, const isa_field_desc *f);

#define ISA_MAX_ADDRS 8 /* address operands of a format, at most */
/* The instruction's address operands in the order of its format's fields: a[i] points into in,
 * fd[i] describes it. Returns their count. The opcode must be known (isa_op_info). */
size_t isa_insn_addrs(const isa_insn *in, const isa_addr *a[ISA_MAX_ADDRS], const isa_field_desc *fd[ISA_MAX_ADDRS]);

/* ---- faults ---------------------------------------------------------------------------- */

/* enum suffix, short name, description */
#define ISA_FAULT_TABLE(X)                                                          \
  X(NONE, "none", "no fault")                                                       \
  X(BAD_OPCODE, "bad-opcode", "unknown opcode")                                     \
  X(FIELD_RANGE, "field-range", "operand value out of its documented range")        \
  X(BAD_MEM, "bad-memory", "operand names a memory the instruction cannot access")  \
  X(MISALIGNED, "misaligned", "address not aligned as the memory requires")         \
  X(OUT_OF_BOUNDS, "out-of-bounds", "access beyond the end of the buffer")         \
  X(GM_UNMAPPED, "gm-unmapped", "GM access outside every allocated tensor")         \
  X(DTYPE, "dtype", "unsupported data type or type combination")                   \
  X(QUANT_MODE, "quant-mode", "quant mode inconsistent with the types or operands") \
  X(DEADLOCK, "deadlock", "a wait that no set can satisfy")                       \
  X(RUNTIME, "runtime", "misuse of the runtime API: buffers, queues, events")       \
  X(CORE_KIND, "core-kind", "an instruction or buffer the kind of core (AIC, AIV) lacks")

typedef enum isa_fault_cause {
#define ISA_FAULT_ENUM(sfx, name, desc) ISA_FAULT_##sfx,
  ISA_FAULT_TABLE(ISA_FAULT_ENUM)
#undef ISA_FAULT_ENUM
  ISA_FAULT_COUNT
} isa_fault_cause;

/* A typed fault: cause, the operand and offending value, the limit it broke, and a one-line
 * message. sim/ adds the core and the instruction index. */
typedef struct isa_fault {
  uint32_t cause;    /* isa_fault_cause */
  char operand[32];  /* field name, e.g. "block_len_bytes"; "" if none */
  uint64_t value;    /* the offending value */
  uint64_t limit;    /* the limit it broke */
  char msg[256];
} isa_fault;

const char *isa_fault_name(isa_fault_cause c);
/* Fills f and returns false (so checks can `return isa_fault_set(...)`). */
bool isa_fault_set(isa_fault *f, isa_fault_cause cause, const char *operand, uint64_t value,
                   uint64_t limit, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* ---- what an instruction touches: byte ranges ------------------------------------------ */

/* A strided byte range: `rows` runs of `row_bytes`, `stride_bytes` apart, from `base`. */
typedef struct isa_range {
  uint32_t mem;   /* isa_mem */
  uint32_t write; /* 1: written, 0: read */
  uint64_t base;  /* byte offset of the first run */
  uint64_t row_bytes;
  uint64_t stride_bytes;
  uint64_t rows;
} isa_range;

#define ISA_MAX_RANGES 32

/* Every range the instruction reads or writes (at most ISA_MAX_RANGES; a pattern that would need
 * more is covered by a bounding range). Returns the count. The instruction must have passed
 * isa_insn_check. */
size_t isa_insn_ranges(const isa_insn *in, isa_range *out);
/* Bytes covered by a range. */
uint64_t isa_range_bytes(const isa_range *r);
/* One past the last byte touched (inline: every issued instruction's ranges ask it). */
static inline uint64_t isa_range_end(const isa_range *r) {
  return r->rows ? r->base + (r->rows - 1) * r->stride_bytes + r->row_bytes : r->base;
}
/* True if two ranges (same memory) share at least one byte. Exact for strided ranges. */
bool isa_range_overlap(const isa_range *a, const isa_range *b);
/* The same bytes in the fewest runs: a stride of 0 reads one run (once), runs that follow each
 * other become one, and a single run's stride is its length. Inline, as isa_range_end. */
static inline isa_range isa_range_normalize(isa_range r) {
  if (r.rows > 1 && r.stride_bytes == 0) r.rows = 1;
  if (r.rows > 1 && r.stride_bytes == r.row_bytes) {
    r.row_bytes *= r.rows;
    r.rows = 1;
  }
  if (r.rows == 1) r.stride_bytes = r.row_bytes;
  return r;
}

/* ---- what an instruction costs: work for the timing model ------------------------------ */

/* enum suffix, name: the data paths the timing model gives rates to */
#define ISA_PATH_TABLE(X)                           \
  X(NONE, "none")                                   \
  X(GM_TO_L1, "GM->L1")                             \
  X(GM_TO_UB, "GM->UB")                             \
  X(UB_TO_GM, "UB->GM")                             \
  X(L1_TO_L0A, "L1->L0A")                           \
  X(L1_TO_L0B, "L1->L0B")                           \
  X(L1_TO_BT, "L1->BT")                             \
  X(L1_TO_FB, "L1->FB")                             \
  X(L0C_TO_GM, "L0C->GM")                           \
  X(L0C_TO_L1, "L0C->L1")                           \
  X(CUBE, "cube")                                   \
  X(VECTOR, "vector")

typedef enum isa_path {
#define ISA_PATH_ENUM(sfx, name) ISA_PATH_##sfx,
  ISA_PATH_TABLE(ISA_PATH_ENUM)
#undef ISA_PATH_ENUM
  ISA_PATH_COUNT
} isa_path;

const char *isa_path_name(isa_path p);

/* Rate classes of vector instructions: the timing model gives each its cycles per repeat
 * (configuration vector.*_cycles_per_repeat). enum suffix, name, description */
#define ISA_VCLASS_TABLE(X)                                                      \
  X(SIMPLE, "simple", "one repeat a cycle: arithmetic, compare, select, cast, moves") \
  X(DIV, "div", "division, reciprocal and square root")                         \
  X(TRANSC, "transcendental", "exp and ln")

typedef enum isa_vclass {
#define ISA_VCLASS_ENUM(sfx, name, desc) ISA_VCLASS_##sfx,
  ISA_VCLASS_TABLE(ISA_VCLASS_ENUM)
#undef ISA_VCLASS_ENUM
  ISA_VCLASS_COUNT
} isa_vclass;

const char *isa_vclass_name(isa_vclass c);

typedef struct isa_work {
  uint32_t path;      /* isa_path */
  uint64_t bytes;     /* bytes moved on the path (transfers: read side; fixpipe: written;
                       * vector: 256 per repeat issued, the repeat width of the widest operand;
                       * vdeq: elements x 4, its int32 input) */
  uint64_t elements;  /* fixpipe: elements converted; vector: elements computed */
  uint32_t vclass;    /* vector: isa_vclass, the rate class */
  uint64_t fractal_ops; /* cube: ceil(m/16) * ceil(n/16) * ceil(k/k0) (docs/DESIGN.md §6) */
  uint64_t macs;      /* cube: m * n * k */
  uint32_t m, n, k;   /* cube: the shape (the timing model applies the configured k0) */
  uint32_t dtype;     /* cube: input type; fixpipe and vector: output type */
  /* vector: the repeats issued and where each operand's blocks lie in UB, for the timing
   * model's bank rule (docs/TIMING.md, "UB banks"); vops 0 when the family gives none */
  uint64_t repeats;
  uint32_t vops;
  struct isa_work_vop {
    uint64_t base;      /* UB byte offset of the operand's first block */
    uint64_t blk_bytes; /* distance between the blocks of a repeat */
    uint64_t rep_bytes; /* distance between repeats */
    uint32_t blocks;    /* 32-byte blocks a repeat touches (1 to 8) */
    uint32_t write;     /* 1: written, 0: read */
  } vop[4];
} isa_work;

/* The work of one instruction (flags and barriers: path NONE, no bytes). */
void isa_insn_work(const isa_insn *in, isa_work *w);
/* The UnitFlag of an mmad or a fixpipe (0 for every other instruction). */
uint32_t isa_insn_unit_flag(const isa_insn *in);
/* True if the instruction's GM access bypasses the L2 (copies and ND->NZ copies with l2_bypass). */
bool isa_insn_l2_bypass(const isa_insn *in);

/* ---- checks and the functional model --------------------------------------------------- */

/* What an instruction needs to know of the machine beyond its operands. */
typedef struct isa_env {
  /* CTRL[48] = 0, the saturation mode (docs/DESIGN.md §3): an fp16/bf16 result that would be
   * ±Inf is ±max and a NaN is 0. It governs the fixpipe's conversions and, as Ascend documents
   * for the same bit, the vector unit's fp16 arithmetic and its conversions to fp16/bf16
   * (docs/ISA.md §vector). The name is the configuration key's (chip.fixpipe_saturation). */
  bool fixpipe_saturation;
} isa_env;

/* Static checks of one instruction: opcode, each field against its range, each ADDR field
 * against the memories the instruction may name, and the family's own rules (type pairs, quant
 * modes, ...). Alignment and bounds depend on the machine: sim/ checks them from the ranges. */
bool isa_insn_check(const isa_insn *in, isa_fault *f);

typedef struct isa_host isa_host; /* isa/isa_kernel.h */

/* The machine's memories as the functional model sees them: `ptr` returns the host address of
 * `bytes` bytes at `off` in `mem`. The caller guarantees every range of the instruction is in
 * bounds (sim/ checks before calling isa_insn_exec), so ptr cannot fail. `host` is the
 * workspace of the hot loops (isa/isa_kernel.h); NULL: the best kernel, with scratch memory
 * allocated per instruction. */
typedef struct isa_mach {
  void *ctx;
  uint8_t *(*ptr)(void *ctx, isa_mem mem, uint64_t off, uint64_t bytes);
  isa_env env;
  isa_host *host;
} isa_mach;

/* Applies the instruction's functional effect. */
void isa_insn_exec(const isa_insn *in, const isa_mach *m);

/* Each format's semantic family implements these four (isa/isa_sem_<format>.c). `check` only runs after
 * the generic field checks passed. */
#define ISA_SEM_DECL(fam)                                                  \
  bool isa_sem_##fam##_check(const isa_insn *in, isa_fault *f);            \
  size_t isa_sem_##fam##_ranges(const isa_insn *in, isa_range *out);       \
  void isa_sem_##fam##_work(const isa_insn *in, isa_work *w);              \
  void isa_sem_##fam##_exec(const isa_insn *in, const isa_mach *m);
ISA_FORMAT_LIST(ISA_SEM_DECL)
#undef ISA_SEM_DECL

#endif
