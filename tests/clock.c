/* The real clocks: only what real clocks promise (order, bounds). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

Test(clock, a_user_clock_that_goes_back_counts_an_error)
{
    /* A user clock may go back: the occurrence counts as 0 ns, never a
     * negative time, and the fault is counted and said. */
    test_clock c;
    pt_timing *t = test_timing(&c, "back", PT_CPU | PT_TRACE);
    pt_section_stats s;

    c.now = 5000;
    pt_start(t, "work");
    c.now = 1000;
    cr_assert_eq(pt_stop(t, "work"), PT_ERANGE);
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 1);
    cr_assert(strstr(pt_last_error(t), "pt_stop(\"work\"): the user clock went back by 4000 ticks"),
              "%s", pt_last_error(t));
    pt_section_get(t, pt_find(t, "work"), &s);
    cr_assert_eq(s.count, 1, "the occurrence is kept");
    cr_assert_eq(s.total_ms, 0.0, "as 0 ns, not negative: %g", s.total_ms);
    cr_assert_eq(s.min_ms, 0.0);
    cr_assert_geq(run_stats(t).total_ms, 0.0);

    /* From the most negative reading to the most positive one and back:
     * no signed overflow (UBSan) and no negative figure. */
    c.now = INT64_MIN;
    pt_start(t, "far");
    c.now = INT64_MAX;
    cr_assert_eq(pt_stop(t, "far"), 0, "%s", pt_last_error(t));
    pt_start(t, "far");
    c.now = INT64_MIN;
    cr_assert_eq(pt_stop(t, "far"), PT_ERANGE);
    pt_section_get(t, pt_find(t, "far"), &s);
    cr_assert_eq(s.count, 2);
    cr_assert_gt(s.first_ms, 1e12, "the whole range forward: %g ms", s.first_ms);
    cr_assert_eq(s.min_ms, 0.0, "the whole range back counts 0");
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    cr_assert_eq(pt_log(t, f), 0);
    fclose(f);
    char *errs = strstr(buf, "errors; last:");
    cr_assert_not_null(errs, "%s", buf);
    *errs = '\0'; /* the message quotes the readings */
    for (const char *m = buf; (m = strchr(m, '-')) != NULL; m++)
        cr_assert(m[1] < '0' || m[1] > '9', "no negative figure in the report:\n%s", buf);
    free(buf);
    pt_destroy(t);
}
