/* Tests of isa/isa_text: round trips of every instruction with random operands, non-canonical
 * spellings, hand-written lines with their records, every assembler error with its message and
 * column and symbolic GM operands. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_text.h"
#include "support/rng.h"

/* 64 random bits: the top halves of two LCG states. */
static uint64_t rnd64(uint64_t *state) {
  uint64_t hi = rng_lcg_step(state) >> 32;
  return (hi << 32) | (rng_lcg_step(state) >> 32);
}

static uint64_t rnd(uint64_t *state, uint64_t n) { return rnd64(state) % n; }

/* A value of varied magnitude: 0, all ones, or random bits shifted down by a random amount. */
static uint64_t rnd_bits(uint64_t *state, unsigned bits) {
  uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
  switch (rnd(state, 8)) {
    case 0: return 0;
    case 1: return mask;
    case 2: return rnd(state, 20);
    default: return (rnd64(state) >> rnd(state, 64)) & mask;
  }
}

static uint32_t rnd_enum(uint64_t *state, uint32_t count) {
  return rnd(state, 5) ? (uint32_t)rnd(state, count) : (uint32_t)rnd_bits(state, 32);
}

/* A record of opcode op with random operands, built field by field on a zeroed record (so the
 * padding is zero, as the assembler leaves it). */
static void random_insn(isa_op op, uint64_t *state, isa_insn *in) {
  memset(in, 0, sizeof *in);
  in->op = (uint32_t)op;
  const isa_op_desc *d = isa_op_info(op);
  for (size_t i = 0; i < d->field_count; i++) {
    const isa_field_desc *f = &d->fields[i];
    void *p = isa_field_ptr(in, f);
    uint32_t u = 0;
    uint64_t w = 0;
    switch (f->kind) {
      case ISA_FK_ADDR: {
        isa_addr *a = p;
        a->mem = rnd_enum(state, ISA_MEM_COUNT);
        a->off = rnd_bits(state, 64);
        continue;
      }
      case ISA_FK_U64:
        w = rnd_bits(state, 64);
        memcpy(p, &w, sizeof w);
        continue;
      case ISA_FK_U32: u = (uint32_t)rnd_bits(state, 32); break;
      case ISA_FK_BOOL: u = rnd(state, 4) ? (uint32_t)rnd(state, 2) : (uint32_t)rnd_bits(state, 32); break;
      case ISA_FK_DTYPE: u = rnd_enum(state, ISA_DTYPE_COUNT); break;
      case ISA_FK_QUANT: u = rnd_enum(state, ISA_QUANT_COUNT); break;
      case ISA_FK_PIPE: u = rnd_enum(state, ISA_PIPE_ALL + 1); break;
      case ISA_FK_VMASK:
      case ISA_FK_ROUND:
      case ISA_FK_CMP:
      case ISA_FK_SEL:
      case ISA_FK_ORDER: {
        size_t names;
        isa_field_enum_names(f->kind, &names);
        u = rnd_enum(state, (uint32_t)names);
        break;
      }
    }
    memcpy(p, &u, sizeof u);
  }
}

static void assert_same_insn(const isa_insn *a, const isa_insn *b, const char *text) {
  if (memcmp(a, b, sizeof *a) != 0) fail_msg("record differs after reading back: %s", text);
}

static void assert_asm_ok(const char *line, isa_insn *out) {
  cs_err e = {CS_OK, ""};
  cs_status st = isa_asm_line(line, out, &e);
  if (st != CS_OK) fail_msg("'%s' did not assemble: %s", line, e.msg);
}

static void assert_asm_error(const char *line, const char *msg) {
  isa_insn in;
  cs_err e = {CS_OK, ""};
  assert_int_equal(isa_asm_line(line, &in, &e), CS_EINVAL);
  assert_int_equal(e.code, CS_EINVAL);
  assert_string_equal(e.msg, msg);
}

/* ---- round trips --------------------------------------------------------------------------- */

/* For every opcode and thousands of random operand values (in and out of the documented
 * ranges, enumerations that name nothing included), the text reads back to the same bits and
 * the text of the read-back record is the same text. */
