/* kn_test — operators under test through kn_ctx (see kn_test.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "isa/isa_num.h"
#include "support/kn_test.h"

void kt_init(kt_runner *r, const char *op, uint64_t ub_bytes) {
  memset(r, 0, sizeof *r);
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 4;
  if (ub_bytes) cfg.buffers_ub_bytes = cfg.aiv_ub_bytes = ub_bytes; /* the UB of every core */
  kn_run_options opt;
  memset(&opt, 0, sizeof opt);
  opt.cfg = &cfg; /* the context keeps a copy */
  opt.seed = 1;
  const kn_op *o = kn_op_find(op);
  assert_non_null(o);
  assert_int_equal(kn_ctx_create(o, &opt, &r->ctx, &r->err), CS_OK);
}

void kt_free(kt_runner *r) { kn_ctx_destroy(r->ctx); }

void kt_set_attr(kt_runner *r, const char *name, const char *value) {
  if (kn_ctx_set_attr(r->ctx, name, value, &r->err) != CS_OK) fail_msg("attr %s: %s", name, r->err.msg);
}

cs_status kt_put(kt_runner *r, const char *name, isa_dtype dt, uint32_t ndim, const uint64_t *shape,
                 const void *data) {
  kn_tensor t;
  assert_int_equal(kn_tensor_alloc(&t, name, dt, ndim, shape, &r->err), CS_OK);
  if (data) memcpy(t.data, data, t.count * kn_host_elem_bytes(dt));
  return kn_set_input(r->ctx, name, &t, &r->err);
}

void kt_put_ok(kt_runner *r, const char *name, isa_dtype dt, uint32_t ndim, const uint64_t *shape,
               const void *data) {
  if (kt_put(r, name, dt, ndim, shape, data) != CS_OK) fail_msg("input %s: %s", name, r->err.msg);
}

void kt_run_ok(kt_runner *r) {
  if (kn_ctx_run(r->ctx, &r->err) != CS_OK) fail_msg("run: %s", r->err.msg);
}

void kt_run_fails(kt_runner *r, cs_status code, const char *msg) {
  cs_err e;
  memset(&e, 0, sizeof e);
  assert_int_equal(kn_ctx_run(r->ctx, &e), code);
  assert_string_equal(e.msg, msg);
}

void kt_own_reference_agrees(kt_runner *r, const char *output) {
  if (kn_ctx_reference(r->ctx, &r->err) != CS_OK) fail_msg("reference: %s", r->err.msg);
  kn_compare cmp;
  const kn_tensor *got = kn_ctx_output(r->ctx, output), *want = kn_ctx_reference_output(r->ctx, output);
  assert_non_null(got);
  assert_non_null(want);
  assert_int_equal(kn_compare_tensors(got, want, &cmp, &r->err), CS_OK);
  if (cmp.mismatches)
    fail_msg("own reference: %llu mismatches, first %s", (unsigned long long)cmp.mismatches, cmp.first);
  assert_int_equal(cmp.count, got->count);
}

kn_ctx *kt_ctx(const char *op, unsigned cores) {
  const kn_op *o = kn_op_find(op);
  assert_non_null(o);
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = cores;
  kn_run_options opt;
  memset(&opt, 0, sizeof opt);
  if (cores) opt.cfg = &cfg; /* the context keeps a copy */
  kn_ctx *ctx = NULL;
  assert_int_equal(kn_ctx_create(o, &opt, &ctx, NULL), CS_OK);
  return ctx;
}

void kt_set_input(kn_ctx *ctx, const char *name, kn_tensor t) {
  cs_err err;
  if (kn_set_input(ctx, name, &t, &err) != CS_OK) fail_msg("%s", err.msg);
}

kn_tensor kt_int_tensor(const char *name, isa_dtype dt, uint32_t ndim, const uint64_t *shape, const int64_t *v) {
  kn_tensor t;
  assert_int_equal(kn_tensor_alloc(&t, name, dt, ndim, shape, NULL), CS_OK);
  for (uint64_t i = 0; i < t.count; i++) switch (dt) {
      case ISA_INT4: case ISA_INT8: ((int8_t *)t.data)[i] = (int8_t)v[i]; break;
      case ISA_UINT4: case ISA_UINT8: ((uint8_t *)t.data)[i] = (uint8_t)v[i]; break;
      case ISA_INT16: ((int16_t *)t.data)[i] = (int16_t)v[i]; break;
      case ISA_UINT16: ((uint16_t *)t.data)[i] = (uint16_t)v[i]; break;
      default: ((int32_t *)t.data)[i] = (int32_t)v[i]; break;
    }
  return t;
}

kn_tensor kt_float_tensor(const char *name, isa_dtype dt, uint32_t ndim, const uint64_t *shape, const float *v) {
  kn_tensor t;
  assert_int_equal(kn_tensor_alloc(&t, name, dt, ndim, shape, NULL), CS_OK);
  for (uint64_t i = 0; i < t.count; i++) {
    if (dt == ISA_FP16)
      ((uint16_t *)t.data)[i] = isa_f32_to_f16(v[i]);
    else if (dt == ISA_BF16)
      ((float *)t.data)[i] = isa_bf16_to_f32(isa_f32_to_bf16(v[i]));
    else
      ((float *)t.data)[i] = v[i];
  }
  return t;
}

int64_t kt_get_int(const kn_tensor *t, uint64_t i) { return (int64_t)kn_tensor_get(t, i); }

void kt_assert_ints(const kn_tensor *t, const int64_t *want, uint64_t n) {
  assert_int_equal(t->count, n);
  for (uint64_t i = 0; i < n; i++) {
    int64_t got = kt_get_int(t, i);
    if (got != want[i])
      fail_msg("element %llu: got %lld, want %lld", (unsigned long long)i, (long long)got, (long long)want[i]);
  }
}
