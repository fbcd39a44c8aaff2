/* rt — kernel contexts, launch, buffers, event ids and queues. */
#include "runtime/rt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_intrin.h"
#include "runtime/rt_internal.h"

static const struct {
  const char *name;
  isa_mem mem;
  isa_pipe prod, cons;
} pos_rows[RT_POS_COUNT] = {
#define RT_POS_ROW(sfx, mem, prod, cons, desc) {#sfx, ISA_MEM_##mem, ISA_PIPE_##prod, ISA_PIPE_##cons},
    RT_POS_TABLE(RT_POS_ROW)
#undef RT_POS_ROW
};

const char *rt_pos_name(rt_pos p) { return (unsigned)p < RT_POS_COUNT ? pos_rows[p].name : "?"; }
isa_mem rt_pos_mem(rt_pos p) { return pos_rows[p].mem; }
isa_pipe rt_pos_producer(rt_pos p) { return pos_rows[p].prod; }
isa_pipe rt_pos_consumer(rt_pos p) { return pos_rows[p].cons; }

rt_gtensor rt_gtensor_at(rt_gtensor t, uint64_t elems) {
  t.addr += isa_dtype_bytes(t.dtype, elems);
  t.count = elems <= t.count ? t.count - elems : 0;
  return t;
}

rt_ltensor rt_ltensor_at(rt_ltensor t, uint64_t bytes) {
  t.off += bytes;
  t.bytes = bytes <= t.bytes ? t.bytes - bytes : 0;
  return t;
}

unsigned rt_block_idx(const rt_ctx *ctx) { return ctx->block_idx; }
unsigned rt_block_num(const rt_ctx *ctx) { return ctx->block_num; }
rt_core_kind rt_core_kind_of(const rt_ctx *ctx) {
  return sim_core_kind_of(ctx->core) == SIM_CORE_AIV ? RT_CORE_AIV : RT_CORE_AIC;
}
unsigned rt_sub_block_idx(const rt_ctx *ctx) { return ctx->sub_block; }
unsigned rt_task_ratio(const rt_ctx *ctx) { return ctx->mode == RT_LAUNCH_MIX_1_2 ? 2 : 1; }
rt_launch_mode rt_launch_mode_of(const rt_ctx *ctx) { return ctx->mode; }
unsigned rt_core_idx(const rt_ctx *ctx) { return sim_core_index(ctx->core); }
const sim_config *rt_config(const rt_ctx *ctx) { return sim_get_config(ctx->s); }
bool rt_ok(const rt_ctx *ctx) { return sim_core_ok(ctx->core); }

void rt_fail(rt_ctx *ctx, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sim_core_raise(ctx->core, ISA_FAULT_RUNTIME, "%s", msg);
}

void *rt_ctx_alloc(rt_ctx *ctx, size_t bytes) {
  if (ctx->nallocs == RT_MAX_ALLOCS) {
    rt_fail(ctx, "too many runtime objects in one block (at most %d)", RT_MAX_ALLOCS);
    return NULL;
  }
  void *p = calloc(1, bytes);
  if (!p) { /* the host's failure, not the kernel's: CS_ENOMEM from rt_launch */
    sim_host_fail(ctx->s, "host memory: no memory for a runtime object of %zu bytes", bytes);
    return NULL;
  }
  ctx->allocs[ctx->nallocs++] = p;
  return p;
}

/* ---- buffers ---------------------------------------------------------------------------- */

static uint64_t mem_capacity(const rt_ctx *ctx, isa_mem m, uint64_t *align) {
  const sim_config *c = sim_get_config(ctx->s);
  if (sim_core_kind_of(ctx->core) == SIM_CORE_AIV) { /* a UB and nothing else */
    *align = m == ISA_MEM_UB ? c->buffers_ub_align_bytes : 1;
    return m == ISA_MEM_UB ? c->aiv_ub_bytes : 0;
  }
  switch (m) {
    case ISA_MEM_L1: *align = c->buffers_l1_align_bytes; return c->buffers_l1_bytes;
    case ISA_MEM_L0A: *align = c->buffers_l0a_align_bytes; return c->buffers_l0a_bytes;
    case ISA_MEM_L0B: *align = c->buffers_l0b_align_bytes; return c->buffers_l0b_bytes;
    case ISA_MEM_L0C: *align = c->buffers_l0c_align_bytes; return c->buffers_l0c_bytes;
    case ISA_MEM_UB: *align = c->buffers_ub_align_bytes; return c->buffers_ub_bytes;
    case ISA_MEM_BT: *align = c->buffers_bt_align_bytes; return c->buffers_bt_bytes;
    case ISA_MEM_FB: *align = c->buffers_fb_align_bytes; return c->buffers_fb_bytes;
    default: *align = 1; return 0;
  }
}

