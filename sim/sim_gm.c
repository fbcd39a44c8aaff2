/* sim_gm — the cost of GM transfers and the sharing of the chip's memory bandwidth. */
#include "sim/sim_gm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ALIGN 512u
#define ROWS_WALKED 4096u /* blocks of longer patterns are extrapolated from this many bursts */

/* The largest power of two dividing x, at most MAX_ALIGN (x = 0 is aligned to everything). */
static uint32_t align_of(uint64_t x) {
  if (x == 0) return MAX_ALIGN;
  uint64_t low = x & (~x + 1);
  return low >= MAX_ALIGN ? MAX_ALIGN : (uint32_t)low;
}

/* Blocks of `block` bytes one burst of `bytes` at `addr` touches. */
static uint64_t blocks_of(uint64_t addr, uint64_t bytes, uint64_t block) {
  return bytes ? (addr + bytes - 1) / block - addr / block + 1 : 0;
}

/* Blocks of `block` bytes the runs of a normalized range touch. */
static uint64_t blocks_touched(const isa_range *g, uint64_t block) {
  if (g->rows == 1 || g->stride_bytes % block == 0) return g->rows * blocks_of(g->base, g->row_bytes, block);
  /* the offset in the block changes from burst to burst */
  uint64_t walked = g->rows < ROWS_WALKED ? g->rows : ROWS_WALKED, sum = 0;
  for (uint64_t j = 0; j < walked; j++) sum += blocks_of(g->base + j * g->stride_bytes, g->row_bytes, block);
  return walked == g->rows ? sum : (uint64_t)llround((double)sum * (double)g->rows / (double)walked);
}

void sim_xfer_shape_of(const isa_range *r, size_t n, sim_xfer_shape *out) {
  memset(out, 0, sizeof *out);
  out->align_bytes = MAX_ALIGN;
  out->lo = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    if (r[i].mem != ISA_MEM_GM || !r[i].rows || !r[i].row_bytes) continue;
    isa_range g = isa_range_normalize(r[i]);
    uint64_t end = isa_range_end(&g);
    if (g.base < out->lo) out->lo = g.base;
    if (end > out->hi) out->hi = end;
    out->bytes += isa_range_bytes(&g);
    out->bursts += g.rows;
    /* the alignment every burst starts at: the pitch's (Huawei's fitted model keys on the
     * source row length), and below 32 B the first burst's address (rows a pitch apart then all
     * start inside a 32-byte block); a single burst streams whatever its start */
    uint32_t al = g.rows > 1 ? align_of(g.stride_bytes) : MAX_ALIGN;
    if (g.rows > 1 && align_of(g.base) < 32 && align_of(g.base) < al) al = align_of(g.base);
    if (al < out->align_bytes) out->align_bytes = al;
  }
  if (out->lo == UINT64_MAX) out->lo = 0;
}

uint64_t sim_xfer_granule_bytes(const isa_range *r, size_t n, uint64_t granule) {
  uint64_t g = granule ? granule : 1, sum = 0;
  for (size_t i = 0; i < n; i++) {
    if (r[i].mem != ISA_MEM_GM || !r[i].rows || !r[i].row_bytes) continue;
    isa_range nr = isa_range_normalize(r[i]);
    sum += blocks_touched(&nr, g) * g;
  }
  return sum;
}

void sim_xfer_engine_of(const sim_config *c, isa_path path, double elem_bytes, sim_xfer_engine *out) {
  memset(out, 0, sizeof *out);
  switch (path) {
    case ISA_PATH_GM_TO_L1:
    case ISA_PATH_GM_TO_UB:
      out->port_bytes_per_cycle = (double)c->mte2_gm_bytes_per_cycle;
      out->outstanding_bytes = (double)c->mte2_outstanding_bytes;
      out->burst_cycles = c->mte2_burst_cycles;
      out->outstanding_bursts = (double)c->mte2_outstanding_bursts;
      out->setup_cycles = c->mte2_setup_cycles;
      out->latency_cycles = c->mte2_latency_cycles;
      break;
    case ISA_PATH_UB_TO_GM:
      out->port_bytes_per_cycle = (double)c->mte3_gm_bytes_per_cycle;
      out->outstanding_bytes = (double)c->mte3_outstanding_bytes;
      out->burst_cycles = c->mte3_burst_cycles;
      out->outstanding_bursts = (double)c->mte3_outstanding_bursts;
      out->setup_cycles = c->mte3_setup_cycles;
      out->latency_cycles = c->mte3_latency_cycles;
      break;
    case ISA_PATH_L0C_TO_GM: {
      /* the fixpipe converts elements_per_cycle elements a cycle, and writes at most
       * gm_bytes_per_cycle: whichever binds for the output type */
      double conv = (double)c->fixpipe_elements_per_cycle * (elem_bytes > 0 ? elem_bytes : 1.0);
      double port = (double)c->fixpipe_gm_bytes_per_cycle;
      out->port_bytes_per_cycle = conv < port ? conv : port;
      out->outstanding_bytes = (double)c->fixpipe_outstanding_bytes;
      out->burst_cycles = c->fixpipe_burst_cycles;
      out->outstanding_bursts = (double)c->fixpipe_outstanding_bursts;
      out->setup_cycles = c->fixpipe_setup_cycles;
      out->latency_cycles = c->fixpipe_latency_cycles;
      break;
    }
    default: break;
  }
}

