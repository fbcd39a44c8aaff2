/* cli_validate — `cubesim validate`: runs the measured cases of an anchors file (by default the
 * built-in configs/anchors/a2.yaml) timing-only and prints the model against the measurement,
 * per case: task time, aicore time and the mean busy time of each pipe, with the % errors and
 * whether they lie within the case's tolerance (docs/TIMING.md, Calibration). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_host.h"
#include "base/cs_json.h"
#include "base/cs_suggest.h"
#include "base/cs_yaml.h"
#include "cli/cli.h"
#include "cli/cli_anchors.h"
#include "kernels/kn_op.h"
#include "runtime/rt_host.h"
#include "sim/sim_config.h"
#include "traces/trc_summary.h"

/* The measured quantities, in the order of the table. */
#define METRIC_TABLE(X)                                      \
  X(task, "task_us", "task", "msprof Task Duration")         \
  X(aicore, "aicore_us", "aicore", "mean span of the blocks") \
  X(mac, "mac_us", "mac", "aic_mac_time")                    \
  X(scalar, "scalar_us", "scalar", "aic_scalar_time")        \
  X(mte1, "mte1_us", "mte1", "aic_mte1_time")                \
  X(mte2, "mte2_us", "mte2", "aic_mte2_time")                \
  X(fixpipe, "fixpipe_us", "fixpipe", "aic_fixpipe_time")   \
  X(aiv_scalar, "aiv_scalar_us", "aiv scalar", "aiv_scalar_time") \
  X(aiv_mte2, "aiv_mte2_us", "aiv mte2", "aiv_mte2_time")     \
  X(vec, "vec_us", "aiv vec", "aiv_vec_time")                \
  X(mte3, "mte3_us", "aiv mte3", "aiv_mte3_time")

typedef enum metric {
#define METRIC_ENUM(name, key, col, desc) M_##name,
  METRIC_TABLE(METRIC_ENUM)
#undef METRIC_ENUM
  M_COUNT
} metric;

static const char *const metric_key[M_COUNT] = {
#define METRIC_KEY(name, key, col, desc) key,
    METRIC_TABLE(METRIC_KEY)
#undef METRIC_KEY
};
static const char *const metric_col[M_COUNT] = {
#define METRIC_COL(name, key, col, desc) col,
    METRIC_TABLE(METRIC_COL)
#undef METRIC_COL
};
static const isa_pipe metric_pipe[M_COUNT] = {ISA_PIPE_COUNT, ISA_PIPE_COUNT, ISA_PIPE_M, ISA_PIPE_S,
                                              ISA_PIPE_MTE1, ISA_PIPE_MTE2, ISA_PIPE_FIX, ISA_PIPE_S,
                                              ISA_PIPE_MTE2, ISA_PIPE_V, ISA_PIPE_MTE3};
/* The metrics from M_aiv_scalar on are means over the AIV blocks (msprof's aiv_* columns); the
 * others over the AIC blocks, or over every block of a run without AIVs, or of AIVs alone. */
#define M_FIRST_AIV M_aiv_scalar

#define MAX_ATTRS 48
#define MAX_SETS 16

typedef struct kv {
  const char *key, *val;
} kv;

typedef struct vcase {
  const char *id, *title, *source, *kernel;
  bool fit;
  kv attrs[MAX_ATTRS];
  size_t nattrs;
  kv sets[MAX_SETS];
  size_t nsets;
  bool has[M_COUNT];
  double measured[M_COUNT];
  double model[M_COUNT];
  double tol_task, tol_aicore, tol_pipes;
  const cs_ynode *node;
  bool ran;
  char error[1024]; /* the run's refusal, if any */
} vcase;

typedef struct vtable {
  cs_ydoc *doc;
  vcase *cases;
  size_t n;
} vtable;

