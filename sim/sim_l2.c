/* sim_l2 — set-associative LRU tag store. */
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
  if (!l2->tags || !l2->stamps) {
    sim_l2_free(l2);
    return cs_err_set(err, CS_ENOMEM, "L2: no host memory for %" PRIu64 " tags", bytes / line_bytes);
  }
  return CS_OK;
}

void sim_l2_free(sim_l2 *l2) {
  free(l2->tags);
  free(l2->stamps);
  memset(l2, 0, sizeof *l2);
}

/* Returns 1 on a hit; on a miss the LRU way of the set is replaced. */
static int touch_line(sim_l2 *l2, uint64_t line) {
  uint64_t set = line % l2->sets;
  uint64_t *tags = l2->tags + set * l2->ways;
  uint64_t *stamps = l2->stamps + set * l2->ways;
  uint64_t victim = 0;
  l2->clock++;
  for (uint64_t w = 0; w < l2->ways; w++) {
    if (tags[w] == line + 1) {
      stamps[w] = l2->clock;
      return 1;
    }
    if (stamps[w] < stamps[victim]) victim = w;
  }
  tags[victim] = line + 1;
  stamps[victim] = l2->clock;
  return 0;
}

void sim_l2_access(sim_l2 *l2, const isa_range *r, sim_l2_result *res) {
  uint64_t lb = l2->line_bytes;
  uint64_t last_line = UINT64_MAX; /* a line shared by consecutive runs is looked up once */
  int last_hit = 0;
  for (uint64_t row = 0; row < r->rows; row++) {
    uint64_t lo = r->base + row * r->stride_bytes, hi = lo + r->row_bytes;
    for (uint64_t line = lo / lb; line * lb < hi; line++) {
      uint64_t a = line * lb > lo ? line * lb : lo;
      uint64_t b = (line + 1) * lb < hi ? (line + 1) * lb : hi;
      if (line != last_line) {
        last_hit = touch_line(l2, line);
        last_line = line;
      }
      if (last_hit) res->hit_bytes += b - a;
      else res->miss_bytes += b - a;
    }
  }
}
