/* rt_matmul — the Matmul object: queues, the tiled loop with prefetch, and the tiling helper. */
#include "runtime/rt_matmul.h"

#include <inttypes.h>
#include <string.h>

#include "runtime/rt_internal.h"
#include "runtime/rt_intrin.h"

/* x rounded up to a multiple of a, and x / a rounded up (element counts). */
static uint32_t round_up(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }
static uint32_t cdiv(uint32_t x, uint32_t a) { return (x + a - 1) / a; }
static uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }

static bool is_int_input(isa_dtype t) { return t == ISA_INT8 || t == ISA_INT4; }

isa_quant_mode rt_matmul_quant_mode(const rt_matmul_types *ty, bool vector_word) {
  if (is_int_input(ty->a)) {
    switch (ty->c) {
      case ISA_INT32: return ISA_QUANT_NO_QUANT;
      case ISA_FP16: return vector_word ? ISA_QUANT_VDEQF16 : ISA_QUANT_DEQF16;
      case ISA_INT8: case ISA_UINT8: return vector_word ? ISA_QUANT_VREQ8 : ISA_QUANT_REQ8;
      default: return ISA_QUANT_COUNT;
    }
  }
  switch (ty->c) {
    case ISA_FP32: return ISA_QUANT_NO_QUANT;
    case ISA_FP16: return ISA_QUANT_F322F16;
    case ISA_BF16: return ISA_QUANT_F322BF16;
    case ISA_INT8: case ISA_UINT8: return vector_word ? ISA_QUANT_VQF322B8_PRE : ISA_QUANT_QF322B8_PRE;
    default: return ISA_QUANT_COUNT;
  }
}

static bool mode_needs_word(isa_quant_mode q) {
  return q != ISA_QUANT_NO_QUANT && q != ISA_QUANT_F322F16 && q != ISA_QUANT_F322BF16;
}

/* ---- buffer footprint ------------------------------------------------------------------- */

/* Bytes of `elems` elements of t (int4: half a byte each). */
static uint64_t ebytes(isa_dtype t, uint64_t elems) { return isa_dtype_bytes(t, elems); }

/* Slot sizes of every queue, from the tiling (see rt_matmul_iterate_all for the layouts). */
typedef struct footprint {
  uint64_t a1, b1, a2, b2, co1, c1, bt, fb;
} footprint;

static footprint slots_of(const rt_matmul_types *ty, const rt_tiling *t) {
  uint32_t c0 = isa_dtype_c0(ty->a);
  uint32_t kc = t->step_k * t->base_k;
  footprint f;
  /* L1, NZ: A rows (or, transposed, columns) padded to 16 (C0); K chunk columns */
  f.a1 = ebytes(ty->a, (uint64_t)round_up(t->base_m, ty->a_trans ? c0 : 16) * kc);
  f.b1 = ebytes(ty->b, (uint64_t)round_up(t->base_n, ty->b_trans ? 16 : c0) * kc);
  /* L0: whole fractals; a transposing load writes whole C0 squares */
  uint32_t kb = cdiv(t->base_k, c0);
  f.a2 = (uint64_t)kb * round_up(t->base_m, ty->a_trans ? c0 : 16) / 16 * 512;
  f.b2 = (uint64_t)kb * round_up(t->base_n, ty->b_trans ? 16 : c0) / 16 * 512;
  f.co1 = (uint64_t)round_up(t->base_m, 16) * round_up(t->base_n, 16) * 4;
  f.c1 = (uint64_t)t->base_n * 8; /* staging of bias (4 B) or quant words (8 B) per column */
  f.bt = (uint64_t)t->base_n * 4;
  f.fb = (uint64_t)t->base_n * 8;
  return f;
}

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

