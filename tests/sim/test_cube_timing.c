/* Tests of the timing of the cube's data path (docs/DESIGN.md §6): mmad per input type at the
 * boundaries of its fractal count, k0 from the configuration, the MTE1 links, the fixpipe's
 * element rate as a GM bandwidth cap, the vector rate, a whole single-tile pipeline joined by
 * flags, set_flag leaving its pipe free, pipe_barrier on one pipe, and a deadlock from a full
 * queue. Every cycle count is derived by hand in the comments from sb_round_config
 * (tests/support/sim_build.h); start and end cycles of single instructions are read back from
 * the trace (args.start_cycle, args.end_cycle; traces/FORMAT.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/sim_trace.h"
#include "support/insn_build.h"
#include "base/cs_jsonr.h"
#include "support/json_expect.h"
#include "support/sim_build.h"
#include "support/tmp_files.h"

#define MAX_INSNS 32

/* When each instruction of core 0 ran, from the trace. */
typedef struct times {
  uint64_t start[MAX_INSNS], busy_end[MAX_INSNS], end[MAX_INSNS];
  bool seen[MAX_INSNS];
} times;

typedef struct fixture {
  sim *s;
  uint64_t a, b, c; /* three 64 KiB GM tensors */
  sim_result res;
  cs_err err;
  times t;
} fixture;

static void setup_with(fixture *f, const sim_config *c) {
  memset(f, 0, sizeof *f);
  assert_int_equal(sim_create(c, NULL, &f->s, &f->err), CS_OK);
  assert_int_equal(sim_gm_alloc(f->s, "a", 65536, &f->a, &f->err), CS_OK);
  assert_int_equal(sim_gm_alloc(f->s, "b", 65536, &f->b, &f->err), CS_OK);
  assert_int_equal(sim_gm_alloc(f->s, "c", 65536, &f->c, &f->err), CS_OK);
}

static void setup(fixture *f) {
  sim_config c;
  sb_round_config(&c, 1);
  setup_with(f, &c);
}

static void teardown(fixture *f) {
  sim_result_free(&f->res);
  sim_destroy(f->s);
}

static void issue(fixture *f, isa_insn in) { sb_issue(f->s, 0, in); }

/* Replays with a trace and reads every instruction's cycles back from its X event. */
static cs_status run(fixture *f) {
  char dir[64], path[128];
  tf_mkdtemp(dir, sizeof dir);
  tf_join(path, sizeof path, dir, "t.json");
  sim_trace *tr = NULL;
  assert_int_equal(sim_trace_open(path, sim_get_config(f->s), &tr, &f->err), CS_OK);
  sim_result_free(&f->res);
  sim_run_options o = {.trace = tr};
  cs_status st = sim_run(f->s, &o, &f->res, &f->err);
  cs_err e2;
  assert_int_equal(sim_trace_close(tr, true, &e2), CS_OK);
  cs_jdoc *doc = je_parse_file(path);
  memset(&f->t, 0, sizeof f->t);
  const cs_jvalue *ev = cs_jget(cs_jroot(doc), "traceEvents");
  for (size_t i = 0; i < cs_jcount(ev); i++) {
    const cs_jvalue *e = cs_jat(ev, i);
    const char *ph = cs_jget_string(e, "ph");
    if (!ph || strcmp(ph, "X") != 0) continue;
    uint64_t idx;
    assert_true(cs_jget_u64(e, "args.index", &idx));
    assert_true(idx < MAX_INSNS);
    assert_false(f->t.seen[idx]);
    f->t.seen[idx] = true;
    assert_true(cs_jget_u64(e, "args.start_cycle", &f->t.start[idx]));
    assert_true(cs_jget_u64(e, "args.busy_end_cycle", &f->t.busy_end[idx]));
    assert_true(cs_jget_u64(e, "args.end_cycle", &f->t.end[idx]));
  }
  cs_jfree(doc);
  tf_remove_tree(dir);
  return st;
}

/* Instruction idx started at `start`, freed its pipe at `busy_end` and completed at `end`. */
static void assert_times(const fixture *f, unsigned idx, uint64_t start, uint64_t busy_end, uint64_t end) {
  assert_true(f->t.seen[idx]);
  if (f->t.start[idx] != start || f->t.busy_end[idx] != busy_end || f->t.end[idx] != end)
    fail_msg("instruction %u: start %llu, busy_end %llu, end %llu; expected %llu, %llu, %llu", idx,
             (unsigned long long)f->t.start[idx], (unsigned long long)f->t.busy_end[idx],
             (unsigned long long)f->t.end[idx], (unsigned long long)start,
             (unsigned long long)busy_end, (unsigned long long)end);
}

