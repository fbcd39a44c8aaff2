/* rt_host — the host side of the runtime, as ACL is for Ascend C: a device made from a chip
 * configuration, GM tensors allocated and filled from host memory, a kernel launched on N blocks,
 * the timing replay, and the results and statistics read back.
 *
 *   rt_device *dev;
 *   rt_device_create(&cfg, NULL, &dev, &err);
 *   rt_gm_alloc(dev, "A", ISA_INT8, m * k, &a, &err);   rt_gm_write(dev, a, host_a, &err);
 *   ...
 *   rt_launch(dev, blocks, kernel, &args, &err);         record: data and instruction streams
 *   rt_device_run(dev, &(sim_run_options){0}, &err);     replay: cycles, statistics, hazards
 *   rt_gm_read(dev, c, host_c, &err);                    rt_device_result(dev)->total_cycles
 *   rt_device_destroy(dev);
 *
 * Operators in kernels/ and programs outside the repository use this same API (docs/API.md);
 * neither reaches into sim/ for it. Every call returns a cs_status and, on failure, a one-line
 * message in err; none exits or prints.
 */
#ifndef RT_HOST_H
#define RT_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "runtime/rt.h"
#include "sim/sim.h"
#include "sim/sim_config.h"

typedef struct rt_device rt_device;

/* Creates a device for a validated configuration (copied: cfg need not outlive the device).
 * opt (sim/sim.h; NULL: the defaults) chooses
 *   timing_only  keep no data: every access is still checked, but nothing is stored or computed
 *                (fast, for timing large shapes); rt_gm_write ignores its data, rt_gm_read is
 *                refused;
 *   kernel       the host code of the functional model's hot loops (all bit-identical);
 *   progress     a hook told how the launch and the run advance. */
cs_status rt_device_create(const sim_config *cfg, const sim_options *opt, rt_device **out,
                           cs_err *err);
void rt_device_destroy(rt_device *dev);

const sim_config *rt_device_config(const rt_device *dev);
/* chip.aic_cores of the configuration: the cores blocks are spread over. */
unsigned rt_device_cores(const rt_device *dev);
bool rt_device_timing_only(const rt_device *dev);
/* The simulated machine underneath, for what works on it directly (traces/trc_summary.h,
 * sim/sim_program.h's stream dump). */
sim *rt_device_sim(rt_device *dev);

/* ---- GM ---------------------------------------------------------------------------------- */

/* Allocates a zero-filled GM tensor of `count` elements of `dtype` (512-byte aligned); `name`
 * appears in faults, hazards and traces. */
cs_status rt_gm_alloc(rt_device *dev, const char *name, isa_dtype dtype, uint64_t count,
                      rt_gtensor *out, cs_err *err);
/* Copies the tensor's bytes (isa_dtype_bytes(t.dtype, t.count), in device form: int4 packed two
 * per byte, fp16 / bf16 as their bit patterns) from host memory into GM. A timing-only device
 * accepts and ignores the data. The tensor (or a part of one, rt_gtensor_at) must lie inside one
 * allocated GM tensor. */
cs_status rt_gm_write(rt_device *dev, rt_gtensor t, const void *src, cs_err *err);
/* Copies the tensor's bytes from GM into host memory. Refused on a timing-only device. */
cs_status rt_gm_read(rt_device *dev, rt_gtensor t, void *dst, cs_err *err);

/* ---- launch and run ---------------------------------------------------------------------- */

/* Runs fn(ctx, args) once per block 0 .. block_dim-1 on the host; block b records on core
 * b % cores (blocks beyond the core count run after the earlier blocks of their core, as on the
 * hardware). The data is computed now; time is rt_device_run's. CS_EFAULT, with the first
 * fault described in err, if a core faulted. Several launches on one device append to the
 * cores' streams. */
cs_status rt_launch(rt_device *dev, unsigned block_dim, rt_kernel_fn fn, void *args, cs_err *err);
/* rt_launch for a kernel whose blocks share nothing they write (args only read, everything else
 * in the block's own rt_ctx and rt_ctx_alloc memory): on a timing-only device the cores are
 * dealt to sim_options.record_threads host threads, which record at once, each core's blocks in
 * order on one thread. The streams, hence every result, are rt_launch's; a device that keeps
 * data, or one thread, is rt_launch. If host memory runs out, which core's record ran out first
 * may vary from run to run (the error's text with it). */
cs_status rt_launch_concurrent(rt_device *dev, unsigned block_dim, rt_kernel_fn fn, void *args, cs_err *err);
/* rt_launch_concurrent handing args over to the device, which calls release(args) (if not NULL)
 * when it needs them no more (at the latest when destroyed). On a timing-only device made with
 * sim_options.stream_record, its first launch then keeps no streams: they are counted and checked
 * now, and recorded again, from args, as the run replays them and whenever they are read
 * (sim_record_cores), so that the run's memory does not grow with its instructions. */
cs_status rt_launch_concurrent_owned(rt_device *dev, unsigned block_dim, rt_kernel_fn fn, void *args,
                                     void (*release)(void *args), cs_err *err);
/* Independent host work (several devices, each used by one job only) on up to `threads` host
 * threads (0: the default, CUBESIM_THREADS or one per processor): job(arg, i) for every i < n,
 * returning when all have run (sim_host_parallel). */
void rt_host_parallel(unsigned threads, unsigned n, void (*job)(void *arg, unsigned i), void *arg);
/* The same for any kind of kernel (rt.h, rt_launch_mode): AIC-only is rt_launch; AIV-only runs
 * block b on AIV b % (chip.aic_cores x chip.aiv_per_aic); MIX runs block b on AI core
 * b % chip.aic_cores, its AIC and then its one or two AIVs, each with Ascend C's block index
 * (rt_block_idx). The first vector launch makes the device's AIV cores (sim_aiv_enable); a chip
 * with chip.aiv_per_aic = 0 refuses it (CS_EINVAL), and MIX 1:2 needs two AIVs per AI core. */
cs_status rt_launch_kind(rt_device *dev, rt_launch_mode mode, unsigned block_dim, rt_kernel_fn fn, void *args,
                         cs_err *err);
/* The AIV cores the device has (0 before its first vector launch). */
unsigned rt_device_aiv_cores(const rt_device *dev);

/* Replays every core's stream through the timing engine. CS_EDEADLOCK, CS_EHAZARD (unless
 * opt->allow_hazards) or CS_OK; the result is kept in every case, until the next run or the
 * device's end. opt may be NULL (no trace, hazards fail the run). */
cs_status rt_device_run(rt_device *dev, const sim_run_options *opt, cs_err *err);
/* The last run's result (cycles, time, statistics, hazards); NULL before the first run, or for a
 * NULL device. */
const sim_result *rt_device_result(const rt_device *dev);

#endif
