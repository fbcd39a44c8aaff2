/* trc_summary — computes the run summary once and writes it as a terminal table, JSON or CSV
 * (definitions in trc_summary.h, fields in traces/FORMAT.md). */
#include "traces/trc_summary.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUBESIM_VERSION
#define CUBESIM_VERSION "unknown"
#endif

/* msprof's PipeUtilization names (Ascend profiling, op_summary / PipeUtilization.csv): the cube
 * core's pipes are aic_*, the vector core's aiv_*; cubesim runs V and MTE3 on the cube core
 * (docs/DESIGN.md §4) and reports them under the aiv names a user knows them by. Indexed by pipe:
 * a test checks every pipe has one. */
static const char *const msprof_names[ISA_PIPE_COUNT] = {
    [ISA_PIPE_S] = "aic_scalar", [ISA_PIPE_MTE2] = "aic_mte2", [ISA_PIPE_MTE1] = "aic_mte1",
    [ISA_PIPE_M] = "aic_mac",    [ISA_PIPE_FIX] = "aic_fixpipe", [ISA_PIPE_MTE3] = "aiv_mte3",
    [ISA_PIPE_V] = "aiv_vec",
};

/* The order of msprof's columns (cube pipes, then vector pipes) for the CSV. */
static const isa_pipe csv_pipe_order[ISA_PIPE_COUNT] = {
    ISA_PIPE_M, ISA_PIPE_MTE1, ISA_PIPE_MTE2, ISA_PIPE_FIX, ISA_PIPE_S, ISA_PIPE_V, ISA_PIPE_MTE3,
};

const char *trc_pipe_msprof_name(isa_pipe p) {
  return (unsigned)p < ISA_PIPE_COUNT && msprof_names[p] ? msprof_names[p] : "?";
}

static uint64_t macs_per_cycle(const sim_config *cfg, isa_dtype t) {
  switch (t) {
    case ISA_INT8:
    case ISA_UINT8: return cfg->cube_macs_per_cycle_int8;
    case ISA_INT4:
    case ISA_UINT4: return cfg->cube_macs_per_cycle_int4;
    case ISA_BF16: return cfg->cube_macs_per_cycle_bf16;
    default: return cfg->cube_macs_per_cycle_fp16;
  }
}

double trc_ideal_cube_cycles(const sim_config *cfg, const isa_insn *stream, size_t n) {
  double ideal = 0;
  for (size_t i = 0; i < n; i++) {
    if (stream[i].op != ISA_OP_MMAD) continue;
    const isa_fmt_mmad *m = &stream[i].u.mmad;
    uint64_t rate = macs_per_cycle(cfg, (isa_dtype)m->dtype);
    ideal += (double)m->m * (double)m->n * (double)m->k / (double)(rate ? rate : 1);
  }
  return ideal;
}

static unsigned result_cores(const sim_result *r) { return r->stats.core ? r->stats.cores : 0; }

uint64_t trc_core_pipe_busy(const sim *s, const sim_result *r, unsigned core, isa_pipe p) {
  if (core >= result_cores(r) || (unsigned)p >= ISA_PIPE_COUNT) return 0;
  const sim_core_stats *c = &r->stats.core[core];
  uint64_t busy = c->pipe_busy_cycles[p];
  if (p == ISA_PIPE_S) busy += c->instructions * sim_get_config(s)->scalar_dispatch_cycles;
  return busy;
}

static double safe_div(double a, double b) { return b > 0 ? a / b : 0.0; }

/* msprof's name of pipe p's ratio: "aic_mac_ratio". */
static const char *ratio_name(isa_pipe p, char *buf, size_t n) {
  snprintf(buf, n, "%s_ratio", trc_pipe_msprof_name(p));
  return buf;
}

/* bytes over cycles at clock_mhz, in GB/s (1e9 bytes/s): bytes/cycle x 1e6 cycles/s per MHz. */
static double gb_per_s(uint64_t bytes, uint64_t cycles, uint64_t clock_mhz) {
  return safe_div((double)bytes * (double)clock_mhz, (double)cycles * 1e3);
}

