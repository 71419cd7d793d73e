/* The Chrome trace: host sections as nested complete events with exact
 * times on the injected clock, one track per thread, launches on stream
 * tracks placed by the fake GPU's reference event, folded blocks on SM
 * tracks, drops past the capacity, metadata, and the atomic write. Each
 * file is read back with jansson. */
#define _GNU_SOURCE /* syscall */
#include <criterion/criterion.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <pt/pt_dev.h>

#include "common.h"
#include "cuda_fake.h"
#include "records_fake.h"
#include "core/tlog.h"
#include "core/trace.h"
#include "trace_check.h"

/* The trace's processes: k x 10,000,000 + this process's id (pt.h). */
#define HOST (10000000LL + getpid())
#define GPU (20000000LL + getpid())
#define SM (30000000LL + getpid())

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
    char why[512];
    cr_assert_eq(trace_check(j, why, sizeof why), 0, "the trace is malformed: %s", why);
    return j;
}

/* The n-th event (from 0) with phase ph, pid and name, or NULL. */
static json_t *find(json_t *j, const char *ph, long long pid, const char *name, int n)
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

static size_t count(json_t *j, const char *ph, long long pid)
{
    size_t i, n = 0;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e)
        n += strcmp(json_string_value(json_object_get(e, "ph")), ph) == 0 &&
             json_integer_value(json_object_get(e, "pid")) == pid;
    return n;
}

/* The name a thread_name event gives track (pid, tid), or NULL. */
static const char *track_name(json_t *j, long long pid, long long tid)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e)
        if (strcmp(json_string_value(json_object_get(e, "ph")), "M") == 0 &&
            strcmp(json_string_value(json_object_get(e, "name")), "thread_name") == 0 &&
            json_integer_value(json_object_get(e, "pid")) == pid &&
            json_integer_value(json_object_get(e, "tid")) == tid)
            return json_string_value(json_object_get(json_object_get(e, "args"), "name"));
    return NULL;
}

static long long tid_of(json_t *e)
{
    return json_integer_value(json_object_get(e, "tid"));
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
    json_t *o = find(j, "X", HOST, "outer", 0), *i0 = find(j, "X", HOST, "inner", 0),
           *i1 = find(j, "X", HOST, "inner", 1);
    cr_assert(o && i0 && i1, "three complete events");
    cr_assert_float_eq(num(o, "ts"), 1.5, EPS, "outer ts %g", num(o, "ts"));
    cr_assert_float_eq(num(o, "dur"), 3.875, EPS, "outer dur %g", num(o, "dur"));
    cr_assert_float_eq(num(i0, "ts"), 1.75, EPS, "inner ts %g", num(i0, "ts"));
    cr_assert_float_eq(num(i0, "dur"), 1.0, EPS);
    cr_assert_float_eq(num(i1, "ts"), 3.25, EPS);
    cr_assert_float_eq(num(i1, "dur"), 2.0, EPS);
    cr_assert_eq(count(j, "X", HOST), 3);
    json_decref(j);
}

/* Events of one track, in file order, must each lie inside every event
 * still open before them: a stack check of strict nesting. */
static void assert_nested(json_t *j, long long pid)
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
    cr_assert_eq(count(j, "X", HOST), 5 * (1 + 3 * 3 + 1));
    assert_nested(j, HOST);
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
    json_t *a = find(j, "X", HOST, "main", 0), *b = find(j, "X", HOST, "worker", 0);
    cr_assert(a && b);
    cr_assert_neq(tid_of(a), tid_of(b), "two threads, two tids");
    cr_assert_eq(tid_of(a), (long long)syscall(SYS_gettid), "a thread's track is its OS id");
    cr_assert_not_null(find(j, "M", HOST, "thread_name", 1), "two threads named");
    cr_assert_null(find(j, "M", HOST, "thread_name", 2), "and no more");
    cr_assert_not_null(strstr(track_name(j, HOST, tid_of(a)), "thread "), "%s",
                       track_name(j, HOST, tid_of(a)));
    /* The viewers add the tid to the name: the name does not carry it. */
    cr_assert_null(strstr(track_name(j, HOST, tid_of(a)), "tid"), "%s",
                   track_name(j, HOST, tid_of(a)));
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
    cr_assert_eq(count(j, "X", HOST), 3, "only the capacity is kept");
    cr_assert_eq(meta_u(j, "dropped_host"), 2);
    cr_assert_eq(meta_u(j, "dropped"), 2);
    cr_assert_eq(meta_u(j, "capacity"), 3);
    cr_assert(json_is_string(json_object_get(json_object_get(j, "metadata"), "note_dropped")));
    cr_assert_eq(run_stats(t).trace_dropped, 2, "the report's figure");
    /* The first ones are kept, in order. */
    /* 5 ns, on the grid of 1024ths of a microsecond (within 0.5 ns). */
    cr_assert_float_eq(num(find(j, "X", HOST, "s", 2), "ts"), 0.005, 0.0005);
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

