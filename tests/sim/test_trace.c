/* Tests of sim/sim_trace: the Chrome Trace Event JSON of a small two-core run, checked event by
 * event against cycles worked out by hand from the default configuration and docs/DESIGN.md §6;
 * exact timestamps; flow arrows; counters; empty runs; keep=false; I/O failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sim/sim.h"
#include "sim/sim_trace.h"
#include "support/insn_build.h"
#include "base/cs_jsonr.h"
#include "support/json_expect.h"
#include "support/sim_build.h"
#include "support/tmp_files.h"

#define CHIP_PID 1000000u

/* ---- helpers ---------------------------------------------------------------------------- */

typedef struct tmpdir {
  char dir[64];
  char path[128]; /* dir/trace.json */
} tmpdir;

static void tmpdir_make(tmpdir *t) {
  tf_mkdtemp(t->dir, sizeof t->dir);
  tf_join(t->path, sizeof t->path, t->dir, "trace.json");
}

static void tmpdir_remove(tmpdir *t) { tf_remove_tree(t->dir); }

/* The main test's program is sb_two_core_program (tests/support/sim_build.h) on sb_trace_sim(2).
 * Expected replay, by hand (docs/DESIGN.md §6, default config: dispatch 4 cycles; MTE2/MTE3 128
 * B/cycle and 32 cycles; L2 miss 500 / hit 200 cycles; HBM 1800 GB/s = 973 B/cycle, so two
 * 128 B/cycle reads are capped by their cores, not shared):
 *   core 0: copy_gm_ub dispatched 4, streams 4..36 (16 cycles with core 1's read, both at 128
 *     B/cycle, then alone), completes 36 + 32 + 500 = 568; set_flag fires at 568 when it
 *     completes; wait_flag releases at 568; copy_ub_gm streams 568..600, completes
 *     600 + 32 + 200 (a write allocates in L2: hit latency) = 832.
 *   core 1: copy_gm_ub streams 4..20, completes 552; set_flag at 552; the wait_flag on S holds
 *     dispatch from 12 to 552; copy_ub_gm dispatched 556, streams 556..572 (shared from 568 with
 *     core 0's write, both still at their cap), completes 804; pipe_barrier(ALL) holds dispatch
 *     from 560 until MTE3 drains at 804. */
typedef struct expect_insn {
  unsigned core;
  uint64_t index;
  const char *name, *cat;
  unsigned tid;
  uint64_t dispatch, start, busy_end, end;
  const char *path;
  uint64_t bytes;
} expect_insn;

static const expect_insn expected[] = {
    {0, 0, "copy_gm_ub", "MTE2", 102, 4, 4, 36, 568, "GM->UB", 4096},
    {0, 1, "set_flag", "MTE2", 102, 8, 568, 568, 568, "none", 0},
    {0, 2, "wait_flag", "MTE3", 106, 12, 568, 568, 568, "none", 0},
    {0, 3, "copy_ub_gm", "MTE3", 106, 16, 568, 600, 832, "UB->GM", 4096},
    {1, 0, "copy_gm_ub", "MTE2", 202, 4, 4, 20, 552, "GM->UB", 2048},
    {1, 1, "set_flag", "MTE2", 202, 8, 552, 552, 552, "none", 0},
    {1, 2, "wait_flag", "SCALAR", 201, 552, 552, 552, 552, "none", 0},
    {1, 3, "copy_ub_gm", "MTE3", 206, 556, 556, 572, 804, "UB->GM", 2048},
    {1, 4, "pipe_barrier", "SCALAR", 201, 804, 804, 804, 804, "none", 0},
};
#define N_EXPECTED (sizeof expected / sizeof expected[0])

/* Independent reference for the ts text: cycles / mhz microseconds rounded to 6 decimals, in
 * long double (exact for these magnitudes; ties cannot occur at 1850 MHz since 37 | 1850). */
