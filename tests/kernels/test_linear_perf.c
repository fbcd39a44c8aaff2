/* The performance of ATB Linear in the model (simulated cycles, deterministic — not a timed
 * test): a 4096^3 int8 Linear on the built-in 910B is bound by MTE2 — the int8 cube moves twice
 * the MACs of fp16 per byte read, and the calibrated per-core GM rates (docs/TIMING.md) cannot
 * feed it — with MTE2 busy nearly all the time and the cube at least 40 % of its peak; in a trace
 * of a smaller run the MTE2, MTE1, CUBE and FIXP tracks overlap in time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/kn_op.h"
#include "sim/sim_trace.h"
#include "base/cs_jsonr.h"
#include "support/json_expect.h"
#include "traces/trc_summary.h"

/* ATB Linear m x n x k on generated inputs; with `pinned`, the tiling of Huawei's samples (base
 * 128 x 256 x 128 for int8, two L1 buffers of two base_k each, one L0C buffer), else the search's. */
static kn_ctx *linear(const sim_config *cfg, unsigned m, unsigned n, unsigned k, bool timing_only,
                      sim_trace *trace, bool pinned) {
  kn_run_options o = {.cfg = cfg, .timing_only = timing_only, .trace = trace, .seed = 1};
  kn_ctx *ctx;
  cs_err err;
  char v[16];
  assert_int_equal(kn_ctx_create(kn_op_find("linear"), &o, &ctx, &err), CS_OK);
  snprintf(v, sizeof v, "%u", m);
  assert_int_equal(kn_ctx_set_attr(ctx, "m", v, &err), CS_OK);
  snprintf(v, sizeof v, "%u", n);
  assert_int_equal(kn_ctx_set_attr(ctx, "n", v, &err), CS_OK);
  snprintf(v, sizeof v, "%u", k);
  assert_int_equal(kn_ctx_set_attr(ctx, "k", v, &err), CS_OK);
  static const char *const tiling[][2] = {{"base_m", "128"}, {"base_n", "256"}, {"base_k", "128"},
                                          {"step_k", "2"},   {"depth_a1", "4"},  {"depth_b1", "4"}, {"db_l0c", "1"}};
  for (size_t i = 0; pinned && i < sizeof tiling / sizeof tiling[0]; i++)
    assert_int_equal(kn_ctx_set_attr(ctx, tiling[i][0], tiling[i][1], &err), CS_OK);
  cs_status st = kn_ctx_run(ctx, &err);
  if (st != CS_OK) fail_msg("linear: %s", err.msg);
  return ctx;
}

/* Cube utilization as the issue defines it: MACs / (peak MACs per cycle x cores x cycles). */
static void test_linear_4096_int8_is_mte2_bound(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  kn_ctx *ctx = linear(&cfg, 4096, 4096, 4096, true, NULL, false);
  const sim_result *r = rt_device_result(kn_device(ctx));
  assert_true(r->stats.macs == 4096ull * 4096 * 4096);
  double util = (double)r->stats.macs / ((double)cfg.cube_macs_per_cycle_int8 * (double)cfg.chip_aic_cores *
                                         (double)r->total_cycles);
  assert_true(util >= 0.40);
  trc_summary sm;
  trc_summary_compute(rt_device_sim(kn_device(ctx)), r, &sm);
  assert_true(sm.pipes[ISA_PIPE_MTE2].ratio >= 0.9);
  assert_true(sm.pipes[ISA_PIPE_MTE2].ratio > sm.pipes[ISA_PIPE_M].ratio);
  assert_true(sm.cube_utilization - util < 1e-9 && util - sm.cube_utilization < 1e-9);
  assert_int_equal(r->hazard_count, 0);
  kn_ctx_destroy(ctx);
}

/* Busy intervals [start, busy_end) of one track of core 0 (pid 1) in the trace. */
typedef struct spans {
  uint64_t (*iv)[2];
  size_t n;
} spans;

static spans track(const cs_jvalue *events, const char *cat) {
  spans s = {calloc(cs_jcount(events) + 1, sizeof *s.iv), 0};
  for (size_t i = 0; i < cs_jcount(events); i++) {
    const cs_jvalue *e = cs_jat(events, i);
    const char *ph = cs_jget_string(e, "ph"), *c = cs_jget_string(e, "cat");
    uint64_t pid = 0, start = 0, end = 0;
    if (!ph || strcmp(ph, "X") || !c || strcmp(c, cat) || !cs_jget_u64(e, "pid", &pid) || pid != 1) continue;
    assert_true(cs_jget_u64(e, "args.start_cycle", &start));
    assert_true(cs_jget_u64(e, "args.busy_end_cycle", &end));
    if (end > start) {
      s.iv[s.n][0] = start;
      s.iv[s.n][1] = end;
      s.n++;
    }
  }
  return s;
}

/* Cycles during which both tracks are busy. */
static uint64_t overlap(const spans *a, const spans *b) {
  uint64_t total = 0;
  for (size_t i = 0; i < a->n; i++)
    for (size_t j = 0; j < b->n; j++) {
      uint64_t lo = a->iv[i][0] > b->iv[j][0] ? a->iv[i][0] : b->iv[j][0];
      uint64_t hi = a->iv[i][1] < b->iv[j][1] ? a->iv[i][1] : b->iv[j][1];
      if (hi > lo) total += hi - lo;
    }
  return total;
}

static void test_linear_trace_shows_the_pipes_overlapping(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 2;
  char path[64];
  snprintf(path, sizeof path, "/tmp/cubesim_overlap_%d.json", (int)getpid());
  sim_trace *t;
  cs_err err;
  assert_int_equal(sim_trace_open(path, &cfg, &t, &err), CS_OK);
  kn_ctx *ctx = linear(&cfg, 256, 512, 1024, true, t, true);
  assert_int_equal(sim_trace_close(t, true, &err), CS_OK);
  kn_ctx_destroy(ctx);
  cs_jdoc *d = je_parse_file(path);
  const cs_jvalue *ev = cs_jget(cs_jroot(d), "traceEvents");
  spans mte2 = track(ev, "MTE2"), mte1 = track(ev, "MTE1"), cube = track(ev, "CUBE"), fix = track(ev, "FIXP");
  assert_true(mte2.n > 0 && mte1.n > 0 && cube.n > 0 && fix.n > 0);
  /* the copies of later K chunks stream while the cube works, the loads of the next sub-chunk
   * run under the current mmad */
  assert_true(overlap(&mte2, &cube) > 0);
  assert_true(overlap(&mte1, &cube) > 0);
  assert_true(overlap(&mte2, &mte1) > 0);
  /* a 128 x 256 tile fills L0C, so a tile's fixpipe cannot overlap the next tile's mmads; it
   * overlaps the copies of the next tile's first K chunks */
  assert_true(overlap(&fix, &mte2) > 0);
  free(mte2.iv);
  free(mte1.iv);
  free(cube.iv);
  free(fix.iv);
  cs_jfree(d);
  remove(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_linear_4096_int8_is_mte2_bound),
      cmocka_unit_test(test_linear_trace_shows_the_pipes_overlapping),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
