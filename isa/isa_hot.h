/* isa_hot — the functional model's hot loops, one set per host instruction set (isa/isa_kernel.h):
 * the cube's arithmetic (mmad) and load2d's transposes. Internal to isa/: isa_sem_mmad.c decodes
 * an mmad into a job and a set computes it; isa_sem_load2d.c hands a set its squares.
 *
 * Integer mmads reach a set as int8 fractals (int4 operands are unpacked to int8 first, so one
 * k-block of 64 int4 values becomes two k-blocks of 32), in the layouts of docs/ISA.md: A Zz
 * (row i, k-block b: 32 bytes at ((i/16)·kb + b)·512 + (i%16)·32) and B Zn (column j, k-block b:
 * 32 bytes at (b·nb + j/16)·512 + (j%16)·32). Elements at κ >= k, rows i >= m and columns j >= n
 * hold whatever the buffers held: kernels must not let them reach C.
 *
 * Float mmads (fp16, bf16) reach a set as the raw fractals (k0 = 16). Every set computes the same
 * bits: each k-block's 16 products summed exactly and rounded once to fp32, then added in fp32,
 * blocks in increasing k (docs/ISA.md). The fast way to that exact sum: when a block's products
 * are multiples of 2^q below 2^t with t - q <= ISA_MM_EXACT_SPAN, any order of double additions is
 * exact (16 terms below 2^(t+4) on a grid of 2^q need t - q + 4 <= 53 bits), so a plain double
 * dot product rounded to fp32 is the exact sum rounded once. isa_mm_float_fast_ok decides it from
 * the exponent ranges of A's rows and B's columns (isa_mm_span); the blocks it refuses (wide
 * ranges, Inf, NaN) go through isa_mm_float_slow_block, shared by every set.
 */
#ifndef ISA_HOT_H
#define ISA_HOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isa/isa_dtype.h"
#include "isa/isa_kernel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ISA_HOT_X86 1
#else
#define ISA_HOT_X86 0
#endif

#define ISA_MM_FRACTAL_BYTES   512u /* L0A / L0B fractal: 16 rows x 32 bytes */
#define ISA_MM_C_FRACTAL_BYTES 1024u
#define ISA_MM_ROWS            16u /* rows of every fractal: the M and N granularity */
#define ISA_MM_K0_INT          32u /* int8 elements per fractal row */
#define ISA_MM_K0_FLOAT        16u /* fp16 / bf16 elements per fractal row */
#define ISA_MM_EXACT_SPAN      49  /* see above */
#define ISA_MM_SPAN_ROWS       4u  /* A's exponent ranges are kept per group of this many rows */

/* How C starts (docs/ISA.md §mmad), common to both jobs. */
typedef struct isa_mm_start {
  bool accumulate;      /* init_c = 0: from C itself */
  const uint32_t *bias; /* else from this row of 16·nb values (bias_en; zero for j >= n) */
                        /* else (both unset) from zero */
} isa_mm_start;

typedef struct isa_mm_int_job {
  uint32_t m, n, k;     /* the valid shape (k in int8 elements: twice the int4 k) */
  uint32_t mb, nb, kb;  /* fractals along M and N; 32-element k-blocks */
  const uint8_t *a, *b; /* int8 Zz and Zn */
  uint8_t *c;           /* L0C, Nz, int32 little-endian */
  isa_mm_start start;
  void *scratch; /* ISA_MM_INT_SCRATCH_BYTES(job) bytes, 64-byte aligned */
} isa_mm_int_job;

/* Scratch an integer kernel may use: a copy of A and two of B, one int32 per column, and
 * room for alignment. */
#define ISA_MM_INT_SCRATCH_BYTES(j)                                                     \
  (2 * ((size_t)(j)->mb * (j)->kb + (size_t)(j)->kb * (j)->nb) * ISA_MM_FRACTAL_BYTES + \
   (size_t)(j)->nb * ISA_MM_ROWS * 4 + 256)

/* The exponent range of a set of fp16 / bf16 values: E = max(biased exponent, 1) over the
 * non-zero finite ones (so a value is a multiple of 2^(E - bias - mantissa bits) below
 * 2^(E - bias + 1)). */
