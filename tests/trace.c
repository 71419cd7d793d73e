/* The Chrome trace: host sections as nested complete events with exact
 * times on the injected clock, one track per thread, launches on stream
 * tracks placed by the fake GPU's reference event, folded blocks on SM
 * tracks, drops past the capacity, metadata, and the atomic write. Each
 * file is read back with jansson. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pt/pt_dev.h>

#include "common.h"
#include "cuda_fake.h"
#include "core/trace.h"

static test_clock clk;
static pt_timing *t;
static char path[64];

static void setup(void)
{
    fake_install();
    pt__calib_set(-1, 2.0, 1000.0);
    pt__calib_set(0, 2.0, 1000.0);
    snprintf(path, sizeof path, "/tmp/pt_trace_%d.json", (int)getpid());
}

static void teardown(void)
{
    pt_destroy(t);
    t = NULL;
    unlink(path);
    fake_uninstall();
}

TestSuite(trace, .init = setup, .fini = teardown);

static json_t *export_read(void)
{
    json_error_t err;
    int rc = pt_export_trace(t, path);
    cr_assert_eq(rc, 0, "pt_export_trace: %s (%s)", pt_strerror(rc), pt_last_error(t));
    json_t *j = json_load_file(path, 0, &err);
    cr_assert_not_null(j, "the trace is not JSON: %s at line %d", err.text, err.line);
    cr_assert(json_is_array(json_object_get(j, "traceEvents")), "no traceEvents array");
    cr_assert_str_eq(json_string_value(json_object_get(j, "displayTimeUnit")), "ms");
    cr_assert(json_is_object(json_object_get(j, "metadata")), "no metadata object");
    return j;
}

/* The n-th event (from 0) with phase ph, pid and name, or NULL. */
static json_t *find(json_t *j, const char *ph, int pid, const char *name, int n)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), ph) == 0 &&
            json_integer_value(json_object_get(e, "pid")) == pid &&
            (!name || strcmp(json_string_value(json_object_get(e, "name")), name) == 0) && n-- == 0)
            return e;
    }
    return NULL;
}

static size_t count(json_t *j, const char *ph, int pid)
{
    size_t i, n = 0;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e)
        n += strcmp(json_string_value(json_object_get(e, "ph")), ph) == 0 &&
             json_integer_value(json_object_get(e, "pid")) == pid;
    return n;
}

static double num(json_t *e, const char *k)
{
    json_t *v = json_object_get(e, k);
    cr_assert(json_is_number(v), "member %s is not a number", k);
    return json_number_value(v);
}

static uint64_t meta_u(json_t *j, const char *k)
{
    json_t *v = json_object_get(json_object_get(j, "metadata"), k);
    cr_assert(json_is_integer(v), "metadata.%s is not an integer", k);
    return (uint64_t)json_integer_value(v);
}

#define EPS 1e-9

static void span(const char *title, int64_t before, int64_t inside)
{
    clk.now += before;
    pt_start(t, title);
    clk.now += inside;
    pt_stop(t, title);
}

Test(trace, host_sections_have_exact_ts_and_dur)
{
    t = test_timing(&clk, "run", PT_TRACE);
    clk.now = 0;
    clk.now += 1500; /* 1.5 us after the origin */
    pt_start(t, "outer");
    span("inner", 250, 1000);
    span("inner", 500, 2000);
    clk.now += 125;
    pt_stop(t, "outer");
    json_t *j = export_read();
    json_t *o = find(j, "X", 1, "outer", 0), *i0 = find(j, "X", 1, "inner", 0),
           *i1 = find(j, "X", 1, "inner", 1);
    cr_assert(o && i0 && i1, "three complete events");
    cr_assert_float_eq(num(o, "ts"), 1.5, EPS, "outer ts %g", num(o, "ts"));
    cr_assert_float_eq(num(o, "dur"), 3.875, EPS, "outer dur %g", num(o, "dur"));
    cr_assert_float_eq(num(i0, "ts"), 1.75, EPS, "inner ts %g", num(i0, "ts"));
    cr_assert_float_eq(num(i0, "dur"), 1.0, EPS);
    cr_assert_float_eq(num(i1, "ts"), 3.25, EPS);
    cr_assert_float_eq(num(i1, "dur"), 2.0, EPS);
    cr_assert_eq(count(j, "X", 1), 3);
    json_decref(j);
}

