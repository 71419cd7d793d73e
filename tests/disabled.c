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
