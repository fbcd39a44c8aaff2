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

/* The order of msprof's columns (op_summary: cube pipes, then vector pipes). */
static const isa_pipe msprof_order[ISA_PIPE_COUNT] = {
    ISA_PIPE_M, ISA_PIPE_S, ISA_PIPE_MTE1, ISA_PIPE_MTE2, ISA_PIPE_FIX, ISA_PIPE_V, ISA_PIPE_MTE3,
};

const char *trc_pipe_msprof_name(isa_pipe p) {
  return (unsigned)p < ISA_PIPE_COUNT && msprof_names[p] ? msprof_names[p] : "?";
}

/* msprof's names of an AIV's pipes (an AIV-only kernel's op_summary): the vector core's scalar
 * unit and GM -> UB engine are aiv_scalar and aiv_mte2; it has no cube, MTE1 or fixpipe (NULL). */
static const char *const msprof_aiv_names[ISA_PIPE_COUNT] = {
    [ISA_PIPE_S] = "aiv_scalar", [ISA_PIPE_MTE2] = "aiv_mte2", [ISA_PIPE_MTE3] = "aiv_mte3", [ISA_PIPE_V] = "aiv_vec",
};

const char *trc_pipe_msprof_aiv_name(isa_pipe p) {
  return (unsigned)p < ISA_PIPE_COUNT ? msprof_aiv_names[p] : NULL;
}

isa_pipe trc_msprof_pipe_at(int i) { return i >= 0 && i < ISA_PIPE_COUNT ? msprof_order[i] : ISA_PIPE_ALL; }

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

/* The cycles of a core's mmads at the cube's peak: their MACs of each operand type over its rate. */
static double ideal_of(const sim_config *cfg, const uint64_t macs[ISA_DTYPE_COUNT]) {
  double ideal = 0;
  for (int t = 0; t < ISA_DTYPE_COUNT; t++) {
    uint64_t rate = macs_per_cycle(cfg, (isa_dtype)t);
    if (macs[t]) ideal += (double)macs[t] / (double)(rate ? rate : 1);
  }
  return ideal;
}

double trc_ideal_cube_cycles(const sim_config *cfg, const isa_insn *stream, size_t n) {
  uint64_t macs[ISA_DTYPE_COUNT] = {0};
  for (size_t i = 0; i < n; i++) {
    if (stream[i].op != ISA_OP_MMAD) continue;
    const isa_fmt_mmad *m = &stream[i].u.mmad;
    macs[m->dtype < ISA_DTYPE_COUNT ? m->dtype : 0] += (uint64_t)m->m * m->n * m->k;
  }
  return ideal_of(cfg, macs);
}

static unsigned result_cores(const sim_result *r) { return r->stats.core ? r->stats.cores : 0; }

uint64_t trc_core_pipe_busy(const sim *s, const sim_result *r, unsigned core, isa_pipe p) {
  if (core >= result_cores(r) || (unsigned)p >= ISA_PIPE_COUNT) return 0;
  const sim_core_stats *c = &r->stats.core[core];
  (void)s;
  return c->pipe_busy_cycles[p]; /* the scalar unit's too: the engine counts its dispatch and work */
}

static double safe_div(double a, double b) { return b > 0 ? a / b : 0.0; }

uint64_t trc_core_span(const sim_result *r, unsigned core) {
  if (core >= result_cores(r)) return 0;
  const sim_core_stats *c = &r->stats.core[core];
  return c->instructions && c->finish_cycles > c->start_cycles ? c->finish_cycles - c->start_cycles : 0;
}

double trc_cycles_us(double cycles, uint64_t clock_mhz) { return safe_div(cycles, (double)clock_mhz); }

static void spread_add(trc_spread *s, uint64_t v, bool first) {
  if (first || v < s->min) s->min = v;
  if (first || v > s->max) s->max = v;
  s->mean += (double)v; /* divided by the count at the end */
}

/* msprof's name of pipe p's ratio: "aic_mac_ratio". */
static const char *ratio_name(isa_pipe p, char *buf, size_t n) {
  snprintf(buf, n, "%s_ratio", trc_pipe_msprof_name(p));
  return buf;
}