static void test_isa_text_roundtrip_every_op(void **state) {
  (void)state;
  uint64_t seed = 0x5eed0001;
  char text[ISA_TEXT_LINE_BYTES], again[ISA_TEXT_LINE_BYTES];
  for (int op = 0; op < ISA_OP_COUNT; op++) {
    for (int k = 0; k < 3000; k++) {
      isa_insn in, back;
      random_insn((isa_op)op, &seed, &in);
      size_t n = isa_disasm(&in, text, sizeof text);
      assert_int_equal(n, strlen(text));
      assert_true(n < sizeof text);
      assert_asm_ok(text, &back);
      assert_same_insn(&in, &back, text);
      isa_disasm(&back, again, sizeof again);
      assert_string_equal(again, text);
    }
  }
}

/* Test-side spellings: names in other cases, aliases, numbers in decimal or hex. */
static void spell_number(char *out, size_t n, uint64_t v, uint64_t *st) {
  switch (rnd(st, 3)) {
    case 0: snprintf(out, n, "%llu", (unsigned long long)v); break;
    case 1: snprintf(out, n, "0x%llx", (unsigned long long)v); break;
    default: snprintf(out, n, "0X%llX", (unsigned long long)v); break;
  }
}

static void lower(char *s) {
  for (; *s; s++)
    if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
}

static void upper(char *s) {
  for (; *s; s++)
    if (*s >= 'a' && *s <= 'z') *s = (char)(*s - 'a' + 'A');
}

static void spell_dtype(char *out, size_t n, uint32_t v, uint64_t *st) {
  static const char *const fp16_names[] = {"float16", "half", "FP16"};
  if (v >= ISA_DTYPE_COUNT || rnd(st, 4) == 0) {
    spell_number(out, n, v, st);
    return;
  }
  if (v == ISA_FP16) snprintf(out, n, "%s", fp16_names[rnd(st, 3)]);
  else if (v == ISA_FP32) snprintf(out, n, "%s", rnd(st, 2) ? "float32" : "float");
  else if (v == ISA_BF16) snprintf(out, n, "%s", rnd(st, 2) ? "bfloat16" : "BF16");
  else {
    snprintf(out, n, "%s", isa_dtype_name((isa_dtype)v));
    if (rnd(st, 2)) upper(out);
  }
}

static void spell_quant(char *out, size_t n, uint32_t v, uint64_t *st) {
  if (v >= ISA_QUANT_COUNT || rnd(st, 4) == 0) {
    spell_number(out, n, v, st);
    return;
  }
  snprintf(out, n, "%s", isa_quant_mode_name((isa_quant_mode)v));
  lower(out);
}

static void spell_pipe(char *out, size_t n, uint32_t v, uint64_t *st) {
  if (v > ISA_PIPE_ALL || rnd(st, 4) == 0) {
    spell_number(out, n, v, st);
    return;
  }
  if (v == ISA_PIPE_ALL) snprintf(out, n, "all");
  else snprintf(out, n, "%s", rnd(st, 2) ? isa_pipe_track_name((isa_pipe)v) : isa_pipe_name((isa_pipe)v));
  if (rnd(st, 2)) lower(out);
}

/* A vector enumeration (round_mode, cmp_mode, ...): its name in any case, or a number. */
static void spell_enum(char *out, size_t n, isa_field_kind k, uint32_t v, uint64_t *st) {
  size_t count;
  const char *const *names = isa_field_enum_names(k, &count);
  if (v >= count || rnd(st, 4) == 0) {
    spell_number(out, n, v, st);
    return;
  }
  snprintf(out, n, "%s", names[v]);
  if (rnd(st, 2)) upper(out);
}

/* A non-canonical text of in: fields shuffled, zero fields left out, other spellings, extra
 * blanks and a comment. */
