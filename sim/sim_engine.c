/* sim_engine — the timing replay (docs/DESIGN.md §6, docs/TIMING.md): event-driven, all cores'
 * streams together, fluid sharing of GM bandwidth through the L2, flags, barriers, hazards and
 * deadlock detection. Time advances from event to event, so the cost grows with the number of
 * instructions, never with the number of simulated cycles. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"
#include "sim/sim_l2.h"
#include "sim/sim_trace.h"

#define NEVER UINT64_MAX
#define EVENT_IDS 8
#define FLAG_FIFO 64 /* set_flag arrows remembered per flag for the trace */

typedef enum { EV_COMPLETE = 0, EV_WAKE = 1 } ev_kind;

typedef struct ev {
  uint64_t time;
  uint64_t seq;
  uint64_t idx;
  uint32_t kind, core;
} ev;

typedef enum { ST_NEW, ST_QUEUED, ST_RUNNING, ST_DONE } insn_state;

/* Per-instruction replay record. */
typedef struct eng_insn {
  uint64_t dispatch, start, busy_end, end;
  uint64_t l2_hit, l2_miss;
  uint64_t seq;    /* order of starting in its pipe */
  uint8_t state;
  uint8_t tracked; /* counted among its pipe's running instructions */
} eng_insn;

size_t sim_engine_insn_bytes(void) { return sizeof(eng_insn); }

typedef struct eng_pipe {
  uint64_t *q; /* ring of queued instruction indices */
  size_t qhead, qlen, qcap;
  uint64_t free_t;  /* earliest start of the next instruction (previous start + occupancy) */
  uint64_t seq_next; /* sequence number of the next instruction to start */
  uint64_t *run_seq; /* sequence numbers of the started, uncompleted instructions */
  size_t nrun, caprun;
  struct pending_set {
    uint64_t idx; /* the set_flag */
    uint64_t seq; /* fires when no instruction started before this sequence number is running */
  } *pend;
  size_t npend, cappend;
} eng_pipe;

/* An instruction dispatched and not completed, with what it touches (hazard detection). */
typedef struct eng_out {
  uint64_t idx;
  uint32_t pipe;
  uint32_t nr;
  bool done;
  isa_range r[ISA_MAX_RANGES];
} eng_out;

typedef struct eng_flag {
  uint32_t count;
  uint64_t ids[FLAG_FIFO]; /* trace arrow ids of pending sets, oldest first */
  uint32_t nids;
} eng_flag;

typedef struct eng_core {
  sim_core *c;
  const isa_insn *s;
  size_t n, pc, completed;
  eng_insn *st;
  eng_pipe pipes[ISA_PIPE_COUNT];
  uint64_t dispatch_t; /* when the next instruction may enter its queue */
  uint64_t wake_t;     /* earliest pending wake-up, NEVER if none */
  uint64_t stall_since;/* dispatch blocked since, NEVER if not blocked */
  eng_flag flags[ISA_PIPE_COUNT][ISA_PIPE_COUNT][EVENT_IDS];
  eng_out *out;
  size_t nout, capout, ndone_out;
  sim_core_stats *stats;
  bool dirty;
} eng_core;

/* A GM transfer streaming under the fluid bandwidth model. */
typedef struct eng_flow {
  unsigned core;
  uint64_t idx;
  isa_pipe pipe;
  double remaining; /* bytes */
  double cap;       /* bytes/cycle: the core's own limit for this path */
  double miss_frac; /* share of the bytes that come from HBM */
  double rate;      /* bytes/cycle now */
  uint64_t latency; /* cycles from the last byte to completion */
} eng_flow;

typedef struct engine {
  sim *s;
  uint64_t insns, completed; /* all cores' instructions, and those completed (for progress) */
  const sim_config *cfg;
  const sim_config_derived *d;
  sim_result *res;
  sim_trace *trace;
  const sim_observer *observer;
  eng_core *cores;
  ev *heap;
  size_t nheap, capheap;
  uint64_t seq, now, next_flow_id;
  eng_flow *flows;
  size_t nflows, capflows;
  bool rates_dirty;
  double gm_rate; /* sum of flow rates, bytes/cycle */
  uint64_t gm_busy_since;
  bool l2_on;
  sim_l2 l2;
  cs_status oom;
} engine;

/* ---- event heap ------------------------------------------------------------------------- */

static bool ev_before(const ev *a, const ev *b) {
  if (a->time != b->time) return a->time < b->time;
  if (a->kind != b->kind) return a->kind < b->kind; /* completions before wake-ups */
  return a->seq < b->seq;
}

static void heap_push(engine *e, uint64_t time, ev_kind kind, unsigned core, uint64_t idx) {
  if (e->nheap == e->capheap) {
    size_t cap = e->capheap ? e->capheap * 2 : 1024;
    ev *h = realloc(e->heap, cap * sizeof *h);
    if (!h) {
      e->oom = CS_ENOMEM;
      return;
    }
    e->heap = h;
    e->capheap = cap;
  }
  size_t i = e->nheap++;
  ev x = {time, e->seq++, idx, kind, core};
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!ev_before(&x, &e->heap[p])) break;
    e->heap[i] = e->heap[p];
    i = p;
  }
  e->heap[i] = x;
}

static ev heap_pop(engine *e) {
  ev top = e->heap[0];
  ev last = e->heap[--e->nheap];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    const ev *best = &last;
    if (l < e->nheap && ev_before(&e->heap[l], best)) m = l, best = &e->heap[l];
    if (r < e->nheap && ev_before(&e->heap[r], best)) m = r;
    if (m == i) break;
    e->heap[i] = e->heap[m];
    i = m;
  }
  if (e->nheap) e->heap[i] = last;
  return top;
}

