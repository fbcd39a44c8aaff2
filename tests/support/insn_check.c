/* insn_check — assertions on an instruction family's own verdicts (see insn_check.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "support/insn_check.h"

void ic_fault(const isa_insn *in, isa_fault_cause cause, const char *operand, uint64_t value,
              uint64_t limit, const char *msg) {
  isa_fault f;
  memset(&f, 0, sizeof f);
  assert_false(isa_insn_check(in, &f));
  assert_string_equal(f.msg, msg);
  assert_int_equal(f.cause, cause);
  assert_string_equal(f.operand, operand);
  assert_int_equal(f.value, value);
  assert_int_equal(f.limit, limit);
}

void ic_ok(const isa_insn *in) {
  isa_fault f;
  memset(&f, 0, sizeof f);
  if (!isa_insn_check(in, &f)) fail_msg("unexpected fault: %s", f.msg);
}

void ic_range(const isa_range *r, isa_mem mem, unsigned write, uint64_t base, uint64_t row_bytes,
              uint64_t stride_bytes, uint64_t rows) {
  assert_int_equal(r->mem, mem);
  assert_int_equal(r->write, write);
  assert_int_equal(r->base, base);
  assert_int_equal(r->row_bytes, row_bytes);
  assert_int_equal(r->stride_bytes, stride_bytes);
  assert_int_equal(r->rows, rows);
}

void ic_mark_ranges(const isa_range *r, size_t n, isa_mem read_mem, uint8_t *read_set, isa_mem write_mem,
                    uint8_t *write_set) {
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(r[i].mem, r[i].write ? write_mem : read_mem);
    uint8_t *set = r[i].write ? write_set : read_set;
    for (uint64_t row = 0; row < r[i].rows; row++)
      memset(set + r[i].base + row * r[i].stride_bytes, 1, r[i].row_bytes);
  }
}
