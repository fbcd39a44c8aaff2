/* Tests of the mmad family (isa/isa_sem_mmad.c) on the fake machine: a naive reference that reads
 * A and B through the Zz / Zn byte formulas of docs/ISA.md and sums each k-block exactly in
 * 128-bit integers (fp16/bf16 values as integer multiples of a power of two), then follows the
 * documented float order; hand-derived cases for the exact-sum corner cases; faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_insn.h"
#include "isa/isa_kernel.h"
#include "isa/isa_mmad.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/ref_num.h"
#include "support/rng.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* Memory sizes of the test machine (larger than the 910B's, so big shapes fit). */
#define L0A_BYTES (80u * 1024u)
#define L0B_BYTES (80u * 1024u)
#define L0C_BYTES (32u * 1024u)
#define BT_BYTES (4u * 1024u)
/* Operand offsets: not zero, to catch a family that ignores them. */
#define A_OFF 512u
#define B_OFF 1024u
#define C_OFF 2048u
#define BIAS_OFF 64u

static isa_testmach *new_machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_GM] = 4096;
  sizes[ISA_MEM_L0A] = L0A_BYTES;
  sizes[ISA_MEM_L0B] = L0B_BYTES;
  sizes[ISA_MEM_L0C] = L0C_BYTES;
  sizes[ISA_MEM_BT] = BT_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  return t;
}

/* ---- the problem: logical matrices and their bytes per docs/ISA.md ---------------------- */

typedef struct prob {
  isa_dtype dt;
  uint32_t m, n, k, k0, mb, nb, kb;
  unsigned bits;
  uint32_t *a, *b;  /* raw element bits (int8 / int4 sign-extended to 32 bits, fp16/bf16 bits) */
  uint32_t *c_old;  /* 16mb x 16nb raw 32-bit values of C before the instruction */
  uint32_t *bias;   /* n raw 32-bit values */
  int init_c, bias_en;
} prob;

static uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

static prob prob_make(isa_dtype dt, uint32_t m, uint32_t n, uint32_t k) {
  prob p;
  memset(&p, 0, sizeof p);
  p.dt = dt;
  p.m = m;
  p.n = n;
  p.k = k;
  p.bits = dt == ISA_INT4 ? 4 : dt == ISA_INT8 ? 8 : 16;
  p.k0 = 256 / p.bits; /* 32 bytes per fractal row */
  p.mb = cdiv(m, 16);
  p.nb = cdiv(n, 16);
  p.kb = cdiv(k, p.k0);
  p.a = calloc((size_t)m * k, sizeof *p.a);
  p.b = calloc((size_t)k * n, sizeof *p.b);
  p.c_old = calloc((size_t)p.mb * p.nb * 256, sizeof *p.c_old);
  p.bias = calloc(n, sizeof *p.bias);
  assert_true(p.a && p.b && p.c_old && p.bias);
  p.init_c = 1;
  return p;
}

static void prob_free(prob *p) {
  free(p->a);
  free(p->b);
  free(p->c_old);
  free(p->bias);
}

/* Byte offsets (or nibble numbers for int4) of the elements, straight from docs/ISA.md. */
static uint64_t a_pos(const prob *p, uint32_t i, uint32_t kk) {
  uint64_t byte_or_elem = ((uint64_t)(i / 16) * p->kb + kk / p->k0) * 512 * 8 / p->bits +
                          (uint64_t)(i % 16) * p->k0 + kk % p->k0;
  return byte_or_elem; /* element number from A's start */
}

static uint64_t b_pos(const prob *p, uint32_t kk, uint32_t j) {
  return ((uint64_t)(kk / p->k0) * p->nb + j / 16) * 512 * 8 / p->bits +
         (uint64_t)(j % 16) * p->k0 + kk % p->k0;
}

static uint64_t c_byte(const prob *p, uint32_t i, uint32_t j) {
  return C_OFF + ((uint64_t)(j / 16) * p->mb + i / 16) * 1024 + ((uint64_t)(i % 16) * 16 + j % 16) * 4;
}

/* The raw 32-bit value of C(i, j) in the machine's L0C. */
static uint32_t c_get(isa_testmach *t, const prob *p, uint32_t i, uint32_t j) {
  return (uint32_t)pk_le_get(itm_mem(t, ISA_MEM_L0C) + c_byte(p, i, j), 4);
}

/* Writes the operands into the machine; every padding byte gets random garbage first (for
 * floats also NaN and Inf patterns) so a family that reads padding is caught. */
static void prob_load(const prob *p, isa_testmach *t, uint64_t *seed) {
  uint8_t *a = itm_mem(t, ISA_MEM_L0A) + A_OFF, *b = itm_mem(t, ISA_MEM_L0B) + B_OFF;
  size_t a_bytes = (size_t)p->mb * p->kb * 512, b_bytes = (size_t)p->kb * p->nb * 512;
  assert_true(A_OFF + a_bytes <= L0A_BYTES && B_OFF + b_bytes <= L0B_BYTES);
  assert_true(C_OFF + (size_t)p->mb * p->nb * 1024 <= L0C_BYTES);
  for (size_t i = 0; i < a_bytes; i++) a[i] = (uint8_t)(i % 7 == 0 ? 0xFF : rng_lcg(seed));
  for (size_t i = 0; i < b_bytes; i++) b[i] = (uint8_t)(i % 5 == 0 ? 0x7C : rng_lcg(seed));
  for (uint32_t i = 0; i < p->m; i++)
    for (uint32_t kk = 0; kk < p->k; kk++) pk_put(a, p->bits, a_pos(p, i, kk), p->a[(size_t)i * p->k + kk]);
  for (uint32_t kk = 0; kk < p->k; kk++)
    for (uint32_t j = 0; j < p->n; j++) pk_put(b, p->bits, b_pos(p, kk, j), p->b[(size_t)kk * p->n + j]);
  for (uint32_t i = 0; i < p->mb * 16; i++)
    for (uint32_t j = 0; j < p->nb * 16; j++)
      pk_le_put(itm_mem(t, ISA_MEM_L0C) + c_byte(p, i, j), p->c_old[(size_t)i * p->nb * 16 + j], 4);
  for (uint32_t j = 0; j < p->n; j++) pk_le_put(itm_mem(t, ISA_MEM_BT) + BIAS_OFF + 4 * j, p->bias[j], 4);
}

