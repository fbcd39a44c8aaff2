/* fuzz — what the libFuzzer targets of fuzz/ share: the entry point's prototype, a copy of the
 * input as a C string, a sink for what a target prints and the check that turns a broken
 * promise into a finding (docs/RELIABILITY.md, "Fuzzing").
 *
 * Each target feeds its input to one reader of cubesim and checks what the reader promises on
 * top of "no crash, no leak, no undefined behaviour": a refusal has a message, an accepted input
 * survives a round trip through the matching writer. A broken promise aborts, which libFuzzer
 * reports and keeps (crash-*) like a crash.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with the target's message when a promise does not hold. */
#define FZ_CHECK(cond, ...)                                                         \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "fuzz: %s:%d: %s does not hold: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                 \
      fputc('\n', stderr);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

/* The input as a NUL-terminated string (malloc'd; NULL when out of memory). */
static inline char *fz_text(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) return NULL;
  if (size) memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* /dev/null, opened once per process: where a target sends what the code under test prints. */
static inline FILE *fz_devnull(void) {
  static FILE *f;
  if (!f) f = fopen("/dev/null", "w");
  if (!f) abort();
  return f;
}

#endif
