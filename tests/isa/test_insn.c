/* Tests of isa/isa_insn: the instruction table, field descriptors, generic checks, strided
 * ranges, pipes, and the copy and sync families (run on the fake machine of tests/support). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_insn.h"
#include "support/insn_build.h"
#include "support/insn_check.h"
#include "support/isa_testmach.h"
#include "support/rng.h"

/* ---- the table ------------------------------------------------------------------------- */

/* Every instruction with its pipe, by hand from docs/DESIGN.md §4 and docs/ISA.md; DYN for the
 * instructions that name their pipe in an operand. A new instruction must be added here. */
static const struct {
  const char *mnemonic;
  isa_pipe pipe;
  const char *format;
} expected_ops[] = {
    {"copy_gm_l1", ISA_PIPE_MTE2, "copy"},      {"copy_gm_l1_nd2nz", ISA_PIPE_MTE2, "nd2nz"},
    {"load_l0a", ISA_PIPE_MTE1, "load2d"},      {"load_l0b", ISA_PIPE_MTE1, "load2d"},
    {"load3d_l0a", ISA_PIPE_MTE1, "load3d"},
    {"copy_l1_bt", ISA_PIPE_MTE1, "copy"},      {"copy_l1_fb", ISA_PIPE_MTE1, "copy"},
    {"mmad", ISA_PIPE_M, "mmad"},               {"fixpipe", ISA_PIPE_FIX, "fixpipe"},
    {"copy_gm_ub", ISA_PIPE_MTE2, "copy"},      {"copy_ub_gm", ISA_PIPE_MTE3, "copy"},
    {"vdeq", ISA_PIPE_V, "vdeq"},               {"vadd", ISA_PIPE_V, "vbinary"},
    {"vsub", ISA_PIPE_V, "vbinary"},            {"vmul", ISA_PIPE_V, "vbinary"},
    {"vdiv", ISA_PIPE_V, "vbinary"},            {"vmax", ISA_PIPE_V, "vbinary"},
    {"vmin", ISA_PIPE_V, "vbinary"},            {"vexp", ISA_PIPE_V, "vunary"},
    {"vln", ISA_PIPE_V, "vunary"},              {"vsqrt", ISA_PIPE_V, "vunary"},
    {"vrec", ISA_PIPE_V, "vunary"},             {"vrelu", ISA_PIPE_V, "vunary"},
    {"vabs", ISA_PIPE_V, "vunary"},             {"vadds", ISA_PIPE_V, "vscalar"},
    {"vmuls", ISA_PIPE_V, "vscalar"},           {"vmaxs", ISA_PIPE_V, "vscalar"},
    {"vmins", ISA_PIPE_V, "vscalar"},           {"vdup", ISA_PIPE_V, "vdup"},
    {"vcopy", ISA_PIPE_V, "vcopy"},
    {"vbrcb", ISA_PIPE_V, "vbrcb"},             {"vcmp", ISA_PIPE_V, "vcmp"},
    {"vsel", ISA_PIPE_V, "vsel"},               {"vcast", ISA_PIPE_V, "vcast"},
    {"vreduce_sum", ISA_PIPE_V, "vreduce"},     {"vreduce_max", ISA_PIPE_V, "vreduce"},
    {"vreduce_min", ISA_PIPE_V, "vreduce"},     {"set_flag", ISA_PIPE_DYN, "flag"},
    {"wait_flag", ISA_PIPE_DYN, "flag"},        {"pipe_barrier", ISA_PIPE_DYN, "barrier"},
    {"scalar", ISA_PIPE_S, "scalar"},           {"cross_set_flag", ISA_PIPE_DYN, "xflag"},
    {"cross_wait_flag", ISA_PIPE_DYN, "xflag"}, {"sync_all", ISA_PIPE_DYN, "syncall"},
};

/* sizeof of each format's operand struct, by name. */
static const struct {
  const char *name;
  size_t bytes;
} formats[] = {
#define FORMAT_SIZE(fmt) {#fmt, sizeof(isa_fmt_##fmt)},
    ISA_FORMAT_LIST(FORMAT_SIZE)
#undef FORMAT_SIZE
};

