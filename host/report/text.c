/* The text report: pt_log() and pt_log_fn(). The run's header (clock,
 * device clock, peaks, threads, schedule, what was dropped), then the view
 * asked for (views.h: the tree, the flat table, the bottlenecks, the
 * memory), then the footer (open sections, errors).
 *
 * Every line goes through a line sink (lines.c). pt_log_fn() gives the
 * user's function as the sink; pt_log() gives one that writes to a FILE,
 * so both print exactly the same lines. Columns are sized to their widest
 * cell and separated by two spaces, so they stay aligned whatever the
 * numbers are. */
#include "report/export_file.h"
#include "report/views.h"

#include "core/cost.h"
#include "core/errors.h"
#include "core/gate.h"
#include "core/threads.h"
#include "core/schedule.h"
#include "core/stats.h"
#include "core/timing.h"
#include "gpu/cuda.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- header and footer ------------------------------------------- */

/* Sections from several threads are pooled by path; say so, with how
 * evenly the threads were busy, and with per_thread a line for each. */
static void thread_lines(pt_timing *t, pt__lines *k, int n, int per_thread)
{
    double lo = 0, hi = 0, sum = 0;
    char a[PT__CELL], b[PT__CELL];
    int busy = 0;

    for (int i = 0; i < n; i++) {
        pt_thread_info ti;
        if (pt_thread_get(t, i, &ti) < 0 || !ti.occurrences)
            continue;
        lo = busy && lo < ti.busy_ms ? lo : ti.busy_ms;
        hi = busy && hi > ti.busy_ms ? hi : ti.busy_ms;
        sum += ti.busy_ms;
        busy++;
    }
    pt__fmt_ms(a, lo);
    pt__fmt_ms(b, hi);
    pt__line_printf(k, "  threads: %d, %d of them timed sections (pooled by path); busy per thread %s to %s ms",
        n, busy, a, b);
    if (busy > 1 && sum > 0)
        pt__line_printf(k, ", imbalance %.2f (max/mean)", hi / (sum / busy));
    pt__line_emit(k);
    for (int i = 0; per_thread && i < n; i++) {
        pt_thread_info ti;
        if (pt_thread_get(t, i, &ti) < 0)
            continue;
        pt__fmt_ms(a, ti.busy_ms);
        pt__line_str(k, "    ");
        pt__thread_label(k, &ti);
        pt__line_printf(k, ": %" PRIu64 " occurrence%s, busy %s ms", ti.occurrences,
            ti.occurrences == 1 ? "" : "s", a);
        if (ti.open)
            pt__line_printf(k, ", %zu open", ti.open);
        pt__line_emit(k);
    }
}

