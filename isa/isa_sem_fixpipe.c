/* isa_sem_fixpipe — fixpipe L0C -> GM / L1 (FixpipeParamsV220): quantization, ReLU, Nz -> ND.
 *
 * docs/ISA.md §fixpipe. The per-element rules (isa_fixpipe_conv_*) are public in
 * isa/isa_fixpipe.h so host references use the very same definition; the quant word's fields come
 * from isa/isa_quant.h (docs/DESIGN.md §5.1). exec walks the tile one 16-column block of L0C at
 * a time: the block's words are decoded once, then every matrix and row of the block is
 * converted.
 */
#include "isa/isa_fixpipe.h"

#include <stddef.h>
#include <string.h>

#include "isa/isa_fparith.h"
#include "isa/isa_num.h"
#include "isa/isa_quant.h"

#define L0C_ELEM_BYTES 4u
#define BLOCK_COLS 16u                                /* columns of an L0C fractal */
#define L0C_ROW_BYTES (BLOCK_COLS * L0C_ELEM_BYTES)  /* one row of a column block: 64 bytes */
#define FB_WORD_BYTES 8u
#define B8_PRE_MIN (-256) /* rne(y) is clamped to the 9-bit range before the offset */
#define B8_PRE_MAX 255

/* ---- the per-element rules ---------------------------------------------------------------- */

void isa_fixpipe_conv_init(isa_fixpipe_conv *c, isa_quant_mode mode, isa_dtype l0c_dtype,
                           uint64_t word, bool relu, bool saturation) {
  memset(c, 0, sizeof *c);
  c->mode = mode;
  switch (mode) {
    case ISA_QUANT_NO_QUANT: c->l0c_float = l0c_dtype == ISA_FP32; break;
    case ISA_QUANT_DEQF16:
    case ISA_QUANT_VDEQF16:
    case ISA_QUANT_REQ8:
    case ISA_QUANT_VREQ8: c->l0c_float = false; break;
    default: c->l0c_float = true; break;
  }
  c->relu = relu;
  c->saturation = saturation;
  c->m1 = isa_qw_scale_effective(word);
  c->mcb = (word & ISA_QW_MCB_MASK) != 0;
  c->n = (unsigned)((word & ISA_QW_N_MASK) >> ISA_QW_N_POS);
  c->offset = isa_qw_offset(word);
  c->s = (word & ISA_QW_S_MASK) != 0;
}

/* x >> n with the sign copied in (C leaves >> of a negative value to the implementation). */
static int32_t shift_right_arith(int32_t x, unsigned n) { return x >= 0 ? x >> n : ~(~x >> n); }

/* y = fp32(x) * M, with ReLU folded into the scale: M = 0 for a negative x
 * (docs/DESIGN.md §5.2). */
static float scaled(float x, bool negative, const isa_fixpipe_conv *c) {
  return isa_f32_mul(x, negative && c->relu ? 0.0f : c->m1);
}

/* REQ8 / QF322B8: round half to even into [-256, 255], add the offset, clamp by the S bit. */
static uint32_t to_b8(float y, const isa_fixpipe_conv *c) {
  int64_t q = isa_round_sat((double)y, 1, B8_PRE_MIN, B8_PRE_MAX) + c->offset;
  int64_t out = c->s ? isa_clamp_i64(q, INT8_MIN, INT8_MAX) : isa_clamp_i64(q, 0, UINT8_MAX);
  return (uint32_t)(uint8_t)out;
}

static uint32_t to_f16(float y, bool saturation) {
  return saturation ? isa_f32_to_f16_sat(y) : isa_f32_to_f16(y);
}

static uint32_t to_bf16(float y, bool saturation) {
  return saturation ? isa_f32_to_bf16_sat(y) : isa_f32_to_bf16(y);
}

/* ReLU as max(x, 0) on fp32: IEEE maxNum, so -0.0 and NaN give +0. */
static float relu_f32(float x, bool relu) { return relu && !(x > 0.0f) ? 0.0f : x; }

