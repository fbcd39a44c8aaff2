/* Tests of the fixpipe family (isa/isa_sem_fixpipe.c, isa/isa_fixpipe.h) on the fake machine:
 * every quant mode against an independent reference written here (its own word decoder, C's
 * int -> float conversion, fp16/bf16 rounding through nearbyint and ldexp), the seed's worked
 * ATB example through mmad + fixpipe, hand-derived values for REQ8's shift, offset, S bit and
 * rounding ties, the word 0x40003dccc000, layouts, ranges and faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_fixpipe.h"
#include "isa/isa_insn.h"
#include "isa/isa_quant.h"
#include "support/insn_check.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/ref_num.h"
#include "support/rng.h"

#define GM_BYTES (32u * 1024u)
#define L1_BYTES (32u * 1024u)
#define L0A_BYTES (4u * 1024u)
#define L0B_BYTES (4u * 1024u)
#define L0C_BYTES (32u * 1024u)
#define BT_BYTES 4096u
#define FB_BYTES 4096u
#define FILL 0xA5u /* what the destination holds before the instruction */

static isa_testmach *new_machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_GM] = GM_BYTES;
  sizes[ISA_MEM_L1] = L1_BYTES;
  sizes[ISA_MEM_L0A] = L0A_BYTES;
  sizes[ISA_MEM_L0B] = L0B_BYTES;
  sizes[ISA_MEM_L0C] = L0C_BYTES;
  sizes[ISA_MEM_BT] = BT_BYTES;
  sizes[ISA_MEM_FB] = FB_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  memset(itm_mem(t, ISA_MEM_GM), FILL, GM_BYTES);
  memset(itm_mem(t, ISA_MEM_L1), FILL, L1_BYTES);
  return t;
}

/* ---- the independent reference ----------------------------------------------------------- */

/* The word's fields, straight from the bit diagram of docs/DESIGN.md §5.1. */
typedef struct ref_word {
  float m1;
  int n, mcb, offset, s;
} ref_word;

static ref_word ref_decode(uint64_t w) {
  ref_word r;
  r.m1 = ref_word_fp19(w);
  r.n = (int)((w >> 32) & 0xF);
  r.mcb = (int)((w >> 36) & 1);
  int off9 = (int)((w >> 37) & 0x1FF);
  r.offset = off9 >= 256 ? off9 - 512 : off9;
  r.s = (int)((w >> 46) & 1);
  return r;
}

/* fp32 -> a binary format with mbits mantissa bits and minimum exponent emin, RNE, through
 * nearbyint on an exactly scaled double. sat: overflow to ±max, NaN to +0. */
static uint32_t ref_narrow(float f, unsigned mbits, int emin, int emax, int sat) {
  uint32_t fb = ref_f32_bits(f);
  uint32_t sign = (fb >> 31) << (mbits + (emax == 15 ? 5 : 8));
  uint32_t exp_all = (emax == 15 ? 0x1Fu : 0xFFu) << mbits;
  uint32_t maxfin = exp_all - 1;
  if (isnan(f)) {
    if (sat) return 0;
    uint32_t quiet = 1u << (mbits - 1);
    return sign | exp_all | quiet | ((fb & 0x7FFFFFu) >> (23 - mbits));
  }
  double v = fabs((double)f);
  if (isinf(f)) return sign | (sat ? maxfin : exp_all);
  if (v == 0.0) return sign;
  int ex;
  frexp(v, &ex); /* v in [2^(ex-1), 2^ex) */
  int e = ex - 1 > emin ? ex - 1 : emin;
  int q = e - (int)mbits;         /* exponent of one unit in the last place */
  double n = nearbyint(ldexp(v, -q)); /* exact scaling, then ties to even */
  double val = ldexp(n, q);
  double maxval = ldexp(2.0 - ldexp(1.0, -(int)mbits), emax);
  if (val > maxval) return sign | (sat ? maxfin : exp_all);
  if (val < ldexp(1.0, emin)) return sign | (uint32_t)n; /* subnormal (or zero) */
  frexp(val, &ex);
  uint32_t mant = (uint32_t)(ldexp(val, -(ex - 1)) * (1u << mbits)) - (1u << mbits);
  return sign | (uint32_t)(ex - 1 - emin + 1) << mbits | mant;
}

static uint32_t ref_f16(float f, int sat) { return ref_narrow(f, 10, -14, 15, sat); }
static uint32_t ref_bf16(float f, int sat) { return ref_narrow(f, 7, -126, 127, sat); }

/* One element per docs/ISA.md §fixpipe. */
static uint32_t ref_convert(isa_quant_mode mode, int l0c_float, uint64_t word, int relu, int sat,
                            uint32_t xb) {
  ref_word w = ref_decode(word);
  float xf = ref_f32_of_bits(xb);
  int32_t xi = (int32_t)xb;
  switch (mode) {
    case ISA_QUANT_NO_QUANT:
      if (!relu) return xb;
      if (l0c_float) return xf > 0 ? xb : 0u;
      return xi > 0 ? xb : 0u;
    case ISA_QUANT_F322F16: return ref_f16(relu && !(xf > 0) ? 0.0f : xf, sat);
    case ISA_QUANT_F322BF16: return ref_bf16(relu && !(xf > 0) ? 0.0f : xf, sat);
    case ISA_QUANT_DEQF16:
    case ISA_QUANT_VDEQF16: {
      float y = (float)xi * ((xi >= 0 || !relu) ? w.m1 : 0.0f);
      return ref_f16(isnan(y) ? NAN : y, sat); /* a NaN product is the canonical NaN */
    }
    case ISA_QUANT_QF322B8_PRE:
    case ISA_QUANT_VQF322B8_PRE: {
      float y = xf * ((xf >= 0 || !relu) ? w.m1 : 0.0f);
      return ref_b8(y, w.offset, w.s != 0);
    }
    default: { /* REQ8, VREQ8 */
      int64_t v = xi;
      if (w.mcb) {
        int64_t d = (int64_t)1 << w.n, qt = v / d;
        if (v % d != 0 && v < 0) qt--; /* floor division: an arithmetic shift */
        v = qt < -32768 ? -32768 : qt > 32767 ? 32767 : qt;
      }
      float y = (float)(int32_t)v * ((v >= 0 || !relu) ? w.m1 : 0.0f);
      return ref_b8(y, w.offset, w.s != 0);
    }
  }
}