/* ---- mmad --------------------------------------------------------------------------------- */

/* One mmad alone: it enters the M queue at 1 and starts at once; it occupies the cube for
 * ceil(m/16)·ceil(n/16)·ceil(k/k0) + head (2) cycles and completes latency (3) later:
 * total = 1 + fractals + 2 + 3. */
static void expect_mmad(const sim_config *c, isa_dtype t, uint32_t m, uint32_t n, uint32_t k,
                        uint64_t fractals) {
  fixture f;
  setup_with(&f, c);
  issue(&f, ib_mmad(t, m, n, k));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 1 + fractals + 2, 1 + fractals + 2 + 3);
  assert_int_equal(f.res.total_cycles, 1 + fractals + 2 + 3);
  assert_int_equal(f.res.stats.core[0].pipe_busy_cycles[ISA_PIPE_M], fractals + 2);
  assert_int_equal(f.res.stats.macs, (uint64_t)m * n * k);
  teardown(&f);
}

/* Each input type with m = 32, n = 48, k = 2·k0 (2 x 3 x 2 = 12 fractal steps), then one more
 * row of fractals (m = 33: 3 x 3 x 2 = 18), one more column (n = 49: 2 x 4 x 2 = 16), one more
 * k-block (k = 2·k0 + 1: 2 x 3 x 3 = 18); k = 2·k0 - 1 still takes 2 k-blocks (12). */
static void test_sim_cube_mmad_per_dtype_at_the_fractal_boundary(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 1);
  static const struct {
    isa_dtype t;
    uint32_t k0;
  } types[] = {{ISA_INT8, 32}, {ISA_INT4, 64}, {ISA_FP16, 16}, {ISA_BF16, 16}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    uint32_t k0 = types[i].k0;
    expect_mmad(&c, types[i].t, 32, 48, 2 * k0, 12);     /* 1 + 12 + 2 + 3 = 18 */
    expect_mmad(&c, types[i].t, 33, 48, 2 * k0, 18);     /* 24 */
    expect_mmad(&c, types[i].t, 32, 49, 2 * k0, 16);     /* 22 */
    expect_mmad(&c, types[i].t, 32, 48, 2 * k0 + 1, 18); /* 24 */
    expect_mmad(&c, types[i].t, 32, 48, 2 * k0 - 1, 12); /* 18 */
    expect_mmad(&c, types[i].t, 16, 16, 1, 1);           /* the smallest: 1 + 1 + 2 + 3 = 7 */
  }
}

/* k0 is cube.macs_per_cycle_<type> / 256. int8 32 x 32 x 128: 2 x 2 x ceil(128/k0) fractal steps:
 * 8192 MACs/cycle (k0 32): 16; 4096 (k0 16): 32; 16384 (k0 64): 8. fp16 32 x 32 x 64 with
 * 8192 MACs/cycle (k0 32): 2 x 2 x 2 = 8 instead of 16 at the default 4096. The data layout
 * (k0 of the type, docs/ISA.md) does not change. */
static void test_sim_cube_k0_follows_macs_per_cycle(void **state) {
  (void)state;
  sim_config c;
  static const struct {
    uint64_t macs;
    uint64_t k0, fractals;
  } int8_rates[] = {{8192, 32, 16}, {4096, 16, 32}, {16384, 64, 8}};
  for (size_t i = 0; i < sizeof int8_rates / sizeof int8_rates[0]; i++) {
    sb_round_config(&c, 1);
    c.cube_macs_per_cycle_int8 = int8_rates[i].macs;
    fixture f;
    setup_with(&f, &c);
    assert_int_equal(sim_get_derived(f.s)->cube_k0_int8, int8_rates[i].k0);
    teardown(&f);
    expect_mmad(&c, ISA_INT8, 32, 32, 128, int8_rates[i].fractals);
    /* the other types keep their rates */
    expect_mmad(&c, ISA_FP16, 32, 32, 64, 16);
  }
  sb_round_config(&c, 1);
  c.cube_macs_per_cycle_fp16 = 8192;
  expect_mmad(&c, ISA_FP16, 32, 32, 64, 8);
  expect_mmad(&c, ISA_BF16, 32, 32, 64, 16); /* bf16 has its own rate */
  c.cube_macs_per_cycle_int4 = 4096;          /* int4 at k0 16: 2 x 2 x 8 for k = 128 */
  expect_mmad(&c, ISA_INT4, 32, 32, 128, 32);
}

/* ---- MTE1 links --------------------------------------------------------------------------- */

