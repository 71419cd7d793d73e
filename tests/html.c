/* The HTML report: an atomic, self-contained page whose embedded data is
 * JSON (read back with jansson), with every section, hostile titles kept
 * inert, no address outside the file, and the per-block heatmap of a
 * folded launch (sampled beyond PT__HEAT_MAX_ROWS blocks). The last tests
 * render the page in headless Chromium and count what its script drew;
 * they skip when no Chromium is installed (`make test BROWSER=1` installs
 * it as root). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pt/pt_dev.h>

#include "browser.h"
#include "common.h"
#include "core/cost.h"
#include "cuda_fake.h"
#include "records_fake.h"

FAKE_RUN_SUITE(html, PT_CPU);

#define in_dir(name) test_path(dir, (name))

/* A file's text (tests/common.h), and its size in bytes when asked. */
static char *slurp(const char *path, size_t *len)
{
    struct stat st;
    char *b = test_read_file(path);

    cr_assert_not_null(b, "reading %s: %s", path, strerror(errno));
    if (len) {
        cr_assert_eq(stat(path, &st), 0);
        *len = (size_t)st.st_size;
    }
    return b;
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* The page's data element, parsed. */
static json_t *data_of(const char *html)
{
    static const char open[] = "<script type=\"application/json\" id=\"pt-data\">";
    const char *a = strstr(html, open), *b;
    json_error_t e;
    json_t *j;

    cr_assert_not_null(a, "no data element in the page");
    a += strlen(open);
    b = strstr(a, "</script>");
    cr_assert_not_null(b, "the data element is not closed");
    j = json_loadb(a, (size_t)(b - a), 0, &e);
    cr_assert_not_null(j, "the data is not JSON: %s at line %d column %d", e.text, e.line,
                       e.column);
    return j;
}

static json_t *export_data(const char *name, char **html_out)
{
    const char *p = in_dir(name);
    int rc = pt_export_html(t, p);
    cr_assert_eq(rc, 0, "pt_export_html: %s (%s)", pt_strerror(rc), pt_last_error(t));
    char *html = slurp(p, NULL);
    json_t *j = data_of(html);
    if (html_out)
        *html_out = html;
    else
        free(html);
    return j;
}

static json_t *section_named(json_t *d, const char *name)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(d, "sections"), i, s)
        if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0)
            return s;
    cr_assert_fail("no section \"%s\" in the data", name);
    return NULL;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    cr_assert(json_is_number(v), "\"%s\" is not a number", k);
    return json_number_value(v);
}

/* A few nested CPU sections with figures. */
static void small_run(void)
{
    pt_start(t, "outer");
    TEST_SPAN(t, &clk, "inner", 2000000, .read = 4e6, .flops = 1e9);
    TEST_SPAN(t, &clk, "inner", 1000000);
    clk.now += 500000;
    pt_stop(t, "outer");
    TEST_SPAN(t, &clk, "tail", 250000, .written = 1e3);
}

/* Writes slot s as END leaves it: done, with clock64 and globaltimer spans
 * long enough (1 ms, 1000 ticks) for the slot's own rate, and each phase's
 * cycles. */
static void slot(pt_dev_records *b, int s, long long clk_span, const long long *cycles)
{
    test_slot(b, s, s % 4, clk_span, 0, 1000000, cycles, NULL);
}

/* A launch of `ns` folded from a host buffer of n slots where slot s spent
 * (s + 1) * 1000 cycles in phase 0 and 500 in phase 1, at 0.25 ns per cycle
 * (4,000,000 cycles per 1 ms of globaltimer), except slots in `skip`. */