static cs_status read_kvs(const cs_ydoc *d, const cs_ynode *m, const char *what, kv *out, size_t max, size_t *n,
                          cs_err *err) {
  *n = 0;
  if (!m) return CS_OK;
  cs_status st = cs_yaml_want(d, m, CS_Y_MAP, what, err);
  if (st != CS_OK) return st;
  if (m->n > max) return cs_yaml_error(d, m, err, "%s: %zu entries, at most %zu", what, m->n, max);
  for (size_t i = 0; i < m->n; i++) {
    const char *v;
    if ((st = cs_yaml_str(d, m->items[i], m->keys[i]->text, &v, err)) != CS_OK) return st;
    out[i] = (kv){m->keys[i]->text, v};
  }
  *n = m->n;
  return CS_OK;
}

static cs_status read_tolerance(const cs_ydoc *d, const cs_ynode *t, double *task, double *aicore, double *pipes,
                                cs_err *err) {
  if (!t) return CS_OK;
  static const char *const keys[] = {"task", "aicore", "pipes", NULL};
  cs_status st;
  if ((st = cs_yaml_want(d, t, CS_Y_MAP, "tolerance", err)) != CS_OK || (st = cs_ymap_check_keys(d, t, keys, err)) != CS_OK)
    return st;
  double *dst[3] = {task, aicore, pipes};
  for (int i = 0; i < 3; i++) {
    const cs_ynode *v = cs_ymap_get(t, keys[i]);
    if (!v) continue;
    if ((st = cs_yaml_double(d, v, keys[i], dst[i], err)) != CS_OK) return st;
    if (*dst[i] <= 0 || *dst[i] > 10) return cs_yaml_error(d, v, err, "tolerance %s = %g is not in (0, 10]", keys[i], *dst[i]);
  }
  return CS_OK;
}

static cs_status read_case(const cs_ydoc *d, const cs_ynode *c, const double tol[3], vcase *vc, cs_err *err) {
  static const char *const keys[] = {"id", "title", "source", "role", "kernel", "attrs", "set", "measured", "tolerance", NULL};
  cs_status st;
  if ((st = cs_yaml_want(d, c, CS_Y_MAP, "a case", err)) != CS_OK || (st = cs_ymap_check_keys(d, c, keys, err)) != CS_OK)
    return st;
  memset(vc, 0, sizeof *vc);
  vc->node = c;
  const char *role;
  if ((st = cs_yaml_str(d, cs_ymap_get(c, "id"), "id", &vc->id, err)) != CS_OK ||
      (st = cs_yaml_str(d, cs_ymap_get(c, "title"), "title", &vc->title, err)) != CS_OK ||
      (st = cs_yaml_str(d, cs_ymap_get(c, "source"), "source", &vc->source, err)) != CS_OK ||
      (st = cs_yaml_str(d, cs_ymap_get(c, "role"), "role", &role, err)) != CS_OK ||
      (st = cs_yaml_str(d, cs_ymap_get(c, "kernel"), "kernel", &vc->kernel, err)) != CS_OK)
    return st;
  if (strcmp(role, "fit") != 0 && strcmp(role, "predict") != 0)
    return cs_yaml_error(d, cs_ymap_get(c, "role"), err, "case %s: role '%s' is not fit or predict", vc->id, role);
  vc->fit = role[0] == 'f';
  if (!kn_op_find(vc->kernel))
    return cs_yaml_error(d, cs_ymap_get(c, "kernel"), err, "case %s: no kernel '%s' (cubesim kernels lists them)", vc->id,
                         vc->kernel);
  if ((st = read_kvs(d, cs_ymap_get(c, "attrs"), "attrs", vc->attrs, MAX_ATTRS, &vc->nattrs, err)) != CS_OK ||
      (st = read_kvs(d, cs_ymap_get(c, "set"), "set", vc->sets, MAX_SETS, &vc->nsets, err)) != CS_OK)
    return st;
  const cs_ynode *m = cs_ymap_get(c, "measured");
  if ((st = cs_yaml_want(d, m, CS_Y_MAP, "measured", err)) != CS_OK) return st;
  static const char *const mkeys[M_COUNT + 1] = {
#define METRIC_KEY2(name, key, col, desc) key,
      METRIC_TABLE(METRIC_KEY2)
#undef METRIC_KEY2
      NULL};
  if ((st = cs_ymap_check_keys(d, m, mkeys, err)) != CS_OK) return st;
  for (int i = 0; i < M_COUNT; i++) {
    const cs_ynode *v = cs_ymap_get(m, metric_key[i]);
    if (!v) continue;
    if ((st = cs_yaml_double(d, v, metric_key[i], &vc->measured[i], err)) != CS_OK) return st;
    if (vc->measured[i] <= 0) return cs_yaml_error(d, v, err, "%s = %g: a measured time must be positive", metric_key[i], vc->measured[i]);
    vc->has[i] = true;
  }
  bool any = false;
  for (int i = 0; i < M_COUNT; i++) any = any || vc->has[i];
  if (!any) return cs_yaml_error(d, m, err, "case %s: measured gives no time (task_us, aicore_us or a pipe's)", vc->id);
  vc->tol_task = tol[0];
  vc->tol_aicore = tol[1];
  vc->tol_pipes = tol[2];
  return read_tolerance(d, cs_ymap_get(c, "tolerance"), &vc->tol_task, &vc->tol_aicore, &vc->tol_pipes, err);
}

