/* The acceptance test of `cubesim exec` on the cube: a hand-written text program loads int8 A and
 * B, runs one mmad and a DEQF16 fixpipe; its fp16 output equals, bit for bit, an independent
 * reference computed here (exact integer sums, then the two roundings done by hand on exact
 * doubles), and its cycle count equals the derivation below. Also: its trace (one track per
 * pipe, one complete event per instruction), and the same program without one wait_flag
 * reported as a RAW hazard, or run with --allow-hazards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cs_npy.h"
#include "support/cli_run.h"
#include "base/cs_jsonr.h"
#include "support/json_expect.h"
#include "support/tmp_files.h"

/* ---- helpers ------------------------------------------------------------------------------- */

/* The files of one test, in a fresh temporary directory. */
typedef struct files {
  char dir[64];
  char prog[128], cfg[128], a[128], b[128], c[128], trace[128];
  char in_a[160], in_b[160], out_c[160];
} files;

static void make_files(files *f) {
  tf_mkdtemp(f->dir, sizeof f->dir);
  tf_join(f->prog, sizeof f->prog, f->dir, "tile.s");
  tf_join(f->cfg, sizeof f->cfg, f->dir, "chip.yaml");
  tf_join(f->a, sizeof f->a, f->dir, "a.npy");
  tf_join(f->b, sizeof f->b, f->dir, "b.npy");
  tf_join(f->c, sizeof f->c, f->dir, "c.npy");
  tf_join(f->trace, sizeof f->trace, f->dir, "t.json");
  snprintf(f->in_a, sizeof f->in_a, "A=%s", f->a);
  snprintf(f->in_b, sizeof f->in_b, "B=%s", f->b);
  snprintf(f->out_c, sizeof f->out_c, "C=%s", f->c);
}

/* ---- the program ---------------------------------------------------------------------------- */

#define M 16
#define K 64
#define N 32

/* C (16 x 32, fp16) = DEQF16(A (16 x 64) · B (64 x 32)), int8, operands built as docs/ISA.md
 * ("Building mmad's operands") says: A and B to L1 as NZ, A -> L0A one m-block (kb = 2 fractals),
 * B -> L0B transposed one k-block at a time (int8 squares of q = 2 fractals, nb = 2), flags
 * between the pipes. deq_scalar 0x40003dccc000: S = 1, scale bits 0x3dccc000 = 0.0999755859375.
 * The comments number the lines (the hazard test removes line 13). */
static const char program_head[] =
    "# one int8 tile through the cube: C = DEQF16(A . B)\n"                                     /* 1 */
    ".gm A int8 [16,64] in\n"                                                                   /* 2 */
    ".gm B int8 [64,32] in\n"                                                                   /* 3 */
    ".gm C fp16 [16,32] out\n"                                                                  /* 4 */
    "copy_gm_l1_nd2nz dst=L1:0x0 src=GM:A dtype=int8 nd_num=1 n_value=16 d_value=64 "
    "src_d_value=64 dst_nz_c0_stride=16 dst_nz_n_stride=1\n"                                    /* 5 */
    "copy_gm_l1_nd2nz dst=L1:0x1000 src=GM:B dtype=int8 nd_num=1 n_value=64 d_value=32 "
    "src_d_value=32 dst_nz_c0_stride=64 dst_nz_n_stride=1\n"                                    /* 6 */
    "set_flag src_pipe=MTE2 dst_pipe=MTE1 event_id=0\n"                                         /* 7 */
    "wait_flag src_pipe=MTE2 dst_pipe=MTE1 event_id=0\n"                                        /* 8 */
    "load_l0a dst=L0A:0x0 src=L1:0x0 dtype=int8 start_index=0 repeat_times=2 src_stride=1\n"   /* 9 */
    "load_l0b dst=L0B:0x0 src=L1:0x1000 dtype=int8 start_index=0 repeat_times=1 src_stride=4 "
    "if_transpose=1\n"                                                                          /* 10 */
    "load_l0b dst=L0B:0x400 src=L1:0x1000 dtype=int8 start_index=2 repeat_times=1 src_stride=4 "
    "if_transpose=1\n"                                                                          /* 11 */
    "set_flag src_pipe=MTE1 dst_pipe=M event_id=0\n";                                           /* 12 */
