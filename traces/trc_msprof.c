/* trc_msprof — msprof's CSV files from a run (trc_msprof.h; the mapping is in traces/FORMAT.md). */
#include "traces/trc_msprof.h"

#include <inttypes.h>
#include <string.h>

#include "traces/trc_summary.h"

static const char *const file_names[TRC_MSPROF_FILE_COUNT] = {
#define TRC_MSPROF_NAME(id, name) name,
    TRC_MSPROF_FILE_TABLE(TRC_MSPROF_NAME)
#undef TRC_MSPROF_NAME
};

const char *trc_msprof_file_name(trc_msprof_file f) {
  return (unsigned)f < TRC_MSPROF_FILE_COUNT ? file_names[f] : "?";
}

static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

/* bytes over cycles at clock_mhz, in GB/s (1e9 bytes/s) */
static double gb_per_s(double bytes, double cycles, uint64_t clock_mhz) {
  return ratio(bytes * (double)clock_mhz, cycles * 1e3);
}

/* The columns every per-block file starts with: block_id, sub_block_id, aic_time(us),
 * aic_total_cycles (msprof op's names; cubesim's block is one cube core). */
static void block_head(FILE *f) { fputs("block_id,sub_block_id,aic_time(us),aic_total_cycles", f); }

static void block_cols(FILE *f, unsigned core, uint64_t span, uint64_t mhz) {
  fprintf(f, "%u,cubecore0,%.6f,%" PRIu64, core, trc_cycles_us((double)span, mhz), span);
}

static void op_basic_info(const trc_summary *m, const char *op, FILE *f) {
  fputs("Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq\n", f);
  fprintf(f, "%s,%s,%.6f,%u,N/A,0,0,%" PRIu64 ",%" PRIu64 "\n", op, op, m->time_us, m->blocks, m->clock_mhz,
          m->clock_mhz);
}

static void op_summary(const trc_summary *m, const char *op, FILE *f) {
  fputs("Op Name,OP Type,Task Type,Task Duration(us),Block Dim,aicore_time(us),aic_total_cycles", f);
  for (int i = 0; i < ISA_PIPE_COUNT; i++) {
    const char *n = trc_pipe_msprof_name(trc_msprof_pipe_at(i));
    fprintf(f, ",%s_time(us),%s_ratio", n, n);
  }
  fprintf(f, "\n%s,%s,AI_CORE,%.6f,%u,%.6f,%.3f", op, op, m->time_us, m->blocks, m->aicore_time_us, m->aicore_cycles);
  for (int i = 0; i < ISA_PIPE_COUNT; i++) {
    const trc_pipe_summary *p = &m->pipes[trc_msprof_pipe_at(i)];
    fprintf(f, ",%.6f,%.6f", trc_cycles_us(p->avg_busy_cycles, m->clock_mhz), p->ratio);
  }
  fputc('\n', f);
}

/* Per block: aicore_time(us) repeats aic_time(us) (op_summary's name for the same quantity) and
 * the cube's time is given under both of msprof's names, aic_mac (op_summary, older msprof op)
 * and aic_cube (newer msprof op). */
static void pipe_utilization(const sim *s, const sim_result *r, const trc_summary *m, FILE *f) {
  block_head(f);
  fputs(",aicore_time(us)", f);
  for (int i = 0; i < ISA_PIPE_COUNT; i++) {
    const char *n = trc_pipe_msprof_name(trc_msprof_pipe_at(i));
    fprintf(f, ",%s_time(us),%s_ratio", n, n);
    if (trc_msprof_pipe_at(i) == ISA_PIPE_M) fputs(",aic_cube_time(us),aic_cube_ratio", f);
  }
  fputc('\n', f);
  for (unsigned c = 0; c < m->cores; c++) {
    if (!r->stats.core[c].instructions) continue;
    uint64_t span = trc_core_span(r, c);
    block_cols(f, c, span, m->clock_mhz);
    fprintf(f, ",%.6f", trc_cycles_us((double)span, m->clock_mhz));
    for (int i = 0; i < ISA_PIPE_COUNT; i++) {
      isa_pipe p = trc_msprof_pipe_at(i);
      double busy = (double)trc_core_pipe_busy(s, r, c, p);
      int reps = p == ISA_PIPE_M ? 2 : 1;
      for (int k = 0; k < reps; k++) fprintf(f, ",%.6f,%.6f", trc_cycles_us(busy, m->clock_mhz), ratio(busy, (double)span));
    }
    fputc('\n', f);
  }
}

