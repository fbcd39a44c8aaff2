/* Tests of the timing engine: each rule of docs/DESIGN.md §6 / docs/TIMING.md at its boundary, with
 * cycle counts derived by hand in the comments from sb_round_config (tests/support/sim_build.h,
 * with 2 cores). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "support/insn_build.h"
#include "support/sim_build.h"

typedef struct fixture {
  sim *s;
  uint64_t a, b; /* two 64 KiB GM tensors */
  sim_result res;
  cs_err err;
} fixture;

static void setup_with(fixture *f, const sim_config *c) {
  memset(f, 0, sizeof *f);
  assert_int_equal(sim_create(c, NULL, &f->s, &f->err), CS_OK);
  assert_int_equal(sim_gm_alloc(f->s, "a", 65536, &f->a, &f->err), CS_OK);
  assert_int_equal(sim_gm_alloc(f->s, "b", 65536, &f->b, &f->err), CS_OK);
}

static void setup(fixture *f) {
  sim_config c;
  sb_round_config(&c, 2);
  setup_with(f, &c);
}

static void teardown(fixture *f) {
  sim_result_free(&f->res);
  sim_destroy(f->s);
}

static void issue(fixture *f, unsigned core, isa_insn in) { sb_issue(f->s, core, in); }

static cs_status run(fixture *f, bool allow_hazards) {
  sim_result_free(&f->res);
  sim_run_options o = {.allow_hazards = allow_hazards, .overlap_check = true};
  return sim_run(f->s, &o, &f->res, &f->err);
}

/* One GM read: enters its queue at dispatch (1), streams 1000 bytes at 64 B/cycle = ceil(15.6) =
 * 16 cycles, then MTE2 latency 10 + HBM latency 100: 1 + 16 + 110 = 127. */
static void test_sim_engine_one_copy_is_latency_plus_bytes_over_bandwidth(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 1000));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.total_cycles, 127);
  assert_int_equal(f.res.stats.core[0].pipe_busy_cycles[ISA_PIPE_MTE2], 16);
  assert_int_equal(f.res.stats.gm_read_bytes, 1000);
  assert_int_equal(f.res.stats.hbm_read_bytes, 1000);
  assert_int_equal(f.res.stats.core[0].path_bytes[ISA_PATH_GM_TO_UB], 1000);
  teardown(&f);
}

/* The boundary of the ceil: 1024 bytes take exactly 16 cycles, 1025 take 17. */
static void test_sim_engine_copy_rounds_cycles_up_at_the_boundary(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 1024));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.total_cycles, 1 + 16 + 110);
  teardown(&f);
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 1025));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.total_cycles, 1 + 17 + 110);
  teardown(&f);
}

/* An on-chip copy: L1 -> BT of 64 bytes at 32 B/cycle = 2 cycles, + MTE1 latency 5: 1 + 2 + 5. */
static void test_sim_engine_onchip_copy_uses_the_link_rate(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 64));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.total_cycles, 8);
  assert_int_equal(f.res.stats.core[0].pipe_busy_cycles[ISA_PIPE_MTE1], 2);
  teardown(&f);
}

/* MTE2 copy GM->L1 (1024 B) then set_flag MTE2->MTE1, wait_flag, copy L1->BT (64 B):
 *   copy:  enters 1, streams 16 -> busy to 17, completes 17 + 10 + 100 = 127
 *   set:   fires when MTE2 has nothing running: 127
 *   wait:  releases MTE1 at 127
 *   copy:  starts 127, 2 cycles + 5 latency: 134. */
static void test_sim_engine_flag_joins_two_pipes(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_GM, f.a, 1024));
  issue(&f, 0, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  issue(&f, 0, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  issue(&f, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 64));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.total_cycles, 134);
  assert_int_equal(f.res.hazard_count, 0);
  teardown(&f);
}

