/* Tests of base/cs_file: whole-file reads with a cap (regular files refused by their size,
 * pipes after the cap), and the YAML flow-nesting guard (depth counted outside quotes and
 * comments, the position of the first bracket too deep). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cs_file.h"
#include "support/tmp_files.h"

static void test_file_read_regular_files(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char path[128], want[256];
  tf_join(path, sizeof path, d.path, "x.yaml");
  tf_write_text(path, "chip:\n  cores: 2\n");
  char *text;
  size_t len;
  cs_err e;
  assert_int_equal(cs_file_read(path, "a configuration", 17, &text, &len, &e), CS_OK);
  assert_int_equal(len, 17);
  assert_string_equal(text, "chip:\n  cores: 2\n");
  free(text);
  /* one byte over the cap: refused by its size, before reading */
  assert_int_equal(cs_file_read(path, "a configuration", 16, &text, &len, &e), CS_EINVAL);
  snprintf(want, sizeof want, "%s: 17 B is more than a configuration may hold (16 B)", path);
  assert_string_equal(e.msg, want);
  assert_null(text);
  /* empty, and missing */
  tf_write_text(path, "");
  assert_int_equal(cs_file_read(path, "a program", 16, &text, &len, &e), CS_OK);
  assert_int_equal(len, 0);
  assert_string_equal(text, "");
  free(text);
  tf_join(path, sizeof path, d.path, "missing");
  assert_int_equal(cs_file_read(path, "a program", 16, &text, &len, &e), CS_EIO);
  snprintf(want, sizeof want, "%s: cannot open: %s", path, strerror(ENOENT));
  assert_string_equal(e.msg, want);
  tf_dir_remove(&d);
}

/* A pipe's size is unknown: it is read up to the cap, and one byte more is refused. */
static void test_file_read_pipes_up_to_the_cap(void **state) {
  (void)state;
  for (int extra = 0; extra < 2; extra++) {
    int p[2];
    assert_int_equal(pipe(p), 0);
    char data[100];
    memset(data, 'x', sizeof data);
    size_t n = 64 + (size_t)extra;
    assert_int_equal(write(p[1], data, n), (ssize_t)n);
    close(p[1]);
    char path[32];
    snprintf(path, sizeof path, "/dev/fd/%d", p[0]);
    char *text;
    size_t len;
    cs_err e;
    cs_status st = cs_file_read(path, "a program", 64, &text, &len, &e);
    close(p[0]);
    if (!extra) {
      assert_int_equal(st, CS_OK);
      assert_int_equal(len, 64);
      free(text);
    } else {
      assert_int_equal(st, CS_EINVAL);
      char want[160];
      snprintf(want, sizeof want, "%s: not a regular file, and it gave more than the 64 B cubesim reads of a program",
               path);
      assert_string_equal(e.msg, want);
    }
  }
  /* /dev/zero never ends: refused at the cap */
  char *text;
  size_t len;
  cs_err e;
  assert_int_equal(cs_file_read("/dev/zero", "a configuration", 4096, &text, &len, &e), CS_EINVAL);
  assert_string_equal(e.msg, "/dev/zero: not a regular file, and it gave more than the 4.0 KiB cubesim reads of a "
                             "configuration");
}

/* n opening brackets then n closing ones, after prefix */
static char *nested(const char *prefix, char open, char close, int n) {
  size_t p = strlen(prefix);
  char *s = malloc(p + 2 * (size_t)n + 2);
  memcpy(s, prefix, p);
  for (int i = 0; i < n; i++) s[p + (size_t)i] = open;
  for (int i = 0; i < n; i++) s[p + (size_t)n + (size_t)i] = close;
  s[p + 2 * (size_t)n] = '\n';
  s[p + 2 * (size_t)n + 1] = '\0';
  return s;
}

static void test_file_yaml_flow_depth(void **state) {
  (void)state;
  cs_err e;
  /* 64 deep is fine, 65 is refused at the 65th bracket (column 6 + 65 - 1 after "chip: ") */
  char *t = nested("chip: ", '[', ']', 64);
  assert_int_equal(cs_yaml_check_flow_depth(t, strlen(t), "c.yaml", 64, &e), CS_OK);
  free(t);
  t = nested("chip: ", '{', '}', 65);
  assert_int_equal(cs_yaml_check_flow_depth(t, strlen(t), "c.yaml", 64, &e), CS_EFORMAT);
  assert_string_equal(e.msg, "c.yaml:1:71: YAML flow collections nested more than 64 deep");
  free(t);
  /* closed collections do not add up: 100 of depth 1 in a row */
  char many[512] = "a: ";
  for (int i = 0; i < 100; i++) strcat(many, "[]");
  assert_int_equal(cs_yaml_check_flow_depth(many, strlen(many), "m", 2, &e), CS_OK);
  /* brackets in quotes, comments and inside plain scalars do not count */
  const char *quiet = "a: '[[[[[['  # [[[[[[\nb: \"[[[\\\"[[[\"\nc: x[[[[[[\nd: 'it''s [[[['\n";
  assert_int_equal(cs_yaml_check_flow_depth(quiet, strlen(quiet), "q", 2, &e), CS_OK);
  /* the line and column of a deep one on a later line */
  const char *deep = "# [[[[\nchip:\n  x: [[[ 1 ]]]\n";
  assert_int_equal(cs_yaml_check_flow_depth(deep, strlen(deep), "d.yaml", 2, &e), CS_EFORMAT);
  assert_string_equal(e.msg, "d.yaml:3:8: YAML flow collections nested more than 2 deep");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_file_read_regular_files),
      cmocka_unit_test(test_file_read_pipes_up_to_the_cap),
      cmocka_unit_test(test_file_yaml_flow_depth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
