/* rt_copy — the smallest kernel through the runtime: every block copies its slice of a GM tensor
 * to another through UB (one queue slot, MTE2 then MTE3), for tests of the host API and of what
 * a run does when the host runs out of memory. */
#ifndef TESTS_RT_COPY_H
#define TESTS_RT_COPY_H

#include <stdint.h>

#include "runtime/rt.h"

typedef struct rc_copy_job {
  rt_gtensor src, dst;
  uint32_t slice; /* int32 elements per block */
} rc_copy_job;

/* The kernel (rt_kernel_fn): block b copies elements [b * slice, (b + 1) * slice) of src to dst. */
void rc_slice_copy(rt_ctx *ctx, void *arg);

#endif
