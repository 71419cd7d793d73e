/* After the Jacobi relaxations of cuda-samples (Samples/3_CUDA_Features/
 * jacobiCudaGraphs, BSD-3-Clause) as a block-local stencil: each block
 * keeps a 32 x 32 tile (and its halo) in shared memory and relaxes it
 * `iters` times, marks inside the loop at every sweep and copy, the
 * residual reduced at the end. Written here in its shape, for the corpus
 * (tests/kernels/corpus.mk). Blocks of 32 x 32. Phases: sweep, copy,
 * residual. */
#define K_NPH 3
#define PT_DEV_PHASES 3
#include "../forms.h"

enum { JC_SWEEP, JC_COPY, JC_RESIDUAL };
#define T 32

extern "C" __global__ void corpus_jacobi_loop(const float *in, float *out, float *resid, int n,
                                              int iters, K_PARAM)
{
    __shared__ float u[T + 2][T + 2], v[T + 2][T + 2];
    int x = threadIdx.x + 1, y = threadIdx.y + 1;
    int gx = blockIdx.x * T + threadIdx.x, gy = blockIdx.y * T + threadIdx.y;
    float f = in[gy * n + gx];
    u[y][x] = f;
    if (threadIdx.x == 0)
        u[y][0] = u[y][T + 1] = 0;
    if (threadIdx.y == 0)
        u[0][x] = u[T + 1][x] = 0;
    __syncthreads();
    K_BEGIN;
    for (int it = 0; it < iters; it++) {
        v[y][x] = 0.25f * (u[y][x - 1] + u[y][x + 1] + u[y - 1][x] + u[y + 1][x] - f);
        __syncthreads();
        K_MARK(JC_SWEEP);
        u[y][x] = v[y][x];
        __syncthreads();
        K_MARK(JC_COPY);
    }
    float r = u[y][x - 1] + u[y][x + 1] + u[y - 1][x] + u[y + 1][x] - 4 * u[y][x] - f;
    for (int off = 16; off > 0; off /= 2)
        r += __shfl_xor_sync(0xffffffffu, r * r, off);
    if (threadIdx.x == 0)
        atomicAdd(resid, r);
    out[gy * n + gx] = u[y][x];
    K_MARK(JC_RESIDUAL);
    K_END;
}
