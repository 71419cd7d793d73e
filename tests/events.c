/* GPU sections: CUDA event pairs through a fake runtime (exact times,
 * lazy and in-order resolution, a bounded pool), every fallback to the
 * CPU clock, and the real runtime on a machine without a driver. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common.h"
#include "cuda_fake.h"

static test_clock clk;
static pt_timing *t;

static void setup_fake(void)
{
    fake_install();
}

static void teardown(void)
{
    pt_destroy(t);
    t = NULL;
    fake_uninstall();
}

TestSuite(events, .init = setup_fake, .fini = teardown);

/* The section's own counters, read without resolving anything. */
static const pt_section *raw(const char *path)
{
    const pt_section *s = pt_find(t, path);
    cr_assert_not_null(s, "pt_find(\"%s\") found nothing", path);
    return s;
}

static pt_section_stats get(const char *path)
{
    pt_section_stats st;
    int rc = pt_section_get(t, raw(path), &st);
    cr_assert_eq(rc, 0, "pt_section_get: %s", pt_strerror(rc));
    return st;
}

/* One launch of `ms` on the fake GPU's clock. */
static void launch(const char *title, double ms)
{
    int rc = pt_start_gpu(t, title, 0);
    cr_assert_eq(rc, 0, "pt_start_gpu: %s (%s)", pt_strerror(rc), pt_last_error(t));
    fake.now_ms += ms;
    rc = pt_stop_gpu(t, title, 0);
    cr_assert_eq(rc, 0, "pt_stop_gpu: %s (%s)", pt_strerror(rc), pt_last_error(t));
}

Test(events, without_the_flag_the_cpu_clock_times_gpu_sections)
{
    t = test_timing(&clk, "events", PT_CPU);
    pt_start_gpu(t, "k", 0);
    clk.now += 5000000;
    int rc = pt_stop_gpu(t, "k", 0);
    cr_assert_eq(rc, 0, "pt_stop_gpu: %s", pt_strerror(rc));
    pt_section_stats s = get("k");
    cr_assert_eq(s.count, 1);
    cr_assert_float_eq(s.total_ms, 5.0, 1e-12, "total %g ms", s.total_ms);
    cr_assert_eq(s.gpu, 1, "a GPU section stays one when timed by the CPU");
    pt_run_stats r = run_stats(t);
    cr_assert_eq(r.gpu_fallback, 1, "the fallback is recorded for the report");
    cr_assert_eq(r.gpu_timing, 0);
    cr_assert_eq(r.error_count, 0, "not an error without PT_GPU_EVENTS: %s", pt_last_error(t));
    cr_assert_eq(fake.created, 0, "no event without PT_GPU_EVENTS");
}

Test(events, fake_gpu_times_are_exact)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    launch("k", 1.5);
    launch("k", 2.0);
    launch("k", 3.0);
    launch("k", 4.0);
    pt_section_stats s = get("k");
    cr_assert_eq(s.count, 4);
    cr_assert_float_eq(s.total_ms, 10.5, 1e-9, "total %g", s.total_ms);
    cr_assert_float_eq(s.first_ms, 1.5, 1e-9, "first %g", s.first_ms);
    cr_assert_float_eq(s.mean_ms, 3.0, 1e-9, "mean %g", s.mean_ms);
    cr_assert_float_eq(s.stddev_ms, 1.0, 1e-9, "sd %g", s.stddev_ms);
    cr_assert_float_eq(s.min_ms, 2.0, 1e-9);
    cr_assert_float_eq(s.max_ms, 4.0, 1e-9);
    cr_assert_eq(s.gpu, 1);
    pt_run_stats r = run_stats(t);
    cr_assert_eq(r.gpu_timing, 1);
    cr_assert_eq(r.gpu_fallback, 0);
    cr_assert_eq(r.error_count, 0, "%s", pt_last_error(t));
}

Test(events, resolution_is_lazy)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    launch("k", 1.0);
    launch("k", 2.0);
    launch("k", 3.0);
    cr_assert_eq(raw("k")->count, 0, "nothing is recorded before it is asked for");
    cr_assert_eq(fake.syncs, 0, "pt_stop_gpu never waits for the GPU");
    cr_assert_eq(pt__queue_pending(t), 3);
    int rc = pt_sync(t);
    cr_assert_eq(rc, 0, "pt_sync: %s", pt_strerror(rc));
    cr_assert_eq(raw("k")->count, 3);
    cr_assert_eq(pt__queue_pending(t), 0);
    cr_assert_float_eq(raw("k")->total_ns, 6e6, 1e-3);
}

