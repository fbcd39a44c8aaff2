/* trc_report — the HTML report of a run, drawn from the run's JSON (trc_report.h). */
#include "traces/trc_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trc_html.h"

/* ---- reading the run ------------------------------------------------------------------ */

/* The number at path, or 0 (members the report checked first, or optional ones). */
static double num(const cs_jvalue *v, const char *path) {
  double x = 0;
  return cs_jget_number(v, path, &x) ? x : 0.0;
}

/* The members every report draws from; a JSON that lacks one is not a run's summary. */
static cs_status check_run(const cs_jvalue *run, cs_err *err) {
  static const char *const numbers[] = {"time_us", "total_cycles", "clock_mhz", "cores", "blocks", "aicore_time_us",
                                        "macs", "gm.read_bytes", "gm.write_bytes", "l2.hit_rate"};
  static const char *const objects[] = {"pipes", "paths", "config", "per_core", "hazards"};
  if (!cs_jis(run, CS_JOBJECT)) return cs_err_set(err, CS_EFORMAT, "the run's JSON is not an object");
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
    double x;
    if (!cs_jget_number(run, numbers[i], &x))
      return cs_err_set(err, CS_EFORMAT, "the run's JSON has no number \"%s\" (write it with cubesim run --json-file)",
                        numbers[i]);
  }
  for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++)
    if (!cs_jget(run, objects[i]))
      return cs_err_set(err, CS_EFORMAT, "the run's JSON has no \"%s\" (write it with cubesim run --json-file)",
                        objects[i]);
  return CS_OK;
}

/* ---- cards ---------------------------------------------------------------------------- */

static void card(FILE *f, const char *value, const char *what) {
  fputs("<div class=\"card\"><b>", f);
  trc_html_esc(f, value);
  fputs("</b><span>", f);
  trc_html_esc(f, what);
  fputs("</span></div>\n", f);
}

/* Tera-operations per second of the run: two per MAC. */
static double achieved_tops(const cs_jvalue *run) {
  double t = num(run, "time_us");
  return t > 0 ? 2.0 * num(run, "macs") / t / 1e6 : 0.0;
}

static void cards(FILE *f, const cs_jvalue *run) {
  char v[64], w[96];
  fputs("<div class=\"cards\">\n", f);
  snprintf(v, sizeof v, "%.3f us", num(run, "time_us"));
  snprintf(w, sizeof w, "task time (%.0f cycles)", num(run, "total_cycles"));
  card(f, v, w);
  snprintf(v, sizeof v, "%.3f us", num(run, "aicore_time_us"));
  card(f, v, "aicore time (mean core span)");
  snprintf(v, sizeof v, "%.0f of %.0f", num(run, "blocks"), num(run, "cores"));
  card(f, v, "blocks (cores that ran)");
  snprintf(v, sizeof v, "core %.0f", num(run, "critical_core"));
  card(f, v, "critical core (finished last)");
  snprintf(v, sizeof v, "%.1f%%", 100.0 * num(run, "cube_utilization"));
  card(f, v, "cube utilization");
  snprintf(v, sizeof v, "%.2f", achieved_tops(run));
  card(f, v, "TOPS achieved (2 x MACs / task time)");
  snprintf(v, sizeof v, "%.1f%%", 100.0 * num(run, "l2.hit_rate"));
  card(f, v, "L2 hit rate (bytes)");
  snprintf(v, sizeof v, "%.0f", num(run, "hazards.count"));
  card(f, v, "data hazards");
  fputs("</div>\n", f);
}

/* ---- timeline ------------------------------------------------------------------------- */

#define LANE_H 11
#define LANE_STEP 13
#define CORE_GAP 8
#define LABEL_W 120

/* Zoom (wheel, buttons), pan (drag) and the time axis of the timeline; the lanes are one SVG in
 * cycles (viewBox), the axis is redrawn in microseconds for the visible window. */
