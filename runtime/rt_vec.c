/* rt_vec — GELU, SiLU, full reductions and row / column broadcasts from vector instructions. */
#include "runtime/rt_vec.h"

#include <string.h>

#define MAX_REPEATS 255u /* repeat_times of a normal-mode instruction */
#define BLOCK_BYTES 32u

static unsigned elem_bytes(isa_dtype t) { return isa_dtype_bits(t) / 8; }
static uint32_t lanes_of(isa_dtype t) { return 256u / elem_bytes(t); }

static void barrier(rt_ctx *ctx) { rt_pipe_barrier(ctx, ISA_PIPE_V); }

void rt_gelu(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, uint32_t count) {
  rt_vbinary_n(ctx, ISA_OP_VMUL, dst, src, src, count);
  barrier(ctx);
  rt_vbinary_n(ctx, ISA_OP_VMUL, dst, dst, src, count);
  barrier(ctx);
  rt_vscalar_n(ctx, ISA_OP_VMULS, dst, dst, 0.044715, count);
  barrier(ctx);
  rt_vbinary_n(ctx, ISA_OP_VADD, dst, src, dst, count);
  barrier(ctx);
  rt_vscalar_n(ctx, ISA_OP_VMULS, dst, dst, -1.595769, count);
  barrier(ctx);
  rt_vunary_n(ctx, ISA_OP_VEXP, dst, dst, count);
  barrier(ctx);
  rt_vscalar_n(ctx, ISA_OP_VADDS, dst, dst, 1.0, count);
  barrier(ctx);
  rt_vbinary_n(ctx, ISA_OP_VDIV, dst, src, dst, count);
}

void rt_silu(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, uint32_t count) {
  rt_vscalar_n(ctx, ISA_OP_VMULS, dst, src, -1.0, count);
  barrier(ctx);
  rt_vunary_n(ctx, ISA_OP_VEXP, dst, dst, count);
  barrier(ctx);
  rt_vscalar_n(ctx, ISA_OP_VADDS, dst, dst, 1.0, count);
  barrier(ctx);
  rt_vbinary_n(ctx, ISA_OP_VDIV, dst, src, dst, count);
}

/* One vreduce pass: n contiguous elements of src to ceil(n / P) contiguous results in dst, in
 * counter mode (the last repeat partial). */
static void reduce_pass(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, uint32_t n) {
  isa_fmt_vreduce p;
  memset(&p, 0, sizeof p);
  p.mask_mode = ISA_VMASK_COUNTER;
  p.mask_lo = n;
  p.order = ISA_ORDER_ONLY_VALUE;
  p.dst_rep_stride = 1;
  p.src_blk_stride = 1;
  p.src_rep_stride = 8;
  rt_vreduce(ctx, op, dst, src, p);
}

/* Passes ping-pong between the start of work and a second region after the first pass's
 * results (rounded up to 32 bytes), so no pass reads what it writes (Ascend leaves such overlap
 * undefined). */
