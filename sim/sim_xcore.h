/* sim_xcore — the chip's cross-core synchronisation state for the timing replay: Ascend C's
 * CrossCoreSetFlag / CrossCoreWaitFlag counters and SyncAll (docs/ISA.md, "Cross-core flags";
 * docs/TIMING.md, "Cross-core flags"). It says who a set raises and when a wait or a SyncAll may
 * pass; the engine owns the time (the latency of a flag, when a set fires).
 *
 * Every core has one counter per flag id, zero at the start. A set of
 *   mode 0  counts an arrival of its core; once every active core of its kind (AIC or AIV) has
 *           arrived once more, each of them gets +1 (a barrier of the kind);
 *   mode 1  (an AIV) the same among the active AIVs of its AI core;
 *   mode 2  from an AIC: +1 to each active AIV of its AI core; from an AIV: an arrival, and once
 *           every active AIV of the AI core has arrived once more, its AIC gets +1.
 * A wait passes when its core's counter is above 0 and takes one. A core is active when its
 * stream is not empty. A counter holds at most SIM_XFLAG_MAX_PENDING sets: a set that could
 * raise a counter already at the limit (delivered or on its way) does not leave its pipe's queue.
 */
#ifndef SIM_XCORE_H
#define SIM_XCORE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"

#define SIM_XFLAG_IDS 11         /* flag ids 0 .. 10 (A2) */
#define SIM_XFLAG_MAX_PENDING 15 /* Ascend: a flag id's counter is set at most 15 times */
#define SIM_XCORE_MAX_TARGETS 64 /* cores one set raises at most: a kind's cores beyond this are
                                  * refused at init */

typedef struct sim_xcore {
  unsigned ncores, naic, per; /* cores; the first naic are AICs; AIVs per AIC */
  bool *active;               /* [core] */
  uint32_t *count;            /* [core][id]: sets delivered and not taken */
  uint32_t *inflight;         /* [core][id]: sets on their way (the flag's latency) */
  uint32_t *arrive;           /* [mode 0..2][core][id]: arrivals of a core (modes 0, 1, 2 from an AIV) */
  uint32_t *gen;              /* [mode][slot][id]: rounds delivered (slot: kind for mode 0, AI core else) */
  unsigned nslots;            /* max(2, naic) */
  /* SyncAll: [0] every active core, [1] the active AIVs */
  uint64_t sync_gen[2];
  unsigned sync_count[2], sync_need[2];
  uint64_t *sync_wait; /* [core]: 1 + the generation it arrived in, 0 when not waiting */
} sim_xcore;

/* active[c]: core c has instructions. CS_ENOMEM; CS_EINVAL when a kind has more active cores
 * than SIM_XCORE_MAX_TARGETS and the streams use cross-core flags (not checked here). */
cs_status sim_xcore_init(sim_xcore *x, unsigned ncores, unsigned naic, unsigned per, const bool *active, cs_err *err);
void sim_xcore_free(sim_xcore *x);

bool sim_xcore_is_aiv(const sim_xcore *x, unsigned core);
/* The cores a set of `mode` by `core` may raise (into out, at most SIM_XCORE_MAX_TARGETS). */
unsigned sim_xcore_targets(const sim_xcore *x, unsigned core, unsigned mode, unsigned *out);
/* true when a set of (mode, id) by core could raise a counter already holding the maximum. */
bool sim_xcore_set_full(const sim_xcore *x, unsigned core, unsigned mode, unsigned id);
/* A set fires: the cores whose counter it raises now (into out; each is counted in flight until
 * sim_xcore_deliver). */
unsigned sim_xcore_set(sim_xcore *x, unsigned core, unsigned mode, unsigned id, unsigned *out);
void sim_xcore_deliver(sim_xcore *x, unsigned core, unsigned id);
/* A wait: takes one from the core's counter and returns true, or returns false (blocked). */
bool sim_xcore_take(sim_xcore *x, unsigned core, unsigned id);
uint32_t sim_xcore_count(const sim_xcore *x, unsigned core, unsigned id);

/* SyncAll of `core` (aiv_only: the AIVs' barrier), its pipes drained: notes its arrival (once)
 * and returns true when it completes the round (the engine then releases it, sim_xcore_sync_release). */
bool sim_xcore_sync_arrive(sim_xcore *x, unsigned core, bool aiv_only);
void sim_xcore_sync_release(sim_xcore *x, bool aiv_only);
/* true once the round the core arrived in is released (and clears its arrival). */
bool sim_xcore_sync_passed(sim_xcore *x, unsigned core, bool aiv_only);

#endif
