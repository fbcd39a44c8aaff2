/* Tests of cs_yaml: the document model (kinds, text, places) and every refusal with its place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/cs_yaml.h"

static cs_ydoc *load(const char *text) {
  cs_ydoc *d = NULL;
  cs_err err;
  if (cs_yaml_load_string(text, strlen(text), "t.yaml", &d, &err) != CS_OK) fail_msg("%s", err.msg);
  return d;
}

static void refused(const char *text, const char *msg) {
  cs_ydoc *d = NULL;
  cs_err err;
  assert_int_equal(cs_yaml_load_string(text, strlen(text), "t.yaml", &d, &err), CS_EFORMAT);
  assert_null(d);
  assert_string_equal(err.msg, msg);
}

static void test_yaml_tree_and_places(void **state) {
  (void)state;
  cs_ydoc *d = load("# a comment\ncases:\n  - id: one\n    x: 1.5\n  - id: \"two\"\n    y: [1, 2]\nflag: true\n");
  const cs_ynode *r = cs_yaml_root(d);
  assert_int_equal(r->kind, CS_Y_MAP);
  assert_int_equal(r->n, 2);
  const cs_ynode *cases = cs_ymap_get(r, "cases");
  assert_int_equal(cases->kind, CS_Y_SEQ);
  assert_int_equal(cases->n, 2);
  assert_int_equal(cases->line, 3);
  assert_int_equal(cases->col, 3);
  const cs_ynode *c0 = cases->items[0];
  assert_string_equal(cs_ymap_get(c0, "id")->text, "one");
  assert_false(cs_ymap_get(c0, "id")->quoted);
  const cs_ynode *x = cs_ymap_get(c0, "x");
  assert_int_equal(x->line, 4);
  assert_int_equal(x->col, 8);
  cs_err err;
  double v;
  assert_int_equal(cs_yaml_double(d, x, "x", &v, &err), CS_OK);
  assert_true(v == 1.5);
  const cs_ynode *id1 = cs_ymap_get(cases->items[1], "id");
  assert_true(id1->quoted);
  /* a quoted scalar is a string, never a number */
  assert_int_equal(cs_yaml_double(d, id1, "id", &v, &err), CS_EFORMAT);
  assert_string_equal(err.msg, "t.yaml:5:9: id = 'two' is not a finite number");
  const cs_ynode *y = cs_ymap_get(cases->items[1], "y");
  assert_int_equal(y->kind, CS_Y_SEQ);
  uint64_t u;
  assert_int_equal(cs_yaml_u64(d, y->items[1], "y[1]", &u, &err), CS_OK);
  assert_int_equal(u, 2);
  bool b;
  assert_int_equal(cs_yaml_bool(d, cs_ymap_get(r, "flag"), "flag", &b, &err), CS_OK);
  assert_true(b);
  assert_null(cs_ymap_get(r, "absent"));
  assert_null(cs_ymap_get(cases, "cases")); /* not a mapping */
  assert_int_equal(cs_yaml_want(d, y, CS_Y_MAP, "y", &err), CS_EFORMAT);
  assert_string_equal(err.msg, "t.yaml:6:8: y must be a mapping, not a sequence");
  assert_int_equal(cs_yaml_want(d, NULL, CS_Y_MAP, "z", &err), CS_EFORMAT);
  assert_string_equal(err.msg, "t.yaml: z is missing");
  assert_int_equal(cs_yaml_u64(d, x, "x", &u, &err), CS_EFORMAT);
  assert_string_equal(err.msg, "t.yaml:4:8: x = '1.5' is not an unsigned integer");
  assert_int_equal(cs_yaml_bool(d, x, "x", &b, &err), CS_EFORMAT);
  assert_string_equal(err.msg, "t.yaml:4:8: x = '1.5' is not true or false");
  static const char *const allowed[] = {"id", "x", NULL};
  assert_int_equal(cs_ymap_check_keys(d, c0, allowed, &err), CS_OK);
  assert_int_equal(cs_ymap_check_keys(d, cases->items[1], allowed, &err), CS_EFORMAT);
  assert_string_equal(err.msg, "t.yaml:6:5: unknown key 'y' (known: id, x)");
  cs_yaml_free(d);
}

static void test_yaml_empty_document(void **state) {
  (void)state;
  cs_ydoc *d = load("# nothing\n");
  assert_null(cs_yaml_root(d));
  cs_yaml_free(d);
}

static void test_yaml_refusals(void **state) {
  (void)state;
  refused("a: 1\na: 2\n", "t.yaml:2:1: duplicate key 'a' (first at line 1)");
  refused("a: &x 1\nb: *x\n", "t.yaml:1:4: anchors and tags are not accepted");
  refused("a: !!int 1\n", "t.yaml:1:4: anchors and tags are not accepted");
  refused("a: 1\n---\nb: 2\n", "t.yaml:2:1: a second document is not accepted");
  refused("a: [1, 2\n", "t.yaml:2:1: not valid YAML: did not find expected ',' or ']'");
  refused("? [1]\n: 2\n", "t.yaml:1:3: a key must be a plain scalar");
  char deep[200];
  memset(deep, '[', 70);
  deep[70] = '\0';
  refused(deep, "t.yaml:1:65: nesting deeper than 64 levels");
  cs_ydoc *d = NULL;
  cs_err err;
  assert_int_equal(cs_yaml_load_file("/nonexistent/x.yaml", &d, &err), CS_EIO);
  assert_string_equal(err.msg, "/nonexistent/x.yaml: cannot open: No such file or directory");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_yaml_tree_and_places),
      cmocka_unit_test(test_yaml_empty_document),
      cmocka_unit_test(test_yaml_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