/* load_l0a moves 512-byte fractals at 256 B/cycle, load_l0b at 128 B/cycle; latency 5.
 *   load_l0a, 3 fractals = 1536 B: 6 cycles: 1 .. 7, done at 12;
 *   load_l0b, 3 fractals: 12 cycles: 1 .. 13, done at 18;
 *   load_l0b transposing 2 int8 squares of 2 fractals = 2048 B: 16 cycles: 1 .. 17, done at 22.
 * Back to back on MTE1 (l0a then l0b), the second starts when the first frees the pipe (7), not
 * when it completes (12): 7 .. 19, done at 24. */
static void test_sim_cube_loads_use_their_link_rates(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, ib_load2d(ISA_OP_LOAD_L0A, ISA_INT8, 0, 0, 0, 3, 1, 0));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 7, 12);
  assert_int_equal(f.res.stats.core[0].path_bytes[ISA_PATH_L1_TO_L0A], 1536);
  teardown(&f);

  setup(&f);
  issue(&f, ib_load2d(ISA_OP_LOAD_L0B, ISA_INT8, 0, 0, 0, 3, 1, 0));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 13, 18);
  teardown(&f);

  setup(&f);
  issue(&f, ib_load2d(ISA_OP_LOAD_L0B, ISA_INT8, 0, 0, 0, 2, 2, 1));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 17, 22);
  assert_int_equal(f.res.stats.core[0].path_bytes[ISA_PATH_L1_TO_L0B], 2048);
  teardown(&f);

  setup(&f);
  issue(&f, ib_load2d(ISA_OP_LOAD_L0A, ISA_INT8, 0, 0, 0, 3, 1, 0));
  issue(&f, ib_load2d(ISA_OP_LOAD_L0B, ISA_INT8, 0, 0, 0, 3, 1, 0));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 7, 12);
  assert_times(&f, 1, 7, 19, 24);
  assert_int_equal(f.res.total_cycles, 24);
  assert_int_equal(f.res.stats.core[0].pipe_busy_cycles[ISA_PIPE_MTE1], 18);
  teardown(&f);
}

/* L1 -> BT and L1 -> FB at 32 B/cycle, latency 5, at the boundary of the ceil:
 *   BT 64 B: 2 cycles, done at 1 + 2 + 5 = 8; 68 B: 3 cycles, done at 9;
 *   FB 256 B (32 quant words): 8 cycles, done at 14; 264 B: 9 cycles, done at 15. */
static void test_sim_cube_bias_table_and_fixpipe_buffer_copies(void **state) {
  (void)state;
  static const struct {
    isa_op op;
    isa_mem mem;
    uint32_t bytes;
    uint64_t busy, end;
  } cases[] = {
      {ISA_OP_COPY_L1_BT, ISA_MEM_BT, 64, 3, 8},
      {ISA_OP_COPY_L1_BT, ISA_MEM_BT, 68, 4, 9},
      {ISA_OP_COPY_L1_FB, ISA_MEM_FB, 256, 9, 14},
      {ISA_OP_COPY_L1_FB, ISA_MEM_FB, 264, 10, 15},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fixture f;
    setup(&f);
    issue(&f, ib_copy(cases[i].op, cases[i].mem, 0, ISA_MEM_L1, 0, cases[i].bytes));
    assert_int_equal(run(&f), CS_OK);
    assert_times(&f, 0, 1, cases[i].busy, cases[i].end);
    assert_int_equal(f.res.total_cycles, cases[i].end);
    teardown(&f);
  }
}

/* ---- fixpipe ------------------------------------------------------------------------------ */

/* The fixpipe converts 64 elements a cycle: to GM that is a flow capped at 64 x (output size)
 * B/cycle, sharing GM bandwidth like any transfer, then latency 7 + the L2/HBM latency.
 * With HBM at 1024 B/cycle the cap binds; a 16 x 32 tile is 512 elements, 8 cycles, whatever
 * the output type:
 *   DEQF16 (fp16, 1024 B at 128 B/cycle), NoQuant (int32, 2048 B at 256), REQ8 (int8, 512 B at
 *   64): 1 .. 9, done at 9 + 7 + 100 (L2 off: HBM latency) = 116.
 *   16 x 33 fp16: 528 elements = 1056 B at 128 B/cycle = 8.25, rounded up: 1 .. 10, done at 117.
 * With HBM at 128 B/cycle, NoQuant's 256 B/cycle cap is cut to 128: 16 cycles, done at 124.
 * With L2 on (256 B/cycle), a write allocates in L2 and pays the hit latency 20: fp16 at 128
 *   B/cycle: 1 .. 9, done at 9 + 7 + 20 = 36.
 * To L1 no GM is involved: occupancy ceil(elements / 64), latency 7: 512 elements 1 .. 9, done at
 *   16; 528 elements 1 .. 10, done at 17. */
