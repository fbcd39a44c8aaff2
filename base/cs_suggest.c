/* cs_suggest — the closest known name to a mistyped one. */
#include "base/cs_suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

/* Case-insensitive Levenshtein distance of two names (cut to 63 characters). */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strnlen(a, 63), lb = strnlen(b, 63);
  size_t prev[64], cur[64];
  for (size_t j = 0; j <= lb; j++) prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
      size_t sub = prev[j - 1] + !same, del = prev[j] + 1, ins = cur[j - 1] + 1;
      size_t m = sub < del ? sub : del;
      cur[j] = m < ins ? m : ins;
    }
    memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
  }
  return prev[lb];
}

void cs_suggest_init(cs_suggest *s, const char *typed) {
  s->typed = typed;
  s->best = NULL;
  s->best_distance = SIZE_MAX;
}

void cs_suggest_offer(cs_suggest *s, const char *candidate) {
  size_t d = edit_distance(s->typed, candidate);
  if (d > 2 || d >= strlen(s->typed) || d >= s->best_distance) return;
  s->best = candidate;
  s->best_distance = d;
}

const char *cs_suggest_best(const cs_suggest *s) { return s->best; }
