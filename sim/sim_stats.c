/* sim_stats — counter descriptors and sums. */
#include "sim/sim_stats.h"

static const sim_stat_desc chip_descs[] = {
#define SIM_STAT_CHIP_DESC(name, unit, desc) {#name, unit, desc, offsetof(sim_stats, name)},
    SIM_STAT_CHIP_TABLE(SIM_STAT_CHIP_DESC)
#undef SIM_STAT_CHIP_DESC
};

static const sim_stat_desc core_descs[] = {
#define SIM_STAT_CORE_DESC(name, unit, desc) {#name, unit, desc, offsetof(sim_core_stats, name)},
    SIM_STAT_CORE_TABLE(SIM_STAT_CORE_DESC)
#undef SIM_STAT_CORE_DESC
};

size_t sim_stats_chip_count(void) { return sizeof chip_descs / sizeof chip_descs[0]; }

const sim_stat_desc *sim_stats_chip_desc(size_t i) {
  return i < sim_stats_chip_count() ? &chip_descs[i] : NULL;
}

uint64_t sim_stats_chip_value(const sim_stats *s, size_t i) {
  return *(const uint64_t *)((const char *)s + chip_descs[i].offset);
}

size_t sim_stats_core_count(void) { return sizeof core_descs / sizeof core_descs[0]; }

const sim_stat_desc *sim_stats_core_desc(size_t i) {
  return i < sim_stats_core_count() ? &core_descs[i] : NULL;
}

uint64_t sim_stats_core_value(const sim_core_stats *c, size_t i) {
  return *(const uint64_t *)((const char *)c + core_descs[i].offset);
}

uint64_t sim_stats_path_bytes_total(const sim_stats *s, isa_path p) {
  uint64_t t = 0;
  for (unsigned c = 0; c < s->cores; c++) t += s->core[c].path_bytes[p];
  return t;
}


void sim_mmad_l0_bytes(const isa_fmt_mmad *mm, uint64_t bytes[SIM_L0_COUNT]) {
  uint64_t bits = isa_dtype_bits((isa_dtype)mm->dtype);
  uint64_t k0 = bits ? 256 / bits : 16; /* elements of 32 bytes */
  uint64_t m16 = ((uint64_t)mm->m + 15) / 16 * 16, n16 = ((uint64_t)mm->n + 15) / 16 * 16;
  uint64_t kp = ((uint64_t)mm->k + k0 - 1) / k0 * k0;
  bytes[SIM_L0A_READ] += m16 * kp * bits / 8; /* m16 * bits is a multiple of 8 */
  bytes[SIM_L0B_READ] += kp * n16 * bits / 8;
  bytes[SIM_L0C_WRITE] += m16 * n16 * 4;
  if (!mm->init_c) bytes[SIM_L0C_READ] += m16 * n16 * 4;
}
