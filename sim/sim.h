/* sim — the simulated chip: one handle owns the configuration, GM, every core's buffers and
 * instruction stream, and runs the timing replay.
 *
 * Two phases (docs/DESIGN.md §2). Record: the runtime issues instructions to a core with
 * sim_core_issue; each is checked (fields, memories, alignment, bounds), applied to the core's
 * buffers (unless the simulator is timing-only) and appended to the core's stream. Replay:
 * sim_run replays all cores' streams together through the timing engine, which gives cycles,
 * statistics, hazards and the trace. Nothing here is global: any number of simulators, each with
 * its own configuration, can live in one process.
 */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"
#include "isa/isa_kernel.h"
#include "sim/sim_config.h"
#include "sim/sim_stats.h"
#include "sim/sim_stream.h"

typedef struct sim sim;
typedef struct sim_core sim_core;
typedef struct sim_trace sim_trace;
struct sim_trace_insn_event; /* sim/sim_trace.h */

/* How far a long run is, for a progress display: during the record phase the instructions
 * recorded so far, then during the replay the instructions completed of all and the simulated
 * time reached. */
typedef struct sim_progress {
  bool replaying;
  uint64_t recorded;         /* all cores' instructions recorded so far */
  uint64_t replayed, total;  /* replay: instructions completed, of all cores' streams */
  uint64_t cycles;           /* replay: the simulated time reached */
} sim_progress;

/* Called every SIM_PROGRESS_STEP instructions recorded or completed (never for a run shorter). */
typedef struct sim_progress_hook {
  void (*fn)(void *ctx, const sim_progress *p);
  void *ctx;
} sim_progress_hook;

#define SIM_PROGRESS_STEP 65536u

typedef struct sim_options {
  bool timing_only;  /* no data: buffers are bounds-checked but store nothing */
  isa_kernel kernel; /* the functional model's hot loops (isa/isa_kernel.h); AUTO: the best */
  const sim_progress_hook *progress; /* NULL: none; must outlive the simulator */
  uint64_t max_host_bytes; /* 0: no limit; else what the simulator's own memory (on-chip
                              buffers, GM data, recorded streams) may grow to: see below */
  unsigned record_threads; /* host threads a timing-only simulator's cores may record on at
                            * once (sim_record_concurrently; 0: CUBESIM_THREADS, else one per
                            * processor of the host; 1: none but the caller's) */
  bool stream_record;      /* timing-only: the first launch's streams need not be kept (see
                            * sim_record_cores): the run records them again as it replays them,
                            * and its memory does not grow with the instructions */
} sim_options;

/* ---- host memory ---------------------------------------------------------------------------
 * What a simulator takes of host memory, estimated before it exists (a run's preflight,
 * docs/RELIABILITY.md) and counted while it grows. With opt->max_host_bytes set, creating it,
 * allocating GM and recording instructions past that limit fail with CS_ENOMEM (exit 3: a host
 * resource, not a kernel fault): sim_core_issue stops the core, and sim_host_status (which
 * rt_launch and sim_run consult) says what did not fit. */
typedef struct sim_footprint {
  uint64_t buffers_bytes; /* every core's on-chip buffers and functional workspace (functional) */
  uint64_t gm_bytes;      /* GM tensors' data (functional) */
  uint64_t stream_bytes;  /* the recorded instructions (a streaming run: its pipes) */
  uint64_t replay_bytes;  /* the replay's state of the instructions in flight, L2 tags, a trace's buffer */
  uint64_t total_bytes;
} sim_footprint;

/* What a run is, for its footprint. */
typedef struct sim_footprint_run {
  bool timing_only;
  uint64_t gm_bytes;     /* its GM tensors (functional) */
  uint64_t instructions; /* recorded over all cores */
  bool traced;           /* a trace or an observer follows the replay (the streams are kept) */
  bool streamable;       /* one launch of cube cores only, on a simulator made with stream_record */
  unsigned host_threads; /* as sim_run_options.host_threads (0: CUBESIM_THREADS, else the host's) */
} sim_footprint_run;

/* The streams are kept at sim_stream_typical_bytes of the instructions, unless the run streams
 * (timing-only, streamable, not traced, two host threads or more: sim_record_cores): then they
 * are the pipes of each core, whatever the instructions. */
void sim_footprint_estimate(const sim_config *cfg, const sim_footprint_run *run, sim_footprint *out);
/* The footprint as a list for messages: "GM 1.2 GiB, streams 800.0 MiB, ..." (zero parts left out). */
void sim_footprint_text(const sim_footprint *f, char *out, size_t out_bytes);
/* CS_OK, or the CS_ENOMEM error that stopped the recording (also into err, when non-NULL). */
cs_status sim_host_status(const sim *s, cs_err *err);

