/* kn_vec_ops — element-wise operators on the AI vector cores (AIV-only launches,
 * KERNEL_TYPE_AIV_ONLY), written as Huawei's Ascend C samples write them (docs/KERNELS.md,
 * "Vector operators"):
 *   add   z = x + y, fp16 (add_high_performance: each AIV its slice of the elements, in tiles
 *         of dataCopyLen, one or two buffers per queue, optionally around the L2);
 *   gelu  y = GELU(x), fp32, the tanh form of the matmul_gelu sample in 8 vector instructions
 *         (runtime/rt_vec.h rt_gelu).
 * Each AIV copies a tile in (MTE2), computes it (V) and copies it out (MTE3), the three stages
 * handed over by TQue-style queues, so with two buffers the next tile's copy overlaps this one's
 * compute and write-back. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_fparith.h"
#include "isa/isa_num.h"
#include "kernels/kn_mm.h"
#include "kernels/kn_op.h"
#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"
#include "runtime/rt_vec.h"

typedef enum vop { VOP_ADD, VOP_GELU } vop;

typedef struct vjob {
  vop op;
  isa_dtype dt;
  uint64_t count;    /* elements */
  uint32_t tile;     /* elements per tile (dataCopyLen) */
  uint32_t buffers;  /* slots per queue */
  bool bypass;       /* GM copies around the L2 */
  bool interleave;   /* ub_layout=ping_pong: the UB buffers slot by slot (x0 y0 z0 x1 y1 z1) */
  rt_gtensor x, y, z;
} vjob;

