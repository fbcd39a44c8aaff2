/* Tests of isa/isa_nz: FRACTAL_NZ against a naive reference that walks the 5-D NZ index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "isa/isa_nz.h"
#include "support/packed.h"
#include "support/rng.h"

/* ---- test-side element access: int4 low nibble first, wider types little-endian bytes ---- */

/* Deterministic bytes: the top byte of each LCG state. */
static void fill_random(uint8_t *p, size_t n, uint64_t *state) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(rng_lcg_step(state) >> 56);
}

/* ---- the naive reference: dimensions [batch, C1, R1, R0, C0] of docs/DESIGN.md §3 ---- */

typedef struct ref_shape {
  unsigned bits;
  size_t h, w, c0, r0, batch;
  size_t c1, r1; /* column blocks, row blocks */
} ref_shape;

static ref_shape ref_shape_make(unsigned bits, size_t h, size_t w, size_t c0, size_t r0,
                                size_t batch) {
  ref_shape s = {bits, h, w, c0, r0, batch, (w + c0 - 1) / c0, (h + r0 - 1) / r0};
  return s;
}

static size_t ref_nz_elems(const ref_shape *s) { return s->batch * s->c1 * s->r1 * s->r0 * s->c0; }
static size_t ref_nz_bytes(const ref_shape *s) { return ref_nz_elems(s) * s->bits / 8; }
static size_t ref_nd_elems(const ref_shape *s) { return s->batch * s->h * s->w; }
static size_t ref_nd_bytes(const ref_shape *s) { return (ref_nd_elems(s) * s->bits + 7) / 8; }

/* Flat NZ offset of 5-D index (b, c1, r1, r2, c2). */
static size_t ref_off(const ref_shape *s, size_t b, size_t c1, size_t r1, size_t r2, size_t c2) {
  return (((b * s->c1 + c1) * s->r1 + r1) * s->r0 + r2) * s->c0 + c2;
}

/* The ND index of NZ element e (storage order: e = ref_off(b, c1, r1, r2, c2)) into *nd_i,
 * and 1; 0 when e is padding. */
static int ref_nd_index(const ref_shape *s, size_t e, size_t *nd_i) {
  size_t c2 = e % s->c0, r2 = e / s->c0 % s->r0, r1 = e / s->c0 / s->r0 % s->r1;
  size_t c1 = e / s->c0 / s->r0 / s->r1 % s->c1, b = e / s->c0 / s->r0 / s->r1 / s->c1;
  size_t r = r1 * s->r0 + r2, c = c1 * s->c0 + c2;
  if (r >= s->h || c >= s->w) return 0;
  *nd_i = (b * s->h + r) * s->w + c;
  return 1;
}

/* Builds the expected NZ (zero padded) of nd into a zeroed buffer, NZ element by NZ element. */
static void ref_nd_to_nz(const ref_shape *s, const uint8_t *nd, uint8_t *nz) {
  memset(nz, 0, ref_nz_bytes(s));
  for (size_t e = 0, nd_i; e < ref_nz_elems(s); e++)
    if (ref_nd_index(s, e, &nd_i)) pk_put(nz, s->bits, e, pk_get(nd, s->bits, nd_i));
}

/* Counts padding elements of nz that are not zero. */
static size_t ref_nonzero_padding(const ref_shape *s, const uint8_t *nz) {
  size_t bad = 0;
  for (size_t e = 0, nd_i; e < ref_nz_elems(s); e++)
    if (!ref_nd_index(s, e, &nd_i) && pk_get(nz, s->bits, e) != 0) bad++;
  return bad;
}

/* Counts valid NZ elements that differ from their ND element. */
static size_t ref_mismatches(const ref_shape *s, const uint8_t *nd, const uint8_t *nz) {
  size_t bad = 0;
  for (size_t e = 0, nd_i; e < ref_nz_elems(s); e++)
    if (ref_nd_index(s, e, &nd_i) && pk_get(nz, s->bits, e) != pk_get(nd, s->bits, nd_i)) bad++;
  return bad;
}

/* Checks isa_nz against the reference for one geometry: sizes, ND->NZ bytes (padding zero
 * even over a dirty buffer), NZ->ND, both round trips, isa_nz_index on every element. */
