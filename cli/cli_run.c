/* cli_run — `cubesim run KERNEL ...` (run a kernel or operator on the simulated chip, or on the
 * host for host operators) and `cubesim kernels` (what each one takes). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cs_host.h"
#include "base/cs_json.h"
#include "base/cs_jsonr.h"
#include "base/cs_npy.h"
#include "base/cs_parse.h"
#include "cli/cli.h"
#include "kernels/kn_op.h"
#include "kernels/kn_plugin.h"
#include "sim/sim_program.h"
#include "sim/sim_trace.h"
#include "traces/trc_msprof.h"
#include "traces/trc_report.h"
#include "traces/trc_summary.h"
#include "traces/trc_timeline.h"

#define MAX_ARGS 32

static const char *const run_usage =
    "usage: cubesim run KERNEL [--in NAME=FILE.npy]... [--attr KEY=VALUE]... [--out NAME=FILE.npy]...\n"
    "                   [--config FILE.yaml] [--set SECTION.KEY=VALUE]... [--cores N]\n"
    "                   [--plugin LIB.so]... [--trace FILE [--trace-...]]\n"
    "                   [--timing-only] [--check] [--json] [--allow-hazards] [--seed N] [--quiet]\n"
    "                   [--csv FILE.csv] [--dump-stream FILE.s] [--tiling FILE.json]\n"
    "                   [--json-file FILE.json] [--timeline] [--report FILE.html]\n"
    "                   [--msprof-dir DIR] [--record-refusal] [--max-memory SIZE]\n"
    "\n"
    "Runs KERNEL (cubesim kernels lists them, with their inputs, attributes and outputs) on the\n"
    "simulated chip of the configuration (the built-in Ascend 910B by default). With no --in at\n"
    "all, the inputs are generated deterministically from the shape attributes (m, n, k, ...).\n"
    "  --in NAME=FILE.npy     an input, by the name of the operator's document\n"
    "  --attr KEY=VALUE       an attribute\n"
    "  --tiling FILE.json     a TCubeTiling (camelCase fields, as Ascend's tiling API prints it) for\n"
    "                         the matmul operators' tiling attributes; --attr overrides its fields\n"
    "  --out NAME=FILE.npy    write an output (bf16 is written as float32, int4 as int8)\n"
CLI_CHIP_USAGE
    "  --plugin LIB.so        load the operators of a plug-in (docs/API.md, \"Plug-ins\"); repeatable\n"
CLI_TRACE_USAGE
    "  --timing-only          simulate time only: no data, no outputs (fast for large shapes)\n"
    "  --check                compare every output with the host reference, bit for bit\n"
    "  --json                 print the results as JSON\n"
    "  --allow-hazards        report data hazards without failing the run\n"
    "  --seed N               seed of generated inputs (default 1)\n"
    "  --quiet                no progress line (shown on a terminal for runs over a second)\n"
    "  --threads N            host threads the run may take (default: the host's processors, or\n"
    "                         CUBESIM_THREADS): a timing-only matmul's cores recorded at once,\n"
    "                         the hazard check beside the replay; the same results\n"
    "  --max-memory SIZE      host memory the run may take (8G, 512M, 50%; default 80% of the\n"
    "                         host's): a run estimated to need more is refused before it starts\n"
    "  --csv FILE.csv         per-core summary with msprof-like columns (traces/FORMAT.md)\n"
    "  --dump-stream FILE.s   the recorded instruction streams as a text program: cubesim exec\n"
    "                         runs it again, e.g. under another --config\n"
    "  --json-file FILE.json  write the run's JSON (what --json prints) to a file, for\n"
    "                         cubesim report and cubesim compare\n"
    "  --timeline             add the busy spans of every core and pipe to the JSON\n"
    "  --report FILE.html     a self-contained HTML report: timeline, pipes, roofline, bytes\n"
    "  --msprof-dir DIR       msprof's CSV files (PipeUtilization.csv, Memory.csv, ...) in DIR\n"
    "  --record-refusal       a run the kernel, tiling or configuration refuses is recorded in\n"
    "                         --json-file (status \"refused\") and exits 0 (for sweeps)\n";

typedef struct kv {
  const char *key;
  const char *val;
} kv;

/* Splits "NAME=VALUE" (a pointer into argv; the '=' is not modified). */
static int split_kv(const char *arg, const char *opt, kv *out, cs_err *err) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg) {
    cs_err_set(err, CS_EINVAL, "%s '%s': expected NAME=VALUE", opt, arg);
    return -1;
  }
  out->key = arg;
  out->val = eq + 1;
  return 0;
}

/* "NAME=..." key length. */
static size_t keylen(const kv *k) { return (size_t)(strchr(k->key, '=') - k->key); }

static int key_is(const kv *k, const char *name) {
  return keylen(k) == strlen(name) && strncmp(k->key, name, keylen(k)) == 0;
}

static isa_dtype dtype_of_npy(cs_npy_dtype t) {
  switch (t) {
    case CS_NPY_I8: return ISA_INT8;
    case CS_NPY_U8: return ISA_UINT8;
    case CS_NPY_I16: return ISA_INT16;
    case CS_NPY_U16: return ISA_UINT16;
    case CS_NPY_I32: return ISA_INT32;
    case CS_NPY_I64: return ISA_INT64;
    case CS_NPY_U64: return ISA_UINT64;
    case CS_NPY_F16: return ISA_FP16;
    case CS_NPY_F32: return ISA_FP32;
    default: return ISA_DTYPE_COUNT;
  }
}

/* The .npy type a tensor travels as (isa_dtype.h: bf16 as fp32, int4 / uint4 as int8 / uint8). */
static cs_npy_dtype npy_of_dtype(isa_dtype t) { return cs_npy_dtype_from_descr(isa_dtype_npy_descr(t)); }

static cs_status load_input(kn_ctx *ctx, const kv *in, uint64_t max_memory, cs_err *err) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)keylen(in), in->key);
  cs_npy a;
  memset(&a, 0, sizeof a);
  cs_status st = cs_npy_read_max(in->val, max_memory, &a, err);
  if (st != CS_OK) {
    cs_npy_free(&a);
    return st;
  }
  isa_dtype dt = dtype_of_npy(a.dtype);
  if (dt == ISA_DTYPE_COUNT) {
    st = cs_err_set(err, CS_EINVAL, "%s: %s has dtype %s, which no operator takes", name, in->val,
                    cs_npy_dtype_name(a.dtype));
    cs_npy_free(&a); /* after the message: freeing zeroes a, dtype included */
    return st;
  }
  kn_tensor t;
  uint64_t shape[KN_MAX_DIMS];
  for (int i = 0; i < a.ndim; i++) shape[i] = a.shape[i];
  st = kn_tensor_alloc(&t, name, dt, (uint32_t)a.ndim, shape, err);
  if (st == CS_OK) {
    memcpy(t.data, a.data, a.data_bytes);
    st = kn_set_input(ctx, name, &t, err);
    if (st != CS_OK) cs_err_prefix(err, "%s", in->val);
  }
  cs_npy_free(&a);
  return st;
}

/* The attributes a --tiling file sets (docs/KERNELS.md, "Tiling"): each TCubeTiling field as its
 * snake_case attribute; M, N and Ka/Kb as the shape attributes m, n and k, isBias as has_bias. */
