/* Tests of runtime/rt.h and the launch of runtime/rt_host.h: launch over blocks and cores,
 * buffer allocation, event ids, and the queues — the exact set/wait flags a double-buffered loop
 * records, every misuse fault with its message, and a queue-based GM -> UB -> GM kernel that
 * moves data with no hazard under rt_device_run. The recorded streams are read from the machine
 * underneath (rt_device_sim). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"
#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"
#include "sim/sim.h"

/* ---- helpers ------------------------------------------------------------------------------- */

/* The 910B defaults with 4 cores (nothing here needs 24). */
static rt_device *make_device(unsigned cores) {
  sim_config c;
  sim_config_defaults(&c);
  c.chip_aic_cores = cores;
  rt_device *dev = NULL;
  cs_err err;
  assert_int_equal(rt_device_create(&c, NULL, &dev, &err), CS_OK);
  assert_int_equal(rt_device_cores(dev), cores);
  return dev;
}

/* The GM address of a new tensor of `bytes` bytes. */
static uint64_t gm_alloc(rt_device *dev, const char *name, uint64_t bytes) {
  rt_gtensor t;
  cs_err err;
  assert_int_equal(rt_gm_alloc(dev, name, ISA_UINT8, bytes, &t, &err), CS_OK);
  return t.addr;
}

/* Launches fn on one block and expects the fault message `want` (the whole rt_launch message). */
static void expect_fault(rt_kernel_fn fn, void *args, const char *want) {
  rt_device *dev = make_device(1);
  cs_err err;
  memset(&err, 0, sizeof err);
  assert_int_equal(rt_launch(dev, 1, fn, args, &err), CS_EFAULT);
  assert_string_equal(err.msg, want);
  const sim_fault *f = sim_core_fault(sim_get_core(rt_device_sim(dev), 0));
  assert_non_null(f);
  assert_int_equal(f->f.cause, ISA_FAULT_RUNTIME);
  rt_device_destroy(dev);
}

/* One expected flag or barrier of a stream: op, src pipe, dst pipe, event id (barrier: pipe in
 * src, dst and id unused). Other instructions are matched by op only. */
typedef struct want_insn {
  isa_op op;
  isa_pipe src, dst;
  int id;
} want_insn;

#define W_SET(s, d, i) {ISA_OP_SET_FLAG, ISA_PIPE_##s, ISA_PIPE_##d, i}
#define W_WAIT(s, d, i) {ISA_OP_WAIT_FLAG, ISA_PIPE_##s, ISA_PIPE_##d, i}
#define W_BAR(p) {ISA_OP_PIPE_BARRIER, ISA_PIPE_##p, ISA_PIPE_##p, -1}
#define W_OP(o) {ISA_OP_##o, ISA_PIPE_S, ISA_PIPE_S, -1}

static void describe_insn(const isa_insn *in, char *out, size_t n) {
  const char *mn = isa_op_info((isa_op)in->op)->mnemonic;
  if (in->op == ISA_OP_SET_FLAG || in->op == ISA_OP_WAIT_FLAG)
    snprintf(out, n, "%s %s->%s #%u", mn, isa_pipe_name((isa_pipe)in->u.flag.src_pipe),
             isa_pipe_name((isa_pipe)in->u.flag.dst_pipe), in->u.flag.event_id);
  else if (in->op == ISA_OP_PIPE_BARRIER)
    snprintf(out, n, "%s %s", mn, isa_pipe_name((isa_pipe)in->u.barrier.pipe));
  else
    snprintf(out, n, "%s", mn);
}

static void describe_want(const want_insn *w, char *out, size_t n) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = w->op;
  if (w->op == ISA_OP_PIPE_BARRIER) in.u.barrier.pipe = w->src;
  else {
    in.u.flag.src_pipe = w->src;
    in.u.flag.dst_pipe = w->dst;
    in.u.flag.event_id = (uint32_t)w->id;
  }
  describe_insn(&in, out, n);
}

static void expect_stream(sim_core *core, const want_insn *want, size_t nwant) {
  size_t n = sim_core_stream_len(core);
  const isa_insn *st = sim_core_stream(core);
  for (size_t i = 0; i < n && i < nwant; i++) {
    char got[96], exp[96];
    describe_insn(&st[i], got, sizeof got);
    describe_want(&want[i], exp, sizeof exp);
    if (strcmp(got, exp) != 0) fail_msg("instruction %zu: got '%s', expected '%s'", i, got, exp);
  }
  assert_int_equal(n, nwant);
}

/* ---- launch -------------------------------------------------------------------------------- */

#define LAUNCH_BLOCKS 10

typedef struct launch_log {
  uint64_t src;                  /* GM tensor every block reads */
  unsigned order[LAUNCH_BLOCKS]; /* block indices in the order they ran */
  unsigned core_of[LAUNCH_BLOCKS];
  unsigned num_seen[LAUNCH_BLOCKS];
  uint64_t off_seen[LAUNCH_BLOCKS];
  unsigned ran;
  int fail_block;                /* this block raises a fault (-1: none) */
} launch_log;

/* Each block copies 32 * (b + 1) bytes GM -> UB, so the stream says which block recorded it. */
static void launch_kernel(rt_ctx *ctx, void *args) {
  launch_log *L = args;
  unsigned b = rt_block_idx(ctx);
  L->order[L->ran++] = b;
  L->core_of[b] = rt_core_idx(ctx);
  L->num_seen[b] = rt_block_num(ctx);
  rt_ltensor t = rt_buf_alloc(ctx, RT_POS_VECIN, 32 * (b + 1), ISA_INT8, "in");
  L->off_seen[b] = t.off;
  rt_gtensor g = {L->src, ISA_INT8, 4096};
  rt_copy_gm_to_local(ctx, t, g, rt_copy_params(32 * (b + 1)));
  if ((int)b == L->fail_block) rt_fail(ctx, "block %u gives up", b);
}

