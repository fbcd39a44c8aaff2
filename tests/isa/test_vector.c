/* Tests of the vector families vdeq, vcast and vadd (isa/isa_sem_vdeq.c, _vcast.c, _vbinary.c)
 * on the fake machine: random data against references written here (C's int -> float
 * conversion and float arithmetic, fp16/bf16 rounding through nearbyint on exactly scaled
 * doubles, exact fp16 sums in double), hand-derived values, in-place operation, ranges, faults. */
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
#include "support/insn_check.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/ref_num.h"
#include "support/rng.h"

#define UB_BYTES (192u * 1024u)
#define FILL 0x5Au

static isa_testmach *new_machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_GM] = 4096;
  sizes[ISA_MEM_L1] = 4096;
  sizes[ISA_MEM_UB] = UB_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  memset(itm_mem(t, ISA_MEM_UB), FILL, UB_BYTES);
  return t;
}

/* ---- references --------------------------------------------------------------------------- */

/* A double that is exactly an fp32 or an exact fp16 sum -> fp16 (mbits 10, emin -14, emax 15)
 * or bf16 (7, -126, 127), round to nearest even through nearbyint, IEEE overflow to Inf. NaN:
 * quiet, with the payload's top bits taken from fp32 bits nan_bits. */
static uint32_t ref_narrow(double v, uint32_t nan_bits, unsigned mbits, int emin, int emax) {
  unsigned ebits = emax == 15 ? 5 : 8;
  uint32_t exp_all = ((1u << ebits) - 1) << mbits;
  uint32_t sign = (signbit(v) ? 1u : 0u) << (mbits + ebits);
  if (isnan(v)) {
    sign = (nan_bits >> 31) << (mbits + ebits);
    return sign | exp_all | (1u << (mbits - 1)) | ((nan_bits & 0x7FFFFFu) >> (23 - mbits));
  }
  if (isinf(v)) return sign | exp_all;
  double a = fabs(v);
  if (a == 0.0) return sign;
  int ex;
  frexp(a, &ex);
  int e = ex - 1 > emin ? ex - 1 : emin;
  int q = e - (int)mbits;
  double n = nearbyint(ldexp(a, -q));
  double val = ldexp(n, q);
  if (val > ldexp(2.0 - ldexp(1.0, -(int)mbits), emax)) return sign | exp_all;
  if (val < ldexp(1.0, emin)) return sign | (uint32_t)n;
  frexp(val, &ex);
  uint32_t mant = (uint32_t)(ldexp(val, -(ex - 1)) * (1u << mbits)) - (1u << mbits);
  return sign | (uint32_t)(ex - emin) << mbits | mant;
}

static uint32_t ref_f16(float f) { return ref_narrow(f, ref_f32_bits(f), 10, -14, 15); }
static uint32_t ref_bf16(float f) { return ref_narrow(f, ref_f32_bits(f), 7, -126, 127); }

/* fp16 -> fp32 bits: the value, or for NaN the quiet-kept payload (fp16 mantissa << 13). */
static uint32_t ref_f16_to_f32(uint32_t h) {
  if (((h >> 10) & 0x1F) == 31 && (h & 0x3FF))
    return ((h & 0x8000u) << 16) | 0x7F800000u | ((h & 0x3FFu) << 13);
  return ref_f32_bits((float)ref_f16_value((uint16_t)h));
}

static uint32_t canon32(float f) { return f != f ? 0x7FC00000u : ref_f32_bits(f); }

static uint32_t random_f32(uint64_t *seed) {
  uint64_t r = rng_lcg(seed);
  static const uint32_t specials[] = {0x7FC00000u, 0xFFC12345u, 0x7F800000u, 0xFF800000u,
                                      0x80000000u, 0x00000000u, 0x477FF000u /* 65520 */,
                                      0x477FEF00u, 0x7F7FFFFFu, 0x00000001u, 0x33800000u};
  switch (r % 8) {
    case 0: return specials[(r >> 3) % (sizeof specials / sizeof specials[0])];
    case 1: return (uint32_t)(r >> 3); /* any bits */
    default: return ref_f32_bits((float)((int64_t)((r >> 3) % 2000001) - 1000000) / 137.0f);
  }
}

