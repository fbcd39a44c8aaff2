/* sim_config — what the parameter table drives: defaults, YAML loading, checks, writers. */
#include "sim/sim_config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/cs_file.h"
#include "base/cs_suggest.h"

/* ---- the table, as data ---- */

/* Per-type projections of the table's default and limit columns onto the typed slots of
 * sim_param_info (a column holds a string for STR rows, a double for F64 rows, ...). */
#define DEFU_U64(v) (v)
#define DEFU_F64(v) 0
#define DEFU_BOOL(v) (v)
#define DEFU_STR(v) 0
#define DEFF_U64(v) 0.0
#define DEFF_F64(v) (v)
#define DEFF_BOOL(v) 0.0
#define DEFF_STR(v) 0.0
#define DEFS_U64(v) NULL
#define DEFS_F64(v) NULL
#define DEFS_BOOL(v) NULL
#define DEFS_STR(v) (v)
#define LIMU_U64(v) (v)
#define LIMU_F64(v) 0
#define LIMU_BOOL(v) (v)
#define LIMU_STR(v) (v)
#define LIMF_U64(v) 0.0
#define LIMF_F64(v) (v)
#define LIMF_BOOL(v) 0.0
#define LIMF_STR(v) 0.0
#define TYPE_U64 SIM_TYPE_U64
#define TYPE_F64 SIM_TYPE_F64
#define TYPE_BOOL SIM_TYPE_BOOL
#define TYPE_STR SIM_TYPE_STR
#define RULEK_ANY SIM_RULE_ANY
#define RULEK_POW2 SIM_RULE_POW2
#define RULEK_X4 SIM_RULE_MULTIPLE
#define RULEK_X8 SIM_RULE_MULTIPLE
#define RULEK_X256 SIM_RULE_MULTIPLE
#define RULEN_ANY 0
#define RULEN_POW2 0
#define RULEN_X4 4
#define RULEN_X8 8
#define RULEN_X256 256
#define ORIGIN_DOC false
#define ORIGIN_ASSUMED true

