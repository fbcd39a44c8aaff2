/* quant_inputs — per-channel scales and offsets that tell every quant-word packer apart, for the
 * tests of tensors of words (tests/isa/test_quant_tools.c, tests/cli/test_quant_tensor.c): scales
 * of both signs over 24 binades, one channel in 8 with its low 13 bits exactly at the rounding
 * tie (0x1000) and one in 8 exact in fp19; offsets in [-300, 300], one in 4 a tie x.5, one in 4
 * an integer, the rest random fractions. The same seed gives the same values everywhere. */
#ifndef TESTS_QUANT_INPUTS_H
#define TESTS_QUANT_INPUTS_H

#include <stddef.h>
#include <stdint.h>

void qi_make(float *scales, float *offsets, size_t n, uint64_t seed);

#endif