static size_t format_bytes(const char *name) {
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (strcmp(formats[i].name, name) == 0) return formats[i].bytes;
  fail_msg("unknown format %s", name);
  return 0;
}

static size_t field_bytes(isa_field_kind k) {
  switch (k) {
    case ISA_FK_ADDR: return sizeof(isa_addr);
    case ISA_FK_U64: return sizeof(uint64_t);
    default: return sizeof(uint32_t);
  }
}

static const isa_field_desc *field_named(const isa_op_desc *d, const char *name) {
  for (size_t i = 0; i < d->field_count; i++)
    if (strcmp(d->fields[i].name, name) == 0) return &d->fields[i];
  return NULL;
}

static void test_insn_table_complete(void **state) {
  (void)state;
  assert_int_equal(ISA_OP_COUNT, sizeof expected_ops / sizeof expected_ops[0]);
  for (int op = 0; op < ISA_OP_COUNT; op++) {
    const isa_op_desc *d = isa_op_info((isa_op)op);
    assert_non_null(d);
    assert_string_equal(d->mnemonic, expected_ops[op].mnemonic);
    assert_int_equal(d->pipe, expected_ops[op].pipe);
    assert_string_equal(d->format, expected_ops[op].format);
    assert_true(d->desc && d->desc[0]);
    assert_true(d->field_count >= 1);
    assert_non_null(d->fields);
    format_bytes(d->format);
    for (size_t i = 0; i < d->field_count; i++) {
      const isa_field_desc *f = &d->fields[i];
      assert_true(f->name && f->name[0]);
      assert_non_null(f->unit);
      assert_true(f->desc && f->desc[0]);
      assert_true(f->kind <= ISA_FK_ORDER);
      size_t names = 0;
      if (isa_field_enum_names(f->kind, &names)) /* an enumerated kind: its range is its names */
        assert_true(f->min == 0 && f->max == names - 1);
      if (f->kind == ISA_FK_U32 || f->kind == ISA_FK_BOOL || f->kind == ISA_FK_PIPE)
        assert_true(f->min <= f->max);
    }
    /* a dst / src field always has memories it may name (formats whose sources are named
     * otherwise, like mmad's a and b, are narrowed by their family) */
    if (field_named(d, "dst")) assert_int_not_equal(d->dst_mems, 0);
    if (field_named(d, "src")) assert_int_not_equal(d->src_mems, 0);
    assert_int_equal(d->dst_mems >> ISA_MEM_COUNT, 0);
    assert_int_equal(d->src_mems >> ISA_MEM_COUNT, 0);
    for (int other = 0; other < op; other++)
      assert_string_not_equal(d->mnemonic, isa_op_info((isa_op)other)->mnemonic);
  }
  assert_null(isa_op_info(ISA_OP_COUNT));
}

static void test_insn_mnemonic_round_trip(void **state) {
  (void)state;
  for (int op = 0; op < ISA_OP_COUNT; op++)
    assert_int_equal(isa_op_from_mnemonic(isa_op_info((isa_op)op)->mnemonic), op);
  assert_int_equal(isa_op_from_mnemonic("copy_gm_l2"), ISA_OP_COUNT);
  assert_int_equal(isa_op_from_mnemonic(""), ISA_OP_COUNT);
  assert_int_equal(isa_op_from_mnemonic("mmad "), ISA_OP_COUNT);
}

/* Field offsets are inside the format struct and fields do not share bytes. */
static void test_insn_field_offsets_distinct_and_inside(void **state) {
  (void)state;
  for (int op = 0; op < ISA_OP_COUNT; op++) {
    const isa_op_desc *d = isa_op_info((isa_op)op);
    size_t fmt_bytes = format_bytes(d->format);
    for (size_t i = 0; i < d->field_count; i++) {
      const isa_field_desc *a = &d->fields[i];
      assert_true(a->offset + field_bytes(a->kind) <= fmt_bytes);
      assert_true(a->offset + field_bytes(a->kind) <= sizeof(((isa_insn *)0)->u));
      for (size_t j = 0; j < i; j++) {
        const isa_field_desc *b = &d->fields[j];
        assert_string_not_equal(a->name, b->name);
        bool apart = a->offset + field_bytes(a->kind) <= b->offset ||
                     b->offset + field_bytes(b->kind) <= a->offset;
        assert_true(apart);
      }
    }
  }
}

