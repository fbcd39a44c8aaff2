/* sim_trace — the trace front end (sim/sim_trace.h): the output (base/cs_out), the options and
 * filters, and the flow arrow ends waiting for their slices; the formats are sim_trace_json.c
 * and sim_trace_pf.c. */
#include "sim/sim_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/sim_trace_internal.h"

#define TRACE_BUF_BYTES (1u << 20)

/* ---- formats and options ---------------------------------------------------------------- */

static const char *const format_names[] = {
#define SIM_TRACE_FORMAT_NAME(sfx, name) name,
    SIM_TRACE_FORMAT_TABLE(SIM_TRACE_FORMAT_NAME)
#undef SIM_TRACE_FORMAT_NAME
};

const char *sim_trace_format_name(sim_trace_format f) {
  return (unsigned)f < SIM_TRACE_FORMAT_COUNT ? format_names[f] : "?";
}

sim_trace_format sim_trace_format_from_name(const char *name) {
  for (int f = 0; f < SIM_TRACE_FORMAT_COUNT; f++)
    if (strcasecmp(name, format_names[f]) == 0) return (sim_trace_format)f;
  return SIM_TRACE_FORMAT_COUNT;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

sim_trace_format sim_trace_format_of_path(const char *path) {
  if (ends_with(path, ".perfetto-trace") || ends_with(path, ".pftrace") || ends_with(path, ".pb"))
    return SIM_TRACE_PERFETTO;
  return SIM_TRACE_JSON;
}

void sim_trace_options_init(sim_trace_options *o) {
  memset(o, 0, sizeof *o);
  memset(o->cores, 0xFF, sizeof o->cores);
  o->window_end = UINT64_MAX;
  o->flags = true;
}

/* An unsigned decimal at *p (advanced past it); false when there is none or it overflows. */
static bool read_uint(const char **p, uint64_t *v) {
  const char *s = *p;
  if (*s < '0' || *s > '9') return false;
  uint64_t x = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) return false;
    x = x * 10 + (uint64_t)(*s - '0');
  }
  *p = s;
  *v = x;
  return true;
}

cs_status sim_trace_parse_cores(sim_trace_options *o, const char *text, unsigned cores, cs_err *err) {
  memset(o->cores, 0, sizeof o->cores);
  const char *p = text;
  for (;;) {
    uint64_t a, b;
    if (!read_uint(&p, &a))
      return cs_err_set(err, CS_EINVAL, "--trace-cores: '%s' is not a list of cores (like 0-3 or 0,2,5-7)", text);
    b = a;
    if (*p == '-') {
      p++;
      if (!read_uint(&p, &b) || b < a)
        return cs_err_set(err, CS_EINVAL, "--trace-cores: '%s' is not a list of cores (like 0-3 or 0,2,5-7)", text);
    }
    if (b >= cores)
      return cs_err_set(err, CS_EINVAL, "--trace-cores: core %" PRIu64 " does not exist (chip.aic_cores = %u)", b, cores);
    for (uint64_t c = a; c <= b; c++) o->cores[c / 64] |= 1ull << (c % 64);
    if (*p == '\0') return CS_OK;
    if (*p++ != ',')
      return cs_err_set(err, CS_EINVAL, "--trace-cores: '%s' is not a list of cores (like 0-3 or 0,2,5-7)", text);
  }
}

/* One end of a window, "" (absent), cycles or microseconds ("us" or "µs"). */
static bool parse_time(const char *s, size_t n, uint64_t clock_mhz, uint64_t *cycles) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = '\0';
  size_t unit = ends_with(buf, "us") ? 2 : ends_with(buf, "\xC2\xB5s") ? 3 : 0;
  if (!unit) {
    const char *p = buf;
    return read_uint(&p, cycles) && *p == '\0';
  }
  buf[n - unit] = '\0';
  char *end;
  errno = 0;
  double us = strtod(buf, &end);
  if (end == buf || *end != '\0' || errno || !(us >= 0) || buf[0] == '-' || buf[0] == '+') return false;
  double c = us * (double)clock_mhz + 0.5; /* to the nearest cycle */
  if (!(c < 1.8e19)) return false;
  *cycles = (uint64_t)c;
  return true;
}

