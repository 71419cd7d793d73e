/* The foreign-function calls: each does what its macro does (the same
 * figures, the same errors), the kernel argument comes back through the
 * out-pointer, and the struct sizes a binding checks are the compiler's. */
#include <criterion/criterion.h>
#include <pt/pt_ffi.h>
#include <string.h>

#include "common.h"
#include "cuda_fake.h"

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    fake_install();
    t = test_timing(&clk, "ffi", PT_GPU_EVENTS);
    cr_assert_not_null(t);
}

static void teardown(void)
{
    pt_destroy(t);
    fake_uninstall();
}

TestSuite(ffi, .init = setup, .fini = teardown);

static pt_section_stats get(const char *path)
{
    pt_section_stats st;
    const pt_section *s = pt_find(t, path);
    cr_assert_not_null(s, "pt_find(\"%s\") found nothing", path);
    int rc = pt_section_get(t, s, &st);
    cr_assert_eq(rc, 0, "pt_section_get: %s", pt_strerror(rc));
    return st;
}

Test(ffi, the_abi_version_and_sizes_are_the_compilers)
{
    cr_assert_eq(pt_abi_version(), PT_ABI_VERSION);
    cr_assert_eq(pt_abi_sizeof("pt_metrics"), sizeof(pt_metrics));
    cr_assert_eq(pt_abi_sizeof("pt_log_opts"), sizeof(pt_log_opts));
    cr_assert_eq(pt_abi_sizeof("pt_dev_buf"), sizeof(pt_dev_buf));
    cr_assert_eq(pt_abi_sizeof("pt_dev_clock"), sizeof(pt_dev_clock));
    cr_assert_eq(pt_abi_sizeof("pt_section_stats"), sizeof(pt_section_stats));
    cr_assert_eq(pt_abi_sizeof("pt_run_stats"), sizeof(pt_run_stats));
    cr_assert_eq(pt_abi_sizeof("pt_peaks"), sizeof(pt_peaks));
    cr_assert_eq(pt_abi_sizeof("pt_memory_stats"), sizeof(pt_memory_stats));
    cr_assert_eq(pt_abi_sizeof("pt_schedule_info"), sizeof(pt_schedule_info));
    cr_assert_eq(pt_abi_sizeof("pt_thread_info"), sizeof(pt_thread_info));
    cr_assert_eq(pt_abi_sizeof("pt_thread_part"), sizeof(pt_thread_part));
    /* The kernel argument is what NVRTC and nvcc lay out: a pointer and
     * four ints, 24 bytes aligned to 8. */
    cr_assert_eq(sizeof(pt_dev_buf), 24);
    cr_assert_eq(_Alignof(pt_dev_buf), 8);
}

Test(ffi, unknown_or_null_type_names_are_size_0)
{
    cr_assert_eq(pt_abi_sizeof(NULL), 0);
    cr_assert_eq(pt_abi_sizeof(""), 0);
    cr_assert_eq(pt_abi_sizeof("pt_timing"), 0, "opaque: a binding never reads it");
    cr_assert_eq(pt_abi_sizeof("pt_metrics "), 0, "names match exactly");
}

