/* What a CUDA graph's replay costs the host, with no GPU: pt_graph_launch
 * of a graph of three marked kernels of 132 blocks (three phases each,
 * the blocks one per SM of 132, as on an H100 or H200), captured by
 * PT_LAUNCH and replayed against the tests' fake runtime
 * (tests/cuda_fake.h), whose replay writes each kernel's records where
 * ptkit pointed the kernel (a set of the graph's ring). What is timed is
 * the host's work a replay: pointing the kernels at their sets and back,
 * the launch's bookkeeping, and the three folds. On hardware the GPU sets
 * a replay's pace only while this stays well below the replay's own time
 * (64 us for bench-gpu's graph; docs/hardware/2026-11-28-h200.md).
 *
 *   bench_graph_host [REPLAYS]     (2,000 a round; the median of 5 rounds)
 *
 * Exits 1 where a replay was not folded, or a fold failed.
 */
#include "../common.h"
#include "../cuda_c.h"
#include "../cuda_fake.h"

#include <pt/pt_dev.h>

#include <sys/prctl.h>
#include <time.h>

enum { KERNELS = 3, BLOCKS = 132, PHASES = 3, ROUNDS = 5 };

/* A launch under the capture: its arguments, for the node's parameters. */
int cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                     cudaStream_t stream)
{
    (void)grid;
    (void)block;
    (void)smem;
    (void)stream;
    fake.launched.func = func;
    fake.launched.args = args;
    return 0;
}

static pt_dev_buf bufs[KERNELS];
static void *nodes[KERNELS];
static long long replays;

/* A replay: each kernel's blocks end once, each phase a third of 40 us. */
static void replay(void *exec)
{
    (void)exec;
    replays++;
    for (int k = 0; k < KERNELS; k++) {
        pt_dev_buf b = bufs[k];
        b.data = fake_kernel_data(nodes[k], b.data);
        for (int s = 0; s < b.nslots; s++) {
            long long *r = b.data + PT_DEV_HDR + s * PT_DEV_SLOT_WORDS(PHASES, 0);
            long long t0 = 1000000 * replays + 20000 * k + 7 * s;
            r[PT_DEV_S_DONE] += 1;
            r[PT_DEV_S_SMID] = r[PT_DEV_S_SMID1] = s % 132;
            r[PT_DEV_S_CLK0] = 2 * t0;
            r[PT_DEV_S_CLK1] = 2 * t0 + 40000;
            r[PT_DEV_S_GT0] = t0;
            r[PT_DEV_S_GT1] = t0 + 20000;
            for (int p = 0; p < PHASES; p++) {
                r[PT_DEV_SLOT_HDR + 2 * p] = 13000 + 100 * p + s % 50;
                r[PT_DEV_SLOT_HDR + 2 * p + 1] = 1;
            }
        }
    }
    fake.now_ms += 0.064;
}

static double now_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One form's rounds: a timing whose graph of KERNELS marked kernels,
 * captured by PT_LAUNCH, is replayed n times a round by pt_graph_launch
 * (and synchronized), the fold's own thread on or off, on the fake GPU
 * at pace_us a replay (0: at once). Per round, the wall time and the
 * launching thread's CPU time a replay, into wall[] and cpu[] (sorted).
 * Returns 0, or 1 where a replay was not folded by the ring. */
