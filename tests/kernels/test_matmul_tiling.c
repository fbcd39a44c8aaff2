/* What each tiling field does to the instruction streams of `cubesim run matmul` (fp16, generated
 * inputs, timing-only): the GM -> L1 copies (their number, rows and columns, L1 buffers), the
 * L0 buffers the loads and mmads use, the mmad sizes, and where each core's fixpipes write C
 * (which blocks a core computes, in which order). Every expectation is counted by hand from the
 * field's meaning (docs/KERNELS.md, "Tiling"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kn_op.h"

/* ---- running and reading the streams --------------------------------------------------------- */

typedef struct run {
  kn_ctx *ctx;
  sim *s;
  uint64_t a, a_end, b, b_end, c; /* GM tensors */
  uint32_t n;                     /* columns of C */
} run;

/* The whole tiling as attributes: a matmul of m x n x k on one core in one block, tiles of
 * 64 x 64 x 32, one buffer everywhere, row by row. `over` replaces some (NAME=VALUE, NULL-ended). */
static run mm_run(unsigned cores, uint32_t m, uint32_t n, uint32_t k, const char *const *over) {
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = cores;
  kn_run_options o = {.cfg = &cfg, .timing_only = true, .seed = 1};
  run r;
  memset(&r, 0, sizeof r);
  cs_err err;
  assert_int_equal(kn_ctx_create(kn_op_find("matmul"), &o, &r.ctx, &err), CS_OK);
  char dims[6][32];
  snprintf(dims[0], 32, "m=%u", m);
  snprintf(dims[1], 32, "n=%u", n);
  snprintf(dims[2], 32, "k=%u", k);
  snprintf(dims[3], 32, "single_core_m=%u", m);
  snprintf(dims[4], 32, "single_core_n=%u", n);
  snprintf(dims[5], 32, "single_core_k=%u", k);
  const char *base[] = {"in_dtype=fp16", dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], "used_core_num=1",
                        "base_m=64", "base_n=64", "base_k=32", "depth_a1=1", "depth_b1=1", "step_m=1", "step_n=1",
                        "step_ka=1", "step_kb=1", "iterate_order=1", "db_l0a=1", "db_l0b=1", "db_l0c=1", "l2_split=1",
                        "unit_flag=0", "core_split=block"};
  for (int pass = 0; pass < 2; pass++) {
    const char *const *list = pass ? over : base;
    size_t count = pass ? 0 : sizeof base / sizeof base[0];
    if (pass)
      while (over && over[count]) count++;
    for (size_t i = 0; i < count; i++) {
      char name[64];
      const char *eq = strchr(list[i], '=');
      snprintf(name, sizeof name, "%.*s", (int)(eq - list[i]), list[i]);
      if (kn_ctx_set_attr(r.ctx, name, eq + 1, &err) != CS_OK) fail_msg("%s: %s", list[i], err.msg);
    }
  }
  if (kn_ctx_run(r.ctx, &err) != CS_OK) fail_msg("run: %s", err.msg);
  r.s = rt_device_sim(kn_device(r.ctx));
  r.n = n;
  for (size_t i = 0; i < sim_gm_tensor_count(r.s); i++) {
    const char *name;
    uint64_t addr, bytes;
    sim_gm_tensor_at(r.s, i, &name, &addr, &bytes);
    if (strcmp(name, "A") == 0) r.a = addr, r.a_end = addr + bytes;
    if (strcmp(name, "B") == 0) r.b = addr, r.b_end = addr + bytes;
    if (strcmp(name, "C") == 0) r.c = addr;
  }
  return r;
}

static void mm_free(run *r) { kn_ctx_destroy(r->ctx); }

static const isa_insn *stream(const run *r, unsigned core, size_t *len) {
  sim_core *c = sim_get_core(r->s, core);
  *len = sim_core_stream_len(c);
  return sim_core_stream(c);
}

/* The ND -> NZ copies of A (or B) on a core: their count, and each one's rows x columns and L1
 * address listed in `shapes` (up to max). */
