/* sim_trace_pf — the Perfetto protobuf writer of the trace front end (format: traces/FORMAT.md).
 *
 * The file is a Trace message: packets (TracePacket, field 1 of Trace) one after the other,
 * encoded by base/cs_pb. Field numbers are those of Perfetto's protos (protos/perfetto/trace/
 * in its repository).
 *
 * Sequence 1 carries the track descriptors (a process per core and for the chip, a thread per
 * pipe, a counter track per counter) and one instant event with the run's metadata. Every track
 * then has a packet sequence of its own, so its packets need neither a track uuid (the
 * sequence's TrackEventDefaults names it) nor an absolute timestamp: a sequence-scoped clock
 * (id 64) counts nanoseconds incrementally, each packet's timestamp the delta from the previous
 * one, and event names are interned per sequence (an EventName the first time, its iid after).
 * A slice is a SLICE_BEGIN and a SLICE_END packet; set_flag's BEGIN carries its arrow's id in
 * flow_ids, the wait_flag's in terminating_flow_ids.
 *
 * Deltas must not be negative, and BEGIN/END pair up by their order on a track, so each track's
 * packets must come in time order. The engine reports an instruction when it completes, which on
 * one pipe is not always the order they started in, and a set_flag (no duration) may fire while
 * a later copy of its pipe is already streaming, inside that copy's slice. Each track therefore
 * holds the points of its timeline (beginnings, ends, zero-length slices) in a queue kept in time
 * order and writes the earliest when more than PF_REORDER are waiting (an instruction cannot be
 * overtaken by more than a few), and the rest at the end. Should a point still come out earlier
 * than the track's clock, it is written on the absolute clock (BOOTTIME) instead.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_json.h"
#include "base/cs_pb.h"
#include "sim/sim_trace_internal.h"

#ifndef CUBESIM_VERSION
#define CUBESIM_VERSION "unknown"
#endif

/* Field numbers (Perfetto's protos). */
enum {
  TRACE_PACKET = 1, /* Trace.packet */
  /* TracePacket */
  TP_CLOCK_SNAPSHOT = 6,
  TP_TIMESTAMP = 8,
  TP_SEQUENCE_ID = 10, /* trusted_packet_sequence_id */
  TP_TRACK_EVENT = 11,
  TP_INTERNED_DATA = 12,
  TP_SEQUENCE_FLAGS = 13,
  TP_TIMESTAMP_CLOCK_ID = 58,
  TP_DEFAULTS = 59,
  TP_TRACK_DESCRIPTOR = 60,
  /* ClockSnapshot and its Clock */
  CS_CLOCKS = 1,
  CLOCK_ID = 1,
  CLOCK_TIMESTAMP = 2,
  CLOCK_IS_INCREMENTAL = 3,
  /* TracePacketDefaults, TrackEventDefaults */
  DEF_TIMESTAMP_CLOCK_ID = 58,
  DEF_TRACK_EVENT = 11,
  TED_TRACK_UUID = 11,
  /* InternedData, EventName */
  ID_EVENT_NAMES = 2,
  EN_IID = 1,
  EN_NAME = 2,
  /* TrackDescriptor, ProcessDescriptor, ThreadDescriptor */
  TD_UUID = 1,
  TD_NAME = 2,
  TD_PROCESS = 3,
  TD_THREAD = 4,
  TD_PARENT_UUID = 5,
  TD_COUNTER = 8,
  TD_SIBLING_ORDER_RANK = 12,
  TD_PROCESS_ORDERING = 19,
  TD_THREAD_ORDERING = 20,
  PD_PID = 1,
  PD_PROCESS_NAME = 6,
  THD_PID = 1,
  THD_TID = 2,
  THD_THREAD_NAME = 5,
  /* TrackEvent */
  TE_DEBUG_ANNOTATIONS = 4,
  TE_TYPE = 9,
  TE_NAME_IID = 10,
  TE_TRACK_UUID = 11,
  TE_NAME = 23,
  TE_DOUBLE_COUNTER_VALUE = 44,
  TE_FLOW_IDS = 47,
  TE_TERMINATING_FLOW_IDS = 48,
  /* DebugAnnotation */
  DA_UINT_VALUE = 3,
  DA_STRING_VALUE = 6,
  DA_NAME = 10,
};

