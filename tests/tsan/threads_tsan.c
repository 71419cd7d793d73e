/* ptkit's threads under ThreadSanitizer: 8 threads x 100,000 sections
 * into one timing while its creating thread times too and another thread
 * reports all along (pt_log, pt_run_get, the JSON export), with the trace
 * and memory hooks on, errors from every thread at once, and a stop on
 * the wrong thread. Every count is checked exactly, the reports' too:
 * never more than was timed, never fewer than the last report saw. A plain program, not
 * a Criterion suite: Criterion cannot start under ThreadSanitizer (its
 * inheritable arena fails to map). Exits 0 when all holds; TSan's own
 * exit code when it reports a race. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../threads_jobs.h"

#define NTHREADS 8
#define NSECTIONS 100000L

static int failures;

#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "threads_tsan:%d: %s: ", __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                \
            fputc('\n', stderr);                                         \
            failures++;                                                  \
        }                                                                \
    } while (0)

/* total_ns < 0: the section's time is not checked. */
static void check_section(pt_timing *t, const char *path, uint64_t count, double total_ns)
{
    const pt_section *s = pt_find(t, path);
    pt_section_stats st;

    CHECK(s != NULL, "no section %s", path);
    if (!s || pt_section_get(t, s, &st) != 0)
        return;
    CHECK(st.count == count, "%s: count %llu, expected %llu", path,
          (unsigned long long)st.count, (unsigned long long)count);
    CHECK(total_ns < 0 || fabs(st.total_ms * 1e6 - total_ns) <= 1e-6 * total_ns, "%s: total %.17g ns, expected %.17g",
          path, st.total_ms * 1e6, total_ns);
}

typedef struct reporter {
    pt_timing *t;
    atomic_int stop;
    uint64_t most;            /* occurrences of "outer" all may time */
    long reports;
    int bad;
} reporter;

