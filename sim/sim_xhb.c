/* sim_xhb — hazards between cores through GM (sim_xhb.h). */
#include "sim/sim_xhb.h"

#include <stdlib.h>
#include <string.h>

#include "sim/sim_hb.h"
#include "sim/sim_internal.h"
#include "sim/sim_xcore.h"

#define NP ISA_PIPE_COUNT
#define DISP NP           /* the dispatcher's list: waits on S and sync_all passes */
#define LISTS (NP + 1)
#define MAX_RUNS 4096     /* runs of one strided range taken one by one (more: its bounds) */

/* ---- growable arrays ---------------------------------------------------------------------- */

typedef struct arr {
  void *v;
  size_t n, cap, elem;
} arr;

static void *arr_push(arr *a, bool *oom) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 16;
    void *v = realloc(a->v, cap * a->elem);
    if (!v) {
      *oom = true;
      return NULL;
    }
    a->v = v;
    a->cap = cap;
  }
  return (char *)a->v + a->n++ * a->elem;
}

static void *arr_at(const arr *a, size_t i) { return (char *)a->v + i * a->elem; }

/* ---- step 1: pairs of cores' accesses to the same GM bytes -------------------------------- */

/* A contiguous run of GM bytes one instruction touches. */
typedef struct run {
  uint64_t lo, hi, idx;
  uint32_t core;
  bool write;
} run;

typedef struct conflict {
  uint32_t ca, cb; /* ca's instruction a writes; cb's b reads (RAW) or writes (WAW) */
  uint64_t a, b, lo, hi;
  sim_hazard_kind kind;
} conflict;

/* Per GM tensor: the first core touching it, whether another does, whether any writes. */
typedef struct tensor_use {
  uint32_t first;
  bool touched, shared, written;
} tensor_use;

static int run_cmp(const void *x, const void *y) {
  const run *a = x, *b = y;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->core != b->core) return a->core < b->core ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static long tensor_of(const sim *s, uint64_t addr) {
  const sim_seg *seg = sim_buf_find(&s->gm, addr, 1);
  return seg ? (long)(seg - s->gm.segs) : -1;
}

/* The runs of the GM accesses to tensors that two cores touch and one writes. */
static bool collect_runs(sim *s, arr *runs) {
  size_t nt = s->gm.seg_count;
  tensor_use *u = calloc(nt ? nt : 1, sizeof *u);
  if (!u) return false;
  isa_range r[ISA_MAX_RANGES];
  bool any_shared = false;
  for (unsigned c = 0; c < s->ncores; c++)
    for (sim_stream_cursor cur = {.s = &s->cores[c].rec}; cur.idx < s->cores[c].len;) {
      isa_insn in;
      sim_stream_next(&cur, &in);
      size_t nr = isa_insn_ranges(&in, r);
      for (size_t j = 0; j < nr; j++) {
        if (r[j].mem != ISA_MEM_GM) continue;
        long t = tensor_of(s, r[j].base);
        if (t < 0) continue;
        if (!u[t].touched) u[t].first = c, u[t].touched = true;
        else if (u[t].first != c) u[t].shared = true;
        if (r[j].write) u[t].written = true;
      }
    }
  for (size_t t = 0; t < nt; t++) any_shared = any_shared || (u[t].shared && u[t].written);
  bool oom = false;
  for (unsigned c = 0; any_shared && c < s->ncores && !oom; c++)
    for (sim_stream_cursor cur = {.s = &s->cores[c].rec}; cur.idx < s->cores[c].len && !oom;) {
      size_t i = (size_t)cur.idx;
      isa_insn in;
      sim_stream_next(&cur, &in);
      size_t nr = isa_insn_ranges(&in, r);
      for (size_t j = 0; j < nr && !oom; j++) {
        if (r[j].mem != ISA_MEM_GM) continue;
        long t = tensor_of(s, r[j].base);
        if (t < 0 || !u[t].shared || !u[t].written) continue;
        bool contiguous = r[j].rows <= 1 || r[j].stride_bytes == r[j].row_bytes;
        uint64_t n = contiguous || r[j].rows > MAX_RUNS ? 1 : r[j].rows;
        for (uint64_t k = 0; k < n; k++) {
          run *x = arr_push(runs, &oom);
          if (!x) break;
          x->lo = r[j].base + k * r[j].stride_bytes;
          x->hi = n == 1 ? isa_range_end(&r[j]) : x->lo + r[j].row_bytes;
          x->idx = i;
          x->core = c;
          x->write = r[j].write;
        }
      }
    }
  free(u);
  return !oom;
}

