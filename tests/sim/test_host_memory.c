/* Tests of the simulator's host memory limit (sim_options.max_host_bytes): buffers refused at
 * creation, GM tensors and recorded streams refused as they grow, with CS_ENOMEM (a host
 * resource, exit 3), never a kernel fault; rt_launch and sim_run report it; and the footprint
 * estimate, part by part, from the sizes of the records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "runtime/rt.h"
#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"
#include "sim/sim.h"
#include "sim/sim_stream.h"
#include "support/insn_build.h"

/* Bytes the default configuration's on-chip buffers take on one core, plus the functional
 * workspace (L0A + L0B + L0C again), by the table in docs/CONFIG.md. */
static uint64_t core_bytes(const sim_config *c) {
  return c->buffers_l1_bytes + c->buffers_l0a_bytes + c->buffers_l0b_bytes + c->buffers_l0c_bytes + c->buffers_ub_bytes +
         c->buffers_bt_bytes + c->buffers_fb_bytes + c->buffers_l0a_bytes + c->buffers_l0b_bytes + c->buffers_l0c_bytes;
}

static void test_host_memory_footprint_parts(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 2;
  cfg.l2_enabled = 0;
  sim_footprint f;
  sim_footprint_estimate(&cfg, &(sim_footprint_run){.gm_bytes = 1000, .instructions = 10}, &f);
  assert_int_equal(f.buffers_bytes, 2 * core_bytes(&cfg));
  assert_int_equal(f.gm_bytes, 1000);
  /* 10 records kept in 2 streams, by sim_stream.h's rule: 1.25 bytes each and a mark of 8 bytes
   * every 64, a tenth of a literal of 32 bytes with its offset and two hash slots (56 bytes),
   * half again: 1.5 x (10 x 1.375 + 0.1 x 56) = 29.025; and each stream's first capacities,
   * 4096 + 1024 + 2 x 182 (SIM_STREAM_MAX_RECORD: 2 + 144 + 36) + 2 x 512 + 1024 = 7532:
   * 15093.025, 15094 bytes */
  assert_int_equal(SIM_STREAM_MAX_RECORD, 182);
  assert_int_equal(f.stream_bytes, 15094);
  assert_int_equal(sim_stream_typical_bytes(10, 2), 15094);
  assert_true(f.replay_bytes > 0 && f.replay_bytes < 10 * 256); /* per-instruction state only */
  assert_int_equal(f.total_bytes, f.buffers_bytes + f.gm_bytes + f.stream_bytes + f.replay_bytes);
  /* timing-only: no buffers, no GM data */
  sim_footprint_estimate(&cfg, &(sim_footprint_run){.timing_only = true, .gm_bytes = 1000, .instructions = 10}, &f);
  assert_int_equal(f.buffers_bytes, 0);
  assert_int_equal(f.gm_bytes, 0);
  /* a streaming run (timing-only, streamable, untraced, two threads) holds each core's two pipes
   * of 2 chunks of 16 KiB ahead (sim_engine.c), whatever the instructions; one thread, a trace
   * or a launch that cannot stream keep the streams */
  sim_footprint_run big = {.timing_only = true, .instructions = 1000000000, .streamable = true, .host_threads = 2};
  sim_footprint_estimate(&cfg, &big, &f);
  assert_int_equal(f.stream_bytes, 2 * 2 * sim_stream_pipe_bytes(16384, 2));
  uint64_t kept = sim_stream_typical_bytes(big.instructions, 2);
  /* 10^9 records: 1.5 x (1.375e9 + 131072 literals kept x 56 + (10^7 - 131072) x 32) + 15064 */
  assert_int_equal(kept, 2547233656u);
  big.host_threads = 1;
  sim_footprint_estimate(&cfg, &big, &f);
  assert_int_equal(f.stream_bytes, kept);
  big.host_threads = 2;
  big.traced = true;
  sim_footprint_estimate(&cfg, &big, &f);
  assert_int_equal(f.stream_bytes, kept);
  big.traced = false;
  big.streamable = false;
  sim_footprint_estimate(&cfg, &big, &f);
  assert_int_equal(f.stream_bytes, kept);
  /* absurd sizes saturate instead of wrapping around */
  sim_footprint_estimate(&cfg, &(sim_footprint_run){.timing_only = true, .instructions = UINT64_MAX / 2, .traced = true},
                         &f);
  assert_int_equal(f.total_bytes, UINT64_MAX);
  char text[256];
  sim_footprint_estimate(&cfg, &(sim_footprint_run){.gm_bytes = 3u << 20}, &f);
  sim_footprint_text(&f, text, sizeof text);
  char want[256];
  snprintf(want, sizeof want, "on-chip buffers %.1f MiB, GM data 3.0 MiB", (double)f.buffers_bytes / 1048576.0);
  assert_string_equal(text, want);
}

