/* pf_read — a Perfetto protobuf trace read back into events (tests/support/pf_read.h). */
#include "support/pf_read.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/tmp_files.h"

/* ---- the wire format ---------------------------------------------------------------------- */

typedef struct field {
  uint32_t num, wire;
  uint64_t v;         /* varint and fixed64 values */
  const uint8_t *p;   /* length-delimited: the bytes */
  size_t len;
} field;

typedef struct reader {
  const uint8_t *p, *end;
  bool bad;
} reader;

static reader reader_of(const uint8_t *p, size_t len) {
  reader r = {p, p + len, false};
  return r;
}

static bool varint(reader *r, uint64_t *v) {
  *v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (r->p >= r->end) return false;
    uint8_t b = *r->p++;
    *v |= (uint64_t)(b & 0x7F) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

/* The next field of a message; false at its end (r->bad when it was malformed). */
static bool next(reader *r, field *f) {
  if (r->p >= r->end) return false;
  uint64_t key;
  if (!varint(r, &key)) goto bad;
  f->num = (uint32_t)(key >> 3);
  f->wire = (uint32_t)(key & 7);
  if (f->wire == 0) {
    if (!varint(r, &f->v)) goto bad;
  } else if (f->wire == 1) {
    if (r->end - r->p < 8) goto bad;
    f->v = 0;
    for (int i = 0; i < 8; i++) f->v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
  } else if (f->wire == 2) {
    uint64_t n;
    if (!varint(r, &n) || n > (uint64_t)(r->end - r->p)) goto bad;
    f->p = r->p;
    f->len = (size_t)n;
    r->p += n;
  } else {
    goto bad;
  }
  return true;
bad:
  r->bad = true;
  return false;
}

static void text_of(const field *f, char *out, size_t n) {
  size_t k = f->len < n - 1 ? f->len : n - 1;
  memcpy(out, f->p, k);
  out[k] = '\0';
}

/* ---- the reader's state ------------------------------------------------------------------- */

#define MAX_CLOCKS 4

typedef struct seq_clock {
  uint32_t id;
  bool incremental;
  uint64_t last;    /* the clock's value at the last packet (incremental) */
  int64_t offset;   /* BOOTTIME - this clock, from the snapshot */
} seq_clock;

typedef struct seq_name {
  uint64_t iid;
  char name[40];
} seq_name;

typedef struct seq_state {
  uint32_t id;
  bool valid;               /* incremental state cleared once */
  uint64_t track_uuid;      /* TrackEventDefaults */
  uint32_t clock_id;        /* TracePacketDefaults (0: none) */
  seq_clock clocks[MAX_CLOCKS];
  size_t nclocks;
  seq_name *names;
  size_t nnames;
} seq_state;

typedef struct open_slices {
  uint64_t uuid;
  size_t *stack;
  size_t n;
} open_slices;

typedef struct state {
  pfr_trace *t;
  seq_state *seqs;
  size_t nseqs;
  open_slices *open;
  size_t nopen;
  uint64_t *slice_uuid; /* per slice: its track */
} state;

static void problem(state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(state *s, const char *fmt, ...) {
  if (s->t->problems++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->t->first_problem, sizeof s->t->first_problem, fmt, ap);
    va_end(ap);
  }
}

static void *grow(void *p, size_t n, size_t elem) {
  /* one more element at n (capacity doubles at powers of two) */
  if (n == 0 || (n & (n - 1)) == 0) {
    p = realloc(p, (n ? 2 * n : 1) * elem);
    assert_non_null(p);
  }
  return p;
}

static seq_state *seq(state *s, uint32_t id) {
  for (size_t i = 0; i < s->nseqs; i++)
    if (s->seqs[i].id == id) return &s->seqs[i];
  s->seqs = grow(s->seqs, s->nseqs, sizeof *s->seqs);
  seq_state *q = &s->seqs[s->nseqs++];
  memset(q, 0, sizeof *q);
  q->id = id;
  return q;
}

static open_slices *open_of(state *s, uint64_t uuid) {
  for (size_t i = 0; i < s->nopen; i++)
    if (s->open[i].uuid == uuid) return &s->open[i];
  s->open = grow(s->open, s->nopen, sizeof *s->open);
  open_slices *o = &s->open[s->nopen++];
  memset(o, 0, sizeof *o);
  o->uuid = uuid;
  return o;
}

/* ---- messages ----------------------------------------------------------------------------- */

static void read_descriptor(state *s, const field *msg) {
  pfr_trace *t = s->t;
  t->tracks = grow(t->tracks, t->ntracks, sizeof *t->tracks);
  pfr_track *tr = &t->tracks[t->ntracks++];
  memset(tr, 0, sizeof *tr);
  reader r = reader_of(msg->p, msg->len);
  field f = {0}, g = {0};
  while (next(&r, &f)) {
    if (f.num == 1) tr->uuid = f.v;
    else if (f.num == 5) tr->parent = f.v;
    else if (f.num == 2) text_of(&f, tr->name, sizeof tr->name);
    else if (f.num == 12) tr->rank = (int)f.v;
    else if (f.num == 8) tr->is_counter = true;
    else if (f.num == 3 || f.num == 4) { /* ProcessDescriptor, ThreadDescriptor */
      tr->is_process = f.num == 3;
      tr->is_thread = f.num == 4;
      reader q = reader_of(f.p, f.len);
      while (next(&q, &g)) {
        if (g.num == 1) tr->pid = (unsigned)g.v;
        else if (g.num == 2 && f.num == 4) tr->tid = (unsigned)g.v;
        else if ((g.num == 6 && f.num == 3) || (g.num == 5 && f.num == 4)) text_of(&g, tr->name, sizeof tr->name);
      }
      if (q.bad) problem(s, "malformed process/thread descriptor");
    }
  }
  if (r.bad) problem(s, "malformed track descriptor");
}

static void read_defaults(state *s, seq_state *q, const field *msg) {
  reader r = reader_of(msg->p, msg->len);
  field f = {0}, g = {0};
  while (next(&r, &f)) {
    if (f.num == 58) q->clock_id = (uint32_t)f.v;
    else if (f.num == 11) {
      reader e = reader_of(f.p, f.len);
      while (next(&e, &g))
        if (g.num == 11) q->track_uuid = g.v;
    }
  }
  if (r.bad) problem(s, "malformed trace_packet_defaults");
}

static void read_interned(state *s, seq_state *q, const field *msg) {
  if (!q->valid) problem(s, "interned data on sequence %u before its state was cleared", q->id);
  reader r = reader_of(msg->p, msg->len);
  field f = {0}, g = {0};
  while (next(&r, &f)) {
    if (f.num != 2) continue; /* event_names */
    seq_name nm = {0, ""};
    reader e = reader_of(f.p, f.len);
    while (next(&e, &g)) {
      if (g.num == 1) nm.iid = g.v;
      else if (g.num == 2) text_of(&g, nm.name, sizeof nm.name);
    }
    q->names = grow(q->names, q->nnames, sizeof *q->names);
    q->names[q->nnames++] = nm;
  }
}

static void read_clock_snapshot(state *s, seq_state *q, const field *msg) {
  seq_clock clocks[MAX_CLOCKS];
  size_t n = 0;
  uint64_t boottime = 0;
  bool has_boottime = false;
  reader r = reader_of(msg->p, msg->len);
  field f = {0}, g = {0};
  while (next(&r, &f)) {
    if (f.num != 1) continue;
    uint32_t id = 0;
    uint64_t ts = 0, unit = 1;
    bool incremental = false;
    reader c = reader_of(f.p, f.len);
    while (next(&c, &g)) {
      if (g.num == 1) id = (uint32_t)g.v;
      else if (g.num == 2) ts = g.v;
      else if (g.num == 3) incremental = g.v != 0;
      else if (g.num == 4) unit = g.v;
    }
    if (unit != 1) problem(s, "clock %u with a unit of %" PRIu64 " ns", id, unit);
    if (id == 6) {
      boottime = ts;
      has_boottime = true;
    } else if (id >= 64 && id <= 127 && n < MAX_CLOCKS) {
      clocks[n++] = (seq_clock){id, incremental, ts, 0};
    }
  }
  if (!has_boottime) problem(s, "clock snapshot on sequence %u without BOOTTIME", q->id);
  for (size_t i = 0; i < n; i++) {
    clocks[i].offset = (int64_t)boottime - (int64_t)clocks[i].last;
    q->clocks[q->nclocks < MAX_CLOCKS ? q->nclocks++ : MAX_CLOCKS - 1] = clocks[i];
  }
}

/* The packet's time in BOOTTIME ns. */
static uint64_t resolve_time(state *s, seq_state *q, uint64_t ts, uint32_t clock) {
  if (clock == 0 || clock == 6) return ts;
  for (size_t i = 0; i < q->nclocks; i++)
    if (q->clocks[i].id == clock) {
      seq_clock *c = &q->clocks[i];
      uint64_t v = c->incremental ? (c->last += ts) : ts;
      return (uint64_t)((int64_t)v + c->offset);
    }
  problem(s, "sequence %u uses clock %u, which it never defined", q->id, clock);
  return ts;
}

static void read_track_event(state *s, seq_state *q, const field *msg, uint64_t ns, bool has_ts) {
  pfr_trace *t = s->t;
  uint64_t type = 0, uuid = q->track_uuid, iid = 0, flow_out = 0, flow_in = 0;
  char name[40] = "";
  double value = 0;
  bool has_value = false;
  reader r = reader_of(msg->p, msg->len);
  field f = {0}, g = {0};
  char meta[8][2][256];
  size_t nmeta = 0;
  while (next(&r, &f)) {
    if (f.num == 9) type = f.v;
    else if (f.num == 11) uuid = f.v;
    else if (f.num == 10) iid = f.v;
    else if (f.num == 23) text_of(&f, name, sizeof name);
    else if (f.num == 47) flow_out = f.v;
    else if (f.num == 48) flow_in = f.v;
    else if (f.num == 44) {
      memcpy(&value, &f.v, sizeof value);
      has_value = true;
    } else if (f.num == 4 && nmeta < 8) { /* DebugAnnotation: name (10), string (6) or uint (3) */
      reader d = reader_of(f.p, f.len);
      meta[nmeta][0][0] = meta[nmeta][1][0] = '\0';
      while (next(&d, &g)) {
        if (g.num == 10) text_of(&g, meta[nmeta][0], sizeof meta[nmeta][0]);
        else if (g.num == 6) text_of(&g, meta[nmeta][1], sizeof meta[nmeta][1]);
        else if (g.num == 3) snprintf(meta[nmeta][1], sizeof meta[nmeta][1], "%" PRIu64, g.v);
      }
      nmeta++;
    }
  }
  if (r.bad) problem(s, "malformed track event");
  if (!has_ts) problem(s, "a track event without a timestamp");
  if (iid) {
    size_t i = 0;
    while (i < q->nnames && q->names[i].iid != iid) i++;
    if (i == q->nnames) problem(s, "name iid %" PRIu64 " not interned on sequence %u", iid, q->id);
    else snprintf(name, sizeof name, "%s", q->names[i].name);
  }
  if (type == 1 || type == 3) {
    if (type == 3 && t->instants++ == 0) {
      snprintf(t->instant_name, sizeof t->instant_name, "%s", name);
      memcpy(t->meta, meta, sizeof meta);
      t->nmeta = nmeta;
      return;
    }
    if (type == 3) return;
    t->slices = grow(t->slices, t->nslices, sizeof *t->slices);
    s->slice_uuid = grow(s->slice_uuid, t->nslices, sizeof *s->slice_uuid);
    pfr_slice *sl = &t->slices[t->nslices];
    memset(sl, 0, sizeof *sl);
    snprintf(sl->name, sizeof sl->name, "%s", name);
    sl->begin_ns = ns;
    sl->end_ns = UINT64_MAX;
    sl->flow_out = flow_out;
    sl->flow_in = flow_in;
    s->slice_uuid[t->nslices] = uuid;
    open_slices *o = open_of(s, uuid);
    o->stack = grow(o->stack, o->n, sizeof *o->stack);
    o->stack[o->n++] = t->nslices++;
  } else if (type == 2) {
    open_slices *o = open_of(s, uuid);
    if (o->n == 0) {
      problem(s, "an END on track %" PRIu64 " with no open slice", uuid);
      return;
    }
    pfr_slice *sl = &t->slices[o->stack[--o->n]];
    if (ns < sl->begin_ns) problem(s, "slice %s ends at %" PRIu64 " ns before it begins", sl->name, ns);
    sl->end_ns = ns;
  } else if (type == 4) {
    if (!has_value) problem(s, "a counter event without a double value");
    t->samples = grow(t->samples, t->nsamples, sizeof *t->samples);
    pfr_sample *smp = &t->samples[t->nsamples++];
    const pfr_track *tr = pfr_track_of(t, uuid);
    snprintf(smp->track, sizeof smp->track, "%s", tr ? tr->name : "?");
    smp->ns = ns;
    smp->value = value;
  } else {
    problem(s, "track event of type %" PRIu64, type);
  }
}

static void read_packet(state *s, const field *pkt) {
  reader r = reader_of(pkt->p, pkt->len);
  field f = {0};
  uint32_t seq_id = 0, clock = 0, flags = 0;
  uint64_t ts = 0;
  bool has_ts = false, has_clock = false;
  /* first the fields that set the sequence's state, then the data */
  while (next(&r, &f)) {
    if (f.num == 10) seq_id = (uint32_t)f.v;
    else if (f.num == 13) flags = (uint32_t)f.v;
    else if (f.num == 8) ts = f.v, has_ts = true;
    else if (f.num == 58) clock = (uint32_t)f.v, has_clock = true;
  }
  if (r.bad) {
    problem(s, "malformed packet %zu", s->t->packets);
    return;
  }
  if (!seq_id) problem(s, "packet %zu without a sequence id", s->t->packets);
  seq_state *q = seq(s, seq_id);
  if (flags & 1) { /* SEQ_INCREMENTAL_STATE_CLEARED */
    free(q->names);
    memset(q, 0, sizeof *q);
    q->id = seq_id;
    q->valid = true;
  }
  r = reader_of(pkt->p, pkt->len);
  while (next(&r, &f))
    if (f.num == 59) read_defaults(s, q, &f);
  r = reader_of(pkt->p, pkt->len);
  while (next(&r, &f))
    if (f.num == 12) read_interned(s, q, &f);
  r = reader_of(pkt->p, pkt->len);
  while (next(&r, &f)) {
    if (f.num == 6) read_clock_snapshot(s, q, &f);
    else if (f.num == 60) read_descriptor(s, &f);
  }
  if (!has_clock) clock = q->clock_id;
  else s->t->absolute_timestamps += has_ts && clock == 6 && q->clock_id != 0;
  uint64_t ns = has_ts ? resolve_time(s, q, ts, clock) : 0;
  r = reader_of(pkt->p, pkt->len);
  while (next(&r, &f))
    if (f.num == 11) read_track_event(s, q, &f, ns, has_ts);
}

/* ---- the file ----------------------------------------------------------------------------- */

const pfr_track *pfr_track_of(const pfr_trace *t, uint64_t uuid) {
  for (size_t i = 0; i < t->ntracks; i++)
    if (t->tracks[i].uuid == uuid) return &t->tracks[i];
  return NULL;
}

void pfr_read_file(const char *path, pfr_trace *t) {
  memset(t, 0, sizeof *t);
  size_t len;
  char *data = tf_read(path, &len);
  state s;
  memset(&s, 0, sizeof s);
  s.t = t;
  reader r = reader_of((const uint8_t *)data, len);
  field f = {0};
  while (next(&r, &f)) {
    if (f.num != 1 || f.wire != 2) {
      problem(&s, "Trace field %u (wire %u) is not a packet", f.num, f.wire);
      continue;
    }
    read_packet(&s, &f);
    t->packets++;
  }
  if (r.bad) problem(&s, "the file ends inside a field");
  for (size_t i = 0; i < s.nopen; i++)
    if (s.open[i].n) problem(&s, "%zu slices on track %" PRIu64 " never end", s.open[i].n, s.open[i].uuid);
  for (size_t i = 0; i < t->nslices; i++) { /* the slices' threads */
    const pfr_track *tr = pfr_track_of(t, s.slice_uuid[i]);
    if (!tr) {
      problem(&s, "slice %s on track %" PRIu64 ", which has no descriptor", t->slices[i].name, s.slice_uuid[i]);
      continue;
    }
    t->slices[i].pid = tr->pid;
    t->slices[i].tid = tr->tid;
  }
  for (size_t i = 0; i < s.nseqs; i++) free(s.seqs[i].names);
  for (size_t i = 0; i < s.nopen; i++) free(s.open[i].stack);
  free(s.seqs);
  free(s.open);
  free(s.slice_uuid);
  free(data);
}

void pfr_free(pfr_trace *t) {
  free(t->slices);
  free(t->samples);
  free(t->tracks);
  memset(t, 0, sizeof *t);
}
