/* A warp-specialized kernel as people write them for Hopper, in miniature:
 * in each block warp 0 is the producer, loading tiles into a two-stage
 * shared-memory ring, and warps 1..4 the consumers, reducing them; the two
 * hand the stages over through named barriers (bar.sync / bar.arrive),
 * the way TMA producers and wgmma consumers hand them over through
 * mbarriers. Each role records into its own buffer with its own phases
 * (PT_DEV_BEGIN_ROLE, PT_DEV_PER_WARP), folded with pt_dev_fold_role().
 * Built for sm_90 by the test build: it must compile with no stack and
 * no spills (tests/dev_compile.c). */
#define PT_DEV_PER_WARP
#define PT_DEV_PHASES 3
#include <pt/pt_dev.h>

/* The producer's phases (its buffer has 2), and the consumers' (3). */
enum { PROD_WAIT_EMPTY, PROD_LOAD };
enum { CONS_WAIT_FULL, CONS_MATH, CONS_RELEASE };

enum { STAGES = 2, TILE = 128, CONSUMERS = 4, THREADS = 32 * (1 + CONSUMERS) };

/* Named barriers 1 + s (stage s full: the producer arrives, the consumers
 * wait) and 3 + s (stage s empty: the consumers arrive, the producer
 * waits), each counting every thread of the block. */
__device__ __forceinline__ void bar_sync(int id)
{
    asm volatile("bar.sync %0, %1;" : : "r"(id), "r"(THREADS) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id)
{
    asm volatile("bar.arrive %0, %1;" : : "r"(id), "r"(THREADS) : "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS)
roles_reduce(const float *in, float *out, int tiles, pt_dev_buf producer, pt_dev_buf consumer)
{
    __shared__ float ring[STAGES][TILE];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float *src = in + (long long)blockIdx.x * tiles * TILE;

    if (warp == 0) {
        PT_DEV_BEGIN_ROLE(producer, 0, 1);
        for (int t = 0; t < tiles; t++) {
            const int s = t % STAGES;
            if (t >= STAGES)
                bar_sync(3 + s);            /* wait until the consumers freed stage s */
            PT_DEV_MARK(PROD_WAIT_EMPTY);
            for (int i = lane; i < TILE; i += 32)
                ring[s][i] = src[(long long)t * TILE + i];
            PT_DEV_MARK(PROD_LOAD);
            bar_arrive(1 + s);              /* stage s is full */
        }
        PT_DEV_END(producer);
    } else {
        PT_DEV_BEGIN_ROLE(consumer, 1, CONSUMERS);
        float acc = 0;
        for (int t = 0; t < tiles; t++) {
            const int s = t % STAGES;
            bar_sync(1 + s);                /* wait for stage s */
            PT_DEV_MARK(CONS_WAIT_FULL);
            const int i = threadIdx.x - 32;
            acc += ring[s][i] * ring[s][i];
            PT_DEV_MARK(CONS_MATH);
            if (t + STAGES < tiles)
                bar_arrive(3 + s);          /* stage s is free again */
            PT_DEV_MARK(CONS_RELEASE);
        }
        out[(long long)blockIdx.x * (THREADS - 32) + threadIdx.x - 32] = acc;
        PT_DEV_END(consumer);
    }
}