static void test_rt_launch_more_blocks_than_cores(void **state) {
  (void)state;
  rt_device *dev = make_device(4);
  sim *s = rt_device_sim(dev);
  launch_log L;
  memset(&L, 0, sizeof L);
  L.src = gm_alloc(dev, "src", 4096);
  L.fail_block = -1;
  cs_err err;
  assert_int_equal(rt_launch(dev, LAUNCH_BLOCKS, launch_kernel, &L, &err), CS_OK);
  assert_int_equal(L.ran, LAUNCH_BLOCKS);
  for (unsigned b = 0; b < LAUNCH_BLOCKS; b++) {
    assert_int_equal(L.order[b], b);
    assert_int_equal(L.core_of[b], b % 4);
    assert_int_equal(L.num_seen[b], LAUNCH_BLOCKS);
    assert_int_equal(L.off_seen[b], 0); /* every block starts with empty buffers */
  }
  /* core c ran blocks c, c + 4, c + 8 in that order */
  for (unsigned c = 0; c < 4; c++) {
    sim_core *core = sim_get_core(s, c);
    const isa_insn *st = sim_core_stream(core);
    size_t n = sim_core_stream_len(core);
    unsigned expected_blocks = c < 2 ? 3 : 2;
    assert_int_equal(n, expected_blocks);
    for (unsigned i = 0; i < n; i++) {
      assert_int_equal(st[i].op, ISA_OP_COPY_GM_UB);
      assert_int_equal(st[i].u.copy.block_len_bytes, 32 * (c + 4 * i + 1));
    }
  }
  rt_device_destroy(dev);
}

static void test_rt_launch_fault_skips_later_blocks_of_that_core(void **state) {
  (void)state;
  rt_device *dev = make_device(4);
  sim *s = rt_device_sim(dev);
  launch_log L;
  memset(&L, 0, sizeof L);
  L.src = gm_alloc(dev, "src", 4096);
  L.fail_block = 1;
  cs_err err;
  assert_int_equal(rt_launch(dev, LAUNCH_BLOCKS, launch_kernel, &L, &err), CS_EFAULT);
  assert_string_equal(err.msg, "core 1, after instruction 0: block 1 gives up [runtime]");
  /* blocks 5 and 9 (core 1) never ran; the other cores went on */
  assert_int_equal(L.ran, LAUNCH_BLOCKS - 2);
  for (unsigned i = 0; i < L.ran; i++) assert_true(L.order[i] != 5 && L.order[i] != 9);
  assert_int_equal(sim_core_stream_len(sim_get_core(s, 1)), 1);
  assert_int_equal(sim_core_stream_len(sim_get_core(s, 0)), 3);
  rt_device_destroy(dev);
}

static void test_rt_launch_zero_blocks_is_an_error(void **state) {
  (void)state;
  rt_device *dev = make_device(1);
  cs_err err;
  assert_int_equal(rt_launch(dev, 0, launch_kernel, NULL, &err), CS_EINVAL);
  assert_string_equal(err.msg, "launch: block_dim is 0");
  rt_device_destroy(dev);
}

/* ---- buffers ------------------------------------------------------------------------------- */

typedef struct buf_log {
  rt_ltensor t[8];
  uint64_t free_bytes[4];
} buf_log;

/* L1 (A1, B1 share it) is 32 B aligned, L0A 512 B, L0C 1024 B, UB 32 B on the 910B defaults. */
static void buf_kernel(rt_ctx *ctx, void *args) {
  buf_log *L = args;
  L->t[0] = rt_buf_alloc(ctx, RT_POS_A1, 1, ISA_INT8, "a");      /* L1 [0, 32) */
  L->t[1] = rt_buf_alloc(ctx, RT_POS_B1, 100, ISA_FP16, "b");    /* L1 [32, 160) */
  L->t[2] = rt_buf_alloc(ctx, RT_POS_C1, 32, ISA_INT8, "c");     /* L1 [160, 192) */
  L->t[3] = rt_buf_alloc(ctx, RT_POS_A2, 100, ISA_INT8, "a2");   /* L0A [0, 512) */
  L->t[4] = rt_buf_alloc(ctx, RT_POS_A2, 513, ISA_INT8, "a2'");  /* L0A [512, 1536) */
  L->t[5] = rt_buf_alloc(ctx, RT_POS_CO1, 4, ISA_INT32, "c1");   /* L0C [0, 1024) */
  L->t[6] = rt_buf_alloc(ctx, RT_POS_CO1, 4, ISA_INT32, "c2");   /* L0C [1024, 2048) */
  L->t[7] = rt_buf_alloc(ctx, RT_POS_VECOUT, 33, ISA_INT8, "v"); /* UB [0, 64) */
  L->free_bytes[0] = rt_buf_free_bytes(ctx, RT_POS_A1);
  L->free_bytes[1] = rt_buf_free_bytes(ctx, RT_POS_A2);
  L->free_bytes[2] = rt_buf_free_bytes(ctx, RT_POS_CO1);
  L->free_bytes[3] = rt_buf_free_bytes(ctx, RT_POS_VECIN); /* UB, shared with VECOUT */
}

