/* Tests of the record phase's operand checks (docs/ISA.md "Checks every instruction gets",
 * docs/DESIGN.md §4): every kind of fault sim_core_issue raises, with its cause, operand, value,
 * limit, core, instruction index and the exact line of sim_fault_describe; each bounds check at its
 * boundary (ending exactly at the end: accepted; one byte, or the smallest unit, past it:
 * refused); a faulted core ignores what follows; runtime faults; isolation between cores and
 * simulators. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "isa/isa_text.h"
#include "sim/sim.h"
#include "support/insn_build.h"

/* Buffers small enough to reach their ends with small instructions, round in hex:
 *   L1 8192 (0x2000), L0A 4096 (0x1000), L0B 4096, L0C 8192 (0x2000), UB 4096, BT 1024 (0x400),
 *   FB 2048 (0x800); alignments are the defaults: L1 32, L0A 512, L0B 512, L0C 1024, UB 32,
 *   BT 64, FB 64, GM 1. Two cores; L2 off (only a few runs, none about GM timing). */
static void fault_config(sim_config *c) {
  sim_config_defaults(c);
  c->chip_aic_cores = 2;
  c->buffers_l1_bytes = 8192;
  c->buffers_l0a_bytes = 4096;
  c->buffers_l0b_bytes = 4096;
  c->buffers_l0c_bytes = 8192;
  c->buffers_ub_bytes = 4096;
  c->buffers_bt_bytes = 1024;
  c->buffers_fb_bytes = 2048;
  c->l2_enabled = false;
}

/* GM tensors: "a" of 1000 bytes at 0x0 (ends at 0x3e8), "b" of 4096 bytes at 0x400 (the next
 * 512-byte boundary; ends at 0x1400). */
#define GM_A 0x0u
#define GM_A_BYTES 1000u
#define GM_B 0x400u
#define GM_B_BYTES 4096u

static sim *make_sim(const sim_config *cfg, bool timing_only) {
  sim *s = NULL;
  cs_err err;
  sim_options o = {.timing_only = timing_only};
  assert_int_equal(sim_create(cfg, &o, &s, &err), CS_OK);
  uint64_t a, b;
  assert_int_equal(sim_gm_alloc(s, "a", GM_A_BYTES, &a, &err), CS_OK);
  assert_int_equal(sim_gm_alloc(s, "b", GM_B_BYTES, &b, &err), CS_OK);
  assert_int_equal(a, GM_A);
  assert_int_equal(b, GM_B);
  return s;
}

static sim *default_sim(void) {
  sim_config c;
  fault_config(&c);
  return make_sim(&c, false);
}

/* ---- the instructions the tests start from (every other field zero) --------------------------- */

/* load_l0a / load_l0b of `repeat` int8 fractals from L1:src_off, without transpose. */
static isa_insn load(isa_op op, uint64_t dst_off, uint64_t src_off, uint32_t repeat) {
  return ib_load2d(op, ISA_INT8, dst_off, src_off, 0, repeat, 1, 0);
}

/* A 16 x 16 DEQF16 fixpipe from L0C:0 to GM b, ND. */
static isa_insn fixpipe(void) { return ib_fixpipe_nd(ISA_MEM_GM, GM_B, ISA_QUANT_DEQF16, ISA_FP16, 16, 16); }

/* An int8 16 x 32 ND -> NZ copy from GM a to L1:0. */
static isa_insn nd2nz(void) { return ib_nd2nz(ISA_INT8, 0, GM_A, 16, 32); }

/* vdeq of one row of 8 int32 at UB:0 with scales at UB:0x400 into fp32 at UB:0x200. */
static isa_insn vdeq(void) { return ib_vdeq(0x200, 0, 0x400, ISA_FP32, 1, 8); }

static isa_insn vcast(isa_dtype from, isa_dtype to) {
  return ib_vcast_n(from, to, ISA_ROUND_NONE, 0x200, 0, 16);
}

/* A harmless instruction every test issues first: 32 bytes of GM a to UB:0. */
static isa_insn good(void) { return ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, GM_A, 32); }

/* ---- expectations ------------------------------------------------------------------------- */

typedef struct want {
  isa_fault_cause cause;
  const char *cause_name; /* as sim_fault_describe writes it */
  const char *operand;
  uint64_t value, limit;
  const char *mnemonic;
  const char *msg;
} want;

/* Two instructions are the same when they disassemble to the same text (a byte comparison would
 * also compare padding, which copies need not keep). */
static void assert_same_insn(const isa_insn *a, const isa_insn *b) {
  char ta[512], tb[512];
  assert_int_equal(a->op, b->op);
  isa_disasm(a, ta, sizeof ta);
  isa_disasm(b, tb, sizeof tb);
  assert_string_equal(ta, tb);
}

static void assert_same_fault(const sim_fault *a, const sim_fault *b) {
  assert_int_equal(a->f.cause, b->f.cause);
  assert_string_equal(a->f.operand, b->f.operand);
  assert_int_equal(a->f.value, b->f.value);
  assert_int_equal(a->f.limit, b->f.limit);
  assert_string_equal(a->f.msg, b->f.msg);
  assert_int_equal(a->core, b->core);
  assert_int_equal(a->index, b->index);
  assert_same_insn(&a->insn, &b->insn);
}

static void check_fault(const sim_fault *f, unsigned core, uint64_t index, const isa_insn *in,
                        const want *w) {
  assert_non_null(f);
  assert_int_equal(f->f.cause, w->cause);
  assert_string_equal(f->f.operand, w->operand);
  assert_int_equal(f->f.value, w->value);
  assert_int_equal(f->f.limit, w->limit);
  assert_string_equal(f->f.msg, w->msg);
  assert_int_equal(f->core, core);
  assert_int_equal(f->index, index);
  assert_same_insn(&f->insn, in);
  char got[512], expect[512];
  sim_fault_describe(f, got, sizeof got);
  snprintf(expect, sizeof expect, "core %u, instruction %llu (%s): %s [%s]", core,
           (unsigned long long)index, w->mnemonic, w->msg, w->cause_name);
  assert_string_equal(got, expect);
}