/* ---- vdeq ---------------------------------------------------------------------------------- */

static isa_insn vdeq_insn(uint64_t dst, uint64_t src, uint64_t scale, isa_dtype out, uint32_t rows,
                          uint32_t cols, uint32_t src_rs, uint32_t dst_rs) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VDEQ;
  in.u.vdeq.dst = (isa_addr){ISA_MEM_UB, dst};
  in.u.vdeq.src = (isa_addr){ISA_MEM_UB, src};
  in.u.vdeq.scale = (isa_addr){ISA_MEM_UB, scale};
  in.u.vdeq.out_dtype = out;
  in.u.vdeq.rows = rows;
  in.u.vdeq.cols = cols;
  in.u.vdeq.src_row_stride = src_rs;
  in.u.vdeq.dst_row_stride = dst_rs;
  return in;
}

static void test_vector_vdeq_random(void **state) {
  (void)state;
  uint64_t seed = 3;
  const isa_dtype outs[] = {ISA_FP32, ISA_FP16, ISA_BF16};
  for (size_t o = 0; o < 3; o++) {
    isa_testmach *t = new_machine();
    uint8_t *ub = itm_mem(t, ISA_MEM_UB);
    const uint32_t rows = 13, cols = 37, srs = 40, drs = 45;
    const uint64_t src = 0, scale = 8192, dst = 16384;
    for (uint32_t i = 0; i < rows * srs; i++) {
      uint64_t r = rng_lcg(&seed);
      uint32_t v = r % 4 == 0 ? (uint32_t)(r >> 2) : (uint32_t)((int32_t)((r >> 2) % 200001) - 100000);
      pk_le_put(ub + src + 4 * i, v, 4);
    }
    for (uint32_t c = 0; c < cols; c++) pk_le_put(ub + scale + 4 * c, random_f32(&seed), 4);
    uint8_t before[16384];
    memcpy(before, ub + dst, sizeof before);
    isa_insn in = vdeq_insn(dst, src, scale, outs[o], rows, cols, srs, drs);
    isa_fault f;
    assert_true(itm_run(t, &in, &f));
    unsigned es = outs[o] == ISA_FP32 ? 4 : 2;
    for (uint32_t r = 0; r < rows; r++)
      for (uint32_t c = 0; c < drs; c++) {
        uint64_t off = dst + ((uint64_t)r * drs + c) * es;
        uint64_t got = pk_le_get(ub + off, es);
        if (c >= cols) { /* the gap between rows is untouched */
          assert_int_equal(got, pk_le_get(before + (off - dst), es));
          continue;
        }
        int32_t x = (int32_t)pk_le_get(ub + src + ((uint64_t)r * srs + c) * 4, 4);
        float y = (float)x * ref_f32_of_bits((uint32_t)pk_le_get(ub + scale + 4 * c, 4));
        uint32_t yb = canon32(y);
        uint32_t want = outs[o] == ISA_FP32 ? yb : outs[o] == ISA_FP16 ? ref_f16(ref_f32_of_bits(yb)) : ref_bf16(ref_f32_of_bits(yb));
        if (got != want)
          fail_msg("vdeq %s r=%u c=%u x=%d: 0x%llx, want 0x%x", outs[o] == ISA_FP32 ? "fp32" : "16-bit", r,
                   c, x, (unsigned long long)got, want);
      }
    itm_destroy(t);
  }
}

