/* isa_hot_x86 — the hot loops for x86-64 vector units (isa/isa_hot.h): AVX2, AVX-512 and
 * AVX-512 VNNI. Each function carries its own target attribute, so this file builds without
 * -mavx2 and isa/isa_kernel.c picks the kernel the CPU supports at run time.
 *
 * All of them keep C's accumulators in registers over a whole tile (R rows x NJ column blocks of
 * 16) and the k loop, read A straight from its layout and B from a copy arranged for the
 * instruction set, made once per instruction in the core's scratch.
 *
 * Integers. VNNI's vpdpbusd multiplies unsigned bytes by signed bytes, four at a time into
 * int32. With a' = a + 128 (a XOR 0x80) as the unsigned side, Σ a'·b = Σ a·b + 128·Σ b: the
 * second term is subtracted per column, its sums taken while B is rearranged. Without VNNI,
 * vpmaddwd multiplies pairs of int16 (A and B widened) into int32. Every step is exact or wraps
 * modulo 2^32, so the result is the portable kernel's bit for bit. B's padding (κ >= k, columns
 * >= n) is zeroed in the copy, which keeps A's padding (rows >= m, κ >= k) out of C: padding
 * rows are computed and dropped (they get their start value, docs/ISA.md).
 *
 * Floats. fp16/bf16 values become doubles; a block of 16 products whose exponent range allows it
 * (isa_mm_float_fast_ok) is a double FMA dot product, exact, rounded to fp32 by vcvtpd2ps (round to
 * nearest even, as every kernel). The other blocks take isa_mm_float_slow_block. AVX2's float
 * tiles are the exception to the rule above: their fp32 sums stay in C itself, so that all 16
 * registers go to the k-block's double accumulators and the operands.
 */
#include "isa/isa_hot.h"

#if ISA_HOT_X86

#include <immintrin.h>
#include <string.h>

#include "isa/isa_fparith.h"

#define TARGET_AVX2   __attribute__((target("avx2,fma,f16c")))
#define TARGET_AVX512 __attribute__((target("avx2,fma,f16c,avx512f,avx512bw")))
#define TARGET_VNNI   __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vnni")))
#define INLINE        static inline __attribute__((always_inline))

