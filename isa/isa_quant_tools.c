/* isa_quant_tools — summaries, packer identification and differences of quant word tensors. */
#include "isa/isa_quant_tools.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa_fixpipe.h"
#include "isa/isa_num.h"

/* ---- Tables ---- */

static const struct {
  const char *name;
  isa_qw_scale_rounding sr;
  isa_qw_offset_rounding orr;
  const char *source;
} variant_rows[ISA_QW_VARIANT_COUNT] = {
#define ISA_QW_VARIANT_ROW(id, name, sr, orr, source) \
  {name, ISA_QW_SCALE_##sr, ISA_QW_OFFSET_##orr, source},
    ISA_QW_VARIANT_TABLE(ISA_QW_VARIANT_ROW)
#undef ISA_QW_VARIANT_ROW
};

static const struct {
  const char *name;
  uint64_t mask;
} part_rows[ISA_QW_PART_COUNT] = {
#define ISA_QW_PART_ROW(id, name, mask, desc) {name, mask},
    ISA_QW_PART_TABLE(ISA_QW_PART_ROW)
#undef ISA_QW_PART_ROW
};

#define ALL_VARIANTS ((1u << ISA_QW_VARIANT_COUNT) - 1u)
#define MODE_BIT(m) (1u << ISA_QW_MODE_##m)
#define B8_MODES (MODE_BIT(REQ8) | MODE_BIT(QF322B8))
#define ALL_MODES (MODE_BIT(DEQF16) | B8_MODES)
#define FP32_SIGN_BIT UINT32_C(0x80000000)
#define FP32_MAGNITUDE UINT32_C(0x7FFFFFFF)
#define FP32_INF_BITS UINT32_C(0x7F800000)

const char *isa_qw_variant_name(isa_qw_variant v) {
  return (unsigned)v < ISA_QW_VARIANT_COUNT ? variant_rows[v].name : "?";
}
const char *isa_qw_variant_source(isa_qw_variant v) {
  return (unsigned)v < ISA_QW_VARIANT_COUNT ? variant_rows[v].source : "?";
}
isa_qw_pack_opts isa_qw_variant_opts(isa_qw_variant v, unsigned n, unsigned mcb) {
  isa_qw_pack_opts o = {.scale_rounding = ISA_QW_SCALE_TRUNC, .n = n, .mcb = mcb};
  if ((unsigned)v < ISA_QW_VARIANT_COUNT) {
    o.scale_rounding = variant_rows[v].sr;
    o.offset_rounding = variant_rows[v].orr;
  }
  return o;
}

const char *isa_qw_part_name(isa_qw_part p) {
  return (unsigned)p < ISA_QW_PART_COUNT ? part_rows[p].name : "?";
}
uint64_t isa_qw_part_mask(isa_qw_part p) {
  return (unsigned)p < ISA_QW_PART_COUNT ? part_rows[p].mask : 0;
}
unsigned isa_qw_parts_differing(uint64_t a, uint64_t b) {
  unsigned parts = 0;
  for (unsigned p = 0; p < ISA_QW_PART_COUNT; p++)
    if ((a ^ b) & part_rows[p].mask) parts |= 1u << p;
  return parts;
}

/* ---- Text ---- */

/* A sentence built piece by piece into a fixed buffer (truncated, never overrun). */
typedef struct text {
  char *s;
  size_t cap, len;
} text;

static text text_on(char *buf, size_t buf_bytes) {
  text t = {buf, buf_bytes, 0};
  if (buf_bytes) buf[0] = '\0';
  return t;
}

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...) {
  if (t->len + 1 >= t->cap) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  if (k > 0) t->len += (size_t)k < t->cap - t->len ? (size_t)k : t->cap - t->len - 1;
}

