/* Tests of `cubesim quant unpack --word-file`, `quant check` and `quant diff`, and of REQ8's
 * `quant pack --shift N --mcb B`: tensors of quant words in .npy files. Words are packed in the
 * test by the reference packers of tests/support/ref_num (not by cubesim) or written out by hand;
 * outputs, exit statuses and the one-line errors are asserted exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cs_npy.h"
#include "support/cli_run.h"
#include "support/json_expect.h"
#include "support/quant_inputs.h"
#include "support/ref_num.h"
#include "support/tmp_files.h"

#define CHANNELS 4096
#define S_BIT (UINT64_C(1) << 46)

/* A failing run: exit status 2, nothing on stdout, exactly one error line. */
static void assert_fails(cr_result r, const char *line) {
  assert_int_equal(r.status, 2);
  assert_string_equal(r.out, "");
  assert_string_equal(r.err, line);
  cr_free(&r);
}

/* The files of one test, in a fresh directory. */
typedef struct files {
  tf_dir d;
  char s[128], o[128], w[128], w2[128];
} files;

static void files_make(files *f) {
  tf_dir_make(&f->d);
  tf_join(f->s, sizeof f->s, f->d.path, "s.npy");
  tf_join(f->o, sizeof f->o, f->d.path, "o.npy");
  tf_join(f->w, sizeof f->w, f->d.path, "w.npy");
  tf_join(f->w2, sizeof f->w2, f->d.path, "w2.npy");
}

static void write_1d(const char *path, cs_npy_dtype t, size_t n, const void *data) {
  const size_t shape[1] = {n};
  tf_write_npy(path, t, 1, shape, data);
}

/* The variants, in the order of `quant check`'s table, with their reference roundings. */
static const struct {
  const char *name;
  ref_scale_mode sm;
  bool half_even;
} variants[6] = {
    {"trunc/half-away", REF_SCALE_TRUNC, false}, {"trunc/half-even", REF_SCALE_TRUNC, true},
    {"rne/half-even", REF_SCALE_RNE, true},      {"none/half-away", REF_SCALE_NONE, false},
    {"rne/half-away", REF_SCALE_RNE, false},     {"none/half-even", REF_SCALE_NONE, true},
};

typedef struct tensor {
  float scales[CHANNELS], offsets[CHANNELS];
  uint64_t words[6][CHANNELS];
} tensor;

/* Scales and offsets, and the words every variant packs from them (offsets or not). */
static void make_tensor(tensor *t, uint64_t seed, bool offsets) {
  qi_make(t->scales, t->offsets, CHANNELS, seed);
  for (int v = 0; v < 6; v++)
    for (size_t i = 0; i < CHANNELS; i++)
      t->words[v][i] = ref_pack_word_as(t->scales[i], offsets, t->offsets[i], variants[v].sm,
                                        variants[v].half_even, 0, 0);
}

/* ---- unpack --word-file ---- */

/* Four words by hand: 0.1 packed; its raw fp32 bits; -0.1 sign-extended through int32_t; 2.0
 * with N = 3 but MCB = 0. */
static const uint64_t four_words[4] = {UINT64_C(0x000040003dccc000), UINT64_C(0x000000003dcccccd),
                                       UINT64_C(0xffffffffbdcccccd), UINT64_C(0x0000400340000000)};

