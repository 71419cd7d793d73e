/* ptreport, the built tool, run on exports made here on a manual clock:
 * show reproduces pt_log()'s tree from the file, diff judges changes
 * against the threshold and the runs' own spread, merge pools runs, convert
 * writes pt_export_csv()'s CSV; bad input gives FILE: LINE:COLUMN:, exit 2
 * and no output file. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pt/pt_dev.h>

#include "browser.h"
#include "common.h"
#include "core/cost.h"
#include "cuda_fake.h"
#include "trace_check.h"

#define MS 1000000 /* ns */

static char dir[64];
static char tool[512];

static void setup(void)
{
    const char *b = getenv("PT_BUILD");
    snprintf(tool, sizeof tool, "%s/bin/ptreport", b && *b ? b : "build");
    cr_assert_eq(access(tool, X_OK), 0, "%s: %s (run the suite with make test)", tool,
                 strerror(errno));
    snprintf(dir, sizeof dir, "/tmp/ptkit-ptreport-XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

static void teardown(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512];
    if (!d)
        return;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (unlink(p) != 0)
                rmdir(p); /* an empty directory a test made */
        }
    }
    closedir(d);
    rmdir(dir);
}

TestSuite(ptreport, .init = setup, .fini = teardown);

#define in_dir(name) test_path(dir, (name))

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    cr_assert_not_null(f, "fopen(%s): %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n, "read %s", path);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void spit(const char *path, const char *text)
{
    cr_assert_eq(test_write_file(path, text), 0, "writing %s: %s", path, strerror(errno));
}

/* Runs ptreport with the arguments (a shell word list of safe paths);
 * stdout and stderr land in out.txt and err.txt. Returns the exit status. */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    int st;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s >%s/out.txt 2>%s/err.txt", tool, args, dir, dir);
    st = system(cmd);
    cr_assert(WIFEXITED(st), "%s did not exit normally", cmd);
    return WEXITSTATUS(st);
}

/* A copy of the run `name` in the folder, as `copy`: the same runs as
 * another file (merge refuses one file given twice). */
static void copy_run(const char *name, const char *copy)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp '%s/%s' '%s/%s'", dir, name, dir, copy);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static char *out_text(void)
{
    return slurp(in_dir("out.txt"));
}

static char *err_text(void)
{
    return slurp(in_dir("err.txt"));
}

/* Entries of d whose name starts with prefix. */
static int entries_with(const char *d, const char *prefix)
{
    DIR *dp = opendir(d);
    struct dirent *e;
    int n = 0;
    cr_assert_not_null(dp, "opendir(%s): %s", d, strerror(errno));
    while ((e = readdir(dp)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(dp);
    return n;
}

/* A frame with nesting, repeats, metrics and a transfer:
 * frame (2x) > solve (3x per frame), upload; then post. */
static pt_timing *workload(test_clock *clk, const char *name)
{
    pt_timing *t = test_timing(clk, name, PT_CPU);
    cr_assert_not_null(t);
    for (int i = 0; i < 2; i++) {
        pt_start(t, "frame", .flops = 7);
        for (int j = 0; j < 3; j++)
            TEST_SPAN(t, clk, "solve", (1 + i + j) * MS, .read = 1e6, .written = 5e5,
                      .flops = 3e8);
        pt_start(t, "upload");
        pt_transfer(t, 4e6, PT_H2D);
        clk->now += 2 * MS;
        pt_stop(t, "upload");
        clk->now += MS / 4;
        pt_stop(t, "frame");
    }
    TEST_SPAN(t, clk, "post", 7 * MS, .flops = 1e9);
    return t;
}

static void save(pt_timing *t, const char *name)
{
    int rc = pt_export_json(t, in_dir(name));
    cr_assert_eq(rc, 0, "pt_export_json: %s", pt_strerror(rc));
}

/* One top-level section "work" timed `n` times with the spans given, plus
 * sections named in `extra`, each once for 1 ms. */
static void save_spans(const char *file, const double *ms, int n, const char *extra)
{
    test_clock clk;
    pt_timing *t = test_timing(&clk, "spans", PT_CPU);
    for (int i = 0; i < n; i++)
        TEST_SPAN(t, &clk, "work", (int64_t)llround(ms[i] * MS));
    if (extra)
        TEST_SPAN(t, &clk, extra, MS);
    save(t, file);
    pt_destroy(t);
}

static void pt_log_to(pt_timing *t, const char *path, pt_log_opts o)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    pt__log(t, f, &o);
    fclose(f);
}

/* ---- show ----------------------------------------------------------------- */

Test(ptreport, show_is_pt_logs_tree)
{
    test_clock clk;
    pt_timing *t = workload(&clk, "show run");
    char *want, *got;

    save(t, "run.json");
    pt_log_to(t, in_dir("want.txt"), (pt_log_opts){ 0 });
    cr_assert_eq(run("show %s", in_dir("run.json")), 0, "show failed: %s", err_text());
    want = slurp(in_dir("want.txt"));
    got = out_text();
    cr_assert_str_eq(got, want, "ptreport show differs from pt_log:\n%s\nwanted:\n%s", got, want);
    cr_assert(strstr(got, "ptkit report \"show run\": 4 sections, 26.500 ms total, clock user"),
              "header: %s", got);
    cr_assert(strstr(got, "\n  solve       6    15.000     1.000  2.800 \xC2\xB1 0.837 (2.000, 4.000)"),
              "solve indented under frame, exact figures: %s", got);
    cr_assert(strstr(got, "\n      H2D 2.00 GB/s (8.0 MB)\n"), "the transfer line: %s", got);
    free(want);
    free(got);
    pt_destroy(t);
}

/* What a figure means survives the file: the measured pair cost, each
 * rank's spread, GPU sections the CPU clock timed (and why), sections too
 * short to time, and the notes: show prints what pt_log printed. */
Test(ptreport, show_keeps_what_each_figure_means)
{
    test_clock clk, c1;
    pt_timing *t, *r1;
    void *buf;
    size_t len;
    char *want, *got;

    fake_install();
    fake.count_err = 35; /* no driver: GPU sections fall back to the CPU clock */
    t = test_timing(&clk, "meaning", PT_GPU_EVENTS);
    r1 = test_timing(&c1, "rank 1", PT_CPU);
    pt__cost_set(t, 100, 40);
    TEST_SPAN(t, &clk, "tiny", 500);
    pt_start_gpu(t, "kernel", 0);
    clk.now += 2 * MS;
    pt_stop_gpu(t, "kernel", 0, .flops = 1e9);
    TEST_SPAN(r1, &c1, "tiny", 800);
    cr_assert_eq(pt_pack(r1, &buf, &len), 0);
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 1), 0, "%s", pt_last_error(t));
    free(buf);
    save(t, "run.json");
    pt_log_to(t, in_dir("want.txt"), (pt_log_opts){ 0 });
    cr_assert_eq(run("show %s", in_dir("run.json")), 0, "show failed: %s", err_text());
    want = slurp(in_dir("want.txt"));
    got = out_text();
    cr_assert_str_eq(got, want, "ptreport show differs from pt_log:\n%s\nwanted:\n%s", got, want);
    cr_assert(strstr(got, "a start+stop pair 100.0 ns (40.0 ns of it inside"), "%s", got);
    cr_assert(strstr(got, "ranks: 2 merged"), "%s", got);
    cr_assert(strstr(got, "kernel [gpu] [cpu clock]"), "%s", got);
    cr_assert(strstr(got, "fake CUDA error 35"), "the reason: %s", got);
    cr_assert(strstr(got, "tiny [short]"), "%s", got);
    cr_assert(strstr(got, "1 note; last: "), "%s", got);
    free(want);
    free(got);
    pt_destroy(r1);
    pt_destroy(t);
    fake_uninstall();
}

Test(ptreport, show_options_match_pt_log)
{
    test_clock clk;
    pt_timing *t = workload(&clk, "opts");
    static const struct {
        const char *args;
        pt_log_opts o;
    } cases[] = {
        { "--percentages", { .percentages = 1 } },
        { "--sort time", { .sort = PT_SORT_TIME } },
        { "--sort flops --percentages", { .sort = PT_SORT_FLOPS, .percentages = 1 } },
        { "--sort name", { .sort = PT_SORT_NAME } },
        { "--depth 1", { .max_depth = 1 } },
        { "--sort order --depth 2", { .max_depth = 2 } },
    };

    save(t, "run.json");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *want, *got;
        pt_log_to(t, in_dir("want.txt"), cases[i].o);
        cr_assert_eq(run("show %s %s", in_dir("run.json"), cases[i].args), 0, "show %s: %s",
                     cases[i].args, err_text());
        want = slurp(in_dir("want.txt"));
        got = out_text();
        cr_assert_str_eq(got, want, "show %s:\n%s\nwanted:\n%s", cases[i].args, got, want);
        free(want);
        free(got);
    }
    pt_destroy(t);
}

Test(ptreport, show_and_csv_carry_the_roofline)
{
    test_clock clk;
    pt_timing *t = workload(&clk, "roof");
    char *want, *got;

    cr_assert_eq(pt_peaks_set(t, 2e9, 1e12), 0, "pt_peaks_set");
    save(t, "run.json");
    pt_log_to(t, in_dir("want.txt"), (pt_log_opts){ .percentages = 1 });
    cr_assert_eq(run("show %s --percentages", in_dir("run.json")), 0, "%s", err_text());
    want = slurp(in_dir("want.txt"));
    got = out_text();
    cr_assert_str_eq(got, want, "with peaks:\n%s\nwanted:\n%s", got, want);
    cr_assert(strstr(got, "  peaks: 2.0 GB/s, 1000.0 GFLOP/s (given)"), "%s", got);
    cr_assert(strstr(got, "roofline: AI 200 FLOP/B,"), "%s", got);
    free(want);
    free(got);
    cr_assert_eq(pt_export_csv(t, in_dir("want.csv")), 0);
    cr_assert_eq(run("convert %s --to csv -o %s", in_dir("run.json"), in_dir("got.csv")), 0);
    want = slurp(in_dir("want.csv"));
    got = slurp(in_dir("got.csv"));
    cr_assert_str_eq(got, want, "convert with peaks:\n%s\npt_export_csv:\n%s", got, want);
    free(want);
    free(got);
    pt_destroy(t);
}