Test(events, resolution_is_in_order)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    /* An outer GPU section around two launches: the inner ones stop first. */
    pt_start_gpu(t, "outer", 0);
    launch("k", 7.0);
    launch("k", 1.0);
    fake.now_ms += 0.5;
    pt_stop_gpu(t, "outer", 0);
    launch("k", 2.0);
    pt_sync(t);
    /* All four on one stream: one wait, for the last stop, stands for the
     * ones before it, which the stream completed first. */
    cr_assert_eq(fake.nsynced, 1);
    cr_assert_float_eq(fake.synced_ms[0], fake.now_ms, 1e-9, "the last stop's");
    pt_section_stats k = get("outer/k"), top = get("k");
    cr_assert_float_eq(k.first_ms, 7.0, 1e-9, "the first launch stays first: %g", k.first_ms);
    cr_assert_float_eq(k.mean_ms, 1.0, 1e-9);
    cr_assert_float_eq(get("outer").total_ms, 8.5, 1e-9);
    cr_assert_float_eq(top.total_ms, 2.0, 1e-9);
}

/* On two streams each pair waits for its own end, oldest first: one
 * stream completing its work says nothing of another's. */
Test(events, pairs_on_two_streams_each_wait_in_order)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    pt_stream a = (pt_stream)(uintptr_t)0xa, b = (pt_stream)(uintptr_t)0xb;
    for (int i = 0; i < 4; i++) {
        pt_stream s = i % 2 ? b : a;
        pt_start_gpu(t, "k", s);
        fake.now_ms += 1.0 + i;
        pt_stop_gpu(t, "k", s);
    }
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(fake.nsynced, 4);
    for (int i = 1; i < fake.nsynced; i++)
        cr_assert_lt(fake.synced_ms[i - 1], fake.synced_ms[i],
                     "wait %d is for an earlier stop than wait %d", i, i - 1);
    cr_assert_float_eq(get("k").total_ms, 1.0 + 2.0 + 3.0 + 4.0, 1e-9);
    cr_assert_float_eq(get("k").first_ms, 1.0, 1e-9);
}

Test(events, pt_sync_flag_resolves_at_stop)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS | PT_SYNC);
    launch("k", 2.5);
    cr_assert_eq(raw("k")->count, 1, "PT_SYNC resolves in pt_stop_gpu");
    cr_assert_float_eq(raw("k")->total_ns, 2.5e6, 1e-3);
    cr_assert_eq(pt__queue_pending(t), 0);
}

Test(events, reports_and_stats_resolve)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    launch("k", 1.25);
    pt_run_stats r = run_stats(t);
    cr_assert_float_eq(r.total_ms, 1.25, 1e-9, "pt_run_get resolves: %g", r.total_ms);
    launch("k", 1.0);
    char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    cr_assert_not_null(f);
    int rc = pt_log(t, f);
    fclose(f);
    cr_assert_eq(rc, 0, "pt_log: %s", pt_strerror(rc));
    cr_assert_eq(raw("k")->count, 2, "the report resolved the second launch");
}

Test(events, a_low_pool_resolves_the_oldest_and_memory_stays_bounded)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    size_t most = 0;
    for (int i = 0; i < 10000; i++) {
        launch("k", (i % 4) + 1.0);
        if (pt__queue_pending(t) > most)
            most = pt__queue_pending(t);
    }
    cr_assert_leq(most, 1025, "at most 1025 pairs wait: %zu", most);
    /* The oldest half at a time, with one wait each time (one stream). */
    cr_assert_leq(fake.syncs, 10000 / 512 + 2, "%lld waits for 10000 pairs", fake.syncs);
    cr_assert_leq(pt__events_alive(t), 2 * 1025 + 2, "events alive: %zu",
                  pt__events_alive(t));
    cr_assert_gt(raw("k")->count, 0, "the pool ran low, so some were resolved");
    pt_section_stats s = get("k");
    cr_assert_eq(s.count, 10000);
    cr_assert_float_eq(s.total_ms, 25000.0, 1e-6, "total %g", s.total_ms);
    cr_assert_float_eq(s.first_ms, 1.0, 1e-9);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
}

