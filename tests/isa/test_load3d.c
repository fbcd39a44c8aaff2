/* Tests of isa/isa_sem_load3d (load3d_l0a): checks at each boundary, ranges, work, and exec
 * against an element-wise reference written from the words of docs/ISA.md §load3d: element
 * (p, c) of the img2col matrix is L1 element (c / C0) * P * C0 + p * C0 + c % C0, and Zz puts
 * row i, column j of the m_extension x k_extension result at element (i / 16 * (k_extension / C0)
 * + j / C0) * 16 * C0 + i % 16 * C0 + j % C0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "isa/isa_insn.h"
#include "isa/isa_text.h"
#include "support/insn_build.h"
#include "support/insn_check.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/rng.h"

#define BUF_BYTES 131072u

/* ---- checks ------------------------------------------------------------------------------ */

static void test_load3d_checks_at_their_boundaries(void **state) {
  (void)state;
  /* fp16 (C0 16): a 1 x 64 map of 48 channels; 64 rows from 0, 48 columns from 0: legal */
  isa_insn in = ib_load3d(ISA_FP16, 0, 0, 1, 64, 48, 64, 48, 0, 0);
  ic_ok(&in);
  in = ib_load3d(ISA_FP16, 0, 0, 1, 64, 48, 48, 48, 16, 0); /* rows 16 .. 64: the last ones */
  ic_ok(&in);
  in = ib_load3d(ISA_FP16, 0, 0, 1, 64, 48, 48, 48, 32, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "m_extension", 80, 64,
           "load3d_l0a: rows 32 .. 80 of a feature map of 1 x 64 = 64 positions");
  in = ib_load3d(ISA_FP16, 0, 0, 2, 32, 48, 64, 48, 0, 0); /* 2 x 32 is 64 positions too */
  ic_ok(&in);
  in = ib_load3d(ISA_FP16, 0, 0, 1, 64, 48, 24, 16, 0, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "m_extension", 24, 16,
           "load3d_l0a: m_extension 24 is not a multiple of 16 (whole fractal rows)");
  in = ib_load3d(ISA_FP16, 0, 0, 1, 64, 48, 16, 16, 8, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "m_start", 8, 16,
           "load3d_l0a: m_start 8 is not a multiple of 16 (whole fractal rows)");
  in = ib_load3d(ISA_FP16, 0, 0, 1, 64, 48, 16, 24, 0, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "k_extension", 24, 16,
           "load3d_l0a: k_extension 24 is not a multiple of C0 = 16 for fp16");
  in = ib_load3d(ISA_FP16, 0, 0, 1, 64, 48, 16, 16, 0, 8);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "k_start", 8, 16,
           "load3d_l0a: k_start 8 is not a multiple of C0 = 16 for fp16");
  /* 40 channels pad to 48: columns up to 48 are legal, 64 are not */
  in = ib_load3d(ISA_FP16, 0, 0, 1, 64, 40, 16, 16, 0, 32);
  ic_ok(&in);
  in = ib_load3d(ISA_FP16, 0, 0, 1, 64, 40, 16, 32, 0, 32);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "k_extension", 64, 48,
           "load3d_l0a: columns 32 .. 64 of 40 channels (48 with the padding to C0)");
  /* int8: C0 32; int4: C0 64 */
  in = ib_load3d(ISA_INT8, 0, 0, 1, 16, 64, 16, 32, 0, 32);
  ic_ok(&in);
  in = ib_load3d(ISA_INT8, 0, 0, 1, 16, 64, 16, 16, 0, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "k_extension", 16, 32,
           "load3d_l0a: k_extension 16 is not a multiple of C0 = 32 for int8");
  in = ib_load3d(ISA_INT4, 0, 0, 1, 16, 128, 16, 64, 0, 64);
  ic_ok(&in);
  /* the types mmad takes, not the 32-bit ones */
  in = ib_load3d(ISA_FP32, 0, 0, 1, 16, 16, 16, 8, 0, 0);
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_FP32, 0, "load3d_l0a: dtype fp32 is not one of int4, int8, uint8, fp16, bf16");
  in = ib_load3d(ISA_FP16, 0, 0, 0, 16, 16, 16, 16, 0, 0);
  ic_fault(&in, ISA_FAULT_FIELD_RANGE, "l1_h", 0, 1, "load3d_l0a: l1_h = 0 is out of range [1, 32767]");
  /* L0A only */
  in = ib_load3d(ISA_FP16, 0, 0, 1, 16, 16, 16, 16, 0, 0);
  in.u.load3d.dst.mem = ISA_MEM_L0B;
  isa_fault f;
  assert_false(isa_insn_check(&in, &f));
  assert_int_equal(f.cause, ISA_FAULT_BAD_MEM);
}

/* ---- ranges and work --------------------------------------------------------------------- */