/* ---- running fixpipe over a random tile ------------------------------------------------------ */

typedef struct fp_case {
  isa_quant_mode mode;
  isa_dtype l0c, out;
  int relu, sat, nz2nd;
  uint32_t m, n, nd, src_stride, src_nd_stride, dst_stride, dst_nd_stride;
  isa_mem dmem;
} fp_case;

#define SRC_OFF 1024u
#define DST_OFF 4096u
#define FB_OFF 256u

static isa_insn case_insn(const fp_case *c, uint64_t scalar) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_FIXPIPE;
  isa_fmt_fixpipe *p = &in.u.fixpipe;
  p->dst = (isa_addr){c->dmem, DST_OFF};
  p->src = (isa_addr){ISA_MEM_L0C, SRC_OFF};
  p->fb = (isa_addr){ISA_MEM_FB, FB_OFF};
  p->l0c_dtype = c->l0c;
  p->out_dtype = c->out;
  p->quant_pre = c->mode;
  p->deq_scalar = scalar;
  p->relu_en = (uint32_t)c->relu;
  p->nz2nd_en = (uint32_t)c->nz2nd;
  p->n_size = c->n;
  p->m_size = c->m;
  p->src_stride = c->src_stride;
  p->dst_stride = c->dst_stride;
  p->nd_num = c->nd;
  p->src_nd_stride = c->src_nd_stride;
  p->dst_nd_stride = c->dst_nd_stride;
  return in;
}

static uint32_t random_l0c(int is_float, uint64_t *seed) {
  uint64_t r = rng_lcg(seed);
  unsigned kind = (unsigned)(r % 16);
  r >>= 4;
  if (!is_float) {
    if (kind < 10) return (uint32_t)((int32_t)(r % 6001) - 3000);
    if (kind < 12) return (uint32_t)((int32_t)(r % 2000001) - 1000000);
    return (uint32_t)r; /* anything, INT32_MIN/MAX-sized included */
  }
  static const uint32_t specials[] = {0x7FC00000u, 0xFFC00001u, 0x7F800000u, 0xFF800000u,
                                      0x80000000u, 0x00000000u, 0x47C35000u /* 100000 */,
                                      0xC7C35000u, 0x7F7FFFFFu, 0x00000001u};
  if (kind < 2) return specials[r % (sizeof specials / sizeof specials[0])];
  float v = (float)((int32_t)(r % 4000001) - 2000000) / 997.0f;
  if (kind < 4) v *= 1000.0f;
  return ref_f32_bits(v);
}

/* A random word: scale 2^-7 .. 2^7 (some negative), random low bits (truncated), N, MCB,
 * offset, S, and garbage in the ignored bits 47..63. */
static uint64_t random_word(uint64_t *seed) {
  uint64_t r = rng_lcg(seed), r2 = rng_lcg(seed);
  uint32_t scale = (uint32_t)((120 + r % 15) << 23) | (uint32_t)(r2 & 0x7FFFFFu);
  if ((r >> 8) % 8 == 0) scale |= 0x80000000u;
  uint64_t w = scale;
  w |= ((r >> 12) & 0xF) << 32;
  w |= ((r >> 16) & 1) << 36;
  w |= ((r >> 17) & 0x1FF) << 37;
  w |= ((r >> 26) & 1) << 46;
  w |= (r2 >> 30) << 47;
  return w;
}

/* Runs one case on random data and checks every destination byte. */
static void run_case(const fp_case *c, uint64_t *seed) {
  isa_testmach *t = new_machine();
  int is_float = c->l0c == ISA_FP32;
  uint8_t *l0c = itm_mem(t, ISA_MEM_L0C);
  for (uint32_t i = 0; i < (L0C_BYTES - SRC_OFF) / 4; i++)
    pk_le_put(l0c + SRC_OFF + 4 * i, random_l0c(is_float, seed), 4);
  uint64_t words[64];
  assert_true(c->n <= 64);
  for (uint32_t j = 0; j < c->n; j++) {
    words[j] = random_word(seed);
    pk_le_put(itm_mem(t, ISA_MEM_FB) + FB_OFF + 8 * j, words[j], 8);
  }
  uint64_t scalar = random_word(seed);
  int vector = isa_quant_mode_is_vector(c->mode);
  isa_insn in = case_insn(c, scalar);
  isa_env env = {c->sat != 0};
  itm_set_env(t, env);

  uint8_t *dst = itm_mem(t, c->dmem) + DST_OFF;
  size_t region = 16 * 1024;
  uint8_t *before = malloc(region);
  assert_non_null(before);
  memcpy(before, dst, region);
  isa_fault f;
  if (!itm_run(t, &in, &f)) fail_msg("fixpipe faulted: %s", f.msg);

  unsigned es = (unsigned)(isa_dtype_bits(c->out) / 8);
  uint8_t *expect = malloc(region);
  assert_non_null(expect);
  memcpy(expect, before, region);
  for (uint32_t tt = 0; tt < c->nd; tt++)
    for (uint32_t i = 0; i < c->m; i++)
      for (uint32_t j = 0; j < c->n; j++) {
        uint64_t s = SRC_OFF + ((uint64_t)tt * c->src_nd_stride * 16 +
                                (uint64_t)(j / 16) * c->src_stride * 16 + (uint64_t)i * 16 + j % 16) * 4;
        uint32_t x = (uint32_t)pk_le_get(l0c + s, 4);
        uint64_t e = c->nz2nd ? (uint64_t)tt * c->dst_nd_stride + (uint64_t)i * c->dst_stride + j
                              : (uint64_t)tt * c->dst_nd_stride +
                                    ((uint64_t)(j / 16) * c->dst_stride + i) * 16 + j % 16;
        assert_true((e + 1) * es <= region);
        pk_le_put(expect + e * es, ref_convert(c->mode, is_float, vector ? words[j] : scalar, c->relu,
                                            c->sat, x),
               es);
      }
  for (size_t b = 0; b < region; b++)
    if (dst[b] != expect[b])
      fail_msg("%s %s->%s relu=%d sat=%d nz2nd=%d nd=%u: byte %zu = 0x%02x, want 0x%02x",
               isa_quant_mode_name(c->mode), isa_dtype_name(c->l0c), isa_dtype_name(c->out),
               c->relu, c->sat, c->nz2nd, c->nd, b, dst[b], expect[b]);
  free(before);
  free(expect);
  itm_destroy(t);
}