static uint64_t capacity(const sim_config *c, isa_mem m, uint64_t *align) {
  switch (m) {
    case ISA_MEM_L1: *align = c->buffers_l1_align_bytes; return c->buffers_l1_bytes;
    case ISA_MEM_L0A: *align = c->buffers_l0a_align_bytes; return c->buffers_l0a_bytes;
    case ISA_MEM_L0B: *align = c->buffers_l0b_align_bytes; return c->buffers_l0b_bytes;
    case ISA_MEM_L0C: *align = c->buffers_l0c_align_bytes; return c->buffers_l0c_bytes;
    case ISA_MEM_BT: *align = c->buffers_bt_align_bytes; return c->buffers_bt_bytes;
    case ISA_MEM_FB: *align = c->buffers_fb_align_bytes; return c->buffers_fb_bytes;
    default: *align = 1; return 0;
  }
}

/* Whether the types' fixpipe mode can take per-column quant words (the FB queue exists then). */
static bool uses_words(const rt_matmul_types *ty) { return mode_needs_word(rt_matmul_quant_mode(ty, true)); }

/* What each buffer needs, every slot rounded up to `align` (all ones: the bare footprint). */
static void buffer_bytes(const rt_matmul_types *ty, const rt_tiling *t, const uint64_t align[ISA_MEM_COUNT],
                         uint64_t need[ISA_MEM_COUNT]) {
  footprint f = slots_of(ty, t);
  memset(need, 0, sizeof(uint64_t) * ISA_MEM_COUNT);
  need[ISA_MEM_L1] = align_up(f.a1, align[ISA_MEM_L1]) * t->depth_a1 + align_up(f.b1, align[ISA_MEM_L1]) * t->depth_b1 +
                     2 * align_up(f.c1, align[ISA_MEM_L1]);
  need[ISA_MEM_L0A] = align_up(f.a2, align[ISA_MEM_L0A]) * t->l0_slots;
  need[ISA_MEM_L0B] = align_up(f.b2, align[ISA_MEM_L0B]) * t->l0_slots;
  need[ISA_MEM_L0C] = align_up(f.co1, align[ISA_MEM_L0C]) * t->l0c_slots;
  need[ISA_MEM_BT] = ty->has_bias ? align_up(f.bt, align[ISA_MEM_BT]) : 0; /* queues exist only when used */
  need[ISA_MEM_FB] = uses_words(ty) ? align_up(f.fb, align[ISA_MEM_FB]) : 0;
}

void rt_tiling_footprint(const rt_matmul_types *ty, const rt_tiling *t, uint64_t bytes[ISA_MEM_COUNT]) {
  uint64_t ones[ISA_MEM_COUNT];
  for (int m = 0; m < ISA_MEM_COUNT; m++) ones[m] = 1;
  buffer_bytes(ty, t, ones, bytes);
}

static void needs(const sim_config *cfg, const rt_matmul_types *ty, const rt_tiling *t, uint64_t need[ISA_MEM_COUNT]) {
  uint64_t al[ISA_MEM_COUNT];
  for (int m = 0; m < ISA_MEM_COUNT; m++) capacity(cfg, (isa_mem)m, &al[m]);
  buffer_bytes(ty, t, al, need);
}

