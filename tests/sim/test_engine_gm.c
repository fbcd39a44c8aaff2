/* Tests of the timing rules docs/TIMING.md adds beyond bytes over bandwidth — whole L2 lines and
 * write-backs on HBM, per-burst and set-up costs, the latency limit of a transfer, pitch
 * efficiency, lines read by several cores at once, the launch, UnitFlag, the cube's restart and
 * L2 bypass — each at its boundary, with cycles derived by hand from sb_round_config
 * (tests/support/sim_build.h: 1000 MHz, dispatch 1 cycle, MTE2/MTE3 64 B/cycle + 10, HBM 128
 * B/cycle, L2 off unless turned on: then 256 B/cycle, hit 20, miss 100; L2 off: every access adds
 * 100) with every added cost neutral except the one under test. */
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

static void teardown(fixture *f) {
  sim_result_free(&f->res);
  sim_destroy(f->s);
}

static cs_status run(fixture *f) {
  sim_result_free(&f->res);
  sim_run_options o = {.allow_hazards = false};
  return sim_run(f->s, &o, &f->res, &f->err);
}

static isa_insn read_ub(uint64_t gm, uint32_t bytes) {
  return ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, gm, bytes);
}

/* A read miss fills its whole line from HBM: 100 B at a (line-aligned) cost HBM 512 B, so HBM
 * (128 B/cycle) carries 5.12 bytes per byte moved: 25 B/cycle, 4 cycles (1 .. 5), done
 * 5 + 10 + 100 = 115. After a barrier the 100 B at a + 200 hit the same line: 64 B/cycle,
 * 2 cycles from 115, done 117 + 10 + 20 = 147; HBM still read 512 B. */
static void test_sim_engine_gm_read_miss_fills_whole_lines(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 1);
  c.l2_enabled = true;
  fixture f;
  setup_with(&f, &c);
  sb_issue(f.s, 0, read_ub(f.a, 100));
  sb_issue(f.s, 0, ib_barrier(ISA_PIPE_MTE2));
  sb_issue(f.s, 0, read_ub(f.a + 200, 100));
  assert_int_equal(run(&f), CS_OK);
  assert_int_equal(f.res.total_cycles, 147);
  assert_int_equal(f.res.stats.hbm_read_bytes, 512);
  assert_int_equal(f.res.stats.l2_miss_bytes, 100);
  assert_int_equal(f.res.stats.l2_hit_bytes, 100);
  assert_int_equal(f.res.stats.core[0].pipe_busy_cycles[ISA_PIPE_MTE2], 4 + 2);
  teardown(&f);
}

/* Write-back: an L2 of two 512 B lines (one set of two ways), HBM 32 B/cycle. Three 512 B writes
 * (MTE3) to three lines: the first two allocate dirty lines (64 B/cycle: 1 .. 9, 9 .. 17), the
 * third evicts the first, written back whole: 512 B to HBM per 512 B moved, so 32 B/cycle,
 * 17 .. 33, done 33 + 10 + 20 (a write is absorbed by the L2) = 63. Two dirty lines remain. */
static void test_sim_engine_gm_dirty_lines_are_written_back(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 1);
  c.l2_enabled = true;
  c.l2_bytes = 1024;
  c.l2_ways = 2;
  c.gm_hbm_gb_per_s = 32;
  fixture f;
  setup_with(&f, &c);
  for (int i = 0; i < 3; i++)
    sb_issue(f.s, 0, ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, f.a + 512u * (unsigned)i, ISA_MEM_UB, 0, 512));
  assert_int_equal(run(&f), CS_OK);
  assert_int_equal(f.res.total_cycles, 63);
  assert_int_equal(f.res.stats.hbm_write_bytes, 512);
  assert_int_equal(f.res.stats.hbm_read_bytes, 0);
  assert_int_equal(f.res.stats.l2_dirty_bytes, 1024);
  assert_int_equal(f.res.stats.gm_write_bytes, 1536);
  teardown(&f);
}

/* The sustained share of HBM: gm.hbm_efficiency 0.5 of 128 B/cycle is 64; two cores reading
 * 1024 B each from HBM (L2 off) share it: 32 B/cycle each, 32 cycles, done 1 + 32 + 110 = 143
 * (with efficiency 1: 64 each, 16 cycles, 127). */