uint64_t rt_buf_free_bytes(const rt_ctx *ctx, rt_pos pos) {
  uint64_t align;
  isa_mem m = rt_pos_mem(pos);
  uint64_t cap = mem_capacity(ctx, m, &align);
  return cap > ctx->buf_used[m] ? cap - ctx->buf_used[m] : 0;
}

rt_ltensor rt_buf_alloc(rt_ctx *ctx, rt_pos pos, uint64_t bytes, isa_dtype dtype, const char *name) {
  rt_ltensor t = {pos, 0, 0, dtype, -1};
  isa_mem m = rt_pos_mem(pos);
  uint64_t align;
  uint64_t cap = mem_capacity(ctx, m, &align);
  if (pos == RT_POS_GM) {
    rt_fail(ctx, "buffer '%s': GM is not a core buffer (allocate GM tensors on the host)", name);
    return t;
  }
  uint64_t start = (ctx->buf_used[m] + align - 1) / align * align;
  uint64_t size = (bytes + align - 1) / align * align;
  if (start > cap || size > cap - start) {
    rt_fail(ctx,
            "buffer '%s' of %" PRIu64 " bytes does not fit in %s (%s): %" PRIu64 " of %" PRIu64
            " bytes are already taken",
            name, bytes, rt_pos_name(pos), isa_mem_name(m), ctx->buf_used[m], cap);
    return t;
  }
  ctx->buf_used[m] = start + size;
  t.off = start;
  t.bytes = bytes;
  return t;
}

/* ---- events ----------------------------------------------------------------------------- */

int rt_event_alloc(rt_ctx *ctx, isa_pipe src, isa_pipe dst) {
  uint8_t *used = &ctx->ev_used[src][dst];
  for (int id = 0; id < 8; id++)
    if (!(*used & (1u << id))) {
      *used |= (uint8_t)(1u << id);
      return id;
    }
  rt_fail(ctx, "no free event id for %s -> %s: all 8 are taken (fewer queues or slots between "
               "these pipes)", isa_pipe_name(src), isa_pipe_name(dst));
  return -1;
}

void rt_event_release(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int id) {
  if (id >= 0 && id < 8) ctx->ev_used[src][dst] &= (uint8_t)~(1u << id);
}

/* ---- queues ----------------------------------------------------------------------------- */

enum { SLOT_FREE, SLOT_ALLOCED, SLOT_ENQUED, SLOT_DEQUED };

rt_queue *rt_queue_init_pipes(rt_ctx *ctx, rt_pos pos, unsigned slots, uint64_t slot_bytes,
                              isa_pipe producer, isa_pipe consumer, const char *name) {
  if (slots < 1 || slots > RT_QUEUE_MAX_SLOTS) {
    rt_fail(ctx, "queue '%s': %u slots, a queue has 1 to %d", name, slots, RT_QUEUE_MAX_SLOTS);
    return NULL;
  }
  if (ctx->nqueues == RT_MAX_QUEUES) {
    rt_fail(ctx, "queue '%s': too many queues in one block (at most %d)", name, RT_MAX_QUEUES);
    return NULL;
  }
  rt_queue *q = &ctx->queues[ctx->nqueues];
  memset(q, 0, sizeof *q);
  q->ctx = ctx;
  q->pos = pos;
  q->prod = producer;
  q->cons = consumer;
  q->nslots = slots;
  snprintf(q->name, sizeof q->name, "%s", name);
  uint64_t align;
  mem_capacity(ctx, rt_pos_mem(pos), &align);
  q->slot_bytes = (slot_bytes + align - 1) / align * align;
  rt_ltensor base = rt_buf_alloc(ctx, pos, q->slot_bytes * slots, ISA_INT8, name);
  if (!rt_ok(ctx)) return NULL;
  q->base_off = base.off;
  q->slot_stride = q->slot_bytes;
  for (unsigned s = 0; s < slots; s++) {
    q->ev_fill[s] = q->ev_free[s] = -1;
    if (producer != consumer) {
      q->ev_fill[s] = rt_event_alloc(ctx, producer, consumer);
      q->ev_free[s] = rt_event_alloc(ctx, consumer, producer);
    }
  }
  if (!rt_ok(ctx)) return NULL;
  ctx->nqueues++;
  return q;
}

rt_queue *rt_queue_init(rt_ctx *ctx, rt_pos pos, unsigned slots, uint64_t slot_bytes, const char *name) {
  return rt_queue_init_pipes(ctx, pos, slots, slot_bytes, rt_pos_producer(pos), rt_pos_consumer(pos), name);
}