double sim_xfer_pitch_efficiency(const sim_config *c, uint32_t align_bytes) {
  if (align_bytes >= 512) return 1.0;
  if (align_bytes >= 256) return c->gm_pitch_efficiency_256b;
  if (align_bytes >= 128) return c->gm_pitch_efficiency_128b;
  if (align_bytes >= 64) return c->gm_pitch_efficiency_64b;
  if (align_bytes >= 32) return c->gm_pitch_efficiency_32b;
  return c->gm_pitch_efficiency_unaligned;
}

double sim_xfer_rate(const sim_xfer_engine *eng, const sim_xfer_shape *sh, double efficiency,
                     double latency_cycles) {
  double stream = eng->port_bytes_per_cycle;
  if (latency_cycles > 0 && eng->outstanding_bytes / latency_cycles < stream)
    stream = eng->outstanding_bytes / latency_cycles;
  if (sh->bytes == 0) return stream;
  double per_burst = eng->burst_cycles + (eng->outstanding_bursts > 0 ? latency_cycles / eng->outstanding_bursts : 0);
  double t = ((double)sh->bursts * per_burst + (double)sh->bytes / stream) / efficiency;
  return (double)sh->bytes / t;
}

/* Whether every flow can have its own cap: the caps fit the L2 port and HBM with a margin of a
 * billionth of each, far beyond the rounding of the filling's sums (n terms, a few units in the
 * last place each). Then every round of the filling is bound by the smallest cap left, since the
 * room left divided among the flows left is at least their smallest cap, and gives each flow its
 * cap exactly, as this does (most calls of a matmul: 96 % at 8192³, seven rounds each). */
static bool caps_fit(const sim_flow_share *f, size_t n, bool l2_on, double l2_bw, double hbm_bw) {
  double l2 = 0, hbm = 0;
  for (size_t i = 0; i < n; i++) {
    l2 += f[i].cap;
    hbm += f[i].cap * f[i].hbm_per_byte;
  }
  const double margin = 1.0 - 1e-9;
  return (!l2_on || l2 <= l2_bw * margin) && hbm <= hbm_bw * margin; /* false for an infinite cap */
}

bool sim_share_rates(sim_flow_share *f, size_t n, bool l2_on, double l2_bw, double hbm_bw) {
  if (n == 0) return true;
  if (caps_fit(f, n, l2_on, l2_bw, hbm_bw)) {
    for (size_t i = 0; i < n; i++) f[i].rate = f[i].cap;
    return true;
  }
  bool frozen_buf[64];
  bool *frozen = n <= 64 ? frozen_buf : calloc(n, sizeof *frozen);
  if (!frozen) return false;
  for (size_t i = 0; i < n; i++) frozen[i] = false, f[i].rate = 0;
  size_t left = n;
  while (left) {
    double used_l2 = 0, used_hbm = 0, hbm_weight = 0, min_cap = INFINITY;
    for (size_t i = 0; i < n; i++) {
      if (frozen[i]) {
        used_l2 += f[i].rate;
        used_hbm += f[i].rate * f[i].hbm_per_byte;
      } else {
        hbm_weight += f[i].hbm_per_byte;
        if (f[i].cap < min_cap) min_cap = f[i].cap;
      }
    }
    double x_l2 = l2_on ? (l2_bw - used_l2) / (double)left : INFINITY;
    double x_hbm = hbm_weight > 0 ? (hbm_bw - used_hbm) / hbm_weight : INFINITY;
    if (min_cap <= x_l2 && min_cap <= x_hbm) { /* the smallest own cap binds first */
      for (size_t i = 0; i < n; i++)
        if (!frozen[i] && f[i].cap <= min_cap) frozen[i] = true, f[i].rate = f[i].cap, left--;
    } else if (x_l2 <= x_hbm) { /* the L2 port is full: every flow stops rising */
      for (size_t i = 0; i < n; i++)
        if (!frozen[i]) frozen[i] = true, f[i].rate = fmax(x_l2, 0), left--;
    } else { /* HBM is full: the flows that cross it stop rising */
      for (size_t i = 0; i < n; i++)
        if (!frozen[i] && f[i].hbm_per_byte > 0) frozen[i] = true, f[i].rate = fmax(x_hbm, 0), left--;
    }
  }
  if (frozen != frozen_buf) free(frozen);
  return true;
}

uint64_t sim_xfer_alone_cycles(const sim_config *c, const isa_insn *in, double hit_fraction) {
  isa_work w;
  isa_insn_work(in, &w);
  if (w.path != ISA_PATH_GM_TO_L1 && w.path != ISA_PATH_GM_TO_UB && w.path != ISA_PATH_UB_TO_GM &&
      w.path != ISA_PATH_L0C_TO_GM)
    return 0;
  isa_range r[ISA_MAX_RANGES];
  size_t n = isa_insn_ranges(in, r);
  sim_xfer_shape sh;
  sim_xfer_shape_of(r, n, &sh);
  sim_xfer_engine eng;
  sim_xfer_engine_of(c, (isa_path)w.path, w.elements ? (double)w.bytes / (double)w.elements : 1.0, &eng);
  bool write = w.path == ISA_PATH_UB_TO_GM || w.path == ISA_PATH_L0C_TO_GM;
  double hit = !c->l2_enabled || isa_insn_l2_bypass(in) ? 0.0 : write ? 1.0 : hit_fraction;
  double lat = hit * (double)c->l2_hit_latency_cycles + (1.0 - hit) * (double)c->l2_miss_latency_cycles;
  double rate = sim_xfer_rate(&eng, &sh, sim_xfer_pitch_efficiency(c, sh.align_bytes), lat);
  return eng.setup_cycles + (uint64_t)ceil((double)sh.bytes / rate - 1e-9);
}