static void test_cli_quant_unpack_word_file_text(void **state) {
  (void)state;
  files f;
  files_make(&f);
  const size_t shape[2] = {2, 2};
  tf_write_npy(f.w, CS_NPY_U64, 2, shape, four_words);
  cr_result r = cr_run("quant", "unpack", "--word-file", f.w, NULL);
  cr_assert_ok(&r);
  char want[4096];
  /* 0x3dccc000 = 0.0999755859375; 0xbdcccccd keeps 0xbdccc000; bits 45..37 of the extended
   * word are all ones: offset -1; N 15, MCB 1. */
  snprintf(want, sizeof want,
           "quant words of %s: 4 channels, uint64 ('<u8'), shape (2, 2)\n"
           "\n"
           "channel  word                scale (fp19)              offset  S   N  MCB  warnings\n"
           "      0  0x000040003dccc000  0.0999755859375                0  1   0    0  -\n"
           "      1  0x000000003dcccccd  0.0999755859375                0  0   0    0  "
           "s-clear,low-bits\n"
           "      2  0xffffffffbdcccccd  -0.0999755859375              -1  1  15    1  "
           "low-bits,high-bits,sign-extended\n"
           "      3  0x0000400340000000  2                              0  1   3    0  n-unused\n"
           "\n"
           "summary of 4 channels\n"
           "  scale     smallest -0.0999755859375 (channel 2), largest 2 (channel 3)\n"
           "  offset    -1 .. 0\n"
           "  S         mixed: 1 in 3 channels, 0 in 1\n"
           "  N         mixed: 0 in 2 channels, 3 in 1 channel, 15 in 1 channel\n"
           "  MCB       mixed: 1 in 1 channel, 0 in 3\n"
           "  warnings  in 3 of 4 channels\n"
           "    s-clear, 1 channel: bit 46 (S) clear: REQ8/QF322B8 modes would produce uint8\n"
           "    low-bits, 2 channels: ignored low scale bits 12..0 set: the hardware truncates "
           "them\n"
           "    high-bits, 1 channel: ignored high bits 47..63 set\n"
           "    sign-extended, 1 channel: the word looks like a negative fp32 scale "
           "sign-extended through\n"
           "                              int32_t\n"
           "    n-unused, 1 channel: N is set but MCB = 0: REQ8 ignores N\n",
           f.w);
  assert_string_equal(r.out, want);
  cr_free(&r);

  /* Packed words only: every word alike. */
  const uint64_t same[2] = {UINT64_C(0x000040003f800000), UINT64_C(0x00007fa03dccc000)};
  write_1d(f.w, CS_NPY_U64, 2, same);
  r = cr_run("quant", "unpack", "--word-file", f.w, NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "\n  offset    -3 .. 0\n"
                            "  S         1 in every channel: int8 output (REQ8, QF322B8)\n"
                            "  N         0 in every channel\n"
                            "  MCB       0 in every channel: no REQ8 pre-shift\n"
                            "  warnings  none\n");
  cr_free(&r);
  tf_dir_remove(&f.d);
}