void trc_summary_compute(const sim *s, const sim_result *r, trc_summary *o) {
  const sim_config *cfg = sim_get_config(s);
  const sim_stats *st = &r->stats;
  memset(o, 0, sizeof *o);
  o->cores = result_cores(r);
  o->clock_mhz = cfg->chip_clock_mhz;
  o->total_cycles = r->total_cycles;
  o->time_us = r->time_us;
  o->instructions = st->instructions;
  double capacity = (double)o->cores * (double)o->total_cycles; /* core-cycles of the run */
  for (int p = 0; p < ISA_PIPE_COUNT; p++) {
    uint64_t busy = 0;
    for (unsigned c = 0; c < o->cores; c++) busy += trc_core_pipe_busy(s, r, c, (isa_pipe)p);
    o->pipes[p].busy_cycles = busy;
    o->pipes[p].ratio = safe_div((double)busy, capacity);
  }
  for (int p = 0; p < ISA_PATH_COUNT; p++) {
    o->path_bytes[p] = o->cores ? sim_stats_path_bytes_total(st, (isa_path)p) : 0;
    o->path_gb_per_s[p] = gb_per_s(o->path_bytes[p], o->total_cycles, o->clock_mhz);
  }
  o->gm_read_bytes = st->gm_read_bytes;
  o->gm_write_bytes = st->gm_write_bytes;
  o->l2_hit_bytes = st->l2_hit_bytes;
  o->l2_miss_bytes = st->l2_miss_bytes;
  o->l2_hit_rate = safe_div((double)st->l2_hit_bytes, (double)st->l2_hit_bytes + (double)st->l2_miss_bytes);
  o->hbm_read_bytes = st->hbm_read_bytes;
  o->gm_busy_cycles = st->gm_busy_cycles;
  o->gm_gb_per_s = gb_per_s(st->gm_read_bytes + st->gm_write_bytes, o->total_cycles, o->clock_mhz);
  o->gm_busy_gb_per_s = gb_per_s(st->gm_read_bytes + st->gm_write_bytes, st->gm_busy_cycles, o->clock_mhz);
  o->macs = st->macs;
  /* the streams belong to the simulator; reading them does not change it (sim_get_core takes a
   * mutable handle only because the record phase needs one) */
  sim *ms = (sim *)(uintptr_t)s;
  for (unsigned c = 0; c < sim_core_count(s); c++) {
    const sim_core *core = sim_get_core(ms, c);
    o->ideal_cube_cycles += trc_ideal_cube_cycles(cfg, sim_core_stream(core), sim_core_stream_len(core));
  }
  o->cube_utilization = safe_div(o->ideal_cube_cycles, capacity);
  for (unsigned c = 0; c < o->cores; c++) {
    const sim_core_stats *k = &st->core[c];
    o->stall_cycles += k->stall_cycles;
    for (int op = 0; op < ISA_OP_COUNT; op++) {
      o->ops[op].count += k->op_count[op];
      o->ops[op].busy_cycles += k->op_busy_cycles[op];
      o->ops[op].cycles += k->op_cycles[op];
    }
  }
  o->hazards = r->hazard_count;
  o->deadlocked = r->deadlocked;
}

/* ---- text ------------------------------------------------------------------------------- */

/* 1234567 -> "1,234,567" */
static const char *grouped(uint64_t v, char *buf, size_t n) {
  char raw[24];
  int len = snprintf(raw, sizeof raw, "%" PRIu64, v);
  size_t o = 0;
  for (int i = 0; i < len && o + 1 < n; i++) {
    if (i > 0 && (len - i) % 3 == 0 && o + 2 < n) buf[o++] = ',';
    buf[o++] = raw[i];
  }
  buf[o] = '\0';
  return buf;
}