static cs_status table_load(vtable *t, const char *path, cs_err *err) {
  memset(t, 0, sizeof *t);
  cs_status st = path ? cs_yaml_load_file(path, &t->doc, err)
                      : cs_yaml_load_string((const char *)cli_anchors_a2, cli_anchors_a2_len, "configs/anchors/a2.yaml (built in)",
                                            &t->doc, err);
  if (st != CS_OK) return st;
  const cs_ynode *root = cs_yaml_root(t->doc);
  static const char *const keys[] = {"defaults", "cases", NULL};
  if ((st = cs_yaml_want(t->doc, root, CS_Y_MAP, "the anchors file", err)) != CS_OK ||
      (st = cs_ymap_check_keys(t->doc, root, keys, err)) != CS_OK)
    return st;
  double tol[3] = {0.10, 0.10, 0.20};
  const cs_ynode *defs = cs_ymap_get(root, "defaults");
  if (defs) {
    static const char *const dkeys[] = {"tolerance", NULL};
    if ((st = cs_yaml_want(t->doc, defs, CS_Y_MAP, "defaults", err)) != CS_OK ||
        (st = cs_ymap_check_keys(t->doc, defs, dkeys, err)) != CS_OK ||
        (st = read_tolerance(t->doc, cs_ymap_get(defs, "tolerance"), &tol[0], &tol[1], &tol[2], err)) != CS_OK)
      return st;
  }
  const cs_ynode *cases = cs_ymap_get(root, "cases");
  if ((st = cs_yaml_want(t->doc, cases, CS_Y_SEQ, "cases", err)) != CS_OK) return st;
  t->cases = calloc(cases->n ? cases->n : 1, sizeof *t->cases);
  if (!t->cases) return cs_err_set(err, CS_ENOMEM, "no host memory for %zu cases", cases->n);
  for (size_t i = 0; i < cases->n; i++) {
    if ((st = read_case(t->doc, cases->items[i], tol, &t->cases[i], err)) != CS_OK) return st;
    for (size_t j = 0; j < i; j++)
      if (strcmp(t->cases[j].id, t->cases[i].id) == 0)
        return cs_yaml_error(t->doc, cases->items[i], err, "case id %s appears twice", t->cases[i].id);
    t->n++;
  }
  return CS_OK;
}

static void table_free(vtable *t) {
  free(t->cases);
  cs_yaml_free(t->doc);
}

/* Runs one case timing-only on cfg (with the case's own overrides). A refusal of the run is the
 * case's error, not the command's. */