/* 32 bits from any address: four int8 or two int16 values of A, to broadcast. */
static inline int32_t load_i32(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Bytes of column c (0..15) of a B fractal that are inside the shape: the low kv of 32. */
static inline uint32_t col_bytes_mask(uint32_t col, uint32_t n, uint32_t kv) {
  return col < n ? (kv >= 32 ? 0xFFFFFFFFu : (1u << kv) - 1u) : 0u;
}

/* ---- AVX-512: B rearranged by groups of four k, int8 ------------------------------------ */

/* The dword transposes of one B fractal (16 columns of 8 dwords = 4 k each) into 8 vectors of
 * 16 columns, by three rounds of two-source dword permutes. Index tables (lane l of the result
 * takes dword idx[l] of the 32 of the two sources):
 *   round 1, sources cols 4p..4p+3 (as col·8 + q):  lane q·4 + c  <- c·8 + q (q 0..3; + 4: q 4..7)
 *   round 2, sources cols 8s..8s+3 and 8s+4..8s+7 (as q·4 + c): lane qq·8 + c8 <- q = qq (+2)
 *   round 3, sources cols 0..7 and 8..15 (as qq·8 + c8): lane c16 <- q = 0 or 1 of the pair */
typedef struct tr_tables {
  __m512i r1[2], r2[2], r3[2];
} tr_tables;

TARGET_AVX512 static tr_tables tr_tables_make(void) {
  int32_t t[6][16];
  for (int l = 0; l < 16; l++) {
    t[0][l] = (l % 4) * 8 + l / 4;
    t[1][l] = t[0][l] + 4;
    int qq = l / 8, c8 = l % 8;
    t[2][l] = c8 < 4 ? qq * 4 + c8 : 16 + qq * 4 + c8 - 4;
    t[3][l] = t[2][l] + 8;
    t[4][l] = l < 8 ? l : l + 8;
    t[5][l] = t[4][l] + 8;
  }
  tr_tables tt;
  for (int x = 0; x < 2; x++) {
    tt.r1[x] = _mm512_loadu_si512(t[x]);
    tt.r2[x] = _mm512_loadu_si512(t[2 + x]);
    tt.r3[x] = _mm512_loadu_si512(t[4 + x]);
  }
  return tt;
}

/* Fractal (blk, jb) of B with its padding zeroed, as out[q] = {column c: its bytes 4q..4q+3}. */
TARGET_AVX512 static void b_quads(const isa_mm_int_job *j, const tr_tables *tt, uint32_t blk, uint32_t jb,
                                  __m512i out[8]) {
  const uint8_t *frac = j->b + ((size_t)blk * j->nb + jb) * ISA_MM_FRACTAL_BYTES;
  uint32_t kv = isa_mm_valid_k(j->k, blk, ISA_MM_K0_INT), nv = j->n - jb * ISA_MM_ROWS;
  __m512i z[8], w[8], x[8];
  for (int i = 0; i < 8; i++) { /* z[i]: columns 2i and 2i + 1 */
    __mmask64 lo = col_bytes_mask(2u * i, nv, kv), hi = col_bytes_mask(2u * i + 1, nv, kv);
    __mmask64 keep = lo | hi << 32;
    z[i] = _mm512_maskz_loadu_epi8(keep, frac + i * 64);
  }
  for (int p = 0; p < 4; p++)
    for (int h = 0; h < 2; h++) w[p * 2 + h] = _mm512_permutex2var_epi32(z[2 * p], tt->r1[h], z[2 * p + 1]);
  /* w[p·2 + h]: columns 4p..4p+3, quads 4h..4h+3 */
  for (int s = 0; s < 2; s++)
    for (int h = 0; h < 2; h++)
      for (int y = 0; y < 2; y++)
        x[s * 4 + h * 2 + y] =
            _mm512_permutex2var_epi32(w[(2 * s) * 2 + h], tt->r2[y], w[(2 * s + 1) * 2 + h]);
  /* x[s·4 + h·2 + y]: columns 8s..8s+7, quads 4h + 2y, 4h + 2y + 1 */
  for (int pair = 0; pair < 4; pair++)
    for (int e = 0; e < 2; e++)
      out[pair * 2 + e] = _mm512_permutex2var_epi32(x[pair], tt->r3[e], x[4 + pair]);
}

/* Stores row i of column block jb of C: its start value plus acc less corr (VNNI's column
 * correction, NULL: none), or the start value alone for a padding row (i >= m). */
INLINE TARGET_AVX512 void int_store(const isa_mm_int_job *j, uint32_t i, uint32_t jb, __m512i acc,
                                    const int32_t *corr) {
  uint8_t *row = j->c + isa_mm_c_row(j->mb, i, jb);
  __m512i v = j->start.accumulate ? _mm512_loadu_si512(row)
              : j->start.bias     ? _mm512_loadu_si512(j->start.bias + (size_t)jb * ISA_MM_ROWS)
                                  : _mm512_setzero_si512();
  if (i < j->m) {
    if (corr) acc = _mm512_sub_epi32(acc, _mm512_loadu_si512(corr + (size_t)jb * ISA_MM_ROWS));
    v = _mm512_add_epi32(v, acc);
  }
  _mm512_storeu_si512(row, v);
}

/* ---- AVX-512 VNNI: integers --------------------------------------------------------------- */

#define VNNI_R  8 /* rows per tile (divides 16: a tile stays in one fractal row) */
#define VNNI_NJ 3

INLINE TARGET_VNNI void vnni_tile(const isa_mm_int_job *j, const uint8_t *ax, const uint8_t *bq,
                                  const int32_t *corr, uint32_t i0, uint32_t jb0, const int nj) {
  __m512i acc[VNNI_R][VNNI_NJ];
#pragma GCC unroll 8
  for (int r = 0; r < VNNI_R; r++)
#pragma GCC unroll 3
    for (int x = 0; x < nj; x++) acc[r][x] = _mm512_setzero_si512();
  const uint8_t *arow =
      ax + (size_t)(i0 / ISA_MM_ROWS) * j->kb * ISA_MM_FRACTAL_BYTES + (size_t)(i0 % ISA_MM_ROWS) * 32;
  for (uint32_t blk = 0; blk < j->kb; blk++) {
    const uint8_t *ab = arow + (size_t)blk * ISA_MM_FRACTAL_BYTES;
    const uint8_t *bb = bq + (size_t)blk * 8 * j->nb * 64 + (size_t)jb0 * 64;
    for (int q = 0; q < 8; q++) {
      __m512i b[VNNI_NJ];
#pragma GCC unroll 3
      for (int x = 0; x < nj; x++) b[x] = _mm512_loadu_si512(bb + ((size_t)q * j->nb + x) * 64);
#pragma GCC unroll 8
      for (int r = 0; r < VNNI_R; r++) {
        __m512i a = _mm512_set1_epi32(load_i32(ab + r * 32 + q * 4));
#pragma GCC unroll 3
        for (int x = 0; x < nj; x++) acc[r][x] = _mm512_dpbusd_epi32(acc[r][x], a, b[x]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < VNNI_R; r++)
#pragma GCC unroll 3
    for (int x = 0; x < nj; x++) int_store(j, i0 + r, jb0 + x, acc[r][x], corr);
}

TARGET_VNNI static void vnni_int(const isa_mm_int_job *j) {
  size_t a_bytes = (size_t)j->mb * j->kb * ISA_MM_FRACTAL_BYTES;
  uint8_t *ax = j->scratch;                   /* A XOR 0x80 */
  uint8_t *bq = ax + isa_mm_align64(a_bytes); /* [blk][q][jb] of 64 bytes */
  int32_t *corr = (int32_t *)(void *)(bq + isa_mm_align64((size_t)j->kb * j->nb * ISA_MM_FRACTAL_BYTES));
  const __m512i flip = _mm512_set1_epi8((char)0x80), ones = _mm512_set1_epi8(1);
  for (size_t off = 0; off < a_bytes; off += 64)
    _mm512_storeu_si512(ax + off, _mm512_xor_si512(_mm512_loadu_si512(j->a + off), flip));
  tr_tables tt = tr_tables_make();
  for (uint32_t jb = 0; jb < j->nb; jb++) {
    __m512i colsum = _mm512_setzero_si512();
    for (uint32_t blk = 0; blk < j->kb; blk++) {
      __m512i quads[8];
      b_quads(j, &tt, blk, jb, quads);
      for (int q = 0; q < 8; q++) {
        colsum = _mm512_dpbusd_epi32(colsum, ones, quads[q]);
        _mm512_storeu_si512(bq + (((size_t)blk * 8 + q) * j->nb + jb) * 64, quads[q]);
      }
    }
    _mm512_storeu_si512(corr + (size_t)jb * ISA_MM_ROWS, _mm512_slli_epi32(colsum, 7)); /* 128·Σ b */
  }
  for (uint32_t i0 = 0; i0 < j->mb * ISA_MM_ROWS; i0 += VNNI_R)
    for (uint32_t jb0 = 0; jb0 < j->nb; jb0 += VNNI_NJ) {
      uint32_t left = j->nb - jb0;
      if (left >= 3)
        vnni_tile(j, ax, bq, corr, i0, jb0, 3);
      else if (left == 2)
        vnni_tile(j, ax, bq, corr, i0, jb0, 2);
      else
        vnni_tile(j, ax, bq, corr, i0, jb0, 1);
    }
}

/* ---- AVX-512 without VNNI: integers as int16 pairs ---------------------------------------- */

#define W16_R  8
#define W16_NJ 2

INLINE TARGET_AVX512 void w16_tile(const isa_mm_int_job *j, const uint8_t *a16, const uint8_t *bp,
                                   uint32_t i0, uint32_t jb0, const int nj) {
  size_t a_row = (size_t)j->kb * ISA_MM_K0_INT * 2; /* bytes per row of the int16 copy of A */
  __m512i acc[W16_R][W16_NJ];
#pragma GCC unroll 8
  for (int r = 0; r < W16_R; r++)
#pragma GCC unroll 2
    for (int x = 0; x < nj; x++) acc[r][x] = _mm512_setzero_si512();
  uint32_t pairs = j->kb * (ISA_MM_K0_INT / 2);
  for (uint32_t p = 0; p < pairs; p++) {
    __m512i b[W16_NJ];
#pragma GCC unroll 2
    for (int x = 0; x < nj; x++) b[x] = _mm512_loadu_si512(bp + ((size_t)p * j->nb + jb0 + x) * 64);
#pragma GCC unroll 8
    for (int r = 0; r < W16_R; r++) {
      __m512i a = _mm512_set1_epi32(load_i32(a16 + (i0 + r) * a_row + (size_t)p * 4));
#pragma GCC unroll 2
      for (int x = 0; x < nj; x++) acc[r][x] = _mm512_add_epi32(acc[r][x], _mm512_madd_epi16(a, b[x]));
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < W16_R; r++)
#pragma GCC unroll 2
    for (int x = 0; x < nj; x++) int_store(j, i0 + r, jb0 + x, acc[r][x], NULL);
}

TARGET_AVX512 static void avx512_int(const isa_mm_int_job *j) {
  size_t a_row = (size_t)j->kb * ISA_MM_K0_INT * 2;
  uint8_t *a16 = j->scratch;                                               /* [i][κ] int16 */
  uint8_t *bp = a16 + isa_mm_align64((size_t)j->mb * ISA_MM_ROWS * a_row); /* [pair][jb] of 64 bytes */
  for (uint32_t i = 0; i < j->mb * ISA_MM_ROWS; i++)
    for (uint32_t blk = 0; blk < j->kb; blk++) {
      const uint8_t *src =
          j->a + ((size_t)(i / ISA_MM_ROWS) * j->kb + blk) * ISA_MM_FRACTAL_BYTES + (i % ISA_MM_ROWS) * 32;
      __m512i w = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const void *)src));
      _mm512_storeu_si512(a16 + i * a_row + (size_t)blk * 64, w);
    }
  tr_tables tt = tr_tables_make();
  int32_t ev[16], od[16];
  for (int l = 0; l < 16; l++) { /* pairs 2q (even) and 2q + 1 of 16 columns from two widened halves */
    ev[l] = l < 8 ? 2 * l : 16 + 2 * (l - 8);
    od[l] = ev[l] + 1;
  }
  const __m512i even = _mm512_loadu_si512(ev), odd = _mm512_loadu_si512(od);
  for (uint32_t blk = 0; blk < j->kb; blk++)
    for (uint32_t jb = 0; jb < j->nb; jb++) {
      __m512i quads[8];
      b_quads(j, &tt, blk, jb, quads);
      for (int q = 0; q < 8; q++) {
        /* columns 0..7 and 8..15 widened: per column two int16 pairs (2q, 2q + 1) */
        __m512i lo = _mm512_cvtepi8_epi16(_mm512_castsi512_si256(quads[q]));
        __m512i hi = _mm512_cvtepi8_epi16(_mm512_extracti64x4_epi64(quads[q], 1));
        size_t p = (size_t)blk * (ISA_MM_K0_INT / 2) + 2 * q;
        _mm512_storeu_si512(bp + (p * j->nb + jb) * 64, _mm512_permutex2var_epi32(lo, even, hi));
        _mm512_storeu_si512(bp + ((p + 1) * j->nb + jb) * 64, _mm512_permutex2var_epi32(lo, odd, hi));
      }
    }
  for (uint32_t i0 = 0; i0 < j->mb * ISA_MM_ROWS; i0 += W16_R)
    for (uint32_t jb0 = 0; jb0 < j->nb; jb0 += W16_NJ) {
      if (j->nb - jb0 >= 2)
        w16_tile(j, a16, bp, i0, jb0, 2);
      else
        w16_tile(j, a16, bp, i0, jb0, 1);
    }
}

/* ---- AVX2: integers as int16 pairs ---------------------------------------------------------- */

#define AVX2_R 4

/* r[q] = column q of the 8 x 8 matrix of 32-bit lanes whose row i is r[i] (in place). */
INLINE TARGET_AVX2 void transpose8x8(__m256i r[8]) {
  __m256i t[8], u[8];
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) { /* per 128-bit lane L: rows 2i, 2i+1 at elements 4L, 4L+1 | 4L+2, 4L+3 */
    t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 2
  for (int i = 0; i < 2; i++) { /* u[4i + c], lane L: element 4L + c of rows 4i .. 4i + 3 */
    u[4 * i] = _mm256_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm256_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm256_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm256_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
#pragma GCC unroll 4
  for (int c = 0; c < 4; c++) { /* column c from the low lanes, column 4 + c from the high ones */
    r[c] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x20);
    r[4 + c] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x31);
  }
}

/* B's fractals as int16 pairs, bp[jb][pair][column 16][2]: pair p of a k-block is its elements
 * 2p and 2p + 1, and a column block's pairs are contiguous (64 bytes each, read in order by the
 * tiles; with the column blocks innermost, a 1 KiB stride kept a tile's B lines in a few L1
 * sets). Each column's 32 bytes widen to 16 pairs (32-bit lanes), and a fractal's 16 columns x
 * 16 pairs are transposed so that a pair's 16 columns are contiguous. Columns j >= n and
 * elements κ >= k become zero (the buffers may hold anything there). */
TARGET_AVX2 static void avx2_int_pack_b(const isa_mm_int_job *j, int16_t *bp) {
  size_t pairs = (size_t)j->kb * (ISA_MM_K0_INT / 2);
  const __m256i lane = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                        21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
  for (uint32_t blk = 0; blk < j->kb; blk++) {
    uint32_t kv = isa_mm_valid_k(j->k, blk, ISA_MM_K0_INT);
    const __m256i kmask = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)kv), lane); /* bytes t < kv */
    for (uint32_t jb = 0; jb < j->nb; jb++) {
      const uint8_t *frac = j->b + ((size_t)blk * j->nb + jb) * ISA_MM_FRACTAL_BYTES;
      uint32_t nv = j->n - jb * ISA_MM_ROWS; /* jb < nb: at least one valid column */
      __m256i lo[ISA_MM_ROWS], hi[ISA_MM_ROWS]; /* column c: pairs 0..7, pairs 8..15 */
#pragma GCC unroll 16
      for (uint32_t c = 0; c < ISA_MM_ROWS; c++) {
        __m256i raw = c < nv ? _mm256_and_si256(_mm256_loadu_si256((const void *)(frac + c * 32)), kmask)
                             : _mm256_setzero_si256();
        lo[c] = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(raw));
        hi[c] = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(raw, 1));
      }
      for (uint32_t h = 0; h < 2; h++)   /* pairs 8h .. 8h + 7 */
        for (uint32_t g = 0; g < 2; g++) { /* columns 8g .. 8g + 7 */
          __m256i r[8];
#pragma GCC unroll 8
          for (int i = 0; i < 8; i++) r[i] = h ? hi[8 * g + (uint32_t)i] : lo[8 * g + (uint32_t)i];
          transpose8x8(r);
#pragma GCC unroll 8
          for (uint32_t q = 0; q < 8; q++) {
            size_t p = (size_t)blk * (ISA_MM_K0_INT / 2) + 8 * h + q;
            _mm256_storeu_si256((void *)(bp + ((jb * pairs + p) * ISA_MM_ROWS + 8 * g) * 2), r[q]);
          }
        }
    }
  }
}

