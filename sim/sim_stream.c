/* sim_stream — compact records of recorded instructions (see sim_stream.h). */
#include "sim/sim_stream.h"

#include "sim/sim_internal.h" /* threads.h, unless CUBESIM_NO_THREADS */

#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *put_var(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

static const uint8_t *get_var(const uint8_t *p, uint64_t *v) {
  uint64_t x = 0;
  unsigned shift = 0;
  for (;;) {
    uint8_t b = *p++;
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  *v = x;
  return p;
}

/* A record's head byte: its length (a literal, below REF_FLAG), 0 (an instruction kept whole), or
 * REF_FLAG with the low bits of a reference's id, REF_MORE saying the rest follows as a varint. */
#define REF_FLAG 0x80u
#define REF_MORE 0x40u
#define REF_LOW_BITS 6
#define REF_LOW_MASK 0x3fu

/* A field's varints: an address as its memory, then its offset; a 64- or 32-bit value as itself.
 * Every format has its own encoder and decoder, made from its field list (isa_insn.h), so the
 * fields are walked with their kinds known where they are compiled. */
static uint8_t *put_addr(uint8_t *p, const isa_addr *a) { return put_var(put_var(p, a->mem), a->off); }
static uint8_t *put_u64(uint8_t *p, const uint64_t *v) { return put_var(p, *v); }
static uint8_t *put_u32(uint8_t *p, const uint32_t *v) { return put_var(p, *v); }

static const uint8_t *get_addr(const uint8_t *q, isa_addr *a) {
  uint64_t v;
  q = get_var(q, &v);
  a->mem = (uint32_t)v;
  return get_var(q, &a->off);
}
static const uint8_t *get_u64(const uint8_t *q, uint64_t *v) { return get_var(q, v); }
static const uint8_t *get_u32(const uint8_t *q, uint32_t *v) {
  uint64_t x;
  q = get_var(q, &x);
  *v = (uint32_t)x;
  return q;
}

#define PUT_FIELD(kind, name, min, max, unit, desc) \
  p = _Generic(f->name, isa_addr: put_addr, uint64_t: put_u64, default: put_u32)(p, &f->name);
#define GET_FIELD(kind, name, min, max, unit, desc) \
  q = _Generic(f->name, isa_addr: get_addr, uint64_t: get_u64, default: get_u32)(q, &f->name);
#define FMT_CODEC(fmt)                                                                      \
  static uint8_t *put_##fmt(uint8_t *p, const isa_insn *in) {                              \
    const isa_fmt_##fmt *f = &in->u.fmt;                                                   \
    ISA_FMT_##fmt(PUT_FIELD) return p;                                                     \
  }                                                                                         \
  static const uint8_t *get_##fmt(const uint8_t *q, isa_insn *out) {                       \
    isa_fmt_##fmt *f = &out->u.fmt;                                                        \
    ISA_FMT_##fmt(GET_FIELD) return q;                                                     \
  }
ISA_FORMAT_LIST(FMT_CODEC)
#undef FMT_CODEC
#undef GET_FIELD
#undef PUT_FIELD

typedef uint8_t *(*put_fn)(uint8_t *, const isa_insn *);
typedef const uint8_t *(*get_fn)(const uint8_t *, isa_insn *);
static const put_fn put_of[ISA_OP_COUNT] = {
#define OP_PUT(op, mn, pipe, fmt, dstm, srcm, desc) [ISA_OP_##op] = put_##fmt,
    ISA_INSN_TABLE(OP_PUT)
#undef OP_PUT
};
static const get_fn get_of[ISA_OP_COUNT] = {
#define OP_GET(op, mn, pipe, fmt, dstm, srcm, desc) [ISA_OP_##op] = get_##fmt,
    ISA_INSN_TABLE(OP_GET)
#undef OP_GET
};

/* The record of one instruction into rec (SIM_STREAM_MAX_RECORD bytes); returns its length. */
static size_t encode(const isa_insn *in, uint8_t *rec) {
  size_t len = 0;
  if (in->op < ISA_OP_COUNT) {
    rec[1] = (uint8_t)in->op;
    len = (size_t)(put_of[in->op](rec + 2, in) - rec);
  }
  if (len == 0 || len >= REF_FLAG) { /* kept whole */
    rec[0] = 0;
    memcpy(rec + 1, in, sizeof *in);
    return 1 + sizeof *in;
  }
  rec[0] = (uint8_t)len;
  return len;
}

