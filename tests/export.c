/* The CSV and JSON exports: read back field by field against
 * pt_section_get(), on a manual clock; and the atomic write: failures leave
 * nothing behind, an existing file is replaced whole. */
#define _GNU_SOURCE /* unshare, for a read-only directory as root */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "core/model.h"
#include "report/atomic_file.h"
#include "report/format.h"

#include <math.h>

static test_clock clk;
static pt_timing *t;
static char dir[64];

static void setup(void)
{
    t = test_timing(&clk, "export", PT_CPU);
    cr_assert_not_null(t, "pt_create failed");
    snprintf(dir, sizeof dir, "/tmp/ptkit-export-XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    char sub[512];

    if (d) {
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

#define in_dir(name) test_path(dir, (name))

static void teardown(void)
{
    pt_destroy(t);
    umount2(in_dir("ro"), MNT_DETACH); /* read_only_directory's, if still there */
    remove_tree(dir);
}

TestSuite(export, .init = setup, .fini = teardown);

#define MS 1000000 /* ns */


/* Entries in d, "." and ".." not counted; names whose start is `prefix`. */
static int entries(const char *d, const char *prefix)
{
    DIR *dp = opendir(d);
    struct dirent *e;
    int n = 0;

    cr_assert_not_null(dp, "opendir(%s): %s", d, strerror(errno));
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(dp);
    return n;
}

static char *slurp(const char *path)
{
    char *buf = test_read_file(path);
    cr_assert_not_null(buf, "cannot read %s: %s", path, strerror(errno));
    return buf;
}

/* A frame with nesting, repeats, every metric and a transfer:
 * frame (2x) > solve (3x per frame) ; frame > upload ; then "post". */
static void workload(void)
{
    for (int i = 0; i < 2; i++) {
        pt_start(t, "frame", .flops = 7);
        for (int j = 0; j < 3; j++)
            TEST_SPAN(t, &clk, "solve", (1 + i + j) * MS, .read = 1e6, .written = 5e5,
                      .flops = 3e8);
        pt_start(t, "upload");
        pt_transfer(t, 4e6, PT_H2D);
        pt_transfer(t, 1e6, PT_D2H);
        clk.now += 2 * MS;
        pt_stop(t, "upload");
        clk.now += MS / 3;
        pt_stop(t, "frame");
    }
    TEST_SPAN(t, &clk, "post", 7 * MS);
}

/* ---- a tiny CSV reader (RFC 4180) -------------------------------- */

typedef struct csv {
    char ***rows;   /* rows[r][c] */
    int *ncols;
    int nrows;
} csv;

static void csv_free(csv *c)
{
    for (int r = 0; r < c->nrows; r++) {
        for (int k = 0; k < c->ncols[r]; k++)
            free(c->rows[r][k]);
        free(c->rows[r]);
    }
    free(c->rows);
    free(c->ncols);
}

static csv csv_parse(const char *s)
{
    csv c = { 0 };
    char field[4096];
    size_t fl = 0;
    int quoted = 0, at_start = 1;

    c.rows = calloc(1, sizeof *c.rows);
    c.ncols = calloc(1, sizeof *c.ncols);
    while (*s) {
        int r = c.nrows;
        if (at_start) {
            c.rows = realloc(c.rows, (size_t)(r + 1) * sizeof *c.rows);
            c.ncols = realloc(c.ncols, (size_t)(r + 1) * sizeof *c.ncols);
            c.rows[r] = NULL;
            c.ncols[r] = 0;
            at_start = 0;
        }
        char ch = *s++;
        if (quoted) {
            if (ch == '"' && *s == '"') {
                field[fl++] = '"';
                s++;
            } else if (ch == '"') {
                quoted = 0;
            } else {
                field[fl++] = ch;
            }
            continue;
        }
        if (ch == '"') {
            quoted = 1;
        } else if (ch == ',' || ch == '\n') {
            c.rows[r] = realloc(c.rows[r], (size_t)(c.ncols[r] + 1) * sizeof **c.rows);
            c.rows[r][c.ncols[r]++] = strndup(field, fl);
            fl = 0;
            if (ch == '\n') {
                c.nrows++;
                at_start = 1;
            }
        } else {
            field[fl++] = ch;
        }
        cr_assert_lt(fl, sizeof field, "field too long");
    }
    cr_assert(at_start, "the file ends with a complete record");
    return c;
}

static const char *const csv_columns[] = {
    "path", "name", "depth", "kind", "open", "count", "total_ms", "self_ms", "first_ms",
    "mean_ms", "stddev_ms", "min_ms", "max_ms", "pct_parent", "pct_total", "read_bytes",
    "written_bytes", "flops", "read_gbs", "write_gbs", "gflops", "h2d_bytes", "d2h_bytes",
    "d2d_bytes", "h2d_gbs", "d2h_gbs", "d2d_gbs", "blocks", "hits", "block_mean_ms",
    "block_min_ms", "block_max_ms", "imbalance", "block_p50_ms", "block_p90_ms", "block_p99_ms",
    "ai", "pct_peak_bw", "pct_peak_flops", "bound",
    "mem_high_water", "overhead_ms", "too_short", "cpu_clock", "ranks", "rank_min_ms",
    "rank_mean_ms", "rank_max_ms", "rank_slowest", "sms", "sm_busiest", "sm_mean_ms",
    "sm_min_ms", "sm_max_ms", "sm_imbalance", "shape_folds", "waves", "sm_resident", "device_sms",
    "span_ms", "tail_ms", "tail_pct", "sm_idle_pct", "slowest_block", "slowest_block_ms",
    "slowest_block_sm", "stragglers", "straggler_sm", "sample_every", "sample_slots",
    "overlap_folds", "busy_ms", "overlap_pct", "wait_ms", "bubble_ms", "sm_ms", "id", "parent"
};
#define NCSV ((int)(sizeof csv_columns / sizeof csv_columns[0]))

/* The figures of a section by the export's column names. */
static double figure(const pt_section_stats *s, const char *name)
{
    static const struct { const char *name; size_t off; } map[] = {
#define F(x) { #x, offsetof(pt_section_stats, x) }
        F(total_ms), F(self_ms), F(first_ms), F(mean_ms), F(stddev_ms), F(min_ms), F(max_ms),
        F(pct_parent), F(pct_total), F(read_bytes), F(written_bytes), F(flops), F(read_gbs),
        F(write_gbs), F(gflops), F(hits), F(block_mean_ms), F(block_min_ms), F(block_max_ms),
        F(imbalance), F(block_p50_ms), F(block_p90_ms), F(block_p99_ms), F(ai), F(pct_peak_bw), F(pct_peak_flops), F(mem_high_water),
        F(overhead_ms), F(rank_min_ms), F(rank_mean_ms), F(rank_max_ms),
        F(sm_mean_ms), F(sm_min_ms), F(sm_max_ms), F(sm_imbalance), F(waves), F(span_ms),
        F(tail_ms), F(tail_pct), F(sm_idle_pct), F(slowest_block_ms), F(busy_ms), F(overlap_pct),
        F(wait_ms), F(bubble_ms),
#undef F
        { "h2d_bytes", offsetof(pt_section_stats, xfer_bytes[0]) },
        { "d2h_bytes", offsetof(pt_section_stats, xfer_bytes[1]) },
        { "d2d_bytes", offsetof(pt_section_stats, xfer_bytes[2]) },
        { "h2d_gbs", offsetof(pt_section_stats, xfer_gbs[0]) },
        { "d2h_gbs", offsetof(pt_section_stats, xfer_gbs[1]) },
        { "d2d_gbs", offsetof(pt_section_stats, xfer_gbs[2]) },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].name, name) == 0)
            return *(const double *)((const char *)s + map[i].off);
    cr_assert_fail("no figure \"%s\"", name);
    return 0;
}

static int is_double_column(const char *name)
{
    return strcmp(name, "path") && strcmp(name, "name") && strcmp(name, "depth") &&
           strcmp(name, "kind") && strcmp(name, "open") && strcmp(name, "count") &&
           strcmp(name, "blocks") && strcmp(name, "bound") && strcmp(name, "too_short") &&
           strcmp(name, "cpu_clock") && strcmp(name, "ranks") && strcmp(name, "rank_slowest") &&
           strcmp(name, "sms") && strcmp(name, "sm_busiest") && strcmp(name, "sm_ms") &&
           strcmp(name, "shape_folds") && strcmp(name, "sm_resident") &&
           strcmp(name, "device_sms") && strcmp(name, "slowest_block") &&
           strcmp(name, "slowest_block_sm") && strcmp(name, "stragglers") &&
           strcmp(name, "straggler_sm") && strcmp(name, "sample_every") &&
           strcmp(name, "sample_slots") && strcmp(name, "overlap_folds") && strcmp(name, "id") &&
           strcmp(name, "parent");
}

static pt_section_stats stats_of(const char *path)
{
    pt_section_stats s;
    const pt_section *sec = pt_find(t, path);
    cr_assert_not_null(sec, "pt_find(\"%s\")", path);
    cr_assert_eq(pt_section_get(t, sec, &s), 0, "pt_section_get");
    return s;
}

/* ---- CSV --------------------------------------------------------- */

Test(export, csv_header_names_every_column)
{
    workload();
    int rc = pt_export_csv(t, in_dir("perf.csv"));
    cr_assert_eq(rc, 0, "pt_export_csv: %s (%s)", pt_strerror(rc), pt_last_error(t));
    char *text = slurp(in_dir("perf.csv"));
    csv c = csv_parse(text);
    cr_assert_eq(c.ncols[0], NCSV, "%d columns", c.ncols[0]);
    for (int k = 0; k < NCSV; k++)
        cr_assert_str_eq(c.rows[0][k], csv_columns[k], "column %d", k);
    cr_assert_eq(c.nrows, 1 + 4, "a header and a row per section");
    for (int r = 1; r < c.nrows; r++)
        cr_assert_eq(c.ncols[r], NCSV, "row %d has every column", r);
    csv_free(&c);
    free(text);
}

Test(export, csv_rows_hold_the_exact_figures)
{
    static const char *const order[] = { "frame", "frame/solve", "frame/upload", "post" };
    static const char *const parent[] = { "-1", "0", "0", "-1" };
    workload();
    cr_assert_eq(pt_export_csv(t, in_dir("perf.csv")), 0, "pt_export_csv: %s", pt_last_error(t));
    char *text = slurp(in_dir("perf.csv"));
    csv c = csv_parse(text);

    for (int r = 1; r < c.nrows; r++) {
        char **row = c.rows[r];
        cr_assert_str_eq(row[0], order[r - 1], "depth first, order of first start");
        pt_section_stats s = stats_of(row[0]);
        cr_assert_str_eq(row[1], s.name, "name");
        cr_assert_eq(atoi(row[2]), s.depth, "%s: depth", row[0]);
        cr_assert_str_eq(row[3], "cpu", "%s: kind", row[0]);
        cr_assert_str_eq(row[4], "0", "%s: not open", row[0]);
        cr_assert_eq(strtoull(row[5], NULL, 10), s.count, "%s: count", row[0]);
        cr_assert_eq(strtoull(row[27], NULL, 10), s.blocks, "%s: blocks", row[0]);
        cr_assert_eq(atoi(row[NCSV - 2]), r - 1, "%s: id, the JSON export's", row[0]);
        cr_assert_str_eq(row[NCSV - 1], parent[r - 1], "%s: its parent's id", row[0]);
        for (int k = 0; k < NCSV; k++) {
            if (!is_double_column(csv_columns[k]))
                continue;
            double want = figure(&s, csv_columns[k]), got = strtod(row[k], NULL);
            cr_assert(got == want, "%s: %s is %.17g, written \"%s\"", row[0], csv_columns[k],
                      want, row[k]);
        }
    }
    /* Spot checks against hand arithmetic, so the comparison above is not
     * only of the library with itself. */
    pt_section_stats s = stats_of("frame/solve");
    cr_assert_eq(s.count, 6, "3 solves in each of 2 frames");
    cr_assert_eq(s.total_ms, 15.0, "1+2+3 + 2+3+4 ms");
    cr_assert_eq(strtod(c.rows[2][17], NULL), 1.8e9, "flops column: 6 x 3e8");
    cr_assert_eq(strtod(c.rows[3][21], NULL), 8e6, "h2d_bytes column: 2 x 4 MB");
    cr_assert_eq(strtod(c.rows[3][24], NULL), 2.0, "h2d_gbs column: 8 MB in 4 ms");
    csv_free(&c);
    free(text);
}

Test(export, csv_quotes_fields_and_escapes_slashes_in_paths)
{
    const char *title = "a,\"b\"\nc/d";
    TEST_SPAN(t, &clk, title, MS);
    cr_assert_eq(pt_export_csv(t, in_dir("q.csv")), 0, "pt_export_csv: %s", pt_last_error(t));
    char *text = slurp(in_dir("q.csv"));
    cr_assert_not_null(strstr(text, "\n\"a,\"\"b\"\"\nc\\/d\",\"a,\"\"b\"\"\nc/d\","),
                       "RFC 4180 quoting, quotes doubled: %s", text);
    csv c = csv_parse(text);
    cr_assert_eq(c.nrows, 2, "the newline inside quotes does not split the record");
    cr_assert_str_eq(c.rows[1][1], title, "the name reads back byte for byte");
    cr_assert_str_eq(c.rows[1][0], "a,\"b\"\nc\\/d", "the path as pt_section_path gives it");
    cr_assert_not_null(pt_find(t, c.rows[1][0]), "and pt_find takes it back");
    csv_free(&c);
    free(text);
}

Test(export, csv_with_open_sections_is_complete_and_eopen)
{
    workload();
    pt_start(t, "outer");
    TEST_SPAN(t, &clk, "inner done", MS);
    int rc = pt_export_csv(t, in_dir("open.csv"));
    cr_assert_eq(rc, PT_EOPEN, "open sections: %s", pt_strerror(rc));
    cr_assert_eq(pt_error_count_of(t, PT_EOPEN), 1, "counted once");
    cr_assert_not_null(strstr(pt_last_error(t), "(open: outer)"), "%s", pt_last_error(t));
    char *text = slurp(in_dir("open.csv"));
    csv c = csv_parse(text);
    cr_assert_eq(c.nrows, 1 + 6, "every section, the open one included");
    cr_assert_str_eq(c.rows[5][0], "outer", "the open section's row");
    cr_assert_str_eq(c.rows[5][4], "1", "marked open");
    cr_assert_str_eq(c.rows[6][0], "outer/inner done", "its finished child");
    csv_free(&c);
    free(text);
    cr_assert_eq(entries(dir, "open.csv."), 0, "no temporary file left");
}

Test(export, csv_of_a_chain_10000_deep_is_linear)
{
    /* Each row names its parent by id; its path keeps the first title and
     * the last six, so a row's bytes do not grow with its depth. */
    enum { DEEP = 10000 };
    char title[32], want[256];
    size_t len = 0, longest = 0;

    pt_start(t, "top");
    for (int d = 1; d < DEEP; d++) {
        snprintf(title, sizeof title, "s%d", d);
        pt_start(t, title);
    }
    clk.now += MS;
    for (int d = DEEP; --d > 0;) {
        snprintf(title, sizeof title, "s%d", d);
        pt_stop(t, title);
    }
    pt_stop(t, "top");
    cr_assert_eq(pt_export_csv(t, in_dir("deep.csv")), 0, "%s", pt_last_error(t));
    char *text = slurp(in_dir("deep.csv"));
    for (const char *p = strchr(text, '\n') + 1; *p; p += len + 1) {
        len = strcspn(p, "\n");
        longest = len > longest ? len : longest;
    }
    cr_assert_lt(strlen(text), (size_t)DEEP * 1024, "linear in the sections: %zu bytes",
                 strlen(text));
    cr_assert_lt(longest, 1024, "no row grows with its depth: %zu bytes", longest);
    csv c = csv_parse(text);
    cr_assert_eq(c.nrows, 1 + DEEP, "a row per section");
    cr_assert_str_eq(c.rows[8][0], "top/s1/s2/s3/s4/s5/s6/s7", "8 deep: the whole path");
    cr_assert_str_eq(c.rows[9][0], "top/\xE2\x80\xA6/s3/s4/s5/s6/s7/s8",
                     "9 deep: the first title, the last six");
    snprintf(want, sizeof want, "top/\xE2\x80\xA6/s%d/s%d/s%d/s%d/s%d/s%d", DEEP - 6, DEEP - 5,
             DEEP - 4, DEEP - 3, DEEP - 2, DEEP - 1);
    cr_assert_str_eq(c.rows[DEEP][0], want, "the deepest row");
    for (int r = 1; r <= DEEP; r++) {
        cr_assert_eq(atoi(c.rows[r][2]), r, "row %d: depth", r);
        cr_assert_eq(atoi(c.rows[r][NCSV - 2]), r - 1, "row %d: id", r);
        cr_assert_eq(atoi(c.rows[r][NCSV - 1]), r - 2, "row %d: parent, the row above", r);
    }
    csv_free(&c);
    free(text);
}

/* ---- numbers ----------------------------------------------------- */

static uint64_t rnd_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

/* v as pt__fmt_g() writes it, against printf itself and read back. */
static void same_as_printf(double v, int nd)
{
    char got[PT__NUM], want[64];
    size_t n = pt__fmt_g(got, v, nd);
    snprintf(want, sizeof want, "%.*g", nd, v);
    cr_assert_str_eq(got, want, "%%.%dg of %a", nd, v);
    cr_assert_eq(n, strlen(want), "%%.%dg of %a: its length", nd, v);
    if (nd == 17 && isfinite(v))
        cr_assert(strtod(got, NULL) == v, "\"%s\" reads back as %a", got, v);
    /* The text report's "%.3f" (times), "%.1f" and "%.2f" (rates, %). */
    for (int dec = 0; dec <= 3; dec++) {
        char fixed[400], pf[400];
        size_t fn = pt__fmt_fixed(fixed, sizeof fixed, v, dec);
        snprintf(pf, sizeof pf, "%.*f", dec, v);
        cr_assert_str_eq(fixed, pf, "%%.%df of %a", dec, v);
        cr_assert_eq(fn, strlen(pf), "%%.%df of %a: its length", dec, v);
    }
}

Test(export, a_number_too_long_for_its_cell_stays_inside_it)
{
    /* "%.1f" of 1e300 is 302 bytes: the cell holds the exponent form (it
     * was cut to what fit, with no mark), and nothing past the cell is
     * written. */
    char b[512];
    memset(b, 'x', sizeof b);
    pt__fmt_pct(b, 1e300);
    cr_assert_str_eq(b, "1.00e+300%", "the exponent form");
    pt__fmt_ms(b, 1.7976931348623157e302);
    cr_assert_str_eq(b, "1.80e+302", "a time past 10^15 ms");
    pt__fmt_rate(b, 3.2e94);
    cr_assert_str_eq(b, "3.20e+94", "a rate");
    pt__fmt_ms(b, 1e-5);
    cr_assert_str_eq(b, "1.00e-05", "three significant digits, zeros kept");
    memset(b, 'x', sizeof b);
    pt__fmt_pct(b, 1e300);
    for (size_t i = PT__CELL; i < sizeof b; i++)
        cr_assert_eq(b[i], 'x', "byte %zu past the cell was written", i);
    memset(b, 'x', sizeof b);
    cr_assert_eq(pt__fmt_fixed(b, 40, -1e300, 3), (size_t)39, "the length written, not printf's");
    cr_assert_eq(b[40], 'x', "byte 40 past a 40-byte buffer was written");
}

Test(export, numbers_are_written_as_printf_writes_them)
{
    /* The exports write "%.17g" (and trace durations "%.9g"), and the
     * text report "%.3f" and the like, without printf where the digits fit
     * 128-bit integers: every kind of value against printf byte for byte,
     * and "%.17g" read back exactly. */
    static const double edge[] = { 0, -0.0, 1, -1, 0.5, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3,
                                    0.125, 0.375, 2.5, 1e-6, 1e-5, 1e-4, 1e-3, 9.9999999999999995e-7,
                                    0.00099999999999999998, 123456789012345678.0, 1e15, 1e16,
                                    1e17, 9007199254740993.0, 18446744073709551615.0, 1e300,
                                    5e-324, 2.2250738585072014e-308, INFINITY, -INFINITY, NAN };
    int nd[] = { 17, 9, 1, 2, 3, 6, 16 };

    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        for (size_t k = 0; k < sizeof nd / sizeof nd[0]; k++)
            same_as_printf(edge[i], nd[k]);
    for (int p = -8; p <= 20; p++) {
        double ten = pow(10, p);
        for (size_t k = 0; k < sizeof nd / sizeof nd[0]; k++) {
            same_as_printf(ten, nd[k]);
            same_as_printf(nextafter(ten, 0), nd[k]);
            same_as_printf(nextafter(ten, INFINITY), nd[k]);
        }
    }
    for (int i = 0; i < 20000; i++) {
        uint64_t r = rnd(), bits = rnd();
        double v;
        switch (i % 4) {
        case 0: /* any double */
            memcpy(&v, &bits, sizeof v);
            break;
        case 1: /* log-uniform over the range the fast path covers, and past it */
            v = pow(10, (double)(r % 2800000) / 100000.0 - 8) * (1 + (double)(bits % 1000) / 1e6);
            break;
        case 2: /* milliseconds from whole nanoseconds, as the figures are */
            v = (double)(r % 100000000000ULL) / 1e6;
            break;
        default: /* binary fractions: ties at the digit printf rounds */
            v = (double)(r % 10000000) / (double)(1ULL << (bits % 40));
            if (bits & 4) /* ties at the third decimal: x.xxx5 */
                v = (double)(r % 100000) / 2000.0;
            break;
        }
        if (bits & 1)
            v = -v;
        same_as_printf(v, 17);
        same_as_printf(v, 1 + (int)(r % 17));
    }
}

/* ---- JSON -------------------------------------------------------- */

static json_t *load(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    cr_assert_not_null(j, "json_load_file(%s): %s at line %d", path, err.text, err.line);
    return j;
}

static json_t *member(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    cr_assert_not_null(v, "member \"%s\" is present", k);
    return v;
}

/* Sections at the top of the flat list (parent -1). */
static size_t top_level(json_t *secs)
{
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(secs); i++)
        n += json_integer_value(member(json_array_get(secs, i), "parent")) == -1;
    return n;
}

