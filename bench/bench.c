/* bench — how fast the simulator itself runs on this host, printed in one run
 * (`cmake --build build --target bench`, or `cubesim_bench [section...]`):
 *
 *   timing      timing-only: instructions per second and bytes of host memory per instruction;
 *   functional  a 2048^3 matmul on one simulated core, per input type, in GMAC/s of the record
 *               phase (the functional model) and of the whole run (record + timing replay),
 *               against the same shape through the host's OpenBLAS cblas_sgemm on one thread
 *               (skipped with a note when the build found no OpenBLAS);
 *   kernels     one mmad instruction alone, with each kernel the host supports (isa/isa_kernel.h);
 *   trace       bytes per instruction of each trace format, and the slowdown of writing it.
 *
 * Every run takes the tiling of the analytic estimate (tiling=analytic): what is measured is the
 * simulator, not the tiling search, which times candidate tilings on the timing model.
 *
 * Every measurement runs in a process of its own (the bench runs itself with --case), so none
 * inherits another's warm heap, and peak memory is its own. A functional run is measured cold
 * (as `cubesim run` sees it: first touches of fresh host memory included, a page fault per 4 KiB
 * that a virtual machine makes dear) and warm (its third run in the process). Times are CPU
 * seconds of the process (the simulator is single-threaded; OpenBLAS runs with
 * OPENBLAS_NUM_THREADS=1, so no idle worker threads count, and sgemm's rate is the fastest of
 * SGEMM_ROUNDS runs after a warm-up);
 * they still vary on a shared machine (caches, memory bandwidth): compare the ratios printed in
 * one run, not figures across runs or machines. The README's speed table comes from this output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "isa/isa_kernel.h"
#include "isa/isa_num.h"
#include "isa/isa_text.h"
#include "kernels/kn_op.h"
#include "sim/sim.h"
#include "sim/sim_trace.h"

#ifdef CUBESIM_BENCH_OPENBLAS
#include <cblas.h>
#endif

#define FUNC_SIZE 2048u   /* functional matmuls: FUNC_SIZE^3 on one core */
#define TIMING_SMALL_SIZE 1024u /* timing-only, for the memory that does not grow */
#define TIMING_SIZE 8192u        /* timing-only fp16 matmuls on the configured cores: this, */
#define TIMING_LARGE_SIZE 16384u /* and this (about 8 times the instructions) */
#define TRACE_SIZE 4096u  /* traced timing-only fp16 matmul */
#define SGEMM_ROUNDS 5    /* sgemm's rate: the fastest of these runs */

/* CPU seconds of this process: on a machine shared with other work, wall-clock time counts
 * theirs too. Everything measured runs on this one thread (OpenBLAS is told to use one). */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall-clock seconds (the hazard check may run on a thread of its own beside the replay). */
static double wall_s(void) {
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
  double record_s; /* of it, the record (to its last progress report; 0 for a short one) */
  double replay_s; /* a second replay of the recorded streams alone */
  double traced_s; /* the same, writing the trace (open to close included) */
  double run_wall_s; /* kn_ctx_run in wall-clock time */
  uint64_t insns, macs;
} run_figures;

typedef struct run_spec {
  const char *op;      /* "matmul" */
  const char *in_dtype;
  unsigned size;       /* m = n = k */
  unsigned cores;      /* 0: as configured */
  bool timing_only;
  const char *trace;   /* NULL: no traced replay */
} run_spec;

static int fail(const cs_err *err) {
  fprintf(stderr, "bench: %s\n", err->msg);
  return 1;
}

/* The CPU time of the record phase: the last progress report of the record (one every
 * SIM_PROGRESS_STEP instructions recorded) is at most that many instructions before its end. */
typedef struct record_clock {
  double t0, last;
} record_clock;

static void note_record(void *ctx, const sim_progress *p) {
  record_clock *rc = ctx;
  if (!p->replaying) rc->last = now_s() - rc->t0;
}

