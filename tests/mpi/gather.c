/* pt_mpi_gather under mpirun (make test-mpi): every rank times sections of
 * known lengths on a manual clock and gathers them to rank 0, which
 * checks the merged figures against one timing that recorded every
 * rank's occurrences itself: counts, totals and FLOPS exactly, the mean
 * and the deviation to rounding. Then a gather where rank 1 passes a NULL
 * timing (it must take part, not hang), and an export to "run-%r.json"
 * from every rank, whose files rank 0 finds one per rank. Rank 0 keeps each
 * rank's total of every section: their spread and the slowest rank.
 *
 *   mpirun -np N build/tests/mpi_gather OUTDIR
 *
 * Exit status 0 on every rank when rank 0's checks pass. */
#include <pt/pt_mpi.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000 /* ns */

static int64_t clock_read(void *ctx)
{
    return *(int64_t *)ctx;
}

/* pt_run_get() as a value, for a check on one figure. */
static pt_run_stats run_stats(pt_timing *t)
{
    pt_run_stats r;
    pt_run_get(t, &r);
    return r;
}

static int failures;

static int checks;

static void check(int ok, const char *what, double got, double want)
{
    checks++;
    if (!ok)
        printf("  FAILED: %s: %.17g, not %.17g\n", what, got, want);
    failures += !ok;
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fabs(b);
}

/* Rank r's occurrences: r + 2 of "step/work", the i-th (10 r + i + 1) ms
 * long, with 1000 (r + 1) FLOPs each; and one "rank r only" of 1 ms. */
static void record(pt_timing *t, int64_t *now, int r)
{
    char only[32];

    pt_start(t, "step");
    for (int i = 0; i < r + 2; i++) {
        pt_start(t, "work");
        *now += (int64_t)(10 * r + i + 1) * MS;
        pt_stop(t, "work", .flops = 1000.0 * (r + 1));
    }
    pt_stop(t, "step");
    snprintf(only, sizeof only, "rank %d only", r);
    pt_start(t, only);
    *now += MS;
    pt_stop(t, only);
}

static void compare(pt_timing *t, pt_timing *one, const char *path)
{
    pt_section_stats x, y;
    char what[96];

    if (pt_section_get(t, pt_find(t, path), &x) || pt_section_get(one, pt_find(one, path), &y)) {
        printf("  %s: missing after the gather\n", path);
        failures++;
        return;
    }
    snprintf(what, sizeof what, "%s: count", path);
    check(x.count == y.count, what, (double)x.count, (double)y.count);
    snprintf(what, sizeof what, "%s: total_ms", path);
    check(x.total_ms == y.total_ms, what, x.total_ms, y.total_ms);
    snprintf(what, sizeof what, "%s: first_ms", path);
    check(x.first_ms == y.first_ms, what, x.first_ms, y.first_ms);
    snprintf(what, sizeof what, "%s: flops", path);
    check(x.flops == y.flops, what, x.flops, y.flops);
    snprintf(what, sizeof what, "%s: mean_ms", path);
    check(close_to(x.mean_ms, y.mean_ms), what, x.mean_ms, y.mean_ms);
    snprintf(what, sizeof what, "%s: stddev_ms", path);
    check(close_to(x.stddev_ms, y.stddev_ms), what, x.stddev_ms, y.stddev_ms);
    snprintf(what, sizeof what, "%s: min_ms", path);
    check(x.min_ms == y.min_ms, what, x.min_ms, y.min_ms);
    snprintf(what, sizeof what, "%s: max_ms", path);
    check(x.max_ms == y.max_ms, what, x.max_ms, y.max_ms);
}