/* The section after s in depth-first order, through the walk API. */
static const pt_section *walk_next(const pt_section *s)
{
    if (pt_section_child(s))
        return pt_section_child(s);
    while (s && !pt_section_next(s))
        s = pt_section_parent(pt_section_parent(s)) ? pt_section_parent(s) : NULL;
    return s ? pt_section_next(s) : NULL;
}

Test(export, json_top_level_describes_the_run)
{
    workload();
    pt_stop(t, "nothing open");
    int rc = pt_export_json(t, in_dir("perf.json"));
    cr_assert_eq(rc, 0, "pt_export_json: %s (%s)", pt_strerror(rc), pt_last_error(t));
    json_t *j = load(in_dir("perf.json"));
    pt_run_stats rs = run_stats(t);

    cr_assert_eq(json_integer_value(member(j, "schema")), PT_JSON_SCHEMA, "schema");
    cr_assert_str_eq(json_string_value(member(j, "tool")), "ptkit", "tool");
    cr_assert_str_eq(json_string_value(member(j, "version")), pt_version(), "version");
    cr_assert_str_eq(json_string_value(member(j, "name")), "export", "name");
    cr_assert(json_is_string(member(j, "created")), "created");
    cr_assert_str_eq(json_string_value(member(member(j, "units"), "time")), "ms", "units");
    json_t *clock = member(j, "clock");
    cr_assert_str_eq(json_string_value(member(clock, "kind")), "user", "clock kind");
    cr_assert(json_is_null(member(clock, "ghz")), "no rate for a user clock");
    json_t *st = member(j, "stats");
    cr_assert_eq(json_integer_value(member(st, "section_count")), 4, "section_count");
    cr_assert(json_number_value(member(st, "total_ms")) == rs.total_ms, "total_ms exactly");
    cr_assert_eq(json_integer_value(member(st, "error_count")), 1, "error_count");
    cr_assert(json_is_false(member(st, "gpu_timing")), "gpu_timing");
    cr_assert(json_is_false(member(st, "gpu_fallback")), "gpu_fallback");
    cr_assert_eq(json_integer_value(member(st, "open_count")), 0, "open_count");
    cr_assert_eq(json_integer_value(member(st, "dropped")), 0, "dropped");
    cr_assert(json_is_null(member(j, "device_clock")), "no device clock before a fold");
    json_t *errs = member(j, "errors");
    cr_assert_eq(json_integer_value(member(errs, "count")), 1, "errors.count");
    cr_assert_str_eq(json_string_value(member(errs, "last")), pt_last_error(t), "errors.last");
    cr_assert_eq(json_integer_value(member(member(errs, "by_code"), "PT_ENOSTART")), 1,
                 "errors.by_code names the code");
    cr_assert_eq(json_object_size(member(errs, "by_code")), 1, "only codes that happened");
    cr_assert_eq(top_level(member(j, "sections")), 2, "two top-level sections");
    json_decref(j);
}

