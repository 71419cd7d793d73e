/* Device record buffers: layout and header, names, misuse, the fallback
 * to host memory without a device, device memory through a fake runtime,
 * failures, and the calibration made when a buffer is created. */
#include <criterion/criterion.h>
#include <string.h>

#include "common.h"
#include "cuda_fake.h"

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    fake_install();
    t = test_timing(&clk, "records", PT_GPU_EVENTS);
    cr_assert_not_null(t);
}

static void teardown(void)
{
    pt_destroy(t);
    fake_uninstall();
}

TestSuite(records, .init = setup, .fini = teardown);

static void assert_header(const long long *d, int nslots, int nphases, int cap, int mode)
{
    cr_assert_eq(d[PT_DEV_H_MAGIC], PT_DEV_MAGIC, "magic %llx", (unsigned long long)d[0]);
    cr_assert_eq(d[PT_DEV_H_LAYOUT], PT_DEV_LAYOUT);
    cr_assert_eq(d[PT_DEV_H_NSLOTS], nslots);
    cr_assert_eq(d[PT_DEV_H_NPHASES], nphases);
    cr_assert_eq(d[PT_DEV_H_TRACE_CAP], cap);
    cr_assert_eq(d[PT_DEV_H_MODE], mode);
    cr_assert_eq(d[PT_DEV_H_BAD_SLOT], 0);
    cr_assert_eq(d[PT_DEV_H_BAD_SLOT_AT], 0);
}

Test(records, host_buffer_has_the_header_and_zeroed_records)
{
    const char *names[] = { "a", "b", "c" };
    pt_dev_records *b = pt_dev_records_create(t, 5, 3, names, PT_DEV_HOST, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    pt_dev_buf a = pt_dev_arg(b);
    cr_assert_eq(a.nslots, 5);
    cr_assert_eq(a.nphases, 3);
    cr_assert_eq(a.trace_cap, 0);
    cr_assert_eq(a.mode, PT_DEV_MODE_AGGREGATE);
    assert_header(a.data, 5, 3, 0, PT_DEV_MODE_AGGREGATE);
    for (long long i = PT_DEV_HDR; i < PT_DEV_BUF_WORDS(5, 3, 0); i++)
        cr_assert_eq(a.data[i], 0, "word %lld", i);
    cr_assert_eq(fake.mallocs, 0, "host mode uses no device memory");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

Test(records, trace_buffers_have_room_for_events)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 4, NULL, PT_DEV_TRACE | PT_DEV_HOST, 16);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    pt_dev_buf a = pt_dev_arg(b);
    cr_assert_eq(a.trace_cap, 16);
    cr_assert_eq(a.mode, PT_DEV_MODE_TRACE);
    assert_header(a.data, 2, 4, 16, PT_DEV_MODE_TRACE);
    cr_assert_eq(PT_DEV_SLOT_WORDS(4, 16), 10 + 8 + 32);
    pt_dev_records_free(b);
    /* The capacity is ignored without PT_DEV_TRACE. */
    b = pt_dev_records_create(t, 2, 4, NULL, PT_DEV_HOST, 16);
    cr_assert_eq(pt_dev_arg(b).trace_cap, 0);
    pt_dev_records_free(b);
}

Test(records, names_are_copied_and_default_to_phase_n)
{
    char n0[] = "angular", n1[] = "energy";
    const char *names[] = { n0, n1 };
    pt_dev_records *b = pt_dev_records_create(t, 1, 2, names, PT_DEV_HOST, 0);
    cr_assert_not_null(b);
    n0[0] = 'X';
    cr_assert_str_eq(b->names[0], "angular", "the caller's string may change");
    cr_assert_str_eq(b->names[1], "energy");
    pt_dev_records *d = pt_dev_records_create(t, 1, 3, NULL, PT_DEV_HOST, 0);
    cr_assert_str_eq(d->names[0], "phase 0");
    cr_assert_str_eq(d->names[2], "phase 2");
    pt_dev_records_free(b);
    pt_dev_records_free(d);
}

