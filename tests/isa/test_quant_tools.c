/* Tests of isa/isa_quant_tools: tensors of quant words. Words come from the reference packers of
 * tests/support/ref_num (value arithmetic, not the library's masks) or are written out by hand;
 * output differences are checked against a brute force over every accumulator with the
 * reference fixpipe rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_quant_tools.h"
#include "support/quant_inputs.h"
#include "support/ref_num.h"
#include "support/rng.h"

#define CHANNELS 4096
#define BIT(v) (1u << (v))
#define S_BIT (UINT64_C(1) << 46)

/* The scale and offset roundings of each variant, by the variant's id (the table's rows). */
static const struct {
  ref_scale_mode sm;
  bool half_even;
} ref_variant[ISA_QW_VARIANT_COUNT] = {
    [ISA_QW_VARIANT_DOCUMENTED] = {REF_SCALE_TRUNC, false},
    [ISA_QW_VARIANT_DEVICE_TRUNC] = {REF_SCALE_TRUNC, true},
    [ISA_QW_VARIANT_DEVICE_RNE] = {REF_SCALE_RNE, true},
    [ISA_QW_VARIANT_HOST_CODE] = {REF_SCALE_NONE, false},
    [ISA_QW_VARIANT_RNE_AWAY] = {REF_SCALE_RNE, false},
    [ISA_QW_VARIANT_NONE_EVEN] = {REF_SCALE_NONE, true},
};

typedef struct inputs {
  float scales[CHANNELS];
  float offsets[CHANNELS];
} inputs;

static void make_inputs(inputs *in, uint64_t seed) {
  qi_make(in->scales, in->offsets, CHANNELS, seed);
}

static isa_qw_check_in check_in(const inputs *in, bool offsets) {
  isa_qw_check_in c = {.scales = in->scales, .n = CHANNELS};
  if (offsets) {
    c.offsets = in->offsets;
    c.n_offsets = CHANNELS;
  }
  return c;
}

static void pack_all(const inputs *in, bool offsets, isa_qw_variant v, uint64_t *words) {
  for (size_t i = 0; i < CHANNELS; i++)
    words[i] = ref_pack_word_as(in->scales[i], offsets, in->offsets[i], ref_variant[v].sm,
                                ref_variant[v].half_even, 0, 0);
}

static void check_ok(const isa_qw_check_in *in, const uint64_t *words, isa_qw_check *c) {
  cs_err e;
  assert_int_equal(isa_qw_check_words(in, words, c, &e), CS_OK);
}

/* ---- the variants ---- */

static void test_isa_quant_tools_variant_table(void **state) {
  (void)state;
  unsigned seen = 0;
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++) {
    isa_qw_pack_opts o = isa_qw_variant_opts((isa_qw_variant)v, 3, 1);
    unsigned combo = (unsigned)o.scale_rounding * 2u + (unsigned)o.offset_rounding;
    assert_false(seen >> combo & 1u); /* each rounding pair once */
    seen |= 1u << combo;
    char name[40];
    snprintf(name, sizeof name, "%s/%s", isa_qw_scale_rounding_name(o.scale_rounding),
             isa_qw_offset_rounding_name(o.offset_rounding));
    assert_string_equal(isa_qw_variant_name((isa_qw_variant)v), name);
    assert_int_equal(o.n, 3);
    assert_int_equal(o.mcb, 1);
  }
  assert_int_equal(seen, 0x3Fu); /* 3 scale roundings x 2 offset roundings */
  assert_string_equal(isa_qw_variant_name(ISA_QW_VARIANT_DOCUMENTED), "trunc/half-away");
  assert_string_equal(isa_qw_variant_name(ISA_QW_VARIANT_DEVICE_RNE), "rne/half-even");
  assert_string_equal(isa_qw_variant_name(ISA_QW_VARIANT_HOST_CODE), "none/half-away");
  assert_string_equal(isa_qw_variant_source(ISA_QW_VARIANT_DEVICE_TRUNC),
                      "TransQuantParamV2 device kernel, round_mode 0");
  assert_string_equal(isa_qw_variant_name((isa_qw_variant)99), "?");
  assert_string_equal(isa_qw_part_name(ISA_QW_PART_SCALE_LOW), "scale-low");
  /* The parts cover the word once each. */
  uint64_t all = 0;
  for (unsigned p = 0; p < ISA_QW_PART_COUNT; p++) {
    assert_true((all & isa_qw_part_mask((isa_qw_part)p)) == 0);
    all |= isa_qw_part_mask((isa_qw_part)p);
  }
  assert_true(all == ~UINT64_C(0));
  assert_int_equal(isa_qw_parts_differing(0, S_BIT | 1),
                   BIT(ISA_QW_PART_S) | BIT(ISA_QW_PART_SCALE_LOW));
}

