/* Timing-only runs keep no data (kernels/kn_op.h, kn_ctx_has_data): the large inputs that
 * make_inputs generates and the outputs are shapes without data, while the timing is the one a
 * run with data gives, instruction for instruction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kernels/kn_op.h"
#include "sim/sim.h"

/* A run of op on 4 cores of the defaults, with or without data. */
static kn_ctx *run(const char *op, bool timing_only, const char *const *attrs) {
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 4;
  kn_run_options o = {.cfg = &cfg, .timing_only = timing_only, .seed = 1};
  kn_ctx *ctx;
  cs_err err;
  assert_int_equal(kn_ctx_create(kn_op_find(op), &o, &ctx, &err), CS_OK);
  for (int i = 0; attrs[i]; i += 2) assert_int_equal(kn_ctx_set_attr(ctx, attrs[i], attrs[i + 1], &err), CS_OK);
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("%s", err.msg);
  return ctx;
}

static void shapes_without_data(const char *op, const char *const *attrs, const char *const *big_inputs,
                                const char *output, const uint64_t *out_shape) {
  kn_ctx *data = run(op, false, attrs), *timing = run(op, true, attrs);
  assert_true(kn_ctx_has_data(data));
  assert_false(kn_ctx_has_data(timing));
  for (int i = 0; big_inputs[i]; i++) {
    const kn_tensor *d = kn_input(data, big_inputs[i]), *t = kn_input(timing, big_inputs[i]);
    assert_non_null(d->data);
    assert_null(t->data);
    assert_int_equal(t->count, d->count);
    assert_int_equal(t->ndim, d->ndim);
    assert_int_equal(t->dtype, d->dtype);
  }
  const kn_tensor *od = kn_ctx_output(data, output), *ot = kn_ctx_output(timing, output);
  assert_non_null(od->data);
  assert_null(ot->data);
  assert_int_equal(ot->shape[0], out_shape[0]);
  assert_int_equal(ot->shape[1], out_shape[1]);
  /* the same instructions, the same cycles */
  const sim_result *rd = rt_device_result(kn_device(data)), *rt = rt_device_result(kn_device(timing));
  assert_int_equal(rt->stats.instructions, rd->stats.instructions);
  assert_int_equal(rt->total_cycles, rd->total_cycles);
  kn_ctx_destroy(data);
  kn_ctx_destroy(timing);
}

static void test_matmul_timing_only_keeps_no_data(void **state) {
  (void)state;
  static const char *const attrs[] = {"in_dtype", "fp16", "m", "96", "n", "160", "k", "256", NULL};
  static const char *const big[] = {"a", "b", NULL};
  static const uint64_t shape[2] = {96, 160};
  shapes_without_data("matmul", attrs, big, "c", shape);
}

static void test_linear_timing_only_keeps_no_data(void **state) {
  (void)state;
  static const char *const attrs[] = {"m", "64", "n", "96", "k", "128", NULL};
  static const char *const big[] = {"x", "weight", NULL};
  static const uint64_t shape[2] = {64, 96};
  shapes_without_data("linear", attrs, big, "output", shape);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_timing_only_keeps_no_data),
      cmocka_unit_test(test_linear_timing_only_keeps_no_data),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
