/* Recording on several host threads (rt_launch_concurrent, sim_record_concurrently): a
 * timing-only matmul's cores dealt to 1, 2, 3 and 5 threads give the same streams, instruction
 * for instruction, the same replay, and the same progress count; a record that runs out of host
 * memory fails the same way whatever the threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kn_op.h"
#include "runtime/rt_host.h"
#include "sim/sim.h"

typedef struct counted {
  uint64_t recorded; /* the last count a record report gave */
  unsigned reports;
  bool disorder;     /* a report gave no more than the one before */
  uint64_t replay_recorded; /* the count the replay's reports give */
} counted;

/* Called on any recording thread (one at a time): notes, and the test asserts on its own thread. */
static void on_progress(void *ctx, const sim_progress *p) {
  counted *c = ctx;
  if (p->replaying) {
    c->replay_recorded = p->recorded;
    return;
  }
  if (p->recorded <= c->recorded) c->disorder = true;
  c->recorded = p->recorded;
  c->reports++;
}

/* A timing-only fp16 matmul on the 6 cores of cfg, 47 tiles of 128 x 128 (8 on five of the cores,
 * 7 on the sixth), recorded on `threads` host threads; hook (NULL: none) and cfg outlive the
 * context. */
static kn_ctx *record(const sim_config *cfg, unsigned threads, uint64_t max_memory, const sim_progress_hook *hook,
                      cs_status *st, cs_err *err) {
  kn_run_options o = {.cfg = cfg, .timing_only = true, .seed = 1, .host_threads = threads, .progress = hook,
                      .max_memory_bytes = max_memory};
  kn_ctx *ctx;
  assert_int_equal(kn_ctx_create(kn_op_find("matmul"), &o, &ctx, err), CS_OK);
  const char *attrs[][2] = {{"in_dtype", "fp16"}, {"m", "6016"}, {"n", "128"}, {"k", "16384"},
                            {"tiling", "analytic"}, {"used_core_num", "6"}, {"single_core_m", "128"},
                            {"single_core_n", "128"}, {"base_m", "128"}, {"base_n", "128"}, {"l2_split", "1"}};
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
    assert_int_equal(kn_ctx_set_attr(ctx, attrs[i][0], attrs[i][1], err), CS_OK);
  *st = kn_ctx_run(ctx, err);
  return ctx;
}

static void six_cores(sim_config *cfg) {
  sim_config_defaults(cfg);
  cfg->chip_aic_cores = 6;
}

static void test_threads_record_the_same_streams(void **state) {
  (void)state;
  sim_config cfg;
  six_cores(&cfg);
  cs_err err;
  cs_status st;
  counted c1 = {0, 0, false, 0};
  sim_progress_hook h1 = {on_progress, &c1};
  kn_ctx *one = record(&cfg, 1, 0, &h1, &st, &err);
  if (st != CS_OK) fail_msg("%s", err.msg);
  sim *s1 = rt_device_sim(kn_device(one));
  const sim_result *r1 = rt_device_result(kn_device(one));
  unsigned cores = sim_core_count(s1);
  assert_int_equal(cores, 6);
  uint64_t total = 0;
  for (unsigned k = 0; k < cores; k++) total += sim_core_stream_len(sim_get_core(s1, k));
  /* 8 tiles on five of the cores, 7 on the sixth, each tile's instructions alike */
  for (unsigned k = 0; k < 5; k++)
    assert_int_equal(sim_core_stream_len(sim_get_core(s1, k)) * 7, sim_core_stream_len(sim_get_core(s1, 5)) * 8);
  assert_true(total > SIM_PROGRESS_STEP);
  assert_int_equal(c1.recorded, total / SIM_PROGRESS_STEP * SIM_PROGRESS_STEP);
  assert_int_equal(c1.replay_recorded, total);
  const unsigned threads[] = {2, 3, 5};
  for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
    counted cn = {0, 0, false, 0};
    sim_progress_hook hn = {on_progress, &cn};
    kn_ctx *many = record(&cfg, threads[t], 0, &hn, &st, &err);
    if (st != CS_OK) fail_msg("%u threads: %s", threads[t], err.msg);
    sim *sn = rt_device_sim(kn_device(many));
    for (unsigned k = 0; k < cores; k++) {
      const sim_core *a = sim_get_core(s1, k), *b = sim_get_core(sn, k);
      assert_int_equal(sim_core_stream_len(a), sim_core_stream_len(b));
      for (uint64_t i = 0; i < sim_core_stream_len(a); i++) {
        isa_insn x, y;
        sim_core_insn(a, i, &x);
        sim_core_insn(b, i, &y);
        if (memcmp(&x, &y, sizeof x) != 0)
          fail_msg("%u threads: core %u, instruction %llu differs", threads[t], k, (unsigned long long)i);
      }
    }
    const sim_result *rn = rt_device_result(kn_device(many));
    assert_int_equal(rn->total_cycles, r1->total_cycles);
    assert_int_equal(rn->stats.instructions, total);
    assert_int_equal(rn->stats.l2_hit_bytes, r1->stats.l2_hit_bytes);
    /* every STEP the count passed was reported once, the last at the last multiple below the total */
    assert_int_equal(cn.recorded, total / SIM_PROGRESS_STEP * SIM_PROGRESS_STEP);
    assert_int_equal(cn.reports, c1.reports);
    assert_false(cn.disorder); /* in order, one thread at a time */
    assert_int_equal(cn.replay_recorded, total); /* and what the threads had not added yet counted too */
    kn_ctx_destroy(many);
  }
  kn_ctx_destroy(one);
}

static void test_out_of_host_memory_fails_whatever_the_threads(void **state) {
  (void)state;
  sim_config cfg;
  six_cores(&cfg);
  for (unsigned threads = 1; threads <= 3; threads++) {
    cs_err err;
    cs_status st;
    kn_ctx *ctx = record(&cfg, threads, 3u << 20, NULL, &st, &err); /* a few MiB: the streams do not fit */
    assert_int_equal(st, CS_ENOMEM);
    if (!strstr(err.msg, "host memory")) fail_msg("%u threads: %s", threads, err.msg);
    kn_ctx_destroy(ctx);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_record_the_same_streams),
      cmocka_unit_test(test_out_of_host_memory_fails_whatever_the_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