static const char timeline_script[] =
    "(function(){var s=document.getElementById('tl');if(!s)return;"
    "var T=+s.dataset.total,M=+s.dataset.mhz,H=+s.dataset.h,x0=0,w=T,drag=null;"
    "var ax=document.getElementById('tl-axis'),st=document.getElementById('tl-status');"
    "function clamp(){if(w>T)w=T;if(w<10)w=10;if(x0<0)x0=0;if(x0+w>T)x0=T-w;}"
    "function axis(){var W=ax.clientWidth||800,us=w/M,raw=us/8,p=Math.pow(10,Math.floor(Math.log10(raw))),"
    "step=raw/p<2?p:raw/p<5?2*p:5*p,t0=Math.ceil(x0/M/step)*step,h='';"
    "for(var t=t0;t<=(x0+w)/M+1e-9;t+=step){var x=(t*M-x0)/w*W;"
    "h+='<line x1=\"'+x+'\" x2=\"'+x+'\" y1=\"0\" y2=\"6\" stroke=\"#333\"/>'+"
    "'<text x=\"'+x+'\" y=\"18\" text-anchor=\"middle\">'+(+t.toPrecision(6))+'</text>';}"
    "ax.innerHTML=h+'<text x=\"'+(W-2)+'\" y=\"30\" text-anchor=\"end\">us</text>';}"
    "function draw(){clamp();s.setAttribute('viewBox',x0+' 0 '+w+' '+H);axis();"
    "st.textContent='window '+(x0/M).toFixed(3)+' .. '+((x0+w)/M).toFixed(3)+' us';}"
    "function at(e){var r=s.getBoundingClientRect();return (e.clientX-r.left)/r.width;}"
    "s.addEventListener('wheel',function(e){e.preventDefault();var fx=at(e),c=x0+fx*w;"
    "w*=e.deltaY<0?0.8:1.25;clamp();x0=c-fx*w;draw();},{passive:false});"
    "s.addEventListener('mousedown',function(e){drag={x:e.clientX,x0:x0};});"
    "window.addEventListener('mouseup',function(){drag=null;});"
    "s.addEventListener('mousemove',function(e){var r=s.getBoundingClientRect();"
    "if(drag){x0=drag.x0-(e.clientX-drag.x)/r.width*w;draw();}"
    "else st.textContent='t = '+((x0+at(e)*w)/M).toFixed(3)+' us';});"
    "function zoom(k){var c=x0+w/2;w*=k;clamp();x0=c-w/2;draw();}"
    "document.getElementById('tl-in').onclick=function(){zoom(0.5);};"
    "document.getElementById('tl-out').onclick=function(){zoom(2);};"
    "document.getElementById('tl-fit').onclick=function(){x0=0;w=T;draw();};"
    "window.addEventListener('resize',axis);draw();})();";

/* The tracks of the timeline into out (room for all), critical core first, then by core; within
 * a core in pipe order. */
static size_t ordered_tracks(const cs_jvalue *tracks, unsigned critical, const cs_jvalue **out) {
  size_t n = cs_jcount(tracks), k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      uint64_t core = 0;
      cs_jget_u64(cs_jat(tracks, i), "core", &core);
      if ((pass == 0) == (core == critical)) out[k++] = cs_jat(tracks, i);
    }
  return k;
}