static isa_insn prob_insn(const prob *p) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_MMAD;
  in.u.mmad.dst = (isa_addr){ISA_MEM_L0C, C_OFF};
  in.u.mmad.a = (isa_addr){ISA_MEM_L0A, A_OFF};
  in.u.mmad.b = (isa_addr){ISA_MEM_L0B, B_OFF};
  in.u.mmad.bias = (isa_addr){ISA_MEM_BT, BIAS_OFF};
  in.u.mmad.dtype = p->dt;
  in.u.mmad.m = p->m;
  in.u.mmad.n = p->n;
  in.u.mmad.k = p->k;
  in.u.mmad.init_c = (uint32_t)p->init_c;
  in.u.mmad.bias_en = (uint32_t)p->bias_en;
  return in;
}

/* ---- the reference ---------------------------------------------------------------------- */

/* A float element as mant * 2^exp (mant signed, exactly), from its fp16 / bf16 bits. Returns 0
 * for Inf/NaN (the random data avoids them). */
static int decode_float(isa_dtype dt, uint32_t bits, int64_t *mant, int *exp) {
  unsigned ebits = dt == ISA_FP16 ? 5 : 8, mbits = dt == ISA_FP16 ? 10 : 7;
  int bias = dt == ISA_FP16 ? 15 : 127;
  unsigned e = (bits >> mbits) & ((1u << ebits) - 1), mt = bits & ((1u << mbits) - 1);
  if (e == (1u << ebits) - 1) return 0;
  int64_t v = e ? (int64_t)(mt | (1u << mbits)) : (int64_t)mt;
  *exp = (e ? (int)e : 1) - bias - (int)mbits;
  *mant = (bits >> 15) & 1 ? -v : v;
  return 1;
}

