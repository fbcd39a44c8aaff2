/* Tests of what every command shares (cli/cli.c): --version, "did you mean" for commands,
 * options and kernels, `cubesim kernels NAME`, and the chip options (--config, --set, --cores)
 * of cubesim run and cubesim validate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_jsonr.h"
#include "sim/sim.h"
#include "support/cli_run.h"
#include "support/json_expect.h"
#include "support/tmp_files.h"

static void expect_error(cr_result r, const char *want) {
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, want);
  assert_string_equal(r.out, "");
  cr_free(&r);
}

static void test_cli_version(void **state) {
  (void)state;
  const char *forms[] = {"--version", "-V", "version"};
  for (int i = 0; i < 3; i++) {
    cr_result r = cr_run(forms[i], NULL);
    cr_assert_ok(&r);
    assert_string_equal(r.out, "cubesim " CUBESIM_VERSION "\n");
    cr_free(&r);
  }
}

static void test_cli_did_you_mean(void **state) {
  (void)state;
  expect_error(cr_run("kernles", NULL), "cubesim: error: unknown command 'kernles' (did you mean 'kernels'?)\n");
  expect_error(cr_run("--verison", NULL), "cubesim: error: unknown command '--verison' (did you mean '--version'?)\n");
  expect_error(cr_run("simulate", NULL), "cubesim: error: unknown command 'simulate' (cubesim --help lists them)\n");
  expect_error(cr_run("run", "linear", "--attrs", "m=4", NULL),
               "cubesim run: error: unknown option '--attrs' (did you mean '--attr'?)\n");
  expect_error(cr_run("run", "linear", "--timing_only", NULL),
               "cubesim run: error: unknown option '--timing_only' (did you mean '--timing-only'?)\n");
  expect_error(cr_run("run", "linear", "--trace-cores=0-3x", "--plugn=x.so", NULL),
               "cubesim run: error: unknown option '--plugn=x.so' (did you mean '--plugin'?)\n");
  expect_error(cr_run("run", "linear", "--frobnicate", NULL),
               "cubesim run: error: unknown option '--frobnicate' (cubesim run --help lists them)\n");
  expect_error(cr_run("run", "matmull", NULL), "cubesim run: error: unknown kernel 'matmull' (did you mean 'matmul'?)\n");
  expect_error(cr_run("kernels", "--jsn", NULL),
               "cubesim kernels: error: unknown option '--jsn' (did you mean '--json'?)\n");
  expect_error(cr_run("kernels", "lineer", NULL),
               "cubesim kernels: error: unknown kernel 'lineer' (did you mean 'linear'?)\n");
  expect_error(cr_run("kernels", "linear", "matmul", NULL),
               "cubesim kernels: error: one NAME at most: 'linear' and 'matmul'\n");
}

static void test_cli_kernels_one(void **state) {
  (void)state;
  cr_result r = cr_run("kernels", "linear", NULL);
  cr_assert_ok(&r);
  cr_assert_prefix(r.out, "linear  (simulated)\n  ATB Linear");
  cr_assert_contains(r.out, "\n    in     x                      int8 ");
  cr_assert_contains(r.out, "\n    out    output                 ");
  assert_null(strstr(r.out, "matmul_quant")); /* the one asked for only */
  cr_free(&r);
  r = cr_run("kernels", "--json", "tf_dequantize", NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  assert_true(cs_jis(root, CS_JOBJECT));
  assert_string_equal(je_string(root, "name"), "tf_dequantize");
  assert_true(cs_jis(cs_jget(root, "plugin"), CS_JNULL));
  bool simulated = true;
  assert_true(cs_jbool(cs_jget(root, "simulated"), &simulated) && !simulated);
  cs_jfree(doc);
  cr_free(&r);
}