/* "12,288 B (12.0 KiB)"; plain "512 B" below 1 KiB. */
static const char *bytes_text(uint64_t v, char *buf, size_t n) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  char g[32];
  grouped(v, g, sizeof g);
  if (v < 1024) {
    snprintf(buf, n, "%s B", g);
    return buf;
  }
  double x = (double)v / 1024.0;
  size_t u = 0;
  while (x >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) x /= 1024.0, u++;
  snprintf(buf, n, "%s B (%.1f %s)", g, x, units[u]);
  return buf;
}

static void text_pipes(const trc_summary *m, FILE *f) {
  fprintf(f, "\npipe utilization  busy cycles / (%u core%s x %" PRIu64 " cycles), as msprof PipeUtilization\n",
          m->cores, m->cores == 1 ? "" : "s", m->total_cycles);
  fprintf(f, "  %-7s %-18s %15s %14s %8s\n", "pipe", "msprof", "busy cycles", "us per core", "ratio");
  for (int p = 0; p < ISA_PIPE_COUNT; p++) {
    char g[32], name[40];
    double us_per_core = safe_div((double)m->pipes[p].busy_cycles, (double)m->cores * (double)m->clock_mhz);
    fprintf(f, "  %-7s %-18s %15s %14.3f %7.2f%%\n", isa_pipe_track_name((isa_pipe)p),
            ratio_name((isa_pipe)p, name, sizeof name), grouped(m->pipes[p].busy_cycles, g, sizeof g), us_per_core,
            100.0 * m->pipes[p].ratio);
  }
}

static void text_paths(const trc_summary *m, FILE *f) {
  fprintf(f, "\ndata paths  bandwidth averaged over the run\n");
  bool any = false;
  for (int p = 0; p < ISA_PATH_COUNT; p++) {
    if (p == ISA_PATH_NONE || !m->path_bytes[p]) continue;
    if (!any) fprintf(f, "  %-8s %32s %12s\n", "path", "bytes", "GB/s");
    any = true;
    char b[64];
    fprintf(f, "  %-8s %32s %12.2f\n", isa_path_name((isa_path)p), bytes_text(m->path_bytes[p], b, sizeof b),
            m->path_gb_per_s[p]);
  }
  if (!any) fprintf(f, "  (no data moved)\n");
}

static void text_gm(const trc_summary *m, FILE *f) {
  char b[64], g[32];
  fprintf(f, "\nGM, L2 and HBM\n");
  fprintf(f, "  %-14s %s\n", "read", bytes_text(m->gm_read_bytes, b, sizeof b));
  fprintf(f, "  %-14s %s\n", "written", bytes_text(m->gm_write_bytes, b, sizeof b));
  fprintf(f, "  %-14s %s of %s hit (hit rate %.1f%%)\n", "L2", grouped(m->l2_hit_bytes, g, sizeof g),
          bytes_text(m->l2_hit_bytes + m->l2_miss_bytes, b, sizeof b), 100.0 * m->l2_hit_rate);
  fprintf(f, "  %-14s %s\n", "HBM read", bytes_text(m->hbm_read_bytes, b, sizeof b));
  fprintf(f, "  %-14s %.2f GB/s over the run, %.2f GB/s while busy (%s cycles)\n", "bandwidth",
          m->gm_gb_per_s, m->gm_busy_gb_per_s, grouped(m->gm_busy_cycles, g, sizeof g));
}

#define TEXT_MAX_CORE_ROWS 32
#define TEXT_MAX_HAZARDS 8

static void text_cores(const sim_result *r, const trc_summary *m, FILE *f) {
  fprintf(f, "\ncores\n");
  fprintf(f, "  %5s %15s %13s %15s %17s\n", "core", "finish cycles", "instructions", "stall cycles", "MACs");
  unsigned shown = m->cores <= TEXT_MAX_CORE_ROWS ? m->cores : TEXT_MAX_CORE_ROWS / 2;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (unsigned c = 0; c < m->cores; c++) {
    const sim_core_stats *k = &r->stats.core[c];
    if (k->finish_cycles < lo) lo = k->finish_cycles;
    if (k->finish_cycles > hi) hi = k->finish_cycles;
    if (c >= shown) continue;
    char a[32], b[32], d[32], e[32];
    fprintf(f, "  %5u %15s %13s %15s %17s\n", c, grouped(k->finish_cycles, a, sizeof a),
            grouped(k->instructions, b, sizeof b), grouped(k->stall_cycles, d, sizeof d),
            grouped(k->macs, e, sizeof e));
  }
  if (shown < m->cores) {
    char a[32], b[32];
    fprintf(f, "  ... %u more cores (all of them in --json); finish cycles range %s .. %s\n",
            m->cores - shown, grouped(lo, a, sizeof a), grouped(hi, b, sizeof b));
  }
}