/* isa_field_ptr reaches the struct member the descriptor names. */
static void test_insn_field_ptr_reaches_member(void **state) {
  (void)state;
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_COPY_GM_L1_ND2NZ;
  const isa_op_desc *d = isa_op_info(ISA_OP_COPY_GM_L1_ND2NZ);
  *(uint32_t *)isa_field_ptr(&in, field_named(d, "dst_nz_matrix_stride")) = 4321;
  *(isa_addr *)isa_field_ptr(&in, field_named(d, "src")) = (isa_addr){ISA_MEM_GM, 0x123456789ull};
  assert_int_equal(in.u.nd2nz.dst_nz_matrix_stride, 4321);
  assert_int_equal(in.u.nd2nz.src.mem, ISA_MEM_GM);
  assert_int_equal(in.u.nd2nz.src.off, 0x123456789ull);

  in.op = ISA_OP_FIXPIPE;
  d = isa_op_info(ISA_OP_FIXPIPE);
  *(uint64_t *)isa_field_ptr(&in, field_named(d, "deq_scalar")) = 0x400000003F800000ull;
  *(uint32_t *)isa_field_ptr(&in, field_named(d, "dst_nd_stride")) = 77;
  assert_int_equal(in.u.fixpipe.deq_scalar, 0x400000003F800000ull);
  assert_int_equal(in.u.fixpipe.dst_nd_stride, 77);
  assert_int_equal(*(const uint32_t *)isa_field_cptr(&in, field_named(d, "dst_nd_stride")), 77);

  in.op = ISA_OP_WAIT_FLAG;
  d = isa_op_info(ISA_OP_WAIT_FLAG);
  *(uint32_t *)isa_field_ptr(&in, field_named(d, "event_id")) = 5;
  assert_int_equal(in.u.flag.event_id, 5);
}

/* ---- generic checks -------------------------------------------------------------------- */

static isa_insn load_insn(isa_op op, uint32_t repeat) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  in.u.load2d.dst = (isa_addr){op == ISA_OP_LOAD_L0A ? ISA_MEM_L0A : ISA_MEM_L0B, 0};
  in.u.load2d.src = (isa_addr){ISA_MEM_L1, 0};
  in.u.load2d.dtype = ISA_FP16;
  in.u.load2d.repeat_times = repeat;
  return in;
}

static void test_insn_field_range_boundaries(void **state) {
  (void)state;
  /* copy: block_count [1, 4095] */
  isa_insn in = ib_copy_bursts(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_GM, 0, 0, 32, 0, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "block_count", 0, 1,
           "copy_gm_l1: block_count = 0 is out of range [1, 4095]");
  in.u.copy.block_count = 1;
  ic_ok(&in);
  in.u.copy.block_count = 4095;
  ic_ok(&in);
  in.u.copy.block_count = 4096;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "block_count", 4096, 4095,
           "copy_gm_l1: block_count = 4096 is out of range [1, 4095]");

  /* copy: block_len_bytes [1, 2097152] */
  in = ib_copy_bursts(ISA_OP_COPY_UB_GM, ISA_MEM_GM, 0, ISA_MEM_UB, 0, 1, 0, 0, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "block_len_bytes", 0, 1,
           "copy_ub_gm: block_len_bytes = 0 is out of range [1, 2097152]");
  in.u.copy.block_len_bytes = 1;
  ic_ok(&in);
  in.u.copy.block_len_bytes = 2097152;
  ic_ok(&in);
  in.u.copy.block_len_bytes = 2097153;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "block_len_bytes", 2097153, 2097152,
           "copy_ub_gm: block_len_bytes = 2097153 is out of range [1, 2097152]");

  /* load2d: repeat_times [1, 255] */
  in = load_insn(ISA_OP_LOAD_L0B, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "repeat_times", 0, 1,
           "load_l0b: repeat_times = 0 is out of range [1, 255]");
  in.u.load2d.repeat_times = 1;
  ic_ok(&in);
  in.u.load2d.repeat_times = 255;
  ic_ok(&in);
  in.u.load2d.repeat_times = 256;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "repeat_times", 256, 255,
           "load_l0b: repeat_times = 256 is out of range [1, 255]");
  /* a BOOL field is a range [0, 1] too */
  in.u.load2d.repeat_times = 1;
  in.u.load2d.if_transpose = 2;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "if_transpose", 2, 1,
           "load_l0b: if_transpose = 2 is out of range [0, 1]");

  /* flag: event_id [0, 7]; pipes [0, 6] (ALL is not a flag pipe) */
  in = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0);
  ic_ok(&in);
  in.u.flag.event_id = 7;
  ic_ok(&in);
  in.u.flag.event_id = 8;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "event_id", 8, 7,
           "set_flag: event_id = 8 is out of range [0, 7]");
  in = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_ALL, ISA_PIPE_MTE1, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "src_pipe", 7, 6,
           "wait_flag: src_pipe = 7 is out of range [0, 6]");

  /* barrier: pipe [0, ALL] */
  in = ib_barrier(ISA_PIPE_ALL);
  ic_ok(&in);
  in = ib_barrier(ISA_PIPE_S);
  ic_ok(&in);
  in = ib_barrier(ISA_PIPE_ALL + 1);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "pipe", 8, 7,
           "pipe_barrier: pipe = 8 is out of range [0, 7]");
}

