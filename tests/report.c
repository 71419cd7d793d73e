/* The text report: the tree, the flat table and the bottlenecks, on a
 * manual clock so every figure in them is exact.
 *
 * Cells are read by position: a right-aligned cell ends in the same
 * column as its header's title, so reading it there also checks that the
 * columns line up. Folded phases and the device clock are set up through
 * the internal model, standing in for a fold on a device. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "pt_hist.h"
#include "core/model.h"

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    t = test_timing(&clk, "frame", PT_CPU);
    cr_assert_not_null(t, "pt_create failed");
}

static void teardown(void)
{
    pt_destroy(t);
}

TestSuite(report, .init = setup, .fini = teardown);

#define MS 1000000 /* ns */

/* Three frames: validation 1 ms; atb 4, 5, 6 ms reading 3 MB, writing
 * 1.5 MB and doing 1.5 GFLOP each time; an upload of 50 MB in 4 ms; and
 * 2.5 ms of the frame's own. 37.5 ms in all. */
static void three_frames(void)
{
    for (int i = 0; i < 3; i++) {
        pt_start(t, "optimize_frame");
        TEST_SPAN(t, &clk, "validation", 1 * MS);
        TEST_SPAN(t, &clk, "atb", (4 + i) * MS, .read = 3e6, .written = 1.5e6, .flops = 1.5e9);
        pt_start(t, "upload");
        pt_transfer(t, 50e6, PT_H2D);
        clk.now += 4 * MS;
        pt_stop(t, "upload");
        clk.now += 5 * MS / 2;
        pt_stop(t, "optimize_frame");
    }
}

/* ---- capturing and reading a report ------------------------------ */

typedef struct lines {
    char **v;
    size_t n;
} lines;

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static void lines_push(lines *l, const char *s)
{
    l->v = realloc(l->v, (l->n + 1) * sizeof *l->v);
    cr_assert_not_null(l->v, "out of memory");
    l->v[l->n++] = strdup(s);
}

static void split(lines *l, const char *text)
{
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        cr_assert_not_null(e, "the report's last line has no newline: \"%s\"", p);
        char *s = strndup(p, (size_t)(e - p));
        lines_push(l, s);
        free(s);
        p = e + 1;
    }
}

/* The report as pt_log() prints it, through a memory stream. */
#define LOG(l, rc_out, ...)                                                   \
    do {                                                                      \
        char *buf_ = NULL;                                                    \
        size_t len_ = 0;                                                      \
        FILE *f_ = open_memstream(&buf_, &len_);                              \
        cr_assert_not_null(f_, "open_memstream");                             \
        *(rc_out) = pt_log(t, f_, __VA_ARGS__);                               \
        fclose(f_);                                                           \
        split((l), buf_);                                                     \
        free(buf_);                                                           \
    } while (0)

/* Columns of UTF-8 text: one per code point. */
static size_t cols(const char *s, size_t bytes)
{
    size_t c = 0;
    for (size_t i = 0; i < bytes && s[i]; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* Byte offset of column `col` in s, or (size_t)-1 if s is shorter. */
static size_t byte_at(const char *s, size_t col)
{
    size_t i = 0;
    while (col > 0) {
        if (!s[i])
            return (size_t)-1;
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        col--;
    }
    return i;
}

static const char *header_of(const lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (strncmp(l->v[i], "Section", 7) == 0)
            return l->v[i];
    cr_assert_fail("no column header in the report");
    return NULL;
}

/* The line whose name cell, after its indentation, starts with `label`. */
static const char *row_of(const lines *l, const char *label)
{
    size_t n = strlen(label);
    for (size_t i = 0; i < l->n; i++) {
        const char *s = l->v[i] + strspn(l->v[i], " ");
        if (strncmp(s, label, n) == 0 && (s[n] == ' ' || s[n] == '\0'))
            return l->v[i];
    }
    cr_assert_fail("no row for \"%s\" in the report", label);
    return NULL;
}

static size_t index_of(const lines *l, const char *line)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == line)
            return i;
    return (size_t)-1;
}

/* The right-aligned cell of `row` under the header title `title`: it must
 * end in the title's last column; "" when the cell is blank. */
static char *cell(const char *header, const char *row, const char *title)
{
    static char out[8][128];
    static int next;
    char *o = out[next++ % 8];
    const char *h = strstr(header, title);
    size_t end_col, end, start;

    cr_assert_not_null(h, "no column \"%s\" in \"%s\"", title, header);
    end_col = cols(header, (size_t)(h - header)) + cols(title, strlen(title));
    end = byte_at(row, end_col);
    o[0] = '\0';
    if (end == (size_t)-1)
        return o;
    start = end;
    while (start > 0 && row[start - 1] != ' ')
        start--;
    cr_assert(row[end] == ' ' || row[end] == '\0',
              "cell under \"%s\" runs past its column in \"%s\"", title, row);
    snprintf(o, 128, "%.*s", (int)(end - start), row + start);
    return o;
}