static void test_load3d_ranges_and_work(void **state) {
  (void)state;
  isa_range r[ISA_MAX_RANGES];
  isa_work w;
  /* fp16, a 1 x 128 map of 256 channels at L1+4096: rows 32 .. 96, columns 64 .. 128 are channel
   * blocks 4 .. 7, each 64 rows of 32 B from row 32 of its block of 128 rows (4096 B) */
  isa_insn in = ib_load3d(ISA_FP16, 1024, 4096, 1, 128, 256, 64, 64, 32, 64);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_L1, 0, 4096 + (4 * 128 + 32) * 32, 64 * 32, 128 * 32, 4);
  ic_range(&r[1], ISA_MEM_L0A, 1, 1024, 64 * 64 * 2, 64 * 64 * 2, 1);
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_L1_TO_L0A);
  assert_int_equal(w.bytes, 64 * 64 * 2);
  /* int4: 128 columns are 2 blocks of 64; the whole map is read, one run; bytes are half the
   * elements */
  in = ib_load3d(ISA_INT4, 0, 0, 1, 16, 128, 16, 128, 0, 0);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_L1, 0, 0, 2 * 16 * 32, 2 * 16 * 32, 1);
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 16 * 128 / 2);
}

/* ---- exec -------------------------------------------------------------------------------- */

/* The reference of the file's comment, element by element, with the bytes it reads and writes. */
static void reference(const isa_fmt_load3d *p, const uint8_t *l1, uint8_t *dst) {
  unsigned bits = isa_dtype_bits((isa_dtype)p->dtype), c0 = isa_dtype_c0((isa_dtype)p->dtype);
  uint64_t P = (uint64_t)p->l1_h * p->l1_w, kb = p->k_extension / c0;
  for (uint64_t i = 0; i < p->m_extension; i++)
    for (uint64_t j = 0; j < p->k_extension; j++) {
      uint64_t row = p->m_start + i, col = p->k_start + j;
      uint64_t s = (col / c0) * P * c0 + row * c0 + col % c0;
      uint64_t d = (i / 16 * kb + j / c0) * 16 * c0 + i % 16 * c0 + j % c0;
      pk_put(dst, bits, d, pk_get(l1 + p->src.off, bits, s));
    }
}

static void test_load3d_exec_matches_the_reference(void **state) {
  (void)state;
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_L1] = BUF_BYTES;
  sizes[ISA_MEM_L0A] = BUF_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  uint8_t *l1 = itm_mem(t, ISA_MEM_L1), *l0a = itm_mem(t, ISA_MEM_L0A);
  uint8_t *want = malloc(BUF_BYTES);
  assert_non_null(want);
  static const isa_dtype types[] = {ISA_INT4, ISA_INT8, ISA_UINT8, ISA_FP16, ISA_BF16};
  uint64_t st = 0x3d3d3d;
  unsigned cases = 0;
  for (int round = 0; round < 60; round++) {
    isa_dtype dt = types[round % 5];
    unsigned c0 = isa_dtype_c0(dt);
    uint32_t h = (uint32_t)rng_lcg_int(&st, 1, 3), w = 16 * (uint32_t)rng_lcg_int(&st, 1, 6);
    uint32_t P = h * w, c1 = (uint32_t)rng_lcg_int(&st, 1, 4);
    uint32_t channels = c1 * c0 - (uint32_t)rng_lcg_int(&st, 0, (int)c0 - 1);
    uint32_t rows16 = P / 16, m_blocks = (uint32_t)rng_lcg_int(&st, 1, (int)rows16);
    uint32_t m_start = 16 * (uint32_t)rng_lcg_int(&st, 0, (int)(rows16 - m_blocks));
    uint32_t k_blocks = (uint32_t)rng_lcg_int(&st, 1, (int)c1);
    uint32_t k_start = c0 * (uint32_t)rng_lcg_int(&st, 0, (int)(c1 - k_blocks));
    uint64_t src_off = 32 * (uint64_t)rng_lcg_int(&st, 0, 64), dst_off = 512 * (uint64_t)rng_lcg_int(&st, 0, 8);
    for (uint32_t i = 0; i < BUF_BYTES; i++) l1[i] = (uint8_t)rng_lcg(&st);
    memset(l0a, 0xEE, BUF_BYTES);
    memcpy(want, l0a, BUF_BYTES);
    isa_insn in = ib_load3d(dt, dst_off, src_off, h, w, channels, 16 * m_blocks, c0 * k_blocks, m_start, k_start);
    isa_fault f;
    assert_true(itm_run(t, &in, &f));
    reference(&in.u.load3d, l1, want + dst_off);
    assert_memory_equal(l0a, want, BUF_BYTES); /* and nothing outside the result changed */
    cases++;
  }
  assert_int_equal(cases, 60);
  free(want);
  itm_destroy(t);
}

/* The assembler writes and reads the instruction back field for field. */
static void test_load3d_text_round_trip(void **state) {
  (void)state;
  isa_insn in = ib_load3d(ISA_BF16, 512, 64, 2, 48, 40, 32, 32, 64, 16), back;
  char text[512];
  isa_disasm(&in, text, sizeof text);
  assert_non_null(strstr(text, "load3d_l0a"));
  cs_err err;
  assert_int_equal(isa_asm_line(text, &back, &err), CS_OK);
  assert_memory_equal(&back, &in, sizeof in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load3d_checks_at_their_boundaries),
      cmocka_unit_test(test_load3d_ranges_and_work),
      cmocka_unit_test(test_load3d_exec_matches_the_reference),
      cmocka_unit_test(test_load3d_text_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