/* Enum values. */
enum {
  TYPE_SLICE_BEGIN = 1,
  TYPE_SLICE_END = 2,
  TYPE_INSTANT = 3,
  TYPE_COUNTER = 4,
  SEQ_INCREMENTAL_STATE_CLEARED = 1,
  CLOCK_BOOTTIME = 6,
  CLOCK_INCREMENTAL = 64, /* the first sequence-scoped clock id */
  ORDERING_EXPLICIT = 1,  /* process_ordering / thread_ordering: by sibling_order_rank */
};

#define PF_META_SEQ 1u
#define PF_REORDER 512u       /* points a track holds back to put them in time order */
#define PF_FLUSH_BYTES (1u << 18)
#define PF_MAX_COUNTERS 16u
#define PF_UUID_CHIP 1u
#define PF_UUID_COUNTER0 (1ull << 32)

/* A point of a track's timeline waiting to be written: a slice's beginning or end, or a slice
 * of no duration (its BEGIN and END together). At one cycle, ends come first, then the
 * zero-length slices, then the beginnings: what ends at t does not contain what starts at t. */
enum { POINT_END, POINT_INSTANT, POINT_BEGIN };

typedef struct pf_point {
  uint64_t cycle;
  uint64_t flow_id; /* BEGIN and INSTANT: the arrow end they carry (0: none) */
  uint32_t op;      /* BEGIN and INSTANT: the name */
  uint8_t kind;
  bool flow_start;  /* flow_id starts an arrow (set_flag), else ends one */
} pf_point;

/* A packet sequence with the incremental clock: a pipe's track or a counter's. */
typedef struct pf_seq {
  uint32_t id;
  uint64_t uuid;  /* the track its events go to */
  bool started;   /* its first packet (clock and defaults) written */
  uint64_t now_ns; /* the incremental clock */
} pf_seq;

typedef struct pf_track {
  pf_seq seq;
  uint64_t interned[(ISA_OP_COUNT + 63) / 64]; /* event names interned on the sequence */
  pf_point *q;                                 /* waiting points: q[head .. head + n), in order */
  size_t head, n, cap;
} pf_track;

typedef struct pf_counter {
  char name[64];
  pf_seq seq;
} pf_counter;

typedef struct pf_state {
  unsigned cores;
  pf_track *tracks; /* [core][pipe] */
  pf_counter counters[PF_MAX_COUNTERS];
  unsigned ncounters;
  cs_pb out;  /* packets, built in place, waiting for fwrite */
} pf_state;

static pf_state *state(sim_trace *t) { return t->state; }

/* cycles / clock_mhz microseconds in nanoseconds, rounded to the nearest (halves up): one
 * division while cycles * 1000 fits 64 bits (a hundred days of cycles at 2 GHz). */
static uint64_t cycles_to_ns(uint64_t cycles, uint64_t mhz) {
  if (cycles < UINT64_MAX / 2000u) return (cycles * 1000u + mhz / 2) / mhz;
  return cycles / mhz * 1000u + ((cycles % mhz) * 1000u + mhz / 2) / mhz;
}

/* ---- packets --------------------------------------------------------------------------------- */

static void flush_out(sim_trace *t) {
  pf_state *s = state(t);
  if (s->out.len && fwrite(s->out.p, 1, s->out.len, t->f) != s->out.len) sim_trace_note(t, -1);
  cs_pb_reset(&s->out);
}

/* Opens a packet (Trace.packet) in the output; emit closes it. Packets are built in place. */
static size_t packet_open(sim_trace *t) { return cs_pb_open(&state(t)->out, TRACE_PACKET); }