/* The left-aligned cell starting under `title`, up to the next gap. */
static char *lcell(const char *header, const char *row, const char *title)
{
    static char out[128];
    const char *h = strstr(header, title);
    size_t start, end;

    cr_assert_not_null(h, "no column \"%s\"", title);
    start = byte_at(row, cols(header, (size_t)(h - header)));
    out[0] = '\0';
    if (start == (size_t)-1)
        return out;
    const char *gap = strstr(row + start, "  ");
    end = gap ? (size_t)(gap - row) : strlen(row);
    snprintf(out, sizeof out, "%.*s", (int)(end - start), row + start);
    return out;
}

/* A string equal to the one expected; the message shows what came. */
#define EXPECT_STR(got, want, what)                                            \
    do {                                                                        \
        const char *got_ = (got);                                               \
        cr_assert_str_eq(got_, (want), what ": got \"%s\"", got_);            \
    } while (0)

#define LATER "Later: mean \xC2\xB1 sd (min, max)"

/* ---- the tree ---------------------------------------------------- */

Test(report, header_names_the_timing_its_size_total_and_clock)
{
    lines l = { 0 };
    int rc;

    three_frames();
    LOG(&l, &rc);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    EXPECT_STR(l.v[0], "ptkit report \"frame\": 4 sections, 37.500 ms total, clock user", "header line");
    EXPECT_STR(l.v[1], "  ptkit's own cost: not known for a user clock; nothing is taken out",
               "ptkit's own cost, or why it is not known");
    cr_assert(strncmp(l.v[2], "Section", 7) == 0, "column header follows: \"%s\"", l.v[2]);
    cr_assert(l.v[3][0] == '-' && strspn(l.v[3], "-") == strlen(l.v[3]),
              "a rule under the column header: \"%s\"", l.v[3]);
    cr_assert_eq(strlen(l.v[3]), cols(l.v[2], strlen(l.v[2])),
                 "the rule is as wide as the header");
    lines_free(&l);
}

Test(report, rows_are_indented_two_spaces_per_depth)
{
    lines l = { 0 };
    int rc;

    pt_start(t, "a");
    pt_start(t, "b");
    TEST_SPAN(t, &clk, "c", MS);
    pt_stop(t, "b");
    pt_stop(t, "a");
    LOG(&l, &rc);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    cr_assert(strncmp(row_of(&l, "a"), "a ", 2) == 0, "depth 1 starts the line");
    cr_assert(strncmp(row_of(&l, "b"), "  b ", 4) == 0, "depth 2: two spaces");
    cr_assert(strncmp(row_of(&l, "c"), "    c ", 6) == 0, "depth 3: four spaces");
    cr_assert_lt(index_of(&l, row_of(&l, "a")), index_of(&l, row_of(&l, "b")),
                 "a parent comes before its children");
    lines_free(&l);
}

Test(report, first_occurrence_is_apart_from_the_later_ones)
{
    lines l = { 0 };
    int rc;

    three_frames();
    LOG(&l, &rc);
    const char *h = header_of(&l), *r = row_of(&l, "atb");
    EXPECT_STR(cell(h, r, "Calls"), "3", "calls");
    EXPECT_STR(cell(h, r, "Total ms"), "15.000", "4 + 5 + 6 ms");
    EXPECT_STR(cell(h, r, "First ms"), "4.000", "the first occurrence alone");
    EXPECT_STR(lcell(h, r, LATER), "5.500 \xC2\xB1 0.707 (5.000, 6.000)", "mean ± sample sd (min, max) of 5 and 6 ms");
    lines_free(&l);
}

Test(report, a_single_occurrence_has_no_later_figures)
{
    lines l = { 0 };
    int rc;

    TEST_SPAN(t, &clk, "once", 2 * MS);
    TEST_SPAN(t, &clk, "twice", 3 * MS);
    TEST_SPAN(t, &clk, "twice", 5 * MS);
    LOG(&l, &rc);
    const char *h = header_of(&l);
    EXPECT_STR(cell(h, row_of(&l, "once"), "First ms"), "2.000", "first");
    EXPECT_STR(lcell(h, row_of(&l, "once"), LATER), "", "nothing later to show");
    EXPECT_STR(lcell(h, row_of(&l, "twice"), LATER), "5.000",
               "one later occurrence: its time, no spread (there is none)");
    lines_free(&l);
}

Test(report, percentages_only_when_asked)
{
    lines l = { 0 };
    int rc;

    three_frames();
    LOG(&l, &rc);
    cr_assert_null(strstr(header_of(&l), "% parent"), "no percentages by default");
    cr_assert_null(strstr(header_of(&l), "% total"), "no percentages by default");
    lines_free(&l);

    LOG(&l, &rc, .percentages = 1);
    const char *h = header_of(&l);
    EXPECT_STR(cell(h, row_of(&l, "atb"), "% parent"), "40.0%", "15 of 37.5 ms");
    EXPECT_STR(cell(h, row_of(&l, "atb"), "% total"), "40.0%", "15 of 37.5 ms");
    EXPECT_STR(cell(h, row_of(&l, "validation"), "% parent"), "8.0%", "3 of 37.5 ms");
    EXPECT_STR(cell(h, row_of(&l, "optimize_frame"), "% total"), "100.0%", "the whole run");
    lines_free(&l);
}