/* "0x3dccc000 (0.0999755859375)": kept scale bits and their value. */
static void add_scale(text *t, uint32_t kept_bits) {
  char v[40];
  isa_quant_format_double(v, sizeof v, (double)isa_f32_from_bits(kept_bits));
  add(t, "0x%08x (%s)", (unsigned)kept_bits, v);
}

/* "relative +6.1e-05, +1 fp19 step" for a change of the effective scale from a to b. */
static void add_scale_change(text *t, uint64_t a, uint64_t b) {
  double rel = isa_qw_scale_relative_change(a, b);
  if (isnan(rel)) {
    add(t, "a non-finite scale");
    return;
  }
  if (isinf(rel)) add(t, "from zero");
  else add(t, "relative %+.4g", rel);
  int64_t steps = isa_qw_scale_steps(a, b);
  add(t, ", %+lld fp19 step%s", (long long)steps, steps == 1 || steps == -1 ? "" : "s");
}

/* ---- Summary ---- */

void isa_qw_summarize(const uint64_t *words, size_t n, isa_qw_summary *out) {
  memset(out, 0, sizeof *out);
  out->channels = n;
  for (size_t i = 0; i < n; i++) {
    isa_qw_fields f;
    isa_qw_unpack(words[i], &f);
    for (unsigned k = 0; k < ISA_QW_WARN_COUNT; k++)
      out->warning_channels[k] += (f.warnings >> k) & 1u;
    out->channels_warned += f.warnings != 0;
    if (isfinite(f.scale_effective)) {
      if (out->finite_scales == 0 || f.scale_effective < out->scale_min) {
        out->scale_min = f.scale_effective;
        out->scale_min_channel = i;
      }
      if (out->finite_scales == 0 || f.scale_effective > out->scale_max) {
        out->scale_max = f.scale_effective;
        out->scale_max_channel = i;
      }
      out->finite_scales++;
    }
    if (i == 0 || f.offset < out->offset_min) out->offset_min = f.offset;
    if (i == 0 || f.offset > out->offset_max) out->offset_max = f.offset;
    out->s_set += f.s;
    out->mcb_set += f.mcb;
    out->n_channels[f.n]++;
  }
}

/* ---- Check ---- */

static const float *offset_of(const isa_qw_check_in *in, size_t i) {
  if (in->n_offsets == 0) return NULL;
  return in->n_offsets == 1 ? &in->offsets[0] : &in->offsets[i];
}

uint64_t isa_qw_check_expected(const isa_qw_check_in *in, isa_qw_variant v, size_t i) {
  isa_qw_pack_opts o = isa_qw_variant_opts(v, in->n_shift, in->mcb);
  return isa_qw_pack_bits(isa_f32_bits(in->scales[i]), offset_of(in, i), &o);
}

static cs_status check_inputs(const isa_qw_check_in *in, cs_err *err) {
  if (in->n_offsets != 0 && in->n_offsets != 1 && in->n_offsets != in->n)
    return cs_err_set(err, CS_EINVAL,
                      "%zu offsets for %zu scales: give no offset, one (broadcast to every "
                      "channel) or one per channel",
                      in->n_offsets, in->n);
  if (in->n_shift > ISA_QW_N_MAX)
    return cs_err_set(err, CS_EINVAL, "shift N %u is out of range: N is 4 bits, 0..15",
                      in->n_shift);
  if (in->mcb > 1)
    return cs_err_set(err, CS_EINVAL, "MCB %u is out of range: MCB is one bit, 0 or 1", in->mcb);
  char v[40];
  for (size_t i = 0; i < in->n; i++)
    if (!isfinite(in->scales[i])) {
      isa_quant_format_fp32(v, sizeof v, in->scales[i]);
      return cs_err_set(err, CS_EINVAL, "%s: channel %zu: scale %s is not finite: the packers "
                        "take finite scales only", in->scales_name ? in->scales_name : "scales",
                        i, v);
    }
  for (size_t i = 0; i < in->n_offsets; i++)
    if (!isfinite(in->offsets[i])) {
      isa_quant_format_fp32(v, sizeof v, in->offsets[i]);
      return cs_err_set(err, CS_EINVAL, "%s: offset %zu: %s is not finite: the packers take "
                        "finite offsets only", in->offsets_name ? in->offsets_name : "offsets",
                        i, v);
    }
  return CS_OK;
}