static void us_text(uint64_t cycles, uint64_t mhz, char *out, size_t n) {
  long double ps = roundl((long double)cycles * 1000000.0L / (long double)mhz);
  uint64_t p = (uint64_t)ps;
  snprintf(out, n, "%" PRIu64 ".%06" PRIu64, p / 1000000u, p % 1000000u);
}

/* Index of the first event with this phase, pid and (if tid != 0) tid whose `key` (if non-NULL)
 * is the number `value`, starting at `from`; -1 if none. */
static long find_event(const cs_jvalue *events, size_t from, const char *ph, unsigned pid, unsigned tid,
                       const char *key, uint64_t value) {
  for (size_t i = from; i < cs_jcount(events); i++) {
    const cs_jvalue *e = cs_jat(events, i);
    const char *p = cs_jget_string(e, "ph");
    uint64_t epid = 0, etid = 0, v = 0;
    if (!p || strcmp(p, ph) != 0 || !cs_jget_u64(e, "pid", &epid) || epid != pid) continue;
    if (tid && (!cs_jget_u64(e, "tid", &etid) || etid != tid)) continue;
    if (key && (!cs_jget_u64(e, key, &v) || v != value)) continue;
    return (long)i;
  }
  return -1;
}

static size_t count_phase(const cs_jvalue *events, const char *ph) {
  size_t n = 0;
  for (size_t i = 0; i < cs_jcount(events); i++) {
    const char *p = cs_jget_string(cs_jat(events, i), "ph");
    if (p && strcmp(p, ph) == 0) n++;
  }
  return n;
}

static void run_traced(sim *s, const char *path, bool keep, sim_result *r) {
  cs_err err;
  sim_trace *t = NULL;
  assert_int_equal(sim_trace_open(path, sim_get_config(s), &t, &err), CS_OK);
  sim_run_options opt = {.trace = t};
  assert_int_equal(sim_run(s, &opt, r, &err), CS_OK);
  assert_int_equal(sim_trace_close(t, keep, &err), CS_OK);
}

/* ---- the two-core run ------------------------------------------------------------------- */

typedef struct fixture {
  tmpdir td;
  sim *s;
  sb_two_core_gm p;
  sim_result r;
  cs_jdoc *doc;
  const cs_jvalue *events;
} fixture;

static int setup_run(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  tmpdir_make(&fx->td);
  fx->s = sb_trace_sim(2);
  sb_two_core_program(fx->s, &fx->p);
  run_traced(fx->s, fx->td.path, true, &fx->r);
  fx->doc = je_parse_file(fx->td.path);
  fx->events = cs_jget(cs_jroot(fx->doc), "traceEvents");
  *state = fx;
  return 0;
}

/* KEEP_TRACE=1 in the environment keeps the two-core trace in /tmp for a look in Perfetto. */
static int teardown_run(void **state) {
  fixture *fx = *state;
  cs_jfree(fx->doc);
  sim_result_free(&fx->r);
  sim_destroy(fx->s);
  if (!getenv("KEEP_TRACE")) tmpdir_remove(&fx->td);
  free(fx);
  return 0;
}

static void test_trace_file_is_renamed_and_carries_the_config(void **state) {
  fixture *fx = *state;
  assert_true(tf_exists(fx->td.path));
  assert_int_equal(tf_count_entries(fx->td.dir), 1); /* no temporary file left */
  const cs_jvalue *root = cs_jroot(fx->doc);
  assert_true(cs_jis(root, CS_JOBJECT));
  /* only keys Perfetto knows: it ignores the rest of the file after an unknown top-level key */
  assert_int_equal(cs_jcount(root), 3);
  assert_string_equal(je_string(root, "displayTimeUnit"), "ns");
  assert_string_equal(je_string(root, "otherData.generator"), "cubesim");
  assert_string_equal(je_string(root, "otherData.cubesim_version"), CUBESIM_VERSION);
  assert_string_equal(je_string(root, "otherData.chip"), "ascend910b");
  assert_int_equal(je_u64(root, "otherData.cores"), 2);
  assert_int_equal(je_u64(root, "otherData.clock_mhz"), 1850);
  assert_int_equal(je_u64(root, "otherData.config.chip.aic_cores"), 2);
  assert_int_equal(je_u64(root, "otherData.config.scalar.dispatch_cycles"), 4);
  assert_int_equal(je_u64(root, "otherData.config.l2.line_bytes"), 512);
  assert_true(cs_jis(fx->events, CS_JARRAY));
  /* the run itself, as the hand computation says */
  assert_int_equal(fx->r.total_cycles, 832);
  assert_int_equal(fx->r.stats.core[0].finish_cycles, 832);
  assert_int_equal(fx->r.stats.core[1].finish_cycles, 804);
}