static void test_vector_vdeq_by_hand(void **state) {
  (void)state;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  /* src = [1000, -3, 100000, 16777217]; scale = [0.1f, 0.5, 1.0, 1.0] */
  const int32_t x[4] = {1000, -3, 100000, 16777217};
  const float s[4] = {0.1f, 0.5f, 1.0f, 1.0f};
  for (int c = 0; c < 4; c++) {
    pk_le_put(ub + 4 * c, (uint32_t)x[c], 4);
    pk_le_put(ub + 64 + 4 * c, ref_f32_bits(s[c]), 4);
  }
  /* fp16: 1000 * 0.1f = 100.0000015 in fp32 -> 100 = 0x5640; -1.5 = 0xBE00; 100000 overflows
   * to Inf (no saturation in vector casts) = 0x7C00; 16777217 -> 2^24 in fp32 -> Inf */
  isa_insn in = vdeq_insn(128, 0, 64, ISA_FP16, 1, 4, 4, 4);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 128, 2), 0x5640);
  assert_int_equal(pk_le_get(ub + 130, 2), 0xBE00);
  assert_int_equal(pk_le_get(ub + 132, 2), 0x7C00);
  assert_int_equal(pk_le_get(ub + 134, 2), 0x7C00);
  /* fp32: 1000 * 0.1f = 100.0000015: 0x42C80000 + 1 ulp? 0.1f = 0x3DCCCCCD = 13421773 * 2^-27;
   * times 1000 = 13421773000 * 2^-27 = 99.99999... no: 13421773000 / 2^27 = 100.0000015497,
   * fp32 step at 100 is 2^-17: 100.0000015497 = 100 + 0.2031 steps -> 100.0 = 0x42C80000 */
  in = vdeq_insn(256, 0, 64, ISA_FP32, 1, 4, 4, 4);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 256, 4), 0x42C80000u);
  assert_int_equal(pk_le_get(ub + 260, 4), 0xBFC00000u);
  assert_int_equal(pk_le_get(ub + 264, 4), 0x47C35000u);
  assert_int_equal(pk_le_get(ub + 268, 4), 0x4B800000u); /* 16777217 -> 16777216 */
  /* bf16: 100.0 -> 0x42C8; 100000 = 0x47C35000 -> 0x47C3 (0x5000 < 0x8000: down) */
  in = vdeq_insn(512, 0, 64, ISA_BF16, 1, 4, 4, 4);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 512, 2), 0x42C8);
  assert_int_equal(pk_le_get(ub + 516, 2), 0x47C3);
  /* a NaN scale gives the canonical NaN: fp32 0x7FC00000, fp16 0x7E00 */
  pk_le_put(ub + 64, 0xFFC12345u, 4);
  in = vdeq_insn(256, 0, 64, ISA_FP32, 1, 1, 1, 1);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 256, 4), 0x7FC00000u);
  in = vdeq_insn(128, 0, 64, ISA_FP16, 1, 1, 1, 1);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 128, 2), 0x7E00);
  itm_destroy(t);
}

/* In place: dst = src, fp32 out, same strides. */
static void test_vector_vdeq_in_place(void **state) {
  (void)state;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  for (int i = 0; i < 6; i++) pk_le_put(ub + 4 * i, (uint32_t)(i - 2), 4); /* 2 rows of 3, stride 3 */
  for (int c = 0; c < 3; c++) pk_le_put(ub + 1024 + 4 * c, ref_f32_bits(0.25f * (float)(c + 1)), 4);
  isa_insn in = vdeq_insn(0, 0, 1024, ISA_FP32, 2, 3, 3, 3);
  assert_true(itm_run(t, &in, NULL));
  const float want[6] = {-0.5f, -0.5f, 0.0f, 0.25f, 1.0f, 2.25f};
  for (int i = 0; i < 6; i++) assert_int_equal(pk_le_get(ub + 4 * i, 4), ref_f32_bits(want[i]));
  itm_destroy(t);
}

/* ---- vcast --------------------------------------------------------------------------------- */

static isa_insn vcast_insn(uint64_t dst, uint64_t src, isa_dtype from, isa_dtype to, uint32_t count) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VCAST;
  in.u.vcast.dst = (isa_addr){ISA_MEM_UB, dst};
  in.u.vcast.src = (isa_addr){ISA_MEM_UB, src};
  in.u.vcast.src_dtype = from;
  in.u.vcast.dst_dtype = to;
  in.u.vcast.count = count;
  return in;
}

static uint32_t ref_cast(isa_dtype from, isa_dtype to, uint32_t x) {
  switch (from) {
    case ISA_FP16: return ref_f16_to_f32(x);
    case ISA_BF16: return x << 16;
    case ISA_INT32: return ref_f32_bits((float)(int32_t)x);
    default: {
      float f = ref_f32_of_bits(x);
      if (to == ISA_FP16) return ref_f16(f);
      if (to == ISA_BF16) return ref_bf16(f);
      if (isnan(f)) return 0;
      double r = nearbyint((double)f);
      if (r >= 2147483647.0) return 0x7FFFFFFFu;
      if (r <= -2147483648.0) return 0x80000000u;
      return (uint32_t)(int32_t)r;
    }
  }
}