/* ---- timing of one instruction from its work and the configuration ---------------------- */

static uint64_t ceil_div(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : a; }

static uint64_t cube_k0(const sim_config_derived *d, isa_dtype t) {
  switch (t) {
    case ISA_INT8: case ISA_UINT8: return d->cube_k0_int8;
    case ISA_INT4: return d->cube_k0_int4;
    case ISA_BF16: return d->cube_k0_bf16;
    default: return d->cube_k0_fp16;
  }
}

/* Cycles a vector repeat (vector.bytes_per_cycle bytes of its widest operand) takes, by the
 * instruction's rate class (isa_vclass). */
static uint64_t vector_cycles_per_repeat(const sim_config *c, uint32_t vclass) {
  switch ((isa_vclass)vclass) {
    case ISA_VCLASS_DIV: return c->vector_div_cycles_per_repeat;
    case ISA_VCLASS_TRANSC: return c->vector_transcendental_cycles_per_repeat;
    default: return 1;
  }
}

/* Fixed occupancy and latency of an on-chip instruction; for GM paths, *gm_cap is the flow's
 * bytes/cycle limit (and occupancy comes from the flow). */
static void insn_timing(const engine *e, const isa_work *w, uint64_t *occ, uint64_t *lat,
                        double *gm_cap) {
  const sim_config *c = e->cfg;
  *occ = 0;
  *lat = 0;
  *gm_cap = 0;
  switch ((isa_path)w->path) {
    case ISA_PATH_GM_TO_L1:
    case ISA_PATH_GM_TO_UB: *gm_cap = (double)c->mte2_gm_bytes_per_cycle; *lat = c->mte2_latency_cycles; break;
    case ISA_PATH_UB_TO_GM: *gm_cap = (double)c->mte3_gm_bytes_per_cycle; *lat = c->mte3_latency_cycles; break;
    case ISA_PATH_L0C_TO_GM:
      /* the fixpipe converts elements_per_cycle elements a cycle; in bytes of its output */
      *gm_cap = (double)c->fixpipe_elements_per_cycle * (w->elements ? (double)w->bytes / (double)w->elements : 1.0);
      *lat = c->fixpipe_latency_cycles;
      break;
    case ISA_PATH_L0C_TO_L1:
      *occ = ceil_div(w->elements, c->fixpipe_elements_per_cycle);
      *lat = c->fixpipe_latency_cycles;
      break;
    case ISA_PATH_L1_TO_L0A: *occ = ceil_div(w->bytes, c->mte1_l0a_bytes_per_cycle); *lat = c->mte1_latency_cycles; break;
    case ISA_PATH_L1_TO_L0B: *occ = ceil_div(w->bytes, c->mte1_l0b_bytes_per_cycle); *lat = c->mte1_latency_cycles; break;
    case ISA_PATH_L1_TO_BT: *occ = ceil_div(w->bytes, c->mte1_bt_bytes_per_cycle); *lat = c->mte1_latency_cycles; break;
    case ISA_PATH_L1_TO_FB: *occ = ceil_div(w->bytes, c->mte1_fb_bytes_per_cycle); *lat = c->mte1_latency_cycles; break;
    case ISA_PATH_CUBE:
      *occ = ceil_div(w->m, 16) * ceil_div(w->n, 16) * ceil_div(w->k, cube_k0(e->d, (isa_dtype)w->dtype)) +
             c->cube_head_cycles;
      *lat = c->cube_latency_cycles;
      break;
    case ISA_PATH_VECTOR:
      *occ = ceil_div(w->bytes, c->vector_bytes_per_cycle) * vector_cycles_per_repeat(c, w->vclass);
      *lat = c->vector_latency_cycles;
      break;
    default: break;
  }
}

static bool path_is_gm(isa_path p) {
  return p == ISA_PATH_GM_TO_L1 || p == ISA_PATH_GM_TO_UB || p == ISA_PATH_UB_TO_GM ||
         p == ISA_PATH_L0C_TO_GM;
}

static bool path_writes_gm(isa_path p) { return p == ISA_PATH_UB_TO_GM || p == ISA_PATH_L0C_TO_GM; }

/* ---- GM bandwidth: max-min fair sharing of L2 and HBM by the flows in flight ------------- */

/* Progressive filling: all unfrozen flows rise together; a flow freezes at its own cap, all
 * flows freeze when the L2 port is full, the flows that miss freeze when HBM is full. */
static void recompute_rates(engine *e) {
  size_t n = e->nflows;
  if (n == 0) return;
  double l2_bw = e->d->l2_bytes_per_cycle, hbm_bw = e->d->hbm_bytes_per_cycle;
  bool frozen_buf[64];
  bool *frozen = n <= 64 ? frozen_buf : calloc(n, sizeof *frozen);
  if (!frozen) {
    e->oom = CS_ENOMEM;
    return;
  }
  for (size_t i = 0; i < n; i++) frozen[i] = false, e->flows[i].rate = 0;
  size_t left = n;
  while (left) {
    double used_l2 = 0, used_hbm = 0, miss_sum = 0, min_cap = INFINITY;
    for (size_t i = 0; i < n; i++) {
      eng_flow *f = &e->flows[i];
      if (frozen[i]) {
        used_l2 += f->rate;
        used_hbm += f->rate * f->miss_frac;
      } else {
        miss_sum += f->miss_frac;
        if (f->cap < min_cap) min_cap = f->cap;
      }
    }
    double x_l2 = e->l2_on ? (l2_bw - used_l2) / (double)left : INFINITY;
    double x_hbm = miss_sum > 0 ? (hbm_bw - used_hbm) / miss_sum : INFINITY;
    if (min_cap <= x_l2 && min_cap <= x_hbm) { /* the smallest cap binds first */
      for (size_t i = 0; i < n; i++)
        if (!frozen[i] && e->flows[i].cap <= min_cap)
          frozen[i] = true, e->flows[i].rate = e->flows[i].cap, left--;
    } else if (x_l2 <= x_hbm) { /* the L2 port is full: everyone stops rising */
      for (size_t i = 0; i < n; i++)
        if (!frozen[i]) frozen[i] = true, e->flows[i].rate = fmax(x_l2, 0), left--;
    } else { /* HBM is full: the flows that miss stop rising */
      for (size_t i = 0; i < n; i++)
        if (!frozen[i] && e->flows[i].miss_frac > 0)
          frozen[i] = true, e->flows[i].rate = fmax(x_hbm, 0), left--;
    }
  }
  if (frozen != frozen_buf) free(frozen);
}