int main(int argc, char **argv)
{
    int rank, size, rc;
    int64_t now = 0, now_one = 0;
    pt_timing *t, *u;
    char path[512];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np N %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }

    t = pt_create("mpi", PT_CPU);
    pt_clock_set(t, clock_read, &now);
    record(t, &now, rank);

    /* Each rank's own file first: the gather changes rank 0's tree. */
    snprintf(path, sizeof path, "%s/run-%%r.json", argv[1]);
    rc = pt_export_json(t, path);
    if (rc) {
        printf("rank %d: pt_export_json: %s\n", rank, pt_last_error(t));
        failures++;
    }

    rc = pt_mpi_gather(t, MPI_COMM_WORLD);
    if (rc) {
        printf("rank %d: pt_mpi_gather: %s\n", rank, pt_last_error(t));
        failures++;
    }

    if (rank == 0) {
        pt_timing *one = pt_create("one", PT_CPU);
        pt_clock_set(one, clock_read, &now_one);
        for (int r = 0; r < size; r++)
            record(one, &now_one, r);
        printf("pt_mpi_gather: %d ranks merged into rank 0\n", size);
        compare(t, one, "step");
        compare(t, one, "step/work");
        {
            pt_section_stats w;
            pt_section_get(t, pt_find(t, "step/work"), &w);
            printf("  step/work: %llu calls (the ranks' %d + ... + %d), %.3f ms, "
                   "later calls %.6f ± %.6f ms\n", (unsigned long long)w.count, 2, size + 1,
                   w.total_ms, w.mean_ms, w.stddev_ms);
        }
        for (int r = 0; r < size; r++) {
            char only[32];
            snprintf(only, sizeof only, "rank %d only", r);
            compare(t, one, only);
        }
        {
            /* Each rank's total of step/work: (r + 2) calls of (10 r + i + 1) ms. */
            pt_section_stats w;
            double lo = 0, hi = 0, sum = 0;
            pt_section_get(t, pt_find(t, "step/work"), &w);
            for (int r = 0; r < size; r++) {
                double tot = (r + 2) * (10.0 * r + 1) + (r + 1) * (r + 2) / 2.0;
                lo = r == 0 || tot < lo ? tot : lo;
                hi = tot > hi ? tot : hi;
                sum += tot;
            }
            check(run_stats(t).ranks == size, "ranks merged", run_stats(t).ranks, size);
            check(w.ranks == (uint64_t)size, "step/work: ranks", (double)w.ranks, size);
            check(close_to(w.rank_min_ms, lo), "step/work: rank_min_ms", w.rank_min_ms, lo);
            check(close_to(w.rank_max_ms, hi), "step/work: rank_max_ms", w.rank_max_ms, hi);
            check(close_to(w.rank_mean_ms, sum / size), "step/work: rank_mean_ms",
                  w.rank_mean_ms, sum / size);
            check(w.rank_slowest == (uint64_t)(size - 1), "step/work: the slowest rank",
                  (double)w.rank_slowest, size - 1);
        }
        check(run_stats(t).section_count == run_stats(one).section_count, "sections",
              (double)run_stats(t).section_count, (double)run_stats(one).section_count);
        pt_log(t, stdout);
        pt_destroy(one);
    }

    /* Rank 1 without a timing still takes part: nothing of it arrives. */
    u = rank == 1 ? NULL : pt_create("partial", PT_CPU);
    if (u) {
        pt_start(u, "x");
        pt_stop(u, "x");
    }
    rc = pt_mpi_gather(u, MPI_COMM_WORLD);
    if (rc) {
        printf("rank %d: pt_mpi_gather with rank 1's NULL: %s\n", rank, pt_last_error(u));
        failures++;
    }
    if (rank == 0) {
        const pt_section *x = pt_find(u, "x");
        check(x && run_stats(u).section_count == 1, "with a NULL rank 1: sections",
              (double)run_stats(u).section_count, 1);
        if (x) {
            pt_section_stats st;
            pt_section_get(u, x, &st);
            check(st.count == (uint64_t)(size - (size > 1)), "with a NULL rank 1: x count",
                  (double)st.count, size - (size > 1));
        }
        check(run_stats(u).ranks == size, "with a NULL rank 1: ranks", run_stats(u).ranks, size);
        check(run_stats(u).ranks_empty == (size > 1), "with a NULL rank 1: ranks that sent nothing",
              run_stats(u).ranks_empty, size > 1);
    }
    pt_destroy(u);

    /* Every rank's file, named by its rank. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            snprintf(path, sizeof path, "%s/run-%d.json", argv[1], r);
            check(access(path, R_OK) == 0, path + strlen(argv[1]) + 1, r, r);
        }
        printf("test-mpi: %d checks on %d ranks, %s\n", checks, size,
               failures ? "FAILED" : "passed");
    }
    pt_destroy(t);
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures ? 1 : 0;
}
