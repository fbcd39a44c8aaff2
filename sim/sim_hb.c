/* sim_hb — data hazards from the order a program guarantees, whatever the timing (sim_hb.h).
 *
 * The check runs the stream as an abstract machine with no time and unbounded queues: the
 * dispatcher goes through the stream in program order, stopping only where the hardware's
 * dispatcher must (wait_flag on S, pipe_barrier(ALL)); each pipe takes its dispatched
 * instructions in order, stopping only at a wait_flag whose set has not fired or a unit-flag
 * instruction whose partner has not run. Any order of these steps visits each instruction after
 * everything that must complete before it, so when an instruction is visited its vector clock is
 * final and every earlier-visited access it conflicts with is either ordered before it or not
 * ordered at all. Queue depths only add orders that depend on the configuration; leaving them
 * out keeps the check independent of it.
 */
#include "sim/sim_hb.h"

#include <stdlib.h>
#include <string.h>

#define NPIPE ISA_PIPE_COUNT
#define NMEM ISA_MEM_COUNT
#define NEVENT 8 /* event ids (isa_fmt_flag.event_id) */
#define NONE UINT64_MAX

/* ---- UnitFlag partners ------------------------------------------------------------------ */

void sim_uf_track_init(sim_uf_track *t) { memset(t, 0, sizeof *t); }

/* The L0C bytes an mmad writes or a fixpipe reads, as one span [lo, hi). */
static void l0c_span(const isa_insn *in, uint64_t *lo, uint64_t *hi) {
  isa_range r[ISA_MAX_RANGES];
  size_t n = isa_insn_ranges(in, r);
  *lo = UINT64_MAX;
  *hi = 0;
  for (size_t i = 0; i < n; i++) {
    if (r[i].mem != ISA_MEM_L0C) continue;
    if (r[i].base < *lo) *lo = r[i].base;
    if (isa_range_end(&r[i]) > *hi) *hi = isa_range_end(&r[i]);
  }
}

/* The latest of the n noted spans that overlaps [lo, hi), newest first; SIM_UF_NONE if none. */
static uint64_t latest_overlap(const sim_uf_span *sp, unsigned n, uint64_t lo, uint64_t hi) {
  unsigned kept = n < SIM_UF_SLOTS ? n : SIM_UF_SLOTS;
  for (unsigned j = 1; j <= kept; j++) {
    const sim_uf_span *x = &sp[(n - j) % SIM_UF_SLOTS];
    if (lo < x->hi && x->lo < hi) return x->idx;
  }
  return SIM_UF_NONE;
}

static void note(sim_uf_span *sp, unsigned *n, uint64_t idx, uint64_t lo, uint64_t hi) {
  sp[*n % SIM_UF_SLOTS] = (sim_uf_span){idx, lo, hi};
  (*n)++;
}

uint64_t sim_uf_track_next(sim_uf_track *t, const isa_insn *in, uint64_t idx) {
  uint32_t uf = isa_insn_unit_flag(in);
  if (!uf) return SIM_UF_NONE;
  uint64_t lo, hi, partner;
  l0c_span(in, &lo, &hi);
  if (in->op == ISA_OP_FIXPIPE) {
    partner = latest_overlap(t->mmad, t->nmmad, lo, hi);
    note(t->fix, &t->nfix, idx, lo, hi);
  } else {
    partner = latest_overlap(t->fix, t->nfix, lo, hi);
    if (uf == 3) note(t->mmad, &t->nmmad, idx, lo, hi);
  }
  return partner;
}

uint64_t sim_uf_track_oldest(const sim_uf_track *t, bool fixpipes) {
  const sim_uf_span *sp = fixpipes ? t->fix : t->mmad;
  unsigned n = fixpipes ? t->nfix : t->nmmad, kept = n < SIM_UF_SLOTS ? n : SIM_UF_SLOTS;
  uint64_t oldest = SIM_UF_NONE;
  for (unsigned j = 1; j <= kept; j++)
    if (sp[(n - j) % SIM_UF_SLOTS].idx < oldest) oldest = sp[(n - j) % SIM_UF_SLOTS].idx;
  return oldest;
}

