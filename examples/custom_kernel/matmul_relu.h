/* matmul_relu — a fused matmul + ReLU written outside cubesim, against its installed API:
 * C = max(A · B + bias, 0), int8 A (m x k) and B (k x n), an optional int32 bias per column, int32
 * C, on every core of a device. The ReLU costs nothing: the fixpipe applies it while it moves C
 * out of L0C. mr_reference is the same result computed plainly on the host. */
#ifndef MATMUL_RELU_H
#define MATMUL_RELU_H

#include <stdbool.h>
#include <stdint.h>

#include <cubesim/cubesim.h>

typedef struct mr_problem {
  uint32_t m, n, k;
  bool has_bias;
  const int8_t *a;      /* m x k, row-major */
  const int8_t *b;      /* k x n, row-major */
  const int32_t *bias;  /* n values (when has_bias) */
} mr_problem;

/* Chooses a tiling for the device's chip, puts A, B and the bias in its GM and launches the
 * kernel on the cores the tiling uses. C's GM tensor goes to *c; rt_device_run then times it.
 * On a timing-only device the data pointers may be NULL: the shapes are enough. */
cs_status mr_launch(rt_device *dev, const mr_problem *p, rt_gtensor *c, cs_err *err);

/* C (m x n) on the host: exact int32 sums (wrapping as the cube's accumulator does), then ReLU. */
void mr_reference(const mr_problem *p, int32_t *c);

#endif
