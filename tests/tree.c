/* The section tree: identity of sections, nesting, statistics, misuse. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common.h"

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    t = test_timing(&clk, "tree", PT_CPU);
    cr_assert_not_null(t, "pt_create failed");
}

static void teardown(void)
{
    pt_destroy(t);
}

TestSuite(tree, .init = setup, .fini = teardown);

static pt_section_stats get(const char *path)
{
    pt_section_stats s;
    const pt_section *sec = pt_find(t, path);
    cr_assert_not_null(sec, "pt_find(\"%s\") found nothing", path);
    cr_assert_eq(pt_section_get(t, sec, &s), 0);
    return s;
}

Test(tree, first_occurrence_is_apart_from_the_rest)
{
    TEST_SPAN(t, &clk, "step", 100);
    TEST_SPAN(t, &clk, "step", 10);
    TEST_SPAN(t, &clk, "step", 20);
    TEST_SPAN(t, &clk, "step", 30);
    pt_section_stats s = get("step");
    cr_assert_eq(s.count, 4);
    cr_assert_float_eq(s.total_ms, 160e-6, 1e-15, "total %g", s.total_ms);
    cr_assert_float_eq(s.first_ms, 100e-6, 1e-15);
    cr_assert_float_eq(s.mean_ms, 20e-6, 1e-15, "mean %g", s.mean_ms);
    cr_assert_float_eq(s.stddev_ms, 10e-6, 1e-15, "sd %g", s.stddev_ms);
    cr_assert_float_eq(s.min_ms, 10e-6, 1e-15);
    cr_assert_float_eq(s.max_ms, 30e-6, 1e-15);
}
