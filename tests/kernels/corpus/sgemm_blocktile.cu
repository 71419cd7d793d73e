/* After siboehm/SGEMM_CUDA's 2D block-tiling kernel (kernel 5, MIT): a
 * 128 x 128 tile of C per block of 256 threads, each thread an 8 x 8
 * register tile of it, A's and B's 128 x 8 slices staged in shared
 * memory, the products of register fragments, about 128 registers a
 * thread; and the same at 16 x 8 a thread (128 threads a block), which
 * takes ptxas near its 255-register ceiling. Written here in their shape,
 * for the corpus (tests/kernels/corpus.mk). Phases: load, mul, store. */
#define K_NPH 3
#define PT_DEV_PHASES 3
#include "../forms.h"

enum { BT_LOAD, BT_MUL, BT_STORE };

template <int BM, int BN, int BK, int TM, int TN>
static __device__ __forceinline__ void blocktile(int M, int N, int K, float alpha, const float *A,
                                                 const float *B, float beta, float *C
                                                     K_HELPER_PARAM)
{
    const int threads = (BM / TM) * (BN / TN);
    __shared__ float As[BM * BK], Bs[BK * BN];
    const int tRow = threadIdx.x / (BN / TN), tCol = threadIdx.x % (BN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    float acc[TM * TN] = { 0.0f }, regM[TM], regN[TN];
    (void)M;
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += threads)
            As[i] = A[(i / BK) * K + i % BK];
        for (int i = threadIdx.x; i < BK * BN; i += threads)
            Bs[i] = B[(i / BN) * N + i % BN];
        __syncthreads();
        K_MARK_IN(BT_LOAD);
        A += BK;
        B += BK * N;
        for (int k = 0; k < BK; k++) {
#pragma unroll
            for (int i = 0; i < TM; i++)
                regM[i] = As[(tRow * TM + i) * BK + k];
#pragma unroll
            for (int i = 0; i < TN; i++)
                regN[i] = Bs[k * BN + tCol * TN + i];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i * TN + j] += regM[i] * regN[j];
        }
        __syncthreads();
        K_MARK_IN(BT_MUL);
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) {
            float *c = &C[(tRow * TM + i) * N + tCol * TN + j];
            *c = alpha * acc[i * TN + j] + beta * *c;
        }
    K_MARK_IN(BT_STORE);
}

extern "C" __global__ void __launch_bounds__(256)
    corpus_sgemm_8x8(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                     float *C, K_PARAM)
{
    K_BEGIN;
    blocktile<128, 128, 8, 8, 8>(M, N, K, alpha, A, B, beta, C K_HELPER_ARG);
    K_END;
}

extern "C" __global__ void __launch_bounds__(128)
    corpus_sgemm_16x8(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                      float *C, K_PARAM)
{
    K_BEGIN;
    blocktile<128, 128, 8, 16, 8>(M, N, K, alpha, A, B, beta, C K_HELPER_ARG);
    K_END;
}