static void check_case(unsigned bits, size_t h, size_t w, size_t c0, size_t r0, size_t batch,
                       uint64_t *rng) {
  ref_shape s = ref_shape_make(bits, h, w, c0, r0, batch);
  isa_nz_geom g = {h, w, c0, r0, bits};
  cs_err e;
  assert_int_equal(isa_nz_geom_check(&g, batch, &e), CS_OK);
  assert_int_equal(isa_nz_elems(&g) * batch, ref_nz_elems(&s));
  assert_int_equal(isa_nz_bytes(&g) * batch, ref_nz_bytes(&s));
  assert_int_equal(isa_nd_bytes(&g, batch), ref_nd_bytes(&s));
  assert_int_equal(isa_nz_col_blocks(&g), s.c1);
  assert_int_equal(isa_nz_padded_rows(&g), s.r1 * s.r0);
  size_t shape[4];
  isa_nz_shape4(&g, batch, shape);
  assert_int_equal(shape[0], batch);
  assert_int_equal(shape[1], s.c1);
  assert_int_equal(shape[2], s.r1 * s.r0);
  assert_int_equal(shape[3], c0);

  size_t ndb = ref_nd_bytes(&s), nzb = ref_nz_bytes(&s);
  uint8_t *nd = malloc(ndb), *nd2 = malloc(ndb);
  uint8_t *nz = malloc(nzb), *want = malloc(nzb), *nz_dirty = malloc(nzb);
  assert_non_null(nd);
  assert_non_null(nd2);
  assert_non_null(nz);
  assert_non_null(want);
  assert_non_null(nz_dirty);

  /* ND -> NZ into a buffer full of garbage: exactly the reference bytes, padding zero. */
  fill_random(nd, ndb, rng);
  if (bits == 4 && ref_nd_elems(&s) % 2) nd[ndb - 1] &= 0x0F; /* unused nibble, zero */
  ref_nd_to_nz(&s, nd, want);
  memset(nz, 0xA5, nzb);
  isa_nd_to_nz(&g, batch, nd, nz);
  assert_memory_equal(nz, want, nzb);
  assert_int_equal(ref_nonzero_padding(&s, nz), 0);

  /* isa_nz_index against the reference layout, for every element of the last matrix. */
  size_t last = batch - 1, per_nz = isa_nz_elems(&g);
  for (size_t r = 0; r < h; r++)
    for (size_t c = 0; c < w; c++) {
      size_t want_i = ref_off(&s, 0, c / c0, r / r0, r % r0, c % c0);
      assert_int_equal(isa_nz_index(&g, r, c), want_i);
      assert_int_equal(pk_get(nz, bits, last * per_nz + want_i),
                       pk_get(nd, bits, (last * h + r) * w + c));
    }

  /* nd -> nz -> nd gives nd back, the unused int4 nibble included. */
  memset(nd2, 0xFF, ndb);
  isa_nz_to_nd(&g, batch, nz, nd2);
  assert_memory_equal(nd2, nd, ndb);

  /* nz (random padding) -> nd: every ND element read from its reference position; -> nz again:
   * the same valid elements with the padding now zero. */
  fill_random(nz_dirty, nzb, rng);
  memset(nd2, 0xFF, ndb);
  isa_nz_to_nd(&g, batch, nz_dirty, nd2);
  assert_int_equal(ref_mismatches(&s, nd2, nz_dirty), 0);
  if (bits == 4 && ref_nd_elems(&s) % 2) assert_int_equal(nd2[ndb - 1] >> 4, 0);
  isa_nd_to_nz(&g, batch, nd2, nz);
  ref_nd_to_nz(&s, nd2, want);
  assert_memory_equal(nz, want, nzb);
  assert_int_equal(ref_mismatches(&s, nd2, nz), 0);
  assert_int_equal(ref_nonzero_padding(&s, nz), 0);

  free(nd);
  free(nd2);
  free(nz);
  free(want);
  free(nz_dirty);
}

/* Element sizes and their default C0 = 32 bytes / element size (docs/DESIGN.md §3). */
static const struct {
  unsigned bits;
  size_t c0;
} dtype_sizes[] = {{4, 64}, {8, 32}, {16, 16}, {32, 8}, {64, 4}};

