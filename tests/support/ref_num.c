/* ref_num — independent numeric references for the kernel tests (see ref_num.h). */
#include "ref_num.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

uint32_t ref_f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

float ref_f32_of_bits(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

double ref_f16_value(uint16_t h) {
  int exp = (h >> 10) & 31, mant = h & 1023;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 31) return mant ? NAN : sign * INFINITY;
  if (exp == 0) return sign * ldexp(mant, -24);
  return sign * ldexp(1024 + mant, exp - 25);
}

float ref_bf16_value(uint16_t b) { return ref_f32_of_bits((uint32_t)b << 16); }

/* Rounds |f| to a binary format with `digits` significand bits, minimum normal exponent emin
 * and overflow threshold `limit` (the midpoint above the largest finite value), and encodes it
 * with exponent bias `bias`. The value is scaled to an integer count of quanta (exact in
 * double), rounded with nearbyint (ties to even in the default mode), then encoded. */
static uint16_t round_small(float f, int digits, int emin, int bias, double limit, uint16_t max_finite,
                            uint16_t inf, uint16_t qnan, bool saturate) {
  uint16_t sign = signbit(f) ? 0x8000 : 0;
  if (isnan(f)) return saturate ? 0 : (uint16_t)(sign | qnan);
  double a = fabs((double)f);
  if (isinf(f) || a >= limit) return (uint16_t)(sign | (saturate ? max_finite : inf));
  if (a == 0) return sign;
  int e2;
  frexp(a, &e2);
  int e = e2 - 1; /* a in [2^e, 2^(e+1)) */
  if (e < emin) e = emin;
  double quantum = ldexp(1.0, e - (digits - 1));
  double r = nearbyint(a / quantum);
  double top = ldexp(1.0, digits); /* 2^digits: carried into the next binade */
  if (r >= top) {
    r /= 2;
    e += 1;
  }
  uint32_t hidden = 1u << (digits - 1);
  uint32_t bits;
  if (r < hidden) bits = (uint32_t)r; /* subnormal: exponent field 0 */
  else bits = ((uint32_t)(e + bias) << (digits - 1)) | ((uint32_t)r - hidden);
  return (uint16_t)(sign | bits);
}

uint16_t ref_f16_rne(float f, bool saturate) {
  /* fp16: 11 significand bits, emin -14, bias 15, max 65504, overflow from 65520 */
  return round_small(f, 11, -14, 15, 65520.0, 0x7BFF, 0x7C00, 0x7E00, saturate);
}

uint16_t ref_bf16_rne(float f, bool saturate) {
  /* bf16: 8 significand bits, emin -126, bias 127, overflow from (2 - 2^-8) * 2^127 */
  return round_small(f, 8, -126, 127, ldexp(2.0 - ldexp(1.0, -8), 127), 0x7F7F, 0x7F80, 0x7FC0, saturate);
}

/* The signed unit count s rounded by mode. */
static double round_units(double s, char mode) {
  double t;
  switch (mode) {
    case 'a': return round(s);
    case 'd': return floor(s);
    case 'u': return ceil(s);
    case 'z': return trunc(s);
    case 'o':
      t = trunc(s);
      return t != s && fmod(t, 2.0) == 0.0 ? t + copysign(1.0, s) : t;
    default: return nearbyint(s);
  }
}

uint32_t ref_round_float(double v, unsigned mbits, int emin, int emax, char mode) {
  unsigned ebits = emax == 15 ? 5 : 8;
  uint32_t sign = signbit(v) ? 1u << (mbits + ebits) : 0;
  uint32_t inf = ((1u << ebits) - 1) << mbits, max = inf - 1;
  if (isinf(v)) return sign | inf;
  if (v == 0.0) return sign;
  int e2;
  frexp(fabs(v), &e2);
  int e = e2 - 1 < emin ? emin : e2 - 1;
  double quantum = ldexp(1.0, e - (int)mbits);
  double r = fabs(round_units(v / quantum, mode)); /* exact: a power-of-two scale */
  if (r == 0.0) return sign;
  double value = r * quantum;
  double largest = ldexp(2.0 - ldexp(1.0, -(int)mbits), emax);
  if (value > largest) {
    bool up = mode == 'n' || mode == 'a' || (mode == 'd' && sign) || (mode == 'u' && !sign);
    return sign | (up ? inf : max);
  }
  if (value < ldexp(1.0, emin)) return sign | (uint32_t)(value / ldexp(1.0, emin - (int)mbits));
  int ev;
  double fr = frexp(value, &ev); /* value = fr * 2^ev, fr in [0.5, 1) */
  uint32_t mant = (uint32_t)ldexp(fr, (int)mbits + 1) - (1u << mbits);
  return sign | (uint32_t)(ev - 1 + emax) << mbits | mant;
}

