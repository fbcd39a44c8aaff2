/* The timing model obeys its own limits (docs/TIMING.md, "Limits"), over 240 random runs of
 * the operators: matmuls of every input dtype, the int8 Linear, and the data_copy streams (slab,
 * same address, staggered, with and without the L2), on 1 to 24 cores, with random bandwidths
 * of HBM, the L2 port and MTE2, and random L2 sizes (small ones force evictions and
 * write-backs). For every run:
 *   - the replay's audit: no flow above what its engine streams alone, HBM and the L2 port never
 *     above their configured peaks at any moment;
 *   - the run's totals, checked here from the configuration alone: HBM bytes (fills and
 *     write-backs) over the run's time never above HBM's sustained peak, GM bytes never above the
 *     L2 port's, each core's MTE2 bytes never above MTE2's port over the cycles MTE2 was busy;
 *   - halving HBM's bandwidth, the L2 port's or MTE2's port never makes the run faster by 1 %
 *     or more, and faster at all (a scheduling anomaly) in at most 1 % of the comparisons.
 * The generator is a fixed splitmix64 sequence: the same 240 configurations on every host.
 *
 * Under the sanitizers the sweep takes minutes, so ctest runs it in blocks, one process each, that
 * ctest -j spreads over the cores (tests/CMakeLists.txt):
 *   test_kernels_limits                  everything in one process;
 *   test_kernels_limits sweep K/N FILE   block K of N of the sweep's cases, each case checked as
 *                                        above, and the block's counts written to FILE.K;
 *   test_kernels_limits total N FILE     the sweep's totals from FILE.1 .. FILE.N: every case
 *                                        checked once, the anomalies and the HBM-bound runs over
 *                                        all 240 as above;
 *   test_kernels_limits hbm              the two halved-HBM cases of the issue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kn_op.h"
#include "runtime/rt_tiling.h"
#include "sim/sim.h"

#define RUNS 240
#define SLACK 1e-9 /* rounding of the fluid model's doubles */

typedef struct rng {
  uint64_t s;
} rng;

