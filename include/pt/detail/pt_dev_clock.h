/* The clocks behind pt_dev.h, one set per mode. Internal: include <pt/pt_dev.h>.
 *
 *   on the GPU (nvcc device pass, NVRTC):  clock64(), %globaltimer, %smid
 *   on the CPU (plain C, nvcc host pass):  the TSC (x86) or nanoseconds,
 *                                          pt_dev_host_ns(), pt_dev_host_cpu()
 *
 * Each function is PT_DEV_FN, so under nvcc it exists on both sides and
 * picks its clock with __CUDA_ARCH__: the same phase code runs on the GPU and
 * on the CPU. No system header is included in any mode. */
#if !defined(PT__DEV_INSIDE)
#  error "include <pt/pt_dev.h>"
#elif !defined(PT_DETAIL_PT_DEV_CLOCK_H)
#define PT_DETAIL_PT_DEV_CLOCK_H

/* 1 where the code being compiled runs on the GPU. Under nvcc it is decided
 * per pass, so it must be tested inside function bodies, never used to
 * declare different things on the two sides. */
#if defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__)
#  define PT__DEV_ON_GPU 1
#else
#  define PT__DEV_ON_GPU 0
#endif

/* Full unrolling is what turns the per-phase arrays into registers, and a
 * loop kept rolled is the smaller code where they are memory; both are
 * only asked of the device compiler, which understands the pragma. */
#if PT__DEV_ON_GPU
#  define PT__DEV_UNROLL _Pragma("unroll")
#  define PT__DEV_NO_UNROLL _Pragma("unroll 1")
#  define PT__DEV_UNROLL2 _Pragma("unroll 2")
#else
#  define PT__DEV_UNROLL
#  define PT__DEV_NO_UNROLL
#  define PT__DEV_UNROLL2
#endif

/* The cycle counter: clock64() on the GPU; on the CPU the TSC where there is
 * one (read with the compiler's builtin, so no <x86intrin.h> is needed), else
 * nanoseconds. */
PT_DEV_FN long long pt__dev_clock(void)
{
#if PT__DEV_ON_GPU
    /* What clock64() reads, without the call clock64() is in -G builds. */
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
    return t;
#elif (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    return (long long)__builtin_ia32_rdtsc();
#else
    return pt_dev_host_ns();
#endif
}

/* Nanoseconds: %globaltimer on the GPU, CLOCK_MONOTONIC on the CPU. */
PT_DEV_FN long long pt__dev_ns(void)
{
#if PT__DEV_ON_GPU
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return (long long)t;
#else
    return pt_dev_host_ns();
#endif
}

/* Where the code runs: %smid on the GPU, the CPU number (or -1) on the host. */
PT_DEV_FN long long pt__dev_where(void)
{
#if PT__DEV_ON_GPU
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return (long long)s;
#else
    return (long long)pt_dev_host_cpu();
#endif
}

/* Counts one bad slot k into the buffer header, and keeps the largest
 * (unsigned, so a negative slot wins) for the fold to name. Many blocks
 * may do it at once on the GPU, and host threads may share a buffer too,
 * so both are atomic.
 * `zero` is 0, but the compiler does not know it: on the GPU it is the
 * recording thread's own index, read again, so the address does not look
 * uniform across the warp and ptxas does not gather the warp's lanes
 * before the add (fifteen instructions, for a count one lane makes). */
PT_DEV_FN void pt__dev_count_bad_slot(long long *data, unsigned zero, unsigned long long k)
{
#if PT__DEV_ON_GPU
    asm volatile("red.global.add.u64 [%0], 1;\n\t"
                 "red.global.max.u64 [%0+8], %1;"
                 : : "l"(&data[PT_DEV_H_BAD_SLOT + zero]), "l"(k) : "memory");
#elif defined(__GNUC__) || defined(__clang__)
    unsigned long long *at = (unsigned long long *)&data[PT_DEV_H_BAD_SLOT_AT + zero];
    unsigned long long was = __atomic_load_n(at, __ATOMIC_RELAXED);
    __atomic_fetch_add(&data[PT_DEV_H_BAD_SLOT + zero], 1LL, __ATOMIC_RELAXED);
    while (k > was && !__atomic_compare_exchange_n(at, &was, k, 1, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {
    }
#else
    data[PT_DEV_H_BAD_SLOT + zero] += 1;
    if (k > (unsigned long long)data[PT_DEV_H_BAD_SLOT_AT + zero])
        data[PT_DEV_H_BAD_SLOT_AT + zero] = (long long)k;
#endif
}

/* Stores two adjacent words, p[0] = a and p[1] = b. On the GPU one 128-bit
 * store: every pair the macros write starts at an even word of a record,
 * and records start 16-byte aligned in a buffer whose data is (the header
 * is 8 words, a record an even number of words; pt__dev_skipped refuses a
 * buffer whose data is not 16-byte aligned). */
PT_DEV_FN void pt__dev_store2(long long *p, long long a, long long b)
{
#if PT__DEV_ON_GPU
    longlong2 v;
    v.x = a;
    v.y = b;
    *(longlong2 *)p = v;
#else
    p[0] = a;
    p[1] = b;
#endif
}

/* Publishes a finished record: DONE += 1, its last write. Readers read
 * the records after the kernel (a copy, the fold, the device reduction,
 * all ordered after it on a stream), when every store of it is visible,
 * so on the GPU it is a plain reduction (a RED, nothing waited for);
 * with PT_DEV_END_RELEASE a release one (sm_70 and later), for a reader
 * that polls the records while the kernel runs: every store before it
 * is then visible before DONE reads 1. On an H100 a release store made
 * END 1,135 cycles instead of 494 (bench-gpu): it waits for the record's
 * stores to reach the GPU's memory. DONE counts: 1 for a record one END
 * wrote, more when several blocks began at one slot (PT_DEV_BEGIN in a
 * host-mode body, a BEGIN_AT slot given twice), which the fold says. */
PT_DEV_FN void pt__dev_publish(long long *rec)
{
#if PT__DEV_ON_GPU && defined(PT_DEV_END_RELEASE) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("red.release.gpu.global.add.u64 [%0], %1;" : : "l"(&rec[PT_DEV_S_DONE]), "l"(1LL)
                 : "memory");
#elif PT__DEV_ON_GPU && defined(PT_DEV_END_RELEASE)
    __threadfence();
    atomicAdd((unsigned long long *)&rec[PT_DEV_S_DONE], 1ULL);
#elif PT__DEV_ON_GPU
    asm volatile("red.global.add.u64 [%0], %1;" : : "l"(&rec[PT_DEV_S_DONE]), "l"(1LL) : "memory");
#elif defined(__GNUC__) || defined(__clang__)
    __atomic_fetch_add(&rec[PT_DEV_S_DONE], 1LL, __ATOMIC_RELEASE);
#else
    rec[PT_DEV_S_DONE] += 1;
#endif
}

#endif
