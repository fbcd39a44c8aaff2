/* cli_quant — `cubesim quant pack|unpack|check|diff`: the fixpipe quant word, field by field
 * (pack, and unpack of one word, here; tensors of words in cli_quant_tensor.c). */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_json.h"
#include "base/cs_npy.h"
#include "base/cs_parse.h"
#include "cli/cli.h"
#include "cli/cli_quant.h"
#include "isa/isa_num.h"
#include "isa/isa_quant.h"

#define CMD CLI_QUANT_CMD
#define MAX_LISTED_WARNINGS 10

static const char quant_help[] =
    "usage: cubesim quant pack   --scale F [--offset F] [options]        pack one word\n"
    "       cubesim quant pack   --scale-file S.npy [--offset-file O.npy] --out W.npy\n"
    "       cubesim quant unpack WORD [--json]                           explain a word\n"
    "       cubesim quant unpack --word-file W.npy [--json]              a tensor of words\n"
    "       cubesim quant check  --scale-file S.npy [--offset-file O.npy] --word-file W.npy\n"
    "                                                   which packer made these words?\n"
    "       cubesim quant diff   A.npy B.npy [--acc-range LO:HI]        what changes, and what\n"
    "                                                   it does to the fixpipe's output\n"
    "\n"
    "The fixpipe quant word (uint64) carries an fp32 scale truncated to 19 bits, a 9-bit\n"
    "offset, the sign bit S and REQ8's shift N/MCB (docs/DESIGN.md section 5.1). `pack` builds\n"
    "it as Ascend C's SetQuantScalar documents (or as the other public packers do, and with\n"
    "REQ8's pre-shift: --shift N --mcb 1); `unpack` explains every field of a word, or\n"
    "tabulates a tensor of words, and warns about words that were built wrongly; `check` packs\n"
    "given scales with every packer variant cubesim knows and names the one that made the\n"
    "words; `diff` compares two tensors of words field by field and down to the fixpipe's\n"
    "outputs. docs/QUANT_OPS.md tells more; cubesim quant <action> --help gives the details.\n";

static const char pack_help[] =
    "usage: cubesim quant pack --scale F [--offset F] [--scale-rounding R] [--offset-rounding R]\n"
    "                          [--shift N --mcb 0|1] [--json]\n"
    "       cubesim quant pack --scale-file S.npy [--offset-file O.npy | --offset F] --out W.npy\n"
    "                          [--scale-rounding R] [--offset-rounding R] [--shift N --mcb 0|1]\n"
    "                          [--json]\n"
    "\n"
    "Packs a float scale and an optional offset into the fixpipe quant word:\n"
    "  word = (bits(scale) & 0xFFFFE000) | (1 << 46)\n"
    "  o = clamp(round(offset), -256, 255); word = (word & 0x4000FFFFFFFF) | ((o & 0x1FF) << 37)\n"
    "  with a pre-shift, word |= (N << 32) | (MCB << 36)\n"
    "The scale is read as an fp32 and must be finite, non-zero and normal.\n"
    "\n"
    "options:\n"
    "  --scale F               the scale (decimal, or a C99 hex float such as 0x1.99999ap-4)\n"
    "  --offset F              the offset, rounded to an integer and clamped to [-256, 255]\n"
    "  --scale-rounding R      trunc  keep bits 31..13 (default, the documented formula)\n"
    "                          rne    round to 19 bits, nearest, ties to even\n"
    "                                 (TransQuantParamV2's device kernel, round_mode 1); as\n"
    "                                 there, a scale of 3.401993e+38 or more becomes an fp19\n"
    "                                 inf, with a warning: the fixpipe will produce inf\n"
    "                          none   keep all 32 bits; the hardware still truncates\n"
    "                                 (aclnnTransQuantParam's host code)\n"
    "  --offset-rounding R     half-away  half away from zero (default, the documented formula)\n"
    "                          half-even  half to even (TransQuantParamV2's device kernel)\n"
    "  --shift N               REQ8's right shift N, 0..15 (default 0); used when MCB = 1\n"
    "  --mcb 0|1               MCB (default 0): 1 = REQ8 computes sat_int16(x >> N) before\n"
    "                          the multiply; no public packer writes N or MCB\n"
    "  --scale-file S.npy      per-channel scales, fp32 ('<f4'), any shape\n"
    "  --offset-file O.npy     per-channel offsets, fp32: one value (broadcast) or one per scale\n"
    "  --out W.npy             the words, uint64 ('<u8'), with the shape of the scales\n"
    "  --json                  JSON instead of text (per-channel details with --scale-file)\n";

