/* trc_timeline — busy intervals per core and pipe, merged into a bounded number of spans
 * (trc_timeline.h). */
#include "traces/trc_timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_trace.h"

static trc_track *track_of(trc_timeline *t, unsigned core, isa_pipe p) {
  return core < t->cores && (unsigned)p < ISA_PIPE_COUNT ? &t->tracks[(size_t)core * ISA_PIPE_COUNT + p] : NULL;
}

const trc_track *trc_timeline_track(const trc_timeline *t, unsigned core, isa_pipe p) {
  return track_of((trc_timeline *)(uintptr_t)t, core, p);
}

/* Joins span i + 1 into span i. */
static void join_next(trc_track *k, size_t i) {
  trc_span *a = &k->spans[i], *b = &k->spans[i + 1];
  if (b->end > a->end) a->end = b->end;
  a->busy += b->busy;
  memmove(b, b + 1, (k->n - i - 2) * sizeof *b);
  k->n--;
}

/* Doubles the merge gap until the track holds at most three quarters of max spans, so that the
 * next intervals do not coarsen it again at once. */
static void coarsen(trc_track *k, size_t max) {
  while (k->n > max - max / 4) {
    k->gap_cycles = k->gap_cycles ? 2 * k->gap_cycles : 1;
    for (size_t i = 0; i + 1 < k->n;)
      if (k->spans[i + 1].start <= k->spans[i].end + k->gap_cycles) join_next(k, i);
      else i++;
  }
}

void trc_timeline_add(trc_timeline *t, unsigned core, isa_pipe p, uint64_t start, uint64_t end) {
  trc_track *k = track_of(t, core, p);
  if (!k || end <= start) return;
  k->busy_cycles += end - start;
  /* events come as instructions complete, nearly in start order: look from the back */
  size_t i = k->n;
  while (i > 0 && k->spans[i - 1].start > start) i--;
  if (i > 0 && start <= k->spans[i - 1].end + k->gap_cycles) {
    trc_span *s = &k->spans[i - 1];
    if (end > s->end) s->end = end;
    s->busy += end - start;
    while (i < k->n && k->spans[i].start <= s->end + k->gap_cycles) join_next(k, i - 1);
    return;
  }
  if (i < k->n && k->spans[i].start <= end + k->gap_cycles) {
    trc_span *s = &k->spans[i];
    s->start = start;
    if (end > s->end) s->end = end;
    s->busy += end - start;
    while (i + 1 < k->n && k->spans[i + 1].start <= s->end + k->gap_cycles) join_next(k, i);
    return;
  }
  if (k->n == k->cap) {
    size_t cap = k->cap ? 2 * k->cap : 16;
    trc_span *v = realloc(k->spans, cap * sizeof *v);
    if (!v) {
      t->status = CS_ENOMEM;
      return;
    }
    k->spans = v;
    k->cap = cap;
  }
  memmove(&k->spans[i + 1], &k->spans[i], (k->n - i) * sizeof *k->spans);
  k->spans[i] = (trc_span){start, end, end - start};
  k->n++;
  if (k->n > t->max_spans) coarsen(k, t->max_spans);
}

/* The observer: the instruction's occupancy on its pipe, its issue on SCALAR. */
static void observe(void *arg, const sim_trace_insn_event *e) {
  trc_timeline *t = arg;
  if (e->pipe < ISA_PIPE_COUNT && e->pipe != ISA_PIPE_S) trc_timeline_add(t, e->core, e->pipe, e->start, e->busy_end);
  trc_timeline_add(t, e->core, ISA_PIPE_S, e->scalar_start, e->scalar_end);
}

cs_status trc_timeline_create(const sim_config *cfg, size_t max_spans, trc_timeline **out, cs_err *err) {
  *out = NULL;
  if (max_spans < 2) return cs_err_set(err, CS_EINVAL, "timeline: %zu spans per track is too few (at least 2)", max_spans);
  trc_timeline *t = calloc(1, sizeof *t);
  if (t) t->tracks = calloc((size_t)cfg->chip_aic_cores * ISA_PIPE_COUNT, sizeof *t->tracks);
  if (!t || !t->tracks) {
    free(t);
    return cs_err_set(err, CS_ENOMEM, "timeline: no host memory for %u cores", (unsigned)cfg->chip_aic_cores);
  }
  t->cores = (unsigned)cfg->chip_aic_cores;
  t->max_spans = max_spans;
  t->observer = (sim_observer){observe, t};
  *out = t;
  return CS_OK;
}

void trc_timeline_destroy(trc_timeline *t) {
  if (!t) return;
  for (size_t i = 0; i < (size_t)t->cores * ISA_PIPE_COUNT; i++) free(t->tracks[i].spans);
  free(t->tracks);
  free(t);
}

void trc_timeline_json(const trc_timeline *t, cs_json *j) {
  cs_json_key(j, "timeline");
  cs_json_obj_begin(j);
  cs_json_member_uint(j, "max_spans", t->max_spans);
  cs_json_key(j, "tracks");
  cs_json_arr_begin(j);
  for (unsigned c = 0; c < t->cores; c++)
    for (int p = 0; p < ISA_PIPE_COUNT; p++) {
      const trc_track *k = trc_timeline_track(t, c, (isa_pipe)p);
      if (!k->n) continue;
      cs_json_obj_begin(j);
      cs_json_member_uint(j, "core", c);
      cs_json_member_str(j, "pipe", isa_pipe_track_name((isa_pipe)p));
      cs_json_member_uint(j, "busy_cycles", k->busy_cycles);
      cs_json_member_uint(j, "gap_cycles", k->gap_cycles);
      cs_json_key(j, "spans"); /* [start, end, busy] */
      cs_json_arr_begin(j);
      for (size_t i = 0; i < k->n; i++) {
        char text[80];
        snprintf(text, sizeof text, "[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", k->spans[i].start, k->spans[i].end,
                 k->spans[i].busy);
        cs_json_raw(j, text);
      }
      cs_json_arr_end(j);
      cs_json_obj_end(j);
    }
  cs_json_arr_end(j);
  cs_json_obj_end(j);
}
