/* Tests of isa/isa_sem_nd2nz (copy_gm_l1_nd2nz): checks, exact ranges and their bounding
 * fallback, work, and exec against an element-by-element reference of docs/ISA.md §nd2nz. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "isa/isa_insn.h"
#include "isa/isa_nz.h"
#include "support/insn_check.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/rng.h"

#define GM_BYTES 65536u
#define L1_BYTES 131072u

/* Marks the bytes holding element i. */
static void elem_mark(uint8_t *set, unsigned bits, uint64_t i) {
  if (bits == 4) set[i / 2] = 1;
  else
    for (unsigned k = 0; k < bits / 8; k++) set[i * (bits / 8) + k] = 1;
}

static isa_testmach *machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_GM] = GM_BYTES;
  sizes[ISA_MEM_L1] = L1_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  return t;
}

typedef struct nd2nz_args {
  isa_dtype t;
  uint64_t src_off, dst_off;
  uint32_t nd, n, d, smst, sdv, dcs, ns, dmst;
} nd2nz_args;

static isa_insn nd2nz(const nd2nz_args *a) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_COPY_GM_L1_ND2NZ;
  isa_fmt_nd2nz *p = &in.u.nd2nz;
  p->dst = (isa_addr){ISA_MEM_L1, a->dst_off};
  p->src = (isa_addr){ISA_MEM_GM, a->src_off};
  p->dtype = a->t;
  p->nd_num = a->nd;
  p->n_value = a->n;
  p->d_value = a->d;
  p->src_nd_matrix_stride = a->smst;
  p->src_d_value = a->sdv;
  p->dst_nz_c0_stride = a->dcs;
  p->dst_nz_n_stride = a->ns;
  p->dst_nz_matrix_stride = a->dmst;
  return in;
}

/* ---- checks ------------------------------------------------------------------------------ */

static void test_nd2nz_check_dtypes(void **state) {
  (void)state;
  nd2nz_args a = {ISA_INT8, 0, 0, 1, 16, 64, 0, 64, 16, 1, 0};
  for (int t = 0; t < ISA_DTYPE_COUNT; t++) {
    a.t = (isa_dtype)t;
    isa_insn in = nd2nz(&a);
    bool want = t == ISA_INT4 || t == ISA_INT8 || t == ISA_UINT8 || t == ISA_FP16 ||
                t == ISA_BF16 || t == ISA_INT32 || t == ISA_FP32;
    isa_fault f;
    assert_int_equal(isa_insn_check(&in, &f), want);
    if (!want) {
      assert_int_equal(f.cause, ISA_FAULT_DTYPE);
      assert_string_equal(f.operand, "dtype");
      assert_int_equal(f.value, t);
    }
  }
  a.t = ISA_UINT4;
  isa_insn in = nd2nz(&a);
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_UINT4, 0,
           "copy_gm_l1_nd2nz: dtype uint4 is not one of int4, int8, uint8, fp16, bf16, int32, "
           "fp32");
}

static void test_nd2nz_check_src_d_value(void **state) {
  (void)state;
  nd2nz_args a = {ISA_FP16, 0, 0, 1, 5, 40, 0, 39, 16, 1, 0};
  isa_insn in = nd2nz(&a);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "src_d_value", 39, 40,
           "copy_gm_l1_nd2nz: src_d_value = 39 is less than d_value = 40");
  in.u.nd2nz.src_d_value = 40;
  isa_fault f;
  assert_true(isa_insn_check(&in, &f));
  /* the generic ranges come first: n_value [1, 16384] */
  in.u.nd2nz.n_value = 16385;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "n_value", 16385, 16384,
           "copy_gm_l1_nd2nz: n_value = 16385 is out of range [1, 16384]");
  in.u.nd2nz.n_value = 16384;
  assert_true(isa_insn_check(&in, &f));
}

