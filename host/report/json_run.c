/* The parts of a run both JSON documents write: the JSON export
 * (export_json.c) and the HTML page's data (export_html.c), so a figure
 * has one name, one type and one place it is written from. */
#include "report/json_run.h"

#include "core/roofline.h"
#include "core/spans.h"
#include "core/stats.h"
#include "gpu/memory.h"
#include "pt_fold_math.h"

#include <math.h>
#include <string.h>

void pt__json_clock(pt__json *w, const pt_run_stats *rs)
{
    pt__json_open(w, '{');
    pt__json_k_str(w, "kind", rs->clock);
    pt__json_k_num(w, "ghz", strcmp(rs->clock, "tsc") == 0 ? rs->clock_ghz : NAN);
    pt__json_close(w, '}');
}

void pt__json_stats(pt__json *w, const pt_run_stats *rs)
{
    pt__json_open(w, '{');
    pt__json_k_u64(w, "section_count", rs->section_count);
    pt__json_k_num(w, "total_ms", rs->total_ms);
    pt__json_k_u64(w, "error_count", rs->error_count);
    pt__json_k_bool(w, "gpu_timing", rs->gpu_timing);
    pt__json_k_bool(w, "gpu_fallback", rs->gpu_fallback);
    pt__json_k_u64(w, "open_count", rs->open_count);
    pt__json_k_u64(w, "dropped", rs->dropped);
    pt__json_k_u64(w, "trace_dropped", rs->trace_dropped);
    pt__json_k_str(w, "gpu_fallback_why", rs->gpu_fallback_why ? rs->gpu_fallback_why : "");
    pt__json_k_u64(w, "note_count", rs->note_count);
    pt__json_k_num(w, "pair_ns", rs->pair_ns);
    pt__json_k_num(w, "pair_inside_ns", rs->pair_inside_ns);
    pt__json_k_u64(w, "short_count", rs->short_count);
    pt__json_k_i64(w, "ranks", rs->ranks);
    pt__json_k_i64(w, "ranks_empty", rs->ranks_empty);
    pt__json_close(w, '}');
}

void pt__json_dev_clock(pt__json *w, const pt_dev_clock *dc)
{
    if (!dc->calibrated && dc->folds <= 0) {
        pt__json_null(w);
        return;
    }
    pt__json_open(w, '{');
    pt__json_k_bool(w, "calibrated", dc->calibrated);
    pt__json_k_num(w, "cycles_per_ns", dc->cycles_per_ns);
    pt__json_k_num(w, "tick_ns", dc->tick_ns);
    pt__json_k_i64(w, "blocks_own", dc->blocks_own);
    pt__json_k_i64(w, "blocks_cal", dc->blocks_cal);
    pt__json_k_i64(w, "device", dc->device);
    pt__json_k_str(w, "device_name", dc->device_name);
    pt__json_k_i64(w, "folds", dc->folds);
    pt__json_k_i64(w, "slots_skipped", dc->slots_skipped);
    pt__json_k_i64(w, "slots_unfinished", dc->slots_unfinished);
    pt__json_k_i64(w, "untraced", dc->untraced);
    pt__json_k_num(w, "mark_cycles", dc->mark_cycles);
    pt__json_close(w, '}');
}

void pt__json_peaks(pt__json *w, pt_timing *t)
{
    pt_peaks pk;

    if (pt_peaks_get(t, &pk) != 0 || pk.bytes_per_s <= 0 || pk.flops_per_s <= 0) {
        pt__json_null(w);
        return;
    }
    pt__json_open(w, '{');
    pt__json_k_num(w, "bytes_per_s", pk.bytes_per_s);
    pt__json_k_num(w, "flops_per_s", pk.flops_per_s);
    pt__json_k_str(w, "source", pk.source ? pk.source : "");
    pt__json_close(w, '}');
}

void pt__json_memory(pt__json *w, const pt_timing *t)
{
    pt_memory_stats ms;
    const char *name, *dtype;
    const void *ptr;
    const long long *shape;
    double bytes;
    int nd;

    pt_memory_get(t, &ms);
    pt__json_open(w, '{');
    pt__json_key(w, "tensors");
    pt__json_open(w, '[');
    for (size_t at = 0; pt__memory_tensor(t, &at, &name, &ptr, &bytes, &shape, &nd, &dtype);) {
        pt__json_item(w);
        pt__json_open(w, '{');
        pt__json_k_str(w, "name", name);
        pt__json_k_num(w, "bytes", bytes);
        pt__json_key(w, "shape");
        pt__json_open_inline(w, '[');
        for (int d = 0; d < nd; d++) {
            pt__json_item(w);
            pt__json_i64(w, shape[d]);
        }
        pt__json_close(w, ']');
        pt__json_k_str(w, "dtype", dtype ? dtype : "");
        pt__json_close(w, '}');
    }
    pt__json_close(w, ']');
    pt__json_k_num(w, "total", ms.total);
    pt__json_k_num(w, "peak", ms.peak);
    pt__json_k_num(w, "device_free", ms.device_sampled ? ms.device_free : NAN);
    pt__json_k_num(w, "device_total", ms.device_sampled ? ms.device_total : NAN);
    pt__json_k_num(w, "device_used_peak", ms.device_sampled ? ms.device_used_peak : NAN);
    pt__json_close(w, '}');
}

