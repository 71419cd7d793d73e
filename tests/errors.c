/* The error table: names, messages, the unknown code. */
#include <criterion/criterion.h>
#include <string.h>

#include <pt/pt.h>

Test(errors, every_code_has_a_distinct_name_and_message)
{
    static const int codes[] = {
#define X(name, value, msg) PT_##name,
        PT_ERRNO_MAP(X)
#undef X
    };
    size_t n = sizeof codes / sizeof *codes;
    cr_assert_geq(n, 10);
    for (size_t i = 0; i < n; i++) {
        cr_assert_lt(codes[i], 0, "codes are negative");
        cr_assert_gt(codes[i], PT__ERR_LAST, "PT__ERR_LAST bounds the table");
        cr_assert_str_neq(pt_strerror(codes[i]), "unknown error", "%d", codes[i]);
        cr_assert_eq(strncmp(pt_err_name(codes[i]), "PT_E", 4), 0, "%s", pt_err_name(codes[i]));
        for (size_t j = 0; j < i; j++) {
            cr_assert_neq(codes[i], codes[j]);
            cr_assert_str_neq(pt_err_name(codes[i]), pt_err_name(codes[j]));
        }
    }
    cr_assert_str_eq(pt_err_name(PT_EMISMATCH), "PT_EMISMATCH");
    cr_assert_str_eq(pt_strerror(PT_ENOSTART), "stop without a start");
}

Test(errors, unknown_codes_read_unknown_never_null)
{
    cr_assert_str_eq(pt_strerror(-9999), "unknown error");
    cr_assert_str_eq(pt_strerror(42), "unknown error");
    cr_assert_str_eq(pt_err_name(-9999), "PT_UNKNOWN");
    cr_assert_str_eq(pt_strerror(0), "success");
    cr_assert_eq(pt_error_count_of(NULL, PT_EINVAL), 0);
}

Test(errors, version_matches_the_header)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", PT_VERSION_MAJOR, PT_VERSION_MINOR, PT_VERSION_PATCH);
    cr_assert_str_eq(pt_version(), want);
}

/* ---- callbacks that call back into ptkit -------------------------- */

#include <pthread.h>
#include <setjmp.h>

#include "common.h"

typedef struct cb_state {
    pt_timing *t;
    int calls, what, inner_rc;
    jmp_buf *jump;
} cb_state;

static void cb_reset(void *ctx, const char *line)
{
    cb_state *c = ctx;
    (void)line;
    c->calls++;
    pt_reset(c->t);
}

Test(errors, an_error_callback_may_reset_the_timing_that_failed)
{
    /* The bad metric fails inside pt_start; its callback runs once the
     * start is whole (it used to run in the middle of it: a use after
     * free under ASan). */
    test_clock clk;
    cb_state c = { .t = test_timing(&clk, "cb", PT_CPU) };
    pt_error_fn_set(c.t, cb_reset, &c);
    pt_start(c.t, "outer");
    cr_assert_eq(pt_start(c.t, "bad", .flops = -1), PT_ERANGE);
    cr_assert_eq(c.calls, 1);
    cr_assert_null(pt_find(c.t, "outer"), "the callback's reset took effect");
    cr_assert_eq(pt_stop(c.t, "bad"), PT_ENOSTART, "nothing is open after the reset");
    TEST_SPAN(c.t, &clk, "after", 5);
    cr_assert_not_null(pt_find(c.t, "after"), "the timing goes on");
    pt_destroy(c.t);
}

static void cb_log(void *ctx, const char *line)
{
    cb_state *c = ctx;
    FILE *null = fopen("/dev/null", "w");
    (void)line;
    c->calls++;
    c->inner_rc = pt_log(c->t, null);
    fclose(null);
}

