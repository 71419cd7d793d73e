/* ptreport show: the text report of a saved run, laid out as pt_log()'s
 * tree view (host/report_text.c): the same header, columns, widths, cell
 * formats, marks and extra lines, so a report made now and one made from
 * the file later read the same. The library's writer works on a live
 * timing, so the layout is repeated here on the file's figures. */
#include "ptreport.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_W 50
#define GAP "  "
#define CELL 96

/* ---- a growing line ---------------------------------------------------- */

typedef struct line {
    FILE *f;
    char *buf;
    size_t len, cap;
    int oom;
} line;

static void put_n(line *k, const char *s, size_t n)
{
    if (k->oom)
        return;
    if (k->len + n + 1 > k->cap) {
        size_t cap = k->cap ? k->cap : 256;
        char *b;
        while (cap < k->len + n + 1)
            cap *= 2;
        b = realloc(k->buf, cap);
        if (!b) {
            k->oom = 1;
            return;
        }
        k->buf = b;
        k->cap = cap;
    }
    memcpy(k->buf + k->len, s, n);
    k->len += n;
    k->buf[k->len] = '\0';
}

static void put_str(line *k, const char *s)
{
    put_n(k, s, strlen(s));
}

static void put_chars(line *k, char c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_n(k, &c, 1);
}