static void text_ops(const trc_summary *m, FILE *f) {
  fprintf(f, "\ninstructions  cycles: start to completion; busy: pipe occupancy\n");
  fprintf(f, "  %-14s %11s %15s %15s\n", "kind", "count", "busy cycles", "cycles");
  bool any = false;
  for (int op = 0; op < ISA_OP_COUNT; op++) {
    const trc_op_summary *o = &m->ops[op];
    if (!o->count) continue;
    any = true;
    char a[32], b[32], d[32];
    fprintf(f, "  %-14s %11s %15s %15s\n", isa_op_info((isa_op)op)->mnemonic, grouped(o->count, a, sizeof a),
            grouped(o->busy_cycles, b, sizeof b), grouped(o->cycles, d, sizeof d));
  }
  if (!any) fprintf(f, "  (none)\n");
}

static void text_problems(const sim_result *r, const trc_summary *m, FILE *f) {
  char g[32];
  fprintf(f, "\n");
  if (!m->hazards) {
    fprintf(f, "  %-14s none\n", "hazards");
  } else {
    unsigned shown = r->hazards_kept < TEXT_MAX_HAZARDS ? r->hazards_kept : TEXT_MAX_HAZARDS;
    fprintf(f, "  %-14s %s (missing set_flag/wait_flag or pipe_barrier)%s\n", "hazards",
            grouped(m->hazards, g, sizeof g), shown < m->hazards ? "; the first ones:" : ":");
    for (unsigned i = 0; i < shown; i++) {
      char line[1024];
      sim_hazard_describe(&r->hazards[i], line, sizeof line);
      fprintf(f, "    - %s\n", line);
    }
    if (shown < m->hazards) fprintf(f, "    ... %s more (the first %u in --json)\n", grouped(m->hazards - shown, g, sizeof g), r->hazards_kept);
  }
  fprintf(f, "  %-14s %s cycles (dispatch waited on a full queue, a barrier or a flag)\n", "stalls",
          grouped(m->stall_cycles, g, sizeof g));
  if (m->deadlocked) fprintf(f, "  %-14s %s\n", "DEADLOCK", r->deadlock_msg);
}

void trc_summary_text(const sim *s, const sim_result *r, FILE *f) {
  const sim_config *cfg = sim_get_config(s);
  trc_summary m;
  trc_summary_compute(s, r, &m);
  char a[32], b[32], c[32];
  fprintf(f, "cubesim summary: %s, %u core%s at %" PRIu64 " MHz\n", cfg->chip_name, m.cores,
          m.cores == 1 ? "" : "s", m.clock_mhz);
  fprintf(f, "  %-14s %s cycles = %.3f us\n", "total", grouped(m.total_cycles, a, sizeof a), m.time_us);
  fprintf(f, "  %-14s %s\n", "instructions", grouped(m.instructions, a, sizeof a));
  fprintf(f, "  %-14s %.2f%%  (%s MACs; ideal %s cycles of %s core-cycles)\n", "cube util", 100.0 * m.cube_utilization,
          grouped(m.macs, a, sizeof a), grouped((uint64_t)(m.ideal_cube_cycles + 0.5), b, sizeof b),
          grouped((uint64_t)m.cores * m.total_cycles, c, sizeof c));
  text_pipes(&m, f);
  text_paths(&m, f);
  text_gm(&m, f);
  if (m.cores) text_cores(r, &m, f);
  if (m.cores) text_ops(&m, f);
  text_problems(r, &m, f);
}

