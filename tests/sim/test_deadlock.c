/* Deadlock reports (docs/RELIABILITY.md, "Deadlocks"): the wait-for graph of a stuck core gives the
 * root cause (a wait no set_flag is left to fire), any circular wait, and for every other blocked
 * pipe or the dispatcher where the set_flag that would release it sits. Programs on
 * sb_round_config (tests/support/sim_build.h): one dispatch a cycle, so instruction i enters its
 * queue at cycle i + 1; a program with nothing to time deadlocks at the cycle of the last
 * dispatch or completion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/sim.h"
#include "support/insn_build.h"
#include "support/sim_build.h"

typedef struct fixture {
  sim *s;
  sim_result res;
  cs_err err;
} fixture;

static void setup(fixture *f, unsigned cores, uint64_t queue_depth) {
  memset(f, 0, sizeof *f);
  sim_config c;
  sb_round_config(&c, cores);
  c.mte2_queue_depth = c.mte1_queue_depth = c.cube_queue_depth = queue_depth;
  c.fixpipe_queue_depth = c.mte3_queue_depth = c.vector_queue_depth = queue_depth;
  sim_options so = {.timing_only = true};
  assert_int_equal(sim_create(&c, &so, &f->s, &f->err), CS_OK);
}

static void teardown(fixture *f) {
  sim_result_free(&f->res);
  sim_destroy(f->s);
}

static isa_insn set(isa_pipe src, isa_pipe dst, uint32_t id) { return ib_flag(ISA_OP_SET_FLAG, src, dst, id); }
static isa_insn wait(isa_pipe src, isa_pipe dst, uint32_t id) { return ib_flag(ISA_OP_WAIT_FLAG, src, dst, id); }

/* Runs and checks the deadlock: the fault's instruction and message, and the whole report. */
static void expect(fixture *f, unsigned core, uint64_t index, const char *fault, const char *report) {
  sim_run_options o = {.allow_hazards = true};
  assert_int_equal(sim_run(f->s, &o, &f->res, &f->err), CS_EDEADLOCK);
  assert_true(f->res.deadlocked);
  assert_int_equal(f->res.deadlock.core, core);
  assert_int_equal(f->res.deadlock.index, index);
  assert_int_equal(f->res.deadlock.f.cause, ISA_FAULT_DEADLOCK);
  assert_string_equal(f->res.deadlock.f.msg, fault);
  assert_string_equal(f->res.deadlock_msg, report);
  assert_string_equal(f->err.msg, report);
}

/* The cycle of a deadlock: the last thing that happened. Instruction i enters its queue at
 * cycle i + 1 (sb_round_config); a wait or a set has no duration. */

/* A wait with no set_flag anywhere is the root cause; M waits for a set_flag queued in MTE1
 * behind that wait, so it is blocked too, and the report says where its set sits. The last
 * dispatch is instruction 2's, at cycle 3. */
static void test_sim_deadlock_root_cause_and_what_it_blocks(void **state) {
  (void)state;
  fixture f;
  setup(&f, 1, 16);
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 5));
  sb_issue(f.s, 0, set(ISA_PIPE_MTE1, ISA_PIPE_M, 0));
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE1, ISA_PIPE_M, 0));
  expect(&f, 0, 0, "wait_flag MTE2->MTE1 #5 can never pass: no set_flag is left to fire it",
         "deadlock at cycle 3: core 0: the root cause: MTE1 waits at instruction 0 (wait_flag MTE2->MTE1 #5) "
         "and no set_flag MTE2->MTE1 #5 is left to fire it; also blocked: M waits at instruction 2 (wait_flag "
         "MTE1->M #0) for its set_flag, instruction 1, queued in MTE1 behind instruction 0 (wait_flag).");
  teardown(&f);
}

/* The root cause is the wait with no set, even when a blocked wait comes earlier in program
 * order: M's wait (instruction 0) waits for a set queued behind MTE1's wait (instruction 1),
 * which nothing sets. An earlier set of the same event that has already fired does not count. */