int64_t ref_round_int(double v, char mode, int64_t lo, int64_t hi) {
  if (isnan(v)) return 0 < lo ? lo : 0 > hi ? hi : 0;
  double r = round_units(v, mode);
  if (r < (double)lo) return lo;
  if (r > (double)hi) return hi;
  return (int64_t)r;
}

static uint32_t sat_bits(uint32_t bits, uint32_t inf) {
  uint32_t sign = bits & 0x8000u, mag = bits & 0x7FFFu; /* 16-bit types */
  if (mag == inf) return sign | (inf - 1);
  if ((mag & inf) == inf) return 0;
  return bits;
}

uint32_t ref_f16_of(double v, bool sat) {
  uint32_t b = isnan(v) ? 0x7E00u : ref_round_float(v, 10, -14, 15, 'n');
  return sat ? sat_bits(b, 0x7C00u) : b;
}

uint32_t ref_bf16_of(double v, bool sat) {
  uint32_t b = isnan(v) ? 0x7FC0u : ref_round_float(v, 7, -126, 127, 'n');
  return sat ? sat_bits(b, 0x7F80u) : b;
}

uint32_t ref_f32_of(double v) { return isnan(v) ? 0x7FC00000u : ref_round_float(v, 23, -126, 127, 'n'); }

double ref_round_half_even(double v) {
  double fl = floor(v), f = v - fl;
  if (f > 0.5) return fl + 1.0;
  if (f < 0.5) return fl;
  return fmod(fl, 2.0) == 0.0 ? fl : fl + 1.0;
}

/* ---- exact sums ---------------------------------------------------------------------------- */

#define REF_LIMBS 48 /* 32-bit limbs: 1536 bits, enough for any span of fp32-range products */

float ref_exact_sum_f32(const double *terms, size_t n) {
  int emin = INT_MAX;
  for (size_t i = 0; i < n; i++) {
    if (terms[i] == 0) continue;
    int e;
    frexp(terms[i], &e);
    if (e - 53 < emin) emin = e - 53;
  }
  if (emin == INT_MAX) return 0.0f;
  /* value = sum(acc[i] * 2^(32 i)) * 2^emin; each term is m * 2^(e - 53), |m| < 2^53 */
  int64_t acc[REF_LIMBS];
  memset(acc, 0, sizeof acc);
  for (size_t i = 0; i < n; i++) {
    if (terms[i] == 0) continue;
    int e;
    double fr = frexp(terms[i], &e);
    int64_t m = (int64_t)ldexp(fr, 53);
    int64_t sign = m < 0 ? -1 : 1;
    uint64_t mag = (uint64_t)(m < 0 ? -m : m);
    int sh = e - 53 - emin, q = sh / 32, r = sh % 32;
    if (q + 2 >= REF_LIMBS) return NAN; /* a span this wide never comes from fp16/bf16 products */
    uint64_t lo = (mag & 0xFFFFFFFFu) << r, hi = (mag >> 32) << r;
    acc[q] += sign * (int64_t)(lo & 0xFFFFFFFFu);
    acc[q + 1] += sign * (int64_t)(lo >> 32) + sign * (int64_t)(hi & 0xFFFFFFFFu);
    acc[q + 2] += sign * (int64_t)(hi >> 32);
  }
  /* carries: every limb but the top one into [0, 2^32) */
  bool neg = false;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i + 1 < REF_LIMBS; i++) {
      int64_t low = acc[i] & INT64_C(0xFFFFFFFF);
      acc[i + 1] += (acc[i] - low) / INT64_C(4294967296);
      acc[i] = low;
    }
    if (acc[REF_LIMBS - 1] >= 0) break;
    neg = true; /* negative: negate every limb and normalise again */
    for (int i = 0; i < REF_LIMBS; i++) acc[i] = -acc[i];
  }
  int top = REF_LIMBS - 1;
  while (top >= 0 && acc[top] == 0) top--;
  if (top < 0) return 0.0f; /* an exact zero is +0 */
  int len = 32 * top;
  for (uint64_t v = (uint64_t)acc[top]; v; v >>= 1) len++;
#define BIT(j) ((int)(((uint64_t)acc[(j) / 32] >> ((j) % 32)) & 1u))
  uint64_t mant = 0;
  int exp = emin;
  if (len <= 24) {
    for (int j = len - 1; j >= 0; j--) mant = mant << 1 | (uint64_t)BIT(j);
  } else {
    int s = len - 24;
    for (int j = len - 1; j >= s; j--) mant = mant << 1 | (uint64_t)BIT(j);
    bool round = BIT(s - 1), sticky = false;
    for (int j = s - 2; j >= 0 && !sticky; j--) sticky = BIT(j);
    if (round && (sticky || (mant & 1))) mant++;
    exp += s;
  }
