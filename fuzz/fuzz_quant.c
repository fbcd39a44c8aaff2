/* fuzz_quant — number parsing (base/cs_parse.c), the quant word's command line (`cubesim quant
 * pack` and `unpack`, through cli_main) and the quant word tools (isa/isa_quant.c,
 * isa/isa_quant_tools.c).
 *
 * The input is text, then optionally a NUL byte and binary words:
 *   TOKEN\nTOKEN\n...      each token parsed as u64, i64, double and bool; the tokens are also
 *                          the arguments of `cubesim quant ...` when the first is pack or
 *                          unpack (options naming files are left out: nothing is read or
 *                          written)
 *   \0 WORDS               little-endian uint64 quant words for unpack, the explanations, the
 *                          summary, the packer check and the diff of the first words against
 *                          the next (at most 4 channels)
 *
 * Promises checked beyond "no crash, no leak": a refused token has a message naming it; a parsed
 * number prints and parses back to itself; the shortest decimal of a float or double reads back
 * bit for bit; a failing command says why on stderr; a scale and offset that isa_qw_pack accepts
 * give the word isa_qw_pack_bits builds from them. */
#include <math.h>

#include "fuzz/fuzz.h"

#include "base/cs_parse.h"
#include "cli/cli.h"
#include "isa/isa_quant.h"
#include "isa/isa_quant_tools.h"

#define MAX_TOKENS 16
#define MAX_WORDS 16
#define MAX_DIFF 4

static void check_double_text(double v) {
  char text[64];
  isa_quant_format_double(text, sizeof text, v);
  double back = strtod(text, NULL);
  FZ_CHECK(isnan(v) ? isnan(back) : memcmp(&back, &v, sizeof v) == 0, "%a printed as %s", v, text);
}

static void check_float_text(float v) {
  char text[64];
  isa_quant_format_fp32(text, sizeof text, v);
  float back = strtof(text, NULL);
  FZ_CHECK(isnan(v) ? isnan(back) : memcmp(&back, &v, sizeof v) == 0, "%a printed as %s", (double)v,
           text);
}

static void parse_token(const char *t) {
  cs_err err;
  uint64_t u;
  int64_t i;
  double d;
  int b;
  char again[32];
  if (cs_parse_u64(t, "TOKEN", &u, &err) == CS_OK) {
    snprintf(again, sizeof again, "%" PRIu64, u);
    uint64_t u2 = 0;
    FZ_CHECK(cs_parse_u64(again, "TOKEN", &u2, &err) == CS_OK && u2 == u, "%s -> %s", t, again);
  } else {
    FZ_CHECK(strstr(err.msg, "TOKEN") != NULL, "the message does not name what: %s", err.msg);
  }
  if (cs_parse_i64(t, "TOKEN", &i, &err) == CS_OK) {
    snprintf(again, sizeof again, "%" PRId64, i);
    int64_t i2 = 0;
    FZ_CHECK(cs_parse_i64(again, "TOKEN", &i2, &err) == CS_OK && i2 == i, "%s -> %s", t, again);
  } else {
    FZ_CHECK(strstr(err.msg, "TOKEN") != NULL, "the message does not name what: %s", err.msg);
  }
  if (cs_parse_double(t, "TOKEN", &d, &err) == CS_OK) {
    check_double_text(d);
    check_float_text((float)d);
  } else {
    FZ_CHECK(strstr(err.msg, "TOKEN") != NULL, "the message does not name what: %s", err.msg);
  }
  if (cs_parse_bool(t, "TOKEN", &b, &err) == CS_OK)
    FZ_CHECK(b == 0 || b == 1, "%s read as %d", t, b);
  else
    FZ_CHECK(strstr(err.msg, "TOKEN") != NULL, "the message does not name what: %s", err.msg);
}

/* An option that would read or write a file. */
static bool names_a_file(const char *t) { return strstr(t, "-file") || strncmp(t, "--out", 5) == 0; }

static void run_command(char **tok, int n) {
  if (n == 0 || (strcmp(tok[0], "pack") != 0 && strcmp(tok[0], "unpack") != 0)) return;
  char *argv[MAX_TOKENS + 3];
  int argc = 0;
  argv[argc++] = "cubesim";
  argv[argc++] = "quant";
  for (int i = 0; i < n; i++) {
    if (names_a_file(tok[i])) return;
    argv[argc++] = tok[i];
  }
  argv[argc] = NULL;
  char *err_text = NULL;
  size_t err_len = 0;
  FILE *err = open_memstream(&err_text, &err_len);
  if (!err) return;
  cli_io io = {fz_devnull(), err};
  int rc = cli_main(&io, argc, argv);
  FZ_CHECK(fclose(err) == 0, "stderr");
  FZ_CHECK(rc == 0 || rc == 2, "exit status %d: %s", rc, err_text);
  if (rc != 0)
    FZ_CHECK(err_len > 0 && err_text[err_len - 1] == '\n', "exit status %d without a message", rc);
  free(err_text);
}