Test(report, percent_of_parent_and_of_whole_differ_when_nested)
{
    lines l = { 0 };
    int rc;

    pt_start(t, "outer");
    TEST_SPAN(t, &clk, "inner", 1 * MS);
    clk.now += 1 * MS;
    pt_stop(t, "outer");
    TEST_SPAN(t, &clk, "other", 2 * MS);
    LOG(&l, &rc, .percentages = 1);
    const char *h = header_of(&l), *r = row_of(&l, "inner");
    EXPECT_STR(cell(h, r, "% parent"), "50.0%", "1 of outer's 2 ms");
    EXPECT_STR(cell(h, r, "% total"), "25.0%", "1 of the run's 4 ms");
    lines_free(&l);
}

Test(report, bandwidth_and_flop_rates_over_total_time)
{
    lines l = { 0 };
    int rc;

    three_frames();
    LOG(&l, &rc);
    const char *h = header_of(&l), *r = row_of(&l, "atb");
    EXPECT_STR(cell(h, r, "Read GB/s"), "0.60", "9 MB in 15 ms");
    EXPECT_STR(cell(h, r, "Write GB/s"), "0.30", "4.5 MB in 15 ms");
    EXPECT_STR(cell(h, r, "GFLOP/s"), "300.0", "4.5 GFLOP in 15 ms");
    r = row_of(&l, "validation");
    EXPECT_STR(cell(h, r, "Read GB/s"), "", "blank when nothing was read");
    EXPECT_STR(cell(h, r, "GFLOP/s"), "", "blank when no FLOPS were declared");
    lines_free(&l);
}

Test(report, transfers_get_a_line_per_direction)
{
    lines l = { 0 };
    int rc;

    three_frames();
    pt_start(t, "download");
    pt_transfer(t, 2e6, PT_D2H);
    pt_transfer(t, 500, PT_D2D);
    clk.now += 1 * MS;
    pt_stop(t, "download");
    LOG(&l, &rc);
    size_t i = index_of(&l, row_of(&l, "upload"));
    EXPECT_STR(l.v[i + 1], "      H2D 12.50 GB/s (150.0 MB)", "150 MB in 12 ms, under the row, indented past its name");
    i = index_of(&l, row_of(&l, "download"));
    EXPECT_STR(l.v[i + 1], "    D2H 2.00 GB/s (2.0 MB)", "2 MB in 1 ms");
    EXPECT_STR(l.v[i + 2], "    D2D 5.00e-04 GB/s (500 B)", "500 B in 1 ms");
    lines_free(&l);
}

static void four_siblings(void)
{
    TEST_SPAN(t, &clk, "b", 1 * MS, .flops = 30);
    TEST_SPAN(t, &clk, "d", 3 * MS, .flops = 10);
    TEST_SPAN(t, &clk, "a", 2 * MS, .flops = 40);
    TEST_SPAN(t, &clk, "c", 4 * MS, .flops = 20);
}

static void assert_order(const lines *l, const char *const *names, int n, const char *what)
{
    for (int i = 1; i < n; i++)
        cr_assert_lt(index_of(l, row_of(l, names[i - 1])), index_of(l, row_of(l, names[i])),
                     "%s: \"%s\" before \"%s\"", what, names[i - 1], names[i]);
}

Test(report, sort_by_order_time_flops_and_name)
{
    static const char *const order[] = { "b", "d", "a", "c" };
    static const char *const time[] = { "c", "d", "a", "b" };
    static const char *const flops[] = { "a", "b", "c", "d" };
    static const char *const name[] = { "a", "b", "c", "d" };
    lines l = { 0 };
    int rc;

    four_siblings();
    LOG(&l, &rc);
    assert_order(&l, order, 4, "default: order of first start");
    lines_free(&l);
    LOG(&l, &rc, .sort = PT_SORT_TIME);
    assert_order(&l, time, 4, "PT_SORT_TIME: largest total first");
    lines_free(&l);
    LOG(&l, &rc, .sort = PT_SORT_FLOPS);
    assert_order(&l, flops, 4, "PT_SORT_FLOPS: most FLOPS first");
    lines_free(&l);
    LOG(&l, &rc, .sort = PT_SORT_NAME);
    assert_order(&l, name, 4, "PT_SORT_NAME: by title");
    lines_free(&l);
}

Test(report, sorting_keeps_children_under_their_parent)
{
    lines l = { 0 };
    int rc;

    pt_start(t, "small");
    TEST_SPAN(t, &clk, "x", 1 * MS);
    pt_stop(t, "small");
    pt_start(t, "big");
    TEST_SPAN(t, &clk, "y", 1 * MS);
    TEST_SPAN(t, &clk, "z", 5 * MS);
    pt_stop(t, "big");
    LOG(&l, &rc, .sort = PT_SORT_TIME);
    static const char *const want[] = { "big", "z", "y", "small", "x" };
    assert_order(&l, want, 5, "siblings sorted, each under its own parent");
    lines_free(&l);
}

