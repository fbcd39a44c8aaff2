/* isa_vec — the repeat, its mask, operand geometry, ranges, work and lane arithmetic shared by
 * the vector families (see isa_vec.h). */
#include "isa/isa_vec.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa_fparith.h"
#include "isa/isa_num.h"

/* ---- the mask ------------------------------------------------------------------------------ */

#define COUNTER_MAX UINT64_C(0xFFFFFFFF) /* counter mode: MASK[31:0] */

static uint64_t lane_bits(uint32_t lanes, unsigned word) { /* the valid bits of mask[word] */
  if (lanes >= 64 * (word + 1)) return UINT64_MAX;
  if (lanes <= 64 * word) return 0;
  return (UINT64_C(1) << (lanes - 64 * word)) - 1;
}

isa_vshape isa_vshape_of(uint32_t mask_mode, uint64_t mask_hi, uint64_t mask_lo,
                         uint32_t repeat_times, uint32_t lanes) {
  isa_vshape s;
  memset(&s, 0, sizeof s);
  s.lanes = lanes;
  if (mask_mode == ISA_VMASK_COUNTER) {
    s.mask[0] = lane_bits(lanes, 0);
    s.mask[1] = lane_bits(lanes, 1);
    s.repeats = (mask_lo + lanes - 1) / lanes;
    s.tail = (uint32_t)(mask_lo % lanes);
  } else {
    s.mask[0] = mask_lo & lane_bits(lanes, 0);
    s.mask[1] = mask_hi & lane_bits(lanes, 1);
    s.repeats = s.mask[0] | s.mask[1] ? repeat_times : 0; /* a zero mask is no operation */
  }
  return s;
}

bool isa_vshape_check(const char *mn, uint32_t mask_mode, uint64_t mask_hi, uint64_t mask_lo,
                      uint32_t lanes, isa_fault *f) {
  if (mask_mode == ISA_VMASK_COUNTER) {
    if (mask_hi != 0)
      return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "mask_hi", mask_hi, 0,
                           "%s: mask_hi = 0x%" PRIx64 " in counter mode; the count is mask_lo alone",
                           mn, mask_hi);
    if (mask_lo > COUNTER_MAX)
      return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "mask_lo", mask_lo, COUNTER_MAX,
                           "%s: mask_lo = %" PRIu64 " elements is beyond the counter's %" PRIu64,
                           mn, mask_lo, COUNTER_MAX);
    return true;
  }
  uint64_t extra_lo = mask_lo & ~lane_bits(lanes, 0), extra_hi = mask_hi & ~lane_bits(lanes, 1);
  if (extra_lo || extra_hi)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, extra_hi ? "mask_hi" : "mask_lo",
                         extra_hi ? mask_hi : mask_lo, lanes,
                         "%s: %s = 0x%" PRIx64 " enables elements beyond the %u of a repeat", mn,
                         extra_hi ? "mask_hi" : "mask_lo", extra_hi ? mask_hi : mask_lo, lanes);
  return true;
}

bool isa_vshape_on(const isa_vshape *s, uint64_t r, uint32_t lane) {
  if (s->tail && r + 1 == s->repeats) return lane < s->tail;
  return (s->mask[lane / 64] >> (lane % 64)) & 1u;
}

static unsigned popcount64(uint64_t v) {
  unsigned n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}

uint64_t isa_vshape_elements(const isa_vshape *s) {
  if (s->repeats == 0) return 0;
  uint64_t per = popcount64(s->mask[0]) + popcount64(s->mask[1]);
  if (s->tail) return (s->repeats - 1) * per + s->tail;
  return s->repeats * per;
}

/* ---- operands and ranges -------------------------------------------------------------------- */

isa_vopnd isa_vopnd_std(isa_addr a, uint32_t elem_bytes, uint32_t blk_stride, uint32_t rep_stride,
                        unsigned write) {
  isa_vopnd o = {a.off, elem_bytes, ISA_VEC_BLOCK_BYTES / elem_bytes,
                 (uint64_t)blk_stride * ISA_VEC_BLOCK_BYTES, (uint64_t)rep_stride * ISA_VEC_BLOCK_BYTES,
                 write};
  return o;
}

/* The bytes one repeat touches in operand o: per block, from its first to its last enabled lane
 * (lanes below `limit` and enabled in mask), as offsets from the repeat's start; sorted by start,
 * touching and overlapping pieces joined. Returns the number of pieces (at most 8 blocks' worth
 * of lanes, ISA_VEC_MAX_LANES / per_block). */
