/* The fold: hand-written block records with known cycles and globaltimer
 * spans, folded under a launch timed by the injected clock (or by the
 * fake GPU's events), give exact phase times, per-block figures and the
 * "(unattributed)" rest; the faults a fold can meet are counted.
 *
 * The calibration is set exactly through pt__calib_set(): 2 cycles per ns
 * (0.5 ns per cycle) and a 1000 ns globaltimer tick, so a block needs a
 * globaltimer span of 100,000 ns to use its own rate. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include <pt/pt_dev.h>

#include "common.h"
#include "cuda_fake.h"
#include "records_fake.h"

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    fake_install();
    pt__calib_set(-1, 2.0, 1000.0);
    pt__calib_set(0, 2.0, 1000.0);
    t = test_timing(&clk, "fold", PT_CPU);
    cr_assert_not_null(t);
}

static void teardown(void)
{
    pt_destroy(t);
    fake_uninstall();
}

TestSuite(fold, .init = setup, .fini = teardown);

/* Writes slot s as END leaves it: done, with the clock64 and globaltimer
 * spans given and each phase's cycles (and one hit each unless given). */
static void slot(pt_dev_records *b, int s, long long smid, long long clk_span, long long gt0,
                 long long gt_span, const long long *cycles, const long long *hits)
{
    test_slot(b, s, smid, clk_span, gt0, gt_span, cycles, hits);
}

/* A launch of `ns` on the injected clock. */
static void launch_cpu(const char *title, int64_t ns)
{
    pt_start(t, title);
    clk.now += ns;
    pt_stop(t, title);
}

static pt_section_stats get(const char *path)
{
    pt_section_stats st;
    const pt_section *s = pt_find(t, path);
    cr_assert_not_null(s, "pt_find(\"%s\") found nothing", path);
    int rc = pt_section_get(t, s, &st);
    cr_assert_eq(rc, 0, "pt_section_get: %s", pt_strerror(rc));
    return st;
}

static int fold(pt_dev_records *b, const char *title)
{
    return pt_dev_fold(t, b, title);
}

#define EPS 1e-12