/* Issues good() then `bad` on core 1 of a fresh simulator: bad is refused as instruction 1 with
 * the expected fault; later issues are ignored and keep the same fault; core 0 is unaffected. */
static void expect_fault_in(sim *s, isa_insn bad, const want *w) {
  sim_core *c1 = sim_get_core(s, 1), *c0 = sim_get_core(s, 0);
  isa_insn g = good();
  assert_int_equal(sim_core_issue(c1, &g), CS_OK);
  assert_null(sim_core_fault(c1));
  if (sim_core_issue(c1, &bad) != CS_EFAULT) fail_msg("accepted: %s", w->msg);
  check_fault(sim_core_fault(c1), 1, 1, &bad, w);
  assert_int_equal(sim_core_stream_len(c1), 1);
  /* a faulted core ignores everything after its fault, good or bad, and keeps the first fault */
  sim_fault first = *sim_core_fault(c1);
  assert_int_equal(sim_core_issue(c1, &g), CS_EFAULT);
  assert_int_equal(sim_core_issue(c1, &bad), CS_EFAULT);
  assert_int_equal(sim_core_stream_len(c1), 1);
  assert_same_fault(sim_core_fault(c1), &first);
  /* the other core goes on */
  assert_int_equal(sim_core_issue(c0, &g), CS_OK);
  assert_null(sim_core_fault(c0));
  assert_int_equal(sim_core_stream_len(c0), 1);
}

static void expect_fault(isa_insn bad, const want *w) {
  sim *s = default_sim();
  expect_fault_in(s, bad, w);
  sim_destroy(s);
}

static void expect_ok_in(sim *s, isa_insn in) {
  sim_core *c = sim_get_core(s, 0);
  cs_status st = sim_core_issue(c, &in);
  if (st != CS_OK) {
    char msg[512];
    sim_fault_describe(sim_core_fault(c), msg, sizeof msg);
    fail_msg("refused: %s", msg);
  }
}

static void expect_ok(isa_insn in) {
  sim *s = default_sim();
  expect_ok_in(s, in);
  sim_destroy(s);
}

#define W(cause, name, op, val, lim, mn, msg) {cause, name, op, val, lim, mn, msg}

/* ---- alignment ---------------------------------------------------------------------------- */

/* Every on-chip memory at its configured alignment, on dst, src and the other address fields. */
static void test_sim_faults_misaligned_in_each_onchip_memory(void **state) {
  (void)state;
  struct {
    isa_insn in;
    want w;
  } cases[] = {
      {ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0x10, ISA_MEM_GM, GM_A, 32),
       W(ISA_FAULT_MISALIGNED, "misaligned", "dst", 0x10, 32, "copy_gm_l1",
         "copy_gm_l1: operand dst = L1:0x10 is not 32-byte aligned")},
      {load(ISA_OP_LOAD_L0A, 0x100, 0, 1),
       W(ISA_FAULT_MISALIGNED, "misaligned", "dst", 0x100, 512, "load_l0a",
         "load_l0a: operand dst = L0A:0x100 is not 512-byte aligned")},
      {load(ISA_OP_LOAD_L0A, 0, 0x30, 1), /* 48 is not a multiple of L1's 32 */
       W(ISA_FAULT_MISALIGNED, "misaligned", "src", 0x30, 32, "load_l0a",
         "load_l0a: operand src = L1:0x30 is not 32-byte aligned")},
      {load(ISA_OP_LOAD_L0B, 0x300, 0, 1),
       W(ISA_FAULT_MISALIGNED, "misaligned", "dst", 0x300, 512, "load_l0b",
         "load_l0b: operand dst = L0B:0x300 is not 512-byte aligned")},
      {ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x8, ISA_MEM_GM, GM_A, 32),
       W(ISA_FAULT_MISALIGNED, "misaligned", "dst", 0x8, 32, "copy_gm_ub",
         "copy_gm_ub: operand dst = UB:0x8 is not 32-byte aligned")},
      {ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, GM_B, ISA_MEM_UB, 0x4, 32),
       W(ISA_FAULT_MISALIGNED, "misaligned", "src", 0x4, 32, "copy_ub_gm",
         "copy_ub_gm: operand src = UB:0x4 is not 32-byte aligned")},
      {ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0x20, ISA_MEM_L1, 0, 64),
       W(ISA_FAULT_MISALIGNED, "misaligned", "dst", 0x20, 64, "copy_l1_bt",
         "copy_l1_bt: operand dst = BT:0x20 is not 64-byte aligned")},
      {ib_copy(ISA_OP_COPY_L1_FB, ISA_MEM_FB, 0x20, ISA_MEM_L1, 0, 64),
       W(ISA_FAULT_MISALIGNED, "misaligned", "dst", 0x20, 64, "copy_l1_fb",
         "copy_l1_fb: operand dst = FB:0x20 is not 64-byte aligned")},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) expect_fault(cases[i].in, &cases[i].w);

  /* mmad: C in L0C (1 KiB), A and B (512 B), each field by name */
  isa_insn in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.dst.off = 0x200;
  want w = W(ISA_FAULT_MISALIGNED, "misaligned", "dst", 0x200, 1024, "mmad",
             "mmad: operand dst = L0C:0x200 is not 1024-byte aligned");
  expect_fault(in, &w);
  in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.a.off = 0x80;
  w = (want)W(ISA_FAULT_MISALIGNED, "misaligned", "a", 0x80, 512, "mmad",
              "mmad: operand a = L0A:0x80 is not 512-byte aligned");
  expect_fault(in, &w);
  in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.b.off = 0x280;
  w = (want)W(ISA_FAULT_MISALIGNED, "misaligned", "b", 0x280, 512, "mmad",
              "mmad: operand b = L0B:0x280 is not 512-byte aligned");
  expect_fault(in, &w);
  /* the bias row in BT, used */
  in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.bias_en = 1;
  in.u.mmad.bias = (isa_addr){ISA_MEM_BT, 0x10};
  w = (want)W(ISA_FAULT_MISALIGNED, "misaligned", "bias", 0x10, 64, "mmad",
              "mmad: operand bias = BT:0x10 is not 64-byte aligned");
  expect_fault(in, &w);
  /* fixpipe: the L0C source, and the FB words of a vector mode */
  in = fixpipe();
  in.u.fixpipe.src.off = 0x40;
  w = (want)W(ISA_FAULT_MISALIGNED, "misaligned", "src", 0x40, 1024, "fixpipe",
              "fixpipe: operand src = L0C:0x40 is not 1024-byte aligned");
  expect_fault(in, &w);
  in = fixpipe();
  in.u.fixpipe.quant_pre = ISA_QUANT_VDEQF16;
  in.u.fixpipe.fb = (isa_addr){ISA_MEM_FB, 0x48};
  w = (want)W(ISA_FAULT_MISALIGNED, "misaligned", "fb", 0x48, 64, "fixpipe",
              "fixpipe: operand fb = FB:0x48 is not 64-byte aligned");
  expect_fault(in, &w);
  /* vdeq's scale, a third UB operand */
  in = vdeq();
  in.u.vdeq.scale.off = 0x410;
  w = (want)W(ISA_FAULT_MISALIGNED, "misaligned", "scale", 0x410, 32, "vdeq",
              "vdeq: operand scale = UB:0x410 is not 32-byte aligned");
  expect_fault(in, &w);

  /* the aligned neighbours of each are accepted */
  expect_ok(ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0x20, ISA_MEM_GM, GM_A, 32));
  expect_ok(load(ISA_OP_LOAD_L0A, 0x200, 0x20, 1));
  expect_ok(load(ISA_OP_LOAD_L0B, 0x400, 0, 1));
  expect_ok(ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x20, ISA_MEM_GM, GM_A, 32));
  expect_ok(ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0x40, ISA_MEM_L1, 0, 64));
  expect_ok(ib_copy(ISA_OP_COPY_L1_FB, ISA_MEM_FB, 0x40, ISA_MEM_L1, 0, 64));
  in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.dst.off = 0x400;
  in.u.mmad.a.off = 0x200;
  in.u.mmad.b.off = 0x200;
  expect_ok(in);
  in = vdeq();
  in.u.vdeq.scale.off = 0x420;
  expect_ok(in);
}