static void test_insn_bad_memory(void **state) {
  (void)state;
  isa_insn in = ib_copy_bursts(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 0, ISA_MEM_L1, 0, 1, 32, 0, 0);
  ic_fault(&in, ISA_FAULT_BAD_MEM, "src", ISA_MEM_L1, ISA_MEMBIT(GM),
           "copy_gm_l1: operand src names L1, which copy_gm_l1 cannot access");
  in = ib_copy_bursts(ISA_OP_COPY_GM_UB, ISA_MEM_L1, 0, ISA_MEM_GM, 0, 1, 32, 0, 0);
  ic_fault(&in, ISA_FAULT_BAD_MEM, "dst", ISA_MEM_L1, ISA_MEMBIT(UB),
           "copy_gm_ub: operand dst names L1, which copy_gm_ub cannot access");
  in = load_insn(ISA_OP_LOAD_L0A, 1);
  in.u.load2d.dst.mem = ISA_MEM_L0B;
  ic_fault(&in, ISA_FAULT_BAD_MEM, "dst", ISA_MEM_L0B, ISA_MEMBIT(L0A),
           "load_l0a: operand dst names L0B, which load_l0a cannot access");
  /* a memory number beyond the table */
  in = ib_copy_bursts(ISA_OP_COPY_UB_GM, ISA_MEM_GM, 0, (isa_mem)99, 0, 1, 32, 0, 0);
  ic_fault(&in, ISA_FAULT_BAD_MEM, "src", 99, ISA_MEMBIT(UB),
           "copy_ub_gm: operand src names ?, which copy_ub_gm cannot access");
}

static void test_insn_bad_opcode_and_enums(void **state) {
  (void)state;
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_COUNT;
  char want[64];
  snprintf(want, sizeof want, "unknown opcode %d", (int)ISA_OP_COUNT);
  ic_fault(&in, ISA_FAULT_BAD_OPCODE, "op", ISA_OP_COUNT, ISA_OP_COUNT - 1, want);

  in = load_insn(ISA_OP_LOAD_L0A, 1);
  in.u.load2d.dtype = ISA_DTYPE_COUNT;
  snprintf(want, sizeof want, "load_l0a: dtype = %d is not a data type", (int)ISA_DTYPE_COUNT);
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_DTYPE_COUNT, ISA_DTYPE_COUNT - 1, want);
}