static void run_case(vcase *vc, const sim_config *base) {
  sim_config cfg = *base;
  cs_err err;
  for (size_t i = 0; i < vc->nsets; i++)
    if (sim_config_set(&cfg, vc->sets[i].key, vc->sets[i].val, &err) != CS_OK) {
      snprintf(vc->error, sizeof vc->error, "set %s: %s", vc->sets[i].key, err.msg);
      return;
    }
  if (sim_config_validate(&cfg, &err) != CS_OK) {
    snprintf(vc->error, sizeof vc->error, "%s", err.msg);
    return;
  }
  kn_run_options o = {.cfg = &cfg, .timing_only = true, .seed = 1, .max_memory_bytes = cs_host_default_memory_limit()};
  kn_ctx *ctx = NULL;
  cs_status st = kn_ctx_create(kn_op_find(vc->kernel), &o, &ctx, &err);
  for (size_t i = 0; st == CS_OK && i < vc->nattrs; i++) st = kn_ctx_set_attr(ctx, vc->attrs[i].key, vc->attrs[i].val, &err);
  if (st == CS_OK) st = kn_ctx_run(ctx, &err);
  rt_device *dev = st == CS_OK ? kn_device(ctx) : NULL;
  if (st != CS_OK || !dev || !rt_device_result(dev)) {
    snprintf(vc->error, sizeof vc->error, "%s", st != CS_OK ? err.msg : "the kernel ran nothing on the chip");
    kn_ctx_destroy(ctx);
    return;
  }
  trc_summary sm;
  trc_summary_compute(rt_device_sim(dev), rt_device_result(dev), &sm);
  vc->model[M_task] = sm.time_us;
  vc->model[M_aicore] = sm.aicore_time_us;
  for (int i = M_mac; i < M_FIRST_AIV; i++) vc->model[i] = trc_cycles_us(sm.pipes[metric_pipe[i]].avg_busy_cycles, sm.clock_mhz);
  /* runs with AIVs: each kind's blocks apart (msprof reports aic_* and aiv_* columns) */
  const sim_result *r = rt_device_result(dev);
  sim *s = rt_device_sim(dev);
  double span[2] = {0, 0}, busy[2][ISA_PIPE_COUNT], n[2] = {0, 0};
  memset(busy, 0, sizeof busy);
  for (unsigned c = 0; c < r->stats.cores; c++) {
    if (!r->stats.core[c].instructions) continue;
    int k = sim_core_kind_of(sim_get_core(s, c)) == SIM_CORE_AIV;
    n[k]++;
    span[k] += (double)trc_core_span(r, c);
    for (int p = 0; p < ISA_PIPE_COUNT; p++) busy[k][p] += (double)r->stats.core[c].pipe_busy_cycles[p];
  }
  if (n[1]) {
    int k = n[0] ? 0 : 1; /* the time and the AIC pipes: the AICs', or an AIV-only run's */
    vc->model[M_aicore] = trc_cycles_us(span[k] / n[k], sm.clock_mhz);
    for (int i = M_mac; i < M_FIRST_AIV; i++) vc->model[i] = trc_cycles_us(busy[k][metric_pipe[i]] / n[k], sm.clock_mhz);
    for (int i = M_FIRST_AIV; i < M_COUNT; i++) vc->model[i] = trc_cycles_us(busy[1][metric_pipe[i]] / n[1], sm.clock_mhz);
  }
  vc->ran = true;
  kn_ctx_destroy(ctx);
}

static double rel_err(const vcase *vc, int i) { return (vc->model[i] - vc->measured[i]) / vc->measured[i]; }

static double tol_of(const vcase *vc, int i) {
  return i == M_task ? vc->tol_task : i == M_aicore ? vc->tol_aicore : vc->tol_pipes;
}

static bool within(const vcase *vc, int i) { return fabs(rel_err(vc, i)) <= tol_of(vc, i) + 1e-12; }

static bool case_ok(const vcase *vc) {
  if (!vc->ran) return false;
  for (int i = 0; i < M_COUNT; i++)
    if (vc->has[i] && !within(vc, i)) return false;
  return true;
}

static bool selected(const vcase *vc, const char *const *only, int nonly) {
  if (!nonly) return true;
  for (int i = 0; i < nonly; i++) {
    size_t len = strlen(only[i]);
    if (len && only[i][len - 1] == '*' ? strncmp(vc->id, only[i], len - 1) == 0 : strcmp(vc->id, only[i]) == 0) return true;
  }
  return false;
}

