/* Tests of `cubesim quant`: through cli_main on in-memory streams, and end to end through the
 * built binary. Outputs, exit statuses, error lines, and that no file is written on error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cs_npy.h"
#include "support/cli_run.h"
#include "support/tmp_files.h"

/* ---- running the command ---- */

/* A failing run: exit status 2, nothing on stdout, exactly one error line. */
static void assert_fails(cr_result r, const char *line) {
  assert_int_equal(r.status, 2);
  assert_string_equal(r.out, "");
  assert_string_equal(r.err, line);
  cr_free(&r);
}

/* ---- pack ---- */

static void test_cli_quant_pack_json_acceptance(void **state) {
  (void)state;
  cr_result r = cr_run("quant", "pack", "--scale", "0.1", "--json", NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  cr_assert_contains(r.out, "\"word\": \"0x000040003dccc000\"");
  /* fp32 0.1 is 0.100000001490116..., its fp19 0.0999755859375 exactly. */
  cr_assert_contains(r.out, "\"scale\": 0.10000000149011612");
  cr_assert_contains(r.out, "\"scale_effective\": 0.0999755859375");
  /* (0.0999755859375 - 0.100000001490116119384765625) / 0.100000001490116119384765625 */
  cr_assert_contains(r.out, "\"relative_error\": -0.00024415552252299305");
  cr_assert_contains(r.out, "\"offset\": null");
  cr_assert_contains(r.out, "\"warnings\": []");
  cr_assert_contains(r.out, "\"scale_rounding\": \"trunc\"");
  cr_assert_contains(r.out, "\"offset_rounding\": \"half-away\"");
  cr_assert_contains(r.out, "\"sign\": 1");
  cr_assert_contains(r.out, "\"ignored_bits\": \"0x0000000000000000\"");
  cr_free(&r);

  r = cr_run("quant", "pack", "--scale", "0.1", "--offset", "-3", "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"word\": \"0x00007fa03dccc000\"");
  cr_assert_contains(r.out, "\"offset_input\": -3");
  cr_assert_contains(r.out, "\"offset\": -3");
  cr_free(&r);

  /* 1.0 -> 0x40003f800000; offset 2.5 half-even -> 2 -> 0x4000000000. */
  r = cr_run("quant", "pack", "--scale", "1", "--offset", "2.5", "--offset-rounding", "half-even", "--json",
             NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"word\": \"0x000040403f800000\"");
  cr_assert_contains(r.out, "\"relative_error\": 0");
  cr_free(&r);

  /* Offset 300 clamps to 255: a warning, in text and id. */
  r = cr_run("quant", "pack", "--scale=1", "--offset=300", "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"word\": \"0x00005fe03f800000\"");
  cr_assert_contains(r.out, "\"offset clamped: 300 rounds (half-away) to 300, outside [-256, 255]; "
                     "stored 255\"");
  cr_assert_contains(r.out, "\"warning_ids\": [\n    \"offset-clamped\"\n  ]");
  cr_free(&r);
}

static void test_cli_quant_pack_rounding_options(void **state) {
  (void)state;
  /* 0x1.ffffffp+0 = 0x3fffffff: rne carries into the exponent: 2.0 = 0x40000000. */
  cr_result r = cr_run("quant", "pack", "--scale", "0x1.fffffep+0", "--scale-rounding", "rne", "--json",
                       NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"word\": \"0x0000400040000000\"");
  cr_assert_contains(r.out, "\"scale_effective\": 2");
  cr_free(&r);
  /* none keeps the low bits (0x3dcccccd) and S, and warns about them. */
  r = cr_run("quant", "pack", "--scale", "0.1", "--scale-rounding", "none", "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"word\": \"0x000040003dcccccd\"");
  cr_assert_contains(r.out, "\"scale_effective\": 0.0999755859375");
  cr_assert_contains(r.out, "\"ignored low scale bits 12..0 set (0x0ccd): the hardware truncates "
                     "them\"");
  cr_free(&r);
}

static void test_cli_quant_pack_text(void **state) {
  (void)state;
  cr_result r = cr_run("quant", "pack", "--scale", "0.1", "--offset", "-3", NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  cr_assert_contains(r.out, "quant word 0x00007fa03dccc000\n");
  cr_assert_contains(r.out, "  scale in        0.1 = fp32 0x3dcccccd = 0.10000000149011612\n");
  cr_assert_contains(r.out, "  scale applied   0.0999755859375 = fp32 0x3dccc000 (trunc: bits "
                     "12..0 cleared)\n");
  cr_assert_contains(r.out, "  offset          -3, rounded half-away to -3, stored -3 (9 bits: "
                     "0x1fd)\n");
  /* -3 = 0x1fd = 1 1111 1101 in the offset cell; S = 1. */
  cr_assert_contains(r.out, "| 00000000000000000 | 1 | 111111101 |  0  | 0000 |   0   | 01111011 "
                     "| 1001100110 | 0000000000000 |\n");
  cr_assert_contains(r.out, "\nwarnings: none\n");
  cr_free(&r);
}

/* ---- unpack ---- */

static void test_cli_quant_unpack_seed_example(void **state) {
  (void)state;
  cr_result r = cr_run("quant", "unpack", "0x3dcccccd", "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"word\": \"0x000000003dcccccd\"");
  cr_assert_contains(r.out, "\"scale_bits\": \"0x3dcccccd\"");
  cr_assert_contains(r.out, "\"scale_effective\": 0.0999755859375");
  cr_assert_contains(r.out, "\"sign\": 0");
  cr_assert_contains(r.out, "\"warnings\": [\n"
                     "    \"bit 46 (S) clear: REQ8/QF322B8 modes would produce uint8\",\n"
                     "    \"ignored low scale bits 12..0 set (0x0ccd): the hardware "
                     "truncates them\"\n  ]");
  cr_assert_contains(r.out, "\"warning_ids\": [\n    \"s-clear\",\n    \"low-bits\"\n  ]");
  cr_assert_contains(r.out, "\"DEQF16/VDEQF16\": \"int32 -> fp16: out = fp16_rne(fp32(x) * "
                     "0.0999755859375), saturating; offset, S, N and MCB are ignored\"");
  cr_free(&r);
}

static void test_cli_quant_unpack_sign_extended(void **state) {
  (void)state;
  cr_result r = cr_run("quant", "unpack", "0xffffffffbdcccccd", NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  cr_assert_contains(r.out, "quant word 0xffffffffbdcccccd\n");
  /* Bits by hand: 0xbdcccccd = 1 01111011 1001100110 0110011001101; bits 32..63 all ones. */
  cr_assert_contains(r.out, "| 11111111111111111 | 1 | 111111111 |  1  | 1111 |   1   | 01111011 "
                     "| 1001100110 | 0110011001101 |\n");
  cr_assert_contains(r.out, "       ignored        S    offset     MCB    N     sign    exponent   "
                     "mantissa10   low (ignored)\n");
  cr_assert_contains(r.out, "       0x1ffff        1      -1        1     15      -       2^-4     "
                     "  0x266         0x0ccd\n");
  /* Every field it sets is explained. */
  cr_assert_contains(r.out, "  N           N bits 35..32 = 15: REQ8 shifts the int32 right by 15");
  cr_assert_contains(r.out, "  MCB         MCB bit 36 = 1: REQ8 shifts the int32 right by N = 15 "
                     "and saturates it to int16 before\n");
  cr_assert_contains(r.out, "  offset      offset bits 45..37 = 0x1ff = -1 (9-bit two's "
                     "complement)");
  cr_assert_contains(r.out, "  S           S bit 46 = 1: REQ8/QF322B8 produce signed int8");
  cr_assert_contains(r.out, "  ignored     bits 63..47 = 0x1ffff: ignored by the hardware");
  cr_assert_contains(r.out, "\nwarnings (3)\n");
  cr_assert_contains(r.out, "  ! ignored high bits 47..63 set (0xffff800000000000)\n");
  cr_assert_contains(r.out, "  ! bits 32..63 are all ones and bit 31 is set: the word looks like a "
                     "negative fp32 scale (-0.1,\n");
  /* At most 100 columns, no trailing blanks. */
  for (const char *line = r.out; *line;) {
    const char *nl = strchr(line, '\n');
    assert_non_null(nl);
    assert_true(nl - line <= 100);
    if (nl > line) assert_true(nl[-1] != ' ');
    line = nl + 1;
  }
  cr_free(&r);

  /* The same word as an int64 in decimal: -(2^32 - 0xbdcccccd) = -1110651699. */
  r = cr_run("quant", "unpack", "-1110651699", "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"word\": \"0xffffffffbdcccccd\"");
  cr_assert_contains(r.out, "\"n\": 15");
  cr_assert_contains(r.out, "\"mcb\": 1");
  cr_assert_contains(r.out, "\"offset\": -1");
  cr_assert_contains(r.out, "\"ignored_bits\": \"0xffff800000000000\"");
  cr_assert_contains(r.out, "\"sign-extended\"");
  cr_free(&r);

  /* Decimal words: 70369781006336 = 0x40003dccc000. */
  r = cr_run("quant", "unpack", "70369781006336", "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"word\": \"0x000040003dccc000\"");
  cr_assert_contains(r.out, "\"warnings\": []");
  cr_free(&r);
}

/* ---- bad input ---- */

static void test_cli_quant_bad_input(void **state) {
  (void)state;
  const char *rule = "the quant scale must be a finite, non-zero, normal fp32\n";
  char want[512];
  assert_fails(cr_run("quant", "pack", NULL),
               "cubesim quant: error: missing --scale F (or --scale-file S.npy --out W.npy)\n");
  snprintf(want, sizeof want, "cubesim quant: error: scale 0 (fp32 0x00000000) is zero: %s",
           rule);
  assert_fails(cr_run("quant", "pack", "--scale", "0", NULL), want);
  snprintf(want, sizeof want, "cubesim quant: error: scale nan (fp32 0x7fc00000) is NaN: %s",
           rule);
  assert_fails(cr_run("quant", "pack", "--scale", "nan", NULL), want);
  snprintf(want, sizeof want,
           "cubesim quant: error: scale inf (fp32 0x7f800000) is infinite: %s", rule);
  assert_fails(cr_run("quant", "pack", "--scale", "inf", NULL), want);
  snprintf(want, sizeof want,
           "cubesim quant: error: scale 1e-40 (fp32 0x000116c2) is subnormal (the smallest "
           "normal fp32 is 1.17549435e-38): %s",
           rule);
  assert_fails(cr_run("quant", "pack", "--scale", "1e-40", NULL), want);
  assert_fails(cr_run("quant", "pack", "--scale", "1e-50", NULL),
               "cubesim quant: error: --scale 1e-50 underflows to 0 in fp32 (the smallest "
               "normal fp32 is 1.17549435e-38)\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1e39", NULL),
               "cubesim quant: error: --scale 1e39 is out of the fp32 range (the largest finite "
               "fp32 is 3.40282347e+38)\n");
  assert_fails(cr_run("quant", "pack", "--scale", "0.1x", NULL),
               "cubesim quant: error: --scale: '0.1x' is not a number\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1", "--offset", "nan", NULL),
               "cubesim quant: error: offset nan is not finite: the quant offset must be a "
               "finite number (it is rounded and clamped to [-256, 255])\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1", "--bogus", NULL),
               "cubesim quant pack: error: unknown option '--bogus' (cubesim quant pack --help "
               "lists them)\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1", "--offst", "2", NULL),
               "cubesim quant pack: error: unknown option '--offst' (did you mean '--offset'?)\n");
  assert_fails(cr_run("quant", "pack", "--scale", NULL), "cubesim quant: error: option --scale needs a "
               "value\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1", "--scale", "2", NULL),
               "cubesim quant: error: --scale is given twice\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1", "--scale-rounding", "up", NULL),
               "cubesim quant: error: --scale-rounding 'up' is not one of trunc, rne, none\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1", "--offset-rounding", "even", NULL),
               "cubesim quant: error: --offset-rounding 'even' is not one of half-away, "
               "half-even\n");
  /* rne rounds the largest fp32 up to an fp19 infinity, as the device packer does: the word,
   * and the warning that the fixpipe will produce inf */
  cr_result inf = cr_run("quant", "pack", "--scale", "3.4028234663852886e+38", "--scale-rounding", "rne", NULL);
  cr_assert_ok(&inf);
  cr_assert_prefix(inf.out, "quant word 0x000040007f800000\n");
  cr_assert_contains(inf.out, "  scale applied   inf = fp32 0x7f800000 (rne: rounded to 19 bits, ties to even)\n");
  cr_assert_contains(inf.out, "warnings (1)\n  ! the effective (fp19) scale is inf (exponent 255): the fixpipe will "
                              "produce inf (x * scale is\n    +-inf, and NaN where x = 0), as the hardware does\n");
  cr_free(&inf);
  assert_fails(cr_run("quant", "pack", "--scale", "1", "--out", "w.npy", NULL),
               "cubesim quant: error: --out goes with --scale-file; --scale prints one word\n");
  assert_fails(cr_run("quant", "pack", "--scale", "1", "stray", NULL),
               "cubesim quant: error: unexpected argument 'stray' (quant pack takes options "
               "only; see cubesim quant pack --help)\n");
  assert_fails(cr_run("quant", "unpack", "xyz", NULL),
               "cubesim quant: error: WORD: 'xyz' is not an unsigned integer (give the word in "
               "hex, 0x..., or in decimal)\n");
  assert_fails(cr_run("quant", "unpack", "0x1ffffffffffffffff", NULL),
               "cubesim quant: error: WORD: '0x1ffffffffffffffff' does not fit in 64 bits "
               "(give the word in hex, 0x..., or in decimal)\n");
  assert_fails(cr_run("quant", "unpack", "-9223372036854775809", NULL),
               "cubesim quant: error: WORD: '-9223372036854775809' does not fit in a signed "
               "64-bit integer (give the word in hex, 0x..., or in decimal)\n");
  assert_fails(cr_run("quant", "unpack", NULL),
               "cubesim quant: error: missing WORD: cubesim quant unpack WORD (hex 0x... or "
               "decimal), or --word-file W.npy\n");
  assert_fails(cr_run("quant", "unpack", "1", "2", NULL),
               "cubesim quant: error: unexpected argument '2': quant unpack takes one WORD\n");
  assert_fails(cr_run("quant", "unpack", "1", "--bogus", NULL),
               "cubesim quant unpack: error: unknown option '--bogus' (cubesim quant unpack "
               "--help lists them)\n");
  assert_fails(cr_run("quant", NULL), "cubesim quant: error: missing pack, unpack, check or diff "
               "(cubesim quant --help)\n");
  assert_fails(cr_run("quant", "frob", NULL), "cubesim quant: error: unknown action 'frob' (cubesim "
               "quant --help lists them)\n");
  assert_fails(cr_run("quant", "unpak", NULL), "cubesim quant: error: unknown action 'unpak' (did you "
               "mean 'unpack'?)\n");
}