/* The log grows by chunks (1024 events, then twice the last, up to 2 MiB
 * each): every event is kept in order across them, up to the capacity
 * exactly, with nothing copied; after a gather the chunks serve again. */
Test(trace, the_log_keeps_every_event_in_order_across_its_chunks)
{
    enum { CAP = 300001, N = 300100 };
    t = test_timing(&clk, "run", PT_TRACE);
    cr_assert_eq(pt_trace_capacity_set(t, CAP), 0);
    pt_start(t, "outer");
    int64_t first = clk.now;
    for (int k = 0; k < N; k++)
        span("s", 1, 2);
    pt_stop(t, "outer");
    pt__tlog *l = &t->main.tlog;
    size_t chunks = 0;
    for (const pt__tchunk *c = l->first; c; c = c->next)
        chunks++;
    cr_assert_geq(chunks, 6, "%zu chunks for %d events", chunks, CAP);
    cr_assert_leq(pt__tlog_bytes(CAP), (size_t)CAP * sizeof(pt__tevent) * 11 / 10 + (4u << 20),
                  "the chunks hold %zu bytes for %d events", pt__tlog_bytes(CAP), CAP);
    const pt__tchunk *head = l->first;
    pt__trace_gather(t);
    pt__trace *tr = t->trace;
    cr_assert_eq(tr->nhost, CAP, "%zu kept", tr->nhost);
    cr_assert_eq(tr->dropped_host, N + 1 - CAP, "outer and the rest dropped");
    for (size_t i = 0; i < tr->nhost; i++) {
        cr_assert_eq(tr->host[i].t0, first + 1 + 3 * (int64_t)i, "event %zu out of place", i);
        cr_assert_eq(tr->host[i].t1 - tr->host[i].t0, 2);
    }
    cr_assert_eq(l->n, 0, "gathered");
    /* The next events go to the same chunks. */
    span("s", 1, 2);
    cr_assert_eq(l->first, head, "the first chunk is reused");
    cr_assert_eq(l->ev, head->ev, "the next event at its start");
    pt__trace_gather(t);
    cr_assert_eq(tr->nhost, CAP, "the gathered list is bounded by the capacity too");
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
    cr_assert_eq(count(j, "X", HOST), 3, "only the capacity is kept");
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
    json_t *p = find(j, "M", HOST, "process_name", 0);
    cr_assert_not_null(p, "process_name");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(p, "args"), "name")),
                     "LED \"Optimization\"\n", "the title escaped and read back");
    cr_assert_not_null(find(j, "M", HOST, "thread_name", 0));
    cr_assert_not_null(find(j, "X", HOST, "a/b \\ \"q\"", 0), "a title with quotes reads back");
    json_t *m = json_object_get(j, "metadata");
    cr_assert_str_eq(json_string_value(json_object_get(m, "tool")), "ptkit");
    cr_assert_str_eq(json_string_value(json_object_get(m, "clock")), "user");
    cr_assert_eq(meta_u(j, "dropped"), 0);
    cr_assert_null(json_object_get(m, "note_dropped"), "nothing dropped, no note");
    json_decref(j);
}

/* Without PT_TRACE the timing kept no occurrences: the trace is the
 * aggregate flame chart, and says so. */
