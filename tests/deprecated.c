/* The names of the previous release still work, for one more: each old
 * getter, setter and record call does what its new name does. Using them
 * warns (PT__DEPRECATED); this file alone silences that, to call them. */
#include <criterion/criterion.h>
#include <string.h>

#include "common.h"
#include "cuda_fake.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define MS 1000000 /* ns */

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    fake_install();
    t = test_timing(&clk, "old names", PT_TRACE);
    cr_assert_not_null(t);
}

static void teardown(void)
{
    pt_destroy(t);
    fake_uninstall();
}

TestSuite(deprecated, .init = setup, .fini = teardown);

static test_clock other;

Test(deprecated, old_setters_set_what_the_new_ones_set)
{
    pt_peaks peaks;
    pt_schedule_info si;

    cr_assert_eq(pt_set_peaks(t, 2e12, 4e13), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_peaks_get(t, &peaks), 0);
    cr_assert_float_eq(peaks.bytes_per_s, 2e12, 0, "pt_set_peaks set the bandwidth");
    cr_assert_float_eq(peaks.flops_per_s, 4e13, 0);
    cr_assert_str_eq(peaks.source, "user");

    other.now = 5 * MS;
    cr_assert_eq(pt_set_clock(t, test_clock_read, &other), 0);
    TEST_SPAN(t, &other, "on the other clock", 3 * MS, .read = 0);
    cr_assert_float_eq(run_stats(t).total_ms, 3.0, 1e-12, "pt_set_clock set the clock");

    cr_assert_eq(pt_set_trace_capacity(t, 0), PT_EINVAL, "0 events is refused as before");
    cr_assert_eq(pt_set_trace_capacity(t, 10), 0);
    cr_assert_eq(pt_schedule(t, 1, 0, 1, 1), 0);
    cr_assert_eq(pt_schedule_get(t, &si), 0);
    cr_assert(si.on && si.wait == 1 && si.active == 1, "pt_schedule set the schedule");
    cr_assert_eq(pt_schedule(t, 0, 0, 0, 0), PT_EINVAL, "active 0 is refused as before");
    cr_assert_eq(pt_memory_sampling(t, 0), 0, "turning sampling off");
}

static void count_line(void *ctx, const char *line)
{
    (void)line;
    ++*(int *)ctx;
}

Test(deprecated, the_old_error_fn_setter_hands_over_each_error)
{
    int lines = 0;

    pt_set_error_fn(t, count_line, &lines);
    pt_stop(t, "never started");
    cr_assert_eq(lines, 1, "pt_set_error_fn's function saw the error");
}

Test(deprecated, old_getters_get_what_the_new_ones_get)
{
    pt_run_stats old = pt_stats(t), now;
    pt_thread_info a, b;
    pt_thread_part p, q;
    pt_dev_clock c, d;
    const pt_section *s;

    TEST_SPAN(t, &clk, "work", 2 * MS, .flops = 1e6);
    old = pt_stats(t);
    cr_assert_eq(pt_run_get(t, &now), 0);
    cr_assert_eq(old.section_count, now.section_count, "pt_stats counts as pt_run_get");
    cr_assert_float_eq(old.total_ms, now.total_ms, 0);
    cr_assert_float_eq(old.total_ms, 2.0, 1e-12);
    cr_assert_eq(pt_stats(NULL).section_count, 0, "zeros for NULL, as before");

    cr_assert_eq(pt_thread_stats(t, 0, &a), 0);
    cr_assert_eq(pt_thread_get(t, 0, &b), 0);
    cr_assert_eq(a.occurrences, b.occurrences, "pt_thread_stats is pt_thread_get");
    cr_assert_eq(a.occurrences, 1);
    cr_assert_eq(pt_thread_stats(t, 9, &a), PT_ENOTFOUND);

    s = pt_find(t, "work");
    cr_assert_eq(pt_section_thread(t, s, 0, &p), 0);
    cr_assert_eq(pt_thread_part_get(t, s, 0, &q), 0);
    cr_assert_eq(p.count, q.count, "pt_section_thread is pt_thread_part_get");
    cr_assert_float_eq(p.total_ms, 2.0, 1e-12);

    cr_assert_eq(pt_dev_clock_info(t, &c), 0);
    cr_assert_eq(pt_dev_clock_get(t, &d), 0);
    cr_assert_eq(memcmp(&c, &d, sizeof c), 0, "pt_dev_clock_info is pt_dev_clock_get");
    cr_assert_eq(pt_dev_clock_info(t, NULL), PT_EINVAL);
}

Test(deprecated, old_record_calls_make_and_free_the_same_records)
{
    static const char *const names[] = { "a", "b" };
    pt_dev_buffer *b = pt_dev_buffer_create(t, 4, 2, names, PT_DEV_HOST, 0);
    pt_dev_buf arg;

    cr_assert_not_null(b, "%s", pt_last_error(t));
    arg = pt_dev_arg(b);
    cr_assert_eq(arg.nslots, 4, "pt_dev_buffer_create made 4 slots");
    cr_assert_eq(arg.nphases, 2);
    cr_assert_eq(arg.data[PT_DEV_H_MAGIC], PT_DEV_MAGIC, "the same header as pt_dev_records_create");
    cr_assert_null(pt_dev_buffer_create(t, -1, 2, names, PT_DEV_HOST, 0), "-1 slots refused");
    pt_dev_buffer_free(b);
    pt_dev_buffer_free(NULL);
}

Test(deprecated, an_old_name_warns_and_names_the_new_one)
{
    static const char *const cases[][2] = {
        { "return pt_set_peaks((pt_timing *)0, 1, 1);", "use pt_peaks_set" },
        { "pt_dev_buffer *b = 0; (void)b; return 0;", "use pt_dev_records" },
        { "return pt_stats((pt_timing *)0).threads;", "use pt_run_get" },
    };
    char cmd[1024];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(cmd, sizeof cmd,
                 "printf '#include <pt/pt.h>\\nint main(void) { %s }\\n' | "
                 "${CC:-cc} -Iinclude -Wall -fsyntax-only -x c - 2>&1 | grep -q '%s'",
                 cases[i][0], cases[i][1]);
        cr_assert_eq(system(cmd), 0, "no warning naming \"%s\" for: %s", cases[i][1], cases[i][0]);
    }
}
