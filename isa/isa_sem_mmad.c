/* isa_sem_mmad — the cube: C (L0C, Nz) = A (L0A, Zz) · B (L0B, Zn), added to C, to zero or to
 * the BT bias row (docs/ISA.md §mmad).
 *
 * This is the hot loop of the whole simulator: every MAC of every GEMM runs through it. exec
 * decodes the instruction into a job (isa/isa_hot.h: int4 operands unpacked to int8, the
 * bias row, a scratch area from the core's workspace, isa/isa_kernel.h) and hands it to the
 * kernel of the host's instruction set: isa_hot_scalar.c everywhere, isa_hot_x86.c for AVX2
 * and AVX-512. Every kernel gives the same bits. Without scratch memory, exec falls back to
 * isa_sem_mmad_exec_direct (same results again). This file also holds what the kernels share:
 * the float operands as doubles with their exponent ranges, and the exact block sums of the
 * blocks whose range is too wide for a plain double dot product.
 *
 * Integer inputs: |Σ_κ A·B| ≤ 4095 · 2^14 < 2^31, so one instruction's dot products are exact in
 * int32; only adding them to C or to the bias wraps (modulo 2^32, done in uint32).
 *
 * Float inputs follow docs/ISA.md's order: per k-block the 16 products are summed exactly and
 * rounded once to fp32, then added to the fp32 accumulator, blocks in increasing k. Most blocks
 * are exact as plain double dot products (isa/isa_hot.h). Otherwise the exact sum
 * splits every product p on a grid 2^G into hi + lo (split_magic); the his and the los each sum
 * exactly in double, and round_pair_f32 rounds hi_sum + lo_sum to fp32 exactly. The split is
 * exact whenever a block's products span at most 98 binary orders, which fp16 always does (products in
 * [2^-48, 2^32)); wider bf16 blocks and blocks with Inf/NaN go through isa_mmad_exact_sum_f32,
 * which falls back to a wide fixed-point accumulator. NaNs are made canonical once, when C is
 * stored: NaN is sticky under addition, so that equals canonicalising after every addition.
 */
#include "isa/isa_mmad.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_fparith.h"
#include "isa/isa_kernel.h"
#include "isa/isa_hot.h"
#include "isa/isa_num.h"

#define BIAS_ELEM_BYTES 4u    /* BT holds int32 or fp32 */
#define F32_SIGN_BIT 0x80000000u
#define F32_INF_BITS 0x7F800000u


/* ---- shape and operand layout ----------------------------------------------------------- */

typedef struct mm_shape {
  isa_dtype dt;
  bool is_float;
  uint32_t k0;         /* elements per fractal row: C0 of the input type */
  uint32_t m, n, k;
  uint32_t mb, nb, kb; /* fractals along M, N and K */
} mm_shape;

static bool is_cube_dtype(uint32_t dt) {
  return dt == ISA_INT8 || dt == ISA_INT4 || dt == ISA_FP16 || dt == ISA_BF16;
}

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

static mm_shape shape_of(const isa_fmt_mmad *p) {
  mm_shape s;
  s.dt = (isa_dtype)p->dtype;
  s.is_float = s.dt == ISA_FP16 || s.dt == ISA_BF16;
  s.k0 = isa_dtype_c0(s.dt);
  s.m = p->m;
  s.n = p->n;
  s.k = p->k;
  s.mb = ceil_div(p->m, ISA_MM_ROWS);
  s.nb = ceil_div(p->n, ISA_MM_ROWS);
  s.kb = ceil_div(p->k, s.k0);
  return s;
}

/* Element number, from the start of A, of A(i, κ) in Zz: fractals row-major, rows inside. */
static size_t a_index(const mm_shape *s, uint32_t i, uint32_t kk) {
  return (((size_t)(i / ISA_MM_ROWS) * s->kb + kk / s->k0) * ISA_MM_ROWS + i % ISA_MM_ROWS) *
             s->k0 + kk % s->k0;
}

/* B(κ, j) in Zn: fractals row-major over K, each column-major (column j%16 is one fractal row). */
static size_t b_index(const mm_shape *s, uint32_t kk, uint32_t j) {
  return (((size_t)(kk / s->k0) * s->nb + j / ISA_MM_ROWS) * ISA_MM_ROWS + j % ISA_MM_ROWS) *
             s->k0 + kk % s->k0;
}

