/* Tests of base/: strict number parsing, the JSON writer and the error record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/cs_json.h"
#include "base/cs_parse.h"
#include "base/cs_status.h"

static void test_cs_parse_u64_accepts_hex_and_decimal(void **state) {
  (void)state;
  uint64_t v = 0;
  cs_err e;
  assert_int_equal(cs_parse_u64("0x40003dccc000", "word", &v, &e), CS_OK);
  assert_true(v == 0x40003dccc000ull);
  assert_int_equal(cs_parse_u64("18446744073709551615", "word", &v, &e), CS_OK);
  assert_true(v == UINT64_MAX);
  assert_int_equal(cs_parse_u64("0", "word", &v, &e), CS_OK);
  assert_true(v == 0);
}

static void test_cs_parse_u64_rejects_garbage(void **state) {
  (void)state;
  uint64_t v = 7;
  cs_err e;
  assert_int_equal(cs_parse_u64("0x12g", "word", &v, &e), CS_EINVAL);
  assert_string_equal(e.msg, "word: '0x12g' is not an unsigned integer");
  assert_int_equal(cs_parse_u64("", "word", &v, &e), CS_EINVAL);
  assert_int_equal(cs_parse_u64("-1", "word", &v, &e), CS_EINVAL);
  assert_int_equal(cs_parse_u64("18446744073709551616", "word", &v, &e), CS_EINVAL);
  assert_string_equal(e.msg, "word: '18446744073709551616' does not fit in 64 bits");
  assert_int_equal(cs_parse_u64("010", "word", &v, &e), CS_EINVAL);
  assert_true(v == 7);
}

static void test_cs_parse_i64_signs_and_limits(void **state) {
  (void)state;
  int64_t v = 0;
  cs_err e;
  assert_int_equal(cs_parse_i64("-3", "offset", &v, &e), CS_OK);
  assert_true(v == -3);
  assert_int_equal(cs_parse_i64("-9223372036854775808", "x", &v, &e), CS_OK);
  assert_true(v == INT64_MIN);
  assert_int_equal(cs_parse_i64("9223372036854775808", "x", &v, &e), CS_EINVAL);
  assert_int_equal(cs_parse_i64("--3", "x", &v, &e), CS_EINVAL);
  assert_string_equal(e.msg, "x: '--3' is not an integer");
}

static void test_cs_parse_double_and_bool(void **state) {
  (void)state;
  double d = 0;
  int b = -1;
  cs_err e;
  assert_int_equal(cs_parse_double("0.1", "scale", &d, &e), CS_OK);
  assert_true(d == 0.1);
  assert_int_equal(cs_parse_double("0.1x", "scale", &d, &e), CS_EINVAL);
  assert_string_equal(e.msg, "scale: '0.1x' is not a number");
  assert_int_equal(cs_parse_bool("TRUE", "flag", &b, &e), CS_OK);
  assert_int_equal(b, 1);
  assert_int_equal(cs_parse_bool("off", "flag", &b, &e), CS_OK);
  assert_int_equal(b, 0);
  assert_int_equal(cs_parse_bool("maybe", "flag", &b, &e), CS_EINVAL);
  assert_string_equal(e.msg, "flag: 'maybe' is not a boolean (true or false)");
}

static char *json_of(void (*write)(cs_json *)) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cs_json j;
  cs_json_init(&j, f, false);
  write(&j);
  fclose(f);
  return buf;
}

static void write_sample(cs_json *j) {
  cs_json_obj_begin(j);
  cs_json_key(j, "word");
  cs_json_str(j, "0x\"q\"\n");
  cs_json_key(j, "list");
  cs_json_arr_begin(j);
  cs_json_int(j, -3);
  cs_json_uint(j, UINT64_MAX);
  cs_json_double(j, 0.1);
  cs_json_double(j, 0.0999755859375);
  cs_json_double(j, 1.0 / 0.0);
  cs_json_arr_end(j);
  cs_json_key(j, "empty");
  cs_json_obj_begin(j);
  cs_json_obj_end(j);
  cs_json_key(j, "b");
  cs_json_bool(j, true);
  cs_json_key(j, "n");
  cs_json_null(j);
  cs_json_obj_end(j);
}

static void test_cs_json_commas_escapes_and_numbers(void **state) {
  (void)state;
  char *s = json_of(write_sample);
  assert_string_equal(s,
                      "{\"word\":\"0x\\\"q\\\"\\n\",\"list\":[-3,18446744073709551615,0.1,"
                      "0.0999755859375,null],\"empty\":{},\"b\":true,\"n\":null}");
  free(s);
}

static void write_members(cs_json *j) {
  cs_json_obj_begin(j);
  cs_json_member_str(j, "s", "a\tb");
  cs_json_member_str(j, "none", NULL);
  cs_json_member_int(j, "i", INT64_MIN);
  cs_json_member_uint(j, "u", 42);
  cs_json_member_double(j, "d", 1.0 / 3.0);
  cs_json_member_double(j, "nan", 0.0 / 0.0);
  cs_json_obj_end(j);
}

/* Each member writer is cs_json_key and the value. */
static void test_cs_json_members(void **state) {
  (void)state;
  char *s = json_of(write_members);
  assert_string_equal(s, "{\"s\":\"a\\tb\",\"none\":null,\"i\":-9223372036854775808,\"u\":42,"
                         "\"d\":0.3333333333333333,\"nan\":null}");
  free(s);
}

static void test_cs_json_doubles_read_back_in_plain_notation(void **state) {
  (void)state;
  char b[64];
  cs_json_format_double(b, sizeof b, 300);
  assert_string_equal(b, "300");
  cs_json_format_double(b, sizeof b, 1850);
  assert_string_equal(b, "1850");
  cs_json_format_double(b, sizeof b, 0.00001);
  assert_string_equal(b, "0.00001");
  cs_json_format_double(b, sizeof b, 2.5e-7);
  assert_string_equal(b, "2.5e-07");
  cs_json_format_double(b, sizeof b, 1e20);
  assert_string_equal(b, "1e+20");
  cs_json_format_double(b, sizeof b, 0.1);
  assert_string_equal(b, "0.1");
}

static void test_cs_err_prefix_and_exit_codes(void **state) {
  (void)state;
  cs_err e;
  cs_err_set(&e, CS_ECONFIG, "value %d over %d", 9, 8);
  cs_err_prefix(&e, "%s:%d:%d", "a.yaml", 3, 5);
  assert_string_equal(e.msg, "a.yaml:3:5: value 9 over 8");
  assert_int_equal(e.code, CS_ECONFIG);
  assert_int_equal(cs_status_exit_code(CS_OK), 0);
  assert_int_equal(cs_status_exit_code(CS_EINVAL), 2);
  assert_string_equal(cs_status_name(CS_EFAULT), "fault");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cs_parse_u64_accepts_hex_and_decimal),
      cmocka_unit_test(test_cs_parse_u64_rejects_garbage),
      cmocka_unit_test(test_cs_parse_i64_signs_and_limits),
      cmocka_unit_test(test_cs_parse_double_and_bool),
      cmocka_unit_test(test_cs_json_commas_escapes_and_numbers),
      cmocka_unit_test(test_cs_json_members),
      cmocka_unit_test(test_cs_json_doubles_read_back_in_plain_notation),
      cmocka_unit_test(test_cs_err_prefix_and_exit_codes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