static void test_trace_names_processes_and_pipe_tracks(void **state) {
  fixture *fx = *state;
  static const char *const tracks[] = {"SCALAR", "MTE2", "MTE1", "CUBE", "FIXP", "MTE3", "VECTOR"};
  for (unsigned core = 0; core < 2; core++) {
    unsigned pid = core + 1;
    long i = find_event(fx->events, 0, "M", pid, 0, NULL, 0);
    bool named = false, sorted = false;
    for (; i >= 0; i = find_event(fx->events, (size_t)i + 1, "M", pid, 0, NULL, 0)) {
      const cs_jvalue *e = cs_jat(fx->events, (size_t)i);
      if (strcmp(je_string(e, "name"), "process_name") == 0) {
        char want[16];
        snprintf(want, sizeof want, "core %u", core);
        assert_string_equal(je_string(e, "args.name"), want);
        named = true;
      }
      if (strcmp(je_string(e, "name"), "process_sort_index") == 0) {
        assert_int_equal(je_u64(e, "args.sort_index"), core + 1);
        sorted = true;
      }
    }
    assert_true(named && sorted);
    for (unsigned p = 0; p < 7; p++) {
      unsigned tid = pid * 100 + p + 1;
      bool has_name = false, has_sort = false;
      for (i = find_event(fx->events, 0, "M", pid, tid, NULL, 0); i >= 0;
           i = find_event(fx->events, (size_t)i + 1, "M", pid, tid, NULL, 0)) {
        const cs_jvalue *e = cs_jat(fx->events, (size_t)i);
        if (strcmp(je_string(e, "name"), "thread_name") == 0) {
          assert_string_equal(je_string(e, "args.name"), tracks[p]);
          has_name = true;
        } else {
          assert_string_equal(je_string(e, "name"), "thread_sort_index");
          assert_int_equal(je_u64(e, "args.sort_index"), p);
          has_sort = true;
        }
      }
      assert_true(has_name && has_sort);
    }
  }
  long chip = find_event(fx->events, 0, "M", CHIP_PID, 0, NULL, 0);
  assert_true(chip >= 0);
  assert_string_equal(je_string(cs_jat(fx->events, (size_t)chip), "name"), "process_name");
  assert_string_equal(je_string(cs_jat(fx->events, (size_t)chip), "args.name"), "chip (GM)");
  /* 2 for the chip, per core: name and sort index of the process and of 7 tracks */
  assert_int_equal(count_phase(fx->events, "M"), 2 + 2 * (2 + 7 * 2));
}