#undef BIT
  double d = ldexp((double)mant, exp);
  if (d > FLT_MAX) return neg ? -INFINITY : INFINITY;
  if (d < FLT_MIN) return NAN; /* fp32 subnormal sums: not produced by these tests' data */
  return (float)(neg ? -d : d);
}

/* ---- quant words --------------------------------------------------------------------------- */

float ref_word_fp19(uint64_t word) { return ref_f32_of_bits((uint32_t)word & 0xFFFFE000u); }

uint64_t ref_pack_word(float scale, bool has_offset, float offset) {
  uint64_t w = (uint64_t)(ref_f32_bits(scale) & 0xFFFFE000u) | (UINT64_C(1) << 46);
  if (has_offset) {
    double o = round((double)offset); /* C's round: half away from zero */
    if (o < -256) o = -256;
    if (o > 255) o = 255;
    int64_t oi = (int64_t)o;
    w = (w & UINT64_C(0x4000FFFFFFFF)) | (((uint64_t)oi & 0x1FFu) << 37);
  }
  return w;
}

/* The fp32 bits of a normal double that is exactly an fp32 value, from frexp's sign, exponent
 * and mantissa. */
static uint32_t f32_field(double v) {
  uint32_t sign = signbit(v) ? 0x80000000u : 0;
  double a = fabs(v);
  int e;
  double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  uint32_t mant = (uint32_t)((m * 2.0 - 1.0) * 8388608.0);
  return sign | (uint32_t)(e - 1 + 127) << 23 | mant;
}

/* |x| cut to 10 fraction bits of its binade (trunc), or rounded to the nearer such value with
 * ties to the even one (rne); the sign kept. Normal x only. */
static double fp19_value(double x, bool rne) {
  int e;
  double m = frexp(fabs(x), &e) * 2.0; /* [1, 2) */
  double k = floor(m * 1024.0);
  if (rne) {
    double rest = m * 1024.0 - k;
    if (rest > 0.5 || (rest == 0.5 && fmod(k, 2.0) != 0.0)) k += 1.0;
  }
  return copysign(ldexp(k / 1024.0, e - 1), x);
}

uint64_t ref_pack_word_as(float scale, bool has_offset, float offset, ref_scale_mode sm,
                          bool offset_half_even, unsigned n, unsigned mcb) {
  double x = scale;
  uint32_t bits;
  if (sm == REF_SCALE_NONE) bits = ref_f32_bits(scale);
  else if (x == 0 || fabs(x) < ldexp(1.0, -126))
    bits = sm == REF_SCALE_RNE ? (signbit(x) ? 0x80000000u : 0) : ref_f32_bits(scale) & ~0x1FFFu;
  else bits = f32_field(fp19_value(x, sm == REF_SCALE_RNE));
  uint64_t w = (uint64_t)bits + (UINT64_C(1) << 46);
  if (has_offset) {
    long long o = offset_half_even ? llrint((double)offset) : (long long)lround((double)offset);
    if (o < -256) o = -256;
    if (o > 255) o = 255;
    w += (uint64_t)(o < 0 ? o + 512 : o) << 37;
  }
  return w + ((uint64_t)n << 32) + ((uint64_t)mcb << 36);
}

uint8_t ref_b8(float y, int offset, bool s) {
  double r = isnan(y) ? 0.0 : nearbyint((double)y);
  if (r < -256) r = -256;
  if (r > 255) r = 255;
  int q = (int)r + offset;
  if (s) {
    if (q < -128) q = -128;
    if (q > 127) q = 127;
    return (uint8_t)(int8_t)q;
  }
  if (q < 0) q = 0;
  if (q > 255) q = 255;
  return (uint8_t)q;
}

uint16_t ref_deqf16(uint64_t w, int32_t x) {
  float y = (float)x * ref_word_fp19(w); /* int32 -> fp32 and the product, each rounded to fp32 */
  return ref_f16_rne(y, true);
}

uint8_t ref_req8(uint64_t w, int32_t x) {
  if (w >> 36 & 1) {
    int64_t shifted = (int64_t)floor((double)x / (double)(1u << (w >> 32 & 15)));
    x = (int32_t)(shifted < -32768 ? -32768 : shifted > 32767 ? 32767 : shifted);
  }
  int off9 = (int)(w >> 37 & 0x1FF);
  float y = (float)x * ref_word_fp19(w);
  return ref_b8(y, off9 >= 256 ? off9 - 512 : off9, (w >> 46 & 1) != 0);
}

double ref_b8_value(uint64_t w, uint8_t byte) {
  return (w >> 46 & 1) ? (double)(int8_t)byte : (double)byte;
}
