/* rt_matmul — the Matmul object: queues, and the tiled loop of one block with its L1 loads
 * copied ahead (the tiling and its schedule are runtime/rt_tiling.c's). */
#include "runtime/rt_matmul.h"

#include <string.h>

#include "runtime/rt_internal.h"
#include "runtime/rt_intrin.h"

/* x rounded up to a multiple of a, and x / a rounded up (element counts). */
static uint32_t round_up(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }
static uint32_t cdiv(uint32_t x, uint32_t a) { return (x + a - 1) / a; }
static uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* ---- the object ------------------------------------------------------------------------- */

struct rt_matmul {
  rt_ctx *ctx;
  rt_matmul_types ty;
  rt_tiling t;
  rt_tiling_slots sl;
  rt_scalar_costs sc; /* the scalar work emitted per k-step, L1 packet and tile */
  bool l0_paired;     /* L0A and L0B change hands together, by A2's flags (one event per buffer) */
  uint32_t c0;
  rt_gtensor a, b, bias, qvec;
  bool has_a, has_b, has_bias, has_qscalar, has_qvec, relu;
  uint64_t qword;
  rt_rect blk;                                  /* the block of C */
  uint64_t tile_first, tile_count, tile_stride; /* tile_count 0: all */
  rt_queue *qa1, *qb1, *qa2, *qb2, *qco1, *qc1, *qbt, *qfb;
};

rt_matmul *rt_matmul_init(rt_ctx *ctx, const rt_matmul_types *ty, const rt_tiling *t) {
  if (!rt_ok(ctx)) return NULL;
  cs_err e;
  if (rt_tiling_check(rt_config(ctx), ty, t, &e) != CS_OK) {
    rt_fail(ctx, "%s", e.msg);
    return NULL;
  }
  rt_matmul *mm = rt_ctx_alloc(ctx, sizeof *mm);
  if (!mm) return NULL;
  memset(mm, 0, sizeof *mm);
  mm->ctx = ctx;
  mm->ty = *ty;
  mm->t = *t;
  mm->sl = rt_tiling_slots_of(ty, t);
  mm->sc = rt_tiling_scalar_costs(rt_config(ctx), t);
  mm->c0 = isa_dtype_c0(ty->a);
  mm->blk.ml = t->m;
  mm->blk.nl = t->n;
  mm->tile_stride = 1;
  const rt_tiling_slots *f = &mm->sl;
  mm->qa1 = rt_queue_init(ctx, RT_POS_A1, f->n_a1, f->a1, "A1");
  mm->qb1 = rt_queue_init(ctx, RT_POS_B1, f->n_b1, f->b1, "B1");
  mm->qa2 = rt_queue_init(ctx, RT_POS_A2, f->n_a2, f->a2, "A2");
  mm->qb2 = rt_queue_init(ctx, RT_POS_B2, f->n_b2, f->b2, "B2");
  /* as Ascend's Matmul does, the L0A and L0B buffers of one k-step are handed over together by
   * one event pair when there are as many of each */
  mm->l0_paired = f->n_a2 == f->n_b2;
  if (mm->l0_paired) rt_queue_follow(mm->qb2, mm->qa2);
  mm->qco1 = rt_queue_init(ctx, RT_POS_CO1, f->n_co1, f->co1, "CO1");
  if (t->unit_flag) rt_queue_use_unit_flag(mm->qco1); /* mmad and fixpipe hand L0C over themselves */
  if (f->n_c1) mm->qc1 = rt_queue_init(ctx, RT_POS_C1, f->n_c1, f->c1, "C1");
  if (f->bt_used) mm->qbt = rt_queue_init(ctx, RT_POS_C2, 1, f->bt, "C2 (bias)");
  if (f->fb_used) mm->qfb = rt_queue_init(ctx, RT_POS_C2PIPE2GM, 1, f->fb, "C2PIPE2GM (quant)");
  return rt_ok(ctx) ? mm : NULL;
}