typedef struct isa_mm_span {
  int16_t emax, emin; /* emax < emin: no non-zero finite value */
  uint8_t special;    /* some value is Inf or NaN */
} isa_mm_span;

typedef struct isa_mm_float_job {
  isa_dtype dt; /* ISA_FP16 or ISA_BF16 */
  uint32_t m, n, k;
  uint32_t mb, nb, kb;  /* 16-element k-blocks */
  const uint8_t *a, *b; /* raw Zz and Zn, 16-bit little-endian elements */
  uint8_t *c;           /* L0C, Nz, fp32 little-endian */
  isa_mm_start start;
  void *scratch; /* ISA_MM_FLOAT_SCRATCH_BYTES(job) bytes, 64-byte aligned */
} isa_mm_float_job;

/* Doubles per row of the operands' copies: one cache line more than the row, so that rows a
 * power of two apart in bytes (1 KiB at 128 columns) do not crowd into a few sets of the L1
 * cache as the kernels walk down a strip of columns. */
#define ISA_MM_FLOAT_A_STRIDE(j) ((size_t)(j)->kb * ISA_MM_K0_FLOAT + 8)
#define ISA_MM_FLOAT_B_STRIDE(j) ((size_t)(j)->nb * ISA_MM_ROWS + 8)

/* The operands as doubles (A: mb·16 rows x kb·16; B: kb·16 rows x nb·16, both zero outside
 * the valid shape, rows ISA_MM_FLOAT_A/B_STRIDE apart), A's spans per ISA_MM_SPAN_ROWS rows and
 * k-block, B's per k-block and column block, and alignment slack. */
#define ISA_MM_FLOAT_SCRATCH_BYTES(j)                                                           \
  (((size_t)(j)->mb * ISA_MM_ROWS * ISA_MM_FLOAT_A_STRIDE(j) +                                  \
    (size_t)(j)->kb * ISA_MM_K0_FLOAT * ISA_MM_FLOAT_B_STRIDE(j)) * sizeof(double) +            \
   ((size_t)(j)->mb * (ISA_MM_ROWS / ISA_MM_SPAN_ROWS) * (j)->kb + (size_t)(j)->kb * (j)->nb) * \
       sizeof(isa_mm_span) +                                                                    \
   256)

/* One set of hot loops. */
typedef struct isa_hot {
  void (*mmad_int)(const isa_mm_int_job *j);
  void (*mmad_float)(const isa_mm_float_job *j);
  /* dst = src^T for a row-major square of `bits`-bit elements with rows of 32 bytes (16: 16 x
   * 16, 8: 32 x 32, 4: 64 x 64 nibbles, element 0 of a byte in its low nibble). */
  void (*transpose)(uint8_t *dst, const uint8_t *src, unsigned bits);
} isa_hot;

/* The set of kernel k (a supported one; AUTO: the best), or of the workspace h (NULL: the best). */
const isa_hot *isa_hot_of(isa_kernel k);
const isa_hot *isa_hot_for(const isa_host *h);

extern const isa_hot isa_hot_scalar;
#if ISA_HOT_X86
extern const isa_hot isa_hot_avx2, isa_hot_avx512, isa_hot_avx512_vnni;
#endif

/* The portable square transpose (isa_sem_load2d.c). */
void isa_load2d_transpose_scalar(uint8_t *dst, const uint8_t *src, unsigned bits);

/* ---- shared by the kernels -------------------------------------------------------------- */