static void spell_insn(const isa_insn *in, uint64_t *st, char *out, size_t n) {
  const isa_op_desc *d = isa_op_info((isa_op)in->op);
  size_t order[32];
  for (size_t i = 0; i < d->field_count; i++) order[i] = i;
  for (size_t i = d->field_count; i > 1; i--) {
    size_t j = (size_t)rnd(st, i);
    size_t t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
  }
  size_t used = (size_t)snprintf(out, n, "%s%s", rnd(st, 2) ? "  " : "", d->mnemonic);
  for (size_t k = 0; k < d->field_count; k++) {
    const isa_field_desc *f = &d->fields[order[k]];
    const void *p = isa_field_cptr(in, f);
    char v[128];
    if (f->kind == ISA_FK_ADDR) {
      const isa_addr *a = p;
      if (a->mem == ISA_MEM_GM && a->off == 0 && rnd(st, 2)) continue;
      char mem[32], off[64];
      if (a->mem < ISA_MEM_COUNT && rnd(st, 4)) {
        snprintf(mem, sizeof mem, "%s", isa_mem_name((isa_mem)a->mem));
        if (rnd(st, 2)) lower(mem);
      } else {
        spell_number(mem, sizeof mem, a->mem, st);
      }
      spell_number(off, sizeof off, a->off, st);
      snprintf(v, sizeof v, "%s:%s", mem, off);
    } else if (f->kind == ISA_FK_U64) {
      uint64_t w;
      memcpy(&w, p, sizeof w);
      if (w == 0 && rnd(st, 2)) continue;
      spell_number(v, sizeof v, w, st);
    } else {
      uint32_t u;
      memcpy(&u, p, sizeof u);
      if (u == 0 && rnd(st, 2)) continue;
      if (f->kind == ISA_FK_DTYPE) spell_dtype(v, sizeof v, u, st);
      else if (f->kind == ISA_FK_QUANT) spell_quant(v, sizeof v, u, st);
      else if (f->kind == ISA_FK_PIPE) spell_pipe(v, sizeof v, u, st);
      else if (isa_field_enum_names(f->kind, &(size_t){0})) spell_enum(v, sizeof v, f->kind, u, st);
      else spell_number(v, sizeof v, u, st);
    }
    used += (size_t)snprintf(out + used, n - used, "%s%s=%s", rnd(st, 2) ? " " : " \t ", f->name, v);
  }
  if (rnd(st, 2)) snprintf(out + used, n - used, "   # a comment with field=1 in it");
}

static void test_isa_text_any_spelling_gives_the_canonical_text(void **state) {
  (void)state;
  uint64_t seed = 0x5eed0002;
  char text[ISA_TEXT_LINE_BYTES], canon[ISA_TEXT_LINE_BYTES], again[ISA_TEXT_LINE_BYTES];
  for (int op = 0; op < ISA_OP_COUNT; op++) {
    for (int k = 0; k < 2000; k++) {
      isa_insn in, back;
      random_insn((isa_op)op, &seed, &in);
      spell_insn(&in, &seed, text, sizeof text);
      assert_asm_ok(text, &back);
      assert_same_insn(&in, &back, text);
      isa_disasm(&in, canon, sizeof canon);
      isa_disasm(&back, again, sizeof again);
      assert_string_equal(again, canon);
    }
  }
}

/* ---- hand-written lines --------------------------------------------------------------------- */

static void test_isa_text_hand_written_fixpipe(void **state) {
  (void)state;
  isa_insn in;
  assert_asm_ok("fixpipe   relu_en=1 quant_pre=vreq8 dst=gm:4096 src=L0C:0x400 fb=FB:0x40 "
                "l0c_dtype=int32 out_dtype=int8 deq_scalar=0x400000003F800000 nz2nd_en=1 "
                "n_size=32 m_size=16 src_stride=16 dst_stride=0x20 nd_num=1  # tile 0",
                &in);
  assert_int_equal(in.op, ISA_OP_FIXPIPE);
  const isa_fmt_fixpipe *f = &in.u.fixpipe;
  assert_int_equal(f->dst.mem, ISA_MEM_GM);
  assert_int_equal(f->dst.off, 4096);
  assert_int_equal(f->src.mem, ISA_MEM_L0C);
  assert_int_equal(f->src.off, 0x400);
  assert_int_equal(f->fb.mem, ISA_MEM_FB);
  assert_int_equal(f->fb.off, 0x40);
  assert_int_equal(f->l0c_dtype, ISA_INT32);
  assert_int_equal(f->out_dtype, ISA_INT8);
  assert_int_equal(f->quant_pre, ISA_QUANT_VREQ8);
  assert_true(f->deq_scalar == UINT64_C(0x400000003F800000));
  assert_int_equal(f->relu_en, 1);
  assert_int_equal(f->nz2nd_en, 1);
  assert_int_equal(f->n_size, 32);
  assert_int_equal(f->m_size, 16);
  assert_int_equal(f->src_stride, 16);
  assert_int_equal(f->dst_stride, 32);
  assert_int_equal(f->nd_num, 1);
  assert_int_equal(f->src_nd_stride, 0);
  assert_int_equal(f->dst_nd_stride, 0);
  char text[ISA_TEXT_LINE_BYTES];
  isa_disasm(&in, text, sizeof text);
  assert_string_equal(text,
                      "fixpipe dst=GM:0x1000 src=L0C:0x400 fb=FB:0x40 l0c_dtype=int32 "
                      "out_dtype=int8 quant_pre=VREQ8 deq_scalar=0x400000003f800000 relu_en=1 "
                      "nz2nd_en=1 n_size=32 m_size=16 src_stride=16 dst_stride=32 nd_num=1 "
                      "src_nd_stride=0 dst_nd_stride=0 unit_flag=0");
}