Test(report, max_depth_limits_the_rows)
{
    lines l = { 0 };
    int rc;

    three_frames();
    LOG(&l, &rc, .max_depth = 1);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    row_of(&l, "optimize_frame");
    for (size_t i = 0; i < l.n; i++)
        cr_assert_null(strstr(l.v[i], "validation"), "depth 2 is hidden: \"%s\"", l.v[i]);
    lines_free(&l);
    LOG(&l, &rc, .max_depth = 2);
    row_of(&l, "validation");
    lines_free(&l);
}

Test(report, open_sections_are_shown_marked_and_counted)
{
    lines l = { 0 };
    int rc;

    TEST_SPAN(t, &clk, "done", 1 * MS);
    pt_start(t, "outer");
    pt_start(t, "inner");
    uint64_t before = pt_error_count(t);
    LOG(&l, &rc);
    cr_assert_eq(rc, PT_EOPEN, "pt_log with open sections: %s", pt_strerror(rc));
    cr_assert_eq(pt_error_count(t), before + 1, "counted once");
    cr_assert_eq(pt_error_count_of(t, PT_EOPEN), 1, "as PT_EOPEN");
    cr_assert_not_null(strstr(pt_last_error(t), "(open: outer > inner)"),
                       "described with the stack: %s", pt_last_error(t));
    row_of(&l, "done");
    cr_assert_not_null(strstr(row_of(&l, "outer"), "outer [open]"), "outer marked");
    cr_assert_not_null(strstr(row_of(&l, "inner"), "inner [open]"), "inner marked");
    EXPECT_STR(l.v[l.n - 1], "2 sections open at report time: outer > inner", "the report ends by naming the open stack");
    lines_free(&l);
}

Test(report, gpu_fallback_is_said_once_and_gpu_rows_are_marked)
{
    lines l = { 0 };
    int rc, notes = 0;

    for (int i = 0; i < 2; i++) {
        pt_start_gpu(t, "kernel", 0);
        clk.now += 1 * MS;
        pt_stop_gpu(t, "kernel", 0);
    }
    TEST_SPAN(t, &clk, "host", 1 * MS);
    LOG(&l, &rc);
    for (size_t i = 0; i < l.n; i++) {
        if (!strstr(l.v[i], "note: GPU sections timed by the CPU clock"))
            continue;
        notes++;
        cr_assert_not_null(strstr(l.v[i], "the timing was created without PT_GPU_EVENTS"),
                           "its true reason, no events asked for: %s", l.v[i]);
        cr_assert_null(strstr(l.v[i], "no CUDA device"), "not a missing device: %s", l.v[i]);
    }
    cr_assert_eq(notes, 1, "the fallback is said exactly once");
    cr_assert_not_null(strstr(row_of(&l, "kernel"), "kernel [gpu] [cpu clock]"),
                       "GPU section marked, and as timed by the CPU clock");
    cr_assert_null(strstr(row_of(&l, "host"), "[gpu]"), "CPU section not marked");
    lines_free(&l);
}

static void collect_line(void *ctx, const char *line)
{
    lines_push(ctx, line);
}

Test(report, log_fn_gets_the_same_lines_as_log)
{
    lines a = { 0 }, b = { 0 };
    int rc;

    three_frames();
    TEST_SPAN(t, &clk, "a,b \"c\"", 1 * MS);
    for (int view = PT_VIEW_TREE; view <= PT_VIEW_BOTTLENECKS; view++) {
        LOG(&a, &rc, .view = view, .percentages = 1);
        cr_assert_eq(rc, 0, "pt_log view %d: %s", view, pt_strerror(rc));
        rc = pt_log_fn(t, collect_line, &b, .view = view, .percentages = 1);
        cr_assert_eq(rc, 0, "pt_log_fn view %d: %s", view, pt_strerror(rc));
        cr_assert_eq(a.n, b.n, "view %d: same number of lines", view);
        for (size_t i = 0; i < a.n; i++) {
            cr_assert_str_eq(a.v[i], b.v[i], "view %d, line %zu", view, i);
            cr_assert_null(strchr(b.v[i], '\n'), "a line handed to fn has no newline");
        }
        lines_free(&a);
        lines_free(&b);
    }
}

/* ---- the flat table ---------------------------------------------- */

static const char *table_header(const lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        if ((strncmp(l->v[i], "Section", 7) == 0 || strncmp(l->v[i], "Kernel", 6) == 0) &&
            strstr(l->v[i], "Total ms"))
            return l->v[i];
    cr_assert_fail("no table header");
    return NULL;
}