/* v * 2^unit rounded to fp32, ties to even. */
static float ref_round_f32(i128 v, int unit) {
  if (v == 0) return 0.0f;
  int neg = v < 0;
  u128 mag = neg ? (u128)(-v) : (u128)v;
  int top = 127;
  while (!((mag >> top) & 1)) top--;
  int e = top + unit;
  if (e > 127) return neg ? -INFINITY : INFINITY;
  int keep = e - 23 > -149 ? e - 23 : -149; /* exponent of the last kept bit */
  int drop = keep - unit;
  u128 q;
  if (drop <= 0) {
    q = mag << -drop;
  } else if (drop > 126) {
    q = 0; /* far below half of the smallest subnormal */
  } else {
    q = mag >> drop;
    u128 rem = mag & (((u128)1 << drop) - 1), half = (u128)1 << (drop - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
  }
  float r = ldexpf((float)q, keep); /* q <= 2^24: exact; 2^128 overflows to Inf as it should */
  return neg ? -r : r;
}

/* The expected C (16mb x 16nb raw values) per docs/ISA.md. unit: the power of two of the
 * integer products (fp16: 2^-48; bf16 test data: 2^-64). */
static void reference(const prob *p, uint32_t *out) {
  int is_float = p->dt == ISA_FP16 || p->dt == ISA_BF16;
  int unit = p->dt == ISA_FP16 ? -48 : -64;
  for (uint32_t i = 0; i < p->mb * 16; i++)
    for (uint32_t j = 0; j < p->nb * 16; j++) {
      uint32_t start = !p->init_c ? p->c_old[(size_t)i * p->nb * 16 + j]
                       : p->bias_en && j < p->n ? p->bias[j] : 0;
      int valid = i < p->m && j < p->n;
      uint32_t res;
      if (!is_float) {
        int64_t dot = 0;
        for (uint32_t kk = 0; valid && kk < p->k; kk++)
          dot += (int64_t)(int32_t)p->a[(size_t)i * p->k + kk] * (int32_t)p->b[(size_t)kk * p->n + j];
        res = (uint32_t)((uint64_t)start + (uint64_t)dot);
      } else {
        float acc = ref_f32_of_bits(start);
        if (!valid) acc += 0.0f;
        for (uint32_t blk = 0; valid && blk < p->kb; blk++) {
          i128 sum = 0;
          for (uint32_t kk = blk * p->k0; kk < (blk + 1) * p->k0 && kk < p->k; kk++) {
            int64_t ma = 0, mb = 0; /* set by decode_float, or the assert_true ends the test */
            int ea = 0, eb = 0;
            assert_true(decode_float(p->dt, p->a[(size_t)i * p->k + kk], &ma, &ea));
            assert_true(decode_float(p->dt, p->b[(size_t)kk * p->n + j], &mb, &eb));
            if (ma == 0 || mb == 0) continue;
            assert_true(ea + eb >= unit);
            sum += (i128)(ma * mb) * ((i128)1 << (ea + eb - unit));
          }
          acc += ref_round_f32(sum, unit);
        }
        res = acc != acc ? 0x7FC00000u : ref_f32_bits(acc);
      }
      out[(size_t)i * p->nb * 16 + j] = res;
    }
}

/* ---- running ---------------------------------------------------------------------------- */

/* Runs the problem through itm_run with every kernel the host supports (isa/isa_kernel.h), then
 * through the allocation-free path, and compares each with the reference. */
static void run_and_compare(const prob *p, uint64_t *seed) {
  size_t cn = (size_t)p->mb * p->nb * 256;
  uint32_t *want = malloc(cn * sizeof *want);
  assert_non_null(want);
  reference(p, want);
  isa_insn in = prob_insn(p);
  for (int path = ISA_KERNEL_SCALAR; path <= ISA_KERNEL_COUNT; path++) {
    bool direct = path == ISA_KERNEL_COUNT;
    if (!direct && !isa_kernel_supported((isa_kernel)path)) continue;
    isa_testmach *t = new_machine();
    prob_load(p, t, seed);
    isa_fault f;
    isa_host *host = NULL;
    if (!direct) {
      assert_int_equal(isa_host_create((isa_kernel)path, &host, NULL), CS_OK);
      itm_set_host(t, host);
      assert_true(itm_run(t, &in, &f));
    } else {
      assert_true(isa_insn_check(&in, &f));
      isa_env env = {true};
      isa_mach mach = itm_mach(t, env);
      isa_sem_mmad_exec_direct(&in, &mach);
    }
    for (uint32_t i = 0; i < p->mb * 16; i++)
      for (uint32_t j = 0; j < p->nb * 16; j++) {
        uint32_t got = c_get(t, p, i, j);
        uint32_t exp = want[(size_t)i * p->nb * 16 + j];
        if (got != exp)
          fail_msg("%s m=%u n=%u k=%u init_c=%d bias=%d path=%s: C(%u,%u) = 0x%08x, want 0x%08x",
                   isa_dtype_name(p->dt), p->m, p->n, p->k, p->init_c, p->bias_en,
                   direct ? "direct" : isa_kernel_name((isa_kernel)path), i, j, got, exp);
      }
    isa_host_destroy(host);
    itm_destroy(t);
  }
  free(want);
}

/* Random element bits for the type: int8 full range, int4 [-8, 7], fp16 any finite value
 * (subnormals to 65504), bf16 finite with exponents in [-24, 24] (so products fit the
 * reference's 2^-64 grid). */
static uint32_t random_elem(isa_dtype dt, uint64_t *seed) {
  uint64_t r = rng_lcg(seed);
  switch (dt) {
    case ISA_INT8: return (uint32_t)(int32_t)(int8_t)r;
    case ISA_INT4: return (uint32_t)((int32_t)(r % 16) - 8);
    case ISA_FP16: {
      uint32_t h = (uint32_t)r & 0xFFFFu;
      if (((h >> 10) & 0x1F) == 0x1F) h &= 0xBFFFu; /* Inf/NaN -> a large finite value */
      if (r >> 40 & 1) h = (h & 0x83FFu) | (uint32_t)((r >> 20) % 10 + 10) << 10; /* moderate */
      return h;
    }
    default: {
      uint32_t e = (uint32_t)(127 - 24 + (r >> 20) % 49);
      if ((r >> 30) % 8 == 0) return (uint32_t)(r & 0x8000u); /* some zeros */
      return (uint32_t)(r & 0x807Fu) | e << 7;
    }
  }
}

static void fill_random(prob *p, uint64_t *seed) {
  for (size_t i = 0; i < (size_t)p->m * p->k; i++) p->a[i] = random_elem(p->dt, seed);
  for (size_t i = 0; i < (size_t)p->k * p->n; i++) p->b[i] = random_elem(p->dt, seed);
}

static const uint32_t shapes[][3] = {
    {1, 1, 1},    {5, 17, 33},  {17, 5, 40},  {33, 40, 5},  {40, 33, 17}, {64, 64, 64},
    {1, 64, 17},  {64, 1, 33},  {17, 33, 64}, {5, 5, 1},    {16, 16, 130}, {33, 17, 200},
    {40, 1, 129}, {2, 48, 65},
};

/* The listed shapes, then every (m, n, k) of the odd sizes below. */
static void sizes_for(isa_dtype dt, uint64_t seed) {
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    prob p = prob_make(dt, shapes[s][0], shapes[s][1], shapes[s][2]);
    fill_random(&p, &seed);
    run_and_compare(&p, &seed);
    prob_free(&p);
  }
  static const uint32_t sizes[] = {1, 5, 17, 33, 40, 64};
  for (size_t a = 0; a < 6; a++)
    for (size_t b = 0; b < 6; b++)
      for (size_t c = 0; c < 6; c++) {
        prob p = prob_make(dt, sizes[a], sizes[b], sizes[c]);
        fill_random(&p, &seed);
        run_and_compare(&p, &seed);
        prob_free(&p);
      }
}

static void test_mmad_int8_shapes(void **state) {
  (void)state;
  sizes_for(ISA_INT8, 11);
}

static void test_mmad_int4_shapes(void **state) {
  (void)state;
  sizes_for(ISA_INT4, 12);
}

static void test_mmad_fp16_shapes(void **state) {
  (void)state;
  sizes_for(ISA_FP16, 13);
}

static void test_mmad_bf16_shapes(void **state) {
  (void)state;
  sizes_for(ISA_BF16, 14);
}