Test(errors, an_error_callback_that_reports_with_a_section_open_ends, .timeout = 20)
{
    /* The report inside the callback fails too (PT_EOPEN): counted, but
     * no callback runs from a callback, so no recursion. */
    cb_state c = { .t = pt_create("cb", PT_CPU) };
    pt_error_fn_set(c.t, cb_log, &c);
    pt_start(c.t, "open");
    FILE *null = fopen("/dev/null", "w");
    cr_assert_eq(pt_log(c.t, null), PT_EOPEN);
    fclose(null);
    cr_assert_eq(c.calls, 1, "%d calls", c.calls);
    cr_assert_eq(c.inner_rc, PT_EOPEN);
    cr_assert_eq(pt_error_count_of(c.t, PT_EOPEN), 2);
    pt_destroy(c.t);
}

static void cb_destroy(void *ctx, const char *line)
{
    cb_state *c = ctx;
    (void)line;
    c->calls++;
    pt_destroy(c->t);
}

Test(errors, an_error_callback_cannot_destroy_its_timing)
{
    cb_state c = { .t = pt_create("cb", PT_CPU) };
    pt_error_fn_set(c.t, cb_destroy, &c);
    cr_assert_eq(pt_stop(c.t, "never started"), PT_ENOSTART);
    cr_assert_eq(c.calls, 1);
    /* Refused, counted and described: the timing is whole. */
    cr_assert_eq(pt_error_count_of(c.t, PT_ESTATE), 1, "%s", pt_last_error(c.t));
    cr_assert(strstr(pt_last_error(c.t), "pt_destroy from one of this timing's callbacks"), "%s",
              pt_last_error(c.t));
    pt_error_fn_set(c.t, NULL, NULL);
    pt_destroy(c.t);
}

static void line_reset(void *ctx, const char *line)
{
    cb_state *c = ctx;
    (void)line;
    if (c->calls++ == 1)
        pt_reset(c->t);
}

Test(errors, a_report_line_callback_cannot_reset_the_report_it_is_in)
{
    test_clock clk;
    cb_state c = { .t = test_timing(&clk, "cb", PT_CPU) };
    TEST_SPAN(c.t, &clk, "a", 10);
    TEST_SPAN(c.t, &clk, "b", 10);
    cr_assert_eq(pt_log_fn(c.t, line_reset, &c), 0, "the report itself goes on: %s",
                 pt_last_error(c.t));
    cr_assert_gt(c.calls, 4, "every line reached the callback");
    cr_assert_eq(pt_error_count_of(c.t, PT_ESTATE), 1);
    cr_assert(strstr(pt_last_error(c.t), "pt_reset from one of this timing's callbacks (a pt_log_fn "
                                         "line)"), "%s", pt_last_error(c.t));
    cr_assert_not_null(pt_find(c.t, "a"), "not reset");
    pt_destroy(c.t);
}

static void cb_jump(void *ctx, const char *line)
{
    cb_state *c = ctx;
    (void)line;
    c->calls++;
    longjmp(*c->jump, 1);
}

static void *report_from_another_thread(void *p)
{
    FILE *null = fopen("/dev/null", "w");
    pt_log((pt_timing *)p, null);
    fclose(null);
    return NULL;
}

Test(errors, a_longjmp_out_of_an_error_callback_leaves_a_whole_section, .timeout = 20)
{
    test_clock clk;
    jmp_buf jump;
    cb_state c = { .t = test_timing(&clk, "cb", PT_CPU), .jump = &jump };
    pt_error_fn_set(c.t, cb_jump, &c);
    clk.now = 1000000;
    if (setjmp(jump) == 0)
        pt_start(c.t, "jumped", .read = -5);
    cr_assert_eq(c.calls, 1);
    pt_error_fn_set(c.t, NULL, NULL);
    /* It started at the clock it read (it used to be 0: 527,780 ms). */
    clk.now += 250;
    cr_assert_eq(pt_stop(c.t, "jumped"), 0, "%s", pt_last_error(c.t));
    pt_section_stats st;
    cr_assert_eq(pt_section_get(c.t, pt_find(c.t, "jumped"), &st), 0);
    cr_assert_float_eq(st.total_ms, 250e-6, 1e-12, "%g ms", st.total_ms);
    /* Nothing was left held: another thread's report does not wait. */
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, report_from_another_thread, c.t), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    pt_destroy(c.t);
}