Test(records, bad_arguments_are_refused_and_counted)
{
    const char *dup[] = { "x", "y", "x" };
    const char *null_name[] = { "x", NULL };
    const char *reserved[] = { "(unattributed)" };
    cr_assert_null(pt_dev_records_create(t, -2, 2, NULL, PT_DEV_HOST, 0));
    cr_assert_null(pt_dev_records_create(t, 4, 0, NULL, PT_DEV_HOST, 0));
    cr_assert_null(pt_dev_records_create(t, -1, 2, NULL, PT_DEV_HOST, 0));
    cr_assert_null(pt_dev_records_create(t, 4, 2, NULL, PT_DEV_HOST | PT_DEV_TRACE, 0));
    cr_assert_null(pt_dev_records_create(t, 4, 2, NULL, 1u << 7, 0));
    cr_assert_null(pt_dev_records_create(t, 4, 3, dup, PT_DEV_HOST, 0));
    cr_assert(strstr(pt_last_error(t), "\"x\""), "names the duplicate: %s", pt_last_error(t));
    cr_assert_null(pt_dev_records_create(t, 4, 2, null_name, PT_DEV_HOST, 0));
    cr_assert_null(pt_dev_records_create(t, 4, 1, reserved, PT_DEV_HOST, 0));
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 8, "each refusal counted: %llu",
                 (unsigned long long)pt_error_count_of(t, PT_EINVAL));
    cr_assert_null(pt_dev_records_create(t, 1 << 30, 1 << 30, NULL, PT_DEV_HOST | PT_DEV_TRACE,
                                        1 << 30));
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 1, "a size past 64 bits: %s", pt_last_error(t));
    /* Kernels compute a record's bytes in 32 bits. */
    cr_assert_null(pt_dev_records_create(t, 1, PT_DEV_SHAPE_MAX, NULL, PT_DEV_HOST, 0));
    cr_assert(strstr(pt_last_error(t), "must be below"), "%s", pt_last_error(t));
    cr_assert_null(pt_dev_records_create(t, 1, 2, NULL, PT_DEV_HOST | PT_DEV_TRACE, PT_DEV_SHAPE_MAX));
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 3, "each shape refused: %s", pt_last_error(t));
    cr_assert_eq(fake.mallocs, 0);
}

Test(records, null_arguments_do_nothing)
{
    cr_assert_null(pt_dev_records_create(NULL, 4, 2, NULL, PT_DEV_HOST, 0),
                   "no timing, no buffer: the kernel gets one it skips");
    pt_dev_buf a = pt_dev_arg(NULL);
    cr_assert_null(a.data);
    cr_assert_eq(a.nslots, 0);
    cr_assert_eq(pt_dev_reset(NULL, 0), 0);
    pt_dev_records_free(NULL);
}