Test(fold, phases_in_exact_milliseconds)
{
    const char *names[] = { "angular", "energy", "stream" };
    pt_dev_records *b = pt_dev_records_create(t, 1, 3, names, PT_DEV_HOST, 0);
    /* 4,000,000 cycles in 1 ms of globaltimer: its own rate, 0.25 ns/cycle. */
    slot(b, 0, 0, 4000000, 0, 1000000, (long long[]){ 1200000, 2000000, 800000 }, NULL);
    launch_cpu("step", 1250000);
    int rc = fold(b, "step");
    cr_assert_eq(rc, 0, "pt_dev_fold: %s (%s)", pt_strerror(rc), pt_last_error(t));

    pt_section_stats a = get("step/angular"), e = get("step/energy"), s = get("step/stream"),
                     u = get("step/(unattributed)");
    cr_assert_float_eq(a.total_ms, 0.3, EPS, "angular %g", a.total_ms);
    cr_assert_float_eq(e.total_ms, 0.5, EPS, "energy %g", e.total_ms);
    cr_assert_float_eq(s.total_ms, 0.2, EPS, "stream %g", s.total_ms);
    cr_assert_float_eq(u.total_ms, 0.25, EPS, "unattributed %g", u.total_ms);
    cr_assert_eq(a.phase, 1);
    cr_assert_eq(u.phase, 1);
    cr_assert_eq(a.count, 1);
    cr_assert_eq(a.blocks, 1);
    cr_assert_float_eq(a.hits, 1, EPS);
    cr_assert_float_eq(a.block_mean_ms, 0.3, EPS);
    cr_assert_float_eq(a.imbalance, 1.0, EPS);
    /* Children in phase order, then the rest. */
    const pt_section *c = pt_section_child(pt_find(t, "step"));
    const char *order[] = { "angular", "energy", "stream", "(unattributed)" };
    for (int i = 0; i < 4; i++, c = pt_section_next(c))
        cr_assert_str_eq(pt_section_name(c), order[i]);
    cr_assert_null(c);
    pt_dev_clock dc;
    cr_assert_eq(pt_dev_clock_get(t, &dc), 0);
    cr_assert_eq(dc.blocks_own, 1, "a 1 ms span is 1000 ticks: its own rate");
    cr_assert_eq(dc.blocks_cal, 0);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(fold, children_add_up_to_the_launch)
{
    pt_dev_records *b = pt_dev_records_create(t, 3, 2, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 3000000, 0, 1500000, (long long[]){ 1000001, 1999999 }, NULL);
    slot(b, 1, 1, 2900000, 1000, 1450000, (long long[]){ 333333, 2500000 }, NULL);
    slot(b, 2, 2, 3100000, 2000, 1550000, (long long[]){ 777777, 1234567 }, NULL);
    launch_cpu("step", 1700000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    double sum = get("step/phase 0").total_ms + get("step/phase 1").total_ms +
                 get("step/(unattributed)").total_ms;
    cr_assert_float_eq(sum, get("step").total_ms, 1e-12, "children %g vs launch %g", sum,
                       get("step").total_ms);
    cr_assert_float_eq(get("step").self_ms, 0.0, 1e-12);
    pt_dev_records_free(b);
}

Test(fold, a_launch_folds_once)
{
    /* A second fold of the same occurrence would add its phases again:
     * the children would come to twice the launch. */
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    cr_assert_eq(fold(b, "step"), PT_ESTATE, "the same launch again");
    cr_assert(strstr(pt_last_error(t), "folded already"), "%s", pt_last_error(t));
    cr_assert_eq(get("step/phase 0").count, 1, "folded once");
    cr_assert_float_eq(get("step/phase 0").total_ms + get("step/(unattributed)").total_ms,
                       get("step").total_ms, EPS, "children add up to the launch");
    cr_assert_eq(pt_dev_reset(b, NULL), 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), 0, "the next launch folds: %s", pt_last_error(t));
    cr_assert_eq(get("step/phase 0").count, 2);
    pt_dev_records_free(b);
}

Test(fold, per_block_mean_min_max_and_imbalance)
{
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, NULL, PT_DEV_HOST, 0);
    /* Four blocks over the same 10 ms, 0.5 ns/cycle; phase 0 takes 1, 2,
     * 3 and 6 ms of them. Four at once: each phase's share is its sum / 4. */
    slot(b, 0, 0, 20000000, 0, 10000000, (long long[]){ 2000000, 18000000 }, NULL);
    slot(b, 1, 1, 20000000, 0, 10000000, (long long[]){ 4000000, 16000000 }, NULL);
    slot(b, 2, 2, 20000000, 0, 10000000, (long long[]){ 6000000, 14000000 }, NULL);
    slot(b, 3, 3, 20000000, 0, 10000000, (long long[]){ 12000000, 8000000 }, NULL);
    launch_cpu("step", 10000000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    pt_section_stats p0 = get("step/phase 0"), p1 = get("step/phase 1");
    cr_assert_float_eq(p0.total_ms, 3.0, EPS, "share %g", p0.total_ms);
    cr_assert_float_eq(p1.total_ms, 7.0, EPS, "share %g", p1.total_ms);
    cr_assert_float_eq(get("step/(unattributed)").total_ms, 0.0, EPS);
    cr_assert_eq(p0.blocks, 4);
    cr_assert_float_eq(p0.block_mean_ms, 3.0, EPS);
    cr_assert_float_eq(p0.block_min_ms, 1.0, EPS);
    cr_assert_float_eq(p0.block_max_ms, 6.0, EPS);
    cr_assert_float_eq(p0.imbalance, 2.0, EPS, "max/mean %g", p0.imbalance);
    cr_assert_float_eq(p1.block_min_ms, 4.0, EPS);
    cr_assert_float_eq(p1.block_max_ms, 9.0, EPS);
    /* Percentiles from the histogram: the 2nd of 4 (2 ms) and the 4th
     * (6 ms, the maximum), each within a bin's 3.2%. */
    cr_assert_float_eq(p0.block_p50_ms, 2.0, 2.0 * 0.032, "p50 %g", p0.block_p50_ms);
    cr_assert_float_eq(p0.block_p90_ms, 6.0, 6.0 * 0.032, "p90 %g", p0.block_p90_ms);
    cr_assert_leq(p0.block_p99_ms, p0.block_max_ms, "within the exact maximum");
    cr_assert_geq(p1.block_p50_ms, p1.block_min_ms);
    pt_dev_records_free(b);
}

Test(fold, own_rate_from_100_ticks_else_the_calibrated_rate)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_HOST, 0);
    /* Slot 0: exactly 100 ticks: its own 0.25 ns/cycle. Slot 1: one ns
     * short: the calibrated 0.5 ns/cycle. */
    slot(b, 0, 0, 400000, 0, 100000, (long long[]){ 100000 }, NULL);
    slot(b, 1, 1, 400000, 0, 99999, (long long[]){ 100000 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    pt_section_stats p = get("step/phase 0");
    cr_assert_float_eq(p.block_min_ms, 0.025, EPS, "own rate: %g", p.block_min_ms);
    cr_assert_float_eq(p.block_max_ms, 0.050, EPS, "calibrated rate: %g", p.block_max_ms);
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.blocks_own, 1);
    cr_assert_eq(dc.blocks_cal, 1);

    /* A finer tick makes the short block long enough for its own rate. */
    pt__calib_set(-1, 2.0, 10.0);
    cr_assert_eq(pt_dev_reset(b, NULL), 0);
    slot(b, 0, 0, 400000, 0, 100000, (long long[]){ 100000 }, NULL);
    slot(b, 1, 1, 400000, 0, 99999, (long long[]){ 100000 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.blocks_own, 3, "both blocks now: %lld", dc.blocks_own);
    cr_assert_float_eq(dc.tick_ns, 10.0, EPS);
    p = get("step/phase 0");
    cr_assert_float_eq(p.mean_ms, 0.025, 1e-9, "two blocks at about 0.25 ns/cycle: %g", p.mean_ms);
    cr_assert_float_eq(p.block_max_ms, 0.050, EPS, "the first fold's calibrated block");
    pt_dev_records_free(b);
}

Test(fold, concurrency_of_many_overlapping_blocks)
{
    pt_dev_records *b = pt_dev_records_create(t, 100, 2, NULL, PT_DEV_HOST, 0);
    /* Two waves of 50 blocks, each 1 ms long: 0.4 ms of phase 0 and 0.6 ms
     * of phase 1. The wall is 2 ms, 50 blocks run at once. */
    for (int k = 0; k < 100; k++)
        slot(b, k, k % 8, 2000000, (k / 50) * 1000000LL, 1000000,
             (long long[]){ 800000, 1200000 }, NULL);
    launch_cpu("step", 2500000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    cr_assert_float_eq(get("step/phase 0").total_ms, 0.8, EPS, "%g", get("step/phase 0").total_ms);
    cr_assert_float_eq(get("step/phase 1").total_ms, 1.2, EPS);
    cr_assert_float_eq(get("step/(unattributed)").total_ms, 0.5, EPS);
    cr_assert_float_eq(get("step/phase 0").block_mean_ms, 0.4, EPS);
    pt_dev_records_free(b);
}

Test(fold, blocks_one_after_another_with_gaps_are_not_stretched)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 2000000 }, NULL);
    slot(b, 1, 0, 2000000, 2000000, 1000000, (long long[]){ 2000000 }, NULL);
    launch_cpu("step", 3000000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    cr_assert_float_eq(get("step/phase 0").total_ms, 2.0, EPS, "the gap is not phase time: %g",
                       get("step/phase 0").total_ms);
    cr_assert_float_eq(get("step/(unattributed)").total_ms, 1.0, EPS);
    pt_dev_records_free(b);
}

Test(fold, repeated_folds_keep_first_apart_from_the_rest)
{
    const long long cycles[] = { 2000000, 1000000, 1400000 };
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_HOST, 0);
    for (int i = 0; i < 3; i++) {
        pt_dev_reset(b, 0);
        slot(b, 0, 0, 4000000, 0, 2000000, &cycles[i], NULL);
        launch_cpu("step", 2000000);
        cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    }
    pt_section_stats p = get("step/phase 0"), u = get("step/(unattributed)");
    cr_assert_eq(p.count, 3);
    cr_assert_float_eq(p.first_ms, 1.0, EPS);
    cr_assert_float_eq(p.mean_ms, 0.6, EPS, "mean %g", p.mean_ms);
    cr_assert_float_eq(p.stddev_ms, sqrt(0.02), 1e-9, "sd %g", p.stddev_ms);
    cr_assert_float_eq(p.min_ms, 0.5, EPS);
    cr_assert_float_eq(p.max_ms, 0.7, EPS);
    cr_assert_eq(p.blocks, 3);
    cr_assert_float_eq(p.block_mean_ms, 2.2 / 3, EPS);
    cr_assert_float_eq(u.total_ms, 3 * 2.0 - 2.2, EPS);
    cr_assert_float_eq(u.first_ms, 1.0, EPS);
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.folds, 3);
    pt_dev_records_free(b);
}

