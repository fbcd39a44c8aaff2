/* Streaming runs (sim_options.stream_record, rt_launch_concurrent_owned, sim_record_cores): a
 * timing-only launch whose streams are only counted, recorded again as the replay reads them.
 *   - the run gives exactly the results of a device that kept its streams (every counter of
 *     every core), it did stream (sim_streamed), the streams read afterwards are the kept ones
 *     instruction for instruction, and a second run (now with streams kept) agrees again;
 *   - with one host thread for the run, nothing streams, and the results are the same;
 *   - a run with hazards, or one that deadlocks, goes again with streams kept: the same error,
 *     the same hazards as on a device that kept them; a launch that faults keeps its streams and
 *     fails as the other does;
 *   - the arguments are released once, when the device is done with them;
 *   - a host-memory limit that the kept streams exceed lets a streamed run through;
 *   - memory, counted block by block (this executable's malloc stands in for glibc's): four times
 *     the instructions add less than a sixteenth of what they add with the streams kept (nothing
 *     but noise: 36 KiB less in one run), and the whole is less than half the kept run's peak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"
#include "support/insn_build.h"

#define CORES 4

enum { CLEAN, HAZARD, DEADLOCK, FAULT };

typedef struct tiles {
  uint64_t gm;      /* 64 KiB of GM a core for the cores to read */
  unsigned tiles;   /* per core */
  int variant;
  unsigned *released; /* counts free_tiles calls */
} tiles;

static void free_tiles(void *arg) {
  tiles *t = arg;
  (*t->released)++;
  free(t);
}

/* Per tile: GM -> L1 (MTE2), L1 -> L0A (MTE1) ordered by a flag, and L1 given back to MTE2 by
 * another; core 1 leaves out one of the first flags at tile 3 (HAZARD), core 2 waits at the end
 * for a set that never comes (DEADLOCK), core 3 copies to a misaligned L1 address (FAULT). */
static void tile_kernel(rt_ctx *ctx, void *arg) {
  const tiles *t = arg;
  unsigned b = rt_block_idx(ctx);
  for (unsigned i = 0; i < t->tiles; i++) {
    bool skip = t->variant == HAZARD && b == 1 && i == 3;
    isa_insn in;
    if (i) {
      in = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE1, ISA_PIPE_MTE2, 0);
      rt_issue(ctx, &in);
    }
    uint64_t l1 = t->variant == FAULT && b == 3 && i == 5 ? 3 : 0;
    in = ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, l1, ISA_MEM_GM, t->gm + (uint64_t)b * 65536 + (i % 32) * 2048, 2048);
    rt_issue(ctx, &in);
    if (!skip) {
      in = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0);
      rt_issue(ctx, &in);
      in = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0);
      rt_issue(ctx, &in);
    }
    in = ib_load2d(ISA_OP_LOAD_L0A, ISA_FP16, 0, 0, 0, 4, 1, 0);
    rt_issue(ctx, &in);
    in = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE1, ISA_PIPE_MTE2, 0);
    rt_issue(ctx, &in);
  }
  isa_insn in = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE1, ISA_PIPE_MTE2, 0);
  rt_issue(ctx, &in);
  if (t->variant == DEADLOCK && b == 2) {
    in = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_M, ISA_PIPE_MTE2, 1);
    rt_issue(ctx, &in);
  }
}

typedef struct dev_run {
  rt_device *dev;
  cs_status launched, ran;
  cs_err launch_err, run_err;
} dev_run;

/* A timing-only device of `cores` cores (streaming or not; host memory up to `limit` bytes, 0:
 * any) with the kernel launched on each. */
static dev_run launch_limited(unsigned cores, bool stream, uint64_t limit, unsigned tiles_per_core, int variant,
                              unsigned *released) {
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = cores;
  dev_run r;
  memset(&r, 0, sizeof r);
  sim_options o = {.timing_only = true, .record_threads = 2, .stream_record = stream, .max_host_bytes = limit};
  cs_err err;
  assert_int_equal(rt_device_create(&cfg, &o, &r.dev, &err), CS_OK);
  rt_gtensor g;
  assert_int_equal(rt_gm_alloc(r.dev, "x", ISA_UINT8, (uint64_t)cores * 65536, &g, &err), CS_OK);
  tiles *t = malloc(sizeof *t);
  assert_non_null(t);
  *t = (tiles){g.addr, tiles_per_core, variant, released};
  r.launched = rt_launch_concurrent_owned(r.dev, cores, tile_kernel, t, free_tiles, &r.launch_err);
  return r;
}

