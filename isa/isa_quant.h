/* isa_quant — the packed uint64 quant word of the fixpipe (arch 2201): pack, unpack, explain.
 *
 * Layout (docs/DESIGN.md §5.1, from the Ascend C SetQuantScalar document and aclnnTransQuantParam):
 *
 *  63        47 46 45          37 36 35   32 31 30      23 22        13 12          0
 * +-----------+--+---------------+--+-------+--+----------+------------+-------------+
 * |  ignored  |S |  offset (s9)  |MC|   N   |sg| exponent | mantissa10 | ignored (0) |
 * +-----------+--+---------------+--+-------+--+----------+------------+-------------+
 *
 * - bits 0..31  the fp32 scale M1. The hardware reads only bits 31..13 (1 sign, 8 exponent,
 *               10 mantissa bits: "fp19"); bits 12..0 are dropped, i.e. the scale is truncated.
 * - bits 32..35 N, the right shift REQ8 applies when MCB = 1 (cubesim: N is the shift count).
 * - bit  36     MCB: REQ8 only; 1 = shift the int32 right by N and saturate to int16 first.
 * - bits 37..45 offset, 9-bit two's complement [-256, 255], added after rounding (REQ8, QF322B8).
 * - bit  46     S: 1 = signed int8 output, 0 = uint8 output (REQ8 and QF322B8 only).
 * - bits 47..63 ignored by the hardware.
 *
 * The documented packer is `w = (bits(scale) & 0xFFFFE000) | (1 << 46)`, then with an offset
 * `o = clamp(round(offset), -256, 255)`, `w = (w & 0x4000FFFFFFFF) | ((o & 0x1FF) << 37)`.
 * Other public implementations differ (aclnnTransQuantParam's host code keeps all 32 scale bits;
 * the TransQuantParamV2 device kernel truncates (round_mode 0) or rounds the scale to 19 bits
 * (round_mode 1) and rounds offsets half to even): isa_qw_pack offers each variant by name; the
 * zero-initialised options are the documented formula. No public packer writes N and MCB;
 * isa_qw_pack does when asked (REQ8's pre-shift). isa/isa_quant_tools.h works on whole tensors.
 */
#ifndef ISA_QUANT_H
#define ISA_QUANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"

/* ---- Field positions, widths and in-place masks (no bitfields: shifts and masks only) ---- */

#define ISA_QW_SCALE_POS 0
#define ISA_QW_SCALE_WIDTH 32
#define ISA_QW_SCALE_MASK UINT64_C(0x00000000FFFFFFFF)
/* Of the 32 scale bits, the hardware keeps bits 31..13 (fp19) and drops bits 12..0. */
#define ISA_QW_SCALE_KEPT_POS 13
#define ISA_QW_SCALE_KEPT_WIDTH 19
#define ISA_QW_SCALE_KEPT_MASK UINT32_C(0xFFFFE000)
#define ISA_QW_SCALE_DROPPED_POS 0
#define ISA_QW_SCALE_DROPPED_WIDTH 13
#define ISA_QW_SCALE_DROPPED_MASK UINT32_C(0x00001FFF)
/* Inside the kept scale bits, the fp32 sub-fields (positions within the 32-bit scale). */
#define ISA_QW_SCALE_SIGN_POS 31
#define ISA_QW_SCALE_EXP_POS 23
#define ISA_QW_SCALE_EXP_WIDTH 8
#define ISA_QW_SCALE_MANT_POS 13
#define ISA_QW_SCALE_MANT_WIDTH 10

#define ISA_QW_N_POS 32
#define ISA_QW_N_WIDTH 4
#define ISA_QW_N_MASK UINT64_C(0x0000000F00000000)

#define ISA_QW_MCB_POS 36
#define ISA_QW_MCB_WIDTH 1
#define ISA_QW_MCB_MASK UINT64_C(0x0000001000000000)

#define ISA_QW_OFFSET_POS 37
#define ISA_QW_OFFSET_WIDTH 9
#define ISA_QW_OFFSET_MASK UINT64_C(0x00003FE000000000)
#define ISA_QW_OFFSET_MIN (-256)
#define ISA_QW_OFFSET_MAX 255

#define ISA_QW_S_POS 46
#define ISA_QW_S_WIDTH 1
#define ISA_QW_S_MASK UINT64_C(0x0000400000000000)

#define ISA_QW_IGNORED_POS 47
#define ISA_QW_IGNORED_WIDTH 17
#define ISA_QW_IGNORED_MASK UINT64_C(0xFFFF800000000000)

/* The documented packer's mask that keeps the scale and S before the offset is or-ed in. */
#define ISA_QW_PACK_KEEP_MASK UINT64_C(0x00004000FFFFFFFF)

/* ---- The fields as a table (for explanation and for the completeness test) ---- */

