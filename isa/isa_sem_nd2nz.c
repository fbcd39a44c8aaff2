/* isa_sem_nd2nz — DataCopy GM -> L1 converting ND matrices to NZ (Nd2NzParams, docs/ISA.md §nd2nz).
 *
 * For matrix t, row r and column block b (C0 elements, 32 bytes), the C0-element slice of ND
 * row r at src + (t*src_nd_matrix_stride + r*src_d_value + b*C0)*s becomes the 32-byte NZ block
 * at dst + t*dst_nz_matrix_stride*s + (b*dst_nz_c0_stride + r*dst_nz_n_stride)*32; the last
 * block of a row is completed with zeros [cubesim]. int4 is only accepted with even element
 * counts and strides, so every slice is whole bytes and the conversion never splits a byte.
 *
 * Ranges: exact — the source rows, and the destination blocks of each (matrix, column block),
 * merged into fewer strided ranges where the pattern allows. A side that would need more than
 * half of ISA_MAX_RANGES when the total does not fit is described by one bounding range
 * (conservative: hazard checks may then see overlaps that are not there).
 */
#include "isa/isa_insn.h"

#include <string.h>

#define ND2NZ_BLOCK_BYTES 32u

static const char *mnemonic(const isa_insn *in) { return isa_op_info((isa_op)in->op)->mnemonic; }

static bool type_ok(uint32_t t) {
  return t == ISA_INT4 || t == ISA_INT8 || t == ISA_UINT8 || t == ISA_FP16 || t == ISA_BF16 ||
         t == ISA_INT32 || t == ISA_FP32;
}

/* Bytes of n elements of the instruction's type (n even for int4, which check ensures). */
static uint64_t elem_bytes(const isa_fmt_nd2nz *p, uint64_t n) {
  return n * isa_dtype_bits((isa_dtype)p->dtype) / 8;
}

static uint64_t col_blocks(const isa_fmt_nd2nz *p) {
  uint64_t c0 = isa_dtype_c0((isa_dtype)p->dtype);
  return (p->d_value + c0 - 1) / c0;
}

bool isa_sem_nd2nz_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_nd2nz *p = &in->u.nd2nz;
  if (!type_ok(p->dtype))
    return isa_fault_set(f, ISA_FAULT_DTYPE, "dtype", p->dtype, 0,
                         "%s: dtype %s is not one of int4, int8, uint8, fp16, bf16, int32, fp32",
                         mnemonic(in), isa_dtype_name((isa_dtype)p->dtype));
  if (p->src_d_value < p->d_value)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "src_d_value", p->src_d_value, p->d_value,
                         "%s: src_d_value = %u is less than d_value = %u", mnemonic(in),
                         p->src_d_value, p->d_value);
  if (p->dtype == ISA_INT4) {
    const struct { const char *name; uint32_t v; } even[] = {
        {"d_value", p->d_value},
        {"src_d_value", p->src_d_value},
        {"src_nd_matrix_stride", p->src_nd_matrix_stride},
        {"dst_nz_matrix_stride", p->dst_nz_matrix_stride},
    };
    for (size_t i = 0; i < sizeof even / sizeof even[0]; i++)
      if (even[i].v % 2 != 0) /* limit 2: the value must be a multiple of 2 */
        return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, even[i].name, even[i].v, 2,
                             "%s: %s = %u is odd; int4 needs whole bytes", mnemonic(in),
                             even[i].name, even[i].v);
  }
  return true;
}

/* One strided pattern repeated for each of `count` matrices `step` bytes apart: the number of
 * ranges it takes (1 when the repetition continues the pattern), written to out when out is
 * not NULL. A single range with stride 0 reads one run once. */
typedef struct pattern {
  isa_range r; /* the pattern of matrix 0 */
  uint64_t step_bytes;
  uint64_t count;
} pattern;

static size_t emit_one(isa_range r, isa_range *out) {
  if (out) *out = isa_range_normalize(r);
  return 1;
}

static size_t emit_pattern(const pattern *pt, isa_range *out) {
  isa_range r = isa_range_normalize(pt->r);
  if (pt->count == 1 || pt->step_bytes == 0) return emit_one(r, out); /* step 0: same bytes */
  if (r.rows == 1) {
    r.rows = pt->count;
    r.stride_bytes = pt->step_bytes;
    return emit_one(r, out);
  }
  if (pt->step_bytes == r.rows * r.stride_bytes) {
    r.rows *= pt->count;
    return emit_one(r, out);
  }
  if (out)
    for (uint64_t t = 0; t < pt->count; t++) {
      isa_range rt = r;
      rt.base += t * pt->step_bytes;
      emit_one(rt, out + t);
    }
  return (size_t)pt->count;
}