Test(trace, without_the_flag_the_flame_chart_is_written)
{
    t = test_timing(&clk, "run", PT_CPU);
    pt_start(t, "outer");
    span("a", 0, 10000);
    span("a", 0, 30000);
    span("b", 0, 5000);
    pt_stop(t, "outer");
    json_t *j = export_read();
    json_t *m = json_object_get(j, "metadata");
    cr_assert_str_eq(json_string_value(json_object_get(m, "layout")), "aggregate");
    cr_assert(strstr(json_string_value(json_object_get(m, "note_trace")), "PT_TRACE"),
              "the metadata says why it is not a timeline");
    json_t *o = find(j, "X", HOST, "outer", 0), *a = find(j, "X", HOST, "a", 0),
           *b = find(j, "X", HOST, "b", 0);
    cr_assert(o && a && b, "one event per section");
    cr_assert_null(find(j, "X", HOST, "a", 1), "a section is one event, not one per occurrence");
    cr_assert_float_eq(num(a, "dur"), 40.0, EPS, "as long as its total");
    cr_assert_float_eq(num(a, "ts"), num(o, "ts"), EPS, "children from the parent's start");
    cr_assert_float_eq(num(b, "ts"), num(a, "ts") + 40.0, EPS, "one after another");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(a, "args"), "count")), 2);
    cr_assert(json_is_integer(json_object_get(j, "baseTimeNanoseconds")),
              "it starts where the run began on the wall clock");
    json_decref(j);
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
    cr_assert_not_null(find(j, "X", HOST, "done", 0));
    cr_assert_null(find(j, "X", HOST, "open", 0), "an open section has no end yet");
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
    cr_assert_float_eq(num(find(j, "X", HOST, "a", 0), "ts"), 2.0, EPS);
    json_decref(j);
    pt_reset(t);
    span("b", 0, 1000);
    j = export_read();
    cr_assert_null(find(j, "X", HOST, "a", 0), "pt_reset forgets the log with the tree");
    cr_assert_not_null(find(j, "X", HOST, "b", 0));
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
    cr_assert_null(find(j, "X", HOST, "off", 0));
    cr_assert_not_null(find(j, "X", HOST, "on", 0));
    json_decref(j);
}

Test(trace, counters_from_the_hook)
{
    t = test_timing(&clk, "run", PT_TRACE);
    pt__trace_counter(t, "device memory", 3000, 1024);
    pt__trace_counter(t, "device memory", 5000, 0);
    json_t *j = export_read();
    json_t *c = find(j, "C", HOST, "device memory", 1);
    cr_assert_not_null(c, "two counter samples");
    cr_assert_float_eq(num(c, "ts"), 5.0, EPS);
    c = find(j, "C", HOST, "device memory", 0);
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
    json_t *a = find(j, "X", GPU, "k", 0), *b = find(j, "X", GPU, "k2", 0);
    cr_assert(a && b, "two launches on the GPU process");
    cr_assert_float_eq(num(a, "ts"), 1000.0, EPS, "at the reference: %g", num(a, "ts"));
    cr_assert_float_eq(num(a, "dur"), 2000.0, 1e-3);
    cr_assert_float_eq(num(b, "ts"), 8000.0, 1e-3, "7 ms after the reference: %g", num(b, "ts"));
    cr_assert_float_eq(num(b, "dur"), 1000.0, 1e-3);
    cr_assert_neq(tid_of(a), tid_of(b), "one track per stream");
    cr_assert_str_eq(track_name(j, GPU, tid_of(a)), "default stream");
    cr_assert_str_eq(track_name(j, GPU, tid_of(b)), "stream 0x10");
    cr_assert_eq(tid_of(a), 1, "streams numbered from 1 in order of first use");
    /* The host's view of the launch stays on the host track. */
    json_t *h = find(j, "X", HOST, "k", 0);
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
    return test_slot(b, s, smid, clk_span, gt0, gt_span, cycles, NULL);
}