/* C(i, j) in Nz with 16 x 16 fractals: column blocks, each mb fractals of rows. */
static size_t c_index(const mm_shape *s, uint32_t i, uint32_t j) {
  return (((size_t)(j / ISA_MM_ROWS) * s->mb + i / ISA_MM_ROWS) * ISA_MM_ROWS +
          i % ISA_MM_ROWS) * ISA_MM_ROWS + j % ISA_MM_ROWS;
}

static int32_t int_elem(const uint8_t *base, isa_dtype dt, size_t idx) {
  return dt == ISA_INT4 ? isa_int4_get(base, idx) : (int8_t)base[idx];
}

/* An fp16 / bf16 value from its bits, exactly. */
static double float_of_raw(isa_dtype dt, uint16_t h) {
  return dt == ISA_FP16 ? isa_f16_to_f32(h) : isa_bf16_to_f32(h);
}

static double float_elem(const uint8_t *base, isa_dtype dt, size_t idx) {
  return float_of_raw(dt, (uint16_t)isa_le_load(base + 2 * idx, 2));
}

/* The operands' host memory, fetched once per instruction. */
typedef struct mm_ops {
  const uint8_t *a, *b, *bias;
  uint8_t *c;
} mm_ops;

static mm_ops operands(const isa_fmt_mmad *p, const mm_shape *s, const isa_mach *m) {
  mm_ops o;
  o.a = m->ptr(m->ctx, ISA_MEM_L0A, p->a.off, (uint64_t)s->mb * s->kb * ISA_MM_FRACTAL_BYTES);
  o.b = m->ptr(m->ctx, ISA_MEM_L0B, p->b.off, (uint64_t)s->kb * s->nb * ISA_MM_FRACTAL_BYTES);
  o.c = m->ptr(m->ctx, ISA_MEM_L0C, p->dst.off, (uint64_t)s->mb * s->nb * ISA_MM_C_FRACTAL_BYTES);
  o.bias = p->bias_en ? m->ptr(m->ctx, ISA_MEM_BT, p->bias.off, (uint64_t)s->n * BIAS_ELEM_BYTES)
                      : NULL;
  return o;
}

/* The accumulator's starting bits for C(i, j): old C, the bias (j < n), or zero. */
static uint32_t start_bits(const isa_fmt_mmad *p, const mm_shape *s, const mm_ops *o, uint32_t i,
                           uint32_t j) {
  if (!p->init_c) return isa_le_load32(o->c + c_index(s, i, j) * 4);
  if (p->bias_en && j < s->n) return isa_le_load32(o->bias + (size_t)j * BIAS_ELEM_BYTES);
  return 0;
}

/* ---- exact sums ------------------------------------------------------------------------- */

/* The split (ExtractScalar of Rump, Ogita and Oishi's accurate summation): with C = 1.5 · 2^(52+G), (p + C) - C is p
 * rounded to a multiple of 2^G, exactly, when |p| < 2^(51+G). Take terms that are multiples of
 * 2^Q with |p| < 2^T, at most 16 of them, and G = T - 48: the his (|hi| ≤ |p| + 2^(G-1),
 * multiples of 2^G) sum below 2^(T+4) + 2^(G+3) < 2^(G+53), the los (p - hi, exact, |lo| ≤
 * 2^(G-1), multiples of 2^Q) below 2^(G+3) ≤ 2^(Q+53) when T - Q ≤ 98: both sums are exact in
 * double in any order, and hi_sum + lo_sum is the exact sum. fp16 products always qualify
 * (2^-48 ≤ |p| < 2^32). */
#define SPLIT_MAX_TERMS 16
#define SPLIT_MAX_SPAN 98
#define SPLIT_HEADROOM 48

/* The constant C for terms below 2^t that are multiples of 2^q, or false if the split cannot
 * hold them. */
static bool split_magic(int t, int q, double *magic) {
  int g = t - SPLIT_HEADROOM;
  int e = ISA_F64_MANT_BITS + g; /* C = 1.5 * 2^e, a normal double */
  if (t - q > SPLIT_MAX_SPAN || e + ISA_F64_EXP_BIAS < 1 ||
      e + ISA_F64_EXP_BIAS >= (int)ISA_F64_EXP_MASK)
    return false;
  uint64_t b = ((uint64_t)(e + ISA_F64_EXP_BIAS) << ISA_F64_EXP_SHIFT) | (1ull << (ISA_F64_MANT_BITS - 1));
  memcpy(magic, &b, sizeof *magic);
  return true;
}