/* Without the flag the two independent copies overlap: the L1 -> BT copy (other bytes) enters at
 * 2 and ends at 2 + 2 + 5 = 9, long before the GM copy's 127. */
static void test_sim_engine_independent_pipes_overlap(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_GM, f.a, 1024));
  issue(&f, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 4096, 64));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.total_cycles, 127);
  assert_int_equal(f.res.stats.core[0].finish_cycles, 127);
  assert_int_equal(f.res.hazard_count, 0);
  teardown(&f);
}

/* Five L1 -> BT copies of 256 B (8 cycles each, latency 5) then one GM -> UB copy of 64 B, with
 * queues of depth 2 and dispatch 1:
 *   t=1 c0 enters and starts (MTE1 free at 9); t=2 c1 queued; t=3 c2 queued (queue full);
 *   t=4 c3 cannot enter: dispatch stalls; t=9 c1 starts, c3 enters; t=10 c4 stalls;
 *   t=17 c2 starts, c4 enters; t=18 the GM copy enters MTE2 and starts:
 *   18 + 1 + 10 + 100 = 129. Stall cycles: (9 - 4) + (17 - 10) = 12.
 * With queues of 16 the GM copy enters at 6 and completes at 6 + 1 + 110 = 117. */
static void test_sim_engine_full_queue_stalls_dispatch(void **state) {
  (void)state;
  sim_config c;
  for (int depth = 2; depth <= 16; depth += 14) {
    sb_round_config(&c, 2);
    c.mte2_queue_depth = c.mte1_queue_depth = c.cube_queue_depth = (uint64_t)depth;
    c.fixpipe_queue_depth = c.mte3_queue_depth = c.vector_queue_depth = (uint64_t)depth;
    fixture f;
    setup_with(&f, &c);
    for (int i = 0; i < 5; i++) issue(&f, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 256));
    issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 64));
    assert_int_equal(run(&f, false), CS_OK);
    assert_int_equal(f.res.total_cycles, depth == 2 ? 129 : 117);
    assert_int_equal(f.res.stats.core[0].stall_cycles, depth == 2 ? 12 : 0);
    /* MTE1 stays busy back to back: 5 x 8 cycles */
    assert_int_equal(f.res.stats.core[0].pipe_busy_cycles[ISA_PIPE_MTE1], 40);
    teardown(&f);
  }
}

/* Two cores each read 2048 B at once with HBM at 64 B/cycle (caps 64): alone a core streams at
 * 64 B/cycle (32 cycles, done at 1 + 32 + 110 = 143); together each gets half: 64 cycles, both
 * done at 1 + 64 + 110 = 175. */
static void test_sim_engine_two_cores_share_gm_bandwidth(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 2);
  c.gm_hbm_gb_per_s = 64;
  for (unsigned cores = 1; cores <= 2; cores++) {
    fixture f;
    setup_with(&f, &c);
    for (unsigned k = 0; k < cores; k++)
      issue(&f, k, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, k ? f.b : f.a, 2048));
    assert_int_equal(run(&f, false), CS_OK);
    assert_int_equal(f.res.total_cycles, cores == 1 ? 143 : 175);
    for (unsigned k = 0; k < cores; k++)
      assert_int_equal(f.res.stats.core[k].pipe_busy_cycles[ISA_PIPE_MTE2], cores == 1 ? 32 : 64);
    assert_int_equal(f.res.stats.gm_busy_cycles, cores == 1 ? 32 : 64);
    teardown(&f);
  }
}

/* The fair share ends when one flow does: core 0 reads 1024 B, core 1 reads 3072 B, HBM 64:
 * both at 32 B/cycle until core 0 has its 1024 B (cycle 1 + 32 = 33), then core 1 alone at 64:
 * its remaining 2048 B take 32 more cycles: stream ends at 65, done at 175. */