static cs_status timeline(FILE *f, const cs_jvalue *run, cs_err *err) {
  const cs_jvalue *tracks = cs_jget(run, "timeline.tracks");
  size_t ntracks = cs_jcount(tracks);
  const cs_jvalue **order = calloc(ntracks ? ntracks : 1, sizeof *order);
  double *y = calloc(ntracks ? ntracks : 1, sizeof *y), h = 0; /* lane positions: a gap between cores */
  if (!order || !y) {
    free(order);
    free(y);
    return cs_err_set(err, CS_ENOMEM, "the report's timeline: no host memory for %zu tracks", ntracks);
  }
  fputs("<h2>Timeline</h2>\n", f);
  if (!ntracks) {
    fputs("<p class=\"note\">No timeline in this run's JSON: run with --report, or --timeline with --json-file.</p>\n",
          f);
    free(order);
    free(y);
    return CS_OK;
  }
  unsigned critical = (unsigned)num(run, "critical_core");
  double total = num(run, "total_cycles"), mhz = num(run, "clock_mhz");
  if (total < 1) total = 1;
  size_t n = ordered_tracks(tracks, critical, order);
  uint64_t prev = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    uint64_t core = 0;
    cs_jget_u64(order[i], "core", &core);
    if (i && core != prev) h += CORE_GAP;
    prev = core;
    y[i] = h;
    h += LANE_STEP;
  }
  fprintf(f,
          "<p class=\"note\">Busy spans per core and pipe (merged; a span's shade is the share of its cycles that were "
          "busy). The critical core %u is on top. Wheel or buttons to zoom, drag to pan.</p>\n"
          "<div><button id=\"tl-out\">&minus;</button><button id=\"tl-in\">+</button><button id=\"tl-fit\">fit"
          "</button> <span id=\"tl-status\" class=\"note\"></span></div>\n"
          "<div style=\"display:flex\"><svg id=\"tl-labels\" width=\"%d\" height=\"%.0f\">\n",
          critical, LABEL_W, h + 34);
  prev = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    uint64_t core = 0;
    cs_jget_u64(order[i], "core", &core);
    const char *pipe = cs_jget_string(order[i], "pipe");
    fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">%s", LABEL_W - 6, y[i] + LANE_H - 1,
            core != prev ? "" : "");
    if (core != prev) fprintf(f, "core %" PRIu64 "%s ", core, core == critical ? "*" : "");
    trc_html_esc(f, pipe);
    fputs("</text>\n", f);
    prev = core;
  }
  fprintf(f,
          "</svg><div style=\"flex:1;min-width:0\"><svg id=\"tl\" width=\"100%%\" height=\"%.0f\" viewBox=\"0 0 %.0f "
          "%.0f\" preserveAspectRatio=\"none\" data-total=\"%.0f\" data-mhz=\"%.0f\" data-h=\"%.0f\" "
          "style=\"display:block;background:#fafafa;cursor:grab\">\n",
          h, total, h, total, mhz, h);
  for (size_t i = 0; i < n; i++) {
    const cs_jvalue *spans = cs_jget(order[i], "spans");
    fprintf(f, "<g fill=\"%s\" class=\"lane\" data-pipe=\"", trc_html_pipe_color(cs_jget_string(order[i], "pipe")));
    trc_html_esc(f, cs_jget_string(order[i], "pipe"));
    fputs("\">", f);
    for (size_t k = 0; k < cs_jcount(spans); k++) {
      const cs_jvalue *sp = cs_jat(spans, k);
      double s0 = num(sp, "[0]"), s1 = num(sp, "[1]"), busy = num(sp, "[2]");
      double shade = s1 > s0 ? busy / (s1 - s0) : 1;
      fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%d\"", s0, y[i], s1 - s0, LANE_H);
      if (shade < 0.999) fprintf(f, " fill-opacity=\"%.2f\"", shade < 0.25 ? 0.25 : shade);
      fputs("/>", f);
    }
    fputs("</g>\n", f);
  }
  fputs("</svg><svg id=\"tl-axis\" width=\"100%\" height=\"34\"></svg></div></div>\n", f);
  free(y);
  free(order);
  return CS_OK;
}

/* ---- pipes ------------------------------------------------------------------------------ */

static const char *const pipe_tracks[] = {"CUBE", "SCALAR", "MTE1", "MTE2", "FIXP", "VECTOR", "MTE3"};
#define N_PIPES (sizeof pipe_tracks / sizeof pipe_tracks[0])