typedef struct piece {
  uint64_t lo, hi; /* [lo, hi) */
} piece;

static size_t repeat_pieces(const isa_vopnd *o, const uint64_t mask[2], uint32_t limit, piece *out) {
  size_t n = 0;
  for (uint32_t first = 0; first < limit; first += o->per_block) {
    uint32_t end = first + o->per_block < limit ? first + o->per_block : limit;
    int64_t lo = -1, hi = -1;
    for (uint32_t i = first; i < end; i++)
      if ((mask[i / 64] >> (i % 64)) & 1u) {
        if (lo < 0) lo = i;
        hi = i;
      }
    if (lo < 0) continue;
    uint64_t blk = (first / o->per_block) * o->blk_bytes;
    piece p = {blk + (uint64_t)(lo - first) * o->elem_bytes, blk + (uint64_t)(hi - first + 1) * o->elem_bytes};
    size_t k = n++; /* insertion by start */
    while (k > 0 && out[k - 1].lo > p.lo) {
      out[k] = out[k - 1];
      k--;
    }
    out[k] = p;
  }
  size_t m = 0; /* join */
  for (size_t k = 0; k < n; k++) {
    if (m > 0 && out[k].lo <= out[m - 1].hi) {
      if (out[k].hi > out[m - 1].hi) out[m - 1].hi = out[k].hi;
    } else {
      out[m++] = out[k];
    }
  }
  return m;
}

/* The lane patterns of a shape: its ordinary repeats, and a counter-mode tail. */
typedef struct pattern {
  uint64_t first, count; /* repeats first .. first + count - 1 */
  uint32_t limit;        /* lanes below it may be enabled */
} pattern;

static size_t shape_patterns(const isa_vshape *s, pattern out[2]) {
  size_t n = 0;
  uint64_t ordinary = s->tail ? s->repeats - 1 : s->repeats;
  if (ordinary) out[n++] = (pattern){0, ordinary, s->lanes};
  if (s->tail && s->repeats) out[n++] = (pattern){s->repeats - 1, 1, s->tail};
  return n;
}

static const uint64_t all_lanes[2] = {UINT64_MAX, UINT64_MAX};

static const uint64_t *pattern_mask(const isa_vshape *s, const pattern *p) {
  return p->limit == s->lanes ? s->mask : all_lanes; /* a tail: its first `limit` lanes */
}

/* Exact ranges of one operand into out (room entries); returns how many it needs, which may be
 * more than room (then out holds only the first room). Also widens [*lo, *hi) to its bytes. */
static size_t operand_ranges(const isa_vopnd *o, const isa_vshape *s, isa_range *out, size_t room,
                             uint64_t *lo, uint64_t *hi) {
  pattern pats[2];
  size_t np = shape_patterns(s, pats), n = 0;
  for (size_t k = 0; k < np; k++) {
    piece pieces[ISA_VEC_MAX_LANES];
    size_t m = repeat_pieces(o, pattern_mask(s, &pats[k]), pats[k].limit, pieces);
    for (size_t i = 0; i < m; i++) {
      uint64_t start = o->base + pats[k].first * o->rep_bytes + pieces[i].lo;
      isa_range r = {ISA_MEM_UB, o->write, start, pieces[i].hi - pieces[i].lo, o->rep_bytes, pats[k].count};
      r = isa_range_normalize(r);
      if (start < *lo) *lo = start;
      if (isa_range_end(&r) > *hi) *hi = isa_range_end(&r);
      if (n < room) out[n] = r;
      n++;
    }
  }
  return n;
}

size_t isa_vec_ranges(const isa_vopnd *ops, const isa_vshape *const *shapes, size_t n,
                      isa_range *out) {
  size_t used = 0;
  bool fits = true;
  uint64_t lo[ISA_VEC_MAX_OPERANDS], hi[ISA_VEC_MAX_OPERANDS];
  for (size_t k = 0; k < n && k < ISA_VEC_MAX_OPERANDS; k++) {
    const isa_vshape *s = shapes[k];
    lo[k] = UINT64_MAX;
    hi[k] = 0;
    size_t room = used < ISA_MAX_RANGES ? ISA_MAX_RANGES - used : 0;
    size_t need = operand_ranges(&ops[k], s, out + (fits ? used : 0), fits ? room : 0, &lo[k], &hi[k]);
    if (need > room) fits = false;
    used += need;
  }
  if (fits) return used;
  size_t m = 0; /* one bounding range per operand that touches anything */
  for (size_t k = 0; k < n; k++)
    if (hi[k] > lo[k]) out[m++] = (isa_range){ISA_MEM_UB, ops[k].write, lo[k], hi[k] - lo[k], hi[k] - lo[k], 1};
  return m;
}