static const char *const json_ints[] = { "depth", "count", "blocks" };

/* Checks the flat list against the timing: every section once, depth
 * first in order of first start, each with its place, its parent's place
 * and every figure. */
static void check_sections(json_t *secs)
{
    const pt_section *s = pt_section_child(pt_root(t));
    long long up[64];
    char path[512];

    for (size_t i = 0; i < json_array_size(secs); i++, s = walk_next(s)) {
        json_t *o = json_array_get(secs, i);
        cr_assert_not_null(s, "no more sections than the tree has");
        pt_section_path(s, path, sizeof path);
        pt_section_stats st = stats_of(path);
        int depth = st.depth;
        up[depth] = (long long)i;
        cr_assert_eq(json_integer_value(member(o, "id")), (json_int_t)i, "%s: id", path);
        cr_assert_eq(json_integer_value(member(o, "parent")), depth > 1 ? up[depth - 1] : -1,
                     "%s: parent", path);
        cr_assert_null(json_object_get(o, "path"), "%s: no path (it grows with the depth)",
                       path);
        cr_assert_null(json_object_get(o, "children"), "%s: not nested", path);
        cr_assert_str_eq(json_string_value(member(o, "name")), st.name, "%s: name", path);
        cr_assert_eq(json_integer_value(member(o, "depth")), depth, "%s: depth", path);
        cr_assert_str_eq(json_string_value(member(o, "kind")), st.gpu ? "gpu" : "cpu",
                         "%s: kind", path);
        cr_assert(json_is_boolean(member(o, "open")) && json_is_true(member(o, "open")) == st.open,
                  "%s: open", path);
        cr_assert_eq((uint64_t)json_integer_value(member(o, "count")), st.count, "%s: count",
                     path);
        cr_assert_eq((uint64_t)json_integer_value(member(o, "blocks")), st.blocks, "%s: blocks",
                     path);
        for (size_t k = 0; k < sizeof json_ints / sizeof json_ints[0]; k++)
            cr_assert(json_is_integer(member(o, json_ints[k])), "%s: %s is an integer", path,
                      json_ints[k]);
        for (int k = 0; k < NCSV; k++) {
            if (!is_double_column(csv_columns[k]))
                continue;
            double want = figure(&st, csv_columns[k]);
            double got = json_number_value(member(o, csv_columns[k]));
            cr_assert(got == want, "%s: %s is %.17g, read %.17g", path, csv_columns[k], want,
                      got);
        }
    }
    cr_assert_null(s, "every section is exported");
}