/* Every mode and type pair, ReLU on/off, saturation on/off, ND and Nz, one and two matrices. */
static void test_fixpipe_every_mode_against_reference(void **state) {
  (void)state;
  static const struct {
    isa_quant_mode mode;
    isa_dtype l0c, out;
  } pairs[] = {
      {ISA_QUANT_NO_QUANT, ISA_INT32, ISA_INT32},     {ISA_QUANT_NO_QUANT, ISA_FP32, ISA_FP32},
      {ISA_QUANT_F322F16, ISA_FP32, ISA_FP16},         {ISA_QUANT_F322BF16, ISA_FP32, ISA_BF16},
      {ISA_QUANT_DEQF16, ISA_INT32, ISA_FP16},         {ISA_QUANT_VDEQF16, ISA_INT32, ISA_FP16},
      {ISA_QUANT_QF322B8_PRE, ISA_FP32, ISA_INT8},     {ISA_QUANT_QF322B8_PRE, ISA_FP32, ISA_UINT8},
      {ISA_QUANT_VQF322B8_PRE, ISA_FP32, ISA_INT8},    {ISA_QUANT_VQF322B8_PRE, ISA_FP32, ISA_UINT8},
      {ISA_QUANT_REQ8, ISA_INT32, ISA_INT8},           {ISA_QUANT_REQ8, ISA_INT32, ISA_UINT8},
      {ISA_QUANT_VREQ8, ISA_INT32, ISA_INT8},          {ISA_QUANT_VREQ8, ISA_INT32, ISA_UINT8},
  };
  uint64_t seed = 7;
  for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++)
    for (int variant = 0; variant < 8; variant++) {
      fp_case c;
      memset(&c, 0, sizeof c);
      c.mode = pairs[pi].mode;
      c.l0c = pairs[pi].l0c;
      c.out = pairs[pi].out;
      c.relu = variant & 1;
      c.sat = (variant >> 1) & 1;
      c.nz2nd = (variant >> 2) & 1;
      c.m = 19;
      c.n = 37; /* two whole 16-column blocks and a tail of 5 */
      c.nd = pi % 2 ? 2 : 1;
      c.src_stride = 21;
      c.src_nd_stride = 3 * 21 + 2;
      c.dst_stride = c.nz2nd ? 40 : 20;
      c.dst_nd_stride = c.nz2nd ? 18 * 40 + 37 + 3 : ((2 * 20 + 18) * 16 + 5) + 7;
      c.dmem = variant == 3 ? ISA_MEM_L1 : ISA_MEM_GM;
      run_case(&c, &seed);
    }
}

/* Tight strides (src_stride = m_size, dst_stride = n_size or m_size) and three matrices. */
static void test_fixpipe_tight_strides_and_matrices(void **state) {
  (void)state;
  uint64_t seed = 8;
  for (int nz2nd = 0; nz2nd < 2; nz2nd++)
    for (size_t ni = 0; ni < 4; ni++) {
      static const uint32_t ns[4] = {1, 16, 17, 33};
      uint32_t n = ns[ni];
      fp_case c;
      memset(&c, 0, sizeof c);
      c.mode = ISA_QUANT_VREQ8;
      c.l0c = ISA_INT32;
      c.out = ISA_INT8;
      c.nz2nd = nz2nd;
      c.sat = 1;
      c.m = 5;
      c.n = n;
      c.nd = 3;
      c.src_stride = 5;
      c.src_nd_stride = 5 * ((n + 15) / 16);
      c.dst_stride = nz2nd ? n : 5;
      c.dst_nd_stride = nz2nd ? 5 * n : (((n + 15) / 16 - 1) * 5 + 4) * 16 + ((n % 16) ? n % 16 : 16);
      c.dmem = ISA_MEM_GM;
      run_case(&c, &seed);
    }
}

/* ---- the seed's worked example: ATB Linear through mmad (bias) and fixpipe VDEQF16 -------- */

static void test_fixpipe_atb_worked_example(void **state) {
  (void)state;
  /* x = [[1, 2], [3, 4]] (int8, m = 2, k = 2); weight = [[1, 2, 3], [4, 5, 6]] (k = 2, n = 3);
   * bias = [1, 2, 3]; deqScale = [1, 2, 3] -> out = (x.w + bias) * deqScale =
   * [[9+1, 12+2, 15+3] * [1, 2, 3], [19+1, 26+2, 33+3] * [1, 2, 3]] = [[10, 28, 54], [20, 56, 108]] */
  const int8_t x[2][2] = {{1, 2}, {3, 4}};
  const int8_t wt[2][3] = {{1, 2, 3}, {4, 5, 6}};
  const int32_t bias[3] = {1, 2, 3};
  const float deq[3] = {1.0f, 2.0f, 3.0f};
  isa_testmach *t = new_machine();
  /* A in L0A (Zz, kb = 1, k0 = 32): element (i, κ) at byte i*32 + κ; B in L0B (Zn): (κ, j) at
   * byte j*32 + κ; bias in BT */
  for (int i = 0; i < 2; i++)
    for (int kk = 0; kk < 2; kk++) itm_mem(t, ISA_MEM_L0A)[i * 32 + kk] = (uint8_t)x[i][kk];
  for (int kk = 0; kk < 2; kk++)
    for (int j = 0; j < 3; j++) itm_mem(t, ISA_MEM_L0B)[j * 32 + kk] = (uint8_t)wt[kk][j];
  for (int j = 0; j < 3; j++) pk_le_put(itm_mem(t, ISA_MEM_BT) + 4 * j, (uint32_t)bias[j], 4);
  /* the words, packed by the documented formula */
  uint64_t words[3];
  assert_int_equal(isa_qw_pack_array(deq, 3, NULL, 0, NULL, words, NULL, NULL), CS_OK);
  assert_int_equal(words[0], 0x000040003F800000ull);
  assert_int_equal(words[1], 0x0000400040000000ull);
  assert_int_equal(words[2], 0x0000400040400000ull);
  for (int j = 0; j < 3; j++) pk_le_put(itm_mem(t, ISA_MEM_FB) + 8 * j, words[j], 8);

  isa_insn mm;
  memset(&mm, 0, sizeof mm);
  mm.op = ISA_OP_MMAD;
  mm.u.mmad.dst = (isa_addr){ISA_MEM_L0C, 0};
  mm.u.mmad.a = (isa_addr){ISA_MEM_L0A, 0};
  mm.u.mmad.b = (isa_addr){ISA_MEM_L0B, 0};
  mm.u.mmad.bias = (isa_addr){ISA_MEM_BT, 0};
  mm.u.mmad.dtype = ISA_INT8;
  mm.u.mmad.m = 2;
  mm.u.mmad.n = 3;
  mm.u.mmad.k = 2;
  mm.u.mmad.init_c = 1;
  mm.u.mmad.bias_en = 1;
  isa_fault f;
  assert_true(itm_run(t, &mm, &f));

  isa_insn fp;
  memset(&fp, 0, sizeof fp);
  fp.op = ISA_OP_FIXPIPE;
  isa_fmt_fixpipe *p = &fp.u.fixpipe;
  p->dst = (isa_addr){ISA_MEM_GM, 64};
  p->src = (isa_addr){ISA_MEM_L0C, 0};
  p->fb = (isa_addr){ISA_MEM_FB, 0};
  p->l0c_dtype = ISA_INT32;
  p->out_dtype = ISA_FP16;
  p->quant_pre = ISA_QUANT_VDEQF16;
  p->nz2nd_en = 1;
  p->n_size = 3;
  p->m_size = 2;
  p->src_stride = 16;
  p->dst_stride = 3;
  p->nd_num = 1;
  assert_true(itm_run(t, &fp, &f));
  /* fp16: 10 = 0x4900, 28 = 0x4F00, 54 = 0x52C0, 20 = 0x4D00, 56 = 0x5300, 108 = 0x56C0 */
  const uint16_t want[6] = {0x4900, 0x4F00, 0x52C0, 0x4D00, 0x5300, 0x56C0};
  for (int e = 0; e < 6; e++) assert_int_equal(pk_le_get(itm_mem(t, ISA_MEM_GM) + 64 + 2 * e, 2), want[e]);
  assert_int_equal(itm_mem(t, ISA_MEM_GM)[64 + 12], FILL); /* nothing beyond the tile */
  assert_int_equal(itm_mem(t, ISA_MEM_GM)[63], FILL);
  itm_destroy(t);
}