cs_status rt_tiling_check(const sim_config *cfg, const rt_matmul_types *ty, const rt_tiling *t, cs_err *err) {
  if (ty->a != ty->b)
    return cs_err_set(err, CS_EINVAL, "matmul: A is %s and B is %s; the cube multiplies equal types",
                      isa_dtype_name(ty->a), isa_dtype_name(ty->b));
  if (ty->a != ISA_INT8 && ty->a != ISA_INT4 && ty->a != ISA_FP16 && ty->a != ISA_BF16)
    return cs_err_set(err, CS_EINVAL, "matmul: input type %s is not one the cube takes (int8, int4, fp16, bf16)",
                      isa_dtype_name(ty->a));
  if (rt_matmul_quant_mode(ty, false) == ISA_QUANT_COUNT)
    return cs_err_set(err, CS_EINVAL, "matmul: %s inputs cannot produce %s output", isa_dtype_name(ty->a),
                      isa_dtype_name(ty->c));
  uint32_t c0 = isa_dtype_c0(ty->a);
  if (t->m == 0 || t->n == 0 || t->k == 0)
    return cs_err_set(err, CS_EINVAL, "tiling: m, n, k = %u, %u, %u; none may be 0", t->m, t->n, t->k);
  if (!t->base_m || t->base_m % 16 || !t->base_n || t->base_n % 16)
    return cs_err_set(err, CS_EINVAL, "tiling: base_m = %u and base_n = %u must be positive multiples of 16",
                      t->base_m, t->base_n);
  if (!t->base_k || t->base_k % c0)
    return cs_err_set(err, CS_EINVAL, "tiling: base_k = %u must be a positive multiple of C0 = %u for %s",
                      t->base_k, c0, isa_dtype_name(ty->a));
  if (t->base_m > 4095 || t->base_n > 4095 || t->base_k > 4095)
    return cs_err_set(err, CS_EINVAL, "tiling: base_m/n/k = %u/%u/%u; mmad takes at most 4095", t->base_m,
                      t->base_n, t->base_k);
  if (!t->step_k) return cs_err_set(err, CS_EINVAL, "tiling: step_k is 0");
  if (t->depth_a1 < 1 || t->depth_a1 > 3 || t->depth_b1 < 1 || t->depth_b1 > 3 || t->l0_slots < 1 ||
      t->l0_slots > 2 || t->l0c_slots < 1 || t->l0c_slots > 2)
    return cs_err_set(err, CS_EINVAL,
                      "tiling: depth_a1 and depth_b1 are 1 to 3, l0_slots and l0c_slots 1 or 2 (got %u, %u, %u, %u)",
                      t->depth_a1, t->depth_b1, t->l0_slots, t->l0c_slots);
  /* every slot of a queue takes an event id of its pipe pair, and MTE2 -> MTE1 has 8: A1 and B1
   * share them with the two slots of C1 (bias and quant staging) */
  if (t->depth_a1 + t->depth_b1 + 2 > 8)
    return cs_err_set(err, CS_EINVAL, "tiling: depth_a1 + depth_b1 = %u, at most 6 (8 event ids MTE2 -> MTE1, 2 for C1)",
                      t->depth_a1 + t->depth_b1);
  if (ty->b_nz && !ty->b_trans && t->base_n % c0)
    return cs_err_set(err, CS_EINVAL, "tiling: base_n = %u must be a multiple of C0 = %u with an NZ B",
                      t->base_n, c0);
  if (ty->a == ISA_INT4 && ((!ty->a_trans && t->k % 2) || (ty->a_trans && t->m % 2) ||
                            (!ty->b_trans && !ty->b_nz && t->n % 2) || (ty->b_trans && t->k % 2)))
    return cs_err_set(err, CS_EINVAL, "matmul: int4 rows must be whole bytes: the stored row length (m %u, n %u, k %u) "
                      "must be even", t->m, t->n, t->k);
  if (t->base_n * 4 > 4096 * 4 || (mode_needs_word(rt_matmul_quant_mode(ty, true)) && t->base_n > 256))
    return cs_err_set(err, CS_EINVAL, "tiling: base_n = %u; per-column quant words go through FB in chunks of at most 256",
                      t->base_n);
  uint64_t need[ISA_MEM_COUNT];
  needs(cfg, ty, t, need);
  for (int m = 0; m < ISA_MEM_COUNT; m++) {
    uint64_t al, cap = capacity(cfg, (isa_mem)m, &al);
    if (need[m] > cap)
      return cs_err_set(err, CS_EINVAL,
                        "tiling: %s needs %" PRIu64 " bytes (base_m %u, base_n %u, base_k %u, step_k %u, slots "
                        "%u/%u/%u/%u) but has %" PRIu64,
                        isa_mem_name((isa_mem)m), need[m], t->base_m, t->base_n, t->base_k, t->step_k,
                        t->depth_a1, t->depth_b1, t->l0_slots, t->l0c_slots, cap);
  }
  return CS_OK;
}