static void test_host_memory_limit_at_creation_and_gm(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 2;
  sim *s = NULL;
  cs_err e;
  sim_options small = {.max_host_bytes = core_bytes(&cfg)}; /* one core's worth */
  assert_int_equal(sim_create(&cfg, &small, &s, &e), CS_ENOMEM);
  assert_null(s);
  char want[256], need[32];
  snprintf(need, sizeof need, "%.1f MiB", (double)(2 * core_bytes(&cfg)) / 1048576.0);
  snprintf(want, sizeof want, "host memory: the on-chip buffers of 2 cores need %s, over the limit of %.1f MiB", need,
           (double)core_bytes(&cfg) / 1048576.0);
  assert_string_equal(e.msg, want);
  /* room for the buffers and 4 KiB of GM */
  sim_options room = {.max_host_bytes = 2 * core_bytes(&cfg) + 4096};
  assert_int_equal(sim_create(&cfg, &room, &s, &e), CS_OK);
  uint64_t addr;
  assert_int_equal(sim_gm_alloc(s, "a", 4096, &addr, &e), CS_OK);
  assert_int_equal(sim_gm_alloc(s, "b", 1, &addr, &e), CS_ENOMEM);
  assert_true(strncmp(e.msg, "host memory: GM tensor b needs 1 B more, over the limit of ", 59) == 0);
  assert_int_equal(sim_gm_tensor_count(s), 1);
  sim_destroy(s);
}

/* A timing-only stream may grow to the limit: the instruction that does not fit stops every
 * core with CS_ENOMEM; it is not a fault, and the replay refuses the incomplete streams. */
static void test_host_memory_stream_growth_is_not_a_fault(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 2;
  /* The compact stream (sim/sim_stream.h): a set_flag is a 5-byte literal (length, opcode, its
   * three fields of one byte each) in the dictionary, and every time in the stream a 1-byte
   * reference to it. The first record makes room in the stream for the largest record
   * (2 + 144 + 36 bytes) plus 4096: 4278 bytes; for 64 marks of 8 bytes (512); for the
   * dictionary's first 64 offsets (512) and 128 hash slots (1024); and in its arena for the
   * largest record plus 1024 (1206): 7532 in all, the limit. A mark is kept every 64 records:
   * 4096 records take 4096 bytes (the 4096th still finds room for the largest record: 4095 + 182
   * <= 4278) and 64 marks; the 4097th needs a 65th mark: the marks grow by half (96), 256 bytes
   * more, over the limit. */
  sim_options o = {.timing_only = true, .max_host_bytes = 7532};
  sim *s;
  cs_err e;
  assert_int_equal(sim_create(&cfg, &o, &s, &e), CS_OK);
  sim_core *c0 = sim_get_core(s, 0), *c1 = sim_get_core(s, 1);
  isa_insn in = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0);
  for (int i = 0; i < 4096; i++) assert_int_equal(sim_core_issue(c0, &in), CS_OK);
  assert_int_equal(sim_core_issue(c0, &in), CS_ENOMEM);
  assert_null(sim_core_fault(c0));
  assert_false(sim_core_ok(c0));
  assert_false(sim_core_ok(c1)); /* every core stops */
  assert_int_equal(sim_core_issue(c1, &in), CS_ENOMEM);
  assert_int_equal(sim_core_stream_len(c0), 4096);
  assert_int_equal(sim_host_status(s, &e), CS_ENOMEM);
  char want[256];
  snprintf(want, sizeof want,
           "host memory: the instruction stream of core 0 needs 256 B more, over the limit of %.1f KiB (%.1f KiB in "
           "use) (4096 instructions recorded)",
           7532.0 / 1024.0, 7532.0 / 1024.0);
  assert_string_equal(e.msg, want);
  sim_result r;
  cs_err e2;
  assert_int_equal(sim_run(s, NULL, &r, &e2), CS_ENOMEM);
  assert_string_equal(e2.msg, want);
  sim_result_free(&r);
  sim_destroy(s);
}

/* A kernel that issues past the limit: rt_launch returns CS_ENOMEM, not CS_EFAULT. */
static void many_flags(rt_ctx *ctx, void *arg) {
  (void)arg;
  for (int i = 0; i < 100000 && rt_ok(ctx); i++) rt_set_flag(ctx, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0);
}

static void test_host_memory_launch_reports_enomem(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 1;
  sim_options o = {.timing_only = true, .max_host_bytes = 1000 * sizeof(isa_insn)};
  rt_device *dev;
  cs_err e;
  assert_int_equal(rt_device_create(&cfg, &o, &dev, &e), CS_OK);
  assert_int_equal(rt_launch(dev, 1, many_flags, NULL, &e), CS_ENOMEM);
  assert_true(strncmp(e.msg, "host memory: the instruction stream of core 0 needs ", 51) == 0);
  assert_int_equal(cs_status_exit_code(e.code), 3);
  rt_device_destroy(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_memory_footprint_parts),
      cmocka_unit_test(test_host_memory_limit_at_creation_and_gm),
      cmocka_unit_test(test_host_memory_stream_growth_is_not_a_fault),
      cmocka_unit_test(test_host_memory_launch_reports_enomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
