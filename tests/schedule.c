/* The step schedule: wait, warmup, active and repeat give exact counts;
 * sections that straddle a step boundary keep what they were when they
 * started, and the tree stays whole. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static test_clock clk;
static pt_timing *t;

static void teardown(void)
{
    pt_destroy(t);
    t = NULL;
}

TestSuite(schedule, .fini = teardown);

static uint64_t count_of(const char *path)
{
    const pt_section *s = pt_find(t, path);
    pt_section_stats st;
    if (!s)
        return 0;
    cr_assert_eq(pt_section_get(t, s, &st), 0);
    return st.count;
}

/* n steps, each one section "s" of 10 ns. */
static void steps(int n)
{
    for (int k = 0; k < n; k++) {
        TEST_SPAN(t, &clk, "s", 10);
        pt_step(t);
    }
}

Test(schedule, wait_warmup_active_repeat_are_exact)
{
    pt_schedule_info in;
    t = test_timing(&clk, "run", PT_CPU);
    cr_assert_eq(pt_schedule_set(t, 2, 1, 2, 2), 0);
    steps(20);
    cr_assert_eq(count_of("s"), 4, "two cycles of two active steps: %llu",
                 (unsigned long long)count_of("s"));
    cr_assert_eq(pt_schedule_get(t, &in), 0);
    cr_assert_eq(in.on, 1);
    cr_assert_eq(in.steps, 20);
    cr_assert_eq(in.recorded, 4);
    cr_assert_eq(in.recording, 0, "done after the repeats");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

Test(schedule, which_steps_record)
{
    /* wait 1, warmup 1, active 1, repeat 2: steps 2 and 5 record. */
    const int want[8] = { 0, 0, 1, 0, 0, 1, 0, 0 };
    pt_schedule_info in;
    t = test_timing(&clk, "run", PT_CPU);
    pt_schedule_set(t, 1, 1, 1, 2);
    for (int k = 0; k < 8; k++) {
        pt_schedule_get(t, &in);
        cr_assert_eq(in.recording, want[k], "step %d", k);
        cr_assert_eq(pt_enabled(t), want[k], "step %d", k);
        pt_step(t);
    }
}

Test(schedule, repeat_zero_cycles_for_ever)
{
    t = test_timing(&clk, "run", PT_CPU);
    pt_schedule_set(t, 1, 0, 1, 0);
    steps(1000);
    cr_assert_eq(count_of("s"), 500);
}

Test(schedule, no_wait_records_from_the_first_step)
{
    t = test_timing(&clk, "run", PT_CPU);
    pt_schedule_set(t, 0, 0, 3, 1);
    steps(5);
    cr_assert_eq(count_of("s"), 3);
    cr_assert_float_eq(run_stats(t).total_ms, 30e-6, 1e-15);
}

Test(schedule, a_section_open_across_the_end_of_an_active_step_is_whole)
{
    t = test_timing(&clk, "run", PT_CPU);
    pt_schedule_set(t, 0, 0, 1, 1); /* step 0 records, then nothing */
    pt_start(t, "outer");
    TEST_SPAN(t, &clk, "inner", 5);
    pt_step(t);                 /* recording stops with outer open */
    TEST_SPAN(t, &clk, "late", 7); /* a ghost: not recorded */
    clk.now += 3;
    int rc = pt_stop(t, "outer");
    cr_assert_eq(rc, 0, "pt_stop: %s", pt_strerror(rc));
    cr_assert_eq(count_of("outer"), 1);
    cr_assert_eq(count_of("outer/inner"), 1);
    cr_assert_eq(count_of("outer/late"), 0, "started outside an active step");
    const pt_section *o = pt_find(t, "outer");
    pt_section_stats st;
    pt_section_get(t, o, &st);
    cr_assert_float_eq(st.total_ms, 15e-6, 1e-15, "the whole of outer: %g", st.total_ms);
    cr_assert_eq(run_stats(t).open_count, 0);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

Test(schedule, a_ghost_open_across_the_start_of_an_active_step_stays_a_ghost)
{
    t = test_timing(&clk, "run", PT_CPU);
    pt_schedule_set(t, 1, 0, 1, 1);
    pt_start(t, "outer");       /* step 0 waits: a ghost */
    pt_step(t);                 /* step 1 records */
    TEST_SPAN(t, &clk, "inner", 5);
    int rc = pt_stop(t, "outer");
    cr_assert_eq(rc, 0, "the ghost's stop pairs with it: %s", pt_strerror(rc));
    cr_assert_null(pt_find(t, "outer"));
    cr_assert_eq(count_of("inner"), 1, "recorded at the top level");
    TEST_SPAN(t, &clk, "after", 5);
    cr_assert_eq(count_of("after"), 1, "the stack is back to empty");
    cr_assert_eq(run_stats(t).open_count, 0);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

Test(schedule, pt_disable_wins_over_an_active_step)
{
    t = test_timing(&clk, "run", PT_CPU);
    pt_schedule_set(t, 0, 0, 2, 1);
    pt_disable(t);
    steps(1);
    pt_enable(t);
    steps(1);
    steps(1); /* past the schedule: pt_enable cannot turn it back on */
    pt_enable(t);
    steps(1);
    cr_assert_eq(count_of("s"), 1);
}

Test(schedule, bad_arguments_and_null)
{
    t = test_timing(&clk, "run", PT_CPU);
    cr_assert_eq(pt_schedule_set(t, 1, 1, 0, 1), PT_EINVAL);
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 1);
    cr_assert_eq(pt_schedule_set(NULL, 1, 1, 1, 1), 0);
    cr_assert_eq(pt_step(NULL), 0);
    cr_assert_eq(pt_schedule_get(t, NULL), PT_EINVAL);
    pt_schedule_info in;
    cr_assert_eq(pt_schedule_get(t, &in), 0);
    cr_assert_eq(in.on, 0, "no schedule set");
    steps(3);
    cr_assert_eq(count_of("s"), 3, "pt_step without a schedule changes nothing");
}

Test(schedule, a_new_schedule_restarts_the_count)
{
    pt_schedule_info in;
    t = test_timing(&clk, "run", PT_CPU);
    pt_schedule_set(t, 0, 0, 1, 1);
    steps(3);
    pt_schedule_set(t, 1, 0, 1, 1);
    pt_schedule_get(t, &in);
    cr_assert_eq(in.steps, 0);
    cr_assert_eq(in.recorded, 0);
    steps(3);
    cr_assert_eq(count_of("s"), 2);
}

static void collect(void *ctx, const char *line)
{
    int *found = ctx;
    if (strcmp(line, "  schedule wait=1 warmup=1 active=2 repeat=1: 2 of 5 steps recorded") == 0)
        *found = 1;
}

Test(schedule, the_report_and_the_json_state_it)
{
    int found = 0;
    char path[64];
    t = test_timing(&clk, "run", PT_CPU);
    pt_schedule_set(t, 1, 1, 2, 1);
    steps(5);
    cr_assert_eq(pt_log_fn(t, collect, &found), 0);
    cr_assert(found, "the report states the schedule and the steps recorded");
    snprintf(path, sizeof path, "/tmp/pt_sched_%d.json", (int)getpid());
    cr_assert_eq(pt_export_json(t, path), 0, "%s", pt_last_error(t));
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err), *s;
    unlink(path);
    cr_assert_not_null(j, "%s", err.text);
    s = json_object_get(j, "schedule");
    cr_assert(json_is_object(s), "a schedule object");
    cr_assert_eq(json_integer_value(json_object_get(s, "recorded")), 2);
    cr_assert_eq(json_integer_value(json_object_get(s, "steps")), 5);
    cr_assert_eq(json_integer_value(json_object_get(s, "warmup")), 1);
    json_decref(j);
}

Test(schedule, json_without_a_schedule_says_null)
{
    char path[64];
    t = test_timing(&clk, "run", PT_CPU);
    steps(1);
    snprintf(path, sizeof path, "/tmp/pt_sched_%d.json", (int)getpid());
    cr_assert_eq(pt_export_json(t, path), 0, "%s", pt_last_error(t));
    json_t *j = json_load_file(path, 0, NULL);
    unlink(path);
    cr_assert_not_null(j);
    cr_assert(json_is_null(json_object_get(j, "schedule")), "schedule: null");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "stats"), "trace_dropped")), 0);
    json_decref(j);
}
