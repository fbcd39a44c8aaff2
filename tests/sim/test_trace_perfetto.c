/* Tests of the Perfetto protobuf trace (sim/sim_trace_pf.c) and of the filters and options
 * every trace has (sim/sim_trace.c): the two-core run of tests/sim/test_trace.c decoded by an
 * independent reader (tests/support/pf_read) against times worked out by hand; the events of a
 * Perfetto trace and of the JSON trace of the same replay, one for one; the file's structure,
 * also through `protoc --decode_raw` when protoc is installed; core, window and flag filters in
 * both formats; option parsing and the projected-size notice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/cs_jsonr.h"
#include "kernels/kn_op.h"
#include "sim/sim.h"
#include "sim/sim_trace.h"
#include "support/json_expect.h"
#include "support/kn_test.h"
#include "support/pf_read.h"
#include "support/sim_build.h"
#include "support/tmp_files.h"

#define MHZ 1850u /* sb_trace_sim's clock (the defaults') */

/* cycles at `mhz` in ns, rounded to the nearest (halves up): the documented conversion,
 * computed here in long double. */
static uint64_t ns_of(uint64_t cycles, unsigned mhz) {
  return (uint64_t)floorl((long double)cycles * 1000.0L / (long double)mhz + 0.5L);
}

/* Replays s with a trace at path (options: NULL for the defaults). */
static void replay_traced(sim *s, const char *path, const sim_trace_options *o) {
  cs_err err;
  sim_trace *t = NULL;
  assert_int_equal(sim_trace_open_with(path, sim_get_config(s), o, &t, &err), CS_OK);
  sim_result r;
  sim_run_options ro = {.trace = t};
  assert_int_equal(sim_run(s, &ro, &r, &err), CS_OK);
  assert_int_equal(sim_trace_close(t, true, &err), CS_OK);
  sim_result_free(&r);
}

static void no_problems(const pfr_trace *t) {
  if (t->problems) fail_msg("%zu problems in the Perfetto trace; the first: %s", t->problems, t->first_problem);
  assert_int_equal(t->absolute_timestamps, 0);
}

/* ---- the JSON trace's events, for the round trip -------------------------------------------- */

typedef struct jslice {
  const char *name;
  unsigned pid, tid;
  uint64_t start, busy_end; /* cycles */
  bool matched;
} jslice;

/* The complete events of a JSON trace ("X"), with their cycles from args. */
static jslice *json_slices(const cs_jvalue *events, size_t *n) {
  jslice *s = calloc(cs_jcount(events) + 1, sizeof *s);
  assert_non_null(s);
  *n = 0;
  for (size_t i = 0; i < cs_jcount(events); i++) {
    const cs_jvalue *e = cs_jat(events, i);
    if (strcmp(je_string(e, "ph"), "X") != 0) continue;
    jslice *x = &s[(*n)++];
    x->name = je_string(e, "name");
    x->pid = (unsigned)je_u64(e, "pid");
    x->tid = (unsigned)je_u64(e, "tid");
    x->start = je_u64(e, "args.start_cycle");
    x->busy_end = je_u64(e, "args.busy_end_cycle");
  }
  return s;
}

/* Every JSON slice has exactly one Perfetto slice of the same name and thread at the same
 * times (ns of its cycles), and the other way round; so have the arrows (ids on the slices of
 * the same threads) and the counter samples. */
