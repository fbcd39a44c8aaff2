/* Tests of the vector families that are not lane arithmetic: vcmp (bits), vsel (choice by bits),
 * vreduce (one result a repeat: the documented binary-tree sum, max and min with indices) and
 * vbrcb (an element per block), against references written here from docs/ISA.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa_insn.h"
#include "support/insn_check.h"
#include "support/isa_testmach.h"
#include "support/packed.h"
#include "support/ref_num.h"
#include "support/rng.h"

#define UB_BYTES (192u * 1024u)
#define FILL 0x5Au

static isa_testmach *new_machine(void) {
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_UB] = UB_BYTES;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  memset(itm_mem(t, ISA_MEM_UB), FILL, UB_BYTES);
  return t;
}

static double value_of(isa_dtype dt, uint32_t b) {
  return dt == ISA_FP16 ? ref_f16_value((uint16_t)b) : (double)ref_f32_of_bits(b);
}

/* Random floats of type dt with repeats, zeros of both signs and NaN among them. */
static uint32_t random_float(isa_dtype dt, uint64_t *seed) {
  uint64_t r = rng_lcg(seed);
  static const uint32_t f32[] = {0, 0x80000000u, 0x7FC00000u, 0x3F800000u, 0xBF800000u, 0x7F800000u};
  static const uint32_t f16[] = {0, 0x8000u, 0x7E00u, 0x3C00u, 0xBC00u, 0x7C00u};
  if (r % 4 == 0) return dt == ISA_FP16 ? f16[(r >> 8) % 6] : f32[(r >> 8) % 6];
  uint32_t small = (uint32_t)((r >> 8) % 64); /* many ties */
  if (r % 4 == 1) return dt == ISA_FP16 ? 0x4000u + small : 0x40000000u + (small << 13);
  return dt == ISA_FP16 ? (uint32_t)(r >> 11) & 0xFFFFu : (uint32_t)(r >> 11);
}

static void put_elems(uint8_t *ub, uint64_t at, isa_dtype dt, uint32_t n, uint64_t *seed) {
  unsigned es = isa_dtype_bits(dt) / 8;
  for (uint32_t i = 0; i < n; i++) pk_le_put(ub + at + (uint64_t)i * es, random_float(dt, seed), es);
}

/* ---- vcmp --------------------------------------------------------------------------------------- */

static isa_insn vcmp(isa_dtype dt, isa_cmp_mode m, uint64_t d, uint64_t a, uint64_t b, uint32_t mode,
                     uint64_t mask_lo, uint32_t repeats) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VCMP;
  isa_fmt_vcmp *p = &in.u.vcmp;
  p->dst = (isa_addr){ISA_MEM_UB, d};
  p->src0 = (isa_addr){ISA_MEM_UB, a};
  p->src1 = (isa_addr){ISA_MEM_UB, b};
  p->dtype = dt;
  p->cmp_mode = m;
  p->mask_mode = mode;
  p->mask_lo = mask_lo;
  p->repeat_times = repeats;
  p->src0_blk_stride = p->src1_blk_stride = 1;
  p->src0_rep_stride = p->src1_rep_stride = 8;
  return in;
}

static bool ref_cmp(isa_cmp_mode m, double x, double y) {
  switch (m) {
    case ISA_CMP_LT: return x < y;
    case ISA_CMP_GT: return x > y;
    case ISA_CMP_EQ: return x == y;
    case ISA_CMP_LE: return x <= y;
    case ISA_CMP_GE: return x >= y;
    default: return x != y;
  }
}

/* Every comparison on fp32 and fp16 in counter mode: 3 whole repeats and a tail of 10, which A2
 * leaves out (the bytes after the 3 repeats' bits are untouched). */