/* Pairs of runs of different cores that overlap, one writing; one conflict per pair of
 * instructions (the first overlap found). */
static bool find_conflicts(arr *runs, arr *out) {
  if (runs->n > 1) qsort(runs->v, runs->n, sizeof(run), run_cmp);
  bool oom = false;
  size_t *active = malloc((runs->n ? runs->n : 1) * sizeof *active);
  if (!active) return false;
  size_t nactive = 0;
  for (size_t i = 0; i < runs->n && !oom; i++) {
    const run *x = arr_at(runs, i);
    size_t w = 0;
    for (size_t j = 0; j < nactive; j++) {
      const run *y = arr_at(runs, active[j]);
      if (y->hi <= x->lo) continue; /* ended: dropped */
      active[w++] = active[j];
      if (y->core == x->core || (!x->write && !y->write)) continue;
      const run *wr = y->write ? y : x, *other = y->write ? x : y;
      bool dup = false;
      for (size_t k = out->n; k-- > 0 && k + 64 >= out->n && !dup;) {
        const conflict *c = arr_at(out, k);
        dup = c->ca == wr->core && c->a == wr->idx && c->cb == other->core && c->b == other->idx;
      }
      if (dup) continue;
      conflict *c = arr_push(out, &oom);
      if (!c) break;
      c->ca = wr->core;
      c->a = wr->idx;
      c->cb = other->core;
      c->b = other->idx;
      c->lo = x->lo > y->lo ? x->lo : y->lo;
      c->hi = x->hi < y->hi ? x->hi : y->hi;
      c->kind = other->write ? SIM_HAZARD_WAW : SIM_HAZARD_RAW;
    }
    nactive = w;
    active[nactive++] = i;
  }
  free(active);
  return !oom;
}

/* ---- step 2: what each instruction that matters knows on its core ------------------------ */

typedef struct need {
  uint64_t idx;
  uint64_t f[NP];
} need;

static int need_cmp(const void *x, const void *y) {
  const need *a = x, *b = y;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static const need *need_find(const arr *a, uint64_t idx) {
  size_t lo = 0, hi = a->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (((const need *)arr_at(a, mid))->idx < idx) lo = mid + 1;
    else hi = mid;
  }
  const need *n = lo < a->n ? arr_at(a, lo) : NULL;
  return n && n->idx == idx ? n : NULL;
}

static void visit(void *arg, uint64_t idx, const uint64_t frontier[ISA_PIPE_COUNT]) {
  need *n = (need *)(uintptr_t)need_find(arg, idx);
  if (n) memcpy(n->f, frontier, sizeof n->f);
}

static void ignore_hazard(void *arg, const sim_hb_hazard *h) {
  (void)arg;
  (void)h;
}

static void add_need(arr *a, uint64_t idx, bool *oom) {
  need *n = arr_push(a, oom);
  if (!n) return;
  memset(n, 0, sizeof *n);
  n->idx = idx;
}

/* Sorts each core's needs, drops repeats and runs sim_hb_check to fill their frontiers. */
static cs_status frontiers(sim *s, arr *needs, cs_err *err) {
  for (unsigned c = 0; c < s->ncores; c++) {
    arr *a = &needs[c];
    if (!a->n) continue;
    qsort(a->v, a->n, sizeof(need), need_cmp);
    size_t w = 0;
    for (size_t i = 0; i < a->n; i++)
      if (!w || ((need *)arr_at(a, w - 1))->idx != ((need *)arr_at(a, i))->idx)
        memmove(arr_at(a, w++), arr_at(a, i), sizeof(need));
    a->n = w;
    sim_hb_sink sink = {ignore_hazard, a, visit};
    cs_status st = sim_hb_check_stream(&s->cores[c].rec, &s->cores[c].reach, &sink, err);
    if (st != CS_OK) return st;
  }
  return CS_OK;
}