static const char unpack_help[] =
    "usage: cubesim quant unpack WORD [--json]\n"
    "       cubesim quant unpack --word-file W.npy [--json]\n"
    "\n"
    "Explains every field of a fixpipe quant word, what each fixpipe mode does with it, and\n"
    "warns about bits that are set where they should not be (for instance a negative fp32\n"
    "scale cast through int32_t, which sign-extends into the offset, S, N and MCB fields).\n"
    "WORD is hex (0x40003dccc000) or decimal; a negative decimal is read as an int64.\n"
    "With --word-file, a tensor of words (uint64 or int64 .npy, any shape; one word per output\n"
    "channel, in C order) becomes a table, one row per channel (word, effective fp19 scale,\n"
    "offset, S, N, MCB, warnings), and a summary: how many channels carry each warning, the\n"
    "range of the scales and offsets, and whether every word has the same S, N and MCB.\n"
    "\n"
    "options:\n"
    "  --word-file W.npy   the tensor of words\n"
    "  --json              JSON: word, scale_bits, scale_effective, n, mcb, offset, sign (the S\n"
    "                      bit), ignored_bits, warnings, plus each field's and each mode's\n"
    "                      explanation; with --word-file, the summary and every channel\n";

/* ---- Small helpers ---- */

int cli_quant_take_option(cli_io *io, int argc, char **argv, int *i,
                          const cli_quant_opt_row *rows, size_t n_rows, void *args, int *rc) {
  cs_err e;
  for (size_t k = 0; k < n_rows; k++) {
    const char *v;
    int r = cli_opt(argc, argv, i, rows[k].name, &v, &e);
    if (r == 0) continue;
    if (r < 0) {
      *rc = cli_fail(io, CMD, &e);
      return -1;
    }
    const char **slot = (const char **)((char *)args + rows[k].offset);
    if (*slot) {
      *rc = cli_usage_error(io, CMD, "%s is given twice", rows[k].name);
      return -1;
    }
    *slot = v;
    return 1;
  }
  return 0;
}

void cli_quant_wrap(FILE *f, int indent, const char *label, int label_width, const char *text) {
  int hang = indent + label_width;
  int col = fprintf(f, "%*s%-*s", indent, "", label_width, label);
  int first = 1;
  const char *p = text;
  while (*p) {
    while (*p == ' ') p++;
    const char *w = p;
    while (*p && *p != ' ') p++;
    int len = (int)(p - w);
    if (len == 0) break;
    if (!first && col + 1 + len > CLI_QUANT_TEXT_COLUMNS) {
      fprintf(f, "\n%*s", hang, "");
      col = hang;
      first = 1;
    }
    if (!first) col += fprintf(f, " ");
    col += fprintf(f, "%.*s", len, w);
    first = 0;
  }
  fputc('\n', f);
}

static void hex64(char *out, size_t n, uint64_t v) {
  snprintf(out, n, "0x%016llx", (unsigned long long)v);
}

void cli_quant_shape(char *out, size_t out_bytes, int ndim, const size_t *shape) {
  size_t used = (size_t)snprintf(out, out_bytes, "(");
  for (int d = 0; d < ndim && used < out_bytes; d++)
    used += (size_t)snprintf(out + used, out_bytes - used, "%s%zu", d ? ", " : "", shape[d]);
  if (used < out_bytes) snprintf(out + used, out_bytes - used, "%s)", ndim == 1 ? "," : "");
}

void cli_quant_json_num(cs_json *j, double v) {
  if (!isfinite(v)) {
    cs_json_null(j);
    return;
  }
  char s[40];
  isa_quant_format_double(s, sizeof s, v);
  cs_json_raw(j, s);
}

/* ---- The bit diagram, filled in with one word's bits ---- */

typedef struct cell {
  const char *name;
  int hi, lo; /* bit range, hi >= lo */
  char value[24];
  int width; /* inner width in columns */
} cell;

/* Appends to a line buffer (the diagram is built line by line, then printed without trailing
 * blanks). */
typedef struct linebuf {
  char s[256];
  size_t n;
} linebuf;

