/* sim — the simulator handle, GM, per-core buffers and the record phase (check, apply, append). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cs_host.h"
#include "sim/sim_internal.h"
#include "sim/sim_trace.h"

/* Size and alignment of each on-chip buffer, from the configuration. */
static void onchip_geometry(const sim_config *c, isa_mem mem, uint64_t *bytes, uint64_t *align) {
  switch (mem) {
    case ISA_MEM_L1: *bytes = c->buffers_l1_bytes; *align = c->buffers_l1_align_bytes; break;
    case ISA_MEM_L0A: *bytes = c->buffers_l0a_bytes; *align = c->buffers_l0a_align_bytes; break;
    case ISA_MEM_L0B: *bytes = c->buffers_l0b_bytes; *align = c->buffers_l0b_align_bytes; break;
    case ISA_MEM_L0C: *bytes = c->buffers_l0c_bytes; *align = c->buffers_l0c_align_bytes; break;
    case ISA_MEM_UB: *bytes = c->buffers_ub_bytes; *align = c->buffers_ub_align_bytes; break;
    case ISA_MEM_BT: *bytes = c->buffers_bt_bytes; *align = c->buffers_bt_align_bytes; break;
    case ISA_MEM_FB: *bytes = c->buffers_fb_bytes; *align = c->buffers_fb_align_bytes; break;
    default: *bytes = 0; *align = 1; break;
  }
}

/* ---- host memory ------------------------------------------------------------------------ */

/* The on-chip buffers of one core plus its functional workspace (at most one instruction's
 * operands: L0A + L0B + L0C). */
static uint64_t core_buffer_bytes(const sim_config *c) {
  uint64_t sum = 0;
  for (int m = 0; m < ISA_MEM_COUNT; m++) {
    uint64_t bytes, align;
    if (m == ISA_MEM_GM) continue;
    onchip_geometry(c, (isa_mem)m, &bytes, &align);
    sum += bytes;
  }
  return sum + c->buffers_l0a_bytes + c->buffers_l0b_bytes + c->buffers_l0c_bytes;
}

/* a + b, saturating (estimates of absurd runs must not wrap around into small numbers) */
static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t mul_sat(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

void sim_footprint_estimate(const sim_config *cfg, const sim_footprint_run *run, sim_footprint *out) {
  memset(out, 0, sizeof *out);
  if (!run->timing_only) {
    out->buffers_bytes = mul_sat(core_buffer_bytes(cfg), cfg->chip_aic_cores);
    out->gm_bytes = run->gm_bytes;
  }
  bool streamed = run->timing_only && run->streamable && !run->traced && sim_host_threads(run->host_threads) > 1;
#ifdef CUBESIM_NO_THREADS
  streamed = false;
#endif
  uint64_t instructions = run->instructions;
  out->stream_bytes = streamed ? sim_engine_stream_bytes((unsigned)cfg->chip_aic_cores) : sim_stream_typical_bytes(instructions, (unsigned)cfg->chip_aic_cores);
  uint64_t l2 = cfg->l2_enabled && cfg->l2_line_bytes ? cfg->l2_bytes / cfg->l2_line_bytes * 16 : 0; /* tag + stamp */
  /* the replay keeps the instructions in flight of each core (sim_engine_window_insns at first;
   * more only when that many are in flight) */
  uint64_t window = mul_sat(cfg->chip_aic_cores, sim_engine_window_insns());
  out->replay_bytes = add_sat(add_sat(mul_sat(instructions < window ? instructions : window, sim_engine_insn_bytes()), l2),
                              run->traced ? sim_trace_buffer_bytes() : 0);
  out->total_bytes = add_sat(add_sat(out->buffers_bytes, out->gm_bytes), add_sat(out->stream_bytes, out->replay_bytes));
}

void sim_footprint_text(const sim_footprint *f, char *out, size_t out_bytes) {
  const struct {
    const char *name;
    uint64_t bytes;
  } parts[] = {{"on-chip buffers", f->buffers_bytes},
               {"GM data", f->gm_bytes},
               {"recorded streams", f->stream_bytes},
               {"replay state", f->replay_bytes}};
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < sizeof parts / sizeof parts[0] && used < out_bytes; i++) {
    if (!parts[i].bytes) continue;
    char b[32];
    cs_bytes_text(parts[i].bytes, b, sizeof b);
    used += (size_t)snprintf(out + used, out_bytes - used, "%s%s %s", used ? ", " : "", parts[i].name, b);
  }
}