static void test_vmisc_vcmp_random(void **state) {
  (void)state;
  uint64_t seed = 3;
  const isa_dtype dts[] = {ISA_FP32, ISA_FP16};
  for (size_t d = 0; d < 2; d++)
    for (int m = 0; m < ISA_CMP_COUNT; m++) {
      isa_testmach *t = new_machine();
      uint8_t *ub = itm_mem(t, ISA_MEM_UB);
      unsigned es = isa_dtype_bits(dts[d]) / 8;
      uint32_t lanes = 256 / es, n = 3 * lanes + 10;
      put_elems(ub, 0, dts[d], n, &seed);
      put_elems(ub, 0x4000, dts[d], n, &seed);
      for (uint32_t i = 0; i < n; i += 3) /* equal pairs */
        pk_le_put(ub + 0x4000 + (uint64_t)i * es, pk_le_get(ub + (uint64_t)i * es, es), es);
      isa_insn in = vcmp(dts[d], (isa_cmp_mode)m, 0x8000, 0, 0x4000, ISA_VMASK_COUNTER, n, 1);
      assert_true(itm_run(t, &in, NULL));
      for (uint32_t i = 0; i < 3 * lanes; i++) {
        double x = value_of(dts[d], (uint32_t)pk_le_get(ub + (uint64_t)i * es, es));
        double y = value_of(dts[d], (uint32_t)pk_le_get(ub + 0x4000 + (uint64_t)i * es, es));
        bool bit = (ub[0x8000 + i / 8] >> (i % 8)) & 1u;
        if (bit != ref_cmp((isa_cmp_mode)m, x, y))
          fail_msg("vcmp %s %s lane %u: %g vs %g gave %d", isa_dtype_name(dts[d]),
                   isa_field_enum_name(ISA_FK_CMP, (uint32_t)m), i, x, y, bit);
      }
      assert_int_equal(ub[0x8000 + 3 * lanes / 8], FILL);
      itm_destroy(t);
    }
}

/* Normal mode: the mask is not used on A2; every lane of each repeat is compared. int32 takes
 * eq only. Ranges: the sources' repeats and P / 8 bytes of bits a repeat. */
static void test_vmisc_vcmp_mask_unused_and_int32(void **state) {
  (void)state;
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  for (int i = 0; i < 128; i++) {
    pk_le_put(ub + 4 * i, (uint32_t)(i % 3), 4);
    pk_le_put(ub + 0x1000 + 4 * i, 1, 4);
  }
  isa_insn in = vcmp(ISA_INT32, ISA_CMP_EQ, 0x2000, 0, 0x1000, ISA_VMASK_NORM, 1, 2);
  assert_true(itm_run(t, &in, NULL));
  for (int i = 0; i < 128; i++) assert_int_equal((ub[0x2000 + i / 8] >> (i % 8)) & 1u, i % 3 == 1);
  assert_int_equal(ub[0x2000 + 16], FILL);
  isa_range r[ISA_MAX_RANGES];
  assert_int_equal(isa_insn_ranges(&in, r), 3);
  ic_range(&r[0], ISA_MEM_UB, 0, 0, 512, 512, 1);
  ic_range(&r[1], ISA_MEM_UB, 0, 0x1000, 512, 512, 1);
  ic_range(&r[2], ISA_MEM_UB, 1, 0x2000, 16, 16, 1);
  isa_work w;
  isa_insn_work(&in, &w);
  assert_int_equal(w.bytes, 512);
  assert_int_equal(w.elements, 128);
  in.u.vcmp.cmp_mode = ISA_CMP_LT;
  ic_fault(&in, ISA_FAULT_DTYPE, "cmp_mode", ISA_CMP_LT, ISA_CMP_EQ, "vcmp: int32 compares with eq only, not lt");
  in.u.vcmp.dtype = ISA_INT16;
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_INT16, 0, "vcmp: dtype int16 is not supported (int32, fp16, fp32)");
  itm_destroy(t);
}

/* ---- vsel --------------------------------------------------------------------------------------- */

/* Each mode on fp32 and fp16, normal mode with a partial mask (left-out lanes keep dst), 3
 * repeats with src1 at a block stride 0. */
