/* rt — the C API kernels are written against, in the spirit of Ascend C.
 *
 * A kernel is a function `void kernel(rt_ctx *ctx, void *args)` that rt_launch (the host side,
 * rt_host.h) runs once per block (block index rt_block_idx, rt_block_num blocks), each block on a
 * simulated core. The kernel sees:
 *   - global tensors (rt_gtensor: GM address, dtype, element count) and local tensors
 *     (rt_ltensor: a position such as A1 or CO1, i.e. a buffer, and an offset in it);
 *   - queues (rt_queue), the TPipe/TQue layer: buffers of 1 to 4 slots per position whose
 *     alloc / enque / deque / free insert the set_flag / wait_flag pairs between the producing and
 *     the consuming pipe, so double buffering needs no hand-written flags;
 *   - the intrinsics (rt_intrin.h): data copy, load data, mmad, fixpipe, vector ops, flags and
 *     barriers, each one instruction on the core's stream;
 *   - the Matmul object (rt_matmul.h) that does all of the above for a whole matmul.
 *
 * A misuse (a buffer that does not fit, a deque of an empty queue, no free event id) is a fault
 * of the core, like an instruction fault: the core records it and ignores the rest of its work.
 * Kernels can test rt_ok(ctx) to stop early. Nothing here is global.
 */
#ifndef RT_H
#define RT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"
#include "sim/sim_config.h"

/* ---- positions (Ascend C TPosition) ----------------------------------------------------- */

/* enum suffix, memory, producing pipe, consuming pipe, description */
#define RT_POS_TABLE(X)                                                             \
  X(GM, GM, S, S, "global memory")                                                  \
  X(A1, L1, MTE2, MTE1, "L1: left matrix, staged for L0A")                          \
  X(B1, L1, MTE2, MTE1, "L1: right matrix, staged for L0B")                         \
  X(C1, L1, MTE2, MTE1, "L1: bias and quant words, staged for BT and FB")           \
  X(A2, L0A, MTE1, M, "L0A: left matrix of the cube")                               \
  X(B2, L0B, MTE1, M, "L0B: right matrix of the cube")                              \
  X(CO1, L0C, M, FIX, "L0C: the cube's accumulator")                                \
  X(C2, BT, MTE1, M, "BT: the bias table")                                          \
  X(C2PIPE2GM, FB, MTE1, FIX, "FB: per-channel quant words for the fixpipe")        \
  X(VECIN, UB, MTE2, V, "UB: vector input")                                         \
  X(VECOUT, UB, V, MTE3, "UB: vector output")                                       \
  X(VECCALC, UB, V, V, "UB: vector scratch")

typedef enum rt_pos {
#define RT_POS_ENUM(sfx, mem, prod, cons, desc) RT_POS_##sfx,
  RT_POS_TABLE(RT_POS_ENUM)
#undef RT_POS_ENUM
  RT_POS_COUNT
} rt_pos;

const char *rt_pos_name(rt_pos p);
isa_mem rt_pos_mem(rt_pos p);
isa_pipe rt_pos_producer(rt_pos p);
isa_pipe rt_pos_consumer(rt_pos p);

/* ---- tensors ---------------------------------------------------------------------------- */

/* A tensor in GM. */
typedef struct rt_gtensor {
  uint64_t addr;   /* GM address of element 0 */
  isa_dtype dtype;
  uint64_t count;  /* elements */
} rt_gtensor;

/* A tensor in a core buffer. */
typedef struct rt_ltensor {
  rt_pos pos;
  uint64_t off;    /* byte offset in the position's buffer */
  uint64_t bytes;  /* capacity */
  isa_dtype dtype;
  int32_t slot;    /* queue slot, -1 if not from a queue */
} rt_ltensor;

/* The same GM tensor, starting `elems` elements further. */
rt_gtensor rt_gtensor_at(rt_gtensor t, uint64_t elems);
/* The same local tensor, starting `bytes` bytes further. */
rt_ltensor rt_ltensor_at(rt_ltensor t, uint64_t bytes);

/* ---- the kernel context ----------------------------------------------------------------- */

typedef struct rt_ctx rt_ctx;
/* A kernel: run once per block by rt_launch (rt_host.h). */
typedef void (*rt_kernel_fn)(rt_ctx *ctx, void *args);

/* How a kernel is launched (Ascend C's kernel types): on the cube cores only (AIC-only, the
 * default of rt_launch), on the vector cores only (AIV-only, KERNEL_TYPE_AIV_ONLY), or on both,
 * each AI core's AIC with one AIV (MIX 1:1, KERNEL_TYPE_MIX_AIC_1_1) or with its two
 * (MIX 1:2, KERNEL_TYPE_MIX_AIC_1_2). */
typedef enum rt_launch_mode {
  RT_LAUNCH_AIC,
  RT_LAUNCH_AIV,
  RT_LAUNCH_MIX_1_1,
  RT_LAUNCH_MIX_1_2
} rt_launch_mode;

typedef enum rt_core_kind { RT_CORE_AIC, RT_CORE_AIV } rt_core_kind;