static void pipes(FILE *f, const cs_jvalue *run) {
  double mhz = num(run, "clock_mhz");
  fputs("<h2>Pipes</h2>\n<p class=\"note\">Busy time per pipe: the bar is the mean over the blocks (msprof's "
        "aic_*_time), the thin dark bar the critical core's, the whisker the least to the most busy block.</p>\n",
        f);
  trc_html_bar bars[N_PIPES];
  char text[N_PIPES][64];
  for (size_t i = 0; i < N_PIPES; i++) {
    char path[64];
    snprintf(path, sizeof path, "pipes.%s", pipe_tracks[i]);
    const cs_jvalue *p = cs_jget(run, path);
    double avg = num(p, "avg_time_us"), crit = num(p, "critical_time_us");
    snprintf(text[i], sizeof text[i], "%.3f us (%.1f%%)", avg, 100.0 * num(p, "ratio"));
    bars[i] = (trc_html_bar){pipe_tracks[i],
                             avg,
                             crit,
                             mhz > 0 ? num(p, "min_busy_cycles") / mhz : NAN,
                             mhz > 0 ? num(p, "max_busy_cycles") / mhz : NAN,
                             text[i],
                             trc_html_pipe_color(pipe_tracks[i])};
  }
  double marks[2] = {num(run, "aicore_time_us"), num(run, "time_us")};
  const char *labels[2] = {"aicore", "task"};
  trc_html_bars(f, "pipe-bars", bars, N_PIPES, marks[1] > marks[0] ? marks[1] : marks[0], marks, labels, 2);
  fputs("<table class=\"sortable\"><thead><tr><th>pipe</th><th>msprof</th><th>time us</th><th>ratio</th>"
        "<th>critical us</th><th>critical ratio</th><th>min us</th><th>max us</th></tr></thead><tbody>\n",
        f);
  for (size_t i = 0; i < N_PIPES; i++) {
    char path[64];
    snprintf(path, sizeof path, "pipes.%s", pipe_tracks[i]);
    const cs_jvalue *p = cs_jget(run, path);
    fprintf(f, "<tr><td>%s</td><td>", pipe_tracks[i]);
    trc_html_esc(f, cs_jget_string(p, "msprof"));
    fprintf(f, "</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td></tr>\n",
            num(p, "avg_time_us"), num(p, "ratio"), num(p, "critical_time_us"), num(p, "critical_ratio"),
            mhz > 0 ? num(p, "min_busy_cycles") / mhz : 0, mhz > 0 ? num(p, "max_busy_cycles") / mhz : 0);
  }
  fputs("</tbody></table>\n", f);
}

