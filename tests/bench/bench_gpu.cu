/* GPU benchmarks: what ptkit's instrumentation costs, measured in one run
 * and printed one line per figure, beside its goal and beside the
 * hand-written pattern it replaces (the clock_counter pattern: a raw
 * clock64 pair per phase, stored to global memory by one thread; for
 * launches, a cudaEvent pair per launch).
 *
 *   cycles per mark      a loop of N iterations with two marks, against
 *                        the same loop without: clock64 delta / 2N
 *   slowdown             a tiled matmul with 3 marks per tile iteration,
 *                        against the same kernel without (median of runs)
 *   launch rate          10,000 short launches each inside
 *                        pt_start_gpu/pt_stop_gpu, against bare launches
 *
 * Without a device it says so and exits 0. */
#include <pt/pt.h>
#include <pt/pt_dev.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vector>

enum { PH_LOAD, PH_SYNC, PH_COMPUTE, PH_COUNT };
static const char *const phase_names[PH_COUNT] = { "load", "sync", "compute" };

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "bench-gpu: %s: %s\n", #call, cudaGetErrorString(e_));     \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* ---- cycles per mark --------------------------------------------- */

/* The same dependent arithmetic in all three; only the instrumentation
 * differs. The loop is kept rolled so the three compile alike. */
__global__ void loop_bare(int iters, float seed, long long *cycles, float *sink)
{
    float x = seed + threadIdx.x;
    long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        x = x * 1.0001f + 0.5f;
        x = x * 0.9999f - 0.25f;
    }
    long long c1 = clock64();
    if (threadIdx.x == 0)
        *cycles = c1 - c0;
    if (x == 1234.5f)
        *sink = x;
}

__global__ void loop_marks(int iters, float seed, long long *cycles, float *sink, pt_dev_buf buf)
{
    float x = seed + threadIdx.x;
    PT_DEV_BEGIN(buf);
    long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        x = x * 1.0001f + 0.5f;
        PT_DEV_MARK(PH_LOAD);
        x = x * 0.9999f - 0.25f;
        PT_DEV_MARK(PH_COMPUTE);
    }
    long long c1 = clock64();
    PT_DEV_END(buf);
    if (threadIdx.x == 0)
        *cycles = c1 - c0;
    if (x == 1234.5f)
        *sink = x;
}

__global__ void loop_clock_counter(int iters, float seed, long long *cycles, float *sink,
                                   long long *times)
{
    float x = seed + threadIdx.x;
    long long c0 = clock64(), s = c0, e;
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        x = x * 1.0001f + 0.5f;
        e = clock64();
        if (threadIdx.x == 0)
            times[i] = e - s;
        s = e;
        x = x * 0.9999f - 0.25f;
        e = clock64();
        if (threadIdx.x == 0)
            times[iters + i] = e - s;
        s = e;
    }
    long long c1 = clock64();
    if (threadIdx.x == 0)
        *cycles = c1 - c0;
    if (x == 1234.5f)
        *sink = x;
}

/* ---- a realistic multi-phase kernel: tiled matmul ---------------- */

#define TILE 32

/* The clock_counter pattern's step: block 0's thread 0 stores the cycles
 * since the previous step for (phase, iteration). */
static __device__ __forceinline__ void cc_step(long long *times, int rec, long long *s, int at)
{
    long long e = clock64();
    if (rec)
        times[at] = e - *s;
    *s = e;
}

/* One kernel body, three kernels: bare, with ptkit's marks, with the
 * clock_counter pattern. Only the instrumentation differs. */
#define MATMUL_KERNEL(name, BEGIN, MARK_LOAD, MARK_SYNC, MARK_COMPUTE, END)                 \
    __global__ void name(const float *A, const float *B, float *C, int n, pt_dev_buf buf,   \
                         long long *times)                                                  \
    {                                                                                       \
        __shared__ float As[TILE][TILE], Bs[TILE][TILE];                                    \
        int tx = threadIdx.x, ty = threadIdx.y;                                             \
        int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;                     \
        float acc = 0.0f;                                                                   \
        (void)buf;                                                                          \
        (void)times;                                                                        \
        BEGIN;                                                                              \
        for (int k0 = 0, it = 0; k0 < n; k0 += TILE, it++) {                                \
            (void)it;                                                                       \
            As[ty][tx] = A[row * n + k0 + tx];                                              \
            Bs[ty][tx] = B[(k0 + ty) * n + col];                                            \
            MARK_LOAD;                                                                      \
            __syncthreads();                                                                \
            MARK_SYNC;                                                                      \
            _Pragma("unroll") for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];  \
            __syncthreads();                                                                \
            MARK_COMPUTE;                                                                   \
        }                                                                                   \
        C[row * n + col] = acc;                                                             \
        END;                                                                                \
    }