Test(trace, folded_blocks_sit_on_sm_tracks)
{
    const char *names[] = { "angular", "energy" };
    t = test_timing(&clk, "run", PT_TRACE);
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, names, 0, 0); /* on the (fake) device */
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
    json_t *b0 = find(j, "X", SM, "step", 0), *b1 = find(j, "X", SM, "step", 1);
    cr_assert(b0 && b1, "one event per block");
    cr_assert_str_eq(track_name(j, SM, tid_of(b0)), "SM 3, lane 0", "on SM 3's track");
    cr_assert_str_eq(track_name(j, SM, tid_of(b1)), "SM 5, lane 0", "on SM 5's track");
    cr_assert_float_eq(num(b0, "ts"), 40.0, EPS, "the earliest block at the launch's start");
    cr_assert_float_eq(num(b1, "ts"), 240.0, EPS, "200 us of globaltimer later");
    cr_assert_float_eq(num(b0, "dur"), 1000.0, EPS);
    json_t *args = json_object_get(b0, "args");
    cr_assert_float_eq(json_number_value(json_object_get(args, "angular")), 0.3, EPS);
    cr_assert_float_eq(json_number_value(json_object_get(args, "energy")), 0.5, EPS);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(b1, "args"), "block")), 1);
    cr_assert_not_null(find(j, "M", SM, "thread_name", 0), "SMs are named");
    json_decref(j);
    pt_dev_records_free(b);
}

/* A launch's roles are drawn at the launch's start on the GPU's
 * timeline, each block at its offset from the launch's earliest BEGIN
 * over all its roles: the producer's block at the start, the consumer's
 * 100 us later, as they ran. */
Test(trace, roles_sit_at_their_launch_as_they_ran)
{
    t = test_timing(&clk, "run", PT_TRACE | PT_GPU_EVENTS);
    fake.device_count = 1;
    fake.now_ms = 500;
    clk.now = 1000000; /* the reference completes 1000 us into the run */
    pt_dev_records *p = pt_dev_records_create(t, 1, 1, NULL, 0, 0);
    pt_dev_records *c = pt_dev_records_create(t, 1, 1, NULL, 0, 0);
    cr_assert(p && c, "%s", pt_last_error(t));
    slot(p, 0, 3, 4000000, 7000000, 1000000, (long long[]){ 1200000 });
    slot(c, 0, 4, 2000000, 7100000, 500000, (long long[]){ 1200000 });
    pt_start_gpu(t, "step", 0);
    fake.now_ms += 2;
    clk.now += 10000;
    pt_stop_gpu(t, "step", 0);
    cr_assert_eq(pt_dev_fold_role(t, p, "step", "producer"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_fold_role(t, c, "step", "consumer"), 0, "%s", pt_last_error(t));
    json_t *j = export_read();
    json_t *a = find(j, "X", SM, "producer", 0), *b = find(j, "X", SM, "consumer", 0);
    cr_assert(a && b, "a block of each role");
    cr_assert_float_eq(num(a, "ts"), 1000.0, EPS, "at the launch's start: %g", num(a, "ts"));
    cr_assert_float_eq(num(b, "ts"), 1100.0, EPS, "100 us after it: %g", num(b, "ts"));
    json_decref(j);
    pt_dev_records_free(p);
    pt_dev_records_free(c);
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
    json_t *l = find(j, "X", SM, "load", 0), *c = find(j, "X", SM, "compute", 0);
    cr_assert(l && c, "one event per traced interval");
    cr_assert_float_eq(num(l, "ts"), 10.0, EPS);
    cr_assert_float_eq(num(l, "dur"), 100.0, EPS);
    cr_assert_float_eq(num(c, "ts"), 110.0, EPS);
    cr_assert_float_eq(num(c, "dur"), 900.0, EPS);
    assert_nested(j, SM);
    json_decref(j);
    pt_dev_records_free(b);
}

Test(trace, fold_samples_are_bounded)
{
    const char *names[] = { "p" };
    t = test_timing(&clk, "run", PT_TRACE);
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, names, PT_DEV_HOST, 0);
    for (int k = 0; k < PT__TRACE_FOLD_LAUNCHES + 3; k++) {
        pt_dev_reset(b, NULL);
        slot(b, 0, 0, 1000, 0, 1000, (long long[]){ 500 });
        span("step", 0, 10000);
        cr_assert_eq(pt_dev_fold(t, b, "step"), 0, "%s", pt_last_error(t));
    }
    json_t *j = export_read();
    size_t i, blocks = 0;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e)
        blocks += json_is_string(json_object_get(e, "cat")) &&
                  strcmp(json_string_value(json_object_get(e, "cat")), "blocks") == 0;
    cr_assert_eq(blocks, PT__TRACE_FOLD_LAUNCHES, "one block per launch kept");
    cr_assert_eq(meta_u(j, "fold_launches_cut"), 3);
    json_decref(j);
    pt_dev_records_free(b);
}