/* The alignments come from the configuration: BT at 128 refuses 0x40, which 64 accepted; GM at
 * 32 refuses an address inside a tensor that is not a multiple of 32. */
static void test_sim_faults_alignment_follows_the_config(void **state) {
  (void)state;
  sim_config c;
  fault_config(&c);
  c.buffers_bt_align_bytes = 128;
  c.buffers_gm_align_bytes = 32;
  sim *s = make_sim(&c, false);
  want w = W(ISA_FAULT_MISALIGNED, "misaligned", "dst", 0x40, 128, "copy_l1_bt",
             "copy_l1_bt: operand dst = BT:0x40 is not 128-byte aligned");
  expect_fault_in(s, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0x40, ISA_MEM_L1, 0, 64), &w);
  expect_ok_in(s, ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0x80, ISA_MEM_L1, 0, 64));
  sim_destroy(s);
  s = make_sim(&c, false);
  w = (want)W(ISA_FAULT_MISALIGNED, "misaligned", "src", 0x410, 32, "copy_gm_ub",
              "copy_gm_ub: operand src = GM:0x410 is not 32-byte aligned");
  expect_fault_in(s, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x40, ISA_MEM_GM, GM_B + 0x10, 32), &w);
  expect_ok_in(s, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x40, ISA_MEM_GM, GM_B + 0x20, 32));
  sim_destroy(s);
  /* with the default GM alignment (1) any byte address is fine */
  expect_ok(ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x40, ISA_MEM_GM, GM_B + 0x11, 32));
}

/* ---- bounds ------------------------------------------------------------------------------- */

/* Each on-chip memory at its end: an access ending exactly at the last byte is accepted, one
 * byte further is refused (load2d and mmad move whole fractals: one fractal further). */
