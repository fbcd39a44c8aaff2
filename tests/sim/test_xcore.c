/* Tests of cross-core synchronisation in the timing replay (sim/sim_xcore.h, docs/TIMING.md
 * "Cross-core flags"): CrossCoreSetFlag's three modes and CrossCoreWaitFlag in exact cycles, the
 * 15 pending sets a counter holds (the 16th stalls), SyncAll, and deadlocks across cores named
 * core by core.
 *
 * The round configuration (tests/support/sim_build.h) with no costs beyond bytes over bandwidth:
 * a copy GM -> UB of B bytes is dispatched at 1 and completes at 1 + B / 64 + 10 + 100; a vadd of
 * one repeat occupies V for 1 cycle and completes 4 later. A cross-core flag takes
 * aiv.cross_flag_cycles = 50 from its set firing to the counters; HBM is wide enough for every
 * core's copy to stream at its port. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"
#include "support/sim_build.h"

enum { FLAG = 3, LAT = 50 };

typedef struct job {
  int scenario;
  rt_gtensor g;
  unsigned sets; /* the limit scenario: how many sets the AIC makes */
} job;

/* A copy of `bytes` GM -> UB on MTE2 (at a fresh UB offset). */
static void copy_in(rt_ctx *ctx, const job *j, uint32_t bytes) {
  rt_ltensor t = rt_buf_alloc(ctx, RT_POS_VECIN, bytes, ISA_INT8, "in");
  rt_copy_gm_to_local(ctx, t, j->g, rt_copy_params(bytes));
}

static void vadd1(rt_ctx *ctx) {
  rt_ltensor a = rt_buf_alloc(ctx, RT_POS_VECCALC, 256, ISA_FP16, "a");
  rt_vbinary_n(ctx, ISA_OP_VADD, a, a, a, 128);
}

