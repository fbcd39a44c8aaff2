/* sim_trace_json — the Chrome Trace Event JSON writer of the trace front end (format and
 * rationale: traces/FORMAT.md). Every event is formatted straight into the FILE's buffer as it
 * comes; nothing is allocated per event. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_json.h"
#include "sim/sim_trace_internal.h"

#ifndef CUBESIM_VERSION
#define CUBESIM_VERSION "unknown"
#endif

/* The writer's state: whether the next event needs a separating comma. */
typedef struct json_state {
  bool wrote_event;
} json_state;

static void note(sim_trace *t, int rc) { sim_trace_note(t, rc); }

/* ---- time ------------------------------------------------------------------------------ */

/* A time in microseconds as an exact decimal: whole microseconds and picoseconds. */
typedef struct trace_us {
  uint64_t whole;
  uint64_t ps; /* 0 .. 999999 */
} trace_us;

/* cycles / clock_mhz microseconds, rounded to the picosecond in integer arithmetic (no double
 * rounding): with clock_mhz <= 100000 the error is at most 0.5 ps = 0.05 cycle, so
 * round(ts * clock_mhz) gives the cycle back exactly. */
static trace_us cycles_to_us(uint64_t cycles, uint64_t mhz) {
  trace_us u = {cycles / mhz, 0};
  uint64_t rem = cycles % mhz; /* < mhz <= 100000: rem * 1e6 fits easily */
  u.ps = (rem * 1000000u + mhz / 2) / mhz;
  if (u.ps == 1000000u) {
    u.whole++;
    u.ps = 0;
  }
  return u;
}

/* b - a (b >= a). */
static trace_us us_sub(trace_us b, trace_us a) {
  trace_us d;
  if (b.ps >= a.ps) {
    d.whole = b.whole - a.whole;
    d.ps = b.ps - a.ps;
  } else {
    d.whole = b.whole - a.whole - 1;
    d.ps = b.ps + 1000000u - a.ps;
  }
  return d;
}

static void put_us(sim_trace *t, const char *key, trace_us u) {
  note(t, fprintf(t->f, ",\"%s\":%" PRIu64 ".%06" PRIu64, key, u.whole, u.ps));
}

/* ---- event framing --------------------------------------------------------------------- */

static void event_begin(sim_trace *t) {
  note(t, fputs(((json_state *)t->state)->wrote_event ? ",\n" : "\n", t->f));
  ((json_state *)t->state)->wrote_event = true;
}

static void meta_name(sim_trace *t, const char *what, unsigned pid, unsigned tid, const char *name) {
  event_begin(t);
  note(t, fprintf(t->f, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"%s\",\"args\":{\"name\":", pid,
                  tid, what));
  cs_json_write_string(t->f, name);
  note(t, fputs("}}", t->f));
}

static void meta_sort(sim_trace *t, const char *what, unsigned pid, unsigned tid, unsigned index) {
  event_begin(t);
  note(t, fprintf(t->f,
                  "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"%s\",\"args\":{\"sort_index\":%u}}",
                  pid, tid, what, index));
}

static void write_flow(sim_trace *t, const sim_trace_flow_end *fl) {
  isa_pipe p = sim_trace_track_of(fl->pipe);
  event_begin(t);
  /* the end binds to the enclosing slice ("bp":"e"), the wait_flag, not to the next one */
  note(t, fputs(fl->is_start ? "{\"ph\":\"s\"" : "{\"ph\":\"f\",\"bp\":\"e\"", t->f));
  note(t, fprintf(t->f, ",\"pid\":%u,\"tid\":%u", sim_trace_core_pid(fl->core), sim_trace_pipe_tid(fl->core, p)));
  put_us(t, "ts", cycles_to_us(fl->time, t->clock_mhz));
  note(t, fprintf(t->f, ",\"name\":\"flag\",\"cat\":\"flag\",\"id\":%" PRIu64 "}", fl->id));
}

/* ---- the writer --------------------------------------------------------------------------- */

/* The top of the file: the display unit, the run's metadata (chrome://tracing shows otherData
 * under "Metadata"), then the opening of the event array. Perfetto skips otherData and ignores
 * the rest of the file after any top-level key it does not know, so these three are the only
 * keys. */
