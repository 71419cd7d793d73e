/* A Hopper pipeline as warp-specialized kernels are written: in each block
 * a producer warp fills a ring of shared-memory stages with bulk async
 * copies (cp.async.bulk, the TMA's 1-D form), each stage's arrival counted
 * in bytes by an mbarrier (expect_tx / complete_tx), and four consumer
 * warps sum each stage and hand it back through a second mbarrier. Each
 * role records into its own buffer (PT_DEV_BEGIN_ROLE, per warp, traced);
 * the producer begins a "load" span as it issues a stage's copy and the
 * first consumer warp ends it when the stage is full, so the span runs
 * from one role to the other (the fold pairs it across the roles).
 *
 * sm_90 and later: on an earlier device the launcher says so and runs
 * nothing. The consumers sum with FMAs, not wgmma. */
#define PT_DEV_PER_WARP
#define PT_DEV_TRACING
#define PT_DEV_PHASES 3
#include <pt/pt_dev.h>

#include <cuda_runtime.h>

#include "hopper.cuh"
#include "kernels.h"

namespace {

enum { STAGES = 4, TILE = 1024, CONSUMERS = 4, THREADS = 32 * (1 + CONSUMERS) };

enum { P_WAIT_EMPTY, P_ISSUE };
enum { C_WAIT_FULL, C_SUM, C_RELEASE };
enum { SPAN_LOAD = 0 };

__global__ void __launch_bounds__(THREADS)
bulk_pipeline(const float *in, float *out, int tiles, pt_dev_buf producer, pt_dev_buf consumer)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ alignas(128) float ring[STAGES][TILE];
    __shared__ alignas(8) unsigned long long full[STAGES], empty[STAGES];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float *src = in + (long long)blockIdx.x * tiles * TILE;

    ring_init(full, empty, STAGES, CONSUMERS); /* a consumer warp's arrival each */
    if (warp == 0) {
        PT_DEV_BEGIN_ROLE(producer, 0, 1);
        for (int k = 0; k < tiles; k++) {
            const int s = k % STAGES;
            ring_wait_empty(empty, k, STAGES);
            PT_DEV_MARK(P_WAIT_EMPTY);
            if (lane == 0)
                bulk_load(ring[s], src + (long long)k * TILE, TILE * sizeof(float), &full[s]);
            PT_DEV_SPAN_BEGIN(SPAN_LOAD, k);
            PT_DEV_MARK(P_ISSUE);
        }
        PT_DEV_END(producer);
    } else {
        float acc = 0;
        PT_DEV_BEGIN_ROLE(consumer, 1, CONSUMERS);
        for (int k = 0; k < tiles; k++) {
            const int s = k % STAGES;
            ring_wait_full(full, k, STAGES);
            if (warp == 1)
                PT_DEV_SPAN_END(SPAN_LOAD, k);
            PT_DEV_MARK(C_WAIT_FULL);
            for (int i = threadIdx.x - 32; i < TILE; i += 32 * CONSUMERS)
                acc += ring[s][i];
            PT_DEV_MARK(C_SUM);
            __syncwarp();
            if (lane == 0)
                mbar_arrive(&empty[s]);
            PT_DEV_MARK(C_RELEASE);
        }
        out[blockIdx.x * 32 * CONSUMERS + threadIdx.x - 32] = acc;
        PT_DEV_END(consumer);
    }
#else
    (void)in;
    (void)out;
    (void)tiles;
    (void)producer;
    (void)consumer;
#endif
}

} // namespace

extern "C" int gpu_bulk_pipeline(const float *in, float *out, int blocks, int tiles,
                                 pt_dev_buf producer, pt_dev_buf consumer, pt_stream s)
{
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
        return (int)cudaGetLastError();
    if (major < 9)
        return -1;
    bulk_pipeline<<<blocks, THREADS, 0, (cudaStream_t)s>>>(in, out, tiles, producer, consumer);
    return (int)cudaGetLastError();
}