static void test_sim_engine_gm_hbm_efficiency(void **state) {
  (void)state;
  for (int eff = 0; eff < 2; eff++) {
    sim_config c;
    sb_round_config(&c, 2);
    c.gm_hbm_efficiency = eff ? 0.5 : 1.0;
    fixture f;
    setup_with(&f, &c);
    sb_issue(f.s, 0, read_ub(f.a, 1024));
    sb_issue(f.s, 1, read_ub(f.b, 1024));
    assert_int_equal(run(&f), CS_OK);
    assert_int_equal(f.res.total_cycles, eff ? 143 : 127);
    teardown(&f);
  }
}

/* Bursts: four bursts of 1024 B (1024 B apart) at 2 cycles each: the engine streams
 * 4096 / (4 x 2 + 4096 / 64) B/cycle, 72 cycles, done 1 + 72 + 110 = 183 (175 at 0). Set-up: 10
 * cycles before the first byte: 1 + 10 + 64 + 110 = 185, the pipe busy 74 cycles. */
static void test_sim_engine_gm_burst_and_setup_cycles(void **state) {
  (void)state;
  static const struct {
    double burst;
    uint64_t setup, total, busy;
  } cases[] = {{0, 0, 175, 64}, {2, 0, 183, 72}, {0, 10, 185, 74}, {2, 10, 193, 82}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sim_config c;
    sb_round_config(&c, 1);
    c.mte2_burst_cycles = cases[i].burst;
    c.mte2_setup_cycles = cases[i].setup;
    fixture f;
    setup_with(&f, &c);
    sb_issue(f.s, 0, ib_copy_bursts(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 4, 1024, 1024, 0));
    assert_int_equal(run(&f), CS_OK);
    assert_int_equal(f.res.total_cycles, cases[i].total);
    assert_int_equal(f.res.stats.core[0].pipe_busy_cycles[ISA_PIPE_MTE2], cases[i].busy);
    teardown(&f);
  }
}

/* Little's law: with 6400 B in flight and the HBM latency of 100 (L2 off), a read streams at
 * 64 B/cycle, exactly the port (the boundary): 4096 B in 64 cycles, 175. With 3200 B: 32 B/cycle,
 * 128 cycles, 1 + 128 + 110 = 239. */
static void test_sim_engine_gm_bytes_in_flight_limit_the_rate(void **state) {
  (void)state;
  static const struct {
    uint64_t outstanding, total;
  } cases[] = {{6400, 175}, {3200, 239}};
  for (size_t i = 0; i < 2; i++) {
    sim_config c;
    sb_round_config(&c, 1);
    c.mte2_outstanding_bytes = cases[i].outstanding;
    fixture f;
    setup_with(&f, &c);
    sb_issue(f.s, 0, read_ub(f.a, 4096));
    assert_int_equal(run(&f), CS_OK);
    assert_int_equal(f.res.total_cycles, cases[i].total);
    teardown(&f);
  }
}

/* Pitch efficiency: four bursts of 512 B, 768 B apart (256 B aligned), at efficiency 0.5 take
 * twice the 32 cycles: 1 + 64 + 110 = 175; 1024 B apart (512 B aligned): 1 + 32 + 110 = 143. */
static void test_sim_engine_gm_pitch_alignment(void **state) {
  (void)state;
  static const struct {
    uint32_t gap;
    uint64_t total;
  } cases[] = {{256, 175}, {512, 143}};
  for (size_t i = 0; i < 2; i++) {
    sim_config c;
    sb_round_config(&c, 1);
    c.gm_pitch_efficiency_256b = 0.5;
    fixture f;
    setup_with(&f, &c);
    sb_issue(f.s, 0, ib_copy_bursts(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 4, 512, cases[i].gap, 0));
    assert_int_equal(run(&f), CS_OK);
    assert_int_equal(f.res.total_cycles, cases[i].total);
    teardown(&f);
  }
}

/* Two cores reading the same 4096 B at once share l2.same_line_gb_per_s (64 B/cycle here):
 * 32 B/cycle each, 128 cycles, done 1 + 128 + 110 = 239. Reading different tensors they get 64
 * each (HBM 128 shared): 64 cycles, 175. */