static void kernel(rt_ctx *ctx, void *arg) {
  const job *j = arg;
  bool aic = rt_core_kind_of(ctx) == RT_CORE_AIC;
  unsigned sub = rt_sub_block_idx(ctx);
  switch (j->scenario) {
    case 0: /* mode 2, AIC -> its AIVs */
      if (aic) {
        copy_in(ctx, j, 1024);
        rt_cross_set_flag(ctx, 2, ISA_PIPE_MTE2, FLAG);
      } else {
        rt_cross_wait_flag(ctx, FLAG);
        vadd1(ctx);
      }
      break;
    case 1: /* mode 2, both AIVs -> their AIC */
      if (aic) {
        rt_cross_wait_flag(ctx, FLAG);
        vadd1(ctx);
      } else {
        copy_in(ctx, j, sub ? 2048 : 1024);
        rt_cross_set_flag(ctx, 2, ISA_PIPE_MTE2, FLAG);
      }
      break;
    case 2: /* mode 1 between the AIVs; mode 0 among the AICs */
      copy_in(ctx, j, (aic ? rt_block_idx(ctx) : sub) ? 2048 : 1024);
      rt_cross_set_flag(ctx, aic ? 0 : 1, ISA_PIPE_MTE2, FLAG);
      rt_cross_wait_flag(ctx, FLAG);
      vadd1(ctx);
      break;
    case 3: /* the limit: the AIC sets j->sets times, the AIV never waits */
      if (aic)
        for (unsigned i = 0; i < j->sets; i++) rt_cross_set_flag(ctx, 2, ISA_PIPE_V, FLAG);
      else
        vadd1(ctx);
      break;
    case 4: /* each waits for the other first */
      if (aic) {
        rt_cross_wait_flag(ctx, 1);
        rt_cross_set_flag(ctx, 2, ISA_PIPE_MTE2, 2);
      } else {
        rt_cross_wait_flag(ctx, 2);
        rt_cross_set_flag(ctx, 2, ISA_PIPE_MTE2, 1);
      }
      break;
    case 5: /* SyncAll of the AIVs */
      copy_in(ctx, j, rt_block_idx(ctx) ? 2048 : 1024);
      rt_sync_all(ctx, true);
      vadd1(ctx);
      break;
    case 6: /* a SyncAll one AIV never reaches */
      if (rt_block_idx(ctx) == 0) rt_sync_all(ctx, true);
      vadd1(ctx);
      break;
    case 7: /* the AIC writes X through MTE3, the AIV reads it: with the flag on MTE3 */
    case 8: /* ... without any flag */
    case 9: /* ... with the flag set on MTE2, which does not wait for MTE3's write */
      if (aic) {
        rt_ltensor t = rt_buf_alloc(ctx, RT_POS_VECOUT, 1024, ISA_INT8, "out");
        rt_copy_local_to_gm(ctx, j->g, t, rt_copy_params(1024));
        if (j->scenario != 8) rt_cross_set_flag(ctx, 2, j->scenario == 7 ? ISA_PIPE_MTE3 : ISA_PIPE_MTE2, 1);
      } else {
        if (j->scenario != 8) rt_cross_wait_flag(ctx, 1);
        copy_in(ctx, j, 1024);
      }
      break;
    case 10: /* AIV 0.1 learns of the AIC's write only through AIV 0.0 (mode 2, then mode 1) */
      if (aic) {
        rt_ltensor t = rt_buf_alloc(ctx, RT_POS_VECOUT, 1024, ISA_INT8, "out");
        rt_copy_local_to_gm(ctx, j->g, t, rt_copy_params(1024));
        rt_cross_set_flag(ctx, 2, ISA_PIPE_MTE3, 1);
      } else {
        if (sub == 0) rt_cross_wait_flag(ctx, 1);
        rt_cross_set_flag(ctx, 1, ISA_PIPE_MTE2, 2);
        rt_cross_wait_flag(ctx, 2);
        if (sub == 1) copy_in(ctx, j, 1024);
      }
      break;
    case 11: /* AIV 0 writes, AIV 1 reads after a SyncAll (12: without) */
    case 12:
      if (rt_block_idx(ctx) == 0) {
        rt_ltensor t = rt_buf_alloc(ctx, RT_POS_VECOUT, 1024, ISA_INT8, "out");
        rt_copy_local_to_gm(ctx, j->g, t, rt_copy_params(1024));
      }
      if (j->scenario == 11) rt_sync_all(ctx, true);
      if (rt_block_idx(ctx) == 1) copy_in(ctx, j, 1024);
      break;
    case 13: /* block 0 writes (sets = 0) or block 1 reads (sets = 1) */
      if (rt_block_idx(ctx) == 0 && j->sets == 0) {
        rt_ltensor t = rt_buf_alloc(ctx, RT_POS_VECOUT, 1024, ISA_INT8, "out");
        rt_copy_local_to_gm(ctx, j->g, t, rt_copy_params(1024));
      }
      if (rt_block_idx(ctx) == 1 && j->sets == 1) copy_in(ctx, j, 1024);
      break;
    default: break;
  }
}

typedef struct run {
  rt_device *dev;
  cs_status st;
  cs_err err;
  const sim_result *r;
} run;

static run launch_with(int scenario, rt_launch_mode mode, unsigned blocks, unsigned sets, const sim_config *cfg) {
  sim_config c = *cfg;
  run r;
  memset(&r, 0, sizeof r);
  assert_int_equal(rt_device_create(&c, NULL, &r.dev, &r.err), CS_OK);
  job j = {scenario, {0}, sets};
  assert_int_equal(rt_gm_alloc(r.dev, "g", ISA_INT8, 4096, &j.g, &r.err), CS_OK);
  assert_int_equal(rt_launch_kind(r.dev, mode, blocks, kernel, &j, &r.err), CS_OK);
  r.st = rt_device_run(r.dev, NULL, &r.err);
  r.r = rt_device_result(r.dev);
  return r;
}

static sim_config round_config(void) {
  sim_config c;
  sb_round_config(&c, 2);
  c.aiv_kernel_init_cycles = 0;
  c.aiv_mte2_outstanding_bytes = c.mte2_outstanding_bytes;
  c.aiv_cross_flag_cycles = LAT;
  c.gm_hbm_gb_per_s = 100000; /* cores copying at once do not share HBM: each streams at its port */
  return c;
}

