/* After cuda-samples' reduction kernels (Samples/2_Concepts_and_Techniques/
 * reduction, BSD-3-Clause) as a grid-stride sum: blocks past the data
 * return at once, each thread sums a strided slice, the warps reduce by
 * shuffles and the block's warp sums through shared memory, thread 0
 * adding the block's total atomically. Written here in its shape, for the
 * corpus (tests/kernels/corpus.mk). Blocks of 256. Phases: load, reduce. */
#define K_NPH 2
#define PT_DEV_PHASES 2
#include "../forms.h"

enum { RD_LOAD, RD_REDUCE };

extern "C" __global__ void corpus_reduce_early(const float *in, float *out, unsigned n, K_PARAM)
{
    __shared__ float warp_sums[32];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x * blockDim.x >= n)
        return;
    K_BEGIN;
    float sum = 0;
    for (; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    K_MARK(RD_LOAD);
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if ((threadIdx.x & 31) == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
        for (int off = 16; off > 0; off /= 2)
            sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (threadIdx.x == 0)
            atomicAdd(out, sum);
    }
    K_MARK(RD_REDUCE);
    K_END;
}
