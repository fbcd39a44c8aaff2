/* Tests of traces/trc_summary: the JSON, text and CSV summaries of a small two-core run, checked
 * against values worked out by hand (the same program and cycles as tests/sim/test_trace.c),
 * the ideal cube cycles of hand-made mmad records, and runs with a hazard and a deadlock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cs_json.h"
#include "sim/sim.h"
#include "support/insn_build.h"
#include "base/cs_jsonr.h"
#include "support/json_expect.h"
#include "support/sim_build.h"
#include "support/tmp_files.h"
#include "traces/trc_summary.h"

/* ---- the program ------------------------------------------------------------------------ */

/* sb_two_core_program (tests/support/sim_build.h) on sb_trace_sim(2). By hand
 * (tests/sim/test_trace.c derives each cycle): core 0 finishes at 832, core 1 at 804;
 * MTE2 busy 32 + 16, MTE3 busy 32 + 16; core 1's dispatch stalls 12..552 on the wait_flag and
 * 560..804 on the barrier (784 cycles); GM streams 4..36 and 556..600 (76 cycles). Both cores
 * are launched at cycle 0 (their first dispatch costs 4 cycles): spans 832 and 804, aicore
 * 818, core 0 is the critical core. */
typedef struct fixture {
  sim *s;
  sim_result r;
} fixture;

static int setup_run(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  fx->s = sb_trace_sim(2);
  sb_two_core_program(fx->s, NULL);
  cs_err err;
  assert_int_equal(sim_run(fx->s, NULL, &fx->r, &err), CS_OK);
  *state = fx;
  return 0;
}

static int teardown_run(void **state) {
  fixture *fx = *state;
  sim_result_free(&fx->r);
  sim_destroy(fx->s);
  free(fx);
  return 0;
}

/* ---- helpers ---------------------------------------------------------------------------- */

/* Captures what a writer prints. */
typedef struct capture {
  char *text;
  size_t len;
  FILE *f;
} capture;

static void capture_begin(capture *c) {
  c->text = NULL;
  c->len = 0;
  c->f = open_memstream(&c->text, &c->len);
  assert_non_null(c->f);
}

static void capture_end(capture *c) { assert_int_equal(fclose(c->f), 0); }

static cs_jdoc *summary_json(const sim *s, const sim_result *r) {
  capture c;
  capture_begin(&c);
  cs_json j;
  cs_json_init(&j, c.f, true);
  trc_summary_json(s, r, &j);
  capture_end(&c);
  cs_jdoc *d = je_parse(c.text, c.len);
  free(c.text);
  return d;
}

/* The text table, NUL-terminated (the caller frees it). */
static char *summary_text(const sim *s, const sim_result *r) {
  capture c;
  capture_begin(&c);
  trc_summary_text(s, r, c.f);
  capture_end(&c);
  return c.text;
}

/* The line of text starting with prefix (copied into line), or fails. */
static void line_starting(const char *text, const char *prefix, char *line, size_t n) {
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (strncmp(p, prefix, strlen(prefix)) != 0) continue;
    size_t len = strcspn(p, "\n");
    if (len >= n) len = n - 1;
    memcpy(line, p, len);
    line[len] = '\0';
    return;
  }
  fail_msg("no line starting with \"%s\" in:\n%s", prefix, text);
}

/* The whitespace-separated words of line equal words (NULL-terminated). */
static void assert_words(const char *line, const char *const *words) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", line);
  char *save = NULL;
  char *w = strtok_r(buf, " ", &save);
  for (size_t i = 0; words[i]; i++, w = strtok_r(NULL, " ", &save))
    if (!w || strcmp(w, words[i]) != 0) fail_msg("word %zu of \"%s\": want \"%s\"", i, line, words[i]);
  if (w) fail_msg("extra word \"%s\" in \"%s\"", w, line);
}

/* ---- JSON ------------------------------------------------------------------------------- */