static void test_cli_quant_unpack_word_file_json_int64(void **state) {
  (void)state;
  files f;
  files_make(&f);
  /* The same words as int64: the third is -(2^32 - 0xbdcccccd) = -1110651699. */
  int64_t as_int[4];
  memcpy(as_int, four_words, sizeof as_int);
  assert_true(as_int[2] == -1110651699);
  write_1d(f.w, CS_NPY_I64, 4, as_int);
  cr_result r = cr_run("quant", "unpack", "--word-file", f.w, "--json", NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  assert_string_equal(je_string(root, "dtype"), "int64");
  assert_int_equal(je_u64(root, "channels"), 4);
  assert_int_equal(cs_jcount(cs_jget(root, "per_channel")), 4);
  assert_string_equal(je_string(root, "per_channel[2].word"), "0xffffffffbdcccccd");
  assert_int_equal(je_u64(root, "per_channel[2].n"), 15);
  assert_int_equal(je_u64(root, "per_channel[2].mcb"), 1);
  assert_true(je_number(root, "per_channel[2].offset") == -1);
  assert_true(je_number(root, "per_channel[2].scale_effective") == -0.0999755859375);
  assert_string_equal(je_string(root, "per_channel[1].warning_ids[0]"), "s-clear");
  assert_string_equal(je_string(root, "per_channel[3].warning_ids[0]"), "n-unused");
  assert_int_equal(je_u64(root, "summary.warning_channels.low-bits"), 2);
  assert_int_equal(je_u64(root, "summary.warning_channels.scale-zero"), 0);
  assert_int_equal(je_u64(root, "summary.channels_with_warnings"), 3);
  assert_true(je_number(root, "summary.scale_min") == -0.0999755859375);
  assert_int_equal(je_u64(root, "summary.scale_min_channel"), 2);
  assert_int_equal(je_u64(root, "summary.scale_max_channel"), 3);
  assert_int_equal(je_u64(root, "summary.s.set"), 3);
  bool same = true;
  assert_true(cs_jbool(cs_jget(root, "summary.s.same"), &same) && !same);
  assert_int_equal(je_u64(root, "summary.n.channels[\"15\"]"), 1);
  assert_int_equal(je_u64(root, "summary.n.channels[\"0\"]"), 2);
  cs_jfree(doc);
  cr_free(&r);
  tf_dir_remove(&f.d);
}

/* ---- check ---- */

/* A 4096-channel tensor packed by each variant is named as that variant, with every variant's
 * count of matching channels recounted from the reference words. */
static void test_cli_quant_check_names_each_variant(void **state) {
  (void)state;
  static tensor t;
  files f;
  files_make(&f);
  make_tensor(&t, 0xC4EC1, true);
  write_1d(f.s, CS_NPY_F32, CHANNELS, t.scales);
  write_1d(f.o, CS_NPY_F32, CHANNELS, t.offsets);
  for (int v = 0; v < 6; v++) {
    write_1d(f.w, CS_NPY_U64, CHANNELS, t.words[v]);
    cr_result r = cr_run("quant", "check", "--scale-file", f.s, "--offset-file", f.o,
                         "--word-file", f.w, "--json", NULL);
    cr_assert_ok(&r);
    cs_jdoc *doc = je_parse(r.out, strlen(r.out));
    const cs_jvalue *root = cs_jroot(doc);
    bool explained = false;
    assert_true(cs_jbool(cs_jget(root, "explained"), &explained) && explained);
    assert_int_equal(cs_jcount(cs_jget(root, "explained_by")), 1);
    assert_string_equal(je_string(root, "explained_by[0]"), variants[v].name);
    assert_int_equal(cs_jcount(cs_jget(root, "mismatches")), 0);
    for (int u = 0; u < 6; u++) {
      size_t same = 0;
      for (size_t i = 0; i < CHANNELS; i++) same += t.words[u][i] == t.words[v][i];
      char path[64];
      snprintf(path, sizeof path, "variants[%d].name", u);
      assert_string_equal(je_string(root, path), variants[u].name);
      snprintf(path, sizeof path, "variants[%d].matches", u);
      assert_int_equal(je_u64(root, path), same);
    }
    cs_jfree(doc);
    cr_free(&r);
  }
  /* In text, the verdict names the packer. */
  write_1d(f.w, CS_NPY_U64, CHANNELS, t.words[2]);
  cr_result r = cr_run("quant", "check", "--scale-file", f.s, "--offset-file", f.o,
                       "--word-file", f.w, NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "\nrne/half-even     4096 of 4096  TransQuantParamV2 device kernel, "
                            "round_mode 1\n");
  cr_assert_contains(r.out, "\nexplained by rne/half-even: TransQuantParamV2 device kernel, "
                            "round_mode 1\n");
  cr_free(&r);
  tf_dir_remove(&f.d);
}

/* One corrupted channel: reported with its index and the field that differs; exit status 1. */
static void test_cli_quant_check_corrupted_channel(void **state) {
  (void)state;
  static tensor t;
  files f;
  files_make(&f);
  make_tensor(&t, 0xC4EC2, true);
  write_1d(f.s, CS_NPY_F32, CHANNELS, t.scales);
  write_1d(f.o, CS_NPY_F32, CHANNELS, t.offsets);
  uint64_t *w = t.words[2]; /* rne/half-even */
  uint64_t good = w[1234];
  w[1234] &= ~S_BIT;
  write_1d(f.w, CS_NPY_U64, CHANNELS, w);
  cr_result r = cr_run("quant", "check", "--scale-file", f.s, "--offset-file", f.o,
                       "--word-file", f.w, NULL);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.err, "");
  cr_assert_contains(r.out, "\nnot explained: no variant reproduces every word; the closest is "
                            "rne/half-even (4095 of 4096\nchannels)\n"
                            "1 channel differs from rne/half-even; 1 matches no variant at all\n");
  char line[512], sc[40], off[40];
  snprintf(sc, sizeof sc, "%.9g", (double)t.scales[1234]);
  snprintf(off, sizeof off, "%.9g", (double)t.offsets[1234]);
  snprintf(line, sizeof line, "channel 1234: word 0x%016llx, rne/half-even packs 0x%016llx",
           (unsigned long long)w[1234], (unsigned long long)good);
  cr_assert_contains(r.out, line);
  cr_assert_contains(r.out, "    - bit 46 clear: uint8 output (REQ8 and QF322B8 clamp to [0, "
                            "255]) where the packers set S = 1\n      (int8, [-128, 127])\n");
  cr_free(&r);

  r = cr_run("quant", "check", "--scale-file", f.s, "--offset-file", f.o, "--word-file", f.w,
             "--json", NULL);
  assert_int_equal(r.status, 1);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  assert_int_equal(cs_jcount(cs_jget(root, "explained_by")), 0);
  assert_string_equal(je_string(root, "reference"), "rne/half-even");
  assert_int_equal(je_u64(root, "closest_matches"), CHANNELS - 1);
  assert_int_equal(je_u64(root, "differing"), 1);
  assert_int_equal(cs_jcount(cs_jget(root, "mismatches")), 1);
  assert_int_equal(je_u64(root, "mismatches[0].channel"), 1234);
  snprintf(line, sizeof line, "0x%016llx", (unsigned long long)good);
  assert_string_equal(je_string(root, "mismatches[0].expected"), line);
  assert_true(je_number(root, "mismatches[0].scale") == (double)t.scales[1234]);
  assert_true(je_number(root, "mismatches[0].offset") == (double)t.offsets[1234]);
  assert_int_equal(cs_jcount(cs_jget(root, "mismatches[0].differences")), 1);
  assert_string_equal(je_string(root, "mismatches[0].differences[0].part"), "s");
  assert_string_equal(je_string(root, "mismatches[0].differences[0].modes[0]"), "REQ8/VREQ8");
  assert_string_equal(je_string(root, "mismatches[0].differences[0].modes[1]"),
                      "QF322B8_PRE/VQF322B8_PRE");
  cs_jfree(doc);
  cr_free(&r);
  tf_dir_remove(&f.d);
}