static dev_run launch_on(unsigned cores, bool stream, unsigned tiles_per_core, int variant, unsigned *released) {
  return launch_limited(cores, stream, 0, tiles_per_core, variant, released);
}

static dev_run launch(bool stream, unsigned tiles_per_core, int variant, unsigned *released) {
  return launch_on(CORES, stream, tiles_per_core, variant, released);
}

static void run(dev_run *r, unsigned threads) {
  r->ran = rt_device_run(r->dev, &(sim_run_options){.host_threads = threads}, &r->run_err);
}

static void assert_same_results(const sim_result *a, const sim_result *b) {
  assert_int_equal(a->total_cycles, b->total_cycles);
  assert_int_equal(a->stats.cores, b->stats.cores);
  assert_memory_equal(&a->stats, &b->stats, offsetof(sim_stats, cores));
  for (unsigned c = 0; c < a->stats.cores; c++)
    assert_memory_equal(&a->stats.core[c], &b->stats.core[c], sizeof a->stats.core[c]);
  assert_int_equal(a->hazard_count, b->hazard_count);
  assert_int_equal(a->hazards_kept, b->hazards_kept);
  for (unsigned i = 0; i < a->hazards_kept; i++) {
    const sim_hazard *x = &a->hazards[i], *y = &b->hazards[i];
    assert_int_equal(x->core, y->core);
    assert_int_equal(x->earlier, y->earlier);
    assert_int_equal(x->later, y->later);
    assert_int_equal(x->kind, y->kind);
    assert_int_equal(x->time, y->time);
  }
}

static void assert_same_streams(rt_device *a, rt_device *b) {
  sim *sa = rt_device_sim(a), *sb = rt_device_sim(b);
  for (unsigned c = 0; c < CORES; c++) {
    const sim_core *x = sim_get_core(sa, c), *y = sim_get_core(sb, c);
    assert_int_equal(sim_core_stream_len(x), sim_core_stream_len(y));
    for (uint64_t i = 0; i < sim_core_stream_len(x); i++) {
      isa_insn p, q;
      sim_core_insn(x, i, &p);
      sim_core_insn(y, i, &q);
      if (memcmp(&p, &q, sizeof p) != 0) fail_msg("core %u instruction %llu differs", c, (unsigned long long)i);
    }
  }
}

static void test_stream_run_gives_the_kept_results(void **state) {
  (void)state;
  unsigned released = 0;
  dev_run kept = launch(false, 700, CLEAN, &released);
  dev_run streamed = launch(true, 700, CLEAN, &released);
  assert_int_equal(kept.launched, CS_OK);
  assert_int_equal(streamed.launched, CS_OK);
  assert_int_equal(released, 1); /* the kept device's arguments: done with at its launch */
  sim *ss = rt_device_sim(streamed.dev);
  assert_true(sim_deferred(ss));
  assert_false(sim_deferred(rt_device_sim(kept.dev)));
  /* 6 instructions a tile, the first without its wait, and the last wait: 6 x 700 per core */
  for (unsigned c = 0; c < CORES; c++) assert_int_equal(sim_core_stream_len(sim_get_core(ss, c)), 6 * 700);
  run(&kept, 2);
  run(&streamed, 2);
  assert_int_equal(kept.ran, CS_OK);
  assert_int_equal(streamed.ran, CS_OK);
  assert_true(sim_streamed(ss));
  assert_false(sim_streamed(rt_device_sim(kept.dev)));
  assert_same_results(rt_device_result(kept.dev), rt_device_result(streamed.dev));
  assert_true(rt_device_result(kept.dev)->total_cycles > 0);
  assert_int_equal(rt_device_result(kept.dev)->stats.instructions, CORES * 6 * 700);
  /* the streams asked for are recorded for good: the kept ones */
  assert_same_streams(kept.dev, streamed.dev);
  assert_false(sim_deferred(ss));
  run(&streamed, 2); /* now with streams kept: the same again */
  assert_int_equal(streamed.ran, CS_OK);
  assert_false(sim_streamed(ss));
  assert_same_results(rt_device_result(kept.dev), rt_device_result(streamed.dev));
  /* one thread for the run: nothing streams, the same results */
  dev_run one = launch(true, 700, CLEAN, &released);
  run(&one, 1);
  assert_int_equal(one.ran, CS_OK);
  assert_false(sim_streamed(rt_device_sim(one.dev)));
  assert_same_results(rt_device_result(kept.dev), rt_device_result(one.dev));
  assert_int_equal(released, 3); /* each recorded for good once: read, and run on one thread */
  rt_device_destroy(kept.dev);
  rt_device_destroy(streamed.dev);
  rt_device_destroy(one.dev);
  assert_int_equal(released, 3);
}

