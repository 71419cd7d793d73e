/* After the conjugate-gradient step of cuda-samples' conjugateGradient
 * samples (Samples/4_CUDA_Libraries/conjugateGradientMultiBlockCG,
 * BSD-3-Clause) on one block: a sparse matrix-vector product in CSR form
 * and dot products, each a __device__ function that marks its own phase
 * through the timing state, called from a loop. Written here in its
 * shape, for the corpus (tests/kernels/corpus.mk). Blocks of 512.
 * Phases: spmv, dot, axpy. */
#define K_NPH 3
#define PT_DEV_PHASES 3
#include "../forms.h"

enum { CG_SPMV, CG_DOT, CG_AXPY };

static __device__ __noinline__ float block_dot(const float *a, const float *b, int n,
                                               float *scratch K_HELPER_PARAM)
{
    float s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += a[i] * b[i];
    for (int off = 16; off > 0; off /= 2)
        s += __shfl_xor_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0)
        scratch[threadIdx.x / 32] = s;
    __syncthreads();
    s = 0;
    for (int w = 0; w < (int)blockDim.x / 32; w++)
        s += scratch[w];
    __syncthreads();
    K_MARK_IN(CG_DOT);
    return s;
}

static __device__ void spmv(const int *rows, const int *cols, const float *vals, const float *x,
                            float *y, int n K_HELPER_PARAM)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float s = 0;
        for (int k = rows[i]; k < rows[i + 1]; k++)
            s += vals[k] * x[cols[k]];
        y[i] = s;
    }
    __syncthreads();
    K_MARK_IN(CG_SPMV);
}

extern "C" __global__ void corpus_cg_helpers(const int *rows, const int *cols, const float *vals,
                                             float *x, float *r, float *p, float *Ap, int n,
                                             int iters, K_PARAM)
{
    __shared__ float scratch[32];
    K_BEGIN;
    float rr = block_dot(r, r, n, scratch K_HELPER_ARG);
    for (int it = 0; it < iters && rr > 1e-12f; it++) {
        spmv(rows, cols, vals, p, Ap, n K_HELPER_ARG);
        float alpha = rr / block_dot(p, Ap, n, scratch K_HELPER_ARG);
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            x[i] += alpha * p[i];
            r[i] -= alpha * Ap[i];
        }
        __syncthreads();
        K_MARK(CG_AXPY);
        float rr_new = block_dot(r, r, n, scratch K_HELPER_ARG);
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            p[i] = r[i] + (rr_new / rr) * p[i];
        __syncthreads();
        K_MARK(CG_AXPY);
        rr = rr_new;
    }
    K_END;
}
