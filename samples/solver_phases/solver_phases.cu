/* solver_phases: a batched solver, one small dense problem per thread
 * block, with the iteration phases of a constraint solver timed inside the
 * kernel. Each problem is a box-constrained quadratic program
 *
 *   minimize 0.5 x'Hx - b'x   subject to 0 <= x <= 1,   H (N x N) SPD,
 *
 * solved by projected gradient with a Cauchy step; one outer step is one
 * time step of a simulation whose right-hand sides drift, warm-started
 * from the previous solution. The phases come from solver.phases through
 * ptgen (the header is generated in the build directory), so kernel and
 * report share one list.
 *
 * The step schedule, as torch.profiler.schedule: the first outer steps
 * (allocation, first-touch, cold caches, the first solves from x = 0)
 * are skipped, a warm-up step runs unrecorded, and only the active steps
 * are in the figures.
 *
 * usage: solver_phases [steps] [output-directory]
 * (steps: at least wait + warmup + active = 6; "-" keeps that) */
#include <pt/pt.h>
#include <pt/pt_dev.h>

#include "../sample_reports.h"
#include "solver_phases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__CUDACC__)
#  include <cuda_runtime.h>
#  define HD __host__ __device__
#else /* built by a C++ compiler alone (CUDA=0): the CPU path only */
#  define HD
#endif

enum { N = 64, NPROB = 256, ITERS = 24, THREADS = N };
enum { WAIT = 2, WARMUP = 1, ACTIVE = 3 };

struct lane { int tid, nthreads; };

/* A block's working set: shared memory on the GPU, a static array on the CPU. */
struct work {
    float x[N], g[N], Hx[N], Hg[N], d[N], red[THREADS + 1];
    int active;
};

static HD void block_sync(void)
{
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
}

/* A block-wide sum: one partial per thread, added in a fixed order so the
 * GPU and the CPU agree to rounding. */
static HD float block_sum(struct lane l, struct work *w, float v)
{
    w->red[l.tid] = v;
    block_sync();
    if (l.tid == 0) {
        float s = 0;
        for (int i = 0; i < l.nthreads; i++)
            s += w->red[i];
        w->red[THREADS] = s;
    }
    block_sync();
    float s = w->red[THREADS];
    block_sync();
    return s;
}

/* One problem, ITERS iterations: the same code on the GPU and on the CPU. */
static HD void solve_block(struct lane l, int p, const float *H_all, const float *b_all,
                           float *x_all, float *res, struct work *w, pt_dev_buf buf)
{
    const float *H = H_all + (size_t)p * N * N, *b = b_all + (size_t)p * N;
    float gnorm = 0;

    PT_DEV_BEGIN_AT(buf, p);
    for (int i = l.tid; i < N; i += l.nthreads)
        w->x[i] = x_all[(size_t)p * N + i];
    block_sync();
    /* The warm start's H x and gradient, charged to the gradient phase. */
    for (int i = l.tid; i < N; i += l.nthreads) {
        float s = 0;
        for (int j = 0; j < N; j++)
            s += H[i * N + j] * w->x[j];
        w->Hx[i] = s;
        w->g[i] = s - b[i];
    }
    block_sync();
    PT_DEV_MARK(PH_UPDATE_GRADIENT);
    for (int it = 0; it < ITERS; it++) {
        /* The exact minimizer along -g of the unconstrained quadratic. */
        float gg = 0, gHg = 0;
        for (int i = l.tid; i < N; i += l.nthreads) {
            float s = 0;
            for (int j = 0; j < N; j++)
                s += H[i * N + j] * w->g[j];
            w->Hg[i] = s;
            gg += w->g[i] * w->g[i];
        }
        gg = block_sum(l, w, gg);
        for (int i = l.tid; i < N; i += l.nthreads)
            gHg += w->g[i] * w->Hg[i];
        gHg = block_sum(l, w, gHg);
        float alpha = gHg > 0 ? gg / gHg : 0;
        PT_DEV_MARK(PH_LINE_SEARCH);

        for (int i = l.tid; i < N; i += l.nthreads) {
            float v = fminf(fmaxf(w->x[i] - alpha * w->g[i], 0.0f), 1.0f);
            w->d[i] = v - w->x[i];
            w->x[i] = v;
        }
        block_sync();
        PT_DEV_MARK(PH_STEP);

        int held = 0;
        for (int i = l.tid; i < N; i += l.nthreads)
            held += (w->x[i] <= 0 && w->g[i] > 0) || (w->x[i] >= 1 && w->g[i] < 0);
        held = (int)block_sum(l, w, (float)held);
        if (l.tid == 0)
            w->active = held;
        PT_DEV_MARK(PH_UPDATE_CONSTRAINT);

        /* Only the columns of variables that moved: held ones cost nothing. */
        for (int i = l.tid; i < N; i += l.nthreads) {
            float s = 0;
            for (int j = 0; j < N; j++)
                if (w->d[j] != 0)
                    s += H[i * N + j] * w->d[j];
            w->Hx[i] += s;
        }
        block_sync();
        PT_DEV_MARK(PH_HESSIAN_INCREMENTAL);

        float pg = 0;
        for (int i = l.tid; i < N; i += l.nthreads) {
            w->g[i] = w->Hx[i] - b[i];
            float q = fminf(fmaxf(w->x[i] - w->g[i], 0.0f), 1.0f) - w->x[i];
            pg += q * q;
        }
        gnorm = sqrtf(block_sum(l, w, pg));
        PT_DEV_MARK(PH_UPDATE_GRADIENT);
    }
    for (int i = l.tid; i < N; i += l.nthreads)
        x_all[(size_t)p * N + i] = w->x[i];
    if (l.tid == 0)
        res[p] = gnorm;
    PT_DEV_END(buf);
}