static void test_cli_quant_check_ties_padding_and_shift(void **state) {
  (void)state;
  files f;
  files_make(&f);
  /* Scales exact in fp19 and no offsets: every variant explains the words. */
  const float exact[5] = {0.5f, 1.0f, -2.0f, 0.375f, 1.5f};
  uint64_t w[16] = {0};
  for (int i = 0; i < 5; i++)
    w[i] = ref_pack_word_as(exact[i], false, 0, REF_SCALE_TRUNC, false, 0, 0);
  write_1d(f.s, CS_NPY_F32, 5, exact);
  write_1d(f.w, CS_NPY_U64, 5, w);
  cr_result r = cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "\nexplained by trunc/half-away, trunc/half-even, rne/half-even, "
                            "none/half-away, rne/half-away and\nnone/half-even equally: without "
                            "offsets the offset rounding does not show; every scale is exact in"
                            "\nfp19 (bits 12..0 clear), so every scale rounding stores the same "
                            "bits\n");
  cr_free(&r);

  /* aclnnTransQuantParam's buffer: 5 words padded with zeros to 16. */
  write_1d(f.w, CS_NPY_U64, 16, w);
  r = cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, "--json", NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  assert_int_equal(je_u64(cs_jroot(doc), "padding_words"), 11);
  assert_int_equal(je_u64(cs_jroot(doc), "channels"), 5);
  assert_int_equal(cs_jcount(cs_jget(cs_jroot(doc), "explained_by")), 6);
  cs_jfree(doc);
  cr_free(&r);
  r = cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "  the last 11 words are zeros after the last channel, as "
                            "aclnnTransQuantParam pads its buffer to a\n  multiple of 16 words: "
                            "not checked\n");
  cr_free(&r);

  /* Words with REQ8's pre-shift N = 2, MCB = 1: explained once check is told to expect it. */
  for (int i = 0; i < 5; i++)
    w[i] = ref_pack_word_as(exact[i], false, 0, REF_SCALE_TRUNC, false, 2, 1);
  write_1d(f.w, CS_NPY_U64, 5, w);
  r = cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, "--shift", "2", "--mcb",
             "1", NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "  every word should carry N = 2 and MCB = 1\n");
  cr_free(&r);
  r = cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, "--json", NULL);
  assert_int_equal(r.status, 1);
  doc = je_parse(r.out, strlen(r.out));
  assert_int_equal(je_u64(cs_jroot(doc), "unmatched"), 5);
  assert_string_equal(je_string(cs_jroot(doc), "mismatches[0].differences[0].part"), "n");
  assert_string_equal(je_string(cs_jroot(doc), "mismatches[0].differences[0].text"),
                      "N = 2 where 0 is expected: REQ8 shifts the int32 right by 2 before the "
                      "multiply");
  assert_string_equal(je_string(cs_jroot(doc), "mismatches[0].differences[1].part"), "mcb");
  cs_jfree(doc);
  cr_free(&r);
  tf_dir_remove(&f.d);
}

/* ---- diff ---- */

/* The truncating and the rounding variant of the same scales: the channels that differ and the
 * largest change of the effective scale, recounted from the reference words. */
