/* Tests of isa/isa_quant: the fixpipe quant word against hand-derived words, an independent
 * reference packer (frexp and libm rounding, not bit masks), boundaries, warnings and errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa_quant.h"
#include "support/ref_num.h"

/* ---- helpers ---- */

/* A small deterministic generator (xorshift64*), state kept by the caller. */
static uint64_t next_rand(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(0x2545F4914F6CDD1D);
}

/* Reference fp19 value of a normal fp32 x, by arithmetic in double: x = m * 2^e with m in
 * [1, 2); truncation keeps floor(m * 1024) / 1024. rne picks the nearer of the two
 * neighbours, the one with an even 10-bit mantissa on a tie. */
static double ref_fp19(double x, int rne) {
  int e;
  double m = frexp(fabs(x), &e); /* m in [0.5, 1) */
  m *= 2.0;
  e -= 1;
  double k = floor(m * 1024.0); /* 1024 .. 2047 */
  double lo = k / 1024.0 * ldexp(1.0, e);
  if (rne) {
    double hi = (k + 1.0) / 1024.0 * ldexp(1.0, e);
    double dlo = fabs(x) - lo, dhi = hi - fabs(x);
    if (dhi < dlo || (dhi == dlo && fmod(k, 2.0) != 0.0)) lo = hi;
  }
  return copysign(lo, x);
}

/* Reference word bits 31..0 of a double that is exactly an fp19 value: built from frexp's
 * sign, exponent and mantissa, not by reinterpreting a float. */
static uint64_t ref_scale_field(double v) {
  int e;
  double m = frexp(fabs(v), &e);
  uint64_t mant10 = (uint64_t)((m * 2.0 - 1.0) * 1024.0);
  uint64_t exp8 = (uint64_t)(e - 1 + 127);
  uint64_t sign = v < 0 ? 1 : 0;
  return sign * 2147483648u + exp8 * 8388608u + mant10 * 8192u;
}

/* Reference offset field: libm's lround (half away) or llrint (half even, default mode). */
static uint64_t ref_offset_field(float off, int half_even, int *clamped_out) {
  long long r = half_even ? llrint((double)off) : (long long)lround((double)off);
  int c = r < -256 ? -256 : r > 255 ? 255 : (int)r;
  *clamped_out = c;
  uint64_t nine = c < 0 ? (uint64_t)(512 + c) : (uint64_t)c;
  return nine * UINT64_C(137438953472); /* 2^37 */
}

#define S_BIT UINT64_C(0x400000000000)

static isa_qw_packed pack_ok(float scale, const float *offset, isa_qw_scale_rounding sr,
                             isa_qw_offset_rounding orr) {
  isa_qw_pack_opts o = {.scale_rounding = sr, .offset_rounding = orr};
  isa_qw_packed p;
  cs_err e;
  assert_int_equal(isa_qw_pack(scale, offset, &o, &p, &e), CS_OK);
  return p;
}

static void assert_pack_error(float scale, const float *offset, isa_qw_scale_rounding sr,
                              const char *msg) {
  isa_qw_pack_opts o = {.scale_rounding = sr, .offset_rounding = ISA_QW_OFFSET_HALF_AWAY};
  isa_qw_packed p;
  memset(&p, 0xAB, sizeof p);
  cs_err e;
  assert_int_equal(isa_qw_pack(scale, offset, &o, &p, &e), CS_EINVAL);
  assert_int_equal(e.code, CS_EINVAL);
  assert_string_equal(e.msg, msg);
}

static const char *warn_text(isa_qw_warn_index i, const isa_qw_fields *f,
                             const isa_qw_packed *p, char *buf, size_t n) {
  isa_qw_warning_text(i, f, p, buf, n);
  return buf;
}

/* ---- the layout ---- */

static void test_isa_quant_field_table_covers_64_bits_once(void **state) {
  (void)state;
  uint64_t seen = 0;
  unsigned total = 0;
  for (int i = 0; i < ISA_QW_FIELD_COUNT; i++) {
    unsigned lsb = isa_qw_field_lsb((isa_qw_field)i), w = isa_qw_field_width((isa_qw_field)i);
    assert_true(w >= 1 && lsb + w <= 64);
    uint64_t m = (w == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << w) - 1)) << lsb;
    assert_true((seen & m) == 0); /* no overlap */
    seen |= m;
    total += w;
  }
  assert_true(seen == ~UINT64_C(0));
  assert_int_equal(total, 64);
  /* The named constants agree with the table and with docs/DESIGN.md §5.1. */
  assert_int_equal(isa_qw_field_lsb(ISA_QW_FIELD_N), ISA_QW_N_POS);
  assert_int_equal(isa_qw_field_width(ISA_QW_FIELD_N), ISA_QW_N_WIDTH);
  assert_int_equal(isa_qw_field_lsb(ISA_QW_FIELD_MCB), ISA_QW_MCB_POS);
  assert_int_equal(isa_qw_field_lsb(ISA_QW_FIELD_OFFSET), ISA_QW_OFFSET_POS);
  assert_int_equal(isa_qw_field_width(ISA_QW_FIELD_OFFSET), ISA_QW_OFFSET_WIDTH);
  assert_int_equal(isa_qw_field_lsb(ISA_QW_FIELD_S), ISA_QW_S_POS);
  assert_int_equal(isa_qw_field_lsb(ISA_QW_FIELD_IGNORED), ISA_QW_IGNORED_POS);
  assert_int_equal(isa_qw_field_width(ISA_QW_FIELD_IGNORED), ISA_QW_IGNORED_WIDTH);
  assert_int_equal(isa_qw_field_lsb(ISA_QW_FIELD_SCALE_MANT), ISA_QW_SCALE_KEPT_POS);
  /* Masks written out by hand: bits 32-35, 36, 37-45, 46, 47-63. */
  assert_true(ISA_QW_N_MASK == UINT64_C(0xF) << 32);
  assert_true(ISA_QW_MCB_MASK == UINT64_C(1) << 36);
  assert_true(ISA_QW_OFFSET_MASK == UINT64_C(0x1FF) << 37);
  assert_true(ISA_QW_S_MASK == UINT64_C(1) << 46);
  assert_true(ISA_QW_IGNORED_MASK == UINT64_C(0x1FFFF) << 47);
  assert_true((ISA_QW_SCALE_MASK | ISA_QW_N_MASK | ISA_QW_MCB_MASK | ISA_QW_OFFSET_MASK |
               ISA_QW_S_MASK | ISA_QW_IGNORED_MASK) == ~UINT64_C(0));
  assert_true((uint64_t)ISA_QW_SCALE_KEPT_MASK + ISA_QW_SCALE_DROPPED_MASK == 0xFFFFFFFFu);
  /* The documented packer's mask 0x4000FFFFFFFF keeps exactly the scale and S. */
  assert_true(ISA_QW_PACK_KEEP_MASK == (ISA_QW_SCALE_MASK | ISA_QW_S_MASK));
  assert_string_equal(isa_qw_field_name(ISA_QW_FIELD_OFFSET), "offset");
}