/* When the flow would finish at its current rate. */
static uint64_t flow_finish(const engine *e, const eng_flow *f) {
  if (f->remaining <= 1e-6) return e->now;
  if (f->rate <= 0) return NEVER;
  double t = ceil(f->remaining / f->rate - 1e-9);
  return e->now + (t < 1 ? 1 : (uint64_t)t);
}

static void update_gm_counter(engine *e) {
  double total = 0;
  for (size_t i = 0; i < e->nflows; i++) total += e->flows[i].rate;
  if (total != e->gm_rate) {
    if (e->gm_rate == 0 && total > 0) e->gm_busy_since = e->now;
    if (e->gm_rate > 0 && total == 0) e->res->stats.gm_busy_cycles += e->now - e->gm_busy_since;
    e->gm_rate = total;
    if (e->trace) /* bytes/cycle x cycles/us = bytes/us; / 1e3 = GB/s */
      sim_trace_counter(e->trace, "GM bandwidth (GB/s)", e->now, total * e->d->cycles_per_us / 1e3);
  }
}

/* ---- hazards ---------------------------------------------------------------------------- */

const char *sim_hazard_kind_name(sim_hazard_kind k) {
  static const char *const names[] = {"RAW", "WAR", "WAW"};
  return (unsigned)k < 3 ? names[k] : "?";
}

void sim_hazard_describe(const sim_hazard *h, char *out, size_t out_bytes) {
  static const char *const what[] = {"reads bytes that", "writes bytes that", "writes bytes that"};
  static const char *const verb[] = {"writes", "reads", "writes"};
  snprintf(out, out_bytes,
           "%s hazard on core %u: instruction %" PRIu64 " (%s, %s) %s instruction %" PRIu64
           " (%s, %s) still %s: %s [0x%" PRIx64 ", 0x%" PRIx64 "), started at cycle %" PRIu64
           ", the earlier one completes at cycle %" PRIu64 " (missing set_flag/wait_flag or "
           "pipe_barrier)",
           sim_hazard_kind_name(h->kind), h->core, h->later,
           isa_op_info((isa_op)h->later_op)->mnemonic, isa_pipe_name(h->later_pipe), what[h->kind],
           h->earlier, isa_op_info((isa_op)h->earlier_op)->mnemonic, isa_pipe_name(h->earlier_pipe),
           verb[h->kind], isa_mem_name(h->mem), h->lo, h->hi, h->time, h->earlier_done);
}

static void record_hazard(engine *e, eng_core *k, const eng_out *o, uint64_t idx, isa_pipe pipe,
                          const isa_range *later, const isa_range *earlier, uint64_t t) {
  sim_result *res = e->res;
  res->hazard_count++;
  if (res->hazards_kept >= SIM_MAX_HAZARDS_KEPT) return;
  sim_hazard *h = &res->hazards[res->hazards_kept++];
  h->kind = later->write ? (earlier->write ? SIM_HAZARD_WAW : SIM_HAZARD_WAR) : SIM_HAZARD_RAW;
  h->core = k->c->index;
  h->earlier = o->idx;
  h->later = idx;
  h->earlier_op = k->s[o->idx].op;
  h->later_op = k->s[idx].op;
  h->earlier_pipe = (isa_pipe)o->pipe;
  h->later_pipe = pipe;
  h->mem = (isa_mem)later->mem;
  uint64_t lo_a = later->base, hi_a = isa_range_end(later);
  uint64_t lo_b = earlier->base, hi_b = isa_range_end(earlier);
  h->lo = lo_a > lo_b ? lo_a : lo_b;
  h->hi = hi_a < hi_b ? hi_a : hi_b;
  h->time = t;
  h->earlier_done = NEVER; /* a GM transfer's end is not known yet: filled in after the run */
}

/* Instruction idx starts at t: every earlier instruction not yet completed that touches the
 * same bytes, one of the two writing, is a hazard. Instructions of one pipe are ordered by the
 * hardware, except on the vector pipe (Ascend C needs PipeBarrier<PIPE_V> between dependent
 * vector instructions). */
static void check_hazards(engine *e, eng_core *k, uint64_t idx, isa_pipe pipe, const eng_out *me) {
  for (size_t i = 0; i < k->nout; i++) {
    const eng_out *o = &k->out[i];
    if (o->idx >= idx) break;
    if (o->done || (o->pipe == (uint32_t)pipe && pipe != ISA_PIPE_V)) continue;
    bool found = false;
    for (uint32_t a = 0; a < me->nr && !found; a++)
      for (uint32_t b = 0; b < o->nr && !found; b++) {
        const isa_range *ra = &me->r[a], *rb = &o->r[b];
        if (ra->mem != rb->mem || (!ra->write && !rb->write)) continue;
        if (isa_range_overlap(ra, rb)) {
          record_hazard(e, k, o, idx, pipe, ra, rb, e->now);
          found = true;
        }
      }
  }
}

