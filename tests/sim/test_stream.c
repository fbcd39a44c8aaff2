/* sim_stream: the compact records give back every instruction bit for bit.
 *   - every opcode, its fields all zero, all at their largest values (a varint of every length)
 *     and at mixed values: each field read back through the table's descriptors (isa_insn.h)
 *     equals the one appended, every byte outside the fields is zero, and no record is longer
 *     than SIM_STREAM_MAX_RECORD (the room sim_stream_append makes);
 *   - a cursor reads them back in order, and sim_stream_get at any index agrees with it;
 *   - a record met before is kept as a reference to it: 1 byte for the first 64 distinct records,
 *     2 up to 8192, 3 beyond; past SIM_STREAM_DICT_MAX distinct ones new records stay literals;
 *     every instruction still reads back, in order, at any index and by opcode;
 *   - what sim_stream_growth announces before each append adds up to the stream's host bytes;
 *   - a pipe (sim_stream_pipe_open) from a producer thread gives a cursor every instruction in
 *     order, through chunks so small and a depth so short that both sides wait again and again,
 *     in the memory it announced; a consumer that abandons it halfway leaves the producer free
 *     to finish; a discarding stream counts its records and keeps none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "sim/sim_stream.h"
#include "support/insn_build.h"

#ifndef __STDC_NO_THREADS__
#include <threads.h>
#endif

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


/* Appends in, adding what sim_stream_growth announced to *announced. */
static void append_counted(sim_stream *s, const isa_insn *in, uint64_t *announced) {
  *announced += sim_stream_growth(s);
  assert_int_equal(sim_stream_append(s, in), CS_OK);
}

/* Every instruction of s equals want[] read in order, at its index, and (for `op`) by opcode. */
static void check_reads(const sim_stream *s, const isa_insn *want, size_t n, uint32_t op) {
  assert_int_equal(s->n, n);
  sim_stream_cursor c;
  sim_stream_cursor_init(&c, s, 0);
  for (size_t i = 0; i < n; i++) {
    isa_insn got;
    assert_true(sim_stream_next(&c, &got));
    assert_memory_equal(&got, &want[i], sizeof got);
    if (i % 7 == 0) {
      sim_stream_get(s, i, &got);
      assert_memory_equal(&got, &want[i], sizeof got);
    }
  }
  sim_stream_cursor_init(&c, s, 0);
  size_t at = 0;
  isa_insn got;
  while (sim_stream_next_op(&c, op, &got)) {
    while (at < n && want[at].op != op) at++;
    assert_true(at < n);
    assert_memory_equal(&got, &want[at], sizeof got);
    at++;
  }
  while (at < n && want[at].op != op) at++;
  assert_int_equal(at, n);
}

/* Bytes of v as an unsigned LEB128 varint (7 bits a byte). */
static uint64_t var_len(uint64_t v) {
  uint64_t n = 1;
  for (; v >= 0x80; v >>= 7) n++;
  return n;
}

static void test_stream_repeats_are_one_byte_references(void **state) {
  (void)state;
  enum { DISTINCT = 6, ROUNDS = 500 };
  isa_insn body[DISTINCT];
  for (int i = 0; i < DISTINCT; i++) { /* set_flags and mmads, each different from the others */
    build(i % 2 ? ISA_OP_MMAD : ISA_OP_SET_FLAG, 2, &body[i]);
    if (i % 2) body[i].u.mmad.m = (uint32_t)(16 * i);
    else body[i].u.flag.event_id = (uint32_t)i;
  }
  static isa_insn want[DISTINCT * ROUNDS];
  sim_stream s;
  memset(&s, 0, sizeof s);
  uint64_t announced = 0, literal_bytes = 0;
  for (int r = 0; r < ROUNDS; r++)
    for (int i = 0; i < DISTINCT; i++) {
      uint64_t before = s.nbytes, dict_before = s.ndict;
      want[r * DISTINCT + i] = body[i];
      append_counted(&s, &body[i], &announced);
      assert_int_equal(s.nbytes - before, 1); /* a reference to an id below 64, the first time too */
      if (r == 0) {
        assert_int_equal(s.nlit, i + 1); /* the literal enters the dictionary */
        literal_bytes += s.ndict - dict_before;
        if (i == 0) /* the first set_flag: length, opcode and its three fields as varints */
          assert_int_equal(s.ndict, 2 + var_len(body[0].u.flag.src_pipe) + var_len(body[0].u.flag.dst_pipe) +
                                        var_len(body[0].u.flag.event_id));
      } else
        assert_int_equal(s.ndict, dict_before);
    }
  assert_int_equal(s.nlit, DISTINCT);
  assert_int_equal(s.nbytes, (uint64_t)ROUNDS * DISTINCT);
  /* a set_flag's literal is 5 bytes (length, opcode, three one-byte fields); an mmad's more */
  assert_int_equal(s.ndict, literal_bytes);
  assert_true(literal_bytes > 5 * DISTINCT);
  check_reads(&s, want, DISTINCT * ROUNDS, ISA_OP_MMAD);
  assert_int_equal(announced, sim_stream_host_bytes(&s));
  sim_stream_free(&s);
}