/* Odd and even shapes; 2x3 is the ATB worked example's weight (k=2, n=3), 64x96 an int8 NZ
 * weight with k a multiple of 16 and n of 32 (the seed's constraint). */
static const size_t shapes[][2] = {{17, 33}, {1, 1},  {31, 65}, {16, 32}, {15, 1},
                                   {64, 64}, {2, 3},  {64, 96}, {1, 65},  {33, 129}};

static void test_isa_nz_matches_reference_default_fractals(void **state) {
  (void)state;
  uint64_t rng = 1;
  for (size_t t = 0; t < sizeof dtype_sizes / sizeof dtype_sizes[0]; t++)
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
      check_case(dtype_sizes[t].bits, shapes[k][0], shapes[k][1], dtype_sizes[t].c0, 16, 1, &rng);
      check_case(dtype_sizes[t].bits, shapes[k][0], shapes[k][1], dtype_sizes[t].c0, 16, 3, &rng);
    }
}

static void test_isa_nz_matches_reference_other_fractals(void **state) {
  (void)state;
  uint64_t rng = 2;
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    size_t h = shapes[k][0], w = shapes[k][1];
    check_case(32, h, w, 16, 16, 1, &rng); /* L0C: 16x16 fractals of fp32/int32 */
    check_case(32, h, w, 16, 16, 3, &rng);
    check_case(8, h, w, 16, 16, 2, &rng); /* ATB's 16-wide int8 NZ */
    check_case(8, h, w, 32, 4, 3, &rng);  /* a 4-row fractal */
    check_case(4, h, w, 2, 1, 3, &rng);   /* smallest byte-whole int4 fractal row */
    check_case(16, h, w, 1, 3, 2, &rng);  /* one-column fractals */
  }
}

/* A larger matrix through the run-copy path (the sizes a kernel converts). */
static void test_isa_nz_matches_reference_large(void **state) {
  (void)state;
  uint64_t rng = 3;
  check_case(8, 257, 1000, 32, 16, 2, &rng);
  check_case(4, 255, 1001, 64, 16, 1, &rng);
  check_case(16, 300, 513, 16, 16, 1, &rng);
}

static void test_isa_nz_geom_of_uses_dtype_c0(void **state) {
  (void)state;
  isa_nz_geom g = isa_nz_geom_of(ISA_INT4, 17, 33);
  assert_int_equal(g.rows, 17);
  assert_int_equal(g.cols, 33);
  assert_int_equal(g.c0, 64);
  assert_int_equal(g.r0, 16);
  assert_int_equal(g.elem_bits, 4);
  assert_int_equal(isa_nz_geom_of(ISA_INT8, 1, 1).c0, 32);
  assert_int_equal(isa_nz_geom_of(ISA_UINT8, 1, 1).c0, 32);
  assert_int_equal(isa_nz_geom_of(ISA_FP16, 1, 1).c0, 16);
  assert_int_equal(isa_nz_geom_of(ISA_BF16, 1, 1).c0, 16);
  assert_int_equal(isa_nz_geom_of(ISA_FP32, 1, 1).c0, 8);
  assert_int_equal(isa_nz_geom_of(ISA_INT32, 1, 1).c0, 8);
  g = isa_nz_geom_with_c0(ISA_FP32, 20, 20, 16);
  assert_int_equal(g.c0, 16);
  assert_int_equal(g.r0, 16);
  assert_int_equal(g.elem_bits, 32);
}

/* One fractal of every type is 16 rows x 32 bytes = 512 bytes; an L0C fractal (16x16 fp32) is
 * 1 KiB (docs/DESIGN.md §3). */
static void test_isa_nz_fractal_bytes(void **state) {
  (void)state;
  static const isa_dtype types[] = {ISA_INT4, ISA_INT8, ISA_UINT8, ISA_FP16,
                                    ISA_BF16, ISA_FP32, ISA_INT32};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    isa_nz_geom g = isa_nz_geom_of(types[i], 16, isa_dtype_c0(types[i]));
    assert_int_equal(isa_nz_bytes(&g), 512);
    g = isa_nz_geom_of(types[i], 1, 1); /* one element still takes a whole fractal */
    assert_int_equal(isa_nz_bytes(&g), 512);
  }
  isa_nz_geom l0c = isa_nz_geom_with_c0(ISA_FP32, 16, 16, 16);
  assert_int_equal(isa_nz_bytes(&l0c), 1024);
}

