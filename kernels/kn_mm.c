/* kn_mm — the shared multi-core matmul kernel, its launcher and its host reference. */
#include "kernels/kn_mm.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_host.h"
#include "isa/isa_fixpipe.h"
#include "isa/isa_fparith.h"
#include "isa/isa_mmad.h"
#include "isa/isa_num.h"
#include "isa/isa_vmath.h"
#include "runtime/rt_intrin.h"
#include "runtime/rt_vec.h"

static uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
static uint32_t round_up(uint32_t a, uint32_t b) { return cdiv(a, b) * b; }
static uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }

size_t kn_mm_out_elem_bytes(const kn_mm_job *job) {
  return job->epilogue == KN_EPI_DEQ_BF16 ? 2 : isa_dtype_bytes(job->ty.c, 1);
}

/* ---- conversions ------------------------------------------------------------------------ */

cs_status kn_to_device(const kn_tensor *t, isa_dtype as, void **out, uint64_t *inexact, cs_err *err) {
  if (!t->data) { /* a shape without data (timing-only): nothing to convert */
    *out = NULL;
    return CS_OK;
  }
  uint64_t n = t->count;
  void *d = calloc(isa_dtype_bytes(as, n) + 1, 1);
  if (!d) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", t->name);
  if (as == ISA_INT4) {
    cs_status st = isa_int4_pack((const int8_t *)t->data, n, d, err);
    if (st != CS_OK) {
      free(d);
      cs_err_prefix(err, "%s", t->name);
      return st;
    }
  } else if (as == ISA_BF16) {
    const float *f = t->data;
    uint16_t *h = d;
    for (uint64_t i = 0; i < n; i++) {
      h[i] = isa_f32_to_bf16(f[i]);
      if (inexact && isa_bf16_to_f32(h[i]) != f[i] && f[i] == f[i]) (*inexact)++;
    }
  } else {
    memcpy(d, t->data, isa_dtype_bytes(as, n));
  }
  *out = d;
  return CS_OK;
}

void kn_from_device(const void *dev, isa_dtype as, kn_tensor *t) {
  if (as == ISA_INT4) isa_int4_unpack(dev, t->count, t->data);
  else if (as == ISA_BF16)
    for (uint64_t i = 0; i < t->count; i++) ((float *)t->data)[i] = isa_bf16_to_f32(((const uint16_t *)dev)[i]);
  else
    memcpy(t->data, dev, isa_dtype_bytes(as, t->count));
}

/* ---- stored forms ---------------------------------------------------------------------- */

/* Element (r, c) of a stored R x C matrix: ND row-major, or FRACTAL_NZ [ceil(C/C0)][ceil16(R)][C0]
 * (docs/ISA.md, NZ); and the elements the stored form holds. */
static uint64_t stored_index(bool nz, uint32_t c0, uint32_t rows, uint32_t cols, uint32_t r, uint32_t c) {
  if (!nz) return (uint64_t)r * cols + c;
  return ((uint64_t)(c / c0) * round_up(rows, 16) + r) * c0 + c % c0;
}
static uint64_t stored_elems(bool nz, uint32_t c0, uint32_t rows, uint32_t cols) {
  return nz ? (uint64_t)round_up(cols, c0) * round_up(rows, 16) : (uint64_t)rows * cols;
}

/* A(i, κ) and B(κ, j) in their stored forms: A is M x K (transposed: K x M), B K x N (N x K). */
static uint64_t a_index(const kn_mm_job *j, uint32_t i, uint32_t kk) {
  uint32_t c0 = isa_dtype_c0(j->ty.a);
  return j->ty.a_trans ? stored_index(j->ty.a_nz, c0, j->k, j->m, kk, i) : stored_index(j->ty.a_nz, c0, j->m, j->k, i, kk);
}
static uint64_t b_index(const kn_mm_job *j, uint32_t kk, uint32_t col) {
  uint32_t c0 = isa_dtype_c0(j->ty.b);
  return j->ty.b_trans ? stored_index(j->ty.b_nz, c0, j->n, j->k, col, kk) : stored_index(j->ty.b_nz, c0, j->k, j->n, kk, col);
}
static uint64_t a_elems(const kn_mm_job *j) {
  uint32_t c0 = isa_dtype_c0(j->ty.a);
  return j->ty.a_trans ? stored_elems(j->ty.a_nz, c0, j->k, j->m) : stored_elems(j->ty.a_nz, c0, j->m, j->k);
}
static uint64_t b_elems(const kn_mm_job *j) {
  uint32_t c0 = isa_dtype_c0(j->ty.b);
  return j->ty.b_trans ? stored_elems(j->ty.b_nz, c0, j->n, j->k) : stored_elems(j->ty.b_nz, c0, j->k, j->n);
}

cs_status kn_mm_dim(const char *what, uint64_t v, uint32_t *out, cs_err *err) {
  if (v == 0 || v > 1u << 24)
    return cs_err_set(err, CS_EINVAL, "%s = %" PRIu64 " is out of range [1, %u]", what, v, 1u << 24);
  *out = (uint32_t)v;
  return CS_OK;
}

cs_status kn_mm_tiling_attrs(const kn_ctx *ctx, kn_mm_job *j, cs_err *err) {
  memset(&j->tiling, 0, sizeof j->tiling);
  j->tiling_given = 0;
  cs_status st;
  for (int i = 0; i < RT_TF_COUNT; i++) {
    const rt_tiling_field *f = rt_tiling_field_at(i);
    if (!f->attr || !kn_attr_given(ctx, f->name)) continue;
    int64_t v = 0;
    if (f->names) {
      const char *text;
      if ((st = kn_attr_str(ctx, f->name, &text, err)) != CS_OK) return st;
      if ((v = rt_tiling_value_parse(i, text)) < 0)
        return cs_err_set(err, CS_EINVAL, "attribute %s = \"%s\" is not one of %s", f->name, text, f->names);
    } else {
      if ((st = kn_attr_int(ctx, f->name, &v, err)) != CS_OK) return st;
      if (v < f->lo || v > f->hi)
        return cs_err_set(err, CS_EINVAL, "attribute %s = %" PRId64 " is out of range [%u, %u]", f->name, v, f->lo, f->hi);
    }
    rt_tiling_set(&j->tiling, i, (uint32_t)v);
    j->tiling_given |= (rt_tiling_mask)1 << i;
  }
  if (kn_attr_given(ctx, "step_k")) { /* the alias of the earlier single step */
    int64_t v;
    if ((st = kn_attr_int(ctx, "step_k", &v, err)) != CS_OK) return st;
    if (j->tiling_given & (RT_TILING_BIT(step_ka) | RT_TILING_BIT(step_kb)))
      return cs_err_set(err, CS_EINVAL, "attribute step_k sets step_ka and step_kb: give step_k or those, not both");
    if (v < 1 || v > 65535) return cs_err_set(err, CS_EINVAL, "attribute step_k = %" PRId64 " is out of range [1, 65535]", v);
    j->tiling.step_ka = j->tiling.step_kb = (uint32_t)v;
    j->tiling_given |= RT_TILING_BIT(step_ka) | RT_TILING_BIT(step_kb);
  }
  const char *mode = "auto";
  if (kn_attr_given(ctx, "tiling") && (st = kn_attr_str(ctx, "tiling", &mode, err)) != CS_OK) return st;
  j->tiling_analytic = strcmp(mode, "analytic") == 0;
  /* m, n and k shape generated inputs; given with inputs of another shape they are a mistake (a
   * --tiling file for another problem, say) */
  static const char *const dims[3] = {"m", "n", "k"};
  const uint32_t have[3] = {j->m, j->n, j->k};
  for (int d = 0; d < 3 && !kn_inputs_generated(ctx); d++) {
    int64_t v;
    if (!kn_attr_given(ctx, dims[d])) continue;
    if ((st = kn_attr_int(ctx, dims[d], &v, err)) != CS_OK) return st;
    if (v != (int64_t)have[d])
      return cs_err_set(err, CS_EINVAL, "attribute %s = %" PRId64 " but the inputs have %s = %u", dims[d], v, dims[d], have[d]);
  }
  return CS_OK;
}

/* ---- the kernel ------------------------------------------------------------------------- */

typedef struct launch {
  const kn_mm_job *job;
  rt_tiling tiling;
  rt_gtensor a, b, bias, qvec, c, work, scale;
  rt_gtensor za, zb, rowsum, zablk, colv; /* KN_EPI_QCORR: parameters and the AIVs' workspaces */
  uint64_t a_batch, b_batch, c_batch; /* elements per batch */
  uint64_t blocks;                    /* blocks of C per batch */
  unsigned cores;                     /* the cores the work is dealt to (used_core_num) */
} launch;