/* init_c = 0 adds onto the old C (random values; for floats finite ones and signed zeros). */
static void test_mmad_accumulate(void **state) {
  (void)state;
  uint64_t seed = 21;
  const isa_dtype dts[] = {ISA_INT8, ISA_INT4, ISA_FP16, ISA_BF16};
  for (size_t d = 0; d < 4; d++) {
    prob p = prob_make(dts[d], 33, 20, 70);
    fill_random(&p, &seed);
    p.init_c = 0;
    for (size_t i = 0; i < (size_t)p.mb * p.nb * 256; i++) {
      uint32_t r = (uint32_t)rng_lcg(&seed);
      if (dts[d] == ISA_FP16 || dts[d] == ISA_BF16) {
        float f = (float)((int32_t)(r % 2000001) - 1000000) / 64.0f;
        r = i % 9 == 0 ? 0x80000000u : ref_f32_bits(f); /* -0.0 becomes +0.0 after any addition */
      }
      p.c_old[i] = r;
    }
    run_and_compare(&p, &seed);
    prob_free(&p);
  }
}

/* bias_en: C starts at the BT row (j < n); rows >= m get the bias alone, columns >= n zero. */
static void test_mmad_bias(void **state) {
  (void)state;
  uint64_t seed = 31;
  const isa_dtype dts[] = {ISA_INT8, ISA_INT4, ISA_FP16, ISA_BF16};
  for (size_t d = 0; d < 4; d++) {
    prob p = prob_make(dts[d], 20, 21, 45);
    fill_random(&p, &seed);
    p.bias_en = 1;
    for (uint32_t j = 0; j < p.n; j++) {
      uint32_t r = (uint32_t)rng_lcg(&seed);
      p.bias[j] = dts[d] == ISA_FP16 || dts[d] == ISA_BF16
                      ? ref_f32_bits((float)((int32_t)(r % 20001) - 10000) / 8.0f)
                      : r;
    }
    for (size_t i = 0; i < (size_t)p.mb * p.nb * 256; i++) p.c_old[i] = 0xDEADBEEFu; /* ignored */
    run_and_compare(&p, &seed);

    /* and by hand: row 20 (>= m) of C is the bias in columns < n and zero beyond */
    isa_testmach *t = new_machine();
    prob_load(&p, t, &seed);
    isa_insn in = prob_insn(&p);
    assert_true(itm_run(t, &in, NULL));
    for (uint32_t j = 0; j < 32; j++)
      assert_int_equal(c_get(t, &p, 20, j), j < 21 ? p.bias[j] : 0u);
    itm_destroy(t);
    prob_free(&p);
  }
}

/* int32 accumulation wraps modulo 2^32 when added to C or to the bias. */
static void test_mmad_int32_wraps(void **state) {
  (void)state;
  uint64_t seed = 41;
  prob p = prob_make(ISA_INT8, 1, 2, 2);
  p.a[0] = 127, p.a[1] = 127;              /* A = [127 127] */
  p.b[0] = 127, p.b[1] = (uint32_t)-128;   /* B = [[127 -128] */
  p.b[2] = 127, p.b[3] = (uint32_t)-128;   /*      [127 -128]] */
  p.init_c = 0;
  p.c_old[0] = 0x7FFFFFFFu; /* + 32258 wraps to 0x80007E01 */
  p.c_old[1] = 0x80000000u; /* - 32512 wraps to 0x7FFF8100 */
  isa_testmach *t = new_machine();
  prob_load(&p, t, &seed);
  isa_insn in = prob_insn(&p);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(c_get(t, &p, 0, 0), 0x80007E01u);
  assert_int_equal(c_get(t, &p, 0, 1), 0x7FFF8100u);
  itm_destroy(t);

  /* the same through the bias: INT32_MAX + 32258 */
  p.init_c = 1;
  p.bias_en = 1;
  p.bias[0] = 0x7FFFFFFFu;
  p.bias[1] = 0x80000000u;
  t = new_machine();
  prob_load(&p, t, &seed);
  in = prob_insn(&p);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(c_get(t, &p, 0, 0), 0x80007E01u);
  assert_int_equal(c_get(t, &p, 0, 1), 0x7FFF8100u);
  itm_destroy(t);
  prob_free(&p);

  /* the largest exact dot product: k = 4095 of (-128) * (-128) = 67092480 = 0x03FFC000 */
  p = prob_make(ISA_INT8, 1, 1, 4095);
  for (uint32_t kk = 0; kk < 4095; kk++) p.a[kk] = p.b[kk] = (uint32_t)-128;
  t = new_machine();
  prob_load(&p, t, &seed);
  in = prob_insn(&p);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(c_get(t, &p, 0, 0), 0x03FFC000u);
  itm_destroy(t);
  prob_free(&p);
}

/* ---- float corner cases, by hand ----------------------------------------------------------- */

#define BF16(e, frac7) ((uint32_t)(((e) + 127) << 7) | (frac7)) /* 2^e * (1 + frac7/128) */
#define BF16_NEG 0x8000u