void pt__json_errors(pt__json *w, const pt_timing *t)
{
    pt__json_open(w, '{');
    pt__json_k_u64(w, "count", pt_error_count(t));
    pt__json_k_str(w, "last", pt_last_error(t));
    pt__json_k_str(w, "last_note", pt_last_note(t));
    pt__json_key(w, "by_code");
    pt__json_open(w, '{');
    for (int code = -1; code > PT__ERR_LAST; code--)
        if (pt_error_count_of(t, code))
            pt__json_k_u64(w, pt_err_name(code), pt_error_count_of(t, code));
    pt__json_close(w, '}');
    pt__json_close(w, '}');
}

void pt__json_figures(pt__json *w, const pt_section_stats *st, const char *unknown_bound)
{
    for (size_t i = 0; i < pt__nfigures; i++) {
        const pt__figure *fig = &pt__figures[i];
        double v = pt__figure_value(st, fig);
        if (fig->type == PT__FIG_F64)
            pt__json_k_num(w, fig->name, v);
        else if (fig->type == PT__FIG_U64)
            pt__json_k_u64(w, fig->name, pt__figure_u64(st, fig));
        else
            pt__json_k_str(w, fig->name,
                           (int)v == PT_BOUND_UNKNOWN ? unknown_bound : pt__bound_name((int)v));
    }
}

/* A histogram (device/pt_hist.h), its bins that hold anything: a bin's
 * lower edge (ns) and its count; nothing for NULL. */
static void hist_pairs(pt__json *w, const char *key, const uint64_t *hist)
{
    if (!hist)
        return;
    pt__json_key(w, key);
    pt__json_open_inline(w, '[');
    for (int k = 0; k < PT__HIST_BINS; k++) {
        double lo, hi;
        if (!hist[k])
            continue;
        pt__hist_edges(k, &lo, &hi);
        pt__json_item(w);
        pt__json_open_inline(w, '[');
        pt__json_item(w);
        pt__json_num(w, lo);
        pt__json_item(w);
        pt__json_u64(w, hist[k]);
        pt__json_close(w, ']');
    }
    pt__json_close(w, ']');
}

void pt__json_phase(pt__json *w, const pt_section *s)
{
    int n = pt__sm_count(s);

    /* A launch's spans, kind by kind, with their durations' histogram. */
    if (s->shape && s->shape->nspans > 0) {
        pt__json_key(w, "spans");
        pt__json_open(w, '[');
        for (int i = 0; i < s->shape->nspans; i++) {
            const pt__span *sp = &s->shape->spans[i];
            pt__json_item(w);
            pt__json_open_inline(w, '{');
            pt__json_k_str(w, "name", sp->name);
            pt__json_k_u64(w, "count", sp->count);
            pt__json_k_u64(w, "unmatched", sp->unmatched);
            pt__json_k_num(w, "total_ms", sp->total_ns / 1e6);
            pt__json_k_num(w, "p50_ms", pt__span_quantile(sp, 0.50) / 1e6);
            pt__json_k_num(w, "p99_ms", pt__span_quantile(sp, 0.99) / 1e6);
            pt__json_k_num(w, "max_ms", sp->max_ns / 1e6);
            hist_pairs(w, "hist", sp->hist);
            pt__json_close(w, '}');
        }
        pt__json_close(w, ']');
    }
    /* A launch's slowest block, phase by phase: [ name, ms ]. */
    if (s->shape && s->shape->folds > 0) {
        pt__json_key(w, "slowest_phases");
        pt__json_open_inline(w, '[');
        for (int i = 0; i < s->shape->nslow; i++) {
            pt__json_item(w);
            pt__json_open_inline(w, '[');
            pt__json_item(w);
            pt__json_str(w, s->shape->slow_names[i]);
            pt__json_item(w);
            pt__json_num(w, s->shape->slow_ns[i] / 1e6);
            pt__json_close(w, ']');
        }
        pt__json_close(w, ']');
    }

    if (n > 0) {
        pt__json_key(w, "sm_ms");
        pt__json_open_inline(w, '[');
        for (int i = 0; i < n; i++) {
            pt__json_item(w);
            pt__json_num(w, s->phase->sm_ns[i] > 0 ? s->phase->sm_ns[i] / 1e6 : 0);
        }
        pt__json_close(w, ']');
    }
    /* The per-block time histogram. */
    if (s->phase && s->phase->hist)
        hist_pairs(w, "block_hist", s->phase->hist);
}