Test(ptreport, show_empty_run_and_bad_options)
{
    test_clock clk;
    pt_timing *t = test_timing(&clk, "empty", PT_CPU);
    char *got;
    save(t, "run.json");
    cr_assert_eq(run("show %s", in_dir("run.json")), 0);
    got = out_text();
    cr_assert(strstr(got, "(no sections)"), "%s", got);
    free(got);
    cr_assert_eq(run("show %s --sort fastest", in_dir("run.json")), 2, "unknown sort");
    cr_assert_eq(run("show %s --depth -1", in_dir("run.json")), 2, "negative depth");
    cr_assert_eq(run("show"), 2, "no file");
    cr_assert_eq(run("frobnicate"), 2, "unknown command");
    cr_assert_eq(run("%s", ""), 2, "no command");
    pt_destroy(t);
}

/* ---- diff ----------------------------------------------------------------- */

Test(ptreport, diff_identical_runs_pass)
{
    test_clock clk;
    pt_timing *t = workload(&clk, "same");
    char *out;
    save(t, "a.json");
    save(t, "b.json");
    cr_assert_eq(run("diff %s %s", in_dir("a.json"), in_dir("b.json")), 0, "%s", err_text());
    out = out_text();
    cr_assert(strstr(out, "no regression"), "%s", out);
    free(out);
    pt_destroy(t);
}

Test(ptreport, diff_regression_beyond_threshold_and_noise_fails)
{
    /* Later calls 1.0/1.1 ms against 1.2/1.3 ms: +20%, far beyond two standard errors. */
    static const double base[] = { 5, 1.0, 1.1, 1.0, 1.1, 1.0, 1.1 };
    static const double slow[] = { 5, 1.2, 1.3, 1.2, 1.3, 1.2, 1.3 };
    char *out, *reg, *table;
    save_spans("a.json", base, 7, "steady");
    save_spans("b.json", slow, 7, "steady");
    cr_assert_eq(run("diff %s %s", in_dir("a.json"), in_dir("b.json")), 1, "%s", err_text());
    out = out_text();
    reg = strstr(out, "1 section regressed:\n  work: 1.050 -> 1.250 ms per call (+19.0%");
    table = strstr(out, "Verdict");
    cr_assert(reg && table && reg < table, "the regression is listed first:\n%s", out);
    cr_assert(strstr(out, "REGRESSED"), "%s", out);
    free(out);
}

/* Two runs of one program, a section under ptkit's own cost in both
 * ([short]) tripling: not judged, so the diff passes; its times show at
 * a resolution where the change is visible, not as 0.000. */
static void save_tiny(const char *file, int64_t tiny_ns)
{
    test_clock clk;
    pt_timing *t = test_timing(&clk, "tiny run", PT_CPU);
    pt__cost_set(t, 100, 40);
    for (int i = 0; i < 4; i++) {
        TEST_SPAN(t, &clk, "work", 10 * MS);
        TEST_SPAN(t, &clk, "tiny", tiny_ns);
    }
    save(t, file);
    pt_destroy(t);
}

Test(ptreport, diff_judges_no_short_section)
{
    char *out;
    save_tiny("a.json", 100);
    save_tiny("b.json", 300);
    cr_assert_eq(run("diff %s %s", in_dir("a.json"), in_dir("b.json")), 0,
                 "a [short] section failed the diff: %s", err_text());
    out = out_text();
    cr_assert(strstr(out, "no regression"), "%s", out);
    cr_assert(strstr(out, "not judged ([short]: too short to time)"), "%s", out);
    cr_assert(strstr(out, "1.00e-04") && strstr(out, "3.00e-04"),
              "the per-call times are not visible:\n%s", out);
    free(out);
}

Test(ptreport, diff_change_within_noise_passes)
{
    /* +10% on the mean of calls spread from 0.5 to 2.5 ms: beyond the
     * threshold, but inside 2 * sqrt(sd^2/n + sd^2/n). */
    static const double base[] = { 1, 0.5, 2.5, 0.5, 2.5 };
    static const double slow[] = { 1, 0.6, 2.7, 0.6, 2.7 };
    char *out;
    save_spans("a.json", base, 5, NULL);
    save_spans("b.json", slow, 5, NULL);
    cr_assert_eq(run("diff %s %s", in_dir("a.json"), in_dir("b.json")), 0, "%s", err_text());
    out = out_text();
    cr_assert(strstr(out, "within noise"), "%s", out);
    free(out);
}

Test(ptreport, diff_improvement_passes)
{
    static const double base[] = { 3, 2, 2, 2 };
    static const double fast[] = { 3, 1, 1, 1 };
    char *out;
    save_spans("a.json", base, 4, NULL);
    save_spans("b.json", fast, 4, NULL);
    cr_assert_eq(run("diff %s %s", in_dir("a.json"), in_dir("b.json")), 0, "%s", err_text());
    out = out_text();
    cr_assert(strstr(out, "improved"), "%s", out);
    cr_assert(strstr(out, "-50.0%"), "%s", out);
    free(out);
    /* Turned around it is a regression: the spread is 0, so any change beyond the threshold counts. */
    cr_assert_eq(run("diff %s %s", in_dir("b.json"), in_dir("a.json")), 1);
}

Test(ptreport, diff_threshold_decides_small_changes)
{
    static const double base[] = { 1, 1.00, 1.00, 1.00 };
    static const double slow[] = { 1, 1.03, 1.03, 1.03 };
    save_spans("a.json", base, 4, NULL);
    save_spans("b.json", slow, 4, NULL);
    cr_assert_eq(run("diff %s %s", in_dir("a.json"), in_dir("b.json")), 0, "+3%% < 5%%");
    cr_assert_eq(run("diff %s %s --threshold 2%%", in_dir("a.json"), in_dir("b.json")), 1,
                 "+3%% > 2%%: %s", err_text());
    cr_assert_eq(run("diff %s %s --threshold 2", in_dir("a.json"), in_dir("b.json")), 1,
                 "the %% sign is optional");
    cr_assert_eq(run("diff %s %s --threshold lots", in_dir("a.json"), in_dir("b.json")), 2);
    cr_assert_eq(run("diff %s", in_dir("a.json")), 2, "one run only");
}

Test(ptreport, diff_single_calls_use_the_threshold_alone)
{
    static const double base[] = { 10 };
    static const double slow[] = { 11 };
    save_spans("a.json", base, 1, NULL);
    save_spans("b.json", slow, 1, NULL);
    cr_assert_eq(run("diff %s %s", in_dir("a.json"), in_dir("b.json")), 1, "+10%% on one call");
}

Test(ptreport, diff_lists_one_sided_sections)
{
    static const double same[] = { 1, 1, 1 };
    char *out, *a, *b;
    save_spans("a.json", same, 3, "old_step");
    save_spans("b.json", same, 3, "new_step");
    cr_assert_eq(run("diff %s %s", in_dir("a.json"), in_dir("b.json")), 0, "%s", err_text());
    out = out_text();
    a = strstr(out, "only in base (1):\n  old_step  1.000 ms total");
    b = strstr(out, "only in new (1):\n  new_step  1.000 ms total");
    cr_assert(a && b, "one-sided sections listed:\n%s", out);
    free(out);
}

/* ---- merge ---------------------------------------------------------------- */

static json_t *load_json(const char *path)
{
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    cr_assert_not_null(j, "%s: %d:%d: %s", path, e.line, e.column, e.text);
    return j;
}

static double num_at(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    cr_assert(json_is_number(v), "%s.%s is not a number", a, b ? b : "");
    return json_number_value(v);
}

Test(ptreport, merge_spreads_and_counts_are_exact)
{
    static const double r1[] = { 1 }, r2[] = { 2, 2 }, r3[] = { 3, 3, 3 };
    json_t *doc, *secs, *work, *only;
    save_spans("r1.json", r1, 1, "rare");
    save_spans("r2.json", r2, 2, NULL);
    save_spans("r3.json", r3, 3, "rare");
    cr_assert_eq(run("merge %s %s %s -o %s", in_dir("r1.json"), in_dir("r2.json"),
                     in_dir("r3.json"), in_dir("all.json")),
                 0, "%s", err_text());
    doc = load_json(in_dir("all.json"));
    cr_assert_eq(json_integer_value(json_object_get(doc, "schema")), PT_JSON_SCHEMA);
    cr_assert_eq(num_at(doc, "merged", "inputs"), 3);
    secs = json_object_get(doc, "sections");
    cr_assert_eq(json_array_size(secs), 2, "work and rare");
    work = json_array_get(secs, 0);
    only = json_array_get(secs, 1);
    cr_assert_str_eq(json_string_value(json_object_get(work, "name")), "work");
    json_t *m = json_object_get(work, "merged");
    cr_assert_eq(num_at(m, "inputs", NULL), 3);
    cr_assert_eq(num_at(m, "count", NULL), 6, "1 + 2 + 3 calls");
    cr_assert_eq(num_at(work, "count", NULL), 6);
    cr_assert_eq(num_at(m, "total_ms", "min"), 1, "r1's 1 ms");
    cr_assert_eq(num_at(m, "total_ms", "max"), 9, "r3's 3 x 3 ms");
    cr_assert_eq(num_at(m, "total_ms", "mean"), 14.0 / 3, "(1 + 4 + 9) / 3");
    cr_assert_eq(num_at(m, "mean_ms", "min"), 0, "r1 has no later call");
    cr_assert_eq(num_at(m, "mean_ms", "max"), 3);
    cr_assert_eq(num_at(m, "mean_ms", "mean"), 5.0 / 3);
    cr_assert_eq(num_at(work, "total_ms", NULL), 14, "pooled total");
    cr_assert_eq(num_at(work, "first_ms", NULL), 1, "r1's first call");
    cr_assert_eq(num_at(work, "min_ms", NULL), 2);
    cr_assert_eq(num_at(work, "max_ms", NULL), 3);
    cr_assert_str_eq(json_string_value(json_object_get(only, "name")), "rare");
    cr_assert_eq(num_at(json_object_get(only, "merged"), "inputs", NULL), 2, "in r1 and r3");
    cr_assert_eq(num_at(doc, "stats", "total_ms"), 16, "14 + 2 x 1 ms");
    cr_assert_eq(num_at(doc, "stats", "section_count"), 2);
    json_decref(doc);
    cr_assert_eq(run("show %s", in_dir("all.json")), 0, "show reads the merged run: %s",
                 err_text());
    char *out = out_text();
    cr_assert(strstr(out, "merged from 3 runs"), "%s", out);
    free(out);
}

