/* bench — how fast the simulator itself runs on this host, printed in one run
 * (`cmake --build build --target bench`):
 *
 *   1. functional model: a 2048^3 matmul on one simulated core, per input type, in GMAC/s of the
 *      record phase (the functional model) and of the whole run (record + timing replay);
 *   2. the same shape through the host's OpenBLAS cblas_sgemm on one thread, and the ratios
 *      (skipped with a note when the build found no OpenBLAS);
 *   3. timing-only: instructions per second and bytes of host memory per instruction;
 *   4. traces: bytes per instruction of each trace format and the slowdown of writing it.
 *
 * Wall-clock figures are noisy on a shared machine: compare the ratios printed in one run, not
 * figures across runs or machines. The README's speed table comes from this output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kn_op.h"
#include "sim/sim.h"
#include "sim/sim_trace.h"

#ifdef CUBESIM_BENCH_OPENBLAS
#include <cblas.h>
#endif

#define FUNC_SIZE 2048u   /* functional matmuls: FUNC_SIZE^3 on one core */
#define TIMING_SIZE 8192u /* timing-only fp16 matmul on the configured cores */
#define TRACE_SIZE 2048u  /* traced timing-only fp16 matmul */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Peak resident memory of this process so far, bytes. */
static double peak_rss_bytes(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss * 1024.0;
}

/* What one operator run measured. */
typedef struct run_figures {
  double run_s;    /* kn_ctx_run: record and replay */
  double replay_s; /* a second replay of the recorded streams alone */
  uint64_t insns, macs;
} run_figures;

typedef struct run_spec {
  const char *op;      /* "matmul" */
  const char *in_dtype;
  unsigned size;       /* m = n = k */
  unsigned cores;      /* 0: as configured */
  bool timing_only;
  sim_trace *trace;    /* NULL: none */
} run_spec;

static int fail(const cs_err *err) {
  fprintf(stderr, "bench: %s\n", err->msg);
  return 1;
}

static int run_op(const sim_config *base, const run_spec *sp, run_figures *r) {
  sim_config cfg = *base;
  if (sp->cores) cfg.chip_cores = sp->cores;
  kn_run_options o = {&cfg, sp->timing_only, sp->trace, false, 1};
  kn_ctx *ctx = NULL;
  cs_err err;
  char v[32];
  snprintf(v, sizeof v, "%u", sp->size);
  if (kn_ctx_create(kn_op_find(sp->op), &o, &ctx, &err) != CS_OK || kn_ctx_set_attr(ctx, "m", v, &err) ||
      kn_ctx_set_attr(ctx, "n", v, &err) || kn_ctx_set_attr(ctx, "k", v, &err) ||
      (sp->in_dtype && kn_ctx_set_attr(ctx, "in_dtype", sp->in_dtype, &err)))
    goto fail;
  /* inputs are generated outside the timed region */
  if (kn_ctx_op(ctx)->make_inputs(ctx, &err) != CS_OK) goto fail;
  double t0 = now_s();
  if (kn_ctx_run(ctx, &err) != CS_OK) goto fail;
  double t1 = now_s();
  sim_result res;
  sim_run_options ro = {NULL, false};
  if (sim_run(kn_get_sim(ctx), &ro, &res, &err) != CS_OK) goto fail;
  r->replay_s = now_s() - t1;
  r->run_s = t1 - t0;
  r->insns = res.stats.instructions;
  r->macs = res.stats.macs;
  sim_result_free(&res);
  kn_ctx_destroy(ctx);
  return 0;
fail:
  kn_ctx_destroy(ctx);
  return fail(&err);
}

/* MAC rate of cblas_sgemm on n x n x n, one thread; 0 without OpenBLAS. */
static double sgemm_macs_per_s(unsigned n, const char **core) {
#ifdef CUBESIM_BENCH_OPENBLAS
  size_t count = (size_t)n * n;
  float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b), *c = malloc(count * sizeof *c);
  if (!a || !b || !c) {
    free(a), free(b), free(c);
    return 0;
  }
  for (size_t i = 0; i < count; i++) {
    a[i] = (float)(i % 7) - 3.0f;
    b[i] = (float)(i % 5) - 2.0f;
  }
  openblas_set_num_threads(1);
  *core = openblas_get_corename();
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, a, (int)n, b, (int)n, 0.0f,
              c, (int)n); /* warm up: pages, caches */
  double t0 = now_s();
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, a, (int)n, b, (int)n, 0.0f,
              c, (int)n);
  double s = now_s() - t0;
  free(a), free(b), free(c);
  return (double)n * n * n / s;
#else
  (void)n;
  *core = NULL;
  return 0;