Test(records, device_buffer_is_made_on_the_device)
{
    pt__calib_set(0, 2.0, 1000.0); /* no calibration kernel, so one cudaMalloc */
    pt_dev_records *b = pt_dev_records_create(t, 3, 2, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(b->host, 0);
    cr_assert_eq(b->device, 0);
    cr_assert_eq(fake.mallocs, 1);
    pt_dev_buf a = pt_dev_arg(b);
    assert_header(a.data, 3, 2, 0, PT_DEV_MODE_AGGREGATE);
    /* A launch writes records and counts a bad slot; reset clears both and
     * keeps the header. */
    for (long long i = PT_DEV_HDR; i < b->words; i++)
        a.data[i] = 42;
    a.data[PT_DEV_H_BAD_SLOT] = 9;
    a.data[PT_DEV_H_BAD_SLOT_AT] = 12;
    int rc = pt_dev_reset(b, (pt_stream)(uintptr_t)0x77);
    cr_assert_eq(rc, 0, "pt_dev_reset: %s", pt_strerror(rc));
    assert_header(a.data, 3, 2, 0, PT_DEV_MODE_AGGREGATE);
    for (long long i = PT_DEV_HDR; i < b->words; i++)
        cr_assert_eq(a.data[i], 0, "word %lld", i);
    cr_assert_eq(b->stream, (pt_stream)(uintptr_t)0x77, "the stream is kept for the fold");
    pt_dev_records_free(b);
    cr_assert_eq(fake.frees, fake.mallocs, "device memory freed");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

/* One records object used from two streams: a fold's copy queued on
 * stream A may not have read the records when stream B resets them for
 * its launch, so B's clearing waits for A's copy (cudaStreamWaitEvent on
 * the copy's event); on A's own stream the order alone keeps it. */
Test(records, a_reset_on_another_stream_waits_for_the_folds_copy)
{
    pt_stream a = (pt_stream)(uintptr_t)0xa, b2 = (pt_stream)(uintptr_t)0xb;
    pt__calib_set(0, 2.0, 1000.0);
    pt_dev_records *b = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, a), 0);
    pt_start_gpu(t, "on a", a);
    fake.now_ms += 1;
    pt_stop_gpu(t, "on a", a);
    cr_assert_eq(pt_dev_fold(t, b, "on a"), 0, "queued behind the launch: %s", pt_last_error(t));
    cr_assert_not_null(b->read_ev, "the copy's event is kept");
    cr_assert_eq(b->read_stream, a, "the copy runs on the launch's stream");
    cr_assert_eq(pt_dev_reset(b, a), 0);
    cr_assert_eq(fake.waits, 0, "on the copy's own stream no wait is needed");
    cr_assert_eq(pt_dev_reset(b, b2), 0, "%s", pt_last_error(t));
    cr_assert_eq(fake.waits, 1, "stream B's reset does not wait for A's copy");
    cr_assert_eq(fake.waited_stream, b2, "the wait is on B");
    cr_assert_eq(fake.waited_ev, b->read_ev, "for the copy's event");
    pt_sync(t);
    pt_dev_records_free(b);
}

Test(records, host_reset_clears_records_and_keeps_the_header)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, NULL, PT_DEV_HOST, 0);
    pt_dev_buf a = pt_dev_arg(b);
    for (long long i = PT_DEV_HDR; i < b->words; i++)
        a.data[i] = -1;
    a.data[PT_DEV_H_BAD_SLOT] = 3;
    a.data[PT_DEV_H_BAD_SLOT_AT] = 5;
    cr_assert_eq(pt_dev_reset(b, 0), 0);
    assert_header(a.data, 2, 2, 0, PT_DEV_MODE_AGGREGATE);
    for (long long i = PT_DEV_HDR; i < b->words; i++)
        cr_assert_eq(a.data[i], 0);
    pt_dev_records_free(b);
}

Test(records, no_device_gives_host_memory_said_once)
{
    /* The device is probed as a timing is made: a machine without one. */
    fake.count_err = PT__CU_NO_DEVICE;
    pt_destroy(t);
    t = test_timing(&clk, "records", PT_GPU_EVENTS);
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, NULL, PT_DEV_AGGREGATE, 0);
    pt_dev_records *c = pt_dev_records_create(t, 4, 2, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "falls back: %s", pt_last_error(t));
    cr_assert_not_null(c);
    cr_assert_eq(b->host, 1);
    cr_assert(pt_dev_arg(b).data != NULL);
    cr_assert_eq(pt_error_count(t), 0, "a machine without a device is no error: %s",
                 pt_last_error(t));
    cr_assert_eq(pt_note_count(t), 1, "said once, as a note");
    cr_assert(strstr(pt_last_note(t), "host memory"), "%s", pt_last_note(t));
    cr_assert_eq(fake.mallocs, 0);
    pt_dev_records_free(b);
    pt_dev_records_free(c);
}

Test(records, device_malloc_failure_gives_null_counted)
{
    fake.malloc_err = PT__CU_MEMORY_ALLOCATION;
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_null(b, "a kernel must never get host memory on a real device");
    cr_assert_eq(pt_error_count_of(t, PT_ECUDA), 1);
    cr_assert(strstr(pt_last_error(t), "cudaMalloc"), "%s", pt_last_error(t));
    /* The kernel then gets a buffer it skips. */
    cr_assert_eq(pt_dev_arg(b).nslots, 0);
}

