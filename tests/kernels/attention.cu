/* An attention forward pass in the shape of the minimal FlashAttention
 * kernels: one block per (batch, head), one thread per query row of a tile;
 * for each tile of keys and values, every tile of queries is loaded, scored,
 * soft-maxed online (running max m and sum l per row) and its output O
 * rescaled. Nested loops and six phases; see forms.h for the three forms.
 * Q, K, V, O are [batch][head][n][D]; n is a multiple of BR and BC; O, l and
 * m start at 0, 0 and -infinity; the dynamic shared memory holds
 * (BR + 2 * BC) * D + BR * BC floats. */
#include "pt_bench_attention.h"
#define K_NPH ATT_COUNT
#include "forms.h"

#define D 64
#define BR 32
#define BC 32

extern "C" __global__ void attention(const float *Q, const float *K, const float *V, int n,
                                     float scale, float *l, float *m, float *O, K_PARAM)
{
    extern __shared__ float sram[];
    float *Qi = sram, *Kj = Qi + BR * D, *Vj = Kj + BC * D, *S = Vj + BC * D;
    const int tx = threadIdx.x;
    const long long qkv = ((long long)blockIdx.x * gridDim.y + blockIdx.y) * n * D;
    const long long lm = ((long long)blockIdx.x * gridDim.y + blockIdx.y) * n;

    K_BEGIN;
    for (int j = 0; j < n / BC; j++) {
        for (int x = 0; x < D; x++) {
            Kj[tx * D + x] = K[qkv + (long long)j * BC * D + tx * D + x];
            Vj[tx * D + x] = V[qkv + (long long)j * BC * D + tx * D + x];
        }
        __syncthreads();
        K_MARK(ATT_LOAD_KV);
        for (int i = 0; i < n / BR; i++) {
            for (int x = 0; x < D; x++)
                Qi[tx * D + x] = Q[qkv + (long long)i * BR * D + tx * D + x];
            float m_prev = m[lm + i * BR + tx], l_prev = l[lm + i * BR + tx];
            K_MARK(ATT_LOAD_Q);

            float m_row = -INFINITY;
            for (int y = 0; y < BC; y++) {
                float s = 0.0f;
                for (int x = 0; x < D; x++)
                    s += Qi[tx * D + x] * Kj[y * D + x];
                s *= scale;
                S[tx * BC + y] = s;
                m_row = fmaxf(m_row, s);
            }
            K_MARK(ATT_SCORES);

            float l_row = 0.0f;
            for (int y = 0; y < BC; y++) {
                S[tx * BC + y] = __expf(S[tx * BC + y] - m_row);
                l_row += S[tx * BC + y];
            }
            float m_new = fmaxf(m_prev, m_row);
            float a = __expf(m_prev - m_new), b = __expf(m_row - m_new);
            float l_new = a * l_prev + b * l_row;
            K_MARK(ATT_SOFTMAX);

            for (int x = 0; x < D; x++) {
                float pv = 0.0f;
                for (int y = 0; y < BC; y++)
                    pv += S[tx * BC + y] * Vj[y * D + x];
                long long o = qkv + (long long)i * BR * D + tx * D + x;
                O[o] = (l_prev * a * O[o] + b * pv) / l_new;
            }
            K_MARK(ATT_PV);

            m[lm + i * BR + tx] = m_new;
            l[lm + i * BR + tx] = l_new;
            K_MARK(ATT_STATS);
        }
        __syncthreads();
    }
    K_END;
}