Test(export, json_sections_are_flat_with_every_figure)
{
    workload();
    cr_assert_eq(pt_export_json(t, in_dir("perf.json")), 0, "%s", pt_last_error(t));
    json_t *j = load(in_dir("perf.json"));
    json_t *secs = member(j, "sections");
    cr_assert_str_eq(json_string_value(member(json_array_get(secs, 0), "name")), "frame",
                     "first top-level section");
    check_sections(secs);
    json_t *solve = json_array_get(secs, 1);
    cr_assert_str_eq(json_string_value(member(solve, "name")), "solve", "frame's first child");
    cr_assert_eq(json_number_value(member(solve, "total_ms")), 15.0, "1+2+3 + 2+3+4 ms");
    cr_assert_eq(json_number_value(member(solve, "first_ms")), 1.0, "the first solve");
    cr_assert_eq(json_number_value(member(solve, "gflops")), 120.0, "1.8 GFLOP in 15 ms");
    json_decref(j);
}

Test(export, json_strings_are_escaped_and_valid_utf8)
{
    const char *title = "say \"hi\"\\\n\tend \x01 caf\xC3\xA9 bad\xFF byte \xE2\x82 cut";
    pt_timing *u = pt_create("run \"7\"\n", PT_CPU);
    cr_assert_not_null(u, "pt_create");
    pt_start(u, title);
    pt_stop(u, title);
    cr_assert_eq(pt_export_json(u, in_dir("esc.json")), 0, "%s", pt_last_error(u));
    json_t *j = load(in_dir("esc.json")); /* fails on invalid UTF-8 or escapes */
    cr_assert_str_eq(json_string_value(member(j, "name")), "run \"7\"\n", "the timing's name");
    json_t *s = json_array_get(member(j, "sections"), 0);
    cr_assert_str_eq(json_string_value(member(s, "name")),
                     "say \"hi\"\\\n\tend \x01 caf\xC3\xA9 bad\xEF\xBF\xBD byte \xEF\xBF\xBD cut",
                     "escapes read back; invalid bytes became U+FFFD, valid UTF-8 kept");
    char *text = slurp(in_dir("esc.json"));
    cr_assert_not_null(strstr(text, "\\u0001"), "a control character as \\u00XX");
    free(text);
    json_decref(j);
    pt_destroy(u);
}