static void same_events(const char *json_path, const char *pf_path) {
  cs_jdoc *doc = je_parse_file(json_path);
  const cs_jvalue *events = cs_jget(cs_jroot(doc), "traceEvents");
  pfr_trace pf;
  pfr_read_file(pf_path, &pf);
  no_problems(&pf);
  size_t n;
  jslice *js = json_slices(events, &n);
  assert_int_equal(pf.nslices, n);
  for (size_t i = 0; i < pf.nslices; i++) {
    const pfr_slice *p = &pf.slices[i];
    size_t k = 0;
    for (; k < n; k++) {
      jslice *x = &js[k];
      if (!x->matched && x->pid == p->pid && x->tid == p->tid && strcmp(x->name, p->name) == 0 &&
          ns_of(x->start, MHZ) == p->begin_ns && ns_of(x->busy_end, MHZ) == p->end_ns)
        break;
    }
    if (k == n)
      fail_msg("Perfetto slice %s (pid %u, tid %u, %" PRIu64 "..%" PRIu64 " ns) is not in the JSON trace", p->name, p->pid,
               p->tid, p->begin_ns, p->end_ns);
    js[k].matched = true;
  }
  /* arrows: a JSON "s" (or "f") event with id X on a thread; the Perfetto slice on that thread
   * whose BEGIN carries X in flow_ids (terminating_flow_ids) */
  size_t arrows = 0, samples = 0;
  for (size_t i = 0; i < cs_jcount(events); i++) {
    const cs_jvalue *e = cs_jat(events, i);
    const char *ph = je_string(e, "ph");
    if (strcmp(ph, "C") == 0) {
      assert_true(samples < pf.nsamples);
      const pfr_sample *smp = &pf.samples[samples++];
      assert_string_equal(smp->track, je_string(e, "name"));
      assert_true(fabs(smp->value - je_number(e, "args.value")) == 0.0);
      /* the JSON's ts is cycles in microseconds to the picosecond: within half a ns */
      assert_true(fabs((double)smp->ns - je_number(e, "ts") * 1000.0) <= 0.5 + 1e-6);
      continue;
    }
    bool out = strcmp(ph, "s") == 0;
    if (!out && strcmp(ph, "f") != 0) continue;
    arrows++;
    uint64_t id = je_u64(e, "id");
    size_t found = 0;
    for (size_t k = 0; k < pf.nslices; k++) {
      const pfr_slice *p = &pf.slices[k];
      if ((out ? p->flow_out : p->flow_in) != id) continue;
      found++;
      assert_int_equal(p->pid, je_u64(e, "pid"));
      assert_int_equal(p->tid, je_u64(e, "tid"));
      assert_string_equal(p->name, out ? "set_flag" : "wait_flag");
    }
    assert_int_equal(found, 1);
  }
  assert_int_equal(samples, pf.nsamples);
  size_t pf_arrows = 0;
  for (size_t k = 0; k < pf.nslices; k++) pf_arrows += (pf.slices[k].flow_out != 0) + (pf.slices[k].flow_in != 0);
  assert_int_equal(pf_arrows, arrows);
  free(js);
  pfr_free(&pf);
  cs_jfree(doc);
}

/* ---- the two-core run, by hand ---------------------------------------------------------------- */

typedef struct two_core {
  tf_dir dir;
  char json[128], pf[128];
  sim *s;
} two_core;

static int setup_two_core(void **state) {
  two_core *f = calloc(1, sizeof *f);
  tf_dir_make(&f->dir);
  tf_join(f->json, sizeof f->json, f->dir.path, "t.json");
  tf_join(f->pf, sizeof f->pf, f->dir.path, "t.perfetto-trace");
  f->s = sb_trace_sim(2);
  sb_two_core_program(f->s, NULL);
  replay_traced(f->s, f->json, NULL);
  replay_traced(f->s, f->pf, NULL);
  *state = f;
  return 0;
}

static int teardown_two_core(void **state) {
  two_core *f = *state;
  sim_destroy(f->s);
  tf_dir_remove(&f->dir);
  free(f);
  return 0;
}