TARGET_AVX2 static void avx2_int(const isa_mm_int_job *j) {
  size_t a_row = (size_t)j->kb * ISA_MM_K0_INT * 2;
  uint8_t *a16 = j->scratch;
  int16_t *bp =
      (int16_t *)(void *)(a16 + isa_mm_align64((size_t)j->mb * ISA_MM_ROWS * a_row)); /* [jb][pair][16][2] */
  for (uint32_t i = 0; i < j->mb * ISA_MM_ROWS; i++)
    for (uint32_t blk = 0; blk < j->kb; blk++) {
      const uint8_t *src =
          j->a + ((size_t)(i / ISA_MM_ROWS) * j->kb + blk) * ISA_MM_FRACTAL_BYTES + (i % ISA_MM_ROWS) * 32;
      uint8_t *dst = a16 + i * a_row + (size_t)blk * 64;
      _mm256_storeu_si256((void *)dst, _mm256_cvtepi8_epi16(_mm_loadu_si128((const void *)src)));
      _mm256_storeu_si256((void *)(dst + 32),
                          _mm256_cvtepi8_epi16(_mm_loadu_si128((const void *)(src + 16))));
    }
  avx2_int_pack_b(j, bp);
  uint32_t pairs = j->kb * (ISA_MM_K0_INT / 2);
  for (uint32_t i0 = 0; i0 < j->mb * ISA_MM_ROWS; i0 += AVX2_R)
    for (uint32_t jb = 0; jb < j->nb; jb++) {
      __m256i acc[AVX2_R][2];
#pragma GCC unroll 4
      for (int r = 0; r < AVX2_R; r++) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
      for (uint32_t p = 0; p < pairs; p++) {
        const int16_t *b = bp + ((size_t)jb * pairs + p) * ISA_MM_ROWS * 2;
        __m256i b0 = _mm256_loadu_si256((const void *)b), b1 = _mm256_loadu_si256((const void *)(b + 16));
#pragma GCC unroll 4
        for (int r = 0; r < AVX2_R; r++) {
          __m256i a = _mm256_set1_epi32(load_i32(a16 + (i0 + r) * a_row + (size_t)p * 4));
          acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(a, b0));
          acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(a, b1));
        }
      }
#pragma GCC unroll 4
      for (int r = 0; r < AVX2_R; r++) {
        uint32_t i = i0 + r;
        uint8_t *crow = j->c + isa_mm_c_row(j->mb, i, jb);
        for (int h = 0; h < 2; h++) {
          __m256i v = j->start.accumulate ? _mm256_loadu_si256((const void *)(crow + 32 * h))
                      : j->start.bias
                          ? _mm256_loadu_si256((const void *)(j->start.bias + jb * ISA_MM_ROWS + 8 * h))
                          : _mm256_setzero_si256();
          if (i < j->m) v = _mm256_add_epi32(v, acc[r][h]);
          _mm256_storeu_si256((void *)(crow + 32 * h), v);
        }
      }
    }
}

/* ---- AVX2: float operands ------------------------------------------------------------------- */

