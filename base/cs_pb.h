/* cs_pb — the protocol buffers wire format, write side: what a Perfetto trace needs (varints,
 * fixed 64-bit values, length-delimited strings and nested messages), appended to a byte buffer.
 *
 * A message is a run of fields; each field is a key, varint(field << 3 | wire type), and a
 * value: wire type 0 a varint (7 bits a byte, low first, the top bit set on all but the last),
 * 1 eight little-endian bytes, 2 a varint length and that many bytes (strings, bytes, nested
 * messages). A repeated field is the same field written again. Nothing here knows a schema.
 *
 * The buffer grows as needed; when memory runs out it stops growing and remembers it (cs_pb.oom),
 * so a writer can check once at the end of a message.
 */
#ifndef CS_PB_H
#define CS_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_PB_VARINT 0u
#define CS_PB_FIXED64 1u
#define CS_PB_LEN 2u
#define CS_PB_VARINT_MAX_BYTES 10u

typedef struct cs_pb {
  uint8_t *p;
  size_t len, cap;
  bool oom; /* an append did not fit and was dropped */
} cs_pb;

void cs_pb_init(cs_pb *b);
void cs_pb_free(cs_pb *b);
/* Empties the buffer (keeps its memory). */
void cs_pb_reset(cs_pb *b);

/* Encodes v as a varint at out (at least CS_PB_VARINT_MAX_BYTES); returns the bytes used. */
size_t cs_pb_varint_encode(uint8_t *out, uint64_t v);
/* Bytes of v as a varint. */
size_t cs_pb_varint_size(uint64_t v);

/* Fields. Signed integers (int32/int64) are written as the varint of their two's complement. */
void cs_pb_uint(cs_pb *b, uint32_t field, uint64_t v);
void cs_pb_fixed64(cs_pb *b, uint32_t field, uint64_t v);
void cs_pb_double(cs_pb *b, uint32_t field, double v);
void cs_pb_bytes(cs_pb *b, uint32_t field, const void *data, size_t n);
void cs_pb_string(cs_pb *b, uint32_t field, const char *s);

/* Room for n more bytes, written by the caller, who then adds what it wrote with cs_pb_commit
 * (NULL when the memory cannot be had: oom is set). For encoders of fixed small messages. */
uint8_t *cs_pb_room(cs_pb *b, size_t n);
void cs_pb_commit(cs_pb *b, size_t n);

/* A nested message: cs_pb_open writes the key and returns a mark; the message's fields follow;
 * cs_pb_close(mark) writes its length in front of them. */
size_t cs_pb_open(cs_pb *b, uint32_t field);
void cs_pb_close(cs_pb *b, size_t mark);

#endif
