/* kn_nd2nz — an fp16 ND matrix to the compact NZ layout on the AI vector cores (AIV-only), as
 * Huawei's Ascend C best-practice sample bank_conflict_nd2nz does it on A2 (docs/KERNELS.md,
 * "nd2nz"): its point is the UB bank groups of the vector unit's writes.
 *
 * The output z is x [m, n] in NZ: n/16 column groups (C0 = 16 halves, one 32-byte block a row),
 * each holding the m rows of its 16 columns one after the other: element (r, c) at
 * ((c / 16) * m + r) * 16 + c % 16.
 *
 * Blocks: row_splits x col_splits, block b on row split b / col_splits and column split
 * b % col_splits. The matrix is cut into tiles of tile_h x tile_w (the last tile row shorter when
 * tile_h does not divide m); the ceil(m / tile_h) tile rows are shared out as evenly as
 * possible, the first splits one more, and each column split gets (n / tile_w) / col_splits
 * tile columns. Each AIV walks its tiles row by row, ping-pong between two static pairs of UB
 * buffers [nd ping | nd pong | nz ping | nz pong], handed over by explicit flags (event 0 for
 * even tiles, 1 for odd):
 *   MTE2  the tile's rows GM -> nd (tile_w halves a row, contiguous);
 *   V     per 128 columns one vcopy: repeat r reads row r's 8 blocks and writes them to the 8
 *         C0 columns of the NZ tile, block r of each, the columns c0_stride blocks apart;
 *   MTE3  the 8 (tile_w / 16) C0 columns to their places in z, skipping the c0_stride - rows
 *         blocks of padding between them.
 * With c0_stride = tile_h = 144 (a multiple of 16, the sample's case 1) every write of a repeat
 * lands in the same UB bank group: 8 beats a repeat. With 145 (case 2) they spread over 8
 * groups: 1 beat. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kn_op.h"
#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"

#define C0 16u         /* halves in a C0 column's row: one 32-byte block */
#define VEC_LANES 128u /* halves in one repeat of a vcopy: 8 blocks */

typedef struct nz_job {
  uint32_t m, n, tile_h, tile_w, row_splits, col_splits, stride;
  uint64_t nd_bytes, nz_bytes; /* one buffer of each */
  rt_gtensor x, z;
} nz_job;

static uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }

