/* The section tree: identity of sections, nesting, statistics, misuse. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
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

Test(tree, same_title_under_two_parents_is_two_sections)
{
    pt_start(t, "a");
    TEST_SPAN(t, &clk, "x", 5);
    pt_stop(t, "a");
    pt_start(t, "b");
    TEST_SPAN(t, &clk, "x", 7);
    pt_stop(t, "b");
    cr_assert_neq(pt_find(t, "a/x"), pt_find(t, "b/x"), "a/x and b/x must differ");
    cr_assert_eq(get("a/x").count, 1);
    cr_assert_float_eq(get("b/x").total_ms, 7e-6, 1e-15);
    cr_assert_eq(run_stats(t).section_count, 4, "a, b, a/x, b/x");
}

Test(tree, title_repeated_in_a_loop_is_one_section)
{
    for (int i = 0; i < 1000; i++)
        TEST_SPAN(t, &clk, "iter", 3);
    cr_assert_eq(run_stats(t).section_count, 1);
    pt_section_stats s = get("iter");
    cr_assert_eq(s.count, 1000);
    cr_assert_float_eq(s.total_ms, 3e-3, 1e-12);
    cr_assert_float_eq(s.stddev_ms, 0, 1e-18);
}

Test(tree, a_reused_buffer_with_a_new_title_is_a_new_section)
{
    char buf[32];
    for (int i = 0; i < 3; i++) {
        snprintf(buf, sizeof buf, "frame %d", i);
        TEST_SPAN(t, &clk, buf, 10 * (i + 1));
    }
    cr_assert_eq(run_stats(t).section_count, 3, "the same pointer held three titles");
    cr_assert_float_eq(get("frame 2").total_ms, 30e-6, 1e-15);
    snprintf(buf, sizeof buf, "frame 0");
    TEST_SPAN(t, &clk, buf, 1);
    cr_assert_eq(get("frame 0").count, 2);
}

Test(tree, a_stop_through_a_reused_buffer_holding_another_title_is_a_mismatch)
{
    char buf[32];
    snprintf(buf, sizeof buf, "load");
    pt_start(t, buf);
    snprintf(buf, sizeof buf, "save");
    cr_assert_eq(pt_stop(t, buf), PT_EMISMATCH);
    cr_assert_eq(run_stats(t).open_count, 1, "load stays open");
    snprintf(buf, sizeof buf, "load");
    cr_assert_eq(pt_stop(t, buf), 0);
    cr_assert_eq(get("load").count, 1);
}

/* A title built each call (snprintf, std::string, Python) is found by its
 * text on the fast path: the same section, the stops matched. */
Test(tree, a_title_in_a_new_buffer_each_call_is_the_same_section)
{
    char *bufs[4];
    for (int i = 0; i < 4; i++) {
        bufs[i] = malloc(16);
        snprintf(bufs[i], 16, "built");
    }
    for (int i = 0; i < 40; i++) {
        pt_start(t, bufs[i % 4]);
        cr_assert_eq(pt_stop(t, bufs[(i + 1) % 4]), 0);
    }
    cr_assert_eq(run_stats(t).section_count, 1);
    cr_assert_eq(get("built").count, 40);
    cr_assert_eq(run_stats(t).error_count, 0);
    for (int i = 0; i < 4; i++)
        free(bufs[i]);
}

Test(tree, nesting_to_any_depth)
{
    enum { D = 2000 };
    for (int i = 0; i < D; i++)
        pt_start(t, "level");
    clk.now += 1000;
    for (int i = 0; i < D; i++)
        cr_assert_eq(pt_stop(t, "level"), 0, "stop %d", i);
    const pt_section *s = pt_root(t);
    int depth = 0;
    while (pt_section_child(s)) {
        s = pt_section_child(s);
        depth++;
    }
    cr_assert_eq(depth, D);
    pt_section_stats st;
    pt_section_get(t, s, &st);
    cr_assert_eq(st.depth, D);
    cr_assert_float_eq(st.total_ms, 1e-3, 1e-15);
    char path[16];
    int n = pt_section_path(s, path, sizeof path);
    cr_assert_eq(n, D * 6 - 1, "length of level/level/...: %d", n);
    cr_assert_str_eq(path, "level/level/lev", "cut like snprintf");
}