static void folded_launch(int n, int skip)
{
    const char *names[] = { "load", "compute" };
    pt_dev_records *b = pt_dev_records_create(t, n, 2, names, PT_DEV_HOST, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    for (int s = 0; s < n; s++)
        if (s != skip)
            slot(b, s, 4000000, (long long[]){ (s + 1) * 1000LL, 500 });
    pt_start(t, "step");
    clk.now += 5000000;
    pt_stop(t, "step");
    int rc = pt_dev_fold(t, b, "step");
    cr_assert(rc == 0 || (skip >= 0 && rc < 0), "pt_dev_fold: %s", pt_last_error(t));
    pt_dev_records_free(b);
}

/* A launch of n slots where every slot spent 1000 cycles in phase 0 and
 * 500 in phase 1, except `slow`, `factor` times as long in phase 0, and
 * `skip`, without END; folded under "step" (the records are the caller's
 * to free, after the export: the heatmap names the phases they name). */
static pt_dev_records *heavy_launch(int n, int slow, int factor, int skip)
{
    const char *names[] = { "load", "compute" };
    pt_dev_records *b = pt_dev_records_create(t, n, 2, names, PT_DEV_HOST, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    for (int s = 0; s < n; s++)
        if (s != skip)
            slot(b, s, 4000000, (long long[]){ s == slow ? factor * 1000LL : 1000, 500 });
    pt_start(t, "step");
    clk.now += 5000000;
    pt_stop(t, "step");
    pt_dev_fold(t, b, "step");
    return b;
}

/* ---- without a browser ------------------------------------------- */

Test(html, null_timing_is_a_no_op)
{
    const char *p = in_dir("null.html");
    cr_assert_eq(pt_export_html(NULL, p), 0);
    cr_assert_neq(access(p, F_OK), 0, "nothing written for a NULL timing");
}

Test(html, written_atomically_and_replaces_the_old_file)
{
    const char *p = in_dir("r.html");
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs("old", f);
    fclose(f);
    small_run();
    cr_assert_eq(pt_export_html(t, p), 0, "%s", pt_last_error(t));
    size_t n;
    char *html = slurp(p, &n);
    cr_assert(n > 1000 && strncmp(html, "<!DOCTYPE html>", 15) == 0, "a whole page replaced it");
    cr_assert(strstr(html, "</html>"), "the page is whole");
    free(html);
    /* Nothing but the report is left in the directory: no temporary file. */
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            files++;
            cr_assert_str_eq(e->d_name, "r.html", "left behind: %s", e->d_name);
        }
    closedir(d);
    cr_assert_eq(files, 1);
}

Test(html, the_data_is_json_with_every_section_and_figure)
{
    char *html;
    small_run();
    json_t *d = export_data("d.html", &html);
    json_t *secs = json_object_get(d, "sections");
    cr_assert_eq(json_array_size(secs), 3, "outer, inner, tail");
    cr_assert_str_eq(json_string_value(json_object_get(d, "name")), "html run");
    cr_assert_float_eq(num(json_object_get(d, "stats"), "total_ms"), 3.75, 1e-12);
    json_t *in = section_named(d, "inner"), *out = section_named(d, "outer");
    cr_assert_null(json_object_get(in, "path"), "the page makes paths from the parents");
    cr_assert_float_eq(num(in, "parent"), num(out, "id"), 0, "inner is under outer");
    cr_assert_float_eq(num(out, "parent"), -1, 0);
    cr_assert_float_eq(num(in, "count"), 2, 0);
    cr_assert_float_eq(num(in, "total_ms"), 3.0, 1e-12);
    cr_assert_float_eq(num(in, "first_ms"), 2.0, 1e-12);
    cr_assert_float_eq(num(in, "read_gbs"), 4e6 / 3e6, 1e-12);
    cr_assert_float_eq(num(in, "gflops"), 1e9 / 3e6, 1e-9);
    cr_assert_float_eq(num(out, "self_ms"), 0.5, 1e-12);
    cr_assert(json_is_null(json_object_get(in, "heat")), "no fold, no heatmap");
    /* Each section's name also appears in the page as written. */
    const char *names[] = { "outer", "inner", "tail" };
    for (int i = 0; i < 3; i++)
        cr_assert(strstr(html, names[i]), "\"%s\" is in the page", names[i]);
    json_decref(d);
    free(html);
}

Test(html, bottlenecks_are_those_of_pt_bottlenecks)
{
    small_run();
    json_t *d = export_data("b.html", NULL);
    json_t *b = json_object_get(d, "bottlenecks"), *secs = json_object_get(d, "sections");
    const pt_section *top[10];
    size_t n = pt_bottlenecks(t, 10, top);
    cr_assert_eq(json_array_size(b), n);
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(secs, (size_t)num(json_array_get(b, i), "id"));
        cr_assert_str_eq(json_string_value(json_object_get(s, "name")), pt_section_name(top[i]),
                         "rank %zu", i + 1);
    }
    json_decref(d);
}

Test(html, hostile_titles_stay_inert_text)
{
    const char *evil = "</script><img src=x onerror=alert(1)><!-- \"q\" 'a' & \\";
    const char bad_utf8[] = "bad \xff\xfe bytes";
    char *html;
    TEST_SPAN(t, &clk, evil, 1000);
    TEST_SPAN(t, &clk, bad_utf8, 1000);
    json_t *d = export_data("evil.html", &html);
    /* The page's own two scripts close; the title closes nothing. */
    cr_assert_eq(count_of(html, "</script"), 2, "a title closed a script element");
    cr_assert_null(strstr(html, "<img"), "markup from a title reached the page");
    cr_assert_null(strstr(html, "<!-- \""), "a title opened a comment");
    cr_assert(strstr(html, "\\u003C/script\\u003E"), "'<' and '>' are escaped in the data");
    json_t *s = json_array_get(json_object_get(d, "sections"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(s, "name")), evil, "read back exactly");
    s = json_array_get(json_object_get(d, "sections"), 1);
    cr_assert_str_eq(json_string_value(json_object_get(s, "name")),
                     "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes", "bytes that are not UTF-8 are U+FFFD");
    json_decref(d);
    free(html);
}