/* Indices derived by hand from ((c/C0) * padded_rows + r) * C0 + c % C0. */
static void test_isa_nz_index_hand_values(void **state) {
  (void)state;
  /* int8 17x33: C0 32, 2 column blocks, 2 row blocks (32 padded rows), 2048 elements. */
  isa_nz_geom g = isa_nz_geom_of(ISA_INT8, 17, 33);
  assert_int_equal(isa_nz_elems(&g), 2048);
  assert_int_equal(isa_nz_bytes(&g), 2048);
  assert_int_equal(isa_nz_index(&g, 0, 0), 0);
  assert_int_equal(isa_nz_index(&g, 0, 31), 31);
  assert_int_equal(isa_nz_index(&g, 1, 0), 32);
  assert_int_equal(isa_nz_index(&g, 15, 31), 511);  /* last element of fractal (0, 0) */
  assert_int_equal(isa_nz_index(&g, 16, 0), 512);   /* row block 1 follows in the same strip */
  assert_int_equal(isa_nz_index(&g, 16, 31), 543);  /* 512 + 31 */
  assert_int_equal(isa_nz_index(&g, 0, 32), 1024);  /* strip 1 = ((1*2 + 0)*16 + 0)*32 */
  assert_int_equal(isa_nz_index(&g, 16, 32), 1536); /* ((1*2 + 1)*16 + 0)*32 + 0 */

  /* The header's example, int8 20x40: strips of 32 rows x 32 bytes; (19, 39) in strip 1 at
   * 1024 + 19*32 + 7. */
  g = isa_nz_geom_of(ISA_INT8, 20, 40);
  assert_int_equal(isa_nz_bytes(&g), 2048);
  assert_int_equal(isa_nz_index(&g, 19, 39), 1639);

  /* fp16 31x65: C0 16, 5 column blocks, 32 padded rows. (30, 64): ((4*2 + 1)*16 + 14)*16 + 0. */
  g = isa_nz_geom_of(ISA_FP16, 31, 65);
  assert_int_equal(isa_nz_index(&g, 30, 64), 2528);
  assert_int_equal(isa_nz_elems(&g), 2560);
  assert_int_equal(isa_nz_bytes(&g), 5120);

  /* int4 17x33: C0 64, one column block. (16, 32): (1*16 + 0)*64 + 32; 2048 nibbles, 1 KiB. */
  g = isa_nz_geom_of(ISA_INT4, 17, 33);
  assert_int_equal(isa_nz_index(&g, 16, 32), 1056);
  assert_int_equal(isa_nz_elems(&g), 2048);
  assert_int_equal(isa_nz_bytes(&g), 1024);
  assert_int_equal(isa_nd_bytes(&g, 1), 281); /* 561 nibbles */
  assert_int_equal(isa_nd_bytes(&g, 2), 561);

  /* fp32 15x1: C0 8, one fractal of 16x8. (14, 0): 14*8. */
  g = isa_nz_geom_of(ISA_FP32, 15, 1);
  assert_int_equal(isa_nz_index(&g, 14, 0), 112);
  assert_int_equal(isa_nz_elems(&g), 128);
  assert_int_equal(isa_nz_bytes(&g), 512);

  /* L0C fp32 20x20 with C0 16: 2 column blocks of 32 rows. (17, 18): ((1*2 + 1)*16 + 1)*16 + 2. */
  g = isa_nz_geom_with_c0(ISA_FP32, 20, 20, 16);
  assert_int_equal(isa_nz_index(&g, 17, 18), 786);
  assert_int_equal(isa_nz_elems(&g), 1024);
  assert_int_equal(isa_nz_bytes(&g), 4096);

  /* int8 weight k=64 x n=96: C0 32 -> strip 1 at 64*32; (5, 40): (1*64 + 5)*32 + 8.
   * With ATB's 16-wide fractals: (2*64 + 5)*16 + 8. */
  g = isa_nz_geom_of(ISA_INT8, 64, 96);
  assert_int_equal(isa_nz_index(&g, 5, 40), 2216);
  g = isa_nz_geom_with_c0(ISA_INT8, 64, 96, 16);
  assert_int_equal(isa_nz_index(&g, 5, 40), 2136);

  /* A 4-row fractal: int8 5x3, r0 4 -> 8 padded rows; (4, 2): 4*32 + 2. */
  g = isa_nz_geom_of(ISA_INT8, 5, 3);
  g.r0 = 4;
  assert_int_equal(isa_nz_padded_rows(&g), 8);
  assert_int_equal(isa_nz_index(&g, 4, 2), 130);
  assert_int_equal(isa_nz_elems(&g), 256);
}