Test(ptreport, merge_pools_like_one_run)
{
    /* Runs of 1, 2, 3 ms and of 4, 5 ms pool to one run of 1..5 ms: the
     * same first, mean, deviation, extremes and total as that run. */
    static const double a[] = { 1, 2, 3 }, b[] = { 4, 5 }, all[] = { 1, 2, 3, 4, 5 };
    static const char *const figs[] = { "count", "total_ms", "first_ms", "mean_ms",
                                        "stddev_ms", "min_ms", "max_ms", "pct_parent" };
    json_t *m, *one, *ms, *os;
    save_spans("a.json", a, 3, NULL);
    save_spans("b.json", b, 2, NULL);
    save_spans("one.json", all, 5, NULL);
    cr_assert_eq(run("merge %s %s -o %s", in_dir("a.json"), in_dir("b.json"),
                     in_dir("m.json")), 0, "%s", err_text());
    m = load_json(in_dir("m.json"));
    one = load_json(in_dir("one.json"));
    ms = json_array_get(json_object_get(m, "sections"), 0);
    os = json_array_get(json_object_get(one, "sections"), 0);
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
        double x = num_at(ms, figs[i], NULL), y = num_at(os, figs[i], NULL);
        cr_assert(fabs(x - y) <= 1e-12 * fabs(y), "%s: merged %.17g, one run %.17g", figs[i],
                  x, y);
    }
    json_decref(m);
    json_decref(one);
}

/* ---- convert -------------------------------------------------------------- */

/* One file given twice (by two names: a hard link), or a merged file
 * beside one of the runs it merged, would count the same occurrences
 * twice: refused, naming both, nothing written. Copies are other runs. */
Test(ptreport, merge_refuses_a_run_it_would_count_twice)
{
    static const double ms[] = { 1, 2 };
    char *err;
    save_spans("a.json", ms, 2, NULL);
    save_spans("b.json", ms, 2, NULL);
    cr_assert_eq(run("merge %s %s -o %s", in_dir("a.json"), in_dir("a.json"), in_dir("m.json")),
                 2, "one file twice");
    err = err_text();
    cr_assert(strstr(err, "are one file: its runs would count twice"), "%s", err);
    free(err);
    cr_assert_eq(link(in_dir("a.json"), in_dir("a-link.json")), 0);
    cr_assert_eq(run("merge %s %s -o %s", in_dir("a.json"), in_dir("a-link.json"),
                     in_dir("m.json")), 2, "a file and its hard link");
    cr_assert_neq(access(in_dir("m.json"), F_OK), 0, "merge wrote nothing");
    /* A merge of a and b, then that merge with b again. */
    cr_assert_eq(run("merge %s %s -o %s", in_dir("a.json"), in_dir("b.json"), in_dir("ab.json")),
                 0, "%s", err_text());
    cr_assert_eq(run("merge %s %s -o %s", in_dir("ab.json"), in_dir("b.json"), in_dir("m.json")),
                 2, "a merged file with one of its inputs");
    err = err_text();
    cr_assert(strstr(err, "already holds") && strstr(err, "b.json"), "%s", err);
    free(err);
    copy_run("b.json", "b-copy.json");
    cr_assert_eq(run("merge %s %s -o %s", in_dir("ab.json"), in_dir("b-copy.json"),
                     in_dir("m.json")), 0, "a copy is another run: %s", err_text());
}

Test(ptreport, convert_csv_is_pt_export_csv)
{
    test_clock clk;
    pt_timing *t = workload(&clk, "csv");
    char *want, *got;
    pt_start(t, "a, \"quoted\" title");
    clk.now += MS / 3;
    pt_stop(t, "a, \"quoted\" title");
    save(t, "run.json");
    cr_assert_eq(pt_export_csv(t, in_dir("want.csv")), 0);
    cr_assert_eq(run("convert %s --to csv -o %s", in_dir("run.json"), in_dir("got.csv")), 0,
                 "%s", err_text());
    want = slurp(in_dir("want.csv"));
    got = slurp(in_dir("got.csv"));
    cr_assert_str_eq(got, want, "convert:\n%s\npt_export_csv:\n%s", got, want);
    free(want);
    free(got);
    pt_destroy(t);
}

/* -o - is standard output, as for ptgen: the CSV there, no file named
 * "-"; a full standard output is said with its reason and exit 2. */
Test(ptreport, convert_to_standard_output)
{
    test_clock clk;
    pt_timing *t = workload(&clk, "to stdout");
    char *out, *csv, cmd[4096];
    save(t, "run.json");
    pt_destroy(t);
    cr_assert_eq(run("convert %s --to csv -o -", in_dir("run.json")), 0, "%s", err_text());
    out = out_text();
    cr_assert_eq(run("convert %s --to csv -o %s", in_dir("run.json"), in_dir("run.csv")), 0);
    csv = slurp(in_dir("run.csv"));
    cr_assert_str_eq(out, csv, "-o - writes what -o FILE writes");
    cr_assert_eq(access("-", F_OK), -1, "a file named '-' was written where it ran");
    free(out);
    free(csv);
    snprintf(cmd, sizeof cmd, "%s convert %s --to csv -o - >/dev/full 2>%s/err.txt", tool,
             in_dir("run.json"), dir);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "a full standard output: status %d", st);
    out = err_text();
    cr_assert(strstr(out, "No space left on device"), "no reason given: %s", out);
    free(out);
}

Test(ptreport, convert_unknown_formats_and_usage_exit_2)
{
    static const double s[] = { 1 };
    char *err;
    save_spans("run.json", s, 1, NULL);
    cr_assert_eq(run("convert %s --to yaml -o %s", in_dir("run.json"), in_dir("t.yaml")), 2);
    err = err_text();
    cr_assert(strstr(err, "unknown format 'yaml' (csv, html or trace)"), "%s", err);
    free(err);
    cr_assert_eq(run("convert %s --to csv", in_dir("run.json")), 2, "no -o");
    cr_assert_eq(run("convert %s -o %s", in_dir("run.json"), in_dir("t.json")), 2, "no --to");
    cr_assert_eq(run("convert %s --to trace -o ''", in_dir("run.json")), 2, "an empty -o");
    cr_assert_eq(run("convert --to html -o %s", in_dir("t.html")), 2, "no run");
    cr_assert_eq(entries_with(dir, "t."), 0, "nothing written");
    cr_assert_eq(run("--help"), 0);
    char want[64], *out = out_text();
    snprintf(want, sizeof want, "schemas 1 to %d)", PT_JSON_SCHEMA);
    cr_assert(strstr(out, want), "the usage names the schemas this build reads:\n%s", out);
    free(out);
}

/* ---- convert --to trace: the aggregate flame chart ------------------------ */

/* An "X" event of the converted trace, by its section's path. */
typedef struct xev {
    const char *path;
    long long ts, end;        /* ns, as written (microseconds with three decimals) */
    json_t *args;
} xev;

static long long ns_of(json_t *e, const char *key)
{
    json_t *v = json_object_get(e, key);
    cr_assert(json_is_number(v), "\"%s\" is not a number", key);
    return llround(json_number_value(v) * 1e3);
}

/* The trace's complete events (at most cap), each checked for the fields
 * every event has; the rest ("M") must be metadata events. */
static size_t trace_events(json_t *doc, xev *out, size_t cap)
{
    json_t *evs = json_object_get(doc, "traceEvents"), *e;
    size_t i, n = 0;
    long long pid = -1;
    char why[512];

    cr_assert_eq(trace_check(doc, why, sizeof why), 0, "the trace is malformed: %s", why);
    cr_assert(json_is_array(evs), "traceEvents is an array");
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        cr_assert_not_null(ph, "event %zu has no ph", i);
        if (strcmp(ph, "M") == 0)
            continue;
        cr_assert_str_eq(ph, "X", "only complete events and metadata");
        cr_assert(n < cap, "more events than sections");
        if (pid < 0)
            pid = json_integer_value(json_object_get(e, "pid"));
        cr_assert_eq(json_integer_value(json_object_get(e, "pid")), pid, "one process");
        cr_assert_geq(pid, 10000000, "ptkit's own pids, apart from any OS process's");
        cr_assert_eq(json_integer_value(json_object_get(e, "tid")), 1, "one track");
        out[n].args = json_object_get(e, "args");
        out[n].path = json_string_value(json_object_get(out[n].args, "path"));
        cr_assert_not_null(out[n].path, "event %zu has args.path", i);
        out[n].ts = ns_of(e, "ts");
        out[n].end = out[n].ts + ns_of(e, "dur");
        n++;
    }
    return n;
}