/* id, name, lowest bit, width, what it is */
#define ISA_QW_FIELD_TABLE(X)                                                                \
  X(SCALE_LOW, "scale_low", 0, 13, "scale bits 12..0, dropped by the hardware (truncation)") \
  X(SCALE_MANT, "mantissa", 13, 10, "scale mantissa, the 10 high fp32 mantissa bits kept")   \
  X(SCALE_EXP, "exponent", 23, 8, "scale exponent (fp32 bias 127)")                          \
  X(SCALE_SIGN, "sign", 31, 1, "scale sign")                                                 \
  X(N, "n", 32, 4, "N: right shift of REQ8's int32 before the multiply, when MCB = 1")       \
  X(MCB, "mcb", 36, 1, "MCB: REQ8 shifts by N and saturates to int16 before the multiply")   \
  X(OFFSET, "offset", 37, 9, "offset, 9-bit two's complement, added after rounding")         \
  X(S, "s", 46, 1, "S: 1 signed int8 output, 0 uint8 output")                                \
  X(IGNORED, "ignored", 47, 17, "ignored by the hardware")

typedef enum isa_qw_field {
#define ISA_QW_FIELD_ENUM(id, name, lsb, width, desc) ISA_QW_FIELD_##id,
  ISA_QW_FIELD_TABLE(ISA_QW_FIELD_ENUM)
#undef ISA_QW_FIELD_ENUM
  ISA_QW_FIELD_COUNT
} isa_qw_field;

const char *isa_qw_field_name(isa_qw_field f);
unsigned isa_qw_field_lsb(isa_qw_field f);
unsigned isa_qw_field_width(isa_qw_field f);
const char *isa_qw_field_desc(isa_qw_field f);

/* ---- Warnings: one bit each; the table gives the short name and the general message ---- */

/* id, short name, message (the full message with this word's values: isa_qw_warning_text) */
#define ISA_QW_WARN_TABLE(X)                                                                  \
  X(S_CLEAR, "s-clear", "bit 46 (S) clear: REQ8/QF322B8 modes would produce uint8")           \
  X(LOW_BITS, "low-bits", "ignored low scale bits 12..0 set: the hardware truncates them")    \
  X(HIGH_BITS, "high-bits", "ignored high bits 47..63 set")                                   \
  X(SIGN_EXTENDED, "sign-extended",                                                           \
    "the word looks like a negative fp32 scale sign-extended through int32_t")                \
  X(SCALE_ZERO, "scale-zero", "the effective (fp19) scale is zero: every output is 0")        \
  X(SCALE_SUBNORMAL, "scale-subnormal", "the effective (fp19) scale is subnormal")            \
  X(SCALE_NONFINITE, "scale-nonfinite", "the effective (fp19) scale is Inf or NaN")           \
  X(N_UNUSED, "n-unused", "N is set but MCB = 0: REQ8 ignores N")                             \
  X(OFFSET_CLAMPED, "offset-clamped", "offset clamped to [-256, 255]")

typedef enum isa_qw_warn_index {
#define ISA_QW_WARN_INDEX(id, name, msg) ISA_QW_WARN_INDEX_##id,
  ISA_QW_WARN_TABLE(ISA_QW_WARN_INDEX)
#undef ISA_QW_WARN_INDEX
  ISA_QW_WARN_COUNT
} isa_qw_warn_index;

/* Warning bits (ISA_QW_WARN_S_CLEAR, ...), or-ed into a bitmask. */
typedef enum isa_qw_warn {
#define ISA_QW_WARN_BIT(id, name, msg) ISA_QW_WARN_##id = 1u << ISA_QW_WARN_INDEX_##id,
  ISA_QW_WARN_TABLE(ISA_QW_WARN_BIT)
#undef ISA_QW_WARN_BIT
} isa_qw_warn;

/* Short name ("s-clear") and general message of the warning with index i. */
const char *isa_qw_warning_name(isa_qw_warn_index i);
const char *isa_qw_warning_message(isa_qw_warn_index i);

/* ---- Fixpipe modes that read the word (docs/DESIGN.md §5.2) ---- */

/* id, name (scalar / vector form), fields used (ISA_QW_USES_*), conversion */
#define ISA_QW_USES_SCALE 1u
#define ISA_QW_USES_SHIFT 2u /* N and MCB */
#define ISA_QW_USES_OFFSET 4u
#define ISA_QW_USES_SIGN 8u
#define ISA_QW_MODE_TABLE(X)                                                                 \
  X(DEQF16, "DEQF16/VDEQF16", ISA_QW_USES_SCALE, "int32 -> fp16")                            \
  X(REQ8, "REQ8/VREQ8",                                                                      \
    ISA_QW_USES_SCALE | ISA_QW_USES_SHIFT | ISA_QW_USES_OFFSET | ISA_QW_USES_SIGN,           \
    "int32 -> int8/uint8")                                                                   \
  X(QF322B8, "QF322B8_PRE/VQF322B8_PRE",                                                    \
    ISA_QW_USES_SCALE | ISA_QW_USES_OFFSET | ISA_QW_USES_SIGN, "fp32 -> int8/uint8")