static void lb_add(linebuf *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lb_add(linebuf *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(l->s + l->n, sizeof l->s - l->n, fmt, ap);
  va_end(ap);
  if (k > 0) l->n += (size_t)k < sizeof l->s - l->n ? (size_t)k : sizeof l->s - 1 - l->n;
}

static void lb_center(linebuf *l, const char *s, int width) {
  int len = (int)strlen(s);
  int left = (width - len) / 2;
  lb_add(l, "%*s%s%*s", left, "", s, width - len - left, "");
}

static void lb_print(FILE *f, linebuf *l) {
  while (l->n > 0 && l->s[l->n - 1] == ' ') l->n--;
  l->s[l->n] = '\0';
  fprintf(f, "%s\n", l->s);
  l->n = 0;
}

static void print_diagram(FILE *f, const isa_qw_fields *q) {
  cell c[] = {
      {"ignored", 63, 47, "", 0}, {"S", 46, 46, "", 0},     {"offset", 45, 37, "", 0},
      {"MCB", 36, 36, "", 0},     {"N", 35, 32, "", 0},     {"sign", 31, 31, "", 0},
      {"exponent", 30, 23, "", 0}, {"mantissa10", 22, 13, "", 0},
      {"low (ignored)", 12, 0, "", 0},
  };
  enum { NCELL = sizeof c / sizeof c[0], SCALE_FIRST = 5 };
  snprintf(c[0].value, sizeof c[0].value, "0x%llx",
           (unsigned long long)(q->ignored_bits >> ISA_QW_IGNORED_POS));
  snprintf(c[1].value, sizeof c[1].value, "%u", q->s);
  snprintf(c[2].value, sizeof c[2].value, "%d", q->offset);
  snprintf(c[3].value, sizeof c[3].value, "%u", q->mcb);
  snprintf(c[4].value, sizeof c[4].value, "%u", q->n);
  snprintf(c[5].value, sizeof c[5].value, "%s", q->scale_sign ? "-" : "+");
  if (q->scale_exponent == 0) snprintf(c[6].value, sizeof c[6].value, "zero/sub");
  else if (q->scale_exponent == 255) snprintf(c[6].value, sizeof c[6].value, "inf/nan");
  else snprintf(c[6].value, sizeof c[6].value, "2^%d", (int)q->scale_exponent - 127);
  snprintf(c[7].value, sizeof c[7].value, "0x%03x", q->scale_mantissa);
  snprintf(c[8].value, sizeof c[8].value, "0x%04x", (unsigned)q->scale_dropped_bits);

  /* Each cell is as wide as its bits, name and value plus a blank each side, widened by one
   * where that centres the bits exactly. The whole diagram is 100 columns wide. */
  for (int i = 0; i < NCELL; i++) {
    int nbits = c[i].hi - c[i].lo + 1;
    int w = nbits;
    if ((int)strlen(c[i].name) > w) w = (int)strlen(c[i].name);
    if ((int)strlen(c[i].value) > w) w = (int)strlen(c[i].value);
    w += 2;
    if ((w - nbits) % 2) w++;
    c[i].width = w;
  }

  linebuf l = {.n = 0};
  /* The scale spans the last four cells: a bracket from their first '+' to their last. */
  int scale_start = 0, scale_span = 1;
  for (int i = 0; i < NCELL; i++) {
    if (i < SCALE_FIRST) scale_start += c[i].width + 1;
    else scale_span += c[i].width + 1;
  }
  static const char title[] = " scale M1 (fp32) ";
  static const char dash[] = "----------------------------------------------------------------";
  int dashes = scale_span - 2 - (int)strlen(title);
  if (dashes < 0) dashes = 0;
  lb_add(&l, "%*s<%.*s%s%.*s>", scale_start, "", dashes / 2, dash, title, dashes - dashes / 2,
         dash);
  lb_print(f, &l);

  /* Bit numbers: the high bit over the cell's first bit, the low bit over its last. */
  for (int i = 0; i < NCELL; i++) {
    char hi[8], lo[8];
    snprintf(hi, sizeof hi, "%d", c[i].hi);
    snprintf(lo, sizeof lo, "%d", c[i].lo);
    int nbits = c[i].hi - c[i].lo + 1;
    int left = (c[i].width - nbits) / 2;
    lb_add(&l, " ");
    if (c[i].hi == c[i].lo) {
      lb_center(&l, hi, c[i].width);
    } else if (left + nbits + left >= (int)(strlen(hi) + strlen(lo)) + 1 + 2 * left) {
      lb_add(&l, "%*s%s%*s%*s", left, "", hi, nbits - (int)strlen(hi), lo, left, "");
    } else {
      lb_add(&l, "%s%*s", hi, c[i].width - (int)strlen(hi), lo);
    }
  }
  lb_print(f, &l);

  for (int row = 0; row < 5; row++) {
    for (int i = 0; i < NCELL; i++) {
      if (row == 0 || row == 2) {
        lb_add(&l, "+%.*s", c[i].width, dash);
      } else if (row == 1) {
        char bits[72];
        int n = 0;
        for (int b = c[i].hi; b >= c[i].lo; b--) bits[n++] = (char)('0' + (q->word >> b & 1));
        bits[n] = '\0';
        lb_add(&l, "|");
        lb_center(&l, bits, c[i].width);
      } else {
        lb_add(&l, " ");
        lb_center(&l, row == 3 ? c[i].name : c[i].value, c[i].width);
      }
    }
    if (row <= 2) lb_add(&l, row == 1 ? "|" : "+");
    lb_print(f, &l);
  }
}

/* Field by field in plain words, the scale summary, each fixpipe mode, and the warnings. */
static void print_explanation(FILE *f, const isa_qw_fields *q, const isa_qw_packed *p) {
  char line[1024];
  unsigned warnings = p ? p->warnings : q->warnings;
  static const struct {
    isa_qw_field id;
    const char *label;
  } order[] = {
      {ISA_QW_FIELD_SCALE_SIGN, "sign"},         {ISA_QW_FIELD_SCALE_EXP, "exponent"},
      {ISA_QW_FIELD_SCALE_MANT, "mantissa10"},   {ISA_QW_FIELD_SCALE_LOW, "low bits"},
      {ISA_QW_FIELD_N, "N"},                     {ISA_QW_FIELD_MCB, "MCB"},
      {ISA_QW_FIELD_OFFSET, "offset"},           {ISA_QW_FIELD_S, "S"},
      {ISA_QW_FIELD_IGNORED, "ignored"},
  };
  isa_qw_scale_explain(q, line, sizeof line);
  fputc('\n', f);
  cli_quant_wrap(f, 0, "scale", 12, line);
  fputs("\nfields\n", f);
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    isa_qw_field_explain(order[i].id, q, line, sizeof line);
    cli_quant_wrap(f, 2, order[i].label, 12, line);
  }
  fputs("\nfixpipe modes (x: the L0C element; M1: the scale above)\n", f);
  for (int m = 0; m < ISA_QW_MODE_COUNT; m++) {
    isa_qw_mode_note((isa_qw_mode)m, q, line, sizeof line);
    cli_quant_wrap(f, 2, isa_qw_mode_name((isa_qw_mode)m), 26, line);
  }
  int count = 0;
  for (int i = 0; i < ISA_QW_WARN_COUNT; i++) count += (warnings >> i) & 1u;
  if (count == 0) {
    fputs("\nwarnings: none\n", f);
    return;
  }
  fprintf(f, "\nwarnings (%d)\n", count);
  for (int i = 0; i < ISA_QW_WARN_COUNT; i++) {
    if (!((warnings >> i) & 1u)) continue;
    isa_qw_warning_text((isa_qw_warn_index)i, q, p, line, sizeof line);
    cli_quant_wrap(f, 2, "! ", 2, line);
  }
}