static void explain(uint64_t w) {
  isa_qw_fields f;
  isa_qw_unpack(w, &f);
  FZ_CHECK(f.word == w, "unpack kept another word");
  char buf[1024];
  for (int i = 0; i < ISA_QW_FIELD_COUNT; i++) isa_qw_field_explain((isa_qw_field)i, &f, buf, sizeof buf);
  for (int i = 0; i < ISA_QW_WARN_COUNT; i++)
    if (f.warnings & (1u << i)) isa_qw_warning_text((isa_qw_warn_index)i, &f, NULL, buf, sizeof buf);
  for (int m = 0; m < ISA_QW_MODE_COUNT; m++) isa_qw_mode_note((isa_qw_mode)m, &f, buf, sizeof buf);
  isa_qw_scale_explain(&f, buf, sizeof buf);
  check_float_text(f.scale_effective);

  /* the low half as an fp32 scale, bits 45..37 as an offset, packed as each variant packs */
  float scale, offset = (float)f.offset + (float)(f.n & 3) * 0.25f;
  uint32_t bits = (uint32_t)w;
  memcpy(&scale, &bits, sizeof scale);
  for (int v = 0; v < ISA_QW_VARIANT_COUNT; v++) {
    isa_qw_pack_opts o = isa_qw_variant_opts((isa_qw_variant)v, f.n, f.mcb);
    isa_qw_packed p;
    cs_err e;
    const float *off = f.s ? &offset : NULL;
    if (isa_qw_pack(scale, off, &o, &p, &e) == CS_OK) {
      uint64_t direct = isa_qw_pack_bits(bits, off, &o);
      FZ_CHECK(p.fields.word == direct, "pack %#x: %#" PRIx64 ", pack_bits %#" PRIx64, bits,
               p.fields.word, direct);
      for (int i = 0; i < ISA_QW_WARN_COUNT; i++)
        if (p.warnings & (1u << i)) isa_qw_warning_text((isa_qw_warn_index)i, &p.fields, &p, buf, sizeof buf);
    } else {
      FZ_CHECK(e.msg[0] != '\0', "a refused scale without a message");
    }
  }
}

static void tools(const uint64_t *w, size_t n) {
  isa_qw_summary sum;
  isa_qw_summarize(w, n, &sum);
  FZ_CHECK(sum.channels == n, "summary of %zu channels for %zu words", sum.channels, n);

  float scales[MAX_WORDS], offsets[MAX_WORDS];
  for (size_t i = 0; i < n; i++) {
    uint32_t bits = (uint32_t)w[i];
    memcpy(&scales[i], &bits, sizeof bits);
    offsets[i] = (float)isa_qw_offset(w[i]) * 0.5f;
  }
  isa_qw_check_in in = {.scales = scales, .n = n, .offsets = offsets,
                        .n_offsets = n && (w[0] >> 63) ? n : 0,
                        .n_shift = (unsigned)(w[0] >> 32) & 15u, .mcb = (unsigned)(w[0] >> 36) & 1u};
  isa_qw_check c;
  cs_err err;
  if (isa_qw_check_words(&in, w, &c, &err) == CS_OK) {
    char buf[1024];
    isa_qw_check_tie_text(&c, &in, c.explaining ? c.explaining : c.closest, buf, sizeof buf);
    isa_qw_difference d[ISA_QW_PART_COUNT];
    for (size_t i = 0; i < n && i < 4; i++) isa_qw_explain_mismatch(&in, i, c.reference, w[i], d);
  } else {
    FZ_CHECK(err.msg[0] != '\0', "a refused check without a message");
  }

  size_t half = n / 2 < MAX_DIFF ? n / 2 : MAX_DIFF; /* each channel a bisection per mode */
  if (!half) return;
  int32_t lo = (int32_t)(uint32_t)(w[0] >> 16), hi = (int32_t)(uint32_t)(w[n - 1] >> 24);
  isa_qw_diff_channel per[MAX_DIFF];
  isa_qw_diff diff;
  if (isa_qw_diff_words(w, w + half, half, lo, hi, per, &diff, &err) == CS_OK)
    FZ_CHECK(diff.channels == half && diff.differing <= half, "%zu of %zu channels differ",
             diff.differing, diff.channels);
  else
    FZ_CHECK(err.msg[0] != '\0', "a refused diff without a message");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t text_len = nul ? (size_t)(nul - data) : size;
  char *text = fz_text(data, text_len);
  if (!text) return 0;
  char *tok[MAX_TOKENS];
  int n = 0;
  for (char *s = text, *next; s && n < MAX_TOKENS; s = next) {
    next = strchr(s, '\n');
    if (next) *next++ = '\0';
    tok[n++] = s;
  }
  for (int i = 0; i < n; i++) parse_token(tok[i]);
  run_command(tok, n);
  free(text);

  if (nul) {
    uint64_t w[MAX_WORDS];
    size_t nw = (size - text_len - 1) / 8;
    if (nw > MAX_WORDS) nw = MAX_WORDS;
    memcpy(w, nul + 1, nw * 8);
    for (size_t i = 0; i < nw; i++) explain(w[i]);
    tools(w, nw);
  }
  return 0;
}