static void test_sim_engine_gm_same_lines_are_shared(void **state) {
  (void)state;
  for (int same = 0; same < 2; same++) {
    sim_config c;
    sb_round_config(&c, 2);
    c.l2_same_line_gb_per_s = 64;
    fixture f;
    setup_with(&f, &c);
    sb_issue(f.s, 0, read_ub(f.a, 4096));
    sb_issue(f.s, 1, read_ub(same ? f.a : f.b, 4096));
    assert_int_equal(run(&f), CS_OK);
    assert_int_equal(f.res.total_cycles, same ? 239 : 175);
    assert_int_equal(f.res.stats.core[1].finish_cycles, same ? 239 : 175);
    teardown(&f);
  }
}

/* Sharing binds only what HBM serves. With the L2 on, core 0's read (first in core order) misses
 * and fills the 8 lines; core 1's read of the same bytes, begun in the same cycle, then hits. Core
 * 1 streams the resident lines at its port's 64 B/cycle: 64 cycles (1 .. 65), done 65 + 10 + 20
 * = 95. Core 0 gets its share of the same-line stream for the bytes it misses, 64 / 2 = 32
 * B/cycle while core 1 streams (2048 B by 65), then its port's 64 alone: 32 more cycles, done
 * 97 + 10 + 100 = 207. */
static void test_sim_engine_gm_same_lines_share_only_misses(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 2);
  c.l2_enabled = true;
  c.l2_same_line_gb_per_s = 64;
  c.l2_same_line_request_cycles = 0; /* the L2's requests not shared: next test */
  fixture f;
  setup_with(&f, &c);
  sb_issue(f.s, 0, read_ub(f.a, 4096));
  sb_issue(f.s, 1, read_ub(f.a, 4096));
  assert_int_equal(run(&f), CS_OK);
  assert_int_equal(f.res.stats.core[0].finish_cycles, 207);
  assert_int_equal(f.res.stats.core[1].finish_cycles, 95);
  assert_int_equal(f.res.stats.hbm_read_bytes, 4096);
  assert_int_equal(f.res.stats.l2_hit_bytes, 4096);
  teardown(&f);
}

/* The L2 too serves the readers of the same lines one request after the other
 * (l2.same_line_request_cycles: here 16 cycles a request of at most a 512 B line). The reads of
 * the test above: core 1 hits the lines core 0 fills, its 4096 B read as 512 B requests shared by
 * 2 readers: 512 / (2 x 16) = 16 B/cycle; core 0's misses 64 / 2 = 32 B/cycle. Core 0 is done
 * streaming at 1 + 4096 / 32 = 129, done 129 + 10 + 100 = 239; core 1 has 2048 B by then, the
 * rest alone at its port's 64: 32 cycles, done 161 + 10 + 20 = 191. */
static void test_sim_engine_gm_same_lines_share_l2_requests(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 2);
  c.l2_enabled = true;
  c.l2_same_line_gb_per_s = 64;
  c.l2_same_line_request_cycles = 16;
  fixture f;
  setup_with(&f, &c);
  sb_issue(f.s, 0, read_ub(f.a, 4096));
  sb_issue(f.s, 1, read_ub(f.a, 4096));
  assert_int_equal(run(&f), CS_OK);
  assert_int_equal(f.res.stats.core[0].finish_cycles, 239);
  assert_int_equal(f.res.stats.core[1].finish_cycles, 191);
  teardown(&f);
}

/* The launch: 0.5 us at 1000 MHz = 500 cycles before block 0 starts, block 1 seven cycles later.
 * Each reads 1024 B: core 0 from 501, streaming 16 cycles, done 517 + 110 = 627; core 1 from 508
 * to 524, done 634, the task's time. */
static void test_sim_engine_gm_launch_and_start_skew(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 2);
  c.chip_launch_us = 0.5;
  c.chip_core_start_skew_cycles = 7;
  fixture f;
  setup_with(&f, &c);
  sb_issue(f.s, 0, read_ub(f.a, 1024));
  sb_issue(f.s, 1, read_ub(f.b, 1024));
  assert_int_equal(run(&f), CS_OK);
  assert_int_equal(f.res.stats.core[0].start_cycles, 500);
  assert_int_equal(f.res.stats.core[1].start_cycles, 507);
  assert_int_equal(f.res.stats.core[0].finish_cycles, 627);
  assert_int_equal(f.res.stats.core[1].finish_cycles, 634);
  assert_int_equal(f.res.total_cycles, 634);
  teardown(&f);
}

/* The int8 mmad of the UnitFlag tests: 16 x 16 x 64 (k0 32: 2 fractal steps + head 2 = 4
 * cycles, latency 3), C at L0C:0. */