typedef struct tiling_attrs {
  char name[RT_TF_COUNT][32];
  char value[RT_TF_COUNT][32];
  int n;
} tiling_attrs;

static cs_status read_tiling_file(const char *path, tiling_attrs *out, char *ignored, size_t ignored_bytes, cs_err *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return cs_err_set(err, cs_errno_status(errno, CS_EIO), "--tiling %s: cannot open it: %s", path, strerror(errno));
  char buf[65536];
  size_t len = fread(buf, 1, sizeof buf, f);
  bool more = len == sizeof buf && fgetc(f) != EOF, bad = ferror(f) != 0;
  fclose(f);
  if (bad) return cs_err_set(err, CS_EIO, "--tiling %s: cannot read it", path);
  if (more) return cs_err_set(err, CS_EINVAL, "--tiling %s: more than %zu bytes; a TCubeTiling is a few hundred", path, sizeof buf);
  rt_tiling t;
  rt_tiling_mask found;
  memset(&t, 0, sizeof t);
  cs_status st = rt_tiling_read_json(buf, len, path, &t, &found, ignored, ignored_bytes, err);
  if (st != CS_OK) return st;
  if ((found & RT_TILING_BIT(ka)) && (found & RT_TILING_BIT(kb)) && t.ka != t.kb)
    return cs_err_set(err, CS_EINVAL, "--tiling %s: Ka = %u and Kb = %u differ; A's columns and B's rows are one K", path, t.ka,
                      t.kb);
  for (int i = 0; i < RT_TF_COUNT; i++) {
    if (!((found >> i) & 1) || (i == RT_TF_kb && (found & RT_TILING_BIT(ka)))) continue;
    const rt_tiling_field *fd = rt_tiling_field_at(i);
    uint32_t v = rt_tiling_get(&t, i);
    const char *name = fd->name;
    if (i == RT_TF_ka || i == RT_TF_kb) name = "k";
    if (i == RT_TF_is_bias) name = "has_bias";
    snprintf(out->name[out->n], sizeof out->name[0], "%s", name);
    if (i == RT_TF_is_bias) snprintf(out->value[out->n], sizeof out->value[0], "%s", v ? "true" : "false");
    else if (fd->names) snprintf(out->value[out->n], sizeof out->value[0], "%s", rt_tiling_value_name(i, v));
    else snprintf(out->value[out->n], sizeof out->value[0], "%u", v);
    out->n++;
  }
  return CS_OK;
}

/* Sets the attributes: the tiling file's first, then --attr (which overrides them). */
static cs_status set_attrs(kn_ctx *ctx, const tiling_attrs *ta, const kv *attrs, int nattr, cs_err *err) {
  cs_status st = CS_OK;
  for (int i = 0; st == CS_OK && i < ta->n; i++) {
    st = kn_ctx_set_attr(ctx, ta->name[i], ta->value[i], err);
    if (st != CS_OK) cs_err_prefix(err, "--tiling");
  }
  for (int i = 0; st == CS_OK && i < nattr; i++) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)keylen(&attrs[i]), attrs[i].key);
    st = kn_ctx_set_attr(ctx, name, attrs[i].val, err);
  }
  return st;
}

/* --tiling FILE.json (path may be NULL: no attributes), with a note of the fields ignored. */
static cs_status tiling_file(cli_io *io, const char *cmd, const char *path, tiling_attrs *ta, cs_err *err) {
  memset(ta, 0, sizeof *ta);
  char ignored[512] = "";
  if (!path) return CS_OK;
  cs_status st = read_tiling_file(path, ta, ignored, sizeof ignored, err);
  if (st == CS_OK && ignored[0])
    fprintf(io->err, "cubesim %s: note: --tiling %s: fields cubesim does not model, ignored: %s\n", cmd, path, ignored);
  return st;
}

static int find_output(const kn_op *op, const kv *o) {
  for (uint32_t i = 0; i < op->noutputs; i++)
    if (key_is(o, op->outputs[i].name)) return (int)i;
  return -1;
}

static void json_tensor(cs_json *j, const kn_tensor *t) {
  cs_json_obj_begin(j);
  cs_json_member_str(j, "dtype", isa_dtype_name(t->dtype));
  cs_json_key(j, "shape");
  cs_json_arr_begin(j);
  for (uint32_t d = 0; d < t->ndim; d++) cs_json_uint(j, t->shape[d]);
  cs_json_arr_end(j);
  cs_json_obj_end(j);
}

/* The recorded streams as a text program (`cubesim exec` reads it back: same streams, so the
 * run can be retimed under another configuration). GM tensors become byte arrays. */
static cs_status dump_stream(cs_out *out, const char *kernel, sim *s, cs_err *err) {
  size_t n = sim_gm_tensor_count(s);
  sim_prog_tensor *t = calloc(n + 1, sizeof *t);
  if (!t) return cs_err_set(err, CS_ENOMEM, "--dump-stream: no host memory");
  for (size_t i = 0; i < n; i++) {
    const char *name;
    sim_gm_tensor_at(s, i, &name, &t[i].addr, &t[i].bytes);
    size_t w = 0;
    for (const char *p = name; *p && w + 1 < sizeof t[i].name; p++) /* program names are identifiers */
      t[i].name[w++] = (char)(isalnum((unsigned char)*p) ? *p : '_');
    t[i].dtype = ISA_UINT8;
    t[i].kind = SIM_TENSOR_TEMP;
    t[i].ndim = 1;
    t[i].shape[0] = t[i].elements = t[i].bytes;
  }
  char what[128];
  snprintf(what, sizeof what, "cubesim run %s", kernel);
  FILE *f;
  cs_status st = cs_out_stream(out, &f, err);
  if (st == CS_OK) st = sim_program_write_streams(f, what, t, n, s, err);
  free(t);
  return st;
}

/* A run's command line. */
typedef struct run_args {
  kv ins[MAX_ARGS], attrs[MAX_ARGS], outs[MAX_ARGS];
  int nin, nattr, nout;
  cli_chip_args chip;   /* --config, --set, --cores */
  const char *plugins[MAX_ARGS];
  int nplugin;
  const char *kernel, *csv, *dump, *tiling, *json_file, *report, *msprof_dir;
  cli_trace_args trace; /* trace.path: --trace */
  bool timing_only, check, json, allow_hazards, quiet, timeline, record_refusal;
  uint64_t seed;
  uint64_t max_memory; /* --max-memory, or the host's default */
  uint64_t threads;    /* --threads (0: the host's processors) */
} run_args;

/* Where each file of the run goes, validated and reserved before any work (base/cs_out:
 * nothing is replaced until the commit at the end). */
typedef struct run_outputs {
  cs_out_set *set;
  cs_out *trace, *csv, *dump, *json, *report;
  cs_out *npy[MAX_ARGS]; /* one per --out */
  trc_msprof_outs msprof;
  bool made_msprof_dir;  /* created for this run: removed again if the run writes nothing */
} run_outputs;