/* ---- JSON ---- */

static void json_hex32(cs_json *j, const char *key, uint32_t v) {
  char s[16];
  snprintf(s, sizeof s, "0x%08x", (unsigned)v);
  cs_json_member_str(j, key, s);
}

void cli_quant_json_hex64(cs_json *j, const char *key, uint64_t v) {
  char s[24];
  hex64(s, sizeof s, v);
  cs_json_member_str(j, key, s);
}

static void json_warnings(cs_json *j, unsigned warnings, const isa_qw_fields *q,
                          const isa_qw_packed *p) {
  char line[1024];
  cs_json_key(j, "warnings");
  cs_json_arr_begin(j);
  for (int i = 0; i < ISA_QW_WARN_COUNT; i++)
    if ((warnings >> i) & 1u) {
      isa_qw_warning_text((isa_qw_warn_index)i, q, p, line, sizeof line);
      cs_json_str(j, line);
    }
  cs_json_arr_end(j);
  cli_quant_json_warning_ids(j, warnings);
}

void cli_quant_json_warning_ids(cs_json *j, unsigned warnings) {
  cs_json_key(j, "warning_ids");
  cs_json_arr_begin(j);
  for (int i = 0; i < ISA_QW_WARN_COUNT; i++)
    if ((warnings >> i) & 1u) cs_json_str(j, isa_qw_warning_name((isa_qw_warn_index)i));
  cs_json_arr_end(j);
}

void cli_quant_json_fields(cs_json *j, const isa_qw_fields *q) {
  json_hex32(j, "scale_bits", q->scale_bits);
  json_hex32(j, "scale_kept_bits", q->scale_kept_bits);
  char s[16];
  snprintf(s, sizeof s, "0x%04x", (unsigned)q->scale_dropped_bits);
  cs_json_member_str(j, "scale_dropped_bits", s);
  cs_json_key(j, "scale_effective");
  cli_quant_json_num(j, (double)q->scale_effective);
  cs_json_member_uint(j, "scale_sign", q->scale_sign);
  cs_json_member_uint(j, "scale_exponent", q->scale_exponent);
  cs_json_member_uint(j, "scale_mantissa", q->scale_mantissa);
  cs_json_member_uint(j, "n", q->n);
  cs_json_member_uint(j, "mcb", q->mcb);
  cs_json_member_int(j, "offset", q->offset);
  cs_json_member_uint(j, "sign", q->s);
  cli_quant_json_hex64(j, "ignored_bits", q->ignored_bits);
}

static void json_explain(cs_json *j, const isa_qw_fields *q) {
  char line[1024];
  cs_json_key(j, "explain");
  cs_json_obj_begin(j);
  isa_qw_scale_explain(q, line, sizeof line);
  cs_json_member_str(j, "scale", line);
  for (int i = 0; i < ISA_QW_FIELD_COUNT; i++) {
    isa_qw_field_explain((isa_qw_field)i, q, line, sizeof line);
    cs_json_member_str(j, isa_qw_field_name((isa_qw_field)i), line);
  }
  cs_json_obj_end(j);
  cs_json_key(j, "modes");
  cs_json_obj_begin(j);
  for (int m = 0; m < ISA_QW_MODE_COUNT; m++) {
    isa_qw_mode_note((isa_qw_mode)m, q, line, sizeof line);
    cs_json_member_str(j, isa_qw_mode_name((isa_qw_mode)m), line);
  }
  cs_json_obj_end(j);
}

/* ---- unpack ---- */

