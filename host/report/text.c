/* The text report: the indented tree, the flat table and the bottlenecks.
 *
 * Every view builds its lines in one place and hands them, one at a time
 * and without the newline, to a line sink. pt_log_fn() gives the user's
 * function as the sink; pt_log() gives one that writes to a FILE, so both
 * print exactly the same lines.
 *
 * Columns are sized to their widest cell and separated by two spaces, so
 * they stay aligned whatever the numbers are. Widths count code points,
 * not bytes, so "±" and UTF-8 titles do not shift the columns. Titles are
 * cleaned before they are measured: control characters become visible
 * escapes ("\n") and bytes that are not UTF-8 become "\xHH", so a title
 * can never split a line or upset a terminal. */
#include "core/errors.h"
#include "core/schedule.h"
#include "core/stats.h"
#include "core/threads.h"
#include "core/timing.h"
#include "core/tree.h"
#include "gpu/memory.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Beyond this the tree's name column is cut with an ellipsis; the flat
 * table shows whole paths, since a path is the row's identity there. */
#define NAME_MAX_W 50
#define GAP "  "
#define CELL 96

/* ---- the line sink ----------------------------------------------- */

typedef struct sink {
    pt_line_fn fn;
    void *ctx;
    char *buf;
    size_t len, cap;
    int oom;
} sink;

static int reserve(sink *k, size_t more)
{
    size_t need = k->len + more + 1, cap;
    char *b;

    if (k->oom)
        return -1;
    if (need <= k->cap)
        return 0;
    cap = k->cap ? k->cap : 256;
    while (cap < need)
        cap *= 2;
    b = realloc(k->buf, cap);
    if (!b) {
        k->oom = 1;
        return -1;
    }
    k->buf = b;
    k->cap = cap;
    return 0;
}

static void put_n(sink *k, const char *s, size_t n)
{
    if (reserve(k, n) < 0)
        return;
    memcpy(k->buf + k->len, s, n);
    k->len += n;
    k->buf[k->len] = '\0';
}

static void put_str(sink *k, const char *s)
{
    put_n(k, s, strlen(s));
}

static void put_spaces(sink *k, size_t n)
{
    if (reserve(k, n) < 0)
        return;
    memset(k->buf + k->len, ' ', n);
    k->len += n;
    k->buf[k->len] = '\0';
}

static void put(sink *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sink *k, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(k, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(k->buf + k->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    k->len += (size_t)n;
}

/* Hands the line built so far to the sink, without trailing blanks. */
static void emit(sink *k)
{
    if (k->oom)
        return;
    if (reserve(k, 0) < 0)
        return;
    while (k->len && k->buf[k->len - 1] == ' ')
        k->len--;
    k->buf[k->len] = '\0';
    k->fn(k->ctx, k->buf);
    k->len = 0;
}

/* ---- cleaning and measuring text --------------------------------- */

/* Length of the well-formed UTF-8 sequence at p, or 0 if there is none
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_len(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80
                   ? 4 : 0;
    }
    return 0;
}

/* Appends s with control characters and invalid bytes made visible. */
static void put_clean(sink *k, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_len(p);
        if (n == 1 && *p >= 0x20 && *p != 0x7F) {
            const unsigned char *q = p;
            while (*q >= 0x20 && *q < 0x7F)
                q++;
            put_n(k, (const char *)p, (size_t)(q - p));
            p = q;
            continue;
        }
        if (n > 1) {
            put_n(k, (const char *)p, n);
            p += n;
            continue;
        }
        switch (*p) {
        case '\n': put_str(k, "\\n"); break;
        case '\r': put_str(k, "\\r"); break;
        case '\t': put_str(k, "\\t"); break;
        default: put(k, "\\x%02X", *p); break;
        }
        p++;
    }
}

static char *clean_dup(const char *s)
{
    sink k = { 0 };
    put_clean(&k, s);
    if (!k.oom && reserve(&k, 0) == 0)
        return k.buf;
    free(k.buf);
    return NULL;
}

/* Display width of clean UTF-8 text: one column per code point. */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* The first `cols` code points of s, as a byte count. */
static size_t prefix_bytes(const char *s, size_t cols)
{
    size_t i = 0;
    while (s[i] && cols) {
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        cols--;
    }
    return i;
}

static void put_cell(sink *k, const char *s, size_t w, int right)
{
    size_t sw = width(s), pad = sw < w ? w - sw : 0;
    if (right)
        put_spaces(k, pad);
    put_str(k, s);
    if (!right)
        put_spaces(k, pad);
}

/* ---- numbers ----------------------------------------------------- */

/* Milliseconds to the microsecond; shorter times keep three digits
 * rather than reading as a misleading 0.000. */
static void fmt_ms(char *b, double v)
{
    if (v == 0 || fabs(v) >= 0.0005)
        snprintf(b, CELL, "%.3f", v);
    else
        snprintf(b, CELL, "%.3g", v);
}

/* A rate (GB/s, GFLOP/s); blank when zero, as nothing was declared. */
static void fmt_rate(char *b, double v)
{
    if (v == 0)
        b[0] = '\0';
    else if (v >= 100)
        snprintf(b, CELL, "%.1f", v);
    else if (v >= 0.01)
        snprintf(b, CELL, "%.2f", v);
    else
        snprintf(b, CELL, "%.3g", v);
}

/* Bytes in decimal units, to match GB/s being 1e9 bytes per second. */
static void fmt_bytes(char *b, double v)
{
    static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
    int u = 0;
    while (v >= 1000 && u < 5) {
        v /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(b, CELL, "%.0f B", v);
    else
        snprintf(b, CELL, "%.1f %s", v, unit[u]);
}

static void fmt_pct(char *b, double v)
{
    snprintf(b, CELL, "%.1f%%", v);
}

/* ---- rows -------------------------------------------------------- */

enum { C_CALLS, C_TOTAL, C_PPARENT, C_PTOTAL, C_FIRST, C_LATER, C_READ, C_WRITE, C_GFLOPS,
       NCOL };

typedef struct row {
    const pt_section *s;
    pt_section_stats st;
    char *label;              /* the clean title (tree) or path (table, bottlenecks) */
    char cell[NCOL][CELL];    /* the printing view's cells, by its column enum */
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
} rows;

static void rows_free(rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i].label);
    free(r->v);
}

