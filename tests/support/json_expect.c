/* json_expect — base/cs_jsonr values a test needs (see json_expect.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/json_expect.h"

cs_jdoc *je_parse(const char *text, size_t len) {
  cs_jerror e;
  cs_jdoc *d = cs_jparse(text, len, &e);
  if (!d) /* the text too, up to 2000 bytes */
    fail_msg("JSON: offset %zu (%u:%u): %s\n%.*s", e.offset, e.line, e.column, e.msg, (int)(len < 2000 ? len : 2000),
             text);
  return d;
}

cs_jdoc *je_parse_file(const char *path) {
  cs_jerror e;
  cs_jdoc *d = cs_jparse_file(path, &e);
  if (!d) fail_msg("%s: offset %zu (%u:%u): %s", path, e.offset, e.line, e.column, e.msg);
  return d;
}

uint64_t je_u64(const cs_jvalue *v, const char *path) {
  uint64_t x = 0;
  if (!cs_jget_u64(v, path, &x)) fail_msg("no unsigned integer at %s", path);
  return x;
}

double je_number(const cs_jvalue *v, const char *path) {
  double x = 0;
  if (!cs_jget_number(v, path, &x)) fail_msg("no number at %s", path);
  return x;
}

const char *je_string(const cs_jvalue *v, const char *path) {
  const char *s = cs_jget_string(v, path);
  if (!s) fail_msg("no string at %s", path);
  return s;
}