Test(export, json_states_device_clock_and_phase_kinds)
{
    pt_start_gpu(t, "step", 0);
    TEST_SPAN(t, &clk, "angular", 3 * MS);
    pt_stop_gpu(t, "step", 0);
    pt_section *ph = (pt_section *)pt_find(t, "step/angular");
    ph->kind = PT__K_PHASE;
    ph->phase = calloc(1, sizeof *ph->phase);
    cr_assert_not_null(ph->phase, "out of memory");
    ph->phase->blocks = 4;
    ph->phase->hits = 16;
    ph->phase->block_sum_ns = 8 * MS;
    ph->phase->block_min_ns = 1 * MS;
    ph->phase->block_max_ns = 3 * MS;
    t->dev_clock.calibrated = 1;
    t->dev_clock.cycles_per_ns = 1.755;
    t->dev_clock.tick_ns = 32;
    t->dev_clock.blocks_own = 3;
    t->dev_clock.blocks_cal = 1;
    t->dev_clock.device = 0;
    snprintf(t->dev_clock.device_name, sizeof t->dev_clock.device_name, "NVIDIA H100");
    t->dropped = 5;

    cr_assert_eq(pt_export_json(t, in_dir("dev.json")), 0, "%s", pt_last_error(t));
    json_t *j = load(in_dir("dev.json"));
    json_t *dc = member(j, "device_clock");
    cr_assert(json_is_true(member(dc, "calibrated")), "calibrated");
    cr_assert_eq(json_number_value(member(dc, "cycles_per_ns")), 1.755, "cycles_per_ns");
    cr_assert_eq(json_number_value(member(dc, "tick_ns")), 32.0, "tick_ns");
    cr_assert_eq(json_integer_value(member(dc, "blocks_own")), 3, "blocks_own");
    cr_assert_eq(json_integer_value(member(dc, "blocks_cal")), 1, "blocks_cal");
    cr_assert_eq(json_integer_value(member(dc, "device")), 0, "device");
    cr_assert_str_eq(json_string_value(member(dc, "device_name")), "NVIDIA H100", "device_name");
    cr_assert_eq(json_integer_value(member(member(j, "stats"), "dropped")), 5, "dropped");
    cr_assert(json_is_true(member(member(j, "stats"), "gpu_fallback")), "gpu_fallback");
    json_t *step = json_array_get(member(j, "sections"), 0);
    cr_assert_str_eq(json_string_value(member(step, "kind")), "gpu", "the launch");
    json_t *a = json_array_get(member(j, "sections"), 1);
    cr_assert_eq(json_integer_value(member(a, "parent")), 0, "under the launch");
    cr_assert_str_eq(json_string_value(member(a, "kind")), "phase", "the phase");
    cr_assert_eq(json_integer_value(member(a, "blocks")), 4, "blocks");
    cr_assert_eq(json_number_value(member(a, "block_mean_ms")), 2.0, "8 ms over 4 blocks");
    cr_assert_eq(json_number_value(member(a, "imbalance")), 1.5, "3 ms max over 2 ms mean");
    json_decref(j);
    pt_export_csv(t, in_dir("dev.csv"));
    char *text = slurp(in_dir("dev.csv"));
    cr_assert_not_null(strstr(text, "\nstep/angular,angular,2,phase,0,1,"), "CSV kind: %s", text);
    free(text);
}

