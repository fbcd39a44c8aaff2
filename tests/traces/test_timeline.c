/* Tests of traces/trc_timeline: merging busy intervals into spans (adjacent, out of order,
 * bridging), the bound on spans per track with the busy cycles kept exact, and the timeline of
 * the two-core program observed through sim_run (cycles derived by hand in tests/sim/test_trace.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_json.h"
#include "base/cs_jsonr.h"
#include "sim/sim.h"
#include "support/json_expect.h"
#include "support/sim_build.h"
#include "traces/trc_summary.h"
#include "traces/trc_timeline.h"

static trc_timeline *make(unsigned cores, size_t max_spans) {
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = cores;
  trc_timeline *t = NULL;
  cs_err err;
  assert_int_equal(trc_timeline_create(&cfg, max_spans, &t, &err), CS_OK);
  return t;
}

static void assert_span(const trc_track *k, size_t i, uint64_t start, uint64_t end, uint64_t busy) {
  assert_true(i < k->n);
  if (k->spans[i].start != start || k->spans[i].end != end || k->spans[i].busy != busy)
    fail_msg("span %zu is [%lu, %lu) busy %lu, want [%lu, %lu) busy %lu", i, (unsigned long)k->spans[i].start,
             (unsigned long)k->spans[i].end, (unsigned long)k->spans[i].busy, (unsigned long)start,
             (unsigned long)end, (unsigned long)busy);
}

static void test_timeline_merges_touching_and_keeps_gaps(void **state) {
  (void)state;
  trc_timeline *t = make(2, 16);
  trc_timeline_add(t, 1, ISA_PIPE_MTE2, 10, 20);
  trc_timeline_add(t, 1, ISA_PIPE_MTE2, 20, 25); /* touches: one span */
  trc_timeline_add(t, 1, ISA_PIPE_MTE2, 40, 50); /* a gap of 15 */
  trc_timeline_add(t, 1, ISA_PIPE_MTE2, 30, 35); /* completes before the one at 40 */
  trc_timeline_add(t, 1, ISA_PIPE_MTE2, 5, 5);   /* zero length: nothing */
  const trc_track *k = trc_timeline_track(t, 1, ISA_PIPE_MTE2);
  assert_int_equal(k->n, 3);
  assert_span(k, 0, 10, 25, 15);
  assert_span(k, 1, 30, 35, 5);
  assert_span(k, 2, 40, 50, 10);
  assert_int_equal(k->busy_cycles, 30);
  /* an interval that fills both gaps joins the three */
  trc_timeline_add(t, 1, ISA_PIPE_MTE2, 25, 30);
  trc_timeline_add(t, 1, ISA_PIPE_MTE2, 35, 40);
  assert_int_equal(k->n, 1);
  assert_span(k, 0, 10, 50, 40);
  assert_int_equal(trc_timeline_track(t, 0, ISA_PIPE_MTE2)->n, 0);
  assert_null(trc_timeline_track(t, 2, ISA_PIPE_MTE2)); /* no core 2 */
  trc_timeline_add(t, 5, ISA_PIPE_MTE2, 0, 10);         /* ignored */
  trc_timeline_destroy(t);
}

/* 1000 intervals of 3 cycles every 10: at most 8 spans; the gap doubles from 0 through 1, 2, 4
 * to 8 (the first that bridges the 7 idle cycles), after which everything is one span. */
static void test_timeline_bounds_spans_and_keeps_busy_exact(void **state) {
  (void)state;
  trc_timeline *t = make(1, 8);
  for (uint64_t i = 0; i < 1000; i++) {
    trc_timeline_add(t, 0, ISA_PIPE_M, 10 * i, 10 * i + 3);
    assert_true(trc_timeline_track(t, 0, ISA_PIPE_M)->n <= 8);
  }
  const trc_track *k = trc_timeline_track(t, 0, ISA_PIPE_M);
  assert_int_equal(k->busy_cycles, 3000);
  assert_int_equal(k->gap_cycles, 8);
  assert_int_equal(k->n, 1);
  assert_span(k, 0, 0, 9993, 3000);
  cs_err err;
  trc_timeline *bad = NULL;
  sim_config cfg;
  sim_config_defaults(&cfg);
  assert_int_equal(trc_timeline_create(&cfg, 1, &bad, &err), CS_EINVAL);
  assert_string_equal(err.msg, "timeline: 1 spans per track is too few (at least 2)");
  trc_timeline_destroy(t);
}