void rt_matmul_set_tensor_a(rt_matmul *mm, rt_gtensor a) {
  if (!mm) return;
  mm->a = a;
  mm->has_a = true;
}
void rt_matmul_set_tensor_b(rt_matmul *mm, rt_gtensor b) {
  if (!mm) return;
  mm->b = b;
  mm->has_b = true;
}
void rt_matmul_set_bias(rt_matmul *mm, rt_gtensor bias) {
  if (!mm) return;
  if (!mm->ty.has_bias) {
    rt_fail(mm->ctx, "matmul: SetBias on an object created without has_bias");
    return;
  }
  mm->bias = bias;
  mm->has_bias = true;
}
void rt_matmul_set_quant_scalar(rt_matmul *mm, uint64_t word) {
  if (!mm) return;
  mm->qword = word;
  mm->has_qscalar = true;
  mm->has_qvec = false;
}
void rt_matmul_set_quant_vector(rt_matmul *mm, rt_gtensor words) {
  if (!mm) return;
  if (!mm->qfb) {
    rt_fail(mm->ctx, "matmul: SetQuantVector, but %s inputs to %s output take no quant words",
            isa_dtype_name(mm->ty.a), isa_dtype_name(mm->ty.c));
    return;
  }
  mm->qvec = words;
  mm->has_qvec = true;
  mm->has_qscalar = false;
}
void rt_matmul_set_relu(rt_matmul *mm, bool relu) {
  if (mm) mm->relu = relu;
}
void rt_matmul_set_block(rt_matmul *mm, uint32_t m0, uint32_t n0, uint32_t m_len, uint32_t n_len) {
  if (!mm) return;
  if (!m_len || !n_len || m0 + m_len > mm->t.m || n0 + n_len > mm->t.n) {
    rt_fail(mm->ctx, "matmul: block rows %u..%u, columns %u..%u are empty or outside C (%u x %u)", m0, m0 + m_len,
            n0, n0 + n_len, mm->t.m, mm->t.n);
    return;
  }
  mm->blk.m0 = m0;
  mm->blk.n0 = n0;
  mm->blk.ml = m_len;
  mm->blk.nl = n_len;
  mm->tile_first = mm->tile_count = 0;
  mm->tile_stride = 1;
}

uint64_t rt_matmul_tile_count(const rt_matmul *mm) {
  return mm ? rt_tiling_tile_count(&mm->t, mm->blk.ml, mm->blk.nl) : 0;
}

void rt_matmul_set_tile_range(rt_matmul *mm, uint64_t first, uint64_t count, uint64_t stride) {
  if (!mm) return;
  uint64_t all = rt_matmul_tile_count(mm);
  if (stride == 0) stride = 1;
  if (count && (first >= all || (count - 1) > (all - 1 - first) / stride)) {
    rt_fail(mm->ctx, "matmul: %llu tiles from %llu by %llu in a block of %llu tiles", (unsigned long long)count,
            (unsigned long long)first, (unsigned long long)stride, (unsigned long long)all);
    return;
  }
  mm->tile_first = first;
  mm->tile_count = count;
  mm->tile_stride = stride;
}
void rt_matmul_end(rt_matmul *mm) { (void)mm; }

/* Copies A's L1 load u (rows of the block, K columns; see rt_step) to an A1 slot as NZ.
 * Not transposed: u.ml rows x u.nl K columns, C0-wide column blocks of ceil16(u.ml) rows.
 * Transposed (A stored K x M): u.nl rows x u.ml columns, column blocks of round_up(u.nl, C0) rows,
 * so transposing loads read whole squares. An NZ A is copied column block by column block. */
static void copy_a(rt_matmul *mm, rt_ltensor a1, const rt_rect *u) {
  const rt_tiling *t = &mm->t;
  uint32_t c0 = mm->c0, m = mm->blk.m0 + u->m0, k = u->n0;
  if (mm->ty.a_nz) {
    isa_fmt_copy p;
    memset(&p, 0, sizeof p);
    if (!mm->ty.a_trans) { /* GM [K/C0][M][C0]: rows m.. of column blocks k/C0.. */
      p.block_count = cdiv(u->nl, c0);
      p.block_len_bytes = u->ml * 32;
      p.src_gap_bytes = (t->m - u->ml) * 32;
      rt_copy_gm_to_local(mm->ctx, a1, rt_gtensor_at(mm->a, ((uint64_t)(k / c0) * t->m + m) * c0), p);
    } else { /* GM [M/C0][K][C0]: rows k.. of column blocks m/C0.. */
      p.block_count = cdiv(u->ml, c0);
      p.block_len_bytes = u->nl * 32;
      p.src_gap_bytes = (t->ka - u->nl) * 32;
      p.dst_gap_bytes = (round_up(u->nl, c0) - u->nl) * 32;
      rt_copy_gm_to_local(mm->ctx, a1, rt_gtensor_at(mm->a, ((uint64_t)(m / c0) * t->ka + k) * c0), p);
    }
    return;
  }
  isa_fmt_nd2nz p;
  memset(&p, 0, sizeof p);
  p.dtype = mm->ty.a;
  p.nd_num = 1;
  p.dst_nz_n_stride = 1;
  if (!mm->ty.a_trans) {
    p.n_value = u->ml;
    p.d_value = u->nl;
    p.src_d_value = t->ka;
    p.dst_nz_c0_stride = round_up(u->ml, 16);
    rt_copy_nd2nz(mm->ctx, a1, rt_gtensor_at(mm->a, (uint64_t)m * t->ka + k), p);
  } else {
    p.n_value = u->nl;
    p.d_value = u->ml;
    p.src_d_value = t->m;
    p.dst_nz_c0_stride = round_up(u->nl, c0);
    rt_copy_nd2nz(mm->ctx, a1, rt_gtensor_at(mm->a, (uint64_t)k * t->m + m), p);
  }
}

