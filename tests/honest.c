/* What a figure means: ptkit's own cost measured and taken out, sections
 * and phases too short to time marked, the true reason GPU sections fell
 * back to the CPU clock (a note, not an error), no rates from the CPU's
 * view of a launch, the runtime loaded before any section, the kernel
 * table, and each rank's spread after a gather. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pt/pt_dev.h>

#include "common.h"
#include "core/cost.h"
#include "cuda_fake.h"

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    fake_install();
}

static void teardown(void)
{
    pt_destroy(t);
    t = NULL;
    fake_uninstall();
}

TestSuite(honest, .init = setup, .fini = teardown);

static pt_section_stats get(pt_timing *x, const char *path)
{
    pt_section_stats st;
    const pt_section *s = pt_find(x, path);
    cr_assert_not_null(s, "pt_find(\"%s\") found nothing", path);
    cr_assert_eq(pt_section_get(x, s, &st), 0);
    return st;
}

/* The report of view v as one string (free it). */
static char *report(pt_timing *x, int v)
{
    test_text b = { 0 };
    pt_log_fn(x, test_text_line, &b, .view = v);
    cr_assert_not_null(b.s, "a report");
    return b.s;
}

/* The line of text holding `what`, as a string of its own. */
static char *line_with(const char *text, const char *what)
{
    static char out[1024];
    const char *p = strstr(text, what), *a, *e;
    cr_assert_not_null(p, "no line with \"%s\" in:\n%s", what, text);
    for (a = p; a > text && a[-1] != '\n'; a--)
        ;
    e = strchr(p, '\n');
    snprintf(out, sizeof out, "%.*s", (int)(e ? e - a : (long)strlen(a)), a);
    return out;
}

/* The report's row of a section: the line whose text starts with what
 * after its indent (other lines may name it too). */
static char *row_of(const char *text, const char *what)
{
    static char out[1024];
    size_t n = strlen(what);
    for (const char *a = text; a && *a; a = strchr(a, '\n') ? strchr(a, '\n') + 1 : NULL) {
        const char *p = a, *e = strchr(a, '\n');
        while (*p == ' ')
            p++;
        if (strncmp(p, what, n) == 0 && (p[n] == ' ' || p[n] == '\n')) {
            snprintf(out, sizeof out, "%.*s", (int)(e ? e - a : (long)strlen(a)), a);
            return out;
        }
    }
    cr_assert_fail("no row of \"%s\" in:\n%s", what, text);
    return NULL;
}

/* Writes slot s of b as END leaves it (as tests/fold.c does). */
static void slot(pt_dev_records *b, int s, long long clk_span, long long gt_span,
                 const long long *cycles, const long long *hits)
{
    pt_dev_buf a = pt_dev_arg(b);
    long long *r = a.data + PT_DEV_HDR + s * PT_DEV_SLOT_WORDS(a.nphases, a.trace_cap);
    r[PT_DEV_S_DONE] = 1;
    r[PT_DEV_S_SMID] = r[PT_DEV_S_SMID1] = 0;
    r[PT_DEV_S_CLK0] = 1000000007LL;
    r[PT_DEV_S_CLK1] = r[PT_DEV_S_CLK0] + clk_span;
    r[PT_DEV_S_GT0] = 5000000000LL;
    r[PT_DEV_S_GT1] = r[PT_DEV_S_GT0] + gt_span;
    for (int p = 0; p < a.nphases; p++) {
        r[PT_DEV_SLOT_HDR + 2 * p] = cycles[p];
        r[PT_DEV_SLOT_HDR + 2 * p + 1] = hits[p];
    }
}

/* ---- ptkit's own cost -------------------------------------------- */