static void emit(sim_trace *t, size_t mark) {
  pf_state *s = state(t);
  cs_pb_close(&s->out, mark);
  if (s->out.oom) sim_trace_note_nomem(t);
  if (s->out.len >= PF_FLUSH_BYTES || s->out.oom) flush_out(t);
}

/* Opens a packet of sequence q at ns and returns its mark: the sequence's first packet (written
 * before it) clears the sequence's state and defines its clock and default track; the timestamp
 * is a delta (or absolute, on BOOTTIME, should ns lie before the sequence's clock). */
static size_t packet_at(sim_trace *t, pf_seq *q, uint64_t ns) {
  cs_pb *b = &state(t)->out;
  if (!q->started) {
    size_t first = packet_open(t);
    cs_pb_uint(b, TP_SEQUENCE_ID, q->id);
    cs_pb_uint(b, TP_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
    size_t d = cs_pb_open(b, TP_DEFAULTS);
    cs_pb_uint(b, DEF_TIMESTAMP_CLOCK_ID, CLOCK_INCREMENTAL);
    size_t ted = cs_pb_open(b, DEF_TRACK_EVENT);
    cs_pb_uint(b, TED_TRACK_UUID, q->uuid);
    cs_pb_close(b, ted);
    cs_pb_close(b, d);
    size_t cs = cs_pb_open(b, TP_CLOCK_SNAPSHOT); /* clock 64 at 0 is BOOTTIME at 0 */
    size_t c1 = cs_pb_open(b, CS_CLOCKS);
    cs_pb_uint(b, CLOCK_ID, CLOCK_INCREMENTAL);
    cs_pb_uint(b, CLOCK_TIMESTAMP, 0);
    cs_pb_uint(b, CLOCK_IS_INCREMENTAL, 1);
    cs_pb_close(b, c1);
    size_t c2 = cs_pb_open(b, CS_CLOCKS);
    cs_pb_uint(b, CLOCK_ID, CLOCK_BOOTTIME);
    cs_pb_uint(b, CLOCK_TIMESTAMP, 0);
    cs_pb_close(b, c2);
    cs_pb_close(b, cs);
    emit(t, first);
    q->started = true;
    q->now_ns = 0;
  }
  size_t mark = packet_open(t);
  if (ns >= q->now_ns) {
    cs_pb_uint(b, TP_TIMESTAMP, ns - q->now_ns);
    q->now_ns = ns;
  } else {
    cs_pb_uint(b, TP_TIMESTAMP, ns);
    cs_pb_uint(b, TP_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME);
  }
  cs_pb_uint(b, TP_SEQUENCE_ID, q->id);
  return mark;
}

/* ---- descriptors ----------------------------------------------------------------------------- */

static void describe_process(sim_trace *t, uint64_t uuid, unsigned pid, const char *name, int rank) {
  cs_pb *b = &state(t)->out;
  size_t mark = packet_open(t);
  cs_pb_uint(b, TP_SEQUENCE_ID, PF_META_SEQ);
  size_t td = cs_pb_open(b, TP_TRACK_DESCRIPTOR);
  cs_pb_uint(b, TD_UUID, uuid);
  size_t pd = cs_pb_open(b, TD_PROCESS);
  cs_pb_uint(b, PD_PID, pid);
  cs_pb_string(b, PD_PROCESS_NAME, name);
  cs_pb_close(b, pd);
  cs_pb_uint(b, TD_SIBLING_ORDER_RANK, (uint64_t)rank);
  cs_pb_close(b, td);
  emit(t, mark);
}

static uint64_t core_uuid(unsigned core) { return 2 + (uint64_t)core * 8; }
static uint64_t pipe_uuid(unsigned core, isa_pipe p) { return core_uuid(core) + 1 + (uint64_t)p; }

static pf_track *track(sim_trace *t, unsigned core, isa_pipe p) {
  return &state(t)->tracks[(size_t)core * ISA_PIPE_COUNT + (size_t)sim_trace_track_of(p)];
}

/* The run's metadata, as the debug annotations of one instant event on the chip's track. */
static void annotate_str(cs_pb *b, const char *name, const char *value) {
  size_t da = cs_pb_open(b, TE_DEBUG_ANNOTATIONS);
  cs_pb_string(b, DA_NAME, name);
  cs_pb_string(b, DA_STRING_VALUE, value);
  cs_pb_close(b, da);
}

static void annotate_uint(cs_pb *b, const char *name, uint64_t value) {
  size_t da = cs_pb_open(b, TE_DEBUG_ANNOTATIONS);
  cs_pb_string(b, DA_NAME, name);
  cs_pb_uint(b, DA_UINT_VALUE, value);
  cs_pb_close(b, da);
}

static void write_metadata(sim_trace *t, const sim_config *cfg) {
  cs_pb *b = &state(t)->out;
  size_t mark = packet_open(t);
  cs_pb_uint(b, TP_TIMESTAMP, 0);
  cs_pb_uint(b, TP_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME);
  cs_pb_uint(b, TP_SEQUENCE_ID, PF_META_SEQ);
  size_t te = cs_pb_open(b, TP_TRACK_EVENT);
  cs_pb_uint(b, TE_TYPE, TYPE_INSTANT);
  cs_pb_uint(b, TE_TRACK_UUID, PF_UUID_CHIP);
  cs_pb_string(b, TE_NAME, "cubesim run");
  annotate_str(b, "generator", "cubesim");
  annotate_str(b, "cubesim_version", CUBESIM_VERSION);
  annotate_str(b, "format", "cubesim trace 1 (traces/FORMAT.md)");
  annotate_str(b, "chip", cfg->chip_name);
  annotate_uint(b, "cores", cfg->chip_aic_cores);
  annotate_uint(b, "clock_mhz", cfg->chip_clock_mhz);
  annotate_str(b, "time_unit", "ns = round(cycles * 1000 / clock_mhz)");
  char *json = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&json, &len); /* the whole configuration, as in the JSON trace */
  bool ok = mem != NULL;
  if (mem) {
    cs_json j;
    cs_json_init(&j, mem, false);
    sim_config_write_json(cfg, &j);
    ok = fclose(mem) == 0 && json;
  }
  if (ok) annotate_str(b, "config", json);
  else sim_trace_note_nomem(t); /* a trace without its configuration is not kept */
  free(json);
  cs_pb_close(b, te);
  emit(t, mark);
}

