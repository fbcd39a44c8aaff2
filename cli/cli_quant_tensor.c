/* cli_quant_tensor — `cubesim quant unpack --word-file`, `quant check` and `quant diff`: tensors
 * of quant words (one per output channel) read from .npy files, through isa/isa_quant_tools.h.
 *
 * Every input is read and checked before anything is printed, so a bad input gives one error
 * line and exit status 2, never a partial table. check exits 0 when a packer variant explains
 * every word and 1 when none does; diff exits 0 when the tensors are equal and 1 when they
 * differ (as cmp(1) does). */
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
#include "isa/isa_quant.h"
#include "isa/isa_quant_tools.h"

#define CMD CLI_QUANT_CMD
/* aclnnTransQuantParam allocates its words in multiples of 16 (zeros after the last channel). */
#define HOST_PAD_WORDS 16u

static const char check_help[] =
    "usage: cubesim quant check --scale-file S.npy [--offset-file O.npy] --word-file W.npy\n"
    "                           [--shift N --mcb 0|1] [--json]\n"
    "\n"
    "Packs the scales (and offsets) with every packer variant cubesim knows, counts for each\n"
    "how many channels it reproduces bit for bit, names the variant that explains the words\n"
    "(or the ones that pack these inputs alike, and why), or says that none does, and explains\n"
    "every channel that differs from the closest variant field by field. Variants, named\n"
    "<scale rounding>/<offset rounding> as `quant pack` spells them:\n"
    "  trunc/half-away   the documented formula (SetQuantScalar, aclnnTransQuantParam's document)\n"
    "  trunc/half-even   the TransQuantParamV2 device kernel, round_mode 0\n"
    "  rne/half-even     the TransQuantParamV2 device kernel, round_mode 1\n"
    "  none/half-away    aclnnTransQuantParam's host code (scale bits 12..0 not masked)\n"
    "  rne/half-away, none/half-even   no public packer known\n"
    "Exit status: 0 a variant explains every word, 1 none does, 2 bad input.\n"
    "\n"
    "options:\n"
    "  --scale-file S.npy    the scales, fp32 ('<f4'), one per word (any shape)\n"
    "  --offset-file O.npy   the offsets, fp32: one value (broadcast) or one per word\n"
    "  --word-file W.npy     the words, uint64 or int64; a host buffer padded with zero words\n"
    "                        to a multiple of 16 is accepted (the padding is not checked)\n"
    "  --shift N, --mcb 0|1  the N and MCB every word should carry (default 0 and 0: the\n"
    "                        public packers never write them)\n"
    "  --json                JSON: every variant's count, the verdict, every differing channel\n";

static const char diff_help[] =
    "usage: cubesim quant diff A.npy B.npy [--acc-range LO:HI] [--json]\n"
    "\n"
    "Compares two tensors of quant words channel by channel (uint64 or int64, the same number of\n"
    "words): which fields differ in how many channels, and what that does to the fixpipe's\n"
    "output: the largest relative change of the effective (fp19) scale, the largest difference\n"
    "of the fp16 outputs of DEQF16 and of the 8-bit outputs of REQ8 over the int32 accumulators\n"
    "in [LO, HI] (exact, with saturation on and no ReLU), each with the channel and accumulator\n"
    "where it occurs; then every differing channel.\n"
    "Exit status: 0 the tensors are equal, 1 they differ, 2 bad input.\n"
    "\n"
    "options:\n"
    "  --acc-range LO:HI   int32 accumulators to consider (default: all, -2147483648:2147483647)\n"
    "  --json              JSON instead of text\n";

/* ---- Reading ---- */

/* A tensor of words: uint64, or int64 read as the same 64 bits. */
static cs_status read_words(const char *path, cs_npy *a, cs_err *err) {
  cs_status st = cs_npy_read(path, a, err);
  if (st != CS_OK) return st;
  if (a->dtype != CS_NPY_U64 && a->dtype != CS_NPY_I64) {
    bool fp = a->dtype == CS_NPY_F16 || a->dtype == CS_NPY_F32 || a->dtype == CS_NPY_F64;
    return cs_err_set(err, CS_EINVAL, "%s: quant words must be uint64 ('<u8') or int64 "
                      "('<i8'), not %s ('%s')%s", path, cs_npy_dtype_name(a->dtype),
                      cs_npy_dtype_descr(a->dtype),
                      fp ? "; floats look like scales: cubesim quant pack --scale-file packs "
                           "them"
                         : "");
  }
  if (a->count == 0) {
    char shape[160];
    cli_quant_shape(shape, sizeof shape, a->ndim, a->shape);
    return cs_err_set(err, CS_EINVAL, "%s: holds no words (shape %s)", path, shape);
  }
  return CS_OK;
}

static const uint64_t *words_of(const cs_npy *a) { return (const uint64_t *)a->data; }

/* "int64 ('<i8'; read as the same 64 bits)" or "uint64 ('<u8')". */
static const char *dtype_text(const cs_npy *a) {
  return a->dtype == CS_NPY_I64 ? "int64 ('<i8', read as the same 64 bits)" : "uint64 ('<u8')";
}

/* "1 channel", "4096 channels". */
static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

/* ---- unpack --word-file ---- */

/* "ids,of,warnings" or "-". */
static void warning_list(char *out, size_t n, unsigned warnings) {
  size_t used = 0;
  out[0] = '\0';
  for (int k = 0; k < ISA_QW_WARN_COUNT && used < n; k++)
    if (warnings >> k & 1u)
      used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "," : "",
                               isa_qw_warning_name((isa_qw_warn_index)k));
  if (!out[0]) snprintf(out, n, "-");
}