/* The pair's cost is measured as the timing is made, on its clock. */
Test(honest, the_pair_cost_is_measured_on_the_machine)
{
    t = pt_create("measured", PT_CPU);
    pt_run_stats r = run_stats(t);
    cr_assert_gt(r.pair_ns, 0.0, "measured");
    cr_assert_lt(r.pair_ns, 1e5, "a pair is far under 100 us: %g ns", r.pair_ns);
    cr_assert_leq(r.pair_inside_ns, r.pair_ns);
    /* 1000 empty children: their pairs' cost leaves the parent's self time. */
    pt_start(t, "parent");
    for (int i = 0; i < 1000; i++) {
        pt_start(t, "empty");
        pt_stop(t, "empty");
    }
    pt_stop(t, "parent");
    pt_section_stats p = get(t, "parent"), c = get(t, "parent/empty");
    double pairs_ms = 1000 * (r.pair_ns - r.pair_inside_ns) / 1e6,
           raw_self_ms = p.total_ms - c.total_ms;
    cr_assert_float_eq(p.overhead_ms, pairs_ms < raw_self_ms ? pairs_ms : raw_self_ms, 1e-9,
                       "1000 pairs' outside part taken out (never more than the self time): "
                       "%g ms", p.overhead_ms);
    cr_assert_gt(p.overhead_ms, 0.0);
    cr_assert_float_eq(p.self_ms, p.total_ms - c.total_ms - p.overhead_ms, 1e-9,
                       "the self time is net of it");
    cr_assert_eq(c.too_short, 1, "an empty section is too short to time");
    char *s = report(t, PT_VIEW_TREE);
    cr_assert_not_null(strstr(s, "ptkit's own cost: a start+stop pair "), "in the header:\n%s", s);
    free(s);
}

/* A given cost (as a saved run's): exact arithmetic on a manual clock. */
Test(honest, self_time_is_net_of_the_childrens_pairs_and_says_so)
{
    t = test_timing(&clk, "given", PT_CPU);
    pt__cost_set(t, 100, 40);
    pt_start(t, "p");
    for (int i = 0; i < 10; i++)
        TEST_SPAN(t, &clk, "c", 1000);
    clk.now += 20000;
    pt_stop(t, "p");
    pt_section_stats p = get(t, "p");
    cr_assert_float_eq(p.total_ms, 0.030, 1e-12);
    cr_assert_float_eq(p.overhead_ms, 10 * 60 / 1e6, 1e-12, "10 pairs x (100 - 40) ns");
    cr_assert_float_eq(p.self_ms, (20000 - 600) / 1e6, 1e-12, "self net of them");
    pt_run_stats r = run_stats(t);
    cr_assert_float_eq(r.pair_ns, 100, 0);
    cr_assert_float_eq(r.pair_inside_ns, 40, 0);
    char *s = report(t, PT_VIEW_TREE);
    cr_assert_not_null(strstr(s, "a start+stop pair 100.0 ns (40.0 ns of it inside the inner "
                                 "section)"), "%s", s);
    free(s);
    /* A user clock without a given cost: nothing measured, nothing taken out. */
    pt__cost_set(t, 0, 0);
    cr_assert_eq(get(t, "p").overhead_ms, 0.0);
    s = report(t, PT_VIEW_TREE);
    cr_assert_not_null(strstr(s, "ptkit's own cost: not known for a user clock"), "%s", s);
    free(s);
}

/* ---- too short to time ------------------------------------------- */

Test(honest, sections_under_ten_pairs_are_marked_in_every_report)
{
    char path[] = "/tmp/pt-honest-XXXXXX";
    t = test_timing(&clk, "short", PT_CPU);
    pt__cost_set(t, 100, 40);
    TEST_SPAN(t, &clk, "tiny", 500);
    TEST_SPAN(t, &clk, "tiny", 700);
    TEST_SPAN(t, &clk, "once", 900);
    TEST_SPAN(t, &clk, "big", 5000);
    TEST_SPAN(t, &clk, "edge", 1000);
    cr_assert_eq(get(t, "tiny").too_short, 1, "700 ns, the later mean, under 1000");
    cr_assert_eq(get(t, "once").too_short, 1, "one call of 900 ns");
    cr_assert_eq(get(t, "big").too_short, 0);
    cr_assert_eq(get(t, "edge").too_short, 0, "exactly 10x is long enough");
    cr_assert_eq(run_stats(t).short_count, 2);
    for (int v = PT_VIEW_TREE; v <= PT_VIEW_BOTTLENECKS; v++) {
        char *s = report(t, v);
        cr_assert_not_null(strstr(line_with(s, "tiny"), "[short]"), "view %d:\n%s", v, s);
        cr_assert_null(strstr(line_with(s, "big"), "[short]"), "view %d", v);
        cr_assert_not_null(strstr(s, "2 sections too short to time, marked [short]: a typical "
                                     "call under 10x ptkit's measured cost"),
                           "the footer counts them:\n%s", s);
        free(s);
    }
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(pt_export_json(t, path), 0, "%s", pt_last_error(t));
    char *j = test_read_file(path);
    cr_assert_not_null(strstr(j, "\"short_count\": 2"), "%s", j);
    cr_assert_not_null(strstr(j, "\"too_short\": 1"));
    free(j);
    unlink(path);
}