static void header(pt_timing *t, pt__lines *k, const pt_run_stats *rs, int per_thread)
{
    char ms[PT__CELL];

    pt__fmt_ms(ms, rs->total_ms);
    pt__line_str(k, "ptkit report \"");
    pt__line_clean(k, t->name);
    pt__line_printf(k, "\": %zu section%s, %s ms total, clock %s", rs->section_count,
        rs->section_count == 1 ? "" : "s", ms, rs->clock);
    if (strcmp(rs->clock, "tsc") == 0)
        pt__line_printf(k, " at %.3f GHz", rs->clock_ghz);
    pt__line_emit(k);

    /* ptkit's own cost on this machine, and what the figures below are net of. */
    if (rs->pair_ns > 0) {
        pt__line_printf(k, "  ptkit's own cost: a start+stop pair %.1f ns (%.1f ns of it inside "
                           "the inner section), measured here; self times are net of the rest "
                           "per CPU child call", rs->pair_ns, rs->pair_inside_ns);
        pt__line_emit(k);
    } else {
        pt__line_printf(k, "  ptkit's own cost: %s; nothing is taken out",
            strcmp(rs->clock, "user") == 0 ? "not known for a user clock" : "not measured");
        pt__line_emit(k);
    }
    /* The runtime that timed the launches, and how it was found. */
    if (rs->gpu_timing && pt__cuda_origin()[0]) {
        pt__line_str(k, "  CUDA runtime: ");
        pt__line_clean(k, pt__cuda_origin());
        pt__line_emit(k);
    }
    if (t->gpu_fallback) {
        pt__line_str(k, "  note: GPU sections timed by the CPU clock, marked [cpu clock], their "
                        "rates left out: ");
        pt__line_clean(k, rs->gpu_fallback_why);
        pt__line_emit(k);
    }
    if (rs->ranks > 0) {
        pt__line_printf(k, "  ranks: %d merged (this one and %d gathered", rs->ranks, rs->ranks - 1);
        if (rs->ranks_empty > 0)
            pt__line_printf(k, ", of which %d sent nothing", rs->ranks_empty);
        pt__line_str(k, "); under each section, the spread of each rank's total and the slowest rank");
        pt__line_emit(k);
    }
    /* The conversion of device cycles is stated whenever a fold used it,
     * with how many blocks went each way, so a reader can judge the
     * per-block times below. */
    if (t->dev_clock.calibrated || t->dev_clock.folds > 0) {
        const pt_dev_clock *c = &t->dev_clock;
        /* Host mode counts the TSC, not an SM's clock64. */
        const char *clk = c->device >= 0 ? "SM clock" : "host TSC";
        pt__line_str(k, "  device clock: ");
        pt__line_clean(k, c->device_name[0] ? c->device_name : "unknown device");
        if (c->device >= 0)
            pt__line_printf(k, " (device %d)", c->device);
        if (c->blocks_own + c->blocks_cal == 0) {
            /* Nothing was converted: no rate or mark cost to claim. */
            pt__line_printf(k, "; %lld fold%s, no block record finished, so no cycle was "
                               "converted", c->folds, c->folds == 1 ? "" : "s");
            pt__line_emit(k);
        } else {
            if (c->calibrated)
                pt__line_printf(k, ", %s %.3f GHz calibrated, %s tick %.0f ns; "
                       "%lld block%s timed by their own measured rate, %lld by the calibrated rate",
                    clk, c->cycles_per_ns, c->device >= 0 ? "globaltimer" : "monotonic clock",
                    c->tick_ns, c->blocks_own,
                    c->blocks_own == 1 ? "" : "s", c->blocks_cal);
            else
                pt__line_printf(k, ", %s %.3f GHz: launch-average rate, calibration unavailable; "
                       "%lld block%s timed by their own measured rate",
                    clk, c->cycles_per_ns, c->blocks_own, c->blocks_own == 1 ? "" : "s");
            pt__line_printf(k, "; %lld fold%s, %lld slot%s without a record", c->folds,
                c->folds == 1 ? "" : "s", c->slots_skipped, c->slots_skipped == 1 ? "" : "s");
            if (c->slots_unfinished > 0)
                pt__line_printf(k, " (%lld of them a launch's block%s that returned before "
                                "PT_DEV_BEGIN or PT_DEV_END: an error)", c->slots_unfinished,
                                c->slots_unfinished == 1 ? "" : "s");
            if (c->untraced > 0)
                pt__line_printf(k, "; %lld mark%s on trace buffers by kernels built without "
                                "trace stores stored no event (define PT_DEV_TRACING before "
                                "including pt_dev.h): an error", c->untraced,
                                c->untraced == 1 ? "" : "s");
            if (c->mark_cycles > 0 && c->cycles_per_ns > 0)
                pt__line_printf(k, "; a mark costs %.1f cycles (%.2f ns), measured, taken out of "
                                   "every phase", c->mark_cycles, c->mark_cycles / c->cycles_per_ns);
            else
                pt__line_str(k, "; a mark's cost not measured, nothing taken out of the phases");
            pt__line_emit(k);
        }
    }
    if (t->peak_src == PT__PEAKS_USER || t->peak_src == PT__PEAKS_DEVICE) {
        pt__line_printf(k, "  peaks: %.1f GB/s, %.1f GFLOP/s (%s); ridge point %.3g FLOP/B",
            t->peak_bw / 1e9, t->peak_flops / 1e9,
            t->peak_src == PT__PEAKS_USER ? "given" : "device, FP32",
            pt__ratio(t->peak_flops, t->peak_bw));
        pt__line_emit(k);
    }
    if (rs->dropped > 0) {
        pt__line_printf(k, "  note: %" PRIu64 " device trace event%s dropped: a record buffer's "
                           "trace_cap (pt_dev_records_create) was full",
            rs->dropped, rs->dropped == 1 ? "" : "s");
        pt__line_emit(k);
    }
    if (rs->trace_dropped > 0) {
        pt__line_printf(k, "  note: %" PRIu64 " event%s left out of the trace (past pt_trace_capacity_set())",
            rs->trace_dropped, rs->trace_dropped == 1 ? "" : "s");
        pt__line_emit(k);
    }
    if (rs->threads > 1)
        thread_lines(t, k, rs->threads, per_thread);
    /* A schedule recorded only some steps: the figures are theirs alone. */
    char sched[160];
    pt__sched_describe(t, sched, sizeof sched);
    if (sched[0]) {
        pt__line_printf(k, "  %s", sched);
        pt__line_emit(k);
    }
}