/* h + l (each exact) rounded once to fp32, ties to even. */
static float round_pair_f32(double h, double l) {
  double s = h + l;
  double lb = s - h;
  double err = (h - (s - lb)) + (l - lb); /* Knuth's TwoSum: s + err == h + l exactly */
  float r = (float)s;
  if (err == 0.0 || (double)r == s) return r;
  /* |err| is at most half a double ulp of s, and the midpoints between fp32 neighbours are
   * doubles: the cast is right unless s is itself such a midpoint, where err breaks the tie. */
  uint32_t rb = isa_f32_bits(r);
  uint32_t mag = rb & ~F32_SIGN_BIT;
  double as = fabs(s);
  double ar = mag == F32_INF_BITS ? 0x1p128 : fabs((double)r);
  uint32_t other = ar > as ? mag - 1u : mag + 1u; /* the neighbour on the other side of s */
  double ao = other == F32_INF_BITS ? 0x1p128 : (double)isa_f32_from_bits(other);
  if (ar + ao != 2.0 * as) return r;
  bool away = (err > 0) == (s > 0); /* the exact sum lies farther from zero than s */
  uint32_t hi = mag > other ? mag : other, lo = mag > other ? other : mag;
  return isa_f32_from_bits((rb & F32_SIGN_BIT) | (away ? hi : lo));
}

/* A two's complement fixed-point number wide enough for any sum of up to 2^32 finite doubles:
 * bit 0 weighs 2^-1074 (the smallest subnormal), DBL_MAX needs bit 2097. */
#define WIDE_LIMBS 34
#define WIDE_LSB_EXP (-1074)
#define WIDE_F32_MIN_SUB_BIT (-149 - WIDE_LSB_EXP) /* bit of 2^-149, fp32's smallest subnormal */
#define F32_EMAX 127
#define F32_MANT_BITS 23

/* Adds (neg: subtracts) mant * 2^shift bits to the wide number. */
static void wide_add(uint64_t *acc, uint64_t mant, unsigned shift, bool neg) {
  size_t limb = shift / 64;
  unsigned bit = shift % 64;
  uint64_t part[2] = {mant << bit, bit ? mant >> (64 - bit) : 0};
  unsigned carry = 0;
  for (size_t l = limb; l < WIDE_LIMBS; l++) {
    if (l - limb >= 2 && carry == 0) break;
    uint64_t x = l - limb < 2 ? part[l - limb] : 0;
    uint64_t old = acc[l], r;
    if (!neg) {
      r = old + x + carry;
      carry = r < old || (carry && r == old) ? 1u : 0u;
    } else {
      r = old - x - carry;
      carry = old < x || (carry && old == x) ? 1u : 0u;
    }
    acc[l] = r;
  }
}

static unsigned wide_bit(const uint64_t *acc, int idx) {
  return idx < 0 ? 0u : (unsigned)(acc[idx / 64] >> (idx % 64)) & 1u;
}

/* True if any bit below idx is set. */
static bool wide_any_below(const uint64_t *acc, int idx) {
  if (idx <= 0) return false;
  for (int l = 0; l < idx / 64; l++)
    if (acc[l]) return true;
  return idx % 64 && (acc[idx / 64] & ((1ull << (idx % 64)) - 1u));
}