static void nd2nz_kernel(rt_ctx *ctx, void *arg) {
  const nz_job *j = arg;
  unsigned b = rt_block_idx(ctx);
  if (b >= j->row_splits * j->col_splits) return;
  uint32_t row_tiles = (j->m + j->tile_h - 1) / j->tile_h, col_tiles = j->n / j->tile_w / j->col_splits;
  uint32_t rs = b / j->col_splits, cs = b % j->col_splits;
  uint32_t base = row_tiles / j->row_splits, extra = row_tiles % j->row_splits;
  uint32_t first_row = rs * base + umin(rs, extra), rows = base + (rs < extra ? 1 : 0);
  uint64_t tiles = (uint64_t)rows * col_tiles;
  rt_ltensor nd[2], nz[2];
  for (int k = 0; k < 2; k++) {
    nd[k] = (rt_ltensor){RT_POS_VECIN, (uint64_t)k * j->nd_bytes, j->nd_bytes, ISA_FP16, -1};
    nz[k] = (rt_ltensor){RT_POS_VECOUT, 2 * j->nd_bytes + (uint64_t)k * j->nz_bytes, j->nz_bytes, ISA_FP16, -1};
  }
  /* both buffers of each pair start free */
  for (int e = 0; e < 2; e++) {
    rt_set_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE2, e);
    rt_set_flag(ctx, ISA_PIPE_MTE3, ISA_PIPE_V, e);
  }
  uint32_t c0s = j->tile_w / C0;
  for (uint64_t i = 0; i < tiles && rt_ok(ctx); i++) {
    int e = (int)(i & 1);
    uint32_t tr = first_row + (uint32_t)(i / col_tiles), tc = cs * col_tiles + (uint32_t)(i % col_tiles);
    uint32_t r0 = tr * j->tile_h, c0 = tc * j->tile_w, h = umin(j->tile_h, j->m - r0);
    /* MTE2: h rows of tile_w halves */
    rt_wait_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE2, e);
    isa_fmt_copy in;
    memset(&in, 0, sizeof in);
    in.block_count = h;
    in.block_len_bytes = j->tile_w * 2;
    in.src_gap_bytes = (j->n - j->tile_w) * 2;
    rt_copy_gm_to_local(ctx, nd[e], rt_gtensor_at(j->x, (uint64_t)r0 * j->n + c0), in);
    rt_set_flag(ctx, ISA_PIPE_MTE2, ISA_PIPE_V, e);
    rt_wait_flag(ctx, ISA_PIPE_MTE2, ISA_PIPE_V, e);
    rt_wait_flag(ctx, ISA_PIPE_MTE3, ISA_PIPE_V, e);
    /* V: one vcopy per 128 columns, a repeat per row */
    for (uint32_t k = 0; k < j->tile_w / VEC_LANES; k++) {
      isa_fmt_vcopy p;
      memset(&p, 0, sizeof p);
      p.mask_mode = ISA_VMASK_NORM;
      p.mask_lo = p.mask_hi = UINT64_MAX;
      p.repeat_times = h;
      p.dst_blk_stride = j->stride;
      p.src_blk_stride = 1;
      p.dst_rep_stride = 1;
      p.src_rep_stride = j->tile_w / C0;
      rt_vcopy(ctx, rt_ltensor_at(nz[e], (uint64_t)k * (VEC_LANES / C0) * j->stride * 32),
               rt_ltensor_at(nd[e], (uint64_t)k * VEC_LANES * 2), p);
    }
    rt_set_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE2, e);
    rt_set_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE3, e);
    rt_wait_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE3, e);
    /* MTE3: the C0 columns, h blocks each, to their rows of z */
    isa_fmt_copy out;
    memset(&out, 0, sizeof out);
    out.block_count = c0s;
    out.block_len_bytes = h * 32;
    out.src_gap_bytes = (j->stride - h) * 32;
    out.dst_gap_bytes = (j->m - h) * 32;
    rt_copy_local_to_gm(ctx, rt_gtensor_at(j->z, ((uint64_t)(c0 / C0) * j->m + r0) * C0), nz[e], out);
    rt_set_flag(ctx, ISA_PIPE_MTE3, ISA_PIPE_V, e);
  }
  for (int e = 0; e < 2; e++) {
    rt_wait_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE2, e);
    rt_wait_flag(ctx, ISA_PIPE_MTE3, ISA_PIPE_V, e);
  }
  rt_pipe_barrier(ctx, ISA_PIPE_ALL);
}

/* ---- the operator's declaration and host side --------------------------------------------- */

static const kn_io_desc inputs[] = {{"x", "fp16", false, "[m, n] ND (generated: random bits)"}};
static const kn_io_desc outputs[] = {{"z", "fp16", false, "x in the compact NZ layout: [n / 16, m, 16]"}};
static const kn_attr_desc attrs[] = {
    {"m", KN_ATTR_INT, "8192", NULL, "rows of the generated input"},
    {"n", KN_ATTR_INT, "8192", NULL, "columns of the generated input"},
    {"tile_h", KN_ATTR_INT, "144", NULL, "rows per tile (tileH; the last tile row may be shorter; at most 255, a vcopy's repeats)"},
    {"tile_w", KN_ATTR_INT, "128", NULL, "columns per tile (tileW), a multiple of 128"},
    {"row_splits", KN_ATTR_INT, "6", NULL, "row splits (rowSplits): blocks = row_splits x col_splits"},
    {"col_splits", KN_ATTR_INT, "8", NULL, "column splits (colSplits); must divide n / tile_w"},
    {"c0_stride", KN_ATTR_INT, "0", NULL,
     "32-byte blocks between the C0 columns of an NZ tile in UB (dstNzC0Stride): 0 = tile_h (the sample's case 1); "
     "tile_h + 1 spreads a vcopy's writes over the UB bank groups (case 2)"},
};

