/* After cuda-samples' matrixMul (Samples/0_Introduction/matrixMul,
 * BSD-3-Clause): C = A B with BLOCK_SIZE x BLOCK_SIZE tiles staged in
 * shared memory, one thread per element of C, the tile loop stepping
 * through A's row of tiles and B's column, the inner product unrolled.
 * Written here in its shape, for the corpus (tests/kernels/corpus.mk).
 * Blocks of 32 x 32 = 1024 threads. Phases: load, mul, store. */
#define K_NPH 3
#define PT_DEV_PHASES 3
#include "../forms.h"

enum { MM_LOAD, MM_MUL, MM_STORE };
#define BLOCK_SIZE 32

extern "C" __global__ void corpus_matmul_tiled(float *C, const float *A, const float *B, int wA,
                                               int wB, K_PARAM)
{
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
    float Csub = 0;
    K_BEGIN;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
        K_MARK(MM_LOAD);
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k)
            Csub += As[ty][k] * Bs[k][tx];
        __syncthreads();
        K_MARK(MM_MUL);
    }
    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
    K_MARK(MM_STORE);
    K_END;
}
