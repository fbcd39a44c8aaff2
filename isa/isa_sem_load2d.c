/* isa_sem_load2d — LoadData 2-D: whole 512-byte fractals L1 -> L0A / L0B, optionally transposed
 * by C0 x C0 squares (LoadData2DParams, docs/ISA.md §load2d).
 *
 * A repeat moves q fractals: q = 1 without transpose, q = C0/16 with it (fp16/bf16 1, int8/uint8
 * 2, int4 4). The q consecutive source fractals of a square are C0 rows of 32 bytes one after
 * the other, i.e. a row-major C0 x C0 matrix S; the q destination fractals are likewise the
 * row-major C0 x C0 matrix S^T. So a transposing repeat is the transpose of one contiguous
 * square into another.
 */
#include "isa/isa_insn.h"

#include <string.h>

#include "isa/isa_hot.h"


#define LOAD2D_FRACTAL_BYTES 512u
#define LOAD2D_FRACTAL_ROWS 16u

static const char *mnemonic(const isa_insn *in) { return isa_op_info((isa_op)in->op)->mnemonic; }

static bool type_ok(uint32_t t) {
  return t == ISA_INT4 || t == ISA_INT8 || t == ISA_UINT8 || t == ISA_FP16 || t == ISA_BF16 ||
         t == ISA_INT32 || t == ISA_FP32;
}

/* Fractals moved per repeat. */
static uint64_t fractals_per_repeat(const isa_fmt_load2d *p) {
  return p->if_transpose ? isa_dtype_c0((isa_dtype)p->dtype) / LOAD2D_FRACTAL_ROWS : 1;
}

bool isa_sem_load2d_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_load2d *p = &in->u.load2d;
  if (!type_ok(p->dtype))
    return isa_fault_set(f, ISA_FAULT_DTYPE, "dtype", p->dtype, 0,
                         "%s: dtype %s is not one of int4, int8, uint8, fp16, bf16, int32, fp32",
                         mnemonic(in), isa_dtype_name((isa_dtype)p->dtype));
  if (p->if_transpose && isa_dtype_bits((isa_dtype)p->dtype) == 32)
    return isa_fault_set(f, ISA_FAULT_DTYPE, "dtype", p->dtype, 0,
                         "%s: dtype %s cannot be transposed (only int4, int8, uint8, fp16, bf16)",
                         mnemonic(in), isa_dtype_name((isa_dtype)p->dtype));
  return true;
}

/* Destination fractal j of repeat i: dst + (i * (q + dst_gap) + j * (1 + dst_frac_gap)) * 512. */
static uint64_t dst_fractal(const isa_fmt_load2d *p, uint64_t q, uint64_t i, uint64_t j) {
  return p->dst.off + (i * (q + p->dst_gap) + j * (1 + (uint64_t)p->dst_frac_gap)) * LOAD2D_FRACTAL_BYTES;
}

size_t isa_sem_load2d_ranges(const isa_insn *in, isa_range *out) {
  const isa_fmt_load2d *p = &in->u.load2d;
  uint64_t q = fractals_per_repeat(p);
  out[0] = isa_range_normalize((isa_range){p->src.mem, 0,
                                           p->src.off + (uint64_t)p->start_index * LOAD2D_FRACTAL_BYTES,
                                           q * LOAD2D_FRACTAL_BYTES,
                                           (uint64_t)p->src_stride * LOAD2D_FRACTAL_BYTES, p->repeat_times});
  if (q == 1 || p->dst_frac_gap == 0) {
    out[1] = isa_range_normalize((isa_range){p->dst.mem, 1, p->dst.off, q * LOAD2D_FRACTAL_BYTES,
                                             (q + p->dst_gap) * LOAD2D_FRACTAL_BYTES, p->repeat_times});
    return 2;
  }
  for (uint64_t j = 0; j < q; j++) /* each fractal of a square has its own strided run */
    out[1 + j] = isa_range_normalize((isa_range){p->dst.mem, 1, dst_fractal(p, q, 0, j), LOAD2D_FRACTAL_BYTES,
                                                 (q + p->dst_gap) * LOAD2D_FRACTAL_BYTES, p->repeat_times});
  return 1 + (size_t)q;
}

void isa_sem_load2d_work(const isa_insn *in, isa_work *w) {
  const isa_fmt_load2d *p = &in->u.load2d;
  w->path = p->dst.mem == ISA_MEM_L0A ? ISA_PATH_L1_TO_L0A : ISA_PATH_L1_TO_L0B;
  w->bytes = (uint64_t)p->repeat_times * fractals_per_repeat(p) * LOAD2D_FRACTAL_BYTES;
}

/* The portable square transpose of isa/isa_hot.h, one loop per element size so every move has
 * a constant size. Elements are moved as bytes, whatever the host's order. */
void isa_load2d_transpose_scalar(uint8_t *dst, const uint8_t *src, unsigned bits) {
  if (bits == 16) { /* 16 x 16 */
    for (unsigned r = 0; r < 16; r++)
      for (unsigned c = 0; c < 16; c++) memcpy(dst + (r * 16 + c) * 2, src + (c * 16 + r) * 2, 2);
  } else if (bits == 8) { /* 32 x 32 */
    for (unsigned r = 0; r < 32; r++)
      for (unsigned c = 0; c < 32; c++) dst[r * 32 + c] = src[c * 32 + r];
  } else { /* 64 x 64 nibbles, element 0 of a byte in its low nibble: dst (r, c) = src (c, r) */
    for (unsigned r = 0; r < 64; r++) {
      unsigned shift = 4 * (r % 2); /* src (c, r) is in byte c·32 + r/2 */
      for (unsigned b = 0; b < 32; b++) {
        unsigned lo = src[(2 * b) * 32 + r / 2] >> shift & 0xFu, hi = src[(2 * b + 1) * 32 + r / 2] >> shift & 0xFu;
        dst[r * 32 + b] = (uint8_t)(lo | hi << 4);
      }
    }
  }
}

void isa_sem_load2d_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_load2d *p = &in->u.load2d;
  uint64_t q = fractals_per_repeat(p), bytes = q * LOAD2D_FRACTAL_BYTES;
  unsigned bits = isa_dtype_bits((isa_dtype)p->dtype);
  const isa_hot *hot = isa_hot_for(m->host);
  for (uint64_t i = 0; i < p->repeat_times; i++) {
    uint64_t src_off = p->src.off + (p->start_index + i * p->src_stride) * LOAD2D_FRACTAL_BYTES;
    const uint8_t *s = m->ptr(m->ctx, (isa_mem)p->src.mem, src_off, bytes);
    if (!p->if_transpose) {
      memcpy(m->ptr(m->ctx, (isa_mem)p->dst.mem, dst_fractal(p, q, i, 0), bytes), s, bytes);
      continue;
    }
    uint8_t square[4 * LOAD2D_FRACTAL_BYTES]; /* q <= 4 */
    hot->transpose(square, s, bits);
    for (uint64_t j = 0; j < q; j++)
      memcpy(m->ptr(m->ctx, (isa_mem)p->dst.mem, dst_fractal(p, q, i, j), LOAD2D_FRACTAL_BYTES),
             square + j * LOAD2D_FRACTAL_BYTES, LOAD2D_FRACTAL_BYTES);
  }
}