static cs_status int_attr(const kn_ctx *ctx, const char *name, int64_t lo, int64_t hi, uint32_t *out, cs_err *err) {
  int64_t v;
  cs_status st = kn_attr_int(ctx, name, &v, err);
  if (st != CS_OK) return st;
  if (v < lo || v > hi)
    return cs_err_set(err, CS_EINVAL, "attribute %s = %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", name, v, lo,
                      hi);
  *out = (uint32_t)v;
  return CS_OK;
}

static cs_status nd2nz_run(kn_ctx *ctx, cs_err *err) {
  const kn_run_options *o = kn_options(ctx);
  const kn_tensor *x = kn_input(ctx, "x");
  nz_job j;
  memset(&j, 0, sizeof j);
  cs_status st;
  if ((st = int_attr(ctx, "tile_h", 1, 255, &j.tile_h, err)) != CS_OK ||
      (st = int_attr(ctx, "tile_w", VEC_LANES, 1 << 20, &j.tile_w, err)) != CS_OK ||
      (st = int_attr(ctx, "row_splits", 1, 65535, &j.row_splits, err)) != CS_OK ||
      (st = int_attr(ctx, "col_splits", 1, 65535, &j.col_splits, err)) != CS_OK ||
      (st = int_attr(ctx, "c0_stride", 0, 65535, &j.stride, err)) != CS_OK)
    return st;
  if (x->ndim != 2) {
    char s[64];
    kn_shape_str(x, s, sizeof s);
    return cs_err_set(err, CS_EINVAL, "x: shape %s, but nd2nz takes a matrix [m, n]", s);
  }
  if (x->shape[0] > UINT32_MAX / 2 || x->shape[1] > UINT32_MAX / 2)
    return cs_err_set(err, CS_EINVAL, "x: %" PRIu64 " x %" PRIu64 " is too large", x->shape[0], x->shape[1]);
  j.m = (uint32_t)x->shape[0];
  j.n = (uint32_t)x->shape[1];
  if (!j.stride) j.stride = j.tile_h;
  if (j.tile_w % VEC_LANES)
    return cs_err_set(err, CS_EINVAL, "attribute tile_w = %u: a multiple of %u columns is needed (one vcopy repeat)", j.tile_w,
                      VEC_LANES);
  if (j.n % j.tile_w || (j.n / j.tile_w) % j.col_splits)
    return cs_err_set(err, CS_EINVAL, "x: n = %u must be a multiple of tile_w = %u, in a number of tiles divisible by col_splits = %u",
                      j.n, j.tile_w, j.col_splits);
  if (j.stride < j.tile_h)
    return cs_err_set(err, CS_EINVAL, "attribute c0_stride = %u: the C0 columns of a tile of %u rows overlap (at least %u)",
                      j.stride, j.tile_h, j.tile_h);
  unsigned aivs = (unsigned)(o->cfg->chip_aic_cores * o->cfg->chip_aiv_per_aic);
  if (!aivs) return cs_err_set(err, CS_EINVAL, "nd2nz runs on AIV cores: the chip has none (chip.aiv_per_aic = 0)");
  uint64_t c0s = j.tile_w / C0;
  j.nd_bytes = (uint64_t)j.tile_h * j.tile_w * 2;
  /* the last C0 column's last row, plus one block of padding when the columns are spread (the
   * sample's own layout: it keeps the buffer's size off a multiple of 16 blocks) */
  j.nz_bytes = ((j.tile_h - 1) + (c0s - 1) * j.stride + 1 + (j.stride > j.tile_h ? 1 : 0)) * 32;
  uint64_t ub = o->cfg->aiv_ub_bytes;
  if (2 * (j.nd_bytes + j.nz_bytes) > ub)
    return cs_err_set(err, CS_EINVAL,
                      "tile %u x %u with c0_stride %u needs 2 x (%" PRIu64 " + %" PRIu64 ") bytes of UB, the AIV has %" PRIu64
                      " (aiv.ub_bytes)",
                      j.tile_h, j.tile_w, j.stride, j.nd_bytes, j.nz_bytes, ub);
  uint64_t blocks = (uint64_t)j.row_splits * j.col_splits;
  if (blocks > 65535) return cs_err_set(err, CS_EINVAL, "row_splits x col_splits = %" PRIu64 " blocks (at most 65535)", blocks);
  rt_device *dev;
  if ((st = kn_device_create(ctx, &dev, err)) != CS_OK) return st;
  if ((st = rt_gm_alloc(dev, "x", ISA_FP16, x->count, &j.x, err)) != CS_OK ||
      (x->data && (st = rt_gm_write(dev, j.x, x->data, err)) != CS_OK) ||
      (st = rt_gm_alloc(dev, "z", ISA_FP16, x->count, &j.z, err)) != CS_OK ||
      (st = rt_launch_kind(dev, RT_LAUNCH_AIV, (unsigned)blocks, nd2nz_kernel, &j, err)) != CS_OK ||
      (st = kn_device_run(ctx, err)) != CS_OK)
    return st;
  uint64_t shape[3] = {j.n / C0, j.m, C0};
  kn_tensor *out;
  if ((st = kn_output_alloc(ctx, "z", ISA_FP16, 3, shape, &out, err)) != CS_OK) return st;
  if (kn_ctx_has_data(ctx)) return rt_gm_read(dev, j.z, out->data, err);
  return CS_OK;
}

