/* cli_exec — `cubesim exec PROGRAM.s`: run a text program of instructions (docs/PROGRAM.md) on
 * the simulated chip, with its tensors read from and written to .npy files. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_host.h"
#include "base/cs_json.h"
#include "base/cs_npy.h"
#include "cli/cli.h"
#include "isa/isa_num.h"
#include "sim/sim.h"
#include "sim/sim_config.h"
#include "sim/sim_program.h"
#include "sim/sim_trace.h"
#include "traces/trc_summary.h"

#define CMD "exec"

static const char exec_help[] =
    "usage: cubesim exec PROGRAM.s [--in NAME=FILE.npy]... [--out NAME=FILE.npy]...\n"
    "                    [--config FILE.yaml] [--set SECTION.KEY=VALUE]... [--cores N]\n"
    "                    [--trace FILE [--trace-...]] [--timing-only]\n"
    "                    [--allow-hazards] [--json] [--csv FILE.csv] [--dump-stream FILE.s] [--quiet]\n"
    "                    [--max-memory SIZE]\n"
    "\n"
    "Runs a text program (GM tensors declared with .gm, instructions per core after .core;\n"
    "docs/PROGRAM.md) on the simulated chip: every core's instructions are checked and applied\n"
    "(core 0 first), then all cores are replayed together for the timing, and a summary is\n"
    "printed. A fault, a deadlock or a data hazard is an error naming the program line, and\n"
    "then no output file is written. The chip has as many cores as the program uses (its highest\n"
    ".core + 1), so its figures are not spread over idle cores, unless --config, --set chip.aic_cores\n"
    "or --cores says otherwise.\n"
    "\n"
    "options:\n"
    "  --in NAME=FILE.npy     data of an in/inout tensor; its dtype and shape must be the\n"
    "                         declared ones (bf16: float32, rounded to nearest even; int4/uint4:\n"
    "                         int8/uint8, one value per element). Tensors not given are zero.\n"
    "  --out NAME=FILE.npy    write an out/inout tensor after the run (bf16 as float32,\n"
    "                         int4/uint4 as int8/uint8)\n"
  CLI_CHIP_USAGE
CLI_TRACE_USAGE
    "  --timing-only          keep no data (tensors are not loaded; --out is refused)\n"
    "  --allow-hazards        report data hazards as a warning instead of failing\n"
    "  --json                 the summary as JSON\n"
    "  --csv FILE.csv         per-core summary with msprof-like columns (traces/FORMAT.md)\n"
    "  --dump-stream FILE.s   write the recorded streams back as a program (exec reads it)\n"
    "  --quiet                no progress line (shown on a terminal for runs over a second)\n"
    "  --max-memory SIZE      host memory the run may take (8G, 512M, 50%; default 80% of the\n"
    "                         host's): a program estimated to need more is refused before it runs\n";

/* One --in or --out. */
typedef struct binding {
  const char *arg;  /* NAME=FILE as given */
  char name[SIM_PROG_NAME_BYTES];
  const char *path;
  const sim_prog_tensor *t;
  cs_out *out;      /* --out: where it goes */
} binding;

typedef struct exec_args {
  const char *program;
  binding *ins, *outs;
  size_t nin, nout;
  cli_chip_args chip;           /* --config, --set, --cores */
  const char *dump, *csv;
  cli_trace_args trace;       /* the trace options */
  sim_trace_options trace_opt; /* checked, once the configuration is known */
  bool timing_only, allow_hazards, json, quiet;
  const sim_progress_hook *progress; /* NULL: silent */
  uint64_t max_memory;               /* --max-memory, or the host's default */
  cs_out *trace_out, *dump_out, *csv_out; /* in the run's output set */
} exec_args;

static cs_status split_binding(const char *opt, const char *v, binding *b, cs_err *err) {
  const char *eq = strchr(v, '=');
  if (!eq || eq == v || eq[1] == '\0')
    return cs_err_set(err, CS_EINVAL, "%s expects NAME=FILE.npy, got '%s'", opt, v);
  size_t n = (size_t)(eq - v);
  if (n >= sizeof b->name)
    return cs_err_set(err, CS_EINVAL, "%s %s: the name is longer than %d characters", opt, v,
                      SIM_PROG_NAME_BYTES - 1);
  b->arg = v;
  memcpy(b->name, v, n);
  b->name[n] = '\0';
  b->path = eq + 1;
  return CS_OK;
}

