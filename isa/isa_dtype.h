/* isa_dtype — the element types cubesim knows, their sizes, fractal widths and .npy names.
 *
 * C0 is the number of elements in one 32-byte fractal row (docs/DESIGN.md §3): 32 B / element size.
 * int4 packs two elements per byte, low nibble first. bf16 has no .npy type: it is read and
 * written as fp32 (exact). int4/uint4 travel in .npy as int8/uint8 holding one value each.
 */
#ifndef ISA_DTYPE_H
#define ISA_DTYPE_H

#include <stddef.h>

/* enum suffix, name, bits per element, numpy descr of its .npy form, C0 (elements / 32 B) */
#define ISA_DTYPE_TABLE(X)                \
  X(INT4, "int4", 4, "|i1", 64)           \
  X(UINT4, "uint4", 4, "|u1", 64)         \
  X(INT8, "int8", 8, "|i1", 32)           \
  X(UINT8, "uint8", 8, "|u1", 32)         \
  X(INT16, "int16", 16, "<i2", 16)        \
  X(UINT16, "uint16", 16, "<u2", 16)      \
  X(INT32, "int32", 32, "<i4", 8)         \
  X(FP16, "fp16", 16, "<f2", 16)          \
  X(BF16, "bf16", 16, "<f4", 16)          \
  X(FP32, "fp32", 32, "<f4", 8)           \
  X(INT64, "int64", 64, "<i8", 4)         \
  X(UINT64, "uint64", 64, "<u8", 4)

typedef enum isa_dtype {
#define ISA_DTYPE_ENUM(sfx, name, bits, npy, c0) ISA_##sfx,
  ISA_DTYPE_TABLE(ISA_DTYPE_ENUM)
#undef ISA_DTYPE_ENUM
  ISA_DTYPE_COUNT
} isa_dtype;

/* "int8", "fp16", ... */
const char *isa_dtype_name(isa_dtype t);
/* Looks a type up by name; also accepts the aliases float16, float32, bfloat16, half, float.
 * Returns ISA_DTYPE_COUNT when unknown. */
isa_dtype isa_dtype_from_name(const char *name);
/* Bits per element (4 for int4). */
unsigned isa_dtype_bits(isa_dtype t);
/* Bytes taken by n elements (int4: ceil(n / 2)). */
size_t isa_dtype_bytes(isa_dtype t, size_t n);
/* Elements per 32-byte fractal row (docs/DESIGN.md §3). */
unsigned isa_dtype_c0(isa_dtype t);
/* The numpy descr of the type's .npy form ("|i1", "<f4", ...). */
const char *isa_dtype_npy_descr(isa_dtype t);

#endif
