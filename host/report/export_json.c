/* The JSON export: the whole timing as one self-describing document that
 * tools read back (show, diff, merge), so its layout is a format of its
 * own, versioned by "schema" (PT_JSON_SCHEMA):
 *
 *   { "schema": 1, "tool": "ptkit", "version": "0.1.0", "name": "...",
 *     "created": "2025-01-31T12:00:00Z",
 *     "units": { "time": "ms", ... },
 *     "clock": { "kind": "tsc", "ghz": 2.995 },          ghz null unless tsc
 *     "stats": { "section_count", "total_ms", "error_count", "gpu_timing",
 *                "gpu_fallback", "open_count", "dropped", "trace_dropped" },
 *     "threads": [ { "index", "tid", "occurrences", "busy_ms", "open",
 *                    "parts": [ { "path", "count", "total_ms" } ] } ],
 *                                     the creating thread first (index 0);
 *                                     parts: the sections it ran, in tree
 *                                     order, empty when it is the only one
 *     "schedule": null | { "wait", "warmup", "active", "repeat", "steps",
 *                "recorded" },                        pt_schedule()'s figures
 *     "device_clock": null | { "calibrated", "cycles_per_ns", "tick_ns",
 *                "blocks_own", "blocks_cal", "device", "device_name",
 *                "folds", "slots_skipped" },
 *     "peaks": null | { "bytes_per_s", "flops_per_s", "source" },
 *     "memory": { "tensors": [ { "name", "bytes", "shape": [..], "dtype" } ],
 *                 "total", "peak", "device_free", "device_total",
 *                 "device_used_peak" },       device figures null unless sampled
 *     "errors": { "count", "last", "by_code": { "PT_EMISMATCH": 2, ... } },
 *     "sections": [ { "name", "path", "depth", "kind", "open", "count",
 *                     every figure of the CSV export by the same name,
 *                     "children": [ ... ] } ] }
 *
 * Sections are in order of first start. Members are never left out: a
 * figure a section does not have is 0, so readers need no defaults.
 * Numbers are written with "%.17g" and read back as the same double; a
 * non-finite number, which the statistics never produce, would be
 * written as null, since JSON has no token for it. Strings are valid
 * UTF-8 whatever the titles hold: bytes that are not UTF-8 become
 * U+FFFD, so every JSON parser accepts the file. */
#include "core/roofline.h"
#include "core/stats.h"
#include "core/threads.h"
#include "core/timing.h"
#include "core/tree.h"
#include "gpu/memory.h"
#include "report/atomic_file.h"
#include "report/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The writer: indentation, the comma between members, and the first
 * failed write, after which nothing more is written. The stream keeps
 * its error flag and errno for pt__afile_commit() to report. */
typedef struct jw {
    FILE *f;
    int level;
    int first;   /* nothing written yet in the current object or array */
    int err;
} jw;

static void out(jw *w, const char *s, size_t n)
{
    if (!w->err && n && fwrite(s, 1, n, w->f) != n)
        w->err = 1;
}

static void outs(jw *w, const char *s)
{
    out(w, s, strlen(s));
}

