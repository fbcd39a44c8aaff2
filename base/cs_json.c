/* cs_json — streaming JSON writer. */
#include "base/cs_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cs_json_init(cs_json *j, FILE *f, bool pretty) {
  memset(j, 0, sizeof *j);
  j->f = f;
  j->pretty = pretty;
}

static void indent(cs_json *j) {
  if (!j->pretty) return;
  fputc('\n', j->f);
  for (int i = 0; i < j->depth; i++) fputs("  ", j->f);
}

/* Called before every value or key: writes the separator the position needs. */
static void before_item(cs_json *j) {
  if (j->after_key) {
    j->after_key = false;
    return;
  }
  if (j->depth > 0) {
    if (j->has_items[j->depth]) fputc(',', j->f);
    j->has_items[j->depth] = true;
    indent(j);
  }
}

static void open(cs_json *j, char c) {
  before_item(j);
  fputc(c, j->f);
  if (j->depth + 1 < CS_JSON_MAX_DEPTH) j->depth++;
  j->has_items[j->depth] = false;
}

static void close(cs_json *j, char c) {
  bool had = j->has_items[j->depth];
  if (j->depth > 0) j->depth--;
  if (had) indent(j);
  fputc(c, j->f);
  if (j->depth == 0 && j->pretty) fputc('\n', j->f);
}

void cs_json_obj_begin(cs_json *j) { open(j, '{'); }
void cs_json_obj_end(cs_json *j) { close(j, '}'); }
void cs_json_arr_begin(cs_json *j) { open(j, '['); }
void cs_json_arr_end(cs_json *j) { close(j, ']'); }

void cs_json_write_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '"': fputs("\\\"", f); break;
      case '\\': fputs("\\\\", f); break;
      case '\n': fputs("\\n", f); break;
      case '\r': fputs("\\r", f); break;
      case '\t': fputs("\\t", f); break;
      default:
        if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
  }
  fputc('"', f);
}

void cs_json_key(cs_json *j, const char *key) {
  before_item(j);
  cs_json_write_string(j->f, key);
  fputs(j->pretty ? ": " : ":", j->f);
  j->after_key = true;
}

void cs_json_str(cs_json *j, const char *s) {
  before_item(j);
  if (s) cs_json_write_string(j->f, s);
  else fputs("null", j->f);
}

void cs_json_int(cs_json *j, int64_t v) {
  before_item(j);
  fprintf(j->f, "%lld", (long long)v);
}

void cs_json_uint(cs_json *j, uint64_t v) {
  before_item(j);
  fprintf(j->f, "%llu", (unsigned long long)v);
}

void cs_json_format_double(char *out, size_t out_bytes, double v) {
  int prec = 1;
  for (; prec < 17; prec++) {
    snprintf(out, out_bytes, "%.*g", prec, v);
    if (strtod(out, NULL) == v) break;
  }
  snprintf(out, out_bytes, "%.*g", prec, v);
  /* %g switches to an exponent once it is >= the precision ("3e+02"): between 1e-5 and 1e16
   * write the same digits in plain notation instead ("300"). */
  double mag = fabs(v);
  if (strchr(out, 'e') && mag >= 1e-5 && mag < 1e16) {
    int exp10 = (int)floor(log10(mag));
    int decimals = prec - 1 - exp10;
    snprintf(out, out_bytes, "%.*f", decimals < 0 ? 0 : decimals, v);
  }
}

void cs_json_double(cs_json *j, double v) {
  before_item(j);
  if (!isfinite(v)) {
    fputs("null", j->f);
    return;
  }
  char buf[40];
  cs_json_format_double(buf, sizeof buf, v);
  fputs(buf, j->f);
}

void cs_json_bool(cs_json *j, bool v) {
  before_item(j);
  fputs(v ? "true" : "false", j->f);
}

void cs_json_null(cs_json *j) {
  before_item(j);
  fputs("null", j->f);
}

void cs_json_raw(cs_json *j, const char *text) {
  before_item(j);
  fputs(text, j->f);
}

void cs_json_member_str(cs_json *j, const char *key, const char *s) {
  cs_json_key(j, key);
  cs_json_str(j, s);
}

void cs_json_member_int(cs_json *j, const char *key, int64_t v) {
  cs_json_key(j, key);
  cs_json_int(j, v);
}

void cs_json_member_uint(cs_json *j, const char *key, uint64_t v) {
  cs_json_key(j, key);
  cs_json_uint(j, v);
}

void cs_json_member_double(cs_json *j, const char *key, double v) {
  cs_json_key(j, key);
  cs_json_double(j, v);
}
