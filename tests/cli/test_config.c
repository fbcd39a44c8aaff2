/* Tests of `cubesim config show`: text, JSON, YAML and Markdown output, and its errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "support/cli_run.h"
#include "support/tmp_files.h"

#define SRC CUBESIM_SOURCE_DIR "/"

static void test_cli_config_show_text_defaults(void **state) {
  (void)state;
  cr_result r = cr_run("config", "show", NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  cr_assert_prefix(r.out, "cubesim configuration \"ascend910b\": built-in defaults\n");
  cr_assert_contains(r.out, "\nchip: the chip: name, number of cores, clock, fixpipe mode\n");
  cr_assert_contains(r.out,
                     "\n  chip.aic_cores               24                     cores           AI cube "
                     "cores; each runs its own instruction stream, all share L2 and HBM\n");
  cr_assert_contains(r.out,
                     "\n  buffers.l1_bytes             524288 (512 KiB)       bytes           L1 per "
                     "core: ");
  cr_assert_contains(r.out,
                     "\n  scalar.dispatch_cycles       5                      cycles          "
                     "[assumption] cycles the scalar unit spends issuing one instruction");
  cr_assert_contains(r.out,
                     "\n  gm.hbm_gb_per_s              1800                   GB/s            HBM "
                     "bandwidth");
  cr_assert_contains(r.out, "\n  l2_sets                      24576                  sets ");
  cr_assert_contains(r.out, "\n  hbm_bytes_per_cycle          972.973                B/cycle ");
  /* Nothing differs from the defaults, so nothing says "(default ...)". */
  assert_null(strstr(r.out, "(default "));
  cr_free(&r);
}

