/* trc_report — the HTML report of a run: one self-contained file (inline SVG and CSS, a little
 * vanilla JavaScript, nothing from the network) drawn from the run's JSON (cubesim run
 * --json-file; traces/FORMAT.md): the timeline of every core and pipe (critical core first,
 * zoomable), per-pipe busy time (the mean over the blocks and the critical core), a roofline of
 * the chip with the run's point, bytes per memory level, the L2 hit rate, the tiling and the
 * configuration, hazards and refusals. */
#ifndef TRC_REPORT_H
#define TRC_REPORT_H

#include <stdio.h>

#include "base/cs_jsonr.h"
#include "base/cs_status.h"

/* Writes the report of the run described by `run` (the root of its JSON). CS_EFORMAT naming the
 * member when a member the report needs is missing or has the wrong type. */
cs_status trc_report_html(const cs_jvalue *run, FILE *f, cs_err *err);

#endif