Test(html, names_no_address_outside_the_file)
{
    char *html;
    small_run();
    folded_launch(8, -1);
    json_t *d = export_data("self.html", &html);
    const char *banned[] = { "http:", "https:", "//cdn", "<script src", "<link", "@import",
                             "url(", "<iframe", "<img" };
    for (size_t i = 0; i < sizeof banned / sizeof *banned; i++)
        cr_assert_null(strstr(html, banned[i]), "the page contains \"%s\"", banned[i]);
    cr_assert_eq(count_of(html, "<script"), 2, "only the data and the inline script");
    json_decref(d);
    free(html);
}

Test(html, unwritable_paths_leave_nothing)
{
    small_run();
    cr_assert_eq(pt_export_html(t, in_dir("no/such/dir/r.html")), PT_EIO);
    cr_assert_eq(pt_export_html(t, "/dev/full"), PT_EIO, "a device cannot be renamed over");
    cr_assert_eq(pt_export_html(t, ""), PT_EINVAL);
    cr_assert_eq(pt_error_count_of(t, PT_EIO), 2, "%s", pt_last_error(t));
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        cr_assert(e->d_name[0] == '.', "left behind: %s", e->d_name);
    closedir(d);
}

Test(html, open_sections_are_written_and_reported)
{
    const char *p = in_dir("open.html");
    pt_start(t, "still running");
    clk.now += 100;
    int rc = pt_export_html(t, p);
    cr_assert_eq(rc, PT_EOPEN, "%s", pt_strerror(rc));
    char *html = slurp(p, NULL);
    json_t *d = data_of(html);
    cr_assert_float_eq(num(json_object_get(d, "stats"), "open_count"), 1, 0);
    cr_assert_float_eq(num(section_named(d, "still running"), "open"), 1, 0);
    cr_assert_eq(pt_error_count_of(t, PT_EOPEN), 1, "counted after the page was written");
    json_decref(d);
    free(html);
    pt_stop(t, "still running");
}

Test(html, errors_and_the_device_clock_are_in_the_header_data)
{
    pt_stop(t, "never started");
    folded_launch(4, -1);
    json_t *d = export_data("hdr.html", NULL);
    json_t *e = json_object_get(d, "errors"), *dc = json_object_get(d, "device_clock");
    cr_assert_float_eq(num(e, "count"), 1, 0);
    cr_assert(strstr(json_string_value(json_object_get(e, "last")), "never started"));
    cr_assert(json_is_object(dc), "a fold ran: the device clock is stated");
    cr_assert_float_eq(num(dc, "blocks_own"), 4, 0);
    cr_assert_float_eq(num(dc, "folds"), 1, 0);
    cr_assert_float_eq(num(dc, "cycles_per_ns"), 2.0, 1e-12);
    json_decref(d);
}

Test(html, a_folded_launch_keeps_each_blocks_phase_times)
{
    folded_launch(6, 4);
    json_t *d = export_data("heat.html", NULL);
    json_t *h = json_object_get(section_named(d, "step"), "heat");
    cr_assert(json_is_object(h), "the launch has a heatmap");
    cr_assert_float_eq(num(h, "nslots"), 6, 0);
    cr_assert_float_eq(num(h, "nrows"), 6, 0, "small grids keep every block");
    json_t *ph = json_object_get(h, "phases"), *ns = json_object_get(h, "ns");
    cr_assert_str_eq(json_string_value(json_array_get(ph, 0)), "load");
    cr_assert_str_eq(json_string_value(json_array_get(ph, 1)), "compute");
    cr_assert_eq(json_array_size(ns), 6);
    for (int s = 0; s < 6; s++) {
        json_t *row = json_array_get(ns, (size_t)s);
        if (s == 4) {
            cr_assert(json_is_null(json_array_get(row, 0)), "a block without END has no time");
            continue;
        }
        /* 0.25 ns per cycle, the slot's own rate. */
        cr_assert_float_eq(json_number_value(json_array_get(row, 0)), (s + 1) * 250.0, 1e-9,
                           "slot %d", s);
        cr_assert_float_eq(json_number_value(json_array_get(row, 1)), 125.0, 1e-9);
    }
    json_t *load = section_named(d, "load");
    cr_assert(json_is_null(json_object_get(load, "heat")), "phases carry no heatmap");
    json_decref(d);
}

/* 3000 blocks in 1024 rows: each row holds two or three blocks, and shows
 * their largest time, which block had it, and their mean. A straggler
 * 50 times slower than the rest (every k-th block sampled would miss it)
 * is the largest of its row, and a block without END is counted, not
 * shown. */
