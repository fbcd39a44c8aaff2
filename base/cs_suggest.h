/* cs_suggest — "did you mean": the closest of a set of names to one that was mistyped.
 *
 * Every place that refuses an unknown name (a configuration key, an instruction field, a
 * subcommand, a kernel, an option) offers the names it knows one by one and proposes the best:
 *
 *   cs_suggest sg;
 *   cs_suggest_init(&sg, typed);
 *   for (...) cs_suggest_offer(&sg, known[i]);
 *   if (cs_suggest_best(&sg)) ... "(did you mean '%s'?)"
 */
#ifndef CS_SUGGEST_H
#define CS_SUGGEST_H

#include <stddef.h>

typedef struct cs_suggest {
  const char *typed;
  const char *best;
  size_t best_distance;
} cs_suggest;

void cs_suggest_init(cs_suggest *s, const char *typed);
/* Keeps the candidate if it is the closest so far within 2 edits (case-insensitive Levenshtein
 * distance, names cut to 63 characters) and with fewer edits than the typed name has
 * characters; a tie keeps the earlier candidate. */
void cs_suggest_offer(cs_suggest *s, const char *candidate);
/* The closest candidate offered, or NULL if none was close. */
const char *cs_suggest_best(const cs_suggest *s);

#endif