/* ---- hand-derived values ---------------------------------------------------------------------- */

#define S_BIT (1ull << 46)
#define MCB_BIT (1ull << 36)
#define N_FIELD(n) ((uint64_t)(n) << 32)
#define OFFSET_FIELD(o) ((uint64_t)((o) & 0x1FF) << 37)

static uint32_t conv(isa_quant_mode mode, uint64_t word, int relu, uint32_t x, int sat) {
  isa_dtype l0c = mode == ISA_QUANT_NO_QUANT ? ISA_INT32
                  : isa_fixpipe_types_ok(mode, ISA_INT32, ISA_FP16) ||
                          isa_fixpipe_types_ok(mode, ISA_INT32, ISA_INT8)
                      ? ISA_INT32
                      : ISA_FP32;
  return isa_fixpipe_convert_elem(mode, l0c, word, relu != 0, x, sat != 0);
}

static void test_fixpipe_req8_shift_offset_sign(void **state) {
  (void)state;
  /* MCB = 1, N = 4, scale 2^-10 (0x3A800000): 2^24 >> 4 = 2^20, saturated to 32767, times
   * 2^-10 = 31.999 -> 32; -2^24 -> -32768 -> -32 (0xE0). Without MCB 2^24 * 2^-10 = 16384,
   * clamped to 255 then to 127 by S. */
  uint64_t w = 0x3A800000u | MCB_BIT | N_FIELD(4) | S_BIT;
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, 1u << 24, 1), 32);
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, (uint32_t)-(1 << 24), 1), 0xE0);
  assert_int_equal(conv(ISA_QUANT_REQ8, w & ~MCB_BIT, 0, 1u << 24, 1), 0x7F);
  /* the shift is arithmetic (floor): scale 1.0, N = 4: 1000 >> 4 = 62, -1000 >> 4 = -63 */
  uint64_t w1 = 0x3F800000u | MCB_BIT | N_FIELD(4) | S_BIT;
  assert_int_equal(conv(ISA_QUANT_REQ8, w1, 0, 1000, 1), 62);
  assert_int_equal(conv(ISA_QUANT_REQ8, w1, 0, (uint32_t)-1000, 1), (uint8_t)-63);
  /* N = 0 shifts by nothing, but still saturates to int16: 40000 -> 32767 -> 127 with S */
  uint64_t w0 = 0x3C000000u | MCB_BIT | S_BIT; /* scale 2^-7 */
  assert_int_equal(conv(ISA_QUANT_REQ8, w0, 0, 40000, 1), 0x7F); /* 32767/128 = 255.99 -> 256 -> 255 -> 127 */
  assert_int_equal(conv(ISA_QUANT_REQ8, w0 & ~S_BIT, 0, 40000, 1), 255);
  assert_int_equal(conv(ISA_QUANT_REQ8, w0 & ~S_BIT, 0, 1000, 1), 8); /* 7.8125 -> 8 */

  /* offset and S, scale 1.0: y = 100, offset +100: q = 200; S = 0 gives 200 (a byte that reads
   * as int8 -56); S = 1 clamps to 127 */
  uint64_t one = 0x3F800000u;
  assert_int_equal(conv(ISA_QUANT_REQ8, one | OFFSET_FIELD(100), 0, 100, 1), 200);
  assert_int_equal(conv(ISA_QUANT_REQ8, one | OFFSET_FIELD(100) | S_BIT, 0, 100, 1), 127);
  /* offset -20: y = 10 -> -10; S = 0 clamps to 0, S = 1 keeps -10 (0xF6) */
  assert_int_equal(conv(ISA_QUANT_REQ8, one | OFFSET_FIELD(-20), 0, 10, 1), 0);
  assert_int_equal(conv(ISA_QUANT_REQ8, one | OFFSET_FIELD(-20) | S_BIT, 0, 10, 1), 0xF6);
  /* the 9-bit clamp comes before the offset: 300 -> 255, -100 -> 155 (S = 0); -300 -> -256,
   * +100 -> -156 -> -128 (S = 1) */
  assert_int_equal(conv(ISA_QUANT_REQ8, one | OFFSET_FIELD(-100), 0, 300, 1), 155);
  assert_int_equal(conv(ISA_QUANT_REQ8, one | OFFSET_FIELD(100) | S_BIT, 0, (uint32_t)-300, 1), 0x80);
  /* offset extremes -256 and 255 */
  assert_int_equal(conv(ISA_QUANT_REQ8, one | OFFSET_FIELD(-256) | S_BIT, 0, 255, 1), (uint8_t)-1);
  assert_int_equal(conv(ISA_QUANT_REQ8, one | OFFSET_FIELD(255), 0, (uint32_t)-256, 1), 0);
  assert_int_equal(conv(ISA_QUANT_REQ8, one | OFFSET_FIELD(255), 0, 0, 1), 255);
  /* DEQF16 ignores offset, N, MCB and S */
  assert_int_equal(conv(ISA_QUANT_DEQF16, one | OFFSET_FIELD(100) | MCB_BIT | N_FIELD(3), 0, 100, 1),
                   0x5640); /* 100.0 */
  /* QF322B8 ignores MCB and N: 40000.0 * 2^-7 = 312.5 -> 255 -> 127 */
  assert_int_equal(conv(ISA_QUANT_QF322B8_PRE, w0, 0, ref_f32_bits(40000.0f), 1), 0x7F);
  assert_int_equal(conv(ISA_QUANT_QF322B8_PRE, 0x3F800000u | OFFSET_FIELD(-3) | S_BIT, 0,
                        ref_f32_bits(-2.5f), 1),
                   (uint8_t)-5); /* rne(-2.5) = -2, -2 - 3 = -5 */
}