/* ---- JSON ------------------------------------------------------------------------------- */

/* A statistic under its name: {"value" (when given), "unit", "description"}. */
static void json_stat_desc(cs_json *j, const sim_stat_desc *d, const uint64_t *value) {
  cs_json_key(j, d->name);
  cs_json_obj_begin(j);
  if (value) cs_json_member_uint(j, "value", *value);
  cs_json_member_str(j, "unit", d->unit);
  cs_json_member_str(j, "description", d->desc);
  cs_json_obj_end(j);
}

static void json_stats(const sim_result *r, cs_json *j) {
  cs_json_key(j, "stats");
  cs_json_obj_begin(j);
  cs_json_key(j, "chip");
  cs_json_obj_begin(j);
  for (size_t i = 0; i < sim_stats_chip_count(); i++) {
    uint64_t v = sim_stats_chip_value(&r->stats, i);
    json_stat_desc(j, sim_stats_chip_desc(i), &v);
  }
  cs_json_obj_end(j);
  cs_json_key(j, "core"); /* descriptors; the values are in per_core */
  cs_json_obj_begin(j);
  for (size_t i = 0; i < sim_stats_core_count(); i++) json_stat_desc(j, sim_stats_core_desc(i), NULL);
  cs_json_obj_end(j);
  cs_json_obj_end(j);
}

static void json_per_core(const sim *s, const sim_result *r, const trc_summary *m, cs_json *j) {
  cs_json_key(j, "per_core");
  cs_json_arr_begin(j);
  for (unsigned c = 0; c < m->cores; c++) {
    const sim_core_stats *k = &r->stats.core[c];
    cs_json_obj_begin(j);
    cs_json_member_uint(j, "core", c);
    for (size_t i = 0; i < sim_stats_core_count(); i++)
      cs_json_member_uint(j, sim_stats_core_desc(i)->name, sim_stats_core_value(k, i));
    cs_json_key(j, "pipes");
    cs_json_obj_begin(j);
    for (int p = 0; p < ISA_PIPE_COUNT; p++) {
      uint64_t busy = trc_core_pipe_busy(s, r, c, (isa_pipe)p);
      cs_json_key(j, isa_pipe_track_name((isa_pipe)p));
      cs_json_obj_begin(j);
      cs_json_member_uint(j, "busy_cycles", busy);
      cs_json_member_double(j, "ratio", safe_div((double)busy, (double)m->total_cycles));
      cs_json_obj_end(j);
    }
    cs_json_obj_end(j);
    cs_json_obj_end(j);
  }
  cs_json_arr_end(j);
}

static void json_ops(const trc_summary *m, cs_json *j) {
  cs_json_key(j, "ops");
  cs_json_obj_begin(j);
  for (int op = 0; op < ISA_OP_COUNT; op++) {
    cs_json_key(j, isa_op_info((isa_op)op)->mnemonic);
    cs_json_obj_begin(j);
    cs_json_member_uint(j, "count", m->ops[op].count);
    cs_json_member_uint(j, "busy_cycles", m->ops[op].busy_cycles);
    cs_json_member_uint(j, "cycles", m->ops[op].cycles);
    cs_json_obj_end(j);
  }
  cs_json_obj_end(j);
}

