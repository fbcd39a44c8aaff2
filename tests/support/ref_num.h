/* ref_num — independent numeric references for the tests: fp32 bit casts, fp16/bf16 values and
 * rounding, integer rounding ties to even, exact block sums, the quant word's fp19 scale and
 * packer, and the fixpipe's int8 rule.
 *
 * Written from docs/DESIGN.md §3, §5 and docs/ISA.md with a different method than isa/ uses (isa/
 * works on bit patterns; here values are scaled doubles rounded with nearbyint, and sums are
 * exact multi-word integers), so a test comparing the two checks both. Nothing here calls isa/.
 */
#ifndef REF_NUM_H
#define REF_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exact values of fp16 and bf16 bit patterns (finite ones; Inf and NaN as their doubles). */
double ref_f16_value(uint16_t h);
float ref_bf16_value(uint16_t b);
uint32_t ref_f32_bits(float f);
float ref_f32_of_bits(uint32_t bits);

/* fp32 -> fp16 / bf16, round to nearest, ties to even. saturate: overflow (and Inf) gives
 * +-max finite and NaN gives +0 (the fixpipe's saturation mode); otherwise IEEE (+-Inf, quiet
 * NaN). */
uint16_t ref_f16_rne(float f, bool saturate);
uint16_t ref_bf16_rne(float f, bool saturate);

/* v (an exact value, not NaN) rounded into a binary float format of mbits stored mantissa bits
 * and normal exponents emin .. emax (IEEE layout, bias emax), returned as bits. mode: 'n' to
 * nearest even (nearbyint), 'a' to nearest away (round), 'd' down (floor), 'u' up (ceil), 'z'
 * toward zero (trunc), 'o' to odd (trunc, then away from zero by one unit when inexact and
 * even), applied to the signed count of the result's units. Beyond the largest finite value:
 * Inf for 'n' and 'a' and for the direction that rounds away from zero ('d' negative, 'u'
 * positive), the largest finite value otherwise (IEEE 754 §7.4; 'o' like 'z'). */
uint32_t ref_round_float(double v, unsigned mbits, int emin, int emax, char mode);
/* v rounded to an integer by mode (as above), then clamped to [lo, hi]; NaN gives 0. */
int64_t ref_round_int(double v, char mode, int64_t lo, int64_t hi);
/* The same as ref_round_float for fp16 / bf16 / fp32, to nearest even; NaN gives the quiet NaN
 * (0x7E00, 0x7FC0, 0x7FC00000); sat: Inf results become ±max and NaN +0 (CTRL[48]). */
uint32_t ref_f16_of(double v, bool sat);
uint32_t ref_bf16_of(double v, bool sat);
uint32_t ref_f32_of(double v);

/* v rounded to an integer, ties to even, by floor and fmod (not by the rounding mode). */
double ref_round_half_even(double v);

/* Sum of n finite doubles, computed exactly and rounded once to fp32 (nearest, ties to even);
 * an exact zero is +0 and a sum beyond fp32's range is +-Inf. The terms are the cube's exact
 * products (docs/ISA.md, mmad). */
float ref_exact_sum_f32(const double *terms, size_t n);

/* The fp19 scale M1 of a quant word: bits 31..13 of its low word, as an fp32. */
float ref_word_fp19(uint64_t word);
/* The documented packer (docs/DESIGN.md §5.1): (bits(scale) & 0xFFFFE000) | 1 << 46, then with an
 * offset clamp(round_half_away(offset), -256, 255) in bits 37..45. */
uint64_t ref_pack_word(float scale, bool has_offset, float offset);

/* The other public packers (docs/DESIGN.md §5.1), by value arithmetic (frexp and libm rounding,
 * not bit masks): the scale truncated to fp19 (REF_SCALE_TRUNC), rounded to the nearer fp19
 * value with ties to an even 10-bit mantissa and zero or subnormal scales flushed to a zero of
 * their sign (REF_SCALE_RNE, the TransQuantParamV2 kernel's round_mode 1), or stored with all 32
 * bits (REF_SCALE_NONE); the offset rounded half away from zero (lround) or half to even
 * (llrint), clamped to [-256, 255]; S = 1; N in bits 32..35 and MCB in bit 36. Scales must be
 * finite, and below the largest fp19 value for REF_SCALE_RNE. */
typedef enum ref_scale_mode { REF_SCALE_TRUNC, REF_SCALE_RNE, REF_SCALE_NONE } ref_scale_mode;
uint64_t ref_pack_word_as(float scale, bool has_offset, float offset, ref_scale_mode sm,
                          bool offset_half_even, unsigned n, unsigned mcb);

/* The REQ8 / QF322B8 element rule from the product y = fp32(x) * M (docs/DESIGN.md §5.2):
 * q = clamp(rne(y), -256, 255) + offset; S ? clamp(q, -128, 127) : clamp(q, 0, 255); returns the
 * output byte. NaN rounds to 0. */
uint8_t ref_b8(float y, int offset, bool s);

/* The fixpipe's int32 modes on one accumulator x with word w, saturation on, no ReLU
 * (docs/DESIGN.md §5.2): DEQF16's fp16 bits, and REQ8's byte (with MCB = 1, x is first shifted
 * right by N, rounding toward -inf, and saturated to int16). Their values: ref_f16_value, and the
 * byte read as int8 when S = 1, as uint8 when S = 0 (ref_b8_value). */
uint16_t ref_deqf16(uint64_t w, int32_t x);
uint8_t ref_req8(uint64_t w, int32_t x);
double ref_b8_value(uint64_t w, uint8_t byte);

#endif