static void test_isa_quant_names_and_options(void **state) {
  (void)state;
  isa_qw_scale_rounding sr = ISA_QW_SCALE_TRUNC;
  isa_qw_offset_rounding orr = ISA_QW_OFFSET_HALF_AWAY;
  assert_true(isa_qw_scale_rounding_from_name("rne", &sr));
  assert_int_equal(sr, ISA_QW_SCALE_RNE);
  assert_true(isa_qw_scale_rounding_from_name("none", &sr));
  assert_int_equal(sr, ISA_QW_SCALE_NONE);
  assert_false(isa_qw_scale_rounding_from_name("RNE", &sr));
  assert_false(isa_qw_scale_rounding_from_name(NULL, &sr));
  assert_true(isa_qw_offset_rounding_from_name("half-even", &orr));
  assert_int_equal(orr, ISA_QW_OFFSET_HALF_EVEN);
  assert_false(isa_qw_offset_rounding_from_name("even", &orr));
  assert_string_equal(isa_qw_scale_rounding_name(ISA_QW_SCALE_TRUNC), "trunc");
  assert_string_equal(isa_qw_offset_rounding_name(ISA_QW_OFFSET_HALF_AWAY), "half-away");
  /* Zero-initialised options are the documented packer. */
  isa_qw_pack_opts zero = {0};
  assert_int_equal(zero.scale_rounding, ISA_QW_SCALE_TRUNC);
  assert_int_equal(zero.offset_rounding, ISA_QW_OFFSET_HALF_AWAY);
  assert_string_equal(isa_qw_mode_name(ISA_QW_MODE_REQ8), "REQ8/VREQ8");
  /* DEQF16 reads the scale only; REQ8 everything; QF322B8 scale, offset and S. */
  assert_int_equal(isa_qw_mode_uses(ISA_QW_MODE_DEQF16), ISA_QW_USES_SCALE);
  assert_int_equal(isa_qw_mode_uses(ISA_QW_MODE_REQ8), ISA_QW_USES_SCALE | ISA_QW_USES_SHIFT |
                                                           ISA_QW_USES_OFFSET | ISA_QW_USES_SIGN);
  assert_int_equal(isa_qw_mode_uses(ISA_QW_MODE_QF322B8),
                   ISA_QW_USES_SCALE | ISA_QW_USES_OFFSET | ISA_QW_USES_SIGN);
  assert_string_equal(isa_qw_warning_name(ISA_QW_WARN_INDEX_SIGN_EXTENDED), "sign-extended");
  assert_int_equal(ISA_QW_WARN_OFFSET_CLAMPED, 1u << ISA_QW_WARN_INDEX_OFFSET_CLAMPED);
}

/* ---- packing: the documents' and hand-derived words ---- */

static void test_isa_quant_pack_acceptance_words(void **state) {
  (void)state;
  /* 0.1f = 0x3dcccccd; & 0xFFFFE000 = 0x3dccc000; | 1 << 46 -> 0x40003dccc000. */
  isa_qw_packed p = pack_ok(0.1f, NULL, ISA_QW_SCALE_TRUNC, ISA_QW_OFFSET_HALF_AWAY);
  assert_true(p.fields.word == UINT64_C(0x40003dccc000));
  /* 0x3dccc000 = (1 + 0x266/1024) * 2^-4 = 1638/16384 = 0.0999755859375 exactly. */
  assert_true((double)p.fields.scale_effective == 0.0999755859375);
  assert_true(p.relative_error == (0.0999755859375 - (double)0.1f) / (double)0.1f);
  assert_false(p.has_offset);
  assert_int_equal(p.warnings, 0);
  /* Offset -3: 9 bits 0x1FD, << 37 = 0x3FA000000000 -> 0x7fa03dccc000. */
  float off = -3.0f;
  p = pack_ok(0.1f, &off, ISA_QW_SCALE_TRUNC, ISA_QW_OFFSET_HALF_AWAY);
  assert_true(p.fields.word == UINT64_C(0x7fa03dccc000));
  assert_int_equal(p.fields.offset, -3);
  assert_true(p.has_offset && p.offset_input == -3.0f && p.offset_rounded == -3.0);
  /* 1.0 = 0x3f800000, all low bits clear: 0x40003f800000, exact. */
  p = pack_ok(1.0f, NULL, ISA_QW_SCALE_TRUNC, ISA_QW_OFFSET_HALF_AWAY);
  assert_true(p.fields.word == UINT64_C(0x40003f800000));
  assert_true(p.relative_error == 0.0);
  /* -1.0 = 0xbf800000: the sign stays in bit 31, nothing leaks upward. */
  p = pack_ok(-1.0f, NULL, ISA_QW_SCALE_TRUNC, ISA_QW_OFFSET_HALF_AWAY);
  assert_true(p.fields.word == UINT64_C(0x4000bf800000));
  assert_int_equal(p.warnings, 0);
  /* The smallest and largest normal fp32 pass (trunc keeps the exponent). */
  p = pack_ok(ref_f32_of_bits(0x00800000u), NULL, ISA_QW_SCALE_TRUNC, ISA_QW_OFFSET_HALF_AWAY);
  assert_true(p.fields.word == UINT64_C(0x400000800000));
  p = pack_ok(ref_f32_of_bits(0x7f7fffffu), NULL, ISA_QW_SCALE_TRUNC, ISA_QW_OFFSET_HALF_AWAY);
  assert_true(p.fields.word == UINT64_C(0x40007f7fe000));
}

static void test_isa_quant_pack_scale_rounding_variants(void **state) {
  (void)state;
  struct {
    uint32_t in;
    uint32_t trunc, rne;
  } cases[] = {
      /* 0x3dcccccd: low 13 bits 0x0ccd < 0x1000: rne rounds down, as trunc. */
      {0x3dcccccdu, 0x3dccc000u, 0x3dccc000u},
      /* low bits exactly 0x1000 (a tie), kept lsb (bit 13) 0: stays (even). */
      {0x3f801000u, 0x3f800000u, 0x3f800000u},
      /* a tie with kept lsb 1 (0x3f802000 has bit 13 set): up to the even 0x3f804000. */
      {0x3f803000u, 0x3f802000u, 0x3f804000u},
      /* just above the tie: up. */
      {0x3f801001u, 0x3f800000u, 0x3f802000u},
      /* just below the tie: down. */
      {0x3f800fffu, 0x3f800000u, 0x3f800000u},
      /* 1.99999988: mantissa all ones, rounds up with a carry into the exponent: 2.0. */
      {0x3fffffffu, 0x3fffe000u, 0x40000000u},
      /* the same, negative: -2.0 (the sign is apart from the magnitude). */
      {0xbfffffffu, 0xbfffe000u, 0xc0000000u},
      /* carry into the largest exponent below Inf: 2^127 (0x7f000000). */
      {0x7effffffu, 0x7effe000u, 0x7f000000u},
      /* largest normal with low bits below the tie: stays finite. */
      {0x7f7fefffu, 0x7f7fe000u, 0x7f7fe000u},
      /* the smallest normal with its low bits set, rounding down and up. */
      {0x00800fffu, 0x00800000u, 0x00800000u},
      {0x00801001u, 0x00800000u, 0x00802000u},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    float x = ref_f32_of_bits(cases[i].in);
    isa_qw_packed t = pack_ok(x, NULL, ISA_QW_SCALE_TRUNC, ISA_QW_OFFSET_HALF_AWAY);
    isa_qw_packed r = pack_ok(x, NULL, ISA_QW_SCALE_RNE, ISA_QW_OFFSET_HALF_AWAY);
    isa_qw_packed n = pack_ok(x, NULL, ISA_QW_SCALE_NONE, ISA_QW_OFFSET_HALF_AWAY);
    assert_true(t.fields.word == (S_BIT | cases[i].trunc));
    assert_true(r.fields.word == (S_BIT | cases[i].rne));
    /* none stores all 32 bits; S is still set; the applied scale is the truncated one. */
    assert_true(n.fields.word == (S_BIT | cases[i].in));
    assert_true(ref_f32_bits(n.fields.scale_effective) == cases[i].trunc);
    assert_int_equal(n.warnings, (cases[i].in & 0x1FFFu) ? ISA_QW_WARN_LOW_BITS : 0);
    /* The reference in double agrees with the hand-derived values. */
    assert_true((double)t.fields.scale_effective == ref_fp19((double)x, 0));
    assert_true((double)r.fields.scale_effective == ref_fp19((double)x, 1));
    assert_true(r.relative_error ==
                (ref_fp19((double)x, 1) - (double)x) / (double)x);
  }
}