static void per_core(FILE *f, const cs_jvalue *run) {
  const cs_jvalue *cores = cs_jget(run, "per_core");
  double mhz = num(run, "clock_mhz");
  fputs("<details><summary>Per core</summary>\n<table class=\"sortable\"><thead><tr><th>core</th><th>start us</th>"
        "<th>finish us</th><th>span us</th><th>instructions</th><th>stall us</th>",
        f);
  for (size_t i = 0; i < N_PIPES; i++) fprintf(f, "<th>%s us</th>", pipe_tracks[i]);
  fputs("</tr></thead><tbody>\n", f);
  for (size_t c = 0; c < cs_jcount(cores); c++) {
    const cs_jvalue *k = cs_jat(cores, c);
    if (num(k, "instructions") == 0) continue;
    fprintf(f, "<tr><td>%.0f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.0f</td><td>%.3f</td>", num(k, "core"),
            num(k, "start_cycles") / mhz, num(k, "finish_cycles") / mhz, num(k, "span_cycles") / mhz,
            num(k, "instructions"), num(k, "stall_cycles") / mhz);
    for (size_t i = 0; i < N_PIPES; i++) {
      char path[64];
      snprintf(path, sizeof path, "pipes.%s.busy_cycles", pipe_tracks[i]);
      fprintf(f, "<td>%.3f</td>", num(k, path) / mhz);
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table></details>\n", f);
}

/* ---- roofline --------------------------------------------------------------------------- */

#define RF_W 680
#define RF_H 420
#define RF_L 60
#define RF_B 40
#define RF_T 14
#define RF_R 150

typedef struct axes {
  double x_lo, x_hi, y_lo, y_hi; /* decades: powers of ten */
} axes;

static double rx(const axes *a, double x) {
  return RF_L + (log10(x) - log10(a->x_lo)) / (log10(a->x_hi) - log10(a->x_lo)) * (RF_W - RF_L - RF_R);
}
static double ry(const axes *a, double y) {
  return RF_H - RF_B - (log10(y) - log10(a->y_lo)) / (log10(a->y_hi) - log10(a->y_lo)) * (RF_H - RF_B - RF_T);
}

static double decade_down(double v) { return pow(10, floor(log10(v))); }
static double decade_up(double v) { return pow(10, ceil(log10(v))); }

static void rf_label(FILE *f, double x, double y, const char *anchor, const char *color, const char *text) {
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\">", x, y, anchor, color);
  trc_html_esc(f, text);
  fputs("</text>\n", f);
}

/* A bandwidth roof: ops/s = bandwidth x intensity, up to the highest compute ceiling. */
static void rf_roof(FILE *f, const axes *a, double tb_per_s, double top, const char *color, const char *name) {
  double x_end = top / tb_per_s, x0 = a->x_lo;
  if (x_end > a->x_hi) x_end = a->x_hi;
  if (tb_per_s * x0 < a->y_lo) x0 = a->y_lo / tb_per_s;
  if (x0 >= x_end) return;
  fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1f\" stroke=\"%s\" stroke-width=\"2\" fill=\"none\"/>\n", rx(a, x0),
          ry(a, tb_per_s * x0), rx(a, x_end), ry(a, tb_per_s * x_end), color);
  char t[96];
  snprintf(t, sizeof t, "%s %.2f TB/s", name, tb_per_s);
  double xm = sqrt(x0 * x_end);
  rf_label(f, rx(a, xm) - 4, ry(a, tb_per_s * xm) - 6, "end", color, t);
}

static void rf_ceiling(FILE *f, const axes *a, double tops, const char *name, const char *dash) {
  fprintf(f, "<path d=\"M%d %.1fH%d\" stroke=\"#333\" stroke-dasharray=\"%s\" fill=\"none\"/>\n", RF_L, ry(a, tops),
          RF_W - RF_R, dash);
  char t[96];
  snprintf(t, sizeof t, "%s %.1f TOPS", name, tops);
  rf_label(f, RF_W - RF_R + 4, ry(a, tops) + 4, "start", "#333", t);
}