/* "1 in every channel" or "mixed: 1 in 4095 channels, 0 in 1". */
static void bit_summary(char *out, size_t n, size_t set, size_t channels) {
  if (set == channels) snprintf(out, n, "1 in every channel");
  else if (set == 0) snprintf(out, n, "0 in every channel");
  else
    snprintf(out, n, "mixed: 1 in %zu channel%s, 0 in %zu", set, plural(set), channels - set);
}

static void n_summary(char *out, size_t n, const isa_qw_summary *s) {
  size_t used = 0;
  unsigned distinct = 0;
  for (unsigned v = 0; v <= ISA_QW_N_MAX; v++) distinct += s->n_channels[v] > 0;
  for (unsigned v = 0; v <= ISA_QW_N_MAX && used < n; v++) {
    if (!s->n_channels[v]) continue;
    if (distinct == 1)
      used += (size_t)snprintf(out + used, n - used, "%u in every channel", v);
    else
      used += (size_t)snprintf(out + used, n - used, "%s%u in %zu channel%s",
                               used ? ", " : "mixed: ", v, s->n_channels[v],
                               plural(s->n_channels[v]));
  }
}

static void unpack_text(FILE *f, const char *path, const cs_npy *a, const isa_qw_summary *s) {
  const uint64_t *w = words_of(a);
  size_t n = a->count;
  char shape[160], line[512];
  cli_quant_shape(shape, sizeof shape, a->ndim, a->shape);
  fprintf(f, "quant words of %s: %zu channel%s, %s, shape %s\n\n", path, n, plural(n),
          dtype_text(a), shape);
  fprintf(f, "%7s  %-18s  %-24s  %6s  %s  %2s  %3s  %s\n", "channel", "word", "scale (fp19)",
          "offset", "S", "N", "MCB", "warnings");
  for (size_t i = 0; i < n; i++) {
    isa_qw_fields q;
    isa_qw_unpack(w[i], &q);
    char scale[40], warn[160];
    isa_quant_format_double(scale, sizeof scale, (double)q.scale_effective);
    warning_list(warn, sizeof warn, q.warnings);
    fprintf(f, "%7zu  0x%016llx  %-24s  %6d  %u  %2u  %3u  %s\n", i, (unsigned long long)w[i],
            scale, q.offset, q.s, q.n, q.mcb, warn);
  }

  fprintf(f, "\nsummary of %zu channel%s\n", n, plural(n));
  if (s->finite_scales) {
    char lo[40], hi[40];
    isa_quant_format_double(lo, sizeof lo, (double)s->scale_min);
    isa_quant_format_double(hi, sizeof hi, (double)s->scale_max);
    snprintf(line, sizeof line, "smallest %s (channel %zu), largest %s (channel %zu)", lo,
             s->scale_min_channel, hi, s->scale_max_channel);
    if (s->finite_scales < n)
      snprintf(line + strlen(line), sizeof line - strlen(line),
               "; %zu channel%s with an Inf or NaN scale", n - s->finite_scales,
               plural(n - s->finite_scales));
  } else {
    snprintf(line, sizeof line, "Inf or NaN in every channel");
  }
  cli_quant_wrap(f, 2, "scale", 10, line);
  if (s->offset_min == s->offset_max)
    snprintf(line, sizeof line, "%d in every channel", s->offset_min);
  else
    snprintf(line, sizeof line, "%d .. %d", s->offset_min, s->offset_max);
  cli_quant_wrap(f, 2, "offset", 10, line);
  bit_summary(line, sizeof line, s->s_set, n);
  if (s->s_set == n) strcat(line, ": int8 output (REQ8, QF322B8)");
  else if (s->s_set == 0) strcat(line, ": uint8 output (REQ8, QF322B8)");
  cli_quant_wrap(f, 2, "S", 10, line);
  n_summary(line, sizeof line, s);
  cli_quant_wrap(f, 2, "N", 10, line);
  bit_summary(line, sizeof line, s->mcb_set, n);
  if (s->mcb_set == 0) strcat(line, ": no REQ8 pre-shift");
  cli_quant_wrap(f, 2, "MCB", 10, line);
  if (!s->channels_warned) {
    cli_quant_wrap(f, 2, "warnings", 10, "none");
    return;
  }
  snprintf(line, sizeof line, "in %zu of %zu channel%s", s->channels_warned, n, plural(n));
  cli_quant_wrap(f, 2, "warnings", 10, line);
  for (int k = 0; k < ISA_QW_WARN_COUNT; k++) {
    size_t c = s->warning_channels[k];
    if (!c) continue;
    char label[64];
    snprintf(label, sizeof label, "%s, %zu channel%s: ", isa_qw_warning_name((isa_qw_warn_index)k),
             c, plural(c));
    cli_quant_wrap(f, 4, label, (int)strlen(label),
                   isa_qw_warning_message((isa_qw_warn_index)k));
  }
}

static void json_count_of_bit(cs_json *j, const char *key, size_t set, size_t channels) {
  cs_json_key(j, key);
  cs_json_obj_begin(j);
  cs_json_member_uint(j, "set", set);
  cs_json_member_uint(j, "clear", channels - set);
  cs_json_key(j, "same");
  cs_json_bool(j, set == 0 || set == channels);
  cs_json_obj_end(j);
}

