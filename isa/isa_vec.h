/* isa_vec — what the vector families share (docs/ISA.md §vector): the repeat and its mask, the
 * address of an element of a strided operand, the ranges and the work of an instruction, the
 * element arithmetic of Add/Sub/Mul/Div/Max/Min (binary and tensor-scalar forms), and the rules
 * for fp16/bf16 results.
 *
 * A repeat covers 256 bytes of the instruction's widest operand: P = 256 / (widest element size)
 * lanes, in 8 blocks of 32 bytes. Lane i of repeat r of an operand lies at
 *     base + r * rep_bytes + (i / per_block) * blk_bytes + (i % per_block) * elem_bytes
 * where per_block = 32 / elem_bytes for ordinary operands (isa_vopnd_std).
 *
 * Execution order, the same in every family: repeats in increasing order; within a repeat, every
 * enabled input lane is read before any output lane is written. So a repeat may work in place
 * (dst = src), and a later repeat sees what an earlier one wrote (Ascend's accumulate pattern,
 * dst and src1 with repeat stride 0). Ascend leaves other overlaps undefined; cubesim gives them
 * this order.
 */
#ifndef ISA_VEC_H
#define ISA_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isa/isa_insn.h"
#include "isa/isa_num.h"

#define ISA_VEC_REPEAT_BYTES 256u
#define ISA_VEC_BLOCK_BYTES 32u
#define ISA_VEC_MAX_LANES 128u /* P of 16-bit types; no family here repeats over 8-bit lanes */
#define ISA_VEC_MAX_OPERANDS 4u

/* Which lanes of which repeats an instruction computes. */
typedef struct isa_vshape {
  uint32_t lanes;   /* P */
  uint64_t repeats; /* repeats issued */
  uint64_t mask[2]; /* lane i is enabled when bit i % 64 of mask[i / 64] is set */
  uint32_t tail;    /* counter mode: lanes of the last repeat (the first `tail`); 0: as the others */
} isa_vshape;

/* The shape from an instruction's mask fields (which isa_vshape_check accepted). Normal mode:
 * repeat_times repeats of the mask bits below P. Counter mode: mask_lo elements, all lanes of
 * ceil(mask_lo / P) repeats, the last one cut to what remains. */
isa_vshape isa_vshape_of(uint32_t mask_mode, uint64_t mask_hi, uint64_t mask_lo,
                         uint32_t repeat_times, uint32_t lanes);
/* Refuses mask bits beyond P in normal mode (field-range on mask_hi / mask_lo) and, in counter
 * mode, a count beyond 2^32 - 1 (the MASK register's 32 bits) or a nonzero mask_hi. */
bool isa_vshape_check(const char *mnemonic, uint32_t mask_mode, uint64_t mask_hi,
                      uint64_t mask_lo, uint32_t lanes, isa_fault *f);
bool isa_vshape_on(const isa_vshape *s, uint64_t r, uint32_t lane);
/* Lanes computed over all repeats. */
uint64_t isa_vshape_elements(const isa_vshape *s);

/* The geometry of one operand (see the file comment). */
typedef struct isa_vopnd {
  uint64_t base;       /* UB byte offset */
  uint32_t elem_bytes; /* bytes a lane holds */
  uint32_t per_block;  /* lanes per block */
  uint64_t blk_bytes;  /* distance between blocks of a repeat */
  uint64_t rep_bytes;  /* distance between repeats */
  uint32_t write;      /* 1: written, 0: read */
} isa_vopnd;

/* An ordinary operand: elements of elem_bytes, strides in 32-byte blocks. */
isa_vopnd isa_vopnd_std(isa_addr a, uint32_t elem_bytes, uint32_t blk_stride, uint32_t rep_stride,
                        unsigned write);

/* The ranges of n operands (at most ISA_VEC_MAX_OPERANDS), operand k covering the lanes of
 * shapes[k].
 * Exact per block (from a block's first enabled lane to its last, unions where blocks touch or
 * overlap); when the operands together need more than ISA_MAX_RANGES, one bounding range each. */