/* isa_fixpipe_conv_apply's body, inlined into the row loops of exec. */
static inline uint32_t conv_apply(const isa_fixpipe_conv *c, uint32_t x_bits) {
  int32_t xi = (int32_t)x_bits;
  float xf = isa_f32_from_bits(x_bits);
  switch ((isa_quant_mode)c->mode) {
    case ISA_QUANT_NO_QUANT:
      if (!c->relu) return x_bits;
      if (c->l0c_float) return isa_f32_bits(relu_f32(xf, true));
      return xi > 0 ? x_bits : 0u;
    case ISA_QUANT_F322F16: return to_f16(relu_f32(xf, c->relu), c->saturation);
    case ISA_QUANT_F322BF16: return to_bf16(relu_f32(xf, c->relu), c->saturation);
    case ISA_QUANT_DEQF16:
    case ISA_QUANT_VDEQF16: return to_f16(scaled(isa_i32_to_f32(xi), xi < 0, c), c->saturation);
    case ISA_QUANT_QF322B8_PRE:
    case ISA_QUANT_VQF322B8_PRE: return to_b8(scaled(xf, !(xf >= 0.0f), c), c);
    case ISA_QUANT_REQ8:
    case ISA_QUANT_VREQ8:
      if (c->mcb) xi = isa_sat_i16(shift_right_arith(xi, c->n));
      return to_b8(scaled(isa_i32_to_f32(xi), xi < 0, c), c);
    default: return 0;
  }
}

uint32_t isa_fixpipe_conv_apply(const isa_fixpipe_conv *c, uint32_t x_bits) { return conv_apply(c, x_bits); }

uint32_t isa_fixpipe_convert_elem(isa_quant_mode mode, isa_dtype l0c_dtype, uint64_t word,
                                  bool relu, uint32_t x_bits, bool saturation) {
  isa_fixpipe_conv c;
  isa_fixpipe_conv_init(&c, mode, l0c_dtype, word, relu, saturation);
  return isa_fixpipe_conv_apply(&c, x_bits);
}

bool isa_fixpipe_types_ok(isa_quant_mode mode, isa_dtype l0c, isa_dtype out) {
  bool b8 = out == ISA_INT8 || out == ISA_UINT8;
  switch (mode) {
    case ISA_QUANT_NO_QUANT: return (l0c == ISA_INT32 || l0c == ISA_FP32) && out == l0c;
    case ISA_QUANT_F322F16: return l0c == ISA_FP32 && out == ISA_FP16;
    case ISA_QUANT_F322BF16: return l0c == ISA_FP32 && out == ISA_BF16;
    case ISA_QUANT_DEQF16:
    case ISA_QUANT_VDEQF16: return l0c == ISA_INT32 && out == ISA_FP16;
    case ISA_QUANT_QF322B8_PRE:
    case ISA_QUANT_VQF322B8_PRE: return l0c == ISA_FP32 && b8;
    case ISA_QUANT_REQ8:
    case ISA_QUANT_VREQ8: return l0c == ISA_INT32 && b8;
    default: return false;
  }
}

const char *isa_fixpipe_types_allowed(isa_quant_mode mode) {
  switch (mode) {
    case ISA_QUANT_NO_QUANT: return "l0c_dtype int32 or fp32 and the same out_dtype";
    case ISA_QUANT_F322F16: return "l0c_dtype fp32 and out_dtype fp16";
    case ISA_QUANT_F322BF16: return "l0c_dtype fp32 and out_dtype bf16";
    case ISA_QUANT_DEQF16:
    case ISA_QUANT_VDEQF16: return "l0c_dtype int32 and out_dtype fp16";
    case ISA_QUANT_QF322B8_PRE:
    case ISA_QUANT_VQF322B8_PRE: return "l0c_dtype fp32 and out_dtype int8 or uint8";
    case ISA_QUANT_REQ8:
    case ISA_QUANT_VREQ8: return "l0c_dtype int32 and out_dtype int8 or uint8";
    default: return "a known quant mode";
  }
}

/* ---- geometry --------------------------------------------------------------------------- */

typedef struct fp_geom {
  uint32_t blocks;    /* 16-column blocks: ceil(n_size / 16) */
  uint32_t full;      /* whole blocks */
  uint32_t tail;      /* columns of the last, partial block (0: none) */
  uint64_t out_bytes; /* bytes per output element */
} fp_geom;