#if defined(__CUDACC__)
__global__ void solve(const float *H, const float *b, float *x, float *res, pt_dev_buf buf)
{
    __shared__ struct work w;
    struct lane l = { (int)threadIdx.x, (int)blockDim.x };
    solve_block(l, (int)blockIdx.x, H, b, x, res, &w, buf);
}
#endif

/* Per launch: the line search's H g and the incremental H x dominate
 * (2 N^2 each at most), plus a few passes over the vectors. */
static const double step_flops = (double)NPROB * ITERS * (4.0 * N * N + 16.0 * N);
static const double step_read = (double)NPROB * ITERS * 2.0 * N * N * sizeof(float);
static const double step_written = (double)NPROB * N * sizeof(float) * 2;

static unsigned rng = 2024;
static float frand(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / (float)(1u << 24);
}

/* H = M'M/N + I, SPD and well conditioned; b places the optimum partly
 * outside the box so some bounds are active. */
static void make_problems(float *H, float *b)
{
    static float M[N * N];
    for (int p = 0; p < NPROB; p++) {
        for (int i = 0; i < N * N; i++)
            M[i] = frand() - 0.5f;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                float s = i == j ? 1.0f : 0.0f;
                for (int k = 0; k < N; k++)
                    s += M[k * N + i] * M[k * N + j] / N;
                H[((size_t)p * N + i) * N + j] = s;
            }
        for (int i = 0; i < N; i++)
            b[(size_t)p * N + i] = 2.0f * frand() - 0.5f;
    }
}

/* The right-hand sides drift between time steps. */
static void drift(float *b, int step)
{
    for (int i = 0; i < NPROB * N; i++)
        b[i] += 0.01f * sinf(0.37f * (float)i + (float)step);
}

static int recording(const pt_timing *t)
{
    pt_schedule_info si;
    return pt_schedule_get(t, &si) == 0 && si.recording;
}

static void run_cpu(pt_timing *t, int steps, const float *H, float *b, float *x, float *res)
{
    pt_dev_records *buf = pt_dev_records_create(t, NPROB, PH_COUNT, solver_phase_names, PT_DEV_HOST, 0);
    static struct work w;
    struct lane l = { 0, 1 };

    for (int s = 0; s < steps; s++) {
        drift(b, s);
        pt_dev_reset(buf, 0);
        pt_start(t, "solve", pt::read(step_read).written(step_written).flops(step_flops));
        for (int p = 0; p < NPROB; p++)
            solve_block(l, p, H, b, x, res, &w, pt_dev_arg(buf));
        pt_stop(t, "solve");
        if (recording(t))
            pt_dev_fold(t, buf, "solve");
        pt_step(t);
    }
    pt_dev_records_free(buf);
}

