/* isa_hot_scalar — the portable hot loops (isa/isa_hot.h): plain C, every host.
 *
 * The reference the other kernels are tested against, and still not slow: the operands are
 * widened once per instruction into plain arrays (A row-major, B by 16-column blocks, [nb][k][16])
 * and C is computed one 16-column block and one row at a time, 16 local accumulators over the
 * whole k loop, with a fixed inner trip count of 16 that compilers vectorise even at -O2.
 */
#include <stdint.h>
#include <string.h>

#include "isa/isa_fparith.h"
#include "isa/isa_hot.h"
#include "isa/isa_num.h"

/* Integer inputs: |Σ A·B| < 2^31 (int8: 4095 · 2^14), so the dot products are exact in int32;
 * adding them to the start value wraps modulo 2^32 (in uint32). Padding (κ >= k, columns >= n)
 * is zero in the widened arrays; rows >= m get a zero sum. */
static void scalar_int(const isa_mm_int_job *j) {
  size_t k = j->k, kp = (size_t)j->kb * ISA_MM_K0_INT;
  int16_t *ad = j->scratch;
  int16_t *bd = (int16_t *)(void *)((uint8_t *)j->scratch + isa_mm_align64((size_t)j->m * kp * sizeof *ad));
  for (uint32_t i = 0; i < j->m; i++)
    for (size_t kk = 0; kk < k; kk++)
      ad[i * kp + kk] =
          (int8_t)j->a[((size_t)(i / ISA_MM_ROWS) * j->kb + kk / ISA_MM_K0_INT) * ISA_MM_FRACTAL_BYTES +
                       (i % ISA_MM_ROWS) * 32 + kk % ISA_MM_K0_INT];
  for (uint32_t jb = 0; jb < j->nb; jb++)
    for (size_t kk = 0; kk < k; kk++)
      for (uint32_t c = 0; c < ISA_MM_ROWS; c++)
        bd[((size_t)jb * k + kk) * ISA_MM_ROWS + c] =
            jb * ISA_MM_ROWS + c < j->n
                ? (int8_t)j->b[((kk / ISA_MM_K0_INT) * j->nb + jb) * ISA_MM_FRACTAL_BYTES + c * 32 +
                               kk % ISA_MM_K0_INT]
                : 0;
  for (uint32_t jb = 0; jb < j->nb; jb++) {
    const int16_t *bblk = bd + (size_t)jb * k * ISA_MM_ROWS;
    for (uint32_t i = 0; i < j->mb * ISA_MM_ROWS; i++) {
      int32_t acc[ISA_MM_ROWS] = {0};
      if (i < j->m) {
        const int16_t *arow = ad + i * kp;
        for (size_t kk = 0; kk < k; kk++) {
          int32_t av = arow[kk];
          const int16_t *brow = bblk + kk * ISA_MM_ROWS;
          for (size_t c = 0; c < ISA_MM_ROWS; c++) acc[c] += av * brow[c];
        }
      }
      uint8_t *crow = j->c + isa_mm_c_row(j->mb, i, jb);
      for (uint32_t c = 0; c < ISA_MM_ROWS; c++)
        isa_le_store(crow + 4 * c,
                     isa_mm_start_bits(&j->start, crow + 4 * c, jb * ISA_MM_ROWS + c) + (uint32_t)acc[c], 4);
    }
  }
}

/* Float inputs: each (row, column block, k-block) is a 16-wide double dot product when
 * isa_mm_float_fast_ok allows, else the shared exact block sums. */
static void scalar_float(const isa_mm_float_job *j) {
  isa_mm_float_ops o = isa_mm_float_ops_carve(j);
  isa_mm_float_prepare_scalar(j, &o);
  unsigned mant = isa_mm_mant_bits(j->dt);
  for (uint32_t jb = 0; jb < j->nb; jb++)
    for (uint32_t i = 0; i < j->mb * ISA_MM_ROWS; i++) {
      uint8_t *crow = j->c + isa_mm_c_row(j->mb, i, jb);
      float acc[ISA_MM_ROWS];
      for (uint32_t c = 0; c < ISA_MM_ROWS; c++)
        acc[c] = isa_f32_from_bits(isa_mm_start_bits(&j->start, crow + 4 * c, jb * ISA_MM_ROWS + c));
      for (uint32_t blk = 0; blk < j->kb; blk++) {
        isa_mm_span sa = o.aspan[(size_t)(i / ISA_MM_SPAN_ROWS) * j->kb + blk],
                    sb = o.bspan[(size_t)blk * j->nb + jb];
        float sums[ISA_MM_ROWS];
        if (isa_mm_float_fast_ok(sa, sb, mant)) {
          const double *arow = o.a + (size_t)i * o.a_stride + (size_t)blk * ISA_MM_K0_FLOAT;
          const double *bb = o.b + (size_t)blk * ISA_MM_K0_FLOAT * o.b_stride + (size_t)jb * ISA_MM_ROWS;
          double d[ISA_MM_ROWS] = {0};
          for (uint32_t t = 0; t < ISA_MM_K0_FLOAT; t++)
            for (uint32_t c = 0; c < ISA_MM_ROWS; c++) d[c] += arow[t] * bb[t * o.b_stride + c];
          for (uint32_t c = 0; c < ISA_MM_ROWS; c++) sums[c] = (float)d[c];
        } else {
          isa_mm_float_slow_block(j, &o, i, 1, jb * ISA_MM_ROWS, ISA_MM_ROWS, blk, sums, ISA_MM_ROWS);
        }
        for (uint32_t c = 0; c < ISA_MM_ROWS; c++) acc[c] += sums[c];
      }
      for (uint32_t c = 0; c < ISA_MM_ROWS; c++)
        isa_le_store(crow + 4 * c, isa_f32_bits(isa_f32_canon(acc[c])), 4);
    }
}

const isa_hot isa_hot_scalar = {scalar_int, scalar_float, isa_load2d_transpose_scalar};
