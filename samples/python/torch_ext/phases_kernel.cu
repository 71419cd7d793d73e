/* The torch sample's kernel: three phases per block, recorded by
 * <pt/pt_dev.h> into the buffer ptkit's Python package made. */
#include <pt/pt_dev.h>

#include "phases_kernel.h"

#include <string.h>

static __global__ void phases_step(const float *x, float *y, int n, int rounds, pt_dev_buf buf)
{
    __shared__ float s[PHASES_TILE];
    PT_DEV_BEGIN(buf);
    int i = blockIdx.x * PHASES_TILE + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    PT_DEV_MARK(PH_GATHER);

    float v = s[threadIdx.x];
    for (int k = 0; k < rounds; k++)
        v = 2.5f * v * (1.0f - v);
    s[threadIdx.x] = v;
    __syncthreads();
    PT_DEV_MARK(PH_UPDATE);

    for (int w = PHASES_TILE / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        y[blockIdx.x] = s[0];
    PT_DEV_MARK(PH_REDUCE);
    PT_DEV_END(buf);
}

extern "C" int phases_arg_from_bytes(const void *bytes, size_t n, pt_dev_buf *out)
{
    pt_dev_buf b;
    if (!bytes || !out || n != sizeof b)
        return -1;
    memcpy(&b, bytes, sizeof b);
    /* A buffer for other phases would record into the wrong rows. */
    if (b.data && b.nphases != PH_COUNT)
        return -1;
    *out = b;
    return 0;
}

extern "C" int phases_launch(const float *x, float *y, int n, int rounds, pt_dev_buf buf,
                             void *stream)
{
    int blocks = (n + PHASES_TILE - 1) / PHASES_TILE;
    phases_step<<<blocks, PHASES_TILE, 0, (cudaStream_t)stream>>>(x, y, n, rounds, buf);
    return (int)cudaGetLastError();
}