static void test_isa_quant_pack_offset_rounding_and_clamp(void **state) {
  (void)state;
  struct {
    float in;
    int away, even;
    int clamped_away, clamped_even;
  } cases[] = {
      {2.5f, 3, 2, 0, 0},        {-2.5f, -3, -2, 0, 0},     {3.5f, 4, 4, 0, 0},
      {0.5f, 1, 0, 0, 0},        {-0.5f, -1, 0, 0, 0},      {1.4999999f, 1, 1, 0, 0},
      {254.5f, 255, 254, 0, 0},  {255.4f, 255, 255, 0, 0},  {255.5f, 255, 255, 1, 1},
      {300.0f, 255, 255, 1, 1},  {-255.5f, -256, -256, 0, 0}, {-256.0f, -256, -256, 0, 0},
      /* -256.5: half away -> -257 (clamped); half even -> -256 (fits). */
      {-256.5f, -256, -256, 1, 0}, {-300.0f, -256, -256, 1, 1}, {1e30f, 255, 255, 1, 1},
      {-0.0f, 0, 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    isa_qw_packed a = pack_ok(1.0f, &cases[i].in, ISA_QW_SCALE_TRUNC, ISA_QW_OFFSET_HALF_AWAY);
    isa_qw_packed e = pack_ok(1.0f, &cases[i].in, ISA_QW_SCALE_TRUNC, ISA_QW_OFFSET_HALF_EVEN);
    assert_int_equal(a.fields.offset, cases[i].away);
    assert_int_equal(e.fields.offset, cases[i].even);
    assert_int_equal(a.warnings, cases[i].clamped_away ? ISA_QW_WARN_OFFSET_CLAMPED : 0);
    assert_int_equal(e.warnings, cases[i].clamped_even ? ISA_QW_WARN_OFFSET_CLAMPED : 0);
    uint64_t nine_a = (uint64_t)((unsigned)cases[i].away & 0x1FFu);
    assert_true(a.fields.word == (UINT64_C(0x40003f800000) | nine_a << 37));
  }
  /* Hand-derived words with scale 1.0: 2.5 half-away -> 3 -> 0x6000000000. */
  float o = 2.5f;
  assert_true(pack_ok(1.0f, &o, 0, ISA_QW_OFFSET_HALF_AWAY).fields.word ==
              UINT64_C(0x40603f800000));
  assert_true(pack_ok(1.0f, &o, 0, ISA_QW_OFFSET_HALF_EVEN).fields.word ==
              UINT64_C(0x40403f800000));
  /* 300 -> 255 = 0xFF << 37 = 0x1FE000000000; -300 -> -256 = 0x100 << 37 = 0x200000000000. */
  o = 300.0f;
  isa_qw_packed p = pack_ok(1.0f, &o, 0, 0);
  assert_true(p.fields.word == UINT64_C(0x5fe03f800000));
  assert_true(p.offset_rounded == 300.0);
  o = -300.0f;
  assert_true(pack_ok(1.0f, &o, 0, 0).fields.word == UINT64_C(0x60003f800000));
  /* The extreme field values unpack to the extremes: 255 and -256. */
  o = 255.0f;
  assert_int_equal(isa_qw_offset(pack_ok(1.0f, &o, 0, 0).fields.word), 255);
  o = -256.0f;
  assert_int_equal(isa_qw_offset(pack_ok(1.0f, &o, 0, 0).fields.word), -256);
}

/* Many random scales and offsets against the reference packer; every word unpacks back. */
static void test_isa_quant_pack_random_against_reference(void **state) {
  (void)state;
  uint64_t s = UINT64_C(0x9E3779B97F4A7C15);
  int rne_ties_up = 0, rne_ties_down = 0, offset_ties = 0, clamps = 0;
  for (int it = 0; it < 200000; it++) {
    uint32_t b = (uint32_t)next_rand(&s);
    unsigned exp = (b >> 23) & 0xFFu;
    if (exp == 0 || exp == 0xFF) continue; /* tested as errors elsewhere */
    /* A quarter of the cases put the low 13 bits exactly at a tie. */
    if (it % 4 == 0) b = (b & ~0x1FFFu) | 0x1000u;
    float x = ref_f32_of_bits(b);
    int rne = (it / 4) % 2;
    isa_qw_pack_opts o = {
        .scale_rounding = rne ? ISA_QW_SCALE_RNE : ISA_QW_SCALE_TRUNC,
        .offset_rounding = it % 3 == 0 ? ISA_QW_OFFSET_HALF_EVEN : ISA_QW_OFFSET_HALF_AWAY};
    double want = ref_fp19((double)x, rne);
    /* Past the largest fp19, (2 - 2^-10) * 2^127, rne is an error. */
    if (fabs(want) > ldexp(2.0 - ldexp(1.0, -10), 127)) {
      isa_qw_packed p;
      cs_err e;
      assert_int_equal(isa_qw_pack(x, NULL, &o, &p, &e), CS_EINVAL);
      continue;
    }
    /* Offsets in [-400, 400] in steps of 1/4, so .5 ties are frequent. */
    float off = (float)((int)(next_rand(&s) % 3201) - 1600) / 4.0f;
    int with_offset = it % 5 != 0;
    isa_qw_packed p;
    cs_err e;
    assert_int_equal(isa_qw_pack(x, with_offset ? &off : NULL, &o, &p, &e), CS_OK);
    int clamped = 0;
    uint64_t want_word = S_BIT | ref_scale_field(want);
    if (with_offset)
      want_word |= ref_offset_field(off, o.offset_rounding == ISA_QW_OFFSET_HALF_EVEN, &clamped);
    assert_true(p.fields.word == want_word);
    assert_true((double)p.fields.scale_effective == want);
    assert_true(p.relative_error == (want - (double)x) / (double)x);
    if (with_offset) assert_int_equal(p.fields.offset, clamped);
    if (rne && (b & 0x1FFFu) == 0x1000u) {
      if (ref_f32_bits(p.fields.scale_effective) == (b & 0xFFFFE000u)) rne_ties_down++;
      else rne_ties_up++;
    }
    if (with_offset && off - floorf(off) == 0.5f) offset_ties++;
    if (p.warnings & ISA_QW_WARN_OFFSET_CLAMPED) clamps++;
    /* The truncated word never gets an error larger than 2^-10 relative. */
    if (!rne) assert_true(fabs(p.relative_error) < ldexp(1.0, -10));
    else assert_true(fabs(p.relative_error) <= ldexp(1.0, -11));
    /* Unpacking the word gives back what was packed. */
    isa_qw_fields f;
    isa_qw_unpack(p.fields.word, &f);
    assert_true(f.scale_effective == p.fields.scale_effective);
    assert_int_equal(f.s, 1);
    assert_int_equal(f.n, 0);
    assert_int_equal(f.mcb, 0);
    assert_true(f.ignored_bits == 0);
    assert_int_equal(f.warnings, 0);
  }
  /* The cases that matter occurred often. */
  assert_true(rne_ties_up > 1000 && rne_ties_down > 1000);
  assert_true(offset_ties > 10000 && clamps > 10000);
}

/* ---- unpacking ---- */

/* The value of bits lo..hi of w, bit by bit (an independent reading of the layout). */
static uint64_t bits_of(uint64_t w, int hi, int lo) {
  uint64_t v = 0;
  for (int b = hi; b >= lo; b--) v = v * 2 + ((w >> b) & 1u);
  return v;
}

static void test_isa_quant_unpack_random_words(void **state) {
  (void)state;
  uint64_t s = 12345;
  for (int it = 0; it < 100000; it++) {
    uint64_t w = next_rand(&s);
    isa_qw_fields f;
    isa_qw_unpack(w, &f);
    assert_true(f.word == w);
    assert_true(f.scale_bits == bits_of(w, 31, 0));
    assert_true(f.scale_kept_bits == bits_of(w, 31, 13) * 8192u);
    assert_true(f.scale_dropped_bits == bits_of(w, 12, 0));
    assert_int_equal(f.scale_sign, bits_of(w, 31, 31));
    assert_int_equal(f.scale_exponent, bits_of(w, 30, 23));
    assert_int_equal(f.scale_mantissa, bits_of(w, 22, 13));
    assert_int_equal(f.n, bits_of(w, 35, 32));
    assert_int_equal(f.mcb, bits_of(w, 36, 36));
    int off = (int)bits_of(w, 45, 37);
    if (off >= 256) off -= 512;
    assert_int_equal(f.offset, off);
    assert_int_equal(isa_qw_offset(w), off);
    assert_int_equal(f.s, bits_of(w, 46, 46));
    assert_true(f.ignored_bits == bits_of(w, 63, 47) * (UINT64_C(1) << 47));
    assert_true(ref_f32_bits(isa_qw_scale_effective(w)) == f.scale_kept_bits);
    /* The fields rebuild the word exactly (they cover all 64 bits). */
    uint64_t back = (uint64_t)f.scale_bits + (uint64_t)f.n * (UINT64_C(1) << 32) +
                    (uint64_t)f.mcb * (UINT64_C(1) << 36) +
                    (uint64_t)(off < 0 ? off + 512 : off) * (UINT64_C(1) << 37) +
                    (uint64_t)f.s * (UINT64_C(1) << 46) + f.ignored_bits;
    assert_true(back == w);
  }
}

static void test_isa_quant_unpack_field_boundaries(void **state) {
  (void)state;
  isa_qw_fields f;
  /* Every field at its largest value, one at a time. */
  isa_qw_unpack(UINT64_C(0x0000000F00000000) | S_BIT, &f);
  assert_int_equal(f.n, 15);
  assert_int_equal(f.mcb, 0);
  assert_int_equal(f.offset, 0);
  isa_qw_unpack(UINT64_C(0x0000001000000000) | S_BIT, &f);
  assert_int_equal(f.n, 0);
  assert_int_equal(f.mcb, 1);
  assert_int_equal(f.offset, 0);
  /* offset 0x0FF = 255 (largest), 0x100 = -256 (smallest), 0x1FF = -1, 0x001 = 1. */
  isa_qw_unpack(UINT64_C(0xFF) << 37, &f);
  assert_int_equal(f.offset, 255);
  assert_int_equal(f.s, 0);
  isa_qw_unpack(UINT64_C(0x100) << 37, &f);
  assert_int_equal(f.offset, -256);
  assert_int_equal(f.s, 0);
  isa_qw_unpack(UINT64_C(0x1FF) << 37, &f);
  assert_int_equal(f.offset, -1);
  assert_int_equal(f.mcb, 0);
  isa_qw_unpack(UINT64_C(1) << 37, &f);
  assert_int_equal(f.offset, 1);
  isa_qw_unpack(S_BIT, &f);
  assert_int_equal(f.s, 1);
  assert_int_equal(f.offset, 0);
  assert_true(f.ignored_bits == 0);
  isa_qw_unpack(UINT64_C(1) << 47, &f);
  assert_true(f.ignored_bits == UINT64_C(0x800000000000));
  assert_int_equal(f.s, 0);
  isa_qw_unpack(UINT64_C(1) << 63, &f);
  assert_true(f.ignored_bits == UINT64_C(0x8000000000000000));
  /* Scale bit 13 is the lowest kept bit, bit 12 the highest dropped one. */
  isa_qw_unpack(S_BIT | 0x3f802000u, &f);
  assert_true(f.scale_kept_bits == 0x3f802000u);
  assert_int_equal(f.scale_mantissa, 1);
  assert_true((double)f.scale_effective == 1.0 + 1.0 / 1024);
  isa_qw_unpack(S_BIT | 0x3f801000u, &f);
  assert_true(f.scale_kept_bits == 0x3f800000u);
  assert_true(f.scale_dropped_bits == 0x1000u);
  assert_true(f.scale_effective == 1.0f);
}

static void test_isa_quant_unpack_seed_example_words(void **state) {
  (void)state;
  char buf[1024];
  isa_qw_fields f;
  /* The seed's `(uint64_t)*(int32_t*)&tmp` with tmp = 0.1: raw bits, S clear, low bits set. */
  isa_qw_unpack(UINT64_C(0x3dcccccd), &f);
  assert_int_equal(f.warnings, ISA_QW_WARN_S_CLEAR | ISA_QW_WARN_LOW_BITS);
  assert_true(f.scale_dropped_bits == 0x0ccdu);
  assert_true((double)f.scale_effective == 0.0999755859375);
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_S_CLEAR, &f, NULL, buf, sizeof buf),
                      "bit 46 (S) clear: REQ8/QF322B8 modes would produce uint8");
  assert_string_equal(
      warn_text(ISA_QW_WARN_INDEX_LOW_BITS, &f, NULL, buf, sizeof buf),
      "ignored low scale bits 12..0 set (0x0ccd): the hardware truncates them");

  /* tmp = -0.1: 0xbdcccccd sign-extends into bits 32..63. */
  isa_qw_unpack(UINT64_C(0xffffffffbdcccccd), &f);
  assert_true(f.scale_bits == 0xbdcccccdu);
  assert_true(f.scale_kept_bits == 0xbdccc000u);
  assert_true((double)f.scale_effective == -0.0999755859375);
  assert_int_equal(f.n, 15);
  assert_int_equal(f.mcb, 1);
  assert_int_equal(f.offset, -1);
  assert_int_equal(f.s, 1);
  assert_true(f.ignored_bits == UINT64_C(0xffff800000000000));
  assert_int_equal(f.warnings,
                   ISA_QW_WARN_LOW_BITS | ISA_QW_WARN_HIGH_BITS | ISA_QW_WARN_SIGN_EXTENDED);
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_HIGH_BITS, &f, NULL, buf, sizeof buf),
                      "ignored high bits 47..63 set (0xffff800000000000)");
  assert_string_equal(
      warn_text(ISA_QW_WARN_INDEX_SIGN_EXTENDED, &f, NULL, buf, sizeof buf),
      "bits 32..63 are all ones and bit 31 is set: the word looks like a negative fp32 scale "
      "(-0.1, 0xbdcccccd) cast through int32_t and sign-extended, as in "
      "(uint64_t)*(int32_t*)&scale; the extension sets N = 15 and MCB = 1 (REQ8 shifts the "
      "int32 right by 15 and saturates it to int16 before the multiply), offset = -1 "
      "(REQ8/QF322B8 subtract 1 from every output), S = 1 (int8 output) and every ignored bit "
      "47..63; build the word with `cubesim quant pack --scale -0.1` instead");

  /* Not sign-extension: high word all ones but bit 31 clear; bit 31 set but high word 0. */
  isa_qw_unpack(UINT64_C(0xffffffff3dcccccd), &f);
  assert_int_equal(f.warnings, ISA_QW_WARN_LOW_BITS | ISA_QW_WARN_HIGH_BITS);
  isa_qw_unpack(UINT64_C(0xbdcccccd), &f);
  assert_int_equal(f.warnings, ISA_QW_WARN_S_CLEAR | ISA_QW_WARN_LOW_BITS);
  /* A NaN scale sign-extended: explained, but no pack command is suggested. */
  isa_qw_unpack(UINT64_C(0xffffffffffffffff), &f);
  assert_true(f.warnings & ISA_QW_WARN_SIGN_EXTENDED);
  warn_text(ISA_QW_WARN_INDEX_SIGN_EXTENDED, &f, NULL, buf, sizeof buf);
  assert_non_null(strstr(buf, "(nan, 0xffffffff)"));
  assert_null(strstr(buf, "cubesim quant pack"));
  assert_string_equal(strstr(buf, "every ignored bit 47..63"), "every ignored bit 47..63");
  isa_qw_field_explain(ISA_QW_FIELD_SCALE_LOW, &f, buf, sizeof buf);
  assert_string_equal(buf, "bits 12..0 = 0x1fff: ignored by the hardware, which truncates the "
                           "scale to 19 bits");
  /* One bit short of all ones in the high word: not the pattern either. */
  isa_qw_unpack(UINT64_C(0xfffffffebdcccccd), &f);
  assert_int_equal(f.warnings, ISA_QW_WARN_LOW_BITS | ISA_QW_WARN_HIGH_BITS);
}