Test(report, table_has_a_row_per_path_and_a_total)
{
    lines l = { 0 };
    int rc;

    three_frames();
    LOG(&l, &rc, .view = PT_VIEW_TABLE);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    const char *h = table_header(&l);
    cr_assert(strstr(h, "Calls") && strstr(h, "First ms") && strstr(h, "Mean ms") &&
                  strstr(h, "Min ms") && strstr(h, "Max ms"),
              "KernelTimer columns, and the first call apart: \"%s\"", h);
    const char *r = row_of(&l, "optimize_frame/atb");
    EXPECT_STR(cell(h, r, "Calls"), "3", "calls");
    EXPECT_STR(cell(h, r, "Total ms"), "15.000", "total");
    EXPECT_STR(cell(h, r, "First ms"), "4.000", "the first call apart");
    EXPECT_STR(cell(h, r, "Mean ms"), "5.500", "the mean of the later calls, 5 and 6 ms");
    const char *tot = row_of(&l, "TOTAL");
    EXPECT_STR(cell(h, tot, "Total ms"), "37.500", "the top-level sum");
    EXPECT_STR(cell(h, tot, "Calls"), "", "no calls on the TOTAL row");
    cr_assert(l.v[index_of(&l, tot) - 1][0] == '-', "a rule above TOTAL");
    cr_assert(l.v[index_of(&l, tot) + 1][0] == '=', "a closing rule below TOTAL");
    cr_assert_not_null(strstr(l.v[index_of(&l, tot) + 2], "calls after the first"),
                       "the table says what its mean is: %s", l.v[index_of(&l, tot) + 2]);
    lines_free(&l);
}

/* One meaning of "mean" in every view: the mean of the calls after the
 * first, which is apart; the table and the tree give the same number. */
Test(report, table_and_tree_mean_the_same)
{
    lines l = { 0 }, tree = { 0 };
    int rc;

    TEST_SPAN(t, &clk, "warmup", 10 * MS);
    TEST_SPAN(t, &clk, "warmup", 2 * MS);
    TEST_SPAN(t, &clk, "warmup", 4 * MS);
    TEST_SPAN(t, &clk, "steady", 3 * MS);
    TEST_SPAN(t, &clk, "steady", 1 * MS);
    TEST_SPAN(t, &clk, "steady", 5 * MS);
    TEST_SPAN(t, &clk, "once", 7 * MS);
    LOG(&l, &rc, .view = PT_VIEW_TABLE);
    const char *h = table_header(&l), *r = row_of(&l, "warmup");
    EXPECT_STR(cell(h, r, "First ms"), "10.000", "the first call apart");
    EXPECT_STR(cell(h, r, "Mean ms"), "3.000", "6 ms over the 2 later calls, not 16 over 3");
    EXPECT_STR(cell(h, r, "Min ms"), "2.000", "min of the later calls");
    EXPECT_STR(cell(h, r, "Max ms"), "4.000", "max of the later calls: the first is apart");
    r = row_of(&l, "steady");
    EXPECT_STR(cell(h, r, "Min ms"), "1.000", "a later occurrence is the min");
    EXPECT_STR(cell(h, r, "Max ms"), "5.000", "a later occurrence is the max");
    r = row_of(&l, "once");
    EXPECT_STR(cell(h, r, "First ms"), "7.000", "one call: its first");
    EXPECT_STR(cell(h, r, "Mean ms"), "-", "one call has no later mean");
    LOG(&tree, &rc);
    cr_assert_not_null(strstr(row_of(&tree, "warmup"), "3.000 \xC2\xB1 1.414 (2.000, 4.000)"),
                       "the tree's later mean is the table's: %s", row_of(&tree, "warmup"));
    lines_free(&l);
    lines_free(&tree);
}

/* ---- bottlenecks ------------------------------------------------- */

Test(report, bottlenecks_rank_by_self_time)
{
    lines l = { 0 };
    int rc;

    three_frames();
    LOG(&l, &rc, .view = PT_VIEW_BOTTLENECKS);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    const char *h = NULL;
    for (size_t i = 0; i < l.n; i++)
        if (strncmp(l.v[i], "Rank", 4) == 0)
            h = l.v[i];
    cr_assert_not_null(h, "a Rank column header");
    const char *r1 = row_of(&l, "1"), *r2 = row_of(&l, "2"), *r3 = row_of(&l, "3"),
               *r4 = row_of(&l, "4");
    cr_assert_not_null(strstr(r1, "optimize_frame/atb "), "15 ms self: \"%s\"", r1);
    cr_assert_not_null(strstr(r2, "optimize_frame/upload "), "12 ms self: \"%s\"", r2);
    cr_assert_not_null(strstr(r3, "optimize_frame "), "7.5 ms self: \"%s\"", r3);
    cr_assert_not_null(strstr(r4, "optimize_frame/validation "), "3 ms self: \"%s\"", r4);
    EXPECT_STR(cell(h, r1, "Self ms"), "15.000", "self ms");
    EXPECT_STR(cell(h, r1, "% of whole"), "40.0%", "15 of 37.5 ms");
    EXPECT_STR(cell(h, r3, "% of whole"), "20.0%", "7.5 of 37.5 ms");
    EXPECT_STR(cell(h, r4, "% of whole"), "8.0%", "3 of 37.5 ms");
    EXPECT_STR(cell(h, r1, "Calls"), "3", "calls");
    lines_free(&l);
}