/* The errors of one role (fit or predict) over a group of metrics (the times: task and aicore;
 * or the pipes): how many were measured, the mean and the largest |error| (and where), how
 * many lie outside their tolerance. */
typedef struct err_summary {
  unsigned n, outside;
  double mean, max;
  const char *max_case, *max_metric;
} err_summary;

static err_summary summarise(const vtable *t, bool fit, bool pipes) {
  err_summary s = {0, 0, 0, 0, NULL, NULL};
  for (size_t c = 0; c < t->n; c++) {
    const vcase *vc = &t->cases[c];
    if (!vc->ran || vc->fit != fit) continue;
    for (int i = 0; i < M_COUNT; i++) {
      if (!vc->has[i] || (metric_pipe[i] != ISA_PIPE_COUNT) != pipes) continue;
      double e = fabs(rel_err(vc, i));
      s.n++;
      s.mean += e;
      s.outside += !within(vc, i);
      if (e > s.max || !s.max_case) s.max = e, s.max_case = vc->id, s.max_metric = metric_col[i];
    }
  }
  if (s.n) s.mean /= s.n;
  return s;
}

/* One line per role and group: "predict, task and aicore: 14 errors, mean |error| 3.9%, largest
 * 8.2% (A1-C2 task), 0 outside their tolerance". */
static void print_summary(FILE *f, const vtable *t, const char *indent) {
  for (int fit = 0; fit < 2; fit++)
    for (int pipes = 0; pipes < 2; pipes++) {
      err_summary s = summarise(t, fit, pipes);
      if (!s.n) continue;
      fprintf(f, "%s%s, %s: %u errors, mean |error| %.1f%%, largest %.1f%% (%s %s), %u outside their tolerance\n",
              indent, fit ? "fit" : "predict", pipes ? "pipes" : "task and aicore", s.n, 100 * s.mean, 100 * s.max,
              s.max_case, s.max_metric, s.outside);
    }
}

static void print_text(FILE *f, const vtable *t, const char *source) {
  fprintf(f, "cubesim validate: %s\n", source);
  fprintf(f, "  model us (error against the measurement; * outside the case's tolerance)\n\n");
  fprintf(f, "  %-22s %-7s", "case", "role");
  for (int i = 0; i < M_COUNT; i++) fprintf(f, " %18s", metric_col[i]);
  fputc('\n', f);
  for (size_t c = 0; c < t->n; c++) {
    const vcase *vc = &t->cases[c];
    if (!vc->ran && !vc->error[0]) continue;
    fprintf(f, "  %-22s %-7s", vc->id, vc->fit ? "fit" : "predict");
    if (!vc->ran) {
      fprintf(f, " refused: %s\n", vc->error);
      continue;
    }
    for (int i = 0; i < M_COUNT; i++) {
      char cell[40];
      if (vc->has[i])
        snprintf(cell, sizeof cell, "%.1f (%+.1f%%)%s", vc->model[i], 100 * rel_err(vc, i), within(vc, i) ? " " : "*");
      else
        snprintf(cell, sizeof cell, "%.1f      ", vc->model[i]);
      fprintf(f, " %18s", cell);
    }
    fputc('\n', f);
    fprintf(f, "  %-22s %-7s", "", "measured");
    for (int i = 0; i < M_COUNT; i++) {
      char cell[40] = "-";
      if (vc->has[i]) snprintf(cell, sizeof cell, "%.1f         ", vc->measured[i]);
      fprintf(f, " %18s", cell);
    }
    fputc('\n', f);
  }
  fputc('\n', f);
  print_summary(f, t, "  ");
}