static const sim_param_info params[SIM_PARAM_COUNT] = {
#define PARAM_ROW(sec, k, ty, def, lo, hi, rl, unit_, origin, src, desc)                  \
  {.section_id = SIM_SECTION_##sec,                                                          \
   .section = #sec,                                                                          \
   .key = #k,                                                                                \
   .path = #sec "." #k,                                                                      \
   .type = TYPE_##ty,                                                                      \
   .def_u64 = DEFU_##ty(def),                                                              \
   .def_f64 = DEFF_##ty(def),                                                              \
   .def_str = DEFS_##ty(def),                                                              \
   .min_u64 = LIMU_##ty(lo),                                                               \
   .max_u64 = LIMU_##ty(hi),                                                               \
   .min_f64 = LIMF_##ty(lo),                                                               \
   .max_f64 = LIMF_##ty(hi),                                                               \
   .rule = RULEK_##rl,                                                                     \
   .multiple = RULEN_##rl,                                                                 \
   .unit = unit_,                                                                            \
   .assumption = ORIGIN_##origin,                                                            \
   .source = src,                                                                            \
   .description = desc,                                                                      \
   .offset = offsetof(sim_config, sec##_##k)},
    SIM_CONFIG_TABLE(PARAM_ROW)
#undef PARAM_ROW
};

static const struct {
  const char *name;
  const char *description;
} sections[SIM_SECTION_COUNT] = {
#define SECTION_ROW(sec, desc) {#sec, desc},
    SIM_CONFIG_SECTION_TABLE(SECTION_ROW)
#undef SECTION_ROW
};

static const sim_derived_info derived[SIM_DERIVED_COUNT] = {
#define DERIVED_ROW(n, ty, unit_, formula_)                                                 \
  {#n, TYPE_##ty, unit_, formula_, offsetof(sim_config_derived, n)},
    SIM_CONFIG_DERIVED_TABLE(DERIVED_ROW)
#undef DERIVED_ROW
};

/* Size/alignment pairs: each buffer's size must be a whole number of its alignment, so that a
 * buffer filled with aligned objects has no unusable tail. */
static const struct {
  sim_param_id size, align;
} size_align_pairs[] = {
    {SIM_PARAM_buffers_l1_bytes, SIM_PARAM_buffers_l1_align_bytes},
    {SIM_PARAM_buffers_l0a_bytes, SIM_PARAM_buffers_l0a_align_bytes},
    {SIM_PARAM_buffers_l0b_bytes, SIM_PARAM_buffers_l0b_align_bytes},
    {SIM_PARAM_buffers_l0c_bytes, SIM_PARAM_buffers_l0c_align_bytes},
    {SIM_PARAM_buffers_ub_bytes, SIM_PARAM_buffers_ub_align_bytes},
    {SIM_PARAM_buffers_bt_bytes, SIM_PARAM_buffers_bt_align_bytes},
    {SIM_PARAM_buffers_fb_bytes, SIM_PARAM_buffers_fb_align_bytes},
    {SIM_PARAM_buffers_gm_capacity_bytes, SIM_PARAM_buffers_gm_align_bytes},
};

/* ---- typed access to a field through its row ---- */

static uint64_t *u64_field(sim_config *c, const sim_param_info *p) {
  return (uint64_t *)(void *)((char *)c + p->offset);
}
static const uint64_t *u64_cfield(const sim_config *c, const sim_param_info *p) {
  return (const uint64_t *)(const void *)((const char *)c + p->offset);
}
static double *f64_field(sim_config *c, const sim_param_info *p) {
  return (double *)(void *)((char *)c + p->offset);
}
static const double *f64_cfield(const sim_config *c, const sim_param_info *p) {
  return (const double *)(const void *)((const char *)c + p->offset);
}
static bool *bool_field(sim_config *c, const sim_param_info *p) {
  return (bool *)(void *)((char *)c + p->offset);
}
static const bool *bool_cfield(const sim_config *c, const sim_param_info *p) {
  return (const bool *)(const void *)((const char *)c + p->offset);
}
static char *str_field(sim_config *c, const sim_param_info *p) { return (char *)c + p->offset; }
static const char *str_cfield(const sim_config *c, const sim_param_info *p) {
  return (const char *)c + p->offset;
}

/* ---- introspection ---- */

size_t sim_config_param_count(void) { return SIM_PARAM_COUNT; }

const sim_param_info *sim_config_param(size_t i) { return i < SIM_PARAM_COUNT ? &params[i] : NULL; }

const char *sim_config_section_name(sim_section_id s) {
  return (unsigned)s < SIM_SECTION_COUNT ? sections[s].name : "?";
}

const char *sim_config_section_description(sim_section_id s) {
  return (unsigned)s < SIM_SECTION_COUNT ? sections[s].description : "?";
}

size_t sim_config_derived_count(void) { return SIM_DERIVED_COUNT; }

const sim_derived_info *sim_config_derived_info(size_t i) {
  return i < SIM_DERIVED_COUNT ? &derived[i] : NULL;
}

/* A double as YAML and JSON readers take it back exactly; whole numbers without exponent. */
static void format_f64(char *out, size_t out_bytes, double v) {
  if (isfinite(v) && v == floor(v) && fabs(v) < 1e15) snprintf(out, out_bytes, "%.0f", v);
  else cs_json_format_double(out, out_bytes, v);
}

static void format_value(const sim_param_info *p, uint64_t u, double f, const char *s, char *out,
                         size_t out_bytes) {
  if (out_bytes == 0) return;
  switch (p->type) {
    case SIM_TYPE_U64: snprintf(out, out_bytes, "%" PRIu64, u); break;
    case SIM_TYPE_F64: format_f64(out, out_bytes, f); break;
    case SIM_TYPE_BOOL: snprintf(out, out_bytes, "%s", u ? "true" : "false"); break;
    case SIM_TYPE_STR: snprintf(out, out_bytes, "%s", s); break;
  }
}

void sim_config_param_value_text(const sim_config *c, size_t i, char *out, size_t out_bytes) {
  if (i >= SIM_PARAM_COUNT) {
    if (out_bytes) out[0] = '\0';
    return;
  }
  const sim_param_info *p = &params[i];
  uint64_t u = 0;
  double f = 0;
  char s[SIM_CONFIG_STR_BYTES] = "";
  if (p->type == SIM_TYPE_U64) u = *u64_cfield(c, p);
  if (p->type == SIM_TYPE_BOOL) u = *bool_cfield(c, p);
  if (p->type == SIM_TYPE_F64) f = *f64_cfield(c, p);
  if (p->type == SIM_TYPE_STR) {
    memcpy(s, str_cfield(c, p), sizeof s);
    s[sizeof s - 1] = '\0';
  }
  format_value(p, u, f, s, out, out_bytes);
}

void sim_config_param_default_text(size_t i, char *out, size_t out_bytes) {
  if (i >= SIM_PARAM_COUNT) {
    if (out_bytes) out[0] = '\0';
    return;
  }
  const sim_param_info *p = &params[i];
  format_value(p, p->def_u64, p->def_f64, p->def_str ? p->def_str : "", out, out_bytes);
}

void sim_config_param_range_text(size_t i, char *out, size_t out_bytes) {
  if (out_bytes == 0) return;
  out[0] = '\0';
  if (i >= SIM_PARAM_COUNT) return;
  const sim_param_info *p = &params[i];
  char lo[40], hi[40];
  switch (p->type) {
    case SIM_TYPE_BOOL: snprintf(out, out_bytes, "true or false"); return;
    case SIM_TYPE_STR:
      snprintf(out, out_bytes, "%" PRIu64 " to %" PRIu64 " characters", p->min_u64, p->max_u64);
      return;
    case SIM_TYPE_F64:
      format_f64(lo, sizeof lo, p->min_f64);
      format_f64(hi, sizeof hi, p->max_f64);
      snprintf(out, out_bytes, "%s to %s", lo, hi);
      return;
    case SIM_TYPE_U64:
      if (p->rule == SIM_RULE_POW2)
        snprintf(out, out_bytes, "%" PRIu64 " to %" PRIu64 ", a power of two", p->min_u64,
                 p->max_u64);
      else if (p->rule == SIM_RULE_MULTIPLE)
        snprintf(out, out_bytes, "%" PRIu64 " to %" PRIu64 ", a multiple of %" PRIu64,
                 p->min_u64, p->max_u64, p->multiple);
      else
        snprintf(out, out_bytes, "%" PRIu64 " to %" PRIu64, p->min_u64, p->max_u64);
      return;
  }
}

bool sim_config_param_equal(const sim_config *a, const sim_config *b, size_t i) {
  if (i >= SIM_PARAM_COUNT) return false;
  const sim_param_info *p = &params[i];
  switch (p->type) {
    case SIM_TYPE_U64: return *u64_cfield(a, p) == *u64_cfield(b, p);
    case SIM_TYPE_F64: {
      /* Bit equality: a round trip must give the same double, and NaN equals itself. */
      double x = *f64_cfield(a, p), y = *f64_cfield(b, p);
      return memcmp(&x, &y, sizeof x) == 0;
    }
    case SIM_TYPE_BOOL: return *bool_cfield(a, p) == *bool_cfield(b, p);
    case SIM_TYPE_STR:
      return strncmp(str_cfield(a, p), str_cfield(b, p), SIM_CONFIG_STR_BYTES) == 0;
  }
  return false;
}

bool sim_config_equal(const sim_config *a, const sim_config *b) {
  for (size_t i = 0; i < SIM_PARAM_COUNT; i++)
    if (!sim_config_param_equal(a, b, i)) return false;
  return true;
}

/* ---- defaults ---- */

void sim_config_defaults(sim_config *c) {
  memset(c, 0, sizeof *c);
  for (size_t i = 0; i < SIM_PARAM_COUNT; i++) {
    const sim_param_info *p = &params[i];
    switch (p->type) {
      case SIM_TYPE_U64: *u64_field(c, p) = p->def_u64; break;
      case SIM_TYPE_F64: *f64_field(c, p) = p->def_f64; break;
      case SIM_TYPE_BOOL: *bool_field(c, p) = p->def_u64 != 0; break;
      case SIM_TYPE_STR: snprintf(str_field(c, p), SIM_CONFIG_STR_BYTES, "%s", p->def_str); break;
    }
  }
}

/* ---- checks of one parameter (used by the loader, sim_config_set and validate) ---- */

static bool is_name_char(unsigned char ch) {
  return isalnum(ch) || ch == '.' || ch == '_' || ch == '-';
}

static bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

/* Range and rule of parameter p's value in c. */
static cs_status check_param(const sim_param_info *p, const sim_config *c, cs_err *err) {
  switch (p->type) {
    case SIM_TYPE_U64: {
      uint64_t v = *u64_cfield(c, p);
      if (v < p->min_u64)
        return cs_err_set(err, CS_ECONFIG, "%s = %" PRIu64 " is below the minimum %" PRIu64,
                          p->path, v, p->min_u64);
      if (v > p->max_u64)
        return cs_err_set(err, CS_ECONFIG, "%s = %" PRIu64 " is above the maximum %" PRIu64,
                          p->path, v, p->max_u64);
      if (p->rule == SIM_RULE_POW2 && !is_pow2(v))
        return cs_err_set(err, CS_ECONFIG, "%s = %" PRIu64 " is not a power of two", p->path, v);
      if (p->rule == SIM_RULE_MULTIPLE && v % p->multiple != 0)
        return cs_err_set(err, CS_ECONFIG, "%s = %" PRIu64 " is not a multiple of %" PRIu64,
                          p->path, v, p->multiple);
      return CS_OK;
    }
    case SIM_TYPE_F64: {
      double v = *f64_cfield(c, p);
      char vs[40], lim[40];
      format_f64(vs, sizeof vs, v);
      if (!isfinite(v))
        return cs_err_set(err, CS_ECONFIG, "%s = %s is not a finite number", p->path, vs);
      if (v < p->min_f64) {
        format_f64(lim, sizeof lim, p->min_f64);
        return cs_err_set(err, CS_ECONFIG, "%s = %s is below the minimum %s", p->path, vs, lim);
      }
      if (v > p->max_f64) {
        format_f64(lim, sizeof lim, p->max_f64);
        return cs_err_set(err, CS_ECONFIG, "%s = %s is above the maximum %s", p->path, vs, lim);
      }
      return CS_OK;
    }
    case SIM_TYPE_BOOL: return CS_OK;
    case SIM_TYPE_STR: {
      const char *s = str_cfield(c, p);
      size_t n = strnlen(s, SIM_CONFIG_STR_BYTES);
      if (n == SIM_CONFIG_STR_BYTES)
        return cs_err_set(err, CS_ECONFIG, "%s is not a terminated string", p->path);
      if (n < p->min_u64)
        return cs_err_set(err, CS_ECONFIG,
                          "%s = '%s' has %zu characters, below the minimum %" PRIu64, p->path, s,
                          n, p->min_u64);
      if (n > p->max_u64)
        return cs_err_set(err, CS_ECONFIG,
                          "%s = '%s' has %zu characters, above the maximum %" PRIu64, p->path, s,
                          n, p->max_u64);
      for (size_t k = 0; k < n; k++)
        if (!is_name_char((unsigned char)s[k]))
          return cs_err_set(err, CS_ECONFIG,
                            "%s = '%s' has the character '%c'; only letters, digits, '.', '_' "
                            "and '-' are allowed",
                            p->path, s, s[k]);
      return CS_OK;
    }
  }
  return CS_OK;
}

/* ---- checks between parameters ---- */

#define RELATION_MAX_PARAMS 3

/* The checks that relate several parameters. On failure, ids[0..*n) are the parameters
 * involved, the one the message names first in ids[0]. */
static cs_status check_relations(const sim_config *c, cs_err *err, sim_param_id *ids, size_t *n) {
  *n = 0;
  for (size_t i = 0; i < sizeof size_align_pairs / sizeof size_align_pairs[0]; i++) {
    const sim_param_info *ps = &params[size_align_pairs[i].size];
    const sim_param_info *pa = &params[size_align_pairs[i].align];
    uint64_t size = *u64_cfield(c, ps), align = *u64_cfield(c, pa);
    if (align != 0 && size % align == 0) continue;
    ids[0] = size_align_pairs[i].size;
    ids[1] = size_align_pairs[i].align;
    *n = 2;
    return cs_err_set(err, CS_ECONFIG, "%s = %" PRIu64 " is not a multiple of %s = %" PRIu64,
                      ps->path, size, pa->path, align);
  }
  /* Set-associative L2: the capacity is sets x ways x line, with a whole number of sets. The
   * product cannot overflow: line_bytes and ways are range-checked to 2^16 and 2^10. */
  uint64_t set_bytes = c->l2_line_bytes * c->l2_ways;
  if (set_bytes == 0 || c->l2_bytes % set_bytes != 0) {
    ids[0] = SIM_PARAM_l2_bytes;
    ids[1] = SIM_PARAM_l2_line_bytes;
    ids[2] = SIM_PARAM_l2_ways;
    *n = 3;
    return cs_err_set(err, CS_ECONFIG,
                      "l2.bytes = %" PRIu64 " is not a multiple of l2.line_bytes * l2.ways = %"
                      PRIu64 " (a whole number of sets)",
                      c->l2_bytes, set_bytes);
  }
  return CS_OK;
}

/* ---- parsing one scalar ---- */

static const char *type_expectation(sim_param_type t) {
  switch (t) {
    case SIM_TYPE_U64: return "an unsigned integer";
    case SIM_TYPE_F64: return "a number";
    case SIM_TYPE_BOOL: return "true or false";
    case SIM_TYPE_STR: return "a string";
  }
  return "a value";
}

static int digit_value(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* Decimal or 0x hex, nothing else; overflow is an error, never a wrap. */
static cs_status parse_u64(const sim_param_info *p, const char *s, uint64_t *out, cs_err *err) {
  const char *want = "expected an unsigned integer (decimal or 0x hex)";
  unsigned base = 10;
  const char *d = s;
  if (s[0] == '-' && isdigit((unsigned char)s[1]))
    return cs_err_set(err, CS_ECONFIG, "%s: %s, found the negative number '%s'", p->path, want,
                      s);
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    d = s + 2;
  }
  if (*d == '\0')
    return cs_err_set(err, CS_ECONFIG, "%s: %s, found '%s'", p->path, want, s);
  uint64_t v = 0;
  for (const char *q = d; *q; q++) {
    int dv = digit_value(*q);
    if (dv < 0 || (unsigned)dv >= base)
      return cs_err_set(err, CS_ECONFIG, "%s: %s, found '%s'", p->path, want, s);
    if (v > (UINT64_MAX - (uint64_t)dv) / base)
      return cs_err_set(err, CS_ECONFIG, "%s: '%s' does not fit in 64 bits", p->path, s);
    v = v * base + (uint64_t)dv;
  }
  if (base == 10 && d[0] == '0' && d[1] != '\0')
    return cs_err_set(err, CS_ECONFIG, "%s: '%s' has a leading zero (octal is not accepted)",
                      p->path, s);
  *out = v;
  return CS_OK;
}

/* YAML 1.2 core float syntax without .inf and .nan: [-+]? (digits [. digits?] | . digits)
 * ([eE] [-+]? digits)? */
static bool is_float_syntax(const char *s) {
  const char *q = s;
  if (*q == '-' || *q == '+') q++;
  size_t int_digits = 0, frac_digits = 0;
  while (isdigit((unsigned char)*q)) q++, int_digits++;
  if (*q == '.') {
    q++;
    while (isdigit((unsigned char)*q)) q++, frac_digits++;
  }
  if (int_digits + frac_digits == 0) return false;
  if (*q == 'e' || *q == 'E') {
    q++;
    if (*q == '-' || *q == '+') q++;
    if (!isdigit((unsigned char)*q)) return false;
    while (isdigit((unsigned char)*q)) q++;
  }
  return *q == '\0';
}

static cs_status parse_f64(const sim_param_info *p, const char *s, double *out, cs_err *err) {
  if (!is_float_syntax(s))
    return cs_err_set(err, CS_ECONFIG, "%s: expected a number, found '%s'", p->path, s);
  errno = 0;
  double v = strtod(s, NULL);
  if (!isfinite(v))
    return cs_err_set(err, CS_ECONFIG, "%s: '%s' is too large for a double", p->path, s);
  *out = v;
  return CS_OK;
}

/* YAML 1.2 core schema booleans only: yes/no/on/off are YAML 1.1 and would be read differently
 * by other tools, so they are refused rather than guessed. */
static cs_status parse_bool(const sim_param_info *p, const char *s, bool *out, cs_err *err) {
  static const char *const yes[] = {"true", "True", "TRUE"};
  static const char *const no[] = {"false", "False", "FALSE"};
  for (size_t i = 0; i < 3; i++) {
    if (strcmp(s, yes[i]) == 0) return *out = true, CS_OK;
    if (strcmp(s, no[i]) == 0) return *out = false, CS_OK;
  }
  return cs_err_set(err, CS_ECONFIG, "%s: expected true or false, found '%s'", p->path, s);
}

/* A plain YAML scalar that means null. */
static bool is_null_text(const char *s) {
  return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
         strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

/* Reads text (len bytes) into parameter p of c and checks its range. quoted: the scalar was
 * quoted in YAML, so it is a string, whatever it looks like. c is modified only on success. */
static cs_status assign_scalar(const sim_param_info *p, sim_config *c, const char *text,
                               size_t len, bool quoted, cs_err *err) {
  if (strlen(text) != len)
    return cs_err_set(err, CS_ECONFIG, "%s: the value contains a NUL character", p->path);
  if (!quoted && is_null_text(text))
    return cs_err_set(err, CS_ECONFIG, "%s: expected %s, found an empty value", p->path,
                      type_expectation(p->type));
  if (quoted && p->type != SIM_TYPE_STR)
    return cs_err_set(err, CS_ECONFIG, "%s: expected %s, found the quoted string \"%s\"",
                      p->path, type_expectation(p->type), text);
  sim_config tmp = *c;
  cs_status st = CS_OK;
  switch (p->type) {
    case SIM_TYPE_U64: st = parse_u64(p, text, u64_field(&tmp, p), err); break;
    case SIM_TYPE_F64: st = parse_f64(p, text, f64_field(&tmp, p), err); break;
    case SIM_TYPE_BOOL: st = parse_bool(p, text, bool_field(&tmp, p), err); break;
    case SIM_TYPE_STR:
      if (len >= SIM_CONFIG_STR_BYTES)
        return cs_err_set(err, CS_ECONFIG,
                          "%s = '%.20s...' has %zu characters, above the maximum %" PRIu64,
                          p->path, text, len, p->max_u64);
      memcpy(str_field(&tmp, p), text, len + 1);
      break;
  }
  if (st != CS_OK) return st;
  st = check_param(p, &tmp, err);
  if (st != CS_OK) return st;
  *c = tmp;
  return CS_OK;
}

/* ---- name suggestions ---- */

static int find_section(const char *name) {
  for (int s = 0; s < SIM_SECTION_COUNT; s++)
    if (strcmp(sections[s].name, name) == 0) return s;
  return -1;
}

/* Former spellings still read from files and --set (configurations and scripts written before
 * the chip had AIV cores name chip.cores); written back always under the current name. */
static const struct {
  sim_section_id section;
  const char *key;
  sim_param_id param;
} key_aliases[] = {
    {SIM_SECTION_chip, "cores", SIM_PARAM_chip_aic_cores},
};

static int find_key(int section, const char *key) {
  for (int i = 0; i < SIM_PARAM_COUNT; i++)
    if ((int)params[i].section_id == section && strcmp(params[i].key, key) == 0) return i;
  for (size_t a = 0; a < sizeof key_aliases / sizeof key_aliases[0]; a++)
    if ((int)key_aliases[a].section == section && strcmp(key_aliases[a].key, key) == 0)
      return (int)key_aliases[a].param;
  return -1;
}

int sim_config_param_find(const char *path) {
  const char *dot = path ? strchr(path, '.') : NULL;
  char sec[64];
  if (!dot || (size_t)(dot - path) >= sizeof sec) return -1;
  memcpy(sec, path, (size_t)(dot - path));
  sec[dot - path] = '\0';
  int s = find_section(sec);
  return s < 0 ? -1 : find_key(s, dot + 1);
}

/* The message for an unknown section name. */
static cs_status unknown_section(const char *name, cs_err *err) {
  cs_suggest sg;
  cs_suggest_init(&sg, name);
  for (int s = 0; s < SIM_SECTION_COUNT; s++) cs_suggest_offer(&sg, sections[s].name);
  if (cs_suggest_best(&sg))
    return cs_err_set(err, CS_ECONFIG, "unknown section '%s' (did you mean '%s'?)", name,
                      cs_suggest_best(&sg));
  char list[256] = "";
  size_t used = 0;
  for (int s = 0; s < SIM_SECTION_COUNT && used < sizeof list; s++)
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", s ? ", " : "",
                             sections[s].name);
  return cs_err_set(err, CS_ECONFIG, "unknown section '%s' (the sections are: %s)", name, list);
}

/* The message for an unknown key of a known section: the closest key of that section, else
 * the same key in another section (a key put under the wrong heading). */
static cs_status unknown_key(int section, const char *key, cs_err *err) {
  const char *sec = sections[section].name;
  cs_suggest sg;
  cs_suggest_init(&sg, key);
  for (int i = 0; i < SIM_PARAM_COUNT; i++)
    if ((int)params[i].section_id == section) cs_suggest_offer(&sg, params[i].key);
  for (size_t a = 0; a < sizeof key_aliases / sizeof key_aliases[0]; a++)
    if ((int)key_aliases[a].section == section) cs_suggest_offer(&sg, key_aliases[a].key);
  int hit = cs_suggest_best(&sg) ? find_key(section, cs_suggest_best(&sg)) : -1;
  if (hit < 0)
    for (int i = 0; i < SIM_PARAM_COUNT; i++)
      if (strcmp(params[i].key, key) == 0) {
        hit = i;
        break;
      }
  for (size_t a = 0; hit < 0 && a < sizeof key_aliases / sizeof key_aliases[0]; a++)
    if (strcmp(key_aliases[a].key, key) == 0) hit = (int)key_aliases[a].param;
  if (hit >= 0)
    return cs_err_set(err, CS_ECONFIG, "unknown key '%s.%s' (did you mean '%s'?)", sec, key,
                      params[hit].path);
  return cs_err_set(err, CS_ECONFIG,
                    "unknown key '%s.%s' (`cubesim config show` lists every key)", sec, key);
}

/* ---- sim_config_set ---- */

cs_status sim_config_set(sim_config *c, const char *path, const char *text, cs_err *err) {
  const char *dot = path ? strchr(path, '.') : NULL;
  if (!dot || !text)
    return cs_err_set(err, CS_ECONFIG, "'%s' is not a parameter (write section.key, e.g. "
                      "chip.aic_cores)", path ? path : "");
  char sec[64];
  size_t n = (size_t)(dot - path);
  if (n >= sizeof sec) n = sizeof sec - 1;
  memcpy(sec, path, n);
  sec[n] = '\0';
  int s = find_section(sec);
  if (s < 0) return unknown_section(sec, err);
  int i = find_key(s, dot + 1);
  if (i < 0) return unknown_key(s, dot + 1, err);
  return assign_scalar(&params[i], c, text, strlen(text), false, err);
}

/* ---- the YAML loader (libyaml events) ---- */

typedef struct loader {
  const char *name;           /* file name for messages */
  const char *text;           /* the whole input, to locate reader errors by byte offset */
  size_t len;
  yaml_parser_t parser;
  sim_config cfg;             /* the configuration being built; copied out on success */
  bool param_seen[SIM_PARAM_COUNT];
  yaml_mark_t param_mark[SIM_PARAM_COUNT];       /* of the key, for "first at" */
  yaml_mark_t param_value_mark[SIM_PARAM_COUNT]; /* of the value, where its errors point */
  bool section_seen[SIM_SECTION_COUNT];
  yaml_mark_t section_mark[SIM_SECTION_COUNT];
  cs_err *err;
} loader;

/* "name:line:column: " + message, line and column 1-based. */
static cs_status fail_at(loader *ld, yaml_mark_t mark, cs_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static cs_status fail_at(loader *ld, yaml_mark_t mark, cs_status code, const char *fmt, ...) {
  char msg[CS_ERR_MSG_BYTES];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cs_err_set(ld->err, code, "%s:%zu:%zu: %s", ld->name, mark.line + 1, mark.column + 1,
                    msg);
}

/* Prefixes the message a checking function left in err with the position of mark. */
static cs_status locate(loader *ld, yaml_mark_t mark, cs_status st) {
  if (st != CS_OK)
    cs_err_prefix(ld->err, "%s:%zu:%zu", ld->name, mark.line + 1, mark.column + 1);
  return st;
}

/* The position of byte offset off in the text (libyaml's reader reports only offsets). */
static yaml_mark_t mark_of_offset(const loader *ld, size_t off) {
  yaml_mark_t m = {0, 0, 0};
  for (size_t i = 0; i < off && i < ld->len; i++) {
    if (ld->text[i] == '\n') {
      m.line++;
      m.column = 0;
    } else {
      m.column++;
    }
  }
  m.index = off;
  return m;
}

static cs_status syntax_error(loader *ld) {
  yaml_parser_t *ps = &ld->parser;
  const char *problem = ps->problem ? ps->problem : "unknown problem";
  switch (ps->error) {
    case YAML_MEMORY_ERROR:
      return cs_err_set(ld->err, CS_ENOMEM, "%s: no host memory while reading YAML", ld->name);
    case YAML_READER_ERROR:
      if (ps->problem_value >= 0)
        return fail_at(ld, mark_of_offset(ld, ps->problem_offset), CS_EFORMAT,
                       "malformed YAML: %s (byte 0x%02x)", problem, ps->problem_value);
      return fail_at(ld, mark_of_offset(ld, ps->problem_offset), CS_EFORMAT,
                     "malformed YAML: %s", problem);
    default:
      if (ps->context)
        return fail_at(ld, ps->problem_mark, CS_EFORMAT,
                       "malformed YAML: %s (%s at line %zu, column %zu)", problem, ps->context,
                       ps->context_mark.line + 1, ps->context_mark.column + 1);
      return fail_at(ld, ps->problem_mark, CS_EFORMAT, "malformed YAML: %s", problem);
  }
}

static cs_status next_event(loader *ld, yaml_event_t *ev) {
  if (!yaml_parser_parse(&ld->parser, ev)) return syntax_error(ld);
  return CS_OK;
}

static const char *node_kind(const yaml_event_t *ev) {
  switch (ev->type) {
    case YAML_MAPPING_START_EVENT: return "a mapping";
    case YAML_SEQUENCE_START_EVENT: return "a sequence";
    case YAML_ALIAS_EVENT: return "an alias";
    case YAML_SCALAR_EVENT: return "a scalar";
    default: return "something else";
  }
}

static bool is_quoted(const yaml_event_t *ev) {
  return ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
         ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
}

/* Refuses what a configuration never needs and other tools would read differently. */
static cs_status refuse_alias_or_tag(loader *ld, const yaml_event_t *ev, const char *where) {
  if (ev->type == YAML_ALIAS_EVENT)
    return fail_at(ld, ev->start_mark, CS_ECONFIG, "%s: aliases (*%s) are not supported", where,
                   (const char *)ev->data.alias.anchor);
  if (ev->type == YAML_SCALAR_EVENT && ev->data.scalar.tag)
    return fail_at(ld, ev->start_mark, CS_ECONFIG, "%s: tags (%s) are not supported", where,
                   (const char *)ev->data.scalar.tag);
  return CS_OK;
}

/* One `key: value` inside section s; key is the scalar event of the key. */
static cs_status load_key(loader *ld, int s, const yaml_event_t *key) {
  const char *k = (const char *)key->data.scalar.value;
  int i = find_key(s, k);
  if (i < 0) return locate(ld, key->start_mark, unknown_key(s, k, ld->err));
  const sim_param_info *p = &params[i];
  if (ld->param_seen[i])
    return fail_at(ld, key->start_mark, CS_ECONFIG,
                   "duplicate key '%s' (first at line %zu, column %zu)", p->path,
                   ld->param_mark[i].line + 1, ld->param_mark[i].column + 1);
  ld->param_seen[i] = true;
  ld->param_mark[i] = key->start_mark;

  yaml_event_t ev;
  cs_status st = next_event(ld, &ev);
  if (st != CS_OK) return st;
  st = refuse_alias_or_tag(ld, &ev, p->path);
  if (st == CS_OK && ev.type != YAML_SCALAR_EVENT)
    st = fail_at(ld, ev.start_mark, CS_ECONFIG, "%s: expected %s, found %s", p->path,
                 type_expectation(p->type), node_kind(&ev));
  ld->param_value_mark[i] = ev.start_mark;
  if (st == CS_OK)
    st = locate(ld, ev.start_mark,
                assign_scalar(p, &ld->cfg, (const char *)ev.data.scalar.value,
                              ev.data.scalar.length, is_quoted(&ev), ld->err));
  yaml_event_delete(&ev);
  return st;
}

/* The mapping of section s, after its MAPPING_START. */
static cs_status load_section_body(loader *ld, int s) {
  for (;;) {
    yaml_event_t ev;
    cs_status st = next_event(ld, &ev);
    if (st != CS_OK) return st;
    if (ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      return CS_OK;
    }
    st = refuse_alias_or_tag(ld, &ev, sections[s].name);
    if (st == CS_OK && ev.type != YAML_SCALAR_EVENT)
      st = fail_at(ld, ev.start_mark, CS_ECONFIG, "%s: a key must be a scalar, found %s",
                   sections[s].name, node_kind(&ev));
    if (st == CS_OK) st = load_key(ld, s, &ev);
    yaml_event_delete(&ev);
    if (st != CS_OK) return st;
  }
}

/* One `section: {...}` of the top-level mapping; name is the key's scalar event. */
static cs_status load_section(loader *ld, const yaml_event_t *name) {
  const char *n = (const char *)name->data.scalar.value;
  int s = find_section(n);
  if (s < 0) return locate(ld, name->start_mark, unknown_section(n, ld->err));
  if (ld->section_seen[s])
    return fail_at(ld, name->start_mark, CS_ECONFIG,
                   "duplicate section '%s' (first at line %zu, column %zu)", n,
                   ld->section_mark[s].line + 1, ld->section_mark[s].column + 1);
  ld->section_seen[s] = true;
  ld->section_mark[s] = name->start_mark;

  yaml_event_t ev;
  cs_status st = next_event(ld, &ev);
  if (st != CS_OK) return st;
  st = refuse_alias_or_tag(ld, &ev, n);
  if (st == CS_OK) {
    if (ev.type == YAML_MAPPING_START_EVENT) {
      st = load_section_body(ld, s);
    } else if (ev.type == YAML_SCALAR_EVENT && !is_quoted(&ev) &&
               is_null_text((const char *)ev.data.scalar.value)) {
      st = CS_OK; /* `l2:` with nothing under it: no change */
    } else if (ev.type == YAML_SCALAR_EVENT) {
      st = fail_at(ld, ev.start_mark, CS_ECONFIG,
                   "%s: expected a mapping of keys, found the scalar '%s'", n,
                   (const char *)ev.data.scalar.value);
    } else {
      st = fail_at(ld, ev.start_mark, CS_ECONFIG, "%s: expected a mapping of keys, found %s", n,
                   node_kind(&ev));
    }
  }
  yaml_event_delete(&ev);
  return st;
}

/* The top-level mapping, after its MAPPING_START. */
static cs_status load_top_body(loader *ld) {
  for (;;) {
    yaml_event_t ev;
    cs_status st = next_event(ld, &ev);
    if (st != CS_OK) return st;
    if (ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      return CS_OK;
    }
    st = refuse_alias_or_tag(ld, &ev, "top level");
    if (st == CS_OK && ev.type != YAML_SCALAR_EVENT)
      st = fail_at(ld, ev.start_mark, CS_ECONFIG, "a section name must be a scalar, found %s",
                   node_kind(&ev));
    if (st == CS_OK) st = load_section(ld, &ev);
    yaml_event_delete(&ev);
    if (st != CS_OK) return st;
  }
}

/* The document's root node: a mapping of sections, or a null (an empty document). */
static cs_status load_root(loader *ld) {
  yaml_event_t ev;
  cs_status st = next_event(ld, &ev);
  if (st != CS_OK) return st;
  st = refuse_alias_or_tag(ld, &ev, "top level");
  if (st == CS_OK) {
    if (ev.type == YAML_MAPPING_START_EVENT)
      st = load_top_body(ld);
    else if (!(ev.type == YAML_SCALAR_EVENT && !is_quoted(&ev) &&
               is_null_text((const char *)ev.data.scalar.value)))
      st = fail_at(ld, ev.start_mark, CS_ECONFIG,
                   "the top level must be a mapping of sections, found %s", node_kind(&ev));
  }
  yaml_event_delete(&ev);
  return st;
}

/* Events of the whole stream: STREAM_START, then nothing or one document, STREAM_END. */
static cs_status load_stream(loader *ld) {
  yaml_event_t ev;
  cs_status st = next_event(ld, &ev); /* STREAM_START */
  if (st != CS_OK) return st;
  yaml_event_delete(&ev);
  st = next_event(ld, &ev);
  if (st != CS_OK) return st;
  yaml_event_type_t t = ev.type;
  yaml_event_delete(&ev);
  if (t == YAML_STREAM_END_EVENT) return CS_OK; /* empty, or only comments */
  st = load_root(ld);
  if (st != CS_OK) return st;
  st = next_event(ld, &ev); /* DOCUMENT_END */
  if (st != CS_OK) return st;
  yaml_event_delete(&ev);
  st = next_event(ld, &ev);
  if (st != CS_OK) return st;
  if (ev.type == YAML_DOCUMENT_START_EVENT)
    st = fail_at(ld, ev.start_mark, CS_ECONFIG,
                 "a second YAML document starts here; a configuration is one document");
  yaml_event_delete(&ev);
  return st;
}

/* The checks between parameters, as soon as the file is read, so that their errors too point
 * into the file: at the value of the first parameter involved that this file sets. A failure
 * that involves no key of this file belongs to the configuration loaded over, and is left to
 * sim_config_validate. */
static cs_status check_file_relations(loader *ld) {
  sim_param_id ids[RELATION_MAX_PARAMS];
  size_t n;
  cs_err e;
  if (check_relations(&ld->cfg, &e, ids, &n) == CS_OK) return CS_OK;
  for (size_t k = 0; k < n; k++)
    if (ld->param_seen[ids[k]]) {
      if (ld->err) *ld->err = e;
      return locate(ld, ld->param_value_mark[ids[k]], e.code);
    }
  return CS_OK;
}

/* A first pass over the whole stream, so that malformed YAML is reported as such even where
 * the interpretation would fail earlier on a fragment (a mis-indented line read as part of the
 * value before it). Configurations are small; reading twice costs nothing that matters. */
static cs_status check_syntax(loader *ld) {
  /* libyaml is quadratic in the depth of flow collections: refuse deep ones before it sees them */
  cs_status st = cs_yaml_check_flow_depth(ld->text, ld->len, ld->name, CS_YAML_MAX_FLOW_DEPTH, ld->err);
  if (st != CS_OK) return st;
  yaml_parser_t *ps = &ld->parser;
  if (!yaml_parser_initialize(ps))
    return cs_err_set(ld->err, CS_ENOMEM, "%s: no host memory", ld->name);
  yaml_parser_set_input_string(ps, (const unsigned char *)ld->text, ld->len);
  unsigned depth = 0;
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(ps, &ev)) {
      st = syntax_error(ld);
      break;
    }
    yaml_event_type_t t = ev.type;
    if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) depth++;
    if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) depth--;
    if (depth > CS_YAML_MAX_FLOW_DEPTH) /* block nesting too: a configuration is two levels deep */
      st = fail_at(ld, ev.start_mark, CS_EFORMAT, "collections nested more than %u deep", CS_YAML_MAX_FLOW_DEPTH);
    yaml_event_delete(&ev);
    if (t == YAML_STREAM_END_EVENT || st != CS_OK) break;
  }
  yaml_parser_delete(ps);
  return st;
}