static void test_sim_cube_fixpipe_rate_is_a_gm_bandwidth_cap(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 1);
  c.gm_hbm_gb_per_s = 1024;
  static const struct {
    isa_quant_mode q;
    isa_dtype out;
    uint32_t n;
    uint64_t busy, end, bytes;
  } cases[] = {
      {ISA_QUANT_DEQF16, ISA_FP16, 32, 9, 116, 1024},
      {ISA_QUANT_NO_QUANT, ISA_INT32, 32, 9, 116, 2048},
      {ISA_QUANT_REQ8, ISA_INT8, 32, 9, 116, 512},
      {ISA_QUANT_DEQF16, ISA_FP16, 33, 10, 117, 1056},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fixture f;
    setup_with(&f, &c);
    issue(&f, ib_fixpipe_nd(ISA_MEM_GM, f.c, cases[i].q, cases[i].out, 16, cases[i].n));
    assert_int_equal(run(&f), CS_OK);
    assert_times(&f, 0, 1, cases[i].busy, cases[i].end);
    assert_int_equal(f.res.stats.gm_write_bytes, cases[i].bytes);
    assert_int_equal(f.res.stats.core[0].path_bytes[ISA_PATH_L0C_TO_GM], cases[i].bytes);
    teardown(&f);
  }
  /* GM slower than the cap */
  sb_round_config(&c, 1);
  fixture f;
  setup_with(&f, &c);
  issue(&f, ib_fixpipe_nd(ISA_MEM_GM, f.c, ISA_QUANT_NO_QUANT, ISA_INT32, 16, 32));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 17, 124);
  teardown(&f);
  /* L2 on */
  sb_round_config(&c, 1);
  c.l2_enabled = true;
  setup_with(&f, &c);
  issue(&f, ib_fixpipe_nd(ISA_MEM_GM, f.c, ISA_QUANT_DEQF16, ISA_FP16, 16, 32));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 9, 36);
  teardown(&f);
  /* to L1 */
  setup(&f);
  issue(&f, ib_fixpipe_nd(ISA_MEM_L1, 0, ISA_QUANT_DEQF16, ISA_FP16, 16, 32));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 9, 16);
  assert_int_equal(f.res.stats.core[0].path_bytes[ISA_PATH_L0C_TO_L1], 1024);
  teardown(&f);
  setup(&f);
  issue(&f, ib_fixpipe_nd(ISA_MEM_L1, 0, ISA_QUANT_DEQF16, ISA_FP16, 16, 33));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 10, 17);
  teardown(&f);
}

/* ---- vector ------------------------------------------------------------------------------- */

/* The vector unit processes vector.bytes_per_cycle (256) bytes of its elements a cycle, each
 * element counting the wider of its input and output types (isa/isa_insn.h, isa_work; one
 * repeat covers 256 B of the widest operand): 4 B for every vdeq (int32 in). Latency 4.
 *   vdeq 4 x 64 = 256 elements = 1024 B: 4 cycles, 1 .. 5, done at 9, for fp32, fp16 and bf16
 *   out; 1 x 64 = 256 B: 1 cycle, done at 6; 1 x 65 = 260 B: 2 cycles, done at 7.
 *   vcast fp32 -> fp16 of 64 elements: one repeat (256 B of the fp32 side), 1 cycle, done at 6;
 *   of 65: two repeats, done at 7. */
static void test_sim_cube_vector_ops_use_the_vector_rate(void **state) {
  (void)state;
  static const struct {
    isa_dtype out;
    uint32_t rows, cols;
    uint64_t busy, end;
  } cases[] = {
      {ISA_FP32, 4, 64, 5, 9},
      {ISA_FP16, 4, 64, 5, 9},
      {ISA_BF16, 4, 64, 5, 9},
      {ISA_FP32, 1, 64, 2, 6},
      {ISA_FP32, 1, 65, 3, 7},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fixture f;
    setup(&f);
    issue(&f, ib_vdeq(0x10000, 0, 0x20000, cases[i].out, cases[i].rows, cases[i].cols));
    assert_int_equal(run(&f), CS_OK);
    assert_times(&f, 0, 1, cases[i].busy, cases[i].end);
    assert_int_equal(f.res.stats.core[0].path_bytes[ISA_PATH_VECTOR],
                     (uint64_t)cases[i].rows * cases[i].cols * 4);
    teardown(&f);
  }
  for (uint32_t count = 64; count <= 65; count++) {
    fixture f;
    setup(&f);
    issue(&f, ib_vcast_n(ISA_FP32, ISA_FP16, ISA_ROUND_RINT, 0x10000, 0, count));
    assert_int_equal(run(&f), CS_OK);
    assert_times(&f, 0, 1, count == 64 ? 2 : 3, count == 64 ? 6 : 7);
    teardown(&f);
  }
}