static void test_stream_reference_lengths_and_the_dictionary_limit(void **state) {
  (void)state;
  /* SIM_STREAM_DICT_MAX + 100 distinct records, then each again in reverse order */
  const size_t distinct = SIM_STREAM_DICT_MAX + 100, n = 2 * distinct;
  isa_insn *want = malloc(n * sizeof *want);
  assert_non_null(want);
  sim_stream s;
  memset(&s, 0, sizeof s);
  uint64_t announced = 0;
  for (size_t i = 0; i < distinct; i++) {
    want[i] = ib_scalar((uint32_t)i);
    append_counted(&s, &want[i], &announced);
  }
  assert_int_equal(s.nlit, SIM_STREAM_DICT_MAX);
  for (size_t j = 0; j < distinct; j++) {
    size_t i = distinct - 1 - j;
    want[distinct + j] = want[i];
    uint64_t before = s.nbytes;
    append_counted(&s, &want[i], &announced);
    /* the id of the i-th distinct record is i: 0x80 | its low 6 bits, then a varint of the rest */
    uint64_t expect = i < 64 ? 1 : i < 64 * 128 ? 2 : i < SIM_STREAM_DICT_MAX ? 3 : 0;
    if (expect) assert_int_equal(s.nbytes - before, expect);
    else assert_true(s.nbytes - before >= 3); /* beyond the dictionary: a literal again */
  }
  assert_int_equal(s.nlit, SIM_STREAM_DICT_MAX);
  check_reads(&s, want, n, ISA_OP_SCALAR);
  /* a cursor started anywhere reads on from there */
  sim_stream_cursor c;
  sim_stream_cursor_init(&c, &s, n - 70000);
  isa_insn got;
  assert_true(sim_stream_next(&c, &got));
  assert_memory_equal(&got, &want[n - 70000], sizeof got);
  assert_int_equal(announced, sim_stream_host_bytes(&s));
  free(want);
  sim_stream_free(&s);
}

/* Every op with each of its three patterns, then again, to n instructions. */
static isa_insn *pipe_insns(size_t n) {
  isa_insn *v = malloc(n * sizeof *v);
  assert_non_null(v);
  for (size_t i = 0; i < n; i++) build((isa_op)(i / 3 % ISA_OP_COUNT), (int)(i % 3), &v[i]);
  return v;
}

typedef struct pipe_job {
  sim_stream *s;
  const isa_insn *v;
  size_t n;
  int failed;
} pipe_job;

#ifndef __STDC_NO_THREADS__
static int pipe_producer(void *arg) {
  pipe_job *j = arg;
  for (size_t i = 0; i < j->n; i++)
    if (sim_stream_append(j->s, &j->v[i]) != CS_OK) j->failed++;
  sim_stream_pipe_close(j->s);
  return 0;
}
#endif

static void test_stream_pipe_gives_every_instruction_in_order(void **state) {
  (void)state;
#ifndef __STDC_NO_THREADS__
  const size_t n = 20000, chunk = 2 * SIM_STREAM_MAX_RECORD;
  isa_insn *want = pipe_insns(n);
  static const unsigned depths[] = {1, 3};
  for (int d = 0; d < 2; d++) {
    for (int abandon = 0; abandon < 2; abandon++) {
      sim_stream s;
      assert_int_equal(sim_stream_pipe_open(&s, chunk, depths[d]), CS_OK);
      assert_int_equal(sim_stream_host_bytes(&s), sim_stream_pipe_bytes(chunk, depths[d]));
      assert_true(sim_stream_pipe_bytes(chunk, depths[d]) >= (depths[d] + 2) * chunk);
      pipe_job j = {&s, want, n, 0};
      thrd_t t;
      assert_int_equal(thrd_create(&t, pipe_producer, &j), thrd_success);
      sim_stream_cursor c;
      sim_stream_cursor_init(&c, &s, 0);
      size_t got_n = 0, stop = abandon ? n / 2 : n;
      isa_insn got;
      while (got_n < stop && sim_stream_next(&c, &got)) {
        assert_memory_equal(&got, &want[got_n], sizeof got);
        got_n++;
      }
      assert_int_equal(got_n, stop);
      if (abandon) sim_stream_pipe_abandon(&s);
      else assert_false(sim_stream_next(&c, &got)); /* the end, once the producer closed it */
      assert_int_equal(thrd_join(t, NULL), thrd_success);
      assert_int_equal(j.failed, 0);
      assert_int_equal(s.n, n);
      isa_insn none;
      assert_false(sim_stream_next_op(&c, ISA_OP_MMAD, &none)); /* a pipe is read in order only */
      sim_stream_free(&s);
      assert_null(s.pipe);
      assert_int_equal(s.n, 0);
    }
  }
  free(want);
  sim_stream s;
  assert_int_equal(sim_stream_pipe_open(&s, SIM_STREAM_MAX_RECORD, 1), CS_EINVAL); /* no room for two records */
  assert_int_equal(sim_stream_pipe_open(&s, chunk, 0), CS_EINVAL);
#else
  skip();
#endif
}

static void test_stream_discarding_counts_only(void **state) {
  (void)state;
  sim_stream s;
  memset(&s, 0, sizeof s);
  s.discard = true;
  isa_insn *v = pipe_insns(1000);
  for (size_t i = 0; i < 1000; i++) {
    assert_int_equal(sim_stream_growth(&s), 0);
    assert_int_equal(sim_stream_append(&s, &v[i]), CS_OK);
  }
  assert_int_equal(s.n, 1000);
  assert_int_equal(s.nbytes, 0);
  assert_int_equal(sim_stream_host_bytes(&s), 0);
  free(v);
  sim_stream_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stream_every_op_round_trips),
      cmocka_unit_test(test_stream_repeats_are_one_byte_references),
      cmocka_unit_test(test_stream_reference_lengths_and_the_dictionary_limit),
      cmocka_unit_test(test_stream_pipe_gives_every_instruction_in_order),
      cmocka_unit_test(test_stream_discarding_counts_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