static void unpack_json(FILE *f, const char *path, const cs_npy *a, const isa_qw_summary *s) {
  const uint64_t *w = words_of(a);
  cs_json j;
  cs_json_init(&j, f, true);
  cs_json_obj_begin(&j);
  cs_json_member_str(&j, "word_file", path);
  cs_json_member_str(&j, "dtype", cs_npy_dtype_name(a->dtype));
  cs_json_key(&j, "shape");
  cs_json_arr_begin(&j);
  for (int d = 0; d < a->ndim; d++) cs_json_uint(&j, a->shape[d]);
  cs_json_arr_end(&j);
  cs_json_member_uint(&j, "channels", a->count);

  cs_json_key(&j, "summary");
  cs_json_obj_begin(&j);
  cs_json_key(&j, "warning_channels");
  cs_json_obj_begin(&j);
  for (int k = 0; k < ISA_QW_WARN_COUNT; k++)
    cs_json_member_uint(&j, isa_qw_warning_name((isa_qw_warn_index)k), s->warning_channels[k]);
  cs_json_obj_end(&j);
  cs_json_member_uint(&j, "channels_with_warnings", s->channels_warned);
  cs_json_member_uint(&j, "nonfinite_scales", a->count - s->finite_scales);
  cs_json_key(&j, "scale_min");
  if (s->finite_scales) cli_quant_json_num(&j, (double)s->scale_min);
  else cs_json_null(&j);
  cs_json_key(&j, "scale_min_channel");
  if (s->finite_scales) cs_json_uint(&j, s->scale_min_channel);
  else cs_json_null(&j);
  cs_json_key(&j, "scale_max");
  if (s->finite_scales) cli_quant_json_num(&j, (double)s->scale_max);
  else cs_json_null(&j);
  cs_json_key(&j, "scale_max_channel");
  if (s->finite_scales) cs_json_uint(&j, s->scale_max_channel);
  else cs_json_null(&j);
  cs_json_member_int(&j, "offset_min", s->offset_min);
  cs_json_member_int(&j, "offset_max", s->offset_max);
  json_count_of_bit(&j, "s", s->s_set, a->count);
  json_count_of_bit(&j, "mcb", s->mcb_set, a->count);
  cs_json_key(&j, "n");
  cs_json_obj_begin(&j);
  cs_json_key(&j, "channels");
  cs_json_obj_begin(&j);
  unsigned distinct = 0;
  for (unsigned v = 0; v <= ISA_QW_N_MAX; v++) {
    if (!s->n_channels[v]) continue;
    char key[8];
    snprintf(key, sizeof key, "%u", v);
    cs_json_member_uint(&j, key, s->n_channels[v]);
    distinct++;
  }
  cs_json_obj_end(&j);
  cs_json_key(&j, "same");
  cs_json_bool(&j, distinct == 1);
  cs_json_obj_end(&j);
  cs_json_obj_end(&j);

  cs_json_key(&j, "per_channel");
  cs_json_arr_begin(&j);
  for (size_t i = 0; i < a->count; i++) {
    isa_qw_fields q;
    isa_qw_unpack(w[i], &q);
    cs_json_obj_begin(&j);
    cs_json_member_uint(&j, "channel", i);
    cli_quant_json_hex64(&j, "word", w[i]);
    cli_quant_json_fields(&j, &q);
    cli_quant_json_warning_ids(&j, q.warnings);
    cs_json_obj_end(&j);
  }
  cs_json_arr_end(&j);
  cs_json_obj_end(&j);
}

int cli_quant_unpack_file(cli_io *io, const char *path, bool json) {
  cs_npy a;
  cs_err e;
  if (read_words(path, &a, &e) != CS_OK) {
    cs_npy_free(&a);
    return cli_fail(io, CMD, &e);
  }
  isa_qw_summary s;
  isa_qw_summarize(words_of(&a), a.count, &s);
  if (json) unpack_json(io->out, path, &a, &s);
  else unpack_text(io->out, path, &a, &s);
  cs_npy_free(&a);
  return 0;
}

/* ---- check ---- */

typedef struct check_args {
  const char *scale_file, *offset_file, *word_file, *shift, *mcb;
  bool json;
} check_args;

typedef struct check_run {
  const check_args *args;
  cs_npy scales, offsets, words;
  size_t padding; /* zero words after the last channel (a host buffer) */
  isa_qw_check_in in;
  isa_qw_check result;
} check_run;

/* Reads and checks every input; the words must be one per scale, or a host buffer of them
 * padded with zero words to a multiple of 16. */
static cs_status check_load(check_run *r, cs_err *e) {
  const check_args *a = r->args;
  cs_status st = cli_quant_shift_opts(a->shift, a->mcb, &r->in.n_shift, &r->in.mcb, e);
  if (st == CS_OK) st = cli_quant_read_f32(a->scale_file, "scales", &r->scales, e);
  if (st == CS_OK && a->offset_file)
    st = cli_quant_read_f32(a->offset_file, "offsets", &r->offsets, e);
  if (st == CS_OK) st = read_words(a->word_file, &r->words, e);
  if (st != CS_OK) return st;
  size_t n = r->scales.count, nw = r->words.count;
  if (n == 0) return cs_err_set(e, CS_EINVAL, "%s: holds no scales", a->scale_file);
  if (a->offset_file && r->offsets.count != 1 && r->offsets.count != n)
    return cs_err_set(e, CS_EINVAL, "%s: %zu offsets for %zu scales in %s: give one offset "
                      "(broadcast) or one per scale", a->offset_file, r->offsets.count, n,
                      a->scale_file);
  if (nw != n) {
    size_t padded = (n + HOST_PAD_WORDS - 1) / HOST_PAD_WORDS * HOST_PAD_WORDS;
    bool zeros = nw == padded && n > 1;
    for (size_t i = n; zeros && i < nw; i++) zeros = words_of(&r->words)[i] == 0;
    if (!zeros) {
      char ws[160], ss[160];
      cli_quant_shape(ws, sizeof ws, r->words.ndim, r->words.shape);
      cli_quant_shape(ss, sizeof ss, r->scales.ndim, r->scales.shape);
      return cs_err_set(e, CS_EINVAL, "%s: %zu words (shape %s) for %zu scales (shape %s) in "
                        "%s: give one word per scale", a->word_file, nw, ws, n, ss,
                        a->scale_file);
    }
    r->padding = nw - n;
  }
  r->in.scales = r->scales.data;
  r->in.n = n;
  r->in.offsets = a->offset_file ? r->offsets.data : NULL;
  r->in.n_offsets = a->offset_file ? r->offsets.count : 0;
  r->in.scales_name = a->scale_file;
  r->in.offsets_name = a->offset_file;
  return isa_qw_check_words(&r->in, words_of(&r->words), &r->result, e);
}