static void footer(pt_timing *t, pt__lines *k, const pt_run_stats *rs, const char *stack)
{
    if (rs->short_count > 0) {
        pt__line_printf(k, "%zu section%s too short to time, marked [short]: a typical call under "
                           "%.0fx ptkit's measured cost (a pair, or a phase's mark)",
            rs->short_count, rs->short_count == 1 ? "" : "s", PT__SHORT_FACTOR);
        pt__line_emit(k);
    }
    if (rs->note_count > 0) {
        pt__line_printf(k, "%" PRIu64 " note%s; last: ", rs->note_count, rs->note_count == 1 ? "" : "s");
        pt__line_clean(k, pt_last_note(t));
        pt__line_emit(k);
    }
    if (rs->open_count > 0) {
        pt__line_printf(k, "%zu section%s open at report time: ", rs->open_count,
            rs->open_count == 1 ? "" : "s");
        pt__line_clean(k, stack);
        pt__line_emit(k);
    }
    if (rs->error_count > 0) {
        pt__line_printf(k, "%" PRIu64 " error%s; last: ", rs->error_count, rs->error_count == 1 ? "" : "s");
        pt__line_clean(k, pt_last_error(t));
        pt__line_emit(k);
    }
}

/* ---- the report -------------------------------------------------- */

static int check_opts(pt_timing *t, const pt_log_opts *o, const char *fn)
{
    if (o->view < PT_VIEW_TREE || o->view > PT_VIEW_KERNELS)
        return pt__fail(t, PT_EINVAL, "%s: unknown view %d", fn, o->view);
    if (o->sort < PT_SORT_ORDER || o->sort > PT_SORT_NAME)
        return pt__fail(t, PT_EINVAL, "%s: unknown sort %d", fn, o->sort);
    if (o->max_depth < 0 || o->top < 0)
        return pt__fail(t, PT_EINVAL, "%s: max_depth (%d) and top (%d) must be >= 0", fn,
                        o->max_depth, o->top);
    return 0;
}

