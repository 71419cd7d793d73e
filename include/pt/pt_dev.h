/** \file pt_dev.h
 *  \brief In-kernel phase timing: clock64() deltas per thread block for
 *  enumerated phases, written into a pt_dev_buf (see pt_dev_buf.h) that the
 *  host folds into its tree of sections with pt_dev_fold().
 *
 *  \code
 *  #include <pt/pt_dev.h>
 *  __global__ void step(float *x, pt_dev_buf buf) {
 *      PT_DEV_BEGIN(buf);
 *      for (int it = 0; it < n; it++) {
 *          angular_scattering(x);  PT_DEV_MARK(PH_ANGULAR);
 *          energy_loss(x);         PT_DEV_MARK(PH_ENERGY);
 *      }
 *      PT_DEV_END(buf);
 *  }
 *  \endcode
 *
 *  What happens:
 *  - PT_DEV_BEGIN(buf) declares the timing state (it is a declaration, so
 *    it comes once per function, before the marks, at block scope). Every
 *    thread reads clock64; the recording thread also reads %smid and
 *    %globaltimer. The recording thread is thread (0,0,0) of the block, or
 *    lane 0 of each warp with PT_DEV_PER_WARP.
 *  - PT_DEV_MARK(phase) charges the cycles since the previous mark (or
 *    BEGIN) to `phase` and counts one hit; a phase marked many times, in a
 *    loop, accumulates. Every thread does the arithmetic, in registers, so
 *    marks never diverge; only the recording thread's figures are written.
 *  - PT_DEV_END(buf) writes the record once: the recording thread reads
 *    clock64, %globaltimer and %smid again, writes the slot header and the
 *    (cycles, hits) pair of every phase below min(buf.nphases,
 *    PT_DEV_MAX_PHASES), marked or not, then, after a __threadfence(),
 *    PT_DEV_S_DONE = 1. `buf` must be the buffer given to BEGIN.
 *
 *  The slot: PT_DEV_BEGIN(buf) uses the linear block index
 *  (x + gridDim.x * (y + gridDim.y * z)), or with PT_DEV_PER_WARP
 *  block * warps_per_block + warp, where the warp is the linear thread index
 *  / 32. PT_DEV_BEGIN_AT(buf, slot) names the slot instead (persistent
 *  kernels, the CPU). A slot outside [0, buf.nslots) is counted with one
 *  atomic add into data[PT_DEV_H_BAD_SLOT] and nothing else is written. A
 *  buffer with data == NULL or nslots == 0 (what pt_dev_arg(NULL) gives) is
 *  skipped entirely.
 *
 *  Phases: use constants (enum members, as a ptgen header makes). The
 *  accumulators are arrays of PT_DEV_MAX_PHASES that the compiler keeps in
 *  registers as long as every index is a compile-time constant; only the
 *  phases a kernel marks cost registers (two 64-bit values each). A phase
 *  computed at run time works, but puts the arrays in local memory (a stack
 *  frame of at least 16 * PT_DEV_MAX_PHASES bytes, and a local load and
 *  store per mark). A phase below 0 or not below min(buf.nphases, PT_DEV_MAX_PHASES)
 *  is never written out of bounds: its marks are counted in the record's
 *  PT_DEV_S_BAD_PHASE, and its cycles stay unattributed.
 *
 *  Trace mode (buf.mode == PT_DEV_MODE_TRACE): the recording thread also
 *  stores (phase, clock64) at each mark, the clock value the mark itself
 *  read, into its record's event area. Past buf.trace_cap events the marks
 *  are counted in PT_DEV_S_DROPPED. Nothing is lost silently. An
 *  out-of-range phase is stored as given; readers check it.
 *
 *  Cost: a mark is one clock64 read, a 64-bit subtract, an add, a move and
 *  the hit increment, plus a test of the trace pointer that is uniform
 *  outside trace mode. The clock read is `volatile`, so marks keep their
 *  order, but the compiler may still move independent arithmetic or loads
 *  across a mark; the phases are as exact as clock64() makes them.
 *
 *  Modes (one qualifier, PT_DEV_FN, decides):
 *  - nvcc: the functions are __host__ __device__; on the GPU they read
 *    clock64(), %globaltimer and %smid; on the CPU the host clocks below,
 *    so the same phase code runs in a __host__ __device__ function on both.
 *  - NVRTC: device only, and no system header is included (pass the headers
 *    from pt_nvrtc_headers() to nvrtcCreateProgram).
 *  - plain C (or the CPU side of nvcc): "clock64" is the TSC on x86
 *    (elsewhere nanoseconds), "%globaltimer" is pt_dev_host_ns(), "%smid" is
 *    pt_dev_host_cpu(); these come from libptkit. There is no block, so the
 *    caller names the slot with PT_DEV_BEGIN_AT (PT_DEV_BEGIN is slot 0), and
 *    the buffer lives in host memory (pt_dev_records_create with PT_DEV_HOST).
 *
 *  Options, defined before including this header:
 *  - PT_DEV_DISABLE: every macro is ((void)0); the kernel compiles exactly
 *    as if the macro lines were not there. A parameter only the macros
 *    read is then unused: in host C built with -Wunused-parameter, say
 *    (void)buf.
 *  - PT_DEV_MAX_PHASES (default 16): the size of the per-thread arrays, the
 *    highest phase + 1 a mark can record. A ptgen header with more phases
 *    defines it to its count (or stops the build when pt_dev.h came first
 *    with a smaller value).
 *  - PT_DEV_PER_WARP: one record per warp instead of per block.
 *  - PT_DEV_NO_TRACE: no trace stores compiled in; on a trace buffer every
 *    event counts as dropped. */