static void test_isa_text_hand_written_short_lines(void **state) {
  (void)state;
  isa_insn in, want;
  char text[ISA_TEXT_LINE_BYTES];

  assert_asm_ok("copy_gm_l1 block_len_bytes=512 dst=L1:0x200 block_count=2", &in);
  memset(&want, 0, sizeof want);
  want.op = ISA_OP_COPY_GM_L1;
  want.u.copy.dst.mem = ISA_MEM_L1;
  want.u.copy.dst.off = 0x200;
  want.u.copy.block_count = 2;
  want.u.copy.block_len_bytes = 512; /* src left out: GM:0x0; gaps left out: 0 */
  assert_memory_equal(&in, &want, sizeof in);
  isa_disasm(&in, text, sizeof text);
  assert_string_equal(text, "copy_gm_l1 dst=L1:0x200 src=GM:0x0 block_count=2 block_len_bytes=512 "
                            "src_gap_bytes=0 dst_gap_bytes=0 l2_bypass=0");

  assert_asm_ok("mmad dst=L0C:0 a=L0A:0 b=L0B:0x200 dtype=float16 m=16 n=32 k=64 init_c=1", &in);
  memset(&want, 0, sizeof want);
  want.op = ISA_OP_MMAD;
  want.u.mmad.dst.mem = ISA_MEM_L0C;
  want.u.mmad.a.mem = ISA_MEM_L0A;
  want.u.mmad.b.mem = ISA_MEM_L0B;
  want.u.mmad.b.off = 0x200;
  want.u.mmad.dtype = ISA_FP16;
  want.u.mmad.m = 16;
  want.u.mmad.n = 32;
  want.u.mmad.k = 64;
  want.u.mmad.init_c = 1;
  assert_memory_equal(&in, &want, sizeof in);
  isa_disasm(&in, text, sizeof text);
  assert_string_equal(text, "mmad dst=L0C:0x0 a=L0A:0x0 b=L0B:0x200 bias=GM:0x0 dtype=fp16 m=16 "
                            "n=32 k=64 init_c=1 bias_en=0 unit_flag=0");

  assert_asm_ok("wait_flag dst_pipe=vector src_pipe=FIXP event_id=7", &in);
  assert_int_equal(in.op, ISA_OP_WAIT_FLAG);
  assert_int_equal(in.u.flag.src_pipe, ISA_PIPE_FIX);
  assert_int_equal(in.u.flag.dst_pipe, ISA_PIPE_V);
  assert_int_equal(in.u.flag.event_id, 7);
  isa_disasm(&in, text, sizeof text);
  assert_string_equal(text, "wait_flag src_pipe=FIX dst_pipe=V event_id=7");

  assert_asm_ok("\tpipe_barrier pipe=all\r\n", &in);
  assert_int_equal(in.u.barrier.pipe, ISA_PIPE_ALL);
  isa_disasm(&in, text, sizeof text);
  assert_string_equal(text, "pipe_barrier pipe=ALL");

  /* the parser checks storage only: out-of-range values are isa_insn_check's to refuse */
  assert_asm_ok("copy_gm_l1 dst=L1:0 block_count=4294967295 block_len_bytes=0", &in);
  assert_int_equal(in.u.copy.block_count, UINT32_MAX);
  assert_int_equal(in.u.copy.block_len_bytes, 0);
  isa_fault f;
  assert_false(isa_insn_check(&in, &f));
  assert_int_equal(f.cause, ISA_FAULT_FIELD_RANGE);

  /* values that name nothing are written as numbers and read back */
  assert_asm_ok("vcast src_dtype=99 dst_dtype=fp32 dst=12:0x20 round_mode=7", &in);
  assert_int_equal(in.u.vcast.src_dtype, 99);
  assert_int_equal(in.u.vcast.dst.mem, 12);
  assert_int_equal(in.u.vcast.round_mode, 7);
  isa_disasm(&in, text, sizeof text);
  assert_string_equal(text, "vcast dst=12:0x20 src=GM:0x0 src_dtype=99 dst_dtype=fp32 round_mode=7 "
                            "mask_mode=norm mask_hi=0x0 mask_lo=0x0 repeat_times=0 dst_blk_stride=0 "
                            "src_blk_stride=0 dst_rep_stride=0 src_rep_stride=0");
}