Test(html, large_grids_are_binned_by_the_maximum)
{
    enum { N = 3000, R = 1024, SLOW = 1501 };
    folded_launch(N, -1);
    pt_dev_records *b = heavy_launch(N, SLOW, 50, 7);
    json_t *d = export_data("big.html", NULL);
    pt_dev_records_free(b);
    json_t *h = json_object_get(section_named(d, "step"), "heat");
    cr_assert_float_eq(num(h, "nslots"), N, 0);
    cr_assert_float_eq(num(h, "nrows"), R, 0, "bounded");
    json_t *ns = json_object_get(h, "ns"), *mean = json_object_get(h, "mean");
    json_t *at = json_object_get(h, "at"), *missing = json_object_get(h, "missing");
    cr_assert(json_array_size(ns) == R && json_array_size(mean) == R && json_array_size(at) == R &&
              json_array_size(missing) == R, "a row of each per bin");
    double worst = 0;
    int worst_row = -1;
    for (int i = 0; i < R; i++) {
        int lo = (int)((long long)i * N / R), hi = (int)((long long)(i + 1) * N / R);
        double mx = json_number_value(json_array_get(json_array_get(ns, (size_t)i), 0));
        int a = (int)json_integer_value(json_array_get(json_array_get(at, (size_t)i), 0));
        int skipped = lo <= 7 && 7 < hi;
        cr_assert(a >= lo && a < hi, "row %d's largest is one of its blocks: %d", i, a);
        cr_assert_eq(json_integer_value(json_array_get(missing, (size_t)i)), skipped,
                     "row %d: blocks without END", i);
        double want = 0, sum = 0;
        for (int s = lo; s < hi; s++) {
            if (s == 7)
                continue;
            double v = s == SLOW ? 50 * 250.0 : 250.0;
            want = v > want ? v : want;
            sum += v;
        }
        cr_assert_float_eq(mx, want, 1e-9, "row %d is its largest block", i);
        cr_assert_float_eq(json_number_value(json_array_get(json_array_get(mean, (size_t)i), 0)),
                           sum / (hi - lo - skipped), 1e-6, "row %d's mean", i);
        if (mx > worst) {
            worst = mx;
            worst_row = i;
        }
    }
    cr_assert_eq(worst_row, (int)((long long)SLOW * R / N), "the straggler's row is the darkest");
    cr_assert_float_eq(worst, 50 * 250.0, 1e-9, "at its full time");
    json_decref(d);
}