cs_status sim_config_load_string(sim_config *c, const char *text, size_t len, const char *name,
                                 cs_err *err) {
  loader *ld = calloc(1, sizeof *ld);
  if (!ld) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", name ? name : "<string>");
  ld->name = name ? name : "<string>";
  ld->text = text ? text : "";
  ld->len = text ? len : 0;
  ld->cfg = *c;
  ld->err = err;
  cs_status st = check_syntax(ld);
  if (st == CS_OK) {
    if (yaml_parser_initialize(&ld->parser)) {
      yaml_parser_set_input_string(&ld->parser, (const unsigned char *)ld->text, ld->len);
      st = load_stream(ld);
      yaml_parser_delete(&ld->parser);
    } else {
      st = cs_err_set(err, CS_ENOMEM, "%s: no host memory", ld->name);
    }
  }
  if (st == CS_OK) st = check_file_relations(ld);
  if (st == CS_OK) {
    *c = ld->cfg;
    cs_err_clear(err);
  }
  free(ld);
  return st;
}

cs_status sim_config_load_file(sim_config *c, const char *path, cs_err *err) {
  char *buf;
  size_t len;
  cs_status st = cs_file_read(path, "a configuration", CS_FILE_CONFIG_MAX_BYTES, &buf, &len, err);
  if (st == CS_OK) st = sim_config_load_string(c, buf, len, path, err);
  free(buf);
  return st;
}