typedef struct copy {
  uint32_t rows, cols;
  uint64_t l1;
} copy;

static size_t copies(const run *r, unsigned core, bool of_a, copy *out, size_t max) {
  size_t len, n = 0;
  const isa_insn *s = stream(r, core, &len);
  for (size_t i = 0; i < len; i++) {
    if (s[i].op != ISA_OP_COPY_GM_L1_ND2NZ) continue;
    uint64_t src = s[i].u.nd2nz.src.off;
    bool in_a = src >= r->a && src < r->a_end;
    if (in_a != of_a) continue;
    if (n < max) out[n] = (copy){s[i].u.nd2nz.n_value, s[i].u.nd2nz.d_value, s[i].u.nd2nz.dst.off};
    n++;
  }
  return n;
}

/* Where the fixpipes of a core write C: (row, column) of each tile, in order. */
static size_t fixpipes(const run *r, unsigned core, uint32_t (*at)[2], size_t max) {
  size_t len, n = 0;
  const isa_insn *s = stream(r, core, &len);
  for (size_t i = 0; i < len; i++) {
    if (s[i].op != ISA_OP_FIXPIPE) continue;
    uint64_t e = (s[i].u.fixpipe.dst.off - r->c) / 4; /* fp32 C */
    if (n < max) at[n][0] = (uint32_t)(e / r->n), at[n][1] = (uint32_t)(e % r->n);
    n++;
  }
  return n;
}

static void expect_tiles(const run *r, unsigned core, const uint32_t (*want)[2], size_t n) {
  uint32_t got[64][2];
  assert_int_equal(fixpipes(r, core, got, 64), n);
  for (size_t i = 0; i < n; i++) {
    char g[48], w[48];
    snprintf(g, sizeof g, "core %u tile %zu at (%u, %u)", core, i, got[i][0], got[i][1]);
    snprintf(w, sizeof w, "core %u tile %zu at (%u, %u)", core, i, want[i][0], want[i][1]);
    assert_string_equal(g, w);
  }
}

/* Distinct values of one field over the instructions of op on a core. */
static size_t distinct(const run *r, unsigned core, isa_op op, uint64_t (*field)(const isa_insn *)) {
  size_t len, n = 0;
  const isa_insn *s = stream(r, core, &len);
  uint64_t seen[64];
  for (size_t i = 0; i < len; i++) {
    if (s[i].op != op) continue;
    uint64_t v = field(&s[i]);
    size_t j = 0;
    while (j < n && seen[j] != v) j++;
    if (j == n && n < 64) seen[n++] = v;
  }
  return n;
}

static uint64_t nd2nz_dst(const isa_insn *in) { return in->u.nd2nz.dst.off; }
static uint64_t load_dst(const isa_insn *in) { return in->u.load2d.dst.off; }
static uint64_t load3d_dst(const isa_insn *in) { return in->u.load3d.dst.off; }
static uint64_t mmad_dst(const isa_insn *in) { return in->u.mmad.dst.off; }
static uint64_t mmad_k(const isa_insn *in) { return in->u.mmad.k; }

static size_t count_op(const run *r, unsigned core, isa_op op) {
  size_t len, n = 0;
  const isa_insn *s = stream(r, core, &len);
  for (size_t i = 0; i < len; i++) n += s[i].op == op;
  return n;
}

/* ---- L1: depth and steps ---------------------------------------------------------------------- */

