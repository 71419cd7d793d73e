/* What a section costs on the host, against the bare clock it replaces.
 *
 * Prints, measured in this one run (medians of several rounds, since the
 * machine is shared and noisy):
 *   - ns per pt_start+pt_stop pair with a known title, aggregated into the tree;
 *   - ns per pair of bare clock_gettime(CLOCK_MONOTONIC) calls;
 *   - ns per call on a NULL timing (a start+stop pair, halved);
 *   - ns per pair on a thread other than the timing's creator, alone and
 *     with a second thread timing into the same timing at once (no lock is
 *     taken, so the two should cost about the same on two idle cores);
 *   - the quotient of the first two, on the last line, containing "ratio".
 * Goal: ratio <= 1.0, NULL call <= 1 ns. */
#include <pt/pt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_median.h"

#define ROUNDS 201
#define N 100000

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile long sink;

static double bare_round(void)
{
    struct timespec a, b;
    double t0 = now_ns();
    for (int i = 0; i < N; i++) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        sink += b.tv_nsec - a.tv_nsec;
    }
    return (now_ns() - t0) / N;
}

static double pair_round(pt_timing *t)
{
    double t0 = now_ns();
    for (int i = 0; i < N; i++) {
        pt_start(t, "step");
        pt_stop(t, "step");
    }
    return (now_ns() - t0) / N;
}

/* Kept out of line so the compiler cannot see that t is NULL. */
__attribute__((noinline)) static double null_round(pt_timing *t)
{
    double t0 = now_ns();
    for (int i = 0; i < N; i++) {
        pt_start(t, "step");
        pt_stop(t, "step");
    }
    return (now_ns() - t0) / N;
}

/* Threads timing into one timing: each measures its own loop, started
 * together at a barrier. */
#define THREAD_ROUNDS 21
typedef struct worker {
    pt_timing *t;
    pthread_barrier_t *go;
    double ns;
} worker;

static void *worker_round(void *arg)
{
    worker *w = arg;
    pair_round(w->t); /* this thread's recorder and sections exist */
    pthread_barrier_wait(w->go);
    w->ns = pair_round(w->t);
    return NULL;
}

/* ns per pair of the slowest of n threads timing at once. */
static double threads_round(pt_timing *t, int n)
{
    pthread_t th[2];
    worker w[2];
    pthread_barrier_t go;
    double worst = 0;

    pthread_barrier_init(&go, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) {
        w[i] = (worker){ .t = t, .go = &go };
        pthread_create(&th[i], NULL, worker_round, &w[i]);
    }
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        if (w[i].ns > worst)
            worst = w[i].ns;
    }
    pthread_barrier_destroy(&go);
    return worst;
}

int main(void)
{
    static double ours[ROUNDS], bare[ROUNDS], nul[ROUNDS], ratio[ROUNDS];
    pt_timing *t = pt_create("bench", PT_CPU);
    pt_timing *volatile none = NULL;

    if (!t) {
        fprintf(stderr, "bench_host: pt_create failed\n");
        return 1;
    }
    /* A second of work first: a core coming out of a low-power state runs
     * instructions slowly but reads the invariant TSC at full rate, which
     * skews the ratio against us until it has ramped up. */
    for (double t0 = now_ns(); now_ns() - t0 < 1e9;)
        sink++;
    pt_start(t, "outer"); /* the pairs nest under an open parent, as in real use */
    pair_round(t);        /* warm: the section exists, the caches are hot */
    for (int r = 0; r < ROUNDS; r++) {
        /* Interleaved, so drift and neighbours weigh on both alike. */
        bare[r] = bare_round();
        ours[r] = pair_round(t);
        nul[r] = null_round(none);
        ratio[r] = ours[r] / bare[r];
    }
    pt_stop(t, "outer");

    static double one[THREAD_ROUNDS], two[THREAD_ROUNDS], scale[THREAD_ROUNDS];
    for (int r = 0; r < THREAD_ROUNDS; r++) {
        one[r] = threads_round(t, 1);
        two[r] = threads_round(t, 2);
        scale[r] = two[r] / one[r];
    }

    pt_run_stats st;

    pt_run_get(t, &st);
    const pt_section *s = pt_find(t, "outer/step");
    pt_section_stats ss;
    pt_section_get(t, s, &ss);
    printf("clock: %s%s", st.clock, st.clock_ghz > 0 ? "" : "\n");
    if (st.clock_ghz > 0)
        printf(" (%.3f GHz)\n", st.clock_ghz);
    printf("sections in the tree: %zu, occurrences of outer/step: %llu (memory bounded: one node)\n",
           st.section_count, (unsigned long long)ss.count);
    printf("pt_start+pt_stop pair, known title:   %7.2f ns (median of %d x %d)\n",
           median(ours, ROUNDS), ROUNDS, N);
    printf("two bare clock_gettime(MONOTONIC):   %7.2f ns\n", median(bare, ROUNDS));
    printf("one call on a NULL timing:            %7.2f ns (goal <= 1 ns)\n", median(nul, ROUNDS) / 2);
    printf("pair on another thread than the creator: %7.2f ns; with 2 threads at once: %.2f ns\n",
           median(one, THREAD_ROUNDS), median(two, THREAD_ROUNDS));
    printf("2 threads at once / 1 thread, per pair: %6.3f (about 1 on two idle cores: no lock, "
           "no shared line; median of %d rounds)\n", median(scale, THREAD_ROUNDS), THREAD_ROUNDS);
    printf("ratio pair / two clock_gettime:       %7.3f (goal <= 1.0; median of per-round ratios)\n",
           median(ratio, ROUNDS));
    pt_destroy(t);
    return 0;
}
