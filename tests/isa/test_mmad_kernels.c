/* Every mmad kernel the host supports (isa/isa_kernel.h) against the portable one, bit for bit,
 * and the portable one against the element-by-element path (isa_sem_mmad_exec_direct), on
 * shapes that cover the kernels' tiles and their remainders, with random and adversarial data:
 * whole-range bit patterns (subnormals, Inf, NaN with payloads, ±0), values whose blocks need
 * the exact path (wide exponent ranges, cancellation, the extremes of each type), and garbage
 * in every padding byte of A, B and C. tests/isa/test_mmad.c checks the results themselves
 * against an independent reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_insn.h"
#include "isa/isa_kernel.h"
#include "isa/isa_mmad.h"
#include "support/insn_build.h"
#include "support/isa_testmach.h"
#include "support/rng.h"

#define L0A_BYTES (128u * 1024u)
#define L0B_BYTES (128u * 1024u)
#define L0C_BYTES (256u * 1024u)
#define BT_BYTES  (16u * 1024u)
#define A_OFF     1024u /* not zero, to catch a kernel that ignores them */
#define B_OFF     2048u
#define C_OFF     4096u
#define BIAS_OFF  128u

/* How the values inside the shape are drawn (padding is always raw random bytes). */
typedef enum fill {
  FILL_BITS,     /* every bit pattern (floats: subnormals, Inf, NaN included) */
  FILL_MODERATE, /* floats of one binade range: the fast path */
  FILL_WIDE,     /* floats spread over the whole exponent range, some zeros: the exact paths */
  FILL_CANCEL,   /* floats in opposite pairs plus tiny ones: sums that cancel */
  FILL_EXTREME,  /* the largest finite values, the smallest subnormals, ±0 */
  FILL_MIXED,    /* per k-block one of the above, so tiles mix the fast and the exact paths */
  FILL_TIE,      /* per block 2^2x + 2^(2x-24) (an fp32 tie) ± one tiny product: the tiny term
                   * decides the rounding, and its distance crosses what double holds exactly */
  FILL_STRIPES,  /* moderate or wide by k-block and column block of B, by k-block and 4 rows
                   * of A: neighbouring column blocks of one tile differ in path */
  FILL_COUNT
} fill;

static const char *const fill_names[] = {"bits",  "moderate", "wide", "cancel",
                                         "extreme", "mixed",  "tie",  "stripes"};

/* 2^e as fp16 (e in [-24, 15]) or bf16 bits. */
static uint16_t pow2_bits(isa_dtype dt, int e) {
  if (dt == ISA_BF16) return (uint16_t)((e + 127) << 7);
  return e >= -14 ? (uint16_t)((e + 15) << 10) : (uint16_t)(1u << (e + 24));
}

/* FILL_TIE's element t of k-block blk in row or column `line` (B: sign of the tiny term). */
static uint16_t tie_value(isa_dtype dt, uint32_t blk, uint32_t t, uint32_t line, bool is_b) {
  int x = (int)(blk % 6);
  if (t == 0) return pow2_bits(dt, x);
  if (t == 1) return pow2_bits(dt, x - 12);
  if (t != 2) return 0;
  int tiny = -(12 + (int)((line * (is_b ? 5 : 7) + blk) % 13));
  return (uint16_t)(pow2_bits(dt, tiny) | (is_b && line % 2 ? 0x8000u : 0u));
}

typedef struct mcase {
  isa_dtype dt;
  uint32_t m, n, k;
  int init_c, bias_en;
  fill how;
} mcase;

static uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/* One fp16 / bf16 value of a float fill (raw bits). */
static uint16_t float_value(isa_dtype dt, fill how, uint32_t blk, uint64_t *seed) {
  bool h = dt == ISA_FP16;
  unsigned mant = h ? 10 : 7, emax = h ? 30 : 254;
  uint64_t r = rng_lcg(seed);
  uint16_t sign = (uint16_t)((r & 1) << 15), frac = (uint16_t)((r >> 1) & ((1u << mant) - 1));
  if (how == FILL_MIXED) how = (fill)(FILL_MODERATE + (blk * 7 + (unsigned)(r >> 40) % 2) % 4);
  switch (how) {
    case FILL_MODERATE: { /* exponents within 3 of 1.0 */
      unsigned e = (h ? 15 : 127) - 3 + (unsigned)(r >> 20) % 5;
      return (uint16_t)(sign | e << mant | frac);
    }
    case FILL_WIDE: {
      if ((r >> 20) % 6 == 0) return sign;           /* ±0 */
      unsigned e = (unsigned)(r >> 24) % (emax + 1); /* 0: subnormal */
      return (uint16_t)(sign | e << mant | frac);
    }
    case FILL_CANCEL: { /* big values in pairs of opposite sign (the partner comes from the
                         * caller), and tiny ones */
      unsigned e = (r >> 20) % 3 == 0 ? 1 + (unsigned)(r >> 24) % 3 : emax - 2 - (unsigned)(r >> 24) % 3;
      return (uint16_t)(sign | e << mant | frac);
    }
    case FILL_EXTREME: {
      static const uint16_t f16[] = {0x7BFF, 0x0001, 0x0000, 0x8000, 0x03FF, 0x0400, 0x3C00};
      static const uint16_t b16[] = {0x7F7F, 0x0001, 0x0000, 0x8000, 0x007F, 0x0080, 0x3F80};
      unsigned pick = (unsigned)(r >> 20) % 7;
      return (uint16_t)((h ? f16[pick] : b16[pick]) ^ (pick > 3 || pick < 2 ? sign : 0));
    }
    default:
      return (uint16_t)(r >> 8);
  }
}

/* Writes A, B, old C and the bias into the machine. */
static void load_case(const mcase *c, isa_testmach *t, uint64_t *seed) {
  bool is_float = c->dt == ISA_FP16 || c->dt == ISA_BF16;
  unsigned bits = c->dt == ISA_INT4 ? 4 : c->dt == ISA_INT8 ? 8 : 16, k0 = 256 / bits;
  uint32_t mb = cdiv(c->m, 16), nb = cdiv(c->n, 16), kb = cdiv(c->k, k0);
  uint8_t *a = itm_mem(t, ISA_MEM_L0A) + A_OFF, *b = itm_mem(t, ISA_MEM_L0B) + B_OFF;
  size_t a_bytes = (size_t)mb * kb * 512, b_bytes = (size_t)kb * nb * 512;
  assert_true(A_OFF + a_bytes <= L0A_BYTES && B_OFF + b_bytes <= L0B_BYTES);
  assert_true(C_OFF + (size_t)mb * nb * 1024 <= L0C_BYTES && BIAS_OFF + 4 * c->n <= BT_BYTES);
  rng_lcg_bytes(seed, a, a_bytes); /* the padding keeps these */
  rng_lcg_bytes(seed, b, b_bytes);
  rng_lcg_bytes(seed, itm_mem(t, ISA_MEM_L0C) + C_OFF, (size_t)mb * nb * 1024);
  rng_lcg_bytes(seed, itm_mem(t, ISA_MEM_BT) + BIAS_OFF, 4 * (size_t)c->n);
  if (!is_float || c->how == FILL_BITS) return;
  /* floats inside the shape: element (i, κ) of A at ((i/16)·kb + κ/16)·512 + (i%16)·32 + (κ%16)·2,
   * (κ, j) of B at ((κ/16)·nb + j/16)·512 + (j%16)·32 + (κ%16)·2 */
  for (uint32_t i = 0; i < c->m; i++)
    for (uint32_t kk = 0; kk < c->k; kk++) {
      fill how = c->how == FILL_STRIPES ? ((kk / 16 + i / 4) % 3 == 0 ? FILL_WIDE : FILL_MODERATE) : c->how;
      uint16_t v = how == FILL_TIE ? tie_value(c->dt, kk / 16, kk % 16, i, false)
                                   : float_value(c->dt, how, kk / 16, seed);
      size_t at = ((size_t)(i / 16) * kb + kk / 16) * 512 + (i % 16) * 32 + (kk % 16) * 2;
      a[at] = (uint8_t)v, a[at + 1] = (uint8_t)(v >> 8);
    }
  for (uint32_t kk = 0; kk < c->k; kk++)
    for (uint32_t j = 0; j < c->n; j++) {
      fill how = c->how == FILL_STRIPES ? ((kk / 16 + j / 16) % 2 ? FILL_WIDE : FILL_MODERATE) : c->how;
      uint16_t v = how == FILL_TIE ? tie_value(c->dt, kk / 16, kk % 16, j, true)
                                   : float_value(c->dt, how, kk / 16, seed);
      if (c->how == FILL_CANCEL && kk % 2 == 1 && j % 3 != 0) { /* the opposite of the row above */
        size_t up = ((size_t)((kk - 1) / 16) * nb + j / 16) * 512 + (j % 16) * 32 + ((kk - 1) % 16) * 2;
        v = (uint16_t)((b[up] | b[up + 1] << 8) ^ 0x8000);
      }
      size_t at = ((size_t)(kk / 16) * nb + j / 16) * 512 + (j % 16) * 32 + (kk % 16) * 2;
      b[at] = (uint8_t)v, b[at + 1] = (uint8_t)(v >> 8);
    }
  if (c->how == FILL_CANCEL) /* A's rows equal in pairs of k, so each pair of products cancels */
    for (uint32_t i = 0; i < c->m; i++)
      for (uint32_t kk = 1; kk < c->k; kk += 2) {
        size_t at = ((size_t)(i / 16) * kb + kk / 16) * 512 + (i % 16) * 32 + (kk % 16) * 2;
        size_t up = ((size_t)(i / 16) * kb + (kk - 1) / 16) * 512 + (i % 16) * 32 + ((kk - 1) % 16) * 2;
        a[at] = a[up], a[at + 1] = a[up + 1];
      }
}

