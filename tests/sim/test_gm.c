/* Tests of sim_gm (docs/TIMING.md, "GM transfers"): the shape of a transfer's GM side, the rate
 * its engine streams it at alone, and the max-min fair sharing of the L2 port and HBM — each
 * against values derived by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "sim/sim_gm.h"
#include "support/sim_build.h"

static isa_range gm(uint64_t base, uint64_t row_bytes, uint64_t stride, uint64_t rows) {
  return (isa_range){ISA_MEM_GM, 0, base, row_bytes, stride, rows};
}

static void assert_near(double got, double want) {
  if (fabs(got - want) > 1e-9 * (fabs(want) + 1)) fail_msg("got %.12g, want %.12g", got, want);
}

/* One run of 1000 B from 0: one burst, touching the 512 B blocks [0, 512) and [512, 1024). */
static void test_sim_gm_shape_one_burst(void **state) {
  (void)state;
  isa_range r = gm(0, 1000, 1000, 1);
  sim_xfer_shape sh;
  sim_xfer_shape_of(&r, 1, &sh);
  assert_int_equal(sh.bytes, 1000);
  assert_int_equal(sh.bursts, 1);
  assert_int_equal(sh.align_bytes, 512);
  assert_int_equal(sh.lo, 0);
  assert_int_equal(sh.hi, 1000);
  assert_int_equal(sim_xfer_granule_bytes(&r, 1, 512), 1024);
  /* from 256: [256, 768) crosses 512, two blocks; a single burst has no pitch: aligned */
  r = gm(256, 512, 512, 1);
  sim_xfer_shape_of(&r, 1, &sh);
  assert_int_equal(sim_xfer_granule_bytes(&r, 1, 512), 1024);
  assert_int_equal(sh.align_bytes, 512);
  /* rows 768 B apart starting at 128: the pitch is 256 B aligned, a start 32 B aligned or more
   * does not matter */
  r = gm(128, 64, 768, 3);
  sim_xfer_shape_of(&r, 1, &sh);
  assert_int_equal(sh.align_bytes, 256);
  /* rows of an fp16 matrix from column 683 (byte 1366): every burst starts inside a 32-byte
   * block, whatever the 16 KiB pitch: 2 B aligned; at column 16 (byte 32) the pitch rules */
  r = gm(1366, 512, 16384, 128);
  sim_xfer_shape_of(&r, 1, &sh);
  assert_int_equal(sh.align_bytes, 2);
  r = gm(32, 512, 16384, 128);
  sim_xfer_shape_of(&r, 1, &sh);
  assert_int_equal(sh.align_bytes, 512);
  r = gm(1366, 4096, 4096, 1); /* one burst: its start does not matter */
  sim_xfer_shape_of(&r, 1, &sh);
  assert_int_equal(sh.align_bytes, 512);
  /* exactly one block */
  r = gm(1024, 512, 512, 1);
  assert_int_equal(sim_xfer_granule_bytes(&r, 1, 512), 512);
}

/* Rows of an ND matrix: 4 rows of 128 B, 1024 B apart: 4 bursts, each in one 256 B block. Rows
 * that follow each other are one burst: 4 x 128 B at a pitch of 128 B. */
static void test_sim_gm_shape_rows(void **state) {
  (void)state;
  isa_range r = gm(0, 128, 1024, 4);
  sim_xfer_shape sh;
  sim_xfer_shape_of(&r, 1, &sh);
  assert_int_equal(sh.bytes, 512);
  assert_int_equal(sh.bursts, 4);
  assert_int_equal(sh.align_bytes, 512);
  assert_int_equal(sh.hi, 3 * 1024 + 128);
  assert_int_equal(sim_xfer_granule_bytes(&r, 1, 256), 1024);
  r = gm(0, 128, 128, 4);
  sim_xfer_shape_of(&r, 1, &sh);
  assert_int_equal(sh.bursts, 1);
  assert_int_equal(sim_xfer_granule_bytes(&r, 1, 256), 512);
}