/* One row of A times one column of B (m = n = 1), k terms; returns C(0, 0)'s bits. */
static uint32_t dot1(isa_dtype dt, const uint32_t *a, const uint32_t *b, uint32_t k, int init_c,
                     uint32_t c_old) {
  uint64_t seed = 5;
  prob p = prob_make(dt, 1, 1, k);
  memcpy(p.a, a, k * sizeof *a);
  memcpy(p.b, b, k * sizeof *b);
  p.init_c = init_c;
  p.c_old[0] = c_old;
  isa_testmach *t = new_machine();
  prob_load(&p, t, &seed);
  isa_insn in = prob_insn(&p);
  assert_true(itm_run(t, &in, NULL));
  uint32_t got = c_get(t, &p, 0, 0);
  /* the direct path agrees */
  isa_testmach *t2 = new_machine();
  prob_load(&p, t2, &seed);
  isa_env env = {true};
  isa_mach mach = itm_mach(t2, env);
  isa_sem_mmad_exec_direct(&in, &mach);
  assert_int_equal(c_get(t2, &p, 0, 0), got);
  itm_destroy(t2);
  itm_destroy(t);
  prob_free(&p);
  return got;
}

static void test_mmad_float_block_sum_is_exact(void **state) {
  (void)state;
  /* fp16: 2^15*2^15 + 2^-24*2^-24 - 2^15*2^15 = 2^-48 exactly (a double running sum gives 0). */
  const uint32_t a1[] = {0x7800, 0x0001, 0xF800}, b1[] = {0x7800, 0x0001, 0x7800};
  assert_int_equal(dot1(ISA_FP16, a1, b1, 3, 1, 0), 0x27800000u); /* 2^-48 */

  /* bf16: 1 + 2^-24 + 2^-60. In double the sum is the fp32 midpoint 1 + 2^-24, which rounds
   * to even (1.0); exactly it lies above: 1 + 2^-23 = 0x3F800001. */
  const uint32_t a2[] = {BF16(0, 0), BF16(-12, 0), BF16(-30, 0)};
  const uint32_t b2[] = {BF16(0, 0), BF16(-12, 0), BF16(-30, 0)};
  assert_int_equal(dot1(ISA_BF16, a2, b2, 3, 1, 0), 0x3F800001u);
  /* 1 + 2^-24 - 2^-60 lies below the midpoint: 1.0 */
  const uint32_t a3[] = {BF16(0, 0), BF16(-12, 0), BF16(-30, 0) | BF16_NEG};
  assert_int_equal(dot1(ISA_BF16, a3, b2, 3, 1, 0), 0x3F800000u);
  /* -(1 + 2^-24) - 2^-60: 0xBF800001 */
  const uint32_t a4[] = {BF16(0, 0) | BF16_NEG, BF16(-12, 0) | BF16_NEG, BF16(-30, 0) | BF16_NEG};
  assert_int_equal(dot1(ISA_BF16, a4, b2, 3, 1, 0), 0xBF800001u);
  /* 1 + 3*2^-24 is the midpoint between 1 + 2^-23 and 1 + 2^-22: even is 1 + 2^-22 (...02);
   * minus 2^-60 it is 1 + 2^-23 (...01) */
  const uint32_t a5[] = {BF16(0, 0), BF16(-12, 64), BF16(-30, 0) | BF16_NEG}; /* 1.5 * 2^-12 */
  const uint32_t b5[] = {BF16(0, 0), BF16(-11, 0), BF16(-30, 0)};
  assert_int_equal(dot1(ISA_BF16, a5, b5, 2, 1, 0), 0x3F800002u);
  assert_int_equal(dot1(ISA_BF16, a5, b5, 3, 1, 0), 0x3F800001u);

  /* Products spanning more than 98 binary orders (the wide path):
   * 2^60*2^60 - 2^60*2^60 + 2^-60*2^-60 = 2^-120 = 0x03800000 */
  const uint32_t a6[] = {BF16(60, 0), BF16(60, 0) | BF16_NEG, BF16(-60, 0)};
  const uint32_t b6[] = {BF16(60, 0), BF16(60, 0), BF16(-60, 0)};
  assert_int_equal(dot1(ISA_BF16, a6, b6, 3, 1, 0), 0x03800000u);
  /* 1 + 2^-24 + 2^-130: above the midpoint, 0x3F800001 */
  const uint32_t a7[] = {BF16(0, 0), BF16(-12, 0), BF16(-65, 0)};
  const uint32_t b7[] = {BF16(0, 0), BF16(-12, 0), BF16(-65, 0)};
  assert_int_equal(dot1(ISA_BF16, a7, b7, 3, 1, 0), 0x3F800001u);

  /* Overflow boundary: 255*2^119 + 255*2^111 + 255*2^103 + 2^127 = 2^128 - 2^103, the midpoint
   * between FLT_MAX and 2^128: ties to even give Inf; 2^90 less gives FLT_MAX (split path),
   * 2^-100 less gives FLT_MAX too (wide path). 255*2^e = 2^(e+7) * (1 + 127/128). */
  const uint32_t a8[] = {BF16(126, 127), BF16(118, 127), BF16(110, 127), BF16(127, 0),
                         BF16(90, 0) | BF16_NEG};
  const uint32_t b8[] = {BF16(0, 0), BF16(0, 0), BF16(0, 0), BF16(0, 0), BF16(0, 0)};
  assert_int_equal(dot1(ISA_BF16, a8, b8, 4, 1, 0), 0x7F800000u);
  assert_int_equal(dot1(ISA_BF16, a8, b8, 5, 1, 0), 0x7F7FFFFFu);
  const uint32_t a9[] = {BF16(126, 127), BF16(118, 127), BF16(110, 127), BF16(127, 0),
                         BF16(-50, 0) | BF16_NEG};
  const uint32_t b9[] = {BF16(0, 0), BF16(0, 0), BF16(0, 0), BF16(0, 0), BF16(-50, 0)};
  assert_int_equal(dot1(ISA_BF16, a9, b9, 5, 1, 0), 0x7F7FFFFFu);

  /* Subnormal fp32 results: 2^-75 * 2^-75 = 2^-150, half the smallest subnormal: ties to even
   * give +0; 3 * 2^-150 (= 2^-150 + 2^-149) rounds to 2 * 2^-149 = 0x00000002. */
  const uint32_t a10[] = {BF16(-75, 0), BF16(-74, 0)}, b10[] = {BF16(-75, 0), BF16(-75, 0)};
  assert_int_equal(dot1(ISA_BF16, a10, b10, 1, 1, 0), 0x00000000u);
  assert_int_equal(dot1(ISA_BF16, a10, b10, 2, 1, 0), 0x00000002u);

  /* Blocks round one by one: k = 17 (fp16, two blocks). Block 0 = 1*1 + 2^-12*2^-12 = 1 + 2^-24,
   * a tie that rounds to even (1.0); block 1 = 2^-24; 1.0 + 2^-24 ties to 1.0 again. One exact
   * sum over both blocks would give 1 + 2^-23 = 0x3F800001. */
  uint32_t a11[17] = {0}, b11[17] = {0};
  a11[0] = 0x3C00, b11[0] = 0x3C00;   /* 1 * 1 */
  a11[1] = 0x0C00, b11[1] = 0x0C00;   /* 2^-12 * 2^-12 */
  a11[16] = 0x0C00, b11[16] = 0x0C00; /* block 1 */
  assert_int_equal(dot1(ISA_FP16, a11, b11, 17, 1, 0), 0x3F800000u);
  assert_int_equal(dot1(ISA_FP16, a11, b11, 16, 1, 0), 0x3F800000u);
}