/* Copies B's L1 load u (K rows, columns of the block) to a B1 slot as NZ. Not transposed (K x N):
 * u.ml rows x u.nl columns, column blocks of round_up(u.ml, C0) rows. Transposed (N x K): u.nl
 * rows x u.ml columns, column blocks of ceil16(u.nl) rows. An NZ B is copied block by block. */
static void copy_b(rt_matmul *mm, rt_ltensor b1, const rt_rect *u) {
  const rt_tiling *t = &mm->t;
  uint32_t c0 = mm->c0, n = mm->blk.n0 + u->n0, k = u->m0;
  if (mm->ty.b_nz) {
    isa_fmt_copy p;
    memset(&p, 0, sizeof p);
    if (!mm->ty.b_trans) { /* GM [N/C0][K][C0]: rows k.. of column blocks n/C0.. */
      p.block_count = cdiv(u->nl, c0);
      p.block_len_bytes = u->ml * 32;
      p.src_gap_bytes = (t->kb - u->ml) * 32;
      p.dst_gap_bytes = (round_up(u->ml, c0) - u->ml) * 32;
      rt_copy_gm_to_local(mm->ctx, b1, rt_gtensor_at(mm->b, ((uint64_t)(n / c0) * t->kb + k) * c0), p);
    } else { /* GM [K/C0][N][C0]: rows n.. (whole fractals) of column blocks k/C0.. */
      uint32_t rows = round_up(u->nl, 16);
      p.block_count = cdiv(u->ml, c0);
      p.block_len_bytes = rows * 32;
      p.src_gap_bytes = (t->n - rows) * 32;
      rt_copy_gm_to_local(mm->ctx, b1, rt_gtensor_at(mm->b, ((uint64_t)(k / c0) * t->n + n) * c0), p);
    }
    return;
  }
  isa_fmt_nd2nz p;
  memset(&p, 0, sizeof p);
  p.dtype = mm->ty.b;
  p.nd_num = 1;
  p.dst_nz_n_stride = 1;
  if (!mm->ty.b_trans) {
    p.n_value = u->ml;
    p.d_value = u->nl;
    p.src_d_value = t->n;
    p.dst_nz_c0_stride = round_up(u->ml, c0);
    rt_copy_nd2nz(mm->ctx, b1, rt_gtensor_at(mm->b, (uint64_t)k * t->n + n), p);
  } else {
    p.n_value = u->nl;
    p.d_value = u->ml;
    p.src_d_value = t->kb;
    p.dst_nz_c0_stride = round_up(u->nl, 16);
    rt_copy_nd2nz(mm->ctx, b1, rt_gtensor_at(mm->b, (uint64_t)n * t->kb + k), p);
  }
}

/* Loads K columns kk .. kk+kn (counted in the L1 load u) of the tile's rows from A1 into A2 as Zz
 * (docs/ISA.md, "Building mmad's operands"). Not transposed, A1 is an NZ matrix of u.nl columns
 * whose column blocks hold ceil16(u.ml) rows: one load3d takes the tile's rows and the K stretch,
 * as the high-level API and the basic-API samples do on this chip (LoadData3DV2). Transposed, one
 * transposing load2d per C0-wide K block. */
