/* trc_compare — two runs side by side, from their JSON (cubesim run --json-file): the task and
 * aicore times, every pipe's mean and critical busy time and ratio, the bytes of every memory
 * level and path, with the difference B - A and its percentage of A. Text for the terminal,
 * JSON for scripts, an HTML page (traces/FORMAT.md, "Comparing two runs"). */
#ifndef TRC_COMPARE_H
#define TRC_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "base/cs_json.h"
#include "base/cs_jsonr.h"
#include "base/cs_status.h"

/* One compared quantity. */
typedef struct trc_cmp_row {
  char group[16];   /* "time", "pipe", "memory", "path", "work" */
  char name[48];
  const char *unit;
  double a, b;
} trc_cmp_row;

#define TRC_CMP_MAX_ROWS 96

/* The rows of runs a and b; CS_EFORMAT naming the run ("A", "B") when one is not a run's JSON
 * (a refused run, or another file). */
cs_status trc_compare_rows(const cs_jvalue *a, const cs_jvalue *b, trc_cmp_row *rows, size_t *n, cs_err *err);

/* (b - a) / a in percent; NaN when a is 0 (written as "n/a" or null). */
double trc_compare_percent(const trc_cmp_row *r);

void trc_compare_text(const trc_cmp_row *rows, size_t n, const char *name_a, const char *name_b, FILE *f);
void trc_compare_json(const trc_cmp_row *rows, size_t n, const char *name_a, const char *name_b, cs_json *j);
void trc_compare_html(const trc_cmp_row *rows, size_t n, const char *name_a, const char *name_b, FILE *f);

#endif
