/* isa_num — exact fp32/fp16/bf16 conversions, integer rounding and saturation, int4/uint4. */
#include "isa/isa_num.h"

#include <math.h>
#include <string.h>

/* fp32 fields */
#define F32_SIGN 0x80000000u
#define F32_EXP_SHIFT 23
#define F32_EXP_MASK 0xFFu
#define F32_EXP_BIAS 127
#define F32_MANT_MASK 0x007FFFFFu
#define F32_HIDDEN 0x00800000u /* the implicit leading 1 of a normal significand */
#define F32_QUIET 0x00400000u

/* fp16 fields */
#define F16_EXP_SHIFT 10
#define F16_EXP_MASK 0x1Fu
#define F16_EXP_BIAS 15
#define F16_MANT_MASK 0x03FFu
#define F16_HIDDEN 0x0400u
#define F16_EMIN (-14) /* exponent of the smallest normal, 2^-14 */
#define F16_EMAX 15
/* fp32 mantissa bits dropped when narrowing to fp16 / bf16 */
#define F32_TO_F16_DROP 13
#define F32_TO_BF16_DROP 16

uint32_t isa_f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

float isa_f32_from_bits(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

/* m / 2^shift rounded to nearest, ties to even; 1 <= shift <= 31. */
static uint32_t shr_rne32(uint32_t m, unsigned shift) {
  uint32_t q = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) q++;
  return q;
}

uint16_t isa_f32_to_f16(float f) {
  uint32_t b = isa_f32_bits(f);
  uint16_t sign = (uint16_t)((b & F32_SIGN) >> 16);
  uint32_t exp = (b >> F32_EXP_SHIFT) & F32_EXP_MASK;
  uint32_t mant = b & F32_MANT_MASK;

  if (exp == F32_EXP_MASK) {
    if (mant == 0) return (uint16_t)(sign | ISA_F16_INF);
    /* NaN: quiet it and keep the payload's top 9 bits (the 10th is the quiet bit). */
    return (uint16_t)(sign | ISA_F16_QNAN | (mant >> F32_TO_F16_DROP));
  }
  if (exp == 0) return sign; /* zero or fp32 subnormal (< 2^-126): far below half of 2^-24 */

  int e = (int)exp - F32_EXP_BIAS;
  if (e > F16_EMAX) return (uint16_t)(sign | ISA_F16_INF); /* >= 2^16 */
  uint32_t m = mant | F32_HIDDEN;                          /* value = m * 2^(e - 23) */
  if (e >= F16_EMIN) {
    /* Normal range: q in [2^10, 2^11]; adding it on top of (biased exponent - 1) lets a carry
     * out of the mantissa bump the exponent, and the top binade's carry (65520 and up) lands
     * exactly on Inf, 0x7C00. */
    uint32_t q = shr_rne32(m, F32_TO_F16_DROP);
    return (uint16_t)(sign | (((uint32_t)(e + F16_EXP_BIAS - 1) << F16_EXP_SHIFT) + q));
  }
  /* Subnormal range: count units of 2^-24, i.e. value / 2^-24 = m / 2^(-1 - e). A result of
   * 2^10 units is the smallest normal 0x0400, which the encoding gives for free. */
  unsigned shift = (unsigned)(-1 - e); /* 14 .. 125 */
  if (shift > 24) return sign;         /* m < 2^24 <= half a unit: rounds to zero */
  return (uint16_t)(sign | shr_rne32(m, shift));
}

uint16_t isa_f32_to_bf16(float f) {
  uint32_t b = isa_f32_bits(f);
  uint16_t sign = (uint16_t)((b & F32_SIGN) >> 16);
  uint32_t mag = b & ~F32_SIGN;
  if (mag > (F32_EXP_MASK << F32_EXP_SHIFT)) /* NaN: quiet, keep the payload's top 6 bits */
    return (uint16_t)(sign | ISA_BF16_QNAN | ((mag & F32_MANT_MASK) >> F32_TO_BF16_DROP));
  /* bf16 shares fp32's exponent, so rounding the magnitude's bit pattern as an integer is
   * rounding the value: a mantissa carry bumps the exponent, and the top binade's carry lands
   * exactly on Inf (0x7F80); Inf itself has nothing to round. Subnormals follow the same rule. */
  return (uint16_t)(sign | shr_rne32(mag, F32_TO_BF16_DROP));
}

uint16_t isa_f32_to_f16_sat(float f) {
  uint16_t h = isa_f32_to_f16(f);
  uint16_t mag = h & (uint16_t)~ISA_F16_SIGN;
  if (mag > ISA_F16_INF) return 0; /* NaN -> +0 */
  if (mag == ISA_F16_INF) return (uint16_t)((h & ISA_F16_SIGN) | ISA_F16_MAX);
  return h;
}