cs_status sim_trace_parse_window(sim_trace_options *o, const char *text, uint64_t clock_mhz, cs_err *err) {
  const char *colon = strchr(text, ':');
  uint64_t start = 0, end = UINT64_MAX;
  bool ok = colon != NULL;
  if (ok && colon > text) ok = parse_time(text, (size_t)(colon - text), clock_mhz, &start);
  if (ok && colon[1]) ok = parse_time(colon + 1, strlen(colon + 1), clock_mhz, &end);
  if (!ok)
    return cs_err_set(err, CS_EINVAL,
                      "--trace-window: '%s' is not START:END (cycles, or microseconds with us: 1000:5000, 0.5us:3us)",
                      text);
  if (start >= end)
    return cs_err_set(err, CS_EINVAL, "--trace-window: '%s' starts at cycle %" PRIu64 ", not before its end %" PRIu64,
                      text, start, end);
  o->window_start = start;
  o->window_end = end;
  return CS_OK;
}

/* ---- the file ---------------------------------------------------------------------------- */

void sim_trace_note(sim_trace *t, int rc) {
  if (rc < 0 && !t->write_errno) t->write_errno = errno ? errno : EIO;
}

void sim_trace_note_nomem(sim_trace *t) {
  if (!t->write_errno) t->write_errno = ENOMEM;
}

bool sim_trace_core_kept(const sim_trace *t, unsigned core) {
  return core < SIM_TRACE_MAX_CORES && (t->opt.cores[core / 64] >> (core % 64) & 1u);
}

static void free_trace(sim_trace *t) {
  if (t->w && t->w->release) t->w->release(t);
  cs_out_set_destroy(t->own);
  free(t);
}

size_t sim_trace_buffer_bytes(void) { return TRACE_BUF_BYTES; }

cs_status sim_trace_open_out(cs_out *out, const sim_config *cfg, const sim_trace_options *opt, sim_trace **t_out,
                             cs_err *err) {
  *t_out = NULL;
  sim_trace *t = calloc(1, sizeof *t);
  if (!t) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", cs_out_path(out));
  if (opt) t->opt = *opt;
  else sim_trace_options_init(&t->opt);
  if (t->opt.format == SIM_TRACE_AUTO || (unsigned)t->opt.format >= SIM_TRACE_FORMAT_COUNT)
    t->opt.format = sim_trace_format_of_path(cs_out_path(out));
  t->w = t->opt.format == SIM_TRACE_PERFETTO ? &sim_trace_pf_writer : &sim_trace_json_writer;
  cs_status st = cs_out_stream(out, &t->f, err);
  if (st != CS_OK) {
    free(t);
    return st;
  }
  t->out = out;
  t->clock_mhz = cfg->chip_clock_mhz ? cfg->chip_clock_mhz : 1;
  setvbuf(t->f, NULL, _IOFBF, TRACE_BUF_BYTES);
  if ((st = t->w->header(t, cfg, err)) != CS_OK) {
    free_trace(t);
    return st;
  }
  *t_out = t;
  return CS_OK;
}

cs_status sim_trace_open_with(const char *path, const sim_config *cfg, const sim_trace_options *opt, sim_trace **t_out,
                              cs_err *err) {
  *t_out = NULL;
  cs_out_set *own;
  cs_out *out;
  cs_status st = cs_out_set_create(NULL, &own, err);
  if (st != CS_OK) return st;
  if ((st = cs_out_add(own, "trace", path, &out, err)) == CS_OK &&
      (st = sim_trace_open_out(out, cfg, opt, t_out, err)) == CS_OK)
    (*t_out)->own = own;
  else
    cs_out_set_destroy(own);
  return st;
}

cs_status sim_trace_open(const char *path, const sim_config *cfg, sim_trace **t_out, cs_err *err) {
  return sim_trace_open_with(path, cfg, NULL, t_out, err);
}

sim_trace_format sim_trace_get_format(const sim_trace *t) { return t->opt.format; }

/* ---- events ------------------------------------------------------------------------------ */

static bool is_flag(const isa_insn *in) { return in->op == ISA_OP_SET_FLAG || in->op == ISA_OP_WAIT_FLAG; }

/* A slice [start, busy_end) is kept when it overlaps the window; an instant (start ==
 * busy_end) when it lies in it. */
static bool in_window(const sim_trace *t, uint64_t start, uint64_t busy_end) {
  if (start >= t->opt.window_end) return false;
  return busy_end > t->opt.window_start || (busy_end == start && start >= t->opt.window_start);
}