Test(html, a_grid_reduced_on_the_device_has_no_heatmap)
{
    pt_destroy(t);
    t = test_timing(&clk, "gpu", PT_GPU_EVENTS);
    pt__reduce_min_slots = 1;
    pt_dev_records *b = pt_dev_records_create(t, 8, 2, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    for (int s = 0; s < 8; s++)
        slot(b, s, 4000000, (long long[]){ 1000, 500 });
    pt_start_gpu(t, "k", 0);
    fake.now_ms += 2.0;
    pt_stop_gpu(t, "k", 0);
    cr_assert_eq(pt_dev_fold(t, b, "k"), 0, "%s", pt_last_error(t));
    json_t *d = export_data("red.html", NULL);
    json_t *h = json_object_get(section_named(d, "k"), "heat");
    if (pt__fatbin_reduce_size > 0)
        cr_assert(json_is_null(h), "only a summary came back");
    else
        cr_assert(json_is_object(h), "no reduction kernel: every record came back");
    cr_assert_float_eq(num(section_named(d, "phase 0"), "blocks"), 8, 0);
    json_decref(d);
    pt_dev_records_free(b);
}

Test(html, the_json_export_escapes_as_before)
{
    /* The escaper is shared with the JSON export, which must not escape
     * for HTML. */
    TEST_SPAN(t, &clk, "a<b>&\"c\"\n", 1000);
    const char *p = in_dir("x.json");
    cr_assert_eq(pt_export_json(t, p), 0, "%s", pt_last_error(t));
    char *j = slurp(p, NULL);
    cr_assert(strstr(j, "\"a<b>&\\\"c\\\"\\n\""), "plain JSON escaping: %s", j);
    free(j);
}

Test(html, roofline_and_tracked_memory_are_in_the_data)
{
    cr_assert_eq(pt_peaks_set(t, 1e12, 2e13), 0, "%s", pt_last_error(t));
    pt_start(t, "solve");
    cr_assert_eq(pt_track(t, "psi", NULL, 8e7, (long long[]){ 100, 50, 64, 64 }, 4, "float32"), 0,
                 "%s", pt_last_error(t));
    TEST_SPAN(t, &clk, "kernel", 1000000, .read = 1e9, .written = 1e9, .flops = 4e9);
    clk.now += 1000;
    pt_stop(t, "solve");
    json_t *d = export_data("roof.html", NULL);
    json_t *r = json_object_get(d, "roofline"), *m = json_object_get(d, "memory");
    cr_assert(json_is_object(r), "the peaks were set");
    cr_assert_float_eq(num(r, "bytes_per_s"), 1e12, 0);
    cr_assert_float_eq(num(r, "flops_per_s"), 2e13, 0);
    cr_assert_str_eq(json_string_value(json_object_get(r, "source")), "user");
    json_t *k = section_named(d, "kernel");
    cr_assert_float_eq(num(k, "ai"), 2.0, 1e-12, "4e9 FLOP over 2e9 bytes");
    cr_assert_float_eq(num(k, "pct_peak_bw"), 100.0 * 2e12 / 1e12, 1e-9);
    cr_assert_str_eq(json_string_value(json_object_get(k, "bound")), "memory", "2 < ridge 20");
    cr_assert_float_eq(num(section_named(d, "solve"), "mem_high_water"), 8e7, 0);
    cr_assert(json_is_object(m), "a tensor was tracked");
    json_t *x = json_array_get(json_object_get(m, "tensors"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(x, "name")), "psi");
    cr_assert_str_eq(json_string_value(json_object_get(x, "dtype")), "float32");
    cr_assert_eq(json_array_size(json_object_get(x, "shape")), 4);
    cr_assert_float_eq(num(m, "peak"), 8e7, 0);
    cr_assert(json_is_null(json_object_get(m, "device_total")), "no device sample");
    json_decref(d);
}

Test(html, without_peaks_or_tracking_both_are_null)
{
    small_run();
    json_t *d = export_data("none.html", NULL);
    cr_assert(json_is_null(json_object_get(d, "roofline")), "a CPU run knows no peaks");
    cr_assert(json_is_null(json_object_get(d, "memory")), "nothing tracked");
    json_decref(d);
}

/* ---- in a browser ------------------------------------------------ */

/* Runs Chromium headless on the page with extra arguments; out gets its stdout. */
static void browse(const char *page, const char *args, const char *out)
{
    char url[300];
    snprintf(url, sizeof url, "file://%s", page);
    test_browse(dir, url, args, out);
}

/* The page's script, run by node where it is installed (no browser
 * needed): it parses, and its plurals are English ("2 launches"). */
Test(html, the_script_parses_and_its_plurals_are_english)
{
    if (system("command -v node >/dev/null 2>&1") != 0)
        cr_skip_test("node is not installed (BROWSER=1 installs it with npm): the page's script "
                     "is not checked without a browser");
    small_run();
    const char *p = in_dir("script.html"), *js = in_dir("script.js"), *pl = in_dir("plural.js");
    cr_assert_eq(pt_export_html(t, p), 0, "%s", pt_last_error(t));
    char *h = slurp(p, NULL);
    char *a = strstr(h, "<script>\n"), *b = a ? strstr(a, "</script>") : NULL;
    cr_assert(a && b, "the page has its script");
    a += strlen("<script>\n");
    FILE *f = fopen(js, "w");
    cr_assert_not_null(f);
    fwrite(a, 1, (size_t)(b - a), f);
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "node --check '%s'", js);
    cr_assert_eq(system(cmd), 0, "node cannot parse the page's script");
    /* plural() alone, from its line, called on the words the page uses. */
    char *fn = strstr(a, "function plural("), *end = fn ? strchr(fn, '\n') : NULL;
    cr_assert(fn && end && fn < b, "plural() is on one line");
    f = fopen(pl, "w");
    cr_assert_not_null(f);
    fprintf(f, "%.*s\nprocess.stdout.write([plural(2, \"launch\"), plural(1, \"launch\"), "
               "plural(3, \"block\"), plural(0, \"SM\"), plural(2, \"pass\")].join(\"|\"));\n",
            (int)(end - fn), fn);
    fclose(f);
    snprintf(cmd, sizeof cmd, "node '%s'", pl);
    FILE *o = popen(cmd, "r");
    char out[256] = "";
    cr_assert_not_null(o);
    cr_assert_not_null(fgets(out, sizeof out, o), "node printed nothing");
    pclose(o);
    cr_assert_str_eq(out, "2 launches|1 launch|3 blocks|0 SMs|2 passes");
    free(h);
}

