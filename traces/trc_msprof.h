/* trc_msprof — the files and columns of Ascend's profiler that a cubesim run can fill, under
 * msprof's file names, column names and units, so that scripts written for msprof (`msprof op`,
 * msopprof, op_summary) read cubesim's results unchanged. traces/FORMAT.md maps every column to
 * what cubesim counts; columns of hardware cubesim does not model (icache, bank conflicts, L2
 * per core) are left out rather than invented.
 *
 *   OpBasicInfo.csv     one row: the operator, Task Duration(us), Block Dim, the clock
 *   op_summary.csv      one row: msprof's op_summary PipeUtilization columns (means over the
 *                       blocks, ratios relative to aicore_time)
 *   PipeUtilization.csv one row per block: its time and each pipe's time and ratio
 *   Memory.csv          one row per block: bandwidths, instruction counts, data volumes (KB) and
 *                       bandwidth usage of the GM paths
 *   MemoryL0.csv        one row per block: L0A, L0B and L0C read and write bandwidths
 * A block is a core that ran at least one instruction (trc_summary.h); its time is its span.
 */
#ifndef TRC_MSPROF_H
#define TRC_MSPROF_H

#include <stdio.h>

#include "base/cs_out.h"
#include "base/cs_status.h"
#include "sim/sim.h"

#define TRC_MSPROF_FILE_TABLE(X) \
  X(op_basic_info, "OpBasicInfo.csv") \
  X(op_summary, "op_summary.csv") \
  X(pipe_utilization, "PipeUtilization.csv") \
  X(memory, "Memory.csv") \
  X(memory_l0, "MemoryL0.csv")

typedef enum trc_msprof_file {
#define TRC_MSPROF_ENUM(id, name) TRC_MSPROF_##id,
  TRC_MSPROF_FILE_TABLE(TRC_MSPROF_ENUM)
#undef TRC_MSPROF_ENUM
  TRC_MSPROF_FILE_COUNT
} trc_msprof_file;

const char *trc_msprof_file_name(trc_msprof_file f);

/* Writes file f of the run of operator op_name into out. */
void trc_msprof_write(trc_msprof_file f, const sim *s, const sim_result *r, const char *op_name, FILE *out);

/* The files of a directory as outputs of a set: trc_msprof_add reserves DIR/<name> for every
 * file (DIR must exist), trc_msprof_fill writes them after the run; the set commits them. */
typedef struct trc_msprof_outs {
  cs_out *out[TRC_MSPROF_FILE_COUNT];
} trc_msprof_outs;
cs_status trc_msprof_add(cs_out_set *set, const char *dir, trc_msprof_outs *o, cs_err *err);
cs_status trc_msprof_fill(const trc_msprof_outs *o, const sim *s, const sim_result *r, const char *op_name,
                          cs_err *err);

#endif