static void assert_shape(const size_t got[4], size_t a, size_t b, size_t c, size_t d) {
  assert_int_equal(got[0], a);
  assert_int_equal(got[1], b);
  assert_int_equal(got[2], c);
  assert_int_equal(got[3], d);
}

/* The 4-D NZ shapes of docs/DESIGN.md §3 and the ATB seed. */
static void test_isa_nz_shape4_values(void **state) {
  (void)state;
  size_t s[4];
  /* ATB worked example weight (k=2, n=3) as int8 NZ: one 16x32 fractal. */
  isa_nz_geom g = isa_nz_geom_of(ISA_INT8, 2, 3);
  isa_nz_shape4(&g, 1, s);
  assert_shape(s, 1, 1, 16, 32);
  /* int8 weight k=64, n=96: documented [1, n/32, k, 32]; ATB's [1, n/16, k, 16] with C0 16. */
  g = isa_nz_geom_of(ISA_INT8, 64, 96);
  isa_nz_shape4(&g, 1, s);
  assert_shape(s, 1, 3, 64, 32);
  g = isa_nz_geom_with_c0(ISA_INT8, 64, 96, 16);
  isa_nz_shape4(&g, 4, s);
  assert_shape(s, 4, 6, 64, 16);
  /* int4 k=64 x n=96: C0 64 -> 2 column blocks. */
  g = isa_nz_geom_of(ISA_INT4, 64, 96);
  isa_nz_shape4(&g, 1, s);
  assert_shape(s, 1, 2, 64, 64);
  /* fp16 17x33 and fp32 31x65: padded. */
  g = isa_nz_geom_of(ISA_FP16, 17, 33);
  isa_nz_shape4(&g, 3, s);
  assert_shape(s, 3, 3, 32, 16);
  g = isa_nz_geom_of(ISA_FP32, 31, 65);
  isa_nz_shape4(&g, 1, s);
  assert_shape(s, 1, 9, 32, 8);
}

/* A tiny case written out in full: int8 2x3, C0 32. ND [[1, 2, 3], [4, 5, 6]] puts row 0 at
 * bytes 0..2 and row 1 at bytes 32..34; everything else of the 512-byte fractal is zero. */
static void test_isa_nz_atb_example_bytes(void **state) {
  (void)state;
  const int8_t nd[6] = {1, 2, 3, 4, 5, 6};
  uint8_t nz[512], want[512] = {0};
  want[0] = 1, want[1] = 2, want[2] = 3, want[32] = 4, want[33] = 5, want[34] = 6;
  memset(nz, 0x77, sizeof nz);
  isa_nz_geom g = isa_nz_geom_of(ISA_INT8, 2, 3);
  isa_nd_to_nz(&g, 1, nd, nz);
  assert_memory_equal(nz, want, sizeof nz);
  int8_t back[6] = {0};
  isa_nz_to_nd(&g, 1, nz, back);
  assert_memory_equal(back, nd, sizeof nd);
}

/* int4 1x3 with values 1, 2, 3 packed as 0x21 0x03: NZ row 0 holds 0x21 0x03 then 30 zero bytes;
 * a batch of 3 such matrices in ND (9 nibbles) starts matrix 1 in a high nibble. */
