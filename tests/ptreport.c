/* ptreport, the built tool, run on exports made here on a manual clock:
 * show reproduces pt_log()'s tree from the file, diff judges changes
 * against the threshold and the runs' own spread, merge pools runs, convert
 * writes pt_export_csv()'s CSV; bad input gives FILE: LINE:COLUMN:, exit 2
 * and no output file. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

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
            unlink(p);
        }
    }
    closedir(d);
    rmdir(dir);
}

TestSuite(ptreport, .init = setup, .fini = teardown);

static char *in_dir(const char *name)
{
    static char buf[8][256];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, 256, "%s/%s", dir, name);
    return b;
}

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
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "fopen(%s): %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
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

    cr_assert_eq(pt_set_peaks(t, 2e9, 1e12), 0, "pt_set_peaks");
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
    cr_assert_eq(json_integer_value(json_object_get(doc, "schema")), 1);
    cr_assert_eq(num_at(doc, "merged", "inputs"), 3);
    secs = json_object_get(doc, "sections");
    cr_assert_eq(json_array_size(secs), 2, "work and rare");
    work = json_array_get(secs, 0);
    only = json_array_get(secs, 1);
    cr_assert_str_eq(json_string_value(json_object_get(work, "path")), "work");
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
    cr_assert_str_eq(json_string_value(json_object_get(only, "path")), "rare");
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

Test(ptreport, convert_unsupported_formats_exit_2)
{
    static const double s[] = { 1 };
    char *err;
    save_spans("run.json", s, 1, NULL);
    cr_assert_eq(run("convert %s --to trace -o %s", in_dir("run.json"), in_dir("t.json")), 2);
    err = err_text();
    cr_assert(strstr(err, "not supported yet"), "%s", err);
    free(err);
    cr_assert_eq(run("convert %s --to yaml -o %s", in_dir("run.json"), in_dir("t.yaml")), 2);
    cr_assert_eq(run("convert %s --to csv", in_dir("run.json")), 2, "no -o");
    cr_assert_neq(access(in_dir("t.json"), F_OK), 0, "nothing written");
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
    /* The export starts "{\n  \"schema\": 1," so the value is at line 2, column 13. */
    save_edited("s2.json", "\"schema\": 1", "\"schema\": 2");
    expect_error("s2.json", "2:13", "schema 2 is not supported: ptreport reads schema 1");
    save_edited("s3.json", "\"schema\": 1", "\"schema\": \"1\"");
    expect_error("s3.json", "2:13", "\"schema\" must be an integer");
    spit(in_dir("arr.json"), "[1, 2]\n");
    expect_error("arr.json", "1:1", "a run must be a JSON object");
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
