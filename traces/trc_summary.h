/* trc_summary — the run summary (docs/DESIGN.md §7): task and aicore time, per-pipe busy time as
 * msprof reports it (averaged over cores) next to the critical core's and the spread over cores,
 * bytes and bandwidth per data path, GM/L2/HBM traffic, cube utilization against the roofline,
 * per-instruction-kind counts, hazards and stalls. One computation, three writers: a table for
 * the terminal, JSON and CSV for scripts. traces/FORMAT.md describes every field.
 *
 * Definitions (msprof's where msprof has the quantity):
 *   blocks               the cores that ran at least one instruction (msprof's Block Dim)
 *   span of a core       finish_cycles - start_cycles: launch to its last completion
 *   aicore cycles        mean span over the blocks (msprof's aicore_time)
 *   total cycles         the task time of the result (sim_result.total_cycles: what the timing
 *                        model says the task took, launch included where it models one)
 *   critical core        the block that finished last (the lowest index on a tie)
 *   avg busy of a pipe   busy cycles of the pipe on all blocks / blocks (msprof's aic_*_time)
 *   ratio of a pipe      avg busy / aicore cycles (msprof's aic_*_ratio); a core's own ratio is
 *                        its busy cycles / its span
 *   SCALAR busy          the engine's: the kernel's entry, scalar.dispatch_cycles for every
 *                        instruction issued and the cycles of scalar work instructions
 *   path bandwidth       bytes moved on the path / the run's time (GB/s, 1e9 bytes)
 *   ideal cube cycles    sum over every mmad of every core's stream of m*n*k divided by
 *                        cube.macs_per_cycle_<input type> (fractional, no padding)
 *   cube utilization     ideal cube cycles / (cores x total cycles)
 *   L2 hit rate          l2 hit bytes / (hit + miss bytes); 0 without GM traffic
 */
#ifndef TRC_SUMMARY_H
#define TRC_SUMMARY_H

#include <stdio.h>

#include "base/cs_json.h"
#include "base/cs_status.h"
#include "isa/isa_insn.h"
#include "sim/sim.h"

typedef struct trc_pipe_summary {
  uint64_t busy_cycles;          /* all cores */
  double avg_busy_cycles;        /* busy_cycles / blocks: msprof's aic_*_time, in cycles */
  double ratio;                  /* avg_busy_cycles / aicore_cycles; 0 when nothing ran */
  uint64_t critical_busy_cycles; /* the critical core's busy cycles */
  double critical_ratio;         /* critical_busy_cycles / the critical core's span */
  uint64_t min_busy_cycles;      /* the least busy block's */
  uint64_t max_busy_cycles;      /* the busiest block's */
} trc_pipe_summary;

/* A per-core quantity over the blocks. */
typedef struct trc_spread {
  uint64_t min, max;
  double mean;
} trc_spread;

typedef struct trc_op_summary {
  uint64_t count;       /* instructions of the kind, all cores */
  uint64_t busy_cycles; /* pipe occupancy */
  uint64_t cycles;      /* start to completion */
} trc_op_summary;

typedef struct trc_summary {
  unsigned cores;
  uint64_t clock_mhz;
  uint64_t total_cycles;                 /* task time */
  double time_us;
  unsigned blocks;                       /* cores with at least one instruction */
  unsigned aiv_cores, aiv_blocks;        /* of them AIVs (the last aiv_cores of the cores) */
  unsigned critical_core;                /* the block that finished last */
  double aicore_cycles;                  /* mean span of the blocks (msprof's aicore_time) */
  double aicore_time_us;
  trc_spread start_cycles, finish_cycles, span_cycles; /* over the blocks */
  uint64_t instructions;
  trc_pipe_summary pipes[ISA_PIPE_COUNT];
  uint64_t path_bytes[ISA_PATH_COUNT];
  double path_gb_per_s[ISA_PATH_COUNT];  /* averaged over the run */
  uint64_t gm_read_bytes, gm_write_bytes;
  uint64_t l2_hit_bytes, l2_miss_bytes;
  double l2_hit_rate;                    /* 0..1 */
  uint64_t hbm_read_bytes, hbm_write_bytes; /* line fills; dirty lines written back */
  uint64_t l2_dirty_bytes;               /* dirty in the L2 at the end, not written back */
  uint64_t gm_busy_cycles;               /* cycles with a GM transfer streaming */
  double gm_gb_per_s;                    /* (read + write) over the run */
  double gm_busy_gb_per_s;               /* (read + write) over gm_busy_cycles */
  uint64_t macs;
  double ideal_cube_cycles;
  double cube_utilization;               /* 0..1 */
  uint64_t stall_cycles;                 /* all cores */
  trc_op_summary ops[ISA_OP_COUNT];      /* per instruction kind */
  uint64_t hazards;
  bool deadlocked;
} trc_summary;

/* msprof's PipeUtilization name of a pipe's ratio, without "_ratio": aic_mac (CUBE), aic_mte1,
 * aic_mte2, aic_fixpipe, aic_scalar, aiv_vec (VECTOR), aiv_mte3. */
const char *trc_pipe_msprof_name(isa_pipe p);
/* The name of pipe p on an AIV (aiv_scalar, aiv_mte2, aiv_vec, aiv_mte3), NULL for the cube
 * pipes an AIV does not have: the text summary's labels when every block is an AIV. */
const char *trc_pipe_msprof_aiv_name(isa_pipe p);
/* The pipes in msprof's column order (op_summary: aic_mac, aic_scalar, aic_mte1, aic_mte2,
 * aic_fixpipe, then aiv_vec, aiv_mte3): pipe i, for i < ISA_PIPE_COUNT. */
isa_pipe trc_msprof_pipe_at(int i);

/* Ideal cube cycles of a stream: sum of m*n*k / cube.macs_per_cycle_<dtype> over its mmads. */
double trc_ideal_cube_cycles(const sim_config *cfg, const isa_insn *stream, size_t n);

/* Busy cycles of pipe p on one core. */
uint64_t trc_core_pipe_busy(const sim *s, const sim_result *r, unsigned core, isa_pipe p);
/* A core's span: finish_cycles - start_cycles (0 for a core that ran nothing). */
uint64_t trc_core_span(const sim_result *r, unsigned core);
/* cycles / clock_mhz: microseconds (0 for a clock of 0). */
double trc_cycles_us(double cycles, uint64_t clock_mhz);

void trc_summary_compute(const sim *s, const sim_result *r, trc_summary *out);

/* The table users see after every run. */
void trc_summary_text(const sim *s, const sim_result *r, FILE *f);
/* One JSON object, written as one value of j (traces/FORMAT.md lists its keys). */
void trc_summary_json(const sim *s, const sim_result *r, cs_json *j);
/* The same members, written into an object the caller has open (cubesim run --json puts them
 * next to the kernel's inputs and outputs). */
void trc_summary_json_members(const sim *s, const sim_result *r, cs_json *j);
/* One row per core with msprof-like columns and a last row of means ("avg") (written, like
 * every output, into a base/cs_out stream by the command line; write errors are the stream's). */
void trc_summary_csv(const sim *s, const sim_result *r, FILE *f);

#endif