/* Bits set in x. */
static unsigned popcount64(uint64_t x) {
  unsigned n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

/* Of variants that match equally many channels, the one whose differing words differ least
 * (fewest differing parts in all, then fewest differing bits, then the first in table order):
 * a word with one corrupted field is explained by that field alone. */
static isa_qw_variant closest_reference(const isa_qw_check_in *in, const uint64_t *words,
                                        unsigned closest) {
  isa_qw_variant best = ISA_QW_VARIANT_COUNT;
  uint64_t best_parts = 0, best_bits = 0;
  bool single = (closest & (closest - 1u)) == 0;
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++) {
    if (!(closest >> v & 1u)) continue;
    if (single) return (isa_qw_variant)v;
    uint64_t parts = 0, bits = 0;
    for (size_t i = 0; i < in->n; i++) {
      uint64_t x = words[i] ^ isa_qw_check_expected(in, (isa_qw_variant)v, i);
      parts += popcount64(isa_qw_parts_differing(x, 0));
      bits += popcount64(x);
    }
    if (best == ISA_QW_VARIANT_COUNT || parts < best_parts ||
        (parts == best_parts && bits < best_bits)) {
      best = (isa_qw_variant)v;
      best_parts = parts;
      best_bits = bits;
    }
  }
  return best;
}

cs_status isa_qw_check_words(const isa_qw_check_in *in, const uint64_t *words,
                             isa_qw_check *out, cs_err *err) {
  memset(out, 0, sizeof *out);
  cs_status st = check_inputs(in, err);
  if (st != CS_OK) return st;
  out->channels = in->n;
  unsigned apart[ISA_QW_VARIANT_COUNT] = {0}; /* variants that pack some channel differently */
  for (size_t i = 0; i < in->n; i++) {
    uint64_t expect[ISA_QW_VARIANT_COUNT];
    bool matched = false;
    for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++) {
      expect[v] = isa_qw_check_expected(in, (isa_qw_variant)v, i);
      if (expect[v] == words[i]) {
        out->matches[v]++;
        matched = true;
      }
      for (unsigned w = 0; w < v; w++)
        if (expect[w] != expect[v]) {
          apart[v] |= 1u << w;
          apart[w] |= 1u << v;
        }
    }
    out->unmatched += !matched;
    uint32_t bits = isa_f32_bits(in->scales[i]);
    out->scale_low_set += (bits & ISA_QW_SCALE_DROPPED_MASK) != 0;
    out->scale_rounds_up +=
        isa_qw_scale_store(bits, ISA_QW_SCALE_RNE) != isa_qw_scale_store(bits, ISA_QW_SCALE_TRUNC);
    const float *off = offset_of(in, i);
    if (off)
      out->offset_ties +=
          isa_qw_offset_clamp(isa_qw_offset_round((double)*off, ISA_QW_OFFSET_HALF_AWAY)) !=
          isa_qw_offset_clamp(isa_qw_offset_round((double)*off, ISA_QW_OFFSET_HALF_EVEN));
  }
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++) {
    out->same_words[v] = ALL_VARIANTS & ~apart[v];
    if (out->matches[v] == in->n) out->explaining |= 1u << v;
    if (out->matches[v] > out->closest_matches) out->closest_matches = out->matches[v];
  }
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++)
    if (out->matches[v] == out->closest_matches) out->closest |= 1u << v;
  out->reference = closest_reference(in, words, out->closest);
  out->differing = in->n - out->closest_matches;
  return CS_OK;
}