/* The slices of test_trace.c's expected replay, at ns = round(cycles * 1000 / 1850). */
static void test_pf_two_core_slices_by_hand(void **state) {
  two_core *f = *state;
  static const struct {
    const char *name;
    unsigned pid, tid;
    uint64_t begin_ns, end_ns, flow_out, flow_in;
  } want[] = {
      {"copy_gm_ub", 1, 102, 2, 19, 0, 0},     /* cycles 4..36 */
      {"set_flag", 1, 102, 307, 307, 1, 0},    /* 568 */
      {"wait_flag", 1, 106, 307, 307, 0, 1},   /* 568 */
      {"copy_ub_gm", 1, 106, 307, 324, 0, 0},  /* 568..600 */
      {"copy_gm_ub", 2, 202, 2, 11, 0, 0},     /* 4..20 */
      {"set_flag", 2, 202, 298, 298, 2, 0},    /* 552 */
      {"wait_flag", 2, 201, 298, 298, 0, 2},   /* 552 */
      {"copy_ub_gm", 2, 206, 301, 309, 0, 0},  /* 556..572 */
      {"pipe_barrier", 2, 201, 435, 435, 0, 0}, /* 804 */
  };
  pfr_trace t;
  pfr_read_file(f->pf, &t);
  no_problems(&t);
  assert_int_equal(t.nslices, sizeof want / sizeof want[0]);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    size_t k = 0;
    while (k < t.nslices && !(strcmp(t.slices[k].name, want[i].name) == 0 && t.slices[k].pid == want[i].pid &&
                              t.slices[k].tid == want[i].tid))
      k++;
    assert_true(k < t.nslices);
    assert_int_equal(t.slices[k].begin_ns, want[i].begin_ns);
    assert_int_equal(t.slices[k].end_ns, want[i].end_ns);
    /* the arrows pair set and wait of one core: their ids are equal and distinct per core */
    assert_int_equal(t.slices[k].flow_out != 0, want[i].flow_out != 0);
    assert_int_equal(t.slices[k].flow_in != 0, want[i].flow_in != 0);
  }
  uint64_t ids[2][2] = {{0, 0}, {0, 0}};
  for (size_t k = 0; k < t.nslices; k++) {
    if (t.slices[k].flow_out) ids[t.slices[k].pid - 1][0] = t.slices[k].flow_out;
    if (t.slices[k].flow_in) ids[t.slices[k].pid - 1][1] = t.slices[k].flow_in;
  }
  assert_true(ids[0][0] && ids[0][0] == ids[0][1] && ids[1][0] == ids[1][1] && ids[0][0] != ids[1][0]);
  /* the GM bandwidth counter: test_trace.c's samples */
  static const struct {
    uint64_t ns;
    double gb_per_s;
  } samples[] = {{2, 473.6}, {11, 236.8}, {19, 0}, {301, 236.8}, {307, 473.6}, {309, 236.8}, {324, 0}};
  assert_int_equal(t.nsamples, 7);
  for (size_t i = 0; i < 7; i++) {
    assert_string_equal(t.samples[i].track, "GM bandwidth (GB/s)");
    assert_int_equal(t.samples[i].ns, samples[i].ns);
    assert_true(fabs(t.samples[i].value - samples[i].gb_per_s) < 1e-9);
  }
  pfr_free(&t);
}

/* Processes for the chip and each core, a thread per pipe in the pipes' order, the counter
 * under the chip; the run's metadata on one instant event. */
static void test_pf_tracks_and_metadata(void **state) {
  two_core *f = *state;
  pfr_trace t;
  pfr_read_file(f->pf, &t);
  no_problems(&t);
  static const char *const pipes[] = {"SCALAR", "MTE2", "MTE1", "CUBE", "FIXP", "MTE3", "VECTOR"};
  size_t processes = 0, threads = 0, counters = 0;
  uint64_t chip_uuid = 0;
  for (size_t i = 0; i < t.ntracks; i++) {
    const pfr_track *tr = &t.tracks[i];
    if (tr->is_process) {
      processes++;
      if (tr->pid == 1000000) {
        assert_string_equal(tr->name, "chip (GM)");
        assert_int_equal(tr->rank, 0);
        chip_uuid = tr->uuid;
      } else {
        char name[16];
        snprintf(name, sizeof name, "core %u", tr->pid - 1);
        assert_string_equal(tr->name, name);
        assert_int_equal(tr->rank, (int)tr->pid);
      }
    } else if (tr->is_thread) {
      threads++;
      unsigned p = tr->tid % 100 - 1;
      assert_int_equal(tr->tid / 100, tr->pid);
      assert_true(p < 7);
      assert_string_equal(tr->name, pipes[p]);
      assert_int_equal(tr->rank, (int)p);
    } else if (tr->is_counter) {
      counters++;
      assert_int_equal(tr->parent, chip_uuid);
      assert_string_equal(tr->name, "GM bandwidth (GB/s)");
    }
  }
  assert_int_equal(processes, 3);
  assert_int_equal(threads, 14);
  assert_int_equal(counters, 1);
  assert_int_equal(t.instants, 1);
  assert_string_equal(t.instant_name, "cubesim run");
  static const char *const keys[] = {"generator", "cubesim_version", "format", "chip", "cores", "clock_mhz", "time_unit", "config"};
  assert_int_equal(t.nmeta, 8);
  for (size_t i = 0; i < 8; i++) assert_string_equal(t.meta[i][0], keys[i]);
  assert_string_equal(t.meta[0][1], "cubesim");
  assert_string_equal(t.meta[4][1], "2");
  assert_string_equal(t.meta[5][1], "1850");
  assert_string_equal(t.meta[6][1], "ns = round(cycles * 1000 / clock_mhz)");
  assert_true(strncmp(t.meta[7][1], "{\"chip\":{\"name\":", 16) == 0);
  pfr_free(&t);
}