/* Two bursts far apart stay two spans however many intervals each holds. */
static void test_timeline_coarsening_keeps_far_bursts_apart(void **state) {
  (void)state;
  trc_timeline *t = make(1, 4);
  for (uint64_t i = 0; i < 50; i++) trc_timeline_add(t, 0, ISA_PIPE_MTE1, 2 * i, 2 * i + 1);
  for (uint64_t i = 0; i < 50; i++) trc_timeline_add(t, 0, ISA_PIPE_MTE1, 100000 + 2 * i, 100000 + 2 * i + 1);
  const trc_track *k = trc_timeline_track(t, 0, ISA_PIPE_MTE1);
  assert_int_equal(k->n, 2);
  assert_span(k, 0, 0, 99, 50);
  assert_span(k, 1, 100000, 100099, 50);
  trc_timeline_destroy(t);
}

/* The two-core program: MTE2 [4, 36) and [4, 20), MTE3 [568, 600) and [556, 572); the
 * dispatcher works 4 cycles on each instruction, then dispatches it (or waits to): core 0
 * [0, 16) for its four; core 1 [0, 12) for the copy, the set_flag and the wait_flag it then holds
 * until 552, [552, 560) for the copy and the barrier (which it holds until 804). */
static void test_timeline_of_a_run(void **state) {
  (void)state;
  sim *s = sb_trace_sim(2);
  sb_two_core_program(s, NULL);
  trc_timeline *t = NULL;
  cs_err err;
  assert_int_equal(trc_timeline_create(sim_get_config(s), 256, &t, &err), CS_OK);
  sim_run_options o = {.observer = &t->observer};
  sim_result r;
  assert_int_equal(sim_run(s, &o, &r, &err), CS_OK);
  assert_int_equal(t->status, CS_OK);
  assert_span(trc_timeline_track(t, 0, ISA_PIPE_MTE2), 0, 4, 36, 32);
  assert_span(trc_timeline_track(t, 1, ISA_PIPE_MTE2), 0, 4, 20, 16);
  assert_span(trc_timeline_track(t, 0, ISA_PIPE_MTE3), 0, 568, 600, 32);
  assert_span(trc_timeline_track(t, 1, ISA_PIPE_MTE3), 0, 556, 572, 16);
  const trc_track *s0 = trc_timeline_track(t, 0, ISA_PIPE_S), *s1 = trc_timeline_track(t, 1, ISA_PIPE_S);
  assert_int_equal(s0->n, 1);
  assert_span(s0, 0, 0, 16, 16);
  assert_int_equal(s1->n, 2);
  assert_span(s1, 0, 0, 12, 12);
  assert_span(s1, 1, 552, 560, 8);
  /* every track's busy cycles are the summary's */
  for (unsigned c = 0; c < 2; c++)
    for (int p = 0; p < ISA_PIPE_COUNT; p++)
      assert_int_equal(trc_timeline_track(t, c, (isa_pipe)p)->busy_cycles, trc_core_pipe_busy(s, &r, c, (isa_pipe)p));
  /* the JSON: the 6 non-empty tracks, in core then pipe order */
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cs_json j;
  cs_json_init(&j, f, false);
  cs_json_obj_begin(&j);
  trc_timeline_json(t, &j);
  cs_json_obj_end(&j);
  fclose(f);
  cs_jdoc *d = je_parse(text, len);
  const cs_jvalue *tl = cs_jget(cs_jroot(d), "timeline");
  assert_int_equal(je_u64(tl, "max_spans"), 256);
  assert_int_equal(cs_jcount(cs_jget(tl, "tracks")), 6);
  assert_int_equal(je_u64(tl, "tracks[0].core"), 0);
  assert_string_equal(je_string(tl, "tracks[0].pipe"), "SCALAR");
  assert_string_equal(je_string(tl, "tracks[1].pipe"), "MTE2");
  assert_string_equal(je_string(tl, "tracks[2].pipe"), "MTE3");
  assert_int_equal(je_u64(tl, "tracks[3].busy_cycles"), 20);
  assert_int_equal(je_u64(tl, "tracks[3].spans[1][0]"), 552);
  assert_int_equal(je_u64(tl, "tracks[3].spans[1][1]"), 560);
  assert_int_equal(je_u64(tl, "tracks[3].spans[1][2]"), 8);
  assert_int_equal(je_u64(tl, "tracks[5].gap_cycles"), 0);
  cs_jfree(d);
  free(text);
  sim_result_free(&r);
  trc_timeline_destroy(t);
  sim_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_timeline_merges_touching_and_keeps_gaps),
      cmocka_unit_test(test_timeline_bounds_spans_and_keeps_busy_exact),
      cmocka_unit_test(test_timeline_coarsening_keeps_far_bursts_apart),
      cmocka_unit_test(test_timeline_of_a_run),
  };
  return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