/* GetBlockIdx and GetBlockNum as Ascend C defines them. block_dim is the launch's: blocks on
 * AIC-only and AIV-only launches, AI cores on MIX launches. An AIC's index is its block, in
 * [0, block_dim); an AIV's is its block on an AIV-only launch, its AI core's block on MIX 1:1,
 * and block * 2 + its sub-block on MIX 1:2 (so [0, 2 * block_dim)). rt_block_num is block_dim
 * on every core. */
unsigned rt_block_idx(const rt_ctx *ctx);
unsigned rt_block_num(const rt_ctx *ctx);
/* g_coreType: whether the block runs on an AIC or an AIV (a MIX kernel runs on both). */
rt_core_kind rt_core_kind_of(const rt_ctx *ctx);
/* GetSubBlockIdx: an AIV's index among the AIVs of its AI core that the launch uses (0 on an
 * AIC, and on AIV-only and MIX 1:1 launches; 0 or 1 on MIX 1:2). */
unsigned rt_sub_block_idx(const rt_ctx *ctx);
/* GetTaskRation: AIVs per AIC of the launch (1 or 2 on MIX; 1 otherwise). */
unsigned rt_task_ratio(const rt_ctx *ctx);
rt_launch_mode rt_launch_mode_of(const rt_ctx *ctx);
/* The simulated core the block runs on (sim.h's numbering: AICs first, then the AIVs). */
unsigned rt_core_idx(const rt_ctx *ctx);
/* The chip the kernel runs on (buffer sizes for tiling decisions). */
const sim_config *rt_config(const rt_ctx *ctx);
/* false once the core faulted: everything after is ignored. */
bool rt_ok(const rt_ctx *ctx);
/* Raises a runtime fault on the core (printf-style message). */
void rt_fail(rt_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- buffers (TPipe::InitBuffer / TBuf) ------------------------------------------------- */

/* Reserves `bytes` of a position's buffer (aligned as the buffer requires) for the rest of the
 * block. A buffer that does not fit is a fault naming the position, the size and what is left. */
rt_ltensor rt_buf_alloc(rt_ctx *ctx, rt_pos pos, uint64_t bytes, isa_dtype dtype, const char *name);
/* Bytes still free in a position's buffer. */
uint64_t rt_buf_free_bytes(const rt_ctx *ctx, rt_pos pos);

/* ---- events ----------------------------------------------------------------------------- */

/* Takes a free event id (0..7) of the pipe pair src -> dst; -1 (and a fault) if all 8 are taken. */
int rt_event_alloc(rt_ctx *ctx, isa_pipe src, isa_pipe dst);
void rt_event_release(rt_ctx *ctx, isa_pipe src, isa_pipe dst, int id);

/* ---- queues (TQue) ---------------------------------------------------------------------- */

typedef struct rt_queue rt_queue;

/* A queue of `slots` (1 to 4; 2 is double buffering) buffers of `slot_bytes` at position pos. Producer and consumer pipes
 * come from the position (RT_POS_TABLE); rt_queue_init_pipes overrides them. */
rt_queue *rt_queue_init(rt_ctx *ctx, rt_pos pos, unsigned slots, uint64_t slot_bytes, const char *name);
rt_queue *rt_queue_init_pipes(rt_ctx *ctx, rt_pos pos, unsigned slots, uint64_t slot_bytes,
                              isa_pipe producer, isa_pipe consumer, const char *name);
/* Lays out n queues just made one after the other in one memory (as many slots of as many bytes
 * each, none used yet) slot by slot instead of queue by queue: slot s of queue k at
 * base + (s * n + k) * slot_bytes. Ascend C's static-tensor layout of the ping set then the pong
 * set (x0 y0 z0 x1 y1 z1 rather than TPipe's x0 x1 y0 y1 z0 z1); where the buffers lie decides the
 * UB bank conflicts of the vector instructions that read them together (docs/TIMING.md). */
void rt_queues_interleave(rt_queue *const *qs, unsigned n);
/* The next slot, once its previous consumer freed it (wait_flag consumer -> producer; a queue
 * whose producer and consumer are one pipe: pipe_barrier, unless an enque's barrier came since). */
rt_ltensor rt_alloc(rt_queue *q, isa_dtype dtype);
/* Hands a filled slot to the consumer (set_flag producer -> consumer). */
void rt_enque(rt_queue *q, rt_ltensor t);
/* The oldest filled slot, once the producer finished it (wait_flag producer -> consumer). */
rt_ltensor rt_deque(rt_queue *q);
/* Gives the slot back to the producer (set_flag consumer -> producer). */
void rt_free(rt_queue *q, rt_ltensor t);
/* From now on the queue's slots change hands by the instructions' own UnitFlag (Ascend's
 * unitFlag of Mmad and Fixpipe on CO1, docs/TIMING.md "UnitFlag"): alloc, enque, deque and free
 * keep the slot states but issue no flag and no barrier. Only for a slot every producer and
 * consumer of which carries unit_flag; a queue with pending frees is refused. */
void rt_queue_use_unit_flag(rt_queue *q);
/* From now on q's slots change hands with `leader`'s flags (Ascend's L0A and L0B ping-pong share
 * one event per buffer): q issues none. q and leader have as many slots and the same pipes, and
 * the kernel uses them in step: alloc q after alloc leader, fill q before enque leader, deque q
 * after deque leader, and read q before it frees leader. */
void rt_queue_follow(rt_queue *q, const rt_queue *leader);

#endif