static cs_status add_outputs(run_outputs *ro, const run_args *a, cs_err *err) {
  cs_status st = cs_out_set_create(cli_temps_hooks(), &ro->set, err);
  if (st == CS_OK && a->trace.path) st = cs_out_add(ro->set, "--trace", a->trace.path, &ro->trace, err);
  for (int i = 0; st == CS_OK && i < a->nout; i++) {
    char what[80];
    snprintf(what, sizeof what, "--out %.*s", (int)keylen(&a->outs[i]), a->outs[i].key);
    st = cs_out_add(ro->set, what, a->outs[i].val, &ro->npy[i], err);
  }
  if (st == CS_OK && a->csv) st = cs_out_add(ro->set, "--csv", a->csv, &ro->csv, err);
  if (st == CS_OK && a->dump) st = cs_out_add(ro->set, "--dump-stream", a->dump, &ro->dump, err);
  if (st == CS_OK && a->json_file) st = cs_out_add(ro->set, "--json-file", a->json_file, &ro->json, err);
  if (st == CS_OK && a->report) st = cs_out_add(ro->set, "--report", a->report, &ro->report, err);
  if (st == CS_OK && a->msprof_dir) {
    if (mkdir(a->msprof_dir, 0777) == 0) ro->made_msprof_dir = true;
    else if (errno != EEXIST)
      return cs_err_set(err, CS_EIO, "--msprof-dir %s: cannot create it: %s", a->msprof_dir, strerror(errno));
    st = trc_msprof_add(ro->set, a->msprof_dir, &ro->msprof, err);
  }
  return st;
}

/* Discards what the run has not committed (the directory --msprof-dir made, if it stayed empty). */
static void drop_outputs(run_outputs *ro, const run_args *a) {
  cs_out_set_destroy(ro->set);
  ro->set = NULL;
  if (ro->made_msprof_dir) rmdir(a->msprof_dir);
  ro->made_msprof_dir = false;
}

/* The outcome of a run, everything its JSON and files are made of. */
typedef struct run_result {
  const kn_op *op;
  kn_ctx *ctx;
  const trc_timeline *timeline; /* NULL unless collected */
  uint64_t mismatches;
  kn_compare cmps[8];
} run_result;

/* Every attribute of the operator with the value the run used (given or default), typed;
 * null for an optional one nobody gave. */
static void json_attributes(cs_json *j, const kn_op *op, const kn_ctx *ctx) {
  cs_json_key(j, "attributes");
  cs_json_obj_begin(j);
  for (uint32_t i = 0; i < op->nattrs; i++) {
    const kn_attr_desc *d = &op->attrs[i];
    cs_json_key(j, d->name);
    int64_t iv;
    double fv;
    bool bv;
    const char *sv;
    if (d->kind == KN_ATTR_INT && kn_attr_int(ctx, d->name, &iv, NULL) == CS_OK) cs_json_int(j, iv);
    else if (d->kind == KN_ATTR_FLOAT && kn_attr_float(ctx, d->name, &fv, NULL) == CS_OK) cs_json_double(j, fv);
    else if (d->kind == KN_ATTR_BOOL && kn_attr_bool(ctx, d->name, &bv, NULL) == CS_OK) cs_json_bool(j, bv);
    else if ((d->kind == KN_ATTR_ENUM || d->kind == KN_ATTR_STR) && kn_attr_str(ctx, d->name, &sv, NULL) == CS_OK)
      cs_json_str(j, sv);
    else cs_json_null(j);
  }
  cs_json_obj_end(j);
}

/* The replay's result of a simulated operator and the machine it ran on (s NULL, result NULL for
 * a host operator). */
static const sim_result *replay_of(const kn_ctx *ctx, sim **s) {
  rt_device *dev = kn_device(ctx);
  *s = dev ? rt_device_sim(dev) : NULL;
  return rt_device_result(dev);
}

/* The run as one JSON object (traces/FORMAT.md, "The run's JSON"). */
static void run_json(cs_json *j, const run_args *a, const run_result *rr) {
  const kn_op *op = rr->op;
  kn_ctx *ctx = rr->ctx;
  cs_json_obj_begin(j);
  cs_json_member_str(j, "kernel", op->name);
  cs_json_member_str(j, "status", "ok");
  json_attributes(j, op, ctx);
  cs_json_key(j, "inputs");
  cs_json_obj_begin(j);
  for (uint32_t i = 0; i < op->ninputs; i++) {
    const kn_tensor *t = kn_input(ctx, op->inputs[i].name);
    if (!t) continue;
    cs_json_key(j, op->inputs[i].name);
    json_tensor(j, t);
  }
  cs_json_obj_end(j);
  cs_json_key(j, "outputs");
  cs_json_obj_begin(j);
  for (uint32_t i = 0; i < op->noutputs; i++) {
    const kn_tensor *t = kn_ctx_output(ctx, op->outputs[i].name);
    if (!t) continue;
    cs_json_key(j, op->outputs[i].name);
    json_tensor(j, t);
  }
  cs_json_obj_end(j);
  if (a->check) {
    cs_json_key(j, "check");
    cs_json_obj_begin(j);
    cs_json_member_uint(j, "mismatches", rr->mismatches);
    for (uint32_t i = 0; i < op->noutputs && i < 8; i++) {
      const kn_compare *c = &rr->cmps[i];
      if (!c->count) continue;
      cs_json_key(j, op->outputs[i].name);
      cs_json_obj_begin(j);
      cs_json_member_uint(j, "compared", c->count);
      cs_json_member_uint(j, "mismatches", c->mismatches);
      cs_json_member_double(j, "max_abs_diff", c->max_abs_diff);
      cs_json_member_str(j, "first", c->mismatches ? c->first : NULL);
      cs_json_obj_end(j);
    }
    cs_json_obj_end(j);
  }
  cs_json_key(j, "notes");
  cs_json_arr_begin(j);
  for (const char *p = kn_ctx_notes(ctx); *p;) {
    const char *nl = strchr(p, '\n');
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
    cs_json_str(j, line);
    p = nl ? nl + 1 : p + strlen(p);
  }
  cs_json_arr_end(j);
  const rt_tiling *tl = kn_get_tiling(ctx);
  if (tl) {
    cs_json_key(j, "tiling");
    cs_json_obj_begin(j);
    rt_tiling_json_members(tl, j);
    cs_json_obj_end(j);
  }
  sim *s;
  const sim_result *res = replay_of(ctx, &s);
  if (s && res) trc_summary_json_members(s, res, j);
  if (rr->timeline) trc_timeline_json(rr->timeline, j);
  cs_json_obj_end(j);
}

/* The run's JSON as text (for --json-file and --report); malloc'd. */
static cs_status run_json_text(const run_args *a, const run_result *rr, char **text, size_t *len, cs_err *err) {
  FILE *f = open_memstream(text, len);
  if (!f) return cs_err_set(err, CS_ENOMEM, "no host memory for the run's JSON");
  cs_json j;
  cs_json_init(&j, f, true);
  run_json(&j, a, rr);
  if (fclose(f) != 0) {
    free(*text);
    *text = NULL;
    return cs_err_set(err, CS_ENOMEM, "no host memory for the run's JSON");
  }
  return CS_OK;
}

/* The run's JSON and, from it, the HTML report. */
static cs_status write_json_and_report(run_outputs *ro, const run_args *a, const run_result *rr, cs_err *err) {
  char *text = NULL;
  size_t len = 0;
  cs_status st = run_json_text(a, rr, &text, &len, err);
  FILE *f;
  if (st == CS_OK && ro->json && (st = cs_out_stream(ro->json, &f, err)) == CS_OK) fwrite(text, 1, len, f);
  if (st == CS_OK && ro->report && (st = cs_out_stream(ro->report, &f, err)) == CS_OK) {
    cs_jerror je;
    cs_jdoc *doc = cs_jparse(text, len, &je);
    if (!doc && je.status == CS_ENOMEM) st = cs_err_set(err, CS_ENOMEM, "--report: no host memory to read the run's JSON");
    else if (!doc) st = cs_err_set(err, CS_EINTERNAL, "--report: the run's own JSON does not parse: %s", je.msg);
    else st = trc_report_html(cs_jroot(doc), f, err);
    cs_jfree(doc);
  }
  free(text);
  return st;
}

