/* How the data movers compose into the cube's operand layouts: an ND matrix in GM, moved to L1
 * by copy_gm_l1_nd2nz and into L0A / L0B by load_l0a / load_l0b, lands exactly where mmad reads
 * it (docs/ISA.md §mmad: A in Zz, B in Zn). The expected positions are computed from the §mmad
 * formulas, element by element; padding is checked only where the documented semantics define
 * it (the zeros nd2nz writes after a row's last element). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "isa/isa_insn.h"
#include "support/insn_build.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/rng.h"

#define BUF_BYTES 65536u

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* docs/ISA.md §mmad, in elements (byte = element * s): a fractal holds 16 * k0 elements.
 *   A (i, κ) in Zz: ((i/16)·kb + κ/k0)·512 + ((i%16)·k0 + κ%k0)·s
 *   B (κ, j) in Zn: ((κ/k0)·nb + j/16)·512 + ((j%16)·k0 + κ%k0)·s */
static uint64_t zz_elem(uint64_t i, uint64_t kappa, uint64_t kb, uint64_t k0) {
  return ((i / 16) * kb + kappa / k0) * 16 * k0 + (i % 16) * k0 + kappa % k0;
}

static uint64_t zn_elem(uint64_t kappa, uint64_t j, uint64_t nb, uint64_t k0) {
  return ((kappa / k0) * nb + j / 16) * 16 * k0 + (j % 16) * k0 + kappa % k0;
}

static isa_testmach *machine(uint64_t *rng) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_GM] = BUF_BYTES;
  sizes[ISA_MEM_L1] = BUF_BYTES;
  sizes[ISA_MEM_L0A] = BUF_BYTES;
  sizes[ISA_MEM_L0B] = BUF_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  /* garbage everywhere: nothing may depend on a buffer's previous contents */
  for (int m = 0; m < ISA_MEM_COUNT; m++) rng_lcg_bytes(rng, itm_mem(t, (isa_mem)m), itm_size(t, (isa_mem)m));
  return t;
}

static void run(isa_testmach *t, const isa_insn *in) {
  isa_fault f;
  if (!itm_run(t, in, &f)) fail_msg("%s", f.msg);
}

/* ND rows x cols of type ty at GM 0 -> L1 0 as NZ: C0-wide column blocks of ceil16(rows) rows
 * (the standard FRACTAL_NZ of docs/DESIGN.md §3). */
static void nd_to_l1(isa_testmach *t, isa_dtype ty, uint32_t rows, uint32_t cols) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_COPY_GM_L1_ND2NZ;
  isa_fmt_nd2nz *p = &in.u.nd2nz;
  p->dst = (isa_addr){ISA_MEM_L1, 0};
  p->src = (isa_addr){ISA_MEM_GM, 0};
  p->dtype = ty;
  p->nd_num = 1;
  p->n_value = rows;
  p->d_value = cols;
  p->src_d_value = cols;
  p->dst_nz_c0_stride = (uint32_t)ceil_div(rows, 16) * 16;
  p->dst_nz_n_stride = 1;
  run(t, &in);
}

static void load(isa_testmach *t, isa_op op, isa_dtype ty, uint64_t dst_off, uint32_t start,
                 uint32_t repeat, uint32_t src_stride, uint32_t transpose) {
  isa_insn in = ib_load2d(op, ty, dst_off, 0, start, repeat, src_stride, transpose);
  run(t, &in);
}

static const isa_dtype cube_types[] = {ISA_INT8, ISA_INT4, ISA_FP16, ISA_BF16};
static const uint32_t dims_m[] = {1, 5, 31, 33};
static const uint32_t dims_k[] = {1, 2, 33, 40, 70, 130};
static const uint32_t dims_n[] = {1, 17, 48, 66};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A (M x K, ND) -> L1 (NZ over M) -> L0A without transpose, one load per m-block:
 *   start_index = mb, repeat_times = kb, src_stride = ceil16(M)/16, dst = mb·kb fractals. */
static void check_a_to_zz(isa_dtype ty, uint32_t m, uint32_t k, uint64_t *rng) {
  unsigned bits = isa_dtype_bits(ty), k0 = isa_dtype_c0(ty);
  uint64_t mb = ceil_div(m, 16), kb = ceil_div(k, k0);
  isa_testmach *t = machine(rng);
  nd_to_l1(t, ty, m, k);
  for (uint64_t i = 0; i < mb; i++)
    load(t, ISA_OP_LOAD_L0A, ty, i * kb * 512, (uint32_t)i, (uint32_t)kb, (uint32_t)mb, 0);
  const uint8_t *gm = itm_mem(t, ISA_MEM_GM), *l0a = itm_mem(t, ISA_MEM_L0A);
  for (uint64_t i = 0; i < m; i++)
    for (uint64_t kappa = 0; kappa < kb * k0; kappa++) {
      uint64_t want = kappa < k ? pk_get(gm, bits, i * k + kappa) : 0; /* K tail: zeros */
      uint64_t got = pk_get(l0a, bits, zz_elem(i, kappa, kb, k0));
      if (got != want)
        fail_msg("%s A %ux%u: (%llu, %llu) is %llx, want %llx", isa_dtype_name(ty), m, k,
                 (unsigned long long)i, (unsigned long long)kappa, (unsigned long long)got,
                 (unsigned long long)want);
    }
  itm_destroy(t);
}

/* B (K x N, ND) -> L1 (NZ over K) -> L0B with transpose, one load per k-block, in increasing
 * order (a block's last square may spill q·ceil(N/C0) - nb fractals into the next block's
 * place, which the next load overwrites):
 *   start_index = kb_i·q, repeat_times = ceil(N/C0), src_stride = ceil16(K)/16,
 *   dst = kb_i·nb fractals. */