static void test_cli_config_show_text_file(void **state) {
  (void)state;
  cr_result r = cr_run("config", "show", SRC "configs/teaching.yaml", NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  cr_assert_contains(r.out, "cubesim configuration \"teaching\": " SRC
                     "configs/teaching.yaml over the built-in defaults\n");
  cr_assert_contains(r.out, "\n  chip.aic_cores               2                      cores  ");
  cr_assert_contains(r.out, "all share L2 and HBM (default 24)\n");
  cr_assert_contains(r.out, "\n  buffers.l0a_bytes            16384 (16 KiB)         bytes  ");
  /* A key the file leaves out: the default, without a "(default ...)" note. */
  cr_assert_contains(r.out, "\n  buffers.bt_bytes             1024 (1 KiB)           bytes  ");
  cr_assert_contains(r.out, "(at least 16 biases)\n");
  cr_assert_contains(r.out, "\n  hbm_bytes_per_cycle          64                     B/cycle ");
  cr_assert_contains(r.out, "\n  l2_sets                      128                    sets ");
  cr_free(&r);
}

static void test_cli_config_show_json(void **state) {
  (void)state;
  cr_result r = cr_run("config", "show", "--json", NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  cr_assert_prefix(r.out, "{\n  \"source\": \"built-in defaults\",\n  \"config\": {\n"
                   "    \"chip\": {\n      \"name\": \"ascend910b\",\n"
                   "      \"aic_cores\": 24,\n      \"aiv_per_aic\": 2,\n      \"clock_mhz\": 1850,\n");
  cr_assert_contains(r.out, "\"hbm_gb_per_s\": 1800,\n");
  cr_assert_contains(r.out, "\"l2_sets\": 24576,\n");
  cr_assert_contains(r.out, "\"cube_k0_int8\": 32,\n");
  cr_assert_contains(r.out, "\"key\": \"scalar.dispatch_cycles\",\n      \"type\": \"u64\",\n"
                     "      \"unit\": \"cycles\",\n      \"default\": 5,\n"
                     "      \"allowed\": \"1 to 10000\",\n      \"assumption\": true,\n");
  cr_assert_contains(r.out, "\"key\": \"chip.aic_cores\",\n      \"type\": \"u64\",\n"
                     "      \"unit\": \"cores\",\n      \"default\": 24,\n"
                     "      \"allowed\": \"1 to 1024\",\n      \"assumption\": false,\n");
  assert_string_equal(r.out + strlen(r.out) - 6, "  ]\n}\n");
  cr_free(&r);

  r = cr_run("config", "show", SRC "configs/teaching.yaml", "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"source\": \"" SRC "configs/teaching.yaml\",\n");
  cr_assert_contains(r.out,
                     "\"name\": \"teaching\",\n      \"aic_cores\": 2,\n      \"aiv_per_aic\": 2,\n      \"clock_mhz\": 1000,");
  cr_assert_contains(r.out, "\"hbm_bytes_per_cycle\": 64,\n");
  cr_assert_contains(r.out, "\"l2_sets\": 128,\n");
  /* The parameter table still lists the built-in defaults. */
  cr_assert_contains(r.out, "\"key\": \"chip.aic_cores\",\n      \"type\": \"u64\",\n"
                     "      \"unit\": \"cores\",\n      \"default\": 24,\n");
  cr_free(&r);
}

static void test_cli_config_set_overrides(void **state) {
  (void)state;
  cr_result r = cr_run("config", "show", SRC "configs/teaching.yaml", "--set", "chip.aic_cores=8",
                       "--set=l2.enabled=false", "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.out, "\"aic_cores\": 8,");
  cr_assert_contains(r.out, "\"enabled\": false,");
  cr_assert_contains(r.out, "\"clock_mhz\": 1000,"); /* from the file */
  cr_free(&r);
  r = cr_run("config", "show", "--set", "chip.aic_cores=0", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.out, "");
  assert_string_equal(r.err, "cubesim config show: error: --set chip.aic_cores=0: chip.aic_cores = 0 is "
                             "below the minimum 1\n");
  cr_free(&r);
  r = cr_run("config", "show", "--set", "buffers.l0a_bytes=1000", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: buffers.l0a_bytes = 1000 is not a "
                             "multiple of buffers.l0a_align_bytes = 512\n");
  cr_free(&r);
}

/* configs/ascend910b.yaml is `config show --yaml` of the defaults; docs/CONFIG.md is
 * `config show --markdown`. Regenerate them with those commands when the table changes. */
static void test_cli_config_shipped_files_are_current(void **state) {
  (void)state;
  cr_result r = cr_run("config", "show", "--yaml", NULL);
  assert_int_equal(r.status, 0);
  char *file = tf_read(SRC "configs/ascend910b.yaml", NULL);
  assert_non_null(file);
  if (strcmp(r.out, file) != 0)
    print_message("configs/ascend910b.yaml is stale: regenerate it with "
                  "`build/cubesim config show --yaml > configs/ascend910b.yaml`\n");
  assert_string_equal(r.out, file);
  free(file);
  cr_free(&r);

  r = cr_run("config", "show", "--markdown", NULL);
  assert_int_equal(r.status, 0);
  file = tf_read(SRC "docs/CONFIG.md", NULL);
  assert_non_null(file);
  if (strcmp(r.out, file) != 0)
    print_message("docs/CONFIG.md is stale: regenerate it with "
                  "`build/cubesim config show --markdown > docs/CONFIG.md`\n");
  assert_string_equal(r.out, file);
  free(file);
  cr_free(&r);
}

static void test_cli_config_yaml_output_loads_back(void **state) {
  (void)state;
  char dir[64], path[96];
  tf_mkdtemp(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/teaching-full.yaml", dir);
  cr_result a = cr_run("config", "show", SRC "configs/teaching.yaml", "--yaml", NULL);
  assert_int_equal(a.status, 0);
  cr_assert_contains(a.out, "  # (not the built-in default, which is 24)\n  aic_cores: 2\n");
  tf_write_text(path, a.out);
  cr_result b = cr_run("config", "show", path, "--yaml", NULL);
  assert_int_equal(b.status, 0);
  assert_string_equal(a.out, b.out);
  cr_free(&a);
  cr_free(&b);
  tf_remove_tree(dir);
}

static void test_cli_config_errors_in_process(void **state) {
  (void)state;
  char dir[64], path[96], want[256];
  tf_mkdtemp(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/bad.yaml", dir);

  tf_write_text(path, "chip:\n  cores: 4\n   clock_mhz: 1000\n");
  cr_result r = cr_run("config", "show", path, NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.out, "");
  snprintf(want, sizeof want,
           "cubesim config show: error: %s:3:13: malformed YAML: mapping values are not allowed "
           "in this context\n",
           path);
  assert_string_equal(r.err, want);
  cr_free(&r);

  tf_write_text(path, "l2:\n  wayz: 8\n");
  r = cr_run("config", "show", path, "--json", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.out, "");
  snprintf(want, sizeof want,
           "cubesim config show: error: %s:2:3: unknown key 'l2.wayz' (did you mean "
           "'l2.ways'?)\n",
           path);
  assert_string_equal(r.err, want);
  cr_free(&r);
  tf_remove_tree(dir);

  r = cr_run("config", "show", SRC "configs/none.yaml", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: " SRC
                             "configs/none.yaml: cannot open: No such file or directory\n");
  cr_free(&r);

  r = cr_run("config", "show", "a.yaml", "b.yaml", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: more than one FILE ('a.yaml' and "
                             "'b.yaml')\n");
  cr_free(&r);
  r = cr_run("config", "show", "--jsn", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: unknown option '--jsn' (did you mean '--json'?)\n");
  cr_free(&r);
  r = cr_run("config", "show", "--frobnicate", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: unknown option '--frobnicate' (cubesim config show --help "
                             "lists them)\n");
  cr_free(&r);
  r = cr_run("config", "show", "--json", "--markdown", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err,
                      "cubesim config show: error: --json, --yaml and --markdown exclude each "
                      "other\n");
  cr_free(&r);
  r = cr_run("config", "show", "--set", "chip.aic_cores", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: --set chip.aic_cores: expected KEY=VALUE "
                             "(e.g. chip.aic_cores=4)\n");
  cr_free(&r);
  r = cr_run("config", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config: error: missing subcommand (cubesim config show)\n");
  cr_free(&r);
  r = cr_run("config", "list", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config: error: unknown subcommand 'list' (cubesim config "
                             "--help lists them)\n");
  cr_free(&r);
  r = cr_run("config", "shwo", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config: error: unknown subcommand 'shwo' (did you mean 'show'?)\n");
  cr_free(&r);
  r = cr_run("config", "show", "--help", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_prefix(r.out, "usage: cubesim config show [FILE] ");
  assert_string_equal(r.err, "");
  cr_free(&r);
}

/* End to end through the real executable: exit status 2, one line on stderr, nothing on stdout. */
static void test_cli_config_bad_file_exits_2(void **state) {
  (void)state;
  char dir[64], yaml[96], out[96], err[96], cmd[512], want[256];
  tf_mkdtemp(dir, sizeof dir);
  snprintf(yaml, sizeof yaml, "%s/bad.yaml", dir);
  snprintf(out, sizeof out, "%s/out.txt", dir);
  snprintf(err, sizeof err, "%s/err.txt", dir);
  tf_write_text(yaml, "# too few cores\nchip:\n  cores: 0\n");
  snprintf(cmd, sizeof cmd, "'%s' config show '%s' >'%s' 2>'%s'", CUBESIM_BINARY, yaml, out, err);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 2);
  char *o = tf_read(out, NULL), *e = tf_read(err, NULL);
  assert_string_equal(o, "");
  snprintf(want, sizeof want,
           "cubesim config show: error: %s:3:10: chip.aic_cores = 0 is below the minimum 1\n", yaml);
  assert_string_equal(e, want);
  free(o);
  free(e);

  /* And the good case through the executable. */
  snprintf(cmd, sizeof cmd, "'%s' config show '%s' >'%s' 2>'%s'", CUBESIM_BINARY,
           SRC "configs/ascend910b.yaml", out, err);
  st = system(cmd);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  o = tf_read(out, NULL);
  cr_assert_contains(o, "\n  chip.aic_cores               24      ");
  free(o);
  tf_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_config_show_text_defaults),
      cmocka_unit_test(test_cli_config_show_text_file),
      cmocka_unit_test(test_cli_config_show_json),
      cmocka_unit_test(test_cli_config_set_overrides),
      cmocka_unit_test(test_cli_config_shipped_files_are_current),
      cmocka_unit_test(test_cli_config_yaml_output_loads_back),
      cmocka_unit_test(test_cli_config_errors_in_process),
      cmocka_unit_test(test_cli_config_bad_file_exits_2),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