static void test_stream_run_goes_again_for_hazards_and_deadlocks(void **state) {
  (void)state;
  static const int variants[] = {HAZARD, DEADLOCK};
  static const cs_status want[] = {CS_EHAZARD, CS_EDEADLOCK};
  for (int v = 0; v < 2; v++) {
    unsigned released = 0;
    dev_run kept = launch(false, 40, variants[v], &released);
    dev_run streamed = launch(true, 40, variants[v], &released);
    assert_int_equal(kept.launched, CS_OK);
    assert_int_equal(streamed.launched, CS_OK);
    assert_true(sim_deferred(rt_device_sim(streamed.dev)));
    run(&kept, 2);
    run(&streamed, 2);
    assert_int_equal(kept.ran, want[v]);
    assert_int_equal(streamed.ran, want[v]);
    assert_string_equal(kept.run_err.msg, streamed.run_err.msg);
    assert_false(sim_streamed(rt_device_sim(streamed.dev))); /* it went again, streams kept */
    assert_false(sim_deferred(rt_device_sim(streamed.dev)));
    const sim_result *a = rt_device_result(kept.dev), *b = rt_device_result(streamed.dev);
    if (variants[v] == HAZARD) {
      assert_true(a->hazard_count > 0);
      assert_int_equal(a->hazards[0].core, 1);
      assert_same_results(a, b);
    } else {
      assert_true(a->deadlocked && b->deadlocked);
      assert_int_equal(a->deadlock.core, 2);
      assert_int_equal(b->deadlock.core, 2);
      assert_int_equal(a->deadlock.index, b->deadlock.index);
    }
    rt_device_destroy(kept.dev);
    rt_device_destroy(streamed.dev);
    assert_int_equal(released, 2);
  }
}

static void test_stream_launch_that_faults_keeps_its_streams(void **state) {
  (void)state;
  unsigned released = 0;
  dev_run kept = launch(false, 40, FAULT, &released);
  dev_run streamed = launch(true, 40, FAULT, &released);
  assert_int_equal(kept.launched, CS_EFAULT);
  assert_int_equal(streamed.launched, CS_EFAULT);
  assert_string_equal(kept.launch_err.msg, streamed.launch_err.msg);
  assert_non_null(strstr(streamed.launch_err.msg, "core 3"));
  assert_false(sim_deferred(rt_device_sim(streamed.dev)));
  assert_int_equal(released, 2); /* recorded for good: nothing to record again */
  assert_same_streams(kept.dev, streamed.dev);
  rt_device_destroy(kept.dev);
  rt_device_destroy(streamed.dev);
}

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#if !defined(SANITIZED) && defined(__GLIBC__)
#define COUNTED 1
#include <malloc.h>
#include <stdatomic.h>
/* Every heap block of the process, the library's included (this executable's malloc stands in for
 * glibc's, which it calls by its own names): the bytes live now and their peak since a reset. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static atomic_llong live_bytes, peak_bytes;

static void counted(void *p, long long sign) {
  if (!p) return;
  long long now = atomic_fetch_add(&live_bytes, sign * (long long)malloc_usable_size(p)) +
                  sign * (long long)malloc_usable_size(p);
  long long peak = atomic_load(&peak_bytes);
  while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now)) {
  }
}

void *malloc(size_t n) {
  void *p = __libc_malloc(n);
  counted(p, 1);
  return p;
}
void *calloc(size_t n, size_t size) {
  void *p = __libc_calloc(n, size);
  counted(p, 1);
  return p;
}
void *realloc(void *q, size_t n) {
  counted(q, -1); /* before: q may be freed by the call */
  void *p = __libc_realloc(q, n);
  if (p) counted(p, 1);
  else if (n) counted(q, 1); /* failed: q stays */
  return p;
}
void free(void *p) {
  counted(p, -1);
  __libc_free(p);
}