static void test_summary_json_totals_and_pipes(void **state) {
  fixture *fx = *state;
  cs_jdoc *d = summary_json(fx->s, &fx->r);
  const cs_jvalue *j = cs_jroot(d);
  assert_int_equal(je_u64(j, "total_cycles"), 832);
  assert_true(je_number(j, "time_us") == fx->r.time_us);
  assert_true(fabs(je_number(j, "time_us") - 832.0 / 1850.0) < 1e-15);
  assert_int_equal(je_u64(j, "cores"), 2);
  assert_int_equal(je_u64(j, "clock_mhz"), 1850);
  assert_int_equal(je_u64(j, "instructions"), 9);
  assert_int_equal(je_u64(j, "macs"), 0);
  assert_true(je_number(j, "cube_utilization") == 0.0);
  assert_true(je_number(j, "ideal_cube_cycles") == 0.0);
  assert_int_equal(je_u64(j, "stall_cycles"), 784);
  assert_int_equal(je_u64(j, "blocks"), 2);
  assert_true(je_number(j, "aicore_cycles") == 818.0);
  assert_true(je_number(j, "aicore_time_us") == 818.0 / 1850.0);
  assert_int_equal(je_u64(j, "critical_core"), 0);
  assert_int_equal(je_u64(j, "spread.start_cycles.max"), 0);
  assert_int_equal(je_u64(j, "spread.finish_cycles.min"), 804);
  assert_int_equal(je_u64(j, "spread.finish_cycles.max"), 832);
  assert_int_equal(je_u64(j, "spread.span_cycles.min"), 804);
  assert_true(je_number(j, "spread.span_cycles.mean") == 818.0);
  /* per pipe the busy cycles of core 0 and core 1; SCALAR: 4 and 5 instructions x 4 dispatch
   * cycles. msprof's figures: the mean over the 2 blocks / aicore 818; the critical core 0's
   * own: busy / its span 832 */
  static const struct {
    const char *track, *pipe, *msprof;
    uint64_t busy0, busy1;
  } pipes[] = {{"SCALAR", "S", "aic_scalar_ratio", 16, 20}, {"MTE2", "MTE2", "aic_mte2_ratio", 32, 16},
               {"MTE1", "MTE1", "aic_mte1_ratio", 0, 0},    {"CUBE", "M", "aic_mac_ratio", 0, 0},
               {"FIXP", "FIX", "aic_fixpipe_ratio", 0, 0},  {"MTE3", "MTE3", "aiv_mte3_ratio", 32, 16},
               {"VECTOR", "V", "aiv_vec_ratio", 0, 0}};
  assert_int_equal(cs_jcount(cs_jget(j, "pipes")), 7);
  for (int p = 0; p < 7; p++) {
    const cs_jvalue *v = cs_jmember(cs_jget(j, "pipes"), pipes[p].track);
    uint64_t b0 = pipes[p].busy0, b1 = pipes[p].busy1;
    double avg = (double)(b0 + b1) / 2.0;
    assert_non_null(v);
    assert_string_equal(cs_jkey_at(cs_jget(j, "pipes"), (size_t)p), pipes[p].track);
    assert_string_equal(je_string(v, "pipe"), pipes[p].pipe);
    assert_string_equal(je_string(v, "msprof"), pipes[p].msprof);
    assert_int_equal(je_u64(v, "busy_cycles"), b0 + b1);
    assert_true(je_number(v, "avg_busy_cycles") == avg);
    assert_true(je_number(v, "avg_time_us") == avg / 1850.0);
    assert_true(je_number(v, "ratio") == avg / 818.0);
    assert_int_equal(je_u64(v, "critical_busy_cycles"), b0);
    assert_true(je_number(v, "critical_time_us") == (double)b0 / 1850.0);
    assert_true(je_number(v, "critical_ratio") == (double)b0 / 832.0);
    assert_int_equal(je_u64(v, "min_busy_cycles"), b0 < b1 ? b0 : b1);
    assert_int_equal(je_u64(v, "max_busy_cycles"), b0 > b1 ? b0 : b1);
    double flat;
    assert_true(cs_jnumber(cs_jmember(cs_jget(j, "pipe_utilization"), pipes[p].msprof), &flat));
    assert_true(flat == avg / 818.0);
  }
  /* msprof's op_summary columns, in its order and units */
  static const char *const order[] = {
      "Task Duration(us)", "Block Dim",           "aicore_time(us)",    "aic_total_cycles",
      "aic_mac_time(us)",  "aic_mac_ratio",       "aic_scalar_time(us)", "aic_scalar_ratio",
      "aic_mte1_time(us)", "aic_mte1_ratio",      "aic_mte2_time(us)",  "aic_mte2_ratio",
      "aic_fixpipe_time(us)", "aic_fixpipe_ratio", "aiv_vec_time(us)",   "aiv_vec_ratio",
      "aiv_mte3_time(us)", "aiv_mte3_ratio"};
  const cs_jvalue *pu = cs_jget(j, "pipe_utilization");
  assert_int_equal(cs_jcount(pu), 18);
  for (size_t i = 0; i < 18; i++) assert_string_equal(cs_jkey_at(pu, i), order[i]);
  assert_true(je_number(pu, "[\"Task Duration(us)\"]") == 832.0 / 1850.0);
  assert_int_equal(je_u64(pu, "[\"Block Dim\"]"), 2);
  assert_true(je_number(pu, "[\"aicore_time(us)\"]") == 818.0 / 1850.0);
  assert_true(je_number(pu, "aic_total_cycles") == 818.0);
  assert_true(je_number(pu, "[\"aic_mte2_time(us)\"]") == 24.0 / 1850.0);
  cs_jfree(d);
}