static char *path_dup(const pt_section *s)
{
    char *raw = pt__section_path_dup(s), *clean;

    if (!raw)
        return NULL;
    clean = clean_dup(raw);
    free(raw);
    return clean;
}

static int rows_add(const pt_timing *t, rows *r, const pt_section *s, int paths)
{
    row *w;

    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 32;
        row *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return PT_ENOMEM;
        r->v = v;
        r->cap = cap;
    }
    w = &r->v[r->n];
    memset(w->cell, 0, sizeof w->cell);
    w->s = s;
    pt__stats_of(t, s, &w->st);
    w->label = paths ? path_dup(s) : clean_dup(s->name);
    if (!w->label)
        return PT_ENOMEM;
    r->n++;
    return 0;
}

/* The sections to show, depth first, siblings in the order asked. When
 * the sorted copy cannot be allocated the siblings are taken in order of
 * first start: a report in the wrong order beats no report. */
static int collect(const pt_timing *t, const pt_section *parent, const pt_log_opts *o,
                   int paths, rows *r)
{
    const pt_section **kids = NULL;
    const pt_section *c;
    size_t n, i = 0;
    int rc = 0;

    if (o->max_depth > 0 && parent->depth + 1 > o->max_depth)
        return 0;
    n = pt__sorted_children(parent, o->sort, &kids);
    c = kids ? (n ? kids[0] : NULL) : parent->child;
    while (c && rc == 0) {
        rc = rows_add(t, r, c, paths);
        if (rc == 0)
            rc = collect(t, c, o, paths, r);
        c = kids ? (++i < n ? kids[i] : NULL) : c->next;
    }
    free(kids);
    return rc;
}

/* ---- header and footer ------------------------------------------- */

/* "thread 2 (tid 4242)", and ", creator" for thread 0. */
static void put_thread(sink *k, const pt_thread_info *ti)
{
    put(k, "thread %d (tid %ld)%s", ti->index, ti->tid, ti->index == 0 ? ", creator" : "");
}

/* Sections from several threads are pooled by path; say so, with how
 * evenly the threads were busy, and with per_thread a line for each. */