static void test_pf_two_core_matches_json(void **state) {
  two_core *f = *state;
  same_events(f->json, f->pf);
}

/* 9 instructions: about 30 bytes each after a fixed head (descriptors and metadata). */
static void test_pf_is_small(void **state) {
  two_core *f = *state;
  size_t pf_len, json_len;
  free(tf_read(f->pf, &pf_len));
  free(tf_read(f->json, &json_len));
  assert_true(pf_len < json_len);
}

/* ---- a kernel's run: out-of-order completions, flags inside copies -------------------------- */

/* protoc --decode_raw reads the file as a protobuf message (skipped without protoc). */
static void protoc_decodes(const char *path) {
  if (system("command -v protoc >/dev/null 2>&1") != 0) {
    printf("protoc is not installed (Debian: protobuf-compiler): the --decode_raw check is skipped\n");
    return;
  }
  char cmd[512];
  snprintf(cmd, sizeof cmd, "protoc --decode_raw < '%s' > '%s.txt' 2>&1", path, path);
  int rc = system(cmd);
  assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
  char out[600];
  snprintf(out, sizeof out, "%s.txt", path);
  char *text = tf_read(out, NULL);
  /* a packet (1) with a track descriptor (60) and one with a track event (11) */
  assert_non_null(strstr(text, "1 {\n  10: 1\n  60 {"));
  assert_non_null(strstr(text, "  11 {\n    9: 1\n    10: "));
  free(text);
  remove(out);
}

static void test_pf_matmul_run_matches_json(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char json[128], pf[128];
  tf_join(json, sizeof json, d.path, "mm.json");
  tf_join(pf, sizeof pf, d.path, "mm.pftrace");
  kn_ctx *ctx = kt_ctx("matmul", 4);
  cs_err err;
  assert_int_equal(kn_ctx_set_attr(ctx, "in_dtype", "fp16", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "m", "256", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "n", "512", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "k", "384", &err), CS_OK);
  assert_int_equal(kn_ctx_run(ctx, &err), CS_OK);
  sim *s = rt_device_sim(kn_device(ctx));
  replay_traced(s, json, NULL);
  replay_traced(s, pf, NULL);
  same_events(json, pf);
  protoc_decodes(pf);
  kn_ctx_destroy(ctx);
  tf_dir_remove(&d);
}

/* ---- filters ------------------------------------------------------------------------------- */

/* Replays the two-core run with options o in both formats and returns the slices the JSON
 * trace kept; the Perfetto trace must keep the same. */
static size_t filtered(const sim_trace_options *o, const char *name, unsigned pid) {
  tf_dir d;
  tf_dir_make(&d);
  char json[128], pf[128];
  tf_join(json, sizeof json, d.path, "f.json");
  tf_join(pf, sizeof pf, d.path, "f.perfetto-trace");
  sim *s = sb_trace_sim(2);
  sb_two_core_program(s, NULL);
  replay_traced(s, json, o);
  replay_traced(s, pf, o);
  same_events(json, pf);
  pfr_trace t;
  pfr_read_file(pf, &t);
  size_t n = 0;
  for (size_t i = 0; i < t.nslices; i++)
    n += (!name || strcmp(t.slices[i].name, name) == 0) && (!pid || t.slices[i].pid == pid);
  pfr_free(&t);
  sim_destroy(s);
  tf_dir_remove(&d);
  return n;
}