/* Writes every file of a finished run and commits them together. */
static cs_status write_outputs(run_outputs *ro, const run_args *a, const run_result *rr, cs_err *err) {
  kn_ctx *ctx = rr->ctx;
  const kn_op *op = rr->op;
  cs_status st = CS_OK;
  for (int i = 0; i < a->nout && st == CS_OK; i++) {
    const kv *o = &a->outs[i];
    const kn_tensor *t = kn_ctx_output(ctx, op->outputs[find_output(op, o)].name);
    if (!t) return cs_err_set(err, CS_EINVAL, "--out %.*s: the run produced no such output", (int)keylen(o), o->key);
    size_t shape[KN_MAX_DIMS];
    for (uint32_t dd = 0; dd < t->ndim; dd++) shape[dd] = (size_t)t->shape[dd];
    FILE *f;
    st = cs_out_stream(ro->npy[i], &f, err);
    if (st == CS_OK) st = cs_npy_fwrite(f, o->val, npy_of_dtype(t->dtype), (int)t->ndim, shape, t->data, err);
  }
  sim *s;
  const sim_result *res = replay_of(ctx, &s);
  if (st == CS_OK && ro->csv && s && res) {
    FILE *f;
    st = cs_out_stream(ro->csv, &f, err);
    if (st == CS_OK) trc_summary_csv(s, res, f);
  }
  if (st == CS_OK && ro->dump && s) st = dump_stream(ro->dump, op->name, s, err);
  if (st == CS_OK && (ro->json || ro->report)) st = write_json_and_report(ro, a, rr, err);
  if (st == CS_OK && a->msprof_dir && s && res) st = trc_msprof_fill(&ro->msprof, s, res, op->name, err);
  if (st == CS_OK) st = cs_out_set_commit(ro->set, err);
  return st;
}

/* --record-refusal: the run was refused (an attribute, a tiling, the configuration, a fault, a
 * deadlock or a hazard); --json-file records why instead of failing (for sweeps). */
typedef struct refusal {
  const run_args *a;
  const cs_err *why;
} refusal;

static cs_status refusal_fill(FILE *f, void *ctx, cs_err *err) {
  (void)err;
  const refusal *r = ctx;
  cs_json j;
  cs_json_init(&j, f, true);
  cs_json_obj_begin(&j);
  cs_json_member_str(&j, "kernel", r->a->kernel);
  cs_json_member_str(&j, "status", "refused");
  cs_json_member_str(&j, "refusal", cs_status_name(r->why->code));
  cs_json_member_int(&j, "exit_status", cs_status_exit_code(r->why->code));
  cs_json_member_str(&j, "error", r->why->msg);
  cs_json_key(&j, "given");
  cs_json_obj_begin(&j);
  for (int i = 0; i < r->a->nattr; i++) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)keylen(&r->a->attrs[i]), r->a->attrs[i].key);
    cs_json_member_str(&j, name, r->a->attrs[i].val);
  }
  const cli_chip_args *chip = &r->a->chip;
  for (int i = 0; i < chip->nset; i++) {
    char name[140];
    const char *eq = strchr(chip->sets[i], '=');
    snprintf(name, sizeof name, "set.%.*s", (int)(eq - chip->sets[i]), chip->sets[i]);
    cs_json_member_str(&j, name, eq + 1);
  }
  if (chip->cores) cs_json_member_str(&j, "set.chip.aic_cores", chip->cores);
  cs_json_obj_end(&j);
  cs_json_obj_end(&j);
  return CS_OK;
}

/* A failed run: the error line, or with --record-refusal the refusal in --json-file and exit 0
 * (a file that cannot be written is still an error). */
static int run_failed(cli_io *io, const run_args *a, const cs_err *why) {
  if (!a->record_refusal || why->code == CS_ENOMEM || why->code == CS_EINTERNAL) return cli_fail(io, "run", why);
  refusal r = {a, why};
  cs_err err;
  if (cs_out_write_file("--json-file", a->json_file, refusal_fill, &r, &err) != CS_OK) return cli_fail(io, "run", &err);
  fprintf(io->err, "cubesim run: refused (recorded in %s): %s\n", a->json_file, why->msg);
  return 0;
}

/* --threads's value (cli_opt returned r > 0, or r < 0 for a missing one): 1 to 1024 into *out;
 * 0, or the exit code of a usage error. */
static int threads_arg(cli_io *io, const char *cmd, int r, const char *v, uint64_t *out, cs_err *err) {
  if (r < 0 || cs_parse_u64(v, "--threads", out, err) != CS_OK) return cli_fail(io, cmd, err);
  if (*out == 0 || *out > 1024) return cli_usage_error(io, cmd, "--threads %s: give 1 to 1024 host threads", v);
  return 0;
}