static void test_vector_vcast_random(void **state) {
  (void)state;
  static const struct {
    isa_dtype from, to;
  } pairs[] = {{ISA_FP32, ISA_FP16}, {ISA_FP32, ISA_BF16}, {ISA_FP16, ISA_FP32},
               {ISA_BF16, ISA_FP32}, {ISA_INT32, ISA_FP32}, {ISA_FP32, ISA_INT32}};
  uint64_t seed = 5;
  const uint32_t count = 3001;
  for (size_t pi = 0; pi < 6; pi++) {
    isa_testmach *t = new_machine();
    uint8_t *ub = itm_mem(t, ISA_MEM_UB);
    unsigned sb = isa_dtype_bits(pairs[pi].from) / 8, db = isa_dtype_bits(pairs[pi].to) / 8;
    for (uint32_t i = 0; i < count; i++) {
      uint64_t r = rng_lcg(&seed);
      uint32_t v = pairs[pi].from == ISA_FP32 ? random_f32(&seed)
                   : pairs[pi].from == ISA_INT32 ? (uint32_t)r
                                                 : (uint32_t)(r & 0xFFFF);
      if (pairs[pi].from == ISA_FP32 && pairs[pi].to == ISA_INT32 && r % 3 == 0)
        v = ref_f32_bits((float)((int64_t)(r % 20001) - 10000) / 4.0f); /* ties: x.25, x.5, x.75 */
      pk_le_put(ub + (uint64_t)i * sb, v, sb);
    }
    const uint64_t dst = 65536;
    isa_insn in = vcast_insn(dst, 0, pairs[pi].from, pairs[pi].to, count);
    assert_true(itm_run(t, &in, NULL));
    for (uint32_t i = 0; i < count; i++) {
      uint32_t x = (uint32_t)pk_le_get(ub + (uint64_t)i * sb, sb);
      uint32_t want = ref_cast(pairs[pi].from, pairs[pi].to, x);
      uint32_t got = (uint32_t)pk_le_get(ub + dst + (uint64_t)i * db, db);
      if (got != want) fail_msg("vcast pair %zu elem %u x=0x%x: 0x%x, want 0x%x", pi, i, x, got, want);
    }
    assert_int_equal(ub[dst + (uint64_t)count * db], FILL);
    itm_destroy(t);
  }
}

static uint32_t cast1(isa_dtype from, isa_dtype to, uint32_t x) {
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  pk_le_put(ub, x, isa_dtype_bits(from) / 8);
  isa_insn in = vcast_insn(64, 0, from, to, 1);
  assert_true(itm_run(t, &in, NULL));
  uint32_t r = (uint32_t)pk_le_get(ub + 64, isa_dtype_bits(to) / 8);
  itm_destroy(t);
  return r;
}