/* Instructions of a core that run on pipe p. */
static uint64_t pipe_instructions(const sim_core_stats *k, isa_pipe p) {
  uint64_t n = 0;
  for (int op = 0; op < ISA_OP_COUNT; op++)
    if (isa_op_info((isa_op)op)->pipe == p) n += k->op_count[op];
  return n;
}

static void memory(const sim *s, const sim_result *r, const trc_summary *m, FILE *f) {
  const sim_config *cfg = sim_get_config(s);
  block_head(f);
  fputs(",aic_l1_read_bw(GB/s),aic_l1_write_bw(GB/s),aic_main_mem_read_bw(GB/s),aic_main_mem_write_bw(GB/s)"
        ",aiv_gm_to_ub_bw(GB/s),aiv_ub_to_gm_bw(GB/s)"
        ",aic_mte1_instructions,aic_mte1_ratio,aic_mte2_instructions,aic_mte2_ratio,aiv_mte3_instructions,aiv_mte3_ratio"
        ",read_main_memory_datas(KB),write_main_memory_datas(KB),GM_to_L1_datas(KB),L0C_to_L1_datas(KB)"
        ",L0C_to_GM_datas(KB),GM_to_UB_datas(KB),UB_to_GM_datas(KB)"
        ",GM_to_L1_bw_usage_rate(%),GM_to_UB_bw_usage_rate(%),UB_to_GM_bw_usage_rate(%)\n",
        f);
  for (unsigned c = 0; c < m->cores; c++) {
    const sim_core_stats *k = &r->stats.core[c];
    if (!k->instructions) continue;
    const uint64_t *b = k->path_bytes;
    double span = (double)trc_core_span(r, c);
    double l1_read = (double)(b[ISA_PATH_L1_TO_L0A] + b[ISA_PATH_L1_TO_L0B] + b[ISA_PATH_L1_TO_BT] + b[ISA_PATH_L1_TO_FB]);
    double l1_write = (double)(b[ISA_PATH_GM_TO_L1] + b[ISA_PATH_L0C_TO_L1]);
    double mm_read = (double)(b[ISA_PATH_GM_TO_L1] + b[ISA_PATH_GM_TO_UB]);
    double mm_write = (double)(b[ISA_PATH_L0C_TO_GM] + b[ISA_PATH_UB_TO_GM]);
    block_cols(f, c, (uint64_t)span, m->clock_mhz);
    fprintf(f, ",%.6f,%.6f,%.6f,%.6f,%.6f,%.6f", gb_per_s(l1_read, span, m->clock_mhz),
            gb_per_s(l1_write, span, m->clock_mhz), gb_per_s(mm_read, span, m->clock_mhz),
            gb_per_s(mm_write, span, m->clock_mhz), gb_per_s((double)b[ISA_PATH_GM_TO_UB], span, m->clock_mhz),
            gb_per_s((double)b[ISA_PATH_UB_TO_GM], span, m->clock_mhz));
    static const isa_pipe movers[3] = {ISA_PIPE_MTE1, ISA_PIPE_MTE2, ISA_PIPE_MTE3};
    for (int i = 0; i < 3; i++)
      fprintf(f, ",%" PRIu64 ",%.6f", pipe_instructions(k, movers[i]),
              ratio((double)trc_core_pipe_busy(s, r, c, movers[i]), span));
    fprintf(f, ",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f", mm_read / 1024, mm_write / 1024, (double)b[ISA_PATH_GM_TO_L1] / 1024,
            (double)b[ISA_PATH_L0C_TO_L1] / 1024, (double)b[ISA_PATH_L0C_TO_GM] / 1024,
            (double)b[ISA_PATH_GM_TO_UB] / 1024, (double)b[ISA_PATH_UB_TO_GM] / 1024);
    /* the path's mean bytes per cycle of the block against the core's own limit, at most 100 */
    const struct {
      isa_path p;
      uint64_t peak;
    } usage[3] = {{ISA_PATH_GM_TO_L1, cfg->mte2_gm_bytes_per_cycle},
                  {ISA_PATH_GM_TO_UB, cfg->mte2_gm_bytes_per_cycle},
                  {ISA_PATH_UB_TO_GM, cfg->mte3_gm_bytes_per_cycle}};
    for (int i = 0; i < 3; i++) {
      double pct = 100.0 * ratio((double)b[usage[i].p], span * (double)usage[i].peak);
      fprintf(f, ",%.3f", pct > 100.0 ? 100.0 : pct);
    }
    fputc('\n', f);
  }
}

