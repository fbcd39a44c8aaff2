/* Tests of base/cs_jsonr, the strict JSON reader the reports, the comparisons and the tests rely
 * on: every kind of value, paths, exact integers, and each syntax error with its offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_json.h"
#include "base/cs_jsonr.h"

static cs_jdoc *parse_ok(const char *text) {
  cs_jerror e;
  cs_jdoc *d = cs_jparse(text, strlen(text), &e);
  if (!d) fail_msg("parse of %s failed at %zu: %s", text, e.offset, e.msg);
  return d;
}

/* Parses text, expects failure at offset with msg. */
static void parse_bad(const char *text, size_t len, size_t offset, const char *msg) {
  cs_jerror e;
  cs_jdoc *d = cs_jparse(text, len, &e);
  if (d) {
    cs_jfree(d);
    fail_msg("\"%s\" parsed, expected: %s", text, msg);
  }
  if (e.offset != offset || strcmp(e.msg, msg) != 0)
    fail_msg("\"%s\": got offset %zu \"%s\", want offset %zu \"%s\"", text, e.offset, e.msg, offset, msg);
}

#define BAD(text, offset, msg) parse_bad(text, sizeof(text) - 1, offset, msg)

static void test_jsonr_values_and_paths(void **state) {
  (void)state;
  cs_jdoc *d = parse_ok(" {\"a\": {\"b\": [10, 2.5, \"x\", true, false, null, [], {}]},\n"
                       "  \"k.dot\": {\"[q]\": 7}, \"GM->UB\": {\"bytes\": 6144}, \"e\": \"\"} ");
  const cs_jvalue *r = cs_jroot(d);
  assert_true(cs_jis(r, CS_JOBJECT));
  assert_int_equal(cs_jcount(r), 4);
  assert_string_equal(cs_jkey_at(r, 0), "a");
  assert_string_equal(cs_jkey_at(r, 3), "e");
  assert_null(cs_jkey_at(r, 4));
  const cs_jvalue *b = cs_jget(r, "a.b");
  assert_true(cs_jis(b, CS_JARRAY));
  assert_int_equal(cs_jcount(b), 8);
  uint64_t u = 0;
  double x = 0;
  bool t = false;
  assert_true(cs_jget_u64(r, "a.b[0]", &u) && u == 10);
  assert_true(cs_jget_number(r, "a.b[1]", &x) && x == 2.5);
  assert_false(cs_jget_u64(r, "a.b[1]", &u)); /* not an integer */
  assert_string_equal(cs_jget_string(r, "a.b[2]"), "x");
  assert_true(cs_jbool(cs_jget(r, "a.b[3]"), &t) && t);
  assert_true(cs_jbool(cs_jget(r, "a.b[4]"), &t) && !t);
  assert_true(cs_jis(cs_jget(r, "a.b[5]"), CS_JNULL));
  assert_int_equal(cs_jtype_of(cs_jget(r, "a.b[6]")), CS_JARRAY);
  assert_int_equal(cs_jcount(cs_jget(r, "a.b[6]")), 0);
  assert_int_equal(cs_jtype_of(cs_jget(r, "a.b[7]")), CS_JOBJECT);
  assert_null(cs_jget(r, "a.b[8]"));
  assert_true(cs_jget_u64(r, "[\"k.dot\"][\"[q]\"]", &u) && u == 7);
  assert_true(cs_jget_u64(r, "GM->UB.bytes", &u) && u == 6144);
  assert_true(cs_jget_u64(r, "[\"GM->UB\"].bytes", &u) && u == 6144);
  assert_string_equal(cs_jget_string(r, "e"), "");
  assert_ptr_equal(cs_jget(r, ""), r);
  /* missing, wrong container, malformed paths */
  assert_null(cs_jget(r, "a.c"));
  assert_null(cs_jget(r, "a[0]"));
  assert_null(cs_jget(r, "a.b.c"));
  assert_null(cs_jget(r, ".a"));
  assert_null(cs_jget(r, "a..b"));
  assert_null(cs_jget(r, "a.b[x]"));
  assert_null(cs_jget(r, "a.b[0"));
  assert_null(cs_jget(r, "a.b[0]c"));
  assert_null(cs_jget(r, "[\"a\""));
  assert_null(cs_jget(NULL, "a"));
  /* type checks */
  assert_null(cs_jget_string(r, "a.b[0]"));
  assert_false(cs_jget_number(r, "a.b[2]", &x));
  assert_false(cs_jbool(cs_jget(r, "a.b[5]"), &t));
  assert_string_equal(cs_jtype_name(CS_JOBJECT), "object");
  assert_string_equal(cs_jtype_name(CS_JNUMBER), "number");
  cs_jfree(d);
}

