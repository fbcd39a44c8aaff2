/* Tests of cubesim run --json-file / --timeline / --report / --msprof-dir / --record-refusal and
 * of cubesim report, through cli_main: the files a run writes, what they hold (checked against
 * the run's own JSON and the documented column lists), a report rebuilt from the JSON being the
 * same file, refusals recorded, and every bad input one error line, a non-zero exit and no file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_jsonr.h"
#include "support/cli_run.h"
#include "support/json_expect.h"
#include "support/tmp_files.h"

#define SHAPE "--attr", "m=96", "--attr", "n=128", "--attr", "k=64", "--timing-only"

/* The header line of a CSV file. */
static char *csv_header(const char *path) {
  char *text = tf_read(path, NULL);
  char *nl = strchr(text, '\n');
  assert_non_null(nl);
  *nl = '\0';
  return text;
}

static void test_run_writes_json_report_and_msprof_files(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char json[128], html[128], msp[128], html2[128], csv[160];
  tf_join(json, sizeof json, d.path, "run.json");
  tf_join(html, sizeof html, d.path, "run.html");
  tf_join(msp, sizeof msp, d.path, "msprof");
  tf_join(html2, sizeof html2, d.path, "again.html");
  cr_result r = cr_run("run", "matmul", SHAPE, "--json-file", json, "--report", html, "--msprof-dir", msp, NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "report written to ");
  cr_free(&r);
  /* the JSON: status, every attribute with its value, the timeline whose busy cycles are the
   * per-core busy cycles of the summary */
  cs_jdoc *doc = je_parse_file(json);
  const cs_jvalue *run = cs_jroot(doc);
  assert_string_equal(je_string(run, "status"), "ok");
  assert_int_equal(je_u64(run, "attributes.m"), 96);
  assert_int_equal(je_u64(run, "attributes.k"), 64);
  const cs_jvalue *tracks = cs_jget(run, "timeline.tracks");
  assert_true(cs_jcount(tracks) >= 4);
  for (size_t i = 0; i < cs_jcount(tracks); i++) {
    const cs_jvalue *t = cs_jat(tracks, i);
    char path[96];
    snprintf(path, sizeof path, "per_core[%lu].pipes.%s.busy_cycles", (unsigned long)je_u64(t, "core"),
             je_string(t, "pipe"));
    assert_int_equal(je_u64(t, "busy_cycles"), je_u64(run, path));
    assert_true(cs_jcount(cs_jget(t, "spans")) <= je_u64(run, "timeline.max_spans"));
  }
  cs_jfree(doc);
  /* the report: the timeline, the pipe bars, the roofline with the run's point */
  char *page = tf_read(html, NULL);
  cr_assert_prefix(page, "<!DOCTYPE html>");
  cr_assert_contains(page, "<svg id=\"tl\"");
  cr_assert_contains(page, "<svg class=\"bars\" id=\"pipe-bars\"");
  cr_assert_contains(page, "<svg id=\"roofline\"");
  cr_assert_contains(page, "class=\"run-point\"");
  cr_assert_contains(page, "id=\"no-hazards\"");
  assert_null(strstr(page, "http://"));
  assert_null(strstr(page, "https://"));
  /* cubesim report rebuilds the same file from the JSON */
  r = cr_run("report", json, "-o", html2, NULL);
  cr_assert_ok(&r);
  cr_free(&r);
  char *again = tf_read(html2, NULL);
  assert_string_equal(again, page);
  free(again);
  free(page);
  /* msprof's files, with the column names traces/FORMAT.md lists */
  static const struct {
    const char *file, *head;
  } files[] = {
      {"OpBasicInfo.csv", "Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq"},
      {"op_summary.csv", "Op Name,OP Type,Task Type,Task Duration(us),Block Dim,aicore_time(us),aic_total_cycles,"
                         "aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),"
                         "aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,"
                         "aiv_vec_time(us),aiv_vec_ratio,aiv_mte3_time(us),aiv_mte3_ratio"},
      {"PipeUtilization.csv", "block_id,sub_block_id,aic_time(us),aic_total_cycles,aicore_time(us),aic_mac_time(us),"
                              "aic_mac_ratio,aic_cube_time(us),aic_cube_ratio,aic_scalar_time(us),aic_scalar_ratio,"
                              "aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,"
                              "aic_fixpipe_time(us),aic_fixpipe_ratio,aiv_vec_time(us),aiv_vec_ratio,"
                              "aiv_mte3_time(us),aiv_mte3_ratio"},
      {"MemoryL0.csv", "block_id,sub_block_id,aic_time(us),aic_total_cycles,aic_l0a_read_bw(GB/s),"
                       "aic_l0a_write_bw(GB/s),aic_l0b_read_bw(GB/s),aic_l0b_write_bw(GB/s),"
                       "aic_l0c_read_bw_cube(GB/s),aic_l0c_write_bw_cube(GB/s)"},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    tf_join(csv, sizeof csv, msp, files[i].file);
    char *head = csv_header(csv);
    assert_string_equal(head, files[i].head);
    free(head);
  }
  assert_int_equal(tf_count_entries(msp), 5);
  tf_dir_remove(&d);
}