static eng_out *find_out(eng_core *k, uint64_t idx) {
  size_t lo = 0, hi = k->nout; /* entries are in program order */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (k->out[mid].idx < idx) lo = mid + 1;
    else hi = mid;
  }
  return lo < k->nout && k->out[lo].idx == idx ? &k->out[lo] : NULL;
}

static void out_done(eng_core *k, uint64_t idx) {
  eng_out *o = find_out(k, idx);
  if (!o) return;
  o->done = true;
  if (++k->ndone_out * 2 > k->nout && k->ndone_out > 16) { /* compact */
    size_t w = 0;
    for (size_t i = 0; i < k->nout; i++)
      if (!k->out[i].done) {
        if (w != i) k->out[w] = k->out[i];
        w++;
      }
    k->nout = w;
    k->ndone_out = 0;
  }
}

static void out_add(engine *e, eng_core *k, uint64_t idx, isa_pipe pipe) {
  if (k->nout == k->capout) {
    size_t cap = k->capout ? k->capout * 2 : 64;
    eng_out *o = realloc(k->out, cap * sizeof *o);
    if (!o) {
      e->oom = CS_ENOMEM;
      return;
    }
    k->out = o;
    k->capout = cap;
  }
  eng_out *o = &k->out[k->nout++];
  o->idx = idx;
  o->pipe = pipe;
  o->done = false;
  o->nr = (uint32_t)isa_insn_ranges(&k->s[idx], o->r);
  if (o->nr == 0) k->nout--; /* touches no memory: nothing to check */
}

/* ---- execution -------------------------------------------------------------------------- */

static void fire_pending_sets(engine *e, eng_core *k, isa_pipe p);

static void complete(engine *e, eng_core *k, uint64_t idx) {
  eng_insn *st = &k->st[idx];
  const isa_insn *in = &k->s[idx];
  isa_pipe p = isa_insn_pipe(in);
  st->state = ST_DONE;
  k->completed++;
  if (e->s->progress && ++e->completed % SIM_PROGRESS_STEP == 0) {
    sim_progress pr = {.replaying = true, .recorded = e->s->recorded, .replayed = e->completed,
                       .total = e->insns, .cycles = e->now};
    e->s->progress->fn(e->s->progress->ctx, &pr);
  }
  if (st->tracked) {
    eng_pipe *pp = &k->pipes[p];
    for (size_t i = 0; i < pp->nrun; i++)
      if (pp->run_seq[i] == st->seq) {
        pp->run_seq[i] = pp->run_seq[--pp->nrun];
        break;
      }
    st->tracked = 0;
  }
  out_done(k, idx);
  k->stats->op_count[in->op]++;
  k->stats->op_cycles[in->op] += st->end - st->start;
  k->stats->op_busy_cycles[in->op] += st->busy_end - st->start;
  if (p < ISA_PIPE_COUNT) k->stats->pipe_busy_cycles[p] += st->busy_end - st->start;
  if (st->end > k->stats->finish_cycles) k->stats->finish_cycles = st->end;
  if (e->trace || e->observer) {
    isa_work w;
    isa_insn_work(in, &w);
    sim_trace_insn_event te = {k->c->index, p, idx, in, st->dispatch, st->start, st->busy_end,
                               st->end, &w, st->l2_hit, st->l2_miss};
    if (e->trace) sim_trace_insn(e->trace, &te);
    if (e->observer) e->observer->insn(e->observer->arg, &te);
  }
  k->dirty = true;
  if (st->seq != UINT64_MAX && p < ISA_PIPE_COUNT) fire_pending_sets(e, k, p);
}

static eng_flag *flag_of(eng_core *k, const isa_insn *in) {
  const isa_fmt_flag *f = &in->u.flag;
  return &k->flags[f->src_pipe][f->dst_pipe][f->event_id];
}

static void flag_set(engine *e, eng_core *k, const isa_insn *in, isa_pipe pipe) {
  eng_flag *fl = flag_of(k, in);
  fl->count++;
  uint64_t id = ++e->next_flow_id;
  if (fl->nids < FLAG_FIFO) fl->ids[fl->nids++] = id;
  if (e->trace) sim_trace_flow(e->trace, k->c->index, pipe, e->now, id, true);
}

static void flag_wait(engine *e, eng_core *k, const isa_insn *in, isa_pipe pipe) {
  eng_flag *fl = flag_of(k, in);
  fl->count--;
  uint64_t id = 0;
  if (fl->nids) {
    id = fl->ids[0];
    memmove(fl->ids, fl->ids + 1, (fl->nids - 1) * sizeof fl->ids[0]);
    fl->nids--;
  }
  if (e->trace && id) sim_trace_flow(e->trace, k->c->index, pipe, e->now, id, false);
}

/* Zero-time instructions (flags, barriers) complete the moment they start. */
static void finish_now(engine *e, eng_core *k, uint64_t idx) {
  eng_insn *st = &k->st[idx];
  st->start = st->busy_end = st->end = e->now;
  st->seq = UINT64_MAX;
  complete(e, k, idx);
}

static bool grow(engine *e, void **p, size_t *cap, size_t n, size_t elem) {
  if (n < *cap) return true;
  size_t c = *cap ? *cap * 2 : 16;
  void *q = realloc(*p, c * elem);
  if (!q) {
    e->oom = CS_ENOMEM;
    return false;
  }
  *p = q;
  *cap = c;
  return true;
}