/* A kernel fault: the isa fault plus where it happened. */
typedef struct sim_fault {
  isa_fault f;
  unsigned core;    /* the core whose stream it is in */
  uint64_t index;   /* index of the instruction in the core's stream */
  isa_insn insn;    /* a copy of the faulting instruction */
} sim_fault;

/* Creates a simulator for a validated configuration (copied). */
cs_status sim_create(const sim_config *cfg, const sim_options *opt, sim **out, cs_err *err);
void sim_destroy(sim *s);

const sim_config *sim_get_config(const sim *s);
const sim_config_derived *sim_get_derived(const sim *s);
bool sim_is_timing_only(const sim *s);
/* The cores that exist: chip.aic_cores cube cores (AIC, indices 0 .. aic - 1), then, once
 * sim_aiv_enable made them, the vector cores (AIV): AIV v of AI core g is core
 * aic + g * chip.aiv_per_aic + v. A simulator that never ran a vector kernel has AICs only, so
 * its statistics and traces are those of a chip without AIVs. */
unsigned sim_core_count(const sim *s);
sim_core *sim_get_core(sim *s, unsigned index);

typedef enum sim_core_kind { SIM_CORE_AIC, SIM_CORE_AIV } sim_core_kind;

unsigned sim_aic_count(const sim *s); /* chip.aic_cores */
/* chip.aic_cores x chip.aiv_per_aic: the AIVs sim_aiv_enable makes (0 before, and on a chip
 * without AIVs). */
unsigned sim_aiv_count(const sim *s);
/* Makes the AIV cores (once; each with its UB of aiv.ub_bytes and no other on-chip buffer).
 * CS_EINVAL on a chip with chip.aiv_per_aic = 0, CS_ENOMEM. */
cs_status sim_aiv_enable(sim *s, cs_err *err);
/* Marks the start of a launch (rt_launch): every core's stream from here on belongs to it. The
 * check across cores (sim_xhb.h) orders accesses of different launches (the host waits for one
 * to end before the next). CS_ENOMEM. */
cs_status sim_mark_launch(sim *s, cs_err *err);
/* The launch (0 = the first marked; before any mark, 0) that instruction `index` of `core` belongs to. */
size_t sim_launch_of(const sim *s, unsigned core, uint64_t index);
/* AIV number v (0 .. sim_aiv_count - 1, = group * aiv_per_aic + sub), or NULL. */
sim_core *sim_get_aiv(sim *s, unsigned v);
sim_core_kind sim_core_kind_of(const sim_core *c);
unsigned sim_core_group(const sim_core *c); /* an AIC's own index; an AIV's AIC */
unsigned sim_core_sub(const sim_core *c);   /* an AIV's sub-block index; 0 for an AIC */
/* "core 3" for an AIC (the name traces and reports always gave), "AIV 3.1" for sub-block 1 of
 * AI core 3. */
void sim_core_name(const sim *s, unsigned core, char *out, size_t out_bytes);

/* ---- GM --------------------------------------------------------------------------------- */

/* Allocates a zero-filled GM tensor (aligned to at least 512 bytes). */
cs_status sim_gm_alloc(sim *s, const char *name, uint64_t bytes, uint64_t *addr, cs_err *err);
/* Host view of GM [addr, addr + bytes): NULL unless it lies in one tensor and the simulator
 * keeps data. */
uint8_t *sim_gm_ptr(sim *s, uint64_t addr, uint64_t bytes);
/* Name of the tensor holding addr, or NULL. */
const char *sim_gm_tensor_name(const sim *s, uint64_t addr);
/* The allocated GM tensors, in allocation order: count, and tensor i's name, address and size. */
size_t sim_gm_tensor_count(const sim *s);
void sim_gm_tensor_at(const sim *s, size_t i, const char **name, uint64_t *addr, uint64_t *bytes);

/* ---- cores: the record phase -------------------------------------------------------------- */

unsigned sim_core_index(const sim_core *c);
/* Checks, applies and records one instruction. CS_EFAULT (see sim_core_fault) if it faults or
 * the core already faulted: a faulted core ignores everything after its fault. */
cs_status sim_core_issue(sim_core *c, const isa_insn *in);
/* Records a fault raised above the instruction level (the runtime's buffer, queue and event
 * checks) as the core's fault, at the current stream position; later issues are ignored. */
