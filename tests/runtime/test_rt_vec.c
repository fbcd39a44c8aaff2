/* Tests of runtime/rt_vec.h on a simulated core: GELU and SiLU as Ascend's kernels compute them,
 * full reductions, and row / column broadcasts — each a kernel GM -> UB -> routine -> GM run by
 * rt_launch, its output bit-exact against a reference composed here from the same steps with
 * independent arithmetic (double sums and products rounded by tests/support/ref_num, e^x by the
 * host's expl), its instruction stream as documented, and under sim_run: no hazard, and each
 * vector instruction's busy cycles those of its rate class. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"
#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"
#include "runtime/rt_vec.h"
#include "sim/sim.h"
#include "support/packed.h"
#include "support/ref_num.h"
#include "support/rng.h"

typedef enum routine { R_GELU, R_SILU, R_SUM, R_MAX, R_ROWS, R_COLS } routine;

typedef struct job {
  routine what;
  isa_dtype dt;
  uint32_t count;          /* elements of x (rows * row_stride for the broadcasts) */
  uint32_t rows, cols, row_stride;
  isa_op op;               /* broadcasts */
  uint64_t x, y, out;      /* GM: input, the row / column operand, output */
  uint32_t out_count;
} job;

static unsigned esize(isa_dtype t) { return isa_dtype_bits(t) / 8; }
static uint64_t align32(uint64_t b) { return (b + 31) / 32 * 32; }

static void kernel(rt_ctx *ctx, void *args) {
  const job *J = args;
  unsigned es = esize(J->dt);
  uint64_t xb = align32((uint64_t)J->count * es), ob = align32((uint64_t)J->out_count * es);
  rt_ltensor x = rt_buf_alloc(ctx, RT_POS_VECIN, xb, J->dt, "x");
  rt_ltensor y = rt_buf_alloc(ctx, RT_POS_VECIN, 4096, J->dt, "y");
  rt_ltensor out = rt_buf_alloc(ctx, RT_POS_VECOUT, ob, J->dt, "out");
  rt_ltensor work = rt_buf_alloc(ctx, RT_POS_VECCALC, 16384, J->dt, "work");
  rt_copy_gm_to_local(ctx, x, (rt_gtensor){J->x, J->dt, J->count}, rt_copy_params(xb));
  if (J->what == R_ROWS || J->what == R_COLS)
    rt_copy_gm_to_local(ctx, y, (rt_gtensor){J->y, J->dt, 1024}, rt_copy_params(4096));
  int ev = rt_event_alloc(ctx, ISA_PIPE_MTE2, ISA_PIPE_V);
  rt_set_flag(ctx, ISA_PIPE_MTE2, ISA_PIPE_V, ev);
  rt_wait_flag(ctx, ISA_PIPE_MTE2, ISA_PIPE_V, ev);
  switch (J->what) {
    case R_GELU: rt_gelu(ctx, out, x, J->count); break;
    case R_SILU: rt_silu(ctx, out, x, J->count); break;
    case R_SUM: rt_reduce_sum(ctx, out, x, work, J->count); break;
    case R_MAX: rt_reduce_max(ctx, out, x, work, J->count); break;
    case R_ROWS: rt_vbinary_rows(ctx, J->op, out, x, y, J->rows, J->cols, J->row_stride); break;
    case R_COLS: rt_vbinary_cols(ctx, J->op, out, x, y, work, J->rows, J->cols, J->row_stride); break;
  }
  int ev2 = rt_event_alloc(ctx, ISA_PIPE_V, ISA_PIPE_MTE3);
  rt_set_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE3, ev2);
  rt_wait_flag(ctx, ISA_PIPE_V, ISA_PIPE_MTE3, ev2);
  rt_copy_local_to_gm(ctx, (rt_gtensor){J->out, J->dt, J->out_count}, out, rt_copy_params(ob));
}

static rt_device *make_device(void) {
  sim_config c;
  sim_config_defaults(&c);
  c.chip_aic_cores = 1;
  c.vector_ub_bank_groups = 0; /* no UB bank conflicts: the V pipe's time is the rate classes' */
  rt_device *dev = NULL;
  cs_err err;
  assert_int_equal(rt_device_create(&c, NULL, &dev, &err), CS_OK);
  return dev;
}