/* A set_flag fires once every instruction its pipe started before it has completed; the pipe
 * itself goes on meanwhile (docs/DESIGN.md §6). */
static void fire_pending_sets(engine *e, eng_core *k, isa_pipe p) {
  eng_pipe *pp = &k->pipes[p];
  uint64_t oldest = UINT64_MAX;
  for (size_t i = 0; i < pp->nrun; i++)
    if (pp->run_seq[i] < oldest) oldest = pp->run_seq[i];
  while (pp->npend && pp->pend[0].seq <= oldest) {
    uint64_t idx = pp->pend[0].idx;
    memmove(pp->pend, pp->pend + 1, (pp->npend - 1) * sizeof *pp->pend);
    pp->npend--;
    flag_set(e, k, &k->s[idx], p);
    eng_insn *st = &k->st[idx];
    st->start = st->busy_end = st->end = e->now; /* the trace shows it where it fires */
    st->seq = UINT64_MAX;
    complete(e, k, idx);
  }
}

static void set_flag_start(engine *e, eng_core *k, eng_pipe *pp, isa_pipe p, uint64_t idx) {
  if (!pp->nrun) {
    flag_set(e, k, &k->s[idx], p);
    finish_now(e, k, idx);
    return;
  }
  if (!grow(e, (void **)&pp->pend, &pp->cappend, pp->npend, sizeof *pp->pend)) return;
  pp->pend[pp->npend].idx = idx;
  pp->pend[pp->npend].seq = pp->seq_next;
  pp->npend++;
  k->st[idx].state = ST_RUNNING;
}

static void start_insn(engine *e, eng_core *k, eng_pipe *pp, isa_pipe pipe, uint64_t idx) {
  const isa_insn *in = &k->s[idx];
  eng_insn *st = &k->st[idx];
  uint64_t t = e->now;
  eng_out *me = find_out(k, idx);
  if (me) check_hazards(e, k, idx, pipe, me);
  isa_work w;
  isa_insn_work(in, &w);
  uint64_t occ, lat;
  double cap;
  insn_timing(e, &w, &occ, &lat, &cap);
  st->start = t;
  st->state = ST_RUNNING;
  if (!grow(e, (void **)&pp->run_seq, &pp->caprun, pp->nrun, sizeof *pp->run_seq)) return;
  st->seq = pp->seq_next++;
  st->tracked = 1;
  pp->run_seq[pp->nrun++] = st->seq;
  k->stats->path_bytes[w.path] += w.bytes;
  k->stats->macs += w.macs;
  if (path_is_gm((isa_path)w.path)) {
    sim_l2_result l2r = {0, 0};
    bool write = path_writes_gm((isa_path)w.path);
    if (me && e->l2_on)
      for (uint32_t i = 0; i < me->nr; i++)
        if (me->r[i].mem == ISA_MEM_GM) sim_l2_access(&e->l2, &me->r[i], &l2r);
    st->l2_hit = l2r.hit_bytes;
    st->l2_miss = l2r.miss_bytes;
    uint64_t total = l2r.hit_bytes + l2r.miss_bytes;
    if (!e->l2_on) total = w.bytes;
    sim_stats *ss = &e->res->stats;
    if (write) ss->gm_write_bytes += w.bytes;
    else ss->gm_read_bytes += w.bytes;
    ss->l2_hit_bytes += l2r.hit_bytes;
    ss->l2_miss_bytes += l2r.miss_bytes;
    double miss_frac;
    if (!e->l2_on) miss_frac = 1.0;
    else if (write || total == 0) miss_frac = 0.0;
    else miss_frac = (double)l2r.miss_bytes / (double)total;
    if (!write && e->l2_on) ss->hbm_read_bytes += l2r.miss_bytes;
    if (!e->l2_on && !write) ss->hbm_read_bytes += w.bytes;
    /* a read waits for its slowest line: the HBM latency if any line missed */
    lat += (!e->l2_on || (!write && l2r.miss_bytes)) ? e->cfg->l2_miss_latency_cycles
                                                     : e->cfg->l2_hit_latency_cycles;
    if (e->nflows == e->capflows) {
      size_t c2 = e->capflows ? e->capflows * 2 : 64;
      eng_flow *f = realloc(e->flows, c2 * sizeof *f);
      if (!f) {
        e->oom = CS_ENOMEM;
        return;
      }
      e->flows = f;
      e->capflows = c2;
    }
    eng_flow *f = &e->flows[e->nflows++];
    f->core = k->c->index;
    f->idx = idx;
    f->pipe = pipe;
    f->remaining = (double)w.bytes;
    f->cap = cap;
    f->miss_frac = miss_frac;
    f->rate = 0;
    f->latency = lat;
    e->rates_dirty = true;
    pp->free_t = NEVER; /* the pipe streams until the flow ends */
    return;
  }
  st->busy_end = t + occ;
  st->end = t + occ + lat;
  pp->free_t = st->busy_end;
  heap_push(e, st->end, EV_COMPLETE, k->c->index, idx);
}

