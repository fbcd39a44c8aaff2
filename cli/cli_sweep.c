/* cli_sweep — `cubesim sweep SWEEP.yaml`: the points of a grid (and/or list) over attributes,
 * --set configuration keys and configurations, each one `cubesim run` writing its JSON; run by
 * Ninja (parallel, incremental), or emitted as a Slurm job array or a GNU parallel job list;
 * collected into results.csv and an HTML report (traces/FORMAT.md, "Sweeps"). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>

#include "base/cs_jsonr.h"
#include "base/cs_out.h"
#include "base/cs_parse.h"
#include "cli/cli.h"
#include "traces/trc_html.h"

#define CMD "sweep"
#define MAX_KEYS 32
#define MAX_VALUES 256
#define MAX_POINTS 100000

static const char sweep_usage[] =
    "usage: cubesim sweep SWEEP.yaml [--dir DIR] [-j N] [--emit ninja|slurm|parallel] [--chunk N]\n"
    "       cubesim sweep SWEEP.yaml --collect [--dir DIR]\n"
    "\n"
    "Runs `cubesim run` on every point of a sweep and collects the results. SWEEP.yaml:\n"
    "  kernel: matmul                  the operator\n"
    "  attrs: {in_dtype: fp16, m: 8192} fixed attributes (--attr)\n"
    "  set: {chip.aic_cores: 24}           fixed configuration values (--set)\n"
    "  config: chip.yaml               a configuration file (relative to SWEEP.yaml)\n"
    "  options: [--timing-only]        more cubesim run options\n"
    "  grid:                           every combination of these values: a plain key is an\n"
    "    base_m: [64, 128, 256]        attribute, a dotted key (chip.aic_cores) a --set value,\n"
    "    chip.aic_cores: [8, 24]           `config` a list of configuration files\n"
    "  points:                         and/or a list of points (each combined with the grid)\n"
    "    - {m: 1024, n: 4096}\n"
    "  axes: [base_m, base_n]          the report's heatmap (default: the first two grid keys)\n"
    "\n"
    "Writes DIR (default: SWEEP without .yaml, plus .sweep)/build.ninja with one edge per point\n"
    "(points/ID.json) and runs ninja there: points run in parallel, and only the points whose\n"
    "command changed or whose file is missing run again (also after cubesim itself is rebuilt).\n"
    "A point the operator refuses (an illegal tiling, ...) is recorded with its refusal, never\n"
    "fatal. Then DIR/results.csv (one row per point) and DIR/report.html.\n"
    "  --dir DIR        where the files go\n"
    "  -j N             parallel points (ninja's -j; default: ninja's)\n"
    "  --emit ninja     only write build.ninja and commands.txt\n"
    "  --emit slurm     write DIR/sweep.sbatch, a job array over chunks of commands.txt; after\n"
    "                   sbatch DIR/sweep.sbatch has run, collect with --collect\n"
    "  --emit parallel  write DIR/commands.txt, a GNU parallel job list (parallel < commands.txt)\n"
    "  --chunk N        points per Slurm array task (default 4)\n"
    "  --collect        only collect the points' files into results.csv and report.html\n";

/* ---- the sweep file ---------------------------------------------------------------------- */

typedef enum key_kind { KEY_ATTR, KEY_SET, KEY_CONFIG } key_kind;

/* One varying key and its values. */
typedef struct axis {
  char *name;
  key_kind kind;
  char **values;
  size_t n;
} axis;

/* A key = value pair of a point. */
typedef struct param {
  const char *name;
  key_kind kind;
  const char *value;
} param;

typedef struct sweep {
  char *kernel;
  char *dir;          /* absolute */
  char *base;         /* the sweep file's directory, absolute */
  char *config;       /* fixed configuration file, absolute, or NULL */
  param fixed[MAX_KEYS];
  size_t nfixed;
  char *options[MAX_KEYS];
  size_t noptions;
  axis grid[MAX_KEYS];
  size_t ngrid;
  param *list;        /* list points, nlist_keys[i] params each from list_start[i] */
  size_t *list_start, *list_len, nlist;
  size_t nlist_params;
  char *axes[2];
  yaml_document_t doc;
  bool have_doc;
} sweep;

static key_kind kind_of(const char *key) {
  if (strcmp(key, "config") == 0) return KEY_CONFIG;
  return strchr(key, '.') ? KEY_SET : KEY_ATTR;
}

static yaml_node_t *node(sweep *sw, yaml_node_item_t i) { return yaml_document_get_node(&sw->doc, i); }

static cs_status at(cs_err *err, const char *file, const yaml_node_t *n, const char *fmt, const char *what) {
  return cs_err_set(err, CS_EINVAL, "%s:%zu:%zu: %s %s", file, n->start_mark.line + 1, n->start_mark.column + 1, fmt,
                    what);
}

static const char *scalar(const yaml_node_t *n) {
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* An absolute path for p, relative to base. */
static char *absolute(const char *base, const char *p) {
  char *out = NULL;
  size_t n = strlen(base) + strlen(p) + 2;
  if (p[0] == '/') n = strlen(p) + 1;
  out = malloc(n);
  if (!out) return NULL;
  if (p[0] == '/') snprintf(out, n, "%s", p);
  else snprintf(out, n, "%s/%s", base, p);
  return out;
}

/* key: value pairs of a mapping of scalars into params. */
static cs_status read_pairs(sweep *sw, const char *file, yaml_node_t *map, param *out, size_t *n, size_t cap,
                            const char *what, cs_err *err) {
  if (map->type != YAML_MAPPING_NODE) return at(err, file, map, "expected a mapping for", what);
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = node(sw, p->key), *v = node(sw, p->value);
    if (!scalar(k) || !scalar(v)) return at(err, file, k, "expected key: value (a scalar) in", what);
    if (*n == cap) return at(err, file, k, "too many keys in", what);
    out[*n] = (param){scalar(k), kind_of(scalar(k)), scalar(v)};
    if (out[*n].kind == KEY_CONFIG) return at(err, file, k, "`config` is not an attribute or a key: give it at the top, in", what);
    (*n)++;
  }
  return CS_OK;
}