static void test_fixpipe_rounding_ties(void **state) {
  (void)state;
  /* scale 0.5 (0x3F000000), S = 1: y = 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, 0.5 -> 0, -1.5 -> -2 */
  uint64_t half = 0x3F000000u | S_BIT;
  assert_int_equal(conv(ISA_QUANT_REQ8, half, 0, 5, 1), 2);
  assert_int_equal(conv(ISA_QUANT_REQ8, half, 0, 7, 1), 4);
  assert_int_equal(conv(ISA_QUANT_REQ8, half, 0, (uint32_t)-5, 1), (uint8_t)-2);
  assert_int_equal(conv(ISA_QUANT_REQ8, half, 0, 1, 1), 0);
  assert_int_equal(conv(ISA_QUANT_REQ8, half, 0, (uint32_t)-3, 1), (uint8_t)-2);
  /* the same through QF322B8 (fp32 input) */
  assert_int_equal(conv(ISA_QUANT_QF322B8_PRE, 0x3F800000u | S_BIT, 0, ref_f32_bits(2.5f), 1), 2);
  assert_int_equal(conv(ISA_QUANT_QF322B8_PRE, 0x3F800000u | S_BIT, 0, ref_f32_bits(3.5f), 1), 4);
  assert_int_equal(conv(ISA_QUANT_QF322B8_PRE, 0x3F800000u | S_BIT, 0, ref_f32_bits(-2.5f), 1), (uint8_t)-2);
  /* NaN rounds to 0 (then the offset): */
  assert_int_equal(conv(ISA_QUANT_QF322B8_PRE, 0x3F800000u | S_BIT | OFFSET_FIELD(7), 0, 0x7FC00000u, 1), 7);
}

/* The word 0x40003dccc000: S = 1, N = 0, MCB = 0, offset 0, scale bits 0x3DCCC000 =
 * 2^-4 * (1 + 0x4CC000 / 2^23) = 2^-4 * 1638/1024 = 1638/16384 = 0.0999755859375 (exact). */
static void test_fixpipe_word_0x40003dccc000(void **state) {
  (void)state;
  const uint64_t w = 0x40003dccc000ull;
  /* REQ8 (int8): y = x * 1638 / 16384, all products exact in fp32:
   *   1000 -> 1638000/16384 = 99.9755859375 -> 100
   *     25 -> 40950/16384 = 2.4993896484 -> 2 (below the tie)
   *     35 -> 57330/16384 = 3.4991455078 -> 3
   *     15 -> 24570/16384 = 1.4996337891 -> 1;  -15 -> -1
   *   1281 -> 2098278/16384 = 128.0687... -> 128 -> 127 (S)
   *  -1300 -> -2129400/16384 = -129.9682... -> -130 -> -128 (S)
   *    -10 -> -16380/16384 = -0.99975... -> -1 */
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, 1000, 1), 100);
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, 25, 1), 2);
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, 35, 1), 3);
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, 15, 1), 1);
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, (uint32_t)-15, 1), 0xFF);
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, 1281, 1), 0x7F);
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, (uint32_t)-1300, 1), 0x80);
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 0, (uint32_t)-10, 1), 0xFF);
  /* with ReLU the negative side gives -0.0 -> 0 */
  assert_int_equal(conv(ISA_QUANT_REQ8, w, 1, (uint32_t)-1300, 1), 0);
  /* DEQF16: 99.9755859375 lies in [64, 128) where fp16's step is 1/16: 1599.61 steps -> 1600,
   * i.e. 100.0 = 0x5640; 10 -> 0.999755859375: step 2^-11 below 1: 2047.5 steps, a tie ->
   * 2048 (even) = 1.0 = 0x3C00; 1 -> 0.0999755859375: step 2^-14 in [2^-4, 2^-3): exactly
   * 1638 steps = exponent 11 (0x2C00), mantissa 1638 - 1024 = 0x266: 0x2E66 */
  assert_int_equal(conv(ISA_QUANT_DEQF16, w, 0, 1000, 1), 0x5640);
  assert_int_equal(conv(ISA_QUANT_DEQF16, w, 0, 10, 1), 0x3C00);
  assert_int_equal(conv(ISA_QUANT_DEQF16, w, 0, 1, 1), 0x2E66);
  assert_int_equal(conv(ISA_QUANT_DEQF16, w, 0, (uint32_t)-1, 1), 0xAE66);
  assert_int_equal(conv(ISA_QUANT_DEQF16, w, 1, (uint32_t)-1, 1), 0x8000); /* ReLU: -0.0 */
}