/* Tries to start the head of pipe p at the current time. */
static bool try_start_head(engine *e, eng_core *k, isa_pipe p) {
  eng_pipe *pp = &k->pipes[p];
  if (!pp->qlen || e->now < pp->free_t) return false;
  uint64_t idx = pp->q[pp->qhead];
  const isa_insn *in = &k->s[idx];
  switch ((isa_op)in->op) {
    case ISA_OP_SET_FLAG: /* leaves the queue at once; fires when the earlier work completes */
      break;
    case ISA_OP_WAIT_FLAG:
      if (!flag_of(k, in)->count) return false;
      flag_wait(e, k, in, p);
      break;
    case ISA_OP_PIPE_BARRIER:
      if (pp->nrun || pp->npend) return false;
      break;
    default: break;
  }
  pp->qhead = (pp->qhead + 1) % pp->qcap;
  pp->qlen--;
  if (in->op == ISA_OP_SET_FLAG)
    set_flag_start(e, k, pp, p, idx);
  else if (in->op == ISA_OP_WAIT_FLAG || in->op == ISA_OP_PIPE_BARRIER)
    finish_now(e, k, idx);
  else
    start_insn(e, k, pp, p, idx);
  return true;
}

static bool core_drained(const eng_core *k) {
  for (int p = 0; p < ISA_PIPE_COUNT; p++)
    if (k->pipes[p].qlen || k->pipes[p].nrun || k->pipes[p].npend) return false;
  return true;
}

/* Dispatch (the scalar unit): one instruction into its pipe queue per dispatch_cycles, in
 * program order. Instructions of the S pipe itself (flags to and from S, barriers) are executed
 * by the dispatcher: a wait_flag on S or a pipe_barrier(ALL) holds dispatch. */
static bool try_dispatch(engine *e, eng_core *k) {
  if (k->pc >= k->n || k->dispatch_t > e->now) return false;
  uint64_t idx = k->pc;
  const isa_insn *in = &k->s[idx];
  isa_pipe p = isa_insn_pipe(in);
  bool blocked = false;
  if (p == ISA_PIPE_ALL) blocked = !core_drained(k);
  else if (p == ISA_PIPE_S && in->op == ISA_OP_WAIT_FLAG) blocked = !flag_of(k, in)->count;
  else if (p != ISA_PIPE_S) blocked = k->pipes[p].qlen == k->pipes[p].qcap;
  if (blocked) {
    if (k->stall_since == NEVER) k->stall_since = e->now;
    return false;
  }
  if (k->stall_since != NEVER) {
    k->stats->stall_cycles += e->now - k->stall_since;
    k->stall_since = NEVER;
  }
  eng_insn *st = &k->st[idx];
  st->dispatch = e->now;
  k->pc++;
  k->dispatch_t = e->now + e->cfg->scalar_dispatch_cycles;
  if (p == ISA_PIPE_ALL || p == ISA_PIPE_S) {
    if (in->op == ISA_OP_SET_FLAG) flag_set(e, k, in, ISA_PIPE_S);
    else if (in->op == ISA_OP_WAIT_FLAG) flag_wait(e, k, in, ISA_PIPE_S);
    st->start = st->busy_end = st->end = e->now;
    complete(e, k, idx);
    return true;
  }
  eng_pipe *pp = &k->pipes[p];
  pp->q[(pp->qhead + pp->qlen) % pp->qcap] = idx;
  pp->qlen++;
  st->state = ST_QUEUED;
  out_add(e, k, idx, p);
  return true;
}

static void schedule_wake(engine *e, eng_core *k, uint64_t t) {
  if (t == NEVER || t <= e->now) return;
  if (k->wake_t != NEVER && k->wake_t > e->now && k->wake_t <= t) return;
  k->wake_t = t;
  heap_push(e, t, EV_WAKE, k->c->index, 0);
}

static void progress(engine *e, eng_core *k) {
  bool changed;
  do {
    changed = false;
    for (int p = 0; p < ISA_PIPE_COUNT; p++)
      while (try_start_head(e, k, (isa_pipe)p)) changed = true;
    while (try_dispatch(e, k)) changed = true;
  } while (changed && !e->oom);
  uint64_t next = NEVER;
  for (int p = 0; p < ISA_PIPE_COUNT; p++) {
    const eng_pipe *pp = &k->pipes[p];
    if (pp->qlen && pp->free_t > e->now && pp->free_t < next) next = pp->free_t;
  }
  if (k->pc < k->n && k->dispatch_t > e->now && k->dispatch_t < next) next = k->dispatch_t;
  schedule_wake(e, k, next);
}

/* ---- the main loop ---------------------------------------------------------------------- */

static void advance_flows(engine *e, uint64_t t) {
  double dt = (double)(t - e->now);
  for (size_t i = 0; i < e->nflows; i++) e->flows[i].remaining -= e->flows[i].rate * dt;
}

/* Ends the flows finishing at the current time: the pipe is free, results land after the
 * latency. */
static void end_flows(engine *e, uint64_t t) {
  size_t w = 0;
  for (size_t i = 0; i < e->nflows; i++) {
    eng_flow *f = &e->flows[i];
    if (flow_finish(e, f) <= t) {
      eng_core *k = &e->cores[f->core];
      eng_insn *st = &k->st[f->idx];
      st->busy_end = t;
      st->end = t + f->latency;
      k->pipes[f->pipe].free_t = t;
      k->dirty = true;
      heap_push(e, st->end, EV_COMPLETE, f->core, f->idx);
      e->rates_dirty = true;
    } else {
      e->flows[w++] = *f;
    }
  }
  e->nflows = w;
}

/* The first set_flag of wait_flag `w`'s event that dispatch has not reached yet (after `after`),
 * or NEVER. At a deadlock such a set exists only when dispatch itself is stuck before it. */
static uint64_t undispatched_set(const eng_core *k, const isa_insn *w, uint64_t after) {
  for (uint64_t j = k->pc > after + 1 ? k->pc : after + 1; j < k->n; j++) {
    const isa_insn *in = &k->s[j];
    if (in->op == ISA_OP_SET_FLAG && in->u.flag.src_pipe == w->u.flag.src_pipe &&
        in->u.flag.dst_pipe == w->u.flag.dst_pipe && in->u.flag.event_id == w->u.flag.event_id)
      return j;
  }
  return NEVER;
}

