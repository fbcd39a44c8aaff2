/* sim_trace_internal — what the trace front end (sim_trace.c) shares with its two writers,
 * sim_trace_json.c and sim_trace_pf.c. The front end owns the file, the options and the flow
 * arrows waiting for their slices; it hands a writer only the events the filters keep. */
#ifndef SIM_TRACE_INTERNAL_H
#define SIM_TRACE_INTERNAL_H

#include <stdio.h>

#include "sim/sim_trace.h"

/* Process and thread ids (traces/FORMAT.md). Perfetto treats pid 0 as the kernel's idle
 * process, so core c is pid c + 1; tids are unique across processes because Perfetto names
 * threads by tid alone: pipe p of core c is (c + 1) * 100 + p + 1. The chip's counters live in
 * a process of their own, above any core's pid (chip.aic_cores <= 1024). */
#define SIM_TRACE_TID_PER_PID 100u
#define SIM_TRACE_CHIP_PID 1000000u

static inline unsigned sim_trace_core_pid(unsigned core) { return core + 1; }
static inline unsigned sim_trace_pipe_tid(unsigned core, isa_pipe p) {
  return sim_trace_core_pid(core) * SIM_TRACE_TID_PER_PID + (unsigned)p + 1;
}
/* pipe_barrier(ALL) is executed by the dispatcher: it is drawn on the SCALAR track. */
static inline isa_pipe sim_trace_track_of(isa_pipe p) { return (unsigned)p < ISA_PIPE_COUNT ? p : ISA_PIPE_S; }

/* One end of a flag's arrow: the set_flag (is_start) or the wait_flag it released. */
typedef struct sim_trace_flow_end {
  bool is_start;
  unsigned core;
  isa_pipe pipe;
  uint64_t time;
  uint64_t id;
} sim_trace_flow_end;

typedef struct sim_trace_writer {
  unsigned bytes_per_insn; /* about, for the projected size */
  /* Sets up the writer's state and writes the top of the file, at open. */
  cs_status (*header)(sim_trace *t, const sim_config *cfg, cs_err *err);
  /* Names the processes and tracks of the kept cores among `cores`. */
  void (*begin)(sim_trace *t, unsigned cores);
  /* One slice, with the arrow end that belongs to it (NULL: none). */
  void (*insn)(sim_trace *t, const sim_trace_insn_event *e, const sim_trace_flow_end *flow);
  /* An arrow end whose slice never came. */
  void (*flow)(sim_trace *t, const sim_trace_flow_end *fl);
  void (*counter)(sim_trace *t, const char *name, uint64_t time, double value);
  /* The end of the file, before it is closed. */
  void (*finish)(sim_trace *t);
  /* Frees the writer's state. */
  void (*release)(sim_trace *t);
} sim_trace_writer;

extern const sim_trace_writer sim_trace_json_writer, sim_trace_pf_writer;

struct sim_trace {
  FILE *f;         /* the output's stream (base/cs_out) */
  cs_out *out;
  cs_out_set *own; /* opened by path: the set of this one output, committed by close */
  int write_errno; /* first failed write (0: none) */
  uint64_t clock_mhz;
  sim_trace_options opt; /* format resolved */
  const sim_trace_writer *w;
  void *state;    /* the writer's */
  bool flow_pending;
  sim_trace_flow_end flow; /* an arrow end waiting for its slice */
  unsigned aic_cores, aiv_per_aic; /* the cores from aic_cores on are AIVs (sim_trace_set_topology) */
};

/* Remembers the first failed write (rc < 0); later writes are skipped cheaply by stdio's error
 * flag. */
void sim_trace_note(sim_trace *t, int rc);
/* Remembers that part of the trace could not be built for lack of host memory (the trace then
 * fails as a host resource: exit 3). */
void sim_trace_note_nomem(sim_trace *t);
bool sim_trace_core_kept(const sim_trace *t, unsigned core);
/* The process name of a core: "core 3" for a cube core, "AIV 3.1" for sub-block 1 of AI core 3. */
void sim_trace_core_name(const sim_trace *t, unsigned core, char *out, size_t out_bytes);
/* Whether a core has pipe p's track: an AIV has SCALAR, MTE2, VECTOR and MTE3 only. */
bool sim_trace_core_has_pipe(const sim_trace *t, unsigned core, isa_pipe p);

#endif
