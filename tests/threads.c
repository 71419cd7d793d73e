/* One timing, many threads: per-thread stacks, sections pooled by path,
 * stops on the wrong thread. The counts are checked exactly; .ci/run
 * also runs this suite under ThreadSanitizer. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <jansson.h>
#include <stdatomic.h>
#include <unistd.h>

#include "common.h"
#include "threads_jobs.h"

#define NTHREADS 8
#define NSECTIONS 100000

static pt_timing *threaded_timing(void)
{
    pt_timing *t = pt_create("threads", PT_CPU);
    cr_assert_not_null(t);
    cr_assert_eq(pt_set_clock(t, stepping_clock, NULL), 0);
    return t;
}

static void run(job *jobs, int n)
{
    int rc = run_jobs(jobs, n);
    cr_assert_eq(rc, 0, "%s", rc == 1 ? "a thread would not run" : pt_strerror(rc));
}

static void get(pt_timing *t, const char *path, pt_section_stats *st)
{
    const pt_section *s = pt_find(t, path);
    cr_assert_not_null(s, "no section %s", path);
    cr_assert_eq(pt_section_get(t, s, st), 0);
}

Test(threads, eight_threads_pool_by_path_exactly)
{
    pt_timing *t = threaded_timing();
    job jobs[NTHREADS];
    pt_section_stats st;

    for (int i = 0; i < NTHREADS; i++)
        jobs[i] = (job){ .t = t, .index = i + 1, .step = 10, .n = NSECTIONS };
    run(jobs, NTHREADS);

    /* Every read moves a thread's clock 10 ns: inner lasts 10 ns, outer
     * 30 (its start, inner's start and stop, its stop). */
    get(t, "outer", &st);
    cr_assert_eq(st.count, (uint64_t)NTHREADS * NSECTIONS);
    cr_assert_float_eq(st.total_ms, NTHREADS * NSECTIONS * 30e-6, 1e-9);
    cr_assert_float_eq(st.mean_ms, 30e-6, 1e-15);
    cr_assert_float_eq(st.stddev_ms, 0, 1e-15);
    get(t, "outer/inner", &st);
    cr_assert_eq(st.count, (uint64_t)NTHREADS * NSECTIONS);
    cr_assert_float_eq(st.total_ms, NTHREADS * NSECTIONS * 10e-6, 1e-9);
    cr_assert_float_eq(st.flops, 2.0 * NTHREADS * NSECTIONS, 0);
    for (int i = 1; i <= NTHREADS; i++) {
        char path[32];
        snprintf(path, sizeof path, "thread %d", i);
        get(t, path, &st);
        cr_assert_eq(st.count, 1);
    }
    pt_run_stats rs = pt_stats(t);
    cr_assert_eq(rs.threads, NTHREADS + 1);
    cr_assert_eq(rs.section_count, 2 + NTHREADS);
    cr_assert_eq(rs.error_count, 0, "%s", pt_last_error(t));
    cr_assert_eq(rs.open_count, 0);
    pt_destroy(t);
}

Test(threads, each_thread_is_accounted)
{
    pt_timing *t = threaded_timing();
    job jobs[3];
    pt_thread_info ti;
    long seen = 0;

    for (int i = 0; i < 3; i++)
        jobs[i] = (job){ .t = t, .index = i + 1, .step = 10 * (i + 1), .n = 1000 };
    run(jobs, 3);
    cr_assert_eq(pt_threads(t), 4);
    cr_assert_eq(pt_thread_stats(t, 0, &ti), 0);
    cr_assert_eq(ti.index, 0);
    cr_assert_eq(ti.occurrences, 0);
    for (int i = 1; i <= 3; i++) {
        cr_assert_eq(pt_thread_stats(t, i, &ti), 0);
        cr_assert_eq(ti.index, i);
        cr_assert_gt(ti.tid, 0);
        cr_assert_eq(ti.open, 0);
        /* 1000 outer + 1000 inner + its own section. */
        cr_assert_eq(ti.occurrences, 2001);
        seen += (long)ti.occurrences;
        /* Which job a recorder served is the order of first use; its busy
         * time is one of theirs: 1000 outers of 3 steps plus its own
         * section of one step. */
        double step_ms = ti.busy_ms / 3001.0;
        cr_assert(fabs(step_ms - 10e-6) < 1e-12 || fabs(step_ms - 20e-6) < 1e-12 ||
                      fabs(step_ms - 30e-6) < 1e-12, "busy %g ms", ti.busy_ms);
    }
    cr_assert_eq(seen, 3 * 2001);
    cr_assert_eq(pt_thread_stats(t, 4, &ti), PT_ENOTFOUND);
    cr_assert_eq(pt_thread_stats(t, -1, &ti), PT_EINVAL);
    cr_assert_eq(pt_thread_stats(t, 0, NULL), PT_EINVAL);
    cr_assert_eq(pt_threads(NULL), 0);
    pt_destroy(t);
}

/* Threads of different speeds: the pooled mean and stddev are those of
 * all occurrences together, and the first occurrence stays apart. */