/* Each repeat of a vector instruction takes the cycles of its rate class: one for the simple
 * ops, vector.div_cycles_per_repeat (7 here) for vdiv, vrec and vsqrt,
 * vector.transcendental_cycles_per_repeat (7 unless said) for vexp and vln. 200 fp32 elements are 4
 * repeats (the last one of 8 elements), from cycle 1, latency 4:
 *   vadd 4 cycles: busy to 5, done at 9; vdiv and vexp 4 x 7 = 28: busy to 29, done at 33;
 *   with transcendental_cycles_per_repeat = 3, vexp 12: busy to 13, done at 17, and vln the same;
 *   vsqrt keeps the div class: 28. */
static void test_sim_cube_vector_rate_classes(void **state) {
  (void)state;
  static const struct {
    isa_op op;
    uint64_t transc;
    uint64_t busy, end;
  } cases[] = {
      {ISA_OP_VADD, 7, 5, 9},   {ISA_OP_VDIV, 7, 29, 33},  {ISA_OP_VEXP, 7, 29, 33},
      {ISA_OP_VEXP, 3, 13, 17}, {ISA_OP_VLN, 3, 13, 17},   {ISA_OP_VSQRT, 3, 29, 33},
      {ISA_OP_VREC, 7, 29, 33}, {ISA_OP_VRELU, 7, 5, 9},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sim_config c;
    sb_round_config(&c, 1);
    c.vector_div_cycles_per_repeat = 7;
    c.vector_transcendental_cycles_per_repeat = cases[i].transc;
    fixture f;
    setup_with(&f, &c);
    isa_insn in = isa_op_info(cases[i].op)->format[1] == 'b'
                      ? ib_vbinary_n(cases[i].op, ISA_FP32, 0x10000, 0, 0x8000, 200)
                      : ib_vunary_n(cases[i].op, ISA_FP32, 0x10000, 0, 200);
    issue(&f, in);
    assert_int_equal(run(&f), CS_OK);
    assert_times(&f, 0, 1, cases[i].busy, cases[i].end);
    assert_int_equal(f.res.stats.core[0].path_bytes[ISA_PATH_VECTOR], 4 * 256);
    teardown(&f);
  }
}

/* ---- a whole tile ------------------------------------------------------------------------- */

/* C (16 x 32) = A (16 x 64) · B (64 x 32), int8, out through DEQF16 to GM. Operands as docs/ISA.md
 * builds them (mb = 1, kb = 2, nb = 2; q = 2 fractals per int8 square). One dispatch a cycle:
 * instruction i enters its queue at cycle i + 1.
 *   0 nd2nz A (16 x 64 = 1024 B) MTE2: 1 .. 17 (64 B/cycle), done 17 + 10 + 100 = 127
 *   1 nd2nz B (64 x 32 = 2048 B) MTE2: starts when A's stream ends, 17 .. 49, done 159
 *   2 set_flag MTE2->MTE1: leaves the MTE2 queue at 49, fires when A and B are done: 159
 *   3 wait_flag MTE2->MTE1: MTE1 released at 159
 *   4 load_l0a, 2 fractals (1024 B at 256): 159 .. 163, done 168
 *   5 load_l0b k-block 0, one square = 1024 B at 128: 163 .. 171, done 176
 *   6 load_l0b k-block 1: 171 .. 179, done 184
 *   7 set_flag MTE1->M: fires when both loads are done: 184
 *   8 wait_flag MTE1->M: M released at 184
 *   9 mmad 16 x 32 x 64: 1 x 2 x 2 = 4 + 2 = 6 cycles: 184 .. 190, done 193
 *  10 set_flag M->FIX: fires at 193
 *  11 wait_flag M->FIX: FIX released at 193
 *  12 fixpipe 16 x 32 fp16 = 1024 B at min(64 x 2, HBM 128) = 128 B/cycle: 193 .. 201,
 *     done 201 + 7 + 100 = 308.
 * Total 308 cycles, no hazards. */