static void thread_lines(pt_timing *t, sink *k, int n, int per_thread)
{
    double lo = 0, hi = 0, sum = 0;
    char a[CELL], b[CELL];
    int busy = 0;

    for (int i = 0; i < n; i++) {
        pt_thread_info ti;
        if (pt_thread_stats(t, i, &ti) < 0 || !ti.occurrences)
            continue;
        lo = busy && lo < ti.busy_ms ? lo : ti.busy_ms;
        hi = busy && hi > ti.busy_ms ? hi : ti.busy_ms;
        sum += ti.busy_ms;
        busy++;
    }
    fmt_ms(a, lo);
    fmt_ms(b, hi);
    put(k, "  threads: %d, %d of them timed sections (pooled by path); busy per thread %s to %s ms",
        n, busy, a, b);
    if (busy > 1 && sum > 0)
        put(k, ", imbalance %.2f (max/mean)", hi / (sum / busy));
    emit(k);
    for (int i = 0; per_thread && i < n; i++) {
        pt_thread_info ti;
        if (pt_thread_stats(t, i, &ti) < 0)
            continue;
        fmt_ms(a, ti.busy_ms);
        put_str(k, "    ");
        put_thread(k, &ti);
        put(k, ": %" PRIu64 " occurrence%s, busy %s ms", ti.occurrences,
            ti.occurrences == 1 ? "" : "s", a);
        if (ti.open)
            put(k, ", %zu open", ti.open);
        emit(k);
    }
}

static void header(pt_timing *t, sink *k, const pt_run_stats *rs, int per_thread)
{
    char ms[CELL];

    fmt_ms(ms, rs->total_ms);
    put_str(k, "ptkit report \"");
    put_clean(k, t->name);
    put(k, "\": %zu section%s, %s ms total, clock %s", rs->section_count,
        rs->section_count == 1 ? "" : "s", ms, rs->clock);
    if (strcmp(rs->clock, "tsc") == 0)
        put(k, " at %.3f GHz", rs->clock_ghz);
    emit(k);

    if (t->gpu_fallback) {
        put_str(k, "  note: GPU sections timed by the CPU clock (no CUDA device/driver)");
        emit(k);
    }
    /* The conversion of device cycles is stated whenever a fold used it,
     * with how many blocks went each way, so a reader can judge the
     * per-block times below. */
    if (t->dev_clock.calibrated || t->dev_clock.folds > 0) {
        const pt_dev_clock *c = &t->dev_clock;
        /* Host mode counts the TSC, not an SM's clock64. */
        const char *clk = c->device >= 0 ? "SM clock" : "host TSC";
        put_str(k, "  device clock: ");
        put_clean(k, c->device_name[0] ? c->device_name : "unknown device");
        if (c->device >= 0)
            put(k, " (device %d)", c->device);
        if (c->calibrated)
            put(k, ", %s %.3f GHz calibrated, globaltimer tick %.0f ns; "
                   "%lld block%s timed by their own measured rate, %lld by the calibrated rate",
                clk, c->cycles_per_ns, c->tick_ns, c->blocks_own, c->blocks_own == 1 ? "" : "s",
                c->blocks_cal);
        else
            put(k, ", %s %.3f GHz: launch-average rate, calibration unavailable; "
                   "%lld block%s timed by their own measured rate",
                clk, c->cycles_per_ns, c->blocks_own, c->blocks_own == 1 ? "" : "s");
        put(k, "; %lld fold%s, %lld slot%s skipped (no END)", c->folds, c->folds == 1 ? "" : "s",
            c->slots_skipped, c->slots_skipped == 1 ? "" : "s");
        emit(k);
    }
    if (t->peak_src == PT__PEAKS_USER || t->peak_src == PT__PEAKS_DEVICE) {
        put(k, "  peaks: %.1f GB/s, %.1f GFLOP/s (%s); ridge point %.3g FLOP/B",
            t->peak_bw / 1e9, t->peak_flops / 1e9,
            t->peak_src == PT__PEAKS_USER ? "given" : "device, FP32", t->peak_flops / t->peak_bw);
        emit(k);
    }
    if (rs->dropped > 0) {
        put(k, "  note: %" PRIu64 " device trace event%s dropped (trace buffers full)",
            rs->dropped, rs->dropped == 1 ? "" : "s");
        emit(k);
    }
    if (rs->trace_dropped > 0) {
        put(k, "  note: %" PRIu64 " event%s left out of the trace (past pt_set_trace_capacity())",
            rs->trace_dropped, rs->trace_dropped == 1 ? "" : "s");
        emit(k);
    }
    if (rs->threads > 1)
        thread_lines(t, k, rs->threads, per_thread);
    /* A schedule recorded only some steps: the figures are theirs alone. */
    char sched[160];
    pt__sched_describe(t, sched, sizeof sched);
    if (sched[0]) {
        put(k, "  %s", sched);
        emit(k);
    }
}

