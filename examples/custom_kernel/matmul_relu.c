/* matmul_relu — the kernel, its launch and its host reference. */
#include "matmul_relu.h"

#include <string.h>

typedef struct mr_args {
  rt_matmul_types ty;
  rt_tiling tiling;
  rt_gtensor a, b, bias, c;
} mr_args;

/* One block: the blocks of C i = block, block + blocks, ... each through the Matmul object (the
 * copies to L1, the loads to L0A / L0B, the mmads, the fixpipe with ReLU to GM). */
static void mr_kernel(rt_ctx *ctx, void *arg) {
  const mr_args *x = arg;
  rt_matmul *mm = rt_matmul_init(ctx, &x->ty, &x->tiling);
  if (!mm) return; /* the fault is recorded: rt_launch reports it */
  rt_matmul_set_tensor_a(mm, x->a);
  rt_matmul_set_tensor_b(mm, x->b);
  if (x->ty.has_bias) rt_matmul_set_bias(mm, x->bias);
  rt_matmul_set_relu(mm, true);
  uint64_t blocks = rt_tiling_block_count(&x->tiling);
  for (uint64_t i = rt_block_idx(ctx); i < blocks && rt_ok(ctx); i += rt_block_num(ctx)) {
    rt_rect r = rt_tiling_block(&x->tiling, i);
    rt_matmul_set_block(mm, r.m0, r.n0, r.ml, r.nl);
    rt_matmul_iterate_all(mm, x->c);
  }
  rt_matmul_end(mm);
}

static cs_status gm_put(rt_device *dev, const char *name, isa_dtype dt, uint64_t count, const void *data,
                        rt_gtensor *t, cs_err *err) {
  cs_status st = rt_gm_alloc(dev, name, dt, count, t, err);
  return st == CS_OK && data ? rt_gm_write(dev, *t, data, err) : st;
}

cs_status mr_launch(rt_device *dev, const mr_problem *p, rt_gtensor *c, cs_err *err) {
  mr_args x;
  memset(&x, 0, sizeof x);
  x.ty = (rt_matmul_types){.a = ISA_INT8, .b = ISA_INT8, .c = ISA_INT32, .has_bias = p->has_bias};
  /* the best tiling by cubesim's estimate, with C split in blocks, one per core at a time */
  rt_tiling start;
  memset(&start, 0, sizeof start);
  start.m = p->m;
  start.n = p->n;
  start.ka = start.kb = p->k;
  start.core_split = RT_SPLIT_BLOCK;
  rt_tiling_choice best;
  unsigned found = 0;
  cs_status st = rt_tiling_search(rt_device_config(dev), &x.ty, 1, &start, RT_TILING_BIT(core_split), &best, 1,
                                  &found, err);
  if (st != CS_OK) return st;
  x.tiling = best.t;
  if ((st = gm_put(dev, "A", ISA_INT8, (uint64_t)p->m * p->k, p->a, &x.a, err)) != CS_OK ||
      (st = gm_put(dev, "B", ISA_INT8, (uint64_t)p->k * p->n, p->b, &x.b, err)) != CS_OK ||
      (p->has_bias && (st = gm_put(dev, "bias", ISA_INT32, p->n, p->bias, &x.bias, err)) != CS_OK) ||
      (st = gm_put(dev, "C", ISA_INT32, (uint64_t)p->m * p->n, NULL, &x.c, err)) != CS_OK)
    return st;
  uint64_t blocks = rt_tiling_block_count(&x.tiling);
  unsigned cores = x.tiling.used_core_num < blocks ? x.tiling.used_core_num : (unsigned)blocks;
  *c = x.c;
  return rt_launch(dev, cores, mr_kernel, &x, err); /* x is read during the launch only */
}

void mr_reference(const mr_problem *p, int32_t *c) {
  for (uint32_t i = 0; i < p->m; i++)
    for (uint32_t j = 0; j < p->n; j++) {
      uint32_t acc = p->has_bias ? (uint32_t)p->bias[j] : 0; /* unsigned: wraps like the accumulator */
      for (uint32_t kk = 0; kk < p->k; kk++)
        acc += (uint32_t)((int32_t)p->a[(uint64_t)i * p->k + kk] * (int32_t)p->b[(uint64_t)kk * p->n + j]);
      int32_t v = (int32_t)acc;
      c[(uint64_t)i * p->n + j] = v > 0 ? v : 0;
    }
}