/* ---- validation ---- */

cs_status sim_config_validate(const sim_config *c, cs_err *err) {
  for (size_t i = 0; i < SIM_PARAM_COUNT; i++) {
    cs_status st = check_param(&params[i], c, err);
    if (st != CS_OK) return st;
  }
  size_t n;
  sim_param_id ids[RELATION_MAX_PARAMS];
  cs_status st = check_relations(c, err, ids, &n);
  if (st != CS_OK) return st;
  cs_err_clear(err);
  return CS_OK;
}

/* ---- derived values ---- */

void sim_config_derive(const sim_config *c, sim_config_derived *d) {
  memset(d, 0, sizeof *d);
  double hz = (double)c->chip_clock_mhz * 1e6;
  d->clock_period_ns = 1000.0 / (double)c->chip_clock_mhz;
  d->cycles_per_us = (double)c->chip_clock_mhz;
  d->hbm_bytes_per_cycle = c->gm_hbm_gb_per_s * 1e9 / hz;
  d->hbm_sustained_bytes_per_cycle = d->hbm_bytes_per_cycle * c->gm_hbm_efficiency;
  d->same_line_bytes_per_cycle = c->l2_same_line_gb_per_s * 1e9 / hz;
  d->launch_cycles = (uint64_t)llround(c->chip_launch_us * (double)c->chip_clock_mhz);
  d->l2_bytes_per_cycle = c->l2_gb_per_s * 1e9 / hz;
  d->l2_lines = c->l2_bytes / c->l2_line_bytes;
  d->l2_sets = c->l2_bytes / (c->l2_line_bytes * c->l2_ways);
  /* The cube multiplies a 16 x k0 fractal of A by a k0 x 16 fractal of B per cycle. */
  d->cube_k0_fp16 = c->cube_macs_per_cycle_fp16 / 256;
  d->cube_k0_bf16 = c->cube_macs_per_cycle_bf16 / 256;
  d->cube_k0_int8 = c->cube_macs_per_cycle_int8 / 256;
  d->cube_k0_int4 = c->cube_macs_per_cycle_int4 / 256;
  d->peak_fp16_tflops =
      2.0 * (double)c->cube_macs_per_cycle_fp16 * (double)c->chip_aic_cores * hz / 1e12;
}