static void test_rt_buf_alloc_aligns_each_buffer(void **state) {
  (void)state;
  rt_device *dev = make_device(1);
  buf_log L;
  memset(&L, 0, sizeof L);
  cs_err err;
  assert_int_equal(rt_launch(dev, 1, buf_kernel, &L, &err), CS_OK);
  const uint64_t off[8] = {0, 32, 160, 0, 512, 0, 1024, 0};
  const uint64_t bytes[8] = {1, 100, 32, 100, 513, 4, 4, 33};
  const rt_pos pos[8] = {RT_POS_A1, RT_POS_B1, RT_POS_C1, RT_POS_A2, RT_POS_A2, RT_POS_CO1, RT_POS_CO1, RT_POS_VECOUT};
  for (int i = 0; i < 8; i++) {
    assert_int_equal(L.t[i].off, off[i]);
    assert_int_equal(L.t[i].bytes, bytes[i]);
    assert_int_equal(L.t[i].pos, pos[i]);
    assert_int_equal(L.t[i].slot, -1);
  }
  assert_int_equal(L.t[1].dtype, ISA_FP16);
  assert_int_equal(L.free_bytes[0], 524288 - 192);
  assert_int_equal(L.free_bytes[1], 65536 - 1536);
  assert_int_equal(L.free_bytes[2], 131072 - 2048);
  assert_int_equal(L.free_bytes[3], 196608 - 64);
  rt_device_destroy(dev);
}

/* UB exactly full is fine; one byte more is the fault. */
static void buf_full_kernel(rt_ctx *ctx, void *args) {
  bool *ok_after_full = args;
  rt_buf_alloc(ctx, RT_POS_VECIN, 196608 - 64, ISA_INT8, "most");
  rt_buf_alloc(ctx, RT_POS_VECOUT, 64, ISA_INT8, "rest");
  *ok_after_full = rt_ok(ctx) && rt_buf_free_bytes(ctx, RT_POS_VECCALC) == 0;
  rt_buf_alloc(ctx, RT_POS_VECCALC, 1, ISA_INT8, "one more");
}

static void test_rt_buf_alloc_does_not_fit(void **state) {
  (void)state;
  bool ok_after_full = false;
  expect_fault(buf_full_kernel, &ok_after_full,
               "core 0, before its first instruction: buffer 'one more' of 1 bytes does not fit in VECCALC (UB): "
               "196608 of 196608 bytes are already taken [runtime]");
  assert_true(ok_after_full);
}

/* The message reports what is taken before the aligned start: 1 byte in L0A rounds to 512. */
static void buf_l0a_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_buf_alloc(ctx, RT_POS_A2, 1, ISA_INT8, "tiny");
  rt_buf_alloc(ctx, RT_POS_A2, 65536 - 511, ISA_INT8, "big");
}

static void test_rt_buf_alloc_rounds_to_the_alignment(void **state) {
  (void)state;
  expect_fault(buf_l0a_kernel, NULL,
               "core 0, before its first instruction: buffer 'big' of 65025 bytes does not fit in A2 (L0A): "
               "512 of 65536 bytes are already taken [runtime]");
}

static void buf_gm_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_buf_alloc(ctx, RT_POS_GM, 64, ISA_INT8, "g");
}

static void test_rt_buf_alloc_refuses_gm(void **state) {
  (void)state;
  expect_fault(buf_gm_kernel, NULL,
               "core 0, before its first instruction: buffer 'g': GM is not a core buffer (allocate GM tensors on "
               "the host) [runtime]");
}

/* ---- events -------------------------------------------------------------------------------- */

typedef struct ev_log {
  int ids[9];
  int other;    /* MTE1 -> MTE2 once MTE2 -> MTE1 is exhausted */
  int again;    /* after releasing id 3 */
  bool ok_before;
} ev_log;

static void ev_kernel(rt_ctx *ctx, void *args) {
  ev_log *L = args;
  for (int i = 0; i < 8; i++) L->ids[i] = rt_event_alloc(ctx, ISA_PIPE_MTE2, ISA_PIPE_MTE1);
  L->other = rt_event_alloc(ctx, ISA_PIPE_MTE1, ISA_PIPE_MTE2);
  rt_event_release(ctx, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 3);
  L->again = rt_event_alloc(ctx, ISA_PIPE_MTE2, ISA_PIPE_MTE1);
  L->ok_before = rt_ok(ctx);
  L->ids[8] = rt_event_alloc(ctx, ISA_PIPE_MTE2, ISA_PIPE_MTE1);
}

static void test_rt_event_alloc_exhausts_eight_ids(void **state) {
  (void)state;
  ev_log L;
  memset(&L, 0, sizeof L);
  expect_fault(ev_kernel, &L,
               "core 0, before its first instruction: no free event id for MTE2 -> MTE1: all 8 are taken (fewer "
               "queues or slots between these pipes) [runtime]");
  for (int i = 0; i < 8; i++) assert_int_equal(L.ids[i], i);
  assert_int_equal(L.other, 0);
  assert_int_equal(L.again, 3);
  assert_true(L.ok_before);
  assert_int_equal(L.ids[8], -1);
}

/* ---- queues: the recorded stream ------------------------------------------------------------ */

typedef struct copy_args {
  uint64_t src, dst;   /* int32 tensors of tiles * tile_elems */
  unsigned tiles, tile_elems;
  unsigned slots;
  bool use_queues;     /* false: the same loop on plain buffers, without any flag */
} copy_args;

/* GM -> UB (VECIN, MTE2 -> V), out = in + in on V, UB (VECOUT, V -> MTE3) -> GM, one tile at a
 * time; the queues' slots let tile i + 1 load while tile i is computed and stored. */
