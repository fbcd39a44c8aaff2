/* sim_l2 — set-associative LRU tag store with dirty lines. */
#include "sim/sim_l2.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A tag word: the line address + 1 (0: the way is empty), and SIM_L2_DIRTY while the way holds
 * data not yet written back. Line addresses are GM byte addresses / line_bytes (>= 32), far below
 * 2^63. */
#define SIM_L2_DIRTY (UINT64_C(1) << 63)

/* Lines looked up together: their sets are fetched from host memory ahead of their turn (the tag
 * store is far larger than the host's caches), then touched in address order. */
#define L2_BATCH 16
/* Host cache lines of a set fetched ahead (a set is 2 x ways words). */
#define L2_PREFETCH_LINES 8

cs_status sim_l2_init(sim_l2 *l2, uint64_t bytes, uint64_t line_bytes, uint64_t ways, cs_err *err) {
  memset(l2, 0, sizeof *l2);
  l2->line_bytes = line_bytes;
  l2->ways = ways;
  l2->sets = bytes / (line_bytes * ways);
  l2->set_mask = (l2->sets & (l2->sets - 1)) == 0 ? l2->sets - 1 : 0;
  l2->words = calloc(l2->sets * ways * 2, sizeof *l2->words);
  if (!l2->words) {
    sim_l2_free(l2);
    return cs_err_set(err, CS_ENOMEM, "L2: no host memory for %" PRIu64 " tags", bytes / line_bytes);
  }
  return CS_OK;
}

void sim_l2_free(sim_l2 *l2) {
  free(l2->words);
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
  return l2->set_mask ? x & l2->set_mask : x % l2->sets;
}

/* The words of line's set: its ways' tags, then their last uses (for LRU). */
static uint64_t *set_words(const sim_l2 *l2, uint64_t line) { return l2->words + set_of(l2, line) * l2->ways * 2; }

/* Looks line up in its set; on a miss the LRU way (the first of the least recently used, so
 * empty ways fill in order) is replaced, a dirty victim written back. Returns 1 on a hit. */
static int touch_line(sim_l2 *l2, uint64_t *set, uint64_t line, int write, sim_l2_result *res) {
  uint64_t ways = l2->ways, *tags = set, *stamps = set + ways, want = line + 1;
  l2->clock++;
  for (uint64_t w = 0; w < ways; w++)
    if ((tags[w] & ~SIM_L2_DIRTY) == want) {
      stamps[w] = l2->clock;
      if (write && !(tags[w] & SIM_L2_DIRTY)) tags[w] |= SIM_L2_DIRTY, l2->dirty_lines++;
      return 1;
    }
  uint64_t victim = 0;
  for (uint64_t w = 1; w < ways; w++)
    if (stamps[w] < stamps[victim]) victim = w;
  if (tags[victim] & SIM_L2_DIRTY) {
    res->writeback_lines++;
    l2->dirty_lines--;
  }
  tags[victim] = want | (write ? SIM_L2_DIRTY : 0);
  stamps[victim] = l2->clock;
  if (write) l2->dirty_lines++;
  else res->fill_lines++;
  return 0;
}

/* Distinct lines in address order, each with the bytes the range has in it and its set. */
typedef struct l2_batch {
  unsigned n;
  uint64_t line[L2_BATCH], bytes[L2_BATCH];
  uint64_t *set[L2_BATCH];
} l2_batch;

static void batch_flush(sim_l2 *l2, l2_batch *b, int write, sim_l2_result *res) {
  for (unsigned i = 0; i < b->n; i++) {
    if (touch_line(l2, b->set[i], b->line[i], write, res)) res->hit_bytes += b->bytes[i];
    else res->miss_bytes += b->bytes[i];
  }
  b->n = 0;
}

void sim_l2_access(sim_l2 *l2, const isa_range *r, sim_l2_result *res) {
  uint64_t lb = l2->line_bytes, set_bytes = l2->ways * 2 * sizeof *l2->words;
  if (set_bytes > L2_PREFETCH_LINES * 64) set_bytes = L2_PREFETCH_LINES * 64;
  int write = r->write != 0;
  l2_batch b;
  b.n = 0;
  /* a line shared by consecutive runs is looked up once: its bytes join the batch's last entry,
   * which a flush never leaves behind (the batch is flushed only for a new line) */
  uint64_t last_line = UINT64_MAX;
  for (uint64_t row = 0; row < r->rows; row++) {
    uint64_t lo = r->base + row * r->stride_bytes, hi = lo + r->row_bytes;
    for (uint64_t line = lo / lb; line * lb < hi; line++) {
      uint64_t a = line * lb > lo ? line * lb : lo;
      uint64_t e = (line + 1) * lb < hi ? (line + 1) * lb : hi;
      if (line == last_line) {
        b.bytes[b.n - 1] += e - a;
        continue;
      }
      if (b.n == L2_BATCH) batch_flush(l2, &b, write, res);
      uint64_t *set = set_words(l2, line);
      for (uint64_t o = 0; o < set_bytes; o += 64) __builtin_prefetch((const char *)set + o, 1);
      b.line[b.n] = line;
      b.bytes[b.n] = e - a;
      b.set[b.n++] = set;
      last_line = line;
    }
  }
  batch_flush(l2, &b, write, res);
}
