/* After llm.c's layernorm_forward_kernel3 (karpathy/llm.c, dev/cuda/
 * layernorm_forward.cu, MIT): one warp per row of C channels, the mean and
 * then the variance reduced across the warp by shuffles, mean and rstd
 * stored, then each channel normalized, scaled and shifted. Written here
 * in its shape, for the corpus (tests/kernels/corpus.mk). Blocks of 256.
 * Phases: mean, rstd, write. */
#define K_NPH 3
#define PT_DEV_PHASES 3
#include "../forms.h"

enum { LN_MEAN, LN_RSTD, LN_WRITE };

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

extern "C" __global__ void corpus_layernorm_fwd(float *out, float *mean, float *rstd,
                                                const float *inp, const float *weight,
                                                const float *bias, int N, int C, K_PARAM)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    int idx = blockIdx.x * nwarps + warp;
    if (idx >= N)
        return;
    const float *x = inp + idx * C;
    K_BEGIN;
    float sum = 0.0f;
    for (int i = lane; i < C; i += 32)
        sum += x[i];
    float m = warp_sum(sum) / C;
    if (lane == 0 && mean)
        mean[idx] = m;
    K_MARK(LN_MEAN);
    sum = 0.0f;
    for (int i = lane; i < C; i += 32) {
        float diff = x[i] - m;
        sum += diff * diff;
    }
    float s = rsqrtf(warp_sum(sum) / C + 1e-5f);
    if (lane == 0 && rstd)
        rstd[idx] = s;
    K_MARK(LN_RSTD);
    float *o = out + idx * C;
    for (int c = lane; c < C; c += 32) {
        float n = s * (__ldcs(x + c) - m);
        __stcs(o + c, n * weight[c] + bias[c]);
    }
    K_MARK(LN_WRITE);
    K_END;
}
