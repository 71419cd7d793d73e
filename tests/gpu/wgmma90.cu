/* Hopper's own pipeline: the TMA's bulk copies feeding wgmma. In each
 * block of two warp groups, warp 0 (the producer) copies each k-tile's A
 * (64 x 16 halves) and B (16 x 8) into a ring of shared-memory stages by
 * cp.async.bulk, counted in bytes by a "full" mbarrier; the second warp
 * group (the consumers, warps 4 to 7) multiplies each stage by
 * wgmma.mma_async m64n8k16 (f16 in, f32 accumulators) straight from
 * shared memory, keeps one product in flight while it issues the next
 * (wgmma.wait_group 1), and hands a stage back through an "empty"
 * mbarrier once the product that read it is done. Each role records into
 * its own buffer (PT_DEV_BEGIN_ROLE, per warp, traced); a "load" span runs
 * from the producer's issue to the consumers' full wait (across the
 * roles), and an "mma" span from a product's commit to the wait that saw
 * it done: two "mma" spans are open at once in one warp, which only
 * async slices show.
 *
 * Built for sm_90a alone (wgmma is no part of sm_90's portable set):
 * gpu.mk compiles this file so where nvcc knows sm_90a, and defines
 * PT_TEST_SM90A; elsewhere, or on a device other than compute capability
 * 9.0, the launcher says so and runs nothing. The operands lie in shared
 * memory in wgmma's canonical layout without swizzle, K-major: 8 x 8
 * core matrices of 128 contiguous bytes, the two along K 128 bytes apart
 * (the descriptor's leading byte offset), those along M or N 256 bytes
 * apart (its stride byte offset). The host lays each tile out so in
 * global memory, and one 1-D copy moves it. */
#define PT_DEV_PER_WARP
#define PT_DEV_TRACING
#define PT_DEV_PHASES 3
#include <pt/pt_dev.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdlib.h>

#include "hopper.cuh"
#include "kernels.h"

namespace {

enum {
    STAGES = 4,
    TM = 64, TN = 8, TK = 16,              /* one wgmma: m64n8k16 */
    A_HALVES = TM * TK, B_HALVES = TN * TK, /* 2,048 and 256 bytes */
    STAGE_BYTES = 2 * (A_HALVES + B_HALVES),
    THREADS = 256,                         /* a producer warp group, a consumer one */
    ALONG_K = 128, ALONG_MN = 256          /* bytes between core matrices */
};

enum { P_WAIT_EMPTY, P_ISSUE };
enum { C_WAIT_FULL, C_ISSUE, C_WAIT_MMA };
enum { SPAN_LOAD = 0, SPAN_MMA = 1 };

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* A shared-memory matrix descriptor: the start address, the leading and
 * the stride byte offsets (each in 16-byte units, 14 bits), no swizzle,
 * base offset 0. */
__device__ __forceinline__ unsigned long long wg_desc(const void *p, unsigned lead, unsigned stride)
{
    return (unsigned long long)((smem(p) & 0x3ffff) >> 4) |
           (unsigned long long)((lead >> 4) & 0x3fff) << 16 |
           (unsigned long long)((stride >> 4) & 0x3fff) << 32;
}

/* d += a * b for a 64 x 16 tile of A and a 16 x 8 tile of B, both K-major
 * in shared memory; the warp group's 128 threads hold d, 4 floats each. */
__device__ __forceinline__ void wg_mma(float d[4], unsigned long long a, unsigned long long b)
{
    asm volatile("{\n\t.reg .pred acc;\n\t"
                 "setp.ne.b32 acc, %6, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                 "{%0, %1, %2, %3}, %4, %5, acc, 1, 1, 0, 0;\n\t}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(a), "l"(b), "n"(1));
}

__device__ __forceinline__ void wg_fence(float d[4])
{
    asm volatile("wgmma.fence.sync.aligned;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 :
                 : "memory");
}

__device__ __forceinline__ void wg_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/* Until at most `pending` committed groups are still in flight (the
 * accumulators named, so nothing reads them before). */
template <int pending> __device__ __forceinline__ void wg_wait(float d[4])
{
    asm volatile("wgmma.wait_group.sync.aligned %4;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "n"(pending)
                 : "memory");
}
#endif

/* c (blocks x 64 x 8, row-major) = the sum over `tiles` k-tiles of each
 * block's a tile times its b tile, laid out as gpu_wgmma_upload() lays them.
 * `swap` exchanges the descriptors' two byte offsets (the suite's check of
 * which reading the hardware makes of them). */