/* The non-negative wide number rounded to fp32 bits, ties to even. */
static uint32_t wide_to_f32_bits(const uint64_t *acc) {
  int top = -1;
  for (int l = WIDE_LIMBS - 1; l >= 0 && top < 0; l--)
    for (int b = 63; b >= 0; b--)
      if ((acc[l] >> b) & 1u) {
        top = l * 64 + b;
        break;
      }
  if (top < 0) return 0;
  int e = top + WIDE_LSB_EXP; /* value in [2^e, 2^(e+1)) */
  if (e > F32_EMAX) return F32_INF_BITS;
  int lsb = top - F32_MANT_BITS > WIDE_F32_MIN_SUB_BIT ? top - F32_MANT_BITS : WIDE_F32_MIN_SUB_BIT;
  uint32_t q = 0;
  for (int b = top; b >= lsb; b--) q = q << 1 | wide_bit(acc, b);
  unsigned half = wide_bit(acc, lsb - 1);
  if (half && (wide_any_below(acc, lsb - 1) || (q & 1u))) q++;
  /* On the subnormal grid q is the encoding itself (q = 2^23 is the smallest normal). Above it
   * q is in [2^23, 2^24]; added on top of the biased exponent minus one, a carry bumps the
   * exponent (and the top binade's carry lands exactly on Inf). */
  if (lsb == WIDE_F32_MIN_SUB_BIT) return q;
  return ((uint32_t)(e + F32_EMAX - 1) << F32_MANT_BITS) + q;
}

/* The exact sum of finite terms by the wide accumulator, rounded to fp32. */
static float wide_sum_f32(const double *terms, size_t count) {
  uint64_t acc[WIDE_LIMBS] = {0};
  for (size_t i = 0; i < count; i++) {
    uint64_t b;
    memcpy(&b, &terms[i], sizeof b);
    unsigned ef = (unsigned)(b >> ISA_F64_EXP_SHIFT) & ISA_F64_EXP_MASK;
    uint64_t mant = b & ISA_F64_MANT_MASK;
    if (ef == 0) {
      if (mant == 0) continue;
      ef = 1; /* subnormal: mant * 2^-1074 */
    } else {
      mant |= ISA_F64_HIDDEN;
    }
    /* value = mant * 2^(ef - 1075): mant shifted by ef - 1 bits of 2^-1074 */
    wide_add(acc, mant, ef - 1u, (b >> 63) != 0);
  }
  bool neg = (acc[WIDE_LIMBS - 1] >> 63) != 0;
  if (neg) { /* two's complement negation */
    unsigned carry = 1;
    for (size_t l = 0; l < WIDE_LIMBS; l++) {
      acc[l] = ~acc[l] + carry;
      carry = carry && acc[l] == 0 ? 1u : 0u;
    }
  }
  uint32_t bits = wide_to_f32_bits(acc);
  return isa_f32_from_bits(bits ? bits | (neg ? F32_SIGN_BIT : 0u) : 0u);
}

float isa_mmad_exact_sum_f32(const double *terms, size_t count) {
  bool nan = false, pinf = false, ninf = false, nonzero = false;
  int t = 0, q = 0; /* every term below 2^t in magnitude and a multiple of 2^q */
  for (size_t i = 0; i < count; i++) {
    double v = terms[i];
    if (isnan(v)) nan = true;
    else if (isinf(v) && v > 0) pinf = true;
    else if (isinf(v)) ninf = true;
    if (v == 0.0 || !isfinite(v)) continue;
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    int ef = (int)((b >> ISA_F64_EXP_SHIFT) & ISA_F64_EXP_MASK);
    uint64_t mant = (b & ISA_F64_MANT_MASK) | (ef ? ISA_F64_HIDDEN : 0u);
    double low = (double)(mant & (~mant + 1u)); /* the lowest set bit: a power of two, exact */
    uint64_t lb;
    memcpy(&lb, &low, sizeof lb);
    int e_low = (ef ? ef : 1) - 1075 + (int)(lb >> ISA_F64_EXP_SHIFT) - ISA_F64_EXP_BIAS;
    int e_top = (ef ? ef : 1) - ISA_F64_EXP_BIAS + 1;
    if (!nonzero || e_top > t) t = e_top;
    if (!nonzero || e_low < q) q = e_low;
    nonzero = true;
  }
  if (nan || (pinf && ninf)) return isa_f32_from_bits(ISA_F32_QNAN_BITS);
  if (pinf) return INFINITY;
  if (ninf) return -INFINITY;
  if (!nonzero) return 0.0f;
  double magic;
  if (count <= SPLIT_MAX_TERMS && split_magic(t, q, &magic)) {
    double hs = 0.0, ls = 0.0;
    for (size_t i = 0; i < count; i++) {
      double hi = (terms[i] + magic) - magic;
      hs += hi;
      ls += terms[i] - hi;
    }
    return round_pair_f32(hs, ls);
  }
  return wide_sum_f32(terms, count);
}

