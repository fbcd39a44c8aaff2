/* isa_sem_mmad — the cube: C (L0C, Nz) = A (L0A, Zz) · B (L0B, Zn), added to C, to zero or to
 * the BT bias row (docs/ISA.md §mmad).
 *
 * This is the hot loop of the whole simulator: every MAC of every GEMM runs through it. exec
 * decodes the A and B fractals once per instruction into row-major arrays (A m × k, B k × n) and
 * multiplies them row by row — i, then κ, then j innermost over contiguous memory, which the
 * compiler vectorises — keeping one row of C in cache.
 *
 * Integer inputs: |Σ_κ A·B| ≤ 4095 · 2^14 < 2^31, so one instruction's dot products are exact in
 * int32; only adding them to C or to the bias wraps (modulo 2^32, done in uint32).
 *
 * Float inputs follow docs/ISA.md's order: per k-block the 16 products are summed exactly and
 * rounded once to fp32, then added to the fp32 accumulator, blocks in increasing k. The exact sum
 * splits every product p on a grid 2^G into hi + lo (split_grid); the his and the los each sum
 * exactly in double, and round_pair_f32 rounds hi_sum + lo_sum to fp32 exactly. The split is exact
 * whenever a block's products span at most 98 binary orders, which fp16 always does (products in
 * [2^-48, 2^32)); wider bf16 blocks and blocks with Inf/NaN use isa_mmad_exact_sum_f32, a wide
 * fixed-point accumulator, which also serves as the definition the direct path follows.
 */
#include "isa/isa_mmad.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_num.h"

/* The float semantics rely on fp32 and double operations rounding to their own precision. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "cubesim needs FLT_EVAL_METHOD == 0 (fp32 and double evaluated in their own precision)"
#endif

#define FRACTAL_BYTES 512u    /* L0A / L0B fractal: 16 rows x 32 bytes */
#define C_FRACTAL_BYTES 1024u /* L0C fractal: 16 x 16 four-byte elements */
#define FRACTAL_ROWS 16u      /* rows of every fractal: the M and N granularity */
#define BIAS_ELEM_BYTES 4u    /* BT holds int32 or fp32 */
#define F32_QNAN_BITS 0x7FC00000u
#define F32_SIGN_BIT 0x80000000u
#define F32_INF_BITS 0x7F800000u

/* double fields */
#define F64_EXP_SHIFT 52
#define F64_EXP_MASK 0x7FFu
#define F64_EXP_BIAS 1023
#define F64_MANT_MASK 0x000FFFFFFFFFFFFFull
#define F64_HIDDEN 0x0010000000000000ull
#define F64_MANT_BITS 52

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

/* Buffers are little-endian, whatever the host. */
static uint32_t load32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
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
  if (!p->init_c) return load32(o->c + c_index(s, i, j) * 4);
  if (p->bias_en && j < s->n) return load32(o->bias + (size_t)j * BIAS_ELEM_BYTES);
  return 0;
}

static float canon_nan(float x) { return x != x ? isa_f32_from_bits(F32_QNAN_BITS) : x; }

/* ---- exact sums ------------------------------------------------------------------------- */

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
    uint64_t x = l - limb < 2 ? part[l - limb] : 0;
    if (l - limb >= 2 && carry == 0) break;
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

/* The non-negative wide number rounded to fp32, ties to even. */
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
  /* At the subnormal grid, q is the encoding itself (q = 2^23 is the smallest normal). Above it
   * q is in [2^23, 2^24]; added on top of the exponent minus one, a carry bumps the exponent
   * (and the top binade's carry lands exactly on Inf). */
  if (lsb == WIDE_F32_MIN_SUB_BIT) return q;
  return ((uint32_t)(e + F32_EMAX - 1) << F32_MANT_BITS) + q;
}

