/* rng — deterministic pseudo-random numbers for tests (not the kernels' generator): the two
 * generators the tests share, so a seed means the same sequence in every file.
 *
 * Every function takes the caller's state first; nothing is kept between calls.
 */
#ifndef TESTS_RNG_H
#define TESTS_RNG_H

#include <stddef.h>
#include <stdint.h>

/* The 64-bit LCG of Knuth's MMIX: state = state * 6364136223846793005 + 1442695040888963407.
 * Its low bits are weak, so every output below takes high ones. */
uint64_t rng_lcg_step(uint64_t *state); /* advances; returns the whole new state */
uint64_t rng_lcg(uint64_t *state);      /* the top 53 bits of the new state */
int rng_lcg_int(uint64_t *state, int lo, int hi);            /* rng_lcg modulo the span, in [lo, hi] */
uint64_t rng_lcg_below(uint64_t *state, uint64_t n);         /* the top 31 bits modulo n */
void rng_lcg_bytes(uint64_t *state, uint8_t *p, size_t n);   /* n bytes of rng_lcg_below(256) */

/* Marsaglia's xorshift64 with shifts 13, 7, 17 (the state must not be 0). */
uint64_t rng_xorshift(uint64_t *state);
double rng_xorshift_unit(uint64_t *state);                /* [0, 1), the top 53 bits */
uint64_t rng_xorshift_below(uint64_t *state, uint64_t n); /* the whole output modulo n */

#endif