Test(threads, pooled_statistics_are_those_of_the_union)
{
    pt_timing *t = threaded_timing();
    job jobs[2] = { { .t = t, .index = 1, .step = 10, .n = 500 },
                    { .t = t, .index = 2, .step = 40, .n = 1500 } };
    pt_section_stats st;

    run(jobs, 2);
    get(t, "outer/inner", &st);
    cr_assert_eq(st.count, 2000);
    cr_assert_float_eq(st.total_ms, (500 * 10 + 1500 * 40) * 1e-6, 1e-12);
    /* The first occurrence is one thread's (10 or 40 ns); the other 1999
     * are the rest. */
    double first = st.first_ms * 1e6;
    cr_assert(first == 10 || first == 40, "first %g ns", first);
    double n10 = first == 10 ? 499 : 500, n40 = first == 40 ? 1499 : 1500;
    double mean = (n10 * 10 + n40 * 40) / (n10 + n40);
    double var = (n10 * (10 - mean) * (10 - mean) + n40 * (40 - mean) * (40 - mean)) /
                 (n10 + n40 - 1);
    cr_assert_float_eq(st.mean_ms * 1e6, mean, 1e-9);
    cr_assert_float_eq(st.stddev_ms * 1e6, sqrt(var), 1e-9);
    cr_assert_float_eq(st.min_ms * 1e6, 10, 1e-9);
    cr_assert_float_eq(st.max_ms * 1e6, 40, 1e-9);
    pt_destroy(t);
}

/* Reports may come often: each pools only what is new. */
Test(threads, repeated_reports_do_not_count_twice)
{
    pt_timing *t = threaded_timing();
    job jobs[2] = { { .t = t, .index = 1, .step = 10, .n = 100 },
                    { .t = t, .index = 2, .step = 10, .n = 100 } };
    pt_section_stats st;
    char *text;
    size_t len;
    FILE *f;

    run(jobs, 2);
    for (int i = 0; i < 3; i++) {
        get(t, "outer", &st);
        cr_assert_eq(st.count, 200);
        f = open_memstream(&text, &len);
        cr_assert_not_null(f);
        pt_log(t, f);
        fclose(f);
        cr_assert_not_null(strstr(text, "threads: 3, 2 of them timed sections"), "%s", text);
        free(text);
    }
    /* The same threads' recorders again, and the creating thread too. */
    jobs[0].n = jobs[1].n = 50;
    run(jobs, 2);
    pt_start(t, "outer");
    pt_stop(t, "outer");
    get(t, "outer", &st);
    cr_assert_eq(st.count, 200 + 100 + 1);
    pt_destroy(t);
}

Test(threads, per_thread_lines_in_the_report)
{
    pt_timing *t = threaded_timing();
    job jobs[2] = { { .t = t, .index = 1, .step = 10, .n = 10 },
                    { .t = t, .index = 2, .step = 10, .n = 10 } };
    test_text out = { 0 };

    run(jobs, 2);
    cr_assert_eq(pt_log_fn(t, test_text_line, &out, .threads = 1), 0);
    cr_assert_not_null(strstr(out.s, "thread 0 (tid "), "%s", out.s);
    cr_assert_not_null(strstr(out.s, ", creator: 0 occurrences"), "%s", out.s);
    cr_assert_not_null(strstr(out.s, "thread 1 (tid "), "%s", out.s);
    cr_assert_not_null(strstr(out.s, ": 21 occurrences"), "%s", out.s);
    cr_assert_not_null(strstr(out.s, "thread 2 (tid "), "%s", out.s);
    free(out.s);
    pt_destroy(t);
}

/* ---- the wrong thread ------------------------------------------------ */

Test(threads, stop_on_another_thread_is_counted_and_described)
{
    pt_timing *t = pt_create("handoff", PT_CPU);
    handoff h = { .t = t };
    pthread_t th;
    pt_section_stats st;

    cr_assert_eq(pthread_create(&th, NULL, start_and_hold, &h), 0);
    wait_for(&h.stage, 1);
    /* The creating thread stops what the other thread started. */
    cr_assert_eq(pt_stop(t, "handoff"), PT_ETHREAD);
    cr_assert_eq(pt_error_count_of(t, PT_ETHREAD), 1);
    cr_assert_not_null(strstr(pt_last_error(t), "started on thread 1"), "%s", pt_last_error(t));
    cr_assert_not_null(strstr(pt_last_error(t), "pt_stop(\"handoff\") on thread 0"), "%s",
                       pt_last_error(t));
    /* With a section of its own open, it is still the other thread's. */
    pt_start(t, "mine");
    cr_assert_eq(pt_stop(t, "handoff"), PT_ETHREAD);
    cr_assert_eq(pt_stop(t, "mine"), 0);
    /* Not open anywhere: an ordinary stop without a start. */
    cr_assert_eq(pt_stop(t, "nowhere"), PT_ENOSTART);
    atomic_store(&h.stage, 2);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_eq(h.rc, 0, "%s", pt_strerror(h.rc));
    get(t, "handoff", &st);
    cr_assert_eq(st.count, 1);
    cr_assert_eq(pt_error_count_of(t, PT_ETHREAD), 2);
    pt_destroy(t);
}