static void build_tile(fixture *f) {
  issue(f, ib_nd2nz(ISA_INT8, 0, f->a, 16, 64));
  issue(f, ib_nd2nz(ISA_INT8, 0x1000, f->b, 64, 32));
  issue(f, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  issue(f, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  issue(f, ib_load2d(ISA_OP_LOAD_L0A, ISA_INT8, 0, 0, 0, 2, 1, 0));
  issue(f, ib_load2d(ISA_OP_LOAD_L0B, ISA_INT8, 0, 0x1000, 0, 1, 4, 1));
  issue(f, ib_load2d(ISA_OP_LOAD_L0B, ISA_INT8, 1024, 0x1000, 2, 1, 4, 1));
  issue(f, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE1, ISA_PIPE_M, 0));
  issue(f, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE1, ISA_PIPE_M, 0));
  issue(f, ib_mmad(ISA_INT8, 16, 32, 64));
  issue(f, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_M, ISA_PIPE_FIX, 0));
  issue(f, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_M, ISA_PIPE_FIX, 0));
  issue(f, ib_fixpipe_nd(ISA_MEM_GM, f->c, ISA_QUANT_DEQF16, ISA_FP16, 16, 32));
}

static void test_sim_cube_single_tile_pipeline(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  build_tile(&f);
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 17, 127);
  assert_times(&f, 1, 17, 49, 159);
  assert_times(&f, 2, 159, 159, 159);
  assert_times(&f, 3, 159, 159, 159);
  assert_times(&f, 4, 159, 163, 168);
  assert_times(&f, 5, 163, 171, 176);
  assert_times(&f, 6, 171, 179, 184);
  assert_times(&f, 7, 184, 184, 184);
  assert_times(&f, 8, 184, 184, 184);
  assert_times(&f, 9, 184, 190, 193);
  assert_times(&f, 10, 193, 193, 193);
  assert_times(&f, 11, 193, 193, 193);
  assert_times(&f, 12, 193, 201, 308);
  assert_int_equal(f.res.total_cycles, 308);
  assert_int_equal(f.res.hazard_count, 0);
  const sim_core_stats *k = &f.res.stats.core[0];
  assert_int_equal(k->pipe_busy_cycles[ISA_PIPE_MTE2], 16 + 32);
  assert_int_equal(k->pipe_busy_cycles[ISA_PIPE_MTE1], 4 + 8 + 8);
  assert_int_equal(k->pipe_busy_cycles[ISA_PIPE_M], 6);
  assert_int_equal(k->pipe_busy_cycles[ISA_PIPE_FIX], 8);
  assert_int_equal(f.res.stats.macs, 16 * 32 * 64);
  assert_int_equal(f.res.stats.gm_read_bytes, 1024 + 2048);
  assert_int_equal(f.res.stats.gm_write_bytes, 1024);
  teardown(&f);
}

/* ---- flags, barriers, queues -------------------------------------------------------------- */

/* set_flag does not hold its own pipe: the GM -> UB copy after it on MTE2 starts when the first
 * copy frees the pipe (17), long before the set fires (127).
 *   0 copy_gm_l1 1024 B: 1 .. 17, done 127
 *   1 set_flag MTE2->MTE1: leaves the queue at 17, fires at 127
 *   2 copy_gm_ub 1024 B: 17 .. 33, done 143
 *   3 wait_flag MTE2->MTE1: 127
 *   4 copy_l1_bt 64 B: 127 .. 129, done 134
 * Total 143: the last GM copy. Had the set held MTE2 until it fired, copy 2 would run 127 .. 143
 * and complete at 253. */
static void test_sim_cube_set_flag_does_not_block_its_pipe(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  issue(&f, ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_GM, f.a, 1024));
  issue(&f, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  issue(&f, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.b, 1024));
  issue(&f, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
  issue(&f, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 64));
  assert_int_equal(run(&f), CS_OK);
  assert_times(&f, 0, 1, 17, 127);
  assert_times(&f, 1, 127, 127, 127);
  assert_times(&f, 2, 17, 33, 143);
  assert_times(&f, 3, 127, 127, 127);
  assert_times(&f, 4, 127, 129, 134);
  assert_int_equal(f.res.total_cycles, 143);
  assert_int_equal(f.res.hazard_count, 0);
  teardown(&f);
}

/* pipe_barrier(MTE2) holds MTE2 until its earlier work completes, and nothing else:
 *   0 copy_gm_ub 1024 B: 1 .. 17, done 127
 *   1 pipe_barrier MTE2: passes at 127
 *   2 copy_gm_ub 64 B: 127 .. 128, done 238 (without the barrier: 17 .. 18, done 128)
 *   3 copy_l1_bt 64 B on MTE1, after the barrier in program order: enters at 4, 4 .. 6, done 11
 * (Without the barrier, a set_flag S->V that nothing waits for keeps the indices.) */