/* A reference's id, and its length (the head byte and the rest of the id). */
static uint64_t ref_id(const uint8_t *p, size_t *len) {
  uint64_t id = p[0] & REF_LOW_MASK;
  *len = 1;
  if (p[0] & REF_MORE) {
    uint64_t high;
    *len = (size_t)(get_var(p + 1, &high) - p);
    id |= high << REF_LOW_BITS;
  }
  return id;
}

/* The literal record at p: itself, or the dictionary's that its reference names. */
static const uint8_t *literal(const sim_stream *s, const uint8_t *p) {
  if (!(p[0] & REF_FLAG)) return p;
  size_t len;
  return s->dict + s->lit[ref_id(p, &len)];
}

static uint64_t rec_len(const uint8_t *p) {
  if (p[0] & REF_FLAG) {
    size_t len;
    ref_id(p, &len);
    return len;
  }
  return p[0] ? p[0] : 1 + sizeof(isa_insn);
}

/* Decodes the record at p into *out; returns its length (literal and rec_len in one, so that a
 * reference's id is read once: this is the replay's every instruction). */
static size_t decode(const sim_stream *s, const uint8_t *p, isa_insn *out) {
  size_t len;
  const uint8_t *q = p;
  if (p[0] & REF_FLAG) q = s->dict + s->lit[ref_id(p, &len)];
  else len = p[0] ? p[0] : 1 + sizeof(isa_insn);
  if (q[0] == 0) {
    memcpy(out, q + 1, sizeof *out);
    return len;
  }
  static const isa_insn blank; /* copied, not memset: compilers make that `rep stos`, slow to start */
  memcpy(out, &blank, sizeof *out);
  out->op = q[1];
  get_of[out->op](q + 2, out);
  return len;
}

/* ---- the literals' dictionary: an open-addressed table of (hash, id + 1) ------------------ */

static uint64_t hash_mix(uint64_t h, uint64_t w) {
  h = (h ^ w) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 32);
}

/* A record's hash, from whole 8-byte words (the last one overlapping the one before), or for a
 * record under 8 bytes two 4-byte words or its bytes: no copy of a variable length. */
static uint64_t hash_of(const uint8_t *rec, size_t len) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w = 0;
  if (len >= 8) {
    size_t i = 0;
    for (; i + 8 < len; i += 8) {
      memcpy(&w, rec + i, sizeof w);
      h = hash_mix(h, w);
    }
    memcpy(&w, rec + len - 8, sizeof w);
  } else if (len >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, rec, sizeof lo);
    memcpy(&hi, rec + len - 4, sizeof hi);
    w = (uint64_t)hi << 32 | lo;
  } else
    for (size_t i = 0; i < len; i++) w |= (uint64_t)rec[i] << (8 * i);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

/* Whether the dictionary takes another literal: it grows before it is full (at half the
 * table), whether or not the next record turns out to be new, so that what an append allocates
 * follows from the stream's state alone (sim_stream_growth). */
static bool dict_open(const sim_stream *s) { return s->nlit < SIM_STREAM_DICT_MAX; }
static bool lit_full(const sim_stream *s) { return dict_open(s) && s->nlit == s->caplit; }
static bool table_full(const sim_stream *s) { return dict_open(s) && (s->nlit + 1) * 2 > s->capslot; }
static uint64_t lit_cap_next(const sim_stream *s) { return s->caplit ? s->caplit * 2 : 64; }
static uint64_t table_cap_next(const sim_stream *s) { return s->capslot ? s->capslot * 2 : 128; }
static bool arena_full(const sim_stream *s) { return dict_open(s) && s->ndict + SIM_STREAM_MAX_RECORD > s->capdict; }


static void table_put(uint64_t *slot, uint64_t cap, uint64_t hash, uint64_t id) {
  uint64_t i = hash & (cap - 1);
  while (slot[i]) i = (i + 1) & (cap - 1);
  slot[i] = (hash & ~(uint64_t)UINT32_MAX) | (id + 1);
}