static run launch(int scenario, rt_launch_mode mode, unsigned blocks, unsigned sets) {
  sim_config c = round_config();
  return launch_with(scenario, mode, blocks, sets, &c);
}

/* Core indices on 2 AI cores of 1 AIC + 2 AIVs: AIC 0, 1; AIV g.v = 2 + 2g + v. */
static uint64_t finish(const run *r, unsigned core) { return r->r->stats.core[core].finish_cycles; }

/* The AIC's copy completes at 1 + 16 + 110 = 127, its set fires then and reaches both AIVs at
 * 177; each AIV's wait (held in dispatch since cycle 1) passes at 177, its vadd is dispatched at
 * 178 and completes at 178 + 1 + 4 = 183. */
static void test_xcore_mode2_aic_to_its_aivs(void **state) {
  (void)state;
  run r = launch(0, RT_LAUNCH_MIX_1_2, 1, 0);
  assert_int_equal(r.st, CS_OK);
  assert_int_equal(finish(&r, 0), 127);
  assert_int_equal(finish(&r, 2), 183);
  assert_int_equal(finish(&r, 3), 183);
  assert_int_equal(r.r->total_cycles, 183);
  rt_device_destroy(r.dev);
}

/* The AIVs' copies complete at 127 (1024 B) and 143 (2048 B: 1 + 32 + 110); the AIC's counter
 * is raised once both have set, at 143 + 50 = 193: its vadd completes at 194 + 5 = 199. With
 * MIX 1:1 only AIV 0.0 runs (it copies 1024 B): 127 + 50 + 1 + 5 = 183. */
static void test_xcore_mode2_aivs_to_their_aic(void **state) {
  (void)state;
  run r = launch(1, RT_LAUNCH_MIX_1_2, 1, 0);
  assert_int_equal(r.st, CS_OK);
  assert_int_equal(finish(&r, 0), 199);
  rt_device_destroy(r.dev);
  r = launch(1, RT_LAUNCH_MIX_1_1, 1, 0);
  assert_int_equal(r.st, CS_OK);
  assert_int_equal(finish(&r, 0), 183);
  rt_device_destroy(r.dev);
}

/* Mode 1: AIV 0.0 (1024 B, set at 127) waits until AIV 0.1 (2048 B) has set too, at 143: both
 * are released at 193 and finish at 199. Mode 0 among the two AICs alike: block 0 copies
 * 1024 B, block 1 2048 B; both finish at 199. (Blocks of AI core 1 are laid out the same.) */
static void test_xcore_modes_0_and_1_wait_for_every_setter(void **state) {
  (void)state;
  run r = launch(2, RT_LAUNCH_MIX_1_2, 2, 0);
  assert_int_equal(r.st, CS_OK);
  for (unsigned c = 0; c < 6; c++) assert_int_equal(finish(&r, c), 199);
  rt_device_destroy(r.dev);
}

/* 15 sets wait in the AIV's counter; the 16th stays in the AIC's V queue: a deadlock whose root
 * is that set. */
static void test_xcore_sixteenth_pending_set_stalls(void **state) {
  (void)state;
  run r = launch(3, RT_LAUNCH_MIX_1_1, 1, 15);
  assert_int_equal(r.st, CS_OK);
  rt_device_destroy(r.dev);
  r = launch(3, RT_LAUNCH_MIX_1_1, 1, 16);
  assert_int_equal(r.st, CS_EDEADLOCK);
  assert_true(r.r->deadlocked);
  assert_int_equal(r.r->deadlock.core, 0);
  assert_int_equal(r.r->deadlock.index, 15);
  assert_non_null(strstr(r.err.msg, " core 0: the root cause: V is held at instruction 15 (cross_set_flag #3): a counter "
                                    "it raises already holds 15 sets, the most Ascend allows, and no wait is left to "
                                    "take one."));
  rt_device_destroy(r.dev);
}

/* The AIC waits for its AIV's flag 1, the AIV for the AIC's flag 2, each before setting its own:
 * both cores are named, each with the other's set it waits for. */
