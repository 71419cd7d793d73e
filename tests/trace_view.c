/* ptkit's traces opened in a real viewer: speedscope (from the npm
 * registry) in headless Chromium. speedscope imports a Chrome trace by
 * replaying each track's complete events as a stack, and says on the
 * console when one ends while another is on top of it ("Tried to end X
 * when Y was on the top of the stack") or stays open: what Perfetto
 * drops and catapult misdraws. Each test loads a trace as speedscope's
 * own command line does (a script that hands it the file) and reads the
 * console. Skips without Chromium or without speedscope; `make test
 * BROWSER=1` installs both (speedscope into $(BUILD)/npm), or set
 * $PT_SPEEDSCOPE to its dist/release/index.html. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pt/pt_dev.h>

#include "browser.h"
#include "common.h"
#include "cuda_fake.h"
#include "records_fake.h"

static test_clock clk;
static pt_timing *t;
static char dir[64];

static void setup(void)
{
    fake_run_setup(dir, sizeof dir, "view");
}

static void teardown(void)
{
    pt_destroy(t);
    t = NULL;
    fake_run_teardown(dir);
}

TestSuite(trace_view, .init = setup, .fini = teardown, .timeout = 120);

#define in_dir(name) test_path(dir, (name))

/* speedscope's page, or a skip saying how to get it. */
static const char *speedscope(void)
{
    static char p[512];
    const char *env = getenv("PT_SPEEDSCOPE"), *build = getenv("PT_BUILD");

    if (env && *env)
        snprintf(p, sizeof p, "%s", env);
    else
        snprintf(p, sizeof p, "%s/%s/npm/node_modules/speedscope/dist/release/index.html",
                 getcwd((char[512]){ 0 }, 512), build && *build ? build : "build");
    if (access(p, R_OK) != 0)
        cr_skip_test("speedscope not found (%s): `make test BROWSER=1` installs it from the npm "
                     "registry, or set $PT_SPEEDSCOPE", p);
    return p;
}

static void base64(FILE *out, const unsigned char *b, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) |
                     (i + 2 < n ? b[i + 2] : 0);
        fputc(a[v >> 18 & 63], out);
        fputc(a[v >> 12 & 63], out);
        fputc(i + 1 < n ? a[v >> 6 & 63] : '=', out);
        fputc(i + 2 < n ? a[v & 63] : '=', out);
    }
}

/* The page's console lines of Chromium's log (freed), without the
 * browser's own messages. */
static char *console(char *log)
{
    char *out = malloc(strlen(log) + 1), *o = out;
    cr_assert_not_null(out);
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, ":CONSOLE"))
            o += sprintf(o, "%s\n", line);
    *o = 0;
    free(log);
    return out;
}

/* Opens the trace at path in speedscope; returns its console (malloc'ed)
 * and, in *dom, the page it drew. */
static char *view(const char *path, char **dom)
{
    const char *page = speedscope();
    char *text = test_read_file(path), *log, url[1024];
    const char *js = in_dir("load.js");
    FILE *f = fopen(js, "w");

    cr_assert_not_null(text, "reading %s", path);
    cr_assert_not_null(f, "%s: %s", js, strerror(errno));
    fputs("speedscope.loadFileFromBase64(\"trace.json\", \"", f);
    base64(f, (const unsigned char *)text, strlen(text));
    fputs("\")\n", f);
    cr_assert_eq(fclose(f), 0);
    free(text);
    snprintf(url, sizeof url, "file://%s#localProfilePath=%s", page, js);
    test_browse(dir, url, "--dump-dom --virtual-time-budget=10000 --enable-logging=stderr --v=0",
                in_dir("dom.html"));
    log = test_read_file(in_dir("chromium.log"));
    *dom = test_read_file(in_dir("dom.html"));
    cr_assert(log && *dom, "chromium's output");
    return console(log);
}

/* The console says speedscope imported the file whole, every stack nested. */
static void assert_imported(const char *log)
{
    cr_assert(strstr(log, "Importing as Trace Event Format profile"),
              "speedscope did not take it as a Chrome trace; its console:\n%s", log);
    cr_assert(strstr(log, "\"import: "), "the import did not finish; console:\n%s", log);
    const char *bad[] = { "Tried to end", "still open at end of profile", "Uncaught", "rror" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *p = strstr(log, bad[i]);
        cr_assert_null(p, "speedscope's console: %.300s", p ? p : "");
    }
}

static void slot(pt_dev_records *b, int s, long long smid, long long clk_span, long long gt0,
                 long long gt_span, const long long *cycles)
{
    test_slot(b, s, smid, clk_span, gt0, gt_span, cycles, NULL);
}

/* A run as a GPU program's looks: nested host sections, launches on two
 * streams, and folds whose blocks were resident on one SM at once. */