static void test_sim_engine_rates_are_recomputed_when_a_transfer_ends(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 2);
  c.gm_hbm_gb_per_s = 64;
  fixture f;
  setup_with(&f, &c);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 1024));
  issue(&f, 1, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.b, 3072));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.stats.core[0].finish_cycles, 33 + 110);
  assert_int_equal(f.res.stats.core[1].finish_cycles, 65 + 110);
  teardown(&f);
}

/* L2 on (256 B/cycle, hit 20, miss 100), HBM 64, MTE2 cap 128. Reading 1024 B twice with a
 * pipe_barrier(MTE2) between: the first misses (rate min(128, 64) = 64: 16 cycles, done at
 * 1 + 16 + 10 + 100 = 127); the second hits (rate min(128, 256) = 128: 8 cycles) and starts when
 * the barrier sees MTE2 drained at 127: 127 + 8 + 10 + 20 = 165. */
static void test_sim_engine_second_read_hits_l2(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 2);
  c.l2_enabled = true;
  c.gm_hbm_gb_per_s = 64;
  c.mte2_gm_bytes_per_cycle = 128;
  fixture f;
  setup_with(&f, &c);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 1024));
  issue(&f, 0, ib_barrier(ISA_PIPE_MTE2));
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 1024, ISA_MEM_GM, f.a, 1024));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.total_cycles, 165);
  assert_int_equal(f.res.stats.l2_miss_bytes, 1024);
  assert_int_equal(f.res.stats.l2_hit_bytes, 1024);
  assert_int_equal(f.res.stats.hbm_read_bytes, 1024);
  teardown(&f);
}

/* pipe_barrier(ALL) holds dispatch until every pipe drains: GM -> L1 copy done at 127; the
 * barrier passes at 127 and takes a dispatch slot; the L1 -> BT copy enters at 128 and ends at
 * 128 + 2 + 5 = 135. */
static void test_sim_engine_barrier_all_drains_every_pipe(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_GM, f.a, 1024));
  issue(&f, 0, ib_barrier(ISA_PIPE_ALL));
  issue(&f, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 64));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.total_cycles, 135);
  assert_int_equal(f.res.hazard_count, 0);
  teardown(&f);
}

/* The missing wait_flag: MTE1 reads L1 bytes MTE2 is still writing -> RAW, reported with both
 * instructions; the run fails unless hazards are allowed. */
static void test_sim_engine_missing_flag_is_a_raw_hazard(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_GM, f.a, 1024));
  issue(&f, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 512, 64));
  assert_int_equal(run(&f, false), CS_EHAZARD);
  assert_int_equal(f.res.hazard_count, 1);
  const sim_hazard *h = &f.res.hazards[0];
  assert_int_equal(h->kind, SIM_HAZARD_RAW);
  assert_int_equal(h->earlier, 0);
  assert_int_equal(h->later, 1);
  assert_int_equal(h->mem, ISA_MEM_L1);
  assert_int_equal(h->lo, 512);
  assert_int_equal(h->hi, 576);
  assert_int_equal(h->time, 2);
  assert_int_equal(h->earlier_done, 127);
  char msg[512];
  sim_hazard_describe(h, msg, sizeof msg);
  static const char want[] =
      "RAW hazard on core 0: instruction 1 (copy_l1_bt, MTE1) reads bytes that instruction 0 "
      "(copy_gm_l1, MTE2) writes, and no flag or barrier orders them: L1 [0x200, 0x240) (missing "
      "set_flag/wait_flag or pipe_barrier); in this run the later started at cycle 2, the earlier "
      "completed at cycle 127";
  assert_string_equal(msg, want);
  char err[600];
  snprintf(err, sizeof err, "1 data hazard; first: %s", want);
  assert_string_equal(f.err.msg, err);
  /* the program lines, when the stream comes from a program */
  sim_hazard_describe_lines(h, 4, 3, msg, sizeof msg);
  assert_string_equal(msg,
                      "RAW hazard on core 0: instruction 1 (copy_l1_bt, MTE1, line 4) reads bytes that "
                      "instruction 0 (copy_gm_l1, MTE2, line 3) writes, and no flag or barrier orders "
                      "them: L1 [0x200, 0x240) (missing set_flag/wait_flag or pipe_barrier); in this run "
                      "the later started at cycle 2, the earlier completed at cycle 127");
  assert_int_equal(f.res.timing_hazard_count, 1); /* the replay's own check saw the overlap too */
  /* allowed: same timing, the hazard is still counted */
  assert_int_equal(run(&f, true), CS_OK);
  assert_int_equal(f.res.hazard_count, 1);
  assert_int_equal(f.res.stats.hazards, 1);
  teardown(&f);
}

