/* sim_l2 against a plain model of the same cache: per set a list of (line, dirty, last use) with
 * 64-bit uses, LRU by a scan for the oldest (the first of them, so empty ways fill in order), a
 * read miss filling its line, a write allocating it dirty, a dirty victim written back. Random
 * ranges (rows, strides, reads and writes, lines shared by consecutive rows) give the same hit
 * and miss bytes, fills, write-backs and dirty lines access after access:
 *   - with 32-bit tags (a small GM) and with 64-bit ones (a GM of 2^45 bytes, lines above 2^31);
 *   - with a power-of-two number of sets and without;
 *   - with the 32-bit stamps renumbered every 50 uses (stamp_limit), as at their wrap.
 * And the set of a line (sim_l2_set_of, which finds the hash modulo sets without dividing) is the
 * hash's remainder by the division, for lines of every size and set counts of every shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_l2.h"

#define MAX_WAYS 16
#define MAX_SETS 16

typedef struct model {
  uint64_t line_bytes, sets, ways, use;
  struct way {
    bool valid, dirty;
    uint64_t line, last;
  } w[MAX_SETS][MAX_WAYS];
  uint64_t dirty_lines;
} model;

/* The cache's documented set hash (sim_l2.c): a 64-bit mix of the line address, modulo sets. */
static uint64_t model_set(const model *m, uint64_t line) {
  uint64_t x = line;
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  x ^= x >> 33;
  return x % m->sets;
}

static bool model_touch(model *m, uint64_t line, bool write, sim_l2_result *r) {
  struct way *set = m->w[model_set(m, line)];
  m->use++;
  for (uint64_t i = 0; i < m->ways; i++)
    if (set[i].valid && set[i].line == line) {
      set[i].last = m->use;
      if (write && !set[i].dirty) set[i].dirty = true, m->dirty_lines++;
      return true;
    }
  uint64_t v = 0; /* the first never used, else the first of the oldest */
  for (uint64_t i = 0; i < m->ways; i++) {
    if (!set[i].valid) {
      v = i;
      break;
    }
    if (set[i].last < set[v].last) v = i;
  }
  if (set[v].valid && set[v].dirty) r->writeback_lines++, m->dirty_lines--;
  set[v] = (struct way){true, write, line, m->use};
  if (write) m->dirty_lines++;
  else r->fill_lines++;
  return false;
}

static void model_access(model *m, const isa_range *q, sim_l2_result *r) {
  uint64_t prev = UINT64_MAX;
  bool prev_hit = false;
  for (uint64_t row = 0; row < q->rows; row++) {
    uint64_t lo = q->base + row * q->stride_bytes, hi = lo + q->row_bytes;
    for (uint64_t a = lo; a < hi;) {
      uint64_t line = a / m->line_bytes, e = (line + 1) * m->line_bytes;
      if (e > hi) e = hi;
      if (line != prev) prev_hit = model_touch(m, line, q->write != 0, r), prev = line;
      if (prev_hit) r->hit_bytes += e - a;
      else r->miss_bytes += e - a;
      a = e;
    }
  }
}

static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

/* The cache's clock starts at `clock` (its stamps count from there). */
static void compare_runs_from(uint64_t sets, uint64_t ways, uint64_t gm_bytes, uint64_t stamp_limit, uint64_t clock,
                              uint64_t seed) {
  const uint64_t line_bytes = 512;
  sim_l2 l2;
  cs_err e;
  assert_int_equal(sim_l2_init(&l2, sets * ways * line_bytes, line_bytes, ways, gm_bytes, &e), CS_OK);
  assert_int_equal(l2.wide, gm_bytes >= (UINT64_C(1) << 40));
  if (stamp_limit) l2.stamp_limit = stamp_limit;
  l2.clock = clock;
  model m;
  memset(&m, 0, sizeof m);
  m.line_bytes = line_bytes, m.sets = sets, m.ways = ways;
  /* addresses within a few times the cache's lines, so that both hits and evictions happen, and
   * for the wide tags far above 2^31 lines */
  uint64_t span = sets * ways * line_bytes * 3, origin = gm_bytes > span * 2 ? gm_bytes - span * 2 : 0;
  uint64_t hits = 0, wbs = 0;
  for (int i = 0; i < 3000; i++) {
    isa_range q = {ISA_MEM_GM, (uint32_t)(rnd(&seed) % 3 == 0), 0, 0, 0, 0};
    q.rows = 1 + rnd(&seed) % 6;
    q.row_bytes = 1 + rnd(&seed) % 1500;
    q.stride_bytes = rnd(&seed) % 2 ? q.row_bytes : q.row_bytes + rnd(&seed) % 2048; /* contiguous, or gapped */
    q.base = origin + rnd(&seed) % span;
    sim_l2_result got = {0}, want = {0};
    sim_l2_access(&l2, &q, &got);
    model_access(&m, &q, &want);
    assert_int_equal(got.hit_bytes, want.hit_bytes);
    assert_int_equal(got.miss_bytes, want.miss_bytes);
    assert_int_equal(got.fill_lines, want.fill_lines);
    assert_int_equal(got.writeback_lines, want.writeback_lines);
    assert_int_equal(l2.dirty_lines, m.dirty_lines);
    hits += got.hit_bytes != 0, wbs += got.writeback_lines;
  }
  /* the sequence exercised both outcomes */
  assert_true(hits > 300);
  assert_true(wbs > 30);
  sim_l2_free(&l2);
}

static void compare_runs(uint64_t sets, uint64_t ways, uint64_t gm_bytes, uint64_t stamp_limit, uint64_t seed) {
  compare_runs_from(sets, ways, gm_bytes, stamp_limit, 0, seed);
}