/* bytes over cycles at clock_mhz, in GB/s (1e9 bytes/s): bytes/cycle x 1e6 cycles/s per MHz. */
static double gb_per_s(uint64_t bytes, uint64_t cycles, uint64_t clock_mhz) {
  return safe_div((double)bytes * (double)clock_mhz, (double)cycles * 1e3);
}

/* The per-core figures: blocks, the critical core, spans and the spreads over the blocks. */
static void compute_cores(const sim_result *r, trc_summary *o) {
  for (unsigned c = 0; c < o->cores; c++) {
    const sim_core_stats *k = &r->stats.core[c];
    if (!k->instructions) continue;
    if (c >= r->stats.cores - o->aiv_cores) o->aiv_blocks++;
    bool first = o->blocks++ == 0;
    if (first || k->finish_cycles > r->stats.core[o->critical_core].finish_cycles) o->critical_core = c;
    spread_add(&o->start_cycles, k->start_cycles, first);
    spread_add(&o->finish_cycles, k->finish_cycles, first);
    spread_add(&o->span_cycles, trc_core_span(r, c), first);
  }
  double n = o->blocks;
  o->start_cycles.mean = safe_div(o->start_cycles.mean, n);
  o->finish_cycles.mean = safe_div(o->finish_cycles.mean, n);
  o->span_cycles.mean = safe_div(o->span_cycles.mean, n);
  o->aicore_cycles = o->span_cycles.mean;
  o->aicore_time_us = trc_cycles_us(o->aicore_cycles, o->clock_mhz);
}