static const xev *event_at(const xev *v, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].path, path) == 0)
            return &v[i];
    cr_assert_fail("no event for \"%s\"", path);
    return NULL;
}

/* Checks the aggregate layout of s's children against the live timing:
 * each event as long as its section's total, inside its parent, the
 * first child at its parent's start and each next one where the one
 * before ended; returns where the last child ended. */
static long long check_layout(pt_timing *t, const pt_section *parent, const xev *v, size_t n,
                              long long from, long long limit, size_t *seen)
{
    long long at = from;
    for (const pt_section *c = pt_section_child(parent); c; c = pt_section_next(c)) {
        char path[512];
        pt_section_stats st;
        const xev *e;
        pt_section_path(c, path, sizeof path);
        pt_section_get(t, c, &st);
        e = event_at(v, n, path);
        cr_assert_eq(e->ts, at, "%s starts where its elder sibling ended (or its parent "
                     "started): %lld, not %lld", path, e->ts, at);
        cr_assert_eq(e->end - e->ts, llround(st.total_ms * 1e6), "%s lasts its total", path);
        cr_assert(e->end <= limit, "%s ends inside its parent", path);
        cr_assert_eq(json_integer_value(json_object_get(e->args, "count")), (json_int_t)st.count,
                     "%s: count in args", path);
        cr_assert_eq(json_number_value(json_object_get(e->args, "total_ms")), st.total_ms);
        if (st.count > 1)
            cr_assert_eq(json_number_value(json_object_get(e->args, "mean_ms")), st.mean_ms,
                         "%s: mean in args", path);
        if (st.count > 2)
            cr_assert_eq(json_number_value(json_object_get(e->args, "stddev_ms")), st.stddev_ms,
                         "%s: deviation in args", path);
        check_layout(t, c, v, n, e->ts, e->end, seen);
        at = e->end;
        ++*seen;
    }
    return at;
}

Test(ptreport, convert_trace_is_a_flame_chart_of_the_totals)
{
    test_clock clk;
    pt_timing *t = workload(&clk, "flame");
    xev v[16];
    size_t n, seen = 0;
    json_t *doc, *md;

    save(t, "run.json");
    cr_assert_eq(run("convert %s --to trace -o %s", in_dir("run.json"), in_dir("t.json")), 0,
                 "%s", err_text());
    doc = load_json(in_dir("t.json"));
    n = trace_events(doc, v, 16);
    cr_assert_eq(n, run_stats(t).section_count, "one event per section");
    cr_assert_eq(check_layout(t, pt_root(t), v, n, 0, LLONG_MAX, &seen),
                 llround(run_stats(t).total_ms * 1e6), "top-level sections end at the run's total");
    cr_assert_eq(seen, n);
    /* frame: 2 x (solve 1+2+3 / 2+3+4 ms, upload 2 ms, 0.25 ms of its own). */
    const xev *frame = event_at(v, n, "frame"), *solve = event_at(v, n, "frame/solve"),
              *upload = event_at(v, n, "frame/upload");
    cr_assert_eq(frame->end - frame->ts, 19500000, "frame: 19.5 ms");
    cr_assert_eq(solve->end - solve->ts, 15000000, "solve: 15 ms");
    cr_assert_eq(upload->ts, 15000000, "upload after solve");
    cr_assert_eq(frame->end - upload->end, 500000, "frame's self time is left at its end");
    cr_assert_float_eq(json_number_value(json_object_get(solve->args, "stddev_ms")),
                       sqrt(0.7), 1e-12, "the spread of solve's later calls (2, 3, 2, 3, 4 ms)");
    cr_assert(json_number_value(json_object_get(solve->args, "read_gbs")) > 0,
              "rates are in args");
    cr_assert_str_eq(json_string_value(json_object_get(solve->args, "kind")), "cpu");
    md = json_object_get(doc, "metadata");
    cr_assert_str_eq(json_string_value(json_object_get(md, "layout")), "aggregate");
    cr_assert(strstr(json_string_value(json_object_get(md, "note")), "not a timeline"));
    cr_assert_eq(json_integer_value(json_object_get(md, "widened")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(md, "from")), in_dir("run.json"));
    cr_assert_str_eq(json_string_value(json_object_get(doc, "displayTimeUnit")), "ms");
    cr_assert_null(json_object_get(doc, "baseTimeNanoseconds"),
                   "a saved run's chart has no time base: its positions are not times");
    json_decref(doc);
    /* -o is a plain path: the library's %r and %p are not expanded. */
    cr_assert_eq(run("convert %s --to trace -o %s", in_dir("run.json"), in_dir("t%p.json")), 0,
                 "%s", err_text());
    cr_assert_eq(access(in_dir("t%p.json"), F_OK), 0, "written under the name given");
    cr_assert_eq(run("convert %s --to html -o %s", in_dir("run.json"), in_dir("100%.html")), 0,
                 "%s", err_text());
    cr_assert_eq(access(in_dir("100%.html"), F_OK), 0, "written under the name given");
    pt_destroy(t);
}

Test(ptreport, convert_trace_widens_a_parent_its_children_outgrow)
{
    /* A launch timed by CUDA events may run on after the host section that
     * queued it: here "wait" says 5 ms under a 3 ms "host". */
    test_clock clk;
    pt_timing *t = test_timing(&clk, "widen", PT_CPU);
    json_t *doc, *host, *wait;
    xev v[4];
    size_t n;

    pt_start(t, "host");
    TEST_SPAN(t, &clk, "wait", 2 * MS);
    clk.now += MS;
    pt_stop(t, "host");
    save(t, "run.json");
    doc = load_json(in_dir("run.json"));
    host = json_array_get(json_object_get(doc, "sections"), 0);
    wait = json_array_get(json_object_get(doc, "sections"), 1);
    cr_assert_eq(json_integer_value(json_object_get(wait, "parent")), 0, "under host");
    (void)host;
    json_object_set_new(wait, "total_ms", json_real(5));
    json_object_set_new(wait, "first_ms", json_real(5));
    cr_assert_eq(json_dump_file(doc, in_dir("edited.json"), JSON_INDENT(1)), 0);
    json_decref(doc);
    cr_assert_eq(run("convert %s --to trace -o %s", in_dir("edited.json"), in_dir("t.json")), 0,
                 "%s", err_text());
    doc = load_json(in_dir("t.json"));
    n = trace_events(doc, v, 4);
    cr_assert_eq(n, 2);
    const xev *h = event_at(v, n, "host"), *w = event_at(v, n, "host/wait");
    cr_assert_eq(w->end - w->ts, 5 * MS, "the child keeps its total");
    cr_assert(h->ts <= w->ts && w->end <= h->end, "the parent spans it");
    cr_assert_eq(h->end - h->ts, 5 * MS, "drawn as long as its child");
    cr_assert_eq(json_number_value(json_object_get(h->args, "total_ms")), 3, "its real total");
    cr_assert_eq(json_number_value(json_object_get(h->args, "drawn_ms")), 5);
    cr_assert_not_null(json_object_get(h->args, "note"));
    cr_assert_null(json_object_get(w->args, "note"));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "metadata"), "widened")),
                 1);
    json_decref(doc);
    pt_destroy(t);
}

/* ---- convert --to html ----------------------------------------------------- */

/* Slot s of a host buffer as END leaves it: 1 ms of globaltimer over
 * 4,000,000 cycles (0.25 ns per cycle) and each phase's cycles. */
static void done_slot(pt_dev_records *b, int s, const long long *cycles)
{
    pt_dev_buf a = pt_dev_arg(b);
    long long *r = a.data + PT_DEV_HDR + s * PT_DEV_SLOT_WORDS(a.nphases, a.trace_cap);
    r[PT_DEV_S_DONE] = 1;
    r[PT_DEV_S_SMID] = r[PT_DEV_S_SMID1] = s % 4;
    r[PT_DEV_S_CLK0] = 1000000007LL;
    r[PT_DEV_S_CLK1] = r[PT_DEV_S_CLK0] + 4000000;
    r[PT_DEV_S_GT0] = 5000000000LL;
    r[PT_DEV_S_GT1] = r[PT_DEV_S_GT0] + 1000000;
    for (int p = 0; p < a.nphases; p++) {
        r[PT_DEV_SLOT_HDR + 2 * p] = cycles[p];
        r[PT_DEV_SLOT_HDR + 2 * p + 1] = 1;
    }
}

/* workload() plus peaks, a tracked tensor (and one untracked, which
 * leaves the peak above the total), a folded launch of 8 blocks, and a
 * section left open. */