static void footer(pt_timing *t, sink *k, const pt_run_stats *rs, const char *stack)
{
    if (rs->open_count > 0) {
        put(k, "%zu section%s open at report time: ", rs->open_count,
            rs->open_count == 1 ? "" : "s");
        put_clean(k, stack);
        emit(k);
    }
    if (rs->error_count > 0) {
        put(k, "%" PRIu64 " error%s; last: ", rs->error_count, rs->error_count == 1 ? "" : "s");
        put_clean(k, pt_last_error(t));
        emit(k);
    }
}

static void rule(sink *k, char c, size_t n)
{
    if (reserve(k, n) < 0)
        return;
    memset(k->buf + k->len, c, n);
    k->len += n;
    k->buf[k->len] = '\0';
    emit(k);
}

/* ---- the tree ---------------------------------------------------- */

static const char *marks_of(const pt_section_stats *st)
{
    if (st->gpu && st->open)
        return " [gpu] [open]";
    if (st->gpu)
        return " [gpu]";
    if (st->open)
        return " [open]";
    return "";
}

static void put_name(sink *k, size_t indent, const char *label, const char *marks, size_t w)
{
    size_t lw = width(label), mw = width(marks), used;
    size_t avail = w > indent + mw ? w - indent - mw : 0;

    put_spaces(k, indent);
    if (lw <= avail) {
        put_str(k, label);
        used = indent + lw;
    } else {
        /* Keep a few characters of a very deep title rather than none. */
        if (avail < 4)
            avail = 4;
        put_n(k, label, prefix_bytes(label, avail - 1));
        put_str(k, "\xE2\x80\xA6"); /* U+2026 HORIZONTAL ELLIPSIS */
        used = indent + avail;
    }
    put_str(k, marks);
    used += mw;
    if (used < w)
        put_spaces(k, w - used);
}

static void tree_cells(row *w)
{
    const pt_section_stats *st = &w->st;

    snprintf(w->cell[C_CALLS], CELL, "%" PRIu64, st->count);
    fmt_ms(w->cell[C_TOTAL], st->total_ms);
    fmt_pct(w->cell[C_PPARENT], st->pct_parent);
    fmt_pct(w->cell[C_PTOTAL], st->pct_total);
    fmt_ms(w->cell[C_FIRST], st->first_ms);
    if (st->count > 1) {
        char m[CELL], sd[CELL], lo[CELL], hi[CELL];
        fmt_ms(m, st->mean_ms);
        fmt_ms(sd, st->stddev_ms);
        fmt_ms(lo, st->min_ms);
        fmt_ms(hi, st->max_ms);
        snprintf(w->cell[C_LATER], CELL, "%.20s \xC2\xB1 %.20s (%.20s, %.20s)", m, sd, lo, hi);
    }
    fmt_rate(w->cell[C_READ], st->read_gbs);
    fmt_rate(w->cell[C_WRITE], st->write_gbs);
    fmt_rate(w->cell[C_GFLOPS], st->gflops);
}

/* The lines under a row: transfers per direction, and for a folded
 * phase the per-block figures that show how evenly the grid worked. */
static void tree_extra(sink *k, const row *w, size_t indent)
{
    static const char *const dir[3] = { "H2D", "D2H", "D2D" };
    const pt_section_stats *st = &w->st;
    char a[CELL], b[CELL], c[CELL];

    for (int i = 0; i < 3; i++) {
        if (st->xfer_bytes[i] <= 0)
            continue;
        fmt_bytes(b, st->xfer_bytes[i]);
        put_spaces(k, indent + 4);
        if (st->xfer_gbs[i] > 0) {
            fmt_rate(a, st->xfer_gbs[i]);
            put(k, "%s %s GB/s (%s)", dir[i], a, b);
        } else {
            put(k, "%s (%s, no time)", dir[i], b);
        }
        emit(k);
    }
    /* The roofline line only where peaks are known and something was declared. */
    if (st->pct_peak_bw > 0 || st->pct_peak_flops > 0 || st->bound) {
        put_spaces(k, indent + 4);
        put_str(k, "roofline:");
        if (st->ai > 0)
            put(k, " AI %.3g FLOP/B,", st->ai);
        put(k, " %.1f%% of peak bandwidth, %.1f%% of peak FLOP/s", st->pct_peak_bw,
            st->pct_peak_flops);
        if (st->bound)
            put(k, ", %s", st->bound == PT_BOUND_MEMORY ? "memory-bound" : "compute-bound");
        emit(k);
    }
    if (st->phase && st->blocks > 0) {
        fmt_ms(a, st->block_mean_ms);
        fmt_ms(b, st->block_min_ms);
        fmt_ms(c, st->block_max_ms);
        put_spaces(k, indent + 4);
        put(k, "per block: mean %s ms, min %s ms, max %s ms, imbalance %.2f (max/mean); "
               "%" PRIu64 " block%s, %.17g hits",
            a, b, c, st->imbalance, st->blocks, st->blocks == 1 ? "" : "s", st->hits);
        emit(k);
    }
}