/* Events of one track, in file order, must each lie inside every event
 * still open before them: a stack check of strict nesting. */
static void assert_nested(json_t *j, int pid)
{
    double end[64];
    int depth = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") ||
            json_integer_value(json_object_get(e, "pid")) != pid)
            continue;
        double ts = num(e, "ts"), te = ts + num(e, "dur");
        while (depth && ts >= end[depth - 1] - EPS)
            depth--;
        if (depth)
            cr_assert(te <= end[depth - 1] + EPS, "event ending at %g overlaps its parent ending at %g",
                      te, end[depth - 1]);
        cr_assert_lt(depth, 64);
        end[depth++] = te;
    }
}

Test(trace, children_lie_inside_their_parents)
{
    t = test_timing(&clk, "run", PT_TRACE);
    for (int k = 0; k < 5; k++) {
        clk.now += 10;
        pt_start(t, "frame");
        for (int m = 0; m < 3; m++) {
            clk.now += 7;
            pt_start(t, "solve");
            span("a", 3, 11 + m);
            span("b", 0, 5); /* starts where a ended */
            clk.now += 2;
            pt_stop(t, "solve");
        }
        span("tail", 0, 0); /* zero length, at the parent's end */
        pt_stop(t, "frame");
    }
    json_t *j = export_read();
    cr_assert_eq(count(j, "X", 1), 5 * (1 + 3 * 3 + 1));
    assert_nested(j, 1);
    json_decref(j);
}

static void *other_thread(void *arg)
{
    (void)arg;
    span("worker", 100, 100);
    return NULL;
}

Test(trace, each_thread_has_its_own_track)
{
    pthread_t th;
    t = test_timing(&clk, "run", PT_TRACE);
    span("main", 0, 100);
    cr_assert_eq(pthread_create(&th, NULL, other_thread, NULL), 0);
    pthread_join(th, NULL);
    json_t *j = export_read();
    json_t *a = find(j, "X", 1, "main", 0), *b = find(j, "X", 1, "worker", 0);
    cr_assert(a && b);
    cr_assert_neq(json_integer_value(json_object_get(a, "tid")),
                  json_integer_value(json_object_get(b, "tid")), "two threads, two tids");
    cr_assert_eq(count(j, "M", 1), 3, "process_name and two thread_names");
    json_decref(j);
}

static void note_line(void *ctx, const char *line)
{
    if (strcmp(line, "  note: 2 events left out of the trace (past pt_trace_capacity_set())") == 0)
        *(int *)ctx = 1;
}

Test(trace, drops_past_the_capacity_are_counted)
{
    t = test_timing(&clk, "run", PT_TRACE);
    cr_assert_eq(pt_trace_capacity_set(t, 3), 0);
    for (int k = 0; k < 5; k++)
        span("s", 1, 1);
    json_t *j = export_read();
    cr_assert_eq(count(j, "X", 1), 3, "only the capacity is kept");
    cr_assert_eq(meta_u(j, "dropped_host"), 2);
    cr_assert_eq(meta_u(j, "dropped"), 2);
    cr_assert_eq(meta_u(j, "capacity"), 3);
    cr_assert(json_is_string(json_object_get(json_object_get(j, "metadata"), "note_dropped")));
    cr_assert_eq(run_stats(t).trace_dropped, 2, "the report's figure");
    /* The first ones are kept, in order. */
    cr_assert_float_eq(num(find(j, "X", 1, "s", 2), "ts"), 0.005, EPS);
    cr_assert_eq(pt_find(t, "s")->count, 5, "the tree still counts every occurrence");
    /* A full log is a fault, counted once and said, as a full device
     * buffer is; how many it dropped is in the figures above. */
    cr_assert_eq(pt_error_count_of(t, PT_EFULL), 1, "the full log counted once");
    cr_assert(strstr(pt_last_error(t), "PT_TRACE: the log is full (3 host events"), "%s",
              pt_last_error(t));
    int noted = 0;
    pt_log_fn(t, note_line, &noted);
    cr_assert(noted, "the report says how many events the trace left out");
    json_decref(j);
}