/* The vector enumerations read by name in any case (or as numbers) and are written by name. */
static void test_isa_text_vector_enumerations(void **state) {
  (void)state;
  isa_insn in;
  char text[ISA_TEXT_LINE_BYTES];
  assert_asm_ok("vcast dst=UB:0x100 src=UB:0 src_dtype=fp32 dst_dtype=fp16 round_mode=ODD "
                "mask_mode=Counter mask_lo=1000 dst_blk_stride=1 src_blk_stride=1 dst_rep_stride=4 "
                "src_rep_stride=8",
                &in);
  assert_int_equal(in.u.vcast.round_mode, ISA_ROUND_ODD);
  assert_int_equal(in.u.vcast.mask_mode, ISA_VMASK_COUNTER);
  isa_disasm(&in, text, sizeof text);
  assert_string_equal(text, "vcast dst=UB:0x100 src=UB:0x0 src_dtype=fp32 dst_dtype=fp16 round_mode=odd "
                            "mask_mode=counter mask_hi=0x0 mask_lo=0x3e8 repeat_times=0 dst_blk_stride=1 "
                            "src_blk_stride=1 dst_rep_stride=4 src_rep_stride=8");
  assert_asm_ok("vcmp cmp_mode=ge", &in);
  assert_int_equal(in.u.vcmp.cmp_mode, ISA_CMP_GE);
  assert_asm_ok("vsel sel_mode=2", &in);
  assert_int_equal(in.u.vsel.sel_mode, ISA_SEL_TENSOR_TENSOR);
  assert_asm_ok("vreduce_max order=only_index", &in);
  assert_int_equal(in.u.vreduce.order, ISA_ORDER_ONLY_INDEX);
  assert_asm_error("vcast round_mode=rnt", "column 18: round_mode: unknown value 'rnt' (did you mean 'rint'?)");
  assert_asm_error("vcmp cmp_mode=above",
                   "column 15: cmp_mode: unknown value 'above' (one of lt, gt, eq, le, ge, ne)");
}

static void test_isa_text_disasm_cuts_like_snprintf(void **state) {
  (void)state;
  isa_insn in;
  assert_asm_ok("pipe_barrier pipe=MTE3", &in);
  char small[8];
  assert_int_equal(isa_disasm(&in, small, sizeof small), strlen("pipe_barrier pipe=MTE3"));
  assert_string_equal(small, "pipe_ba");
  assert_int_equal(isa_disasm(&in, NULL, 0), 22);
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_COUNT + 5;
  char text[64];
  isa_disasm(&in, text, sizeof text);
  char want[64];
  snprintf(want, sizeof want, "<unknown opcode %d>", ISA_OP_COUNT + 5);
  assert_string_equal(text, want);
}

/* ---- errors ------------------------------------------------------------------------------- */