static void view_tree(sink *k, rows *r, const pt_log_opts *o)
{
    static const char *const head[NCOL] = { "Calls", "Total ms", "% parent", "% total",
                                            "First ms", "Later: mean \xC2\xB1 sd (min, max)",
                                            "Read GB/s", "Write GB/s", "GFLOP/s" };
    size_t w[NCOL], name_w = strlen("Section"), total_w;
    int show[NCOL];

    for (int c = 0; c < NCOL; c++) {
        show[c] = o->percentages || (c != C_PPARENT && c != C_PTOTAL);
        w[c] = width(head[c]);
    }
    for (size_t i = 0; i < r->n; i++) {
        row *x = &r->v[i];
        size_t nw = (size_t)(x->st.depth - 1) * 2 + width(x->label) + width(marks_of(&x->st));
        tree_cells(x);
        if (nw > name_w)
            name_w = nw;
        for (int c = 0; c < NCOL; c++)
            if (width(x->cell[c]) > w[c])
                w[c] = width(x->cell[c]);
    }
    if (name_w > NAME_MAX_W)
        name_w = NAME_MAX_W;

    total_w = name_w;
    put_cell(k, "Section", name_w, 0);
    for (int c = 0; c < NCOL; c++) {
        if (!show[c])
            continue;
        put_str(k, GAP);
        put_cell(k, head[c], w[c], c != C_LATER);
        total_w += strlen(GAP) + w[c];
    }
    emit(k);
    rule(k, '-', total_w);

    for (size_t i = 0; i < r->n; i++) {
        row *x = &r->v[i];
        size_t indent = (size_t)(x->st.depth - 1) * 2;
        put_name(k, indent, x->label, marks_of(&x->st), name_w);
        for (int c = 0; c < NCOL; c++) {
            if (!show[c])
                continue;
            put_str(k, GAP);
            put_cell(k, x->cell[c], w[c], c != C_LATER);
        }
        emit(k);
        tree_extra(k, x, indent);
    }
}

/* The heading of a table whose first column is left-aligned and the
 * others right-aligned, between rules (above it only when `above` is a
 * character); returns the table's width. */
static size_t head_row(sink *k, const char *first, size_t name_w, const char *const *head,
                       const size_t *w, int ncol, char above)
{
    size_t total_w = name_w;

    for (int c = 0; c < ncol; c++)
        total_w += strlen(GAP) + w[c];
    if (above)
        rule(k, above, total_w);
    put_cell(k, first, name_w, 0);
    for (int c = 0; c < ncol; c++) {
        put_str(k, GAP);
        put_cell(k, head[c], w[c], 1);
    }
    emit(k);
    rule(k, '-', total_w);
    return total_w;
}

/* ---- each thread's part ------------------------------------------ */

enum { P_CALLS, P_TOTAL, P_MEAN, P_PCT, PCOL };

/* The tree's sections again, under each thread that ran them: that
 * thread's calls, time, mean and share of the pooled section. Threads
 * that ran nothing are left out, and so are the sections a thread never
 * ran. Rows are the tree view's, so the order and depth limit hold. */