/* ---- vector clocks ---------------------------------------------------------------------- */

/* at[P]: every instruction of pipe P before stream index at[P] has completed. */
typedef struct vclock {
  uint64_t at[NPIPE];
} vclock;

static void vc_join(vclock *a, const vclock *b) {
  for (int p = 0; p < NPIPE; p++)
    if (b->at[p] > a->at[p]) a->at[p] = b->at[p];
}

static void vc_raise(vclock *a, int p, uint64_t v) {
  if (v > a->at[p]) a->at[p] = v;
}

/* A growable array of fixed-size elements with a moving start (queues and windows). */
typedef struct vec {
  void *v;
  size_t head, len, cap, elem;
} vec;

static void *vec_at(const vec *q, size_t i) { return (char *)q->v + (q->head + i) * q->elem; }

static void *vec_push(vec *q) {
  if (q->head + q->len == q->cap) {
    if (q->head > q->cap / 2) { /* half empty at the front: slide down */
      memmove(q->v, vec_at(q, 0), q->len * q->elem);
      q->head = 0;
    } else {
      size_t cap = q->cap ? q->cap * 2 : 16;
      void *v = realloc(q->v, cap * q->elem);
      if (!v) return NULL;
      q->v = v;
      q->cap = cap;
    }
  }
  return vec_at(q, q->len++);
}

static void vec_drop_front(vec *q, size_t n) {
  q->head += n;
  q->len -= n;
  if (!q->len) q->head = 0;
}

/* An access of one instruction to one memory, kept while a later access may find it
 * unordered: the bounds of its bytes there and whether it writes any. */
typedef struct access {
  uint64_t idx, lo, hi;
  uint64_t roff;  /* its ranges in that memory: the window's ranges roff .. roff + nr - 1 */
  uint32_t nr;
  bool writes;
} access;

/* The accesses of one pipe to one memory, in program order, with their overall bounds, and
 * their ranges there (so that a pair is reported without reading the earlier instruction again:
 * a stream read once, a pipe, cannot be). */
typedef struct window {
  vec a; /* of access */
  vec r; /* of isa_range: every kept access's, in order */
  uint64_t r_dropped; /* ranges dropped from the front of r */
  uint64_t lo, hi;
  size_t trimmed_at; /* length after the last trim */
} window;

typedef struct checkpoint {
  uint64_t pos; /* instructions from this index on were dispatched knowing v */
  vclock v;
} checkpoint;

typedef struct uf_pending {
  uint64_t idx, partner;
} uf_pending;

typedef struct uf_done {
  uint64_t idx;
  vclock d; /* what is known once it has completed */
} uf_done;

#define HB_CACHE 1024 /* instructions of a compact stream kept decoded (a power of two) */
#define HB_AHEAD (HB_CACHE / 2) /* instructions the dispatcher runs ahead of the pipes */
#define HB_PIPES 4096 /* the ring of dispatched instructions' pipes at first (a power of two) */

typedef struct hb {
  const isa_insn *s;            /* the stream as an array, or NULL: */
  const sim_stream *rs;         /* the compact stream, decoded through the cache */
  uint64_t *ctag;               /* [HB_CACHE]: the instruction in each slot, NONE: empty */
  sim_stream_cursor seq;        /* reads on from the last instruction decoded in order */
  isa_insn *cins;
  uint64_t n;
  const sim_hb_sink *sink;
  const sim_hb_reach *reach;    /* the stream's, or NULL (prepass finds it) */
  uint8_t *pipe;                /* ring of the pipes (ISA_PIPE_ALL for barrier(ALL)) of the dispatched
                                 * instructions from pipe_lo on: the pipes' cursors lie in [pipe_lo, disp) */
  uint64_t pipe_lo, pipe_mask;  /* the oldest instruction in the ring; its size - 1 (a power of two) */
  uint64_t last[NPIPE][NMEM];   /* the last instruction of pipe P touching memory m, or NONE */
  uint64_t last_of[NPIPE];      /* the last instruction of pipe P, or NONE */
  uint64_t next[NPIPE];         /* the next instruction pipe P has not run */
  uint64_t disp;                /* instructions before it are dispatched */
  vclock k[NPIPE];              /* what pipe P's next instruction knows */
  vclock kd;                    /* what the dispatcher knows */
  vec cps;                      /* checkpoints of kd, in order */
  size_t cp_seen[NPIPE];        /* checkpoints pipe P has folded in (counted from the first) */
  size_t cp_dropped;            /* checkpoints dropped from the front of cps */
  vec flags[NPIPE][NPIPE][NEVENT]; /* vclocks of fired sets not yet waited for */
  window win[NPIPE][NMEM];
  sim_uf_track uf;
  vec uf_pend[NPIPE];           /* (M, FIX): unit-flag instructions dispatched, with partners */
  vec uf_done[NPIPE];           /* (M, FIX): partners that have run, with their clocks */
  bool piped;                   /* rs is a pipe, read once in order: decoded into the ring */
  isa_insn *ring;               /* instructions ring_lo .. ring_hi - 1, decoded (pipe_note's bounds) */
  uint64_t ring_lo, ring_hi, ring_mask;
  bool ended;                   /* the pipe ended before n instructions */
  bool oom;
} hb;