static pt_timing *rich_run(test_clock *clk)
{
    static const char *names[] = { "load", "compute" };
    pt_timing *t = workload(clk, "rich run");
    pt_dev_records *b;

    pt__calib_set(-1, 2.0, 1000.0);
    cr_assert_eq(pt_peaks_set(t, 2e9, 1e12), 0);
    cr_assert_eq(pt_track(t, "psi", NULL, 8e6, (long long[]){ 100, 50, 4, 4 }, 4, "float32"), 0);
    cr_assert_eq(pt_track(t, "tmp", NULL, 2e6, NULL, 0, NULL), 0);
    pt_untrack(t, "tmp");
    b = pt_dev_records_create(t, 8, 2, names, PT_DEV_HOST, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    for (int s = 0; s < 8; s++)
        done_slot(b, s, (long long[]){ (s + 1) * 1000LL, 500 });
    TEST_SPAN(t, clk, "step", 5 * MS);
    cr_assert_eq(pt_dev_fold(t, b, "step"), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
    pt_start(t, "still open");
    clk->now += MS;
    return t;
}

/* A host-mode launch's per-block line says the spread includes the OS;
 * the file keeps which launches ran on the CPU, so show says it too. */
Test(ptreport, show_keeps_the_host_mode_note)
{
    test_clock clk;
    pt_timing *t = rich_run(&clk);
    char *want, *got;

    pt_stop(t, "still open");
    save(t, "run.json");
    pt_log_to(t, in_dir("want.txt"), (pt_log_opts){ 0 });
    want = slurp(in_dir("want.txt"));
    cr_assert(strstr(want, "(host mode: the spread includes the OS preempting the thread)"),
              "pt_log has the note: %s", want);
    cr_assert_eq(run("show %s", in_dir("run.json")), 0, "show failed: %s", err_text());
    got = out_text();
    cr_assert(strstr(got, "(host mode: the spread includes the OS preempting the thread)"),
              "ptreport show dropped the host-mode note:\n%s", got);
    free(want);
    free(got);
    pt_destroy(t);
}

static json_t *page_data(const char *path, char **page)
{
    static const char open[] = "<script type=\"application/json\" id=\"pt-data\">";
    char *html = slurp(path), *a = strstr(html, open), *b;
    json_error_t e;
    json_t *j;

    cr_assert_not_null(a, "%s: no data element", path);
    a += strlen(open);
    b = strstr(a, "</script>");
    cr_assert_not_null(b, "%s: the data element is not closed", path);
    j = json_loadb(a, (size_t)(b - a), 0, &e);
    cr_assert_not_null(j, "%s: the data is not JSON: %s", path, e.text);
    cr_assert(strstr(b, "</html>"), "%s: the page is whole", path);
    if (page)
        *page = html;
    else
        free(html);
    return j;
}

static void same_number(json_t *a, json_t *b, const char *what, const char *key)
{
    if (json_is_null(a) || json_is_null(b)) {
        cr_assert(json_is_null(a) && json_is_null(b), "%s.%s: one is null", what, key);
        return;
    }
    cr_assert(json_is_number(a) && json_is_number(b), "%s.%s: not numbers", what, key);
    double x = json_number_value(a), y = json_number_value(b);
    cr_assert(fabs(x - y) <= 1e-12 * fabs(y), "%s.%s: converted %.17g, live %.17g", what, key, x,
              y);
}

/* Every member of `live` is in `conv` with the same value; numbers to
 * the last few bits (the file holds ms, the timing ns). `skip` names
 * members that may differ. */
static void same_object(json_t *conv, json_t *live, const char *what, const char *const *skip)
{
    const char *key;
    json_t *lv;

    json_object_foreach(live, key, lv) {
        json_t *cv = json_object_get(conv, key);
        int skipped = 0;
        for (const char *const *k = skip; k && *k; k++)
            skipped |= strcmp(*k, key) == 0;
        if (skipped)
            continue;
        cr_assert_not_null(cv, "%s: no \"%s\" in the converted page", what, key);
        if (json_is_number(lv) || json_is_null(lv))
            same_number(cv, lv, what, key);
        else if (json_is_object(lv))
            same_object(cv, lv, key, skip);
        else
            cr_assert(json_equal(cv, lv), "%s.%s differs", what, key);
    }
}

Test(ptreport, convert_html_is_the_page_of_the_run)
{
    static const char *const skip[] = { "created", "heat", "saved", NULL };
    static const char *const page_skip[] = { "created", "saved", "sections", "bottlenecks",
                                             NULL };
    test_clock clk;
    pt_timing *t;
    json_t *live, *conv, *ls, *cs, *x, *saved;
    char *page;
    size_t i;

    /* Two runs alike, so that neither export sees the other's PT_EOPEN
     * among the errors it writes. */
    t = rich_run(&clk);
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), PT_EOPEN, "one section is open");
    pt_destroy(t);
    t = rich_run(&clk);
    cr_assert_eq(pt_export_html(t, in_dir("live.html")), PT_EOPEN);
    pt_destroy(t);
    cr_assert_eq(run("convert %s --to html -o %s", in_dir("run.json"), in_dir("conv.html")), 0,
                 "an open section is written, not an error: %s", err_text());
    live = page_data(in_dir("live.html"), NULL);
    conv = page_data(in_dir("conv.html"), &page);
    cr_assert(strncmp(page, "<!DOCTYPE html>", 15) == 0, "a whole page");
    free(page);
    /* The run's header, errors, device clock, roofline and tracked memory. */
    same_object(conv, live, "page", page_skip);
    ls = json_object_get(live, "sections");
    cs = json_object_get(conv, "sections");
    cr_assert_eq(json_array_size(cs), json_array_size(ls), "every section");
    cr_assert_eq(json_array_size(cs), 9, "frame, solve, upload, post, step, its two phases and "
                 "(unattributed), still open");
    json_array_foreach(ls, i, x) {
        json_t *c = json_array_get(cs, i);
        same_object(c, x, json_string_value(json_object_get(x, "path")), skip);
        cr_assert(json_is_null(json_object_get(c, "heat")), "a saved run keeps no heatmap");
    }
    cr_assert(json_is_object(json_object_get(json_array_get(ls, 4), "heat")),
              "the live page has step's heatmap");
    cr_assert_eq(json_array_size(json_object_get(conv, "bottlenecks")),
                 json_array_size(json_object_get(live, "bottlenecks")), "the bottlenecks");
    json_array_foreach(json_object_get(live, "bottlenecks"), i, x) {
        json_t *c = json_array_get(json_object_get(conv, "bottlenecks"), i);
        cr_assert_eq(json_integer_value(json_object_get(c, "id")),
                     json_integer_value(json_object_get(x, "id")), "bottleneck %zu", i + 1);
        same_number(json_object_get(c, "self_ms"), json_object_get(x, "self_ms"), "bottleneck",
                    "self_ms");
    }
    cr_assert(json_is_object(json_object_get(conv, "roofline")), "the peaks came back");
    cr_assert_eq(json_array_size(json_object_get(json_object_get(conv, "memory"), "tensors")), 1);
    cr_assert_eq(json_number_value(json_object_get(json_object_get(conv, "memory"), "peak")), 1e7,
                 "the saved peak, above what is still tracked");
    cr_assert(json_is_null(json_object_get(live, "saved")), "a live page is not from a file");
    saved = json_object_get(conv, "saved");
    cr_assert(json_is_object(saved), "the converted page says where it comes from");
    cr_assert_str_eq(json_string_value(json_object_get(saved, "file")), in_dir("run.json"));
    x = load_json(in_dir("run.json"));
    cr_assert_str_eq(json_string_value(json_object_get(saved, "created")),
                     json_string_value(json_object_get(x, "created")), "the run's own time");
    json_decref(x);
    json_decref(live);
    json_decref(conv);
}

/* Tensors tracked, one replaced and one untracked (the peak stays above
 * the total), with shapes, dtypes and a title that needs escaping; the
 * device sampled through the fake runtime at once and at every section
 * boundary, its use rising to 30 GB inside "solve" and back to 10 GB. */
static pt_timing *memory_run(test_clock *clk)
{
    pt_timing *t;

    fake_install();
    fake.mem_total = 80000000000ull;
    fake.mem_free = 60000000000ull;
    t = test_timing(clk, "memory run", PT_CPU);
    cr_assert_not_null(t);
    cr_assert_eq(pt_memory_sampling_set(t, 1), 0, "sampling: %s", pt_last_error(t));
    cr_assert_eq(pt_track(t, "psi", NULL, 8e6, (long long[]){ 100, 50, 4, 4 }, 4, "float32"), 0);
    cr_assert_eq(pt_track(t, "w<1> \"q\"", NULL, 12345, (long long[]){ 3 }, 1, "bfloat16"), 0);
    pt_start(t, "frame");
    cr_assert_eq(pt_track(t, "tmp", NULL, 2.5e6, NULL, 0, NULL), 0);
    fake.mem_free = 50000000000ull;
    TEST_SPAN(t, clk, "solve", 3 * MS);
    cr_assert_eq(pt_untrack(t, "tmp"), 0);
    fake.mem_free = 70000000000ull;
    cr_assert_eq(pt_track(t, "psi", NULL, 4e6, (long long[]){ 50, 50, 4, 4 }, 4, "float32"), 0);
    TEST_SPAN(t, clk, "post", MS);
    pt_stop(t, "frame");
    return t;
}