static void *five_spans(void *arg)
{
    (void)arg;
    for (int k = 0; k < 5; k++)
        span("w", 1, 1);
    return NULL;
}

/* Each thread logs on its own, without a lock: a log that fills on one
 * thread, then another's, is still one fault counted, and every event
 * past the capacity, in a thread's log or when the report gathers the
 * logs, is counted as dropped. */
Test(trace, full_logs_on_several_threads_are_counted_once)
{
    t = test_timing(&clk, "run", PT_TRACE);
    cr_assert_eq(pt_trace_capacity_set(t, 3), 0);
    for (int i = 0; i < 2; i++) {
        pthread_t th;
        cr_assert_eq(pthread_create(&th, NULL, five_spans, NULL), 0);
        cr_assert_eq(pthread_join(th, NULL), 0);
    }
    json_t *j = export_read();
    cr_assert_eq(count(j, "X", 1), 3, "only the capacity is kept");
    cr_assert_eq(meta_u(j, "dropped_host"), 7, "2 past each thread's log, 3 past the gathered trace");
    cr_assert_eq(pt_error_count_of(t, PT_EFULL), 1, "one fault: %s", pt_last_error(t));
    cr_assert_eq(pt_find(t, "w")->count, 10, "the tree still counts every occurrence");
    json_decref(j);
}

/* Device trace events a record buffer's trace_cap dropped are not the
 * trace's capacity: the note names the buffer's knob, not
 * pt_trace_capacity_set(). */
Test(trace, device_drops_point_at_the_record_buffer)
{
    t = test_timing(&clk, "run", PT_TRACE);
    span("s", 1, 1);
    t->dropped = 7; /* as folds count a full trace_cap */
    json_t *j = export_read();
    json_t *m = json_object_get(j, "metadata");
    cr_assert_eq(meta_u(j, "dropped_host"), 0);
    cr_assert_null(json_object_get(m, "note_dropped"), "the host's capacity is not the cause");
    const char *note = json_string_value(json_object_get(m, "note_dropped_device"));
    cr_assert(note && strstr(note, "trace_cap") && strstr(note, "pt_dev_records_create"),
              "names the record buffer's trace_cap: %s", note ? note : "(none)");
    json_decref(j);
}

Test(trace, metadata_names_the_tracks)
{
    t = test_timing(&clk, "LED \"Optimization\"\n", PT_TRACE);
    span("a/b \\ \"q\"", 0, 10);
    json_t *j = export_read();
    json_t *p = find(j, "M", 1, "process_name", 0);
    cr_assert_not_null(p, "process_name");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(p, "args"), "name")),
                     "LED \"Optimization\"\n", "the title escaped and read back");
    cr_assert_not_null(find(j, "M", 1, "thread_name", 0));
    cr_assert_not_null(find(j, "X", 1, "a/b \\ \"q\"", 0), "a title with quotes reads back");
    json_t *m = json_object_get(j, "metadata");
    cr_assert_str_eq(json_string_value(json_object_get(m, "tool")), "ptkit");
    cr_assert_str_eq(json_string_value(json_object_get(m, "clock")), "user");
    cr_assert_eq(meta_u(j, "dropped"), 0);
    cr_assert_null(json_object_get(m, "note_dropped"), "nothing dropped, no note");
    json_decref(j);
}

Test(trace, without_the_flag_nothing_is_written)
{
    t = test_timing(&clk, "run", PT_CPU);
    span("a", 0, 10);
    int rc = pt_export_trace(t, path);
    cr_assert_eq(rc, PT_ESTATE, "pt_export_trace: %s", pt_strerror(rc));
    cr_assert_neq(access(path, F_OK), 0, "no file");
    cr_assert_eq(pt_trace_capacity_set(t, 10), PT_ESTATE);
    cr_assert_eq(pt_export_trace(NULL, path), 0, "NULL timing: no-op");
}

