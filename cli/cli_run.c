/* cli_run — `cubesim run KERNEL ...` (run a kernel or operator on the simulated chip, or on the
 * host for host operators) and `cubesim kernels` (what each one takes). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_json.h"
#include "base/cs_npy.h"
#include "base/cs_parse.h"
#include "cli/cli.h"
#include "kernels/kn_op.h"
#include "sim/sim_program.h"
#include "sim/sim_trace.h"
#include "traces/trc_summary.h"

#define MAX_ARGS 32

static const char *const run_usage =
    "usage: cubesim run KERNEL [--in NAME=FILE.npy]... [--attr KEY=VALUE]... [--out NAME=FILE.npy]...\n"
    "                   [--config FILE.yaml] [--set SECTION.KEY=VALUE]... [--trace FILE [--trace-...]]\n"
    "                   [--timing-only] [--check] [--json] [--allow-hazards] [--seed N] [--quiet]\n"
    "                   [--csv FILE.csv] [--dump-stream FILE.s] [--tiling FILE.json]\n"
    "\n"
    "Runs KERNEL (cubesim kernels lists them, with their inputs, attributes and outputs) on the\n"
    "simulated chip of the configuration (the built-in Ascend 910B by default). With no --in at\n"
    "all, the inputs are generated deterministically from the shape attributes (m, n, k, ...).\n"
    "  --in NAME=FILE.npy     an input, by the name of the operator's document\n"
    "  --attr KEY=VALUE       an attribute\n"
    "  --tiling FILE.json     a TCubeTiling (camelCase fields, as Ascend's tiling API prints it) for\n"
    "                         the matmul operators' tiling attributes; --attr overrides its fields\n"
    "  --out NAME=FILE.npy    write an output (bf16 is written as float32, int4 as int8)\n"
    "  --config FILE.yaml     the chip (cubesim config show explains every key)\n"
    "  --set KEY=VALUE        override one configuration value, e.g. --set chip.cores=8\n"
CLI_TRACE_USAGE
    "  --timing-only          simulate time only: no data, no outputs (fast for large shapes)\n"
    "  --check                compare every output with the host reference, bit for bit\n"
    "  --json                 print the results as JSON\n"
    "  --allow-hazards        report data hazards without failing the run\n"
    "  --seed N               seed of generated inputs (default 1)\n"
    "  --quiet                no progress line (shown on a terminal for runs over a second)\n"
    "  --csv FILE.csv         per-core summary with msprof-like columns (traces/FORMAT.md)\n"
    "  --dump-stream FILE.s   the recorded instruction streams as a text program: cubesim exec\n"
    "                         runs it again, e.g. under another --config\n";

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

static cs_status load_input(kn_ctx *ctx, const kv *in, cs_err *err) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)keylen(in), in->key);
  cs_npy a;
  memset(&a, 0, sizeof a);
  cs_status st = cs_npy_read(in->val, &a, err);
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
  if (!f) return cs_err_set(err, CS_EIO, "--tiling %s: cannot open it", path);
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
    else if (fd->names) snprintf(out->value[out->n], sizeof out->value[0], "%s", v == RT_SPLIT_BLOCK ? "block" : "round_robin");
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

/* Where each file of the run goes, validated and reserved before any work (base/cs_out:
 * nothing is replaced until the commit at the end). */
typedef struct run_outputs {
  cs_out_set *set;
  cs_out *trace, *csv, *dump;
  cs_out *npy[MAX_ARGS]; /* one per --out */
} run_outputs;

static cs_status add_outputs(run_outputs *ro, const char *trace_path, const char *csv_path,
                             const char *dump_path, const kv *outs, int nout, cs_err *err) {
  cs_status st = cs_out_set_create(cli_temps_hooks(), &ro->set, err);
  if (st == CS_OK && trace_path) st = cs_out_add(ro->set, "--trace", trace_path, &ro->trace, err);
  for (int i = 0; st == CS_OK && i < nout; i++) {
    char what[80];
    snprintf(what, sizeof what, "--out %.*s", (int)keylen(&outs[i]), outs[i].key);
    st = cs_out_add(ro->set, what, outs[i].val, &ro->npy[i], err);
  }
  if (st == CS_OK && csv_path) st = cs_out_add(ro->set, "--csv", csv_path, &ro->csv, err);
  if (st == CS_OK && dump_path) st = cs_out_add(ro->set, "--dump-stream", dump_path, &ro->dump, err);
  return st;
}

