/* Tests of base/cs_host: memory sizes as users write them, the default limit, byte counts in
 * text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cs_host.h"

static void test_host_parse_memory_sizes(void **state) {
  (void)state;
  static const struct {
    const char *text;
    uint64_t want;
  } ok[] = {
      {"1048576", 1048576},
      {"512K", 512u << 10},
      {"512KiB", 512u << 10},
      {"8M", 8u << 20},
      {"8g", (uint64_t)8 << 30},
      {"1.5GiB", (uint64_t)3 << 29},
      {"2T", (uint64_t)2 << 40},
      {"500MB", 500000000},
      {"8GB", 8000000000},
      {"1B", 1},
  };
  cs_err e;
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    uint64_t v = 0;
    if (cs_host_parse_memory(ok[i].text, "--max-memory", &v, &e) != CS_OK) fail_msg("%s: %s", ok[i].text, e.msg);
    assert_int_equal(v, ok[i].want);
  }
  static const char *const bad[] = {"", "x", "8X", "-1G", "8 G", "1e400", "G"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t v = 7;
    assert_int_equal(cs_host_parse_memory(bad[i], "--max-memory", &v, &e), CS_EINVAL);
    char want[200];
    snprintf(want, sizeof want,
             "--max-memory: '%s' is not a memory size (bytes, 512M, 8G, 1.5GiB, 8GB or a share like 50%%)", bad[i]);
    assert_string_equal(e.msg, want);
    assert_int_equal(v, 7);
  }
  uint64_t v;
  assert_int_equal(cs_host_parse_memory("0", "--max-memory", &v, &e), CS_EINVAL);
  assert_string_equal(e.msg, "--max-memory: '0' is less than one byte");
  assert_int_equal(cs_host_parse_memory("101%", "--max-memory", &v, &e), CS_EINVAL);
  assert_string_equal(e.msg, "--max-memory: '101%': a share of the host's memory is 1% to 100%");
  assert_int_equal(cs_host_parse_memory("99999999T", "--max-memory", &v, &e), CS_EINVAL);
  assert_string_equal(e.msg, "--max-memory: '99999999T' does not fit in 64 bits");
}

/* A share is of the memory the process may use, which is at most the machine's RAM. */
static void test_host_memory_share_and_default(void **state) {
  (void)state;
  uint64_t host = cs_host_memory_bytes();
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  assert_true(host > 0);
  assert_true(host <= (uint64_t)pages * (uint64_t)page);
  uint64_t half;
  cs_err e;
  assert_int_equal(cs_host_parse_memory("50%", "--max-memory", &half, &e), CS_OK);
  assert_true(half >= host / 2 - 1 && half <= host / 2 + 1);
  assert_int_equal(cs_host_default_memory_limit(), host / 100 * 80);
}

static void test_host_bytes_text(void **state) {
  (void)state;
  static const struct {
    uint64_t bytes;
    const char *want;
  } cases[] = {{0, "0 B"},         {1023, "1023 B"},           {1024, "1.0 KiB"},  {1536, "1.5 KiB"},
               {1048576, "1.0 MiB"}, {14400000000, "13.4 GiB"}, {UINT64_MAX, "16.0 EiB"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[32];
    cs_bytes_text(cases[i].bytes, out, sizeof out);
    assert_string_equal(out, cases[i].want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_parse_memory_sizes),
      cmocka_unit_test(test_host_memory_share_and_default),
      cmocka_unit_test(test_host_bytes_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