/* ---- the writer -------------------------------------------------------------------------------- */

static cs_status pf_header(sim_trace *t, const sim_config *cfg, cs_err *err) {
  pf_state *s = calloc(1, sizeof *s);
  if (!s) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", cs_out_path(t->out));
  t->state = s;
  cs_pb_init(&s->out);
  /* the root track (uuid 0) asks for processes and threads in the order of their ranks */
  cs_pb *b = &s->out;
  size_t mark = packet_open(t);
  cs_pb_uint(b, TP_SEQUENCE_ID, PF_META_SEQ);
  size_t td = cs_pb_open(b, TP_TRACK_DESCRIPTOR);
  cs_pb_uint(b, TD_UUID, 0);
  cs_pb_uint(b, TD_PROCESS_ORDERING, ORDERING_EXPLICIT);
  cs_pb_uint(b, TD_THREAD_ORDERING, ORDERING_EXPLICIT);
  cs_pb_close(b, td);
  emit(t, mark);
  describe_process(t, PF_UUID_CHIP, SIM_TRACE_CHIP_PID, "chip (GM)", 0);
  write_metadata(t, cfg);
  return CS_OK;
}

static void pf_begin(sim_trace *t, unsigned cores) {
  pf_state *s = state(t);
  if (s->tracks) return;
  s->tracks = calloc((size_t)cores * ISA_PIPE_COUNT, sizeof *s->tracks);
  if (!s->tracks) {
    sim_trace_note_nomem(t);
    return;
  }
  s->cores = cores;
  for (unsigned c = 0; c < cores; c++) {
    if (!sim_trace_core_kept(t, c)) continue;
    char name[32];
    sim_trace_core_name(t, c, name, sizeof name);
    describe_process(t, core_uuid(c), sim_trace_core_pid(c), name, (int)c + 1);
    for (int p = 0; p < ISA_PIPE_COUNT; p++) {
      if (!sim_trace_core_has_pipe(t, c, (isa_pipe)p)) continue;
      cs_pb *b = &s->out;
      size_t mark = packet_open(t);
      cs_pb_uint(b, TP_SEQUENCE_ID, PF_META_SEQ);
      size_t td = cs_pb_open(b, TP_TRACK_DESCRIPTOR);
      cs_pb_uint(b, TD_UUID, pipe_uuid(c, (isa_pipe)p));
      size_t th = cs_pb_open(b, TD_THREAD);
      cs_pb_uint(b, THD_PID, sim_trace_core_pid(c));
      cs_pb_uint(b, THD_TID, sim_trace_pipe_tid(c, (isa_pipe)p));
      cs_pb_string(b, THD_THREAD_NAME, isa_pipe_track_name((isa_pipe)p));
      cs_pb_close(b, th);
      cs_pb_uint(b, TD_SIBLING_ORDER_RANK, (uint64_t)p);
      cs_pb_close(b, td);
      emit(t, mark);
      pf_track *tr = track(t, c, (isa_pipe)p);
      tr->seq.id = PF_META_SEQ + 1 + c * ISA_PIPE_COUNT + (unsigned)p;
      tr->seq.uuid = pipe_uuid(c, (isa_pipe)p);
    }
  }
}