void sim_config_derived_value_text(const sim_config_derived *d, size_t i, char *out,
                                   size_t out_bytes) {
  if (out_bytes == 0) return;
  out[0] = '\0';
  if (i >= SIM_DERIVED_COUNT) return;
  const char *base = (const char *)d + derived[i].offset;
  if (derived[i].type == SIM_TYPE_U64)
    snprintf(out, out_bytes, "%" PRIu64, *(const uint64_t *)(const void *)base);
  else
    snprintf(out, out_bytes, "%.6g", *(const double *)(const void *)base);
}

cs_status sim_config_resolve(const char *path_or_NULL, sim_config *c, sim_config_derived *d,
                             cs_err *err) {
  sim_config tmp;
  sim_config_defaults(&tmp);
  if (path_or_NULL) {
    cs_status st = sim_config_load_file(&tmp, path_or_NULL, err);
    if (st != CS_OK) return st;
  }
  cs_status st = sim_config_validate(&tmp, err);
  if (st != CS_OK) {
    if (path_or_NULL) cs_err_prefix(err, "%s", path_or_NULL);
    return st;
  }
  *c = tmp;
  if (d) sim_config_derive(c, d);
  return CS_OK;
}

/* ---- writers ---- */

/* s as a YAML double-quoted scalar. */
static void write_yaml_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
    if (*q == '"' || *q == '\\') fprintf(f, "\\%c", *q);
    else if (*q < 0x20 || *q == 0x7f) fprintf(f, "\\x%02x", *q);
    else fputc(*q, f);
  }
  fputc('"', f);
}