static int quant_unpack(cli_io *io, int argc, char **argv) {
  const char *token = NULL, *word_file = NULL;
  bool json = false;
  cs_err e;
  for (int i = 1; i < argc; i++) {
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(unpack_help, io->out);
      return 0;
    }
    const char *v;
    int r = cli_opt(argc, argv, &i, "--word-file", &v, &e);
    if (r < 0) return cli_fail(io, CMD, &e);
    if (r > 0) {
      if (word_file) return cli_usage_error(io, CMD, "--word-file is given twice");
      word_file = v;
    } else if (cli_flag(argv, i, "--json")) {
      json = true;
    } else if (argv[i][0] == '-' && argv[i][1] == '-') {
      return cli_unknown_option(io, "quant unpack", argv[i], unpack_help);
    } else if (token) {
      return cli_usage_error(io, CMD, "unexpected argument '%s': quant unpack takes one WORD",
                             argv[i]);
    } else {
      token = argv[i];
    }
  }
  if (token && word_file)
    return cli_usage_error(io, CMD, "give either WORD or --word-file W.npy, not both");
  if (word_file) return cli_quant_unpack_file(io, word_file, json);
  if (!token)
    return cli_usage_error(io, CMD, "missing WORD: cubesim quant unpack WORD (hex 0x... or "
                           "decimal), or --word-file W.npy");
  uint64_t word;
  if (token[0] == '-') {
    int64_t sv;
    if (cs_parse_i64(token, "WORD", &sv, &e) != CS_OK)
      return cli_usage_error(io, CMD, "%s (give the word in hex, 0x..., or in decimal)", e.msg);
    word = (uint64_t)sv;
  } else if (cs_parse_u64(token, "WORD", &word, &e) != CS_OK) {
    return cli_usage_error(io, CMD, "%s (give the word in hex, 0x..., or in decimal)", e.msg);
  }
  isa_qw_fields q;
  isa_qw_unpack(word, &q);
  if (json) {
    cs_json j;
    cs_json_init(&j, io->out, true);
    cs_json_obj_begin(&j);
    cli_quant_json_hex64(&j, "word", word);
    cli_quant_json_fields(&j, &q);
    json_warnings(&j, q.warnings, &q, NULL);
    json_explain(&j, &q);
    cs_json_obj_end(&j);
    return 0;
  }
  char w[24];
  hex64(w, sizeof w, word);
  fprintf(io->out, "quant word %s\n\n", w);
  print_diagram(io->out, &q);
  print_explanation(io->out, &q, NULL);
  return 0;
}

/* ---- pack ---- */

cs_status cli_quant_read_f32(const char *path, const char *what, cs_npy *a, cs_err *err) {
  cs_status st = cs_npy_read(path, a, err);
  if (st != CS_OK) return st;
  if (a->dtype != CS_NPY_F32)
    return cs_err_set(err, CS_EINVAL, "%s: the %s must be fp32 ('<f4'), not %s ('%s'); save "
                      "them with arr.astype(np.float32)", path, what,
                      cs_npy_dtype_name(a->dtype), cs_npy_dtype_descr(a->dtype));
  return CS_OK;
}

cs_status cli_quant_shift_opts(const char *shift, const char *mcb, unsigned *n, unsigned *m,
                               cs_err *err) {
  uint64_t v;
  *n = 0;
  *m = 0;
  if (shift) {
    if (cs_parse_u64(shift, "--shift", &v, err) != CS_OK) return err->code;
    if (v > ISA_QW_N_MAX)
      return cs_err_set(err, CS_EINVAL, "--shift %s is out of range: N is 4 bits, 0..15 (REQ8 "
                        "shifts the int32 right by N)", shift);
    *n = (unsigned)v;
  }
  if (mcb) {
    if (cs_parse_u64(mcb, "--mcb", &v, err) != CS_OK || v > 1)
      return cs_err_set(err, CS_EINVAL, "--mcb %s is not 0 or 1 (MCB is one bit: 1 = REQ8 "
                        "shifts by N and saturates to int16 before the multiply)", mcb);
    *m = (unsigned)v;
  }
  return CS_OK;
}

typedef struct pack_args {
  const char *scale, *offset, *scale_file, *offset_file, *out;
  const char *scale_rounding, *offset_rounding, *shift, *mcb;
  bool json;
} pack_args;

/* A command-line number as the fp32 the packer takes (C's `float tmp = 0.1`). Values that do
 * not survive the conversion are refused here, naming the token as typed. */
static cs_status to_fp32(const char *opt, const char *token, float *out, cs_err *err) {
  double d;
  char what[32];
  snprintf(what, sizeof what, "%s", opt);
  cs_status st = cs_parse_double(token, what, &d, err);
  if (st != CS_OK) return st;
  float f = (float)d;
  if (isfinite(d) && !isfinite(f))
    return cs_err_set(err, CS_EINVAL, "%s %s is out of the fp32 range (the largest finite fp32 "
                      "is 3.40282347e+38)", opt, token);
  if (d != 0 && f == 0)
    return cs_err_set(err, CS_EINVAL, "%s %s underflows to 0 in fp32 (the smallest normal fp32 "
                      "is 1.17549435e-38)", opt, token);
  *out = f;
  return CS_OK;
}

static cs_status options(const pack_args *a, isa_qw_pack_opts *o, cs_err *err) {
  *o = (isa_qw_pack_opts){.scale_rounding = ISA_QW_SCALE_TRUNC};
  if (a->scale_rounding && !isa_qw_scale_rounding_from_name(a->scale_rounding, &o->scale_rounding))
    return cs_err_set(err, CS_EINVAL, "--scale-rounding '%s' is not one of trunc, rne, none",
                      a->scale_rounding);
  if (a->offset_rounding &&
      !isa_qw_offset_rounding_from_name(a->offset_rounding, &o->offset_rounding))
    return cs_err_set(err, CS_EINVAL, "--offset-rounding '%s' is not one of half-away, "
                      "half-even", a->offset_rounding);
  return cli_quant_shift_opts(a->shift, a->mcb, &o->n, &o->mcb, err);
}

