/* warp_roles: a warp-specialized kernel as Hopper kernels are written, in
 * miniature, read through its roles. In each block warp 0 is the producer,
 * copying tiles into a two-stage shared-memory ring, and warps 1..4 the
 * consumers, reducing them; the roles hand the stages over through named
 * barriers, as TMA producers and wgmma consumers do through mbarriers.
 * Each role records into its own buffer with its own phases
 * (PT_DEV_BEGIN_ROLE) and is folded into its own section of the launch
 * (pt_dev_fold_role): the report shows how long the producer waited for a
 * free stage against how long the consumers waited for a full one; with
 * trace records and the waiting phases named (pt_dev_records_waits), how
 * much of each role's work ran beside the other's and how long it waited
 * with nothing in flight (overlap and bubbles); and, under the launch, how
 * its blocks filled the device (waves, tail, slowest warp).
 *
 * On a GPU the kernel runs as written. On the CPU (no GPU) each block's
 * warps run one after another on the host, the producer's loads then the
 * consumers' sums, through the same role buffers (host mode): the roles
 * and their phases show, and their overlap is none.
 *
 * usage: warp_roles [launches] [output-directory] ("-" keeps the default) */
#define PT_DEV_PER_WARP
#define PT_DEV_TRACING
#define PT_DEV_PHASES 3
#include <pt/pt.h>
#include <pt/pt_dev.h>

#include "../sample_reports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__CUDACC__)
#  include <cuda_runtime.h>
#endif

enum { STAGES = 2, TILE = 128, CONSUMERS = 4, WARPS = 1 + CONSUMERS, THREADS = 32 * WARPS };
enum { BLOCKS = 264, TILES = 64 };

/* The producer's phases, then the consumers'. */
enum { P_WAIT_EMPTY, P_LOAD };
enum { C_WAIT_FULL, C_MATH, C_RELEASE };
static const char *const producer_phases[] = { "wait for an empty stage", "load" };
static const char *const consumer_phases[] = { "wait for a full stage", "math", "release" };
static const int producer_waits[] = { P_WAIT_EMPTY }, consumer_waits[] = { C_WAIT_FULL };
/* Each role's records, traced: an event a mark. */
enum { P_EVENTS = 2 * TILES, C_EVENTS = 3 * TILES };

/* The role buffers, with their waits named; NULL without them. */
static int role_records(pt_timing *t, unsigned flags, pt_dev_records **prod, pt_dev_records **cons)
{
    *prod = pt_dev_records_create(t, BLOCKS, 2, producer_phases, flags | PT_DEV_TRACE, P_EVENTS);
    *cons = pt_dev_records_create(t, BLOCKS * CONSUMERS, 3, consumer_phases, flags | PT_DEV_TRACE,
                                  C_EVENTS);
    if (!*prod || !*cons)
        return -1;
    pt_dev_records_waits(*prod, 1, producer_waits);
    pt_dev_records_waits(*cons, 1, consumer_waits);
    return 0;
}