static void test_sim_deadlock_root_cause_is_not_the_first_blocked(void **state) {
  (void)state;
  fixture f;
  setup(&f, 1, 16);
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE1, ISA_PIPE_M, 0));
  sb_issue(f.s, 0, set(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 2));
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 2));
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 2));
  sb_issue(f.s, 0, set(ISA_PIPE_MTE1, ISA_PIPE_M, 0));
  expect(&f, 0, 3, "wait_flag MTE2->MTE1 #2 can never pass: no set_flag is left to fire it",
         "deadlock at cycle 5: core 0: the root cause: MTE1 waits at instruction 3 (wait_flag MTE2->MTE1 #2) "
         "and no set_flag MTE2->MTE1 #2 is left to fire it; also blocked: M waits at instruction 0 (wait_flag "
         "MTE1->M #0) for its set_flag, instruction 4, queued in MTE1 behind instruction 3 (wait_flag).");
  teardown(&f);
}

/* Two pipes each wait for a set_flag queued behind the other's wait: a circular wait, reported
 * from its earliest instruction. */
static void test_sim_deadlock_circular_wait(void **state) {
  (void)state;
  fixture f;
  setup(&f, 1, 16);
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE1, ISA_PIPE_MTE2, 0));
  sb_issue(f.s, 0, set(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  sb_issue(f.s, 0, set(ISA_PIPE_MTE1, ISA_PIPE_MTE2, 0));
  expect(&f, 0, 0, "wait_flag MTE1->MTE2 #0 can never pass: its set_flag waits, directly or not, for it",
         "deadlock at cycle 4: core 0: a circular wait: MTE2 waits at instruction 0 (wait_flag MTE1->MTE2 #0) "
         "for its set_flag, instruction 3, queued in MTE1 behind instruction 2 (wait_flag); MTE1 waits at "
         "instruction 2 (wait_flag MTE2->MTE1 #0) for its set_flag, instruction 1, queued in MTE2 behind "
         "instruction 0 (wait_flag).");
  teardown(&f);
}

/* A full queue: the wait holds MTE1's only slot, the copy behind it holds dispatch, and the set
 * is never dispatched — a circular wait through the dispatcher (instruction 1 is refused at
 * cycle 2). */
static void test_sim_deadlock_full_queue_hides_the_set(void **state) {
  (void)state;
  fixture f;
  setup(&f, 1, 1);
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  sb_issue(f.s, 0, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 64));
  sb_issue(f.s, 0, set(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  expect(&f, 0, 0, "wait_flag MTE2->MTE1 #0 can never pass: its set_flag waits, directly or not, for it",
         "deadlock at cycle 2: core 0: a circular wait: MTE1 waits at instruction 0 (wait_flag MTE2->MTE1 #0) "
         "for its set_flag, instruction 2, not yet dispatched (dispatch is held at instruction 1); dispatch is "
         "held at instruction 1 (copy_l1_bt): the MTE1 queue is full (depth 1) behind instruction 0 "
         "(wait_flag).");
  teardown(&f);
}

/* The dispatcher itself waits (a flag to S) for a set_flag after it: it waits for itself. */
static void test_sim_deadlock_dispatch_waits_for_itself(void **state) {
  (void)state;
  fixture f;
  setup(&f, 1, 16);
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE2, ISA_PIPE_S, 1));
  sb_issue(f.s, 0, set(ISA_PIPE_MTE2, ISA_PIPE_S, 1));
  expect(&f, 0, 0, "wait_flag MTE2->S #1 can never pass: its set_flag waits, directly or not, for it",
         "deadlock at cycle 1: core 0: a circular wait: dispatch waits at instruction 0 (wait_flag MTE2->S #1) "
         "for its set_flag, instruction 1, not yet dispatched (dispatch is held at instruction 0).");
  teardown(&f);
}