static void copy_kernel(rt_ctx *ctx, void *args) {
  const copy_args *A = args;
  uint64_t tile_bytes = (uint64_t)A->tile_elems * 4;
  rt_gtensor src = {A->src, ISA_INT32, (uint64_t)A->tiles * A->tile_elems};
  rt_gtensor dst = {A->dst, ISA_INT32, (uint64_t)A->tiles * A->tile_elems};
  if (!A->use_queues) {
    rt_ltensor in = rt_buf_alloc(ctx, RT_POS_VECIN, tile_bytes, ISA_INT32, "in");
    rt_ltensor out = rt_buf_alloc(ctx, RT_POS_VECOUT, tile_bytes, ISA_INT32, "out");
    for (unsigned i = 0; i < A->tiles; i++) {
      rt_copy_gm_to_local(ctx, in, rt_gtensor_at(src, (uint64_t)i * A->tile_elems), rt_copy_params(tile_bytes));
      rt_vbinary_n(ctx, ISA_OP_VADD, out, in, in, A->tile_elems);
      rt_copy_local_to_gm(ctx, rt_gtensor_at(dst, (uint64_t)i * A->tile_elems), out, rt_copy_params(tile_bytes));
    }
    return;
  }
  rt_queue *qin = rt_queue_init(ctx, RT_POS_VECIN, A->slots, tile_bytes, "in");
  rt_queue *qout = rt_queue_init(ctx, RT_POS_VECOUT, A->slots, tile_bytes, "out");
  for (unsigned i = 0; i < A->tiles; i++) {
    rt_ltensor in = rt_alloc(qin, ISA_INT32);
    rt_copy_gm_to_local(ctx, in, rt_gtensor_at(src, (uint64_t)i * A->tile_elems), rt_copy_params(tile_bytes));
    rt_enque(qin, in);
    in = rt_deque(qin);
    rt_ltensor out = rt_alloc(qout, ISA_INT32);
    rt_vbinary_n(ctx, ISA_OP_VADD, out, in, in, A->tile_elems);
    rt_enque(qout, out);
    rt_free(qin, in);
    out = rt_deque(qout);
    rt_copy_local_to_gm(ctx, rt_gtensor_at(dst, (uint64_t)i * A->tile_elems), out, rt_copy_params(tile_bytes));
    rt_free(qout, out);
  }
}

/* Event ids: qin takes MTE2 -> V 0, 1 (filled) and V -> MTE2 0, 1 (freed); qout V -> MTE3 0, 1
 * and MTE3 -> V 0, 1. Slot s = i % 2. The first alloc of each slot waits for nothing; the third
 * tile reuses slot 0 and waits for its free; the block end consumes every pending free. */
static void test_rt_queue_double_buffer_stream(void **state) {
  (void)state;
  rt_device *dev = make_device(1);
  sim *s = rt_device_sim(dev);
  copy_args A = {gm_alloc(dev, "src", 3 * 1024), gm_alloc(dev, "dst", 3 * 1024), 3, 256, 2, true};
  cs_err err;
  assert_int_equal(rt_launch(dev, 1, copy_kernel, &A, &err), CS_OK);
  static const want_insn want[] = {
      /* tile 0, slot 0 */
      W_OP(COPY_GM_UB), W_SET(MTE2, V, 0), W_WAIT(MTE2, V, 0), W_OP(VADD), W_SET(V, MTE3, 0),
      W_SET(V, MTE2, 0), W_WAIT(V, MTE3, 0), W_OP(COPY_UB_GM), W_SET(MTE3, V, 0),
      /* tile 1, slot 1 */
      W_OP(COPY_GM_UB), W_SET(MTE2, V, 1), W_WAIT(MTE2, V, 1), W_OP(VADD), W_SET(V, MTE3, 1),
      W_SET(V, MTE2, 1), W_WAIT(V, MTE3, 1), W_OP(COPY_UB_GM), W_SET(MTE3, V, 1),
      /* tile 2, slot 0 again: each alloc waits for the slot's free */
      W_WAIT(V, MTE2, 0), W_OP(COPY_GM_UB), W_SET(MTE2, V, 0), W_WAIT(MTE2, V, 0), W_WAIT(MTE3, V, 0),
      W_OP(VADD), W_SET(V, MTE3, 0), W_SET(V, MTE2, 0), W_WAIT(V, MTE3, 0), W_OP(COPY_UB_GM),
      W_SET(MTE3, V, 0),
      /* block end: the frees still pending, queue by queue, slot by slot */
      W_WAIT(V, MTE2, 0), W_WAIT(V, MTE2, 1), W_WAIT(MTE3, V, 0), W_WAIT(MTE3, V, 1),
  };
  expect_stream(sim_get_core(s, 0), want, sizeof want / sizeof want[0]);
  /* the slots sit side by side in UB: qin at 0 and 1024, qout at 2048 and 3072 */
  const isa_insn *st = sim_core_stream(sim_get_core(s, 0));
  assert_int_equal(st[0].u.copy.dst.off, 0);
  assert_int_equal(st[9].u.copy.dst.off, 1024);
  assert_int_equal(st[19].u.copy.dst.off, 0);
  assert_int_equal(st[3].u.vbinary.dst.off, 2048);
  assert_int_equal(st[12].u.vbinary.dst.off, 3072);
  assert_int_equal(st[7].u.copy.src.off, 2048);
  rt_device_destroy(dev);
}