Test(export, json_with_open_sections_is_complete_and_eopen)
{
    workload();
    pt_start(t, "outer");
    int rc = pt_export_json(t, in_dir("open.json"));
    cr_assert_eq(rc, PT_EOPEN, "open sections: %s", pt_strerror(rc));
    json_t *j = load(in_dir("open.json"));
    json_t *secs = member(j, "sections");
    json_t *outer = json_array_get(secs, json_array_size(secs) - 1);
    cr_assert_eq(top_level(secs), 3, "frame, post and the open outer");
    cr_assert_str_eq(json_string_value(member(outer, "name")), "outer", "last");
    cr_assert(json_is_true(member(outer, "open")), "outer is open");
    cr_assert_eq(json_integer_value(member(member(j, "stats"), "open_count")), 1, "open_count");
    json_decref(j);
}

/* ---- the atomic write -------------------------------------------- */

Test(export, missing_directory_fails_and_leaves_nothing)
{
    workload();
    int rc = pt_export_csv(t, in_dir("no/such/dir/perf.csv"));
    cr_assert_eq(rc, PT_EIO, "missing directory: %s", pt_strerror(rc));
    cr_assert_not_null(strstr(pt_last_error(t), "no/such/dir/perf.csv"), "names the path: %s",
                       pt_last_error(t));
    cr_assert_not_null(strstr(pt_last_error(t), strerror(ENOENT)), "says why: %s",
                       pt_last_error(t));
    rc = pt_export_json(t, in_dir("no/such/dir/perf.json"));
    cr_assert_eq(rc, PT_EIO, "missing directory: %s", pt_strerror(rc));
    cr_assert_eq(pt_error_count_of(t, PT_EIO), 2, "both counted");
    cr_assert_eq(entries(dir, ""), 0, "nothing was created");
}

Test(export, a_file_used_as_a_directory_fails_and_leaves_nothing)
{
    FILE *f = fopen(in_dir("plain"), "w");
    cr_assert_not_null(f, "create a plain file");
    fclose(f);
    workload();
    int rc = pt_export_json(t, in_dir("plain/perf.json"));
    cr_assert_eq(rc, PT_EIO, "a file as directory: %s", pt_strerror(rc));
    cr_assert_not_null(strstr(pt_last_error(t), strerror(ENOTDIR)), "%s", pt_last_error(t));
    rc = pt_export_csv(t, in_dir("plain/perf.csv"));
    cr_assert_eq(rc, PT_EIO, "a file as directory: %s", pt_strerror(rc));
    cr_assert_eq(entries(dir, ""), 1, "only the plain file is there");
}