/* "a, b and c" of the variants in mask. */
static void variant_list(char *out, size_t n, unsigned mask) {
  size_t used = 0;
  unsigned total = 0, done = 0;
  out[0] = '\0';
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++) total += mask >> v & 1u;
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT && used < n; v++) {
    if (!(mask >> v & 1u)) continue;
    const char *sep = done == 0 ? "" : done + 1 == total ? " and " : ", ";
    used += (size_t)snprintf(out + used, n - used, "%s%s", sep,
                             isa_qw_variant_name((isa_qw_variant)v));
    done++;
  }
}

static unsigned lowest_variant(unsigned mask) {
  unsigned v = 0;
  while (v < ISA_QW_VARIANT_COUNT && !(mask >> v & 1u)) v++;
  return v;
}

static void check_text(FILE *f, const check_run *r) {
  const check_args *a = r->args;
  const isa_qw_check *c = &r->result;
  char line[1024], names[256];
  size_t used = (size_t)snprintf(line, sizeof line, "%zu word%s of %s against the scales of %s",
                                 c->channels, plural(c->channels), a->word_file, a->scale_file);
  if (a->offset_file)
    snprintf(line + used, sizeof line - used, " and the offsets of %s (%s)", a->offset_file,
             r->in.n_offsets == 1 ? "one, broadcast" : "one per channel");
  else
    snprintf(line + used, sizeof line - used, " (no offsets)");
  cli_quant_wrap(f, 0, "quant check: ", 13, line);
  if (r->in.n_shift || r->in.mcb)
    fprintf(f, "  every word should carry N = %u and MCB = %u\n", r->in.n_shift, r->in.mcb);
  if (r->padding) {
    snprintf(line, sizeof line, "the last %zu words are zeros after the last channel, as "
             "aclnnTransQuantParam pads its buffer to a multiple of 16 words: not checked",
             r->padding);
    cli_quant_wrap(f, 2, "", 0, line);
  }

  fprintf(f, "\n%-16s  %12s  %s\n", "variant", "matches", "packer");
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++) {
    char count[48];
    snprintf(count, sizeof count, "%zu of %zu", c->matches[v], c->channels);
    fprintf(f, "%-16s  %12s  %s\n", isa_qw_variant_name((isa_qw_variant)v), count,
            isa_qw_variant_source((isa_qw_variant)v));
  }
  fputc('\n', f);

  if (c->explaining) {
    unsigned first = lowest_variant(c->explaining);
    variant_list(names, sizeof names, c->explaining);
    if (c->explaining == 1u << first) {
      snprintf(line, sizeof line, "explained by %s: %s", names,
               isa_qw_variant_source((isa_qw_variant)first));
    } else {
      char why[512];
      isa_qw_check_tie_text(c, &r->in, c->explaining, why, sizeof why);
      snprintf(line, sizeof line, "explained by %s equally: %s", names, why);
    }
    cli_quant_wrap(f, 0, "", 0, line);
    return;
  }
  variant_list(names, sizeof names, c->closest);
  if (c->closest == 1u << c->reference)
    snprintf(line, sizeof line, "not explained: no variant reproduces every word; the closest "
             "is %s (%zu of %zu channels)", names, c->closest_matches, c->channels);
  else
    snprintf(line, sizeof line, "not explained: no variant reproduces every word; the closest "
             "are %s (%zu of %zu channels each); the differences below are against %s, "
             "from which the words differ least",
             names, c->closest_matches, c->channels,
             isa_qw_variant_name(c->reference));
  cli_quant_wrap(f, 0, "", 0, line);
  snprintf(line, sizeof line, "%zu channel%s differ%s from %s", c->differing, plural(c->differing),
           c->differing == 1 ? "s" : "", isa_qw_variant_name(c->reference));
  if (c->unmatched)
    snprintf(line + strlen(line), sizeof line - strlen(line), "; %zu match%s no variant at all",
             c->unmatched, c->unmatched == 1 ? "es" : "");
  fprintf(f, "%s\n", line);

  const uint64_t *w = words_of(&r->words);
  for (size_t i = 0; i < c->channels; i++) {
    uint64_t want = isa_qw_check_expected(&r->in, c->reference, i);
    if (w[i] == want) continue;
    char sc[40], off[64] = "";
    isa_quant_format_fp32(sc, sizeof sc, r->in.scales[i]);
    if (r->in.n_offsets) {
      char o[40];
      isa_quant_format_fp32(o, sizeof o, r->in.offsets[r->in.n_offsets == 1 ? 0 : i]);
      snprintf(off, sizeof off, ", offset %s", o);
    }
    snprintf(line, sizeof line, "channel %zu: word 0x%016llx, %s packs 0x%016llx (scale %s%s)",
             i, (unsigned long long)w[i], isa_qw_variant_name(c->reference),
             (unsigned long long)want, sc, off);
    fputc('\n', f);
    cli_quant_wrap(f, 2, "", 0, line);
    isa_qw_difference d[ISA_QW_PART_COUNT];
    size_t k = isa_qw_explain_mismatch(&r->in, i, c->reference, w[i], d);
    for (size_t t = 0; t < k; t++) cli_quant_wrap(f, 4, "- ", 2, d[t].text);
  }
}