size_t isa_qw_check_tie_text(const isa_qw_check *c, const isa_qw_check_in *in, unsigned mask,
                             char *buf, size_t buf_bytes) {
  text t = text_on(buf, buf_bytes);
  unsigned sr = 0, orr = 0;
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++)
    if (mask >> v & 1u) {
      sr |= 1u << variant_rows[v].sr;
      orr |= 1u << variant_rows[v].orr;
    }
  const char *sep = "";
  if (orr & (orr - 1)) {
    if (in->n_offsets == 0)
      add(&t, "without offsets the offset rounding does not show");
    else
      add(&t, "no offset lies halfway between two integers inside [-256, 255], where "
              "half-away and half-even differ");
    sep = "; ";
  }
  if (sr & (sr - 1)) {
    if (c->scale_low_set == 0)
      add(&t, "%severy scale is exact in fp19 (bits 12..0 clear), so every scale rounding "
              "stores the same bits", sep);
    else
      add(&t, "%sno scale rounds up to the next fp19 value under rne (bits 12..0 below "
              "0x1000, or 0x1000 with bit 13 clear)", sep);
  }
  return t.len;
}

/* The scale part of a mismatch: what the word's fp19 scale is, and how it relates to the
 * fp32 scale given for the channel. */
static void explain_scale(text *t, float scale, isa_qw_variant v, uint64_t actual,
                          uint64_t expected) {
  uint32_t bits = isa_f32_bits(scale);
  uint32_t a = (uint32_t)actual & ISA_QW_SCALE_KEPT_MASK;
  uint32_t e = (uint32_t)expected & ISA_QW_SCALE_KEPT_MASK;
  uint32_t trunc = isa_qw_scale_store(bits, ISA_QW_SCALE_TRUNC);
  uint32_t rne = isa_qw_scale_store(bits, ISA_QW_SCALE_RNE) & ISA_QW_SCALE_KEPT_MASK;
  const char *vn = isa_qw_variant_name(v);
  if (a == rne) {
    add(t, "scale rounded to nearest (rne) to ");
    add_scale(t, a);
    add(t, " where %s gives ", vn);
  } else if (a == trunc) {
    add(t, "scale truncated to ");
    add_scale(t, a);
    add(t, " where %s gives ", vn);
  } else if (a == (e ^ FP32_SIGN_BIT)) {
    add(t, "scale sign flipped: ");
    add_scale(t, a);
    add(t, " where %s gives ", vn);
  } else {
    char in[40];
    isa_quant_format_fp32(in, sizeof in, scale);
    add(t, "scale ");
    add_scale(t, a);
    add(t, " is not the scale %s (fp32 0x%08x) under any rounding; %s gives ", in,
        (unsigned)bits, vn);
  }
  add_scale(t, e);
  add(t, ": the effective scale changes by ");
  add_scale_change(t, expected, actual);
}

static void explain_offset(text *t, const isa_qw_check_in *in, size_t i, isa_qw_variant v,
                           int got, int want) {
  const float *off = offset_of(in, i);
  if (!off) {
    add(t, "offset %d where no offset was given (0): REQ8 and QF322B8 add %d to every output",
        got, got);
    return;
  }
  char o[40];
  isa_quant_format_fp32(o, sizeof o, *off);
  isa_qw_offset_rounding mine = variant_rows[v].orr;
  isa_qw_offset_rounding other =
      mine == ISA_QW_OFFSET_HALF_AWAY ? ISA_QW_OFFSET_HALF_EVEN : ISA_QW_OFFSET_HALF_AWAY;
  double raw = isa_qw_offset_round((double)*off, mine);
  int by_other = isa_qw_offset_clamp(isa_qw_offset_round((double)*off, other));
  const char *mine_name = isa_qw_offset_rounding_name(mine);
  if (got == by_other) {
    add(t, "offset %s rounded to %d (%s) where %s gives %d", o, got,
        isa_qw_offset_rounding_name(other), mine_name, want);
  } else if (got == 0 && in->n_offsets == 1 && i > 0) {
    add(t, "offset field 0 where the offset %s gives %d (%s): the single offset went into the "
           "first word only, as aclnnTransQuantParam's host code packs it", o, want, mine_name);
  } else if (got == 0) {
    add(t, "offset field 0 where the offset %s gives %d (%s): the offset was not packed", o,
        want, mine_name);
  } else if (raw != want && fabs(raw) < 1e9 &&
             ((int64_t)raw & 0x1FF) == ((int64_t)got & 0x1FF)) {
    add(t, "offset %s wrapped to %d (its low 9 bits) where %s clamps it to %d", o, got,
        isa_qw_variant_name(v), want);
  } else {
    add(t, "offset %d where the offset %s gives %d (%s)", got, o, want, mine_name);
  }
}