/* The table docs/TIMING.md carries. */
static void print_markdown(FILE *f, const vtable *t) {
  fprintf(f, "| case | role | what |");
  for (int i = 0; i < M_COUNT; i++) fprintf(f, " %s µs |", metric_col[i]);
  fprintf(f, "\n|---|---|---|");
  for (int i = 0; i < M_COUNT; i++) fprintf(f, "---|");
  fputc('\n', f);
  for (size_t c = 0; c < t->n; c++) {
    const vcase *vc = &t->cases[c];
    if (!vc->ran) continue;
    fprintf(f, "| %s | %s | %s |", vc->id, vc->fit ? "fit" : "predict", vc->title);
    for (int i = 0; i < M_COUNT; i++) {
      if (vc->has[i])
        fprintf(f, " %.1f → %.1f (%+.1f%%)%s |", vc->measured[i], vc->model[i], 100 * rel_err(vc, i),
                within(vc, i) ? "" : " ✗");
      else
        fprintf(f, " – |");
    }
    fputc('\n', f);
  }
  fputc('\n', f);
  print_summary(f, t, "- ");
}

static void print_json(FILE *f, const vtable *t, const char *source) {
  cs_json j;
  cs_json_init(&j, f, true);
  cs_json_obj_begin(&j);
  cs_json_member_str(&j, "source", source);
  cs_json_key(&j, "cases");
  cs_json_arr_begin(&j);
  for (size_t c = 0; c < t->n; c++) {
    const vcase *vc = &t->cases[c];
    if (!vc->ran && !vc->error[0]) continue;
    cs_json_obj_begin(&j);
    cs_json_member_str(&j, "id", vc->id);
    cs_json_member_str(&j, "role", vc->fit ? "fit" : "predict");
    cs_json_member_str(&j, "title", vc->title);
    cs_json_member_str(&j, "source", vc->source);
    if (!vc->ran) {
      cs_json_member_str(&j, "error", vc->error);
    } else {
      cs_json_key(&j, "metrics");
      cs_json_obj_begin(&j);
      for (int i = 0; i < M_COUNT; i++) {
        cs_json_key(&j, metric_col[i]);
        cs_json_obj_begin(&j);
        cs_json_member_double(&j, "model_us", vc->model[i]);
        if (vc->has[i]) {
          cs_json_member_double(&j, "measured_us", vc->measured[i]);
          cs_json_member_double(&j, "error", rel_err(vc, i));
          cs_json_member_double(&j, "tolerance", tol_of(vc, i));
          cs_json_key(&j, "within");
          cs_json_bool(&j, within(vc, i));
        }
        cs_json_obj_end(&j);
      }
      cs_json_obj_end(&j);
      cs_json_key(&j, "within");
          cs_json_bool(&j, case_ok(vc));
    }
    cs_json_obj_end(&j);
  }
  cs_json_arr_end(&j);
  cs_json_key(&j, "summary");
  cs_json_arr_begin(&j);
  for (int fit = 0; fit < 2; fit++)
    for (int pipes = 0; pipes < 2; pipes++) {
      err_summary s = summarise(t, fit, pipes);
      if (!s.n) continue;
      cs_json_obj_begin(&j);
      cs_json_member_str(&j, "role", fit ? "fit" : "predict");
      cs_json_member_str(&j, "metrics", pipes ? "pipes" : "task and aicore");
      cs_json_member_uint(&j, "errors", s.n);
      cs_json_member_double(&j, "mean_abs_error", s.mean);
      cs_json_member_double(&j, "max_abs_error", s.max);
      cs_json_member_str(&j, "max_case", s.max_case);
      cs_json_member_str(&j, "max_metric", s.max_metric);
      cs_json_member_uint(&j, "outside_tolerance", s.outside);
      cs_json_obj_end(&j);
    }
  cs_json_arr_end(&j);
  cs_json_obj_end(&j);
  fputc('\n', f);
}

static const char usage[] =
    "usage: cubesim validate [ANCHORS.yaml] [--case ID|PREFIX*]... [--config FILE.yaml]\n"
    "                        [--set SECTION.KEY=VALUE]... [--cores N] [--json | --markdown] [--check]\n"
    "                        [--list]\n"
    "\n"
    "Runs every measured case of the anchors file (default: the built-in configs/anchors/a2.yaml,\n"
    "measured on Atlas A2) timing-only and prints the model against the measurement: task time,\n"
    "aicore time and each pipe's mean busy time over the blocks, with the errors. A case's own\n"
    "`set` applies over the chip the options below give.\n"
    "  --case ID|PREFIX*      only this case (or the cases whose id starts with PREFIX); repeatable\n"
    "  --list                 list the cases (id, role, title) without running them\n"
    "  --json                 print the results as JSON\n"
    "  --markdown             print the table docs/TIMING.md carries\n"
    "  --check                exit 1 when a case lies outside its tolerance\n" CLI_CHIP_USAGE;