static fp_geom geom_of(const isa_fmt_fixpipe *p) {
  fp_geom g;
  g.blocks = (p->n_size + BLOCK_COLS - 1) / BLOCK_COLS;
  g.full = p->n_size / BLOCK_COLS;
  g.tail = p->n_size % BLOCK_COLS;
  g.out_bytes = isa_dtype_bits((isa_dtype)p->out_dtype) / 8;
  return g;
}

/* Elements one destination matrix spans, first to last written plus one. */
static uint64_t dst_matrix_elems(const isa_fmt_fixpipe *p, const fp_geom *g) {
  if (p->nz2nd_en) return (uint64_t)(p->m_size - 1) * p->dst_stride + p->n_size;
  uint64_t last_block_cols = g->tail ? g->tail : BLOCK_COLS;
  return ((uint64_t)(g->blocks - 1) * p->dst_stride + p->m_size - 1) * BLOCK_COLS + last_block_cols;
}

/* ---- the family ------------------------------------------------------------------------- */

bool isa_sem_fixpipe_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_fixpipe *p = &in->u.fixpipe;
  isa_quant_mode mode = (isa_quant_mode)p->quant_pre;
  if (p->l0c_dtype != ISA_INT32 && p->l0c_dtype != ISA_FP32)
    return isa_fault_set(f, ISA_FAULT_DTYPE, "l0c_dtype", p->l0c_dtype, 0,
                         "fixpipe: l0c_dtype %s is not an L0C type (int32 or fp32)",
                         isa_dtype_name((isa_dtype)p->l0c_dtype));
  if (!isa_fixpipe_types_ok(mode, (isa_dtype)p->l0c_dtype, (isa_dtype)p->out_dtype))
    return isa_fault_set(f, ISA_FAULT_QUANT_MODE, "quant_pre", p->quant_pre, 0,
                         "fixpipe: quant_pre %s needs %s, not l0c_dtype %s and out_dtype %s",
                         isa_quant_mode_name(mode), isa_fixpipe_types_allowed(mode),
                         isa_dtype_name((isa_dtype)p->l0c_dtype),
                         isa_dtype_name((isa_dtype)p->out_dtype));
  if (isa_quant_mode_is_vector(mode) && p->fb.mem != ISA_MEM_FB)
    return isa_fault_set(f, ISA_FAULT_BAD_MEM, "fb", p->fb.mem, ISA_MEMBIT(FB),
                         "fixpipe: operand fb names %s; quant_pre %s reads its words from FB",
                         isa_mem_name((isa_mem)p->fb.mem), isa_quant_mode_name(mode));
  if (p->src_stride < p->m_size)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "src_stride", p->src_stride, p->m_size,
                         "fixpipe: src_stride = %u is below m_size = %u (L0C rows between "
                         "16-column blocks)",
                         p->src_stride, p->m_size);
  if (p->nz2nd_en && p->dst_stride < p->n_size)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "dst_stride", p->dst_stride, p->n_size,
                         "fixpipe: dst_stride = %u is below n_size = %u (ND row stride in "
                         "elements)",
                         p->dst_stride, p->n_size);
  if (!p->nz2nd_en && p->dst_stride < p->m_size)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "dst_stride", p->dst_stride, p->m_size,
                         "fixpipe: dst_stride = %u is below m_size = %u (rows between the "
                         "16-column blocks of the Nz output)",
                         p->dst_stride, p->m_size);
  if (p->unit_flag == 1)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "unit_flag", 1, 3,
                         "fixpipe: unit_flag = 1 is reserved (0 off, 2 or 3 on)");
  fp_geom g = geom_of(p);
  uint64_t span = dst_matrix_elems(p, &g);
  if (p->nd_num > 1 && p->dst_nd_stride < span)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "dst_nd_stride", p->dst_nd_stride, span,
                         "fixpipe: dst_nd_stride = %u is below the %llu elements of one "
                         "destination matrix (nd_num = %u): matrices would overlap",
                         p->dst_nd_stride, (unsigned long long)span, p->nd_num);
  return true;
}

/* One access pattern repeated for every matrix: `rows` runs of `row_bytes`, `stride` apart,
 * from base + t * step for matrix t. */
typedef struct fp_pattern {
  uint32_t mem, write;
  uint64_t base, row_bytes, stride, rows, step;
} fp_pattern;