uint16_t isa_f32_to_bf16_sat(float f) {
  uint16_t h = isa_f32_to_bf16(f);
  uint16_t mag = h & (uint16_t)~ISA_BF16_SIGN;
  if (mag > ISA_BF16_INF) return 0; /* NaN -> +0 */
  if (mag == ISA_BF16_INF) return (uint16_t)((h & ISA_BF16_SIGN) | ISA_BF16_MAX);
  return h;
}

float isa_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & ISA_F16_SIGN) << 16;
  uint32_t exp = (h >> F16_EXP_SHIFT) & F16_EXP_MASK;
  uint32_t mant = h & F16_MANT_MASK;
  if (exp == F16_EXP_MASK) /* Inf or NaN, payload kept as is */
    return isa_f32_from_bits(sign | (F32_EXP_MASK << F32_EXP_SHIFT) |
                             (mant << F32_TO_F16_DROP));
  if (exp == 0) {
    if (mant == 0) return isa_f32_from_bits(sign);
    /* Subnormal mant * 2^-24: normalise so the leading 1 sits at the hidden-bit position. */
    int e = F16_EMIN;
    while (!(mant & F16_HIDDEN)) {
      mant <<= 1;
      e--;
    }
    return isa_f32_from_bits(sign | ((uint32_t)(e + F32_EXP_BIAS) << F32_EXP_SHIFT) |
                             ((mant & F16_MANT_MASK) << F32_TO_F16_DROP));
  }
  uint32_t e32 = exp - F16_EXP_BIAS + F32_EXP_BIAS;
  return isa_f32_from_bits(sign | (e32 << F32_EXP_SHIFT) | (mant << F32_TO_F16_DROP));
}

float isa_bf16_to_f32(uint16_t b) { return isa_f32_from_bits((uint32_t)b << 16); }

/* Rounds x to an integer on its bits. Returns 1 and the magnitude in *mag when |x| < 2^52
 * (after rounding, *mag <= 2^52); returns 0 when x is already integral, Inf or NaN. */
static int round_magnitude(double x, int half_even, uint64_t *mag) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int e = (int)((b >> ISA_F64_EXP_SHIFT) & ISA_F64_EXP_MASK) - ISA_F64_EXP_BIAS;
  if (e >= ISA_F64_EXP_SHIFT) return 0; /* integral already (ulp >= 1), or Inf/NaN */
  if (e < -1) {                     /* |x| < 0.5 (zeros and subnormals included) */
    *mag = 0;
    return 1;
  }
  uint64_t m = (b & ISA_F64_MANT_MASK) | ISA_F64_HIDDEN; /* |x| = m * 2^(e - 52) */
  unsigned shift = (unsigned)(ISA_F64_EXP_SHIFT - e); /* 1 .. 53 */
  uint64_t q = m >> shift;
  uint64_t rem = m & ((1ull << shift) - 1u);
  uint64_t half = 1ull << (shift - 1u);
  if (rem > half || (rem == half && (!half_even || (q & 1u)))) q++;
  *mag = q;
  return 1;
}

static double round_integral(double x, int half_even) {
  uint64_t mag;
  if (!round_magnitude(x, half_even, &mag)) return x;
  return copysign((double)mag, x); /* mag <= 2^52: exact */
}

double isa_round_half_even(double x) { return round_integral(x, 1); }

double isa_round_half_away(double x) { return round_integral(x, 0); }

int8_t isa_sat_i8(int64_t v) { return (int8_t)isa_clamp_i64(v, INT8_MIN, INT8_MAX); }
uint8_t isa_sat_u8(int64_t v) { return (uint8_t)isa_clamp_i64(v, 0, UINT8_MAX); }
int16_t isa_sat_i16(int64_t v) { return (int16_t)isa_clamp_i64(v, INT16_MIN, INT16_MAX); }
uint16_t isa_sat_u16(int64_t v) { return (uint16_t)isa_clamp_i64(v, 0, UINT16_MAX); }
int32_t isa_sat_i32(int64_t v) { return (int32_t)isa_clamp_i64(v, INT32_MIN, INT32_MAX); }

int64_t isa_clamp_i64(int64_t v, int64_t lo, int64_t hi) {
  if (v < lo) return lo;
  if (v > hi) return hi;
  return v;
}

