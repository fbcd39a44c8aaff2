/* trc_html — page frame, escaping, formats and bar charts of cubesim's HTML pages (trc_html.h). */
#include "traces/trc_html.h"

#include <math.h>
#include <string.h>

static const char style[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222;background:#fff}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}"
    ".sub{color:#666;margin-bottom:12px}"
    "table{border-collapse:collapse;margin:4px 0}td,th{padding:2px 10px;border-bottom:1px solid #eee;"
    "text-align:right;white-space:nowrap}th{background:#f5f5f5;font-weight:600}td:first-child,th:first-child{"
    "text-align:left}table.sortable th{cursor:pointer}table.sortable th:hover{background:#e8e8e8}"
    ".kv td{text-align:left}.kv td:first-child{color:#555}"
    ".cards{display:flex;flex-wrap:wrap;gap:10px}.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;"
    "min-width:120px}.card b{display:block;font-size:18px}.card span{color:#666;font-size:12px}"
    "svg text{font:11px system-ui,sans-serif;fill:#333}.note{color:#666;font-size:12px}"
    ".bad{color:#b00020}.good{color:#137333}tr.best td{background:#e6f4ea;font-weight:600}"
    "#js-errors:not(:empty){background:#fdd;border:1px solid #b00020;padding:6px;white-space:pre}"
    "details{margin:6px 0}summary{cursor:pointer;color:#333}button{font-size:12px;margin-right:4px}";

/* Catches every JavaScript error on the page into #js-errors (a browser test reads it). */
static const char error_catcher[] =
    "window.onerror=function(m,s,l,c){var e=document.getElementById('js-errors');"
    "if(!e){e=document.createElement('div');e.id='js-errors';document.documentElement.appendChild(e);}"
    "e.textContent+=m+' (line '+l+')\\n';return false;};";

/* Click a header to sort its table (numbers by value, text alphabetically; again: reversed). */
static const char sort_script[] =
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){"
    "var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),d=th.dataset.dir==='a'?-1:1;"
    "th.dataset.dir=d>0?'a':'d';rows.sort(function(x,y){var p=x.cells[i].dataset.v||x.cells[i].textContent,"
    "q=y.cells[i].dataset.v||y.cells[i].textContent,u=parseFloat(p),w=parseFloat(q);"
    "if(!isNaN(u)&&!isNaN(w))return d*(u-w);return d*p.localeCompare(q);});"
    "rows.forEach(function(r){b.appendChild(r);});});});});";

void trc_html_esc(FILE *f, const char *s) {
  for (; s && *s; s++) switch (*s) {
      case '&': fputs("&amp;", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '"': fputs("&quot;", f); break;
      case '\'': fputs("&#39;", f); break;
      default: fputc(*s, f);
    }
}

void trc_html_begin(FILE *f, const char *title) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
  trc_html_esc(f, title);
  fprintf(f, "</title>\n<style>%s</style>\n<script>%s</script>\n</head>\n<body>\n<div id=\"js-errors\"></div>\n<h1>",
          style, error_catcher);
  trc_html_esc(f, title);
  fputs("</h1>\n", f);
}

void trc_html_end(FILE *f, const char *script) {
  fputs("<script>\n", f);
  if (script) fputs(script, f);
  fprintf(f, "\n%s\ndocument.body.setAttribute('data-ready','1');\n</script>\n</body></html>\n", sort_script);
}

const char *trc_html_si(double v, const char *unit, int binary, char *buf, size_t n) {
  static const char *const dec[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  double base = binary ? 1024.0 : 1000.0, a = fabs(v);
  int i = 0;
  while (a >= base && i < 6) a /= base, v /= base, i++;
  if (!isfinite(v)) snprintf(buf, n, "-");
  else if (i == 0 && v == floor(v)) snprintf(buf, n, "%.0f %s", v, unit);
  else snprintf(buf, n, "%.3g %s%s", v, binary ? bin[i] : dec[i], unit);
  return buf;
}

const char *trc_html_pipe_color(const char *track) {
  static const struct {
    const char *track, *color;
  } colors[] = {{"SCALAR", "#8c8c8c"}, {"MTE2", "#1f77b4"}, {"MTE1", "#17becf"}, {"CUBE", "#d62728"},
                {"FIXP", "#ff7f0e"},   {"MTE3", "#9467bd"}, {"VECTOR", "#2ca02c"}};
  for (size_t i = 0; track && i < sizeof colors / sizeof colors[0]; i++)
    if (strcmp(track, colors[i].track) == 0) return colors[i].color;
  return "#555";
}

#define BAR_LABEL_W 150
#define BAR_W 520
#define BAR_ROW 24

void trc_html_bars(FILE *f, const char *id, const trc_html_bar *bars, size_t n, double max, const double *marks,
                   const char *const *mark_labels, size_t n_marks) {
  if (max <= 0)
    for (size_t i = 0; i < n; i++) {
      if (bars[i].value > max) max = bars[i].value;
      if (!isnan(bars[i].value2) && bars[i].value2 > max) max = bars[i].value2;
      if (!isnan(bars[i].hi) && bars[i].hi > max) max = bars[i].hi;
    }
  if (max <= 0) max = 1;
  double top = 4 + 12.0 * (double)n_marks;
  double h = top + (double)n * BAR_ROW + 4;
  fprintf(f, "<svg class=\"bars\" id=\"%s\" width=\"%d\" height=\"%.0f\" role=\"img\">\n", id,
          BAR_LABEL_W + BAR_W + 130, h);
  for (size_t i = 0; i < n; i++) {
    const trc_html_bar *b = &bars[i];
    double y = top + (double)i * BAR_ROW, w = b->value / max * BAR_W;
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", BAR_LABEL_W - 6, y + 14);
    trc_html_esc(f, b->label);
    fprintf(f, "</text><rect x=\"%d\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>", BAR_LABEL_W, y + 3,
            w > 0 ? w : 0, isnan(b->value2) ? 16 : 11, b->color ? b->color : "#4a7bd0");
    double end = w;
    if (!isnan(b->value2)) {
      double w2 = b->value2 / max * BAR_W;
      fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.2f\" height=\"5\" fill=\"#333\" opacity=\"0.7\"/>", BAR_LABEL_W,
              y + 15, w2 > 0 ? w2 : 0);
      if (w2 > end) end = w2;
    }
    if (!isnan(b->lo) && !isnan(b->hi)) {
      double x0 = BAR_LABEL_W + b->lo / max * BAR_W, x1 = BAR_LABEL_W + b->hi / max * BAR_W;
      fprintf(f, "<path d=\"M%.2f %.1fV%.1fM%.2f %.1fH%.2fM%.2f %.1fV%.1f\" stroke=\"#000\" fill=\"none\"/>", x0, y + 6,
              y + 18, x0, y + 12, x1, x1, y + 6, y + 18);
      if (b->hi / max * BAR_W > end) end = b->hi / max * BAR_W;
    }
    if (b->text) {
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", BAR_LABEL_W + end + 6, y + 14);
      trc_html_esc(f, b->text);
      fputs("</text>", f);
    }
    fputc('\n', f);
  }
  for (size_t i = 0; i < n_marks; i++) {
    double x = BAR_LABEL_W + marks[i] / max * BAR_W;
    fprintf(f, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#b00020\" stroke-dasharray=\"3,3\"/>", x, x,
            2.0 + 12.0 * (double)i, h);
    fprintf(f, "<text x=\"%.2f\" y=\"%.0f\" text-anchor=\"end\" fill=\"#b00020\">", x - 2, 11.0 + 12.0 * (double)i);
    trc_html_esc(f, mark_labels[i]);
    fputs("</text>\n", f);
  }
  fputs("</svg>\n", f);
}

static void json_scalar(FILE *f, const cs_jvalue *v) {
  bool b;
  switch (cs_jtype_of(v)) {
    case CS_JSTRING: trc_html_esc(f, cs_jstring(v)); break;
    case CS_JNUMBER: trc_html_esc(f, cs_jnumber_text(v)); break;
    case CS_JBOOL: fputs(cs_jbool(v, &b) && b ? "true" : "false", f); break;
    case CS_JNULL: fputs("&mdash;", f); break;
    default: break;
  }
}

void trc_html_json_table(FILE *f, const cs_jvalue *obj) {
  fputs("<table class=\"kv\">\n", f);
  for (size_t i = 0; i < cs_jcount(obj); i++) {
    const cs_jvalue *v = cs_jat(obj, i);
    fputs("<tr><td>", f);
    trc_html_esc(f, cs_jkey_at(obj, i));
    fputs("</td><td>", f);
    if (cs_jis(v, CS_JOBJECT)) trc_html_json_table(f, v);
    else if (cs_jis(v, CS_JARRAY))
      for (size_t k = 0; k < cs_jcount(v); k++) {
        if (k) fputs(", ", f);
        json_scalar(f, cs_jat(v, k));
      }
    else json_scalar(f, v);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
}