static const char program_wait_m[] = "wait_flag src_pipe=MTE1 dst_pipe=M event_id=0\n";         /* 13 */
static const char program_tail[] =
    "mmad dst=L0C:0x0 a=L0A:0x0 b=L0B:0x0 dtype=int8 m=16 n=32 k=64 init_c=1\n"
    "set_flag src_pipe=M dst_pipe=FIX event_id=0\n"
    "wait_flag src_pipe=M dst_pipe=FIX event_id=0\n"
    "fixpipe dst=GM:C src=L0C:0x0 l0c_dtype=int32 out_dtype=fp16 quant_pre=DEQF16 "
    "deq_scalar=0x40003dccc000 nz2nd_en=1 n_size=32 m_size=16 src_stride=16 dst_stride=32 "
    "nd_num=1\n";

#define DEQ_WORD 0x40003dccc000ull

static void write_program(const files *f, bool with_wait_m) {
  char text[4096];
  snprintf(text, sizeof text, "%s%s%s", program_head, with_wait_m ? program_wait_m : "", program_tail);
  tf_write_text(f->prog, text);
}

/* sb_round_config of tests/support/sim_build.h, with round numbers (1000 MHz: 1 GB/s = 1
 * byte/cycle); the keys the program does not use keep their defaults. */
static const char chip_yaml[] =
    "chip:\n  cores: 1\n  clock_mhz: 1000\n  launch_us: 0\n"
    "scalar:\n  dispatch_cycles: 1\n  kernel_init_cycles: 0\n"
    "mte2:\n  gm_bytes_per_cycle: 64\n  latency_cycles: 10\n  outstanding_bytes: 1073741824\n"
    "  burst_cycles: 0\n  outstanding_bursts: 0\n  setup_cycles: 0\n"
    "mte1:\n  l0a_bytes_per_cycle: 256\n  l0b_bytes_per_cycle: 128\n  latency_cycles: 5\n  insn_cycles: 0\n"
    "cube:\n  head_cycles: 2\n  latency_cycles: 3\n  restart_cycles: 0\n"
    "fixpipe:\n  elements_per_cycle: 64\n  latency_cycles: 7\n  gm_bytes_per_cycle: 65536\n"
    "  outstanding_bytes: 1073741824\n  burst_cycles: 0\n  outstanding_bursts: 0\n  setup_cycles: 0\n"
    "gm:\n  hbm_gb_per_s: 128\n  hbm_efficiency: 1\n  hbm_burst_bytes: 1\n  pitch_efficiency_256b: 1\n  pitch_efficiency_128b: 1\n"
    "  pitch_efficiency_64b: 1\n  pitch_efficiency_32b: 1\n  pitch_efficiency_unaligned: 1\n"
    "l2:\n  enabled: false\n  miss_latency_cycles: 100\n  queue_cycles: 0\n";

/* The cycles, by hand (docs/DESIGN.md §6; int8 k0 = 8192 / 256 = 32 by default; instruction i
 * enters its queue at cycle i + 1; with L2 off every GM access adds 100):
 *   0 nd2nz A, 16 x 64 = 1024 B at 64 B/cycle: MTE2 1 .. 17, done 17 + 10 + 100 = 127
 *   1 nd2nz B, 64 x 32 = 2048 B: MTE2 17 .. 49, done 159
 *   2 set_flag MTE2->MTE1 fires when both are done: 159;  3 wait_flag releases MTE1 at 159
 *   4 load_l0a 2 fractals = 1024 B at 256 B/cycle: 159 .. 163, done 168
 *   5 load_l0b one square = 1024 B at 128 B/cycle: 163 .. 171, done 176
 *   6 load_l0b: 171 .. 179, done 184
 *   7 set_flag MTE1->M fires at 184;  8 wait_flag releases M at 184
 *   9 mmad ceil(16/16) x ceil(32/16) x ceil(64/32) = 4, + head 2: 184 .. 190, done 193
 *  10 set_flag M->FIX fires at 193; 11 wait_flag releases FIX at 193
 *  12 fixpipe 512 elements, fp16 = 1024 B at min(64 x 2, HBM 128) B/cycle: 193 .. 201,
 *     done 201 + 7 + 100 = 308 */
#define TOTAL_CYCLES 308u

/* Inputs: pseudo-random int8, with row 0 of A at +127 and row 1 at -128 against column 0 of B
 * at +127, so that two outputs overflow fp16 and saturate (chip.fixpipe_saturation). */