static void test_trace_one_complete_event_per_instruction_with_exact_times(void **state) {
  fixture *fx = *state;
  assert_int_equal(count_phase(fx->events, "X"), N_EXPECTED);
  for (size_t k = 0; k < N_EXPECTED; k++) {
    const expect_insn *x = &expected[k];
    long i = find_event(fx->events, 0, "X", x->core + 1, 0, "args.index", x->index);
    if (i < 0) fail_msg("no X event for core %u instruction %" PRIu64, x->core, x->index);
    const cs_jvalue *e = cs_jat(fx->events, (size_t)i);
    assert_string_equal(je_string(e, "name"), x->name);
    assert_string_equal(je_string(e, "cat"), x->cat);
    assert_int_equal(je_u64(e, "tid"), x->tid);
    assert_int_equal(je_u64(e, "args.dispatch_cycle"), x->dispatch);
    assert_int_equal(je_u64(e, "args.start_cycle"), x->start);
    assert_int_equal(je_u64(e, "args.busy_end_cycle"), x->busy_end);
    assert_int_equal(je_u64(e, "args.end_cycle"), x->end);
    assert_string_equal(je_string(e, "args.path"), x->path);
    assert_int_equal(je_u64(e, "args.bytes"), x->bytes);
    /* ts is exact to the picosecond; dur is the pipe's occupancy, start to busy_end */
    char want[40];
    us_text(x->start, 1850, want, sizeof want);
    assert_string_equal(cs_jnumber_text(cs_jget(e, "ts")), want);
    double ts = je_number(e, "ts"), dur = je_number(e, "dur");
    assert_true(llround(ts * 1850.0) == (long long)x->start);
    assert_true(llround(dur * 1850.0) == (long long)(x->busy_end - x->start));
    assert_true(fabs(ts + dur - (double)x->busy_end / 1850.0) < 1e-6);
  }
}

static void test_trace_args_carry_operands_and_l2(void **state) {
  fixture *fx = *state;
  char gm[32];
  const cs_jvalue *e = cs_jat(fx->events, (size_t)find_event(fx->events, 0, "X", 1, 0, "args.index", 0));
  assert_string_equal(je_string(e, "args.dst"), "UB:0x0");
  snprintf(gm, sizeof gm, "GM:0x%" PRIx64, fx->p.a);
  assert_string_equal(je_string(e, "args.src"), gm);
  assert_int_equal(je_u64(e, "args.block_count"), 1);
  assert_int_equal(je_u64(e, "args.block_len_bytes"), 4096);
  assert_int_equal(je_u64(e, "args.src_gap_bytes"), 0);
  assert_int_equal(je_u64(e, "args.l2_hit_bytes"), 0);
  assert_int_equal(je_u64(e, "args.l2_miss_bytes"), 4096); /* a cold L2 */
  e = cs_jat(fx->events, (size_t)find_event(fx->events, 0, "X", 1, 0, "args.index", 3));
  snprintf(gm, sizeof gm, "GM:0x%" PRIx64, fx->p.b);
  assert_string_equal(je_string(e, "args.dst"), gm);
  assert_int_equal(je_u64(e, "args.l2_miss_bytes"), 4096);
  /* flags: pipes by name, no L2 fields for an instruction that does not touch GM */
  e = cs_jat(fx->events, (size_t)find_event(fx->events, 0, "X", 2, 0, "args.index", 1));
  assert_string_equal(je_string(e, "args.src_pipe"), "MTE2");
  assert_string_equal(je_string(e, "args.dst_pipe"), "S");
  assert_int_equal(je_u64(e, "args.event_id"), 1);
  assert_null(cs_jget(e, "args.l2_hit_bytes"));
  e = cs_jat(fx->events, (size_t)find_event(fx->events, 0, "X", 2, 0, "args.index", 4));
  assert_string_equal(je_string(e, "args.pipe"), "ALL");
  assert_int_equal(cs_jcount(cs_jget(e, "args")), 5 + 1 + 2); /* cycles, the operand, path, bytes */
}