static void test_nd2nz_check_int4_even(void **state) {
  (void)state;
  nd2nz_args a = {ISA_INT4, 0, 0, 2, 5, 40, 200, 40, 16, 1, 2048};
  isa_insn in = nd2nz(&a);
  isa_fault f;
  assert_true(isa_insn_check(&in, &f));
  in.u.nd2nz.d_value = 39;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "d_value", 39, 2,
           "copy_gm_l1_nd2nz: d_value = 39 is odd; int4 needs whole bytes");
  in = nd2nz(&a);
  in.u.nd2nz.src_d_value = 41;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "src_d_value", 41, 2,
           "copy_gm_l1_nd2nz: src_d_value = 41 is odd; int4 needs whole bytes");
  in = nd2nz(&a);
  in.u.nd2nz.src_nd_matrix_stride = 201;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "src_nd_matrix_stride", 201, 2,
           "copy_gm_l1_nd2nz: src_nd_matrix_stride = 201 is odd; int4 needs whole bytes");
  in = nd2nz(&a);
  in.u.nd2nz.dst_nz_matrix_stride = 2047;
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "dst_nz_matrix_stride", 2047, 2,
           "copy_gm_l1_nd2nz: dst_nz_matrix_stride = 2047 is odd; int4 needs whole bytes");
  /* odd is fine for whole-byte types */
  a.t = ISA_INT8;
  a.d = 39;
  a.sdv = 41;
  a.smst = 201;
  a.dmst = 2047;
  in = nd2nz(&a);
  assert_true(isa_insn_check(&in, &f));
}

/* ---- ranges and work --------------------------------------------------------------------- */

static void test_nd2nz_ranges_examples(void **state) {
  (void)state;
  isa_range r[ISA_MAX_RANGES];
  /* int8, two 3 x 40 matrices 200 elements apart with rows of 50: one source range per matrix
   * (200 != 3*50); destination blocks of 3 rows, column blocks 16 blocks apart, matrices 1024
   * bytes apart = 2 column blocks * 512: one range of 4 runs of 96 bytes. */
  nd2nz_args a = {ISA_INT8, 100, 2048, 2, 3, 40, 200, 50, 16, 1, 1024};
  isa_insn in = nd2nz(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 3);
  ic_range(&r[0], ISA_MEM_GM, 0, 100, 40, 50, 3);
  ic_range(&r[1], ISA_MEM_GM, 0, 300, 40, 50, 3);
  ic_range(&r[2], ISA_MEM_L1, 1, 2048, 96, 512, 4);
  isa_work w;
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_GM_TO_L1);
  assert_int_equal(w.bytes, 2 * 3 * 40);

  /* rows 2 blocks apart: one range per (matrix, column block) */
  a = (nd2nz_args){ISA_FP16, 0, 64, 1, 5, 20, 0, 20, 10, 2, 0};
  in = nd2nz(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 3);
  ic_range(&r[0], ISA_MEM_GM, 0, 0, 200, 200, 1); /* rows one after the other */
  ic_range(&r[1], ISA_MEM_L1, 1, 64, 32, 64, 5);
  ic_range(&r[2], ISA_MEM_L1, 1, 64 + 320, 32, 64, 5);
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 5 * 40);

  /* int4: 2 rows of 130 nibbles (65 bytes) in rows of 66 bytes -> 3 column blocks */
  a = (nd2nz_args){ISA_INT4, 0, 0, 1, 2, 130, 0, 132, 4, 1, 0};
  in = nd2nz(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_GM, 0, 0, 65, 66, 2);
  ic_range(&r[1], ISA_MEM_L1, 1, 0, 64, 128, 3);
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 130);

  /* one row per matrix, matrices 0 elements apart: every matrix reads and writes the same bytes */
  a = (nd2nz_args){ISA_FP32, 32, 0, 7, 1, 8, 0, 8, 1, 1, 0};
  in = nd2nz(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_GM, 0, 32, 32, 32, 1);
  ic_range(&r[1], ISA_MEM_L1, 1, 0, 32, 32, 1);
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 7 * 32);
}

/* More ranges than ISA_MAX_RANGES: a side needing more than half of them becomes one bounding
 * run from its first byte to one past its last. */