static void test_mmad_float_specials(void **state) {
  (void)state;
  /* Inf * 0 is NaN: the canonical quiet NaN 0x7FC00000 */
  const uint32_t ai[] = {0x7C00, 0x3C00}, bz[] = {0x0000, 0x3C00};
  assert_int_equal(dot1(ISA_FP16, ai, bz, 2, 1, 0), 0x7FC00000u);
  /* Inf * 1 + 1 = +Inf; -Inf * 1 = -Inf */
  const uint32_t bo[] = {0x3C00, 0x3C00};
  assert_int_equal(dot1(ISA_FP16, ai, bo, 2, 1, 0), 0x7F800000u);
  const uint32_t an[] = {0xFC00, 0x3C00};
  assert_int_equal(dot1(ISA_FP16, an, bo, 2, 1, 0), 0xFF800000u);
  /* +Inf and -Inf in one block: NaN */
  const uint32_t apn[] = {0x7C00, 0xFC00};
  assert_int_equal(dot1(ISA_FP16, apn, bo, 2, 1, 0), 0x7FC00000u);
  /* a NaN operand with a payload, negative: still the canonical NaN */
  const uint32_t anan[] = {0xFFC1}, bone[] = {0x3F80};
  assert_int_equal(dot1(ISA_BF16, anan, bone, 1, 1, 0), 0x7FC00000u);
  /* +Inf in one block, -Inf in the next: the fp32 accumulator makes NaN, canonical */
  uint32_t a2[17] = {0}, b2[17] = {0};
  a2[0] = 0x7C00, b2[0] = 0x3C00, a2[16] = 0xFC00, b2[16] = 0x3C00;
  assert_int_equal(dot1(ISA_FP16, a2, b2, 17, 1, 0), 0x7FC00000u);
  /* block sums overflow fp32 (bf16): 2^127 * 2 + 2^127 * 2 = 2^129 -> +Inf */
  const uint32_t a3[] = {BF16(127, 0), BF16(127, 0)}, b3[] = {BF16(1, 0), BF16(1, 0)};
  assert_int_equal(dot1(ISA_BF16, a3, b3, 2, 1, 0), 0x7F800000u);
  /* accumulating onto an old NaN with a payload: canonical NaN */
  assert_int_equal(dot1(ISA_FP16, bo, bo, 1, 0, 0xFFC12345u), 0x7FC00000u);
}

static void test_mmad_float_signed_zero(void **state) {
  (void)state;
  /* The exact sum of (-1) * 0 is +0, and -0.0 + +0 = +0 in fp32. */
  const uint32_t a[] = {0xBC00}, b[] = {0x0000};
  assert_int_equal(dot1(ISA_FP16, a, b, 1, 1, 0), 0x00000000u);
  assert_int_equal(dot1(ISA_FP16, a, b, 1, 0, 0x80000000u), 0x00000000u);
  /* 1 * 1 added to an old C of -1: exactly zero, +0 */
  const uint32_t one[] = {0x3C00};
  assert_int_equal(dot1(ISA_FP16, one, one, 1, 0, 0xBF800000u), 0x00000000u);
  /* an old C of -2.5 plus 1 = -1.5 */
  assert_int_equal(dot1(ISA_FP16, one, one, 1, 0, 0xC0200000u), 0xBFC00000u);
}