static void json_hazards(const sim_result *r, cs_json *j) {
  cs_json_key(j, "hazards");
  cs_json_obj_begin(j);
  cs_json_member_uint(j, "count", r->hazard_count);
  cs_json_key(j, "first");
  cs_json_arr_begin(j);
  for (unsigned i = 0; i < r->hazards_kept; i++) {
    const sim_hazard *h = &r->hazards[i];
    char line[1024];
    sim_hazard_describe(h, line, sizeof line);
    cs_json_obj_begin(j);
    cs_json_member_str(j, "kind", sim_hazard_kind_name(h->kind));
    cs_json_member_uint(j, "core", h->core);
    cs_json_member_uint(j, "earlier", h->earlier);
    cs_json_member_uint(j, "later", h->later);
    cs_json_member_str(j, "earlier_op", isa_op_info((isa_op)h->earlier_op)->mnemonic);
    cs_json_member_str(j, "later_op", isa_op_info((isa_op)h->later_op)->mnemonic);
    cs_json_member_str(j, "mem", isa_mem_name(h->mem));
    cs_json_member_uint(j, "lo", h->lo);
    cs_json_member_uint(j, "hi", h->hi);
    cs_json_member_uint(j, "cycle", h->time);
    cs_json_member_str(j, "message", line);
    cs_json_obj_end(j);
  }
  cs_json_arr_end(j);
  cs_json_obj_end(j);
}

void trc_summary_json_members(const sim *s, const sim_result *r, cs_json *j) {
  const sim_config *cfg = sim_get_config(s);
  trc_summary m;
  trc_summary_compute(s, r, &m);
  cs_json_member_str(j, "generator", "cubesim");
  cs_json_member_str(j, "cubesim_version", CUBESIM_VERSION);
  cs_json_member_str(j, "chip", cfg->chip_name);
  cs_json_member_uint(j, "cores", m.cores);
  cs_json_member_uint(j, "clock_mhz", m.clock_mhz);
  cs_json_member_uint(j, "total_cycles", m.total_cycles);
  cs_json_member_double(j, "time_us", m.time_us);
  cs_json_member_uint(j, "instructions", m.instructions);
  cs_json_member_uint(j, "macs", m.macs);
  cs_json_member_double(j, "ideal_cube_cycles", m.ideal_cube_cycles);
  cs_json_member_double(j, "cube_utilization", m.cube_utilization);
  cs_json_member_uint(j, "stall_cycles", m.stall_cycles);

  cs_json_key(j, "pipes");
  cs_json_obj_begin(j);
  for (int p = 0; p < ISA_PIPE_COUNT; p++) {
    char name[40];
    cs_json_key(j, isa_pipe_track_name((isa_pipe)p));
    cs_json_obj_begin(j);
    cs_json_member_str(j, "pipe", isa_pipe_name((isa_pipe)p));
    cs_json_member_str(j, "msprof", ratio_name((isa_pipe)p, name, sizeof name));
    cs_json_member_uint(j, "busy_cycles", m.pipes[p].busy_cycles);
    cs_json_member_double(j, "ratio", m.pipes[p].ratio);
    cs_json_obj_end(j);
  }
  cs_json_obj_end(j);
  cs_json_key(j, "pipe_utilization"); /* msprof's flat form */
  cs_json_obj_begin(j);
  for (int i = 0; i < ISA_PIPE_COUNT; i++) {
    isa_pipe p = csv_pipe_order[i];
    char name[40];
    cs_json_member_double(j, ratio_name(p, name, sizeof name), m.pipes[p].ratio);
  }
  cs_json_obj_end(j);

  cs_json_key(j, "paths");
  cs_json_obj_begin(j);
  for (int p = 0; p < ISA_PATH_COUNT; p++) {
    if (p == ISA_PATH_NONE) continue;
    cs_json_key(j, isa_path_name((isa_path)p));
    cs_json_obj_begin(j);
    cs_json_member_uint(j, "bytes", m.path_bytes[p]);
    cs_json_member_double(j, "gb_per_s", m.path_gb_per_s[p]);
    cs_json_obj_end(j);
  }
  cs_json_obj_end(j);

  cs_json_key(j, "gm");
  cs_json_obj_begin(j);
  cs_json_member_uint(j, "read_bytes", m.gm_read_bytes);
  cs_json_member_uint(j, "write_bytes", m.gm_write_bytes);
  cs_json_member_uint(j, "hbm_read_bytes", m.hbm_read_bytes);
  cs_json_member_uint(j, "busy_cycles", m.gm_busy_cycles);
  cs_json_member_double(j, "gb_per_s", m.gm_gb_per_s);
  cs_json_member_double(j, "busy_gb_per_s", m.gm_busy_gb_per_s);
  cs_json_obj_end(j);
  cs_json_key(j, "l2");
  cs_json_obj_begin(j);
  cs_json_key(j, "enabled");
  cs_json_bool(j, cfg->l2_enabled);
  cs_json_member_uint(j, "hit_bytes", m.l2_hit_bytes);
  cs_json_member_uint(j, "miss_bytes", m.l2_miss_bytes);
  cs_json_member_double(j, "hit_rate", m.l2_hit_rate);
  cs_json_obj_end(j);

  json_ops(&m, j);
  json_per_core(s, r, &m, j);
  json_hazards(r, j);
  cs_json_key(j, "deadlock");
  if (r->deadlocked) cs_json_str(j, r->deadlock_msg);
  else cs_json_null(j);
  json_stats(r, j);
  cs_json_key(j, "config");
  sim_config_write_json(cfg, j);
  cs_json_key(j, "derived");
  sim_config_write_derived_json(sim_get_derived(s), j);
}