static uint64_t next(rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint64_t pick(rng *r, uint64_t lo, uint64_t hi) { return lo + next(r) % (hi - lo + 1); }
static double pick_f(rng *r, double lo, double hi) { return lo + (hi - lo) * (double)(next(r) >> 11) / 9007199254740992.0; }

/* One random case: an operator with its attributes, and a configuration. */
typedef struct run_case {
  const char *op;
  char attr[12 + RT_TF_COUNT][2][32];
  int nattr;
  sim_config cfg;
  char what[256];
  bool pinned; /* the tiling's fields are among the attributes */
} run_case;

static void add(run_case *c, const char *k, uint64_t v) {
  snprintf(c->attr[c->nattr][0], sizeof c->attr[0][0], "%s", k);
  snprintf(c->attr[c->nattr][1], sizeof c->attr[0][1], "%" PRIu64, v);
  c->nattr++;
}
static void add_s(run_case *c, const char *k, const char *v) {
  snprintf(c->attr[c->nattr][0], sizeof c->attr[0][0], "%s", k);
  snprintf(c->attr[c->nattr][1], sizeof c->attr[0][1], "%s", v);
  c->nattr++;
}

static void make_case(rng *r, int i, run_case *c) {
  memset(c, 0, sizeof *c);
  sim_config_defaults(&c->cfg);
  unsigned cores = (unsigned)pick(r, 1, 24);
  c->cfg.chip_aic_cores = cores;
  c->cfg.gm_hbm_gb_per_s = pick_f(r, 150, 4000);
  c->cfg.l2_gb_per_s = pick_f(r, 400, 10000);
  c->cfg.mte2_gm_bytes_per_cycle = pick(r, 16, 512);
  c->cfg.l2_enabled = pick(r, 0, 9) != 0;
  /* 2^20 .. 2^27 bytes: small L2s evict (and write back) within these short runs */
  c->cfg.l2_bytes = (uint64_t)1 << pick(r, 20, 27);
  static const char *const mm_dtypes[] = {"fp16", "bf16", "int8", "int8"};
  switch (i % 4) {
    case 0:
    case 1: {
      c->op = "matmul";
      const char *dt = mm_dtypes[pick(r, 0, 3)];
      add_s(c, "in_dtype", dt);
      add(c, "m", pick(r, 1, 768));
      add(c, "n", pick(r, 1, 768));
      add(c, "k", pick(r, 1, 1024));
      if (pick(r, 0, 1)) add_s(c, "transpose_b", "true");
      break;
    }
    case 2:
      c->op = "linear";
      add(c, "m", pick(r, 1, 512));
      add(c, "n", pick(r, 16, 1024));
      add(c, "k", pick(r, 16, 1024));
      break;
    default: {
      static const char *const patterns[] = {"slab", "same", "staggered"};
      c->op = "data_copy";
      bool ub = pick(r, 0, 1) == 0; /* GM -> UB runs on the AIVs: m a multiple of theirs */
      add_s(c, "path", ub ? "ub" : "l1");
      add_s(c, "pattern", patterns[pick(r, 0, 2)]);
      add(c, "m", cores * (ub ? c->cfg.chip_aiv_per_aic : 1) * pick(r, 1, 64));
      add(c, "n", pick(r, 16, 4096));
      add(c, "tile_m", pick(r, 1, 64));
      add(c, "tile_n", pick(r, 16, 256));
      add(c, "passes", pick(r, 1, 3));
      if (pick(r, 0, 3) == 0) add_s(c, "l2_bypass", "true");
      break;
    }
  }
  int n = snprintf(c->what, sizeof c->what, "run %d: %s on %u cores, HBM %.0f GB/s, L2 %s %.0f GB/s %" PRIu64
                   " B, MTE2 %" PRIu64 " B/cycle:", i, c->op, cores, c->cfg.gm_hbm_gb_per_s,
                   c->cfg.l2_enabled ? "on" : "off", c->cfg.l2_gb_per_s, c->cfg.l2_bytes, c->cfg.mte2_gm_bytes_per_cycle);
  for (int a = 0; a < c->nattr && n > 0 && (size_t)n < sizeof c->what; a++)
    n += snprintf(c->what + n, sizeof c->what - (size_t)n, " %s=%s", c->attr[a][0], c->attr[a][1]);
}

/* Runs the case timing-only with configuration cfg; the result stays in *out. A matmul's tiling
 * search depends on the configuration: the first run's tiling is added to the case's attributes,
 * so that every later run of the case is the same program. */
static void run(run_case *c, const sim_config *cfg, sim_result *out) {
  cs_err err;
  if (sim_config_validate(cfg, &err) != CS_OK) fail_msg("%s %s", c->what, err.msg);
  kn_run_options o = {.cfg = cfg, .timing_only = true, .seed = 1};
  kn_ctx *ctx;
  assert_int_equal(kn_ctx_create(kn_op_find(c->op), &o, &ctx, &err), CS_OK);
  for (int a = 0; a < c->nattr; a++)
    if (kn_ctx_set_attr(ctx, c->attr[a][0], c->attr[a][1], &err) != CS_OK) fail_msg("%s %s", c->what, err.msg);
  if (kn_ctx_run(ctx, &err) != CS_OK) fail_msg("%s %s", c->what, err.msg);
  const sim_result *r = rt_device_result(kn_device(ctx));
  const rt_tiling *t = kn_get_tiling(ctx);
  if (t && !c->pinned) {
    for (int f = 0; f < RT_TF_COUNT; f++) {
      const rt_tiling_field *tf = rt_tiling_field_at(f);
      if (!tf->attr) continue;
      uint32_t v = rt_tiling_get(t, f);
      if (!tf->names) {
        add(c, tf->name, v);
        continue;
      }
      /* a named field is given by name: the v-th of the comma-separated list */
      const char *p = tf->names;
      for (uint32_t i = 0; i < v && p; i++) {
        p = strchr(p, ',');
        if (p) p++;
      }
      assert_non_null(p);
      char name[32];
      size_t len = strcspn(p, ",");
      assert_true(len < sizeof name);
      memcpy(name, p, len);
      name[len] = '\0';
      add_s(c, tf->name, name);
    }
    c->pinned = true;
  }
  *out = *r;
  out->stats.core = NULL; /* owned by the context */
  /* each core's MTE2 bytes over the cycles MTE2 was busy: never above its port */
  for (unsigned k = 0; k < r->stats.cores; k++) {
    const sim_core_stats *cs = &r->stats.core[k];
    uint64_t bytes = cs->path_bytes[ISA_PATH_GM_TO_L1] + cs->path_bytes[ISA_PATH_GM_TO_UB];
    double cap = (double)cfg->mte2_gm_bytes_per_cycle * (double)cs->pipe_busy_cycles[ISA_PIPE_MTE2];
    if ((double)bytes > cap * (1 + SLACK))
      fail_msg("%s core %u moved %" PRIu64 " MTE2 bytes in %" PRIu64 " busy cycles (port %" PRIu64 " B/cycle)", c->what,
               k, bytes, cs->pipe_busy_cycles[ISA_PIPE_MTE2], cfg->mte2_gm_bytes_per_cycle);
  }
  kn_ctx_destroy(ctx);
}

static void check_limits(const run_case *c, const sim_result *r) {
  const sim_config *cfg = &c->cfg;
  /* the configured peaks, in bytes per cycle, from the keys themselves */
  double hz = (double)cfg->chip_clock_mhz * 1e6;
  double hbm = cfg->gm_hbm_gb_per_s * 1e9 / hz * cfg->gm_hbm_efficiency;
  double l2 = cfg->l2_gb_per_s * 1e9 / hz;
  if (r->audit.flow_peak_util > 1 + SLACK) fail_msg("%s a flow ran at %.6f of its engine's rate", c->what, r->audit.flow_peak_util);
  if (r->audit.hbm_peak_util > 1 + SLACK) fail_msg("%s HBM ran at %.6f of its peak", c->what, r->audit.hbm_peak_util);
  if (r->audit.l2_peak_util > 1 + SLACK) fail_msg("%s the L2 port ran at %.6f of its peak", c->what, r->audit.l2_peak_util);
  if (cfg->l2_enabled && r->audit.gm_peak_bytes_per_cycle > l2 * (1 + SLACK))
    fail_msg("%s GM flows drew %.3f B/cycle through a %.3f B/cycle L2 port", c->what, r->audit.gm_peak_bytes_per_cycle, l2);
  double cycles = (double)r->total_cycles;
  double hbm_bytes = (double)(r->stats.hbm_read_bytes + r->stats.hbm_write_bytes);
  if (hbm_bytes > hbm * cycles * (1 + SLACK))
    fail_msg("%s %.0f HBM bytes in %.0f cycles: %.3f B/cycle over a %.3f B/cycle peak", c->what, hbm_bytes, cycles,
             hbm_bytes / cycles, hbm);
  double gm_bytes = (double)(r->stats.gm_read_bytes + r->stats.gm_write_bytes);
  if (cfg->l2_enabled && gm_bytes > l2 * cycles * (1 + SLACK))
    fail_msg("%s %.0f GM bytes in %.0f cycles over a %.3f B/cycle L2 port", c->what, gm_bytes, cycles, l2);
  /* something moved, and the model's audit saw it */
  assert_true(r->stats.gm_read_bytes > 0);
  assert_true(r->audit.gm_peak_bytes_per_cycle > 0);
}

/* What the sweep counts over the cases it ran. */
typedef struct sweep_counts {
  unsigned checked;   /* cases run and checked */
  unsigned anomalies; /* comparisons a few cycles faster with half a bandwidth */
  unsigned hbm_bound; /* cases slower with half the HBM bandwidth */
} sweep_counts;

/* Runs and checks the sweep's cases first .. end - 1. The generator draws every case before
 * first too, so that case i is the same whichever block runs it. */
static void sweep_cases(int first, int end, sweep_counts *n) {
  rng r = {0x5eed1e55c0ffee01ull};
  memset(n, 0, sizeof *n);
  for (int i = 0; i < end; i++) {
    run_case c;
    make_case(&r, i, &c);
    if (i < first) continue;
    sim_result base;
    run(&c, &c.cfg, &base);
    check_limits(&c, &base);
    struct {
      const char *what;
      sim_config cfg;
    } halves[3] = {{"HBM", c.cfg}, {"the L2 port", c.cfg}, {"MTE2's port", c.cfg}};
    halves[0].cfg.gm_hbm_gb_per_s /= 2;
    halves[1].cfg.l2_gb_per_s /= 2;
    halves[2].cfg.mte2_gm_bytes_per_cycle = (c.cfg.mte2_gm_bytes_per_cycle + 1) / 2;
    for (int h = 0; h < 3; h++) {
      sim_result slow;
      run(&c, &halves[h].cfg, &slow);
      /* a slower pipe reorders the transfers of the cores; like any list schedule, the new order
       * may by chance finish sooner (a scheduling anomaly). Mostly by a few cycles; more where the
       * order decides which core reads a line first and waits for HBM (the L2's miss latency)
       * while the others then hit: run 169 halving MTE2's port, 25874 -> 25675 cycles (0.77 %),
       * slower instead with l2.miss_latency_cycles = l2.hit_latency_cycles. Never by 1 %. */
      if (slow.total_cycles + base.total_cycles / 100 < base.total_cycles)
        fail_msg("%s halving %s made the run faster: %" PRIu64 " -> %" PRIu64 " cycles", c.what, halves[h].what,
                 base.total_cycles, slow.total_cycles);
      if (slow.total_cycles < base.total_cycles) n->anomalies++;
      if (h == 0 && slow.total_cycles > base.total_cycles) n->hbm_bound++;
    }
    n->checked++;
  }
}

/* What the sweep asserts over all its cases together. */
static void check_totals(const sweep_counts *n) {
  assert_int_equal(n->checked, RUNS);
  if (n->anomalies * 100 > 3u * RUNS) fail_msg("%u of %d comparisons were a few cycles faster", n->anomalies, 3 * RUNS);
  printf("scheduling anomalies (faster by < 1 %%): %u of %d comparisons\n", n->anomalies, 3 * RUNS);
  /* the sweep reaches HBM-bound runs, or the HBM checks above prove little */
  printf("%u of %u runs slowed down with half the HBM bandwidth\n", n->hbm_bound, RUNS);
  assert_true(n->hbm_bound >= RUNS / 10);
}

static void test_limits_and_monotone_bandwidths(void **state) {
  (void)state;
  sweep_counts n;
  sweep_cases(0, RUNS, &n);
  check_totals(&n);
}

/* A block of the sweep (`sweep K/N FILE`), or its totals (`total N FILE`). */
typedef struct sweep_block {
  int k, n;           /* block k of n (1-based) */
  const char *report; /* block k's counts go to report.k */
} sweep_block;

static void block_path(const sweep_block *b, int k, char *out, size_t bytes) {
  int len = snprintf(out, bytes, "%s.%d", b->report, k);
  assert_true(len > 0 && (size_t)len < bytes);
}

static void test_sweep_block(void **state) {
  const sweep_block *b = *state;
  char path[4096];
  block_path(b, b->k, path, sizeof path);
  remove(path); /* a block that fails leaves no counts behind */
  int first = (b->k - 1) * RUNS / b->n, end = b->k * RUNS / b->n;
  sweep_counts n;
  sweep_cases(first, end, &n);
  assert_int_equal(n.checked, end - first);
  printf("cases %d .. %d of %d: %u scheduling anomalies, %u slowed down with half the HBM bandwidth\n", first, end - 1,
         RUNS, n.anomalies, n.hbm_bound);
  FILE *f = fopen(path, "w");
  if (!f) fail_msg("cannot write %s", path);
  fprintf(f, "limits sweep %d/%d: %u %u %u\n", b->k, b->n, n.checked, n.anomalies, n.hbm_bound);
  assert_int_equal(fclose(f), 0);
}

static void test_sweep_total(void **state) {
  const sweep_block *b = *state;
  sweep_counts sum = {0, 0, 0};
  for (int k = 1; k <= b->n; k++) {
    char path[4096];
    block_path(b, k, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("%s: no counts: block %d of %d has not run or has failed", path, k, b->n);
    int fk = 0, fn = 0;
    unsigned c = 0, a = 0, h = 0;
    int got = fscanf(f, "limits sweep %d/%d: %u %u %u", &fk, &fn, &c, &a, &h);
    fclose(f);
    remove(path); /* read once: a later total has to see the blocks run again */
    if (got != 5 || fk != k || fn != b->n) fail_msg("%s: not the counts of block %d of %d", path, k, b->n);
    sum.checked += c;
    sum.anomalies += a;
    sum.hbm_bound += h;
  }
  check_totals(&sum);
}

/* The two cases: the int8 GEMV (memory bound by the weights) and m = n = 8192, k = 128
 * (bound by its 256 MiB of output written back) slow down when HBM is halved, and their HBM
 * traffic never exceeds its peak. */
static void halved_hbm_slows(const char *const *attrs) {
  run_case c;
  memset(&c, 0, sizeof c);
  c.op = "matmul";
  for (int a = 0; attrs[a]; a += 2) add_s(&c, attrs[a], attrs[a + 1]);
  sim_config_defaults(&c.cfg);
  snprintf(c.what, sizeof c.what, "matmul %s=%s %s=%s %s=%s %s=%s:", attrs[0], attrs[1], attrs[2], attrs[3], attrs[4],
           attrs[5], attrs[6], attrs[7]);
  sim_result full, half;
  run(&c, &c.cfg, &full);
  check_limits(&c, &full);
  sim_config h = c.cfg;
  h.gm_hbm_gb_per_s /= 2;
  run(&c, &h, &half);
  run_case hc = c;
  hc.cfg = h;
  check_limits(&hc, &half);
  /* bound by HBM at least in part: at least 10 % slower with half of it (the GEMV's weights
   * stream through MTE2 at about 700 GB/s in 256-byte rows, so half of 1.8 TB/s only starts to
   * bind; the write-back case keeps three quarters of its output dirty in the L2 at the end) */
  if ((double)half.total_cycles < 1.1 * (double)full.total_cycles)
    fail_msg("%s %" PRIu64 " cycles at full HBM, %" PRIu64 " at half", c.what, full.total_cycles, half.total_cycles);
}

static void test_gemv_slows_with_half_hbm(void **state) {
  (void)state;
  static const char *const attrs[] = {"in_dtype", "int8", "m", "1", "n", "4096", "k", "4096", NULL};
  halved_hbm_slows(attrs);
}

static void test_write_back_bound_slows_with_half_hbm(void **state) {
  (void)state;
  static const char *const attrs[] = {"in_dtype", "fp16", "m", "8192", "n", "8192", "k", "128", NULL};
  halved_hbm_slows(attrs);
}

/* "K/N" with 1 <= K <= N <= RUNS. */
static bool parse_block(const char *text, sweep_block *b) {
  char extra;
  return sscanf(text, "%d/%d%c", &b->k, &b->n, &extra) == 2 && b->k >= 1 && b->k <= b->n && b->n <= RUNS;
}

int main(int argc, char **argv) {
  sweep_block b = {0, 0, NULL};
  char extra;
  if (argc == 1) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits_and_monotone_bandwidths),
        cmocka_unit_test(test_gemv_slows_with_half_hbm),
        cmocka_unit_test(test_write_back_bound_slows_with_half_hbm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
  }
  if (argc == 2 && strcmp(argv[1], "hbm") == 0) {
    const struct CMUnitTest hbm[] = {
        cmocka_unit_test(test_gemv_slows_with_half_hbm),
        cmocka_unit_test(test_write_back_bound_slows_with_half_hbm),
    };
    return cmocka_run_group_tests(hbm, NULL, NULL);
  }
  if (argc == 4 && strcmp(argv[1], "sweep") == 0 && parse_block(argv[2], &b)) {
    b.report = argv[3];
    const struct CMUnitTest sweep[] = {cmocka_unit_test_prestate(test_sweep_block, &b)};
    return cmocka_run_group_tests(sweep, NULL, NULL);
  }
  if (argc == 4 && strcmp(argv[1], "total") == 0 && sscanf(argv[2], "%d%c", &b.n, &extra) == 1 && b.n >= 1 &&
      b.n <= RUNS) {
    b.report = argv[3];
    const struct CMUnitTest total[] = {cmocka_unit_test_prestate(test_sweep_total, &b)};
    return cmocka_run_group_tests(total, NULL, NULL);
  }
  fprintf(stderr, "usage: %s [hbm | sweep K/N FILE | total N FILE]\n", argv[0]);
  return 2;
}