static int parse_args(cli_io *io, int argc, char **argv, exec_args *a, bool *help) {
  cs_err e;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int r;
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      *help = true;
      return 0;
    }
    if (cli_flag(argv, i, "--timing-only")) { a->timing_only = true; continue; }
    if (cli_flag(argv, i, "--allow-hazards")) { a->allow_hazards = true; continue; }
    if (cli_flag(argv, i, "--json")) { a->json = true; continue; }
    if (cli_flag(argv, i, "--quiet")) { a->quiet = true; continue; }
    if ((r = cli_trace_opt(argc, argv, &i, &a->trace, &e)) != 0 ||
        (r = cli_chip_opt(argc, argv, &i, &a->chip, &e)) != 0) {
      if (r < 0) return cli_fail(io, CMD, &e);
      continue;
    }
    static const char *const valued[] = {"--in", "--out", "--dump-stream", "--csv", "--max-memory"};
    int which = -1;
    for (int k = 0; k < 5 && which < 0; k++) {
      r = cli_opt(argc, argv, &i, valued[k], &v, &e);
      if (r < 0) return cli_fail(io, CMD, &e);
      if (r > 0) which = k;
    }
    if (which == 0 || which == 1) {
      binding *b = which == 0 ? &a->ins[a->nin++] : &a->outs[a->nout++];
      if (split_binding(valued[which], v, b, &e) != CS_OK) return cli_fail(io, CMD, &e);
      continue;
    }
    if (which == 2) { a->dump = v; continue; }
    if (which == 3) { a->csv = v; continue; }
    if (which == 4) {
      if (cs_host_parse_memory(v, "--max-memory", &a->max_memory, &e) != CS_OK) return cli_fail(io, CMD, &e);
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1] != '\0') return cli_unknown_option(io, CMD, argv[i], exec_help);
    if (a->program)
      return cli_usage_error(io, CMD, "one program only: '%s' and '%s'", a->program, argv[i]);
    a->program = argv[i];
  }
  if (!a->program) return cli_usage_error(io, CMD, "no program given (cubesim exec --help)");
  if (a->timing_only && a->nout)
    return cli_usage_error(io, CMD, "--out %s: --timing-only keeps no data to write",
                           a->outs[0].arg);
  return 0;
}

/* Finds each binding's tensor and checks its kind; no tensor twice. */
static cs_status bind(const sim_program *p, const char *opt, binding *bs, size_t n, bool input,
                      cs_err *err) {
  for (size_t i = 0; i < n; i++) {
    binding *b = &bs[i];
    b->t = sim_program_tensor(p, b->name);
    if (!b->t) {
      const char *near = sim_program_suggest_tensor(p, b->name);
      if (near)
        return cs_err_set(err, CS_EINVAL, "%s %s: %s declares no tensor '%s' (did you mean '%s'?)",
                          opt, b->arg, p->file, b->name, near);
      return cs_err_set(err, CS_EINVAL, "%s %s: %s declares no tensor '%s'", opt, b->arg, p->file,
                        b->name);
    }
    bool ok = input ? sim_tensor_kind_is_input(b->t->kind) : sim_tensor_kind_is_output(b->t->kind);
    if (!ok)
      return cs_err_set(err, CS_EINVAL, "%s %s: tensor %s is declared %s (line %u); %s", opt,
                        b->arg, b->name, sim_tensor_kind_name(b->t->kind), b->t->line,
                        input ? "only in and inout tensors are read from files"
                              : "only out and inout tensors are written to files");
    for (size_t j = 0; j < i; j++)
      if (bs[j].t == b->t)
        return cs_err_set(err, CS_EINVAL, "%s %s: tensor %s is already given (%s %s)", opt,
                          b->arg, b->name, opt, bs[j].arg);
  }
  return CS_OK;
}

/* "int8 [16,32]" */
static void describe_array(char *out, size_t n, const char *dtype, int ndim, const uint64_t *shape) {
  size_t used = (size_t)snprintf(out, n, "%s [", dtype);
  for (int d = 0; d < ndim && used < n; d++)
    used += (size_t)snprintf(out + used, n - used, "%s%" PRIu64, d ? "," : "", shape[d]);
  if (used < n) snprintf(out + used, n - used, "]");
}

/* The .npy type a tensor travels as (isa_dtype.h: bf16 as fp32, int4 / uint4 as int8 / uint8). */
static cs_npy_dtype npy_type(isa_dtype t) { return cs_npy_dtype_from_descr(isa_dtype_npy_descr(t)); }

