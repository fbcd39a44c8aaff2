/* Tests of the progress hook (sim/sim.h, sim_progress_hook): called every SIM_PROGRESS_STEP
 * instructions recorded, then every SIM_PROGRESS_STEP completed in the replay, with the counts
 * and the simulated time; never for a shorter run. And the line the command line prints from
 * it (cli/cli.h, cli_progress_line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cli/cli.h"
#include "sim/sim.h"
#include "support/insn_build.h"
#include "support/sim_build.h"

typedef struct seen {
  sim_progress calls[8];
  int n;
} seen;

static void record_call(void *ctx, const sim_progress *p) {
  seen *s = ctx;
  if (s->n < 8) s->calls[s->n] = *p;
  s->n++;
}

/* `count` zero-time barriers on core 0, replayed. */
static void run(unsigned count, seen *s, sim_result *r) {
  sim_config cfg;
  sb_round_config(&cfg, 1);
  sim_progress_hook hook = {record_call, s};
  sim_options o = {.progress = &hook, .timing_only = true};
  sim *sm;
  assert_int_equal(sim_create(&cfg, &o, &sm, NULL), CS_OK);
  for (unsigned i = 0; i < count; i++) sb_issue(sm, 0, ib_barrier(ISA_PIPE_V));
  sim_run_options ro = {0};
  assert_int_equal(sim_run(sm, &ro, r, NULL), CS_OK);
  sim_destroy(sm);
}

static void test_progress_every_step(void **state) {
  (void)state;
  seen s;
  memset(&s, 0, sizeof s);
  sim_result r;
  run(SIM_PROGRESS_STEP * 2 + 100, &s, &r);
  assert_int_equal(s.n, 4); /* two while recording, two while replaying */
  for (int i = 0; i < 2; i++) {
    assert_false(s.calls[i].replaying);
    assert_int_equal(s.calls[i].recorded, SIM_PROGRESS_STEP * (uint64_t)(i + 1));
  }
  for (int i = 2; i < 4; i++) {
    assert_true(s.calls[i].replaying);
    assert_int_equal(s.calls[i].recorded, SIM_PROGRESS_STEP * 2 + 100);
    assert_int_equal(s.calls[i].total, SIM_PROGRESS_STEP * 2 + 100);
    assert_int_equal(s.calls[i].replayed, SIM_PROGRESS_STEP * (uint64_t)(i - 1));
    assert_true(s.calls[i].cycles <= r.total_cycles);
  }
  assert_true(s.calls[2].cycles <= s.calls[3].cycles);
  sim_result_free(&r);
  /* a shorter run never calls */
  memset(&s, 0, sizeof s);
  run(SIM_PROGRESS_STEP - 1, &s, &r);
  assert_int_equal(s.n, 0);
  sim_result_free(&r);
}

static void test_progress_line_text(void **state) {
  (void)state;
  char line[200];
  sim_progress rec = {.recorded = 131072};
  cli_progress_line(&rec, 1850, 0, line, sizeof line);
  assert_string_equal(line, "recording: 131072 instructions");
  /* a quarter done in 2 s: 6 s to go; 1850 cycles a microsecond */
  sim_progress rep = {.replaying = true, .recorded = 400, .replayed = 100, .total = 400, .cycles = 3700};
  cli_progress_line(&rep, 1850, 2.0, line, sizeof line);
  assert_string_equal(line, "replaying: 100 of 400 instructions (25%), 2.0 us simulated, ETA 6 s");
  /* no ETA before anything completed */
  rep.replayed = 0;
  cli_progress_line(&rep, 1850, 0.5, line, sizeof line);
  assert_string_equal(line, "replaying: 0 of 400 instructions (0%), 2.0 us simulated");
}

/* Not a terminal (a test's stderr is a file or a pipe): no hook at all. */
static void test_progress_silent_off_terminal(void **state) {
  (void)state;
  FILE *f = tmpfile();
  assert_non_null(f);
  cli_io io = {f, f};
  cli_progress p;
  cli_progress_init(&p, &io, "run", false, 1850);
  assert_null(cli_progress_hook(&p));
  cli_progress_init(&p, &io, "run", true, 1850);
  assert_null(cli_progress_hook(&p));
  cli_progress_done(&p);
  assert_int_equal(ftell(f), 0);
  fclose(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_progress_every_step),
      cmocka_unit_test(test_progress_line_text),
      cmocka_unit_test(test_progress_silent_off_terminal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