static void test_sim_faults_out_of_bounds_in_each_onchip_memory(void **state) {
  (void)state;
  struct {
    isa_insn ok, bad;
    want w;
  } cases[] = {
      /* L1 8192: 64 bytes at 0x1fc0 end at 0x2000 */
      {ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0x1fc0, ISA_MEM_GM, GM_A, 64),
       ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0x1fc0, ISA_MEM_GM, GM_A, 65),
       W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x2001, 8192, "copy_gm_l1",
         "write of L1 [0x1fc0, 0x2001) goes past its 8192 bytes")},
      /* L1 as a source: 32 bytes at 0x1fe0 */
      {ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0x1fe0, 32),
       ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0, ISA_MEM_L1, 0x1fe0, 33),
       W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x2001, 8192, "copy_l1_bt",
         "read of L1 [0x1fe0, 0x2001) goes past its 8192 bytes")},
      /* L0A 4096: one fractal at 0xe00 ends at 0x1000; two end at 0x1200 */
      {load(ISA_OP_LOAD_L0A, 0xe00, 0, 1), load(ISA_OP_LOAD_L0A, 0xe00, 0, 2),
       W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x1200, 4096, "load_l0a",
         "write of L0A [0xe00, 0x1200) goes past its 4096 bytes")},
      /* L0B 4096, the same */
      {load(ISA_OP_LOAD_L0B, 0xe00, 0, 1), load(ISA_OP_LOAD_L0B, 0xe00, 0, 2),
       W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x1200, 4096, "load_l0b",
         "write of L0B [0xe00, 0x1200) goes past its 4096 bytes")},
      /* UB 4096: 32 bytes at 0xfe0 */
      {ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0xfe0, ISA_MEM_GM, GM_A, 32),
       ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0xfe0, ISA_MEM_GM, GM_A, 33),
       W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x1001, 4096, "copy_gm_ub",
         "write of UB [0xfe0, 0x1001) goes past its 4096 bytes")},
      /* BT 1024: 64 bytes at 0x3c0 */
      {ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0x3c0, ISA_MEM_L1, 0, 64),
       ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 0x3c0, ISA_MEM_L1, 0, 65),
       W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x401, 1024, "copy_l1_bt",
         "write of BT [0x3c0, 0x401) goes past its 1024 bytes")},
      /* FB 2048: 64 bytes at 0x7c0 */
      {ib_copy(ISA_OP_COPY_L1_FB, ISA_MEM_FB, 0x7c0, ISA_MEM_L1, 0, 64),
       ib_copy(ISA_OP_COPY_L1_FB, ISA_MEM_FB, 0x7c0, ISA_MEM_L1, 0, 65),
       W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x801, 2048, "copy_l1_fb",
         "write of FB [0x7c0, 0x801) goes past its 2048 bytes")},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    expect_ok(cases[i].ok);
    expect_fault(cases[i].bad, &cases[i].w);
  }

  /* a strided write: the second of two 32-byte bursts 4064 bytes apart ends at 0x1000 in UB */
  isa_insn ok = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, GM_A, 32);
  ok.u.copy.block_count = 2;
  ok.u.copy.dst_gap_bytes = 4032;
  expect_ok(ok);
  isa_insn bad = ok;
  bad.u.copy.dst_gap_bytes = 4033;
  want w = W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x1001, 4096, "copy_gm_ub",
             "write of UB [0x0, 0x1001) goes past its 4096 bytes");
  expect_fault(bad, &w);

  /* an address so large that the end wraps around 2^64 */
  bad = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0xffffffffffffffe0ull, ISA_MEM_GM, GM_A, 64);
  w = (want)W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0xffffffffffffffe0ull, 4096,
              "copy_gm_ub", "write of UB at 0xffffffffffffffe0 overflows the address space");
  expect_fault(bad, &w);
}

/* mmad reads and writes whole fractals: its fractal counts (ceil(m/16)·ceil(k/k0) for A,
 * ceil(k/k0)·ceil(n/16) for B, ceil(m/16)·ceil(n/16) for C) against the end of each buffer. */
static void test_sim_faults_mmad_fractals_past_a_buffer(void **state) {
  (void)state;
  /* A at L0A:0xe00: m = 16, k = 32 is one 512-byte fractal (ends at 0x1000); m = 17 is two */
  isa_insn ok = ib_mmad(ISA_INT8, 16, 16, 32), bad;
  ok.u.mmad.a.off = 0xe00;
  expect_ok(ok);
  bad = ok;
  bad.u.mmad.m = 17;
  want w = W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x1200, 4096, "mmad",
             "read of L0A [0xe00, 0x1200) goes past its 4096 bytes");
  expect_fault(bad, &w);
  /* B at L0B:0xe00: k = 32 is one k-block of int8; k = 33 is two */
  ok = ib_mmad(ISA_INT8, 16, 16, 32);
  ok.u.mmad.b.off = 0xe00;
  expect_ok(ok);
  bad = ok;
  bad.u.mmad.k = 33;
  w = (want)W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x1200, 4096, "mmad",
              "read of L0B [0xe00, 0x1200) goes past its 4096 bytes");
  expect_fault(bad, &w);
  /* C at L0C:0x1c00: n = 16 is one 1 KiB fractal (ends at 0x2000); n = 17 is two */
  ok = ib_mmad(ISA_INT8, 16, 16, 32);
  ok.u.mmad.dst.off = 0x1c00;
  expect_ok(ok);
  bad = ok;
  bad.u.mmad.n = 17;
  w = (want)W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x2400, 8192, "mmad",
              "write of L0C [0x1c00, 0x2400) goes past its 8192 bytes");
  expect_fault(bad, &w);
  /* accumulating (init_c = 0) reads C first */
  bad.u.mmad.init_c = 0;
  w = (want)W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x2400, 8192, "mmad",
              "read of L0C [0x1c00, 0x2400) goes past its 8192 bytes");
  expect_fault(bad, &w);
  /* the bias row: n int32 in BT (1024 bytes): n = 256 at 0 fits, at 0x40 it does not */
  ok = ib_mmad(ISA_INT8, 16, 256, 32);
  ok.u.mmad.bias_en = 1;
  ok.u.mmad.bias = (isa_addr){ISA_MEM_BT, 0};
  sim_config c;
  fault_config(&c);
  c.buffers_l0b_bytes = 16384; /* B: 16 fractals of 512 bytes; C: 16 KiB */
  c.buffers_l0c_bytes = 16384;
  sim *s = make_sim(&c, false);
  expect_ok_in(s, ok);
  sim_destroy(s);
  bad = ok;
  bad.u.mmad.bias.off = 0x40;
  s = make_sim(&c, false);
  w = (want)W(ISA_FAULT_OUT_OF_BOUNDS, "out-of-bounds", "", 0x440, 1024, "mmad",
              "read of BT [0x40, 0x440) goes past its 1024 bytes");
  expect_fault_in(s, bad, &w);
  sim_destroy(s);
}

/* GM: outside every tensor (far away, in the gap after a tensor, just past its last byte),
 * running past the end of a tensor (read and write), a strided access reaching into the next
 * tensor. */