/* ---- the device mark's cost -------------------------------------- */

/* hits x the measured mark cost leaves each phase; a phase whose marks
 * are under 10 mark costs apart is too short to time. */
Test(honest, phases_are_net_of_their_marks_measured_cost)
{
    const char *names[] = { "dense", "sparse" };
    pt__calib_set(-1, 4.0, 1000.0); /* 0.25 ns a cycle */
    pt__calib_set_mark(-1, 100);    /* 25 ns a mark */
    t = test_timing(&clk, "marks", PT_CPU);
    pt_dev_records *b = pt_dev_records_create(t, 1, 2, names, PT_DEV_HOST, 0);
    slot(b, 0, 4000000, 1000000, (long long[]){ 1200000, 2000000 }, (long long[]){ 2000, 10 });
    TEST_SPAN(t, &clk, "step", 1250000);
    cr_assert_eq(pt_dev_fold(t, b, "step"), 0, "%s", pt_last_error(t));
    pt_section_stats d = get(t, "step/dense"), s = get(t, "step/sparse");
    cr_assert_float_eq(d.total_ms, (1200000 - 2000 * 100) * 0.25 / 1e6, 1e-12, "%g", d.total_ms);
    cr_assert_float_eq(d.overhead_ms, 2000 * 100 * 0.25 / 1e6, 1e-12, "%g", d.overhead_ms);
    cr_assert_float_eq(s.total_ms, (2000000 - 10 * 100) * 0.25 / 1e6, 1e-12);
    cr_assert_eq(d.too_short, 1, "125 ns a mark, under 10 x 25 ns");
    cr_assert_eq(s.too_short, 0);
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_float_eq(dc.mark_cycles, 100, 0);
    char *r = report(t, PT_VIEW_TREE);
    cr_assert_not_null(strstr(r, "a mark costs 100.0 cycles (25.00 ns), measured, taken out of "
                                 "every phase"), "%s", r);
    cr_assert_not_null(strstr(row_of(r, "dense"), "[short]"), "%s", r);
    free(r);
    pt_dev_records_free(b);
}

/* The calibration kernel's marks: cycles charged over marks counted. */
Test(honest, the_calibration_kernel_measures_a_mark)
{
    pt__calib cal;
    fake.cal_mark_cycles = 2048 * 37;
    fake.cal_marks = 2048;
    pt__calib_get(pt__cuda(), 0, &cal);
    if (pt__fatbin_calibrate_size == 0)
        cr_skip_test("built with CUDA=0: no calibration kernel");
    cr_assert_eq(cal.ok, 1, "%s", cal.why);
    cr_assert_float_eq(cal.mark_cycles, 37.0, 1e-12);
    pt__calib_get(NULL, -1, &cal);
    cr_assert_gt(cal.mark_cycles, 0.0, "host mode measures its own marks");
}

Test(honest, no_marks_counted_leaves_the_cost_unknown)
{
    pt__calib cal;
    pt__calib_get(pt__cuda(), 0, &cal);
    cr_assert_eq(cal.mark_cycles, 0.0, "nothing is made up");
}

/* ---- the CPU's view of a launch ---------------------------------- */

Test(honest, no_rates_from_a_launch_the_cpu_clock_timed)
{
    fake.count_err = 35; /* cudaErrorInsufficientDriver */
    t = test_timing(&clk, "nodrv", PT_GPU_EVENTS);
    pt_start_gpu(t, "k", 0);
    clk.now += 1000;
    pt_stop_gpu(t, "k", 0, .flops = 7.6e9, .read = 1e9);
    pt_section_stats k = get(t, "k");
    cr_assert_eq(k.cpu_clock, 1);
    cr_assert_eq(k.gflops, 0.0, "no GFLOP/s for a kernel that may not have run");
    cr_assert_eq(k.read_gbs, 0.0);
    cr_assert_float_eq(k.flops, 7.6e9, 0, "what was declared is kept");
    pt_run_stats r = run_stats(t);
    cr_assert_eq(r.error_count, 0, "a machine without a driver is no error: %s",
                 pt_last_error(t));
    cr_assert_eq(r.note_count, 1, "but a note");
    char *s = report(t, PT_VIEW_TREE);
    cr_assert_not_null(strstr(line_with(s, "k [gpu]"), "[cpu clock]"), "%s", s);
    cr_assert_null(strstr(s, "7600"), "no rate printed:\n%s", s);
    cr_assert_not_null(strstr(s, "rates left out: "), "%s", s);
    cr_assert_null(strstr(s, "1 error"), "%s", s);
    cr_assert_not_null(strstr(s, "1 note; last: "), "%s", s);
    free(s);
}