/* The id of the dictionary's literal equal to rec (len bytes), or UINT64_MAX. */
static uint64_t table_find(const sim_stream *s, const uint8_t *rec, size_t len, uint64_t hash) {
  if (!s->capslot) return UINT64_MAX;
  uint64_t mask = s->capslot - 1, top = hash & ~(uint64_t)UINT32_MAX;
  for (uint64_t i = hash & mask; s->slot[i]; i = (i + 1) & mask) {
    if ((s->slot[i] & ~(uint64_t)UINT32_MAX) != top) continue;
    uint64_t id = (s->slot[i] & UINT32_MAX) - 1;
    const uint8_t *q = s->dict + s->lit[id];
    if (q[0] == len && memcmp(q, rec, len) == 0) return id;
  }
  return UINT64_MAX;
}

static uint64_t pipe_host_bytes(const sim_stream *s);

uint64_t sim_stream_host_bytes(const sim_stream *s) {
  if (s->pipe) return pipe_host_bytes(s);
  return s->capbytes + s->capmarks * sizeof *s->marks + s->caplit * sizeof *s->lit + s->capslot * sizeof *s->slot +
         s->capdict;
}

static uint64_t grown(uint64_t cap, uint64_t at_least) {
  uint64_t c = cap ? cap + cap / 2 : at_least;
  return c < at_least ? at_least : c;
}

/* The arena's capacity when it grows: room for the largest record, and 1 KiB more at first. */
static uint64_t arena_cap_next(const sim_stream *s) {
  return grown(s->capdict, s->ndict + SIM_STREAM_MAX_RECORD + 1024);
}

uint64_t sim_stream_growth(const sim_stream *s) {
  uint64_t g = 0;
  if (s->discard || s->pipe) return 0;
  if (s->nbytes + SIM_STREAM_MAX_RECORD > s->capbytes)
    g += grown(s->capbytes, s->nbytes + SIM_STREAM_MAX_RECORD + 4096) - s->capbytes;
  if (s->n % SIM_STREAM_MARK == 0 && s->nmarks == s->capmarks)
    g += (grown(s->capmarks, 64) - s->capmarks) * sizeof *s->marks;
  if (lit_full(s)) g += (lit_cap_next(s) - s->caplit) * sizeof *s->lit;
  if (table_full(s)) g += (table_cap_next(s) - s->capslot) * sizeof *s->slot;
  if (arena_full(s)) g += arena_cap_next(s) - s->capdict;
  return g;
}

/* Room for one more literal in the dictionary (see dict_open). */
static cs_status dict_make_room(sim_stream *s) {
  if (arena_full(s)) {
    uint64_t cap = arena_cap_next(s);
    uint8_t *d = cap > SIZE_MAX ? NULL : realloc(s->dict, (size_t)cap);
    if (!d) return CS_ENOMEM;
    s->dict = d;
    s->capdict = cap;
  }
  if (lit_full(s)) {
    uint64_t cap = lit_cap_next(s);
    uint64_t *l = realloc(s->lit, (size_t)cap * sizeof *l);
    if (!l) return CS_ENOMEM;
    s->lit = l;
    s->caplit = cap;
  }
  if (table_full(s)) {
    uint64_t cap = table_cap_next(s);
    uint64_t *t = calloc((size_t)cap, sizeof *t);
    if (!t) return CS_ENOMEM;
    for (uint64_t i = 0; i < s->capslot; i++)
      if (s->slot[i]) {
        uint64_t id = (s->slot[i] & UINT32_MAX) - 1;
        const uint8_t *q = s->dict + s->lit[id];
        table_put(t, cap, hash_of(q, q[0]), id);
      }
    free(s->slot);
    s->slot = t;
    s->capslot = cap;
  }
  return CS_OK;
}

static bool pipe_put(sim_stream *s, const isa_insn *in);