size_t isa_qw_explain_mismatch(const isa_qw_check_in *in, size_t i, isa_qw_variant v,
                               uint64_t actual, isa_qw_difference *out) {
  uint64_t expected = isa_qw_check_expected(in, v, i);
  isa_qw_fields a, e;
  isa_qw_unpack(actual, &a);
  isa_qw_unpack(expected, &e);
  unsigned parts = isa_qw_parts_differing(actual, expected);
  const char *vn = isa_qw_variant_name(v);
  size_t k = 0;
  for (unsigned p = 0; p < ISA_QW_PART_COUNT; p++) {
    if (!(parts >> p & 1u)) continue;
    isa_qw_difference *d = &out[k++];
    d->part = (isa_qw_part)p;
    d->modes = 0;
    text t = text_on(d->text, sizeof d->text);
    switch ((isa_qw_part)p) {
      case ISA_QW_PART_SCALE:
        d->modes = ALL_MODES;
        explain_scale(&t, in->scales[i], v, actual, expected);
        break;
      case ISA_QW_PART_SCALE_LOW: {
        unsigned fp32_low = isa_f32_bits(in->scales[i]) & ISA_QW_SCALE_DROPPED_MASK;
        if (a.scale_dropped_bits == fp32_low && e.scale_dropped_bits == 0)
          add(&t, "scale low bits 0x%04x not masked: all 32 bits of the fp32 scale stored, as "
                  "aclnnTransQuantParam's host code does", fp32_low);
        else if (a.scale_dropped_bits == 0)
          add(&t, "scale low bits 0x0000 where %s keeps the fp32 scale's 0x%04x: masked", vn,
              (unsigned)e.scale_dropped_bits);
        else
          add(&t, "scale low bits 0x%04x where %s gives 0x%04x", (unsigned)a.scale_dropped_bits,
              vn, (unsigned)e.scale_dropped_bits);
        add(&t, "; the hardware ignores them (no effect on the output)");
        break;
      }
      case ISA_QW_PART_N:
        d->modes = (a.mcb || e.mcb) ? MODE_BIT(REQ8) : 0;
        add(&t, "N = %u where %u is expected: ", a.n, e.n);
        if (a.mcb) add(&t, "REQ8 shifts the int32 right by %u before the multiply", a.n);
        else add(&t, "unused while MCB = 0 (no effect on the output)");
        break;
      case ISA_QW_PART_MCB:
        d->modes = MODE_BIT(REQ8);
        if (a.mcb)
          add(&t, "bit 36 (MCB) set where clear is expected: REQ8 shifts the int32 right by "
                  "N = %u and saturates it to int16 before the multiply", a.n);
        else
          add(&t, "bit 36 (MCB) clear where set is expected: REQ8 multiplies the int32 "
                  "without the shift by N = %u", e.n);
        break;
      case ISA_QW_PART_OFFSET:
        d->modes = B8_MODES;
        explain_offset(&t, in, i, v, a.offset, e.offset);
        break;
      case ISA_QW_PART_S:
        d->modes = B8_MODES;
        if (!a.s)
          add(&t, "bit 46 clear: uint8 output (REQ8 and QF322B8 clamp to [0, 255]) where "
                  "the packers set S = 1 (int8, [-128, 127])");
        else
          add(&t, "bit 46 set: int8 output (REQ8 and QF322B8 clamp to [-128, 127]) where "
                  "S = 0 (uint8) is expected");
        break;
      case ISA_QW_PART_IGNORED:
        add(&t, "bits 63..47 = 0x%05llx where %s gives 0x%05llx: ignored by the hardware (no "
                "effect on the output)",
            (unsigned long long)(a.ignored_bits >> ISA_QW_IGNORED_POS), vn,
            (unsigned long long)(e.ignored_bits >> ISA_QW_IGNORED_POS));
        if (a.warnings & ISA_QW_WARN_SIGN_EXTENDED)
          add(&t, "; with bits 32..63 all ones and bit 31 set, the word looks like a negative "
                  "fp32 scale cast through int32_t and sign-extended");
        break;
      case ISA_QW_PART_COUNT: break;
    }
  }
  return k;
}