/* 256^3 in 4 x 4 tiles of 64 x 64, K in 8 base_k of 32. */
static void test_matmul_tiling_step_ka_sizes_the_copies_of_a(void **state) {
  (void)state;
  copy c[200];
  /* one base_k per load: 16 tiles x 8 = 128 copies of 64 rows x 32 columns, one L1 buffer */
  run r = mm_run(1, 256, 256, 256, NULL);
  assert_int_equal(copies(&r, 0, true, c, 200), 128);
  for (size_t i = 0; i < 128; i++) assert_true(c[i].rows == 64 && c[i].cols == 32 && c[i].l1 == c[0].l1);
  assert_int_equal(copies(&r, 0, false, c, 200), 128); /* B: 32 K rows x 64 columns */
  assert_true(c[0].rows == 32 && c[0].cols == 64);
  mm_free(&r);
  /* step_ka 4, two buffers (depth_a1 8): 2 copies of 64 x 128 a tile, in two L1 buffers taken in turn */
  const char *two[] = {"step_ka=4", "depth_a1=8", NULL};
  r = mm_run(1, 256, 256, 256, two);
  assert_int_equal(copies(&r, 0, true, c, 200), 32);
  for (size_t i = 0; i < 32; i++) assert_true(c[i].rows == 64 && c[i].cols == 128 && c[i].l1 == c[i % 2].l1);
  assert_true(c[0].l1 != c[1].l1);
  assert_int_equal(copies(&r, 0, false, c, 200), 128); /* B keeps step_kb 1 */
  mm_free(&r);
  /* the same loads in one buffer (depth_a1 4) */
  const char *one[] = {"step_ka=4", "depth_a1=4", NULL};
  r = mm_run(1, 256, 256, 256, one);
  assert_int_equal(copies(&r, 0, true, c, 200), 32);
  assert_int_equal(distinct(&r, 0, ISA_OP_COPY_GM_L1_ND2NZ, nd2nz_dst), 2); /* one A buffer, one B buffer */
  mm_free(&r);
  /* all of K (step_ka 8): a row of tiles keeps its A, so 4 copies of 64 x 256 */
  const char *full[] = {"step_ka=8", "depth_a1=8", NULL};
  r = mm_run(1, 256, 256, 256, full);
  assert_int_equal(copies(&r, 0, true, c, 200), 4);
  assert_true(c[0].rows == 64 && c[0].cols == 256);
  mm_free(&r);
  /* and with step_m 2 (two tiles of rows per load): 2 copies of 128 x 256 */
  const char *sm[] = {"step_ka=8", "step_m=2", "depth_a1=16", NULL};
  r = mm_run(1, 256, 256, 256, sm);
  assert_int_equal(copies(&r, 0, true, c, 200), 2);
  assert_true(c[0].rows == 128 && c[0].cols == 256);
  mm_free(&r);
}

/* B not transposed is copied K rows x N columns. All of K with step_n 2, M first: one copy of
 * 256 x 128 per column of 2 tiles, kept while the walk goes down M; N first needs it again on
 * every row of tiles. */
static void test_matmul_tiling_step_n_and_order_reuse_b(void **state) {
  (void)state;
  copy c[64];
  const char *m_first[] = {"step_kb=8", "step_n=2", "depth_b1=16", "iterate_order=0", NULL};
  run r = mm_run(1, 256, 256, 256, m_first);
  assert_int_equal(copies(&r, 0, false, c, 64), 2);
  assert_true(c[0].rows == 256 && c[0].cols == 128);
  mm_free(&r);
  const char *n_first[] = {"step_kb=8", "step_n=2", "depth_b1=16", "iterate_order=1", NULL};
  r = mm_run(1, 256, 256, 256, n_first);
  assert_int_equal(copies(&r, 0, false, c, 64), 8);
  mm_free(&r);
  /* step_kb 2 with step_ka 4: K steps of 2 base_k; B copied per step, A every second */
  const char *mixed[] = {"step_ka=4", "depth_a1=8", "step_kb=2", "depth_b1=4", NULL};
  r = mm_run(1, 256, 256, 256, mixed);
  assert_int_equal(copies(&r, 0, true, c, 64), 32);
  assert_int_equal(copies(&r, 0, false, c, 64), 64);
  assert_true(c[0].rows == 64 && c[0].cols == 64);
  mm_free(&r);
}

/* ---- L0 and the mmads ------------------------------------------------------------------------- */

