/* PT_SECTION and PT_FUNC: sections that end however control leaves them. */
#include <criterion/criterion.h>

#include "common.h"

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    t = test_timing(&clk, "scope", PT_CPU);
}

static void teardown(void)
{
    pt_destroy(t);
}

TestSuite(scope, .init = setup, .fini = teardown);

static uint64_t count_of(const char *path)
{
    pt_section_stats s;
    const pt_section *sec = pt_find(t, path);
    cr_assert_not_null(sec, "no section %s", path);
    pt_section_get(t, sec, &s);
    cr_assert_eq(s.open, 0, "%s must be closed", path);
    return s.count;
}

Test(scope, ends_when_the_block_ends_and_takes_metrics)
{
    PT_SECTION(t, "matrix_multiply", .flops = 12345, .read = 1024) {
        pt_add(t, .written = 234544);
        clk.now += 100;
    }
    pt_section_stats s;
    pt_section_get(t, pt_find(t, "matrix_multiply"), &s);
    cr_assert_eq(s.count, 1);
    cr_assert_float_eq(s.total_ms, 100e-6, 1e-15);
    cr_assert_float_eq(s.flops, 12345, 0);
    cr_assert_float_eq(s.written_bytes, 234544, 0);
    cr_assert_eq(run_stats(t).open_count, 0);
}

static int early_return(int fail)
{
    PT_SECTION(t, "work") {
        clk.now += 10;
        if (fail)
            return -1;
        clk.now += 10;
    }
    return 0;
}

Test(scope, ends_on_return)
{
    cr_assert_eq(early_return(1), -1);
    cr_assert_eq(early_return(0), 0);
    cr_assert_eq(count_of("work"), 2);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

Test(scope, ends_on_goto_out)
{
    for (int i = 0; i < 3; i++) {
        PT_SECTION(t, "try") {
            if (i == 1)
                goto out;
        }
    }
out:
    cr_assert_eq(count_of("try"), 2);
    cr_assert_eq(run_stats(t).open_count, 0);
}

Test(scope, break_leaves_the_section_not_the_loop)
{
    int iterations = 0;
    for (int i = 0; i < 4; i++) {
        PT_SECTION(t, "body") {
            if (i % 2)
                break; /* leaves PT_SECTION's block only */
            clk.now += 1;
        }
        iterations++;
    }
    cr_assert_eq(iterations, 4, "the enclosing loop ran on");
    cr_assert_eq(count_of("body"), 4);
}

Test(scope, nested_scopes)
{
    PT_SECTION(t, "outer") {
        PT_SECTION(t, "inner") { clk.now += 5; }
        PT_SECTION(t, "inner") { clk.now += 5; }
    }
    cr_assert_eq(count_of("outer/inner"), 2);
    cr_assert_eq(count_of("outer"), 1);
}

static int timed_function(int x)
{
    PT_FUNC(t);
    clk.now += 7;
    if (x > 0)
        return timed_function(x - 1) + 1;
    return 0;
}

Test(scope, func_times_the_function_under_its_name)
{
    cr_assert_eq(timed_function(0), 0);
    cr_assert_eq(timed_function(0), 0);
    cr_assert_eq(count_of("timed_function"), 2);
    cr_assert_eq(timed_function(2), 2);
    cr_assert_eq(count_of("timed_function/timed_function/timed_function"), 1,
                 "recursion nests");
}

Test(scope, null_timing_runs_the_block_once)
{
    int runs = 0;
    PT_SECTION((pt_timing *)NULL, "x") { runs++; }
    cr_assert_eq(runs, 1);
}

/* pt_default() as a process's first timing: pt_create() then measures
 * ptkit's cost with a timing of its own, whose pt_destroy() takes the
 * default's lock; it must not be held then (it was: a hang). */
Test(scope, the_default_as_the_first_timing_returns, .timeout = 30)
{
    pt_timing *d = pt_default();
    cr_assert_not_null(d);
    pt_run_stats r;
    cr_assert_eq(pt_run_get(d, &r), 0);
    cr_assert_gt(r.pair_ns, 0, "its cost measured, as any first timing's");
}

Test(scope, default_instance_is_one_per_process)
{
    pt_timing *a = pt_default(), *b = pt_default();
    cr_assert_not_null(a);
    cr_assert_eq(a, b, "the same instance");
    cr_assert_str_eq(pt_name(a), "ptkit");
    PT_SECTION(pt_default(), "via default") {}
    cr_assert_not_null(pt_find(a, "via default"));
    pt_destroy(a);
    pt_timing *c = pt_default();
    cr_assert_not_null(c, "a new default after destroy");
    cr_assert_null(pt_find(c, "via default"), "and it is fresh");
}