/* ---- Differences between words ---- */

double isa_qw_scale_relative_change(uint64_t a, uint64_t b) {
  double sa = (double)isa_qw_scale_effective(a), sb = (double)isa_qw_scale_effective(b);
  if (!isfinite(sa) || !isfinite(sb)) return NAN;
  if (sa == sb) return 0.0;
  if (sa == 0) return sb > 0 ? INFINITY : -INFINITY;
  return (sb - sa) / fabs(sa);
}

/* The position of an fp19 value in the order of all fp19 values, in units of bit 13: its
 * magnitude, negated for a negative sign (so -0 and +0 share position 0). */
static int64_t fp19_position(uint64_t word) {
  uint32_t bits = (uint32_t)word & ISA_QW_SCALE_KEPT_MASK;
  int64_t mag = (int64_t)((bits & FP32_MAGNITUDE) >> ISA_QW_SCALE_KEPT_POS);
  return (bits & FP32_SIGN_BIT) ? -mag : mag;
}

int64_t isa_qw_scale_steps(uint64_t a, uint64_t b) {
  if (isnan(isa_qw_scale_effective(a)) || isnan(isa_qw_scale_effective(b))) return 0;
  return fp19_position(b) - fp19_position(a);
}

size_t isa_qw_part_change_text(isa_qw_part p, uint64_t a, uint64_t b, char *buf,
                               size_t buf_bytes) {
  text t = text_on(buf, buf_bytes);
  isa_qw_fields fa, fb;
  isa_qw_unpack(a, &fa);
  isa_qw_unpack(b, &fb);
  switch (p) {
    case ISA_QW_PART_SCALE:
      add(&t, "scale ");
      add_scale(&t, fa.scale_kept_bits);
      add(&t, " -> ");
      add_scale(&t, fb.scale_kept_bits);
      add(&t, ": ");
      add_scale_change(&t, a, b);
      break;
    case ISA_QW_PART_SCALE_LOW:
      add(&t, "scale bits 12..0 0x%04x -> 0x%04x (ignored by the hardware)",
          (unsigned)fa.scale_dropped_bits, (unsigned)fb.scale_dropped_bits);
      break;
    case ISA_QW_PART_N:
      add(&t, "N %u -> %u", fa.n, fb.n);
      if (!fa.mcb && !fb.mcb) add(&t, " (unused: MCB = 0 in both)");
      break;
    case ISA_QW_PART_MCB:
      if (fb.mcb)
        add(&t, "MCB 0 -> 1: REQ8 now shifts the int32 right by N = %u and saturates it to "
                "int16 first", fb.n);
      else
        add(&t, "MCB 1 -> 0: REQ8 no longer shifts the int32 (by N = %u)", fa.n);
      break;
    case ISA_QW_PART_OFFSET: add(&t, "offset %d -> %d", fa.offset, fb.offset); break;
    case ISA_QW_PART_S:
      add(&t, "S %u -> %u: %s -> %s output", fa.s, fb.s, fa.s ? "int8" : "uint8",
          fb.s ? "int8" : "uint8");
      break;
    case ISA_QW_PART_IGNORED:
      add(&t, "bits 63..47 0x%05llx -> 0x%05llx (ignored by the hardware)",
          (unsigned long long)(fa.ignored_bits >> ISA_QW_IGNORED_POS),
          (unsigned long long)(fb.ignored_bits >> ISA_QW_IGNORED_POS));
      break;
    case ISA_QW_PART_COUNT: break;
  }
  return t.len;
}

