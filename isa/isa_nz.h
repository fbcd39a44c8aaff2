/* isa_nz — the FRACTAL_NZ layout (docs/DESIGN.md §3): geometry, index formula, ND <-> NZ
 * conversion.
 *
 * An ND matrix [H, W] becomes NZ [ceil(W/C0), ceil(H/R0), R0, C0], zero padded: element (r, c)
 * sits in column block c / C0, row block r / R0, at row r % R0 and column c % C0 of that
 * fractal. The fractals of one column block follow each other over the row blocks, so a column
 * block is one contiguous strip of ceil(H/R0)*R0 rows × C0 columns ("N-major fractals, z
 * inside"). Batched tensors [..., H, W] are consecutive matrices, on both sides.
 *
 * Example, int8 ND 20 x 40 (C0 = 32, R0 = 16) -> NZ [2, 2, 16, 32], 2048 bytes:
 *
 *     bytes    0..1023  strip 0: columns  0..31, rows 0..31 (rows 20..31 zero)
 *     bytes 1024..2047  strip 1: columns 32..63, rows 0..31 (columns 40..63, rows 20..31 zero)
 *     element (r, c) of strip s at byte s*1024 + r*32 + c % 32
 *
 * C0 defaults to 32 bytes / element size (isa_dtype_c0: int4 64, int8 32, fp16/bf16 16, fp32 8)
 * and R0 to 16. L0C keeps 16×16 fractals of 4-byte elements: that is this layout with C0 = 16
 * for fp32/int32 (isa_nz_geom_with_c0). The ATB document writes the int8 NZ weight as
 * [1, n/16, k, 16], i.e. with 16-wide fractals; the hardware's int8 fractal is 32 wide, so
 * cubesim's int8 NZ is [1, n/32, k, 32] by default (docs/DESIGN.md §3) and the 16-wide form is
 * available with C0 = 16.
 *
 * Element sizes are 4, 8, 16, 32 or 64 bits. int4 packs two elements per byte, element 0 in the
 * low nibble; ND and NZ buffers are both packed that way (a fractal row of int4 is 64 nibbles =
 * 32 bytes). In ND, element (b, r, c) is number (b*H + r)*W + c of the buffer; in NZ, matrix b
 * starts at element b * isa_nz_elems(g).
 */
#ifndef ISA_NZ_H
#define ISA_NZ_H

#include <stddef.h>

#include "base/cs_status.h"
#include "isa/isa_dtype.h"

/* Default fractal height, rows (docs/DESIGN.md §3: a fractal is 16 rows × C0 columns). */
#define ISA_NZ_R0_DEFAULT 16u

/* The shape of one matrix and of its fractals. Fill it with isa_nz_geom_of / _with_c0, or
 * directly (then validate it with isa_nz_geom_check). */
typedef struct isa_nz_geom {
  size_t rows;        /* H of the ND matrix, elements */
  size_t cols;        /* W of the ND matrix, elements */
  size_t c0;          /* fractal width, elements (C0) */
  size_t r0;          /* fractal height, rows (16) */
  unsigned elem_bits; /* bits per element: 4, 8, 16, 32 or 64 */
} isa_nz_geom;

/* Geometry of a rows × cols matrix of type t: C0 = isa_dtype_c0(t), R0 = 16. */
isa_nz_geom isa_nz_geom_of(isa_dtype t, size_t rows, size_t cols);
/* Same with an explicit C0 (e.g. 16 for the L0C fp32/int32 layout, or ATB's 16-wide int8). */
isa_nz_geom isa_nz_geom_with_c0(isa_dtype t, size_t rows, size_t cols, size_t c0);

/* Checks g and that `batch` NZ matrices fit in size_t bytes: c0 and r0 at least 1, elem_bits
 * one of 4/8/16/32/64, a fractal row a whole number of bytes (c0 * elem_bits a multiple of 8).
 * The other functions assume a geometry that passes this check. */
cs_status isa_nz_geom_check(const isa_nz_geom *g, size_t batch, cs_err *err);

/* Column blocks ceil(cols / c0). */
size_t isa_nz_col_blocks(const isa_nz_geom *g);
/* Rows of a column block after padding, ceil(rows / r0) * r0. */
size_t isa_nz_padded_rows(const isa_nz_geom *g);
/* Elements of one NZ matrix, padding included. */
size_t isa_nz_elems(const isa_nz_geom *g);
/* Bytes of one NZ matrix, padding included. */
size_t isa_nz_bytes(const isa_nz_geom *g);
/* Bytes of `batch` ND matrices (int4: ceil(batch*rows*cols / 2)). */
size_t isa_nd_bytes(const isa_nz_geom *g, size_t batch);

/* Element index, within one NZ matrix, of ND element (r, c): ((c/c0)*padded_rows + r)*c0 + c%c0.
 * r < rows and c < cols are the caller's to ensure. */
size_t isa_nz_index(const isa_nz_geom *g, size_t r, size_t c);

/* The 4-D NZ shape {batch, ceil(cols/c0), ceil(rows/r0)*r0, c0}, e.g. an int8 weight k × n
 * gives {1, n/32, k, 32} (ATB's [1, n/16, k, 16] with C0 = 16). */
void isa_nz_shape4(const isa_nz_geom *g, size_t batch, size_t out[4]);

/* ND -> NZ for `batch` consecutive matrices. nd holds isa_nd_bytes(g, batch) bytes, nz receives
 * batch * isa_nz_bytes(g) bytes, all padding zero. The buffers must not overlap. */
void isa_nd_to_nz(const isa_nz_geom *g, size_t batch, const void *nd, void *nz);
/* NZ -> ND for `batch` consecutive matrices; padding in nz is ignored. For int4 with an odd
 * element count the unused high nibble of nd's last byte is set to zero. */
void isa_nz_to_nd(const isa_nz_geom *g, size_t batch, const void *nz, void *nd);

#endif