static void test_cli_quant_diff_trunc_against_rne(void **state) {
  (void)state;
  static tensor t;
  files f;
  files_make(&f);
  make_tensor(&t, 0xD1FF2, false);
  const uint64_t *a = t.words[0], *b = t.words[2]; /* trunc and rne (no offsets) */
  write_1d(f.w, CS_NPY_U64, CHANNELS, a);
  write_1d(f.w2, CS_NPY_U64, CHANNELS, b);
  cr_result r = cr_run("quant", "diff", f.w, f.w2, "--acc-range", "-300:300", "--json", NULL);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.err, "");
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  size_t differing = 0, max_channel = 0;
  double max_rel = 0;
  const cs_jvalue *per = cs_jget(root, "per_channel");
  for (size_t i = 0; i < CHANNELS; i++) {
    if (a[i] == b[i]) continue;
    /* Listed in order, the scale part only. */
    assert_int_equal(je_u64(cs_jat(per, differing), "channel"), i);
    assert_string_equal(je_string(cs_jat(per, differing), "parts[0]"), "scale");
    assert_int_equal(cs_jcount(cs_jget(cs_jat(per, differing), "parts")), 1);
    differing++;
    double va = (double)ref_word_fp19(a[i]), vb = (double)ref_word_fp19(b[i]);
    if (fabs((vb - va) / va) > max_rel) {
      max_rel = fabs((vb - va) / va);
      max_channel = i;
    }
  }
  assert_true(differing > 0);
  assert_int_equal(cs_jcount(per), differing);
  assert_int_equal(je_u64(root, "differing"), differing);
  assert_int_equal(je_u64(root, "part_channels.scale"), differing);
  assert_int_equal(je_u64(root, "part_channels.offset"), 0);
  assert_true(je_number(root, "max_scale_relative") == max_rel);
  assert_int_equal(je_u64(root, "max_scale_channel"), max_channel);
  /* The largest DEQF16 difference: where it is reported, the reference outputs differ by it. */
  size_t ch = je_u64(root, "deqf16.channel");
  int32_t acc = (int32_t)je_number(root, "deqf16.acc");
  assert_true(acc >= -300 && acc <= 300);
  double da = ref_f16_value(ref_deqf16(a[ch], acc)), db = ref_f16_value(ref_deqf16(b[ch], acc));
  assert_true(je_number(root, "deqf16.max_abs") == fabs(db - da));
  assert_true(je_number(root, "deqf16.a") == da);
  assert_true(je_number(root, "deqf16.b") == db);
  cs_jfree(doc);
  cr_free(&r);

  /* Text: the counts and the largest change in the summary. */
  r = cr_run("quant", "diff", f.w, f.w2, "--acc-range", "-300:300", NULL);
  assert_int_equal(r.status, 1);
  char line[256];
  snprintf(line, sizeof line, "\n%zu of 4096 channels differ: scale in %zu\n", differing,
           differing);
  cr_assert_contains(r.out, line);
  double signed_rel = ((double)ref_word_fp19(b[max_channel]) -
                       (double)ref_word_fp19(a[max_channel])) /
                      fabs((double)ref_word_fp19(a[max_channel]));
  snprintf(line, sizeof line, "largest relative change is %+.4g at channel %zu:", signed_rel,
           max_channel);
  cr_assert_contains(r.out, line);
  cr_free(&r);

  /* A tensor against itself. */
  r = cr_run("quant", "diff", f.w, f.w, NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "2147483647]\n\nthe words are identical\n");
  cr_free(&r);
  tf_dir_remove(&f.d);
}

/* Small words by hand: every part, and the outputs' differences derived by hand. */
static void test_cli_quant_diff_by_hand(void **state) {
  (void)state;
  files f;
  files_make(&f);
  const uint64_t one = S_BIT | 0x3f800000u;
  /* channel 0: scale 1 -> 1 + 2^-10; channel 1: offset 3 -> 2; channel 2: S cleared;
   * channel 3: the same. */
  const uint64_t a[4] = {one, one | UINT64_C(3) << 37, one, one};
  const uint64_t b[4] = {S_BIT | 0x3f802000u, one | UINT64_C(2) << 37, one & ~S_BIT, one};
  write_1d(f.w, CS_NPY_U64, 4, a);
  write_1d(f.w2, CS_NPY_U64, 4, b);
  cr_result r = cr_run("quant", "diff", f.w, f.w2, "--acc-range", "0:1535", NULL);
  assert_int_equal(r.status, 1);
  /* DEQF16 over [0, 1535]: y = x + x/1024 moves by at most 1 on the fp16 grid; REQ8: the
   * offsets differ by 1 at 0 (3 -> 2) until both saturate; S: int8 clamps to 127 what uint8
   * keeps up to 255. */
  cr_assert_contains(r.out, "\n\n3 of 4 channels differ: scale in 1, offset in 1, s in 1\n\n"
                            "effect on the fixpipe's output\n"
                            "  scale    changes in 1 channel; the largest relative change is "
                            "+0.0009766 at channel 0: 1 ->\n"
                            "           1.0009765625\n"
                            "  DEQF16   int32 -> fp16: the outputs differ by up to 1 at "
                            "accumulator ");
  cr_assert_contains(r.out, "  REQ8     int32 -> int8/uint8: the outputs differ by up to 128 at "
                            "accumulator ");
  cr_assert_contains(r.out, "  channel 1: 0x000040603f800000 -> 0x000040403f800000\n"
                            "    - offset 3 -> 2\n"
                            "    = REQ8 outputs differ by up to 1 at accumulator 0: 3 -> 2\n");
  cr_assert_contains(r.out, "  channel 2: 0x000040003f800000 -> 0x000000003f800000\n"
                            "    - S 1 -> 0: int8 -> uint8 output\n"
                            "    = REQ8 outputs differ by up to 128 at accumulator ");
  /* Every accumulator from 255 on gives the largest gap, 127 against 255. */
  cr_assert_contains(r.out, ": 127 -> 255\n");
  cr_assert_contains(r.out, "    - scale 0x3f800000 (1) -> 0x3f802000 (1.0009765625): relative "
                            "+0.0009766, +1 fp19 step\n"
                            "    = DEQF16 outputs differ by up to 1 at accumulator ");
  cr_free(&r);
  tf_dir_remove(&f.d);
}

/* ---- pack --shift --mcb ---- */