static void test_isa_text_errors_name_column_and_token(void **state) {
  (void)state;
  assert_asm_error("", "column 1: no instruction on the line");
  assert_asm_error("   # only a comment", "column 1: no instruction on the line");
  assert_asm_error("copy_gm_l2 dst=L1:0x0",
                   "column 1: unknown instruction 'copy_gm_l2' (did you mean 'copy_gm_l1'?)");
  assert_asm_error("  COPY_GM_UB", "column 3: unknown instruction 'COPY_GM_UB' (did you mean 'copy_gm_ub'?)");
  assert_asm_error("frobnicate x=1", "column 1: unknown instruction 'frobnicate'");
  assert_asm_error("copy_gm_l1  blok_count=1",
                   "column 13: copy_gm_l1 has no field 'blok_count' (did you mean 'block_count'?)");
  assert_asm_error("pipe_barrier foo=1", "column 14: pipe_barrier has no field 'foo' (its fields: pipe)");
  assert_asm_error("copy_gm_l1 block_count=1 block_count=2",
                   "column 26: field 'block_count' given twice (first at column 12)");
  assert_asm_error("copy_gm_l1 block_count", "column 12: expected field=value, got 'block_count'");
  assert_asm_error("copy_gm_l1 =5", "column 12: expected field=value, got '=5'");
  assert_asm_error("copy_gm_l1 block_count= 5", "column 24: block_count: no value after '='");
  assert_asm_error("copy_gm_l1 block_count=abc",
                   "column 24: block_count: 'abc' is not an unsigned integer");
  assert_asm_error("copy_gm_l1 block_count=-1", "column 24: block_count: '-1' is not an unsigned integer");
  assert_asm_error("copy_gm_l1 block_count=010",
                   "column 24: block_count: '010' has a leading zero (octal is not accepted)");
  assert_asm_error("copy_gm_l1 block_count=4294967296",
                   "column 24: block_count: '4294967296' does not fit in 32 bits");
  assert_asm_error("copy_gm_l1 block_count=0x100000000",
                   "column 24: block_count: '0x100000000' does not fit in 32 bits");
  assert_asm_error("fixpipe deq_scalar=0x10000000000000000",
                   "column 20: deq_scalar: '0x10000000000000000' does not fit in 64 bits");
  assert_asm_error("copy_gm_l1 dst=L1", "column 16: dst: 'L1' is not MEM:OFFSET (for instance L1:0x200)");
  assert_asm_error("copy_gm_l1 dst=:0x0", "column 16: dst: ':0x0' is not MEM:OFFSET (for instance L1:0x200)");
  assert_asm_error("copy_gm_l1 dst=L1:", "column 16: dst: 'L1:' is not MEM:OFFSET (for instance L1:0x200)");
  assert_asm_error("copy_gm_l1 dst=L2:0x0", "column 16: dst: unknown memory 'L2' (did you mean 'L1'?)");
  assert_asm_error("copy_gm_l1 dst=Q:0x0",
                   "column 16: dst: unknown memory 'Q' (one of GM, L1, L0A, L0B, L0C, UB, BT, FB)");
  assert_asm_error("copy_gm_l1 dst=4294967296:0x0", "column 16: dst: '4294967296' does not fit in 32 bits");
  assert_asm_error("copy_gm_l1 dst=L1:0xZZ", "column 19: dst: '0xZZ' is not an unsigned integer");
  assert_asm_error("copy_gm_l1 dst=L1:0x10000000000000000",
                   "column 19: dst: '0x10000000000000000' does not fit in 64 bits");
  assert_asm_error("copy_gm_l1 src=GM:A",
                   "column 19: src: 'GM:A' names a tensor, which needs a program with .gm declarations");
  assert_asm_error("copy_gm_l1 dst=L1:A", "column 19: dst: 'L1:A' names a tensor, but only GM operands can");
  assert_asm_error("load_l0a dtype=bfl16", "column 16: dtype: unknown data type 'bfl16' (did you mean 'bf16'?)");
  assert_asm_error("fixpipe quant_pre=REQ9", "column 19: quant_pre: unknown quant mode 'REQ9' (did you mean 'REQ8'?)");
  assert_asm_error("pipe_barrier pipe=MTE4", "column 19: pipe: unknown pipe 'MTE4' (did you mean 'MTE2'?)");
  assert_asm_error("pipe_barrier pipe=XYZZY",
                   "column 19: pipe: unknown pipe 'XYZZY' (one of S, MTE2, MTE1, M, FIX, MTE3, V, ALL)");
  assert_asm_error("set_flag event_id=99999999999999999999",
                   "column 19: event_id: '99999999999999999999' does not fit in 64 bits");
  char *line = malloc(5001);
  assert_non_null(line);
  memset(line, ' ', 5000);
  memcpy(line, "set_flag", 8);
  line[5000] = '\0';
  assert_asm_error(line, "column 4097: line is longer than 4096 characters");
  free(line);
}

/* ---- symbols ------------------------------------------------------------------------------- */

typedef struct fake_syms {
  int resolves;
  char last_field[32];
} fake_syms;

/* Two tensors: W at 0x1000 (256 bytes) and X at 0x2000 (64 bytes). */
static const char *fake_name_of(void *ctx, uint64_t addr, uint64_t *base) {
  (void)ctx;
  if (addr >= 0x1000 && addr < 0x1100) return *base = 0x1000, "W";
  if (addr >= 0x2000 && addr < 0x2040) return *base = 0x2000, "X";
  return NULL;
}