static void test_isa_nz_int4_nibbles(void **state) {
  (void)state;
  isa_nz_geom g = isa_nz_geom_of(ISA_INT4, 1, 3);
  const uint8_t nd[5] = {0x21, 0x43, 0x65, 0x87, 0x09}; /* elements 1..9 */
  uint8_t nz[3 * 512], want[3 * 512] = {0};
  want[0] = 0x21, want[1] = 0x03;       /* matrix 0: 1 2 3 */
  want[512] = 0x54, want[513] = 0x06;   /* matrix 1: 4 5 6 */
  want[1024] = 0x87, want[1025] = 0x09; /* matrix 2: 7 8 9 */
  memset(nz, 0xEE, sizeof nz);
  isa_nd_to_nz(&g, 3, nd, nz);
  assert_memory_equal(nz, want, sizeof nz);
  uint8_t back[5];
  memset(back, 0xFF, sizeof back);
  isa_nz_to_nd(&g, 3, nz, back);
  assert_memory_equal(back, nd, sizeof nd); /* high nibble of back[4] cleared to 0 */
}

static void test_isa_nz_geom_check_errors(void **state) {
  (void)state;
  cs_err e;
  isa_nz_geom g = isa_nz_geom_of(ISA_INT8, 17, 33);
  assert_int_equal(isa_nz_geom_check(&g, 3, &e), CS_OK);
  assert_int_equal(isa_nz_geom_check(&g, 0, NULL), CS_OK);

  g.elem_bits = 12;
  assert_int_equal(isa_nz_geom_check(&g, 1, &e), CS_EINVAL);
  assert_int_equal(e.code, CS_EINVAL);
  assert_string_equal(e.msg, "nz: element size 12 bits is not 4, 8, 16, 32 or 64");
  assert_int_equal(isa_nz_geom_check(&g, 1, NULL), CS_EINVAL);

  g = isa_nz_geom_of(ISA_INT8, 17, 33);
  g.c0 = 0;
  assert_int_equal(isa_nz_geom_check(&g, 1, &e), CS_EINVAL);
  assert_string_equal(e.msg, "nz: c0 is 0, must be at least 1");

  g = isa_nz_geom_of(ISA_INT8, 17, 33);
  g.r0 = 0;
  assert_int_equal(isa_nz_geom_check(&g, 1, &e), CS_EINVAL);
  assert_string_equal(e.msg, "nz: r0 is 0, must be at least 1");

  g = isa_nz_geom_with_c0(ISA_INT4, 17, 33, 3);
  assert_int_equal(isa_nz_geom_check(&g, 1, &e), CS_EINVAL);
  assert_string_equal(e.msg, "nz: c0 3 of 4-bit elements is not a whole number of bytes");
  g.c0 = 2;
  assert_int_equal(isa_nz_geom_check(&g, 1, &e), CS_OK);

  /* 2^20 x 2^20 int8 matrices: 2^43 bits each, so 2^21 of them (2^64 bits) overflow. */
  size_t big = (size_t)1 << 20;
  g = isa_nz_geom_of(ISA_INT8, big, big);
  assert_int_equal(isa_nz_geom_check(&g, (size_t)1 << 20, &e), CS_OK);
  if (sizeof(size_t) >= 8) {
    assert_int_equal(isa_nz_geom_check(&g, (size_t)1 << 21, &e), CS_EINVAL);
    char want[CS_ERR_MSG_BYTES];
    snprintf(want, sizeof want,
             "nz: 2097152 matrices of 1048576x1048576 (16x32 fractals, 8-bit elements) are too "
             "large: their size in bits exceeds %zu",
             (size_t)SIZE_MAX);
    assert_string_equal(e.msg, want);
  }
  /* Padding alone can overflow: cols SIZE_MAX rounds up past SIZE_MAX. */
  g = isa_nz_geom_of(ISA_INT8, 1, SIZE_MAX);
  assert_int_equal(isa_nz_geom_check(&g, 1, &e), CS_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_isa_nz_matches_reference_default_fractals),
      cmocka_unit_test(test_isa_nz_matches_reference_other_fractals),
      cmocka_unit_test(test_isa_nz_matches_reference_large),
      cmocka_unit_test(test_isa_nz_geom_of_uses_dtype_c0),
      cmocka_unit_test(test_isa_nz_fractal_bytes),
      cmocka_unit_test(test_isa_nz_index_hand_values),
      cmocka_unit_test(test_isa_nz_shape4_values),
      cmocka_unit_test(test_isa_nz_atb_example_bytes),
      cmocka_unit_test(test_isa_nz_int4_nibbles),
      cmocka_unit_test(test_isa_nz_geom_check_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
