/* Tests of isa/isa_sem_load2d (load_l0a, load_l0b): checks, ranges, work, and exec with and
 * without transpose, with every kernel the host supports, against a reference written from the
 * words of docs/ISA.md §load2d. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "isa/isa_insn.h"
#include "isa/isa_kernel.h"
#include "support/insn_build.h"
#include "support/insn_check.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/rng.h"

#define BUF_BYTES 65536u
#define FRACTAL 512u

static isa_testmach *machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_L1] = BUF_BYTES;
  sizes[ISA_MEM_L0A] = BUF_BYTES;
  sizes[ISA_MEM_L0B] = BUF_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  return t;
}

typedef struct load_args {
  isa_op op;
  isa_dtype t;
  uint64_t src_off, dst_off;
  uint32_t start, repeat, src_stride, dst_gap, transpose;
} load_args;

static isa_insn load(const load_args *a) {
  isa_insn in = ib_load2d(a->op, a->t, a->dst_off, a->src_off, a->start, a->repeat, a->src_stride, a->transpose);
  in.u.load2d.dst_gap = a->dst_gap;
  return in;
}

/* ---- checks ------------------------------------------------------------------------------ */

static void test_load2d_check_dtypes(void **state) {
  (void)state;
  for (int tr = 0; tr <= 1; tr++)
    for (int t = 0; t < ISA_DTYPE_COUNT; t++) {
      load_args a = {tr ? ISA_OP_LOAD_L0B : ISA_OP_LOAD_L0A, (isa_dtype)t, 0, 0, 0, 1, 1, 0, (uint32_t)tr};
      isa_insn in = load(&a);
      bool byte_or_half = t == ISA_INT4 || t == ISA_INT8 || t == ISA_UINT8 || t == ISA_FP16 ||
                          t == ISA_BF16;
      bool want = byte_or_half || (!tr && (t == ISA_INT32 || t == ISA_FP32));
      isa_fault f;
      assert_int_equal(isa_insn_check(&in, &f), want);
      if (!want) assert_int_equal(f.cause, ISA_FAULT_DTYPE);
    }
  load_args a = {ISA_OP_LOAD_L0B, ISA_FP32, 0, 0, 0, 1, 1, 0, 1};
  isa_insn in = load(&a);
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_FP32, 0,
           "load_l0b: dtype fp32 cannot be transposed (only int4, int8, uint8, fp16, bf16)");
  a = (load_args){ISA_OP_LOAD_L0A, ISA_INT32, 0, 0, 0, 1, 1, 0, 1};
  in = load(&a);
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_INT32, 0,
           "load_l0a: dtype int32 cannot be transposed (only int4, int8, uint8, fp16, bf16)");
  a = (load_args){ISA_OP_LOAD_L0A, ISA_UINT64, 0, 0, 0, 1, 1, 0, 0};
  in = load(&a);
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_UINT64, 0,
           "load_l0a: dtype uint64 is not one of int4, int8, uint8, fp16, bf16, int32, fp32");
  a = (load_args){ISA_OP_LOAD_L0A, ISA_FP16, 0, 0, 65536, 1, 1, 0, 0};
  in = load(&a);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "start_index", 65536, 65535,
           "load_l0a: start_index = 65536 is out of range [0, 65535]");
}

/* ---- ranges and work --------------------------------------------------------------------- */