static void test_summary_json_paths_gm_l2_and_ops(void **state) {
  fixture *fx = *state;
  cs_jdoc *d = summary_json(fx->s, &fx->r);
  const cs_jvalue *j = cs_jroot(d);
  double gbs = 6144.0 * 1850.0 / (832.0 * 1000.0); /* bytes/cycle x cycles/us = MB/s; /1e3 = GB/s */
  assert_int_equal(je_u64(j, "paths[\"GM->UB\"].bytes"), 6144);
  assert_true(fabs(je_number(j, "paths[\"GM->UB\"].gb_per_s") - gbs) < 1e-12);
  assert_int_equal(je_u64(j, "paths.UB->GM.bytes"), 6144);
  assert_int_equal(je_u64(j, "paths.L1->L0A.bytes"), 0);
  assert_true(je_number(j, "paths.cube.gb_per_s") == 0.0);
  assert_null(cs_jget(j, "paths.none"));
  assert_int_equal(cs_jcount(cs_jget(j, "paths")), ISA_PATH_COUNT - 1);
  assert_int_equal(je_u64(j, "gm.read_bytes"), 6144);
  assert_int_equal(je_u64(j, "gm.write_bytes"), 6144);
  assert_int_equal(je_u64(j, "gm.hbm_read_bytes"), 6144);
  /* the 6144 bytes written (12 whole 512-byte lines) stay dirty in the L2: nothing evicted */
  assert_int_equal(je_u64(j, "gm.hbm_write_bytes"), 0);
  assert_int_equal(je_u64(j, "gm.l2_dirty_bytes"), 6144);
  assert_int_equal(je_u64(j, "gm.busy_cycles"), 76);
  assert_true(fabs(je_number(j, "gm.gb_per_s") - 2 * gbs) < 1e-12);
  assert_true(fabs(je_number(j, "gm.busy_gb_per_s") - 12288.0 * 1850.0 / (76.0 * 1000.0)) < 1e-12);
  bool on = false;
  assert_true(cs_jbool(cs_jget(j, "l2.enabled"), &on) && on);
  assert_int_equal(je_u64(j, "l2.hit_bytes"), 0); /* a cold L2: every line misses */
  assert_int_equal(je_u64(j, "l2.miss_bytes"), 12288);
  assert_true(je_number(j, "l2.hit_rate") == 0.0);
  /* ops: cycles are start to completion, busy is occupancy */
  assert_int_equal(cs_jcount(cs_jget(j, "ops")), ISA_OP_COUNT);
  assert_int_equal(je_u64(j, "ops.copy_gm_ub.count"), 2);
  assert_int_equal(je_u64(j, "ops.copy_gm_ub.cycles"), (568 - 4) + (552 - 4));
  assert_int_equal(je_u64(j, "ops.copy_gm_ub.busy_cycles"), 32 + 16);
  assert_int_equal(je_u64(j, "ops.copy_ub_gm.count"), 2);
  assert_int_equal(je_u64(j, "ops.copy_ub_gm.cycles"), (832 - 568) + (804 - 556));
  assert_int_equal(je_u64(j, "ops.set_flag.count"), 2);
  assert_int_equal(je_u64(j, "ops.wait_flag.count"), 2);
  assert_int_equal(je_u64(j, "ops.pipe_barrier.count"), 1);
  assert_int_equal(je_u64(j, "ops.pipe_barrier.cycles"), 0);
  assert_int_equal(je_u64(j, "ops.mmad.count"), 0);
  cs_jfree(d);
}

