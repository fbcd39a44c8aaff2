/* trc_compare — the differences between two runs (trc_compare.h). */
#include "traces/trc_compare.h"

#include <math.h>
#include <string.h>

#include "traces/trc_html.h"

static const char *const tracks[] = {"CUBE", "SCALAR", "MTE1", "MTE2", "FIXP", "VECTOR", "MTE3"};
#define N_TRACKS (sizeof tracks / sizeof tracks[0])

static const char *const paths[] = {"GM->L1", "GM->UB", "UB->GM", "L1->L0A", "L1->L0B", "L1->BT", "L1->FB",
                                    "L0C->GM", "L0C->L1"};
#define N_PATHS (sizeof paths / sizeof paths[0])

static double num(const cs_jvalue *v, const char *path) {
  double x = 0;
  return cs_jget_number(v, path, &x) ? x : 0.0;
}

static void add(trc_cmp_row *rows, size_t *n, const char *group, const char *name, const char *unit,
                const cs_jvalue *a, const cs_jvalue *b, const char *path) {
  if (*n >= TRC_CMP_MAX_ROWS) return;
  trc_cmp_row *r = &rows[(*n)++];
  snprintf(r->group, sizeof r->group, "%s", group);
  snprintf(r->name, sizeof r->name, "%s", name);
  r->unit = unit;
  r->a = num(a, path);
  r->b = num(b, path);
}

cs_status trc_compare_rows(const cs_jvalue *a, const cs_jvalue *b, trc_cmp_row *rows, size_t *n, cs_err *err) {
  const cs_jvalue *runs[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    double t;
    const char *status = cs_jget_string(runs[i], "status");
    if (status && strcmp(status, "refused") == 0)
      return cs_err_set(err, CS_EINVAL, "run %c was refused: %s", "AB"[i], cs_jget_string(runs[i], "error"));
    if (!cs_jget_number(runs[i], "time_us", &t) || !cs_jget(runs[i], "pipes") || !cs_jget(runs[i], "paths"))
      return cs_err_set(err, CS_EFORMAT, "run %c is not a run's JSON (no time_us, pipes, paths: write it with cubesim "
                        "run --json-file)", "AB"[i]);
  }
  *n = 0;
  add(rows, n, "time", "task time", "us", a, b, "time_us");
  add(rows, n, "time", "aicore time", "us", a, b, "aicore_time_us");
  add(rows, n, "time", "total cycles", "cycles", a, b, "total_cycles");
  add(rows, n, "work", "blocks", "", a, b, "blocks");
  add(rows, n, "work", "cube utilization", "", a, b, "cube_utilization");
  add(rows, n, "work", "instructions", "", a, b, "instructions");
  add(rows, n, "work", "stall cycles", "cycles", a, b, "stall_cycles");
  for (size_t i = 0; i < N_TRACKS; i++) {
    static const struct {
      const char *field, *label, *unit;
    } f[3] = {{"avg_time_us", "time", "us"}, {"critical_time_us", "critical", "us"}, {"ratio", "ratio", ""}};
    for (int k = 0; k < 3; k++) {
      char name[48], path[64];
      snprintf(name, sizeof name, "%s %s", tracks[i], f[k].label);
      snprintf(path, sizeof path, "pipes.%s.%s", tracks[i], f[k].field);
      add(rows, n, "pipe", name, f[k].unit, a, b, path);
    }
  }
  add(rows, n, "memory", "GM read", "B", a, b, "gm.read_bytes");
  add(rows, n, "memory", "GM written", "B", a, b, "gm.write_bytes");
  add(rows, n, "memory", "L2 hit", "B", a, b, "l2.hit_bytes");
  add(rows, n, "memory", "L2 miss", "B", a, b, "l2.miss_bytes");
  add(rows, n, "memory", "L2 hit rate", "", a, b, "l2.hit_rate");
  add(rows, n, "memory", "HBM read", "B", a, b, "gm.hbm_read_bytes");
  add(rows, n, "memory", "HBM written", "B", a, b, "gm.hbm_write_bytes");
  for (size_t i = 0; i < N_PATHS; i++) {
    char path[64];
    snprintf(path, sizeof path, "paths[\"%s\"].bytes", paths[i]);
    add(rows, n, "path", paths[i], "B", a, b, path);
  }
  return CS_OK;
}

double trc_compare_percent(const trc_cmp_row *r) { return r->a != 0 ? 100.0 * (r->b - r->a) / r->a : NAN; }