float isa_mmad_exact_sum_f32(const double *terms, size_t count) {
  bool nan = false, pinf = false, ninf = false;
  for (size_t i = 0; i < count; i++) {
    if (isnan(terms[i])) nan = true;
    else if (isinf(terms[i]) && terms[i] > 0) pinf = true;
    else if (isinf(terms[i])) ninf = true;
  }
  if (nan || (pinf && ninf)) return isa_f32_from_bits(F32_QNAN_BITS);
  if (pinf) return INFINITY;
  if (ninf) return -INFINITY;

  uint64_t acc[WIDE_LIMBS] = {0};
  for (size_t i = 0; i < count; i++) {
    uint64_t b;
    memcpy(&b, &terms[i], sizeof b);
    unsigned ef = (unsigned)(b >> F64_EXP_SHIFT) & F64_EXP_MASK;
    uint64_t mant = b & F64_MANT_MASK;
    if (ef == 0) {
      if (mant == 0) continue;
      ef = 1; /* subnormal: mant * 2^-1074 */
    } else {
      mant |= F64_HIDDEN;
    }
    /* value = mant * 2^(ef - 1075) = mant * 2^(ef - 1) units of 2^-1074 */
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
  int e = (int)((b >> F64_EXP_SHIFT) & F64_EXP_MASK) - F64_EXP_BIAS; /* fp16/bf16: normal doubles */
  /* ulp exponent in the source format: fp16 10 mantissa bits, emin -14; bf16 7 and -126 */
  int q = dt == ISA_FP16 ? (e > -14 ? e : -14) - 10 : (e > -126 ? e : -126) - 7;
  if (!sp->nonzero || e > sp->emax) sp->emax = e;
  if (!sp->nonzero || q < sp->qmin) sp->qmin = q;
  sp->nonzero = true;
}

/* The split grid 2^G of one block, from the spans of its A row and B rows, or false when the
 * products span more than the split covers. Products lie in [2^Q, 2^T) with Q = qa + qb and
 * T = ea + eb + 2, multiples of 2^Q. With G = T - 48: hi = p rounded to a multiple of 2^G by
 * adding and subtracting C = 1.5 · 2^(52+G) (exact as |p| < 2^(51+G)); 16 his stay below
 * 2^(53+G) and 16 los (|lo| ≤ 2^(G-1), multiples of 2^Q) below 2^(G+3) ≤ 2^(Q+53) when
 * T - Q ≤ 98: both sums are exact in double. */
#define SPLIT_MAX_SPAN 98
static bool split_grid(const span *sa, const span *sb, double *magic) {
  int t = sa->emax + sb->emax + 2, q = sa->qmin + sb->qmin;
  if (t - q > SPLIT_MAX_SPAN) return false;
  int g = t - 48;
  /* 1.5 · 2^(52+g) built from its bits: 52 + g is in [-262, 262] */
  uint64_t b = ((uint64_t)(52 + g + F64_EXP_BIAS) << F64_EXP_SHIFT) | (1ull << (F64_MANT_BITS - 1));
  memcpy(magic, &b, sizeof *magic);
  return true;
}

/* Integer inputs. Returns false (C untouched) when scratch memory is not available. */
static bool exec_int(const isa_fmt_mmad *p, const mm_shape *s, const mm_ops *o) {
  size_t m = s->m, n = s->n, k = s->k;
  int16_t *ad = malloc(m * k * sizeof *ad);
  int16_t *bd = malloc(k * n * sizeof *bd);
  int32_t *row = malloc(n * sizeof *row);
  bool ok = ad && bd && row;
  if (ok) {
    for (uint32_t i = 0; i < m; i++)
      for (uint32_t kk = 0; kk < k; kk++) ad[i * k + kk] = (int16_t)int_elem(o->a, s->dt, a_index(s, i, kk));
    for (uint32_t kk = 0; kk < k; kk++)
      for (uint32_t j = 0; j < n; j++) bd[kk * n + j] = (int16_t)int_elem(o->b, s->dt, b_index(s, kk, j));
    for (uint32_t i = 0; i < s->mb * FRACTAL_ROWS; i++) {
      memset(row, 0, n * sizeof *row);
      if (i < m) {
        const int16_t *arow = ad + (size_t)i * k;
        for (size_t kk = 0; kk < k; kk++) {
          int32_t av = arow[kk];
          if (av == 0) continue;
          const int16_t *brow = bd + kk * n;
          for (size_t j = 0; j < n; j++) row[j] += av * brow[j];
        }
      }
      for (uint32_t j = 0; j < s->nb * FRACTAL_ROWS; j++) {
        uint32_t acc = start_bits(p, s, o, i, j) + (j < n ? (uint32_t)row[j] : 0u);
        store32(o->c + c_index(s, i, j) * 4, acc);
      }
    }
  }
  free(ad);
  free(bd);
  free(row);
  return ok;
}

/* Float inputs. Returns false (C untouched) when scratch memory is not available. */
static bool exec_float(const isa_fmt_mmad *p, const mm_shape *s, const mm_ops *o) {
  size_t m = s->m, n = s->n, kp = (size_t)s->kb * s->k0, n16 = (size_t)s->nb * FRACTAL_ROWS;
  double *ad = calloc(m * kp, sizeof *ad); /* κ >= k stays zero, in A and in B */
  double *bd = calloc(kp * n, sizeof *bd);
  double *hs = malloc(n * sizeof *hs), *ls = malloc(n * sizeof *ls);
  float *row = malloc(n16 * sizeof *row);
  span *bspan = calloc(s->kb, sizeof *bspan);
  bool ok = ad && bd && hs && ls && row && bspan;
  if (ok) {
    for (uint32_t i = 0; i < m; i++)
      for (uint32_t kk = 0; kk < s->k; kk++) ad[i * kp + kk] = float_elem(o->a, s->dt, a_index(s, i, kk));
    for (uint32_t kk = 0; kk < s->k; kk++)
      for (uint32_t j = 0; j < n; j++) {
        double v = float_elem(o->b, s->dt, b_index(s, kk, j));
        bd[kk * n + j] = v;
        span_add(&bspan[kk / s->k0], v, s->dt);
      }
    for (uint32_t i = 0; i < s->mb * FRACTAL_ROWS; i++) {
      for (uint32_t j = 0; j < n16; j++) row[j] = isa_f32_from_bits(start_bits(p, s, o, i, j));
      if (i < m) {
        for (uint32_t blk = 0; blk < s->kb; blk++) {
          const double *ablk = ad + i * kp + (size_t)blk * s->k0;
          const span *sb = &bspan[blk];
          span sa = {0, 0, false, false};
          for (uint32_t t = 0; t < s->k0; t++) span_add(&sa, ablk[t], s->dt);
          double magic;
          if (!sa.special && !sb->special && (!sa.nonzero || !sb->nonzero)) {
            for (size_t j = 0; j < n; j++) row[j] += 0.0f; /* every product is ±0: sum +0 */
          } else if (!sa.special && !sb->special && split_grid(&sa, sb, &magic)) {
            for (size_t j = 0; j < n; j++) hs[j] = ls[j] = 0.0;
            for (uint32_t t = 0; t < s->k0; t++) {
              double av = ablk[t];
              if (av == 0.0) continue; /* B is finite here: its products add nothing */
              const double *restrict brow = bd + ((size_t)blk * s->k0 + t) * n;
              double *restrict hp = hs;
              double *restrict lp = ls;
              for (size_t j = 0; j < n; j++) {
                double prod = av * brow[j];
                double hi = (prod + magic) - magic;
                hp[j] += hi;
                lp[j] += prod - hi;
              }
            }
            for (size_t j = 0; j < n; j++) row[j] += round_pair_f32(hs[j], ls[j]);
          } else {
            double terms[16];
            for (size_t j = 0; j < n; j++) {
              for (uint32_t t = 0; t < s->k0; t++)
                terms[t] = ablk[t] * bd[((size_t)blk * s->k0 + t) * n + j];
              row[j] += isa_mmad_exact_sum_f32(terms, s->k0);
            }
          }
        }
        for (size_t j = n; j < n16; j++) row[j] += 0.0f; /* columns j >= n of B are zero */
      } else {
        for (size_t j = 0; j < n16; j++) row[j] += 0.0f; /* rows i >= m of A are zero */
      }
      for (uint32_t j = 0; j < n16; j++)
        store32(o->c + c_index(s, i, j) * 4, isa_f32_bits(canon_nan(row[j])));
    }
  }
  free(ad);
  free(bd);
  free(hs);
  free(ls);
  free(row);
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
        acc = isa_f32_bits(canon_nan(f));
      }
      store32(o.c + c_index(&s, i, j) * 4, acc);
    }
}

void isa_sem_mmad_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_mmad *p = &in->u.mmad;
  mm_shape s = shape_of(p);
  mm_ops o = operands(p, &s, m);
  bool done = s.is_float ? exec_float(p, &s, &o) : exec_int(p, &s, &o);
  if (!done) isa_sem_mmad_exec_direct(in, m); /* no scratch memory: the slow path */
}