/* A pattern whose runs of one matrix join into one run (or a single matrix) is one range. */
static bool pattern_joins(const fp_pattern *pt, uint32_t nd_num) {
  return nd_num == 1 || pt->rows == 1 || pt->stride == pt->row_bytes;
}

static uint64_t pattern_matrix_bytes(const fp_pattern *pt) {
  return (pt->rows - 1) * pt->stride + pt->row_bytes;
}

size_t isa_sem_fixpipe_ranges(const isa_insn *in, isa_range *out) {
  const isa_fmt_fixpipe *p = &in->u.fixpipe;
  fp_geom g = geom_of(p);
  uint64_t es = g.out_bytes;
  fp_pattern pats[3];
  size_t np = 0;
  pats[np++] = (fp_pattern){ISA_MEM_L0C, 0, p->src.off, (uint64_t)p->m_size * L0C_ROW_BYTES,
                            (uint64_t)p->src_stride * L0C_ROW_BYTES, g.blocks,
                            (uint64_t)p->src_nd_stride * L0C_ROW_BYTES};
  uint64_t dstep = (uint64_t)p->dst_nd_stride * es;
  if (p->nz2nd_en) {
    pats[np++] = (fp_pattern){p->dst.mem, 1, p->dst.off, p->n_size * es, p->dst_stride * es,
                              p->m_size, dstep};
  } else {
    uint64_t block_stride = (uint64_t)p->dst_stride * BLOCK_COLS * es;
    if (g.full)
      pats[np++] = (fp_pattern){p->dst.mem, 1, p->dst.off, p->m_size * BLOCK_COLS * es,
                                block_stride, g.full, dstep};
    if (g.tail)
      pats[np++] = (fp_pattern){p->dst.mem, 1, p->dst.off + g.full * block_stride, g.tail * es,
                                BLOCK_COLS * es, p->m_size, dstep};
  }
  bool vector = isa_quant_mode_is_vector((isa_quant_mode)p->quant_pre);
  /* Every matrix gets its own ranges when they fit; a pattern that cannot is covered by one
   * bounding range from its first byte to its last. */
  size_t needed = vector ? 1 : 0;
  for (size_t i = 0; i < np; i++) needed += pattern_joins(&pats[i], p->nd_num) ? 1 : p->nd_num;
  size_t r = 0;
  for (size_t i = 0; i < np; i++) {
    const fp_pattern *pt = &pats[i];
    uint64_t matrix = pattern_matrix_bytes(pt);
    if (p->nd_num == 1) {
      out[r++] = (isa_range){pt->mem, pt->write, pt->base, pt->row_bytes, pt->stride, pt->rows};
    } else if (pattern_joins(pt, p->nd_num)) {
      out[r++] = (isa_range){pt->mem, pt->write, pt->base, matrix, pt->step, p->nd_num};
    } else if (needed <= ISA_MAX_RANGES) {
      for (uint32_t t = 0; t < p->nd_num; t++)
        out[r++] = (isa_range){pt->mem,      pt->write, pt->base + t * pt->step,
                               pt->row_bytes, pt->stride, pt->rows};
    } else {
      uint64_t all = (uint64_t)(p->nd_num - 1) * pt->step + matrix;
      out[r++] = (isa_range){pt->mem, pt->write, pt->base, all, all, 1};
    }
  }
  if (vector) {
    uint64_t fb_bytes = (uint64_t)p->n_size * FB_WORD_BYTES;
    out[r++] = (isa_range){ISA_MEM_FB, 0, p->fb.off, fb_bytes, fb_bytes, 1};
  }
  return r;
}

void isa_sem_fixpipe_work(const isa_insn *in, isa_work *w) {
  const isa_fmt_fixpipe *p = &in->u.fixpipe;
  fp_geom g = geom_of(p);
  w->path = p->dst.mem == ISA_MEM_GM ? ISA_PATH_L0C_TO_GM : ISA_PATH_L0C_TO_L1;
  w->elements = (uint64_t)p->nd_num * p->m_size * p->n_size;
  w->bytes = w->elements * g.out_bytes;
  w->dtype = p->out_dtype;
}

/* Converts the first w elements of one L0C row (x) into row (es bytes each), column jj by
 * conv[jj]. NoQuant without ReLU keeps the bits: a copy. Otherwise one loop per output size, so
 * each store has a constant size. */
