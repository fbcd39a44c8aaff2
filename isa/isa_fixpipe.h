/* isa_fixpipe — the fixpipe's per-element conversion, one definition for everyone.
 *
 * docs/ISA.md §fixpipe and docs/DESIGN.md §5.2 (arch 2201). The functional model (the `fixpipe`
 * instruction, isa/isa_sem_fixpipe.c), kernels' host references and the quant tooling all call
 * these functions, so an output computed on the host is bit for bit the simulator's. Per element
 * x of L0C in column j, with the word w that applies (the scalar word, or FB[j] in vector modes)
 * and M1 its fp19 scale (bits 31..13, isa/isa_quant.h):
 *
 *   REQ8/VREQ8 with MCB = 1:  x = sat_int16(x >> N)            arithmetic shift
 *   M = (x >= 0 || !relu) ? M1 : 0                             ReLU folds into the scale
 *   y = fp32(x) * M                                            int32 -> fp32 RNE; product RNE
 *   DEQF16/VDEQF16:           out = fp16_rne(y)
 *   REQ8 / QF322B8 families:  q = clamp(rne(y), -256, 255) + offset
 *                             out = S ? clamp(q, -128, 127) : clamp(q, 0, 255)
 *   F322F16 / F322BF16:       out = fp16 / bf16_rne(relu ? max(x, 0) : x)
 *   NoQuant:                  out = relu ? max(x, 0) : x
 *
 * rne is round half to even, NaN -> 0. max(x, 0) is x > 0 ? x : 0 in the L0C type (for fp32
 * IEEE 754-2008 maxNum: -0.0 and NaN give +0). With saturation (configuration chip.fixpipe_saturation, the
 * hardware default) fp16/bf16 overflow gives ±max finite and NaN gives +0; without it IEEE
 * (±Inf, NaN). A NaN product y is the canonical NaN (isa/isa_fparith.h) before conversion.
 */
#ifndef ISA_FIXPIPE_H
#define ISA_FIXPIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "isa/isa_dtype.h"
#include "isa/isa_insn.h"

/* One column's conversion: the mode and the word's fields decoded once. */
typedef struct isa_fixpipe_conv {
  uint32_t mode;   /* isa_quant_mode */
  bool l0c_float;  /* L0C holds fp32 (else int32) */
  bool relu;       /* relu_en */
  bool saturation; /* fp16/bf16 overflow to ±max, NaN to +0 */
  float m1;        /* fp19 scale M1 of the word */
  bool mcb;        /* REQ8 family: shift by n and saturate to int16 first */
  unsigned n;      /* right shift, 0..15 */
  int offset;      /* -256..255, REQ8 and QF322B8 families */
  bool s;          /* 1: clamp to int8, 0: to uint8 */
} isa_fixpipe_conv;

/* Decodes the word for mode (fields a mode does not use are decoded anyway, and ignored).
 * l0c_dtype (int32 or fp32) only matters for NoQuant; the other modes imply it. */
void isa_fixpipe_conv_init(isa_fixpipe_conv *c, isa_quant_mode mode, isa_dtype l0c_dtype,
                           uint64_t word, bool relu, bool saturation);

/* Converts one L0C element (its 32 bits: int32 in the int32 modes, fp32 in the others) and
 * returns the output's bits in the low 8 (int8/uint8), 16 (fp16/bf16) or 32 bits. */
uint32_t isa_fixpipe_conv_apply(const isa_fixpipe_conv *c, uint32_t x_bits);

/* isa_fixpipe_conv_init + isa_fixpipe_conv_apply for a single element. */
uint32_t isa_fixpipe_convert_elem(isa_quant_mode mode, isa_dtype l0c_dtype, uint64_t word,
                                  bool relu, uint32_t x_bits, bool saturation);

/* True if quant mode `mode` converts L0C type l0c to out (docs/ISA.md's table). */
bool isa_fixpipe_types_ok(isa_quant_mode mode, isa_dtype l0c, isa_dtype out);

/* The types mode allows, in words, e.g. "l0c_dtype int32 and out_dtype int8 or uint8". */
const char *isa_fixpipe_types_allowed(isa_quant_mode mode);

#endif