static void test_isa_quant_unpack_effective_scale_warnings(void **state) {
  (void)state;
  char buf[512];
  isa_qw_fields f;
  isa_qw_unpack(S_BIT, &f);
  assert_int_equal(f.warnings, ISA_QW_WARN_SCALE_ZERO);
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_SCALE_ZERO, &f, NULL, buf, sizeof buf),
                      "the effective (fp19) scale is 0 (bits 31..13 are zero): every output is 0");
  /* Only dropped bits set: the applied scale is still zero. */
  isa_qw_unpack(S_BIT | 0x1FFFu, &f);
  assert_int_equal(f.warnings, ISA_QW_WARN_SCALE_ZERO | ISA_QW_WARN_LOW_BITS);
  isa_qw_unpack(S_BIT | 0x80000000u, &f);
  assert_int_equal(f.warnings, ISA_QW_WARN_SCALE_ZERO);
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_SCALE_ZERO, &f, NULL, buf, sizeof buf),
                      "the effective (fp19) scale is -0 (bits 31..13 are zero): every output is 0");
  /* 0x2000: exponent 0, mantissa10 1: 2^-126 * 2^-10 = 2^-136. */
  isa_qw_unpack(S_BIT | 0x2000u, &f);
  assert_int_equal(f.warnings, ISA_QW_WARN_SCALE_SUBNORMAL);
  assert_true((double)f.scale_effective == ldexp(1.0, -136));
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_SCALE_SUBNORMAL, &f, NULL, buf, sizeof buf),
                      "the effective (fp19) scale 1.1479437019748901e-41 is subnormal "
                      "(exponent 0): how the fixpipe treats it is not documented");
  isa_qw_unpack(S_BIT | 0x7f800000u, &f);
  assert_int_equal(f.warnings, ISA_QW_WARN_SCALE_NONFINITE);
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_SCALE_NONFINITE, &f, NULL, buf, sizeof buf),
                      "the effective (fp19) scale is inf (exponent 255): the fixpipe will produce inf "
                      "(x * scale is +-inf, and NaN where x = 0), as the hardware does");
  isa_qw_unpack(S_BIT | 0xff800000u, &f);
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_SCALE_NONFINITE, &f, NULL, buf, sizeof buf),
                      "the effective (fp19) scale is -inf (exponent 255): the fixpipe will produce inf "
                      "(x * scale is +-inf, and NaN where x = 0), as the hardware does");
  /* A NaN whose payload is only in the dropped bits becomes Inf; one in bit 13 stays NaN. */
  isa_qw_unpack(S_BIT | 0x7f800001u, &f);
  assert_true(isinf(f.scale_effective));
  isa_qw_unpack(S_BIT | 0x7f802000u, &f);
  assert_true(isnan(f.scale_effective));
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_SCALE_NONFINITE, &f, NULL, buf, sizeof buf),
                      "the effective (fp19) scale is NaN (exponent 255)");
  /* The smallest normal is fine. */
  isa_qw_unpack(S_BIT | 0x00800000u, &f);
  assert_int_equal(f.warnings, 0);
}