static void test_trace_flow_arrows_pair_set_and_wait(void **state) {
  fixture *fx = *state;
  assert_int_equal(count_phase(fx->events, "s"), 2);
  assert_int_equal(count_phase(fx->events, "f"), 2);
  /* core 0: MTE2 set_flag -> MTE3 wait_flag at 568; core 1: MTE2 -> S (the dispatcher) at 552 */
  static const struct {
    unsigned pid, s_tid, f_tid;
    uint64_t cycle;
  } arrows[] = {{1, 102, 106, 568}, {2, 202, 201, 552}};
  for (int a = 0; a < 2; a++) {
    long si = find_event(fx->events, 0, "s", arrows[a].pid, arrows[a].s_tid, NULL, 0);
    long fi = find_event(fx->events, 0, "f", arrows[a].pid, arrows[a].f_tid, NULL, 0);
    assert_true(si >= 0 && fi >= 0);
    const cs_jvalue *s = cs_jat(fx->events, (size_t)si), *f = cs_jat(fx->events, (size_t)fi);
    assert_int_equal(je_u64(s, "id"), je_u64(f, "id"));
    assert_string_equal(je_string(s, "cat"), je_string(f, "cat"));
    assert_string_equal(je_string(s, "name"), je_string(f, "name"));
    assert_string_equal(je_string(f, "bp"), "e");
    assert_null(cs_jget(s, "bp"));
    char want[40];
    us_text(arrows[a].cycle, 1850, want, sizeof want);
    assert_string_equal(cs_jnumber_text(cs_jget(s, "ts")), want);
    assert_string_equal(cs_jnumber_text(cs_jget(f, "ts")), want);
    /* each arrow end follows the zero-length slice it binds to (same track, same ts) */
    const char *names[2] = {"set_flag", "wait_flag"};
    long ends[2] = {si, fi};
    unsigned tids[2] = {arrows[a].s_tid, arrows[a].f_tid};
    for (int k = 0; k < 2; k++) {
      long x = find_event(fx->events, 0, "X", arrows[a].pid, tids[k], "args.start_cycle", arrows[a].cycle);
      assert_true(x >= 0 && x < ends[k]);
      assert_string_equal(je_string(cs_jat(fx->events, (size_t)x), "name"), names[k]);
    }
  }
  uint64_t id0 = je_u64(cs_jat(fx->events, (size_t)find_event(fx->events, 0, "s", 1, 0, NULL, 0)), "id");
  uint64_t id1 = je_u64(cs_jat(fx->events, (size_t)find_event(fx->events, 0, "s", 2, 0, NULL, 0)), "id");
  assert_true(id0 != id1);
}

static void test_trace_gm_bandwidth_counter(void **state) {
  fixture *fx = *state;
  /* GM rate changes: 2 reads at 128 B/cycle from 4; one from 20; none from 36; core 1's write
   * from 556, both writes from 568, one from 572, none from 600. GB/s = B/cycle x 1.85. */
  static const struct {
    uint64_t cycle;
    double gb_per_s;
  } samples[] = {{4, 473.6}, {20, 236.8}, {36, 0}, {556, 236.8}, {568, 473.6}, {572, 236.8}, {600, 0}};
  assert_int_equal(count_phase(fx->events, "C"), 7);
  size_t from = 0;
  for (int k = 0; k < 7; k++) {
    long i = find_event(fx->events, from, "C", CHIP_PID, 0, NULL, 0);
    assert_true(i >= 0);
    const cs_jvalue *e = cs_jat(fx->events, (size_t)i);
    assert_string_equal(je_string(e, "name"), "GM bandwidth (GB/s)");
    char want[40];
    us_text(samples[k].cycle, 1850, want, sizeof want);
    assert_string_equal(cs_jnumber_text(cs_jget(e, "ts")), want);
    assert_true(fabs(je_number(e, "args.value") - samples[k].gb_per_s) < 1e-9);
    from = (size_t)i + 1;
  }
}

/* ---- small and failed runs --------------------------------------------------------------- */

static void test_trace_of_zero_instructions_is_valid_json(void **state) {
  (void)state;
  tmpdir td;
  tmpdir_make(&td);
  sim *s = sb_trace_sim(1);
  sim_result r;
  run_traced(s, td.path, true, &r);
  assert_int_equal(r.total_cycles, 0);
  cs_jdoc *d = je_parse_file(td.path);
  const cs_jvalue *ev = cs_jget(cs_jroot(d), "traceEvents");
  assert_int_equal(cs_jcount(ev), 2 + 2 + 7 * 2); /* metadata only */
  assert_int_equal(count_phase(ev, "X"), 0);
  cs_jfree(d);
  sim_result_free(&r);
  /* opened and closed without a run: an empty event array */
  cs_err err;
  sim_trace *t = NULL;
  assert_int_equal(sim_trace_open(td.path, sim_get_config(s), &t, &err), CS_OK);
  assert_int_equal(sim_trace_close(t, true, &err), CS_OK);
  d = je_parse_file(td.path);
  assert_true(cs_jis(cs_jget(cs_jroot(d), "traceEvents"), CS_JARRAY));
  assert_int_equal(cs_jcount(cs_jget(cs_jroot(d), "traceEvents")), 0);
  cs_jfree(d);
  sim_destroy(s);
  tmpdir_remove(&td);
}