static isa_insn case_insn(const mcase *c) {
  isa_insn in = ib_mmad(c->dt, c->m, c->n, c->k);
  in.u.mmad.dst.off = C_OFF;
  in.u.mmad.a.off = A_OFF;
  in.u.mmad.b.off = B_OFF;
  in.u.mmad.bias = (isa_addr){ISA_MEM_BT, BIAS_OFF};
  in.u.mmad.init_c = (uint32_t)c->init_c;
  in.u.mmad.bias_en = (uint32_t)c->bias_en;
  return in;
}

static isa_testmach *machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_L0A] = L0A_BYTES;
  sizes[ISA_MEM_L0B] = L0B_BYTES;
  sizes[ISA_MEM_L0C] = L0C_BYTES;
  sizes[ISA_MEM_BT] = BT_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  return t;
}

/* Runs one case through the direct path and every supported kernel; all of L0C must agree. */
static void check_case(const mcase *c, uint64_t seed) {
  isa_insn in = case_insn(c);
  assert_true(isa_insn_check(&in, NULL));
  size_t c_bytes = (size_t)cdiv(c->m, 16) * cdiv(c->n, 16) * 1024;
  uint8_t *want = malloc(c_bytes);
  assert_non_null(want);
  isa_testmach *t = machine();
  uint64_t s = seed;
  load_case(c, t, &s);
  isa_env env = {true};
  isa_mach mach = itm_mach(t, env);
  isa_sem_mmad_exec_direct(&in, &mach);
  memcpy(want, itm_mem(t, ISA_MEM_L0C) + C_OFF, c_bytes);
  itm_destroy(t);
  for (int k = ISA_KERNEL_SCALAR; k < ISA_KERNEL_COUNT; k++) {
    if (!isa_kernel_supported((isa_kernel)k)) continue;
    isa_host *host;
    assert_int_equal(isa_host_create((isa_kernel)k, &host, NULL), CS_OK);
    t = machine();
    s = seed;
    load_case(c, t, &s);
    itm_set_host(t, host);
    assert_true(itm_run(t, &in, NULL));
    const uint8_t *got = itm_mem(t, ISA_MEM_L0C) + C_OFF;
    for (size_t x = 0; x < c_bytes; x += 4)
      if (memcmp(got + x, want + x, 4) != 0) {
        uint32_t g = (uint32_t)(got[x] | got[x + 1] << 8 | got[x + 2] << 16 | (uint32_t)got[x + 3] << 24);
        uint32_t w = (uint32_t)(want[x] | want[x + 1] << 8 | want[x + 2] << 16 | (uint32_t)want[x + 3] << 24);
        fail_msg(
            "kernel %s, %s m=%u n=%u k=%u init_c=%d bias_en=%d fill %s seed %llu: C byte %zu = 0x%08x, "
            "the element-by-element path gives 0x%08x",
            isa_kernel_name((isa_kernel)k), isa_dtype_name(c->dt), c->m, c->n, c->k, c->init_c, c->bias_en,
            fill_names[c->how], (unsigned long long)seed, x, g, w);
      }
    itm_destroy(t);
    isa_host_destroy(host);
  }
  free(want);
}