static void test_sim_cube_pipe_barrier_holds_one_pipe(void **state) {
  (void)state;
  for (int with_barrier = 1; with_barrier >= 0; with_barrier--) {
    fixture f;
    setup(&f);
    issue(&f, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, f.a, 1024));
    issue(&f, with_barrier ? ib_barrier(ISA_PIPE_MTE2) : ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_S, ISA_PIPE_V, 0));
    issue(&f, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x400, ISA_MEM_GM, f.b, 64));
    issue(&f, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 64));
    assert_int_equal(run(&f), CS_OK);
    assert_times(&f, 0, 1, 17, 127);
    if (with_barrier) {
      assert_times(&f, 1, 127, 127, 127);
      assert_times(&f, 2, 127, 128, 238);
      assert_int_equal(f.res.total_cycles, 238);
    } else {
      assert_times(&f, 2, 17, 18, 128);
      assert_int_equal(f.res.total_cycles, 128);
    }
    assert_times(&f, 3, 4, 6, 11);
    teardown(&f);
  }
}

/* Queues of depth 1: the wait_flag fills the MTE1 queue, the copy behind it cannot enter, so
 * dispatch stops there and never reaches the set_flag that would release the wait: a deadlock,
 * reported at cycle 2 (the copy's dispatch slot). With queues of 2 the copy waits in the queue,
 * the set enters MTE2 at 3 and fires at once (MTE2 is idle), the wait passes at 3 and the copy
 * runs 3 .. 5, done at 10. */
static void test_sim_cube_full_queue_deadlocks(void **state) {
  (void)state;
  for (uint64_t depth = 1; depth <= 2; depth++) {
    sim_config c;
    sb_round_config(&c, 1);
    c.mte2_queue_depth = c.mte1_queue_depth = c.cube_queue_depth = depth;
    c.fixpipe_queue_depth = c.mte3_queue_depth = c.vector_queue_depth = depth;
    fixture f;
    setup_with(&f, &c);
    issue(&f, ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
    issue(&f, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0, 64));
    issue(&f, ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0));
    if (depth == 2) {
      assert_int_equal(run(&f), CS_OK);
      assert_times(&f, 0, 3, 3, 3);
      assert_times(&f, 1, 3, 5, 10);
      assert_times(&f, 2, 3, 3, 3);
      assert_int_equal(f.res.total_cycles, 10);
      teardown(&f);
      continue;
    }
    assert_int_equal(run(&f), CS_EDEADLOCK);
    assert_true(f.res.deadlocked);
    assert_int_equal(f.res.deadlock.core, 0);
    assert_int_equal(f.res.deadlock.index, 0);
    assert_int_equal(f.res.deadlock.insn.op, ISA_OP_WAIT_FLAG);
    assert_int_equal(f.res.deadlock.f.cause, ISA_FAULT_DEADLOCK);
    assert_string_equal(f.res.deadlock.f.operand, "event_id");
    assert_int_equal(f.res.deadlock.f.value, 0);
    assert_string_equal(f.res.deadlock.f.msg,
                        "wait_flag MTE2->MTE1 #0 can never pass: its set_flag waits, directly or "
                        "not, for it");
    assert_string_equal(f.err.msg,
                        "deadlock at cycle 2: core 0: a circular wait: MTE1 waits at instruction 0 "
                        "(wait_flag MTE2->MTE1 #0) for its set_flag, instruction 2, not yet "
                        "dispatched (dispatch is held at instruction 1); dispatch is held at "
                        "instruction 1 (copy_l1_bt): the MTE1 queue is full (depth 1) behind "
                        "instruction 0 (wait_flag).");
    assert_string_equal(f.res.deadlock_msg, f.err.msg);
    /* nothing ran: the copy never entered its queue */
    assert_false(f.t.seen[1]);
    teardown(&f);
  }
}