Test(trace, an_unwritable_path_leaves_nothing)
{
    t = test_timing(&clk, "run", PT_TRACE);
    span("a", 0, 10);
    int rc = pt_export_trace(t, "/nonexistent_dir_pt/trace.json");
    cr_assert_eq(rc, PT_EIO, "pt_export_trace: %s", pt_strerror(rc));
    cr_assert_neq(access("/nonexistent_dir_pt/trace.json", F_OK), 0);
    cr_assert_eq(pt_export_trace(t, ""), PT_EINVAL);
    rc = pt_export_trace(t, "/tmp");
    cr_assert_eq(rc, PT_EIO, "a directory is not a regular file: %s", pt_strerror(rc));
    cr_assert_eq(pt_trace_capacity_set(t, 0), PT_EINVAL);
}

Test(trace, open_sections_are_left_out_and_said)
{
    t = test_timing(&clk, "run", PT_TRACE);
    pt_start(t, "open");
    span("done", 5, 10);
    int rc = pt_export_trace(t, path);
    cr_assert_eq(rc, PT_EOPEN, "pt_export_trace: %s", pt_strerror(rc));
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    cr_assert_not_null(j, "still valid JSON: %s", err.text);
    cr_assert_not_null(find(j, "X", 1, "done", 0));
    cr_assert_null(find(j, "X", 1, "open", 0), "an open section has no end yet");
    json_decref(j);
    pt_stop(t, "open");
}

Test(trace, the_origin_moves_with_the_clock_and_reset_clears)
{
    t = pt_create("run", PT_TRACE);
    clk.now = 1000000000; /* far from 0: times are from the clock's setting */
    pt_clock_set(t, test_clock_read, &clk);
    span("a", 2000, 1000);
    json_t *j = export_read();
    cr_assert_float_eq(num(find(j, "X", 1, "a", 0), "ts"), 2.0, EPS);
    json_decref(j);
    pt_reset(t);
    span("b", 0, 1000);
    j = export_read();
    cr_assert_null(find(j, "X", 1, "a", 0), "pt_reset forgets the log with the tree");
    cr_assert_not_null(find(j, "X", 1, "b", 0));
    json_decref(j);
}

Test(trace, disabled_sections_are_not_traced)
{
    t = test_timing(&clk, "run", PT_TRACE);
    pt_disable(t);
    span("off", 0, 10);
    pt_enable(t);
    span("on", 0, 10);
    json_t *j = export_read();
    cr_assert_null(find(j, "X", 1, "off", 0));
    cr_assert_not_null(find(j, "X", 1, "on", 0));
    json_decref(j);
}

Test(trace, counters_from_the_hook)
{
    t = test_timing(&clk, "run", PT_TRACE);
    pt__trace_counter(t, "device memory", 3000, 1024);
    pt__trace_counter(t, "device memory", 5000, 0);
    json_t *j = export_read();
    json_t *c = find(j, "C", 1, "device memory", 1);
    cr_assert_not_null(c, "two counter samples");
    cr_assert_float_eq(num(c, "ts"), 5.0, EPS);
    c = find(j, "C", 1, "device memory", 0);
    cr_assert_float_eq(json_number_value(json_object_get(json_object_get(c, "args"), "device memory")),
                       1024, EPS);
    json_decref(j);
    pt__trace_counter(NULL, "x", 0, 1); /* a no-op */
}

Test(trace, the_schedule_is_in_the_metadata)
{
    t = test_timing(&clk, "run", PT_TRACE);
    pt_schedule_set(t, 1, 0, 1, 1);
    pt_step(t);
    pt_step(t);
    json_t *j = export_read();
    const char *s = json_string_value(json_object_get(json_object_get(j, "metadata"), "schedule"));
    cr_assert_not_null(s);
    cr_assert(strstr(s, "1 of 2 steps recorded"), "schedule: %s", s);
    json_decref(j);
}

/* ---- GPU ------------------------------------------------------------ */

