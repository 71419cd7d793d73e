/* The GPU suite: ptkit against kernels of known length on a CUDA device,
 * real or simulated.
 *
 * Every kernel spins on %globaltimer, so the truth is known: a phase of
 * `ns` lasts ns (within one globaltimer tick). Each folded phase's
 * per-block mean must be within 1% (or one tick) of it, the children of a
 * launch must add up to its event time within 1%, and an event-timed
 * kernel must match the span the kernel saw itself within 1%.
 *
 * Two sizes (PT_GPU_SCALE, `make test-gpu GPU_SCALE=sim`): "hw" (the
 * default) for hardware, spins of 10 us to 10 ms on 1 to 10,000 blocks;
 * "sim" for a simulated GPU (GPGPU-Sim, docs/gpu.md), where a cycle costs
 * microseconds of host time, spins of a few microseconds on a few blocks:
 * the same assertions, at a size the simulator finishes in minutes.
 * Without a device every test is skipped with the reason. */
#define _GNU_SOURCE /* setenv, popen */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common.h"
#include "pt_fold_math.h"
#include "gpu/calibrate.h"
#include "gpu/cuda.h"
#include "gpu/records.h"
#include "gpu/event_pool.h"
#include "gpu/fold.h"
#include "gpu/queue.h"
#include "kernels.h"

static pt_timing *t;
static pt_stream s;

/* 1 at the simulation size. */
static int sim(void)
{
    const char *v = getenv("PT_GPU_SCALE");
    return v && strcmp(v, "sim") == 0;
}

/* `hw` on hardware, `simulated` on a simulated GPU. */
#define SIZE(hw, simulated) (sim() ? (simulated) : (hw))

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

static pt_dev_clock dev_clock(void)
{
    pt_dev_clock dc;
    cr_assert_eq(pt_dev_clock_get(t, &dc), 0);
    return dc;
}

/* Launches, times and folds `runs` spins into "spin", after one warm-up
 * launch that is not timed; *actual gets what the recording threads saw of
 * each phase, its spins and its windows (gpu_spin_actual), over the timed
 * runs. */
static void spin_runs(gpu_mode m, pt_dev_records *b, int nphases, int blocks, int threads,
                      long long ns, int runs, gpu_spins *actual)
{
    int e = gpu_spin_phases(m, pt_dev_arg(b), nphases, blocks, threads, ns, 1, s);
    cr_assert_eq(e, 0, "warm-up launch: %s", gpu_error(e));
    cr_assert_eq(gpu_stream_sync(s), 0);
    cr_assert_eq(gpu_spin_actual(m, NULL), 0);
    for (int i = 0; i < runs; i++) {
        cr_assert_eq(pt_dev_reset(b, s), 0, "%s", pt_last_error(t));
        pt_start_gpu(t, "spin", s);
        e = gpu_spin_phases(m, pt_dev_arg(b), nphases, blocks, threads, ns, 1, s);
        cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
        pt_stop_gpu(t, "spin", s);
        int rc = pt_dev_fold(t, b, "spin");
        cr_assert_eq(rc, 0, "pt_dev_fold: %s", pt_last_error(t));
    }
    int rc = pt_sync(t);
    cr_assert_eq(rc, 0, "pt_sync: %s", pt_last_error(t));
    cr_assert_eq(gpu_spin_actual(m, actual), 0);
}

/* Each of the `np` phases under "spin" holds `slots` records per run, one
 * hit each, and a per-block mean that the kernel's own %globaltimer reads
 * bound (where actual is NULL: within 1%, or a tick, of ns): at least the
 * spins the recording threads saw inside the phase, at most the windows
 * from a read before the mark that opened it to one after the mark that
 * closed it, each within 1% of the spins or a tick; and where no SM held
 * two blocks at once, within 1% (or a tick) of the spins themselves. A
 * spin lasts a little longer than ns (its loop's last turn; more where
 * many warps share an SM); what a phase holds beside its spin (its marks,
 * the loop around the spin) is logged: on a full SM every instruction
 * there waits its turn behind the other warps' spins (an H100 with 32
 * one-warp blocks an SM: 10 us phases some 200 to 500 ns over their
 * spins, inside their windows). With the "(unattributed)" row the phases
 * add up to the event-timed launch within 1%. */
static void check_spin(const char *what, int np, long long slots, long long ns, int runs,
                       const gpu_spins *actual)
{
    pt_dev_clock dc = dev_clock();
    cr_assert_eq(dc.calibrated, 1, "calibrated: %s", pt_last_error(t));
    pt_section_stats launch = get("spin"), un = get("spin/(unattributed)");
    /* One block an SM at most: no other warp delays the code between a
     * spin and its marks. */
    const int alone = launch.sm_resident <= 1;
    double phases = 0, worst = 0, worst_rel = 0, over = 0, beside = 0, beside_rel = 0;
    int beside_p = 0;
    for (int p = 0; p < np; p++) {
        char path[32];
        double n = (double)runs * (double)slots;
        double spin = actual ? (double)actual->spin[p] / n / 1e6 : (double)ns / 1e6;
        double win = actual ? (double)actual->window[p] / n / 1e6 : spin;
        double tol = fmax(0.01 * spin, dc.tick_ns / 1e6);
        snprintf(path, sizeof path, "spin/phase %d", p);
        pt_section_stats ph = get(path);
        cr_assert_eq(ph.blocks, (uint64_t)(runs * slots), "%s: phase %d: %llu records", what, p,
                     (unsigned long long)ph.blocks);
        cr_assert_float_eq(ph.hits, (double)(runs * slots), 0, "%s: phase %d: %.0f hits", what,
                           p, ph.hits);
        cr_assert(ph.block_mean_ms >= spin - tol && ph.block_mean_ms <= win + tol,
                  "%s: phase %d per-block mean %.6f ms, outside its spins %.6f ms and its "
                  "windows %.6f ms (asked %.6f ms), tolerance %.6f ms (tick %.0f ns)", what, p,
                  ph.block_mean_ms, spin, win, (double)ns / 1e6, tol, dc.tick_ns);
        cr_assert(!alone || fabs(ph.block_mean_ms - spin) <= tol,
                  "%s: phase %d per-block mean %.6f ms, its spins %.6f ms (blocks alone on their "
                  "SMs), tolerance %.6f ms", what, p, ph.block_mean_ms, spin, tol);
        /* Off its bounds: 0 inside them. */
        double off = fmax(0, fmax(spin - ph.block_mean_ms, ph.block_mean_ms - win));
        phases += ph.total_ms;
        if (off > worst) {
            worst = off;
            worst_rel = off / spin;
        }
        if (ph.block_mean_ms - spin > beside) {
            beside = ph.block_mean_ms - spin;
            beside_rel = beside / spin;
            beside_p = p;
        }
        over = fmax(over, spin - (double)ns / 1e6);
    }
    cr_assert_eq(launch.count, (uint64_t)runs);
    cr_assert(fabs(phases + un.total_ms - launch.total_ms) <= 0.01 * launch.total_ms,
              "%s: phases %.6f + unattributed %.6f vs launch %.6f ms", what, phases, un.total_ms,
              launch.total_ms);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    cr_log_info("%s: %d phases x %lld ns x %lld records: launch %.4f ms, unattributed %.4f ms, "
                "%lld records own rate, %lld calibrated, tick %.0f ns, %.3f GHz, mark %.1f cycles; "
                "worst phase off %s by %.3f%% (%.0f ns); most beside its spin: phase %d, "
                "%.0f ns (%.3f%%); spins over their %lld ns by up to %.0f ns; phases + "
                "unattributed off the launch by %.3f%%",
                what, np, ns, slots, launch.total_ms / runs, un.total_ms / runs, dc.blocks_own,
                dc.blocks_cal, dc.tick_ns, dc.cycles_per_ns, dc.mark_cycles,
                actual ? "its spins and windows" : "the asked length", 100 * worst_rel,
                worst * 1e6, beside_p, beside * 1e6, 100 * beside_rel, ns, over * 1e6,
                100 * fabs(phases + un.total_ms - launch.total_ms) / launch.total_ms);
}

/* ---- phases against spins ---------------------------------------- */

typedef struct spin_case {
    long long ns;             /* each phase's length */
    int nphases;
    int blocks;
} spin_case;