/* ---- step 3: knowledge across cores -------------------------------------------------------- */

/* Knowledge: for every core and pipe a frontier (every instruction of that pipe of that core
 * before the index has completed): kw = cores x NP words, kept in a pool and named by index. */
typedef struct know {
  uint64_t *pool;
  size_t n, cap, kw;
  bool oom;
} know;

static size_t k_new(know *k) {
  if (k->n == k->cap) {
    size_t cap = k->cap ? k->cap * 2 : 64;
    uint64_t *p = realloc(k->pool, cap * k->kw * sizeof *p);
    if (!p) {
      k->oom = true;
      return 0;
    }
    k->pool = p;
    k->cap = cap;
  }
  memset(k->pool + k->n * k->kw, 0, k->kw * sizeof *k->pool);
  return k->n++;
}

static uint64_t *k_at(const know *k, size_t i) { return k->pool + i * k->kw; }

static void k_join(know *k, size_t dst, size_t src) {
  uint64_t *d = k_at(k, dst);
  const uint64_t *x = k_at(k, src);
  for (size_t i = 0; i < k->kw; i++)
    if (x[i] > d[i]) d[i] = x[i];
}

/* A pipe's (or the dispatcher's) waits that passed, in program order, each with what is known
 * once it and every earlier one of the list passed (cumulative). */
typedef struct wlist {
  arr idx; /* uint64_t */
  arr k;   /* size_t */
} wlist;

typedef struct xcore_k {
  wlist lists[LISTS];
  uint32_t sync_arrived[2], sync_passed[2];
} xcore_k;

typedef struct xk {
  sim *s;
  know k;
  xcore_k *cx;
  arr *dq;     /* [core][id]: size_t knowledge of rounds delivered, not yet taken */
  size_t *dq_head;
  arr *arrive; /* [mode][core][id]: size_t knowledge of each arrival */
  uint32_t *gen;
  unsigned nslots;
  arr rounds[2]; /* SyncAll rounds' knowledge (size_t) */
  sim_xcore topo;
  bool oom;
} xk;