static void test_vector_vcast_by_hand(void **state) {
  (void)state;
  /* fp32 -> int32: ties to even, saturation, NaN -> 0 */
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, ref_f32_bits(2.5f)), 2);
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, ref_f32_bits(3.5f)), 4);
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, ref_f32_bits(-2.5f)), (uint32_t)-2);
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, ref_f32_bits(-0.5f)), 0);
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, ref_f32_bits(3e9f)), 0x7FFFFFFFu);
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, ref_f32_bits(-3e9f)), 0x80000000u);
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, 0x7FC00000u), 0);
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, 0xFF800000u), 0x80000000u);
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, ref_f32_bits(2147483520.0f)), 2147483520u);
  assert_int_equal(cast1(ISA_FP32, ISA_INT32, ref_f32_bits(2147483648.0f)), 0x7FFFFFFFu);
  /* int32 -> fp32: 2^24 + 1 -> 2^24 (tie to even), 2^24 + 3 -> 2^24 + 4 */
  assert_int_equal(cast1(ISA_INT32, ISA_FP32, 16777217u), 0x4B800000u);
  assert_int_equal(cast1(ISA_INT32, ISA_FP32, 16777219u), 0x4B800002u);
  assert_int_equal(cast1(ISA_INT32, ISA_FP32, 0x80000000u), 0xCF000000u);
  /* fp32 -> fp16: 65519 -> 65504, 65520 -> Inf, 2^-24 -> 0x0001, 2^-25 -> 0 (tie to even),
   * a NaN keeps its sign and payload's top bits, quiet */
  assert_int_equal(cast1(ISA_FP32, ISA_FP16, ref_f32_bits(65519.0f)), 0x7BFF);
  assert_int_equal(cast1(ISA_FP32, ISA_FP16, ref_f32_bits(65520.0f)), 0x7C00);
  assert_int_equal(cast1(ISA_FP32, ISA_FP16, 0x33800000u), 0x0001);
  assert_int_equal(cast1(ISA_FP32, ISA_FP16, 0x33000000u), 0x0000);
  assert_int_equal(cast1(ISA_FP32, ISA_FP16, 0xFF812000u), 0xFE09); /* 0x12000 >> 13 = 9 */
  /* fp32 -> bf16: 0x3F808000 ties to even 0x3F80; 0x3F818000 to 0x3F82; FLT_MAX to Inf */
  assert_int_equal(cast1(ISA_FP32, ISA_BF16, 0x3F808000u), 0x3F80);
  assert_int_equal(cast1(ISA_FP32, ISA_BF16, 0x3F818000u), 0x3F82);
  assert_int_equal(cast1(ISA_FP32, ISA_BF16, 0x7F7FFFFFu), 0x7F80);
  /* fp16 / bf16 -> fp32, exact */
  assert_int_equal(cast1(ISA_FP16, ISA_FP32, 0x0001), 0x33800000u);
  assert_int_equal(cast1(ISA_FP16, ISA_FP32, 0x7BFF), 0x477FE000u);
  assert_int_equal(cast1(ISA_BF16, ISA_FP32, 0xC2C8), 0xC2C80000u);
}

/* In place narrowing (fp32 -> fp16 with dst = src) reads each element before it is overwritten. */
static void test_vector_vcast_in_place(void **state) {
  (void)state;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  for (int i = 0; i < 8; i++) pk_le_put(ub + 4 * i, ref_f32_bits((float)i + 0.5f), 4);
  isa_insn in = vcast_insn(0, 0, ISA_FP32, ISA_FP16, 8);
  assert_true(itm_run(t, &in, NULL));
  const uint16_t want[8] = {0x3800, 0x3E00, 0x4100, 0x4300, 0x4480, 0x4580, 0x4680, 0x4780};
  for (int i = 0; i < 8; i++) assert_int_equal(pk_le_get(ub + 2 * i, 2), want[i]);
  itm_destroy(t);
}

/* ---- vadd ---------------------------------------------------------------------------------- */

static isa_insn vadd_insn(uint64_t dst, uint64_t s0, uint64_t s1, isa_dtype dt, uint32_t count) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VADD;
  in.u.vbinary.dst = (isa_addr){ISA_MEM_UB, dst};
  in.u.vbinary.src0 = (isa_addr){ISA_MEM_UB, s0};
  in.u.vbinary.src1 = (isa_addr){ISA_MEM_UB, s1};
  in.u.vbinary.dtype = dt;
  in.u.vbinary.count = count;
  return in;
}

static uint32_t ref_add(isa_dtype dt, uint32_t a, uint32_t b) {
  if (dt == ISA_INT32) return (uint32_t)((uint64_t)a + b);
  if (dt == ISA_FP32) return canon32(ref_f32_of_bits(a) + ref_f32_of_bits(b));
  double s = ref_f16_value((uint16_t)a) + ref_f16_value((uint16_t)b); /* exact in double */
  return isnan(s) ? 0x7E00u : ref_narrow(s, 0, 10, -14, 15);
}