/* A launch the device keeps (rt_launch_concurrent_owned): L and the job it points to. */
typedef struct owned_launch {
  launch L; /* first: &o->L is o */
  kn_mm_job job;
} owned_launch;

static void free_owned(void *args) { free(args); }

/* One piece of a core's work: a block of one batch and the base tiles of it the core computes. */
typedef struct piece {
  uint32_t batch;
  rt_rect blk;
  uint64_t first, count, stride;
} piece;

/* The next piece of core c's work (*g and *off start at 0): block split, the blocks c, c + P,
 * ... of all batches; round-robin, the base tiles c, c + P, ... of all blocks of all batches. */
static bool next_piece(const launch *L, unsigned c, uint64_t *g, uint64_t *off, piece *p) {
  const rt_tiling *t = &L->tiling;
  uint64_t total = L->blocks * L->job->batch, P = L->cores;
  for (; *g < total; (*g)++) {
    p->batch = (uint32_t)(*g / L->blocks);
    p->blk = rt_tiling_block(t, *g % L->blocks);
    uint64_t nt = rt_tiling_tile_count(t, p->blk.ml, p->blk.nl);
    if (t->core_split == RT_SPLIT_BLOCK) {
      if (*g % P != c) continue;
      p->first = 0;
      p->count = nt;
      p->stride = 1;
    } else {
      uint64_t first = (c + P - *off % P) % P;
      *off += nt;
      if (first >= nt) continue;
      p->first = first;
      p->count = (nt - first + P - 1) / P;
      p->stride = P;
    }
    (*g)++;
    return true;
  }
  return false;
}

/* Pieces of work in all: blocks (block split) or base tiles (round-robin), all batches. */
static uint64_t work_items(const launch *L) {
  if (L->tiling.core_split == RT_SPLIT_BLOCK) return L->blocks * L->job->batch;
  uint64_t tiles = 0;
  for (uint64_t b = 0; b < L->blocks; b++) {
    rt_rect r = rt_tiling_block(&L->tiling, b);
    tiles += rt_tiling_tile_count(&L->tiling, r.ml, r.nl);
  }
  return tiles * L->job->batch;
}

/* An AIV's walk over the tiles its AIC computes, in the AIC's order (next_piece), for the MIX
 * kernels' AIV sides: for each, the wait for the AIC's flag that says the tile is in GM (unless
 * the job drops it: cross_sync/gelu_sync no_wait), then this AIV's share of the tile's rows (the
 * sub-block's half with two AIVs per AI core); tiles with no rows for this AIV are skipped after
 * their wait, since each flag raises every AIV of the AI core. */
typedef struct aiv_tile {
  piece p;           /* the piece the tile belongs to */
  rt_rect r;         /* the tile, within p.blk */
  uint32_t lo, hi;   /* this AIV's rows of the tile: [lo, hi) relative to r.m0 */
  uint32_t n0;       /* the tile's first column in C */
  uint64_t g, off, i; /* the walk's position: next_piece's and the tile within the piece */
} aiv_tile;

static bool next_aiv_tile(rt_ctx *ctx, const launch *L, aiv_tile *a) {
  unsigned nv = rt_task_ratio(ctx), sub = rt_sub_block_idx(ctx), c = rt_block_idx(ctx) / nv;
  while (rt_ok(ctx)) {
    if (a->i >= a->p.count) {
      if (!next_piece(L, c, &a->g, &a->off, &a->p)) return false;
      a->i = 0;
      continue;
    }
    a->r = rt_tiling_tile(&L->tiling, a->p.blk.ml, a->p.blk.nl, a->p.first + a->i++ * a->p.stride);
    if (L->job->gelu_sync != KN_GELU_NO_WAIT) rt_cross_wait_flag_pipe(ctx, ISA_PIPE_MTE2, KN_GELU_FLAG);
    uint32_t half = (a->r.ml + nv - 1) / nv;
    a->lo = umin(sub * half, a->r.ml);
    a->hi = umin(a->lo + half, a->r.ml);
    a->n0 = a->p.blk.n0 + a->r.n0;
    if (a->lo < a->hi) return true;
  }
  return false;
}

/* The AIV side of a MIX epilogue (KN_EPI_GELU_AIV, KN_EPI_DEQ_BF16): the tiles its AIC computes,
 * in the same order; for each, once the AIC's flag says the tile is in GM, its share of the rows
 * (half of them with two AIVs per AI core) through UB in chunks of rows that fit two buffers of
 * each queue:
 *   GELU      fp32 in from C, GELU, fp32 back to C in place;
 *   DEQ_BF16  int32 in from the workspace, vdeq with the tile's column scales (loaded once per
 *             tile), bf16 out to C (ATB Linear with bf16 output, docs/DESIGN.md §5.3). */
static void epilogue_aiv(rt_ctx *ctx, const launch *L) {
  const kn_mm_job *j = L->job;
  const rt_tiling *t = &L->tiling;
  bool deq = j->epilogue == KN_EPI_DEQ_BF16;
  uint32_t nl_max = umin(t->base_n, j->n);
  uint32_t in_row = round_up(nl_max * 4, 32), out_row = deq ? round_up(nl_max * 2, 32) : in_row;
  uint64_t fixed = deq ? (uint64_t)round_up(nl_max * 4, 32) + 256 : 0, free_ub = rt_buf_free_bytes(ctx, RT_POS_VECIN);
  uint64_t room = free_ub > fixed ? free_ub - fixed : 0; /* a small UB must not wrap around */
  uint32_t rows = (uint32_t)(room / (2 * ((uint64_t)in_row + out_row))); /* two queues of two buffers */
  if (rows > t->base_m) rows = t->base_m;
  if (rows == 0) {
    rt_fail(ctx, "%s: UB cannot hold one row of %u columns", deq ? "linear epilogue" : "matmul_gelu", nl_max);
    return;
  }
  rt_queue *qscale = deq ? rt_queue_init(ctx, RT_POS_VECIN, 1, (uint64_t)nl_max * 4, "scale") : NULL;
  rt_queue *qin = rt_queue_init(ctx, RT_POS_VECIN, 2, (uint64_t)rows * in_row, deq ? "epilogue in" : "gelu in");
  rt_queue *qout = rt_queue_init(ctx, RT_POS_VECOUT, 2, (uint64_t)rows * out_row, deq ? "epilogue out" : "gelu out");
  rt_gtensor src_t = deq ? L->work : L->c;
  isa_dtype in_t = deq ? ISA_INT32 : ISA_FP32, out_t = deq ? ISA_BF16 : ISA_FP32;
  size_t ob = deq ? 2 : 4;
  uint32_t in_stride = in_row / 4, out_stride = out_row / (uint32_t)ob;
  aiv_tile a = {0};
  while (next_aiv_tile(ctx, L, &a)) {
    const piece p = a.p;
    const rt_rect r = a.r;
    uint32_t r_lo = a.lo, r_hi = a.hi, n0 = a.n0;
    rt_ltensor sc = {RT_POS_GM, 0, 0, ISA_FP32, -1};
    if (deq) {
      sc = rt_alloc(qscale, ISA_FP32);
      rt_gtensor scale = rt_gtensor_at(L->scale, (uint64_t)(j->q_batched ? p.batch : 0) * j->n + n0);
      rt_copy_gm_to_local(ctx, sc, scale, rt_copy_params((uint64_t)r.nl * 4));
      rt_enque(qscale, sc);
      sc = rt_deque(qscale);
    }
    for (uint32_t r0 = r_lo; r0 < r_hi && rt_ok(ctx); r0 += rows) {
      uint32_t rn = umin(rows, r_hi - r0);
      uint64_t at = (uint64_t)p.batch * L->c_batch + (uint64_t)(p.blk.m0 + r.m0 + r0) * j->n + n0;
      isa_fmt_copy cp;
      memset(&cp, 0, sizeof cp);
      cp.block_count = rn;
      cp.block_len_bytes = r.nl * 4;
      cp.src_gap_bytes = (j->n - r.nl) * 4;
      cp.dst_gap_bytes = (in_stride - r.nl) * 4;
      rt_ltensor in = rt_alloc(qin, in_t);
      rt_copy_gm_to_local(ctx, in, rt_gtensor_at(src_t, at), cp);
      rt_enque(qin, in);
      in = rt_deque(qin);
      rt_ltensor out = rt_alloc(qout, out_t);
      if (deq) {
        isa_fmt_vdeq v;
        memset(&v, 0, sizeof v);
        v.out_dtype = ISA_BF16;
        v.rows = rn;
        v.cols = r.nl;
        v.src_row_stride = in_stride;
        v.dst_row_stride = out_stride;
        rt_vdeq(ctx, out, in, sc, v);
      } else {
        rt_gelu(ctx, out, in, rn * in_stride);
      }
      rt_free(qin, in);
      rt_enque(qout, out);
      out = rt_deque(qout);
      memset(&cp, 0, sizeof cp);
      cp.block_count = rn;
      cp.block_len_bytes = r.nl * (uint32_t)ob;
      cp.src_gap_bytes = (out_stride - r.nl) * (uint32_t)ob;
      cp.dst_gap_bytes = (j->n - r.nl) * (uint32_t)ob;
      rt_copy_local_to_gm(ctx, rt_gtensor_at(L->c, at), out, cp);
      rt_free(qout, out);
    }
    if (deq) rt_free(qscale, sc);
  }
}

