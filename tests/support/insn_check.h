/* insn_check — assertions on an instruction family's own verdicts: what isa_insn_check refuses
 * (every field of the fault) and the ranges isa_insn_ranges reports (field by field, or as the
 * set of bytes they cover). */
#ifndef TESTS_INSN_CHECK_H
#define TESTS_INSN_CHECK_H

#include <stddef.h>
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

/* The bytes the n ranges cover, marked with 1 in read_set (read ranges, each of read_mem) and
 * write_set (write ranges, each of write_mem); the sets are not cleared first. */
void ic_mark_ranges(const isa_range *r, size_t n, isa_mem read_mem, uint8_t *read_set, isa_mem write_mem,
                    uint8_t *write_set);

#endif