static void test_vmisc_vsel_modes(void **state) {
  (void)state;
  uint64_t seed = 5;
  const isa_dtype dts[] = {ISA_FP32, ISA_FP16};
  for (size_t d = 0; d < 2; d++)
    for (int mode = 0; mode < ISA_SEL_COUNT; mode++) {
      isa_testmach *t = new_machine();
      uint8_t *ub = itm_mem(t, ISA_MEM_UB);
      unsigned es = isa_dtype_bits(dts[d]) / 8;
      uint32_t lanes = 256 / es;
      put_elems(ub, 0, dts[d], 3 * lanes, &seed);           /* src0 */
      put_elems(ub, 0x1000, dts[d], 3 * lanes, &seed);      /* src1 */
      rng_lcg_bytes(&seed, ub + 0x2000, 3 * lanes / 8);      /* sel bits */
      uint8_t before[0x1000];
      memcpy(before, ub + 0x3000, sizeof before);
      uint32_t scalar = random_float(dts[d], &seed);
      isa_insn in;
      memset(&in, 0, sizeof in);
      in.op = ISA_OP_VSEL;
      isa_fmt_vsel *p = &in.u.vsel;
      p->dst = (isa_addr){ISA_MEM_UB, 0x3000};
      p->sel = (isa_addr){ISA_MEM_UB, 0x2000};
      p->src0 = (isa_addr){ISA_MEM_UB, 0};
      p->src1 = (isa_addr){ISA_MEM_UB, 0x1000};
      p->dtype = dts[d];
      p->sel_mode = (uint32_t)mode;
      p->scalar = scalar;
      p->mask_mode = ISA_VMASK_NORM;
      p->mask_lo = 0xF0F0F0F0FFFF000Full;
      p->mask_hi = dts[d] == ISA_FP16 ? 0x00000000FFFFFFFFull : 0;
      p->repeat_times = 3;
      p->dst_blk_stride = p->src0_blk_stride = 1;
      p->src1_blk_stride = 0;
      p->dst_rep_stride = p->src0_rep_stride = 8;
      p->src1_rep_stride = 1;
      isa_fault f;
      if (!itm_run(t, &in, &f)) fail_msg("%s", f.msg);
      uint32_t per_block = 32 / es;
      for (uint32_t r = 0; r < 3; r++)
        for (uint32_t i = 0; i < lanes; i++) {
          uint64_t at = 0x3000 + ((uint64_t)r * lanes + i) * es;
          uint64_t mask = i < 64 ? p->mask_lo >> i : p->mask_hi >> (i - 64);
          uint32_t want = (uint32_t)pk_le_get(before + (at - 0x3000), es);
          if (mask & 1u) {
            uint32_t n = mode == ISA_SEL_CMPMASK ? i : r * lanes + i;
            bool take0 = (ub[0x2000 + n / 8] >> (n % 8)) & 1u;
            uint64_t src1 = 0x1000 + (uint64_t)r * 32 + (i % per_block) * es;
            want = take0                            ? (uint32_t)pk_le_get(ub + ((uint64_t)r * lanes + i) * es, es)
                   : mode == ISA_SEL_TENSOR_SCALAR ? scalar
                                                    : (uint32_t)pk_le_get(ub + src1, es);
          }
          assert_int_equal(pk_le_get(ub + at, es), want);
        }
      /* the scalar mode reads no src1: no range of it */
      isa_range rg[ISA_MAX_RANGES];
      size_t nr = isa_insn_ranges(&in, rg);
      bool reads_src1 = false;
      for (size_t k = 0; k < nr; k++) reads_src1 |= !rg[k].write && rg[k].base >= 0x1000 && rg[k].base < 0x2000;
      assert_int_equal(reads_src1, mode != ISA_SEL_TENSOR_SCALAR);
      itm_destroy(t);
    }
  /* src1 may name anything in tensor_scalar mode; otherwise it must be in UB */
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = ISA_OP_VSEL;
  in.u.vsel.dst = in.u.vsel.sel = in.u.vsel.src0 = (isa_addr){ISA_MEM_UB, 0};
  in.u.vsel.dtype = ISA_FP32;
  in.u.vsel.dst_blk_stride = 1;
  in.u.vsel.sel_mode = ISA_SEL_TENSOR_SCALAR;
  ic_ok(&in);
  in.u.vsel.sel_mode = ISA_SEL_TENSOR_TENSOR;
  ic_fault(&in, ISA_FAULT_BAD_MEM, "src1", ISA_MEM_GM, 1u << ISA_MEM_UB,
           "vsel: operand src1 names GM; vector operands must be in UB");
}

/* ---- vreduce ------------------------------------------------------------------------------------ */