Test(fold, phases_longer_than_the_launch_are_scaled_to_it)
{
    pt_dev_records *b = pt_dev_records_create(t, 1, 2, NULL, PT_DEV_HOST, 0);
    /* 1.2 ms of phases in a launch the host timed at 1.0 ms. */
    slot(b, 0, 0, 2400000, 0, 1200000, (long long[]){ 800000, 1600000 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    cr_assert_float_eq(get("step/phase 0").total_ms, 1.0 / 3, EPS);
    cr_assert_float_eq(get("step/phase 1").total_ms, 2.0 / 3, EPS);
    cr_assert_float_eq(get("step/(unattributed)").total_ms, 0.0, EPS);
    /* Per-block figures stay what the block measured. */
    cr_assert_float_eq(get("step/phase 1").block_mean_ms, 0.8, EPS);
    pt_dev_records_free(b);
}

Test(fold, undone_slots_are_skipped_and_counted)
{
    pt_dev_records *b = pt_dev_records_create(t, 8, 1, NULL, PT_DEV_HOST, 0);
    for (int k = 0; k < 3; k++)
        slot(b, k, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    pt_section_stats p = get("step/phase 0");
    cr_assert_eq(p.blocks, 3);
    cr_assert_float_eq(p.total_ms, 0.5, EPS, "3 blocks at once: %g", p.total_ms);
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.slots_skipped, 5);
    cr_assert_eq(pt_error_count(t), 0, "a grid smaller than its buffer is fine: %s",
                 pt_last_error(t));
    pt_dev_records_free(b);
}

Test(fold, no_finished_slot_leaves_the_launch_unattributed)
{
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, NULL, PT_DEV_HOST, 0);
    launch_cpu("step", 1000000);
    int rc = fold(b, "step");
    cr_assert_eq(rc, PT_ESTATE, "%s", pt_strerror(rc));
    cr_assert(strstr(pt_last_error(t), "none of the 4 slots"), "%s", pt_last_error(t));
    cr_assert_float_eq(get("step/(unattributed)").total_ms, 1.0, EPS);
    cr_assert_float_eq(get("step/phase 0").total_ms, 0.0, EPS);
    pt_dev_records_free(b);
}

/* In trace records each mark's event keeps the index it was given: the
 * message names the bad ones (each once, four at most). */
Test(fold, trace_records_name_the_bad_phases)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, NULL, PT_DEV_HOST | PT_DEV_TRACE, 8);
    for (int s = 0; s < 2; s++) {
        long long *r =
            test_slot(b, s, 0, 2000000, 0, 1000000, (long long[]){ 500000, 500000 }, NULL);
        long long *e = r + PT_DEV_SLOT_HDR + 2 * 2;
        const long long codes[4] = { 0, 5, s ? -1 : 5, 1 };
        for (int k = 0; k < 4; k++) {
            e[2 * k] = codes[k];
            e[2 * k + 1] = r[PT_DEV_S_CLK0] + 400000 * (k + 1);
        }
        r[PT_DEV_S_NEVENTS] = 4;
        r[PT_DEV_S_BAD_PHASE] = 2;
    }
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), PT_ERANGE);
    cr_assert(strstr(pt_last_error(t), "4 marks with a phase index out of range (phases 5, -1): "),
              "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(fold, bad_phases_and_slots_are_counted)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    slot(b, 1, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    long long *d = pt_dev_arg(b).data;
    d[PT_DEV_HDR + PT_DEV_S_BAD_PHASE] = 2;
    d[PT_DEV_HDR + PT_DEV_SLOT_WORDS(1, 0) + PT_DEV_S_BAD_PHASE] = 3;
    d[PT_DEV_H_BAD_SLOT] = 4;
    d[PT_DEV_H_BAD_SLOT_AT] = 7;
    launch_cpu("step", 1000000);
    test_text said = { NULL, 0 };
    pt_error_fn_set(t, test_text_line, &said);
    int rc = fold(b, "step");
    pt_error_fn_set(t, NULL, NULL);
    cr_assert_eq(rc, PT_ERANGE, "%s", pt_strerror(rc));
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 2, "the marks and the slots, each said once");
    cr_assert(strstr(said.s, "5 marks with a phase index out of range (trace records, "
                             "PT_DEV_TRACE, name them)"), "%s", said.s);
    cr_assert(strstr(said.s, "4 blocks began at a slot out of range [0, 2) (PT_DEV_BEGIN_AT's "
                             "slot): the largest slot 7;"), "%s", said.s);
    cr_assert_null(strstr(said.s, " 0 "), "no half of the message says zero: %s", said.s);
    free(said.s);
    cr_assert_float_eq(get("step/phase 0").total_ms, 0.5, EPS, "still folded");
    pt_dev_records_free(b);
}