static void test_sim_faults_gm_outside_tensors(void **state) {
  (void)state;
  want w = W(ISA_FAULT_GM_UNMAPPED, "gm-unmapped", "", 0x100000, 0, "copy_gm_ub",
             "GM read at 0x100000 is outside every allocated tensor");
  expect_fault(ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x40, ISA_MEM_GM, 0x100000, 32), &w);
  /* a ends at 0x3e8, b starts at 0x400: the gap belongs to nobody */
  w = (want)W(ISA_FAULT_GM_UNMAPPED, "gm-unmapped", "", 0x3e8, 0, "copy_gm_ub",
              "GM read at 0x3e8 is outside every allocated tensor");
  expect_fault(ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x40, ISA_MEM_GM, 0x3e8, 1), &w);
  w = (want)W(ISA_FAULT_GM_UNMAPPED, "gm-unmapped", "", 0x1400, 0, "copy_ub_gm",
              "GM write at 0x1400 is outside every allocated tensor");
  expect_fault(ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, 0x1400, ISA_MEM_UB, 0, 32), &w);

  /* the last 32 bytes of a are fine; 33 run one byte past its end */
  expect_ok(ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x40, ISA_MEM_GM, 0x3c8, 32));
  w = (want)W(ISA_FAULT_GM_UNMAPPED, "gm-unmapped", "", 0x3e9, 0x3e8, "copy_gm_ub",
              "GM read [0x3c8, 0x3e9) runs past the end of tensor 'a' [0x0, 0x3e8)");
  expect_fault(ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x40, ISA_MEM_GM, 0x3c8, 33), &w);
  /* writes: the last 32 bytes of b, then 33 */
  expect_ok(ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, 0x13e0, ISA_MEM_UB, 0, 32));
  w = (want)W(ISA_FAULT_GM_UNMAPPED, "gm-unmapped", "", 0x1401, 0x1400, "copy_ub_gm",
              "GM write [0x13e0, 0x1401) runs past the end of tensor 'b' [0x400, 0x1400)");
  expect_fault(ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, 0x13e0, ISA_MEM_UB, 0, 33), &w);
  /* two bursts of a, the second at 0x400: inside b, but one access never spans two tensors */
  isa_insn in = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x40, ISA_MEM_GM, GM_A, 32);
  in.u.copy.block_count = 2;
  in.u.copy.src_gap_bytes = 0x400 - 32;
  w = (want)W(ISA_FAULT_GM_UNMAPPED, "gm-unmapped", "", 0x420, 0x3e8, "copy_gm_ub",
              "GM read [0x0, 0x420) runs past the end of tensor 'a' [0x0, 0x3e8)");
  expect_fault(in, &w);
  /* the fixpipe writes 16 rows of 16 fp16 (512 bytes) into b: at b + 0xe00 it ends at 0x1400;
   * at b + 0xe20 it runs past */
  in = fixpipe();
  in.u.fixpipe.dst.off = GM_B + 0xe00;
  expect_ok(in);
  in.u.fixpipe.dst.off = GM_B + 0xe20;
  w = (want)W(ISA_FAULT_GM_UNMAPPED, "gm-unmapped", "", 0x1420, 0x1400, "fixpipe",
              "GM write [0x1220, 0x1420) runs past the end of tensor 'b' [0x400, 0x1400)");
  expect_fault(in, &w);
}

/* ---- static operand checks ---------------------------------------------------------------- */

static void test_sim_faults_wrong_memory(void **state) {
  (void)state;
  want w = W(ISA_FAULT_BAD_MEM, "bad-memory", "dst", ISA_MEM_UB, ISA_MEMBIT(L1), "copy_gm_l1",
             "copy_gm_l1: operand dst names UB, which copy_gm_l1 cannot access");
  expect_fault(ib_copy(ISA_OP_COPY_GM_L1, ISA_MEM_UB, 0, ISA_MEM_GM, GM_A, 32), &w);
  isa_insn in = load(ISA_OP_LOAD_L0A, 0, 0, 1);
  in.u.load2d.src = (isa_addr){ISA_MEM_GM, GM_A};
  w = (want)W(ISA_FAULT_BAD_MEM, "bad-memory", "src", ISA_MEM_GM, ISA_MEMBIT(L1), "load_l0a",
              "load_l0a: operand src names GM, which load_l0a cannot access");
  expect_fault(in, &w);
  in = fixpipe();
  in.u.fixpipe.dst = (isa_addr){ISA_MEM_UB, 0};
  w = (want)W(ISA_FAULT_BAD_MEM, "bad-memory", "dst", ISA_MEM_UB, ISA_MEMBIT(GM) | ISA_MEMBIT(L1),
              "fixpipe", "fixpipe: operand dst names UB, which fixpipe cannot access");
  expect_fault(in, &w);
  /* the families' own address fields */
  in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.a.mem = ISA_MEM_L0B;
  w = (want)W(ISA_FAULT_BAD_MEM, "bad-memory", "a", ISA_MEM_L0B, ISA_MEMBIT(L0A), "mmad",
              "mmad: operand a names L0B; A must be in L0A");
  expect_fault(in, &w);
  in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.b.mem = ISA_MEM_L1;
  w = (want)W(ISA_FAULT_BAD_MEM, "bad-memory", "b", ISA_MEM_L1, ISA_MEMBIT(L0B), "mmad",
              "mmad: operand b names L1; B must be in L0B");
  expect_fault(in, &w);
  in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.bias_en = 1;
  in.u.mmad.bias = (isa_addr){ISA_MEM_UB, 0};
  w = (want)W(ISA_FAULT_BAD_MEM, "bad-memory", "bias", ISA_MEM_UB, ISA_MEMBIT(BT), "mmad",
              "mmad: operand bias names UB; the bias must be in BT");
  expect_fault(in, &w);
  in = fixpipe();
  in.u.fixpipe.quant_pre = ISA_QUANT_VDEQF16;
  in.u.fixpipe.fb = (isa_addr){ISA_MEM_L1, 0};
  w = (want)W(ISA_FAULT_BAD_MEM, "bad-memory", "fb", ISA_MEM_L1, ISA_MEMBIT(FB), "fixpipe",
              "fixpipe: operand fb names L1; quant_pre VDEQF16 reads its words from FB");
  expect_fault(in, &w);
  in = vdeq();
  in.u.vdeq.scale.mem = ISA_MEM_GM;
  w = (want)W(ISA_FAULT_BAD_MEM, "bad-memory", "scale", ISA_MEM_GM, ISA_MEMBIT(UB), "vdeq",
              "vdeq: operand scale names GM; the scales must be in UB");
  expect_fault(in, &w);
  /* copies between memories no copy path joins */
  w = (want)W(ISA_FAULT_BAD_MEM, "bad-memory", "dst", ISA_MEM_FB, ISA_MEMBIT(BT), "copy_l1_bt",
              "copy_l1_bt: operand dst names FB, which copy_l1_bt cannot access");
  expect_fault(ib_copy(ISA_OP_COPY_L1_BT, ISA_MEM_FB, 0, ISA_MEM_L1, 0, 64), &w);
}