/* A pitch of 24574 B (an fp16 row of 12287 elements) is only 2 B aligned. Three rows of 512 B:
 * [0, 512) one block; [24574, 25086) from block 47 (24064) to block 48 (24576): two;
 * [49148, 49660) blocks 95 (48640) and 96 (49152): two — five blocks of 512 B. */
static void test_sim_gm_shape_unaligned_pitch(void **state) {
  (void)state;
  isa_range r = gm(0, 512, 24574, 3);
  sim_xfer_shape sh;
  sim_xfer_shape_of(&r, 1, &sh);
  assert_int_equal(sh.bursts, 3);
  assert_int_equal(sh.align_bytes, 2);
  assert_int_equal(sim_xfer_granule_bytes(&r, 1, 512), 5 * 512);
}

/* Past 4096 rows the blocks are extrapolated from the first 4096: rows of 512 B at a pitch of
 * 768 B start alternately 0 and 256 B into a block, one and two blocks: 8192 rows touch 12288
 * exactly. Other memories' ranges are not the GM side. */
static void test_sim_gm_shape_long_patterns_and_other_memories(void **state) {
  (void)state;
  isa_range r[2] = {gm(0, 512, 768, 8192), {ISA_MEM_L1, 1, 0, 4194304, 4194304, 1}};
  sim_xfer_shape sh;
  sim_xfer_shape_of(r, 2, &sh);
  assert_int_equal(sh.bytes, 8192 * 512);
  assert_int_equal(sh.bursts, 8192);
  assert_int_equal(sh.align_bytes, 256);
  assert_int_equal(sim_xfer_granule_bytes(r, 2, 512), 12288 * 512);
}

/* The rate of a transfer alone: 64 KiB in 128 bursts, port 256 B/cycle, 32 KiB in flight,
 * latency 200: streaming at min(256, 32768 / 200 = 163.84) B/cycle, the time is
 * 128 x 3.35 + 65536 / 163.84 = 428.8 + 400 = 828.8 cycles, the rate 65536 / 828.8. */
static void test_sim_gm_rate_bursts_latency_and_efficiency(void **state) {
  (void)state;
  sim_xfer_engine eng = {256, 32768, 3.35, 0, 0, 0};
  sim_xfer_shape sh = {65536, 128, 512, 0, 65536};
  assert_near(sim_xfer_rate(&eng, &sh, 1.0, 200), 65536 / 828.8);
  /* latency 100: 32768 / 100 = 327.68 > the port: 128 x 3.35 + 65536 / 256 = 684.8 */
  assert_near(sim_xfer_rate(&eng, &sh, 1.0, 100), 65536 / 684.8);
  /* the boundary: latency 128 gives exactly the port's 256 B/cycle */
  assert_near(sim_xfer_rate(&eng, &sh, 1.0, 128), 65536 / 684.8);
  /* half efficiency doubles the time */
  assert_near(sim_xfer_rate(&eng, &sh, 0.5, 200), 65536 / 1657.6);
  /* no bytes: the streaming rate */
  sim_xfer_shape none = {0, 0, 512, 0, 0};
  assert_near(sim_xfer_rate(&eng, &none, 1.0, 200), 163.84);
}

/* The configured engines: MTE2 and MTE3 from their keys; the fixpipe's port is the narrower of
 * elements_per_cycle x the output size and its write port: fp16 64 x 2 = 128, fp32 min(256, 128),
 * int8 64. The pitch efficiencies by alignment. */