static void test_vector_vadd_random(void **state) {
  (void)state;
  const isa_dtype dts[] = {ISA_FP32, ISA_FP16, ISA_INT32};
  uint64_t seed = 9;
  const uint64_t s0 = 0, s1 = 64000, dst = 128000;
  for (size_t d = 0; d < 3; d++) {
    isa_testmach *t = new_machine();
    uint8_t *ub = itm_mem(t, ISA_MEM_UB);
    unsigned es = isa_dtype_bits(dts[d]) / 8;
    uint32_t n = es == 4 ? 8000 : 20000;
    for (uint32_t i = 0; i < n; i++) {
      uint64_t r = rng_lcg(&seed);
      uint32_t a, b;
      if (dts[d] == ISA_FP16) {
        a = (uint32_t)(r & 0xFFFF);
        b = (uint32_t)((r >> 16) & 0xFFFF);
        uint32_t ea = (a >> 10) & 0x1F;
        if ((r >> 40) % 4 == 0) /* near cancellation: -a give or take a few ulps */
          b = ((a ^ 0x8000u) + (uint32_t)((r >> 44) % 5) - 2u) & 0xFFFFu;
        else if ((r >> 40) % 4 == 1 && ea > 11) /* a tiny addend 11 binades below: ties */
          b = ((ea - 11) << 10) | (uint32_t)((r >> 44) & 0x83FF);
      } else if (dts[d] == ISA_FP32) {
        a = random_f32(&seed);
        b = random_f32(&seed);
      } else {
        a = (uint32_t)r;
        b = (uint32_t)(r >> 20) * 4099u;
      }
      pk_le_put(ub + s0 + (uint64_t)i * es, a, es);
      pk_le_put(ub + s1 + (uint64_t)i * es, b, es);
    }
    isa_insn in = vadd_insn(dst, s0, s1, dts[d], n);
    assert_true(itm_run(t, &in, NULL));
    for (uint32_t i = 0; i < n; i++) {
      uint32_t a = (uint32_t)pk_le_get(ub + s0 + (uint64_t)i * es, es);
      uint32_t b = (uint32_t)pk_le_get(ub + s1 + (uint64_t)i * es, es);
      uint32_t want = ref_add(dts[d], a, b);
      uint32_t got = (uint32_t)pk_le_get(ub + dst + (uint64_t)i * es, es);
      if (got != want)
        fail_msg("vadd %s elem %u: 0x%x + 0x%x = 0x%x, want 0x%x", isa_dtype_name(dts[d]), i, a,
                 b, got, want);
    }
    assert_int_equal(ub[dst + (uint64_t)n * es], FILL);
    itm_destroy(t);
  }
}

static uint32_t add1(isa_dtype dt, uint32_t a, uint32_t b) {
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  unsigned es = isa_dtype_bits(dt) / 8;
  pk_le_put(ub, a, es);
  pk_le_put(ub + 32, b, es);
  isa_insn in = vadd_insn(64, 0, 32, dt, 1);
  assert_true(itm_run(t, &in, NULL));
  uint32_t r = (uint32_t)pk_le_get(ub + 64, es);
  itm_destroy(t);
  return r;
}

static void test_vector_vadd_by_hand(void **state) {
  (void)state;
  /* fp16: 1 + 2^-10 = 0x3C01 exactly; 1 + 2^-11 is a tie -> 1.0; (1 + 2^-10) + 2^-11 is a tie
   * -> even 1 + 2^-9 = 0x3C02; 65504 + 8 -> 65504; 65504 + 16 = 65520 -> Inf */
  assert_int_equal(add1(ISA_FP16, 0x3C00, 0x1400), 0x3C01);
  assert_int_equal(add1(ISA_FP16, 0x3C00, 0x1000), 0x3C00);
  assert_int_equal(add1(ISA_FP16, 0x3C01, 0x1000), 0x3C02);
  assert_int_equal(add1(ISA_FP16, 0x7BFF, 0x4800), 0x7BFF);
  assert_int_equal(add1(ISA_FP16, 0x7BFF, 0x4C00), 0x7C00);
  /* 65504 + 2^-24: far below half an ulp */
  assert_int_equal(add1(ISA_FP16, 0x7BFF, 0x0001), 0x7BFF);
  /* subnormals add exactly: 2^-24 + 2^-24 = 0x0002; 1 + -1 = +0 */
  assert_int_equal(add1(ISA_FP16, 0x0001, 0x0001), 0x0002);
  assert_int_equal(add1(ISA_FP16, 0x3C00, 0xBC00), 0x0000);
  assert_int_equal(add1(ISA_FP16, 0x8000, 0x8000), 0x8000);
  /* NaN: canonical; Inf - Inf: canonical NaN */
  assert_int_equal(add1(ISA_FP16, 0xFE55, 0x3C00), 0x7E00);
  assert_int_equal(add1(ISA_FP16, 0x7C00, 0xFC00), 0x7E00);
  assert_int_equal(add1(ISA_FP32, 0x7F800000u, 0xFF800000u), 0x7FC00000u);
  assert_int_equal(add1(ISA_FP32, 0xFFC12345u, 0x3F800000u), 0x7FC00000u);
  /* fp32: 1 + 2^-24 ties to 1.0; FLT_MAX + FLT_MAX = Inf */
  assert_int_equal(add1(ISA_FP32, 0x3F800000u, 0x33800000u), 0x3F800000u);
  assert_int_equal(add1(ISA_FP32, 0x7F7FFFFFu, 0x7F7FFFFFu), 0x7F800000u);
  /* int32 wraps */
  assert_int_equal(add1(ISA_INT32, 0x7FFFFFFFu, 1), 0x80000000u);
  assert_int_equal(add1(ISA_INT32, 0xFFFFFFFFu, 2), 1);
}

