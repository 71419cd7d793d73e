/* The device code both Python samples launch, from a CuPy RawModule
 * (cupy_phases.py) and from a PyTorch extension (torch_ext/): one block
 * stages a tile of x in shared memory (gather), iterates a logistic map
 * on each element (update; r = 2.5 settles, so float rounding cannot
 * grow and the host can check the result) and sums the tile by halving
 * (reduce), writing the sum to y[block]. PT_DEV_MARK charges each phase
 * its cycles in the buffer ptkit's Python package made. */
#ifndef THREE_PHASES_CUH
#define THREE_PHASES_CUH

#include <pt/pt_dev.h>

enum { PH_GATHER, PH_UPDATE, PH_REDUCE, PH_COUNT };
/* Threads per block: the tile. */
#define THREE_PHASES_TILE 256

static __device__ void three_phases(const float *x, float *y, int n, int rounds, pt_dev_buf buf)
{
    __shared__ float s[THREE_PHASES_TILE];
    PT_DEV_BEGIN(buf);
    int i = blockIdx.x * THREE_PHASES_TILE + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    PT_DEV_MARK(PH_GATHER);

    float v = s[threadIdx.x];
    for (int k = 0; k < rounds; k++)
        v = 2.5f * v * (1.0f - v);
    s[threadIdx.x] = v;
    __syncthreads();
    PT_DEV_MARK(PH_UPDATE);

    for (int w = THREE_PHASES_TILE / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        y[blockIdx.x] = s[0];
    PT_DEV_MARK(PH_REDUCE);
    PT_DEV_END(buf);
}

#endif
