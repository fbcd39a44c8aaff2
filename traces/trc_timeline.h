/* trc_timeline — a compact timeline of a replay for reports: per core and pipe, the busy
 * intervals merged into at most a given number of spans.
 *
 * It observes the replay (sim_observer): every instruction adds its occupancy [start, busy_end)
 * to its pipe's track and its issue [scalar_start, scalar_end) to the SCALAR track, so each track's busy cycles are the summary's (trc_core_pipe_busy). Intervals
 * closer than a track's merge gap join into one span that remembers how many of its cycles were
 * busy; when a track holds more spans than allowed, its gap doubles and neighbours merge, so a
 * track ends with between about half and all of the allowed spans whatever the run's length.
 * Nothing is collected unless a run asks for it (the engine builds no events without an
 * observer or a trace).
 */
#ifndef TRC_TIMELINE_H
#define TRC_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "base/cs_json.h"
#include "base/cs_status.h"
#include "isa/isa_insn.h"
#include "sim/sim.h"

/* The default limit of spans per track. */
#define TRC_TIMELINE_SPANS 256

/* A span [start, end) in cycles; `busy` of its cycles were busy (busy <= end - start). */
typedef struct trc_span {
  uint64_t start, end, busy;
} trc_span;

typedef struct trc_track {
  trc_span *spans; /* sorted by start, disjoint */
  size_t n, cap;
  uint64_t gap_cycles;  /* intervals at most this far apart share a span */
  uint64_t busy_cycles; /* every interval added */
} trc_track;

typedef struct trc_timeline {
  unsigned cores;
  size_t max_spans;          /* per track */
  trc_track *tracks;         /* cores x ISA_PIPE_COUNT, track(c, p) = tracks[c * ISA_PIPE_COUNT + p] */
  sim_observer observer;     /* pass &observer to sim_run_options (or kn_run_options) */
  cs_status status;          /* CS_ENOMEM once an interval could not be kept */
} trc_timeline;

/* A timeline for the cores of cfg, at most max_spans (>= 2) spans per track. */
cs_status trc_timeline_create(const sim_config *cfg, size_t max_spans, trc_timeline **out, cs_err *err);
void trc_timeline_destroy(trc_timeline *t);

const trc_track *trc_timeline_track(const trc_timeline *t, unsigned core, isa_pipe p);
/* Adds the busy interval [start, end) to a track (what the observer does for each event). */
void trc_timeline_add(trc_timeline *t, unsigned core, isa_pipe p, uint64_t start, uint64_t end);

/* The "timeline" member of a run's JSON (traces/FORMAT.md): the non-empty tracks. */
void trc_timeline_json(const trc_timeline *t, cs_json *j);

#endif