static void test_jsonr_strings(void **state) {
  (void)state;
  cs_jdoc *d = parse_ok("[\"q\\\"b\\\\s\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u4e2d\", \"\\ud83d\\ude00\", \"a\\u0000b\","
                       " \"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"]");
  const cs_jvalue *r = cs_jroot(d);
  assert_string_equal(cs_jstring(cs_jat(r, 0)), "q\"b\\s/\b\f\n\r\t");
  assert_string_equal(cs_jstring(cs_jat(r, 1)), "\xc3\xa9\xe4\xb8\xad");           /* é 中 */
  assert_string_equal(cs_jstring(cs_jat(r, 2)), "\xf0\x9f\x98\x80");               /* U+1F600 */
  assert_int_equal(cs_jstring_len(cs_jat(r, 3)), 3);
  assert_memory_equal(cs_jstring(cs_jat(r, 3)), "a\0b", 4);
  assert_string_equal(cs_jstring(cs_jat(r, 4)), "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80"); /* raw UTF-8 */
  cs_jfree(d);
}

static void test_jsonr_numbers_exact(void **state) {
  (void)state;
  cs_jdoc *d = parse_ok("[18446744073709551615, 18446744073709551616, -9223372036854775808, "
                       "9223372036854775807, -0, 1.50, 2e3, -1, 0.1, 1E-2]");
  const cs_jvalue *r = cs_jroot(d);
  uint64_t u = 0;
  int64_t i = 0;
  double x = 0;
  assert_true(cs_ju64(cs_jat(r, 0), &u) && u == UINT64_MAX);
  assert_false(cs_ji64(cs_jat(r, 0), &i));
  assert_false(cs_ju64(cs_jat(r, 1), &u)); /* does not fit */
  assert_true(cs_jnumber(cs_jat(r, 1), &x) && x == 18446744073709551616.0);
  assert_true(cs_ji64(cs_jat(r, 2), &i) && i == INT64_MIN);
  assert_false(cs_ju64(cs_jat(r, 2), &u));
  assert_true(cs_ji64(cs_jat(r, 3), &i) && i == INT64_MAX);
  assert_true(cs_ju64(cs_jat(r, 4), &u) && u == 0);
  assert_string_equal(cs_jnumber_text(cs_jat(r, 5)), "1.50"); /* the literal as written */
  assert_false(cs_ju64(cs_jat(r, 6), &u));                    /* an exponent is not an integer literal */
  assert_true(cs_jnumber(cs_jat(r, 6), &x) && x == 2000.0);
  assert_false(cs_ju64(cs_jat(r, 7), &u));
  assert_true(cs_ji64(cs_jat(r, 7), &i) && i == -1);
  assert_true(cs_jnumber(cs_jat(r, 8), &x) && x == 0.1);
  assert_true(cs_jnumber(cs_jat(r, 9), &x) && x == 0.01);
  assert_null(cs_jnumber_text(cs_jat(r, 10)));
  cs_jfree(d);
  /* scalars at the top level */
  d = parse_ok(" 42 ");
  assert_true(cs_ju64(cs_jroot(d), &u) && u == 42);
  cs_jfree(d);
}