static cs_status fake_resolve(void *ctx, const isa_field_desc *field, const char *name,
                              uint64_t offset, uint64_t *addr, cs_err *err) {
  fake_syms *fs = ctx;
  fs->resolves++;
  snprintf(fs->last_field, sizeof fs->last_field, "%s", field->name);
  if (strcmp(name, "W") == 0) return *addr = 0x1000 + offset, CS_OK;
  if (strcmp(name, "X") == 0) return *addr = 0x2000 + offset, CS_OK;
  return cs_err_set(err, CS_EINVAL, "%s: unknown tensor '%s'", field->name, name);
}

static void test_isa_text_symbolic_gm_operands(void **state) {
  (void)state;
  fake_syms fs = {0, ""};
  isa_text_syms syms = {&fs, fake_name_of, fake_resolve};
  isa_insn in;
  size_t col = 0;
  cs_err e = {CS_OK, ""};
  assert_int_equal(isa_asm_line_syms("copy_ub_gm dst=GM:W+0x40 src=UB:0 block_count=1", &syms, &in,
                                     &col, &e),
                   CS_OK);
  assert_int_equal(fs.resolves, 1);
  assert_string_equal(fs.last_field, "dst");
  assert_int_equal(in.u.copy.dst.mem, ISA_MEM_GM);
  assert_int_equal(in.u.copy.dst.off, 0x1040);
  char text[ISA_TEXT_LINE_BYTES];
  isa_disasm_syms(&in, &syms, text, sizeof text);
  assert_string_equal(text, "copy_ub_gm dst=GM:W+0x40 src=UB:0x0 block_count=1 block_len_bytes=0 "
                            "src_gap_bytes=0 dst_gap_bytes=0 l2_bypass=0");

  assert_int_equal(isa_asm_line_syms("copy_gm_ub src=GM:X dst=UB:0x20", &syms, &in, &col, &e), CS_OK);
  assert_int_equal(in.u.copy.src.off, 0x2000);
  isa_disasm_syms(&in, &syms, text, sizeof text);
  assert_string_equal(text, "copy_gm_ub dst=UB:0x20 src=GM:X block_count=0 block_len_bytes=0 "
                            "src_gap_bytes=0 dst_gap_bytes=0 l2_bypass=0");
  /* outside every tensor: a number; without symbols: numbers */
  in.u.copy.src.off = 0x2040;
  isa_disasm_syms(&in, &syms, text, sizeof text);
  assert_non_null(strstr(text, " src=GM:0x2040 "));
  in.u.copy.src.off = 0x2000;
  isa_disasm(&in, text, sizeof text);
  assert_non_null(strstr(text, " src=GM:0x2000 "));

  /* errors keep their column out of the message */
  assert_int_equal(isa_asm_line_syms("copy_gm_ub src=GM:Y", &syms, &in, &col, &e), CS_EINVAL);
  assert_int_equal(col, 19);
  assert_string_equal(e.msg, "src: unknown tensor 'Y'");
  assert_int_equal(isa_asm_line_syms("copy_gm_ub src=GM:W+zz", &syms, &in, &col, &e), CS_EINVAL);
  assert_int_equal(col, 21);
  assert_string_equal(e.msg, "src: 'zz' is not an unsigned integer");
  assert_int_equal(isa_asm_line_syms("copy_gm_ub src=GM:W-4", &syms, &in, &col, &e), CS_EINVAL);
  assert_int_equal(col, 19);
  assert_string_equal(e.msg, "src: 'GM:W-4' is not GM:NAME or GM:NAME+OFFSET");
  assert_int_equal(isa_asm_line_syms("copy_gm_ub blok=1", &syms, &in, &col, &e), CS_EINVAL);
  assert_int_equal(col, 12);
  assert_string_equal(e.msg, "copy_gm_ub has no field 'blok' (its fields: dst, src, block_count, "
                             "block_len_bytes, src_gap_bytes, dst_gap_bytes, l2_bypass)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_isa_text_roundtrip_every_op),
      cmocka_unit_test(test_isa_text_any_spelling_gives_the_canonical_text),
      cmocka_unit_test(test_isa_text_hand_written_fixpipe),
      cmocka_unit_test(test_isa_text_hand_written_short_lines),
      cmocka_unit_test(test_isa_text_disasm_cuts_like_snprintf),
      cmocka_unit_test(test_isa_text_vector_enumerations),
      cmocka_unit_test(test_isa_text_errors_name_column_and_token),
      cmocka_unit_test(test_isa_text_symbolic_gm_operands),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
