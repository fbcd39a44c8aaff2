/* Tests of runtime/rt_host.h, the host API a program outside the repository uses: a device made
 * from a configuration (copied, validated), GM tensors written and read back, a kernel launched
 * on every core that copies its slice GM -> UB -> GM, the replay's result (exact byte counts,
 * no hazard, the same cycles when replayed again), timing-only devices, and each refusal with
 * its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_host.h"
#include "support/rt_copy.h"

enum { CORES = 3, SLICE = 64, TOTAL = CORES * SLICE }; /* int32 elements */

static sim_config three_cores(void) {
  sim_config c;
  sim_config_defaults(&c);
  c.chip_aic_cores = CORES;
  return c;
}

static void test_rt_host_copy_kernel_on_every_core(void **state) {
  (void)state;
  sim_config cfg = three_cores();
  rt_device *dev;
  cs_err err;
  assert_int_equal(rt_device_create(&cfg, NULL, &dev, &err), CS_OK);
  cfg.chip_aic_cores = 7; /* the device keeps its own copy */
  assert_int_equal(rt_device_cores(dev), CORES);
  assert_int_equal(rt_device_config(dev)->chip_aic_cores, CORES);
  assert_false(rt_device_timing_only(dev));

  rc_copy_job j = {.slice = SLICE};
  assert_int_equal(rt_gm_alloc(dev, "src", ISA_INT32, TOTAL, &j.src, &err), CS_OK);
  assert_int_equal(rt_gm_alloc(dev, "dst", ISA_INT32, TOTAL, &j.dst, &err), CS_OK);
  assert_int_equal(j.src.dtype, ISA_INT32);
  assert_int_equal(j.src.count, TOTAL);
  assert_int_equal(j.src.addr % 512, 0);
  assert_int_equal(j.dst.addr % 512, 0);
  int32_t in[TOTAL], out[TOTAL];
  for (int i = 0; i < TOTAL; i++) in[i] = (i * 40503) % 65521 - 30000;
  assert_int_equal(rt_gm_write(dev, j.src, in, &err), CS_OK);
  /* a new tensor reads as zeros */
  memset(out, 0x5A, sizeof out);
  assert_int_equal(rt_gm_read(dev, j.dst, out, &err), CS_OK);
  for (int i = 0; i < TOTAL; i++) assert_int_equal(out[i], 0);

  assert_int_equal(rt_launch(dev, CORES, rc_slice_copy, &j, &err), CS_OK);
  assert_null(rt_device_result(dev));
  assert_int_equal(rt_device_run(dev, NULL, &err), CS_OK);
  const sim_result *r = rt_device_result(dev);
  assert_non_null(r);
  assert_int_equal(r->hazard_count, 0);
  assert_int_equal(r->stats.cores, CORES);
  assert_int_equal(r->stats.gm_read_bytes, TOTAL * 4);
  assert_int_equal(r->stats.gm_write_bytes, TOTAL * 4);
  for (unsigned c = 0; c < CORES; c++) assert_true(r->stats.core[c].finish_cycles > 0);
  uint64_t cycles = r->total_cycles;
  assert_true(cycles > 0);
  assert_int_equal(rt_gm_read(dev, j.dst, out, &err), CS_OK);
  assert_memory_equal(out, in, sizeof in);
  /* part of a tensor, through rt_gtensor_at */
  int32_t part[8];
  rt_gtensor tail = rt_gtensor_at(j.dst, TOTAL - 8);
  assert_int_equal(tail.count, 8);
  assert_int_equal(rt_gm_read(dev, tail, part, &err), CS_OK);
  assert_memory_equal(part, in + TOTAL - 8, sizeof part);

  /* the streams are kept: a second replay gives the same time */
  assert_int_equal(rt_device_run(dev, &(sim_run_options){.allow_hazards = false}, &err), CS_OK);
  assert_int_equal(rt_device_result(dev)->total_cycles, cycles);
  rt_device_destroy(dev);
}