Test(records, device_memset_failure_frees_and_counts)
{
    fake.memset_err = 700;
    cr_assert_null(pt_dev_records_create(t, 4, 2, NULL, PT_DEV_AGGREGATE, 0));
    cr_assert_eq(fake.frees, fake.mallocs, "nothing leaked on the device");
    cr_assert(strstr(pt_last_error(t), "cudaMemsetAsync"), "%s", pt_last_error(t));
    fake.memset_err = 0;
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b);
    fake.memset_err = 700;
    int rc = pt_dev_reset(b, 0);
    cr_assert_eq(rc, PT_ECUDA, "%s", pt_strerror(rc));
    pt_dev_records_free(b);
}

Test(records, a_buffer_outlives_its_timing)
{
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b);
    pt_destroy(t);
    t = NULL;
    cr_assert_null(b->t);
    fake.memset_err = 700;
    cr_assert_eq(pt_dev_reset(b, 0), PT_ECUDA, "still returned, counted nowhere");
    pt_dev_records_free(b);
}

/* The calibration kernel runs once per device per process, when the first
 * buffer is made there; with CUDA=0 there is no kernel and it says so. */
Test(records, creation_calibrates_the_device_once)
{
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_AGGREGATE, 0);
    pt_dev_records *c = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_AGGREGATE, 0);
    pt__calib cal;
    pt__calib_get(pt__cuda(), 0, &cal);
    cr_assert_str_eq(cal.name, "Fake GPU 0");
    if (pt__fatbin_calibrate_size > 0) {
        cr_assert_eq(cal.ok, 1, "%s", cal.why);
        cr_assert_eq(fake.launches, 1, "once per process: %lld", fake.launches);
        cr_assert_float_eq(cal.cycles_per_ns, 2.0, 1e-12);
        cr_assert_float_eq(cal.tick_ns, 1000.0, 1e-12);
        cr_assert_eq(cal.smid, 3);
    } else {
        cr_assert_eq(cal.ok, 0);
        cr_assert(strstr(cal.why, "CUDA=0"), "%s", cal.why);
    }
    pt_dev_records_free(b);
    pt_dev_records_free(c);
}

Test(records, a_failed_calibration_says_why)
{
    fake.library_err = 218; /* cudaErrorInvalidPtx */
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(b, "a buffer without calibration is still a buffer");
    pt__calib cal;
    pt__calib_get(pt__cuda(), 0, &cal);
    cr_assert_eq(cal.ok, 0);
    cr_assert(pt__fatbin_calibrate_size == 0 || strstr(cal.why, "cudaLaunchKernel(pt_calibrate)"),
              "%s", cal.why);
    cr_assert(pt__fatbin_calibrate_size == 0 || strstr(cal.why, "fake CUDA error 218"), "%s",
              cal.why);
    /* Registered as nvcc's own code registers a program's kernels. */
    cr_assert(pt__fatbin_calibrate_size == 0 || (fake_reg.fatbins == 1 && fake_reg.functions == 1 &&
                                                  fake_reg.ends == 1),
              "%d fatbins, %d functions, %d ends", fake_reg.fatbins, fake_reg.functions,
              fake_reg.ends);
    pt_dev_records_free(b);
}

Test(records, a_nonsense_calibration_is_refused)
{
    fake.cal_tick = 0; /* a globaltimer that never moved */
    pt__calib cal;
    pt__calib_get(pt__cuda(), 0, &cal);
    cr_assert_eq(cal.ok, 0, "never a made-up rate");
}

Test(records, host_calibration_is_measured)
{
    pt__calib cal;
    pt__calib_get(NULL, -1, &cal);
    cr_assert_eq(cal.ok, 1);
    cr_assert_str_eq(cal.name, "host");
    cr_assert_gt(cal.cycles_per_ns, 0.0);
    cr_assert_gt(cal.tick_ns, 0.0);
    cr_assert_lt(cal.tick_ns, 1e6, "CLOCK_MONOTONIC steps under 1 ms: %g ns", cal.tick_ns);
}
