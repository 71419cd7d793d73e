/* What a CUDA graph's replay costs the host, with no GPU: pt_graph_launch
 * of a graph of three marked kernels of 132 blocks (three phases each,
 * the blocks one per SM of 132, as on an H100 or H200), captured by
 * PT_LAUNCH and replayed against the tests' fake runtime
 * (tests/cuda_fake.h), whose replay writes each kernel's records where
 * ptkit pointed the kernel (a set of the graph's ring). What is timed is
 * the host's work a replay: pointing the kernels at their sets and back,
 * the launch's bookkeeping, and the three folds. On hardware the GPU sets
 * a replay's pace only while this stays well below the replay's own time
 * (64 us for bench-gpu's graph; docs/hardware/2026-11-28-h200.md). Then
 * the same with the copies out of the CPU's caches, as a GPU's copy
 * leaves them; and the replays on the fake runtime paced as a GPU, with
 * the fold's own thread as needed (the default), always, and never:
 * their time against the GPU's pace, and the thread's CPU time.
 *
 *   bench_graph_host [REPLAYS]     (2,000 a round; the median of 5 rounds)
 *
 * Exits 1 where a replay was not folded, or a fold failed.
 */
#include "../common.h"
#include "../cuda_c.h"
#include "../cuda_fake.h"

#include <pt/pt_dev.h>

#include "gpu/fold_worker.h"
#include "../thread_cpu.h"

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

/* A form's figures, one a round, each sorted: the wall time (less the
 * flushing of cold copies) and the fold's own thread's CPU time, us a
 * replay, and pt_sync's time after the paced GPU's last replay, us. (The
 * launching thread's CPU time is no figure: it spins in its waits for
 * the paced GPU, as CUDA's waits do.) */
typedef struct {
    double wall[ROUNDS], fold[ROUNDS], tail[ROUNDS];
} figures;

/* The fold's own thread: as needed (PT_FOLD_THREAD unset), always, never. */
enum { AS_NEEDED, ALWAYS, NEVER };

/* One form's rounds: a timing whose graph of KERNELS marked kernels,
 * captured by PT_LAUNCH, is replayed n times a round by pt_graph_launch
 * (and synchronized), the fold's own thread used as `thread` says, on
 * the fake GPU at pace_us a replay (0: at once), its copies left in the
 * CPU's caches or not (cold). Returns 0, or 1 where a replay was not
 * folded by the ring. */
static int rounds(long n, int thread, double pace_us, int cold, figures *f)
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

    if (thread == AS_NEEDED)
        unsetenv("PT_FOLD_THREAD");
    else
        setenv("PT_FOLD_THREAD", thread == ALWAYS ? "1" : "0", 1);
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
    fake.cold_copies = cold;
    for (int r = 0; g && r < ROUNDS; r++) {
        long long f0 = threads_cpu_ns(PT__FOLD_THREAD_NAME, NULL);
        double t0 = now_s(CLOCK_MONOTONIC);
        fake.flushed_us = 0;
        for (long i = 0; i < n; i++)
            bad |= pt_graph_launch(t, g, "step", exec, st) != 0;
        f->tail[r] = fake.busy_until_us;
        bad |= pt_sync(t) != 0;
        f->tail[r] = pace_us > 0 ? fake_wall_us() - f->tail[r] : 0;
        f->wall[r] = ((now_s(CLOCK_MONOTONIC) - t0) * 1e6 - fake.flushed_us) / (double)n;
        f->fold[r] = (double)(threads_cpu_ns(PT__FOLD_THREAD_NAME, NULL) - f0) * 1e-3 / (double)n;
    }
    fake.pace_us = 0;
    fake.cold_copies = 0;
    k0 = pt_find(t, "step/k0");
    if (!g || bad || !k0 || pt_section_get(t, k0, &ss) != 0 ||
        ss.count != (uint64_t)(n * ROUNDS) || recs[0]->ring_reads != n * ROUNDS) {
        fprintf(stderr, "bench_graph_host: not every replay folded by the ring (%d, %llu of %ld, "
                "%lld): %s\n", bad, k0 ? (unsigned long long)ss.count : 0ULL, n * ROUNDS,
                recs[0]->ring_reads, recs[0]->ring_off);
        return 1;
    }
    qsort(f->wall, ROUNDS, sizeof *f->wall, cmp);
    qsort(f->tail, ROUNDS, sizeof *f->tail, cmp);
    qsort(f->fold, ROUNDS, sizeof *f->fold, cmp);
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
    const int M = ROUNDS / 2;
    double ratio[3][4], fold_us[3][4], tail_us[3] = { 0 };
    figures f, cold;

    fake_install_ring(3, sizes);
    pt__calib_set(-1, 2.0, 1000.0);
    pt__calib_set(0, 2.0, 1000.0);
    /* The paced GPU's waits sleep to within their last microseconds, not
     * to the 50 us of a thread's default timer slack. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    if (rounds(n, NEVER, 0, 0, &f))
        return 1;
    printf("a graph replay's host work (pt_graph_launch, 3 kernels of 132 blocks, 3 phases, the "
           "ring, the fake runtime): %.2f us a replay, %.2f us a kernel (median of %d rounds of "
           "%ld)\n", f.wall[M], f.wall[M] / KERNELS, ROUNDS, n);
    /* The same with each copy back out of the CPU's caches, as a GPU's
     * copy into pinned memory leaves it: the folds then read their
     * records from memory, as on a GPU's host. */
