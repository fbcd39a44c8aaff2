/* isa_nz — FRACTAL_NZ geometry and ND <-> NZ conversion by runs of up to C0 elements. */
#include "isa/isa_nz.h"

#include <stdint.h>
#include <string.h>

#define NIBBLE_MASK 0x0Fu
#define NIBBLE_BITS 4u

isa_nz_geom isa_nz_geom_of(isa_dtype t, size_t rows, size_t cols) {
  return isa_nz_geom_with_c0(t, rows, cols, isa_dtype_c0(t));
}

isa_nz_geom isa_nz_geom_with_c0(isa_dtype t, size_t rows, size_t cols, size_t c0) {
  isa_nz_geom g = {rows, cols, c0, ISA_NZ_R0_DEFAULT, isa_dtype_bits(t)};
  return g;
}

static size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

/* a * b, or 0 with *overflow set when it does not fit. */
static size_t mul_checked(size_t a, size_t b, int *overflow) {
  if (a != 0 && b > SIZE_MAX / a) {
    *overflow = 1;
    return 0;
  }
  return a * b;
}

cs_status isa_nz_geom_check(const isa_nz_geom *g, size_t batch, cs_err *err) {
  unsigned bits = g->elem_bits;
  if (bits != 4 && bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return cs_err_set(err, CS_EINVAL, "nz: element size %u bits is not 4, 8, 16, 32 or 64",
                      bits);
  if (g->c0 == 0) return cs_err_set(err, CS_EINVAL, "nz: c0 is 0, must be at least 1");
  if (g->r0 == 0) return cs_err_set(err, CS_EINVAL, "nz: r0 is 0, must be at least 1");
  if ((g->c0 * bits) % 8 != 0)
    return cs_err_set(err, CS_EINVAL,
                      "nz: c0 %zu of %u-bit elements is not a whole number of bytes", g->c0,
                      bits);
  /* Every size the other functions form is a product of these; check them without wrapping
   * (bits rather than bytes, which is stricter by a factor of 8 and simpler). */
  int over = 0;
  size_t col_blocks = ceil_div(g->cols, g->c0);
  size_t row_blocks = ceil_div(g->rows, g->r0);
  size_t nz_elems = mul_checked(mul_checked(col_blocks, g->c0, &over),
                                mul_checked(row_blocks, g->r0, &over), &over);
  (void)mul_checked(mul_checked(nz_elems, batch, &over), bits, &over);
  (void)mul_checked(mul_checked(mul_checked(g->rows, g->cols, &over), batch, &over), bits,
                    &over);
  if (over)
    return cs_err_set(err, CS_EINVAL,
                      "nz: %zu matrices of %zux%zu (%zux%zu fractals, %u-bit elements) are too "
                      "large: their size in bits exceeds %zu",
                      batch, g->rows, g->cols, g->r0, g->c0, bits, (size_t)SIZE_MAX);
  return CS_OK;
}

size_t isa_nz_col_blocks(const isa_nz_geom *g) { return ceil_div(g->cols, g->c0); }

size_t isa_nz_padded_rows(const isa_nz_geom *g) { return ceil_div(g->rows, g->r0) * g->r0; }

size_t isa_nz_elems(const isa_nz_geom *g) {
  return isa_nz_col_blocks(g) * isa_nz_padded_rows(g) * g->c0;
}

size_t isa_nz_bytes(const isa_nz_geom *g) { return isa_nz_elems(g) * g->elem_bits / 8; }

size_t isa_nd_bytes(const isa_nz_geom *g, size_t batch) {
  return (batch * g->rows * g->cols * g->elem_bits + 7) / 8;
}

size_t isa_nz_index(const isa_nz_geom *g, size_t r, size_t c) {
  return ((c / g->c0) * isa_nz_padded_rows(g) + r) * g->c0 + c % g->c0;
}

void isa_nz_shape4(const isa_nz_geom *g, size_t batch, size_t out[4]) {
  out[0] = batch;
  out[1] = isa_nz_col_blocks(g);
  out[2] = isa_nz_padded_rows(g);
  out[3] = g->c0;
}

/* int4 element i of a packed buffer: element 0 in the low nibble (docs/DESIGN.md §3). */
static unsigned nib_get(const uint8_t *p, size_t i) {
  return (p[i / 2] >> (NIBBLE_BITS * (i & 1))) & NIBBLE_MASK;
}

static void nib_put(uint8_t *p, size_t i, unsigned v) {
  unsigned shift = NIBBLE_BITS * (i & 1);
  p[i / 2] = (uint8_t)((p[i / 2] & ~(NIBBLE_MASK << shift)) | ((v & NIBBLE_MASK) << shift));
}

/* Copies n int4 elements from element si of src to element di of dst: whole bytes by memcpy
 * when both sides share a nibble phase, else a byte at a time from two source bytes. */
static void nib_copy(uint8_t *dst, size_t di, const uint8_t *src, size_t si, size_t n) {
  if (n != 0 && (di & 1)) {
    nib_put(dst, di, nib_get(src, si));
    di++, si++, n--;
  }
  size_t whole = n / 2;
  uint8_t *d = dst + di / 2;
  const uint8_t *s = src + si / 2;
  if ((si & 1) == 0) {
    memcpy(d, s, whole);
  } else {
    /* Output byte i holds source elements si + 2i (high nibble of s[i]) and si + 2i + 1 (low
     * nibble of s[i + 1]); s[whole] is still inside the run. */
    for (size_t i = 0; i < whole; i++)
      d[i] = (uint8_t)((s[i] >> NIBBLE_BITS) | ((unsigned)s[i + 1] << NIBBLE_BITS));
  }
  if (n & 1) nib_put(dst, di + n - 1, nib_get(src, si + n - 1));
}

typedef enum { TO_NZ, TO_ND } nz_dir;

/* Walks every row of every column block of every matrix and copies its run of valid elements
 * (C0, or fewer in the last column block) from src to dst: ND to NZ or NZ to ND. */
static void nz_convert(const isa_nz_geom *g, size_t batch, const uint8_t *src, uint8_t *dst,
                       nz_dir dir) {
  if (g->c0 == 0 || g->r0 == 0) return; /* rejected by isa_nz_geom_check */
  size_t rows = g->rows, cols = g->cols, c0 = g->c0;
  size_t col_blocks = isa_nz_col_blocks(g);
  size_t padded_rows = isa_nz_padded_rows(g);
  size_t nz_elems = isa_nz_elems(g);
  int nibbles = g->elem_bits == 4;
  size_t elem_bytes = g->elem_bits / 8;
  for (size_t b = 0; b < batch; b++) {
    for (size_t cb = 0; cb < col_blocks; cb++) {
      size_t c_first = cb * c0;
      size_t run = cols - c_first < c0 ? cols - c_first : c0;
      for (size_t r = 0; r < rows; r++) {
        size_t nd_i = (b * rows + r) * cols + c_first;
        size_t nz_i = b * nz_elems + (cb * padded_rows + r) * c0;
        size_t si = dir == TO_NZ ? nd_i : nz_i;
        size_t di = dir == TO_NZ ? nz_i : nd_i;
        if (nibbles)
          nib_copy(dst, di, src, si, run);
        else
          memcpy(dst + di * elem_bytes, src + si * elem_bytes, run * elem_bytes);
      }
    }
  }
}

void isa_nd_to_nz(const isa_nz_geom *g, size_t batch, const void *nd, void *nz) {
  /* Zero the whole destination only when there is padding; full fractals are all overwritten. */
  if (g->c0 != 0 && g->r0 != 0 && (g->cols % g->c0 != 0 || g->rows % g->r0 != 0))
    memset(nz, 0, batch * isa_nz_bytes(g));
  nz_convert(g, batch, nd, nz, TO_NZ);
}

void isa_nz_to_nd(const isa_nz_geom *g, size_t batch, const void *nz, void *nd) {
  size_t total = batch * g->rows * g->cols;
  if (g->elem_bits == 4 && (total & 1)) nib_put(nd, total, 0);
  nz_convert(g, batch, nz, nd, TO_ND);
}