void sim_config_write_yaml(const sim_config *c, FILE *f) {
  sim_config dflt;
  sim_config_defaults(&dflt);
  fprintf(f, "# cubesim chip configuration \"");
  for (const char *q = c->chip_name; *q && q < c->chip_name + SIM_CONFIG_STR_BYTES; q++)
    fputc(isprint((unsigned char)*q) ? *q : '?', f);
  fprintf(f,
          "\".\n"
          "# Every parameter, with what it means, its unit and range, and where its value comes\n"
          "# from: \"documented\" values are the Atlas A2 (910B) figures of Huawei's public\n"
          "# documents (docs/DESIGN.md), \"assumption\" values are cubesim's own choices where\n"
          "# the documents are silent. Keys left out of a file keep the built-in defaults.\n"
          "# Written by cubesim (`cubesim config show --yaml`); it loads back to exactly this\n"
          "# configuration. docs/CONFIG.md describes every parameter.\n");
  for (int s = 0; s < SIM_SECTION_COUNT; s++) {
    fprintf(f, "\n%s:  # %s\n", sections[s].name, sections[s].description);
    for (size_t i = 0; i < SIM_PARAM_COUNT; i++) {
      const sim_param_info *p = &params[i];
      if ((int)p->section_id != s) continue;
      char range[96], val[72], def[72];
      sim_config_param_range_text(i, range, sizeof range);
      sim_config_param_value_text(c, i, val, sizeof val);
      sim_config_param_default_text(i, def, sizeof def);
      fprintf(f, "  # %s. [%s%s%s]\n", p->description, p->unit, p->unit[0] ? "; " : "", range);
      fprintf(f, "  # %s: %s\n", p->assumption ? "assumption" : "documented", p->source);
      /* The provenance above is the default's: say so when this value is another. */
      if (!sim_config_param_equal(c, &dflt, i))
        fprintf(f, "  # (not the built-in default, which is %s)\n", def);
      fprintf(f, "  %s: ", p->key);
      if (p->type == SIM_TYPE_STR) write_yaml_string(f, val);
      else fputs(val, f);
      fputc('\n', f);
    }
  }
}