/* One event packet of the common kind, BEGIN or END on a started sequence, encoded at p (at
 * least PF_EVENT_MAX bytes) with the same fields the general path writes: Trace.packet {
 * timestamp delta, sequence id, track_event { type, [name_iid, [flow id]] } }. Returns the
 * bytes written. */
#define PF_EVENT_MAX 64u

static size_t event_packet(uint8_t *p, uint64_t delta, uint32_t seq, unsigned type, uint64_t iid, uint64_t flow_id,
                           bool flow_start) {
  uint8_t te[32], body[PF_EVENT_MAX];
  size_t nt = 0, nb = 0, n = 0;
  te[nt++] = TE_TYPE << 3 | CS_PB_VARINT;
  te[nt++] = (uint8_t)type;
  if (type == TYPE_SLICE_BEGIN) {
    te[nt++] = TE_NAME_IID << 3 | CS_PB_VARINT;
    nt += cs_pb_varint_encode(te + nt, iid);
    if (flow_id) {
      nt += cs_pb_varint_encode(te + nt, (flow_start ? TE_FLOW_IDS : TE_TERMINATING_FLOW_IDS) << 3 | CS_PB_FIXED64);
      for (int i = 0; i < 8; i++) te[nt++] = (uint8_t)(flow_id >> (8 * i));
    }
  }
  body[nb++] = TP_TIMESTAMP << 3 | CS_PB_VARINT;
  nb += cs_pb_varint_encode(body + nb, delta);
  body[nb++] = TP_SEQUENCE_ID << 3 | CS_PB_VARINT;
  nb += cs_pb_varint_encode(body + nb, seq);
  body[nb++] = TP_TRACK_EVENT << 3 | CS_PB_LEN;
  body[nb++] = (uint8_t)nt; /* < 128 */
  memcpy(body + nb, te, nt);
  nb += nt;
  p[n++] = TRACE_PACKET << 3 | CS_PB_LEN;
  p[n++] = (uint8_t)nb; /* < 128 */
  memcpy(p + n, body, nb);
  return n + nb;
}