/* Counts `bytes` more of host memory against the limit; CS_ENOMEM naming `what` when over it. */
static cs_status take_host(sim *s, uint64_t bytes, const char *what, cs_err *err) {
  uint64_t after = add_sat(s->host_bytes, bytes);
  if (s->max_host_bytes && after > s->max_host_bytes) {
    char want[32], limit[32], now[32];
    cs_bytes_text(bytes, want, sizeof want);
    cs_bytes_text(s->max_host_bytes, limit, sizeof limit);
    cs_bytes_text(s->host_bytes, now, sizeof now);
    return cs_err_set(err, CS_ENOMEM, "host memory: %s needs %s more, over the limit of %s (%s in use)", what, want,
                      limit, now);
  }
  s->host_bytes = after;
  return CS_OK;
}

/* What the cores share while they record on several threads (sim_record_concurrently). */
static void shared_lock(sim *s) {
#ifndef CUBESIM_NO_THREADS
  if (s->concurrent) mtx_lock(&s->lock);
#else
  (void)s;
#endif
}

static void shared_unlock(sim *s) {
#ifndef CUBESIM_NO_THREADS
  if (s->concurrent) mtx_unlock(&s->lock);
#else
  (void)s;
#endif
}

static void report_recorded(sim *s, uint64_t recorded) {
  sim_progress p = {.recorded = recorded};
  s->progress->fn(s->progress->ctx, &p);
}

/* Recording concurrently, a core adds what it recorded to the count every PROGRESS_BATCH
 * instructions (a shared count touched by every instruction would be fought over), and the hook
 * hears of every SIM_PROGRESS_STEP the count passes, one thread at a time. */
#define PROGRESS_BATCH 4096u

static void count_unreported(sim *s, sim_core *c) {
  shared_lock(s);
  uint64_t before = s->recorded;
  s->recorded += c->unreported;
  c->unreported = 0;
  if (before / SIM_PROGRESS_STEP != s->recorded / SIM_PROGRESS_STEP) report_recorded(s, s->recorded);
  shared_unlock(s);
}

void sim_host_fail(sim *s, const char *fmt, ...) {
  shared_lock(s);
  if (!s->host_failed) {
    s->host_err.code = CS_ENOMEM;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->host_err.msg, sizeof s->host_err.msg, fmt, ap);
    va_end(ap);
    s->host_failed = true;
  }
  shared_unlock(s);
}

cs_status sim_host_status(const sim *s, cs_err *err) {
  if (!s->host_failed) return CS_OK;
  if (err) *err = s->host_err;
  return CS_ENOMEM;
}

/* An AIV's buffers: its UB (docs/DESIGN.md §4: the vector core's only on-chip memory). */
static uint64_t aiv_buffer_bytes(const sim_config *c) { return c->aiv_ub_bytes; }

/* Core `index` of the kind: its buffers (an AIV has a UB only; its other buffers are empty, so
 * any access to them faults) and its functional workspace. */
static cs_status init_core(sim *s, sim_core *c, unsigned index, sim_core_kind kind, unsigned group, unsigned sub,
                           cs_err *err) {
  c->owner = s;
  c->index = index;
  c->kind = kind;
  c->group = group;
  c->sub = sub;
  c->view = calloc(1, sizeof *c->view);
  if (!c->view) return cs_err_set(err, CS_ENOMEM, "no host memory for core %u", index);
  for (int m = 0; m < ISA_MEM_COUNT; m++) {
    if (m == ISA_MEM_GM) continue;
    uint64_t bytes, align;
    onchip_geometry(&s->cfg, (isa_mem)m, &bytes, &align);
    if (kind == SIM_CORE_AIV) bytes = m == ISA_MEM_UB ? s->cfg.aiv_ub_bytes : 0;
    cs_status st = sim_buf_init_onchip(&c->bufs[m], (isa_mem)m, bytes, align, !s->timing_only, err);
    if (st != CS_OK) return st;
  }
  if (!s->timing_only) return isa_host_create(s->kernel, &c->host, err);
  return CS_OK;
}