static void test_matmul_tiling_l0_buffers_and_bases(void **state) {
  (void)state;
  /* A not transposed: one load3d per mmad, each filling its L0A buffer whole (one buffer: one
   * destination; two: two) */
  run r = mm_run(1, 128, 128, 128, NULL);
  assert_int_equal(distinct(&r, 0, ISA_OP_LOAD3D_L0A, load3d_dst), 1);
  assert_int_equal(count_op(&r, 0, ISA_OP_LOAD_L0A), 0);
  assert_int_equal(distinct(&r, 0, ISA_OP_MMAD, mmad_dst), 1);
  assert_int_equal(count_op(&r, 0, ISA_OP_MMAD), 4 * 4);
  assert_int_equal(count_op(&r, 0, ISA_OP_LOAD3D_L0A), 4 * 4);
  mm_free(&r);
  const char *db[] = {"db_l0a=2", "db_l0b=2", "db_l0c=2", NULL};
  r = mm_run(1, 128, 128, 128, db);
  assert_int_equal(distinct(&r, 0, ISA_OP_LOAD3D_L0A, load3d_dst), 2);
  /* B not transposed: a transposing load per 16 rows of K (2 a base_k of 32), in 2 buffers */
  assert_int_equal(distinct(&r, 0, ISA_OP_LOAD_L0B, load_dst), 4);
  assert_int_equal(distinct(&r, 0, ISA_OP_MMAD, mmad_dst), 2);
  mm_free(&r);
  /* base_k 64: half the mmads, each of k 64; base 32 x 128: 4 x 1 tiles */
  const char *bk[] = {"base_k=64", "base_m=32", "base_n=128", NULL};
  r = mm_run(1, 128, 128, 128, bk);
  assert_int_equal(count_op(&r, 0, ISA_OP_MMAD), 4 * 2);
  assert_int_equal(distinct(&r, 0, ISA_OP_MMAD, mmad_k), 1);
  size_t len;
  const isa_insn *s = stream(&r, 0, &len);
  for (size_t i = 0; i < len; i++)
    if (s[i].op == ISA_OP_MMAD) assert_true(s[i].u.mmad.m == 32 && s[i].u.mmad.n == 128 && s[i].u.mmad.k == 64);
  mm_free(&r);
}

/* ---- the walk and the cores ------------------------------------------------------------------- */

static void test_matmul_tiling_iterate_order(void **state) {
  (void)state;
  run r = mm_run(1, 128, 192, 32, NULL);
  const uint32_t rows[6][2] = {{0, 0}, {0, 64}, {0, 128}, {64, 0}, {64, 64}, {64, 128}};
  expect_tiles(&r, 0, rows, 6);
  mm_free(&r);
  const char *m_first[] = {"iterate_order=0", NULL};
  r = mm_run(1, 128, 192, 32, m_first);
  const uint32_t cols[6][2] = {{0, 0}, {64, 0}, {0, 64}, {64, 64}, {0, 128}, {64, 128}};
  expect_tiles(&r, 0, cols, 6);
  mm_free(&r);
}

/* 128 x 128 in 2 x 2 blocks of 64 x 64 on 4 cores, tiles of 32: blocks go down M first, as in
 * the Ascend samples (core i: M block i % 2, N block i / 2). */