/* Running span of vectors of 16 raw values: per lane the largest and smallest E of the values
 * that count (0 and 0xFFFF while none has), and the lanes that saw Inf or NaN. */
typedef struct span256 {
  __m256i emax, emin, special;
} span256;

INLINE TARGET_AVX2 span256 span256_init(void) {
  span256 s = {_mm256_setzero_si256(), _mm256_set1_epi16(-1), _mm256_setzero_si256()};
  return s;
}

INLINE TARGET_AVX2 void span256_add(span256 *s, __m256i raw, unsigned mant) {
  __m256i mag = _mm256_and_si256(raw, _mm256_set1_epi16(0x7FFF));
  __m256i e = _mm256_srl_epi16(mag, _mm_cvtsi32_si128((int)mant));
  __m256i special = _mm256_cmpeq_epi16(e, _mm256_set1_epi16(mant == 10 ? 0x1F : 0xFF));
  __m256i skip = _mm256_or_si256(_mm256_cmpeq_epi16(mag, _mm256_setzero_si256()), special);
  __m256i big = _mm256_max_epu16(e, _mm256_set1_epi16(1));
  s->emax = _mm256_max_epu16(s->emax, _mm256_andnot_si256(skip, big)); /* skipped lanes: 0 */
  s->emin = _mm256_min_epu16(s->emin, _mm256_or_si256(skip, big));     /* skipped lanes: 0xFFFF */
  s->special = _mm256_or_si256(s->special, special);
}

INLINE TARGET_AVX2 isa_mm_span span256_done(const span256 *s) {
  __m128i mx = _mm_max_epu16(_mm256_castsi256_si128(s->emax), _mm256_extracti128_si256(s->emax, 1));
  __m128i mn = _mm_min_epu16(_mm256_castsi256_si128(s->emin), _mm256_extracti128_si256(s->emin, 1));
  /* phminposuw: the smallest word in the low one; the largest is the smallest of the complements */
  unsigned emax = 0xFFFFu & ~(unsigned)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(mx, _mm_set1_epi16(-1))));
  unsigned emin = 0xFFFFu & (unsigned)_mm_cvtsi128_si32(_mm_minpos_epu16(mn));
  isa_mm_span r = {(int16_t)emax, (int16_t)(emin == 0xFFFF ? 0x7FFF : emin),
                   (uint8_t)(!_mm256_testz_si256(s->special, s->special))};
  return r;
}

/* Word lanes [0, kv) set: the valid elements of a 16-element row. */
INLINE TARGET_AVX2 __m256i kv_mask(uint32_t kv) {
  const __m256i lane = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  return _mm256_cmpgt_epi16(_mm256_set1_epi16((short)kv), lane);
}

/* 8 raw values to floats, exactly. */
INLINE TARGET_AVX2 __m256 half8_to_ps(isa_dtype dt, __m128i raw) {
  if (dt == ISA_FP16) return _mm256_cvtph_ps(raw);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(raw), 16)); /* bf16: fp32's top half */
}

/* isa_mm_float_prepare_scalar's result. A row's 16 values of a k-block are 32 contiguous bytes
 * (4 rows: one span group, 128 bytes), and so is a column of a B fractal: every row or column is
 * one vector, masked to the valid shape, its span taken from the raw values and its doubles
 * from F16C (fp16) or a shift (bf16). B's columns are turned into rows of the double matrix by
 * 4 x 4 transposes of doubles. */
TARGET_AVX2 static void avx2_float_prepare(const isa_mm_float_job *j, const isa_mm_float_ops *o) {
  unsigned mant = isa_mm_mant_bits(j->dt);
  for (uint32_t g = 0; g < j->mb * (ISA_MM_ROWS / ISA_MM_SPAN_ROWS); g++)
    for (uint32_t blk = 0; blk < j->kb; blk++) {
      __m256i keep = kv_mask(isa_mm_valid_k(j->k, blk, ISA_MM_K0_FLOAT));
      uint32_t i0 = g * ISA_MM_SPAN_ROWS;
      const uint8_t *src =
          j->a + ((size_t)(i0 / ISA_MM_ROWS) * j->kb + blk) * ISA_MM_FRACTAL_BYTES + (i0 % ISA_MM_ROWS) * 32;
      span256 sp = span256_init();
#pragma GCC unroll 4
      for (uint32_t r = 0; r < ISA_MM_SPAN_ROWS; r++) {
        __m256i raw = i0 + r < j->m ? _mm256_and_si256(_mm256_loadu_si256((const void *)(src + 32 * r)), keep)
                                    : _mm256_setzero_si256();
        span256_add(&sp, raw, mant);
        double *dst = o->a + (size_t)(i0 + r) * o->a_stride + (size_t)blk * ISA_MM_K0_FLOAT;
        __m256 lo = half8_to_ps(j->dt, _mm256_castsi256_si128(raw));
        __m256 hi = half8_to_ps(j->dt, _mm256_extracti128_si256(raw, 1));
        _mm256_storeu_pd(dst, _mm256_cvtps_pd(_mm256_castps256_ps128(lo)));
        _mm256_storeu_pd(dst + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(lo, 1)));
        _mm256_storeu_pd(dst + 8, _mm256_cvtps_pd(_mm256_castps256_ps128(hi)));
        _mm256_storeu_pd(dst + 12, _mm256_cvtps_pd(_mm256_extractf128_ps(hi, 1)));
      }
      o->aspan[(size_t)g * j->kb + blk] = span256_done(&sp);
    }
  for (uint32_t blk = 0; blk < j->kb; blk++) {
    __m256i keep = kv_mask(isa_mm_valid_k(j->k, blk, ISA_MM_K0_FLOAT));
    for (uint32_t jb = 0; jb < j->nb; jb++) {
      const uint8_t *frac = j->b + ((size_t)blk * j->nb + jb) * ISA_MM_FRACTAL_BYTES;
      uint32_t nv = j->n - jb * ISA_MM_ROWS; /* valid columns (more than 16: all) */
      double *dst = o->b + (size_t)blk * ISA_MM_K0_FLOAT * o->b_stride + (size_t)jb * ISA_MM_ROWS;
      span256 sp = span256_init();
      for (uint32_t c4 = 0; c4 < ISA_MM_ROWS; c4 += 4) { /* columns c4 .. c4 + 3 */
        __m256 f[4][2];                                  /* column c4 + x: its values 0..7, 8..15 */
#pragma GCC unroll 4
        for (uint32_t x = 0; x < 4; x++) {
          const void *col = frac + 32 * (c4 + x);
          __m256i raw = c4 + x < nv ? _mm256_and_si256(_mm256_loadu_si256(col), keep) : _mm256_setzero_si256();
          span256_add(&sp, raw, mant);
          f[x][0] = half8_to_ps(j->dt, _mm256_castsi256_si128(raw));
          f[x][1] = half8_to_ps(j->dt, _mm256_extracti128_si256(raw, 1));
        }
#pragma GCC unroll 4
        for (uint32_t q = 0; q < 4; q++) { /* values 4q .. 4q + 3 of the four columns */
          __m256d v[4];
#pragma GCC unroll 4
          for (uint32_t x = 0; x < 4; x++)
            v[x] = _mm256_cvtps_pd(q % 2 ? _mm256_extractf128_ps(f[x][q / 2], 1)
                                         : _mm256_castps256_ps128(f[x][q / 2]));
          /* v[x][y] = column c4 + x, value 4q + y  ->  row 4q + y: the four columns */
          __m256d t0 = _mm256_unpacklo_pd(v[0], v[1]), t1 = _mm256_unpackhi_pd(v[0], v[1]);
          __m256d t2 = _mm256_unpacklo_pd(v[2], v[3]), t3 = _mm256_unpackhi_pd(v[2], v[3]);
          double *row = dst + (size_t)(4 * q) * o->b_stride + c4;
          _mm256_storeu_pd(row, _mm256_permute2f128_pd(t0, t2, 0x20));
          _mm256_storeu_pd(row + o->b_stride, _mm256_permute2f128_pd(t1, t3, 0x20));
          _mm256_storeu_pd(row + 2 * o->b_stride, _mm256_permute2f128_pd(t0, t2, 0x31));
          _mm256_storeu_pd(row + 3 * o->b_stride, _mm256_permute2f128_pd(t1, t3, 0x31));
        }
      }
      o->bspan[(size_t)blk * j->nb + jb] = span256_done(&sp);
    }
  }
}