static int parse_run_args(cli_io *io, int argc, char **argv, run_args *a, bool *help) {
  cs_err err = {CS_OK, ""};
  const char *v;
  a->seed = 1;
  a->max_memory = cs_host_default_memory_limit();
  for (int i = 1; i < argc; i++) {
    int r;
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      *help = true;
      return 0;
    }
    /* the NAME=VALUE options; cli_opt moves i to the value when it is a separate word */
    static const char *const kv_opts[3] = {"--in", "--attr", "--out"};
    kv *const kv_lists[3] = {a->ins, a->attrs, a->outs};
    int *const kv_counts[3] = {&a->nin, &a->nattr, &a->nout};
    int which = -1;
    for (int o = 0; o < 3 && which < 0; o++) {
      if ((r = cli_opt(argc, argv, &i, kv_opts[o], &v, &err)) < 0) return cli_fail(io, "run", &err);
      if (r > 0) which = o;
    }
    if (which >= 0) {
      int *n = kv_counts[which];
      if (*n == MAX_ARGS) return cli_usage_error(io, "run", "too many %s options (at most %d)", kv_opts[which], MAX_ARGS);
      kv *cur = &kv_lists[which][*n];
      if (split_kv(v, kv_opts[which], cur, &err) < 0) return cli_fail(io, "run", &err);
      /* one --in, --attr or --out per name: a second one would silently win. (--set is applied
       * in order, each over the configuration so far, so repeating a key there is meaningful.) */
      for (int k = 0; k < *n; k++)
        if (keylen(&kv_lists[which][k]) == keylen(cur) && strncmp(kv_lists[which][k].key, cur->key, keylen(cur)) == 0)
          return cli_usage_error(io, "run", "%s %.*s is given twice ('%s' and '%s')", kv_opts[which], (int)keylen(cur),
                                 cur->key, kv_lists[which][k].key, cur->key);
      (*n)++;
      continue;
    }
    if ((r = cli_trace_opt(argc, argv, &i, &a->trace, &err)) != 0 ||
        (r = cli_chip_opt(argc, argv, &i, &a->chip, &err)) != 0) {
      if (r < 0) return cli_fail(io, "run", &err);
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--plugin", &v, &err)) != 0) {
      if (r < 0) return cli_fail(io, "run", &err);
      if (a->nplugin == MAX_ARGS) return cli_usage_error(io, "run", "too many --plugin options (at most %d)", MAX_ARGS);
      a->plugins[a->nplugin++] = v;
      continue;
    }
    static const char *const path_opts[] = {"--csv", "--dump-stream", "--tiling", "--json-file", "--report",
                                            "--msprof-dir"};
    const char **const path_vals[] = {&a->csv, &a->dump, &a->tiling, &a->json_file, &a->report, &a->msprof_dir};
    for (size_t o = 0, done = 0; !done && o < sizeof path_opts / sizeof path_opts[0]; o++)
      if ((r = cli_opt(argc, argv, &i, path_opts[o], path_vals[o], &err)) != 0) {
        if (r < 0) return cli_fail(io, "run", &err);
        done = 1, which = 4;
      }
    if (which == 4) continue;
    if ((r = cli_opt(argc, argv, &i, "--seed", &v, &err)) != 0) {
      if (r < 0 || cs_parse_u64(v, "--seed", &a->seed, &err) != CS_OK) return cli_fail(io, "run", &err);
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--threads", &v, &err)) != 0) {
      if ((r = threads_arg(io, "run", r, v, &a->threads, &err)) != 0) return r;
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--max-memory", &v, &err)) != 0) {
      if (r < 0 || cs_host_parse_memory(v, "--max-memory", &a->max_memory, &err) != CS_OK)
        return cli_fail(io, "run", &err);
      continue;
    }
    if (cli_flag(argv, i, "--timing-only")) a->timing_only = true;
    else if (cli_flag(argv, i, "--check")) a->check = true;
    else if (cli_flag(argv, i, "--json")) a->json = true;
    else if (cli_flag(argv, i, "--allow-hazards")) a->allow_hazards = true;
    else if (cli_flag(argv, i, "--quiet")) a->quiet = true;
    else if (cli_flag(argv, i, "--timeline")) a->timeline = true;
    else if (cli_flag(argv, i, "--record-refusal")) a->record_refusal = true;
    else if (argv[i][0] == '-') return cli_unknown_option(io, "run", argv[i], run_usage);
    else if (!a->kernel) a->kernel = argv[i];
    else return cli_usage_error(io, "run", "unexpected argument '%s' (one KERNEL per run)", argv[i]);
  }
  if (!a->kernel) return cli_usage_error(io, "run", "no KERNEL given (cubesim kernels lists them)");
  if (a->record_refusal && !a->json_file)
    return cli_usage_error(io, "run", "--record-refusal records into --json-file: give one");
  return 0;
}

/* What a host operator cannot give: the first option that needs the simulated chip, or NULL. */
static const char *needs_chip(const run_args *a) {
  const char *const opts[] = {a->trace.path ? "--trace" : NULL,     a->csv ? "--csv" : NULL,
                              a->dump ? "--dump-stream" : NULL, a->report ? "--report" : NULL,
                              a->msprof_dir ? "--msprof-dir" : NULL, a->timeline ? "--timeline" : NULL};
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    if (opts[i]) return opts[i];
  return NULL;
}

/* Prints the run as a table (the default) or as JSON (--json). */
static void print_run(cli_io *io, const run_args *a, const run_result *rr) {
  const kn_op *op = rr->op;
  kn_ctx *ctx = rr->ctx;
  if (a->json) {
    cs_json j;
    cs_json_init(&j, io->out, true);
    run_json(&j, a, rr);
    return;
  }
  fprintf(io->out, "%s: %s\n", op->name, op->summary);
  for (uint32_t i = 0; i < op->ninputs; i++) {
    const kn_tensor *t = kn_input(ctx, op->inputs[i].name);
    char sh[96];
    if (!t) continue;
    kn_shape_str(t, sh, sizeof sh);
    fprintf(io->out, "  in   %-12s %-7s %s\n", op->inputs[i].name, isa_dtype_name(t->dtype), sh);
  }
  for (uint32_t i = 0; i < op->noutputs; i++) {
    const kn_tensor *t = kn_ctx_output(ctx, op->outputs[i].name);
    char sh[96];
    if (!t) continue;
    kn_shape_str(t, sh, sizeof sh);
    fprintf(io->out, "  out  %-12s %-7s %s\n", op->outputs[i].name, isa_dtype_name(t->dtype), sh);
  }
  const rt_tiling *tl = kn_get_tiling(ctx);
  if (tl) {
    char line[512];
    rt_tiling_describe(tl, line, sizeof line);
    fprintf(io->out, "\ntiling: %s\n", line);
  }
  if (*kn_ctx_notes(ctx)) fprintf(io->out, "\n%s", kn_ctx_notes(ctx));
  if (a->check) {
    fprintf(io->out, "\ncheck against the host reference: ");
    if (!rr->mismatches) fprintf(io->out, "every output bit-exact\n");
    else
      for (uint32_t i = 0; i < op->noutputs && i < 8; i++)
        if (rr->cmps[i].mismatches)
          fprintf(io->out, "\n  %s: %" PRIu64 " of %" PRIu64 " elements differ (max |diff| %g); first %s\n",
                  op->outputs[i].name, rr->cmps[i].mismatches, rr->cmps[i].count, rr->cmps[i].max_abs_diff,
                  rr->cmps[i].first);
  }
  sim *s;
  const sim_result *res = replay_of(ctx, &s);
  if (s && res) {
    fputc('\n', io->out);
    trc_summary_text(s, res, io->out);
  }
  if (a->trace.path)
    fprintf(io->out, "\ntrace written to %s (open it in https://ui.perfetto.dev)\n", a->trace.path);
  if (a->report) fprintf(io->out, "report written to %s\n", a->report);
  if (a->msprof_dir) fprintf(io->out, "msprof files written to %s\n", a->msprof_dir);
}

