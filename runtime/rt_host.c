/* rt_host — devices, GM tensors, launch and replay for host programs and operators. */
#include "runtime/rt_host.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_internal.h"

struct rt_device {
  sim *s;
  sim_result result;
  bool has_result;
};

cs_status rt_device_create(const sim_config *cfg, const sim_options *opt, rt_device **out,
                           cs_err *err) {
  *out = NULL;
  rt_device *dev = calloc(1, sizeof *dev);
  if (!dev) return cs_err_set(err, CS_ENOMEM, "device: no host memory");
  cs_status st = sim_create(cfg, opt, &dev->s, err);
  if (st != CS_OK) {
    free(dev);
    return st;
  }
  *out = dev;
  return CS_OK;
}

void rt_device_destroy(rt_device *dev) {
  if (!dev) return;
  if (dev->has_result) sim_result_free(&dev->result);
  sim_destroy(dev->s);
  free(dev);
}

const sim_config *rt_device_config(const rt_device *dev) { return sim_get_config(dev->s); }
unsigned rt_device_cores(const rt_device *dev) { return sim_aic_count(dev->s); }
bool rt_device_timing_only(const rt_device *dev) { return sim_is_timing_only(dev->s); }
sim *rt_device_sim(rt_device *dev) { return dev->s; }

/* ---- GM ---------------------------------------------------------------------------------- */

cs_status rt_gm_alloc(rt_device *dev, const char *name, isa_dtype dtype, uint64_t count,
                      rt_gtensor *out, cs_err *err) {
  uint64_t bytes = isa_dtype_bytes(dtype, count);
  out->dtype = dtype;
  out->count = count;
  return sim_gm_alloc(dev->s, name, bytes ? bytes : 1, &out->addr, err);
}

/* Host view of the tensor's bytes in GM, or NULL with the reason in err. */
static uint8_t *gm_view(rt_device *dev, rt_gtensor t, const char *what, cs_err *err) {
  uint64_t bytes = isa_dtype_bytes(t.dtype, t.count);
  uint8_t *p = sim_gm_ptr(dev->s, t.addr, bytes);
  if (!p)
    cs_err_set(err, CS_EINVAL,
               "%s: GM 0x%" PRIx64 " .. 0x%" PRIx64 " (%" PRIu64 " bytes) is not inside one "
               "allocated tensor",
               what, t.addr, t.addr + bytes, bytes);
  return p;
}

cs_status rt_gm_write(rt_device *dev, rt_gtensor t, const void *src, cs_err *err) {
  if (sim_is_timing_only(dev->s)) return CS_OK;
  uint8_t *p = gm_view(dev, t, "rt_gm_write", err);
  if (!p) return CS_EINVAL;
  memcpy(p, src, isa_dtype_bytes(t.dtype, t.count));
  return CS_OK;
}

cs_status rt_gm_read(rt_device *dev, rt_gtensor t, void *dst, cs_err *err) {
  if (sim_is_timing_only(dev->s))
    return cs_err_set(err, CS_EINVAL, "rt_gm_read: the device is timing-only, its GM keeps no data");
  const uint8_t *p = gm_view(dev, t, "rt_gm_read", err);
  if (!p) return CS_EINVAL;
  memcpy(dst, p, isa_dtype_bytes(t.dtype, t.count));
  return CS_OK;
}

/* ---- launch and run ---------------------------------------------------------------------- */

cs_status rt_launch(rt_device *dev, unsigned block_dim, rt_kernel_fn fn, void *args, cs_err *err) {
  return rt_run_blocks(dev->s, RT_LAUNCH_AIC, block_dim, fn, args, err);
}

cs_status rt_launch_concurrent(rt_device *dev, unsigned block_dim, rt_kernel_fn fn, void *args, cs_err *err) {
  return rt_run_blocks_concurrent(dev->s, block_dim, fn, args, NULL, false, err);
}

cs_status rt_launch_concurrent_owned(rt_device *dev, unsigned block_dim, rt_kernel_fn fn, void *args,
                                     void (*release)(void *args), cs_err *err) {
  return rt_run_blocks_concurrent(dev->s, block_dim, fn, args, release, true, err);
}

void rt_host_parallel(unsigned threads, unsigned n, void (*job)(void *arg, unsigned i), void *arg) {
  sim_host_parallel(threads, n, job, arg);
}

cs_status rt_launch_kind(rt_device *dev, rt_launch_mode mode, unsigned block_dim, rt_kernel_fn fn, void *args,
                         cs_err *err) {
  return rt_run_blocks(dev->s, mode, block_dim, fn, args, err);
}

unsigned rt_device_aiv_cores(const rt_device *dev) { return sim_core_count(dev->s) - sim_aic_count(dev->s); }

cs_status rt_device_run(rt_device *dev, const sim_run_options *opt, cs_err *err) {
  if (dev->has_result) sim_result_free(&dev->result);
  dev->has_result = true; /* sim_run fills the result in every case */
  return sim_run(dev->s, opt, &dev->result, err);
}

const sim_result *rt_device_result(const rt_device *dev) {
  return dev && dev->has_result ? &dev->result : NULL;
}