cs_status sim_create(const sim_config *cfg, const sim_options *opt, sim **out, cs_err *err) {
  *out = NULL;
  cs_status st = sim_config_validate(cfg, err);
  if (st != CS_OK) return st;
  bool timing_only = opt && opt->timing_only;
  uint64_t max_host = opt ? opt->max_host_bytes : 0;
  if (max_host && !timing_only) { /* the buffers come first: refuse before allocating them */
    sim_footprint f;
    sim_footprint_estimate(cfg, &(sim_footprint_run){.timing_only = false}, &f);
    if (f.buffers_bytes > max_host) {
      char need[32], limit[32];
      cs_bytes_text(f.buffers_bytes, need, sizeof need);
      cs_bytes_text(max_host, limit, sizeof limit);
      return cs_err_set(err, CS_ENOMEM, "host memory: the on-chip buffers of %u cores need %s, over the limit of %s",
                        (unsigned)cfg->chip_aic_cores, need, limit);
    }
  }
  sim *s = calloc(1, sizeof *s);
  if (!s) return cs_err_set(err, CS_ENOMEM, "no host memory for a simulator");
  s->cfg = *cfg;
  sim_config_derive(cfg, &s->d);
  s->timing_only = timing_only;
  s->max_host_bytes = max_host;
  if (!timing_only) s->host_bytes = mul_sat(core_buffer_bytes(cfg), cfg->chip_aic_cores);
  s->progress = opt ? opt->progress : NULL;
  s->record_threads = sim_host_threads(opt ? opt->record_threads : 0);
  s->stream_record = opt && opt->stream_record && timing_only;
#ifndef CUBESIM_NO_THREADS
  s->lock_made = mtx_init(&s->lock, mtx_plain) == thrd_success;
#endif
  sim_buf_init_gm(&s->gm, cfg->buffers_gm_capacity_bytes, cfg->buffers_gm_align_bytes, !s->timing_only);
  s->naic = s->ncores = (unsigned)cfg->chip_aic_cores;
  s->naiv = s->naic * (unsigned)cfg->chip_aiv_per_aic;
  s->kernel = opt ? opt->kernel : ISA_KERNEL_AUTO;
  s->cores = calloc(s->naic + s->naiv, sizeof *s->cores);
  if (!s->cores) {
    sim_destroy(s);
    return cs_err_set(err, CS_ENOMEM, "no host memory for %u cores", (unsigned)cfg->chip_aic_cores);
  }
  for (unsigned i = 0; i < s->ncores; i++)
    if ((st = init_core(s, &s->cores[i], i, SIM_CORE_AIC, i, 0, err)) != CS_OK) {
      sim_destroy(s);
      return st;
    }
  *out = s;
  return CS_OK;
}

cs_status sim_aiv_enable(sim *s, cs_err *err) {
  if (s->aiv_enabled) return CS_OK;
  if (!s->naiv) return cs_err_set(err, CS_EINVAL, "the chip has no AIV cores (chip.aiv_per_aic = 0)");
  if (!s->timing_only) {
    cs_status st = take_host(s, (uint64_t)s->naiv * aiv_buffer_bytes(&s->cfg), "the AIV cores' UB", err);
    if (st != CS_OK) return st;
  }
  unsigned per = (unsigned)s->cfg.chip_aiv_per_aic;
  for (unsigned v = 0; v < s->naiv; v++) {
    cs_status st = init_core(s, &s->cores[s->naic + v], s->naic + v, SIM_CORE_AIV, v / per, v % per, err);
    if (st != CS_OK) { /* the cores made so far are freed with the simulator */
      for (unsigned w = 0; w <= v; w++) {
        sim_core *c = &s->cores[s->naic + w];
        for (int m = 0; m < ISA_MEM_COUNT; m++) sim_buf_free(&c->bufs[m]);
        isa_host_destroy(c->host);
        memset(c, 0, sizeof *c);
      }
      return st;
    }
  }
  s->ncores = s->naic + s->naiv;
  s->aiv_enabled = true;
  return CS_OK;
}