/* The UB bank rule (vector.ub_bank_groups = 16: 32-byte blocks interleaved over 16 groups, one
 * block per group a beat for the reads and one for the writes; Ascend C's bank-conflict guide's
 * own examples): a repeat takes as many cycles as the most blocks it reads from one group or
 * writes to one, at least its ALU cycles. fp16 vadd, 128 lanes = 8 blocks a repeat, from cycle 1,
 * latency 4 (sb_round_config), vector.insn_cycles 0 unless said:
 *   src0 0x0, src1 0x8000: the same 8 groups, 2 beats a repeat; 4 repeats: busy to 9, done 13;
 *   src1 0x8100 (256 B off): groups 8-15 against 0-7, 1 beat: busy to 5, done 9;
 *   src0 = src1 = 0x0: the same blocks read once: 1 beat, busy to 5;
 *   dst at 0x1FE00, block stride 16 (512 B): its 8 blocks in one group, 8 beats for the one repeat:
 *   busy to 9, done 13 (the guide's first write example); block stride 8: groups 0, 8, 0, 8, ...,
 *   4 beats: busy to 5 (its second);
 *   src0 repeat stride 8 blocks, src1 (0x8000) 9 blocks, 20 repeats: repeat r's windows of 8
 *   groups are r apart, disjoint only for r = 8: 19 x 2 + 1 = 39 beats: busy to 40, done 44;
 *   insn_cycles 3 with the 256 B offset: 3 + 4, busy to 8; ub_bank_groups 0: no rule, busy to 5;
 *   vdiv at 7 cycles a repeat over conflicting sources: 7 > 2, 4 x 7 = 28, busy to 29. */
static void test_sim_cube_vector_ub_bank_groups(void **state) {
  (void)state;
  static const struct {
    isa_op op;
    uint64_t dst, src0, src1;
    uint32_t count, dst_blk, src0_rep, src1_rep;
    uint64_t insn, groups, busy, end;
  } cases[] = {
      {ISA_OP_VADD, 0x10000, 0x0, 0x8000, 512, 1, 8, 8, 0, 16, 9, 13},
      {ISA_OP_VADD, 0x10000, 0x0, 0x8100, 512, 1, 8, 8, 0, 16, 5, 9},
      {ISA_OP_VADD, 0x10000, 0x0, 0x0, 512, 1, 8, 8, 0, 16, 5, 9},
      {ISA_OP_VADD, 0x1FE00, 0x0, 0x100, 128, 16, 8, 8, 0, 16, 9, 13},
      {ISA_OP_VADD, 0x1FE00, 0x0, 0x100, 128, 8, 8, 8, 0, 16, 5, 9},
      {ISA_OP_VADD, 0x10000, 0x0, 0x8000, 20 * 128, 1, 8, 9, 0, 16, 40, 44},
      {ISA_OP_VADD, 0x10000, 0x0, 0x8100, 512, 1, 8, 8, 3, 16, 8, 12},
      {ISA_OP_VADD, 0x10000, 0x0, 0x8000, 512, 1, 8, 8, 0, 0, 5, 9},
      {ISA_OP_VDIV, 0x10000, 0x0, 0x8000, 512, 1, 8, 8, 0, 16, 29, 33},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sim_config c;
    sb_round_config(&c, 1);
    c.vector_ub_bank_groups = cases[i].groups;
    c.vector_insn_cycles = cases[i].insn;
    c.vector_div_cycles_per_repeat = 7;
    fixture f;
    setup_with(&f, &c);
    isa_insn in = ib_vbinary_n(cases[i].op, ISA_FP16, cases[i].dst, cases[i].src0, cases[i].src1, cases[i].count);
    in.u.vbinary.dst_blk_stride = cases[i].dst_blk;
    in.u.vbinary.src0_rep_stride = cases[i].src0_rep;
    in.u.vbinary.src1_rep_stride = cases[i].src1_rep;
    issue(&f, in);
    assert_int_equal(run(&f), CS_OK);
    if (f.t.busy_end[0] != cases[i].busy) fail_msg("case %zu", i);
    assert_times(&f, 0, 1, cases[i].busy, cases[i].end);
    teardown(&f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_cube_mmad_per_dtype_at_the_fractal_boundary),
      cmocka_unit_test(test_sim_cube_k0_follows_macs_per_cycle),
      cmocka_unit_test(test_sim_cube_loads_use_their_link_rates),
      cmocka_unit_test(test_sim_cube_bias_table_and_fixpipe_buffer_copies),
      cmocka_unit_test(test_sim_cube_fixpipe_rate_is_a_gm_bandwidth_cap),
      cmocka_unit_test(test_sim_cube_vector_ops_use_the_vector_rate),
      cmocka_unit_test(test_sim_cube_vector_rate_classes),
      cmocka_unit_test(test_sim_cube_vector_ub_bank_groups),
      cmocka_unit_test(test_sim_cube_single_tile_pipeline),
      cmocka_unit_test(test_sim_cube_set_flag_does_not_block_its_pipe),
      cmocka_unit_test(test_sim_cube_pipe_barrier_holds_one_pipe),
      cmocka_unit_test(test_sim_cube_full_queue_deadlocks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