Test(tree, metrics_given_on_start_stop_and_inside_add_up)
{
    pt_start(t, "op", .read = 1000, .flops = 10);
    pt_add(t, .written = 500);
    pt_add(t, .flops = 5);
    clk.now += 1000;
    pt_stop(t, "op", .read = 24, .written = 1, .flops = 1);
    pt_section_stats s = get("op");
    cr_assert_float_eq(s.read_bytes, 1024, 0);
    cr_assert_float_eq(s.written_bytes, 501, 0);
    cr_assert_float_eq(s.flops, 16, 0);
}

Test(tree, rates_are_over_the_total_time)
{
    /* 2 GB read, 1 GB written and 4 GFLOP in two occurrences of 0.5 s. */
    TEST_SPAN(t, &clk, "k", 500000000, .read = 1e9, .written = 5e8, .flops = 2e9);
    TEST_SPAN(t, &clk, "k", 500000000, .read = 1e9, .written = 5e8, .flops = 2e9);
    pt_section_stats s = get("k");
    cr_assert_float_eq(s.read_gbs, 2.0, 1e-12, "read GB/s %g", s.read_gbs);
    cr_assert_float_eq(s.write_gbs, 1.0, 1e-12);
    cr_assert_float_eq(s.gflops, 4.0, 1e-12);
}

Test(tree, self_time_and_percentages)
{
    pt_start(t, "outer");
    clk.now += 100;
    TEST_SPAN(t, &clk, "inner", 300);
    TEST_SPAN(t, &clk, "other", 100);
    pt_stop(t, "outer");
    TEST_SPAN(t, &clk, "tail", 500);
    pt_section_stats o = get("outer"), i = get("outer/inner"), tl = get("tail");
    cr_assert_float_eq(o.total_ms, 500e-6, 1e-15);
    cr_assert_float_eq(o.self_ms, 100e-6, 1e-15, "self %g", o.self_ms);
    cr_assert_float_eq(i.pct_parent, 60, 1e-9, "inner of outer %g", i.pct_parent);
    cr_assert_float_eq(i.pct_total, 30, 1e-9, "inner of the whole %g", i.pct_total);
    cr_assert_float_eq(tl.pct_parent, 50, 1e-9);
    cr_assert_float_eq(run_stats(t).total_ms, 1e-3, 1e-15);
}

Test(tree, stop_without_start_is_counted_and_described)
{
    int rc = pt_stop(t, "ghost");
    cr_assert_eq(rc, PT_ENOSTART, "got %s", pt_err_name(rc));
    cr_assert_eq(pt_error_count(t), 1);
    cr_assert_eq(pt_error_count_of(t, PT_ENOSTART), 1);
    cr_assert(strstr(pt_last_error(t), "ghost"), "message: %s", pt_last_error(t));
    cr_assert_eq(run_stats(t).section_count, 0, "nothing is created by a bad stop");
}

Test(tree, mismatched_stop_names_the_open_stack_and_closes_nothing)
{
    pt_start(t, "frame");
    pt_start(t, "solve");
    int rc = pt_stop(t, "frame");
    cr_assert_eq(rc, PT_EMISMATCH, "got %s", pt_err_name(rc));
    cr_assert(strstr(pt_last_error(t), "frame > solve"), "message: %s", pt_last_error(t));
    cr_assert_eq(run_stats(t).open_count, 2, "nothing was closed");
    cr_assert_eq(pt_stop(t, "solve"), 0);
    cr_assert_eq(pt_stop(t, "frame"), 0);
    cr_assert_eq(run_stats(t).open_count, 0);
    cr_assert_eq(pt_error_count(t), 1);
}

Test(tree, open_sections_are_kept_and_marked)
{
    pt_start(t, "never closed");
    clk.now += 10;
    pt_section_stats s = get("never closed");
    cr_assert_eq(s.open, 1);
    cr_assert_eq(s.count, 0);
    cr_assert_eq(run_stats(t).open_count, 1);
}