/* ---- AVX-512: float operands ------------------------------------------------------------------ */

/* Words of 16-bit element lanes [0, kv) of each 16-lane half whose row is valid. */
static inline __mmask32 half_rows_mask(uint32_t kv, bool first, bool second) {
  uint32_t km = kv >= 16 ? 0xFFFFu : (1u << kv) - 1u;
  return (__mmask32)((first ? km : 0u) | (second ? km : 0u) << 16);
}

/* Running span of vectors of raw values: per lane the largest and smallest E of the values that
 * count, and whether any lane saw Inf or NaN. */
typedef struct span512 {
  __m512i emax, emin;
  __mmask32 special;
} span512;

INLINE TARGET_AVX512 span512 span512_init(void) {
  span512 s = {_mm512_setzero_si512(), _mm512_set1_epi16(-1), 0};
  return s;
}

INLINE TARGET_AVX512 void span512_add(span512 *s, __m512i raw, unsigned mant) {
  __m512i mag = _mm512_and_si512(raw, _mm512_set1_epi16(0x7FFF));
  __m512i e = _mm512_srl_epi16(mag, _mm_cvtsi32_si128((int)mant));
  __mmask32 special = _mm512_cmpeq_epi16_mask(e, _mm512_set1_epi16(mant == 10 ? 0x1F : 0xFF));
  __mmask32 counts = _mm512_test_epi16_mask(mag, mag) & ~special;
  __m512i big = _mm512_max_epu16(e, _mm512_set1_epi16(1));
  s->emax = _mm512_mask_max_epu16(s->emax, counts, s->emax, big);
  s->emin = _mm512_mask_min_epu16(s->emin, counts, s->emin, big);
  s->special |= special;
}

INLINE TARGET_AVX512 isa_mm_span span512_done(const span512 *s) {
  __m512i mx = _mm512_max_epu32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(s->emax)),
                                _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(s->emax, 1)));
  __m512i mn = _mm512_min_epu32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(s->emin)),
                                _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(s->emin, 1)));
  unsigned emax = _mm512_reduce_max_epu32(mx), emin = _mm512_reduce_min_epu32(mn);
  isa_mm_span r = {(int16_t)emax, (int16_t)(emin == 0xFFFF ? 0x7FFF : emin), (uint8_t)(s->special != 0)};
  return r;
}

/* 16 raw values (a 256-bit half) to floats, exactly. */
INLINE TARGET_AVX512 __m512 half16_to_ps(isa_dtype dt, __m256i raw) {
  if (dt == ISA_FP16) return _mm512_cvtph_ps(raw);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(raw), 16));
}

/* 16 floats stored as 16 doubles. */
INLINE TARGET_AVX512 void store_pd16(double *dst, __m512 f) {
  _mm512_storeu_pd(dst, _mm512_cvtps_pd(_mm512_castps512_ps256(f)));
  _mm512_storeu_pd(dst + 8,
                   _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1))));
}

/* r[c] = column c of the 16 x 16 matrix of 32-bit lanes whose row i is r[i] (in place). */
INLINE TARGET_AVX512 void transpose16x16(__m512i r[16]) {
  __m512i t[16], u[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++) { /* per 128-bit lane L: (r2i, r2i+1) x elements 4L, 4L+1 | 4L+2, 4L+3 */
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) { /* u[4i + c], lane L: element 4L + c of rows 4i..4i+3 */
    u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
#pragma GCC unroll 4
  for (int c = 0; c < 4; c++) { /* column 4L + c: lane L of u[c], u[4 + c], u[8 + c], u[12 + c] */
    __m512i x0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x44), x1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xEE);
    __m512i x2 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x44),
            x3 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xEE);
    r[c] = _mm512_shuffle_i32x4(x0, x2, 0x88);
    r[4 + c] = _mm512_shuffle_i32x4(x0, x2, 0xDD);
    r[8 + c] = _mm512_shuffle_i32x4(x1, x3, 0x88);
    r[12 + c] = _mm512_shuffle_i32x4(x1, x3, 0xDD);
  }
}

TARGET_AVX512 static void avx512_float_prepare(const isa_mm_float_job *j, const isa_mm_float_ops *o) {
  unsigned mant = isa_mm_mant_bits(j->dt);
  /* A: a group of 4 rows is 128 contiguous bytes of one fractal */
  for (uint32_t g = 0; g < j->mb * (ISA_MM_ROWS / ISA_MM_SPAN_ROWS); g++)
    for (uint32_t blk = 0; blk < j->kb; blk++) {
      uint32_t i0 = g * ISA_MM_SPAN_ROWS;
      uint32_t kv = isa_mm_valid_k(j->k, blk, ISA_MM_K0_FLOAT);
      const uint8_t *src =
          j->a + ((size_t)(i0 / ISA_MM_ROWS) * j->kb + blk) * ISA_MM_FRACTAL_BYTES + (i0 % ISA_MM_ROWS) * 32;
      span512 sp = span512_init();
      for (uint32_t h = 0; h < 2; h++) { /* rows i0 + 2h, i0 + 2h + 1 */
        uint32_t i = i0 + 2 * h;
        __m512i raw = _mm512_maskz_loadu_epi16(half_rows_mask(kv, i < j->m, i + 1 < j->m), src + 64 * h);
        span512_add(&sp, raw, mant);
        store_pd16(o->a + (size_t)i * o->a_stride + (size_t)blk * ISA_MM_K0_FLOAT,
                   half16_to_ps(j->dt, _mm512_castsi512_si256(raw)));
        store_pd16(o->a + (size_t)(i + 1) * o->a_stride + (size_t)blk * ISA_MM_K0_FLOAT,
                   half16_to_ps(j->dt, _mm512_extracti64x4_epi64(raw, 1)));
      }
      o->aspan[(size_t)g * j->kb + blk] = span512_done(&sp);
    }
  /* B: each fractal's 16 columns of 16 values, transposed into 16 rows of the double matrix */
  for (uint32_t blk = 0; blk < j->kb; blk++) {
    uint32_t kv = isa_mm_valid_k(j->k, blk, ISA_MM_K0_FLOAT);
    for (uint32_t jb = 0; jb < j->nb; jb++) {
      const uint8_t *frac = j->b + ((size_t)blk * j->nb + jb) * ISA_MM_FRACTAL_BYTES;
      uint32_t nv = j->n - jb * ISA_MM_ROWS;
      span512 sp = span512_init();
      __m512i cols[16];
#pragma GCC unroll 8
      for (uint32_t h = 0; h < 8; h++) { /* columns 2h, 2h + 1 */
        __m512i raw = _mm512_maskz_loadu_epi16(half_rows_mask(kv, 2 * h < nv, 2 * h + 1 < nv), frac + 64 * h);
        span512_add(&sp, raw, mant);
        cols[2 * h] = _mm512_castps_si512(half16_to_ps(j->dt, _mm512_castsi512_si256(raw)));
        cols[2 * h + 1] = _mm512_castps_si512(half16_to_ps(j->dt, _mm512_extracti64x4_epi64(raw, 1)));
      }
      o->bspan[(size_t)blk * j->nb + jb] = span512_done(&sp);
      transpose16x16(cols);
#pragma GCC unroll 16
      for (uint32_t t = 0; t < ISA_MM_K0_FLOAT; t++)
        store_pd16(o->b + ((size_t)blk * ISA_MM_K0_FLOAT + t) * o->b_stride + (size_t)jb * ISA_MM_ROWS,
                   _mm512_castsi512_ps(cols[t]));
    }
  }
}

