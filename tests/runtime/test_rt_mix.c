/* Tests of the chip's two kinds of core (runtime/rt_host.h rt_launch_kind, sim/sim.h): Ascend C's
 * block and sub-block indices on AIC-only, AIV-only and MIX 1:1 / 1:2 launches, the AIVs made on
 * the first vector launch only (an AIC-only run keeps its figures), an AIV's own kernel entry and
 * vector width in exact cycles, the pipes an AIV does not have, a chip without AIVs, and the
 * AIVs' processes in a trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"
#include "sim/sim_trace.h"
#include "support/sim_build.h"
#include "support/tmp_files.h"

enum { MAX_SEEN = 32 };

typedef struct seen {
  unsigned n;
  struct {
    rt_core_kind kind;
    unsigned idx, num, sub, core, ratio;
  } b[MAX_SEEN];
} seen;

static void note_block(rt_ctx *ctx, void *arg) {
  seen *s = arg;
  if (s->n == MAX_SEEN) return;
  s->b[s->n].kind = rt_core_kind_of(ctx);
  s->b[s->n].idx = rt_block_idx(ctx);
  s->b[s->n].num = rt_block_num(ctx);
  s->b[s->n].sub = rt_sub_block_idx(ctx);
  s->b[s->n].core = rt_core_idx(ctx);
  s->b[s->n].ratio = rt_task_ratio(ctx);
  s->n++;
}

static rt_device *device(unsigned aic, unsigned per) {
  sim_config c;
  sim_config_defaults(&c);
  c.chip_aic_cores = aic;
  c.chip_aiv_per_aic = per;
  rt_device *dev;
  cs_err err;
  assert_int_equal(rt_device_create(&c, NULL, &dev, &err), CS_OK);
  return dev;
}

static void expect_block(const seen *s, unsigned i, rt_core_kind kind, unsigned idx, unsigned num, unsigned sub,
                         unsigned core, unsigned ratio) {
  assert_true(i < s->n);
  assert_int_equal(s->b[i].kind, kind);
  assert_int_equal(s->b[i].idx, idx);
  assert_int_equal(s->b[i].num, num);
  assert_int_equal(s->b[i].sub, sub);
  assert_int_equal(s->b[i].core, core);
  assert_int_equal(s->b[i].ratio, ratio);
}

/* 3 AI cores of 1 AIC + 2 AIVs: cores 0-2 are the AICs, 3-8 the AIVs (AIV g.v = 3 + 2g + v). */
static void test_rt_mix_block_indices_per_launch_kind(void **state) {
  (void)state;
  rt_device *dev = device(3, 2);
  cs_err err;
  seen s = {0};
  assert_int_equal(rt_launch(dev, 4, note_block, &s, &err), CS_OK);
  assert_int_equal(s.n, 4);
  assert_int_equal(rt_device_aiv_cores(dev), 0); /* no vector launch yet */
  expect_block(&s, 3, RT_CORE_AIC, 3, 4, 0, 0, 1); /* block 3 after block 0 on core 0 */

  memset(&s, 0, sizeof s);
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_AIV, 7, note_block, &s, &err), CS_OK);
  assert_int_equal(rt_device_aiv_cores(dev), 6);
  assert_int_equal(s.n, 7);
  for (unsigned b = 0; b < 7; b++) expect_block(&s, b, RT_CORE_AIV, b, 7, 0, 3 + b % 6, 1);

  memset(&s, 0, sizeof s);
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_MIX_1_2, 2, note_block, &s, &err), CS_OK);
  assert_int_equal(s.n, 6);
  expect_block(&s, 0, RT_CORE_AIC, 0, 2, 0, 0, 2);
  expect_block(&s, 1, RT_CORE_AIV, 0, 2, 0, 3, 2);
  expect_block(&s, 2, RT_CORE_AIV, 1, 2, 1, 4, 2);
  expect_block(&s, 3, RT_CORE_AIC, 1, 2, 0, 1, 2);
  expect_block(&s, 4, RT_CORE_AIV, 2, 2, 0, 5, 2);
  expect_block(&s, 5, RT_CORE_AIV, 3, 2, 1, 6, 2);

  memset(&s, 0, sizeof s);
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_MIX_1_1, 3, note_block, &s, &err), CS_OK);
  assert_int_equal(s.n, 6);
  expect_block(&s, 4, RT_CORE_AIC, 2, 3, 0, 2, 1);
  expect_block(&s, 5, RT_CORE_AIV, 2, 3, 0, 7, 1); /* sub-block 0 of AI core 2 */
  rt_device_destroy(dev);
}