static void memory_l0(const sim_result *r, const trc_summary *m, FILE *f) {
  block_head(f);
  fputs(",aic_l0a_read_bw(GB/s),aic_l0a_write_bw(GB/s),aic_l0b_read_bw(GB/s),aic_l0b_write_bw(GB/s)"
        ",aic_l0c_read_bw_cube(GB/s),aic_l0c_write_bw_cube(GB/s)\n",
        f);
  for (unsigned c = 0; c < m->cores; c++) {
    const sim_core_stats *k = &r->stats.core[c];
    if (!k->instructions) continue;
    const uint64_t *l0 = k->cube_l0_bytes; /* the cube's own accesses (sim_mmad_l0_bytes) */
    double span = (double)trc_core_span(r, c);
    uint64_t mhz = m->clock_mhz;
    block_cols(f, c, (uint64_t)span, mhz);
    fprintf(f, ",%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", gb_per_s((double)l0[SIM_L0A_READ], span, mhz),
            gb_per_s((double)k->path_bytes[ISA_PATH_L1_TO_L0A], span, mhz), gb_per_s((double)l0[SIM_L0B_READ], span, mhz),
            gb_per_s((double)k->path_bytes[ISA_PATH_L1_TO_L0B], span, mhz), gb_per_s((double)l0[SIM_L0C_READ], span, mhz),
            gb_per_s((double)l0[SIM_L0C_WRITE], span, mhz));
  }
}

void trc_msprof_write(trc_msprof_file file, const sim *s, const sim_result *r, const char *op_name, FILE *f) {
  trc_summary m;
  trc_summary_compute(s, r, &m);
  switch (file) {
    case TRC_MSPROF_op_basic_info: op_basic_info(&m, op_name, f); break;
    case TRC_MSPROF_op_summary: op_summary(&m, op_name, f); break;
    case TRC_MSPROF_pipe_utilization: pipe_utilization(s, r, &m, f); break;
    case TRC_MSPROF_memory: memory(s, r, &m, f); break;
    case TRC_MSPROF_memory_l0: memory_l0(r, &m, f); break;
    default: break;
  }
}

cs_status trc_msprof_add(cs_out_set *set, const char *dir, trc_msprof_outs *o, cs_err *err) {
  memset(o, 0, sizeof *o);
  for (int i = 0; i < TRC_MSPROF_FILE_COUNT; i++) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file_names[i]) >= sizeof path)
      return cs_err_set(err, CS_EINVAL, "--msprof-dir %s: the path is too long", dir);
    cs_status st = cs_out_add(set, "--msprof-dir", path, &o->out[i], err);
    if (st != CS_OK) return st;
  }
  return CS_OK;
}

cs_status trc_msprof_fill(const trc_msprof_outs *o, const sim *s, const sim_result *r, const char *op_name,
                          cs_err *err) {
  for (int i = 0; i < TRC_MSPROF_FILE_COUNT; i++) {
    FILE *f;
    cs_status st = cs_out_stream(o->out[i], &f, err);
    if (st != CS_OK) return st;
    trc_msprof_write((trc_msprof_file)i, s, r, op_name, f);
  }
  return CS_OK;
}
