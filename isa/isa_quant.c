/* isa_quant — packing, unpacking and explaining the fixpipe quant word (docs/DESIGN.md §5.1). */
#include "isa/isa_quant.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_num.h"

/* ---- Tables ---- */

static const struct {
  const char *name;
  unsigned lsb;
  unsigned width;
  const char *desc;
} field_rows[ISA_QW_FIELD_COUNT] = {
#define ISA_QW_FIELD_ROW(id, name, lsb, width, desc) {name, lsb, width, desc},
    ISA_QW_FIELD_TABLE(ISA_QW_FIELD_ROW)
#undef ISA_QW_FIELD_ROW
};

static const struct {
  const char *name;
  const char *msg;
} warn_rows[ISA_QW_WARN_COUNT] = {
#define ISA_QW_WARN_ROW(id, name, msg) {name, msg},
    ISA_QW_WARN_TABLE(ISA_QW_WARN_ROW)
#undef ISA_QW_WARN_ROW
};

static const struct {
  const char *name;
  unsigned uses;
  const char *conv;
} mode_rows[ISA_QW_MODE_COUNT] = {
#define ISA_QW_MODE_ROW(id, name, uses, conv) {name, uses, conv},
    ISA_QW_MODE_TABLE(ISA_QW_MODE_ROW)
#undef ISA_QW_MODE_ROW
};

static const struct {
  const char *name;
  const char *desc;
} scale_rounding_rows[ISA_QW_SCALE_ROUNDING_COUNT] = {
#define ISA_QW_SR_ROW(id, name, desc) {name, desc},
    ISA_QW_SCALE_ROUNDING_TABLE(ISA_QW_SR_ROW)
#undef ISA_QW_SR_ROW
};

static const struct {
  const char *name;
  const char *desc;
} offset_rounding_rows[ISA_QW_OFFSET_ROUNDING_COUNT] = {
#define ISA_QW_OR_ROW(id, name, desc) {name, desc},
    ISA_QW_OFFSET_ROUNDING_TABLE(ISA_QW_OR_ROW)
#undef ISA_QW_OR_ROW
};

const char *isa_qw_field_name(isa_qw_field f) {
  return (unsigned)f < ISA_QW_FIELD_COUNT ? field_rows[f].name : "?";
}
unsigned isa_qw_field_lsb(isa_qw_field f) {
  return (unsigned)f < ISA_QW_FIELD_COUNT ? field_rows[f].lsb : 0;
}
unsigned isa_qw_field_width(isa_qw_field f) {
  return (unsigned)f < ISA_QW_FIELD_COUNT ? field_rows[f].width : 0;
}
const char *isa_qw_field_desc(isa_qw_field f) {
  return (unsigned)f < ISA_QW_FIELD_COUNT ? field_rows[f].desc : "?";
}

const char *isa_qw_warning_name(isa_qw_warn_index i) {
  return (unsigned)i < ISA_QW_WARN_COUNT ? warn_rows[i].name : "?";
}
const char *isa_qw_warning_message(isa_qw_warn_index i) {
  return (unsigned)i < ISA_QW_WARN_COUNT ? warn_rows[i].msg : "?";
}

const char *isa_qw_mode_name(isa_qw_mode m) {
  return (unsigned)m < ISA_QW_MODE_COUNT ? mode_rows[m].name : "?";
}
unsigned isa_qw_mode_uses(isa_qw_mode m) {
  return (unsigned)m < ISA_QW_MODE_COUNT ? mode_rows[m].uses : 0;
}

