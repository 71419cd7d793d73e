/* Marks between a multiply and the add that uses it: where a mark split
 * the kernel's code into basic blocks, NVVM no longer contracted the two
 * into one fma, so the instrumented kernel rounded twice where the kernel
 * without marks rounds once, and computed other bits. Built in every mode
 * of pt_dev.h (tests/kernels/kernels.mk: off, smem, reg, smem_trace,
 * reg_trace, warp); tests/dev_compile.c expects each mode's floating-point
 * instructions to be the PT_DEV_DISABLE build's, one for one and in order.
 * Constant phases, a phase known at run time, a mark in a loop (kept
 * rolled: unrolled, it would be copied as the compiler sees fit) and one
 * in a helper. */
#define PT_DEV_PHASES 4
#include <pt/pt_dev.h>

static __device__ __forceinline__ float helper(float p, float c, pt_dev_state *st)
{
    float q = p * c;
    PT_DEV_MARK_IN(st, 2);
    return q + p;
}

extern "C" __global__ void contract(const float *a, const float *b, const float *c,
                                    const int *kinds, float *o, int n, pt_dev_buf buf)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    PT_DEV_BEGIN(buf);
    float p = a[i] * b[i];
    PT_DEV_MARK(0);
    float q = p + c[i];
    float r = q * a[i];
    PT_DEV_MARK(kinds[blockIdx.x]);
    float s = r + b[i];
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        float t = s * c[k];
        PT_DEV_MARK(1);
        s = t + a[k];
    }
    s = helper(s, c[i], PT_DEV_STATE);
    float u = s * b[i];
    PT_DEV_MARK(3);
    o[i] = u - a[i];
    PT_DEV_END(buf);
}
