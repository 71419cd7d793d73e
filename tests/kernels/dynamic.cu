/* Phases known only at run time: a block walks a queue of work items, each
 * of one of five kinds read from memory, and charges each item to its kind,
 * PT_DEV_MARK(kind). The phases are an enum; PT_DEV_PHASES tells pt_dev.h
 * how many there are. See forms.h for the three forms. */
enum { DYN_SQUARE, DYN_ROOT, DYN_EXP, DYN_POLY, DYN_REDUCE, DYN_COUNT };
#define K_NPH DYN_COUNT
#define PT_DEV_PHASES DYN_COUNT
#include "forms.h"

extern "C" __global__ void dynamic(const int *kinds, const float *x, float *y, int items,
                                   K_PARAM)
{
    __shared__ float red[32];
    const int tid = threadIdx.x;
    float acc = 0.0f;

    K_BEGIN;
    for (int w = 0; w < items; w++) {
        const int kind = kinds[w]; /* the same for the whole block */
        float v = x[(long long)w * blockDim.x + tid];
        switch (kind) {
        case DYN_SQUARE:
            v = v * v;
            break;
        case DYN_ROOT:
            v = sqrtf(fabsf(v));
            break;
        case DYN_EXP:
            v = __expf(-v * v);
            break;
        case DYN_POLY:
            v = ((0.5f * v + 0.25f) * v + 0.125f) * v + 1.0f;
            break;
        default:
            for (int o = 16; o > 0; o /= 2)
                v += __shfl_down_sync(0xffffffffu, v, o);
            if (tid % 32 == 0)
                red[tid / 32] = v;
            __syncthreads();
            v = tid < 32 && tid < (int)blockDim.x / 32 ? red[tid] : 0.0f;
            __syncthreads();
            break;
        }
        acc += v;
        K_MARK(kind);
    }
    y[(long long)blockIdx.x * blockDim.x + tid] = acc;
    K_END;
}