static void test_rt_mix_chip_without_aivs_refuses_vector_launches(void **state) {
  (void)state;
  rt_device *dev = device(2, 0);
  cs_err err;
  seen s = {0};
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_AIV, 2, note_block, &s, &err), CS_EINVAL);
  assert_string_equal(err.msg, "launch: the chip has no AIV cores (chip.aiv_per_aic = 0)");
  assert_int_equal(s.n, 0);
  rt_device_destroy(dev);
  dev = device(2, 1);
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_MIX_1_2, 2, note_block, &s, &err), CS_EINVAL);
  assert_string_equal(err.msg, "launch: MIX 1:2 needs two AIVs per AI core (chip.aiv_per_aic = 1)");
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_MIX_1_1, 2, note_block, &s, &err), CS_OK);
  assert_int_equal(s.n, 4);
  rt_device_destroy(dev);
}

typedef struct copy_job {
  rt_gtensor src, dst;
  uint32_t bytes;
} copy_job;

/* GM -> UB -> GM of the first `bytes` (block 0 only). */
static void copy_once(rt_ctx *ctx, void *arg) {
  const copy_job *j = arg;
  if (rt_block_idx(ctx) != 0) return;
  rt_ltensor t = rt_buf_alloc(ctx, RT_POS_VECIN, j->bytes, ISA_INT8, "t");
  rt_copy_gm_to_local(ctx, t, j->src, rt_copy_params(j->bytes));
  rt_set_flag(ctx, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0);
  rt_wait_flag(ctx, ISA_PIPE_MTE2, ISA_PIPE_MTE3, 0);
  rt_copy_local_to_gm(ctx, j->dst, t, rt_copy_params(j->bytes));
}

/* The round configuration of docs/TIMING.md: a 1024 B copy GM -> UB streams 16 cycles and waits
 * 10 + 100; the write back the same. An AIC: dispatched at 1, read done at 127; the set fires at
 * 127, the wait releases MTE3, the write is dispatched long before and starts at 127: done at
 * 127 + 16 + 110 = 253. The same kernel on an AIV whose entry costs 7 cycles (the AIC's costs
 * 0) finishes at 260, and the AIC-only run has only the AICs' statistics. */
static void test_rt_mix_aiv_runs_with_its_own_entry(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 2);
  c.aiv_kernel_init_cycles = 7;
  c.aiv_mte2_outstanding_bytes = c.mte2_outstanding_bytes;
  c.aiv_mte3_outstanding_bytes = c.mte3_outstanding_bytes;
  for (int kind = 0; kind < 2; kind++) {
    rt_device *dev;
    cs_err err;
    assert_int_equal(rt_device_create(&c, NULL, &dev, &err), CS_OK);
    copy_job j = {.bytes = 1024};
    assert_int_equal(rt_gm_alloc(dev, "src", ISA_INT8, 1024, &j.src, &err), CS_OK);
    assert_int_equal(rt_gm_alloc(dev, "dst", ISA_INT8, 1024, &j.dst, &err), CS_OK);
    uint8_t in[1024], out[1024];
    for (int i = 0; i < 1024; i++) in[i] = (uint8_t)(i * 7 + 3);
    assert_int_equal(rt_gm_write(dev, j.src, in, &err), CS_OK);
    assert_int_equal(rt_launch_kind(dev, kind ? RT_LAUNCH_AIV : RT_LAUNCH_AIC, 1, copy_once, &j, &err), CS_OK);
    assert_int_equal(rt_device_run(dev, NULL, &err), CS_OK);
    const sim_result *r = rt_device_result(dev);
    assert_int_equal(r->total_cycles, kind ? 260 : 253);
    assert_int_equal(r->stats.cores, kind ? 2 + 4 : 2);
    assert_int_equal(r->stats.core[kind ? 2 : 0].instructions, 4);
    assert_int_equal(rt_gm_read(dev, j.dst, out, &err), CS_OK);
    assert_memory_equal(in, out, 1024);
    rt_device_destroy(dev);
  }
}

typedef struct vec_job {
  uint32_t repeats;
} vec_job;

static void vadd_block(rt_ctx *ctx, void *arg) {
  const vec_job *j = arg;
  rt_ltensor a = rt_buf_alloc(ctx, RT_POS_VECCALC, 256 * j->repeats, ISA_FP16, "a");
  rt_vbinary_n(ctx, ISA_OP_VADD, a, a, a, 128 * j->repeats);
}

/* A vadd of 4 repeats (1024 B): 1024 / 256 = 4 cycles on the round configuration's vector unit,
 * done 4 + 4 (latency) after its dispatch at 1: 9. An AIV whose vector unit is
 * aiv.vector_bytes_per_cycle = 128 wide takes 8 cycles: 13. */