static void test_isa_quant_offset_clamped_warning_text(void **state) {
  (void)state;
  char buf[512];
  float o = 300.0f;
  isa_qw_packed p = pack_ok(1.0f, &o, 0, ISA_QW_OFFSET_HALF_AWAY);
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_OFFSET_CLAMPED, &p.fields, &p, buf, sizeof buf),
                      "offset clamped: 300 rounds (half-away) to 300, outside [-256, 255]; "
                      "stored 255");
  o = -256.75f;
  p = pack_ok(1.0f, &o, 0, ISA_QW_OFFSET_HALF_EVEN);
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_OFFSET_CLAMPED, &p.fields, &p, buf, sizeof buf),
                      "offset clamped: -256.75 rounds (half-even) to -257, outside [-256, 255]; "
                      "stored -256");
  /* Without the pack result: the general message of the table. */
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_OFFSET_CLAMPED, &p.fields, NULL, buf,
                                sizeof buf),
                      "offset clamped to [-256, 255]");
  /* A small buffer truncates, never overflows. */
  char small[8];
  assert_int_equal(isa_qw_warning_text(ISA_QW_WARN_INDEX_S_CLEAR, &p.fields, NULL, small,
                                       sizeof small),
                   7);
  assert_string_equal(small, "bit 46 ");
}

/* ---- errors ---- */