/* Blocks resident on one SM at once each get a lane: A [0, 1000] us,
 * B [200, 1200], D [300, 400] overlap, so three lanes; C starts at 1000
 * when A ends and takes A's lane again. */
Test(trace, blocks_resident_at_once_get_lanes_of_their_sm)
{
    const char *names[] = { "p" };
    t = test_timing(&clk, "run", PT_TRACE);
    pt_dev_records *b = pt_dev_records_create(t, 5, 1, names, 0, 0); /* on the (fake) device */
    cr_assert_not_null(b);
    /* 1,000,000 cycles per ms of globaltimer: 1 ns per cycle. */
    slot(b, 0, 7, 1000000, 0, 1000000, (long long[]){ 500000 });      /* A */
    slot(b, 1, 7, 1000000, 200000, 1000000, (long long[]){ 500000 }); /* B */
    slot(b, 2, 7, 500000, 1000000, 500000, (long long[]){ 100000 });  /* C */
    slot(b, 3, 7, 100000, 300000, 100000, (long long[]){ 100000 });   /* D */
    slot(b, 4, 2, 1000000, 0, 1000000, (long long[]){ 100000 });      /* alone on SM 2 */
    clk.now = 0;
    span("step", 0, 2000000);
    cr_assert_eq(pt_dev_fold(t, b, "step"), 0, "%s", pt_last_error(t));
    json_t *j = export_read(); /* the checker: no lane holds two blocks that cross */
    const char *want[] = { "SM 7, lane 0", "SM 7, lane 1", "SM 7, lane 0", "SM 7, lane 2",
                           "SM 2, lane 0" };
    size_t i;
    json_t *e;
    int seen = 0;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e) {
        json_t *blk = json_object_get(json_object_get(e, "args"), "block");
        if (!json_is_integer(blk) || strcmp(json_string_value(json_object_get(e, "cat")), "blocks"))
            continue;
        int s = (int)json_integer_value(blk);
        cr_assert_str_eq(track_name(j, SM, tid_of(e)), want[s], "block %d", s);
        seen++;
    }
    cr_assert_eq(seen, 5, "every block drawn");
    /* Tracks sort by SM, then lane: SM 2 first. */
    for (long long tid = 1; tid <= 4; tid++)
        cr_assert_not_null(track_name(j, SM, tid), "tracks numbered 1 to 4");
    cr_assert_str_eq(track_name(j, SM, 1), "SM 2, lane 0");
    cr_assert_str_eq(track_name(j, SM, 4), "SM 7, lane 2");
    cr_assert_str_eq(track_name(j, SM, 5), "launch tails (first SM idle to last END)",
                     "four block tracks, C reusing A's, then the tails'");
    cr_assert_null(track_name(j, SM, 6));
    json_decref(j);
    pt_dev_records_free(b);
}

/* Host mode's SMID is the CPU a block ran on: its blocks get tracks of
 * their own, named as CPUs, never shared with the GPU's SM of that
 * number, and the process says it holds both. */