static void json_variant_names(cs_json *j, const char *key, unsigned mask) {
  cs_json_key(j, key);
  cs_json_arr_begin(j);
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++)
    if (mask >> v & 1u) cs_json_str(j, isa_qw_variant_name((isa_qw_variant)v));
  cs_json_arr_end(j);
}

static void json_modes(cs_json *j, unsigned modes) {
  cs_json_key(j, "modes");
  cs_json_arr_begin(j);
  for (unsigned m = 0; m < ISA_QW_MODE_COUNT; m++)
    if (modes >> m & 1u) cs_json_str(j, isa_qw_mode_name((isa_qw_mode)m));
  cs_json_arr_end(j);
}

static void check_json(FILE *f, const check_run *r) {
  const check_args *a = r->args;
  const isa_qw_check *c = &r->result;
  cs_json j;
  cs_json_init(&j, f, true);
  cs_json_obj_begin(&j);
  cs_json_member_str(&j, "word_file", a->word_file);
  cs_json_member_str(&j, "scale_file", a->scale_file);
  cs_json_key(&j, "offset_file");
  if (a->offset_file) cs_json_str(&j, a->offset_file);
  else cs_json_null(&j);
  cs_json_member_uint(&j, "channels", c->channels);
  cs_json_member_uint(&j, "padding_words", r->padding);
  cs_json_member_uint(&j, "n", r->in.n_shift);
  cs_json_member_uint(&j, "mcb", r->in.mcb);
  cs_json_key(&j, "variants");
  cs_json_arr_begin(&j);
  for (unsigned v = 0; v < ISA_QW_VARIANT_COUNT; v++) {
    isa_qw_pack_opts o = isa_qw_variant_opts((isa_qw_variant)v, 0, 0);
    cs_json_obj_begin(&j);
    cs_json_member_str(&j, "name", isa_qw_variant_name((isa_qw_variant)v));
    cs_json_member_str(&j, "scale_rounding", isa_qw_scale_rounding_name(o.scale_rounding));
    cs_json_member_str(&j, "offset_rounding", isa_qw_offset_rounding_name(o.offset_rounding));
    cs_json_member_str(&j, "packer", isa_qw_variant_source((isa_qw_variant)v));
    cs_json_member_uint(&j, "matches", c->matches[v]);
    json_variant_names(&j, "same_words_as", c->same_words[v] & ~(1u << v));
    cs_json_obj_end(&j);
  }
  cs_json_arr_end(&j);
  cs_json_key(&j, "explained");
  cs_json_bool(&j, c->explaining != 0);
  json_variant_names(&j, "explained_by", c->explaining);
  cs_json_key(&j, "tie_reason");
  if (c->explaining & (c->explaining - 1)) {
    char why[512];
    isa_qw_check_tie_text(c, &r->in, c->explaining, why, sizeof why);
    cs_json_str(&j, why);
  } else {
    cs_json_null(&j);
  }
  json_variant_names(&j, "closest", c->closest);
  cs_json_member_uint(&j, "closest_matches", c->closest_matches);
  cs_json_member_str(&j, "reference", isa_qw_variant_name(c->reference));
  cs_json_member_uint(&j, "differing", c->differing);
  cs_json_member_uint(&j, "unmatched", c->unmatched);
  cs_json_key(&j, "mismatches");
  cs_json_arr_begin(&j);
  const uint64_t *w = words_of(&r->words);
  for (size_t i = 0; i < c->channels; i++) {
    uint64_t want = isa_qw_check_expected(&r->in, c->reference, i);
    if (w[i] == want) continue;
    cs_json_obj_begin(&j);
    cs_json_member_uint(&j, "channel", i);
    cli_quant_json_hex64(&j, "word", w[i]);
    cli_quant_json_hex64(&j, "expected", want);
    cs_json_key(&j, "scale");
    cli_quant_json_num(&j, (double)r->in.scales[i]);
    cs_json_key(&j, "offset");
    if (r->in.n_offsets)
      cli_quant_json_num(&j, (double)r->in.offsets[r->in.n_offsets == 1 ? 0 : i]);
    else
      cs_json_null(&j);
    cs_json_key(&j, "differences");
    cs_json_arr_begin(&j);
    isa_qw_difference d[ISA_QW_PART_COUNT];
    size_t k = isa_qw_explain_mismatch(&r->in, i, c->reference, w[i], d);
    for (size_t t = 0; t < k; t++) {
      cs_json_obj_begin(&j);
      cs_json_member_str(&j, "part", isa_qw_part_name(d[t].part));
      json_modes(&j, d[t].modes);
      cs_json_member_str(&j, "text", d[t].text);
      cs_json_obj_end(&j);
    }
    cs_json_arr_end(&j);
    cs_json_obj_end(&j);
  }
  cs_json_arr_end(&j);
  cs_json_obj_end(&j);
}