/* The tensor of slot s of q. */
static rt_ltensor slot_tensor(const rt_queue *q, unsigned s, isa_dtype dtype) {
  rt_ltensor t = {q->pos, q->base_off + s * q->slot_stride, q->slot_bytes, dtype, (int32_t)s};
  return t;
}

void rt_queues_interleave(rt_queue *const *qs, unsigned n) {
  if (n == 0 || !qs[0] || !rt_ok(qs[0]->ctx)) return;
  rt_ctx *ctx = qs[0]->ctx;
  const rt_queue *q0 = qs[0];
  for (unsigned k = 0; k < n; k++) {
    const rt_queue *q = qs[k];
    if (!q || rt_pos_mem(q->pos) != rt_pos_mem(q0->pos) || q->nslots != q0->nslots ||
        q->slot_bytes != q0->slot_bytes || q->slot_stride != q->slot_bytes ||
        q->base_off != q0->base_off + (uint64_t)k * q0->nslots * q0->slot_bytes) {
      rt_fail(ctx, "rt_queues_interleave: queue %u ('%s') is not the next of %u queues of %u "
                   "slots of %" PRIu64 " bytes made one after the other in %s",
              k, q ? q->name : "(null)", n, q0->nslots, q0->slot_bytes, isa_mem_name(rt_pos_mem(q0->pos)));
      return;
    }
    for (unsigned s = 0; s < q->nslots; s++)
      if (q->state[s] != SLOT_FREE || q->free_pending[s]) {
        rt_fail(ctx, "rt_queues_interleave: queue '%s' was used already", q->name);
        return;
      }
  }
  uint64_t base = q0->base_off, slot = q0->slot_bytes;
  for (unsigned k = 0; k < n; k++) {
    qs[k]->base_off = base + (uint64_t)k * slot;
    qs[k]->slot_stride = (uint64_t)n * slot;
  }
}

rt_ltensor rt_alloc(rt_queue *q, isa_dtype dtype) {
  rt_ltensor t = {RT_POS_GM, 0, 0, dtype, -1};
  if (!q || !rt_ok(q->ctx)) return t;
  unsigned s = q->alloc_next;
  if (q->state[s] != SLOT_FREE) {
    rt_fail(q->ctx, "queue '%s': alloc of slot %u, which is still in use (free it first)", q->name, s);
    return t;
  }
  if (q->free_pending[s] && !q->silent) { /* its last consumer must be done with it */
    if (q->prod != q->cons) rt_wait_flag(q->ctx, q->cons, q->prod, q->ev_free[s]);
    else rt_pipe_barrier(q->ctx, q->prod); /* one pipe: its reads must complete before the write */
    q->free_pending[s] = false;
  }
  q->state[s] = SLOT_ALLOCED;
  q->alloc_next = (s + 1) % q->nslots;
  return slot_tensor(q, s, dtype);
}

static bool slot_ok(rt_queue *q, rt_ltensor t, int want, const char *what) {
  if (t.slot < 0 || (unsigned)t.slot >= q->nslots || t.pos != q->pos ||
      t.off != q->base_off + (uint64_t)t.slot * q->slot_stride) {
    rt_fail(q->ctx, "queue '%s': %s of a tensor that does not come from this queue", q->name, what);
    return false;
  }
  if (q->state[t.slot] != want) {
    static const char *const names[] = {"free", "allocated", "enqueued", "dequeued"};
    rt_fail(q->ctx, "queue '%s': %s of slot %d, which is %s", q->name, what, t.slot, names[q->state[t.slot]]);
    return false;
  }
  return true;
}

void rt_enque(rt_queue *q, rt_ltensor t) {
  if (!q || !rt_ok(q->ctx) || !slot_ok(q, t, SLOT_ALLOCED, "enque")) return;
  if (q->prod != q->cons && !q->silent) {
    rt_set_flag(q->ctx, q->prod, q->cons, q->ev_fill[t.slot]);
  } else if (!q->silent) { /* the barrier also completes every read of the slots freed before it */
    rt_pipe_barrier(q->ctx, q->prod);
    for (unsigned s = 0; s < q->nslots; s++) q->free_pending[s] = false;
  }
  q->state[t.slot] = SLOT_ENQUED;
}