/* Writes every file of a finished run and commits them together. */
static cs_status write_outputs(run_outputs *ro, kn_ctx *ctx, const kn_op *op, const kv *outs, int nout,
                               cs_err *err) {
  cs_status st = CS_OK;
  for (int i = 0; i < nout && st == CS_OK; i++) {
    const kn_tensor *t = kn_ctx_output(ctx, op->outputs[find_output(op, &outs[i])].name);
    if (!t)
      return cs_err_set(err, CS_EINVAL, "--out %.*s: the run produced no such output", (int)keylen(&outs[i]),
                        outs[i].key);
    size_t shape[KN_MAX_DIMS];
    for (uint32_t dd = 0; dd < t->ndim; dd++) shape[dd] = (size_t)t->shape[dd];
    FILE *f;
    st = cs_out_stream(ro->npy[i], &f, err);
    if (st == CS_OK) st = cs_npy_fwrite(f, outs[i].val, npy_of_dtype(t->dtype), (int)t->ndim, shape, t->data, err);
  }
  sim *s = kn_get_sim(ctx);
  sim_result *res = kn_has_sim_result(ctx) ? kn_sim_result(ctx) : NULL;
  if (st == CS_OK && ro->csv && s && res) {
    FILE *f;
    st = cs_out_stream(ro->csv, &f, err);
    if (st == CS_OK) trc_summary_csv(s, res, f);
  }
  if (st == CS_OK && ro->dump && s) st = dump_stream(ro->dump, op->name, s, err);
  if (st == CS_OK) st = cs_out_set_commit(ro->set, err);
  return st;
}