cs_status sim_stream_append(sim_stream *s, const isa_insn *in) {
  if (s->discard) {
    s->n++;
    return CS_OK;
  }
  if (s->pipe) return pipe_put(s, in) ? CS_OK : CS_ENOMEM;
  if (s->nbytes + SIM_STREAM_MAX_RECORD > s->capbytes) {
    uint64_t cap = grown(s->capbytes, s->nbytes + SIM_STREAM_MAX_RECORD + 4096);
    uint8_t *b = cap > SIZE_MAX ? NULL : realloc(s->bytes, (size_t)cap);
    if (!b) return CS_ENOMEM;
    s->bytes = b;
    s->capbytes = cap;
  }
  if (s->n % SIM_STREAM_MARK == 0) {
    if (s->nmarks == s->capmarks) {
      uint64_t cap = grown(s->capmarks, 64);
      uint64_t *m = cap > SIZE_MAX / sizeof *m ? NULL : realloc(s->marks, (size_t)cap * sizeof *m);
      if (!m) return CS_ENOMEM;
      s->marks = m;
      s->capmarks = cap;
    }
    s->marks[s->nmarks++] = s->nbytes;
  }
  if (dict_make_room(s) != CS_OK) {
    if (s->n % SIM_STREAM_MARK == 0) s->nmarks--; /* the stream unchanged */
    return CS_ENOMEM;
  }
  uint8_t *rec = s->bytes + s->nbytes;
  size_t len = encode(in, rec);
  if (rec[0]) { /* a literal: a reference to the dictionary's equal one, entered now if new */
    uint64_t hash = hash_of(rec, len), id = table_find(s, rec, len, hash);
    if (id == UINT64_MAX && dict_open(s)) {
      id = s->nlit++;
      s->lit[id] = s->ndict;
      memcpy(s->dict + s->ndict, rec, len);
      s->ndict += len;
      table_put(s->slot, s->capslot, hash, id);
    }
    if (id != UINT64_MAX && id >> REF_LOW_BITS) {
      rec[0] = (uint8_t)(REF_FLAG | REF_MORE | (id & REF_LOW_MASK));
      len = (size_t)(put_var(rec + 1, id >> REF_LOW_BITS) - rec);
    } else if (id != UINT64_MAX) {
      rec[0] = (uint8_t)(REF_FLAG | id);
      len = 1;
    } /* else new, and the dictionary full: the literal stays in the stream */
  }
  s->nbytes += len;
  s->n++;
  return CS_OK;
}

void sim_stream_get(const sim_stream *s, uint64_t idx, isa_insn *out) {
  uint64_t off = s->marks[idx / SIM_STREAM_MARK];
  for (uint64_t i = idx & ~(uint64_t)(SIM_STREAM_MARK - 1); i < idx; i++) off += rec_len(s->bytes + off);
  decode(s, s->bytes + off, out);
}

void sim_stream_free(sim_stream *s) {
  if (s->pipe) {
    sim_stream_pipe_free(s);
    return;
  }
  free(s->bytes);
  free(s->marks);
  free(s->lit);
  free(s->slot);
  free(s->dict);
  memset(s, 0, sizeof *s);
}

void sim_stream_cursor_init(sim_stream_cursor *c, const sim_stream *s, uint64_t idx) {
  c->s = s;
  c->chunk = NULL;
  c->end = 0;
  if (s->pipe) { /* read from the start, as the chunks come */
    c->idx = c->off = 0;
    return;
  }
  c->idx = idx < s->n ? idx : s->n;
  c->off = 0;
  if (c->idx < s->n) {
    c->off = s->marks[c->idx / SIM_STREAM_MARK];
    for (uint64_t i = c->idx & ~(uint64_t)(SIM_STREAM_MARK - 1); i < c->idx; i++) c->off += rec_len(s->bytes + c->off);
  }
}

static bool pipe_take(sim_stream_cursor *c);

bool sim_stream_next(sim_stream_cursor *c, isa_insn *out) {
  if (c->s->pipe) {
    if (c->off == c->end && !pipe_take(c)) return false;
    c->off += decode(c->s, c->chunk + c->off, out);
    c->idx++;
    return true;
  }
  if (c->idx >= c->s->n) return false;
  c->off += decode(c->s, c->s->bytes + c->off, out);
  c->idx++;
  return true;
}

bool sim_stream_next_op(sim_stream_cursor *c, uint32_t op, isa_insn *out) {
  if (c->s->pipe) return false; /* not for pipes (sim_stream.h) */
  for (; c->idx < c->s->n; c->idx++) {
    const uint8_t *p = c->s->bytes + c->off, *q = literal(c->s, p);
    uint32_t at;
    if (q[0]) at = q[1];
    else memcpy(&at, q + 1 + offsetof(isa_insn, op), sizeof at); /* kept whole */
    if (at == op) return sim_stream_next(c, out);
    c->off += rec_len(p);
  }
  return false;
}