rt_ltensor rt_deque(rt_queue *q) {
  rt_ltensor t = {RT_POS_GM, 0, 0, ISA_INT8, -1};
  if (!q || !rt_ok(q->ctx)) return t;
  unsigned s = q->deq_next;
  if (q->state[s] != SLOT_ENQUED) {
    rt_fail(q->ctx, "queue '%s': deque with nothing enqueued", q->name);
    return t;
  }
  if (q->prod != q->cons && !q->silent) rt_wait_flag(q->ctx, q->prod, q->cons, q->ev_fill[s]);
  q->state[s] = SLOT_DEQUED;
  q->deq_next = (s + 1) % q->nslots;
  return slot_tensor(q, s, t.dtype);
}

void rt_free(rt_queue *q, rt_ltensor t) {
  if (!q || !rt_ok(q->ctx) || !slot_ok(q, t, SLOT_DEQUED, "free")) return;
  if (q->prod != q->cons && !q->silent) rt_set_flag(q->ctx, q->cons, q->prod, q->ev_free[t.slot]);
  q->free_pending[t.slot] = !q->silent;
  q->state[t.slot] = SLOT_FREE;
}

/* Makes q hand its slots over without flags; `why` names the reason in a refusal. */
static void make_silent(rt_queue *q, const char *why) {
  for (unsigned s = 0; s < q->nslots; s++)
    if (q->free_pending[s] || q->state[s] != SLOT_FREE) {
      rt_fail(q->ctx, "queue '%s': %s asked for with slot %u in use or its free pending", q->name, why, s);
      return;
    }
  q->silent = true;
}

void rt_queue_use_unit_flag(rt_queue *q) {
  if (q && rt_ok(q->ctx)) make_silent(q, "UnitFlag hand-over");
}

void rt_queue_follow(rt_queue *q, const rt_queue *leader) {
  if (!q || !leader || !rt_ok(q->ctx)) return;
  if (q->nslots != leader->nslots || q->prod != leader->prod || q->cons != leader->cons) {
    rt_fail(q->ctx, "queue '%s' cannot follow '%s': %u and %u slots, pipes %s -> %s and %s -> %s", q->name,
            leader->name, q->nslots, leader->nslots, isa_pipe_name(q->prod), isa_pipe_name(q->cons),
            isa_pipe_name(leader->prod), isa_pipe_name(leader->cons));
    return;
  }
  make_silent(q, "following another queue");
}

/* At the end of a block every flag a queue set is consumed, so the next block on the core
 * starts with all flags clear. */
static void finish_block(rt_ctx *ctx) {
  for (unsigned i = 0; i < ctx->nqueues && rt_ok(ctx); i++) {
    rt_queue *q = &ctx->queues[i];
    for (unsigned s = 0; s < q->nslots; s++) {
      if (q->state[s] == SLOT_ENQUED)
        rt_fail(ctx, "queue '%s': the block ended with slot %u enqueued and never dequeued", q->name, s);
      else if (q->state[s] == SLOT_ALLOCED || q->state[s] == SLOT_DEQUED)
        rt_fail(ctx, "queue '%s': the block ended with slot %u never freed", q->name, s);
      else if (q->free_pending[s] && q->prod != q->cons)
        rt_wait_flag(ctx, q->cons, q->prod, q->ev_free[s]);
    }
  }
  for (unsigned i = 0; i < ctx->nallocs; i++) free(ctx->allocs[i]);
  ctx->nallocs = 0;
}

/* Runs one block on core `core` with the given indices. */
static void run_block(rt_ctx *ctx, sim *s, sim_core *core, rt_launch_mode mode, unsigned idx, unsigned num, unsigned sub,
                      rt_kernel_fn fn, void *args) {
  memset(ctx, 0, sizeof *ctx);
  ctx->s = s;
  ctx->core = core;
  ctx->block_idx = idx;
  ctx->block_num = num;
  ctx->mode = mode;
  ctx->sub_block = sub;
  if (!rt_ok(ctx)) return;
  fn(ctx, args);
  finish_block(ctx);
}

/* After the blocks: a host failure, else the first faulted core's fault (in core order, so the
 * same whatever order the blocks ran in). */
static cs_status launch_outcome(sim *s, cs_err *err) {
  cs_status host = sim_host_status(s, err);
  if (host != CS_OK) return host;
  unsigned cores = sim_core_count(s);
  for (unsigned c = 0; c < cores; c++) {
    const sim_fault *f = sim_core_fault(sim_get_core(s, c));
    if (f) {
      char msg[512];
      sim_fault_describe(f, msg, sizeof msg);
      return cs_err_set(err, CS_EFAULT, "%s", msg);
    }
  }
  return CS_OK;
}

