/* Marks inside __device__ helper functions, as a batched solver does: each
 * block minimises a problem by gradient steps with a backtracking line
 * search; the helpers mark their own phases through the state the kernel
 * passes down (PT_DEV_STATE, PT_DEV_MARK_IN). See forms.h for the three
 * forms; with PT_DEV_DISABLE the ptkit form compiles to the original's PTX. */
#include "pt_bench_solve.h"
#define K_NPH SOLVE_COUNT
#include "forms.h"

/* The sum of v over the block (blockDim.x a multiple of 32, at most 1024). */
static __device__ float block_sum(float v, float *red)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0)
        red[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < blockDim.x / 32 ? red[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    return v;
}

/* f(x) = sum over the block of (a x - b)^2: the gradient of this thread's
 * coordinate, and the block's f. */
static __device__ float gradient(float x, float a, float b, float *f, float *red K_HELPER_PARAM)
{
    float r = a * x - b;
    *f = block_sum(r * r, red);
    K_MARK_IN(SOLVE_GRADIENT);
    return 2.0f * a * r;
}

/* Halves the step until f decreases enough (Armijo). */
static __device__ float line_search(float x, float g, float a, float b, float f, float gg,
                                    float *red K_HELPER_PARAM)
{
    float t = 1.0f;
    for (int k = 0; k < 20; k++) {
        float r = a * (x - t * g) - b;
        float ft = block_sum(r * r, red);
        if (ft <= f - 0.5f * t * gg)
            break;
        t *= 0.5f;
    }
    K_MARK_IN(SOLVE_LINE_SEARCH);
    return t;
}

extern "C" __global__ void solve(const float *A, const float *B, float *X, int iters, K_PARAM)
{
    __shared__ float red[32];
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const float a = A[i], b = B[i];
    float x = X[i], f;

    K_BEGIN;
    for (int it = 0; it < iters; it++) {
        float g = gradient(x, a, b, &f, red K_HELPER_ARG);
        float gg = block_sum(g * g, red);
        if (gg < 1e-12f)
            break;
        float t = line_search(x, g, a, b, f, gg, red K_HELPER_ARG);
        x -= t * g;
        K_MARK(SOLVE_UPDATE);
    }
    X[i] = x;
    K_MARK(SOLVE_STORE);
    K_END;
}