ParameterizedTestParameters(gpu, folded_phases_match_the_spin)
{
    /* Every length with every phase count; the grid sizes rotate so each
     * length and each phase count meets each grid size. */
    static spin_case hw[] = {
        { 10000, 1, 1 },       { 10000, 4, 100 },    { 10000, 16, 10000 },
        { 100000, 1, 100 },    { 100000, 4, 10000 }, { 100000, 16, 1 },
        { 1000000, 1, 10000 }, { 1000000, 4, 1 },    { 1000000, 16, 100 },
        { 10000000, 1, 1 },    { 10000000, 4, 100 }, { 10000000, 16, 1 },
    };
    static spin_case simulated[] = {
        { 5000, 1, 1 },  { 5000, 4, 8 },  { 5000, 16, 2 },
        { 20000, 1, 8 }, { 20000, 4, 1 }, { 10000, 16, 4 },
    };
    return sim() ? cr_make_param_array(spin_case, simulated, sizeof simulated / sizeof *simulated)
                 : cr_make_param_array(spin_case, hw, sizeof hw / sizeof *hw);
}

ParameterizedTest(spin_case *c, gpu, folded_phases_match_the_spin)
{
    const int runs = SIZE(3, 2);
    pt_dev_records *b = pt_dev_records_create(t, c->blocks, c->nphases, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(b->host, 0, "a device buffer");
    gpu_spins actual;
    spin_runs(GPU_SHARED, b, c->nphases, c->blocks, 32, c->ns, runs, &actual);
    check_spin("shared memory", c->nphases, c->blocks, c->ns, runs, &actual);
    pt_dev_records_free(b);
}

/* Shared memory, registers and a record per warp fold the same spins
 * alike: 3 phases in blocks of two warps. */
ParameterizedTestParameters(gpu, every_mode_folds_the_spin)
{
    static gpu_mode modes[] = { GPU_SHARED, GPU_REG, GPU_WARP };
    return cr_make_param_array(gpu_mode, modes, 3);
}

ParameterizedTest(gpu_mode *m, gpu, every_mode_folds_the_spin)
{
    const int blocks = SIZE(200, 4), threads = 64, np = 3, runs = 2;
    const long long ns = SIZE(100000, 10000);
    /* A record per warp: two a block. */
    const int slots = *m == GPU_WARP ? 2 * blocks : blocks;
    pt_dev_records *b = pt_dev_records_create(t, slots, np, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    gpu_spins actual;
    spin_runs(*m, b, np, blocks, threads, ns, runs, &actual);
    check_spin(gpu_mode_name(*m), np, slots, ns, runs, &actual);
    pt_dev_records_free(b);
}

ParameterizedTestParameters(gpu, runtime_phases_and_helpers_fold_like_constant_ones)
{
    static gpu_mode modes[] = { GPU_SHARED, GPU_REG };
    return cr_make_param_array(gpu_mode, modes, 2);
}

ParameterizedTest(gpu_mode *m, gpu, runtime_phases_and_helpers_fold_like_constant_ones)
{
    /* 4 phases in `blocks` blocks, the phases read from memory and half of
     * them marked in a helper: the same figures as constants. */
    const int runs = 2, blocks = SIZE(100, 4), np = 4;
    const long long ns = SIZE(100000, 20000);
    gpu_spins actual;
    pt_dev_records *b = pt_dev_records_create(t, blocks, np, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(gpu_spin_actual(*m, NULL), 0);
    for (int i = 0; i < runs; i++) {
        cr_assert_eq(pt_dev_reset(b, s), 0, "%s", pt_last_error(t));
        pt_start_gpu(t, "spin", s);
        int e = gpu_spin_phases_runtime(*m, pt_dev_arg(b), np, blocks, ns, s);
        cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
        pt_stop_gpu(t, "spin", s);
        cr_assert_eq(pt_dev_fold(t, b, "spin"), 0, "pt_dev_fold: %s", pt_last_error(t));
    }
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    cr_assert_eq(gpu_spin_actual(*m, &actual), 0);
    check_spin(gpu_mode_name(*m), np, blocks, ns, runs, &actual);
    pt_dev_records_free(b);
}

Test(gpu, one_block_phases_nearly_fill_the_launch)
{
    /* The simulator models a kernel launch as 5,000 cycles (4.4 us). */
    const long long ns = SIZE(1000000, 50000);
    const double truth = 4.0 * (double)ns / 1e6;
    gpu_spins actual;
    pt_dev_records *b = pt_dev_records_create(t, 1, 4, NULL, PT_DEV_AGGREGATE, 0);
    spin_runs(GPU_SHARED, b, 4, 1, 32, ns, 3, &actual);
    pt_section_stats launch = get("spin"), un = get("spin/(unattributed)");
    double phases = launch.total_ms - un.total_ms;
    cr_assert(fabs(phases / 3 - truth) <= 0.01 * truth, "4 phases of %lld ns: %.6f ms per launch",
              ns, phases / 3);
    cr_assert(un.total_ms <= 0.05 * launch.total_ms,
              "a single block fills its launch but for the launch overhead: %.6f of %.6f ms",
              un.total_ms, launch.total_ms);
    pt_dev_records_free(b);
}

/* How the spins filled the device: every block spins np x ns, so the
 * slowest block lasts about that, its phases about ns each; the waves are
 * the blocks over the most an SM held at once times the SMs; the tail and
 * the idle share lie within the span. Logged, for the record of a run. */
Test(gpu, the_launch_shape_agrees_with_the_spins)
{
    const int blocks = SIZE(1000, 8), np = 3, runs = 2;
    const long long ns = SIZE(20000, 5000);
    const char *names[8];
    double ms[8];
    pt_dev_records *b = pt_dev_records_create(t, blocks, np, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    spin_runs(GPU_SHARED, b, np, blocks, 64, ns, runs, NULL);
    pt_section_stats st = get("spin");
    cr_log_info("shape: %.3f waves, %llu per SM x %llu SMs, span %.4f ms, tail %.4f ms (%.1f%%), "
                "SMs idle %.1f%%, slowest block %llu on SM %llu %.4f ms, %llu stragglers",
                st.waves, (unsigned long long)st.sm_resident, (unsigned long long)st.device_sms,
                st.span_ms, st.tail_ms, st.tail_pct, st.sm_idle_pct,
                (unsigned long long)st.slowest_block, (unsigned long long)st.slowest_block_sm,
                st.slowest_block_ms, (unsigned long long)st.stragglers);
    cr_assert_eq(st.shape_folds, (uint64_t)runs);
    cr_assert(st.sm_resident >= 1 && st.device_sms >= 1);
    cr_assert_float_eq(st.waves * (double)st.sm_resident * (double)st.device_sms, blocks,
                       1e-9 * blocks, "waves x resident x SMs is the grid");
    cr_assert(st.tail_ms >= 0 && st.tail_ms <= st.span_ms, "the tail lies in the span");
    cr_assert(st.sm_idle_pct >= 0 && st.sm_idle_pct < 100);
    cr_assert(st.slowest_block < (uint64_t)blocks && st.slowest_block_sm < st.device_sms);
    cr_assert(st.slowest_block_ms >= np * (double)ns / 1e6 * 0.99 &&
              st.slowest_block_ms <= st.span_ms * 1.01,
              "the slowest block spins %d x %lld ns, within the span: %.6f ms", np, ns,
              st.slowest_block_ms);
    cr_assert_eq(pt_section_slowest_get(t, pt_find(t, "spin"), names, ms, 8), np);
    for (int p = 0; p < np; p++)
        cr_assert(ms[p] >= (double)ns / 1e6 * 0.99 && ms[p] <= st.slowest_block_ms,
                  "%s: %.6f ms of a %lld ns spin", names[p], ms[p], ns);
    pt_dev_records_free(b);
}

/* ---- one call per launch ----------------------------------------- */

Test(gpu, one_call_per_launch_grows_resets_times_and_folds)
{
    /* Records made with no slots: the first PT_LAUNCH grows them to the
     * grid; each launch resets them, is event-timed and folds lazily. */
    const int blocks = SIZE(500, 6), runs = 3;
    const long long ns = SIZE(100000, 10000);
    pt_dev_records *b = pt_dev_records_create(t, 0, 4, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    int e = gpu_launch_spin4_shared(t, b, blocks, 64, ns, runs, s);
    cr_assert_eq(e, 0, "PT_LAUNCH: %s", gpu_error(e));
    cr_assert_eq(b->nslots, blocks, "grown to the grid: %d slots", b->nslots);
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    check_spin("PT_LAUNCH", 4, blocks, ns, runs, NULL);
    pt_dev_records_free(b);
}

/* One block in 4 recording: the records hold a quarter of the grid (PT_LAUNCH
 * sizes them so), every kept block folds, none is said missing, and the
 * launch says it was sampled. */
Test(gpu, a_sampled_launch_records_one_block_in_every)
{
    const int blocks = SIZE(500, 6), runs = 2, every = 4;
    const int kept = (blocks + every - 1) / every;
    const long long ns = SIZE(100000, 10000);
    pt_dev_records *b = pt_dev_records_create(t, 0, 4, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    int e = gpu_launch_spin4_every_shared(t, b, blocks, 64, ns, every, runs, s);
    cr_assert_eq(e, 0, "PT_LAUNCH: %s", gpu_error(e));
    cr_assert_eq(b->nslots, kept, "a slot per kept block: %d", b->nslots);
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    check_spin("sampled", 4, kept, ns, runs, NULL);
    pt_section_stats st = get("spin");
    cr_assert_eq(st.sample_every, (uint64_t)every);
    cr_assert_eq(st.sample_slots, (uint64_t)blocks);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

/* Warp roles: each role's buffer holds its own warps, each phase a spin
 * of ns per warp, and each role's rows add up to the launch. */
Test(gpu, warp_roles_fold_into_their_own_sections)
{
    const int blocks = SIZE(200, 4);
    const long long ns = SIZE(100000, 10000);
    pt_dev_records *prod = pt_dev_records_create(t, blocks, 2, NULL, PT_DEV_AGGREGATE, 0);
    pt_dev_records *cons = pt_dev_records_create(t, 2 * blocks, 3, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert(prod && cons, "%s", pt_last_error(t));
    for (int run = 0; run < 2; run++) {
        cr_assert_eq(pt_dev_reset(prod, s), 0, "%s", pt_last_error(t));
        cr_assert_eq(pt_dev_reset(cons, s), 0, "%s", pt_last_error(t));
        pt_start_gpu(t, "roles", s);
        int e = gpu_spin_roles_warp(pt_dev_arg(prod), pt_dev_arg(cons), blocks, ns, s);
        cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
        pt_stop_gpu(t, "roles", s);
        cr_assert_eq(pt_dev_fold_role(t, prod, "roles", "producer"), 0, "%s", pt_last_error(t));
        cr_assert_eq(pt_dev_fold_role(t, cons, "roles", "consumer"), 0, "%s", pt_last_error(t));
    }
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    pt_section_stats launch = get("roles");
    static const char *const role[2] = { "roles/producer", "roles/consumer" };
    for (int r = 0; r < 2; r++) {
        char path[64];
        int np = r == 0 ? 2 : 3;
        double sum = 0;
        pt_section_stats st = get(role[r]);
        cr_assert_float_eq(st.total_ms, launch.total_ms, 1e-9, "%s lasts the launch", role[r]);
        for (int p = 0; p < np; p++) {
            snprintf(path, sizeof path, "%s/phase %d", role[r], p);
            pt_section_stats ph = get(path);
            cr_assert_eq(ph.blocks, (uint64_t)(r == 0 ? 2 : 4) * blocks, "%s: a record a warp",
                         path);
            cr_assert(fabs(ph.block_mean_ms - ns / 1e6) <= 0.02 * ns / 1e6 + 1e-4,
                      "%s: %.6f ms a warp for a %lld ns spin", path, ph.block_mean_ms, ns);
            sum += ph.total_ms;
        }
        snprintf(path, sizeof path, "%s/(unattributed)", role[r]);
        sum += get(path).total_ms;
        cr_assert_float_eq(sum, launch.total_ms, 0.01 * launch.total_ms, "%s's rows", role[r]);
    }
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
}

/* The roles above traced, phase 0 of each a wait: per SM (fewer blocks
 * than SMs, so a block an SM, or blocks side by side alike) the producer
 * waits ns and loads ns while the consumers wait ns and work 2 ns. The
 * producer's work all lies beside the consumers' (100%), theirs half
 * beside it (50%); both wait ns with the other waiting too: bubbles. */
Test(gpu, warp_roles_overlap_as_their_spins_say)
{
    const int blocks = SIZE(100, 4);
    const long long ns = SIZE(100000, 10000);
    static const int waits[] = { 0 };
    pt_dev_records *prod = pt_dev_records_create(t, blocks, 2, NULL, PT_DEV_TRACE, 4);
    pt_dev_records *cons = pt_dev_records_create(t, 2 * blocks, 3, NULL, PT_DEV_TRACE, 4);
    cr_assert(prod && cons, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_records_waits(prod, 1, waits), 0);
    cr_assert_eq(pt_dev_records_waits(cons, 1, waits), 0);
    cr_assert_eq(pt_dev_reset(prod, s), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(cons, s), 0, "%s", pt_last_error(t));
    pt_start_gpu(t, "roles", s);
    int e = gpu_spin_roles_warp_trace(pt_dev_arg(prod), pt_dev_arg(cons), blocks, ns, s);
    cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
    pt_stop_gpu(t, "roles", s);
    cr_assert_eq(pt_dev_fold_role(t, prod, "roles", "producer"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_fold_role(t, cons, "roles", "consumer"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    pt_section_stats p = get("roles/producer"), c = get("roles/consumer");
    double ms = ns / 1e6, tol = 0.05 * ms + 2e-3;
    cr_log_info("producer: busy %.6f ms, %.1f%% beside, wait %.6f, bubble %.6f; consumer: busy "
                "%.6f ms, %.1f%% beside, wait %.6f, bubble %.6f (spin %.6f ms)", p.busy_ms,
                p.overlap_pct, p.wait_ms, p.bubble_ms, c.busy_ms, c.overlap_pct, c.wait_ms,
                c.bubble_ms, ms);
    cr_assert_eq(p.overlap_folds, 1);
    cr_assert(fabs(p.busy_ms - ms) <= tol, "producer works %.6f ms", p.busy_ms);
    cr_assert(fabs(c.busy_ms - 2 * ms) <= 2 * tol, "consumers work %.6f ms", c.busy_ms);
    cr_assert(p.overlap_pct >= 95, "the producer's work beside theirs: %.1f%%", p.overlap_pct);
    cr_assert(fabs(c.overlap_pct - 50) <= 5, "theirs half beside it: %.1f%%", c.overlap_pct);
    cr_assert(fabs(p.wait_ms - ms) <= tol && fabs(c.wait_ms - ms) <= tol, "waits %.6f, %.6f",
              p.wait_ms, c.wait_ms);
    cr_assert(fabs(p.bubble_ms - ms) <= tol && fabs(c.bubble_ms - ms) <= tol,
              "bubbles %.6f, %.6f", p.bubble_ms, c.bubble_ms);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
}

/* A pipeline launch's roles, "producer" and "consumers": each folded
 * once, with work and overlap figures, which are logged. */
static void two_roles(const char *launch)
{
    char pp[128], cp[128];
    snprintf(pp, sizeof pp, "%s/producer", launch);
    snprintf(cp, sizeof cp, "%s/consumers", launch);
    pt_section_stats p = get(pp), c = get(cp);
    cr_assert_eq(p.overlap_folds, 1, "%s", pp);
    cr_assert_eq(c.overlap_folds, 1, "%s", cp);
    cr_assert(c.busy_ms > 0 && p.busy_ms > 0, "%s: both roles worked", launch);
    cr_log_info("%s: producer busy %.4f ms (%.1f%% beside), wait %.4f, bubbles %.4f; consumers "
                "busy %.4f ms (%.1f%% beside), wait %.4f, bubbles %.4f", launch, p.busy_ms,
                p.overlap_pct, p.wait_ms, p.bubble_ms, c.busy_ms, c.overlap_pct, c.wait_ms,
                c.bubble_ms);
}

/* Hopper's pipeline (tests/gpu/pipeline90.cu): bulk async copies into a
 * ring of stages, mbarriers between a producer warp and four consumer
 * warps. The sums are right; each role folds with its phases; every
 * tile's "load" span, begun by the producer and ended by a consumer, is
 * paired across the roles (none left unmatched); both roles give their
 * overlap and waits. */
Test(gpu, a_bulk_copy_pipeline_shows_its_roles_spans_and_overlap)
{
    const int blocks = SIZE(132, 2), tiles = SIZE(64, 8), tile = 1024;
    static const char *const load[] = { "load" };
    static const char *const pn[] = { "wait empty", "issue" };
    static const char *const cn[] = { "wait full", "sum", "release" };
    static const int waits[] = { 0 };
    size_t nin = (size_t)blocks * tiles * tile, nout = (size_t)blocks * 128;
    float *h_in = malloc(nin * sizeof *h_in), *h_out = malloc(nout * sizeof *h_out);
    float *d_in = NULL, *d_out = NULL;
    cr_assert(h_in && h_out);
    for (size_t i = 0; i < nin; i++)
        h_in[i] = (float)(i % 13);
    cr_assert_eq(gpu_alloc_copy((void **)&d_in, h_in, nin * sizeof *h_in), 0);
    cr_assert_eq(gpu_alloc_copy((void **)&d_out, NULL, nout * sizeof *h_out), 0);
    pt_dev_records *prod = pt_dev_records_create(t, blocks, 2, pn, PT_DEV_TRACE, 3 * tiles);
    pt_dev_records *cons = pt_dev_records_create(t, 4 * blocks, 3, cn, PT_DEV_TRACE, 4 * tiles);
    cr_assert(prod && cons, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_records_spans(prod, 1, load), 0);
    cr_assert_eq(pt_dev_records_waits(prod, 1, waits), 0);
    cr_assert_eq(pt_dev_records_waits(cons, 1, waits), 0);
    cr_assert_eq(pt_dev_reset(prod, s), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(cons, s), 0, "%s", pt_last_error(t));
    pt_start_gpu(t, "pipeline", s);
    int e = gpu_bulk_pipeline(d_in, d_out, blocks, tiles, pt_dev_arg(prod), pt_dev_arg(cons), s);
    if (e < 0)
        cr_skip_test("cp.async.bulk and mbarrier transactions need sm_90 or later");
    cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
    pt_stop_gpu(t, "pipeline", s);
    cr_assert_eq(pt_dev_fold_role(t, prod, "pipeline", "producer"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_fold_role(t, cons, "pipeline", "consumers"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    cr_assert_eq(gpu_copy_back(h_out, d_out, nout * sizeof *h_out), 0);
    for (int b = 0; b < blocks; b++)
        for (int i = 0; i < 128; i++) {
            double want = 0;
            for (int k = 0; k < tiles; k++)
                for (int j = i; j < tile; j += 128)
                    want += (double)h_in[((size_t)b * tiles + k) * tile + j];
            cr_assert_float_eq(h_out[b * 128 + i], want, 1e-3 * want + 1e-3,
                               "block %d thread %d: %g, not %g", b, i, h_out[b * 128 + i], want);
        }
    pt_span_stats sp[2];
    cr_assert_eq(pt_section_spans_get(t, pt_find(t, "pipeline"), sp, 2), 1);
    cr_assert_str_eq(sp[0].name, "load");
    cr_assert_eq(sp[0].count, (uint64_t)blocks * tiles, "every tile's load, across the roles");
    cr_assert_eq(sp[0].unmatched, 0);
    int n = pt_section_spans_get(t, pt_find(t, "pipeline/producer"), sp, 2);
    for (int i = 0; i < n; i++)
        cr_assert_eq(sp[i].unmatched, 0, "producer's %s", sp[i].name);
    cr_log_info("pipeline: %d blocks x %d tiles in %.4f ms; load span mean %.6f ms, p99 %.6f",
                blocks, tiles, get("pipeline").total_ms, sp[0].mean_ms, sp[0].p99_ms);
    two_roles("pipeline");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
    gpu_free(d_in);
    gpu_free(d_out);
    free(h_in);
    free(h_out);
}

/* Where c (blocks x 64 x 8) differs from want, the product computed on
 * the host: the first element that does, or -1. */
static long wgmma_wrong(const float *c, const float *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (c[i] != want[i])
            return (long)i;
    return -1;
}

/* Hopper's own pipeline (tests/gpu/wgmma90.cu, sm_90a): the TMA's bulk
 * copies feeding wgmma.mma_async, one product kept in flight while the
 * next is issued. The products are exact (small integers in f16, summed
 * in f32); each role folds with its phases; every tile's "load" span
 * (producer to consumers) and "mma" span (commit to the wait that saw it
 * done, two open at once in one warp) is paired, none left over. Should
 * the product be wrong, the kernel runs again with the descriptors' two
 * byte offsets exchanged, and the failure says whether that was it. */
Test(gpu, a_tma_wgmma_pipeline_multiplies_exactly_and_pairs_its_async_spans)
{
    const int blocks = SIZE(132, 2), tiles = SIZE(64, 8);
    static const char *const spans[] = { "load", "mma" };
    static const char *const pn[] = { "wait empty", "issue" };
    static const char *const cn[] = { "wait full", "mma issue", "mma wait" };
    static const int pwaits[] = { 0 }, cwaits[] = { 0, 2 };
    size_t na = (size_t)blocks * tiles * 64 * 16, nb = (size_t)blocks * tiles * 16 * 8;
    size_t nc = (size_t)blocks * 64 * 8;
    float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
    float *c = malloc(nc * sizeof *c), *want = calloc(nc, sizeof *want), *dc = NULL;
    void *da = NULL, *db = NULL;
    cr_assert(a && b && c && want);
    for (size_t i = 0; i < na; i++)
        a[i] = (float)((int)(i % 7) - 3);
    for (size_t i = 0; i < nb; i++)
        b[i] = (float)((int)(i % 5) - 2);
    for (int blk = 0; blk < blocks; blk++)
        for (int k = 0; k < tiles; k++) {
            const float *ta = a + ((size_t)blk * tiles + k) * 64 * 16;
            const float *tb = b + ((size_t)blk * tiles + k) * 16 * 8;
            for (int m = 0; m < 64; m++)
                for (int n = 0; n < 8; n++)
                    for (int j = 0; j < 16; j++)
                        want[((size_t)blk * 64 + m) * 8 + n] += ta[m * 16 + j] * tb[j * 8 + n];
        }
    int e = gpu_wgmma_upload(a, b, blocks, tiles, &da, &db);
    cr_assert_eq(e, 0, "upload: %s", gpu_error(e));
    cr_assert_eq(gpu_alloc_copy((void **)&dc, NULL, nc * sizeof *c), 0);
    pt_dev_records *prod = pt_dev_records_create(t, blocks, 2, pn, PT_DEV_TRACE, 3 * tiles);
    pt_dev_records *cons = pt_dev_records_create(t, 4 * blocks, 3, cn, PT_DEV_TRACE, 6 * tiles + 4);
    cr_assert(prod && cons, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_records_spans(prod, 2, spans), 0);
    cr_assert_eq(pt_dev_records_spans(cons, 2, spans), 0);
    cr_assert_eq(pt_dev_records_waits(prod, 1, pwaits), 0);
    cr_assert_eq(pt_dev_records_waits(cons, 2, cwaits), 0);
    cr_assert_eq(pt_dev_reset(prod, s), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(cons, s), 0, "%s", pt_last_error(t));
    pt_start_gpu(t, "wgmma", s);
    e = gpu_wgmma(da, db, dc, blocks, tiles, 0, pt_dev_arg(prod), pt_dev_arg(cons), s);
    if (e < 0)
        cr_skip_test("wgmma needs sm_90a: a device of compute capability 9.0, and nvcc 12 or "
                     "later to build for it");
    cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
    pt_stop_gpu(t, "wgmma", s);
    cr_assert_eq(pt_dev_fold_role(t, prod, "wgmma", "producer"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_fold_role(t, cons, "wgmma", "consumers"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    cr_assert_eq(gpu_copy_back(c, dc, nc * sizeof *c), 0);
    long bad = wgmma_wrong(c, want, nc);
    if (bad >= 0) {
        float first = c[bad];
        cr_assert_eq(gpu_wgmma(da, db, dc, blocks, tiles, 1, pt_dev_arg(NULL), pt_dev_arg(NULL),
                               s), 0);
        cr_assert_eq(gpu_copy_back(c, dc, nc * sizeof *c), 0);
        cr_assert_fail("block %ld, c[%ld][%ld] = %g, not %g; with the descriptors' leading and "
                       "stride byte offsets exchanged the product is %s", bad / 512,
                       bad % 512 / 8, bad % 8, first, want[bad],
                       wgmma_wrong(c, want, nc) < 0 ? "right" : "wrong too");
    }
    /* "load" crosses the roles, so it is the launch's; "mma" begins and
     * ends in one consumer warp, paired in its record, so it is that
     * role's, as the bulk-copy pipeline's spans are. */
    pt_span_stats sp[2];
    cr_assert_eq(pt_section_spans_get(t, pt_find(t, "wgmma"), sp, 2), 1, "load, across the roles");
    cr_assert_eq(pt_section_spans_get(t, pt_find(t, "wgmma/consumers"), sp + 1, 1), 1,
                 "mma, the consumers' own");
    cr_assert_str_eq(sp[0].name, "load");
    cr_assert_str_eq(sp[1].name, "mma");
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(sp[i].count, (uint64_t)blocks * tiles, "every tile's %s", sp[i].name);
        cr_assert_eq(sp[i].unmatched, 0, "%s", sp[i].name);
    }
    cr_log_info("wgmma: %d blocks x %d k-tiles of m64n8k16 in %.4f ms; %s span mean %.6f ms "
                "(p99 %.6f), %s span mean %.6f ms (p99 %.6f, max %.6f)", blocks, tiles,
                get("wgmma").total_ms, sp[0].name, sp[0].mean_ms, sp[0].p99_ms, sp[1].name,
                sp[1].mean_ms, sp[1].p99_ms, sp[1].max_ms);
    two_roles("wgmma");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
    gpu_free(da);
    gpu_free(db);
    gpu_free(dc);
    free(a);
    free(b);
    free(c);
    free(want);
}

/* A graph of three instrumented kernels captured once (or built node by
 * node) and replayed: every replay timed and each kernel's phases folded
 * (a spin of ns each, per block), none lost or mixed, each kernel's rows
 * adding up to it. Each phase, pooled over the three kernels, lies
 * between the spins the kernels measured inside it and the windows they
 * read around it (check_spin's bounds), and within 1% (or a tick) of the
 * same kernel's phase launched without a graph (PT_LAUNCH, as many
 * blocks). More replays than a buffer keeps host copies in flight (4),
 * even at simulation size, so the copies' ring wraps. Timed by its
 * kernels' clocks (how & GPU_GRAPH_KERNELS), a replay lasts no less than
 * its three kernels one after another, and not much more. */
static void graph_replays(int how)
{
    const int by_nodes = how & GPU_GRAPH_NODES;
    const int blocks = SIZE(200, 4), replays = SIZE(1000, 6), alone = SIZE(50, 2);
    const long long ns = SIZE(20000, 5000);
    const double n = 3.0 * replays * blocks;
    pt_dev_records *recs[3], *b;
    double pooled[4] = { 0 };
    gpu_spins actual;
    for (int k = 0; k < 3; k++) {
        recs[k] = pt_dev_records_create(t, blocks, 4, NULL, PT_DEV_AGGREGATE, 0);
        cr_assert_not_null(recs[k], "%s", pt_last_error(t));
    }
    cr_assert_eq(gpu_spin_actual(GPU_SHARED, NULL), 0);
    int e = gpu_graph_spin3_shared(t, recs, blocks, ns, replays, how);
    double kernels_ms = 0;
    cr_assert_eq(e, 0, "%s (%s)", e > 0 ? gpu_error(e) : pt_strerror(e), pt_last_error(t));
    cr_assert_eq(gpu_spin_actual(GPU_SHARED, &actual), 0);
    cr_assert_eq(get("graph").count, (uint64_t)replays, "every replay timed");
    for (int k = 0; k < 3; k++) {
        char path[64];
        double sum = 0;
        snprintf(path, sizeof path, "graph/k%d", k);
        pt_section_stats kern = get(path);
        cr_assert_eq(kern.count, (uint64_t)replays, "%s: every replay folded", path);
        for (int p = 0; p < 4; p++) {
            snprintf(path, sizeof path, "graph/k%d/phase %d", k, p);
            pt_section_stats ph = get(path);
            cr_assert_eq(ph.blocks, (uint64_t)replays * blocks, "%s: no record lost or mixed",
                         path);
            cr_assert(fabs(ph.block_mean_ms - ns / 1e6) <= 0.02 * ns / 1e6 + 1e-4,
                      "%s: %.6f ms a block for a %lld ns spin", path, ph.block_mean_ms, ns);
            pooled[p] += ph.block_mean_ms / 3;
            sum += ph.total_ms;
        }
        snprintf(path, sizeof path, "graph/k%d/(unattributed)", k);
        sum += get(path).total_ms;
        cr_assert_float_eq(sum, kern.total_ms, 0.01 * kern.total_ms, "k%d's rows", k);
        /* Every replay's records came back by a set of the graph's ring
         * (where the runtime gives a graph's kernel nodes other
         * arguments: CUDA 12.4 and later), else by the kernel's copy
         * node (CUDA 12.3), none by a copy on the stream after the
         * replay. */
        const pt__cuda_api *cu = pt__cuda();
        int ring = cu->GraphExecKernelNodeSetParams && cu->FuncGetParamInfo &&
                   cu->PeekAtLastError && cu->GetLastError &&
                   (by_nodes || (cu->StreamGetCaptureInfo && cu->GraphKernelNodeGetParams));
        if (ring)
            cr_assert_eq(recs[k]->ring_reads, replays, "k%d: %lld of %d replays' records "
                         "by a set of the ring (%lld by its copy node): %s", k,
                         recs[k]->ring_reads, replays, recs[k]->node_reads,
                         recs[k]->ring_off[0] ? recs[k]->ring_off : "no reason said");
        else if (cu->GraphAddMemcpyNode1D && cu->GraphExecMemcpyNodeSetParams1D &&
                 (by_nodes || cu->StreamGetCaptureInfo))
            cr_assert_eq(recs[k]->node_reads, replays, "k%d: %lld of %d replays' records "
                         "copied by its node", k, recs[k]->node_reads, replays);
        cr_log_info("graph: k%d's records by a set of the ring in %lld, by its copy node in "
                    "%lld of %d replays%s%s", k, recs[k]->ring_reads, recs[k]->node_reads,
                    replays, recs[k]->ring_off[0] ? "; no ring: " : "", recs[k]->ring_off);
        cr_log_info("graph: k%d %.4f ms a replay (first %.4f), of a replay's %.4f ms", k,
                    kern.mean_ms, kern.first_ms, get("graph").mean_ms);
        kernels_ms += kern.mean_ms;
    }
    if (how & GPU_GRAPH_KERNELS) {
        double r = get("graph").mean_ms;
        cr_assert(r >= kernels_ms * 0.999 && r <= kernels_ms * 1.25 + 0.05,
                  "graph: a replay by its kernels' clocks %.4f ms, its kernels one after "
                  "another %.4f ms", r, kernels_ms);
        cr_log_info("graph: timed by its kernels, a replay %.4f ms, its kernels %.4f ms "
                    "(%.1f us between them)", r, kernels_ms, (r - kernels_ms) * 1e3);
    }
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    /* The same kernel launched alone, `alone` times, into "spin". */
    b = pt_dev_records_create(t, blocks, 4, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    e = gpu_launch_spin4_shared(t, b, blocks, 64, ns, alone, s);
    cr_assert_eq(e, 0, "PT_LAUNCH: %s", gpu_error(e));
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    pt_dev_clock dc = dev_clock();
    for (int p = 0; p < 4; p++) {
        char path[32];
        double spin = (double)actual.spin[p] / n / 1e6, win = (double)actual.window[p] / n / 1e6;
        double tol = fmax(0.01 * spin, dc.tick_ns / 1e6);
        snprintf(path, sizeof path, "spin/phase %d", p);
        pt_section_stats one = get(path);
        cr_assert(pooled[p] >= spin - tol && pooled[p] <= win + tol,
                  "graph: phase %d %.6f ms a block, outside its spins %.6f ms and windows "
                  "%.6f ms (tolerance %.6f ms)", p, pooled[p], spin, win, tol);
        cr_assert(fabs(pooled[p] - one.block_mean_ms) <= tol,
                  "graph: phase %d %.6f ms a block, launched alone %.6f ms (tolerance %.6f ms)",
                  p, pooled[p], one.block_mean_ms, tol);
        cr_log_info("graph: phase %d %.6f ms a block (spins %.6f, windows %.6f); launched "
                    "alone %.6f ms (%+.3f%%)", p, pooled[p], spin, win, one.block_mean_ms,
                    100 * (pooled[p] - one.block_mean_ms) / one.block_mean_ms);
    }
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
    for (int k = 0; k < 3; k++)
        pt_dev_records_free(recs[k]);
}

Test(gpu, a_graph_replayed_folds_every_replay)
{
    graph_replays(0);
}

/* The same graph built with cudaGraphAddKernelNode (pt_graph_add_kernel),
 * each kernel a node after the one before, no reset between them. */
Test(gpu, a_graph_built_node_by_node_folds_every_replay)
{
    graph_replays(GPU_GRAPH_NODES);
}

/* The captured graph timed by its kernels' clocks, an event each 8
 * replays (pt_graph_time_by_kernels). */
Test(gpu, a_graph_timed_by_its_kernels_folds_every_replay)
{
    graph_replays(GPU_GRAPH_KERNELS);
}

/* ---- traces ------------------------------------------------------- */

Test(gpu, a_trace_buffer_keeps_its_events_and_counts_the_rest_dropped)
{
    /* 4 phases, 3 rounds: 12 marks a block into room for 8 events. */
    const int blocks = SIZE(20, 4), np = 4, rounds = 3, cap = 8;
    const long long ns = SIZE(20000, 10000);
    pt_dev_records *b = pt_dev_records_create(t, blocks, np, NULL, PT_DEV_TRACE, cap);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, s), 0, "%s", pt_last_error(t));
    pt_start_gpu(t, "spin", s);
    int e = gpu_spin_phases(GPU_TRACE, pt_dev_arg(b), np, blocks, 32, ns, rounds, s);
    cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
    pt_stop_gpu(t, "spin", s);
    pt_dev_fold(t, b, "spin");
    pt_sync(t);
    pt_run_stats run = run_stats(t);
    cr_assert_eq(run.dropped, (uint64_t)blocks * (np * rounds - cap), "%llu dropped",
                 (unsigned long long)run.dropped);
    cr_assert_eq(pt_error_count_of(t, PT_EFULL), 1, "%s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "holds 8 per slot"), "%s", pt_last_error(t));
    /* The stored events, as the kernel wrote them: (phase, clock) in the
     * order of the marks, the clocks rising. */
    long long *rec = malloc((size_t)b->words * sizeof *rec);
    cr_assert_eq(gpu_copy_back(rec, b->data, (size_t)b->words * sizeof *rec), 0);
    for (int k = 0; k < blocks; k++) {
        const long long *r = rec + PT_DEV_HDR + k * PT_DEV_SLOT_WORDS(np, cap);
        const long long *ev = r + PT_DEV_SLOT_HDR + 2 * np;
        cr_assert_eq(r[PT_DEV_S_NEVENTS], cap, "slot %d: %lld events", k, r[PT_DEV_S_NEVENTS]);
        cr_assert_eq(r[PT_DEV_S_DROPPED], np * rounds - cap);
        for (int i = 0; i < cap; i++) {
            cr_assert_eq(ev[2 * i], i % np, "slot %d event %d: phase %lld", k, i, ev[2 * i]);
            cr_assert(i == 0 || ev[2 * i + 1] - ev[2 * i - 1] > 0, "slot %d: clocks rise", k);
        }
    }
    free(rec);
    /* The events of a phase and its folded time agree: every phase's block
     * mean is its rounds' spins. */
    pt_dev_clock dc = dev_clock();
    double truth = (double)(rounds * ns) / 1e6, tol = fmax(0.01 * truth, dc.tick_ns / 1e6);
    pt_section_stats ph = get("spin/phase 1");
    cr_assert(fabs(ph.block_mean_ms - truth) <= tol, "%.6f vs %.6f ms", ph.block_mean_ms, truth);
    pt_dev_records_free(b);
}

Test(gpu, a_trace_buffer_on_a_kernel_without_trace_stores_counts_every_mark_untraced)
{
    /* The shared-memory kernels are built without PT_DEV_TRACING: every
     * mark is counted as stored nowhere, for that cause, and none as
     * dropped from a full trace (tests/fold.c holds the same in host
     * mode). */
    const int blocks = SIZE(10, 2), np = 4;
    pt_dev_records *b = pt_dev_records_create(t, blocks, np, NULL, PT_DEV_TRACE, 8);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, s), 0, "%s", pt_last_error(t));
    pt_start_gpu(t, "spin", s);
    int e = gpu_spin_phases(GPU_SHARED, pt_dev_arg(b), np, blocks, 32, SIZE(10000, 2000), 1, s);
    cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
    pt_stop_gpu(t, "spin", s);
    pt_dev_fold(t, b, "spin"); /* the device's fold completes at pt_sync */
    pt_sync(t);
    cr_assert_eq(pt_error_count_of(t, PT_EFULL), 1, "%s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "without trace stores"), "%s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "PT_DEV_TRACING"), "%s", pt_last_error(t));
    pt_run_stats run = run_stats(t);
    pt_dev_clock dc = dev_clock();
    cr_assert_eq(dc.untraced, (long long)blocks * np, "%lld untraced", dc.untraced);
    cr_assert_eq(run.dropped, 0, "%llu dropped: no trace was full",
                 (unsigned long long)run.dropped);
    pt_dev_records_free(b);
}

/* ---- bad input from the kernel ------------------------------------ */

Test(gpu, bad_slots_and_phases_are_counted_and_written_nowhere)
{
    /* Each block marks phases 0..3 and then phase 6 of a 4-phase buffer;
     * the last block begins at slot blocks + 5, which the buffer lacks. */
    const int blocks = SIZE(50, 4), np = 4;
    const long long ns = SIZE(20000, 20000);
    pt_dev_records *b = pt_dev_records_create(t, blocks, np, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, s), 0, "%s", pt_last_error(t));
    pt_start_gpu(t, "spin", s);
    int e = gpu_spin_bad(pt_dev_arg(b), np, blocks, ns, blocks + 5, 6, s);
    cr_assert_eq(e, 0, "launch: %s", gpu_error(e));
    pt_stop_gpu(t, "spin", s);
    test_text said = { NULL, 0 };
    pt_error_fn_set(t, test_text_line, &said);
    pt_dev_fold(t, b, "spin");
    pt_sync(t);
    pt_error_fn_set(t, NULL, NULL);
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 2, "the marks and the slot, each said once: %s",
                 said.s);
    char want[160];
    snprintf(want, sizeof want, "%d marks with a phase index out of range", blocks - 1);
    cr_assert(strstr(said.s, want), "%s", said.s);
    snprintf(want, sizeof want, "only a phase below the buffer's %d", np);
    cr_assert(strstr(said.s, want), "%s", said.s);
    /* The slot is named: the device kept it (red.max beside the count). */
    snprintf(want, sizeof want, "1 block began at a slot out of range [0, %d) (PT_DEV_BEGIN_AT's "
             "slot): slot %d;", blocks, blocks + 5);
    cr_assert(strstr(said.s, want), "%s", said.s);
    free(said.s);
    /* The good blocks' phases are intact; the last slot was never written. */
    pt_section_stats ph = get("spin/phase 2");
    cr_assert_eq(ph.blocks, (uint64_t)blocks - 1);
    pt_dev_clock dc = dev_clock();
    double truth = (double)ns / 1e6;
    cr_assert(fabs(ph.block_mean_ms - truth) <= fmax(0.01 * truth, dc.tick_ns / 1e6), "%.6f ms",
              ph.block_mean_ms);
    cr_assert_eq(dc.slots_skipped, 1, "the slot the last block should have had");
    pt_dev_records_free(b);
}

Test(gpu, a_second_fold_of_one_launch_is_refused)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, s), 0);
    pt_start_gpu(t, "spin", s);
    cr_assert_eq(gpu_spin_phases(GPU_SHARED, pt_dev_arg(b), 1, 2, 32, SIZE(10000, 2000), 1, s), 0);
    pt_stop_gpu(t, "spin", s);
    cr_assert_eq(pt_dev_fold(t, b, "spin"), 0, "%s", pt_last_error(t));
    int rc = pt_dev_fold(t, b, "spin");
    cr_assert_lt(rc, 0, "the same launch twice");
    cr_assert(strstr(pt_last_error(t), "folded already"), "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(get("spin/phase 0").blocks, 2, "folded once");
    pt_dev_records_free(b);
}

/* ---- events -------------------------------------------------------- */

/* Parameters are copied into each test's process: no pointers. */
typedef struct stream_case {
    int which;                /* 0 the suite's stream, 1 the legacy default, 2 per thread */
    char name[40];
} stream_case;

ParameterizedTestParameters(gpu, event_time_of_a_known_kernel)
{
    static stream_case cases[] = {
        { 0, "a stream of its own" },
        { 1, "the legacy default stream" },
        { 2, "the per-thread default stream" },
    };
    return cr_make_param_array(stream_case, cases, 3);
}

ParameterizedTest(stream_case *c, gpu, event_time_of_a_known_kernel)
{
    /* Each length twice. Behind other work on the stream, as in a program
     * that keeps its stream busy: the first event is stamped when that
     * work ends, with the kernel already queued, and the events hold the
     * kernel within 1%. On an idle stream: they also hold the host's
     * launch, the time between the first event's record and the kernel's
     * start (about 10 us on an H100), which is logged. The simulator
     * models a launch as 5,000 cycles (4.4 us), so its kernel spins 1 ms,
     * as the shorter one on hardware does. */
    const long long lengths[] = { 1000000, 10000000 };
    const int nlengths = SIZE(2, 1);
    pt_stream st = c->which == 0 ? s : c->which == 1 ? NULL : gpu_stream_per_thread();
    long long measured;
    cr_assert_eq(gpu_spin_plain(SIZE(100000, 2000), st), 0);
    cr_assert_eq(gpu_stream_sync(st), 0);
    for (int i = 0; i < nlengths; i++) {
        for (int busy = 0; busy < 2; busy++) {
            char name[48];
            snprintf(name, sizeof name, "spin %lld ns%s", lengths[i], busy ? "" : ", idle");
            cr_assert_eq(gpu_stream_sync(st), 0);
            if (busy)
                cr_assert_eq(gpu_spin_plain(SIZE(200000, 5000), st), 0);
            pt_start_gpu(t, name, st);
            int e = gpu_spin_plain(lengths[i], st);
            cr_assert_eq(e, 0, "%s", gpu_error(e));
            pt_stop_gpu(t, name, st);
            cr_assert_eq(gpu_spin_plain_read(&measured, st), 0);
            pt_section_stats ps = get(name);
            double truth = (double)measured / 1e6;
            cr_assert_eq(ps.gpu, 1);
            if (busy) {
                cr_assert(fabs(ps.total_ms - truth) <= 0.01 * truth,
                          "%s, behind other work: events %.6f ms, the kernel's own globaltimer "
                          "span %.6f ms", c->name, ps.total_ms, truth);
                cr_log_info("%s, behind other work: events %.6f ms, the kernel's own span %.6f ms",
                            c->name, ps.total_ms, truth);
            } else {
                cr_assert(ps.total_ms >= truth - 0.0001 && ps.total_ms <= truth + 1.0,
                          "%s, idle: events %.6f ms, the kernel's own globaltimer span %.6f ms",
                          c->name, ps.total_ms, truth);
                cr_log_info("%s, idle: events %.6f ms, the kernel's own span %.6f ms: the "
                            "launch adds %.1f us", c->name, ps.total_ms, truth,
                            (ps.total_ms - truth) * 1e3);
            }
        }
    }
    cr_assert_eq(run_stats(t).gpu_timing, 1);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

Test(gpu, thousands_of_launches_stay_lazy_and_bounded)
{
    const int launches = SIZE(3000, 1100);
    const long long ns = SIZE(10000, 1000);
    cr_assert_eq(gpu_spin_plain(ns, s), 0);
    for (int i = 0; i < launches; i++) {
        pt_start_gpu(t, "short", s);
        gpu_spin_plain(ns, s);
        pt_stop_gpu(t, "short", s);
        cr_assert_leq(pt__queue_pending(t), 1025);
    }
    cr_assert_leq(pt__events_alive(t), 2 * 1025 + 2);
    pt_section_stats st = get("short");
    cr_assert_eq(st.count, (uint64_t)launches);
    double truth = (double)ns / 1e6;
    cr_assert(st.mean_ms >= 0.99 * truth && st.mean_ms < 10 * truth,
              "%lld ns kernels: mean %.6f ms", ns, st.mean_ms);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

/* ---- ptkit's own kernels ------------------------------------------ */

/* A grid past the threshold is summarized on the device by pt_reduce; the
 * host's pt__red_slot over the same records, copied back, must give the
 * same summary: the integer words exactly, the sums of doubles but for
 * the order of their additions. */
Test(gpu, the_device_reduction_agrees_with_the_host_fold)
{
    const int blocks = SIZE(70000, 64), np = 4;
    pt__reduce_min_slots = blocks;
    pt_dev_records *b = pt_dev_records_create(t, blocks, np, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    spin_runs(GPU_SHARED, b, np, blocks, 32, SIZE(10000, 2000), 1, NULL);
    cr_assert_not_null(b->red_dev, "the fold reduced on the device: %s", pt_last_error(t));

    int nsm = PT__RED_NSM_DEVICE;
    size_t rwords = (size_t)PT__R_WORDS(np, nsm);
    pt__rword *dev = calloc(rwords, sizeof *dev), *host = calloc(rwords, sizeof *host);
    long long *rec = malloc((size_t)b->words * sizeof *rec);
    cr_assert(dev && host && rec);
    cr_assert_eq(gpu_copy_back(dev, b->red_dev, rwords * sizeof *dev), 0);
    cr_assert_eq(gpu_copy_back(rec, b->data, (size_t)b->words * sizeof *rec), 0);
    pt__calib cal;
    pt__calib_get(pt__cuda(), b->device, &cal);
    cr_assert_eq(cal.ok, 1, "%s", cal.why);
    for (int i = 0; i < PT_DEV_HDR; i++)
        host[i].i = rec[i];
    for (int k = 0; k < blocks; k++)
        pt__red_slot(host, rec + PT_DEV_HDR + k * PT_DEV_SLOT_WORDS(np, 0), np, nsm, cal.tick_ns,
                     1.0 / cal.cycles_per_ns, cal.mark_cycles, 0, pt__count_limit(blocks));
    int doubles = 0;
    for (size_t w = 0; w < rwords; w++) {
        int is_double = w == PT__R_SPAN_SUM;
        for (int p = 0; p < np && !is_double; p++)
            is_double = w == (size_t)PT__R_SUM(p) || w == (size_t)PT__R_OVH(p);
        is_double = is_double || w >= (size_t)PT__R_SM(np, 0, 0);
        if (is_double) {
            doubles++;
            cr_assert(fabs(dev[w].d - host[w].d) <= 1e-9 * fabs(host[w].d) + 1e-6,
                      "word %zu: device %.17g, host %.17g", w, dev[w].d, host[w].d);
        } else {
            cr_assert_eq(dev[w].i, host[w].i, "word %zu: device %lld, host %lld", w, dev[w].i,
                         host[w].i);
        }
    }
    cr_assert_eq(host[PT__R_DONE].i, blocks);
    cr_log_info("%zu words agree (%d of them sums of doubles) over %d slots", rwords, doubles,
                blocks);
    free(dev);
    free(host);
    free(rec);
    pt_dev_records_free(b);
}

/* The hits slot 0 of a buffer (`what`'s) holds for each of its `np` phases. */
static void slot0_hits(const char *what, pt_dev_records *b, int np, long long *hits)
{
    pt_dev_buf a = pt_dev_arg(b);
    long long rec[PT_DEV_SLOT_HDR + 2 * 16];
    cr_assert_leq(np, 16);
    size_t words = (size_t)(PT_DEV_SLOT_HDR + 2 * np);
    cr_assert_eq(gpu_copy_back(rec, a.data + PT_DEV_HDR, sizeof(long long) * words), 0);
    cr_assert_eq(rec[PT_DEV_S_DONE], 1, "%s: slot 0 written %lld times, not once", what,
                 rec[PT_DEV_S_DONE]);
    for (int q = 0; q < np; q++)
        hits[q] = rec[PT_DEV_SLOT_HDR + 2 * q + 1];
}

Test(gpu, marked_kernels_compute_what_the_unmarked_ones_do)
{
    /* tests/kernels/' SGEMM and attention pass: with ptkit's marks in
     * shared memory and in registers, and with the hand-written pattern,
     * their outputs are the bare kernels' bit for bit (a mark that split
     * the code into basic blocks once changed how multiplies and adds
     * contracted into fma). */
    static const char *const form[GPU_NFORMS] = { "bare", "ptkit (shared memory)",
                                                  "ptkit (registers)", "by hand",
                                                  "ptkit (release DONE)" };
    const int n = SIZE(512, 64), heads = SIZE(16, 2), seq = SIZE(256, 64);
    unsigned long long g[GPU_NFORMS], a[GPU_NFORMS];
    long long hits[6];
    pt_dev_records *gb =
        pt_dev_records_create(t, (n / 32) * (n / 32), 3, NULL, PT_DEV_AGGREGATE, 0);
    pt_dev_records *ab = pt_dev_records_create(t, heads, 6, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert(gb && ab, "%s", pt_last_error(t));
    int e = gpu_forms_gemm(n, gb, g);
    cr_assert_eq(e, 0, "SGEMM: %s (%s)", e > 0 ? gpu_error(e) : pt_strerror(e), pt_last_error(t));
    e = gpu_forms_attention(heads, seq, ab, a);
    cr_assert_eq(e, 0, "attention: %s (%s)", e > 0 ? gpu_error(e) : pt_strerror(e),
                 pt_last_error(t));
    for (int f = 1; f < GPU_NFORMS; f++) {
        cr_expect_eq(g[f], g[0], "SGEMM %dx%d %s: output hash %016llx, bare %016llx", n, n, form[f],
                     g[f], g[0]);
        cr_expect_eq(a[f], a[0], "attention %d heads of %d %s: output hash %016llx, bare %016llx",
                     heads, seq, form[f], a[f], a[0]);
    }
    /* The marks did run: the last ptkit form's records (release DONE). */
    slot0_hits("SGEMM", gb, 3, hits);
    cr_assert(hits[0] == n / 32 && hits[1] == n / 32 && hits[2] == 1,
              "SGEMM slot 0 hits %lld %lld %lld, expected %d %d 1", hits[0], hits[1], hits[2],
              n / 32, n / 32);
    slot0_hits("attention", ab, 6, hits);
    cr_assert(hits[0] == seq / 32 && hits[1] == (seq / 32) * (seq / 32),
              "attention slot 0 hits %lld %lld, expected %d %d", hits[0], hits[1], seq / 32,
              (seq / 32) * (seq / 32));
    cr_log_info("SGEMM %dx%d: %016llx in all five forms; attention %d heads of %d: %016llx", n, n,
                g[0], heads, seq, a[0]);
    pt_dev_records_free(gb);
    pt_dev_records_free(ab);
}

Test(gpu, the_calibration_is_plausible)
{
    pt__calib cal;
    char name[256];
    int dev = 0, khz = 0, major = 0, minor = 0;
    pt__cuda()->GetDevice(&dev);
    pt__calib_get(pt__cuda(), dev, &cal);
    cr_assert_eq(cal.ok, 1, "%s", cal.why);
    cr_assert(cal.cycles_per_ns > 0.2 && cal.cycles_per_ns < 5.0, "%.4f GHz", cal.cycles_per_ns);
    cr_assert(cal.tick_ns > 0 && cal.tick_ns <= 2000, "tick %.0f ns", cal.tick_ns);
    cr_assert(cal.mark_cycles > 0 && cal.mark_cycles < 200, "a mark: %.1f cycles",
              cal.mark_cycles);
    cr_assert_eq(gpu_device_info(name, sizeof name, &khz, &major, &minor), 0);
    /* A simulated SM runs at its configured clock, which the device's
     * clock rate states; real ones boost and throttle around it. */
    double rated = khz / 1e6;
    if (sim())
        cr_assert(fabs(cal.cycles_per_ns - rated) <= 0.01 * rated,
                  "calibrated %.4f GHz, rated %.4f GHz", cal.cycles_per_ns, rated);
    cr_log_info("%s (sm_%d%d): SM clock %.4f GHz calibrated (rated %.4f), globaltimer tick %.0f "
                "ns, a mark %.1f cycles, measured on SM %d", cal.name, major, minor,
                cal.cycles_per_ns, rated, cal.tick_ns, cal.mark_cycles, cal.smid);
}

Test(gpu, a_kernel_compiled_by_nvrtc_and_launched_by_the_driver_api_folds)
{
    const int blocks = SIZE(100, 4), np = 3, runs = 2;
    const long long ns = SIZE(100000, 10000);
    char why[512];
    pt_dev_records *b = pt_dev_records_create(t, blocks, np, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    for (int i = 0; i < runs; i++) {
        cr_assert_eq(pt_dev_reset(b, s), 0, "%s", pt_last_error(t));
        pt_start_gpu(t, "spin", s);
        cr_assert_eq(gpu_nvrtc_spin(pt_dev_arg(b), np, blocks, ns, s, why, sizeof why), 0, "%s",
                     why);
        pt_stop_gpu(t, "spin", s);
        cr_assert_eq(pt_dev_fold(t, b, "spin"), 0, "pt_dev_fold: %s", pt_last_error(t));
    }
    cr_assert_eq(pt_sync(t), 0, "pt_sync: %s", pt_last_error(t));
    check_spin("NVRTC, driver API", np, blocks, ns, runs, NULL);
    pt_dev_records_free(b);
}

/* ---- what a program is told --------------------------------------- */

/* What tests/gpu/probe.c prints when run with `env` (VAR=value ...). */
static char *probe(const char *env)
{
    char self[PATH_MAX], cmd[PATH_MAX + 512];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    cr_assert_gt(n, 0);
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    snprintf(cmd, sizeof cmd, "env %s %s/ptkit_gpu_probe 2>&1", env, self);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "%s", cmd);
    /* A simulator prints much of its own: the probe's lines are the last. */
    static char out[1 << 20];
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    pclose(p);
    char *own = strstr(out, "gpu_timing=");
    return own ? own : out;
}

Test(gpu, a_program_is_told_which_runtime_and_why_not)
{
    /* This suite links the shared runtime, which libptkit found loaded;
     * the probe, a CPU program, is given it by name. */
    char env[PATH_MAX + 16], *out;
    const char *origin = pt__cuda_origin();
    cr_assert(strstr(origin, ", already loaded by the program"), "%s", origin);
    snprintf(env, sizeof env, "PT_CUDART=%.*s", (int)(strchr(origin, ',') - origin), origin);
    out = probe(env);
    cr_assert(strstr(out, "gpu_timing=1"), "the device times: %s", out);
    cr_assert(strstr(out, "named by PT_CUDART"), "names the runtime: %s", out);
    out = probe("PT_CUDART=/nonexistent/libcudart.so");
    cr_assert(strstr(out, "gpu_timing=0"), "%s", out);
    cr_assert(strstr(out, "no CUDA runtime: /nonexistent/libcudart.so"), "%s", out);
    out = probe("PT_CUDART=libm.so.6");
    cr_assert(strstr(out, "lacks cudaGetDeviceCount"), "%s", out);
    /* No device: hidden from CUDA's runtime; a simulator ignores it. */
    out = probe("CUDA_VISIBLE_DEVICES=");
    if (strstr(out, "gpu_timing=1")) {
        cr_assert(sim(), "CUDA_VISIBLE_DEVICES= hid no device: %s", out);
        cr_log_info("the simulated device ignores CUDA_VISIBLE_DEVICES");
    } else {
        cr_assert(strstr(out, "why=cudaGetDeviceCount: ") || strstr(out, "why=no CUDA device"),
                  "%s", out);
        cr_assert(strstr(out, "errors=0"), "no device is a note, not an error: %s", out);
    }
}
