/* The threads that tests/threads.c and the ThreadSanitizer program
 * (tests/tsan/threads_tsan.c) run against one timing. */
#ifndef PT_TESTS_THREADS_JOBS_H
#define PT_TESTS_THREADS_JOBS_H

#include <pt/pt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

/* A clock per thread that moves `step` ns at every read, so each
 * occurrence's length is known exactly: start reads once, stop once.
 * Nested "outer" { "inner" } lasts 3 steps outside, 1 inside. */
static _Thread_local int64_t thread_now;
static _Thread_local int64_t thread_step = 10;

static inline int64_t stepping_clock(void *ctx)
{
    (void)ctx;
    thread_now += thread_step;
    return thread_now;
}

typedef struct job {
    pt_timing *t;
    int index;
    int64_t step;
    long n;
    int rc;             /* the first nonzero return, if any */
} job;

/* n times "outer" { "inner" (2 flops) }, then one "thread <index>". */
static inline void *nested(void *arg)
{
    job *j = (job *)arg;
    char own[32];

    thread_step = j->step;
    snprintf(own, sizeof own, "thread %d", j->index);
    for (long i = 0; i < j->n; i++) {
        int rc = pt_start(j->t, "outer");
        rc = rc ? rc : pt_start(j->t, "inner");
        rc = rc ? rc : pt_stop(j->t, "inner", .flops = 2);
        rc = rc ? rc : pt_stop(j->t, "outer");
        if (rc && !j->rc)
            j->rc = rc;
    }
    PT_SECTION(j->t, own) {
    }
    return NULL;
}

/* Runs n jobs on threads of their own and joins them. Returns 0, or the
 * first failure (a job's PT_E code, or 1 when a thread would not run). */
static inline int run_jobs(job *jobs, int n)
{
    pthread_t th[64];
    int rc = 0;

    if (n > 64)
        return 1;
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, nested, &jobs[i]) != 0)
            return 1;
    for (int i = 0; i < n; i++)
        if (pthread_join(th[i], NULL) != 0)
            rc = 1;
    for (int i = 0; i < n && !rc; i++)
        rc = jobs[i].rc;
    return rc;
}

/* A section handed from one thread to another: start_and_hold starts
 * "handoff" and sets stage 1, waits for stage 2, then stops it. */
typedef struct handoff {
    pt_timing *t;
    atomic_int stage;
    int rc;
} handoff;

static inline void wait_for(atomic_int *stage, int v)
{
    while (atomic_load(stage) < v)
        ;
}

static inline void *start_and_hold(void *arg)
{
    handoff *h = (handoff *)arg;
    h->rc = pt_start(h->t, "handoff");
    atomic_store(&h->stage, 1);
    wait_for(&h->stage, 2);
    h->rc = h->rc ? h->rc : pt_stop(h->t, "handoff");
    return NULL;
}

#endif
