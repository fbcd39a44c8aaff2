/* fixture — the plug-ins tests/kernels/test_plugin.c loads, one shared library per FIXTURE_*
 * macro (tests/CMakeLists.txt):
 *   FIXTURE_OK        fixture_double (y = 2 x, int32, with make_inputs and a reference) and
 *                     fixture_negate (y = -x): a plug-in as it should be
 *   FIXTURE_ABI       declares ABI version 999
 *   FIXTURE_DECLINES  its entry point returns NULL
 *   FIXTURE_NOENTRY   defines no entry point
 *   FIXTURE_CLASH     fixture_fine, then an operator named "linear" (a built-in's name)
 *   FIXTURE_BADDTYPE  an input that accepts the unknown type "int7" */
#include <stdint.h>
#include <string.h>

#include "kernels/kn_plugin.h"

/* Each kind uses some of the definitions below. */
#define FIXTURE_DEF static __attribute__((unused))

/* y[i] = factor * x[i], into output (reference: false) or reference output y. */
FIXTURE_DEF cs_status scale(kn_ctx *ctx, bool reference, int32_t factor, cs_err *err) {
  const kn_tensor *x = kn_input(ctx, "x");
  kn_tensor *y;
  cs_status st = reference ? kn_reference_alloc(ctx, "y", ISA_INT32, x->ndim, x->shape, &y, err)
                           : kn_output_alloc(ctx, "y", ISA_INT32, x->ndim, x->shape, &y, err);
  if (st != CS_OK) return st;
  for (uint64_t i = 0; i < x->count; i++)
    ((int32_t *)y->data)[i] = (int32_t)((uint32_t)((const int32_t *)x->data)[i] * (uint32_t)factor);
  return CS_OK;
}

FIXTURE_DEF cs_status double_run(kn_ctx *ctx, cs_err *err) { return scale(ctx, false, 2, err); }
FIXTURE_DEF cs_status double_reference(kn_ctx *ctx, cs_err *err) { return scale(ctx, true, 2, err); }
FIXTURE_DEF cs_status negate_run(kn_ctx *ctx, cs_err *err) { return scale(ctx, false, -1, err); }

/* x = 0, 1, ..., n - 1 */
FIXTURE_DEF cs_status make_x(kn_ctx *ctx, cs_err *err) {
  int64_t n;
  cs_status st = kn_attr_int(ctx, "n", &n, err);
  if (st != CS_OK) return st;
  if (n < 1 || n > 1 << 20) return cs_err_set(err, CS_EINVAL, "attribute n = %lld is out of range [1, 1048576]", (long long)n);
  kn_tensor x;
  uint64_t shape[1] = {(uint64_t)n};
  if ((st = kn_tensor_alloc(&x, "x", ISA_INT32, 1, shape, err)) != CS_OK) return st;
  for (int64_t i = 0; i < n; i++) ((int32_t *)x.data)[i] = (int32_t)i;
  return kn_set_input(ctx, "x", &x, err);
}

#ifdef FIXTURE_BADDTYPE
static const kn_io_desc inputs[] = {{"x", "int32,int7", false, "the input"}};
#else
static const kn_io_desc inputs[] = {{"x", "int32", false, "the input"}};
#endif
static const kn_attr_desc attrs[] = {{"n", KN_ATTR_INT, "4", NULL, "elements of the generated x"}};
static const kn_io_desc outputs[] = {{"y", "int32", false, "the result"}};

FIXTURE_DEF const kn_op fixture_double = {
    .name = "fixture_double", .summary = "y = 2 x", .source = "tests/plugins/fixture.c",
    .inputs = KN_LIST(inputs), .attrs = KN_LIST(attrs), .outputs = KN_LIST(outputs),
    .run = double_run, .reference = double_reference, .make_inputs = make_x};
FIXTURE_DEF const kn_op fixture_negate = {
    .name = "fixture_negate", .summary = "y = -x", .source = "tests/plugins/fixture.c",
    .inputs = KN_LIST(inputs), .attrs = KN_LIST(attrs), .outputs = KN_LIST(outputs),
    .run = negate_run, .make_inputs = make_x};
FIXTURE_DEF const kn_op fixture_fine = {
    .name = "fixture_fine", .summary = "y = 2 x", .source = "tests/plugins/fixture.c",
    .inputs = KN_LIST(inputs), .outputs = KN_LIST(outputs), .run = double_run};
FIXTURE_DEF const kn_op fixture_linear = {
    .name = "linear", .summary = "a second linear", .source = "tests/plugins/fixture.c",
    .inputs = KN_LIST(inputs), .outputs = KN_LIST(outputs), .run = double_run};

#if defined(FIXTURE_OK)
KN_PLUGIN("fixture", &fixture_double, &fixture_negate)
#elif defined(FIXTURE_CLASH)
KN_PLUGIN("fixture-clash", &fixture_fine, &fixture_linear)
#elif defined(FIXTURE_BADDTYPE)
KN_PLUGIN("fixture-baddtype", &fixture_double)
#elif defined(FIXTURE_ABI) || defined(FIXTURE_DECLINES)
const kn_plugin *cubesim_plugin_register(uint32_t host_abi_version);
const kn_plugin *cubesim_plugin_register(uint32_t host_abi_version) {
  (void)host_abi_version;
#ifdef FIXTURE_ABI
  static const kn_op *const ops[] = {&fixture_double};
  static const kn_plugin future = {999, "fixture-future", ops, 1};
  return &future;
#else
  return NULL;
#endif
}
#elif defined(FIXTURE_NOENTRY)
/* A library with operators, but no entry point. */
const kn_op *fixture_only_op(void);
const kn_op *fixture_only_op(void) { return &fixture_double; }
#endif