cs_status sim_mark_launch(sim *s, cs_err *err) {
  size_t w = (size_t)s->naic + s->naiv;
  if (s->nlaunch == s->caplaunch) {
    size_t cap = s->caplaunch ? s->caplaunch * 2 : 4;
    uint64_t *p = realloc(s->launch_at, cap * w * sizeof *p);
    if (!p) return cs_err_set(err, CS_ENOMEM, "launch: no host memory");
    s->launch_at = p;
    s->caplaunch = cap;
  }
  for (size_t c = 0; c < w; c++) s->launch_at[s->nlaunch * w + c] = s->cores[c].len;
  s->nlaunch++;
  return CS_OK;
}

size_t sim_launch_of(const sim *s, unsigned core, uint64_t index) {
  size_t w = (size_t)s->naic + s->naiv, l = 0;
  while (l + 1 < s->nlaunch && s->launch_at[(l + 1) * w + core] <= index) l++;
  return l;
}

unsigned sim_aic_count(const sim *s) { return s->naic; }
unsigned sim_aiv_count(const sim *s) { return s->naiv; }
sim_core *sim_get_aiv(sim *s, unsigned v) { return s->aiv_enabled && v < s->naiv ? &s->cores[s->naic + v] : NULL; }
sim_core_kind sim_core_kind_of(const sim_core *c) { return c->kind; }
unsigned sim_core_group(const sim_core *c) { return c->group; }
unsigned sim_core_sub(const sim_core *c) { return c->sub; }

void sim_core_name(const sim *s, unsigned core, char *out, size_t out_bytes) {
  if (core < s->ncores && s->cores[core].kind == SIM_CORE_AIV)
    snprintf(out, out_bytes, "AIV %u.%u", s->cores[core].group, s->cores[core].sub);
  else
    snprintf(out, out_bytes, "core %u", core);
}

void sim_destroy(sim *s) {
  if (!s) return;
  if (s->recorder_release) s->recorder_release(s->recorder_arg);
  for (unsigned i = 0; s->cores && i < s->naic + s->naiv; i++) { /* cores never made are zero */
    for (int m = 0; m < ISA_MEM_COUNT; m++) sim_buf_free(&s->cores[i].bufs[m]);
    isa_host_destroy(s->cores[i].host);
    sim_stream_free(&s->cores[i].rec);
    if (s->cores[i].view) free(s->cores[i].view->v);
    free(s->cores[i].view);
  }
  free(s->cores);
  free(s->launch_at);
  sim_buf_free(&s->gm);
#ifndef CUBESIM_NO_THREADS
  if (s->lock_made) mtx_destroy(&s->lock);
#endif
  free(s);
}

/* ---- recording on several host threads ---------------------------------------------------- */

unsigned sim_host_threads(unsigned requested) {
  if (requested) return requested;
  unsigned t;
  if (sim_threads_parse(getenv("CUBESIM_THREADS"), &t)) return t;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 1 ? (unsigned)n : 1;
}

unsigned sim_record_threads(const sim *s) {
#ifndef CUBESIM_NO_THREADS
  return s->timing_only && s->lock_made ? s->record_threads : 1;
#else
  (void)s;
  return 1;
#endif
}

typedef struct par_worker {
  void (*job)(void *arg, unsigned i);
  void *arg;
  unsigned w, workers, n;
#ifndef CUBESIM_NO_THREADS
  thrd_t thread;
#endif
  bool made;
} par_worker;

static void par_run(const par_worker *x) {
  for (unsigned i = x->w; i < x->n; i += x->workers) x->job(x->arg, i);
}

#ifndef CUBESIM_NO_THREADS
static int par_worker_main(void *p) {
  par_run(p);
  return 0;
}
#endif

void sim_host_parallel(unsigned workers, unsigned n, void (*job)(void *arg, unsigned i), void *arg) {
  unsigned W = sim_host_threads(workers);
  if (W > n) W = n;
  par_worker one = {job, arg, 0, 1, n, .made = false};
  par_worker *x = W > 1 ? calloc(W, sizeof *x) : NULL;
  if (!x) { /* one worker, or no memory for more: all on this thread */
    par_run(&one);
    return;
  }
  for (unsigned w = 0; w < W; w++) {
    x[w] = (par_worker){job, arg, w, W, n, .made = false};
#ifndef CUBESIM_NO_THREADS
    if (w) x[w].made = thrd_create(&x[w].thread, par_worker_main, &x[w]) == thrd_success;
#endif
  }
  par_run(&x[0]);
  for (unsigned w = 1; w < W; w++) {
#ifndef CUBESIM_NO_THREADS
    if (x[w].made) thrd_join(x[w].thread, NULL);
#endif
    if (!x[w].made) par_run(&x[w]); /* no thread for it: its jobs now, on this one */
  }
  free(x);
}