cs_status rt_tiling_auto(const sim_config *cfg, const rt_matmul_types *ty, uint32_t m, uint32_t n,
                         uint32_t k, rt_tiling *out, cs_err *err) {
  uint32_t c0 = isa_dtype_c0(ty->a);
  rt_tiling t;
  memset(&t, 0, sizeof t);
  t.m = m;
  t.n = n;
  t.k = k;
  /* Buffering, most first: L1 depth 3 (copies two chunks ahead) with double-buffered L0, then
   * shallower L1, then single L0 slots; each level shrinks the tile until one fits. */
  static const struct {
    uint32_t depth, l0;
  } levels[] = {{3, 2}, {2, 2}, {1, 2}, {1, 1}};
  const size_t nlevels = sizeof levels / sizeof levels[0];
  t.step_k = 1;
  t.base_k = c0;
  for (size_t lv = 0; lv < nlevels; lv++) {
    /* The output tile: the largest the L0C holds, 128 x 256 on the 910B (squarest area per byte
     * of A and B read), shrunk to the problem. */
    t.base_m = umin(128, round_up(m, 16));
    t.base_n = umin(256, round_up(n, 16));
    if (ty->b_nz && !ty->b_trans) t.base_n = umin(round_up(t.base_n, c0), round_up(256, c0));
    t.depth_a1 = t.depth_b1 = levels[lv].depth;
    t.l0_slots = levels[lv].l0;
    bool found = false;
    /* L0C: double-buffer when it fits, else shrink the tile until one fits */
    for (;;) {
      t.l0c_slots = 2;
      if (rt_tiling_check(cfg, ty, &t, NULL) == CS_OK) { found = true; break; }
      t.l0c_slots = 1;
      if (rt_tiling_check(cfg, ty, &t, NULL) == CS_OK) { found = true; break; }
      /* an NZ B keeps base_n a multiple of C0, so it may stop shrinking above 16 */
      uint32_t half_n = round_up(t.base_n / 2, ty->b_nz && !ty->b_trans ? c0 : 16);
      if (half_n < t.base_n && t.base_n >= t.base_m) t.base_n = half_n;
      else if (t.base_m > 16) t.base_m = round_up(t.base_m / 2, 16);
      else if (half_n < t.base_n) t.base_n = half_n;
      else break;
    }
    if (found) break;
    if (lv + 1 == nlevels) return rt_tiling_check(cfg, ty, &t, err); /* nothing fits: say why */
  }
  /* base_k: as deep as L0A/L0B allow with two slots, no deeper than K */
  uint32_t kmax = round_up(k, c0);
  while (t.base_k * 2 <= kmax && t.base_k * 2 <= 4095) {
    t.base_k *= 2;
    if (rt_tiling_check(cfg, ty, &t, NULL) != CS_OK) {
      t.base_k /= 2;
      break;
    }
  }
  /* step_k: L1 chunks of several base_k, as many as L1 holds three times over (up to 8); the
   * copies then run two chunks ahead of the cube, which hides the GM latency */
  while (t.step_k < 8 && (uint64_t)t.step_k * 2 * t.base_k <= kmax) {
    t.step_k *= 2;
    if (rt_tiling_check(cfg, ty, &t, NULL) != CS_OK) {
      t.step_k /= 2;
      break;
    }
  }
  cs_status st = rt_tiling_check(cfg, ty, &t, err);
  if (st == CS_OK) *out = t;
  return st;
}

/* ---- the object ------------------------------------------------------------------------- */