static isa_insn vreduce(isa_op op, isa_dtype dt, isa_reduce_order order, uint64_t d, uint64_t s,
                        uint32_t mode, uint64_t hi, uint64_t lo, uint32_t repeats, uint32_t dst_rep) {
  isa_insn in;
  memset(&in, 0, sizeof in);
  in.op = op;
  isa_fmt_vreduce *p = &in.u.vreduce;
  p->dst = (isa_addr){ISA_MEM_UB, d};
  p->src = (isa_addr){ISA_MEM_UB, s};
  p->dtype = dt;
  p->order = order;
  p->mask_mode = mode;
  p->mask_hi = hi;
  p->mask_lo = lo;
  p->repeat_times = repeats;
  p->dst_rep_stride = dst_rep;
  p->src_blk_stride = 1;
  p->src_rep_stride = 8;
  return in;
}

/* One rounding to dt of an exact double sum. */
static double round_to(isa_dtype dt, double v, bool sat) {
  return dt == ISA_FP16 ? ref_f16_value((uint16_t)ref_f16_of(v, sat)) : (double)ref_f32_of_bits(ref_f32_of(v));
}

/* The documented tree: lanes 2i and 2i + 1 added, then the sums pairwise; left-out lanes +0. */
static uint32_t ref_tree_sum(isa_dtype dt, const double *v, uint32_t n, bool sat) {
  double w[128];
  for (uint32_t i = 0; i < n; i++) w[i] = v[i];
  for (uint32_t k = n; k > 1; k /= 2)
    for (uint32_t i = 0; i < k / 2; i++) w[i] = round_to(dt, w[2 * i] + w[2 * i + 1], sat);
  return dt == ISA_FP16 ? ref_f16_of(w[0], sat) : ref_f32_of(w[0]);
}

static void test_vmisc_vreduce_sum(void **state) {
  (void)state;
  uint64_t seed = 7;
  const isa_dtype dts[] = {ISA_FP32, ISA_FP16};
  for (size_t d = 0; d < 2; d++)
    for (int sat = 0; sat <= 1; sat++) {
      isa_testmach *t = new_machine();
      itm_set_env(t, (isa_env){sat});
      uint8_t *ub = itm_mem(t, ISA_MEM_UB);
      unsigned es = isa_dtype_bits(dts[d]) / 8;
      uint32_t lanes = 256 / es;
      for (uint32_t i = 0; i < 5 * lanes; i++) { /* magnitudes spread: rounding in the tree */
        uint64_t r = rng_lcg(&seed);
        double v = ldexp((double)((int64_t)(r % 2001) - 1000), (int)((r >> 20) % 12) - 6);
        pk_le_put(ub + (uint64_t)i * es, dts[d] == ISA_FP16 ? ref_f16_of(v, false) : ref_f32_of(v), es);
      }
      /* normal mode, a mask with holes, results 3 apart */
      uint64_t lo = 0xFFFF0000FFFF00FFull, hi = dts[d] == ISA_FP16 ? 0x0F0F0F0F0F0F0F0Full : 0;
      isa_insn in = vreduce(ISA_OP_VREDUCE_SUM, dts[d], ISA_ORDER_INDEX_VALUE, 0x8000, 0, ISA_VMASK_NORM, hi, lo, 5, 3);
      assert_true(itm_run(t, &in, NULL));
      for (uint32_t r = 0; r < 5; r++) {
        double v[128];
        for (uint32_t i = 0; i < lanes; i++) {
          bool on = (i < 64 ? lo >> i : hi >> (i - 64)) & 1u;
          v[i] = on ? value_of(dts[d], (uint32_t)pk_le_get(ub + ((uint64_t)r * lanes + i) * es, es)) : 0.0;
        }
        assert_int_equal(pk_le_get(ub + 0x8000 + (uint64_t)r * 3 * es, es), ref_tree_sum(dts[d], v, lanes, sat));
        assert_int_equal(ub[0x8000 + (uint64_t)r * 3 * es + es], FILL);
      }
      /* counter mode: 2.5 repeats, results back to back */
      in = vreduce(ISA_OP_VREDUCE_SUM, dts[d], ISA_ORDER_VALUE_INDEX, 0x9000, 0, ISA_VMASK_COUNTER, 0,
                   2 * lanes + lanes / 2, 1, 1);
      assert_true(itm_run(t, &in, NULL));
      for (uint32_t r = 0; r < 3; r++) {
        double v[128];
        for (uint32_t i = 0; i < lanes; i++)
          v[i] = r == 2 && i >= lanes / 2 ? 0.0 : value_of(dts[d], (uint32_t)pk_le_get(ub + ((uint64_t)r * lanes + i) * es, es));
        assert_int_equal(pk_le_get(ub + 0x9000 + (uint64_t)r * es, es), ref_tree_sum(dts[d], v, lanes, sat));
      }
      assert_int_equal(ub[0x9000 + 3 * es], FILL);
      itm_destroy(t);
    }
  /* by hand: 64 lanes of fp32, lane 0 = 1 and lanes 1..63 = 2^-24. The first level's pair
   * (1, 2^-24) ties back to 1, the other 31 pairs give 2^-23 each, and every later sum is exact:
   * 1 + 31 * 2^-23 = 0x3F80001F (a sum from left to right would stay at 1) */
  isa_testmach *t = new_machine();
  uint8_t *ub = itm_mem(t, ISA_MEM_UB);
  pk_le_put(ub, 0x3F800000u, 4);
  for (int i = 1; i < 64; i++) pk_le_put(ub + 4 * i, 0x33800000u, 4);
  isa_insn in = vreduce(ISA_OP_VREDUCE_SUM, ISA_FP32, ISA_ORDER_VALUE_INDEX, 0x1000, 0, ISA_VMASK_COUNTER, 0, 64, 1, 1);
  assert_true(itm_run(t, &in, NULL));
  assert_int_equal(pk_le_get(ub + 0x1000, 4), 0x3F80001Fu);
  itm_destroy(t);
}

