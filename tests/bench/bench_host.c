/* What a section costs on the host, against the bare clock it reads.
 *
 * Every row is measured in this one run, inside an open parent as in real
 * use, in interleaved rounds (so drift and neighbours weigh on all rows
 * alike), and printed as the median ns per pair and the median of the
 * per-round ratios to two bare reads of the clock ptkit reads (rdtsc on
 * x86 with an invariant TSC, else clock_gettime):
 *   - two bare reads of the clock: the floor, ratio 1;
 *   - a pt_start+pt_stop pair with a known title (a string literal);
 *   - the same with .read and .flops on the stop;
 *   - a new title pointer each call (same text, another buffer);
 *   - a timing created with PT_TRACE (also as a ratio to the plain pair):
 *     reset every round (its log's memory kept), and as a run uses it,
 *     never reset, its log growing, at the default capacity (1M events,
 *     then counted as dropped) and at a capacity that keeps every event,
 *     with the memory each kept event takes (the resident set's growth);
 *   - two threads at once into one timing, against one thread alone;
 *   - a call on a NULL timing.
 * Goals: plain pair <= 1.25x two reads, with metrics <= 1.75x, a new title
 * pointer <= 1.25x a literal, PT_TRACE <= 1.25x the plain pair in every
 * case, two threads <= 1.1x one thread, NULL <= 1 ns.
 * 10M pairs per row by default; BENCH_PAIRS sets another count, and CI
 * (CI=true) runs 2M. */
#include <pt/pt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_median.h"

#if defined(__x86_64__) || defined(__i386__)
#  include <x86intrin.h>
#endif

#define N 20000
#define TITLES 64

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile long long sink;
static int use_tsc;

