/* Test kernels for the compile checks, written in the C subset and
 * compiled with nvcc -x cu. Each kernel's name ends in marksN, N being its
 * PT_DEV_MARK sites: tests/dev_compile.c expects N + 2 clock reads in its
 * PTX. Loops holding marks carry "#pragma unroll 1" so the compiler cannot
 * copy a mark. Every macro stands on a line of its own, so that deleting
 * those lines gives the uninstrumented kernel. */
#include <pt/pt_dev.h>

#include "pt_test_phases.h"

/* Three phases in a loop and one after it, from a ptgen header. */
__global__ void loop_marks4(const float *x, float *y, int n, int iters, pt_dev_buf buf)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    float acc = 0.0f;
    PT_DEV_BEGIN(buf);
#pragma unroll 1
    for (int it = 0; it < iters; it++) {
        float v = i < n ? x[(i + it) % n] : 0.0f;
        PT_DEV_MARK(PH_LOAD);
        for (int k = 0; k < 8; k++)
            v = v * 1.0001f + 0.5f;
        PT_DEV_MARK(PH_COMPUTE);
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_down_sync(0xffffffffu, v, o);
        PT_DEV_MARK(PH_REDUCE);
        acc += v;
    }
    if (i < n)
        y[i] = acc;
    PT_DEV_MARK(PH_STORE);
    PT_DEV_END(buf);
}

/* A persistent kernel: each block walks work items, one record per item. */
__global__ void persistent_marks2(float *y, int items, int n, pt_dev_buf buf)
{
#pragma unroll 1
    for (int w = (int)blockIdx.x; w < items; w += (int)gridDim.x) {
        float v = (float)w;
        PT_DEV_BEGIN_AT(buf, w);
#pragma unroll 1
        for (int k = 0; k < n; k++)
            v = v * 0.999f + 1.0f;
        PT_DEV_MARK(PH_COMPUTE);
        if (threadIdx.x == 0)
            y[w] = v;
        PT_DEV_MARK(PH_STORE);
        PT_DEV_END(buf);
    }
}

/* A phase computed at run time: allowed, but the accumulators go to local
 * memory (the compile check reports its stack frame, and expects it). */
__global__ void dynamic_marks1(float *y, int iters, pt_dev_buf buf)
{
    float v = 1.0f;
    PT_DEV_BEGIN(buf);
#pragma unroll 1
    for (int it = 0; it < iters; it++) {
        v = v * 1.5f + 0.25f;
        PT_DEV_MARK(it % PH_COUNT);
    }
    y[threadIdx.x] = v;
    PT_DEV_END(buf);
}