/* isa_qw_pack_bits of every variant against the reference packers, with REQ8's N and MCB. */
static void test_isa_quant_tools_variants_pack_as_the_references(void **state) {
  (void)state;
  static inputs in;
  make_inputs(&in, 0x5EED0001u);
  uint64_t st = 77;
  for (size_t i = 0; i < CHANNELS; i++)
    for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++) {
      unsigned n = (unsigned)rng_xorshift_below(&st, 16), mcb = (unsigned)(i & 1);
      isa_qw_pack_opts o = isa_qw_variant_opts((isa_qw_variant)v, n, mcb);
      bool with_offset = i % 3 != 0;
      uint64_t want = ref_pack_word_as(in.scales[i], with_offset, in.offsets[i],
                                       ref_variant[v].sm, ref_variant[v].half_even, n, mcb);
      assert_true(isa_qw_pack_bits(ref_f32_bits(in.scales[i]),
                                   with_offset ? &in.offsets[i] : NULL, &o) == want);
    }
}

/* ---- which packer made these words ---- */

static void test_isa_quant_tools_check_names_each_variant(void **state) {
  (void)state;
  static inputs in;
  static uint64_t words[ISA_QW_VARIANT_COUNT][CHANNELS];
  make_inputs(&in, 0x5EED0002u);
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++)
    pack_all(&in, true, (isa_qw_variant)v, words[v]);
  /* The data tells every pair of variants apart (else the test would prove nothing). */
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++)
    for (unsigned w = 0; w < v; w++) assert_memory_not_equal(words[v], words[w], sizeof words[v]);

  isa_qw_check_in ci = check_in(&in, true);
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++) {
    isa_qw_check c;
    check_ok(&ci, words[v], &c);
    assert_int_equal(c.channels, CHANNELS);
    assert_int_equal(c.explaining, BIT(v));
    assert_int_equal(c.closest, BIT(v));
    assert_int_equal(c.reference, v);
    assert_int_equal(c.closest_matches, CHANNELS);
    assert_int_equal(c.differing, 0);
    assert_int_equal(c.unmatched, 0);
    for (unsigned w = 0; w < ISA_QW_VARIANT_COUNT; w++) {
      size_t same = 0;
      for (size_t i = 0; i < CHANNELS; i++) same += words[w][i] == words[v][i];
      assert_int_equal(c.matches[w], same);
      assert_int_equal(c.same_words[w], BIT(w));
    }
  }
  /* The reasons counted, recounted from the inputs: one channel in 8 has a scale exact in
   * fp19 (and none elsewhere, by the mantissa's random low bits but for chance zeros). */
  isa_qw_check c;
  check_ok(&ci, words[0], &c);
  size_t low = 0, up = 0, ties = 0;
  for (size_t i = 0; i < CHANNELS; i++) {
    low += (ref_f32_bits(in.scales[i]) & 0x1FFFu) != 0;
    up += words[ISA_QW_VARIANT_DOCUMENTED][i] != words[ISA_QW_VARIANT_RNE_AWAY][i];
    ties += words[ISA_QW_VARIANT_DOCUMENTED][i] != words[ISA_QW_VARIANT_DEVICE_TRUNC][i];
  }
  assert_int_equal(c.scale_low_set, low);
  assert_int_equal(c.scale_rounds_up, up);
  assert_int_equal(c.offset_ties, ties);
}

static void test_isa_quant_tools_check_ties_say_why(void **state) {
  (void)state;
  /* Scales exact in fp19, no offsets: every variant packs the same words. */
  static const float exact[4] = {0.5f, -1.0f, 0.25f, 0x1.8p-3f};
  uint64_t w[4];
  for (int i = 0; i < 4; i++)
    w[i] = ref_pack_word_as(exact[i], false, 0, REF_SCALE_TRUNC, false, 0, 0);
  isa_qw_check_in ci = {.scales = exact, .n = 4};
  isa_qw_check c;
  check_ok(&ci, w, &c);
  assert_int_equal(c.explaining, 0x3Fu);
  assert_int_equal(c.same_words[ISA_QW_VARIANT_HOST_CODE], 0x3Fu);
  char why[512];
  isa_qw_check_tie_text(&c, &ci, c.explaining, why, sizeof why);
  assert_string_equal(why, "without offsets the offset rounding does not show; every scale is "
                           "exact in fp19 (bits 12..0 clear), so every scale rounding stores the "
                           "same bits");

  /* 0.1 (low bits 0x0ccd, below the tie) with offsets off any tie (300.5 clamps to 255 either
   * way): trunc and rne agree, none does not; half-away and half-even agree. */
  static const float scales[3] = {0.1f, 0.1f, 0.1f};
  static const float offsets[3] = {1.25f, -7.0f, 300.5f};
  for (int i = 0; i < 3; i++)
    w[i] = ref_pack_word_as(scales[i], true, offsets[i], REF_SCALE_RNE, true, 0, 0);
  ci = (isa_qw_check_in){.scales = scales, .n = 3, .offsets = offsets, .n_offsets = 3};
  check_ok(&ci, w, &c);
  unsigned four = BIT(ISA_QW_VARIANT_DOCUMENTED) | BIT(ISA_QW_VARIANT_DEVICE_TRUNC) |
                  BIT(ISA_QW_VARIANT_DEVICE_RNE) | BIT(ISA_QW_VARIANT_RNE_AWAY);
  assert_int_equal(c.explaining, four);
  assert_int_equal(c.same_words[ISA_QW_VARIANT_DOCUMENTED], four);
  assert_int_equal(c.same_words[ISA_QW_VARIANT_NONE_EVEN],
                   BIT(ISA_QW_VARIANT_HOST_CODE) | BIT(ISA_QW_VARIANT_NONE_EVEN));
  assert_int_equal(c.matches[ISA_QW_VARIANT_HOST_CODE], 0);
  assert_int_equal(c.unmatched, 0);
  isa_qw_check_tie_text(&c, &ci, c.explaining, why, sizeof why);
  assert_string_equal(why, "no offset lies halfway between two integers inside [-256, 255], "
                           "where half-away and half-even differ; no scale rounds up to the "
                           "next fp19 value under rne (bits 12..0 below 0x1000, or 0x1000 with "
                           "bit 13 clear)");
  /* One variant: nothing to explain. */
  isa_qw_check_tie_text(&c, &ci, BIT(ISA_QW_VARIANT_DOCUMENTED), why, sizeof why);
  assert_string_equal(why, "");
}