Test(report, bottlenecks_show_top_rows)
{
    lines l = { 0 };
    int rc, ranked = 0;

    four_siblings();
    LOG(&l, &rc, .view = PT_VIEW_BOTTLENECKS, .top = 2);
    for (size_t i = 0; i < l.n; i++) {
        int rank;
        ranked += sscanf(l.v[i], "%d", &rank) == 1;
    }
    cr_assert_eq(ranked, 2, ".top = 2 shows two rows");
    cr_assert_not_null(strstr(row_of(&l, "1"), " c "), "c has the most self time");
    lines_free(&l);
}

Test(report, bottlenecks_with_a_huge_top_show_every_section)
{
    lines l = { 0 };
    int rc, ranked = 0;

    four_siblings();
    LOG(&l, &rc, .view = PT_VIEW_BOTTLENECKS, .top = 1 << 30);
    cr_assert_eq(rc, 0, "a huge .top is fine: %s", pt_strerror(rc));
    for (size_t i = 0; i < l.n; i++) {
        int rank;
        ranked += sscanf(l.v[i], "%d", &rank) == 1;
    }
    cr_assert_eq(ranked, 4, "every section, once");
    lines_free(&l);
}

/* ---- misuse and faults ------------------------------------------- */

static void count_line(void *ctx, const char *line)
{
    (void)line;
    ++*(int *)ctx;
}

Test(report, null_timing_prints_nothing)
{
    char *buf = NULL;
    size_t len = 0;
    int calls = 0;
    FILE *f = open_memstream(&buf, &len);

    cr_assert_eq(pt_log(NULL, f), 0, "pt_log(NULL) is a no-op");
    cr_assert_eq(pt_log(NULL, NULL), 0, "even with a NULL FILE");
    cr_assert_eq(pt_log_fn(NULL, count_line, &calls), 0, "pt_log_fn(NULL) is a no-op");
    fclose(f);
    cr_assert_eq(len, 0, "nothing printed: \"%s\"", buf);
    cr_assert_eq(calls, 0, "no line handed over");
    free(buf);
}

Test(report, null_file_or_function_is_einval_and_counted)
{
    int rc = pt_log(t, NULL);
    cr_assert_eq(rc, PT_EINVAL, "pt_log(t, NULL): %s", pt_strerror(rc));
    rc = pt_log_fn(t, NULL, NULL);
    cr_assert_eq(rc, PT_EINVAL, "pt_log_fn(t, NULL): %s", pt_strerror(rc));
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 2, "both counted");
}

Test(report, bad_options_are_einval_and_print_nothing)
{
    int calls = 0, rc;

    rc = pt_log_fn(t, count_line, &calls, .view = 7);
    cr_assert_eq(rc, PT_EINVAL, "unknown view: %s", pt_strerror(rc));
    rc = pt_log_fn(t, count_line, &calls, .sort = -1);
    cr_assert_eq(rc, PT_EINVAL, "unknown sort: %s", pt_strerror(rc));
    rc = pt_log_fn(t, count_line, &calls, .max_depth = -2);
    cr_assert_eq(rc, PT_EINVAL, "negative depth: %s", pt_strerror(rc));
    cr_assert_eq(calls, 0, "arguments are checked before any line");
}

Test(report, write_error_is_eio)
{
    FILE *f = fopen("/dev/full", "w");
    cr_assert_not_null(f, "/dev/full");
    three_frames();
    int rc = pt_log(t, f);
    fclose(f);
    cr_assert_eq(rc, PT_EIO, "a full device: %s", pt_strerror(rc));
    cr_assert_eq(pt_error_count_of(t, PT_EIO), 1, "counted");
    cr_assert_not_null(strstr(pt_last_error(t), "No space left on device"),
                       "says why: %s", pt_last_error(t));
}

Test(report, errors_are_summed_up_in_a_footer)
{
    lines l = { 0 };
    int rc;

    TEST_SPAN(t, &clk, "x", MS);
    pt_stop(t, "never started");
    pt_stop(t, "nor this");
    LOG(&l, &rc);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    EXPECT_STR(l.v[l.n - 1], "2 errors; last: PT_ENOSTART: pt_stop(\"nor this\") with no section open", "the last line counts the errors and quotes the last");
    lines_free(&l);
}

Test(report, an_empty_timing_says_so)
{
    lines l = { 0 };
    int rc;

    LOG(&l, &rc);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    EXPECT_STR(l.v[0], "ptkit report \"frame\": 0 sections, 0.000 ms total, clock user", "header");
    EXPECT_STR(l.v[2], "(no sections)", "and nothing else");
    cr_assert_eq(l.n, 3, "three lines");
    lines_free(&l);
}