static void test_load2d_ranges_and_work(void **state) {
  (void)state;
  isa_range r[ISA_MAX_RANGES];
  isa_work w;
  /* plain: fractals 3, 5, 7, 9 from L1+1024 to fractals 0, 2, 4, 6 of L0A+512 */
  load_args a = {ISA_OP_LOAD_L0A, ISA_FP16, 1024, 512, 3, 4, 2, 1, 0};
  isa_insn in = load(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_L1, 0, 1024 + 3 * 512, 512, 1024, 4);
  ic_range(&r[1], ISA_MEM_L0A, 1, 512, 512, 1024, 4);
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_L1_TO_L0A);
  assert_int_equal(w.bytes, 4 * 512);

  /* int8 transposed: squares of 2 fractals at 1, 5, 9; written at 0, 4, 8 (gap 2) */
  a = (load_args){ISA_OP_LOAD_L0B, ISA_INT8, 0, 0, 1, 3, 4, 2, 1};
  in = load(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_L1, 0, 512, 1024, 2048, 3);
  ic_range(&r[1], ISA_MEM_L0B, 1, 0, 1024, 2048, 3);
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_L1_TO_L0B);
  assert_int_equal(w.bytes, 3 * 1024);

  /* int4 transposed, squares of 4 fractals one after the other on both sides: one run each */
  a = (load_args){ISA_OP_LOAD_L0B, ISA_INT4, 0, 4096, 2, 2, 4, 0, 1};
  in = load(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_L1, 0, 1024, 4096, 4096, 1);
  ic_range(&r[1], ISA_MEM_L0B, 1, 4096, 4096, 4096, 1);
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 2 * 2048);

  /* src_stride 0: every repeat reads the same fractal */
  a = (load_args){ISA_OP_LOAD_L0B, ISA_BF16, 0, 0, 7, 5, 0, 3, 0};
  in = load(&a);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_L1, 0, 7 * 512, 512, 512, 1);
  ic_range(&r[1], ISA_MEM_L0B, 1, 0, 512, 2048, 5);
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 5 * 512);

  /* fp32 without transpose moves fractals like any type */
  a = (load_args){ISA_OP_LOAD_L0A, ISA_FP32, 0, 0, 0, 255, 1, 0, 0};
  in = load(&a);
  isa_fault f;
  assert_true(isa_insn_check(&in, &f));
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_L1, 0, 0, 255 * 512, 255 * 512, 1);
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 255 * 512);
}

/* ---- exec -------------------------------------------------------------------------------- */

/* Hand-placed elements: where docs/ISA.md §load2d says the transpose puts them. */
static void test_load2d_transpose_hand_examples(void **state) {
  (void)state;
  isa_testmach *t = machine();
  uint8_t *l1 = itm_mem(t, ISA_MEM_L1), *l0b = itm_mem(t, ISA_MEM_L0B);
  isa_fault f;

  /* fp16: S[3][10] = 0xBEEF -> S^T[10][3]: fractal 0, row 10, column 3 = byte (10*16 + 3)*2 */
  l1[(3 * 16 + 10) * 2] = 0xEF;
  l1[(3 * 16 + 10) * 2 + 1] = 0xBE;
  load_args a = {ISA_OP_LOAD_L0B, ISA_FP16, 0, 0, 0, 1, 1, 0, 1};
  isa_insn in = load(&a);
  assert_true(itm_run(t, &in, &f));
  for (unsigned i = 0; i < FRACTAL; i++)
    assert_int_equal(l0b[i], i == 326 ? 0xEF : i == 327 ? 0xBE : 0);

  /* int8: S[1][20] = 0x5A (fractal 0, row 1, column 20) -> S^T[20][1]: fractal 1, row 4,
   * column 1 = byte 512 + 4*32 + 1 = 641 */
  memset(l1, 0, BUF_BYTES);
  l1[1 * 32 + 20] = 0x5A;
  a = (load_args){ISA_OP_LOAD_L0B, ISA_INT8, 0, 0, 0, 1, 1, 0, 1};
  in = load(&a);
  assert_true(itm_run(t, &in, &f));
  for (unsigned i = 0; i < 2 * FRACTAL; i++) assert_int_equal(l0b[i], i == 641 ? 0x5A : 0);

  /* int4: S[2][50] = 9 and S[2][51] = 0xC share byte (2*64 + 50)/2 = 89 (0xC9). S^T[50][2]
   * is nibble 2 of row 2 of fractal 3 = byte 1536 + 64 + 1 low nibble; S^T[51][2] is row 3 of
   * fractal 3 = byte 1536 + 96 + 1 low nibble: the byte is split. */
  memset(l1, 0, BUF_BYTES);
  l1[89] = 0xC9;
  a = (load_args){ISA_OP_LOAD_L0B, ISA_INT4, 0, 0, 0, 1, 1, 0, 1};
  in = load(&a);
  assert_true(itm_run(t, &in, &f));
  for (unsigned i = 0; i < 4 * FRACTAL; i++)
    assert_int_equal(l0b[i], i == 1601 ? 0x09 : i == 1633 ? 0x0C : 0);

  /* the same without transpose: the fractals as they are */
  a.transpose = 0;
  in = load(&a);
  assert_true(itm_run(t, &in, &f));
  assert_memory_equal(l0b, l1, FRACTAL);
  itm_destroy(t);
}

