/* sim_internal — the simulator's own structures, shared by the files of sim/ only. */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include "sim/sim.h"
#include "sim/sim_buf.h"

struct sim_core {
  sim *owner;
  unsigned index;
  sim_buf bufs[ISA_MEM_COUNT]; /* on-chip buffers; bufs[ISA_MEM_GM] is unused (chip GM) */
  isa_host *host;              /* the functional model's workspace (NULL when timing-only) */
  isa_insn *stream;
  size_t len, cap;
  bool faulted;
  sim_fault fault;
};

struct sim {
  sim_config cfg;
  sim_config_derived d;
  bool timing_only;
  uint64_t max_host_bytes; /* 0: no limit */
  uint64_t host_bytes;     /* what the buffers, GM data and streams take now */
  bool host_failed;        /* out of host memory: no core takes instructions any more */
  cs_err host_err;
  sim_buf gm;
  unsigned ncores;
  sim_core *cores;
  const sim_progress_hook *progress; /* NULL: none */
  uint64_t recorded;                 /* instructions recorded, all cores (for progress) */
};

/* The buffer of `mem` as core c sees it (GM is the chip's). */
static inline sim_buf *sim_core_mem(sim_core *c, isa_mem mem) {
  return mem == ISA_MEM_GM ? &c->owner->gm : &c->bufs[mem];
}

/* Bytes of replay state per instruction in flight (sim_engine.c), and the instructions per core
 * it keeps at first, for the footprint. */
size_t sim_engine_insn_bytes(void);
size_t sim_engine_window_insns(void);

#endif