static int view_threads(pt_timing *t, sink *k, const rows *r, int nthreads)
{
    static const char *const head[PCOL] = { "Calls", "Total ms", "Mean ms", "% of section" };
    pt_thread_part *part;
    size_t w[PCOL], name_w = strlen("Section by thread"), cells;
    char (*cell)[PCOL][CELL];
    int ngroups = nthreads + 1; /* the merged runs, then threads 0.. */

    if (r->n == 0)
        return 0;
    cells = (size_t)ngroups * r->n;
    part = calloc(cells, sizeof *part);
    cell = calloc(cells, sizeof *cell);
    if (!part || !cell) {
        free(part);
        free(cell);
        return PT_ENOMEM;
    }
    for (int c = 0; c < PCOL; c++)
        w[c] = strlen(head[c]);
    for (int g = 0; g < ngroups; g++)
        for (size_t i = 0; i < r->n; i++) {
            size_t at = (size_t)g * r->n + i;
            pt_thread_part *p = &part[at];
            if (pt__section_part(t, r->v[i].s, g - 1, p) < 0 || p->count == 0)
                continue;
            snprintf(cell[at][P_CALLS], CELL, "%" PRIu64, p->count);
            fmt_ms(cell[at][P_TOTAL], p->total_ms);
            fmt_ms(cell[at][P_MEAN], p->mean_ms);
            fmt_pct(cell[at][P_PCT], p->pct_section);
            for (int c = 0; c < PCOL; c++)
                if (strlen(cell[at][c]) > w[c])
                    w[c] = strlen(cell[at][c]);
            size_t nw = (size_t)r->v[i].st.depth * 2 + width(r->v[i].label);
            if (nw > name_w)
                name_w = nw;
        }
    if (name_w > NAME_MAX_W)
        name_w = NAME_MAX_W;
    emit(k);
    head_row(k, "Section by thread", name_w, head, w, PCOL, 0);
    /* Threads in order, the runs merged in last. */
    for (int n = 0; n < ngroups; n++) {
        int g = n + 1 < ngroups ? n + 1 : 0, any = 0;
        for (size_t i = 0; i < r->n && !any; i++)
            any = part[(size_t)g * r->n + i].count > 0;
        if (!any)
            continue;
        if (g == 0) {
            put_str(k, "merged from other runs (pt_unpack_merge)");
        } else {
            pt_thread_info ti;
            if (pt_thread_stats(t, g - 1, &ti) == 0)
                put_thread(k, &ti);
            else
                put(k, "thread %d", g - 1);
        }
        emit(k);
        for (size_t i = 0; i < r->n; i++) {
            size_t at = (size_t)g * r->n + i;
            if (part[at].count == 0)
                continue;
            put_name(k, (size_t)r->v[i].st.depth * 2, r->v[i].label, "", name_w);
            for (int c = 0; c < PCOL; c++) {
                put_str(k, GAP);
                put_cell(k, cell[at][c], w[c], 1);
            }
            emit(k);
        }
    }
    free(part);
    free(cell);
    return 0;
}

/* ---- the flat table ---------------------------------------------- */

enum { T_CALLS, T_TOTAL, T_MEAN, T_MIN, T_MAX, TCOL };

/* The table's figures are over all occurrences, the first included,
 * where pt_section_stats keeps the first apart from the rest. */
static void table_cells(row *w)
{
    const pt_section_stats *st = &w->st;
    double lo = st->first_ms, hi = st->first_ms;

    if (st->count > 1) {
        lo = st->min_ms < lo ? st->min_ms : lo;
        hi = st->max_ms > hi ? st->max_ms : hi;
    }
    snprintf(w->cell[T_CALLS], CELL, "%" PRIu64, st->count);
    snprintf(w->cell[T_TOTAL], CELL, "%.3f", st->total_ms);
    snprintf(w->cell[T_MEAN], CELL, "%.3f", st->count ? st->total_ms / (double)st->count : 0);
    snprintf(w->cell[T_MIN], CELL, "%.3f", lo);
    snprintf(w->cell[T_MAX], CELL, "%.3f", hi);
}

static void view_table(sink *k, rows *r, const pt_run_stats *rs)
{
    static const char *const head[TCOL] = { "Calls", "Total (ms)", "Mean (ms)", "Min (ms)",
                                            "Max (ms)" };
    size_t w[TCOL], name_w = strlen("Section"), total_w;
    char total[CELL];

    snprintf(total, CELL, "%.3f", rs->total_ms);
    for (int c = 0; c < TCOL; c++)
        w[c] = strlen(head[c]);
    if (strlen(total) > w[T_TOTAL])
        w[T_TOTAL] = strlen(total);
    for (size_t i = 0; i < r->n; i++) {
        row *x = &r->v[i];
        table_cells(x);
        if (width(x->label) > name_w)
            name_w = width(x->label);
        for (int c = 0; c < TCOL; c++)
            if (strlen(x->cell[c]) > w[c])
                w[c] = strlen(x->cell[c]);
    }
    total_w = head_row(k, "Section", name_w, head, w, TCOL, '=');
    for (size_t i = 0; i < r->n; i++) {
        row *x = &r->v[i];
        put_cell(k, x->label, name_w, 0);
        for (int c = 0; c < TCOL; c++) {
            put_str(k, GAP);
            put_cell(k, x->cell[c], w[c], 1);
        }
        if (x->st.open)
            put_str(k, GAP "[open]");
        emit(k);
    }
    rule(k, '-', total_w);
    put_cell(k, "TOTAL", name_w, 0);
    put_str(k, GAP);
    put_spaces(k, w[T_CALLS]);
    put_str(k, GAP);
    put_cell(k, total, w[T_TOTAL], 1);
    emit(k);
    rule(k, '=', total_w);
}

