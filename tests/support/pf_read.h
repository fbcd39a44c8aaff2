/* pf_read — reads a Perfetto protobuf trace back into its events, for the tests of
 * sim/sim_trace_pf.c: written from Perfetto's documented wire format (protos/perfetto/trace in
 * Perfetto's repository: Trace, TracePacket, TrackDescriptor, TrackEvent, ClockSnapshot,
 * TracePacketDefaults, InternedData), not from the writer.
 *
 * It follows what a trace reader does: packet sequences by trusted_packet_sequence_id, each
 * with its incremental state (cleared by SEQ_INCREMENTAL_STATE_CLEARED), its defaults (track
 * uuid, timestamp clock), its interned event names, and its sequence-scoped clocks (ids 64..127)
 * from ClockSnapshots, incremental or not; BEGIN and END pair on a track as a stack. Everything
 * a well-formed trace should not contain is counted in `problems` with the first one described,
 * so a test asserts there is none.
 */
#ifndef TESTS_PF_READ_H
#define TESTS_PF_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One slice: its name, the pid and tid of its thread track (tid 0 on a process track), its
 * times in ns, the arrow ids its BEGIN carries. */
typedef struct pfr_slice {
  char name[40];
  unsigned pid, tid;
  uint64_t begin_ns, end_ns;
  uint64_t flow_out, flow_in; /* flow_ids, terminating_flow_ids (0: none) */
} pfr_slice;

typedef struct pfr_sample {
  char track[64]; /* the counter track's name */
  uint64_t ns;
  double value;
} pfr_sample;

/* A track descriptor. */
typedef struct pfr_track {
  uint64_t uuid, parent;
  char name[64];        /* name, process_name or thread_name */
  unsigned pid, tid;    /* tid 0: a process track (or another) */
  bool is_process, is_thread, is_counter;
  int rank;             /* sibling_order_rank */
} pfr_track;

typedef struct pfr_trace {
  pfr_slice *slices;
  size_t nslices;
  pfr_sample *samples;
  size_t nsamples;
  pfr_track *tracks;
  size_t ntracks;
  size_t packets;
  size_t absolute_timestamps; /* event packets that override the sequence's clock */
  size_t instants;            /* TYPE_INSTANT events (the run's metadata) */
  char instant_name[64];
  char meta[8][2][256];       /* the first instant's debug annotations: name, value (as text) */
  size_t nmeta;
  size_t problems;
  char first_problem[256];
} pfr_trace;

/* Reads and decodes the file, failing the test when it cannot be read. */
void pfr_read_file(const char *path, pfr_trace *t);
void pfr_free(pfr_trace *t);
/* The track of uuid, or NULL. */
const pfr_track *pfr_track_of(const pfr_trace *t, uint64_t uuid);

#endif
