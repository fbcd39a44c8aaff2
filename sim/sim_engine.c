/* sim_engine — the timing replay (docs/DESIGN.md §6, docs/TIMING.md): event-driven, all cores'
 * streams together, fluid sharing of GM bandwidth through the L2, flags, barriers, hazards and
 * deadlock detection. Time advances from event to event, so the cost grows with the number of
 * instructions, never with the number of simulated cycles. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim/sim_gm.h"
#include "sim/sim_hb.h"
#include "sim/sim_internal.h"
#include "sim/sim_l2.h"
#include "sim/sim_trace.h"
#include "sim/sim_xcore.h"
#include "sim/sim_xhb.h"

#define NEVER UINT64_MAX
#define WPOS_NONE UINT_MAX /* engine.wpos: the core has no wake-up */
#define EVENT_IDS 8
#define FLAG_FIFO 64 /* set_flag arrows remembered per flag for the trace */
#define MAX_PARTNERS 63 /* reads of other cores one read shares lines with (more: not counted) */

/* EV_XFLAG: a cross-core flag reaches a core's counter (idx: the flag id); EV_SYNC: a SyncAll
 * round is released (idx: 1 for the AIVs' round). A core's wake-up, when the time it waits for
 * has come, is not an event of the heap but its entry in engine.wake (schedule_wake). */
typedef enum { EV_COMPLETE = 0, EV_FLOW = 1, EV_XFLAG = 2, EV_SYNC = 3 } ev_kind;

#define EV_KIND_SHIFT 58 /* ev.key: the kind above the push's sequence number */

typedef struct ev {
  uint64_t time;
  uint64_t key; /* kind << EV_KIND_SHIFT | sequence number: the order among events of one time */
  uint64_t idx;
  uint32_t core;
} ev;

static inline ev_kind ev_kind_of(const ev *x) { return (ev_kind)(x->key >> EV_KIND_SHIFT); }

typedef enum { ST_NEW, ST_QUEUED, ST_RUNNING, ST_DONE } insn_state;

/* Per-instruction replay record. */
typedef struct eng_insn {
  uint64_t scalar_start, scalar_end; /* the scalar unit's busy span issuing it (before dispatch) */
  uint64_t dispatch, start, busy_end, end;
  uint64_t l2_hit, l2_miss;
  uint64_t seq;    /* order of starting in its pipe */
  uint64_t uf_dep; /* UnitFlag partner: a fixpipe's mmad, an mmad's earlier fixpipe (NEVER: none) */
  uint8_t state;
  uint8_t tracked; /* counted among its pipe's running instructions */
  uint8_t pipe;    /* isa_insn_pipe of the instruction, from its dispatch */
  uint8_t has_out; /* it has an eng_out (out_add kept its ranges): find_out finds it */
} eng_insn;

size_t sim_engine_insn_bytes(void) { return sizeof(eng_insn); }

#define WINDOW_START 1024 /* instructions of replay state per core at first (a power of two) */

size_t sim_engine_window_insns(void) { return WINDOW_START; }

/* A queued instruction: its index, and its opcode and a wait_flag's flag, so that a blocked head
 * is checked again and again without reading the stream (one host cache line for all three). */
typedef struct eng_queued {
  uint64_t idx;
  struct eng_flag *flag;
  uint32_t op;
} eng_queued;

typedef struct eng_pipe {
  eng_queued *q; /* ring of queued instructions */
  size_t qhead, qlen, qcap;
  uint64_t free_t;  /* earliest start of the next instruction (previous start + occupancy) */
  uint64_t idle_from; /* end of the last occupancy, NEVER before the first (the cube's restart) */
  uint64_t seq_next; /* sequence number of the next instruction to start */
  uint64_t *run_seq; /* sequence numbers of the started, uncompleted instructions */
  size_t nrun, caprun;
  struct pending_set {
    uint64_t idx; /* the set_flag */
    uint64_t seq; /* fires when no instruction started before this sequence number is running */
  } *pend;
  size_t npend, cappend;
} eng_pipe;

#define OUT_INLINE 4 /* ranges an eng_out holds itself (more: on the heap) */

/* An instruction dispatched and not completed, with what it touches (hazard detection). */
typedef struct eng_out {
  uint64_t idx;
  uint32_t pipe;
  uint32_t nr;
  bool done;
  uint8_t touched, written; /* bit m: it reads or writes memory m / it writes memory m */
  isa_range *more;          /* nr > OUT_INLINE: all its ranges (owned) */
  isa_range r[OUT_INLINE];
} eng_out;

_Static_assert(ISA_MEM_COUNT <= 8, "eng_out's memory masks have a bit per memory");

static const isa_range *out_ranges(const eng_out *o) { return o->nr > OUT_INLINE ? o->more : o->r; }

typedef struct eng_flag {
  uint32_t count;
  uint32_t nids; /* with a trace: the arrow ids of its pending sets in the core's flag_ids */
} eng_flag;

#define FLAGS_PER_CORE (ISA_PIPE_COUNT * ISA_PIPE_COUNT * EVENT_IDS)

/* An instruction that has left the window but may still be named as a UnitFlag partner (see
 * window_make_room): its final replay state and the instruction. */
typedef struct eng_kept {
  uint64_t idx;
  eng_insn st;
  isa_insn in;
} eng_kept;

typedef struct eng_core {
  /* head_t[p]: when pipe p's queued head may start, NEVER with nothing queued (pipes[p].qlen ?
   * pipes[p].free_t : NEVER, kept by head_update): what progress reads of every pipe, together */
  uint64_t head_t[ISA_PIPE_COUNT];
  sim_core *c;
  const sim_config *cfg; /* the chip's, or for an AIV the chip's with the aiv section's values */
  size_t n, pc, completed;
  /* The instructions: the stream is compact (sim_stream.h); those of the window [st_lo, pc) are
   * decoded in ins (the same ring as st), read by cur. The next to dispatch (pc) is at nxt_at:
   * its own slot of ins when that is free (no copy at dispatch), else nxt. */
  isa_insn *ins;
  isa_insn nxt;
  isa_insn *nxt_at;
  isa_pipe nxt_pipe; /* its pipe (a dispatch blocked on a full queue is tried again and again) */
  sim_stream_cursor cur;
  /* The replay state of the instructions [st_lo, pc), a ring indexed by idx & st_mask: those
   * not completed and those a later one may still read (UnitFlag partners), so that the
   * replay's memory follows the instructions in flight, not the stream's length. */
  eng_insn *st;
  uint64_t st_mask, st_lo;
  uint64_t done_lo; /* every instruction before it has completed */
  /* tight: the window starts at done_lo, and the completed instructions below it the UnitFlag
   * tracker or an instruction in flight may still name are kept aside (kept, in index order);
   * else the window itself reaches back to the oldest the tracker may name (the check across
   * cores reads the window's times after the replay, see xhb_hazard) */
  bool tight;
  eng_kept *kept;
  size_t nkept, capkept;
  eng_pipe pipes[ISA_PIPE_COUNT];
  uint64_t dispatch_t; /* when the next instruction may enter its queue */
  uint64_t scalar_free; /* the scalar unit finished issuing the last instruction */
  eng_flag flags[ISA_PIPE_COUNT][ISA_PIPE_COUNT][EVENT_IDS];
  uint64_t *flag_ids; /* with a trace: FLAG_FIFO arrow ids per flag, oldest first */
  eng_out *out;
  size_t nout, capout, ndone_out;
  sim_core_stats *stats;
  /* UnitFlag (docs/TIMING.md): the partners found so far in dispatch order, and a fixpipe
   * started before its mmad */
  sim_uf_track uf;
  uint64_t uf_waiting_fix;
  uint64_t uf_last_fix; /* the last unit-flag fixpipe started, with an mmad (the hazard check) */
} eng_core;

/* The replay state of instruction idx, in [st_lo, pc). */
static inline eng_insn *eng_st(const eng_core *k, uint64_t idx) { return &k->st[idx & k->st_mask]; }

/* Instruction idx, in [st_lo, pc] (pc: the next to dispatch). */
static inline const isa_insn *eng_in(const eng_core *k, uint64_t idx) {
  return idx == k->pc ? k->nxt_at : &k->ins[idx & k->st_mask];
}

/* The kept record of instruction idx (below st_lo), or NULL. */
static const eng_kept *eng_kept_of(const eng_core *k, uint64_t idx) {
  size_t lo = 0, hi = k->nkept;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (k->kept[mid].idx < idx) lo = mid + 1;
    else hi = mid;
  }
  return lo < k->nkept && k->kept[lo].idx == idx ? &k->kept[lo] : NULL;
}

static const eng_insn eng_gone = {.state = ST_DONE, .uf_dep = UINT64_MAX};

/* The replay state of a UnitFlag partner idx: in the window, or kept aside once it has left. */
static inline const eng_insn *eng_st_uf(const eng_core *k, uint64_t idx) {
  if (idx >= k->st_lo) return eng_st(k, idx);
  const eng_kept *x = eng_kept_of(k, idx);
  return x ? &x->st : &eng_gone; /* not reached: window_make_room keeps every partner named */
}

/* The instruction of a UnitFlag partner idx (dispatched). */
static inline const isa_insn *eng_in_uf(const eng_core *k, uint64_t idx) {
  if (idx >= k->st_lo) return eng_in(k, idx);
  const eng_kept *x = eng_kept_of(k, idx);
  return x ? &x->in : eng_in(k, k->st_lo);
}

/* The stream index of an instruction eng_in gave. */
static uint64_t eng_idx_of(const eng_core *k, const isa_insn *in) {
  if (in == &k->nxt) return k->pc;
  uint64_t slot = (uint64_t)(in - k->ins);
  return k->st_lo + ((slot - k->st_lo) & k->st_mask);
}

/* The replay state of any instruction: NULL once it has left the window (it completed) and
 * before it was dispatched (*done says which). */
static const eng_insn *eng_st_any(const eng_core *k, uint64_t idx, bool *done) {
  *done = idx < k->st_lo;
  if (idx < k->st_lo || idx >= k->pc) return NULL;
  const eng_insn *x = eng_st(k, idx);
  *done = x->state == ST_DONE;
  return x;
}

/* A GM transfer streaming under the fluid bandwidth model (docs/TIMING.md, "GM transfers"). */
typedef struct eng_flow {
  double remaining;    /* bytes left at cycle upd */
  uint64_t upd;        /* the last change of the rates since it began (or its beginning) */
  double rate;         /* bytes/cycle since upd */
  uint64_t finish;     /* flow_finish at upd: while its rate holds, when it ends */
  bool ending;         /* step_flows: finishes now */
  bool write;
  isa_pipe pipe;
  unsigned core;
  uint32_t sharers;    /* 1 + its partners: reads of other cores streaming the same bytes with it */
  uint32_t cappartner;
  uint64_t *partner;   /* ids of its partners (sharers - 1 of them, cappartner room) */
  uint64_t idx;
  double own_cap;      /* bytes/cycle its engine streams it at alone (sim_xfer_rate) */
  double hbm_per_byte; /* HBM bytes (line fills, write-backs) per byte transferred */
  uint64_t latency;    /* cycles from the last byte to completion */
  uint64_t lo, hi;     /* GM bytes spanned */
  double request_bytes; /* its bursts' mean length, at most a line: the L2's requests */
  double miss_frac;    /* the fraction of its bytes HBM serves (L2 misses; all without the L2) */
  uint64_t id;         /* unique among the run's flows */
  double bytes;        /* all its bytes */
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
  uint64_t seq, now, next_flow_id, next_xfer_id;
  eng_flow *flows;
  sim_flow_share *shares; /* scratch of recompute_rates, capflows entries */
  size_t nflows, capflows;
  uint64_t flow_next; /* the earliest finish of the flows (NEVER: none), as finish */
  bool rates_dirty;
  uint64_t *dirty; /* bit c: core c may make progress now (ncores bits) */
  size_t dirty_words;
  /* wake[c]: when core c's next instruction may dispatch or a pipe's head may start (NEVER:
   * nothing waits for time alone). The cores with one are a binary heap by it (wheap, nwheap;
   * wpos[c] is core c's place in it, WPOS_NONE when it has none): a wake-up only moves earlier
   * until it comes, and the earliest leave together. */
  uint64_t *wake;
  unsigned *wheap, *wpos;
  size_t nwheap;
  double gm_rate; /* sum of flow rates, bytes/cycle */
  uint64_t gm_busy_since;
  bool l2_on;
  bool overlaps; /* the second opinion on hazards runs (check_hazards); else only the GM
                  * transfers' ranges are kept, for their flows */
  bool streamed; /* the streams are pipes, read once (stream_run): nothing may be read again */
  uint64_t gm_queueing; /* cycles every GM transfer's data lands later: l2.queue_cycles per other running core */
  sim_l2 l2;
  cs_status oom;
  sim_config aiv_cfg; /* what an AIV's pipes read: the chip's, with the aiv section's values */
  sim_xcore xc;       /* cross-core flag counters and SyncAll rounds */
  sim_xhb_event *xlog; /* what the cross-core instructions did, in order (the check across cores) */
  size_t nxlog, capxlog;
  uint64_t *xids;     /* [core][flag id][SIM_XFLAG_MAX_PENDING + 1]: trace arrows of the sets on their way */
  uint8_t *nxids;     /* [core][flag id] */
} engine;

static inline void head_update(eng_core *k, isa_pipe p) {
  const eng_pipe *pp = &k->pipes[p];
  k->head_t[p] = pp->qlen ? pp->free_t : NEVER;
}

static void mark_dirty(engine *e, const eng_core *k) {
  unsigned c = k->c->index;
  e->dirty[c / 64] |= UINT64_C(1) << (c % 64);
}

static bool grow(struct engine *e, void **p, size_t *cap, size_t n, size_t elem);

/* ---- event heap ------------------------------------------------------------------------- */

static bool ev_before(const ev *a, const ev *b) {
  if (a->time != b->time) return a->time < b->time;
  return a->key < b->key; /* completions, flows, flags, SyncAll rounds, then in the order pushed */
}

/* The events are a 4-ary heap (half the levels of a binary one, its children side by side in
 * host memory); (time, key) orders them totally, so they leave in one order whatever the heap's
 * shape. */