Test(tree, null_timing_is_a_no_op_everywhere)
{
    pt_timing *n = NULL;
    cr_assert_eq(pt_start(n, "x", .flops = 1), 0);
    cr_assert_eq(pt_stop(n, "x"), 0);
    cr_assert_eq(pt_add(n, .read = 1), 0);
    cr_assert_eq(pt_transfer(n, 10, PT_H2D), 0);
    cr_assert_eq(pt_start_gpu(n, "g", 0), 0);
    cr_assert_eq(pt_stop_gpu(n, "g", 0), 0);
    cr_assert_eq(pt_sync(n), 0);
    cr_assert_eq(pt_clock_set(n, test_clock_read, &clk), 0);
    PT_SECTION(n, "scoped") { cr_assert_eq(pt_add(n, .flops = 1), 0); }
    pt_disable(n);
    pt_enable(n);
    pt_reset(n);
    pt_destroy(n);
    cr_assert_eq(pt_enabled(n), 0);
    cr_assert_eq(pt_error_count(n), 0);
    cr_assert_str_eq(pt_last_error(n), "");
    cr_assert_str_eq(pt_name(n), "");
    cr_assert_null(pt_root(n));
    cr_assert_null(pt_find(n, "x"));
    cr_assert_eq(run_stats(n).section_count, 0);
    const pt_section *out[1];
    cr_assert_eq(pt_bottlenecks(n, 1, out), 0);
}

Test(tree, null_title_is_invalid)
{
    cr_assert_eq(pt_start(t, NULL), PT_EINVAL);
    cr_assert_eq(run_stats(t).open_count, 0);
    pt_start(t, "a");
    cr_assert_eq(pt_stop(t, NULL), PT_EINVAL);
    cr_assert_eq(run_stats(t).open_count, 1, "a is still open");
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 2);
}

Test(tree, bad_metrics_are_rejected_and_said)
{
    cr_assert_eq(pt_start(t, "m", .read = -1), PT_ERANGE);
    cr_assert_eq(run_stats(t).open_count, 1, "the section opens all the same");
    cr_assert_eq(pt_add(t, .flops = NAN), PT_ERANGE);
    cr_assert_eq(pt_add(t, .written = INFINITY), PT_ERANGE);
    cr_assert_eq(pt_add(t, .written = 8), 0);
    cr_assert_eq(pt_stop(t, "m", .flops = -INFINITY), PT_ERANGE);
    pt_section_stats s = get("m");
    cr_assert_eq(s.count, 1, "the stop still closed the section");
    cr_assert_float_eq(s.read_bytes, 0, 0);
    cr_assert_float_eq(s.written_bytes, 8, 0);
    cr_assert_float_eq(s.flops, 0, 0);
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 4);
    cr_assert(strstr(pt_last_error(t), "finite"), "%s", pt_last_error(t));
}

Test(tree, huge_metrics_saturate_and_are_said)
{
    cr_assert_eq(pt_start(t, "big", .flops = 1e308), 0, "the largest doubles are metrics");
    cr_assert_eq(pt_add(t, .flops = 1e308), PT_ERANGE, "but their sum passes DBL_MAX");
    cr_assert(strstr(pt_last_error(t), "saturated") && strstr(pt_last_error(t), "\"big\""),
              "%s", pt_last_error(t));
    cr_assert_eq(pt_add(t, .read = DBL_MAX, .written = 1), 0);
    cr_assert_eq(pt_transfer(t, DBL_MAX, PT_H2D), 0);
    cr_assert_eq(pt_transfer(t, DBL_MAX, PT_H2D), PT_ERANGE);
    cr_assert(strstr(pt_last_error(t), "pt_transfer"), "%s", pt_last_error(t));
    cr_assert_eq(pt_stop(t, "big", .read = DBL_MAX), PT_ERANGE);
    pt_section_stats s = get("big");
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.flops, DBL_MAX, "held, not infinite");
    cr_assert_eq(s.read_bytes, DBL_MAX);
    cr_assert_eq(s.written_bytes, 1);
    cr_assert_eq(s.xfer_bytes[0], DBL_MAX);
    cr_assert(isfinite(s.gflops) && isfinite(s.read_gbs), "rates stay finite: %g %g", s.gflops,
              s.read_gbs);
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 3);
    /* The saved run holds numbers, not nulls, and packs. */
    void *buf;
    size_t len;
    cr_assert_eq(pt_pack(t, &buf, &len), 0, "%s", pt_last_error(t));
    free(buf);
}