/* A waiting arrow end whose slice did not follow is written on its own. */
static void flush_flow(sim_trace *t) {
  if (!t->flow_pending) return;
  t->flow_pending = false;
  t->w->flow(t, &t->flow);
}

void sim_trace_set_topology(sim_trace *t, unsigned aic_cores, unsigned aiv_per_aic) {
  t->aic_cores = aic_cores;
  t->aiv_per_aic = aiv_per_aic;
}

void sim_trace_core_name(const sim_trace *t, unsigned core, char *out, size_t out_bytes) {
  if (t->aiv_per_aic && core >= t->aic_cores)
    snprintf(out, out_bytes, "AIV %u.%u", (core - t->aic_cores) / t->aiv_per_aic, (core - t->aic_cores) % t->aiv_per_aic);
  else
    snprintf(out, out_bytes, "core %u", core);
}

bool sim_trace_core_has_pipe(const sim_trace *t, unsigned core, isa_pipe p) {
  if (!t->aiv_per_aic || core < t->aic_cores) return true;
  return p == ISA_PIPE_S || p == ISA_PIPE_MTE2 || p == ISA_PIPE_V || p == ISA_PIPE_MTE3;
}

void sim_trace_begin(sim_trace *t, unsigned cores, uint64_t instructions) {
  flush_flow(t);
  unsigned kept = 0;
  for (unsigned c = 0; c < cores; c++) kept += sim_trace_core_kept(t, c);
  double projected = cores ? (double)instructions * kept / cores * t->w->bytes_per_insn : 0;
  if (t->opt.notice && projected > (double)SIM_TRACE_WARN_BYTES) {
    char msg[512];
    snprintf(msg, sizeof msg,
             "trace %s: projected %.0f MiB (%" PRIu64 " instructions%s at about %u bytes each in %s); "
             "--trace-cores, --trace-window and --trace-flags off make it smaller%s",
             cs_out_path(t->out), projected / (1 << 20), instructions, kept < cores ? ", the kept cores' share" : "",
             t->w->bytes_per_insn, sim_trace_format_name(t->opt.format),
             t->opt.format == SIM_TRACE_JSON ? ", and a .perfetto-trace is about 10 times smaller" : "");
    t->opt.notice(t->opt.notice_ctx, msg);
  }
  t->w->begin(t, cores);
}

void sim_trace_insn(sim_trace *t, const sim_trace_insn_event *e) {
  bool matches = t->flow_pending && t->flow.core == e->core &&
                 sim_trace_track_of(t->flow.pipe) == sim_trace_track_of(e->pipe) && t->flow.time == e->start;
  if (!sim_trace_core_kept(t, e->core) || !in_window(t, e->start, e->busy_end) || (!t->opt.flags && is_flag(e->insn))) {
    if (matches) t->flow_pending = false; /* the arrow goes with its slice */
    return;
  }
  t->w->insn(t, e, matches ? &t->flow : NULL);
  if (matches) t->flow_pending = false;
}

void sim_trace_flow(sim_trace *t, unsigned core, isa_pipe pipe, uint64_t time, uint64_t flow_id,
                    bool is_start) {
  flush_flow(t);
  if (!t->opt.flags || !sim_trace_core_kept(t, core) || !in_window(t, time, time)) return;
  t->flow = (sim_trace_flow_end){is_start, core, pipe, time, flow_id};
  t->flow_pending = true;
}

void sim_trace_counter(sim_trace *t, const char *name, uint64_t time, double value) {
  flush_flow(t);
  if (!in_window(t, time, time)) return;
  t->w->counter(t, name, time, value);
}

cs_status sim_trace_close(sim_trace *t, bool keep, cs_err *err) {
  if (!t) return CS_OK;
  flush_flow(t);
  t->w->finish(t);
  cs_err e;
  if (cs_out_check(t->out, &e) != CS_OK) sim_trace_note(t, -1);
  cs_status st = CS_OK;
  if (t->write_errno)
    st = cs_err_set(err, cs_errno_status(t->write_errno, CS_EIO), "%s %s: write failed: %s; no trace was kept", cs_out_what(t->out),
                    cs_out_path(t->out), strerror(t->write_errno));
  else if (keep && t->own)
    st = cs_out_set_commit(t->own, err);
  free_trace(t); /* an own set not committed removes its temporary file */
  return st;
}