/* A GM tensor of `bytes` bytes holding the n elements (bits) of type dt given (NULL: zeros). */
static uint64_t gm_tensor(rt_device *dev, const char *name, isa_dtype dt, const uint32_t *v, uint32_t n,
                          uint64_t bytes) {
  rt_gtensor t;
  cs_err err;
  assert_int_equal(rt_gm_alloc(dev, name, ISA_UINT8, bytes, &t, &err), CS_OK);
  uint8_t *buf = calloc(bytes, 1);
  assert_non_null(buf);
  for (uint32_t i = 0; v && i < n; i++) pk_le_put(buf + (uint64_t)i * esize(dt), v[i], esize(dt));
  assert_int_equal(rt_gm_write(dev, t, buf, &err), CS_OK);
  free(buf);
  return t.addr;
}

/* Runs the job on a fresh device with x (and y) given as element bits; fills out[] with the
 * output bits; then times it (no hazard) and returns the device for stream and stats checks
 * (the caller destroys it), with *res the run's result. */
static rt_device *run_job(job *J, const uint32_t *x, const uint32_t *y, uint32_t *out, const sim_result **res) {
  rt_device *dev = make_device();
  unsigned es = esize(J->dt);
  J->x = gm_tensor(dev, "x", J->dt, x, J->count, align32((uint64_t)J->count * es));
  J->y = gm_tensor(dev, "y", J->dt, y, y ? 4096 / es : 0, 4096);
  uint64_t ob = align32((uint64_t)J->out_count * es);
  J->out = gm_tensor(dev, "out", J->dt, NULL, 0, ob);
  cs_err err;
  if (rt_launch(dev, 1, kernel, J, &err) != CS_OK) fail_msg("rt_launch: %s", err.msg);
  uint8_t *buf = malloc(ob);
  assert_non_null(buf);
  assert_int_equal(rt_gm_read(dev, (rt_gtensor){J->out, ISA_UINT8, ob}, buf, &err), CS_OK);
  for (uint32_t i = 0; i < J->out_count; i++) out[i] = (uint32_t)pk_le_get(buf + (uint64_t)i * es, es);
  free(buf);
  sim_run_options o = {.allow_hazards = false};
  if (rt_device_run(dev, &o, &err) != CS_OK) fail_msg("run: %s", err.msg);
  *res = rt_device_result(dev);
  assert_int_equal((*res)->hazard_count, 0);
  return dev;
}

/* ---- references ------------------------------------------------------------------------------- */

static double val(isa_dtype dt, uint32_t b) {
  return dt == ISA_FP16 ? ref_f16_value((uint16_t)b) : (double)ref_f32_of_bits(b);
}

/* An exact double result rounded to dt (fp16 under CTRL[48]'s saturation, the default). */
static double rnd(isa_dtype dt, double v) {
  return dt == ISA_FP16 ? ref_f16_value((uint16_t)ref_f16_of(v, true)) : (double)ref_f32_of_bits(ref_f32_of(v));
}

static uint32_t bits(isa_dtype dt, double v) { return dt == ISA_FP16 ? ref_f16_of(v, true) : ref_f32_of(v); }

/* e^t rounded to dt by the host's expl, subnormal results flushed to +0 (docs/ISA.md). */
static double ref_exp(isa_dtype dt, double t) {
  double e = rnd(dt, (double)expl((long double)t));
  return fabs(e) < (dt == ISA_FP16 ? ldexp(1, -14) : ldexp(1, -126)) ? 0.0 : e;
}

/* A scalar as rt_scalar_bits makes it: rounded to fp32, then to dt. */
static double scal(isa_dtype dt, double v) { return rnd(dt, (float)v); }

/* GELU's 8 steps, each rounded to dt. */
static uint32_t ref_gelu(isa_dtype dt, double x) {
  double t = rnd(dt, x * x);
  t = rnd(dt, t * x);
  t = rnd(dt, t * scal(dt, 0.044715));
  t = rnd(dt, x + t);
  t = rnd(dt, t * scal(dt, -1.595769));
  t = ref_exp(dt, t);
  t = rnd(dt, t + 1.0);
  return bits(dt, x / t);
}

static uint32_t ref_silu(isa_dtype dt, double x) {
  double t = rnd(dt, x * -1.0);
  t = ref_exp(dt, t);
  t = rnd(dt, t + 1.0);
  return bits(dt, x / t);
}

/* ---- GELU and SiLU ------------------------------------------------------------------------------ */