static int run_op(const sim_config *base, const run_spec *sp, run_figures *r) {
  sim_config cfg = *base;
  if (sp->cores) cfg.chip_aic_cores = sp->cores;
  record_clock rc = {0, 0};
  sim_progress_hook hook = {note_record, &rc};
  kn_run_options o = {.cfg = &cfg, .timing_only = sp->timing_only, .seed = 1, .progress = &hook};
  kn_ctx *ctx = NULL;
  cs_err err;
  char v[32];
  snprintf(v, sizeof v, "%u", sp->size);
  if (kn_ctx_create(kn_op_find(sp->op), &o, &ctx, &err) != CS_OK || kn_ctx_set_attr(ctx, "m", v, &err) ||
      kn_ctx_set_attr(ctx, "n", v, &err) || kn_ctx_set_attr(ctx, "k", v, &err) ||
      (sp->in_dtype && kn_ctx_set_attr(ctx, "in_dtype", sp->in_dtype, &err)) ||
      kn_ctx_set_attr(ctx, "tiling", "analytic", &err)) /* the simulator, not the tiler's search */
    goto fail;
  /* inputs are generated outside the timed region */
  if (kn_ctx_op(ctx)->make_inputs(ctx, &err) != CS_OK) goto fail;
  double t0 = now_s(), w0 = wall_s();
  rc.t0 = t0;
  if (kn_ctx_run(ctx, &err) != CS_OK) goto fail;
  r->run_s = now_s() - t0;
  r->record_s = rc.last;
  r->run_wall_s = wall_s() - w0;
  /* the replay alone, again on the recorded streams: the fastest of a few (and with a trace,
   * alternating, so both see the machine alike) */
  sim_result res;
  sim_run_options ro = {0};
  r->replay_s = r->traced_s = 1e300;
  for (int round = 0; round < (sp->trace ? 3 : 1); round++) {
    double t1 = now_s();
    ro.trace = NULL;
    if (sim_run(rt_device_sim(kn_device(ctx)), &ro, &res, &err) != CS_OK) goto fail;
    double t2 = now_s();
    if (t2 - t1 < r->replay_s) r->replay_s = t2 - t1;
    if (!sp->trace) break;
    sim_result_free(&res);
    sim_trace *tr;
    if (sim_trace_open(sp->trace, &cfg, &tr, &err) != CS_OK) goto fail;
    ro.trace = tr;
    cs_status st = sim_run(rt_device_sim(kn_device(ctx)), &ro, &res, &err);
    if (sim_trace_close(tr, st == CS_OK, st == CS_OK ? &err : NULL) != CS_OK || st != CS_OK) goto fail;
    if (now_s() - t2 < r->traced_s) r->traced_s = now_s() - t2;
    if (round < 2) sim_result_free(&res);
  }
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
  double s = 1e300; /* the fastest of a few: sgemm at its best, whatever the machine's neighbours do */
  for (int round = 0; round < SGEMM_ROUNDS; round++) {
    double t0 = now_s();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, a, (int)n, b, (int)n, 0.0f,
                c, (int)n);
    if (now_s() - t0 < s) s = now_s() - t0;
  }
  free(a), free(b), free(c);
  return (double)n * n * n / s;
#else
  (void)n;
  *core = NULL;
  return 0;
#endif
}

/* ---- timing: timing-only throughput and memory ------------------------------------------- */

static int case_timing(const sim_config *cfg, unsigned size) {
  run_figures r;
  double rss0 = peak_rss_bytes();
  run_spec sp = {"matmul", "fp16", size, 0, true, NULL};
  if (run_op(cfg, &sp, &r)) return 1;
  double rss = peak_rss_bytes() - rss0;
  double record = r.record_s, replay = r.run_s - r.record_s;
  printf("timing-only fp16 matmul %u^3 on %u cores: %llu instructions, %.2f s of CPU (the launch, counting the "
         "instructions, %.2f s; then the run, recording them again as it replays them, and the hazard check "
         "%.2f s; the run again %.2f s)\n",
         size, (unsigned)cfg->chip_aic_cores, (unsigned long long)r.insns, r.run_s, record, replay,
         r.replay_s);
  printf("  %.3g instructions/s (launch %.3g/s, run %.3g/s); peak memory +%.1f MiB = %.2f bytes per instruction\n",
         (double)r.insns / r.run_s, record > 0 ? (double)r.insns / record : 0.0, (double)r.insns / replay,
         rss / (1 << 20), rss / (double)r.insns);
  printf("  wall clock %.2f s (CPU seconds above: every thread's; the cores' records and the hazard check beside the "
         "replay on %ld host processors)\n",
         r.run_wall_s, sysconf(_SC_NPROCESSORS_ONLN));
  return 0;
}