static cs_status load_input(sim *s, const binding *b, bool timing_only, uint64_t max_memory, cs_err *err) {
  const sim_prog_tensor *t = b->t;
  cs_npy a;
  memset(&a, 0, sizeof a);
  cs_status st = cs_npy_read_max(b->path, max_memory, &a, err);
  if (st != CS_OK) {
    cs_npy_free(&a);
    cs_err_prefix(err, "--in %s", b->arg);
    return st;
  }
  bool same = a.dtype == npy_type(t->dtype) && a.ndim == t->ndim;
  for (int d = 0; same && d < t->ndim; d++) same = a.shape[d] == t->shape[d];
  if (!same) {
    uint64_t got_shape[CS_NPY_MAX_DIMS];
    for (int d = 0; d < a.ndim; d++) got_shape[d] = a.shape[d];
    char want[256], want_npy[256], got[256];
    describe_array(want, sizeof want, isa_dtype_name(t->dtype), t->ndim, t->shape);
    describe_array(want_npy, sizeof want_npy, cs_npy_dtype_name(npy_type(t->dtype)), t->ndim,
                   t->shape);
    describe_array(got, sizeof got, cs_npy_dtype_name(a.dtype), a.ndim, got_shape);
    cs_npy_free(&a);
    return cs_err_set(err, CS_EINVAL, "--in %s: tensor %s is %s, so the file must hold %s; it holds %s",
                      b->arg, t->name, want, want_npy, got);
  }
  if (timing_only) {
    cs_npy_free(&a);
    return CS_OK;
  }
  uint8_t *dst = sim_gm_ptr(s, t->addr, t->bytes);
  if (!dst) {
    cs_npy_free(&a);
    return cs_err_set(err, CS_EINTERNAL, "--in %s: tensor %s has no host memory", b->arg, t->name);
  }
  switch (t->dtype) {
    case ISA_BF16:
      for (size_t i = 0; i < a.count; i++) {
        float f;
        memcpy(&f, (const uint8_t *)a.data + 4 * i, 4);
        uint16_t h = isa_f32_to_bf16(f);
        memcpy(dst + 2 * i, &h, 2);
      }
      break;
    case ISA_INT4: st = isa_int4_pack(a.data, a.count, dst, err); break;
    case ISA_UINT4: st = isa_uint4_pack(a.data, a.count, dst, err); break;
    default: memcpy(dst, a.data, t->bytes); break;
  }
  cs_npy_free(&a);
  if (st != CS_OK) cs_err_prefix(err, "--in %s", b->arg);
  return st;
}

static cs_status write_output(sim *s, const binding *b, cs_err *err) {
  FILE *out;
  cs_status st = cs_out_stream(b->out, &out, err);
  if (st != CS_OK) return st;
  const sim_prog_tensor *t = b->t;
  const uint8_t *src = sim_gm_ptr(s, t->addr, t->bytes);
  if (!src)
    return cs_err_set(err, CS_EINTERNAL, "--out %s: tensor %s has no host memory", b->arg, t->name);
  size_t shape[SIM_PROG_MAX_DIMS];
  for (int d = 0; d < t->ndim; d++) shape[d] = (size_t)t->shape[d];
  void *conv = NULL;
  const void *data = src;
  if (t->dtype == ISA_BF16 || t->dtype == ISA_INT4 || t->dtype == ISA_UINT4) {
    size_t item = t->dtype == ISA_BF16 ? 4 : 1;
    conv = malloc(t->elements * item);
    if (!conv) return cs_err_set(err, CS_ENOMEM, "--out %s: no host memory", b->arg);
    if (t->dtype == ISA_BF16) {
      for (size_t i = 0; i < t->elements; i++) {
        uint16_t h;
        memcpy(&h, src + 2 * i, 2);
        float f = isa_bf16_to_f32(h);
        memcpy((uint8_t *)conv + 4 * i, &f, 4);
      }
    } else if (t->dtype == ISA_INT4) {
      isa_int4_unpack(src, t->elements, conv);
    } else {
      isa_uint4_unpack(src, t->elements, conv);
    }
    data = conv;
  }
  st = cs_npy_fwrite(out, b->path, npy_type(t->dtype), t->ndim, shape, data, err);
  free(conv);
  if (st != CS_OK) cs_err_prefix(err, "--out %s", b->arg);
  return st;
}