static void test_xcore_deadlock_across_cores(void **state) {
  (void)state;
  run r = launch(4, RT_LAUNCH_MIX_1_1, 1, 0);
  assert_int_equal(r.st, CS_EDEADLOCK);
  assert_string_equal(r.err.msg,
                      "deadlock at cycle 1: core 0: blocked: dispatch waits at instruction 0 (cross_wait_flag #1, "
                      "counter 0) for a cross_set_flag of AIV 0.0, instruction 1, not yet dispatched (dispatch is "
                      "held at instruction 0). AIV 0.0: blocked: dispatch waits at instruction 0 (cross_wait_flag #2, "
                      "counter 0) for a cross_set_flag of core 0, instruction 1, not yet dispatched (dispatch is held "
                      "at instruction 0).");
  rt_device_destroy(r.dev);
}

/* SyncAll<true> of two AIVs: AIV 0 drains at 127, AIV 1 at 143; released at 193, each vadd
 * completes at 199. One AIV that never reaches it: a deadlock naming it. */
static void test_xcore_sync_all(void **state) {
  (void)state;
  run r = launch(5, RT_LAUNCH_AIV, 2, 0);
  assert_int_equal(r.st, CS_OK);
  assert_int_equal(finish(&r, 2), 199);
  assert_int_equal(finish(&r, 3), 199);
  rt_device_destroy(r.dev);
  r = launch(6, RT_LAUNCH_AIV, 2, 0);
  assert_int_equal(r.st, CS_EDEADLOCK);
  assert_non_null(strstr(r.err.msg, "AIV 0.0: blocked: dispatch is held at instruction 0 (sync_all) for AIV 0.1, which "
                                    "has not reached it."));
  rt_device_destroy(r.dev);
}

/* The AIC's MTE3 write and the AIV's MTE2 read of the same GM bytes: ordered by a flag set on
 * MTE3; a race without the flag, or with the flag set on MTE2 (it does not wait for MTE3), under
 * any timing: a flag that takes 0 or 5000 cycles, a slow or a fast GM. */
static void test_xcore_race_through_gm(void **state) {
  (void)state;
  run r = launch(7, RT_LAUNCH_MIX_1_1, 1, 0);
  assert_int_equal(r.st, CS_OK);
  assert_int_equal(r.r->hazard_count, 0);
  rt_device_destroy(r.dev);
  for (int cfg = 0; cfg < 4; cfg++)
    for (int scenario = 8; scenario <= 9; scenario++) {
      sim_config c = round_config();
      c.aiv_cross_flag_cycles = cfg & 1 ? 5000 : 0;
      if (cfg & 2) c.gm_hbm_gb_per_s = 1, c.mte3_gm_bytes_per_cycle = 1;
      r = launch_with(scenario, RT_LAUNCH_MIX_1_1, 1, 0, &c);
      assert_int_equal(r.st, CS_EHAZARD);
      assert_int_equal(r.r->hazard_count, 1);
      const sim_hazard *h = &r.r->hazards[0];
      assert_true(h->cross_core);
      assert_int_equal(h->kind, SIM_HAZARD_RAW);
      assert_int_equal(h->core, 2); /* AIV 0.0 */
      assert_int_equal(h->earlier_core, 0);
      char msg[512];
      sim_hazard_describe(h, msg, sizeof msg);
      char want[512];
      snprintf(want, sizeof want,
               "RAW hazard across cores: AIV 0.0 instruction %d (copy_gm_ub, MTE2) reads bytes that core 0 instruction "
               "0 (copy_ub_gm, MTE3) writes, and no cross-core flag orders them: GM [0x%" PRIx64 ", 0x%" PRIx64
               ") (missing cross_set_flag/cross_wait_flag or sync_all)",
               scenario == 8 ? 0 : 1, h->lo, h->lo + 1024);
      assert_memory_equal(msg, want, strlen(want));
      rt_device_destroy(r.dev);
    }
}

