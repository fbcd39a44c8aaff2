/* isa_testmach — the fake machine of tests/support/isa_testmach.h. */
#include "support/isa_testmach.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

/* Flags of `cover`, per byte, while itm_run executes an instruction. */
#define ITM_COVER_READ 1u
#define ITM_COVER_WRITE 2u

struct isa_testmach {
  uint64_t size[ISA_MEM_COUNT];
  uint8_t *mem[ISA_MEM_COUNT];
  uint8_t *before[ISA_MEM_COUNT]; /* itm_run: the memories before exec */
  uint8_t *cover[ISA_MEM_COUNT];  /* itm_run: ITM_COVER_* of the instruction's ranges */
  bool running;
  isa_env env;
  isa_host *host; /* NULL: the default kernel */
};

static uint8_t *itm_ptr(void *ctx, isa_mem m, uint64_t off, uint64_t bytes) {
  isa_testmach *t = ctx;
  if ((unsigned)m >= ISA_MEM_COUNT) fail_msg("isa_testmach: ptr to memory %u", (unsigned)m);
  if (off > t->size[m] || bytes > t->size[m] - off)
    fail_msg("isa_testmach: ptr(%s, %llu, %llu) beyond its %llu bytes", isa_mem_name(m),
             (unsigned long long)off, (unsigned long long)bytes, (unsigned long long)t->size[m]);
  if (t->running)
    for (uint64_t i = 0; i < bytes; i++)
      if (!t->cover[m][off + i])
        fail_msg("isa_testmach: ptr(%s, %llu, %llu) reaches byte %llu, outside every range of "
                 "the instruction",
                 isa_mem_name(m), (unsigned long long)off, (unsigned long long)bytes,
                 (unsigned long long)(off + i));
  return t->mem[m] + off;
}

isa_testmach *itm_create(const uint64_t bytes[ISA_MEM_COUNT]) {
  isa_testmach *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->env.fixpipe_saturation = true;
  for (int m = 0; m < ISA_MEM_COUNT; m++) {
    size_t n = bytes[m] ? (size_t)bytes[m] : 1;
    t->size[m] = bytes[m];
    t->mem[m] = calloc(n, 1);
    t->before[m] = malloc(n);
    t->cover[m] = calloc(n, 1);
    if (!t->mem[m] || !t->before[m] || !t->cover[m]) {
      itm_destroy(t);
      return NULL;
    }
  }
  return t;
}

void itm_destroy(isa_testmach *t) {
  if (!t) return;
  for (int m = 0; m < ISA_MEM_COUNT; m++) {
    free(t->mem[m]);
    free(t->before[m]);
    free(t->cover[m]);
  }
  free(t);
}

isa_mach itm_mach(isa_testmach *t, isa_env env) {
  isa_mach m = {t, itm_ptr, env, t->host};
  return m;
}

void itm_set_env(isa_testmach *t, isa_env env) { t->env = env; }

void itm_set_host(isa_testmach *t, isa_host *host) { t->host = host; }

uint8_t *itm_mem(isa_testmach *t, isa_mem m) { return t->mem[m]; }

uint64_t itm_size(const isa_testmach *t, isa_mem m) { return t->size[m]; }

static void mark(isa_testmach *t, const isa_range *r) {
  uint8_t flag = r->write ? ITM_COVER_WRITE : ITM_COVER_READ;
  for (uint64_t i = 0; i < r->rows; i++)
    for (uint64_t b = 0; b < r->row_bytes; b++) t->cover[r->mem][r->base + i * r->stride_bytes + b] |= flag;
}

bool itm_run(isa_testmach *t, const isa_insn *in, isa_fault *f) {
  if (!isa_insn_check(in, f)) return false;
  isa_range r[ISA_MAX_RANGES + 1];
  size_t n = isa_insn_ranges(in, r);
  assert_true(n <= ISA_MAX_RANGES);
  const char *mn = isa_op_info((isa_op)in->op)->mnemonic;
  for (size_t i = 0; i < n; i++) {
    if (r[i].mem >= ISA_MEM_COUNT)
      fail_msg("isa_testmach: %s: range %zu names memory %u", mn, i, (unsigned)r[i].mem);
    uint64_t end = isa_range_end(&r[i]);
    if (end > t->size[r[i].mem])
      return isa_fault_set(f, ISA_FAULT_OUT_OF_BOUNDS, r[i].write ? "dst" : "src", end,
                           t->size[r[i].mem], "%s: %s range [%llu, %llu) of %s is beyond its %llu bytes",
                           mn, r[i].write ? "write" : "read", (unsigned long long)r[i].base,
                           (unsigned long long)end, isa_mem_name((isa_mem)r[i].mem),
                           (unsigned long long)t->size[r[i].mem]);
  }
  for (int m = 0; m < ISA_MEM_COUNT; m++) {
    memcpy(t->before[m], t->mem[m], t->size[m]);
    memset(t->cover[m], 0, t->size[m]);
  }
  for (size_t i = 0; i < n; i++) mark(t, &r[i]);
  isa_mach mach = itm_mach(t, t->env);
  t->running = true;
  isa_insn_exec(in, &mach);
  t->running = false;
  for (int m = 0; m < ISA_MEM_COUNT; m++)
    for (uint64_t b = 0; b < t->size[m]; b++)
      if (t->mem[m][b] != t->before[m][b] && !(t->cover[m][b] & ITM_COVER_WRITE))
        fail_msg("isa_testmach: %s changed %s byte %llu, outside its write ranges", mn,
                 isa_mem_name((isa_mem)m), (unsigned long long)b);
  return true;
}