static void roofline(FILE *f, const cs_jvalue *run) {
  double cores = num(run, "config.chip.aic_cores"), mhz = num(run, "clock_mhz");
  double peak_fp16 = 2 * num(run, "config.cube.macs_per_cycle_fp16") * cores * mhz / 1e6;
  double peak_int8 = 2 * num(run, "config.cube.macs_per_cycle_int8") * cores * mhz / 1e6;
  double hbm = num(run, "config.gm.hbm_gb_per_s") / 1e3, l2 = num(run, "config.l2.gb_per_s") / 1e3;
  bool l2_on = false;
  cs_jbool(cs_jget(run, "config.l2.enabled"), &l2_on);
  double macs = num(run, "macs"), ideal = num(run, "ideal_cube_cycles");
  double tops = achieved_tops(run);
  double hbm_bytes = num(run, "gm.hbm_read_bytes") + num(run, "gm.hbm_write_bytes");
  double gm_bytes = num(run, "gm.read_bytes") + num(run, "gm.write_bytes");
  double ai_hbm = hbm_bytes > 0 ? 2 * macs / hbm_bytes : 0, ai_gm = gm_bytes > 0 ? 2 * macs / gm_bytes : 0;
  /* the run's own peak: its MACs at the rates of their input types */
  double peak_run = ideal > 0 ? 2 * macs / ideal * cores * mhz / 1e6 : 0;
  fputs("<h2>Roofline</h2>\n", f);
  if (peak_int8 <= 0 || hbm <= 0) {
    fputs("<p class=\"note\">The configuration has no cube or HBM rate: no roofline.</p>\n", f);
    return;
  }
  double top = peak_int8 > peak_fp16 ? peak_int8 : peak_fp16;
  axes a;
  double x_min = top / (l2_on && l2 > hbm ? l2 : hbm) / 8, x_max = top / hbm * 8;
  if (ai_hbm > 0 && ai_hbm * 2 > x_max) x_max = ai_hbm * 4;
  if (ai_gm > 0 && ai_gm / 2 < x_min) x_min = ai_gm / 4;
  a.x_lo = decade_down(x_min);
  a.x_hi = decade_up(x_max);
  a.y_hi = decade_up(top * 1.5);
  double y_min = hbm * a.x_lo;
  if (tops > 0 && tops / 2 < y_min) y_min = tops / 4;
  a.y_lo = decade_down(y_min);
  if (a.y_hi / a.y_lo > 1e7) a.y_lo = a.y_hi / 1e7;
  fprintf(f,
          "<p class=\"note\">Operations (2 per MAC) per second against operations per byte moved. The run is drawn "
          "twice: against the bytes HBM served and against every byte of GM traffic through L2.</p>\n"
          "<svg id=\"roofline\" width=\"%d\" height=\"%d\" role=\"img\">\n"
          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
          RF_W, RF_H, RF_L, RF_T, RF_W - RF_L - RF_R, RF_H - RF_B - RF_T);
  for (double x = a.x_lo; x <= a.x_hi * 1.0001; x *= 10) {
    char t[32];
    snprintf(t, sizeof t, "%g", x);
    fprintf(f, "<path d=\"M%.1f %dV%d\" stroke=\"#eee\"/>\n", rx(&a, x), RF_T, RF_H - RF_B);
    rf_label(f, rx(&a, x), RF_H - RF_B + 14, "middle", "#333", t);
  }
  for (double y = a.y_lo; y <= a.y_hi * 1.0001; y *= 10) {
    char t[32];
    snprintf(t, sizeof t, "%g", y);
    fprintf(f, "<path d=\"M%d %.1fH%d\" stroke=\"#eee\"/>\n", RF_L, ry(&a, y), RF_W - RF_R);
    rf_label(f, RF_L - 4, ry(&a, y) + 4, "end", "#333", t);
  }
  rf_label(f, (RF_L + RF_W - RF_R) / 2.0, RF_H - 6, "middle", "#333", "arithmetic intensity (operations / byte)");
  fprintf(f, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">TOPS</text>\n",
          RF_H / 2, RF_H / 2);
  rf_ceiling(f, &a, peak_int8, "int8", "6,3");
  rf_ceiling(f, &a, peak_fp16, "fp16", "2,2");
  rf_roof(f, &a, hbm, top, "#1f77b4", "HBM");
  if (l2_on && l2 > 0) rf_roof(f, &a, l2, top, "#2ca02c", "L2");
  const struct {
    double ai;
    const char *name, *color;
  } points[2] = {{ai_hbm, "run (HBM bytes)", "#d62728"}, {ai_gm, "run (GM bytes)", "#ff7f0e"}};
  for (int i = 0; i < 2 && tops > 0; i++) {
    if (points[i].ai <= 0) continue;
    double x = rx(&a, points[i].ai), y = ry(&a, tops);
    fprintf(f, "<circle class=\"run-point\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>\n", x, y, points[i].color);
    rf_label(f, x + 8, y + (i ? 14 : -6), "start", points[i].color, points[i].name);
  }
  fputs("</svg>\n", f);
  fprintf(f,
          "<table class=\"kv\"><tr><td>achieved</td><td>%.3f TOPS</td></tr><tr><td>peak of the run's types</td>"
          "<td>%.3f TOPS (%.1f%% reached)</td></tr><tr><td>intensity on HBM bytes</td><td>%.3f ops/B (%.4g B)</td></tr>"
          "<tr><td>intensity on GM bytes</td><td>%.3f ops/B (%.4g B)</td></tr></table>\n",
          tops, peak_run, peak_run > 0 ? 100 * tops / peak_run : 0, ai_hbm, hbm_bytes, ai_gm, gm_bytes);
  if (macs == 0) fputs("<p class=\"note\">The run did no MACs: no point on the roofline.</p>\n", f);
}