Test(trace, launches_sit_on_stream_tracks_at_the_measured_offset)
{
    pt_stream s1 = (pt_stream)(uintptr_t)0x10;
    t = test_timing(&clk, "run", PT_TRACE | PT_GPU_EVENTS);
    fake.device_count = 1;
    fake.now_ms = 500; /* the GPU's clock has its own origin */
    clk.now = 1000000; /* the reference completes 1000 us into the run */
    pt_start_gpu(t, "k", 0);
    fake.now_ms += 2;  /* the launch takes 2 ms */
    clk.now += 10000;  /* the host returns at once */
    pt_stop_gpu(t, "k", 0);
    fake.now_ms += 5;  /* a 5 ms gap on the GPU, then a launch on another stream */
    pt_start_gpu(t, "k2", s1);
    fake.now_ms += 1;
    pt_stop_gpu(t, "k2", s1);
    json_t *j = export_read();
    json_t *a = find(j, "X", 2, "k", 0), *b = find(j, "X", 2, "k2", 0);
    cr_assert(a && b, "two launches on the GPU process");
    cr_assert_float_eq(num(a, "ts"), 1000.0, EPS, "at the reference: %g", num(a, "ts"));
    cr_assert_float_eq(num(a, "dur"), 2000.0, 1e-3);
    cr_assert_float_eq(num(b, "ts"), 8000.0, 1e-3, "7 ms after the reference: %g", num(b, "ts"));
    cr_assert_float_eq(num(b, "dur"), 1000.0, 1e-3);
    cr_assert_neq(json_integer_value(json_object_get(a, "tid")),
                  json_integer_value(json_object_get(b, "tid")), "one track per stream");
    cr_assert_eq(count(j, "M", 2), 3, "process_name and two stream names");
    /* The host's view of the launch stays on the host track. */
    json_t *h = find(j, "X", 1, "k", 0);
    cr_assert_not_null(h);
    cr_assert_float_eq(num(h, "ts"), 1000.0, EPS);
    cr_assert_float_eq(num(h, "dur"), 10.0, EPS);
    cr_assert_eq(fake.syncs >= 1, 1, "the reference is waited for");
    json_decref(j);
}

Test(trace, without_the_trace_flag_no_reference_is_taken)
{
    t = test_timing(&clk, "run", PT_GPU_EVENTS);
    fake.device_count = 1;
    pt_start_gpu(t, "k", 0);
    fake.now_ms += 1;
    pt_stop_gpu(t, "k", 0);
    cr_assert_eq(fake.syncs, 0, "no synchronization before resolution");
    cr_assert_eq(fake.records, 2, "only the pair is recorded");
}

/* Slot s as END leaves it (as tests/fold.c writes them). */
static long long *slot(pt_dev_records *b, int s, long long smid, long long clk_span, long long gt0,
                       long long gt_span, const long long *cycles)
{
    pt_dev_buf a = pt_dev_arg(b);
    long long *r = a.data + PT_DEV_HDR + s * PT_DEV_SLOT_WORDS(a.nphases, a.trace_cap);
    r[PT_DEV_S_DONE] = 1;
    r[PT_DEV_S_SMID] = r[PT_DEV_S_SMID1] = smid;
    r[PT_DEV_S_CLK0] = 1000000007LL;
    r[PT_DEV_S_CLK1] = r[PT_DEV_S_CLK0] + clk_span;
    r[PT_DEV_S_GT0] = 5000000000LL + gt0;
    r[PT_DEV_S_GT1] = r[PT_DEV_S_GT0] + gt_span;
    for (int p = 0; p < a.nphases; p++) {
        r[PT_DEV_SLOT_HDR + 2 * p] = cycles[p];
        r[PT_DEV_SLOT_HDR + 2 * p + 1] = 1;
    }
    return r;
}

