/* isa_sem_mmad — the cube: C (L0C, Nz) = A (L0A, Zz) · B (L0B, Zn), added to C, to zero or to
 * the BT bias row (docs/ISA.md §mmad).
 *
 * This is the hot loop of the whole simulator: every MAC of every GEMM runs through it. exec
 * decodes the A and B fractals once per instruction into plain arrays (A row-major m × k; B by
 * 16-column blocks, [nb][k][16]) and computes C one 16-column block and one row at a time: 16
 * local accumulators run over the whole k loop, the B block stays in L1 across rows,
 * and the innermost loop has a fixed trip count of 16, which compilers vectorise even at -O2.
 * Without scratch memory, exec falls back to isa_sem_mmad_exec_direct (same results).
 *
 * Integer inputs: |Σ_κ A·B| ≤ 4095 · 2^14 < 2^31, so one instruction's dot products are exact in
 * int32; only adding them to C or to the bias wraps (modulo 2^32, done in uint32).
 *
 * Float inputs follow docs/ISA.md's order: per k-block the 16 products are summed exactly and
 * rounded once to fp32, then added to the fp32 accumulator, blocks in increasing k. The exact sum
 * splits every product p on a grid 2^G into hi + lo (split_magic); the his and the los each sum
 * exactly in double, and round_pair_f32 rounds hi_sum + lo_sum to fp32 exactly. The split is exact
 * whenever a block's products span at most 98 binary orders, which fp16 always does (products in
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
#include "isa/isa_num.h"

#define FRACTAL_BYTES 512u    /* L0A / L0B fractal: 16 rows x 32 bytes */
#define C_FRACTAL_BYTES 1024u /* L0C fractal: 16 x 16 four-byte elements */
#define FRACTAL_ROWS 16u      /* rows of every fractal: the M and N granularity */
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
  s.mb = ceil_div(p->m, FRACTAL_ROWS);
  s.nb = ceil_div(p->n, FRACTAL_ROWS);
  s.kb = ceil_div(p->k, s.k0);
  return s;
}

/* Element number, from the start of A, of A(i, κ) in Zz: fractals row-major, rows inside. */
static size_t a_index(const mm_shape *s, uint32_t i, uint32_t kk) {
  return (((size_t)(i / FRACTAL_ROWS) * s->kb + kk / s->k0) * FRACTAL_ROWS + i % FRACTAL_ROWS) *
             s->k0 + kk % s->k0;
}

/* B(κ, j) in Zn: fractals row-major over K, each column-major (column j%16 is one fractal row). */
static size_t b_index(const mm_shape *s, uint32_t kk, uint32_t j) {
  return (((size_t)(kk / s->k0) * s->nb + j / FRACTAL_ROWS) * FRACTAL_ROWS + j % FRACTAL_ROWS) *
             s->k0 + kk % s->k0;
}

/* C(i, j) in Nz with 16 x 16 fractals: column blocks, each mb fractals of rows. */
static size_t c_index(const mm_shape *s, uint32_t i, uint32_t j) {
  return (((size_t)(j / FRACTAL_ROWS) * s->mb + i / FRACTAL_ROWS) * FRACTAL_ROWS +
          i % FRACTAL_ROWS) * FRACTAL_ROWS + j % FRACTAL_ROWS;
}

static int32_t int_elem(const uint8_t *base, isa_dtype dt, size_t idx) {
  return dt == ISA_INT4 ? isa_int4_get(base, idx) : (int8_t)base[idx];
}

static double float_elem(const uint8_t *base, isa_dtype dt, size_t idx) {
  uint16_t h = (uint16_t)(base[2 * idx] | base[2 * idx + 1] << 8);
  return dt == ISA_FP16 ? isa_f16_to_f32(h) : isa_bf16_to_f32(h);
}

/* The operands' host memory, fetched once per instruction. */
typedef struct mm_ops {
  const uint8_t *a, *b, *bias;
  uint8_t *c;
} mm_ops;

