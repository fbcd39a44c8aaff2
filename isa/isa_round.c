/* isa_round — Ascend's rounding modes on exact values, and the rounding-safety test. */
#include "isa/isa_round.h"

#include <math.h>

isa_float_fmt isa_float_fmt_of(isa_dtype t) {
  switch (t) {
    case ISA_FP16: return ISA_FLOAT_FP16;
    case ISA_BF16: return ISA_FLOAT_BF16;
    default: return ISA_FLOAT_FP32;
  }
}

/* Exponent bits: the bias emax is 2^(ebits - 1) - 1. */
static unsigned exp_bits(isa_float_fmt f) {
  unsigned e = 1;
  while ((1 << (e - 1)) - 1 < f.emax) e++;
  return e;
}

uint32_t isa_float_inf_bits(isa_float_fmt f) { return ((1u << exp_bits(f)) - 1) << f.mant_bits; }
uint32_t isa_float_max_bits(isa_float_fmt f) { return isa_float_inf_bits(f) - 1; }
uint32_t isa_float_qnan_bits(isa_float_fmt f) {
  return isa_float_inf_bits(f) | 1u << (f.mant_bits - 1);
}

/* Does the magnitude n (an integral double) with fraction frac in [0, 1) below its last unit go
 * up by one unit under mode m? negative: the sign of the value. */
static bool rounds_up(double n, double frac, bool negative, isa_round_mode m) {
  if (frac == 0.0) return false;
  bool odd = fmod(n, 2.0) != 0.0;
  switch (m) {
    case ISA_ROUND_ROUND: return frac >= 0.5;
    case ISA_ROUND_FLOOR: return negative;
    case ISA_ROUND_CEIL: return !negative;
    case ISA_ROUND_TRUNC: return false;
    case ISA_ROUND_ODD: return !odd;
    default: return frac > 0.5 || (frac == 0.5 && odd); /* RINT, NONE */
  }
}

/* Does an overflowing magnitude become Inf (true) or the largest finite value (false)? */
static bool overflows_to_inf(bool negative, isa_round_mode m) {
  switch (m) {
    case ISA_ROUND_TRUNC:
    case ISA_ROUND_ODD: return false;
    case ISA_ROUND_FLOOR: return negative;
    case ISA_ROUND_CEIL: return !negative;
    default: return true;
  }
}

uint32_t isa_round_to_float(double x, isa_float_fmt f, isa_round_mode m) {
  unsigned ebits = exp_bits(f);
  bool negative = signbit(x) != 0;
  uint32_t sign = negative ? 1u << (f.mant_bits + ebits) : 0;
  double a = fabs(x);
  if (isinf(a)) return sign | isa_float_inf_bits(f);
  if (a == 0.0) return sign;
  int ex;
  frexp(a, &ex); /* a = fr * 2^ex, fr in [0.5, 1): the top bit of a is 2^(ex - 1) */
  int e = ex - 1 < f.emin ? f.emin : ex - 1;
  int q = e - (int)f.mant_bits; /* the result's unit: 2^q */
  double s = ldexp(a, -q);      /* exact: a power-of-two scaling */
  double n = floor(s);
  if (rounds_up(n, s - n, negative, m)) n += 1.0;
  if (n == 0.0) return sign;
  double top = ldexp(1.0, (int)f.mant_bits + 1);
  if (n >= top) { /* carried into the next binade: 2^(mant_bits + 1) units */
    n /= 2.0;
    q += 1;
  }
  if (q + (int)f.mant_bits > f.emax)
    return sign | (overflows_to_inf(negative, m) ? isa_float_inf_bits(f) : isa_float_max_bits(f));
  double hidden = ldexp(1.0, (int)f.mant_bits);
  if (n < hidden) return sign | (uint32_t)n; /* subnormal: the exponent field is 0 */
  uint32_t biased = (uint32_t)(q + (int)f.mant_bits + f.emax);
  return sign | biased << f.mant_bits | (uint32_t)(n - hidden);
}

double isa_round_integral(double x, isa_round_mode m) {
  if (isnan(x) || isinf(x)) return x;
  bool negative = signbit(x) != 0;
  double a = fabs(x), n = floor(a);
  if (rounds_up(n, a - n, negative, m)) n += 1.0;
  return negative ? -n : n;
}

int64_t isa_round_to_int(double x, isa_round_mode m, int64_t lo, int64_t hi) {
  double v = isnan(x) ? 0.0 : isa_round_integral(x, m);
  if (v <= (double)lo) return lo; /* also -Inf */
  if (v >= (double)hi) return hi; /* also +Inf */
  return (int64_t)v;
}

bool isa_round_is_safe(double y, double rel_err, isa_float_fmt f) {
  double a = fabs(y);
  if (a == 0.0) return true; /* only the exact zero rounds to zero */
  int ex;
  frexp(a, &ex);
  int e = ex - 1 < f.emin ? f.emin : ex - 1;
  double s = ldexp(a, -(e - (int)f.mant_bits)); /* a in units of the result's last bit */
  double frac = s - floor(s);
  /* the nearest midpoint is half a unit from the integers around s; values within rel_err * a,
   * i.e. rel_err * s units, must stay on the same side of it */
  return fabs(frac - 0.5) > rel_err * s;
}