int cli_cmd_validate(cli_io *io, int argc, char **argv) {
  const char *path = NULL;
  const char *only[64];
  int nonly = 0;
  cli_chip_args chip;
  memset(&chip, 0, sizeof chip);
  bool json = false, markdown = false, check = false, list = false;
  cs_err err;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int r;
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(usage, io->out);
      return 0;
    }
    if ((r = cli_chip_opt(argc, argv, &i, &chip, &err)) != 0) {
      if (r < 0) return cli_fail(io, "validate", &err);
      continue;
    }
    if (cli_flag(argv, i, "--json")) json = true;
    else if (cli_flag(argv, i, "--markdown")) markdown = true;
    else if (cli_flag(argv, i, "--check")) check = true;
    else if (cli_flag(argv, i, "--list")) list = true;
    else if ((r = cli_opt(argc, argv, &i, "--case", &v, &err)) != 0) {
      if (r < 0) return cli_fail(io, "validate", &err);
      if (nonly == 64) return cli_usage_error(io, "validate", "--case: at most 64");
      only[nonly++] = v;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_unknown_option(io, "validate", argv[i], usage);
    } else if (!path) {
      path = argv[i];
    } else {
      return cli_usage_error(io, "validate", "one anchors file only (got %s and %s)", path, argv[i]);
    }
  }
  if (json && markdown) return cli_usage_error(io, "validate", "--json and --markdown exclude each other");
  sim_config cfg;
  cs_status st = cli_chip_config(&chip, 0, &cfg, &err);
  if (st != CS_OK) return cli_fail(io, "validate", &err);
  vtable t;
  if ((st = table_load(&t, path, &err)) != CS_OK) {
    table_free(&t);
    return cli_fail(io, "validate", &err);
  }
  for (int i = 0; i < nonly; i++) {
    bool any = false;
    for (size_t c = 0; c < t.n && !any; c++) any = selected(&t.cases[c], &only[i], 1);
    if (!any) {
      cs_suggest sg;
      cs_suggest_init(&sg, only[i]);
      for (size_t c = 0; c < t.n; c++) cs_suggest_offer(&sg, t.cases[c].id);
      int rc = cs_suggest_best(&sg)
                   ? cli_usage_error(io, "validate", "--case %s: no such case in %s (did you mean '%s'?)", only[i],
                                     cs_yaml_name(t.doc), cs_suggest_best(&sg))
                   : cli_usage_error(io, "validate", "--case %s: no such case in %s (--list lists them)", only[i],
                                     cs_yaml_name(t.doc));
      table_free(&t);
      return rc;
    }
  }
  if (list) {
    for (size_t c = 0; c < t.n; c++)
      if (selected(&t.cases[c], only, nonly))
        fprintf(io->out, "%-22s %-7s %s\n", t.cases[c].id, t.cases[c].fit ? "fit" : "predict", t.cases[c].title);
    table_free(&t);
    return 0;
  }
  bool all_ok = true;
  for (size_t c = 0; c < t.n; c++) {
    vcase *vc = &t.cases[c];
    if (!selected(vc, only, nonly)) continue;
    run_case(vc, &cfg);
    all_ok = all_ok && case_ok(vc);
  }
  char source[400];
  snprintf(source, sizeof source, "%s on %s (%s%s)", cs_yaml_name(t.doc), cfg.chip_name,
           chip.config ? chip.config : "built-in configuration", chip.nset || chip.cores ? " with --set/--cores" : "");
  if (json) print_json(io->out, &t, source);
  else if (markdown) print_markdown(io->out, &t);
  else print_text(io->out, &t, source);
  table_free(&t);
  return check && !all_ok ? 1 : 0;
}