/* ---- what every kernel shares (isa/isa_hot.h) ------------------------------------- */

static int float_bias(isa_dtype dt) { return dt == ISA_FP16 ? 15 : 127; }

isa_mm_float_ops isa_mm_float_ops_carve(const isa_mm_float_job *j) {
  isa_mm_float_ops o;
  uint8_t *at = j->scratch;
  o.a_stride = ISA_MM_FLOAT_A_STRIDE(j);
  o.b_stride = ISA_MM_FLOAT_B_STRIDE(j);
  o.a = (double *)(void *)at;
  at += isa_mm_align64((size_t)j->mb * ISA_MM_ROWS * o.a_stride * sizeof(double));
  o.b = (double *)(void *)at;
  at += isa_mm_align64((size_t)j->kb * ISA_MM_K0_FLOAT * o.b_stride * sizeof(double));
  o.aspan = (isa_mm_span *)(void *)at;
  at += isa_mm_align64((size_t)j->mb * (ISA_MM_ROWS / ISA_MM_SPAN_ROWS) * j->kb * sizeof(isa_mm_span));
  o.bspan = (isa_mm_span *)(void *)at;
  return o;
}

void isa_mm_float_prepare_scalar(const isa_mm_float_job *j, const isa_mm_float_ops *o) {
  unsigned mant = isa_mm_mant_bits(j->dt);
  uint16_t raw[ISA_MM_ROWS * ISA_MM_K0_FLOAT]; /* the values a span covers, zero outside the shape */
  for (uint32_t g = 0; g < j->mb * (ISA_MM_ROWS / ISA_MM_SPAN_ROWS); g++)
    for (uint32_t blk = 0; blk < j->kb; blk++) {
      for (uint32_t r = 0; r < ISA_MM_SPAN_ROWS; r++) {
        uint32_t i = g * ISA_MM_SPAN_ROWS + r;
        const uint8_t *row = j->a + ((size_t)(i / ISA_MM_ROWS) * j->kb + blk) * ISA_MM_FRACTAL_BYTES +
                             (size_t)(i % ISA_MM_ROWS) * 32;
        for (uint32_t t = 0; t < ISA_MM_K0_FLOAT; t++) {
          bool valid = i < j->m && blk * ISA_MM_K0_FLOAT + t < j->k;
          uint16_t h = valid ? (uint16_t)isa_le_load(row + 2 * t, 2) : 0;
          raw[r * ISA_MM_K0_FLOAT + t] = h;
          o->a[i * o->a_stride + blk * ISA_MM_K0_FLOAT + t] = float_of_raw(j->dt, h);
        }
      }
      o->aspan[(size_t)g * j->kb + blk] = isa_mm_span_of(raw, ISA_MM_SPAN_ROWS * ISA_MM_K0_FLOAT, mant);
    }
  for (uint32_t blk = 0; blk < j->kb; blk++)
    for (uint32_t jb = 0; jb < j->nb; jb++) {
      const uint8_t *frac = j->b + ((size_t)blk * j->nb + jb) * ISA_MM_FRACTAL_BYTES;
      for (uint32_t c = 0; c < ISA_MM_ROWS; c++)
        for (uint32_t t = 0; t < ISA_MM_K0_FLOAT; t++) {
          uint32_t col = jb * ISA_MM_ROWS + c;
          bool valid = col < j->n && blk * ISA_MM_K0_FLOAT + t < j->k;
          uint16_t h = valid ? (uint16_t)isa_le_load(frac + c * 32 + 2 * t, 2) : 0;
          raw[c * ISA_MM_K0_FLOAT + t] = h;
          o->b[((size_t)blk * ISA_MM_K0_FLOAT + t) * o->b_stride + col] = float_of_raw(j->dt, h);
        }
      o->bspan[(size_t)blk * j->nb + jb] = isa_mm_span_of(raw, ISA_MM_ROWS * ISA_MM_K0_FLOAT, mant);
    }
}

