/* sim_xcore — cross-core flag counters and SyncAll rounds (sim_xcore.h). */
#include "sim/sim_xcore.h"

#include <stdlib.h>
#include <string.h>

static size_t at(const sim_xcore *x, unsigned core, unsigned id) {
  (void)x;
  return (size_t)core * SIM_XFLAG_IDS + id;
}
static size_t arr_at(const sim_xcore *x, unsigned mode, unsigned core, unsigned id) {
  return ((size_t)mode * x->ncores + core) * SIM_XFLAG_IDS + id;
}
static size_t gen_at(const sim_xcore *x, unsigned mode, unsigned slot, unsigned id) {
  return ((size_t)mode * x->nslots + slot) * SIM_XFLAG_IDS + id;
}

bool sim_xcore_is_aiv(const sim_xcore *x, unsigned core) { return core >= x->naic; }
static unsigned group_of(const sim_xcore *x, unsigned core) {
  return core < x->naic ? core : (core - x->naic) / (x->per ? x->per : 1);
}

cs_status sim_xcore_init(sim_xcore *x, unsigned ncores, unsigned naic, unsigned per, const bool *active, cs_err *err) {
  memset(x, 0, sizeof *x);
  x->ncores = ncores;
  x->naic = naic;
  x->per = per;
  x->nslots = naic > 2 ? naic : 2;
  x->active = calloc(ncores ? ncores : 1, sizeof *x->active);
  x->count = calloc((size_t)ncores * SIM_XFLAG_IDS + 1, sizeof *x->count);
  x->inflight = calloc((size_t)ncores * SIM_XFLAG_IDS + 1, sizeof *x->inflight);
  x->arrive = calloc((size_t)3 * ncores * SIM_XFLAG_IDS + 1, sizeof *x->arrive);
  x->gen = calloc((size_t)3 * x->nslots * SIM_XFLAG_IDS, sizeof *x->gen);
  x->sync_wait = calloc(ncores ? ncores : 1, sizeof *x->sync_wait);
  if (!x->active || !x->count || !x->inflight || !x->arrive || !x->gen || !x->sync_wait) {
    sim_xcore_free(x);
    return cs_err_set(err, CS_ENOMEM, "no host memory for the cross-core flags");
  }
  for (unsigned c = 0; c < ncores; c++) {
    x->active[c] = active[c];
    if (!active[c]) continue;
    x->sync_need[0]++;
    if (sim_xcore_is_aiv(x, c)) x->sync_need[1]++;
  }
  return CS_OK;
}

void sim_xcore_free(sim_xcore *x) {
  free(x->active);
  free(x->count);
  free(x->inflight);
  free(x->arrive);
  free(x->gen);
  free(x->sync_wait);
  memset(x, 0, sizeof *x);
}

/* The cores that arrive together for a set of `mode` by `core` (mode 0: its kind; 1 and 2 from
 * an AIV: the AIVs of its AI core), active ones only. */
static unsigned arrivals(const sim_xcore *x, unsigned core, unsigned mode, unsigned *out) {
  unsigned n = 0;
  bool aiv = sim_xcore_is_aiv(x, core);
  if (mode == 0) {
    for (unsigned c = aiv ? x->naic : 0; c < (aiv ? x->ncores : x->naic) && n < SIM_XCORE_MAX_TARGETS; c++)
      if (x->active[c]) out[n++] = c;
    return n;
  }
  unsigned g = group_of(x, core);
  for (unsigned v = 0; v < x->per && n < SIM_XCORE_MAX_TARGETS; v++) {
    unsigned c = x->naic + g * x->per + v;
    if (c < x->ncores && x->active[c]) out[n++] = c;
  }
  return n;
}

unsigned sim_xcore_targets(const sim_xcore *x, unsigned core, unsigned mode, unsigned *out) {
  if (mode == 0 || mode == 1) return arrivals(x, core, mode, out);
  if (!sim_xcore_is_aiv(x, core)) return arrivals(x, core, 2, out); /* the AIC's AIVs */
  unsigned g = group_of(x, core);
  if (g < x->naic && x->active[g]) {
    out[0] = g;
    return 1;
  }
  return 0;
}

bool sim_xcore_set_full(const sim_xcore *x, unsigned core, unsigned mode, unsigned id) {
  unsigned t[SIM_XCORE_MAX_TARGETS];
  unsigned n = sim_xcore_targets(x, core, mode, t);
  for (unsigned i = 0; i < n; i++)
    if (x->count[at(x, t[i], id)] + x->inflight[at(x, t[i], id)] >= SIM_XFLAG_MAX_PENDING) return true;
  return false;
}

unsigned sim_xcore_set(sim_xcore *x, unsigned core, unsigned mode, unsigned id, unsigned *out) {
  unsigned n = 0;
  if (mode == 2 && !sim_xcore_is_aiv(x, core)) {
    n = sim_xcore_targets(x, core, mode, out);
  } else {
    /* an arrival: a round completes when every core of the set has arrived once more */
    unsigned a[SIM_XCORE_MAX_TARGETS];
    unsigned na = arrivals(x, core, mode, a);
    x->arrive[arr_at(x, mode, core, id)]++;
    uint32_t least = UINT32_MAX;
    for (unsigned i = 0; i < na; i++)
      if (x->arrive[arr_at(x, mode, a[i], id)] < least) least = x->arrive[arr_at(x, mode, a[i], id)];
    unsigned slot = mode == 0 ? (sim_xcore_is_aiv(x, core) ? 1u : 0u) : group_of(x, core);
    uint32_t *g = &x->gen[gen_at(x, mode, slot, id)];
    if (na && least != UINT32_MAX && least > *g) {
      (*g)++;
      n = sim_xcore_targets(x, core, mode, out);
    }
  }
  for (unsigned i = 0; i < n; i++) x->inflight[at(x, out[i], id)]++;
  return n;
}

void sim_xcore_deliver(sim_xcore *x, unsigned core, unsigned id) {
  x->inflight[at(x, core, id)]--;
  x->count[at(x, core, id)]++;
}

bool sim_xcore_take(sim_xcore *x, unsigned core, unsigned id) {
  uint32_t *c = &x->count[at(x, core, id)];
  if (!*c) return false;
  (*c)--;
  return true;
}

uint32_t sim_xcore_count(const sim_xcore *x, unsigned core, unsigned id) { return x->count[at(x, core, id)]; }

bool sim_xcore_sync_arrive(sim_xcore *x, unsigned core, bool aiv_only) {
  if (x->sync_wait[core]) return false; /* arrived already, waiting for the release */
  unsigned s = aiv_only ? 1 : 0;
  x->sync_wait[core] = 1 + x->sync_gen[s];
  return ++x->sync_count[s] == x->sync_need[s];
}

void sim_xcore_sync_release(sim_xcore *x, bool aiv_only) {
  unsigned s = aiv_only ? 1 : 0;
  x->sync_gen[s]++;
  x->sync_count[s] = 0;
}

bool sim_xcore_sync_passed(sim_xcore *x, unsigned core, bool aiv_only) {
  unsigned s = aiv_only ? 1 : 0;
  if (!x->sync_wait[core] || x->sync_wait[core] > x->sync_gen[s]) return false;
  x->sync_wait[core] = 0;
  return true;
}