static void test_rt_mix_aiv_vector_width(void **state) {
  (void)state;
  sim_config c;
  sb_round_config(&c, 1);
  c.aiv_kernel_init_cycles = 0;
  c.aiv_vector_bytes_per_cycle = 128;
  for (int kind = 0; kind < 2; kind++) {
    rt_device *dev;
    cs_err err;
    assert_int_equal(rt_device_create(&c, NULL, &dev, &err), CS_OK);
    vec_job j = {4};
    assert_int_equal(rt_launch_kind(dev, kind ? RT_LAUNCH_AIV : RT_LAUNCH_AIC, 1, vadd_block, &j, &err), CS_OK);
    assert_int_equal(rt_device_run(dev, NULL, &err), CS_OK);
    assert_int_equal(rt_device_result(dev)->total_cycles, kind ? 13 : 9);
    assert_int_equal(rt_device_result(dev)->stats.core[kind ? 1 : 0].pipe_busy_cycles[ISA_PIPE_V], kind ? 8 : 4);
    rt_device_destroy(dev);
  }
}

static void aiv_mmad(rt_ctx *ctx, void *arg) {
  (void)arg;
  rt_pipe_barrier(ctx, ISA_PIPE_M);
}

static void aiv_l1(rt_ctx *ctx, void *arg) {
  (void)arg;
  rt_buf_alloc(ctx, RT_POS_A1, 512, ISA_FP16, "a1");
}

/* An AIV has no cube pipes and no L1: instructions on them are core-kind faults, and a buffer in
 * L1 does not fit. */
static void test_rt_mix_aiv_lacks_the_cube_side(void **state) {
  (void)state;
  rt_device *dev = device(1, 2);
  cs_err err;
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_AIV, 1, aiv_mmad, NULL, &err), CS_EFAULT);
  assert_string_equal(err.msg, "core 1, instruction 0 (pipe_barrier): pipe_barrier: AIV 0.0 has no M pipe (it has S, "
                               "MTE2, V and MTE3) [core-kind]");
  rt_device_destroy(dev);
  dev = device(1, 2);
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_AIV, 1, aiv_l1, NULL, &err), CS_EFAULT);
  assert_string_equal(err.msg, "core 1, before its first instruction: buffer 'a1' of 512 bytes does not fit in A1 "
                               "(L1): 0 of 0 bytes are already taken [runtime]");
  rt_device_destroy(dev);
}

/* A MIX run's JSON trace names the AIVs' processes and gives them their four tracks only. */
static void test_rt_mix_trace_has_aiv_processes(void **state) {
  (void)state;
  rt_device *dev = device(1, 2);
  cs_err err;
  vec_job j = {1};
  assert_int_equal(rt_launch_kind(dev, RT_LAUNCH_AIV, 2, vadd_block, &j, &err), CS_OK);
  tf_dir td;
  tf_dir_make(&td);
  char path[256];
  tf_join(path, sizeof path, td.path, "t.json");
  sim_trace *t;
  assert_int_equal(sim_trace_open(path, rt_device_config(dev), &t, &err), CS_OK);
  sim_run_options o = {.trace = t};
  assert_int_equal(rt_device_run(dev, &o, &err), CS_OK);
  assert_int_equal(sim_trace_close(t, true, &err), CS_OK);
  char *text = tf_read(path, NULL);
  assert_non_null(strstr(text, "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"core 0\"}}"));
  assert_non_null(strstr(text, "{\"ph\":\"M\",\"pid\":2,\"tid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"AIV 0.0\"}}"));
  assert_non_null(strstr(text, "{\"ph\":\"M\",\"pid\":3,\"tid\":3,\"name\":\"process_name\",\"args\":{\"name\":\"AIV 0.1\"}}"));
  assert_non_null(strstr(text, "{\"ph\":\"M\",\"pid\":2,\"tid\":207,\"name\":\"thread_name\",\"args\":{\"name\":\"VECTOR\"}}"));
  assert_null(strstr(text, "\"pid\":2,\"tid\":204,")); /* no CUBE track on an AIV */
  assert_non_null(strstr(text, "{\"ph\":\"M\",\"pid\":1,\"tid\":104,\"name\":\"thread_name\",\"args\":{\"name\":\"CUBE\"}}"));
  free(text);
  tf_dir_remove(&td);
  rt_device_destroy(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rt_mix_block_indices_per_launch_kind),
      cmocka_unit_test(test_rt_mix_chip_without_aivs_refuses_vector_launches),
      cmocka_unit_test(test_rt_mix_aiv_runs_with_its_own_entry),
      cmocka_unit_test(test_rt_mix_aiv_vector_width),
      cmocka_unit_test(test_rt_mix_aiv_lacks_the_cube_side),
      cmocka_unit_test(test_rt_mix_trace_has_aiv_processes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