static void sweep_free(sweep *sw) {
  free(sw->kernel);
  free(sw->dir);
  free(sw->base);
  free(sw->config);
  for (size_t i = 0; i < sw->noptions; i++) free(sw->options[i]);
  for (size_t i = 0; i < sw->ngrid; i++) {
    free(sw->grid[i].name);
    for (size_t k = 0; k < sw->grid[i].n; k++) free(sw->grid[i].values[k]);
    free(sw->grid[i].values);
  }
  free(sw->list);
  free(sw->list_start);
  free(sw->list_len);
  free(sw->axes[0]);
  free(sw->axes[1]);
  if (sw->have_doc) yaml_document_delete(&sw->doc);
}

static cs_status read_grid(sweep *sw, const char *file, yaml_node_t *map, cs_err *err) {
  if (map->type != YAML_MAPPING_NODE) return at(err, file, map, "expected a mapping for", "grid");
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = node(sw, p->key), *v = node(sw, p->value);
    if (!scalar(k)) return at(err, file, k, "expected a key in", "grid");
    if (sw->ngrid == MAX_KEYS) return at(err, file, k, "too many keys in", "grid");
    axis *a = &sw->grid[sw->ngrid];
    a->name = strdup(scalar(k));
    a->kind = kind_of(scalar(k));
    sw->ngrid++;
    size_t n = v->type == YAML_SEQUENCE_NODE ? (size_t)(v->data.sequence.items.top - v->data.sequence.items.start) : 1;
    if (n == 0 || n > MAX_VALUES) return at(err, file, v, "expected 1 to 256 values for", a->name);
    a->values = calloc(n, sizeof *a->values);
    if (!a->name || !a->values) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", file);
    for (size_t i = 0; i < n; i++) {
      yaml_node_t *e = v->type == YAML_SEQUENCE_NODE ? node(sw, v->data.sequence.items.start[i]) : v;
      if (!scalar(e)) return at(err, file, e, "expected scalar values for", a->name);
      a->values[i] = a->kind == KEY_CONFIG ? absolute(sw->base, scalar(e)) : strdup(scalar(e));
      if (!a->values[i]) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", file);
      a->n++;
    }
  }
  return CS_OK;
}

static cs_status read_list(sweep *sw, const char *file, yaml_node_t *seq, cs_err *err) {
  if (seq->type != YAML_SEQUENCE_NODE) return at(err, file, seq, "expected a list of mappings for", "points");
  size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
  sw->list = calloc(n * MAX_KEYS + 1, sizeof *sw->list);
  sw->list_start = calloc(n + 1, sizeof *sw->list_start);
  sw->list_len = calloc(n + 1, sizeof *sw->list_len);
  if (!sw->list || !sw->list_start || !sw->list_len) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", file);
  for (size_t i = 0; i < n; i++) {
    sw->list_start[i] = sw->nlist_params;
    size_t got = 0;
    cs_status st = read_pairs(sw, file, node(sw, seq->data.sequence.items.start[i]), sw->list + sw->nlist_params, &got,
                              MAX_KEYS, "a point of points", err);
    if (st != CS_OK) return st;
    sw->list_len[i] = got;
    sw->nlist_params += got;
    sw->nlist++;
  }
  return CS_OK;
}

static cs_status sweep_read(const char *file, const char *dir, sweep *sw, cs_err *err) {
  memset(sw, 0, sizeof *sw);
  FILE *f = fopen(file, "rb");
  if (!f) return cs_err_set(err, CS_EIO, "%s: cannot open it: %s", file, strerror(errno));
  yaml_parser_t ps;
  yaml_parser_initialize(&ps);
  yaml_parser_set_input_file(&ps, f);
  bool ok = yaml_parser_load(&ps, &sw->doc);
  cs_status st = CS_OK;
  if (!ok)
    st = cs_err_set(err, CS_EFORMAT, "%s:%zu:%zu: %s", file, ps.problem_mark.line + 1, ps.problem_mark.column + 1,
                    ps.problem ? ps.problem : "not YAML");
  yaml_parser_delete(&ps);
  fclose(f);
  if (st != CS_OK) return st;
  sw->have_doc = true;
  char real[PATH_MAX];
  if (!realpath(file, real)) return cs_err_set(err, CS_EIO, "%s: %s", file, strerror(errno));
  sw->base = strdup(real);
  if (!sw->base) return cs_err_set(err, CS_ENOMEM, "no host memory");
  char *slash = strrchr(sw->base, '/');
  if (slash) *slash = '\0';
  if (dir) {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return cs_err_set(err, CS_EIO, "cannot read the working directory");
    sw->dir = absolute(cwd, dir);
  } else {
    size_t n = strlen(real);
    sw->dir = malloc(n + 8);
    if (sw->dir) {
      memcpy(sw->dir, real, n + 1);
      if (n > 5 && (strcmp(real + n - 5, ".yaml") == 0)) sw->dir[n - 5] = '\0';
      else if (n > 4 && strcmp(real + n - 4, ".yml") == 0) sw->dir[n - 4] = '\0';
      strcat(sw->dir, ".sweep");
    }
  }
  if (!sw->dir) return cs_err_set(err, CS_ENOMEM, "no host memory");
  yaml_node_t *root = yaml_document_get_root_node(&sw->doc);
  if (!root || root->type != YAML_MAPPING_NODE) return cs_err_set(err, CS_EINVAL, "%s: expected a mapping (kernel:, grid:, ...)", file);
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
    yaml_node_t *k = node(sw, p->key), *v = node(sw, p->value);
    const char *key = scalar(k);
    if (!key) return at(err, file, k, "expected a key", "");
    if (strcmp(key, "kernel") == 0 && scalar(v)) sw->kernel = strdup(scalar(v));
    else if (strcmp(key, "config") == 0 && scalar(v)) sw->config = absolute(sw->base, scalar(v));
    else if (strcmp(key, "attrs") == 0 || strcmp(key, "set") == 0) {
      size_t before = sw->nfixed;
      st = read_pairs(sw, file, v, sw->fixed, &sw->nfixed, MAX_KEYS, key, err);
      if (st != CS_OK) return st;
      for (size_t i = before; i < sw->nfixed; i++)
        if ((sw->fixed[i].kind == KEY_SET) != (key[0] == 's'))
          return at(err, file, v, strcmp(key, "set") == 0 ? "a configuration key has a section (chip.aic_cores); not"
                                                          : "an attribute has no dot; not",
                    sw->fixed[i].name);
    } else if (strcmp(key, "options") == 0 && v->type == YAML_SEQUENCE_NODE) {
      for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
        if (!scalar(node(sw, *i)) || sw->noptions == MAX_KEYS) return at(err, file, node(sw, *i), "expected", "an option");
        sw->options[sw->noptions++] = strdup(scalar(node(sw, *i)));
      }
    } else if (strcmp(key, "grid") == 0) {
      if ((st = read_grid(sw, file, v, err)) != CS_OK) return st;
    } else if (strcmp(key, "points") == 0) {
      if ((st = read_list(sw, file, v, err)) != CS_OK) return st;
    } else if (strcmp(key, "axes") == 0 && v->type == YAML_SEQUENCE_NODE &&
               v->data.sequence.items.top - v->data.sequence.items.start == 2) {
      for (int i = 0; i < 2; i++) {
        const char *a = scalar(node(sw, v->data.sequence.items.start[i]));
        if (!a) return at(err, file, v, "expected two keys for", "axes");
        sw->axes[i] = strdup(a);
      }
    } else {
      return at(err, file, k, "unknown key or a value of the wrong kind:", key);
    }
  }
  if (!sw->kernel) return cs_err_set(err, CS_EINVAL, "%s: no kernel: given", file);
  if (!sw->ngrid && !sw->nlist) return cs_err_set(err, CS_EINVAL, "%s: neither grid: nor points: given", file);
  return CS_OK;
}