/* Resolves the configuration, runs the operator and checks it; writes and commits the files. */
static cs_status run(cli_io *io, run_args *a, const kn_op *op, run_result *rr, cs_err *err) {
  sim_config cfg;
  tiling_attrs ta = {.n = 0};
  cs_status st = cli_chip_config(&a->chip, 0, &cfg, err);
  sim_trace_options topts;
  if (st == CS_OK) st = cli_trace_options(&a->trace, io, "run", &cfg, &topts, err);
  run_outputs ro;
  memset(&ro, 0, sizeof ro);
  if (st == CS_OK) st = add_outputs(&ro, a, err);
  if (st == CS_OK) st = tiling_file(io, "run", a->tiling, &ta, err);
  trc_timeline *timeline = NULL;
  if (st == CS_OK && (a->timeline || a->report)) st = trc_timeline_create(&cfg, TRC_TIMELINE_SPANS, &timeline, err);
  /* the trace is a temporary file until the commit: an input refused below discards it */
  sim_trace *trace = NULL;
  if (st == CS_OK && ro.trace) st = sim_trace_open_out(ro.trace, &cfg, &topts, &trace, err);
  cli_progress progress;
  cli_progress_init(&progress, io, "run", a->quiet, cfg.chip_clock_mhz);
  kn_run_options o = {.cfg = &cfg,
                      .timing_only = a->timing_only,
                      .trace = trace,
                      .allow_hazards = a->allow_hazards,
                      .seed = a->seed,
                      .max_memory_bytes = a->max_memory,
                      .host_threads = (unsigned)a->threads,
                      .progress = cli_progress_hook(&progress),
                      .observer = timeline ? &timeline->observer : NULL};
  if (st == CS_OK) st = kn_ctx_create(op, &o, &rr->ctx, err);
  if (st == CS_OK) st = set_attrs(rr->ctx, &ta, a->attrs, a->nattr, err);
  for (int i = 0; st == CS_OK && i < a->nin; i++) st = load_input(rr->ctx, &a->ins[i], a->max_memory, err);
  if (st == CS_OK) st = kn_ctx_run(rr->ctx, err);
  cli_progress_done(&progress);
  if (trace) {
    cs_err terr;
    cs_status tst = sim_trace_close(trace, st == CS_OK, &terr);
    if (st == CS_OK && tst != CS_OK) st = tst, *err = terr;
  }
  if (st == CS_OK && timeline && timeline->status != CS_OK)
    st = cs_err_set(err, timeline->status, "no host memory for the timeline");
  /* the comparison with the reference */
  if (st == CS_OK && a->check) {
    st = kn_ctx_reference(rr->ctx, err);
    for (uint32_t i = 0; st == CS_OK && i < op->noutputs && i < 8; i++) {
      const kn_tensor *got = kn_ctx_output(rr->ctx, op->outputs[i].name);
      const kn_tensor *want = kn_ctx_reference_output(rr->ctx, op->outputs[i].name);
      if (!got || !want) continue;
      st = kn_compare_tensors(got, want, &rr->cmps[i], err);
      rr->mismatches += rr->cmps[i].mismatches;
    }
  }
  rr->timeline = timeline;
  if (st == CS_OK) st = write_outputs(&ro, a, rr, err); /* all or nothing */
  rr->timeline = NULL;
  if (st == CS_OK) ro.made_msprof_dir = false; /* committed: it holds the files */
  drop_outputs(&ro, a);
  if (st == CS_OK && a->json && timeline) rr->timeline = timeline; /* --json shows what --json-file has */
  else trc_timeline_destroy(timeline);
  return st;
}

/* The built-in operators and those of the plug-ins given (--plugin). */
static cs_status registry_with_plugins(const char *const *plugins, int n, kn_registry **out, cs_err *err) {
  cs_status st = kn_registry_create(out, err);
  for (int i = 0; st == CS_OK && i < n; i++) {
    st = kn_registry_load(*out, plugins[i], err);
    if (st != CS_OK) cs_err_prefix(err, "--plugin %s", plugins[i]);
  }
  if (st != CS_OK) {
    kn_registry_destroy(*out);
    *out = NULL;
  }
  return st;
}

/* The operator named `name`, or the error (with the closest name when one is close). */
static int find_kernel(cli_io *io, const char *cmd, const kn_registry *reg, const char *name, const kn_op **op) {
  *op = kn_registry_find(reg, name);
  if (*op) return 0;
  const char *near = kn_registry_suggest(reg, name);
  if (near) return cli_usage_error(io, cmd, "unknown kernel '%s' (did you mean '%s'?)", name, near);
  return cli_usage_error(io, cmd, "unknown kernel '%s' (cubesim kernels lists them)", name);
}

/* A built-in operator, or the error (with the closest name when one is close). */
static int find_builtin_kernel(cli_io *io, const char *cmd, const char *name, const kn_op **op) {
  *op = kn_op_find(name);
  if (*op) return 0;
  kn_registry *reg;
  cs_err err;
  if (kn_registry_create(&reg, &err) != CS_OK) return cli_fail(io, cmd, &err);
  int rc = find_kernel(io, cmd, reg, name, op);
  kn_registry_destroy(reg);
  return rc;
}

/* The checks of the arguments against the operator, before any work. */
static int check_run_args(cli_io *io, const run_args *a, const kn_op *op) {
  for (int i = 0; i < a->nout; i++) {
    const kv *o = &a->outs[i];
    if (find_output(op, o) < 0)
      return cli_usage_error(io, "run", "--out %.*s: %s has no output of that name", (int)keylen(o), o->key, op->name);
    if (a->timing_only)
      return cli_usage_error(io, "run", "--out %.*s: a --timing-only run computes no data", (int)keylen(o), o->key);
  }
  if (a->check && a->timing_only) return cli_usage_error(io, "run", "--check needs data: drop --timing-only");
  const char *chip_only = needs_chip(a);
  if (chip_only && !op->simulated)
    return cli_usage_error(io, "run", "%s: %s runs on the host, it has no simulated timing", chip_only, op->name);
  return 0;
}

int cli_cmd_run(cli_io *io, int argc, char **argv) {
  run_args a;
  memset(&a, 0, sizeof a);
  bool help = false;
  int rc = parse_run_args(io, argc, argv, &a, &help);
  if (help) fputs(run_usage, io->out);
  if (help || rc) return rc;
  kn_registry *reg;
  cs_err err = {CS_OK, ""};
  if (registry_with_plugins(a.plugins, a.nplugin, &reg, &err) != CS_OK) return cli_fail(io, "run", &err);
  const kn_op *op;
  rc = find_kernel(io, "run", reg, a.kernel, &op);
  if (rc == 0) rc = check_run_args(io, &a, op);
  if (rc) {
    kn_registry_destroy(reg);
    return rc;
  }

  run_result rr;
  memset(&rr, 0, sizeof rr);
  rr.op = op;
  cs_status st = run(io, &a, op, &rr, &err);
  if (st != CS_OK) rc = run_failed(io, &a, &err);
  else print_run(io, &a, &rr);
  trc_timeline_destroy((trc_timeline *)(uintptr_t)rr.timeline);
  kn_ctx_destroy(rr.ctx);
  kn_registry_destroy(reg); /* after every context: a plug-in's operators live in it */
  if (st == CS_OK && rr.mismatches) {
    fprintf(io->err, "cubesim run: error: %" PRIu64 " output element%s differ from the host reference\n", rr.mismatches,
            rr.mismatches == 1 ? "" : "s");
    return cs_status_exit_code(CS_EMISMATCH);
  }
  return rc;
}

static void print_io(FILE *f, const char *what, const kn_io_desc *d, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    fprintf(f, "    %-6s %-22s %-18s %s%s\n", what, d[i].name, d[i].dtypes, d[i].optional ? "(optional) " : "", d[i].desc);
}

static const char kernels_usage[] =
    "usage: cubesim kernels [NAME] [--json] [--plugin LIB.so]...\n"
    "\n"
    "Lists every kernel and operator `cubesim run` takes, with its inputs, attributes and outputs;\n"
    "with NAME, that one only.\n"
    "  --json            the same as JSON (an array; with NAME, one object)\n"
    "  --plugin LIB.so   also the operators of a plug-in (docs/API.md, \"Plug-ins\"); repeatable\n";

static const char *const attr_kinds[] = {"int", "float", "bool", "enum", "string"};