Test(fold, out_of_range_names_the_limit_a_mark_meets)
{
    /* With more phases than a kernel records by default, a mark past
     * PT_DEV_MAX_PHASES is out of range too: the message says so. */
    int np = PT_DEV_MAX_PHASES + 4;
    pt_dev_records *b = pt_dev_records_create(t, 1, np, NULL, PT_DEV_HOST, 0);
    long long cyc[PT_DEV_MAX_PHASES + 4] = { 1000000 };
    char want[128];
    slot(b, 0, 0, 2000000, 0, 1000000, cyc, NULL);
    pt_dev_arg(b).data[PT_DEV_HDR + PT_DEV_S_BAD_PHASE] = 1;
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), PT_ERANGE);
    snprintf(want, sizeof want, "only a phase below the buffer's %d and below the kernel's "
             "PT_DEV_PHASES (its ptgen list's count, else %d)", np, PT_DEV_MAX_PHASES);
    cr_assert(strstr(pt_last_error(t), want), "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(fold, dropped_trace_events_are_counted)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_HOST | PT_DEV_TRACE, 4);
    long long sw = PT_DEV_SLOT_WORDS(1, 4);
    for (int k = 0; k < 2; k++) {
        slot(b, k, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
        pt_dev_arg(b).data[PT_DEV_HDR + k * sw + PT_DEV_S_NEVENTS] = 4;
        pt_dev_arg(b).data[PT_DEV_HDR + k * sw + PT_DEV_S_DROPPED] = 3 + k;
    }
    launch_cpu("step", 1000000);
    int rc = fold(b, "step");
    cr_assert_eq(rc, PT_EFULL, "%s", pt_strerror(rc));
    launch_cpu("step", 1000000);
    fold(b, "step");
    pt_run_stats r = run_stats(t);
    cr_assert_eq(r.dropped, 14, "7 per fold: %llu", (unsigned long long)r.dropped);
    cr_assert_eq(pt_error_count_of(t, PT_EFULL), 2);
    cr_assert(strstr(pt_last_error(t), "7 trace events dropped"), "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(fold, a_trace_buffer_from_a_kernel_without_trace_stores_counts_every_mark_untraced)
{
    /* pt_dev.h without PT_DEV_TRACING stores no event and drops none; a
     * tracing kernel does one or the other for every mark. */
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, NULL, PT_DEV_HOST | PT_DEV_TRACE, 4);
    pt_dev_records *agg = pt_dev_records_create(t, 1, 2, NULL, PT_DEV_HOST, 0);
    long long sw = PT_DEV_SLOT_WORDS(2, 4);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 500000, 500000 }, (long long[]){ 3, 4 });
    slot(b, 1, 0, 2000000, 0, 1000000, (long long[]){ 500000, 500000 }, (long long[]){ 1, 1 });
    pt_dev_arg(b).data[PT_DEV_HDR + sw + PT_DEV_S_BAD_PHASE] = 2;
    launch_cpu("step", 1000000);
    int rc = fold(b, "step");
    cr_assert_eq(rc, PT_EFULL, "%s", pt_strerror(rc));
    pt_run_stats run;
    pt_dev_clock dc;
    cr_assert_eq(pt_run_get(t, &run), 0);
    cr_assert_eq(pt_dev_clock_get(t, &dc), 0);
    cr_assert_eq(dc.untraced, 11, "3 + 4 + 1 + 1 marks and 2 bad ones: %lld", dc.untraced);
    cr_assert_eq(run.dropped, 0, "no trace was full: %llu", (unsigned long long)run.dropped);
    cr_assert(strstr(pt_last_error(t), "without trace stores"), "%s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "PT_DEV_TRACING"), "%s", pt_last_error(t));
    /* The report gives the cause, not a full trace_cap. */
    test_text out = { NULL, 0 };
    pt_log_fn(t, test_text_line, &out);
    cr_assert(strstr(out.s, "11 marks on trace buffers by kernels built without trace stores "
                            "stored no event (define PT_DEV_TRACING"), "%s", out.s);
    cr_assert_null(strstr(out.s, "was full"), "%s", out.s);
    free(out.s);
    cr_assert_gt(get("step/phase 1").total_ms, 0, "the phases are folded all the same");

    /* The same record in an aggregate buffer drops nothing. */
    slot(agg, 0, 0, 2000000, 0, 1000000, (long long[]){ 500000, 500000 }, (long long[]){ 3, 4 });
    launch_cpu("agg", 1000000);
    rc = fold(agg, "agg");
    cr_assert_eq(rc, 0, "%s: %s", pt_strerror(rc), pt_last_error(t));
    cr_assert_eq(pt_run_get(t, &run), 0);
    cr_assert_eq(pt_dev_clock_get(t, &dc), 0);
    cr_assert(run.dropped == 0 && dc.untraced == 11, "an aggregate buffer's record dropped events");
    pt_dev_records_free(b);
    pt_dev_records_free(agg);
}

Test(fold, counts_past_what_a_kernel_writes_saturate_over_folds_never_wrap)
{
    /* One slot whose two phases and bad marks each hold the most a count
     * may (2^62 for one slot): the slot's untraced marks are held at
     * 2^62 (not 3 x 2^62, wrapped negative and so not counted), and over
     * two folds the timing's count stays at LLONG_MAX. */
    const long long lim = 1LL << 62;
    pt_dev_records *b = pt_dev_records_create(t, 1, 2, NULL, PT_DEV_HOST | PT_DEV_TRACE, 4);
    pt_dev_clock dc;
    for (int k = 0; k < 2; k++) {
        pt_dev_reset(b, NULL);
        long long *r = test_slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 500000, 500000 },
                                 (long long[]){ lim, lim });
        r[PT_DEV_S_BAD_PHASE] = lim;
        launch_cpu("step", 1000000);
        cr_assert_eq(fold(b, "step"), PT_EFULL, "%s", pt_last_error(t));
        cr_assert_eq(pt_dev_clock_get(t, &dc), 0);
        cr_assert_eq(dc.untraced, k ? LLONG_MAX : lim, "fold %d: %lld untraced", k + 1,
                     dc.untraced);
    }
    cr_assert_gt(get("step/phase 0").total_ms, 0, "the phases are folded all the same");
    pt_dev_records_free(b);
}

Test(fold, a_header_that_does_not_match_folds_nothing)
{
    pt_dev_records *b = pt_dev_records_create(t, 1, 2, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1, 2 }, NULL);
    long long *d = pt_dev_arg(b).data;
    launch_cpu("step", 1000000);
    d[PT_DEV_H_MAGIC] = 0x1234;
    int rc = fold(b, "step");
    cr_assert_eq(rc, PT_EINVAL, "%s", pt_strerror(rc));
    cr_assert_null(pt_find(t, "step/phase 0"), "nothing folded");
    d[PT_DEV_H_MAGIC] = PT_DEV_MAGIC;
    d[PT_DEV_H_NPHASES] = 3;
    cr_assert_eq(fold(b, "step"), PT_EINVAL);
    d[PT_DEV_H_NPHASES] = 2;
    d[PT_DEV_H_LAYOUT] = PT_DEV_LAYOUT + 1;
    cr_assert_eq(fold(b, "step"), PT_EINVAL);
    cr_assert(strstr(pt_last_error(t), "header"), "%s", pt_last_error(t));
    cr_assert_null(pt_section_child(pt_find(t, "step")));
    d[PT_DEV_H_LAYOUT] = PT_DEV_LAYOUT;
    cr_assert_eq(fold(b, "step"), 0, "whole again: %s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(fold, an_unknown_section_is_not_found)
{
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1 }, NULL);
    int rc = fold(b, "nope");
    cr_assert_eq(rc, PT_ENOTFOUND, "%s", pt_strerror(rc));
    /* The launch is looked for under the open section. */
    pt_start(t, "outer");
    launch_cpu("step", 1000);
    pt_stop(t, "outer");
    rc = fold(b, "step");
    cr_assert_eq(rc, PT_ENOTFOUND, "\"step\" is under \"outer\": %s", pt_strerror(rc));
    cr_assert(strstr(pt_last_error(t), "\"step\""), "%s", pt_last_error(t));
    pt_start(t, "outer");
    cr_assert_eq(fold(b, "step"), 0, "found under the open section: %s", pt_last_error(t));
    pt_stop(t, "outer");
    cr_assert_not_null(pt_find(t, "outer/step/phase 0"));
    cr_assert_eq(pt_error_count_of(t, PT_ENOTFOUND), 2);
    pt_dev_records_free(b);
}