Test(report, long_titles_are_cut_and_columns_stay_aligned)
{
    lines l = { 0 };
    char name[200];
    int rc;

    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    TEST_SPAN(t, &clk, name, 2 * MS);
    TEST_SPAN(t, &clk, "short", 3 * MS);
    LOG(&l, &rc);
    const char *h = header_of(&l), *r = NULL;
    for (size_t i = 0; i < l.n; i++)
        if (l.v[i][0] == 'n')
            r = l.v[i];
    cr_assert_not_null(r, "the long row");
    cr_assert_not_null(strstr(r, "n\xE2\x80\xA6"), "cut with an ellipsis: \"%s\"", r);
    cr_assert_lt(strlen(r), 150, "the title is not shown whole");
    EXPECT_STR(cell(h, r, "Total ms"), "2.000", "its cells stay under their titles");
    EXPECT_STR(cell(h, row_of(&l, "short"), "Total ms"), "3.000", "and the others too");
    lines_free(&l);

    LOG(&l, &rc, .view = PT_VIEW_TABLE);
    row_of(&l, name); /* the flat table shows the whole path */
    lines_free(&l);
}

Test(report, control_characters_in_titles_cannot_break_lines)
{
    lines a = { 0 };
    int rc;

    TEST_SPAN(t, &clk, "two\nlines\tand\x01", MS);
    rc = pt_log_fn(t, collect_line, &a);
    cr_assert_eq(rc, 0, "pt_log_fn: %s", pt_strerror(rc));
    row_of(&a, "two\\nlines\\tand\\x01");
    for (size_t i = 0; i < a.n; i++)
        for (const char *p = a.v[i]; *p; p++)
            cr_assert((unsigned char)*p >= 0x20, "no control character in \"%s\"", a.v[i]);
    lines_free(&a);
}

/* A fold's result, made by hand: a launch "step" with a phase under it. */
static void fake_fold(void)
{
    pt_start_gpu(t, "step", 0);
    TEST_SPAN(t, &clk, "angular", 3 * MS);
    TEST_SPAN(t, &clk, "(unattributed)", 1 * MS);
    pt_stop_gpu(t, "step", 0);
    pt_section *ph = (pt_section *)pt_find(t, "step/angular");
    pt_section *un = (pt_section *)pt_find(t, "step/(unattributed)");
    cr_assert(ph && un, "the phase sections");
    ph->kind = PT__K_PHASE;
    un->kind = PT__K_UNATTR;
    ph->phase = calloc(1, sizeof *ph->phase);
    cr_assert_not_null(ph->phase, "out of memory");
    ph->phase->blocks = 4;
    ph->phase->hits = 16;
    ph->phase->block_sum_ns = 8 * MS;   /* mean 2 ms */
    ph->phase->block_min_ns = 1 * MS;
    ph->phase->block_max_ns = 3 * MS;
    /* Blocks of 1, 2, 2 and 3 ms in the histogram (device/pt_hist.h). */
    ph->phase->hist = calloc(PT__HIST_BINS, sizeof *ph->phase->hist);
    ph->phase->hist[pt__hist_bin(1 * MS)] += 1;
    ph->phase->hist[pt__hist_bin(2 * MS)] += 2;
    ph->phase->hist[pt__hist_bin(3 * MS)] += 1;
    t->dev_clock.calibrated = 1;
    t->dev_clock.cycles_per_ns = 1.755;
    t->dev_clock.tick_ns = 32;
    t->dev_clock.blocks_own = 3;
    t->dev_clock.blocks_cal = 1;
    t->dev_clock.folds = 2;
    t->dev_clock.slots_skipped = 1;
    t->dev_clock.device = 0;
    snprintf(t->dev_clock.device_name, sizeof t->dev_clock.device_name, "NVIDIA H100 80GB HBM3");
    t->dropped = 7;
}

Test(report, folded_phases_show_per_block_figures)
{
    lines l = { 0 };
    int rc;

    fake_fold();
    LOG(&l, &rc);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    size_t i = index_of(&l, row_of(&l, "angular"));
    cr_assert(strncmp(l.v[i], "  angular ", 10) == 0, "a phase is a child of its launch");
    /* p50: the 2nd of 4 times, the 2 ms bin's middle (1.999 ms); p90 and
     * p99: the 4th, the 3 ms bin's middle (2.948 ms). */
    EXPECT_STR(l.v[i + 1], "      per block: mean 2.000 ms; min 1.000, p50 1.999, p90 2.948, "
                     "p99 2.948, max 3.000 ms; imbalance 1.50 (max/mean); 4 blocks, 16 hits",
               "per-block figures under the phase");
    i = index_of(&l, row_of(&l, "(unattributed)"));
    cr_assert(i + 1 == l.n || strstr(l.v[i + 1], "per block") == NULL,
              "no per-block line without blocks");
    lines_free(&l);
}

