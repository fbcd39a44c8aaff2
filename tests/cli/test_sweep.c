/* Tests of cubesim sweep (the real binary, which runs ninja): the points of a grid with a refused
 * one, results.csv and report.html; a second sweep with nothing changed runs nothing; a new value
 * runs only the new points; --emit parallel's job list run by hand gives the same results;
 * malformed sweep files are one located error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/cli_run.h"
#include "support/tmp_files.h"

/* 128^3 fp16 on 2 cores; base_n = 17 is not whole fractals: refused */
static const char sweep_yaml[] = "kernel: matmul\n"
                                 "attrs: {m: 128, n: 128, k: 128}\n"
                                 "set: {chip.aic_cores: 2}\n"
                                 "options: [--timing-only]\n"
                                 "grid:\n"
                                 "  base_m: [16, 32]\n"
                                 "  base_n: [16, 17]\n";


#define BIN "'" CUBESIM_BINARY "'"

static unsigned lines(const char *text) {
  unsigned n = 0;
  for (; *text; text++) n += *text == '\n';
  return n;
}

static long mtime_ns(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return (long)st.st_mtim.tv_sec * 1000000000L + st.st_mtim.tv_nsec;
}

static void test_sweep_runs_collects_and_reruns_nothing(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char yaml[128], out[128], csv[160], html[160], pt[256];
  tf_join(yaml, sizeof yaml, d.path, "s.yaml");
  tf_join(out, sizeof out, d.path, "out");
  tf_join(csv, sizeof csv, out, "results.csv");
  tf_join(html, sizeof html, out, "report.html");
  tf_write_text(yaml, sweep_yaml);
  int st;
  char *o = cr_shellf(&st, BIN " sweep '%s' --dir '%s' -j 2 2>&1", yaml, out);
  assert_int_equal(st, 0);
  cr_assert_contains(o, "4 points: 2 ran, 2 refused, 0 without a result\n");
  cr_assert_contains(o, "refused: base_m-16_base_n-17-");
  free(o);
  /* one row per point, the refusal in its row, the best highlighted in the report */
  char *rows = tf_read(csv, NULL);
  assert_int_equal(lines(rows), 5);
  cr_assert_prefix(rows, "point,status,set.chip.aic_cores,");
  cr_assert_contains(rows, ",time_us,total_cycles,aicore_time_us,blocks,critical_core,cube_utilization,");
  cr_assert_contains(rows, "CUBE_time_us,CUBE_ratio,CUBE_critical_us");
  cr_assert_contains(rows, "tiling: base_m = 16 and base_n = 17 must be multiples of 16 (whole fractals)\n");
  /* the points as cubesim run computes them: the fastest of the two legal ones is base_m 32 */
  char *page = tf_read(html, NULL);
  cr_assert_contains(page, "<tr class=\"best\"><td>base_m-32_base_n-16-");
  cr_assert_contains(page, "<svg id=\"heatmap\"");
  cr_assert_contains(page, "class=\"cell refused\"");
  cr_assert_contains(page, "<table class=\"sortable\" id=\"points\">");
  free(page);
  /* every point's file is the JSON cubesim run writes for its command */
  char *cmds = tf_read(tf_join(pt, sizeof pt, out, "commands.txt"), NULL);
  assert_int_equal(lines(cmds), 4);
  cr_assert_contains(cmds, "' run 'matmul' --attr 'm'='128' --attr 'n'='128' --attr 'k'='128' --attr 'base_m'='16' "
                           "--attr 'base_n'='16' --set 'chip.aic_cores'='2' '--timing-only' --quiet --record-refusal "
                           "--json-file '");
  free(cmds);
  /* nothing changed: nothing runs, no file is touched */
  char first[256];
  o = cr_shellf(&st, "ls '%s'/points/base_m-32_base_n-16-*.json", out);
  snprintf(first, sizeof first, "%.*s", (int)strcspn(o, "\n"), o);
  free(o);
  long before = mtime_ns(first);
  o = cr_shellf(&st, BIN " sweep '%s' --dir '%s' 2>&1", yaml, out);
  assert_int_equal(st, 0);
  cr_assert_contains(o, "ninja: no work to do.");
  free(o);
  assert_true(mtime_ns(first) == before);
  char *again = tf_read(csv, NULL);
  assert_string_equal(again, rows);
  free(again);
  /* a new value: only its two points run */
  FILE *f = fopen(yaml, "a");
  assert_non_null(f);
  fputs("axes: [base_n, base_m]\n", f);
  fclose(f);
  char text[512];
  snprintf(text, sizeof text, "%s", sweep_yaml);
  *strstr(text, "[16, 32]") = '\0';
  strcat(text, "[16, 32, 48]\n  base_n: [16, 17]\n");
  tf_write_text(yaml, text);
  o = cr_shellf(&st, BIN " sweep '%s' --dir '%s' 2>&1", yaml, out);
  assert_int_equal(st, 0);
  cr_assert_contains(o, "[2/2] ");
  assert_null(strstr(o, "[3/"));
  cr_assert_contains(o, "6 points: 3 ran, 3 refused");
  free(o);
  assert_true(mtime_ns(first) == before);
  /* --emit parallel: the job list, run by the shell, then --collect: the same results */
  char out2[128], csv2[160];
  tf_join(out2, sizeof out2, d.path, "out2");
  tf_join(csv2, sizeof csv2, out2, "results.csv");
  o = cr_shellf(&st, BIN " sweep '%s' --dir '%s' --emit parallel", yaml, out2);
  assert_int_equal(st, 0);
  cr_assert_contains(o, "commands.txt (6 points): parallel < ");
  char collect[400]; /* the collect line to paste names the --dir given */
  snprintf(collect, sizeof collect, ", then cubesim sweep %s --collect --dir %s\n", yaml, out2);
  cr_assert_contains(o, collect);
  free(o);
  assert_false(tf_exists(csv2));
  o = cr_shellf(&st, "sh '%s/commands.txt' 2>/dev/null && " BIN " sweep '%s' --dir '%s' --collect", out2, yaml, out2);
  assert_int_equal(st, 0);
  free(o);
  char *one = tf_read(tf_join(pt, sizeof pt, out, "results.csv"), NULL), *two = tf_read(csv2, NULL);
  assert_string_equal(two, one);
  free(one);
  free(two);
  free(rows);
  tf_dir_remove(&d);
}

