/* The parts of a run that the JSON export and the HTML page's data both
 * write, by the same names (json_run.c). Each writes a value (or, for the
 * figures, members) where the caller put the key. Not installed. */
#ifndef PT_REPORT_JSON_RUN_H
#define PT_REPORT_JSON_RUN_H

#include "report/json.h"

/* { "kind", "ghz" }: the host clock, ghz null unless the TSC. */
PT__HIDDEN void pt__json_clock(pt__json *w, const pt_run_stats *rs);
/* { "section_count", "total_ms", "error_count", "gpu_timing",
 *   "gpu_fallback", "open_count", "dropped", "trace_dropped",
 *   "gpu_fallback_why", "note_count", "pair_ns", "pair_inside_ns",
 *   "short_count", "ranks", "ranks_empty" } */
PT__HIDDEN void pt__json_stats(pt__json *w, const pt_run_stats *rs);
/* null, or, once a fold used it, { "calibrated", "cycles_per_ns",
 * "tick_ns", "blocks_own", "blocks_cal", "device", "device_name",
 * "folds", "slots_skipped", "slots_unfinished", "untraced", "mark_cycles" } */
PT__HIDDEN void pt__json_dev_clock(pt__json *w, const pt_dev_clock *dc);
/* null, or the peaks in use: { "bytes_per_s", "flops_per_s", "source" } */
PT__HIDDEN void pt__json_peaks(pt__json *w, pt_timing *t);
/* { "tensors": [ { "name", "bytes", "shape", "dtype" } ], "total",
 *   "peak", "device_free", "device_total", "device_used_peak" }, the
 *   device's figures null unless sampled. */
PT__HIDDEN void pt__json_memory(pt__json *w, const pt_timing *t);
/* { "count", "last", "last_note", "by_code": { "PT_EMISMATCH": 2, ... } } */
PT__HIDDEN void pt__json_errors(pt__json *w, const pt_timing *t);
/* Every figure of st as a member, by the one list (core/stats.h); the
 * bound by its name, or unknown_bound where none is known. */
PT__HIDDEN void pt__json_figures(pt__json *w, const pt_section_stats *st,
                                 const char *unknown_bound);
/* For a folded phase: "sm_ms", each SM's block time in it by %smid (0
 * for an SM none of its blocks ran on), up to the last SM with time, where
 * its blocks carry their SM; and "block_hist", [lower edge ns, count] for
 * each bin of its per-block time histogram that holds a block. Nothing
 * for any other section. */
PT__HIDDEN void pt__json_phase(pt__json *w, const pt_section *s);

#endif