/* A tensor of the device kernel's round_mode-1 words with one corrupted field in each of a few
 * channels: the variant is still found, and each channel's difference named. */
static void test_isa_quant_tools_check_corrupted_channels(void **state) {
  (void)state;
  static inputs in;
  static uint64_t words[CHANNELS];
  make_inputs(&in, 0x5EED0003u);
  in.scales[5] = 0.3f;    /* fp32 0x3e99999a: low bits 0x199a round up under rne */
  in.offsets[77] = 2.5f;  /* a tie: half-even 2, half-away 3 */
  in.scales[9] = 0.1f;    /* fp32 0x3dcccccd */
  in.offsets[9] = 0.0f;
  pack_all(&in, true, ISA_QW_VARIANT_DEVICE_RNE, words);
  /* By hand, from the rne/half-even words:
   * channel 1234: S cleared;
   * channel 5: the truncated scale 0x3e998000 instead of the rounded 0x3e99a000;
   * channel 77: offset 3 (half away) instead of 2: bits 45..37 = 3;
   * channel 9: all 32 bits of 0.1 (0x3dcccccd) instead of 0x3dccc000. */
  words[1234] &= ~S_BIT;
  words[5] = (words[5] & ~UINT64_C(0xFFFFFFFF)) | 0x3e998000u;
  words[77] = (words[77] & ~(UINT64_C(0x1FF) << 37)) | (UINT64_C(3) << 37);
  words[9] = S_BIT | 0x3dcccccdu;

  isa_qw_check_in ci = check_in(&in, true);
  isa_qw_check c;
  check_ok(&ci, words, &c);
  assert_int_equal(c.explaining, 0);
  assert_int_equal(c.closest, BIT(ISA_QW_VARIANT_DEVICE_RNE));
  assert_int_equal(c.reference, ISA_QW_VARIANT_DEVICE_RNE);
  assert_int_equal(c.matches[ISA_QW_VARIANT_DEVICE_RNE], CHANNELS - 4);
  assert_int_equal(c.differing, 4);
  /* Channel 1234 (S) matches nothing; 5, 77 and 9 are what other packers write. */
  assert_int_equal(c.unmatched, 1);

  isa_qw_difference d[ISA_QW_PART_COUNT];
  assert_int_equal(isa_qw_explain_mismatch(&ci, 1234, c.reference, words[1234], d), 1);
  assert_int_equal(d[0].part, ISA_QW_PART_S);
  assert_int_equal(d[0].modes, BIT(ISA_QW_MODE_REQ8) | BIT(ISA_QW_MODE_QF322B8));
  assert_string_equal(d[0].text, "bit 46 clear: uint8 output (REQ8 and QF322B8 clamp to [0, "
                                 "255]) where the packers set S = 1 (int8, [-128, 127])");

  /* 0x3e998000 = (1 + 204/1024) / 4 = 0.2998046875, 0x3e99a000 = 1229/4096 = 0.300048828125;
   * the change is -1/1229 = -0.0008137 relative, one fp19 step down. */
  assert_int_equal(isa_qw_explain_mismatch(&ci, 5, c.reference, words[5], d), 1);
  assert_int_equal(d[0].part, ISA_QW_PART_SCALE);
  assert_int_equal(d[0].modes,
                   BIT(ISA_QW_MODE_DEQF16) | BIT(ISA_QW_MODE_REQ8) | BIT(ISA_QW_MODE_QF322B8));
  assert_string_equal(d[0].text, "scale truncated to 0x3e998000 (0.2998046875) where "
                                 "rne/half-even gives 0x3e99a000 (0.300048828125): the effective "
                                 "scale changes by relative -0.0008137, -1 fp19 step");

  assert_int_equal(isa_qw_explain_mismatch(&ci, 77, c.reference, words[77], d), 1);
  assert_int_equal(d[0].part, ISA_QW_PART_OFFSET);
  assert_int_equal(d[0].modes, BIT(ISA_QW_MODE_REQ8) | BIT(ISA_QW_MODE_QF322B8));
  assert_string_equal(d[0].text, "offset 2.5 rounded to 3 (half-away) where half-even gives 2");

  assert_int_equal(isa_qw_explain_mismatch(&ci, 9, c.reference, words[9], d), 1);
  assert_int_equal(d[0].part, ISA_QW_PART_SCALE_LOW);
  assert_int_equal(d[0].modes, 0);
  assert_string_equal(d[0].text, "scale low bits 0x0ccd not masked: all 32 bits of the fp32 "
                                 "scale stored, as aclnnTransQuantParam's host code does; the "
                                 "hardware ignores them (no effect on the output)");
}