/* Direct tests of isa_mmad_exact_sum_f32 with hand-derived results. */
static void test_mmad_exact_sum_f32_by_hand(void **state) {
  (void)state;
  const double t1[] = {0x1p30, 0x1p-48, -0x1p30};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t1, 3)), 0x27800000u);
  const double t2[] = {1.0, 0x1p-24, 0x1p-300};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t2, 3)), 0x3F800001u);
  const double t3[] = {1.0, 0x1p-24, -0x1p-300};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t3, 3)), 0x3F800000u);
  const double t4[] = {-1.0, -0x1p-24};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t4, 2)), 0xBF800000u); /* tie to even */
  const double t5[] = {0x1p-150, 0x1p-1074};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t5, 2)), 0x00000001u);
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t5, 1)), 0x00000000u);
  const double t6[] = {-0.0, -0.0};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t6, 2)), 0x00000000u);
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t6, 0)), 0x00000000u);
  const double t7[] = {0x1.fffffep127, 0x1p103}; /* FLT_MAX + half an ulp: tie to even, Inf */
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t7, 2)), 0x7F800000u);
  const double t8[] = {-0x1.fffffep127, -0x1p103, 0x1p-1000};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t8, 3)), 0xFF7FFFFFu);
  const double t9[] = {0x1.fffffcp-127, 0x1p-150}; /* largest subnormal + half an ulp: even, 2^-126 */
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t9, 2)), 0x00800000u);
  const double t10[] = {INFINITY, 1e300, -1e300};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t10, 3)), 0x7F800000u);
  const double t11[] = {INFINITY, -INFINITY};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t11, 2)), 0x7FC00000u);
  const double t12[] = {1.0, -NAN};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t12, 2)), 0x7FC00000u);
  const double t13[] = {0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023,
                        -0x1.fffffffffffffp1023, 3.0};
  assert_int_equal(ref_f32_bits(isa_mmad_exact_sum_f32(t13, 5)), 0x40400000u);
}

/* isa_mmad_exact_sum_f32 on random terms m * 2^e (|m| < 2^16, e in [-60, 40]) against the exact
 * integer sum in units of 2^-60: spans from 0 to 116 binary orders, so both the split and the
 * wide accumulator are exercised; every fourth set cancels its largest terms. */
static void test_mmad_exact_sum_f32_random(void **state) {
  (void)state;
  uint64_t seed = 77;
  for (int iter = 0; iter < 20000; iter++) {
    double terms[16];
    size_t cnt = 1 + rng_lcg(&seed) % 16;
    i128 sum = 0;
    int lo = -60 + (int)(rng_lcg(&seed) % 60), hi = lo + (int)(rng_lcg(&seed) % (41 - lo));
    for (size_t i = 0; i < cnt; i++) {
      int64_t m = (int64_t)(rng_lcg(&seed) % 65536) - 32768;
      int e = lo + (int)(rng_lcg(&seed) % (uint64_t)(hi - lo + 1));
      if (iter % 4 == 0 && i % 2 == 1) { /* cancel the previous term when e allows it */
        double q = ldexp(terms[i - 1], -e);
        if (fabs(q) < 65536.0 && q == floor(q)) m = -(int64_t)q;
      }
      terms[i] = ldexp((double)m, e);
      sum += (i128)m * ((i128)1 << (e + 60));
    }
    uint32_t want = ref_f32_bits(ref_round_f32(sum, -60));
    uint32_t got = ref_f32_bits(isa_mmad_exact_sum_f32(terms, cnt));
    if (got != want) fail_msg("iteration %d (%zu terms): 0x%08x, want 0x%08x", iter, cnt, got, want);
  }
}

/* ---- checks, ranges, work ---------------------------------------------------------------- */

static void expect_fault(const isa_insn *in, isa_fault_cause cause, const char *operand,
                         const char *msg) {
  isa_fault f;
  memset(&f, 0, sizeof f);
  assert_false(isa_insn_check(in, &f));
  assert_int_equal(f.cause, cause);
  assert_string_equal(f.operand, operand);
  assert_string_equal(f.msg, msg);
}

static void test_mmad_faults(void **state) {
  (void)state;
  prob p = prob_make(ISA_INT8, 16, 16, 32);
  isa_insn in = prob_insn(&p), bad;
  assert_true(isa_insn_check(&in, NULL));

  bad = in;
  bad.u.mmad.dtype = ISA_FP32;
  expect_fault(&bad, ISA_FAULT_DTYPE, "dtype",
               "mmad: dtype fp32 is not a cube input type (int8, int4, fp16, bf16)");
  bad.u.mmad.dtype = ISA_UINT8;
  expect_fault(&bad, ISA_FAULT_DTYPE, "dtype",
               "mmad: dtype uint8 is not a cube input type (int8, int4, fp16, bf16)");
  bad = in;
  bad.u.mmad.a.mem = ISA_MEM_L0B;
  expect_fault(&bad, ISA_FAULT_BAD_MEM, "a", "mmad: operand a names L0B; A must be in L0A");
  bad = in;
  bad.u.mmad.b.mem = ISA_MEM_L1;
  expect_fault(&bad, ISA_FAULT_BAD_MEM, "b", "mmad: operand b names L1; B must be in L0B");
  bad = in;
  bad.u.mmad.init_c = 0;
  bad.u.mmad.bias_en = 1;
  expect_fault(&bad, ISA_FAULT_FIELD_RANGE, "bias_en",
               "mmad: bias_en = 1 requires init_c = 1 (the bias initialises C)");
  bad = in;
  bad.u.mmad.bias_en = 1;
  bad.u.mmad.bias.mem = ISA_MEM_L1;
  expect_fault(&bad, ISA_FAULT_BAD_MEM, "bias", "mmad: operand bias names L1; the bias must be in BT");
  bad.u.mmad.bias_en = 0; /* the bias operand is ignored without bias_en */
  assert_true(isa_insn_check(&bad, NULL));
  bad = in;
  bad.u.mmad.unit_flag = 1;
  expect_fault(&bad, ISA_FAULT_FIELD_RANGE, "unit_flag",
               "mmad: unit_flag = 1 is reserved (0 off, 2 on, 3 on and the last mmad into C)");
  bad.u.mmad.unit_flag = 4;
  expect_fault(&bad, ISA_FAULT_FIELD_RANGE, "unit_flag", "mmad: unit_flag = 4 is out of range [0, 3]");
  for (uint32_t uf = 2; uf <= 3; uf++) {
    bad.u.mmad.unit_flag = uf;
    assert_true(isa_insn_check(&bad, NULL));
  }
  bad = in;
  bad.u.mmad.dst.mem = ISA_MEM_UB;
  expect_fault(&bad, ISA_FAULT_BAD_MEM, "dst", "mmad: operand dst names UB, which mmad cannot access");
  bad = in;
  bad.u.mmad.k = 4096;
  expect_fault(&bad, ISA_FAULT_FIELD_RANGE, "k", "mmad: k = 4096 is out of range [1, 4095]");
  bad = in;
  bad.u.mmad.m = 0;
  expect_fault(&bad, ISA_FAULT_FIELD_RANGE, "m", "mmad: m = 0 is out of range [1, 4095]");

  /* out of bounds on the machine: C of 16 x 32 fractals... ends beyond L0C */
  isa_testmach *t = new_machine();
  bad = in;
  bad.u.mmad.dst.off = L0C_BYTES - 512;
  isa_fault f;
  assert_false(itm_run(t, &bad, &f));
  assert_int_equal(f.cause, ISA_FAULT_OUT_OF_BOUNDS);
  itm_destroy(t);
  prob_free(&p);
}

