/* cs_pb — protocol buffers wire format writer (base/cs_pb.h). */
#include "base/cs_pb.h"

#include <stdlib.h>
#include <string.h>

void cs_pb_init(cs_pb *b) { memset(b, 0, sizeof *b); }

void cs_pb_free(cs_pb *b) {
  free(b->p);
  cs_pb_init(b);
}

void cs_pb_reset(cs_pb *b) {
  b->len = 0;
  b->oom = false;
}

/* Room for `more` bytes after len; false (and oom) when the memory cannot be had. */
static bool reserve(cs_pb *b, size_t more) {
  if (b->oom) return false;
  if (b->cap - b->len >= more) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len < more) cap *= 2;
  uint8_t *p = realloc(b->p, cap);
  if (!p) {
    b->oom = true;
    return false;
  }
  b->p = p;
  b->cap = cap;
  return true;
}

size_t cs_pb_varint_encode(uint8_t *out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  return n;
}

size_t cs_pb_varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static void put_varint(cs_pb *b, uint64_t v) {
  if (reserve(b, CS_PB_VARINT_MAX_BYTES)) b->len += cs_pb_varint_encode(b->p + b->len, v);
}

static void put_key(cs_pb *b, uint32_t field, uint32_t wire) { put_varint(b, (uint64_t)field << 3 | wire); }

void cs_pb_uint(cs_pb *b, uint32_t field, uint64_t v) {
  put_key(b, field, CS_PB_VARINT);
  put_varint(b, v);
}

void cs_pb_fixed64(cs_pb *b, uint32_t field, uint64_t v) {
  put_key(b, field, CS_PB_FIXED64);
  if (!reserve(b, 8)) return;
  for (int i = 0; i < 8; i++) b->p[b->len++] = (uint8_t)(v >> (8 * i)); /* little-endian */
}

void cs_pb_double(cs_pb *b, uint32_t field, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits); /* IEEE 754 binary64, as protobuf's double */
  cs_pb_fixed64(b, field, bits);
}

void cs_pb_bytes(cs_pb *b, uint32_t field, const void *data, size_t n) {
  put_key(b, field, CS_PB_LEN);
  put_varint(b, n);
  if (!reserve(b, n)) return;
  if (n) memcpy(b->p + b->len, data, n);
  b->len += n;
}

void cs_pb_string(cs_pb *b, uint32_t field, const char *s) { cs_pb_bytes(b, field, s, strlen(s)); }

uint8_t *cs_pb_room(cs_pb *b, size_t n) { return reserve(b, n) ? b->p + b->len : NULL; }

void cs_pb_commit(cs_pb *b, size_t n) { b->len += n; }

size_t cs_pb_open(cs_pb *b, uint32_t field) {
  put_key(b, field, CS_PB_LEN);
  size_t mark = b->len;
  if (reserve(b, 1)) b->p[b->len++] = 0; /* the length, most often one byte */
  return mark;
}

void cs_pb_close(cs_pb *b, size_t mark) {
  if (b->oom) return;
  size_t n = b->len - mark - 1, k = cs_pb_varint_size(n);
  if (k > 1) { /* move the message up to make room for a longer length */
    if (!reserve(b, k - 1)) return;
    memmove(b->p + mark + k, b->p + mark + 1, n);
    b->len += k - 1;
  }
  cs_pb_varint_encode(b->p + mark, n);
}