const char *isa_qw_scale_rounding_name(isa_qw_scale_rounding r) {
  return (unsigned)r < ISA_QW_SCALE_ROUNDING_COUNT ? scale_rounding_rows[r].name : "?";
}
const char *isa_qw_scale_rounding_desc(isa_qw_scale_rounding r) {
  return (unsigned)r < ISA_QW_SCALE_ROUNDING_COUNT ? scale_rounding_rows[r].desc : "?";
}
bool isa_qw_scale_rounding_from_name(const char *name, isa_qw_scale_rounding *out) {
  for (unsigned r = 0; name && r < ISA_QW_SCALE_ROUNDING_COUNT; r++)
    if (strcmp(name, scale_rounding_rows[r].name) == 0) {
      *out = (isa_qw_scale_rounding)r;
      return true;
    }
  return false;
}
const char *isa_qw_offset_rounding_name(isa_qw_offset_rounding r) {
  return (unsigned)r < ISA_QW_OFFSET_ROUNDING_COUNT ? offset_rounding_rows[r].name : "?";
}
const char *isa_qw_offset_rounding_desc(isa_qw_offset_rounding r) {
  return (unsigned)r < ISA_QW_OFFSET_ROUNDING_COUNT ? offset_rounding_rows[r].desc : "?";
}
bool isa_qw_offset_rounding_from_name(const char *name, isa_qw_offset_rounding *out) {
  for (unsigned r = 0; name && r < ISA_QW_OFFSET_ROUNDING_COUNT; r++)
    if (strcmp(name, offset_rounding_rows[r].name) == 0) {
      *out = (isa_qw_offset_rounding)r;
      return true;
    }
  return false;
}

/* ---- decimal text ---- */

/* The fewest significant digits (up to max_digits) whose decimal reads back as v, through
 * strtof when as_float, else strtod. %g writes integral values of 10 and more as "3e+02" at the
 * precision that first reads back; below 1e16 they are written out ("300"). */
static void shortest(char *out, size_t out_bytes, double v, int max_digits, bool as_float) {
  if (isnan(v)) {
    snprintf(out, out_bytes, "%s", "nan");
    return;
  }
  if (isinf(v)) {
    snprintf(out, out_bytes, "%s", v < 0 ? "-inf" : "inf");
    return;
  }
  if (v == floor(v) && fabs(v) < 1e16) {
    snprintf(out, out_bytes, "%.0f", v);
    if (v == 0 && signbit(v)) snprintf(out, out_bytes, "%s", "-0");
    return;
  }
  for (int prec = 1; prec <= max_digits; prec++) {
    snprintf(out, out_bytes, "%.*g", prec, v);
    if (as_float ? strtof(out, NULL) == (float)v : strtod(out, NULL) == v) return;
  }
}

void isa_quant_format_fp32(char *out, size_t out_bytes, float v) {
  shortest(out, out_bytes, (double)v, 9, true); /* 9 digits always read back as the fp32 */
}

void isa_quant_format_double(char *out, size_t out_bytes, double v) {
  shortest(out, out_bytes, v, 17, false);
}

/* ---- Unpacking ---- */

#define FP32_EXP_MAX 0xFFu
#define FP32_SIGN_BIT UINT32_C(0x80000000)
#define HIGH_WORD_ALL_ONES UINT64_C(0xFFFFFFFF)

static unsigned fp32_exponent(uint32_t bits) { return (bits >> ISA_QW_SCALE_EXP_POS) & 0xFFu; }