static void test_summary_json_per_core_stats_and_config(void **state) {
  fixture *fx = *state;
  cs_jdoc *d = summary_json(fx->s, &fx->r);
  const cs_jvalue *j = cs_jroot(d);
  assert_int_equal(cs_jcount(cs_jget(j, "per_core")), 2);
  assert_int_equal(je_u64(j, "per_core[0].core"), 0);
  assert_int_equal(je_u64(j, "per_core[0].finish_cycles"), 832);
  assert_int_equal(je_u64(j, "per_core[1].finish_cycles"), 804);
  assert_int_equal(je_u64(j, "per_core[0].instructions"), 4);
  assert_int_equal(je_u64(j, "per_core[1].instructions"), 5);
  assert_int_equal(je_u64(j, "per_core[0].stall_cycles"), 0);
  assert_int_equal(je_u64(j, "per_core[1].stall_cycles"), (552 - 12) + (804 - 560));
  assert_int_equal(je_u64(j, "per_core[0].start_cycles"), 0);
  assert_int_equal(je_u64(j, "per_core[1].span_cycles"), 804);
  assert_int_equal(je_u64(j, "per_core[0].pipes.MTE2.busy_cycles"), 32);
  assert_true(je_number(j, "per_core[0].pipes.MTE2.ratio") == 32.0 / 832.0);
  assert_int_equal(je_u64(j, "per_core[1].pipes.SCALAR.busy_cycles"), 20);
  assert_true(je_number(j, "per_core[1].pipes.SCALAR.ratio") == 20.0 / 804.0); /* its own span */
  assert_null(cs_jget(j, "per_core[2]"));
  /* every statistic with its value, unit and description, from the descriptors */
  for (size_t i = 0; i < sim_stats_chip_count(); i++) {
    const sim_stat_desc *sd = sim_stats_chip_desc(i);
    char path[96];
    snprintf(path, sizeof path, "stats.chip.%s.value", sd->name);
    assert_int_equal(je_u64(j, path), sim_stats_chip_value(&fx->r.stats, i));
    snprintf(path, sizeof path, "stats.chip.%s.unit", sd->name);
    assert_string_equal(je_string(j, path), sd->unit);
    snprintf(path, sizeof path, "stats.chip.%s.description", sd->name);
    assert_string_equal(je_string(j, path), sd->desc);
  }
  assert_int_equal(je_u64(j, "stats.chip.total_cycles.value"), 832);
  assert_int_equal(je_u64(j, "stats.chip.instructions.value"), 9);
  assert_int_equal(je_u64(j, "stats.chip.l2_miss_bytes.value"), 12288);
  assert_string_equal(je_string(j, "stats.core.stall_cycles.unit"), "cycles");
  assert_int_equal(cs_jcount(cs_jget(j, "stats.core")), sim_stats_core_count());
  /* hazards, deadlock, the configuration */
  assert_int_equal(je_u64(j, "hazards.count"), 0);
  assert_int_equal(cs_jcount(cs_jget(j, "hazards.first")), 0);
  assert_true(cs_jis(cs_jget(j, "deadlock"), CS_JNULL));
  assert_int_equal(je_u64(j, "config.chip.aic_cores"), 2);
  assert_int_equal(je_u64(j, "config.chip.clock_mhz"), 1850);
  assert_string_equal(je_string(j, "chip"), "ascend910b");
  assert_int_equal(je_u64(j, "derived.cube_k0_fp16"), 16);
  assert_string_equal(je_string(j, "cubesim_version"), CUBESIM_VERSION);
  cs_jfree(d);
}

/* ---- text ------------------------------------------------------------------------------- */