static void pack_json_one(cs_json *j, const isa_qw_packed *p) {
  cli_quant_json_hex64(j, "word", p->fields.word);
  cs_json_key(j, "scale");
  cli_quant_json_num(j, (double)p->scale);
  json_hex32(j, "scale_input_bits", isa_f32_bits(p->scale));
  cs_json_key(j, "scale_effective");
  cli_quant_json_num(j, (double)p->fields.scale_effective);
  cs_json_key(j, "relative_error");
  cli_quant_json_num(j, p->relative_error);
  cs_json_key(j, "offset_input");
  if (p->has_offset) cli_quant_json_num(j, (double)p->offset_input);
  else cs_json_null(j);
  cs_json_key(j, "offset");
  if (p->has_offset) cs_json_int(j, p->fields.offset);
  else cs_json_null(j);
  cs_json_member_uint(j, "n", p->fields.n);
  cs_json_member_uint(j, "mcb", p->fields.mcb);
}

static int pack_one(cli_io *io, const pack_args *a, const isa_qw_pack_opts *o) {
  cs_err e;
  float scale, offset = 0;
  if (to_fp32("--scale", a->scale, &scale, &e) != CS_OK) return cli_fail(io, CMD, &e);
  if (a->offset && to_fp32("--offset", a->offset, &offset, &e) != CS_OK)
    return cli_fail(io, CMD, &e);
  isa_qw_packed p;
  if (isa_qw_pack(scale, a->offset ? &offset : NULL, o, &p, &e) != CS_OK)
    return cli_fail(io, CMD, &e);

  if (a->json) {
    cs_json j;
    cs_json_init(&j, io->out, true);
    cs_json_obj_begin(&j);
    pack_json_one(&j, &p);
    cs_json_key(&j, "scale_rounding");
    cs_json_str(&j, isa_qw_scale_rounding_name(o->scale_rounding));
    cs_json_key(&j, "offset_rounding");
    cs_json_str(&j, isa_qw_offset_rounding_name(o->offset_rounding));
    json_warnings(&j, p.warnings, &p.fields, &p);
    cs_json_key(&j, "fields");
    cs_json_obj_begin(&j);
    cli_quant_json_fields(&j, &p.fields);
    cs_json_obj_end(&j);
    json_explain(&j, &p.fields);
    cs_json_obj_end(&j);
    return 0;
  }

  FILE *f = io->out;
  char w[24], in[40], in_exact[40], eff[40], rel[40], line[512];
  hex64(w, sizeof w, p.fields.word);
  isa_quant_format_fp32(in, sizeof in, scale);
  isa_quant_format_double(in_exact, sizeof in_exact, (double)scale);
  isa_quant_format_double(eff, sizeof eff, (double)p.fields.scale_effective);
  snprintf(rel, sizeof rel, "%.8e", p.relative_error);
  fprintf(f, "quant word %s\n\n", w);
  snprintf(line, sizeof line, "%s = fp32 0x%08x = %s", in, (unsigned)isa_f32_bits(scale),
           in_exact);
  cli_quant_wrap(f, 2, "scale in", 16, line);
  switch (o->scale_rounding) {
    case ISA_QW_SCALE_RNE:
      snprintf(line, sizeof line, "%s = fp32 0x%08x (rne: rounded to 19 bits, ties to even)", eff,
               (unsigned)p.fields.scale_kept_bits);
      break;
    case ISA_QW_SCALE_NONE:
      snprintf(line, sizeof line, "%s = fp32 0x%08x (none: all 32 bits stored, 0x%08x; the "
               "hardware drops bits 12..0)", eff, (unsigned)p.fields.scale_kept_bits,
               (unsigned)p.fields.scale_bits);
      break;
    default:
      snprintf(line, sizeof line, "%s = fp32 0x%08x (trunc: bits 12..0 cleared)", eff,
               (unsigned)p.fields.scale_kept_bits);
      break;
  }
  cli_quant_wrap(f, 2, "scale applied", 16, line);
  snprintf(line, sizeof line, "%s = (applied - in) / in", rel);
  cli_quant_wrap(f, 2, "relative error", 16, line);
  if (p.has_offset) {
    char oin[40];
    isa_quant_format_fp32(oin, sizeof oin, p.offset_input);
    snprintf(line, sizeof line, "%s, rounded %s to %.0f, stored %d (9 bits: 0x%03x)", oin,
             isa_qw_offset_rounding_name(o->offset_rounding), p.offset_rounded, p.fields.offset,
             (unsigned)((p.fields.word & ISA_QW_OFFSET_MASK) >> ISA_QW_OFFSET_POS));
  } else {
    snprintf(line, sizeof line, "none (the offset field stays 0)");
  }
  cli_quant_wrap(f, 2, "offset", 16, line);
  if (o->n || o->mcb) {
    if (o->mcb)
      snprintf(line, sizeof line, "N = %u, MCB = 1: REQ8 computes sat_int16(x >> %u) before the "
               "multiply", o->n, o->n);
    else
      snprintf(line, sizeof line, "N = %u, MCB = 0: REQ8 ignores N and does not shift", o->n);
    cli_quant_wrap(f, 2, "pre-shift", 16, line);
  }
  fputc('\n', f);
  print_diagram(f, &p.fields);
  print_explanation(f, &p.fields, &p);
  return 0;
}

