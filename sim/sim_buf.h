/* sim_buf — the one bounds-checked buffer type behind every memory level (GM, L1, L0A, L0B, L0C,
 * UB, BT, FB).
 *
 * A buffer is a set of non-overlapping segments in one address space. On-chip buffers have a
 * single segment [0, bytes) created with the buffer; GM gets one segment per allocated tensor,
 * so an access outside every tensor is caught. A segment may be unbacked (timing-only runs):
 * its bounds are checked but it stores no data.
 */
#ifndef SIM_BUF_H
#define SIM_BUF_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"

typedef struct sim_seg {
  uint64_t base;  /* first byte's address */
  uint64_t bytes; /* the segment is [base, base + bytes) */
  uint8_t *data;  /* host storage, or NULL when unbacked */
  char name[48];  /* tensor name (GM) or the buffer's name */
} sim_seg;

typedef struct sim_buf {
  isa_mem mem;
  uint64_t capacity_bytes; /* address space size */
  uint64_t align_bytes;    /* alignment every operand address must have */
  bool backed;             /* segments carry data */
  sim_seg *segs;           /* sorted by base */
  uint32_t seg_count, seg_cap;
  uint64_t next_free;      /* GM: bump allocator cursor */
} sim_buf;

/* An on-chip buffer: one segment [0, bytes), zero-filled when backed. */
cs_status sim_buf_init_onchip(sim_buf *b, isa_mem mem, uint64_t bytes, uint64_t align_bytes,
                              bool backed, cs_err *err);
/* An empty GM address space of capacity_bytes. */
void sim_buf_init_gm(sim_buf *b, uint64_t capacity_bytes, uint64_t align_bytes, bool backed);
void sim_buf_free(sim_buf *b);

/* GM: allocates a zero-filled tensor segment of `bytes` at an address aligned to `align`
 * (at least 512 bytes, so tensors never share an L2 line). */
cs_status sim_buf_alloc(sim_buf *b, const char *name, uint64_t bytes, uint64_t align,
                        uint64_t *addr, cs_err *err);

/* The segment holding [addr, addr + bytes), or NULL if the range is not inside one segment. */
const sim_seg *sim_buf_find(const sim_buf *b, uint64_t addr, uint64_t bytes);
/* Host pointer to [addr, addr + bytes) (NULL if not inside one backed segment). */
uint8_t *sim_buf_ptr(const sim_buf *b, uint64_t addr, uint64_t bytes);

/* Checks that every byte of r lies in one segment of b (fault OUT_OF_BOUNDS or GM_UNMAPPED). */
bool sim_buf_check_range(const sim_buf *b, const isa_range *r, isa_fault *f);

#endif
