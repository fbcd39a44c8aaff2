/* Tests of traces/trc_msprof: msprof's files for the two-core program (cycles derived by hand in
 * tests/sim/test_trace.c; spans 832 and 804, aicore 818, at 1850 MHz; MTE2 at 128 B/cycle) and
 * for one hand-made mmad, every column checked against a value worked out here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "support/insn_build.h"
#include "support/sim_build.h"
#include "traces/trc_msprof.h"

static char *written(trc_msprof_file file, const sim *s, const sim_result *r) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  trc_msprof_write(file, s, r, "demo", f);
  assert_int_equal(fclose(f), 0);
  return text;
}

static void assert_text(trc_msprof_file file, const sim *s, const sim_result *r, const char *want) {
  char *got = written(file, s, r);
  assert_string_equal(got, want);
  free(got);
}

static void test_msprof_files_of_the_two_core_run(void **state) {
  (void)state;
  sim *s = sb_trace_sim(2);
  sb_two_core_program(s, NULL);
  sim_result r;
  cs_err err;
  assert_int_equal(sim_run(s, NULL, &r, &err), CS_OK);
  assert_string_equal(trc_msprof_file_name(TRC_MSPROF_pipe_utilization), "PipeUtilization.csv");
  /* Task Duration 832 / 1850 us, two blocks, the clock */
  assert_text(TRC_MSPROF_op_basic_info, s, &r,
              "Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq\n"
              "demo,demo,0.449730,2,N/A,0,0,1850,1850\n");
  /* means over the 2 blocks / 1850; ratios / aicore 818: SCALAR 18, MTE2 and MTE3 24 cycles */
  assert_text(TRC_MSPROF_op_summary, s, &r,
              "Op Name,OP Type,Task Type,Task Duration(us),Block Dim,aicore_time(us),aic_total_cycles,"
              "aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,"
              "aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,aiv_vec_time(us),"
              "aiv_vec_ratio,aiv_mte3_time(us),aiv_mte3_ratio\n"
              "demo,demo,AI_CORE,0.449730,2,0.442162,818.000,0.000000,0.000000,0.009730,0.022005,0.000000,0.000000,"
              "0.012973,0.029340,0.000000,0.000000,0.000000,0.000000,0.012973,0.029340\n");
  /* per block: its span, each pipe's busy / 1850 and / the span (core 0: 832, core 1: 804) */
  assert_text(TRC_MSPROF_pipe_utilization, s, &r,
              "block_id,sub_block_id,aic_time(us),aic_total_cycles,aicore_time(us),aic_mac_time(us),aic_mac_ratio,"
              "aic_cube_time(us),aic_cube_ratio,aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),"
              "aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,"
              "aiv_vec_time(us),aiv_vec_ratio,aiv_mte3_time(us),aiv_mte3_ratio\n"
              "0,cubecore0,0.449730,832,0.449730,0.000000,0.000000,0.000000,0.000000,0.008649,0.019231,0.000000,"
              "0.000000,0.017297,0.038462,0.000000,0.000000,0.000000,0.000000,0.017297,0.038462\n"
              "1,cubecore0,0.434595,804,0.434595,0.000000,0.000000,0.000000,0.000000,0.010811,0.024876,0.000000,"
              "0.000000,0.008649,0.019900,0.000000,0.000000,0.000000,0.000000,0.008649,0.019900\n");
  /* core 0 reads 4096 B from GM into UB and writes 4096 B back over 832 cycles: 4096 x 1850 /
   * 832 / 1000 = 9.107692 GB/s each way; 4.000 KB; GM->UB usage 4096 / (832 x 128) = 3.846 %,
   * UB->GM 4096 / (832 x 128) (MTE3's default 128 B/cycle) as well. Core 1: 2048 B over 804. */
  assert_text(TRC_MSPROF_memory, s, &r,
              "block_id,sub_block_id,aic_time(us),aic_total_cycles,aic_l1_read_bw(GB/s),aic_l1_write_bw(GB/s),"
              "aic_main_mem_read_bw(GB/s),aic_main_mem_write_bw(GB/s),aiv_gm_to_ub_bw(GB/s),aiv_ub_to_gm_bw(GB/s),"
              "aic_mte1_instructions,aic_mte1_ratio,aic_mte2_instructions,aic_mte2_ratio,aiv_mte3_instructions,"
              "aiv_mte3_ratio,read_main_memory_datas(KB),write_main_memory_datas(KB),GM_to_L1_datas(KB),"
              "L0C_to_L1_datas(KB),L0C_to_GM_datas(KB),GM_to_UB_datas(KB),UB_to_GM_datas(KB),"
              "GM_to_L1_bw_usage_rate(%),GM_to_UB_bw_usage_rate(%),UB_to_GM_bw_usage_rate(%)\n"
              "0,cubecore0,0.449730,832,0.000000,0.000000,9.107692,9.107692,9.107692,9.107692,0,0.000000,1,"
              "0.038462,1,0.038462,4.000,4.000,0.000,0.000,0.000,4.000,4.000,0.000,3.846,3.846\n"
              "1,cubecore0,0.434595,804,0.000000,0.000000,4.712438,4.712438,4.712438,4.712438,0,0.000000,1,"
              "0.019900,1,0.019900,2.000,2.000,0.000,0.000,0.000,2.000,2.000,0.000,1.990,1.990\n");
  assert_text(TRC_MSPROF_memory_l0, s, &r,
              "block_id,sub_block_id,aic_time(us),aic_total_cycles,aic_l0a_read_bw(GB/s),aic_l0a_write_bw(GB/s),"
              "aic_l0b_read_bw(GB/s),aic_l0b_write_bw(GB/s),aic_l0c_read_bw_cube(GB/s),aic_l0c_write_bw_cube(GB/s)\n"
              "0,cubecore0,0.449730,832,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000\n"
              "1,cubecore0,0.434595,804,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000\n");
  sim_result_free(&r);
  sim_destroy(s);
}