static void test_sim_gm_engines_and_pitch_efficiency(void **state) {
  (void)state;
  sim_config c;
  sim_config_defaults(&c);
  c.fixpipe_elements_per_cycle = 64;
  c.fixpipe_gm_bytes_per_cycle = 128;
  c.mte2_gm_bytes_per_cycle = 100;
  c.mte2_outstanding_bytes = 5000;
  c.mte2_burst_cycles = 1.5;
  c.mte2_setup_cycles = 7;
  c.mte2_latency_cycles = 9;
  sim_xfer_engine e;
  sim_xfer_engine_of(&c, ISA_PATH_GM_TO_L1, 1, &e);
  assert_near(e.port_bytes_per_cycle, 100);
  assert_near(e.outstanding_bytes, 5000);
  assert_near(e.burst_cycles, 1.5);
  assert_int_equal(e.setup_cycles, 7);
  assert_int_equal(e.latency_cycles, 9);
  sim_xfer_engine_of(&c, ISA_PATH_GM_TO_UB, 1, &e);
  assert_near(e.port_bytes_per_cycle, 100);
  sim_xfer_engine_of(&c, ISA_PATH_L0C_TO_GM, 2, &e);
  assert_near(e.port_bytes_per_cycle, 128);
  sim_xfer_engine_of(&c, ISA_PATH_L0C_TO_GM, 4, &e);
  assert_near(e.port_bytes_per_cycle, 128);
  sim_xfer_engine_of(&c, ISA_PATH_L0C_TO_GM, 1, &e);
  assert_near(e.port_bytes_per_cycle, 64);
  c.gm_pitch_efficiency_256b = 0.8;
  c.gm_pitch_efficiency_128b = 0.5;
  c.gm_pitch_efficiency_64b = 0.45;
  c.gm_pitch_efficiency_32b = 0.4;
  c.gm_pitch_efficiency_unaligned = 0.3;
  assert_near(sim_xfer_pitch_efficiency(&c, 512), 1.0);
  assert_near(sim_xfer_pitch_efficiency(&c, 256), 0.8);
  assert_near(sim_xfer_pitch_efficiency(&c, 128), 0.5);
  assert_near(sim_xfer_pitch_efficiency(&c, 64), 0.45);
  assert_near(sim_xfer_pitch_efficiency(&c, 32), 0.4);
  assert_near(sim_xfer_pitch_efficiency(&c, 16), 0.3);
  assert_near(sim_xfer_pitch_efficiency(&c, 2), 0.3);
}

/* Max-min fairness. Caps 100 and 10 on an L2 port of 50: the 10 freezes first, the other gets
 * the remaining 40. */
static void test_sim_gm_share_caps_then_port(void **state) {
  (void)state;
  sim_flow_share f[2] = {{100, 0, 0}, {10, 0, 0}};
  assert_true(sim_share_rates(f, 2, true, 50, 1000));
  assert_near(f[0].rate, 40);
  assert_near(f[1].rate, 10);
  /* the L2 port off: each its cap */
  assert_true(sim_share_rates(f, 2, false, 50, 1000));
  assert_near(f[0].rate, 100);
  assert_near(f[1].rate, 10);
}

/* HBM binds the flows that cross it: one missing (1 HBM byte per byte), one hitting, port 100,
 * HBM 30: the miss freezes at 30, the hit takes the other 70 of the port. A flow that moves two
 * HBM bytes per byte (a line fill and a write-back) gets HBM / 2. */
static void test_sim_gm_share_hbm(void **state) {
  (void)state;
  sim_flow_share f[2] = {{INFINITY, 1, 0}, {INFINITY, 0, 0}};
  assert_true(sim_share_rates(f, 2, true, 100, 30));
  assert_near(f[0].rate, 30);
  assert_near(f[1].rate, 70);
  sim_flow_share g = {INFINITY, 2, 0};
  assert_true(sim_share_rates(&g, 1, true, 1000, 100));
  assert_near(g.rate, 50);
  /* 70 flows (beyond the scratch on the stack), each missing: HBM 140 shared, 2 each */
  sim_flow_share many[70];
  for (int i = 0; i < 70; i++) many[i] = (sim_flow_share){INFINITY, 1, 0};
  assert_true(sim_share_rates(many, 70, true, 1e9, 140));
  for (int i = 0; i < 70; i++) assert_near(many[i].rate, 2);
}

static uint64_t next_random(uint64_t *x) { /* xorshift64* */
  *x ^= *x >> 12, *x ^= *x << 25, *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Dull;
}

static double uniform(uint64_t *x, double lo, double hi) {
  return lo + (hi - lo) * (double)(next_random(x) >> 11) / 9007199254740992.0;
}