static void outf(jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(jw *w, const char *fmt, ...)
{
    va_list ap;
    if (w->err)
        return;
    va_start(ap, fmt);
    if (vfprintf(w->f, fmt, ap) < 0)
        w->err = 1;
    va_end(ap);
}

static void newline(jw *w)
{
    static const char spaces[] = "                                ";
    int n = 2 * w->level;
    outs(w, "\n");
    for (; n > 0; n -= (int)(sizeof spaces - 1))
        out(w, spaces, n < (int)(sizeof spaces - 1) ? (size_t)n : sizeof spaces - 1);
}

static void str(jw *w, const char *s)
{
    if (!w->err && pt__json_str(w->f, s, 0) < 0)
        w->err = 1;
}

static void key(jw *w, const char *k)
{
    if (!w->first)
        outs(w, ",");
    newline(w);
    str(w, k);
    outs(w, ": ");
    w->first = 0;
}

static void open_(jw *w, const char *brace)
{
    outs(w, brace);
    w->level++;
    w->first = 1;
}

static void close_(jw *w, const char *brace)
{
    w->level--;
    if (!w->first)
        newline(w);
    outs(w, brace);
    w->first = 0;
}

static void num(jw *w, double v)
{
    if (isfinite(v))
        outf(w, "%.17g", v);
    else
        outs(w, "null");
}

static void k_num(jw *w, const char *k, double v)
{
    key(w, k);
    num(w, v);
}

static void k_u64(jw *w, const char *k, uint64_t v)
{
    key(w, k);
    outf(w, "%" PRIu64, v);
}

static void k_str(jw *w, const char *k, const char *v)
{
    key(w, k);
    str(w, v);
}

static void k_bool(jw *w, const char *k, int v)
{
    key(w, k);
    outs(w, v ? "true" : "false");
}


/* ---- sections ---------------------------------------------------- */

static int section(pt_timing *t, jw *w, const pt_section *s)
{
    pt_section_stats st;
    char *path = pt__section_path_dup(s);
    int rc = 0;

    if (!path)
        return PT_ENOMEM;
    pt__stats_of(t, s, &st);

    open_(w, "{");
    k_str(w, "name", s->name);
    k_str(w, "path", path);
    free(path);
    k_u64(w, "depth", (uint64_t)st.depth);
    k_str(w, "kind", pt__kind_name(s->kind));
    k_bool(w, "open", st.open);
    for (size_t i = 0; i < pt__nfigures; i++) {
        const pt__figure *fig = &pt__figures[i];
        double v = pt__figure_value(&st, fig);
        if (fig->type == PT__FIG_F64)
            k_num(w, fig->name, v);
        else if (fig->type == PT__FIG_U64)
            k_u64(w, fig->name, (uint64_t)v);
        else
            k_str(w, fig->name, pt__bound_name((int)v));
    }
    key(w, "children");
    open_(w, "[");
    for (const pt_section *c = s->child; c && rc == 0 && !w->err; c = c->next) {
        if (!w->first)
            outs(w, ",");
        newline(w);
        w->first = 0;
        rc = section(t, w, c);
    }
    close_(w, "]");
    close_(w, "}");
    return rc;
}

/* ---- each thread's part ------------------------------------------ */

static int parts(pt_timing *t, jw *w, const pt_section *s, int thread)
{
    int rc = 0;

    for (const pt_section *c = s->child; c && rc == 0 && !w->err; c = c->next) {
        pt_thread_part p;
        if (pt__section_part(t, c, thread, &p) == 0 && p.count > 0) {
            char *path = pt__section_path_dup(c);
            if (!path)
                return PT_ENOMEM;
            if (!w->first)
                outs(w, ",");
            newline(w);
            w->first = 0;
            open_(w, "{");
            k_str(w, "path", path);
            k_u64(w, "count", p.count);
            k_num(w, "total_ms", p.total_ms);
            close_(w, "}");
            free(path);
        }
        rc = parts(t, w, c, thread);
    }
    return rc;
}

/* ---- memory ------------------------------------------------------ */

static void memory(const pt_timing *t, jw *w)
{
    pt_memory_stats ms;
    const char *name, *dtype;
    const void *ptr;
    const long long *shape;
    double bytes;
    int nd;

    pt_memory_get(t, &ms);
    key(w, "memory");
    open_(w, "{");
    key(w, "tensors");
    open_(w, "[");
    for (size_t i = 0; pt__memory_tensor(t, i, &name, &ptr, &bytes, &shape, &nd, &dtype); i++) {
        if (!w->first)
            outs(w, ",");
        newline(w);
        w->first = 0;
        open_(w, "{");
        k_str(w, "name", name);
        k_num(w, "bytes", bytes);
        key(w, "shape");
        outs(w, "[");
        for (int d = 0; d < nd; d++)
            outf(w, "%s%lld", d ? ", " : "", shape[d]);
        outs(w, "]");
        k_str(w, "dtype", dtype);
        close_(w, "}");
    }
    close_(w, "]");
    k_num(w, "total", ms.total);
    k_num(w, "peak", ms.peak);
    k_num(w, "device_free", ms.device_sampled ? ms.device_free : NAN);
    k_num(w, "device_total", ms.device_sampled ? ms.device_total : NAN);
    k_num(w, "device_used_peak", ms.device_sampled ? ms.device_used_peak : NAN);
    close_(w, "}");
}

/* ---- the document ------------------------------------------------ */

static int document(pt_timing *t, jw *w)
{
    pt_run_stats rs = pt_stats(t);
    const pt_dev_clock *dc = &t->dev_clock;
    char created[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    int rc = 0;

    if (gmtime_r(&now, &tm))
        strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);

    open_(w, "{");
    k_u64(w, "schema", PT_JSON_SCHEMA);
    k_str(w, "tool", "ptkit");
    k_str(w, "version", pt_version());
    k_str(w, "name", t->name);
    k_str(w, "created", created);

    key(w, "units");
    open_(w, "{");
    k_str(w, "time", "ms");
    k_str(w, "bytes", "B");
    k_str(w, "bandwidth", "GB/s (1e9 B/s)");
    k_str(w, "compute", "GFLOP/s (1e9 FLOP/s)");
    k_str(w, "percent", "%");
    close_(w, "}");

    key(w, "clock");
    open_(w, "{");
    k_str(w, "kind", rs.clock);
    key(w, "ghz");
    if (strcmp(rs.clock, "tsc") == 0)
        num(w, rs.clock_ghz);
    else
        outs(w, "null");
    close_(w, "}");

    key(w, "stats");
    open_(w, "{");
    k_u64(w, "section_count", rs.section_count);
    k_num(w, "total_ms", rs.total_ms);
    k_u64(w, "error_count", rs.error_count);
    k_bool(w, "gpu_timing", rs.gpu_timing);
    k_bool(w, "gpu_fallback", rs.gpu_fallback);
    k_u64(w, "open_count", rs.open_count);
    k_u64(w, "dropped", rs.dropped);
    k_u64(w, "trace_dropped", rs.trace_dropped);
    close_(w, "}");

    key(w, "threads");
    open_(w, "[");
    for (int i = 0; i < rs.threads; i++) {
        pt_thread_info ti;
        if (pt_thread_stats(t, i, &ti) < 0)
            continue;
        if (!w->first)
            outs(w, ",");
        newline(w);
        w->first = 0;
        open_(w, "{");
        k_u64(w, "index", (uint64_t)ti.index);
        k_u64(w, "tid", (uint64_t)ti.tid);
        k_u64(w, "occurrences", ti.occurrences);
        k_num(w, "busy_ms", ti.busy_ms);
        k_u64(w, "open", ti.open);
        key(w, "parts");
        open_(w, "[");
        if (rs.threads > 1 && (rc = parts(t, w, &t->root, i)) < 0)
            return rc;
        close_(w, "]");
        close_(w, "}");
    }
    close_(w, "]");

    pt_schedule_info si;
    pt_schedule_get(t, &si);
    key(w, "schedule");
    if (!si.on) {
        outs(w, "null");
    } else {
        open_(w, "{");
        k_u64(w, "wait", si.wait);
        k_u64(w, "warmup", si.warmup);
        k_u64(w, "active", si.active);
        k_u64(w, "repeat", si.repeat);
        k_u64(w, "steps", si.steps);
        k_u64(w, "recorded", si.recorded);
        close_(w, "}");
    }

    /* Read from the timing itself: pt_dev_clock_info() gives the same
     * struct, and the writer needs no more than that. */
    key(w, "device_clock");
    if (dc->calibrated || dc->folds > 0) {
        open_(w, "{");
        k_bool(w, "calibrated", dc->calibrated);
        k_num(w, "cycles_per_ns", dc->cycles_per_ns);
        k_num(w, "tick_ns", dc->tick_ns);
        key(w, "blocks_own");
        outf(w, "%lld", dc->blocks_own);
        key(w, "blocks_cal");
        outf(w, "%lld", dc->blocks_cal);
        key(w, "device");
        outf(w, "%d", dc->device);
        k_str(w, "device_name", dc->device_name);
        key(w, "folds");
        outf(w, "%lld", dc->folds);
        key(w, "slots_skipped");
        outf(w, "%lld", dc->slots_skipped);
        close_(w, "}");
    } else {
        outs(w, "null");
    }

    key(w, "peaks");
    if (t->peak_src == PT__PEAKS_USER || t->peak_src == PT__PEAKS_DEVICE) {
        open_(w, "{");
        k_num(w, "bytes_per_s", t->peak_bw);
        k_num(w, "flops_per_s", t->peak_flops);
        k_str(w, "source", t->peak_src == PT__PEAKS_USER ? "user" : "device");
        close_(w, "}");
    } else {
        outs(w, "null");
    }
    memory(t, w);

    key(w, "errors");
    open_(w, "{");
    k_u64(w, "count", pt_error_count(t));
    k_str(w, "last", pt_last_error(t));
    key(w, "by_code");
    open_(w, "{");
    for (int code = -1; code > PT__ERR_LAST; code--)
        if (pt_error_count_of(t, code))
            k_u64(w, pt_err_name(code), pt_error_count_of(t, code));
    close_(w, "}");
    close_(w, "}");

    key(w, "sections");
    open_(w, "[");
    for (const pt_section *c = t->root.child; c && rc == 0 && !w->err; c = c->next) {
        if (!w->first)
            outs(w, ",");
        newline(w);
        w->first = 0;
        rc = section(t, w, c);
    }
    close_(w, "]");
    close_(w, "}");
    outs(w, "\n");
    return rc;
}

int pt_export_json(pt_timing *t, const char *path)
{
    pt__afile a;
    jw w;
    int rc;

    if (!t)
        return 0;
    rc = pt__afile_open(t, &a, path);
    if (rc)
        return rc;
    pt__settle(t);
    w.f = a.f;
    w.level = 0;
    w.first = 1;
    w.err = 0;
    rc = document(t, &w);
    return pt__afile_finish(t, &a, rc, "pt_export_json", path, 1);
}
