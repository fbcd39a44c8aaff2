/* isa_fparith — fp32 arithmetic as cubesim's functional model does it (docs/ISA.md).
 *
 * IEEE 754 binary32 operations rounded to nearest even, as C performs them when float
 * expressions are evaluated in their own precision (checked below), with one cubesim rule on
 * top: a NaN that arithmetic produces is the canonical quiet NaN 0x7FC00000. Hosts differ on the
 * NaN of an invalid operation (x86 gives 0xFFC00000, Arm 0x7FC00000) and on which payload
 * propagates, so results carry no host-dependent NaN bits. Conversions (isa/isa_num.h) are bit
 * operations and keep their documented NaN payloads; only arithmetic goes through here.
 */
#ifndef ISA_FPARITH_H
#define ISA_FPARITH_H

#include <float.h>
#include <stdint.h>

#include "isa/isa_num.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "cubesim needs FLT_EVAL_METHOD == 0 (fp32 and double evaluated in their own precision)"
#endif

#define ISA_F32_QNAN_BITS 0x7FC00000u /* the canonical quiet NaN */

/* x, or the canonical quiet NaN if x is a NaN. */
static inline float isa_f32_canon(float x) {
  return x != x ? isa_f32_from_bits(ISA_F32_QNAN_BITS) : x;
}

/* a * b in fp32, round to nearest even; NaN results canonical. */
static inline float isa_f32_mul(float a, float b) {
  float r = a * b;
  return isa_f32_canon(r);
}

/* a + b in fp32, round to nearest even; NaN results canonical. */
static inline float isa_f32_add(float a, float b) {
  float r = a + b;
  return isa_f32_canon(r);
}

/* a - b in fp32, round to nearest even; NaN results canonical. */
static inline float isa_f32_sub(float a, float b) {
  float r = a - b;
  return isa_f32_canon(r);
}

/* a / b in fp32, round to nearest even (x / 0 is ±Inf, 0 / 0 NaN); NaN results canonical. */
static inline float isa_f32_div(float a, float b) {
  float r = a / b;
  return isa_f32_canon(r);
}

#endif