void isa_mm_float_slow_block(const isa_mm_float_job *j, const isa_mm_float_ops *o, uint32_t i0, uint32_t rows,
                             uint32_t c0, uint32_t cols, uint32_t kb, float *out, size_t ldo) {
  int bias = float_bias(j->dt), mant = (int)isa_mm_mant_bits(j->dt);
  for (uint32_t r = 0; r < rows; r++) {
    uint32_t i = i0 + r;
    const double *arow = o->a + (size_t)i * o->a_stride + (size_t)kb * ISA_MM_K0_FLOAT;
    isa_mm_span sa = o->aspan[(size_t)(i / ISA_MM_SPAN_ROWS) * j->kb + kb];
    for (uint32_t jb = c0 / ISA_MM_ROWS; jb * ISA_MM_ROWS < c0 + cols; jb++) {
      /* the block's columns inside the range: lo..hi - 1 of its 16 */
      uint32_t lo = jb * ISA_MM_ROWS < c0 ? c0 - jb * ISA_MM_ROWS : 0;
      uint32_t hi = c0 + cols - jb * ISA_MM_ROWS < ISA_MM_ROWS ? c0 + cols - jb * ISA_MM_ROWS : ISA_MM_ROWS;
      float *dst = out + r * ldo + (jb * ISA_MM_ROWS + lo - c0); /* dst[c - lo]: column 16·jb + c */
      const double *bb = o->b + (size_t)kb * ISA_MM_K0_FLOAT * o->b_stride + (size_t)jb * ISA_MM_ROWS;
      isa_mm_span sb = o->bspan[(size_t)kb * j->nb + jb];
      uint32_t valid = i >= j->m ? 0 : j->n - jb * ISA_MM_ROWS < ISA_MM_ROWS ? j->n - jb * ISA_MM_ROWS : ISA_MM_ROWS;
      bool zero = !sa.special && !sb.special && (sa.emax < sa.emin || sb.emax < sb.emin);
      double magic;
      if (zero || valid == 0) {
        for (uint32_t c = lo; c < hi; c++) dst[c - lo] = 0.0f;
      } else if (!sa.special && !sb.special &&
                 split_magic(sa.emax + sb.emax - 2 * bias + 2, sa.emin + sb.emin - 2 * bias - 2 * mant,
                             &magic)) {
        double hs[ISA_MM_ROWS] = {0}, ls[ISA_MM_ROWS] = {0};
        for (uint32_t t = 0; t < ISA_MM_K0_FLOAT; t++)
          for (uint32_t c = lo; c < hi; c++) {
            double prod = arow[t] * bb[t * o->b_stride + c];
            double hi_part = (prod + magic) - magic;
            hs[c] += hi_part;
            ls[c] += prod - hi_part;
          }
        for (uint32_t c = lo; c < hi; c++) dst[c - lo] = c < valid ? round_pair_f32(hs[c], ls[c]) : 0.0f;
      } else {
        for (uint32_t c = lo; c < hi; c++) {
          double terms[ISA_MM_K0_FLOAT];
          for (uint32_t t = 0; t < ISA_MM_K0_FLOAT; t++) terms[t] = arow[t] * bb[t * o->b_stride + c];
          /* no product reaches the padding, whatever A holds (Inf * 0 would be NaN) */
          dst[c - lo] = c < valid ? isa_mmad_exact_sum_f32(terms, ISA_MM_K0_FLOAT) : 0.0f;
        }
      }
    }
  }
}

/* ---- the family ------------------------------------------------------------------------- */

bool isa_sem_mmad_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_mmad *p = &in->u.mmad;
  if (!is_cube_dtype(p->dtype))
    return isa_fault_set(f, ISA_FAULT_DTYPE, "dtype", p->dtype, 0,
                         "mmad: dtype %s is not a cube input type (int8, int4, fp16, bf16)",
                         isa_dtype_name((isa_dtype)p->dtype));
  if (p->a.mem != ISA_MEM_L0A)
    return isa_fault_set(f, ISA_FAULT_BAD_MEM, "a", p->a.mem, ISA_MEMBIT(L0A),
                         "mmad: operand a names %s; A must be in L0A",
                         isa_mem_name((isa_mem)p->a.mem));
  if (p->b.mem != ISA_MEM_L0B)
    return isa_fault_set(f, ISA_FAULT_BAD_MEM, "b", p->b.mem, ISA_MEMBIT(L0B),
                         "mmad: operand b names %s; B must be in L0B",
                         isa_mem_name((isa_mem)p->b.mem));
  if (p->bias_en && !p->init_c)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "bias_en", 1, 0,
                         "mmad: bias_en = 1 requires init_c = 1 (the bias initialises C)");
  if (p->unit_flag == 1)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "unit_flag", 1, 3,
                         "mmad: unit_flag = 1 is reserved (0 off, 2 on, 3 on and the last mmad into C)");
  if (p->bias_en && p->bias.mem != ISA_MEM_BT)
    return isa_fault_set(f, ISA_FAULT_BAD_MEM, "bias", p->bias.mem, ISA_MEMBIT(BT),
                         "mmad: operand bias names %s; the bias must be in BT",
                         isa_mem_name((isa_mem)p->bias.mem));
  return true;
}