void isa_qw_unpack(uint64_t word, isa_qw_fields *out) {
  isa_qw_fields f;
  memset(&f, 0, sizeof f);
  f.word = word;
  f.scale_bits = (uint32_t)((word & ISA_QW_SCALE_MASK) >> ISA_QW_SCALE_POS);
  f.scale_kept_bits = f.scale_bits & ISA_QW_SCALE_KEPT_MASK;
  f.scale_dropped_bits = f.scale_bits & ISA_QW_SCALE_DROPPED_MASK;
  f.scale_effective = isa_f32_from_bits(f.scale_kept_bits);
  f.scale_sign = (unsigned)(f.scale_kept_bits >> ISA_QW_SCALE_SIGN_POS);
  f.scale_exponent = fp32_exponent(f.scale_kept_bits);
  f.scale_mantissa = (unsigned)(f.scale_kept_bits >> ISA_QW_SCALE_MANT_POS) &
                     ((1u << ISA_QW_SCALE_MANT_WIDTH) - 1);
  f.n = (unsigned)((word & ISA_QW_N_MASK) >> ISA_QW_N_POS);
  f.mcb = (unsigned)((word & ISA_QW_MCB_MASK) >> ISA_QW_MCB_POS);
  unsigned off9 = (unsigned)((word & ISA_QW_OFFSET_MASK) >> ISA_QW_OFFSET_POS);
  /* 9-bit two's complement: 0x100..0x1FF are -256..-1. */
  f.offset = off9 >= 0x100u ? (int)off9 - 0x200 : (int)off9;
  f.s = (unsigned)((word & ISA_QW_S_MASK) >> ISA_QW_S_POS);
  f.ignored_bits = word & ISA_QW_IGNORED_MASK;

  if (!f.s) f.warnings |= ISA_QW_WARN_S_CLEAR;
  if (f.scale_dropped_bits) f.warnings |= ISA_QW_WARN_LOW_BITS;
  if (f.ignored_bits) f.warnings |= ISA_QW_WARN_HIGH_BITS;
  if (f.n && !f.mcb) f.warnings |= ISA_QW_WARN_N_UNUSED;
  /* The seed's example `(uint64_t)*(int32_t*)&scale` sign-extends a negative fp32 into bits
   * 32..63 (SetQuantScalar document, docs/DESIGN.md §5.1). */
  if ((word >> 32) == HIGH_WORD_ALL_ONES && (f.scale_bits & FP32_SIGN_BIT))
    f.warnings |= ISA_QW_WARN_SIGN_EXTENDED;
  if (f.scale_exponent == 0)
    f.warnings |= f.scale_mantissa ? ISA_QW_WARN_SCALE_SUBNORMAL : ISA_QW_WARN_SCALE_ZERO;
  else if (f.scale_exponent == FP32_EXP_MAX)
    f.warnings |= ISA_QW_WARN_SCALE_NONFINITE;
  *out = f;
}

float isa_qw_scale_effective(uint64_t word) {
  return isa_f32_from_bits((uint32_t)(word & ISA_QW_SCALE_MASK) & ISA_QW_SCALE_KEPT_MASK);
}

int isa_qw_offset(uint64_t word) {
  unsigned off9 = (unsigned)((word & ISA_QW_OFFSET_MASK) >> ISA_QW_OFFSET_POS);
  return off9 >= 0x100u ? (int)off9 - 0x200 : (int)off9;
}

/* ---- Packing ---- */

static const char scale_rule[] = "the quant scale must be a finite, non-zero, normal fp32";

/* A scale the word cannot carry: zero, Inf, NaN or subnormal (the fp19 scale has the fp32
 * exponent range; cubesim refuses subnormals rather than guess how the fixpipe treats them). */
static cs_status check_scale(float scale, cs_err *err) {
  uint32_t bits = isa_f32_bits(scale);
  unsigned exp = fp32_exponent(bits);
  uint32_t mant = bits & 0x007FFFFFu;
  char v[32];
  isa_quant_format_fp32(v, sizeof v, scale);
  if (exp == FP32_EXP_MAX)
    return cs_err_set(err, CS_EINVAL, "scale %s (fp32 0x%08x) is %s: %s", v, (unsigned)bits,
                      mant ? "NaN" : "infinite", scale_rule);
  if (exp == 0 && mant == 0)
    return cs_err_set(err, CS_EINVAL, "scale %s (fp32 0x%08x) is zero: %s", v, (unsigned)bits,
                      scale_rule);
  if (exp == 0)
    return cs_err_set(err, CS_EINVAL,
                      "scale %s (fp32 0x%08x) is subnormal (the smallest normal fp32 is "
                      "1.17549435e-38): %s",
                      v, (unsigned)bits, scale_rule);
  return CS_OK;
}