/* Writes one point: BEGIN (its name interned on first use, its arrow), END, or both. */
static void write_point(sim_trace *t, pf_track *tr, const pf_point *pt) {
  pf_state *s = state(t);
  cs_pb *b = &s->out;
  uint64_t ns = cycles_to_ns(pt->cycle, t->clock_mhz);
  bool interned = pt->kind == POINT_END || (tr->interned[pt->op / 64] >> (pt->op % 64) & 1u);
  uint8_t *room;
  if (tr->seq.started && ns >= tr->seq.now_ns && interned && (room = cs_pb_room(b, 2 * PF_EVENT_MAX))) {
    size_t n = 0;
    if (pt->kind != POINT_END)
      n += event_packet(room, ns - tr->seq.now_ns, tr->seq.id, TYPE_SLICE_BEGIN, (uint64_t)pt->op + 1, pt->flow_id,
                        pt->flow_start);
    if (pt->kind != POINT_BEGIN)
      n += event_packet(room + n, pt->kind == POINT_END ? ns - tr->seq.now_ns : 0, tr->seq.id, TYPE_SLICE_END, 0, 0,
                        false);
    tr->seq.now_ns = ns;
    cs_pb_commit(b, n);
    if (b->len >= PF_FLUSH_BYTES) flush_out(t);
    return;
  }
  if (pt->kind != POINT_END) {
    uint64_t iid = (uint64_t)pt->op + 1; /* iids start at 1 */
    size_t mark = packet_at(t, &tr->seq, ns);
    if (!(tr->interned[pt->op / 64] >> (pt->op % 64) & 1u)) {
      const isa_op_desc *d = isa_op_info((isa_op)pt->op);
      size_t id = cs_pb_open(b, TP_INTERNED_DATA);
      size_t en = cs_pb_open(b, ID_EVENT_NAMES);
      cs_pb_uint(b, EN_IID, iid);
      cs_pb_string(b, EN_NAME, d ? d->mnemonic : "?");
      cs_pb_close(b, en);
      cs_pb_close(b, id);
      tr->interned[pt->op / 64] |= 1ull << (pt->op % 64);
    }
    size_t te = cs_pb_open(b, TP_TRACK_EVENT);
    cs_pb_uint(b, TE_TYPE, TYPE_SLICE_BEGIN);
    cs_pb_uint(b, TE_NAME_IID, iid);
    if (pt->flow_id) cs_pb_fixed64(b, pt->flow_start ? TE_FLOW_IDS : TE_TERMINATING_FLOW_IDS, pt->flow_id);
    cs_pb_close(b, te);
    emit(t, mark);
    if (pt->kind == POINT_BEGIN) return;
  }
  size_t mark = packet_at(t, &tr->seq, ns);
  size_t te = cs_pb_open(b, TP_TRACK_EVENT);
  cs_pb_uint(b, TE_TYPE, TYPE_SLICE_END);
  cs_pb_close(b, te);
  emit(t, mark);
}

static bool before(const pf_point *a, const pf_point *b) {
  return a->cycle < b->cycle || (a->cycle == b->cycle && a->kind < b->kind);
}

/* Inserts pt in order: nearly always at the end, as slices mostly complete in the order they
 * started. False when the memory cannot be had. */
static bool hold(pf_track *tr, pf_point pt) {
  if (tr->head + tr->n == tr->cap) {
    if (tr->head > 0 && tr->head >= tr->n) { /* the front half is free: move the waiting points down */
      memcpy(tr->q, tr->q + tr->head, tr->n * sizeof *tr->q);
      tr->head = 0;
    } else {
      size_t cap = tr->cap ? tr->cap * 2 : 64;
      pf_point *q = realloc(tr->q, cap * sizeof *q);
      if (!q) return false;
      tr->q = q;
      tr->cap = cap;
    }
  }
  size_t i = tr->head + tr->n;
  while (i > tr->head && before(&pt, &tr->q[i - 1])) {
    tr->q[i] = tr->q[i - 1];
    i--;
  }
  tr->q[i] = pt;
  tr->n++;
  return true;
}