static mm_ops operands(const isa_fmt_mmad *p, const mm_shape *s, const isa_mach *m) {
  mm_ops o;
  o.a = m->ptr(m->ctx, ISA_MEM_L0A, p->a.off, (uint64_t)s->mb * s->kb * FRACTAL_BYTES);
  o.b = m->ptr(m->ctx, ISA_MEM_L0B, p->b.off, (uint64_t)s->kb * s->nb * FRACTAL_BYTES);
  o.c = m->ptr(m->ctx, ISA_MEM_L0C, p->dst.off, (uint64_t)s->mb * s->nb * C_FRACTAL_BYTES);
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

/* ---- the fast paths --------------------------------------------------------------------- */

/* Range of a set of fp16/bf16 values held in doubles, for choosing the split grid. */
typedef struct span {
  int emax;     /* largest exponent floor(log2|v|) over the non-zero values */
  int qmin;     /* smallest ulp exponent (of the source format) over the non-zero values */
  bool nonzero; /* some value is non-zero */
  bool special; /* some value is Inf or NaN */
} span;

static void span_add(span *sp, double v, isa_dtype dt) {
  if (v == 0.0) return;
  if (!isfinite(v)) {
    sp->special = true;
    return;
  }
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  /* fp16/bf16: normal doubles */
  int e = (int)((b >> ISA_F64_EXP_SHIFT) & ISA_F64_EXP_MASK) - ISA_F64_EXP_BIAS;
  /* ulp exponent in the source format: fp16 10 mantissa bits, emin -14; bf16 7 and -126 */
  int q = dt == ISA_FP16 ? (e > -14 ? e : -14) - 10 : (e > -126 ? e : -126) - 7;
  if (!sp->nonzero || e > sp->emax) sp->emax = e;
  if (!sp->nonzero || q < sp->qmin) sp->qmin = q;
  sp->nonzero = true;
}

/* The split constant of one block from the spans of its A row and B column block: products
 * are multiples of 2^(qa+qb) below 2^(ea+eb+2). */
static bool split_grid(const span *sa, const span *sb, double *magic) {
  return split_magic(sa->emax + sb->emax + 2, sa->qmin + sb->qmin, magic);
}

/* Integer inputs. Returns false (C untouched) when scratch memory is not available.
 * B is decoded by 16-column blocks, [nb][k][16] (zero columns j >= n): for one block and one row
 * of A, 16 local accumulators run over the whole κ loop while the block (k x 32 bytes) stays in
 * L1 across the rows; the fixed trip count of 16 vectorises even at -O2. */
static bool exec_int(const isa_fmt_mmad *p, const mm_shape *s, const mm_ops *o) {
  size_t m = s->m, n = s->n, k = s->k;
  int16_t *ad = malloc(m * k * sizeof *ad);
  int16_t *bd = calloc((size_t)s->nb * k * FRACTAL_ROWS, sizeof *bd);
  bool ok = ad && bd;
  if (ok) {
    for (uint32_t i = 0; i < m; i++)
      for (uint32_t kk = 0; kk < k; kk++) ad[i * k + kk] = (int16_t)int_elem(o->a, s->dt, a_index(s, i, kk));
    for (uint32_t kk = 0; kk < k; kk++)
      for (uint32_t j = 0; j < n; j++)
        bd[((size_t)(j / FRACTAL_ROWS) * k + kk) * FRACTAL_ROWS + j % FRACTAL_ROWS] =
            (int16_t)int_elem(o->b, s->dt, b_index(s, kk, j));
    for (uint32_t jb = 0; jb < s->nb; jb++) {
      const int16_t *bblk = bd + (size_t)jb * k * FRACTAL_ROWS;
      for (uint32_t i = 0; i < s->mb * FRACTAL_ROWS; i++) {
        int32_t acc[FRACTAL_ROWS] = {0};
        if (i < m) {
          const int16_t *arow = ad + (size_t)i * k;
          for (size_t kk = 0; kk < k; kk++) {
            int16_t av = arow[kk];
            const int16_t *brow = bblk + kk * FRACTAL_ROWS;
            for (size_t jj = 0; jj < FRACTAL_ROWS; jj++) acc[jj] += (int32_t)av * brow[jj];
          }
        }
        for (uint32_t jj = 0; jj < FRACTAL_ROWS; jj++) {
          uint32_t j = jb * FRACTAL_ROWS + jj;
          isa_le_store(o->c + c_index(s, i, j) * 4, start_bits(p, s, o, i, j) + (uint32_t)acc[jj], 4);
        }
      }
    }
  }
  free(ad);
  free(bd);
  return ok;
}

/* Float inputs. Returns false (C untouched) when scratch memory is not available. Same blocking
 * as exec_int; the span of every (row of A, k-block) and every (k-block, column block of B)
 * is computed once to choose each block's split grid. */
static bool exec_float(const isa_fmt_mmad *p, const mm_shape *s, const mm_ops *o) {
  size_t m = s->m, n = s->n, kb = s->kb, kp = kb * s->k0, nb = s->nb;
  double *ad = calloc(m * kp, sizeof *ad); /* κ >= k stays zero, in A and in B */
  double *bd = calloc(nb * kp * FRACTAL_ROWS, sizeof *bd);
  span *aspan = calloc(m * kb, sizeof *aspan);
  span *bspan = calloc(kb * nb, sizeof *bspan);
  bool ok = ad && bd && aspan && bspan;
  if (ok) {
    for (uint32_t i = 0; i < m; i++)
      for (uint32_t kk = 0; kk < s->k; kk++) {
        double v = float_elem(o->a, s->dt, a_index(s, i, kk));
        ad[i * kp + kk] = v;
        span_add(&aspan[i * kb + kk / s->k0], v, s->dt);
      }
    for (uint32_t kk = 0; kk < s->k; kk++)
      for (uint32_t j = 0; j < n; j++) {
        double v = float_elem(o->b, s->dt, b_index(s, kk, j));
        bd[((size_t)(j / FRACTAL_ROWS) * kp + kk) * FRACTAL_ROWS + j % FRACTAL_ROWS] = v;
        span_add(&bspan[(kk / s->k0) * nb + j / FRACTAL_ROWS], v, s->dt);
      }
    for (uint32_t jb = 0; jb < nb; jb++) {
      const double *bblk = bd + (size_t)jb * kp * FRACTAL_ROWS;
      uint32_t valid_cols = n - jb * FRACTAL_ROWS < FRACTAL_ROWS ? n - jb * FRACTAL_ROWS : FRACTAL_ROWS;
      for (uint32_t i = 0; i < s->mb * FRACTAL_ROWS; i++) {
        float acc[FRACTAL_ROWS];
        for (uint32_t jj = 0; jj < FRACTAL_ROWS; jj++)
          acc[jj] = isa_f32_from_bits(start_bits(p, s, o, i, jb * FRACTAL_ROWS + jj));
        for (uint32_t blk = 0; i < m && blk < kb; blk++) {
          const double *ablk = ad + i * kp + (size_t)blk * s->k0;
          const double *bb = bblk + (size_t)blk * s->k0 * FRACTAL_ROWS;
          const span *sa = &aspan[i * kb + blk], *sb = &bspan[blk * nb + jb];
          double magic;
          if (!sa->special && !sb->special && (!sa->nonzero || !sb->nonzero)) {
            for (uint32_t jj = 0; jj < FRACTAL_ROWS; jj++) acc[jj] += 0.0f; /* products ±0: +0 */
          } else if (!sa->special && !sb->special && split_grid(sa, sb, &magic)) {
            double hs[FRACTAL_ROWS] = {0}, ls[FRACTAL_ROWS] = {0};
            for (uint32_t t = 0; t < s->k0; t++) {
              double av = ablk[t];
              const double *brow = bb + (size_t)t * FRACTAL_ROWS;
              for (uint32_t jj = 0; jj < FRACTAL_ROWS; jj++) {
                double prod = av * brow[jj];
                double hi = (prod + magic) - magic;
                hs[jj] += hi;
                ls[jj] += prod - hi;
              }
            }
            for (uint32_t jj = 0; jj < FRACTAL_ROWS; jj++) acc[jj] += round_pair_f32(hs[jj], ls[jj]);
          } else {
            double terms[16];
            for (uint32_t jj = 0; jj < FRACTAL_ROWS; jj++) {
              if (jj >= valid_cols) {
                acc[jj] += 0.0f; /* no products reach the padding, whatever A holds */
                continue;
              }
              for (uint32_t t = 0; t < s->k0; t++) terms[t] = ablk[t] * bb[(size_t)t * FRACTAL_ROWS + jj];
              acc[jj] += isa_mmad_exact_sum_f32(terms, s->k0);
            }
          }
        }
        if (i >= m) /* rows i >= m of A: a zero sum */
          for (uint32_t jj = 0; jj < FRACTAL_ROWS; jj++) acc[jj] += 0.0f;
        for (uint32_t jj = 0; jj < FRACTAL_ROWS; jj++)
          isa_le_store(o->c + c_index(s, i, jb * FRACTAL_ROWS + jj) * 4, isa_f32_bits(isa_f32_canon(acc[jj])),
                       4);
      }
    }
  }
  free(ad);
  free(bd);
  free(aspan);
  free(bspan);
  return ok;
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
  uint64_t a_bytes = (uint64_t)s.mb * s.kb * FRACTAL_BYTES;
  uint64_t b_bytes = (uint64_t)s.kb * s.nb * FRACTAL_BYTES;
  uint64_t c_bytes = (uint64_t)s.mb * s.nb * C_FRACTAL_BYTES;
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
  for (uint32_t i = 0; i < s.mb * FRACTAL_ROWS; i++)
    for (uint32_t j = 0; j < s.nb * FRACTAL_ROWS; j++) {
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

void isa_sem_mmad_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_mmad *p = &in->u.mmad;
  mm_shape s = shape_of(p);
  mm_ops o = operands(p, &s, m);
  bool done = s.is_float ? exec_float(p, &s, &o) : exec_int(p, &s, &o);
  if (!done) isa_sem_mmad_exec_direct(in, m); /* no scratch memory: the slow path */
}