static void test_trace_of_one_instruction_is_valid_json(void **state) {
  (void)state;
  tmpdir td;
  tmpdir_make(&td);
  sim *s = sb_trace_sim(1);
  uint64_t a;
  cs_err err;
  assert_int_equal(sim_gm_alloc(s, "A", 512, &a, &err), CS_OK);
  isa_insn in = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x200, ISA_MEM_GM, a, 512);
  sb_issue(s, 0, in);
  sim_result r;
  run_traced(s, td.path, true, &r);
  cs_jdoc *d = je_parse_file(td.path);
  const cs_jvalue *ev = cs_jget(cs_jroot(d), "traceEvents");
  assert_int_equal(count_phase(ev, "X"), 1);
  const cs_jvalue *x = cs_jat(ev, (size_t)find_event(ev, 0, "X", 1, 102, NULL, 0));
  assert_string_equal(je_string(x, "args.dst"), "UB:0x200");
  /* 512 B at 128 B/cycle from cycle 4; done 4 + 4 + 32 + 500 */
  assert_int_equal(je_u64(x, "args.busy_end_cycle"), 8);
  assert_int_equal(je_u64(x, "args.end_cycle"), 540);
  assert_int_equal(r.total_cycles, 540);
  cs_jfree(d);
  sim_result_free(&r);
  sim_destroy(s);
  tmpdir_remove(&td);
}

static void test_trace_keep_false_leaves_no_file(void **state) {
  (void)state;
  tmpdir td;
  tmpdir_make(&td);
  sim *s = sb_trace_sim(2);
  sb_two_core_gm p;
  sb_two_core_program(s, &p);
  cs_err err;
  sim_trace *t = NULL;
  assert_int_equal(sim_trace_open(td.path, sim_get_config(s), &t, &err), CS_OK);
  /* written under a temporary name until closed */
  assert_int_equal(tf_count_entries(td.dir), 1);
  assert_false(tf_exists(td.path));
  sim_run_options opt = {.trace = t};
  sim_result r;
  assert_int_equal(sim_run(s, &opt, &r, &err), CS_OK);
  assert_int_equal(sim_trace_close(t, false, &err), CS_OK);
  assert_int_equal(tf_count_entries(td.dir), 0);
  sim_result_free(&r);
  sim_destroy(s);
  tmpdir_remove(&td);
}

static void test_trace_open_in_missing_directory_fails_with_eio(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  cs_err err;
  sim_trace *t = (sim_trace *)&cfg; /* must be reset */
  const char *path = "/nonexistent_cubesim_dir/sub/trace.json";
  assert_int_equal(sim_trace_open(path, &cfg, &t, &err), CS_EIO);
  assert_null(t);
  assert_int_equal(err.code, CS_EIO);
  char want[256];
  snprintf(want, sizeof want, "trace %s: directory /nonexistent_cubesim_dir/sub does not exist", path);
  assert_string_equal(err.msg, want);
  assert_int_equal(sim_trace_close(NULL, true, &err), CS_OK);
}