typedef enum isa_qw_mode {
#define ISA_QW_MODE_ENUM(id, name, uses, conv) ISA_QW_MODE_##id,
  ISA_QW_MODE_TABLE(ISA_QW_MODE_ENUM)
#undef ISA_QW_MODE_ENUM
  ISA_QW_MODE_COUNT
} isa_qw_mode;

const char *isa_qw_mode_name(isa_qw_mode m);
/* ISA_QW_USES_* bits of the fields the mode reads. */
unsigned isa_qw_mode_uses(isa_qw_mode m);

/* ---- Packing options ---- */

/* id, name, what it does */
#define ISA_QW_SCALE_ROUNDING_TABLE(X)                                                       \
  X(TRUNC, "trunc", "keep fp32 bits 31..13, clear 12..0 (the documented formula)")           \
  X(RNE, "rne", "round the fp32 to 19 bits, to nearest, ties to even (TransQuantParamV2's "  \
    "round_mode 1)")                                                                          \
  X(NONE, "none", "store all 32 fp32 bits; the hardware still truncates "                    \
    "(aclnnTransQuantParam's code)")

typedef enum isa_qw_scale_rounding {
#define ISA_QW_SR_ENUM(id, name, desc) ISA_QW_SCALE_##id,
  ISA_QW_SCALE_ROUNDING_TABLE(ISA_QW_SR_ENUM)
#undef ISA_QW_SR_ENUM
  ISA_QW_SCALE_ROUNDING_COUNT
} isa_qw_scale_rounding;

#define ISA_QW_OFFSET_ROUNDING_TABLE(X)                                                   \
  X(HALF_AWAY, "half-away", "round half away from zero (the documented formula, the host "  \
    "packer)")                                                                             \
  X(HALF_EVEN, "half-even", "round half to even (the TransQuantParamV2 device kernel)")

typedef enum isa_qw_offset_rounding {
#define ISA_QW_OR_ENUM(id, name, desc) ISA_QW_OFFSET_##id,
  ISA_QW_OFFSET_ROUNDING_TABLE(ISA_QW_OR_ENUM)
#undef ISA_QW_OR_ENUM
  ISA_QW_OFFSET_ROUNDING_COUNT
} isa_qw_offset_rounding;

const char *isa_qw_scale_rounding_name(isa_qw_scale_rounding r);
const char *isa_qw_scale_rounding_desc(isa_qw_scale_rounding r);
/* Looks an option up by name; false if unknown. */
bool isa_qw_scale_rounding_from_name(const char *name, isa_qw_scale_rounding *out);
const char *isa_qw_offset_rounding_name(isa_qw_offset_rounding r);
const char *isa_qw_offset_rounding_desc(isa_qw_offset_rounding r);
bool isa_qw_offset_rounding_from_name(const char *name, isa_qw_offset_rounding *out);

/* Zero-initialised = the documented packer (trunc, half-away, no pre-shift). */
typedef struct isa_qw_pack_opts {
  isa_qw_scale_rounding scale_rounding;
  isa_qw_offset_rounding offset_rounding;
  unsigned n;   /* N, REQ8's right shift: 0..15 */
  unsigned mcb; /* MCB: 1 = REQ8 shifts by N and saturates to int16 first; 0 or 1 */
} isa_qw_pack_opts;

#define ISA_QW_N_MAX 15u

/* ---- Unpacked word ---- */

typedef struct isa_qw_fields {
  uint64_t word;
  uint32_t scale_bits;         /* bits 31..0 as stored */
  uint32_t scale_kept_bits;    /* scale_bits & 0xFFFFE000: what the hardware uses */
  uint32_t scale_dropped_bits; /* scale_bits & 0x1FFF: ignored */
  float scale_effective;       /* the fp32 whose bits are scale_kept_bits (fp19 value) */
  unsigned scale_sign;         /* bit 31 */
  unsigned scale_exponent;     /* bits 30..23, biased */
  unsigned scale_mantissa;     /* bits 22..13 (10 bits) */
  unsigned n;                  /* bits 35..32, 0..15 */
  unsigned mcb;                /* bit 36 */
  int offset;                  /* bits 45..37 as signed 9-bit, -256..255 */
  unsigned s;                  /* bit 46 */
  uint64_t ignored_bits;       /* word & 0xFFFF800000000000 (in place) */
  unsigned warnings;           /* isa_qw_warn bits about the word itself */
} isa_qw_fields;