int cli_cmd_run(cli_io *io, int argc, char **argv) {
  kv ins[MAX_ARGS], attrs[MAX_ARGS], outs[MAX_ARGS], sets[MAX_ARGS];
  int nin = 0, nattr = 0, nout = 0, nset = 0;
  const char *kernel = NULL, *config = NULL, *csv_path = NULL, *dump_path = NULL, *v;
  cli_trace_args targs = {0};
  const char *tiling_path = NULL;
  bool timing_only = false, check = false, json = false, allow_hazards = false, quiet = false;
  uint64_t seed = 1;
  cs_err err = {CS_OK, ""};
  for (int i = 1; i < argc; i++) {
    int r;
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(run_usage, io->out);
      return 0;
    }
    /* the NAME=VALUE options; cli_opt moves i to the value when it is a separate word */
    static const char *const kv_opts[4] = {"--in", "--attr", "--out", "--set"};
    kv *const kv_lists[4] = {ins, attrs, outs, sets};
    int *const kv_counts[4] = {&nin, &nattr, &nout, &nset};
    int which = -1;
    for (int o = 0; o < 4 && which < 0; o++) {
      if ((r = cli_opt(argc, argv, &i, kv_opts[o], &v, &err)) < 0) return cli_fail(io, "run", &err);
      if (r > 0) which = o;
    }
    if (which >= 0) {
      int *n = kv_counts[which];
      if (*n == MAX_ARGS) return cli_usage_error(io, "run", "too many %s options (at most %d)", kv_opts[which], MAX_ARGS);
      kv *cur = &kv_lists[which][*n];
      if (split_kv(v, kv_opts[which], cur, &err) < 0) return cli_fail(io, "run", &err);
      /* one --in, --attr or --out per name: a second one would silently win. --set is applied
       * in order, each over the configuration so far, so repeating a key there is meaningful. */
      for (int k = 0; which != 3 && k < *n; k++)
        if (keylen(&kv_lists[which][k]) == keylen(cur) && strncmp(kv_lists[which][k].key, cur->key, keylen(cur)) == 0)
          return cli_usage_error(io, "run", "%s %.*s is given twice ('%s' and '%s')", kv_opts[which], (int)keylen(cur),
                                 cur->key, kv_lists[which][k].key, cur->key);
      (*n)++;
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--config", &config, &err)) != 0 ||
        (r = cli_trace_opt(argc, argv, &i, &targs, &err)) != 0 ||
        (r = cli_opt(argc, argv, &i, "--csv", &csv_path, &err)) != 0 ||
        (r = cli_opt(argc, argv, &i, "--dump-stream", &dump_path, &err)) != 0 ||
        (r = cli_opt(argc, argv, &i, "--tiling", &tiling_path, &err)) != 0) {
      if (r < 0) return cli_fail(io, "run", &err);
      continue;
    }
    if ((r = cli_opt(argc, argv, &i, "--seed", &v, &err)) != 0) {
      if (r < 0 || cs_parse_u64(v, "--seed", &seed, &err) != CS_OK) return cli_fail(io, "run", &err);
      continue;
    }
    if (cli_flag(argv, i, "--timing-only")) timing_only = true;
    else if (cli_flag(argv, i, "--check")) check = true;
    else if (cli_flag(argv, i, "--json")) json = true;
    else if (cli_flag(argv, i, "--allow-hazards")) allow_hazards = true;
    else if (cli_flag(argv, i, "--quiet")) quiet = true;
    else if (argv[i][0] == '-') return cli_usage_error(io, "run", "unknown option '%s' (cubesim run --help)", argv[i]);
    else if (!kernel) kernel = argv[i];
    else return cli_usage_error(io, "run", "unexpected argument '%s' (one KERNEL per run)", argv[i]);
  }
  if (!kernel) return cli_usage_error(io, "run", "no KERNEL given (cubesim kernels lists them)");
  const kn_op *op = kn_op_find(kernel);
  if (!op) return cli_usage_error(io, "run", "unknown kernel '%s' (cubesim kernels lists them)", kernel);
  for (int i = 0; i < nout; i++) {
    if (find_output(op, &outs[i]) < 0)
      return cli_usage_error(io, "run", "--out %.*s: %s has no output of that name", (int)keylen(&outs[i]), outs[i].key, op->name);
    if (timing_only)
      return cli_usage_error(io, "run", "--out %.*s: a --timing-only run computes no data", (int)keylen(&outs[i]), outs[i].key);
  }
  if (check && timing_only) return cli_usage_error(io, "run", "--check needs data: drop --timing-only");
  const char *trace_path = targs.path;
  if ((trace_path || csv_path || dump_path) && !op->simulated)
    return cli_usage_error(io, "run", "%s: %s runs on the host, it has no %s", trace_path ? "--trace" : csv_path ? "--csv" : "--dump-stream",
                           op->name, trace_path ? "trace" : csv_path ? "timing summary" : "instruction stream");

  sim_config cfg;
  sim_config_derived d;
  cs_status st = sim_config_resolve(config, &cfg, &d, &err);
  for (int i = 0; st == CS_OK && i < nset; i++) {
    char path[128];
    snprintf(path, sizeof path, "%.*s", (int)keylen(&sets[i]), sets[i].key);
    st = sim_config_set(&cfg, path, sets[i].val, &err);
    if (st == CS_OK) st = sim_config_validate(&cfg, &err);
  }
  sim_trace_options topts;
  if (st == CS_OK) st = cli_trace_options(&targs, io, "run", &cfg, &topts, &err);
  if (st != CS_OK) return cli_fail(io, "run", &err);
  run_outputs ro;
  memset(&ro, 0, sizeof ro);
  if (st == CS_OK) st = add_outputs(&ro, trace_path, csv_path, dump_path, outs, nout, &err);
  if (st != CS_OK) {
    cs_out_set_destroy(ro.set);
    return cli_fail(io, "run", &err);
  }

  tiling_attrs ta = {.n = 0};
  char ignored[512] = "";
  if (tiling_path && (st = read_tiling_file(tiling_path, &ta, ignored, sizeof ignored, &err)) != CS_OK) {
    cs_out_set_destroy(ro.set);
    return cli_fail(io, "run", &err);
  }
  if (ignored[0])
    fprintf(io->err, "cubesim run: note: --tiling %s: fields cubesim does not model, ignored: %s\n", tiling_path, ignored);
  /* the trace is a temporary file until the commit: an input refused below discards it */
  sim_trace *trace = NULL;
  if (ro.trace && (st = sim_trace_open_out(ro.trace, &cfg, &topts, &trace, &err)) != CS_OK) {
    cs_out_set_destroy(ro.set);
    return cli_fail(io, "run", &err);
  }
  cli_progress progress;
  cli_progress_init(&progress, io, "run", quiet, cfg.chip_clock_mhz);
  kn_run_options o = {.cfg = &cfg, .timing_only = timing_only, .trace = trace, .allow_hazards = allow_hazards, .seed = seed,
                      .progress = cli_progress_hook(&progress)};
  kn_ctx *ctx = NULL;
  st = kn_ctx_create(op, &o, &ctx, &err);
  if (st == CS_OK) st = set_attrs(ctx, &ta, attrs, nattr, &err);
  for (int i = 0; st == CS_OK && i < nin; i++) st = load_input(ctx, &ins[i], &err);
  if (st == CS_OK) st = kn_ctx_run(ctx, &err);
  cli_progress_done(&progress);
  if (trace) {
    cs_err terr;
    cs_status tst = sim_trace_close(trace, st == CS_OK, &terr);
    if (st == CS_OK && tst != CS_OK) st = tst, err = terr;
  }
  /* the comparison with the reference */
  uint64_t mismatches = 0;
  kn_compare cmps[8];
  memset(cmps, 0, sizeof cmps);
  if (st == CS_OK && check) {
    st = kn_ctx_reference(ctx, &err);
    for (uint32_t i = 0; st == CS_OK && i < op->noutputs && i < 8; i++) {
      const kn_tensor *got = kn_ctx_output(ctx, op->outputs[i].name);
      const kn_tensor *want = kn_ctx_reference_output(ctx, op->outputs[i].name);
      if (!got || !want) continue;
      st = kn_compare_tensors(got, want, &cmps[i], &err);
      mismatches += cmps[i].mismatches;
    }
  }
  if (st == CS_OK) st = write_outputs(&ro, ctx, op, outs, nout, &err); /* all or nothing */
  cs_out_set_destroy(ro.set);
  if (st != CS_OK) {
    int rc = cli_fail(io, "run", &err);
    kn_ctx_destroy(ctx);
    return rc;
  }
  sim *s = kn_get_sim(ctx);
  sim_result *res = kn_has_sim_result(ctx) ? kn_sim_result(ctx) : NULL;
  if (json) {
    cs_json j;
    cs_json_init(&j, io->out, true);
    cs_json_obj_begin(&j);
    cs_json_key(&j, "kernel");
    cs_json_str(&j, op->name);
    cs_json_key(&j, "inputs");
    cs_json_obj_begin(&j);
    for (uint32_t i = 0; i < op->ninputs; i++) {
      const kn_tensor *t = kn_input(ctx, op->inputs[i].name);
      if (!t) continue;
      cs_json_key(&j, op->inputs[i].name);
      json_tensor(&j, t);
    }
    cs_json_obj_end(&j);
    cs_json_key(&j, "outputs");
    cs_json_obj_begin(&j);
    for (uint32_t i = 0; i < op->noutputs; i++) {
      const kn_tensor *t = kn_ctx_output(ctx, op->outputs[i].name);
      if (!t) continue;
      cs_json_key(&j, op->outputs[i].name);
      json_tensor(&j, t);
    }
    cs_json_obj_end(&j);
    if (check) {
      cs_json_key(&j, "check");
      cs_json_obj_begin(&j);
      cs_json_key(&j, "mismatches");
      cs_json_uint(&j, mismatches);
      for (uint32_t i = 0; i < op->noutputs && i < 8; i++) {
        if (!cmps[i].count) continue;
        cs_json_key(&j, op->outputs[i].name);
        cs_json_obj_begin(&j);
        cs_json_key(&j, "compared");
        cs_json_uint(&j, cmps[i].count);
        cs_json_key(&j, "mismatches");
        cs_json_uint(&j, cmps[i].mismatches);
        cs_json_key(&j, "max_abs_diff");
        cs_json_double(&j, cmps[i].max_abs_diff);
        cs_json_key(&j, "first");
        cs_json_str(&j, cmps[i].mismatches ? cmps[i].first : NULL);
        cs_json_obj_end(&j);
      }
      cs_json_obj_end(&j);
    }
    cs_json_key(&j, "notes");
    cs_json_arr_begin(&j);
    for (const char *p = kn_ctx_notes(ctx); *p;) {
      const char *nl = strchr(p, '\n');
      char line[512];
      snprintf(line, sizeof line, "%.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
      cs_json_str(&j, line);
      p = nl ? nl + 1 : p + strlen(p);
    }
    cs_json_arr_end(&j);
    const rt_tiling *tl = kn_get_tiling(ctx);
    if (tl) {
      cs_json_key(&j, "tiling");
      cs_json_obj_begin(&j);
      rt_tiling_json_members(tl, &j);
      cs_json_obj_end(&j);
    }
    if (s && res) trc_summary_json_members(s, res, &j);
    cs_json_obj_end(&j);
  } else {
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
    if (check) {
      fprintf(io->out, "\ncheck against the host reference: ");
      if (!mismatches) fprintf(io->out, "every output bit-exact\n");
      else
        for (uint32_t i = 0; i < op->noutputs && i < 8; i++)
          if (cmps[i].mismatches)
            fprintf(io->out, "\n  %s: %" PRIu64 " of %" PRIu64 " elements differ (max |diff| %g); first %s\n",
                    op->outputs[i].name, cmps[i].mismatches, cmps[i].count, cmps[i].max_abs_diff, cmps[i].first);
    }
    if (s && res) {
      fputc('\n', io->out);
      trc_summary_text(s, res, io->out);
    }
    if (trace_path) fprintf(io->out, "\ntrace written to %s (open it in https://ui.perfetto.dev)\n", trace_path);
  }
  kn_ctx_destroy(ctx);
  if (mismatches) {
    fprintf(io->err, "cubesim run: error: %" PRIu64 " output element%s differ from the host reference\n", mismatches,
            mismatches == 1 ? "" : "s");
    return cs_status_exit_code(CS_EMISMATCH);
  }
  return 0;
}

