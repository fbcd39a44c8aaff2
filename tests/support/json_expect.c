/* json_expect — json_check values a test needs (see json_expect.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/json_expect.h"

jc_doc *je_parse(const char *text, size_t len) {
  jc_error e;
  jc_doc *d = jc_parse(text, len, &e);
  if (!d) /* the text too, up to 2000 bytes */
    fail_msg("JSON: offset %zu (%u:%u): %s\n%.*s", e.offset, e.line, e.column, e.msg, (int)(len < 2000 ? len : 2000),
             text);
  return d;
}

jc_doc *je_parse_file(const char *path) {
  jc_error e;
  jc_doc *d = jc_parse_file(path, &e);
  if (!d) fail_msg("%s: offset %zu (%u:%u): %s", path, e.offset, e.line, e.column, e.msg);
  return d;
}

uint64_t je_u64(const jc_value *v, const char *path) {
  uint64_t x = 0;
  if (!jc_get_u64(v, path, &x)) fail_msg("no unsigned integer at %s", path);
  return x;
}

double je_number(const jc_value *v, const char *path) {
  double x = 0;
  if (!jc_get_number(v, path, &x)) fail_msg("no number at %s", path);
  return x;
}

const char *je_string(const jc_value *v, const char *path) {
  const char *s = jc_get_string(v, path);
  if (!s) fail_msg("no string at %s", path);
  return s;
}