Test(tree, transfers_have_a_rate_by_direction)
{
    pt_start(t, "upload");
    cr_assert_eq(pt_transfer(t, 4e9, PT_H2D), 0);
    cr_assert_eq(pt_transfer(t, 1e9, PT_D2H), 0);
    cr_assert_eq(pt_transfer(t, 1e9, PT_H2D), 0);
    clk.now += 1000000000;
    pt_stop(t, "upload");
    pt_section_stats s = get("upload");
    cr_assert_float_eq(s.xfer_bytes[0], 5e9, 0);
    cr_assert_float_eq(s.xfer_gbs[0], 5.0, 1e-12, "H2D GB/s %g", s.xfer_gbs[0]);
    cr_assert_float_eq(s.xfer_gbs[1], 1.0, 1e-12);
    cr_assert_float_eq(s.xfer_gbs[2], 0, 0);
}

Test(tree, transfer_misuse)
{
    cr_assert_eq(pt_transfer(t, 1, PT_H2D), PT_ENOSTART, "outside any section");
    pt_start(t, "x");
    cr_assert_eq(pt_transfer(t, 1, PT_H2D | PT_D2H), PT_EINVAL, "two directions");
    cr_assert_eq(pt_transfer(t, 1, 0), PT_EINVAL, "no direction");
    cr_assert_eq(pt_transfer(t, -5, PT_D2D), PT_ERANGE);
    cr_assert_eq(pt_transfer(t, NAN, PT_D2D), PT_ERANGE);
    pt_stop(t, "x");
    cr_assert_float_eq(get("x").xfer_bytes[2], 0, 0);
    cr_assert_eq(pt_error_count(t), 5);
}

Test(tree, add_outside_a_section)
{
    cr_assert_eq(pt_add(t, .flops = 1), PT_ENOSTART);
    cr_assert_eq(pt_error_count(t), 1);
}

Test(tree, disabled_calls_do_nothing_and_pairs_stay_matched)
{
    pt_disable(t);
    cr_assert_eq(pt_enabled(t), 0);
    TEST_SPAN(t, &clk, "off", 10);
    cr_assert_eq(pt_add(t, .flops = 1), 0);
    cr_assert_eq(pt_stop(t, "stray"), 0, "a stop while disabled is not an error");
    cr_assert_eq(run_stats(t).section_count, 0);
    cr_assert_eq(pt_error_count(t), 0);
    pt_enable(t);
    TEST_SPAN(t, &clk, "on", 10);
    cr_assert_eq(run_stats(t).section_count, 1);
}

Test(tree, toggling_inside_a_section_keeps_the_pairs)
{
    pt_start(t, "A");
    pt_disable(t);
    pt_start(t, "B"); /* made while disabled: its stop must pair with it */
    pt_enable(t);
    pt_start(t, "C");
    clk.now += 5;
    cr_assert_eq(pt_stop(t, "C"), 0);
    cr_assert_eq(pt_stop(t, "B"), 0);
    clk.now += 5;
    cr_assert_eq(pt_stop(t, "A"), 0, "%s", pt_last_error(t));
    cr_assert_not_null(pt_find(t, "A/C"), "C nests under A, B left no trace");
    cr_assert_null(pt_find(t, "A/B"));
    cr_assert_float_eq(get("A").total_ms, 10e-6, 1e-15);
    cr_assert_eq(pt_error_count(t), 0);
}

Test(tree, reset_forgets_everything_but_keeps_name_and_clock)
{
    pt_start(t, "open");
    TEST_SPAN(t, &clk, "done", 10);
    pt_stop(t, "nope");
    pt_reset(t);
    cr_assert_eq(run_stats(t).section_count, 0);
    cr_assert_eq(run_stats(t).open_count, 0);
    cr_assert_eq(pt_error_count(t), 0);
    cr_assert_str_eq(pt_last_error(t), "");
    cr_assert_str_eq(pt_name(t), "tree");
    TEST_SPAN(t, &clk, "again", 42);
    cr_assert_float_eq(get("again").total_ms, 42e-6, 1e-15, "the manual clock is still in use");
}

