/* One timing, many threads: per-thread stacks, sections pooled by path,
 * stops on the wrong thread. The counts are checked exactly; .ci/run
 * also runs this suite under ThreadSanitizer. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <jansson.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "threads_jobs.h"

#define NTHREADS 8
#define NSECTIONS 100000

static pt_timing *threaded_timing(void)
{
    pt_timing *t = pt_create("threads", PT_CPU);
    cr_assert_not_null(t);
    cr_assert_eq(pt_clock_set(t, stepping_clock, NULL), 0);
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
    pt_run_stats rs = run_stats(t);
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
    cr_assert_eq(pt_thread_get(t, 0, &ti), 0);
    cr_assert_eq(ti.index, 0);
    cr_assert_eq(ti.occurrences, 0);
    for (int i = 1; i <= 3; i++) {
        cr_assert_eq(pt_thread_get(t, i, &ti), 0);
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
    cr_assert_eq(pt_thread_get(t, 4, &ti), PT_ENOTFOUND);
    cr_assert_eq(pt_thread_get(t, -1, &ti), PT_EINVAL);
    cr_assert_eq(pt_thread_get(t, 0, NULL), PT_EINVAL);
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

/* A reset from another thread drops a thread's open section; that
 * thread's stop of it is a stop without a start that says so, even when
 * another thread has opened a section of the same title since (it was
 * PT_ETHREAD, blaming the other thread). */
Test(threads, a_stop_after_a_reset_dropped_its_section_says_so)
{
    pt_timing *t = pt_create("reset", PT_CPU);
    handoff h1 = { .t = t }, h2 = { .t = t };
    pthread_t t1, t2;

    cr_assert_eq(pthread_create(&t1, NULL, start_and_hold, &h1), 0);
    wait_for(&h1.stage, 1);
    pt_reset(t);
    cr_assert_eq(pthread_create(&t2, NULL, start_and_hold, &h2), 0);
    wait_for(&h2.stage, 1);
    atomic_store(&h1.stage, 2);
    cr_assert_eq(pthread_join(t1, NULL), 0);
    cr_assert_eq(h1.rc, PT_ENOSTART, "%s: %s", pt_strerror(h1.rc), pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "pt_reset dropped this thread's open sections"), "%s",
              pt_last_error(t));
    cr_assert_eq(pt_error_count_of(t, PT_ETHREAD), 0);
    atomic_store(&h2.stage, 2);
    cr_assert_eq(pthread_join(t2, NULL), 0);
    cr_assert_eq(h2.rc, 0, "%s", pt_strerror(h2.rc));
    pt_section_stats st;
    get(t, "handoff", &st);
    cr_assert_eq(st.count, 1, "the second thread's");
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
    cr_assert_eq(run_stats(t).open_count, 1);
    pt_destroy(t);
}

static void *work_once(void *arg)
{
    pt_timing *t = arg;
    pt_start(t, "work");
    pt_stop(t, "work");
    return NULL;
}

/* A thread's state ends with it: threads made one after another (often
 * at the address the last one had) never find a dead thread's open
 * section as theirs, so their work is at the top, not under it; the
 * section left open is marked [open] in the tree and named, with its
 * thread, in the footer. */