static void describe_deadlock(engine *e) {
  sim_result *res = e->res;
  res->deadlocked = true;
  size_t used = 0;
  bool have_fault = false;
  char *m = res->deadlock_msg;
  size_t cap = sizeof res->deadlock_msg;
  used += (size_t)snprintf(m + used, cap - used, "deadlock at cycle %" PRIu64 ":", e->now);
  for (unsigned c = 0; c < e->s->ncores && used < cap; c++) {
    eng_core *k = &e->cores[c];
    if (k->completed == k->n) continue;
    for (int p = 0; p <= ISA_PIPE_COUNT && used < cap; p++) {
      uint64_t idx;
      const char *where;
      if (p == ISA_PIPE_COUNT) {
        if (k->pc >= k->n) continue;
        idx = k->pc;
        where = "dispatch";
      } else {
        if (!k->pipes[p].qlen) continue;
        idx = k->pipes[p].q[k->pipes[p].qhead];
        where = isa_pipe_name((isa_pipe)p);
      }
      const isa_insn *in = &k->s[idx];
      const char *mn = isa_op_info((isa_op)in->op)->mnemonic;
      if (in->op == ISA_OP_WAIT_FLAG) {
        /* the set may exist but sit behind a dispatch that cannot move (a full queue) */
        uint64_t set = undispatched_set(k, in, idx);
        const char *sp = isa_pipe_name((isa_pipe)in->u.flag.src_pipe);
        const char *dp = isa_pipe_name((isa_pipe)in->u.flag.dst_pipe);
        unsigned id = in->u.flag.event_id;
        if (set != NEVER)
          used += (size_t)snprintf(m + used, cap - used,
                                   " core %u %s waits at instruction %" PRIu64 " (wait_flag %s->%s #%u), "
                                   "whose set_flag (instruction %" PRIu64 ") is not dispatched;",
                                   c, where, idx, sp, dp, id, set);
        else
          used += (size_t)snprintf(m + used, cap - used,
                                   " core %u %s waits at instruction %" PRIu64 " (wait_flag %s->%s #%u), "
                                   "a flag no remaining set_flag sets;",
                                   c, where, idx, sp, dp, id);
        if (!have_fault) {
          have_fault = true;
          sim_fault *f = &res->deadlock;
          memset(f, 0, sizeof *f);
          f->core = c;
          f->index = idx;
          f->insn = *in;
          if (set != NEVER)
            isa_fault_set(&f->f, ISA_FAULT_DEADLOCK, "event_id", id, 0,
                          "wait_flag %s->%s #%u is never set: its set_flag, instruction %" PRIu64
                          ", is never dispatched, and %s blocks forever",
                          sp, dp, id, set, where);
          else
            isa_fault_set(&f->f, ISA_FAULT_DEADLOCK, "event_id", id, 0,
                          "wait_flag %s->%s #%u is never set: %s blocks forever", sp, dp, id, where);
        }
      } else {
        isa_pipe bp = isa_insn_pipe(in);
        if (p == ISA_PIPE_COUNT && bp < ISA_PIPE_COUNT && bp != ISA_PIPE_S &&
            k->pipes[bp].qlen == k->pipes[bp].qcap)
          used += (size_t)snprintf(m + used, cap - used,
                                   " core %u %s blocked at instruction %" PRIu64 " (%s): the %s queue "
                                   "is full (depth %zu);",
                                   c, where, idx, mn, isa_pipe_name(bp), k->pipes[bp].qcap);
        else
          used += (size_t)snprintf(m + used, cap - used, " core %u %s blocked at instruction %" PRIu64 " (%s);",
                                   c, where, idx, mn);
      }
    }
  }
  if (!have_fault) {
    memset(&res->deadlock, 0, sizeof res->deadlock);
    isa_fault_set(&res->deadlock.f, ISA_FAULT_DEADLOCK, "", 0, 0, "%s", res->deadlock_msg);
  }
}

/* The instruction queue of each pipe (S has none: the dispatcher runs its instructions). */
static uint64_t queue_depth(const sim_config *c, isa_pipe p) {
  switch (p) {
    case ISA_PIPE_MTE2: return c->mte2_queue_depth;
    case ISA_PIPE_MTE1: return c->mte1_queue_depth;
    case ISA_PIPE_M: return c->cube_queue_depth;
    case ISA_PIPE_FIX: return c->fixpipe_queue_depth;
    case ISA_PIPE_MTE3: return c->mte3_queue_depth;
    case ISA_PIPE_V: return c->vector_queue_depth;
    default: return 1;
  }
}

static void engine_free(engine *e) {
  if (e->cores)
    for (unsigned c = 0; c < e->s->ncores; c++) {
      eng_core *k = &e->cores[c];
      free(k->st);
      free(k->out);
      for (int p = 0; p < ISA_PIPE_COUNT; p++) {
        free(k->pipes[p].q);
        free(k->pipes[p].run_seq);
        free(k->pipes[p].pend);
      }
    }
  free(e->cores);
  free(e->heap);
  free(e->flows);
  if (e->l2_on) sim_l2_free(&e->l2);
}

