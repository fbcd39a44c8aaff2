/* sim_l2 — the chip-wide L2 cache in front of HBM (docs/DESIGN.md §6): set-associative, LRU,
 * write-allocate. It only decides hit or miss per line; bandwidth is the engine's business. */
#ifndef SIM_L2_H
#define SIM_L2_H

#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"

typedef struct sim_l2 {
  uint64_t line_bytes;
  uint64_t sets, ways;
  uint64_t *tags;   /* sets * ways; line address + 1, 0 = empty */
  uint64_t *stamps; /* last use, for LRU */
  uint64_t clock;   /* use counter */
} sim_l2;

typedef struct sim_l2_result {
  uint64_t hit_bytes;  /* bytes whose line was resident */
  uint64_t miss_bytes; /* bytes whose line was fetched (reads) or allocated (writes) */
} sim_l2_result;

cs_status sim_l2_init(sim_l2 *l2, uint64_t bytes, uint64_t line_bytes, uint64_t ways, cs_err *err);
void sim_l2_free(sim_l2 *l2);
/* Looks up (and allocates) every line the range touches, in address order; adds to *res. */
void sim_l2_access(sim_l2 *l2, const isa_range *r, sim_l2_result *res);

#endif
