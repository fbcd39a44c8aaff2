/* trc_html — what cubesim's HTML pages (run report, comparison, sweep) share: the page frame
 * with its style sheet and error catcher, escaping, number formats, sortable tables and
 * horizontal bar charts drawn as inline SVG. Pages are self-contained: no network, no external
 * file; the charts are drawn when the page is written, scripts only add zoom and sorting. */
#ifndef TRC_HTML_H
#define TRC_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "base/cs_jsonr.h"

/* <!DOCTYPE html> ... <body><h1>title</h1>; a script first catches JavaScript errors into
 * <div id="js-errors"> (a browser test reads it). */
void trc_html_begin(FILE *f, const char *title);
/* The page's own script (may be NULL), the sortable-table script, and the closing tags; the
 * body gets data-ready="1" once every script ran. */
void trc_html_end(FILE *f, const char *script);

/* s with & < > " ' escaped. */
void trc_html_esc(FILE *f, const char *s);
/* v with an SI prefix and the unit, 3 significant digits: "1.23 G" + unit; binary (KiB, MiB)
 * when binary is set. Returns buf. */
const char *trc_html_si(double v, const char *unit, int binary, char *buf, size_t n);

/* One bar of a horizontal bar chart: a label, a value drawn as a bar, an optional second value
 * drawn as a thin bar under it (NaN: none), and an optional range drawn as a whisker. */
typedef struct trc_html_bar {
  const char *label;
  double value, value2;
  double lo, hi;         /* whisker; NaN: none */
  const char *text;      /* shown at the bar's end */
  const char *color;
} trc_html_bar;

/* A bar chart (class "bars") scaled to max (>= every value; 0: the largest value); marks are
 * vertical reference lines at values, with labels (n_marks may be 0). */
void trc_html_bars(FILE *f, const char *id, const trc_html_bar *bars, size_t n, double max, const double *marks,
                   const char *const *mark_labels, size_t n_marks);

/* Key/value rows of a JSON object as a two-column table (nested objects as sub-tables). */
void trc_html_json_table(FILE *f, const cs_jvalue *obj);

/* The colour of a pipe's track name (SCALAR, MTE2, ...). */
const char *trc_html_pipe_color(const char *track);

#endif
