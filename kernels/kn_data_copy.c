/* kn_data_copy — the GM copy micro-benchmark of Huawei's data_copy sample (docs/TIMING.md,
 * Calibration): every core streams tiles of an fp16 [m, n] tensor from GM into L1 (ND -> NZ,
 * Nd2NzParams; on the AI cube cores) or into UB (DataCopyPad; on every AIV, as the sample's
 * vector kernel), each tile over the same on-chip buffer, with no computation, no write-back and
 * no flags — a pure stream of MTE2 instructions ending in one pipe_barrier(ALL). Its time is the time of moving the bytes, which is what the measured rows of
 * the sample compare: tile shapes, pitch alignment, L2 reuse and cores reading the same
 * addresses.
 *
 * Patterns (attribute `pattern`):
 *   slab       core b copies rows [b m/P, (b+1) m/P) (P cores, or P AIVs), tile row by tile
 *              row, each row of tiles left to right; `passes` times over; with `splits` > 1 the columns are cut
 *              into that many parts, each part's passes done before the next part's.
 *   same       every core copies the whole tensor, block by block of m/P rows, all cores on the
 *              same block at the same step (the sample's "same address" rows);
 *   staggered  the same, core b on block (step + b) mod P at each step.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kn_op.h"
#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"

static const kn_io_desc inputs[] = {{"x", "fp16", false, "[m, n] the tensor copied (generated: zeros)"}};
static const kn_attr_desc attrs[] = {
    {"path", KN_ATTR_ENUM, "l1", "l1,ub", "l1: GM -> L1 ND -> NZ (Nd2Nz), on the AI cores; ub: GM -> UB (DataCopyPad), on every AIV"},
    {"m", KN_ATTR_INT, "12288", NULL, "rows of x (generated input)"},
    {"n", KN_ATTR_INT, "12288", NULL, "columns of x (generated input)"},
    {"tile_m", KN_ATTR_INT, "64", NULL, "rows per copy instruction"},
    {"tile_n", KN_ATTR_INT, "256", NULL, "columns per copy instruction (the last tile of a row may be narrower)"},
    {"pattern", KN_ATTR_ENUM, "slab", "slab,same,staggered", "which tiles each core copies when (see kernels/kn_data_copy.c)"},
    {"passes", KN_ATTR_INT, "1", NULL, "slab: times each core copies its rows (of each column part)"},
    {"splits", KN_ATTR_INT, "1", NULL, "slab: column parts, each copied `passes` times before the next"},
    {"l2_bypass", KN_ATTR_BOOL, "false", NULL, "copies neither look up nor fill the L2 (CACHE_MODE_DISABLE)"},
};

typedef struct dc_job {
  bool ub;
  uint32_t m, n, tile_m, tile_n, passes, splits;
  int pattern; /* 0 slab, 1 same, 2 staggered */
  bool bypass;
  rt_gtensor x;
} dc_job;

static uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }
static uint32_t round_up(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

/* One tile: rows r0.., columns c0.. (cols wide) into the buffer. */
static void copy_tile(rt_ctx *ctx, const dc_job *j, rt_ltensor buf, uint32_t r0, uint32_t c0, uint32_t rows, uint32_t cols) {
  rt_gtensor src = rt_gtensor_at(j->x, (uint64_t)r0 * j->n + c0);
  if (j->ub) {
    isa_fmt_copy p;
    memset(&p, 0, sizeof p);
    p.block_count = rows;
    p.block_len_bytes = cols * 2;
    p.src_gap_bytes = (j->n - cols) * 2;
    p.dst_gap_bytes = round_up(cols * 2, 32) - cols * 2; /* UB rows padded to 32 B */
    p.l2_bypass = j->bypass;
    rt_copy_gm_to_local(ctx, buf, src, p);
  } else {
    isa_fmt_nd2nz p;
    memset(&p, 0, sizeof p);
    p.dtype = ISA_FP16;
    p.nd_num = 1;
    p.n_value = rows;
    p.d_value = cols;
    p.src_d_value = j->n;
    p.dst_nz_c0_stride = round_up(rows, 16);
    p.dst_nz_n_stride = 1;
    p.l2_bypass = j->bypass;
    rt_copy_nd2nz(ctx, buf, src, p);
  }
}

/* Rows [r0, r0 + rows) by tiles, columns [c0, c1) left to right. */
static void copy_rows(rt_ctx *ctx, const dc_job *j, rt_ltensor buf, uint32_t r0, uint32_t rows, uint32_t c0, uint32_t c1) {
  for (uint32_t mt = 0; mt < rows && rt_ok(ctx); mt += j->tile_m)
    for (uint32_t c = c0; c < c1 && rt_ok(ctx); c += j->tile_n)
      copy_tile(ctx, j, buf, r0 + mt, c, umin(j->tile_m, rows - mt), umin(j->tile_n, c1 - c));
}

static void dc_kernel(rt_ctx *ctx, void *arg) {
  const dc_job *j = arg;
  uint32_t b = rt_block_idx(ctx), p = rt_block_num(ctx);
  uint64_t bytes = j->ub ? (uint64_t)j->tile_m * round_up(j->tile_n * 2, 32)
                         : (uint64_t)round_up(j->tile_m, 16) * round_up(j->tile_n, 16) * 2;
  rt_ltensor buf = rt_buf_alloc(ctx, j->ub ? RT_POS_VECIN : RT_POS_A1, bytes, ISA_FP16, "tile");
  if (!rt_ok(ctx)) return;
  uint32_t slab = j->m / p; /* the sample's singleCoreM: the caller checked m % cores == 0 */
  if (j->pattern == 0) {
    uint32_t part = (j->n + j->splits - 1) / j->splits;
    for (uint32_t s = 0; s < j->splits; s++)
      for (uint32_t pass = 0; pass < j->passes; pass++)
        copy_rows(ctx, j, buf, b * slab, slab, s * part, umin(j->n, (s + 1) * part));
  } else {
    for (uint32_t step = 0; step < p; step++) {
      uint32_t blk = j->pattern == 2 ? (step + b) % p : step;
      copy_rows(ctx, j, buf, blk * slab, slab, 0, j->n);
    }
  }
  rt_pipe_barrier(ctx, ISA_PIPE_ALL);
}

static cs_status dc_make_inputs(kn_ctx *ctx, cs_err *err) {
  static const char *const dims[2] = {"m", "n"};
  int64_t d[2];
  cs_status st = kn_attr_dims(ctx, dims, 2, 1 << 20, d, err);
  if (st != CS_OK) return st;
  kn_tensor t;
  uint64_t shape[2] = {(uint64_t)d[0], (uint64_t)d[1]};
  if ((st = kn_tensor_alloc(&t, "x", ISA_FP16, 2, shape, err)) != CS_OK) return st;
  return kn_set_input(ctx, "x", &t, err);
}

static cs_status int_attr(kn_ctx *ctx, const char *name, int64_t max, uint32_t *out, cs_err *err) {
  int64_t v;
  cs_status st = kn_attr_int(ctx, name, &v, err);
  if (st != CS_OK) return st;
  if (v < 1 || v > max)
    return cs_err_set(err, CS_EINVAL, "attribute %s = %" PRId64 " is out of range [1, %" PRId64 "]", name, v, max);
  *out = (uint32_t)v;
  return CS_OK;
}

static cs_status dc_run(kn_ctx *ctx, cs_err *err) {
  const kn_run_options *o = kn_options(ctx);
  const kn_tensor *x = kn_input(ctx, "x");
  dc_job j;
  memset(&j, 0, sizeof j);
  const char *path, *pattern;
  cs_status st;
  if ((st = kn_attr_str(ctx, "path", &path, err)) != CS_OK || (st = kn_attr_str(ctx, "pattern", &pattern, err)) != CS_OK ||
      (st = kn_attr_bool(ctx, "l2_bypass", &j.bypass, err)) != CS_OK ||
      (st = int_attr(ctx, "tile_m", 4095, &j.tile_m, err)) != CS_OK ||
      (st = int_attr(ctx, "tile_n", 65535, &j.tile_n, err)) != CS_OK ||
      (st = int_attr(ctx, "passes", 1000, &j.passes, err)) != CS_OK ||
      (st = int_attr(ctx, "splits", 1 << 20, &j.splits, err)) != CS_OK)
    return st;
  if (x->ndim != 2) return cs_err_set(err, CS_EINVAL, "x: 2 dimensions expected, not %u", x->ndim);
  if (x->shape[0] > UINT32_MAX || x->shape[1] > 65535)
    return cs_err_set(err, CS_EINVAL, "x: [%" PRIu64 ", %" PRIu64 "] is too large (rows < 2^32, columns <= 65535)",
                      x->shape[0], x->shape[1]);
  j.ub = strcmp(path, "ub") == 0;
  j.pattern = strcmp(pattern, "same") == 0 ? 1 : strcmp(pattern, "staggered") == 0 ? 2 : 0;
  j.m = (uint32_t)x->shape[0];
  j.n = (uint32_t)x->shape[1];
  /* GM -> L1 runs on the AI cube cores, GM -> UB on the vector cores, as the sample does */
  unsigned cores = (unsigned)(j.ub ? o->cfg->chip_aic_cores * o->cfg->chip_aiv_per_aic : o->cfg->chip_aic_cores);
  if (!cores) return cs_err_set(err, CS_EINVAL, "data_copy path=ub runs on AIV cores: the chip has none (chip.aiv_per_aic = 0)");
  if (j.m % cores)
    return cs_err_set(err, CS_EINVAL, "data_copy: m = %u must be a multiple of the %u %s (each copies m / %u rows)", j.m,
                      cores, j.ub ? "AIV cores" : "cores", cores);
  if (j.splits > j.n) return cs_err_set(err, CS_EINVAL, "data_copy: splits = %u is more than n = %u", j.splits, j.n);
  rt_device *dev;
  if ((st = kn_device_create(ctx, &dev, err)) != CS_OK) return st;
  if ((st = rt_gm_alloc(dev, "x", ISA_FP16, x->count, &j.x, err)) != CS_OK) return st;
  if (x->data && (st = rt_gm_write(dev, j.x, x->data, err)) != CS_OK) return st;
  if ((st = rt_launch_kind(dev, j.ub ? RT_LAUNCH_AIV : RT_LAUNCH_AIC, cores, dc_kernel, &j, err)) != CS_OK) return st;
  return kn_device_run(ctx, err);
}

const kn_op kn_op_data_copy = {
    .name = "data_copy",
    .summary = "GM -> L1 (ND -> NZ) or GM -> UB copy bandwidth: tiles streamed into one buffer, nothing computed",
    .source = "Huawei's Ascend C best-practice sample data_copy (docs/TIMING.md, Calibration)",
    .simulated = true,
    .inputs = KN_LIST(inputs),
    .attrs = KN_LIST(attrs),
    .outputs = NULL,
    .noutputs = 0,
    .run = dc_run,
    .reference = NULL,
    .make_inputs = dc_make_inputs,
};