/* The seed's own example, (uint64_t)*(int32_t*)&scale for -0.1, checked against the documented
 * formula: every field the sign extension touches, explained. */
static void test_isa_quant_tools_check_explains_sign_extension(void **state) {
  (void)state;
  static const float scales[2] = {-0.1f, 0.5f};
  /* -0.1f = 0xbdcccccd, sign-extended 0xffffffffbdcccccd; 0.5 packed: S | 0x3f000000. */
  const uint64_t words[2] = {UINT64_C(0xffffffffbdcccccd), S_BIT | 0x3f000000u};
  isa_qw_check_in ci = {.scales = scales, .n = 2};
  isa_qw_check c;
  check_ok(&ci, words, &c);
  assert_int_equal(c.matches[ISA_QW_VARIANT_DOCUMENTED], 1);
  assert_int_equal(c.unmatched, 1);
  isa_qw_difference d[ISA_QW_PART_COUNT];
  size_t k = isa_qw_explain_mismatch(&ci, 0, ISA_QW_VARIANT_DOCUMENTED, words[0], d);
  assert_int_equal(k, 5);
  assert_int_equal(d[0].part, ISA_QW_PART_SCALE_LOW);
  assert_string_equal(d[0].text, "scale low bits 0x0ccd not masked: all 32 bits of the fp32 "
                                 "scale stored, as aclnnTransQuantParam's host code does; the "
                                 "hardware ignores them (no effect on the output)");
  assert_int_equal(d[1].part, ISA_QW_PART_N);
  assert_int_equal(d[1].modes, BIT(ISA_QW_MODE_REQ8));
  assert_string_equal(d[1].text, "N = 15 where 0 is expected: REQ8 shifts the int32 right by 15 "
                                 "before the multiply");
  assert_int_equal(d[2].part, ISA_QW_PART_MCB);
  assert_string_equal(d[2].text, "bit 36 (MCB) set where clear is expected: REQ8 shifts the "
                                 "int32 right by N = 15 and saturates it to int16 before the "
                                 "multiply");
  assert_int_equal(d[3].part, ISA_QW_PART_OFFSET);
  assert_string_equal(d[3].text, "offset -1 where no offset was given (0): REQ8 and QF322B8 add "
                                 "-1 to every output");
  assert_int_equal(d[4].part, ISA_QW_PART_IGNORED);
  assert_int_equal(d[4].modes, 0);
  assert_string_equal(d[4].text, "bits 63..47 = 0x1ffff where trunc/half-away gives 0x00000: "
                                 "ignored by the hardware (no effect on the output); with bits "
                                 "32..63 all ones and bit 31 set, the word looks like a negative "
                                 "fp32 scale cast through int32_t and sign-extended");
}