void trc_compare_text(const trc_cmp_row *rows, size_t n, const char *name_a, const char *name_b, FILE *f) {
  fprintf(f, "A: %s\nB: %s\n\n  %-7s %-22s %18s %18s %18s %9s\n", name_a, name_b, "", "quantity", "A", "B", "B - A",
          "%");
  for (size_t i = 0; i < n; i++) {
    const trc_cmp_row *r = &rows[i];
    if (r->a == 0 && r->b == 0 && (!strcmp(r->group, "path") || !strcmp(r->group, "pipe"))) continue;
    char pct[24];
    double p = trc_compare_percent(r);
    if (isnan(p)) snprintf(pct, sizeof pct, "n/a");
    else snprintf(pct, sizeof pct, "%+.2f%%", p);
    char name[64];
    snprintf(name, sizeof name, "%s%s%s%s", r->name, *r->unit ? " (" : "", r->unit, *r->unit ? ")" : "");
    fprintf(f, "  %-7s %-22s %18.6g %18.6g %+18.6g %9s\n", r->group, name, r->a, r->b, r->b - r->a, pct);
  }
}

void trc_compare_json(const trc_cmp_row *rows, size_t n, const char *name_a, const char *name_b, cs_json *j) {
  cs_json_obj_begin(j);
  cs_json_member_str(j, "a", name_a);
  cs_json_member_str(j, "b", name_b);
  cs_json_key(j, "rows");
  cs_json_arr_begin(j);
  for (size_t i = 0; i < n; i++) {
    const trc_cmp_row *r = &rows[i];
    cs_json_obj_begin(j);
    cs_json_member_str(j, "group", r->group);
    cs_json_member_str(j, "name", r->name);
    cs_json_member_str(j, "unit", r->unit);
    cs_json_member_double(j, "a", r->a);
    cs_json_member_double(j, "b", r->b);
    cs_json_member_double(j, "diff", r->b - r->a);
    cs_json_member_double(j, "percent", trc_compare_percent(r)); /* NaN: null */
    cs_json_obj_end(j);
  }
  cs_json_arr_end(j);
  cs_json_obj_end(j);
}

void trc_compare_html(const trc_cmp_row *rows, size_t n, const char *name_a, const char *name_b, FILE *f) {
  trc_html_begin(f, "cubesim compare");
  fputs("<div class=\"sub\">A: ", f);
  trc_html_esc(f, name_a);
  fputs("<br>B: ", f);
  trc_html_esc(f, name_b);
  fputs("</div>\n<h2>Pipes</h2>\n<p class=\"note\">Mean busy time per pipe: the bar is A, the thin dark bar B.</p>\n", f);
  trc_html_bar bars[N_TRACKS];
  char text[N_TRACKS][48];
  size_t nb = 0;
  for (size_t i = 0; i < n && nb < N_TRACKS; i++) {
    const trc_cmp_row *r = &rows[i];
    size_t len = strlen(r->name);
    if (strcmp(r->group, "pipe") || len < 5 || strcmp(r->name + len - 5, " time")) continue;
    double p = trc_compare_percent(r);
    snprintf(text[nb], sizeof text[nb], "%.3f -> %.3f us%s", r->a, r->b, isnan(p) ? "" : "");
    if (!isnan(p)) snprintf(text[nb], sizeof text[nb], "%.3f -> %.3f us (%+.1f%%)", r->a, r->b, p);
    bars[nb] = (trc_html_bar){tracks[nb], r->a, r->b, NAN, NAN, text[nb], trc_html_pipe_color(tracks[nb])};
    nb++;
  }
  trc_html_bars(f, "compare-bars", bars, nb, 0, NULL, NULL, 0);
  fputs("<h2>All quantities</h2>\n<table class=\"sortable\" id=\"compare\"><thead><tr><th>group</th><th>quantity</th>"
        "<th>unit</th><th>A</th><th>B</th><th>B - A</th><th>%</th></tr></thead><tbody>\n",
        f);
  for (size_t i = 0; i < n; i++) {
    const trc_cmp_row *r = &rows[i];
    double p = trc_compare_percent(r);
    fprintf(f, "<tr><td>%s</td><td>", r->group);
    trc_html_esc(f, r->name);
    fprintf(f, "</td><td>%s</td><td>%.6g</td><td>%.6g</td><td>%+.6g</td>", r->unit, r->a, r->b, r->b - r->a);
    if (isnan(p)) fputs("<td data-v=\"0\">n/a</td></tr>\n", f);
    else fprintf(f, "<td data-v=\"%.6f\" class=\"%s\">%+.2f%%</td></tr>\n", p, p > 0 ? "bad" : p < 0 ? "good" : "", p);
  }
  fputs("</tbody></table>\n<p class=\"note\">Green: B is smaller than A; red: larger (for times, smaller is "
        "better).</p>\n",
        f);
  trc_html_end(f, NULL);
}