static void test_cli_quant_help(void **state) {
  (void)state;
  const char *forms[][2] = {{"--help", NULL}, {"pack", "--help"}, {"unpack", "--help"}};
  const char *starts[] = {"usage: cubesim quant pack   --scale F",
                          "usage: cubesim quant pack --scale F [--offset F]",
                          "usage: cubesim quant unpack WORD [--json]"};
  for (int i = 0; i < 3; i++) {
    cr_result r = cr_run("quant", forms[i][0], forms[i][1], NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_memory_equal(r.out, starts[i], strlen(starts[i]));
    cr_free(&r);
  }
  /* --help wins over other arguments. */
  cr_result r = cr_run("quant", "pack", "--scale", "0", "--help", NULL);
  assert_int_equal(r.status, 0);
  cr_free(&r);
}

/* ---- per-channel files ---- */

static void test_cli_quant_pack_files(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char s_path[128], o_path[128], w_path[128];
  snprintf(s_path, sizeof s_path, "%s/s.npy", d.path);
  snprintf(o_path, sizeof o_path, "%s/o.npy", d.path);
  snprintf(w_path, sizeof w_path, "%s/w.npy", d.path);
  const float scales[6] = {0.1f, 1.0f, -0.5f, 0.003f, 1.5f, 0.25f};
  const float offsets[6] = {-3.0f, 2.5f, 300.0f, -300.0f, 0.0f, 1.0f};
  const size_t shape[2] = {2, 3}, six[1] = {6};
  cs_err e;
  assert_int_equal(cs_npy_write(s_path, CS_NPY_F32, 2, shape, scales, &e), CS_OK);
  assert_int_equal(cs_npy_write(o_path, CS_NPY_F32, 1, six, offsets, &e), CS_OK);

  cr_result r = cr_run("quant", "pack", "--scale-file", s_path, "--offset-file", o_path, "--out", w_path,
                       NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  char want[512];
  snprintf(want, sizeof want, "packed 6 channels of %s into %s (uint64 '<u8', shape (2, 3))\n",
           s_path, w_path);
  cr_assert_contains(r.out, want);
  cr_assert_contains(r.out, "  warnings: 2 (in 2 channels)\n");
  cr_assert_contains(r.out, "    channel 2: offset clamped: 300 rounds (half-away) to 300, outside "
                     "[-256, 255]; stored 255\n");
  /* 0.003f = 0x3b449ba6 -> 0x3b448000 = 0.00299835205078125: the largest error here. */
  cr_assert_contains(r.out, "  max |relative error| 5.49325094e-04 at channel 3 (scale 0.003 "
                     "applied as 0.00299835205078125)\n");
  cr_free(&r);

  cs_npy w;
  assert_int_equal(cs_npy_read(w_path, &w, &e), CS_OK);
  assert_int_equal(w.dtype, CS_NPY_U64);
  assert_int_equal(w.ndim, 2);
  assert_int_equal(w.shape[0], 2);
  assert_int_equal(w.shape[1], 3);
  const uint64_t *words = w.data;
  /* By hand: S | kept scale bits | (offset & 0x1FF) << 37. */
  assert_true(words[0] == UINT64_C(0x7fa03dccc000));                    /* 0.1, -3 */
  assert_true(words[1] == UINT64_C(0x40603f800000));                    /* 1.0, 2.5 -> 3 */
  assert_true(words[2] == UINT64_C(0x5fe0bf000000));                    /* -0.5, 255 */
  assert_true(words[3] == (UINT64_C(0x600000000000) | 0x3b448000u));   /* -256 */
  assert_true(words[4] == UINT64_C(0x40003fc00000));                    /* 1.5, 0 */
  assert_true(words[5] == UINT64_C(0x40203e800000));                    /* 0.25, 1 */
  cs_npy_free(&w);

  /* One offset broadcast, half to even, JSON per channel. */
  const float half[1] = {2.5f};
  assert_int_equal(cs_npy_write(o_path, CS_NPY_F32, 0, NULL, half, &e), CS_OK);
  r = cr_run("quant", "pack", "--scale-file", s_path, "--offset-file", o_path, "--out", w_path,
             "--offset-rounding", "half-even", "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"channels\": 6");
  cr_assert_contains(r.out, "\"warning_count\": 0");
  cr_assert_contains(r.out, "\"max_relative_error_channel\": 3");
  cr_assert_contains(r.out, "\"channel\": 5,\n      \"word\": \"0x000040403e800000\"");
  cr_free(&r);
  assert_int_equal(cs_npy_read(w_path, &w, &e), CS_OK);
  assert_true(((const uint64_t *)w.data)[1] == UINT64_C(0x40403f800000)); /* 2.5 -> 2 */
  cs_npy_free(&w);
  assert_int_equal(tf_count_entries(d.path), 3);
  tf_dir_remove(&d);
}

static void test_cli_quant_pack_file_errors_write_nothing(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char s_path[128], o_path[128], w_path[128], want[1024];
  snprintf(s_path, sizeof s_path, "%s/s.npy", d.path);
  snprintf(o_path, sizeof o_path, "%s/o.npy", d.path);
  snprintf(w_path, sizeof w_path, "%s/w.npy", d.path);
  cs_err e;

  /* Scales in fp64. */
  const double dbl[2] = {0.1, 1.0};
  const size_t two[1] = {2}, three[1] = {3};
  assert_int_equal(cs_npy_write(s_path, CS_NPY_F64, 1, two, dbl, &e), CS_OK);
  snprintf(want, sizeof want, "cubesim quant: error: %s: the scales must be fp32 ('<f4'), not "
           "float64 ('<f8'); save them with arr.astype(np.float32)\n", s_path);
  assert_fails(cr_run("quant", "pack", "--scale-file", s_path, "--out", w_path, NULL), want);

  /* A truncated scale file: header says 3 fp32 = 12 bytes, 8 present. */
  const float sc[3] = {0.1f, 0.0f, 2.0f};
  assert_int_equal(cs_npy_write(s_path, CS_NPY_F32, 1, three, sc, &e), CS_OK);
  FILE *f = fopen(s_path, "r+b");
  assert_non_null(f);
  /* The header: 10 + 57 dict bytes + '\n' = 68, padded to 128. */
  assert_int_equal(ftruncate(fileno(f), 128 + 8), 0);
  fclose(f);
  snprintf(want, sizeof want, "cubesim quant: error: %s: truncated: header says 12 bytes of "
           "data, file has 8\n", s_path);
  assert_fails(cr_run("quant", "pack", "--scale-file", s_path, "--out", w_path, NULL), want);

  /* A zero scale in channel 1. */
  assert_int_equal(cs_npy_write(s_path, CS_NPY_F32, 1, three, sc, &e), CS_OK);
  snprintf(want, sizeof want, "cubesim quant: error: %s: channel 1: scale 0 (fp32 0x00000000) "
           "is zero: the quant scale must be a finite, non-zero, normal fp32\n", s_path);
  assert_fails(cr_run("quant", "pack", "--scale-file", s_path, "--out", w_path, NULL), want);

  /* Two offsets for three scales. */
  const float good[3] = {0.1f, 1.0f, 2.0f};
  assert_int_equal(cs_npy_write(s_path, CS_NPY_F32, 1, three, good, &e), CS_OK);
  assert_int_equal(cs_npy_write(o_path, CS_NPY_F32, 1, two, good, &e), CS_OK);
  snprintf(want, sizeof want, "cubesim quant: error: %s: 2 offsets for 3 scales in %s: give one "
           "offset (broadcast) or one per scale\n", o_path, s_path);
  assert_fails(cr_run("quant", "pack", "--scale-file", s_path, "--offset-file", o_path, "--out", w_path,
                      NULL), want);
  /* Offsets in int32. */
  const int32_t ioff[3] = {1, 2, 3};
  assert_int_equal(cs_npy_write(o_path, CS_NPY_I32, 1, three, ioff, &e), CS_OK);
  snprintf(want, sizeof want, "cubesim quant: error: %s: the offsets must be fp32 ('<f4'), not "
           "int32 ('<i4'); save them with arr.astype(np.float32)\n", o_path);
  assert_fails(cr_run("quant", "pack", "--scale-file", s_path, "--offset-file", o_path, "--out", w_path,
                      NULL), want);

  /* Missing files and missing --out. */
  char missing[160];
  snprintf(missing, sizeof missing, "%s/none.npy", d.path);
  snprintf(want, sizeof want, "cubesim quant: error: %s: cannot open: No such file or "
           "directory\n", missing);
  assert_fails(cr_run("quant", "pack", "--scale-file", missing, "--out", w_path, NULL), want);
  assert_fails(cr_run("quant", "pack", "--scale-file", s_path, NULL),
               "cubesim quant: error: --scale-file needs --out W.npy for the words\n");
  assert_fails(cr_run("quant", "pack", "--scale-file", s_path, "--scale", "1", "--out", w_path, NULL),
               "cubesim quant: error: give either --scale or --scale-file, not both\n");

  /* None of these wrote the output (s.npy and o.npy are all there is). */
  assert_int_equal(tf_count_entries(d.path), 2);
  assert_int_equal(access(w_path, F_OK), -1);
  tf_dir_remove(&d);
}

/* ---- end to end, through the built binary ---- */

static void test_cli_quant_binary_end_to_end(void **state) {
  (void)state;
  int status;
  char *out = cr_shell(CUBESIM_BINARY " quant pack --scale 0.1 --offset -3 --json", &status);
  assert_int_equal(status, 0);
  cr_assert_contains(out, "\"word\": \"0x00007fa03dccc000\"");
  free(out);
  out = cr_shell(CUBESIM_BINARY " quant pack --scale 0 2>&1", &status);
  assert_int_equal(status, 2);
  assert_string_equal(out, "cubesim quant: error: scale 0 (fp32 0x00000000) is zero: the quant "
                           "scale must be a finite, non-zero, normal fp32\n");
  free(out);
  /* The command is listed in the top-level help. */
  out = cr_shell(CUBESIM_BINARY " --help", &status);
  assert_int_equal(status, 0);
  cr_assert_contains(out, "  quant      pack, explain, check and compare fixpipe quant words (one, "
                     "or .npy tensors)\n");
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_quant_pack_json_acceptance),
      cmocka_unit_test(test_cli_quant_pack_rounding_options),
      cmocka_unit_test(test_cli_quant_pack_text),
      cmocka_unit_test(test_cli_quant_unpack_seed_example),
      cmocka_unit_test(test_cli_quant_unpack_sign_extended),
      cmocka_unit_test(test_cli_quant_bad_input),
      cmocka_unit_test(test_cli_quant_help),
      cmocka_unit_test(test_cli_quant_pack_files),
      cmocka_unit_test(test_cli_quant_pack_file_errors_write_nothing),
      cmocka_unit_test(test_cli_quant_binary_end_to_end),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