void trc_summary_json(const sim *s, const sim_result *r, cs_json *j) {
  cs_json_obj_begin(j);
  trc_summary_json_members(s, r, j);
  cs_json_obj_end(j);
}

/* ---- CSV -------------------------------------------------------------------------------- */

static void csv_write(const sim *s, const sim_result *r, const trc_summary *m, FILE *f) {
  fputs("core,total_cycles,finish_cycles,finish_us", f);
  for (int i = 0; i < ISA_PIPE_COUNT; i++) fprintf(f, ",%s_ratio", trc_pipe_msprof_name(csv_pipe_order[i]));
  for (int i = 0; i < ISA_PIPE_COUNT; i++) fprintf(f, ",%s_cycles", trc_pipe_msprof_name(csv_pipe_order[i]));
  fputs(",instructions,macs,stall_cycles\n", f);
  for (unsigned c = 0; c < m->cores; c++) {
    const sim_core_stats *k = &r->stats.core[c];
    fprintf(f, "%u,%" PRIu64 ",%" PRIu64 ",%.6f", c, m->total_cycles, k->finish_cycles,
            safe_div((double)k->finish_cycles, (double)m->clock_mhz));
    for (int i = 0; i < ISA_PIPE_COUNT; i++)
      fprintf(f, ",%.6f", safe_div((double)trc_core_pipe_busy(s, r, c, csv_pipe_order[i]), (double)m->total_cycles));
    for (int i = 0; i < ISA_PIPE_COUNT; i++) fprintf(f, ",%" PRIu64, trc_core_pipe_busy(s, r, c, csv_pipe_order[i]));
    fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", k->instructions, k->macs, k->stall_cycles);
  }
}

cs_status trc_summary_csv(const sim *s, const sim_result *r, const char *path, cs_err *err) {
  size_t n = strlen(path);
  char *tmp = malloc(n + 5);
  if (!tmp) return cs_err_set(err, CS_ENOMEM, "summary %s: no host memory", path);
  memcpy(tmp, path, n);
  memcpy(tmp + n, ".tmp", 5);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    int e = errno;
    cs_status st = cs_err_set(err, CS_EIO, "summary %s: cannot create %s: %s", path, tmp, strerror(e));
    free(tmp);
    return st;
  }
  trc_summary m;
  trc_summary_compute(s, r, &m);
  csv_write(s, r, &m, f);
  int e = 0;
  if (fflush(f) != 0 || ferror(f)) e = errno ? errno : EIO;
  if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
  cs_status st = CS_OK;
  if (e) {
    remove(tmp);
    st = cs_err_set(err, CS_EIO, "summary %s: write failed: %s", path, strerror(e));
  } else if (rename(tmp, path) != 0) {
    e = errno;
    remove(tmp);
    st = cs_err_set(err, CS_EIO, "summary %s: cannot rename %s to it: %s", path, tmp, strerror(e));
  }
  free(tmp);
  return st;
}