static cs_status engine_init(engine *e, sim *s, sim_result *res, sim_trace *trace, cs_err *err) {
  memset(e, 0, sizeof *e);
  e->s = s;
  e->cfg = &s->cfg;
  e->d = &s->d;
  e->res = res;
  e->trace = trace;
  e->l2_on = s->cfg.l2_enabled;
  if (e->l2_on) {
    cs_status st = sim_l2_init(&e->l2, s->cfg.l2_bytes, s->cfg.l2_line_bytes, s->cfg.l2_ways, err);
    if (st != CS_OK) {
      e->l2_on = false;
      return st;
    }
  }
  e->cores = calloc(s->ncores, sizeof *e->cores);
  if (!e->cores) return cs_err_set(err, CS_ENOMEM, "no host memory for the replay");
  for (unsigned c = 0; c < s->ncores; c++) {
    eng_core *k = &e->cores[c];
    k->c = &s->cores[c];
    k->s = k->c->stream;
    k->n = k->c->len;
    k->stats = &res->stats.core[c];
    k->stats->instructions = k->n;
    k->st = calloc(k->n ? k->n : 1, sizeof *k->st);
    if (!k->st) return cs_err_set(err, CS_ENOMEM, "no host memory for the replay of core %u", c);
    for (int p = 0; p < ISA_PIPE_COUNT; p++) {
      k->pipes[p].qcap = queue_depth(&s->cfg, (isa_pipe)p);
      k->pipes[p].q = calloc(k->pipes[p].qcap, sizeof *k->pipes[p].q);
      if (!k->pipes[p].q) return cs_err_set(err, CS_ENOMEM, "no host memory for pipe queues");
    }
    k->dispatch_t = s->cfg.scalar_dispatch_cycles;
    k->stats->start_cycles = k->dispatch_t - s->cfg.scalar_dispatch_cycles; /* launch: first dispatch - its cost */
    k->wake_t = NEVER;
    k->stall_since = NEVER;
    k->dirty = true;
  }
  return CS_OK;
}

cs_status sim_run(sim *s, const sim_run_options *opt, sim_result *res, cs_err *err) {
  memset(res, 0, sizeof *res);
  if (sim_host_status(s, err) != CS_OK) return CS_ENOMEM; /* the streams are incomplete */
  res->stats.cores = s->ncores;
  res->stats.core = calloc(s->ncores, sizeof *res->stats.core);
  if (!res->stats.core) return cs_err_set(err, CS_ENOMEM, "no host memory for statistics");
  sim_trace *trace = opt ? opt->trace : NULL;
  engine e;
  cs_status st = engine_init(&e, s, res, trace, err);
  e.observer = opt ? opt->observer : NULL;
  if (st != CS_OK) {
    engine_free(&e);
    return st;
  }
  for (unsigned c = 0; c < s->ncores; c++) e.insns += s->cores[c].len; /* progress, trace size */
  if (trace) sim_trace_begin(trace, s->ncores, e.insns);
  for (;;) {
    /* everything that can happen now */
    bool any = true;
    while (any && !e.oom) {
      any = false;
      for (unsigned c = 0; c < s->ncores; c++)
        if (e.cores[c].dirty) {
          e.cores[c].dirty = false;
          progress(&e, &e.cores[c]);
          any = true;
        }
    }
    if (e.oom) break;
    if (e.rates_dirty) {
      recompute_rates(&e);
      update_gm_counter(&e);
      e.rates_dirty = false;
    }
    /* the next moment something happens */
    uint64_t t = e.nheap ? e.heap[0].time : NEVER;
    for (size_t i = 0; i < e.nflows; i++) {
      uint64_t f = flow_finish(&e, &e.flows[i]);
      if (f < t) t = f;
    }
    if (t == NEVER) break;
    advance_flows(&e, t);
    e.now = t;
    end_flows(&e, t);
    while (e.nheap && e.heap[0].time == t) {
      ev x = heap_pop(&e);
      eng_core *k = &e.cores[x.core];
      if (x.kind == EV_COMPLETE) complete(&e, k, x.idx);
      else {
        if (k->wake_t == t) k->wake_t = NEVER;
        k->dirty = true;
      }
    }
  }
  if (e.oom) {
    engine_free(&e);
    return cs_err_set(err, CS_ENOMEM, "no host memory during the replay");
  }
  uint64_t total = 0, insns = 0, macs = 0;
  bool stuck = false;
  for (unsigned c = 0; c < s->ncores; c++) {
    eng_core *k = &e.cores[c];
    if (k->completed != k->n) stuck = true;
    if (k->stats->finish_cycles > total) total = k->stats->finish_cycles;
    insns += k->n;
    macs += k->stats->macs;
  }
  res->total_cycles = total;
  res->time_us = (double)total / s->d.cycles_per_us;
  res->stats.total_cycles = total;
  res->stats.instructions = insns;
  res->stats.macs = macs;
  res->stats.hazards = res->hazard_count;
  for (unsigned i = 0; i < res->hazards_kept; i++) {
    sim_hazard *h = &res->hazards[i];
    const eng_insn *ei = &e.cores[h->core].st[h->earlier];
    if (ei->state == ST_DONE) h->earlier_done = ei->end;
  }
  if (stuck) describe_deadlock(&e);
  engine_free(&e);
  if (stuck) return cs_err_set(err, CS_EDEADLOCK, "%s", res->deadlock_msg);
  if (res->hazard_count && !(opt && opt->allow_hazards)) {
    char first[512];
    sim_hazard_describe(&res->hazards[0], first, sizeof first);
    return cs_err_set(err, CS_EHAZARD, "%" PRIu64 " data hazard%s; first: %s", res->hazard_count,
                      res->hazard_count == 1 ? "" : "s", first);
  }
  return CS_OK;
}

void sim_result_free(sim_result *res) {
  free(res->stats.core);
  res->stats.core = NULL;
}
