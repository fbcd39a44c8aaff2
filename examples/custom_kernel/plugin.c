/* plugin — the fused matmul + ReLU as an operator of `cubesim run`, loaded from libmyops.so:
 *
 *   cubesim run --plugin build/libmyops.so matmul_relu --attr m=256 --attr n=512 --attr k=128 --check
 *   cubesim run --plugin build/libmyops.so matmul_relu --in a=a.npy --in b=b.npy --out c=c.npy
 *   cubesim kernels --plugin build/libmyops.so matmul_relu
 *
 * The operator declares its inputs, attributes and outputs (kernels/kn_op.h); cubesim reads the
 * files, generates inputs from m, n, k when none is given, writes outputs, compares with the
 * reference (--check), and prints, traces and reports the run as it does for its own operators. */
#include "matmul_relu.h"

static const kn_io_desc inputs[] = {
    {"a", "int8", false, "left matrix, m x k"},
    {"b", "int8", false, "right matrix, k x n"},
    {"bias", "int32", true, "one value per column of C: [n] or [1, n]"},
};
static const kn_attr_desc attrs[] = {
    {"m", KN_ATTR_INT, "256", NULL, "rows of generated inputs"},
    {"n", KN_ATTR_INT, "256", NULL, "columns of generated inputs"},
    {"k", KN_ATTR_INT, "256", NULL, "reduction length of generated inputs"},
    {"has_bias", KN_ATTR_BOOL, "true", NULL, "generated inputs include a bias"},
};
static const kn_io_desc outputs[] = {{"c", "int32", false, "max(a · b + bias, 0), m x n"}};

/* The problem the inputs describe, checked; pointers NULL for inputs that are shapes only. */
static cs_status problem(const kn_ctx *ctx, mr_problem *p, cs_err *err) {
  const kn_tensor *a = kn_input(ctx, "a"), *b = kn_input(ctx, "b"), *bias = kn_input(ctx, "bias");
  if (a->ndim != 2 || b->ndim != 2 || a->shape[1] != b->shape[0])
    return cs_err_set(err, CS_EINVAL, "matmul_relu: a must be [m, k] and b [k, n]");
  if (a->shape[0] > 1u << 20 || a->shape[1] > 1u << 20 || b->shape[1] > 1u << 20)
    return cs_err_set(err, CS_EINVAL, "matmul_relu: m, n and k must be at most 1048576");
  p->m = (uint32_t)a->shape[0];
  p->k = (uint32_t)a->shape[1];
  p->n = (uint32_t)b->shape[1];
  if (bias && (bias->count != p->n || bias->ndim > 2 || (bias->ndim == 2 && bias->shape[0] != 1)))
    return cs_err_set(err, CS_EINVAL, "matmul_relu: bias must be [n] or [1, n] with n = %u", p->n);
  p->has_bias = bias != NULL;
  p->a = a->data; /* NULL for the shapes of a timing-only run */
  p->b = b->data;
  p->bias = bias ? bias->data : NULL;
  return CS_OK;
}

static cs_status run(kn_ctx *ctx, cs_err *err) {
  mr_problem p;
  cs_status st = problem(ctx, &p, err);
  if (st != CS_OK) return st;
  rt_device *dev;
  rt_gtensor c;
  if ((st = kn_device_create(ctx, &dev, err)) != CS_OK) return st;
  if ((st = mr_launch(dev, &p, &c, err)) != CS_OK || (st = kn_device_run(ctx, err)) != CS_OK) return st;
  uint64_t shape[2] = {p.m, p.n};
  kn_tensor *out; /* a shape without data in a timing-only run */
  if ((st = kn_output_alloc(ctx, "c", ISA_INT32, 2, shape, &out, err)) != CS_OK) return st;
  return kn_ctx_has_data(ctx) ? rt_gm_read(dev, c, out->data, err) : CS_OK;
}

static cs_status reference(kn_ctx *ctx, cs_err *err) {
  mr_problem p;
  cs_status st = problem(ctx, &p, err);
  uint64_t shape[2] = {p.m, p.n};
  kn_tensor *out;
  if (st == CS_OK) st = kn_reference_alloc(ctx, "c", ISA_INT32, 2, shape, &out, err);
  if (st == CS_OK) mr_reference(&p, out->data);
  return st;
}

/* Deterministic inputs from m, n, k (values over the whole int8 range, so ReLU clips about half). */
static cs_status make_inputs(kn_ctx *ctx, cs_err *err) {
  static const char *const names[3] = {"m", "n", "k"};
  int64_t d[3];
  bool has_bias;
  cs_status st = kn_attr_dims(ctx, names, 3, 1 << 20, d, err);
  if (st == CS_OK) st = kn_attr_bool(ctx, "has_bias", &has_bias, err);
  if (st != CS_OK) return st;
  uint64_t seed = kn_options(ctx)->seed;
  const struct {
    const char *name;
    isa_dtype dt;
    uint64_t rows, cols;
  } gen[3] = {{"a", ISA_INT8, (uint64_t)d[0], (uint64_t)d[2]},
              {"b", ISA_INT8, (uint64_t)d[2], (uint64_t)d[1]},
              {"bias", ISA_INT32, 1, (uint64_t)d[1]}};
  for (int g = 0; g < (has_bias ? 3 : 2) && st == CS_OK; g++) {
    kn_tensor t;
    uint64_t shape[2] = {gen[g].rows, gen[g].cols};
    if (!kn_ctx_has_data(ctx)) { /* timing only: shapes, no data */
      if ((st = kn_tensor_shape(&t, gen[g].name, gen[g].dt, 2, shape, err)) == CS_OK)
        st = kn_set_input(ctx, gen[g].name, &t, err);
      continue;
    }
    if ((st = kn_tensor_alloc(&t, gen[g].name, gen[g].dt, 2, shape, err)) != CS_OK) break;
    for (uint64_t i = 0; i < t.count; i++) {
      if (gen[g].dt == ISA_INT8) ((int8_t *)t.data)[i] = (int8_t)kn_rng_int(&seed, -128, 127);
      else ((int32_t *)t.data)[i] = (int32_t)kn_rng_int(&seed, -20000, 20000);
    }
    st = kn_set_input(ctx, gen[g].name, &t, err);
  }
  return st;
}

static const kn_op matmul_relu = {
    .name = "matmul_relu",
    .summary = "fused int8 matmul + bias + ReLU: c = max(a · b + bias, 0), int32",
    .source = "examples/custom_kernel (a plug-in built outside cubesim)",
    .simulated = true,
    .inputs = KN_LIST(inputs),
    .attrs = KN_LIST(attrs),
    .outputs = KN_LIST(outputs),
    .run = run,
    .reference = reference,
    .make_inputs = make_inputs,
};

KN_PLUGIN("myops", &matmul_relu)