static void test_pf_filters(void **state) {
  (void)state;
  sim_trace_options o;
  sim_trace_options_init(&o);
  assert_int_equal(filtered(&o, NULL, 0), 9);
  assert_int_equal(sim_trace_parse_cores(&o, "1", 2, NULL), CS_OK);
  assert_int_equal(filtered(&o, NULL, 0), 5);
  assert_int_equal(filtered(&o, NULL, 2), 5);
  /* cycles [560, 600): core 0's set/wait at 568 and copy 568..600, core 1's copy 556..572 */
  sim_trace_options_init(&o);
  assert_int_equal(sim_trace_parse_window(&o, "560:600", MHZ, NULL), CS_OK);
  assert_int_equal(filtered(&o, NULL, 0), 4);
  /* no flags: 2 set_flag and 2 wait_flag fewer, and no arrows */
  sim_trace_options_init(&o);
  o.flags = false;
  assert_int_equal(filtered(&o, NULL, 0), 5);
  assert_int_equal(filtered(&o, "set_flag", 0), 0);
}

/* ---- options ------------------------------------------------------------------------------- */

static void test_trace_options_parse(void **state) {
  (void)state;
  sim_trace_options o;
  sim_trace_options_init(&o);
  cs_err err;
  assert_int_equal(sim_trace_parse_cores(&o, "0,2,5-7", 24, &err), CS_OK);
  assert_int_equal(o.cores[0], 0xE5u); /* bits 0, 2, 5, 6, 7 */
  assert_int_equal(sim_trace_parse_cores(&o, "3-1", 24, &err), CS_EINVAL);
  assert_string_equal(err.msg, "--trace-cores: '3-1' is not a list of cores (like 0-3 or 0,2,5-7)");
  assert_int_equal(sim_trace_parse_cores(&o, "0,24", 24, &err), CS_EINVAL);
  assert_string_equal(err.msg, "--trace-cores: core 24 does not exist (chip.aic_cores = 24)");
  assert_int_equal(sim_trace_parse_cores(&o, "1,", 24, &err), CS_EINVAL);
  /* windows: cycles, microseconds rounded to the nearest cycle, open ends */
  assert_int_equal(sim_trace_parse_window(&o, "1000:5000", MHZ, &err), CS_OK);
  assert_int_equal(o.window_start, 1000);
  assert_int_equal(o.window_end, 5000);
  assert_int_equal(sim_trace_parse_window(&o, "0.5us:2us", MHZ, &err), CS_OK);
  assert_int_equal(o.window_start, 925); /* 0.5 x 1850 */
  assert_int_equal(o.window_end, 3700);
  assert_int_equal(sim_trace_parse_window(&o, "0.0003us:\xC2\xB5s", MHZ, &err), CS_EINVAL);
  assert_int_equal(sim_trace_parse_window(&o, "1.0003\xC2\xB5s:", MHZ, &err), CS_OK);
  assert_int_equal(o.window_start, 1851); /* 1850.555 */
  assert_int_equal(o.window_end, UINT64_MAX);
  assert_int_equal(sim_trace_parse_window(&o, ":7", MHZ, &err), CS_OK);
  assert_int_equal(o.window_start, 0);
  assert_int_equal(o.window_end, 7);
  assert_int_equal(sim_trace_parse_window(&o, "7:7", MHZ, &err), CS_EINVAL);
  assert_string_equal(err.msg, "--trace-window: '7:7' starts at cycle 7, not before its end 7");
  assert_int_equal(sim_trace_parse_window(&o, "-1:5", MHZ, &err), CS_EINVAL);
  assert_string_equal(err.msg,
                      "--trace-window: '-1:5' is not START:END (cycles, or microseconds with us: 1000:5000, 0.5us:3us)");
  assert_int_equal(sim_trace_parse_window(&o, "5", MHZ, &err), CS_EINVAL);
  /* formats */
  assert_int_equal(sim_trace_format_of_path("a/run.perfetto-trace"), SIM_TRACE_PERFETTO);
  assert_int_equal(sim_trace_format_of_path("run.PFTRACE"), SIM_TRACE_PERFETTO);
  assert_int_equal(sim_trace_format_of_path("run.json"), SIM_TRACE_JSON);
  assert_int_equal(sim_trace_format_of_path("trace"), SIM_TRACE_JSON);
  assert_int_equal(sim_trace_format_from_name("Perfetto"), SIM_TRACE_PERFETTO);
  assert_int_equal(sim_trace_format_from_name("xml"), SIM_TRACE_FORMAT_COUNT);
}