static void test_matmul_tiling_blocks_per_core(void **state) {
  (void)state;
  const char *grid[] = {"single_core_m=64", "single_core_n=64", "used_core_num=4", "base_m=32", "base_n=32", NULL};
  run r = mm_run(4, 128, 128, 32, grid);
  const uint32_t c0[4][2] = {{0, 0}, {0, 32}, {32, 0}, {32, 32}}, c1[4][2] = {{64, 0}, {64, 32}, {96, 0}, {96, 32}};
  const uint32_t c2[4][2] = {{0, 64}, {0, 96}, {32, 64}, {32, 96}}, c3[4][2] = {{64, 64}, {64, 96}, {96, 64}, {96, 96}};
  expect_tiles(&r, 0, c0, 4);
  expect_tiles(&r, 1, c1, 4);
  expect_tiles(&r, 2, c2, 4);
  expect_tiles(&r, 3, c3, 4);
  mm_free(&r);
  /* two cores for four blocks: core 0 takes blocks 0 and 2, core 1 blocks 1 and 3, the others none */
  const char *two[] = {"single_core_m=64", "single_core_n=64", "used_core_num=2", "base_m=32", "base_n=32", NULL};
  r = mm_run(4, 128, 128, 32, two);
  uint32_t both[8][2];
  memcpy(both, c0, sizeof c0);
  memcpy(both + 4, c2, sizeof c2);
  expect_tiles(&r, 0, (const uint32_t(*)[2])both, 8);
  size_t len;
  stream(&r, 2, &len);
  assert_int_equal(len, 0);
  mm_free(&r);
  /* blocks 64 x 48 over 128 x 128: 2 x 3 blocks, the last column 32 wide (a tail, like the A2
   * sample's 512 columns of 1536) */
  const char *tail[] = {"single_core_m=64", "single_core_n=48", "used_core_num=6", "base_m=64", "base_n=32", NULL};
  r = mm_run(6, 128, 128, 32, tail);
  const uint32_t c5[1][2] = {{64, 96}}, c4[1][2] = {{0, 96}}, c3b[2][2] = {{64, 48}, {64, 80}};
  expect_tiles(&r, 5, c5, 1);
  expect_tiles(&r, 4, c4, 1);
  expect_tiles(&r, 3, c3b, 2);
  size_t n5;
  const isa_insn *s = stream(&r, 5, &n5);
  for (size_t i = 0; i < n5; i++)
    if (s[i].op == ISA_OP_MMAD) assert_int_equal(s[i].u.mmad.n, 32);
  mm_free(&r);
}

/* 256 x 128 in blocks of 64 x 64 on 4 cores. Without rounds: 4 x 2 blocks, core 0 takes blocks
 * 0 and 4, the top left and the one to its right. In two L2 rounds of 128 rows: 2 x 2 blocks a
 * round, core 0 takes the top left of each round. */
static void test_matmul_tiling_l2_split_rounds(void **state) {
  (void)state;
  const char *one[] = {"single_core_m=64", "single_core_n=64", "used_core_num=4", NULL};
  run r = mm_run(4, 256, 128, 32, one);
  const uint32_t flat[2][2] = {{0, 0}, {0, 64}};
  expect_tiles(&r, 0, flat, 2);
  mm_free(&r);
  const char *two[] = {"single_core_m=64", "single_core_n=64", "used_core_num=4", "l2_split=2", NULL};
  r = mm_run(4, 256, 128, 32, two);
  const uint32_t rounds[2][2] = {{0, 0}, {128, 0}};
  expect_tiles(&r, 0, rounds, 2);
  const uint32_t c2[2][2] = {{0, 64}, {128, 64}};
  expect_tiles(&r, 2, c2, 2);
  mm_free(&r);
  /* round-robin over rounds: core 0 of 2 takes tiles 0, 2, ... of the top half, then of the bottom */
  const char *rr[] = {"core_split=round_robin", "used_core_num=2", "l2_split=2", "single_core_m=128", "single_core_n=128",
                      NULL};
  r = mm_run(2, 256, 128, 32, rr);
  const uint32_t c0[4][2] = {{0, 0}, {64, 0}, {128, 0}, {192, 0}};
  expect_tiles(&r, 0, c0, 4);
  mm_free(&r);
}

/* Round-robin: the tiles of C, in iterate order, dealt one at a time. */
static void test_matmul_tiling_round_robin(void **state) {
  (void)state;
  const char *rr[] = {"core_split=round_robin", "used_core_num=3", NULL};
  run r = mm_run(3, 128, 192, 32, rr);
  const uint32_t c0[2][2] = {{0, 0}, {64, 0}}, c1[2][2] = {{0, 64}, {64, 64}}, c2[2][2] = {{0, 128}, {64, 128}};
  expect_tiles(&r, 0, c0, 2);
  expect_tiles(&r, 1, c1, 2);
  expect_tiles(&r, 2, c2, 2);
  mm_free(&r);
  const char *rr0[] = {"core_split=round_robin", "used_core_num=3", "iterate_order=0", NULL};
  r = mm_run(3, 128, 192, 32, rr0);
  const uint32_t d0[2][2] = {{0, 0}, {64, 64}}, d1[2][2] = {{64, 0}, {0, 128}};
  expect_tiles(&r, 0, d0, 2);
  expect_tiles(&r, 1, d1, 2);
  mm_free(&r);
}

