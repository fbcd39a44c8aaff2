/* Tests of kernels/kn_plugin: the registry of operators (the built-ins, operators a program adds,
 * plug-ins loaded from shared libraries), each refusal with its message, all-or-nothing loading,
 * and a plug-in's operator run through kn_ctx and through `cubesim run` / `cubesim kernels`.
 * The plug-ins are the builds of tests/plugins/fixture.c (tests/CMakeLists.txt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kernels/kn_plugin.h"
#include "support/cli_run.h"
#include "support/json_expect.h"

#define FIXTURE(kind) CUBESIM_PLUGIN_DIR "/libfixture_" kind ".so"

static kn_registry *registry(void) {
  kn_registry *r = NULL;
  cs_err err;
  assert_int_equal(kn_registry_create(&r, &err), CS_OK);
  return r;
}

static void test_registry_holds_the_builtins(void **state) {
  (void)state;
  kn_registry *r = registry();
  assert_int_equal(kn_registry_count(r), kn_op_count());
  for (size_t i = 0; i < kn_op_count(); i++) {
    assert_ptr_equal(kn_registry_at(r, i), kn_op_at(i));
    assert_null(kn_registry_origin(r, i));
  }
  assert_null(kn_registry_at(r, kn_op_count()));
  assert_ptr_equal(kn_registry_find(r, "linear"), &kn_op_linear);
  assert_null(kn_registry_find(r, "fixture_double"));
  assert_string_equal(kn_registry_suggest(r, "linaer"), "linear");
  assert_null(kn_registry_suggest(r, "softmax"));
  kn_registry_destroy(r);
  kn_registry_destroy(NULL);
}

static void test_plugin_operators_load_and_run(void **state) {
  (void)state;
  kn_registry *r = registry();
  cs_err err;
  size_t n = kn_registry_count(r);
  assert_int_equal(kn_registry_load(r, FIXTURE("ok"), &err), CS_OK);
  assert_int_equal(kn_registry_count(r), n + 2);
  assert_string_equal(kn_registry_at(r, n)->name, "fixture_double");
  assert_string_equal(kn_registry_at(r, n + 1)->name, "fixture_negate");
  assert_string_equal(kn_registry_origin(r, n), FIXTURE("ok"));
  assert_string_equal(kn_registry_suggest(r, "fixture_doubel"), "fixture_double");
  /* run it as cubesim run does: x = 0, 1, 2, 3, 4 generated from n, y = 2 x */
  const kn_op *op = kn_registry_find(r, "fixture_double");
  assert_non_null(op);
  kn_run_options o = {.seed = 1};
  kn_ctx *ctx;
  assert_int_equal(kn_ctx_create(op, &o, &ctx, &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "n", "5", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_OK);
  const kn_tensor *y = kn_ctx_output(ctx, "y");
  assert_non_null(y);
  assert_int_equal(y->count, 5);
  for (int i = 0; i < 5; i++) assert_int_equal(((const int32_t *)y->data)[i], 2 * i);
  assert_null(kn_device(ctx)); /* a host operator */
  kn_ctx_destroy(ctx);
  /* the same plug-in twice: its operators are taken */
  assert_int_equal(kn_registry_load(r, FIXTURE("ok"), &err), CS_EINVAL);
  assert_string_equal(err.msg, "plug-in " FIXTURE("ok") ": operator 'fixture_double' is already registered (from "
                               FIXTURE("ok") ")");
  assert_int_equal(kn_registry_count(r), n + 2);
  kn_registry_destroy(r);
}

static void test_plugin_refusals(void **state) {
  (void)state;
  static const struct {
    const char *path, *msg;
  } cases[] = {
      {FIXTURE("abi"), "plug-in " FIXTURE("abi") ": built for plug-in ABI version 999, this cubesim (" CUBESIM_VERSION
                       ") loads version 1: rebuild it against this cubesim's headers"},
      {FIXTURE("declines"), "plug-in " FIXTURE("declines") ": cubesim_plugin_register declined to register (it "
                            "returned NULL)"},
      {FIXTURE("noentry"), "plug-in " FIXTURE("noentry") ": not a cubesim plug-in (it defines no "
                           "cubesim_plugin_register; see KN_PLUGIN in kernels/kn_plugin.h)"},
      {FIXTURE("clash"), "plug-in " FIXTURE("clash") ": operator 'linear' is already registered (built in)"},
      {FIXTURE("baddtype"), "plug-in " FIXTURE("baddtype") ": operator 'fixture_double': input 'x' accepts the "
                            "unknown data type 'int7'"},
  };
  assert_int_equal(KN_PLUGIN_ABI_VERSION, 1);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kn_registry *r = registry();
    size_t n = kn_registry_count(r);
    cs_err err;
    assert_int_equal(kn_registry_load(r, cases[i].path, &err), CS_EINVAL);
    assert_string_equal(err.msg, cases[i].msg);
    assert_int_equal(kn_registry_count(r), n); /* all or nothing: fixture_fine of clash is not kept */
    assert_null(kn_registry_find(r, "fixture_fine"));
    kn_registry_destroy(r);
  }
  /* a file that is not there: dlopen's own words follow */
  kn_registry *r = registry();
  cs_err err;
  assert_int_equal(kn_registry_load(r, CUBESIM_PLUGIN_DIR "/no-such-plugin.so", &err), CS_EINVAL);
  cr_assert_prefix(err.msg, "plug-in " CUBESIM_PLUGIN_DIR "/no-such-plugin.so: cannot be loaded: ");
  cr_assert_contains(err.msg, "No such file");
  kn_registry_destroy(r);
}

