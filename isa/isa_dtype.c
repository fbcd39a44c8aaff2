/* isa_dtype — the dtype table. */
#include "isa/isa_dtype.h"

#include <string.h>
#include <strings.h>

static const struct {
  const char *name;
  unsigned bits;
  const char *npy;
  unsigned c0;
} dtype_rows[ISA_DTYPE_COUNT] = {
#define ISA_DTYPE_ROW(sfx, name, bits, npy, c0) {name, bits, npy, c0},
    ISA_DTYPE_TABLE(ISA_DTYPE_ROW)
#undef ISA_DTYPE_ROW
};

const char *isa_dtype_name(isa_dtype t) {
  return (unsigned)t < ISA_DTYPE_COUNT ? dtype_rows[t].name : "?";
}

isa_dtype isa_dtype_from_name(const char *name) {
  static const struct { const char *alias; isa_dtype t; } aliases[] = {
      {"float16", ISA_FP16}, {"half", ISA_FP16},   {"float32", ISA_FP32},
      {"float", ISA_FP32},   {"bfloat16", ISA_BF16}, {"bfloat16_t", ISA_BF16},
  };
  if (!name) return ISA_DTYPE_COUNT;
  for (int t = 0; t < ISA_DTYPE_COUNT; t++)
    if (strcasecmp(name, dtype_rows[t].name) == 0) return (isa_dtype)t;
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcasecmp(name, aliases[i].alias) == 0) return aliases[i].t;
  return ISA_DTYPE_COUNT;
}

unsigned isa_dtype_bits(isa_dtype t) { return dtype_rows[t].bits; }

size_t isa_dtype_bytes(isa_dtype t, size_t n) { return (n * dtype_rows[t].bits + 7) / 8; }

unsigned isa_dtype_c0(isa_dtype t) { return dtype_rows[t].c0; }

const char *isa_dtype_npy_descr(isa_dtype t) { return dtype_rows[t].npy; }