void isa_vec_work(const isa_vshape *s, isa_vclass c, uint32_t dtype, const isa_vopnd *ops,
                  const isa_vshape *const *shapes, size_t n, isa_work *w) {
  w->path = ISA_PATH_VECTOR;
  w->bytes = s->repeats * ISA_VEC_REPEAT_BYTES;
  w->elements = isa_vshape_elements(s);
  w->vclass = c;
  w->dtype = dtype;
  w->repeats = s->repeats;
  w->vops = 0;
  for (size_t k = 0; k < n && k < ISA_VEC_MAX_OPERANDS; k++) {
    uint32_t per = ops[k].per_block ? ops[k].per_block : 1;
    uint32_t blocks = (shapes[k]->lanes + per - 1) / per;
    if (blocks < 1) blocks = 1;
    if (blocks > ISA_VEC_REPEAT_BYTES / ISA_VEC_BLOCK_BYTES) blocks = ISA_VEC_REPEAT_BYTES / ISA_VEC_BLOCK_BYTES;
    w->vop[w->vops++] = (struct isa_work_vop){ops[k].base, ops[k].blk_bytes, ops[k].rep_bytes, blocks,
                                              ops[k].write};
  }
}

void isa_vec_lanes(const isa_mach *m, const isa_vshape *s, const isa_vopnd *o, uint64_t r,
                   uint8_t *lane[ISA_VEC_MAX_LANES]) {
  uint32_t limit = s->tail && r + 1 == s->repeats ? s->tail : s->lanes;
  for (uint32_t i = limit; i < s->lanes; i++) lane[i] = NULL;
  for (uint32_t first = 0; first < limit; first += o->per_block) {
    uint32_t end = first + o->per_block < limit ? first + o->per_block : limit, lo = end, hi = 0;
    for (uint32_t i = first; i < end; i++) {
      lane[i] = NULL;
      if (isa_vshape_on(s, r, i)) {
        if (lo == end) lo = i;
        hi = i;
      }
    }
    if (lo == end) continue;
    uint64_t off = o->base + r * o->rep_bytes + (first / o->per_block) * o->blk_bytes +
                   (uint64_t)(lo - first) * o->elem_bytes;
    uint8_t *p = m->ptr(m->ctx, ISA_MEM_UB, off, (uint64_t)(hi - lo + 1) * o->elem_bytes);
    for (uint32_t i = lo; i <= hi; i++)
      if (isa_vshape_on(s, r, i)) lane[i] = p + (uint64_t)(i - lo) * o->elem_bytes;
  }
}

/* ---- checks --------------------------------------------------------------------------------- */

bool isa_vec_check_ub(const char *mn, const char *operand, isa_addr a, isa_fault *f) {
  if (a.mem == ISA_MEM_UB) return true;
  return isa_fault_set(f, ISA_FAULT_BAD_MEM, operand, a.mem, ISA_MEMBIT(UB),
                       "%s: operand %s names %s; vector operands must be in UB", mn, operand,
                       isa_mem_name((isa_mem)a.mem));
}

bool isa_vec_check_dtype(const char *mn, const char *field, uint32_t dtype, uint32_t allowed,
                         isa_fault *f) {
  if (dtype < ISA_DTYPE_COUNT && (allowed >> dtype) & 1u) return true;
  char list[128] = "";
  size_t len = 0;
  for (unsigned t = 0; t < ISA_DTYPE_COUNT; t++)
    if ((allowed >> t) & 1u)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                              isa_dtype_name((isa_dtype)t));
  return isa_fault_set(f, ISA_FAULT_DTYPE, field, dtype, 0, "%s: %s %s is not supported (%s)", mn,
                       field, isa_dtype_name((isa_dtype)dtype), list);
}

bool isa_vec_check_scalar(const char *mn, uint64_t scalar, uint32_t dtype, isa_fault *f) {
  uint64_t max = isa_vec_elem_bytes(dtype) >= 4 ? UINT64_C(0xFFFFFFFF) : (UINT64_C(1) << (8 * isa_vec_elem_bytes(dtype))) - 1;
  if (scalar <= max) return true;
  return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "scalar", scalar, max,
                       "%s: scalar = 0x%" PRIx64 " does not fit a %s element", mn, scalar,
                       isa_dtype_name((isa_dtype)dtype));
}

