/* sim_stats — the statistics of a replay, each counter registered once with its name, unit and
 * description (DRAMsim3 style), so every report can describe what it prints. */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "isa/isa_insn.h"

/* Chip-wide counters: X(name, unit, description). */
#define SIM_STAT_CHIP_TABLE(X)                                                          \
  X(total_cycles, "cycles", "cycles until the last core finished its last instruction") \
  X(instructions, "instructions", "instructions replayed, all cores")                  \
  X(macs, "MACs", "multiply-accumulates done by all cubes")                             \
  X(gm_read_bytes, "bytes", "bytes read from GM (MTE2)")                                \
  X(gm_write_bytes, "bytes", "bytes written to GM (FIX, MTE3)")                         \
  X(l2_hit_bytes, "bytes", "GM bytes that found their L2 line resident")                \
  X(l2_miss_bytes, "bytes", "GM bytes whose L2 line was not resident")                  \
  X(hbm_read_bytes, "bytes", "bytes read from HBM (whole lines filled on L2 read misses)") \
  X(hbm_write_bytes, "bytes", "bytes written to HBM (dirty L2 lines evicted)")            \
  X(l2_dirty_bytes, "bytes", "bytes of dirty L2 lines at the end, not yet written to HBM") \
  X(gm_busy_cycles, "cycles", "cycles with at least one GM transfer streaming")         \
  X(hazards, "hazards", "data hazards detected (missing flags or barriers)")

/* The cube's accesses to L0 that an mmad makes, in whole fractals (rows and columns to 16, K to
 * C0 elements: 32 bytes), C in 4-byte accumulators, read back when the mmad accumulates
 * (init_c = 0). */
typedef enum sim_l0 { SIM_L0A_READ, SIM_L0B_READ, SIM_L0C_READ, SIM_L0C_WRITE, SIM_L0_COUNT } sim_l0;

/* Adds an mmad's L0 bytes (sim_l0) to bytes[]. */
void sim_mmad_l0_bytes(const isa_fmt_mmad *mm, uint64_t bytes[SIM_L0_COUNT]);

/* Per-core counters: X(name, unit, description). */
#define SIM_STAT_CORE_TABLE(X)                                                       \
  X(start_cycles, "cycles", "cycle the core started (the launch and its place in it)") \
  X(finish_cycles, "cycles", "cycle the core's last instruction completed")           \
  X(instructions, "instructions", "instructions in the core's stream")               \
  X(macs, "MACs", "multiply-accumulates done by the core's cube")                     \
  X(stall_cycles, "cycles", "cycles dispatch waited on a full queue, a barrier or a flag")

typedef struct sim_core_stats {
#define SIM_STAT_FIELD(name, unit, desc) uint64_t name;
  SIM_STAT_CORE_TABLE(SIM_STAT_FIELD)
  uint64_t pipe_busy_cycles[ISA_PIPE_COUNT]; /* cycles each pipe was occupied */
  uint64_t op_count[ISA_OP_COUNT];           /* instructions of each kind */
  uint64_t op_cycles[ISA_OP_COUNT];          /* sum of start-to-completion cycles per kind */
  uint64_t op_busy_cycles[ISA_OP_COUNT];     /* sum of occupancy cycles per kind */
  uint64_t path_bytes[ISA_PATH_COUNT];       /* bytes moved on each path */
  uint64_t mmad_macs[ISA_DTYPE_COUNT];       /* the mmads' m x n x k, by their operands' type */
  uint64_t cube_l0_bytes[SIM_L0_COUNT];      /* what the cube reads and writes in L0 (sim_mmad_l0_bytes) */
} sim_core_stats;

typedef struct sim_stats {
  SIM_STAT_CHIP_TABLE(SIM_STAT_FIELD)
#undef SIM_STAT_FIELD
  unsigned cores;
  sim_core_stats *core; /* one per core: `cores` entries */
} sim_stats;

/* Descriptor of one counter, for reports. */
typedef struct sim_stat_desc {
  const char *name, *unit, *desc;
  size_t offset; /* of the uint64_t in sim_stats or sim_core_stats */
} sim_stat_desc;

size_t sim_stats_chip_count(void);
const sim_stat_desc *sim_stats_chip_desc(size_t i);
uint64_t sim_stats_chip_value(const sim_stats *s, size_t i);
size_t sim_stats_core_count(void);
const sim_stat_desc *sim_stats_core_desc(size_t i);
uint64_t sim_stats_core_value(const sim_core_stats *c, size_t i);

/* Bytes moved on a path, summed over cores. */
uint64_t sim_stats_path_bytes_total(const sim_stats *s, isa_path p);

#endif