static void test_isa_quant_pack_errors_name_the_value(void **state) {
  (void)state;
  const char *rule = "the quant scale must be a finite, non-zero, normal fp32";
  char want[512];
  snprintf(want, sizeof want, "scale 0 (fp32 0x00000000) is zero: %s", rule);
  assert_pack_error(0.0f, NULL, ISA_QW_SCALE_TRUNC, want);
  snprintf(want, sizeof want, "scale -0 (fp32 0x80000000) is zero: %s", rule);
  assert_pack_error(-0.0f, NULL, ISA_QW_SCALE_TRUNC, want);
  snprintf(want, sizeof want, "scale inf (fp32 0x7f800000) is infinite: %s", rule);
  assert_pack_error(ref_f32_of_bits(0x7f800000u), NULL, ISA_QW_SCALE_TRUNC, want);
  snprintf(want, sizeof want, "scale -inf (fp32 0xff800000) is infinite: %s", rule);
  assert_pack_error(ref_f32_of_bits(0xff800000u), NULL, ISA_QW_SCALE_NONE, want);
  snprintf(want, sizeof want, "scale nan (fp32 0x7fc00000) is NaN: %s", rule);
  assert_pack_error(ref_f32_of_bits(0x7fc00000u), NULL, ISA_QW_SCALE_RNE, want);
  /* 1e-40f = 0x000116c2, a subnormal; so is the largest subnormal 0x007fffff. */
  snprintf(want, sizeof want,
           "scale 1e-40 (fp32 0x000116c2) is subnormal (the smallest normal fp32 is "
           "1.17549435e-38): %s",
           rule);
  assert_pack_error(1e-40f, NULL, ISA_QW_SCALE_TRUNC, want);
  snprintf(want, sizeof want,
           "scale 1.1754942e-38 (fp32 0x007fffff) is subnormal (the smallest normal fp32 is "
           "1.17549435e-38): %s",
           rule);
  assert_pack_error(ref_f32_of_bits(0x007fffffu), NULL, ISA_QW_SCALE_TRUNC, want);
  /* rne: the largest fp32 rounds past the largest fp19 (a tie at 0x7f7ff000 too: the kept lsb
   * is odd) to an fp19 infinity. The device packer (trans_quant_param_v2, round mode 1) makes
   * that word, so cubesim makes it too, with the warning; the sign bit stays. */
  const struct {
    uint32_t in;
    uint64_t word;
  } to_inf[] = {{0x7f7fffffu, 0x40007f800000ull}, {0x7f7ff000u, 0x40007f800000ull}, {0xff7ff000u, 0x4000ff800000ull}};
  for (size_t i = 0; i < sizeof to_inf / sizeof to_inf[0]; i++) {
    isa_qw_pack_opts o = {.scale_rounding = ISA_QW_SCALE_RNE};
    isa_qw_packed p;
    cs_err e;
    assert_int_equal(isa_qw_pack(ref_f32_of_bits(to_inf[i].in), NULL, &o, &p, &e), CS_OK);
    assert_int_equal(p.fields.word, to_inf[i].word);
    assert_true(isinf(p.fields.scale_effective));
    assert_int_equal(p.warnings, ISA_QW_WARN_SCALE_NONFINITE);
  }
  /* the largest fp19 itself, and trunc of the largest fp32, stay finite */
  {
    isa_qw_pack_opts o = {.scale_rounding = ISA_QW_SCALE_RNE};
    isa_qw_packed p;
    cs_err e;
    assert_int_equal(isa_qw_pack(ref_f32_of_bits(0x7f7fe000u), NULL, &o, &p, &e), CS_OK);
    assert_int_equal(p.fields.word, 0x40007f7fe000ull);
    assert_int_equal(p.warnings, 0);
    o.scale_rounding = ISA_QW_SCALE_TRUNC;
    assert_int_equal(isa_qw_pack(ref_f32_of_bits(0x7f7fffffu), NULL, &o, &p, &e), CS_OK);
    assert_int_equal(p.fields.word, 0x40007f7fe000ull);
  }
  /* Offsets that are not finite. */
  float nan_off = ref_f32_of_bits(0x7fc00000u), inf_off = ref_f32_of_bits(0xff800000u);
  assert_pack_error(1.0f, &nan_off, ISA_QW_SCALE_TRUNC,
                    "offset nan is not finite: the quant offset must be a finite number (it "
                    "is rounded and clamped to [-256, 255])");
  assert_pack_error(1.0f, &inf_off, ISA_QW_SCALE_TRUNC,
                    "offset -inf is not finite: the quant offset must be a finite number (it "
                    "is rounded and clamped to [-256, 255])");
  /* Out-of-range option values; a NULL err is allowed. */
  isa_qw_pack_opts bad = {.scale_rounding = (isa_qw_scale_rounding)7};
  isa_qw_packed p;
  cs_err e;
  assert_int_equal(isa_qw_pack(1.0f, NULL, &bad, &p, &e), CS_EINVAL);
  assert_string_equal(e.msg, "scale rounding 7 is not one of trunc, rne, none");
  bad = (isa_qw_pack_opts){.offset_rounding = (isa_qw_offset_rounding)9};
  assert_int_equal(isa_qw_pack(1.0f, NULL, &bad, &p, &e), CS_EINVAL);
  assert_string_equal(e.msg, "offset rounding 9 is not one of half-away, half-even");
  assert_int_equal(isa_qw_pack(0.0f, NULL, NULL, &p, NULL), CS_EINVAL);
  /* NULL options are the defaults. */
  assert_int_equal(isa_qw_pack(0.1f, NULL, NULL, &p, &e), CS_OK);
  assert_true(p.fields.word == UINT64_C(0x40003dccc000));
}

/* ---- per-channel ---- */

static void test_isa_quant_pack_array(void **state) {
  (void)state;
  const float scales[3] = {0.1f, 1.0f, -0.5f};
  uint64_t w[3];
  isa_qw_packed d[3];
  cs_err e;
  /* No offsets. -0.5 = 0xbf000000. */
  assert_int_equal(isa_qw_pack_array(scales, 3, NULL, 0, NULL, w, d, &e), CS_OK);
  assert_true(w[0] == UINT64_C(0x40003dccc000));
  assert_true(w[1] == UINT64_C(0x40003f800000));
  assert_true(w[2] == UINT64_C(0x4000bf000000));
  assert_false(d[1].has_offset);
  /* One offset broadcast: -3 -> 0x3FA000000000 in every word. */
  const float one[1] = {-3.0f};
  assert_int_equal(isa_qw_pack_array(scales, 3, one, 1, NULL, w, NULL, &e), CS_OK);
  assert_true(w[0] == UINT64_C(0x7fa03dccc000));
  assert_true(w[1] == UINT64_C(0x7fa03f800000));
  assert_true(w[2] == UINT64_C(0x7fa0bf000000));
  /* One per channel, half to even: 2.5 -> 2, 300 -> 255 (clamped), -1 -> -1. */
  const float per[3] = {2.5f, 300.0f, -1.0f};
  isa_qw_pack_opts even = {.offset_rounding = ISA_QW_OFFSET_HALF_EVEN};
  assert_int_equal(isa_qw_pack_array(scales, 3, per, 3, &even, w, d, &e), CS_OK);
  assert_true(w[0] == (UINT64_C(0x40003dccc000) | UINT64_C(2) << 37));
  assert_true(w[1] == (UINT64_C(0x40003f800000) | UINT64_C(255) << 37));
  assert_true(w[2] == (UINT64_C(0x4000bf000000) | UINT64_C(0x1FF) << 37));
  assert_int_equal(d[1].warnings, ISA_QW_WARN_OFFSET_CLAMPED);
  assert_int_equal(d[0].warnings, 0);
  /* Zero channels is fine. */
  assert_int_equal(isa_qw_pack_array(scales, 0, NULL, 0, NULL, w, NULL, &e), CS_OK);
  /* Wrong offset count. */
  assert_int_equal(isa_qw_pack_array(scales, 3, per, 2, NULL, w, NULL, &e), CS_EINVAL);
  assert_string_equal(e.msg, "2 offsets for 3 scales: give no offset, one (broadcast to every "
                             "channel) or one per channel");
  /* The first bad element is named with its index and value. */
  const float bad[4] = {1.0f, 2.0f, 0.0f, ref_f32_of_bits(0x7fc00000u)};
  assert_int_equal(isa_qw_pack_array(bad, 4, NULL, 0, NULL, w, NULL, &e), CS_EINVAL);
  assert_string_equal(e.msg, "channel 2: scale 0 (fp32 0x00000000) is zero: the quant scale "
                             "must be a finite, non-zero, normal fp32");
  const float bad_off[3] = {1.0f, ref_f32_of_bits(0x7f800000u), 2.0f};
  assert_int_equal(isa_qw_pack_array(scales, 3, bad_off, 3, NULL, w, NULL, &e), CS_EINVAL);
  assert_string_equal(e.msg, "channel 1: offset inf is not finite: the quant offset must be a "
                             "finite number (it is rounded and clamped to [-256, 255])");
}