static size_t src_ranges(const isa_fmt_nd2nz *p, isa_range *out) {
  pattern pt = {{p->src.mem, 0, p->src.off, elem_bytes(p, p->d_value),
                 elem_bytes(p, p->src_d_value), p->n_value},
                elem_bytes(p, p->src_nd_matrix_stride), p->nd_num};
  return emit_pattern(&pt, out);
}

static size_t dst_ranges(const isa_fmt_nd2nz *p, isa_range *out) {
  uint64_t nb = col_blocks(p);
  uint64_t c0_step = (uint64_t)p->dst_nz_c0_stride * ND2NZ_BLOCK_BYTES;
  uint64_t row_step = (uint64_t)p->dst_nz_n_stride * ND2NZ_BLOCK_BYTES;
  uint64_t mat_step = elem_bytes(p, p->dst_nz_matrix_stride);
  /* One strided range per matrix when a matrix's blocks form one: a single column block (its
   * rows), or rows one block apart (each column block is one run), or a single row (its
   * column blocks). */
  isa_range r = {p->dst.mem, 1, p->dst.off, ND2NZ_BLOCK_BYTES, row_step, p->n_value};
  bool one = nb == 1 || p->dst_nz_n_stride == 1 || p->n_value == 1;
  if (nb > 1 && p->dst_nz_n_stride == 1)
    r = (isa_range){p->dst.mem, 1, p->dst.off, p->n_value * ND2NZ_BLOCK_BYTES, c0_step, nb};
  else if (nb > 1 && p->n_value == 1)
    r = (isa_range){p->dst.mem, 1, p->dst.off, ND2NZ_BLOCK_BYTES, c0_step, nb};
  if (one) {
    pattern pt = {r, mat_step, p->nd_num};
    return emit_pattern(&pt, out);
  }
  if (!out) return (size_t)(p->nd_num * nb);
  size_t n = 0;
  for (uint64_t t = 0; t < p->nd_num; t++)
    for (uint64_t b = 0; b < nb; b++, n++)
      emit_one((isa_range){p->dst.mem, 1, p->dst.off + t * mat_step + b * c0_step,
                           ND2NZ_BLOCK_BYTES, row_step, p->n_value},
               out + n);
  return n;
}

/* One run from the first byte touched to one past the last: every offset grows with t, r, b. */
static isa_range src_bound(const isa_fmt_nd2nz *p) {
  uint64_t end = p->src.off + elem_bytes(p, (uint64_t)(p->nd_num - 1) * p->src_nd_matrix_stride +
                                                (uint64_t)(p->n_value - 1) * p->src_d_value +
                                                p->d_value);
  return (isa_range){p->src.mem, 0, p->src.off, end - p->src.off, end - p->src.off, 1};
}

static isa_range dst_bound(const isa_fmt_nd2nz *p) {
  uint64_t end = p->dst.off + elem_bytes(p, (uint64_t)(p->nd_num - 1) * p->dst_nz_matrix_stride) +
                 ((col_blocks(p) - 1) * p->dst_nz_c0_stride +
                  (uint64_t)(p->n_value - 1) * p->dst_nz_n_stride + 1) * ND2NZ_BLOCK_BYTES;
  return (isa_range){p->dst.mem, 1, p->dst.off, end - p->dst.off, end - p->dst.off, 1};
}

size_t isa_sem_nd2nz_ranges(const isa_insn *in, isa_range *out) {
  const isa_fmt_nd2nz *p = &in->u.nd2nz;
  size_t ns = src_ranges(p, NULL), nd = dst_ranges(p, NULL);
  bool fits = ns + nd <= ISA_MAX_RANGES;
  size_t n = 0;
  if (fits || ns <= ISA_MAX_RANGES / 2) n += src_ranges(p, out + n);
  else out[n++] = src_bound(p);
  if (fits || nd <= ISA_MAX_RANGES / 2) n += dst_ranges(p, out + n);
  else out[n++] = dst_bound(p);
  return n;
}

void isa_sem_nd2nz_work(const isa_insn *in, isa_work *w) {
  const isa_fmt_nd2nz *p = &in->u.nd2nz;
  w->path = ISA_PATH_GM_TO_L1;
  w->bytes = (uint64_t)p->nd_num * p->n_value * elem_bytes(p, p->d_value);
}