Test(html, the_page_renders_in_chromium, .timeout = 120)
{
    pt_peaks_set(t, 1e12, 2e13);
    pt_start(t, "alloc");
    pt_track(t, "psi", NULL, 8e7, (long long[]){ 100, 50, 64, 64 }, 4, "float32");
    pt_stop(t, "alloc");
    small_run();
    folded_launch(40, -1);
    const char *page = in_dir("page.html"), *dom = in_dir("dom.html");
    cr_assert_eq(pt_export_html(t, page), 0, "%s", pt_last_error(t));
    size_t nsec = run_stats(t).section_count;
    browse(page, "--dump-dom", dom);
    char *h = slurp(dom, NULL);
    cr_assert_eq(count_of(h, "class=\"pt-ice-rect\""), nsec, "one icicle bar per section");
    cr_assert_eq(count_of(h, "class=\"pt-row\""), nsec, "one table row per section");
    cr_assert_eq(count_of(h, "class=\"pt-heat-cell\""), 40 * 2, "blocks x phases cells");
    cr_assert_eq(count_of(h, "class=\"pt-stack-seg\""), 3, "two phases and the rest");
    cr_assert(strstr(h, "html run"), "the run's name is shown");
    cr_assert(strstr(h, "outer/inner"), "paths are shown");
    cr_assert(strstr(h, "id=\"pt-bn-table\""), "the bottlenecks are drawn");
    /* What the data says should be drawn. */
    char *src = slurp(page, NULL);
    json_t *d = data_of(src), *s;
    size_t i, points = 0, bars = 0;
    json_array_foreach(json_object_get(d, "sections"), i, s) {
        points += num(s, "flops") > 0 && num(s, "read_bytes") + num(s, "written_bytes") > 0;
        bars += num(s, "mem_high_water") > 0;
    }
    cr_assert(points == 1 && bars >= 1, "inner declared bytes and FLOPS; psi was tracked");
    json_decref(d);
    free(src);
    cr_assert_eq(count_of(h, "class=\"pt-roof-pt\""), points, "one point per section with both");
    cr_assert_eq(count_of(h, "class=\"pt-roof\""), 1, "the roofs, from the peaks");
    cr_assert_eq(count_of(h, "class=\"pt-mem-bar\""), bars, "one bar per high-water mark");
    cr_assert(strstr(h, "id=\"pt-tensors\""), "the tracked tensors are listed");
    free(h);

    const char *png = in_dir("shot.png");
    char args[256];
    snprintf(args, sizeof args, "--screenshot='%s' --window-size=1400,1800", png);
    browse(page, args, in_dir("shot.log"));
    size_t n;
    char *img = slurp(png, &n);
    cr_assert(n > 20000, "a screenshot with content (%zu bytes)", n);
    cr_assert(memcmp(img, "\x89PNG\r\n\x1a\n", 8) == 0, "a PNG");
    free(img);
}

/* What each figure means is drawn: ptkit's measured cost, the fallback's
 * reason, the ranks merged, the notes, and rows marked [cpu clock] and
 * [short], counted in the footer. */
Test(html, the_page_says_what_its_figures_mean, .timeout = 120)
{
    test_clock c1;
    pt_timing *r1 = test_timing(&c1, "rank 1", PT_CPU);
    void *buf;
    size_t len;

    pt__cost_set(t, 100, 40);
    TEST_SPAN(t, &clk, "tiny", 500);
    pt_start_gpu(t, "kernel", 0); /* without PT_GPU_EVENTS: the CPU clock */
    clk.now += 2000000;
    pt_stop_gpu(t, "kernel", 0, .flops = 1e9);
    TEST_SPAN(r1, &c1, "tiny", 800);
    cr_assert_eq(pt_pack(r1, &buf, &len), 0);
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 1), 0, "%s", pt_last_error(t));
    free(buf);
    pt_destroy(r1);
    const char *page = in_dir("meaning.html"), *dom = in_dir("meaning-dom.html");
    cr_assert_eq(pt_export_html(t, page), 0, "%s", pt_last_error(t));
    browse(page, "--dump-dom", dom);
    char *h = slurp(dom, NULL);
    cr_assert(strstr(h, "a start+stop pair 100.0 ns (40.0 ns of it inside"), "the cost");
    cr_assert(strstr(h, "id=\"pt-fallback\""), "the fallback");
    cr_assert(strstr(h, "created without PT_GPU_EVENTS"), "and its reason");
    cr_assert(strstr(h, "2 ranks merged"), "the ranks");
    cr_assert(strstr(h, "id=\"pt-notes\""), "the note");
    cr_assert(strstr(h, " [cpu clock]"), "the CPU-timed launch marked");
    cr_assert(strstr(h, " [short]"), "the short section marked");
    cr_assert(strstr(h, "1 section too short to time"), "and counted in the footer");
    free(h);
}

/* Measures the page in two frames, 1400 and 900 px wide, of a page of our
 * own that may read them (--allow-file-access-from-files): a line per
 * thing out of place ("past": a column header or a chart beyond the
 * frame's right edge; "wide": the page scrolls sideways), and per frame
 * the shade of the heatmap cell its straggler block is in. */