/* Rounds fp32 bits to 19 bits (sign, exponent, 10 mantissa bits), to nearest, ties to the even
 * kept bit; a carry out of the mantissa increments the exponent, up to infinity (the
 * TransQuantParamV2 kernel's round_mode 1, docs/DESIGN.md §5.1). Adding 0xFFF plus the kept lsb
 * and truncating is that rule on the magnitude, which fp32 stores apart from the sign; it cannot
 * reach the sign bit, because the kernel leaves exponent 255 (Inf, NaN) truncated and flushes
 * exponent 0 (zero, subnormal) to a zero of the same sign. */
static uint32_t round_fp19_rne(uint32_t bits) {
  unsigned exp = fp32_exponent(bits);
  if (exp == 0) return bits & FP32_SIGN_BIT;
  if (exp == FP32_EXP_MAX) return bits & ISA_QW_SCALE_KEPT_MASK;
  uint32_t kept_lsb = (bits >> ISA_QW_SCALE_KEPT_POS) & 1u;
  return (bits + 0x0FFFu + kept_lsb) & ISA_QW_SCALE_KEPT_MASK;
}

uint32_t isa_qw_scale_store(uint32_t fp32_bits, isa_qw_scale_rounding r) {
  switch (r) {
    case ISA_QW_SCALE_RNE: return round_fp19_rne(fp32_bits);
    case ISA_QW_SCALE_NONE: return fp32_bits;
    case ISA_QW_SCALE_TRUNC:
    case ISA_QW_SCALE_ROUNDING_COUNT: break;
  }
  return fp32_bits & ISA_QW_SCALE_KEPT_MASK;
}

double isa_qw_offset_round(double offset, isa_qw_offset_rounding r) {
  double rounded = r == ISA_QW_OFFSET_HALF_EVEN ? isa_round_half_even(offset)
                                                : isa_round_half_away(offset);
  return rounded + 0.0; /* -0.0 + 0.0 is +0.0: an offset has no signed zero */
}

int isa_qw_offset_clamp(double rounded) {
  if (rounded < ISA_QW_OFFSET_MIN) return ISA_QW_OFFSET_MIN;
  if (rounded > ISA_QW_OFFSET_MAX) return ISA_QW_OFFSET_MAX;
  return (int)rounded;
}

uint64_t isa_qw_pack_bits(uint32_t scale_bits, const float *offset, const isa_qw_pack_opts *o) {
  isa_qw_pack_opts d = {.scale_rounding = ISA_QW_SCALE_TRUNC};
  if (!o) o = &d;
  /* Step 2 of the SetQuantScalar formula: the scale in bits 0..31 and S = 1. */
  uint64_t word = ((uint64_t)isa_qw_scale_store(scale_bits, o->scale_rounding)
                   << ISA_QW_SCALE_POS) | ISA_QW_S_MASK;
  if (offset) {
    /* Step 3: keep scale and S, put the low 9 bits of the offset in bits 37..45. */
    int clamped = isa_qw_offset_clamp(isa_qw_offset_round((double)*offset, o->offset_rounding));
    uint64_t off9 = (uint64_t)((uint32_t)clamped & 0x1FFu);
    word = (word & ISA_QW_PACK_KEEP_MASK) | (off9 << ISA_QW_OFFSET_POS);
  }
  /* REQ8's pre-shift, which no public packer writes, goes in last (step 3 would clear it). */
  word |= ((uint64_t)(o->n & 0xFu) << ISA_QW_N_POS) | ((uint64_t)(o->mcb & 1u) << ISA_QW_MCB_POS);
  return word;
}