size_t isa_sem_mmad_ranges(const isa_insn *in, isa_range *out) {
  const isa_fmt_mmad *p = &in->u.mmad;
  mm_shape s = shape_of(p);
  uint64_t a_bytes = (uint64_t)s.mb * s.kb * ISA_MM_FRACTAL_BYTES;
  uint64_t b_bytes = (uint64_t)s.kb * s.nb * ISA_MM_FRACTAL_BYTES;
  uint64_t c_bytes = (uint64_t)s.mb * s.nb * ISA_MM_C_FRACTAL_BYTES;
  size_t r = 0;
  out[r++] = (isa_range){ISA_MEM_L0A, 0, p->a.off, a_bytes, a_bytes, 1};
  out[r++] = (isa_range){ISA_MEM_L0B, 0, p->b.off, b_bytes, b_bytes, 1};
  if (!p->init_c) out[r++] = (isa_range){ISA_MEM_L0C, 0, p->dst.off, c_bytes, c_bytes, 1};
  if (p->bias_en) {
    uint64_t bias_bytes = (uint64_t)s.n * BIAS_ELEM_BYTES;
    out[r++] = (isa_range){ISA_MEM_BT, 0, p->bias.off, bias_bytes, bias_bytes, 1};
  }
  out[r++] = (isa_range){ISA_MEM_L0C, 1, p->dst.off, c_bytes, c_bytes, 1};
  return r;
}

void isa_sem_mmad_work(const isa_insn *in, isa_work *w) {
  const isa_fmt_mmad *p = &in->u.mmad;
  mm_shape s = shape_of(p);
  w->path = ISA_PATH_CUBE;
  w->fractal_ops = (uint64_t)s.mb * s.nb * s.kb;
  w->macs = (uint64_t)p->m * p->n * p->k;
  w->dtype = p->dtype;
  w->m = p->m;
  w->n = p->n;
  w->k = p->k;
}

void isa_sem_mmad_exec_direct(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_mmad *p = &in->u.mmad;
  mm_shape s = shape_of(p);
  mm_ops o = operands(p, &s, m);
  for (uint32_t i = 0; i < s.mb * ISA_MM_ROWS; i++)
    for (uint32_t j = 0; j < s.nb * ISA_MM_ROWS; j++) {
      uint32_t acc = start_bits(p, &s, &o, i, j);
      bool valid = i < s.m && j < s.n;
      if (!s.is_float) {
        int32_t dot = 0; /* exact: |dot| < 2^31 */
        for (uint32_t kk = 0; valid && kk < s.k; kk++)
          dot += int_elem(o.a, s.dt, a_index(&s, i, kk)) * int_elem(o.b, s.dt, b_index(&s, kk, j));
        acc += (uint32_t)dot;
      } else {
        float f = isa_f32_from_bits(acc);
        if (!valid) f += 0.0f;
        for (uint32_t blk = 0; valid && blk < s.kb; blk++) {
          double terms[16];
          size_t cnt = 0;
          for (uint32_t kk = blk * s.k0; kk < (blk + 1) * s.k0 && kk < s.k; kk++)
            terms[cnt++] = float_elem(o.a, s.dt, a_index(&s, i, kk)) *
                           float_elem(o.b, s.dt, b_index(&s, kk, j));
          f += isa_mmad_exact_sum_f32(terms, cnt);
        }
        acc = isa_f32_bits(isa_f32_canon(f));
      }
      isa_le_store(o.c + c_index(&s, i, j) * 4, acc, 4);
    }
}

/* int4 fractals unpacked to int8 ones: int4 fractal f (16 rows of 64 values) becomes int8
 * fractals 2f' and 2f' + 1 holding values 0..31 and 32..63 of each row, where f' numbers the
 * fractals with twice as many k-blocks (Zz: outer = row block, Zn: outer = k-block). */