/* One word's output as a function of the accumulator. */
typedef struct out_fn {
  isa_fixpipe_conv conv;
  bool fp16;
} out_fn;

static void out_fn_init(out_fn *f, isa_qw_mode mode, uint64_t word) {
  f->fp16 = mode == ISA_QW_MODE_DEQF16;
  isa_fixpipe_conv_init(&f->conv, f->fp16 ? ISA_QUANT_DEQF16 : ISA_QUANT_REQ8, ISA_INT32, word,
                        false, true);
}

static double out_value(const out_fn *f, int64_t x, uint32_t *bits) {
  uint32_t b = isa_fixpipe_conv_apply(&f->conv, (uint32_t)(int32_t)x);
  if (bits) *bits = b;
  if (f->fp16) return (double)isa_f16_to_f32((uint16_t)b);
  return f->conv.s ? (double)(int8_t)(uint8_t)b : (double)(uint8_t)b;
}

/* An interval [lo, hi] of accumulators with both outputs at its ends. */
typedef struct span {
  int64_t lo, hi;
  double a_lo, a_hi, b_lo, b_hi;
} span;

/* The largest |b - a| inside a span: both outputs are monotone in the accumulator, so each stays
 * between its values at the ends. */
static double span_bound(const span *s) {
  double a_min = fmin(s->a_lo, s->a_hi), a_max = fmax(s->a_lo, s->a_hi);
  double b_min = fmin(s->b_lo, s->b_hi), b_max = fmax(s->b_lo, s->b_hi);
  return fmax(b_max - a_min, a_max - b_min);
}

typedef struct search {
  const out_fn *a, *b;
  isa_qw_output_diff *best;
} search;

static void visit(search *s, int64_t x, double *va, double *vb) {
  uint32_t ba, bb;
  *va = out_value(s->a, x, &ba);
  *vb = out_value(s->b, x, &bb);
  s->best->evaluations++;
  double d = fabs(*vb - *va);
  if (d > s->best->max_abs) {
    s->best->max_abs = d;
    s->best->acc = (int32_t)x;
    s->best->bits_a = ba;
    s->best->bits_b = bb;
    s->best->value_a = *va;
    s->best->value_b = *vb;
  }
}

/* Depth-first over halved spans; a span of 2^32 accumulators halves 32 times, and each level
 * leaves at most one pending sibling, so the stack never holds more than 2 x 33 spans. */
#define SEARCH_STACK 80