/* A run's peak of live heap bytes over what was live before its launch. */
static long long growth(bool stream, unsigned tiles_per_core) {
  unsigned released = 0;
  long long before = atomic_load(&live_bytes);
  atomic_store(&peak_bytes, before);
  dev_run r = launch_on(8, stream, tiles_per_core, CLEAN, &released);
  assert_int_equal(r.launched, CS_OK);
  run(&r, 2);
  assert_int_equal(r.ran, CS_OK);
  assert_int_equal(sim_streamed(rt_device_sim(r.dev)), stream);
  long long peak = atomic_load(&peak_bytes);
  rt_device_destroy(r.dev);
  return peak - before;
}
#endif

static void test_stream_run_memory_does_not_follow_the_streams(void **state) {
  (void)state;
#ifdef COUNTED
  /* 8 cores x 6 x T instructions. Kept, the streams take a reference and a share of a mark
   * each, about 1.2 bytes an instruction; streamed, a few chunks a core, the replay's window and
   * the hazard check's, whatever T. */
  long long s1 = growth(true, 25000), s4 = growth(true, 100000), k1 = growth(false, 25000),
            k4 = growth(false, 100000);
  printf("peak heap growth: streamed %lld, %lld KiB; streams kept %lld, %lld KiB (1.2 M, 4.8 M instructions)\n",
         s1 >> 10, s4 >> 10, k1 >> 10, k4 >> 10);
  assert_true(k4 - k1 > 8 * 6 * 75000); /* kept: more than a byte for each instruction added */
  assert_true((s4 - s1) * 16 < k4 - k1);
  assert_true(s4 < k4 / 2);
#else
  skip();
#endif
}

/* The host-memory limit counts the streams a run holds: 4 cores x 600000 instructions keep more
 * than 2 MB of streams, which a limit of 1.5 MB refuses at the launch; streamed, the run holds
 * one core's stream at a time (its growth given back once checked) and fits. */
static void test_stream_run_fits_a_limit_the_kept_streams_do_not(void **state) {
  (void)state;
  unsigned released = 0;
  const uint64_t limit = 1536 * 1024;
  dev_run kept = launch_limited(CORES, false, limit, 100000, CLEAN, &released);
  assert_int_equal(kept.launched, CS_ENOMEM);
  assert_non_null(strstr(kept.launch_err.msg, "host memory: the instruction stream of core"));
  dev_run streamed = launch_limited(CORES, true, limit, 100000, CLEAN, &released);
  assert_int_equal(streamed.launched, CS_OK);
  run(&streamed, 2);
  if (streamed.ran != CS_OK) fail_msg("%s", streamed.run_err.msg);
  assert_true(sim_streamed(rt_device_sim(streamed.dev)));
  assert_int_equal(rt_device_result(streamed.dev)->stats.instructions, CORES * 6 * 100000);
  rt_device_destroy(kept.dev);
  rt_device_destroy(streamed.dev);
  assert_int_equal(released, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stream_run_memory_does_not_follow_the_streams),
      cmocka_unit_test(test_stream_run_gives_the_kept_results),
      cmocka_unit_test(test_stream_run_goes_again_for_hazards_and_deadlocks),
      cmocka_unit_test(test_stream_launch_that_faults_keeps_its_streams),
      cmocka_unit_test(test_stream_run_fits_a_limit_the_kept_streams_do_not),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
