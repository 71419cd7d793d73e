/* A tiled shared-memory SGEMM, C = alpha * A B + beta * C (row-major, M x K
 * times K x N), as it is first written when learning CUDA: 32 x 32 tiles, one
 * block of 1024 threads per tile of C, one element of C per thread. Phases:
 * load (a tile of A and of B into shared memory), mma (the tile's products),
 * store (the element of C). See forms.h for the three forms. M, N and K are
 * multiples of 32. */
#define K_NPH 3
#include "forms.h"
#include "pt_bench_gemm.h"

#define TILE 32

extern "C" __global__ void gemm(int M, int N, int K, float alpha, const float *A,
                                const float *B, float beta, float *C, K_PARAM)
{
    __shared__ float As[TILE * TILE], Bs[TILE * TILE];
    const int row = threadIdx.x / TILE, col = threadIdx.x % TILE;
    float acc = 0.0f;

    A += (long long)blockIdx.y * TILE * K;
    B += blockIdx.x * TILE;
    C += (long long)blockIdx.y * TILE * N + blockIdx.x * TILE;
    (void)M;
    K_BEGIN;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[row * TILE + col] = A[row * K + col];
        Bs[row * TILE + col] = B[row * N + col];
        __syncthreads();
        K_MARK(GEMM_LOAD);
        A += TILE;
        B += TILE * N;
        for (int k = 0; k < TILE; k++)
            acc += As[row * TILE + k] * Bs[k * TILE + col];
        __syncthreads();
        K_MARK(GEMM_MMA);
    }
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
    K_MARK(GEMM_STORE);
    K_END;
}