static int rounds(long n, int thread, double pace_us, double *wall, double *cpu)
{
    static const char *const titles[KERNELS] = { "k0", "k1", "k2" };
    test_clock clk = { 0 };
    pt_dev_records *recs[KERNELS];
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x5a;
    void *exec = (void *)(uintptr_t)0xee;
    float data = 0, *in = &data;
    int m = 1, bad = 0;
    pt_section_stats ss;
    const pt_section *k0;
    pt_timing *t;
    pt_graph *g;

    setenv("PT_FOLD_THREAD", thread ? "1" : "0", 1);
    fake.pace_us = 0;
    fake.nkaim = 0; /* the fake's kernel nodes are the last graph's */
    t = test_timing(&clk, "graph", PT_GPU_EVENTS);
    for (int k = 0; k < KERNELS; k++)
        if (!(recs[k] = pt_dev_records_create(t, BLOCKS, PHASES, NULL, PT_DEV_AGGREGATE, 0)))
            return fprintf(stderr, "bench_graph_host: %s\n", pt_last_error(t)), 1;
    fake.capturing = st;
    for (int k = 0; k < KERNELS; k++) {
        dim3 grid = { BLOCKS, 1, 1 }, block = { 64, 1, 1 };
        PT_LAUNCH(t, titles[k], recs[k], step, grid, block, 0, st, &in, &m);
        bufs[k] = pt_dev_arg(recs[k]);
        nodes[k] = fake.capture_dep;
    }
    fake.capturing = NULL;
    g = pt_graph_capture_end(t, st);
    fake.graph_replay = replay;
    fake.pace_us = pace_us;
    for (int r = 0; g && r < ROUNDS; r++) {
        double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
        for (long i = 0; i < n; i++)
            bad |= pt_graph_launch(t, g, "step", exec, st) != 0;
        bad |= pt_sync(t) != 0;
        wall[r] = (now_s(CLOCK_MONOTONIC) - t0) * 1e6 / (double)n;
        cpu[r] = (now_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e6 / (double)n;
    }
    fake.pace_us = 0;
    k0 = pt_find(t, "step/k0");
    if (!g || bad || !k0 || pt_section_get(t, k0, &ss) != 0 ||
        ss.count != (uint64_t)(n * ROUNDS) || recs[0]->ring_reads != n * ROUNDS) {
        fprintf(stderr, "bench_graph_host: not every replay folded by the ring (%d, %llu of %ld, "
                "%lld): %s\n", bad, k0 ? (unsigned long long)ss.count : 0ULL, n * ROUNDS,
                recs[0]->ring_reads, recs[0]->ring_off);
        return 1;
    }
    qsort(wall, ROUNDS, sizeof *wall, cmp);
    qsort(cpu, ROUNDS, sizeof *cpu, cmp);
    pt_graph_free(g);
    for (int k = 0; k < KERNELS; k++)
        pt_dev_records_free(recs[k]);
    pt_destroy(t);
    return 0;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { sizeof(float *), sizeof(int), sizeof(pt_dev_buf) };
    static const double paces[] = { 64, 32, 16, 12 };
    const long n = argc > 1 ? atol(argv[1]) : 2000;
    double wall[ROUNDS], cpu[ROUNDS], ratio[2][4];

    fake_install_ring(3, sizes);
    pt__calib_set(-1, 2.0, 1000.0);
    pt__calib_set(0, 2.0, 1000.0);
    /* The paced GPU's waits sleep to the microsecond, not to the 50 us
     * of a thread's default timer slack. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    if (rounds(n, 0, 0, wall, cpu))
        return 1;
    printf("a graph replay's host work (pt_graph_launch, 3 kernels of 132 blocks, 3 phases, the "
           "ring, the fake runtime): %.2f us a replay, %.2f us a kernel (median of %d rounds of "
           "%ld)\n", wall[ROUNDS / 2], wall[ROUNDS / 2] / KERNELS, ROUNDS, n);
    /* The same replays on a GPU that takes pace_us a replay: the host
     * keeps up where they take as long as the GPU's pace (the bare
     * graph's, which has no host work to wait for). */
    for (int i = 0; i < 4; i++)
        for (int thread = 0; thread < 2; thread++) {
            if (rounds(n, thread, paces[i], wall, cpu))
                return 1;
            ratio[thread][i] = wall[ROUNDS / 2] / paces[i];
        }
    printf("graph replays on a GPU paced at %.0f, %.0f, %.0f and %.0f us a replay, of the GPU's "
           "pace: %.4f, %.4f, %.4f and %.4f with the fold's own thread; %.4f, %.4f, %.4f and "
           "%.4f without it (median of %d rounds of %ld)\n", paces[0], paces[1], paces[2],
           paces[3], ratio[1][0], ratio[1][1], ratio[1][2], ratio[1][3], ratio[0][0],
           ratio[0][1], ratio[0][2], ratio[0][3], ROUNDS, n);
    fake_uninstall();
    return 0;
}