/* One fp16 mmad 20 x 30 x 40 that accumulates: the cube reads whole fractals, A 32 x 48 fp16
 * (3072 B), B 48 x 32 (3072 B), and reads and writes C 32 x 32 x 4 B (4096 B). Its span is the
 * cube's occupancy 2 x 2 x 3 = 12 cycles + the 910B's head of 10, plus the latency 16, from the
 * first dispatch at 4: 4 + 22 + 16 = 42, launched at 0: 42 cycles. */
static void test_msprof_l0_bytes_of_an_mmad(void **state) {
  (void)state;
  sim *s = sb_trace_sim(1);
  isa_insn in = ib_mmad(ISA_FP16, 20, 30, 40);
  in.u.mmad.init_c = 0;
  sb_issue(s, 0, in);
  sim_result r;
  cs_err err;
  assert_int_equal(sim_run(s, NULL, &r, &err), CS_OK);
  assert_int_equal(r.stats.core[0].finish_cycles, 42);
  char want[512];
  double us = 42.0 / 1850.0;
  snprintf(want, sizeof want,
           "block_id,sub_block_id,aic_time(us),aic_total_cycles,aic_l0a_read_bw(GB/s),aic_l0a_write_bw(GB/s),"
           "aic_l0b_read_bw(GB/s),aic_l0b_write_bw(GB/s),aic_l0c_read_bw_cube(GB/s),aic_l0c_write_bw_cube(GB/s)\n"
           "0,cubecore0,%.6f,42,%.6f,0.000000,%.6f,0.000000,%.6f,%.6f\n",
           us, 3072.0 / us / 1e3, 3072.0 / us / 1e3, 4096.0 / us / 1e3, 4096.0 / us / 1e3);
  assert_text(TRC_MSPROF_memory_l0, s, &r, want);
  sim_result_free(&r);
  sim_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_msprof_files_of_the_two_core_run),
      cmocka_unit_test(test_msprof_l0_bytes_of_an_mmad),
  };
  return cmocka_run_group_tests_name("msprof", tests, NULL, NULL);
}
