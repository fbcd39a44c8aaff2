/* sim_stream — a core's recorded instructions in compact form.
 *
 * An isa_insn is as large as its largest operand format (144 bytes); most instructions use a few
 * small fields. A recorded instruction is kept as a record of its opcode and each operand field
 * of its format in the order of the format's field table, every value an unsigned LEB128
 * variable-length number (7 bits a byte): a length byte (below 128), the opcode byte, then the
 * fields. Most of the instructions a matmul records take 12 to 30 bytes. A record of 128 bytes
 * or more (no format has one in practice) is kept whole: head byte 0 and the isa_insn itself.
 *
 * A kernel's loops record the same instructions again and again (flags, L0 loads between a few
 * buffers, the cube's mmads): a matmul's streams hold 1 to 2 distinct records per hundred. Each
 * literal record is entered, the first time it appears, in the stream's dictionary (up to
 * SIM_STREAM_DICT_MAX of them, by id in order of appearance), and the stream keeps a reference to
 * it, the first time as every time after: head byte 0x80 | id's low 6 bits, with 0x40 set when
 * the rest of the id follows as a varint (1 byte for ids below 64, 3 at most). The dictionary is
 * the literals one after another in an arena of their own (small, so that reading or comparing
 * one seldom leaves the host's caches), their offsets, and a hash table over them. Once it is
 * full, a new literal stays in the stream as it is.
 *
 * Every SIM_STREAM_MARK-th record's byte offset is kept, so instruction i is found by a jump to
 * its mark and at most SIM_STREAM_MARK - 1 hops over the records' head bytes; a cursor reads the
 * stream in order with no jump at all. Decoding gives the instruction back field for field, with
 * every byte outside its format's fields zero (as the runtime and the assembler make them).
 */
#ifndef SIM_STREAM_H
#define SIM_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"

#define SIM_STREAM_MARK 64 /* records per kept offset (a power of two) */
#define SIM_STREAM_DICT_MAX 65536 /* distinct literals a stream refers back to (more are only literals) */

typedef struct sim_stream_pipe sim_stream_pipe; /* sim_stream.c */

typedef struct sim_stream {
  uint8_t *bytes; /* a pipe's (sim_stream_pipe_open): the chunk the producer fills */
  uint64_t nbytes, capbytes;
  uint64_t *marks; /* marks[j]: byte offset of record j * SIM_STREAM_MARK */
  uint64_t nmarks, capmarks;
  uint64_t n; /* records */
  uint8_t *dict; /* the dictionary's literals, one after another */
  uint64_t ndict, capdict;
  uint64_t *lit; /* lit[id]: byte offset of literal id in dict */
  uint64_t nlit, caplit;
  uint64_t *slot; /* hash table of the literals: hash's high 32 bits | id + 1 (0: empty) */
  uint64_t capslot; /* a power of two, at least twice nlit + 1 while the dictionary grows */
  bool discard;     /* records are counted, not kept (sim_stream_append only adds to n) */
  sim_stream_pipe *pipe; /* NULL, or the stream is a pipe */
} sim_stream;

/* The most bytes one record takes (what sim_stream_append makes room for): its two head bytes
 * and the varints of a format's fields, at most 5/4 of their bytes (5 for a 32-bit value, 10 for
 * a 64-bit one, 15 for an address of 16); an instruction kept whole takes 1 + sizeof(isa_insn). */
#define SIM_STREAM_MAX_RECORD (2 + sizeof(isa_insn) + sizeof(isa_insn) / 4)

/* Host bytes `streams` kept streams of `records` records in all of a kernel's loops typically
 * take, for estimates before recording (the host-memory preflight): 1.25 bytes of reference a
 * record and a mark every SIM_STREAM_MARK, a distinct literal every hundred records in the
 * dictionaries (up to SIM_STREAM_DICT_MAX a stream; more stay in the stream), half again for the
 * buffers' growth, and each stream's first capacities (7.4 KiB). A matmul's streams measure 1.8
 * to 4.1 bytes a record at 10^5 to 10^7 records (this rule: 2.9 to 4.6); a stream of distinct
 * records takes up to SIM_STREAM_MAX_RECORD a record (the host-memory limit counts what is
 * really held). */
uint64_t sim_stream_typical_bytes(uint64_t records, unsigned streams);

/* Host bytes the stream holds (its buffers' capacities). */
uint64_t sim_stream_host_bytes(const sim_stream *s);
/* Bytes the buffers would hold after making room for one more record: the capacities grow by
 * half when full. Returns the growth in bytes (0 when there is room), so that the caller can
 * count it before sim_stream_append allocates it. */
uint64_t sim_stream_growth(const sim_stream *s);
/* Appends one valid instruction (isa_insn_check passed). CS_ENOMEM (the stream unchanged). */
cs_status sim_stream_append(sim_stream *s, const isa_insn *in);
/* Instruction idx (< s->n) into *out. */
void sim_stream_get(const sim_stream *s, uint64_t idx, isa_insn *out);
void sim_stream_free(sim_stream *s);

/* Reads a stream in order from instruction `idx`. */
typedef struct sim_stream_cursor {
  const sim_stream *s;
  uint64_t idx; /* of the next record */
  uint64_t off; /* its byte offset (in a pipe: in the chunk held) */
  const uint8_t *chunk; /* a pipe's: the chunk held, `end` bytes of records */
  uint64_t end;
} sim_stream_cursor;

void sim_stream_cursor_init(sim_stream_cursor *c, const sim_stream *s, uint64_t idx);
/* The next instruction into *out and true, or false at the end. */
bool sim_stream_next(sim_stream_cursor *c, isa_insn *out);
/* The next instruction with opcode op (isa_op) into *out and true, or false at the end: the
 * records of other opcodes are hopped over, not decoded. */
bool sim_stream_next_op(sim_stream_cursor *c, uint32_t op, isa_insn *out);

/* ---- pipes ----------------------------------------------------------------------------------
 * A stream that goes from one producer thread (sim_stream_append) to one consumer (a cursor) as
 * it is made, in chunks of `chunk` bytes, at most `depth` of them filled and not yet read: the
 * producer waits while they are all waiting, the cursor while none is. Its memory is fixed
 * (sim_stream_pipe_bytes) whatever the number of instructions. Every record is a literal (the
 * consumer cannot share a dictionary that grows as it reads), and no marks are kept: a pipe is read
 * in order once (no sim_stream_get, no sim_stream_next_op). Needs threads (not with
 * CUBESIM_NO_THREADS: CS_EINTERNAL). */
uint64_t sim_stream_pipe_bytes(size_t chunk, unsigned depth);
/* s empty. CS_ENOMEM, CS_EINTERNAL (no threads). */
cs_status sim_stream_pipe_open(sim_stream *s, size_t chunk, unsigned depth);
/* The producer's end: what it holds goes to the consumer, then the cursor meets the end. */
void sim_stream_pipe_close(sim_stream *s);
/* The consumer's end, before the producer's: the producer's records are dropped from now on and
 * it never waits. */
void sim_stream_pipe_abandon(sim_stream *s);
/* Both ends done: s is an empty stream again. */
void sim_stream_pipe_free(sim_stream *s);

#endif