static void load_a(rt_matmul *mm, rt_ltensor a2, rt_ltensor a1, const rt_rect *u, const rt_rect *tile, uint32_t kk,
                   uint32_t kn) {
  uint32_t c0 = mm->c0, q = c0 / 16, kb = cdiv(kn, c0), r0 = tile->m0 - u->m0;
  if (!mm->ty.a_trans) {
    isa_fmt_load3d p;
    memset(&p, 0, sizeof p);
    p.dtype = mm->ty.a;
    p.l1_h = 1;
    p.l1_w = round_up(u->ml, 16);
    p.channel_size = u->nl;
    p.m_extension = round_up(tile->ml, 16);
    p.k_extension = kb * c0;
    p.m_start = r0;
    p.k_start = kk;
    rt_load3d(mm->ctx, a2, a1, p);
    return;
  }
  isa_fmt_load2d p;
  memset(&p, 0, sizeof p);
  p.dtype = mm->ty.a;
  uint32_t rows16 = round_up(u->nl, c0) / 16;
  p.if_transpose = 1;
  p.repeat_times = cdiv(tile->ml, c0);
  p.src_stride = rows16;
  p.dst_gap = q * kb - q;
  p.dst_frac_gap = kb - 1;
  for (uint32_t b = 0; b < kb; b++) {
    p.start_index = (r0 / c0) * rows16 + kk / 16 + b * q;
    rt_load2d(mm->ctx, rt_ltensor_at(a2, (uint64_t)b * 512), a1, p);
  }
}

/* Loads K rows kk .. kk+kn (counted in the L1 load u) of the tile's columns from B1 into B2 as Zn. */
static void load_b(rt_matmul *mm, rt_ltensor b2, rt_ltensor b1, const rt_rect *u, const rt_rect *tile, uint32_t kk,
                   uint32_t kn) {
  uint32_t c0 = mm->c0, q = c0 / 16, kb = cdiv(kn, c0), nb = cdiv(tile->nl, 16), c = tile->n0 - u->n0;
  isa_fmt_load2d p;
  memset(&p, 0, sizeof p);
  p.dtype = mm->ty.b;
  if (!mm->ty.b_trans) { /* NZ of K x N: transpose C0 x C0 squares, k-blocks in increasing order */
    uint32_t rows16 = round_up(u->ml, c0) / 16;
    p.if_transpose = 1;
    p.repeat_times = cdiv(tile->nl, c0);
    p.src_stride = rows16;
    for (uint32_t b = 0; b < kb; b++) {
      p.start_index = (c / c0) * rows16 + kk / 16 + b * q;
      rt_load2d(mm->ctx, rt_ltensor_at(b2, (uint64_t)b * nb * 512), b1, p);
    }
  } else { /* NZ of N x K: already Zn; one load per C0-wide K block, its nb fractals in order, as
            * the chip's LoadData2D needs (baseK / C0 instructions per L0B load) */
    uint32_t rows16 = round_up(u->nl, 16) / 16;
    p.repeat_times = nb; /* base_n <= 4080: at most 255 fractals */
    p.src_stride = 1;
    for (uint32_t b = 0; b < kb; b++) {
      p.start_index = (kk / c0 + b) * rows16 + c / 16;
      rt_load2d(mm->ctx, rt_ltensor_at(b2, (uint64_t)b * nb * 512), b1, p);
    }
  }
}

/* Stages one tile's bias (BT) or quant words (FB) through L1. */
static rt_ltensor stage(rt_matmul *mm, rt_queue *dstq, rt_gtensor src, uint32_t n0, uint32_t nl) {
  uint64_t bytes = isa_dtype_bytes(src.dtype, nl);
  rt_ltensor c1 = rt_alloc(mm->qc1, src.dtype);
  rt_copy_gm_to_local(mm->ctx, c1, rt_gtensor_at(src, n0), rt_copy_params(bytes));
  rt_enque(mm->qc1, c1);
  c1 = rt_deque(mm->qc1);
  rt_ltensor d = rt_alloc(dstq, src.dtype);
  rt_copy_local(mm->ctx, d, c1, rt_copy_params(bytes));
  rt_enque(dstq, d);
  rt_free(mm->qc1, c1);
  return d;
}

/* The L1 loads of one operand copied and not yet freed (at most two), and the step from which
 * to look for its next load. */