#if defined(__x86_64__)
    if (rounds(n, NEVER, 0, 1, &cold) || rounds(n, NEVER, 0, 0, &f))
        return 1;
    printf("the same with each copy's records out of the CPU's caches, as a GPU's copy leaves "
           "them (the flushing left out): %.2f us a replay, %.2f in the caches (medians of %d "
           "rounds of %ld each)\n", cold.wall[M], f.wall[M], ROUNDS, n);
#else
    (void)cold;
    printf("the same with each copy's records out of the CPU's caches: not measured on this "
           "CPU (x86 only)\n");
#endif
    /* The same replays on a GPU that takes pace_us a replay: the host
     * keeps up where they take as long as the GPU's pace (the bare
     * graph's, which has no host work to wait for). */
    for (int i = 0; i < 4; i++)
        for (int form = 0; form < 3; form++) {
            if (rounds(n, form, paces[i], 0, &f))
                return 1;
            ratio[form][i] = f.wall[M] / paces[i];
            fold_us[form][i] = f.fold[M];
            if (i == 0)
                tail_us[form] = f.tail[M];
        }
    printf("graph replays on a GPU paced at %.0f, %.0f, %.0f and %.0f us a replay, of the GPU's "
           "pace: %.4f, %.4f, %.4f and %.4f with the fold's own thread as needed (the default); "
           "%.4f, %.4f, %.4f and %.4f with it always (PT_FOLD_THREAD=1); %.4f, %.4f, %.4f and "
           "%.4f without it (PT_FOLD_THREAD=0) (median of %d rounds of %ld)\n", paces[0],
           paces[1], paces[2], paces[3], ratio[AS_NEEDED][0], ratio[AS_NEEDED][1],
           ratio[AS_NEEDED][2], ratio[AS_NEEDED][3], ratio[ALWAYS][0], ratio[ALWAYS][1],
           ratio[ALWAYS][2], ratio[ALWAYS][3], ratio[NEVER][0], ratio[NEVER][1],
           ratio[NEVER][2], ratio[NEVER][3], ROUNDS, n);
    /* What the thread did: as needed, little where the launching thread
     * has time to spare. */
    printf("the fold's own thread's CPU a replay at the same paces: %.2f, %.2f, %.2f and %.2f us "
           "as needed; %.2f, %.2f, %.2f and %.2f us always (medians of %d rounds of %ld)\n",
           fold_us[AS_NEEDED][0], fold_us[AS_NEEDED][1], fold_us[AS_NEEDED][2],
           fold_us[AS_NEEDED][3], fold_us[ALWAYS][0], fold_us[ALWAYS][1], fold_us[ALWAYS][2],
           fold_us[ALWAYS][3], ROUNDS, n);
    /* Of the wall time at the slowest pace, what pt_sync took after the
     * GPU's last replay: the folds of the sets that landed last, which no
     * replay hides; a run's, not a replay's. */
    printf("pt_sync after the GPU's last replay at %.0f us a replay: %.0f us as needed, %.0f us "
           "always, %.0f us never (medians of %d rounds of %ld)\n", paces[0],
           tail_us[AS_NEEDED], tail_us[ALWAYS], tail_us[NEVER], ROUNDS, n);
    fake_uninstall();
    return 0;
}