void sim_record_concurrently(sim *s, unsigned workers, void (*work)(void *arg, unsigned w), void *arg) {
#ifndef CUBESIM_NO_THREADS
  if (workers > 1 && s->lock_made) {
    s->concurrent = true; /* before the threads: thrd_create orders it before them */
    sim_host_parallel(workers, workers, work, arg);
    s->concurrent = false; /* the joins order every worker's writes before this */
    if (s->progress) /* the counts the cores had not added yet (no lock now: one thread) */
      for (unsigned c = 0; c < s->ncores; c++) count_unreported(s, &s->cores[c]);
    return;
  }
#else
  (void)s;
#endif
  for (unsigned w = 0; w < workers; w++) work(arg, w);
}

const sim_config *sim_get_config(const sim *s) { return &s->cfg; }
const sim_config_derived *sim_get_derived(const sim *s) { return &s->d; }
bool sim_is_timing_only(const sim *s) { return s->timing_only; }
unsigned sim_core_count(const sim *s) { return s->ncores; }
sim_core *sim_get_core(sim *s, unsigned index) { return index < s->ncores ? &s->cores[index] : NULL; }
unsigned sim_core_index(const sim_core *c) { return c->index; }

cs_status sim_gm_alloc(sim *s, const char *name, uint64_t bytes, uint64_t *addr, cs_err *err) {
  if (!s->timing_only) {
    char what[96];
    snprintf(what, sizeof what, "GM tensor %s", name);
    cs_status st = take_host(s, bytes, what, err);
    if (st != CS_OK) return st;
  }
  cs_status st = sim_buf_alloc(&s->gm, name, bytes, 512, addr, err);
  if (st != CS_OK && !s->timing_only) s->host_bytes -= bytes;
  return st;
}

uint8_t *sim_gm_ptr(sim *s, uint64_t addr, uint64_t bytes) { return sim_buf_ptr(&s->gm, addr, bytes); }

const char *sim_gm_tensor_name(const sim *s, uint64_t addr) {
  const sim_seg *seg = sim_buf_find(&s->gm, addr, 1);
  return seg ? seg->name : NULL;
}

size_t sim_gm_tensor_count(const sim *s) { return s->gm.seg_count; }

void sim_gm_tensor_at(const sim *s, size_t i, const char **name, uint64_t *addr, uint64_t *bytes) {
  const sim_seg *seg = &s->gm.segs[i];
  *name = seg->name;
  *addr = seg->base;
  *bytes = seg->bytes;
}

const sim_fault *sim_core_fault(const sim_core *c) { return c->faulted ? &c->fault : NULL; }
bool sim_core_ok(const sim_core *c) { return !c->faulted && !c->owner->host_failed; }
size_t sim_core_stream_len(const sim_core *c) { return c->len; }
/* Before a stream is read: recorded for good, if it was only counted (sim_record_cores). */
static void streams_needed(const sim_core *c) {
  if (c->owner->deferred) sim_materialize(c->owner);
}

const isa_insn *sim_core_stream(const sim_core *c) {
  streams_needed(c);
  sim_stream_view *v = c->view;
  if (!v || !c->len) return NULL;
  if (v->n != c->len) { /* decoded again after more were recorded */
    isa_insn *a = realloc(v->v, c->len * sizeof *a);
    if (!a) return NULL;
    v->v = a;
    sim_stream_cursor cur;
    sim_stream_cursor_init(&cur, &c->rec, 0);
    for (size_t i = 0; i < c->len; i++) sim_stream_next(&cur, &a[i]);
    v->n = c->len;
  }
  return v->v;
}

const sim_stream *sim_core_records(const sim_core *c) {
  streams_needed(c);
  return &c->rec;
}

void sim_core_insn(const sim_core *c, uint64_t i, isa_insn *out) {
  streams_needed(c);
  sim_stream_get(&c->rec, i, out);
}

/* ---- launches recorded again (sim_record_cores) ------------------------------------------- */

typedef struct dealt {
  sim *s;
  sim_core_recorder rec;
  void *arg;
  unsigned workers;
} dealt;