/* A single-slot queue: every alloc after the first waits for the previous free. */
static void test_rt_queue_single_slot_waits_every_time(void **state) {
  (void)state;
  rt_device *dev = make_device(1);
  sim *s = rt_device_sim(dev);
  copy_args A = {gm_alloc(dev, "src", 2 * 128), gm_alloc(dev, "dst", 2 * 128), 2, 32, 1, true};
  cs_err err;
  assert_int_equal(rt_launch(dev, 1, copy_kernel, &A, &err), CS_OK);
  static const want_insn want[] = {
      W_OP(COPY_GM_UB), W_SET(MTE2, V, 0), W_WAIT(MTE2, V, 0), W_OP(VADD), W_SET(V, MTE3, 0),
      W_SET(V, MTE2, 0), W_WAIT(V, MTE3, 0), W_OP(COPY_UB_GM), W_SET(MTE3, V, 0),
      W_WAIT(V, MTE2, 0), W_OP(COPY_GM_UB), W_SET(MTE2, V, 0), W_WAIT(MTE2, V, 0), W_WAIT(MTE3, V, 0),
      W_OP(VADD), W_SET(V, MTE3, 0), W_SET(V, MTE2, 0), W_WAIT(V, MTE3, 0), W_OP(COPY_UB_GM),
      W_SET(MTE3, V, 0),
      W_WAIT(V, MTE2, 0), W_WAIT(MTE3, V, 0),
  };
  expect_stream(sim_get_core(s, 0), want, sizeof want / sizeof want[0]);
  rt_device_destroy(dev);
}

/* ---- queues: data and hazards under rt_device_run ------------------------------------------- */

static void run_copy(unsigned cores, unsigned slots, bool use_queues, cs_status want_run) {
  rt_device *dev = make_device(cores);
  enum { TILES = 8, ELEMS = 512 };
  copy_args A = {gm_alloc(dev, "src", TILES * ELEMS * 4), gm_alloc(dev, "dst", TILES * ELEMS * 4), TILES, ELEMS,
                 slots, use_queues};
  static int32_t src[TILES * ELEMS], dst[TILES * ELEMS];
  for (int i = 0; i < TILES * ELEMS; i++) src[i] = (int32_t)(i * 7919 % 100003) - 50000;
  cs_err err;
  assert_int_equal(rt_gm_write(dev, (rt_gtensor){A.src, ISA_INT32, TILES * ELEMS}, src, &err), CS_OK);
  assert_int_equal(rt_launch(dev, 1, copy_kernel, &A, &err), CS_OK);
  assert_null(rt_device_result(dev));
  cs_status st = rt_device_run(dev, NULL, &err);
  if (st != want_run) fail_msg("rt_device_run: %d (%s)", st, err.msg);
  const sim_result *res = rt_device_result(dev);
  assert_non_null(res);
  if (want_run == CS_OK) {
    assert_int_equal(res->hazard_count, 0);
    assert_int_equal(rt_gm_read(dev, (rt_gtensor){A.dst, ISA_INT32, TILES * ELEMS}, dst, &err), CS_OK);
    for (int i = 0; i < TILES * ELEMS; i++)
      if (dst[i] != 2 * ((int32_t)(i * 7919 % 100003) - 50000)) fail_msg("dst[%d] = %d", i, dst[i]);
  } else {
    assert_true(res->hazard_count > 0);
  }
  rt_device_destroy(dev);
}

static void test_rt_queue_copy_kernel_moves_data_without_hazards(void **state) {
  (void)state;
  run_copy(1, 2, true, CS_OK);
  run_copy(1, 1, true, CS_OK);
  run_copy(1, 4, true, CS_OK);
}

/* The same loop on plain buffers has nothing ordering MTE2, V and MTE3: the replay sees hazards
 * (which is what the queues' flags prevent). */
static void test_rt_queue_loop_without_flags_has_hazards(void **state) {
  (void)state;
  run_copy(1, 2, false, CS_EHAZARD);
}

/* ---- same-pipe queues (VECCALC: V -> V) ----------------------------------------------------- */

typedef struct calc_args {
  uint64_t src, dst;
  unsigned tiles;
  unsigned slots;
  int free_id;       /* an id of V -> V after the queue was made: 0, none was taken */
} calc_args;

/* tmp (VECCALC queue) = in + in, then out = tmp + tmp: the queue's enque orders the two vadds on
 * the one pipe with a pipe_barrier, and takes no event id. */
static void calc_kernel(rt_ctx *ctx, void *args) {
  calc_args *A = args;
  enum { E = 64 };
  rt_queue *q = rt_queue_init(ctx, RT_POS_VECCALC, A->slots, E * 4, "tmp");
  A->free_id = rt_event_alloc(ctx, ISA_PIPE_V, ISA_PIPE_V);
  rt_event_release(ctx, ISA_PIPE_V, ISA_PIPE_V, A->free_id);
  rt_ltensor in = rt_buf_alloc(ctx, RT_POS_VECIN, (uint64_t)A->tiles * E * 4, ISA_INT32, "in");
  rt_ltensor out = rt_buf_alloc(ctx, RT_POS_VECOUT, (uint64_t)A->tiles * E * 4, ISA_INT32, "out");
  rt_gtensor src = {A->src, ISA_INT32, (uint64_t)A->tiles * E}, dst = {A->dst, ISA_INT32, (uint64_t)A->tiles * E};
  rt_copy_gm_to_local(ctx, in, src, rt_copy_params((uint64_t)A->tiles * E * 4));
  int ev = rt_event_alloc(ctx, ISA_PIPE_MTE2, ISA_PIPE_V);
  rt_set_flag(ctx, ISA_PIPE_MTE2, ISA_PIPE_V, ev);
  rt_wait_flag(ctx, ISA_PIPE_MTE2, ISA_PIPE_V, ev);
  for (unsigned i = 0; i < A->tiles; i++) {
    rt_ltensor t = rt_alloc(q, ISA_INT32);
    rt_ltensor x = rt_ltensor_at(in, (uint64_t)i * E * 4);
    rt_vbinary_n(ctx, ISA_OP_VADD, t, x, x, E);
    rt_enque(q, t);
    t = rt_deque(q);
    rt_vbinary_n(ctx, ISA_OP_VADD, rt_ltensor_at(out, (uint64_t)i * E * 4), t, t, E);
    rt_free(q, t);
  }
  int ev2 = rt_event_alloc(ctx, ISA_PIPE_V, ISA_PIPE_MTE3);
  rt_set_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE3, ev2);
  rt_wait_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE3, ev2);
  rt_copy_local_to_gm(ctx, dst, out, rt_copy_params((uint64_t)A->tiles * E * 4));
}