cs_status rt_run_blocks(sim *s, rt_launch_mode mode, unsigned block_dim, rt_kernel_fn fn, void *args, cs_err *err) {
  if (block_dim == 0) return cs_err_set(err, CS_EINVAL, "launch: block_dim is 0");
  if ((unsigned)mode > RT_LAUNCH_MIX_1_2) return cs_err_set(err, CS_EINVAL, "launch: mode %d does not exist", (int)mode);
  sim_materialize(s); /* an earlier launch's streams, if only counted, recorded before this one's */
  unsigned per = (unsigned)sim_get_config(s)->chip_aiv_per_aic;
  if (mode != RT_LAUNCH_AIC) {
    if (mode == RT_LAUNCH_MIX_1_2 && per < 2)
      return cs_err_set(err, CS_EINVAL, "launch: MIX 1:2 needs two AIVs per AI core (chip.aiv_per_aic = %u)", per);
    cs_status st = sim_aiv_enable(s, err);
    if (st != CS_OK) {
      cs_err_prefix(err, "launch");
      return st;
    }
  }
  cs_status marked = sim_mark_launch(s, err);
  if (marked != CS_OK) return marked;
  rt_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return cs_err_set(err, CS_ENOMEM, "launch: no host memory");
  unsigned naic = sim_aic_count(s), naiv = sim_aiv_count(s);
  for (unsigned b = 0; b < block_dim; b++) {
    if (mode == RT_LAUNCH_AIV) { /* blocks over the AIVs, both of an AI core before the next */
      run_block(ctx, s, sim_get_aiv(s, b % naiv), mode, b, block_dim, 0, fn, args);
      continue;
    }
    unsigned g = b % naic;
    if (mode == RT_LAUNCH_AIC) {
      run_block(ctx, s, sim_get_core(s, g), mode, b, block_dim, 0, fn, args);
      continue;
    }
    /* MIX: the AI core's AIC, then its AIVs. The host computes the blocks one after another,
     * so an AIV sees every GM byte its AIC writes in the whole block (docs/API.md, "MIX
     * kernels": a workspace the AIC overwrites while its AIVs still read it is not modelled). */
    unsigned nv = mode == RT_LAUNCH_MIX_1_2 ? 2 : 1;
    run_block(ctx, s, sim_get_core(s, g), mode, b, block_dim, 0, fn, args);
    for (unsigned v = 0; v < nv; v++)
      run_block(ctx, s, sim_get_aiv(s, g * per + v), mode, nv == 2 ? b * 2 + v : b, block_dim, nv == 2 ? v : 0, fn,
                args);
  }
  free(ctx);
  return launch_outcome(s, err);
}

/* A concurrent launch (rt_launch_concurrent): the simulator asks for core g's blocks, in order,
 * recorded into `into` (the core, or a stand-in for it when a streaming run records it again,
 * sim_record_cores), with a context of their own. */
typedef struct concurrent_launch {
  sim *s;
  rt_kernel_fn fn;
  void *args;
  void (*release)(void *args);
  unsigned block_dim, naic;
} concurrent_launch;

static void concurrent_release(void *arg) {
  concurrent_launch *L = arg;
  if (L->release) L->release(L->args);
  free(L);
}

static void concurrent_core(void *arg, unsigned g, sim_core *into) {
  concurrent_launch *L = arg;
  rt_ctx *ctx = malloc(sizeof *ctx);
  if (!ctx) {
    sim_host_fail(L->s, "launch: no host memory for core %u's context", g);
    return;
  }
  for (unsigned b = g; b < L->block_dim; b += L->naic)
    run_block(ctx, L->s, into, RT_LAUNCH_AIC, b, L->block_dim, 0, L->fn, L->args);
  free(ctx);
}

cs_status rt_run_blocks_concurrent(sim *s, unsigned block_dim, rt_kernel_fn fn, void *args, void (*release)(void *args),
                                   bool owned, cs_err *err) {
  unsigned naic = sim_aic_count(s), workers = sim_record_threads(s);
  if (workers > naic) workers = naic;
  if (workers > block_dim) workers = block_dim;
  cs_status st;
  if (workers < 2) {
    st = rt_run_blocks(s, RT_LAUNCH_AIC, block_dim, fn, args, err);
    if (release) release(args);
    return st;
  }
  if ((st = sim_mark_launch(s, err)) != CS_OK) {
    if (release) release(args);
    return st;
  }
  concurrent_launch *L = malloc(sizeof *L);
  if (!L) {
    if (release) release(args);
    return cs_err_set(err, CS_ENOMEM, "launch: no host memory");
  }
  *L = (concurrent_launch){s, fn, args, release, block_dim, naic};
  sim_record_cores(s, workers, concurrent_core, L, concurrent_release, owned);
  return launch_outcome(s, err);
}