__global__ void __launch_bounds__(THREADS)
tma_wgmma(const __half *a, const __half *b, float *c, int tiles, int swap, pt_dev_buf producer,
          pt_dev_buf consumer)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ alignas(128) __half sa[STAGES][A_HALVES];
    __shared__ alignas(128) __half sb[STAGES][B_HALVES];
    __shared__ alignas(8) unsigned long long full[STAGES], empty[STAGES];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const unsigned lead = swap ? ALONG_MN : ALONG_K, stride = swap ? ALONG_K : ALONG_MN;

    ring_init(full, empty, STAGES, 4); /* each consumer warp's arrival */
    if (warp == 0) {
        const __half *ga = a + (long long)blockIdx.x * tiles * A_HALVES;
        const __half *gb = b + (long long)blockIdx.x * tiles * B_HALVES;
        PT_DEV_BEGIN_ROLE(producer, 0, 1);
        for (int k = 0; k < tiles; k++) {
            const int s = k % STAGES;
            ring_wait_empty(empty, k, STAGES);
            PT_DEV_MARK(P_WAIT_EMPTY);
            if (lane == 0) {
                bulk_expect(&full[s], STAGE_BYTES);
                bulk_copy(sa[s], ga + (long long)k * A_HALVES, 2 * A_HALVES, &full[s]);
                bulk_copy(sb[s], gb + (long long)k * B_HALVES, 2 * B_HALVES, &full[s]);
            }
            PT_DEV_SPAN_BEGIN(SPAN_LOAD, k);
            PT_DEV_MARK(P_ISSUE);
        }
        PT_DEV_END(producer);
    } else if (warp >= 4) {
        float d[4] = { 0, 0, 0, 0 };
        const int w = warp - 4, row = 16 * w + lane / 4, col = 2 * (lane % 4);
        PT_DEV_BEGIN_ROLE(consumer, 4, 4);
        for (int k = 0; k < tiles; k++) {
            const int s = k % STAGES;
            ring_wait_full(full, k, STAGES);
            if (w == 0)
                PT_DEV_SPAN_END(SPAN_LOAD, k);
            PT_DEV_MARK(C_WAIT_FULL);
            wg_fence(d);
            wg_mma(d, wg_desc(sa[s], lead, stride), wg_desc(sb[s], lead, stride));
            wg_commit();
            if (w == 0)
                PT_DEV_SPAN_BEGIN(SPAN_MMA, k);
            PT_DEV_MARK(C_ISSUE);
            /* The product of k - 1 is done (k's may still run): its stage
             * goes back to the producer. */
            wg_wait<1>(d);
            if (k > 0) {
                if (w == 0)
                    PT_DEV_SPAN_END(SPAN_MMA, k - 1);
                __syncwarp();
                if (lane == 0)
                    mbar_arrive(&empty[(k - 1) % STAGES]);
            }
            PT_DEV_MARK(C_WAIT_MMA);
        }
        wg_wait<0>(d);
        if (w == 0 && tiles > 0)
            PT_DEV_SPAN_END(SPAN_MMA, tiles - 1);
        PT_DEV_MARK(C_WAIT_MMA);
        float *cb = c + (long long)blockIdx.x * TM * TN;
        cb[row * TN + col] = d[0];
        cb[row * TN + col + 1] = d[1];
        cb[(row + 8) * TN + col] = d[2];
        cb[(row + 8) * TN + col + 1] = d[3];
        PT_DEV_END(consumer);
    }
#else
    (void)a;
    (void)b;
    (void)c;
    (void)tiles;
    (void)swap;
    (void)producer;
    (void)consumer;
#endif
}

/* Where element (r, k) of a tile (r along M or N, k along its 16 of K)
 * lies in the canonical layout above, in halves. */
size_t wgmma_at(int r, int k)
{
    return (size_t)(r / 8) * (ALONG_MN / 2) + (size_t)(k / 8) * (ALONG_K / 2) +
           (size_t)(r % 8) * 8 + (size_t)(k % 8);
}

} // namespace

extern "C" int gpu_wgmma_upload(const float *a, const float *b, int blocks, int tiles,
                                void **da, void **db)
{
    size_t na = (size_t)blocks * tiles * A_HALVES, nb = (size_t)blocks * tiles * B_HALVES;
    __half *ha = (__half *)malloc(na * sizeof *ha), *hb = (__half *)malloc(nb * sizeof *hb);
    cudaError_t e = cudaErrorMemoryAllocation;
    *da = *db = NULL;
    if (ha && hb) {
        for (size_t t = 0; t < (size_t)blocks * tiles; t++)
            for (int k = 0; k < TK; k++) {
                for (int m = 0; m < TM; m++)
                    ha[t * A_HALVES + wgmma_at(m, k)] = __float2half(a[(t * TM + m) * TK + k]);
                for (int n = 0; n < TN; n++)
                    hb[t * B_HALVES + wgmma_at(n, k)] = __float2half(b[(t * TK + k) * TN + n]);
            }
        e = cudaMalloc(da, na * sizeof *ha);
        if (e == cudaSuccess)
            e = cudaMalloc(db, nb * sizeof *hb);
        if (e == cudaSuccess)
            e = cudaMemcpy(*da, ha, na * sizeof *ha, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(*db, hb, nb * sizeof *hb, cudaMemcpyHostToDevice);
    }
    free(ha);
    free(hb);
    return (int)e;
}

extern "C" int gpu_wgmma(const void *a, const void *b, float *c, int blocks, int tiles, int swap,
                         pt_dev_buf producer, pt_dev_buf consumer, pt_stream s)
{
#if defined(PT_TEST_SM90A)
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return (int)cudaGetLastError();
    if (major != 9 || minor != 0)
        return -1;
    tma_wgmma<<<blocks, THREADS, 0, (cudaStream_t)s>>>((const __half *)a, (const __half *)b, c,
                                                        tiles, swap, producer, consumer);
    return (int)cudaGetLastError();
#else
    (void)a;
    (void)b;
    (void)c;
    (void)blocks;
    (void)tiles;
    (void)swap;
    (void)producer;
    (void)consumer;
    (void)s;
    return -1;
#endif
}