static const isa_dtype load_types[] = {ISA_INT4, ISA_INT8, ISA_UINT8, ISA_FP16,
                                       ISA_BF16, ISA_INT32, ISA_FP32};

/* The expected destination, from the document's words: without transpose repeat i copies
 * fractal start + i*src_stride to fractal i*(1 + dst_gap); with it, destination fractal j of
 * repeat i is at i*(q + dst_gap) + j and holds rows 16j..16j+15 of S^T, S being the C0 x C0
 * square whose rows are those of fractals start + i*src_stride ... + q - 1. */
static void reference(const load_args *a, const uint8_t *l1, uint8_t *dst, uint8_t *rset,
                      uint8_t *wset) {
  unsigned bits = isa_dtype_bits(a->t), c0 = isa_dtype_c0(a->t);
  unsigned q = a->transpose ? c0 / 16 : 1;
  for (uint64_t i = 0; i < a->repeat; i++) {
    uint64_t src_f = a->start + i * a->src_stride, dst_f = i * (q + a->dst_gap);
    memset(rset + a->src_off + src_f * FRACTAL, 1, q * FRACTAL);
    memset(wset + a->dst_off + dst_f * FRACTAL, 1, q * FRACTAL);
    if (!a->transpose) {
      memcpy(dst + a->dst_off + dst_f * FRACTAL, l1 + a->src_off + src_f * FRACTAL, FRACTAL);
      continue;
    }
    for (unsigned j = 0; j < q; j++)
      for (unsigned row = 0; row < 16; row++)
        for (unsigned col = 0; col < c0; col++) {
          unsigned sr = col, sc = 16 * j + row; /* S^T[16j + row][col] = S[col][16j + row] */
          const uint8_t *sfrac = l1 + a->src_off + (src_f + sr / 16) * FRACTAL;
          uint8_t *dfrac = dst + a->dst_off + (dst_f + j) * FRACTAL;
          pk_put(dfrac, bits, row * c0 + col, pk_get(sfrac, bits, (sr % 16) * c0 + sc));
        }
  }
}