#define HEAP_ARITY 4

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
  ev x = {time, (uint64_t)kind << EV_KIND_SHIFT | e->seq++, idx, core};
  while (i > 0) {
    size_t p = (i - 1) / HEAP_ARITY;
    if (!ev_before(&x, &e->heap[p])) break;
    e->heap[i] = e->heap[p];
    i = p;
  }
  e->heap[i] = x;
}

static ev heap_pop(engine *e) {
  ev top = e->heap[0];
  ev last = e->heap[--e->nheap];
  size_t i = 0, n = e->nheap;
  for (;;) {
    size_t first = HEAP_ARITY * i + 1, m = i;
    const ev *best = &last;
    for (size_t c = first; c < first + HEAP_ARITY && c < n; c++)
      if (ev_before(&e->heap[c], best)) m = c, best = &e->heap[c];
    if (m == i) break;
    e->heap[i] = e->heap[m];
    i = m;
  }
  if (n) e->heap[i] = last;
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

#define UB_BLOCK 32u   /* bytes of a UB block, a bank row */
#define UB_REPEAT 256u /* bytes of a vector repeat of the widest operand */

/* The cycles of one repeat r under the UB bank rule: the most 32-byte blocks the repeat reads
 * from one bank group, or writes to one (a beat each), at least floor_beats (the ALU's cycles
 * for a repeat). */
static uint64_t repeat_beats(const isa_work *w, uint64_t r, uint32_t groups, uint64_t floor_beats) {
  uint32_t rd[64] = {0}, wr[64] = {0};
  uint64_t most = floor_beats;
  for (uint32_t k = 0; k < w->vops; k++) {
    const struct isa_work_vop *o = &w->vop[k];
    bool again = false; /* a read of the very blocks another operand reads is one read */
    for (uint32_t j = 0; j < k && !again; j++)
      again = !o->write && !w->vop[j].write && w->vop[j].base == o->base && w->vop[j].blk_bytes == o->blk_bytes &&
              w->vop[j].rep_bytes == o->rep_bytes && w->vop[j].blocks == o->blocks;
    if (again) continue;
    uint32_t *cnt = o->write ? wr : rd;
    for (uint32_t b = 0; b < o->blocks; b++) {
      uint32_t g = (uint32_t)(((o->base + r * o->rep_bytes + b * o->blk_bytes) / UB_BLOCK) % groups);
      if (++cnt[g] > most) most = cnt[g];
    }
  }
  return most;
}

/* Beats of all the repeats of a vector instruction (docs/TIMING.md, "UB banks"). The groups
 * a repeat meets repeat every `groups` repeats when every stride is a whole number of blocks:
 * one period is counted and multiplied; otherwise the first period's mean stands for all. */
static uint64_t vector_beats(const isa_work *w, uint64_t groups, uint64_t floor_beats) {
  if (!w->repeats) return 0;
  if (!groups || groups > 64 || !w->vops) return w->repeats * floor_beats;
  uint64_t period = w->repeats < groups ? w->repeats : groups, sum = 0, full = 0;
  bool whole = true;
  for (uint32_t k = 0; k < w->vops; k++)
    if (w->vop[k].rep_bytes % UB_BLOCK || w->vop[k].blk_bytes % UB_BLOCK) whole = false;
  uint64_t rest = w->repeats % period, per[64];
  for (uint64_t r = 0; r < period; r++) sum += per[r] = repeat_beats(w, r, (uint32_t)groups, floor_beats);
  if (!whole) return (sum * w->repeats + period - 1) / period;
  full = (w->repeats / period) * sum;
  for (uint64_t r = 0; r < rest; r++) full += per[r];
  return full;
}

/* Occupancy and latency of an on-chip instruction (GM transfers are flows: flow_begin). */
static void insn_timing(const engine *e, const sim_config *c, const isa_work *w, uint64_t *occ, uint64_t *lat) {
  *occ = 0;
  *lat = 0;
  switch ((isa_path)w->path) {
    case ISA_PATH_L0C_TO_L1:
      *occ = ceil_div(w->elements, c->fixpipe_elements_per_cycle);
      *lat = c->fixpipe_latency_cycles;
      break;
    case ISA_PATH_L1_TO_L0A: *occ = c->mte1_insn_cycles + ceil_div(w->bytes, c->mte1_l0a_bytes_per_cycle); *lat = c->mte1_latency_cycles; break;
    case ISA_PATH_L1_TO_L0B: *occ = c->mte1_insn_cycles + ceil_div(w->bytes, c->mte1_l0b_bytes_per_cycle); *lat = c->mte1_latency_cycles; break;
    case ISA_PATH_L1_TO_BT: *occ = c->mte1_insn_cycles + ceil_div(w->bytes, c->mte1_bt_bytes_per_cycle); *lat = c->mte1_latency_cycles; break;
    case ISA_PATH_L1_TO_FB: *occ = c->mte1_insn_cycles + ceil_div(w->bytes, c->mte1_fb_bytes_per_cycle); *lat = c->mte1_latency_cycles; break;
    case ISA_PATH_CUBE:
      *occ = ceil_div(w->m, 16) * ceil_div(w->n, 16) * ceil_div(w->k, cube_k0(e->d, (isa_dtype)w->dtype)) +
             c->cube_head_cycles;
      *lat = c->cube_latency_cycles;
      break;
    case ISA_PATH_VECTOR:
      if (w->vops) {
        /* a repeat takes the ALU's cycles for its 256 bytes or its UB beats, the longer */
        uint64_t alu = ceil_div(UB_REPEAT, c->vector_bytes_per_cycle) * vector_cycles_per_repeat(c, w->vclass);
        *occ = c->vector_insn_cycles + vector_beats(w, c->vector_ub_bank_groups, alu);
      } else {
        *occ = c->vector_insn_cycles +
               ceil_div(w->bytes, c->vector_bytes_per_cycle) * vector_cycles_per_repeat(c, w->vclass);
      }
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

/* The bytes the flow has left now: a flow's rate changes only with the rates of all
 * (recompute_rates), so between two changes it streams on at one rate and nothing of it need be
 * touched from event to event. */
static double flow_left(const engine *e, const eng_flow *f) {
  return f->remaining - f->rate * (double)(e->now - f->upd);
}

/* When the flow would finish at its current rate, from its bytes left at e->now (f->upd). */
static uint64_t flow_finish(const engine *e, const eng_flow *f) {
  if (f->remaining <= 1e-6) return e->now;
  if (f->rate <= 0) return NEVER;
  double t = ceil(f->remaining / f->rate - 1e-9);
  return e->now + (t < 1 ? 1 : (uint64_t)t);
}

/* The rates of the flows in flight: max-min fair shares of the L2 port and HBM (sim_gm.h), each
 * flow capped by its engine and, while reads of other cores stream the same bytes, by its share
 * of what HBM serves to one set of lines (l2.same_line_gb_per_s) for the part that misses and of
 * the L2's requests for them (l2.same_line_request_cycles) for the part that hits. */
static void recompute_rates(engine *e) {
  for (size_t i = 0; i < e->nflows; i++) {
    const eng_flow *f = &e->flows[i];
    double cap = f->own_cap;
    /* the bytes HBM serves to a set of lines several cores ask for at once share one stream;
     * what the L2 holds is served to each at its own rate */
    if (f->sharers > 1) {
      /* per byte: its share of the one stream HBM fills the lines with, and of the L2's service
       * of the requests for the lines it holds, one request of each reader after the other */
      double per_byte = f->miss_frac / e->d->same_line_bytes_per_cycle +
                        (1.0 - f->miss_frac) * e->cfg->l2_same_line_request_cycles / f->request_bytes;
      double same = per_byte > 0 ? 1.0 / ((double)f->sharers * per_byte) : cap;
      if (same < cap) cap = same;
    }
    e->shares[i] = (sim_flow_share){cap, f->hbm_per_byte, 0};
  }
  if (!sim_share_rates(e->shares, e->nflows, e->l2_on, e->d->l2_bytes_per_cycle, e->d->hbm_sustained_bytes_per_cycle)) {
    e->oom = CS_ENOMEM;
    return;
  }
  double hbm = 0, l2 = 0;
  sim_audit *a = &e->res->audit;
  uint64_t next = NEVER;
  for (size_t i = 0; i < e->nflows; i++) {
    eng_flow *f = &e->flows[i];
    f->remaining = flow_left(e, f); /* streamed at its old rate until now */
    f->upd = e->now;
    f->rate = e->shares[i].rate;
    f->finish = flow_finish(e, f);
    if (f->finish < next) next = f->finish;
    hbm += f->rate * f->hbm_per_byte;
    l2 += f->rate;
    if (f->own_cap > 0 && f->rate / f->own_cap > a->flow_peak_util) a->flow_peak_util = f->rate / f->own_cap;
  }
  e->flow_next = next;
  if (hbm / e->d->hbm_sustained_bytes_per_cycle > a->hbm_peak_util) a->hbm_peak_util = hbm / e->d->hbm_sustained_bytes_per_cycle;
  if (e->l2_on && l2 / e->d->l2_bytes_per_cycle > a->l2_peak_util) a->l2_peak_util = l2 / e->d->l2_bytes_per_cycle;
  if (l2 > a->gm_peak_bytes_per_cycle) a->gm_peak_bytes_per_cycle = l2;
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

/* "instruction 8 (mmad, M)", or with its program line "instruction 8 (mmad, M, line 13)". */
static const char *insn_name(char *buf, size_t n, uint64_t idx, uint32_t op, isa_pipe pipe, unsigned line) {
  const char *mn = isa_op_info((isa_op)op)->mnemonic;
  if (line) snprintf(buf, n, "instruction %" PRIu64 " (%s, %s, line %u)", idx, mn, isa_pipe_name(pipe), line);
  else snprintf(buf, n, "instruction %" PRIu64 " (%s, %s)", idx, mn, isa_pipe_name(pipe));
  return buf;
}

void sim_hazard_describe_lines(const sim_hazard *h, unsigned later_line, unsigned earlier_line, char *out,
                               size_t out_bytes) {
  static const char *const what[] = {"reads bytes that", "writes bytes that", "writes bytes that"};
  static const char *const verb[] = {"writes", "reads", "writes"};
  char later[96], earlier[96];
  int n;
  if (h->cross_core)
    n = snprintf(out, out_bytes,
                 "%s hazard across cores: %s %s %s %s %s %s, and no cross-core flag orders them: GM [0x%" PRIx64
                 ", 0x%" PRIx64 ") (missing cross_set_flag/cross_wait_flag or sync_all)",
                 sim_hazard_kind_name(h->kind), h->core_name,
                 insn_name(later, sizeof later, h->later, h->later_op, h->later_pipe, later_line), what[h->kind],
                 h->earlier_core_name,
                 insn_name(earlier, sizeof earlier, h->earlier, h->earlier_op, h->earlier_pipe, earlier_line),
                 verb[h->kind], h->lo, h->hi);
  else
    n = snprintf(out, out_bytes,
                   "%s hazard on core %u: %s %s %s %s, and no flag or barrier orders them: %s [0x%" PRIx64
                   ", 0x%" PRIx64 ") (missing set_flag/wait_flag or pipe_barrier)",
                   sim_hazard_kind_name(h->kind), h->core,
                   insn_name(later, sizeof later, h->later, h->later_op, h->later_pipe, later_line), what[h->kind],
                   insn_name(earlier, sizeof earlier, h->earlier, h->earlier_op, h->earlier_pipe, earlier_line),
                   verb[h->kind], isa_mem_name(h->mem), h->lo, h->hi);
  if (n < 0 || (size_t)n >= out_bytes || h->time == NEVER) return;
  out += n;
  out_bytes -= (size_t)n;
  if (h->earlier_done == NEVER)
    snprintf(out, out_bytes, "; in this run the later started at cycle %" PRIu64 " and the earlier never completed",
             h->time);
  else if (h->earlier_done > h->time)
    snprintf(out, out_bytes,
             "; in this run the later started at cycle %" PRIu64 ", the earlier completed at cycle %" PRIu64,
             h->time, h->earlier_done);
  else /* the timing happened to order them: another configuration may not */
    snprintf(out, out_bytes,
             "; in this run the timing alone ordered them (the earlier completed at cycle %" PRIu64
             ", the later started at cycle %" PRIu64 ")",
             h->earlier_done, h->time);
}

void sim_hazard_describe(const sim_hazard *h, char *out, size_t out_bytes) {
  sim_hazard_describe_lines(h, 0, 0, out, out_bytes);
}

/* A hazard of the happens-before check (sim_hb.h) on core `core`: kept with its instructions; the
 * cycles are filled in after the replay. */
typedef struct hb_sink_arg {
  sim_result *res;
  const sim_stream *s;
  unsigned core;
} hb_sink_arg;

static void hb_hazard(void *arg, const sim_hb_hazard *z) {
  const hb_sink_arg *a = arg;
  sim_result *res = a->res;
  res->hazard_count++;
  if (res->hazards_kept >= SIM_MAX_HAZARDS_KEPT) return;
  sim_hazard *h = &res->hazards[res->hazards_kept++];
  memset(h, 0, sizeof *h);
  h->kind = z->kind;
  h->core = h->earlier_core = a->core;
  h->earlier = z->earlier;
  h->later = z->later;
  isa_insn ei, li;
  sim_stream_get(a->s, z->earlier, &ei);
  sim_stream_get(a->s, z->later, &li);
  h->earlier_op = ei.op;
  h->later_op = li.op;
  h->earlier_pipe = isa_insn_pipe(&ei);
  h->later_pipe = isa_insn_pipe(&li);
  h->mem = z->mem;
  h->lo = z->lo;
  h->hi = z->hi;
  h->time = h->earlier_done = NEVER;
}

/* Every core's stream through the happens-before check, before the replay. */
static cs_status check_happens_before(sim *s, sim_result *res, cs_err *err) {
  for (unsigned c = 0; c < s->ncores; c++) {
    hb_sink_arg a = {res, &s->cores[c].rec, c};
    sim_hb_sink sink = {hb_hazard, &a, NULL};
    cs_status st = sim_hb_check_stream(&s->cores[c].rec, &s->cores[c].reach, &sink, err);
    if (st != CS_OK) return st;
  }
  return CS_OK;
}

/* A hazard across cores (sim_xhb.h): kept like the others, with both cores and this run's cycles. */
static void xhb_hazard(void *arg, const sim_xhb_hazard *z) {
  engine *e = arg;
  sim_result *res = e->res;
  res->hazard_count++;
  if (res->hazards_kept >= SIM_MAX_HAZARDS_KEPT) return;
  sim_hazard *h = &res->hazards[res->hazards_kept++];
  memset(h, 0, sizeof *h);
  isa_insn ia, ib;
  sim_stream_get(&e->s->cores[z->core_a].rec, z->a, &ia);
  sim_stream_get(&e->s->cores[z->core_b].rec, z->b, &ib);
  const isa_insn *a = &ia, *b = &ib;
  h->kind = z->kind;
  h->cross_core = true;
  h->core = z->core_b;
  h->earlier_core = z->core_a;
  sim_core_name(e->s, z->core_b, h->core_name, sizeof h->core_name);
  sim_core_name(e->s, z->core_a, h->earlier_core_name, sizeof h->earlier_core_name);
  h->earlier = z->a;
  h->later = z->b;
  h->earlier_op = a->op;
  h->later_op = b->op;
  h->earlier_pipe = isa_insn_pipe(a);
  h->later_pipe = isa_insn_pipe(b);
  h->mem = ISA_MEM_GM;
  h->lo = z->lo;
  h->hi = z->hi;
  bool done;
  const eng_insn *ei = eng_st_any(&e->cores[z->core_a], z->a, &done);
  const eng_insn *li = eng_st_any(&e->cores[z->core_b], z->b, &done);
  /* an instruction that has left the replay's window took its times with it */
  h->earlier_done = ei && ei->state == ST_DONE ? ei->end : NEVER;
  h->time = li && li->state >= ST_RUNNING ? li->start : NEVER;
}

static cs_status check_across_cores(engine *e, cs_err *err) {
  sim_xhb_sink sink = {xhb_hazard, e};
  return sim_xhb_check(e->s, e->xlog, e->nxlog, &sink, err);
}

/* The second opinion (docs/TIMING.md, "Hazards"): instruction idx starts at the current time;
 * every earlier instruction not yet completed that touches the same bytes, one of the two
 * writing, is a pair this run's timing overlapped (counted in timing_hazard_count; each is also a
 * happens-before hazard, or one of the two checks is wrong). Instructions of one pipe are ordered
 * by the hardware, except on the vector pipe; a UnitFlag instruction is ordered after its partner
 * and what the partner's pipe ran before it (a fixpipe holding FIX while it waits for its mmad
 * starts before it reads anything). */
static void check_hazards(engine *e, eng_core *k, uint64_t idx, isa_pipe pipe, const eng_out *me) {
  uint64_t uf = eng_st(k, idx)->uf_dep;
  uint32_t uf_pipe = uf == NEVER ? ISA_PIPE_COUNT : eng_st_uf(k, uf)->pipe;
  const isa_range *mine = out_ranges(me);
  for (size_t i = 0; i < k->nout; i++) {
    const eng_out *o = &k->out[i];
    if (o->idx >= idx) break;
    if (o->done || (o->pipe == (uint32_t)pipe && pipe != ISA_PIPE_V)) continue;
    if (!((me->written & o->touched) | (me->touched & o->written))) continue; /* no memory both touch, one writing */
    if (o->pipe == uf_pipe && o->idx <= uf) continue;
    const isa_range *theirs = out_ranges(o);
    bool found = false;
    for (uint32_t a = 0; a < me->nr && !found; a++)
      for (uint32_t b = 0; b < o->nr && !found; b++) {
        const isa_range *ra = &mine[a], *rb = &theirs[b];
        if (ra->mem != rb->mem || (!ra->write && !rb->write)) continue;
        found = isa_range_overlap(ra, rb);
      }
    if (found) e->res->timing_hazard_count++;
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
  if (!o || o->done) return;
  o->done = true;
  free(o->more);
  o->more = NULL;
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
  /* without the second opinion, only what a flow reads: the ranges of the pipes that reach GM */
  if (!e->overlaps && pipe != ISA_PIPE_MTE2 && pipe != ISA_PIPE_MTE3 && pipe != ISA_PIPE_FIX) return;
  isa_range r[ISA_MAX_RANGES];
  size_t nr = isa_insn_ranges(eng_in(k, idx), r);
  if (nr == 0) return; /* touches no memory: nothing to check */
  if (k->nout == k->capout && !grow(e, (void **)&k->out, &k->capout, k->nout, sizeof *k->out)) return;
  eng_out *o = &k->out[k->nout];
  o->idx = idx;
  o->pipe = pipe;
  o->done = false;
  o->nr = (uint32_t)nr;
  o->touched = o->written = 0;
  o->more = NULL;
  if (nr > OUT_INLINE && !(o->more = malloc(nr * sizeof *o->more))) {
    e->oom = CS_ENOMEM;
    return;
  }
  memcpy(nr > OUT_INLINE ? o->more : o->r, r, nr * sizeof *r);
  for (size_t i = 0; i < nr; i++) {
    o->touched |= (uint8_t)(1u << r[i].mem);
    if (r[i].write) o->written |= (uint8_t)(1u << r[i].mem);
  }
  k->nout++;
  eng_st(k, idx)->has_out = 1;
}

/* ---- execution -------------------------------------------------------------------------- */

static void fire_pending_sets(engine *e, eng_core *k, isa_pipe p);

/* Whether an instruction of pipe p completing may let core k go on: the only waits a completion
 * ends are a pipe_barrier at its pipe's head and a barrier over all pipes (or a SyncAll) next to
 * dispatch; the set_flags it releases mark the core themselves (flag_set), and every other wait
 * ends with an event or a time of its own. */
static bool completion_releases(const eng_core *k, isa_pipe p) {
  if (p < ISA_PIPE_COUNT) {
    const eng_pipe *pp = &k->pipes[p];
    if (pp->qlen && pp->q[pp->qhead].op == ISA_OP_PIPE_BARRIER) return true;
  }
  return k->pc < k->n && k->nxt_pipe == ISA_PIPE_ALL;
}

static void complete(engine *e, eng_core *k, uint64_t idx) {
  eng_insn *st = eng_st(k, idx);
  const isa_insn *in = eng_in(k, idx);
  isa_pipe p = (isa_pipe)st->pipe;
  st->state = ST_DONE;
  k->completed++;
  while (k->done_lo < k->pc && eng_st(k, k->done_lo)->state == ST_DONE) k->done_lo++;
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
  if (st->has_out) out_done(k, idx);
  k->stats->op_count[in->op]++;
  k->stats->op_cycles[in->op] += st->end - st->start;
  k->stats->op_busy_cycles[in->op] += st->busy_end - st->start;
  if (p < ISA_PIPE_COUNT) k->stats->pipe_busy_cycles[p] += st->busy_end - st->start;
  if (st->end > k->stats->finish_cycles) k->stats->finish_cycles = st->end;
  if (e->trace || e->observer) {
    isa_work w;
    isa_insn_work(in, &w);
    sim_trace_insn_event te = {k->c->index, p, idx, in, st->scalar_start, st->scalar_end, st->dispatch, st->start, st->busy_end,
                               st->end, &w, st->l2_hit, st->l2_miss};
    if (e->trace) sim_trace_insn(e->trace, &te);
    if (e->observer) e->observer->insn(e->observer->arg, &te);
  }
  if (completion_releases(k, p)) mark_dirty(e, k);
  if (st->seq != UINT64_MAX && p < ISA_PIPE_COUNT) fire_pending_sets(e, k, p);
}

static eng_flag *flag_of(eng_core *k, const isa_insn *in) {
  const isa_fmt_flag *f = &in->u.flag;
  return &k->flags[f->src_pipe][f->dst_pipe][f->event_id];
}

/* The trace arrow ids of flag fl's pending sets (with a trace). */
static uint64_t *flag_ids(const eng_core *k, const eng_flag *fl) {
  return k->flag_ids + (size_t)(fl - &k->flags[0][0][0]) * FLAG_FIFO;
}

static void xflag_fire(engine *e, eng_core *k, const isa_insn *in, isa_pipe pipe);

/* Whether a wait on the flag set by `set` (whose count is fl) is where the set lets it go on: at
 * the head of its pipe's queue, or next to dispatch when it waits on S. A wait further back
 * reaches either place in a progress pass of its core, which then finds the count. */
static bool flag_awaited(const eng_core *k, const isa_insn *set, const eng_flag *fl) {
  isa_pipe dst = (isa_pipe)set->u.flag.dst_pipe;
  if (dst == ISA_PIPE_S)
    return k->pc < k->n && k->nxt_at->op == ISA_OP_WAIT_FLAG && k->nxt_at->u.flag.src_pipe == set->u.flag.src_pipe &&
           k->nxt_at->u.flag.dst_pipe == dst && k->nxt_at->u.flag.event_id == set->u.flag.event_id;
  const eng_pipe *pp = &k->pipes[dst];
  return pp->qlen && pp->q[pp->qhead].flag == fl;
}

static void flag_set(engine *e, eng_core *k, const isa_insn *in, isa_pipe pipe) {
  if (in->op == ISA_OP_CROSS_SET_FLAG) {
    xflag_fire(e, k, in, pipe);
    return;
  }
  eng_flag *fl = flag_of(k, in);
  fl->count++;
  if (flag_awaited(k, in, fl)) mark_dirty(e, k); /* the wait may go on */
  uint64_t id = ++e->next_flow_id;
  if (!e->trace) return;
  uint64_t *ids = flag_ids(k, fl);
  if (fl->nids < FLAG_FIFO) ids[fl->nids++] = id;
  sim_trace_flow(e->trace, k->c->index, pipe, e->now, id, true);
}

static void flag_wait(engine *e, eng_core *k, const isa_insn *in, isa_pipe pipe) {
  eng_flag *fl = flag_of(k, in);
  fl->count--;
  if (!e->trace || !fl->nids) return;
  uint64_t *ids = flag_ids(k, fl), id = ids[0];
  memmove(ids, ids + 1, (fl->nids - 1) * sizeof *ids);
  fl->nids--;
  sim_trace_flow(e->trace, k->c->index, pipe, e->now, id, false);
}

/* ---- cross-core flags (sim_xcore.h; docs/TIMING.md, "Cross-core flags") ------------------ */

#define XIDS (SIM_XFLAG_MAX_PENDING + 1)

/* Every core may go on: a counter was taken (a set held at the limit may leave its queue) or a
 * SyncAll round was released. */
static void wake_all(engine *e) {
  for (unsigned c = 0; c < e->s->ncores; c++) mark_dirty(e, &e->cores[c]);
}

static void xlog_add(engine *e, const eng_core *k, const isa_insn *in, sim_xhb_what what) {
  if (!grow(e, (void **)&e->xlog, &e->capxlog, e->nxlog, sizeof *e->xlog)) return;
  e->xlog[e->nxlog++] = (sim_xhb_event){eng_idx_of(k, in), k->c->index, what};
}

/* A cross-core set fires: the counters it raises get +1 aiv.cross_flag_cycles later, each with
 * a trace arrow from the set. */
static void xflag_fire(engine *e, eng_core *k, const isa_insn *in, isa_pipe pipe) {
  const isa_fmt_xflag *f = &in->u.xflag;
  unsigned t[SIM_XCORE_MAX_TARGETS];
  unsigned n = sim_xcore_set(&e->xc, k->c->index, f->mode, f->flag_id, t);
  xlog_add(e, k, in, SIM_XHB_SET);
  for (unsigned i = 0; i < n; i++) {
    size_t slot = (size_t)t[i] * SIM_XFLAG_IDS + f->flag_id;
    uint64_t id = ++e->next_flow_id;
    if (e->nxids[slot] < XIDS) e->xids[slot * XIDS + e->nxids[slot]++] = id;
    if (e->trace) sim_trace_flow(e->trace, k->c->index, pipe, e->now, id, true);
    uint64_t when = e->now + e->cfg->aiv_cross_flag_cycles;
    if (when == e->now) {
      sim_xcore_deliver(&e->xc, t[i], f->flag_id);
      mark_dirty(e, &e->cores[t[i]]);
    } else {
      heap_push(e, when, EV_XFLAG, t[i], f->flag_id);
    }
  }
}

/* A cross-core wait of core k on `pipe` takes one from its counter, or returns false. */
static bool xflag_take(engine *e, eng_core *k, const isa_insn *in, isa_pipe pipe) {
  unsigned id = in->u.xflag.flag_id;
  if (!sim_xcore_take(&e->xc, k->c->index, id)) return false;
  xlog_add(e, k, in, SIM_XHB_WAIT);
  size_t slot = (size_t)k->c->index * SIM_XFLAG_IDS + id;
  if (e->nxids[slot]) {
    uint64_t arrow = e->xids[slot * XIDS];
    memmove(&e->xids[slot * XIDS], &e->xids[slot * XIDS + 1], (e->nxids[slot] - 1u) * sizeof *e->xids);
    e->nxids[slot]--;
    if (e->trace) sim_trace_flow(e->trace, k->c->index, pipe, e->now, arrow, false);
  }
  wake_all(e);
  return true;
}

/* SyncAll at dispatch, the core drained: arrives, and passes once its round is released
 * (aiv.cross_flag_cycles after the last core arrived). */
static bool sync_all_passes(engine *e, eng_core *k, const isa_insn *in) {
  bool aiv_only = in->u.syncall.aiv_only;
  if (!e->xc.sync_wait[k->c->index]) xlog_add(e, k, in, SIM_XHB_SYNC_ARRIVE);
  if (sim_xcore_sync_arrive(&e->xc, k->c->index, aiv_only)) {
    uint64_t when = e->now + e->cfg->aiv_cross_flag_cycles;
    if (when == e->now) {
      sim_xcore_sync_release(&e->xc, aiv_only);
      wake_all(e);
    } else {
      heap_push(e, when, EV_SYNC, k->c->index, aiv_only);
    }
  }
  if (!sim_xcore_sync_passed(&e->xc, k->c->index, aiv_only)) return false;
  xlog_add(e, k, in, SIM_XHB_SYNC_PASS);
  return true;
}

/* Zero-time instructions (flags, barriers) complete the moment they start. */
static void finish_now(engine *e, eng_core *k, uint64_t idx) {
  eng_insn *st = eng_st(k, idx);
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
    flag_set(e, k, eng_in(k, idx), p);
    eng_insn *st = eng_st(k, idx);
    st->start = st->busy_end = st->end = e->now; /* the trace shows it where it fires */
    st->seq = UINT64_MAX;
    complete(e, k, idx);
  }
}

static void set_flag_start(engine *e, eng_core *k, eng_pipe *pp, isa_pipe p, uint64_t idx) {
  if (!pp->nrun) {
    flag_set(e, k, eng_in(k, idx), p);
    finish_now(e, k, idx);
    return;
  }
  if (!grow(e, (void **)&pp->pend, &pp->cappend, pp->npend, sizeof *pp->pend)) return;
  pp->pend[pp->npend].idx = idx;
  pp->pend[pp->npend].seq = pp->seq_next;
  pp->npend++;
  eng_st(k, idx)->state = ST_RUNNING;
}

/* Notes id among flow f's partners. False when out of host memory. */
static bool flow_add_partner(engine *e, eng_flow *f, uint64_t id) {
  if (f->sharers - 1 == f->cappartner) {
    uint32_t cap = f->cappartner ? f->cappartner * 2 : 4;
    if (cap > MAX_PARTNERS) cap = MAX_PARTNERS;
    uint64_t *p = realloc(f->partner, cap * sizeof *p);
    if (!p) {
      e->oom = CS_ENOMEM;
      return false;
    }
    f->partner = p;
    f->cappartner = cap;
  }
  f->partner[f->sharers++ - 1] = id;
  return true;
}

/* A GM transfer begins to stream (after its engine's setup): the L2 decides what it costs HBM,
 * its shape and the latency of its data what its engine allows (sim_gm.h), reads of other cores
 * over the same bytes how much of a line set it gets. */
static void flow_begin(engine *e, eng_core *k, uint64_t idx) {
  const isa_insn *in = eng_in(k, idx);
  eng_insn *st = eng_st(k, idx);
  isa_pipe pipe = (isa_pipe)st->pipe;
  const eng_out *me = st->has_out ? find_out(k, idx) : NULL;
  const sim_config *c = k->cfg;
  isa_work w;
  isa_insn_work(in, &w);
  /* its ranges, as out_add kept them (a transfer always has some) */
  isa_range own[ISA_MAX_RANGES];
  const isa_range *rs = me ? out_ranges(me) : own;
  uint32_t nrs = me ? me->nr : (uint32_t)isa_insn_ranges(in, own);
  bool write = path_writes_gm((isa_path)w.path);
  sim_l2_result l2r = {0, 0, 0, 0};
  bool l2_on = e->l2_on && !isa_insn_l2_bypass(in); /* a bypassing transfer sees no L2 */
  if (l2_on)
    for (uint32_t i = 0; i < nrs; i++)
      if (rs[i].mem == ISA_MEM_GM) sim_l2_access(&e->l2, &rs[i], &l2r);
  st->l2_hit = l2r.hit_bytes;
  st->l2_miss = l2r.miss_bytes;
  sim_stats *ss = &e->res->stats;
  if (write) ss->gm_write_bytes += w.bytes;
  else ss->gm_read_bytes += w.bytes;
  ss->l2_hit_bytes += l2r.hit_bytes;
  ss->l2_miss_bytes += l2r.miss_bytes;
  /* HBM moves whole lines: fills of read misses and write-backs of the dirty lines evicted;
   * without the L2, the bytes transferred rounded out to its bursts (gm.hbm_burst_bytes) */
  uint64_t direct = l2_on ? 0 : sim_xfer_granule_bytes(rs, nrs, c->gm_hbm_burst_bytes);
  uint64_t hbm_read = l2_on ? l2r.fill_lines * c->l2_line_bytes : (write ? 0 : direct);
  uint64_t hbm_write = l2_on ? l2r.writeback_lines * c->l2_line_bytes : (write ? direct : 0);
  ss->hbm_read_bytes += hbm_read;
  ss->hbm_write_bytes += hbm_write;
  /* where the data comes from: a read waits for HBM on the lines that missed, L2 otherwise;
   * writes are absorbed by the L2 */
  double miss_frac = !l2_on ? 1.0 : write || !w.bytes ? 0.0 : (double)l2r.miss_bytes / (double)w.bytes;
  double mix_latency = (1.0 - miss_frac) * (double)c->l2_hit_latency_cycles + miss_frac * (double)c->l2_miss_latency_cycles;
  sim_xfer_engine eng;
  sim_xfer_engine_of(c, (isa_path)w.path, w.elements ? (double)w.bytes / (double)w.elements : 1.0, &eng);
  sim_xfer_shape sh;
  sim_xfer_shape_of(rs, nrs, &sh);
  if (e->nflows == e->capflows) {
    size_t cap = e->capflows ? e->capflows * 2 : 64;
    eng_flow *fl = realloc(e->flows, cap * sizeof *fl);
    sim_flow_share *sh2 = fl ? realloc(e->shares, cap * sizeof *sh2) : NULL;
    if (fl) e->flows = fl;
    if (!fl || !sh2) {
      e->oom = CS_ENOMEM;
      return;
    }
    e->shares = sh2;
    e->capflows = cap;
  }
  eng_flow *f = &e->flows[e->nflows++];
  static const eng_flow blank; /* copied, not memset (see sim_stream.c's decode) */
  memcpy(f, &blank, sizeof *f);
  f->core = k->c->index;
  f->idx = idx;
  f->pipe = pipe;
  f->remaining = (double)w.bytes;
  f->upd = e->now;
  f->own_cap = sim_xfer_rate(&eng, &sh, sim_xfer_pitch_efficiency(c, sh.align_bytes), mix_latency);
  f->hbm_per_byte = w.bytes ? (double)(hbm_read + hbm_write) / (double)w.bytes : 0.0;
  f->miss_frac = write ? 0.0 : miss_frac;
  f->latency = eng.latency_cycles + ((!l2_on || (!write && l2r.miss_bytes)) ? c->l2_miss_latency_cycles
                                                                                : c->l2_hit_latency_cycles);
  f->lo = sh.lo;
  f->hi = sh.hi;
  f->request_bytes = sh.bursts ? (double)sh.bytes / (double)sh.bursts : (double)sh.bytes;
  if (f->request_bytes > (double)c->l2_line_bytes) f->request_bytes = (double)c->l2_line_bytes;
  if (f->request_bytes < 1) f->request_bytes = 1;
  f->write = write;
  f->sharers = 1;
  f->id = ++e->next_xfer_id;
  f->bytes = (double)w.bytes;
  /* reads of other cores over the same bytes that have not streamed more than the bytes one
   * keeps in flight ahead: they ask for the same lines at the same time from now on */
  if (!write)
    for (size_t i = 0; i + 1 < e->nflows; i++) {
      eng_flow *g = &e->flows[i];
      if (g->write || g->core == f->core || g->hi <= f->lo || f->hi <= g->lo) continue;
      if (g->bytes - flow_left(e, g) >= eng.outstanding_bytes) continue;
      if (g->sharers > MAX_PARTNERS || f->sharers > MAX_PARTNERS) continue;
      if (!flow_add_partner(e, g, f->id) || !flow_add_partner(e, f, g->id)) return;
    }
  e->rates_dirty = true;
}

static void schedule_wake(engine *e, eng_core *k, uint64_t t);

/* ---- UnitFlag ----------------------------------------------------------------------------- */

/* At dispatch, in program order: a unit-flag fixpipe follows the last mmad with unit_flag 3 into
 * the L0C bytes it reads; a unit-flag mmad waits for the last unit-flag fixpipe reading the bytes
 * it writes (each 512 B unit of L0C has one ready bit, docs/TIMING.md "UnitFlag"; the pairing
 * is sim_uf_track's, which the hazard check reads too). */
static void uf_note_dispatch(eng_core *k, uint64_t idx) {
  const isa_insn *in = eng_in(k, idx); /* only these two have a unit flag */
  bool may = in->op == ISA_OP_MMAD || in->op == ISA_OP_FIXPIPE;
  eng_st(k, idx)->uf_dep = may ? sim_uf_track_next(&k->uf, in, idx) : SIM_UF_NONE;
}

/* Cycles until an mmad has written its first 512 B unit of C: one output fractal's k-steps, then
 * the cube's latency. */
static uint64_t uf_first_unit_cycles(const engine *e, const isa_insn *mmad) {
  const isa_fmt_mmad *p = &mmad->u.mmad;
  return ceil_div(p->k, cube_k0(e->d, (isa_dtype)p->dtype)) + e->cfg->cube_latency_cycles;
}

/* Cycles the fixpipe takes to move one 512 B unit of L0C (128 accumulators). */
static uint64_t uf_unit_cycles(const engine *e) { return ceil_div(128, e->cfg->fixpipe_elements_per_cycle); }

/* A unit-flag mmad may start once the fixpipe that reads its bytes has read them all (the
 * overlap of the reader's last units with the writer's first is not modelled). */
static bool uf_mmad_ready(engine *e, eng_core *k, uint64_t idx) {
  uint64_t f = eng_st(k, idx)->uf_dep;
  if (f == NEVER) return true;
  const eng_insn *fs = eng_st_uf(k, f);
  if (fs->state < ST_RUNNING || fs->busy_end == 0) return false; /* not started, or streaming */
  if (fs->busy_end > e->now) {
    schedule_wake(e, k, fs->busy_end);
    return false;
  }
  return true;
}

/* When a started instruction's work can begin: at once, or for a unit-flag fixpipe once its mmad
 * has written the first unit of C. */
static uint64_t work_begin(const engine *e, const eng_core *k, uint64_t idx, uint64_t t) {
  uint64_t m = eng_st(k, idx)->uf_dep;
  if (eng_in(k, idx)->op != ISA_OP_FIXPIPE || m == NEVER) return t;
  uint64_t first = eng_st_uf(k, m)->start + uf_first_unit_cycles(e, eng_in_uf(k, m));
  return first > t ? first : t;
}

/* A unit-flag fixpipe cannot finish before its mmad has written the last unit, plus the time to
 * move that unit. */
static uint64_t work_end(const engine *e, const eng_core *k, uint64_t idx, uint64_t t) {
  uint64_t m = eng_st(k, idx)->uf_dep;
  if (eng_in(k, idx)->op != ISA_OP_FIXPIPE || m == NEVER) return t;
  uint64_t last = eng_st_uf(k, m)->busy_end + uf_unit_cycles(e);
  return last > t ? last : t;
}

/* The timing of a started instruction whose prerequisites are met (a unit-flag fixpipe's mmad
 * has started): GM transfers become flows after their engine's setup, on-chip work occupies its
 * pipe for a fixed time. */
static void schedule_work(engine *e, eng_core *k, uint64_t idx) {
  const isa_insn *in = eng_in(k, idx);
  eng_insn *st = eng_st(k, idx);
  isa_pipe pipe = (isa_pipe)st->pipe;
  eng_pipe *pp = &k->pipes[pipe];
  isa_work w;
  isa_insn_work(in, &w);
  if (path_is_gm((isa_path)w.path)) {
    sim_xfer_engine eng;
    sim_xfer_engine_of(k->cfg, (isa_path)w.path, 1.0, &eng);
    uint64_t b = work_begin(e, k, idx, e->now + eng.setup_cycles);
    if (b > e->now) heap_push(e, b, EV_FLOW, k->c->index, idx);
    else flow_begin(e, k, idx);
    return;
  }
  uint64_t occ, lat;
  insn_timing(e, k->cfg, &w, &occ, &lat);
  if (pipe == ISA_PIPE_M && (pp->idle_from == NEVER || e->now > pp->idle_from)) occ += e->cfg->cube_restart_cycles;
  st->busy_end = work_end(e, k, idx, work_begin(e, k, idx, e->now) + occ);
  st->end = st->busy_end + lat;
  pp->free_t = pp->idle_from = st->busy_end;
  head_update(k, pipe);
  heap_push(e, st->end, EV_COMPLETE, k->c->index, idx);
  /* a unit-flag fixpipe that started before this mmad can now be timed */
  if (in->op == ISA_OP_MMAD && k->uf_waiting_fix != NEVER && eng_st_uf(k, k->uf_waiting_fix)->uf_dep == idx) {
    uint64_t f = k->uf_waiting_fix;
    k->uf_waiting_fix = NEVER;
    schedule_work(e, k, f);
  }
}

static void start_insn(engine *e, eng_core *k, eng_pipe *pp, isa_pipe pipe, uint64_t idx) {
  const isa_insn *in = eng_in(k, idx);
  eng_insn *st = eng_st(k, idx);
  eng_out *me = st->has_out ? find_out(k, idx) : NULL;
  if (pipe == ISA_PIPE_FIX && k->uf_last_fix != NEVER) {
    /* the FIX instruction before this one has ended its occupancy: a unit-flag fixpipe has read
     * every unit of its mmad, whose writes are then complete for the hazard check */
    out_done(k, eng_st_uf(k, k->uf_last_fix)->uf_dep);
    k->uf_last_fix = NEVER;
  }
  if (me && e->overlaps) check_hazards(e, k, idx, pipe, me);
  if (in->op == ISA_OP_FIXPIPE && st->uf_dep != NEVER) k->uf_last_fix = idx;
  isa_work w;
  isa_insn_work(in, &w);
  st->start = e->now;
  st->state = ST_RUNNING;
  if (!grow(e, (void **)&pp->run_seq, &pp->caprun, pp->nrun, sizeof *pp->run_seq)) return;
  st->seq = pp->seq_next++;
  st->tracked = 1;
  pp->run_seq[pp->nrun++] = st->seq;
  k->stats->path_bytes[w.path] += w.bytes;
  k->stats->macs += w.macs;
  if (in->op == ISA_OP_MMAD) {
    k->stats->mmad_macs[in->u.mmad.dtype < ISA_DTYPE_COUNT ? in->u.mmad.dtype : 0] +=
        (uint64_t)in->u.mmad.m * in->u.mmad.n * in->u.mmad.k;
    sim_mmad_l0_bytes(&in->u.mmad, k->stats->cube_l0_bytes);
  }
  pp->free_t = NEVER; /* busy until its work is timed */
  head_update(k, pipe);
  if (in->op == ISA_OP_FIXPIPE && st->uf_dep != NEVER && eng_st_uf(k, st->uf_dep)->state < ST_RUNNING) {
    k->uf_waiting_fix = idx; /* it holds the FIX pipe, waiting for its mmad to start */
    return;
  }
  schedule_work(e, k, idx);
}

/* Tries to start the head of pipe p at the current time. */
static bool try_start_head(engine *e, eng_core *k, isa_pipe p) {
  eng_pipe *pp = &k->pipes[p];
  if (!pp->qlen || e->now < pp->free_t) return false;
  const eng_queued *head = &pp->q[pp->qhead];
  uint64_t idx = head->idx;
  uint32_t op = head->op;
  switch ((isa_op)op) {
    case ISA_OP_SET_FLAG: /* leaves the queue at once; fires when the earlier work completes */
      break;
    case ISA_OP_WAIT_FLAG:
      if (!head->flag->count) return false;
      flag_wait(e, k, eng_in(k, idx), p);
      break;
    case ISA_OP_CROSS_SET_FLAG: /* a counter it could raise is at the limit: it stays queued */
      if (sim_xcore_set_full(&e->xc, k->c->index, eng_in(k, idx)->u.xflag.mode, eng_in(k, idx)->u.xflag.flag_id)) return false;
      break;
    case ISA_OP_CROSS_WAIT_FLAG:
      if (!xflag_take(e, k, eng_in(k, idx), p)) return false;
      break;
    case ISA_OP_PIPE_BARRIER:
      if (pp->nrun || pp->npend) return false;
      break;
    case ISA_OP_MMAD:
      if (!uf_mmad_ready(e, k, idx)) return false;
      break;
    default: break;
  }
  if (++pp->qhead == pp->qcap) pp->qhead = 0; /* a ring: no division */
  pp->qlen--;
  head_update(k, p);
  if (op == ISA_OP_SET_FLAG || op == ISA_OP_CROSS_SET_FLAG)
    set_flag_start(e, k, pp, p, idx);
  else if (op == ISA_OP_WAIT_FLAG || op == ISA_OP_PIPE_BARRIER || op == ISA_OP_CROSS_WAIT_FLAG)
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

/* What the kept hazards (sim_result.hazards) need of instruction idx's final state, taken as it
 * leaves the window or when the replay ends: when the earlier one completed, when the later one
 * started. */
static void note_hazard_times(engine *e, const eng_core *k, uint64_t idx) {
  sim_result *res = e->res;
  const eng_insn *x = eng_st(k, idx);
  for (unsigned i = 0; i < res->hazards_kept; i++) {
    sim_hazard *h = &res->hazards[i];
    if (h->earlier_core == k->c->index && h->earlier == idx && x->state == ST_DONE) h->earlier_done = x->end;
    if (h->core == k->c->index && h->later == idx && x->state >= ST_RUNNING) h->time = x->start;
  }
}

/* Adds instruction idx to the set being built in *v (sorted, no duplicates) when it is below
 * done_lo (it is about to leave the window, or has). */
static bool keep_note(engine *e, const eng_core *k, uint64_t **v, size_t *n, size_t *cap, uint64_t idx) {
  if (idx == NEVER || idx >= k->done_lo) return true;
  size_t at = 0;
  while (at < *n && (*v)[at] < idx) at++;
  if (at < *n && (*v)[at] == idx) return true;
  if (!grow(e, (void **)v, cap, *n, sizeof **v)) return false;
  memmove(*v + at + 1, *v + at, (*n - at) * sizeof **v);
  (*v)[at] = idx;
  (*n)++;
  return true;
}

/* Tight window (eng_core.tight): the window is about to start at done_lo; keeps aside the
 * completed instructions below it that may still be read as UnitFlag partners: those the tracker
 * may still name, the partners of the instructions in flight, the last unit-flag fixpipe
 * started, and the partners of these (two steps further, as the deadlock report follows them). */
static bool keep_partners(engine *e, eng_core *k) {
  uint64_t *v = NULL;
  size_t n = 0, cap = 0;
  bool ok = true;
  for (unsigned j = 0; j < SIM_UF_SLOTS && ok; j++) {
    if (j < k->uf.nfix) ok = keep_note(e, k, &v, &n, &cap, k->uf.fix[j].idx);
    if (ok && j < k->uf.nmmad) ok = keep_note(e, k, &v, &n, &cap, k->uf.mmad[j].idx);
  }
  for (uint64_t i = k->done_lo; i < k->pc && ok; i++) {
    const eng_insn *x = eng_st(k, i);
    if (x->state != ST_DONE) ok = keep_note(e, k, &v, &n, &cap, x->uf_dep);
  }
  if (ok) ok = keep_note(e, k, &v, &n, &cap, k->uf_last_fix) && keep_note(e, k, &v, &n, &cap, k->uf_waiting_fix);
  for (int step = 0; step < 3 && ok; step++)
    for (size_t i = 0, m = n; i < m && ok; i++) ok = keep_note(e, k, &v, &n, &cap, eng_st_uf(k, v[i])->uf_dep);
  eng_kept *kept = NULL;
  if (ok && n) {
    kept = malloc(n * sizeof *kept);
    if (!kept) e->oom = CS_ENOMEM;
    ok = kept != NULL;
  }
  if (!ok) {
    free(v);
    free(kept);
    return false;
  }
  for (size_t i = 0; i < n; i++) {
    kept[i].idx = v[i];
    kept[i].st = *eng_st_uf(k, v[i]);
    kept[i].in = *eng_in_uf(k, v[i]);
  }
  free(v);
  free(k->kept);
  k->kept = kept;
  k->nkept = k->capkept = n;
  return true;
}

/* Makes room in the window for instruction pc: leaves out what no instruction can read any more
 * (completed, and no UnitFlag partner of one in flight or of one still to come), and doubles the
 * ring when that frees less than half of it. False when out of host memory. */
static bool window_make_room(engine *e, eng_core *k) {
  uint64_t lo = k->done_lo;
  if (k->tight) {
    if (!keep_partners(e, k)) return false;
  } else {
    for (uint64_t i = k->done_lo; i < k->pc; i++) {
      const eng_insn *x = eng_st(k, i);
      if (x->state != ST_DONE && x->uf_dep != NEVER && x->uf_dep < lo) lo = x->uf_dep;
    }
    uint64_t keep[4] = {k->uf_last_fix, k->uf_waiting_fix, sim_uf_track_oldest(&k->uf, true),
                        sim_uf_track_oldest(&k->uf, false)};
    for (int i = 0; i < 4; i++)
      if (keep[i] < lo) lo = keep[i];
  }
  if (e->res->hazards_kept)
    for (uint64_t i = k->st_lo; i < lo; i++) note_hazard_times(e, k, i);
  k->st_lo = lo;
  /* at least half the ring free again, else twice the ring: the scan above is paid once per
   * half a ring of dispatches */
  if (k->pc - lo < (k->st_mask + 1) / 2) return true;
  uint64_t cap = (k->st_mask + 1) * 2;
  eng_insn *st = malloc(cap * sizeof *st);
  isa_insn *ins = st ? malloc(cap * sizeof *ins) : NULL;
  if (!ins) {
    free(st);
    e->oom = CS_ENOMEM;
    return false;
  }
  for (uint64_t i = lo; i < k->pc; i++) {
    st[i & (cap - 1)] = *eng_st(k, i);
    ins[i & (cap - 1)] = k->ins[i & k->st_mask];
  }
  free(k->st);
  free(k->ins);
  k->st = st;
  k->ins = ins;
  k->st_mask = cap - 1;
  return true;
}

/* Cycles the scalar unit spends on an instruction before it dispatches it. */
static uint64_t scalar_cost(const eng_core *k, const isa_insn *in) {
  return in->op == ISA_OP_SCALAR ? in->u.scalar.cycles : k->cfg->scalar_dispatch_cycles;
}

static bool queue_full(const eng_core *k, isa_pipe p) {
  return p < ISA_PIPE_COUNT && p != ISA_PIPE_S && k->pipes[p].qlen == k->pipes[p].qcap;
}

/* Dispatch (the scalar unit): one instruction into its pipe queue per dispatch_cycles, in
 * program order. Instructions of the S pipe itself (flags to and from S, barriers) are executed
 * by the dispatcher: a wait_flag on S or a pipe_barrier(ALL) holds dispatch. */
static bool try_dispatch(engine *e, eng_core *k) {
  if (k->pc >= k->n || k->dispatch_t > e->now) return false;
  uint64_t idx = k->pc;
  const isa_insn *in = eng_in(k, idx);
  isa_pipe p = k->nxt_pipe;
  bool blocked = false;
  if (p == ISA_PIPE_ALL) blocked = !core_drained(k) || (in->op == ISA_OP_SYNC_ALL && !sync_all_passes(e, k, in));
  else if (p == ISA_PIPE_S && in->op == ISA_OP_WAIT_FLAG) blocked = !flag_of(k, in)->count;
  else if (p == ISA_PIPE_S && in->op == ISA_OP_CROSS_WAIT_FLAG) blocked = !xflag_take(e, k, in, ISA_PIPE_S);
  else if (p != ISA_PIPE_S) blocked = queue_full(k, p);
  if (blocked) return false;
  /* it waited since it could have dispatched (a blocked dispatch goes on when what blocks it
   * marks the core, see progress) */
  k->stats->stall_cycles += e->now - k->dispatch_t;
  if (idx - k->st_lo > k->st_mask && !window_make_room(e, k)) return false;
  isa_insn *slot_in = &k->ins[idx & k->st_mask];
  if (k->nxt_at != slot_in) *slot_in = k->nxt; /* decoded while the window was full */
  in = slot_in;
  eng_insn *st = eng_st(k, idx);
  static const eng_insn blank; /* copied, not memset (see sim_stream.c's decode) */
  memcpy(st, &blank, sizeof *st);
  st->pipe = (uint8_t)p;
  st->dispatch = e->now;
  /* the scalar unit was busy issuing it (or doing the scalar work it is), and before the first
   * instruction with the kernel's entry */
  st->scalar_start = idx ? k->scalar_free : k->stats->start_cycles;
  st->scalar_end = k->scalar_free + scalar_cost(k, in); /* then it may have waited to dispatch */
  k->stats->pipe_busy_cycles[ISA_PIPE_S] += st->scalar_end - st->scalar_start;
  k->scalar_free = e->now;
  k->pc++;
  if (k->pc < k->n) {
    /* into its slot if the window has room for it (the window changes only as it dispatches) */
    k->nxt_at = k->pc - k->st_lo <= k->st_mask ? &k->ins[k->pc & k->st_mask] : &k->nxt;
    sim_stream_next(&k->cur, k->nxt_at);
    k->nxt_pipe = isa_insn_pipe(k->nxt_at);
  }
  k->dispatch_t = k->pc < k->n ? e->now + scalar_cost(k, k->nxt_at) : NEVER;
  if (p == ISA_PIPE_ALL || p == ISA_PIPE_S) {
    if (in->op == ISA_OP_SET_FLAG) flag_set(e, k, in, ISA_PIPE_S);
    else if (in->op == ISA_OP_WAIT_FLAG) flag_wait(e, k, in, ISA_PIPE_S);
    st->start = st->busy_end = st->end = e->now;
    complete(e, k, idx);
    return true;
  }
  eng_pipe *pp = &k->pipes[p];
  size_t slot = pp->qhead + pp->qlen; /* qhead < qcap, qlen < qcap: one wrap at most */
  if (slot >= pp->qcap) slot -= pp->qcap;
  pp->q[slot] = (eng_queued){idx, in->op == ISA_OP_WAIT_FLAG ? flag_of(k, in) : NULL, in->op};
  pp->qlen++;
  head_update(k, p);
  st->state = ST_QUEUED;
  out_add(e, k, idx, p);
  uf_note_dispatch(k, idx);
  return true;
}

/* Core c rises in the wake-up heap from place i to where its wake-up belongs. */
static void wheap_up(engine *e, unsigned c, size_t i) {
  uint64_t t = e->wake[c];
  while (i > 0) {
    size_t p = (i - 1) / 2;
    unsigned pc = e->wheap[p];
    if (e->wake[pc] <= t) break;
    e->wheap[i] = pc;
    e->wpos[pc] = (unsigned)i;
    i = p;
  }
  e->wheap[i] = c;
  e->wpos[c] = (unsigned)i;
}

/* Core k wakes at t (progress then runs it), unless it wakes sooner already: its wake-up
 * becomes only earlier until it comes (progress, which is what a wake-up does, names the next
 * time it waits for, so a later one it named before has nothing left to do). */
static void schedule_wake(engine *e, eng_core *k, uint64_t t) {
  unsigned c = k->c->index;
  if (t <= e->now || t >= e->wake[c]) return; /* NEVER: >= any */
  e->wake[c] = t;
  wheap_up(e, c, e->wpos[c] == WPOS_NONE ? e->nwheap++ : e->wpos[c]);
}

static uint64_t wake_next(const engine *e) { return e->nwheap ? e->wake[e->wheap[0]] : NEVER; }

/* The cores due now leave the heap, marked for progress (the order they leave in does not
 * matter: progress runs the marked cores in index order). */
static void wake_due(engine *e) {
  while (e->nwheap && e->wake[e->wheap[0]] == e->now) {
    unsigned c = e->wheap[0], last = e->wheap[--e->nwheap];
    e->wake[c] = NEVER;
    e->wpos[c] = WPOS_NONE;
    mark_dirty(e, &e->cores[c]);
    if (!e->nwheap) break;
    /* the last one sinks from the top */
    uint64_t t = e->wake[last];
    size_t i = 0, n = e->nwheap;
    for (;;) {
      size_t l = 2 * i + 1, m = i;
      uint64_t best = t;
      if (l < n && e->wake[e->wheap[l]] < best) m = l, best = e->wake[e->wheap[l]];
      if (l + 1 < n && e->wake[e->wheap[l + 1]] < best) m = l + 1;
      if (m == i) break;
      e->wheap[i] = e->wheap[m];
      e->wpos[e->wheap[i]] = (unsigned)i;
      i = m;
    }
    e->wheap[i] = last;
    e->wpos[last] = (unsigned)i;
  }
}

static void progress(engine *e, eng_core *k) {
  bool changed;
  do {
    changed = false;
    for (int p = 0; p < ISA_PIPE_COUNT; p++) /* try_start_head's own first test, without the call */
      while (e->now >= k->head_t[p] && try_start_head(e, k, (isa_pipe)p)) changed = true;
    while (k->pc < k->n && k->dispatch_t <= e->now && try_dispatch(e, k)) changed = true;
  } while (changed && !e->oom);
  uint64_t next = NEVER;
  for (int p = 0; p < ISA_PIPE_COUNT; p++)
    if (k->head_t[p] > e->now && k->head_t[p] < next) next = k->head_t[p];
  /* the next dispatch, unless its queue is full: the head that makes room starts in a progress
   * pass of this core, which dispatches then if the time has come (else it names dispatch_t) */
  if (k->pc < k->n && k->dispatch_t > e->now && k->dispatch_t < next && !queue_full(k, k->nxt_pipe)) next = k->dispatch_t;
  schedule_wake(e, k, next);
}

/* ---- the main loop ---------------------------------------------------------------------- */

/* Time advances to t: the flows stream at their rates until then, and those finishing at t end:
 * the pipe is free, results land after the latency. */
static void step_flows(engine *e, uint64_t t) {
  e->now = t;
  if (!e->nflows || t < e->flow_next) return; /* none ends: they stream on at their rates */
  size_t n = e->nflows, w = 0;
  for (size_t i = 0; i < n; i++) e->flows[i].ending = e->flows[i].finish <= t;
  for (size_t i = 0; i < n; i++) {
    eng_flow *f = &e->flows[i];
    if (!f->ending) continue;
    for (uint32_t p = 0; p + 1 < f->sharers; p++) /* its partners lose it */
      for (size_t j = 0; j < n; j++) {
        eng_flow *g = &e->flows[j];
        if (g->ending || g->id != f->partner[p]) continue;
        for (uint32_t q = 0; q + 1 < g->sharers; q++)
          if (g->partner[q] == f->id) {
            g->partner[q] = g->partner[g->sharers - 2];
            g->sharers--;
            break;
          }
        break;
      }
    eng_core *k = &e->cores[f->core];
    eng_insn *st = eng_st(k, f->idx);
    st->busy_end = work_end(e, k, f->idx, t);
    st->end = st->busy_end + f->latency + e->gm_queueing;
    k->pipes[f->pipe].free_t = st->busy_end;
    head_update(k, f->pipe);
    mark_dirty(e, k);
    heap_push(e, st->end, EV_COMPLETE, f->core, f->idx);
  }
  for (size_t i = 0; i < n; i++) {
    if (e->flows[i].ending) {
      free(e->flows[i].partner);
      continue;
    }
    if (w != i) e->flows[w] = e->flows[i];
    w++;
  }
  e->nflows = w;
  e->rates_dirty = true;
}

/* ---- deadlocks ---------------------------------------------------------------------------- *
 * When nothing can happen any more, each stuck core's wait-for graph: a node for the dispatcher
 * and for each pipe whose head cannot start, with an edge to the node whose progress would
 * release it (a wait_flag: to wherever its set_flag sits — not dispatched, queued behind another
 * head, or firing after a running instruction; a full queue: to that pipe's head; and so on). A
 * wait with no set_flag left to fire it is a root cause; following the edges from elsewhere
 * reaches a root or goes round a cycle. The report names the first root cause (in program
 * order), any cycle, and every other blocked node with where its releaser sits. */

#define DL_NODES (ISA_PIPE_COUNT + 1) /* the pipes' heads, then dispatch */
#define DL_DISPATCH ISA_PIPE_COUNT
#define DL_ROOT (-1) /* a wait nothing can release */
#define DL_NONE (-2) /* not found (should not happen at a deadlock) */

typedef struct dl_node {
  bool live;
  uint64_t idx; /* the blocked instruction */
  int next;     /* the node that would release it, DL_ROOT or DL_NONE */
  char text[320];
} dl_node;

/* Instruction idx's state at a deadlock: the window's, or that of one completed long ago, or of
 * one not yet dispatched. */
static const eng_insn dl_retired = {.state = ST_DONE}, dl_undispatched = {.state = ST_NEW};
/* Instruction idx of any core's stream: the window's, or decoded into *tmp. */
static const isa_insn *dl_in(const eng_core *k, uint64_t idx, isa_insn *tmp) {
  if (idx >= k->st_lo && idx <= k->pc && idx < k->n) return eng_in(k, idx);
  sim_stream_get(&k->c->rec, idx, tmp);
  return tmp;
}

static const eng_insn *dl_st(const eng_core *k, uint64_t idx) {
  if (idx < k->st_lo && k->tight) {
    const eng_kept *x = eng_kept_of(k, idx);
    if (x) return &x->st;
  }
  return idx >= k->pc ? &dl_undispatched : idx < k->st_lo ? &dl_retired : eng_st(k, idx);
}

/* An instruction running on pipe p (at a deadlock: a unit-flag fixpipe holding its pipe for its
 * mmad), or NEVER. */
static uint64_t dl_running(const eng_core *k, int p) {
  for (uint64_t i = 0; i < k->n; i++)
    if (dl_st(k, i)->tracked && isa_insn_pipe(dl_in(k, i, &(isa_insn){.op = 0})) == (isa_pipe)p) return i;
  return NEVER;
}

static const char *dl_mn(const eng_core *k, uint64_t idx) { return isa_op_info((isa_op)dl_in(k, idx, &(isa_insn){.op = 0})->op)->mnemonic; }

/* Where instruction x sits, appended to out ("not yet dispatched (dispatch is held at
 * instruction 4)", "queued in MTE2 behind instruction 7 (wait_flag)", ...): returns the node
 * whose progress it waits for. */
static int dl_locate(const eng_core *k, uint64_t x, char *out, size_t n, int depth) {
  const eng_insn *st = dl_st(k, x);
  isa_pipe p = isa_insn_pipe(dl_in(k, x, &(isa_insn){.op = 0}));
  if (st->state == ST_NEW) {
    snprintf(out, n, "not yet dispatched (dispatch is held at instruction %" PRIu64 ")", k->pc);
    return DL_DISPATCH;
  }
  if (st->state == ST_QUEUED) {
    const eng_pipe *pp = &k->pipes[p];
    uint64_t head = pp->q[pp->qhead].idx;
    if (head == x) snprintf(out, n, "at the head of %s", isa_pipe_name(p));
    else snprintf(out, n, "queued in %s behind instruction %" PRIu64 " (%s)", isa_pipe_name(p), head, dl_mn(k, head));
    return p;
  }
  uint64_t r = dl_in(k, x, &(isa_insn){.op = 0})->op == ISA_OP_SET_FLAG ? dl_running(k, p) : x; /* a set waits for its pipe */
  if (r == NEVER || dl_st(k, r)->uf_dep == NEVER || depth > 2) {
    snprintf(out, n, "in %s", isa_pipe_name(p));
    return DL_NONE;
  }
  uint64_t m = dl_st(k, r)->uf_dep; /* a unit-flag fixpipe holding FIX until its mmad starts */
  int w = r == x ? snprintf(out, n, "holding FIX until its mmad, instruction %" PRIu64 ", starts; that mmad is ", m)
                 : snprintf(out, n,
                            "in %s, firing once instruction %" PRIu64 " (fixpipe) completes, which waits for its "
                            "mmad, instruction %" PRIu64 ", ",
                            isa_pipe_name(p), r, m);
  if (w < 0 || (size_t)w >= n) return DL_NONE;
  return dl_locate(k, m, out + w, n - (size_t)w, depth + 1);
}

/* The next set_flag of wait w's event to fire (the first not fired, in program order), or NEVER. */
static uint64_t dl_set_of(const eng_core *k, const isa_insn *w) {
  for (uint64_t j = 0; j < k->n; j++) {
    const isa_insn *in = dl_in(k, j, &(isa_insn){.op = 0});
    if (in->op == ISA_OP_SET_FLAG && dl_st(k, j)->state != ST_DONE && in->u.flag.src_pipe == w->u.flag.src_pipe &&
        in->u.flag.dst_pipe == w->u.flag.dst_pipe && in->u.flag.event_id == w->u.flag.event_id)
      return j;
  }
  return NEVER;
}

/* "MTE1 waits at instruction 3 (wait_flag MTE2->MTE1 #0)" (who: a pipe or "dispatch"). */
static int dl_wait(const eng_core *k, const char *who, uint64_t idx, dl_node *d) {
  const isa_fmt_flag *f = &dl_in(k, idx, &(isa_insn){.op = 0})->u.flag;
  char event[48];
  snprintf(event, sizeof event, "%s->%s #%u", isa_pipe_name((isa_pipe)f->src_pipe), isa_pipe_name((isa_pipe)f->dst_pipe),
           (unsigned)f->event_id);
  uint64_t set = dl_set_of(k, dl_in(k, idx, &(isa_insn){.op = 0}));
  int w = snprintf(d->text, sizeof d->text, "%s waits at instruction %" PRIu64 " (wait_flag %s)", who, idx, event);
  if (set == NEVER) {
    snprintf(d->text + w, sizeof d->text - (size_t)w, " and no set_flag %s is left to fire it", event);
    return DL_ROOT;
  }
  w += snprintf(d->text + w, sizeof d->text - (size_t)w, " for its set_flag, instruction %" PRIu64 ", ", set);
  if ((size_t)w >= sizeof d->text) return DL_NONE; /* cannot happen: the text is far shorter */
  return dl_locate(k, set, d->text + w, sizeof d->text - (size_t)w, 0);
}

/* "MTE2 waits at instruction 3 (cross_wait_flag #1) for a cross_set_flag of AIV 0.1, instruction
 * 7, not yet dispatched ...": the first set of another core (in core order) not yet fired that
 * can raise this counter, or a root cause when there is none. The wait-for graph is a core's:
 * a set on another core ends the chain there (that core's own report says why it is stuck). */
static int dl_xwait(const engine *e, const eng_core *k, const char *who, uint64_t idx, dl_node *d) {
  unsigned id = dl_in(k, idx, &(isa_insn){.op = 0})->u.xflag.flag_id;
  char name[32];
  int w = snprintf(d->text, sizeof d->text, "%s waits at instruction %" PRIu64 " (cross_wait_flag #%u, counter 0)", who,
                   idx, id);
  for (unsigned c = 0; c < e->s->ncores; c++) {
    const eng_core *o = &e->cores[c];
    for (uint64_t j = 0; j < o->n; j++) {
      const isa_insn *in = dl_in(o, j, &(isa_insn){.op = 0});
      bool done;
      if (in->op != ISA_OP_CROSS_SET_FLAG || in->u.xflag.flag_id != id) continue;
      (void)eng_st_any(o, j, &done);
      if (done) continue;
      unsigned t[SIM_XCORE_MAX_TARGETS];
      unsigned n = sim_xcore_targets(&e->xc, c, in->u.xflag.mode, t), i = 0;
      while (i < n && t[i] != k->c->index) i++;
      if (i == n) continue;
      sim_core_name(e->s, c, name, sizeof name);
      w += snprintf(d->text + w, sizeof d->text - (size_t)w, " for a cross_set_flag of %s, instruction %" PRIu64 ", ", name, j);
      if ((size_t)w >= sizeof d->text) return DL_NONE;
      dl_locate(o, j, d->text + w, sizeof d->text - (size_t)w, 0);
      return DL_NONE;
    }
  }
  snprintf(d->text + w, sizeof d->text - (size_t)w, " and no core has a cross_set_flag #%u left that raises it", id);
  return DL_ROOT;
}

/* The node of pipe p's head (qlen > 0), which cannot start. */
static int dl_pipe_node(const engine *e, const eng_core *k, int p, dl_node *d) {
  const eng_pipe *pp = &k->pipes[p];
  uint64_t h = pp->q[pp->qhead].idx;
  const char *pn = isa_pipe_name((isa_pipe)p);
  d->idx = h;
  if (dl_in(k, h, &(isa_insn){.op = 0})->op == ISA_OP_WAIT_FLAG) return dl_wait(k, pn, h, d);
  if (dl_in(k, h, &(isa_insn){.op = 0})->op == ISA_OP_CROSS_WAIT_FLAG) return dl_xwait(e, k, pn, h, d);
  if (dl_in(k, h, &(isa_insn){.op = 0})->op == ISA_OP_CROSS_SET_FLAG) {
    snprintf(d->text, sizeof d->text,
             "%s is held at instruction %" PRIu64 " (cross_set_flag #%u): a counter it raises already holds %d sets, "
             "the most Ascend allows, and no wait is left to take one",
             pn, h, (unsigned)dl_in(k, h, &(isa_insn){.op = 0})->u.xflag.flag_id, SIM_XFLAG_MAX_PENDING);
    return DL_ROOT;
  }
  int w;
  uint64_t x;
  if (dl_in(k, h, &(isa_insn){.op = 0})->op == ISA_OP_MMAD && dl_st(k, h)->uf_dep != NEVER && dl_st(k, dl_st(k, h)->uf_dep)->state < ST_RUNNING) {
    x = dl_st(k, h)->uf_dep;
    w = snprintf(d->text, sizeof d->text,
                 "M waits at instruction %" PRIu64 " (mmad) for its unit-flag fixpipe, instruction %" PRIu64
                 ", to read L0C; that fixpipe is ",
                 h, x);
  } else { /* the pipe is held by a running instruction (a barrier waits for it, or it is busy) */
    x = dl_running(k, p);
    if (x == NEVER) {
      snprintf(d->text, sizeof d->text, "%s is held at instruction %" PRIu64 " (%s)", pn, h, dl_mn(k, h));
      return DL_NONE;
    }
    w = snprintf(d->text, sizeof d->text, "%s is held at instruction %" PRIu64 " (%s) by instruction %" PRIu64 " (%s), ",
                 pn, h, dl_mn(k, h), x, dl_mn(k, x));
  }
  if (w < 0 || (size_t)w >= sizeof d->text) return DL_NONE; /* cannot happen: the text is far shorter */
  return dl_locate(k, x, d->text + w, sizeof d->text - (size_t)w, 0);
}

/* The dispatcher's node (pc < n): why it cannot dispatch instruction pc. */
static int dl_dispatch_node(const engine *e, const eng_core *k, dl_node *d) {
  uint64_t i = k->pc;
  const isa_insn *in = dl_in(k, i, &(isa_insn){.op = 0});
  isa_pipe p = isa_insn_pipe(in);
  d->idx = i;
  if (p == ISA_PIPE_S && in->op == ISA_OP_WAIT_FLAG) return dl_wait(k, "dispatch", i, d);
  if (p == ISA_PIPE_S && in->op == ISA_OP_CROSS_WAIT_FLAG) return dl_xwait(e, k, "dispatch", i, d);
  if (in->op == ISA_OP_SYNC_ALL && core_drained(k)) {
    int w = snprintf(d->text, sizeof d->text, "dispatch is held at instruction %" PRIu64 " (sync_all) for", i);
    unsigned missing = 0;
    for (unsigned c = 0; c < e->s->ncores && (size_t)w < sizeof d->text; c++) {
      const eng_core *o = &e->cores[c];
      if (!o->n || e->xc.sync_wait[c] || (in->u.syncall.aiv_only && o->c->kind != SIM_CORE_AIV)) continue;
      char name[32];
      sim_core_name(e->s, c, name, sizeof name);
      w += snprintf(d->text + w, sizeof d->text - (size_t)w, "%s %s", missing++ ? "," : "", name);
    }
    if ((size_t)w < sizeof d->text)
      snprintf(d->text + w, sizeof d->text - (size_t)w, ", which %s not reached it", missing == 1 ? "has" : "have");
    return missing ? DL_NONE : DL_ROOT;
  }
  if (p == ISA_PIPE_ALL) {
    for (int q = 0; q < ISA_PIPE_COUNT; q++) {
      const eng_pipe *pp = &k->pipes[q];
      if (!pp->qlen && !pp->nrun && !pp->npend) continue;
      snprintf(d->text, sizeof d->text,
               "dispatch is held at instruction %" PRIu64 " (pipe_barrier ALL) until %s drains, whose head is "
               "instruction %" PRIu64 " (%s)",
               i, isa_pipe_name((isa_pipe)q), pp->qlen ? pp->q[pp->qhead].idx : dl_running(k, q),
               pp->qlen ? dl_mn(k, pp->q[pp->qhead].idx) : "running");
      return pp->qlen ? q : DL_NONE;
    }
  }
  if (queue_full(k, p)) {
    const eng_pipe *pp = &k->pipes[p];
    snprintf(d->text, sizeof d->text,
             "dispatch is held at instruction %" PRIu64 " (%s): the %s queue is full (depth %zu) behind instruction "
             "%" PRIu64 " (%s)",
             i, dl_mn(k, i), isa_pipe_name(p), pp->qcap, pp->q[pp->qhead].idx, dl_mn(k, pp->q[pp->qhead].idx));
    return p;
  }
  snprintf(d->text, sizeof d->text, "dispatch is held at instruction %" PRIu64 " (%s)", i, dl_mn(k, i));
  return DL_NONE;
}

/* Appends "; " (after the first) and s to the message. */
static void dl_put(char *m, size_t cap, size_t *used, const char *s) {
  if (*used >= cap) return;
  int w = snprintf(m + *used, cap - *used, "%s", s);
  if (w > 0) *used += (size_t)w;
}

/* The deadlock's fault (the first root cause, else the first node of the first cycle). */
static void dl_fault(sim_result *res, const eng_core *k, const dl_node *d, bool cycle) {
  sim_fault *f = &res->deadlock;
  memset(f, 0, sizeof *f);
  f->core = k->c->index;
  f->index = d->idx;
  f->insn = *dl_in(k, d->idx, &(isa_insn){.op = 0});
  if (f->insn.op == ISA_OP_WAIT_FLAG) {
    const isa_fmt_flag *fl = &f->insn.u.flag;
    isa_fault_set(&f->f, ISA_FAULT_DEADLOCK, "event_id", fl->event_id, 0, "wait_flag %s->%s #%u can never pass: %s",
                  isa_pipe_name((isa_pipe)fl->src_pipe), isa_pipe_name((isa_pipe)fl->dst_pipe),
                  (unsigned)fl->event_id, cycle ? "its set_flag waits, directly or not, for it" : "no set_flag is left to fire it");
  } else {
    isa_fault_set(&f->f, ISA_FAULT_DEADLOCK, "", 0, 0, "%s can never proceed: %s", dl_mn(k, d->idx),
                  cycle ? "a circular wait" : "it waits for a wait that can never pass");
  }
}

static void describe_deadlock(engine *e) {
  sim_result *res = e->res;
  res->deadlocked = true;
  char *m = res->deadlock_msg;
  size_t cap = sizeof res->deadlock_msg, used = 0;
  bool have_fault = false;
  /* the last moment anything was tried: a dispatch held by a full queue was due at dispatch_t,
   * which no wake-up marks (progress) */
  uint64_t at = e->now;
  for (unsigned c = 0; c < e->s->ncores; c++)
    if (e->cores[c].pc < e->cores[c].n && e->cores[c].dispatch_t > at) at = e->cores[c].dispatch_t;
  int w = snprintf(m, cap, "deadlock at cycle %" PRIu64 ":", at);
  used = w > 0 ? (size_t)w : 0;
  for (unsigned c = 0; c < e->s->ncores; c++) {
    eng_core *k = &e->cores[c];
    if (k->completed == k->n) continue;
    dl_node d[DL_NODES];
    for (int p = 0; p < DL_NODES; p++) {
      d[p].live = p == DL_DISPATCH ? k->pc < k->n : k->pipes[p].qlen > 0;
      d[p].next = DL_NONE;
      if (d[p].live) d[p].next = p == DL_DISPATCH ? dl_dispatch_node(e, k, &d[p]) : dl_pipe_node(e, k, p, &d[p]);
    }
    /* the first root cause in program order, the first cycle */
    int root = -1, cyc = -1;
    for (int p = 0; p < DL_NODES; p++)
      if (d[p].live && d[p].next == DL_ROOT && (root < 0 || d[p].idx < d[root].idx)) root = p;
    for (int p = 0; p < DL_NODES && cyc < 0; p++) {
      if (!d[p].live) continue;
      int x = p;
      for (int steps = 0; steps <= DL_NODES && x >= 0 && d[x].live; steps++) x = d[x].next;
      if (x >= 0 && d[x].live) cyc = x; /* still inside the graph after every step: on a cycle */
    }
    bool said[DL_NODES] = {false};
    char line[64], name[32];
    sim_core_name(e->s, c, name, sizeof name);
    snprintf(line, sizeof line, " %s:", name);
    dl_put(m, cap, &used, line);
    if (root >= 0) {
      dl_put(m, cap, &used, " the root cause: ");
      dl_put(m, cap, &used, d[root].text);
      said[root] = true;
      if (!have_fault) dl_fault(res, k, &d[root], false), have_fault = true;
    }
    if (cyc >= 0) {
      /* start the cycle at its earliest instruction */
      int first = cyc;
      for (int x = d[cyc].next; x != cyc; x = d[x].next)
        if (d[x].idx < d[first].idx) first = x;
      dl_put(m, cap, &used, root >= 0 ? "; and a circular wait: " : " a circular wait: ");
      int x = first;
      do {
        if (x != first) dl_put(m, cap, &used, "; ");
        dl_put(m, cap, &used, d[x].text);
        said[x] = true;
        x = d[x].next;
      } while (x != first);
      if (!have_fault) dl_fault(res, k, &d[first], true), have_fault = true;
    }
    bool any_other = false;
    for (;;) { /* the others, in program order */
      int next = -1;
      for (int p = 0; p < DL_NODES; p++)
        if (d[p].live && !said[p] && (next < 0 || d[p].idx < d[next].idx)) next = p;
      if (next < 0) break;
      dl_put(m, cap, &used, any_other ? "; " : (root >= 0 || cyc >= 0) ? "; also blocked: " : " blocked: ");
      dl_put(m, cap, &used, d[next].text);
      said[next] = true;
      any_other = true;
      if (!have_fault) dl_fault(res, k, &d[next], false), have_fault = true;
    }
    dl_put(m, cap, &used, ".");
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
      free(k->ins);
      free(k->kept);
      free(k->flag_ids);
      for (size_t i = 0; i < k->nout; i++) free(k->out[i].more);
      free(k->out);
      for (int p = 0; p < ISA_PIPE_COUNT; p++) {
        free(k->pipes[p].q);
        free(k->pipes[p].run_seq);
        free(k->pipes[p].pend);
      }
    }
  free(e->cores);
  free(e->dirty);
  free(e->wake);
  free(e->wheap);
  free(e->wpos);
  free(e->heap);
  for (size_t i = 0; i < e->nflows; i++) free(e->flows[i].partner);
  free(e->flows);
  free(e->shares);
  free(e->xids);
  free(e->nxids);
  free(e->xlog);
  sim_xcore_free(&e->xc);
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
    cs_status st = sim_l2_init(&e->l2, s->cfg.l2_bytes, s->cfg.l2_line_bytes, s->cfg.l2_ways, s->cfg.buffers_gm_capacity_bytes, err);
    if (st != CS_OK) {
      e->l2_on = false;
      return st;
    }
  }
  e->cores = calloc(s->ncores, sizeof *e->cores);
  e->dirty_words = (s->ncores + 63) / 64;
  e->dirty = calloc(e->dirty_words, sizeof *e->dirty);
  size_t nc = s->ncores ? s->ncores : 1;
  e->wake = malloc(nc * sizeof *e->wake);
  e->wheap = malloc(nc * sizeof *e->wheap);
  e->wpos = malloc(nc * sizeof *e->wpos);
  if (!e->cores || !e->dirty || !e->wake || !e->wheap || !e->wpos) return cs_err_set(err, CS_ENOMEM, "no host memory for the replay");
  /* an AIV's MTE2, MTE3 and vector unit are the cube core's engines with their own widths and
   * bytes in flight, and its kernel entry its own (docs/TIMING.md, "AIV cores") */
  e->aiv_cfg = s->cfg;
  e->aiv_cfg.mte2_outstanding_bytes = s->cfg.aiv_mte2_outstanding_bytes;
  e->aiv_cfg.mte2_setup_cycles = s->cfg.aiv_mte2_setup_cycles;
  e->aiv_cfg.mte3_outstanding_bytes = s->cfg.aiv_mte3_outstanding_bytes;
  e->aiv_cfg.vector_bytes_per_cycle = s->cfg.aiv_vector_bytes_per_cycle;
  e->aiv_cfg.scalar_kernel_init_cycles = s->cfg.aiv_kernel_init_cycles;
  e->aiv_cfg.scalar_dispatch_cycles = s->cfg.aiv_dispatch_cycles;
  for (unsigned c = 0; c < s->ncores; c++) {
    eng_core *k = &e->cores[c];
    k->c = &s->cores[c];
    k->cfg = k->c->kind == SIM_CORE_AIV ? &e->aiv_cfg : &s->cfg;
    k->n = k->c->len;
    sim_stream_cursor_init(&k->cur, k->c->feed ? k->c->feed : &k->c->rec, 0);
    k->nxt_at = &k->nxt;
    if (k->n) {
      sim_stream_next(&k->cur, k->nxt_at);
      k->nxt_pipe = isa_insn_pipe(k->nxt_at);
    }
    k->stats = &res->stats.core[c];
    k->stats->instructions = k->n;
    k->st = calloc(WINDOW_START, sizeof *k->st);
    k->ins = calloc(WINDOW_START, sizeof *k->ins);
    k->st_mask = WINDOW_START - 1;
    if (!k->st || !k->ins) return cs_err_set(err, CS_ENOMEM, "no host memory for the replay of core %u", c);
    if (trace && !(k->flag_ids = calloc(FLAGS_PER_CORE * FLAG_FIFO, sizeof *k->flag_ids)))
      return cs_err_set(err, CS_ENOMEM, "no host memory for the trace's flag arrows of core %u", c);
    for (int p = 0; p < ISA_PIPE_COUNT; p++) {
      k->pipes[p].qcap = queue_depth(&s->cfg, (isa_pipe)p);
      k->pipes[p].q = calloc(k->pipes[p].qcap, sizeof *k->pipes[p].q);
      if (!k->pipes[p].q) return cs_err_set(err, CS_ENOMEM, "no host memory for pipe queues");
    }
    /* the launch: AI core g starts launch + g * skew after the task, its AIVs with it
     * (docs/TIMING.md, Launch) */
    k->stats->start_cycles = s->d.launch_cycles + (uint64_t)k->c->group * s->cfg.chip_core_start_skew_cycles;
    /* the kernel's entry (arguments, tiling data, set-up) occupies the scalar unit first */
    k->scalar_free = k->stats->start_cycles + k->cfg->scalar_kernel_init_cycles;
    k->dispatch_t = k->n ? k->scalar_free + scalar_cost(k, dl_in(k, 0, &(isa_insn){.op = 0})) : NEVER;
    e->wake[c] = NEVER;
    e->wpos[c] = WPOS_NONE;
    sim_uf_track_init(&k->uf);
    k->uf_waiting_fix = k->uf_last_fix = NEVER;
    for (int p = 0; p < ISA_PIPE_COUNT; p++) {
      k->pipes[p].idle_from = NEVER;
      k->head_t[p] = NEVER;
    }
    mark_dirty(e, k);
  }
  bool tight = !s->aiv_enabled;
  for (unsigned c = 0; c < s->ncores; c++)
    if (s->cores[c].ncross) tight = false;
  for (unsigned c = 0; c < s->ncores; c++) e->cores[c].tight = tight;
  bool *active = calloc(s->ncores ? s->ncores : 1, sizeof *active);
  if (!active) return cs_err_set(err, CS_ENOMEM, "no host memory for the replay");
  for (unsigned c = 0; c < s->ncores; c++) active[c] = s->cores[c].len > 0;
  cs_status st = sim_xcore_init(&e->xc, s->ncores, s->naic, (unsigned)s->cfg.chip_aiv_per_aic, active, err);
  free(active);
  if (st != CS_OK) return st;
  e->xids = calloc((size_t)s->ncores * SIM_XFLAG_IDS * XIDS + 1, sizeof *e->xids);
  e->nxids = calloc((size_t)s->ncores * SIM_XFLAG_IDS + 1, sizeof *e->nxids);
  if (!e->xids || !e->nxids) return cs_err_set(err, CS_ENOMEM, "no host memory for the replay");
  return CS_OK;
}

/* The hazard check on a host thread of its own, beside the replay (sim_run): its hazards into a
 * result of its own. */
typedef struct hb_job {
  sim *s;
  sim_result *res;
  cs_status st;
  cs_err err;
  bool joined;
#ifndef CUBESIM_NO_THREADS
  thrd_t thread;
#endif
} hb_job;

static void hb_job_join(hb_job *j) {
#ifndef CUBESIM_NO_THREADS
  if (!j->joined) thrd_join(j->thread, NULL);
#endif
  j->joined = true;
}

#ifndef CUBESIM_NO_THREADS
static cs_status check_restreamed(sim *s, sim_result *res, cs_err *err);

static int hb_job_main(void *arg) {
  hb_job *j = arg;
  j->st = j->s->deferred ? check_restreamed(j->s, j->res, &j->err) : check_happens_before(j->s, j->res, &j->err);
  return 0;
}
#endif

/* The replay, with the hazards of the check in res (pending == NULL), or while the check runs
 * on its thread: then, once the cores have run, it waits for the check, and if the check found
 * hazards it stops (*redo): the replay notes the times of the hazards' instructions as they
 * leave its window, so it must be run again knowing them (a run with hazards fails unless they
 * are allowed, and is small as a rule). */
static cs_status replay(sim *s, const sim_run_options *opt, sim_result *res, hb_job *pending, bool *redo,
                        cs_err *err) {
  sim_trace *trace = opt ? opt->trace : NULL;
  engine e;
  memset(&e, 0, sizeof e); /* engine_free is safe whatever fails first */
  cs_status st = engine_init(&e, s, res, trace, err);
  e.observer = opt ? opt->observer : NULL;
  /* the second opinion: asked for, or the check found hazards (beside the replay, the check's
   * hazards make it run again, with them) */
  e.overlaps = (opt && opt->overlap_check) || res->hazard_count > 0;
  e.streamed = s->deferred;
  if (st != CS_OK) {
    engine_free(&e);
    return st;
  }
  uint64_t running = 0;
  for (unsigned c = 0; c < s->ncores; c++) {
    e.insns += s->cores[c].len; /* progress, trace size */
    running += s->cores[c].len > 0;
  }
  e.gm_queueing = running > 1 ? (running - 1) * e.cfg->l2_queue_cycles : 0;
  if (trace) {
    sim_trace_set_topology(trace, s->naic, (unsigned)s->cfg.chip_aiv_per_aic);
    sim_trace_begin(trace, s->ncores, e.insns);
  }
  for (;;) {
    /* everything that can happen now */
    bool any = true;
    while (any && !e.oom) {
      any = false;
      /* the cores marked, in index order; one that marks itself again waits for the next pass */
      for (size_t w = 0; w < e.dirty_words; w++) {
        uint64_t bits = e.dirty[w];
        e.dirty[w] = 0;
        for (; bits; bits &= bits - 1) {
          progress(&e, &e.cores[w * 64 + (unsigned)__builtin_ctzll(bits)]);
          any = true;
        }
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
    if (e.nflows && e.flow_next < t) t = e.flow_next;
    uint64_t w = wake_next(&e);
    if (w < t) t = w;
    if (t == NEVER) break;
    step_flows(&e, t);
    while (e.nheap && e.heap[0].time == t) {
      ev x = heap_pop(&e);
      ev_kind kind = ev_kind_of(&x);
      eng_core *k = &e.cores[x.core];
      if (kind == EV_COMPLETE) complete(&e, k, x.idx);
      else if (kind == EV_FLOW) flow_begin(&e, k, x.idx);
      else if (kind == EV_XFLAG) {
        sim_xcore_deliver(&e.xc, x.core, (unsigned)x.idx);
        mark_dirty(&e, k);
      } else if (kind == EV_SYNC) {
        sim_xcore_sync_release(&e.xc, x.idx != 0);
        wake_all(&e);
      }
    }
    wake_due(&e);
  }
  if (pending) {
    hb_job_join(pending);
    if (pending->st != CS_OK || pending->res->hazard_count) {
      engine_free(&e);
      if (pending->st != CS_OK) {
        *err = pending->err;
        return pending->st;
      }
      *redo = true;
      return CS_OK;
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
  if (stuck && e.streamed) { /* described from streams kept: the run again, with them */
    engine_free(&e);
    *redo = true;
    return CS_OK;
  }
  res->total_cycles = total;
  res->time_us = (double)total / s->d.cycles_per_us;
  res->stats.total_cycles = total;
  res->stats.instructions = insns;
  res->stats.macs = macs;
  res->stats.hazards = res->hazard_count;
  if (e.l2_on) res->stats.l2_dirty_bytes = e.l2.dirty_lines * s->cfg.l2_line_bytes;
  if (res->hazards_kept) /* what this run's timing did with each pair (see window_make_room) */
    for (unsigned c = 0; c < s->ncores; c++)
      for (uint64_t i = e.cores[c].st_lo; i < e.cores[c].pc; i++) note_hazard_times(&e, &e.cores[c], i);
  if (stuck) describe_deadlock(&e);
  else if (s->aiv_enabled || e.nxlog) st = check_across_cores(&e, err);
  engine_free(&e);
  if (st != CS_OK) return st;
  if (stuck) return cs_err_set(err, CS_EDEADLOCK, "%s", res->deadlock_msg);
  if (res->hazard_count && !(opt && opt->allow_hazards)) {
    char first[512];
    sim_hazard_describe(&res->hazards[0], first, sizeof first);
    return cs_err_set(err, CS_EHAZARD, "%" PRIu64 " data hazard%s; first: %s", res->hazard_count,
                      res->hazard_count == 1 ? "" : "s", first);
  }
  return CS_OK;
}

#ifndef CUBESIM_NO_THREADS
/* ---- a streaming run -----------------------------------------------------------------------
 * The streams were only counted (sim_record_cores). Each AIC with instructions records them
 * again on a thread of its own into a stand-in whose stream is a pipe (sim_stream.h) that the
 * replay reads as it goes: a few chunks a core, whatever the run's length. The hazard check,
 * beside it on a thread of its own, has the cores recorded again one after another through a
 * pipe of their own. A run that needs streams kept (hazards found, a deadlock to describe) is
 * run again the usual way. */
#define STREAM_CHUNK_BYTES 16384u /* a pipe's chunk: a few thousand instructions */
#define STREAM_DEPTH 2u           /* chunks filled ahead of the replay */

uint64_t sim_engine_stream_bytes(unsigned aic) {
  return (uint64_t)aic * 2 * sim_stream_pipe_bytes(STREAM_CHUNK_BYTES, STREAM_DEPTH);
}

typedef struct feeder {
  sim *s;
  sim_core standin;
  bool opened, made;
  thrd_t thread;
} feeder;

static int feeder_main(void *arg) {
  feeder *f = arg;
  f->s->recorder(f->s->recorder_arg, f->standin.index, &f->standin);
  sim_stream_pipe_close(&f->standin.rec);
  return 0;
}

/* A core recorded again must be what was counted. */
static cs_status same_again(const sim *s, const sim_core *standin, cs_err *err) {
  const sim_core *c = &s->cores[standin->index];
  if (standin->faulted || standin->len != c->len)
    return cs_err_set(err, CS_EINTERNAL, "core %u recorded %zu instructions again where it recorded %zu%s: the kernel is not "
                      "deterministic", c->index, standin->len, c->len, standin->faulted ? " and faulted" : "");
  return CS_OK;
}

/* A hazard of a check over a pipe: counted (the run then goes again with its streams kept, whose
 * check reports them with their instructions). */
static void hb_count(void *arg, const sim_hb_hazard *z) {
  (void)z;
  ((hb_sink_arg *)arg)->res->hazard_count++;
}

/* The happens-before check of every AIC recorded again, one after another (beside the replay),
 * each through a pipe from a thread of its own, checked with the reach noted at the launch. */
static cs_status check_restreamed(sim *s, sim_result *res, cs_err *err) {
  for (unsigned c = 0; c < s->naic && !res->hazard_count; c++) {
    if (!s->cores[c].len) continue;
    feeder f;
    memset(&f, 0, sizeof f);
    f.s = s;
    cs_status st = sim_core_standin_pipe(s, &s->cores[c], &f.standin, STREAM_CHUNK_BYTES, STREAM_DEPTH, err);
    if (st != CS_OK) return st;
    if (thrd_create(&f.thread, feeder_main, &f) != thrd_success) {
      sim_core_standin_free(&f.standin);
      return cs_err_set(err, CS_ENOMEM, "no host thread to record core %u again for the hazard check", c);
    }
    hb_sink_arg a = {res, NULL, c};
    sim_hb_sink sink = {hb_count, &a, NULL};
    st = sim_hb_check_pipe(&f.standin.rec, s->cores[c].len, &s->cores[c].reach, &sink, err);
    sim_stream_pipe_abandon(&f.standin.rec); /* a check that stopped early reads no more */
    thrd_join(f.thread, NULL);
    if (st == CS_OK) st = sim_host_status(s, err);
    if (st == CS_OK) st = same_again(s, &f.standin, err);
    sim_core_standin_free(&f.standin);
    if (st != CS_OK) return st;
  }
  return CS_OK; /* hazards: found (the run goes again the usual way, which finds them all) */
}

static cs_status stream_run(sim *s, const sim_run_options *opt, sim_result *res, bool *again, cs_err *err) {
  feeder *fd = calloc(s->naic, sizeof *fd);
  hb_job j;
  memset(&j, 0, sizeof j);
  j.s = s;
  j.joined = true;
  j.res = calloc(1, sizeof *j.res);
  bool ok = fd && j.res;
  s->concurrent = true; /* the stand-ins count host memory and failures under the lock */
  for (unsigned c = 0; ok && c < s->naic; c++) {
    if (!s->cores[c].len) continue;
    fd[c].s = s;
    ok = sim_core_standin_pipe(s, &s->cores[c], &fd[c].standin, STREAM_CHUNK_BYTES, STREAM_DEPTH, err) == CS_OK;
    fd[c].opened = ok;
    if (ok) s->cores[c].feed = &fd[c].standin.rec;
  }
  for (unsigned c = 0; ok && c < s->naic; c++)
    if (fd[c].opened) ok = fd[c].made = thrd_create(&fd[c].thread, feeder_main, &fd[c]) == thrd_success;
  if (ok) ok = thrd_create(&j.thread, hb_job_main, &j) == thrd_success;
  cs_status st = CS_OK;
  bool redo = false;
  if (ok) {
    j.joined = false;
    st = replay(s, opt, res, &j, &redo, err);
    hb_job_join(&j);
  }
  for (unsigned c = 0; fd && c < s->naic; c++) {
    if (fd[c].made) {
      sim_stream_pipe_abandon(&fd[c].standin.rec); /* a replay that stopped early reads no more */
      thrd_join(fd[c].thread, NULL);
    }
    if (st == CS_OK && ok && !redo && fd[c].opened) st = same_again(s, &fd[c].standin, err);
  }
  s->concurrent = false;
  for (unsigned c = 0; fd && c < s->naic; c++) {
    s->cores[c].feed = NULL;
    if (fd[c].s) sim_core_standin_free(&fd[c].standin);
  }
  free(fd);
  free(j.res);
  if (sim_host_status(s, err) != CS_OK) return CS_ENOMEM;
  *again = !ok || redo; /* no threads, or what only kept streams describe */
  if (!*again && st == CS_OK) s->streamed = true;
  return st;
}
#endif

static cs_status result_init(sim *s, sim_result *res, cs_err *err) {
  memset(res, 0, sizeof *res);
  res->stats.cores = s->ncores;
  res->stats.core = calloc(s->ncores, sizeof *res->stats.core);
  return res->stats.core ? CS_OK : cs_err_set(err, CS_ENOMEM, "no host memory for statistics");
}

bool sim_threads_parse(const char *text, unsigned *out) {
  if (!text || *text < '0' || *text > '9') return false;
  char *end;
  unsigned long v = strtoul(text, &end, 10);
  if (*end || v < 1 || v > 1024) return false;
  *out = (unsigned)v;
  return true;
}

/* The host threads a run may take: the option, else CUBESIM_THREADS, else the host's processors. */
static unsigned run_threads(const sim_run_options *opt) { return sim_host_threads(opt ? opt->host_threads : 0); }

cs_status sim_run(sim *s, const sim_run_options *opt, sim_result *res, cs_err *err) {
  memset(res, 0, sizeof *res);
  if (sim_host_status(s, err) != CS_OK) return CS_ENOMEM; /* the streams are incomplete */
  cs_status st = result_init(s, res, err);
  if (st != CS_OK) return st;
  /* With a second host thread, and nothing to see the replay as it goes (a trace, an observer),
   * the hazard check runs beside the replay: the same results, in the time of the longer. */
  bool beside = run_threads(opt) > 1 && !(opt && (opt->trace || opt->observer)) && s->ncores > 0;
  s->streamed = false;
  if (s->deferred) { /* streams only counted (sim_record_cores) */
#ifndef CUBESIM_NO_THREADS
    if (beside && !(opt && opt->overlap_check) && !s->aiv_enabled) {
      bool again = false;
      st = stream_run(s, opt, res, &again, err);
      if (!again) return st;
      sim_result_free(res); /* hazards, a deadlock: they are described from streams kept */
      if ((st = result_init(s, res, err)) != CS_OK) return st;
    }
#endif
    sim_materialize(s);
    if (sim_host_status(s, err) != CS_OK) return CS_ENOMEM;
  }
#ifndef CUBESIM_NO_THREADS
  if (beside) {
    hb_job j;
    memset(&j, 0, sizeof j);
    j.s = s;
    j.res = calloc(1, sizeof *j.res);
    if (j.res && thrd_create(&j.thread, hb_job_main, &j) == thrd_success) {
      bool redo = false;
      st = replay(s, opt, res, &j, &redo, err);
      hb_job_join(&j); /* when the replay failed before the end */
      if (redo) { /* hazards: the replay again, knowing them */
        sim_result_free(res);
        st = result_init(s, res, err);
        if (st == CS_OK) {
          res->hazard_count = j.res->hazard_count;
          res->hazards_kept = j.res->hazards_kept;
          memcpy(res->hazards, j.res->hazards, sizeof res->hazards);
          st = replay(s, opt, res, NULL, NULL, err);
        }
      }
      free(j.res);
      return st;
    }
    free(j.res); /* no thread: the check first, as below */
  }
#else
  (void)beside;
#endif
  st = check_happens_before(s, res, err);
  if (st != CS_OK) return st;
  return replay(s, opt, res, NULL, NULL, err);
}

void sim_result_free(sim_result *res) {
  free(res->stats.core);
  res->stats.core = NULL;
}