static void check_b_to_zn(isa_dtype ty, uint32_t k, uint32_t n, uint64_t *rng) {
  unsigned bits = isa_dtype_bits(ty), k0 = isa_dtype_c0(ty), q = k0 / 16;
  uint64_t nb = ceil_div(n, 16), kb = ceil_div(k, k0);
  isa_testmach *t = machine(rng);
  nd_to_l1(t, ty, k, n);
  for (uint64_t b = 0; b < kb; b++)
    load(t, ISA_OP_LOAD_L0B, ty, b * nb * 512, (uint32_t)(b * q), (uint32_t)ceil_div(n, k0),
         (uint32_t)ceil_div(k, 16), 1);
  const uint8_t *gm = itm_mem(t, ISA_MEM_GM), *l0b = itm_mem(t, ISA_MEM_L0B);
  for (uint64_t kappa = 0; kappa < k; kappa++)
    for (uint64_t j = 0; j < 16 * nb; j++) {
      uint64_t want = j < n ? pk_get(gm, bits, kappa * n + j) : 0; /* N tail: zeros */
      uint64_t got = pk_get(l0b, bits, zn_elem(kappa, j, nb, k0));
      if (got != want)
        fail_msg("%s B %ux%u: (%llu, %llu) is %llx, want %llx", isa_dtype_name(ty), k, n,
                 (unsigned long long)kappa, (unsigned long long)j, (unsigned long long)got,
                 (unsigned long long)want);
    }
  itm_destroy(t);
}

/* B given transposed (N x K, ND: transpose_b) -> L1 (NZ over N) -> L0B without transpose: the
 * NZ fractals already are Zn's, in Zn's order. One load per k-block:
 *   start_index = kb_i·nb, repeat_times = nb, src_stride = 1, dst = kb_i·nb fractals. */
static void check_bt_to_zn(isa_dtype ty, uint32_t n, uint32_t k, uint64_t *rng) {
  unsigned bits = isa_dtype_bits(ty), k0 = isa_dtype_c0(ty);
  uint64_t nb = ceil_div(n, 16), kb = ceil_div(k, k0);
  isa_testmach *t = machine(rng);
  nd_to_l1(t, ty, n, k);
  for (uint64_t b = 0; b < kb; b++)
    load(t, ISA_OP_LOAD_L0B, ty, b * nb * 512, (uint32_t)(b * nb), (uint32_t)nb, 1, 0);
  const uint8_t *gm = itm_mem(t, ISA_MEM_GM), *l0b = itm_mem(t, ISA_MEM_L0B);
  for (uint64_t kappa = 0; kappa < kb * k0; kappa++)
    for (uint64_t j = 0; j < n; j++) {
      uint64_t want = kappa < k ? pk_get(gm, bits, j * k + kappa) : 0; /* K tail: zeros */
      uint64_t got = pk_get(l0b, bits, zn_elem(kappa, j, nb, k0));
      if (got != want)
        fail_msg("%s B^T %ux%u: (%llu, %llu) is %llx, want %llx", isa_dtype_name(ty), n, k,
                 (unsigned long long)kappa, (unsigned long long)j, (unsigned long long)got,
                 (unsigned long long)want);
    }
  itm_destroy(t);
}

static void test_cube_operands_a_nd2nz_load_l0a_gives_zz(void **state) {
  (void)state;
  uint64_t rng = 1;
  unsigned cases = 0;
  for (size_t ti = 0; ti < COUNT(cube_types); ti++)
    for (size_t mi = 0; mi < COUNT(dims_m); mi++)
      for (size_t ki = 0; ki < COUNT(dims_k); ki++) {
        if (cube_types[ti] == ISA_INT4 && dims_k[ki] % 2) continue; /* ND rows: whole bytes */
        check_a_to_zz(cube_types[ti], dims_m[mi], dims_k[ki], &rng);
        cases++;
      }
  assert_int_equal(cases, 3 * 4 * 6 + 4 * 4);
}

static void test_cube_operands_b_nd2nz_load_l0b_transpose_gives_zn(void **state) {
  (void)state;
  uint64_t rng = 2;
  unsigned cases = 0;
  for (size_t ti = 0; ti < COUNT(cube_types); ti++)
    for (size_t ki = 0; ki < COUNT(dims_k); ki++)
      for (size_t ni = 0; ni < COUNT(dims_n); ni++) {
        if (cube_types[ti] == ISA_INT4 && dims_n[ni] % 2) continue;
        check_b_to_zn(cube_types[ti], dims_k[ki], dims_n[ni], &rng);
        cases++;
      }
  assert_int_equal(cases, 3 * 6 * 4 + 6 * 2);
}

static void test_cube_operands_bt_nd2nz_load_l0b_gives_zn(void **state) {
  (void)state;
  uint64_t rng = 3;
  unsigned cases = 0;
  for (size_t ti = 0; ti < COUNT(cube_types); ti++)
    for (size_t ni = 0; ni < COUNT(dims_n); ni++)
      for (size_t ki = 0; ki < COUNT(dims_k); ki++) {
        if (cube_types[ti] == ISA_INT4 && dims_k[ki] % 2) continue;
        check_bt_to_zn(cube_types[ti], dims_n[ni], dims_k[ki], &rng);
        cases++;
      }
  assert_int_equal(cases, 3 * 4 * 6 + 4 * 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cube_operands_a_nd2nz_load_l0a_gives_zz),
      cmocka_unit_test(test_cube_operands_b_nd2nz_load_l0b_transpose_gives_zn),
      cmocka_unit_test(test_cube_operands_bt_nd2nz_load_l0b_gives_zn),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