/* ---- points ------------------------------------------------------------------------------ */

/* The number of points: the list's entries (or one) times the grid's combinations. */
static size_t point_count(const sweep *sw) {
  size_t n = sw->nlist ? sw->nlist : 1;
  for (size_t i = 0; i < sw->ngrid; i++) n *= sw->grid[i].n;
  return n;
}

/* The varying params of point i (list entry first, then grid keys); returns how many. */
static size_t point_params(const sweep *sw, size_t i, param *out) {
  size_t n = 0, combos = 1;
  for (size_t g = 0; g < sw->ngrid; g++) combos *= sw->grid[g].n;
  size_t li = i / combos, gi = i % combos;
  if (sw->nlist)
    for (size_t k = 0; k < sw->list_len[li]; k++) out[n++] = sw->list[sw->list_start[li] + k];
  for (size_t g = sw->ngrid; g-- > 0;) { /* the last key varies fastest */
    const axis *a = &sw->grid[g];
    out[n + g] = (param){a->name, a->kind, a->values[gi % a->n]};
    gi /= a->n;
  }
  return n + sw->ngrid;
}

/* Appends text to a growing buffer. */
typedef struct buf {
  char *s;
  size_t len, cap;
  bool oom;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || b->oom) return;
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = (b->cap ? b->cap * 2 : 256) + (size_t)n;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->oom = true;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* s quoted for the shell. */
static void put_sh(buf *b, const char *s) {
  put(b, "'");
  for (; *s; s++) {
    if (*s == '\'') put(b, "'\\''");
    else put(b, "%c", *s);
  }
  put(b, "'");
}

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The run's arguments of a point, without the cubesim binary and the output. */
static void point_args(const sweep *sw, const param *p, size_t n, buf *b) {
  put(b, "run ");
  put_sh(b, sw->kernel);
  const char *config = sw->config;
  for (size_t i = 0; i < n; i++)
    if (p[i].kind == KEY_CONFIG) config = p[i].value;
  if (config) {
    put(b, " --config ");
    put_sh(b, config);
  }
  for (int pass = 0; pass < 2; pass++) {
    key_kind k = pass ? KEY_SET : KEY_ATTR;
    const char *opt = pass ? " --set " : " --attr ";
    for (size_t i = 0; i < sw->nfixed; i++) {
      bool overridden = false; /* a varying value wins over a fixed one */
      for (size_t j = 0; j < n; j++) overridden |= strcmp(p[j].name, sw->fixed[i].name) == 0;
      if (sw->fixed[i].kind != k || overridden) continue;
      put(b, "%s", opt);
      put_sh(b, sw->fixed[i].name);
      put(b, "=");
      put_sh(b, sw->fixed[i].value);
    }
    for (size_t i = 0; i < n; i++) {
      if (p[i].kind != k) continue;
      put(b, "%s", opt);
      put_sh(b, p[i].name);
      put(b, "=");
      put_sh(b, p[i].value);
    }
  }
  for (size_t i = 0; i < sw->noptions; i++) {
    put(b, " ");
    put_sh(b, sw->options[i]);
  }
  put(b, " --quiet --record-refusal --json-file");
}

/* The point's ID: its varying values in a file name, and a hash of its arguments. */
static void point_id(const param *p, size_t n, const char *args, char *id, size_t cap) {
  size_t w = 0;
  for (size_t i = 0; i < n && w + 1 < cap; i++) {
    const char *v = p[i].value;
    if (p[i].kind == KEY_CONFIG) { /* the file's name */
      const char *slash = strrchr(v, '/');
      v = slash ? slash + 1 : v;
    }
    char part[160];
    snprintf(part, sizeof part, "%s%s-%s", i ? "_" : "", p[i].name, v);
    for (const char *c = part; *c && w + 1 < cap && w < 80; c++)
      id[w++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
                               *c == '-' || *c == '.'
                           ? *c
                           : '-');
  }
  snprintf(id + w, cap - w, "%s%08" PRIx64, w ? "-" : "p", fnv1a(args) & 0xffffffffu);
}