static void test_sim_faults_field_out_of_range(void **state) {
  (void)state;
  isa_insn in = ib_mmad(ISA_INT8, 4096, 16, 32);
  want w = W(ISA_FAULT_FIELD_RANGE, "field-range", "m", 4096, 4095, "mmad",
             "mmad: m = 4096 is out of range [1, 4095]");
  expect_fault(in, &w);
  in = ib_mmad(ISA_INT8, 16, 16, 0);
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "k", 0, 1, "mmad",
              "mmad: k = 0 is out of range [1, 4095]");
  expect_fault(in, &w);
  in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.init_c = 0;
  in.u.mmad.bias_en = 1;
  in.u.mmad.bias = (isa_addr){ISA_MEM_BT, 0};
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "bias_en", 1, 0, "mmad",
              "mmad: bias_en = 1 requires init_c = 1 (the bias initialises C)");
  expect_fault(in, &w);
  /* event ids 0..7 */
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "event_id", 8, 7, "set_flag",
              "set_flag: event_id = 8 is out of range [0, 7]");
  expect_fault(ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 8), &w);
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "event_id", 8, 7, "wait_flag",
              "wait_flag: event_id = 8 is out of range [0, 7]");
  expect_fault(ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 8), &w);
  expect_ok(ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 7));
  /* a flag joins two different pipes; ALL is for barriers only */
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "dst_pipe", ISA_PIPE_MTE2, ISA_PIPE_MTE2,
              "set_flag",
              "set_flag: src_pipe and dst_pipe are both MTE2; a flag joins two pipes (use "
              "pipe_barrier within one pipe)");
  expect_fault(ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE2, 0), &w);
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "dst_pipe", ISA_PIPE_ALL, ISA_PIPE_COUNT - 1,
              "wait_flag", "wait_flag: dst_pipe = 7 is out of range [0, 6]");
  expect_fault(ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_ALL, 0), &w);
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "pipe", 8, 7, "pipe_barrier",
              "pipe_barrier: pipe = 8 is out of range [0, 7]");
  expect_fault(ib_barrier(ISA_PIPE_ALL + 1), &w);
  /* burst counts and repeats */
  in = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, GM_A, 1);
  in.u.copy.block_count = 4096;
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "block_count", 4096, 4095, "copy_gm_ub",
              "copy_gm_ub: block_count = 4096 is out of range [1, 4095]");
  expect_fault(in, &w);
  in = load(ISA_OP_LOAD_L0B, 0, 0, 256);
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "repeat_times", 256, 255, "load_l0b",
              "load_l0b: repeat_times = 256 is out of range [1, 255]");
  expect_fault(in, &w);
  /* a family rule between two fields */
  in = nd2nz();
  in.u.nd2nz.src_d_value = 16;
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "src_d_value", 16, 32, "copy_gm_l1_nd2nz",
              "copy_gm_l1_nd2nz: src_d_value = 16 is less than d_value = 32");
  expect_fault(in, &w);
  in = fixpipe();
  in.u.fixpipe.src_stride = 15;
  w = (want)W(ISA_FAULT_FIELD_RANGE, "field-range", "src_stride", 15, 16, "fixpipe",
              "fixpipe: src_stride = 15 is below m_size = 16 (L0C rows between 16-column "
              "blocks)");
  expect_fault(in, &w);
}

static void test_sim_faults_unsupported_dtypes(void **state) {
  (void)state;
  isa_insn in = ib_mmad(ISA_INT8, 16, 16, 32);
  in.u.mmad.dtype = ISA_FP32;
  want w = W(ISA_FAULT_DTYPE, "dtype", "dtype", ISA_FP32, 0, "mmad",
             "mmad: dtype fp32 is not a cube input type (int8, int4, fp16, bf16)");
  expect_fault(in, &w);
  in.u.mmad.dtype = 99;
  w = (want)W(ISA_FAULT_DTYPE, "dtype", "dtype", 99, ISA_DTYPE_COUNT - 1, "mmad",
              "mmad: dtype = 99 is not a data type");
  expect_fault(in, &w);
  /* a pair of types no conversion joins */
  w = (want)W(ISA_FAULT_DTYPE, "dtype", "dst_dtype", ISA_FP32, 0, "vcast",
              "vcast: no conversion from int8 to fp32 (from int8: fp16)");
  expect_fault(vcast(ISA_INT8, ISA_FP32), &w);
  w = (want)W(ISA_FAULT_DTYPE, "dtype", "dst_dtype", ISA_BF16, 0, "vcast",
              "vcast: no conversion from fp16 to bf16 (from fp16: int8, uint8, int16, int32, fp32)");
  expect_fault(vcast(ISA_FP16, ISA_BF16), &w);
  expect_ok(vcast(ISA_FP16, ISA_FP32));
  expect_ok(vcast(ISA_INT8, ISA_FP16));
  in = fixpipe();
  in.u.fixpipe.l0c_dtype = ISA_FP16;
  w = (want)W(ISA_FAULT_DTYPE, "dtype", "l0c_dtype", ISA_FP16, 0, "fixpipe",
              "fixpipe: l0c_dtype fp16 is not an L0C type (int32 or fp32)");
  expect_fault(in, &w);
  in = vdeq();
  in.u.vdeq.out_dtype = ISA_INT8;
  w = (want)W(ISA_FAULT_DTYPE, "dtype", "out_dtype", ISA_INT8, 0, "vdeq",
              "vdeq: out_dtype int8 is not a vdeq output (fp32, fp16 or bf16)");
  expect_fault(in, &w);
  in = load(ISA_OP_LOAD_L0B, 0, 0, 1);
  in.u.load2d.dtype = ISA_FP32;
  in.u.load2d.if_transpose = 1;
  w = (want)W(ISA_FAULT_DTYPE, "dtype", "dtype", ISA_FP32, 0, "load_l0b",
              "load_l0b: dtype fp32 cannot be transposed (only int4, int8, uint8, fp16, bf16)");
  expect_fault(in, &w);
}

