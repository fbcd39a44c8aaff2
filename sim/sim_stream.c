/* sim_stream — compact records of recorded instructions (see sim_stream.h). */
#include "sim/sim_stream.h"

#include <stdbool.h>
#include <stddef.h>
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
  if (len == 0 || len > 255) { /* kept whole */
    rec[0] = 0;
    memcpy(rec + 1, in, sizeof *in);
    return 1 + sizeof *in;
  }
  rec[0] = (uint8_t)len;
  return len;
}

/* Decodes the record at p into *out; returns its length. */
static size_t decode(const uint8_t *p, isa_insn *out) {
  if (p[0] == 0) {
    memcpy(out, p + 1, sizeof *out);
    return 1 + sizeof *out;
  }
  static const isa_insn blank; /* copied, not memset: compilers make that `rep stos`, slow to start */
  memcpy(out, &blank, sizeof *out);
  out->op = p[1];
  get_of[out->op](p + 2, out);
  return p[0];
}

static uint64_t rec_len(const uint8_t *p) { return p[0] ? p[0] : 1 + sizeof(isa_insn); }

uint64_t sim_stream_host_bytes(const sim_stream *s) {
  return s->capbytes + s->capmarks * sizeof *s->marks;
}

static uint64_t grown(uint64_t cap, uint64_t at_least) {
  uint64_t c = cap ? cap + cap / 2 : at_least;
  return c < at_least ? at_least : c;
}

uint64_t sim_stream_growth(const sim_stream *s) {
  uint64_t g = 0;
  if (s->nbytes + SIM_STREAM_MAX_RECORD > s->capbytes)
    g += grown(s->capbytes, s->nbytes + SIM_STREAM_MAX_RECORD + 4096) - s->capbytes;
  if (s->n % SIM_STREAM_MARK == 0 && s->nmarks == s->capmarks)
    g += (grown(s->capmarks, 64) - s->capmarks) * sizeof *s->marks;
  return g;
}

cs_status sim_stream_append(sim_stream *s, const isa_insn *in) {
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
  s->nbytes += encode(in, s->bytes + s->nbytes);
  s->n++;
  return CS_OK;
}

void sim_stream_get(const sim_stream *s, uint64_t idx, isa_insn *out) {
  uint64_t off = s->marks[idx / SIM_STREAM_MARK];
  for (uint64_t i = idx & ~(uint64_t)(SIM_STREAM_MARK - 1); i < idx; i++) off += rec_len(s->bytes + off);
  decode(s->bytes + off, out);
}

void sim_stream_free(sim_stream *s) {
  free(s->bytes);
  free(s->marks);
  memset(s, 0, sizeof *s);
}

void sim_stream_cursor_init(sim_stream_cursor *c, const sim_stream *s, uint64_t idx) {
  c->s = s;
  c->idx = idx < s->n ? idx : s->n;
  c->off = 0;
  if (c->idx < s->n) {
    c->off = s->marks[c->idx / SIM_STREAM_MARK];
    for (uint64_t i = c->idx & ~(uint64_t)(SIM_STREAM_MARK - 1); i < c->idx; i++) c->off += rec_len(s->bytes + c->off);
  }
}

bool sim_stream_next(sim_stream_cursor *c, isa_insn *out) {
  if (c->idx >= c->s->n) return false;
  c->off += decode(c->s->bytes + c->off, out);
  c->idx++;
  return true;
}

bool sim_stream_next_op(sim_stream_cursor *c, uint32_t op, isa_insn *out) {
  for (; c->idx < c->s->n; c->idx++) {
    const uint8_t *p = c->s->bytes + c->off;
    uint32_t at;
    if (p[0]) at = p[1];
    else memcpy(&at, p + 1 + offsetof(isa_insn, op), sizeof at); /* kept whole */
    if (at == op) return sim_stream_next(c, out);
    c->off += rec_len(p);
  }
  return false;
}