static void test_jsonr_syntax_errors_with_offsets(void **state) {
  (void)state;
  BAD("", 0, "unexpected end of input: a value is expected");
  BAD("   ", 3, "unexpected end of input: a value is expected");
  BAD("[1,2,]", 5, "a value is expected, found ']'");
  BAD("{\"a\":1,}", 7, "object key (a string) expected, found '}'");
  BAD("{'a':1}", 1, "object key (a string) expected, found '''");
  BAD("{\"a\" 1}", 5, "':' expected after an object key, found '1'");
  BAD("[1 2]", 3, "',' or ']' expected after an array element, found '2'");
  BAD("{\"a\":1 \"b\":2}", 7, "',' or '}' expected after an object member, found '\"'");
  BAD("[1", 2, "',' or ']' expected after an array element, found end of input");
  BAD("01", 0, "leading zeros are not allowed in numbers");
  BAD("-", 1, "digit expected, found end of input");
  BAD("+1", 0, "a value is expected, found '+'");
  BAD("1.", 2, "digit expected after '.', found end of input");
  BAD(".5", 0, "a value is expected, found '.'");
  BAD("1e", 2, "digit expected in exponent, found end of input");
  BAD("1 2", 2, "'2' after the JSON value");
  BAD("{} x", 3, "'x' after the JSON value");
  BAD("tru", 0, "unexpected 't'");
  BAD("nul", 0, "unexpected 'n'");
  BAD("NaN", 0, "a value is expected, found 'N'");
  BAD("[Infinity]", 1, "a value is expected, found 'I'");
  BAD("// c\n1", 0, "a value is expected, found '/'");
  BAD("\"abc", 0, "unterminated string");
  BAD("\"a\\\"", 0, "unterminated string");
  BAD("[\"a\nb\"]", 3, "control character U+000A in a string (escape it)");
  BAD("\"\\q\"", 1, "invalid escape: backslash followed by 'q'");
  BAD("\"\\u12\"", 5, "\\u needs four hex digits");
  BAD("\"\\udc00\"", 1, "unpaired low surrogate in \\u escape");
  BAD("\"x\\ud800\"", 2, "unpaired high surrogate in \\u escape");
  BAD("\"\\ud800\\u0041\"", 1, "unpaired high surrogate in \\u escape");
  BAD("\"\xc0\x80\"", 1, "invalid UTF-8 in a string");         /* overlong NUL */
  BAD("\"\xed\xa0\x80\"", 1, "invalid UTF-8 in a string");     /* a surrogate in UTF-8 */
  BAD("\"\xf4\x90\x80\x80\"", 1, "invalid UTF-8 in a string"); /* above U+10FFFF */
  BAD("\"ab\xe4\xb8\"", 3, "invalid UTF-8 in a string");       /* truncated */
  BAD("{\"a\":1,\"b\":2,\"a\":3}", 13, "duplicate key \"a\" in an object");
  BAD("{\"a\\u0000\":1}", 1, "object key contains \\u0000");
  BAD("\t\x01", 1, "a value is expected, found byte 0x01");
  /* a NUL byte inside the given length is an error, not the end */
  parse_bad("[1]\0", 4, 3, "byte 0x00 after the JSON value");
}

static void test_jsonr_line_and_column(void **state) {
  (void)state;
  const char *text = "{\n  \"a\": 1,\n  \"b\": [1,\n  2,,]\n}";
  cs_jerror e;
  assert_null(cs_jparse(text, strlen(text), &e));
  assert_int_equal(e.offset, 27);
  assert_int_equal(e.line, 4);
  assert_int_equal(e.column, 5);
  assert_string_equal(e.msg, "a value is expected, found ','");
  /* NULL err is allowed */
  assert_null(cs_jparse(text, strlen(text), NULL));
}