/* A write that fails (here: the file size limit) makes close report CS_EIO and keep nothing. */
static void test_trace_write_failure_keeps_nothing(void **state) {
  (void)state;
  tmpdir td;
  tmpdir_make(&td);
  sim *s = sb_trace_sim(2);
  sb_two_core_gm p;
  sb_two_core_program(s, &p);
  cs_err err;
  struct rlimit old;
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = {2048, old.rlim_max};
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
  sim_trace *t = NULL;
  cs_status open_st = sim_trace_open(td.path, sim_get_config(s), &t, &err);
  sim_result r;
  memset(&r, 0, sizeof r);
  cs_status close_st = CS_OK;
  if (open_st == CS_OK) {
    sim_run_options opt = {.trace = t};
    sim_run(s, &opt, &r, &err);
    close_st = sim_trace_close(t, true, &err);
  }
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);
  assert_int_equal(open_st, CS_OK);
  assert_int_equal(close_st, CS_EIO);
  char want[256];
  snprintf(want, sizeof want, "trace %s: write failed: %s; no trace was kept", td.path, strerror(EFBIG));
  assert_string_equal(err.msg, want);
  assert_int_equal(tf_count_entries(td.dir), 0);
  sim_result_free(&r);
  sim_destroy(s);
  tmpdir_remove(&td);
}

/* ---- the writer called directly --------------------------------------------------------- */

static void test_trace_timestamps_exact_for_large_cycles_and_any_clock(void **state) {
  (void)state;
  static const uint64_t clocks[] = {1850, 1000, 3, 100000, 7};
  static const uint64_t cycles[] = {0, 1, 2, 1849, 1850, 1851, 999999, 3000000000007ull, 1234567890123ull};
  tmpdir td;
  tmpdir_make(&td);
  for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
    sim_config cfg;
    sim_config_defaults(&cfg);
    cfg.chip_clock_mhz = clocks[c];
    cs_err err;
    sim_trace *t = NULL;
    assert_int_equal(sim_trace_open(td.path, &cfg, &t, &err), CS_OK);
    sim_trace_begin(t, 1, 0);
    isa_insn in = ib_barrier(ISA_PIPE_MTE2);
    isa_work w;
    memset(&w, 0, sizeof w);
    for (size_t k = 0; k < sizeof cycles / sizeof cycles[0]; k++) {
      sim_trace_insn_event e = {0, ISA_PIPE_MTE2, k, &in, cycles[k], cycles[k], cycles[k], cycles[k], cycles[k] + 1 + k,
                                cycles[k] + 2 + k, &w, 0, 0};
      sim_trace_insn(t, &e);
    }
    assert_int_equal(sim_trace_close(t, true, &err), CS_OK);
    cs_jdoc *d = je_parse_file(td.path);
    const cs_jvalue *ev = cs_jget(cs_jroot(d), "traceEvents");
    for (size_t k = 0; k < sizeof cycles / sizeof cycles[0]; k++) {
      const cs_jvalue *x = cs_jat(ev, (size_t)find_event(ev, 0, "X", 1, 102, "args.index", k));
      char want[48], end[48];
      us_text(cycles[k], clocks[c], want, sizeof want);
      assert_string_equal(cs_jnumber_text(cs_jget(x, "ts")), want);
      /* ts + dur is exactly the text of busy_end (decimal arithmetic on the two strings) */
      us_text(cycles[k] + 1 + k, clocks[c], end, sizeof end);
      const char *dur = cs_jnumber_text(cs_jget(x, "dur"));
      uint64_t tw, tf, dw, df, ew, ef;
      assert_int_equal(sscanf(want, "%" SCNu64 ".%" SCNu64, &tw, &tf), 2);
      assert_int_equal(sscanf(dur, "%" SCNu64 ".%" SCNu64, &dw, &df), 2);
      assert_int_equal(sscanf(end, "%" SCNu64 ".%" SCNu64, &ew, &ef), 2);
      assert_int_equal(strlen(strchr(dur, '.') + 1), 6);
      assert_true((tw + dw) * 1000000u + tf + df == ew * 1000000u + ef);
    }
    cs_jfree(d);
  }
  tmpdir_remove(&td);
}

/* The engine reports a flag's arrow just before the set_flag/wait_flag slice; the writer puts
 * the arrow after its slice so viewers bind it to that slice. */