/* Matrix t block by block, each pointer looked up on its own (any strides). */
static void exec_matrix_blocks(const isa_fmt_nd2nz *p, const isa_mach *m, uint64_t t) {
  uint64_t c0 = isa_dtype_c0((isa_dtype)p->dtype), nb = col_blocks(p);
  uint64_t row_bytes = elem_bytes(p, p->d_value);
  for (uint64_t r = 0; r < p->n_value; r++) {
    uint64_t src_off = p->src.off + elem_bytes(p, t * p->src_nd_matrix_stride + r * p->src_d_value);
    const uint8_t *row = m->ptr(m->ctx, (isa_mem)p->src.mem, src_off, row_bytes);
    for (uint64_t b = 0; b < nb; b++) {
      uint64_t elems = p->d_value - b * c0 < c0 ? p->d_value - b * c0 : c0;
      uint64_t bytes = elem_bytes(p, elems);
      uint64_t dst_off = p->dst.off + elem_bytes(p, t * p->dst_nz_matrix_stride) +
                         (b * p->dst_nz_c0_stride + r * p->dst_nz_n_stride) * ND2NZ_BLOCK_BYTES;
      uint8_t *blk = m->ptr(m->ctx, (isa_mem)p->dst.mem, dst_off, ND2NZ_BLOCK_BYTES);
      memcpy(blk, row + b * ND2NZ_BLOCK_BYTES, bytes);
      memset(blk + bytes, 0, ND2NZ_BLOCK_BYTES - bytes);
    }
  }
}

#define ND2NZ_CHUNK 64u /* column blocks whose destination runs are looked up together */
#define ND2NZ_ROWS  8u  /* rows copied together: each run receives 256 contiguous bytes at a time */

/* With rows one block apart (dst_nz_n_stride = 1, as every kernel copies), each column block of
 * a matrix is one run of n_value blocks in a destination range: up to ND2NZ_CHUNK runs are
 * looked up once, then each source row once for all of them, and every block is a move of
 * constant size (the last of a row completed with zeros). Other strides, and runs that overlap
 * (c0 stride below n_value: the order of the writes decides), take one lookup per block in the
 * order of the definition (row by row). Elements are whole bytes (int4 counts are even), so byte offsets add up term by term. */
void isa_sem_nd2nz_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_nd2nz *p = &in->u.nd2nz;
  uint64_t nb = col_blocks(p), row_bytes = elem_bytes(p, p->d_value);
  uint64_t c0_step = (uint64_t)p->dst_nz_c0_stride * ND2NZ_BLOCK_BYTES;
  uint64_t run_bytes = (uint64_t)p->n_value * ND2NZ_BLOCK_BYTES;
  for (uint64_t t = 0; t < p->nd_num; t++) {
    if (p->dst_nz_n_stride != 1 || (nb > 1 && p->dst_nz_c0_stride < p->n_value)) {
      exec_matrix_blocks(p, m, t);
      continue;
    }
    uint64_t src_t = p->src.off + elem_bytes(p, t * p->src_nd_matrix_stride);
    uint64_t dst_t = p->dst.off + elem_bytes(p, t * p->dst_nz_matrix_stride);
    for (uint64_t b0 = 0; b0 < nb; b0 += ND2NZ_CHUNK) {
      uint64_t count = nb - b0 < ND2NZ_CHUNK ? nb - b0 : ND2NZ_CHUNK;
      uint64_t lo = b0 * ND2NZ_BLOCK_BYTES, bytes = row_bytes - lo;
      if (bytes > count * ND2NZ_BLOCK_BYTES) bytes = count * ND2NZ_BLOCK_BYTES;
      uint64_t full = bytes / ND2NZ_BLOCK_BYTES, tail = bytes % ND2NZ_BLOCK_BYTES;
      uint8_t *run[ND2NZ_CHUNK];
      for (uint64_t x = 0; x < count; x++)
        run[x] = m->ptr(m->ctx, (isa_mem)p->dst.mem, dst_t + (b0 + x) * c0_step, run_bytes);
      for (uint64_t r0 = 0; r0 < p->n_value; r0 += ND2NZ_ROWS) {
        uint64_t rows = p->n_value - r0 < ND2NZ_ROWS ? p->n_value - r0 : ND2NZ_ROWS;
        const uint8_t *row[ND2NZ_ROWS];
        for (uint64_t y = 0; y < rows; y++)
          row[y] = m->ptr(m->ctx, (isa_mem)p->src.mem, src_t + elem_bytes(p, (r0 + y) * p->src_d_value) + lo, bytes);
        uint64_t at = r0 * ND2NZ_BLOCK_BYTES;
        for (uint64_t x = 0; x < full; x++)
          for (uint64_t y = 0; y < rows; y++)
            memcpy(run[x] + at + y * ND2NZ_BLOCK_BYTES, row[y] + x * ND2NZ_BLOCK_BYTES, ND2NZ_BLOCK_BYTES);
        if (tail)
          for (uint64_t y = 0; y < rows; y++) {
            memcpy(run[full] + at + y * ND2NZ_BLOCK_BYTES, row[y] + full * ND2NZ_BLOCK_BYTES, tail);
            memset(run[full] + at + y * ND2NZ_BLOCK_BYTES + tail, 0, ND2NZ_BLOCK_BYTES - tail);
          }
      }
    }
  }
}