Test(fold, null_arguments)
{
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_HOST, 0);
    launch_cpu("step", 1000);
    cr_assert_eq(pt_dev_fold(NULL, b, "step"), 0);
    cr_assert_eq(pt_dev_fold(t, NULL, "step"), PT_EINVAL);
    cr_assert_eq(pt_dev_fold(t, b, NULL), PT_EINVAL);
    pt_dev_clock dc;
    cr_assert_eq(pt_dev_clock_get(t, NULL), PT_EINVAL);
    cr_assert_eq(pt_dev_clock_get(NULL, &dc), 0);
    cr_assert_eq(dc.device, -1);
    cr_assert_eq(dc.calibrated, 0);
    pt_disable(t);
    cr_assert_eq(pt_dev_fold(t, b, "nope"), 0, "disabled: nothing happens");
    pt_enable(t);
    pt_dev_records_free(b);
}

Test(fold, per_sm_totals)
{
    pt_dev_records *b = pt_dev_records_create(t, 3, 2, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 200000, 400000 }, NULL);
    slot(b, 1, 3, 2000000, 0, 1000000, (long long[]){ 600000, 800000 }, NULL);
    slot(b, 2, 3, 2000000, 0, 1000000, (long long[]){ 1000000, 0 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    const pt_section *p0 = pt_find(t, "step/phase 0"), *p1 = pt_find(t, "step/phase 1");
    cr_assert_eq(p0->phase->nsm, 4, "up to the largest %%smid: %d", p0->phase->nsm);
    cr_assert_float_eq(p0->phase->sm_ns[0], 100000, 1e-6);
    cr_assert_float_eq(p0->phase->sm_ns[1], 0, 1e-6);
    cr_assert_float_eq(p0->phase->sm_ns[3], 800000, 1e-6);
    cr_assert_float_eq(p1->phase->sm_ns[3], 400000, 1e-6);
    cr_assert_float_eq(get("step/phase 1").block_min_ms, 0.0, EPS, "a block that never marked it");
    pt_dev_records_free(b);
}

Test(fold, clock_info_for_host_mode)
{
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 20, 0, 10, (long long[]){ 10 }, NULL);
    launch_cpu("step", 1000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    pt_dev_clock dc;
    cr_assert_eq(pt_dev_clock_get(t, &dc), 0);
    cr_assert_eq(dc.calibrated, 1);
    cr_assert_float_eq(dc.cycles_per_ns, 2.0, EPS);
    cr_assert_float_eq(dc.tick_ns, 1000.0, EPS);
    cr_assert_eq(dc.device, -1);
    cr_assert_str_eq(dc.device_name, "host");
    cr_assert_eq(dc.blocks_cal, 1, "10 ns is not 100 ticks");
    cr_assert_float_eq(get("step/phase 0").block_mean_ms, 5e-6, EPS);
    pt_dev_records_free(b);
}

Test(fold, the_report_shows_the_phases)
{
    const char *names[] = { "angular" };
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, names, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    launch_cpu("step", 2000000);
    fold(b, "step");
    char buf[8192] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    int rc = pt_log(t, f);
    fclose(f);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    cr_assert(strstr(buf, "angular") && strstr(buf, "(unattributed)"), "%s", buf);
    pt_dev_records_free(b);
}

/* ---- through the fake GPU: lazy, in order, copies in flight ------ */

static void gpu_timing(void)
{
    pt_destroy(t);
    t = test_timing(&clk, "fold", PT_GPU_EVENTS);
}

Test(fold, a_gpu_launch_folds_lazily_behind_its_events)
{
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(b->host, 0);
    pt_stream s = (pt_stream)(uintptr_t)0x42;
    pt_dev_reset(b, s);
    pt_start_gpu(t, "step", s);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 600000, 1000000 }, NULL);
    slot(b, 1, 1, 2000000, 0, 1000000, (long long[]){ 1000000, 600000 }, NULL);
    fake.now_ms += 1.0;
    pt_stop_gpu(t, "step", s);
    fake.not_ready = 1; /* the kernel is still running */
    int rc = fold(b, "step");
    cr_assert_eq(rc, 0, "%s", pt_last_error(t));
    cr_assert_null(pt_find(t, "step/phase 0"), "not folded before it is asked for");
    cr_assert_eq(fake.syncs, 0, "nothing waited");
    fake.not_ready = 0;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_float_eq(get("step").total_ms, 1.0, EPS);
    cr_assert_float_eq(get("step/phase 0").total_ms, 0.4, EPS);
    cr_assert_float_eq(get("step/phase 1").total_ms, 0.4, EPS);
    cr_assert_float_eq(get("step/(unattributed)").total_ms, 0.2, EPS);
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.device, 0);
    cr_assert_str_eq(dc.device_name, "Fake GPU 0");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(fold, many_folds_in_flight_each_see_their_own_launch)
{
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_AGGREGATE, 0);
    for (int i = 0; i < 10; i++) {
        pt_dev_reset(b, 0);
        pt_start_gpu(t, "step", 0);
        slot(b, 0, 0, 4000000, 0, 2000000, (long long[]){ 200000LL * (i + 1) }, NULL);
        fake.now_ms += 2.0;
        pt_stop_gpu(t, "step", 0);
        cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
        cr_assert_leq(b->pending, PT__STAGE_KEEP, "copies in flight stay bounded");
    }
    pt_sync(t);
    pt_section_stats p = get("step/phase 0");
    cr_assert_eq(p.count, 10);
    cr_assert_float_eq(p.first_ms, 0.1, EPS, "the first fold saw the first launch: %g", p.first_ms);
    cr_assert_float_eq(p.max_ms, 1.0, EPS);
    cr_assert_float_eq(p.total_ms, 5.5, 1e-9);
    cr_assert_float_eq(get("step/(unattributed)").total_ms, 20.0 - 5.5, 1e-9);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(fold, a_queued_launch_folds_once)
{
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    pt_start_gpu(t, "step", 0);
    fake.now_ms += 1;
    pt_stop_gpu(t, "step", 0);
    fake.not_ready = 1;
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    cr_assert_eq(fold(b, "step"), PT_ESTATE, "still pending, already folded");
    fake.not_ready = 0;
    pt_sync(t);
    cr_assert_eq(fold(b, "step"), PT_ESTATE, "resolved, already folded");
    cr_assert_eq(get("step/phase 0").count, 1, "folded once");
    cr_assert_eq(pt_error_count_of(t, PT_ESTATE), 2);
    pt_dev_records_free(b);
}