Test(export, a_device_target_is_refused_and_leaves_nothing)
{
    workload();
    int before = entries("/dev", "full");
    int rc = pt_export_csv(t, "/dev/full");
    cr_assert_eq(rc, PT_EIO, "/dev/full: %s", pt_strerror(rc));
    cr_assert_not_null(strstr(pt_last_error(t), "/dev/full"), "%s", pt_last_error(t));
    cr_assert_not_null(strstr(pt_last_error(t), "not a regular file"), "%s", pt_last_error(t));
    rc = pt_export_json(t, "/dev/full");
    cr_assert_eq(rc, PT_EIO, "/dev/full: %s", pt_strerror(rc));
    cr_assert_eq(entries("/dev", "full"), before, "no temporary file in /dev");
    struct stat st;
    cr_assert_eq(stat("/dev/full", &st), 0, "/dev/full is still there");
    cr_assert(S_ISCHR(st.st_mode), "and still a device");
}

Test(export, a_failed_write_removes_the_temporary_file)
{
    struct rlimit lim = { 256, 256 };
    workload();
    /* Writes past 256 bytes fail with EFBIG, like a disk filling up in the
     * middle of the report. The test runs in its own process. */
    signal(SIGXFSZ, SIG_IGN);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0, "setrlimit: %s", strerror(errno));
    int rc = pt_export_json(t, in_dir("big.json"));
    cr_assert_eq(rc, PT_EIO, "a write that fails: %s", pt_strerror(rc));
    cr_assert_not_null(strstr(pt_last_error(t), strerror(EFBIG)), "%s", pt_last_error(t));
    rc = pt_export_csv(t, in_dir("big.csv"));
    cr_assert_eq(rc, PT_EIO, "a write that fails: %s", pt_strerror(rc));
    cr_assert_not_null(strstr(pt_last_error(t), strerror(EFBIG)), "%s", pt_last_error(t));
    /* The text report says the same reason, not a bare "I/O error". */
    rc = pt_export_text(t, in_dir("big.txt"));
    cr_assert_eq(rc, PT_EIO, "a write that fails: %s", pt_strerror(rc));
    cr_assert_not_null(strstr(pt_last_error(t), strerror(EFBIG)), "%s", pt_last_error(t));
    cr_assert_eq(entries(dir, ""), 0, "no partial file and no temporary left");
}

/* A stream whose every write fails as stdio's does when its buffer
 * cannot be allocated. */
static ssize_t write_enomem(void *c, const char *buf, size_t n)
{
    (void)c;
    (void)buf;
    (void)n;
    errno = ENOMEM;
    return -1;
}

Test(export, a_write_out_of_memory_is_said_as_such)
{
    pt__afile a;
    char why[320];
    cookie_io_functions_t io = { .write = write_enomem };

    cr_assert_eq(pt__afile_open(&a, in_dir("oom.csv"), why, sizeof why), 0, "%s", why);
    fclose(a.f);
    a.f = fopencookie(NULL, "w", io);
    cr_assert_not_null(a.f);
    setvbuf(a.f, NULL, _IONBF, 0);
    fputs("path,name\n", a.f);
    cr_assert_eq(pt__afile_commit(&a, why, sizeof why), PT_ENOMEM, "%s", why);
    cr_assert(strstr(why, strerror(ENOMEM)), "%s", why);
    cr_assert_eq(entries(dir, ""), 0, "no partial file and no temporary left");
}

Test(export, an_existing_file_is_replaced_whole)
{
    const char *path = in_dir("perf.csv");
    FILE *f = fopen(path, "w");
    struct stat before, after;

    cr_assert_not_null(f, "create the old file");
    for (int i = 0; i < 1000; i++)
        fputs("old content that is longer than the new report\n", f);
    fclose(f);
    chmod(path, 0640);
    cr_assert_eq(stat(path, &before), 0, "stat");
    TEST_SPAN(t, &clk, "x", MS);
    cr_assert_eq(pt_export_csv(t, path), 0, "%s", pt_last_error(t));
    char *text = slurp(path);
    cr_assert_null(strstr(text, "old content"), "nothing of the old file is left");
    cr_assert(strncmp(text, "path,name,", 10) == 0, "the new report from its start");
    cr_assert(strstr(text, "\nx,x,1,cpu,0,1,") != NULL, "and complete: %s", text);
    cr_assert_eq(stat(path, &after), 0, "stat");
    cr_assert_neq(before.st_ino, after.st_ino, "a new file renamed over the old one");
    cr_assert_eq(after.st_mode & 0777, 0640, "the old file's permissions are kept");
    cr_assert_eq(entries(dir, ""), 1, "no temporary left beside it");
    free(text);
}

Test(export, a_read_only_file_is_refused_and_kept)
{
    /* Nobody may write it: a rename would replace it all the same (and
     * root passes mode bits), so the export refuses it, as an open would. */
    const char *path = in_dir("ro.csv");
    FILE *f = fopen(path, "w");

    cr_assert_not_null(f);
    fputs("kept\n", f);
    fclose(f);
    cr_assert_eq(chmod(path, 0444), 0);
    TEST_SPAN(t, &clk, "x", MS);
    cr_assert_eq(pt_export_csv(t, path), PT_EIO);
    cr_assert(strstr(pt_last_error(t), "a read-only file (mode 0444)"), "%s", pt_last_error(t));
    char *text = slurp(path);
    cr_assert_str_eq(text, "kept\n", "the file is as it was");
    free(text);
    cr_assert_eq(entries(dir, ""), 1, "no temporary left beside it");
    chmod(path, 0644);
}

Test(export, a_name_of_250_bytes_is_written)
{
    /* The temporary name beside it would pass NAME_MAX (255): a shorter
     * one in the same directory is used. */
    char name[251];

    memset(name, 'n', 246);
    memcpy(name + 246, ".csv", 5);
    TEST_SPAN(t, &clk, "x", MS);
    cr_assert_eq(pt_export_csv(t, in_dir(name)), 0, "%s", pt_last_error(t));
    char *text = slurp(in_dir(name));
    cr_assert(strstr(text, "\nx,x,1,cpu,"), "%s", text);
    free(text);
    cr_assert_eq(entries(dir, ""), 1, "no temporary left beside it");
}