static int report_in(pt_timing *t, pt_line_fn fn, void *ctx, const pt_log_opts *o,
                     const char *name)
{
    pt__lines k = { .fn = fn, .ctx = ctx };
    pt__rows r = { 0 };
    pt_run_stats rs;
    char stack[256];
    int rc = 0;

    pt__settle(t);
    pt_run_get(t, &rs);
    pt__open_str(t, stack, sizeof stack);

    header(t, &k, &rs, o->threads);
    if (o->view == PT_VIEW_BOTTLENECKS) {
        rc = pt__view_bottlenecks(t, &k, o, &rs);
    } else {
        rc = pt__rows_collect(t, &t->root, o, o->view != PT_VIEW_TREE, &r);
        if (rc == 0 && (o->view == PT_VIEW_TABLE || o->view == PT_VIEW_KERNELS))
            pt__view_table(&k, &r, &rs, o->view == PT_VIEW_KERNELS);
        else if (rc == 0 && o->view == PT_VIEW_MEMORY)
            pt__view_memory(t, &k, &r);
        else if (rc == 0 && r.n == 0) {
            pt__line_str(&k, "(no sections)");
            pt__line_emit(&k);
        } else if (rc == 0) {
            pt__view_tree(&k, &r, o);
            if (o->threads && rs.threads > 1)
                rc = pt__view_threads(t, &k, &r, rs.threads);
        }
    }
    pt__rows_free(&r);
    if (rc == 0)
        footer(t, &k, &rs, stack);
    free(k.buf);

    if (rc < 0 || k.oom)
        return pt__fail(t, PT_ENOMEM, "%s: out of memory while building the report", name);
    if (rs.open_count > 0)
        return pt__fail(t, PT_EOPEN, "%s: report made with %zu section%s open (open: %s)", name,
                        rs.open_count, rs.open_count == 1 ? "" : "s", stack);
    return 0;
}

/* Every thread's tree holds still while the report reads it (gate.h). */
static int report(pt_timing *t, pt_line_fn fn, void *ctx, const pt_log_opts *o, const char *name)
{
    int rc = pt__refused_in_callback(t, PT__CB_LINE, name);

    if (rc)
        return rc;
    pt__read_begin(t);
    rc = report_in(t, fn, ctx, o, name);
    pt__read_end(t);
    return rc;
}

static const pt_log_opts default_opts;

/* The user's line function, run as one of t's callbacks: what would
 * free the rows the report walks is refused there. */
typedef struct user_line {
    pt_timing *t;
    pt_line_fn fn;
    void *ctx;
} user_line;

static void user_line_fn(void *ctx, const char *line)
{
    user_line *u = ctx;
    pt__callback_enter(u->t, PT__CB_LINE);
    u->fn(u->ctx, line);
    pt__callback_leave();
}

int pt__log_fn(pt_timing *t, pt_line_fn fn, void *ctx, const pt_log_opts *o)
{
    int rc;

    if (!t)
        return 0;
    if (!fn)
        return pt__fail(t, PT_EINVAL, "pt_log_fn: NULL line function");
    if (!o)
        o = &default_opts;
    rc = check_opts(t, o, "pt_log_fn");
    if (rc)
        return rc;
    user_line u = { t, fn, ctx };
    return report(t, user_line_fn, &u, o, "pt_log_fn");
}

typedef struct file_sink {
    FILE *f;
    int err;
} file_sink;

/* After the first failed write the rest of the report is dropped: the
 * stream is broken and retrying would only repeat the error. */
static void file_line(void *ctx, const char *line)
{
    file_sink *fs = ctx;
    if (fs->err)
        return;
    if (fputs(line, fs->f) == EOF || putc('\n', fs->f) == EOF)
        fs->err = errno ? errno : EIO;
}

static int write_text(pt_timing *t, FILE *f, void *ctx)
{
    (void)ctx;
    return pt__log(t, f, NULL);
}

int pt_export_text(pt_timing *t, const char *path)
{
    return t ? pt__export(t, path, "pt_export_text", 1, write_text, NULL) : 0;
}

int pt__log(pt_timing *t, FILE *f, const pt_log_opts *o)
{
    file_sink fs;
    int rc;

    if (!t)
        return 0;
    if (!f)
        return pt__fail(t, PT_EINVAL, "pt_log: NULL FILE");
    if (!o)
        o = &default_opts;
    rc = check_opts(t, o, "pt_log");
    if (rc)
        return rc;
    fs.f = f;
    fs.err = 0;
    rc = report(t, file_line, &fs, o, "pt_log");
    /* A buffered stream reports a full disk or a closed pipe only when
     * flushed, so flush here to return the error to the caller. */
    if (!fs.err && fflush(f) != 0)
        fs.err = errno ? errno : EIO;
    if (fs.err)
        return pt__fail(t, PT_EIO, "pt_log: writing the report failed: %s", strerror(fs.err));
    return rc;
}
