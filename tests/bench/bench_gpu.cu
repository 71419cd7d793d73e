/* GPU benchmarks: what ptkit's instrumentation costs, measured in one run
 * and printed one line per figure, beside its goal and beside the
 * hand-written pattern it replaces (the clock_counter pattern: a raw
 * clock64 read per mark, thread 0 adding the delta into global memory; for
 * launches, a cudaEvent pair per launch).
 *
 *   cycles per mark      a loop of N iterations with two marks (the
 *                        default shared-memory mode), against the same
 *                        loop without: clock64 delta / 2N; the same with
 *                        phases known only at run time
 *   slowdown             the tiled SGEMM (1024-thread blocks, 3 phases)
 *                        and the attention pass (6 phases, nested loops)
 *                        of tests/kernels/, each with ptkit's marks (in
 *                        shared memory, the default, and in registers)
 *                        and with the hand-written pattern, against the
 *                        kernel without either (medians of interleaved runs)
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

/* A phase known at compile time; an int is one known at run time. */
template <int P>
struct phase_const {
    __device__ operator long long() const { return P; }
};

template <typename P0, typename P1>
__global__ void loop_marks(int iters, float seed, long long *cycles, float *sink, P0 p0, P1 p1,
                           pt_dev_buf buf)
{
    float x = seed + threadIdx.x;
    PT_DEV_BEGIN(buf);
    long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        x = x * 1.0001f + 0.5f;
        PT_DEV_MARK(p0);
        x = x * 0.9999f - 0.25f;
        PT_DEV_MARK(p1);
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

/* ---- realistic multi-phase kernels: tests/kernels/ ----------------- */

/* tests/kernels/gemm.cu and attention.cu, each built four times (see
 * forms.h): without instrumentation, with ptkit's macros in their default
 * shared-memory mode and with PT_DEV_SHARED=0 (registers), with the
 * hand-written pattern; only the last parameter differs. */
#define GEMM_ARGS int M, int N, int K, float alpha, const float *A, const float *B, float beta, \
                  float *C
#define ATT_ARGS const float *Q, const float *K, const float *V, int n, float scale, float *l, \
                 float *m, float *O
extern "C" __global__ void gemm_orig(GEMM_ARGS, pt_dev_buf buf);
extern "C" __global__ void gemm_ptkit(GEMM_ARGS, pt_dev_buf buf);
extern "C" __global__ void gemm_reg(GEMM_ARGS, pt_dev_buf buf);
extern "C" __global__ void gemm_hand(GEMM_ARGS, long long *times);
extern "C" __global__ void attention_orig(ATT_ARGS, pt_dev_buf buf);
extern "C" __global__ void attention_ptkit(ATT_ARGS, pt_dev_buf buf);
extern "C" __global__ void attention_reg(ATT_ARGS, pt_dev_buf buf);
extern "C" __global__ void attention_hand(ATT_ARGS, long long *times);

enum { GEMM_PHASES = 3, ATT_PHASES = 6, ATT_D = 64, ATT_BR = 32, ATT_BC = 32 };
static const char *const gemm_names[GEMM_PHASES] = { "load", "mma", "store" };
static const char *const att_names[ATT_PHASES] = { "load_kv", "load_q", "scores",
                                                   "softmax", "pv", "stats" };

/* The median time (ms) of each form over `runs` interleaved rounds, after
 * one round of warm-up. launch(form) launches form 0 (bare), 1 (ptkit),
 * 2 (by hand) or 3 (ptkit in registers) on st. */
enum { NFORMS = 4 };
template <typename F>
static void time_forms(cudaStream_t st, int runs, F launch, double med[NFORMS])
{
    cudaEvent_t e0, e1;
    std::vector<double> ms[NFORMS];
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int r = 0; r < runs + 1; r++) {
        for (int form = 0; form < NFORMS; form++) {
            float t;
            CHECK(cudaEventRecord(e0, st));
            launch(form);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e1, st));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            if (r > 0)
                ms[form].push_back(t);
        }
    }
    for (int form = 0; form < NFORMS; form++)
        med[form] = median(ms[form]);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

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
    std::vector<double> bare, marks, runtime, cc;
    auto cycles_of = [&](void) {
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(&cyc, d_cycles, sizeof cyc, cudaMemcpyDeviceToHost, st));
        CHECK(cudaStreamSynchronize(st));
        return (double)cyc;
    };
    for (int r = 0; r < reps; r++) {
        loop_bare<<<1, 32, 0, st>>>(iters, 1.0f, d_cycles, d_sink);
        bare.push_back(cycles_of());
        pt_dev_reset(lb, (pt_stream)st);
        loop_marks<<<1, 32, 0, st>>>(iters, 1.0f, d_cycles, d_sink, phase_const<PH_LOAD>(),
                                     phase_const<PH_COMPUTE>(), pt_dev_arg(lb));
        marks.push_back(cycles_of());
        pt_dev_reset(lb, (pt_stream)st);
        loop_marks<<<1, 32, 0, st>>>(iters, 1.0f, d_cycles, d_sink, (int)PH_LOAD,
                                     (int)PH_COMPUTE, pt_dev_arg(lb));
        runtime.push_back(cycles_of());
        loop_clock_counter<<<1, 32, 0, st>>>(iters, 1.0f, d_cycles, d_sink, d_times);
        cc.push_back(cycles_of());
    }
    double per_mark = (median(marks) - median(bare)) / (2.0 * iters);
    double per_runtime = (median(runtime) - median(bare)) / (2.0 * iters);
    double per_cc = (median(cc) - median(bare)) / (2.0 * iters);

    /* ---- slowdown of the tiled SGEMM ---- */
    const int n = 2048, runs = 21, tile = 32;
    const int gemm_blocks = (n / tile) * (n / tile);
    float *A, *B, *C;
    long long *g_times;
    CHECK(cudaMalloc(&A, sizeof(float) * n * n));
    CHECK(cudaMalloc(&B, sizeof(float) * n * n));
    CHECK(cudaMalloc(&C, sizeof(float) * n * n));
    CHECK(cudaMalloc(&g_times, sizeof(long long) * GEMM_PHASES * gemm_blocks));
    CHECK(cudaMemsetAsync(A, 0, sizeof(float) * n * n, st));
    CHECK(cudaMemsetAsync(B, 0, sizeof(float) * n * n, st));
    CHECK(cudaMemsetAsync(C, 0, sizeof(float) * n * n, st));
    dim3 ggrid(n / tile, n / tile);
    pt_dev_records *gb =
        pt_dev_records_create(t, gemm_blocks, GEMM_PHASES, gemm_names, PT_DEV_AGGREGATE, 0);
    pt_dev_buf none = pt_dev_arg(NULL);
    auto gemm = [&](int form) {
        if (form == 0)
            gemm_orig<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, none);
        else if (form == 1)
            gemm_ptkit<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, pt_dev_arg(gb));
        else if (form == 3)
            gemm_reg<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, pt_dev_arg(gb));
        else
            gemm_hand<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, g_times);
    };
    double gemm_ms[NFORMS];
    time_forms(st, runs, gemm, gemm_ms);

    /* ---- slowdown of the attention pass ---- */
    const int batch = 8, heads = 16, seq = 512;
    const size_t qkv = (size_t)batch * heads * seq * ATT_D, lm = (size_t)batch * heads * seq;
    const size_t smem = sizeof(float) * ((ATT_BR + 2 * ATT_BC) * ATT_D + ATT_BR * ATT_BC);
    float *Q, *Kt, *V, *O, *l, *m;
    long long *a_times;
    CHECK(cudaMalloc(&Q, sizeof(float) * qkv));
    CHECK(cudaMalloc(&Kt, sizeof(float) * qkv));
    CHECK(cudaMalloc(&V, sizeof(float) * qkv));
    CHECK(cudaMalloc(&O, sizeof(float) * qkv));
    CHECK(cudaMalloc(&l, sizeof(float) * lm));
    CHECK(cudaMalloc(&m, sizeof(float) * lm));
    CHECK(cudaMalloc(&a_times, sizeof(long long) * ATT_PHASES * batch * heads));
    CHECK(cudaMemsetAsync(Q, 0, sizeof(float) * qkv, st));
    CHECK(cudaMemsetAsync(Kt, 0, sizeof(float) * qkv, st));
    CHECK(cudaMemsetAsync(V, 0, sizeof(float) * qkv, st));
    dim3 agrid(batch, heads);
    pt_dev_records *ab =
        pt_dev_records_create(t, batch * heads, ATT_PHASES, att_names, PT_DEV_AGGREGATE, 0);
    auto attention = [&](int form) {
        /* O, l, m start at 0, 0, 0 each time: the same work in every form. */
        CHECK(cudaMemsetAsync(O, 0, sizeof(float) * qkv, st));
        CHECK(cudaMemsetAsync(l, 0, sizeof(float) * lm, st));
        CHECK(cudaMemsetAsync(m, 0, sizeof(float) * lm, st));
        if (form == 0)
            attention_orig<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O, none);
        else if (form == 1)
            attention_ptkit<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O,
                                                         pt_dev_arg(ab));
        else if (form == 3)
            attention_reg<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O,
                                                       pt_dev_arg(ab));
        else
            attention_hand<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O, a_times);
    };
    double att_ms[NFORMS];
    time_forms(st, runs, attention, att_ms);

    /* One instrumented launch of each folded, to show what the marks say. */
    pt_dev_reset(gb, (pt_stream)st);
    pt_start_gpu(t, "gemm", (pt_stream)st);
    gemm(1);
    pt_stop_gpu(t, "gemm", (pt_stream)st, .flops = 2.0 * n * n * n);
    pt_dev_fold(t, gb, "gemm");
    pt_dev_reset(ab, (pt_stream)st);
    pt_start_gpu(t, "attention", (pt_stream)st);
    attention(1);
    pt_stop_gpu(t, "attention", (pt_stream)st, .flops = 4.0 * batch * heads * seq * seq * ATT_D);
    pt_dev_fold(t, ab, "attention");
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
           "hand-written pattern: %.1f cycles per clock64 read stored\n",
           per_mark, per_cc);
    printf("cycles per mark of a phase known at run time (3 phases): %7.1f\n", per_runtime);
    printf("slowdown, %dx%d SGEMM, 1024-thread blocks, 3 phases: ptkit %+6.2f %% (goal <= 1 %%), "
           "in registers %+6.2f %%, hand-written pattern %+6.2f %%  (bare %.3f ms)\n",
           n, n, 100.0 * (gemm_ms[1] / gemm_ms[0] - 1.0), 100.0 * (gemm_ms[3] / gemm_ms[0] - 1.0),
           100.0 * (gemm_ms[2] / gemm_ms[0] - 1.0), gemm_ms[0]);
    printf("slowdown, attention %dx%dx%d, D=%d, 6 phases: ptkit %+6.2f %% (goal <= 1 %%), "
           "in registers %+6.2f %%, hand-written pattern %+6.2f %%  (bare %.3f ms)\n",
           batch, heads, seq, (int)ATT_D, 100.0 * (att_ms[1] / att_ms[0] - 1.0),
           100.0 * (att_ms[3] / att_ms[0] - 1.0), 100.0 * (att_ms[2] / att_ms[0] - 1.0),
           att_ms[0]);
    printf("launch rate, pt_start_gpu/pt_stop_gpu around each of %d launches: %.3f of bare  "
           "(goal >= 0.9)   hand-written event pair: %.3f  (bare %.0f launches/s)\n",
           launches, best[1] / best[0], best[2] / best[0], best[0]);
    pt_log(t, stdout);

    pt_dev_records_free(lb);
    pt_dev_records_free(gb);
    pt_dev_records_free(ab);
    pt_destroy(lt);
    pt_destroy(t);
    for (auto &ev : evs)
        cudaEventDestroy(ev);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(g_times);
    cudaFree(Q);
    cudaFree(Kt);
    cudaFree(V);
    cudaFree(O);
    cudaFree(l);
    cudaFree(m);
    cudaFree(a_times);

    cudaFree(d_cycles);
    cudaFree(d_sink);
    cudaFree(d_times);
    cudaStreamDestroy(st);
    return 0;
}
