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
#include <unistd.h>

#include "cli/cli.h"

#define SRC CUBESIM_SOURCE_DIR "/"

typedef struct run_result {
  int status;
  char *out;
  char *err;
} run_result;

/* Runs `cubesim config <args...>` in this process (args end with NULL). */
static run_result run_config(const char *first, ...) {
  char *argv[32];
  int argc = 0;
  argv[argc++] = "cubesim";
  argv[argc++] = "config";
  va_list ap;
  va_start(ap, first);
  for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
    argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  run_result r = {0, NULL, NULL};
  size_t lo = 0, le = 0;
  cli_io io = {open_memstream(&r.out, &lo), open_memstream(&r.err, &le)};
  r.status = cli_main(&io, argc, argv);
  fclose(io.out);
  fclose(io.err);
  return r;
}

static void free_result(run_result *r) {
  free(r->out);
  free(r->err);
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) fwrite(chunk, 1, got, m);
  fclose(f);
  fclose(m);
  return buf;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* A fresh directory for files a test writes. */
static void temp_dir(char *out, size_t out_bytes) {
  snprintf(out, out_bytes, "/tmp/cubesim_cli_config_XXXXXX");
  assert_non_null(mkdtemp(out));
}

static void assert_prefix(const char *s, const char *prefix) {
  if (strncmp(s, prefix, strlen(prefix)) != 0) print_message("does not start with: [%s]\n", prefix);
  assert_memory_equal(s, prefix, strlen(prefix));
}

static void assert_contains(const char *hay, const char *needle) {
  if (!strstr(hay, needle)) print_message("missing: [%s]\n", needle);
  assert_non_null(strstr(hay, needle));
}