/* A GPU section the CPU clock timed, merged with a CPU section at the
 * same path either way round, keeps its [cpu clock] mark: every
 * occurrence the CPU clock timed is counted, and no rate is made. */
Test(honest, a_cpu_clocked_gpu_section_merged_with_a_cpu_one_keeps_its_mark)
{
    test_clock c2;
    void *gpu, *cpu;
    size_t ngpu, ncpu;
    pt_timing *host = test_timing(&c2, "host", PT_CPU), *other;

    fake.count_err = 35; /* cudaErrorInsufficientDriver */
    t = test_timing(&clk, "nodrv", PT_GPU_EVENTS);
    pt_start_gpu(t, "k", 0);
    clk.now += 1000;
    pt_stop_gpu(t, "k", 0, .flops = 7.6e9);
    TEST_SPAN(host, &c2, "k", 2000);
    TEST_SPAN(host, &c2, "k", 2000);
    cr_assert_eq(pt_pack(t, &gpu, &ngpu), 0);
    cr_assert_eq(pt_pack(host, &cpu, &ncpu), 0);
    cr_assert_eq(pt_unpack_merge(host, gpu, ngpu), 0, "%s", pt_last_error(host));
    pt_section_stats k = get(host, "k");
    cr_assert_eq(k.count, 3);
    cr_assert_eq(k.cpu_clock, 3, "the CPU section's 2 and the GPU one's 1");
    cr_assert_eq(k.gflops, 0.0, "no rate");
    other = pt_create("other", PT_CPU);
    cr_assert_eq(pt_unpack_merge(other, cpu, ncpu), 0);
    cr_assert_eq(pt_unpack_merge(other, gpu, ngpu), 0);
    cr_assert_eq(get(other, "k").cpu_clock, 3, "a GPU section into a CPU one");
    pt_destroy(other);
    other = pt_create("other", PT_CPU);
    cr_assert_eq(pt_unpack_merge(other, gpu, ngpu), 0);
    cr_assert_eq(pt_unpack_merge(other, cpu, ncpu), 0);
    cr_assert_eq(get(other, "k").cpu_clock, 3, "a CPU section into a GPU one");
    char *s = report(other, PT_VIEW_TREE);
    cr_assert_not_null(strstr(line_with(s, "k [gpu]"), "[cpu clock]"), "%s", s);
    free(s);
    free(gpu);
    free(cpu);
    pt_destroy(other);
    pt_destroy(host);
}

Test(honest, events_that_worked_keep_their_rates)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    pt_start_gpu(t, "k", 0);
    fake.now_ms += 1.0;
    pt_stop_gpu(t, "k", 0, .flops = 1e9);
    pt_section_stats k = get(t, "k");
    cr_assert_eq(k.cpu_clock, 0);
    cr_assert_float_eq(k.gflops, 1000.0, 1e-9);
    cr_assert_eq(run_stats(t).gpu_fallback_why[0], '\0', "no reason when there was no fallback");
}

/* A failed event record: that occurrence is marked, with CUDA's reason. */
Test(honest, a_failed_cuda_call_says_so)
{
    t = test_timing(&clk, "fail", PT_GPU_EVENTS);
    fake.record_err = 700;
    pt_start_gpu(t, "k", 0);
    clk.now += 1000;
    pt_stop_gpu(t, "k", 0);
    cr_assert_eq(get(t, "k").cpu_clock, 1);
    cr_assert(strstr(run_stats(t).gpu_fallback_why, "a CUDA call failed"), "%s",
              run_stats(t).gpu_fallback_why);
    cr_assert_eq(pt_error_count_of(t, PT_ECUDA), 1, "a failed call is an error");
}

/* ---- the runtime loaded before any section ----------------------- */

