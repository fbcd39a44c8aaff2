/* bench — throughput of the simulator itself: how fast the functional model (record phase) and
 * the timing engine (replay) run on this host, for ATB Linear at 512^3 and 2048^3, with data and
 * timing-only. Figures are wall-clock and therefore noisy on shared machines: compare the ratios
 * printed in one run, not numbers across machines. `cmake --build build --target bench`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/kn_op.h"
#include "sim/sim.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct row {
  unsigned size;
  bool timing_only;
  double total_s, replay_s;
  uint64_t insns, macs, cycles;
} row;

static int run_linear(const sim_config *cfg, unsigned size, bool timing_only, row *r) {
  kn_run_options o = {cfg, timing_only, NULL, false, 1};
  kn_ctx *ctx;
  cs_err err;
  char v[32];
  if (kn_ctx_create(kn_op_find("linear"), &o, &ctx, &err) != CS_OK) goto fail;
  snprintf(v, sizeof v, "%u", size);
  if (kn_ctx_set_attr(ctx, "m", v, &err) || kn_ctx_set_attr(ctx, "n", v, &err) ||
      kn_ctx_set_attr(ctx, "k", v, &err))
    goto fail;
  /* inputs are generated outside the timed region */
  if (kn_ctx_op(ctx)->make_inputs(ctx, &err) != CS_OK) goto fail;
  double t0 = now_s();
  if (kn_ctx_run(ctx, &err) != CS_OK) goto fail;
  double t1 = now_s();
  /* the replay alone, again on the recorded streams */
  sim_result res;
  sim_run_options ro = {NULL, false};
  if (sim_run(kn_get_sim(ctx), &ro, &res, &err) != CS_OK) goto fail;
  double t2 = now_s();
  r->size = size;
  r->timing_only = timing_only;
  r->total_s = t1 - t0;
  r->replay_s = t2 - t1;
  r->insns = res.stats.instructions;
  r->macs = res.stats.macs;
  r->cycles = res.total_cycles;
  sim_result_free(&res);
  kn_ctx_destroy(ctx);
  return 0;
fail:
  fprintf(stderr, "bench: %s\n", err.msg);
  return 1;
}

int main(void) {
  sim_config cfg;
  sim_config_derived d;
  cs_err err;
  if (sim_config_resolve(NULL, &cfg, &d, &err) != CS_OK) {
    fprintf(stderr, "bench: %s\n", err.msg);
    return 1;
  }
  row rows[4];
  unsigned sizes[2] = {512, 2048};
  int n = 0;
  for (int s = 0; s < 2; s++)
    for (int t = 1; t >= 0; t--)
      if (run_linear(&cfg, sizes[s], t == 1, &rows[n++])) return 1;
  printf("cubesim bench: ATB Linear (int8, per-channel fp16 dequant) on the built-in %s, %u cores\n\n",
         cfg.chip_name, (unsigned)cfg.chip_cores);
  printf("%-7s %-12s %12s %10s %10s %12s %14s %14s %16s\n", "shape", "mode", "instructions", "wall s",
         "record s", "replay s", "record insn/s", "replay insn/s", "simulated MAC/s");
  for (int i = 0; i < n; i++) {
    row *r = &rows[i];
    double record = r->total_s - r->replay_s;
    char shape[16];
    snprintf(shape, sizeof shape, "%u^3", r->size);
    printf("%-7s %-12s %12llu %10.3f %10.3f %12.3f %14.3g %14.3g %16.3g\n", shape,
           r->timing_only ? "timing-only" : "functional", (unsigned long long)r->insns, r->total_s, record,
           r->replay_s, record > 0 ? (double)r->insns / record : 0, r->replay_s > 0 ? (double)r->insns / r->replay_s : 0,
           (double)r->macs / r->total_s);
  }
  printf("\nratios in this run: functional / timing-only wall time at 512^3 %.1fx, at 2048^3 %.1fx;\n"
         "simulated cycles: %llu (512^3), %llu (2048^3)\n",
         rows[1].total_s / rows[0].total_s, rows[3].total_s / rows[2].total_s, (unsigned long long)rows[0].cycles,
         (unsigned long long)rows[2].cycles);
  return 0;
}