/* ---- bottlenecks ------------------------------------------------- */

enum { B_RANK, B_SECTION, B_SELF, B_PCT, B_CALLS, BCOL };

static int view_bottlenecks(pt_timing *t, sink *k, const pt_log_opts *o, const pt_run_stats *rs)
{
    size_t top = o->top > 0 ? (size_t)o->top : 10, n;
    const pt_section **v;
    rows r = { 0 };
    int rc = 0;

    /* A generous .top must not become a huge allocation. */
    if (top > t->main.nsections)
        top = t->main.nsections ? t->main.nsections : 1;
    v = malloc(top * sizeof *v);
    if (!v)
        return PT_ENOMEM;
    n = pt_bottlenecks(t, top, v);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = rows_add(t, &r, v[i], 1);
    free(v);
    if (rc == 0) {
        static const char *const head[BCOL] = { "Rank", "Section", "Self ms", "% of whole",
                                            "Calls" };
        size_t w[BCOL], total_w = 0;
        for (int c = 0; c < BCOL; c++)
            w[c] = strlen(head[c]);
        for (size_t i = 0; i < r.n; i++) {
            row *x = &r.v[i];
            double pct = rs->total_ms > 0 ? 100.0 * x->st.self_ms / rs->total_ms : 0;
            snprintf(x->cell[B_RANK], CELL, "%zu", i + 1);
            fmt_ms(x->cell[B_SELF], x->st.self_ms);
            fmt_pct(x->cell[B_PCT], pct);
            snprintf(x->cell[B_CALLS], CELL, "%" PRIu64, x->st.count);
            for (int c = 0; c < BCOL; c++) {
                size_t cw = c == B_SECTION ? width(x->label) : strlen(x->cell[c]);
                if (cw > w[c])
                    w[c] = cw;
            }
        }
        for (int c = 0; c < BCOL; c++) {
            if (c)
                put_str(k, GAP);
            put_cell(k, head[c], w[c], c != B_SECTION);
        }
        emit(k);
        for (int c = 0; c < BCOL; c++)
            total_w += w[c] + (c ? strlen(GAP) : 0);
        rule(k, '-', total_w);
        for (size_t i = 0; i < r.n; i++) {
            row *x = &r.v[i];
            for (int c = 0; c < BCOL; c++) {
                if (c)
                    put_str(k, GAP);
                put_cell(k, c == B_SECTION ? x->label : x->cell[c], w[c], c != B_SECTION);
            }
            emit(k);
        }
    }
    rows_free(&r);
    return rc;
}

/* ---- memory ------------------------------------------------------ */