static void test_mmad_ranges_and_work(void **state) {
  (void)state;
  prob p = prob_make(ISA_INT4, 17, 33, 130); /* mb 2, nb 3, kb 3 (k0 64) */
  isa_insn in = prob_insn(&p);
  isa_range r[ISA_MAX_RANGES];
  size_t n = isa_insn_ranges(&in, r);
  assert_int_equal(n, 3);
  const isa_range want[] = {
      {ISA_MEM_L0A, 0, A_OFF, 2 * 3 * 512, 2 * 3 * 512, 1},
      {ISA_MEM_L0B, 0, B_OFF, 3 * 3 * 512, 3 * 3 * 512, 1},
      {ISA_MEM_L0C, 1, C_OFF, 2 * 3 * 1024, 2 * 3 * 1024, 1},
  };
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(r[i].mem, want[i].mem);
    assert_int_equal(r[i].write, want[i].write);
    assert_int_equal(r[i].base, want[i].base);
    assert_int_equal(isa_range_bytes(&r[i]), want[i].row_bytes);
    assert_int_equal(isa_range_end(&r[i]), want[i].base + want[i].row_bytes);
  }
  isa_work w;
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_CUBE);
  assert_int_equal(w.fractal_ops, 2 * 3 * 3);
  assert_int_equal(w.macs, 17 * 33 * 130);
  assert_int_equal(w.dtype, ISA_INT4);
  assert_int_equal(w.bytes, 0);

  /* accumulate reads C; bias reads n * 4 bytes of BT */
  p.init_c = 0;
  in = prob_insn(&p);
  n = isa_insn_ranges(&in, r);
  assert_int_equal(n, 4);
  int c_reads = 0;
  for (size_t i = 0; i < n; i++)
    if (r[i].mem == ISA_MEM_L0C && !r[i].write) {
      c_reads++;
      assert_int_equal(r[i].base, C_OFF);
      assert_int_equal(isa_range_bytes(&r[i]), 2 * 3 * 1024);
    }
  assert_int_equal(c_reads, 1);
  p.init_c = 1;
  p.bias_en = 1;
  in = prob_insn(&p);
  n = isa_insn_ranges(&in, r);
  assert_int_equal(n, 4);
  int bt = 0;
  for (size_t i = 0; i < n; i++)
    if (r[i].mem == ISA_MEM_BT) {
      bt++;
      assert_int_equal(r[i].write, 0);
      assert_int_equal(r[i].base, BIAS_OFF);
      assert_int_equal(isa_range_bytes(&r[i]), 33 * 4);
    }
  assert_int_equal(bt, 1);

  /* fp16: k0 = 16 */
  prob q = prob_make(ISA_FP16, 1, 1, 17);
  in = prob_insn(&q);
  isa_insn_work(&in, &w);
  assert_int_equal(w.fractal_ops, 2);
  assert_int_equal(w.macs, 17);
  assert_int_equal(w.dtype, ISA_FP16);
  prob_free(&q);
  prob_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mmad_int8_shapes),
      cmocka_unit_test(test_mmad_int4_shapes),
      cmocka_unit_test(test_mmad_fp16_shapes),
      cmocka_unit_test(test_mmad_bf16_shapes),
      cmocka_unit_test(test_mmad_accumulate),
      cmocka_unit_test(test_mmad_bias),
      cmocka_unit_test(test_mmad_int32_wraps),
      cmocka_unit_test(test_mmad_float_block_sum_is_exact),
      cmocka_unit_test(test_mmad_float_specials),
      cmocka_unit_test(test_mmad_float_signed_zero),
      cmocka_unit_test(test_mmad_exact_sum_f32_by_hand),
      cmocka_unit_test(test_mmad_exact_sum_f32_random),
      cmocka_unit_test(test_mmad_faults),
      cmocka_unit_test(test_mmad_ranges_and_work),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