void sim_core_raise(sim_core *c, isa_fault_cause cause, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The core's first fault, or NULL. */
const sim_fault *sim_core_fault(const sim_core *c);
/* True while the core takes instructions: it has not faulted and the simulator has not run out
 * of host memory (sim_host_status). */
bool sim_core_ok(const sim_core *c);
/* Several host threads record at once: work(arg, w) runs for w = 0 .. workers - 1, each on a
 * thread of its own (w = 0, and any whose thread cannot be made, on the caller's, one after
 * another), and returns when all are done. Each core must be issued to by one worker only, and
 * work must share nothing it writes with the other workers; what the cores share (the host
 * memory counted, a host failure, the progress count) is taken under a lock meanwhile, so the
 * streams are those of a record on one thread, whatever the interleaving. Without threads (a
 * build without C11 threads) the workers run one after another. */
void sim_record_concurrently(sim *s, unsigned workers, void (*work)(void *arg, unsigned w), void *arg);
/* Runs job(arg, i) for every i < n on up to `workers` host threads (0: the default, as
 * sim_run_options.host_threads: CUBESIM_THREADS, else one per processor), worker w taking i = w,
 * w + W, ... in order, and returns when every job has run. The jobs must share nothing they
 * write (independent simulators do not). Worker 0, and any whose thread cannot be made, run on
 * the caller's thread; a build without threads runs them all there, in order. */
void sim_host_parallel(unsigned workers, unsigned n, void (*job)(void *arg, unsigned i), void *arg);
/* Records core `core`'s part of a launch into `into`: the core itself, or a stand-in with its
 * index, kind and buffers (sim_record_cores). */
typedef void (*sim_core_recorder)(void *arg, unsigned core, sim_core *into);
/* A launch of the AICs whose cores record independently (each core's part depends on nothing
 * another writes), on `workers` host threads as sim_record_concurrently; `release(arg)` (if not
 * NULL) is called once the simulator needs the recorder no more. With `keep` (arg stays valid
 * until release), on a simulator made with stream_record, for its first launch, the streams are
 * counted and checked but not kept, and the recorder is: sim_run records every core again as its
 * replay reads it (through a pipe of fixed memory, sim_stream.h), and its hazard check again one
 * core at a time, so that neither holds a whole stream; whatever else needs the streams
 * (another launch, sim_core_stream, sim_core_records, sim_core_insn, a run with a trace, an
 * observer or hazards, a deadlock to describe, faults, cross-core instructions) has them
 * recorded for good first (sim_materialize), with the same results. */
void sim_record_cores(sim *s, unsigned workers, sim_core_recorder rec, void *arg, void (*release)(void *arg),
                      bool keep);
/* The kept recorder's streams recorded for good (nothing when there is none). */
void sim_materialize(sim *s);
/* True while the streams are only counted (sim_record_cores kept its recorder), and
 * sim_streamed after a run that recorded them again as it replayed them. */
bool sim_deferred(const sim *s);
bool sim_streamed(const sim *s);
/* How many workers sim_record_concurrently may usefully take: sim_options.record_threads
 * resolved, 1 for a simulator that keeps data (its functional model may read, within a launch,
 * what an earlier block wrote to GM) or a build without threads. */
unsigned sim_record_threads(const sim *s);

/* Records a host resource failure met above the instruction level (the runtime's own
 * allocations) as the simulator's, with a message; every core then stops taking instructions. */
void sim_host_fail(sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t sim_core_stream_len(const sim_core *c);
/* The stream is kept compact (sim_stream.h). sim_core_stream decodes it whole into an array the
 * core keeps until it is destroyed (144 bytes an instruction: for tests and small tools; NULL
 * when empty or out of host memory); sim_core_records and sim_core_insn read it as it is. */
const isa_insn *sim_core_stream(const sim_core *c);
const sim_stream *sim_core_records(const sim_core *c);
/* Instruction i (< sim_core_stream_len) into *out. */
void sim_core_insn(const sim_core *c, uint64_t i, isa_insn *out);
/* Host view of an on-chip buffer (NULL for GM, or when timing-only). */
uint8_t *sim_core_buf(sim_core *c, isa_mem mem);
/* Describes a fault in one line: "core 0, instruction 12 (mmad): <message> [cause]"; a fault
 * raised between instructions (sim_core_raise, index = the stream position) names the last
 * instruction issued: "core 0, after instruction 11: ..." ("before its first instruction"). */
void sim_fault_describe(const sim_fault *f, char *out, size_t out_bytes);

/* ---- replay ------------------------------------------------------------------------------- */

typedef enum sim_hazard_kind { SIM_HAZARD_RAW, SIM_HAZARD_WAR, SIM_HAZARD_WAW } sim_hazard_kind;

/* A data hazard: `later` (in program order) accesses bytes that `earlier` accesses, one of the
 * two writing, and nothing the program guarantees orders them (sim_hb.h). */
typedef struct sim_hazard {
  sim_hazard_kind kind;
  unsigned core;                     /* the later instruction's core */
  unsigned earlier_core;             /* the earlier one's: another core for a hazard across cores
                                      * through GM (sim_xhb.h; `earlier` is then the writer) */
  bool cross_core;
  char core_name[16], earlier_core_name[16]; /* "core 0", "AIV 0.1" (sim_core_name) */
  uint64_t earlier, later;           /* instruction indices */
  uint32_t earlier_op, later_op;     /* isa_op */
  isa_pipe earlier_pipe, later_pipe;
  isa_mem mem;
  uint64_t lo, hi;                   /* overlapping span [lo, hi) (bounding) */
  uint64_t time;                     /* cycle the later instruction started in this run (or NEVER) */
  uint64_t earlier_done;             /* cycle the earlier one completed in this run (or NEVER) */
} sim_hazard;

const char *sim_hazard_kind_name(sim_hazard_kind k);
/* One line: both instructions (index, mnemonic, pipe), what they do to which bytes, and what this
 * run's timing did with the pair. */
void sim_hazard_describe(const sim_hazard *h, char *out, size_t out_bytes);
/* The same with each instruction's program line (0: none), for streams read from a program. */
void sim_hazard_describe_lines(const sim_hazard *h, unsigned later_line, unsigned earlier_line, char *out,
                               size_t out_bytes);

/* An observer of the replay: sees every instruction as it completes, the event the trace
 * writes (sim/sim_trace.h), e.g. to collect a timeline. Without one, nothing is built for it. */
typedef struct sim_observer {
  void (*insn)(void *arg, const struct sim_trace_insn_event *e);
  void *arg;
} sim_observer;

typedef struct sim_run_options {
  sim_trace *trace;       /* NULL: no trace */
  bool allow_hazards;     /* hazards are reported but do not fail the run */
  const sim_observer *observer; /* NULL: none */
  unsigned host_threads;  /* host threads the run may take (0: the environment's CUBESIM_THREADS
                           * (sim_threads_parse), else one per processor of the host; 1: none
                           * but the caller's): with
                           * two, the hazard check runs beside the replay when there is no trace
                           * or observer. The results are the same. */
  bool overlap_check;     /* the replay's own overlap check (timing_hazard_count) even when the
                           * happens-before check finds no hazard: tests that compare the two.
                           * Otherwise it runs only when there are hazards (then the replay is
                           * run again with it, as for their times): every pair it finds is
                           * also a happens-before hazard, so without one it finds nothing. */
} sim_run_options;

#define SIM_MAX_HAZARDS_KEPT 64

/* The replay's own audit of its shared resources (docs/TIMING.md, "Limits"): at every change of
 * the GM flows' rates, what each resource carried against its configured peak. A model that
 * obeys its limits keeps every figure at or below 1. */
typedef struct sim_audit {
  double hbm_peak_util;  /* max over time: HBM bytes/cycle the flows draw (fills, write-backs)
                          * / hbm_sustained_bytes_per_cycle */
  double l2_peak_util;   /* max over time: bytes/cycle through the L2 port / l2_bytes_per_cycle
                          * (0 without the L2) */
  double flow_peak_util; /* max over flows and time: a flow's rate / what its engine streams alone */
  double gm_peak_bytes_per_cycle; /* max over time: bytes/cycle of all GM flows together */
} sim_audit;

typedef struct sim_result {
  uint64_t total_cycles;             /* when the last core finished */
  double time_us;                    /* total_cycles at the configured clock */
  sim_stats stats;                   /* every counter (sim_stats.h) */
  uint64_t hazard_count;             /* all happens-before hazards (sim_hb.h) */
  uint64_t timing_hazard_count;      /* of the pairs, those this run's timing overlapped (the
                                      * replay's own check, a second opinion; 0 without hazards
                                      * unless sim_run_options.overlap_check) */
  sim_hazard hazards[SIM_MAX_HAZARDS_KEPT]; /* the first ones */
  unsigned hazards_kept;
  bool deadlocked;
  sim_fault deadlock;                /* when deadlocked: the first blocked wait */
  char deadlock_msg[1024];           /* every blocked pipe, in words */
  sim_audit audit;
} sim_result;

/* CUBESIM_THREADS's value as a thread count: true, with *out, for a decimal 1 to 1024; false
 * for anything else (sim_run then takes one thread per processor; cubesim refuses it). */
bool sim_threads_parse(const char *text, unsigned *out);

/* Replays every core's stream. CS_EDEADLOCK, CS_EHAZARD (unless allowed) or CS_OK; the result
 * is filled in every case. The streams are not consumed: a simulator can be replayed again (for
 * instance with another trace). */
cs_status sim_run(sim *s, const sim_run_options *opt, sim_result *res, cs_err *err);
/* Frees what a result holds. */
void sim_result_free(sim_result *res);

#endif