static void test_cli_quant_pack_pre_shift(void **state) {
  (void)state;
  /* 0.01 = 0x3c23d70a -> 0x3c23c000; S, N = 4 (4 << 32), MCB (1 << 36): 0x0000401 4 3c23c000. */
  cr_result r = cr_run("quant", "pack", "--scale", "0.01", "--shift", "4", "--mcb", "1", "--json",
                       NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "\"word\": \"0x000040143c23c000\"");
  cr_assert_contains(r.out, "\"n\": 4,\n  \"mcb\": 1,");
  cr_free(&r);
  r = cr_run("quant", "pack", "--scale", "0.01", "--shift", "4", "--mcb", "1", NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "  pre-shift       N = 4, MCB = 1: REQ8 computes sat_int16(x >> 4) "
                            "before the multiply\n");
  /* x >> 4 fits int16 for x in [-32768 * 16, 32768 * 16 - 1]. */
  cr_assert_contains(r.out, "M1 applies to floor(x / 16), and accumulators outside [-524288, "
                            "524287]\n              saturate\n");
  cr_assert_contains(r.out, "\nwarnings: none\n");
  cr_free(&r);
  r = cr_run("quant", "pack", "--scale", "1", "--shift", "3", NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "  ! N = 3 is set but MCB = 0: REQ8 ignores N and does not shift the "
                            "int32\n");
  cr_free(&r);

  /* Per channel, from a file: every word gets N and MCB. */
  files f;
  files_make(&f);
  const float scales[2] = {1.0f, 0.5f};
  write_1d(f.s, CS_NPY_F32, 2, scales);
  r = cr_run("quant", "pack", "--scale-file", f.s, "--out", f.w, "--shift", "15", "--mcb", "1",
             NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "  scale rounding trunc, offset rounding half-away, offsets: none, "
                            "N 15, MCB 1\n");
  cr_free(&r);
  cs_npy w;
  tf_read_npy(f.w, &w);
  assert_true(((const uint64_t *)w.data)[0] == UINT64_C(0x0000401f3f800000));
  assert_true(((const uint64_t *)w.data)[1] == UINT64_C(0x0000401f3f000000));
  cs_npy_free(&w);
  tf_dir_remove(&f.d);

  assert_fails(cr_run("quant", "pack", "--scale", "1", "--shift", "16", NULL),
               "cubesim quant: error: --shift 16 is out of range: N is 4 bits, 0..15 (REQ8 "
               "shifts the int32 right by N)\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1", "--mcb", "2", NULL),
               "cubesim quant: error: --mcb 2 is not 0 or 1 (MCB is one bit: 1 = REQ8 shifts by "
               "N and saturates to int16 before the multiply)\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1", "--shift", "x", NULL),
               "cubesim quant: error: --shift: 'x' is not an unsigned integer\n");
}

/* ---- bad input: one line naming the file, exit status 2, nothing on stdout ---- */

