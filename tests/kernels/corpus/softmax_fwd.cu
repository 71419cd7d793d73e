/* After llm.c's softmax_forward_kernel2 (karpathy/llm.c, dev/cuda/
 * softmax_forward.cu, MIT): one block per row of C values, the block's
 * threads striding over the row, the max and then the sum each reduced
 * through dynamic shared memory by halving, then every value normalized.
 * Written here in its shape, for the corpus (tests/kernels/corpus.mk).
 * Phases: max, sum, write. */
#define K_NPH 3
#define PT_DEV_PHASES 3
#include "../forms.h"

enum { SM_MAX, SM_SUM, SM_WRITE };

extern "C" __global__ void corpus_softmax_fwd(float *out, const float *inp, int N, int C,
                                              K_PARAM)
{
    extern __shared__ float shared[];
    int idx = blockIdx.x, tid = threadIdx.x, block_size = blockDim.x;
    const float *x = inp + idx * C;
    K_BEGIN;
    float maxval = -INFINITY;
    for (int i = tid; i < C; i += block_size)
        maxval = fmaxf(maxval, x[i]);
    shared[tid] = maxval;
    __syncthreads();
    for (int stride = block_size / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (tid < stride)
            shared[tid] = fmaxf(shared[tid], shared[tid + stride]);
    }
    __syncthreads();
    float offset = shared[0];
    K_MARK(SM_MAX);
    for (int i = tid; i < C; i += block_size)
        out[idx * C + i] = expf(x[i] - offset);
    __syncthreads();
    x = out + idx * C;
    float sumval = 0.0f;
    for (int i = tid; i < C; i += block_size)
        sumval += x[i];
    shared[tid] = sumval;
    __syncthreads();
    for (int stride = block_size / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (tid < stride)
            shared[tid] += shared[tid + stride];
    }
    __syncthreads();
    float sum = shared[0];
    K_MARK(SM_SUM);
    for (int i = tid; i < C; i += block_size)
        out[idx * C + i] = x[i] / sum;
    K_MARK(SM_WRITE);
    K_END;
    (void)N;
}