/* Knowledge passes through cores: AIV 0.1 reads after a mode-1 round whose other setter, AIV 0.0,
 * waited for the AIC's flag. A SyncAll orders AIV 0's write before AIV 1's read; without it they
 * race. */
static void test_xcore_order_through_rounds_and_sync_all(void **state) {
  (void)state;
  run r = launch(10, RT_LAUNCH_MIX_1_2, 1, 0);
  assert_int_equal(r.st, CS_OK);
  assert_int_equal(r.r->hazard_count, 0);
  rt_device_destroy(r.dev);
  r = launch(11, RT_LAUNCH_AIV, 2, 0);
  assert_int_equal(r.st, CS_OK);
  assert_int_equal(r.r->hazard_count, 0);
  rt_device_destroy(r.dev);
  r = launch(12, RT_LAUNCH_AIV, 2, 0);
  assert_int_equal(r.st, CS_EHAZARD);
  assert_int_equal(r.r->hazard_count, 1);
  rt_device_destroy(r.dev);
}

/* Two launches: the first's write on AIV 0 and the second's read on AIV 1 are ordered by the
 * host; in one launch (scenario 12) they race. */
static void test_xcore_launches_are_ordered(void **state) {
  (void)state;
  sim_config c = round_config();
  rt_device *dev;
  cs_err err;
  assert_int_equal(rt_device_create(&c, NULL, &dev, &err), CS_OK);
  job w = {11, {0}, 0}, rd = {11, {0}, 0};
  assert_int_equal(rt_gm_alloc(dev, "g", ISA_INT8, 4096, &w.g, &err), CS_OK);
  rd.g = w.g;
  w.scenario = rd.scenario = 13;
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_AIV, 1, kernel, &w, &err), CS_OK); /* block 0: writes */
  rd.sets = 1;
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_AIV, 2, kernel, &rd, &err), CS_OK); /* block 1: reads */
  assert_int_equal(rt_device_run(dev, NULL, &err), CS_OK);
  assert_int_equal(rt_device_result(dev)->hazard_count, 0);
  rt_device_destroy(dev);
}

/* The runtime refuses what Ascend's modes do not mean. */
static void misuse(rt_ctx *ctx, void *arg) {
  (void)arg;
  rt_cross_set_flag(ctx, *(const unsigned *)arg, ISA_PIPE_MTE2, 0);
}

static void test_xcore_runtime_refuses_modes_out_of_place(void **state) {
  (void)state;
  sim_config c;
  sim_config_defaults(&c);
  c.chip_aic_cores = 1;
  rt_device *dev;
  cs_err err;
  assert_int_equal(rt_device_create(&c, NULL, &dev, &err), CS_OK);
  unsigned mode = 1;
  assert_int_equal(rt_launch(dev, 1, misuse, &mode, &err), CS_EFAULT);
  assert_string_equal(err.msg, "core 0, before its first instruction: cross_set_flag mode 1 (the AIVs of an AI core) on "
                               "an AIC [runtime]");
  rt_device_destroy(dev);
  assert_int_equal(rt_device_create(&c, NULL, &dev, &err), CS_OK);
  mode = 2;
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_AIV, 1, misuse, &mode, &err), CS_EFAULT);
  assert_string_equal(err.msg, "core 1, before its first instruction: cross_set_flag mode 2 (AIC <-> AIV) outside a MIX "
                               "launch [runtime]");
  rt_device_destroy(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_xcore_mode2_aic_to_its_aivs),
      cmocka_unit_test(test_xcore_mode2_aivs_to_their_aic),
      cmocka_unit_test(test_xcore_modes_0_and_1_wait_for_every_setter),
      cmocka_unit_test(test_xcore_sixteenth_pending_set_stalls),
      cmocka_unit_test(test_xcore_deadlock_across_cores),
      cmocka_unit_test(test_xcore_sync_all),
      cmocka_unit_test(test_xcore_race_through_gm),
      cmocka_unit_test(test_xcore_order_through_rounds_and_sync_all),
      cmocka_unit_test(test_xcore_launches_are_ordered),
      cmocka_unit_test(test_xcore_runtime_refuses_modes_out_of_place),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