Test(fold, queued_folds_of_records_not_reset_between_are_said)
{
    /* Counted when the fold is asked for: the first is still queued
     * behind its launch when the second comes. */
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_AGGREGATE, 0);
    fake.not_ready = 1;
    for (int i = 0; i < 2; i++) {
        pt_start_gpu(t, "step", 0);
        slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
        fake.now_ms += 1;
        pt_stop_gpu(t, "step", 0);
        int rc = fold(b, "step");
        cr_assert_eq(rc, i ? PT_ESTATE : 0, "fold %d: %s", i, pt_last_error(t));
    }
    cr_assert(strstr(pt_last_error(t), "not reset since"), "%s", pt_last_error(t));
    fake.not_ready = 0;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(get("step/phase 0").count, 2, "both folded, the second said");
    pt_dev_records_free(b);
}

Test(fold, a_fold_takes_in_finished_launches_without_waiting)
{
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    pt_start_gpu(t, "other", 0);
    fake.now_ms += 1;
    pt_stop_gpu(t, "other", 0);
    pt_start_gpu(t, "step", 0);
    fake.now_ms += 1;
    pt_stop_gpu(t, "step", 0);
    fake.not_ready = 1;
    fold(b, "step");
    cr_assert_eq(pt_find(t, "other")->count, 0, "not finished: not waited for");
    fake.not_ready = 0;
    pt_start_gpu(t, "step", 0);
    fake.now_ms += 1;
    pt_stop_gpu(t, "step", 0);
    fold(b, "step");
    cr_assert_eq(pt_find(t, "other")->count, 1, "finished work is taken in at the fold");
    pt_sync(t);
    cr_assert_eq(get("step/phase 0").count, 2);
    pt_dev_records_free(b);
}

Test(fold, a_host_buffer_pending_behind_a_launch_keeps_its_records)
{
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_HOST, 0);
    pt_start_gpu(t, "step", 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    fake.now_ms += 1.0;
    pt_stop_gpu(t, "step", 0);
    fake.not_ready = 1;
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    cr_assert_eq(b->pending, 1, "waiting behind the launch");
    pt_dev_reset(b, 0); /* reused before the fold resolves */
    pt_sync(t);
    cr_assert_float_eq(get("step/phase 0").total_ms, 0.5, EPS, "the records as folded");
    pt_dev_records_free(b);
}

Test(fold, freeing_a_buffer_resolves_its_folds_first)
{
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_AGGREGATE, 0);
    pt_start_gpu(t, "step", 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    fake.now_ms += 1.0;
    pt_stop_gpu(t, "step", 0);
    fake.not_ready = 1;
    fold(b, "step");
    cr_assert_null(pt_find(t, "step/phase 0"));
    pt_dev_records_free(b);
    cr_assert_not_null(pt_find(t, "step/phase 0"), "resolved before the buffer went");
    cr_assert_float_eq(get("step/phase 0").total_ms, 0.5, EPS);
}

Test(fold, a_timing_destroyed_with_folds_pending_leaves_the_buffer_usable)
{
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_AGGREGATE, 0);
    pt_start_gpu(t, "step", 0);
    fake.now_ms += 1.0;
    pt_stop_gpu(t, "step", 0);
    fold(b, "step");
    cr_assert_eq(b->pending, 1);
    pt_destroy(t);
    t = NULL;
    cr_assert_eq(b->pending, 0, "the fold was dropped");
    cr_assert_eq(pt_dev_reset(b, 0), 0);
    pt_dev_records_free(b);
}

Test(fold, copy_failure_is_counted_and_folds_nothing)
{
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_AGGREGATE, 0);
    launch_cpu("cpu step", 1000);
    pt_start_gpu(t, "step", 0);
    fake.now_ms += 1.0;
    pt_stop_gpu(t, "step", 0);
    fake.memcpy_err = 700;
    int rc = fold(b, "step");
    cr_assert_eq(rc, PT_ECUDA, "%s", pt_strerror(rc));
    cr_assert(strstr(pt_last_error(t), "cudaMemcpyAsync"), "%s", pt_last_error(t));
    pt_sync(t);
    cr_assert_null(pt_find(t, "step/phase 0"));
    cr_assert_eq(b->pending, 0);
    pt_dev_records_free(b);
}

Test(fold, without_calibration_blocks_take_the_launch_average_rate)
{
    fake.library_err = 218;
    pt__calib_set(0, 0, 0);
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_AGGREGATE, 0);
    /* 2 ms of globaltimer over 8,000,000 cycles: 0.25 ns per cycle for both. */
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 2000000 }, NULL);
    slot(b, 1, 1, 6000000, 0, 1000000, (long long[]){ 6000000 }, NULL);
    pt_start_gpu(t, "step", 0);
    fake.now_ms += 2.0;
    pt_stop_gpu(t, "step", 0);
    fold(b, "step");
    pt_sync(t);
    pt_section_stats p = get("step/phase 0");
    cr_assert_float_eq(p.block_min_ms, 0.5, EPS, "%g", p.block_min_ms);
    cr_assert_float_eq(p.block_max_ms, 1.5, EPS, "%g", p.block_max_ms);
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.calibrated, 0);
    cr_assert_eq(dc.blocks_cal, 2);
    cr_assert_float_eq(dc.cycles_per_ns, 4.0, EPS);
    cr_assert_eq(pt_error_count_of(t, PT_ECUDA), 1, "said once: %s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "not calibrated"), "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

/* The device reduction, its kernel emulated by the fake runtime with the
 * same pt__red_slot() the kernel runs, gives exactly what the host fold
 * gives. Built with CUDA=0 there is no kernel: the fold says so once and
 * copies every record, with the same result. */
Test(fold, the_device_reduction_agrees_with_the_host_fold)
{
    gpu_timing();
    pt__reduce_min_slots = 1;
    enum { N = 64, P = 3 };
    pt_dev_records *dev = pt_dev_records_create(t, N, P, NULL, PT_DEV_AGGREGATE, 0);
    pt_dev_records *host = pt_dev_records_create(t, N, P, NULL, PT_DEV_HOST, 0);
    for (int k = 0; k < N - 4; k++) {
        long long c[P] = { 1000LL * (k + 1), 37LL * k * k, 500000 - 3000LL * k };
        long long h[P] = { k, 2, 1 };
        long long gt = (k % 3) ? 150000 + 1000LL * k : 50000;
        slot(dev, k, k % 7, 1000000 + 999LL * k, 10000LL * (k % 5), gt, c, h);
        slot(host, k, k % 7, 1000000 + 999LL * k, 10000LL * (k % 5), gt, c, h);
    }
    pt_start_gpu(t, "dev", 0);
    fake.now_ms += 4.0;
    pt_stop_gpu(t, "dev", 0);
    cr_assert_eq(fold(dev, "dev"), 0, "%s", pt_last_error(t));
    pt_start_gpu(t, "host", 0);
    fake.now_ms += 4.0;
    pt_stop_gpu(t, "host", 0);
    cr_assert_eq(fold(host, "host"), 0, "%s", pt_last_error(t));
    pt_sync(t);
    if (pt__fatbin_reduce_size > 0) {
        cr_assert_eq(fake.reduce_launches, 1, "the large grid was reduced on the device");
        cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    } else {
        cr_assert_eq(fake.reduce_launches, 0);
        cr_assert(strstr(pt_last_error(t), "no device reduction"), "%s", pt_last_error(t));
    }
    const char *kids[] = { "phase 0", "phase 1", "phase 2", "(unattributed)" };
    for (int i = 0; i < 4; i++) {
        char pd[64], ph[64];
        snprintf(pd, sizeof pd, "dev/%s", kids[i]);
        snprintf(ph, sizeof ph, "host/%s", kids[i]);
        pt_section_stats a = get(pd), h = get(ph);
        cr_assert_float_eq(a.total_ms, h.total_ms, 1e-12, "%s: %g vs %g", kids[i], a.total_ms,
                           h.total_ms);
        cr_assert_eq(a.blocks, h.blocks);
        cr_assert_float_eq(a.hits, h.hits, 0);
        cr_assert_float_eq(a.block_min_ms, h.block_min_ms, 1e-15);
        cr_assert_float_eq(a.block_max_ms, h.block_max_ms, 1e-15);
        cr_assert_float_eq(a.block_mean_ms, h.block_mean_ms, 1e-12);
    }
    const pt_section *sd = pt_find(t, "dev/phase 2"), *sh = pt_find(t, "host/phase 2");
    cr_assert_eq(sh->phase->nsm, 7);
    for (int s = 0; s < 7; s++)
        cr_assert_float_eq(sd->phase->sm_ns[s], sh->phase->sm_ns[s], 1e-6, "SM %d", s);
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.slots_skipped, 8, "4 unfinished slots in each buffer");
    pt_dev_records_free(dev);
    pt_dev_records_free(host);
}

