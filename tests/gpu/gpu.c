/* The GPU suite: ptkit against kernels of known length on a real device.
 *
 * Every kernel spins on %globaltimer, so the truth is known: a phase of
 * `ns` lasts ns (within one globaltimer tick). Each folded phase's
 * per-block mean must be within 1% (or one tick) of it, the children of a
 * launch must add up to its event time, and an event-timed kernel must
 * match the span the kernel saw itself within 1%. Without a device every
 * test is skipped with the reason. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common.h"
#include "gpu/calibrate.h"
#include "gpu/records.h"
#include "gpu/event_pool.h"
#include "gpu/fold.h"
#include "gpu/queue.h"
#include "kernels.h"

static pt_timing *t;
static pt_stream s;

static void require_gpu(void)
{
    char why[256];
    if (!gpu_available(why, sizeof why))
        cr_skip_test("no CUDA device: %s", why);
    t = pt_create("gpu", PT_GPU_EVENTS);
    cr_assert_not_null(t);
    s = gpu_stream_create();
    cr_assert_not_null(s, "cudaStreamCreateWithFlags failed");
}

static void release(void)
{
    pt_destroy(t);
    t = NULL;
    gpu_stream_destroy(s);
    s = NULL;
}

TestSuite(gpu, .init = require_gpu, .fini = release);

static pt_section_stats get(const char *path)
{
    pt_section_stats st;
    const pt_section *sec = pt_find(t, path);
    cr_assert_not_null(sec, "pt_find(\"%s\") found nothing", path);
    cr_assert_eq(pt_section_get(t, sec, &st), 0);
    return st;
}

/* Launches, times and folds `runs` spins of the case into "spin". */
static void spin_runs(pt_dev_records *b, int nphases, int blocks, long long ns, int runs)
{
    int e = gpu_spin_phases(pt_dev_arg(b), nphases, blocks, ns, s);
    cr_assert_eq(e, 0, "warm-up launch: %s", gpu_error(e));
    cr_assert_eq(gpu_stream_sync(s), 0);
    for (int i = 0; i < runs; i++) {
        cr_assert_eq(pt_dev_reset(b, s), 0, "%s", pt_last_error(t));
        pt_start_gpu(t, "spin", s);
        e = gpu_spin_phases(pt_dev_arg(b), nphases, blocks, ns, s);
        cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
        pt_stop_gpu(t, "spin", s);
        int rc = pt_dev_fold(t, b, "spin");
        cr_assert_eq(rc, 0, "pt_dev_fold: %s", pt_last_error(t));
    }
    int rc = pt_sync(t);
    cr_assert_eq(rc, 0, "pt_sync: %s", pt_last_error(t));
}

typedef struct spin_case {
    long long ns;             /* each phase's length */
    int nphases;
    int blocks;
} spin_case;