/* With one slot, the next tile's first vadd overwrites the slot the previous tile's second vadd
 * reads: nothing but the queue stands between them on the pipe. */
static void run_calc(unsigned slots) {
  rt_device *dev = make_device(1);
  sim *s = rt_device_sim(dev);
  enum { TILES = 5, E = 64 };
  calc_args A = {gm_alloc(dev, "src", TILES * E * 4), gm_alloc(dev, "dst", TILES * E * 4), TILES, slots, -1};
  int32_t src[TILES * E], dst[TILES * E];
  for (int i = 0; i < TILES * E; i++) src[i] = i - 100;
  cs_err err;
  assert_int_equal(rt_gm_write(dev, (rt_gtensor){A.src, ISA_INT32, TILES * E}, src, &err), CS_OK);
  assert_int_equal(rt_launch(dev, 1, calc_kernel, &A, &err), CS_OK);
  assert_int_equal(A.free_id, 0);
  /* per tile: vadd, pipe_barrier V, vadd — no flag of V -> V anywhere. With one slot, the
   * next tile's alloc adds a barrier before overwriting what the previous tile's vadd read; with
   * two, the other slot's enque barrier already stands between them. */
  sim_core *core = sim_get_core(s, 0);
  const isa_insn *st = sim_core_stream(core);
  size_t n = sim_core_stream_len(core);
  size_t extra = slots == 1 ? TILES - 1 : 0;
  assert_int_equal(n, 3 + 3 * TILES + extra + 3);
  size_t at = 3;
  for (unsigned i = 0; i < TILES; i++) {
    if (slots == 1 && i > 0) {
      assert_int_equal(st[at].op, ISA_OP_PIPE_BARRIER);
      assert_int_equal(st[at++].u.barrier.pipe, ISA_PIPE_V);
    }
    assert_int_equal(st[at++].op, ISA_OP_VADD);
    assert_int_equal(st[at].op, ISA_OP_PIPE_BARRIER);
    assert_int_equal(st[at++].u.barrier.pipe, ISA_PIPE_V);
    assert_int_equal(st[at++].op, ISA_OP_VADD);
  }
  for (size_t i = 0; i < n; i++)
    if (st[i].op == ISA_OP_SET_FLAG || st[i].op == ISA_OP_WAIT_FLAG) assert_true(st[i].u.flag.src_pipe != st[i].u.flag.dst_pipe);
  cs_status rs = rt_device_run(dev, NULL, &err);
  if (rs != CS_OK) fail_msg("rt_device_run: %s", err.msg);
  assert_int_equal(rt_device_result(dev)->hazard_count, 0);
  assert_int_equal(rt_gm_read(dev, (rt_gtensor){A.dst, ISA_INT32, TILES * E}, dst, &err), CS_OK);
  for (int i = 0; i < TILES * E; i++) assert_int_equal(dst[i], 4 * (i - 100));
  rt_device_destroy(dev);
}

static void test_rt_queue_same_pipe_uses_pipe_barrier(void **state) {
  (void)state;
  run_calc(2);
  run_calc(1);
}

/* ---- queues: misuse ------------------------------------------------------------------------ */

static void deque_empty_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *q = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "in");
  rt_ltensor t = rt_alloc(q, ISA_INT8); /* allocated, never enqueued */
  (void)t;
  rt_deque(q);
}

static void test_rt_queue_deque_of_empty_queue(void **state) {
  (void)state;
  expect_fault(deque_empty_kernel, NULL, "core 0, before its first instruction: queue 'in': deque with nothing enqueued [runtime]");
}

static void free_undequeued_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *q = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "in");
  rt_ltensor a = rt_alloc(q, ISA_INT8);
  rt_ltensor b = rt_alloc(q, ISA_INT8);
  rt_enque(q, a);
  rt_free(q, b); /* slot 1 is only allocated */
}

static void test_rt_queue_free_of_slot_not_dequeued(void **state) {
  (void)state;
  expect_fault(free_undequeued_kernel, NULL,
               "core 0, after instruction 0: queue 'in': free of slot 1, which is allocated [runtime]");
}

static void free_enqueued_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *q = rt_queue_init(ctx, RT_POS_VECIN, 1, 64, "in");
  rt_ltensor a = rt_alloc(q, ISA_INT8);
  rt_enque(q, a);
  rt_free(q, a); /* enqueued, not dequeued */
}

static void test_rt_queue_free_of_enqueued_slot(void **state) {
  (void)state;
  expect_fault(free_enqueued_kernel, NULL,
               "core 0, after instruction 0: queue 'in': free of slot 0, which is enqueued [runtime]");
}

static void follow_mismatch_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *a2 = rt_queue_init(ctx, RT_POS_A2, 2, 512, "A2");
  rt_queue *b2 = rt_queue_init(ctx, RT_POS_B2, 1, 512, "B2");
  rt_queue_follow(b2, a2);
}

static void follow_in_use_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *a2 = rt_queue_init(ctx, RT_POS_A2, 2, 512, "A2");
  rt_queue *b2 = rt_queue_init(ctx, RT_POS_B2, 2, 512, "B2");
  rt_ltensor t = rt_alloc(b2, ISA_FP16);
  (void)t;
  rt_queue_follow(b2, a2);
}