static void unpack_int4(const uint8_t *src, uint8_t *dst, uint32_t outer, uint32_t inner,
                        uint32_t kb, bool zz) {
  for (uint32_t x = 0; x < outer; x++)
    for (uint32_t y = 0; y < inner; y++) {
      /* Zz: x = row block, y = k-block; Zn: x = k-block, y = column block */
      uint32_t blk = zz ? y : x;
      size_t f = zz ? (size_t)x * kb + y : (size_t)x * inner + y;
      size_t lo = zz ? (size_t)x * 2 * kb + 2 * blk : (size_t)2 * blk * inner + y;
      size_t hi = zz ? lo + 1 : lo + inner;
      const uint8_t *s = src + f * ISA_MM_FRACTAL_BYTES;
      for (uint32_t r = 0; r < ISA_MM_ROWS; r++)
        for (uint32_t byte = 0; byte < 32; byte++) { /* values 2·byte (low nibble) and 2·byte + 1 */
          uint8_t two = s[r * 32 + byte];
          uint8_t *d = dst + (byte < 16 ? lo : hi) * ISA_MM_FRACTAL_BYTES + r * 32 + 2 * (byte % 16);
          d[0] = (uint8_t)(((two & 0xFu) ^ 8u) - 8u); /* sign-extended nibbles */
          d[1] = (uint8_t)(((two >> 4) ^ 8u) - 8u);
        }
    }
}

void isa_sem_mmad_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_mmad *p = &in->u.mmad;
  mm_shape s = shape_of(p);
  mm_ops o = operands(p, &s, m);
  const isa_hot *hot = isa_hot_for(m->host);
  /* the scratch: the bias row, int4 operands unpacked, then the kernel's own */
  size_t bias_bytes = p->bias_en ? isa_mm_align64((size_t)s.nb * ISA_MM_ROWS * 4) : 0;
  size_t a8_bytes = (size_t)s.mb * 2 * s.kb * ISA_MM_FRACTAL_BYTES, b8_bytes = (size_t)2 * s.kb * s.nb * ISA_MM_FRACTAL_BYTES;
  size_t unpack_bytes = s.dt == ISA_INT4 ? a8_bytes + b8_bytes : 0;
  isa_mm_float_job fj = {s.dt, s.m, s.n, s.k, s.mb, s.nb, s.kb, o.a, o.b, o.c, {!p->init_c, NULL}, NULL};
  isa_mm_int_job ij = {s.m, s.n, s.k, s.mb, s.nb, s.dt == ISA_INT4 ? 2 * s.kb : s.kb, o.a, o.b, o.c,
                   {!p->init_c, NULL}, NULL};
  size_t bytes = bias_bytes + unpack_bytes + (s.is_float ? ISA_MM_FLOAT_SCRATCH_BYTES(&fj) : ISA_MM_INT_SCRATCH_BYTES(&ij));
  uint8_t *scratch = m->host ? isa_host_scratch(m->host, bytes) : aligned_alloc(64, isa_mm_align64(bytes));
  if (!scratch) { /* no memory: the path that needs none */
    isa_sem_mmad_exec_direct(in, m);
    return;
  }
  uint8_t *at = scratch;
  if (p->bias_en) {
    uint32_t *row = (uint32_t *)(void *)at;
    for (uint32_t j = 0; j < s.nb * ISA_MM_ROWS; j++)
      row[j] = j < s.n ? isa_le_load32(o.bias + (size_t)j * BIAS_ELEM_BYTES) : 0u;
    fj.start.bias = ij.start.bias = row;
    at += bias_bytes;
  }
  if (s.is_float) {
    fj.scratch = at;
    hot->mmad_float(&fj);
  } else {
    if (s.dt == ISA_INT4) {
      unpack_int4(o.a, at, s.mb, s.kb, s.kb, true);
      unpack_int4(o.b, at + a8_bytes, s.kb, s.nb, s.kb, false);
      ij.a = at;
      ij.b = at + a8_bytes;
      at += unpack_bytes;
    }
    ij.scratch = at;
    hot->mmad_int(&ij);
  }
  if (!m->host) free(scratch);
}