static int pack_files(cli_io *io, const pack_args *a, const isa_qw_pack_opts *o) {
  cs_err e;
  cs_npy scales = {0}, offsets = {0};
  uint64_t *words = NULL;
  isa_qw_packed *details = NULL;
  int rc = 0;
  float one_offset = 0;
  const float *off = NULL;
  size_t n_off = 0;

  if (cli_quant_read_f32(a->scale_file, "scales", &scales, &e) != CS_OK) goto fail;
  if (a->offset_file) {
    if (cli_quant_read_f32(a->offset_file, "offsets", &offsets, &e) != CS_OK) goto fail;
    if (offsets.count != 1 && offsets.count != scales.count) {
      cs_err_set(&e, CS_EINVAL, "%s: %zu offsets for %zu scales in %s: give one offset "
                 "(broadcast) or one per scale", a->offset_file, offsets.count, scales.count,
                 a->scale_file);
      goto fail;
    }
    off = offsets.data;
    n_off = offsets.count;
  } else if (a->offset) {
    if (to_fp32("--offset", a->offset, &one_offset, &e) != CS_OK) goto fail;
    off = &one_offset;
    n_off = 1;
  }

  size_t n = scales.count;
  words = malloc((n ? n : 1) * sizeof *words);
  details = malloc((n ? n : 1) * sizeof *details);
  if (!words || !details) {
    cs_err_set(&e, CS_ENOMEM, "no host memory for %zu channels", n);
    goto fail;
  }
  if (isa_qw_pack_array(scales.data, n, off, n_off, o, words, details, &e) != CS_OK) {
    cs_err_prefix(&e, "%s", a->scale_file);
    goto fail;
  }
  if (cs_npy_write(a->out, CS_NPY_U64, scales.ndim, scales.shape, words, &e) != CS_OK) goto fail;

  /* Summary: warnings and the largest relative error over the channels. */
  size_t n_warn = 0, n_warn_channels = 0, worst = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned wcount = 0;
    for (int k = 0; k < ISA_QW_WARN_COUNT; k++) wcount += (details[i].warnings >> k) & 1u;
    n_warn += wcount;
    n_warn_channels += wcount > 0;
    if (fabs(details[i].relative_error) > fabs(details[worst].relative_error)) worst = i;
  }
  const char *off_desc = a->offset_file ? (n_off == 1 ? "one offset, broadcast" : "one per channel")
                         : a->offset    ? "one offset, broadcast"
                                        : "none";
  char shape[160];
  cli_quant_shape(shape, sizeof shape, scales.ndim, scales.shape);

  if (a->json) {
    cs_json j;
    cs_json_init(&j, io->out, true);
    cs_json_obj_begin(&j);
    cs_json_key(&j, "channels");
    cs_json_uint(&j, n);
    cs_json_key(&j, "shape");
    cs_json_arr_begin(&j);
    for (int d = 0; d < scales.ndim; d++) cs_json_uint(&j, scales.shape[d]);
    cs_json_arr_end(&j);
    cs_json_key(&j, "scale_file");
    cs_json_str(&j, a->scale_file);
    cs_json_key(&j, "offset_file");
    cs_json_str(&j, a->offset_file);
    cs_json_key(&j, "out");
    cs_json_str(&j, a->out);
    cs_json_key(&j, "scale_rounding");
    cs_json_str(&j, isa_qw_scale_rounding_name(o->scale_rounding));
    cs_json_key(&j, "offset_rounding");
    cs_json_str(&j, isa_qw_offset_rounding_name(o->offset_rounding));
    cs_json_key(&j, "warning_count");
    cs_json_uint(&j, n_warn);
    cs_json_key(&j, "max_abs_relative_error");
    cli_quant_json_num(&j, n ? fabs(details[worst].relative_error) : 0.0);
    cs_json_key(&j, "max_relative_error_channel");
    if (n) cs_json_uint(&j, worst);
    else cs_json_null(&j);
    cs_json_key(&j, "per_channel");
    cs_json_arr_begin(&j);
    for (size_t i = 0; i < n; i++) {
      cs_json_obj_begin(&j);
      cs_json_key(&j, "channel");
      cs_json_uint(&j, i);
      pack_json_one(&j, &details[i]);
      json_warnings(&j, details[i].warnings, &details[i].fields, &details[i]);
      cs_json_obj_end(&j);
    }
    cs_json_arr_end(&j);
    cs_json_obj_end(&j);
  } else {
    FILE *f = io->out;
    fprintf(f, "packed %zu channel%s of %s into %s (uint64 '<u8', shape %s)\n", n,
            n == 1 ? "" : "s", a->scale_file, a->out, shape);
    fprintf(f, "  scale rounding %s, offset rounding %s, offsets: %s%s%s",
            isa_qw_scale_rounding_name(o->scale_rounding),
            isa_qw_offset_rounding_name(o->offset_rounding), off_desc,
            a->offset_file ? " from " : "", a->offset_file ? a->offset_file : "");
    if (o->n || o->mcb) fprintf(f, ", N %u, MCB %u", o->n, o->mcb);
    fputc('\n', f);
    if (n) {
      char in[40], eff[40];
      isa_quant_format_fp32(in, sizeof in, details[worst].scale);
      isa_quant_format_double(eff, sizeof eff, (double)details[worst].fields.scale_effective);
      fprintf(f, "  max |relative error| %.8e at channel %zu (scale %s applied as %s)\n",
              fabs(details[worst].relative_error), worst, in, eff);
    }
    fprintf(f, "  warnings: %zu", n_warn);
    if (n_warn) fprintf(f, " (in %zu channel%s)", n_warn_channels, n_warn_channels == 1 ? "" : "s");
    fputc('\n', f);
    size_t listed = 0;
    for (size_t i = 0; i < n && listed < MAX_LISTED_WARNINGS; i++)
      for (int k = 0; k < ISA_QW_WARN_COUNT && listed < MAX_LISTED_WARNINGS; k++) {
        if (!((details[i].warnings >> k) & 1u)) continue;
        char line[1024], label[32];
        isa_qw_warning_text((isa_qw_warn_index)k, &details[i].fields, &details[i], line,
                            sizeof line);
        snprintf(label, sizeof label, "channel %zu: ", i);
        cli_quant_wrap(f, 4, label, (int)strlen(label), line);
        listed++;
      }
    if (n_warn > listed)
      fprintf(f, "    ... and %zu more (--json lists every channel)\n", n_warn - listed);
  }
  goto done;