static void test_nd2nz_ranges_bounding_fallback(void **state) {
  (void)state;
  isa_range r[ISA_MAX_RANGES];
  /* 40 matrices of 2 x 32 int8 in rows of 40: source 40 ranges (100 != 2*40), destination 40
   * ranges (rows 2 blocks apart, matrices 256 bytes apart != 2*64) */
  nd2nz_args a = {ISA_INT8, 0, 0, 40, 2, 32, 100, 40, 4, 2, 256};
  isa_insn in = nd2nz(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_GM, 0, 0, 39 * 100 + 40 + 32, 39 * 100 + 40 + 32, 1);
  ic_range(&r[1], ISA_MEM_L1, 1, 0, 39 * 256 + 3 * 32, 39 * 256 + 3 * 32, 1);

  /* 10 irregular source matrices stay exact; 10 x 3 destination ranges are bounded */
  a = (nd2nz_args){ISA_FP16, 64, 512, 10, 2, 48, 200, 50, 8, 2, 2000};
  in = nd2nz(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 11);
  for (int t = 0; t < 10; t++) ic_range(&r[t], ISA_MEM_GM, 0, 64 + t * 400, 96, 100, 2);
  uint64_t end = 9 * 4000 + (2 * 8 + 1 * 2 + 1) * 32;
  ic_range(&r[10], ISA_MEM_L1, 1, 512, end, end, 1);

  /* 20 irregular sources (> 16) with a destination that merges into 1: 21 ranges, all exact */
  a = (nd2nz_args){ISA_FP16, 0, 0, 20, 2, 16, 100, 20, 2, 1, 32};
  in = nd2nz(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 21);
  ic_range(&r[19], ISA_MEM_GM, 0, 19 * 200, 32, 40, 2);
  ic_range(&r[20], ISA_MEM_L1, 1, 0, 1280, 1280, 1);

  /* and the machine runs such an instruction correctly under its bounding ranges */
  isa_testmach *t = machine();
  uint64_t rng = 5;
  rng_lcg_bytes(&rng, itm_mem(t, ISA_MEM_GM), GM_BYTES);
  a = (nd2nz_args){ISA_INT8, 0, 0, 40, 2, 32, 100, 40, 4, 2, 256};
  in = nd2nz(&a);
  isa_fault f;
  assert_true(itm_run(t, &in, &f));
  const uint8_t *gm = itm_mem(t, ISA_MEM_GM), *l1 = itm_mem(t, ISA_MEM_L1);
  for (int m = 0; m < 40; m++)
    for (int row = 0; row < 2; row++)
      assert_memory_equal(l1 + m * 256 + row * 64, gm + m * 100 + row * 40, 32);
  /* contiguous rows make each matrix one run: 40 matrices are then one strided range */
  a.sdv = 32;
  in = nd2nz(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_GM, 0, 0, 64, 100, 40);
  itm_destroy(t);
}

/* ---- exec against the reference ---------------------------------------------------------- */

static const isa_dtype nd2nz_types[] = {ISA_INT4, ISA_INT8, ISA_UINT8, ISA_FP16,
                                        ISA_BF16, ISA_INT32, ISA_FP32};

/* Random parameters whose destination blocks do not overlap (overlapping blocks would make the
 * result depend on an order the documents leave open). */
static nd2nz_args random_args(uint64_t *rng) {
  nd2nz_args a;
  a.t = nd2nz_types[rng_lcg_below(rng, sizeof nd2nz_types / sizeof nd2nz_types[0])];
  uint32_t c0 = isa_dtype_c0(a.t), even = a.t == ISA_INT4 ? 2 : 1;
  a.nd = 1 + (uint32_t)rng_lcg_below(rng, 3);
  a.n = 1 + (uint32_t)rng_lcg_below(rng, 20);
  a.d = 1 + (uint32_t)rng_lcg_below(rng, 3 * c0);
  a.d += a.d % even;
  a.sdv = a.d + (uint32_t)rng_lcg_below(rng, 6);
  a.sdv += a.sdv % even;
  a.smst = (uint32_t)rng_lcg_below(rng, (uint64_t)a.n * a.sdv + 10); /* sources may overlap */
  a.smst += a.smst % even;
  uint32_t nb = (a.d + c0 - 1) / c0;
  switch (rng_lcg_below(rng, 3)) {
    case 0: /* column blocks of padded rows, one after the other */
      a.ns = 1;
      a.dcs = a.n + (uint32_t)rng_lcg_below(rng, 4);
      break;
    case 1: /* the blocks of a row side by side */
      a.dcs = 1;
      a.ns = nb + (uint32_t)rng_lcg_below(rng, 3);
      break;
    default: /* rows spread out, column blocks beyond */
      a.ns = 1 + (uint32_t)rng_lcg_below(rng, 3);
      a.dcs = (a.n - 1) * a.ns + 1 + (uint32_t)rng_lcg_below(rng, 3);
      break;
  }
  uint32_t span_blocks = (nb - 1) * a.dcs + (a.n - 1) * a.ns + 1;
  a.dmst = span_blocks * c0 + 2 * (uint32_t)rng_lcg_below(rng, 5);
  a.src_off = rng_lcg_below(rng, 64);
  a.dst_off = rng_lcg_below(rng, 64);
  return a;
}