/* Decodes every field of a word and the warnings it deserves. Never fails. */
void isa_qw_unpack(uint64_t word, isa_qw_fields *out);
/* The fp19 scale M1 the fixpipe applies: bits 31..13 of the word, followed by 13 zero bits. */
float isa_qw_scale_effective(uint64_t word);
/* The signed 9-bit offset of a word. */
int isa_qw_offset(uint64_t word);

/* ---- Packing ---- */

typedef struct isa_qw_packed {
  isa_qw_fields fields;           /* the packed word, unpacked (fields.word is the result) */
  isa_qw_pack_opts opts;          /* the options used */
  float scale;                    /* the input */
  double relative_error;          /* (scale_effective - scale) / scale, in double */
  bool has_offset;
  float offset_input;             /* the input offset (when has_offset) */
  double offset_rounded;          /* after rounding, before clamping (an integer) */
  unsigned warnings;              /* fields.warnings plus the packer's own (offset clamped) */
} isa_qw_packed;

/* The scale bits 31..0 a packer stores for the fp32 with bits fp32_bits, bit for bit as the
 * public packers do, for every input: trunc clears bits 12..0; none keeps them; rne rounds to
 * 19 bits, ties to the even kept bit (a carry goes into the exponent, up to infinity), and, as
 * the TransQuantParamV2 kernel does, flushes a zero or subnormal to a zero of its sign and
 * truncates an Inf or NaN. */
uint32_t isa_qw_scale_store(uint32_t fp32_bits, isa_qw_scale_rounding r);
/* A finite offset rounded to an integer (the sign of a zero dropped), before the clamp. */
double isa_qw_offset_round(double offset, isa_qw_offset_rounding r);
/* A rounded offset limited to the 9-bit field's [-256, 255]. */
int isa_qw_offset_clamp(double rounded);
/* The word a packer with options o (NULL: defaults) builds from fp32 scale bits and an optional
 * finite offset (NULL: none), without checks: S = 1, offset in bits 37..45, N and MCB as o
 * says (o->n and o->mcb must be in range). isa_qw_pack is this plus the checks. */
uint64_t isa_qw_pack_bits(uint32_t scale_bits, const float *offset, const isa_qw_pack_opts *o);

/* Packs one scale and an optional offset (NULL: none) with opts (NULL: defaults).
 * The scale must be finite, non-zero and normal (else CS_EINVAL naming the value); with rne a
 * scale that rounds up to Inf gives the word with an infinite fp19 scale, as the device packer
 * does, and the scale-nonfinite warning; a NaN or infinite offset is an error; N above 15 or MCB
 * above 1 is an error. */
cs_status isa_qw_pack(float scale, const float *offset, const isa_qw_pack_opts *opts,
                      isa_qw_packed *out, cs_err *err);

/* Packs n per-channel scales into n words. Offsets: n_offsets = 0 (none), 1 (broadcast) or n.
 * details (NULL or n entries) receives every channel's pack result. The first bad element is
 * an error naming its index ("scale[3]: ..."); words is then left partially written. */
cs_status isa_qw_pack_array(const float *scales, size_t n, const float *offsets,
                            size_t n_offsets, const isa_qw_pack_opts *opts, uint64_t *words,
                            isa_qw_packed *details, cs_err *err);

/* ---- Explanations (shared by the command line, JSON and tests) ---- */

/* The full message of warning i about word f, with its values filled in. p (may be NULL) is
 * the pack result, needed for the packer's own warnings. Returns the length written. */
size_t isa_qw_warning_text(isa_qw_warn_index i, const isa_qw_fields *f, const isa_qw_packed *p,
                           char *buf, size_t buf_bytes);
/* One plain-words line about field fld of word f. */
size_t isa_qw_field_explain(isa_qw_field fld, const isa_qw_fields *f, char *buf,
                            size_t buf_bytes);
/* The scale in one line: fp19 value as significand x 2^exp, stored and kept fp32 bits. */
size_t isa_qw_scale_explain(const isa_qw_fields *f, char *buf, size_t buf_bytes);
/* What mode m computes with word f (its values filled in) and which fields it ignores
 * ("int32 -> fp16: out = fp16_rne(fp32(x) * 0.0999755859375), ..."; the mode's name is not
 * repeated: isa_qw_mode_name). */
size_t isa_qw_mode_note(isa_qw_mode m, const isa_qw_fields *f, char *buf, size_t buf_bytes);

/* The shortest decimal that reads back (strtof) as exactly v: "0.1", "1e-40", "300", "nan",
 * "-inf". Integral values below 1e16 are written out in full. */
void isa_quant_format_fp32(char *out, size_t out_bytes, float v);
/* The same for a double (strtod): "0.0999755859375", "-0.00024415552252299305". */
void isa_quant_format_double(char *out, size_t out_bytes, double v);

#endif