static void test_summary_text_lines(void **state) {
  fixture *fx = *state;
  char *text = summary_text(fx->s, &fx->r);
  char line[512];
  line_starting(text, "cubesim summary:", line, sizeof line);
  assert_string_equal(line, "cubesim summary: ascend910b, 2 cores at 1850 MHz");
  line_starting(text, "  total ", line, sizeof line);
  assert_words(line, (const char *const[]){"total", "832", "cycles", "=", "0.450", "us", "(task)", NULL});
  line_starting(text, "  aicore ", line, sizeof line);
  assert_words(line, (const char *const[]){"aicore", "818.0", "cycles", "=", "0.442", "us", "(mean", "span", "of",
                                           "2", "blocks)", NULL});
  line_starting(text, "  instructions ", line, sizeof line);
  assert_words(line, (const char *const[]){"instructions", "9", NULL});
  line_starting(text, "  cube util", line, sizeof line);
  assert_words(line, (const char *const[]){"cube", "util", "0.00%", "(0", "MACs;", "ideal", "0", "cycles",
                                           "of", "1,664", "core-cycles)", NULL});
  /* pipe table: mean busy us (/ 2 / 1850) and / aicore 818; critical core 0's us and / 832; the
   * least and most busy core's us. SCALAR 16 and 20 cycles, MTE2 and MTE3 32 and 16. */
  line_starting(text, "  SCALAR ", line, sizeof line);
  assert_words(line, (const char *const[]){"SCALAR", "aic_scalar", "0.010", "2.20%", "0.009", "1.92%", "0.009",
                                           "0.011", NULL});
  line_starting(text, "  MTE2 ", line, sizeof line);
  assert_words(line, (const char *const[]){"MTE2", "aic_mte2", "0.013", "2.93%", "0.017", "3.85%", "0.009", "0.017",
                                           NULL});
  line_starting(text, "  CUBE ", line, sizeof line);
  assert_words(line, (const char *const[]){"CUBE", "aic_mac", "0.000", "0.00%", "0.000", "0.00%", "0.000", "0.000",
                                           NULL});
  line_starting(text, "  MTE3 ", line, sizeof line);
  assert_words(line, (const char *const[]){"MTE3", "aiv_mte3", "0.013", "2.93%", "0.017", "3.85%", "0.009", "0.017",
                                           NULL});
  /* the MTE2 line's columns line up with the header's */
  char head[512];
  line_starting(text, "  pipe ", head, sizeof head);
  line_starting(text, "  MTE2 ", line, sizeof line);
  assert_int_equal(strlen(head), strlen(line));
  /* paths: 6144 B over 832 cycles at 1850 MHz = 13.66 GB/s */
  line_starting(text, "  GM->UB ", line, sizeof line);
  assert_words(line, (const char *const[]){"GM->UB", "6,144", "B", "(6.0", "KiB)", "13.66", NULL});
  line_starting(text, "  UB->GM ", line, sizeof line);
  assert_words(line, (const char *const[]){"UB->GM", "6,144", "B", "(6.0", "KiB)", "13.66", NULL});
  assert_null(strstr(text, "L1->L0A")); /* paths that moved nothing are left out */
  line_starting(text, "  L2 ", line, sizeof line);
  assert_words(line, (const char *const[]){"L2", "0", "of", "12,288", "B", "(12.0", "KiB)", "hit", "(hit",
                                           "rate", "0.0%)", NULL});
  line_starting(text, "  HBM read ", line, sizeof line);
  assert_words(line, (const char *const[]){"HBM", "read", "6,144", "B", "(6.0", "KiB)", NULL});
  line_starting(text, "  HBM written ", line, sizeof line);
  assert_words(line, (const char *const[]){"HBM", "written", "0", "B", NULL});
  line_starting(text, "  L2 dirty ", line, sizeof line);
  assert_words(line, (const char *const[]){"L2", "dirty", "6,144", "B", "(6.0", "KiB)", "(written", "back", "after",
                                           "the", "run)", NULL});
  line_starting(text, "  bandwidth ", line, sizeof line);
  assert_words(line, (const char *const[]){"bandwidth", "27.32", "GB/s", "over", "the", "run,", "299.12",
                                           "GB/s", "while", "busy", "(76", "cycles)", NULL});
  /* cores and instruction kinds */
  line_starting(text, "      0 ", line, sizeof line);
  assert_words(line, (const char *const[]){"0", "0", "832", "832", "4", "0", "0", "critical", NULL});
  line_starting(text, "      1 ", line, sizeof line);
  assert_words(line, (const char *const[]){"1", "0", "804", "804", "5", "784", "0", NULL});
  line_starting(text, "  spread ", line, sizeof line);
  assert_words(line, (const char *const[]){"spread", "span", "804", "..", "832", "cycles", "(mean", "818.0),",
                                           "finish", "804", "..", "832", "cycles,", "over", "2", "blocks", NULL});
  assert_null(strstr(text, "ran nothing"));
  line_starting(text, "  copy_gm_ub ", line, sizeof line);
  assert_words(line, (const char *const[]){"copy_gm_ub", "2", "48", "1,112", NULL});
  line_starting(text, "  wait_flag ", line, sizeof line);
  assert_words(line, (const char *const[]){"wait_flag", "2", "0", "0", NULL});
  assert_null(strstr(text, "  mmad ")); /* kinds that did not run are left out */
  line_starting(text, "  hazards ", line, sizeof line);
  assert_words(line, (const char *const[]){"hazards", "none", NULL});
  line_starting(text, "  stalls ", line, sizeof line);
  assert_words(line, (const char *const[]){"stalls", "784", "cycles", "(dispatch", "waited", "on", "a", "full",
                                           "queue,", "a", "barrier", "or", "a", "flag)", NULL});
  assert_null(strstr(text, "DEADLOCK"));
  free(text);
}

/* ---- CSV -------------------------------------------------------------------------------- */

