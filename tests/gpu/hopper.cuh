/* What the GPU suite's Hopper kernels share (tests/gpu/pipeline90.cu,
 * tests/gpu/wgmma90.cu), sm_90 and later: mbarriers and the TMA's 1-D
 * bulk copy, each the PTX instruction Hopper kernels write, and a ring of
 * stages built of them. */
#ifndef PT_TEST_GPU_HOPPER_CUH
#define PT_TEST_GPU_HOPPER_CUH

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
static __device__ __forceinline__ unsigned smem(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void mbar_init(unsigned long long *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" : : "r"(smem(bar)), "r"(count) : "memory");
}

/* The phase `parity` of bar completed: wait for it, for a second at most.
 * A pipeline whose parities or counts are wrong never completes a phase:
 * past the second the kernel traps, and the launch fails with an error the
 * test reports, where a spin would hang the suite. */
static __device__ __forceinline__ void mbar_wait(unsigned long long *bar, unsigned parity)
{
    unsigned long long t0, t;
    unsigned done;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (;;) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem(bar)), "r"(parity)
                     : "memory");
        if (done)
            return;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > 1000000000ull)
            __trap();
    }
}

static __device__ __forceinline__ void mbar_arrive(unsigned long long *bar)
{
    asm volatile("{\n\t.reg .b64 st;\n\t"
                 "mbarrier.arrive.shared::cta.b64 st, [%0];\n\t}"
                 :
                 : "r"(smem(bar))
                 : "memory");
}

/* The producer's arrival, announcing `bytes` to come into the stage. */
static __device__ __forceinline__ void bulk_expect(unsigned long long *bar, unsigned bytes)
{
    asm volatile("{\n\t.reg .b64 st;\n\t"
                 "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}"
                 :
                 : "r"(smem(bar)), "r"(bytes)
                 : "memory");
}

/* A copy of `bytes` (a multiple of 16, both ends 16-byte aligned) from
 * src into dst, which counts them on bar as they land. */
static __device__ __forceinline__ void bulk_copy(void *dst, const void *src, unsigned bytes,
                                                 unsigned long long *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];"
                 :
                 : "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar))
                 : "memory");
}

/* A ring of `stages` stages: thread 0 sets up each stage's barriers,
 * full[s] completing on the producer's one arrival (and the bytes it
 * announced), empty[s] on `consumers` arrivals; then the whole block
 * waits for that. */
static __device__ __forceinline__ void ring_init(unsigned long long *full,
                                                 unsigned long long *empty, int stages,
                                                 unsigned consumers)
{
    if (threadIdx.x == 0)
        for (int s = 0; s < stages; s++) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], consumers);
        }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
}

/* The producer, before filling round k's stage: its last use (round
 * k / stages - 1) was handed back; the first round's are free. */
static __device__ __forceinline__ void ring_wait_empty(unsigned long long *empty, int k,
                                                       int stages)
{
    if (k >= stages)
        mbar_wait(&empty[k % stages], (k / stages - 1) & 1);
}

/* A consumer, before reading round k's stage: it is full. */
static __device__ __forceinline__ void ring_wait_full(unsigned long long *full, int k, int stages)
{
    mbar_wait(&full[k % stages], (k / stages) & 1);
}

/* Both, for a stage filled by one copy. */
static __device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes,
                                                 unsigned long long *bar)
{
    bulk_expect(bar, bytes);
    bulk_copy(dst, src, bytes, bar);
}
#endif

#endif
