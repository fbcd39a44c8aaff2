/* isa_num — cubesim's exact numeric conversions: fp32/fp16/bf16, integer rounding and saturation,
 * packed int4/uint4 (docs/DESIGN.md §3 and §5.2).
 *
 * Formats (IEEE 754-2008 binary32 and binary16; bf16 is the top half of binary32):
 *
 *   fp32   31 30      23 22                    0      bias 127
 *         +--+----------+-----------------------+
 *         |s | exponent |      mantissa23       |
 *         +--+----------+-----------------------+
 *   fp16   15 14  10 9         0                     bias 15, max finite 65504 (0x7BFF)
 *         +--+------+-----------+                    min subnormal 2^-24 (0x0001)
 *         |s | exp5 | mantissa10|
 *         +--+------+-----------+
 *   bf16   15 14      7 6       0                    bias 127, max finite 0x7F7F
 *         +--+----------+-------+                    (= (2 - 2^-7) * 2^127)
 *         |s | exponent |mant7  |
 *         +--+----------+-------+
 *
 * Every conversion is done with integer operations on the bit patterns: results depend neither
 * on the compiler's _Float16 nor on the FPU's rounding mode. Rounding to fp16/bf16 is IEEE
 * roundTiesToEven (IEEE 754-2008 §4.3.1), as docs/DESIGN.md §3 requires for the fixpipe and vector
 * casts. A NaN narrows to a quiet NaN with the same sign and the top bits of its payload
 * (IEEE 754-2008 §6.2.3), so a signalling NaN comes back with its quiet bit set and never as Inf.
 */
#ifndef ISA_NUM_H
#define ISA_NUM_H

#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"

/* ---- fp16 / bf16 constants ---------------------------------------------------------------- */
#define ISA_F16_SIGN 0x8000u
#define ISA_F16_INF 0x7C00u      /* +Inf; also the exponent mask */
#define ISA_F16_QNAN 0x7E00u     /* +quiet NaN with an empty payload */
#define ISA_F16_MAX 0x7BFFu      /* 65504, largest finite */
#define ISA_BF16_SIGN 0x8000u
#define ISA_BF16_INF 0x7F80u
#define ISA_BF16_QNAN 0x7FC0u
#define ISA_BF16_MAX 0x7F7Fu     /* (2 - 2^-7) * 2^127, largest finite */

/* IEEE 754 binary64 fields, for exact work on doubles. */
#define ISA_F64_MANT_BITS 52 /* stored mantissa bits */
#define ISA_F64_EXP_SHIFT 52
#define ISA_F64_EXP_MASK 0x7FFu
#define ISA_F64_EXP_BIAS 1023
#define ISA_F64_MANT_MASK UINT64_C(0x000FFFFFFFFFFFFF)
#define ISA_F64_HIDDEN UINT64_C(0x0010000000000000)

/* ---- raw bits ------------------------------------------------------------------------------ */
uint32_t isa_f32_bits(float f);
float isa_f32_from_bits(uint32_t b);

/* Every buffer holds its values little-endian, whatever the host: `bytes` (1 to 8) bytes at p
 * as an integer, and back. */