static void make_inputs(int8_t *a, int8_t *b) {
  uint32_t x = 12345;
  for (int i = 0; i < M * K; i++) {
    x = x * 1103515245u + 12345u;
    a[i] = (int8_t)(x >> 16);
  }
  for (int i = 0; i < K * N; i++) {
    x = x * 1103515245u + 12345u;
    b[i] = (int8_t)(x >> 16);
  }
  for (int k = 0; k < K; k++) {
    a[0 * K + k] = 127;
    a[1 * K + k] = -128;
    b[k * N + 0] = 127;
  }
}

static void write_inputs(const files *f, const int8_t *a, const int8_t *b) {
  size_t sa[2] = {M, K}, sb[2] = {K, N};
  tf_write_npy(f->a, CS_NPY_I8, 2, sa, a);
  tf_write_npy(f->b, CS_NPY_I8, 2, sb, b);
}

/* Everything a test runs on: its files, the program (with or without the wait_flag of line 13),
 * the configuration, and the inputs, also into a and b. */
static void prepare(files *f, bool with_wait_m, int8_t *a, int8_t *b) {
  make_files(f);
  write_program(f, with_wait_m);
  tf_write_text(f->cfg, chip_yaml);
  make_inputs(a, b);
  write_inputs(f, a, b);
}

/* ---- the independent reference ------------------------------------------------------------ */

/* x (exact in a double) rounded to p significant bits, ties to even. */
static double round_sig(double x, int p) {
  if (x == 0) return x;
  int e;
  frexp(x, &e); /* 2^(e-1) <= |x| < 2^e */
  double s = ldexp(x, p - e), fl = floor(s), rem = s - fl;
  double r = rem > 0.5 ? fl + 1 : rem < 0.5 ? fl : (fmod(fl, 2) == 0 ? fl : fl + 1);
  return ldexp(r, e - p);
}

/* The fp16 bits of a value that already has at most 11 significant bits and lies in the normal
 * range or is 0; beyond 65504 it saturates to the largest finite fp16 (docs/DESIGN.md §3). */
static uint16_t fp16_bits(double h) {
  uint16_t sign = h < 0 ? 0x8000 : 0;
  double mag = fabs(h);
  if (mag == 0) return sign;
  if (mag > 65504.0) return sign | 0x7BFF;
  int e;
  double fr = frexp(mag, &e); /* mag = fr · 2^e, fr in [0.5, 1) */
  int exp = e - 1;            /* mag = (2·fr) · 2^exp */
  assert_true(exp >= -14 && exp <= 15);
  double mant = (2 * fr - 1) * 1024;
  assert_true(mant == floor(mant));
  return (uint16_t)(sign | (uint16_t)((exp + 15) << 10) | (uint16_t)mant);
}

/* docs/DESIGN.md §5.2, DEQF16: out = fp16_rne(fp32(x) · M1), M1 the word's fp32 scale with
 * bits 12..0 cleared, the product rounded to fp32. Here |x| < 2^21 and M1 has 12 significant bits, so
 * x · M1 is exact in a double and each rounding is done once, on an exact value. */
static void reference(const int8_t *a, const int8_t *b, uint16_t *c) {
  uint32_t bits = (uint32_t)(DEQ_WORD & 0xFFFFE000u); /* 0x3dccc000 */
  int exp = (int)((bits >> 23) & 0xFF) - 127;
  double m1 = ldexp(1.0 + (double)(bits & 0x7FFFFF) / 8388608.0, exp);
  assert_true(m1 == 0.0999755859375);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int64_t acc = 0;
      for (int k = 0; k < K; k++) acc += (int64_t)a[i * K + k] * b[k * N + j];
      assert_true(llabs(acc) < (1 << 21)); /* exact in fp32 */
      double y = round_sig((double)acc * m1, 24); /* the fp32 product */
      c[i * N + j] = fp16_bits(round_sig(y, 11));
    }
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void check_output(const files *f, const int8_t *a, const int8_t *b) {
  uint16_t want[M * N];
  reference(a, b, want);
  /* the saturated corners: +127·127·64 and -128·127·64, times 0.09998, are beyond 65504 */
  assert_int_equal(want[0 * N + 0], 0x7BFF);
  assert_int_equal(want[1 * N + 0], 0xFBFF);
  cs_npy out;
  tf_read_npy(f->c, &out);
  assert_int_equal(out.dtype, CS_NPY_F16);
  assert_int_equal(out.ndim, 2);
  assert_int_equal(out.shape[0], M);
  assert_int_equal(out.shape[1], N);
  const uint8_t *got = out.data;
  for (int i = 0; i < M * N; i++) {
    uint16_t g = (uint16_t)(got[2 * i] | got[2 * i + 1] << 8);
    if (g != want[i]) fail_msg("C[%d][%d] = 0x%04x, expected 0x%04x", i / N, i % N, g, want[i]);
  }
  cs_npy_free(&out);
}