Test(ptreport, convert_html_keeps_the_tracked_and_device_memory)
{
    static const char *const page_skip[] = { "created", "saved", "sections", "bottlenecks",
                                             NULL };
    test_clock clk;
    pt_timing *t;
    pt_memory_stats ms;
    json_t *live, *conv, *lm, *cm, *x;
    size_t i;

    t = memory_run(&clk);
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0, "%s", pt_last_error(t));
    pt_destroy(t);
    t = memory_run(&clk);
    cr_assert_eq(pt_export_html(t, in_dir("live.html")), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_memory_get(t, &ms), 0);
    pt_destroy(t);
    fake_uninstall();
    cr_assert(ms.device_sampled && ms.tensors == 2 && ms.total == 4e6 + 12345 &&
              ms.peak == 8e6 + 12345 + 2.5e6 && ms.device_used_peak == 30e9 &&
              ms.device_free == 70e9, "the live run: %zu tensors, %.17g of %.17g, device %g",
              ms.tensors, ms.total, ms.peak, ms.device_used_peak);

    cr_assert_eq(run("convert %s --to html -o %s", in_dir("run.json"), in_dir("conv.html")), 0,
                 "%s", err_text());
    live = page_data(in_dir("live.html"), NULL);
    conv = page_data(in_dir("conv.html"), NULL);
    lm = json_object_get(live, "memory");
    cm = json_object_get(conv, "memory");
    cr_assert(json_is_object(lm) && json_is_object(cm), "both pages have the memory");
    cr_assert(json_is_number(json_object_get(lm, "device_used_peak")), "the device was sampled");
    if (!json_equal(cm, lm)) {
        char *a = json_dumps(cm, JSON_COMPACT), *b = json_dumps(lm, JSON_COMPACT);
        cr_assert_fail("the converted page's memory is not the live page's:\nconverted %s\n"
                       "live      %s", a, b);
    }
    same_object(conv, live, "page", page_skip);
    cr_assert_eq(json_array_size(json_object_get(conv, "sections")),
                 json_array_size(json_object_get(live, "sections")), "every section");
    json_array_foreach(json_object_get(live, "sections"), i, x) {
        json_t *c = json_array_get(json_object_get(conv, "sections"), i);
        cr_assert(json_equal(json_object_get(c, "mem_high_water"),
                             json_object_get(x, "mem_high_water")),
                  "%s: the high-water mark", json_string_value(json_object_get(x, "path")));
    }
    json_decref(live);
    json_decref(conv);
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

Test(ptreport, convert_html_renders_in_chromium, .timeout = 120)
{
    test_clock clk;
    pt_timing *t;
    char url[300], *dom;

    if (!test_chromium())
        cr_skip_test("no Chromium found: `make test BROWSER=1` installs it as root");
    t = rich_run(&clk);
    pt_export_json(t, in_dir("run.json"));
    pt_destroy(t);
    cr_assert_eq(run("convert %s --to html -o %s", in_dir("run.json"), in_dir("conv.html")), 0,
                 "%s", err_text());
    snprintf(url, sizeof url, "file://%s", in_dir("conv.html"));
    test_browse(dir, url, "--dump-dom", in_dir("dom.html"));
    snprintf(url, sizeof url, "rm -rf '%s/profile'", dir); /* the suite removes files only */
    cr_assert_eq(system(url), 0);
    dom = slurp(in_dir("dom.html"));
    cr_assert_eq(count_of(dom, "class=\"pt-ice-rect\""), 9, "one icicle bar per section");
    cr_assert_eq(count_of(dom, "class=\"pt-row\""), 9, "one table row per section");
    cr_assert_eq(count_of(dom, "class=\"pt-stack-seg\""), 3, "step's two phases and the rest");
    cr_assert_eq(count_of(dom, "class=\"pt-heat-cell\""), 0, "no per-block records, no cells");
    cr_assert(strstr(dom, "No heatmap: a saved run keeps"), "the heatmap's absence is explained");
    cr_assert(strstr(dom, "id=\"pt-saved\""), "the page names the saved run");
    cr_assert(strstr(dom, "id=\"pt-bn-table\""), "the bottlenecks are drawn");
    cr_assert_eq(count_of(dom, "class=\"pt-roof\""), 1, "the roofs, from the saved peaks");
    cr_assert_eq(count_of(dom, "class=\"pt-roof-pt\""), 1, "solve declared bytes and FLOPS");
    cr_assert(strstr(dom, "id=\"pt-tensors\""), "the tracked tensor is listed");
    cr_assert(strstr(dom, "peak 10.0 MB"), "the saved peak, above what is tracked");
    free(dom);
}

Test(ptreport, convert_unwritable_outputs_exit_2_and_write_nothing)
{
    static const double s[] = { 1, 2 };
    static const char *const fmts[] = { "html", "trace", "csv" };
    struct stat st;
    char out[256], want[300], *err;

    save_spans("run.json", s, 2, NULL);
    spit(in_dir("plain"), "x");
    cr_assert_eq(mkdir(in_dir("adir"), 0755), 0);
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        static const char *const cases[][2] = {
            { "no/such/dir/out", "No such file or directory" },
            { "plain/out", "Not a directory" },
            { "adir", "" },
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            snprintf(out, sizeof out, "%s/%s", dir, cases[k][0]);
            cr_assert_eq(run("convert %s --to %s -o %s", in_dir("run.json"), fmts[i], out), 2,
                         "--to %s -o %s", fmts[i], cases[k][0]);
            err = err_text();
            snprintf(want, sizeof want, "ptreport: %s: ", out);
            cr_assert_eq(strncmp(err, want, strlen(want)), 0, "\"OUT: why\", got %s", err);
            cr_assert(strstr(err, cases[k][1]), "%s", err);
            cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
            free(err);
        }
        cr_assert_eq(stat(in_dir("adir"), &st), 0);
        cr_assert(S_ISDIR(st.st_mode), "the directory is left as it was");
    }
    /* A device cannot be replaced by a rename: the library refuses it. */
    for (size_t i = 0; i < 2; i++) {
        cr_assert_eq(run("convert %s --to %s -o /dev/null", in_dir("run.json"), fmts[i]), 2);
        err = err_text();
        cr_assert(strstr(err, "ptreport: /dev/null: not a regular file"), "%s", err);
        free(err);
        cr_assert_eq(stat("/dev/null", &st), 0);
        cr_assert(S_ISCHR(st.st_mode), "/dev/null is still the device");
    }
    /* Only what the test made: no output, no temporary. */
    {
        static const char *const made[] = { ".", "..", "run.json", "plain", "adir", "out.txt",
                                            "err.txt" };
        DIR *dp = opendir(dir);
        struct dirent *e;
        cr_assert_not_null(dp);
        while ((e = readdir(dp))) {
            int known = 0;
            for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
                known |= strcmp(e->d_name, made[i]) == 0;
            cr_assert(known, "left behind: %s", e->d_name);
        }
        closedir(dp);
    }
}

Test(ptreport, merge_outputs_are_refused_as_convert_refuses_them)
{
    static const double s[] = { 1, 2 };
    struct stat st;
    char name[251], *err, *text;

    save_spans("run.json", s, 2, NULL);
    cr_assert_eq(run("merge %s -o ''", in_dir("run.json")), 2, "an empty -o");
    err = err_text();
    cr_assert(strstr(err, "merge: an empty -o"), "%s", err);
    free(err);
    cr_assert_eq(mkfifo(in_dir("fifo"), 0644), 0);
    cr_assert_eq(run("merge %s -o %s", in_dir("run.json"), in_dir("fifo")), 2, "a FIFO");
    err = err_text();
    cr_assert(strstr(err, "fifo: not a regular file"), "%s", err);
    free(err);
    cr_assert_eq(stat(in_dir("fifo"), &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "still a FIFO");
    unlink(in_dir("fifo"));
    spit(in_dir("ro.json"), "kept\n");
    cr_assert_eq(chmod(in_dir("ro.json"), 0444), 0);
    cr_assert_eq(run("merge %s -o %s", in_dir("run.json"), in_dir("ro.json")), 2, "read-only");
    err = err_text();
    cr_assert(strstr(err, "ro.json: a read-only file"), "%s", err);
    free(err);
    text = slurp(in_dir("ro.json"));
    cr_assert_str_eq(text, "kept\n", "kept as it was");
    free(text);
    unlink(in_dir("ro.json"));
    /* A temporary name beside a 250-byte name would pass NAME_MAX. */
    memset(name, 'm', 245);
    memcpy(name + 245, ".json", 6);
    copy_run("run.json", "run2.json");
    cr_assert_eq(run("merge %s %s -o %s", in_dir("run.json"), in_dir("run2.json"), in_dir(name)), 0,
                 "a 250-byte name");
    text = slurp(in_dir(name));
    cr_assert(strstr(text, "\"schema\""), "a whole run");
    free(text);
    unlink(in_dir(name));
    cr_assert_eq(entries_with(dir, "."), 2, "no temporary left: only . and ..");
}

/* ---- bad input ------------------------------------------------------------ */

Test(ptreport, malformed_json_names_line_and_column)
{
    char *err, want[512];
    spit(in_dir("bad.json"), "{\n  \"schema\": 1,\n  \"name\": ,\n}\n");
    cr_assert_eq(run("convert %s --to csv -o %s", in_dir("bad.json"), in_dir("out.csv")), 2);
    err = err_text();
    snprintf(want, sizeof want, "%s: 3:", in_dir("bad.json"));
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "FILE: LINE:COLUMN: message, got %s",
                 err);
    free(err);
    cr_assert_neq(access(in_dir("out.csv"), F_OK), 0, "no output file on bad input");
    cr_assert_eq(entries_with(dir, "out.csv"), 0, "no temporary left");
    cr_assert_eq(run("show %s", in_dir("bad.json")), 2);
    cr_assert_eq(run("diff %s %s", in_dir("bad.json"), in_dir("bad.json")), 2);
    cr_assert_eq(run("merge %s -o %s", in_dir("bad.json"), in_dir("m.json")), 2);
    cr_assert_neq(access(in_dir("m.json"), F_OK), 0, "merge wrote nothing");
}

/* The export with the first occurrence of `from` replaced by `to`. */
static void save_edited(const char *name, const char *from, const char *to)
{
    static const double s[] = { 1, 2 };
    char *text, *at, *out;
    save_spans("orig.json", s, 2, NULL);
    text = slurp(in_dir("orig.json"));
    at = strstr(text, from);
    cr_assert_not_null(at, "\"%s\" not in the export", from);
    out = malloc(strlen(text) + strlen(to) + 1);
    memcpy(out, text, (size_t)(at - text));
    strcpy(out + (at - text), to);
    strcat(out, at + strlen(from));
    spit(in_dir(name), out);
    free(text);
    free(out);
}