static void json_op(cs_json *j, const kn_op *op, const char *origin) {
  cs_json_obj_begin(j);
  cs_json_member_str(j, "name", op->name);
  cs_json_member_str(j, "summary", op->summary);
  cs_json_member_str(j, "source", op->source);
  cs_json_key(j, "simulated");
  cs_json_bool(j, op->simulated);
  cs_json_member_str(j, "plugin", origin); /* null for a built-in */
  const char *sect[2] = {"inputs", "outputs"};
  for (int s2 = 0; s2 < 2; s2++) {
    const kn_io_desc *d = s2 ? op->outputs : op->inputs;
    uint32_t n = s2 ? op->noutputs : op->ninputs;
    cs_json_key(j, sect[s2]);
    cs_json_arr_begin(j);
    for (uint32_t i = 0; i < n; i++) {
      cs_json_obj_begin(j);
      cs_json_member_str(j, "name", d[i].name);
      cs_json_member_str(j, "dtypes", d[i].dtypes);
      cs_json_key(j, "optional");
      cs_json_bool(j, d[i].optional);
      cs_json_member_str(j, "description", d[i].desc);
      cs_json_obj_end(j);
    }
    cs_json_arr_end(j);
  }
  cs_json_key(j, "attributes");
  cs_json_arr_begin(j);
  for (uint32_t i = 0; i < op->nattrs; i++) {
    const kn_attr_desc *at = &op->attrs[i];
    cs_json_obj_begin(j);
    cs_json_member_str(j, "name", at->name);
    cs_json_member_str(j, "kind", attr_kinds[at->kind]);
    cs_json_member_str(j, "default", at->def);
    cs_json_member_str(j, "choices", at->choices);
    cs_json_member_str(j, "description", at->desc);
    cs_json_obj_end(j);
  }
  cs_json_arr_end(j);
  cs_json_obj_end(j);
}

static void print_op(FILE *f, const kn_op *op, const char *origin) {
  fprintf(f, "%s  (%s%s%s)\n  %s\n  source: %s\n", op->name, op->simulated ? "simulated" : "host",
          origin ? ", plug-in " : "", origin ? origin : "", op->summary, op->source);
  print_io(f, "in", op->inputs, op->ninputs);
  for (uint32_t i = 0; i < op->nattrs; i++) {
    const kn_attr_desc *at = &op->attrs[i];
    fprintf(f, "    attr   %-22s %-18s %s%s%s%s\n", at->name, at->kind == KN_ATTR_ENUM ? at->choices : attr_kinds[at->kind],
            at->desc, at->def ? " (default " : "", at->def ? at->def : "", at->def ? ")" : "");
  }
  print_io(f, "out", op->outputs, op->noutputs);
}

int cli_cmd_kernels(cli_io *io, int argc, char **argv) {
  bool json = false;
  const char *name = NULL, *plugins[MAX_ARGS] = {NULL}, *v;
  int nplugin = 0, r;
  cs_err err = {CS_OK, ""};
  for (int i = 1; i < argc; i++) {
    if (cli_flag(argv, i, "--json")) json = true;
    else if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(kernels_usage, io->out);
      return 0;
    } else if ((r = cli_opt(argc, argv, &i, "--plugin", &v, &err)) != 0) {
      if (r < 0) return cli_fail(io, "kernels", &err);
      if (nplugin == MAX_ARGS) return cli_usage_error(io, "kernels", "too many --plugin options (at most %d)", MAX_ARGS);
      plugins[nplugin++] = v;
    } else if (argv[i][0] == '-')
      return cli_unknown_option(io, "kernels", argv[i], kernels_usage);
    else if (!name)
      name = argv[i];
    else
      return cli_usage_error(io, "kernels", "one NAME at most: '%s' and '%s'", name, argv[i]);
  }
  kn_registry *reg;
  if (registry_with_plugins(plugins, nplugin, &reg, &err) != CS_OK) return cli_fail(io, "kernels", &err);
  const kn_op *one = NULL;
  int rc = name ? find_kernel(io, "kernels", reg, name, &one) : 0;
  cs_json j;
  if (rc == 0 && json) {
    cs_json_init(&j, io->out, true);
    if (!one) cs_json_arr_begin(&j);
  }
  for (size_t k = 0; rc == 0 && k < kn_registry_count(reg); k++) {
    const kn_op *op = kn_registry_at(reg, k);
    if (one && op != one) continue;
    if (json) json_op(&j, op, kn_registry_origin(reg, k));
    else {
      if (!one && k) fputc('\n', io->out);
      print_op(io->out, op, kn_registry_origin(reg, k));
    }
  }
  if (rc == 0 && json && !one) cs_json_arr_end(&j);
  kn_registry_destroy(reg);
  return rc;
}

/* ---- cubesim tile ------------------------------------------------------------------------- */

static const char *const tile_usage =
    "usage: cubesim tile KERNEL [--attr KEY=VALUE]... [--in NAME=FILE.npy]... [--tiling FILE.json]\n"
    "                    [--config FILE.yaml] [--set SECTION.KEY=VALUE]... [--cores N] [--top N] [--simulate N]\n"
    "                    [--threads N] [--json]\n"
    "\n"
    "Searches the tilings of a matmul operator (cubesim kernels lists them) for its shape, types and\n"
    "chip, as `cubesim run` does when a tiling is not given in full, and prints the best candidates:\n"
    "the analytic estimate of each, the timing model's time of the first ones, and the attributes\n"
    "that run the best (docs/KERNELS.md, \"The automatic tiling\"). The tiling attributes and\n"
    "--tiling given are kept; the search fills in the others. Inputs are generated from the shape\n"
    "attributes (m, n, k, ...) unless given with --in.\n"
    "  --top N         candidates listed (default 8, at most 16)\n"
    "  --simulate N    of them, timed by the timing model (default: as many as the model budget of\n"
    "                  `cubesim run` allows; large problems take seconds each)\n"
    "  --threads N     host threads the search may take: the timed candidates' runs at once\n"
    "                  (default: the host's processors, or CUBESIM_THREADS); the same results\n"
    "  --json          print the candidates as JSON\n" CLI_CHIP_USAGE;