/* ---- pipes ------------------------------------------------------------------------------- */

#ifndef CUBESIM_NO_THREADS
typedef struct pipe_chunk {
  uint8_t *bytes;
  uint64_t len;
} pipe_chunk;

struct sim_stream_pipe {
  mtx_t lock;
  cnd_t room, data; /* the producer waits on room, the consumer on data */
  size_t chunk;
  unsigned depth;
  pipe_chunk *q; /* [depth]: filled chunks in order, from head */
  unsigned head, nq;
  uint8_t **spare; /* [depth + 2]: chunks no one holds */
  unsigned nspare;
  uint8_t *held; /* the consumer's */
  bool closed, abandoned;
};

#define TYPICAL_REF_BYTES 1.25   /* references to literals, most ids below 64 (1 byte) */
#define TYPICAL_LITERAL_BYTES 32 /* a literal record of a matmul's (12 to 30 bytes) */
#define TYPICAL_DISTINCT 100     /* records per distinct literal (matmuls: 32 to 164) */

uint64_t sim_stream_typical_bytes(uint64_t records, unsigned streams) {
  if (records == 0) return 0; /* nothing allocated before the first record */
  double r = (double)records, lit = r / TYPICAL_DISTINCT, most = (double)SIM_STREAM_DICT_MAX * (streams ? streams : 1);
  double kept = lit < most ? lit : most;
  /* a kept literal: its bytes, its offset and two hash slots; one past the dictionary: in the stream */
  double bytes = r * (TYPICAL_REF_BYTES + 8.0 / SIM_STREAM_MARK) + kept * (TYPICAL_LITERAL_BYTES + 3 * 8) +
                 (lit - kept) * TYPICAL_LITERAL_BYTES;
  bytes *= 1.5;
  /* each stream's first capacities (sim_stream_append, dict_make_room) */
  double first = (double)(SIM_STREAM_MAX_RECORD + 4096) + (double)(SIM_STREAM_MAX_RECORD + 1024) + 64 * 8 + 64 * 8 +
                 128 * 8;
  bytes += first * (streams ? streams : 1);
  return bytes >= 1.8e19 ? UINT64_MAX : (uint64_t)ceil(bytes);
}

uint64_t sim_stream_pipe_bytes(size_t chunk, unsigned depth) {
  /* the producer's chunk, the consumer's and `depth` between them */
  return (uint64_t)(depth + 2) * chunk + sizeof(sim_stream_pipe) + (uint64_t)depth * sizeof(pipe_chunk) +
         (uint64_t)(depth + 2) * sizeof(uint8_t *);
}

static uint64_t pipe_host_bytes(const sim_stream *s) { return sim_stream_pipe_bytes(s->pipe->chunk, s->pipe->depth); }

cs_status sim_stream_pipe_open(sim_stream *s, size_t chunk, unsigned depth) {
  memset(s, 0, sizeof *s);
  if (chunk < 2 * SIM_STREAM_MAX_RECORD || depth < 1) return CS_EINVAL;
  sim_stream_pipe *p = calloc(1, sizeof *p);
  if (!p) return CS_ENOMEM;
  p->chunk = chunk;
  p->depth = depth;
  p->q = calloc(depth, sizeof *p->q);
  p->spare = calloc(depth + 2, sizeof *p->spare);
  bool ok = p->q && p->spare;
  for (unsigned i = 0; ok && i < depth + 2; i++) ok = (p->spare[p->nspare++] = malloc(chunk)) != NULL;
  bool made_lock = ok && mtx_init(&p->lock, mtx_plain) == thrd_success;
  bool made_room = made_lock && cnd_init(&p->room) == thrd_success;
  bool made_data = made_room && cnd_init(&p->data) == thrd_success;
  if (!made_data) {
    if (made_room) cnd_destroy(&p->room);
    if (made_lock) mtx_destroy(&p->lock);
    for (unsigned i = 0; p->spare && i < p->nspare; i++) free(p->spare[i]);
    free(p->spare);
    free(p->q);
    free(p);
    return CS_ENOMEM;
  }
  s->bytes = p->spare[--p->nspare];
  s->capbytes = chunk;
  s->pipe = p;
  return CS_OK;
}