/* max and min: value and lane index per order, ties to the lowest lane, NaN wins, +0 above -0. */
static void test_vmisc_vreduce_max_min(void **state) {
  (void)state;
  uint64_t seed = 11;
  const isa_dtype dts[] = {ISA_FP32, ISA_FP16};
  for (size_t d = 0; d < 2; d++)
    for (int is_max = 0; is_max <= 1; is_max++)
      for (int order = 0; order < ISA_ORDER_COUNT; order++) {
        isa_testmach *t = new_machine();
        uint8_t *ub = itm_mem(t, ISA_MEM_UB);
        unsigned es = isa_dtype_bits(dts[d]) / 8;
        uint32_t lanes = 256 / es, reps = 40;
        put_elems(ub, 0, dts[d], reps * lanes, &seed);
        uint64_t lo = 0x7FFFFFFFFFFFFFFEull; /* lanes 1..62 (and 64.. for fp16) */
        uint64_t hi = dts[d] == ISA_FP16 ? UINT64_MAX : 0;
        isa_op op = is_max ? ISA_OP_VREDUCE_MAX : ISA_OP_VREDUCE_MIN;
        isa_insn in = vreduce(op, dts[d], (isa_reduce_order)order, 0x10000, 0, ISA_VMASK_NORM, hi, lo, reps, 1);
        isa_fault f;
        if (!itm_run(t, &in, &f)) fail_msg("%s", f.msg);
        unsigned rb = order == ISA_ORDER_ONLY_VALUE ? es : order == ISA_ORDER_ONLY_INDEX ? 4 : 2 * es;
        for (uint32_t r = 0; r < reps; r++) {
          double best = 0;
          uint32_t idx = 0;
          bool any = false;
          for (uint32_t i = 0; i < lanes; i++) {
            if (!((i < 64 ? lo >> i : hi >> (i - 64)) & 1u)) continue;
            double v = value_of(dts[d], (uint32_t)pk_le_get(ub + ((uint64_t)r * lanes + i) * es, es));
            bool better = !any || (!isnan(best) && (isnan(v) || (is_max ? v > best : v < best) ||
                                                     (v == 0 && best == 0 && signbit(v) != signbit(best) &&
                                                      (is_max ? signbit(best) != 0 : signbit(v) != 0))));
            if (better) {
              best = v;
              idx = i;
              any = true;
            }
          }
          uint32_t value = dts[d] == ISA_FP16 ? ref_f16_of(best, true) : ref_f32_of(best);
          const uint8_t *at = ub + 0x10000 + (uint64_t)r * rb;
          switch (order) {
            case ISA_ORDER_VALUE_INDEX:
              assert_int_equal(pk_le_get(at, es), value);
              assert_int_equal(pk_le_get(at + es, es), idx);
              break;
            case ISA_ORDER_INDEX_VALUE:
              assert_int_equal(pk_le_get(at, es), idx);
              assert_int_equal(pk_le_get(at + es, es), value);
              break;
            case ISA_ORDER_ONLY_VALUE: assert_int_equal(pk_le_get(at, es), value); break;
            default: assert_int_equal(pk_le_get(at, 4), idx); break;
          }
        }
        assert_int_equal(ub[0x10000 + (uint64_t)reps * rb], FILL);
        itm_destroy(t);
      }
  isa_insn in = vreduce(ISA_OP_VREDUCE_MAX, ISA_INT32, ISA_ORDER_VALUE_INDEX, 0, 0x100, ISA_VMASK_COUNTER, 0, 8, 1, 1);
  ic_fault(&in, ISA_FAULT_DTYPE, "dtype", ISA_INT32, 0, "vreduce_max: dtype int32 is not supported (fp16, fp32)");
  isa_range r[ISA_MAX_RANGES];
  in.u.vreduce.dtype = ISA_FP32;
  in.u.vreduce.mask_lo = 100; /* 2 repeats, results of 8 bytes 5 results apart */
  in.u.vreduce.dst_rep_stride = 5;
  assert_int_equal(isa_insn_ranges(&in, r), 3);
  ic_range(&r[0], ISA_MEM_UB, 0, 0x100, 256, 256, 1);
  ic_range(&r[1], ISA_MEM_UB, 0, 0x200, 144, 144, 1);
  ic_range(&r[2], ISA_MEM_UB, 1, 0, 8, 40, 2);
}

