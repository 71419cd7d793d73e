/* The three forms of each kernel that make bench-static compiles, chosen by
 * PT_KFORM, so that only the instrumentation differs between them:
 *
 *   0  original   no instrumentation
 *   1  ptkit      pt_dev.h's macros (PT_DEV_DISABLE makes it the original;
 *                 PT_DEV_SHARED=0 keeps the figures in registers)
 *   2  by hand    what a CUDA developer writes instead:
 *                     t0 = clock64(); ... times[i] += clock64() - t0;
 *                 one clock64 read per mark, and thread 0 of the block adds
 *                 the delta to times[block * NPH + phase] in global memory
 *   3  clock      a probe, the floor of a shared-memory mark: thread 0
 *                 reads the clock and stores it in shared memory, loading
 *                 nothing (one asm statement, branched over by the others,
 *                 as ptkit's mark); records nothing usable
 *   4  clockall   a probe, the floor of any clock mark: every thread reads
 *                 the clock and adds it to one register, stored at the end
 *
 * A kernel takes K_PARAM as its last parameter and marks with K_BEGIN,
 * K_MARK(phase), K_END; a helper that marks takes K_HELPER_PARAM, is called
 * with K_HELPER_ARG and marks with K_MARK_IN(phase). The original and the
 * ptkit form take the same pt_dev_buf parameter, so that the disabled ptkit
 * form can be compared with the original PTX for PTX. The kernels define
 * K_NPH, their phase count, before including this file. */
#ifndef PT_TEST_FORMS_H
#define PT_TEST_FORMS_H

#include <pt/pt_dev_buf.h>

#if !defined(PT_KFORM) || PT_KFORM == 0
#  define K_PARAM pt_dev_buf buf
#  define K_BEGIN ((void)0)
#  define K_MARK(phase) ((void)0)
#  define K_END ((void)0)
#  define K_HELPER_PARAM
#  define K_HELPER_ARG
#  define K_MARK_IN(phase) ((void)0)

#elif PT_KFORM == 1
#  include <pt/pt_dev.h>
#  define K_PARAM pt_dev_buf buf
#  define K_BEGIN PT_DEV_BEGIN(buf)
#  define K_MARK(phase) PT_DEV_MARK(phase)
#  define K_END PT_DEV_END(buf)
#  define K_HELPER_PARAM , pt_dev_state *st
#  define K_HELPER_ARG , PT_DEV_STATE
#  define K_MARK_IN(phase) PT_DEV_MARK_IN(st, phase)

#elif PT_KFORM == 2
/* The hand-written pattern's state, for helpers: the last clock read, the
 * block's row of times, and whether this thread writes it. */
struct k_hand {
    long long t0;
    long long *times;
    int rec;
};
static __device__ __forceinline__ void k_hand_mark(struct k_hand *h, int phase)
{
    long long t1 = clock64();
    if (h->rec)
        h->times[phase] += t1 - h->t0;
    h->t0 = t1;
}
#  define K_PARAM long long *times
#  define K_BEGIN                                                                          \
      struct k_hand k_h;                                                                   \
      k_h.rec = (threadIdx.x | threadIdx.y | threadIdx.z) == 0;                            \
      k_h.times = times + (long long)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y *    \
                                                                 blockIdx.z)) * K_NPH;     \
      k_h.t0 = clock64()
#  define K_MARK(phase) k_hand_mark(&k_h, (phase))
#  define K_END ((void)0)
#  define K_HELPER_PARAM , struct k_hand *h
#  define K_HELPER_ARG , &k_h
#  define K_MARK_IN(phase) k_hand_mark(h, (phase))

#elif PT_KFORM == 3
#  define K_PT_NOT_REC 0xfffffff0u
static __device__ __forceinline__ void k_clock_store(unsigned at)
{
    asm volatile("{\n\t.reg .pred k_p;\n\t.reg .b64 k_c;\n\t"
                 "setp.eq.u32 k_p, %0, %1;\n\t"
                 "@k_p bra K_CLOCK_SKIP%=;\n\t"
                 "mov.u64 k_c, %%clock64;\n\t"
                 "st.shared.u64 [%0], k_c;\n"
                 "K_CLOCK_SKIP%=:\n\t}"
                 :
                 : "r"(at), "n"(K_PT_NOT_REC));
}
#  define K_PARAM pt_dev_buf buf
#  define K_BEGIN                                                                          \
      __shared__ long long k_last;                                                        \
      const unsigned k_at = (threadIdx.x | threadIdx.y | threadIdx.z) == 0                \
                                ? (unsigned)__cvta_generic_to_shared(&k_last)             \
                                : K_PT_NOT_REC;                                           \
      (void)buf;                                                                          \
      k_clock_store(k_at)
#  define K_MARK(phase) ((void)(phase), k_clock_store(k_at))
#  define K_END ((void)0)
#  define K_HELPER_PARAM , unsigned k_at
#  define K_HELPER_ARG , k_at
#  define K_MARK_IN(phase) ((void)(phase), k_clock_store(k_at))

#elif PT_KFORM == 4
static __device__ __forceinline__ long long k_clock(void)
{
    long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
    return c;
}
#  define K_PARAM pt_dev_buf buf
#  define K_BEGIN long long k_sum = k_clock()
#  define K_MARK(phase) ((void)(phase), k_sum += k_clock())
#  define K_END                                                                            \
      do {                                                                                 \
          if (k_sum == 1 && buf.data)                                                      \
              buf.data[0] = k_sum;                                                         \
      } while (0)
#  define K_HELPER_PARAM , long long *k_sum
#  define K_HELPER_ARG , &k_sum
#  define K_MARK_IN(phase) ((void)(phase), *k_sum += k_clock())

#else
#  error "PT_KFORM is 0 (original), 1 (ptkit), 2 (by hand), 3 or 4 (probes)"
#endif

#endif
