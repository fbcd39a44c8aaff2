/* sim_xhb — data hazards between cores through GM, from the order the program guarantees
 * (docs/TIMING.md, "Hazards across cores").
 *
 * Cores share GM and order their accesses only by cross-core flags and SyncAll. Two accesses of
 * different cores to overlapping GM bytes, at least one a write, are a hazard unless one
 * happens before the other:
 *   - on a core, what sim_hb.h's per-core check orders (the frontier each instruction starts
 *     with: every instruction of pipe P before some index has completed);
 *   - a cross_set_flag on pipe P fires once everything its frontier names and every earlier
 *     instruction of P has completed; a wait that takes its counter (the k-th wait of a core's
 *     flag id takes the k-th round delivered to it, whatever the timing) passes after it, and
 *     orders after itself every later instruction of its pipe (S: every later instruction) and
 *     whatever those orders;
 *   - a round of mode 0, 1 or 2 from the AIVs joins what every setter of the round knew;
 *     sync_all orders everything before any core's sync_all of a round before everything after
 *     any core's;
 *   - chains of these, through any number of cores.
 * The check runs after the replay, which gives it an order in which to resolve the rounds (any
 * order the run could take gives the same answer); a deadlocked run is not checked. It runs only
 * on simulators whose cores use cross-core instructions or include AIVs, and costs a pass over
 * the streams' GM accesses when no two cores touch the same GM bytes.
 */
#ifndef SIM_XHB_H
#define SIM_XHB_H

#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "sim/sim.h"

/* What the replay did with a cross-core instruction, in the order it happened. */
typedef enum sim_xhb_what {
  SIM_XHB_SET,         /* a cross_set_flag fired */
  SIM_XHB_WAIT,        /* a cross_wait_flag passed */
  SIM_XHB_SYNC_ARRIVE, /* a sync_all arrived, its core drained */
  SIM_XHB_SYNC_PASS    /* a sync_all passed */
} sim_xhb_what;

typedef struct sim_xhb_event {
  uint64_t idx;
  uint32_t core;
  uint32_t what; /* sim_xhb_what */
} sim_xhb_event;

/* A pair nothing orders: instruction a of core_a writes GM bytes [lo, hi) that instruction b of
 * core_b reads (RAW: a is the writer) or writes too (WAW). */
typedef struct sim_xhb_hazard {
  sim_hazard_kind kind;
  unsigned core_a, core_b;
  uint64_t a, b;
  uint64_t lo, hi;
} sim_xhb_hazard;

typedef struct sim_xhb_sink {
  void (*hazard)(void *arg, const sim_xhb_hazard *h);
  void *arg;
} sim_xhb_sink;

/* Checks the simulator's streams with the replay's log of cross-core events (nlog of them);
 * every unordered pair goes to sink once. CS_OK or CS_ENOMEM. */
cs_status sim_xhb_check(sim *s, const sim_xhb_event *log, size_t nlog, const sim_xhb_sink *sink, cs_err *err);

#endif
