/* The real clocks: only what real clocks promise (order, bounds). */
#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

#include "common.h"

static void sleep_ns(long ns)
{
    struct timespec ts = { ns / 1000000000, ns % 1000000000 };
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void check_clock(unsigned flags, const char *want)
{
    pt_timing *t = pt_create("clock", flags);
    cr_assert_not_null(t);
    pt_run_stats r = run_stats(t);
    if (want)
        cr_assert_str_eq(r.clock, want);
    for (int i = 0; i < 3; i++) {
        pt_start(t, "sleep");
        sleep_ns(2000000);
        pt_stop(t, "sleep");
    }
    pt_section_stats s;
    pt_section_get(t, pt_find(t, "sleep"), &s);
    cr_assert_eq(s.count, 3);
    cr_assert_geq(s.first_ms, 2.0, "%s: a 2 ms sleep took %g ms", r.clock, s.first_ms);
    cr_assert_geq(s.min_ms, 2.0, "%s: min %g ms", r.clock, s.min_ms);
    cr_assert_lt(s.max_ms, 500.0, "%s: max %g ms", r.clock, s.max_ms);
    pt_destroy(t);
}

Test(clock, default_clock_measures_a_sleep)
{
    check_clock(PT_CPU, NULL);
}

Test(clock, clock_gettime_when_asked)
{
    check_clock(PT_NO_TSC, "clock_gettime");
}

Test(clock, tsc_is_used_and_calibrated_where_invariant)
{
    pt_timing *t = pt_create("tsc", PT_CPU);
    pt_run_stats r = run_stats(t);
    pt_destroy(t);
    if (strcmp(r.clock, "tsc") != 0)
        cr_skip_test("no invariant TSC on this CPU (clock: %s)", r.clock);
    cr_assert_gt(r.clock_ghz, 0.1, "TSC at %g GHz", r.clock_ghz);
    cr_assert_lt(r.clock_ghz, 10.0, "TSC at %g GHz", r.clock_ghz);
}

Test(clock, nested_sections_are_ordered)
{
    pt_timing *t = pt_create("order", PT_CPU);
    pt_start(t, "outer");
    pt_start(t, "inner");
    sleep_ns(1000000);
    pt_stop(t, "inner");
    pt_stop(t, "outer");
    pt_section_stats o, i;
    pt_section_get(t, pt_find(t, "outer"), &o);
    pt_section_get(t, pt_find(t, "outer/inner"), &i);
    cr_assert_geq(o.total_ms, i.total_ms, "outer %g < inner %g", o.total_ms, i.total_ms);
    cr_assert_geq(i.total_ms, 1.0);
    pt_destroy(t);
}