static void test_insn_pipes(void **state) {
  (void)state;
  isa_insn in = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 3);
  assert_int_equal(isa_insn_pipe(&in), ISA_PIPE_MTE2);
  in = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 3);
  assert_int_equal(isa_insn_pipe(&in), ISA_PIPE_MTE1);
  in = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_FIX, ISA_PIPE_V, 0);
  assert_int_equal(isa_insn_pipe(&in), ISA_PIPE_FIX);
  in = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_FIX, ISA_PIPE_V, 0);
  assert_int_equal(isa_insn_pipe(&in), ISA_PIPE_V);
  in = ib_barrier(ISA_PIPE_M);
  assert_int_equal(isa_insn_pipe(&in), ISA_PIPE_M);
  in = ib_barrier(ISA_PIPE_ALL);
  assert_int_equal(isa_insn_pipe(&in), ISA_PIPE_ALL);
  in = ib_copy_bursts(ISA_OP_COPY_UB_GM, ISA_MEM_GM, 0, ISA_MEM_UB, 0, 1, 32, 0, 0);
  assert_int_equal(isa_insn_pipe(&in), ISA_PIPE_MTE3);
  in = load_insn(ISA_OP_LOAD_L0B, 1);
  assert_int_equal(isa_insn_pipe(&in), ISA_PIPE_MTE1);
  assert_string_equal(isa_pipe_name(ISA_PIPE_ALL), "ALL");
  assert_string_equal(isa_pipe_track_name(ISA_PIPE_M), "CUBE");
  assert_int_equal(isa_pipe_from_name("cube"), ISA_PIPE_M);
  assert_int_equal(isa_pipe_from_name("all"), ISA_PIPE_ALL);
}

/* ---- strided ranges ---------------------------------------------------------------------- */

#define SPACE_BYTES 512u

static void mark_bytes(const isa_range *r, uint8_t *set) {
  for (uint64_t i = 0; i < r->rows; i++)
    for (uint64_t b = 0; b < r->row_bytes; b++) set[r->base + i * r->stride_bytes + b] = 1;
}

static bool brute_overlap(const isa_range *a, const isa_range *b) {
  if (a->mem != b->mem) return false;
  uint8_t sa[SPACE_BYTES] = {0}, sb[SPACE_BYTES] = {0};
  mark_bytes(a, sa);
  mark_bytes(b, sb);
  for (unsigned i = 0; i < SPACE_BYTES; i++)
    if (sa[i] && sb[i]) return true;
  return false;
}

/* A random range (empty ones too: no bytes, or no rows); often a regular pattern, so that runs of the two ranges
 * interleave and touch. */
static isa_range random_range(uint64_t *rng) {
  isa_range r = {ISA_MEM_L1, 0, rng_lcg_below(rng, 64), rng_lcg_below(rng, 9), 0, rng_lcg_below(rng, 7)};
  switch (rng_lcg_below(rng, 4)) {
    case 0: r.stride_bytes = r.row_bytes; break;                       /* contiguous */
    case 1: r.stride_bytes = 2 * r.row_bytes; break;                   /* gaps as wide as the runs */
    case 2: r.stride_bytes = r.row_bytes + rng_lcg_below(rng, 3); break; /* narrow gaps */
    default: r.stride_bytes = rng_lcg_below(rng, 20); break;             /* anything, overlapping runs too */
  }
  return r;
}

static void test_insn_range_overlap_brute_force(void **state) {
  (void)state;
  uint64_t rng = 7;
  unsigned overlapping = 0, touching = 0;
  for (int it = 0; it < 40000; it++) {
    isa_range a = random_range(&rng), b = random_range(&rng);
    switch (rng_lcg_below(&rng, 5)) {
      case 0: /* b's runs fill a's gaps exactly: they touch on both sides */
        b = a;
        b.base = a.base + a.row_bytes;
        if (a.stride_bytes == 2 * a.row_bytes) touching++;
        break;
      case 1: /* b starts where a ends, or ends where a starts */
        b.base = isa_range_end(&a);
        break;
      case 2: b.mem = ISA_MEM_UB; break; /* other memory: never */
      default: break;
    }
    bool want = brute_overlap(&a, &b);
    overlapping += want;
    if (isa_range_overlap(&a, &b) != want || isa_range_overlap(&b, &a) != want)
      fail_msg("a {base %llu, row %llu, stride %llu, rows %llu} b {mem %u base %llu, row %llu, "
               "stride %llu, rows %llu}: want %d",
               (unsigned long long)a.base, (unsigned long long)a.row_bytes,
               (unsigned long long)a.stride_bytes, (unsigned long long)a.rows, (unsigned)b.mem,
               (unsigned long long)b.base, (unsigned long long)b.row_bytes,
               (unsigned long long)b.stride_bytes, (unsigned long long)b.rows, want);
  }
  /* the generator reached both answers and the touching layouts */
  assert_true(overlapping > 5000 && overlapping < 35000);
  assert_true(touching > 500);
}