/* ---- KN_EPI_QCORR: the zero-point corrections of the quantized matmuls on the AIVs ---------
 *
 * Three phases (kn_mm_qcorr in kn_mm.h), int32 vector arithmetic wrapping (docs/ISA.md), so
 * every value is exact modulo 2^32:
 *   1. column sums (col): items of QC_COLS columns of one batch's b', dealt round-robin to the
 *      AIVs; K rows at a time GM -> UB, int8 -> fp16 -> int32 (vcast, both exact; vreduce has
 *      no integer form), and one vadd per 64 columns adds the rows into an accumulator (Ascend's
 *      accumulate pattern: dst = src1, repeat stride 0); then v = K·zb' - sums (vmuls, vsub),
 *      times za' for the bias (vmuls), UB -> GM;
 *   2. row sums (row): items of up to rg rows of one batch's a'; kc elements of each row at a
 *      time, converted as above, and one vadd per 8 rows folds them block by block: a repeat's 8
 *      blocks are the 8 rows (block stride: the row), its repeats walk along the rows, so each
 *      row ends as 8 partial sums in one block; vbrcb spreads the 8 over 8 blocks and one vadd
 *      per 8 rows adds those, leaving each row's sum 8 times in its block: the form the tiles'
 *      per-row operand takes (block stride 0). row_za: a's zero points get the same form (vbrcb);
 *   3. the tiles (row, row_za): each AIV takes the tiles its AIC computes, in the same order, each
 *      once the AIC's cross-core flag says the fixpipe wrote it, and its half of the rows (two
 *      AIVs an AI core) in chunks: C and the rows' blocks GM -> UB, tmp = sum ⊗ zb' and C - tmp,
 *      tmp = za' ⊗ v and C + tmp (a vmul and a vsub / vadd per 64 columns, the rows as repeats),
 *      UB -> GM in place.
 * Phases 1 and 2 are an AIV-only launch of their own on the AIVs of the MIX launch's AI cores:
 * the runtime computes a launch's data block by block, each AIC before its AIVs (docs/API.md,
 * "MIX kernels and data"), so the bias the cube reads and the row sums of other AI cores' AIVs
 * must come from an earlier launch. The MIX launch opens with SyncAll — of every core when the
 * cube starts from the AIVs' bias, of the AIVs otherwise — which the timing needs (the engine
 * replays launches back to back without the host's wait): the cube starts once every AIV has
 * finished phases 1 and 2, as in one fused kernel with a SyncAll between the phases. */

#define QC_COLS 128u /* columns of b' per column-sum item: a 512-byte int32 row */
#define QC_KC 512u   /* elements of each a' row per row-sum pass: a block stride of 64 */
#define QC_LANES 64u /* int32 lanes of a repeat */

typedef enum qc_opnd {
  QC_TILE,   /* rows `stride` elements apart */
  QC_ROWVAL, /* one 32-byte block per row: its value 8 times */
  QC_COLVEC  /* one vector of the tile's columns, the same for every row */
} qc_opnd;

typedef struct qc_ub {
  rt_queue *qin, *qout, *qcol;
  rt_ltensor ca, cb, acc, vec, acc8, brc; /* VECCALC */
  uint32_t kr, kc, rg, rows, stride, col_bytes;
  uint64_t unit;
} qc_ub;

/* Whether the AIVs correct the int32 tiles (phase 3): a row part, or a column part the cube does
 * not start from. */
static bool qc_tiles_needed(const kn_mm_job *j) { return j->qc.row || j->qc.row_za || (j->qc.col && !j->qc.bias); }

/* Columns of a column-sum item: 128, or 64 when that gives the AIVs too few items. */
static uint32_t qc_item_cols(const kn_mm_job *j, unsigned nv_all) {
  return (uint64_t)j->batch * cdiv(j->n, QC_COLS) >= nv_all ? QC_COLS : QC_LANES;
}

static uint64_t lanes_mask(uint32_t n) { return n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1; }
static rt_ltensor as_type(rt_ltensor t, isa_dtype d) {
  t.dtype = d;
  return t;
}
static void vbarrier(rt_ctx *ctx) { rt_pipe_barrier(ctx, ISA_PIPE_V); }

static void qc_operand(qc_opnd k, uint32_t rep, uint32_t c0, rt_ltensor *t, uint32_t *blk, uint32_t *rs) {
  switch (k) {
    case QC_TILE: *blk = 1, *rs = rep, *t = rt_ltensor_at(*t, (uint64_t)c0 * 4); break;
    case QC_ROWVAL: *blk = 0, *rs = 1; break;
    case QC_COLVEC: *blk = 1, *rs = 0, *t = rt_ltensor_at(*t, (uint64_t)c0 * 4); break;
  }
}

/* dst = s0 op s1 over rows x cols int32 elements, dst a tile: one instruction per 64 columns,
 * the rows as its repeats (rows <= 255, stride / 8 <= 255). */
static void qc_tile_op(rt_ctx *ctx, isa_op op, rt_ltensor dst, rt_ltensor s0, qc_opnd k0, rt_ltensor s1, qc_opnd k1,
                       uint32_t rows, uint32_t cols, uint32_t stride) {
  uint32_t rep = stride / 8;
  for (uint32_t c0 = 0; c0 < cols; c0 += QC_LANES) {
    isa_fmt_vbinary p;
    memset(&p, 0, sizeof p);
    p.mask_mode = ISA_VMASK_NORM;
    p.mask_lo = lanes_mask(cols - c0);
    p.repeat_times = rows;
    p.dst_blk_stride = 1;
    p.dst_rep_stride = rep;
    rt_ltensor o0 = s0, o1 = s1;
    qc_operand(k0, rep, c0, &o0, &p.src0_blk_stride, &p.src0_rep_stride);
    qc_operand(k1, rep, c0, &o1, &p.src1_blk_stride, &p.src1_rep_stride);
    rt_vbinary(ctx, op, rt_ltensor_at(dst, (uint64_t)c0 * 4), o0, o1, p);
  }
}

/* acc (blocks of 8 int32, one per row, blk stride 1) += `repeats` blocks of each of the rows
 * (src: row b's blocks at src + b * src_blk_stride blocks, one a repeat), lanes as `mask`. */
static void qc_fold(rt_ctx *ctx, rt_ltensor acc, rt_ltensor src, uint32_t src_blk_stride, uint32_t repeats,
                    uint64_t mask) {
  isa_fmt_vbinary p;
  memset(&p, 0, sizeof p);
  p.mask_mode = ISA_VMASK_NORM;
  p.mask_lo = mask;
  p.repeat_times = repeats;
  p.dst_blk_stride = p.src1_blk_stride = 1;
  p.dst_rep_stride = p.src1_rep_stride = 0;
  p.src0_blk_stride = src_blk_stride;
  p.src0_rep_stride = 1;
  rt_vbinary(ctx, ISA_OP_VADD, acc, src, acc, p);
}

static isa_fmt_copy rows_copy(uint32_t count, uint32_t len, uint32_t src_gap, uint32_t dst_gap) {
  isa_fmt_copy cp;
  memset(&cp, 0, sizeof cp);
  cp.block_count = count;
  cp.block_len_bytes = len;
  cp.src_gap_bytes = src_gap;
  cp.dst_gap_bytes = dst_gap;
  return cp;
}

/* The UB of one AIV: two queues of two `unit` slots (in, out), VECCALC of 2 and 4 units (fp16
 * and int32 staging, the tiles' scratch), the row sums' blocks, and for the tiles a queue of
 * their column vectors; the phases' sizes follow. false (and a fault) if the UB is too small. */