typedef struct held {
  rt_queue *q;
  unsigned n, slots;
  uint64_t next;
} held;

/* The next step at or after h->next that needs a new load of the operand (steps if none). */
static uint64_t next_load(const rt_sched *sc, held *h, bool is_a) {
  uint64_t steps = rt_sched_steps(sc);
  while (h->next < steps) {
    rt_step st = rt_sched_step(sc, h->next);
    if (is_a ? st.new_a : st.new_b) break;
    h->next++;
  }
  return h->next;
}

/* Copies L1 loads of A and B while their queues have free buffers, the one needed first before
 * the other (a load the cube waits for must not queue on MTE2 behind one it needs later): the
 * loads of the step being computed, then, with two buffers, the next ones ahead of their use. */
static void copy_ahead(rt_matmul *mm, const rt_sched *sc, held *ha, held *hb) {
  uint64_t steps = rt_sched_steps(sc);
  while (rt_ok(mm->ctx)) {
    uint64_t sa = next_load(sc, ha, true), sb = next_load(sc, hb, false);
    bool can_a = sa < steps && ha->n < ha->slots, can_b = sb < steps && hb->n < hb->slots;
    if (!can_a && !can_b) return;
    bool is_a = can_a && (!can_b || sa <= sb);
    held *h = is_a ? ha : hb;
    rt_step st = rt_sched_step(sc, h->next);
    if (mm->sc.copy) rt_scalar(mm->ctx, mm->sc.copy);
    rt_ltensor l1 = rt_alloc(h->q, is_a ? mm->ty.a : mm->ty.b);
    if (is_a) copy_a(mm, l1, &st.a_unit);
    else copy_b(mm, l1, &st.b_unit);
    rt_enque(h->q, l1);
    h->n++;
    h->next++;
  }
}