/* dst = src0 (in place). */
static void test_vector_vadd_in_place(void **state) {
  (void)state;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  for (int i = 0; i < 5; i++) {
    pk_le_put(ub + 4 * i, (uint32_t)(10 * i), 4);
    pk_le_put(ub + 100 + 4 * i, (uint32_t)i, 4);
  }
  isa_insn in = vadd_insn(0, 0, 100, ISA_INT32, 5);
  assert_true(itm_run(t, &in, NULL));
  for (int i = 0; i < 5; i++) assert_int_equal(pk_le_get(ub + 4 * i, 4), 11 * i);
  itm_destroy(t);
}

/* ---- faults, ranges, work ------------------------------------------------------------------ */

static void test_vector_faults(void **state) {
  (void)state;
  isa_insn in = vdeq_insn(0, 1024, 2048, ISA_FP16, 4, 8, 8, 8), bad;
  assert_true(isa_insn_check(&in, NULL));
  bad = in;
  bad.u.vdeq.out_dtype = ISA_INT8;
  ic_fault(&bad, ISA_FAULT_DTYPE, "out_dtype", ISA_INT8, 0,
           "vdeq: out_dtype int8 is not a vdeq output (fp32, fp16 or bf16)");
  bad = in;
  bad.u.vdeq.scale.mem = ISA_MEM_L1;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "scale", ISA_MEM_L1, 1u << ISA_MEM_UB,
           "vdeq: operand scale names L1; the scales must be in UB");
  bad = in;
  bad.u.vdeq.dst_row_stride = 7;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "dst_row_stride", 7, 8,
           "vdeq: dst_row_stride = 7 is below cols = 8: output rows would overlap");
  bad.u.vdeq.rows = 1; /* one row: any stride */
  assert_true(isa_insn_check(&bad, NULL));
  bad = in;
  bad.u.vdeq.src_row_stride = 1; /* overlapping source rows are allowed */
  assert_true(isa_insn_check(&bad, NULL));
  bad = in;
  bad.u.vdeq.src.mem = ISA_MEM_GM;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "src", ISA_MEM_GM, 1u << ISA_MEM_UB,
           "vdeq: operand src names GM, which vdeq cannot access");
  bad = in;
  bad.u.vdeq.cols = 0;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "cols", 0, 1, "vdeq: cols = 0 is out of range [1, 65535]");

  in = vcast_insn(0, 1024, ISA_FP32, ISA_FP16, 8);
  assert_true(isa_insn_check(&in, NULL));
  bad = in;
  bad.u.vcast.src_dtype = ISA_FP16;
  bad.u.vcast.dst_dtype = ISA_BF16;
  ic_fault(&bad, ISA_FAULT_DTYPE, "dst_dtype", ISA_BF16, 0,
           "vcast: no conversion from fp16 to bf16 (fp32->fp16, fp32->bf16, fp16->fp32, "
           "bf16->fp32, int32->fp32, fp32->int32)");
  bad.u.vcast.src_dtype = ISA_INT8;
  bad.u.vcast.dst_dtype = ISA_FP32;
  ic_fault(&bad, ISA_FAULT_DTYPE, "dst_dtype", ISA_FP32, 0,
           "vcast: no conversion from int8 to fp32 (fp32->fp16, fp32->bf16, fp16->fp32, "
           "bf16->fp32, int32->fp32, fp32->int32)");
  bad = in;
  bad.u.vcast.dst.mem = ISA_MEM_GM;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "dst", ISA_MEM_GM, 1u << ISA_MEM_UB,
           "vcast: operand dst names GM, which vcast cannot access");

  in = vadd_insn(0, 1024, 2048, ISA_FP16, 8);
  assert_true(isa_insn_check(&in, NULL));
  bad = in;
  bad.u.vbinary.dtype = ISA_BF16;
  ic_fault(&bad, ISA_FAULT_DTYPE, "dtype", ISA_BF16, 0,
           "vadd: dtype bf16 is not supported (fp32, fp16 or int32)");
  bad = in;
  bad.u.vbinary.src0.mem = ISA_MEM_GM;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "src0", ISA_MEM_GM, 1u << ISA_MEM_UB,
           "vadd: operand src0 names GM; the inputs must be in UB");
  bad = in;
  bad.u.vbinary.src1.mem = ISA_MEM_L1;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "src1", ISA_MEM_L1, 1u << ISA_MEM_UB,
           "vadd: operand src1 names L1; the inputs must be in UB");

  /* beyond UB on the machine */
  isa_testmach *t = new_machine();
  bad = vadd_insn(UB_BYTES - 8, 0, 64, ISA_FP32, 3);
  isa_fault f;
  assert_false(itm_run(t, &bad, &f));
  assert_int_equal(f.cause, ISA_FAULT_OUT_OF_BOUNDS);
  assert_string_equal(f.operand, "dst");
  itm_destroy(t);
}

