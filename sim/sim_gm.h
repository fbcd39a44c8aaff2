/* sim_gm — what a GM transfer costs (docs/TIMING.md, "GM transfers"): how fast the engine that
 * moves it (MTE2, MTE3, the fixpipe) can stream it alone, from its shape — the bursts it is made
 * of, the alignment of their pitch, and the latency of where the data comes from — and how the transfers in flight share the chip's L2 port and HBM (max-min
 * fair). Pure functions of the configuration and the transfer: the timing engine owns time. */
#ifndef SIM_GM_H
#define SIM_GM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isa/isa_insn.h"
#include "sim/sim_config.h"

/* The GM side of one transfer. */
typedef struct sim_xfer_shape {
  uint64_t bytes;       /* bytes moved on the GM side */
  uint64_t bursts;      /* contiguous runs (a run continuing the previous one is the same burst) */
  uint32_t align_bytes; /* the largest power of two, at most 512, dividing the pitch of the bursts
                         * (512 for a single burst) */
  uint64_t lo, hi;      /* the GM bytes spanned, [lo, hi) */
} sim_xfer_shape;

/* The shape of the GM ranges among r[0..n) (other memories are skipped). */
void sim_xfer_shape_of(const isa_range *r, size_t n, sim_xfer_shape *out);

/* The bytes of the GM ranges among r[0..n) rounded out to whole `granule`-byte blocks: what a
 * memory that moves only whole blocks (HBM's bursts, without the L2) transfers for them. */
uint64_t sim_xfer_granule_bytes(const isa_range *r, size_t n, uint64_t granule);

/* The engine of a GM path: its limits from the configuration. */
typedef struct sim_xfer_engine {
  double port_bytes_per_cycle; /* the engine's own width */
  double outstanding_bytes;    /* bytes it keeps in flight (Little's law: rate <= this / latency) */
  double burst_cycles;         /* cost of issuing one burst */
  double outstanding_bursts;   /* bursts it keeps in flight: each costs latency / this more */
  uint64_t setup_cycles;       /* per instruction, before the first byte streams */
  uint64_t latency_cycles;     /* fixed cost after the last byte */
} sim_xfer_engine;

/* The engine moving a transfer on `path` (a GM path) whose GM-side elements are `elem_bytes`
 * wide (the fixpipe converts elements_per_cycle elements a cycle). */
void sim_xfer_engine_of(const sim_config *c, isa_path path, double elem_bytes, sim_xfer_engine *out);

/* Efficiency of bursts whose starts share `align_bytes` alignment (1 for 512 and above). */
double sim_xfer_pitch_efficiency(const sim_config *c, uint32_t align_bytes);

/* Bytes per cycle the engine streams this transfer at when nothing else limits it, the data
 * arriving after `latency_cycles` (the mix of L2 hits and HBM misses):
 *   rate = bytes / ((bursts * (burst_cycles + latency / outstanding_bursts)
 *                    + bytes / min(port, outstanding_bytes / latency)) / efficiency). */
double sim_xfer_rate(const sim_xfer_engine *eng, const sim_xfer_shape *sh, double efficiency,
                     double latency_cycles);

/* Cycles a GM transfer instruction (copy, ND->NZ copy, UB->GM, fixpipe to GM) keeps its engine
 * busy when it runs alone, `hit_fraction` of its bytes found in the L2: the set-up plus the
 * bytes at sim_xfer_rate. For estimates (the tiling search); the engine itself shares the chip's
 * bandwidth among the transfers in flight. 0 for an instruction that does not touch GM. */
uint64_t sim_xfer_alone_cycles(const sim_config *c, const isa_insn *in, double hit_fraction);

/* One transfer in flight, as the sharing sees it. */
typedef struct sim_flow_share {
  double cap;          /* its own limit, bytes/cycle (engine, shape, lines shared with other cores) */
  double hbm_per_byte; /* HBM bytes it moves per byte transferred (line fills and write-backs) */
  double rate;         /* out: bytes/cycle */
} sim_flow_share;

/* Max-min fair rates (progressive filling): every flow rises at the same pace until its own cap,
 * the L2 port (`l2_bytes_per_cycle`, crossed by every byte; unlimited when l2_on is false) or HBM
 * (`hbm_bytes_per_cycle`, crossed by hbm_per_byte of each byte) stops it. Returns false when
 * scratch memory is missing (more than 64 flows and calloc fails). */
bool sim_share_rates(sim_flow_share *f, size_t n, bool l2_on, double l2_bytes_per_cycle,
                     double hbm_bytes_per_cycle);

#endif