static void compute_pipes(const sim *s, const sim_result *r, trc_summary *o) {
  uint64_t critical_span = o->blocks ? trc_core_span(r, o->critical_core) : 0;
  for (int p = 0; p < ISA_PIPE_COUNT; p++) {
    trc_pipe_summary *ps = &o->pipes[p];
    bool first = true;
    for (unsigned c = 0; c < o->cores; c++) {
      uint64_t busy = trc_core_pipe_busy(s, r, c, (isa_pipe)p);
      ps->busy_cycles += busy;
      if (!r->stats.core[c].instructions) continue;
      if (first || busy < ps->min_busy_cycles) ps->min_busy_cycles = busy;
      if (first || busy > ps->max_busy_cycles) ps->max_busy_cycles = busy;
      first = false;
    }
    ps->avg_busy_cycles = safe_div((double)ps->busy_cycles, (double)o->blocks);
    ps->ratio = safe_div(ps->avg_busy_cycles, o->aicore_cycles);
    ps->critical_busy_cycles = o->blocks ? trc_core_pipe_busy(s, r, o->critical_core, (isa_pipe)p) : 0;
    ps->critical_ratio = safe_div((double)ps->critical_busy_cycles, (double)critical_span);
  }
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
  o->aiv_cores = o->cores ? sim_core_count(s) - sim_aic_count(s) : 0; /* the AIVs, once made, are the last cores */
  if (o->aiv_cores > o->cores) o->aiv_cores = o->cores;
  compute_cores(r, o);
  compute_pipes(s, r, o);
  double capacity = (double)o->cores * (double)o->total_cycles; /* core-cycles of the run */
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
  o->hbm_write_bytes = st->hbm_write_bytes;
  o->l2_dirty_bytes = st->l2_dirty_bytes;
  o->gm_busy_cycles = st->gm_busy_cycles;
  o->gm_gb_per_s = gb_per_s(st->gm_read_bytes + st->gm_write_bytes, o->total_cycles, o->clock_mhz);
  o->gm_busy_gb_per_s = gb_per_s(st->gm_read_bytes + st->gm_write_bytes, st->gm_busy_cycles, o->clock_mhz);
  o->macs = st->macs;
  for (unsigned c = 0; c < result_cores(r); c++) o->ideal_cube_cycles += ideal_of(cfg, st->core[c].mmad_macs);
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
  bool aiv_only = m->blocks && m->aiv_blocks == m->blocks; /* an AIV-only kernel: msprof's aiv_* names */
  fprintf(f, "\npipes  msprof's figures: time = busy us averaged over the %u block%s, ratio = time / aicore;\n"
             "       the critical core %u's own, and the least and most busy block's%s\n",
          m->blocks, m->blocks == 1 ? "" : "s", m->critical_core, aiv_only ? " (AIV blocks: no cube pipes)" : "");
  fprintf(f, "  %-7s %-12s %11s %8s %11s %8s %10s %10s\n", "pipe", "msprof", "time us", "ratio", "critical us",
          "ratio", "min us", "max us");
  for (int i = 0; i < ISA_PIPE_COUNT; i++) {
    isa_pipe p = trc_msprof_pipe_at(i);
    const trc_pipe_summary *ps = &m->pipes[p];
    const char *name = aiv_only ? trc_pipe_msprof_aiv_name(p) : trc_pipe_msprof_name(p);
    if (!name) continue; /* a cube pipe of an AIV-only run */
    fprintf(f, "  %-7s %-12s %11.3f %7.2f%% %11.3f %7.2f%% %10.3f %10.3f\n", isa_pipe_track_name(p), name, trc_cycles_us(ps->avg_busy_cycles, m->clock_mhz), 100.0 * ps->ratio,
            trc_cycles_us((double)ps->critical_busy_cycles, m->clock_mhz), 100.0 * ps->critical_ratio,
            trc_cycles_us((double)ps->min_busy_cycles, m->clock_mhz),
            trc_cycles_us((double)ps->max_busy_cycles, m->clock_mhz));
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
  fprintf(f, "  %-14s %s\n", "HBM written", bytes_text(m->hbm_write_bytes, b, sizeof b));
  fprintf(f, "  %-14s %s (written back after the run)\n", "L2 dirty", bytes_text(m->l2_dirty_bytes, b, sizeof b));
  fprintf(f, "  %-14s %.2f GB/s over the run, %.2f GB/s while busy (%s cycles)\n", "bandwidth",
          m->gm_gb_per_s, m->gm_busy_gb_per_s, grouped(m->gm_busy_cycles, g, sizeof g));
}

#define TEXT_MAX_CORE_ROWS 32
#define TEXT_MAX_HAZARDS 8

static void text_cores(const sim_result *r, const trc_summary *m, FILE *f) {
  fprintf(f, "\ncores  span: launch to the last completion\n");
  fprintf(f, "  %5s %13s %15s %15s %13s %15s %17s\n", "core", "start cycles", "finish cycles", "span cycles",
          "instructions", "stall cycles", "MACs");
  unsigned limit = m->blocks <= TEXT_MAX_CORE_ROWS ? m->blocks : TEXT_MAX_CORE_ROWS / 2, shown = 0;
  for (unsigned c = 0; c < m->cores && shown < limit; c++) {
    const sim_core_stats *k = &r->stats.core[c];
    if (!k->instructions) continue;
    shown++;
    char a[32], b[32], d[32], e[32], g[32], h[32];
    fprintf(f, "  %5u %13s %15s %15s %13s %15s %17s%s\n", c, grouped(k->start_cycles, a, sizeof a),
            grouped(k->finish_cycles, b, sizeof b), grouped(trc_core_span(r, c), d, sizeof d),
            grouped(k->instructions, e, sizeof e), grouped(k->stall_cycles, g, sizeof g), grouped(k->macs, h, sizeof h),
            c == m->critical_core ? "  critical" : "");
  }
  if (shown < m->blocks) fprintf(f, "  ... %u more blocks (all of them in --json)\n", m->blocks - shown);
  if (m->blocks < m->cores)
    fprintf(f, "  %u core%s ran nothing\n", m->cores - m->blocks, m->cores - m->blocks == 1 ? "" : "s");
  if (m->blocks) {
    char a[32], b[32], d[32], e[32];
    fprintf(f, "  %-14s span %s .. %s cycles (mean %.1f), finish %s .. %s cycles, over %u block%s\n", "spread",
            grouped(m->span_cycles.min, a, sizeof a), grouped(m->span_cycles.max, b, sizeof b), m->span_cycles.mean,
            grouped(m->finish_cycles.min, d, sizeof d), grouped(m->finish_cycles.max, e, sizeof e), m->blocks,
            m->blocks == 1 ? "" : "s");
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
  fprintf(f, "  %-14s %s cycles = %.3f us (task)\n", "total", grouped(m.total_cycles, a, sizeof a), m.time_us);
  fprintf(f, "  %-14s %.1f cycles = %.3f us (mean span of %u block%s)\n", "aicore", m.aicore_cycles,
          m.aicore_time_us, m.blocks, m.blocks == 1 ? "" : "s");
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
    uint64_t span = trc_core_span(r, c);
    cs_json_obj_begin(j);
    cs_json_member_uint(j, "core", c);
    for (size_t i = 0; i < sim_stats_core_count(); i++)
      cs_json_member_uint(j, sim_stats_core_desc(i)->name, sim_stats_core_value(k, i));
    cs_json_member_uint(j, "span_cycles", span);
    cs_json_key(j, "pipes");
    cs_json_obj_begin(j);
    for (int p = 0; p < ISA_PIPE_COUNT; p++) {
      uint64_t busy = trc_core_pipe_busy(s, r, c, (isa_pipe)p);
      cs_json_key(j, isa_pipe_track_name((isa_pipe)p));
      cs_json_obj_begin(j);
      cs_json_member_uint(j, "busy_cycles", busy);
      cs_json_member_double(j, "ratio", safe_div((double)busy, (double)span));
      cs_json_obj_end(j);
    }
    cs_json_obj_end(j);
    cs_json_obj_end(j);
  }
  cs_json_arr_end(j);
}

static void json_spread(cs_json *j, const char *key, const trc_spread *sp) {
  cs_json_key(j, key);
  cs_json_obj_begin(j);
  cs_json_member_uint(j, "min", sp->min);
  cs_json_member_uint(j, "max", sp->max);
  cs_json_member_double(j, "mean", sp->mean);
  cs_json_obj_end(j);
}

static void json_pipes(const trc_summary *m, cs_json *j) {
  cs_json_key(j, "pipes");
  cs_json_obj_begin(j);
  for (int p = 0; p < ISA_PIPE_COUNT; p++) {
    const trc_pipe_summary *ps = &m->pipes[p];
    char name[40];
    cs_json_key(j, isa_pipe_track_name((isa_pipe)p));
    cs_json_obj_begin(j);
    cs_json_member_str(j, "pipe", isa_pipe_name((isa_pipe)p));
    cs_json_member_str(j, "msprof", ratio_name((isa_pipe)p, name, sizeof name));
    cs_json_member_uint(j, "busy_cycles", ps->busy_cycles);
    cs_json_member_double(j, "avg_busy_cycles", ps->avg_busy_cycles);
    cs_json_member_double(j, "avg_time_us", trc_cycles_us(ps->avg_busy_cycles, m->clock_mhz));
    cs_json_member_double(j, "ratio", ps->ratio);
    cs_json_member_uint(j, "critical_busy_cycles", ps->critical_busy_cycles);
    cs_json_member_double(j, "critical_time_us", trc_cycles_us((double)ps->critical_busy_cycles, m->clock_mhz));
    cs_json_member_double(j, "critical_ratio", ps->critical_ratio);
    cs_json_member_uint(j, "min_busy_cycles", ps->min_busy_cycles);
    cs_json_member_uint(j, "max_busy_cycles", ps->max_busy_cycles);
    cs_json_obj_end(j);
  }
  cs_json_obj_end(j);
  /* msprof's op_summary columns, its names and units */
  cs_json_key(j, "pipe_utilization");
  cs_json_obj_begin(j);
  cs_json_member_double(j, "Task Duration(us)", m->time_us);
  cs_json_member_uint(j, "Block Dim", m->blocks);
  cs_json_member_double(j, "aicore_time(us)", m->aicore_time_us);
  cs_json_member_double(j, "aic_total_cycles", m->aicore_cycles);
  for (int i = 0; i < ISA_PIPE_COUNT; i++) {
    isa_pipe p = trc_msprof_pipe_at(i);
    char name[48];
    snprintf(name, sizeof name, "%s_time(us)", trc_pipe_msprof_name(p));
    cs_json_member_double(j, name, trc_cycles_us(m->pipes[p].avg_busy_cycles, m->clock_mhz));
    cs_json_member_double(j, ratio_name(p, name, sizeof name), m->pipes[p].ratio);
  }
  cs_json_obj_end(j);
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
  cs_json_member_uint(j, "blocks", m.blocks);
  cs_json_member_double(j, "aicore_cycles", m.aicore_cycles);
  cs_json_member_double(j, "aicore_time_us", m.aicore_time_us);
  cs_json_member_uint(j, "critical_core", m.critical_core);
  cs_json_key(j, "spread");
  cs_json_obj_begin(j);
  json_spread(j, "start_cycles", &m.start_cycles);
  json_spread(j, "finish_cycles", &m.finish_cycles);
  json_spread(j, "span_cycles", &m.span_cycles);
  cs_json_obj_end(j);
  cs_json_member_uint(j, "instructions", m.instructions);
  cs_json_member_uint(j, "macs", m.macs);
  cs_json_member_double(j, "ideal_cube_cycles", m.ideal_cube_cycles);
  cs_json_member_double(j, "cube_utilization", m.cube_utilization);
  cs_json_member_uint(j, "stall_cycles", m.stall_cycles);
  json_pipes(&m, j);

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
  cs_json_member_uint(j, "hbm_write_bytes", m.hbm_write_bytes);
  cs_json_member_uint(j, "l2_dirty_bytes", m.l2_dirty_bytes);
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
  fputs("core,critical,start_cycles,finish_cycles,span_cycles,span_us,total_cycles", f);
  for (int i = 0; i < ISA_PIPE_COUNT; i++) fprintf(f, ",%s_cycles", trc_pipe_msprof_name(trc_msprof_pipe_at(i)));
  for (int i = 0; i < ISA_PIPE_COUNT; i++) fprintf(f, ",%s_ratio", trc_pipe_msprof_name(trc_msprof_pipe_at(i)));
  fputs(",instructions,macs,stall_cycles\n", f);
  double sums[3] = {0, 0, 0}; /* instructions, macs, stall cycles of the blocks */
  for (unsigned c = 0; c < m->cores; c++) {
    const sim_core_stats *k = &r->stats.core[c];
    uint64_t span = trc_core_span(r, c);
    fprintf(f, "%u,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%" PRIu64, c, m->blocks && c == m->critical_core,
            k->start_cycles, k->finish_cycles, span, trc_cycles_us((double)span, m->clock_mhz), m->total_cycles);
    for (int i = 0; i < ISA_PIPE_COUNT; i++) fprintf(f, ",%" PRIu64, trc_core_pipe_busy(s, r, c, trc_msprof_pipe_at(i)));
    for (int i = 0; i < ISA_PIPE_COUNT; i++)
      fprintf(f, ",%.6f", safe_div((double)trc_core_pipe_busy(s, r, c, trc_msprof_pipe_at(i)), (double)span));
    fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", k->instructions, k->macs, k->stall_cycles);
    if (!k->instructions) continue;
    sums[0] += (double)k->instructions;
    sums[1] += (double)k->macs;
    sums[2] += (double)k->stall_cycles;
  }
  /* the means over the blocks; the ratios are msprof's (mean busy / mean span) */
  fprintf(f, "avg,,%.3f,%.3f,%.3f,%.6f,%" PRIu64, m->start_cycles.mean, m->finish_cycles.mean, m->aicore_cycles,
          m->aicore_time_us, m->total_cycles);
  for (int i = 0; i < ISA_PIPE_COUNT; i++) fprintf(f, ",%.3f", m->pipes[trc_msprof_pipe_at(i)].avg_busy_cycles);
  for (int i = 0; i < ISA_PIPE_COUNT; i++) fprintf(f, ",%.6f", m->pipes[trc_msprof_pipe_at(i)].ratio);
  fprintf(f, ",%.3f,%.3f,%.3f\n", safe_div(sums[0], m->blocks), safe_div(sums[1], m->blocks), safe_div(sums[2], m->blocks));
}

void trc_summary_csv(const sim *s, const sim_result *r, FILE *f) {
  trc_summary m;
  trc_summary_compute(s, r, &m);
  csv_write(s, r, &m, f);
}