struct rt_matmul {
  rt_ctx *ctx;
  rt_matmul_types ty;
  rt_tiling t;
  uint32_t c0;
  rt_gtensor a, b, bias, qvec;
  bool has_a, has_b, has_bias, has_qscalar, has_qvec, relu;
  uint64_t qword;
  uint32_t m0, n0, m_len, n_len;
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
  mm->ctx = ctx;
  mm->ty = *ty;
  mm->t = *t;
  mm->c0 = isa_dtype_c0(ty->a);
  mm->m_len = t->m;
  mm->n_len = t->n;
  footprint f = slots_of(ty, t);
  mm->qa1 = rt_queue_init(ctx, RT_POS_A1, t->depth_a1, f.a1, "A1");
  mm->qb1 = rt_queue_init(ctx, RT_POS_B1, t->depth_b1, f.b1, "B1");
  mm->qa2 = rt_queue_init(ctx, RT_POS_A2, t->l0_slots, f.a2, "A2");
  mm->qb2 = rt_queue_init(ctx, RT_POS_B2, t->l0_slots, f.b2, "B2");
  mm->qco1 = rt_queue_init(ctx, RT_POS_CO1, t->l0c_slots, f.co1, "CO1");
  mm->qc1 = rt_queue_init(ctx, RT_POS_C1, 2, f.c1, "C1");
  if (ty->has_bias) mm->qbt = rt_queue_init(ctx, RT_POS_C2, 1, f.bt, "C2 (bias)");
  if (uses_words(ty)) mm->qfb = rt_queue_init(ctx, RT_POS_C2PIPE2GM, 1, f.fb, "C2PIPE2GM (quant)");
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
  if (m0 + m_len > mm->t.m || n0 + n_len > mm->t.n) {
    rt_fail(mm->ctx, "matmul: block rows %u..%u, columns %u..%u are outside C (%u x %u)", m0, m0 + m_len,
            n0, n0 + n_len, mm->t.m, mm->t.n);
    return;
  }
  mm->m0 = m0;
  mm->n0 = n0;
  mm->m_len = m_len;
  mm->n_len = n_len;
  mm->tile_first = mm->tile_count = 0;
  mm->tile_stride = 1;
}