/* Worker w records the AICs g with g % workers == w. */
static void dealt_work(void *arg, unsigned w) {
  dealt *d = arg;
  for (unsigned g = w; g < d->s->naic; g += d->workers) d->rec(d->arg, g, &d->s->cores[g]);
}

static void record_dealt(sim *s, unsigned workers, sim_core_recorder rec, void *arg) {
  if (workers > s->naic) workers = s->naic;
  if (workers < 1) workers = 1;
  dealt d = {s, rec, arg, workers};
  sim_record_concurrently(s, workers, dealt_work, &d);
}

/* The AICs as before the launch (the first: nothing recorded). */
static void reset_aics(sim *s) {
  for (unsigned g = 0; g < s->naic; g++) {
    sim_core *c = &s->cores[g];
    sim_stream_free(&c->rec);
    c->len = 0;
    c->unreported = c->ncross = 0;
    memset(&c->reach, 0, sizeof c->reach);
    c->faulted = false;
    memset(&c->fault, 0, sizeof c->fault);
  }
}

/* Recorded again, quietly (their progress was counted the first time). */
static void record_again(sim *s, sim_core_recorder rec, void *arg) {
  reset_aics(s);
  for (unsigned g = 0; g < s->naic; g++) s->cores[g].quiet = true;
  record_dealt(s, sim_record_threads(s), rec, arg);
  for (unsigned g = 0; g < s->naic; g++) s->cores[g].quiet = false;
}

void sim_record_cores(sim *s, unsigned workers, sim_core_recorder rec, void *arg, void (*release)(void *arg),
                      bool keep_rec) {
  sim_materialize(s); /* an earlier launch's, recorded for good first */
  bool first = s->nlaunch <= 1;
  for (unsigned c = 0; c < s->ncores; c++) first = first && s->cores[c].len == 0;
  bool defer = keep_rec && s->stream_record && first && sim_record_threads(s) > 1 && !s->host_failed;
  for (unsigned g = 0; defer && g < s->naic; g++) s->cores[g].rec.discard = true;
  record_dealt(s, workers, rec, arg);
  if (defer) {
    bool keep = !s->host_failed;
    for (unsigned g = 0; g < s->naic; g++) {
      sim_core *c = &s->cores[g];
      c->rec.discard = false;
      c->rec.n = 0; /* nothing kept; len says how many */
      keep = keep && !c->faulted && !c->ncross;
    }
    if (keep) {
      s->recorder = rec;
      s->recorder_arg = arg;
      s->recorder_release = release;
      s->deferred = true;
      s->streamed = false;
      return;
    }
    if (!s->host_failed) record_again(s, rec, arg); /* a fault is described from its stream */
    else
      for (unsigned g = 0; g < s->naic; g++) s->cores[g].len = 0; /* nothing kept, nothing to replay */
  }
  if (release) release(arg);
}

void sim_materialize(sim *s) {
  if (!s->deferred) return;
  s->deferred = s->streamed = false;
  record_again(s, s->recorder, s->recorder_arg);
  if (s->recorder_release) s->recorder_release(s->recorder_arg);
  s->recorder = NULL;
  s->recorder_release = NULL;
  s->recorder_arg = NULL;
}

bool sim_deferred(const sim *s) { return s->deferred; }
bool sim_streamed(const sim *s) { return s->streamed; }

cs_status sim_core_standin(sim *s, const sim_core *like, sim_core *out, cs_err *err) {
  memset(out, 0, sizeof *out);
  cs_status st = init_core(s, out, like->index, like->kind, like->group, like->sub, err);
  out->quiet = true;
  if (st != CS_OK) sim_core_standin_free(out);
  return st;
}

cs_status sim_core_standin_pipe(sim *s, const sim_core *like, sim_core *out, size_t chunk, unsigned depth, cs_err *err) {
  cs_status st = sim_core_standin(s, like, out, err);
  if (st != CS_OK) return st;
  char what[64];
  snprintf(what, sizeof what, "the replay's pipe from core %u", like->index);
  shared_lock(s);
  st = take_host(s, sim_stream_pipe_bytes(chunk, depth), what, err);
  shared_unlock(s);
  if (st == CS_OK && sim_stream_pipe_open(&out->rec, chunk, depth) != CS_OK) {
    shared_lock(s);
    s->host_bytes -= sim_stream_pipe_bytes(chunk, depth);
    shared_unlock(s);
    st = cs_err_set(err, CS_ENOMEM, "host memory: no memory for %s", what);
  }
  if (st != CS_OK) sim_core_standin_free(out);
  return st;
}

