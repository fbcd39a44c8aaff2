/* sim_l2 — set-associative LRU tag store with dirty lines. */
#include "sim/sim_l2.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

cs_status sim_l2_init(sim_l2 *l2, uint64_t bytes, uint64_t line_bytes, uint64_t ways, cs_err *err) {
  memset(l2, 0, sizeof *l2);
  l2->line_bytes = line_bytes;
  l2->ways = ways;
  l2->sets = bytes / (line_bytes * ways);
  l2->tags = calloc(l2->sets * ways, sizeof *l2->tags);
  l2->stamps = calloc(l2->sets * ways, sizeof *l2->stamps);
  l2->dirty = calloc(l2->sets * ways, sizeof *l2->dirty);
  if (!l2->tags || !l2->stamps || !l2->dirty) {
    sim_l2_free(l2);
    return cs_err_set(err, CS_ENOMEM, "L2: no host memory for %" PRIu64 " tags", bytes / line_bytes);
  }
  return CS_OK;
}

void sim_l2_free(sim_l2 *l2) {
  free(l2->tags);
  free(l2->stamps);
  free(l2->dirty);
  memset(l2, 0, sizeof *l2);
}

/* The set of a line: its address hashed (as large caches spread addresses over their slices and
 * sets), so that strides of a power of two do not crowd a few sets. */
static uint64_t set_of(const sim_l2 *l2, uint64_t line) {
  uint64_t x = line;
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  x ^= x >> 33;
  return x % l2->sets;
}

/* Looks line up; on a miss the LRU way of its set is replaced (a dirty victim is written back).
 * Returns 1 on a hit. */
static int touch_line(sim_l2 *l2, uint64_t line, int write, sim_l2_result *res) {
  uint64_t base = set_of(l2, line) * l2->ways;
  uint64_t *tags = l2->tags + base, *stamps = l2->stamps + base;
  uint8_t *dirty = l2->dirty + base;
  uint64_t victim = 0;
  l2->clock++;
  for (uint64_t w = 0; w < l2->ways; w++) {
    if (tags[w] == line + 1) {
      stamps[w] = l2->clock;
      if (write && !dirty[w]) dirty[w] = 1, l2->dirty_lines++;
      return 1;
    }
    if (stamps[w] < stamps[victim]) victim = w;
  }
  if (dirty[victim]) {
    res->writeback_lines++;
    l2->dirty_lines--;
  }
  tags[victim] = line + 1;
  stamps[victim] = l2->clock;
  dirty[victim] = (uint8_t)write;
  if (write) l2->dirty_lines++;
  else res->fill_lines++;
  return 0;
}

void sim_l2_access(sim_l2 *l2, const isa_range *r, sim_l2_result *res) {
  uint64_t lb = l2->line_bytes;
  uint64_t last_line = UINT64_MAX; /* a line shared by consecutive runs is looked up once */
  int last_hit = 0, write = r->write != 0;
  for (uint64_t row = 0; row < r->rows; row++) {
    uint64_t lo = r->base + row * r->stride_bytes, hi = lo + r->row_bytes;
    for (uint64_t line = lo / lb; line * lb < hi; line++) {
      uint64_t a = line * lb > lo ? line * lb : lo;
      uint64_t b = (line + 1) * lb < hi ? (line + 1) * lb : hi;
      if (line != last_line) {
        last_hit = touch_line(l2, line, write, res);
        last_line = line;
      }
      if (last_hit) res->hit_bytes += b - a;
      else res->miss_bytes += b - a;
    }
  }
}