/* REQ8's pre-shift: N in bits 32..35 and MCB in bit 36, written after the offset (which the
 * documented formula's mask 0x4000FFFFFFFF would otherwise clear). */
static void test_isa_quant_pack_pre_shift(void **state) {
  (void)state;
  isa_qw_pack_opts o = {.n = 4, .mcb = 1};
  isa_qw_packed p;
  cs_err e;
  /* 0.01 = 0x3c23d70a -> 0x3c23c000; S 0x4000_0000_0000, N 4 << 32, MCB 1 << 36. */
  assert_int_equal(isa_qw_pack(0.01f, NULL, &o, &p, &e), CS_OK);
  assert_true(p.fields.word == UINT64_C(0x000040143c23c000));
  assert_int_equal(p.fields.n, 4);
  assert_int_equal(p.fields.mcb, 1);
  assert_int_equal(p.warnings, 0);
  /* With an offset -3 (0x1fd << 37 = 0x3fa0_0000_0000): N and MCB survive. */
  float off = -3.0f;
  o = (isa_qw_pack_opts){.n = 15, .mcb = 1};
  assert_int_equal(isa_qw_pack(0.1f, &off, &o, &p, &e), CS_OK);
  assert_true(p.fields.word == UINT64_C(0x00007fbf3dccc000));
  /* N without MCB: stored, and warned about. */
  o = (isa_qw_pack_opts){.n = 3};
  assert_int_equal(isa_qw_pack(1.0f, NULL, &o, &p, &e), CS_OK);
  assert_true(p.fields.word == UINT64_C(0x000040033f800000));
  assert_int_equal(p.warnings, ISA_QW_WARN_N_UNUSED);
  char buf[256];
  assert_string_equal(warn_text(ISA_QW_WARN_INDEX_N_UNUSED, &p.fields, &p, buf, sizeof buf),
                      "N = 3 is set but MCB = 0: REQ8 ignores N and does not shift the int32");
  /* Out of range. */
  o = (isa_qw_pack_opts){.n = 16, .mcb = 1};
  assert_int_equal(isa_qw_pack(1.0f, NULL, &o, &p, &e), CS_EINVAL);
  assert_string_equal(e.msg, "shift N 16 is out of range: N is 4 bits, 0..15");
  o = (isa_qw_pack_opts){.mcb = 2};
  assert_int_equal(isa_qw_pack(1.0f, NULL, &o, &p, &e), CS_EINVAL);
  assert_string_equal(e.msg, "MCB 2 is out of range: MCB is one bit, 0 or 1");
  /* MCB = 1 with N = 0: x >> 0 saturated to int16, [-32768, 32767]. */
  isa_qw_unpack(UINT64_C(0x000040103f800000), &p.fields);
  isa_qw_field_explain(ISA_QW_FIELD_MCB, &p.fields, buf, sizeof buf);
  assert_string_equal(buf, "MCB bit 36 = 1: REQ8 shifts the int32 right by N = 0 and saturates "
                           "it to int16 before the multiply: M1 applies to floor(x / 1), and "
                           "accumulators outside [-32768, 32767] saturate");
}

/* The scale bits each rounding stores for the inputs isa_qw_pack refuses but the public packers
 * take (isa_qw_check packs them): zero, subnormal, infinite, NaN, and a carry to infinity. */
static void test_isa_quant_scale_store_special_values(void **state) {
  (void)state;
  static const struct {
    uint32_t in, trunc, rne;
  } cases[] = {
      {0x00000000u, 0x00000000u, 0x00000000u}, /* +0 */
      {0x80000000u, 0x80000000u, 0x80000000u}, /* -0 */
      /* subnormals: trunc keeps bits 31..13; the device kernel flushes to a signed zero */
      {0x00123456u, 0x00122000u, 0x00000000u},
      {0x80123456u, 0x80122000u, 0x80000000u},
      /* Inf and NaN: the kernel truncates them (no carry into the sign) */
      {0x7f800000u, 0x7f800000u, 0x7f800000u},
      {0xff800000u, 0xff800000u, 0xff800000u},
      {0x7fffffffu, 0x7fffe000u, 0x7fffe000u},
      /* the largest normal rounds up to infinity */
      {0x7f7fffffu, 0x7f7fe000u, 0x7f800000u},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(isa_qw_scale_store(cases[i].in, ISA_QW_SCALE_TRUNC), cases[i].trunc);
    assert_int_equal(isa_qw_scale_store(cases[i].in, ISA_QW_SCALE_RNE), cases[i].rne);
    assert_int_equal(isa_qw_scale_store(cases[i].in, ISA_QW_SCALE_NONE), cases[i].in);
  }
  /* Offsets lose the sign of zero: -0.4 rounds to +0 either way. */
  assert_false(signbit(isa_qw_offset_round(-0.4, ISA_QW_OFFSET_HALF_EVEN)));
  assert_false(signbit(isa_qw_offset_round(-0.4, ISA_QW_OFFSET_HALF_AWAY)));
  assert_true(isa_qw_offset_round(-2.5, ISA_QW_OFFSET_HALF_EVEN) == -2.0);
  assert_true(isa_qw_offset_round(-2.5, ISA_QW_OFFSET_HALF_AWAY) == -3.0);
  assert_int_equal(isa_qw_offset_clamp(-300.0), -256);
  assert_int_equal(isa_qw_offset_clamp(255.0), 255);
  assert_int_equal(isa_qw_offset_clamp(256.0), 255);
}

/* ---- explanations ---- */