Test(ffi, sections_with_metrics_by_pointer)
{
    pt_metrics m = { .read = 1000, .flops = 4000 };
    int rc = pt_start_with(t, "outer", &m);
    cr_assert_eq(rc, 0, "pt_start_with: %s", pt_last_error(t));
    clk.now += 2000000;
    cr_assert_eq(pt_start_with(t, "inner", NULL), 0, "%s", pt_last_error(t));
    pt_metrics w = { .written = 500 };
    cr_assert_eq(pt_add_with(t, &w), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_add_with(t, NULL), 0, "no metrics: nothing to add");
    clk.now += 1000000;
    cr_assert_eq(pt_stop_with(t, "inner", NULL), 0, "%s", pt_last_error(t));
    pt_metrics more = { .written = 250, .flops = 1000 };
    cr_assert_eq(pt_stop_with(t, "outer", &more), 0, "%s", pt_last_error(t));

    pt_section_stats o = get("outer"), i = get("outer/inner");
    cr_assert_float_eq(o.total_ms, 3.0, 1e-12);
    cr_assert_float_eq(i.total_ms, 1.0, 1e-12);
    cr_assert_float_eq(o.read_bytes, 1000, 0);
    cr_assert_float_eq(o.written_bytes, 250, 0);
    cr_assert_float_eq(o.flops, 5000, 0);
    cr_assert_float_eq(i.written_bytes, 500, 0);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

Test(ffi, errors_are_the_macros_errors)
{
    cr_assert_eq(pt_stop_with(t, "never", NULL), PT_ENOSTART);
    cr_assert(strstr(pt_last_error(t), "no section open"), "%s", pt_last_error(t));
    cr_assert_eq(pt_add_with(t, &(pt_metrics){ .read = 1 }), PT_ENOSTART);
    pt_start_with(t, "a", NULL);
    cr_assert_eq(pt_stop_with(t, "b", NULL), PT_EMISMATCH);
    pt_metrics bad = { .read = -1 };
    cr_assert_eq(pt_add_with(t, &bad), PT_ERANGE);
    cr_assert_eq(pt_stop_with(t, "a", NULL), 0, "nothing was closed by the mismatch");
    cr_assert_eq(pt_error_count(t), 4);
    cr_assert_eq(pt_start_with(t, NULL, NULL), PT_EINVAL);
}

Test(ffi, a_null_timing_is_a_no_op)
{
    pt_metrics m = { .flops = 1 };
    cr_assert_eq(pt_start_with(NULL, "x", &m), 0);
    cr_assert_eq(pt_stop_with(NULL, "x", &m), 0);
    cr_assert_eq(pt_add_with(NULL, &m), 0);
    cr_assert_eq(pt_start_gpu_with(NULL, "x", NULL, &m), 0);
    cr_assert_eq(pt_stop_gpu_with(NULL, "x", NULL, &m), 0);
    cr_assert_eq(pt_log_with(NULL, stdout, NULL), 0);
    cr_assert_eq(pt_log_fn_with(NULL, test_text_line, NULL, NULL), 0);
}

Test(ffi, gpu_sections_are_timed_by_events)
{
    pt_metrics m = { .flops = 2e6 };
    int rc = pt_start_gpu_with(t, "step", (pt_stream)(uintptr_t)0x42, NULL);
    cr_assert_eq(rc, 0, "pt_start_gpu_with: %s", pt_last_error(t));
    fake.now_ms += 4.0;
    rc = pt_stop_gpu_with(t, "step", (pt_stream)(uintptr_t)0x42, &m);
    cr_assert_eq(rc, 0, "pt_stop_gpu_with: %s", pt_last_error(t));
    pt_sync(t);
    pt_section_stats s = get("step");
    cr_assert_eq(s.gpu, 1);
    cr_assert_float_eq(s.total_ms, 4.0, 1e-9, "the events' time: %g", s.total_ms);
    cr_assert_float_eq(s.flops, 2e6, 0);
    cr_assert_float_eq(s.gflops, 0.5, 1e-9);
    cr_assert_eq(pt_stop_gpu_with(t, "step", NULL, NULL), PT_ENOSTART);
}

Test(ffi, the_report_with_options_by_pointer)
{
    test_text a = { NULL, 0 }, b = { NULL, 0 };
    TEST_SPAN(t, &clk, "short", 1000000);
    TEST_SPAN(t, &clk, "long", 5000000);
    pt_log_opts o = { .sort = PT_SORT_TIME, .percentages = 1 };
    cr_assert_eq(pt_log_fn_with(t, test_text_line, &a, &o), 0, "%s", pt_last_error(t));
    pt_log_fn(t, test_text_line, &b, .sort = PT_SORT_TIME, .percentages = 1);
    cr_assert_not_null(a.s);
    cr_assert_str_eq(a.s, b.s, "the same report as the macro's");
    cr_assert_lt(strstr(a.s, "long") - a.s, strstr(a.s, "short") - a.s, "sorted by time");
    free(a.s);
    free(b.s);

    pt_log_opts bad = { .view = 99 };
    cr_assert_eq(pt_log_fn_with(t, test_text_line, &a, &bad), PT_EINVAL);
    cr_assert_eq(pt_log_fn_with(t, NULL, NULL, NULL), PT_EINVAL);
    cr_assert_eq(pt_log_with(t, NULL, NULL), PT_EINVAL);
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    cr_assert_eq(pt_log_with(t, f, NULL), 0, "%s", pt_last_error(t));
    cr_assert_gt(ftell(f), 0, "the report was written");
    fclose(f);
}

Test(ffi, the_kernel_argument_through_an_out_pointer)
{
    pt_dev_records *b = pt_dev_records_create(t, 7, 3, NULL, PT_DEV_HOST | PT_DEV_TRACE, 5);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    pt_dev_buf a;
    memset(&a, 0xff, sizeof a);
    cr_assert_eq(pt_dev_arg_get(b, &a), 0);
    pt_dev_buf want = pt_dev_arg(b);
    cr_assert_eq(memcmp(&a, &want, sizeof a), 0, "the same bytes as pt_dev_arg");
    cr_assert_eq(a.nslots, 7);
    cr_assert_eq(a.nphases, 3);
    cr_assert_eq(a.trace_cap, 5);
    cr_assert_eq(a.mode, PT_DEV_MODE_TRACE);
    cr_assert_eq(a.data[PT_DEV_H_MAGIC], PT_DEV_MAGIC);
    cr_assert_eq(pt_dev_records_host(b), 1);
    cr_assert_eq(pt_dev_arg_get(b, NULL), PT_EINVAL);
    cr_assert_eq(pt_dev_arg_get(NULL, &a), 0);
    cr_assert_null(a.data, "a NULL buffer: the empty argument");
    cr_assert_eq(a.nslots, 0);
    cr_assert_eq(pt_dev_records_host(NULL), 0);
    pt_dev_records_free(b);
}

Test(ffi, records_on_a_device_are_not_in_host_memory)
{
    pt__calib_set(0, 2.0, 1000.0);
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(fake.mallocs, 1, "made on the fake device");
    cr_assert_eq(pt_dev_records_host(b), 0);
    pt_dev_records_free(b);
}