static uint64_t u64min(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Elements block b of p handles: slices of whole 32-byte blocks, the last one shorter. */
static void slice(const vjob *j, unsigned b, unsigned p, uint64_t *first, uint64_t *len) {
  uint64_t per_blk = 32 / isa_dtype_bytes(j->dt, 1);
  uint64_t per = (j->count + p - 1) / p;
  per = (per + per_blk - 1) / per_blk * per_blk;
  *first = u64min((uint64_t)b * per, j->count);
  *len = u64min(per, j->count - *first);
}

/* A copy of `bytes`; with l2_bypass the input copies go around the L2 (they neither look it up
 * nor fill it, so they do not evict the output's lines, which stay in the L2). */
static isa_fmt_copy copy_params(const vjob *j, uint64_t bytes, bool input) {
  isa_fmt_copy p = rt_copy_params(bytes);
  p.l2_bypass = j->bypass && input;
  return p;
}

static void vec_kernel(rt_ctx *ctx, void *arg) {
  const vjob *j = arg;
  uint64_t first, len;
  slice(j, rt_block_idx(ctx), rt_block_num(ctx), &first, &len);
  if (!len) return;
  size_t es = isa_dtype_bytes(j->dt, 1);
  uint64_t slot = (uint64_t)j->tile * es;
  rt_queue *qx = rt_queue_init(ctx, RT_POS_VECIN, j->buffers, slot, "x");
  rt_queue *qy = j->op == VOP_ADD ? rt_queue_init(ctx, RT_POS_VECIN, j->buffers, slot, "y") : NULL;
  rt_queue *qz = rt_queue_init(ctx, RT_POS_VECOUT, j->buffers, slot, "z");
  if (j->interleave) {
    rt_queue *qs[3] = {qx, qy ? qy : qz, qz};
    rt_queues_interleave(qs, qy ? 3u : 2u);
  }
  for (uint64_t off = 0; off < len && rt_ok(ctx); off += j->tile) {
    uint32_t n = (uint32_t)u64min(j->tile, len - off);
    uint64_t bytes = (uint64_t)n * es;
    /* CopyIn */
    rt_ltensor x = rt_alloc(qx, j->dt);
    rt_copy_gm_to_local(ctx, x, rt_gtensor_at(j->x, first + off), copy_params(j, bytes, true));
    rt_enque(qx, x);
    rt_ltensor y = {RT_POS_GM, 0, 0, j->dt, -1};
    if (qy) {
      y = rt_alloc(qy, j->dt);
      rt_copy_gm_to_local(ctx, y, rt_gtensor_at(j->y, first + off), copy_params(j, bytes, true));
      rt_enque(qy, y);
    }
    /* Compute */
    x = rt_deque(qx);
    if (qy) y = rt_deque(qy);
    rt_ltensor z = rt_alloc(qz, j->dt);
    if (j->op == VOP_ADD) rt_vbinary_n(ctx, ISA_OP_VADD, z, x, y, n);
    else rt_gelu(ctx, z, x, n);
    rt_free(qx, x);
    if (qy) rt_free(qy, y);
    rt_enque(qz, z);
    /* CopyOut */
    z = rt_deque(qz);
    rt_copy_local_to_gm(ctx, rt_gtensor_at(j->z, first + off), z, copy_params(j, bytes, false));
    rt_free(qz, z);
  }
}

/* ---- the operators' declarations ---------------------------------------------------------- */

static const kn_io_desc add_inputs[] = {
    {"x", "fp16", false, "any shape (generated: [m, n])"},
    {"y", "fp16", false, "the shape of x"},
};
static const kn_io_desc add_outputs[] = {{"z", "fp16", false, "x + y, the shape of x"}};
static const kn_io_desc gelu_inputs[] = {{"x", "fp32", false, "any shape (generated: [m, n])"}};
static const kn_io_desc gelu_outputs[] = {{"y", "fp32", false, "GELU(x), the shape of x"}};

#define VEC_ATTRS(tile_default)                                                                              \
  {"m", KN_ATTR_INT, "8192", NULL, "rows of the generated inputs"},                                          \
  {"n", KN_ATTR_INT, "8192", NULL, "columns of the generated inputs"},                                       \
  {"blocks", KN_ATTR_INT, "0", NULL, "AIV blocks (0: every AIV of the chip, aic_cores x aiv_per_aic)"},     \
  {"tile_len", KN_ATTR_INT, tile_default, NULL, "elements per copy and vector instruction (dataCopyLen)"},  \
  {"buffer_num", KN_ATTR_INT, "2", NULL, "buffers per queue: 1, or 2 (double buffering)"},                  \
  {"l2_bypass", KN_ATTR_BOOL, "false", NULL, "the input copies go around the L2 (CACHE_MODE_DISABLE): the output stays in it"}, \
  {"ub_layout", KN_ATTR_ENUM, "queues", "queues,ping_pong",                                                  \
   "UB buffers queue by queue (TPipe: x0 x1 y0 y1 z0 z1) or slot by slot (static tensors: x0 y0 z0 x1 y1 z1); "  \
   "where they lie decides the vector unit's UB bank conflicts"}

static const kn_attr_desc add_attrs[] = {VEC_ATTRS("16384")};
static const kn_attr_desc gelu_attrs[] = {VEC_ATTRS("8192")};

/* ---- host side ---------------------------------------------------------------------------- */

static cs_status uint_attr(const kn_ctx *ctx, const char *name, int64_t lo, int64_t hi, uint32_t *out, cs_err *err) {
  int64_t v;
  cs_status st = kn_attr_int(ctx, name, &v, err);
  if (st != CS_OK) return st;
  if (v < lo || v > hi)
    return cs_err_set(err, CS_EINVAL, "attribute %s = %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", name, v, lo,
                      hi);
  *out = (uint32_t)v;
  return CS_OK;
}

static cs_status vec_run(kn_ctx *ctx, vop op, cs_err *err) {
  const kn_run_options *o = kn_options(ctx);
  const kn_tensor *x = kn_input(ctx, "x"), *y = op == VOP_ADD ? kn_input(ctx, "y") : NULL;
  vjob j;
  memset(&j, 0, sizeof j);
  j.op = op;
  j.dt = x->dtype;
  j.count = x->count;
  uint32_t blocks = 0;
  cs_status st;
  unsigned aivs = (unsigned)(o->cfg->chip_aic_cores * o->cfg->chip_aiv_per_aic);
  if ((st = uint_attr(ctx, "blocks", 0, 65535, &blocks, err)) != CS_OK ||
      (st = uint_attr(ctx, "tile_len", 16, 1 << 24, &j.tile, err)) != CS_OK ||
      (st = uint_attr(ctx, "buffer_num", 1, 2, &j.buffers, err)) != CS_OK ||
      (st = kn_attr_bool(ctx, "l2_bypass", &j.bypass, err)) != CS_OK)
    return st;
  const char *layout = NULL;
  if ((st = kn_attr_str(ctx, "ub_layout", &layout, err)) != CS_OK) return st;
  j.interleave = strcmp(layout, "ping_pong") == 0;
  if (y && y->count != x->count) {
    char a[64], b[64];
    kn_shape_str(x, a, sizeof a);
    kn_shape_str(y, b, sizeof b);
    return cs_err_set(err, CS_EINVAL, "y: shape %s but x is %s", b, a);
  }
  if (j.tile % (32 / isa_dtype_bytes(j.dt, 1)))
    return cs_err_set(err, CS_EINVAL, "attribute tile_len = %u: a whole number of 32-byte blocks is needed (%u elements)",
                      j.tile, (unsigned)(32 / isa_dtype_bytes(j.dt, 1)));
  if (!aivs) return cs_err_set(err, CS_EINVAL, "%s runs on AIV cores: the chip has none (chip.aiv_per_aic = 0)",
                               op == VOP_ADD ? "add" : "gelu");
  if (!blocks) blocks = aivs;
  rt_device *dev;
  if ((st = kn_device_create(ctx, &dev, err)) != CS_OK) return st;
  const char *zn = op == VOP_ADD ? "z" : "y";
  if ((st = rt_gm_alloc(dev, "x", j.dt, j.count, &j.x, err)) != CS_OK ||
      (x->data && (st = rt_gm_write(dev, j.x, x->data, err)) != CS_OK))
    return st;
  if (y && ((st = rt_gm_alloc(dev, "y", j.dt, j.count, &j.y, err)) != CS_OK ||
            (y->data && (st = rt_gm_write(dev, j.y, y->data, err)) != CS_OK)))
    return st;
  if ((st = rt_gm_alloc(dev, zn, j.dt, j.count, &j.z, err)) != CS_OK) return st;
  if ((st = rt_launch_kind(dev, RT_LAUNCH_AIV, blocks, vec_kernel, &j, err)) != CS_OK) return st;
  if ((st = kn_device_run(ctx, err)) != CS_OK) return st;
  kn_tensor *out;
  if ((st = kn_output_alloc(ctx, zn, j.dt, x->ndim, x->shape, &out, err)) != CS_OK) return st;
  if (kn_ctx_has_data(ctx)) return rt_gm_read(dev, j.z, out->data, err);
  return CS_OK;
}

static cs_status vec_reference(kn_ctx *ctx, vop op, cs_err *err) {
  const kn_tensor *x = kn_input(ctx, "x"), *y = op == VOP_ADD ? kn_input(ctx, "y") : NULL;
  kn_tensor *out;
  cs_status st = kn_reference_alloc(ctx, op == VOP_ADD ? "z" : "y", x->dtype, x->ndim, x->shape, &out, err);
  if (st != CS_OK) return st;
  bool sat = kn_options(ctx)->cfg->chip_fixpipe_saturation;
  for (uint64_t i = 0; i < x->count; i++) {
    if (op == VOP_ADD) {
      float s = isa_f32_add(isa_f16_to_f32(((const uint16_t *)x->data)[i]), isa_f16_to_f32(((const uint16_t *)y->data)[i]));
      ((uint16_t *)out->data)[i] = sat ? isa_f32_to_f16_sat(s) : isa_f32_to_f16(s);
    } else {
      ((float *)out->data)[i] = kn_gelu_f32(((const float *)x->data)[i]);
    }
  }
  return CS_OK;
}

/* Generated inputs: x (and y) uniform over [-4, 4) rounded to the type; timing-only runs get
 * shapes alone. */
static cs_status vec_make_inputs(kn_ctx *ctx, vop op, cs_err *err) {
  static const char *const dims[2] = {"m", "n"};
  int64_t d[2];
  cs_status st = kn_attr_dims(ctx, dims, 2, 1 << 20, d, err);
  if (st != CS_OK) return st;
  uint64_t shape[2] = {(uint64_t)d[0], (uint64_t)d[1]}, seed = kn_options(ctx)->seed ? kn_options(ctx)->seed : 1;
  isa_dtype dt = op == VOP_ADD ? ISA_FP16 : ISA_FP32;
  bool data = kn_ctx_has_data(ctx);
  for (int w = 0; w < (op == VOP_ADD ? 2 : 1); w++) {
    const char *nm = w ? "y" : "x";
    if (kn_input(ctx, nm)) continue;
    kn_tensor t;
    if ((st = data ? kn_tensor_alloc(&t, nm, dt, 2, shape, err) : kn_tensor_shape(&t, nm, dt, 2, shape, err)) != CS_OK)
      return st;
    for (uint64_t i = 0; data && i < t.count; i++) {
      float f = (float)(kn_rng_unit(&seed) * 8 - 4);
      if (dt == ISA_FP16) ((uint16_t *)t.data)[i] = isa_f32_to_f16(f);
      else ((float *)t.data)[i] = f;
    }
    if ((st = kn_set_input(ctx, nm, &t, err)) != CS_OK) return st;
  }
  return CS_OK;
}

static cs_status add_run(kn_ctx *c, cs_err *e) { return vec_run(c, VOP_ADD, e); }
static cs_status add_ref(kn_ctx *c, cs_err *e) { return vec_reference(c, VOP_ADD, e); }
static cs_status add_make(kn_ctx *c, cs_err *e) { return vec_make_inputs(c, VOP_ADD, e); }
static cs_status gelu_run(kn_ctx *c, cs_err *e) { return vec_run(c, VOP_GELU, e); }
static cs_status gelu_ref(kn_ctx *c, cs_err *e) { return vec_reference(c, VOP_GELU, e); }
static cs_status gelu_make(kn_ctx *c, cs_err *e) { return vec_make_inputs(c, VOP_GELU, e); }

const kn_op kn_op_add = {
    "add", "z = x + y, fp16, on the AIV cores (tiles of tile_len, one or two buffers)",
    "Huawei's Ascend C best-practice sample add_high_performance (AIV-only)", true,
    KN_LIST(add_inputs), KN_LIST(add_attrs), KN_LIST(add_outputs),
    add_run, add_ref, add_make,
};

const kn_op kn_op_gelu = {
    "gelu", "y = GELU(x) (tanh form), fp32, on the AIV cores",
    "the GELU kernel of Huawei's Ascend C sample matmul_gelu_high_performance (AIV-only)", true,
    KN_LIST(gelu_inputs), KN_LIST(gelu_attrs), KN_LIST(gelu_outputs),
    gelu_run, gelu_ref, gelu_make,
};