static void test_cli_config_show_text_defaults(void **state) {
  (void)state;
  run_result r = run_config("show", NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  assert_prefix(r.out, "cubesim configuration \"ascend910b\": built-in defaults\n");
  assert_contains(r.out, "\nchip: the chip: name, number of cores, clock, fixpipe mode\n");
  assert_contains(r.out,
                  "\n  chip.cores                   24                     cores           AI cube "
                  "cores; each runs its own instruction stream, all share L2 and HBM\n");
  assert_contains(r.out,
                  "\n  buffers.l1_bytes             524288 (512 KiB)       bytes           L1 per "
                  "core: ");
  assert_contains(r.out,
                  "\n  scalar.dispatch_cycles       4                      cycles          "
                  "[assumption] cycles the scalar unit spends issuing one instruction");
  assert_contains(r.out,
                  "\n  gm.hbm_gb_per_s              1800                   GB/s            HBM "
                  "bandwidth");
  assert_contains(r.out, "\n  l2_sets                      24576                  sets ");
  assert_contains(r.out, "\n  hbm_bytes_per_cycle          972.973                B/cycle ");
  /* Nothing differs from the defaults, so nothing says "(default ...)". */
  assert_null(strstr(r.out, "(default "));
  free_result(&r);
}

static void test_cli_config_show_text_file(void **state) {
  (void)state;
  run_result r = run_config("show", SRC "configs/teaching.yaml", NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  assert_contains(r.out, "cubesim configuration \"teaching\": " SRC
                         "configs/teaching.yaml over the built-in defaults\n");
  assert_contains(r.out, "\n  chip.cores                   2                      cores  ");
  assert_contains(r.out, "all share L2 and HBM (default 24)\n");
  assert_contains(r.out, "\n  buffers.l0a_bytes            16384 (16 KiB)         bytes  ");
  /* A key the file leaves out: the default, without a "(default ...)" note. */
  assert_contains(r.out, "\n  buffers.bt_bytes             1024 (1 KiB)           bytes  ");
  assert_contains(r.out, "(at least 16 biases)\n");
  assert_contains(r.out, "\n  hbm_bytes_per_cycle          64                     B/cycle ");
  assert_contains(r.out, "\n  l2_sets                      128                    sets ");
  free_result(&r);
}

static void test_cli_config_show_json(void **state) {
  (void)state;
  run_result r = run_config("show", "--json", NULL);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.err, "");
  assert_prefix(r.out, "{\n  \"source\": \"built-in defaults\",\n  \"config\": {\n"
                       "    \"chip\": {\n      \"name\": \"ascend910b\",\n"
                       "      \"cores\": 24,\n      \"clock_mhz\": 1850,\n");
  assert_contains(r.out, "\"hbm_gb_per_s\": 1800\n");
  assert_contains(r.out, "\"l2_sets\": 24576,\n");
  assert_contains(r.out, "\"cube_k0_int8\": 32,\n");
  assert_contains(r.out, "\"key\": \"scalar.dispatch_cycles\",\n      \"type\": \"u64\",\n"
                         "      \"unit\": \"cycles\",\n      \"default\": 4,\n"
                         "      \"allowed\": \"1 to 10000\",\n      \"assumption\": true,\n");
  assert_contains(r.out, "\"key\": \"chip.cores\",\n      \"type\": \"u64\",\n"
                         "      \"unit\": \"cores\",\n      \"default\": 24,\n"
                         "      \"allowed\": \"1 to 1024\",\n      \"assumption\": false,\n");
  assert_string_equal(r.out + strlen(r.out) - 6, "  ]\n}\n");
  free_result(&r);

  r = run_config("show", SRC "configs/teaching.yaml", "--json", NULL);
  assert_int_equal(r.status, 0);
  assert_contains(r.out, "\"source\": \"" SRC "configs/teaching.yaml\",\n");
  assert_contains(r.out,
                  "\"name\": \"teaching\",\n      \"cores\": 2,\n      \"clock_mhz\": 1000,");
  assert_contains(r.out, "\"hbm_bytes_per_cycle\": 64,\n");
  assert_contains(r.out, "\"l2_sets\": 128,\n");
  /* The parameter table still lists the built-in defaults. */
  assert_contains(r.out, "\"key\": \"chip.cores\",\n      \"type\": \"u64\",\n"
                         "      \"unit\": \"cores\",\n      \"default\": 24,\n");
  free_result(&r);
}

static void test_cli_config_set_overrides(void **state) {
  (void)state;
  run_result r = run_config("show", SRC "configs/teaching.yaml", "--set", "chip.cores=8",
                            "--set=l2.enabled=false", "--json", NULL);
  assert_int_equal(r.status, 0);
  assert_contains(r.out, "\"cores\": 8,");
  assert_contains(r.out, "\"enabled\": false,");
  assert_contains(r.out, "\"clock_mhz\": 1000,"); /* from the file */
  free_result(&r);
  r = run_config("show", "--set", "chip.cores=0", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.out, "");
  assert_string_equal(r.err, "cubesim config show: error: --set chip.cores=0: chip.cores = 0 is "
                             "below the minimum 1\n");
  free_result(&r);
  r = run_config("show", "--set", "buffers.l0a_bytes=1000", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: buffers.l0a_bytes = 1000 is not a "
                             "multiple of buffers.l0a_align_bytes = 512\n");
  free_result(&r);
}

/* configs/ascend910b.yaml is `config show --yaml` of the defaults; docs/CONFIG.md is
 * `config show --markdown`. Regenerate them with those commands when the table changes. */
static void test_cli_config_shipped_files_are_current(void **state) {
  (void)state;
  run_result r = run_config("show", "--yaml", NULL);
  assert_int_equal(r.status, 0);
  char *file = read_file(SRC "configs/ascend910b.yaml");
  assert_non_null(file);
  if (strcmp(r.out, file) != 0)
    print_message("configs/ascend910b.yaml is stale: regenerate it with "
                  "`build/cubesim config show --yaml > configs/ascend910b.yaml`\n");
  assert_string_equal(r.out, file);
  free(file);
  free_result(&r);

  r = run_config("show", "--markdown", NULL);
  assert_int_equal(r.status, 0);
  file = read_file(SRC "docs/CONFIG.md");
  assert_non_null(file);
  if (strcmp(r.out, file) != 0)
    print_message("docs/CONFIG.md is stale: regenerate it with "
                  "`build/cubesim config show --markdown > docs/CONFIG.md`\n");
  assert_string_equal(r.out, file);
  free(file);
  free_result(&r);
}

static void test_cli_config_yaml_output_loads_back(void **state) {
  (void)state;
  char dir[64], path[96];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/teaching-full.yaml", dir);
  run_result a = run_config("show", SRC "configs/teaching.yaml", "--yaml", NULL);
  assert_int_equal(a.status, 0);
  assert_contains(a.out, "  # (not the built-in default, which is 24)\n  cores: 2\n");
  write_file(path, a.out);
  run_result b = run_config("show", path, "--yaml", NULL);
  assert_int_equal(b.status, 0);
  assert_string_equal(a.out, b.out);
  free_result(&a);
  free_result(&b);
  remove(path);
  rmdir(dir);
}

static void test_cli_config_errors_in_process(void **state) {
  (void)state;
  char dir[64], path[96], want[256];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/bad.yaml", dir);

  write_file(path, "chip:\n  cores: 4\n   clock_mhz: 1000\n");
  run_result r = run_config("show", path, NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.out, "");
  snprintf(want, sizeof want,
           "cubesim config show: error: %s:3:13: malformed YAML: mapping values are not allowed "
           "in this context\n",
           path);
  assert_string_equal(r.err, want);
  free_result(&r);

  write_file(path, "l2:\n  wayz: 8\n");
  r = run_config("show", path, "--json", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.out, "");
  snprintf(want, sizeof want,
           "cubesim config show: error: %s:2:3: unknown key 'l2.wayz' (did you mean "
           "'l2.ways'?)\n",
           path);
  assert_string_equal(r.err, want);
  free_result(&r);
  remove(path);
  rmdir(dir);

  r = run_config("show", SRC "configs/none.yaml", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: " SRC
                             "configs/none.yaml: cannot open: No such file or directory\n");
  free_result(&r);

  r = run_config("show", "a.yaml", "b.yaml", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: more than one FILE ('a.yaml' and "
                             "'b.yaml')\n");
  free_result(&r);
  r = run_config("show", "--jsn", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: unknown option '--jsn' (cubesim config "
                             "show --help)\n");
  free_result(&r);
  r = run_config("show", "--json", "--markdown", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err,
                      "cubesim config show: error: --json, --yaml and --markdown exclude each "
                      "other\n");
  free_result(&r);
  r = run_config("show", "--set", "chip.cores", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: --set chip.cores: expected KEY=VALUE "
                             "(e.g. chip.cores=4)\n");
  free_result(&r);
  r = run_config(NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config: error: missing subcommand (cubesim config show)\n");
  free_result(&r);
  r = run_config("list", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config: error: unknown subcommand 'list' (cubesim config "
                             "--help)\n");
  free_result(&r);
  r = run_config("show", "--help", NULL);
  assert_int_equal(r.status, 0);
  assert_prefix(r.out, "usage: cubesim config show [FILE] ");
  assert_string_equal(r.err, "");
  free_result(&r);
}

/* End to end through the real executable: exit status 2, one line on stderr, nothing on stdout. */
static void test_cli_config_bad_file_exits_2(void **state) {
  (void)state;
  char dir[64], yaml[96], out[96], err[96], cmd[512], want[256];
  temp_dir(dir, sizeof dir);
  snprintf(yaml, sizeof yaml, "%s/bad.yaml", dir);
  snprintf(out, sizeof out, "%s/out.txt", dir);
  snprintf(err, sizeof err, "%s/err.txt", dir);
  write_file(yaml, "# too few cores\nchip:\n  cores: 0\n");
  snprintf(cmd, sizeof cmd, "'%s' config show '%s' >'%s' 2>'%s'", CUBESIM_BINARY, yaml, out, err);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 2);
  char *o = read_file(out), *e = read_file(err);
  assert_string_equal(o, "");
  snprintf(want, sizeof want,
           "cubesim config show: error: %s:3:10: chip.cores = 0 is below the minimum 1\n", yaml);
  assert_string_equal(e, want);
  free(o);
  free(e);

  /* And the good case through the executable. */
  snprintf(cmd, sizeof cmd, "'%s' config show '%s' >'%s' 2>'%s'", CUBESIM_BINARY,
           SRC "configs/ascend910b.yaml", out, err);
  st = system(cmd);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  o = read_file(out);
  assert_contains(o, "\n  chip.cores                   24      ");
  free(o);
  remove(yaml);
  remove(out);
  remove(err);
  rmdir(dir);
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