static void print_io(FILE *f, const char *what, const kn_io_desc *d, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    fprintf(f, "    %-6s %-22s %-18s %s%s\n", what, d[i].name, d[i].dtypes, d[i].optional ? "(optional) " : "", d[i].desc);
}

int cli_cmd_kernels(cli_io *io, int argc, char **argv) {
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (cli_flag(argv, i, "--json")) json = true;
    else if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs("usage: cubesim kernels [--json]\n\nLists every kernel and operator `cubesim run` takes, with its inputs, "
            "attributes and outputs.\n", io->out);
      return 0;
    } else
      return cli_usage_error(io, "kernels", "unknown argument '%s'", argv[i]);
  }
  static const char *const kinds[] = {"int", "float", "bool", "enum", "string"};
  if (json) {
    cs_json j;
    cs_json_init(&j, io->out, true);
    cs_json_arr_begin(&j);
    for (size_t k = 0; k < kn_op_count(); k++) {
      const kn_op *op = kn_op_at(k);
      cs_json_obj_begin(&j);
      cs_json_key(&j, "name");
      cs_json_str(&j, op->name);
      cs_json_key(&j, "summary");
      cs_json_str(&j, op->summary);
      cs_json_key(&j, "source");
      cs_json_str(&j, op->source);
      cs_json_key(&j, "simulated");
      cs_json_bool(&j, op->simulated);
      const char *sect[2] = {"inputs", "outputs"};
      for (int s2 = 0; s2 < 2; s2++) {
        const kn_io_desc *d = s2 ? op->outputs : op->inputs;
        uint32_t n = s2 ? op->noutputs : op->ninputs;
        cs_json_key(&j, sect[s2]);
        cs_json_arr_begin(&j);
        for (uint32_t i = 0; i < n; i++) {
          cs_json_obj_begin(&j);
          cs_json_key(&j, "name");
          cs_json_str(&j, d[i].name);
          cs_json_key(&j, "dtypes");
          cs_json_str(&j, d[i].dtypes);
          cs_json_key(&j, "optional");
          cs_json_bool(&j, d[i].optional);
          cs_json_key(&j, "description");
          cs_json_str(&j, d[i].desc);
          cs_json_obj_end(&j);
        }
        cs_json_arr_end(&j);
      }
      cs_json_key(&j, "attributes");
      cs_json_arr_begin(&j);
      for (uint32_t i = 0; i < op->nattrs; i++) {
        const kn_attr_desc *a = &op->attrs[i];
        cs_json_obj_begin(&j);
        cs_json_key(&j, "name");
        cs_json_str(&j, a->name);
        cs_json_key(&j, "kind");
        cs_json_str(&j, kinds[a->kind]);
        cs_json_key(&j, "default");
        cs_json_str(&j, a->def);
        cs_json_key(&j, "choices");
        cs_json_str(&j, a->choices);
        cs_json_key(&j, "description");
        cs_json_str(&j, a->desc);
        cs_json_obj_end(&j);
      }
      cs_json_arr_end(&j);
      cs_json_obj_end(&j);
    }
    cs_json_arr_end(&j);
    return 0;
  }
  for (size_t k = 0; k < kn_op_count(); k++) {
    const kn_op *op = kn_op_at(k);
    fprintf(io->out, "%s%s  (%s)\n  %s\n  source: %s\n", k ? "\n" : "", op->name,
            op->simulated ? "simulated" : "host", op->summary, op->source);
    print_io(io->out, "in", op->inputs, op->ninputs);
    for (uint32_t i = 0; i < op->nattrs; i++) {
      const kn_attr_desc *a = &op->attrs[i];
      char def[96];
      snprintf(def, sizeof def, "%s%s", a->kind == KN_ATTR_ENUM ? a->choices : kinds[a->kind], "");
      fprintf(io->out, "    attr   %-22s %-18s %s%s%s%s\n", a->name, def, a->desc, a->def ? " (default " : "",
              a->def ? a->def : "", a->def ? ")" : "");
    }
    print_io(io->out, "out", op->outputs, op->noutputs);
  }
  return 0;
}