static void test_fixpipe_saturation_and_specials(void **state) {
  (void)state;
  const uint64_t one = 0x3F800000u | S_BIT;
  /* DEQF16 overflow: 100000 -> 0x7BFF saturating, 0x7C00 IEEE; negative likewise */
  assert_int_equal(conv(ISA_QUANT_DEQF16, one, 0, 100000, 1), 0x7BFF);
  assert_int_equal(conv(ISA_QUANT_DEQF16, one, 0, 100000, 0), 0x7C00);
  assert_int_equal(conv(ISA_QUANT_DEQF16, one, 0, (uint32_t)-100000, 1), 0xFBFF);
  assert_int_equal(conv(ISA_QUANT_DEQF16, one, 0, (uint32_t)-100000, 0), 0xFC00);
  /* 65519 rounds down to 65504 (0x7BFF), 65520 is the tie that rounds to Inf */
  assert_int_equal(conv(ISA_QUANT_DEQF16, one, 0, 65519, 0), 0x7BFF);
  assert_int_equal(conv(ISA_QUANT_DEQF16, one, 0, 65520, 0), 0x7C00);
  /* a word whose scale is Inf (0x7F800000): 0 * Inf = NaN -> +0 saturating, 0x7E00 IEEE */
  assert_int_equal(conv(ISA_QUANT_DEQF16, 0x7F800000u, 0, 0, 1), 0x0000);
  assert_int_equal(conv(ISA_QUANT_DEQF16, 0x7F800000u, 0, 0, 0), 0x7E00);
  /* F322F16: NaN -> 0 / quiet NaN with payload; Inf -> max / Inf; FLT_MAX to bf16 rounds up */
  assert_int_equal(conv(ISA_QUANT_F322F16, 0, 0, 0x7FC00000u, 1), 0x0000);
  assert_int_equal(conv(ISA_QUANT_F322F16, 0, 0, 0x7FC00000u, 0), 0x7E00);
  assert_int_equal(conv(ISA_QUANT_F322F16, 0, 0, 0xFF800000u, 1), 0xFBFF);
  assert_int_equal(conv(ISA_QUANT_F322F16, 0, 0, 0xFF800000u, 0), 0xFC00);
  assert_int_equal(conv(ISA_QUANT_F322BF16, 0, 0, 0x7F7FFFFFu, 1), 0x7F7F);
  assert_int_equal(conv(ISA_QUANT_F322BF16, 0, 0, 0x7F7FFFFFu, 0), 0x7F80);
  assert_int_equal(conv(ISA_QUANT_F322BF16, 0, 0, 0x3F808000u, 1), 0x3F80); /* tie to even */
  assert_int_equal(conv(ISA_QUANT_F322BF16, 0, 0, 0x3F818000u, 1), 0x3F82);
  /* ReLU in F322F16 is max(x, 0): -1.5 -> +0, -0.0 -> +0, NaN -> +0 even without saturation */
  assert_int_equal(conv(ISA_QUANT_F322F16, 0, 1, ref_f32_bits(-1.5f), 0), 0x0000);
  assert_int_equal(conv(ISA_QUANT_F322F16, 0, 1, 0x80000000u, 0), 0x0000);
  assert_int_equal(conv(ISA_QUANT_F322F16, 0, 1, 0x7FC00000u, 0), 0x0000);
  assert_int_equal(conv(ISA_QUANT_F322F16, 0, 1, ref_f32_bits(1.5f), 0), 0x3E00);
  /* NoQuant: bits pass; ReLU per type */
  assert_int_equal(isa_fixpipe_convert_elem(ISA_QUANT_NO_QUANT, ISA_INT32, 0, false, 0xFFFFFFFBu, true), 0xFFFFFFFBu);
  assert_int_equal(isa_fixpipe_convert_elem(ISA_QUANT_NO_QUANT, ISA_INT32, 0, true, 0xFFFFFFFBu, true), 0);
  assert_int_equal(isa_fixpipe_convert_elem(ISA_QUANT_NO_QUANT, ISA_INT32, 0, true, 5, true), 5);
  assert_int_equal(isa_fixpipe_convert_elem(ISA_QUANT_NO_QUANT, ISA_INT32, 0, true, 0x80000000u, true), 0);
  assert_int_equal(isa_fixpipe_convert_elem(ISA_QUANT_NO_QUANT, ISA_FP32, 0, true, 0x80000000u, true), 0);
  assert_int_equal(isa_fixpipe_convert_elem(ISA_QUANT_NO_QUANT, ISA_FP32, 0, true, 0xFFC00000u, false), 0);
  assert_int_equal(isa_fixpipe_convert_elem(ISA_QUANT_NO_QUANT, ISA_FP32, 0, true, 0x40000000u, false), 0x40000000u);
  assert_int_equal(isa_fixpipe_convert_elem(ISA_QUANT_NO_QUANT, ISA_FP32, 0, false, 0xFFC00001u, true), 0xFFC00001u);
  /* the scale is truncated to fp19: bits 12..0 ignored (0x3F801FFF acts as 1.0) */
  assert_int_equal(conv(ISA_QUANT_DEQF16, 0x3F801FFFu, 0, 3, 1), 0x4200);
  assert_int_equal(conv(ISA_QUANT_DEQF16, 0x3F802000u, 0, 2048, 1), 0x6801); /* 2048*(1+2^-10) = 2050 */
  /* high bits 47..63 are ignored */
  assert_int_equal(conv(ISA_QUANT_REQ8, 0xFFFF80003F800000ull | S_BIT, 0, 7, 1), 7);
  /* int32 -> fp32 rounds to nearest even before the product: 2^24 + 2^13 + 1 -> 2^24 + 2^13
   * (a tie, to even); times 2^-14 that is 1024.5, a tie in fp16 -> 1024 = 0x6400. Exactly,
   * 1024.50006 would round up to 1025 (0x6401). */
  assert_int_equal(conv(ISA_QUANT_DEQF16, 0x38800000u, 0, (1u << 24) + (1u << 13) + 1, 1), 0x6400);
  assert_int_equal(conv(ISA_QUANT_DEQF16, 0x38800000u, 0, (1u << 24) + (1u << 13) + 2, 1), 0x6401);
}

/* ---- checks, ranges, work ---------------------------------------------------------------------- */

static isa_insn base_insn(void) {
  fp_case c;
  memset(&c, 0, sizeof c);
  c.mode = ISA_QUANT_VDEQF16;
  c.l0c = ISA_INT32;
  c.out = ISA_FP16;
  c.nz2nd = 1;
  c.m = 19;
  c.n = 37;
  c.nd = 1;
  c.src_stride = 32;
  c.dst_stride = 40;
  c.dmem = ISA_MEM_GM;
  return case_insn(&c, 0);
}