Test(events, no_driver_falls_back_and_is_said_once)
{
    fake.count_err = PT__CU_INSUFFICIENT_DRIVER;
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    for (int i = 0; i < 3; i++) {
        pt_start_gpu(t, "k", 0);
        clk.now += 1000000;
        pt_stop_gpu(t, "k", 0);
    }
    pt_section_stats s = get("k");
    cr_assert_eq(s.count, 3);
    cr_assert_float_eq(s.total_ms, 3.0, 1e-12, "the CPU clock timed it: %g", s.total_ms);
    cr_assert_eq(pt_error_count(t), 0, "a machine without a driver is no error: %s",
                 pt_last_error(t));
    cr_assert_eq(pt_note_count(t), 1, "a note, said once, not per call");
    cr_assert(strstr(pt_last_note(t), "cudaGetDeviceCount") &&
                  strstr(pt_last_note(t), "fake CUDA error 35"),
              "the note names the call and CUDA's reason: %s", pt_last_note(t));
    pt_run_stats r = run_stats(t);
    cr_assert_eq(r.gpu_fallback, 1);
    cr_assert_eq(r.gpu_timing, 0);
    cr_assert_eq(r.note_count, 1);
    cr_assert(strstr(r.gpu_fallback_why, "fake CUDA error 35"), "the reason: %s",
              r.gpu_fallback_why);
    cr_assert_eq(s.cpu_clock, 3, "every call marked as timed by the CPU clock");
    cr_assert_eq(fake.created, 0);
}

Test(events, no_runtime_falls_back_and_is_said_once)
{
    pt__cuda_set_shim(&fake_missing_api);
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    pt_start_gpu(t, "k", 0);
    clk.now += 2000000;
    pt_stop_gpu(t, "k", 0);
    pt_start_gpu(t, "k", 0);
    pt_stop_gpu(t, "k", 0);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_note_count(t), 1, "said once");
    cr_assert(strstr(pt_last_note(t), "libcudart"), "names the library: %s", pt_last_note(t));
    cr_assert_float_eq(get("k").total_ms, 2.0, 1e-12);
    cr_assert_eq(run_stats(t).gpu_fallback, 1);
    cr_assert(strstr(run_stats(t).gpu_fallback_why, "no CUDA runtime"), "%s",
              run_stats(t).gpu_fallback_why);
}

Test(events, event_creation_failure_falls_back_for_that_section)
{
    fake.create_err = PT__CU_MEMORY_ALLOCATION;
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    int rc = pt_start_gpu(t, "k", 0);
    cr_assert_eq(rc, PT_ECUDA, "pt_start_gpu: %s", pt_strerror(rc));
    clk.now += 3000000;
    rc = pt_stop_gpu(t, "k", 0);
    cr_assert_eq(rc, 0, "the stop of a fallen-back section is fine: %s", pt_strerror(rc));
    cr_assert_float_eq(get("k").total_ms, 3.0, 1e-12);
    cr_assert_eq(pt_error_count_of(t, PT_ECUDA), 1);
    cr_assert(strstr(pt_last_error(t), "cudaEventCreateWithFlags"), "%s", pt_last_error(t));
    cr_assert_eq(run_stats(t).gpu_fallback, 1);
    /* The runtime recovers: the next launch is event-timed again. */
    fake.create_err = 0;
    launch("k", 4.0);
    pt_section_stats s = get("k");
    cr_assert_eq(s.count, 2);
    cr_assert_float_eq(s.mean_ms, 4.0, 1e-9);
}

Test(events, record_failure_at_stop_falls_back_in_order)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    launch("k", 6.0); /* pending */
    fake.record_err = 400;
    fake.records_before_err = 1; /* the next start records, its stop fails */
    pt_start_gpu(t, "k", 0);
    clk.now += 2000000;
    int rc = pt_stop_gpu(t, "k", 0);
    cr_assert_eq(rc, PT_ECUDA, "pt_stop_gpu: %s", pt_strerror(rc));
    cr_assert_eq(raw("k")->count, 0, "the CPU-timed occurrence waits behind the pending one");
    pt_sync(t);
    pt_section_stats s = get("k");
    cr_assert_eq(s.count, 2);
    cr_assert_float_eq(s.first_ms, 6.0, 1e-9, "order kept: first %g", s.first_ms);
    cr_assert_float_eq(s.mean_ms, 2.0, 1e-9, "the CPU clock's 2 ms: %g", s.mean_ms);
    cr_assert_eq(run_stats(t).gpu_fallback, 1);
}