Test(tree, clock_cannot_change_while_sections_are_open)
{
    pt_start(t, "x");
    cr_assert_eq(pt_clock_set(t, NULL, NULL), PT_ESTATE);
    cr_assert_str_eq(run_stats(t).clock, "user");
    pt_stop(t, "x");
    cr_assert_eq(pt_clock_set(t, NULL, NULL), 0);
    cr_assert_str_neq(run_stats(t).clock, "user");
}

Test(tree, paths_escape_slashes_and_find_them)
{
    pt_start(t, "I/O");
    TEST_SPAN(t, &clk, "read\\write", 1);
    pt_stop(t, "I/O");
    const pt_section *s = pt_find(t, "I\\/O/read\\\\write");
    cr_assert_not_null(s, "escaped path finds it");
    char buf[64];
    cr_assert_eq(pt_section_path(s, buf, sizeof buf), (int)strlen("I\\/O/read\\\\write"));
    cr_assert_str_eq(buf, "I\\/O/read\\\\write");
    cr_assert_eq(pt_find(t, buf), s, "path round-trips");
    cr_assert_null(pt_find(t, "I/O"), "an unescaped slash is a separator");
    cr_assert_null(pt_find(t, ""), "the empty path is not a section");
    cr_assert_eq(pt_section_path(s, NULL, 0), (int)strlen(buf), "size query");
    cr_assert_eq(pt_section_path(NULL, buf, sizeof buf), PT_EINVAL);
}

Test(tree, walking_follows_the_order_of_first_start)
{
    TEST_SPAN(t, &clk, "b", 1);
    TEST_SPAN(t, &clk, "a", 1);
    TEST_SPAN(t, &clk, "c", 1);
    TEST_SPAN(t, &clk, "a", 1);
    const pt_section *s = pt_section_child(pt_root(t));
    cr_assert_str_eq(pt_section_name(s), "b");
    s = pt_section_next(s);
    cr_assert_str_eq(pt_section_name(s), "a");
    s = pt_section_next(s);
    cr_assert_str_eq(pt_section_name(s), "c");
    cr_assert_null(pt_section_next(s));
    cr_assert_eq(pt_section_parent(s), pt_root(t));
    cr_assert_null(pt_section_parent(pt_root(t)));
    cr_assert_str_eq(pt_section_name(pt_root(t)), "tree");
}

Test(tree, many_children_are_all_found)
{
    char buf[32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 3000; i++) {
            snprintf(buf, sizeof buf, "k%d", i);
            TEST_SPAN(t, &clk, buf, i);
        }
    cr_assert_eq(run_stats(t).section_count, 3000);
    for (int i = 0; i < 3000; i += 499) {
        snprintf(buf, sizeof buf, "k%d", i);
        pt_section_stats s = get(buf);
        cr_assert_eq(s.count, 2, "%s seen twice", buf);
        cr_assert_float_eq(s.total_ms, 2 * i * 1e-6, 1e-15);
    }
}

Test(tree, bottlenecks_by_self_time)
{
    pt_start(t, "outer");
    clk.now += 10;
    TEST_SPAN(t, &clk, "big", 100);
    TEST_SPAN(t, &clk, "small", 5);
    pt_stop(t, "outer");
    TEST_SPAN(t, &clk, "mid", 50);
    const pt_section *out[3];
    cr_assert_eq(pt_bottlenecks(t, 3, out), 3);
    cr_assert_str_eq(pt_section_name(out[0]), "big");
    cr_assert_str_eq(pt_section_name(out[1]), "mid");
    cr_assert_str_eq(pt_section_name(out[2]), "outer", "outer's self time is 10");
    const pt_section *all[10];
    cr_assert_eq(pt_bottlenecks(t, 10, all), 4);
    cr_assert_str_eq(pt_section_name(all[3]), "small");
}

static char *seen_error;
static void on_error(void *ctx, const char *line)
{
    (*(int *)ctx)++;
    free(seen_error);
    seen_error = strdup(line);
}

Test(tree, errors_reach_the_users_function)
{
    int calls = 0;
    pt_error_fn_set(t, on_error, &calls);
    pt_stop(t, "nothing open");
    cr_assert_eq(calls, 1);
    cr_assert(strstr(seen_error, "PT_ENOSTART"), "%s", seen_error);
    pt_error_fn_set(t, NULL, NULL);
    pt_stop(t, "again");
    cr_assert_eq(calls, 1, "detached");
    free(seen_error);
    seen_error = NULL;
}