static void test_summary_csv_one_row_per_core_and_the_means(void **state) {
  fixture *fx = *state;
  capture c;
  capture_begin(&c);
  trc_summary_csv(fx->s, &fx->r, c.f);
  capture_end(&c);
  /* per core: busy cycles and busy / the core's span (832, 804), span_us = span / 1850; the
   * last row: means over the 2 blocks, the ratios mean busy / aicore 818 */
  const char *want =
      "core,critical,start_cycles,finish_cycles,span_cycles,span_us,total_cycles,aic_mac_cycles,"
      "aic_scalar_cycles,aic_mte1_cycles,aic_mte2_cycles,aic_fixpipe_cycles,aiv_vec_cycles,aiv_mte3_cycles,"
      "aic_mac_ratio,aic_scalar_ratio,aic_mte1_ratio,aic_mte2_ratio,aic_fixpipe_ratio,aiv_vec_ratio,"
      "aiv_mte3_ratio,instructions,macs,stall_cycles\n"
      "0,1,0,832,832,0.449730,832,0,16,0,32,0,0,32,"
      "0.000000,0.019231,0.000000,0.038462,0.000000,0.000000,0.038462,4,0,0\n"
      "1,0,0,804,804,0.434595,832,0,20,0,16,0,0,16,"
      "0.000000,0.024876,0.000000,0.019900,0.000000,0.000000,0.019900,5,0,784\n"
      "avg,,0.000,818.000,818.000,0.442162,832,0.000,18.000,0.000,24.000,0.000,0.000,24.000,"
      "0.000000,0.022005,0.000000,0.029340,0.000000,0.000000,0.029340,4.500,0.000,392.000\n";
  assert_string_equal(c.text, want);
  free(c.text);
}

/* ---- the cube roofline ------------------------------------------------------------------ */

static void test_summary_ideal_cube_cycles_per_dtype(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  isa_insn s[6];
  s[0] = ib_mmad(ISA_FP16, 128, 256, 64);  /* 2097152 MACs / 4096 = 512 (the calibration tile) */
  s[1] = ib_mmad(ISA_INT8, 16, 16, 64);    /* 16384 / 8192 = 2 */
  s[2] = ib_mmad(ISA_INT4, 1, 1, 1);       /* 1 / 16384: no padding to fractals */
  s[3] = ib_mmad(ISA_BF16, 17, 3, 5);      /* 255 / 4096 */
  s[4] = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_M, ISA_PIPE_FIX, 0); /* not an mmad */
  s[5] = ib_mmad(ISA_UINT8, 32, 32, 32);   /* 32768 / 8192 = 4 */
  double want = 512.0 + 2.0 + 1.0 / 16384.0 + 255.0 / 4096.0 + 4.0;
  assert_true(fabs(trc_ideal_cube_cycles(&cfg, s, 6) - want) < 1e-12);
  assert_true(trc_ideal_cube_cycles(&cfg, s, 0) == 0.0);
  cfg.cube_macs_per_cycle_fp16 = 8192; /* a cube twice as fast for fp16 */
  assert_true(fabs(trc_ideal_cube_cycles(&cfg, s, 1) - 256.0) < 1e-12);
}

static void test_summary_msprof_names(void **state) {
  (void)state;
  assert_string_equal(trc_pipe_msprof_name(ISA_PIPE_M), "aic_mac");
  assert_string_equal(trc_pipe_msprof_name(ISA_PIPE_MTE1), "aic_mte1");
  assert_string_equal(trc_pipe_msprof_name(ISA_PIPE_MTE2), "aic_mte2");
  assert_string_equal(trc_pipe_msprof_name(ISA_PIPE_FIX), "aic_fixpipe");
  assert_string_equal(trc_pipe_msprof_name(ISA_PIPE_S), "aic_scalar");
  assert_string_equal(trc_pipe_msprof_name(ISA_PIPE_V), "aiv_vec");
  assert_string_equal(trc_pipe_msprof_name(ISA_PIPE_MTE3), "aiv_mte3");
  assert_string_equal(trc_pipe_msprof_name(ISA_PIPE_ALL), "?");
}

/* ---- runs that went wrong --------------------------------------------------------------- */

static void test_summary_reports_hazards(void **state) {
  (void)state;
  sim *s = sb_trace_sim(1);
  cs_err err;
  uint64_t a, b;
  assert_int_equal(sim_gm_alloc(s, "A", 1024, &a, &err), CS_OK);
  assert_int_equal(sim_gm_alloc(s, "B", 1024, &b, &err), CS_OK);
  /* reads UB before the copy into it completes: no flag between MTE2 and MTE3 */
  isa_insn in = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, a, 1024);
  sb_issue(s, 0, in);
  in = ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, b, ISA_MEM_UB, 0, 1024);
  sb_issue(s, 0, in);
  sim_run_options opt = {.allow_hazards = true};
  sim_result r;
  assert_int_equal(sim_run(s, &opt, &r, &err), CS_OK);
  assert_int_equal(r.hazard_count, 1);
  cs_jdoc *d = summary_json(s, &r);
  const cs_jvalue *j = cs_jroot(d);
  assert_int_equal(je_u64(j, "hazards.count"), 1);
  assert_string_equal(je_string(j, "hazards.first[0].kind"), "RAW");
  assert_string_equal(je_string(j, "hazards.first[0].earlier_op"), "copy_gm_ub");
  assert_string_equal(je_string(j, "hazards.first[0].later_op"), "copy_ub_gm");
  assert_string_equal(je_string(j, "hazards.first[0].mem"), "UB");
  assert_int_equal(je_u64(j, "hazards.first[0].lo"), 0);
  assert_int_equal(je_u64(j, "hazards.first[0].hi"), 1024);
  char desc[1024];
  sim_hazard_describe(&r.hazards[0], desc, sizeof desc);
  assert_string_equal(je_string(j, "hazards.first[0].message"), desc);
  cs_jfree(d);
  char *text = summary_text(s, &r);
  char line[1200], want[1200];
  line_starting(text, "  hazards ", line, sizeof line);
  assert_string_equal(line, "  hazards        1 (missing set_flag/wait_flag or pipe_barrier):");
  snprintf(want, sizeof want, "    - %s", desc);
  line_starting(text, "    - ", line, sizeof line);
  assert_string_equal(line, want);
  free(text);
  sim_result_free(&r);
  sim_destroy(s);
}