Test(events, a_failed_wait_keeps_the_cpu_view)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    pt_start_gpu(t, "k", 0);
    clk.now += 1000000;
    fake.now_ms += 9.0;
    pt_stop_gpu(t, "k", 0);
    fake.sync_err = 719; /* cudaErrorLaunchFailure */
    int rc = pt_sync(t);
    cr_assert_eq(rc, PT_ECUDA, "pt_sync returns the failure: %s", pt_strerror(rc));
    cr_assert_float_eq(get("k").total_ms, 1.0, 1e-12);
    cr_assert(strstr(pt_last_error(t), "cudaEventSynchronize"), "%s", pt_last_error(t));
}

Test(events, stops_must_match_the_kind_of_start)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    pt_start(t, "cpu");
    int rc = pt_stop_gpu(t, "cpu", 0);
    cr_assert_eq(rc, PT_EMISMATCH, "pt_stop_gpu on a CPU section: %s", pt_strerror(rc));
    cr_assert(strstr(pt_last_error(t), "pt_start"), "%s", pt_last_error(t));
    cr_assert_eq(pt_stop(t, "cpu"), 0, "the section is still open and closes normally");
    pt_start_gpu(t, "gpu", 0);
    rc = pt_stop(t, "gpu");
    cr_assert_eq(rc, PT_EMISMATCH, "pt_stop on a GPU section: %s", pt_strerror(rc));
    fake.now_ms += 1;
    cr_assert_eq(pt_stop_gpu(t, "gpu", 0), 0);
    rc = pt_stop_gpu(t, "gpu", 0);
    cr_assert_eq(rc, PT_ENOSTART, "%s", pt_strerror(rc));
    pt_start_gpu(t, "a", 0);
    rc = pt_stop_gpu(t, "b", 0);
    cr_assert_eq(rc, PT_EMISMATCH, "%s", pt_strerror(rc));
    cr_assert_eq(pt_stop_gpu(t, "a", 0), 0);
}

Test(events, reset_and_destroy_release_events_without_waiting)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    launch("k", 1.0);
    launch("k", 1.0);
    pt_start_gpu(t, "open", 0);
    pt_reset(t);
    cr_assert_eq(fake.syncs, 0, "reset does not wait");
    cr_assert_eq(pt__queue_pending(t), 0);
    cr_assert_null(pt_find(t, "k"));
    launch("k", 2.0);
    pt_start_gpu(t, "left open", 0);
    pt_destroy(t);
    t = NULL;
    cr_assert_eq(fake.syncs, 0, "destroy does not wait");
    cr_assert_eq(fake.created, fake.destroyed, "every event destroyed: %lld of %lld",
                 fake.destroyed, fake.created);
}

Test(events, metrics_on_stop_gpu)
{
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    pt_start_gpu(t, "k", 0, .read = 100);
    fake.now_ms += 1;
    int rc = pt_stop_gpu(t, "k", 0, .flops = 2e6);
    cr_assert_eq(rc, 0, "%s", pt_strerror(rc));
    pt_section_stats s = get("k");
    cr_assert_float_eq(s.flops, 2e6, 1e-6);
    cr_assert_float_eq(s.read_bytes, 100, 1e-9);
    cr_assert_float_eq(s.gflops, 2.0, 1e-9, "2e6 flops in 1 ms: %g GFLOP/s", s.gflops);
    rc = pt_start_gpu(t, "k", 0);
    rc = pt_stop_gpu(t, "k", 0, .flops = -1);
    cr_assert_eq(rc, PT_ERANGE, "%s", pt_strerror(rc));
}