int cli_cmd_tile(cli_io *io, int argc, char **argv) {
  kv ins[MAX_ARGS], attrs[MAX_ARGS];
  int nin = 0, nattr = 0;
  const char *kernel = NULL, *tiling_path = NULL, *v;
  cli_chip_args chip;
  memset(&chip, 0, sizeof chip);
  bool json = false;
  uint64_t top = 8, threads = 0;
  int64_t timed = -1;
  cs_err err = {CS_OK, ""};
  for (int i = 1; i < argc; i++) {
    int r;
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(tile_usage, io->out);
      return 0;
    }
    if ((r = cli_chip_opt(argc, argv, &i, &chip, &err)) != 0) {
      if (r < 0) return cli_fail(io, "tile", &err);
      continue;
    }
    static const char *const kv_opts[2] = {"--in", "--attr"};
    kv *const kv_lists[2] = {ins, attrs};
    int *const kv_counts[2] = {&nin, &nattr};
    int which = -1;
    for (int o = 0; o < 2 && which < 0; o++) {
      if ((r = cli_opt(argc, argv, &i, kv_opts[o], &v, &err)) < 0) return cli_fail(io, "tile", &err);
      if (r > 0) which = o;
    }
    if (which >= 0) {
      int *n = kv_counts[which];
      if (*n == MAX_ARGS) return cli_usage_error(io, "tile", "too many %s options (at most %d)", kv_opts[which], MAX_ARGS);
      if (split_kv(v, kv_opts[which], &kv_lists[which][*n], &err) < 0) return cli_fail(io, "tile", &err);
      (*n)++;
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--tiling", &tiling_path, &err)) != 0) {
      if (r < 0) return cli_fail(io, "tile", &err);
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--top", &v, &err)) != 0) {
      if (r < 0 || cs_parse_u64(v, "--top", &top, &err) != CS_OK) return cli_fail(io, "tile", &err);
      if (top < 1 || top > RT_TILING_CHOICES_MAX)
        return cli_usage_error(io, "tile", "--top %s is out of range [1, %d]", v, RT_TILING_CHOICES_MAX);
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--simulate", &v, &err)) != 0) {
      uint64_t n;
      if (r < 0 || cs_parse_u64(v, "--simulate", &n, &err) != CS_OK) return cli_fail(io, "tile", &err);
      if (n > RT_TILING_CHOICES_MAX)
        return cli_usage_error(io, "tile", "--simulate %s is out of range [0, %d]", v, RT_TILING_CHOICES_MAX);
      timed = (int64_t)n;
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--threads", &v, &err)) != 0) {
      if ((r = threads_arg(io, "tile", r, v, &threads, &err)) != 0) return r;
      continue;
    }
    if (cli_flag(argv, i, "--json")) json = true;
    else if (argv[i][0] == '-') return cli_unknown_option(io, "tile", argv[i], tile_usage);
    else if (!kernel) kernel = argv[i];
    else return cli_usage_error(io, "tile", "unexpected argument '%s' (one KERNEL)", argv[i]);
  }
  if (!kernel) return cli_usage_error(io, "tile", "no KERNEL given (cubesim kernels lists them)");
  const kn_op *op;
  int rc = find_builtin_kernel(io, "tile", kernel, &op);
  if (rc) return rc;
  sim_config cfg;
  tiling_attrs ta;
  cs_status st = cli_chip_config(&chip, 0, &cfg, &err);
  if (st == CS_OK) st = tiling_file(io, "tile", tiling_path, &ta, &err);
  if (st != CS_OK) return cli_fail(io, "tile", &err);
  uint64_t max_memory = cs_host_default_memory_limit();
  kn_run_options o = {
      .cfg = &cfg, .timing_only = true, .seed = 1, .max_memory_bytes = max_memory, .host_threads = (unsigned)threads};
  kn_ctx *ctx;
  if ((st = kn_ctx_create(op, &o, &ctx, &err)) != CS_OK) return cli_fail(io, "tile", &err);
  kn_ctx_set_tile_search(ctx, (unsigned)top, (int)timed);
  st = set_attrs(ctx, &ta, attrs, nattr, &err);
  for (int i = 0; st == CS_OK && i < nin; i++) st = load_input(ctx, &ins[i], max_memory, &err);
  if (st == CS_OK) st = kn_ctx_run(ctx, &err);
  unsigned n = 0;
  const rt_tiling_choice *c = st == CS_OK ? kn_tiling_choices(ctx, &n) : NULL;
  if (st == CS_OK && !n) st = cs_err_set(&err, CS_EINVAL, "%s has no tiling to search (it is not a matmul operator)", op->name);
  if (st != CS_OK) {
    rc = cli_fail(io, "tile", &err);
    kn_ctx_destroy(ctx);
    return rc;
  }
  double per_us = (double)cfg.chip_clock_mhz;
  unsigned ntimed = 0;
  for (unsigned i = 0; i < n; i++) ntimed += c[i].model_cycles > 0;
  if (json) {
    cs_json j;
    cs_json_init(&j, io->out, true);
    cs_json_obj_begin(&j);
    cs_json_member_str(&j, "kernel", op->name);
    cs_json_key(&j, "candidates");
    cs_json_arr_begin(&j);
    for (unsigned i = 0; i < n; i++) {
      cs_json_obj_begin(&j);
      cs_json_member_double(&j, "estimate_cycles", c[i].est.cycles);
      cs_json_member_double(&j, "estimate_us", c[i].est.cycles / per_us);
      cs_json_member_uint(&j, "estimate_instructions", c[i].est.instructions);
      cs_json_key(&j, "estimate_pipes"); /* the slowest core's busy cycles per pipe */
      cs_json_obj_begin(&j);
      cs_json_member_double(&j, "mte2", c[i].est.mte2_cycles);
      cs_json_member_double(&j, "mte1", c[i].est.mte1_cycles);
      cs_json_member_double(&j, "cube", c[i].est.cube_cycles);
      cs_json_member_double(&j, "fixpipe", c[i].est.fix_cycles);
      cs_json_member_double(&j, "scalar", c[i].est.scalar_cycles);
      cs_json_obj_end(&j);
      cs_json_key(&j, "model_cycles");
      if (c[i].model_cycles) cs_json_uint(&j, c[i].model_cycles);
      else cs_json_null(&j);
      cs_json_key(&j, "model_us");
      if (c[i].model_cycles) cs_json_double(&j, (double)c[i].model_cycles / per_us);
      else cs_json_null(&j);
      cs_json_key(&j, "tiling");
      cs_json_obj_begin(&j);
      rt_tiling_json_members(&c[i].t, &j);
      cs_json_obj_end(&j);
      cs_json_obj_end(&j);
    }
    cs_json_arr_end(&j);
    cs_json_obj_end(&j);
  } else {
    const rt_tiling *b = &c[0].t;
    fprintf(io->out, "%s: m %u, n %u, k %u on %" PRIu64 " cores at %" PRIu64 " MHz: the best %u candidates by the estimate, "
            "%u timed by the model%s\n\n",
            op->name, b->m, b->n, b->ka, cfg.chip_aic_cores, cfg.chip_clock_mhz, n, ntimed, ntimed ? " (those first)" : "");
    fprintf(io->out, "   #  estimate us    model us  tiling\n");
    for (unsigned i = 0; i < n; i++) {
      char line[512], model[32] = "-";
      rt_tiling_describe(&c[i].t, line, sizeof line);
      if (c[i].model_cycles) snprintf(model, sizeof model, "%.1f", (double)c[i].model_cycles / per_us);
      fprintf(io->out, "  %2u  %11.1f  %10s  %s\n", i + 1, c[i].est.cycles / per_us, model, line);
    }
    fprintf(io->out, "\nthe best, as a run:\n  cubesim run %s", op->name);
    for (int i = 0; i < nattr; i++) {
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)keylen(&attrs[i]), attrs[i].key);
      int f = rt_tiling_field_find(name);
      if ((f < 0 || !rt_tiling_field_at(f)->attr) && strcmp(name, "step_k") != 0 && strcmp(name, "tiling") != 0)
        fprintf(io->out, " --attr %s=%s", name, attrs[i].val);
    }
    for (int i = 0; i < nin; i++) fprintf(io->out, " --in %s", ins[i].key);
    if (chip.config) fprintf(io->out, " --config %s", chip.config);
    for (int i = 0; i < chip.nset; i++) fprintf(io->out, " --set %s", chip.sets[i]);
    if (chip.cores) fprintf(io->out, " --cores %s", chip.cores);
    for (int i = 0; i < RT_TF_COUNT; i++) {
      const rt_tiling_field *f = rt_tiling_field_at(i);
      uint32_t x = rt_tiling_get(b, i);
      if (!f->attr) continue;
      if (f->names) fprintf(io->out, " --attr %s=%s", f->name, rt_tiling_value_name(i, x));
      else fprintf(io->out, " --attr %s=%u", f->name, x);
    }
    fputc('\n', io->out);
  }
  kn_ctx_destroy(ctx);
  return 0;
}