#endif
}

/* Section 3: timing-only throughput and memory. Runs first, so the peak RSS it reads is its own. */
static int bench_timing_only(const sim_config *cfg) {
  run_figures r;
  double rss0 = peak_rss_bytes();
  run_spec sp = {"matmul", "fp16", TIMING_SIZE, 0, true, NULL};
  if (run_op(cfg, &sp, &r)) return 1;
  double rss = peak_rss_bytes() - rss0;
  double record = r.run_s - r.replay_s;
  printf("timing-only fp16 matmul %u^3 on %u cores: %llu instructions, %.2f s (record %.2f s, replay %.2f s)\n",
         TIMING_SIZE, (unsigned)cfg->chip_cores, (unsigned long long)r.insns, r.run_s, record, r.replay_s);
  printf("  %.3g instructions/s (record %.3g/s, replay %.3g/s); peak memory +%.0f MiB = %.0f bytes per instruction\n\n",
         (double)r.insns / r.run_s, (double)r.insns / record, (double)r.insns / r.replay_s, rss / (1 << 20),
         rss / (double)r.insns);
  return 0;
}

/* Section 1 and 2. */
static int bench_functional(const sim_config *cfg) {
  static const char *const dtypes[] = {"int8", "int4", "fp16", "bf16"};
  const char *core = NULL;
  double blas = sgemm_macs_per_s(FUNC_SIZE, &core);
  printf("functional matmul %u^3 on one core (GMAC/s: record = the functional model; run = record + replay)\n",
         FUNC_SIZE);
  if (blas > 0)
    printf("OpenBLAS %s cblas_sgemm, one thread, same shape: %.1f GMAC/s\n", core ? core : "", blas / 1e9);
  else
    printf("OpenBLAS: not found when this bench was built (libopenblas-dev); no ratios\n");
  printf("%-6s %10s %10s %12s %12s", "dtype", "run s", "replay s", "record GMAC/s", "run GMAC/s");
  if (blas > 0) printf(" %16s %16s", "record / sgemm", "run / sgemm");
  printf("\n");
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
    run_figures r;
    run_spec sp = {"matmul", dtypes[i], FUNC_SIZE, 1, false, NULL};
    if (run_op(cfg, &sp, &r)) return 1;
    double rec = (double)r.macs / (r.run_s - r.replay_s), run = (double)r.macs / r.run_s;
    printf("%-6s %10.3f %10.3f %12.2f %12.2f", dtypes[i], r.run_s, r.replay_s, rec / 1e9, run / 1e9);
    if (blas > 0) printf("       1/%-8.2f       1/%-8.2f", blas / rec, blas / run);
    printf("\n");
  }
  printf("\n");
  return 0;
}

/* Section 4: the same timing-only run without and with a trace of each format. */
static int bench_traces(const sim_config *cfg) {
  run_figures base;
  run_spec sp = {"matmul", "fp16", TRACE_SIZE, 0, true, NULL};
  if (run_op(cfg, &sp, &base)) return 1;
  printf("traces of a timing-only fp16 matmul %u^3 on %u cores (%llu instructions, %.3f s without a trace)\n",
         TRACE_SIZE, (unsigned)cfg->chip_cores, (unsigned long long)base.insns, base.run_s);
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char path[4096];
  snprintf(path, sizeof path, "%s/cubesim-bench-%ld.json", dir, (long)getpid());
  cs_err err;
  if (sim_trace_open(path, cfg, &sp.trace, &err) != CS_OK) return fail(&err);
  run_figures r;
  int rc = run_op(cfg, &sp, &r);
  if (sim_trace_close(sp.trace, rc == 0, &err) != CS_OK) return fail(&err);
  if (rc) return 1;
  FILE *f = fopen(path, "rb");
  long bytes = -1;
  if (f && fseek(f, 0, SEEK_END) == 0) bytes = ftell(f);
  if (f) fclose(f);
  remove(path);
  printf("  %-8s %8.1f bytes per instruction, run %.2fx the time without a trace\n", "json",
         (double)bytes / (double)r.insns, r.run_s / base.run_s);
  return 0;
}

int main(void) {
  sim_config cfg;
  sim_config_derived d;
  cs_err err;
  if (sim_config_resolve(NULL, &cfg, &d, &err) != CS_OK) return fail(&err);
  printf("cubesim bench on the built-in %s (%u cores, %u MHz)\n\n", cfg.chip_name, (unsigned)cfg.chip_cores,
         (unsigned)cfg.chip_clock_mhz);
  if (bench_timing_only(&cfg) || bench_functional(&cfg) || bench_traces(&cfg)) return 1;
  return 0;
}