/* The cubesim binary the points run: this one. */
static cs_status self_path(char *out, size_t cap, cs_err *err) {
  ssize_t n = readlink("/proc/self/exe", out, cap - 1);
  if (n <= 0) return cs_err_set(err, CS_EIO, "cannot find the cubesim binary (/proc/self/exe): %s", strerror(errno));
  out[n] = '\0';
  return CS_OK;
}

/* ---- the files ------------------------------------------------------------------------------ */

/* Ninja's escapes: $ in a value, $, space and : in a path. */
static void put_ninja(buf *b, const char *s, bool path) {
  for (; *s; s++) {
    if (*s == '$' || (path && (*s == ' ' || *s == ':'))) put(b, "$");
    put(b, "%c", *s);
  }
}

typedef struct emitted {
  buf ninja, commands;
} emitted;

static cs_status make_files(const sweep *sw, const char *self, emitted *e, cs_err *err) {
  size_t n = point_count(sw);
  if (n > MAX_POINTS) return cs_err_set(err, CS_EINVAL, "%zu points: at most %d", n, MAX_POINTS);
  put(&e->ninja, "# cubesim sweep: one edge per point (cubesim sweep --help)\nninja_required_version = 1.3\n\n"
                 "rule point\n  command = $cmd\n  description = $id\n\n");
  for (size_t i = 0; i < n; i++) {
    param p[2 * MAX_KEYS];
    size_t np = point_params(sw, i, p);
    buf args = {0};
    point_args(sw, p, np, &args);
    if (args.oom) return cs_err_set(err, CS_ENOMEM, "no host memory");
    char id[160];
    point_id(p, np, args.s, id, sizeof id);
    buf cmd = {0};
    put_sh(&cmd, self);
    put(&cmd, " %s ", args.s);
    char out[PATH_MAX + 200];
    snprintf(out, sizeof out, "%s/points/%s.json", sw->dir, id);
    put_sh(&cmd, out);
    put(&cmd, " >/dev/null"); /* the summary is in the file; a refusal's note stays on stderr */
    put(&e->commands, "%s\n", cmd.s);
    put(&e->ninja, "build points/");
    put_ninja(&e->ninja, id, true);
    put(&e->ninja, ".json: point | ");
    put_ninja(&e->ninja, self, true);
    const char *config = sw->config;
    for (size_t k = 0; k < np; k++)
      if (p[k].kind == KEY_CONFIG) config = p[k].value;
    if (config) {
      put(&e->ninja, " ");
      put_ninja(&e->ninja, config, true);
    }
    put(&e->ninja, "\n  id = %s\n  cmd = ", id);
    put_ninja(&e->ninja, cmd.s, false);
    put(&e->ninja, "\n");
    free(args.s);
    free(cmd.s);
  }
  if (e->ninja.oom || e->commands.oom) return cs_err_set(err, CS_ENOMEM, "no host memory");
  return CS_OK;
}

static cs_status fill_text(FILE *f, void *ctx, cs_err *err) {
  (void)err;
  const buf *b = ctx;
  if (b->len) fwrite(b->s, 1, b->len, f);
  return CS_OK;
}

static cs_status make_dirs(const sweep *sw, cs_err *err) {
  char points[PATH_MAX + 16];
  snprintf(points, sizeof points, "%s/points", sw->dir);
  if (mkdir(sw->dir, 0777) != 0 && errno != EEXIST) return cs_err_set(err, CS_EIO, "%s: cannot create it: %s", sw->dir, strerror(errno));
  if (mkdir(points, 0777) != 0 && errno != EEXIST) return cs_err_set(err, CS_EIO, "%s: cannot create it: %s", points, strerror(errno));
  return CS_OK;
}

static cs_status write_in(const sweep *sw, const char *name, buf *b, cs_err *err) {
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/%s", sw->dir, name);
  return cs_out_write_file(name, path, fill_text, b, err);
}

static cs_status write_slurm(const sweep *sw, size_t chunk, cs_err *err) {
  size_t n = point_count(sw), tasks = (n + chunk - 1) / chunk;
  buf b = {0};
  put(&b, "#!/bin/sh\n# cubesim sweep: a Slurm job array over chunks of %zu points of commands.txt; then\n"
          "# cubesim sweep SWEEP.yaml --collect writes results.csv and report.html\n",
      chunk);
  put(&b, "#SBATCH --job-name=cubesim-sweep\n#SBATCH --array=0-%zu\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n",
      tasks - 1);
  put(&b, "#SBATCH --output=");
  put(&b, "%s/slurm-%%A_%%a.out\n", sw->dir);
  put(&b, "set -eu\nchunk=%zu\nfirst=$((SLURM_ARRAY_TASK_ID * chunk + 1))\nlast=$((first + chunk - 1))\n", chunk);
  put(&b, "sed -n \"${first},${last}p\" ");
  char cmds[PATH_MAX + 16];
  snprintf(cmds, sizeof cmds, "%s/commands.txt", sw->dir);
  put_sh(&b, cmds);
  put(&b, " | while IFS= read -r cmd; do sh -c \"$cmd\"; done\n");
  cs_status st = b.oom ? cs_err_set(err, CS_ENOMEM, "no host memory") : write_in(sw, "sweep.sbatch", &b, err);
  free(b.s);
  return st;
}