/* A buffer reused before its reader finished: MTE1 reads L1 [0, 1024) into BT for 32 cycles while
 * MTE2 overwrites it -> WAR. With the flag MTE1 -> MTE2 between them, no hazard. */
static void test_sim_engine_reuse_before_read_is_a_war_hazard(void **state) {
  (void)state;
  for (int with_flag = 0; with_flag <= 1; with_flag++) {
    fixture f;
    sim_config c;
    sb_round_config(&c, 2);
    c.buffers_bt_bytes = 1024;
    setup_with(&f, &c);
    issue(&f, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 1024));
    if (with_flag) {
      issue(&f, 0, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE1, ISA_PIPE_MTE2, 3));
      issue(&f, 0, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE1, ISA_PIPE_MTE2, 3));
    }
    issue(&f, 0, ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 256, ISA_MEM_GM, f.a, 256));
    assert_int_equal(run(&f, true), CS_OK);
    if (with_flag) {
      assert_int_equal(f.res.hazard_count, 0);
      /* BT copy: 1 + 32 + 5 = 38; then the GM copy: 38 + 4 + 110 = 152 */
      assert_int_equal(f.res.total_cycles, 152);
    } else {
      assert_int_equal(f.res.hazard_count, 1);
      assert_int_equal(f.res.hazards[0].kind, SIM_HAZARD_WAR);
      assert_int_equal(f.res.hazards[0].lo, 256);
      assert_int_equal(f.res.hazards[0].hi, 512);
    }
    teardown(&f);
  }
}

/* Hazards through GM and UB between MTE2 and MTE3. */
static void test_sim_engine_gm_and_ub_hazards_across_mte_pipes(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 512));
  issue(&f, 0, ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, f.b, ISA_MEM_UB, 4096, 512));
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 8192, ISA_MEM_GM, f.b + 128, 64));
  assert_int_equal(run(&f, true), CS_OK);
  /* the last copy reads GM b[128, 192) that MTE3 is still writing: RAW on GM */
  assert_int_equal(f.res.hazard_count, 1);
  assert_int_equal(f.res.hazards[0].kind, SIM_HAZARD_RAW);
  assert_int_equal(f.res.hazards[0].mem, ISA_MEM_GM);
  teardown(&f);
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, f.b, ISA_MEM_UB, 0, 512));
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 512));
  assert_int_equal(run(&f, true), CS_OK);
  /* MTE2 writes UB [0, 512) that MTE3 is still reading: WAR */
  assert_int_equal(f.res.hazard_count, 1);
  assert_int_equal(f.res.hazards[0].kind, SIM_HAZARD_WAR);
  teardown(&f);
}

static isa_insn vadd(uint64_t dst, uint64_t src0, uint64_t src1, uint32_t count) {
  return ib_vbinary_n(ISA_OP_VADD, ISA_FP32, dst, src0, src1, count);
}

/* Within the vector pipe, dependent instructions need pipe_barrier(V) (Ascend C's
 * PipeBarrier<PIPE_V>): the second vadd reads what the first still writes (they overlap: the
 * first occupies V for 1024 B / 256 = 4 cycles, then 4 of latency). With the barrier: none, and
 * the second starts when the first completes: 1 + 4 + 4 = 9, done at 9 + 4 + 4 = 17. */