/* UnitFlag: the mmads of a tile carry 2, its last one 3, and the fixpipe 3 (Ascend's values). */
static void test_matmul_tiling_unit_flag(void **state) {
  (void)state;
  for (int on = 0; on < 2; on++) {
    const char *uf[] = {on ? "unit_flag=1" : "unit_flag=0", NULL};
    run r = mm_run(1, 128, 128, 128, uf); /* 2 x 2 tiles, 4 mmads each */
    size_t len, mmads = 0, fix = 0;
    const isa_insn *s = stream(&r, 0, &len);
    for (size_t i = 0; i < len; i++) {
      if (s[i].op == ISA_OP_MMAD) assert_int_equal(s[i].u.mmad.unit_flag, on ? (mmads++ % 4 == 3 ? 3 : 2) : 0);
      if (s[i].op == ISA_OP_FIXPIPE) {
        assert_int_equal(s[i].u.fixpipe.unit_flag, on ? 3 : 0);
        fix++;
      }
    }
    assert_int_equal(fix, 4);
    if (on) assert_int_equal(mmads, 16);
    /* with UnitFlag mmad and fixpipe hand L0C over themselves: no flag between M and FIX */
    size_t m_fix_flags = 0;
    for (size_t i = 0; i < len; i++)
      if ((s[i].op == ISA_OP_SET_FLAG || s[i].op == ISA_OP_WAIT_FLAG) &&
          ((s[i].u.flag.src_pipe == ISA_PIPE_M && s[i].u.flag.dst_pipe == ISA_PIPE_FIX) ||
           (s[i].u.flag.src_pipe == ISA_PIPE_FIX && s[i].u.flag.dst_pipe == ISA_PIPE_M)))
        m_fix_flags++;
    /* without: per tile a set and a wait each way, less the first tile's free wait and plus
     * the end of the block's: 4 x 4 */
    assert_int_equal(m_fix_flags, on ? 0 : 16);
    mm_free(&r);
  }
}

/* Flags between MTE1 and M: with as many L0A as L0B buffers the two change hands together by
 * A2's events (per mmad a set and a wait each way: 4 x 16), with 2 and 1 each by its own. */
static size_t mte1_m_flags(const run *r) {
  size_t len, n = 0;
  const isa_insn *s = stream(r, 0, &len);
  for (size_t i = 0; i < len; i++)
    if ((s[i].op == ISA_OP_SET_FLAG || s[i].op == ISA_OP_WAIT_FLAG) &&
        ((s[i].u.flag.src_pipe == ISA_PIPE_MTE1 && s[i].u.flag.dst_pipe == ISA_PIPE_M) ||
         (s[i].u.flag.src_pipe == ISA_PIPE_M && s[i].u.flag.dst_pipe == ISA_PIPE_MTE1)))
      n++;
  return n;
}

static void test_matmul_tiling_l0_pair_shares_its_flags(void **state) {
  (void)state;
  run r = mm_run(1, 128, 128, 128, NULL); /* 16 mmads, one buffer each */
  assert_int_equal(mte1_m_flags(&r), 4 * 16);
  mm_free(&r);
  const char *two[] = {"db_l0a=2", "db_l0b=2", NULL};
  r = mm_run(1, 128, 128, 128, two);
  assert_int_equal(mte1_m_flags(&r), 4 * 16);
  mm_free(&r);
  const char *odd[] = {"db_l0a=2", NULL};
  r = mm_run(1, 128, 128, 128, odd);
  assert_int_equal(mte1_m_flags(&r), 2 * 4 * 16);
  mm_free(&r);
}