/* ---- functional: one core, per input type ----------------------------------------------- */

#define FUNC_HEADER "%-6s %9s %9s %9s %9s %9s"

/* One row: the run cold, then twice more, the last one warm (the first runs leave glibc's heap
 * ready for the sizes the run allocates); blas: sgemm's MAC rate (0: none). */
static int case_functional(const sim_config *cfg, const char *dtype, double blas) {
  run_figures cold, warm;
  run_spec sp = {"matmul", dtype, FUNC_SIZE, 1, false, NULL};
  if (run_op(cfg, &sp, &cold) || run_op(cfg, &sp, &warm) || run_op(cfg, &sp, &warm)) return 1;
  double rec_cold = (double)cold.macs / (cold.run_s - cold.replay_s);
  double rec_warm = (double)warm.macs / (warm.run_s - warm.replay_s);
  printf("%-6s %9.3f %9.3f %9.2f %9.2f %9.2f", dtype, cold.run_s, cold.replay_s, rec_cold / 1e9,
         rec_warm / 1e9, (double)cold.macs / cold.run_s / 1e9);
  if (blas > 0) printf("   1/%-7.2f 1/%-7.2f", blas / rec_cold, blas / rec_warm);
  printf("\n");
  return 0;
}

/* ---- kernels: the mmad instruction alone ------------------------------------------------ */

/* A flat host memory per buffer, for running single instructions outside a simulator. */
typedef struct flat_mach {
  uint8_t *mem[ISA_MEM_COUNT];
} flat_mach;

static uint8_t *flat_ptr(void *ctx, isa_mem mem, uint64_t off, uint64_t bytes) {
  (void)bytes;
  return ((flat_mach *)ctx)->mem[mem] + off;
}

#define FLAT_BYTES (256u * 1024u)

/* GMAC/s of one mmad of the matmul kernels' shape (128 x 256, one L0 k-tile) run repeatedly. */
static double mmad_rate(isa_kernel kernel, isa_dtype dt, flat_mach *fm) {
  isa_host *host;
  cs_err err;
  if (isa_host_create(kernel, &host, &err) != CS_OK) return 0;
  char text[160];
  snprintf(text, sizeof text, "mmad dst=L0C:0 a=L0A:0 b=L0B:0 dtype=%s m=128 n=256 k=%u init_c=0",
           isa_dtype_name(dt), 4 * isa_dtype_c0(dt)); /* four k-blocks: 64 fp16, 128 int8, 256 int4 */
  isa_insn in;
  if (isa_asm_line(text, &in, &err) != CS_OK) {
    isa_host_destroy(host);
    fail(&err);
    return 0;
  }
  isa_mach m = {fm, flat_ptr, {true}, host};
  uint64_t macs = 0;
  double t0 = now_s(), t = t0;
  while (t - t0 < 0.2) {
    for (int r = 0; r < 8; r++) isa_insn_exec(&in, &m);
    macs += 8ull * in.u.mmad.m * in.u.mmad.n * in.u.mmad.k;
    t = now_s();
  }
  isa_host_destroy(host);
  return (double)macs / (t - t0);
}