#ifndef PT_PT_DEV_H
#define PT_PT_DEV_H

#include <pt/pt_dev_buf.h>

#ifndef PT_DEV_MAX_PHASES
/** The per-thread accumulator count: marks of phases >= this are bad. */
#  define PT_DEV_MAX_PHASES 16
#endif
#if PT_DEV_MAX_PHASES < 1 || PT_DEV_MAX_PHASES > 1024
#  error "PT_DEV_MAX_PHASES must be between 1 and 1024"
#endif

/* One qualifier decides the mode. */
#if defined(__CUDACC_RTC__)
#  define PT_DEV_FN static __forceinline__ __device__
#elif defined(__CUDACC__)
#  define PT_DEV_FN static __forceinline__ __host__ __device__
#else /* plain C: host cycle counter, same semantics */
#  define PT_DEV_FN static inline
#endif

#if !defined(__CUDACC_RTC__)
#  ifndef PT_EXTERN
#    define PT_EXTERN __attribute__((visibility("default")))
#  endif
#  ifdef __cplusplus
extern "C" {
#  endif
/** \brief Host mode's "%globaltimer": CLOCK_MONOTONIC in nanoseconds.
 *  \return nanoseconds from an arbitrary fixed origin, never decreasing. */
PT_EXTERN long long pt_dev_host_ns(void);
/** \brief Host mode's "%smid": the CPU the calling thread runs on.
 *  \return the CPU number (sched_getcpu), or -1 where it is unknown. */
PT_EXTERN int pt_dev_host_cpu(void);
#  ifdef __cplusplus
}
#  endif
#endif

#if defined(PT_DEV_DISABLE)

#  define PT_DEV_BEGIN(buf) ((void)0)
#  define PT_DEV_BEGIN_AT(buf, slot) ((void)0)
#  define PT_DEV_MARK(phase) ((void)0)
#  define PT_DEV_END(buf) ((void)0)

#else

#  define PT__DEV_INSIDE 1
#  include <pt/detail/pt_dev_clock.h>
#  include <pt/detail/pt_dev_impl.h>
#  undef PT__DEV_INSIDE

/** \brief Start timing this block's (or warp's) phases into `buf`, a
 *  pt_dev_buf passed to the kernel by value. A declaration: once per
 *  function, before its marks. On the CPU it uses slot 0. */
#  define PT_DEV_BEGIN(buf) pt__dev_state pt__dev_st = pt__dev_begin((buf), PT__DEV_AUTO)
/** \brief As PT_DEV_BEGIN, into record `slot` (an integer) of `buf`. */
#  define PT_DEV_BEGIN_AT(buf, slot) \
    pt__dev_state pt__dev_st = pt__dev_begin((buf), (long long)(slot))
/** \brief Charge the cycles since the previous mark (or BEGIN) to `phase`
 *  (an integer, ideally a constant) and count one hit. */
#  define PT_DEV_MARK(phase) \
    do { pt__dev_mark(&pt__dev_st, (long long)(phase)); } while (0)
/** \brief Write the record: the slot header and every phase's (cycles,
 *  hits), then DONE = 1. `buf` is the buffer given to BEGIN. */
#  define PT_DEV_END(buf) \
    do { pt__dev_end(&pt__dev_st, (buf)); } while (0)

#endif

#endif