Test(tree, verbose_describes_errors_on_stderr, .init = cr_redirect_stderr)
{
    pt_timing *v = pt_create("loud", PT_VERBOSE);
    pt_stop(v, "x");
    pt_destroy(v);
    fflush(stderr);
    cr_assert_stderr_neq_str("", "PT_VERBOSE printed nothing");
}

Test(tree, quiet_by_default, .init = cr_redirect_stderr)
{
    pt_timing *q = pt_create("quiet", PT_CPU);
    pt_stop(q, "x");
    pt_start(q, "y");
    pt_stop(q, "z");
    pt_destroy(q);
    fflush(stderr);
    cr_assert_stderr_eq_str("", "nothing is printed unless asked");
}

Test(tree, recursion_nests_under_itself)
{
    pt_start(t, "f");
    pt_start(t, "f");
    TEST_SPAN(t, &clk, "f", 1);
    pt_stop(t, "f");
    pt_stop(t, "f");
    cr_assert_not_null(pt_find(t, "f/f/f"));
    cr_assert_eq(run_stats(t).section_count, 3);
}

Test(tree, welford_stays_exact_over_a_million_occurrences)
{
    for (int i = 0; i < 1000000; i++)
        TEST_SPAN(t, &clk, "x", 1000 + (i % 2) * 2); /* 1000, 1002, ... */
    pt_section_stats s = get("x");
    cr_assert_eq(s.count, 1000000);
    cr_assert_float_eq(s.first_ms, 1e-3, 1e-15);
    /* The rest: 500,000 of 1002 ns (odd i) and 499,999 of 1000 ns. */
    double mean = (500000.0 * 1002 + 499999.0 * 1000) / 999999.0;
    cr_assert_float_eq(s.mean_ms * 1e6, mean, 1e-6, "mean %.9f", s.mean_ms * 1e6);
    cr_assert_float_eq(s.stddev_ms * 1e6, 1.0, 1e-5, "sd %.9f ns", s.stddev_ms * 1e6);
    cr_assert_float_eq(s.min_ms, 1e-3, 1e-15);
    cr_assert_float_eq(s.max_ms, 1.002e-3, 1e-15);
}

/* A title from a shared object is matched by its text: once the object
 * is unloaded, another may be mapped at its address and hold another
 * title at the same pointer ("omega" was counted under "alpha"). The
 * first plugin is loaded before the process's first timing, so that
 * ptkit first sees the process with it mapped. */
Test(plugins, a_title_at_an_unloaded_plugins_address_is_read_anew)
{
    const char *b = getenv("PT_BUILD");
    const void *where[2] = { NULL, NULL };
    static const char *const names[2] = { "alpha", "omega" };
    test_clock pclk;
    pt_timing *pt = NULL;
    for (int i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/plugins/title_%s.so", b && *b ? b : "build",
                 names[i]);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        cr_assert_not_null(h, "%s", dlerror());
        const char *(*title)(void) = (const char *(*)(void))dlsym(h, "plugin_title");
        cr_assert_not_null(title);
        if (!pt)
            cr_assert_not_null(pt = test_timing(&pclk, "plugins", PT_CPU));
        where[i] = title();
        for (int k = 0; k < 2 + i; k++)
            TEST_SPAN(pt, &pclk, title(), 10);
        cr_assert_eq(dlclose(h), 0);
    }
    cr_log_info("the titles lay at %p and %p%s", where[0], where[1],
                where[0] == where[1] ? ": the same address" : "");
    pt_run_stats st;
    pt_run_get(pt, &st);
    cr_assert_eq(st.section_count, 2, "two titles, two sections");
    cr_assert_not_null(pt_find(pt, "omega"), "omega's calls were counted under alpha");
    pt_section_stats s;
    cr_assert_eq(pt_section_get(pt, pt_find(pt, "alpha"), &s), 0);
    cr_assert_eq(s.count, 2);
    cr_assert_eq(pt_section_get(pt, pt_find(pt, "omega"), &s), 0);
    cr_assert_eq(s.count, 3);
    pt_destroy(pt);
}