fail:
  rc = cli_fail(io, CMD, &e);
done:
  free(words);
  free(details);
  cs_npy_free(&scales);
  cs_npy_free(&offsets);
  return rc;
}

static int quant_pack(cli_io *io, int argc, char **argv) {
  pack_args a = {0};
  static const cli_quant_opt_row opts[] = {
      {"--scale", offsetof(pack_args, scale)},
      {"--offset", offsetof(pack_args, offset)},
      {"--scale-file", offsetof(pack_args, scale_file)},
      {"--offset-file", offsetof(pack_args, offset_file)},
      {"--out", offsetof(pack_args, out)},
      {"--scale-rounding", offsetof(pack_args, scale_rounding)},
      {"--offset-rounding", offsetof(pack_args, offset_rounding)},
      {"--shift", offsetof(pack_args, shift)},
      {"--mcb", offsetof(pack_args, mcb)},
  };
  cs_err e;
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(pack_help, io->out);
      return 0;
    }
    if (cli_flag(argv, i, "--json")) {
      a.json = true;
      continue;
    }
    int r = cli_quant_take_option(io, argc, argv, &i, opts, sizeof opts / sizeof opts[0], &a,
                                  &rc);
    if (r < 0) return rc;
    if (r > 0) continue;
    if (argv[i][0] == '-')
      return cli_unknown_option(io, "quant pack", argv[i], pack_help);
    return cli_usage_error(io, CMD, "unexpected argument '%s' (quant pack takes options only; "
                           "see cubesim quant pack --help)", argv[i]);
  }
  isa_qw_pack_opts o;
  if (options(&a, &o, &e) != CS_OK) return cli_fail(io, CMD, &e);
  if (a.scale && a.scale_file)
    return cli_usage_error(io, CMD, "give either --scale or --scale-file, not both");
  if (a.offset && a.offset_file)
    return cli_usage_error(io, CMD, "give either --offset or --offset-file, not both");
  if (a.scale_file) {
    if (!a.out) return cli_usage_error(io, CMD, "--scale-file needs --out W.npy for the words");
    return pack_files(io, &a, &o);
  }
  if (!a.scale)
    return cli_usage_error(io, CMD, "missing --scale F (or --scale-file S.npy --out W.npy)");
  if (a.offset_file)
    return cli_usage_error(io, CMD, "--offset-file goes with --scale-file; with --scale give "
                           "--offset F");
  if (a.out)
    return cli_usage_error(io, CMD, "--out goes with --scale-file; --scale prints one word");
  return pack_one(io, &a, &o);
}

int cli_cmd_quant(cli_io *io, int argc, char **argv) {
  if (argc < 2)
    return cli_usage_error(io, CMD, "missing pack, unpack, check or diff (cubesim quant --help)");
  const char *what = argv[1];
  if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0 || strcmp(what, "help") == 0) {
    fputs(quant_help, io->out);
    return 0;
  }
  if (strcmp(what, "pack") == 0) return quant_pack(io, argc - 1, argv + 1);
  if (strcmp(what, "unpack") == 0) return quant_unpack(io, argc - 1, argv + 1);
  if (strcmp(what, "check") == 0) return cli_quant_check(io, argc - 1, argv + 1);
  if (strcmp(what, "diff") == 0) return cli_quant_diff(io, argc - 1, argv + 1);
  static const char *const actions[] = {"pack", "unpack", "check", "diff", NULL};
  return cli_unknown_name(io, CMD, "action", what, actions);
}