/* The summary's encodings, which the device's atomics depend on: minima
 * as complemented bits, maxima as bits, the earliest start, sums. */
Test(fold, the_reduction_summary_encodes_min_and_max)
{
    pt_dev_records *b = pt_dev_records_create(t, 3, 1, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 2, 400000, 300, 200000, (long long[]){ 40000 }, (long long[]){ 5 });
    slot(b, 1, 0, 400000, 100, 200000, (long long[]){ 0 }, (long long[]){ 0 });
    slot(b, 2, 1, 400000, 200, 50000, (long long[]){ 80000 }, (long long[]){ 7 });
    pt__rword r[PT__R_WORDS(1, 3)];
    memset(r, 0, sizeof r);
    const long long *d = pt_dev_arg(b).data;
    for (int s = 0; s < 3; s++)
        pt__red_slot(r, d + PT_DEV_HDR + s * PT_DEV_SLOT_WORDS(1, 0), 1, 3, 1000.0, 0.5, 0, 0,
                     pt__count_limit(3));
    cr_assert_eq(r[PT__R_DONE].i, 3);
    cr_assert_eq(r[PT__R_OWN].i, 2);
    cr_assert_eq(r[PT__R_CAL].i, 1);
    cr_assert_eq((long long)~r[PT__R_GT0_INV].u, 5000000100LL, "earliest BEGIN");
    cr_assert_eq(r[PT__R_GT1_MAX].i, 5000000300LL + 200000, "latest END");
    cr_assert_float_eq(pt__bitsd(~r[PT__R_MIN_INV(0)].u), 0.0, 0, "a block with none of it");
    cr_assert_float_eq(pt__bitsd(r[PT__R_MAX(0)].u), 40000.0, 0, "80000 cycles at 0.5 ns");
    cr_assert_float_eq(r[PT__R_SUM(0)].d, 20000.0 + 40000.0, 0);
    cr_assert_eq(r[PT__R_HITS(0)].i, 12);
    cr_assert_float_eq(r[PT__R_SPAN_SUM].d, 200000.0 * 2 + 200000.0, 0);
    cr_assert_float_eq(pt__bitsd(r[PT__R_SPAN_MAX].u), 200000.0, 0);
    cr_assert_float_eq(r[PT__R_SM(1, 2, 0)].d, 20000.0, 0);
    cr_assert_float_eq(r[PT__R_SM(1, 1, 0)].d, 40000.0, 0);
    pt_dev_records_free(b);
}

/* ---- host mode end to end: pt_dev.h on the CPU, real clocks ------ */

static void spin_host_ns(long long ns)
{
    long long t0 = pt_dev_host_ns();
    while (pt_dev_host_ns() - t0 < ns) {
    }
}

/* pt_dev.h's CPU side writes the records (TSC and CLOCK_MONOTONIC), the
 * host calibration is measured, and the fold turns them into phases. Real
 * clocks promise only bounds: each phase lasts at least its spin. */
Test(fold, host_mode_records_from_pt_dev_h_fold_into_phases)
{
    pt__calib_set(-1, 0, 0); /* the real host calibration */
    pt_destroy(t);
    t = pt_create("fold", PT_CPU);
    const char *names[] = { "long", "short" };
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, names, PT_DEV_HOST, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    pt_dev_buf buf = pt_dev_arg(b);
    pt_start(t, "step");
    for (int k = 0; k < 4; k++) {
        PT_DEV_BEGIN_AT(buf, k);
        spin_host_ns(200000);
        PT_DEV_MARK(0);
        spin_host_ns(100000);
        PT_DEV_MARK(1);
        spin_host_ns(50000);
        PT_DEV_MARK(1);
        PT_DEV_END(buf);
    }
    pt_stop(t, "step");
    int rc = pt_dev_fold(t, b, "step");
    cr_assert_eq(rc, 0, "pt_dev_fold: %s", pt_last_error(t));
    pt_section_stats launch = get("step"), lg = get("step/long"), sh = get("step/short"),
                     un = get("step/(unattributed)");
    cr_assert_eq(lg.blocks, 4);
    cr_assert_float_eq(lg.hits, 4, 0);
    cr_assert_float_eq(sh.hits, 8, 0, "two marks of it per slot");
    cr_assert_geq(lg.block_min_ms, 0.2 * 0.99, "a 200 us spin: %g ms", lg.block_min_ms);
    cr_assert_geq(sh.block_min_ms, 0.15 * 0.99, "two spins, 150 us: %g ms", sh.block_min_ms);
    cr_assert_geq(lg.total_ms, 4 * 0.2 * 0.99, "slots one after another add up: %g", lg.total_ms);
    cr_assert_float_eq(lg.total_ms + sh.total_ms + un.total_ms, launch.total_ms, 1e-9);
    cr_assert_geq(un.total_ms, 0.0);
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.calibrated, 1);
    cr_assert_str_eq(dc.device_name, "host");
    cr_assert_eq(dc.blocks_own, 4, "350 us is far more than 100 CLOCK_MONOTONIC steps");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