static void drop_line(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

/* Reports while the others time: each sees a count of "outer" between the
 * last report's and all there will be. */
static void *report_all_along(void *arg)
{
    reporter *rp = arg;
    char path[] = "/tmp/ptkit-tsan-json-XXXXXX";
    int fd = mkstemp(path);
    uint64_t seen = 0;

    if (fd >= 0)
        close(fd);
    while (!atomic_load(&rp->stop)) {
        const pt_section *s;
        pt_section_stats st;
        pt_run_stats rs;
        int rc = pt_log_fn(rp->t, drop_line, NULL, .threads = 1);
        if (rc < 0 && rc != PT_EOPEN)
            rp->bad++;
        pt_run_get(rp->t, &rs);
        if (fd >= 0 && rp->reports % 16 == 0)
            pt_export_json(rp->t, path);
        s = pt_find(rp->t, "outer");
        if (s && pt_section_get(rp->t, s, &st) == 0) {
            if (st.count < seen || st.count > rp->most)
                rp->bad++;
            seen = st.count;
        }
        rp->reports++;
    }
    if (fd >= 0)
        unlink(path);
    return NULL;
}

/* 8 threads and the creating thread time nested sections at once, while
 * a tenth reports. With PT_TRACE and track, memory is tracked too, which
 * sends starts and stops to the hooks under t->lock; without track,
 * each stop appends to its thread's own log, without a lock, while the
 * reports gather the logs: every event is then in the trace, none lost. */
static void pooled(unsigned flags, int track)
{
    pt_timing *t = pt_create("tsan", flags);
    job jobs[NTHREADS], mine = { 0 };
    pthread_t th[NTHREADS], rt;
    long n = flags & PT_TRACE ? NSECTIONS / 10 : NSECTIONS;
    reporter rp = { .t = t, .most = (uint64_t)(NTHREADS + 1) * (uint64_t)n };

    pt_clock_set(t, stepping_clock, NULL);
    if ((flags & PT_TRACE) && track)
        pt_track(t, "weights", NULL, 4096, NULL, 0, "f32");
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i] = (job){ .t = t, .index = i + 1, .step = 10, .n = n };
        CHECK(pthread_create(&th[i], NULL, nested, &jobs[i]) == 0, "thread %d", i);
    }
    CHECK(pthread_create(&rt, NULL, report_all_along, &rp) == 0, "reporting thread");
    mine = (job){ .t = t, .index = 0, .step = 10, .n = n };
    nested(&mine);
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        CHECK(jobs[i].rc == 0, "thread %d: %s", i + 1, pt_strerror(jobs[i].rc));
    }
    atomic_store(&rp.stop, 1);
    pthread_join(rt, NULL);
    CHECK(rp.bad == 0, "%d of %ld reports saw a count out of bounds or failed", rp.bad,
          rp.reports);
    CHECK(rp.reports > 0, "no report was made while the threads timed");
    CHECK(mine.rc == 0, "creating thread: %s", pt_strerror(mine.rc));
    uint64_t all = (uint64_t)(NTHREADS + 1) * (uint64_t)n;
    check_section(t, "outer", all, 30.0 * (double)all);
    check_section(t, "outer/inner", all, 10.0 * (double)all);
    for (int i = 0; i <= NTHREADS; i++) {
        char path[32];
        snprintf(path, sizeof path, "thread %d", i);
        check_section(t, path, 1, 10);
    }
    /* Each thread's part is exactly its own n occurrences. */
    for (int i = 0; i <= NTHREADS; i++) {
        pt_thread_part p;
        int rc = pt_thread_part_get(t, pt_find(t, "outer"), i, &p);
        CHECK(rc == 0 && p.count == (uint64_t)n, "thread %d's part of outer: %s, %llu", i,
              pt_strerror(rc), (unsigned long long)p.count);
    }
    pt_run_stats rs;

    pt_run_get(t, &rs);
    CHECK(rs.threads == NTHREADS + 1, "threads %d", rs.threads);
    /* Reports made with sections open count PT_EOPEN, and only that. */
    CHECK(rs.error_count == pt_error_count_of(t, PT_EOPEN), "errors: %llu, %llu of them PT_EOPEN: %s",
          (unsigned long long)rs.error_count, (unsigned long long)pt_error_count_of(t, PT_EOPEN),
          pt_last_error(t));
    /* outer, inner and "thread i" per thread: all under the capacity. */
    CHECK(rs.trace_dropped == 0, "%llu trace events dropped", (unsigned long long)rs.trace_dropped);
    if (flags & PT_TRACE) {
        char path[] = "/tmp/ptkit-tsan-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0, "mkstemp");
        close(fd);
        CHECK(pt_export_trace(t, path) == 0, "trace: %s", pt_last_error(t));
        unlink(path);
    }
    pt_destroy(t);
}

static void *stop_nothing(void *arg)
{
    job *j = arg;
    for (long i = 0; i < j->n; i++)
        if (pt_stop(j->t, "never started") != PT_ENOSTART)
            j->rc = 1;
    return NULL;
}

/* Errors counted from every thread at once lose none. */
static void errors(void)
{
    pt_timing *t = pt_create("errors", PT_CPU);
    job jobs[NTHREADS];
    pthread_t th[NTHREADS];

    for (int i = 0; i < NTHREADS; i++) {
        jobs[i] = (job){ .t = t, .index = i + 1, .n = 1000 };
        pthread_create(&th[i], NULL, stop_nothing, &jobs[i]);
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        CHECK(jobs[i].rc == 0, "thread %d: a stop did not return PT_ENOSTART", i + 1);
    }
    CHECK(pt_error_count_of(t, PT_ENOSTART) == NTHREADS * 1000ull, "%llu errors",
          (unsigned long long)pt_error_count_of(t, PT_ENOSTART));
    pt_destroy(t);
}

static void wrong_thread(void)
{
    pt_timing *t = pt_create("handoff", PT_CPU);
    handoff h = { .t = t };
    pthread_t th;

    pthread_create(&th, NULL, start_and_hold, &h);
    wait_for(&h.stage, 1);
    CHECK(pt_stop(t, "handoff") == PT_ETHREAD, "%s", pt_last_error(t));
    atomic_store(&h.stage, 2);
    pthread_join(th, NULL);
    CHECK(h.rc == 0, "%s", pt_strerror(h.rc));
    check_section(t, "handoff", 1, -1);
    pt_destroy(t);
}