void sim_core_standin_free(sim_core *c) {
  sim *s = c->owner;
  if (s) { /* what its stream took was counted (as it grew, or the pipe when opened): given back */
    shared_lock(s);
    s->host_bytes -= sim_stream_host_bytes(&c->rec);
    shared_unlock(s);
  }
  for (int m = 0; m < ISA_MEM_COUNT; m++) sim_buf_free(&c->bufs[m]);
  isa_host_destroy(c->host);
  sim_stream_free(&c->rec);
  if (c->view) free(c->view->v);
  free(c->view);
  memset(c, 0, sizeof *c);
}

uint8_t *sim_core_buf(sim_core *c, isa_mem mem) {
  if (mem == ISA_MEM_GM || mem >= ISA_MEM_COUNT || !c->bufs[mem].backed) return NULL;
  return c->bufs[mem].segs[0].data;
}

/* isa_mach.ptr: ranges were checked before exec, so the lookup always succeeds. */
static uint8_t *mach_ptr(void *ctx, isa_mem mem, uint64_t off, uint64_t bytes) {
  return sim_buf_ptr(sim_core_mem(ctx, mem), off, bytes);
}

/* Every address operand must be aligned as its memory requires (docs/DESIGN.md §4). Unused address
 * operands are left zero by the runtime and the assembler, which is aligned everywhere. */
static bool check_alignment(sim_core *c, const isa_insn *in, isa_fault *f) {
  const isa_op_desc *d = isa_op_info((isa_op)in->op);
  const isa_addr *as[ISA_MAX_ADDRS];
  const isa_field_desc *fds[ISA_MAX_ADDRS];
  size_t n = isa_insn_addrs(in, as, fds);
  for (size_t i = 0; i < n; i++) {
    const isa_field_desc *fd = fds[i];
    const isa_addr *a = as[i];
    if (a->mem >= ISA_MEM_COUNT)
      return isa_fault_set(f, ISA_FAULT_BAD_MEM, fd->name, a->mem, ISA_MEM_COUNT - 1,
                           "%s: operand %s names memory %u, which does not exist", d->mnemonic,
                           fd->name, a->mem);
    uint64_t align = sim_core_mem(c, (isa_mem)a->mem)->align_bytes;
    /* the sizes are powers of two in practice: no division then */
    if (align > 1 && ((align & (align - 1)) == 0 ? a->off & (align - 1) : a->off % align) != 0)
      return isa_fault_set(f, ISA_FAULT_MISALIGNED, fd->name, a->off, align,
                           "%s: operand %s = %s:0x%" PRIx64 " is not %" PRIu64 "-byte aligned",
                           d->mnemonic, fd->name, isa_mem_name((isa_mem)a->mem), a->off, align);
  }
  return true;
}

/* An AIV has a scalar unit, MTE2, V and MTE3 and a UB (docs/DESIGN.md §4): the cube's pipes
 * (MTE1, M, FIX) are not there. */
static bool check_core_kind(const sim_core *c, const isa_insn *in, isa_fault *f) {
  if (c->kind != SIM_CORE_AIV) return true;
  isa_pipe p = isa_insn_pipe(in);
  if (p != ISA_PIPE_MTE1 && p != ISA_PIPE_M && p != ISA_PIPE_FIX) return true;
  return isa_fault_set(f, ISA_FAULT_CORE_KIND, "", (uint64_t)p, 0, "%s: AIV %u.%u has no %s pipe (it has S, MTE2, V and MTE3)",
                       isa_op_info((isa_op)in->op)->mnemonic, c->group, c->sub, isa_pipe_name(p));
}

/* Appends to the compact stream (sim_stream.h), whose buffers grow by half; the growth is counted
 * against the limit before it is allocated. */