/* Sizes in MB of 1e6 bytes, as the rates are in GB/s of 1e9. */
static void view_memory(pt_timing *t, sink *k, rows *r)
{
    static const char *const head[4] = { "Tensor", "Shape", "Dtype", "Size (MB)" };
    pt_memory_stats ms;
    size_t w[4], total_w = 0, n = 0;
    const char *name, *dtype;
    const void *ptr;
    const long long *shape;
    double bytes;
    int nd;
    char cell[CELL], shp[CELL];

    pt_memory_get(t, &ms);
    for (int c = 0; c < 4; c++)
        w[c] = strlen(head[c]);
    /* Two passes over the tensors: widths, then lines. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            for (int c = 0; c < 4; c++)
                total_w += w[c] + (c ? strlen(GAP) : 0);
            rule(k, '=', total_w);
            for (int c = 0; c < 4; c++) {
                if (c)
                    put_str(k, GAP);
                put_cell(k, head[c], w[c], c == 3);
            }
            emit(k);
            rule(k, '-', total_w);
        }
        for (size_t i = 0; pt__memory_tensor(t, i, &name, &ptr, &bytes, &shape, &nd, &dtype); i++) {
            size_t len = 0;
            char *clean = clean_dup(name);
            shp[len++] = '(';
            for (int d = 0; d < nd && len < CELL - 24; d++)
                len += (size_t)snprintf(shp + len, CELL - len, "%s%lld", d ? ", " : "", shape[d]);
            snprintf(shp + len, CELL - len, "%s)", nd == 1 ? "," : "");
            snprintf(cell, CELL, "%.3f", bytes / 1e6);
            if (pass == 0) {
                size_t cw[4] = { clean ? width(clean) : 0, strlen(shp), width(dtype), strlen(cell) };
                for (int c = 0; c < 4; c++)
                    w[c] = cw[c] > w[c] ? cw[c] : w[c];
            } else {
                put_cell(k, clean ? clean : "?", w[0], 0);
                put_str(k, GAP);
                put_cell(k, shp, w[1], 0);
                put_str(k, GAP);
                put_cell(k, dtype, w[2], 0);
                put_str(k, GAP);
                put_cell(k, cell, w[3], 1);
                emit(k);
            }
            free(clean);
            n++;
        }
    }
    if (n == 0) {
        put_str(k, "(no tensors tracked)");
        emit(k);
    }
    rule(k, '-', total_w);
    snprintf(cell, CELL, "%.3f", ms.total / 1e6);
    put_cell(k, "TOTAL TRACKED", w[0] + w[1] + w[2] + 2 * strlen(GAP), 0);
    put_str(k, GAP);
    put_cell(k, cell, w[3], 1);
    emit(k);
    snprintf(cell, CELL, "%.3f", ms.peak / 1e6);
    put_cell(k, "PEAK TRACKED", w[0] + w[1] + w[2] + 2 * strlen(GAP), 0);
    put_str(k, GAP);
    put_cell(k, cell, w[3], 1);
    emit(k);
    if (ms.device_sampled) {
        rule(k, '-', total_w);
        put(k, "Device memory used %.3f MB of %.3f MB (free %.3f MB); peak used %.3f MB",
            (ms.device_total - ms.device_free) / 1e6, ms.device_total / 1e6,
            ms.device_free / 1e6, ms.device_used_peak / 1e6);
        emit(k);
    }
    /* Each section's high-water mark, where one was reached. */
    for (size_t i = 0, first = 1; i < r->n; i++) {
        const row *x = &r->v[i];
        if (x->st.mem_high_water <= 0)
            continue;
        if (first) {
            rule(k, '-', total_w);
            put_str(k, "Section high-water (MB)");
            emit(k);
            first = 0;
        }
        put_spaces(k, 2);
        put_str(k, x->label);
        put(k, GAP "%.3f", x->st.mem_high_water / 1e6);
        emit(k);
    }
    rule(k, '=', total_w);
}

/* ---- the report -------------------------------------------------- */

static int check_opts(pt_timing *t, const pt_log_opts *o, const char *fn)
{
    if (o->view < PT_VIEW_TREE || o->view > PT_VIEW_MEMORY)
        return pt__fail(t, PT_EINVAL, "%s: unknown view %d", fn, o->view);
    if (o->sort < PT_SORT_ORDER || o->sort > PT_SORT_NAME)
        return pt__fail(t, PT_EINVAL, "%s: unknown sort %d", fn, o->sort);
    if (o->max_depth < 0 || o->top < 0)
        return pt__fail(t, PT_EINVAL, "%s: max_depth (%d) and top (%d) must be >= 0", fn,
                        o->max_depth, o->top);
    return 0;
}

static int report(pt_timing *t, pt_line_fn fn, void *ctx, const pt_log_opts *o, const char *name)
{
    sink k = { .fn = fn, .ctx = ctx };
    rows r = { 0 };
    pt_run_stats rs;
    char stack[256];
    int rc = 0;

    pt__settle(t);
    rs = pt_stats(t);
    pt__stack_str(&t->main, stack, sizeof stack);

    header(t, &k, &rs, o->threads);
    if (o->view == PT_VIEW_BOTTLENECKS) {
        rc = view_bottlenecks(t, &k, o, &rs);
    } else {
        rc = collect(t, &t->root, o, o->view == PT_VIEW_TABLE || o->view == PT_VIEW_MEMORY, &r);
        if (rc == 0 && o->view == PT_VIEW_TABLE)
            view_table(&k, &r, &rs);
        else if (rc == 0 && o->view == PT_VIEW_MEMORY)
            view_memory(t, &k, &r);
        else if (rc == 0 && r.n == 0) {
            put_str(&k, "(no sections)");
            emit(&k);
        } else if (rc == 0) {
            view_tree(&k, &r, o);
            if (o->threads && rs.threads > 1)
                rc = view_threads(t, &k, &r, rs.threads);
        }
    }
    rows_free(&r);
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

static const pt_log_opts default_opts;

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
    return report(t, fn, ctx, o, "pt_log_fn");
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