/* The scalar work of `cycles` in the stream: how many `scalar` instructions carry it. */
static size_t scalars_of(const run *r, uint32_t cycles, size_t *all) {
  size_t len, n = 0;
  const isa_insn *s = stream(r, 0, &len);
  *all = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i].op != ISA_OP_SCALAR) continue;
    (*all)++;
    n += s[i].u.scalar.cycles == cycles;
  }
  return n;
}

/* The Matmul object's scalar work (docs/TIMING.md, "The Matmul object's scalar work"): before each
 * k-step, each L1 packet copy and each tile's fixpipe, scaled with a constant tiling, none for a
 * basic-API kernel. 2 x 2 tiles of 4 k-steps each, A and B copied at every k-step: 16 k-steps,
 * 32 packets, 4 tiles. */
static void test_matmul_tiling_scalar_work(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  uint64_t step = cfg.scalar_matmul_step_cycles, pkt = cfg.scalar_matmul_copy_cycles;
  uint64_t tile = cfg.scalar_matmul_tile_cycles, pct = cfg.scalar_matmul_const_tiling_percent;
  assert_true(step != pkt && pkt != tile && step != tile);
  size_t all;
  run r = mm_run(1, 128, 128, 128, NULL);
  assert_int_equal(count_op(&r, 0, ISA_OP_COPY_GM_L1_ND2NZ), 32);
  assert_int_equal(scalars_of(&r, (uint32_t)step, &all), 16);
  assert_int_equal(scalars_of(&r, (uint32_t)pkt, &all), 32);
  assert_int_equal(scalars_of(&r, (uint32_t)tile, &all), 4);
  assert_int_equal(all, 16 + 32 + 4);
  /* each copy's scalar work comes right before its copy (the slot's wait_flag between) */
  size_t len;
  const isa_insn *s = stream(&r, 0, &len);
  for (size_t i = 0; i < len; i++) {
    if (s[i].op != ISA_OP_COPY_GM_L1_ND2NZ) continue;
    size_t j = i - 1;
    if (s[j].op == ISA_OP_WAIT_FLAG) j--;
    assert_int_equal(s[j].op, ISA_OP_SCALAR);
    assert_int_equal(s[j].u.scalar.cycles, pkt);
  }
  mm_free(&r);
  /* a constant tiling: each cost times the percentage, rounded to the nearest cycle */
  const char *ct[] = {"const_tiling=1", NULL};
  r = mm_run(1, 128, 128, 128, ct);
  assert_int_equal(scalars_of(&r, (uint32_t)((step * pct + 50) / 100), &all), 16);
  assert_int_equal(scalars_of(&r, (uint32_t)((pkt * pct + 50) / 100), &all), 32);
  assert_int_equal(scalars_of(&r, (uint32_t)((tile * pct + 50) / 100), &all), 4);
  assert_int_equal(all, 52);
  mm_free(&r);
  /* the basic API: no scalar work of the object's own */
  const char *basic[] = {"api=basic", NULL};
  r = mm_run(1, 128, 128, 128, basic);
  assert_int_equal(scalars_of(&r, (uint32_t)step, &all), 0);
  assert_int_equal(all, 0);
  mm_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_tiling_step_ka_sizes_the_copies_of_a),
      cmocka_unit_test(test_matmul_tiling_step_n_and_order_reuse_b),
      cmocka_unit_test(test_matmul_tiling_l0_buffers_and_bases),
      cmocka_unit_test(test_matmul_tiling_iterate_order),
      cmocka_unit_test(test_matmul_tiling_blocks_per_core),
      cmocka_unit_test(test_matmul_tiling_l2_split_rounds),
      cmocka_unit_test(test_matmul_tiling_round_robin),
      cmocka_unit_test(test_matmul_tiling_unit_flag),
      cmocka_unit_test(test_matmul_tiling_scalar_work),
      cmocka_unit_test(test_matmul_tiling_l0_pair_shares_its_flags),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
