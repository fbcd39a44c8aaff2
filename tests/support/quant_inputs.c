/* quant_inputs — scales and offsets for the quant word tensor tests (see quant_inputs.h). */
#include "quant_inputs.h"

#include <math.h>

#include "ref_num.h"
#include "rng.h"

void qi_make(float *scales, float *offsets, size_t n, uint64_t seed) {
  uint64_t st = seed ? seed : 1; /* xorshift's state must not be 0 */
  for (size_t i = 0; i < n; i++) {
    double mag = ldexp(1.0 + rng_xorshift_unit(&st), (int)rng_xorshift_below(&st, 24) - 20);
    uint32_t b = ref_f32_bits((float)(rng_xorshift_below(&st, 5) == 0 ? -mag : mag));
    if (i % 8 == 0) b = (b & ~0x1FFFu) | 0x1000u; /* a tie */
    if (i % 8 == 1) b &= ~0x1FFFu;                /* exact in fp19 */
    scales[i] = ref_f32_of_bits(b);
    int whole = (int)rng_xorshift_below(&st, 601) - 300;
    switch (i % 4) {
      case 0: offsets[i] = (float)whole + 0.5f; break;
      case 1: offsets[i] = (float)whole; break;
      default: offsets[i] = (float)whole + (float)rng_xorshift_unit(&st); break;
    }
  }
}