static void test_rt_host_gm_access_outside_a_tensor_is_refused(void **state) {
  (void)state;
  sim_config cfg = three_cores();
  rt_device *dev;
  cs_err err;
  assert_int_equal(rt_device_create(&cfg, NULL, &dev, &err), CS_OK);
  rt_gtensor t;
  assert_int_equal(rt_gm_alloc(dev, "t", ISA_INT32, 16, &t, &err), CS_OK);
  int32_t buf[16] = {0};
  rt_gtensor beyond = t;
  beyond.addr += 32; /* 16 elements from element 8: the last 8 are past the tensor */
  char want[256];
  snprintf(want, sizeof want,
           "rt_gm_write: GM 0x%" PRIx64 " .. 0x%" PRIx64 " (64 bytes) is not inside one allocated tensor",
           t.addr + 32, t.addr + 96);
  assert_int_equal(rt_gm_write(dev, beyond, buf, &err), CS_EINVAL);
  assert_string_equal(err.msg, want);
  snprintf(want, sizeof want,
           "rt_gm_read: GM 0x%" PRIx64 " .. 0x%" PRIx64 " (64 bytes) is not inside one allocated tensor",
           t.addr + 32, t.addr + 96);
  assert_int_equal(rt_gm_read(dev, beyond, buf, &err), CS_EINVAL);
  assert_string_equal(err.msg, want);
  rt_device_destroy(dev);
}

static void test_rt_host_timing_only_device_keeps_no_data(void **state) {
  (void)state;
  sim_config cfg = three_cores();
  rt_device *dev;
  cs_err err;
  assert_int_equal(rt_device_create(&cfg, &(sim_options){.timing_only = true}, &dev, &err), CS_OK);
  assert_true(rt_device_timing_only(dev));
  rc_copy_job j = {.slice = SLICE};
  assert_int_equal(rt_gm_alloc(dev, "src", ISA_INT32, TOTAL, &j.src, &err), CS_OK);
  assert_int_equal(rt_gm_alloc(dev, "dst", ISA_INT32, TOTAL, &j.dst, &err), CS_OK);
  int32_t data[TOTAL] = {1};
  assert_int_equal(rt_gm_write(dev, j.src, data, &err), CS_OK); /* accepted, ignored */
  assert_int_equal(rt_launch(dev, CORES, rc_slice_copy, &j, &err), CS_OK);
  assert_int_equal(rt_device_run(dev, NULL, &err), CS_OK);
  assert_int_equal(rt_device_result(dev)->stats.gm_read_bytes, TOTAL * 4);
  assert_int_equal(rt_gm_read(dev, j.dst, data, &err), CS_EINVAL);
  assert_string_equal(err.msg, "rt_gm_read: the device is timing-only, its GM keeps no data");
  rt_device_destroy(dev);
}

static void test_rt_host_invalid_configuration_is_refused(void **state) {
  (void)state;
  sim_config cfg = three_cores();
  cfg.chip_aic_cores = 0;
  rt_device *dev = (rt_device *)&cfg; /* must be reset to NULL */
  cs_err err;
  assert_int_equal(rt_device_create(&cfg, NULL, &dev, &err), CS_ECONFIG);
  assert_null(dev);
  assert_string_equal(err.msg, "chip.aic_cores = 0 is below the minimum 1");
  assert_null(rt_device_result(NULL));
  rt_device_destroy(NULL);
}

static void test_rt_host_version(void **state) {
  (void)state;
  assert_string_equal(cs_version(), CUBESIM_VERSION);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rt_host_copy_kernel_on_every_core),
      cmocka_unit_test(test_rt_host_gm_access_outside_a_tensor_is_refused),
      cmocka_unit_test(test_rt_host_timing_only_device_keeps_no_data),
      cmocka_unit_test(test_rt_host_invalid_configuration_is_refused),
      cmocka_unit_test(test_rt_host_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