#if defined(__CUDACC__)
static int run_gpu(pt_timing *t, int steps, const float *H_h, float *b_h, float *x_h, float *res_h)
{
    size_t hb = sizeof(float) * NPROB * N * N, vb = sizeof(float) * NPROB * N;
    float *H, *b, *x, *res;
    cudaStream_t st;

    if (cudaStreamCreate(&st) != cudaSuccess || cudaMalloc(&H, hb) != cudaSuccess ||
        cudaMalloc(&b, vb) != cudaSuccess || cudaMalloc(&x, vb) != cudaSuccess ||
        cudaMalloc(&res, sizeof(float) * NPROB) != cudaSuccess)
        return -1;
    pt_dev_records *buf = pt_dev_records_create(t, NPROB, PH_COUNT, solver_phase_names,
                                              PT_DEV_AGGREGATE, 0);
    cudaMemcpyAsync(H, H_h, hb, cudaMemcpyHostToDevice, st);
    cudaMemcpyAsync(x, x_h, vb, cudaMemcpyHostToDevice, st);
    for (int s = 0; s < steps; s++) {
        drift(b_h, s);
        pt_start_gpu(t, "upload_rhs", st);
        cudaMemcpyAsync(b, b_h, vb, cudaMemcpyHostToDevice, st);
        pt_stop_gpu(t, "upload_rhs", st, pt::read((double)vb));
        pt_dev_reset(buf, st);
        pt_start_gpu(t, "solve", st, pt::read(step_read).written(step_written).flops(step_flops));
        solve<<<NPROB, THREADS, 0, st>>>(H, b, x, res, pt_dev_arg(buf));
        pt_stop_gpu(t, "solve", st);
        if (recording(t))
            pt_dev_fold(t, buf, "solve");
        /* The host needs b back in its hands before the next drift. */
        cudaStreamSynchronize(st);
        pt_step(t);
    }
    cudaMemcpyAsync(x_h, x, vb, cudaMemcpyDeviceToHost, st);
    cudaMemcpyAsync(res_h, res, sizeof(float) * NPROB, cudaMemcpyDeviceToHost, st);
    cudaStreamSynchronize(st);
    pt_sync(t);
    int ok = cudaGetLastError() == cudaSuccess;
    pt_dev_records_free(buf);
    cudaFree(H); cudaFree(b); cudaFree(x); cudaFree(res);
    cudaStreamDestroy(st);
    return ok ? 0 : -1;
}
#endif

int main(int argc, char **argv)
{
    int steps = argc > 1 && strcmp(argv[1], "-") != 0 ? atoi(argv[1]) : WAIT + WARMUP + ACTIVE;
    const char *dir = argc > 2 ? argv[2] : ".";
    int on_gpu = 0;
    float *H = (float *)malloc(sizeof(float) * NPROB * N * N);
    float *b = (float *)malloc(sizeof(float) * NPROB * N);
    float *x = (float *)calloc((size_t)NPROB * N, sizeof(float));
    float *res = (float *)calloc(NPROB, sizeof(float));

    if (!H || !b || !x || !res || steps < WAIT + WARMUP + 1) {
        fprintf(stderr, "usage: solver_phases [steps >= %d] [output-directory]\n",
                WAIT + WARMUP + 1);
        return 2;
    }
    make_problems(H, b);

    pt_timing *t = pt_create("solver_phases (batched box-constrained QP)", PT_GPU_EVENTS | PT_TRACE);
    pt_schedule_set(t, WAIT, WARMUP, ACTIVE, 1);
#if defined(__CUDACC__)
    int ndev = 0;
    cudaError_t err = cudaGetDeviceCount(&ndev);
    if (err == cudaSuccess && ndev > 0) {
        struct cudaDeviceProp p;
        cudaGetDeviceProperties(&p, 0);
        printf("GPU: %s: %d steps of %d problems (N = %d) x %d iterations, phases timed in the kernel\n",
               p.name, steps, NPROB, N, ITERS);
        on_gpu = run_gpu(t, steps, H, b, x, res) == 0;
        if (!on_gpu) { /* start over: nothing of the failed run in the figures */
            printf("the GPU run failed; running on the CPU instead\n");
            pt_reset(t);
            pt_schedule_set(t, WAIT, WARMUP, ACTIVE, 1);
            memset(x, 0, sizeof(float) * NPROB * N);
        }
    } else {
        printf("no CUDA device (%s): the same phases run on the CPU through pt_dev.h's host mode\n",
               cudaGetErrorString(err == cudaSuccess ? cudaErrorNoDevice : err));
    }
#else
    printf("built without CUDA: the phases run on the CPU through pt_dev.h's host mode\n");
#endif
    if (!on_gpu) {
        printf("CPU: %d steps of %d problems (N = %d) x %d iterations\n", steps, NPROB, N, ITERS);
        run_cpu(t, steps, H, b, x, res);
    }

    pt_schedule_info si;
    pt_schedule_get(t, &si);
    float worst = 0;
    for (int p = 0; p < NPROB; p++)
        worst = fmaxf(worst, res[p]);
    printf("schedule: wait %u, warmup %u, active %u: %llu of %llu steps recorded\n", si.wait,
           si.warmup, si.active, (unsigned long long)si.recorded, (unsigned long long)si.steps);
    printf("largest projected-gradient norm after the last step: %.3g\n\n", worst);

    pt_log(t, stdout, pt::log_opts().percentages(1));
    sample_write_reports(t, dir, "solver_phases");
    pt_destroy(t);
    free(H); free(b); free(x); free(res);
    return 0;
}