static bool qc_ub_init(rt_ctx *ctx, const launch *L, qc_ub *u) {
  const kn_mm_job *j = L->job;
  const rt_tiling *t = &L->tiling;
  memset(u, 0, sizeof *u);
  bool tiles = qc_tiles_needed(j);
  uint32_t nl_max = umin(t->base_n, j->n);
  u->col_bytes = round_up(nl_max * 4, 32);
  u->stride = u->col_bytes / 4;
  u->kc = umin(QC_KC, round_up(j->k, 32));
  uint64_t fixed = 2 * (uint64_t)QC_COLS * 4 + (tiles ? 2 * (uint64_t)u->col_bytes : 0);
  uint64_t free_ub = rt_buf_free_bytes(ctx, RT_POS_VECIN), avail = free_ub > fixed ? free_ub - fixed : 0;
  uint64_t rg = avail / 11 / u->kc; /* rows of a row item: all of them if they fit, else groups of 8 */
  if (rg > 255) rg = 255;
  if (rg >= j->m) rg = j->m;
  else if (rg >= 8) rg -= rg % 8;
  uint64_t rest = avail > rg * 288 ? avail - rg * 288 : 0;
  u->unit = rest / 10 / 32 * 32;
  if (rg > u->unit / u->kc) rg = u->unit / u->kc;
  u->rg = (uint32_t)rg;
  uint64_t kr = u->unit / QC_COLS, rows = u->unit / (u->col_bytes + 64);
  u->kr = (uint32_t)(kr < 255 ? kr : 255);
  u->rows = (uint32_t)(rows < 255 ? rows : 255);
  if (u->rows > t->base_m) u->rows = t->base_m;
  if (u->stride / 8 > 255) {
    rt_fail(ctx, "quantized matmul corrections: a tile row of %u int32 is beyond the 255 blocks of a repeat stride", nl_max);
    return false;
  }
  if (!u->rg || !u->kr || (tiles && !u->rows)) {
    rt_fail(ctx, "quantized matmul corrections: a UB of %" PRIu64 " free bytes cannot hold one row (%u elements of a, "
            "%u columns of a tile)", free_ub, u->kc, nl_max);
    return false;
  }
  u->qin = rt_queue_init(ctx, RT_POS_VECIN, 2, u->unit, "qmm in");
  u->qout = rt_queue_init(ctx, RT_POS_VECOUT, 2, u->unit, "qmm out");
  u->ca = rt_buf_alloc(ctx, RT_POS_VECCALC, 2 * u->unit, ISA_FP16, "qmm fp16");
  u->cb = rt_buf_alloc(ctx, RT_POS_VECCALC, 4 * u->unit, ISA_INT32, "qmm int32");
  u->acc = rt_buf_alloc(ctx, RT_POS_VECCALC, QC_COLS * 4, ISA_INT32, "qmm column sums");
  u->vec = rt_buf_alloc(ctx, RT_POS_VECCALC, QC_COLS * 4, ISA_INT32, "qmm K zb");
  u->acc8 = rt_buf_alloc(ctx, RT_POS_VECCALC, (uint64_t)u->rg * 32, ISA_INT32, "qmm row partials");
  u->brc = rt_buf_alloc(ctx, RT_POS_VECCALC, (uint64_t)u->rg * 256, ISA_INT32, "qmm row spread");
  if (tiles) u->qcol = rt_queue_init(ctx, RT_POS_VECIN, 1, 2 * (uint64_t)u->col_bytes, "qmm columns");
  return rt_ok(ctx);
}

/* Phase 1: v[c] = K·zb'[c] - Σ_t b'[t][c] (row_za), else za'·v[c] (the bias, or the tiles'
 * column term), for this AIV's column items; returns how many items there are in all. */
static uint64_t qc_col_sums(rt_ctx *ctx, const launch *L, const qc_ub *u, unsigned v, unsigned nv_all) {
  const kn_mm_job *j = L->job;
  bool times_za = !j->qc.row_za;
  uint32_t w = qc_item_cols(j, nv_all), ipb = cdiv(j->n, w);
  uint64_t items = (uint64_t)j->batch * ipb;
  for (uint64_t it = v; it < items && rt_ok(ctx); it += nv_all) {
    uint32_t bi = (uint32_t)(it / ipb), c0 = (uint32_t)(it % ipb) * w, cw = umin(w, j->n - c0);
    vbarrier(ctx);
    rt_vdup_n(ctx, u->acc, 0, QC_COLS);
    for (uint32_t t0 = 0; t0 < j->k && rt_ok(ctx); t0 += u->kr) {
      uint32_t kr = umin(u->kr, j->k - t0);
      rt_ltensor in = rt_alloc(u->qin, ISA_INT8);
      uint64_t at = (uint64_t)bi * L->b_batch + (uint64_t)t0 * j->n + c0;
      rt_copy_gm_to_local(ctx, in, rt_gtensor_at(L->b, at), rows_copy(kr, cw, j->n - cw, QC_COLS - cw));
      rt_enque(u->qin, in);
      in = rt_deque(u->qin);
      vbarrier(ctx);
      rt_vcast_n(ctx, u->ca, in, ISA_ROUND_NONE, kr * QC_COLS);
      vbarrier(ctx);
      rt_free(u->qin, in);
      rt_vcast_n(ctx, u->cb, u->ca, ISA_ROUND_RINT, kr * QC_COLS);
      vbarrier(ctx);
      for (uint32_t s0 = 0; s0 < cw; s0 += QC_LANES) { /* the kr rows into acc */
        isa_fmt_vbinary p;
        memset(&p, 0, sizeof p);
        p.mask_mode = ISA_VMASK_NORM;
        p.mask_lo = lanes_mask(cw - s0);
        p.repeat_times = kr;
        p.dst_blk_stride = p.src0_blk_stride = p.src1_blk_stride = 1;
        p.src0_rep_stride = QC_COLS * 4 / 32;
        rt_ltensor a = rt_ltensor_at(u->acc, (uint64_t)s0 * 4);
        rt_vbinary(ctx, ISA_OP_VADD, a, rt_ltensor_at(u->cb, (uint64_t)s0 * 4), a, p);
      }
    }
    rt_ltensor z = rt_alloc(u->qin, ISA_INT32);
    rt_copy_gm_to_local(ctx, z, rt_gtensor_at(L->zb, (uint64_t)bi * j->n + c0), rt_copy_params((uint64_t)cw * 4));
    rt_enque(u->qin, z);
    z = rt_deque(u->qin);
    rt_vscalar_n(ctx, ISA_OP_VMULS, u->vec, z, (double)j->k, cw);
    rt_ltensor out = rt_alloc(u->qout, ISA_INT32);
    vbarrier(ctx);
    rt_free(u->qin, z);
    rt_vbinary_n(ctx, ISA_OP_VSUB, out, u->vec, u->acc, cw);
    if (times_za) {
      vbarrier(ctx);
      rt_vscalar_n(ctx, ISA_OP_VMULS, out, out, (double)j->qc.za[(uint64_t)bi * j->m], cw);
    }
    rt_enque(u->qout, out);
    out = rt_deque(u->qout);
    rt_copy_local_to_gm(ctx, rt_gtensor_at(j->qc.bias ? L->bias : L->colv, (uint64_t)bi * j->n + c0), out,
                        rt_copy_params((uint64_t)cw * 4));
    rt_free(u->qout, out);
  }
  return items;
}

/* Phase 2: each row's Σ_t a'[r][t] (row) and za'[r] (row_za) as blocks of 8, for this AIV's row
 * items. */