/* x over [-8, 8) (and a few beyond, where e^t overflows fp16), fp32 and fp16: bit-exact against
 * the composed reference, and within 1e-3 of x * Phi(x) (fp32) for GELU, of x * sigmoid(x) for
 * SiLU: what was built is GELU and SiLU. The V pipe (the default rates, no bank model): 6 (SiLU:
 * 2) simple ops of 1 cycle a repeat, vexp and vdiv at 5, each instruction 22 more. */
static void test_rt_vec_gelu_silu(void **state) {
  (void)state;
  const isa_dtype dts[] = {ISA_FP32, ISA_FP16};
  for (int which = 0; which < 2; which++)
    for (size_t d = 0; d < 2; d++) {
      isa_dtype dt = dts[d];
      enum { N = 4000 };
      static uint32_t x[N], out[N];
      for (uint32_t i = 0; i < N; i++) {
        double v = -8.0 + 16.0 * i / N;
        if (i % 500 == 7) v = 20.0 * (i % 1000 == 7 ? 1 : -1);
        x[i] = bits(dt, v);
      }
      job J = {which ? R_SILU : R_GELU, dt, N, 0, 0, 0, 0, 0, 0, 0, N};
      const sim_result *res;
      rt_device *dev = run_job(&J, x, NULL, out, &res);
      for (uint32_t i = 0; i < N; i++) {
        double v = val(dt, x[i]);
        uint32_t want = which ? ref_silu(dt, v) : ref_gelu(dt, v);
        if (out[i] != want)
          fail_msg("%s %s x = %g: 0x%x, want 0x%x", which ? "silu" : "gelu", isa_dtype_name(dt), v, out[i], want);
        if (dt == ISA_FP32) {
          double exact = which ? v / (1 + exp(-v)) : v * 0.5 * erfc(-v / sqrt(2.0));
          assert_true(fabs(val(dt, out[i]) - exact) <= 1e-3 * (1 + fabs(exact)));
        }
      }
      /* the stream: 8 (4) vector instructions with a V barrier between each two */
      const isa_insn *st = sim_core_stream(sim_get_core(rt_device_sim(dev), 0));
      static const isa_op gelu[] = {ISA_OP_VMUL, ISA_OP_VMUL, ISA_OP_VMULS, ISA_OP_VADD,
                                    ISA_OP_VMULS, ISA_OP_VEXP, ISA_OP_VADDS, ISA_OP_VDIV};
      static const isa_op silu[] = {ISA_OP_VMULS, ISA_OP_VEXP, ISA_OP_VADDS, ISA_OP_VDIV};
      const isa_op *ops = which ? silu : gelu;
      size_t nops = which ? 4 : 8, at = 3; /* after copy, set_flag, wait_flag */
      for (size_t k = 0; k < nops; k++) {
        assert_int_equal(st[at++].op, ops[k]);
        if (k + 1 < nops) {
          assert_int_equal(st[at].op, ISA_OP_PIPE_BARRIER);
          assert_int_equal(st[at++].u.barrier.pipe, ISA_PIPE_V);
        }
      }
      uint64_t repeats = (N * esize(dt) + 255) / 256;
      const sim_core_stats *cs = &res->stats.core[0];
      /* each instruction vector.insn_cycles (22) plus its repeats at its class's rate */
      assert_int_equal(cs->op_busy_cycles[ISA_OP_VEXP], 22 + 5 * repeats);
      assert_int_equal(cs->op_busy_cycles[ISA_OP_VDIV], 22 + 5 * repeats);
      assert_int_equal(cs->op_busy_cycles[ISA_OP_VMULS], (which ? 1 : 2) * (22 + repeats));
      assert_int_equal(cs->pipe_busy_cycles[ISA_PIPE_V], which ? 4 * 22 + (2 + 10) * repeats : 8 * 22 + (6 + 10) * repeats);
      rt_device_destroy(dev);
    }
}

/* ---- reductions -------------------------------------------------------------------------------- */

/* The reference sum: vreduce's tree over each run of P (left-out lanes +0), pass after pass. */
static double ref_sum_pass(isa_dtype dt, const double *v, uint32_t n, double *outv) {
  uint32_t lanes = 256 / esize(dt), m = 0;
  for (uint32_t r0 = 0; r0 < n; r0 += lanes, m++) {
    double w[128];
    for (uint32_t i = 0; i < lanes; i++) w[i] = r0 + i < n ? v[r0 + i] : 0.0;
    for (uint32_t k = lanes; k > 1; k /= 2)
      for (uint32_t i = 0; i < k / 2; i++) w[i] = rnd(dt, w[2 * i] + w[2 * i + 1]);
    outv[m] = w[0];
  }
  return m;
}