/* Instruction i of a pipe (i <= disp). The ring holds what the pipes' cursors and the dispatcher
 * may still ask for, from the lowest of them on; it doubles when that is not enough. Only the
 * dispatcher's next instruction (i = disp) is decoded: pointers given before stay valid while
 * the pipes run. */
static const isa_insn *ring_in(hb *h, uint64_t i) {
  while (h->ring_hi <= i && !h->ended && !h->oom) {
    if (h->ring_hi - h->ring_lo > h->ring_mask) {
      uint64_t lo = h->disp;
      for (int q = 0; q < NPIPE; q++)
        if (q != ISA_PIPE_S && h->next[q] < lo) lo = h->next[q];
      h->ring_lo = lo;
    }
    if (h->ring_hi - h->ring_lo > h->ring_mask) {
      uint64_t size = (h->ring_mask + 1) * 2;
      isa_insn *r = malloc((size_t)size * sizeof *r);
      if (!r) {
        h->oom = true;
        break;
      }
      for (uint64_t j = h->ring_lo; j < h->ring_hi; j++) r[j & (size - 1)] = h->ring[j & h->ring_mask];
      free(h->ring);
      h->ring = r;
      h->ring_mask = size - 1;
    }
    if (!sim_stream_next(&h->seq, &h->ring[h->ring_hi & h->ring_mask])) h->ended = true;
    else h->ring_hi++;
  }
  if (i >= h->ring_hi) memset(&h->ring[i & h->ring_mask], 0, sizeof *h->ring); /* ended: the caller stops */
  return &h->ring[i & h->ring_mask];
}

/* Instruction i; a pointer valid until the next call. */
static const isa_insn *hb_in(hb *h, uint64_t i) {
  if (h->s) return &h->s[i];
  if (h->piped) return ring_in(h, i);
  size_t slot = (size_t)(i & (HB_CACHE - 1));
  if (h->ctag[slot] != i) {
    if (h->seq.idx == i) sim_stream_next(&h->seq, &h->cins[slot]); /* the dispatcher's next: no jump */
    else sim_stream_get(h->rs, i, &h->cins[slot]);
    h->ctag[slot] = i;
  }
  return &h->cins[slot];
}

/* ---- reporting -------------------------------------------------------------------------- */

/* Conflicting ranges of instruction a (ranges ra) and b (rb) in memory m: reports the pair, in
 * program order, and returns true. */
static bool report_pair(hb *h, uint64_t a, const isa_range *ra, size_t na, uint64_t b, const isa_range *rb,
                        size_t nb, isa_mem m) {
  uint64_t later = a > b ? a : b;
  const isa_range *rl = a > b ? ra : rb, *re = a > b ? rb : ra;
  size_t nl = a > b ? na : nb, ne = a > b ? nb : na;
  for (size_t i = 0; i < nl; i++) {
    if (rl[i].mem != m) continue;
    for (size_t j = 0; j < ne; j++) {
      if (re[j].mem != m || (!rl[i].write && !re[j].write) || !isa_range_overlap(&rl[i], &re[j])) continue;
      sim_hb_hazard hz;
      hz.kind = rl[i].write ? (re[j].write ? SIM_HAZARD_WAW : SIM_HAZARD_WAR) : SIM_HAZARD_RAW;
      hz.earlier = a > b ? b : a;
      hz.later = later;
      hz.mem = m;
      uint64_t lo_l = rl[i].base, hi_l = isa_range_end(&rl[i]), lo_e = re[j].base, hi_e = isa_range_end(&re[j]);
      hz.lo = lo_l > lo_e ? lo_l : lo_e;
      hz.hi = hi_l < hi_e ? hi_l : hi_e;
      h->sink->hazard(h->sink->arg, &hz);
      return true;
    }
  }
  return false;
}