Test(events, disabled_and_null_timings_do_nothing)
{
    cr_assert_eq(pt_start_gpu(NULL, "k", 0), 0);
    cr_assert_eq(pt_stop_gpu(NULL, "k", 0), 0);
    cr_assert_eq(pt_sync(NULL), 0);
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    pt_disable(t);
    cr_assert_eq(pt_start_gpu(t, "k", 0), 0);
    cr_assert_eq(pt_stop_gpu(t, "k", 0), 0);
    pt_enable(t);
    cr_assert_eq(fake.created, 0);
    cr_assert_null(pt_find(t, "k"));
    cr_assert_eq(pt_start_gpu(t, NULL, 0), PT_EINVAL);
    cr_assert_eq(pt_stop_gpu(t, NULL, 0), PT_ENOSTART);
}

/* The real libcudart of this machine, whatever it finds: without a driver
 * cudaGetDeviceCount fails and the CPU clock times the section; with a GPU
 * the events do. Either way the section is timed and nothing breaks. */
Test(events, the_real_runtime_times_the_section_with_or_without_a_driver)
{
    fake_uninstall();
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    int rc = pt_start_gpu(t, "k", 0);
    clk.now += 1000000;
    int rc2 = pt_stop_gpu(t, "k", 0);
    pt_run_stats r = run_stats(t);
    pt_section_stats s = get("k");
    cr_assert_eq(s.count, 1, "timed either way");
    if (r.gpu_fallback) {
        cr_assert_eq(rc, 0, "%s", pt_strerror(rc));
        cr_assert_eq(rc2, 0, "%s", pt_strerror(rc2));
        cr_assert_float_eq(s.total_ms, 1.0, 1e-12, "the CPU clock: %g", s.total_ms);
        cr_assert_eq(pt_error_count(t), 0, "no device is no error: %s", pt_last_error(t));
        cr_assert_eq(pt_note_count(t), 1, "said once, as a note: %s", pt_last_note(t));
        cr_log_info("no device: %s", pt_last_note(t));
    } else {
        cr_assert_geq(s.total_ms, 0.0);
        cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    }
}

/* Under a stream capture (CUDA graphs) ptkit makes no call on the
 * captured stream: an event recorded there would be a graph node, and a
 * query of it would invalidate the user's capture. pt_start_gpu and
 * pt_stop_gpu are refused alike (said, no mismatch), PT_LAUNCH without
 * records captures the kernel alone (with records, its reset too: tests
 * of graphs in tests/launch.c), and other streams are timed as before. */
Test(events, nothing_is_recorded_on_a_stream_being_captured)
{
    pt_stream cap = (pt_stream)(uintptr_t)0xc4, other = (pt_stream)(uintptr_t)0x0e;
    t = test_timing(&clk, "events", PT_GPU_EVENTS);
    launch("before", 1.0); /* the device probed, events in use */
    long long records = fake.records, queries = fake.queries;
    fake.capturing = cap;
    cr_assert_eq(pt_start_gpu(t, "captured", cap), PT_ESTATE);
    cr_assert(strstr(pt_last_error(t), "captured into a CUDA graph"), "%s", pt_last_error(t));
    cr_assert_eq(pt_stop_gpu(t, "captured", cap), PT_ESTATE);
    cr_assert_eq(pt_error_count_of(t, PT_EMISMATCH), 0, "the refused pair is no mismatch");
    cr_assert_null(pt_find(t, "captured"), "no section for the captured pair");
    pt_dev_buf a = pt_dev_launch_begin(t, "graph kernel", NULL, NULL, 4, 128, cap, PT_LAUNCH_GPU);
    cr_assert_eq(a.nslots, 0, "the captured kernel gets no slots");
    cr_assert_eq(pt_dev_launch_end(t, "graph kernel", NULL, cap, PT_LAUNCH_GPU), 0);
    cr_assert_null(pt_find(t, "graph kernel"), "no section for the captured launch");
    cr_assert_eq(fake.records, records, "an event was recorded on the captured stream");
    cr_assert_eq(fake.queries, queries, "an event was queried during the capture");
    /* Another stream meanwhile: timed as ever. */
    cr_assert_eq(pt_start_gpu(t, "beside", other), 0, "%s", pt_last_error(t));
    fake.now_ms += 2.0;
    cr_assert_eq(pt_stop_gpu(t, "beside", other), 0, "%s", pt_last_error(t));
    fake.capturing = NULL;
    cr_assert_float_eq(get("beside").total_ms, 2.0, 1e-9);
    cr_assert_eq(run_stats(t).open_count, 0, "nothing left open");
}
