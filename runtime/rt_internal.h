/* rt_internal — the runtime's own structures, shared by the files of runtime/ only. */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include "runtime/rt.h"
#include "sim/sim.h"

#define RT_MAX_QUEUES 32
#define RT_QUEUE_MAX_SLOTS 4
#define RT_MAX_ALLOCS 64

struct rt_queue {
  rt_ctx *ctx;
  rt_pos pos;
  isa_pipe prod, cons;
  unsigned nslots;
  uint64_t slot_bytes;
  uint64_t slot_stride; /* distance between slots: slot_bytes, or more once interleaved */
  uint64_t base_off;
  int ev_fill[RT_QUEUE_MAX_SLOTS]; /* producer -> consumer: slot filled */
  int ev_free[RT_QUEUE_MAX_SLOTS]; /* consumer -> producer: slot free again */
  bool free_pending[RT_QUEUE_MAX_SLOTS];
  int state[RT_QUEUE_MAX_SLOTS];
  unsigned alloc_next, deq_next;
  bool silent; /* no flags, no barriers: UnitFlag hands the slots over, or a leader queue's flags */
  char name[32];
};

struct rt_ctx {
  sim *s;
  sim_core *core;
  unsigned block_idx, block_num;
  rt_launch_mode mode;   /* how the kernel was launched */
  unsigned sub_block;    /* an AIV's sub-block index in its AI core (0 on an AIC) */
  uint64_t buf_used[ISA_MEM_COUNT];            /* bump allocator per memory */
  uint8_t ev_used[ISA_PIPE_COUNT][ISA_PIPE_COUNT]; /* bit i: event id i taken */
  rt_queue queues[RT_MAX_QUEUES];
  unsigned nqueues;
  void *allocs[RT_MAX_ALLOCS];                 /* freed at the end of the block */
  unsigned nallocs;
};

/* Runs fn once per block on the simulator's cores (rt_launch's work, rt_host.h). */
cs_status rt_run_blocks(sim *s, rt_launch_mode mode, unsigned block_dim, rt_kernel_fn fn, void *args, cs_err *err);
/* rt_launch_concurrent's work: AIC blocks, the cores dealt to sim_record_threads host threads. */
cs_status rt_run_blocks_concurrent(sim *s, unsigned block_dim, rt_kernel_fn fn, void *args, void (*release)(void *args),
                                   bool owned, cs_err *err);

/* Zeroed host memory that lives until the end of the block (NULL and a fault if none). */
void *rt_ctx_alloc(rt_ctx *ctx, size_t bytes);

#endif