int64_t isa_round_sat(double x, int round_half_even, int64_t lo, int64_t hi) {
  if (isnan(x)) return isa_clamp_i64(0, lo, hi);
  double r = round_integral(x, round_half_even != 0);
  /* Every int64 lies in [-2^63, 2^63); beyond that the result saturates (also for ±Inf). */
  if (r >= 0x1p63) return hi;
  if (r < -0x1p63) return lo;
  return isa_clamp_i64((int64_t)r, lo, hi); /* r integral and in range: the cast is exact */
}

float isa_i32_to_f32(int32_t v) {
  if (v == 0) return 0.0f;
  uint32_t sign = v < 0 ? F32_SIGN : 0u;
  uint32_t mag = v < 0 ? 0u - (uint32_t)v : (uint32_t)v; /* INT32_MIN: 2^31 */
  unsigned top = 0;                                       /* index of the leading 1 */
  for (unsigned step = 16; step > 0; step >>= 1)
    if (mag >> (top + step)) top += step;
  uint32_t biased = top + F32_EXP_BIAS;
  if (top <= F32_EXP_SHIFT) /* fits in 24 bits: exact */
    return isa_f32_from_bits(sign | (biased << F32_EXP_SHIFT) |
                             ((mag << (F32_EXP_SHIFT - top)) & F32_MANT_MASK));
  /* q in [2^23, 2^24]: added on top of (biased exponent - 1), a carry bumps the exponent. */
  uint32_t q = shr_rne32(mag, top - F32_EXP_SHIFT);
  return isa_f32_from_bits(sign | (((biased - 1u) << F32_EXP_SHIFT) + q));
}

/* ---- int4 / uint4 ---------------------------------------------------------------------------- */
#define NIBBLE_MASK 0x0Fu
#define NIBBLE_BITS 4u
#define INT4_SIGN 0x08u

static unsigned nibble_shift(size_t index) { return (unsigned)(index & 1u) * NIBBLE_BITS; }

static uint8_t nibble_get(const uint8_t *packed, size_t index) {
  return (uint8_t)((packed[index / 2] >> nibble_shift(index)) & NIBBLE_MASK);
}

static void nibble_set(uint8_t *packed, size_t index, unsigned nibble) {
  unsigned sh = nibble_shift(index);
  unsigned byte = packed[index / 2];
  byte = (byte & ~(NIBBLE_MASK << sh)) | ((nibble & NIBBLE_MASK) << sh);
  packed[index / 2] = (uint8_t)byte;
}

int8_t isa_int4_get(const uint8_t *packed, size_t index) {
  int nib = nibble_get(packed, index);
  return (int8_t)((nib ^ (int)INT4_SIGN) - (int)INT4_SIGN); /* sign-extend bit 3 */
}

void isa_int4_set(uint8_t *packed, size_t index, int8_t value) {
  nibble_set(packed, index, (unsigned)value);
}

uint8_t isa_uint4_get(const uint8_t *packed, size_t index) { return nibble_get(packed, index); }

void isa_uint4_set(uint8_t *packed, size_t index, uint8_t value) {
  nibble_set(packed, index, value);
}

cs_status isa_int4_pack(const int8_t *values, size_t n, uint8_t *packed, cs_err *err) {
  for (size_t i = 0; i < n; i++)
    if (values[i] < ISA_INT4_MIN || values[i] > ISA_INT4_MAX)
      return cs_err_set(err, CS_EINVAL, "int4 pack: value %d at index %zu is outside [%d, %d]",
                        values[i], i, ISA_INT4_MIN, ISA_INT4_MAX);
  memset(packed, 0, (n + 1) / 2);
  for (size_t i = 0; i < n; i++) nibble_set(packed, i, (unsigned)values[i]);
  return CS_OK;
}

void isa_int4_unpack(const uint8_t *packed, size_t n, int8_t *values) {
  for (size_t i = 0; i < n; i++) values[i] = isa_int4_get(packed, i);
}

cs_status isa_uint4_pack(const uint8_t *values, size_t n, uint8_t *packed, cs_err *err) {
  for (size_t i = 0; i < n; i++)
    if (values[i] > ISA_UINT4_MAX)
      return cs_err_set(err, CS_EINVAL, "uint4 pack: value %u at index %zu is outside [0, %d]",
                        values[i], i, ISA_UINT4_MAX);
  memset(packed, 0, (n + 1) / 2);
  for (size_t i = 0; i < n; i++) nibble_set(packed, i, values[i]);
  return CS_OK;
}

void isa_uint4_unpack(const uint8_t *packed, size_t n, uint8_t *values) {
  for (size_t i = 0; i < n; i++) values[i] = isa_uint4_get(packed, i);
}