static int case_kernels(void) {
  static const isa_dtype dts[] = {ISA_INT8, ISA_INT4, ISA_FP16, ISA_BF16};
  flat_mach fm;
  for (int b = 0; b < ISA_MEM_COUNT; b++)
    if (!(fm.mem[b] = calloc(1, FLAT_BYTES))) return 1;
  printf("one mmad 128 x 256 x (4 k-blocks), repeated (GMAC/s of CPU time)\n%-6s", "dtype");
  for (int k = ISA_KERNEL_SCALAR; k < ISA_KERNEL_COUNT; k++)
    if (isa_kernel_supported((isa_kernel)k)) printf(" %12s", isa_kernel_name((isa_kernel)k));
  printf("\n");
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
    /* operands as the matmul's generated inputs: integers of any value, floats uniform in
     * [-1, 1) rounded to the type */
    uint64_t seed = 1;
    for (int b = ISA_MEM_L0A; b <= ISA_MEM_L0B; b++)
      for (size_t i = 0; i < FLAT_BYTES; i += 2) {
        float f = (float)(kn_rng_unit(&seed) * 2 - 1);
        uint16_t v = dts[d] == ISA_FP16   ? isa_f32_to_f16(f)
                     : dts[d] == ISA_BF16 ? isa_f32_to_bf16(f)
                                          : (uint16_t)kn_rng_next(&seed);
        fm.mem[b][i] = (uint8_t)v, fm.mem[b][i + 1] = (uint8_t)(v >> 8);
      }
    printf("%-6s", isa_dtype_name(dts[d]));
    for (int k = ISA_KERNEL_SCALAR; k < ISA_KERNEL_COUNT; k++)
      if (isa_kernel_supported((isa_kernel)k)) printf(" %12.2f", mmad_rate((isa_kernel)k, dts[d], &fm) / 1e9);
    printf("\n");
  }
  printf("\n");
  for (int b = 0; b < ISA_MEM_COUNT; b++) free(fm.mem[b]);
  return 0;
}

/* ---- trace: bytes per instruction and slowdown, per format -------------------------------- */

/* A timing-only run, its replay timed without and then with a trace. */
static int case_trace(const sim_config *cfg, const char *format) {
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char path[4096];
  snprintf(path, sizeof path, "%s/cubesim-bench-%ld.%s", dir, (long)getpid(), format);
  run_figures r;
  run_spec sp = {"matmul", "fp16", TRACE_SIZE, 0, true, path};
  if (run_op(cfg, &sp, &r)) return 1;
  FILE *f = fopen(path, "rb");
  long bytes = -1;
  if (f && fseek(f, 0, SEEK_END) == 0) bytes = ftell(f);
  if (f) fclose(f);
  remove(path);
  printf("  %-16s %8.1f bytes per instruction; replay %.2fx the time without a trace (%.3f s), the whole run %.2fx\n",
         format, (double)bytes / (double)r.insns, r.traced_s / r.replay_s, r.replay_s,
         (r.run_s - r.replay_s + r.traced_s) / r.run_s);
  return 0;
}

/* ---- the driver ------------------------------------------------------------------------------ */

/* Runs `self --case args...` and waits for it; its output goes where ours goes. */
static int spawn_case(const char *self, const char *const *args) {
  char *argv[8];
  int n = 0;
  argv[n++] = (char *)self;
  argv[n++] = "--case";
  for (; *args && n < 7; args++) argv[n++] = (char *)*args;
  argv[n] = NULL;
  fflush(stdout);
  pid_t pid;
  extern char **environ;
  if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0) {
    fprintf(stderr, "bench: cannot run %s\n", self);
    return 1;
  }
  int status;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  return 0;
}

static const char *const func_dtypes[] = {"int8", "int4", "fp16", "bf16"};
static const char *const trace_formats[] = {"json", "perfetto-trace"};

static int section_timing(const char *self, const sim_config *cfg) {
  (void)cfg;
  /* a small one first: what the memory takes whatever the instruction count */
  const unsigned sizes[] = {TIMING_SMALL_SIZE, TIMING_SIZE, TIMING_LARGE_SIZE};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char size[16];
    snprintf(size, sizeof size, "%u", sizes[i]);
    const char *args[] = {"timing", size, NULL};
    if (spawn_case(self, args)) return 1;
  }
  printf("\n");
  return 0;
}