/* Records no kernel writes (corrupted memory, a hostile buffer) neither
 * overflow (UBSan) nor wrap a count negative, nor hide the bad marks or
 * drops of the records that are whole: each such record is counted,
 * said, and left out. */
Test(fold, hostile_records_are_left_out_and_said)
{
    enum { N = 8 };
    pt_dev_records *b = pt_dev_records_create(t, N, 2, NULL, PT_DEV_HOST | PT_DEV_TRACE, 4);
    long long sw = PT_DEV_SLOT_WORDS(2, 4), *d = pt_dev_arg(b).data;
    for (int k = 0; k < N; k++)
        slot(b, k, 0, 2000000, 0, 1000000, (long long[]){ 500000, 500000 }, NULL);
    long long *r;
    r = d + PT_DEV_HDR + 0 * sw; /* clocks at the extremes: CLK1 - CLK0 overflows */
    r[PT_DEV_S_CLK0] = LLONG_MIN;
    r[PT_DEV_S_CLK1] = LLONG_MAX;
    r = d + PT_DEV_HDR + 1 * sw; /* globaltimer going back */
    r[PT_DEV_S_GT0] = LLONG_MAX;
    r[PT_DEV_S_GT1] = LLONG_MIN;
    r = d + PT_DEV_HDR + 2 * sw; /* hits that would wrap the sum */
    r[PT_DEV_SLOT_HDR + 1] = LLONG_MAX;
    r = d + PT_DEV_HDR + 3 * sw;
    r[PT_DEV_SLOT_HDR + 3] = LLONG_MAX;
    r = d + PT_DEV_HDR + 4 * sw; /* negative hits */
    r[PT_DEV_SLOT_HDR + 1] = -2;
    r = d + PT_DEV_HDR + 5 * sw; /* drops and bad marks past any count */
    r[PT_DEV_S_DROPPED] = LLONG_MAX;
    r[PT_DEV_S_BAD_PHASE] = LLONG_MAX;
    r = d + PT_DEV_HDR + 6 * sw; /* more events than the trace holds */
    r[PT_DEV_S_NEVENTS] = 5;
    r = d + PT_DEV_HDR + 7 * sw; /* whole: a bad mark and a dropped event */
    r[PT_DEV_S_BAD_PHASE] = 1;
    r[PT_DEV_S_NEVENTS] = 4;
    r[PT_DEV_S_DROPPED] = 3;
    launch_cpu("step", 2000000);
    test_text said = { NULL, 0 };
    pt_error_fn_set(t, test_text_line, &said);
    cr_assert_lt(fold(b, "step"), 0);
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 2, "bad marks, and the hostile records: %s",
                 said.s);
    cr_assert_eq(pt_error_count_of(t, PT_EFULL), 1, "the drops: %s", said.s);
    cr_assert(strstr(said.s, "7 block records hold what no kernel writes"), "%s", said.s);
    cr_assert(strstr(said.s, "1 mark with a phase index out of range"), "%s", said.s);
    cr_assert(strstr(said.s, "3 trace events dropped"), "%s", said.s);
    pt_error_fn_set(t, NULL, NULL);
    free(said.s);
    pt_run_stats run = run_stats(t);
    cr_assert_eq(run.dropped, 3, "the whole record's drops, not lost: %llu",
                 (unsigned long long)run.dropped);
    for (int p = 0; p < 2; p++) {
        char path[32];
        snprintf(path, sizeof path, "step/phase %d", p);
        pt_section_stats st = get(path);
        cr_assert_eq(st.blocks, 1, "the whole record alone: %llu", (unsigned long long)st.blocks);
        cr_assert_float_eq(st.hits, 1, 0, "never negative, never wrapped: %g", st.hits);
        cr_assert(isfinite(st.total_ms) && st.total_ms >= 0, "%g", st.total_ms);
    }
    pt_dev_records_free(b);
}

Test(fold, a_fold_of_an_open_launch_says_it_is_open)
{
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_HOST, 0);
    pt_start(t, "step");
    cr_assert_eq(fold(b, "step"), PT_ESTATE);
    cr_assert(strstr(pt_last_error(t), "the launch is still open"), "%s", pt_last_error(t));
    clk.now += 1000;
    pt_stop(t, "step");
    pt_dev_records_free(b);
}

Test(fold, records_folded_again_without_a_reset_are_said)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_HOST, 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    slot(b, 1, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), 0, "%s", pt_last_error(t));
    /* A second launch, reaching slot 0 alone, without pt_dev_reset. */
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), PT_ESTATE);
    cr_assert(strstr(pt_last_error(t), "folded already and not reset since"), "%s",
              pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, NULL), 0);
    slot(b, 0, 0, 2000000, 0, 1000000, (long long[]){ 1000000 }, NULL);
    launch_cpu("step", 1000000);
    cr_assert_eq(fold(b, "step"), 0, "after a reset: %s", pt_last_error(t));
    pt_section_stats st = get("step/phase 0");
    cr_assert_eq(st.blocks, 2 + 2 + 1, "the stale slot folded (said), then the reset launch's one");
    pt_dev_records_free(b);
}

Test(fold, without_a_device_the_fold_says_no_kernel_ran_once)
{
    /* Records asked for on the device fall back to host memory when there
     * is none; a fold of them, unwritten, says why once and claims no
     * conversion. */
    fake.device_count = 0;
    gpu_timing();
    pt_dev_records *b = pt_dev_records_create(t, 64, 2, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    for (int i = 0; i < 3; i++) {
        pt_dev_reset(b, NULL);
        pt_start_gpu(t, "step", NULL);
        pt_stop_gpu(t, "step", NULL);
        cr_assert_eq(fold(b, "step"), PT_ENODEV, "fold %d: %s", i, pt_last_error(t));
    }
    cr_assert(strstr(pt_last_error(t), "no kernel ran (no CUDA device)"), "%s", pt_last_error(t));
    cr_assert_null(strstr(pt_last_error(t), "slots finished"), "%s", pt_last_error(t));
    cr_assert_eq(pt_error_count_of(t, PT_ENODEV), 1, "said once");
    test_text txt = { 0 };
    cr_assert_eq(pt_log_fn(t, test_text_line, &txt), 0);
    char *r = txt.s;
    cr_assert(strstr(r, "3 folds, no block record finished, so no cycle was converted"), "%s", r);
    cr_assert_null(strstr(r, "taken out of every phase"), "%s", r);
    free(r);
    pt_dev_records_free(b);
}