int cli_quant_check(cli_io *io, int argc, char **argv) {
  check_args a = {0};
  static const cli_quant_opt_row rows[] = {
      {"--scale-file", offsetof(check_args, scale_file)},
      {"--offset-file", offsetof(check_args, offset_file)},
      {"--word-file", offsetof(check_args, word_file)},
      {"--shift", offsetof(check_args, shift)},
      {"--mcb", offsetof(check_args, mcb)},
  };
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(check_help, io->out);
      return 0;
    }
    if (cli_flag(argv, i, "--json")) {
      a.json = true;
      continue;
    }
    int r = cli_quant_take_option(io, argc, argv, &i, rows, sizeof rows / sizeof rows[0], &a,
                                  &rc);
    if (r < 0) return rc;
    if (r > 0) continue;
    if (argv[i][0] == '-')
      return cli_unknown_option(io, "quant check", argv[i], check_help);
    return cli_usage_error(io, CMD, "unexpected argument '%s' (quant check takes options only; "
                           "see cubesim quant check --help)", argv[i]);
  }
  if (!a.scale_file)
    return cli_usage_error(io, CMD, "quant check needs --scale-file S.npy (the scales the words "
                           "were packed from)");
  if (!a.word_file)
    return cli_usage_error(io, CMD, "quant check needs --word-file W.npy (the words to check)");

  check_run r;
  memset(&r, 0, sizeof r);
  r.args = &a;
  cs_err e;
  if (check_load(&r, &e) != CS_OK) {
    rc = cli_fail(io, CMD, &e);
  } else {
    if (a.json) check_json(io->out, &r);
    else check_text(io->out, &r);
    rc = r.result.explaining ? 0 : 1;
  }
  cs_npy_free(&r.scales);
  cs_npy_free(&r.offsets);
  cs_npy_free(&r.words);
  return rc;
}

/* ---- diff ---- */

typedef struct diff_args {
  const char *a, *b, *acc_range;
  bool json;
} diff_args;

/* "LO:HI", two int32 values with LO <= HI. */
static cs_status parse_acc_range(const char *s, int32_t *lo, int32_t *hi, cs_err *e) {
  const char *colon = strchr(s, ':');
  if (!colon)
    return cs_err_set(e, CS_EINVAL, "--acc-range '%s' is not LO:HI (two int32 accumulators, "
                      "e.g. -65536:65535)", s);
  char first[64];
  size_t len = (size_t)(colon - s);
  if (len >= sizeof first) len = sizeof first - 1;
  memcpy(first, s, len);
  first[len] = '\0';
  int64_t v[2];
  const char *part[2] = {first, colon + 1};
  for (int k = 0; k < 2; k++) {
    if (cs_parse_i64(part[k], k ? "--acc-range HI" : "--acc-range LO", &v[k], e) != CS_OK)
      return e->code;
    if (v[k] < INT32_MIN || v[k] > INT32_MAX)
      return cs_err_set(e, CS_EINVAL, "--acc-range %s %s is outside int32 [-2147483648, "
                        "2147483647]", k ? "HI" : "LO", part[k]);
  }
  if (v[0] > v[1])
    return cs_err_set(e, CS_EINVAL, "--acc-range '%s': LO %lld is above HI %lld", s,
                      (long long)v[0], (long long)v[1]);
  *lo = (int32_t)v[0];
  *hi = (int32_t)v[1];
  return CS_OK;
}

/* "62848 (0x7baf)" for an fp16 output, "-3" for an 8-bit one. */
static void output_text(char *out, size_t n, isa_qw_mode mode, double v, uint32_t bits) {
  char num[40];
  isa_quant_format_double(num, sizeof num, v);
  if (mode == ISA_QW_MODE_DEQF16) snprintf(out, n, "%s (fp16 0x%04x)", num, (unsigned)bits);
  else snprintf(out, n, "%s", num);
}

/* "64 at accumulator 570392575: 62848 (fp16 0x7bac) -> 62912 (fp16 0x7bae)". */
static void output_diff_text(char *out, size_t n, isa_qw_mode mode, const isa_qw_output_diff *d) {
  char va[64], vb[64], md[40];
  output_text(va, sizeof va, mode, d->value_a, d->bits_a);
  output_text(vb, sizeof vb, mode, d->value_b, d->bits_b);
  isa_quant_format_double(md, sizeof md, d->max_abs);
  snprintf(out, n, "%s at accumulator %ld: %s -> %s", md, (long)d->acc, va, vb);
}

static void json_bits(cs_json *j, const char *key, isa_qw_mode mode, uint32_t bits) {
  char s[16];
  snprintf(s, sizeof s, mode == ISA_QW_MODE_DEQF16 ? "0x%04x" : "0x%02x", (unsigned)bits);
  cs_json_member_str(j, key, s);
}

static void json_output_diff(cs_json *j, const char *key, isa_qw_mode mode, bool computed,
                             const isa_qw_output_diff *d, bool with_channel, size_t channel) {
  cs_json_key(j, key);
  if (!computed) {
    cs_json_null(j);
    return;
  }
  cs_json_obj_begin(j);
  cs_json_key(j, "max_abs");
  cli_quant_json_num(j, d->max_abs);
  if (with_channel) cs_json_member_uint(j, "channel", channel);
  cs_json_member_int(j, "acc", d->acc);
  cs_json_key(j, "a");
  cli_quant_json_num(j, d->value_a);
  cs_json_key(j, "b");
  cli_quant_json_num(j, d->value_b);
  json_bits(j, "a_bits", mode, d->bits_a);
  json_bits(j, "b_bits", mode, d->bits_b);
  cs_json_obj_end(j);
}