/* ---- memory ----------------------------------------------------------------------------- */

static double path_bytes(const cs_jvalue *run, const char *path) {
  char p[64];
  snprintf(p, sizeof p, "paths[\"%s\"].bytes", path);
  return num(run, p);
}

static void memory(FILE *f, const cs_jvalue *run) {
  double l1_in = path_bytes(run, "GM->L1") + path_bytes(run, "L0C->L1");
  double l1_out =
      path_bytes(run, "L1->L0A") + path_bytes(run, "L1->L0B") + path_bytes(run, "L1->BT") + path_bytes(run, "L1->FB");
  const struct {
    const char *label;
    double bytes;
    const char *color;
  } rows[] = {
      {"GM read", num(run, "gm.read_bytes"), "#1f77b4"},
      {"GM written", num(run, "gm.write_bytes"), "#1f77b4"},
      {"L2 hit", num(run, "l2.hit_bytes"), "#2ca02c"},
      {"L2 miss", num(run, "l2.miss_bytes"), "#2ca02c"},
      {"HBM read", num(run, "gm.hbm_read_bytes"), "#8c564b"},
      {"HBM written", num(run, "gm.hbm_write_bytes"), "#8c564b"},
      {"L1 in", l1_in, "#17becf"},
      {"L1 out", l1_out, "#17becf"},
      {"L0A in", path_bytes(run, "L1->L0A"), "#9467bd"},
      {"L0B in", path_bytes(run, "L1->L0B"), "#9467bd"},
      {"L0C out", path_bytes(run, "L0C->GM") + path_bytes(run, "L0C->L1"), "#ff7f0e"},
      {"UB in", path_bytes(run, "GM->UB"), "#7f7f7f"},
      {"UB out", path_bytes(run, "UB->GM"), "#7f7f7f"},
  };
  enum { N = sizeof rows / sizeof rows[0] };
  trc_html_bar bars[N];
  char text[N][48];
  for (size_t i = 0; i < N; i++) {
    trc_html_si(rows[i].bytes, "B", 1, text[i], sizeof text[i]);
    bars[i] = (trc_html_bar){rows[i].label, rows[i].bytes, NAN, NAN, NAN, text[i], rows[i].color};
  }
  fprintf(f, "<h2>Memory</h2>\n<p class=\"note\">Bytes moved per memory level (L1 in: GM->L1 and L0C->L1; L1 out: "
             "L1->L0A/L0B/BT/FB; L0C out: what the fixpipe wrote). L2 hit rate %.1f%% of the GM bytes.</p>\n",
          100.0 * num(run, "l2.hit_rate"));
  trc_html_bars(f, "memory-bars", bars, N, 0, NULL, NULL, 0);
  fputs("<table class=\"sortable\"><thead><tr><th>path</th><th>bytes</th><th>GB/s over the task</th></tr></thead>"
        "<tbody>\n",
        f);
  const cs_jvalue *paths = cs_jget(run, "paths");
  for (size_t i = 0; i < cs_jcount(paths); i++) {
    const cs_jvalue *p = cs_jat(paths, i);
    if (num(p, "bytes") == 0) continue;
    fputs("<tr><td>", f);
    trc_html_esc(f, cs_jkey_at(paths, i));
    fprintf(f, "</td><td data-v=\"%.0f\">%.0f</td><td>%.2f</td></tr>\n", num(p, "bytes"), num(p, "bytes"),
            num(p, "gb_per_s"));
  }
  fputs("</tbody></table>\n", f);
}

/* ---- what ran, and what went wrong ---------------------------------------------------- */