static void test_isa_quant_tools_check_offset_explanations(void **state) {
  (void)state;
  /* One offset broadcast to four channels; the words of aclnnTransQuantParam's host code, which
   * puts it into word 0 only; a wrapped offset; an unrelated one. */
  static const float scales[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  static const float one_offset[1] = {2.5f};
  const uint64_t w1 = UINT64_C(0x400000000000) | 0x3f800000u;
  uint64_t words[4] = {w1 | UINT64_C(3) << 37, w1, w1, w1};
  isa_qw_check_in ci = {.scales = scales, .n = 4, .offsets = one_offset, .n_offsets = 1};
  isa_qw_check c;
  check_ok(&ci, words, &c);
  assert_int_equal(c.matches[ISA_QW_VARIANT_HOST_CODE], 1);
  isa_qw_difference d[ISA_QW_PART_COUNT];
  assert_int_equal(isa_qw_explain_mismatch(&ci, 2, ISA_QW_VARIANT_HOST_CODE, w1, d), 1);
  assert_string_equal(d[0].text, "offset field 0 where the offset 2.5 gives 3 (half-away): the "
                                 "single offset went into the first word only, as "
                                 "aclnnTransQuantParam's host code packs it");

  /* 300 wrapped to its low 9 bits: 300 - 512 = -212 (0x12c), where clamping gives 255. */
  static const float big[1] = {300.0f};
  ci = (isa_qw_check_in){.scales = scales, .n = 1, .offsets = big, .n_offsets = 1};
  uint64_t wrapped = w1 | UINT64_C(0x12c) << 37;
  assert_int_equal(isa_qw_explain_mismatch(&ci, 0, ISA_QW_VARIANT_DOCUMENTED, wrapped, d), 1);
  assert_string_equal(d[0].text, "offset 300 wrapped to -212 (its low 9 bits) where "
                                 "trunc/half-away clamps it to 255");
  /* Not packed at all; and an unrelated value. */
  assert_int_equal(isa_qw_explain_mismatch(&ci, 0, ISA_QW_VARIANT_DOCUMENTED, w1, d), 1);
  assert_string_equal(d[0].text, "offset field 0 where the offset 300 gives 255 (half-away): the "
                                 "offset was not packed");
  assert_int_equal(
      isa_qw_explain_mismatch(&ci, 0, ISA_QW_VARIANT_DOCUMENTED, w1 | UINT64_C(7) << 37, d), 1);
  assert_string_equal(d[0].text, "offset 7 where the offset 300 gives 255 (half-away)");
}

/* ---- the summary ---- */

static void test_isa_quant_tools_summary(void **state) {
  (void)state;
  const uint64_t words[5] = {
      UINT64_C(0x000040003dccc000), /* 0.1 packed: no warning */
      UINT64_C(0x000000003dcccccd), /* raw fp32 bits: S clear, low bits set */
      UINT64_C(0xffffffffbdcccccd), /* sign-extended -0.1: low, high bits; N 15, MCB 1, off -1 */
      UINT64_C(0x0000400340000000), /* 2.0 with N = 3 but MCB = 0 */
      UINT64_C(0x000040007f800000), /* an infinite scale */
  };
  isa_qw_summary s;
  isa_qw_summarize(words, 5, &s);
  assert_int_equal(s.channels, 5);
  assert_int_equal(s.warning_channels[ISA_QW_WARN_INDEX_S_CLEAR], 1);
  assert_int_equal(s.warning_channels[ISA_QW_WARN_INDEX_LOW_BITS], 2);
  assert_int_equal(s.warning_channels[ISA_QW_WARN_INDEX_HIGH_BITS], 1);
  assert_int_equal(s.warning_channels[ISA_QW_WARN_INDEX_SIGN_EXTENDED], 1);
  assert_int_equal(s.warning_channels[ISA_QW_WARN_INDEX_SCALE_ZERO], 0);
  assert_int_equal(s.warning_channels[ISA_QW_WARN_INDEX_SCALE_NONFINITE], 1);
  assert_int_equal(s.warning_channels[ISA_QW_WARN_INDEX_N_UNUSED], 1);
  assert_int_equal(s.channels_warned, 4);
  assert_int_equal(s.finite_scales, 4);
  /* 0x3dccc000 = 0.0999755859375; the smallest is channel 2's negative. */
  assert_true((double)s.scale_min == -0.0999755859375);
  assert_int_equal(s.scale_min_channel, 2);
  assert_true(s.scale_max == 2.0f);
  assert_int_equal(s.scale_max_channel, 3);
  assert_int_equal(s.offset_min, -1);
  assert_int_equal(s.offset_max, 0);
  assert_int_equal(s.s_set, 4);
  assert_int_equal(s.mcb_set, 1);
  assert_int_equal(s.n_channels[0], 3);
  assert_int_equal(s.n_channels[3], 1);
  assert_int_equal(s.n_channels[15], 1);
}

/* ---- output differences ---- */

/* A word's output value at accumulator x, by the reference rules. */
static double value_at(isa_qw_mode mode, uint64_t w, int32_t x) {
  if (mode == ISA_QW_MODE_DEQF16) return ref_f16_value(ref_deqf16(w, x));
  return ref_b8_value(w, ref_req8(w, x));
}

/* The largest |b - a| over [lo, hi], by evaluating every accumulator. */
static double brute_max(isa_qw_mode mode, uint64_t a, uint64_t b, int64_t lo, int64_t hi) {
  double best = 0;
  for (int64_t x = lo; x <= hi; x++) {
    double d = fabs(value_at(mode, b, (int32_t)x) - value_at(mode, a, (int32_t)x));
    if (d > best) best = d;
  }
  return best;
}

/* The result is the maximum, found where it says, with the outputs it says. */
static void assert_output_diff(isa_qw_mode mode, uint64_t a, uint64_t b, int32_t lo, int32_t hi,
                               double want) {
  isa_qw_output_diff d;
  cs_err e;
  assert_int_equal(isa_qw_output_diff_range(mode, a, b, lo, hi, &d, &e), CS_OK);
  assert_true(d.max_abs == want);
  assert_true(d.acc >= lo && d.acc <= hi);
  assert_true(fabs(value_at(mode, b, d.acc) - value_at(mode, a, d.acc)) == want);
  assert_true(d.value_a == value_at(mode, a, d.acc));
  assert_true(d.value_b == value_at(mode, b, d.acc));
  if (mode == ISA_QW_MODE_DEQF16) {
    assert_int_equal(d.bits_a, ref_deqf16(a, d.acc));
    assert_int_equal(d.bits_b, ref_deqf16(b, d.acc));
  } else {
    assert_int_equal(d.bits_a, ref_req8(a, d.acc));
    assert_int_equal(d.bits_b, ref_req8(b, d.acc));
  }
  if (want == 0) assert_int_equal(d.acc, lo);
}

static void test_isa_quant_tools_output_diff_by_hand(void **state) {
  (void)state;
  const uint64_t one = S_BIT | 0x3f800000u;           /* scale 1 */
  const uint64_t one_up = S_BIT | 0x3f802000u;        /* 1 + 2^-10: one fp19 step up */
  const uint64_t two = S_BIT | 0x40000000u;           /* scale 2 */
  /* DEQF16, 1 against 1 + 2^-10: y = x + x/1024. Up to x = 1535, x/1024 < 1.5 and the fp16
   * grid (1 from 1024 on, 0.5 below) moves y by at most 1; at 1536, y = 1537.5 is a tie that
   * goes to the even 1538: 2 apart, as is 2048 -> 2050. */
  assert_output_diff(ISA_QW_MODE_DEQF16, one, one_up, 0, 1535, 1.0);
  assert_output_diff(ISA_QW_MODE_DEQF16, one, one_up, 0, 2048, 2.0);
  assert_output_diff(ISA_QW_MODE_DEQF16, one, one_up, -2048, 0, 2.0);
  /* Saturation: from 60000 (exact in fp16) scale 2 gives 65504 (saturated); scale 1 gives 60000
   * up to 60015, so the largest difference is 5504; beyond 65519 both saturate. */
  assert_output_diff(ISA_QW_MODE_DEQF16, one, two, 60000, 70000, 5504.0);
  assert_output_diff(ISA_QW_MODE_DEQF16, one, two, 70000, 80000, 0.0);
  /* REQ8, offset 3 against 2 (S = 1): 1 apart until both saturate to 127 (x >= 125). */
  const uint64_t off3 = one | UINT64_C(3) << 37, off2 = one | UINT64_C(2) << 37;
  assert_output_diff(ISA_QW_MODE_REQ8, off3, off2, -10, 10, 1.0);
  assert_output_diff(ISA_QW_MODE_REQ8, off3, off2, 200, 300, 0.0);
  /* REQ8 with MCB = 1, N = 1: x against floor(x / 2); over [0, 10] the gap ceil(x / 2) is
   * largest, 5, at 9 and 10. */
  const uint64_t shift1 = one | UINT64_C(1) << 32 | UINT64_C(1) << 36;
  assert_output_diff(ISA_QW_MODE_REQ8, one, shift1, 0, 10, 5.0);
  /* S = 1 against S = 0 (int8 against uint8): negative outputs clamp to 0 under uint8; over
   * [-100, 0] the largest gap is 100, at -100. */
  assert_output_diff(ISA_QW_MODE_REQ8, one, one & ~S_BIT, -100, 0, 100.0);
  /* The same word: nothing, anywhere. */
  assert_output_diff(ISA_QW_MODE_DEQF16, one, one, INT32_MIN, INT32_MAX, 0.0);

  isa_qw_output_diff d;
  cs_err e;
  assert_int_equal(isa_qw_output_diff_range(ISA_QW_MODE_QF322B8, one, two, 0, 1, &d, &e),
                   CS_EINVAL);
  assert_string_equal(e.msg, "mode QF322B8_PRE/VQF322B8_PRE does not read an int32 accumulator "
                             "(DEQF16 and REQ8 do)");
  assert_int_equal(isa_qw_output_diff_range(ISA_QW_MODE_DEQF16, one, two, 5, 1, &d, &e),
                   CS_EINVAL);
  assert_string_equal(e.msg, "the accumulator range [5, 1] is empty");
}

/* Random pairs of words against the brute force: scales of both signs over many binades (and
 * zero), shared or differing offsets, S, N and MCB; ranges around zero, at both ends of int32,
 * and single accumulators. */
static void test_isa_quant_tools_output_diff_random(void **state) {
  (void)state;
  uint64_t st = 0xD1FF;
  for (int it = 0; it < 300; it++) {
    uint64_t w[2];
    for (int k = 0; k < 2; k++) {
      double mag = ldexp(1.0 + rng_xorshift_unit(&st), (int)rng_xorshift_below(&st, 20) - 14);
      uint32_t bits = ref_f32_bits((float)(rng_xorshift_below(&st, 4) == 0 ? -mag : mag));
      if (rng_xorshift_below(&st, 16) == 0) bits = 0;
      w[k] = (uint64_t)bits | rng_xorshift_below(&st, 4) << 32 |
             (uint64_t)(rng_xorshift_below(&st, 3) == 0) << 36 |
             (rng_xorshift_below(&st, 512) & 0x1FFu) << 37 |
             (uint64_t)(rng_xorshift_below(&st, 4) != 0) << 46;
    }
    /* Often b is a with one part changed: a neighbouring fp19 scale, or another offset. */
    switch (it % 3) {
      case 0: w[1] = w[0] + (UINT64_C(1) << 13) * (1 + rng_xorshift_below(&st, 3)); break;
      case 1: w[1] = (w[0] & ~(UINT64_C(0x1FF) << 37)) | (w[1] & UINT64_C(0x1FF) << 37); break;
      default: break;
    }
    int64_t lo, hi;
    switch (it % 4) {
      case 0:
        lo = -(int64_t)rng_xorshift_below(&st, 40000);
        hi = lo + (int64_t)rng_xorshift_below(&st, 80000);
        break;
      case 1:
        hi = INT32_MAX;
        lo = hi - (int64_t)rng_xorshift_below(&st, 20000);
        break;
      case 2:
        lo = INT32_MIN;
        hi = lo + (int64_t)rng_xorshift_below(&st, 20000);
        break;
      default: lo = hi = (int64_t)rng_xorshift_below(&st, 2000) - 1000; break;
    }
    for (int m = 0; m < 2; m++) {
      isa_qw_mode mode = m ? ISA_QW_MODE_REQ8 : ISA_QW_MODE_DEQF16;
      assert_output_diff(mode, w[0], w[1], (int32_t)lo, (int32_t)hi,
                         brute_max(mode, w[0], w[1], lo, hi));
    }
  }
}

/* The done criterion: the truncating and the rounding variant of the same 4096 scales. */
static void test_isa_quant_tools_diff_trunc_against_rne(void **state) {
  (void)state;
  static inputs in;
  static uint64_t a[CHANNELS], b[CHANNELS];
  static isa_qw_diff_channel per[CHANNELS];
  make_inputs(&in, 0x5EED0004u);
  pack_all(&in, false, ISA_QW_VARIANT_DOCUMENTED, a);
  pack_all(&in, false, ISA_QW_VARIANT_DEVICE_RNE, b);
  const int32_t lo = -300, hi = 300;
  isa_qw_diff d;
  cs_err e;
  assert_int_equal(isa_qw_diff_words(a, b, CHANNELS, lo, hi, per, &d, &e), CS_OK);

  size_t differing = 0, max_channel = 0;
  double max_rel = 0, deq_max = 0, req_max = 0;
  for (size_t i = 0; i < CHANNELS; i++) {
    bool differs = a[i] != b[i];
    differing += differs;
    assert_int_equal(per[i].parts, differs ? BIT(ISA_QW_PART_SCALE) : 0);
    assert_int_equal(per[i].deqf16_computed, differs);
    assert_int_equal(per[i].req8_computed, differs);
    double va = (double)ref_word_fp19(a[i]), vb = (double)ref_word_fp19(b[i]);
    double rel = (vb - va) / fabs(va);
    assert_true(per[i].scale_relative == rel);
    if (fabs(rel) > max_rel) {
      max_rel = fabs(rel);
      max_channel = i;
    }
    if (!differs) continue;
    double dm = brute_max(ISA_QW_MODE_DEQF16, a[i], b[i], lo, hi);
    double rm = brute_max(ISA_QW_MODE_REQ8, a[i], b[i], lo, hi);
    assert_true(per[i].deqf16.max_abs == dm);
    assert_true(per[i].req8.max_abs == rm);
    if (dm > deq_max) deq_max = dm;
    if (rm > req_max) req_max = rm;
  }
  assert_true(differing > CHANNELS / 4); /* rne rounds up about half the scales off a tie */
  assert_int_equal(d.channels, CHANNELS);
  assert_int_equal(d.differing, differing);
  assert_int_equal(d.part_channels[ISA_QW_PART_SCALE], differing);
  for (unsigned p = 0; p < ISA_QW_PART_COUNT; p++)
    if (p != ISA_QW_PART_SCALE) assert_int_equal(d.part_channels[p], 0);
  assert_int_equal(d.scale_changed, differing);
  assert_true(d.max_scale_relative == max_rel);
  assert_int_equal(d.max_scale_channel, max_channel);
  /* One fp19 step is at most 2^-10 of the smaller scale, at a mantissa of 1.0. */
  assert_true(max_rel <= ldexp(1.0, -10));
  assert_true(d.deqf16.max_abs == deq_max);
  assert_true(d.req8.max_abs == req_max);
  assert_true(per[d.deqf16_channel].deqf16.max_abs == deq_max);
  assert_true(per[d.req8_channel].req8.max_abs == req_max);
}

static void test_isa_quant_tools_change_texts(void **state) {
  (void)state;
  char buf[400];
  const uint64_t t03 = S_BIT | 0x3e998000u, r03 = S_BIT | 0x3e99a000u;
  /* 1228/4096 -> 1229/4096: +1/1228 = +0.0008143. */
  isa_qw_part_change_text(ISA_QW_PART_SCALE, t03, r03, buf, sizeof buf);
  assert_string_equal(buf, "scale 0x3e998000 (0.2998046875) -> 0x3e99a000 (0.300048828125): "
                           "relative +0.0008143, +1 fp19 step");
  isa_qw_part_change_text(ISA_QW_PART_SCALE_LOW, t03, t03 | 0xccd, buf, sizeof buf);
  assert_string_equal(buf, "scale bits 12..0 0x0000 -> 0x0ccd (ignored by the hardware)");
  isa_qw_part_change_text(ISA_QW_PART_OFFSET, t03 | UINT64_C(3) << 37, t03 | UINT64_C(0x1FE) << 37,
                          buf, sizeof buf);
  assert_string_equal(buf, "offset 3 -> -2");
  isa_qw_part_change_text(ISA_QW_PART_S, t03, t03 & ~S_BIT, buf, sizeof buf);
  assert_string_equal(buf, "S 1 -> 0: int8 -> uint8 output");
  isa_qw_part_change_text(ISA_QW_PART_N, t03, t03 | UINT64_C(3) << 32, buf, sizeof buf);
  assert_string_equal(buf, "N 0 -> 3 (unused: MCB = 0 in both)");
  isa_qw_part_change_text(ISA_QW_PART_MCB, t03, t03 | UINT64_C(0x13) << 32, buf, sizeof buf);
  assert_string_equal(buf, "MCB 0 -> 1: REQ8 now shifts the int32 right by N = 3 and saturates "
                           "it to int16 first");
  isa_qw_part_change_text(ISA_QW_PART_IGNORED, t03, t03 | UINT64_C(0x1FFFF) << 47, buf,
                          sizeof buf);
  assert_string_equal(buf, "bits 63..47 0x00000 -> 0x1ffff (ignored by the hardware)");

  /* Steps: 1.0 (position 0x3f800000 >> 13 = 0x1fc00) to 2.0 (0x20000): 1024 steps; -1 to 1:
   * 2 x 0x1fc00. Relative changes from zero, and with a NaN. */
  const uint64_t one = 0x3f800000u, two = 0x40000000u, minus_one = 0xbf800000u;
  assert_int_equal(isa_qw_scale_steps(one, two), 1024);
  assert_int_equal(isa_qw_scale_steps(minus_one, one), 2 * 0x1fc00);
  assert_true(isa_qw_scale_relative_change(one, two) == 1.0);
  assert_true(isa_qw_scale_relative_change(minus_one, one) == 2.0);
  assert_true(isinf(isa_qw_scale_relative_change(0, one)));
  assert_true(isa_qw_scale_relative_change(0, 0x80000000u) == 0.0); /* +0 and -0 are equal */
  assert_true(isnan(isa_qw_scale_relative_change(0x7fc00000u, one)));
  isa_qw_part_change_text(ISA_QW_PART_SCALE, 0, one, buf, sizeof buf);
  assert_string_equal(buf, "scale 0x00000000 (0) -> 0x3f800000 (1): from zero, +130048 fp19 steps");
}

static void test_isa_quant_tools_errors_name_the_input(void **state) {
  (void)state;
  static const float scales[3] = {0.5f, NAN, 1.0f};
  static const float offsets[3] = {0.0f, INFINITY, 1.0f};
  const uint64_t words[3] = {0, 0, 0};
  isa_qw_check c;
  cs_err e;
  isa_qw_check_in ci = {.scales = scales, .n = 3, .offsets = offsets, .n_offsets = 2};
  assert_int_equal(isa_qw_check_words(&ci, words, &c, &e), CS_EINVAL);
  assert_string_equal(e.msg, "2 offsets for 3 scales: give no offset, one (broadcast to every "
                             "channel) or one per channel");
  ci.n_offsets = 3;
  ci.scales_name = "s.npy";
  assert_int_equal(isa_qw_check_words(&ci, words, &c, &e), CS_EINVAL);
  assert_string_equal(e.msg, "s.npy: channel 1: scale nan is not finite: the packers take "
                             "finite scales only");
  static const float good[3] = {0.5f, 0.25f, 1.0f};
  ci.scales = good;
  assert_int_equal(isa_qw_check_words(&ci, words, &c, &e), CS_EINVAL);
  assert_string_equal(e.msg, "offsets: offset 1: inf is not finite: the packers take finite "
                             "offsets only");
  ci.n_offsets = 0;
  ci.n_shift = 16;
  assert_int_equal(isa_qw_check_words(&ci, words, &c, &e), CS_EINVAL);
  assert_string_equal(e.msg, "shift N 16 is out of range: N is 4 bits, 0..15");
  ci.n_shift = 0;
  ci.mcb = 2;
  assert_int_equal(isa_qw_check_words(&ci, words, &c, &e), CS_EINVAL);
  assert_string_equal(e.msg, "MCB 2 is out of range: MCB is one bit, 0 or 1");
  isa_qw_diff d;
  assert_int_equal(isa_qw_diff_words(words, words, 3, 1, 0, NULL, &d, &e), CS_EINVAL);
  assert_string_equal(e.msg, "the accumulator range [1, 0] is empty");
  /* Zero and subnormal scales are packed, as the public packers pack them. */
  static const float odd[2] = {0.0f, 0x1p-140f};
  const uint64_t zeroes[2] = {S_BIT, S_BIT};
  ci = (isa_qw_check_in){.scales = odd, .n = 2};
  assert_int_equal(isa_qw_check_words(&ci, zeroes, &c, &e), CS_OK);
  /* 2^-140 is fp32 0x00000200: trunc and rne give 0, none keeps 0x200. */
  assert_int_equal(c.explaining, 0x3Fu & ~(BIT(ISA_QW_VARIANT_HOST_CODE) |
                                           BIT(ISA_QW_VARIANT_NONE_EVEN)));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_isa_quant_tools_variant_table),
      cmocka_unit_test(test_isa_quant_tools_variants_pack_as_the_references),
      cmocka_unit_test(test_isa_quant_tools_check_names_each_variant),
      cmocka_unit_test(test_isa_quant_tools_check_ties_say_why),
      cmocka_unit_test(test_isa_quant_tools_check_corrupted_channels),
      cmocka_unit_test(test_isa_quant_tools_check_explains_sign_extension),
      cmocka_unit_test(test_isa_quant_tools_check_offset_explanations),
      cmocka_unit_test(test_isa_quant_tools_summary),
      cmocka_unit_test(test_isa_quant_tools_output_diff_by_hand),
      cmocka_unit_test(test_isa_quant_tools_output_diff_random),
      cmocka_unit_test(test_isa_quant_tools_diff_trunc_against_rne),
      cmocka_unit_test(test_isa_quant_tools_change_texts),
      cmocka_unit_test(test_isa_quant_tools_errors_name_the_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
