/* sim_buf — segments, bounds checks and the GM bump allocator. */
#include "sim/sim_buf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_status add_seg(sim_buf *b, uint64_t base, uint64_t bytes, const char *name, cs_err *err) {
  if (b->seg_count == b->seg_cap) {
    uint32_t cap = b->seg_cap ? b->seg_cap * 2 : 8;
    sim_seg *s = realloc(b->segs, cap * sizeof *s);
    if (!s) return cs_err_set(err, CS_ENOMEM, "%s: no host memory for a segment table", isa_mem_name(b->mem));
    b->segs = s;
    b->seg_cap = cap;
  }
  sim_seg *s = &b->segs[b->seg_count];
  memset(s, 0, sizeof *s);
  s->base = base;
  s->bytes = bytes;
  snprintf(s->name, sizeof s->name, "%s", name);
  if (b->backed && bytes) {
    s->data = calloc(1, bytes);
    if (!s->data)
      return cs_err_set(err, CS_ENOMEM, "%s: no host memory for %" PRIu64 " bytes of '%s'",
                        isa_mem_name(b->mem), bytes, name);
  }
  b->seg_count++;
  return CS_OK;
}

cs_status sim_buf_init_onchip(sim_buf *b, isa_mem mem, uint64_t bytes, uint64_t align_bytes,
                              bool backed, cs_err *err) {
  memset(b, 0, sizeof *b);
  b->mem = mem;
  b->capacity_bytes = bytes;
  b->align_bytes = align_bytes;
  b->backed = backed;
  return add_seg(b, 0, bytes, isa_mem_name(mem), err);
}

void sim_buf_init_gm(sim_buf *b, uint64_t capacity_bytes, uint64_t align_bytes, bool backed) {
  memset(b, 0, sizeof *b);
  b->mem = ISA_MEM_GM;
  b->capacity_bytes = capacity_bytes;
  b->align_bytes = align_bytes;
  b->backed = backed;
}

void sim_buf_free(sim_buf *b) {
  for (uint32_t i = 0; i < b->seg_count; i++) free(b->segs[i].data);
  free(b->segs);
  memset(b, 0, sizeof *b);
}

cs_status sim_buf_alloc(sim_buf *b, const char *name, uint64_t bytes, uint64_t align,
                        uint64_t *addr, cs_err *err) {
  if (align < 512) align = 512;
  uint64_t base = (b->next_free + align - 1) / align * align;
  uint64_t size = bytes ? bytes : 1;
  if (base > b->capacity_bytes || size > b->capacity_bytes - base)
    return cs_err_set(err, CS_EINVAL,
                      "GM: tensor '%s' of %" PRIu64 " bytes does not fit: %" PRIu64
                      " of %" PRIu64 " bytes are in use",
                      name, bytes, b->next_free, b->capacity_bytes);
  cs_status st = add_seg(b, base, size, name, err);
  if (st != CS_OK) return st;
  b->next_free = base + size;
  *addr = base;
  return CS_OK;
}

const sim_seg *sim_buf_find(const sim_buf *b, uint64_t addr, uint64_t bytes) {
  /* segments are sorted by base: binary search for the last base <= addr */
  uint32_t lo = 0, hi = b->seg_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (b->segs[mid].base <= addr) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return NULL;
  const sim_seg *s = &b->segs[lo - 1];
  if (addr - s->base > s->bytes || bytes > s->bytes - (addr - s->base)) return NULL;
  return s;
}

uint8_t *sim_buf_ptr(const sim_buf *b, uint64_t addr, uint64_t bytes) {
  const sim_seg *s = sim_buf_find(b, addr, bytes);
  return s && s->data ? s->data + (addr - s->base) : NULL;
}

bool sim_buf_check_range(const sim_buf *b, const isa_range *r, isa_fault *f) {
  if (r->rows == 0 || r->row_bytes == 0) return true;
  uint64_t end = isa_range_end(r);
  const char *mem = isa_mem_name(b->mem);
  const char *what = r->write ? "write" : "read";
  if (end < r->base) /* wrapped around 2^64 */
    return isa_fault_set(f, ISA_FAULT_OUT_OF_BOUNDS, "", r->base, b->capacity_bytes,
                         "%s of %s at 0x%" PRIx64 " overflows the address space", what, mem, r->base);
  if (b->mem != ISA_MEM_GM) {
    if (end > b->capacity_bytes)
      return isa_fault_set(f, ISA_FAULT_OUT_OF_BOUNDS, "", end, b->capacity_bytes,
                           "%s of %s [0x%" PRIx64 ", 0x%" PRIx64 ") goes past its %" PRIu64
                           " bytes",
                           what, mem, r->base, end, b->capacity_bytes);
    return true;
  }
  /* GM: the whole span must lie in one tensor (strided accesses never jump between tensors) */
  if (!sim_buf_find(b, r->base, end - r->base)) {
    const sim_seg *s = sim_buf_find(b, r->base, 1);
    if (s)
      return isa_fault_set(f, ISA_FAULT_GM_UNMAPPED, "", end, s->base + s->bytes,
                           "GM %s [0x%" PRIx64 ", 0x%" PRIx64 ") runs past the end of tensor '%s' "
                           "[0x%" PRIx64 ", 0x%" PRIx64 ")",
                           what, r->base, end, s->name, s->base, s->base + s->bytes);
    return isa_fault_set(f, ISA_FAULT_GM_UNMAPPED, "", r->base, 0,
                         "GM %s at 0x%" PRIx64 " is outside every allocated tensor", what, r->base);
  }
  return true;
}