/* The reference: the layout by its definition, element by element. */
static cs_status nd2nz_reference(kn_ctx *ctx, cs_err *err) {
  const kn_tensor *x = kn_input(ctx, "x");
  uint64_t m = x->shape[0], n = x->shape[1], shape[3] = {n / C0, m, C0};
  kn_tensor *out;
  cs_status st = kn_reference_alloc(ctx, "z", ISA_FP16, 3, shape, &out, err);
  if (st != CS_OK) return st;
  const uint16_t *src = x->data;
  uint16_t *dst = out->data;
  for (uint64_t r = 0; r < m; r++)
    for (uint64_t c = 0; c < n; c++) dst[((c / C0) * m + r) * C0 + c % C0] = src[r * n + c];
  return CS_OK;
}

/* Generated input: random bits (NaNs included: a copy moves bits); timing-only runs get the
 * shape alone. */
static cs_status nd2nz_make_inputs(kn_ctx *ctx, cs_err *err) {
  if (kn_input(ctx, "x")) return CS_OK;
  static const char *const dims[2] = {"m", "n"};
  int64_t d[2];
  cs_status st = kn_attr_dims(ctx, dims, 2, 1 << 20, d, err);
  if (st != CS_OK) return st;
  uint64_t shape[2] = {(uint64_t)d[0], (uint64_t)d[1]}, seed = kn_options(ctx)->seed ? kn_options(ctx)->seed : 1;
  bool data = kn_ctx_has_data(ctx);
  kn_tensor t;
  if ((st = data ? kn_tensor_alloc(&t, "x", ISA_FP16, 2, shape, err) : kn_tensor_shape(&t, "x", ISA_FP16, 2, shape, err)) != CS_OK)
    return st;
  for (uint64_t i = 0; data && i < t.count; i++) ((uint16_t *)t.data)[i] = (uint16_t)kn_rng_next(&seed);
  return kn_set_input(ctx, "x", &t, err);
}

const kn_op kn_op_nd2nz = {
    "nd2nz", "fp16 ND -> compact NZ on the AIV cores (vcopy scatter in UB; c0_stride decides its UB bank conflicts)",
    "Huawei's Ascend C best-practice sample bank_conflict_nd2nz (AIV-only)", true,
    KN_LIST(inputs), KN_LIST(attrs), KN_LIST(outputs),
    nd2nz_run, nd2nz_reference, nd2nz_make_inputs,
};