/* A trace projected over 256 MiB says so once, before any event; a smaller one says nothing. */
static void note(void *ctx, const char *msg) {
  char *buf = ctx;
  assert_true(buf[0] == '\0');
  snprintf(buf, 512, "%s", msg);
}

static void test_trace_projected_size_notice(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char path[128];
  tf_join(path, sizeof path, d.path, "big.perfetto-trace");
  sim_config cfg;
  sim_config_derived dv;
  assert_int_equal(sim_config_resolve(NULL, &cfg, &dv, NULL), CS_OK);
  char msg[512] = "";
  sim_trace_options o;
  sim_trace_options_init(&o);
  o.notice = note;
  o.notice_ctx = msg;
  sim_trace *t;
  assert_int_equal(sim_trace_open_with(path, &cfg, &o, &t, NULL), CS_OK);
  assert_int_equal(sim_trace_get_format(t), SIM_TRACE_PERFETTO);
  sim_trace_begin(t, 24, 10000000); /* 10 M instructions x 30 bytes = 286 MiB */
  char want[512];
  snprintf(want, sizeof want,
           "trace %s: projected 286 MiB (10000000 instructions at about 30 bytes each in perfetto); "
           "--trace-cores, --trace-window and --trace-flags off make it smaller",
           path);
  assert_string_equal(msg, want);
  assert_int_equal(sim_trace_close(t, false, NULL), CS_OK);
  /* with half the cores kept, the projection halves: under the limit, no notice */
  msg[0] = '\0';
  assert_int_equal(sim_trace_parse_cores(&o, "0-11", 24, NULL), CS_OK);
  assert_int_equal(sim_trace_open_with(path, &cfg, &o, &t, NULL), CS_OK);
  sim_trace_begin(t, 24, 10000000);
  assert_string_equal(msg, "");
  assert_int_equal(sim_trace_close(t, false, NULL), CS_OK);
  assert_false(tf_exists(path));
  tf_dir_remove(&d);
}

/* No instructions: descriptors and metadata only, still a well-formed trace. */
static void test_pf_empty_run(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char path[128];
  tf_join(path, sizeof path, d.path, "empty.pftrace");
  sim *s = sb_trace_sim(1);
  replay_traced(s, path, NULL);
  pfr_trace t;
  pfr_read_file(path, &t);
  no_problems(&t);
  assert_int_equal(t.nslices, 0);
  assert_int_equal(t.instants, 1);
  assert_int_equal(t.ntracks, 1 + 1 + 1 + 7); /* root, chip, core 0, its pipes */
  pfr_free(&t);
  sim_destroy(s);
  tf_dir_remove(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_pf_two_core_slices_by_hand, setup_two_core, teardown_two_core),
      cmocka_unit_test_setup_teardown(test_pf_tracks_and_metadata, setup_two_core, teardown_two_core),
      cmocka_unit_test_setup_teardown(test_pf_two_core_matches_json, setup_two_core, teardown_two_core),
      cmocka_unit_test_setup_teardown(test_pf_is_small, setup_two_core, teardown_two_core),
      cmocka_unit_test(test_pf_matmul_run_matches_json),
      cmocka_unit_test(test_pf_filters),
      cmocka_unit_test(test_trace_options_parse),
      cmocka_unit_test(test_trace_projected_size_notice),
      cmocka_unit_test(test_pf_empty_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