static void write_header(sim_trace *t, const sim_config *cfg) {
  sim_config_derived d;
  sim_config_derive(cfg, &d);
  note(t, fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":", t->f));
  cs_json j;
  cs_json_init(&j, t->f, false);
  cs_json_obj_begin(&j);
  cs_json_key(&j, "generator");
  cs_json_str(&j, "cubesim");
  cs_json_key(&j, "cubesim_version");
  cs_json_str(&j, CUBESIM_VERSION);
  cs_json_key(&j, "format");
  cs_json_str(&j, "cubesim trace 1 (traces/FORMAT.md)");
  cs_json_key(&j, "chip");
  cs_json_str(&j, cfg->chip_name);
  cs_json_key(&j, "cores");
  cs_json_uint(&j, cfg->chip_aic_cores);
  cs_json_key(&j, "clock_mhz");
  cs_json_uint(&j, cfg->chip_clock_mhz);
  cs_json_key(&j, "time_unit");
  cs_json_str(&j, "ts and dur are microseconds = cycles / clock_mhz, to the picosecond; "
                  "args carry the exact cycles");
  cs_json_key(&j, "config");
  sim_config_write_json(cfg, &j);
  cs_json_key(&j, "derived");
  sim_config_write_derived_json(&d, &j);
  cs_json_obj_end(&j);
  note(t, fputs(",\"traceEvents\":[", t->f));
}

static void json_begin(sim_trace *t, unsigned cores) {
  meta_name(t, "process_name", SIM_TRACE_CHIP_PID, SIM_TRACE_CHIP_PID, "chip (GM)");
  meta_sort(t, "process_sort_index", SIM_TRACE_CHIP_PID, SIM_TRACE_CHIP_PID, 0);
  for (unsigned c = 0; c < cores; c++) {
    if (!sim_trace_core_kept(t, c)) continue;
    char name[32];
    sim_trace_core_name(t, c, name, sizeof name);
    unsigned pid = sim_trace_core_pid(c);
    meta_name(t, "process_name", pid, pid, name);
    meta_sort(t, "process_sort_index", pid, pid, c + 1);
    for (int p = 0; p < ISA_PIPE_COUNT; p++) {
      if (!sim_trace_core_has_pipe(t, c, (isa_pipe)p)) continue;
      unsigned tid = sim_trace_pipe_tid(c, (isa_pipe)p);
      meta_name(t, "thread_name", pid, tid, isa_pipe_track_name((isa_pipe)p));
      meta_sort(t, "thread_sort_index", pid, tid, (unsigned)p);
    }
  }
}

/* One operand field as an args member: ADDR "L1:0x200", DTYPE/QUANT/PIPE by name, U64 as a
 * hex string (quant words and scalars are read as bit patterns), the vector enumerations
 * (VMASK, ROUND, CMP, SEL, ORDER) by name, U32 and BOOL as numbers. */
static void write_field(sim_trace *t, const isa_insn *in, const isa_field_desc *fd) {
  const void *v = isa_field_cptr(in, fd);
  note(t, fprintf(t->f, ",\"%s\":", fd->name));
  switch (fd->kind) {
    case ISA_FK_ADDR: {
      const isa_addr *a = v;
      note(t, fprintf(t->f, "\"%s:0x%" PRIx64 "\"", isa_mem_name((isa_mem)a->mem), a->off));
      break;
    }
    case ISA_FK_U64: note(t, fprintf(t->f, "\"0x%" PRIx64 "\"", *(const uint64_t *)v)); break;
    case ISA_FK_DTYPE: note(t, fprintf(t->f, "\"%s\"", isa_dtype_name((isa_dtype) * (const uint32_t *)v))); break;
    case ISA_FK_QUANT:
      note(t, fprintf(t->f, "\"%s\"", isa_quant_mode_name((isa_quant_mode) * (const uint32_t *)v)));
      break;
    case ISA_FK_PIPE: note(t, fprintf(t->f, "\"%s\"", isa_pipe_name((isa_pipe) * (const uint32_t *)v))); break;
    case ISA_FK_VMASK:
    case ISA_FK_ROUND:
    case ISA_FK_CMP:
    case ISA_FK_SEL:
    case ISA_FK_ORDER:
      note(t, fprintf(t->f, "\"%s\"", isa_field_enum_name(fd->kind, *(const uint32_t *)v)));
      break;
    case ISA_FK_U32:
    case ISA_FK_BOOL:
    default: note(t, fprintf(t->f, "%" PRIu32, *(const uint32_t *)v)); break;
  }
}

