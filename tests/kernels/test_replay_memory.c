/* The timing replay's own memory follows the instructions in flight, not the length of the
 * streams (sim/README.md, "Memory"): replaying twice as many instructions takes no more host
 * memory beyond the streams themselves than replaying half of them. Measured with glibc's
 * allocator statistics at the replay's progress reports (every SIM_PROGRESS_STEP instructions);
 * under a sanitizer, whose allocator glibc does not see, the test is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <malloc.h>
#include <stdio.h>

#include "kernels/kn_op.h"
#include "runtime/rt_host.h"
#include "sim/sim.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifndef SANITIZED
/* Bytes the program has allocated now (heap and mmapped blocks). */
static uint64_t allocated_bytes(void) {
  struct mallinfo2 mi = mallinfo2();
  return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
}

typedef struct watch {
  bool on;         /* measuring (the second replay) */
  uint64_t peak;   /* the most allocated at a progress report of the replay */
  unsigned reports;
} watch;

static void on_progress(void *ctx, const sim_progress *p) {
  watch *w = ctx;
  if (!w->on || !p->replaying) return;
  uint64_t now = allocated_bytes();
  if (now > w->peak) w->peak = now;
  w->reports++;
}

/* Records a timing-only fp16 matmul m x 2048 x 8192 on one core, then replays it again while
 * watching: the replay's growth over what the recorded simulator held before it. */
static uint64_t replay_growth(unsigned m, uint64_t *instructions) {
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 1;
  watch w = {0};
  sim_progress_hook hook = {on_progress, &w};
  kn_run_options o = {.cfg = &cfg, .timing_only = true, .seed = 1, .progress = &hook};
  kn_ctx *ctx;
  cs_err err;
  char mv[16];
  snprintf(mv, sizeof mv, "%u", m);
  assert_int_equal(kn_ctx_create(kn_op_find("matmul"), &o, &ctx, &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "m", mv, &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "n", "2048", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "k", "8192", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "tiling", "analytic", &err), CS_OK);
  /* base tiles of 128 x 128 x 128: at m = 2048, over four progress steps of instructions */
  assert_int_equal(kn_ctx_set_attr(ctx, "base_m", "128", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "base_n", "128", &err), CS_OK);
  assert_int_equal(kn_ctx_set_attr(ctx, "base_k", "128", &err), CS_OK);
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("%s", err.msg);
  sim_result res;
  uint64_t before = allocated_bytes();
  w.peak = before;
  w.on = true;
  /* one host thread: the replay alone (the check beside it would allocate meanwhile) */
  assert_int_equal(sim_run(rt_device_sim(kn_device(ctx)), &(sim_run_options){.host_threads = 1}, &res, &err), CS_OK);
  w.on = false;
  *instructions = res.stats.instructions;
  assert_int_equal(w.reports, *instructions / SIM_PROGRESS_STEP);
  sim_result_free(&res);
  kn_ctx_destroy(ctx);
  return w.peak - before;
}
#endif

static void test_replay_memory_does_not_grow_with_instructions(void **state) {
  (void)state;
#ifdef SANITIZED
  skip();
#else
  uint64_t n_small, n_large;
  uint64_t small = replay_growth(2048, &n_small), large = replay_growth(4096, &n_large);
  assert_true(n_large >= 2 * n_small - n_small / 16); /* about twice the instructions */
  assert_true(n_small >= 4 * SIM_PROGRESS_STEP);
  /* the L2's tags and the queues are the same in both; per-instruction replay state (once 80
   * bytes) would add n_large - n_small times that. What may remain: the happens-before check's
   * byte per instruction of the core it checks, freed before the replay (its peak is not seen
   * at the reports), and the allocator's rounding. */
  uint64_t extra = large > small ? large - small : 0;
  print_message("replay growth: %llu bytes for %llu instructions, %llu bytes for %llu\n",
                (unsigned long long)small, (unsigned long long)n_small, (unsigned long long)large,
                (unsigned long long)n_large);
  assert_true(extra < (n_large - n_small) / 8);
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replay_memory_does_not_grow_with_instructions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