/* A directory where nothing can be created: mode 0555, which binds
 * every user but root; as root (who passes mode bits), a tmpfs mounted
 * read-only there, in a mount namespace of this test process's own so
 * nothing outside sees it. Holds old.csv, an earlier report. 0 when
 * neither can be had. */
static int read_only_dir(char *out, size_t n)
{
    const char *ro = in_dir("ro");
    FILE *f;

    snprintf(out, n, "%s", ro);
    if (mkdir(ro, 0755) != 0)
        return 0;
    if (geteuid() == 0) {
        if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("ptkit-ro", ro, "tmpfs", 0, "size=64k") != 0)
            return 0;
    }
    f = fopen(in_dir("ro/old.csv"), "w");
    if (!f || fputs("an earlier report\n", f) == EOF || fclose(f) != 0)
        return 0;
    if (geteuid() == 0)
        return mount("ptkit-ro", ro, "tmpfs", MS_REMOUNT | MS_RDONLY, "size=64k") == 0;
    return chmod(ro, 0555) == 0;
}

Test(export, a_read_only_directory_fails_and_keeps_what_was_there)
{
    typedef int (*export_fn)(pt_timing *, const char *);
    static const struct {
        export_fn fn;
        const char *name;
    } exports[] = { { pt_export_csv, "ro/perf.csv" }, { pt_export_json, "ro/perf.json" },
                    { pt_export_html, "ro/perf.html" }, { pt_export_csv, "ro/old.csv" } };
    char ro[256];

    if (!read_only_dir(ro, sizeof ro))
        cr_skip_test("no read-only directory to be had: not root, and chmod failed, or root "
                     "without the right to mount a tmpfs (%s)", strerror(errno));
    cr_assert_neq(access(ro, W_OK) == 0 && geteuid() != 0, 1, "%s is writable", ro);
    workload();
    for (size_t i = 0; i < sizeof exports / sizeof exports[0]; i++) {
        const char *path = in_dir(exports[i].name);
        int rc = exports[i].fn(t, path);
        cr_assert_eq(rc, PT_EIO, "%s: %s", path, pt_strerror(rc));
        cr_assert_not_null(strstr(pt_last_error(t), path), "names the path: %s",
                           pt_last_error(t));
        cr_assert(strstr(pt_last_error(t), strerror(EROFS)) ||
                      strstr(pt_last_error(t), strerror(EACCES)),
                  "says why: %s", pt_last_error(t));
    }
    cr_assert_eq(pt_error_count_of(t, PT_EIO), 4, "each counted");
    cr_assert_eq(entries(ro, ""), 1, "nothing new, no temporary file");
    char *old = test_read_file(in_dir("ro/old.csv"));
    cr_assert_not_null(old);
    cr_assert_str_eq(old, "an earlier report\n", "the earlier report is whole");
    free(old);
    if (geteuid() == 0)
        cr_assert_eq(umount2(ro, MNT_DETACH), 0, "umount: %s", strerror(errno));
    else
        chmod(ro, 0755);
}

Test(export, a_new_file_follows_the_umask)
{
    struct stat st;
    mode_t old = umask(027);
    TEST_SPAN(t, &clk, "x", MS);
    int rc = pt_export_json(t, in_dir("m.json"));
    umask(old);
    cr_assert_eq(rc, 0, "%s", pt_last_error(t));
    cr_assert_eq(stat(in_dir("m.json"), &st), 0, "stat");
    cr_assert_eq(st.st_mode & 0777, 0640, "0666 less umask 027, not mkstemp's 0600: %o",
                 st.st_mode & 0777);
}

Test(export, null_timing_and_bad_paths)
{
    cr_assert_eq(pt_export_csv(NULL, in_dir("n.csv")), 0, "NULL timing: no-op");
    cr_assert_eq(pt_export_json(NULL, NULL), 0, "NULL timing: no-op, whatever the path");
    cr_assert_eq(entries(dir, ""), 0, "nothing written for a NULL timing");
    int rc = pt_export_csv(t, NULL);
    cr_assert_eq(rc, PT_EINVAL, "NULL path: %s", pt_strerror(rc));
    rc = pt_export_json(t, "");
    cr_assert_eq(rc, PT_EINVAL, "empty path: %s", pt_strerror(rc));
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 2, "both counted");
}

Test(export, exporting_changes_nothing_in_the_timing)
{
    workload();
    pt_run_stats a = run_stats(t);
    cr_assert_eq(pt_export_csv(t, in_dir("a.csv")), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_export_json(t, in_dir("a.json")), 0, "%s", pt_last_error(t));
    pt_run_stats b = run_stats(t);
    cr_assert_eq(a.section_count, b.section_count, "no section added");
    cr_assert_eq(a.total_ms, b.total_ms, "no time added");
    cr_assert_eq(b.error_count, 0, "no error counted");
}

Test(export, json_device_clock_counts_folds_even_uncalibrated)
{
    TEST_SPAN(t, &clk, "step", MS);
    t->dev_clock.calibrated = 0;
    t->dev_clock.cycles_per_ns = 1.5;
    t->dev_clock.folds = 3;
    t->dev_clock.slots_skipped = 2;
    t->dev_clock.slots_unfinished = 1;
    t->dev_clock.untraced = 5;
    cr_assert_eq(pt_export_json(t, in_dir("unc.json")), 0, "%s", pt_last_error(t));
    json_t *j = load(in_dir("unc.json"));
    json_t *dc = member(j, "device_clock");
    cr_assert(json_is_object(dc), "an object once a fold ran, calibrated or not");
    cr_assert(json_is_false(member(dc, "calibrated")), "not calibrated");
    cr_assert_eq(json_integer_value(member(dc, "folds")), 3, "folds");
    cr_assert_eq(json_integer_value(member(dc, "slots_skipped")), 2, "slots_skipped");
    cr_assert_eq(json_integer_value(member(dc, "slots_unfinished")), 1, "slots_unfinished");
    cr_assert_eq(json_integer_value(member(dc, "untraced")), 5, "untraced");
    json_decref(j);
}