Test(honest, the_device_is_probed_as_the_timing_is_made)
{
    t = test_timing(&clk, "probe", PT_GPU_EVENTS);
    long long at_create = fake.count_calls;
    cr_assert_gt(at_create, 0, "probed by pt_create, before any clock read");
    pt_start(t, "outer");
    pt_start_gpu(t, "k", 0);
    fake.now_ms += 1.0;
    pt_stop_gpu(t, "k", 0);
    pt_stop(t, "outer");
    cr_assert_eq(fake.count_calls, at_create, "no probe inside a section");
    pt_reset(t);
    pt_start_gpu(t, "k", 0);
    pt_stop_gpu(t, "k", 0);
    cr_assert_eq(fake.count_calls, at_create, "nor after a reset");
}

Test(honest, without_events_nothing_is_loaded)
{
    t = test_timing(&clk, "cpu", PT_CPU);
    cr_assert_eq(fake.count_calls, 0);
}

/* ---- the kernel table -------------------------------------------- */

Test(honest, the_kernel_table_lists_launches_and_their_phases)
{
    const char *names[] = { "load", "math" };
    pt__calib_set(-1, 4.0, 1000.0);
    t = test_timing(&clk, "kernels", PT_GPU_EVENTS);
    pt_dev_records *b = pt_dev_records_create(t, 1, 2, names, PT_DEV_HOST, 0);
    pt_start(t, "step");
    TEST_SPAN(t, &clk, "host work", 3000000);
    for (int i = 0; i < 3; i++) {
        pt_start_gpu(t, "gemm", 0);
        fake.now_ms += 1.0 + i;
        pt_stop_gpu(t, "gemm", 0);
    }
    pt_start_gpu(t, "fft", 0);
    slot(b, 0, 2000000, 500000, (long long[]){ 600000, 1000000 }, (long long[]){ 1, 1 });
    fake.now_ms += 0.5;
    pt_stop_gpu(t, "fft", 0);
    cr_assert_eq(pt_dev_fold(t, b, "fft"), 0, "%s", pt_last_error(t));
    pt_stop(t, "step");
    char *s = report(t, PT_VIEW_KERNELS);
    cr_assert_not_null(strstr(s, "Kernel / phase"), "%s", s);
    cr_assert_null(strstr(s, "host work"), "no CPU section:\n%s", s);
    const char *g = line_with(s, "step/gemm");
    cr_assert_not_null(strstr(g, "[gpu]"), "%s", g);
    cr_assert_not_null(strstr(g, " 3 "), "calls: %s", g);
    cr_assert_not_null(strstr(g, "6.000"), "total: %s", g);
    cr_assert_not_null(strstr(g, "2.500"), "mean of the later calls: %s", g);
    cr_assert_not_null(strstr(line_with(s, "step/fft/load"), "[phase]"), "%s", s);
    cr_assert_not_null(strstr(line_with(s, "TOTAL"), "6.500"), "the launches' sum:\n%s", s);
    free(s);
    s = report(t, PT_VIEW_TABLE);
    cr_assert_not_null(strstr(s, "host work"));
    cr_assert_not_null(strstr(line_with(s, "step/gemm"), "[gpu]"), "GPU rows marked:\n%s", s);
    cr_assert_null(strstr(line_with(s, "step/host work"), "[gpu]"));
    free(s);
    pt_dev_records_free(b);
}

Test(honest, a_kernel_table_without_launches_says_so)
{
    t = test_timing(&clk, "none", PT_CPU);
    TEST_SPAN(t, &clk, "a", 1000);
    char *s = report(t, PT_VIEW_KERNELS);
    cr_assert_not_null(strstr(s, "(no GPU launches)"), "%s", s);
    free(s);
}

/* ---- ranks ------------------------------------------------------- */

