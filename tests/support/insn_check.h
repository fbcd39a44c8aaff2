/* insn_check — assertions on an instruction family's own verdicts: what isa_insn_check refuses
 * (every field of the fault) and the ranges isa_insn_ranges reports. */
#ifndef TESTS_INSN_CHECK_H
#define TESTS_INSN_CHECK_H

#include <stdint.h>

#include "isa/isa_insn.h"

/* isa_insn_check refuses `in` with exactly this fault. */
void ic_fault(const isa_insn *in, isa_fault_cause cause, const char *operand, uint64_t value,
              uint64_t limit, const char *msg);
/* isa_insn_check accepts `in` (a refusal fails the test with the fault's message). */
void ic_ok(const isa_insn *in);
/* Every field of one range. */
void ic_range(const isa_range *r, isa_mem mem, unsigned write, uint64_t base, uint64_t row_bytes,
              uint64_t stride_bytes, uint64_t rows);

#endif