Test(trace, folded_blocks_sit_on_sm_tracks)
{
    const char *names[] = { "angular", "energy" };
    t = test_timing(&clk, "run", PT_TRACE);
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, names, PT_DEV_HOST, 0);
    cr_assert_not_null(b);
    /* 4,000,000 cycles over 1 ms of globaltimer: 0.25 ns per cycle. */
    slot(b, 0, 3, 4000000, 0, 1000000, (long long[]){ 1200000, 2000000 });
    slot(b, 1, 5, 4000000, 200000, 1000000, (long long[]){ 400000, 3600000 });
    clk.now = 40000;
    pt_start(t, "step");
    clk.now += 1500000;
    pt_stop(t, "step");
    int rc = pt_dev_fold(t, b, "step");
    cr_assert_eq(rc, 0, "pt_dev_fold: %s (%s)", pt_strerror(rc), pt_last_error(t));
    json_t *j = export_read();
    json_t *b0 = find(j, "X", 3, "step", 0), *b1 = find(j, "X", 3, "step", 1);
    cr_assert(b0 && b1, "one event per block");
    cr_assert_eq(json_integer_value(json_object_get(b0, "tid")), 3, "on SM 3's track");
    cr_assert_eq(json_integer_value(json_object_get(b1, "tid")), 5, "on SM 5's track");
    cr_assert_float_eq(num(b0, "ts"), 40.0, EPS, "the earliest block at the launch's start");
    cr_assert_float_eq(num(b1, "ts"), 240.0, EPS, "200 us of globaltimer later");
    cr_assert_float_eq(num(b0, "dur"), 1000.0, EPS);
    json_t *args = json_object_get(b0, "args");
    cr_assert_float_eq(json_number_value(json_object_get(args, "angular")), 0.3, EPS);
    cr_assert_float_eq(json_number_value(json_object_get(args, "energy")), 0.5, EPS);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(b1, "args"), "block")), 1);
    cr_assert_not_null(find(j, "M", 3, "thread_name", 0), "SMs are named");
    json_decref(j);
    pt_dev_records_free(b);
}

Test(trace, trace_mode_intervals_inside_the_block)
{
    const char *names[] = { "load", "compute" };
    t = test_timing(&clk, "run", PT_TRACE);
    pt_dev_records *b = pt_dev_records_create(t, 1, 2, names, PT_DEV_HOST | PT_DEV_TRACE, 4);
    cr_assert_not_null(b);
    long long *r = slot(b, 0, 0, 4000000, 0, 1000000, (long long[]){ 400000, 3600000 });
    long long *ev = r + PT_DEV_SLOT_HDR + 2 * 2;
    r[PT_DEV_S_NEVENTS] = 2;
    ev[0] = 0;
    ev[1] = r[PT_DEV_S_CLK0] + 400000;   /* load: 100 us */
    ev[2] = 1;
    ev[3] = r[PT_DEV_S_CLK0] + 4000000;  /* compute: the next 900 us */
    clk.now = 10000;
    pt_start(t, "step");
    clk.now += 1000000;
    pt_stop(t, "step");
    int rc = pt_dev_fold(t, b, "step");
    cr_assert_eq(rc, 0, "pt_dev_fold: %s (%s)", pt_strerror(rc), pt_last_error(t));
    json_t *j = export_read();
    json_t *l = find(j, "X", 3, "load", 0), *c = find(j, "X", 3, "compute", 0);
    cr_assert(l && c, "one event per traced interval");
    cr_assert_float_eq(num(l, "ts"), 10.0, EPS);
    cr_assert_float_eq(num(l, "dur"), 100.0, EPS);
    cr_assert_float_eq(num(c, "ts"), 110.0, EPS);
    cr_assert_float_eq(num(c, "dur"), 900.0, EPS);
    assert_nested(j, 3);
    json_decref(j);
    pt_dev_records_free(b);
}

Test(trace, fold_samples_are_bounded)
{
    const char *names[] = { "p" };
    t = test_timing(&clk, "run", PT_TRACE);
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, names, PT_DEV_HOST, 0);
    slot(b, 0, 0, 1000, 0, 1000, (long long[]){ 500 });
    for (int k = 0; k < PT__TRACE_FOLD_LAUNCHES + 3; k++) {
        span("step", 0, 10000);
        cr_assert_eq(pt_dev_fold(t, b, "step"), 0, "%s", pt_last_error(t));
    }
    json_t *j = export_read();
    cr_assert_eq(count(j, "X", 3), PT__TRACE_FOLD_LAUNCHES);
    cr_assert_eq(meta_u(j, "fold_launches_cut"), 3);
    json_decref(j);
    pt_dev_records_free(b);
}