/* The 16-way LRU choice compares the stamps as signed lanes with their top bit flipped: stamps on
 * both sides of 2^31, and up to the limit of 32 bits where the clock renumbers them. */
static void test_l2_matches_the_model_with_stamps_above_2_31(void **state) {
  (void)state;
  const uint64_t half = UINT64_C(1) << 31;
  compare_runs_from(4, 16, UINT64_C(1) << 36, 0, half - 5000, 13);
  compare_runs_from(4, 16, UINT64_C(1) << 45, 0, half - 5000, 14);
  compare_runs_from(4, 16, UINT64_C(1) << 36, 0, UINT32_MAX - 5000, 15);
  compare_runs_from(3, 16, UINT64_C(1) << 45, 0, UINT32_MAX - 5000, 16);
}

/* The LRU order by hand: one set of 4 ways; lines 0..3 fill ways 0..3, a use of line 0 makes line
 * 1 the least recent, so line 4 replaces it (a miss), and then line 1 misses while 0, 2 and 4
 * hit. */
static void test_l2_lru_by_hand(void **state) {
  (void)state;
  sim_l2 l2;
  cs_err e;
  assert_int_equal(sim_l2_init(&l2, 4 * 512, 512, 4, UINT64_C(1) << 36, &e), CS_OK);
  const uint64_t seq[] = {0, 1, 2, 3, 0, 4, 0, 2, 4, 1};
  const int hit[] = {0, 0, 0, 0, 1, 0, 1, 1, 1, 0};
  for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
    isa_range q = {ISA_MEM_GM, 0, seq[i] * 512, 512, 512, 1};
    sim_l2_result r = {0};
    sim_l2_access(&l2, &q, &r);
    if ((r.hit_bytes == 512) != hit[i])
      fail_msg("access %zu (line %llu): hit %d, want %d", i, (unsigned long long)seq[i], r.hit_bytes == 512, hit[i]);
  }
  /* ways: 0 holds line 0, 1 line 4, 2 line 2, 3 line 3 then line 1 (3 was the least recent) */
  assert_int_equal(((uint32_t *)(void *)l2.sets_mem)[1], 4 + 1);
  assert_int_equal(((uint32_t *)(void *)l2.sets_mem)[3], 1 + 1);
  sim_l2_free(&l2);
}

static void test_l2_matches_the_model_32_bit_tags(void **state) {
  (void)state;
  compare_runs(8, 4, UINT64_C(1) << 36, 0, 1);
  compare_runs(6, 3, UINT64_C(1) << 36, 0, 2);
  compare_runs(4, 16, UINT64_C(1) << 36, 0, 7); /* the 910B's 16 ways: compared all at once */
}

static void test_l2_matches_the_model_64_bit_tags(void **state) {
  (void)state;
  compare_runs(8, 4, UINT64_C(1) << 45, 0, 3);
  compare_runs(6, 3, UINT64_C(1) << 45, 0, 4);
  compare_runs(4, 16, UINT64_C(1) << 45, 0, 8);
}

static void test_l2_matches_the_model_across_stamp_renumbering(void **state) {
  (void)state;
  compare_runs(8, 4, UINT64_C(1) << 36, 50, 5);
  compare_runs(6, 8, UINT64_C(1) << 45, 50, 6);
  compare_runs(3, 16, UINT64_C(1) << 36, 50, 9);
}

static uint64_t next_random(uint64_t *x) { /* xorshift64* */
  *x ^= *x >> 12, *x ^= *x << 25, *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Dull;
}

static void test_l2_set_of_is_the_remainder(void **state) {
  (void)state;
  /* the 910B's 24576 sets (3 << 13), odd counts, large odd parts, powers of two */
  const uint64_t counts[] = {24576, 3, 5, 6, 7, 12, 1000, 12289, 49152, 1536 * 1023, 4096, 1};
  uint64_t seed = 99;
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    sim_l2 l2;
    cs_err e;
    assert_int_equal(sim_l2_init(&l2, counts[c] * 2 * 128, 128, 2, UINT64_C(1) << 36, &e), CS_OK);
    model m = {.sets = counts[c]};
    for (uint64_t i = 0; i < 200000; i++) {
      uint64_t line = i < 1000 ? i : i < 2000 ? UINT64_MAX - (i - 1000) : next_random(&seed) >> (i % 64);
      uint64_t want = model_set(&m, line), got = sim_l2_set_of(&l2, line);
      if (got != want) fail_msg("%llu sets: line %llu: set %llu, want %llu", (unsigned long long)counts[c],
                                (unsigned long long)line, (unsigned long long)got, (unsigned long long)want);
    }
    sim_l2_free(&l2);
  }
}

static void test_l2_matches_the_model_odd_set_counts(void **state) {
  (void)state;
  compare_runs(12, 16, UINT64_C(1) << 36, 0, 10);
  compare_runs(5, 4, UINT64_C(1) << 36, 0, 11);
  compare_runs(15, 2, UINT64_C(1) << 45, 0, 12);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_l2_set_of_is_the_remainder),
      cmocka_unit_test(test_l2_matches_the_model_odd_set_counts),
      cmocka_unit_test(test_l2_matches_the_model_32_bit_tags),
      cmocka_unit_test(test_l2_matches_the_model_with_stamps_above_2_31),
      cmocka_unit_test(test_l2_matches_the_model_64_bit_tags),
      cmocka_unit_test(test_l2_matches_the_model_across_stamp_renumbering),
      cmocka_unit_test(test_l2_lru_by_hand),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