cs_status isa_qw_pack(float scale, const float *offset, const isa_qw_pack_opts *opts,
                      isa_qw_packed *out, cs_err *err) {
  isa_qw_pack_opts o = {.scale_rounding = ISA_QW_SCALE_TRUNC};
  if (opts) o = *opts;
  if ((unsigned)o.scale_rounding >= ISA_QW_SCALE_ROUNDING_COUNT)
    return cs_err_set(err, CS_EINVAL, "scale rounding %d is not one of trunc, rne, none",
                      (int)o.scale_rounding);
  if ((unsigned)o.offset_rounding >= ISA_QW_OFFSET_ROUNDING_COUNT)
    return cs_err_set(err, CS_EINVAL, "offset rounding %d is not one of half-away, half-even",
                      (int)o.offset_rounding);
  if (o.n > ISA_QW_N_MAX)
    return cs_err_set(err, CS_EINVAL, "shift N %u is out of range: N is 4 bits, 0..15", o.n);
  if (o.mcb > 1)
    return cs_err_set(err, CS_EINVAL, "MCB %u is out of range: MCB is one bit, 0 or 1", o.mcb);
  cs_status st = check_scale(scale, err);
  if (st != CS_OK) return st;

  /* With rne a scale above the largest fp19 (3.40116213e+38) rounds up to an fp19 infinity.
   * The device packer does just that (trans_quant_param_v2, round mode 1), so the word is built
   * as it would be, and carries the scale-nonfinite warning: the fixpipe multiplies by inf. */
  uint32_t bits = isa_f32_bits(scale);
  if (offset && !isfinite(*offset)) {
    char v[32];
    isa_quant_format_fp32(v, sizeof v, *offset);
    return cs_err_set(err, CS_EINVAL, "offset %s is not finite: the quant offset must be a "
                      "finite number (it is rounded and clamped to [-256, 255])", v);
  }

  isa_qw_packed p;
  memset(&p, 0, sizeof p);
  p.opts = o;
  p.scale = scale;
  unsigned extra = 0;
  if (offset) {
    p.has_offset = true;
    p.offset_input = *offset;
    p.offset_rounded = isa_qw_offset_round((double)*offset, o.offset_rounding);
    if (p.offset_rounded != isa_qw_offset_clamp(p.offset_rounded))
      extra |= ISA_QW_WARN_OFFSET_CLAMPED;
  }
  isa_qw_unpack(isa_qw_pack_bits(bits, offset, &o), &p.fields);
  p.relative_error =
      ((double)p.fields.scale_effective - (double)scale) / (double)scale;
  p.warnings = p.fields.warnings | extra;
  *out = p;
  return CS_OK;
}

cs_status isa_qw_pack_array(const float *scales, size_t n, const float *offsets,
                            size_t n_offsets, const isa_qw_pack_opts *opts, uint64_t *words,
                            isa_qw_packed *details, cs_err *err) {
  if (n_offsets != 0 && n_offsets != 1 && n_offsets != n)
    return cs_err_set(err, CS_EINVAL,
                      "%zu offsets for %zu scales: give no offset, one (broadcast to every "
                      "channel) or one per channel",
                      n_offsets, n);
  if (n_offsets && !offsets)
    return cs_err_set(err, CS_EINVAL, "%zu offsets announced but no offset array given",
                      n_offsets);
  for (size_t i = 0; i < n; i++) {
    const float *off = n_offsets == 0 ? NULL : n_offsets == 1 ? &offsets[0] : &offsets[i];
    isa_qw_packed p;
    cs_status st = isa_qw_pack(scales[i], off, opts, &p, err);
    if (st != CS_OK) {
      cs_err_prefix(err, "channel %zu", i);
      return st;
    }
    words[i] = p.fields.word;
    if (details) details[i] = p;
  }
  return CS_OK;
}

/* ---- Explanations ---- */