/* A thread that arrives while reports and resets run: its first start
 * registers it under them. A reset drops what is open, so a stop may find
 * nothing open (PT_ENOSTART); never another thread's section
 * (PT_ETHREAD), never a crash or a race. */
typedef struct arrival {
    pt_timing *t;
    int bad;                  /* returns other than 0 and PT_ENOSTART */
    int last;                 /* the last of them */
} arrival;

static void *arrive(void *arg)
{
    arrival *a = arg;

    for (int i = 0; i < 50; i++) {
        int rc[4] = { pt_start(a->t, "a"), pt_start(a->t, "b"), pt_stop(a->t, "b"),
                      pt_stop(a->t, "a") };
        for (int k = 0; k < 4; k++)
            if (rc[k] != 0 && rc[k] != PT_ENOSTART) {
                a->bad++;
                a->last = rc[k];
            }
    }
    return NULL;
}

typedef struct resetter {
    pt_timing *t;
    atomic_int stop;
    long resets;
} resetter;

static void *reset_all_along(void *arg)
{
    resetter *rs = arg;
    while (!atomic_load(&rs->stop)) {
        pt_reset(rs->t);
        rs->resets++;
        nanosleep(&(struct timespec){ 0, 200000 }, NULL);
    }
    return NULL;
}

/* Waves of new threads, each timing a little and leaving, while one
 * thread reports and another resets all along. */
static void arrivals(void)
{
    enum { WAVES = 40, WAVE = 6 };
    pt_timing *t = pt_create("arrivals", PT_CPU);
    reporter rp = { .t = t, .most = UINT64_MAX };
    resetter rs = { .t = t };
    arrival a[WAVE];
    pthread_t th[WAVE], rt, zt;
    int bad = 0, last = 0;

    CHECK(pthread_create(&rt, NULL, report_all_along, &rp) == 0, "reporting thread");
    CHECK(pthread_create(&zt, NULL, reset_all_along, &rs) == 0, "resetting thread");
    for (int w = 0; w < WAVES; w++) {
        for (int i = 0; i < WAVE; i++) {
            a[i] = (arrival){ .t = t };
            CHECK(pthread_create(&th[i], NULL, arrive, &a[i]) == 0, "thread %d", i);
        }
        for (int i = 0; i < WAVE; i++) {
            pthread_join(th[i], NULL);
            bad += a[i].bad;
            if (a[i].bad)
                last = a[i].last;
        }
    }
    atomic_store(&rp.stop, 1);
    atomic_store(&rs.stop, 1);
    pthread_join(rt, NULL);
    pthread_join(zt, NULL);
    CHECK(bad == 0, "%d starts and stops of new threads failed otherwise than PT_ENOSTART "
          "(the last: %s): %s", bad, pt_strerror(last), pt_last_error(t));
    CHECK(rp.reports > 0 && rs.resets > 0, "%ld reports, %ld resets", rp.reports, rs.resets);
    /* Timed again with nothing beside it, a thread's section is whole. */
    pt_reset(t);
    a[0] = (arrival){ .t = t };
    arrive(&a[0]);
    CHECK(a[0].bad == 0, "%s", pt_strerror(a[0].last));
    check_section(t, "a", 50, -1);
    check_section(t, "a/b", 50, -1);
    pt_destroy(t);
}

int main(void)
{
    arrivals();
    pooled(PT_CPU, 0);
    pooled(PT_CPU | PT_TRACE, 1);
    pooled(PT_CPU | PT_TRACE, 0);
    errors();
    wrong_thread();
    if (failures) {
        fprintf(stderr, "threads_tsan: %d check%s failed\n", failures, failures == 1 ? "" : "s");
        return 1;
    }
    printf("threads_tsan: 8 threads x %ld sections and the creating thread, a thread "
           "reporting all along: counts and each thread's part exact; 240 threads arriving "
           "while one reports and one resets; no race reported\n", NSECTIONS);
    return 0;
}
