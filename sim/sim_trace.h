/* sim_trace — the streaming trace writer (formats: traces/FORMAT.md).
 *
 * One process per core, one track per pipe (Ascend's names: SCALAR, MTE2, MTE1, CUBE, FIXP,
 * MTE3, VECTOR), one slice per instruction, flow arrows from set_flag to the wait_flag it
 * releases, and counter tracks for GM bandwidth. Two formats:
 *   - Chrome Trace Event JSON (.json): every instruction with its operands, bytes and cycles in
 *     args; about 370 bytes an instruction, for small runs;
 *   - Perfetto's native protobuf (.perfetto-trace, .pftrace): the slices, arrows and counters
 *     with names interned and timestamps delta-encoded, about 30 bytes an instruction.
 * Filters keep some cores, a window of cycles, or no flags. Events are written as they come
 * into an output of base/cs_out: a temporary file renamed when the run ends well (a failed run
 * leaves no half file), or a FIFO or device written in place. With no trace (NULL), the engine
 * formats nothing.
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

/* enum suffix, name */
#define SIM_TRACE_FORMAT_TABLE(X) \
  X(AUTO, "auto")                 \
  X(JSON, "json")                 \
  X(PERFETTO, "perfetto")

typedef enum sim_trace_format {
#define SIM_TRACE_FORMAT_ENUM(sfx, name) SIM_TRACE_##sfx,
  SIM_TRACE_FORMAT_TABLE(SIM_TRACE_FORMAT_ENUM)
#undef SIM_TRACE_FORMAT_ENUM
  SIM_TRACE_FORMAT_COUNT
} sim_trace_format;

const char *sim_trace_format_name(sim_trace_format f);
/* SIM_TRACE_FORMAT_COUNT when unknown. */
sim_trace_format sim_trace_format_from_name(const char *name);
/* The format a path's extension asks for: .perfetto-trace, .pftrace and .pb are Perfetto,
 * anything else JSON. */
sim_trace_format sim_trace_format_of_path(const char *path);

#define SIM_TRACE_MAX_CORES 1024 /* chip.aic_cores' limit */
#define SIM_TRACE_WARN_BYTES (256ull << 20) /* projected sizes above this are announced */

/* What a trace keeps, and where its notices go. */
typedef struct sim_trace_options {
  sim_trace_format format;                /* AUTO: from the path (sim_trace_format_of_path) */
  uint64_t cores[SIM_TRACE_MAX_CORES / 64]; /* bit c: core c is kept */
  uint64_t window_start, window_end;      /* cycles: events in [start, end) are kept */
  bool flags;                             /* set_flag / wait_flag slices and their arrows */
  /* Called with a one-line message before events are written when the trace is projected
   * over SIM_TRACE_WARN_BYTES (NULL: no notices). */
  void (*notice)(void *ctx, const char *msg);
  void *notice_ctx;
} sim_trace_options;

/* Every core, all time, flags, format AUTO, no notices. */
void sim_trace_options_init(sim_trace_options *o);
/* Parses a core list, "0-3", "5" or "0,2,8-11", into o->cores (replacing it). A core at or
 * beyond `cores` is an error naming it. */
cs_status sim_trace_parse_cores(sim_trace_options *o, const char *text, unsigned cores, cs_err *err);
/* Parses "START:END" into o's window: each end in cycles ("1200") or microseconds ("0.65us",
 * "0.65µs"), converted at clock_mhz and rounded to the nearest cycle; an empty end is open
 * ("1000:" to the end, ":5us" from 0). START must be below END. */
cs_status sim_trace_parse_window(sim_trace_options *o, const char *text, uint64_t clock_mhz, cs_err *err);

/* One replayed instruction. Times are cycles. */
typedef struct sim_trace_insn_event {
  unsigned core;
  isa_pipe pipe;
  uint64_t index;          /* in the core's stream */
  const isa_insn *insn;
  uint64_t scalar_start, scalar_end; /* SCALAR's busy span issuing it (it may wait until dispatch) */
  uint64_t dispatch;       /* entered its pipe queue */
  uint64_t start;          /* began executing */
  uint64_t busy_end;       /* pipe free for the next instruction */
  uint64_t end;            /* completed (results visible) */
  const isa_work *work;
  uint64_t l2_hit_bytes, l2_miss_bytes; /* GM transfers */
} sim_trace_insn_event;

/* Writes the trace into out, an output of the caller's cs_out set, which the caller commits
 * (with the run's other outputs) after sim_trace_close; with options opt (NULL: the defaults;
 * format AUTO goes by out's path). cfg is written into the trace's metadata so the run can be
 * reproduced. */
cs_status sim_trace_open_out(cs_out *out, const sim_config *cfg, const sim_trace_options *opt, sim_trace **t,
                             cs_err *err);
/* The same into path alone, through a set of its own that sim_trace_close commits. */
cs_status sim_trace_open_with(const char *path, const sim_config *cfg, const sim_trace_options *opt, sim_trace **t,
                              cs_err *err);
/* sim_trace_open_with with the default options. */
cs_status sim_trace_open(const char *path, const sim_config *cfg, sim_trace **t, cs_err *err);
/* Host memory an open trace holds (its write buffer), for footprints. */
size_t sim_trace_buffer_bytes(void);
/* The format being written (never AUTO). */
sim_trace_format sim_trace_get_format(const sim_trace *t);
/* Names the processes and tracks of `cores` cores, which will replay `instructions`
 * instructions in all (0: unknown; used to project the trace's size). Called once by the
 * engine before any event. */
/* Cores from aic_cores on are AIV cores, aiv_per_aic of them per AI core (sim.h's numbering):
 * their processes are named "AIV g.v" and have the vector core's tracks only. Before
 * sim_trace_begin; without it every core is a cube core. */
void sim_trace_set_topology(sim_trace *t, unsigned aic_cores, unsigned aiv_per_aic);
void sim_trace_begin(sim_trace *t, unsigned cores, uint64_t instructions);
void sim_trace_insn(sim_trace *t, const sim_trace_insn_event *e);
/* The start (set_flag, on its pipe) or the end (the wait_flag it released) of a flag's arrow.
 * The engine reports it just before that instruction's slice. */
void sim_trace_flow(sim_trace *t, unsigned core, isa_pipe pipe, uint64_t time, uint64_t flow_id,
                    bool is_start);
/* A sample of a chip-wide counter track (e.g. "GM bandwidth" in GB/s) from `time` on. */
void sim_trace_counter(sim_trace *t, const char *name, uint64_t time, double value);
/* Finishes the file and frees t; CS_EIO if any write failed. Opened by path: keep commits the
 * file, otherwise (or after a failed write) it is removed. Opened into an output: the caller's
 * set decides (a failed write must make the caller discard the set). */
cs_status sim_trace_close(sim_trace *t, bool keep, cs_err *err);

#endif