static void test_cli_quant_tensor_bad_inputs(void **state) {
  (void)state;
  files f;
  files_make(&f);
  char want[1024];
  const float scales[4] = {0.5f, 1.0f, 2.0f, 0.25f};
  const uint64_t words[4] = {S_BIT | 0x3f000000u, S_BIT | 0x3f800000u, S_BIT | 0x40000000u,
                             S_BIT | 0x3e800000u};
  write_1d(f.s, CS_NPY_F32, 4, scales);

  /* Words of the wrong dtype. */
  write_1d(f.w, CS_NPY_F32, 4, scales);
  snprintf(want, sizeof want, "cubesim quant: error: %s: quant words must be uint64 ('<u8') or "
           "int64 ('<i8'), not float32 ('<f4'); floats look like scales: cubesim quant pack "
           "--scale-file packs them\n", f.w);
  assert_fails(cr_run("quant", "unpack", "--word-file", f.w, NULL), want);
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, NULL), want);
  assert_fails(cr_run("quant", "diff", f.w, f.w, NULL), want);
  const int32_t ints[4] = {1, 2, 3, 4};
  write_1d(f.w, CS_NPY_I32, 4, ints);
  snprintf(want, sizeof want, "cubesim quant: error: %s: quant words must be uint64 ('<u8') or "
           "int64 ('<i8'), not int32 ('<i4')\n", f.w);
  assert_fails(cr_run("quant", "unpack", "--word-file", f.w, NULL), want);

  /* A truncated word file: 4 words = 32 bytes announced, 24 there (header: 128 bytes). */
  write_1d(f.w, CS_NPY_U64, 4, words);
  assert_int_equal(truncate(f.w, 128 + 24), 0);
  snprintf(want, sizeof want, "cubesim quant: error: %s: truncated: header says 32 bytes of "
           "data, file has 24\n", f.w);
  assert_fails(cr_run("quant", "unpack", "--word-file", f.w, NULL), want);
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, NULL), want);
  assert_fails(cr_run("quant", "diff", f.w, f.w, "--json", NULL), want);

  /* No words at all. */
  write_1d(f.w, CS_NPY_U64, 0, NULL);
  snprintf(want, sizeof want, "cubesim quant: error: %s: holds no words (shape (0,))\n", f.w);
  assert_fails(cr_run("quant", "unpack", "--word-file", f.w, NULL), want);

  /* Words and scales that do not pair up: 3 words for 4 scales. */
  write_1d(f.w, CS_NPY_U64, 3, words);
  snprintf(want, sizeof want, "cubesim quant: error: %s: 3 words (shape (3,)) for 4 scales "
           "(shape (4,)) in %s: give one word per scale\n", f.w, f.s);
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, NULL), want);
  /* 16 words for 4 scales are a padded host buffer only when the padding is zeros. */
  uint64_t padded[16] = {0};
  memcpy(padded, words, sizeof words);
  padded[9] = 1;
  write_1d(f.w, CS_NPY_U64, 16, padded);
  snprintf(want, sizeof want, "cubesim quant: error: %s: 16 words (shape (16,)) for 4 scales "
           "(shape (4,)) in %s: give one word per scale\n", f.w, f.s);
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, NULL), want);
  write_1d(f.w, CS_NPY_U64, 4, words);

  /* Scales: not fp32, truncated, not finite; offsets of the wrong count. */
  const double dbl[4] = {0.5, 1, 2, 0.25};
  write_1d(f.s, CS_NPY_F64, 4, dbl);
  snprintf(want, sizeof want, "cubesim quant: error: %s: the scales must be fp32 ('<f4'), not "
           "float64 ('<f8'); save them with arr.astype(np.float32)\n", f.s);
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, NULL), want);
  write_1d(f.s, CS_NPY_F32, 4, scales);
  assert_int_equal(truncate(f.s, 128 + 15), 0);
  snprintf(want, sizeof want, "cubesim quant: error: %s: truncated: header says 16 bytes of "
           "data, file has 15\n", f.s);
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, NULL), want);
  const float nan_scales[4] = {0.5f, NAN, 2.0f, 0.25f};
  write_1d(f.s, CS_NPY_F32, 4, nan_scales);
  snprintf(want, sizeof want, "cubesim quant: error: %s: channel 1: scale nan is not finite: the "
           "packers take finite scales only\n", f.s);
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, NULL), want);
  write_1d(f.s, CS_NPY_F32, 4, scales);
  write_1d(f.o, CS_NPY_F32, 2, scales);
  snprintf(want, sizeof want, "cubesim quant: error: %s: 2 offsets for 4 scales in %s: give one "
           "offset (broadcast) or one per scale\n", f.o, f.s);
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--offset-file", f.o, "--word-file",
                      f.w, NULL), want);
  const float inf_off[1] = {INFINITY};
  write_1d(f.o, CS_NPY_F32, 1, inf_off);
  snprintf(want, sizeof want, "cubesim quant: error: %s: offset 0: inf is not finite: the "
           "packers take finite offsets only\n", f.o);
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--offset-file", f.o, "--word-file",
                      f.w, NULL), want);

  /* Options. */
  assert_fails(cr_run("quant", "check", "--word-file", f.w, NULL),
               "cubesim quant: error: quant check needs --scale-file S.npy (the scales the words "
               "were packed from)\n");
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, NULL),
               "cubesim quant: error: quant check needs --word-file W.npy (the words to "
               "check)\n");
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--word-file", f.w, "--shift", "16",
                      NULL),
               "cubesim quant: error: --shift 16 is out of range: N is 4 bits, 0..15 (REQ8 "
               "shifts the int32 right by N)\n");
  assert_fails(cr_run("quant", "check", "--scale-file", f.s, "--scale-file", f.s, NULL),
               "cubesim quant: error: --scale-file is given twice\n");
  assert_fails(cr_run("quant", "check", "--bogus", NULL),
               "cubesim quant check: error: unknown option '--bogus' (cubesim quant check --help "
               "lists them)\n");
  assert_fails(cr_run("quant", "unpack", "0x1", "--word-file", f.w, NULL),
               "cubesim quant: error: give either WORD or --word-file W.npy, not both\n");

  /* diff: counts, ranges, arguments. */
  write_1d(f.w2, CS_NPY_U64, 3, words);
  snprintf(want, sizeof want, "cubesim quant: error: %s: 3 words (shape (3,)) where %s has 4 "
           "(shape (4,)): the tensors must have one word per channel each\n", f.w2, f.w);
  assert_fails(cr_run("quant", "diff", f.w, f.w2, NULL), want);
  assert_fails(cr_run("quant", "diff", f.w, f.w, "--acc-range", "5:1", NULL),
               "cubesim quant: error: --acc-range '5:1': LO 5 is above HI 1\n");
  assert_fails(cr_run("quant", "diff", f.w, f.w, "--acc-range", "12", NULL),
               "cubesim quant: error: --acc-range '12' is not LO:HI (two int32 accumulators, "
               "e.g. -65536:65535)\n");
  assert_fails(cr_run("quant", "diff", f.w, f.w, "--acc-range", "0:3000000000", NULL),
               "cubesim quant: error: --acc-range HI 3000000000 is outside int32 [-2147483648, "
               "2147483647]\n");
  assert_fails(cr_run("quant", "diff", f.w, f.w, "--acc-range", "x:1", NULL),
               "cubesim quant: error: --acc-range LO: 'x' is not an integer\n");
  assert_fails(cr_run("quant", "diff", f.w, NULL),
               "cubesim quant: error: quant diff needs two files of words: cubesim quant diff "
               "A.npy B.npy\n");
  snprintf(want, sizeof want, "cubesim quant: error: unexpected argument '%s': quant diff "
           "compares two files, A.npy and B.npy\n", f.w);
  assert_fails(cr_run("quant", "diff", f.w, f.w, f.w, NULL), want);
  tf_dir_remove(&f.d);
}