/* ---- windows ---------------------------------------------------------------------------- */

/* Drops the accesses of pipe p to memory m that every access still to come is ordered after:
 * a pipe with more instructions touching m knows they completed (or is p itself, in order). */
static void window_trim(hb *h, int p, int m) {
  window *w = &h->win[p][m];
  uint64_t bound = NONE;
  for (int q = 0; q < NPIPE; q++) {
    if (h->last[q][m] == NONE || h->last[q][m] < h->next[q]) continue; /* no more accesses */
    if (q == p && p != ISA_PIPE_V) continue;
    if (h->k[q].at[p] < bound) bound = h->k[q].at[p];
  }
  size_t drop = 0, ranges = 0;
  for (; drop < w->a.len; drop++) {
    const access *x = vec_at(&w->a, drop);
    if (x->idx >= bound) break;
    ranges += x->nr;
  }
  vec_drop_front(&w->a, drop);
  vec_drop_front(&w->r, ranges);
  w->r_dropped += ranges;
  w->lo = UINT64_MAX;
  w->hi = 0;
  for (size_t i = 0; i < w->a.len; i++) {
    const access *x = vec_at(&w->a, i);
    if (x->lo < w->lo) w->lo = x->lo;
    if (x->hi > w->hi) w->hi = x->hi;
  }
  w->trimmed_at = w->a.len;
}

/* Adds instruction idx's access to memory m: its ranges r[0 .. nr - 1] there. */
static void window_add(hb *h, int p, int m, uint64_t idx, uint64_t lo, uint64_t hi, bool writes, const isa_range *r,
                       uint32_t nr) {
  window *w = &h->win[p][m];
  if (w->a.len >= 16 && w->a.len >= 2 * w->trimmed_at) window_trim(h, p, m);
  uint64_t roff = w->r_dropped + w->r.len;
  for (uint32_t i = 0; i < nr; i++) {
    isa_range *y = vec_push(&w->r);
    if (!y) {
      h->oom = true;
      return;
    }
    *y = r[i];
  }
  access *x = vec_push(&w->a);
  if (!x) {
    h->oom = true;
    return;
  }
  *x = (access){idx, lo, hi, roff, nr, writes};
  if (w->a.len == 1 || lo < w->lo) w->lo = lo;
  if (w->a.len == 1 || hi > w->hi) w->hi = hi;
}