static void diff_text(FILE *f, const diff_args *a, const cs_npy *wa, const cs_npy *wb,
                      const isa_qw_diff *d, const isa_qw_diff_channel *per) {
  const uint64_t *x = words_of(wa), *y = words_of(wb);
  char shape[160], line[1024];
  cli_quant_shape(shape, sizeof shape, wa->ndim, wa->shape);
  snprintf(line, sizeof line, "%s -> %s, %zu channel%s (shape %s); accumulators [%ld, %ld]",
           a->a, a->b, d->channels, plural(d->channels), shape, (long)d->acc_lo,
           (long)d->acc_hi);
  cli_quant_wrap(f, 0, "quant diff: ", 12, line);
  fputc('\n', f);
  if (!d->differing) {
    fprintf(f, "the words are identical\n");
    return;
  }
  size_t used = (size_t)snprintf(line, sizeof line, "%zu of %zu channel%s differ:", d->differing,
                                 d->channels, plural(d->channels));
  const char *sep = " ";
  for (unsigned p = 0; p < ISA_QW_PART_COUNT && used < sizeof line; p++) {
    if (!d->part_channels[p]) continue;
    used += (size_t)snprintf(line + used, sizeof line - used, "%s%s in %zu", sep,
                             isa_qw_part_name((isa_qw_part)p), d->part_channels[p]);
    sep = ", ";
  }
  cli_quant_wrap(f, 0, "", 0, line);

  fputs("\neffect on the fixpipe's output\n", f);
  if (d->scale_changed) {
    char sa[40], sb[40];
    isa_quant_format_double(sa, sizeof sa,
                            (double)isa_qw_scale_effective(x[d->max_scale_channel]));
    isa_quant_format_double(sb, sizeof sb,
                            (double)isa_qw_scale_effective(y[d->max_scale_channel]));
    snprintf(line, sizeof line, "changes in %zu channel%s; the largest relative change is %+.4g "
             "at channel %zu: %s -> %s", d->scale_changed, plural(d->scale_changed),
             per[d->max_scale_channel].scale_relative, d->max_scale_channel, sa, sb);
  } else {
    snprintf(line, sizeof line, "the effective scale is the same in every channel");
  }
  cli_quant_wrap(f, 2, "scale", 9, line);
  if (d->deqf16.max_abs > 0) {
    char t[256];
    output_diff_text(t, sizeof t, ISA_QW_MODE_DEQF16, &d->deqf16);
    snprintf(line, sizeof line, "int32 -> fp16: the outputs differ by up to %s, in channel %zu",
             t, d->deqf16_channel);
  } else {
    snprintf(line, sizeof line, "int32 -> fp16: the same outputs for every accumulator");
  }
  cli_quant_wrap(f, 2, "DEQF16", 9, line);
  if (d->req8.max_abs > 0) {
    char t[256];
    output_diff_text(t, sizeof t, ISA_QW_MODE_REQ8, &d->req8);
    snprintf(line, sizeof line, "int32 -> int8/uint8: the outputs differ by up to %s, in "
             "channel %zu", t, d->req8_channel);
  } else {
    snprintf(line, sizeof line, "int32 -> int8/uint8: the same outputs for every accumulator");
  }
  cli_quant_wrap(f, 2, "REQ8", 9, line);

  fputs("\nchannels that differ\n", f);
  for (size_t i = 0; i < d->channels; i++) {
    const isa_qw_diff_channel *c = &per[i];
    if (!c->parts) continue;
    fprintf(f, "  channel %zu: 0x%016llx -> 0x%016llx\n", i, (unsigned long long)x[i],
            (unsigned long long)y[i]);
    for (unsigned p = 0; p < ISA_QW_PART_COUNT; p++) {
      if (!(c->parts >> p & 1u)) continue;
      isa_qw_part_change_text((isa_qw_part)p, x[i], y[i], line, sizeof line);
      cli_quant_wrap(f, 4, "- ", 2, line);
    }
    static const struct {
      isa_qw_mode mode;
      const char *name;
    } modes[] = {{ISA_QW_MODE_DEQF16, "DEQF16"}, {ISA_QW_MODE_REQ8, "REQ8"}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
      bool fp16 = modes[m].mode == ISA_QW_MODE_DEQF16;
      const isa_qw_output_diff *od = fp16 ? &c->deqf16 : &c->req8;
      if (!(fp16 ? c->deqf16_computed : c->req8_computed)) continue;
      if (od->max_abs > 0) {
        char t[256];
        output_diff_text(t, sizeof t, modes[m].mode, od);
        snprintf(line, sizeof line, "%s outputs differ by up to %s", modes[m].name, t);
      } else {
        snprintf(line, sizeof line, "%s outputs: the same for every accumulator",
                 modes[m].name);
      }
      cli_quant_wrap(f, 4, "= ", 2, line);
    }
  }
}