#if defined(__CUDACC__)
/* Named barriers 1 + s (stage s full) and 3 + s (stage s empty). */
__device__ __forceinline__ void bar_sync(int id)
{
    asm volatile("bar.sync %0, %1;" : : "r"(id), "r"(THREADS) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id)
{
    asm volatile("bar.arrive %0, %1;" : : "r"(id), "r"(THREADS) : "memory");
}

__global__ void __launch_bounds__(THREADS)
reduce_ws(const float *in, float *out, pt_dev_buf producer, pt_dev_buf consumer)
{
    __shared__ float ring[STAGES][TILE];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float *src = in + (long long)blockIdx.x * TILES * TILE;

    if (warp == 0) {
        PT_DEV_BEGIN_ROLE(producer, 0, 1);
        for (int t = 0; t < TILES; t++) {
            const int s = t % STAGES;
            if (t >= STAGES)
                bar_sync(3 + s);
            PT_DEV_MARK(P_WAIT_EMPTY);
            for (int i = lane; i < TILE; i += 32)
                ring[s][i] = src[(long long)t * TILE + i];
            PT_DEV_MARK(P_LOAD);
            bar_arrive(1 + s);
        }
        PT_DEV_END(producer);
    } else {
        PT_DEV_BEGIN_ROLE(consumer, 1, CONSUMERS);
        float acc = 0;
        for (int t = 0; t < TILES; t++) {
            const int s = t % STAGES;
            bar_sync(1 + s);
            PT_DEV_MARK(C_WAIT_FULL);
            const int i = threadIdx.x - 32;
            for (int r = 0; r < 64; r++)   /* some math on the tile */
                acc = fmaf(ring[s][i], ring[s][i] + (float)r, acc);
            PT_DEV_MARK(C_MATH);
            if (t + STAGES < TILES)
                bar_arrive(3 + s);
            PT_DEV_MARK(C_RELEASE);
        }
        out[(long long)blockIdx.x * (THREADS - 32) + threadIdx.x - 32] = acc;
        PT_DEV_END(consumer);
    }
}

static int run_gpu(pt_timing *t, int launches, const float *h_in, float *h_out)
{
    size_t nin = (size_t)BLOCKS * TILES * TILE, nout = (size_t)BLOCKS * (THREADS - 32);
    float *in = NULL, *out = NULL;
    cudaStream_t st;
    pt_dev_records *prod, *cons;

    if (role_records(t, 0, &prod, &cons) < 0 || cudaMalloc(&in, nin * sizeof *in) != cudaSuccess ||
        cudaMalloc(&out, nout * sizeof *out) != cudaSuccess || cudaStreamCreate(&st) != cudaSuccess)
        return -1;
    cudaMemcpy(in, h_in, nin * sizeof *in, cudaMemcpyHostToDevice);
    for (int i = 0; i < launches; i++) {
        pt_dev_reset(prod, (pt_stream)st);
        pt_dev_reset(cons, (pt_stream)st);
        pt_start_gpu(t, "reduce", (pt_stream)st, .read = nin * 4.0, .written = nout * 4.0);
        reduce_ws<<<BLOCKS, THREADS, 0, st>>>(in, out, pt_dev_arg(prod), pt_dev_arg(cons));
        pt_stop_gpu(t, "reduce", (pt_stream)st);
        pt_dev_fold_role(t, prod, "reduce", "producer");
        pt_dev_fold_role(t, cons, "reduce", "consumers");
    }
    cudaError_t e = cudaStreamSynchronize(st);
    cudaMemcpy(h_out, out, nout * sizeof *out, cudaMemcpyDeviceToHost);
    pt_sync(t);
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
    cudaFree(in);
    cudaFree(out);
    cudaStreamDestroy(st);
    return e == cudaSuccess ? 0 : -1;
}
#endif

/* The CPU path: a block's warps one after another, each writing its
 * role's record as on the GPU (PT_DEV_BEGIN_IF names the warp's slot, the
 * CPU being one warp at a time). */
static void block_cpu(int b, const float *in, float *out, pt_dev_buf prod, pt_dev_buf cons)
{
    static float ring[TILES][TILE];
    const float *src = in + (long long)b * TILES * TILE;
    {
        PT_DEV_BEGIN_IF(prod, 1, b);
        for (int t = 0; t < TILES; t++) {
            PT_DEV_MARK(P_WAIT_EMPTY);
            memcpy(ring[t], src + (long long)t * TILE, sizeof ring[t]);
            PT_DEV_MARK(P_LOAD);
        }
        PT_DEV_END(prod);
    }
    for (int w = 0; w < CONSUMERS; w++) {
        float acc[32] = { 0 };
        PT_DEV_BEGIN_IF(cons, 1, b * CONSUMERS + w);
        for (int t = 0; t < TILES; t++) {
            PT_DEV_MARK(C_WAIT_FULL);
            for (int l = 0; l < 32; l++)
                for (int r = 0; r < 64; r++) {
                    float v = ring[t][w * 32 + l];
                    acc[l] += v * (v + (float)r);
                }
            PT_DEV_MARK(C_MATH);
            PT_DEV_MARK(C_RELEASE);
        }
        for (int l = 0; l < 32; l++)
            out[(long long)b * (THREADS - 32) + w * 32 + l] = acc[l];
        PT_DEV_END(cons);
    }
}

static void run_cpu(pt_timing *t, int launches, const float *in, float *out)
{
    pt_dev_records *prod, *cons;

    if (role_records(t, PT_DEV_HOST, &prod, &cons) < 0) {
        pt_dev_records_free(prod);
        pt_dev_records_free(cons);
        return;
    }
    for (int i = 0; i < launches; i++) {
        pt_dev_reset(prod, NULL);
        pt_dev_reset(cons, NULL);
        pt_start(t, "reduce");
        for (int b = 0; b < BLOCKS; b++)
            block_cpu(b, in, out, pt_dev_arg(prod), pt_dev_arg(cons));
        pt_stop(t, "reduce");
        pt_dev_fold_role(t, prod, "reduce", "producer");
        pt_dev_fold_role(t, cons, "reduce", "consumers");
    }
    pt_dev_records_free(prod);
    pt_dev_records_free(cons);
}

int main(int argc, char **argv)
{
    int launches = argc > 1 && strcmp(argv[1], "-") ? atoi(argv[1]) : 5;
    const char *dir = argc > 2 && strcmp(argv[2], "-") ? argv[2] : ".";
    size_t nin = (size_t)BLOCKS * TILES * TILE, nout = (size_t)BLOCKS * (THREADS - 32);
    float *in = (float *)malloc(nin * sizeof *in), *out = (float *)calloc(nout, sizeof *out);
    pt_timing *t = pt_create("warp_roles", PT_GPU_EVENTS);
    int on_gpu = 0;

    if (!in || !out || launches < 1) {
        fprintf(stderr, "usage: warp_roles [launches >= 1] [output-directory]\n");
        return 2;
    }
    for (size_t i = 0; i < nin; i++)
        in[i] = (float)(i % 97) / 97.0f;
#if defined(__CUDACC__)
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0)
        on_gpu = run_gpu(t, launches, in, out) == 0;
#endif
    if (!on_gpu)
        run_cpu(t, launches, in, out);
    printf("warp_roles on the %s: %d launches of %d blocks, a producer warp and %d consumer "
           "warps each (out[0] = %g)\n", on_gpu ? "GPU" : "CPU (host mode)", launches, BLOCKS,
           CONSUMERS, out[0]);
    pt_log(t, stdout);
    sample_write_reports(t, dir, "warp_roles");
    pt_destroy(t);
    free(in);
    free(out);
    return 0;
}