/* ---- element values ------------------------------------------------------------------------- */

unsigned isa_vec_elem_bytes(uint32_t dtype) { return isa_dtype_bits((isa_dtype)dtype) / 8; }

float isa_vec_to_f32(uint32_t dtype, uint32_t bits) {
  switch (dtype) {
    case ISA_FP16: return isa_f16_to_f32((uint16_t)bits);
    case ISA_BF16: return isa_bf16_to_f32((uint16_t)bits);
    default: return isa_f32_from_bits(bits);
  }
}

uint32_t isa_vec_saturate(uint32_t dtype, uint32_t bits) {
  if (dtype != ISA_FP16 && dtype != ISA_BF16) return bits;
  uint32_t inf = dtype == ISA_FP16 ? ISA_F16_INF : ISA_BF16_INF;
  uint32_t sign = bits & 0x8000u, mag = bits & 0x7FFFu;
  if (mag == inf) return sign | (inf - 1); /* ±max finite */
  if ((mag & inf) == inf) return 0;        /* NaN */
  return bits;
}

uint32_t isa_vec_from_f32(uint32_t dtype, float y, bool sat) {
  uint32_t bits;
  switch (dtype) {
    case ISA_FP16: bits = y != y ? ISA_F16_QNAN : isa_f32_to_f16(y); break;
    case ISA_BF16: bits = y != y ? ISA_BF16_QNAN : isa_f32_to_bf16(y); break;
    default: return isa_f32_bits(isa_f32_canon(y));
  }
  return sat ? isa_vec_saturate(dtype, bits) : bits;
}

int64_t isa_vec_to_int(uint32_t dtype, uint32_t bits) {
  switch (dtype) {
    case ISA_INT8: return (int8_t)(uint8_t)bits;
    case ISA_UINT8: return (uint8_t)bits;
    case ISA_INT16: return (int16_t)(uint16_t)bits;
    case ISA_UINT16: return (uint16_t)bits;
    default: return (int32_t)bits;
  }
}

uint32_t isa_vec_from_int(uint32_t dtype, int64_t v) {
  unsigned bits = 8 * isa_vec_elem_bytes(dtype);
  return bits >= 32 ? (uint32_t)v : (uint32_t)v & ((1u << bits) - 1);
}

/* IEEE 754-2019 maximum / minimum: NaN if either is NaN; +0 above -0. */
static float f32_max(float a, float b) {
  if (a != a || b != b) return isa_f32_from_bits(ISA_F32_QNAN_BITS);
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}

static float f32_min(float a, float b) {
  if (a != a || b != b) return isa_f32_from_bits(ISA_F32_QNAN_BITS);
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}

uint32_t isa_vec_arith_apply(isa_vec_arith k, uint32_t dtype, uint32_t a, uint32_t b, bool sat) {
  if (dtype == ISA_INT16 || dtype == ISA_INT32) {
    int64_t x = isa_vec_to_int(dtype, a), y = isa_vec_to_int(dtype, b), r;
    switch (k) {
      case ISA_VEC_ADD: r = x + y; break;
      case ISA_VEC_SUB: r = x - y; break;
      case ISA_VEC_MUL: r = (int64_t)((uint64_t)x * (uint64_t)y); break; /* low bits kept */
      case ISA_VEC_MAX: r = x > y ? x : y; break;
      case ISA_VEC_MIN: r = x < y ? x : y; break;
      default: r = 0; break; /* no integer division: the families refuse it */
    }
    return isa_vec_from_int(dtype, r);
  }
  float x = isa_vec_to_f32(dtype, a), y = isa_vec_to_f32(dtype, b), r;
  switch (k) {
    case ISA_VEC_ADD: r = isa_f32_add(x, y); break;
    case ISA_VEC_SUB: r = isa_f32_sub(x, y); break;
    case ISA_VEC_MUL: r = isa_f32_mul(x, y); break;
    case ISA_VEC_DIV: r = isa_f32_div(x, y); break;
    case ISA_VEC_MAX: r = f32_max(x, y); break;
    default: r = f32_min(x, y); break;
  }
  return isa_vec_from_f32(dtype, r, sat);
}