static void test_summary_reports_deadlock(void **state) {
  (void)state;
  sim *s = sb_trace_sim(1);
  isa_insn in = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 5);
  sb_issue(s, 0, in);
  cs_err err;
  sim_result r;
  assert_int_equal(sim_run(s, NULL, &r, &err), CS_EDEADLOCK);
  cs_jdoc *d = summary_json(s, &r);
  assert_string_equal(je_string(cs_jroot(d), "deadlock"), r.deadlock_msg);
  cs_jfree(d);
  char *text = summary_text(s, &r);
  char line[1200], want[1200];
  snprintf(want, sizeof want, "  DEADLOCK       %s", r.deadlock_msg);
  line_starting(text, "  DEADLOCK ", line, sizeof line);
  assert_string_equal(line, want);
  free(text);
  sim_result_free(&r);
  sim_destroy(s);
}

static void test_summary_of_an_empty_run(void **state) {
  (void)state;
  sim *s = sb_trace_sim(3);
  cs_err err;
  sim_result r;
  assert_int_equal(sim_run(s, NULL, &r, &err), CS_OK);
  cs_jdoc *d = summary_json(s, &r);
  const cs_jvalue *j = cs_jroot(d);
  assert_int_equal(je_u64(j, "total_cycles"), 0);
  assert_true(je_number(j, "pipes.MTE2.ratio") == 0.0); /* 0 / 0 is reported as 0, never NaN */
  assert_true(je_number(j, "gm.gb_per_s") == 0.0);
  assert_true(je_number(j, "cube_utilization") == 0.0);
  assert_int_equal(cs_jcount(cs_jget(j, "per_core")), 3);
  assert_int_equal(je_u64(j, "blocks"), 0);
  assert_true(je_number(j, "aicore_cycles") == 0.0);
  assert_true(je_number(j, "pipes.MTE2.avg_busy_cycles") == 0.0);
  cs_jfree(d);
  char *text = summary_text(s, &r);
  assert_non_null(strstr(text, "  (no data moved)\n"));
  assert_non_null(strstr(text, "  3 cores ran nothing\n"));
  assert_null(strstr(text, "nan"));
  free(text);
  sim_result_free(&r);
  sim_destroy(s);
}

/* A core that runs nothing is not a block: msprof's means are over cores 0 and 2 only, and the
 * least busy block is not the idle core. The per-core figures come from the engine's stats. */
static void test_summary_means_are_over_the_blocks(void **state) {
  (void)state;
  sim *s = sb_trace_sim(3);
  cs_err err;
  uint64_t a, b;
  assert_int_equal(sim_gm_alloc(s, "A", 8192, &a, &err), CS_OK);
  assert_int_equal(sim_gm_alloc(s, "B", 8192, &b, &err), CS_OK);
  sb_issue(s, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, a, 2048));
  sb_issue(s, 2, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, b, 8192));
  sim_result r;
  assert_int_equal(sim_run(s, NULL, &r, &err), CS_OK);
  const sim_core_stats *c0 = &r.stats.core[0], *c2 = &r.stats.core[2];
  assert_int_equal(r.stats.core[1].instructions, 0);
  assert_true(c2->finish_cycles > c0->finish_cycles); /* four times the bytes */
  uint64_t m0 = c0->pipe_busy_cycles[ISA_PIPE_MTE2], m2 = c2->pipe_busy_cycles[ISA_PIPE_MTE2];
  assert_true(m0 > 0 && m2 > m0);
  double aicore = (double)((c0->finish_cycles - c0->start_cycles) + (c2->finish_cycles - c2->start_cycles)) / 2.0;
  trc_summary m;
  trc_summary_compute(s, &r, &m);
  assert_int_equal(m.blocks, 2);
  assert_int_equal(m.critical_core, 2);
  assert_true(m.aicore_cycles == aicore);
  assert_true(m.pipes[ISA_PIPE_MTE2].avg_busy_cycles == (double)(m0 + m2) / 2.0);
  assert_true(m.pipes[ISA_PIPE_MTE2].ratio == (double)(m0 + m2) / 2.0 / aicore);
  assert_int_equal(m.pipes[ISA_PIPE_MTE2].min_busy_cycles, m0);
  assert_int_equal(m.pipes[ISA_PIPE_MTE2].max_busy_cycles, m2);
  assert_int_equal(m.pipes[ISA_PIPE_MTE2].critical_busy_cycles, m2);
  assert_int_equal(m.finish_cycles.min, c0->finish_cycles);
  char *text = summary_text(s, &r);
  assert_non_null(strstr(text, "  1 core ran nothing\n"));
  assert_non_null(strstr(text, "  critical\n"));
  free(text);
  sim_result_free(&r);
  sim_destroy(s);
}