static void setup(FILE *f, const cs_jvalue *run) {
  fputs("<h2>Tiling and attributes</h2>\n", f);
  const cs_jvalue *tiling = cs_jget(run, "tiling"), *attrs = cs_jget(run, "attributes");
  fputs("<div style=\"display:flex;gap:40px;flex-wrap:wrap\">", f);
  if (tiling) {
    fputs("<div><b>tiling</b>", f);
    trc_html_json_table(f, tiling);
    fputs("</div>", f);
  }
  if (attrs) {
    fputs("<div><b>attributes</b>", f);
    trc_html_json_table(f, attrs);
    fputs("</div>", f);
  }
  if (!tiling && !attrs) fputs("<p class=\"note\">Neither a tiling nor attributes in this run's JSON.</p>", f);
  fputs("</div>\n", f);
  const cs_jvalue *notes = cs_jget(run, "notes");
  for (size_t i = 0; i < cs_jcount(notes); i++) {
    fputs("<p class=\"note\">", f);
    trc_html_esc(f, cs_jstring(cs_jat(notes, i)));
    fputs("</p>\n", f);
  }
  fputs("<h2>Configuration</h2>\n<details><summary>the resolved configuration (cubesim config show)</summary>\n", f);
  trc_html_json_table(f, cs_jget(run, "config"));
  fputs("</details>\n", f);
}

static void problems(FILE *f, const cs_jvalue *run) {
  fputs("<h2>Hazards and faults</h2>\n", f);
  double n = num(run, "hazards.count");
  const char *deadlock = cs_jget_string(run, "deadlock");
  if (n == 0 && !deadlock) {
    fputs("<p class=\"good\" id=\"no-hazards\">No data hazard, no fault, no deadlock.</p>\n", f);
    return;
  }
  if (n > 0) {
    const cs_jvalue *first = cs_jget(run, "hazards.first");
    fprintf(f, "<p class=\"bad\">%.0f data hazard%s (missing set_flag/wait_flag or pipe_barrier); the first %zu:</p><ul>\n",
            n, n == 1 ? "" : "s", cs_jcount(first));
    for (size_t i = 0; i < cs_jcount(first); i++) {
      fputs("<li class=\"hazard\">", f);
      trc_html_esc(f, cs_jget_string(cs_jat(first, i), "message"));
      fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
  }
  if (deadlock) {
    fputs("<p class=\"bad\">", f);
    trc_html_esc(f, deadlock);
    fputs("</p>\n", f);
  }
}

static cs_status refused(const cs_jvalue *run, FILE *f) {
  fputs("<p class=\"bad\" id=\"refusal\">This run was refused: ", f);
  trc_html_esc(f, cs_jget_string(run, "error"));
  fputs("</p>\n", f);
  const cs_jvalue *given = cs_jget(run, "given");
  if (given) trc_html_json_table(f, given);
  trc_html_end(f, NULL);
  return CS_OK;
}

cs_status trc_report_html(const cs_jvalue *run, FILE *f, cs_err *err) {
  const char *status = cs_jget_string(run, "status");
  const char *kernel = cs_jget_string(run, "kernel");
  char title[160];
  snprintf(title, sizeof title, "cubesim report: %s", kernel ? kernel : "a run");
  if (status && strcmp(status, "refused") == 0) {
    trc_html_begin(f, title);
    return refused(run, f);
  }
  cs_status st = check_run(run, err);
  if (st != CS_OK) return st;
  trc_html_begin(f, title);
  fputs("<div class=\"sub\">", f);
  trc_html_esc(f, cs_jget_string(run, "chip"));
  fprintf(f, ", %.0f cores at %.0f MHz; cubesim ", num(run, "cores"), num(run, "clock_mhz"));
  trc_html_esc(f, cs_jget_string(run, "cubesim_version"));
  fputs("</div>\n", f);
  cards(f, run);
  if ((st = timeline(f, run, err)) != CS_OK) return st;
  pipes(f, run);
  per_core(f, run);
  roofline(f, run);
  memory(f, run);
  setup(f, run);
  problems(f, run);
  trc_html_end(f, timeline_script);
  return CS_OK;
}