Test(threads, an_exited_threads_open_stack_is_not_inherited)
{
    pt_timing *t = pt_create("exit", PT_CPU);
    test_text b = { 0 };
    pthread_t th;

    cr_assert_eq(pthread_create(&th, NULL, leave_open, t), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    for (int i = 0; i < 20; i++) {
        cr_assert_eq(pthread_create(&th, NULL, work_once, t), 0);
        cr_assert_eq(pthread_join(th, NULL), 0);
    }
    cr_assert_not_null(pt_find(t, "work"), "the later threads' work is at the top");
    cr_assert_null(pt_find(t, "left open/work"), "never under the dead thread's section");
    pt_section_stats st;
    get(t, "work", &st);
    cr_assert_eq(st.count, 20, "every later thread's occurrence: %llu",
                 (unsigned long long)st.count);
    cr_assert_eq(run_stats(t).open_count, 1, "the dead thread's section stays open");
    cr_assert_eq(pt_log_fn(t, test_text_line, &b), PT_EOPEN);
    cr_assert(strstr(b.s, "left open [open]"), "marked in the tree:\n%s", b.s);
    cr_assert(strstr(b.s, "1 section open at report time: thread 1 (exited): left open"),
              "named in the footer with its thread:\n%s", b.s);
    free(b.s);
    pt_destroy(t);
}

static void *stop_never_started(void *arg)
{
    handoff *h = arg;
    h->rc = pt_stop(h->t, "never started");
    return NULL;
}

/* A thread that takes over an exited thread's recorder (past 64 of them)
 * does not inherit the sections a reset dropped there: its stop without a
 * start is an ordinary one, not blamed on the reset. */
Test(threads, a_recorder_taken_over_forgets_what_a_reset_dropped)
{
    pt_timing *t = pt_create("takeover", PT_CPU);
    handoff h = { .t = t };
    pthread_t th;

    for (int i = 0; i < 64; i++) {
        cr_assert_eq(pthread_create(&th, NULL, leave_open, t), 0);
        cr_assert_eq(pthread_join(th, NULL), 0);
    }
    pt_reset(t);
    cr_assert_eq(pthread_create(&th, NULL, stop_never_started, &h), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_eq(pt_threads(t), 65, "the 65th thread took over an exited one's recorder");
    cr_assert_eq(h.rc, PT_ENOSTART);
    cr_assert_null(strstr(pt_last_error(t), "pt_reset"), "%s", pt_last_error(t));
    pt_destroy(t);
}

typedef struct busy_creator {
    pt_timing *t;
    atomic_int done;
    atomic_long reports;
} busy_creator;

static void drop_line(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

/* Reports from a thread that did not create the timing, while the
 * creating thread times. */
static void *report_meanwhile(void *arg)
{
    busy_creator *b = arg;
    while (!atomic_load(&b->done)) {
        pt_run_stats rs;
        pt_run_get(b->t, &rs);
        pt_log_fn(b->t, drop_line, NULL);
        b->reports++;
    }
    return NULL;
}

/* Threads time while another forks: each child, which has only the
 * forking thread, times and reports at once (a child used to wait for
 * ever for the parent's threads), and its report holds what was recorded
 * before the fork. */
typedef struct forker {
    pt_timing *t;
    atomic_int stop;
} forker;

static void *time_until_stopped(void *p)
{
    forker *f = p;
    while (!atomic_load(&f->stop)) {
        pt_start(f->t, "worker");
        pt_start(f->t, "inner");
        pt_stop(f->t, "inner");
        pt_stop(f->t, "worker");
    }
    return NULL;
}

Test(threads, a_child_forked_while_threads_time_times_and_reports, .timeout = 60)
{
    /* Under memcheck each forked child's copy of the parent's memory (its
     * threads', Criterion's) is reported lost when the child ends, and so
     * is Criterion's own on a skip: under make test-valgrind this test
     * returns at once; it runs in every other build (plain, -Werror, ASan,
     * CUDA=0). */
    if (getenv("PT_UNDER_VALGRIND"))
        return;
    forker f = { .t = pt_create("forks", PT_CPU) };
    pthread_t th[4];
    atomic_init(&f.stop, 0);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, time_until_stopped, &f), 0);
    nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    int ok = 0;
    for (int k = 0; k < 20; k++) {
        pid_t pid = fork();
        cr_assert_geq(pid, 0, "fork");
        if (pid == 0) {
            alarm(10); /* a hang ends the child, which then fails */
            pt_start(f.t, "in the child");
            pt_stop(f.t, "in the child");
            FILE *null = fopen("/dev/null", "w");
            int rc = pt_log(f.t, null);
            fclose(null);
            pt_section_stats w = { 0 }, c = { 0 };
            pt_section_get(f.t, pt_find(f.t, "worker/inner"), &w);
            pt_section_get(f.t, pt_find(f.t, "in the child"), &c);
            /* The parent's threads did not come across: what they had open
             * stays open (PT_EOPEN), as a thread's that exited. */
            _exit((rc == 0 || rc == PT_EOPEN) && w.count > 0 && c.count == 1 ? 0 : 1);
        }
        int status = 0;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    atomic_store(&f.stop, 1);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    cr_assert_eq(ok, 20, "%d of 20 children timed and reported", ok);
    pt_destroy(f.t);
}

Test(threads, reports_from_another_thread_while_the_creator_times)
{
    busy_creator b = { .t = threaded_timing() };
    pthread_t th;
    pt_section_stats st;
    unsigned long long n = 0;

    cr_assert_eq(pthread_create(&th, NULL, report_meanwhile, &b), 0);
    /* At least NSECTIONS, and on until reports came in the meantime
     * (a serialising scheduler, as valgrind's, may start the reporter late). */
    for (long seen = -1; n < NSECTIONS || atomic_load(&b.reports) < seen + 2; n++) {
        if (n == NSECTIONS)
            seen = atomic_load(&b.reports);
        pt_start(b.t, "outer");
        pt_start(b.t, "inner");
        pt_stop(b.t, "inner");
        pt_stop(b.t, "outer");
    }
    atomic_store(&b.done, 1);
    cr_assert_eq(pthread_join(th, NULL), 0);
    get(b.t, "outer/inner", &st);
    cr_assert_eq(st.count, n, "exact: %llu of %llu", (unsigned long long)st.count, n);
    cr_assert_gt(atomic_load(&b.reports), 0);
    pt_destroy(b.t);
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
    cr_assert_eq(run_stats(t).section_count, 0);
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
    json_int_t outer_calls = 0;
    for (size_t i = 0; i < 3; i++) {
        json_t *o = json_array_get(th, i), *parts = json_object_get(o, "parts"), *pp;
        size_t k;
        cr_assert_eq(json_integer_value(json_object_get(o, "index")), (json_int_t)i);
        occ += (uint64_t)json_integer_value(json_object_get(o, "occurrences"));
        cr_assert(json_is_array(parts));
        /* Thread 0 ran nothing; 1 and 2 ran outer, inner and their own. */
        cr_assert_eq(json_array_size(parts), i ? 3 : 0);
        json_array_foreach(parts, k, pp) {
            json_t *sx = json_array_get(json_object_get(doc, "sections"),
                                         (size_t)json_integer_value(json_object_get(pp, "id")));
            const char *nm = json_string_value(json_object_get(sx, "name"));
            const char *pth = !nm ? NULL
                              : json_integer_value(json_object_get(sx, "parent")) >= 0
                                  ? (strcmp(nm, "inner") == 0 ? "outer/inner" : nm) : nm;
            json_int_t n = json_integer_value(json_object_get(pp, "count"));
            double ms = json_real_value(json_object_get(pp, "total_ms"));
            cr_assert_not_null(pth);
            if (strcmp(pth, "outer") == 0) {
                cr_assert(n == 40 || n == 60, "%lld", (long long)n);
                cr_assert_float_eq(ms, (double)n * 30e-6, 1e-12);
                outer_calls += n;
            } else if (strcmp(pth, "outer/inner") == 0) {
                cr_assert(n == 40 || n == 60, "%lld", (long long)n);
            } else {
                cr_assert(strncmp(pth, "thread ", 7) == 0 && n == 1, "%s %lld", pth,
                          (long long)n);
            }
        }
    }
    cr_assert_eq(occ, 2 * 100 + 2);
    cr_assert_eq(outer_calls, 100);
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

/* ---- each thread's part ---------------------------------------------- */

/* The job a thread served: the one whose own "thread <index>" section it
 * has. -1 when none is. */
static int job_of(pt_timing *t, int thread, int njobs)
{
    for (int j = 1; j <= njobs; j++) {
        char path[32];
        pt_thread_part p;
        snprintf(path, sizeof path, "thread %d", j);
        cr_assert_eq(pt_thread_part_get(t, pt_find(t, path), thread, &p), 0);
        if (p.count == 1)
            return j;
        cr_assert_eq(p.count, 0);
    }
    return -1;
}

static pt_thread_part part(pt_timing *t, const char *path, int thread)
{
    pt_thread_part p;
    int rc = pt_thread_part_get(t, pt_find(t, path), thread, &p);
    cr_assert_eq(rc, 0, "%s thread %d: %s", path, thread, pt_strerror(rc));
    cr_assert_eq(p.thread, thread);
    return p;
}

Test(threads, each_thread_has_its_part_of_a_section)
{
    pt_timing *t = threaded_timing();
    job jobs[3] = { { .t = t, .index = 1, .step = 10, .n = 100 },
                    { .t = t, .index = 2, .step = 20, .n = 300 },
                    { .t = t, .index = 3, .step = 40, .n = 600 } };
    uint64_t calls = 0;
    double ms = 0;

    run(jobs, 3);
    /* The creating thread times 7 outers of its own (two reads of 10 ns:
     * 10 ns each) and reports in between, which must not count twice. */
    for (int i = 0; i < 7; i++) {
        pt_start(t, "outer");
        pt_stop(t, "outer");
        if (i == 3)
            cr_assert_eq(part(t, "outer", 0).count, 4);
    }
    for (int i = 1; i <= 3; i++) {
        int j = job_of(t, i, 3);
        cr_assert_geq(j, 1, "thread %d ran no job", i);
        const job *jb = &jobs[j - 1];
        pt_thread_part p = part(t, "outer", i);
        cr_assert_eq(p.count, (uint64_t)jb->n);
        cr_assert_float_eq(p.total_ms, jb->n * 3 * jb->step * 1e-6, 1e-12);
        cr_assert_float_eq(p.mean_ms, 3 * jb->step * 1e-6, 1e-15);
        p = part(t, "outer/inner", i);
        cr_assert_eq(p.count, (uint64_t)jb->n);
        cr_assert_float_eq(p.total_ms, jb->n * jb->step * 1e-6, 1e-12);
    }
    pt_thread_part p0 = part(t, "outer", 0);
    cr_assert_eq(p0.count, 7);
    cr_assert_float_eq(p0.total_ms, 7 * 10e-6, 1e-12);
    cr_assert_eq(part(t, "outer/inner", 0).count, 0, "the creator never ran inner");
    cr_assert_eq(part(t, "outer", PT_THREAD_MERGED).count, 0);

    /* The parts add up to the pooled section, shares to 100%. */
    pt_section_stats st;
    get(t, "outer", &st);
    double pct = 0;
    for (int i = 0; i < 4; i++) {
        pt_thread_part p = part(t, "outer", i);
        calls += p.count;
        ms += p.total_ms;
        pct += p.pct_section;
    }
    cr_assert_eq(calls, st.count);
    cr_assert_float_eq(ms, st.total_ms, 1e-12);
    cr_assert_float_eq(pct, 100, 1e-9);
    cr_assert_float_eq(part(t, "outer", 3).pct_section,
                       100 * part(t, "outer", 3).total_ms / st.total_ms, 1e-9);

    /* More work adds to the parts (new threads may take over the
     * recorders of the ones that ended, or get their own), and what was
     * pooled before is not counted again. */
    run(jobs, 3);
    get(t, "outer", &st);
    calls = 0;
    for (int i = 0; i < pt_threads(t); i++)
        calls += part(t, "outer", i).count;
    cr_assert_eq(st.count, 2 * (100 + 300 + 600) + 7);
    cr_assert_eq(calls, st.count);
    cr_assert_eq(part(t, "outer", 0).count, 7);
    pt_destroy(t);
}

Test(threads, runs_merged_in_are_apart_from_the_creating_thread)
{
    pt_timing *t = threaded_timing(), *other = pt_create("other rank", PT_CPU);
    job jobs[1] = { { .t = t, .index = 1, .step = 10, .n = 50 } };
    test_clock c;
    void *buf;
    size_t len;

    pt_clock_set(other, test_clock_read, &c);
    c.now = 0;
    for (int i = 0; i < 5; i++)
        TEST_SPAN(other, &c, "outer", 1000000);
    cr_assert_eq(pt_pack(other, &buf, &len), 0);
    run(jobs, 1);
    pt_start(t, "outer");
    pt_stop(t, "outer");
    cr_assert_eq(pt_unpack_merge(t, buf, len), 0, "%s", pt_last_error(t));
    free(buf);
    pt_destroy(other);

    cr_assert_eq(part(t, "outer", 0).count, 1);
    cr_assert_float_eq(part(t, "outer", 0).total_ms, 10e-6, 1e-12);
    cr_assert_eq(part(t, "outer", 1).count, 50);
    pt_thread_part m = part(t, "outer", PT_THREAD_MERGED);
    cr_assert_eq(m.count, 5);
    cr_assert_float_eq(m.total_ms, 5.0, 1e-12);
    cr_assert_float_eq(m.mean_ms, 1.0, 1e-12);

    test_text out = { 0 };
    cr_assert_eq(pt_log_fn(t, test_text_line, &out, .threads = 1), 0);
    const char *g = strstr(out.s, "\nmerged from other runs (pt_unpack_merge)\n");
    cr_assert_not_null(g, "%s", out.s);
    cr_assert_not_null(strstr(g, "\n  outer "), "%s", out.s);
    free(out.s);
    pt_destroy(t);
}

/* The line of the per-thread view that follows the group line starting
 * with `group` and names `section`; NULL when there is none. */
static const char *part_line(const char *report, const char *group, const char *section)
{
    const char *g = strstr(report, "Section by thread");
    char key[64];

    cr_assert_not_null(g, "no per-thread view:\n%s", report);
    g = strstr(g, group);
    if (!g)
        return NULL;
    snprintf(key, sizeof key, "\n%s ", section);
    for (const char *l = strchr(g + 1, '\n'); l; l = strchr(l + 1, '\n')) {
        if (l[1] != ' ')
            return NULL; /* the next group */
        if (strncmp(l, key, strlen(key)) == 0)
            return l + 1;
    }
    return NULL;
}

Test(threads, the_report_shows_each_threads_part)
{
    pt_timing *t = threaded_timing();
    job jobs[2] = { { .t = t, .index = 1, .step = 10, .n = 10 },
                    { .t = t, .index = 2, .step = 10, .n = 30 } };
    test_text out = { 0 };
    char group[32], want[16];

    run(jobs, 2);
    cr_assert_eq(pt_log_fn(t, test_text_line, &out, .threads = 1), 0);
    cr_assert_null(strstr(out.s, "thread 0 (tid %ld), creator\n"), "the creator ran nothing");
    for (int i = 1; i <= 2; i++) {
        int n = (int)jobs[job_of(t, i, 2) - 1].n;
        snprintf(group, sizeof group, "\nthread %d (tid ", i);
        const char *l = part_line(out.s, group, "  outer");
        cr_assert_not_null(l, "thread %d's outer:\n%s", i, out.s);
        snprintf(want, sizeof want, " %d ", n);
        cr_assert_not_null(strstr(l, want), "calls %d in: %.80s", n, l);
        snprintf(want, sizeof want, " %.1f%%", 100.0 * n / 40);
        cr_assert(strstr(l, want) && strstr(l, want) < strchr(l, '\n'), "%s in %.80s", want, l);
        cr_assert_not_null(part_line(out.s, group, "    inner"), "%s", out.s);
    }
    cr_assert_null(strstr(out.s, "merged from other runs"), "%s", out.s);
    free(out.s);

    /* Without .threads, no per-thread view. */
    out = (test_text){ 0 };
    cr_assert_eq(pt_log_fn(t, test_text_line, &out), 0);
    cr_assert_null(strstr(out.s, "Section by thread"), "%s", out.s);
    free(out.s);
    pt_destroy(t);
}

Test(threads, thread_parts_bad_arguments_and_reset)
{
    pt_timing *t = threaded_timing();
    job jobs[1] = { { .t = t, .index = 1, .step = 10, .n = 10 } };
    pt_thread_part p;

    run(jobs, 1);
    const pt_section *s = pt_find(t, "outer");
    cr_assert_eq(pt_thread_part_get(NULL, s, 0, &p), PT_EINVAL);
    cr_assert_eq(pt_thread_part_get(t, s, 0, NULL), PT_EINVAL);
    cr_assert_eq(pt_thread_part_get(t, NULL, 0, &p), PT_EINVAL);
    cr_assert_eq(pt_thread_part_get(t, pt_root(t), 0, &p), PT_EINVAL);
    cr_assert_eq(pt_thread_part_get(t, s, -2, &p), PT_EINVAL);
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 4, "each counted on t");
    cr_assert_eq(pt_thread_part_get(t, s, 2, &p), PT_ENOTFOUND);
    cr_assert_eq(pt_thread_part_get(t, s, 1, &p), 0);
    cr_assert_eq(p.count, 10);
    pt_reset(t);
    jobs[0].n = 3;
    run(jobs, 1);
    /* The new thread is a thread of its own; the exited one's part is gone. */
    cr_assert_eq(part(t, "outer", 1).count, 0, "reset forgot the part");
    cr_assert_eq(part(t, "outer", 2).count, 3, "the new thread's own");
    pt_destroy(t);
}

/* A report taken while another thread has a section open, then metrics
 * added to it and the stop: nothing is lost or counted twice. */
static void *open_add_stop(void *arg)
{
    handoff *h = arg;
    h->rc = pt_start(h->t, "load", .read = 100);
    atomic_store(&h->stage, 1);
    wait_for(&h->stage, 2);
    h->rc = h->rc ? h->rc : pt_add(h->t, .flops = 7);
    h->rc = h->rc ? h->rc : pt_stop(h->t, "load");
    return NULL;
}

Test(threads, metrics_added_after_a_report_are_pooled)
{
    pt_timing *t = pt_create("later", PT_CPU);
    handoff h = { .t = t };
    pthread_t th;
    pt_section_stats st;

    cr_assert_eq(pthread_create(&th, NULL, open_add_stop, &h), 0);
    wait_for(&h.stage, 1);
    get(t, "load", &st);
    cr_assert_eq(st.count, 0);
    cr_assert_float_eq(st.read_bytes, 100, 0);
    atomic_store(&h.stage, 2);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_eq(h.rc, 0, "%s", pt_strerror(h.rc));
    get(t, "load", &st);
    cr_assert_eq(st.count, 1);
    cr_assert_float_eq(st.read_bytes, 100, 0, "not twice");
    cr_assert_float_eq(st.flops, 7, 0);
    cr_assert_eq(part(t, "load", 1).count, 1);
    get(t, "load", &st);
    cr_assert_float_eq(st.flops, 7, 0, "a report with nothing new changes nothing");
    pt_destroy(t);
}

/* A thread that opens a section and holds it until told to stop. */
typedef struct holder {
    pt_timing *t;
    atomic_int opened, release;
} holder;

static void *hold_open(void *arg)
{
    holder *h = arg;
    pt_start(h->t, "held");
    atomic_store(&h->opened, 1);
    while (!atomic_load(&h->release))
        sched_yield();
    pt_stop(h->t, "held");
    return NULL;
}

Test(threads, the_clock_is_not_set_while_another_thread_has_a_section_open)
{
    /* Opened on one clock and closed on another, the section would last
     * what the two readings differ by: refused, naming what is open. */
    pt_timing *tt = pt_create("clock", PT_CPU);
    holder h = { tt, 0, 0 };
    pthread_t th;
    test_clock c = { 0 };
    cr_assert_eq(pthread_create(&th, NULL, hold_open, &h), 0);
    while (!atomic_load(&h.opened))
        sched_yield();
    cr_assert_eq(pt_clock_set(tt, test_clock_read, &c), PT_ESTATE);
    cr_assert(strstr(pt_last_error(tt), "refused while 1 section is open"), "%s",
              pt_last_error(tt));
    atomic_store(&h.release, 1);
    pthread_join(th, NULL);
    cr_assert_eq(pt_clock_set(tt, test_clock_read, &c), 0, "%s", pt_last_error(tt));
    pt_destroy(tt);
}