/* Two reads of the clock ptkit reads, N times: the floor of a pair. */
static double bare_round(void)
{
    long long acc = 0;
    double t0 = now_ns();
#if defined(__x86_64__) || defined(__i386__)
    if (use_tsc) {
        for (int i = 0; i < N; i++) {
            unsigned long long a = __rdtsc();
            unsigned long long b = __rdtsc();
            acc += (long long)(b - a);
        }
        sink += acc;
        return (now_ns() - t0) / N;
    }
#endif
    for (int i = 0; i < N; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        acc += b.tv_nsec - a.tv_nsec;
    }
    sink += acc;
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

static double metrics_round(pt_timing *t)
{
    double t0 = now_ns();
    for (int i = 0; i < N; i++) {
        pt_start(t, "moved");
        pt_stop(t, "moved", .read = 4096, .flops = 8192);
    }
    return (now_ns() - t0) / N;
}

/* The same text from TITLES buffers in turn: a title built at run time. */
static char titles[TITLES][16];

static double new_title_round(pt_timing *t)
{
    double t0 = now_ns();
    for (int i = 0; i < N; i++) {
        const char *title = titles[i % TITLES];
        pt_start(t, title);
        pt_stop(t, title);
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

/* A traced round: the log is emptied first (pt_reset keeps its memory),
 * so every occurrence is kept, none dropped. */
static double trace_round(pt_timing *t)
{
    double ns;
    pt_reset(t);
    pt_start(t, "outer");
    pt_start(t, "step");
    pt_stop(t, "step");
    ns = pair_round(t);
    pt_stop(t, "outer");
    return ns;
}

/* Pairs on a traced timing that is never reset: its log grows as a
 * long run's does. */
static double trace_grow_round(pt_timing *t)
{
    return pair_round(t);
}

/* The resident set, in bytes (Linux; 0 elsewhere). */
static double rss_bytes(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return (double)rss * 4096.0;
}

/* Threads timing into one timing: each measures its own loop inside its
 * own open parent, started together at a barrier. */
typedef struct worker {
    pt_timing *t;
    pthread_barrier_t *go;
    double ns;
} worker;

static void *worker_round(void *arg)
{
    worker *w = arg;
    pt_start(w->t, "outer");
    pair_round(w->t); /* this thread's recorder and sections exist */
    pthread_barrier_wait(w->go);
    w->ns = pair_round(w->t);
    pt_stop(w->t, "outer");
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

enum { R_BARE, R_PAIR, R_METRICS, R_TITLE, R_TRACE, R_GROW_DEF, R_GROW_ALL, R_NULL, NROW };

/* The median, and the least round, which no neighbour slowed. */
static void row(const char *what, double *ns, double *ratio, int rounds, const char *goal)
{
    double mid = median(ns, rounds), least = ns[0];
    printf("%-40s %7.2f ns (least %6.2f)  %6.3fx two reads%s%s\n", what, mid, least,
           median(ratio, rounds), goal[0] ? "  " : "", goal);
}

/* A row, then its per-round ratio to the plain pair against the goal. */
static void row_vs(const char *what, double *ns, double *ratio, int rounds, const char *vs_what,
                   double *vs)
{
    row(what, ns, ratio, rounds, "");
    printf("%-44s %8.3fx the plain pair (goal <= 1.25)\n", vs_what, median(vs, rounds));
}

int main(void)
{
    const char *env = getenv("BENCH_PAIRS"), *ci = getenv("CI");
    long long pairs = env && *env ? atoll(env) : ci && strcmp(ci, "true") == 0 ? 2000000 : 10000000;
    int rounds = (int)(pairs / N) | 1, trounds = rounds / 5 | 1;
    pt_timing *t = pt_create("bench", PT_CPU), *tr = pt_create("bench traced", PT_TRACE);
    pt_timing *grow_def = pt_create("bench traced, default capacity", PT_TRACE);
    pt_timing *grow_all = pt_create("bench traced, every event kept", PT_TRACE);
    pt_timing *volatile none = NULL;
    double *ns[NROW], *ratio[NROW], *vs_pair, *one, *two, *scale, *one_r, *title_vs;
    double *def_vs, *all_vs, rss0, rss1 = 0;
    pt_run_stats st;

    if (!t || !tr || !grow_def || !grow_all ||
        pt_trace_capacity_set(grow_all, (size_t)rounds * N + 16) != 0) {
        fprintf(stderr, "bench_host: pt_create failed\n");
        return 1;
    }
    for (int i = 0; i < NROW; i++) {
        ns[i] = calloc((size_t)rounds, sizeof *ns[i]);
        ratio[i] = calloc((size_t)rounds, sizeof *ratio[i]);
    }
    vs_pair = calloc((size_t)rounds, sizeof *vs_pair);
    title_vs = calloc((size_t)rounds, sizeof *title_vs);
    def_vs = calloc((size_t)rounds, sizeof *def_vs);
    all_vs = calloc((size_t)rounds, sizeof *all_vs);
    one = calloc((size_t)trounds, sizeof *one);
    two = calloc((size_t)trounds, sizeof *two);
    scale = calloc((size_t)trounds, sizeof *scale);
    one_r = calloc((size_t)trounds, sizeof *one_r);
    for (int i = 0; i < TITLES; i++)
        snprintf(titles[i], sizeof titles[i], "built");
    pt_run_get(t, &st);
    use_tsc = strcmp(st.clock, "tsc") == 0;

    /* A second of work first: a core coming out of a low-power state runs
     * instructions slowly but reads the invariant TSC at full rate, which
     * skews the ratios against us until it has ramped up. */
    for (double t0 = now_ns(); now_ns() - t0 < 1e9;)
        sink++;
    pt_start(t, "outer"); /* the pairs nest under an open parent, as in real use */
    pt_start(grow_def, "outer");
    pt_start(grow_all, "outer");
    pair_round(t);        /* warm: the sections exist, the caches are hot */
    metrics_round(t);
    new_title_round(t);
    for (int r = 0; r < rounds; r++) {
        ns[R_BARE][r] = bare_round();
        ns[R_PAIR][r] = pair_round(t);
        ns[R_METRICS][r] = metrics_round(t);
        ns[R_TITLE][r] = new_title_round(t);
        ns[R_TRACE][r] = trace_round(tr);
        ns[R_GROW_DEF][r] = trace_grow_round(grow_def);
        rss0 = rss_bytes();
        ns[R_GROW_ALL][r] = trace_grow_round(grow_all);
        rss1 += rss_bytes() - rss0;
        ns[R_NULL][r] = null_round(none);
        for (int i = 0; i < NROW; i++)
            ratio[i][r] = ns[i][r] / ns[R_BARE][r];
        vs_pair[r] = ns[R_TRACE][r] / ns[R_PAIR][r];
        title_vs[r] = ns[R_TITLE][r] / ns[R_PAIR][r];
        def_vs[r] = ns[R_GROW_DEF][r] / ns[R_PAIR][r];
        all_vs[r] = ns[R_GROW_ALL][r] / ns[R_PAIR][r];
    }
    pt_stop(t, "outer");
    pt_stop(grow_def, "outer");
    pt_stop(grow_all, "outer");
    for (int r = 0; r < trounds; r++) {
        double bare = bare_round();
        one[r] = threads_round(t, 1);
        two[r] = threads_round(t, 2);
        scale[r] = two[r] / one[r];
        one_r[r] = one[r] / bare;
    }

    pt_run_get(t, &st);
    printf("clock: %s", st.clock);
    if (st.clock_ghz > 0)
        printf(" (%.3f GHz)", st.clock_ghz);
    printf("; %d rounds of %d pairs per row (%lld pairs), medians\n", rounds, N,
           (long long)rounds * N);
    row(use_tsc ? "two bare rdtsc" : "two bare clock_gettime", ns[R_BARE], ratio[R_BARE],
        rounds, "");
    row("pt_start+pt_stop pair, known title", ns[R_PAIR], ratio[R_PAIR], rounds, "(goal <= 1.25)");
    row("pair with .read/.flops", ns[R_METRICS], ratio[R_METRICS], rounds, "(goal <= 1.75)");
    row_vs("pair, a new title pointer each call", ns[R_TITLE], ratio[R_TITLE], rounds,
           "  new title pointer / literal", title_vs);
    row_vs("pair on a PT_TRACE timing, reset a round", ns[R_TRACE], ratio[R_TRACE], rounds,
           "  PT_TRACE / plain pair", vs_pair);
    row_vs("PT_TRACE, growing, default capacity", ns[R_GROW_DEF], ratio[R_GROW_DEF], rounds,
           "  growing (1M kept, then dropped) / plain", def_vs);
    row_vs("PT_TRACE, growing, every event kept", ns[R_GROW_ALL], ratio[R_GROW_ALL], rounds,
           "  growing (all kept) / plain", all_vs);
    printf("%-44s %8.1f bytes (resident set's growth over %lld kept events)\n",
           "  memory per kept event", rss1 / ((double)rounds * N), (long long)rounds * N);
    printf("%-44s %8.2f ns  %6.3fx two reads\n", "pair on another thread, alone",
           median(one, trounds), median(one_r, trounds));
    printf("%-44s %8.2f ns  %6.3fx one thread (goal <= 1.1)\n", "2 threads at once into one timing",
           median(two, trounds), median(scale, trounds));
    printf("%-44s %8.2f ns  (goal <= 1 ns)\n", "one call on a NULL timing",
           median(ns[R_NULL], rounds) / 2);
    printf("sections in the tree: %zu (memory bounded: one node per title under its parent)\n",
           st.section_count);
    pt_destroy(t);
    pt_destroy(tr);
    pt_destroy(grow_def);
    pt_destroy(grow_all);
    free(title_vs);
    free(def_vs);
    free(all_vs);
    for (int i = 0; i < NROW; i++) {
        free(ns[i]);
        free(ratio[i]);
    }
    free(vs_pair);
    free(one);
    free(two);
    free(scale);
    free(one_r);
    return 0;
}
