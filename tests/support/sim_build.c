/* sim_build — simulators for the timing, trace and summary tests (see sim_build.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/insn_build.h"
#include "support/sim_build.h"

void sb_neutral_costs(sim_config *c) {
  c->mte2_outstanding_bytes = c->mte3_outstanding_bytes = c->fixpipe_outstanding_bytes = 1u << 30;
  c->mte2_burst_cycles = c->mte3_burst_cycles = c->fixpipe_burst_cycles = 0;
  c->mte2_outstanding_bursts = c->mte3_outstanding_bursts = c->fixpipe_outstanding_bursts = 0;
  c->mte2_setup_cycles = c->mte3_setup_cycles = c->fixpipe_setup_cycles = c->aiv_mte2_setup_cycles = 0;
  c->mte1_insn_cycles = 0;
  c->vector_insn_cycles = 0;
  c->vector_ub_bank_groups = 0; /* no UB bank conflicts (tests/sim/test_cube_timing.c tests them) */
  c->cube_restart_cycles = 0;
  c->scalar_kernel_init_cycles = 0;
  c->scalar_matmul_step_cycles = c->scalar_matmul_copy_cycles = c->scalar_matmul_tile_cycles = 0;
  c->fixpipe_gm_bytes_per_cycle = 65536;
  c->gm_hbm_efficiency = 1.0;
  c->gm_hbm_burst_bytes = 1;
  c->gm_pitch_efficiency_256b = c->gm_pitch_efficiency_128b = c->gm_pitch_efficiency_64b = 1.0;
  c->gm_pitch_efficiency_32b = c->gm_pitch_efficiency_unaligned = 1.0;
  c->l2_same_line_gb_per_s = 1e6;
  c->l2_same_line_request_cycles = 0;
  c->chip_launch_us = 0;
  c->chip_core_start_skew_cycles = 0;
  /* the GM latencies the hand derivations use, whatever the calibration fits */
  c->l2_hit_latency_cycles = 200;
  c->l2_miss_latency_cycles = 500;
  c->l2_queue_cycles = 0;
}

void sb_round_config(sim_config *c, unsigned cores) {
  sim_config_defaults(c);
  c->chip_aic_cores = cores;
  c->chip_clock_mhz = 1000;
  c->scalar_dispatch_cycles = c->aiv_dispatch_cycles = 1;
  c->mte2_queue_depth = c->mte1_queue_depth = c->cube_queue_depth = 16;
  c->fixpipe_queue_depth = c->mte3_queue_depth = c->vector_queue_depth = 16;
  c->mte2_gm_bytes_per_cycle = 64;
  c->mte2_latency_cycles = 10;
  c->mte3_gm_bytes_per_cycle = 64;
  c->mte3_latency_cycles = 10;
  c->mte1_l0a_bytes_per_cycle = 256;
  c->mte1_l0b_bytes_per_cycle = 128;
  c->mte1_bt_bytes_per_cycle = 32;
  c->mte1_fb_bytes_per_cycle = 32;
  c->mte1_latency_cycles = 5;
  c->cube_head_cycles = 2;
  c->cube_latency_cycles = 3;
  c->fixpipe_elements_per_cycle = 64;
  c->fixpipe_latency_cycles = 7;
  c->vector_bytes_per_cycle = 256;
  c->vector_latency_cycles = 4;
  c->gm_hbm_gb_per_s = 128;
  c->l2_enabled = false;
  c->l2_gb_per_s = 256;
  sb_neutral_costs(c);
  c->l2_hit_latency_cycles = 20;
  c->l2_miss_latency_cycles = 100;
}

sim *sb_trace_sim(unsigned cores) {
  sim_config cfg;
  sim_config_defaults(&cfg);
  sb_neutral_costs(&cfg);
  cfg.scalar_dispatch_cycles = cfg.aiv_dispatch_cycles = 4; /* the tests' hand derivations issue an instruction per 4 cycles */
  cfg.mte2_gm_bytes_per_cycle = 128;
  cfg.chip_aic_cores = cores;
  sim *s = NULL;
  cs_err err;
  if (sim_create(&cfg, NULL, &s, &err) != CS_OK) fail_msg("sim_create: %s", err.msg);
  return s;
}

void sb_issue(sim *s, unsigned core, isa_insn in) {
  sim_core *c = sim_get_core(s, core);
  if (sim_core_issue(c, &in) != CS_OK) {
    char msg[512];
    sim_fault_describe(sim_core_fault(c), msg, sizeof msg);
    fail_msg("issue failed: %s", msg);
  }
}

void sb_two_core_program(sim *s, sb_two_core_gm *gm) {
  sb_two_core_gm g;
  cs_err err;
  assert_int_equal(sim_gm_alloc(s, "A", 4096, &g.a, &err), CS_OK);
  assert_int_equal(sim_gm_alloc(s, "B", 4096, &g.b, &err), CS_OK);
  assert_int_equal(sim_gm_alloc(s, "C", 2048, &g.c, &err), CS_OK);
  assert_int_equal(sim_gm_alloc(s, "D", 2048, &g.d, &err), CS_OK);
  sb_issue(s, 0, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, g.a, 4096));
  sb_issue(s, 0, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0));
  sb_issue(s, 0, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0));
  sb_issue(s, 0, ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, g.b, ISA_MEM_UB, 0, 4096));
  sb_issue(s, 1, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, g.c, 2048));
  sb_issue(s, 1, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_S, 1));
  sb_issue(s, 1, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_S, 1));
  sb_issue(s, 1, ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, g.d, ISA_MEM_UB, 0, 2048));
  sb_issue(s, 1, ib_barrier(ISA_PIPE_ALL));
  if (gm) *gm = g;
}