static void test_jsonr_depth_limit(void **state) {
  (void)state;
  char deep[2000];
  size_t n = 0;
  for (int i = 0; i < 513; i++) deep[n++] = '[';
  for (int i = 0; i < 513; i++) deep[n++] = ']';
  cs_jdoc *d = cs_jparse(deep, n, NULL);
  assert_non_null(d); /* 513 levels: depths 0..512 */
  cs_jfree(d);
  n = 0;
  for (int i = 0; i < 600; i++) deep[n++] = '[';
  cs_jerror e;
  assert_null(cs_jparse(deep, n, &e));
  assert_int_equal(e.offset, 513);
  assert_string_equal(e.msg, "nesting deeper than 512 levels");
}

/* What cs_json writes (the library's writer), the reader reads back. */
static void test_jsonr_reads_cs_json_output(void **state) {
  (void)state;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  cs_json j;
  cs_json_init(&j, f, true);
  cs_json_obj_begin(&j);
  cs_json_key(&j, "s");
  cs_json_str(&j, "tab\tquote\"ctl\x01");
  cs_json_key(&j, "u");
  cs_json_uint(&j, UINT64_MAX);
  cs_json_key(&j, "i");
  cs_json_int(&j, INT64_MIN);
  cs_json_key(&j, "d");
  cs_json_double(&j, 0.1);
  cs_json_key(&j, "nan");
  cs_json_double(&j, NAN);
  cs_json_key(&j, "a");
  cs_json_arr_begin(&j);
  cs_json_arr_end(&j);
  cs_json_obj_end(&j);
  fclose(f);
  cs_jerror e;
  cs_jdoc *d = cs_jparse(text, len, &e);
  if (!d) fail_msg("offset %zu: %s", e.offset, e.msg);
  const cs_jvalue *r = cs_jroot(d);
  uint64_t u = 0;
  int64_t i = 0;
  double x = 0;
  assert_string_equal(cs_jget_string(r, "s"), "tab\tquote\"ctl\x01");
  assert_true(cs_jget_u64(r, "u", &u) && u == UINT64_MAX);
  assert_true(cs_ji64(cs_jget(r, "i"), &i) && i == INT64_MIN);
  assert_true(cs_jget_number(r, "d", &x) && x == 0.1);
  assert_true(cs_jis(cs_jget(r, "nan"), CS_JNULL));
  assert_int_equal(cs_jcount(cs_jget(r, "a")), 0);
  cs_jfree(d);
  free(text);
}

static void test_jsonr_file(void **state) {
  (void)state;
  char path[] = "/tmp/cubesim_jc_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  /* bigger than one read buffer */
  fputs("[", f);
  for (int i = 0; i < 20000; i++) fprintf(f, "%s{\"i\":%d}", i ? "," : "", i);
  fputs("]", f);
  fclose(f);
  cs_jerror e;
  cs_jdoc *d = cs_jparse_file(path, &e);
  assert_non_null(d);
  uint64_t u = 0;
  assert_int_equal(cs_jcount(cs_jroot(d)), 20000);
  assert_true(cs_jget_u64(cs_jroot(d), "[19999].i", &u) && u == 19999);
  cs_jfree(d);
  remove(path);
  assert_null(cs_jparse_file(path, &e));
  char want[256];
  snprintf(want, sizeof want, "%s: cannot open: %s", path, strerror(ENOENT));
  assert_string_equal(e.msg, want);
  assert_int_equal(e.offset, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jsonr_values_and_paths),
      cmocka_unit_test(test_jsonr_strings),
      cmocka_unit_test(test_jsonr_numbers_exact),
      cmocka_unit_test(test_jsonr_syntax_errors_with_offsets),
      cmocka_unit_test(test_jsonr_line_and_column),
      cmocka_unit_test(test_jsonr_depth_limit),
      cmocka_unit_test(test_jsonr_reads_cs_json_output),
      cmocka_unit_test(test_jsonr_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