static void test_cli_quant_tensor_help(void **state) {
  (void)state;
  const char *forms[][2] = {{"check", "--help"}, {"diff", "--help"}, {"--help", NULL}};
  const char *starts[] = {
      "usage: cubesim quant check --scale-file S.npy [--offset-file O.npy] --word-file W.npy\n",
      "usage: cubesim quant diff A.npy B.npy [--acc-range LO:HI] [--json]\n",
      "usage: cubesim quant pack   --scale F [--offset F] [options]        pack one word\n"};
  for (int i = 0; i < 3; i++) {
    cr_result r = cr_run("quant", forms[i][0], forms[i][1], NULL);
    cr_assert_ok(&r);
    cr_assert_prefix(r.out, starts[i]);
    /* Every help line fits 100 columns. */
    for (const char *line = r.out; *line;) {
      const char *nl = strchr(line, '\n');
      assert_non_null(nl);
      assert_true(nl - line <= 100);
      line = nl + 1;
    }
    cr_free(&r);
  }
}

/* The exit statuses of the real process: 0 explained, 1 not, 2 bad input. */
static void test_cli_quant_tensor_binary_exit_statuses(void **state) {
  (void)state;
  files f;
  files_make(&f);
  const float scales[2] = {0.1f, 0.3f};
  uint64_t w[2];
  for (int i = 0; i < 2; i++)
    w[i] = ref_pack_word_as(scales[i], false, 0, REF_SCALE_RNE, false, 0, 0);
  write_1d(f.s, CS_NPY_F32, 2, scales);
  write_1d(f.w, CS_NPY_U64, 2, w);
  char cmd[1024];
  int status;
  snprintf(cmd, sizeof cmd, CUBESIM_BINARY " quant check --scale-file %s --word-file %s", f.s, f.w);
  char *out = cr_shell(cmd, &status);
  assert_int_equal(status, 0);
  /* 0.3 rounds up under rne: only the rne variants explain these words. */
  cr_assert_contains(out, "explained by rne/half-even and rne/half-away equally: without offsets "
                          "the offset rounding does not\nshow\n");
  free(out);
  w[1] ^= 1; /* one low bit, ignored by the hardware but not by a packer */
  write_1d(f.w, CS_NPY_U64, 2, w);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 1);
  free(out);
  snprintf(cmd, sizeof cmd, CUBESIM_BINARY " quant diff %s %s --acc-range 9:1 2>&1", f.w, f.w);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 2);
  assert_string_equal(out, "cubesim quant: error: --acc-range '9:1': LO 9 is above HI 1\n");
  free(out);
  snprintf(cmd, sizeof cmd, CUBESIM_BINARY " quant diff %s %s", f.w, f.w);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 0);
  free(out);
  tf_dir_remove(&f.d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_quant_unpack_word_file_text),
      cmocka_unit_test(test_cli_quant_unpack_word_file_json_int64),
      cmocka_unit_test(test_cli_quant_check_names_each_variant),
      cmocka_unit_test(test_cli_quant_check_corrupted_channel),
      cmocka_unit_test(test_cli_quant_check_ties_padding_and_shift),
      cmocka_unit_test(test_cli_quant_diff_trunc_against_rne),
      cmocka_unit_test(test_cli_quant_diff_by_hand),
      cmocka_unit_test(test_cli_quant_pack_pre_shift),
      cmocka_unit_test(test_cli_quant_tensor_bad_inputs),
      cmocka_unit_test(test_cli_quant_tensor_help),
      cmocka_unit_test(test_cli_quant_tensor_binary_exit_statuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