static void test_load2d_exec_random_against_reference(void **state) {
  (void)state;
  isa_testmach *t = machine();
  uint8_t *want = malloc(BUF_BYTES), *l1_before = malloc(BUF_BYTES);
  uint8_t *rset = malloc(BUF_BYTES), *wset = malloc(BUF_BYTES);
  uint8_t *got_r = malloc(BUF_BYTES), *got_w = malloc(BUF_BYTES);
  assert_true(want && l1_before && rset && wset && got_r && got_w);
  uint64_t rng = 77;
  unsigned transposed = 0;
  /* the iterations take turns with every kernel the host supports (isa/isa_kernel.h) */
  isa_host *hosts[ISA_KERNEL_COUNT];
  int nhosts = 0;
  for (int k = ISA_KERNEL_SCALAR; k < ISA_KERNEL_COUNT; k++)
    if (isa_kernel_supported((isa_kernel)k))
      assert_int_equal(isa_host_create((isa_kernel)k, &hosts[nhosts++], NULL), CS_OK);
  for (int it = 0; it < 500 * nhosts; it++) {
    itm_set_host(t, hosts[it % nhosts]);
    load_args a;
    a.op = rng_lcg_below(&rng, 2) ? ISA_OP_LOAD_L0B : ISA_OP_LOAD_L0A;
    a.t = load_types[rng_lcg_below(&rng, sizeof load_types / sizeof load_types[0])];
    a.transpose = isa_dtype_bits(a.t) < 32 && rng_lcg_below(&rng, 3) != 0;
    transposed += a.transpose;
    a.src_off = 32 * rng_lcg_below(&rng, 16);
    a.dst_off = 512 * rng_lcg_below(&rng, 4);
    a.start = (uint32_t)rng_lcg_below(&rng, 20);
    a.repeat = 1 + (uint32_t)rng_lcg_below(&rng, 8);
    a.src_stride = (uint32_t)rng_lcg_below(&rng, 6); /* squares may overlap in the source */
    a.dst_gap = (uint32_t)rng_lcg_below(&rng, 3);
    isa_insn in = load(&a);
    isa_mem dm = a.op == ISA_OP_LOAD_L0A ? ISA_MEM_L0A : ISA_MEM_L0B;

    rng_lcg_bytes(&rng, itm_mem(t, ISA_MEM_L1), BUF_BYTES);
    rng_lcg_bytes(&rng, itm_mem(t, dm), BUF_BYTES);
    memcpy(l1_before, itm_mem(t, ISA_MEM_L1), BUF_BYTES);
    memcpy(want, itm_mem(t, dm), BUF_BYTES);
    memset(rset, 0, BUF_BYTES);
    memset(wset, 0, BUF_BYTES);
    reference(&a, l1_before, want, rset, wset);

    isa_fault f;
    if (!itm_run(t, &in, &f)) fail_msg("iteration %d: %s", it, f.msg);
    if (memcmp(itm_mem(t, dm), want, BUF_BYTES) != 0)
      fail_msg("iteration %d, kernel %s: %s %s transpose %u differs from the reference", it,
               isa_kernel_name(isa_host_kernel(hosts[it % nhosts])), isa_op_info(a.op)->mnemonic,
               isa_dtype_name(a.t), a.transpose);
    assert_memory_equal(itm_mem(t, ISA_MEM_L1), l1_before, BUF_BYTES);

    isa_range r[ISA_MAX_RANGES];
    size_t n = isa_insn_ranges(&in, r);
    memset(got_r, 0, BUF_BYTES);
    memset(got_w, 0, BUF_BYTES);
    ic_mark_ranges(r, n, ISA_MEM_L1, got_r, dm, got_w);
    assert_memory_equal(got_r, rset, BUF_BYTES);
    assert_memory_equal(got_w, wset, BUF_BYTES);

    isa_work w;
    isa_insn_work(&in, &w);
    assert_int_equal(w.path, dm == ISA_MEM_L0A ? ISA_PATH_L1_TO_L0A : ISA_PATH_L1_TO_L0B);
    unsigned q = a.transpose ? isa_dtype_c0(a.t) / 16 : 1;
    assert_int_equal(w.bytes, (uint64_t)a.repeat * q * FRACTAL);
  }
  assert_true(transposed > 150 * (unsigned)nhosts);
  for (int h = 0; h < nhosts; h++) isa_host_destroy(hosts[h]);
  free(want);
  free(l1_before);
  free(rset);
  free(wset);
  free(got_r);
  free(got_w);
  itm_destroy(t);
}

/* Transposing twice gives the square back, for every transposable type. */
static void test_load2d_transpose_twice_is_identity(void **state) {
  (void)state;
  static const isa_dtype types[] = {ISA_INT4, ISA_INT8, ISA_UINT8, ISA_FP16, ISA_BF16};
  isa_testmach *t = machine();
  uint64_t rng = 1;
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    unsigned q = isa_dtype_c0(types[i]) / 16;
    rng_lcg_bytes(&rng, itm_mem(t, ISA_MEM_L1), BUF_BYTES);
    load_args a = {ISA_OP_LOAD_L0B, types[i], 0, 0, 0, 3, q, 0, 1};
    isa_insn in = load(&a);
    isa_fault f;
    assert_true(itm_run(t, &in, &f));
    /* copy L0B back into L1 after the original squares, transpose again into L0A */
    uint8_t *l1 = itm_mem(t, ISA_MEM_L1);
    memcpy(l1 + 3 * q * FRACTAL, itm_mem(t, ISA_MEM_L0B), 3 * q * FRACTAL);
    a = (load_args){ISA_OP_LOAD_L0A, types[i], 0, 0, 3 * q, 3, q, 0, 1};
    in = load(&a);
    assert_true(itm_run(t, &in, &f));
    assert_memory_equal(itm_mem(t, ISA_MEM_L0A), l1, 3 * q * FRACTAL);
    /* and the first transpose did change the bytes */
    assert_true(memcmp(itm_mem(t, ISA_MEM_L0B), l1, q * FRACTAL) != 0);
  }
  itm_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load2d_check_dtypes),
      cmocka_unit_test(test_load2d_ranges_and_work),
      cmocka_unit_test(test_load2d_transpose_hand_examples),
      cmocka_unit_test(test_load2d_exec_random_against_reference),
      cmocka_unit_test(test_load2d_transpose_twice_is_identity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