MATMUL_KERNEL(matmul_bare, (void)0, (void)0, (void)0, (void)0, (void)0)
MATMUL_KERNEL(matmul_marks, PT_DEV_BEGIN(buf), PT_DEV_MARK(PH_LOAD), PT_DEV_MARK(PH_SYNC),
              PT_DEV_MARK(PH_COMPUTE), PT_DEV_END(buf))
MATMUL_KERNEL(matmul_clock_counter,
              const int iters = n / TILE;
              long long cc_s = clock64();
              const int rec = (blockIdx.x | blockIdx.y | threadIdx.x | threadIdx.y) == 0,
              cc_step(times, rec, &cc_s, PH_LOAD * iters + it),
              cc_step(times, rec, &cc_s, PH_SYNC * iters + it),
              cc_step(times, rec, &cc_s, PH_COMPUTE * iters + it), (void)0)

__global__ void empty_kernel(int *p)
{
    if (p && threadIdx.x == 1024)
        *p = 0;
}

int main(void)
{
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("bench-gpu: no CUDA device (%s); nothing measured\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 0;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    pt_timing *t = pt_create("bench-gpu", PT_GPU_EVENTS);

    /* ---- cycles per mark ---- */
    const int iters = 100000, reps = 5;
    long long *d_cycles, *d_times, cyc;
    float *d_sink;
    CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
    CHECK(cudaMalloc(&d_sink, sizeof(float)));
    CHECK(cudaMalloc(&d_times, 2 * sizeof(long long) * iters));
    pt_dev_records *lb = pt_dev_records_create(t, 1, PH_COUNT, phase_names, PT_DEV_AGGREGATE, 0);
    std::vector<double> bare, marks, cc;
    for (int r = 0; r < reps; r++) {
        loop_bare<<<1, 32, 0, st>>>(iters, 1.0f, d_cycles, d_sink);
        CHECK(cudaMemcpyAsync(&cyc, d_cycles, sizeof cyc, cudaMemcpyDeviceToHost, st));
        CHECK(cudaStreamSynchronize(st));
        bare.push_back((double)cyc);
        pt_dev_reset(lb, (pt_stream)st);
        loop_marks<<<1, 32, 0, st>>>(iters, 1.0f, d_cycles, d_sink, pt_dev_arg(lb));
        CHECK(cudaMemcpyAsync(&cyc, d_cycles, sizeof cyc, cudaMemcpyDeviceToHost, st));
        CHECK(cudaStreamSynchronize(st));
        marks.push_back((double)cyc);
        loop_clock_counter<<<1, 32, 0, st>>>(iters, 1.0f, d_cycles, d_sink, d_times);
        CHECK(cudaMemcpyAsync(&cyc, d_cycles, sizeof cyc, cudaMemcpyDeviceToHost, st));
        CHECK(cudaStreamSynchronize(st));
        cc.push_back((double)cyc);
    }
    double per_mark = (median(marks) - median(bare)) / (2.0 * iters);
    double per_cc = (median(cc) - median(bare)) / (2.0 * iters);

    /* ---- slowdown of a tiled matmul ---- */
    const int n = 2048, runs = 21;
    float *A, *B, *C;
    CHECK(cudaMalloc(&A, sizeof(float) * n * n));
    CHECK(cudaMalloc(&B, sizeof(float) * n * n));
    CHECK(cudaMalloc(&C, sizeof(float) * n * n));
    CHECK(cudaMemsetAsync(A, 0, sizeof(float) * n * n, st));
    CHECK(cudaMemsetAsync(B, 0, sizeof(float) * n * n, st));
    long long *mm_times;
    CHECK(cudaMalloc(&mm_times, sizeof(long long) * PH_COUNT * (n / TILE)));
    dim3 grid(n / TILE, n / TILE), block(TILE, TILE);
    pt_dev_records *mb =
        pt_dev_records_create(t, (n / TILE) * (n / TILE), PH_COUNT, phase_names, PT_DEV_AGGREGATE, 0);
    pt_dev_buf none = pt_dev_arg(NULL);
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<double> mm[3];
    for (int r = 0; r < runs + 1; r++) {
        for (int mode = 0; mode < 3; mode++) {
            float ms;
            if (mode == 1)
                pt_dev_reset(mb, (pt_stream)st);
            CHECK(cudaEventRecord(e0, st));
            if (mode == 0)
                matmul_bare<<<grid, block, 0, st>>>(A, B, C, n, none, mm_times);
            else if (mode == 1)
                matmul_marks<<<grid, block, 0, st>>>(A, B, C, n, pt_dev_arg(mb), mm_times);
            else
                matmul_clock_counter<<<grid, block, 0, st>>>(A, B, C, n, none, mm_times);
            CHECK(cudaEventRecord(e1, st));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            if (r > 0) /* the first round warms up */
                mm[mode].push_back(ms);
        }
    }
    double slow = 100.0 * (median(mm[1]) / median(mm[0]) - 1.0);
    double slow_cc = 100.0 * (median(mm[2]) / median(mm[0]) - 1.0);

    /* One instrumented launch folded, to show what the marks say. */
    pt_dev_reset(mb, (pt_stream)st);
    pt_start_gpu(t, "matmul", (pt_stream)st);
    matmul_marks<<<grid, block, 0, st>>>(A, B, C, n, pt_dev_arg(mb), mm_times);
    pt_stop_gpu(t, "matmul", (pt_stream)st, .flops = 2.0 * n * n * n);
    pt_dev_fold(t, mb, "matmul");
    pt_sync(t);

    /* ---- launch rate ---- */
    const int launches = 10000;
    pt_timing *lt = pt_create("launches", PT_GPU_EVENTS);
    std::vector<cudaEvent_t> evs(2 * launches);
    for (auto &ev : evs)
        CHECK(cudaEventCreate(&ev));
    double best[3] = { 0, 0, 0 };
    for (int r = 0; r < 4; r++) {
        for (int mode = 0; mode < 3; mode++) {
            double t0 = now_s();
            for (int i = 0; i < launches; i++) {
                if (mode == 1)
                    pt_start_gpu(lt, "launch", (pt_stream)st);
                else if (mode == 2)
                    cudaEventRecord(evs[2 * i], st);
                empty_kernel<<<1, 32, 0, st>>>(NULL);
                if (mode == 1)
                    pt_stop_gpu(lt, "launch", (pt_stream)st);
                else if (mode == 2)
                    cudaEventRecord(evs[2 * i + 1], st);
            }
            CHECK(cudaStreamSynchronize(st));
            if (mode == 1) {
                pt_sync(lt);
            } else if (mode == 2) {
                float ms, sum = 0;
                for (int i = 0; i < launches; i++) {
                    cudaEventElapsedTime(&ms, evs[2 * i], evs[2 * i + 1]);
                    sum += ms;
                }
                if (sum < 0)
                    printf("(impossible)\n");
            }
            double rate = launches / (now_s() - t0);
            if (r > 0 && rate > best[mode]) /* the first round warms up */
                best[mode] = rate;
        }
    }
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);

    printf("ptkit bench-gpu: %s (sm_%d%d), SM clock %.3f GHz%s, globaltimer tick %.0f ns\n",
           prop.name, prop.major, prop.minor, dc.cycles_per_ns,
           dc.calibrated ? " (calibrated)" : " (not calibrated)", dc.tick_ns);
    printf("cycles per mark:                        %7.1f      (goal <= 20)     "
           "clock_counter pattern: %.1f cycles per clock64 pair stored\n",
           per_mark, per_cc);
    printf("slowdown, %dx%d tiled matmul, 3 marks per tile: %6.2f %%  (goal <= 1 %%)   "
           "clock_counter pattern: %.2f %%  (bare %.3f ms)\n",
           n, n, slow, slow_cc, median(mm[0]));
    printf("launch rate, pt_start_gpu/pt_stop_gpu around each of %d launches: %.3f of bare  "
           "(goal >= 0.9)   hand-written event pair: %.3f  (bare %.0f launches/s)\n",
           launches, best[1] / best[0], best[2] / best[0], best[0]);
    pt_log(t, stdout);

    pt_dev_records_free(lb);
    pt_dev_records_free(mb);
    pt_destroy(lt);
    pt_destroy(t);
    for (auto &ev : evs)
        cudaEventDestroy(ev);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(mm_times);
    cudaFree(d_cycles);
    cudaFree(d_sink);
    cudaFree(d_times);
    cudaStreamDestroy(st);
    return 0;
}