/* The first access of a window at or after stream index `from` (the ones before are ordered). */
static size_t window_from(const window *w, uint64_t from) {
  size_t lo = 0, hi = w->a.len;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (((const access *)vec_at(&w->a, mid))->idx < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* ---- visiting an instruction that touches memory ---------------------------------------- */

#define MAX_PAIRS 64 /* partners already reported for one instruction (more: reported again) */

static void check_and_add(hb *h, uint64_t idx, int p, const vclock *f) {
  isa_range r[ISA_MAX_RANGES], mine[ISA_MAX_RANGES];
  size_t nr = isa_insn_ranges(hb_in(h, idx), r);
  uint64_t seen[MAX_PAIRS];
  size_t nseen = 0;
  for (int m = 0; m < NMEM; m++) {
    uint64_t lo = UINT64_MAX, hi = 0;
    bool writes = false, any = false;
    uint32_t nmine = 0;
    for (size_t i = 0; i < nr; i++) {
      if (r[i].mem != (uint32_t)m) continue;
      any = true;
      mine[nmine++] = r[i];
      writes = writes || r[i].write;
      if (r[i].base < lo) lo = r[i].base;
      if (isa_range_end(&r[i]) > hi) hi = isa_range_end(&r[i]);
    }
    if (!any) continue;
    for (int q = 0; q < NPIPE; q++) {
      const window *w = &h->win[q][m];
      if (!w->a.len || (q == p && p != ISA_PIPE_V) || hi <= w->lo || w->hi <= lo) continue;
      for (size_t i = window_from(w, f->at[q]); i < w->a.len; i++) {
        const access *x = vec_at(&w->a, i);
        if ((!writes && !x->writes) || hi <= x->lo || x->hi <= lo) continue;
        bool dup = false;
        for (size_t j = 0; j < nseen && !dup; j++) dup = seen[j] == x->idx;
        if (dup) continue;
        const isa_range *o = vec_at(&w->r, (size_t)(x->roff - w->r_dropped));
        if (report_pair(h, idx, mine, nmine, x->idx, o, x->nr, (isa_mem)m) && nseen < MAX_PAIRS) seen[nseen++] = x->idx;
      }
    }
    window_add(h, p, m, idx, lo, hi, writes, mine, nmine);
  }
}

/* ---- the abstract machine ----------------------------------------------------------------- */

static vec *flag_queue(hb *h, const isa_insn *in) {
  const isa_fmt_flag *f = &in->u.flag;
  return &h->flags[f->src_pipe][f->dst_pipe][f->event_id];
}

static void fire_set(hb *h, const isa_insn *in, const vclock *v) {
  vclock *x = vec_push(flag_queue(h, in));
  if (!x) h->oom = true;
  else *x = *v;
}

/* The k-th wait takes the k-th set (sets of one event fire in program order on their pipe,
 * waits pass in program order on theirs). False while that set has not fired. */
static bool take_set(hb *h, const isa_insn *in, vclock *into) {
  vec *q = flag_queue(h, in);
  if (!q->len) return false;
  vc_join(into, vec_at(q, 0));
  vec_drop_front(q, 1);
  return true;
}

/* A unit-flag partner that has run: its clock on completion, or NULL. */
static const uf_done *uf_find(const hb *h, int pipe, uint64_t idx) {
  const vec *q = &h->uf_done[pipe];
  size_t lo = 0, hi = q->len;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (((const uf_done *)vec_at(q, mid))->idx < idx) lo = mid + 1;
    else hi = mid;
  }
  const uf_done *d = lo < q->len ? vec_at(q, lo) : NULL;
  return d && d->idx == idx ? d : NULL;
}

/* Forgets the partners no instruction still to come can name. */
static void uf_trim(hb *h, int pipe, int other) {
  vec *q = &h->uf_done[pipe];
  uint64_t keep = sim_uf_track_oldest(&h->uf, pipe != ISA_PIPE_M);
  const vec *pend = &h->uf_pend[other];
  for (size_t i = 0; i < pend->len; i++) {
    uint64_t pt = ((const uf_pending *)vec_at(pend, i))->partner;
    if (pt < keep) keep = pt;
  }
  size_t drop = 0;
  while (drop < q->len && ((const uf_done *)vec_at(q, drop))->idx < keep) drop++;
  vec_drop_front(q, drop);
}

static bool pipe_head(hb *h, int p);

/* Notes that instruction i (= disp) goes to pipe p. The ring keeps what the pipes' cursors have
 * still to pass: from the lowest cursor on (the dispatcher runs a bounded distance ahead of the
 * pipes, so the ring stays small however long the stream); it doubles when that is not enough.
 * False when out of host memory. */
static bool pipe_note(hb *h, uint64_t i, int p) {
  if (i - h->pipe_lo > h->pipe_mask) {
    uint64_t lo = i;
    for (int q = 0; q < NPIPE; q++)
      if (q != ISA_PIPE_S && h->next[q] < lo) lo = h->next[q];
    h->pipe_lo = lo;
  }
  if (i - h->pipe_lo > h->pipe_mask) { /* the pipes lag further behind: a ring twice the size */
    uint64_t size = (h->pipe_mask + 1) * 2;
    uint8_t *r = malloc(size);
    if (!r) {
      h->oom = true;
      return false;
    }
    for (uint64_t j = h->pipe_lo; j < i; j++) r[j & (size - 1)] = h->pipe[j & h->pipe_mask];
    free(h->pipe);
    h->pipe = r;
    h->pipe_mask = size - 1;
  }
  h->pipe[i & h->pipe_mask] = (uint8_t)p;
  return true;
}

/* The dispatcher's step at instruction disp: false when it must stop there. */
static bool dispatch_one(hb *h) {
  uint64_t i = h->disp;
  const isa_insn *in = hb_in(h, i); /* nothing below reads another instruction */
  if (h->ended || h->oom) return false;
  int p = isa_insn_pipe(in);
  if (!pipe_note(h, i, p)) return false;
  if (p == ISA_PIPE_ALL) { /* holds dispatch until every pipe has drained */
    for (int q = 0; q < NPIPE; q++)
      if (q != ISA_PIPE_S && pipe_head(h, q)) return false;
    for (int q = 0; q < NPIPE; q++) vc_raise(&h->kd, q, i);
  } else if (p == ISA_PIPE_S) {
    if (in->op == ISA_OP_WAIT_FLAG && !take_set(h, in, &h->kd)) return false;
    if (in->op == ISA_OP_SET_FLAG) fire_set(h, in, &h->kd); /* fires at once */
  } else {
    uint64_t partner = sim_uf_track_next(&h->uf, in, i);
    if (partner != NONE) {
      uf_pending *u = vec_push(&h->uf_pend[p]);
      if (!u) h->oom = true;
      else *u = (uf_pending){i, partner};
    }
    return true;
  }
  if (h->sink->visit) h->sink->visit(h->sink->arg, i, h->kd.at);
  if (in->op == ISA_OP_WAIT_FLAG || p == ISA_PIPE_ALL) { /* later instructions know more */
    checkpoint *c = vec_push(&h->cps);
    if (!c) h->oom = true;
    else *c = (checkpoint){i + 1, h->kd};
  }
  return true;
}

/* Moves pipe p's cursor to its next dispatched instruction; false when there is none yet. */
static bool pipe_head(hb *h, int p) {
  while (h->next[p] < h->disp && h->pipe[h->next[p] & h->pipe_mask] != p) h->next[p]++;
  return h->next[p] < h->disp;
}

/* Pipe p's step at its next instruction: false when it must wait there (or has none). */
static bool run_one(hb *h, int p) {
  if (!pipe_head(h, p)) return false;
  uint64_t i = h->next[p];
  const isa_insn *in = hb_in(h, i); /* valid until check_and_add reads others */
  const isa_op op = (isa_op)in->op;
  vclock *k = &h->k[p];
  /* what the dispatcher knew when it issued this instruction */
  for (;;) {
    size_t c = h->cp_seen[p] - h->cp_dropped;
    if (c >= h->cps.len) break;
    const checkpoint *cp = vec_at(&h->cps, c);
    if (cp->pos > i) break;
    vc_join(k, &cp->v);
    h->cp_seen[p]++;
  }
  const uf_done *partner = NULL;
  vec *pend = &h->uf_pend[p];
  if (pend->len && ((const uf_pending *)vec_at(pend, 0))->idx == i) {
    uint64_t pt = ((const uf_pending *)vec_at(pend, 0))->partner;
    partner = uf_find(h, p == ISA_PIPE_M ? ISA_PIPE_FIX : ISA_PIPE_M, pt);
    if (!partner) return false; /* has not run yet */
  }
  switch (op) {
    case ISA_OP_SET_FLAG: {
      vclock v = *k;
      vc_raise(&v, p, i); /* fires once p's earlier work has completed */
      fire_set(h, in, &v);
      break;
    }
    case ISA_OP_WAIT_FLAG:
      if (!take_set(h, in, k)) return false;
      break;
    case ISA_OP_PIPE_BARRIER: vc_raise(k, p, i); break;
    default: {
      uint32_t unit_flag = isa_insn_unit_flag(in);
      if (partner) {
        vec_drop_front(pend, 1);
        vc_join(k, &partner->d);
      }
      if (h->sink->visit) h->sink->visit(h->sink->arg, i, k->at);
      check_and_add(h, i, p, k);
      if (unit_flag && (op == ISA_OP_FIXPIPE || unit_flag == 3)) {
        uf_done *d = vec_push(&h->uf_done[p]);
        if (!d) {
          h->oom = true;
          break;
        }
        d->idx = i;
        d->d = *k;
        vc_raise(&d->d, p, i + 1);
        if (h->uf_done[p].len >= 64 && h->uf_done[p].len % 64 == 0)
          uf_trim(h, p, p == ISA_PIPE_M ? ISA_PIPE_FIX : ISA_PIPE_M);
      }
      break;
    }
  }
  h->next[p]++;
  return true;
}

/* Drops the checkpoints every pipe has folded in. */
static void cps_trim(hb *h) {
  size_t low = h->cp_dropped + h->cps.len;
  for (int p = 0; p < NPIPE; p++)
    if (p != ISA_PIPE_S && h->cp_seen[p] < low && h->last_of[p] != NONE && h->next[p] <= h->last_of[p])
      low = h->cp_seen[p];
  vec_drop_front(&h->cps, low - h->cp_dropped);
  h->cp_dropped = low;
}

void sim_hb_reach_note(sim_hb_reach *t, uint64_t idx, isa_pipe pipe, const isa_range *r, size_t n) {
  if (pipe >= ISA_PIPE_COUNT) return; /* barrier(ALL) */
  t->last_of[pipe] = idx;
  t->any[pipe] = true;
  for (size_t j = 0; j < n; j++) {
    t->last[pipe][r[j].mem] = idx;
    t->used[pipe][r[j].mem] = true;
  }
}

/* Each pipe's last access to each memory: the stream's reach, or a pass over the stream. */
static bool prepass(hb *h) {
  h->pipe_mask = HB_PIPES - 1;
  h->pipe = malloc(HB_PIPES);
  if (!h->pipe) return false;
  for (int p = 0; p < NPIPE; p++) {
    h->last_of[p] = h->reach && h->reach->any[p] ? h->reach->last_of[p] : NONE;
    for (int m = 0; m < NMEM; m++) h->last[p][m] = h->reach && h->reach->used[p][m] ? h->reach->last[p][m] : NONE;
  }
  if (h->reach) return true;
  isa_range r[ISA_MAX_RANGES];
  sim_stream_cursor cur;
  if (h->rs) sim_stream_cursor_init(&cur, h->rs, 0);
  for (uint64_t i = 0; i < h->n; i++) {
    const isa_insn *in;
    if (h->rs) { /* in order: read on, into the cache (as hb_in would) */
      size_t slot = (size_t)(i & (HB_CACHE - 1));
      sim_stream_next(&cur, &h->cins[slot]);
      h->ctag[slot] = i;
      in = &h->cins[slot];
    } else {
      in = hb_in(h, i);
    }
    isa_pipe p = isa_insn_pipe(in);
    if (p >= ISA_PIPE_COUNT) continue;
    h->last_of[p] = i;
    size_t nr = isa_insn_ranges(in, r);
    for (size_t j = 0; j < nr; j++) h->last[p][r[j].mem] = i;
  }
  return true;
}

static void hb_free(hb *h) {
  free(h->pipe);
  free(h->ring);
  free(h->ctag);
  free(h->cins);
  free(h->cps.v);
  for (int a = 0; a < NPIPE; a++) {
    free(h->uf_pend[a].v);
    free(h->uf_done[a].v);
    for (int m = 0; m < NMEM; m++) {
      free(h->win[a][m].a.v);
      free(h->win[a][m].r.v);
    }
    for (int b = 0; b < NPIPE; b++)
      for (int e = 0; e < NEVENT; e++) free(h->flags[a][b][e].v);
  }
  free(h);
}

static cs_status check(const isa_insn *s, const sim_stream *rs, const sim_hb_reach *reach, uint64_t n,
                       const sim_hb_sink *sink, cs_err *err) {
  hb *h = calloc(1, sizeof *h);
  if (!h) return cs_err_set(err, CS_ENOMEM, "no host memory for the hazard check");
  h->s = s;
  h->rs = rs;
  h->n = n;
  h->piped = rs && rs->pipe;
  if (h->piped) {
    h->ring_mask = HB_CACHE - 1;
    h->ring = malloc(HB_CACHE * sizeof *h->ring);
    if (!h->ring || !reach) {
      hb_free(h);
      return reach ? cs_err_set(err, CS_ENOMEM, "no host memory for the hazard check")
                   : cs_err_set(err, CS_EINTERNAL, "the hazard check of a pipe needs its reach");
    }
    sim_stream_cursor_init(&h->seq, rs, 0);
  } else if (rs) {
    h->ctag = malloc(HB_CACHE * sizeof *h->ctag);
    h->cins = malloc(HB_CACHE * sizeof *h->cins);
    if (!h->ctag || !h->cins) {
      hb_free(h);
      return cs_err_set(err, CS_ENOMEM, "no host memory for the hazard check");
    }
    for (size_t i = 0; i < HB_CACHE; i++) h->ctag[i] = NONE;
    sim_stream_cursor_init(&h->seq, rs, 0);
  }
  h->sink = sink;
  h->reach = reach;
  sim_uf_track_init(&h->uf);
  h->cps.elem = sizeof(checkpoint);
  for (int a = 0; a < NPIPE; a++) {
    h->uf_pend[a].elem = sizeof(uf_pending);
    h->uf_done[a].elem = sizeof(uf_done);
    for (int m = 0; m < NMEM; m++) {
      h->win[a][m].a.elem = sizeof(access);
      h->win[a][m].r.elem = sizeof(isa_range);
    }
    for (int b = 0; b < NPIPE; b++)
      for (int e = 0; e < NEVENT; e++) h->flags[a][b][e].elem = sizeof(vclock);
  }
  bool ok = prepass(h);
  uint64_t steps = 0;
  /* The dispatcher runs at most `ahead` instructions ahead of the pipes' oldest unvisited one
   * (HB_AHEAD, so that the instructions the pipes visit are still decoded in the cache); when
   * nothing can move, the pipes wait for a set_flag further on: the bound doubles until it
   * reaches the end. Any order of the steps gives the same hazards. */
  uint64_t ahead = HB_AHEAD;
  for (bool moved = true; ok && !h->oom;) {
    if (!moved) {
      if (ahead >= n || h->disp >= n) break;
      ahead *= 2;
    } else {
      ahead = HB_AHEAD;
    }
    moved = false;
    uint64_t lowest = h->disp;
    for (int p = 0; p < NPIPE; p++)
      if (p != ISA_PIPE_S && pipe_head(h, p) && h->next[p] < lowest) lowest = h->next[p];
    uint64_t limit = n - lowest <= ahead ? n : lowest + ahead;
    while (h->disp < limit && dispatch_one(h)) {
      h->disp++;
      moved = true;
    }
    for (int p = 0; p < NPIPE; p++)
      if (p != ISA_PIPE_S)
        while (!h->oom && run_one(h, p)) {
          moved = true;
          if (++steps % 4096 == 0) cps_trim(h);
        }
    cps_trim(h);
  }
  ok = ok && !h->oom;
  bool ended = h->ended;
  uint64_t got = h->ring_hi;
  hb_free(h);
  if (ok && ended)
    return cs_err_set(err, CS_EINTERNAL, "the hazard check's pipe ended after %llu of %llu instructions",
                      (unsigned long long)got, (unsigned long long)n);
  return ok ? CS_OK : cs_err_set(err, CS_ENOMEM, "no host memory for the hazard check");
}

cs_status sim_hb_check(const isa_insn *s, uint64_t n, const sim_hb_sink *sink, cs_err *err) {
  return check(s, NULL, NULL, n, sink, err);
}

cs_status sim_hb_check_stream(const sim_stream *s, const sim_hb_reach *reach, const sim_hb_sink *sink, cs_err *err) {
  return check(NULL, s, reach, s->n, sink, err);
}

cs_status sim_hb_check_pipe(const sim_stream *pipe, uint64_t n, const sim_hb_reach *reach, const sim_hb_sink *sink,
                            cs_err *err) {
  return check(NULL, pipe, reach, n, sink, err);
}
