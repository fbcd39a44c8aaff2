/* isa_round — rounding an exact value to a float format or to an integer under Ascend's seven
 * rounding modes (RoundMode: CAST_NONE, _RINT, _FLOOR, _CEIL, _ROUND, _TRUNC, _ODD), as the
 * vector unit's Cast applies them (docs/ISA.md §vector), and the test the transcendental
 * functions use to know that an approximation rounds like the exact value.
 *
 * The input is a double that holds the value exactly (every fp32, fp16, bf16, int8, int16 and
 * int32 value is a double). Each mode decides, from the part below the result's last bit, whether
 * the truncated magnitude goes up by one unit (Ascend's "precision conversion" rules):
 *   RINT, NONE  above half a unit, or exactly half with an odd last bit (ties to even);
 *   ROUND       half a unit or more (ties away from zero);
 *   FLOOR       anything, when negative;   CEIL   anything, when positive;
 *   TRUNC       never;
 *   ODD         anything, when the last bit is even (an inexact result ends in 1).
 * NONE rounds as RINT: Ascend defines it as RINT where the conversion loses precision and as no
 * rounding where it does not, which is the same value.
 *
 * Computed with floor and exact scaling by powers of two on doubles: no dependence on the FPU's
 * rounding mode or on libm beyond floor, frexp and ldexp, which are exact.
 */
#ifndef ISA_ROUND_H
#define ISA_ROUND_H

#include <stdbool.h>
#include <stdint.h>

#include "isa/isa_insn.h"

/* A binary floating-point format: stored mantissa bits, exponent range of normal numbers (the
 * bias is emax). Subnormals below 2^emin, infinities and NaNs as IEEE 754. */
typedef struct isa_float_fmt {
  unsigned mant_bits;
  int emin, emax;
} isa_float_fmt;

#define ISA_FLOAT_FP32 ((isa_float_fmt){23, -126, 127})
#define ISA_FLOAT_FP16 ((isa_float_fmt){10, -14, 15})
#define ISA_FLOAT_BF16 ((isa_float_fmt){7, -126, 127})

/* The format of a floating type (fp32, fp16, bf16). */
isa_float_fmt isa_float_fmt_of(isa_dtype t);
/* Bits of +Inf, of the largest finite value and of the quiet NaN (sign 0, payload 0). */
uint32_t isa_float_inf_bits(isa_float_fmt f);
uint32_t isa_float_max_bits(isa_float_fmt f);
uint32_t isa_float_qnan_bits(isa_float_fmt f);

/* x (not a NaN) rounded to format f by mode m, as bits. ±0 keep their sign, ±Inf stay ±Inf.
 * Beyond the largest finite value the result is ±Inf when the mode rounds the magnitude up
 * (RINT, NONE, ROUND; FLOOR for negatives, CEIL for positives) and ±max otherwise (TRUNC, ODD;
 * FLOOR for positives, CEIL for negatives), as IEEE 754 §7.4 has it for the directed modes. */
uint32_t isa_round_to_float(double x, isa_float_fmt f, isa_round_mode m);

/* x rounded to an integral double by mode m (ODD: to an odd integer when inexact). The sign of
 * zero is kept (-0.4 by TRUNC is -0.0); ±Inf and NaN are returned as they are. */
double isa_round_integral(double x, isa_round_mode m);

/* x rounded to an integer by mode m, then saturated to [lo, hi] (requires lo <= hi); ±Inf
 * saturate, NaN gives 0 (clamped into [lo, hi]). Ascend's documented default for conversions
 * to integers is saturation. */
int64_t isa_round_to_int(double x, isa_round_mode m, int64_t lo, int64_t hi);

/* True when every value within a relative distance rel_err of y (finite, not NaN) rounds to
 * nearest-even in format f to the same bits as y does: y lies further than rel_err * |y| from
 * every midpoint between neighbours of f (overflow's threshold included). */
bool isa_round_is_safe(double y, double rel_err, isa_float_fmt f);

#endif