static void test_run_json_with_timeline_and_refusals(void **state) {
  (void)state;
  cr_result r = cr_run("run", "matmul", SHAPE, "--json", "--timeline", NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  assert_non_null(cs_jget(cs_jroot(doc), "timeline.tracks[0].spans[0][2]"));
  cs_jfree(doc);
  cr_free(&r);
  r = cr_run("run", "matmul", SHAPE, "--json", NULL);
  cr_assert_ok(&r);
  assert_null(strstr(r.out, "\"timeline\"")); /* only when asked */
  cr_free(&r);
  tf_dir d;
  tf_dir_make(&d);
  char json[128], msp[128];
  tf_join(json, sizeof json, d.path, "refused.json");
  tf_join(msp, sizeof msp, d.path, "msprof");
  /* refused without --record-refusal: the error, no file, the directory made for msprof gone */
  r = cr_run("run", "matmul", SHAPE, "--attr", "base_m=17", "--json-file", json, "--msprof-dir", msp, NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim run: error: tiling: base_m = 17 and base_n = 16 must be multiples of 16 (whole fractals)\n");
  cr_free(&r);
  assert_false(tf_exists(json));
  assert_false(tf_exists(msp));
  /* with it: recorded, exit 0 */
  r = cr_run("run", "matmul", SHAPE, "--attr", "base_m=17", "--json-file", json, "--record-refusal", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_contains(r.err, "refused (recorded in ");
  cr_free(&r);
  doc = je_parse_file(json);
  assert_string_equal(je_string(cs_jroot(doc), "status"), "refused");
  assert_string_equal(je_string(cs_jroot(doc), "error"),
                      "tiling: base_m = 17 and base_n = 16 must be multiples of 16 (whole fractals)");
  assert_string_equal(je_string(cs_jroot(doc), "given.base_m"), "17");
  assert_int_equal(je_u64(cs_jroot(doc), "exit_status"), 2);
  cs_jfree(doc);
  /* a report of a refusal says so */
  char html[128];
  tf_join(html, sizeof html, d.path, "refused.html");
  r = cr_run("report", json, "-o", html, NULL);
  cr_assert_ok(&r);
  cr_free(&r);
  char *page = tf_read(html, NULL);
  cr_assert_contains(page, "id=\"refusal\"");
  free(page);
  tf_dir_remove(&d);
}

static void test_bad_inputs(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char json[128], html[128];
  tf_join(json, sizeof json, d.path, "x.json");
  tf_join(html, sizeof html, d.path, "x.html");
  cr_result r = cr_run("run", "matmul", SHAPE, "--record-refusal", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim run: error: --record-refusal records into --json-file: give one\n");
  cr_free(&r);
  r = cr_run("run", "onnx_quantize_linear", "--report", html, NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim run: error: --report: onnx_quantize_linear runs on the host, it has no simulated timing\n");
  cr_free(&r);
  r = cr_run("report", json, "-o", html, NULL);
  assert_int_equal(r.status, 2);
  char want[256];
  snprintf(want, sizeof want, "cubesim report: error: %s: cannot open it: No such file or directory\n", json);
  assert_string_equal(r.err, want);
  cr_free(&r);
  tf_write_text(json, "{\"kernel\": \"matmul\"}");
  r = cr_run("report", json, "-o", html, NULL);
  assert_int_equal(r.status, 2);
  snprintf(want, sizeof want,
           "cubesim report: error: %s: the run's JSON has no number \"time_us\" (write it with cubesim run --json-file)\n",
           json);
  assert_string_equal(r.err, want);
  cr_free(&r);
  tf_write_text(json, "{\"kernel\": ");
  r = cr_run("report", json, "-o", html, NULL);
  assert_int_equal(r.status, 2);
  cr_assert_prefix(r.err, "cubesim report: error: ");
  cr_assert_contains(r.err, "x.json:1:12: ");
  cr_free(&r);
  r = cr_run("report", json, NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim report: error: no -o REPORT.html given\n");
  cr_free(&r);
  assert_false(tf_exists(html));
  tf_dir_remove(&d);
}

/* Two hand-made runs: B takes 150 us against A's 100 (+50 %), its MTE2 busy 90 against 60 us,
 * and reads 300 bytes against 0 through L1 (no percentage of 0). */
static void test_compare_two_runs(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char a[128], b[128], c[128], html[128];
  tf_join(a, sizeof a, d.path, "a.json");
  tf_join(b, sizeof b, d.path, "b.json");
  tf_join(c, sizeof c, d.path, "refused.json");
  tf_join(html, sizeof html, d.path, "cmp.html");
  tf_write_text(a, "{\"time_us\": 100, \"aicore_time_us\": 80, \"pipes\": {\"MTE2\": {\"avg_time_us\": 60, "
                   "\"ratio\": 0.75}}, \"paths\": {}, \"gm\": {\"read_bytes\": 1000}}");
  tf_write_text(b, "{\"time_us\": 150, \"aicore_time_us\": 60, \"pipes\": {\"MTE2\": {\"avg_time_us\": 90, "
                   "\"ratio\": 1.5}}, \"paths\": {\"GM->L1\": {\"bytes\": 300}}, \"gm\": {\"read_bytes\": 1000}}");
  tf_write_text(c, "{\"kernel\": \"matmul\", \"status\": \"refused\", \"error\": \"tiling: no\"}");
  cr_result r = cr_run("compare", a, b, "-o", html, NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "  time    task time (us)                        100                150                +50   +50.00%\n");
  cr_assert_contains(r.out, "  time    aicore time (us)                       80                 60                -20   -25.00%\n");
  cr_assert_contains(r.out, "  pipe    MTE2 time (us)                         60                 90                +30   +50.00%\n");
  cr_assert_contains(r.out, "  memory  GM read (B)                          1000               1000                 +0    +0.00%\n");
  cr_assert_contains(r.out, "  path    GM->L1 (B)                              0                300               +300       n/a\n");
  assert_null(strstr(r.out, "CUBE time")); /* pipes busy in neither run are left out of the table */
  cr_free(&r);
  char *page = tf_read(html, NULL);
  cr_assert_contains(page, "<table class=\"sortable\" id=\"compare\">");
  cr_assert_contains(page, "<td data-v=\"50.000000\" class=\"bad\">+50.00%</td>");
  free(page);
  r = cr_run("compare", a, b, "--json", NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *rows = cs_jget(cs_jroot(doc), "rows");
  assert_string_equal(je_string(rows, "[0].name"), "task time");
  assert_true(je_number(rows, "[0].diff") == 50.0);
  assert_true(je_number(rows, "[0].percent") == 50.0);
  bool found = false;
  for (size_t i = 0; i < cs_jcount(rows); i++)
    if (strcmp(je_string(cs_jat(rows, i), "name"), "GM->L1") == 0) {
      assert_true(cs_jis(cs_jget(cs_jat(rows, i), "percent"), CS_JNULL));
      found = true;
    }
  assert_true(found);
  cs_jfree(doc);
  cr_free(&r);
  r = cr_run("compare", a, c, NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim compare: error: run B was refused: tiling: no\n");
  cr_free(&r);
  r = cr_run("compare", a, NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim compare: error: two runs needed: cubesim compare A.json B.json\n");
  cr_free(&r);
  tf_dir_remove(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_run_writes_json_report_and_msprof_files),
      cmocka_unit_test(test_run_json_with_timeline_and_refusals),
      cmocka_unit_test(test_bad_inputs),
      cmocka_unit_test(test_compare_two_runs),
  };
  return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
