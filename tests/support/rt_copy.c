/* rt_copy — the slice-copy kernel (see rt_copy.h). */
#include "support/rt_copy.h"

#include "runtime/rt_intrin.h"

void rc_slice_copy(rt_ctx *ctx, void *arg) {
  const rc_copy_job *j = arg;
  uint64_t first = (uint64_t)rt_block_idx(ctx) * j->slice;
  uint32_t bytes = j->slice * 4;
  rt_queue *q = rt_queue_init_pipes(ctx, RT_POS_VECIN, 1, bytes, ISA_PIPE_MTE2, ISA_PIPE_MTE3, "slice");
  rt_ltensor t = rt_alloc(q, ISA_INT32);
  rt_copy_gm_to_local(ctx, t, rt_gtensor_at(j->src, first), rt_copy_params(bytes));
  rt_enque(q, t);
  t = rt_deque(q);
  rt_copy_local_to_gm(ctx, rt_gtensor_at(j->dst, first), t, rt_copy_params(bytes));
  rt_free(q, t);
}