/* ---- vbrcb --------------------------------------------------------------------------------------- */

static void test_vmisc_vbrcb(void **state) {
  (void)state;
  const isa_dtype dts[] = {ISA_FP32, ISA_FP16, ISA_INT16};
  for (size_t d = 0; d < 3; d++) {
    isa_testmach *t = new_machine();
    uint8_t *ub = itm_mem(t, ISA_MEM_UB);
    unsigned es = isa_dtype_bits(dts[d]) / 8;
    for (uint32_t i = 0; i < 24; i++) pk_le_put(ub + (uint64_t)i * es, 0x1000u + i, es);
    isa_insn in;
    memset(&in, 0, sizeof in);
    in.op = ISA_OP_VBRCB;
    in.u.vbrcb.dst = (isa_addr){ISA_MEM_UB, 0x1000};
    in.u.vbrcb.src = (isa_addr){ISA_MEM_UB, 0};
    in.u.vbrcb.dtype = dts[d];
    in.u.vbrcb.repeat_times = 3;
    in.u.vbrcb.dst_blk_stride = 2;
    in.u.vbrcb.dst_rep_stride = 16;
    assert_true(itm_run(t, &in, NULL));
    for (uint64_t k = 0x1000; k < 0x1000 + 3 * 512; k += es) {
      uint64_t off = k - 0x1000, r = off / 512, j = (off % 512) / 64;
      bool filled = (off % 64) < 32; /* blocks 2 apart: every other block */
      assert_int_equal(pk_le_get(ub + k, es), filled ? 0x1000u + 8 * r + j : (es == 4 ? 0x5A5A5A5Au : 0x5A5Au));
    }
    isa_work w;
    isa_insn_work(&in, &w);
    assert_int_equal(w.bytes, 3 * 256);
    assert_int_equal(w.elements, 24);
    itm_destroy(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vmisc_vcmp_random),
      cmocka_unit_test(test_vmisc_vcmp_mask_unused_and_int32),
      cmocka_unit_test(test_vmisc_vsel_modes),
      cmocka_unit_test(test_vmisc_vreduce_sum),
      cmocka_unit_test(test_vmisc_vreduce_max_min),
      cmocka_unit_test(test_vmisc_vbrcb),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