static cs_status append(sim_core *c, const isa_insn *in) {
  sim *s = c->owner;
  uint64_t more = sim_stream_growth(&c->rec);
  if (more) {
    char what[64];
    snprintf(what, sizeof what, "the instruction stream of core %u", c->index);
    cs_err e;
    shared_lock(s);
    cs_status took = take_host(s, more, what, &e);
    shared_unlock(s);
    if (took != CS_OK) {
      char n[32];
      snprintf(n, sizeof n, " (%zu instructions recorded)", c->len);
      sim_host_fail(s, "%s%s", e.msg, n);
      return CS_ENOMEM;
    }
  }
  if (sim_stream_append(&c->rec, in) != CS_OK) {
    shared_lock(s);
    s->host_bytes -= more;
    shared_unlock(s);
    sim_host_fail(s, "host memory: no memory to record core %u's instruction %zu (%" PRIu64 " bytes of stream)",
                  c->index, c->len, sim_stream_host_bytes(&c->rec) + more);
    return CS_ENOMEM;
  }
  c->len = (size_t)c->rec.n;
  if (in->op == ISA_OP_CROSS_SET_FLAG || in->op == ISA_OP_CROSS_WAIT_FLAG || in->op == ISA_OP_SYNC_ALL) c->ncross++;
  return CS_OK;
}

cs_status sim_core_issue(sim_core *c, const isa_insn *in) {
  if (c->faulted) return CS_EFAULT;
  if (c->owner->host_failed) return CS_ENOMEM;
  isa_fault f; /* what a check that fails fills in (isa_fault_set), from this start */
  f.cause = 0;
  f.operand[0] = f.msg[0] = '\0';
  f.value = f.limit = 0;
  bool ok = isa_insn_check(in, &f) && check_core_kind(c, in, &f) && check_alignment(c, in, &f);
  isa_range r[ISA_MAX_RANGES];
  size_t nr = 0;
  if (ok) {
    nr = isa_insn_ranges(in, r);
    for (size_t i = 0; ok && i < nr; i++) ok = sim_buf_check_range(sim_core_mem(c, (isa_mem)r[i].mem), &r[i], &f);
  }
  if (!ok) {
    c->faulted = true;
    c->fault.f = f;
    c->fault.core = c->index;
    c->fault.index = c->len;
    c->fault.insn = *in;
    return CS_EFAULT;
  }
  /* recorded first: out of host memory (not a kernel fault), the instruction has no effect */
  if (append(c, in) != CS_OK) return CS_ENOMEM;
  sim_hb_reach_note(&c->reach, c->len - 1, isa_insn_pipe(in), r, nr);
  if (!c->owner->timing_only) {
    isa_mach m = {c, mach_ptr, {c->owner->cfg.chip_fixpipe_saturation}, c->host};
    isa_insn_exec(in, &m);
  }
  sim *s = c->owner;
  if (s->progress && !c->quiet) {
    if (!s->concurrent) {
      if (++s->recorded % SIM_PROGRESS_STEP == 0) report_recorded(s, s->recorded);
    } else if (++c->unreported == PROGRESS_BATCH)
      count_unreported(s, c);
  }
  return CS_OK;
}

void sim_core_raise(sim_core *c, isa_fault_cause cause, const char *fmt, ...) {
  if (c->faulted) return;
  c->faulted = true;
  memset(&c->fault, 0, sizeof c->fault);
  c->fault.f.cause = cause;
  c->fault.core = c->index;
  c->fault.index = c->len;
  c->fault.insn.op = ISA_OP_COUNT;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->fault.f.msg, sizeof c->fault.f.msg, fmt, ap);
  va_end(ap);
}

void sim_fault_describe(const sim_fault *f, char *out, size_t out_bytes) {
  const isa_op_desc *d = isa_op_info((isa_op)f->insn.op);
  if (!d && f->index == 0) /* raised by the runtime before the core issued anything */
    snprintf(out, out_bytes, "core %u, before its first instruction: %s [%s]", f->core, f->f.msg,
             isa_fault_name((isa_fault_cause)f->f.cause));
  else if (!d) /* raised between instructions: index is the stream position, one past the last */
    snprintf(out, out_bytes, "core %u, after instruction %" PRIu64 ": %s [%s]", f->core,
             f->index - 1, f->f.msg, isa_fault_name((isa_fault_cause)f->f.cause));
  else
    snprintf(out, out_bytes, "core %u, instruction %" PRIu64 " (%s): %s [%s]", f->core, f->index,
             d->mnemonic, f->f.msg, isa_fault_name((isa_fault_cause)f->f.cause));
}