uint64_t rt_matmul_tile_count(const rt_matmul *mm) {
  return mm ? (uint64_t)cdiv(mm->m_len, mm->t.base_m) * cdiv(mm->n_len, mm->t.base_n) : 0;
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

/* One L1 chunk: tile rows m0..m0+ml, columns n0..n0+nl, K columns kc0..kc0+kl. */
typedef struct chunk {
  uint32_t m0, ml, n0, nl, kc0, kl;
  bool first_k, last_k;
} chunk;

/* Copies A[m0.., kc0..] to an A1 slot as NZ. Not transposed: ml rows x kl columns, C0 column
 * blocks of ceil16(ml) rows. Transposed (A stored K x M): kl rows x ml columns, column blocks of
 * round_up(kl, C0) rows, so transposing loads read whole squares. */
static void copy_a(rt_matmul *mm, rt_ltensor a1, const chunk *c) {
  const rt_tiling *t = &mm->t;
  isa_fmt_nd2nz p;
  memset(&p, 0, sizeof p);
  p.dtype = mm->ty.a;
  p.nd_num = 1;
  if (!mm->ty.a_trans) {
    p.n_value = c->ml;
    p.d_value = c->kl;
    p.src_d_value = t->k;
    p.dst_nz_c0_stride = round_up(c->ml, 16);
    p.dst_nz_n_stride = 1;
    rt_copy_nd2nz(mm->ctx, a1, rt_gtensor_at(mm->a, (uint64_t)c->m0 * t->k + c->kc0), p);
  } else {
    p.n_value = c->kl;
    p.d_value = c->ml;
    p.src_d_value = t->m;
    p.dst_nz_c0_stride = round_up(c->kl, mm->c0);
    p.dst_nz_n_stride = 1;
    rt_copy_nd2nz(mm->ctx, a1, rt_gtensor_at(mm->a, (uint64_t)c->kc0 * t->m + c->m0), p);
  }
}

/* Copies B to a B1 slot as NZ. Not transposed (K x N): kl rows x nl columns, column blocks of
 * round_up(kl, C0) rows. Transposed (N x K): nl rows x kl columns, column blocks of ceil16(nl) rows.
 * An NZ B is copied block by block as it is. */
static void copy_b(rt_matmul *mm, rt_ltensor b1, const chunk *c) {
  const rt_tiling *t = &mm->t;
  uint32_t c0 = mm->c0;
  if (mm->ty.b_nz) {
    isa_fmt_copy p;
    memset(&p, 0, sizeof p);
    if (!mm->ty.b_trans) { /* GM: [N/C0][K][C0]; take rows kc0..kc0+kl of column blocks n0/C0.. */
      uint32_t rows = round_up(c->kl, c0);
      p.block_count = cdiv(c->nl, c0);
      p.block_len_bytes = c->kl * 32;
      p.src_gap_bytes = (t->k - c->kl) * 32;
      p.dst_gap_bytes = (rows - c->kl) * 32;
      uint64_t elem = ((uint64_t)(c->n0 / c0) * t->k + c->kc0) * c0;
      rt_copy_gm_to_local(mm->ctx, b1, rt_gtensor_at(mm->b, elem), p);
    } else { /* GM: [K/C0][ceil16(N)][C0]; rows n0..n0+ceil16(nl) of column blocks kc0/C0.. */
      uint32_t np = round_up(t->n, 16), rows = round_up(c->nl, 16);
      p.block_count = cdiv(c->kl, c0);
      p.block_len_bytes = rows * 32;
      p.src_gap_bytes = (np - rows) * 32;
      p.dst_gap_bytes = 0;
      uint64_t elem = ((uint64_t)(c->kc0 / c0) * np + c->n0) * c0;
      rt_copy_gm_to_local(mm->ctx, b1, rt_gtensor_at(mm->b, elem), p);
    }
    return;
  }
  isa_fmt_nd2nz p;
  memset(&p, 0, sizeof p);
  p.dtype = mm->ty.b;
  p.nd_num = 1;
  p.dst_nz_n_stride = 1;
  if (!mm->ty.b_trans) {
    p.n_value = c->kl;
    p.d_value = c->nl;
    p.src_d_value = t->n;
    p.dst_nz_c0_stride = round_up(c->kl, c0);
    rt_copy_nd2nz(mm->ctx, b1, rt_gtensor_at(mm->b, (uint64_t)c->kc0 * t->n + c->n0), p);
  } else {
    p.n_value = c->nl;
    p.d_value = c->kl;
    p.src_d_value = t->k;
    p.dst_nz_c0_stride = round_up(c->nl, 16);
    rt_copy_nd2nz(mm->ctx, b1, rt_gtensor_at(mm->b, (uint64_t)c->n0 * t->k + c->kc0), p);
  }
}

/* Loads K columns kk0..kk0+kn of the chunk from A1 into A2 as Zz (docs/ISA.md, "Building
 * mmad's operands"). */
static void load_a(rt_matmul *mm, rt_ltensor a2, rt_ltensor a1, const chunk *c, uint32_t kk0, uint32_t kn) {
  uint32_t c0 = mm->c0, q = c0 / 16, kb = cdiv(kn, c0), mb = cdiv(c->ml, 16);
  isa_fmt_load2d p;
  memset(&p, 0, sizeof p);
  p.dtype = mm->ty.a;
  if (!mm->ty.a_trans) {
    uint32_t rows16 = round_up(c->ml, 16) / 16; /* fractals per column block in A1 */
    for (uint32_t i = 0; i < mb; i++) {
      p.start_index = (kk0 / c0) * rows16 + i;
      p.repeat_times = kb;
      p.src_stride = rows16;
      rt_load2d(mm->ctx, rt_ltensor_at(a2, (uint64_t)i * kb * 512), a1, p);
    }
  } else {
    uint32_t rows16 = round_up(c->kl, c0) / 16;
    p.if_transpose = 1;
    p.repeat_times = cdiv(c->ml, c0);
    p.src_stride = rows16;
    p.dst_gap = q * kb - q;
    p.dst_frac_gap = kb - 1;
    for (uint32_t b = 0; b < kb; b++) {
      p.start_index = (kk0 / 16) + b * q;
      rt_load2d(mm->ctx, rt_ltensor_at(a2, (uint64_t)b * 512), a1, p);
    }
  }
}

/* Loads K rows kk0..kk0+kn of the chunk from B1 into B2 as Zn. */
static void load_b(rt_matmul *mm, rt_ltensor b2, rt_ltensor b1, const chunk *c, uint32_t kk0, uint32_t kn) {
  uint32_t c0 = mm->c0, q = c0 / 16, kb = cdiv(kn, c0), nb = cdiv(c->nl, 16);
  isa_fmt_load2d p;
  memset(&p, 0, sizeof p);
  p.dtype = mm->ty.b;
  if (!mm->ty.b_trans) { /* NZ of K x N: transpose C0 x C0 squares, k-blocks in increasing order */
    uint32_t rows16 = round_up(c->kl, c0) / 16;
    p.if_transpose = 1;
    p.repeat_times = cdiv(c->nl, c0);
    p.src_stride = rows16;
    for (uint32_t b = 0; b < kb; b++) {
      p.start_index = kk0 / 16 + b * q;
      rt_load2d(mm->ctx, rt_ltensor_at(b2, (uint64_t)b * nb * 512), b1, p);
    }
  } else { /* NZ of N x K: already Zn, kb*nb fractals in order (<= 255 per load) */
    uint32_t rows16 = round_up(c->nl, 16) / 16;
    uint32_t total = kb * nb, done = 0;
    while (done < total) {
      uint32_t nrep = umin(255, total - done);
      /* fractal `done` of the Zn order: k-block done / nb, n-block done % nb */
      uint32_t kblk = done / nb, nblk = done % nb;
      if (rows16 != nb || nblk + nrep > nb) nrep = umin(nrep, nb - nblk);
      p.start_index = (kk0 / c0 + kblk) * rows16 + nblk;
      p.repeat_times = nrep;
      p.src_stride = 1;
      rt_load2d(mm->ctx, rt_ltensor_at(b2, (uint64_t)done * 512), b1, p);
      done += nrep;
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
  if (mode_needs_word(mode) && !mm->has_qscalar && !mm->has_qvec) {
    rt_fail(ctx, "matmul: %s output needs SetQuantScalar or SetQuantVector (quant mode %s)",
            isa_dtype_name(mm->ty.c), isa_quant_mode_name(mode));
    return;
  }
  uint32_t kc = t->step_k * t->base_k;
  uint32_t tiles_m = cdiv(mm->m_len, t->base_m), tiles_n = cdiv(mm->n_len, t->base_n);
  uint32_t chunks_k = cdiv(t->k, kc);
  uint64_t tile0 = mm->tile_count ? mm->tile_first : 0, tstride = mm->tile_count ? mm->tile_stride : 1;
  uint64_t ntiles = mm->tile_count ? mm->tile_count : (uint64_t)tiles_m * tiles_n;
  uint64_t nchunks = ntiles * chunks_k;
  isa_fmt_fixpipe fp;
  memset(&fp, 0, sizeof fp);
  fp.l0c_dtype = (isa_dtype)(is_int_input(mm->ty.a) ? ISA_INT32 : ISA_FP32);
  fp.out_dtype = mm->ty.c;
  fp.quant_pre = mode;
  fp.deq_scalar = mm->has_qscalar ? mm->qword : 0;
  fp.relu_en = mm->relu;
  fp.nz2nd_en = 1;
  fp.dst_stride = t->n;
  fp.nd_num = 1;

  /* chunk i of the block: tiles in M-major order, K chunks inside */
#define CHUNK_OF(i, out)                                                   \
  do {                                                                     \
    uint64_t tile_ = tile0 + (i) / chunks_k * tstride;                     \
    uint32_t kci_ = (uint32_t)((i) % chunks_k);                            \
    (out).m0 = mm->m0 + (uint32_t)(tile_ / tiles_n) * t->base_m;           \
    (out).n0 = mm->n0 + (uint32_t)(tile_ % tiles_n) * t->base_n;           \
    (out).ml = umin(t->base_m, mm->m0 + mm->m_len - (out).m0);             \
    (out).nl = umin(t->base_n, mm->n0 + mm->n_len - (out).n0);             \
    (out).kc0 = kci_ * kc;                                                 \
    (out).kl = umin(kc, t->k - (out).kc0);                                 \
    (out).first_k = kci_ == 0;                                             \
    (out).last_k = kci_ == chunks_k - 1;                                   \
  } while (0)

  /* software pipeline: the copies of the next depth - 1 chunks are issued before the compute of
   * chunk i, so MTE2 streams ahead while MTE1 and the cube work */
  uint32_t depth = t->depth_a1 < t->depth_b1 ? t->depth_a1 : t->depth_b1;
  uint64_t issued = 0;
  chunk cur, nxt;
  rt_ltensor a1, b1, co1 = {0}, bt = {0}, fb = {0};
  for (uint64_t i = 0; i < nchunks && rt_ok(ctx); i++) {
    CHUNK_OF(i, cur);
    while (issued < nchunks && issued < i + depth) {
      CHUNK_OF(issued, nxt);
      rt_ltensor na = rt_alloc(mm->qa1, mm->ty.a), nb = rt_alloc(mm->qb1, mm->ty.b);
      copy_a(mm, na, &nxt);
      rt_enque(mm->qa1, na);
      copy_b(mm, nb, &nxt);
      rt_enque(mm->qb1, nb);
      issued++;
    }
    if (cur.first_k) { /* a new tile: its bias, quant words and accumulator */
      if (mm->ty.has_bias) bt = stage(mm, mm->qbt, mm->bias, cur.n0, cur.nl);
      if (mm->has_qvec) fb = stage(mm, mm->qfb, mm->qvec, cur.n0, cur.nl);
      co1 = rt_alloc(mm->qco1, fp.l0c_dtype);
      if (mm->ty.has_bias) bt = rt_deque(mm->qbt);
    }
    a1 = rt_deque(mm->qa1);
    b1 = rt_deque(mm->qb1);
    for (uint32_t kk0 = 0; kk0 < cur.kl; kk0 += t->base_k) {
      uint32_t kn = umin(t->base_k, cur.kl - kk0);
      rt_ltensor a2 = rt_alloc(mm->qa2, mm->ty.a);
      load_a(mm, a2, a1, &cur, kk0, kn);
      rt_enque(mm->qa2, a2);
      rt_ltensor b2 = rt_alloc(mm->qb2, mm->ty.b);
      load_b(mm, b2, b1, &cur, kk0, kn);
      rt_enque(mm->qb2, b2);
      a2 = rt_deque(mm->qa2);
      b2 = rt_deque(mm->qb2);
      isa_fmt_mmad p;
      memset(&p, 0, sizeof p);
      p.dtype = mm->ty.a;
      p.m = cur.ml;
      p.n = cur.nl;
      p.k = kn;
      p.init_c = cur.first_k && kk0 == 0;
      bool with_bias = mm->ty.has_bias && p.init_c;
      rt_mmad(ctx, co1, a2, b2, with_bias ? &bt : NULL, p);
      rt_free(mm->qa2, a2);
      rt_free(mm->qb2, b2);
    }
    rt_free(mm->qa1, a1);
    rt_free(mm->qb1, b1);
    if (cur.last_k) { /* the tile is complete: out through the fixpipe */
      if (mm->ty.has_bias) rt_free(mm->qbt, bt);
      rt_enque(mm->qco1, co1);
      co1 = rt_deque(mm->qco1);
      if (mm->has_qvec) fb = rt_deque(mm->qfb);
      fp.m_size = cur.ml;
      fp.n_size = cur.nl;
      fp.src_stride = round_up(cur.ml, 16);
      rt_fixpipe(ctx, rt_gtensor_at(cg, (uint64_t)cur.m0 * t->n + cur.n0), co1, mm->has_qvec ? &fb : NULL, fp);
      rt_free(mm->qco1, co1);
      if (mm->has_qvec) rt_free(mm->qfb, fb);
    }
  }
#undef CHUNK_OF
}