Test(trace, host_mode_blocks_sit_on_cpu_tracks_apart_from_the_sms)
{
    const char *names[] = { "p" };
    t = test_timing(&clk, "run", PT_TRACE);
    pt_dev_records *gpu = pt_dev_records_create(t, 1, 1, names, 0, 0);
    pt_dev_records *cpu = pt_dev_records_create(t, 1, 1, names, PT_DEV_HOST, 0);
    cr_assert(gpu && cpu, "%s", pt_last_error(t));
    /* Both on "3", at the same time: on one track they would cross. */
    slot(gpu, 0, 3, 1000000, 0, 1000000, (long long[]){ 500000 });
    slot(cpu, 0, 3, 1000000, 0, 1000000, (long long[]){ 500000 });
    clk.now = 0;
    span("kernel", 0, 2000000);
    cr_assert_eq(pt_dev_fold(t, gpu, "kernel"), 0, "%s", pt_last_error(t));
    span("host body", 0, 2000000);
    cr_assert_eq(pt_dev_fold(t, cpu, "host body"), 0, "%s", pt_last_error(t));
    json_t *j = export_read();
    json_t *bg = find(j, "X", SM, "kernel", 0), *bc = find(j, "X", SM, "host body", 0);
    cr_assert(bg && bc, "one event per block");
    cr_assert_str_eq(track_name(j, SM, tid_of(bg)), "SM 3, lane 0");
    cr_assert_str_eq(track_name(j, SM, tid_of(bc)), "host CPU 3, lane 0");
    cr_assert_neq(tid_of(bg), tid_of(bc), "a CPU and an SM of one number share a track");
    json_t *p = find(j, "M", SM, "process_name", 0);
    cr_assert_not_null(p, "the blocks' process is named");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(p, "args"), "name")),
                     "Blocks by GPU SM and host CPU (folded launches)");
    json_decref(j);
    pt_dev_records_free(gpu);
    pt_dev_records_free(cpu);
}

/* An aggregate block holds each phase's total: drawn one after another
 * from the block's start, inside it, the phase without cycles left out.
 * Totals past the block are what no kernel writes (each mark's interval
 * lies between BEGIN and END): that block is left out, and said. */
Test(trace, aggregate_phases_are_slices_inside_their_block)
{
    const char *names[] = { "load", "idle", "compute" };
    t = test_timing(&clk, "run", PT_TRACE);
    pt_dev_records *b = pt_dev_records_create(t, 2, 3, names, PT_DEV_HOST, 0);
    cr_assert_not_null(b);
    /* 0.25 ns per cycle: load 100 us, compute 600 us of a 1000 us block. */
    slot(b, 0, 1, 4000000, 0, 1000000, (long long[]){ 400000, 0, 2400000 });
    /* Totals past the block: 750 + 500 us of a 1000 us span. */
    slot(b, 1, 1, 4000000, 2000000, 1000000, (long long[]){ 3000000, 0, 2000000 });
    clk.now = 20000;
    span("step", 0, 5000000);
    cr_assert_eq(pt_dev_fold(t, b, "step"), PT_ERANGE);
    cr_assert(strstr(pt_last_error(t), "1 block records hold what no kernel writes"), "%s",
              pt_last_error(t));
    json_t *j = export_read();
    json_t *blk = find(j, "X", SM, "step", 0), *l = find(j, "X", SM, "load", 0),
           *c = find(j, "X", SM, "compute", 0);
    cr_assert(blk && l && c, "the block and its phases");
    cr_assert_null(find(j, "X", SM, "idle", 0), "a phase without cycles is not drawn");
    cr_assert_str_eq(json_string_value(json_object_get(l, "cat")), "phases (aggregate)");
    cr_assert_eq(tid_of(l), tid_of(blk), "on the block's track");
    cr_assert_float_eq(num(l, "ts"), num(blk, "ts"), EPS, "from the block's start");
    cr_assert_float_eq(num(l, "dur"), 100.0, EPS);
    cr_assert_float_eq(num(c, "ts"), num(blk, "ts") + 100.0, EPS, "after the phase before it");
    cr_assert_float_eq(num(c, "dur"), 600.0, EPS);
    cr_assert_null(find(j, "X", SM, "step", 1), "the impossible block is not drawn");
    json_decref(j);
    pt_dev_records_free(b);
}

/* Real process ids, in a range no OS process or CUDA device takes, a
 * sort order with the host first, and no track with tid 0. */