static const char measure_page[] =
    "<!DOCTYPE html><html><body style=\"margin:0\">\n"
    "<iframe id=\"w1400\" src=\"page.html\" style=\"width:1400px;height:1000px;border:0;"
    "display:block\"></iframe>\n"
    "<iframe id=\"w900\" src=\"page.html\" style=\"width:900px;height:1000px;border:0;"
    "display:block\"></iframe>\n"
    "<pre id=\"out\"></pre>\n<script>\n"
    "window.onload = function () {\n"
    "  var out = [];\n"
    "  [\"w1400\", \"w900\"].forEach(function (id) {\n"
    "    var d = document.getElementById(id).contentDocument, w = d.documentElement.clientWidth;\n"
    "    out.push(id + \" client \" + w + \" tables \" + d.querySelectorAll(\"table.stats\").length);\n"
    "    if (d.documentElement.scrollWidth > w) out.push(id + \" wide \" + d.documentElement.scrollWidth);\n"
    "    d.querySelectorAll(\"th, svg, table\").forEach(function (e) {\n"
    "      var r = e.getBoundingClientRect();\n"
    "      if (r.right > w + 0.5) out.push(id + \" past \" + e.tagName + \" \" +\n"
    "        (e.tagName === \"TH\" ? e.textContent : e.getAttribute(\"class\") || e.id) + \" \" + r.right);\n"
    "    });\n"
    "    var c = d.querySelector(\".pt-heat-cell[data-at='1501']\");\n"
    "    out.push(id + \" straggler \" + (c ? c.getAttribute(\"fill\") : \"none\"));\n"
    "  });\n"
    "  document.getElementById(\"out\").textContent = out.join(\"\\n\");\n"
    "};\n</script></body></html>\n";

/* A run with every table filled: sections called once and more, bytes,
 * FLOPS and peaks, transfers, tracked memory, a launch of 3000 blocks on
 * four SMs with a straggler 50 times slower (block 1501). Long titles. */
static pt_dev_records *full_run(void)
{
    pt_peaks_set(t, 1e12, 2e13);
    pt_start(t, "alloc");
    pt_track(t, "psi", NULL, 8e7, (long long[]){ 100, 50, 64, 64 }, 4, "float32");
    pt_stop(t, "alloc");
    small_run();
    pt_start(t, "copy in: a rather long section title, as real programs write them");
    pt_transfer(t, 1e8, PT_H2D);
    clk.now += 3000000;
    pt_stop(t, "copy in: a rather long section title, as real programs write them");
    return heavy_launch(3000, 1501, 50, -1);
}