static bool path_is_gm(isa_path p) {
  return p == ISA_PATH_GM_TO_L1 || p == ISA_PATH_GM_TO_UB || p == ISA_PATH_UB_TO_GM ||
         p == ISA_PATH_L0C_TO_GM;
}

static void json_insn(sim_trace *t, const sim_trace_insn_event *e, const sim_trace_flow_end *flow) {
  const isa_op_desc *d = isa_op_info((isa_op)e->insn->op);
  isa_pipe p = sim_trace_track_of(e->pipe);
  /* The slice shows the pipe's occupancy [start, busy_end): instructions of one pipe overlap
   * in their latency tails, and partially overlapping slices on one track are invalid in the
   * Trace Event format (traces/FORMAT.md). end_cycle is in args. */
  trace_us ts = cycles_to_us(e->start, t->clock_mhz);
  trace_us te = cycles_to_us(e->busy_end, t->clock_mhz);
  event_begin(t);
  note(t, fprintf(t->f, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u", sim_trace_core_pid(e->core), sim_trace_pipe_tid(e->core, p)));
  put_us(t, "ts", ts);
  put_us(t, "dur", us_sub(te, ts));
  note(t, fprintf(t->f,
                  ",\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"index\":%" PRIu64
                  ",\"dispatch_cycle\":%" PRIu64 ",\"start_cycle\":%" PRIu64
                  ",\"busy_end_cycle\":%" PRIu64 ",\"end_cycle\":%" PRIu64,
                  d ? d->mnemonic : "?", isa_pipe_track_name(p), e->index, e->dispatch, e->start,
                  e->busy_end, e->end));
  for (size_t i = 0; d && i < d->field_count; i++) write_field(t, e->insn, &d->fields[i]);
  if (e->work) {
    const isa_work *w = e->work;
    note(t, fprintf(t->f, ",\"path\":\"%s\",\"bytes\":%" PRIu64, isa_path_name((isa_path)w->path), w->bytes));
    if (w->path == ISA_PATH_CUBE)
      note(t, fprintf(t->f, ",\"macs\":%" PRIu64 ",\"fractal_ops\":%" PRIu64, w->macs, w->fractal_ops));
    if (w->elements) note(t, fprintf(t->f, ",\"elements\":%" PRIu64, w->elements));
    if (path_is_gm((isa_path)w->path))
      note(t, fprintf(t->f, ",\"l2_hit_bytes\":%" PRIu64 ",\"l2_miss_bytes\":%" PRIu64, e->l2_hit_bytes,
                      e->l2_miss_bytes));
  }
  note(t, fputs("}}", t->f));
  if (flow) write_flow(t, flow); /* the arrow of a set_flag / wait_flag follows its slice */
}

static void json_counter(sim_trace *t, const char *name, uint64_t time, double value) {
  char num[40];
  cs_json_format_double(num, sizeof num, value);
  if (!isfinite(value)) strcpy(num, "0"); /* JSON has no NaN or inf */
  event_begin(t);
  note(t, fprintf(t->f, "{\"ph\":\"C\",\"pid\":%u,\"tid\":%u", SIM_TRACE_CHIP_PID, SIM_TRACE_CHIP_PID));
  put_us(t, "ts", cycles_to_us(time, t->clock_mhz));
  note(t, fputs(",\"name\":", t->f));
  cs_json_write_string(t->f, name);
  note(t, fprintf(t->f, ",\"args\":{\"value\":%s}}", num));
}

static cs_status json_header(sim_trace *t, const sim_config *cfg, cs_err *err) {
  t->state = calloc(1, sizeof(json_state));
  if (!t->state) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", cs_out_path(t->out));
  write_header(t, cfg);
  return CS_OK;
}

static void json_finish(sim_trace *t) { note(t, fputs("\n]}\n", t->f)); }

static void json_release(sim_trace *t) { free(t->state); }

const sim_trace_writer sim_trace_json_writer = {
    380, json_header, json_begin, json_insn, write_flow, json_counter, json_finish, json_release,
};