static void test_insn_range_overlap_examples(void **state) {
  (void)state;
  /* runs [0,4) [8,12) [16,20) against [4,8) [12,16): interleaved, touching, disjoint */
  isa_range a = {ISA_MEM_L1, 0, 0, 4, 8, 3}, b = {ISA_MEM_L1, 1, 4, 4, 8, 2};
  assert_false(isa_range_overlap(&a, &b));
  b.base = 3; /* now [3,7) meets [0,4) */
  assert_true(isa_range_overlap(&a, &b));
  b.base = 20; /* starts where a ends */
  assert_false(isa_range_overlap(&a, &b));
  b.base = 19;
  assert_true(isa_range_overlap(&a, &b));
  /* a range with many runs and a small one falling in a gap */
  isa_range many = {ISA_MEM_UB, 0, 1000, 32, 4096, 4000}, small = {ISA_MEM_UB, 1, 1000 + 4096 * 2000 + 32, 4064, 4064, 1};
  assert_false(isa_range_overlap(&many, &small));
  small.row_bytes = 4065;
  assert_true(isa_range_overlap(&many, &small));
  assert_int_equal(isa_range_bytes(&many), 4000 * 32);
  assert_int_equal(isa_range_end(&many), 1000 + 3999ull * 4096 + 32);
}

/* isa_range_normalize, by hand: a stride of 0 is one run; runs that follow each other are one;
 * gaps and overlaps stay; one run's stride is its length. */
static void test_insn_range_normalize(void **state) {
  (void)state;
  isa_range r = isa_range_normalize((isa_range){ISA_MEM_L1, 0, 64, 32, 0, 5});
  ic_range(&r, ISA_MEM_L1, 0, 64, 32, 32, 1);
  r = isa_range_normalize((isa_range){ISA_MEM_UB, 1, 0, 32, 32, 4}); /* [0,128) in four runs */
  ic_range(&r, ISA_MEM_UB, 1, 0, 128, 128, 1);
  r = isa_range_normalize((isa_range){ISA_MEM_UB, 1, 0, 32, 48, 4}); /* gaps of 16 */
  ic_range(&r, ISA_MEM_UB, 1, 0, 32, 48, 4);
  r = isa_range_normalize((isa_range){ISA_MEM_UB, 0, 8, 32, 16, 3}); /* overlapping runs */
  ic_range(&r, ISA_MEM_UB, 0, 8, 32, 16, 3);
  r = isa_range_normalize((isa_range){ISA_MEM_GM, 0, 100, 7, 1000, 1});
  ic_range(&r, ISA_MEM_GM, 0, 100, 7, 7, 1);
  r = isa_range_normalize((isa_range){ISA_MEM_GM, 0, 100, 7, 1000, 0}); /* no runs: unchanged */
  ic_range(&r, ISA_MEM_GM, 0, 100, 7, 1000, 0);
}

/* ---- copy family ------------------------------------------------------------------------- */

static isa_testmach *small_machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_GM] = 4096;
  sizes[ISA_MEM_L1] = 2048;
  sizes[ISA_MEM_UB] = 2048;
  sizes[ISA_MEM_BT] = 1024;
  sizes[ISA_MEM_FB] = 2048;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  return t;
}

static void fill_pattern(isa_testmach *t, uint64_t *rng) {
  for (int m = 0; m < ISA_MEM_COUNT; m++)
    rng_lcg_bytes(rng, itm_mem(t, (isa_mem)m), itm_size(t, (isa_mem)m));
}