size_t isa_vec_ranges(const isa_vopnd *ops, const isa_vshape *const *shapes, size_t n,
                      isa_range *out);

/* The work of an instruction of shape s: the vector path, 256 bytes per repeat, its lanes, its
 * rate class and result type, and the geometry of its n operands (at most ISA_VEC_MAX_OPERANDS),
 * operand k of shape shapes[k]: the blocks a repeat touches, ceil(lanes / per_block), at most 8. */
void isa_vec_work(const isa_vshape *s, isa_vclass c, uint32_t dtype, const isa_vopnd *ops,
                  const isa_vshape *const *shapes, size_t n, isa_work *w);

/* Host addresses of the enabled lanes of repeat r of operand o, NULL for the others; the bytes
 * asked of the machine lie inside the operand's ranges. */
void isa_vec_lanes(const isa_mach *m, const isa_vshape *s, const isa_vopnd *o, uint64_t r,
                   uint8_t *lane[ISA_VEC_MAX_LANES]);

/* ---- checks -------------------------------------------------------------------------------- */

/* An ADDR operand the table does not narrow must name UB. */
bool isa_vec_check_ub(const char *mnemonic, const char *operand, isa_addr a, isa_fault *f);
/* dtype (the value of field `field`) must be one of the types whose bit (1u << type) is in
 * allowed; the fault lists them. */
bool isa_vec_check_dtype(const char *mnemonic, const char *field, uint32_t dtype, uint32_t allowed,
                         isa_fault *f);
/* A scalar operand's bits must fit the type (16-bit types: at most 0xFFFF). */
bool isa_vec_check_scalar(const char *mnemonic, uint64_t scalar, uint32_t dtype, isa_fault *f);

#define ISA_DTBIT(t) (1u << (t))

/* ---- element values -------------------------------------------------------------------------- */

/* Bytes of one element (the types here are 8, 16 and 32 bits wide). */
unsigned isa_vec_elem_bytes(uint32_t dtype);
/* A floating element's exact value (fp32, fp16, bf16; NaN payloads kept). */
float isa_vec_to_f32(uint32_t dtype, uint32_t bits);
/* An arithmetic result y (already correctly rounded to fp32, or exact) as an element of dtype:
 * fp32 as it is; fp16 and bf16 rounded to nearest even. A NaN is the quiet NaN of the type
 * (fp32 0x7FC00000, fp16 0x7E00, bf16 0x7FC0). With sat (CTRL[48] = 0), an fp16/bf16 result
 * that is ±Inf becomes ±max and a NaN becomes +0 (isa/isa_num.h's saturating conversions). */
uint32_t isa_vec_from_f32(uint32_t dtype, float y, bool sat);
/* CTRL[48]'s saturation on an fp16 or bf16 element: ±Inf becomes ±max, a NaN +0; other types
 * and values are returned as they are. */
uint32_t isa_vec_saturate(uint32_t dtype, uint32_t bits);
/* An integer element (int16, int32) as an int64, and back (wrapping to the type's width). */
int64_t isa_vec_to_int(uint32_t dtype, uint32_t bits);
uint32_t isa_vec_from_int(uint32_t dtype, int64_t v);

/* The arithmetic of Add, Sub, Mul, Div, Max and Min on one lane, shared by the binary and the
 * tensor-scalar forms (docs/ISA.md §vector): fp32 IEEE, rounded to nearest even; fp16 computed
 * in fp32 and rounded once to fp16 (exact for Mul; correctly rounded for Add, Sub and Div, since
 * 24 >= 2 * 11 + 2 makes the double rounding innocuous); int16 and int32 wrapping. Max and Min
 * are IEEE 754-2019 maximum and minimum: a NaN operand gives NaN, and +0 > -0. */
typedef enum isa_vec_arith {
  ISA_VEC_ADD,
  ISA_VEC_SUB,
  ISA_VEC_MUL,
  ISA_VEC_DIV,
  ISA_VEC_MAX,
  ISA_VEC_MIN
} isa_vec_arith;

uint32_t isa_vec_arith_apply(isa_vec_arith k, uint32_t dtype, uint32_t a, uint32_t b, bool sat);

#endif