Test(html, the_page_fits_900_px_and_its_columns_1400, .timeout = 120)
{
    pt_dev_records *b = full_run();
    const char *page = in_dir("page.html"), *wrap = in_dir("measure.html");
    cr_assert_eq(pt_export_html(t, page), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
    FILE *f = fopen(wrap, "w");
    cr_assert_not_null(f);
    fputs(measure_page, f);
    fclose(f);
    browse(wrap, "--allow-file-access-from-files --window-size=1400,2200 --dump-dom",
           in_dir("measured.html"));
    char *h = slurp(in_dir("measured.html"), NULL), *out = strstr(h, "<pre id=\"out\">");
    cr_assert_not_null(out, "%s", h);
    *strstr(out, "</pre>") = '\0';
    cr_assert(strstr(out, "w1400 client 1400 tables 5") && strstr(out, "w900 client 900 tables 5"),
              "both frames measured, five tables each (time, work, transfers, blocks, "
              "launches):\n%s", out);
    cr_assert_null(strstr(out, " wide "), "nothing scrolls sideways:\n%s", out);
    cr_assert_null(strstr(out, " past "), "every column and chart inside the window:\n%s", out);
    cr_assert(strstr(out, "w1400 straggler rgb(16,52,110)") &&
              strstr(out, "w900 straggler rgb(16,52,110)"),
              "the straggler's cell is the darkest at both widths:\n%s", out);
    free(h);

}

/* The page's cells blank where the text report leaves them blank: the
 * later calls of a section called once, per-block figures of a section
 * that is no phase, a zero rate. */
Test(html, blank_where_the_text_report_is_blank, .timeout = 120)
{
    pt_dev_records *b = full_run();
    const char *page = in_dir("page.html"), *dom = in_dir("dom.html");
    cr_assert_eq(pt_export_html(t, page), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
    browse(page, "--dump-dom", dom);
    char *h = slurp(dom, NULL);
    /* The time table's row of "tail" (called once): # Section Kind Calls
     * Total Self %parent %total First, then four blanks. */
    char *r = strstr(h, "class=\"l name\" title=\"tail\"");
    cr_assert_not_null(r, "tail's row");
    r = strstr(r, "</tr>");
    cr_assert(r && r - 4 * (int)strlen("<td></td>") >= h);
    cr_assert(strncmp(r - 4 * strlen("<td></td>"), "<td></td><td></td><td></td><td></td>",
                      4 * strlen("<td></td>")) == 0, "Mean, SD, Min, Max blank for one call");
    /* inner was called twice: its later figures are there. */
    r = strstr(strstr(h, "class=\"l name\" title=\"outer/inner\""), "</tr>");
    cr_assert(strncmp(r - strlen("<td></td>"), "<td></td>", strlen("<td></td>")) != 0,
              "inner's Max is shown");
    cr_assert_eq(count_of(h, "class=\"pt-row-blocks\""), 2,
                 "the blocks table lists the two phases, no other section");
    cr_assert_eq(count_of(h, "class=\"pt-row-transfers\""), 1, "one section copied");
    free(h);
}

/* Elements named `name` in a serialized DOM. Attribute values are skipped
 * (a serializer leaves '<' in them as it is) and so are scripts' texts. */
static size_t elements(const char *h, const char *name)
{
    size_t n = 0, len = strlen(name);
    const char *p = h;

    while ((p = strchr(p, '<')) != NULL) {
        const char *q = ++p;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9'))
            q++;
        if ((size_t)(q - p) == len && strncasecmp(p, name, len) == 0)
            n++;
        int script = q - p == 6 && strncasecmp(p, "script", 6) == 0;
        if (q == p)
            continue;
        for (char quote = 0; *q && (quote || *q != '>'); q++)
            if (quote ? *q == quote : (*q == '"' || *q == '\''))
                quote = quote ? 0 : *q;
        if (script && (q = strstr(q, "</script>")) == NULL)
            break;
        p = q;
    }
    return n;
}

Test(html, hostile_titles_stay_text_in_chromium, .timeout = 120)
{
    TEST_SPAN(t, &clk, "</script><img src=x onerror=\"document.title='owned'\">", 1000);
    TEST_SPAN(t, &clk, "<marquee>moving</marquee> \xff", 1000);
    const char *page = in_dir("evil.html"), *dom = in_dir("evil-dom.html");
    cr_assert_eq(pt_export_html(t, page), 0, "%s", pt_last_error(t));
    browse(page, "--dump-dom", dom);
    char *h = slurp(dom, NULL);
    cr_assert_eq(elements(h, "img"), 0, "no element was made from a title");
    cr_assert_eq(elements(h, "marquee"), 0, "no element was made from a title");
    cr_assert_eq(elements(h, "script"), 2, "no script element was made from a title");
    cr_assert(strstr(h, "<title>html run"), "no script ran from a title (it would set the title)");
    cr_assert(strstr(h, "&lt;/script&gt;&lt;img"), "the title is shown as text");
    cr_assert_eq(count_of(h, "class=\"pt-row\""), 2);
    free(h);
}

/* Every chart's labels inside its chart and every table without a scroll
 * bar, in a window 900 and 1400 px wide: the page's own check (#pt-check)
 * of a run that stretches each label (a straggler 2000 times the mean
 * block, a roofline point at 1000 FLOP/byte with a long name, tracked
 * host arrays, long section names and large figures). */
Test(html, every_label_fits_at_900_and_1400_px, .timeout = 180)
{
    pt_peaks_set(t, 2e12, 6e13);
    pt_track(t, "host_psi_array_for_the_whole_run", NULL, 3.2e9, (long long[]){ 4096, 4096, 48 },
             3, "float32");
    small_run();
    TEST_SPAN(t, &clk, "a_rather_long_section_name_for_the_roofline_point", 3000000,
              .read = 1e6, .flops = 1e9);
    for (int k = 0; k < 3; k++)
        TEST_SPAN(t, &clk, "sweep_over_every_energy_group_and_angle_of_the_mesh", 123456789,
                  .read = 9.87e11, .written = 1.23e11, .flops = 4.56e13);
    pt_dev_records *b = heavy_launch(4096, 5, 4000000, -1); /* max/mean about 4000 */
    const char *page = in_dir("labels.html");
    cr_assert_eq(pt_export_html(t, page), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
    static const int widths[] = { 900, 1400 };
    for (int i = 0; i < 2; i++) {
        char url[400], args[160], *h, *c;
        snprintf(url, sizeof url, "file://%s#pt-check", page);
        snprintf(args, sizeof args, "--dump-dom --window-size=%d,2400", widths[i]);
        test_browse(dir, url, args, in_dir("labels.dom"));
        h = slurp(in_dir("labels.dom"), NULL);
        c = strstr(h, "id=\"pt-check\"");
        cr_assert_not_null(c, "the page ran its check at %d px", widths[i]);
        cr_assert(strstr(c, "no label cut, no table scrolls"), "at %d px: %.2000s", widths[i], c);
        free(h);
    }
}