static isa_insn uf_mmad(uint32_t uf, uint32_t k) {
  isa_insn in = ib_mmad(ISA_INT8, 16, 16, k);
  in.u.mmad.unit_flag = uf;
  return in;
}

/* Its tile out to GM b: 256 int32 = 1024 B at min(64 x 4, the port) B/cycle, HBM 128 (L2 off):
 * 8 cycles, then fixpipe latency 7 + 100. */
static isa_insn uf_fixpipe(const fixture *f, uint32_t uf) {
  isa_insn in = ib_fixpipe_nd(ISA_MEM_GM, f->b, ISA_QUANT_NO_QUANT, ISA_INT32, 16, 16);
  in.u.fixpipe.unit_flag = uf;
  return in;
}

/* With flags: mmad 1 .. 5, done 8; set_flag M->FIX fires at 8, the fixpipe streams 8 .. 16,
 * done 123. With UnitFlag (mmad 3, fixpipe 3, no flags): the fixpipe enters FIX at 2 and begins
 * when the mmad has written its first unit, 1 + ceil(64 / 32) + 3 = 6, streams to 14 (not before
 * the mmad's last unit, 5 + 128 / 64 = 7), done 121. No hazard: the ready bits order them. */
static void test_sim_engine_gm_unit_flag_overlaps_fixpipe_and_mmad(void **state) {
  (void)state;
  for (int uf = 0; uf < 2; uf++) {
    sim_config c;
    sb_round_config(&c, 1);
    fixture f;
    setup_with(&f, &c);
    sb_issue(f.s, 0, uf_mmad(uf ? 3 : 0, 64));
    if (!uf) {
      sb_issue(f.s, 0, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_M, ISA_PIPE_FIX, 0));
      sb_issue(f.s, 0, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_M, ISA_PIPE_FIX, 0));
    }
    sb_issue(f.s, 0, uf_fixpipe(&f, uf ? 3 : 0));
    assert_int_equal(run(&f), CS_OK);
    assert_int_equal(f.res.total_cycles, uf ? 121 : 123);
    assert_int_equal(f.res.hazard_count, 0);
    teardown(&f);
  }
}

/* The fixpipe holds FIX while it waits for its mmad (what msprof's fixpipe time includes under
 * UnitFlag): the mmad waits for a 1024 B copy (done 1 + 16 + 110 = 127, its flag MTE2->M), the
 * fixpipe enters FIX at 5 and begins at 127 + 2 + 3 = 132, streams to 140: FIX busy 5 .. 140 =
 * 135 cycles, done 247. A unit-flag fixpipe without a unit-flag mmad (unit_flag 0) is not ordered
 * after it: a RAW hazard. */
static void test_sim_engine_gm_unit_flag_fixpipe_waits_in_its_pipe(void **state) {
  (void)state;
  for (int mmad_uf = 3; mmad_uf >= 0; mmad_uf -= 3) {
    sim_config c;
    sb_round_config(&c, 1);
    fixture f;
    setup_with(&f, &c);
    sb_issue(f.s, 0, ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_GM, f.a, 1024));
    sb_issue(f.s, 0, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_M, 0));
    sb_issue(f.s, 0, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_M, 0));
    sb_issue(f.s, 0, uf_mmad((uint32_t)mmad_uf, 64));
    sb_issue(f.s, 0, uf_fixpipe(&f, 3));
    if (mmad_uf) {
      assert_int_equal(run(&f), CS_OK);
      assert_int_equal(f.res.total_cycles, 247);
      assert_int_equal(f.res.stats.core[0].pipe_busy_cycles[ISA_PIPE_FIX], 135);
    } else {
      assert_int_equal(run(&f), CS_EHAZARD);
      assert_true(f.res.hazard_count >= 1);
      assert_int_equal(f.res.hazards[0].kind, SIM_HAZARD_RAW);
    }
    teardown(&f);
  }
}

/* L0C reuse under UnitFlag: the next tile's first mmad (unit_flag 2) waits until the fixpipe has
 * read the units it overwrites. The first mmad 1 .. 5, its fixpipe streams 6 .. 14; the second
 * mmad (k = 4095: 128 fractal steps + 2 = 130 cycles) starts at 14, ends 144, done 147 — without
 * the rule it would start at 5 and be done at 138. */
