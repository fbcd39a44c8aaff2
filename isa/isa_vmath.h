/* isa_vmath — e^x and ln(x) as the vector unit's Exp and Ln compute them in cubesim: correctly
 * rounded (to nearest, ties to even) to fp32 or fp16 (docs/ISA.md §vector).
 *
 * The hardware's exact results are not public (Ascend documents Exp and Ln to 1 ulp), so cubesim
 * defines them as the correctly rounded value: the mathematical function of the input's exact
 * value, rounded once. That definition does not depend on the host's libm, and the code below
 * computes it with IEEE double arithmetic alone (+, -, *, fma, floor, frexp, ldexp; each
 * correctly rounded or exact by the C standard, so contraction of a * b + c cannot change the
 * result, only the path taken to it):
 *
 *   fast path   a double evaluation with a proven relative error bound (exp: table of 2^(j/64)
 *               and a degree-6 polynomial; ln: table of 96 reciprocals and a degree-8 log1p);
 *               when the result lies further than that bound from every rounding midpoint of
 *               the target (isa_round_is_safe), its rounding is the correct one;
 *   slow path   otherwise (about one input in 2^24), the same reductions in double-double
 *               arithmetic with Taylor series to about 2^-100, rounded from both words.
 *
 * The tables come from scripts/gen_vmath_tables.py (Python decimal, 80 digits).
 */
#ifndef ISA_VMATH_H
#define ISA_VMATH_H

#include <stdint.h>

#include "isa/isa_round.h"

/* e^x rounded to format f, as bits: NaN gives f's quiet NaN, +Inf gives +Inf, -Inf gives +0,
 * overflow gives +Inf, results below f's smallest subnormal's half give +0 (subnormal results
 * are returned; the caller decides whether to flush them). x must be exact in double. */
uint32_t isa_vmath_exp(double x, isa_float_fmt f);
/* ln(x) rounded to format f, as bits: NaN and x < 0 give f's quiet NaN, ±0 gives -Inf, +Inf
 * gives +Inf, 1 gives +0. */
uint32_t isa_vmath_ln(double x, isa_float_fmt f);

/* The slow paths alone, for finite x in the functions' ordinary range (exp: |x| <= 200; ln:
 * x > 0), so the tests can compare them with the fast paths and with references. */
uint32_t isa_vmath_exp_slow(double x, isa_float_fmt f);
uint32_t isa_vmath_ln_slow(double x, isa_float_fmt f);

#endif
