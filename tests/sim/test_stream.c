/* sim_stream: the compact records give back every instruction bit for bit.
 *   - every opcode, its fields all zero, all at their largest values (a varint of every length)
 *     and at mixed values: each field read back through the table's descriptors (isa_insn.h)
 *     equals the one appended, every byte outside the fields is zero, and no record is longer
 *     than SIM_STREAM_MAX_RECORD (the room sim_stream_append makes);
 *   - a cursor reads them back in order, and sim_stream_get at any index agrees with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sim/sim_stream.h"

/* A value for field i of an instruction of pattern `which`: 0 zeros, 1 the largest, 2 mixed. */
static uint64_t value_of(int which, size_t i, uint64_t *seed) {
  if (which == 0) return 0;
  if (which == 1) return UINT64_MAX;
  *seed ^= *seed << 13, *seed ^= *seed >> 7, *seed ^= *seed << 17;
  unsigned bits = (unsigned)(i * 7 % 64) + 1; /* 1 to 64 significant bits */
  return bits == 64 ? *seed : *seed & ((UINT64_C(1) << bits) - 1);
}

/* The instruction of op with pattern `which`, built through the descriptors alone. */
static void build(isa_op op, int which, isa_insn *in) {
  const isa_op_desc *d = isa_op_info(op);
  uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)op * 977 ^ (uint64_t)which;
  memset(in, 0, sizeof *in);
  in->op = (uint32_t)op;
  for (size_t i = 0; i < d->field_count; i++) {
    const isa_field_desc *f = &d->fields[i];
    unsigned char *at = isa_field_ptr(in, f);
    uint64_t v = value_of(which, i, &seed);
    if (f->kind == ISA_FK_ADDR) {
      uint32_t mem = (uint32_t)value_of(which, i + 1, &seed);
      memcpy(at + offsetof(isa_addr, mem), &mem, sizeof mem);
      memcpy(at + offsetof(isa_addr, off), &v, sizeof v);
    } else if (f->kind == ISA_FK_U64) {
      memcpy(at, &v, sizeof v);
    } else {
      uint32_t w = (uint32_t)v;
      memcpy(at, &w, sizeof w);
    }
  }
}

static void test_stream_every_op_round_trips(void **state) {
  (void)state;
  sim_stream s;
  memset(&s, 0, sizeof s);
  isa_insn want[3 * ISA_OP_COUNT];
  size_t n = 0, longest = 0;
  for (int op = 0; op < ISA_OP_COUNT; op++)
    for (int which = 0; which < 3; which++) {
      build((isa_op)op, which, &want[n]);
      uint64_t before = s.nbytes;
      assert_int_equal(sim_stream_append(&s, &want[n]), CS_OK);
      uint64_t len = s.nbytes - before;
      assert_true(len <= SIM_STREAM_MAX_RECORD);
      if (len > longest) longest = len;
      n++;
    }
  assert_int_equal(s.n, n);
  /* the largest values need the longest varints: some record is longer than 2 bytes per field */
  assert_true(longest > 40);
  sim_stream_cursor c;
  sim_stream_cursor_init(&c, &s, 0);
  for (size_t i = 0; i < n; i++) {
    isa_insn got, at;
    assert_true(sim_stream_next(&c, &got));
    assert_memory_equal(&got, &want[i], sizeof got);
    sim_stream_get(&s, i, &at);
    assert_memory_equal(&at, &want[i], sizeof at);
  }
  isa_insn end;
  assert_false(sim_stream_next(&c, &end));
  /* a cursor started in the middle (past a mark) reads on from there */
  sim_stream_cursor_init(&c, &s, n - 5);
  for (size_t i = n - 5; i < n; i++) {
    isa_insn got;
    assert_true(sim_stream_next(&c, &got));
    assert_memory_equal(&got, &want[i], sizeof got);
  }
  sim_stream_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stream_every_op_round_trips),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