/* Shapes around the tiles: rows 1..(4 tiles of 8 + a remainder), column blocks 1..7 (tiles of
 * 1, 2, 3 blocks and remainders), k across one and several blocks. */
static void run_dtype(isa_dtype dt, uint64_t seed, int cases) {
  static const uint32_t ms[] = {1, 4, 7, 8, 15, 16, 17, 24, 33, 40, 64};
  static const uint32_t ns[] = {1, 15, 16, 17, 32, 33, 48, 63, 80, 97, 112};
  static const uint32_t ks[] = {1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 200, 255};
  bool is_float = dt == ISA_FP16 || dt == ISA_BF16;
  for (int i = 0; i < cases; i++) {
    mcase c;
    c.dt = dt;
    c.m = ms[rng_lcg_below(&seed, sizeof ms / sizeof ms[0])];
    c.n = ns[rng_lcg_below(&seed, sizeof ns / sizeof ns[0])];
    c.k = ks[rng_lcg_below(&seed, sizeof ks / sizeof ks[0])];
    if (dt == ISA_INT4) c.k *= 2;
    c.init_c = (int)rng_lcg_below(&seed, 2);
    c.bias_en = c.init_c && rng_lcg_below(&seed, 3) == 0;
    c.how = is_float ? (fill)(i % FILL_COUNT) : FILL_BITS;
    check_case(&c, seed + (uint64_t)i);
  }
}

static void test_kernels_int8(void **state) {
  (void)state;
  run_dtype(ISA_INT8, 101, 60);
}

static void test_kernels_int4(void **state) {
  (void)state;
  run_dtype(ISA_INT4, 102, 60);
}

static void test_kernels_fp16(void **state) {
  (void)state;
  run_dtype(ISA_FP16, 103, 104);
}

static void test_kernels_bf16(void **state) {
  (void)state;
  run_dtype(ISA_BF16, 104, 104);
}

/* Kernel names and the workspace: the portable kernel is always there, AUTO picks the best,
 * an unsupported kernel is refused by name. */
static void test_kernels_host(void **state) {
  (void)state;
  assert_true(isa_kernel_supported(ISA_KERNEL_SCALAR));
  assert_true(isa_kernel_supported(isa_kernel_best()));
  assert_int_equal(isa_kernel_from_name("AVX512-VNNI"), ISA_KERNEL_AVX512_VNNI);
  assert_int_equal(isa_kernel_from_name("scalar"), ISA_KERNEL_SCALAR);
  assert_int_equal(isa_kernel_from_name("sse9"), ISA_KERNEL_COUNT);
  assert_string_equal(isa_kernel_name(ISA_KERNEL_AVX2), "avx2");
  isa_host *h;
  assert_int_equal(isa_host_create(ISA_KERNEL_AUTO, &h, NULL), CS_OK);
  assert_int_equal(isa_host_kernel(h), isa_kernel_best());
  uint8_t *p = isa_host_scratch(h, 100);
  assert_non_null(p);
  assert_int_equal((uintptr_t)p % 64, 0);
  assert_ptr_equal(isa_host_scratch(h, 50), p); /* no growth needed: the same area */
  assert_non_null(isa_host_scratch(h, 1u << 20));
  isa_host_destroy(h);
  for (int k = ISA_KERNEL_SCALAR; k < ISA_KERNEL_COUNT; k++) {
    if (isa_kernel_supported((isa_kernel)k)) continue;
    cs_err err;
    assert_int_equal(isa_host_create((isa_kernel)k, &h, &err), CS_EINVAL);
    char want[160];
    snprintf(want, sizeof want, "kernel %s is not supported by this host (best: %s)",
             isa_kernel_name((isa_kernel)k), isa_kernel_name(isa_kernel_best()));
    assert_string_equal(err.msg, want);
  }
  printf("kernels on this host:");
  for (int k = ISA_KERNEL_SCALAR; k < ISA_KERNEL_COUNT; k++)
    if (isa_kernel_supported((isa_kernel)k)) printf(" %s", isa_kernel_name((isa_kernel)k));
  printf("\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kernels_host), cmocka_unit_test(test_kernels_int8),
      cmocka_unit_test(test_kernels_int4), cmocka_unit_test(test_kernels_fp16),
      cmocka_unit_test(test_kernels_bf16),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