/* The expected L1 (applied to `l1`), and the bytes read and written, element by element. */
static void reference(const nd2nz_args *a, const uint8_t *gm, uint8_t *l1, uint8_t *rset,
                      uint8_t *wset) {
  unsigned bits = isa_dtype_bits(a->t), c0 = isa_dtype_c0(a->t);
  uint64_t nb = (a->d + c0 - 1) / c0;
  for (uint64_t t = 0; t < a->nd; t++)
    for (uint64_t r = 0; r < a->n; r++)
      for (uint64_t c = 0; c < nb * c0; c++) {
        uint64_t b = c / c0;
        uint64_t block = a->dst_off + t * a->dmst * bits / 8 + (b * a->dcs + r * a->ns) * 32;
        uint64_t v = 0;
        if (c < a->d) {
          uint64_t i = t * a->smst + r * a->sdv + c;
          v = pk_get(gm + a->src_off, bits, i);
          elem_mark(rset + a->src_off, bits, i);
        }
        pk_put(l1 + block, bits, c % c0, v);
        for (int k = 0; k < 32; k++) wset[block + k] = 1;
      }
}

static void test_nd2nz_exec_random_against_reference(void **state) {
  (void)state;
  isa_testmach *t = machine();
  uint8_t *want = malloc(L1_BYTES), *gm_before = malloc(GM_BYTES);
  uint8_t *rset = malloc(GM_BYTES), *wset = malloc(L1_BYTES);
  uint8_t *got_r = malloc(GM_BYTES), *got_w = malloc(L1_BYTES);
  assert_true(want && gm_before && rset && wset && got_r && got_w);
  uint64_t rng = 2024;
  unsigned per_type[ISA_DTYPE_COUNT] = {0};
  for (int it = 0; it < 400; it++) {
    nd2nz_args a = random_args(&rng);
    per_type[a.t]++;
    isa_insn in = nd2nz(&a);
    rng_lcg_bytes(&rng, itm_mem(t, ISA_MEM_GM), GM_BYTES);
    rng_lcg_bytes(&rng, itm_mem(t, ISA_MEM_L1), L1_BYTES);
    memcpy(want, itm_mem(t, ISA_MEM_L1), L1_BYTES);
    memcpy(gm_before, itm_mem(t, ISA_MEM_GM), GM_BYTES);
    memset(rset, 0, GM_BYTES);
    memset(wset, 0, L1_BYTES);
    reference(&a, gm_before, want, rset, wset);

    isa_fault f;
    if (!itm_run(t, &in, &f)) fail_msg("iteration %d: %s", it, f.msg);
    assert_memory_equal(itm_mem(t, ISA_MEM_L1), want, L1_BYTES);
    assert_memory_equal(itm_mem(t, ISA_MEM_GM), gm_before, GM_BYTES);

    /* ranges: exactly the bytes read and written */
    isa_range r[ISA_MAX_RANGES];
    size_t n = isa_insn_ranges(&in, r);
    memset(got_r, 0, GM_BYTES);
    memset(got_w, 0, L1_BYTES);
    ic_mark_ranges(r, n, ISA_MEM_GM, got_r, ISA_MEM_L1, got_w);
    assert_memory_equal(got_r, rset, GM_BYTES);
    assert_memory_equal(got_w, wset, L1_BYTES);

    isa_work w;
    isa_insn_work(&in, &w);
    assert_int_equal(w.path, ISA_PATH_GM_TO_L1);
    assert_int_equal(w.bytes, (uint64_t)a.nd * a.n * a.d * isa_dtype_bits(a.t) / 8);
  }
  for (size_t i = 0; i < sizeof nd2nz_types / sizeof nd2nz_types[0]; i++)
    assert_true(per_type[nd2nz_types[i]] > 20);
  free(want);
  free(gm_before);
  free(rset);
  free(wset);
  free(got_r);
  free(got_w);
  itm_destroy(t);
}

/* Rows of more than 64 column blocks (exec looks the destination runs up 64 at a time) with a
 * partial last block, and column-block runs that overlap (c0 stride below the rows: the later
 * row of the definition's order wins): exec against the reference, byte for byte. */