static void test_vector_ranges_and_work(void **state) {
  (void)state;
  isa_range r[ISA_MAX_RANGES];
  isa_work w;
  isa_insn in = vdeq_insn(4096, 1024, 2048, ISA_BF16, 5, 7, 9, 11);
  assert_int_equal(isa_insn_ranges(&in, r), 3);
  ic_range(&r[0], ISA_MEM_UB, 0, 1024, 7 * 4, 9 * 4, 5);
  ic_range(&r[1], ISA_MEM_UB, 0, 2048, 7 * 4, 7 * 4, 1);
  ic_range(&r[2], ISA_MEM_UB, 1, 4096, 7 * 2, 11 * 2, 5);
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_VECTOR);
  assert_int_equal(w.elements, 35);
  assert_int_equal(w.bytes, 35 * 4); /* the wider side: the int32 input */
  assert_int_equal(w.dtype, ISA_BF16);

  in = vcast_insn(4096, 1024, ISA_FP16, ISA_FP32, 100);
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_UB, 0, 1024, 200, 200, 1);
  ic_range(&r[1], ISA_MEM_UB, 1, 4096, 400, 400, 1);
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_VECTOR);
  assert_int_equal(w.elements, 100);
  assert_int_equal(w.bytes, 400);
  assert_int_equal(w.dtype, ISA_FP32);

  in = vadd_insn(4096, 1024, 2048, ISA_INT32, 33);
  assert_int_equal(isa_insn_ranges(&in, r), 3);
  ic_range(&r[0], ISA_MEM_UB, 0, 1024, 132, 132, 1);
  ic_range(&r[1], ISA_MEM_UB, 0, 2048, 132, 132, 1);
  ic_range(&r[2], ISA_MEM_UB, 1, 4096, 132, 132, 1);
  isa_insn_work(&in, &w);
  assert_int_equal(w.elements, 33);
  assert_int_equal(w.bytes, 132);
  assert_int_equal(w.dtype, ISA_INT32);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vector_vdeq_random),     cmocka_unit_test(test_vector_vdeq_by_hand),
      cmocka_unit_test(test_vector_vdeq_in_place),   cmocka_unit_test(test_vector_vcast_random),
      cmocka_unit_test(test_vector_vcast_by_hand),   cmocka_unit_test(test_vector_vcast_in_place),
      cmocka_unit_test(test_vector_vadd_random),     cmocka_unit_test(test_vector_vadd_by_hand),
      cmocka_unit_test(test_vector_vadd_in_place),   cmocka_unit_test(test_vector_faults),
      cmocka_unit_test(test_vector_ranges_and_work),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