static int section_functional(const char *self, const sim_config *cfg) {
  (void)cfg;
  const char *core = NULL;
  double blas = sgemm_macs_per_s(FUNC_SIZE, &core);
  printf("functional matmul %u^3 on one core; GMAC/s of CPU time: record = the functional model (cold: first\n"
         "run in its process, warm: its third run), run = record + replay, cold\n",
         FUNC_SIZE);
  if (blas > 0)
    printf("OpenBLAS %s cblas_sgemm, one thread, same shape: %.1f GMAC/s\n", core ? core : "", blas / 1e9);
  else
    printf("OpenBLAS: not found when this bench was built (libopenblas-dev); no ratios\n");
  printf(FUNC_HEADER, "dtype", "run s", "replay s", "rec cold", "rec warm", "run");
  if (blas > 0) printf("   %-9s %-9s", "cold/sgemm", "warm/sgemm");
  printf("\n");
  char rate[32];
  snprintf(rate, sizeof rate, "%.6g", blas);
  for (size_t i = 0; i < sizeof func_dtypes / sizeof func_dtypes[0]; i++) {
    const char *args[] = {"functional", func_dtypes[i], rate, NULL};
    if (spawn_case(self, args)) return 1;
  }
  printf("\n");
  return 0;
}

static int section_kernels(const char *self, const sim_config *cfg) {
  (void)cfg;
  const char *args[] = {"kernels", NULL};
  return spawn_case(self, args);
}

static int section_trace(const char *self, const sim_config *cfg) {
  printf("traces of a timing-only fp16 matmul %u^3 on %u cores\n", TRACE_SIZE, (unsigned)cfg->chip_aic_cores);
  for (size_t i = 0; i < sizeof trace_formats / sizeof trace_formats[0]; i++) {
    const char *args[] = {"trace", trace_formats[i], NULL};
    if (spawn_case(self, args)) return 1;
  }
  return 0;
}

/* The sections by name: `cubesim_bench [section...]` runs only those (default: all). */
static const struct {
  const char *name;
  int (*run)(const char *self, const sim_config *cfg);
} sections[] = {{"timing", section_timing},
                {"functional", section_functional},
                {"kernels", section_kernels},
                {"trace", section_trace}};

/* A child's measurement: `--case timing SIZE`, `--case functional DTYPE SGEMM_RATE`, `--case kernels`,
 * `--case trace FORMAT`. */
static int run_case(int argc, char **argv, const sim_config *cfg) {
  if (argc >= 2 && strcmp(argv[0], "timing") == 0) return case_timing(cfg, (unsigned)strtoul(argv[1], NULL, 10));
  if (argc >= 3 && strcmp(argv[0], "functional") == 0) return case_functional(cfg, argv[1], strtod(argv[2], NULL));
  if (argc >= 1 && strcmp(argv[0], "kernels") == 0) return case_kernels();
  if (argc >= 2 && strcmp(argv[0], "trace") == 0) return case_trace(cfg, argv[1]);
  fprintf(stderr, "bench: unknown case\n");
  return 2;
}

int main(int argc, char **argv) {
#ifdef CUBESIM_BENCH_OPENBLAS
  /* OpenBLAS starts its worker threads when it is loaded, before openblas_set_num_threads can
   * stop it, and idle workers spin: CPU time of this process that is neither sgemm's nor the
   * simulator's. Told by the environment, it starts none (in this process and in every case). */
  if (!getenv("OPENBLAS_NUM_THREADS") && setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0) {
    execv("/proc/self/exe", argv);
    fprintf(stderr, "bench: cannot run itself again with OPENBLAS_NUM_THREADS=1; sgemm's figures may count idle threads\n");
  }
#endif
  sim_config cfg;
  sim_config_derived d;
  cs_err err;
  if (sim_config_resolve(NULL, &cfg, &d, &err) != CS_OK) return fail(&err);
  if (argc >= 2 && strcmp(argv[1], "--case") == 0) return run_case(argc - 2, argv + 2, &cfg);
  size_t count = sizeof sections / sizeof sections[0];
  for (int a = 1; a < argc; a++) {
    size_t s = 0;
    while (s < count && strcmp(argv[a], sections[s].name) != 0) s++;
    if (s == count) {
      fprintf(stderr, "bench: unknown section '%s' (timing, functional, kernels, trace)\n", argv[a]);
      return 2;
    }
  }
  printf("cubesim bench on the built-in %s (%u cores, %u MHz)\n\n", cfg.chip_name, (unsigned)cfg.chip_aic_cores,
         (unsigned)cfg.chip_clock_mhz);
  for (size_t s = 0; s < count; s++) {
    bool wanted = argc == 1;
    for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], sections[s].name) == 0;
    if (wanted && sections[s].run(argv[0], &cfg)) return 1;
  }
  return 0;
}
