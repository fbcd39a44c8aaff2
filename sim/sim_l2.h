/* sim_l2 — the chip-wide L2 cache in front of HBM (docs/DESIGN.md §6): set-associative (lines hashed to
 * sets), LRU, write-back and write-allocate. It decides, line by line, what each GM access costs
 * HBM: a read that misses fills its whole line from HBM, a write that misses allocates its line
 * without reading it (the written bytes are tracked as dirty), and every dirty line the
 * allocation evicts is written back to HBM whole. Bandwidth and time are the engine's business. */
#ifndef SIM_L2_H
#define SIM_L2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"

typedef struct sim_l2 {
  uint64_t line_bytes;
  uint64_t sets, ways;
  uint64_t set_mask; /* sets - 1 when sets is a power of two, else 0 */
  /* else sets = set_odd << set_shift, and a hash modulo sets is its low set_shift bits beside
   * its high ones modulo set_odd, found by multiplications with set_magic (sim_l2_set_of) */
  unsigned set_shift;
  uint64_t set_odd;
#if defined(__SIZEOF_INT128__)
  unsigned __int128 set_magic;
#endif
  unsigned line_shift; /* log2(line_bytes) when a power of two above 1, else 0 (a division) */
  /* Per set, together (set_bytes, a whole number of host cache lines, the first aligned): its
   * ways' tags, then their last uses (32-bit stamps of clock, for LRU). A tag is the line
   * address + 1 (0: the way is empty) with its top bit set while the line is dirty, i.e. holds
   * data not yet written back to HBM: 32 bits when every GM line's address + 1 fits in 31
   * (GM up to 1 TiB with 512-byte lines), else 64 (wide). */
  bool wide;
  size_t set_bytes;
  unsigned char *sets_mem;
  uint64_t clock;       /* the last use's stamp */
  uint64_t stamp_limit; /* the stamp after which a set's stamps are renumbered (UINT32_MAX) */
  uint64_t dirty_lines; /* lines dirty now */
} sim_l2;

/* What one access (or several, added up) cost. */
typedef struct sim_l2_result {
  uint64_t hit_bytes;       /* bytes whose line was resident */
  uint64_t miss_bytes;      /* bytes whose line was not resident */
  uint64_t fill_lines;      /* lines read from HBM (read misses) */
  uint64_t writeback_lines; /* dirty lines evicted, written back to HBM */
} sim_l2_result;

/* A cache of `bytes` (a whole number of sets of `ways` lines of line_bytes) in front of a GM of
 * gm_bytes. */
cs_status sim_l2_init(sim_l2 *l2, uint64_t bytes, uint64_t line_bytes, uint64_t ways, uint64_t gm_bytes,
                      cs_err *err);
void sim_l2_free(sim_l2 *l2);
/* Looks up (and allocates) every line the range touches, in address order; a line consecutive
 * runs share is looked up once; a write range makes its lines dirty. Adds to *res. */
void sim_l2_access(sim_l2 *l2, const isa_range *r, sim_l2_result *res);
/* The set a line maps to: its address hashed, modulo sets. */
uint64_t sim_l2_set_of(const sim_l2 *l2, uint64_t line);

#endif