cs_status isa_qw_output_diff_range(isa_qw_mode mode, uint64_t a, uint64_t b, int32_t lo,
                                   int32_t hi, isa_qw_output_diff *out, cs_err *err) {
  memset(out, 0, sizeof *out);
  if (mode != ISA_QW_MODE_DEQF16 && mode != ISA_QW_MODE_REQ8)
    return cs_err_set(err, CS_EINVAL, "mode %s does not read an int32 accumulator (DEQF16 and "
                      "REQ8 do)", isa_qw_mode_name(mode));
  if (lo > hi)
    return cs_err_set(err, CS_EINVAL, "the accumulator range [%ld, %ld] is empty", (long)lo,
                      (long)hi);
  out_fn fa, fb;
  out_fn_init(&fa, mode, a);
  out_fn_init(&fb, mode, b);
  search s = {&fa, &fb, out};
  span root = {lo, hi, 0, 0, 0, 0};
  out->max_abs = -1; /* so that the first accumulator visited is recorded */
  visit(&s, lo, &root.a_lo, &root.b_lo);
  visit(&s, hi, &root.a_hi, &root.b_hi);
  span stack[SEARCH_STACK];
  size_t depth = 0;
  stack[depth++] = root;
  while (depth > 0) {
    span sp = stack[--depth];
    if (sp.hi - sp.lo < 2 || span_bound(&sp) <= out->max_abs) continue;
    int64_t mid = sp.lo + (sp.hi - sp.lo) / 2;
    double am, bm;
    visit(&s, mid, &am, &bm);
    span left = {sp.lo, mid, sp.a_lo, am, sp.b_lo, bm};
    span right = {mid, sp.hi, am, sp.a_hi, bm, sp.b_hi};
    /* The more promising half goes on top, to raise the best early. */
    if (span_bound(&left) > span_bound(&right)) {
      stack[depth++] = right;
      stack[depth++] = left;
    } else {
      stack[depth++] = left;
      stack[depth++] = right;
    }
  }
  return CS_OK;
}

cs_status isa_qw_diff_words(const uint64_t *a, const uint64_t *b, size_t n, int32_t lo,
                            int32_t hi, isa_qw_diff_channel *per, isa_qw_diff *out, cs_err *err) {
  memset(out, 0, sizeof *out);
  if (lo > hi)
    return cs_err_set(err, CS_EINVAL, "the accumulator range [%ld, %ld] is empty", (long)lo,
                      (long)hi);
  out->channels = n;
  out->acc_lo = lo;
  out->acc_hi = hi;
  /* What REQ8 reads; N only counts while either word has MCB = 1. */
  const unsigned req8_parts = 1u << ISA_QW_PART_SCALE | 1u << ISA_QW_PART_MCB |
                              1u << ISA_QW_PART_OFFSET | 1u << ISA_QW_PART_S;
  for (size_t i = 0; i < n; i++) {
    isa_qw_diff_channel c;
    memset(&c, 0, sizeof c);
    c.parts = isa_qw_parts_differing(a[i], b[i]);
    c.scale_relative = isa_qw_scale_relative_change(a[i], b[i]);
    if (c.parts) out->differing++;
    for (unsigned p = 0; p < ISA_QW_PART_COUNT; p++) out->part_channels[p] += c.parts >> p & 1u;
    bool shifts = ((a[i] | b[i]) & ISA_QW_MCB_MASK) != 0;
    c.deqf16_computed = (c.parts >> ISA_QW_PART_SCALE) & 1u;
    c.req8_computed = (c.parts & req8_parts) || (shifts && (c.parts >> ISA_QW_PART_N & 1u));
    if (c.deqf16_computed) {
      out->scale_changed++;
      if (!isnan(c.scale_relative) && fabs(c.scale_relative) > out->max_scale_relative) {
        out->max_scale_relative = fabs(c.scale_relative);
        out->max_scale_channel = i;
      }
      cs_status st = isa_qw_output_diff_range(ISA_QW_MODE_DEQF16, a[i], b[i], lo, hi,
                                              &c.deqf16, err);
      if (st != CS_OK) return st;
      if (c.deqf16.max_abs > out->deqf16.max_abs) {
        out->deqf16 = c.deqf16;
        out->deqf16_channel = i;
      }
    }
    if (c.req8_computed) {
      cs_status st =
          isa_qw_output_diff_range(ISA_QW_MODE_REQ8, a[i], b[i], lo, hi, &c.req8, err);
      if (st != CS_OK) return st;
      if (c.req8.max_abs > out->req8.max_abs) {
        out->req8 = c.req8;
        out->req8_channel = i;
      }
    }
    if (per) per[i] = c;
  }
  return CS_OK;
}