/* The recorded streams as a program. */
static cs_status dump_streams(const sim_program *p, sim *s, cs_out *out, cs_err *err) {
  FILE *f;
  cs_status st = cs_out_stream(out, &f, err);
  if (st == CS_OK) st = sim_program_write_streams(f, p->file, p->tensors, p->ntensors, s, err);
  if (st != CS_OK) cs_err_prefix(err, "--dump-stream %s", cs_out_path(out));
  return st;
}

/* Validates and reserves every output file before any work (base/cs_out: nothing is replaced
 * until the commit at the end). */
static cs_status add_outputs(exec_args *a, cs_out_set *set, cs_err *err) {
  cs_status st = CS_OK;
  if (a->trace.path) st = cs_out_add(set, "--trace", a->trace.path, &a->trace_out, err);
  for (size_t i = 0; st == CS_OK && i < a->nout; i++) {
    char what[SIM_PROG_NAME_BYTES + 8];
    snprintf(what, sizeof what, "--out %s", a->outs[i].name);
    st = cs_out_add(set, what, a->outs[i].path, &a->outs[i].out, err);
  }
  if (st == CS_OK && a->dump) st = cs_out_add(set, "--dump-stream", a->dump, &a->dump_out, err);
  if (st == CS_OK && a->csv) st = cs_out_add(set, "--csv", a->csv, &a->csv_out, err);
  return st;
}

/* The per-core CSV summary. */
static cs_status write_csv(const sim *s, const sim_result *res, cs_out *out, cs_err *err) {
  FILE *f;
  cs_status st = cs_out_stream(out, &f, err);
  if (st == CS_OK) trc_summary_csv(s, res, f);
  return st;
}

/* The host memory the program will take (its tensors, streams and their replay), against
 * --max-memory, before anything is allocated. */
static cs_status preflight(const exec_args *a, const sim_program *p, const sim_config *cfg, cs_err *err) {
  uint64_t gm = 0;
  for (size_t i = 0; i < p->ntensors; i++) gm += p->tensors[i].bytes;
  sim_footprint f;
  /* a program's streams are recorded for good (it is no launch the device owns) */
  sim_footprint_run run = {.timing_only = a->timing_only, .gm_bytes = gm, .instructions = p->ninsns,
                           .traced = a->trace.path != NULL};
  sim_footprint_estimate(cfg, &run, &f);
  if (!a->max_memory || f.total_bytes <= a->max_memory) return CS_OK;
  char total[32], limit[32], parts[256];
  cs_bytes_text(f.total_bytes, total, sizeof total);
  cs_bytes_text(a->max_memory, limit, sizeof limit);
  sim_footprint_text(&f, parts, sizeof parts);
  return cs_err_set(err, CS_ENOMEM, "host memory: %s needs about %s (%s), over the limit of %s (--max-memory)",
                    p->file, total, parts, limit);
}

/* ---- the command ------------------------------------------------------------------------- */

/* Replays the streams; a deadlock or hazard error names the program line involved. */
static cs_status replay(const exec_args *a, const sim_program *p, sim *s, sim_result *res,
                        cli_io *io, cs_err *err) {
  sim_trace *tr = NULL;
  cs_status st;
  if (a->trace_out) {
    st = sim_trace_open_out(a->trace_out, sim_get_config(s), &a->trace_opt, &tr, err);
    if (st != CS_OK) {
      memset(res, 0, sizeof *res);
      return st;
    }
  }
  sim_run_options ro = {.trace = tr, .allow_hazards = a->allow_hazards};
  st = sim_run(s, &ro, res, err);
  if (tr) {
    cs_err e2;
    cs_status st2 = sim_trace_close(tr, st == CS_OK, &e2);
    if (st == CS_OK && st2 != CS_OK) {
      *err = e2;
      return st2;
    }
  }
  if (st == CS_EDEADLOCK && res->deadlocked) {
    unsigned line = sim_program_line_of(p, res->deadlock.core, res->deadlock.index);
    cs_err_prefix(err, "%s:%u", p->file, line);
  } else if (res->hazard_count && res->hazards_kept && (st == CS_EHAZARD || st == CS_OK)) {
    const sim_hazard *h = &res->hazards[0];
    unsigned later = sim_program_line_of(p, h->core, h->later);
    char first[640];
    sim_hazard_describe_lines(h, later, sim_program_line_of(p, h->core, h->earlier), first, sizeof first);
    const char *pl = res->hazard_count == 1 ? "" : "s";
    if (st == CS_EHAZARD)
      cs_err_set(err, CS_EHAZARD, "%s:%u: %" PRIu64 " data hazard%s; first: %s", p->file, later,
                 res->hazard_count, pl, first);
    else
      fprintf(io->err, "cubesim %s: warning: %s:%u: %" PRIu64 " data hazard%s (allowed); first: %s\n", CMD,
              p->file, later, res->hazard_count, pl, first);
  }
  return st;
}

