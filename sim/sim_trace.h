/* sim_trace — the streaming Chrome Trace Event JSON writer (format: traces/FORMAT.md).
 *
 * One process per core, one track per pipe (Ascend's names: SCALAR, MTE2, MTE1, CUBE, FIXP,
 * MTE3, VECTOR), one complete event per instruction with its operands and bytes, flow arrows
 * from set_flag to the wait_flag it releases, and counter tracks for GM bandwidth. Events are
 * written as they come, never held, into an output of base/cs_out: a temporary file renamed
 * when the run ends well (a failed run leaves no half file), or a FIFO or device written in
 * place. With no trace (NULL), the engine formats nothing.
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cs_out.h"
#include "base/cs_status.h"
#include "isa/isa_insn.h"
#include "sim/sim_config.h"

typedef struct sim_trace sim_trace;

/* One replayed instruction. Times are cycles. */
typedef struct sim_trace_insn_event {
  unsigned core;
  isa_pipe pipe;
  uint64_t index;          /* in the core's stream */
  const isa_insn *insn;
  uint64_t dispatch;       /* entered its pipe queue */
  uint64_t start;          /* began executing */
  uint64_t busy_end;       /* pipe free for the next instruction */
  uint64_t end;            /* completed (results visible) */
  const isa_work *work;
  uint64_t l2_hit_bytes, l2_miss_bytes; /* GM transfers */
} sim_trace_insn_event;

/* Writes the trace into out, an output of the caller's cs_out set, which the caller commits
 * (with the run's other outputs) after sim_trace_close. cfg is written into the trace's
 * metadata so the run can be reproduced. */
cs_status sim_trace_open_out(cs_out *out, const sim_config *cfg, sim_trace **t, cs_err *err);
/* The same into path alone, through a set of its own that sim_trace_close commits. */
cs_status sim_trace_open(const char *path, const sim_config *cfg, sim_trace **t, cs_err *err);
/* Names the processes and tracks of `cores` cores. Called once by the engine before any event. */
void sim_trace_begin(sim_trace *t, unsigned cores);
void sim_trace_insn(sim_trace *t, const sim_trace_insn_event *e);
/* The start (set_flag, on its pipe) or the end (the wait_flag it released) of a flag's arrow. */
void sim_trace_flow(sim_trace *t, unsigned core, isa_pipe pipe, uint64_t time, uint64_t flow_id,
                    bool is_start);
/* A sample of a chip-wide counter track (e.g. "GM bandwidth" in GB/s) from `time` on. */
void sim_trace_counter(sim_trace *t, const char *name, uint64_t time, double value);
/* Finishes the JSON and frees t; CS_EIO if any write failed. Opened by path: keep commits the
 * file, otherwise (or after a failed write) it is removed. Opened into an output: the caller's
 * set decides (a failed write must make the caller discard the set). */
cs_status sim_trace_close(sim_trace *t, bool keep, cs_err *err);

#endif