/* An AIV-only run (one copy on AIV 0.0, core 1 of a 1-AI-core chip with 2 AIVs) labels its pipes
 * with msprof's aiv_* names and shows no cube pipe; the same copy on the AI core keeps aic_*. */
static void test_summary_aiv_only_run_names_aiv_pipes(void **state) {
  (void)state;
  for (int on_aiv = 0; on_aiv < 2; on_aiv++) {
    sim *s = sb_trace_sim(1);
    cs_err err;
    assert_int_equal(sim_aiv_enable(s, &err), CS_OK);
    assert_int_equal(sim_aiv_count(s), 2);
    uint64_t a;
    assert_int_equal(sim_gm_alloc(s, "A", 2048, &a, &err), CS_OK);
    sb_issue(s, on_aiv ? 1 : 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, a, 2048));
    sim_result r;
    assert_int_equal(sim_run(s, NULL, &r, &err), CS_OK);
    trc_summary m;
    trc_summary_compute(s, &r, &m);
    assert_int_equal(m.blocks, 1);
    assert_int_equal(m.aiv_cores, 2);
    assert_int_equal(m.aiv_blocks, on_aiv ? 1 : 0);
    char *text = summary_text(s, &r);
    assert_true((strstr(text, "  MTE2    aiv_mte2 ") != NULL) == (on_aiv == 1));
    assert_true((strstr(text, "  MTE2    aic_mte2 ") != NULL) == (on_aiv == 0));
    assert_true((strstr(text, "  SCALAR  aiv_scalar ") != NULL) == (on_aiv == 1));
    assert_true((strstr(text, "aic_mac") != NULL) == (on_aiv == 0));
    assert_true((strstr(text, "aic_fixpipe") != NULL) == (on_aiv == 0));
    assert_true((strstr(text, "(AIV blocks: no cube pipes)") != NULL) == (on_aiv == 1));
    assert_non_null(strstr(text, "  VECTOR  aiv_vec "));
    free(text);
    sim_result_free(&r);
    sim_destroy(s);
  }
  assert_string_equal(trc_pipe_msprof_aiv_name(ISA_PIPE_S), "aiv_scalar");
  assert_string_equal(trc_pipe_msprof_aiv_name(ISA_PIPE_MTE2), "aiv_mte2");
  assert_null(trc_pipe_msprof_aiv_name(ISA_PIPE_M));
  assert_null(trc_pipe_msprof_aiv_name(ISA_PIPE_MTE1));
  assert_null(trc_pipe_msprof_aiv_name(ISA_PIPE_FIX));
}

int main(void) {
  const struct CMUnitTest run_tests[] = {
      cmocka_unit_test(test_summary_json_totals_and_pipes),
      cmocka_unit_test(test_summary_json_paths_gm_l2_and_ops),
      cmocka_unit_test(test_summary_json_per_core_stats_and_config),
      cmocka_unit_test(test_summary_text_lines),
      cmocka_unit_test(test_summary_csv_one_row_per_core_and_the_means),
  };
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_summary_ideal_cube_cycles_per_dtype),
      cmocka_unit_test(test_summary_msprof_names),
      cmocka_unit_test(test_summary_aiv_only_run_names_aiv_pipes),
      cmocka_unit_test(test_summary_reports_hazards),
      cmocka_unit_test(test_summary_reports_deadlock),
      cmocka_unit_test(test_summary_of_an_empty_run),
      cmocka_unit_test(test_summary_means_are_over_the_blocks),
  };
  int failed = cmocka_run_group_tests_name("two-core run", run_tests, setup_run, teardown_run);
  return failed + cmocka_run_group_tests_name("summary", tests, NULL, NULL);
}