static cs_status nothing(kn_ctx *ctx, cs_err *err) {
  (void)ctx;
  (void)err;
  return CS_OK;
}

static void test_registry_add_checks_declarations(void **state) {
  (void)state;
  static const kn_io_desc out[] = {{"y", "int32", false, "y"}};
  static const kn_io_desc two_x[] = {{"x", "int32", false, "x"}, {"x", "fp16", false, "x again"}};
  static const kn_attr_desc bad_enum[] = {{"mode", KN_ATTR_ENUM, "fast", "exact,fixpipe", "mode"}};
  static const kn_attr_desc bad_int[] = {{"m", KN_ATTR_INT, "many", NULL, "m"}};
  static const struct {
    kn_op op;
    const char *msg;
  } cases[] = {
      {{.name = "My-Op", .run = nothing, .outputs = KN_LIST(out)}, "an operator is named 'My-Op' (1 to 63 of a-z, 0-9, _)"},
      {{.name = "", .run = nothing, .outputs = KN_LIST(out)}, "an operator is named '' (1 to 63 of a-z, 0-9, _)"},
      {{.name = "matmul", .run = nothing, .outputs = KN_LIST(out)}, "operator 'matmul' is already registered (built in)"},
      {{.name = "no_run", .outputs = KN_LIST(out)}, "operator 'no_run' has no run function"},
      {{.name = "no_out", .run = nothing}, "operator 'no_out' declares 0 outputs (1 to 8)"},
      {{.name = "twice", .run = nothing, .inputs = KN_LIST(two_x), .outputs = KN_LIST(out)},
       "operator 'twice': two inputs are named 'x'"},
      {{.name = "enum", .run = nothing, .attrs = KN_LIST(bad_enum), .outputs = KN_LIST(out)},
       "operator 'enum': the default of: attribute mode: 'fast' is not one of exact,fixpipe"},
      {{.name = "int", .run = nothing, .attrs = KN_LIST(bad_int), .outputs = KN_LIST(out)},
       "operator 'int': the default of: attribute m: 'many' is not an integer"},
  };
  kn_registry *r = registry();
  size_t n = kn_registry_count(r);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cs_err err;
    assert_int_equal(kn_registry_add(r, &cases[i].op, NULL, &err), CS_EINVAL);
    assert_string_equal(err.msg, cases[i].msg);
  }
  assert_int_equal(kn_registry_count(r), n);
  static const kn_op fine = {.name = "program_op", .run = nothing, .outputs = KN_LIST(out)};
  cs_err err;
  assert_int_equal(kn_registry_add(r, &fine, "my program", &err), CS_OK);
  assert_ptr_equal(kn_registry_find(r, "program_op"), &fine);
  assert_string_equal(kn_registry_origin(r, n), "my program");
  kn_registry_destroy(r);
}

static void test_plugin_in_the_command_line(void **state) {
  (void)state;
  cr_result r = cr_run("run", "--plugin", FIXTURE("ok"), "fixture_double", "--attr", "n=3", "--check", "--json", NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "\"kernel\": \"fixture_double\"");
  cr_assert_contains(r.out, "\"mismatches\": 0");
  cr_free(&r);
  r = cr_run("kernels", "fixture_negate", "--plugin", FIXTURE("ok"), NULL);
  cr_assert_ok(&r);
  cr_assert_prefix(r.out, "fixture_negate  (host, plug-in " FIXTURE("ok") ")\n  y = -x\n  source: tests/plugins/fixture.c\n");
  cr_free(&r);
  /* without the plug-in the name is unknown; with a bad one, the load's message */
  r = cr_run("run", "fixture_double", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim run: error: unknown kernel 'fixture_double' (cubesim kernels lists them)\n");
  cr_free(&r);
  r = cr_run("kernels", "--plugin", FIXTURE("abi"), NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim kernels: error: --plugin " FIXTURE("abi") ": plug-in " FIXTURE("abi")
                             ": built for plug-in ABI version 999, this cubesim (" CUBESIM_VERSION
                             ") loads version 1: rebuild it against this cubesim's headers\n");
  assert_string_equal(r.out, "");
  cr_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_registry_holds_the_builtins),
      cmocka_unit_test(test_plugin_operators_load_and_run),
      cmocka_unit_test(test_plugin_refusals),
      cmocka_unit_test(test_registry_add_checks_declarations),
      cmocka_unit_test(test_plugin_in_the_command_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