/* pipe_barrier(ALL) holds dispatch until every pipe drains; MTE1's wait needs a set after it. */
static void test_sim_deadlock_barrier_all_waits_for_a_pipe(void **state) {
  (void)state;
  fixture f;
  setup(&f, 1, 16);
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  sb_issue(f.s, 0, ib_barrier(ISA_PIPE_ALL));
  sb_issue(f.s, 0, set(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  expect(&f, 0, 0, "wait_flag MTE2->MTE1 #0 can never pass: its set_flag waits, directly or not, for it",
         "deadlock at cycle 2: core 0: a circular wait: MTE1 waits at instruction 0 (wait_flag MTE2->MTE1 #0) "
         "for its set_flag, instruction 2, not yet dispatched (dispatch is held at instruction 1); dispatch is "
         "held at instruction 1 (pipe_barrier ALL) until MTE1 drains, whose head is instruction 0 "
         "(wait_flag).");
  teardown(&f);
}

/* UnitFlag: the fixpipe (unit_flag 3) starts and holds FIX until its mmad starts; the mmad is
 * queued in M behind a wait whose set_flag is queued in FIX behind the fixpipe. The report
 * follows the chain through the held pipe. */
static void test_sim_deadlock_through_a_unit_flag_fixpipe(void **state) {
  (void)state;
  fixture f;
  setup(&f, 1, 16);
  uint64_t out;
  assert_int_equal(sim_gm_alloc(f.s, "out", 4096, &out, &f.err), CS_OK);
  isa_insn mmad = ib_mmad(ISA_INT8, 16, 16, 64);
  mmad.u.mmad.unit_flag = 3;
  isa_insn fix = ib_fixpipe_nd(ISA_MEM_GM, out, ISA_QUANT_NO_QUANT, ISA_INT32, 16, 16);
  fix.u.fixpipe.unit_flag = 3;
  sb_issue(f.s, 0, wait(ISA_PIPE_FIX, ISA_PIPE_M, 0));
  sb_issue(f.s, 0, mmad);
  sb_issue(f.s, 0, fix);
  sb_issue(f.s, 0, set(ISA_PIPE_FIX, ISA_PIPE_M, 0));
  expect(&f, 0, 0, "wait_flag FIX->M #0 can never pass: its set_flag waits, directly or not, for it",
         "deadlock at cycle 4: core 0: a circular wait: M waits at instruction 0 (wait_flag FIX->M #0) for its "
         "set_flag, instruction 3, at the head of FIX; FIX is held at instruction 3 (set_flag) by instruction 2 "
         "(fixpipe), holding FIX until its mmad, instruction 1, starts; that mmad is queued in M behind "
         "instruction 0 (wait_flag).");
  teardown(&f);
}

/* Every stuck core has its own graph; the fault is the first core's root cause. Core 1 waits
 * in a circle; core 0's wait has no set at all; core 2 finishes. */
static void test_sim_deadlock_per_core(void **state) {
  (void)state;
  fixture f;
  setup(&f, 3, 16);
  sb_issue(f.s, 0, set(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  sb_issue(f.s, 0, wait(ISA_PIPE_MTE3, ISA_PIPE_V, 7));
  sb_issue(f.s, 1, wait(ISA_PIPE_MTE1, ISA_PIPE_MTE2, 0));
  sb_issue(f.s, 1, set(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  sb_issue(f.s, 1, wait(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  sb_issue(f.s, 1, set(ISA_PIPE_MTE1, ISA_PIPE_MTE2, 0));
  sb_issue(f.s, 2, set(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  sb_issue(f.s, 2, wait(ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  expect(&f, 0, 1, "wait_flag MTE3->V #7 can never pass: no set_flag is left to fire it",
         "deadlock at cycle 4: core 0: the root cause: V waits at instruction 1 (wait_flag MTE3->V #7) and no "
         "set_flag MTE3->V #7 is left to fire it. core 1: a circular wait: MTE2 waits at instruction 0 "
         "(wait_flag MTE1->MTE2 #0) for its set_flag, instruction 3, queued in MTE1 behind instruction 2 "
         "(wait_flag); MTE1 waits at instruction 2 (wait_flag MTE2->MTE1 #0) for its set_flag, instruction 1, "
         "queued in MTE2 behind instruction 0 (wait_flag).");
  assert_true(f.res.stats.core[2].finish_cycles > 0);
  teardown(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_deadlock_root_cause_and_what_it_blocks),
      cmocka_unit_test(test_sim_deadlock_root_cause_is_not_the_first_blocked),
      cmocka_unit_test(test_sim_deadlock_circular_wait),
      cmocka_unit_test(test_sim_deadlock_full_queue_hides_the_set),
      cmocka_unit_test(test_sim_deadlock_dispatch_waits_for_itself),
      cmocka_unit_test(test_sim_deadlock_barrier_all_waits_for_a_pipe),
      cmocka_unit_test(test_sim_deadlock_through_a_unit_flag_fixpipe),
      cmocka_unit_test(test_sim_deadlock_per_core),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