static void qc_row_sums(rt_ctx *ctx, const launch *L, const qc_ub *u, unsigned v, unsigned nv_all, uint64_t skip) {
  const kn_mm_job *j = L->job;
  uint32_t ipb = cdiv(j->m, u->rg);
  uint64_t items = (uint64_t)j->batch * ipb;
  /* the round-robin goes on from the column items: item i to AIV (skip + i) mod nv_all */
  for (uint64_t it = (v + nv_all - skip % nv_all) % nv_all; it < items && rt_ok(ctx); it += nv_all) {
    uint32_t bi = (uint32_t)(it / ipb), r0 = (uint32_t)(it % ipb) * u->rg, rg = umin(u->rg, j->m - r0);
    uint64_t row_at = ((uint64_t)bi * j->m + r0) * 8;
    if (j->qc.row) {
      vbarrier(ctx);
      rt_vdup_n(ctx, u->acc8, 0, rg * 8);
      for (uint32_t t0 = 0; t0 < j->k && rt_ok(ctx); t0 += u->kc) {
        uint32_t kc = umin(u->kc, j->k - t0);
        rt_ltensor in = rt_alloc(u->qin, ISA_INT8);
        uint64_t at = (uint64_t)bi * L->a_batch + (uint64_t)r0 * j->k + t0;
        rt_copy_gm_to_local(ctx, in, rt_gtensor_at(L->a, at), rows_copy(rg, kc, j->k - kc, u->kc - kc));
        rt_enque(u->qin, in);
        in = rt_deque(u->qin);
        vbarrier(ctx);
        rt_vcast_n(ctx, u->ca, in, ISA_ROUND_NONE, rg * u->kc);
        vbarrier(ctx);
        rt_free(u->qin, in);
        rt_vcast_n(ctx, u->cb, u->ca, ISA_ROUND_RINT, rg * u->kc);
        vbarrier(ctx);
        uint32_t full = kc / 8, tail = kc % 8;
        for (int part = 0; part < 2; part++) { /* the whole blocks, then (after a barrier) the last one */
          if (part ? !tail : !full) continue;
          if (part && full) vbarrier(ctx);
          for (uint32_t g = 0; g * 8 < rg; g++) {
            uint32_t rows_in = umin(8, rg - g * 8);
            rt_ltensor acc = rt_ltensor_at(u->acc8, (uint64_t)g * 256);
            rt_ltensor src = rt_ltensor_at(u->cb, (uint64_t)g * 8 * u->kc * 4);
            uint64_t mask = 0;
            for (uint32_t b = 0; b < rows_in; b++) mask |= lanes_mask(part ? tail : 8) << (8 * b);
            qc_fold(ctx, acc, part ? rt_ltensor_at(src, (uint64_t)full * 32) : src, u->kc / 8, part ? 1 : full, mask);
          }
        }
      }
      vbarrier(ctx);
      isa_fmt_vbrcb b;
      memset(&b, 0, sizeof b);
      b.repeat_times = rg; /* row r's 8 partials over 8 blocks */
      b.dst_blk_stride = 1;
      b.dst_rep_stride = 8;
      rt_vbrcb(ctx, u->brc, u->acc8, b);
      rt_ltensor out = rt_alloc(u->qout, ISA_INT32);
      rt_vdup_n(ctx, out, 0, rg * 8);
      vbarrier(ctx);
      for (uint32_t g = 0; g * 8 < rg; g++) /* block b of repeat q: row 8g + b's partial q */
        qc_fold(ctx, rt_ltensor_at(out, (uint64_t)g * 256), rt_ltensor_at(u->brc, (uint64_t)g * 2048), 8, 8,
                lanes_mask(umin(8, rg - g * 8) * 8));
      rt_enque(u->qout, out);
      out = rt_deque(u->qout);
      rt_copy_local_to_gm(ctx, rt_gtensor_at(L->rowsum, row_at), out, rt_copy_params((uint64_t)rg * 32));
      rt_free(u->qout, out);
    }
    if (j->qc.row_za) {
      rt_ltensor z = rt_alloc(u->qin, ISA_INT32);
      rt_copy_gm_to_local(ctx, z, rt_gtensor_at(L->za, (uint64_t)bi * j->m + r0), rt_copy_params((uint64_t)rg * 4));
      rt_enque(u->qin, z);
      z = rt_deque(u->qin);
      rt_ltensor out = rt_alloc(u->qout, ISA_INT32);
      isa_fmt_vbrcb b;
      memset(&b, 0, sizeof b);
      b.repeat_times = cdiv(rg, 8);
      b.dst_blk_stride = 1;
      b.dst_rep_stride = 8;
      rt_vbrcb(ctx, out, z, b);
      rt_free(u->qin, z);
      rt_enque(u->qout, out);
      out = rt_deque(u->qout);
      rt_copy_local_to_gm(ctx, rt_gtensor_at(L->zablk, row_at), out, rt_copy_params((uint64_t)rg * 32));
      rt_free(u->qout, out);
    }
  }
}

/* Phase 3: the row and column parts on the tiles of this AIV's AIC, its share of each tile's rows. */
static void qc_tiles(rt_ctx *ctx, const launch *L, const qc_ub *u) {
  const kn_mm_job *j = L->job;
  bool ra = j->qc.row, zr = j->qc.row_za, cu = j->qc.col && !j->qc.bias && !zr; /* cu: za' uniform */
  uint32_t row_bytes = u->stride * 4;
  uint64_t aux = (uint64_t)u->rows * row_bytes; /* the rows' blocks follow the tile's rows in a slot */
  aiv_tile a = {0};
  while (next_aiv_tile(ctx, L, &a)) {
    const piece p = a.p;
    const rt_rect r = a.r;
    uint32_t r_lo = a.lo, r_hi = a.hi, n0 = a.n0;
    uint64_t col_at = (uint64_t)p.batch * j->n + n0;
    rt_ltensor cv = rt_alloc(u->qcol, ISA_INT32);
    if (ra) rt_copy_gm_to_local(ctx, cv, rt_gtensor_at(L->zb, col_at), rt_copy_params((uint64_t)r.nl * 4));
    if (zr || cu)
      rt_copy_gm_to_local(ctx, rt_ltensor_at(cv, u->col_bytes), rt_gtensor_at(L->colv, col_at),
                          rt_copy_params((uint64_t)r.nl * 4));
    rt_enque(u->qcol, cv);
    cv = rt_deque(u->qcol);
    for (uint32_t r0 = r_lo; r0 < r_hi && rt_ok(ctx); r0 += u->rows) {
      uint32_t rn = umin(u->rows, r_hi - r0), m_abs = p.blk.m0 + r.m0 + r0;
      uint64_t at = (uint64_t)p.batch * L->c_batch + (uint64_t)m_abs * j->n + n0;
      uint64_t blk_at = ((uint64_t)p.batch * j->m + m_abs) * 8;
      rt_ltensor in = rt_alloc(u->qin, ISA_INT32);
      rt_ltensor rb = rt_ltensor_at(in, aux), zab = rt_ltensor_at(in, aux + (uint64_t)u->rows * 32);
      rt_copy_gm_to_local(ctx, in, rt_gtensor_at(L->c, at), rows_copy(rn, r.nl * 4, (j->n - r.nl) * 4, row_bytes - r.nl * 4));
      if (ra) rt_copy_gm_to_local(ctx, rb, rt_gtensor_at(L->rowsum, blk_at), rt_copy_params((uint64_t)rn * 32));
      if (zr) rt_copy_gm_to_local(ctx, zab, rt_gtensor_at(L->zablk, blk_at), rt_copy_params((uint64_t)rn * 32));
      rt_enque(u->qin, in);
      in = rt_deque(u->qin);
      rt_ltensor out = rt_alloc(u->qout, ISA_INT32), tmp = as_type(u->ca, ISA_INT32), acc = in;
      vbarrier(ctx);
      if (ra) { /* C - Σ_t a'[r][t] · zb'[c] */
        qc_tile_op(ctx, ISA_OP_VMUL, tmp, rb, QC_ROWVAL, cv, QC_COLVEC, rn, r.nl, u->stride);
        vbarrier(ctx);
        qc_tile_op(ctx, ISA_OP_VSUB, out, in, QC_TILE, tmp, QC_TILE, rn, r.nl, u->stride);
        acc = out;
      }
      if (zr) { /* + za'[r] · (K·zb'[c] - Σ_t b'[t][c]) */
        vbarrier(ctx);
        qc_tile_op(ctx, ISA_OP_VMUL, tmp, zab, QC_ROWVAL, rt_ltensor_at(cv, u->col_bytes), QC_COLVEC, rn, r.nl, u->stride);
        vbarrier(ctx);
        qc_tile_op(ctx, ISA_OP_VADD, out, acc, QC_TILE, tmp, QC_TILE, rn, r.nl, u->stride);
      } else if (cu) { /* + za'·(K·zb'[c] - Σ_t b'[t][c]), one vector for every row */
        if (ra) vbarrier(ctx);
        qc_tile_op(ctx, ISA_OP_VADD, out, acc, QC_TILE, rt_ltensor_at(cv, u->col_bytes), QC_COLVEC, rn, r.nl, u->stride);
      }
      rt_free(u->qin, in);
      rt_enque(u->qout, out);
      out = rt_deque(u->qout);
      rt_copy_local_to_gm(ctx, rt_gtensor_at(L->c, at), out, rows_copy(rn, r.nl * 4, row_bytes - r.nl * 4, (j->n - r.nl) * 4));
      rt_free(u->qout, out);
    }
    rt_free(u->qcol, cv);
  }
}

/* The first launch (AIV-only, every AIV of the MIX launch's AI cores): phases 1 and 2. */
static void qc_sums_kernel(rt_ctx *ctx, void *arg) {
  const launch *L = arg;
  const kn_mm_job *j = L->job;
  qc_ub u;
  if (!qc_ub_init(ctx, L, &u)) return;
  unsigned v = rt_block_idx(ctx), nv_all = rt_block_num(ctx);
  uint64_t col_items = j->qc.col ? qc_col_sums(ctx, L, &u, v, nv_all) : 0;
  if (j->qc.row || j->qc.row_za) qc_row_sums(ctx, L, &u, v, nv_all, col_items);
}

/* Whether the cube starts from the AIVs' bias (and every core opens the MIX launch with SyncAll). */
static bool qc_bias_sync(const kn_mm_job *j) { return j->qc.bias; }

/* The AIV side of the MIX launch: SyncAll (the AIVs' alone when the cube needs no bias), phase 3. */
static void qcorr_aiv(rt_ctx *ctx, const launch *L) {
  const kn_mm_job *j = L->job;
  bool tiles = qc_tiles_needed(j);
  if (qc_bias_sync(j)) rt_sync_all(ctx, false);
  else if (tiles) rt_sync_all(ctx, true);
  qc_ub u;
  if (tiles && qc_ub_init(ctx, L, &u)) qc_tiles(ctx, L, &u);
}