static void test_sim_engine_vector_pipe_needs_its_own_barrier(void **state) {
  (void)state;
  for (int with_barrier = 0; with_barrier <= 1; with_barrier++) {
    fixture f;
    setup(&f);
    issue(&f, 0, vadd(0, 4096, 8192, 256));
    if (with_barrier) issue(&f, 0, ib_barrier(ISA_PIPE_V));
    issue(&f, 0, vadd(12288, 0, 8192, 256));
    assert_int_equal(run(&f, true), CS_OK);
    if (with_barrier) {
      assert_int_equal(f.res.hazard_count, 0);
      assert_int_equal(f.res.total_cycles, 17);
    } else {
      assert_int_equal(f.res.hazard_count, 1);
      assert_int_equal(f.res.hazards[0].kind, SIM_HAZARD_RAW);
      assert_int_equal(f.res.hazards[0].earlier_pipe, ISA_PIPE_V);
      assert_int_equal(f.res.hazards[0].later_pipe, ISA_PIPE_V);
      assert_int_equal(f.res.hazards[0].lo, 0);
      assert_int_equal(f.res.hazards[0].hi, 1024);
    }
    teardown(&f);
  }
}

/* Two pipes writing the same UB bytes with nothing ordering them: WAW. MTE2 writes UB [0, 512)
 * from GM (done at 1 + 8 + 110); the vector unit writes UB [256, 768) at cycle 2. */
static void test_sim_engine_unordered_writes_are_a_waw_hazard(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 512));
  issue(&f, 0, vadd(256, 4096, 8192, 128));
  assert_int_equal(run(&f, true), CS_OK);
  assert_int_equal(f.res.hazard_count, 1);
  assert_int_equal(f.res.hazards[0].kind, SIM_HAZARD_WAW);
  assert_int_equal(f.res.hazards[0].mem, ISA_MEM_UB);
  assert_int_equal(f.res.hazards[0].lo, 256);
  assert_int_equal(f.res.hazards[0].hi, 512);
  teardown(&f);
}

/* A wait that no set satisfies is a deadlock naming the pipes and the event. */
static void test_sim_engine_wait_without_set_deadlocks(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_GM, f.a, 64));
  issue(&f, 0, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 5));
  issue(&f, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 64));
  assert_int_equal(run(&f, false), CS_EDEADLOCK);
  assert_true(f.res.deadlocked);
  assert_int_equal(f.res.deadlock.core, 0);
  assert_int_equal(f.res.deadlock.index, 1);
  assert_int_equal(f.res.deadlock.f.cause, ISA_FAULT_DEADLOCK);
  assert_string_equal(f.res.deadlock.f.msg, "wait_flag MTE2->MTE1 #5 can never pass: no set_flag is left to fire it");
  assert_string_equal(f.err.msg,
                      "deadlock at cycle 112: core 0: the root cause: MTE1 waits at instruction 1 "
                      "(wait_flag MTE2->MTE1 #5) and no set_flag MTE2->MTE1 #5 is left to fire it.");
  teardown(&f);
}

/* A wait_flag on S holds dispatch: nothing after it enters a queue until the flag is set. */
static void test_sim_engine_wait_on_scalar_holds_dispatch(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  /* copy done at 1 + 1 + 110 = 112; set MTE2 -> S fires at 112; the S wait passes at 112 and
   * takes a dispatch slot; the BT copy enters at 113: 113 + 2 + 5 = 120. */
  issue(&f, 0, ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_GM, f.a, 64));
  issue(&f, 0, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_S, 0));
  issue(&f, 0, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_S, 0));
  issue(&f, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 64));
  assert_int_equal(run(&f, false), CS_OK);
  assert_int_equal(f.res.total_cycles, 120);
  assert_int_equal(f.res.hazard_count, 0);
  teardown(&f);
}