static void expect_error(const char *name, const char *where, const char *what)
{
    char *err, want[512];
    cr_assert_eq(run("convert %s --to csv -o %s", in_dir(name), in_dir("out.csv")), 2,
                 "exit 2 for %s", what);
    err = err_text();
    snprintf(want, sizeof want, "%s: %s: ", in_dir(name), where);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "expected \"%s\", got %s", want, err);
    cr_assert(strstr(err, what), "expected \"%s\" in %s", what, err);
    free(err);
    cr_assert_neq(access(in_dir("out.csv"), F_OK), 0, "no output file");
}

Test(ptreport, wrong_schema_is_refused_where_it_stands)
{
    /* The export starts "{\n  \"schema\": 2," so the value is at line 2, column 13. */
    save_edited("s2.json", "\"schema\": 2", "\"schema\": 3");
    expect_error("s2.json", "2:13", "schema 3 is not supported: ptreport reads schemas 1 to 2");
    save_edited("s3.json", "\"schema\": 2", "\"schema\": \"1\"");
    expect_error("s3.json", "2:13", "\"schema\" must be an integer");
    spit(in_dir("arr.json"), "[1, 2]\n");
    expect_error("arr.json", "1:1", "a run must be a JSON object");
}

Test(ptreport, titles_that_differ_in_bytes_stay_apart)
{
    /* "a\xff" and "a\xfe" both read "a\uFFFD" as UTF-8: the saved run
     * keeps their bytes, so show, merge and diff keep them apart. */
    test_clock clk;
    pt_timing *t = test_timing(&clk, "bytes", PT_CPU);
    char *o, *e;
    json_t *doc;

    TEST_SPAN(t, &clk, "a\xff", MS);
    TEST_SPAN(t, &clk, "a\xfe", 2 * MS);
    TEST_SPAN(t, &clk, "a\xfe", 2 * MS);
    save(t, "run.json");
    pt_destroy(t);
    cr_assert_eq(run("show %s", in_dir("run.json")), 0);
    o = out_text();
    cr_assert(strstr(o, "1     1.000"), "a\\xff kept: %s", o);
    cr_assert(strstr(o, "2     4.000"), "a\\xfe kept: %s", o);
    free(o);
    copy_run("run.json", "run2.json");
    cr_assert_eq(run("merge %s %s -o %s", in_dir("run.json"), in_dir("run2.json"), in_dir("all.json")),
                 0);
    doc = load_json(in_dir("all.json"));
    cr_assert_eq(json_array_size(json_object_get(doc, "sections")), 2, "two sections, not one");
    cr_assert_eq(num_at(json_array_get(json_object_get(doc, "sections"), 0), "count", NULL), 2);
    cr_assert_eq(num_at(json_array_get(json_object_get(doc, "sections"), 1), "count", NULL), 4);
    json_decref(doc);
    cr_assert_eq(run("diff %s %s", in_dir("run.json"), in_dir("all.json")), 0, "paired rightly");
    /* Without their bytes (a hand edit, an older file) the two are alike:
     * refused, never collapsed into one. */
    {
        char *text = slurp(in_dir("run.json")), *at;
        while ((at = strstr(text, "\"name_bytes\"")) != NULL)
            memcpy(at, "\"nome_bytes\"", 12);
        spit(in_dir("alike.json"), text);
        free(text);
    }
    cr_assert_eq(run("show %s", in_dir("alike.json")), 2);
    e = err_text();
    cr_assert(strstr(e, "a second section titled"), "%s", e);
    free(e);
}

Test(ptreport, a_run_10000_deep_reads_back)
{
    /* The export is a flat list: no nesting limit of a JSON parser, and
     * its size grows with the sections, not with the depth squared. */
    test_clock clk;
    pt_timing *t = test_timing(&clk, "deep", PT_CPU);
    struct stat st;
    char *o;
    enum { DEEP = 10000 };

    for (int i = 0; i < DEEP; i++)
        pt_start(t, "d");
    clk.now += MS;
    for (int i = 0; i < DEEP; i++)
        pt_stop(t, "d");
    save(t, "deep.json");
    pt_destroy(t);
    cr_assert_eq(stat(in_dir("deep.json"), &st), 0);
    cr_assert_lt(st.st_size, (off_t)DEEP * 2048, "linear in the sections: %lld bytes",
                 (long long)st.st_size);
    cr_assert_eq(run("show %s", in_dir("deep.json")), 0, "show reads it");
    o = out_text();
    cr_assert(strstr(o, "10000 sections"), "%.300s", o);
    free(o);
    copy_run("deep.json", "deep2.json");
    cr_assert_eq(run("merge %s %s -o %s", in_dir("deep.json"), in_dir("deep2.json"),
                     in_dir("all.json")), 0, "merge reads it");
    cr_assert_eq(run("convert %s --to csv -o %s", in_dir("all.json"), in_dir("all.csv")), 0,
                 "and reads what it wrote");
    cr_assert_eq(stat(in_dir("all.csv"), &st), 0);
    cr_assert_lt(st.st_size, (off_t)DEEP * 1024, "the CSV linear in the sections: %lld bytes",
                 (long long)st.st_size);
    /* The flame chart and the page stay linear too: an event's path is cut
     * as the text report cuts it, the page builds paths from parents. */
    cr_assert_eq(run("convert %s --to trace -o %s", in_dir("deep.json"), in_dir("deep.trace")), 0,
                 "the flame chart");
    cr_assert_eq(stat(in_dir("deep.trace"), &st), 0);
    cr_assert_lt(st.st_size, (off_t)DEEP * 2048, "the trace linear in the sections: %lld bytes",
                 (long long)st.st_size);
    cr_assert_eq(run("convert %s --to html -o %s", in_dir("deep.json"), in_dir("deep.html")), 0,
                 "the page");
    cr_assert_eq(stat(in_dir("deep.html"), &st), 0);
    cr_assert_lt(st.st_size, (off_t)DEEP * 2048 + (off_t)(1 << 20),
                 "the page linear in the sections: %lld bytes", (long long)st.st_size);
}

/* The saved run with the first section's member `key` set to `value`. */
static void save_section_member(const char *name, const char *key, const char *value)
{
    static const double s[] = { 1, 2 };
    char *text, *at, *end, *out, pat[64];
    save_spans("orig.json", s, 2, NULL);
    text = slurp(in_dir("orig.json"));
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    at = strstr(strstr(text, "\"sections\""), pat);
    cr_assert_not_null(at, "no %s in the first section", key);
    at += strlen(pat);
    end = at + strcspn(at, ",}\n");
    out = malloc(strlen(text) + strlen(value) + 1);
    memcpy(out, text, (size_t)(at - text));
    strcpy(out + (at - text), value);
    strcat(out, end);
    spit(in_dir(name), out);
    free(text);
    free(out);
}

Test(ptreport, figures_out_of_range_are_refused_and_merged_counts_saturate)
{
    char *e, *o;
    static const char *const bad[][2] = {
        { "total_ms", "-5" }, { "total_ms", "1e308" }, { "first_ms", "-1" },
    };
    /* Hand-edited negative or huge figures would show as negative totals
     * or inf%: refused where they stand. */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        save_section_member("bad.json", bad[i][0], bad[i][1]);
        cr_assert_eq(run("show %s", in_dir("bad.json")), 2, "%s: %s", bad[i][0], bad[i][1]);
        e = err_text();
        cr_assert(strstr(e, "must be a time >= 0 (at most 1.797e302 ms)") ||
                  strstr(e, "must be a number >= 0 or null"), "%s", e);
        free(e);
    }
    /* A null total is an unknown figure, not a lack of memory. */
    save_section_member("null.json", "total_ms", "null");
    cr_assert_eq(run("show %s", in_dir("null.json")), 0);
    e = err_text();
    cr_assert_null(strstr(e, "out of memory"), "%s", e);
    free(e);
    /* An empty name is a name (show read past its cleaned copy once). */
    save_section_member("empty.json", "name", "\"\"");
    cr_assert_eq(run("show %s", in_dir("empty.json")), 0);
    o = out_text();
    cr_assert(strstr(o, "\n             2     3.000     1.000  2.000"), "the untitled row, whole: %s", o);
    free(o);
    /* Counts that overflow when summed stay at the largest count, never
     * negative, and the merged file reads back. */
    save_section_member("big.json", "count", "4611686018427387904");
    copy_run("big.json", "big2.json");
    copy_run("big.json", "big3.json");
    cr_assert_eq(run("merge %s %s %s -o %s", in_dir("big.json"), in_dir("big2.json"),
                     in_dir("big3.json"), in_dir("all.json")), 0);
    cr_assert_eq(run("show %s", in_dir("all.json")), 0, "the merged file reads back");
    o = out_text();
    cr_assert(strstr(o, "9223372036854775807"), "saturated: %s", o);
    cr_assert_null(strstr(o, " -"), "nothing negative: %s", o);
    free(o);
}