static void mm_kernel(rt_ctx *ctx, void *arg) {
  const launch *L = arg;
  const kn_mm_job *j = L->job;
  const rt_tiling *t = &L->tiling;
  bool qc = j->epilogue == KN_EPI_QCORR;
  if (rt_core_kind_of(ctx) == RT_CORE_AIV) {
    if (qc) qcorr_aiv(ctx, L);
    else epilogue_aiv(ctx, L);
    return;
  }
  /* the bias the AIVs compute (phase 1 of qcorr_aiv) is in GM once every core passed SyncAll */
  if (qc && qc_bias_sync(j)) rt_sync_all(ctx, false);
  rt_matmul_types ty = j->ty;
  rt_matmul *mm = rt_matmul_init(ctx, &ty, t);
  if (!mm) return;
  rt_matmul_set_relu(mm, j->relu);
  unsigned c = rt_block_idx(ctx);
  rt_gtensor out = j->epilogue == KN_EPI_DEQ_BF16 ? L->work : L->c;
  uint64_t g = 0, off = 0;
  piece p;
  bool mix = j->epilogue == KN_EPI_GELU_AIV || j->epilogue == KN_EPI_DEQ_BF16 || (qc && qc_tiles_needed(j));
  while (rt_ok(ctx) && next_piece(L, c, &g, &off, &p)) {
    uint32_t b = p.batch;
    rt_matmul_set_tensor_a(mm, rt_gtensor_at(L->a, b * L->a_batch));
    rt_matmul_set_tensor_b(mm, rt_gtensor_at(L->b, j->b_batched ? b * L->b_batch : 0));
    if (ty.has_bias) rt_matmul_set_bias(mm, rt_gtensor_at(L->bias, j->bias_batched ? (uint64_t)b * j->n : 0));
    if (j->qvec) rt_matmul_set_quant_vector(mm, rt_gtensor_at(L->qvec, j->q_batched ? (uint64_t)b * j->n : 0));
    else if (j->has_qscalar) rt_matmul_set_quant_scalar(mm, j->qscalar);
    rt_matmul_set_block(mm, p.blk.m0, p.blk.n0, p.blk.ml, p.blk.nl);
    if (mix) { /* tile by tile, each handed to the AIVs once in GM */
      for (uint64_t i = 0; i < p.count && rt_ok(ctx); i++) {
        rt_matmul_set_tile_range(mm, p.first + i * p.stride, 1, 1);
        rt_matmul_iterate_all(mm, rt_gtensor_at(out, b * L->c_batch));
        if (j->gelu_sync != KN_GELU_NO_SET) rt_cross_set_flag(ctx, 2, ISA_PIPE_FIX, KN_GELU_FLAG);
      }
      continue;
    }
    rt_matmul_set_tile_range(mm, p.first, p.count, p.stride);
    rt_matmul_iterate_all(mm, rt_gtensor_at(out, b * L->c_batch));
  }
  rt_matmul_end(mm);
}

/* Allocates a GM tensor and fills it from host data (none: it stays zero). */
static cs_status gm_tensor(rt_device *dev, const char *name, isa_dtype dt, uint64_t count,
                           const void *data, rt_gtensor *out, cs_err *err) {
  cs_status st = rt_gm_alloc(dev, name, dt, count, out, err);
  return st == CS_OK && data ? rt_gm_write(dev, *out, data, err) : st;
}

/* Allocates the job's GM tensors on dev (filled from the host data unless timing-only) and
 * records the kernel with tiling t. */
static cs_status record_job(rt_device *dev, const kn_mm_job *job, const rt_tiling *t, launch *L, cs_err *err) {
  memset(L, 0, sizeof *L);
  L->job = job;
  L->tiling = *t;
  const rt_matmul_types *ty = &job->ty;
  uint64_t mk = a_elems(job), kn = b_elems(job), mn = (uint64_t)job->m * job->n;
  L->a_batch = mk;
  L->b_batch = kn;
  L->c_batch = mn;
  uint32_t nb = job->b_batched ? job->batch : 1;
  uint32_t pb = job->bias_batched ? job->batch : 1, qb = job->q_batched ? job->batch : 1;
  isa_dtype bias_t = ty->a == ISA_INT8 || ty->a == ISA_INT4 ? ISA_INT32 : ISA_FP32;
  isa_dtype cdt = job->epilogue == KN_EPI_DEQ_BF16 ? ISA_BF16 : ty->c;
  cs_status st;
  if ((st = gm_tensor(dev, "A", ty->a, job->batch * mk, job->a, &L->a, err)) != CS_OK ||
      (st = gm_tensor(dev, "B", ty->b, nb * kn, job->b, &L->b, err)) != CS_OK ||
      (st = gm_tensor(dev, "C", cdt, job->batch * mn, NULL, &L->c, err)) != CS_OK)
    return st;
  if (ty->has_bias && (st = gm_tensor(dev, "bias", bias_t, (uint64_t)pb * job->n, job->bias, &L->bias, err)) != CS_OK)
    return st;
  if (job->qvec && (st = gm_tensor(dev, "quant words", ISA_UINT64, (uint64_t)qb * job->n, job->qvec, &L->qvec, err)) != CS_OK)
    return st;
  if (job->epilogue == KN_EPI_DEQ_BF16 &&
      ((st = gm_tensor(dev, "workspace", ISA_INT32, job->batch * mn, NULL, &L->work, err)) != CS_OK ||
       (st = gm_tensor(dev, "scale", ISA_FP32, (uint64_t)qb * job->n, job->epi_scale, &L->scale, err)) != CS_OK))
    return st;
  L->blocks = rt_tiling_block_count(t);
  L->cores = t->used_core_num;
  uint64_t items = work_items(L);
  if (t->core_split == RT_SPLIT_BLOCK && t->used_core_num > items)
    return cs_err_set(err, CS_EINVAL, "tiling: used_core_num = %u but the split makes only %" PRIu64 " blocks (single_core_m "
                      "%u, single_core_n %u, l2_split %u, batch %u)", t->used_core_num, items, t->single_core_m,
                      t->single_core_n, t->l2_split, job->batch);
  unsigned blocks = (unsigned)(items < L->cores ? items : L->cores);
  const kn_mm_qcorr *qc = &job->qc;
  if (job->epilogue == KN_EPI_QCORR) {
    uint64_t bm = (uint64_t)job->batch * job->m, bn = (uint64_t)job->batch * job->n;
    if ((qc->row_za && (st = gm_tensor(dev, "a zero points", ISA_INT32, bm, qc->za, &L->za, err)) != CS_OK) ||
        ((st = gm_tensor(dev, "b zero points", ISA_INT32, bn, qc->zb, &L->zb, err)) != CS_OK) ||
        (qc->row && (st = gm_tensor(dev, "row sums", ISA_INT32, bm * 8, NULL, &L->rowsum, err)) != CS_OK) ||
        (qc->row_za && (st = gm_tensor(dev, "a zero point blocks", ISA_INT32, bm * 8, NULL, &L->zablk, err)) != CS_OK) ||
        (qc->col && !qc->bias && (st = gm_tensor(dev, "column terms", ISA_INT32, bn, NULL, &L->colv, err)) != CS_OK))
      return st;
  }
  unsigned per = (unsigned)rt_device_config(dev)->chip_aiv_per_aic;
  if (job->epilogue == KN_EPI_QCORR && per >= 1 && (st = rt_launch_kind(dev, RT_LAUNCH_AIV, blocks * (per >= 2 ? 2 : 1),
                                                                       qc_sums_kernel, L, err)) != CS_OK)
    return st;
  if (job->epilogue == KN_EPI_GELU_AIV || job->epilogue == KN_EPI_DEQ_BF16 || job->epilogue == KN_EPI_QCORR)
    return rt_launch_kind(dev, rt_device_config(dev)->chip_aiv_per_aic >= 2 ? RT_LAUNCH_MIX_1_2 : RT_LAUNCH_MIX_1_1,
                          blocks, mm_kernel, L, err);
  /* the AIC-only kernel reads L and writes nothing outside its block: its cores may record at
   * once, and again whenever the device asks (a timing-only run that streams, sim_record_cores),
   * from a copy of L and of the job's fields the kernel reads (shapes, types, the epilogue) that
   * the device keeps */
  owned_launch *o = malloc(sizeof *o);
  if (!o) return cs_err_set(err, CS_ENOMEM, "matmul: no host memory for the launch");
  o->job = *job;
  /* the host data is not the kernel's to read (only whether there are quant words: qvec stays) */
  o->job.a = o->job.b = o->job.bias = o->job.c = NULL;
  o->job.epi_scale = NULL;
  o->L = *L;
  o->L.job = &o->job;
  return rt_launch_concurrent_owned(dev, blocks, mm_kernel, &o->L, free_owned, err);
}