/* Max-min fairness checked by its definition rather than by filling again: the rates fit every
 * limit, and each flow has a bottleneck: its own cap, or a full resource it crosses on which no
 * flow gets more. Where the caps fit both resources every flow has its cap, bit for bit (the
 * share's shortcut for that case, and the filling, both give exactly the cap). */
static void test_sim_gm_share_is_max_min_fair(void **state) {
  (void)state;
  uint64_t seed = 2026;
  const double w_choices[] = {0, 0.25, 0.5, 1, 2};
  unsigned fitted = 0, bound = 0;
  for (int trial = 0; trial < 4000; trial++) {
    size_t n = 1 + next_random(&seed) % 40;
    sim_flow_share f[40];
    double sum_cap = 0, sum_cap_w = 0;
    for (size_t i = 0; i < n; i++) {
      f[i].cap = uniform(&seed, 1, 200);
      f[i].hbm_per_byte = w_choices[next_random(&seed) % 5];
      f[i].rate = -1;
      sum_cap += f[i].cap;
      sum_cap_w += f[i].cap * f[i].hbm_per_byte;
    }
    /* limits from a third of the caps' sum to twice it: tight and slack, and next to the edge */
    bool l2_on = next_random(&seed) % 4 != 0;
    double l2 = sum_cap * uniform(&seed, 0.3, 2), hbm = (sum_cap_w > 0 ? sum_cap_w : 1) * uniform(&seed, 0.3, 2);
    if (trial % 10 == 0) l2 = sum_cap * (1 + uniform(&seed, -3e-9, 3e-9)); /* at the shortcut's margin */
    assert_true(sim_share_rates(f, n, l2_on, l2, hbm));
    double got_l2 = 0, got_hbm = 0, top_all = 0, top_hbm = 0;
    for (size_t i = 0; i < n; i++) {
      assert_true(f[i].rate >= 0 && f[i].rate <= f[i].cap);
      got_l2 += f[i].rate;
      got_hbm += f[i].rate * f[i].hbm_per_byte;
      if (f[i].rate > top_all) top_all = f[i].rate;
      if (f[i].hbm_per_byte > 0 && f[i].rate > top_hbm) top_hbm = f[i].rate;
    }
    const double tol = 1e-9;
    if (l2_on) assert_true(got_l2 <= l2 * (1 + tol));
    assert_true(got_hbm <= hbm * (1 + tol));
    bool l2_full = l2_on && got_l2 >= l2 * (1 - tol), hbm_full = got_hbm >= hbm * (1 - tol);
    bool all_capped = true;
    for (size_t i = 0; i < n; i++) {
      bool at_cap = f[i].rate >= f[i].cap * (1 - tol);
      bool by_l2 = l2_full && f[i].rate >= top_all * (1 - tol);
      bool by_hbm = hbm_full && f[i].hbm_per_byte > 0 && f[i].rate >= top_hbm * (1 - tol);
      if (!(at_cap || by_l2 || by_hbm))
        fail_msg("trial %d, flow %zu: rate %.17g (cap %.17g) has no bottleneck", trial, i, f[i].rate, f[i].cap);
      all_capped = all_capped && f[i].rate == f[i].cap;
    }
    if ((!l2_on || sum_cap <= l2 * (1 - 1e-6)) && sum_cap_w <= hbm * (1 - 1e-6)) {
      assert_true(all_capped); /* the caps fit: each its cap exactly */
      fitted++;
    } else {
      bound++;
    }
  }
  assert_true(fitted > 500 && bound > 500); /* both kinds of case were met */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_gm_shape_one_burst),
      cmocka_unit_test(test_sim_gm_shape_rows),
      cmocka_unit_test(test_sim_gm_shape_unaligned_pitch),
      cmocka_unit_test(test_sim_gm_shape_long_patterns_and_other_memories),
      cmocka_unit_test(test_sim_gm_rate_bursts_latency_and_efficiency),
      cmocka_unit_test(test_sim_gm_engines_and_pitch_efficiency),
      cmocka_unit_test(test_sim_gm_share_caps_then_port),
      cmocka_unit_test(test_sim_gm_share_hbm),
      cmocka_unit_test(test_sim_gm_share_is_max_min_fair),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