/* A follower shares its leader's slots count and pipes, and starts with every slot free. */
static void test_rt_queue_follow_refusals(void **state) {
  (void)state;
  expect_fault(follow_mismatch_kernel, NULL,
               "core 0, before its first instruction: queue 'B2' cannot follow 'A2': 1 and 2 slots, pipes MTE1 -> M "
               "and MTE1 -> M [runtime]");
  expect_fault(follow_in_use_kernel, NULL,
               "core 0, before its first instruction: queue 'B2': following another queue asked for with slot 0 in "
               "use or its free pending [runtime]");
}

/* rt_queues_interleave: three queues of 2 slots of 96 B made one after the other at UB 0 are laid
 * out slot by slot: x0 0, y0 96, z0 192, x1 288, y1 384, z1 480 (the offsets the kernel records). */
static void interleave_kernel(rt_ctx *ctx, void *args) {
  uint64_t *off = args;
  rt_queue *q[3] = {rt_queue_init(ctx, RT_POS_VECIN, 2, 96, "x"), rt_queue_init(ctx, RT_POS_VECIN, 2, 96, "y"),
                    rt_queue_init(ctx, RT_POS_VECOUT, 2, 96, "z")};
  rt_queues_interleave(q, 3);
  for (unsigned s = 0; s < 2; s++)
    for (unsigned k = 0; k < 3; k++) {
      rt_ltensor t = rt_alloc(q[k], ISA_INT8);
      off[s * 3 + k] = t.off;
      rt_enque(q[k], t);
      rt_free(q[k], rt_deque(q[k]));
    }
}

static void interleave_gap_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *a = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "a");
  rt_ltensor gap = rt_buf_alloc(ctx, RT_POS_VECIN, 32, ISA_INT8, "gap");
  (void)gap;
  rt_queue *b = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "b");
  rt_queue *q[2] = {a, b};
  rt_queues_interleave(q, 2);
}

static void interleave_used_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *a = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "a");
  rt_queue *b = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "b");
  rt_ltensor t = rt_alloc(a, ISA_INT8);
  (void)t;
  rt_queue *q[2] = {a, b};
  rt_queues_interleave(q, 2);
}

static void test_rt_queues_interleave(void **state) {
  (void)state;
  uint64_t off[6] = {0};
  rt_device *dev = make_device(1);
  cs_err err;
  if (rt_launch(dev, 1, interleave_kernel, off, &err) != CS_OK) fail_msg("%s", err.msg);
  static const uint64_t want[6] = {0, 96, 192, 288, 384, 480};
  for (int i = 0; i < 6; i++) assert_int_equal(off[i], want[i]);
  rt_device_destroy(dev);
  expect_fault(interleave_gap_kernel, NULL,
               "core 0, before its first instruction: rt_queues_interleave: queue 1 ('b') is not the next of 2 "
               "queues of 2 slots of 64 bytes made one after the other in UB [runtime]");
  expect_fault(interleave_used_kernel, NULL,
               "core 0, before its first instruction: rt_queues_interleave: queue 'a' was used already [runtime]");
}

static void enque_plain_buffer_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *q = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "in");
  rt_ltensor mine = rt_alloc(q, ISA_INT8);
  (void)mine;
  rt_ltensor plain = rt_buf_alloc(ctx, RT_POS_VECIN, 64, ISA_INT8, "plain");
  rt_enque(q, plain);
}

static void test_rt_queue_enque_of_a_plain_buffer(void **state) {
  (void)state;
  expect_fault(enque_plain_buffer_kernel, NULL,
               "core 0, before its first instruction: queue 'in': enque of a tensor that does not come from this "
               "queue [runtime]");
}

/* A slot of another queue at the same position (same slot number, same state) is still foreign. */
static void enque_other_queue_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *a = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "a");
  rt_queue *b = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "b");
  rt_ltensor ta = rt_alloc(a, ISA_INT8);
  rt_ltensor tb = rt_alloc(b, ISA_INT8);
  (void)ta;
  rt_enque(a, tb);
}

static void test_rt_queue_enque_of_another_queues_slot(void **state) {
  (void)state;
  expect_fault(enque_other_queue_kernel, NULL,
               "core 0, before its first instruction: queue 'a': enque of a tensor that does not come from this "
               "queue [runtime]");
}

static void enque_other_pos_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *a = rt_queue_init(ctx, RT_POS_VECIN, 1, 64, "a");
  rt_queue *b = rt_queue_init(ctx, RT_POS_VECOUT, 1, 64, "b");
  rt_ltensor ta = rt_alloc(a, ISA_INT8);
  (void)ta;
  rt_ltensor tb = rt_alloc(b, ISA_INT8);
  rt_enque(a, tb);
}

static void test_rt_queue_enque_of_another_positions_slot(void **state) {
  (void)state;
  expect_fault(enque_other_pos_kernel, NULL,
               "core 0, before its first instruction: queue 'a': enque of a tensor that does not come from this "
               "queue [runtime]");
}

static void alloc_in_use_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *q = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "in");
  rt_alloc(q, ISA_INT8);
  rt_alloc(q, ISA_INT8);
  rt_alloc(q, ISA_INT8); /* slot 0 again, never freed */
}

static void test_rt_queue_alloc_of_slot_in_use(void **state) {
  (void)state;
  expect_fault(alloc_in_use_kernel, NULL,
               "core 0, before its first instruction: queue 'in': alloc of slot 0, which is still in use (free it "
               "first) [runtime]");
}

static void end_enqueued_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *q = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "in");
  rt_ltensor a = rt_alloc(q, ISA_INT8);
  rt_enque(q, a);
}

static void test_rt_queue_block_ends_with_slot_enqueued(void **state) {
  (void)state;
  expect_fault(end_enqueued_kernel, NULL,
               "core 0, after instruction 0: queue 'in': the block ended with slot 0 enqueued and never "
               "dequeued [runtime]");
}

