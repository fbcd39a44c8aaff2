/* The kernels' own synchronisation: whole matmul and linear runs (several tilings: UnitFlag on
 * and off, two L0C buffers, both walk orders) raise no happens-before hazard, and the replay's
 * overlap check sees none either, under the defaults and with the cube or MTE2 ten times
 * slower (the seeded bugs of tests/sim/test_hb.c show the check finds what is missing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <string.h>

#include "kernels/kn_op.h"
#include "sim/sim.h"

static void run_clean(const char *op, const char *const *attrs, int slow) {
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 4;
  if (slow == 1) cfg.cube_latency_cycles *= 10, cfg.cube_macs_per_cycle_fp16 /= 8;
  if (slow == 2) cfg.mte2_latency_cycles *= 10, cfg.mte2_gm_bytes_per_cycle /= 10;
  kn_run_options o = {.cfg = &cfg, .timing_only = true, .seed = 1};
  kn_ctx *ctx;
  cs_err err;
  assert_int_equal(kn_ctx_create(kn_op_find(op), &o, &ctx, &err), CS_OK);
  for (int i = 0; attrs[i]; i += 2) assert_int_equal(kn_ctx_set_attr(ctx, attrs[i], attrs[i + 1], &err), CS_OK);
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("%s (%s, slow %d)", err.msg, attrs[1], slow);
  const sim_result *r = rt_device_result(kn_device(ctx));
  assert_true(r->stats.instructions > 100);
  assert_int_equal(r->hazard_count, 0);
  /* the replay's own overlap check, which a run without hazards leaves out, finds nothing either */
  sim_run_options ro = {.overlap_check = true};
  sim_result again;
  assert_int_equal(sim_run(rt_device_sim(kn_device(ctx)), &ro, &again, &err), CS_OK);
  assert_int_equal(again.hazard_count, 0);
  assert_int_equal(again.timing_hazard_count, 0);
  assert_int_equal(again.total_cycles, r->total_cycles);
  sim_result_free(&again);
  kn_ctx_destroy(ctx);
}

static void test_matmul_tilings_are_hazard_free(void **state) {
  (void)state;
  static const char *const tilings[][13] = {
      {"unit_flag", "0", "in_dtype", "fp16", "m", "256", "n", "512", "k", "1024", NULL},
      {"unit_flag", "1", "in_dtype", "fp16", "m", "256", "n", "512", "k", "1024", NULL},
      {"db_l0c", "2", "unit_flag", "0", "in_dtype", "int8", "m", "256", "n", "512", "k", "1024", NULL},
      {"iterate_order", "0", "unit_flag", "1", "in_dtype", "fp16", "m", "512", "n", "256", "k", "512", NULL},
  };
  for (size_t t = 0; t < sizeof tilings / sizeof tilings[0]; t++)
    for (int slow = 0; slow < 3; slow++) run_clean("matmul", tilings[t], slow);
}

static void test_linear_is_hazard_free(void **state) {
  (void)state;
  static const char *const attrs[] = {"m", "128", "n", "256", "k", "512", NULL};
  for (int slow = 0; slow < 3; slow++) run_clean("linear", attrs, slow);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_tilings_are_hazard_free),
      cmocka_unit_test(test_linear_is_hazard_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