/* The acceptance: bit-exact output and the hand-derived cycle count. */
static void test_cli_exec_mmad_tile_is_bit_exact_and_on_time(void **state) {
  (void)state;
  files f;
  int8_t a[M * K], b[K * N];
  prepare(&f, true, a, b);
  cr_result r = cr_run("exec", f.prog, "--config", f.cfg, "--in", f.in_a, "--in", f.in_b, "--out",
                       f.out_c, "--json", NULL);
  assert_string_equal(r.err, "");
  assert_int_equal(r.status, 0);
  check_output(&f, a, b);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  uint64_t v;
  assert_true(cs_jget_u64(cs_jroot(doc), "total_cycles", &v));
  assert_int_equal(v, TOTAL_CYCLES);
  assert_true(cs_jget_u64(cs_jroot(doc), "instructions", &v));
  assert_int_equal(v, 13);
  assert_true(cs_jget_u64(cs_jroot(doc), "macs", &v));
  assert_int_equal(v, M * N * K);
  assert_true(cs_jget_u64(cs_jroot(doc), "pipes.CUBE.busy_cycles", &v));
  assert_int_equal(v, 6);
  assert_true(cs_jget_u64(cs_jroot(doc), "pipes.MTE2.busy_cycles", &v));
  assert_int_equal(v, 16 + 32);
  cs_jfree(doc);
  cr_free(&r);
  tf_remove_tree(f.dir);
}

/* --trace: a track named after each pipe (traces/FORMAT.md: tid (core + 1) x 100 + pipe + 1) and
 * one complete event per instruction, on its pipe's track, at its derived cycles. */
static void test_cli_exec_mmad_trace(void **state) {
  (void)state;
  files f;
  int8_t a[M * K], b[K * N];
  prepare(&f, true, a, b);
  cr_result r = cr_run("exec", f.prog, "--config", f.cfg, "--in", f.in_a, "--in", f.in_b, "--trace",
                       f.trace, NULL);
  assert_string_equal(r.err, "");
  assert_int_equal(r.status, 0);
  cr_free(&r);
  cs_jdoc *doc = je_parse_file(f.trace);
  static const char *const tracks[7] = {"SCALAR", "MTE2", "MTE1", "CUBE", "FIXP", "MTE3", "VECTOR"};
  static const struct {
    const char *name, *track;
    uint64_t start, end;
  } insns[13] = {
      {"copy_gm_l1_nd2nz", "MTE2", 1, 127},  {"copy_gm_l1_nd2nz", "MTE2", 17, 159},
      {"set_flag", "MTE2", 159, 159},        {"wait_flag", "MTE1", 159, 159},
      {"load_l0a", "MTE1", 159, 168},        {"load_l0b", "MTE1", 163, 176},
      {"load_l0b", "MTE1", 171, 184},        {"set_flag", "MTE1", 184, 184},
      {"wait_flag", "CUBE", 184, 184},       {"mmad", "CUBE", 184, 193},
      {"set_flag", "CUBE", 193, 193},        {"wait_flag", "FIXP", 193, 193},
      {"fixpipe", "FIXP", 193, 308},
  };
  int named[7] = {0}, seen[13] = {0};
  const cs_jvalue *ev = cs_jget(cs_jroot(doc), "traceEvents");
  assert_non_null(ev);
  for (size_t i = 0; i < cs_jcount(ev); i++) {
    const cs_jvalue *e = cs_jat(ev, i);
    const char *ph = cs_jget_string(e, "ph");
    assert_non_null(ph);
    uint64_t pid, tid;
    if (strcmp(ph, "M") == 0 && strcmp(cs_jget_string(e, "name"), "thread_name") == 0) {
      assert_true(cs_jget_u64(e, "pid", &pid));
      assert_true(cs_jget_u64(e, "tid", &tid));
      assert_int_equal(pid, 1);
      assert_true(tid >= 101 && tid <= 107);
      assert_string_equal(cs_jget_string(e, "args.name"), tracks[tid - 101]);
      named[tid - 101]++;
    } else if (strcmp(ph, "X") == 0) {
      uint64_t idx, start, end;
      assert_true(cs_jget_u64(e, "args.index", &idx));
      assert_true(idx < 13);
      seen[idx]++;
      assert_string_equal(cs_jget_string(e, "name"), insns[idx].name);
      assert_string_equal(cs_jget_string(e, "cat"), insns[idx].track);
      assert_true(cs_jget_u64(e, "pid", &pid));
      assert_true(cs_jget_u64(e, "tid", &tid));
      assert_int_equal(pid, 1);
      assert_true(tid >= 101 && tid <= 107);
      assert_string_equal(tracks[tid - 101], insns[idx].track);
      assert_true(cs_jget_u64(e, "args.start_cycle", &start));
      assert_true(cs_jget_u64(e, "args.end_cycle", &end));
      assert_int_equal(start, insns[idx].start);
      assert_int_equal(end, insns[idx].end);
    }
  }
  for (int p = 0; p < 7; p++) assert_int_equal(named[p], 1);
  for (int i = 0; i < 13; i++) assert_int_equal(seen[i], 1);
  cs_jfree(doc);
  tf_remove_tree(f.dir);
}