Test(ptreport, wrong_member_types_are_located)
{
    char *text, *at;
    int line = 1, col = 1;
    save_edited("count.json", "\"count\": 2", "\"count\": \"two\"");
    text = slurp(in_dir("count.json"));
    at = strstr(text, "\"two\"");
    for (char *p = text; p < at; p++) {
        if (*p == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    free(text);
    char where[32];
    snprintf(where, sizeof where, "%d:%d", line, col);
    expect_error("count.json", where, "\"count\" must be an integer >= 0");
    save_edited("kind.json", "\"kind\": \"cpu\"", "\"kind\": \"fpga\"");
    {
        char *e;
        cr_assert_eq(run("show %s", in_dir("kind.json")), 2);
        e = err_text();
        cr_assert(strstr(e, "unknown kind \"fpga\""), "%s", e);
        free(e);
    }
    save_edited("mem.json", "\"tensors\": []", "\"tensors\": [{\"name\": 1}]");
    {
        char *e;
        cr_assert_eq(run("convert %s --to html -o %s", in_dir("mem.json"), in_dir("m.html")), 2);
        e = err_text();
        cr_assert(strstr(e, "\"name\" must be a string"), "a bad tracked tensor: %s", e);
        free(e);
        cr_assert_neq(access(in_dir("m.html"), F_OK), 0, "nothing written");
    }
    {
        static const char *const cases[][3] = {
            { "dev.json", "\"device_free\": null", "\"device_free\": \"lots\"" },
            { "peak.json", "\"peak\": 0", "\"peak\": -1" },
        };
        for (size_t i = 0; i < 2; i++) {
            char *e, what[64];
            save_edited(cases[i][0], cases[i][1], cases[i][2]);
            cr_assert_eq(run("convert %s --to html -o %s", in_dir(cases[i][0]), in_dir("m.html")),
                         2, "%s", cases[i][2]);
            e = err_text();
            snprintf(what, sizeof what, "%.*s must be a number >= 0 or null",
                     (int)(strchr(cases[i][2], ':') - cases[i][2]), cases[i][2]);
            cr_assert(strstr(e, what), "a bad memory figure: %s", e);
            cr_assert(strstr(e, in_dir(cases[i][0])), "located in the file: %s", e);
            free(e);
            cr_assert_neq(access(in_dir("m.html"), F_OK), 0, "nothing written");
        }
    }
    save_edited("miss.json", "\"total_ms\": 3,", "");
    {
        char *e;
        cr_assert_eq(run("show %s", in_dir("miss.json")), 2);
        e = err_text();
        cr_assert(strstr(e, "missing member \"total_ms\""), "%s", e);
        free(e);
    }
}

Test(ptreport, truncated_and_empty_files)
{
    static const double s[] = { 1, 2 };
    char *text, *e;
    save_spans("full.json", s, 2, NULL);
    text = slurp(in_dir("full.json"));
    text[strlen(text) / 2] = '\0';
    spit(in_dir("half.json"), text);
    free(text);
    cr_assert_eq(run("show %s", in_dir("half.json")), 2);
    e = err_text();
    cr_assert(strstr(e, "half.json: ") && strchr(strstr(e, "half.json: "), ':'),
              "FILE: LINE:COLUMN: message, got %s", e);
    free(e);
    spit(in_dir("empty.json"), "");
    cr_assert_eq(run("show %s", in_dir("empty.json")), 2);
    e = err_text();
    cr_assert(strstr(e, "empty.json: 1:"), "%s", e);
    free(e);
}

Test(ptreport, missing_file_exits_2)
{
    char *e;
    cr_assert_eq(run("show %s", in_dir("nope.json")), 2);
    e = err_text();
    cr_assert(strstr(e, "nope.json: No such file or directory"), "%s", e);
    free(e);
    cr_assert_eq(run("merge %s %s -o %s", in_dir("nope.json"), in_dir("nope.json"),
                     in_dir("m.json")), 2);
    cr_assert_neq(access(in_dir("m.json"), F_OK), 0, "merge wrote nothing");
}

/* ---- endless, hostile and extreme inputs --------------------------------- */

Test(ptreport, endless_and_binary_inputs_stop_at_once, .timeout = 30)
{
    char *err;
    /* /dev/zero used to be read whole (24 GB, then the OOM killer). */
    cr_assert_eq(run("show /dev/zero"), 2);
    err = err_text();
    cr_assert(strstr(err, "/dev/zero: 1:1: a NUL byte"), "%s", err);
    free(err);
    spit(in_dir("nul.json"), "{\n  \"schema\": 2,\n");
    FILE *f = fopen(in_dir("nul.json"), "ab");
    fputs("  \"na", f);
    fputc('\0', f);
    fputs("me\": \"x\"}\n", f);
    fclose(f);
    cr_assert_eq(run("show %s", in_dir("nul.json")), 2);
    err = err_text();
    cr_assert(strstr(err, "nul.json: 3:6: a NUL byte"), "the line and column of the NUL: %s", err);
    free(err);
    /* A file past the limit is refused by its size, before it is read. */
    cr_assert_eq(truncate(in_dir("nul.json"), 3LL << 30), 0);
    cr_assert_eq(run("show %s", in_dir("nul.json")), 2);
    err = err_text();
    cr_assert(strstr(err, "3221225472 bytes, more than the 2147483648 a run may hold"), "%s", err);
    free(err);
    unlink(in_dir("nul.json"));
    static const double s[] = { 1, 2 };
    save_spans("run.json", s, 2, NULL);
    cr_assert_eq(run("show %s", in_dir("run.json")), 0);
    setenv("PTREPORT_MAX_BYTES", "100", 1);
    cr_assert_eq(run("show %s", in_dir("run.json")), 2, "the limit is the environment's");
    unsetenv("PTREPORT_MAX_BYTES");
}

Test(ptreport, a_byte_order_mark_is_read_past)
{
    static const double s[] = { 1, 2 };
    char *text, *with;
    save_spans("run.json", s, 2, NULL);
    text = slurp(in_dir("run.json"));
    with = malloc(strlen(text) + 4);
    strcpy(with, "\xef\xbb\xbf");
    strcat(with, text);
    spit(in_dir("bom.json"), with);
    cr_assert_eq(run("show %s", in_dir("bom.json")), 0);
    free(text);
    free(with);
}

Test(ptreport, an_output_that_is_an_input_is_refused)
{
    static const double s[] = { 1, 2 };
    char *before, *after, *err;
    save_spans("run.json", s, 2, NULL);
    before = slurp(in_dir("run.json"));
    cr_assert_eq(run("convert %s --to csv -o %s", in_dir("run.json"), in_dir("run.json")), 2);
    err = err_text();
    cr_assert(strstr(err, "is the input"), "%s", err);
    free(err);
    cr_assert_eq(run("merge %s %s -o %s", in_dir("run.json"), in_dir("run.json"),
                     in_dir("run.json")), 2);
    cr_assert_eq(link(in_dir("run.json"), in_dir("same.json")), 0);
    cr_assert_eq(run("merge %s -o %s", in_dir("run.json"), in_dir("same.json")), 2,
                 "a second name of the input");
    after = slurp(in_dir("run.json"));
    cr_assert_str_eq(after, before, "the saved run is kept");
    free(before);
    free(after);
}

Test(ptreport, whatever_ptkit_writes_it_reads)
{
    /* Bytes and FLOPS held at the largest double, and a merged total of
     * such runs: refused past 1e300 before. */
    test_clock clk;
    pt_timing *t = test_timing(&clk, "huge", PT_CPU);
    TEST_SPAN(t, &clk, "a", MS, .read = DBL_MAX, .flops = DBL_MAX);
    TEST_SPAN(t, &clk, "a", MS, .read = DBL_MAX);
    save(t, "huge.json");
    pt_destroy(t);
    cr_assert_eq(run("show %s", in_dir("huge.json")), 0);
    copy_run("huge.json", "huge2.json");
    cr_assert_eq(run("merge %s %s -o %s", in_dir("huge.json"), in_dir("huge2.json"),
                     in_dir("both.json")), 0);
    cr_assert_eq(run("show %s", in_dir("both.json")), 0, "the merged run reads back");
    char *o = out_text();
    cr_assert_null(strstr(o, "inf"), "%s", o);
    cr_assert_null(strstr(o, "nan"), "%s", o);
    cr_assert(strstr(o, "e+"), "huge rates in exponent form: %s", o);
    free(o);
    cr_assert_eq(run("diff %s %s", in_dir("huge.json"), in_dir("both.json")), 0);
}

Test(ptreport, diff_of_runs_without_sections)
{
    static const double s[] = { 1, 2 };
    save_edited("empty.json", "\"sections\": [", "\"sections\": [], \"x\": [");
    save_spans("run.json", s, 2, NULL);
    cr_assert_eq(run("diff %s %s", in_dir("empty.json"), in_dir("run.json")), 0);
    char *o = out_text();
    cr_assert(strstr(o, "only in new (1)"), "%s", o);
    free(o);
    cr_assert_eq(run("diff %s %s", in_dir("run.json"), in_dir("empty.json")), 0);
    cr_assert_eq(run("diff %s %s", in_dir("empty.json"), in_dir("empty.json")), 0);
}

Test(ptreport, diff_of_a_deep_chain_is_linear, .timeout = 60)
{
    /* 20,000 deep: whole paths were 800 MB to compare; a row is now as
     * long at any depth. */
    enum { DEEP = 20000 };
    test_clock clk;
    pt_timing *t = test_timing(&clk, "deep", PT_CPU);
    char title[16];
    for (int i = 0; i < DEEP; i++) {
        snprintf(title, sizeof title, "s%d", i);
        pt_start(t, title);
    }
    clk.now += MS;
    for (int i = DEEP - 1; i >= 0; i--) {
        snprintf(title, sizeof title, "s%d", i);
        pt_stop(t, title);
    }
    save(t, "deep.json");
    pt_destroy(t);
    cr_assert_eq(run("diff %s %s", in_dir("deep.json"), in_dir("deep.json")), 0);
    char *o = out_text();
    cr_assert(strstr(o, "s0/\xE2\x80\xA6/s19994/s19995/s19996/s19997/s19998/s19999 "),
              "the deepest row's path, cut: %.300s", o);
    cr_assert_lt(strlen(o), (size_t)DEEP * 400, "%zu bytes of output", strlen(o));
    free(o);
}