ParameterizedTestParameters(gpu, folded_phases_match_the_spin)
{
    /* Every length with every phase count; the grid sizes rotate so each
     * length and each phase count meets 1, 100 and 10,000 blocks. */
    static spin_case cases[] = {
        { 10000, 1, 1 },       { 10000, 4, 100 },    { 10000, 16, 10000 },
        { 100000, 1, 100 },    { 100000, 4, 10000 }, { 100000, 16, 1 },
        { 1000000, 1, 10000 }, { 1000000, 4, 1 },    { 1000000, 16, 100 },
        { 10000000, 1, 1 },    { 10000000, 4, 100 }, { 10000000, 16, 1 },
    };
    return cr_make_param_array(spin_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(spin_case *c, gpu, folded_phases_match_the_spin)
{
    const int runs = 3;
    pt_dev_records *b = pt_dev_records_create(t, c->blocks, c->nphases, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(b->host, 0, "a device buffer");
    spin_runs(b, c->nphases, c->blocks, c->ns, runs);

    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.calibrated, 1, "calibrated: %s", pt_last_error(t));
    double truth = (double)c->ns / 1e6, tick = dc.tick_ns / 1e6;
    double tol = fmax(0.01 * truth, tick);
    double phases = 0;
    for (int p = 0; p < c->nphases; p++) {
        char path[32];
        snprintf(path, sizeof path, "spin/phase %d", p);
        pt_section_stats ph = get(path);
        cr_assert_eq(ph.blocks, (uint64_t)runs * (uint64_t)c->blocks);
        cr_assert_float_eq(ph.hits, (double)runs * c->blocks, 0);
        cr_assert(fabs(ph.block_mean_ms - truth) <= tol,
                  "%d phases x %lld ns x %d blocks: phase %d per-block mean %.6f ms, truth %.6f ms,"
                  " tolerance %.6f ms (tick %.0f ns)",
                  c->nphases, c->ns, c->blocks, p, ph.block_mean_ms, truth, tol, dc.tick_ns);
        phases += ph.total_ms;
    }
    pt_section_stats launch = get("spin"), un = get("spin/(unattributed)");
    cr_assert_eq(launch.count, (uint64_t)runs);
    cr_assert(fabs(phases + un.total_ms - launch.total_ms) <= 0.01 * launch.total_ms,
              "phases %.6f + unattributed %.6f vs launch %.6f ms", phases, un.total_ms,
              launch.total_ms);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    cr_log_info("%2d phases x %8lld ns x %5d blocks: launch %.4f ms, unattributed %.4f ms, "
                "%lld blocks own rate, %lld calibrated, tick %.0f ns, %.3f GHz",
                c->nphases, c->ns, c->blocks, launch.total_ms / runs, un.total_ms / runs,
                dc.blocks_own, dc.blocks_cal, dc.tick_ns, dc.cycles_per_ns);
    pt_dev_records_free(b);
}

Test(gpu, event_time_of_a_known_kernel)
{
    const long long lengths[] = { 1000000, 10000000 };
    const char *names[] = { "1 ms", "10 ms" };
    long long measured;
    cr_assert_eq(gpu_spin_plain(100000, s), 0);
    cr_assert_eq(gpu_stream_sync(s), 0);
    for (int i = 0; i < 2; i++) {
        pt_start_gpu(t, names[i], s);
        int e = gpu_spin_plain(lengths[i], s);
        cr_assert_eq(e, 0, "%s", gpu_error(e));
        pt_stop_gpu(t, names[i], s);
        cr_assert_eq(gpu_spin_plain_read(&measured), 0);
        pt_section_stats st = get(names[i]);
        double truth = (double)measured / 1e6;
        cr_assert(fabs(st.total_ms - truth) <= 0.01 * truth,
                  "events %.6f ms, the kernel's own globaltimer span %.6f ms", st.total_ms, truth);
        cr_assert_eq(st.gpu, 1);
    }
    cr_assert_eq(run_stats(t).gpu_timing, 1);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

Test(gpu, one_block_phases_nearly_fill_the_launch)
{
    pt_dev_records *b = pt_dev_records_create(t, 1, 4, NULL, PT_DEV_AGGREGATE, 0);
    spin_runs(b, 4, 1, 1000000, 3);
    pt_section_stats launch = get("spin"), un = get("spin/(unattributed)");
    double phases = launch.total_ms - un.total_ms;
    cr_assert(fabs(phases / 3 - 4.0) <= 0.04, "4 phases of 1 ms: %.6f ms per launch", phases / 3);
    cr_assert(un.total_ms <= 0.05 * launch.total_ms,
              "a single block fills its launch but for the launch overhead: %.6f of %.6f ms",
              un.total_ms, launch.total_ms);
    pt_dev_records_free(b);
}

Test(gpu, runtime_phases_and_helpers_fold_like_constant_ones)
{
    /* 4 phases of 100 us in 100 blocks, the phases read from memory and
     * half of them marked in a helper: the same figures as constants. */
    const int runs = 3, blocks = 100, np = 4;
    const long long ns = 100000;
    pt_dev_records *b = pt_dev_records_create(t, blocks, np, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    for (int i = 0; i < runs; i++) {
        cr_assert_eq(pt_dev_reset(b, s), 0, "%s", pt_last_error(t));
        pt_start_gpu(t, "spin", s);
        int e = gpu_spin_phases_runtime(pt_dev_arg(b), np, blocks, ns, s);
        cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
        pt_stop_gpu(t, "spin", s);
        cr_assert_eq(pt_dev_fold(t, b, "spin"), 0, "pt_dev_fold: %s", pt_last_error(t));
    }
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    double truth = (double)ns / 1e6, tol = fmax(0.01 * truth, dc.tick_ns / 1e6);
    for (int p = 0; p < np; p++) {
        char path[32];
        snprintf(path, sizeof path, "spin/phase %d", p);
        pt_section_stats ph = get(path);
        cr_assert_float_eq(ph.hits, (double)runs * blocks, 0, "phase %d hits %.0f", p, ph.hits);
        cr_assert(fabs(ph.block_mean_ms - truth) <= tol, "phase %d: %.6f ms per block, truth %.6f",
                  p, ph.block_mean_ms, truth);
    }
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(gpu, a_trace_buffer_on_a_kernel_without_trace_stores_drops_every_mark)
{
    /* The suite's kernels are built without PT_DEV_TRACING. */
    const int blocks = 10, np = 4;
    pt_dev_records *b = pt_dev_records_create(t, blocks, np, NULL, PT_DEV_TRACE, 8);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, s), 0, "%s", pt_last_error(t));
    pt_start_gpu(t, "spin", s);
    int e = gpu_spin_phases(pt_dev_arg(b), np, blocks, 10000, s);
    cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
    pt_stop_gpu(t, "spin", s);
    pt_dev_fold(t, b, "spin"); /* the device's fold completes at pt_sync */
    pt_sync(t);
    cr_assert_eq(pt_error_count_of(t, PT_EFULL), 1, "%s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "PT_DEV_TRACING"), "%s", pt_last_error(t));
    pt_run_stats run;
    cr_assert_eq(pt_run_get(t, &run), 0);
    cr_assert_eq(run.dropped, (uint64_t)blocks * np, "%llu dropped",
                 (unsigned long long)run.dropped);
    pt_dev_records_free(b);
}

/* A grid past the threshold is reduced on the device; folding the same
 * records again with the threshold out of reach copies them all back. The
 * two folds must agree. */
Test(gpu, the_device_reduction_agrees_with_the_host_fold)
{
    const int blocks = 70000;
    pt_dev_records *b = pt_dev_records_create(t, blocks, 4, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_geq(blocks, pt__reduce_min_slots);
    spin_runs(b, 4, blocks, 10000, 1);
    cr_assert_not_null(b->red_dev, "the fold reduced on the device: %s", pt_last_error(t));
    pt__reduce_min_slots = INT_MAX;
    cr_assert_eq(pt_dev_fold(t, b, "spin"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    for (int p = 0; p < 4; p++) {
        char path[32];
        snprintf(path, sizeof path, "spin/phase %d", p);
        const pt_section *sec = pt_find(t, path);
        cr_assert_not_null(sec);
        cr_assert_eq(sec->count, 2);
        cr_assert(fabs(sec->first_ns - sec->mean_ns) <= 1e-9 * sec->first_ns + 1e-6,
                  "phase %d: reduced %.3f ns, copied %.3f ns", p, sec->first_ns, sec->mean_ns);
        cr_assert_eq(sec->phase->blocks, 2ull * blocks);
        cr_assert_float_eq(sec->phase->hits, 2.0 * blocks, 0);
    }
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(gpu, thousands_of_launches_stay_lazy_and_bounded)
{
    cr_assert_eq(gpu_spin_plain(10000, s), 0);
    for (int i = 0; i < 3000; i++) {
        pt_start_gpu(t, "short", s);
        gpu_spin_plain(10000, s);
        pt_stop_gpu(t, "short", s);
        cr_assert_leq(pt__queue_pending(t), 1025);
    }
    cr_assert_leq(pt__events_alive(t), 2 * 1025 + 2);
    pt_section_stats st = get("short");
    cr_assert_eq(st.count, 3000);
    cr_assert(st.mean_ms >= 0.0099 && st.mean_ms < 0.1, "10 us kernels: mean %.6f ms", st.mean_ms);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

Test(gpu, the_calibration_is_plausible)
{
    pt__calib cal;
    int dev = 0;
    pt__cuda()->GetDevice(&dev);
    pt__calib_get(pt__cuda(), dev, &cal);
    cr_assert_eq(cal.ok, 1, "%s", cal.why);
    cr_assert(cal.cycles_per_ns > 0.2 && cal.cycles_per_ns < 5.0, "%.4f GHz", cal.cycles_per_ns);
    cr_assert(cal.tick_ns > 0 && cal.tick_ns <= 2000, "tick %.0f ns", cal.tick_ns);
    cr_log_info("%s: SM clock %.4f GHz, globaltimer tick %.0f ns, measured on SM %d", cal.name,
                cal.cycles_per_ns, cal.tick_ns, cal.smid);
}