static inline uint64_t isa_le_load(const uint8_t *p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static inline void isa_le_store(uint8_t *p, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t isa_le_load32(const uint8_t *p) { return (uint32_t)isa_le_load(p, 4); }

/* ---- fp32 -> fp16 / bf16, round to nearest even --------------------------------------------
 * ±0 keeps its sign; fp16 results below 2^-14 are subnormal (correctly rounded, down to ±0);
 * overflow gives ±Inf (fp16: |f| >= 65520, the midpoint between 65504 and 2^16; bf16: |f| >=
 * (2 - 2^-8) * 2^127); ±Inf stays ±Inf; NaN gives a quiet NaN with the sign and payload top bits
 * (fp16: sign | 0x7E00 | mantissa23 >> 13; bf16: sign | 0x7FC0 | mantissa23 >> 16). */
uint16_t isa_f32_to_f16(float f);
uint16_t isa_f32_to_bf16(float f);

/* Saturating variants: cubesim's fixpipe "saturation mode" (docs/DESIGN.md §3, the hardware
 * default, CTRL[48] = 0). A result that would be ±Inf (overflow or an ±Inf input) is ±max finite (fp16
 * 0x7BFF / 0xFBFF, bf16 0x7F7F / 0xFF7F); NaN of either sign is +0. Otherwise as above. */
uint16_t isa_f32_to_f16_sat(float f);
uint16_t isa_f32_to_bf16_sat(float f);

/* ---- fp16 / bf16 -> fp32, exact (NaN payloads, signalling or not, are kept as they are) ---- */
float isa_f16_to_f32(uint16_t h);
float isa_bf16_to_f32(uint16_t b);

/* ---- rounding a double to an integral double -----------------------------------------------
 * Exact for every input; the sign of zero is kept (-0.4 -> -0.0); ±Inf and NaN are returned as
 * they are. half_even is ONNX's and Huawei's reference scripts' rule (docs/DESIGN.md §5.2);
 * half_away is C's round(), TensorFlow's HALF_AWAY_FROM_ZERO and the quant-word packer's offset
 * rounding (docs/DESIGN.md §5.1). */
double isa_round_half_even(double x);
double isa_round_half_away(double x);

/* ---- saturating casts from int64 ----------------------------------------------------------- */
int8_t isa_sat_i8(int64_t v);
uint8_t isa_sat_u8(int64_t v);
int16_t isa_sat_i16(int64_t v);
uint16_t isa_sat_u16(int64_t v);
int32_t isa_sat_i32(int64_t v);
/* v limited to [lo, hi]; requires lo <= hi. */
int64_t isa_clamp_i64(int64_t v, int64_t lo, int64_t hi);

/* x rounded to an integer (round_half_even = 1: ties to even; 0: ties away from zero), then
 * saturated to [lo, hi] (requires lo <= hi). ±Inf and values beyond int64 saturate too. NaN
 * gives 0 (clamped into [lo, hi] if that range excludes 0). */
int64_t isa_round_sat(double x, int round_half_even, int64_t lo, int64_t hi);

/* int32 -> fp32 rounded to nearest even, as the fixpipe converts the int32 accumulator
 * (docs/DESIGN.md §5.2). Done on bits, so it does not depend on the FPU's rounding mode. */
float isa_i32_to_f32(int32_t v);

/* ---- int4 / uint4, two per byte, element 0 in the LOW nibble (docs/DESIGN.md §3) ---------------
 *
 *    byte i:   7      4 3      0
 *             +--------+--------+
 *             | e[2i+1]|  e[2i] |
 *             +--------+--------+
 *
 * int4 is two's complement in [-8, 7]; uint4 (ONNX) is [0, 15]. n elements take ceil(n / 2)
 * bytes; pack writes a zero high nibble after an odd last element. */
#define ISA_INT4_MIN (-8)
#define ISA_INT4_MAX 7
#define ISA_UINT4_MAX 15

int8_t isa_int4_get(const uint8_t *packed, size_t index);
/* value must be in [-8, 7] (only its low 4 bits are stored); the other nibble is kept. */
void isa_int4_set(uint8_t *packed, size_t index, int8_t value);
/* Packs n values into ceil(n / 2) bytes. A value outside [-8, 7] is CS_EINVAL naming its index
 * and value; packed is then left untouched. */
cs_status isa_int4_pack(const int8_t *values, size_t n, uint8_t *packed, cs_err *err);
void isa_int4_unpack(const uint8_t *packed, size_t n, int8_t *values);

uint8_t isa_uint4_get(const uint8_t *packed, size_t index);
/* value must be in [0, 15] (only its low 4 bits are stored); the other nibble is kept. */
void isa_uint4_set(uint8_t *packed, size_t index, uint8_t value);
/* As isa_int4_pack, for values in [0, 15]. */
cs_status isa_uint4_pack(const uint8_t *values, size_t n, uint8_t *packed, cs_err *err);
void isa_uint4_unpack(const uint8_t *packed, size_t n, uint8_t *values);

#endif