/* Whole numbers as integers ("1800", not cs_json_double's shortest "1.8e+03"). */
static void json_f64(cs_json *j, double v) {
  if (!isfinite(v)) {
    cs_json_null(j);
    return;
  }
  char buf[40];
  format_f64(buf, sizeof buf, v);
  cs_json_raw(j, buf);
}

static void write_param_json(const sim_config *c, size_t i, cs_json *j) {
  const sim_param_info *p = &params[i];
  switch (p->type) {
    case SIM_TYPE_U64: cs_json_uint(j, *u64_cfield(c, p)); break;
    case SIM_TYPE_F64: json_f64(j, *f64_cfield(c, p)); break;
    case SIM_TYPE_BOOL: cs_json_bool(j, *bool_cfield(c, p)); break;
    case SIM_TYPE_STR: {
      char s[SIM_CONFIG_STR_BYTES];
      memcpy(s, str_cfield(c, p), sizeof s);
      s[sizeof s - 1] = '\0';
      cs_json_str(j, s);
      break;
    }
  }
}

void sim_config_write_json(const sim_config *c, cs_json *j) {
  cs_json_obj_begin(j);
  for (int s = 0; s < SIM_SECTION_COUNT; s++) {
    cs_json_key(j, sections[s].name);
    cs_json_obj_begin(j);
    for (size_t i = 0; i < SIM_PARAM_COUNT; i++) {
      if ((int)params[i].section_id != s) continue;
      cs_json_key(j, params[i].key);
      write_param_json(c, i, j);
    }
    cs_json_obj_end(j);
  }
  cs_json_obj_end(j);
}

void sim_config_write_derived_json(const sim_config_derived *d, cs_json *j) {
  cs_json_obj_begin(j);
  for (size_t i = 0; i < SIM_DERIVED_COUNT; i++) {
    const char *base = (const char *)d + derived[i].offset;
    cs_json_key(j, derived[i].name);
    if (derived[i].type == SIM_TYPE_U64) cs_json_uint(j, *(const uint64_t *)(const void *)base);
    else json_f64(j, *(const double *)(const void *)base);
  }
  cs_json_obj_end(j);
}