static void test_insn_copy_exec_ranges_work(void **state) {
  (void)state;
  static const struct { isa_op op; isa_mem dst, src; isa_path path; } copies[] = {
      {ISA_OP_COPY_GM_L1, ISA_MEM_L1, ISA_MEM_GM, ISA_PATH_GM_TO_L1},
      {ISA_OP_COPY_GM_UB, ISA_MEM_UB, ISA_MEM_GM, ISA_PATH_GM_TO_UB},
      {ISA_OP_COPY_UB_GM, ISA_MEM_GM, ISA_MEM_UB, ISA_PATH_UB_TO_GM},
      {ISA_OP_COPY_L1_BT, ISA_MEM_BT, ISA_MEM_L1, ISA_PATH_L1_TO_BT},
      {ISA_OP_COPY_L1_FB, ISA_MEM_FB, ISA_MEM_L1, ISA_PATH_L1_TO_FB},
  };
  isa_testmach *t = small_machine();
  uint64_t rng = 11;
  uint8_t *want = malloc(4096), *src_before = malloc(4096);
  assert_non_null(want);
  assert_non_null(src_before);
  for (int it = 0; it < 400; it++) {
    const size_t c = (size_t)it % (sizeof copies / sizeof copies[0]);
    uint32_t count = 1 + (uint32_t)rng_lcg_below(&rng, 6), len = 1 + (uint32_t)rng_lcg_below(&rng, 40);
    uint32_t sgap = (uint32_t)rng_lcg_below(&rng, 50), dgap = (uint32_t)rng_lcg_below(&rng, 50);
    uint64_t soff = rng_lcg_below(&rng, 300), doff = rng_lcg_below(&rng, 300);
    isa_insn in = ib_copy_bursts(copies[c].op, copies[c].dst, doff, copies[c].src, soff, count, len, sgap, dgap);
    fill_pattern(t, &rng);
    uint8_t *d = itm_mem(t, copies[c].dst), *s = itm_mem(t, copies[c].src);
    uint64_t dsize = itm_size(t, copies[c].dst), ssize = itm_size(t, copies[c].src);
    memcpy(want, d, dsize);
    memcpy(src_before, s, ssize);
    uint8_t wset[4096] = {0}, rset[4096] = {0};
    for (uint32_t i = 0; i < count; i++)
      for (uint32_t b = 0; b < len; b++) {
        want[doff + i * (len + dgap) + b] = s[soff + i * (len + sgap) + b];
        wset[doff + i * (len + dgap) + b] = 1;
        rset[soff + i * (len + sgap) + b] = 1;
      }
    isa_fault f;
    assert_true(itm_run(t, &in, &f));
    assert_memory_equal(d, want, dsize);
    assert_memory_equal(s, src_before, ssize);

    isa_range r[ISA_MAX_RANGES];
    size_t n = isa_insn_ranges(&in, r);
    uint8_t got_w[4096] = {0}, got_r[4096] = {0};
    for (size_t i = 0; i < n; i++) {
      assert_int_equal(r[i].mem, r[i].write ? copies[c].dst : copies[c].src);
      mark_bytes(&r[i], r[i].write ? got_w : got_r);
    }
    assert_memory_equal(got_w, wset, sizeof wset);
    assert_memory_equal(got_r, rset, sizeof rset);

    isa_work w;
    isa_insn_work(&in, &w);
    assert_int_equal(w.path, copies[c].path);
    assert_int_equal(w.bytes, (uint64_t)count * len);
    assert_int_equal(w.elements, 0);
    assert_int_equal(w.macs, 0);
  }
  free(want);
  free(src_before);
  itm_destroy(t);
}

/* The largest gaps: strides are 64-bit sums, never wrapped to 32 bits. */
static void test_insn_copy_ranges_largest_gaps(void **state) {
  (void)state;
  isa_insn in = ib_copy_bursts(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 64, ISA_MEM_GM, 1u << 20, 3, 2097152,
                          4294967295u, 0);
  ic_ok(&in);
  isa_range r[ISA_MAX_RANGES];
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  assert_int_equal(r[0].mem, ISA_MEM_GM);
  assert_int_equal(r[0].write, 0);
  assert_int_equal(r[0].base, 1u << 20);
  assert_int_equal(r[0].row_bytes, 2097152);
  assert_int_equal(r[0].stride_bytes, 2097152ull + 4294967295ull);
  assert_int_equal(r[0].rows, 3);
  assert_int_equal(isa_range_end(&r[0]), (1u << 20) + 2 * (2097152ull + 4294967295ull) + 2097152);
  assert_int_equal(r[1].mem, ISA_MEM_UB);
  assert_int_equal(r[1].write, 1);
  assert_int_equal(r[1].base, 64);
  assert_int_equal(r[1].stride_bytes, 2097152);
  assert_int_equal(isa_range_bytes(&r[1]), 3ull * 2097152);
  isa_work w;
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 3ull * 2097152);
}