static void *gpu_and_memory(void *arg)
{
    handoff *h = arg;
    int rc = pt_start_gpu(h->t, "launch", 0);
    if (rc == PT_ETHREAD)
        rc = pt_track(h->t, "x", NULL, 64, NULL, 0, "f32");
    if (rc == PT_ETHREAD)
        rc = pt_untrack(h->t, "x");
    h->rc = rc;
    return NULL;
}

Test(threads, gpu_sections_and_memory_belong_to_the_creating_thread)
{
    pt_timing *t = pt_create("owner", PT_CPU);
    handoff h = { .t = t };
    pthread_t th;

    cr_assert_eq(pthread_create(&th, NULL, gpu_and_memory, &h), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_eq(h.rc, PT_ETHREAD);
    cr_assert_eq(pt_error_count_of(t, PT_ETHREAD), 3);
    cr_assert_not_null(strstr(pt_last_error(t), "creating thread"), "%s", pt_last_error(t));
    cr_assert_null(pt_find(t, "launch"));
    pt_destroy(t);
}

/* A thread that exits with a section open: the report says so. */
static void *leave_open(void *arg)
{
    pt_start((pt_timing *)arg, "left open");
    return NULL;
}

Test(threads, open_sections_on_other_threads_are_reported)
{
    pt_timing *t = pt_create("open", PT_CPU);
    pthread_t th;

    cr_assert_eq(pthread_create(&th, NULL, leave_open, t), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_eq(pt_stats(t).open_count, 1);
    pt_destroy(t);
}

Test(threads, reset_empties_every_thread)
{
    pt_timing *t = threaded_timing();
    job jobs[2] = { { .t = t, .index = 1, .step = 10, .n = 10 },
                    { .t = t, .index = 2, .step = 10, .n = 10 } };
    pt_section_stats st;

    run(jobs, 2);
    pt_reset(t);
    cr_assert_null(pt_find(t, "outer"));
    cr_assert_eq(pt_stats(t).section_count, 0);
    run(jobs, 2);
    get(t, "outer", &st);
    cr_assert_eq(st.count, 20);
    pt_destroy(t);
}

/* The JSON export lists the threads; its sections are the pooled ones. */
Test(threads, json_lists_threads_and_pooled_sections)
{
    pt_timing *t = threaded_timing();
    job jobs[2] = { { .t = t, .index = 1, .step = 10, .n = 40 },
                    { .t = t, .index = 2, .step = 10, .n = 60 } };
    char path[] = "/tmp/ptkit-threads-XXXXXX";
    json_error_t err;
    json_t *doc, *th, *sec;
    uint64_t occ = 0;

    run(jobs, 2);
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(pt_export_json(t, path), 0, "%s", pt_last_error(t));
    doc = json_load_file(path, 0, &err);
    unlink(path);
    cr_assert_not_null(doc, "%s", err.text);
    th = json_object_get(doc, "threads");
    cr_assert(json_is_array(th));
    cr_assert_eq(json_array_size(th), 3);
    for (size_t i = 0; i < 3; i++) {
        json_t *o = json_array_get(th, i);
        cr_assert_eq(json_integer_value(json_object_get(o, "index")), (json_int_t)i);
        occ += (uint64_t)json_integer_value(json_object_get(o, "occurrences"));
    }
    cr_assert_eq(occ, 2 * 100 + 2);
    sec = json_array_get(json_object_get(doc, "sections"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(sec, "name")), "outer");
    cr_assert_eq(json_integer_value(json_object_get(sec, "count")), 100);
    json_decref(doc);
    pt_destroy(t);
}

/* A thread timing into more timings than its cache holds keeps each
 * one's sections apart and exact. */
typedef struct many {
    pt_timing *t[6];
    int rc;
} many;

static void *round_robin(void *arg)
{
    many *m = arg;
    for (int i = 0; i < 600; i++) {
        pt_timing *t = m->t[i % 6];
        int rc = pt_start(t, "step");
        rc = rc ? rc : pt_stop(t, "step");
        if (rc && !m->rc)
            m->rc = rc;
    }
    return NULL;
}

Test(threads, one_thread_many_timings)
{
    many m = { .rc = 0 };
    pthread_t th[2];

    for (int i = 0; i < 6; i++)
        m.t[i] = pt_create("many", PT_CPU);
    cr_assert_eq(pthread_create(&th[0], NULL, round_robin, &m), 0);
    cr_assert_eq(pthread_create(&th[1], NULL, round_robin, &m), 0);
    cr_assert_eq(pthread_join(th[0], NULL), 0);
    cr_assert_eq(pthread_join(th[1], NULL), 0);
    cr_assert_eq(m.rc, 0, "%s", pt_strerror(m.rc));
    for (int i = 0; i < 6; i++) {
        pt_section_stats st;
        get(m.t[i], "step", &st);
        cr_assert_eq(st.count, 200);
        cr_assert_eq(pt_threads(m.t[i]), 3);
        pt_destroy(m.t[i]);
    }
}