static void test_rt_vec_reductions(void **state) {
  (void)state;
  uint64_t seed = 3;
  const isa_dtype dts[] = {ISA_FP32, ISA_FP16};
  const uint32_t counts[] = {50, 64, 3000, 5000};
  for (size_t d = 0; d < 2; d++)
    for (size_t c = 0; c < 4; c++)
      for (int is_max = 0; is_max <= 1; is_max++) {
        isa_dtype dt = dts[d];
        uint32_t n = counts[c];
        static uint32_t x[5000];
        static double v[5000], p[5000];
        for (uint32_t i = 0; i < n; i++) {
          double r = (double)((int64_t)(rng_lcg(&seed) % 2001) - 1000) / 64.0;
          x[i] = bits(dt, r);
          v[i] = val(dt, x[i]);
        }
        uint32_t out[1];
        job J = {is_max ? R_MAX : R_SUM, dt, n, 0, 0, 0, 0, 0, 0, 0, 1};
        const sim_result *res;
        rt_device *dev = run_job(&J, x, NULL, out, &res);
        double want;
        if (is_max) {
          want = v[0];
          for (uint32_t i = 1; i < n; i++) want = v[i] > want ? v[i] : want;
        } else {
          uint32_t m = n;
          memcpy(p, v, n * sizeof v[0]);
          do m = (uint32_t)ref_sum_pass(dt, p, m, p); while (m > 1);
          want = p[0];
        }
        assert_int_equal(out[0], bits(dt, want));
        rt_device_destroy(dev);
      }
}

/* ---- broadcasts --------------------------------------------------------------------------------- */

/* dst[r][c] = x[r][c] op row[c] and op col[r]: 300 short rows (beyond one instruction's 255
 * repeats), then 100 rows of 1.5 P columns (two column chunks), rows 32 bytes or more longer
 * than cols. */
static void test_rt_vec_broadcasts(void **state) {
  (void)state;
  uint64_t seed = 5;
  const isa_dtype dts[] = {ISA_FP32, ISA_FP16};
  const isa_op ops[] = {ISA_OP_VADD, ISA_OP_VMUL, ISA_OP_VSUB};
  for (size_t d = 0; d < 2; d++)
    for (size_t o = 0; o < 3; o++)
      for (int k = 0; k < 4; k++) {
        int by_col = k % 2;
        isa_dtype dt = dts[d];
        uint32_t lanes = 256 / esize(dt);
        uint32_t rows = k < 2 ? 300 : 100, cols = k < 2 ? 40 * 4 / esize(dt) : lanes + lanes / 2;
        uint32_t stride = cols + 32 / esize(dt) * (k < 2 ? 2 : 1);
        uint32_t n = rows * stride;
        uint32_t *x = malloc(n * sizeof *x), *out = malloc(n * sizeof *out), y[2048];
        assert_non_null(x);
        assert_non_null(out);
        for (uint32_t i = 0; i < n; i++) x[i] = bits(dt, (double)((int64_t)(rng_lcg(&seed) % 201) - 100) / 8.0);
        for (uint32_t i = 0; i < 2048; i++) y[i] = bits(dt, (double)((int64_t)(rng_lcg(&seed) % 201) - 100) / 16.0);
        job J = {by_col ? R_COLS : R_ROWS, dt, n, rows, cols, stride, ops[o], 0, 0, 0, n};
        const sim_result *res;
        rt_device *dev = run_job(&J, x, y, out, &res);
        for (uint32_t r = 0; r < rows; r++)
          for (uint32_t c = 0; c < stride; c++) {
            uint32_t i = r * stride + c;
            if (c >= cols) continue; /* the gap after each row is not written (its value is UB's) */
            double a = val(dt, x[i]), b = val(dt, y[by_col ? r : c]);
            double e = ops[o] == ISA_OP_VADD ? a + b : ops[o] == ISA_OP_VMUL ? a * b : a - b;
            if (out[i] != bits(dt, e))
              fail_msg("%s %s by %s r=%u c=%u: 0x%x, want 0x%x", isa_op_info(ops[o])->mnemonic,
                       isa_dtype_name(dt), by_col ? "column" : "row", r, c, out[i], bits(dt, e));
          }
        rt_device_destroy(dev);
        free(x);
        free(out);
      }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rt_vec_gelu_silu),
      cmocka_unit_test(test_rt_vec_reductions),
      cmocka_unit_test(test_rt_vec_broadcasts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