static size_t wl_count_below(const wlist *l, uint64_t bound) {
  size_t lo = 0, hi = l->idx.n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (*(const uint64_t *)arr_at(&l->idx, mid) < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Joins into dst what core c's waits ordered before an instruction imported: on pipe p at idx with
 * frontier f (p = ISA_PIPE_ALL: an instruction every earlier one completes before, sync_all). */
static void imported(xk *x, unsigned c, isa_pipe p, uint64_t idx, const uint64_t *f, size_t dst) {
  for (int q = 0; q < LISTS; q++) {
    const wlist *l = &x->cx[c].lists[q];
    if (!l->idx.n) continue;
    uint64_t bound = q == DISP || p == ISA_PIPE_ALL || q == (int)p ? idx : f[q];
    size_t m = wl_count_below(l, bound);
    if (m) k_join(&x->k, dst, *(const size_t *)arr_at(&l->k, m - 1));
  }
}

static void local(xk *x, unsigned c, isa_pipe p, uint64_t idx, const uint64_t *f, size_t dst) {
  uint64_t *d = k_at(&x->k, dst) + (size_t)c * NP;
  for (int q = 0; q < NP; q++) {
    uint64_t v = f[q];
    if ((p == ISA_PIPE_ALL || q == (int)p) && idx > v) v = idx;
    if (v > d[q]) d[q] = v;
  }
}

static void wl_append(xk *x, wlist *l, uint64_t idx, size_t add) {
  size_t kn = k_new(&x->k);
  if (l->k.n) k_join(&x->k, kn, *(const size_t *)arr_at(&l->k, l->k.n - 1));
  k_join(&x->k, kn, add);
  uint64_t *i = arr_push(&l->idx, &x->oom);
  size_t *k = arr_push(&l->k, &x->oom);
  if (i) *i = idx;
  if (k) *k = kn;
}

static void push_size(arr *a, size_t v, bool *oom) {
  size_t *p = arr_push(a, oom);
  if (p) *p = v;
}

static void on_set(xk *x, unsigned c, uint64_t i, const isa_insn *in, const uint64_t *f) {
  isa_pipe p = isa_insn_pipe(in);
  unsigned mode = in->u.xflag.mode, id = in->u.xflag.flag_id, n = x->topo.ncores;
  size_t kn = k_new(&x->k);
  local(x, c, p, i, f, kn);
  imported(x, c, p, i, f, kn);
  unsigned t[SIM_XCORE_MAX_TARGETS];
  if (mode == 2 && !sim_xcore_is_aiv(&x->topo, c)) {
    unsigned nt = sim_xcore_targets(&x->topo, c, 2, t);
    for (unsigned j = 0; j < nt; j++) push_size(&x->dq[(size_t)t[j] * SIM_XFLAG_IDS + id], kn, &x->oom);
    return;
  }
  /* an arrival: the round completes when every core of its set has arrived once more */
  unsigned a[SIM_XCORE_MAX_TARGETS], na;
  unsigned g = c < x->topo.naic ? c : (c - x->topo.naic) / (x->topo.per ? x->topo.per : 1);
  if (mode == 2) na = sim_xcore_targets(&x->topo, g, 2, a); /* the AIVs of its AI core */
  else na = sim_xcore_targets(&x->topo, c, mode, a);
  push_size(&x->arrive[((size_t)mode * n + c) * SIM_XFLAG_IDS + id], kn, &x->oom);
  size_t least = SIZE_MAX;
  for (unsigned j = 0; j < na; j++) {
    size_t cnt = x->arrive[((size_t)mode * n + a[j]) * SIM_XFLAG_IDS + id].n;
    if (cnt < least) least = cnt;
  }
  unsigned slot = mode == 0 ? (sim_xcore_is_aiv(&x->topo, c) ? 1u : 0u) : g;
  uint32_t *gen = &x->gen[((size_t)mode * x->nslots + slot) * SIM_XFLAG_IDS + id];
  if (!na || least == SIZE_MAX || least <= *gen) return;
  size_t round = k_new(&x->k);
  for (unsigned j = 0; j < na && !x->k.oom; j++)
    k_join(&x->k, round, *(const size_t *)arr_at(&x->arrive[((size_t)mode * n + a[j]) * SIM_XFLAG_IDS + id], *gen));
  (*gen)++;
  unsigned nt = sim_xcore_targets(&x->topo, c, mode, t);
  for (unsigned j = 0; j < nt; j++) push_size(&x->dq[(size_t)t[j] * SIM_XFLAG_IDS + id], round, &x->oom);
}

static void on_wait(xk *x, unsigned c, uint64_t i, const isa_insn *in) {
  isa_pipe p = isa_insn_pipe(in);
  size_t slot = (size_t)c * SIM_XFLAG_IDS + in->u.xflag.flag_id;
  if (x->dq_head[slot] >= x->dq[slot].n) return; /* cannot happen: the replay matched it */
  size_t kn = *(const size_t *)arr_at(&x->dq[slot], x->dq_head[slot]++);
  wl_append(x, &x->cx[c].lists[p == ISA_PIPE_S ? DISP : (int)p], i, kn);
}

static void on_sync(xk *x, unsigned c, uint64_t i, const isa_insn *in, const uint64_t *f, bool arrive) {
  unsigned s = in->u.syncall.aiv_only ? 1 : 0;
  if (arrive) {
    uint32_t r = x->cx[c].sync_arrived[s]++;
    while (x->rounds[s].n <= r && !x->oom) push_size(&x->rounds[s], k_new(&x->k), &x->oom);
    if (x->oom || x->k.oom) return;
    size_t kn = k_new(&x->k);
    local(x, c, ISA_PIPE_ALL, i, f, kn);
    imported(x, c, ISA_PIPE_ALL, i, f, kn);
    k_join(&x->k, *(const size_t *)arr_at(&x->rounds[s], r), kn);
    return;
  }
  uint32_t r = x->cx[c].sync_passed[s]++;
  if (r < x->rounds[s].n) wl_append(x, &x->cx[c].lists[DISP], i, *(const size_t *)arr_at(&x->rounds[s], r));
}

/* ---- the check ---------------------------------------------------------------------------- */

static void xk_free(xk *x) {
  unsigned n = x->s->ncores;
  if (x->cx)
    for (unsigned c = 0; c < n; c++)
      for (int q = 0; q < LISTS; q++) {
        free(x->cx[c].lists[q].idx.v);
        free(x->cx[c].lists[q].k.v);
      }
  if (x->dq)
    for (size_t i = 0; i < (size_t)n * SIM_XFLAG_IDS; i++) free(x->dq[i].v);
  if (x->arrive)
    for (size_t i = 0; i < (size_t)3 * n * SIM_XFLAG_IDS; i++) free(x->arrive[i].v);
  free(x->cx);
  free(x->dq);
  free(x->dq_head);
  free(x->arrive);
  free(x->gen);
  free(x->rounds[0].v);
  free(x->rounds[1].v);
  free(x->k.pool);
  sim_xcore_free(&x->topo);
}

static cs_status xk_init(xk *x, sim *s, cs_err *err) {
  memset(x, 0, sizeof *x);
  x->s = s;
  unsigned n = s->ncores;
  x->k.kw = (size_t)n * NP;
  x->nslots = s->naic > 2 ? s->naic : 2;
  bool *active = calloc(n ? n : 1, sizeof *active);
  if (!active) return cs_err_set(err, CS_ENOMEM, "no host memory for the cross-core hazard check");
  for (unsigned c = 0; c < n; c++) active[c] = s->cores[c].len > 0;
  cs_status st = sim_xcore_init(&x->topo, n, s->naic, (unsigned)s->cfg.chip_aiv_per_aic, active, err);
  free(active);
  if (st != CS_OK) return st;
  x->cx = calloc(n ? n : 1, sizeof *x->cx);
  x->dq = calloc((size_t)n * SIM_XFLAG_IDS + 1, sizeof *x->dq);
  x->dq_head = calloc((size_t)n * SIM_XFLAG_IDS + 1, sizeof *x->dq_head);
  x->arrive = calloc((size_t)3 * n * SIM_XFLAG_IDS + 1, sizeof *x->arrive);
  x->gen = calloc((size_t)3 * x->nslots * SIM_XFLAG_IDS, sizeof *x->gen);
  if (!x->cx || !x->dq || !x->dq_head || !x->arrive || !x->gen)
    return cs_err_set(err, CS_ENOMEM, "no host memory for the cross-core hazard check");
  for (unsigned c = 0; c < n; c++)
    for (int q = 0; q < LISTS; q++) {
      x->cx[c].lists[q].idx.elem = sizeof(uint64_t);
      x->cx[c].lists[q].k.elem = sizeof(size_t);
    }
  for (size_t i = 0; i < (size_t)n * SIM_XFLAG_IDS; i++) x->dq[i].elem = sizeof(size_t);
  for (size_t i = 0; i < (size_t)3 * n * SIM_XFLAG_IDS; i++) x->arrive[i].elem = sizeof(size_t);
  x->rounds[0].elem = x->rounds[1].elem = sizeof(size_t);
  k_new(&x->k); /* knowledge 0: nothing */
  return x->k.oom ? cs_err_set(err, CS_ENOMEM, "no host memory for the cross-core hazard check") : CS_OK;
}

/* Whether instruction a of core ca is known complete before instruction b of core cb starts. */
static bool ordered(xk *x, const arr *needs, unsigned ca, uint64_t a, unsigned cb, uint64_t b, size_t scratch) {
  const need *nb = need_find(&needs[cb], b);
  if (!nb) return false;
  memset(k_at(&x->k, scratch), 0, x->k.kw * sizeof(uint64_t));
  isa_insn ib, ia;
  sim_stream_get(&x->s->cores[cb].rec, b, &ib);
  sim_stream_get(&x->s->cores[ca].rec, a, &ia);
  imported(x, cb, isa_insn_pipe(&ib), b, nb->f, scratch);
  isa_pipe pa = isa_insn_pipe(&ia);
  return pa < NP && k_at(&x->k, scratch)[(size_t)ca * NP + pa] > a;
}

cs_status sim_xhb_check(sim *s, const sim_xhb_event *log, size_t nlog, const sim_xhb_sink *sink, cs_err *err) {
  arr runs = {NULL, 0, 0, sizeof(run)}, conf = {NULL, 0, 0, sizeof(conflict)};
  arr *needs = NULL;
  xk x;
  bool have_x = false;
  cs_status st = CS_OK;
  if (!collect_runs(s, &runs) || !find_conflicts(&runs, &conf)) {
    st = cs_err_set(err, CS_ENOMEM, "no host memory for the cross-core hazard check");
    goto done;
  }
  free(runs.v);
  runs.v = NULL;
  if (!conf.n) goto done; /* no two cores touch the same GM bytes with a write */
  needs = calloc(s->ncores, sizeof *needs);
  if (!needs) {
    st = cs_err_set(err, CS_ENOMEM, "no host memory for the cross-core hazard check");
    goto done;
  }
  bool oom = false;
  for (unsigned c = 0; c < s->ncores; c++) needs[c].elem = sizeof(need);
  for (size_t i = 0; i < conf.n; i++) {
    const conflict *c = arr_at(&conf, i);
    add_need(&needs[c->ca], c->a, &oom);
    add_need(&needs[c->cb], c->b, &oom);
  }
  for (size_t i = 0; i < nlog; i++) add_need(&needs[log[i].core], log[i].idx, &oom);
  if (oom) {
    st = cs_err_set(err, CS_ENOMEM, "no host memory for the cross-core hazard check");
    goto done;
  }
  if ((st = frontiers(s, needs, err)) != CS_OK) goto done;
  if ((st = xk_init(&x, s, err)) != CS_OK) {
    have_x = true;
    goto done;
  }
  have_x = true;
  for (size_t i = 0; i < nlog && !x.oom && !x.k.oom; i++) {
    unsigned c = log[i].core;
    isa_insn in_copy;
    sim_stream_get(&s->cores[c].rec, log[i].idx, &in_copy);
    const isa_insn *in = &in_copy;
    const need *nd = need_find(&needs[c], log[i].idx);
    static const uint64_t zero[NP];
    const uint64_t *f = nd ? nd->f : zero;
    switch ((sim_xhb_what)log[i].what) {
      case SIM_XHB_SET: on_set(&x, c, log[i].idx, in, f); break;
      case SIM_XHB_WAIT: on_wait(&x, c, log[i].idx, in); break;
      case SIM_XHB_SYNC_ARRIVE: on_sync(&x, c, log[i].idx, in, f, true); break;
      case SIM_XHB_SYNC_PASS: on_sync(&x, c, log[i].idx, in, f, false); break;
    }
  }
  size_t scratch = k_new(&x.k);
  if (x.oom || x.k.oom) {
    st = cs_err_set(err, CS_ENOMEM, "no host memory for the cross-core hazard check");
    goto done;
  }
  for (size_t i = 0; i < conf.n; i++) {
    const conflict *c = arr_at(&conf, i);
    if (sim_launch_of(s, c->ca, c->a) != sim_launch_of(s, c->cb, c->b)) continue; /* the host orders launches */
    if (ordered(&x, needs, c->ca, c->a, c->cb, c->b, scratch) || ordered(&x, needs, c->cb, c->b, c->ca, c->a, scratch))
      continue;
    sim_xhb_hazard h = {c->kind, c->ca, c->cb, c->a, c->b, c->lo, c->hi};
    sink->hazard(sink->arg, &h);
  }
done:
  if (have_x) xk_free(&x);
  if (needs)
    for (unsigned c = 0; c < s->ncores; c++) free(needs[c].v);
  free(needs);
  free(runs.v);
  free(conf.v);
  return st;
}