static void end_unfreed_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue *q = rt_queue_init(ctx, RT_POS_VECIN, 2, 64, "in");
  rt_ltensor a = rt_alloc(q, ISA_INT8);
  rt_enque(q, a);
  a = rt_deque(q);
  (void)a;
}

static void test_rt_queue_block_ends_with_slot_not_freed(void **state) {
  (void)state;
  expect_fault(end_unfreed_kernel, NULL,
               "core 0, after instruction 1: queue 'in': the block ended with slot 0 never freed [runtime]");
}

static void bad_slots_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  rt_queue_init(ctx, RT_POS_VECIN, 5, 64, "five");
}

static void test_rt_queue_slot_count_limits(void **state) {
  (void)state;
  expect_fault(bad_slots_kernel, NULL, "core 0, before its first instruction: queue 'five': 5 slots, a queue has 1 to 4 [runtime]");
}

/* Five double-buffered VECIN queues need ten MTE2 -> V ids: the fifth runs out. */
static void too_many_events_kernel(rt_ctx *ctx, void *args) {
  int *made = args;
  char name[8];
  for (int i = 0; i < 5; i++) {
    snprintf(name, sizeof name, "q%d", i);
    if (rt_queue_init(ctx, RT_POS_VECIN, 2, 64, name)) (*made)++;
  }
}

static void test_rt_queue_runs_out_of_event_ids(void **state) {
  (void)state;
  int made = 0;
  expect_fault(too_many_events_kernel, &made,
               "core 0, before its first instruction: no free event id for MTE2 -> V: all 8 are taken (fewer queues "
               "or slots between these pipes) [runtime]");
  assert_int_equal(made, 4);
}

static void too_many_queues_kernel(rt_ctx *ctx, void *args) {
  (void)args;
  char name[8];
  for (int i = 0; i < 33; i++) {
    snprintf(name, sizeof name, "q%d", i);
    rt_queue_init(ctx, RT_POS_VECCALC, 1, 32, name);
  }
}

static void test_rt_queue_too_many_queues(void **state) {
  (void)state;
  expect_fault(too_many_queues_kernel, NULL,
               "core 0, before its first instruction: queue 'q32': too many queues in one block (at most 32) [runtime]");
}

/* After a fault the core ignores everything: no instruction is recorded. */
static void after_fault_kernel(rt_ctx *ctx, void *args) {
  bool *ok = args;
  rt_ltensor t = rt_buf_alloc(ctx, RT_POS_VECIN, 64, ISA_INT8, "t");
  rt_fail(ctx, "stop");
  rt_pipe_barrier(ctx, ISA_PIPE_V);
  rt_set_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE3, 0);
  rt_queue *q = rt_queue_init(ctx, RT_POS_VECIN, 1, 64, "late");
  *ok = rt_ok(ctx) || q != NULL || t.off != 0;
}

static void test_rt_fault_stops_the_core(void **state) {
  (void)state;
  bool any = true;
  rt_device *dev = make_device(1);
  sim *s = rt_device_sim(dev);
  cs_err err;
  assert_int_equal(rt_launch(dev, 1, after_fault_kernel, &any, &err), CS_EFAULT);
  assert_string_equal(err.msg, "core 0, before its first instruction: stop [runtime]");
  assert_false(any);
  assert_int_equal(sim_core_stream_len(sim_get_core(s, 0)), 0);
  rt_device_destroy(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rt_launch_more_blocks_than_cores),
      cmocka_unit_test(test_rt_launch_fault_skips_later_blocks_of_that_core),
      cmocka_unit_test(test_rt_launch_zero_blocks_is_an_error),
      cmocka_unit_test(test_rt_buf_alloc_aligns_each_buffer),
      cmocka_unit_test(test_rt_buf_alloc_does_not_fit),
      cmocka_unit_test(test_rt_buf_alloc_rounds_to_the_alignment),
      cmocka_unit_test(test_rt_buf_alloc_refuses_gm),
      cmocka_unit_test(test_rt_event_alloc_exhausts_eight_ids),
      cmocka_unit_test(test_rt_queue_double_buffer_stream),
      cmocka_unit_test(test_rt_queue_single_slot_waits_every_time),
      cmocka_unit_test(test_rt_queue_copy_kernel_moves_data_without_hazards),
      cmocka_unit_test(test_rt_queue_loop_without_flags_has_hazards),
      cmocka_unit_test(test_rt_queue_same_pipe_uses_pipe_barrier),
      cmocka_unit_test(test_rt_queue_deque_of_empty_queue),
      cmocka_unit_test(test_rt_queue_free_of_slot_not_dequeued),
      cmocka_unit_test(test_rt_queue_follow_refusals),
      cmocka_unit_test(test_rt_queues_interleave),
      cmocka_unit_test(test_rt_queue_free_of_enqueued_slot),
      cmocka_unit_test(test_rt_queue_enque_of_a_plain_buffer),
      cmocka_unit_test(test_rt_queue_enque_of_another_queues_slot),
      cmocka_unit_test(test_rt_queue_enque_of_another_positions_slot),
      cmocka_unit_test(test_rt_queue_alloc_of_slot_in_use),
      cmocka_unit_test(test_rt_queue_block_ends_with_slot_enqueued),
      cmocka_unit_test(test_rt_queue_block_ends_with_slot_not_freed),
      cmocka_unit_test(test_rt_queue_slot_count_limits),
      cmocka_unit_test(test_rt_queue_runs_out_of_event_ids),
      cmocka_unit_test(test_rt_queue_too_many_queues),
      cmocka_unit_test(test_rt_fault_stops_the_core),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