static void diff_json(FILE *f, const diff_args *a, const cs_npy *wa, const cs_npy *wb,
                      const isa_qw_diff *d, const isa_qw_diff_channel *per) {
  const uint64_t *x = words_of(wa), *y = words_of(wb);
  cs_json j;
  cs_json_init(&j, f, true);
  cs_json_obj_begin(&j);
  cs_json_member_str(&j, "a", a->a);
  cs_json_member_str(&j, "b", a->b);
  cs_json_member_uint(&j, "channels", d->channels);
  cs_json_key(&j, "acc_range");
  cs_json_arr_begin(&j);
  cs_json_int(&j, d->acc_lo);
  cs_json_int(&j, d->acc_hi);
  cs_json_arr_end(&j);
  cs_json_member_uint(&j, "differing", d->differing);
  cs_json_key(&j, "part_channels");
  cs_json_obj_begin(&j);
  for (unsigned p = 0; p < ISA_QW_PART_COUNT; p++)
    cs_json_member_uint(&j, isa_qw_part_name((isa_qw_part)p), d->part_channels[p]);
  cs_json_obj_end(&j);
  cs_json_member_uint(&j, "scale_changed", d->scale_changed);
  cs_json_key(&j, "max_scale_relative");
  cli_quant_json_num(&j, d->max_scale_relative);
  cs_json_key(&j, "max_scale_channel");
  if (d->scale_changed) cs_json_uint(&j, d->max_scale_channel);
  else cs_json_null(&j);
  json_output_diff(&j, "deqf16", ISA_QW_MODE_DEQF16, d->deqf16.max_abs > 0, &d->deqf16, true,
                   d->deqf16_channel);
  json_output_diff(&j, "req8", ISA_QW_MODE_REQ8, d->req8.max_abs > 0, &d->req8, true,
                   d->req8_channel);
  cs_json_key(&j, "per_channel");
  cs_json_arr_begin(&j);
  for (size_t i = 0; i < d->channels; i++) {
    const isa_qw_diff_channel *c = &per[i];
    if (!c->parts) continue;
    cs_json_obj_begin(&j);
    cs_json_member_uint(&j, "channel", i);
    cli_quant_json_hex64(&j, "a", x[i]);
    cli_quant_json_hex64(&j, "b", y[i]);
    cs_json_key(&j, "parts");
    cs_json_arr_begin(&j);
    for (unsigned p = 0; p < ISA_QW_PART_COUNT; p++)
      if (c->parts >> p & 1u) cs_json_str(&j, isa_qw_part_name((isa_qw_part)p));
    cs_json_arr_end(&j);
    cs_json_key(&j, "changes");
    cs_json_arr_begin(&j);
    for (unsigned p = 0; p < ISA_QW_PART_COUNT; p++) {
      if (!(c->parts >> p & 1u)) continue;
      char line[512];
      isa_qw_part_change_text((isa_qw_part)p, x[i], y[i], line, sizeof line);
      cs_json_str(&j, line);
    }
    cs_json_arr_end(&j);
    cs_json_key(&j, "scale_relative");
    cli_quant_json_num(&j, c->scale_relative);
    json_output_diff(&j, "deqf16", ISA_QW_MODE_DEQF16, c->deqf16_computed, &c->deqf16, false, 0);
    json_output_diff(&j, "req8", ISA_QW_MODE_REQ8, c->req8_computed, &c->req8, false, 0);
    cs_json_obj_end(&j);
  }
  cs_json_arr_end(&j);
  cs_json_obj_end(&j);
}

int cli_quant_diff(cli_io *io, int argc, char **argv) {
  diff_args a = {0};
  static const cli_quant_opt_row rows[] = {{"--acc-range", offsetof(diff_args, acc_range)}};
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(diff_help, io->out);
      return 0;
    }
    if (cli_flag(argv, i, "--json")) {
      a.json = true;
      continue;
    }
    int r = cli_quant_take_option(io, argc, argv, &i, rows, 1, &a, &rc);
    if (r < 0) return rc;
    if (r > 0) continue;
    if (argv[i][0] == '-' && argv[i][1] == '-')
      return cli_unknown_option(io, "quant diff", argv[i], diff_help);
    if (a.b)
      return cli_usage_error(io, CMD, "unexpected argument '%s': quant diff compares two "
                             "files, A.npy and B.npy", argv[i]);
    if (a.a) a.b = argv[i];
    else a.a = argv[i];
  }
  if (!a.b)
    return cli_usage_error(io, CMD, "quant diff needs two files of words: cubesim quant diff "
                           "A.npy B.npy");
  int32_t lo = INT32_MIN, hi = INT32_MAX;
  cs_err e;
  cs_npy wa, wb;
  memset(&wa, 0, sizeof wa);
  memset(&wb, 0, sizeof wb);
  isa_qw_diff_channel *per = NULL;
  cs_status st = CS_OK;
  if (a.acc_range) st = parse_acc_range(a.acc_range, &lo, &hi, &e);
  if (st == CS_OK) st = read_words(a.a, &wa, &e);
  if (st == CS_OK) st = read_words(a.b, &wb, &e);
  if (st == CS_OK && wa.count != wb.count) {
    char sa[160], sb[160];
    cli_quant_shape(sa, sizeof sa, wa.ndim, wa.shape);
    cli_quant_shape(sb, sizeof sb, wb.ndim, wb.shape);
    st = cs_err_set(&e, CS_EINVAL, "%s: %zu words (shape %s) where %s has %zu (shape %s): the "
                    "tensors must have one word per channel each", a.b, wb.count, sb, a.a,
                    wa.count, sa);
  }
  if (st == CS_OK) {
    per = malloc(wa.count * sizeof *per);
    if (!per) st = cs_err_set(&e, CS_ENOMEM, "no host memory for %zu channels", wa.count);
  }
  isa_qw_diff d;
  if (st == CS_OK) st = isa_qw_diff_words(words_of(&wa), words_of(&wb), wa.count, lo, hi, per,
                                          &d, &e);
  if (st != CS_OK) {
    rc = cli_fail(io, CMD, &e);
  } else {
    if (a.json) diff_json(io->out, &a, &wa, &wb, &d, per);
    else diff_text(io->out, &a, &wa, &wb, &d, per);
    rc = d.differing ? 1 : 0;
  }
  free(per);
  cs_npy_free(&wa);
  cs_npy_free(&wb);
  return rc;
}