static void test_insn_copy_out_of_bounds_on_machine(void **state) {
  (void)state;
  isa_testmach *t = small_machine();
  /* BT is 1024 bytes: 4 bursts of 64 bytes 256 apart from 256 end at 256 + 3*256 + 64 = 1088 */
  isa_insn in = ib_copy_bursts(ISA_OP_COPY_L1_BT, ISA_MEM_BT, 256, ISA_MEM_L1, 0, 4, 64, 0, 192);
  isa_fault f;
  assert_false(itm_run(t, &in, &f));
  assert_int_equal(f.cause, ISA_FAULT_OUT_OF_BOUNDS);
  assert_string_equal(f.operand, "dst");
  assert_int_equal(f.value, 1088);
  assert_int_equal(f.limit, 1024);
  assert_string_equal(f.msg, "copy_l1_bt: write range [256, 1088) of BT is beyond its 1024 bytes");
  in.u.copy.dst.off = 192; /* ends at 1024: fits */
  assert_true(itm_run(t, &in, &f));
  itm_destroy(t);
}

/* ---- sync family ------------------------------------------------------------------------- */

static void test_insn_flag_same_pipe_faults(void **state) {
  (void)state;
  isa_insn in = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE1, ISA_PIPE_MTE1, 2);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "dst_pipe", ISA_PIPE_MTE1, ISA_PIPE_MTE1,
           "set_flag: src_pipe and dst_pipe are both MTE1; a flag joins two pipes (use "
           "pipe_barrier within one pipe)");
  in = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_V, ISA_PIPE_V, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "dst_pipe", ISA_PIPE_V, ISA_PIPE_V,
           "wait_flag: src_pipe and dst_pipe are both V; a flag joins two pipes (use "
           "pipe_barrier within one pipe)");
}

/* Flags and barriers touch no byte, cost no bytes, and change nothing on the machine. */
static void test_insn_sync_no_data(void **state) {
  (void)state;
  isa_testmach *t = small_machine();
  uint64_t rng = 3;
  fill_pattern(t, &rng);
  isa_insn ins[] = {
      ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 7),
      ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_M, ISA_PIPE_FIX, 0),
      ib_barrier(ISA_PIPE_ALL),
      ib_barrier(ISA_PIPE_V),
  };
  for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
    isa_range r[ISA_MAX_RANGES];
    assert_int_equal(isa_insn_ranges(&ins[i], r), 0);
    isa_work w;
    memset(&w, 0xFF, sizeof w);
    isa_insn_work(&ins[i], &w);
    assert_int_equal(w.path, ISA_PATH_NONE);
    assert_int_equal(w.bytes, 0);
    assert_int_equal(w.fractal_ops, 0);
    isa_fault f;
    assert_true(itm_run(t, &ins[i], &f)); /* itm_run fails the test on any changed byte */
  }
  itm_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_insn_table_complete),
      cmocka_unit_test(test_insn_mnemonic_round_trip),
      cmocka_unit_test(test_insn_field_offsets_distinct_and_inside),
      cmocka_unit_test(test_insn_field_ptr_reaches_member),
      cmocka_unit_test(test_insn_field_range_boundaries),
      cmocka_unit_test(test_insn_bad_memory),
      cmocka_unit_test(test_insn_bad_opcode_and_enums),
      cmocka_unit_test(test_insn_pipes),
      cmocka_unit_test(test_insn_range_overlap_brute_force),
      cmocka_unit_test(test_insn_range_overlap_examples),
      cmocka_unit_test(test_insn_range_normalize),
      cmocka_unit_test(test_insn_copy_exec_ranges_work),
      cmocka_unit_test(test_insn_copy_ranges_largest_gaps),
      cmocka_unit_test(test_insn_copy_out_of_bounds_on_machine),
      cmocka_unit_test(test_insn_flag_same_pipe_faults),
      cmocka_unit_test(test_insn_sync_no_data),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
