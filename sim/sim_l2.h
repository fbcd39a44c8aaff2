/* sim_l2 — the chip-wide L2 cache in front of HBM (docs/DESIGN.md §6): set-associative (lines hashed to
 * sets), LRU,
 * write-back and write-allocate. It decides, line by line, what each GM access costs HBM: a
 * read that misses fills its whole line from HBM, a write that misses allocates its line without
 * reading it (the written bytes are tracked as dirty), and every dirty line the allocation evicts
 * is written back to HBM whole. Bandwidth and time are the engine's business. */
#ifndef SIM_L2_H
#define SIM_L2_H

#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"

typedef struct sim_l2 {
  uint64_t line_bytes;
  uint64_t sets, ways;
  uint64_t set_mask; /* sets - 1 when sets is a power of two, else 0 */
  uint64_t *words;  /* per set, together: its ways' tags (line address + 1, 0 = empty; the top
                     * bit set while the line is dirty, i.e. holds data not yet written back to
                     * HBM), then their last uses (for LRU) */
  uint64_t clock;   /* use counter */
  uint64_t dirty_lines; /* lines dirty now */
} sim_l2;

/* What one access (or several, added up) cost. */
typedef struct sim_l2_result {
  uint64_t hit_bytes;       /* bytes whose line was resident */
  uint64_t miss_bytes;      /* bytes whose line was not resident */
  uint64_t fill_lines;      /* lines read from HBM (read misses) */
  uint64_t writeback_lines; /* dirty lines evicted, written back to HBM */
} sim_l2_result;

cs_status sim_l2_init(sim_l2 *l2, uint64_t bytes, uint64_t line_bytes, uint64_t ways, cs_err *err);
void sim_l2_free(sim_l2 *l2);
/* Looks up (and allocates) every line the range touches, in address order; a write range makes
 * its lines dirty. Adds to *res. */
void sim_l2_access(sim_l2 *l2, const isa_range *r, sim_l2_result *res);

#endif