static void gpu_run(void)
{
    const char *names[] = { "angular", "energy", "stream" };
    pt_stream s1 = (pt_stream)(uintptr_t)0x10;

    t = test_timing(&clk, "transport", PT_TRACE | PT_GPU_EVENTS);
    fake.device_count = 1;
    pt_dev_records *b = pt_dev_records_create(t, 64, 3, names, PT_DEV_HOST, 0);
    cr_assert_not_null(b);
    for (int step = 0; step < 3; step++) {
        /* 64 blocks on 4 SMs, 16 at once on each, starts staggered by 10 us. */
        pt_dev_reset(b, NULL);
        for (int s = 0; s < 64; s++)
            slot(b, s, s % 4, 4000000, (s / 4) * 10000, 1000000,
                 (long long[]){ 1000000 + s * 1000, 1500000, 1200000 });
        pt_start(t, "step");
        TEST_SPAN(t, &clk, "prepare", 50000);
        pt_start_gpu(t, "transport_step", 0);
        fake.now_ms += 2;
        clk.now += 20000;
        pt_stop_gpu(t, "transport_step", 0);
        pt_start_gpu(t, "copy", s1);
        fake.now_ms += 0.5;
        pt_stop_gpu(t, "copy", s1);
        cr_assert_eq(pt_dev_fold(t, b, "transport_step"), 0, "%s", pt_last_error(t));
        clk.now += 2500000;
        pt_stop(t, "step");
    }
    pt_dev_records_free(b);
}

Test(trace_view, a_gpu_runs_timeline_opens_in_speedscope)
{
    gpu_run();
    const char *p = in_dir("trace.json");
    cr_assert_eq(pt_export_trace(t, p), 0, "%s", pt_last_error(t));
    char *dom, *log = view(p, &dom);
    assert_imported(log);
    cr_assert(strstr(dom, "trace.json - speedscope"), "the page names the file");
    char pid[64];
    snprintf(pid, sizeof pid, "transport (pid %lld)", 10000000LL + getpid());
    cr_assert(strstr(dom, pid), "a track of the host process is shown (%s)", pid);
    free(dom);
    free(log);
}

Test(trace_view, the_flame_chart_of_a_timing_without_pt_trace_opens_in_speedscope)
{
    t = test_timing(&clk, "aggregate", PT_CPU);
    for (int k = 0; k < 3; k++) {
        pt_start(t, "frame");
        TEST_SPAN(t, &clk, "solve", (k + 1) * 1000000);
        TEST_SPAN(t, &clk, "upload", 2000000);
        pt_stop(t, "frame");
    }
    const char *p = in_dir("trace.json");
    cr_assert_eq(pt_export_trace(t, p), 0, "%s", pt_last_error(t));
    char *dom, *log = view(p, &dom);
    assert_imported(log);
    free(dom);
    free(log);
}

/* The check sees what it looks for: blocks of one SM crossing on one
 * track, as the trace drew them before lanes, make speedscope complain. */
Test(trace_view, crossing_events_are_seen)
{
    const char *p = in_dir("trace.json");
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs("{\"traceEvents\":[{\"ph\":\"M\",\"pid\":3,\"name\":\"process_name\",\"args\":"
          "{\"name\":\"GPU blocks by SM\"}},{\"ph\":\"M\",\"pid\":3,\"tid\":5,\"name\":"
          "\"thread_name\",\"args\":{\"name\":\"SM 5\"}},{\"ph\":\"X\",\"pid\":3,\"tid\":5,"
          "\"name\":\"block 0\",\"ts\":0,\"dur\":10},{\"ph\":\"X\",\"pid\":3,\"tid\":5,\"name\":"
          "\"block 1\",\"ts\":5,\"dur\":10}]}\n", f);
    cr_assert_eq(fclose(f), 0);
    char *dom, *log = view(p, &dom);
    cr_assert(strstr(log, "Tried to end"), "speedscope's console:\n%s", log);
    free(dom);
    free(log);
}

/* The samples' own traces (what `make demo` leaves in $(BUILD)/samples/out,
 * and each sample run there: `quickstart` with
 * PT_OUTPUT=trace=quickstart.trace.json), each imported whole: no track
 * refused. */
Test(trace_view, the_samples_traces_open_in_speedscope)
{
    static const char *const samples[] = { "transport_step", "solver_phases", "gpu_ops",
                                           "led_optimizer", "nvrtc_phases", "quickstart" };
    const char *b = getenv("PT_BUILD");
    int seen = 0;
    speedscope();
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/samples/out/%s.trace.json", b && *b ? b : "build", samples[i]);
        if (access(p, R_OK) != 0)
            continue;
        char *dom, *log = view(p, &dom);
        assert_imported(log);
        free(log);
        free(dom);
        seen++;
    }
    if (!seen)
        cr_skip_test("no sample has written its trace yet: run `make demo` (or the samples) first");
}