Test(honest, ranks_merged_give_each_sections_spread)
{
    test_clock c1;
    void *buf;
    size_t len;
    t = test_timing(&clk, "rank0", PT_CPU);
    pt_timing *r1 = test_timing(&c1, "rank1", PT_CPU), *r2;
    test_clock c2;
    r2 = test_timing(&c2, "rank2", PT_CPU);
    TEST_SPAN(t, &clk, "solve", 10000000);
    TEST_SPAN(r1, &c1, "solve", 30000000);
    TEST_SPAN(r1, &c1, "io", 5000000);
    TEST_SPAN(r2, &c2, "solve", 20000000);
    cr_assert_eq(pt_pack(r1, &buf, &len), 0);
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 1), 0, "%s", pt_last_error(t));
    free(buf);
    cr_assert_eq(pt_unpack_merge_rank(t, NULL, 0, 3), 0, "a rank that sent nothing");
    cr_assert_eq(pt_pack(r2, &buf, &len), 0);
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 2), 0, "%s", pt_last_error(t));
    free(buf);
    pt_section_stats s = get(t, "solve"), io = get(t, "io");
    cr_assert_eq(s.count, 3);
    cr_assert_eq(s.ranks, 3);
    cr_assert_float_eq(s.rank_min_ms, 10, 1e-12);
    cr_assert_float_eq(s.rank_mean_ms, 20, 1e-12);
    cr_assert_float_eq(s.rank_max_ms, 30, 1e-12);
    cr_assert_eq(s.rank_slowest, 1);
    cr_assert_eq(io.ranks, 1, "only rank 1 has it");
    pt_run_stats r = run_stats(t);
    cr_assert_eq(r.ranks, 4);
    cr_assert_eq(r.ranks_empty, 1);
    char *txt = report(t, PT_VIEW_TREE);
    cr_assert_not_null(strstr(txt, "ranks: 4 merged (this one and 3 gathered, of which 1 sent "
                                   "nothing)"), "%s", txt);
    cr_assert_not_null(strstr(txt, "ranks: 3 with it; each rank's total min 10.000, mean "
                                   "20.000, max 30.000 ms; slowest rank 1"), "%s", txt);
    free(txt);
    pt_timing *none = pt_create("rank4", PT_CPU);
    cr_assert_eq(pt_pack(none, &buf, &len), 0);
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 4), 0, "%s", pt_last_error(t));
    free(buf);
    pt_destroy(none);
    cr_assert_eq(run_stats(t).ranks, 5);
    cr_assert_eq(run_stats(t).ranks_empty, 2, "an empty tree is a rank with nothing");
    cr_assert_eq(pt_unpack_merge_rank(t, NULL, 4, 5), PT_EINVAL);
    cr_assert_eq(pt_unpack_merge_rank(t, "x", 1, -1), PT_EINVAL);
    pt_destroy(r1);
    pt_destroy(r2);
}

/* A rank merged twice would count its sections twice and itself as two
 * ranks; rank 0 is the receiving timing's own. Both are refused with
 * nothing merged, whether the rank sent a tree or nothing. */
Test(honest, the_same_rank_merged_twice_is_refused)
{
    test_clock c1;
    void *buf;
    size_t len;
    pt_timing *r1 = test_timing(&c1, "rank1", PT_CPU);
    t = test_timing(&clk, "rank0", PT_CPU);
    TEST_SPAN(t, &clk, "solve", 10000000);
    TEST_SPAN(r1, &c1, "solve", 30000000);
    cr_assert_eq(pt_pack(r1, &buf, &len), 0);
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 1), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 1), PT_EINVAL, "rank 1 again");
    cr_assert(strstr(pt_last_error(t), "rank 1 was merged into this timing already"), "%s",
              pt_last_error(t));
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 0), PT_EINVAL, "rank 0 is t's own");
    cr_assert(strstr(pt_last_error(t), "rank 0 is t's own"), "%s", pt_last_error(t));
    cr_assert_eq(pt_unpack_merge_rank(t, NULL, 0, 2), 0, "rank 2 sent nothing");
    cr_assert_eq(pt_unpack_merge_rank(t, NULL, 0, 2), PT_EINVAL, "and cannot again");
    /* Ranks out of order are still each merged once. */
    for (int r = 9; r >= 3; r -= 2)
        cr_assert_eq(pt_unpack_merge_rank(t, buf, len, r), 0, "rank %d", r);
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 5), PT_EINVAL, "rank 5 again");
    cr_assert_eq(pt_unpack_merge_rank(t, buf, len, 4), 0, "rank 4 between them");
    free(buf);
    pt_section_stats s = get(t, "solve");
    cr_assert_eq(s.count, 7, "rank 0, 1, 3, 4, 5, 7 and 9: once each");
    cr_assert_eq(s.ranks, 7);
    cr_assert_eq(run_stats(t).ranks, 8, "rank 2 too");
    pt_destroy(r1);
}