static void test_sim_faults_bad_quant_mode_combination(void **state) {
  (void)state;
  isa_insn in = fixpipe();
  in.u.fixpipe.l0c_dtype = ISA_FP32; /* DEQF16 dequantizes int32 */
  want w = W(ISA_FAULT_QUANT_MODE, "quant-mode", "quant_pre", ISA_QUANT_DEQF16, 0, "fixpipe",
             "fixpipe: quant_pre DEQF16 needs l0c_dtype int32 and out_dtype fp16, not l0c_dtype "
             "fp32 and out_dtype fp16");
  expect_fault(in, &w);
  in = fixpipe();
  in.u.fixpipe.quant_pre = ISA_QUANT_REQ8; /* REQ8 writes int8 or uint8 */
  w = (want)W(ISA_FAULT_QUANT_MODE, "quant-mode", "quant_pre", ISA_QUANT_REQ8, 0, "fixpipe",
              "fixpipe: quant_pre REQ8 needs l0c_dtype int32 and out_dtype int8 or uint8, not "
              "l0c_dtype int32 and out_dtype fp16");
  expect_fault(in, &w);
  in = fixpipe();
  in.u.fixpipe.quant_pre = ISA_QUANT_F322BF16;
  in.u.fixpipe.l0c_dtype = ISA_FP32;
  w = (want)W(ISA_FAULT_QUANT_MODE, "quant-mode", "quant_pre", ISA_QUANT_F322BF16, 0, "fixpipe",
              "fixpipe: quant_pre F322BF16 needs l0c_dtype fp32 and out_dtype bf16, not l0c_dtype "
              "fp32 and out_dtype fp16");
  expect_fault(in, &w);
  in = fixpipe();
  in.u.fixpipe.quant_pre = 99;
  w = (want)W(ISA_FAULT_QUANT_MODE, "quant-mode", "quant_pre", 99, ISA_QUANT_COUNT - 1, "fixpipe",
              "fixpipe: quant_pre = 99 is not a quant mode");
  expect_fault(in, &w);
  /* the same modes with their types are accepted */
  in = fixpipe();
  in.u.fixpipe.quant_pre = ISA_QUANT_REQ8;
  in.u.fixpipe.out_dtype = ISA_INT8;
  expect_ok(in);
  in = fixpipe();
  in.u.fixpipe.quant_pre = ISA_QUANT_F322F16;
  in.u.fixpipe.l0c_dtype = ISA_FP32;
  expect_ok(in);
}

/* ---- what a fault does -------------------------------------------------------------------- */

/* Nothing of the faulting instruction is applied: a copy whose destination runs one byte past
 * UB leaves the in-bounds bytes untouched. A timing-only simulator gives the same fault. */
static void test_sim_faults_nothing_is_applied(void **state) {
  (void)state;
  sim *s = default_sim();
  uint8_t *a = sim_gm_ptr(s, GM_A, GM_A_BYTES);
  assert_non_null(a);
  for (unsigned i = 0; i < GM_A_BYTES; i++) a[i] = (uint8_t)(i * 13 + 5);
  sim_core *c = sim_get_core(s, 0);
  isa_insn bad = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0xfe0, ISA_MEM_GM, GM_A, 33);
  assert_int_equal(sim_core_issue(c, &bad), CS_EFAULT);
  const uint8_t *ub = sim_core_buf(c, ISA_MEM_UB);
  assert_non_null(ub);
  for (unsigned i = 0; i < 32; i++) assert_int_equal(ub[0xfe0 + i], 0);
  assert_int_equal(sim_core_stream_len(c), 0);
  sim_fault f0 = *sim_core_fault(c);
  sim_destroy(s);

  sim_config cfg;
  fault_config(&cfg);
  s = make_sim(&cfg, true);
  c = sim_get_core(s, 0);
  assert_null(sim_core_buf(c, ISA_MEM_UB));
  assert_int_equal(sim_core_issue(c, &bad), CS_EFAULT);
  assert_same_fault(sim_core_fault(c), &f0);
  char msg[512];
  sim_fault_describe(sim_core_fault(c), msg, sizeof msg);
  assert_string_equal(msg, "core 0, instruction 0 (copy_gm_ub): write of UB [0xfe0, 0x1001) goes "
                           "past its 4096 bytes [out-of-bounds]");
  sim_destroy(s);
}

/* The fault's index is the instruction's position in its core's stream. */
static void test_sim_faults_index_counts_the_cores_instructions(void **state) {
  (void)state;
  sim *s = default_sim();
  sim_core *c0 = sim_get_core(s, 0), *c1 = sim_get_core(s, 1);
  isa_insn g = good();
  for (int i = 0; i < 5; i++) assert_int_equal(sim_core_issue(c1, &g), CS_OK);
  for (int i = 0; i < 2; i++) assert_int_equal(sim_core_issue(c0, &g), CS_OK);
  isa_insn bad = ib_mmad(ISA_INT8, 16, 16, 32);
  bad.u.mmad.n = 4096;
  assert_int_equal(sim_core_issue(c0, &bad), CS_EFAULT);
  const sim_fault *f = sim_core_fault(c0);
  assert_int_equal(f->core, 0);
  assert_int_equal(f->index, 2);
  char msg[512];
  sim_fault_describe(f, msg, sizeof msg);
  assert_string_equal(msg, "core 0, instruction 2 (mmad): mmad: n = 4096 is out of range [1, 4095] "
                           "[field-range]");
  assert_null(sim_core_fault(c1));
  assert_int_equal(sim_core_stream_len(c1), 5);
  sim_destroy(s);
}