Test(trace, processes_have_real_ids_and_an_order)
{
    const char *names[] = { "p" };
    t = test_timing(&clk, "run", PT_TRACE | PT_GPU_EVENTS);
    fake.device_count = 1;
    pt_dev_records *b = pt_dev_records_create(t, 1, 1, names, PT_DEV_HOST, 0);
    slot(b, 0, 0, 1000, 0, 1000, (long long[]){ 500 });
    pt_start_gpu(t, "k", 0);
    fake.now_ms += 1;
    pt_stop_gpu(t, "k", 0);
    cr_assert_eq(pt_dev_fold(t, b, "k"), 0, "%s", pt_last_error(t));
    pt__trace_counter(t, "device memory", 3000, 1024);
    json_t *j = export_read();
    long long pids[] = { HOST, GPU, SM };
    for (int k = 0; k < 3; k++) {
        json_t *o = find(j, "M", pids[k], "process_sort_index", 0);
        cr_assert_not_null(o, "process %d has a sort index", k);
        cr_assert_eq(json_integer_value(json_object_get(json_object_get(o, "args"), "sort_index")),
                     k + 1, "host, then launches, then blocks");
        cr_assert_null(json_object_get(o, "tid"), "process metadata names no thread");
        cr_assert_not_null(find(j, "M", pids[k], "process_name", 0));
    }
    cr_assert_not_null(find(j, "M", HOST, "thread_sort_index", 0));
    cr_assert_not_null(find(j, "M", SM, "thread_sort_index", 0));
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e) {
        long long pid = json_integer_value(json_object_get(e, "pid"));
        cr_assert(pid == HOST || pid == GPU || pid == SM, "pid %lld is one of the three", pid);
        cr_assert(pid > 5000015, "never a device ordinal or a Kineto pid");
    }
    json_t *p = json_object_get(json_object_get(j, "metadata"), "pids");
    cr_assert_eq(json_integer_value(json_object_get(p, "host")), HOST, "the metadata says them");
    cr_assert_eq(json_integer_value(json_object_get(p, "gpu_blocks")), SM);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "metadata"), "process_id")),
                 getpid());
    json_decref(j);
    pt_dev_records_free(b);
}

static long long wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ts 0 is the wall clock at pt_create(), or at the latest pt_clock_set(),
 * so a trace of another tool with a time base lines up with this one. */
Test(trace, the_time_base_is_the_wall_clock_at_the_origin)
{
    long long before = wall_ns();
    t = pt_create("run", PT_TRACE);
    long long after = wall_ns();
    span("a", 0, 1000);
    json_t *j = export_read();
    long long base = json_integer_value(json_object_get(j, "baseTimeNanoseconds"));
    cr_assert(before <= base && base <= after, "base %lld in [%lld, %lld]", base, before, after);
    json_decref(j);
    usleep(2000);
    before = wall_ns();
    pt_clock_set(t, test_clock_read, &clk);
    after = wall_ns();
    span("b", 500, 1000);
    j = export_read();
    base = json_integer_value(json_object_get(j, "baseTimeNanoseconds"));
    cr_assert(before <= base && base <= after, "pt_clock_set moves it: %lld", base);
    cr_assert_float_eq(num(find(j, "X", HOST, "b", 0), "ts"), 0.5, EPS);
    /* It comes before the events, for readers that stream. */
    char *text = test_read_file(path);
    cr_assert_not_null(text);
    cr_assert_lt(strstr(text, "baseTimeNanoseconds") - text, strstr(text, "traceEvents") - text);
    free(text);
    json_decref(j);
}

/* The checker itself finds what viewers refuse: a crossing on a track, a
 * tid 0, a track without a name. */
Test(trace, the_checker_finds_crossings_and_unnamed_tracks)
{
    static const char *bad[] = {
        "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":9,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
        "{\"ph\":\"M\",\"pid\":9,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"t\"}},"
        "{\"ph\":\"X\",\"pid\":9,\"tid\":1,\"name\":\"A\",\"ts\":0,\"dur\":10},"
        "{\"ph\":\"X\",\"pid\":9,\"tid\":1,\"name\":\"B\",\"ts\":5,\"dur\":10}]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":9,\"tid\":0,\"name\":\"A\",\"ts\":0,\"dur\":10}]}",
        "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":9,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
        "{\"ph\":\"X\",\"pid\":9,\"tid\":1,\"name\":\"A\",\"ts\":0,\"dur\":10}]}",
    };
    static const char *what[] = { "crosses", "tid 0", "no thread_name" };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        json_error_t err;
        char why[512] = "";
        json_t *j = json_loads(bad[k], 0, &err);
        cr_assert_not_null(j, "%s", err.text);
        cr_assert_eq(trace_check(j, why, sizeof why), 1, "case %zu passed", k);
        cr_assert(strstr(why, what[k]), "case %zu: %s", k, why);
        json_decref(j);
    }
}