static void convert_row(const isa_fixpipe_conv *conv, const uint8_t *x, uint8_t *row, uint32_t w, uint64_t es) {
  if (conv[0].mode == ISA_QUANT_NO_QUANT && !conv[0].relu) {
    memcpy(row, x, (size_t)w * L0C_ELEM_BYTES); /* both little-endian 4-byte elements */
    return;
  }
  switch (es) {
    case 1:
      for (uint32_t jj = 0; jj < w; jj++) row[jj] = (uint8_t)conv_apply(&conv[jj], isa_le_load32(x + jj * L0C_ELEM_BYTES));
      break;
    case 2:
      for (uint32_t jj = 0; jj < w; jj++)
        isa_le_store(row + 2 * jj, conv_apply(&conv[jj], isa_le_load32(x + jj * L0C_ELEM_BYTES)), 2);
      break;
    default:
      for (uint32_t jj = 0; jj < w; jj++)
        isa_le_store(row + 4 * jj, conv_apply(&conv[jj], isa_le_load32(x + jj * L0C_ELEM_BYTES)), 4);
      break;
  }
}

void isa_sem_fixpipe_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_fixpipe *p = &in->u.fixpipe;
  fp_geom g = geom_of(p);
  uint64_t es = g.out_bytes;
  isa_quant_mode mode = (isa_quant_mode)p->quant_pre;
  bool vector = isa_quant_mode_is_vector(mode);
  isa_mem dmem = (isa_mem)p->dst.mem;
  isa_fixpipe_conv conv[BLOCK_COLS];
  const uint8_t *words = NULL;
  if (vector) {
    words = m->ptr(m->ctx, ISA_MEM_FB, p->fb.off, (uint64_t)p->n_size * FB_WORD_BYTES);
  } else {
    isa_fixpipe_conv_init(&conv[0], mode, (isa_dtype)p->l0c_dtype, p->deq_scalar, p->relu_en != 0,
                          m->env.fixpipe_saturation);
    for (uint32_t jj = 1; jj < BLOCK_COLS; jj++) conv[jj] = conv[0];
  }
  for (uint32_t cb = 0; cb < g.blocks; cb++) {
    uint32_t w = cb < g.full ? BLOCK_COLS : g.tail;
    for (uint32_t jj = 0; vector && jj < w; jj++)
      isa_fixpipe_conv_init(&conv[jj], mode, (isa_dtype)p->l0c_dtype,
                            isa_le_load(words + ((uint64_t)cb * BLOCK_COLS + jj) * FB_WORD_BYTES, 8),
                            p->relu_en != 0, m->env.fixpipe_saturation);
    for (uint32_t t = 0; t < p->nd_num; t++) {
      const uint8_t *src = m->ptr(
          m->ctx, ISA_MEM_L0C,
          p->src.off + ((uint64_t)t * p->src_nd_stride + (uint64_t)cb * p->src_stride) * L0C_ROW_BYTES,
          (uint64_t)p->m_size * L0C_ROW_BYTES);
      uint64_t matrix = p->dst.off + (uint64_t)t * p->dst_nd_stride * es;
      uint8_t *block = NULL; /* Nz output of a whole block: m_size contiguous rows of 16 */
      if (!p->nz2nd_en && w == BLOCK_COLS)
        block = m->ptr(m->ctx, dmem, matrix + (uint64_t)cb * p->dst_stride * BLOCK_COLS * es,
                       (uint64_t)p->m_size * BLOCK_COLS * es);
      for (uint32_t i = 0; i < p->m_size; i++) {
        uint8_t *row;
        if (p->nz2nd_en)
          row = m->ptr(m->ctx, dmem,
                       matrix + ((uint64_t)i * p->dst_stride + (uint64_t)cb * BLOCK_COLS) * es, w * es);
        else if (block)
          row = block + (uint64_t)i * BLOCK_COLS * es;
        else
          row = m->ptr(m->ctx, dmem,
                       matrix + ((uint64_t)cb * p->dst_stride + i) * BLOCK_COLS * es, w * es);
        convert_row(conv, src + (uint64_t)i * L0C_ROW_BYTES, row, w, es);
      }
    }
  }
}