static void test_sim_engine_gm_unit_flag_mmad_waits_for_the_reader(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 1);
  fixture f;
  setup_with(&f, &c);
  sb_issue(f.s, 0, uf_mmad(3, 64));
  sb_issue(f.s, 0, uf_fixpipe(&f, 3));
  sb_issue(f.s, 0, uf_mmad(2, 4095));
  assert_int_equal(run(&f), CS_OK);
  assert_int_equal(f.res.total_cycles, 147);
  assert_int_equal(f.res.hazard_count, 0);
  teardown(&f);
}

/* The cube's restart (50 cycles): the first mmad starts on an idle cube, 1 .. 55; a second one
 * queued behind it starts when its occupancy ends, 55, warm: 55 .. 59, done 62. After
 * pipe_barrier(M) it starts when the first has completed: with cube latency 0 that is 55, still
 * warm (59); with latency 1 it is 56, one cycle after the cube went idle: cold, 56 .. 110, done 111. */
static void test_sim_engine_gm_cube_restart_after_idle(void **state) {
  (void)state;
  static const struct {
    bool barrier;
    uint64_t latency, total;
  } cases[] = {{false, 3, 62}, {true, 0, 59}, {true, 1, 111}};
  for (size_t i = 0; i < 3; i++) {
    sim_config c;
    sb_round_config(&c, 1);
    c.cube_restart_cycles = 50;
    c.cube_latency_cycles = cases[i].latency;
    fixture f;
    setup_with(&f, &c);
    sb_issue(f.s, 0, uf_mmad(0, 64));
    if (cases[i].barrier) sb_issue(f.s, 0, ib_barrier(ISA_PIPE_M));
    sb_issue(f.s, 0, uf_mmad(0, 64));
    assert_int_equal(run(&f), CS_OK);
    assert_int_equal(f.res.total_cycles, cases[i].total);
    teardown(&f);
  }
}

/* l2_bypass: the read goes to HBM for exactly its bytes (100, not a line), waits the miss latency
 * and fills nothing: the same bytes read normally afterwards still miss and fill their line. */
static void test_sim_engine_gm_l2_bypass(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 1);
  c.l2_enabled = true;
  fixture f;
  setup_with(&f, &c);
  isa_insn by = read_ub(f.a, 100);
  by.u.copy.l2_bypass = 1;
  sb_issue(f.s, 0, by);
  sb_issue(f.s, 0, ib_barrier(ISA_PIPE_MTE2));
  sb_issue(f.s, 0, read_ub(f.a, 100));
  assert_int_equal(run(&f), CS_OK);
  assert_int_equal(f.res.stats.hbm_read_bytes, 100 + 512);
  assert_int_equal(f.res.stats.l2_hit_bytes, 0);
  assert_int_equal(f.res.stats.l2_miss_bytes, 100);
  /* 1 .. 3 (100 B at 64 B/cycle), done 3 + 110 = 113; then 113 .. 117 (25 B/cycle), done 227 */
  assert_int_equal(f.res.total_cycles, 227);
  teardown(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_engine_gm_read_miss_fills_whole_lines),
      cmocka_unit_test(test_sim_engine_gm_dirty_lines_are_written_back),
      cmocka_unit_test(test_sim_engine_gm_hbm_efficiency),
      cmocka_unit_test(test_sim_engine_gm_burst_and_setup_cycles),
      cmocka_unit_test(test_sim_engine_gm_bytes_in_flight_limit_the_rate),
      cmocka_unit_test(test_sim_engine_gm_pitch_alignment),
      cmocka_unit_test(test_sim_engine_gm_same_lines_are_shared),
      cmocka_unit_test(test_sim_engine_gm_same_lines_share_only_misses),
      cmocka_unit_test(test_sim_engine_gm_same_lines_share_l2_requests),
      cmocka_unit_test(test_sim_engine_gm_launch_and_start_skew),
      cmocka_unit_test(test_sim_engine_gm_unit_flag_overlaps_fixpipe_and_mmad),
      cmocka_unit_test(test_sim_engine_gm_unit_flag_fixpipe_waits_in_its_pipe),
      cmocka_unit_test(test_sim_engine_gm_unit_flag_mmad_waits_for_the_reader),
      cmocka_unit_test(test_sim_engine_gm_cube_restart_after_idle),
      cmocka_unit_test(test_sim_engine_gm_l2_bypass),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
