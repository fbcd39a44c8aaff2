/* kn_test — operators under test through kn_ctx: a runner that feeds raw host data and checks
 * what a run says, tensors built from integer or float values, and exact comparisons. Every
 * failure of the library fails the running test with its message. */
#ifndef TESTS_KN_TEST_H
#define TESTS_KN_TEST_H

#include <stdint.h>

#include "kernels/kn_op.h"

/* ---- a runner: one context on a small chip ---- */

typedef struct kt_runner {
  kn_ctx *ctx;
  cs_err err; /* of the last call that failed */
} kt_runner;

/* A context for operator `op` on the 910B defaults with 4 cores (the shapes of these tests are
 * small) and seed 1; with `ub_bytes` of UB (the AI cores' and the AIVs') when non-zero. */
void kt_init(kt_runner *r, const char *op, uint64_t ub_bytes);
void kt_free(kt_runner *r);
void kt_set_attr(kt_runner *r, const char *name, const char *value);
/* An input tensor from raw host data (copied; NULL: zeros). */
cs_status kt_put(kt_runner *r, const char *name, isa_dtype dt, uint32_t ndim, const uint64_t *shape,
                 const void *data);
void kt_put_ok(kt_runner *r, const char *name, isa_dtype dt, uint32_t ndim, const uint64_t *shape,
               const void *data);
void kt_run_ok(kt_runner *r);
/* The run fails with `code` and exactly `msg`. */
void kt_run_fails(kt_runner *r, cs_status code, const char *msg);
/* The operator's own reference agrees with its output `output`, bit for bit, element by element. */
void kt_own_reference_agrees(kt_runner *r, const char *output);

/* ---- contexts and tensors built from values ---- */

/* A context for operator `op` with seed 0, on the built-in defaults (cores 0) or on the defaults
 * with `cores` cores. */
kn_ctx *kt_ctx(const char *op, unsigned cores);
/* kn_set_input, failing the test with its message. */
void kt_set_input(kn_ctx *ctx, const char *name, kn_tensor t);

/* A tensor of integer type dt (int4/uint4 one element a byte, as kn_tensor holds them) from v. */
kn_tensor kt_int_tensor(const char *name, isa_dtype dt, uint32_t ndim, const uint64_t *shape, const int64_t *v);
/* A tensor of fp32, fp16 (stored as its bits) or bf16 (stored as the fp32 of its value) from v,
 * rounded to the type by isa_num. */
kn_tensor kt_float_tensor(const char *name, isa_dtype dt, uint32_t ndim, const uint64_t *shape, const float *v);
/* Element i of an integer tensor. */
int64_t kt_get_int(const kn_tensor *t, uint64_t i);
/* t holds exactly the n integers of want. */
void kt_assert_ints(const kn_tensor *t, const int64_t *want, uint64_t n);

#endif
