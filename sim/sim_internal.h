/* sim_internal — the simulator's own structures, shared by the files of sim/ only. */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include <stdatomic.h>

#if defined(__STDC_NO_THREADS__) && !defined(CUBESIM_NO_THREADS)
#define CUBESIM_NO_THREADS
#endif
#ifndef CUBESIM_NO_THREADS
#include <threads.h>
#endif

#include "sim/sim.h"
#include "sim/sim_buf.h"
#include "sim/sim_hb.h"
#include "sim/sim_stream.h"

/* The stream decoded whole, made on demand by sim_core_stream (tests and tools that index it). */
typedef struct sim_stream_view {
  isa_insn *v;
  size_t n;
} sim_stream_view;

struct sim_core {
  sim *owner;
  unsigned index;
  sim_core_kind kind;
  unsigned group, sub;         /* the AI core it belongs to (an AIC's own index) and, for an AIV,
                                * its sub-block 0 .. chip.aiv_per_aic - 1 */
  sim_buf bufs[ISA_MEM_COUNT]; /* on-chip buffers; bufs[ISA_MEM_GM] is unused (chip GM) */
  isa_host *host;              /* the functional model's workspace (NULL when timing-only) */
  sim_stream rec;               /* the recorded instructions, compact (sim_stream.h) */
  size_t len;                   /* = rec.n */
  uint64_t unreported;          /* recorded concurrently, not yet in sim.recorded (progress) */
  uint64_t ncross;              /* of them cross-core (cross_set_flag, cross_wait_flag, sync_all) */
  sim_hb_reach reach;           /* where its pipes' accesses end (the hazard check's) */
  sim_stream_view *view;        /* sim_core_stream's decoded copy (made with the core, filled when asked for) */
  bool faulted;
  sim_fault fault;
  bool quiet;                   /* records again what was counted: no progress */
  const sim_stream *feed;       /* what the replay reads instead of rec (a streaming run's pipe) */
};

struct sim {
  sim_config cfg;
  sim_config_derived d;
  bool timing_only;
  uint64_t max_host_bytes; /* 0: no limit */
  uint64_t host_bytes;     /* what the buffers, GM data and streams take now */
  atomic_bool host_failed; /* out of host memory: no core takes instructions any more */
  cs_err host_err;
  unsigned record_threads; /* sim_options.record_threads, resolved (1: none but the caller's) */
  bool concurrent;         /* cores record on several threads now (sim_record_concurrently):
                            * host_bytes, host_failed, host_err and recorded under `lock` */
#ifndef CUBESIM_NO_THREADS
  mtx_t lock;
  bool lock_made;
#endif
  sim_buf gm;
  unsigned ncores;             /* cores that exist: the AICs, then the AIVs once enabled */
  unsigned naic, naiv;         /* chip.aic_cores; aic_cores x aiv_per_aic (made by sim_aiv_enable) */
  bool aiv_enabled;
  isa_kernel kernel;           /* the functional model's hot loops, for cores made later */
  uint64_t *launch_at;         /* [launch][core of naic + naiv]: stream length when it began */
  size_t nlaunch, caplaunch;
  sim_core *cores;             /* room for naic + naiv from the start: pointers stay valid */
  const sim_progress_hook *progress; /* NULL: none */
  uint64_t recorded;                 /* instructions recorded, all cores (for progress) */
  bool stream_record;                /* sim_options.stream_record */
  sim_core_recorder recorder;        /* a launch recorded again when needed (sim_record_cores) */
  void *recorder_arg;
  void (*recorder_release)(void *arg);
  bool deferred;                     /* the AICs' streams are only counted (len): the recorder has them */
  bool streamed;                     /* the last run streamed (sim_streamed) */
};

/* A stand-in for core `like` (its index, kind and buffers) that records what the core would, for
 * a streaming run; sim_core_standin_free releases it. */
cs_status sim_core_standin(sim *s, const sim_core *like, sim_core *out, cs_err *err);
/* The same whose stream is a pipe (sim_stream_pipe_open), its memory counted against the limit. */
cs_status sim_core_standin_pipe(sim *s, const sim_core *like, sim_core *out, size_t chunk, unsigned depth, cs_err *err);
void sim_core_standin_free(sim_core *c);

/* The buffer of `mem` as core c sees it (GM is the chip's). */
static inline sim_buf *sim_core_mem(sim_core *c, isa_mem mem) {
  return mem == ISA_MEM_GM ? &c->owner->gm : &c->bufs[mem];
}

/* Host threads for a run or a record that asks for `requested` (0: CUBESIM_THREADS when it
 * is valid, else one per processor of the host). */
unsigned sim_host_threads(unsigned requested);

/* Bytes of replay state per instruction in flight (sim_engine.c), and the instructions per core
 * it keeps at first, for the footprint. */
size_t sim_engine_insn_bytes(void);
size_t sim_engine_window_insns(void);
/* Bytes of the pipes a streaming run of `aic` cube cores holds (sim_engine.c: each core's feed
 * to the replay and to the hazard check). */
uint64_t sim_engine_stream_bytes(unsigned aic);

#endif