static void test_nd2nz_exec_wide_rows_and_overlapping_runs(void **state) {
  (void)state;
  static const nd2nz_args cases[] = {
      /* t, src_off, dst_off, nd, n, d, smst, sdv, dcs, ns, dmst */
      {ISA_INT8, 3, 64, 2, 5, 64 * 32 + 37, 5 * 2200, 2200, 6, 1, 72 * 6 * 32},
      {ISA_FP16, 0, 32, 1, 3, 130 * 16, 0, 130 * 16 + 2, 3, 1, 0},
      {ISA_INT4, 1, 0, 2, 4, 65 * 64 + 2, 4 * 4300, 4300, 4, 1, 70 * 4 * 64},
      {ISA_INT8, 0, 0, 2, 6, 70 * 32, 6 * 2240, 2240, 2, 1, 71 * 6 * 32},   /* runs overlap */
      {ISA_FP32, 5, 96, 1, 9, 8 * 40 + 3, 0, 8 * 40 + 3, 4, 1, 0},          /* runs overlap */
  };
  isa_testmach *t = machine();
  uint8_t *want = malloc(L1_BYTES), *gm_before = malloc(GM_BYTES);
  uint8_t *rset = calloc(1, GM_BYTES), *wset = calloc(1, L1_BYTES);
  assert_true(want && gm_before && rset && wset);
  uint64_t rng = 77;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    isa_insn in = nd2nz(&cases[i]);
    rng_lcg_bytes(&rng, itm_mem(t, ISA_MEM_GM), GM_BYTES);
    rng_lcg_bytes(&rng, itm_mem(t, ISA_MEM_L1), L1_BYTES);
    memcpy(want, itm_mem(t, ISA_MEM_L1), L1_BYTES);
    memcpy(gm_before, itm_mem(t, ISA_MEM_GM), GM_BYTES);
    reference(&cases[i], gm_before, want, rset, wset);
    isa_fault f;
    if (!itm_run(t, &in, &f)) fail_msg("case %zu: %s", i, f.msg);
    assert_memory_equal(itm_mem(t, ISA_MEM_L1), want, L1_BYTES);
  }
  free(want);
  free(gm_before);
  free(rset);
  free(wset);
  itm_destroy(t);
}

/* With the standard parameters (rows padded to 16, column blocks one after the other, matrices
 * one after the other) into a zeroed L1, the result is isa_nd_to_nz's FRACTAL_NZ (docs/DESIGN.md
 * §3), rows of padding included (never written, still zero). */
static void test_nd2nz_standard_params_give_fractal_nz(void **state) {
  (void)state;
  static const struct { size_t h, w; } shapes[] = {{20, 40}, {1, 2}, {16, 64}, {33, 130}};
  uint64_t rng = 99;
  for (size_t ti = 0; ti < sizeof nd2nz_types / sizeof nd2nz_types[0]; ti++)
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      isa_dtype ty = nd2nz_types[ti];
      size_t h = shapes[si].h, w = shapes[si].w, batch = 3;
      isa_nz_geom g = isa_nz_geom_of(ty, h, w);
      size_t nz_bytes = isa_nz_bytes(&g), nd_bytes = isa_nd_bytes(&g, batch);
      isa_testmach *t = machine();
      rng_lcg_bytes(&rng, itm_mem(t, ISA_MEM_GM), nd_bytes);
      uint8_t *want = calloc(batch, nz_bytes);
      assert_non_null(want);
      isa_nd_to_nz(&g, batch, itm_mem(t, ISA_MEM_GM), want);

      uint32_t h16 = (uint32_t)isa_nz_padded_rows(&g);
      nd2nz_args a = {ty, 0, 0, (uint32_t)batch, (uint32_t)h, (uint32_t)w, (uint32_t)(h * w),
                      (uint32_t)w, h16, 1, (uint32_t)isa_nz_elems(&g)};
      isa_insn in = nd2nz(&a);
      isa_fault f;
      assert_true(itm_run(t, &in, &f));
      assert_memory_equal(itm_mem(t, ISA_MEM_L1), want, batch * nz_bytes);
      /* one range each side: contiguous rows, and whole column blocks as one strided run */
      isa_range r[ISA_MAX_RANGES];
      assert_int_equal(isa_insn_ranges(&in, r), 2);
      ic_range(&r[0], ISA_MEM_GM, 0, 0, nd_bytes, nd_bytes, 1);
      uint64_t runs = isa_nz_col_blocks(&g) * batch;
      if (h == h16)
        ic_range(&r[1], ISA_MEM_L1, 1, 0, runs * h * 32, runs * h * 32, 1);
      else
        ic_range(&r[1], ISA_MEM_L1, 1, 0, h * 32, h16 * 32, runs);
      free(want);
      itm_destroy(t);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nd2nz_check_dtypes),
      cmocka_unit_test(test_nd2nz_check_src_d_value),
      cmocka_unit_test(test_nd2nz_check_int4_even),
      cmocka_unit_test(test_nd2nz_ranges_examples),
      cmocka_unit_test(test_nd2nz_ranges_bounding_fallback),
      cmocka_unit_test(test_nd2nz_exec_random_against_reference),
      cmocka_unit_test(test_nd2nz_exec_wide_rows_and_overlapping_runs),
      cmocka_unit_test(test_nd2nz_standard_params_give_fractal_nz),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