static void test_isa_quant_explanations(void **state) {
  (void)state;
  char buf[1024];
  isa_qw_fields f;
  isa_qw_unpack(UINT64_C(0x7fa03dccc000), &f);
  isa_qw_scale_explain(&f, buf, sizeof buf);
  assert_string_equal(buf, "M1 = +1.599609375 x 2^-4 = 0.0999755859375 (fp32 bits 0x3dccc000, "
                           "all kept)");
  isa_qw_field_explain(ISA_QW_FIELD_OFFSET, &f, buf, sizeof buf);
  assert_string_equal(buf, "offset bits 45..37 = 0x1fd = -3 (9-bit two's complement): "
                           "REQ8/QF322B8 compute clamp(rne(y), -256, 255) - 3 before saturating; "
                           "DEQF16 ignores it");
  isa_qw_field_explain(ISA_QW_FIELD_SCALE_EXP, &f, buf, sizeof buf);
  assert_string_equal(buf, "exponent bits 30..23 = 123: 2^(123 - 127) = 2^-4");
  isa_qw_field_explain(ISA_QW_FIELD_SCALE_MANT, &f, buf, sizeof buf);
  assert_string_equal(buf, "mantissa bits 22..13 = 0x266: significand 1.599609375 (1 + 614/1024)");
  isa_qw_field_explain(ISA_QW_FIELD_N, &f, buf, sizeof buf);
  assert_string_equal(buf, "N bits 35..32 = 0: not used, because MCB = 0 (REQ8 reads N only "
                           "with MCB = 1)");
  isa_qw_field_explain(ISA_QW_FIELD_S, &f, buf, sizeof buf);
  assert_string_equal(buf, "S bit 46 = 1: REQ8/QF322B8 produce signed int8, clamped to "
                           "[-128, 127]; DEQF16 ignores it");
  isa_qw_mode_note(ISA_QW_MODE_DEQF16, &f, buf, sizeof buf);
  assert_string_equal(buf, "int32 -> fp16: out = fp16_rne(fp32(x) * 0.0999755859375), "
                           "saturating; offset, S, N and MCB are ignored");
  isa_qw_mode_note(ISA_QW_MODE_REQ8, &f, buf, sizeof buf);
  assert_string_equal(buf, "int32 -> int8/uint8: no pre-shift (MCB = 0); q = clamp(rne(fp32(x) "
                           "* 0.0999755859375), -256, 255) - 3; out = clamp(q, -128, 127) "
                           "(S = 1: int8)");
  isa_qw_mode_note(ISA_QW_MODE_QF322B8, &f, buf, sizeof buf);
  assert_string_equal(buf, "fp32 -> int8/uint8: q = clamp(rne(x * 0.0999755859375), -256, 255) "
                           "- 3; out = clamp(q, -128, 127) (S = 1: int8); N and MCB are ignored");

  isa_qw_unpack(UINT64_C(0xffffffffbdcccccd), &f);
  isa_qw_scale_explain(&f, buf, sizeof buf);
  assert_string_equal(buf, "M1 = -1.599609375 x 2^-4 = -0.0999755859375 (fp32 bits 0xbdcccccd "
                           "= -0.1; the hardware keeps 0xbdccc000)");
  isa_qw_mode_note(ISA_QW_MODE_REQ8, &f, buf, sizeof buf);
  assert_string_equal(buf, "int32 -> int8/uint8: x = sat_int16(x >> 15); q = clamp(rne(fp32(x) "
                           "* -0.0999755859375), -256, 255) - 1; out = clamp(q, -128, 127) "
                           "(S = 1: int8)");
  isa_qw_field_explain(ISA_QW_FIELD_MCB, &f, buf, sizeof buf);
  /* x >> 15 fits int16 for x in [-32768 * 2^15, 32768 * 2^15 - 1] = [-2^30, 2^30 - 1]. */
  assert_string_equal(buf, "MCB bit 36 = 1: REQ8 shifts the int32 right by N = 15 and saturates "
                           "it to int16 before the multiply: M1 applies to floor(x / 32768), and "
                           "accumulators outside [-1073741824, 1073741823] saturate");
  isa_qw_field_explain(ISA_QW_FIELD_IGNORED, &f, buf, sizeof buf);
  assert_string_equal(buf, "bits 63..47 = 0x1ffff: ignored by the hardware, but a sign that the "
                           "word was not built by the documented packer");
  isa_qw_field_explain(ISA_QW_FIELD_SCALE_LOW, &f, buf, sizeof buf);
  assert_string_equal(buf, "bits 12..0 = 0x0ccd: ignored by the hardware, which truncates the "
                           "scale to 19 bits (all 32 bits would make it 0.000244 larger in "
                           "magnitude, relative)");
  isa_qw_unpack(UINT64_C(0x3dcccccd), &f);
  isa_qw_mode_note(ISA_QW_MODE_QF322B8, &f, buf, sizeof buf);
  assert_string_equal(buf, "fp32 -> int8/uint8: q = clamp(rne(x * 0.0999755859375), -256, 255) "
                           "+ 0; out = clamp(q, 0, 255) (S = 0: uint8); N and MCB are ignored");
}

static void test_isa_quant_format_fp32(void **state) {
  (void)state;
  char b[40];
  isa_quant_format_fp32(b, sizeof b, 0.1f);
  assert_string_equal(b, "0.1");
  isa_quant_format_fp32(b, sizeof b, 300.0f);
  assert_string_equal(b, "300");
  isa_quant_format_fp32(b, sizeof b, -0.0f);
  assert_string_equal(b, "-0");
  isa_quant_format_fp32(b, sizeof b, 1e-40f);
  assert_string_equal(b, "1e-40");
  isa_quant_format_fp32(b, sizeof b, ref_f32_of_bits(0x7f7fffffu));
  assert_string_equal(b, "3.4028235e+38");
  isa_quant_format_fp32(b, sizeof b, ref_f32_of_bits(0xff800000u));
  assert_string_equal(b, "-inf");
  isa_quant_format_double(b, sizeof b, (double)0.1f);
  assert_string_equal(b, "0.10000000149011612");
  isa_quant_format_double(b, sizeof b, 0.0999755859375);
  assert_string_equal(b, "0.0999755859375");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_isa_quant_field_table_covers_64_bits_once),
      cmocka_unit_test(test_isa_quant_names_and_options),
      cmocka_unit_test(test_isa_quant_pack_acceptance_words),
      cmocka_unit_test(test_isa_quant_pack_scale_rounding_variants),
      cmocka_unit_test(test_isa_quant_pack_offset_rounding_and_clamp),
      cmocka_unit_test(test_isa_quant_pack_random_against_reference),
      cmocka_unit_test(test_isa_quant_unpack_random_words),
      cmocka_unit_test(test_isa_quant_unpack_field_boundaries),
      cmocka_unit_test(test_isa_quant_unpack_seed_example_words),
      cmocka_unit_test(test_isa_quant_unpack_effective_scale_warnings),
      cmocka_unit_test(test_isa_quant_offset_clamped_warning_text),
      cmocka_unit_test(test_isa_quant_pack_errors_name_the_value),
      cmocka_unit_test(test_isa_quant_pack_array),
      cmocka_unit_test(test_isa_quant_pack_pre_shift),
      cmocka_unit_test(test_isa_quant_scale_store_special_values),
      cmocka_unit_test(test_isa_quant_explanations),
      cmocka_unit_test(test_isa_quant_format_fp32),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