/* The producer's chunk to the consumer (waiting for room), and a spare one to fill: there is
 * always one, since depth + 2 chunks are the producer's, the consumer's and at most depth
 * waiting. With the consumer gone, the chunk is emptied instead. */
static void pipe_push(sim_stream *s) {
  sim_stream_pipe *p = s->pipe;
  mtx_lock(&p->lock);
  while (p->nq == p->depth && !p->abandoned) cnd_wait(&p->room, &p->lock);
  if (!p->abandoned && s->nbytes) {
    p->q[(p->head + p->nq) % p->depth] = (pipe_chunk){s->bytes, s->nbytes};
    p->nq++;
    s->bytes = p->spare[--p->nspare];
    cnd_signal(&p->data);
  }
  mtx_unlock(&p->lock);
  s->nbytes = 0;
}

static bool pipe_put(sim_stream *s, const isa_insn *in) {
  if (s->nbytes + SIM_STREAM_MAX_RECORD > s->capbytes) pipe_push(s);
  s->nbytes += encode(in, s->bytes + s->nbytes);
  s->n++;
  return true;
}

/* The next chunk for the cursor, the one it held going back to the spares. False at the end. */
static bool pipe_take(sim_stream_cursor *c) {
  sim_stream_pipe *p = c->s->pipe;
  mtx_lock(&p->lock);
  if (p->held) {
    p->spare[p->nspare++] = p->held;
    p->held = NULL;
  }
  while (!p->nq && !p->closed) cnd_wait(&p->data, &p->lock);
  bool more = p->nq > 0;
  if (more) {
    pipe_chunk x = p->q[p->head];
    p->head = (p->head + 1) % p->depth;
    p->nq--;
    p->held = x.bytes;
    c->chunk = x.bytes;
    c->end = x.len;
    c->off = 0;
    cnd_signal(&p->room);
  }
  mtx_unlock(&p->lock);
  return more;
}

void sim_stream_pipe_close(sim_stream *s) {
  sim_stream_pipe *p = s->pipe;
  if (s->nbytes) pipe_push(s);
  mtx_lock(&p->lock);
  p->closed = true;
  cnd_signal(&p->data);
  mtx_unlock(&p->lock);
}

void sim_stream_pipe_abandon(sim_stream *s) {
  sim_stream_pipe *p = s->pipe;
  mtx_lock(&p->lock);
  p->abandoned = true;
  cnd_signal(&p->room);
  mtx_unlock(&p->lock);
}

void sim_stream_pipe_free(sim_stream *s) {
  sim_stream_pipe *p = s->pipe;
  if (!p) return;
  free(s->bytes);
  free(p->held);
  for (unsigned i = 0; i < p->nq; i++) free(p->q[(p->head + i) % p->depth].bytes);
  for (unsigned i = 0; i < p->nspare; i++) free(p->spare[i]);
  cnd_destroy(&p->data);
  cnd_destroy(&p->room);
  mtx_destroy(&p->lock);
  free(p->spare);
  free(p->q);
  free(p);
  memset(s, 0, sizeof *s);
}
#else
uint64_t sim_stream_pipe_bytes(size_t chunk, unsigned depth) { return (uint64_t)(depth + 2) * chunk; }
cs_status sim_stream_pipe_open(sim_stream *s, size_t chunk, unsigned depth) {
  (void)chunk;
  (void)depth;
  memset(s, 0, sizeof *s);
  return CS_EINTERNAL;
}
static uint64_t pipe_host_bytes(const sim_stream *s) {
  (void)s;
  return 0;
}
static bool pipe_put(sim_stream *s, const isa_insn *in) {
  (void)s;
  (void)in;
  return false;
}
static bool pipe_take(sim_stream_cursor *c) {
  (void)c;
  return false;
}
void sim_stream_pipe_close(sim_stream *s) { (void)s; }
void sim_stream_pipe_abandon(sim_stream *s) { (void)s; }
void sim_stream_pipe_free(sim_stream *s) { (void)s; }
#endif