/* Two simulators with different configurations in one process give independent results. */
static void test_sim_engine_two_simulators_are_independent(void **state) {
  (void)state;
  sim_config c1, c2;
  sb_round_config(&c1, 2);
  sb_round_config(&c2, 2);
  c2.mte2_gm_bytes_per_cycle = 32;
  c2.mte2_latency_cycles = 0;
  fixture f1, f2;
  setup_with(&f1, &c1);
  setup_with(&f2, &c2);
  issue(&f1, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f1.a, 1024));
  issue(&f2, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f2.a, 1024));
  assert_int_equal(run(&f2, false), CS_OK);
  assert_int_equal(run(&f1, false), CS_OK);
  assert_int_equal(f1.res.total_cycles, 1 + 16 + 10 + 100);
  assert_int_equal(f2.res.total_cycles, 1 + 32 + 0 + 100);
  /* replaying again gives the same answer */
  assert_int_equal(run(&f1, false), CS_OK);
  assert_int_equal(f1.res.total_cycles, 127);
  teardown(&f1);
  teardown(&f2);
}

/* Data really moves at record time: GM -> UB -> GM copies the bytes. */
static void test_sim_engine_record_phase_moves_data(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  uint8_t *a = sim_gm_ptr(f.s, f.a, 256), *b = sim_gm_ptr(f.s, f.b, 256);
  for (int i = 0; i < 256; i++) a[i] = (uint8_t)(i * 7 + 1);
  issue(&f, 1, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 64, ISA_MEM_GM, f.a, 256));
  issue(&f, 1, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0));
  issue(&f, 1, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0));
  issue(&f, 1, ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, f.b, ISA_MEM_UB, 64, 256));
  assert_memory_equal(a, b, 256);
  assert_int_equal(sim_core_stream_len(sim_get_core(f.s, 1)), 4);
  assert_int_equal(sim_core_stream_len(sim_get_core(f.s, 0)), 0);
  assert_int_equal(run(&f, false), CS_OK);
  /* in: 1 + 4 + 110 = 115; out: 115 + 4 + 10 + 100 = 229 (writes pay the HBM latency with L2 off) */
  assert_int_equal(f.res.total_cycles, 229);
  assert_int_equal(f.res.stats.gm_write_bytes, 256);
  teardown(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_engine_one_copy_is_latency_plus_bytes_over_bandwidth),
      cmocka_unit_test(test_sim_engine_copy_rounds_cycles_up_at_the_boundary),
      cmocka_unit_test(test_sim_engine_onchip_copy_uses_the_link_rate),
      cmocka_unit_test(test_sim_engine_flag_joins_two_pipes),
      cmocka_unit_test(test_sim_engine_independent_pipes_overlap),
      cmocka_unit_test(test_sim_engine_full_queue_stalls_dispatch),
      cmocka_unit_test(test_sim_engine_two_cores_share_gm_bandwidth),
      cmocka_unit_test(test_sim_engine_rates_are_recomputed_when_a_transfer_ends),
      cmocka_unit_test(test_sim_engine_second_read_hits_l2),
      cmocka_unit_test(test_sim_engine_barrier_all_drains_every_pipe),
      cmocka_unit_test(test_sim_engine_missing_flag_is_a_raw_hazard),
      cmocka_unit_test(test_sim_engine_reuse_before_read_is_a_war_hazard),
      cmocka_unit_test(test_sim_engine_gm_and_ub_hazards_across_mte_pipes),
      cmocka_unit_test(test_sim_engine_vector_pipe_needs_its_own_barrier),
      cmocka_unit_test(test_sim_engine_unordered_writes_are_a_waw_hazard),
      cmocka_unit_test(test_sim_engine_wait_without_set_deadlocks),
      cmocka_unit_test(test_sim_engine_wait_on_scalar_holds_dispatch),
      cmocka_unit_test(test_sim_engine_two_simulators_are_independent),
      cmocka_unit_test(test_sim_engine_record_phase_moves_data),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