/* bytes rounded up to the scratch's alignment (64). */
static inline size_t isa_mm_align64(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* Elements of k-block blk (k0 each) inside k: k0, fewer in the last block, 0 beyond it (int4's
 * k-blocks, unpacked to twice as many, can end wholly beyond k). */
static inline uint32_t isa_mm_valid_k(uint32_t k, uint32_t blk, uint32_t k0) {
  return k <= blk * k0 ? 0 : k - blk * k0 < k0 ? k - blk * k0 : k0;
}

/* Mantissa bits of the float input type. */
static inline unsigned isa_mm_mant_bits(isa_dtype dt) { return dt == ISA_FP16 ? 10u : 7u; }

/* The span of `count` raw fp16 / bf16 values. */
static inline isa_mm_span isa_mm_span_of(const uint16_t *h, size_t count, unsigned mant_bits) {
  unsigned emask = mant_bits == 10 ? 0x1Fu : 0xFFu;
  unsigned emax = 0, emin = 0xFFFF, special = 0;
  for (size_t i = 0; i < count; i++) {
    unsigned mag = h[i] & 0x7FFFu, e = mag >> mant_bits;
    unsigned big = e > 1 ? e : 1;
    special |= e == emask;
    bool counts = mag != 0 && e != emask;
    unsigned hi = counts ? big : 0, lo = counts ? big : 0xFFFF;
    emax = hi > emax ? hi : emax;
    emin = lo < emin ? lo : emin;
  }
  isa_mm_span s = {(int16_t)emax, (int16_t)(emin == 0xFFFF ? 0x7FFF : emin), (uint8_t)special};
  return s;
}

/* Merges span b into a. */
static inline void isa_mm_span_merge(isa_mm_span *a, isa_mm_span b) {
  if (b.emax > a->emax) a->emax = b.emax;
  if (b.emin < a->emin) a->emin = b.emin;
  a->special |= b.special;
}

/* True if every block of products between values of spans a and b sums exactly in double. */
static inline bool isa_mm_float_fast_ok(isa_mm_span a, isa_mm_span b, unsigned mant_bits) {
  if (a.special || b.special) return false;
  if (a.emax < a.emin || b.emax < b.emin) return true; /* all products are zero */
  return (a.emax - a.emin) + (b.emax - b.emin) + 2 + 2 * (int)mant_bits <= ISA_MM_EXACT_SPAN;
}

/* The doubles and spans a float kernel works from, carved out of the job's scratch. */
typedef struct isa_mm_float_ops {
  double *a;                 /* [mb·16][kb·16] */
  double *b;                 /* [kb·16][nb·16]: row t of k-block kb at (kb·16 + t)·nb·16 */
  isa_mm_span *aspan;        /* [(mb·16 / ISA_MM_SPAN_ROWS)][kb] */
  isa_mm_span *bspan;        /* [kb][nb] */
  size_t a_stride, b_stride; /* doubles per row of a and of b */
} isa_mm_float_ops;

isa_mm_float_ops isa_mm_float_ops_carve(const isa_mm_float_job *j);

/* The portable operand preparation: doubles (zero outside the valid shape) and spans. */
void isa_mm_float_prepare_scalar(const isa_mm_float_job *j, const isa_mm_float_ops *o);

/* Block sums (each rounded once to fp32) of k-block kb for rows [i0, i0 + rows) and columns
 * [c0, c0 + cols) (any range, across column blocks or inside one), exactly as docs/ISA.md
 * defines them, into out[r·ldo + c - c0]; rows >= m and columns >= n give +0. For the blocks
 * isa_mm_float_fast_ok refuses. */
void isa_mm_float_slow_block(const isa_mm_float_job *j, const isa_mm_float_ops *o, uint32_t i0, uint32_t rows,
                             uint32_t c0, uint32_t cols, uint32_t kb, float *out, size_t ldo);

/* The start value of C(i, j) (raw 32 bits). */
static inline uint32_t isa_mm_start_bits(const isa_mm_start *s, const uint8_t *c_elem, uint32_t j) {
  if (s->accumulate)
    return (uint32_t)c_elem[0] | (uint32_t)c_elem[1] << 8 | (uint32_t)c_elem[2] << 16 |
           (uint32_t)c_elem[3] << 24;
  return s->bias ? s->bias[j] : 0u;
}

/* Byte offset in L0C of row i of column block jb (16 elements, 64 bytes). */
static inline size_t isa_mm_c_row(uint32_t mb, uint32_t i, uint32_t jb) {
  return ((size_t)jb * mb + i / ISA_MM_ROWS) * ISA_MM_C_FRACTAL_BYTES +
         (size_t)(i % ISA_MM_ROWS) * ISA_MM_ROWS * 4;
}

#endif