Test(report, device_clock_and_dropped_events_are_stated)
{
    lines l = { 0 };
    int rc, found_clock = 0, found_drop = 0;

    fake_fold();
    LOG(&l, &rc);
    for (size_t i = 0; i < l.n; i++) {
        if (strcmp(l.v[i], "  device clock: NVIDIA H100 80GB HBM3 (device 0), SM clock 1.755 GHz "
                           "calibrated, globaltimer tick 32 ns; 3 blocks timed by their own "
                           "measured rate, 1 by the calibrated rate; 2 folds, 1 slot without a "
                           "record; a mark's cost not measured, nothing taken out of the "
                           "phases") == 0)
            found_clock = 1;
        if (strcmp(l.v[i], "  note: 7 device trace events dropped: a record buffer's trace_cap "
                           "(pt_dev_records_create) was full") == 0)
            found_drop = 1;
    }
    cr_assert(found_clock, "the device clock line");
    cr_assert(found_drop, "the dropped events line");
    cr_assert_lt(index_of(&l, row_of(&l, "step")), l.n, "rows follow");
    lines_free(&l);
}

Test(report, tsc_clock_states_its_rate)
{
    pt_timing *real = pt_create("real", PT_CPU);
    lines l = { 0 };

    cr_assert_not_null(real, "pt_create");
    pt_run_stats rs = run_stats(real);
    pt_log_fn(real, collect_line, &l);
    if (strcmp(rs.clock, "tsc") == 0) {
        char want[64];
        snprintf(want, sizeof want, "clock tsc at %.3f GHz", rs.clock_ghz);
        cr_assert_not_null(strstr(l.v[0], want), "\"%s\" in \"%s\"", want, l.v[0]);
    } else {
        cr_assert_not_null(strstr(l.v[0], "clock clock_gettime"), "\"%s\"", l.v[0]);
        cr_assert_null(strstr(l.v[0], "GHz"), "no rate without a TSC: \"%s\"", l.v[0]);
    }
    lines_free(&l);
    pt_destroy(real);
}

Test(report, uncalibrated_device_clock_says_launch_average)
{
    lines l = { 0 };
    int rc, found = 0;

    fake_fold();
    t->dev_clock.calibrated = 0;
    LOG(&l, &rc);
    for (size_t i = 0; i < l.n; i++)
        found |= strcmp(l.v[i], "  device clock: NVIDIA H100 80GB HBM3 (device 0), SM clock "
                                "1.755 GHz: launch-average rate, calibration unavailable; 3 "
                                "blocks timed by their own measured rate; 2 folds, 1 slot "
                                "without a record; a mark's cost not measured, nothing taken "
                                "out of the phases") == 0;
    cr_assert(found, "the uncalibrated device clock line");
    lines_free(&l);
}

Test(report, host_mode_states_the_host_tsc)
{
    lines l = { 0 };
    int rc, found = 0;

    fake_fold();
    t->dev_clock.device = -1;
    snprintf(t->dev_clock.device_name, sizeof t->dev_clock.device_name, "host");
    LOG(&l, &rc);
    for (size_t i = 0; i < l.n; i++) {
        found |= strcmp(l.v[i], "  device clock: host, host TSC 1.755 GHz calibrated, "
                                "monotonic clock tick 32 ns; 3 blocks timed by their own measured "
                                "rate, 1 by the calibrated rate; 2 folds, 1 slot without a "
                                "record; a mark's cost not measured, nothing taken out of "
                                "the phases") == 0;
        cr_assert_null(strstr(l.v[i], "SM clock"), "no SM clock in host mode: %s", l.v[i]);
    }
    cr_assert(found, "the host-mode clock line");
    lines_free(&l);
}

/* ---- the bottlenecks --------------------------------------------- */

/* Opens title, lets `self` ms pass in it around its children's (run by
 * the caller between), and closes it. */
static void self_span(const char *title, int self_ms, void (*inside)(void))
{
    pt_start(t, title);
    clk.now += self_ms * (int64_t)MS;
    if (inside)
        inside();
    pt_stop(t, title);
}
static void d3(void) { self_span("d3", 4, NULL); }
static void d2(void) { self_span("d2", 1, d3); }

/* Largest self time first; a tie keeps the order of the walk (b before
 * c); a top larger than the tree gives every section once; the view
 * labels each row with its path, deep ones included. */
Test(report, bottlenecks_rank_self_time_ties_in_walk_order_with_paths)
{
    lines l = { 0 };
    int rc;
    const pt_section *v[16];

    self_span("a", 5, NULL);
    self_span("b", 3, NULL);
    self_span("c", 3, NULL);
    self_span("d1", 1, d2);
    size_t n = pt_bottlenecks(t, 3, v);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(v[0]->name, "a");
    cr_assert_str_eq(v[1]->name, "d3", "the deep one, 4 ms of its own");
    cr_assert_str_eq(v[2]->name, "b", "b and c tie: the earlier first");
    n = pt_bottlenecks(t, 16, v);
    cr_assert_eq(n, 6, "every section once: %zu", n);
    cr_assert_str_eq(v[3]->name, "c");
    LOG(&l, &rc, .view = PT_VIEW_BOTTLENECKS, .top = 3);
    cr_assert_eq(rc, 0, "%s", pt_strerror(rc));
    int seen = 0;
    for (size_t i = 0; i < l.n; i++)
        seen |= strncmp(l.v[i], "   2  d1/d2/d3 ", 15) == 0;
    cr_assert(seen, "rank 2 is labelled with its path");
    lines_free(&l);
}