/* Runtime faults (buffers, queues, events) are raised between instructions: the position is the
 * stream length, the description says after which instruction; the first fault wins. */
static void test_sim_faults_runtime_raise(void **state) {
  (void)state;
  sim *s = default_sim();
  sim_core *c = sim_get_core(s, 0);
  isa_insn g = good();
  assert_int_equal(sim_core_issue(c, &g), CS_OK);
  assert_int_equal(sim_core_issue(c, &g), CS_OK);
  sim_core_raise(c, ISA_FAULT_RUNTIME, "queue %s holds %d tensors, its depth is %d", "VECIN", 3, 2);
  const sim_fault *f = sim_core_fault(c);
  assert_non_null(f);
  assert_int_equal(f->f.cause, ISA_FAULT_RUNTIME);
  assert_string_equal(f->f.operand, "");
  assert_int_equal(f->f.value, 0);
  assert_int_equal(f->f.limit, 0);
  assert_string_equal(f->f.msg, "queue VECIN holds 3 tensors, its depth is 2");
  assert_int_equal(f->core, 0);
  assert_int_equal(f->index, 2); /* the stream position: two instructions, 0 and 1, were issued */
  assert_int_equal(f->insn.op, ISA_OP_COUNT);
  char msg[512];
  sim_fault_describe(f, msg, sizeof msg);
  assert_string_equal(msg, "core 0, after instruction 1: queue VECIN holds 3 tensors, its depth is "
                           "2 [runtime]");
  /* later issues and raises are ignored */
  assert_int_equal(sim_core_issue(c, &g), CS_EFAULT);
  sim_core_raise(c, ISA_FAULT_RUNTIME, "a second problem");
  assert_int_equal(sim_core_stream_len(c), 2);
  assert_string_equal(sim_core_fault(c)->f.msg, "queue VECIN holds 3 tensors, its depth is 2");
  /* on core 1, before any instruction */
  sim_core *c1 = sim_get_core(s, 1);
  sim_core_raise(c1, ISA_FAULT_RUNTIME, "event id %d is not allocated", 3);
  sim_fault_describe(sim_core_fault(c1), msg, sizeof msg);
  assert_int_equal(sim_core_fault(c1)->index, 0);
  assert_string_equal(msg, "core 1, before its first instruction: event id 3 is not allocated "
                           "[runtime]");
  sim_destroy(s);
}

/* One core's fault leaves the other core and another simulator alone: core 1 of a simulator
 * whose core 0 faulted replays to the same cycles as the same program alone in a second
 * simulator, and its data moved. */
static void test_sim_faults_do_not_leak_between_cores_or_simulators(void **state) {
  (void)state;
  sim *s1 = default_sim(), *s2 = default_sim();
  uint8_t *a1 = sim_gm_ptr(s1, GM_A, 64), *a2 = sim_gm_ptr(s2, GM_A, 64);
  for (int i = 0; i < 64; i++) a1[i] = a2[i] = (uint8_t)(200 - i);
  isa_insn bad = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x8, ISA_MEM_GM, GM_A, 32);
  assert_int_equal(sim_core_issue(sim_get_core(s1, 0), &bad), CS_EFAULT);
  isa_insn prog[4] = {
      ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, GM_A, 64),
      ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0),
      ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0),
      ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, GM_B, ISA_MEM_UB, 0, 64),
  };
  for (int i = 0; i < 4; i++) {
    assert_int_equal(sim_core_issue(sim_get_core(s1, 1), &prog[i]), CS_OK);
    assert_int_equal(sim_core_issue(sim_get_core(s2, 1), &prog[i]), CS_OK);
  }
  assert_null(sim_core_fault(sim_get_core(s1, 1)));
  assert_null(sim_core_fault(sim_get_core(s2, 0)));
  assert_null(sim_core_fault(sim_get_core(s2, 1)));
  assert_memory_equal(sim_gm_ptr(s1, GM_B, 64), a1, 64);
  assert_memory_equal(sim_gm_ptr(s2, GM_B, 64), a2, 64);
  sim_result r1, r2;
  cs_err err;
  assert_int_equal(sim_run(s1, NULL, &r1, &err), CS_OK);
  assert_int_equal(sim_run(s2, NULL, &r2, &err), CS_OK);
  assert_int_equal(r1.stats.core[0].instructions, 0);
  assert_int_equal(r1.stats.core[1].instructions, 4);
  assert_true(r1.total_cycles > 0);
  assert_int_equal(r1.total_cycles, r2.total_cycles);
  assert_int_equal(r1.stats.core[1].finish_cycles, r2.stats.core[1].finish_cycles);
  sim_result_free(&r1);
  sim_result_free(&r2);
  sim_destroy(s1);
  sim_destroy(s2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_faults_misaligned_in_each_onchip_memory),
      cmocka_unit_test(test_sim_faults_alignment_follows_the_config),
      cmocka_unit_test(test_sim_faults_out_of_bounds_in_each_onchip_memory),
      cmocka_unit_test(test_sim_faults_mmad_fractals_past_a_buffer),
      cmocka_unit_test(test_sim_faults_gm_outside_tensors),
      cmocka_unit_test(test_sim_faults_wrong_memory),
      cmocka_unit_test(test_sim_faults_field_out_of_range),
      cmocka_unit_test(test_sim_faults_unsupported_dtypes),
      cmocka_unit_test(test_sim_faults_bad_quant_mode_combination),
      cmocka_unit_test(test_sim_faults_nothing_is_applied),
      cmocka_unit_test(test_sim_faults_index_counts_the_cores_instructions),
      cmocka_unit_test(test_sim_faults_runtime_raise),
      cmocka_unit_test(test_sim_faults_do_not_leak_between_cores_or_simulators),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
