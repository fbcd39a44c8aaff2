/* isa_testmach — a small fake isa_mach for tests: one zeroed host array per isa_mem.
 *
 * itm_run plays the part sim/ plays for real instructions (isa_insn_check, bounds of every
 * range, then isa_insn_exec) and also checks the instruction's honesty: while it executes, every
 * byte the family asks `ptr` for must lie in one of its ranges, and afterwards every byte that
 * changed must lie in one of its write ranges. A breach of either is a cmocka failure (a bug of
 * the family, not a fault of the program).
 */
#ifndef ISA_TESTMACH_H
#define ISA_TESTMACH_H

#include <stdbool.h>
#include <stdint.h>

#include "isa/isa_insn.h"

typedef struct isa_testmach isa_testmach;

/* bytes[m] is the size of memory m (0 allowed: nothing can be accessed). The memories start
 * zeroed; the environment starts as the hardware default (fixpipe saturation on). NULL when out
 * of memory. */
isa_testmach *itm_create(const uint64_t bytes[ISA_MEM_COUNT]);
void itm_destroy(isa_testmach *t);

/* The machine as isa_insn_exec sees it, with the given environment. Its ptr fails the running
 * test on an access beyond a memory's size. */
isa_mach itm_mach(isa_testmach *t, isa_env env);
/* The environment itm_run uses. */
void itm_set_env(isa_testmach *t, isa_env env);
/* The kernel workspace itm_mach and itm_run give the instruction (isa/isa_kernel.h; NULL, the
 * default: the best kernel, scratch allocated per instruction). Not owned. */
void itm_set_host(isa_testmach *t, isa_host *host);

/* Host address of memory m, and its size in bytes. */
uint8_t *itm_mem(isa_testmach *t, isa_mem m);
uint64_t itm_size(const isa_testmach *t, isa_mem m);

/* isa_insn_check, then every range of isa_insn_ranges against the memory sizes (fault
 * ISA_FAULT_OUT_OF_BOUNDS, operand "dst" for a write range and "src" for a read range, value
 * the range's end, limit the memory's size), then isa_insn_exec. Returns false with *f filled
 * (f may be NULL) when the instruction faults; nothing is then changed. */
bool itm_run(isa_testmach *t, const isa_insn *in, isa_fault *f);

#endif