/* The cores the program uses: its highest .core + 1 (1 when it names none). */
static unsigned program_cores(const sim_program *p) {
  unsigned n = 1;
  for (size_t i = 0; i < p->ncore_dirs; i++)
    if (p->core_dirs[i].core >= n) n = p->core_dirs[i].core + 1;
  return n;
}

static int run_exec(cli_io *io, exec_args *a) {
  cs_err e;
  sim_program *p = NULL;
  sim *s = NULL;
  sim_result res;
  bool have_result = false;
  int rc = 0;
  cs_status st = sim_program_read(a->program, &p, &e);
  if (st == CS_OK) st = bind(p, "--in", a->ins, a->nin, true, &e);
  if (st == CS_OK) st = bind(p, "--out", a->outs, a->nout, false, &e);
  sim_config cfg;
  if (st == CS_OK) st = cli_chip_config(&a->chip, program_cores(p), &cfg, &e);
  if (st == CS_OK) st = cli_trace_options(&a->trace, io, CMD, &cfg, &a->trace_opt, &e);
  cli_progress progress;
  cli_progress_init(&progress, io, CMD, a->quiet, st == CS_OK ? cfg.chip_clock_mhz : 1);
  a->progress = cli_progress_hook(&progress);
  cs_out_set *outputs = NULL;
  if (st == CS_OK) st = cs_out_set_create(cli_temps_hooks(), &outputs, &e);
  if (st == CS_OK) st = add_outputs(a, outputs, &e);
  if (st == CS_OK) st = preflight(a, p, &cfg, &e);
  sim_options so = {.timing_only = a->timing_only, .progress = a->progress, .max_host_bytes = a->max_memory};
  if (st == CS_OK) st = sim_create(&cfg, &so, &s, &e);
  if (st == CS_OK) st = sim_program_link(p, s, &e);
  for (size_t i = 0; st == CS_OK && i < a->nin; i++) st = load_input(s, &a->ins[i], a->timing_only, a->max_memory, &e);
  if (st == CS_OK) st = sim_program_issue(p, s, &e);
  if (st == CS_OK) {
    st = replay(a, p, s, &res, io, &e);
    have_result = true;
  }
  cli_progress_done(&progress);
  for (size_t i = 0; st == CS_OK && i < a->nout; i++) st = write_output(s, &a->outs[i], &e);
  if (st == CS_OK && a->dump_out) st = dump_streams(p, s, a->dump_out, &e);
  if (st == CS_OK && a->csv_out) st = write_csv(s, &res, a->csv_out, &e);
  if (st == CS_OK) st = cs_out_set_commit(outputs, &e); /* all of them, or none */
  if (st == CS_OK) {
    if (a->json) {
      cs_json j;
      cs_json_init(&j, io->out, true);
      trc_summary_json(s, &res, &j);
    } else {
      trc_summary_text(s, &res, io->out);
    }
  } else {
    rc = cli_fail(io, CMD, &e);
  }
  cs_out_set_destroy(outputs);
  if (have_result) sim_result_free(&res);
  sim_destroy(s);
  sim_program_free(p);
  return rc;
}

int cli_cmd_exec(cli_io *io, int argc, char **argv) {
  exec_args a;
  memset(&a, 0, sizeof a);
  a.max_memory = cs_host_default_memory_limit();
  a.ins = calloc((size_t)argc, sizeof *a.ins);
  a.outs = calloc((size_t)argc, sizeof *a.outs);
  int rc;
  bool help = false;
  if (!a.ins || !a.outs) {
    cs_err e;
    cs_err_set(&e, CS_ENOMEM, "no host memory for the arguments");
    rc = cli_fail(io, CMD, &e);
  } else {
    rc = parse_args(io, argc, argv, &a, &help);
    if (help) fputs(exec_help, io->out);
    else if (rc == 0) rc = run_exec(io, &a);
  }
  free(a.ins);
  free(a.outs);
  return rc;
}