static void test_sweep_bad_files(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char yaml[128], want[512];
  tf_join(yaml, sizeof yaml, d.path, "bad.yaml");
  static const struct {
    const char *text, *msg;
  } cases[] = {
      {"kernel: matmul\ngrid:\n  base_m: [16, 32]\ncolour: red\n",
       "bad.yaml:4:1: unknown key or a value of the wrong kind: colour"},
      {"grid: {base_m: [16]}\n", "bad.yaml: no kernel: given"},
      {"kernel: matmul\n", "bad.yaml: neither grid: nor points: given"},
      {"kernel: matmul\ngrid: {base_m: []}\n", "bad.yaml:2:16: expected 1 to 256 values for base_m"},
      {"kernel: matmul\nset: {cores: 2}\ngrid: {base_m: [16]}\n",
       "bad.yaml:2:6: a configuration key has a section (chip.aic_cores); not cores"},
      {"kernel: [matmul\n", "bad.yaml:2:1: did not find expected ',' or ']'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tf_write_text(yaml, cases[i].text);
    cr_result r = cr_run("sweep", yaml, NULL);
    assert_int_equal(r.status, 2);
    snprintf(want, sizeof want, "cubesim sweep: error: %s/%s\n", d.path, cases[i].msg);
    assert_string_equal(r.err, want);
    cr_free(&r);
  }
  cr_result r = cr_run("sweep", yaml, "--emit", "make", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim sweep: error: --emit make: expected ninja, slurm or parallel\n");
  cr_free(&r);
  assert_int_equal(tf_count_entries(d.path), 1); /* nothing written */
  tf_dir_remove(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sweep_runs_collects_and_reruns_nothing),
      cmocka_unit_test(test_sweep_bad_files),
  };
  return cmocka_run_group_tests_name("sweep", tests, NULL, NULL);
}