/* The span of the tile's A rows and B column blocks in k-block blk. */
static inline bool tile_fast(const isa_mm_float_job *j, const isa_mm_float_ops *o, uint32_t i0, uint32_t jb0,
                             int nj, uint32_t blk) {
  isa_mm_span sa = o->aspan[(size_t)(i0 / ISA_MM_SPAN_ROWS) * j->kb + blk];
  isa_mm_span sb = o->bspan[(size_t)blk * j->nb + jb0];
  for (int x = 1; x < nj; x++) isa_mm_span_merge(&sb, o->bspan[(size_t)blk * j->nb + jb0 + x]);
  return isa_mm_float_fast_ok(sa, sb, isa_mm_mant_bits(j->dt));
}

/* ---- AVX-512: floats ---------------------------------------------------------------------------- */

#define F512_R  4 /* = ISA_MM_SPAN_ROWS: a tile's rows share one span */
#define F512_NJ 2

/* The start values of C row i, column block jb, as floats. */
INLINE TARGET_AVX512 __m512 f512_start(const isa_mm_float_job *j, uint32_t i, uint32_t jb) {
  if (j->start.accumulate) return _mm512_loadu_ps(j->c + isa_mm_c_row(j->mb, i, jb));
  if (j->start.bias) return _mm512_loadu_ps(j->start.bias + (size_t)jb * ISA_MM_ROWS);
  return _mm512_setzero_ps();
}