static pf_point release_first(pf_track *tr) {
  tr->n--;
  return tr->q[tr->head++];
}

static void pf_insn(sim_trace *t, const sim_trace_insn_event *e, const sim_trace_flow_end *flow) {
  pf_state *s = state(t);
  if (!s->tracks || e->core >= s->cores) return;
  pf_track *tr = track(t, e->core, e->pipe);
  bool instant = e->busy_end == e->start;
  pf_point begin = {e->start, flow ? flow->id : 0, e->insn->op, instant ? POINT_INSTANT : POINT_BEGIN,
                    flow && flow->is_start};
  pf_point end = {e->busy_end, 0, e->insn->op, POINT_END, false};
  if (!hold(tr, begin) || (!instant && !hold(tr, end))) {
    sim_trace_note_nomem(t);
    return;
  }
  while (tr->n > PF_REORDER) {
    pf_point first = release_first(tr);
    write_point(t, tr, &first);
  }
}

/* An arrow end without its slice has nothing to attach to in this format. */
static void pf_flow(sim_trace *t, const sim_trace_flow_end *fl) {
  (void)t;
  (void)fl;
}

static void pf_sample(sim_trace *t, const char *name, uint64_t time, double value) {
  pf_state *s = state(t);
  pf_counter *c = NULL;
  for (unsigned i = 0; i < s->ncounters && !c; i++)
    if (strcmp(s->counters[i].name, name) == 0) c = &s->counters[i];
  if (!c) {
    if (s->ncounters == PF_MAX_COUNTERS) return;
    c = &s->counters[s->ncounters];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->seq.id = PF_META_SEQ + 1 + s->cores * ISA_PIPE_COUNT + s->ncounters;
    c->seq.uuid = PF_UUID_COUNTER0 + s->ncounters;
    s->ncounters++;
    cs_pb *b = &s->out;
    size_t mark = packet_open(t);
    cs_pb_uint(b, TP_SEQUENCE_ID, PF_META_SEQ);
    size_t td = cs_pb_open(b, TP_TRACK_DESCRIPTOR);
    cs_pb_uint(b, TD_UUID, c->seq.uuid);
    cs_pb_uint(b, TD_PARENT_UUID, PF_UUID_CHIP);
    cs_pb_string(b, TD_NAME, c->name);
    size_t cd = cs_pb_open(b, TD_COUNTER);
    cs_pb_close(b, cd);
    cs_pb_close(b, td);
    emit(t, mark);
  }
  size_t mark = packet_at(t, &c->seq, cycles_to_ns(time, t->clock_mhz));
  cs_pb *b = &s->out;
  size_t te = cs_pb_open(b, TP_TRACK_EVENT);
  cs_pb_uint(b, TE_TYPE, TYPE_COUNTER);
  cs_pb_double(b, TE_DOUBLE_COUNTER_VALUE, value);
  cs_pb_close(b, te);
  emit(t, mark);
}

static void pf_finish(sim_trace *t) {
  pf_state *s = state(t);
  for (size_t i = 0; s->tracks && i < (size_t)s->cores * ISA_PIPE_COUNT; i++)
    while (s->tracks[i].n) {
      pf_point pt = release_first(&s->tracks[i]);
      write_point(t, &s->tracks[i], &pt);
    }
  flush_out(t);
}

static void pf_release(sim_trace *t) {
  pf_state *s = state(t);
  if (!s) return;
  for (size_t i = 0; s->tracks && i < (size_t)s->cores * ISA_PIPE_COUNT; i++) free(s->tracks[i].q);
  free(s->tracks);
  cs_pb_free(&s->out);
  free(s);
}

const sim_trace_writer sim_trace_pf_writer = {
    30, pf_header, pf_begin, pf_insn, pf_flow, pf_sample, pf_finish, pf_release,
};