/* Without the wait_flag MTE1->M of line 13, the mmad (now instruction 8, line 13) starts at its
 * dispatch, cycle 9, and reads L0A and L0B that the loads (instructions 4, 5, 6, waiting for
 * MTE2 until 159) have not written: three RAW hazards, the first against load_l0a, which
 * completes at 168. The run fails with exit status 5 and no output file. With --allow-hazards it
 * warns; the data is the same (it is applied at issue, in program order) and the run ends when
 * the last load does: 184 (the fixpipe is done at 9 + 6 + 3 = 18, 18 + 8 + 107 = 133). */
static void test_cli_exec_mmad_missing_wait_is_a_hazard(void **state) {
  (void)state;
  files f;
  int8_t a[M * K], b[K * N];
  prepare(&f, false, a, b);
  static const char first[] =
      "RAW hazard on core 0: instruction 8 (mmad, M, line 13) reads bytes that instruction 4 "
      "(load_l0a, MTE1, line 9) writes, and no flag or barrier orders them: L0A [0x0, 0x400) "
      "(missing set_flag/wait_flag or pipe_barrier); in this run the later started at cycle 9, the "
      "earlier completed at cycle 168";
  cr_result r = cr_run("exec", f.prog, "--config", f.cfg, "--in", f.in_a, "--in", f.in_b, "--out",
                       f.out_c, NULL);
  assert_int_equal(r.status, 5);
  char want[1024];
  snprintf(want, sizeof want, "cubesim exec: error: %s:13: 3 data hazards; first: %s\n", f.prog, first);
  assert_string_equal(r.err, want);
  assert_string_equal(r.out, "");
  assert_int_equal(access(f.c, F_OK), -1);
  cr_free(&r);

  r = cr_run("exec", f.prog, "--config", f.cfg, "--in", f.in_a, "--in", f.in_b, "--out", f.out_c,
             "--allow-hazards", "--json", NULL);
  assert_int_equal(r.status, 0);
  snprintf(want, sizeof want, "cubesim exec: warning: %s:13: 3 data hazards (allowed); first: %s\n",
           f.prog, first);
  assert_string_equal(r.err, want);
  check_output(&f, a, b);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  uint64_t v;
  assert_true(cs_jget_u64(cs_jroot(doc), "total_cycles", &v));
  assert_int_equal(v, 184);
  assert_true(cs_jget_u64(cs_jroot(doc), "instructions", &v));
  assert_int_equal(v, 12);
  cs_jfree(doc);
  cr_free(&r);
  tf_remove_tree(f.dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_exec_mmad_tile_is_bit_exact_and_on_time),
      cmocka_unit_test(test_cli_exec_mmad_trace),
      cmocka_unit_test(test_cli_exec_mmad_missing_wait_is_a_hazard),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
