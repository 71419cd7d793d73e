/* After flash-attention-minimal's forward kernel (tspeterkim/
 * flash-attention-minimal, flash.cu, Apache-2.0): one block per (batch,
 * head), one thread per query row of a Br-row tile, the head dimension d
 * and the tiles' sizes known only at run time, Q, K, V and the score tile
 * in dynamic shared memory, the outer loop over K/V tiles and the inner
 * over Q tiles, an online softmax with running max m and sum l. Written
 * here in its shape, for the corpus (tests/kernels/corpus.mk). Blocks of
 * Bc = 32 threads. Phases: load_kv, load_q, scores, softmax, pv, stats. */
#define K_NPH 6
#define PT_DEV_PHASES 6
#include "../forms.h"

enum { FA_LOAD_KV, FA_LOAD_Q, FA_SCORES, FA_SOFTMAX, FA_PV, FA_STATS };

extern "C" __global__ void corpus_flash_fwd(const float *Q, const float *K, const float *V,
                                            const int N, const int d, const int Tc, const int Tr,
                                            const int Bc, const int Br, const float softmax_scale,
                                            float *l, float *m, float *O, K_PARAM)
{
    int tx = threadIdx.x, bx = blockIdx.x, by = blockIdx.y;
    int qkv_offset = (bx * gridDim.y * N * d) + (by * N * d);
    int lm_offset = (bx * gridDim.y * N) + (by * N);
    extern __shared__ float sram[];
    int tile_size = Bc * d;
    float *Qi = sram, *Kj = &sram[tile_size], *Vj = &sram[tile_size * 2], *S = &sram[tile_size * 3];
    K_BEGIN;
    for (int j = 0; j < Tc; j++) {
        for (int x = 0; x < d; x++) {
            Kj[(tx * d) + x] = K[qkv_offset + (tile_size * j) + (tx * d) + x];
            Vj[(tx * d) + x] = V[qkv_offset + (tile_size * j) + (tx * d) + x];
        }
        __syncthreads();
        K_MARK(FA_LOAD_KV);
        for (int i = 0; i < Tr; i++) {
            for (int x = 0; x < d; x++)
                Qi[(tx * d) + x] = Q[qkv_offset + (tile_size * i) + (tx * d) + x];
            float row_m_prev = m[lm_offset + (Br * i) + tx];
            float row_l_prev = l[lm_offset + (Br * i) + tx];
            K_MARK(FA_LOAD_Q);
            float row_m = -INFINITY;
            for (int y = 0; y < Bc; y++) {
                float sum = 0;
                for (int x = 0; x < d; x++)
                    sum += Qi[(tx * d) + x] * Kj[(y * d) + x];
                sum *= softmax_scale;
                S[(Bc * tx) + y] = sum;
                if (sum > row_m)
                    row_m = sum;
            }
            K_MARK(FA_SCORES);
            float row_l = 0;
            for (int y = 0; y < Bc; y++) {
                S[(Bc * tx) + y] = __expf(S[(Bc * tx) + y] - row_m);
                row_l += S[(Bc * tx) + y];
            }
            float row_m_new = fmaxf(row_m_prev, row_m);
            float row_l_new = (__expf(row_m_prev - row_m_new) * row_l_prev) +
                              (__expf(row_m - row_m_new) * row_l);
            K_MARK(FA_SOFTMAX);
            for (int x = 0; x < d; x++) {
                float pv = 0;
                for (int y = 0; y < Bc; y++)
                    pv += S[(Bc * tx) + y] * Vj[(y * d) + x];
                O[qkv_offset + (tile_size * i) + (tx * d) + x] =
                    (1 / row_l_new) *
                    ((row_l_prev * __expf(row_m_prev - row_m_new) *
                      O[qkv_offset + (tile_size * i) + (tx * d) + x]) +
                     (__expf(row_m - row_m_new) * pv));
            }
            K_MARK(FA_PV);
            m[lm_offset + (Br * i) + tx] = row_m_new;
            l[lm_offset + (Br * i) + tx] = row_l_new;
            K_MARK(FA_STATS);
        }
        __syncthreads();
    }
    K_END;
}