/* The starting point of the search: the shape, and the fields the attributes gave. */
static rt_tiling search_start(const kn_mm_job *job) {
  rt_tiling t = job->tiling;
  t.m = job->m;
  t.n = job->n;
  t.ka = t.kb = job->k;
  return t;
}

/* The model's cycles for tiling t: a timing-only run on a device of its own, recording and
 * replaying on `threads` host threads (0: the default). */
static cs_status model_cycles(const sim_config *cfg, const kn_mm_job *job, const rt_tiling *t, unsigned threads,
                              uint64_t *cycles, cs_err *err) {
  rt_device *dev;
  cs_status st = rt_device_create(
      cfg, &(sim_options){.timing_only = true, .record_threads = threads, .stream_record = true}, &dev, err);
  if (st != CS_OK) return st;
  launch L;
  st = record_job(dev, job, t, &L, err);
  if (st == CS_OK) st = rt_device_run(dev, &(sim_run_options){.allow_hazards = true, .host_threads = threads}, err);
  *cycles = st == CS_OK ? rt_device_result(dev)->total_cycles : 0;
  rt_device_destroy(dev);
  return st;
}

/* The model runs of a search, one per candidate, each on a device of its own. */
typedef struct model_runs {
  const sim_config *cfg;
  const kn_mm_job *job;
  rt_tiling_choice *c;
  unsigned threads; /* each run's */
  cs_status st[KN_MM_TIMED_MAX];
  cs_err err[KN_MM_TIMED_MAX];
} model_runs;

static void model_run(void *arg, unsigned i) {
  model_runs *r = arg;
  r->st[i] = model_cycles(r->cfg, r->job, &r->c[i].t, r->threads, &r->c[i].model_cycles, &r->err[i]);
}

cs_status kn_mm_search(const sim_config *cfg, const kn_mm_job *job, rt_tiling_choice *out, unsigned max, unsigned *count,
                       int timed, unsigned *timed_out, cs_err *err) {
  if (max > RT_TILING_CHOICES_MAX) max = RT_TILING_CHOICES_MAX;
  rt_tiling start = search_start(job);
  unsigned n = 0;
  cs_status st = rt_tiling_search(cfg, &job->ty, job->batch, &start, job->tiling_given, out, max, &n, err);
  if (st != CS_OK) return st;
  unsigned nt = timed < 0 ? kn_mm_model_budget(out, n) : (unsigned)timed < n ? (unsigned)timed : n;
  /* the runs at once on the host's threads (each then on one thread: what they give is the same
   * on any number), the first failure in candidate order reported */
  unsigned host = job->host_threads;
  for (unsigned i = 0; i < nt; i += KN_MM_TIMED_MAX) {
    unsigned m = nt - i < KN_MM_TIMED_MAX ? nt - i : KN_MM_TIMED_MAX;
    model_runs r = {cfg, job, out + i, m == 1 ? host : 1, {0}, {{0}}};
    rt_host_parallel(m == 1 ? 1 : host, m, model_run, &r);
    for (unsigned j = 0; j < m; j++)
      if (r.st[j] != CS_OK) {
        *err = r.err[j];
        return r.st[j];
      }
  }
  /* the timed ones first, by the model's cycles (a stable insertion sort keeps estimate ties) */
  for (unsigned i = 1; i < nt; i++)
    for (unsigned j = i; j > 0 && out[j].model_cycles < out[j - 1].model_cycles; j--) {
      rt_tiling_choice x = out[j];
      out[j] = out[j - 1];
      out[j - 1] = x;
    }
  *count = n;
  if (timed_out) *timed_out = nt;
  return CS_OK;
}

unsigned kn_mm_model_budget(const rt_tiling_choice *c, unsigned n) {
  uint64_t sum = 0;
  unsigned k = 0;
  for (; k < n && k < KN_MM_TIMED_MAX; k++) {
    sum += c[k].est.instructions + KN_MM_MODEL_SETUP_INSNS;
    if (sum > KN_MM_MODEL_BUDGET_INSNS) break;
  }
  return k >= 2 ? k : 0;
}

/* Completes the job's tiling: the search's best, by the model where the budget allows. */
static cs_status choose_tiling(const sim_config *cfg, const kn_mm_job *job, rt_tiling *out, cs_err *err) {
  rt_tiling_choice c[RT_TILING_CHOICES_MAX];
  unsigned n = 0;
  cs_status st = kn_mm_search(cfg, job, c, RT_TILING_CHOICES_MAX, &n, job->tiling_analytic ? 0 : -1, NULL, err);
  if (st == CS_OK) *out = c[0].t;
  return st;
}

/* ---- host memory ------------------------------------------------------------------------ */

