/* rng — deterministic pseudo-random numbers for tests (see rng.h). */
#include "support/rng.h"

uint64_t rng_lcg_step(uint64_t *state) {
  *state = *state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return *state;
}

uint64_t rng_lcg(uint64_t *state) { return rng_lcg_step(state) >> 11; }

int rng_lcg_int(uint64_t *state, int lo, int hi) {
  return lo + (int)(rng_lcg(state) % (uint64_t)(hi - lo + 1));
}

uint64_t rng_lcg_below(uint64_t *state, uint64_t n) { return (rng_lcg_step(state) >> 33) % n; }

void rng_lcg_bytes(uint64_t *state, uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rng_lcg_below(state, 256);
}

uint64_t rng_xorshift(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

double rng_xorshift_unit(uint64_t *state) { return (double)(rng_xorshift(state) >> 11) * 0x1p-53; }

uint64_t rng_xorshift_below(uint64_t *state, uint64_t n) { return rng_xorshift(state) % n; }