static void put(line *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(line *k, const char *fmt, ...)
{
    char b[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (n > 0)
        put_n(k, b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

/* Ends the line without trailing blanks, as pt_log() does. */
static void emit(line *k)
{
    if (k->oom)
        return;
    while (k->len && k->buf[k->len - 1] == ' ')
        k->len--;
    fwrite(k->buf ? k->buf : "", 1, k->len, k->f);
    fputc('\n', k->f);
    k->len = 0;
}

/* ---- text ---------------------------------------------------------------- */

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

/* Control characters made visible, so a title can never split a line. */
static void put_clean(line *k, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_len(p);
        if (n == 1 && *p >= 0x20 && *p != 0x7F) {
            put_n(k, (const char *)p, 1);
            p++;
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
    line k = { 0 };
    put_clean(&k, s);
    put_n(&k, "", 0);
    if (k.oom) {
        free(k.buf);
        return NULL;
    }
    return k.buf ? k.buf : strdup("");
}

static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

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

static void put_cell(line *k, const char *s, size_t w, int right)
{
    size_t sw = width(s), pad = sw < w ? w - sw : 0;
    if (right)
        put_chars(k, ' ', pad);
    put_str(k, s);
    if (!right)
        put_chars(k, ' ', pad);
}

/* ---- numbers, as report_text.c formats them ------------------------------ */

static void fmt_ms(char *b, double v)
{
    if (v == 0 || fabs(v) >= 0.0005)
        snprintf(b, CELL, "%.3f", v);
    else
        snprintf(b, CELL, "%.3g", v);
}

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

/* ---- rows ------------------------------------------------------------------ */

enum { C_CALLS, C_TOTAL, C_PPARENT, C_PTOTAL, C_FIRST, C_LATER, C_READ, C_WRITE, C_GFLOPS,
       NCOL };

typedef struct row {
    const pr_sec *s;
    char *label;
    char cell[NCOL][CELL];
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
    int oom;
} rows;

enum { SORT_ORDER, SORT_TIME, SORT_FLOPS, SORT_NAME };

static int sort_key;

/* The library's orders: largest first for time and FLOPS, byte order for
 * names, ties in order of first start. */
static int by_sort(const void *a, const void *b)
{
    const pr_sec *x = *(const pr_sec *const *)a, *y = *(const pr_sec *const *)b;
    int c = 0;
    switch (sort_key) {
    case SORT_TIME:
        if (x->fig[F_TOTAL] != y->fig[F_TOTAL])
            c = x->fig[F_TOTAL] < y->fig[F_TOTAL] ? 1 : -1;
        break;
    case SORT_FLOPS:
        if (x->fig[F_FLOPS] != y->fig[F_FLOPS])
            c = x->fig[F_FLOPS] < y->fig[F_FLOPS] ? 1 : -1;
        break;
    case SORT_NAME:
        c = strcmp(x->name, y->name);
        break;
    default: break;
    }
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

static void collect(const pr_sec *kids, size_t n, int depth, int max_depth, rows *r)
{
    const pr_sec **v;

    if ((max_depth > 0 && depth > max_depth) || n == 0 || r->oom)
        return;
    v = malloc(n * sizeof *v);
    if (!v) {
        r->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = &kids[i];
    qsort(v, n, sizeof *v, by_sort);
    for (size_t i = 0; i < n && !r->oom; i++) {
        if (r->n == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 32;
            row *p = realloc(r->v, cap * sizeof *p);
            if (!p) {
                r->oom = 1;
                break;
            }
            r->v = p;
            r->cap = cap;
        }
        row *w = &r->v[r->n];
        memset(w->cell, 0, sizeof w->cell);
        w->s = v[i];
        w->label = clean_dup(v[i]->name);
        if (!w->label) {
            r->oom = 1;
            break;
        }
        r->n++;
        collect(v[i]->kids, v[i]->nkids, depth + 1, max_depth, r);
    }
    free(v);
}

static const char *marks_of(const pr_sec *s)
{
    int gpu = strcmp(s->kind, "gpu") == 0;
    if (gpu && s->open)
        return " [gpu] [open]";
    if (gpu)
        return " [gpu]";
    if (s->open)
        return " [open]";
    return "";
}

static int is_phase(const pr_sec *s)
{
    return strcmp(s->kind, "phase") == 0 || strcmp(s->kind, "unattributed") == 0;
}

static void tree_cells(row *w)
{
    const double *f = w->s->fig;

    snprintf(w->cell[C_CALLS], CELL, "%" PRIu64, w->s->count);
    fmt_ms(w->cell[C_TOTAL], f[F_TOTAL]);
    fmt_pct(w->cell[C_PPARENT], f[F_PPARENT]);
    fmt_pct(w->cell[C_PTOTAL], f[F_PTOTAL]);
    fmt_ms(w->cell[C_FIRST], f[F_FIRST]);
    if (w->s->count > 1) {
        char m[CELL], sd[CELL], lo[CELL], hi[CELL];
        fmt_ms(m, f[F_MEAN]);
        fmt_ms(sd, f[F_STDDEV]);
        fmt_ms(lo, f[F_MIN]);
        fmt_ms(hi, f[F_MAX]);
        snprintf(w->cell[C_LATER], CELL, "%.20s \xC2\xB1 %.20s (%.20s, %.20s)", m, sd, lo, hi);
    }
    fmt_rate(w->cell[C_READ], f[F_READ_GBS]);
    fmt_rate(w->cell[C_WRITE], f[F_WRITE_GBS]);
    fmt_rate(w->cell[C_GFLOPS], f[F_GFLOPS]);
}

static void put_name(line *k, size_t indent, const char *label, const char *marks, size_t w)
{
    size_t lw = width(label), mw = width(marks), used;
    size_t avail = w > indent + mw ? w - indent - mw : 0;

    put_chars(k, ' ', indent);
    if (lw <= avail) {
        put_str(k, label);
        used = indent + lw;
    } else {
        if (avail < 4)
            avail = 4;
        put_n(k, label, prefix_bytes(label, avail - 1));
        put_str(k, "\xE2\x80\xA6");
        used = indent + avail;
    }
    put_str(k, marks);
    used += mw;
    if (used < w)
        put_chars(k, ' ', w - used);
}

static void tree_extra(line *k, const row *w, size_t indent)
{
    static const char *const dir[3] = { "H2D", "D2H", "D2D" };
    const pr_sec *s = w->s;
    const double *f = s->fig;
    char a[CELL], b[CELL], c[CELL];

    for (int i = 0; i < 3; i++) {
        if (!(f[F_H2D + i] > 0))
            continue;
        fmt_bytes(b, f[F_H2D + i]);
        put_chars(k, ' ', indent + 4);
        if (f[F_H2D_GBS + i] > 0) {
            fmt_rate(a, f[F_H2D_GBS + i]);
            put(k, "%s %s GB/s (%s)", dir[i], a, b);
        } else {
            put(k, "%s (%s, no time)", dir[i], b);
        }
        emit(k);
    }
    /* The roofline line only where peaks are known and something was declared. */
    if (f[F_PCT_PEAK_BW] > 0 || f[F_PCT_PEAK_FLOPS] > 0 || strcmp(s->bound, "unknown") != 0) {
        put_chars(k, ' ', indent + 4);
        put_str(k, "roofline:");
        if (f[F_AI] > 0)
            put(k, " AI %.3g FLOP/B,", f[F_AI]);
        put(k, " %.1f%% of peak bandwidth, %.1f%% of peak FLOP/s", f[F_PCT_PEAK_BW],
            f[F_PCT_PEAK_FLOPS]);
        if (strcmp(s->bound, "unknown") != 0)
            put(k, ", %s", strcmp(s->bound, "memory") == 0 ? "memory-bound" : "compute-bound");
        emit(k);
    }
    if (is_phase(s) && s->blocks > 0) {
        fmt_ms(a, f[F_BLOCK_MEAN]);
        fmt_ms(b, f[F_BLOCK_MIN]);
        fmt_ms(c, f[F_BLOCK_MAX]);
        put_chars(k, ' ', indent + 4);
        put(k, "per block: mean %s ms, min %s ms, max %s ms, imbalance %.2f (max/mean); "
               "%" PRIu64 " block%s, %.17g hits",
            a, b, c, f[F_IMBALANCE], s->blocks, s->blocks == 1 ? "" : "s", f[F_HITS]);
        emit(k);
    }
}

static void view_tree(line *k, rows *r, int percentages)
{
    static const char *const head[NCOL] = { "Calls", "Total ms", "% parent", "% total",
                                            "First ms", "Later: mean \xC2\xB1 sd (min, max)",
                                            "Read GB/s", "Write GB/s", "GFLOP/s" };
    size_t w[NCOL], name_w = strlen("Section"), total_w;
    int show[NCOL];

    for (int c = 0; c < NCOL; c++) {
        show[c] = percentages || (c != C_PPARENT && c != C_PTOTAL);
        w[c] = width(head[c]);
    }
    for (size_t i = 0; i < r->n; i++) {
        row *x = &r->v[i];
        size_t nw = (size_t)(x->s->depth - 1) * 2 + width(x->label) + width(marks_of(x->s));
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
    put_chars(k, '-', total_w);
    emit(k);

    for (size_t i = 0; i < r->n; i++) {
        row *x = &r->v[i];
        size_t indent = (size_t)(x->s->depth - 1) * 2;
        put_name(k, indent, x->label, marks_of(x->s), name_w);
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

/* Paths of the open sections, for the footer (the file keeps no stack). */
static void put_open(line *k, const pr_sec *v, size_t n, int *first)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].open) {
            put_str(k, *first ? "" : ", ");
            put_clean(k, v[i].path);
            *first = 0;
        }
        put_open(k, v[i].kids, v[i].nkids, first);
    }
}

static void header(line *k, const pr_run *r)
{
    char ms[CELL];

    fmt_ms(ms, r->total_ms);
    put_str(k, "ptkit report \"");
    put_clean(k, r->name);
    put(k, "\": %" PRIu64 " section%s, %s ms total, clock ", r->section_count,
        r->section_count == 1 ? "" : "s", ms);
    put_clean(k, r->clock);
    if (strcmp(r->clock, "tsc") == 0 && isfinite(r->clock_ghz))
        put(k, " at %.3f GHz", r->clock_ghz);
    emit(k);
    if (r->merged) {
        json_t *n = json_object_get(r->merged, "inputs");
        put(k, "  merged from %lld runs: per section, count and figures pooled over them",
            json_is_integer(n) ? (long long)json_integer_value(n) : 0LL);
        emit(k);
    }
    if (r->gpu_fallback) {
        put_str(k, "  note: GPU sections timed by the CPU clock (no CUDA device/driver)");
        emit(k);
    }
    if (r->device_clock) {
        json_t *dc = r->device_clock;
        const char *name = json_string_value(json_object_get(dc, "device_name"));
        long long dev = json_integer_value(json_object_get(dc, "device"));
        long long own = json_integer_value(json_object_get(dc, "blocks_own"));
        long long cal = json_integer_value(json_object_get(dc, "blocks_cal"));
        json_t *folds = json_object_get(dc, "folds"), *skipped = json_object_get(dc, "slots_skipped");
        double cpn = json_number_value(json_object_get(dc, "cycles_per_ns"));
        /* Host mode counts the TSC, not an SM's clock64. */
        const char *clk = dev >= 0 ? "SM clock" : "host TSC";
        put_str(k, "  device clock: ");
        put_clean(k, name && name[0] ? name : "unknown device");
        if (dev >= 0)
            put(k, " (device %lld)", dev);
        if (json_is_true(json_object_get(dc, "calibrated")))
            put(k, ", %s %.3f GHz calibrated, globaltimer tick %.0f ns; "
                   "%lld block%s timed by their own measured rate, %lld by the calibrated rate",
                clk, cpn, json_number_value(json_object_get(dc, "tick_ns")), own,
                own == 1 ? "" : "s", cal);
        else
            put(k, ", %s %.3f GHz: launch-average rate, calibration unavailable; "
                   "%lld block%s timed by their own measured rate",
                clk, cpn, own, own == 1 ? "" : "s");
        /* Files written before folds were counted leave these out. */
        if (json_is_integer(folds) && json_is_integer(skipped)) {
            long long nf = json_integer_value(folds), ns = json_integer_value(skipped);
            put(k, "; %lld fold%s, %lld slot%s skipped (no END)", nf, nf == 1 ? "" : "s", ns,
                ns == 1 ? "" : "s");
        }
        emit(k);
    }
    if (r->peaks) {
        double bw = json_number_value(json_object_get(r->peaks, "bytes_per_s"));
        double fl = json_number_value(json_object_get(r->peaks, "flops_per_s"));
        const char *src = json_string_value(json_object_get(r->peaks, "source"));
        put(k, "  peaks: %.1f GB/s, %.1f GFLOP/s (%s); ridge point %.3g FLOP/B", bw / 1e9,
            fl / 1e9, src && strcmp(src, "user") == 0 ? "given" : "device, FP32", fl / bw);
        emit(k);
    }
    if (r->dropped > 0) {
        put(k, "  note: %" PRIu64 " device trace event%s dropped (trace buffers full)",
            r->dropped, r->dropped == 1 ? "" : "s");
        emit(k);
    }
}

static void footer(line *k, const pr_run *r)
{
    if (r->open_count > 0) {
        int first = 1;
        put(k, "%" PRIu64 " section%s open at report time: ", r->open_count,
            r->open_count == 1 ? "" : "s");
        put_open(k, r->secs, r->nsecs, &first);
        emit(k);
    }
    if (r->error_count > 0) {
        put(k, "%" PRIu64 " error%s; last: ", r->error_count, r->error_count == 1 ? "" : "s");
        put_clean(k, r->errors_last);
        emit(k);
    }
}

static const char show_usage[] =
    "usage: ptreport show RUN.json [--sort time|flops|name|order] [--depth N] [--percentages]\n";

int pr_show(int argc, char **argv)
{
    const char *file = NULL;
    int depth = 0, pct = 0;
    char err[1024];
    pr_run run;
    line k = { .f = stdout };
    rows r = { 0 };

    sort_key = SORT_ORDER;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--percentages") == 0) {
            pct = 1;
        } else if (strcmp(a, "--sort") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "time") == 0)
                sort_key = SORT_TIME;
            else if (strcmp(s, "flops") == 0)
                sort_key = SORT_FLOPS;
            else if (strcmp(s, "name") == 0)
                sort_key = SORT_NAME;
            else if (strcmp(s, "order") == 0)
                sort_key = SORT_ORDER;
            else
                return pr_fail("show: unknown sort '%s' (time, flops, name, order)\n%s", s,
                               show_usage);
        } else if (strcmp(a, "--depth") == 0 && i + 1 < argc) {
            char *end;
            long d = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || d < 0 || d > 100000)
                return pr_fail("show: --depth wants a whole number >= 0 (0: all), not '%s'",
                               argv[i]);
            depth = (int)d;
        } else if (a[0] == '-' && a[1]) {
            return pr_fail("show: unknown option or missing value: %s\n%s", a, show_usage);
        } else if (!file) {
            file = a;
        } else {
            return pr_fail("show: one run at a time\n%s", show_usage);
        }
    }
    if (!file)
        return pr_fail("show: no run given\n%s", show_usage);
    if (pr_run_load(&run, file, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    header(&k, &run);
    collect(run.secs, run.nsecs, 1, depth, &r);
    if (!r.oom && r.n == 0) {
        put_str(&k, "(no sections)");
        emit(&k);
    } else if (!r.oom) {
        view_tree(&k, &r, pct);
    }
    if (!r.oom)
        footer(&k, &run);
    for (size_t i = 0; i < r.n; i++)
        free(r.v[i].label);
    free(r.v);
    free(k.buf);
    pr_run_free(&run);
    if (r.oom || k.oom)
        return pr_fail("show: out of memory");
    if (fflush(stdout) != 0 || ferror(stdout))
        return pr_fail("show: writing the report failed");
    return 0;
}