/* snprintf that reports the length written (never more than the buffer holds). */
static size_t put(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static size_t put(char *buf, size_t n, const char *fmt, ...) {
  if (n == 0) return 0;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  if (k < 0) {
    buf[0] = '\0';
    return 0;
  }
  return (size_t)k < n ? (size_t)k : n - 1;
}

/* "- 3", "+ 0", "+ 17": the offset as it reads after rounding in a formula. */
static void offset_term(char *out, size_t n, int offset) {
  if (offset < 0) snprintf(out, n, "- %d", -offset);
  else snprintf(out, n, "+ %d", offset);
}

size_t isa_qw_warning_text(isa_qw_warn_index i, const isa_qw_fields *f, const isa_qw_packed *p,
                           char *buf, size_t buf_bytes) {
  char v[40];
  switch (i) {
    case ISA_QW_WARN_INDEX_S_CLEAR:
      return put(buf, buf_bytes, "%s", warn_rows[i].msg);
    case ISA_QW_WARN_INDEX_LOW_BITS:
      return put(buf, buf_bytes,
                 "ignored low scale bits 12..0 set (0x%04x): the hardware truncates them",
                 (unsigned)f->scale_dropped_bits);
    case ISA_QW_WARN_INDEX_HIGH_BITS:
      return put(buf, buf_bytes, "ignored high bits 47..63 set (0x%016llx)",
                 (unsigned long long)f->ignored_bits);
    case ISA_QW_WARN_INDEX_SIGN_EXTENDED: {
      isa_quant_format_fp32(v, sizeof v, isa_f32_from_bits(f->scale_bits));
      unsigned raw_exp = fp32_exponent(f->scale_bits);
      char fix[128] = "";
      if (raw_exp != 0 && raw_exp != FP32_EXP_MAX)
        snprintf(fix, sizeof fix, "; build the word with `cubesim quant pack --scale %s` instead",
                 v);
      return put(buf, buf_bytes,
                 "bits 32..63 are all ones and bit 31 is set: the word looks like a negative "
                 "fp32 scale (%s, 0x%08x) cast through int32_t and sign-extended, as in "
                 "(uint64_t)*(int32_t*)&scale; the extension sets N = 15 and MCB = 1 (REQ8 "
                 "shifts the int32 right by 15 and saturates it to int16 before the multiply), "
                 "offset = -1 (REQ8/QF322B8 subtract 1 from every output), S = 1 (int8 output) "
                 "and every ignored bit 47..63%s",
                 v, (unsigned)f->scale_bits, fix);
    }
    case ISA_QW_WARN_INDEX_SCALE_ZERO:
      return put(buf, buf_bytes,
                 "the effective (fp19) scale is %s (bits 31..13 are zero): every output is 0",
                 f->scale_sign ? "-0" : "0");
    case ISA_QW_WARN_INDEX_SCALE_SUBNORMAL:
      isa_quant_format_double(v, sizeof v, (double)f->scale_effective);
      return put(buf, buf_bytes,
                 "the effective (fp19) scale %s is subnormal (exponent 0): how the fixpipe "
                 "treats it is not documented",
                 v);
    case ISA_QW_WARN_INDEX_SCALE_NONFINITE:
      if (f->scale_mantissa) return put(buf, buf_bytes, "the effective (fp19) scale is NaN (exponent 255)");
      return put(buf, buf_bytes,
                 "the effective (fp19) scale is %s (exponent 255): the fixpipe will produce inf "
                 "(x * scale is +-inf, and NaN where x = 0), as the hardware does",
                 f->scale_sign ? "-inf" : "inf");
    case ISA_QW_WARN_INDEX_N_UNUSED:
      return put(buf, buf_bytes,
                 "N = %u is set but MCB = 0: REQ8 ignores N and does not shift the int32", f->n);
    case ISA_QW_WARN_INDEX_OFFSET_CLAMPED:
      if (!p || !p->has_offset) return put(buf, buf_bytes, "%s", warn_rows[i].msg);
      isa_quant_format_fp32(v, sizeof v, p->offset_input);
      return put(buf, buf_bytes,
                 "offset clamped: %s rounds (%s) to %.0f, outside [-256, 255]; stored %d", v,
                 isa_qw_offset_rounding_name(p->opts.offset_rounding), p->offset_rounded,
                 f->offset);
    case ISA_QW_WARN_COUNT: break;
  }
  return put(buf, buf_bytes, "%s", "?");
}

size_t isa_qw_field_explain(isa_qw_field fld, const isa_qw_fields *f, char *buf,
                            size_t buf_bytes) {
  char v[40];
  switch (fld) {
    case ISA_QW_FIELD_SCALE_LOW:
      if (!f->scale_dropped_bits)
        return put(buf, buf_bytes,
                   "bits 12..0 = 0x0000: clear, as the documented packer leaves them; the "
                   "hardware ignores them");
      if (f->scale_exponent == 0 || f->scale_exponent == FP32_EXP_MAX)
        return put(buf, buf_bytes,
                   "bits 12..0 = 0x%04x: ignored by the hardware, which truncates the scale to "
                   "19 bits", (unsigned)f->scale_dropped_bits);
      return put(buf, buf_bytes,
                 "bits 12..0 = 0x%04x: ignored by the hardware, which truncates the scale to "
                 "19 bits (all 32 bits would make it %.3g larger in magnitude, relative)",
                 (unsigned)f->scale_dropped_bits,
                 ((double)isa_f32_from_bits(f->scale_bits) - (double)f->scale_effective) /
                     (double)f->scale_effective);
    case ISA_QW_FIELD_SCALE_MANT:
      if (f->scale_exponent == FP32_EXP_MAX)
        return put(buf, buf_bytes, "mantissa bits 22..13 = 0x%03x: %s", f->scale_mantissa,
                   f->scale_mantissa ? "non-zero with exponent 255: NaN"
                                     : "zero with exponent 255: infinity");
      isa_quant_format_double(v, sizeof v, (f->scale_exponent ? 1.0 : 0.0) + f->scale_mantissa / 1024.0);
      return put(buf, buf_bytes, "mantissa bits 22..13 = 0x%03x: significand %s (%s + %u/1024)",
                 f->scale_mantissa, v, f->scale_exponent ? "1" : "0", f->scale_mantissa);
    case ISA_QW_FIELD_SCALE_EXP:
      if (f->scale_exponent == 0)
        return put(buf, buf_bytes,
                   "exponent bits 30..23 = 0: zero or subnormal scale (2^-126 x 0.significand)");
      if (f->scale_exponent == FP32_EXP_MAX)
        return put(buf, buf_bytes, "exponent bits 30..23 = 255: infinity or NaN");
      return put(buf, buf_bytes, "exponent bits 30..23 = %u: 2^(%u - 127) = 2^%d",
                 f->scale_exponent, f->scale_exponent, (int)f->scale_exponent - 127);
    case ISA_QW_FIELD_SCALE_SIGN:
      return put(buf, buf_bytes, "sign bit 31 = %u: %s scale", f->scale_sign,
                 f->scale_sign ? "negative" : "positive");
    case ISA_QW_FIELD_N:
      if (!f->mcb)
        return put(buf, buf_bytes,
                   "N bits 35..32 = %u: not used, because MCB = 0 (REQ8 reads N only with "
                   "MCB = 1)",
                   f->n);
      return put(buf, buf_bytes,
                 "N bits 35..32 = %u: REQ8 shifts the int32 right by %u before the multiply "
                 "(cubesim reads N as the shift count; the documents disagree on whether "
                 "N = 0 means 0 or 1)",
                 f->n, f->n);
    case ISA_QW_FIELD_MCB:
      if (!f->mcb)
        return put(buf, buf_bytes, "MCB bit 36 = 0: REQ8 multiplies the int32 as it is");
      return put(buf, buf_bytes,
                 "MCB bit 36 = 1: REQ8 shifts the int32 right by N = %u and saturates it to "
                 "int16 before the multiply: M1 applies to floor(x / %ld), and accumulators "
                 "outside [%ld, %ld] saturate",
                 f->n, 1L << f->n, -32768L * (1L << f->n), 32768L * (1L << f->n) - 1);
    case ISA_QW_FIELD_OFFSET:
      offset_term(v, sizeof v, f->offset);
      return put(buf, buf_bytes,
                 "offset bits 45..37 = 0x%03x = %d (9-bit two's complement): REQ8/QF322B8 "
                 "compute clamp(rne(y), -256, 255) %s before saturating; DEQF16 ignores it",
                 (unsigned)((f->word & ISA_QW_OFFSET_MASK) >> ISA_QW_OFFSET_POS), f->offset, v);
    case ISA_QW_FIELD_S:
      return put(buf, buf_bytes, "S bit 46 = %u: REQ8/QF322B8 produce %s; DEQF16 ignores it",
                 f->s, f->s ? "signed int8, clamped to [-128, 127]"
                            : "unsigned uint8, clamped to [0, 255]");
    case ISA_QW_FIELD_IGNORED:
      if (!f->ignored_bits)
        return put(buf, buf_bytes, "bits 63..47 = 0x00000: clear; the hardware ignores them");
      return put(buf, buf_bytes,
                 "bits 63..47 = 0x%05llx: ignored by the hardware, but a sign that the word "
                 "was not built by the documented packer",
                 (unsigned long long)(f->ignored_bits >> ISA_QW_IGNORED_POS));
    case ISA_QW_FIELD_COUNT: break;
  }
  return put(buf, buf_bytes, "%s", "?");
}

size_t isa_qw_scale_explain(const isa_qw_fields *f, char *buf, size_t buf_bytes) {
  char stored[40], eff[40], sig[40];
  isa_quant_format_fp32(stored, sizeof stored, isa_f32_from_bits(f->scale_bits));
  isa_quant_format_double(eff, sizeof eff, (double)f->scale_effective);
  const char *sign = f->scale_sign ? "-" : "+";
  if (f->scale_exponent == FP32_EXP_MAX)
    return put(buf, buf_bytes, "M1 = %s (fp32 bits 0x%08x; the hardware keeps 0x%08x)", eff,
               (unsigned)f->scale_bits, (unsigned)f->scale_kept_bits);
  isa_quant_format_double(sig, sizeof sig, (f->scale_exponent ? 1.0 : 0.0) + f->scale_mantissa / 1024.0);
  int e2 = f->scale_exponent ? (int)f->scale_exponent - 127 : -126;
  if (f->scale_dropped_bits)
    return put(buf, buf_bytes,
               "M1 = %s%s x 2^%d = %s (fp32 bits 0x%08x = %s; the hardware keeps 0x%08x)", sign,
               sig, e2, eff, (unsigned)f->scale_bits, stored, (unsigned)f->scale_kept_bits);
  return put(buf, buf_bytes, "M1 = %s%s x 2^%d = %s (fp32 bits 0x%08x, all kept)", sign, sig,
             e2, eff, (unsigned)f->scale_bits);
}

size_t isa_qw_mode_note(isa_qw_mode m, const isa_qw_fields *f, char *buf, size_t buf_bytes) {
  char m1[40], off[16];
  isa_quant_format_double(m1, sizeof m1, (double)f->scale_effective);
  offset_term(off, sizeof off, f->offset);
  const char *out_range = f->s ? "clamp(q, -128, 127) (S = 1: int8)"
                               : "clamp(q, 0, 255) (S = 0: uint8)";
  switch (m) {
    case ISA_QW_MODE_DEQF16:
      return put(buf, buf_bytes,
                 "%s: out = fp16_rne(fp32(x) * %s), saturating; offset, S, N and MCB are "
                 "ignored",
                 mode_rows[m].conv, m1);
    case ISA_QW_MODE_REQ8: {
      char shift[64];
      if (f->mcb) snprintf(shift, sizeof shift, "x = sat_int16(x >> %u); ", f->n);
      else snprintf(shift, sizeof shift, "%s", "no pre-shift (MCB = 0); ");
      return put(buf, buf_bytes,
                 "%s: %sq = clamp(rne(fp32(x) * %s), -256, 255) %s; out = %s",
                 mode_rows[m].conv, shift, m1, off, out_range);
    }
    case ISA_QW_MODE_QF322B8:
      return put(buf, buf_bytes,
                 "%s: q = clamp(rne(x * %s), -256, 255) %s; out = %s; N and MCB are ignored",
                 mode_rows[m].conv, m1, off, out_range);
    case ISA_QW_MODE_COUNT: break;
  }
  return put(buf, buf_bytes, "%s", "?");
}
