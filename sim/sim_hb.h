/* sim_hb — data hazards from the order a program guarantees (happens-before), whatever the
 * timing (docs/TIMING.md, "Hazards").
 *
 * The timing replay sees two accesses collide only when the configured latencies make them
 * overlap; a missing flag that the timing happens to cover goes unseen. This check needs no
 * timing at all: it follows, in one pass over a core's stream, every order the hardware
 * guarantees whatever the latencies —
 *   - program order within a pipe that keeps its instructions in order (every pipe but V);
 *   - set_flag -> wait_flag: the k-th wait of an event (src, dst, id) passes after the k-th set
 *     fired, and a set fires once everything its source pipe started before it has completed;
 *   - pipe_barrier(P): every earlier instruction of P before any later one; pipe_barrier(ALL)
 *     and wait_flag(X, S) hold dispatch, so they order everything earlier (or the set) before
 *     everything after;
 *   - UnitFlag: a unit-flag fixpipe after the last mmad with unit_flag 3 into the L0C bytes it
 *     reads, a unit-flag mmad after the last unit-flag fixpipe reading the bytes it writes —
 * and reports every pair of accesses to overlapping bytes, at least one a write, that none of
 * these orders (directly or through a chain of them). Each instruction carries a vector clock
 * with one entry per pipe, the frontier "every instruction of pipe P before program index i has
 * completed": since every ordering point covers a prefix of a pipe's instructions (a set_flag
 * waits for all the earlier work of its pipe), a frontier is exact. Only the accesses of each
 * pipe that some later access may still find unordered are kept, so a well-synchronized stream
 * is checked in time proportional to its length.
 *
 * Hazards are per core (flags are per core; cores synchronize by other means).
 */
#ifndef SIM_HB_H
#define SIM_HB_H

#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"
#include "sim/sim.h"
#include "sim/sim_stream.h"

/* ---- UnitFlag partners ---------------------------------------------------------------------
 * Found in program order, as the hardware's per-512 B ready bits of L0C pair them: the timing
 * engine (which overlaps the pair) and the happens-before check (which orders it) read the same
 * rule here. */
#define SIM_UF_SLOTS 8 /* L0C regions remembered per kind: more than any double-buffered L0C has */
typedef struct sim_uf_span {
  uint64_t idx, lo, hi; /* an instruction and the L0C bytes [lo, hi) it touches */
} sim_uf_span;
typedef struct sim_uf_track {
  sim_uf_span fix[SIM_UF_SLOTS];  /* the latest unit-flag fixpipes and the L0C bytes they read */
  sim_uf_span mmad[SIM_UF_SLOTS]; /* the latest mmads with unit_flag 3 and the bytes they write */
  unsigned nfix, nmmad;           /* how many were ever noted (slot: count % SIM_UF_SLOTS) */
} sim_uf_track;

#define SIM_UF_NONE UINT64_MAX

void sim_uf_track_init(sim_uf_track *t);
/* Instruction idx, in program order: returns its partner (a unit-flag fixpipe's mmad: the latest
 * mmad with unit_flag 3 writing bytes it reads; a unit-flag mmad's earlier fixpipe: the latest
 * unit-flag fixpipe reading bytes it writes, so a double-buffered L0C pairs each buffer with its
 * own reader) or SIM_UF_NONE, and notes it for the instructions after. */
uint64_t sim_uf_track_next(sim_uf_track *t, const isa_insn *in, uint64_t idx);
/* The oldest instruction the tracker may still name as a partner (SIM_UF_NONE: none), for
 * `fixpipes` or for mmads. */
uint64_t sim_uf_track_oldest(const sim_uf_track *t, bool fixpipes);

/* ---- the check -------------------------------------------------------------------------- */

/* Two accesses nothing orders: `later` (in program order) reads what `earlier` writes (RAW),
 * writes what it reads (WAR) or writes (WAW), in mem [lo, hi) (the overlap's bounds). */
typedef struct sim_hb_hazard {
  sim_hazard_kind kind;
  uint64_t earlier, later; /* indices in the stream */
  isa_mem mem;
  uint64_t lo, hi;
} sim_hb_hazard;

typedef struct sim_hb_sink {
  void (*hazard)(void *arg, const sim_hb_hazard *h);
  void *arg;
  /* Optional (NULL: none): told what each instruction knows when it starts — frontier[P]: every
   * instruction of pipe P before that stream index has completed — for every instruction a pipe
   * runs and every one of S or ALL the dispatcher passes (the cross-core check, sim_xhb.h). */
  void (*visit)(void *arg, uint64_t idx, const uint64_t frontier[ISA_PIPE_COUNT]);
} sim_hb_sink;

/* Where each pipe's accesses to each memory end: what the check's prepass would find, kept by
 * whoever appends to a stream (the record phase already has every instruction's ranges), so that
 * the check reads the stream once. */
typedef struct sim_hb_reach {
  uint64_t last[ISA_PIPE_COUNT][ISA_MEM_COUNT]; /* the last instruction of pipe P touching memory m */
  uint64_t last_of[ISA_PIPE_COUNT];             /* the last instruction of pipe P */
  bool used[ISA_PIPE_COUNT][ISA_MEM_COUNT];     /* last[P][m] names one (else there is none) */
  bool any[ISA_PIPE_COUNT];                     /* last_of[P] names one */
} sim_hb_reach;

/* Instruction idx, of pipe `pipe` (isa_insn_pipe), touching the n ranges r. */
void sim_hb_reach_note(sim_hb_reach *t, uint64_t idx, isa_pipe pipe, const isa_range *r, size_t n);

/* Checks one core's stream of n instructions (each valid: isa_insn_check passed), giving every
 * unordered pair to sink->hazard once (pairs touching several memories: the first). A stream
 * whose waits can never all pass (a deadlock, whatever the timing) is checked up to where it
 * stops. CS_OK, or CS_ENOMEM. */
cs_status sim_hb_check(const isa_insn *s, uint64_t n, const sim_hb_sink *sink, cs_err *err);
/* The same over a compact stream (sim_stream.h), decoding the instructions it looks at; reach:
 * the stream's (NULL: found by a pass over the stream first). */
cs_status sim_hb_check_stream(const sim_stream *s, const sim_hb_reach *reach, const sim_hb_sink *sink, cs_err *err);
/* The same over a pipe (sim_stream_pipe_open) of n instructions, read once as another thread
 * fills it, with the reach noted when they were first recorded (required): the instructions
 * kept decoded are those between the pipes' oldest cursor and the dispatcher, and a hazard's
 * pair is reported from the ranges its windows keep, so the check's memory does not grow with n.
 * CS_EINTERNAL if the pipe ends before n. */
cs_status sim_hb_check_pipe(const sim_stream *pipe, uint64_t n, const sim_hb_reach *reach, const sim_hb_sink *sink,
                            cs_err *err);

#endif