static void test_cli_run_chip_options(void **state) {
  (void)state;
  cr_result r = cr_run("run", "matmul", "--attr", "in_dtype=fp16", "--attr", "m=64", "--attr", "n=64", "--attr", "k=64",
                       "--timing-only", "--cores", "3", "--json", NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  assert_int_equal(je_u64(cs_jroot(doc), "cores"), 3);
  cs_jfree(doc);
  cr_free(&r);
  expect_error(cr_run("run", "matmul", "--cores", "2", "--set", "chip.aic_cores=2", NULL),
               "cubesim run: error: --cores 2 and --set chip.aic_cores both give the core count: give one\n");
  /* the former spelling chip.cores still sets the cube core count, and still conflicts with --cores */
  r = cr_run("run", "matmul", "--attr", "in_dtype=fp16", "--attr", "m=64", "--attr", "n=64", "--attr", "k=64",
             "--timing-only", "--set", "chip.cores=5", "--json", NULL);
  cr_assert_ok(&r);
  doc = je_parse(r.out, strlen(r.out));
  assert_int_equal(je_u64(cs_jroot(doc), "cores"), 5);
  cs_jfree(doc);
  cr_free(&r);
  expect_error(cr_run("run", "matmul", "--cores", "2", "--set", "chip.cores=2", NULL),
               "cubesim run: error: --cores 2 and --set chip.aic_cores both give the core count: give one\n");
  expect_error(cr_run("run", "matmul", "--cores", "many", NULL),
               "cubesim run: error: --cores: chip.aic_cores: expected an unsigned integer (decimal or 0x hex), found 'many'\n");
  expect_error(cr_run("run", "matmul", "--set", "cores", NULL),
               "cubesim run: error: --set 'cores': expected SECTION.KEY=VALUE (e.g. chip.aic_cores=8)\n");
}

/* validate takes the same chip options as run: the anchors' 12288 x 12288 copy on 2 cores
 * instead of 24 gives each core 12 times the bytes, so its aicore time grows several-fold, and
 * --cores 2 is --set chip.aic_cores=2. */
static double validate_aicore_us(const char *opt, const char *val) {
  cr_result r = cr_run("validate", "--case", "C1-L1-64x64", "--json", opt, val, NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  double us = je_number(cs_jroot(doc), "cases[0].metrics.aicore.model_us");
  if (opt) assert_string_equal(je_string(cs_jroot(doc), "source"),
                               "configs/anchors/a2.yaml (built in) on ascend910b (built-in configuration with --set/--cores)");
  cs_jfree(doc);
  cr_free(&r);
  return us;
}

static void test_cli_validate_chip_options(void **state) {
  (void)state;
  double all = validate_aicore_us(NULL, NULL);
  double two = validate_aicore_us("--cores", "2");
  assert_true(two > 6 * all);
  assert_true(validate_aicore_us("--set", "chip.aic_cores=2") == two);
  expect_error(cr_run("validate", "--cors", "2", NULL),
               "cubesim validate: error: unknown option '--cors' (did you mean '--cores'?)\n");
  expect_error(cr_run("validate", "--case", "C1-L1-64x65", "--list", NULL),
               "cubesim validate: error: --case C1-L1-64x65: no such case in configs/anchors/a2.yaml (built in) "
               "(did you mean 'C1-L1-64x64'?)\n");
  expect_error(cr_run("validate", "--cores", "0", NULL),
               "cubesim validate: error: --cores: chip.aic_cores = 0 is below the minimum 1\n");
}

/* The summary of the errors: per role and group, their count, mean and largest |error| and where,
 * computed here again from the cases' own errors (two copies from HBM with 128 B and 512 B rows,
 * both fitted on; task, aicore and mte2 measured for each). */
static void test_cli_validate_summary(void **state) {
  (void)state;
  cr_result r = cr_run("validate", "--case", "C1-L1-64x*", "--json", NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  double e[2][3];
  static const char *const m[3] = {"task", "aicore", "mte2"};
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < 3; i++) {
      char path[64];
      snprintf(path, sizeof path, "cases[%d].metrics.%s.error", c, m[i]);
      e[c][i] = fabs(je_number(root, path));
    }
  assert_string_equal(je_string(root, "summary[0].role"), "fit");
  assert_string_equal(je_string(root, "summary[0].metrics"), "task and aicore");
  assert_int_equal(je_u64(root, "summary[0].errors"), 4);
  assert_true(fabs(je_number(root, "summary[0].mean_abs_error") - (e[0][0] + e[0][1] + e[1][0] + e[1][1]) / 4) < 1e-12);
  double times_max = fmax(fmax(e[0][0], e[0][1]), fmax(e[1][0], e[1][1]));
  assert_true(je_number(root, "summary[0].max_abs_error") == times_max);
  assert_int_equal(je_u64(root, "summary[0].outside_tolerance"), 0);
  assert_string_equal(je_string(root, "summary[1].metrics"), "pipes");
  assert_int_equal(je_u64(root, "summary[1].errors"), 2);
  assert_true(je_number(root, "summary[1].max_abs_error") == fmax(e[0][2], e[1][2]));
  assert_string_equal(je_string(root, "summary[1].max_metric"), "mte2");
  cs_jfree(doc);
  cr_free(&r);
  /* the text ends with the same lines */
  r = cr_run("validate", "--case", "C1-L1-64x*", NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "\n  fit, task and aicore: 4 errors, mean |error| ");
  cr_assert_contains(r.out, "\n  fit, pipes: 2 errors, mean |error| ");
  cr_free(&r);
}

/* An anchors file of one's own (the measured cases cubesim was not fitted on): a case may give
 * any of the times alone. Measured by its aicore time only, a copy's task time is printed without
 * an error and its aicore error is computed against the measurement; a case with no time at all
 * is refused with its place. */
/* --threads: the same JSON on one and on two host threads (the hazard check beside the replay);
 * 0 is refused with the value. */
static void test_cli_run_threads(void **state) {
  (void)state;
  cr_result one = cr_run("run", "matmul", "--attr", "m=512", "--attr", "n=384", "--attr", "k=256", "--attr",
                         "in_dtype=fp16", "--timing-only", "--json", "--threads", "1", NULL);
  cr_assert_ok(&one);
  cr_result two = cr_run("run", "matmul", "--attr", "m=512", "--attr", "n=384", "--attr", "k=256", "--attr",
                         "in_dtype=fp16", "--timing-only", "--json", "--threads", "2", NULL);
  cr_assert_ok(&two);
  assert_string_equal(two.out, one.out);
  char *one_out = strdup(one.out);
  assert_non_null(one_out);
  cs_jdoc *doc = je_parse(one.out, strlen(one.out));
  assert_true(je_u64(cs_jroot(doc), "total_cycles") > 0);
  cs_jfree(doc);
  cr_free(&one);
  cr_free(&two);
  cr_result bad = cr_run("run", "matmul", "--threads", "0", NULL);
  assert_int_equal(bad.status, 2);
  assert_non_null(strstr(bad.err, "--threads 0: give 1 to 1024 host threads"));
  cr_free(&bad);
  /* the environment's count: refused by value when it is not 1 to 1024, before any command runs */
  static const char *const wrong[] = {"two", "0", "1025", "-1", " 2", "2x"};
  for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
    setenv("CUBESIM_THREADS", wrong[i], 1);
    cr_result env = cr_run("kernels", NULL);
    assert_int_equal(env.status, 2);
    char want[96];
    snprintf(want, sizeof want, "CUBESIM_THREADS=%s: give 1 to 1024 host threads", wrong[i]);
    assert_non_null(strstr(env.err, want));
    assert_string_equal(env.out, "");
    cr_free(&env);
  }
  unsigned t = 0;
  assert_true(sim_threads_parse("1", &t));
  assert_int_equal(t, 1);
  assert_true(sim_threads_parse("1024", &t));
  assert_int_equal(t, 1024);
  assert_false(sim_threads_parse("", &t));
  assert_false(sim_threads_parse(NULL, &t));
  assert_int_equal(t, 1024); /* left alone when refused */
  setenv("CUBESIM_THREADS", "1", 1);
  cr_result ok = cr_run("run", "matmul", "--attr", "m=512", "--attr", "n=384", "--attr", "k=256", "--attr",
                        "in_dtype=fp16", "--timing-only", "--json", NULL);
  cr_assert_ok(&ok);
  assert_string_equal(ok.out, one_out);
  cr_free(&ok);
  unsetenv("CUBESIM_THREADS");
  free(one_out);
}

static void test_cli_validate_partial_measurements(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char path[128];
  tf_join(path, sizeof path, d.path, "mine.yaml");
  static const char head[] =
      "cases:\n"
      "  - id: X-aicore-only\n"
      "    title: \"a copy measured by its aicore time alone\"\n"
      "    source: \"a test\"\n"
      "    role: predict\n"
      "    kernel: data_copy\n"
      "    set: {chip.aic_cores: 2}\n"
      "    attrs: {path: l1, m: 128, n: 256, tile_m: 64, tile_n: 256}\n";
  char text[1024];
  snprintf(text, sizeof text, "%s    measured: {aicore_us: 1.0}\n", head);
  tf_write_text(path, text);
  cr_result r = cr_run("validate", path, "--json", NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  double model = je_number(root, "cases[0].metrics.aicore.model_us");
  assert_true(model > 0);
  assert_true(fabs(je_number(root, "cases[0].metrics.aicore.error") - (model - 1.0)) < 1e-12);
  assert_true(je_number(root, "cases[0].metrics.task.model_us") > model);
  assert_null(cs_jget(root, "cases[0].metrics.task.error"));
  assert_int_equal(je_u64(root, "summary[0].errors"), 1);
  cs_jfree(doc);
  cr_free(&r);
  snprintf(text, sizeof text, "%s    measured: {}\n", head);
  tf_write_text(path, text);
  r = cr_run("validate", path, NULL);
  assert_int_equal(r.status, 2);
  char want[256];
  snprintf(want, sizeof want, "cubesim validate: error: %s:9:15: case X-aicore-only: measured gives no time (task_us, aicore_us or a pipe's)\n", path);
  assert_string_equal(r.err, want);
  cr_free(&r);
  tf_dir_remove(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_version),
      cmocka_unit_test(test_cli_did_you_mean),
      cmocka_unit_test(test_cli_kernels_one),
      cmocka_unit_test(test_cli_run_chip_options),
      cmocka_unit_test(test_cli_validate_chip_options),
      cmocka_unit_test(test_cli_validate_summary),
      cmocka_unit_test(test_cli_validate_partial_measurements),
      cmocka_unit_test(test_cli_run_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