/* 16 doubles rounded to floats (nearest even), as one vector. */
INLINE TARGET_AVX512 __m512 f512_round(__m512d lo, __m512d hi) {
  __m512d both = _mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)));
  return _mm512_castpd_ps(_mm512_insertf64x4(both, _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
}

INLINE TARGET_AVX512 void f512_tile(const isa_mm_float_job *j, const isa_mm_float_ops *o, uint32_t i0,
                                    uint32_t jb0, const int nj) {
  __m512 acc[F512_R][F512_NJ];
#pragma GCC unroll 4
  for (int r = 0; r < F512_R; r++)
#pragma GCC unroll 2
    for (int x = 0; x < nj; x++) acc[r][x] = f512_start(j, i0 + r, jb0 + x);
  for (uint32_t blk = 0; blk < j->kb; blk++) {
    if (tile_fast(j, o, i0, jb0, nj, blk)) {
      __m512d d[F512_R][2 * F512_NJ];
#pragma GCC unroll 4
      for (int r = 0; r < F512_R; r++)
#pragma GCC unroll 4
        for (int x = 0; x < 2 * nj; x++) d[r][x] = _mm512_setzero_pd();
      const double *ap = o->a + (size_t)i0 * o->a_stride + (size_t)blk * ISA_MM_K0_FLOAT;
      const double *bp = o->b + (size_t)blk * ISA_MM_K0_FLOAT * o->b_stride + (size_t)jb0 * ISA_MM_ROWS;
      for (int t = 0; t < (int)ISA_MM_K0_FLOAT; t++) {
        __m512d b[2 * F512_NJ];
#pragma GCC unroll 4
        for (int x = 0; x < 2 * nj; x++) b[x] = _mm512_loadu_pd(bp + t * o->b_stride + 8 * x);
#pragma GCC unroll 4
        for (int r = 0; r < F512_R; r++) {
          __m512d a = _mm512_set1_pd(ap[r * o->a_stride + t]);
#pragma GCC unroll 4
          for (int x = 0; x < 2 * nj; x++) d[r][x] = _mm512_fmadd_pd(a, b[x], d[r][x]);
        }
      }
#pragma GCC unroll 4
      for (int r = 0; r < F512_R; r++)
#pragma GCC unroll 2
        for (int x = 0; x < nj; x++)
          acc[r][x] = _mm512_add_ps(acc[r][x], f512_round(d[r][2 * x], d[r][2 * x + 1]));
    } else {
      float sums[F512_R][F512_NJ * ISA_MM_ROWS];
      isa_mm_float_slow_block(j, o, i0, F512_R, jb0 * ISA_MM_ROWS, (uint32_t)nj * ISA_MM_ROWS, blk, &sums[0][0],
                              F512_NJ * ISA_MM_ROWS);
#pragma GCC unroll 4
      for (int r = 0; r < F512_R; r++)
#pragma GCC unroll 2
        for (int x = 0; x < nj; x++)
          acc[r][x] = _mm512_add_ps(acc[r][x], _mm512_loadu_ps(&sums[r][x * ISA_MM_ROWS]));
    }
  }
  const __m512 qnan = _mm512_castsi512_ps(_mm512_set1_epi32((int)ISA_F32_QNAN_BITS));
#pragma GCC unroll 4
  for (int r = 0; r < F512_R; r++)
#pragma GCC unroll 2
    for (int x = 0; x < nj; x++) {
      __mmask16 nan = _mm512_cmp_ps_mask(acc[r][x], acc[r][x], _CMP_UNORD_Q);
      _mm512_storeu_ps(j->c + isa_mm_c_row(j->mb, i0 + r, jb0 + x), _mm512_mask_mov_ps(acc[r][x], nan, qnan));
    }
}

TARGET_AVX512 static void avx512_float(const isa_mm_float_job *j) {
  isa_mm_float_ops o = isa_mm_float_ops_carve(j);
  avx512_float_prepare(j, &o);
  /* a strip of B's columns (F512_NJ blocks over all of K: 32 KiB at k = 128) stays in the L1
   * cache while every row of A passes over it */
  for (uint32_t jb0 = 0; jb0 < j->nb; jb0 += F512_NJ)
    for (uint32_t i0 = 0; i0 < j->mb * ISA_MM_ROWS; i0 += F512_R) {
      if (j->nb - jb0 >= 2)
        f512_tile(j, &o, i0, jb0, 2);
      else
        f512_tile(j, &o, i0, jb0, 1);
    }
}

/* ---- AVX2: floats ------------------------------------------------------------------------------- */

/* A tile is one span group of rows (ISA_MM_SPAN_ROWS = 4) by up to F256_NQ quads of 4 columns:
 * its 4 x 3 double accumulators (one quad each), one quad of B per column group and one broadcast
 * of A fill the 16 registers, and per k step the 12 FMAs need 3 loads of B and 4 broadcasts. The
 * quads start at multiples of 4 columns, so a tile may straddle two column blocks; the fp32 sums
 * stay in C itself, which takes each k-block's sums rounded, in increasing k. */
#define F256_NQ 3

INLINE TARGET_AVX2 void f256_tile(const isa_mm_float_job *j, const isa_mm_float_ops *o, uint32_t i0,
                                  uint32_t c0, const int nq) {
  unsigned mant = isa_mm_mant_bits(j->dt);
  uint32_t jb_lo = c0 / ISA_MM_ROWS, jb_hi = (c0 + 4 * (uint32_t)nq - 1) / ISA_MM_ROWS;
  const isa_mm_span *aspan = o->aspan + (size_t)(i0 / ISA_MM_SPAN_ROWS) * j->kb;
  float *cq[F256_NQ]; /* C at row i0, quad x; row i0 + r is 16·r floats on (one fractal row) */
#pragma GCC unroll 3
  for (int x = 0; x < nq; x++) {
    uint32_t c = c0 + 4 * (uint32_t)x;
    cq[x] = (float *)(void *)(j->c + isa_mm_c_row(j->mb, i0, c / ISA_MM_ROWS)) + c % ISA_MM_ROWS;
  }
  if (!j->start.accumulate)
#pragma GCC unroll 4
    for (int r = 0; r < (int)ISA_MM_SPAN_ROWS; r++)
#pragma GCC unroll 3
      for (int x = 0; x < nq; x++)
        _mm_storeu_ps(cq[x] + 16 * r,
                      j->start.bias ? _mm_loadu_ps((const float *)(const void *)(j->start.bias + c0 + 4 * x))
                                    : _mm_setzero_ps());
  for (uint32_t blk = 0; blk < j->kb; blk++) {
    bool fast = isa_mm_float_fast_ok(aspan[blk], o->bspan[(size_t)blk * j->nb + jb_lo], mant) &&
                (jb_hi == jb_lo || isa_mm_float_fast_ok(aspan[blk], o->bspan[(size_t)blk * j->nb + jb_hi], mant));
    if (fast) {
      __m256d d[ISA_MM_SPAN_ROWS][F256_NQ];
#pragma GCC unroll 4
      for (int r = 0; r < (int)ISA_MM_SPAN_ROWS; r++)
#pragma GCC unroll 3
        for (int x = 0; x < nq; x++) d[r][x] = _mm256_setzero_pd();
      const double *ar[ISA_MM_SPAN_ROWS]; /* the rows' k-blocks: broadcasts at fixed offsets */
#pragma GCC unroll 4
      for (int r = 0; r < (int)ISA_MM_SPAN_ROWS; r++)
        ar[r] = o->a + (size_t)(i0 + (uint32_t)r) * o->a_stride + (size_t)blk * ISA_MM_K0_FLOAT;
      const double *bp = o->b + (size_t)blk * ISA_MM_K0_FLOAT * o->b_stride + c0;
#pragma GCC unroll 16
      for (int t = 0; t < (int)ISA_MM_K0_FLOAT; t++, bp += o->b_stride) {
        __m256d b[F256_NQ];
#pragma GCC unroll 3
        for (int x = 0; x < nq; x++) b[x] = _mm256_loadu_pd(bp + 4 * x);
#pragma GCC unroll 4
        for (int r = 0; r < (int)ISA_MM_SPAN_ROWS; r++) {
          __m256d a = _mm256_broadcast_sd(ar[r] + t);
#pragma GCC unroll 3
          for (int x = 0; x < nq; x++) d[r][x] = _mm256_fmadd_pd(a, b[x], d[r][x]);
        }
      }
#pragma GCC unroll 4
      for (int r = 0; r < (int)ISA_MM_SPAN_ROWS; r++)
#pragma GCC unroll 3
        for (int x = 0; x < nq; x++) {
          float *p = cq[x] + 16 * r;
          _mm_storeu_ps(p, _mm_add_ps(_mm_loadu_ps(p), _mm256_cvtpd_ps(d[r][x])));
        }
    } else {
      float sums[ISA_MM_SPAN_ROWS][4 * F256_NQ];
      isa_mm_float_slow_block(j, o, i0, ISA_MM_SPAN_ROWS, c0, 4 * (uint32_t)nq, blk, &sums[0][0], 4 * F256_NQ);
#pragma GCC unroll 4
      for (int r = 0; r < (int)ISA_MM_SPAN_ROWS; r++)
#pragma GCC unroll 3
        for (int x = 0; x < nq; x++) {
          float *p = cq[x] + 16 * r;
          _mm_storeu_ps(p, _mm_add_ps(_mm_loadu_ps(p), _mm_loadu_ps(&sums[r][4 * x])));
        }
    }
  }
  const __m128 qnan = _mm_castsi128_ps(_mm_set1_epi32((int)ISA_F32_QNAN_BITS));
#pragma GCC unroll 4
  for (int r = 0; r < (int)ISA_MM_SPAN_ROWS; r++)
#pragma GCC unroll 3
    for (int x = 0; x < nq; x++) {
      float *p = cq[x] + 16 * r;
      __m128 v = _mm_loadu_ps(p);
      _mm_storeu_ps(p, _mm_blendv_ps(v, qnan, _mm_cmpunord_ps(v, v)));
    }
}

TARGET_AVX2 static void avx2_float(const isa_mm_float_job *j) {
  isa_mm_float_ops o = isa_mm_float_ops_carve(j);
  avx2_float_prepare(j, &o);
  /* a strip of B's columns (12 over all of K: 12 KiB at k = 128) stays in the L1 cache while
   * every row of A passes over it; the last 16 columns go as 8 + 8 rather than 12 + 4 */
  uint32_t quads = j->nb * (ISA_MM_ROWS / 4);
  for (uint32_t x0 = 0; x0 < quads;) {
    uint32_t left = quads - x0;
    int nq = left == 4 || left == 2 ? 2 : left >= 3 ? 3 : 1;
    for (uint32_t i0 = 0; i0 < j->mb * ISA_MM_ROWS; i0 += ISA_MM_SPAN_ROWS) {
      if (nq == 3)
        f256_tile(j, &o, i0, 4 * x0, 3);
      else if (nq == 2)
        f256_tile(j, &o, i0, 4 * x0, 2);
      else
        f256_tile(j, &o, i0, 4 * x0, 1);
    }
    x0 += (uint32_t)nq;
  }
}

/* ---- load2d's squares ------------------------------------------------------------------------ */

/* v shifted by `bytes` (1, 2, 4 or 8) within each 128-bit lane: towards higher bytes (up) or
 * lower ones. */
INLINE TARGET_AVX2 __m256i lane_shift(__m256i v, unsigned bytes, bool up) {
  switch (bytes) {
    case 1:
      return up ? _mm256_slli_si256(v, 1) : _mm256_srli_si256(v, 1);
    case 2:
      return up ? _mm256_slli_si256(v, 2) : _mm256_srli_si256(v, 2);
    case 4:
      return up ? _mm256_slli_si256(v, 4) : _mm256_srli_si256(v, 4);
    default:
      return up ? _mm256_slli_si256(v, 8) : _mm256_srli_si256(v, 8);
  }
}

/* The square transposed by swapping blocks: for s = 1, 2, 4, ... elements, each pair of rows
 * (i, i + s) with i & s = 0 trades its elements at columns c with c & s set in row i for those
 * at c - s in row i + s; after every s the square is transposed. One row is one register: below
 * 16 bytes a trade is two byte shifts within the 128-bit lanes and two blends, at 16 bytes it
 * swaps lanes. int4 squares take the portable loop. */
/* One round of avx2_transpose_es: rows i and i + s (bit s of i clear) swap the elements whose
 * column has bit s set within each 128-bit lane. */
INLINE TARGET_AVX2 void transpose_round(__m256i r[32], const unsigned es, const unsigned s) {
  uint8_t sel[32]; /* the bytes of the columns with bit s set */
#pragma GCC unroll 32
  for (unsigned b = 0; b < 32; b++) sel[b] = (b / es) & s ? 0xFF : 0;
  const __m256i mask = _mm256_loadu_si256((const void *)sel);
#pragma GCC unroll 32
  for (unsigned i = 0; i < 32; i++) { /* the pairs: i has bit s clear */
    if (i + s >= 32 / es || (i & s)) continue;
    __m256i lo = r[i], hi = r[i + s];
    r[i] = _mm256_blendv_epi8(lo, lane_shift(hi, s * es, true), mask);
    r[i + s] = _mm256_blendv_epi8(lane_shift(lo, s * es, false), hi, mask);
  }
}

/* The square of es-byte elements (es = 1 or 2: 32 x 32 bytes or 16 x 16 words), es a constant
 * where it is inlined, so that every loop unrolls, every shift is an immediate and the masks are
 * constants: rounds s = 1, 2, 4 (, 8) within the 128-bit lanes, then the lanes' halves swapped. */
INLINE TARGET_AVX2 void avx2_transpose_es(uint8_t *dst, const uint8_t *src, const unsigned es) {
  const unsigned rows = 32 / es, h = 16 / es;
  __m256i r[32];
#pragma GCC unroll 32
  for (unsigned i = 0; i < rows; i++) r[i] = _mm256_loadu_si256((const void *)(src + 32 * i));
  transpose_round(r, es, 1);
  transpose_round(r, es, 2);
  transpose_round(r, es, 4);
  if (es == 1) transpose_round(r, es, 8);
#pragma GCC unroll 16
  for (unsigned j = 0; j < h; j++) { /* i = j, i + h: the pairs of the halves */
    __m256i lo = r[j], hi = r[j + h];
    r[j] = _mm256_permute2x128_si256(lo, hi, 0x20);
    r[j + h] = _mm256_permute2x128_si256(lo, hi, 0x31);
  }
#pragma GCC unroll 32
  for (unsigned i = 0; i < rows; i++) _mm256_storeu_si256((void *)(dst + 32 * i), r[i]);
}

TARGET_AVX2 static void avx2_transpose(uint8_t *dst, const uint8_t *src, unsigned bits) {
  if (bits == 8) avx2_transpose_es(dst, src, 1);
  else if (bits == 16) avx2_transpose_es(dst, src, 2);
  else isa_load2d_transpose_scalar(dst, src, bits);
}

/* ---- load2d's squares with AVX-512 BW --------------------------------------------------------- */

/* The 16 x 16 transpose of 16-bit elements held as x[k] = rows 2k, 2k + 1 (32 words), into the
 * same form, in three rounds over the bits of the register index: element (r, c) starts in
 * register r/2 at word (r%2)·16 + c and ends in register c/2 at word (c%2)·16 + r. Round 1 pairs
 * registers j, j + 4 and settles bit 2 (c's bit 3), keeping words (r3, r0, c2 c1 c0); round 2
 * pairs k, k + 2 and settles bit 1 (c2), keeping (r3, r2, r0, c1 c0); round 3 pairs d, d + 1 and
 * puts every word in place, (c0, r). Rounds 1 and 2 move whole 128- and 64-bit pieces. */
static const int64_t tr16_round2[2][8] = {{0, 2, 8, 10, 4, 6, 12, 14}, {1, 3, 9, 11, 5, 7, 13, 15}};
static const int16_t tr16_round3[2][32] = {
    {0, 4, 32, 36, 8, 12, 40, 44, 16, 20, 48, 52, 24, 28, 56, 60,
     1, 5, 33, 37, 9, 13, 41, 45, 17, 21, 49, 53, 25, 29, 57, 61},
    {2, 6, 34, 38, 10, 14, 42, 46, 18, 22, 50, 54, 26, 30, 58, 62,
     3, 7, 35, 39, 11, 15, 43, 47, 19, 23, 51, 55, 27, 31, 59, 63}};

INLINE TARGET_AVX512 void tr16_words(__m512i x[8]) {
  __m512i y[8], z[8];
  for (int j = 0; j < 8; j++) /* bit 2 of j picks lanes 0, 2 or 1, 3 of each source */
    y[j] = j & 4 ? _mm512_shuffle_i32x4(x[j & 3], x[(j & 3) | 4], 0xDD)
                 : _mm512_shuffle_i32x4(x[j & 3], x[(j & 3) | 4], 0x88);
  const __m512i q0 = _mm512_loadu_si512(tr16_round2[0]), q1 = _mm512_loadu_si512(tr16_round2[1]);
  for (int k = 0; k < 8; k++)
    z[k] = _mm512_permutex2var_epi64(y[k & 5], k & 2 ? q1 : q0, y[(k & 5) | 2]);
  const __m512i w0 = _mm512_loadu_si512(tr16_round3[0]), w1 = _mm512_loadu_si512(tr16_round3[1]);
  for (int d = 0; d < 8; d++) x[d] = _mm512_permutex2var_epi16(z[d & 6], d & 1 ? w1 : w0, z[(d & 6) | 1]);
}

/* 16-bit squares as above; 8-bit ones (32 x 32) as two: with rows x = 2I and y = 2I + 1, the
 * words (x[2J], y[2J]) make row I of an "even" 16 x 16 word matrix and (x[2J + 1], y[2J + 1])
 * row I of an "odd" one; row J of the transposed even matrix is then row 2J of the result, row J
 * of the odd one row 2J + 1. int4 squares take the portable loop. */
TARGET_AVX512 static void avx512_transpose(uint8_t *dst, const uint8_t *src, unsigned bits) {
  __m512i x[8];
  if (bits == 16) {
    for (int k = 0; k < 8; k++) x[k] = _mm512_loadu_si512(src + 64 * k);
    tr16_words(x);
    for (int k = 0; k < 8; k++) _mm512_storeu_si512(dst + 64 * k, x[k]);
    return;
  }
  if (bits != 8) {
    isa_load2d_transpose_scalar(dst, src, bits);
    return;
  }
  /* per 128-bit lane: even bytes, then odd ones */
  const __m512i split = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15));
  __m512i ev[8], od[8];
  for (int k = 0; k < 8; k++) { /* rows 4k .. 4k + 3: matrix rows I = 2k, 2k + 1 */
    __m512i a = _mm512_shuffle_epi8(_mm512_loadu_si512(src + 128 * k), split);      /* rows 4k, 4k + 1 */
    __m512i b = _mm512_shuffle_epi8(_mm512_loadu_si512(src + 128 * k + 64), split); /* rows 4k + 2, 4k + 3 */
    __m512i xs = _mm512_shuffle_i64x2(a, b, 0x44), ys = _mm512_shuffle_i64x2(a, b, 0xEE); /* rows 4k, 4k+2 | 4k+1, 4k+3 */
    ev[k] = _mm512_unpacklo_epi8(xs, ys);
    od[k] = _mm512_unpackhi_epi8(xs, ys);
  }
  tr16_words(ev);
  tr16_words(od);
  for (int k = 0; k < 8; k++) { /* ev[k], od[k]: rows 2k, 2k + 1 of each: result rows 4k .. 4k + 3 */
    _mm512_storeu_si512(dst + 128 * k, _mm512_shuffle_i64x2(ev[k], od[k], 0x44));
    _mm512_storeu_si512(dst + 128 * k + 64, _mm512_shuffle_i64x2(ev[k], od[k], 0xEE));
  }
}

const isa_hot isa_hot_avx2 = {avx2_int, avx2_float, avx2_transpose};
const isa_hot isa_hot_avx512 = {avx512_int, avx512_float, avx512_transpose};
const isa_hot isa_hot_avx512_vnni = {vnni_int, avx512_float, avx512_transpose};

#endif