static void test_fixpipe_faults(void **state) {
  (void)state;
  isa_insn in = base_insn(), bad;
  assert_true(isa_insn_check(&in, NULL));

  bad = in;
  bad.u.fixpipe.unit_flag = 1;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "unit_flag", 1, 3, "fixpipe: unit_flag = 1 is reserved (0 off, 2 or 3 on)");
  bad.u.fixpipe.unit_flag = 4;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "unit_flag", 4, 3, "fixpipe: unit_flag = 4 is out of range [0, 3]");
  bad.u.fixpipe.unit_flag = 2;
  ic_ok(&bad);
  bad.u.fixpipe.unit_flag = 3;
  ic_ok(&bad);
  bad = in;
  bad.u.fixpipe.l0c_dtype = ISA_INT8;
  ic_fault(&bad, ISA_FAULT_DTYPE, "l0c_dtype", ISA_INT8, 0,
           "fixpipe: l0c_dtype int8 is not an L0C type (int32 or fp32)");
  bad = in;
  bad.u.fixpipe.l0c_dtype = ISA_FP32;
  ic_fault(&bad, ISA_FAULT_QUANT_MODE, "quant_pre", ISA_QUANT_VDEQF16, 0,
           "fixpipe: quant_pre VDEQF16 needs l0c_dtype int32 and out_dtype fp16, not "
           "l0c_dtype fp32 and out_dtype fp16");
  bad = in;
  bad.u.fixpipe.quant_pre = ISA_QUANT_NO_QUANT;
  ic_fault(&bad, ISA_FAULT_QUANT_MODE, "quant_pre", ISA_QUANT_NO_QUANT, 0,
           "fixpipe: quant_pre NoQuant needs l0c_dtype int32 or fp32 and the same out_dtype, "
           "not l0c_dtype int32 and out_dtype fp16");
  bad.u.fixpipe.quant_pre = ISA_QUANT_REQ8;
  ic_fault(&bad, ISA_FAULT_QUANT_MODE, "quant_pre", ISA_QUANT_REQ8, 0,
           "fixpipe: quant_pre REQ8 needs l0c_dtype int32 and out_dtype int8 or uint8, not "
           "l0c_dtype int32 and out_dtype fp16");
  bad.u.fixpipe.quant_pre = ISA_QUANT_F322BF16;
  bad.u.fixpipe.l0c_dtype = ISA_FP32;
  ic_fault(&bad, ISA_FAULT_QUANT_MODE, "quant_pre", ISA_QUANT_F322BF16, 0,
           "fixpipe: quant_pre F322BF16 needs l0c_dtype fp32 and out_dtype bf16, not "
           "l0c_dtype fp32 and out_dtype fp16");
  bad.u.fixpipe.quant_pre = ISA_QUANT_VQF322B8_PRE;
  bad.u.fixpipe.out_dtype = ISA_INT32;
  ic_fault(&bad, ISA_FAULT_QUANT_MODE, "quant_pre", ISA_QUANT_VQF322B8_PRE, 0,
           "fixpipe: quant_pre VQF322B8_PRE needs l0c_dtype fp32 and out_dtype int8 or "
           "uint8, not l0c_dtype fp32 and out_dtype int32");
  bad = in;
  bad.u.fixpipe.quant_pre = ISA_QUANT_COUNT;
  ic_fault(&bad, ISA_FAULT_QUANT_MODE, "quant_pre", ISA_QUANT_COUNT, ISA_QUANT_COUNT - 1,
           "fixpipe: quant_pre = 9 is not a quant mode");
  bad = in;
  bad.u.fixpipe.fb.mem = ISA_MEM_L1;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "fb", ISA_MEM_L1, 1u << ISA_MEM_FB,
           "fixpipe: operand fb names L1; quant_pre VDEQF16 reads its words from FB");
  bad.u.fixpipe.quant_pre = ISA_QUANT_DEQF16; /* scalar modes ignore fb */
  assert_true(isa_insn_check(&bad, NULL));
  bad = in;
  bad.u.fixpipe.src_stride = 18;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "src_stride", 18, 19,
           "fixpipe: src_stride = 18 is below m_size = 19 (L0C rows between 16-column blocks)");
  bad = in;
  bad.u.fixpipe.dst_stride = 36;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "dst_stride", 36, 37,
           "fixpipe: dst_stride = 36 is below n_size = 37 (ND row stride in elements)");
  bad.u.fixpipe.nz2nd_en = 0;
  bad.u.fixpipe.dst_stride = 18;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "dst_stride", 18, 19,
           "fixpipe: dst_stride = 18 is below m_size = 19 (rows between the 16-column "
           "blocks of the Nz output)");
  bad.u.fixpipe.dst_stride = 19; /* Nz with dst_stride = m_size is fine */
  assert_true(isa_insn_check(&bad, NULL));
  /* matrices must not overlap: ND 19 rows of stride 40, 37 columns: 18*40 + 37 = 757 */
  bad = in;
  bad.u.fixpipe.nd_num = 2;
  bad.u.fixpipe.dst_nd_stride = 756;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "dst_nd_stride", 756, 757,
           "fixpipe: dst_nd_stride = 756 is below the 757 elements of one destination "
           "matrix (nd_num = 2): matrices would overlap");
  bad.u.fixpipe.dst_nd_stride = 757;
  assert_true(isa_insn_check(&bad, NULL));
  /* Nz: blocks 3, dst_stride 19: ((2*19) + 18) * 16 + 5 = 901 */
  bad.u.fixpipe.nz2nd_en = 0;
  bad.u.fixpipe.dst_stride = 19;
  bad.u.fixpipe.dst_nd_stride = 900;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "dst_nd_stride", 900, 901,
           "fixpipe: dst_nd_stride = 900 is below the 901 elements of one destination "
           "matrix (nd_num = 2): matrices would overlap");
  bad.u.fixpipe.nd_num = 1; /* one matrix: no constraint */
  assert_true(isa_insn_check(&bad, NULL));
  /* generic: destination memory, ranges */
  bad = in;
  bad.u.fixpipe.dst.mem = ISA_MEM_UB;
  ic_fault(&bad, ISA_FAULT_BAD_MEM, "dst", ISA_MEM_UB, (1u << ISA_MEM_GM) | (1u << ISA_MEM_L1),
           "fixpipe: operand dst names UB, which fixpipe cannot access");
  bad = in;
  bad.u.fixpipe.n_size = 4096;
  ic_fault(&bad, ISA_FAULT_FIELD_RANGE, "n_size", 4096, 4095,
           "fixpipe: n_size = 4096 is out of range [1, 4095]");
  /* FB beyond its end on the machine */
  isa_testmach *t = new_machine();
  bad = in;
  bad.u.fixpipe.fb.off = FB_BYTES - 8 * 36;
  isa_fault f;
  assert_false(itm_run(t, &bad, &f));
  assert_int_equal(f.cause, ISA_FAULT_OUT_OF_BOUNDS);
  itm_destroy(t);
}

