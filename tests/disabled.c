/* -DPT_DISABLE: every call compiles to nothing and the code around it runs. */
#define PT_DISABLE 1
#include <criterion/criterion.h>

#include <pt/pt.h>

static int work(pt_timing *t)
{
    PT_FUNC(t);
    return 41;
}

Test(disabled, calls_compile_to_nothing)
{
    pt_timing *t = pt_create("off", PT_GPU_EVENTS);
    cr_assert_null(t, "no timing is made");
    int body = 0;
    cr_assert_eq(pt_start(t, "x", .flops = 3), 0);
    cr_assert_eq(pt_stop(t, "x", .read = 1), 0);
    cr_assert_eq(pt_add(t, .written = 1), 0);
    cr_assert_eq(pt_start_gpu(t, "g", 0), 0);
    cr_assert_eq(pt_stop_gpu(t, "g", 0, .flops = 1), 0);
    PT_SECTION(t, "s", .flops = 1) { body++; }
    cr_assert_eq(body, 1, "the block still runs once");
    cr_assert_eq(work(t) + 1, 42);
}

/* The calls as a program writes them: statements whose result is unused,
 * and a figure computed only for a metric. Under -Werror (CI builds the
 * suite so) any "statement with no effect" or unused variable fails the
 * build here. */
Test(disabled, calls_as_statements_draw_no_warning)
{
    pt_timing *t = pt_create("off", PT_CPU);
    double flops = 2.0 * 64 * 64 * 64;
    int body = 0;

    pt_start(t, "x");
    pt_add(t, .written = 8);
    pt_stop(t, "x", .flops = flops);
    pt_start_gpu(t, "g", 0);
    pt_stop_gpu(t, "g", 0);
    PT_SECTION(t, "s") {
        body++;
        break; /* leaves the section's one pass, as when enabled */
    }
    pt_log(t, stdout);
    pt_destroy(t);
    cr_assert_eq(body, 1, "the block ran once");
}