void rt_matmul_iterate_all(rt_matmul *mm, rt_gtensor cg) {
  if (!mm || !rt_ok(mm->ctx)) return;
  rt_ctx *ctx = mm->ctx;
  const rt_tiling *t = &mm->t;
  if (!mm->has_a || !mm->has_b) {
    rt_fail(ctx, "matmul: IterateAll before SetTensorA and SetTensorB");
    return;
  }
  if (mm->ty.has_bias && !mm->has_bias) {
    rt_fail(ctx, "matmul: created with a bias but SetBias was not called");
    return;
  }
  isa_quant_mode mode = rt_matmul_quant_mode(&mm->ty, mm->has_qvec);
  bool needs_word = mode != ISA_QUANT_NO_QUANT && mode != ISA_QUANT_F322F16 && mode != ISA_QUANT_F322BF16;
  if (needs_word && !mm->has_qscalar && !mm->has_qvec) {
    rt_fail(ctx, "matmul: %s output needs SetQuantScalar or SetQuantVector (quant mode %s)",
            isa_dtype_name(mm->ty.c), isa_quant_mode_name(mode));
    return;
  }
  rt_sched sc;
  uint64_t ntiles = mm->tile_count ? mm->tile_count : rt_matmul_tile_count(mm);
  rt_sched_init(&sc, t, mm->blk.ml, mm->blk.nl, mm->tile_count ? mm->tile_first : 0, ntiles,
                mm->tile_count ? mm->tile_stride : 1);
  uint64_t steps = rt_sched_steps(&sc);
  isa_fmt_fixpipe fp;
  memset(&fp, 0, sizeof fp);
  fp.l0c_dtype = (isa_dtype)(mm->ty.a == ISA_INT8 || mm->ty.a == ISA_INT4 ? ISA_INT32 : ISA_FP32);
  fp.out_dtype = mm->ty.c;
  fp.quant_pre = mode;
  fp.deq_scalar = mm->has_qscalar ? mm->qword : 0;
  fp.relu_en = mm->relu;
  fp.nz2nd_en = 1;
  fp.dst_stride = t->n;
  fp.nd_num = 1;
  fp.unit_flag = t->unit_flag ? 3 : 0;

  held ha = {mm->qa1, 0, mm->sl.n_a1, 0}, hb = {mm->qb1, 0, mm->sl.n_b1, 0};
  rt_ltensor a1 = {0}, b1 = {0}, co1 = {0}, bt = {0}, fb = {0};
  rt_step cur = steps ? rt_sched_step(&sc, 0) : (rt_step){0};
  for (uint64_t i = 0; i < steps && rt_ok(ctx); i++) {
    rt_step nxt = i + 1 < steps ? rt_sched_step(&sc, i + 1) : (rt_step){0};
    copy_ahead(mm, &sc, &ha, &hb);
    const rt_rect *tile = &cur.tile;
    uint32_t tm0 = mm->blk.m0 + tile->m0, tn0 = mm->blk.n0 + tile->n0;
    if (cur.first_k) { /* a new tile: its bias, quant words and accumulator */
      if (mm->ty.has_bias) bt = stage(mm, mm->qbt, mm->bias, tn0, tile->nl);
      if (mm->has_qvec) fb = stage(mm, mm->qfb, mm->qvec, tn0, tile->nl);
      co1 = rt_alloc(mm->qco1, fp.l0c_dtype);
      if (mm->ty.has_bias) bt = rt_deque(mm->qbt);
    }
    if (cur.new_a) a1 = rt_deque(mm->qa1);
    if (cur.new_b) b1 = rt_deque(mm->qb1);
    for (uint32_t kk0 = 0; kk0 < cur.kl; kk0 += t->base_k) {
      uint32_t kn = umin(t->base_k, cur.kl - kk0), k = cur.k0 + kk0;
      /* an L1 load is freed right after its last L0 load (the step's last that reads it), as
       * the high-level API's FreeTensor: MTE2 may refill A's buffer while MTE1 still loads B */
      bool last_load = kk0 + kn >= cur.kl;
      if (mm->sc.step) rt_scalar(ctx, mm->sc.step);
      rt_ltensor a2 = rt_alloc(mm->qa2, mm->ty.a);
      rt_ltensor b2 = mm->l0_paired ? rt_alloc(mm->qb2, mm->ty.b) : (rt_ltensor){0};
      load_a(mm, a2, a1, &cur.a_unit, tile, k - cur.a_unit.n0, kn);
      if (!mm->l0_paired) rt_enque(mm->qa2, a2);
      if (last_load && (i + 1 == steps || nxt.new_a)) {
        rt_free(mm->qa1, a1);
        ha.n--;
      }
      if (!mm->l0_paired) b2 = rt_alloc(mm->qb2, mm->ty.b);
      load_b(mm, b2, b1, &cur.b_unit, tile, k - cur.b_unit.m0, kn);
      if (mm->l0_paired) rt_enque(mm->qa2, a2);
      rt_enque(mm->qb2, b2);
      if (last_load && (i + 1 == steps || nxt.new_b)) {
        rt_free(mm->qb1, b1);
        hb.n--;
      }
      a2 = rt_deque(mm->qa2);
      b2 = rt_deque(mm->qb2);
      isa_fmt_mmad p;
      memset(&p, 0, sizeof p);
      p.dtype = mm->ty.a;
      p.m = tile->ml;
      p.n = tile->nl;
      p.k = kn;
      p.init_c = cur.first_k && kk0 == 0;
      /* UnitFlag (Ascend's MmadParams.unitFlag): 2 while more mmads follow into this C, 3 on the
       * last, which the fixpipe (unit_flag 3) follows in 512-byte units */
      if (t->unit_flag) p.unit_flag = cur.last_k && kk0 + kn >= cur.kl ? 3 : 2;
      bool with_bias = mm->ty.has_bias && p.init_c;
      rt_mmad(ctx, co1, a2, b2, with_bias ? &bt : NULL, p);
      rt_free(mm->qb2, b2);
      rt_free(mm->qa2, a2);
    }
    if (cur.last_k) { /* the tile is complete: out through the fixpipe */
      if (mm->sc.tile) rt_scalar(ctx, mm->sc.tile);
      if (mm->ty.has_bias) rt_free(mm->qbt, bt);
      rt_enque(mm->qco1, co1);
      co1 = rt_deque(mm->qco1);
      if (mm->has_qvec) fb = rt_deque(mm->qfb);
      fp.m_size = tile->ml;
      fp.n_size = tile->nl;
      fp.src_stride = round_up(tile->ml, 16);
      rt_fixpipe(ctx, rt_gtensor_at(cg, (uint64_t)tm0 * t->n + tn0), co1, mm->has_qvec ? &fb : NULL, fp);
      rt_free(mm->qco1, co1);
      if (mm->has_qvec) rt_free(mm->qfb, fb);
    }
    cur = nxt;
  }
}