static uint64_t mul_sat(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* Bytes of `count` elements of t in device form (int4: two per byte). */
static uint64_t device_bytes(isa_dtype t, uint64_t count) {
  uint64_t bits = isa_dtype_bits(t);
  return mul_sat(count, bits) / 8 + (mul_sat(count, bits) % 8 != 0);
}

/* The fewest mmads any tiling needs: one mmad's base_m x base_k, base_k x base_n and
 * base_m x base_n blocks must fit L0A, L0B and L0C (fp32 accumulators), so its volume
 * base_m * base_n * base_k is at most the square root of the product of those three limits. */
static uint64_t min_instructions(const sim_config *cfg, uint64_t batch, uint64_t m, uint64_t n, uint64_t k,
                                 isa_dtype a, isa_dtype b) {
  double la = (double)cfg->buffers_l0a_bytes * 8 / isa_dtype_bits(a), lb = (double)cfg->buffers_l0b_bytes * 8 / isa_dtype_bits(b);
  double lc = (double)cfg->buffers_l0c_bytes / 4;
  double volume = sqrt(la * lb * lc), work = (double)batch * (double)m * (double)n * (double)k;
  double mmads = ceil(work / (volume > 1 ? volume : 1));
  return mmads >= 1.8e19 ? UINT64_MAX : (uint64_t)mmads;
}

void kn_mm_footprint(const kn_ctx *ctx, uint64_t batch, uint64_t m, uint64_t n, uint64_t k, isa_dtype a, isa_dtype b,
                     isa_dtype c, uint64_t instructions, bool cube_only, kn_footprint *out) {
  const kn_run_options *o = kn_options(ctx);
  memset(out, 0, sizeof *out);
  uint64_t mk = mul_sat(mul_sat(batch, m), k), kn = mul_sat(mul_sat(batch, k), n), mn = mul_sat(mul_sat(batch, m), n);
  out->inputs_bytes = add_sat(mul_sat(mk, kn_host_elem_bytes(a)), mul_sat(kn, kn_host_elem_bytes(b)));
  uint64_t gm = add_sat(add_sat(device_bytes(a, mk), device_bytes(b, kn)), device_bytes(c, mn));
  /* a timing-only run holds no data: generated inputs and the outputs are shapes, and nothing
   * is converted to device form (inputs read from files are counted as they are read) */
  if (o->timing_only) out->inputs_bytes = 0;
  else {
    out->device_bytes = add_sat(add_sat(device_bytes(a, mk), device_bytes(b, kn)), device_bytes(c, mn));
    out->outputs_bytes = mul_sat(mn, kn_host_elem_bytes(c));
  }
  out->instructions = instructions ? instructions : min_instructions(o->cfg, batch, m, n, k, a, b);
  /* a timing-only device streams the launch of a cube-only matmul (kn_device_create) */
  sim_footprint_run run = {.timing_only = o->timing_only, .gm_bytes = gm, .instructions = out->instructions,
                           .traced = o->trace != NULL || o->observer != NULL, .streamable = cube_only,
                           .host_threads = o->host_threads};
  sim_footprint_estimate(o->cfg, &run, &out->sim);
  out->total_bytes =
      add_sat(add_sat(out->inputs_bytes, out->device_bytes), add_sat(out->outputs_bytes, out->sim.total_bytes));
}

/* The type attribute `attr` (given, or its default) if the operator declares it, else the
 * first type in `declared` ("fp16,bf16,int8"): ISA_DTYPE_COUNT when neither names one. */
static isa_dtype type_of(const kn_ctx *ctx, const char *attr, const char *declared) {
  const kn_op *op = kn_ctx_op(ctx);
  for (uint32_t i = 0; i < op->nattrs; i++) {
    if (strcmp(op->attrs[i].name, attr) != 0) continue;
    const char *v;
    if (kn_attr_given(ctx, attr) || op->attrs[i].def)
      return kn_attr_str(ctx, attr, &v, NULL) == CS_OK ? isa_dtype_from_name(v) : ISA_DTYPE_COUNT;
  }
  char first[16];
  snprintf(first, sizeof first, "%.*s", (int)strcspn(declared, ","), declared);
  return isa_dtype_from_name(first);
}

/* An integer attribute >= 1, or 0 when it is not declared or not valid (make_inputs says why). */
static uint64_t dim_attr(const kn_ctx *ctx, const char *name) {
  const kn_op *op = kn_ctx_op(ctx);
  for (uint32_t i = 0; i < op->nattrs; i++) {
    int64_t v;
    if (strcmp(op->attrs[i].name, name) == 0)
      return kn_attr_int(ctx, name, &v, NULL) == CS_OK && v >= 1 ? (uint64_t)v : 0;
  }
  return 0;
}

cs_status kn_mm_preflight_attrs(kn_ctx *ctx, cs_err *err) {
  const kn_op *op = kn_ctx_op(ctx);
  uint64_t m = dim_attr(ctx, "m"), n = dim_attr(ctx, "n"), k = dim_attr(ctx, "k"), batch = dim_attr(ctx, "batch");
  if (!op->ninputs || !op->noutputs || !m || !n || !k) return CS_OK; /* nothing to go on */
  isa_dtype a = type_of(ctx, "in_dtype", op->inputs[0].dtypes), c = type_of(ctx, "out_dtype", op->outputs[0].dtypes);
  if (a >= ISA_DTYPE_COUNT || c >= ISA_DTYPE_COUNT) return CS_OK;
  kn_footprint f;
  kn_mm_footprint(ctx, batch ? batch : 1, m, n, k, a, a, c, 0, false, &f);
  return kn_check_footprint(ctx, &f, err);
}

cs_status kn_mm_simulate(kn_ctx *ctx, kn_mm_job *job, cs_err *err) {
  const kn_run_options *o = kn_options(ctx);
  unsigned top;
  int timed;
  if (kn_tile_search(ctx, &top, &timed)) { /* cubesim tile: the candidates, no run */
    rt_tiling_choice c[RT_TILING_CHOICES_MAX];
    unsigned n = 0;
    job->host_threads = o->host_threads;
    cs_status st = kn_mm_search(o->cfg, job, c, top, &n, timed, NULL, err);
    if (st == CS_OK) kn_set_tiling_choices(ctx, c, n);
    return st;
  }
  rt_tiling t;
  job->host_threads = o->host_threads;
  cs_status st = choose_tiling(o->cfg, job, &t, err);
  if (st != CS_OK) return st;
  kn_set_tiling(ctx, &t);
  /* the preflight again, now with the tiling's count of instructions */
  kn_footprint f;
  isa_dtype c = job->epilogue == KN_EPI_DEQ_BF16 ? ISA_BF16 : job->ty.c;
  kn_mm_footprint(ctx, job->batch, job->m, job->n, job->k, job->ty.a, job->ty.b, c,
                  rt_tiling_estimate(o->cfg, &job->ty, &t, job->batch).instructions, job->epilogue == KN_EPI_NONE, &f);
  if ((st = kn_check_footprint(ctx, &f, err)) != CS_OK) return st;
  rt_device *dev;
  launch L;
  if ((st = kn_device_create(ctx, &dev, err)) != CS_OK || (st = record_job(dev, job, &t, &L, err)) != CS_OK ||
      (st = kn_device_run(ctx, err)) != CS_OK)
    return st;
  return !o->timing_only && job->c ? rt_gm_read(dev, L.c, job->c, err) : CS_OK;
}

/* ---- the host reference ----------------------------------------------------------------- */

/* One fp32 GELU step by step as rt_gelu computes it (docs/ISA.md: fp32 arithmetic rounded to
 * nearest even, Exp correctly rounded with subnormal results flushed to +0, scalars rounded to
 * fp32). */
float kn_gelu_f32(float x) {
  float t = isa_f32_mul(x, x);
  t = isa_f32_mul(t, x);
  t = isa_f32_mul(t, (float)0.044715);
  t = isa_f32_add(x, t);
  t = isa_f32_mul(t, (float)-1.595769);
  uint32_t e = isa_vmath_exp((double)t, ISA_FLOAT_FP32);
  if ((e & 0x7F800000u) == 0) e &= 0x80000000u; /* flush a subnormal result */
  float ef;
  memcpy(&ef, &e, sizeof ef);
  t = isa_f32_add(ef, 1.0f);
  return isa_f32_div(x, t);
}


/* Element (r, c) of a stored matrix in device form, as a double (ints exact, floats exact). */
static double elem(const void *base, isa_dtype t, uint64_t idx) {
  switch (t) {
    case ISA_INT8: return ((const int8_t *)base)[idx];
    case ISA_INT4: return isa_int4_get(base, idx);
    case ISA_FP16: return isa_f16_to_f32(((const uint16_t *)base)[idx]);
    case ISA_BF16: return isa_bf16_to_f32(((const uint16_t *)base)[idx]);
    default: return 0;
  }
}

cs_status kn_mm_reference(const kn_mm_job *j, const sim_config *cfg, void *c, cs_err *err) {
  const rt_matmul_types *ty = &j->ty;
  bool is_int = ty->a == ISA_INT8 || ty->a == ISA_INT4;
  uint32_t k0 = isa_dtype_c0(ty->a);
  uint64_t mk = a_elems(j), kn = b_elems(j), mn = (uint64_t)j->m * j->n;
  isa_quant_mode mode = j->epilogue == KN_EPI_DEQ_BF16 ? ISA_QUANT_NO_QUANT : rt_matmul_quant_mode(ty, j->qvec != NULL);
  size_t ob = kn_mm_out_elem_bytes(j);
  double *arow = malloc(sizeof(double) * j->k);
  double *terms = malloc(sizeof(double) * k0);
  if (!arow || !terms) {
    free(arow);
    free(terms);
    return cs_err_set(err, CS_ENOMEM, "reference: no host memory");
  }
  for (uint32_t b = 0; b < j->batch; b++) {
    const uint8_t *abase = j->a;
    uint64_t a_off = (uint64_t)b * mk;
    uint64_t b_off = j->b_batched ? (uint64_t)b * kn : 0;
    for (uint32_t i = 0; i < j->m; i++) {
      for (uint32_t kk = 0; kk < j->k; kk++)
        arow[kk] = elem(abase, ty->a, a_off + a_index(j, i, kk));
      for (uint32_t col = 0; col < j->n; col++) {
        uint32_t x_bits;
        uint64_t bias_idx = (j->bias_batched ? (uint64_t)b * j->n : 0) + col;
        if (is_int) { /* exact, wrapping into int32 */
          uint32_t acc = ty->has_bias ? (uint32_t)((const int32_t *)j->bias)[bias_idx] : 0;
          for (uint32_t kk = 0; kk < j->k; kk++)
            acc += (uint32_t)(int32_t)(arow[kk] * elem(j->b, ty->b, b_off + b_index(j, kk, col)));
          x_bits = acc;
        } else { /* k-blocks of k0 products, each exact and rounded once, added in fp32 */
          float acc = ty->has_bias ? ((const float *)j->bias)[bias_idx] : 0.0f;
          for (uint32_t kb = 0; kb < j->k; kb += k0) {
            uint32_t cnt = umin(k0, j->k - kb);
            for (uint32_t q = 0; q < cnt; q++) terms[q] = arow[kb + q] * elem(j->b, ty->b, b_off + b_index(j, kb + q, col));
            acc += isa_mmad_exact_sum_f32(terms, cnt);
          }
          x_bits = isa_f32_bits(acc);
        }
        uint64_t word = j->has_qscalar ? j->qscalar : 0;
        if (j->qvec) word = j->qvec[(j->q_batched ? (uint64_t)b * j->n : 0) + col];
        uint32_t out = isa_fixpipe_convert_elem(mode, is_int ? ISA_INT32 : ISA_FP32, word, j->relu, x_bits,
                                                cfg->chip_fixpipe_saturation);
        uint64_t oi = (uint64_t)b * mn + (uint64_t)i * j->n + col;
        if (j->epilogue == KN_EPI_GELU_AIV) {
          float v;
          memcpy(&v, &out, sizeof v);
          v = kn_gelu_f32(v);
          memcpy((uint8_t *)c + oi * ob, &v, ob);
        } else if (j->epilogue == KN_EPI_DEQ_BF16) {
          float scale = j->epi_scale[(j->q_batched ? (uint64_t)b * j->n : 0) + col];
          float y = isa_i32_to_f32((int32_t)out) * scale; /* int32 -> fp32 RNE, product fp32 RNE */
          ((uint16_t *)c)[oi] = isa_f32_to_bf16(y);
        } else {
          memcpy((uint8_t *)c + oi * ob, &out, ob); /* little-endian host */
        }
      }
    }
  }
  free(arow);
  free(terms);
  return CS_OK;
}
