/* Tests of base/cs_suggest: the closest name within two edits, case-insensitive, fewer edits
 * than the typed name has characters, the first of equally close names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/cs_suggest.h"

static void test_cs_suggest_within_two_edits(void **state) {
  (void)state;
  cs_suggest s;
  cs_suggest_init(&s, "blok_cout");
  cs_suggest_offer(&s, "block_len_bytes");
  assert_null(cs_suggest_best(&s));
  cs_suggest_offer(&s, "block_count"); /* 2 edits */
  assert_string_equal(cs_suggest_best(&s), "block_count");
  cs_suggest_init(&s, "ab");
  cs_suggest_offer(&s, "xy"); /* 2 edits is not fewer than 2 characters */
  assert_null(cs_suggest_best(&s));
  cs_suggest_offer(&s, "AB"); /* case does not count */
  assert_string_equal(cs_suggest_best(&s), "AB");
  cs_suggest_init(&s, "mte");
  cs_suggest_offer(&s, "MTE2");
  cs_suggest_offer(&s, "MTE1"); /* a tie keeps the first */
  assert_string_equal(cs_suggest_best(&s), "MTE2");
}

static void test_cs_suggest_closer_replaces_and_three_edits_never_suggest(void **state) {
  (void)state;
  cs_suggest s;
  cs_suggest_init(&s, "kernles");
  cs_suggest_offer(&s, "kernels"); /* a transposition: 2 edits */
  assert_string_equal(cs_suggest_best(&s), "kernels");
  cs_suggest_offer(&s, "kernle"); /* 1 edit (a deletion): closer */
  assert_string_equal(cs_suggest_best(&s), "kernle");
  cs_suggest_init(&s, "linear");
  cs_suggest_offer(&s, "lin"); /* 3 deletions */
  cs_suggest_offer(&s, "linearity"); /* 3 insertions */
  assert_null(cs_suggest_best(&s));
  cs_suggest_offer(&s, "linear"); /* exact */
  assert_string_equal(cs_suggest_best(&s), "linear");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cs_suggest_within_two_edits),
      cmocka_unit_test(test_cs_suggest_closer_replaces_and_three_edits_never_suggest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