/* Runs ninja in the sweep's directory (its output is the user's). */
static cs_status run_ninja(cli_io *io, const sweep *sw, const char *jobs, cs_err *err) {
  fflush(io->out);
  fflush(io->err);
  pid_t pid = fork();
  if (pid < 0) return cs_err_set(err, CS_EIO, "cannot start ninja: %s", strerror(errno));
  if (pid == 0) {
    char *argv[8];
    int a = 0;
    argv[a++] = "ninja";
    argv[a++] = "-C";
    argv[a++] = sw->dir;
    if (jobs) {
      argv[a++] = "-j";
      argv[a++] = (char *)jobs;
    }
    argv[a++] = "-k";
    argv[a++] = "0";
    argv[a] = NULL;
    execvp("ninja", argv);
    fprintf(stderr, "cubesim sweep: error: cannot run ninja: %s (apt-get install ninja-build)\n", strerror(errno));
    _exit(127);
  }
  int status;
  if (waitpid(pid, &status, 0) < 0) return cs_err_set(err, CS_EIO, "ninja: %s", strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return cs_err_set(err, CS_EIO, "ninja failed (status %d): a point could not be run (its error is above)",
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return CS_OK;
}

/* ---- collecting -------------------------------------------------------------------------- */

static const char *const tracks[] = {"CUBE", "SCALAR", "MTE1", "MTE2", "FIXP", "VECTOR", "MTE3"};
#define N_TRACKS (sizeof tracks / sizeof tracks[0])

/* A point and its result. */
typedef struct row {
  char id[160];
  param p[2 * MAX_KEYS];
  size_t np;
  cs_jdoc *doc; /* NULL: missing or unreadable */
  const char *status;
  double time_us;
} row;

/* The metric columns: name, path in the run's JSON, printf format. */
static const struct {
  const char *name, *path;
} metrics[] = {
    {"time_us", "time_us"},
    {"total_cycles", "total_cycles"},
    {"aicore_time_us", "aicore_time_us"},
    {"blocks", "blocks"},
    {"critical_core", "critical_core"},
    {"cube_utilization", "cube_utilization"},
    {"macs", "macs"},
    {"gm_read_bytes", "gm.read_bytes"},
    {"gm_write_bytes", "gm.write_bytes"},
    {"hbm_read_bytes", "gm.hbm_read_bytes"},
    {"hbm_write_bytes", "gm.hbm_write_bytes"},
    {"l2_hit_rate", "l2.hit_rate"},
    {"hazards", "hazards.count"},
};
#define N_METRICS (sizeof metrics / sizeof metrics[0])

static void csv_field(FILE *f, const char *s) {
  if (!s) return;
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The attribute names of the sweep's operator, from the points' JSON, in their order. */
typedef struct names {
  const char *v[128];
  size_t n;
} names;

static void add_name(names *nm, const char *s) {
  for (size_t i = 0; i < nm->n; i++)
    if (strcmp(nm->v[i], s) == 0) return;
  if (nm->n < sizeof nm->v / sizeof nm->v[0]) nm->v[nm->n++] = s;
}

typedef struct collected {
  const sweep *sw;
  row *rows;
  size_t n;
  names attrs, sets; /* attribute and --set columns */
  bool config_col;
  size_t best;       /* SIZE_MAX: none */
} collected;

static const char *attr_of(const row *r, const char *name, char *tmp, size_t cap) {
  for (size_t i = 0; i < r->np; i++)
    if (strcmp(r->p[i].name, name) == 0) return r->p[i].value;
  if (!r->doc) return NULL;
  const cs_jvalue *v = cs_jmember(cs_jget(cs_jroot(r->doc), "attributes"), name);
  if (!v) v = cs_jmember(cs_jget(cs_jroot(r->doc), "given"), name);
  if (!v || cs_jis(v, CS_JNULL)) return NULL;
  if (cs_jis(v, CS_JSTRING)) return cs_jstring(v);
  if (cs_jis(v, CS_JNUMBER)) return cs_jnumber_text(v);
  bool b;
  if (cs_jbool(v, &b)) {
    snprintf(tmp, cap, "%s", b ? "true" : "false");
    return tmp;
  }
  return NULL;
}

static const char *set_of(const collected *c, const row *r, const char *name) {
  for (size_t i = 0; i < r->np; i++)
    if (strcmp(r->p[i].name, name) == 0) return r->p[i].value;
  for (size_t i = 0; i < c->sw->nfixed; i++)
    if (strcmp(c->sw->fixed[i].name, name) == 0) return c->sw->fixed[i].value;
  return NULL;
}

static const char *config_of(const collected *c, const row *r) {
  for (size_t i = 0; i < r->np; i++)
    if (r->p[i].kind == KEY_CONFIG) return r->p[i].value;
  return c->sw->config;
}

static cs_status fill_csv(FILE *f, void *ctx, cs_err *err) {
  (void)err;
  const collected *c = ctx;
  fputs("point,status", f);
  if (c->config_col) fputs(",config", f);
  for (size_t i = 0; i < c->sets.n; i++) fprintf(f, ",set.%s", c->sets.v[i]);
  for (size_t i = 0; i < c->attrs.n; i++) fprintf(f, ",%s", c->attrs.v[i]);
  for (size_t i = 0; i < N_METRICS; i++) fprintf(f, ",%s", metrics[i].name);
  for (size_t i = 0; i < N_TRACKS; i++) fprintf(f, ",%s_time_us,%s_ratio,%s_critical_us", tracks[i], tracks[i], tracks[i]);
  fputs(",error\n", f);
  for (size_t r = 0; r < c->n; r++) {
    const row *w = &c->rows[r];
    const cs_jvalue *run = w->doc ? cs_jroot(w->doc) : NULL;
    bool ok = strcmp(w->status, "ok") == 0;
    fprintf(f, "%s,%s", w->id, w->status);
    if (c->config_col) {
      fputc(',', f);
      csv_field(f, config_of(c, w));
    }
    for (size_t i = 0; i < c->sets.n; i++) {
      fputc(',', f);
      csv_field(f, set_of(c, w, c->sets.v[i]));
    }
    for (size_t i = 0; i < c->attrs.n; i++) {
      char tmp[16];
      fputc(',', f);
      csv_field(f, attr_of(w, c->attrs.v[i], tmp, sizeof tmp));
    }
    for (size_t i = 0; i < N_METRICS; i++) {
      fputc(',', f);
      if (ok) csv_field(f, cs_jnumber_text(cs_jget(run, metrics[i].path)));
    }
    for (size_t i = 0; i < N_TRACKS; i++) {
      static const char *const fields[3] = {"avg_time_us", "ratio", "critical_time_us"};
      for (int k = 0; k < 3; k++) {
        char path[64];
        snprintf(path, sizeof path, "pipes.%s.%s", tracks[i], fields[k]);
        fputc(',', f);
        if (ok) csv_field(f, cs_jnumber_text(cs_jget(run, path)));
      }
    }
    fputc(',', f);
    if (run && !ok) csv_field(f, cs_jget_string(run, "error"));
    if (!run) csv_field(f, "no result: the point did not run (or its file is not a run's JSON)");
    fputc('\n', f);
  }
  return CS_OK;
}

/* ---- the sweep's report ------------------------------------------------------------------ */

static const char *param_value(const collected *c, const row *r, const char *name, char *tmp, size_t cap) {
  if (strcmp(name, "config") == 0) return config_of(c, r);
  if (strchr(name, '.')) return set_of(c, r, name);
  return attr_of(r, name, tmp, cap);
}

/* The heatmap over two keys: each cell the best time of the points with those two values. */
static void heatmap(FILE *f, const collected *c, const char *ax, const char *ay) {
  const char *xs[MAX_VALUES], *ys[MAX_VALUES];
  size_t nx = 0, ny = 0;
  for (size_t r = 0; r < c->n; r++) {
    char t1[16], t2[16];
    const char *x = param_value(c, &c->rows[r], ax, t1, sizeof t1), *y = param_value(c, &c->rows[r], ay, t2, sizeof t2);
    if (!x || !y) continue;
    bool fx = false, fy = false;
    for (size_t i = 0; i < nx; i++) fx |= strcmp(xs[i], x) == 0;
    for (size_t i = 0; i < ny; i++) fy |= strcmp(ys[i], y) == 0;
    if (!fx && nx < MAX_VALUES) xs[nx++] = x;
    if (!fy && ny < MAX_VALUES) ys[ny++] = y;
  }
  if (!nx || !ny) return;
  double lo = INFINITY, hi = 0;
  for (size_t r = 0; r < c->n; r++)
    if (strcmp(c->rows[r].status, "ok") == 0) {
      if (c->rows[r].time_us < lo) lo = c->rows[r].time_us;
      if (c->rows[r].time_us > hi) hi = c->rows[r].time_us;
    }
  int cw = 90, ch = 28, lw = 110, th = 40;
  fputs("<h2>Heatmap</h2>\n<p class=\"note\">The best task time (us) of the points with each pair of values; green is "
        "fast, red slow, grey refused.</p>\n",
        f);
  fprintf(f, "<svg id=\"heatmap\" width=\"%zu\" height=\"%zu\">\n", lw + nx * (size_t)cw + 10, th + ny * (size_t)ch + 30);
  fprintf(f, "<text x=\"%d\" y=\"14\">", lw);
  trc_html_esc(f, ax);
  fputs(" &#8594;</text><text x=\"4\" y=\"14\">", f);
  trc_html_esc(f, ay);
  fputs(" &#8595;</text>\n", f);
  for (size_t i = 0; i < nx; i++) {
    fprintf(f, "<text x=\"%zu\" y=\"32\" text-anchor=\"middle\">", lw + i * (size_t)cw + (size_t)cw / 2);
    trc_html_esc(f, xs[i]);
    fputs("</text>", f);
  }
  for (size_t j = 0; j < ny; j++) {
    fprintf(f, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", lw - 6, th + j * (size_t)ch + 18);
    trc_html_esc(f, ys[j]);
    fputs("</text>\n", f);
    for (size_t i = 0; i < nx; i++) {
      double best = INFINITY;
      bool any = false;
      for (size_t r = 0; r < c->n; r++) {
        char t1[16], t2[16];
        const char *x = param_value(c, &c->rows[r], ax, t1, sizeof t1),
                   *y = param_value(c, &c->rows[r], ay, t2, sizeof t2);
        if (!x || !y || strcmp(x, xs[i]) || strcmp(y, ys[j])) continue;
        any = true;
        if (strcmp(c->rows[r].status, "ok") == 0 && c->rows[r].time_us < best) best = c->rows[r].time_us;
      }
      size_t x0 = lw + i * (size_t)cw, y0 = th + j * (size_t)ch;
      if (!any) continue;
      if (!isfinite(best)) {
        fprintf(f, "<rect class=\"cell refused\" x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"%d\" fill=\"#ccc\"/>"
                   "<text x=\"%zu\" y=\"%zu\" text-anchor=\"middle\">refused</text>\n",
                x0, y0, cw - 2, ch - 2, x0 + (size_t)cw / 2, y0 + 18);
        continue;
      }
      double t = hi > lo ? (best - lo) / (hi - lo) : 0; /* 0 fast .. 1 slow */
      fprintf(f, "<rect class=\"cell\" x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"%d\" fill=\"hsl(%.0f,70%%,60%%)\"/>"
                 "<text x=\"%zu\" y=\"%zu\" text-anchor=\"middle\">%.4g</text>\n",
              x0, y0, cw - 2, ch - 2, 120.0 * (1 - t), x0 + (size_t)cw / 2, y0 + 18, best);
    }
  }
  fputs("</svg>\n", f);
}

static cs_status fill_report(FILE *f, void *ctx, cs_err *err) {
  (void)err;
  const collected *c = ctx;
  char title[200];
  snprintf(title, sizeof title, "cubesim sweep: %s, %zu points", c->sw->kernel, c->n);
  trc_html_begin(f, title);
  size_t ok = 0, refused = 0;
  for (size_t r = 0; r < c->n; r++) {
    if (strcmp(c->rows[r].status, "ok") == 0) ok++;
    else if (strcmp(c->rows[r].status, "refused") == 0) refused++;
  }
  fprintf(f, "<div class=\"sub\">%zu ran, %zu refused, %zu without a result.", ok, refused, c->n - ok - refused);
  if (c->best != SIZE_MAX) {
    fputs(" Best: ", f);
    trc_html_esc(f, c->rows[c->best].id);
    fprintf(f, " at %.3f us.", c->rows[c->best].time_us);
  }
  fputs("</div>\n", f);
  const char *ax = c->sw->axes[0], *ay = c->sw->axes[1];
  if (!ax && c->sw->ngrid >= 2) ax = c->sw->grid[0].name, ay = c->sw->grid[1].name;
  if (ax && ay) heatmap(f, c, ax, ay);
  fputs("<h2>Points</h2>\n<p class=\"note\">Click a column to sort; the best point is highlighted.</p>\n"
        "<table class=\"sortable\" id=\"points\"><thead><tr><th>point</th><th>status</th>",
        f);
  param head[2 * MAX_KEYS];
  size_t nh = c->n ? point_params(c->sw, 0, head) : 0;
  for (size_t i = 0; i < nh; i++) {
    fputs("<th>", f);
    trc_html_esc(f, head[i].name);
    fputs("</th>", f);
  }
  fputs("<th>time us</th><th>aicore us</th><th>cube util</th>", f);
  for (size_t i = 0; i < N_TRACKS; i++) fprintf(f, "<th>%s ratio</th>", tracks[i]);
  fputs("<th>GM bytes</th><th>L2 hit</th></tr></thead><tbody>\n", f);
  for (size_t r = 0; r < c->n; r++) {
    const row *w = &c->rows[r];
    const cs_jvalue *run = w->doc ? cs_jroot(w->doc) : NULL;
    bool isok = strcmp(w->status, "ok") == 0;
    fprintf(f, "<tr%s><td>", r == c->best ? " class=\"best\"" : "");
    trc_html_esc(f, w->id);
    fprintf(f, "</td><td class=\"%s\">%s</td>", isok ? "good" : "bad", w->status);
    for (size_t i = 0; i < w->np; i++) {
      fputs("<td>", f);
      trc_html_esc(f, w->p[i].value);
      fputs("</td>", f);
    }
    if (!isok) {
      fprintf(f, "<td colspan=\"%zu\" style=\"text-align:left\">", 5 + N_TRACKS);
      trc_html_esc(f, run ? cs_jget_string(run, "error") : "no result");
      fputs("</td></tr>\n", f);
      continue;
    }
    double x = 0;
    cs_jget_number(run, "aicore_time_us", &x);
    fprintf(f, "<td>%.3f</td><td>%.3f</td>", w->time_us, x);
    cs_jget_number(run, "cube_utilization", &x);
    fprintf(f, "<td>%.1f%%</td>", 100 * x);
    for (size_t i = 0; i < N_TRACKS; i++) {
      char path[64];
      snprintf(path, sizeof path, "pipes.%s.ratio", tracks[i]);
      x = 0;
      cs_jget_number(run, path, &x);
      fprintf(f, "<td>%.3f</td>", x);
    }
    double rd = 0, wr = 0;
    cs_jget_number(run, "gm.read_bytes", &rd);
    cs_jget_number(run, "gm.write_bytes", &wr);
    cs_jget_number(run, "l2.hit_rate", &x);
    fprintf(f, "<td data-v=\"%.0f\">%.4g</td><td>%.1f%%</td></tr>\n", rd + wr, rd + wr, 100 * x);
  }
  fputs("</tbody></table>\n", f);
  trc_html_end(f, NULL);
  return CS_OK;
}

static cs_status collect(cli_io *io, const sweep *sw, const char *self, cs_err *err) {
  collected c = {.sw = sw, .best = SIZE_MAX};
  c.n = point_count(sw);
  c.rows = calloc(c.n ? c.n : 1, sizeof *c.rows);
  if (!c.rows) return cs_err_set(err, CS_ENOMEM, "no host memory");
  for (size_t i = 0; i < c.n; i++) {
    row *w = &c.rows[i];
    w->np = point_params(sw, i, w->p);
    buf args = {0};
    point_args(sw, w->p, w->np, &args);
    point_id(w->p, w->np, args.s ? args.s : "", w->id, sizeof w->id);
    free(args.s);
    char path[PATH_MAX + 200];
    snprintf(path, sizeof path, "%s/points/%s.json", sw->dir, w->id);
    cs_jerror je;
    w->doc = access(path, R_OK) == 0 ? cs_jparse_file(path, &je) : NULL;
    const char *st = w->doc ? cs_jget_string(cs_jroot(w->doc), "status") : NULL;
    w->status = st && (strcmp(st, "ok") == 0 || strcmp(st, "refused") == 0) ? st : "missing";
    if (strcmp(w->status, "ok") == 0 && !cs_jget_number(cs_jroot(w->doc), "time_us", &w->time_us)) w->status = "missing";
    if (strcmp(w->status, "ok") == 0 && (c.best == SIZE_MAX || w->time_us < c.rows[c.best].time_us)) c.best = i;
    const cs_jvalue *attrs = w->doc ? cs_jget(cs_jroot(w->doc), "attributes") : NULL;
    for (size_t k = 0; k < cs_jcount(attrs); k++) add_name(&c.attrs, cs_jkey_at(attrs, k));
    for (size_t k = 0; k < w->np; k++) {
      if (w->p[k].kind == KEY_ATTR) add_name(&c.attrs, w->p[k].name);
      if (w->p[k].kind == KEY_SET) add_name(&c.sets, w->p[k].name);
      if (w->p[k].kind == KEY_CONFIG) c.config_col = true;
    }
  }
  for (size_t k = 0; k < sw->nfixed; k++)
    if (sw->fixed[k].kind == KEY_SET) add_name(&c.sets, sw->fixed[k].name);
  if (sw->config) c.config_col = true;
  char csv[PATH_MAX + 32], html[PATH_MAX + 32];
  snprintf(csv, sizeof csv, "%s/results.csv", sw->dir);
  snprintf(html, sizeof html, "%s/report.html", sw->dir);
  cs_out_set *set = NULL;
  cs_out *o_csv = NULL, *o_html = NULL;
  cs_status st = cs_out_set_create(cli_temps_hooks(), &set, err);
  if (st == CS_OK) st = cs_out_add(set, "results.csv", csv, &o_csv, err);
  if (st == CS_OK) st = cs_out_add(set, "report.html", html, &o_html, err);
  FILE *f;
  if (st == CS_OK && (st = cs_out_stream(o_csv, &f, err)) == CS_OK) st = fill_csv(f, &c, err);
  if (st == CS_OK && (st = cs_out_stream(o_html, &f, err)) == CS_OK) st = fill_report(f, &c, err);
  if (st == CS_OK) st = cs_out_set_commit(set, err);
  cs_out_set_destroy(set);
  if (st == CS_OK) {
    size_t ok = 0, refused = 0;
    for (size_t i = 0; i < c.n; i++) ok += strcmp(c.rows[i].status, "ok") == 0, refused += strcmp(c.rows[i].status, "refused") == 0;
    fprintf(io->out, "%zu points: %zu ran, %zu refused, %zu without a result\n", c.n, ok, refused, c.n - ok - refused);
    if (c.best != SIZE_MAX) fprintf(io->out, "best: %s, %.3f us\n", c.rows[c.best].id, c.rows[c.best].time_us);
    for (size_t i = 0; i < c.n; i++)
      if (strcmp(c.rows[i].status, "refused") == 0)
        fprintf(io->out, "refused: %s: %s\n", c.rows[i].id, cs_jget_string(cs_jroot(c.rows[i].doc), "error"));
    fprintf(io->out, "results: %s\nreport:  %s\n", csv, html);
  }
  (void)self;
  for (size_t i = 0; i < c.n; i++) cs_jfree(c.rows[i].doc);
  free(c.rows);
  return st;
}

/* ---- the command ------------------------------------------------------------------------- */

int cli_cmd_sweep(cli_io *io, int argc, char **argv) {
  const char *file = NULL, *dir = NULL, *jobs = NULL, *emit = NULL, *v;
  bool only_collect = false;
  uint64_t chunk = 4;
  cs_err err = {CS_OK, ""};
  for (int i = 1; i < argc; i++) {
    int r;
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(sweep_usage, io->out);
      return 0;
    }
    if ((r = cli_opt(argc, argv, &i, "--dir", &dir, &err)) != 0 || (r = cli_opt(argc, argv, &i, "-j", &jobs, &err)) != 0 ||
        (r = cli_opt(argc, argv, &i, "--emit", &emit, &err)) != 0) {
      if (r < 0) return cli_fail(io, CMD, &err);
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--chunk", &v, &err)) != 0) {
      if (r < 0 || cs_parse_u64(v, "--chunk", &chunk, &err) != CS_OK) return cli_fail(io, CMD, &err);
      if (chunk == 0) return cli_usage_error(io, CMD, "--chunk 0: at least one point per array task");
      continue;
    }
    if (cli_flag(argv, i, "--collect")) only_collect = true;
    else if (argv[i][0] == '-') return cli_unknown_option(io, CMD, argv[i], sweep_usage);
    else if (!file) file = argv[i];
    else return cli_usage_error(io, CMD, "unexpected argument '%s' (one SWEEP.yaml)", argv[i]);
  }
  if (!file) return cli_usage_error(io, CMD, "no SWEEP.yaml given (cubesim sweep --help shows one)");
  if (emit && strcmp(emit, "ninja") && strcmp(emit, "slurm") && strcmp(emit, "parallel"))
    return cli_usage_error(io, CMD, "--emit %s: expected ninja, slurm or parallel", emit);
  if (jobs) {
    uint64_t j;
    if (cs_parse_u64(jobs, "-j", &j, &err) != CS_OK) return cli_fail(io, CMD, &err);
  }
  sweep sw;
  char self[PATH_MAX];
  cs_status st = sweep_read(file, dir, &sw, &err);
  if (st == CS_OK) st = self_path(self, sizeof self, &err);
  if (st == CS_OK && !only_collect) {
    emitted e = {{0}, {0}};
    st = make_dirs(&sw, &err);
    if (st == CS_OK) st = make_files(&sw, self, &e, &err);
    if (st == CS_OK) st = write_in(&sw, "commands.txt", &e.commands, &err);
    if (st == CS_OK) st = write_in(&sw, "build.ninja", &e.ninja, &err);
    if (st == CS_OK && emit && strcmp(emit, "slurm") == 0) st = write_slurm(&sw, (size_t)chunk, &err);
    free(e.ninja.s);
    free(e.commands.s);
    if (st == CS_OK && emit) {
      /* the collect line to paste: with the --dir given, or it would look in the default one */
      const char *dir_opt = dir ? " --dir " : "", *dir_arg = dir ? dir : "";
      if (strcmp(emit, "slurm") == 0)
        fprintf(io->out, "wrote %s/sweep.sbatch (%zu points, %" PRIu64 " per array task): sbatch --wait %s/sweep.sbatch, "
                         "then cubesim sweep %s --collect%s%s\n",
                sw.dir, point_count(&sw), chunk, sw.dir, file, dir_opt, dir_arg);
      else if (strcmp(emit, "parallel") == 0)
        fprintf(io->out, "wrote %s/commands.txt (%zu points): parallel < %s/commands.txt, then cubesim sweep %s "
                         "--collect%s%s\n",
                sw.dir, point_count(&sw), sw.dir, file, dir_opt, dir_arg);
      else fprintf(io->out, "wrote %s/build.ninja (%zu points): ninja -C %s, then cubesim sweep %s --collect%s%s\n",
                   sw.dir, point_count(&sw), sw.dir, file, dir_opt, dir_arg);
    }
    if (st == CS_OK && !emit) st = run_ninja(io, &sw, jobs, &err);
  }
  if (st == CS_OK && (only_collect || !emit)) st = collect(io, &sw, self, &err);
  sweep_free(&sw);
  if (st != CS_OK) return cli_fail(io, CMD, &err);
  return 0;
}