static void test_trace_flow_follows_its_slice(void **state) {
  (void)state;
  tmpdir td;
  tmpdir_make(&td);
  sim_config cfg;
  sim_config_defaults(&cfg);
  cs_err err;
  sim_trace *t = NULL;
  assert_int_equal(sim_trace_open(td.path, &cfg, &t, &err), CS_OK);
  sim_trace_begin(t, 1, 0);
  isa_insn set = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_V, 3);
  isa_work w;
  memset(&w, 0, sizeof w);
  sim_trace_flow(t, 0, ISA_PIPE_MTE2, 100, 42, true);
  sim_trace_insn_event e = {0, ISA_PIPE_MTE2, 0, &set, 89, 90, 90, 100, 100, 100, &w, 0, 0};
  sim_trace_insn(t, &e);
  sim_trace_counter(t, "odd \"name\"", 150, NAN);
  /* an arrow never followed by its slice is still written (at close) */
  sim_trace_flow(t, 0, ISA_PIPE_V, 200, 42, false);
  assert_int_equal(sim_trace_close(t, true, &err), CS_OK);
  cs_jdoc *d = je_parse_file(td.path);
  const cs_jvalue *ev = cs_jget(cs_jroot(d), "traceEvents");
  long x = find_event(ev, 0, "X", 1, 102, NULL, 0);
  long s = find_event(ev, 0, "s", 1, 102, NULL, 0);
  long c = find_event(ev, 0, "C", CHIP_PID, 0, NULL, 0);
  long f = find_event(ev, 0, "f", 1, 107, NULL, 0);
  assert_true(x >= 0 && s == x + 1 && c > s && f > c);
  assert_int_equal(je_u64(cs_jat(ev, (size_t)s), "id"), 42);
  assert_string_equal(je_string(cs_jat(ev, (size_t)c), "name"), "odd \"name\"");
  assert_string_equal(cs_jnumber_text(cs_jget(cs_jat(ev, (size_t)c), "args.value")), "0"); /* NaN */
  cs_jfree(d);
  tmpdir_remove(&td);
}

/* Operand names go into args next to the writer's own keys: none may collide. */
static void test_trace_operand_names_do_not_collide_with_args(void **state) {
  (void)state;
  static const char *const own[] = {"index", "dispatch_cycle", "start_cycle", "busy_end_cycle",
                                    "end_cycle", "path", "bytes", "macs", "fractal_ops",
                                    "elements", "l2_hit_bytes", "l2_miss_bytes"};
  for (int op = 0; op < ISA_OP_COUNT; op++) {
    const isa_op_desc *d = isa_op_info((isa_op)op);
    for (size_t i = 0; i < d->field_count; i++)
      for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
        if (strcmp(d->fields[i].name, own[k]) == 0)
          fail_msg("%s: operand %s collides with a trace args key", d->mnemonic, own[k]);
  }
}

int main(void) {
  const struct CMUnitTest run_tests[] = {
      cmocka_unit_test(test_trace_file_is_renamed_and_carries_the_config),
      cmocka_unit_test(test_trace_names_processes_and_pipe_tracks),
      cmocka_unit_test(test_trace_one_complete_event_per_instruction_with_exact_times),
      cmocka_unit_test(test_trace_args_carry_operands_and_l2),
      cmocka_unit_test(test_trace_flow_arrows_pair_set_and_wait),
      cmocka_unit_test(test_trace_gm_bandwidth_counter),
  };
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trace_of_zero_instructions_is_valid_json),
      cmocka_unit_test(test_trace_of_one_instruction_is_valid_json),
      cmocka_unit_test(test_trace_keep_false_leaves_no_file),
      cmocka_unit_test(test_trace_open_in_missing_directory_fails_with_eio),
      cmocka_unit_test(test_trace_write_failure_keeps_nothing),
      cmocka_unit_test(test_trace_timestamps_exact_for_large_cycles_and_any_clock),
      cmocka_unit_test(test_trace_flow_follows_its_slice),
      cmocka_unit_test(test_trace_operand_names_do_not_collide_with_args),
  };
  int failed = cmocka_run_group_tests_name("two-core run", run_tests, setup_run, teardown_run);
  return failed + cmocka_run_group_tests_name("trace writer", tests, NULL, NULL);
}