static void test_fixpipe_ranges_and_work(void **state) {
  (void)state;
  isa_range r[ISA_MAX_RANGES];
  isa_insn in = base_insn(); /* VDEQF16 19 x 37 ND, one matrix */
  assert_int_equal(isa_insn_ranges(&in, r), 3);
  ic_range(&r[0], ISA_MEM_L0C, 0, SRC_OFF, 19 * 64, 32 * 64, 3);
  ic_range(&r[1], ISA_MEM_GM, 1, DST_OFF, 37 * 2, 40 * 2, 19);
  ic_range(&r[2], ISA_MEM_FB, 0, FB_OFF, 37 * 8, 37 * 8, 1);
  isa_work w;
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_L0C_TO_GM);
  assert_int_equal(w.elements, 19 * 37);
  assert_int_equal(w.bytes, 19 * 37 * 2);
  assert_int_equal(w.dtype, ISA_FP16);

  /* Nz kept, scalar REQ8 to L1, two matrices: per matrix the whole blocks and the tail */
  in.u.fixpipe.quant_pre = ISA_QUANT_REQ8;
  in.u.fixpipe.out_dtype = ISA_UINT8;
  in.u.fixpipe.nz2nd_en = 0;
  in.u.fixpipe.dst_stride = 20;
  in.u.fixpipe.dst = (isa_addr){ISA_MEM_L1, DST_OFF};
  in.u.fixpipe.nd_num = 2;
  in.u.fixpipe.src_nd_stride = 100;
  in.u.fixpipe.dst_nd_stride = 1000;
  assert_int_equal(isa_insn_ranges(&in, r), 6);
  ic_range(&r[0], ISA_MEM_L0C, 0, SRC_OFF, 19 * 64, 32 * 64, 3);
  ic_range(&r[1], ISA_MEM_L0C, 0, SRC_OFF + 100 * 64, 19 * 64, 32 * 64, 3);
  ic_range(&r[2], ISA_MEM_L1, 1, DST_OFF, 19 * 16, 20 * 16, 2);
  ic_range(&r[3], ISA_MEM_L1, 1, DST_OFF + 1000, 19 * 16, 20 * 16, 2);
  ic_range(&r[4], ISA_MEM_L1, 1, DST_OFF + 2 * 20 * 16, 5, 16, 19);
  ic_range(&r[5], ISA_MEM_L1, 1, DST_OFF + 1000 + 2 * 20 * 16, 5, 16, 19);
  isa_insn_work(&in, &w);
  assert_int_equal(w.path, ISA_PATH_L0C_TO_L1);
  assert_int_equal(w.elements, 2 * 19 * 37);
  assert_int_equal(w.bytes, 2 * 19 * 37);
  assert_int_equal(w.dtype, ISA_UINT8);

  /* contiguous matrices join into one strided range each: src_stride = m_size,
   * dst_stride = n_size (ND), fp32 out */
  in = base_insn();
  in.u.fixpipe.quant_pre = ISA_QUANT_NO_QUANT;
  in.u.fixpipe.out_dtype = ISA_INT32;
  in.u.fixpipe.src_stride = 19;
  in.u.fixpipe.dst_stride = 37;
  in.u.fixpipe.nd_num = 1000;
  in.u.fixpipe.src_nd_stride = 3 * 19;
  in.u.fixpipe.dst_nd_stride = 19 * 37;
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  ic_range(&r[0], ISA_MEM_L0C, 0, SRC_OFF, 3 * 19 * 64, 3 * 19 * 64, 1000);
  ic_range(&r[1], ISA_MEM_GM, 1, DST_OFF, 19 * 37 * 4, 19 * 37 * 4, 1000);

  /* many matrices that do not join: one bounding range per pattern */
  in.u.fixpipe.src_stride = 32;
  in.u.fixpipe.src_nd_stride = 100;
  in.u.fixpipe.dst_stride = 40;
  in.u.fixpipe.dst_nd_stride = 800;
  in.u.fixpipe.nd_num = 31; /* 31 + 31 > 32 */
  assert_int_equal(isa_insn_ranges(&in, r), 2);
  uint64_t src_all = 30ull * 100 * 64 + 2 * 32 * 64 + 19 * 64;
  uint64_t dst_all = (30ull * 800 + 18 * 40 + 37) * 4;
  ic_range(&r[0], ISA_MEM_L0C, 0, SRC_OFF, src_all, src_all, 1);
  ic_range(&r[1], ISA_MEM_GM, 1, DST_OFF, dst_all, dst_all, 1);
  /* 16 matrices: 32 ranges, exact */
  in.u.fixpipe.nd_num = 16;
  assert_int_equal(isa_insn_ranges(&in, r), 32);
  ic_range(&r[15], ISA_MEM_L0C, 0, SRC_OFF + 15 * 100 * 64, 19 * 64, 32 * 64, 3);
  ic_range(&r[31], ISA_MEM_GM, 1, DST_OFF + 15 * 800 * 4, 37 * 4, 40 * 4, 19);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixpipe_every_mode_against_reference),
      cmocka_unit_test(test_fixpipe_tight_strides_and_matrices),
      cmocka_unit_test(test_fixpipe_atb_worked_example),
      cmocka_unit_test(test_fixpipe_req8_shift_offset_sign),
      cmocka_unit_test(test_fixpipe_rounding_ties),
      cmocka_unit_test(test_fixpipe_word_0x40003dccc000),
      cmocka_unit_test(test_fixpipe_saturation_and_specials),
      cmocka_unit_test(test_fixpipe_faults),
      cmocka_unit_test(test_fixpipe_ranges_and_work),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