static void reduce_all(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, rt_ltensor work,
                       uint32_t count) {
  uint32_t lanes = lanes_of(src.dtype);
  unsigned es = elem_bytes(src.dtype);
  if (count <= lanes) {
    reduce_pass(ctx, op, dst, src, count);
    return;
  }
  uint32_t n = (count + lanes - 1) / lanes;
  uint64_t second = ((uint64_t)n * es + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES;
  rt_ltensor from = work, to = rt_ltensor_at(work, second);
  reduce_pass(ctx, op, from, src, count);
  while (n > 1) {
    barrier(ctx);
    uint32_t next = (n + lanes - 1) / lanes;
    reduce_pass(ctx, op, next == 1 ? dst : to, from, n);
    rt_ltensor t = from;
    from = to;
    to = t;
    n = next;
  }
}

void rt_reduce_sum(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, rt_ltensor work, uint32_t count) {
  reduce_all(ctx, ISA_OP_VREDUCE_SUM, dst, src, work, count);
}

void rt_reduce_max(rt_ctx *ctx, rt_ltensor dst, rt_ltensor src, rt_ltensor work, uint32_t count) {
  reduce_all(ctx, ISA_OP_VREDUCE_MAX, dst, src, work, count);
}

/* The mask bits of the first n lanes (n <= 128). */
static void first_lanes(uint32_t n, uint64_t *hi, uint64_t *lo) {
  *lo = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
  *hi = n <= 64 ? 0 : n >= 128 ? UINT64_MAX : (UINT64_C(1) << (n - 64)) - 1;
}

/* Rows as repeats, P-column chunks: src1 per the caller (blk and rep strides in blocks). */
static void broadcast(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, rt_ltensor other,
                      uint32_t rows, uint32_t cols, uint32_t row_stride, bool by_column) {
  unsigned es = elem_bytes(dst.dtype);
  uint32_t lanes = lanes_of(dst.dtype), row_blocks = row_stride * es / BLOCK_BYTES;
  if ((uint64_t)row_stride * es % BLOCK_BYTES != 0 || row_blocks > 255) {
    rt_fail(ctx, "broadcast: a row stride of %u elements is not a multiple of 32 bytes up to 255 blocks",
            row_stride);
    return;
  }
  for (uint32_t r0 = 0; r0 < rows; r0 += MAX_REPEATS) {
    uint32_t nr = rows - r0 < MAX_REPEATS ? rows - r0 : MAX_REPEATS;
    for (uint32_t c0 = 0; c0 < cols; c0 += lanes) {
      isa_fmt_vbinary p;
      memset(&p, 0, sizeof p);
      p.mask_mode = ISA_VMASK_NORM;
      first_lanes(cols - c0 < lanes ? cols - c0 : lanes, &p.mask_hi, &p.mask_lo);
      p.repeat_times = nr;
      p.dst_blk_stride = p.src0_blk_stride = 1;
      p.dst_rep_stride = p.src0_rep_stride = row_blocks;
      uint64_t at = ((uint64_t)r0 * row_stride + c0) * es;
      rt_ltensor o;
      if (by_column) { /* block r of work holds col[r] */
        p.src1_blk_stride = 0;
        p.src1_rep_stride = 1;
        o = rt_ltensor_at(other, (uint64_t)r0 * BLOCK_BYTES);
      } else { /* the same chunk of the row for every repeat */
        p.src1_blk_stride = 1;
        p.src1_rep_stride = 0;
        o = rt_ltensor_at(other, (uint64_t)c0 * es);
      }
      rt_vbinary(ctx, op, rt_ltensor_at(dst, at), rt_ltensor_at(src, at), o, p);
    }
  }
}

void rt_vbinary_rows(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, rt_ltensor row,
                     uint32_t rows, uint32_t cols, uint32_t row_stride) {
  broadcast(ctx, op, dst, src, row, rows, cols, row_stride, false);
}

void rt_vbinary_cols(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor src, rt_ltensor col,
                     rt_ltensor work, uint32_t rows, uint32_t cols, uint32_t row_stride) {
  uint32_t groups = (rows + 7) / 8; /* Brcb repeats: 8 rows each */
  for (uint32_t g0 = 0; g0 < groups; g0 += MAX_REPEATS) {
    isa_fmt_vbrcb b;
    memset(&b, 0, sizeof b);
    b.repeat_times = groups - g0 < MAX_REPEATS ? groups - g0 : MAX_REPEATS;
    b.dst_blk_stride = 1;
    b.dst_rep_stride = 8;
    rt_vbrcb(ctx, rt_ltensor_at(work, (uint64_t)g0 * 8 * BLOCK_BYTES),
             rt_ltensor_at(col, (uint64_t)g0 * 8 * elem_bytes(col.dtype)), b);
  }
  barrier(ctx);
  broadcast(ctx, op, dst, src, work, rows, cols, row_stride, true);
}
