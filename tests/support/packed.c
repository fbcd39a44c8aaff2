/* packed — elements of packed arrays (see packed.h). */
#include "support/packed.h"

uint64_t pk_le_get(const uint8_t *p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned b = 0; b < bytes; b++) v |= (uint64_t)p[b] << (8 * b);
  return v;
}

void pk_le_put(uint8_t *p, uint64_t v, unsigned bytes) {
  for (unsigned b = 0; b < bytes; b++) p[b] = (uint8_t)(v >> (8 * b));
}

uint64_t pk_get(const uint8_t *p, unsigned bits, uint64_t i) {
  if (bits == 4) return i % 2 == 0 ? (p[i / 2] & 0xFu) : (p[i / 2] >> 4);
  return pk_le_get(p + i * (bits / 8), bits / 8);
}

void pk_put(uint8_t *p, unsigned bits, uint64_t i, uint64_t v) {
  if (bits == 4) {
    p[i / 2] = i % 2 == 0 ? (uint8_t)((p[i / 2] & 0xF0u) | (v & 0xFu))
                          : (uint8_t)((p[i / 2] & 0x0Fu) | ((v & 0xFu) << 4));
    return;
  }
  pk_le_put(p + i * (bits / 8), v, bits / 8);
}
