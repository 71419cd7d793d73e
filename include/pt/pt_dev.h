/** \file pt_dev.h
 *  \brief In-kernel phase timing: clock64() deltas per thread block for
 *  enumerated phases, written into a pt_dev_buf (see pt_dev_buf.h) that the
 *  host folds into its tree of sections with pt_dev_fold().
 *
 *  \code
 *  #include <pt/pt_dev.h>   // and ptgen's header of the phase list: PH_*, PT_DEV_PHASES
 *
 *  __device__ float line_search(float *x, pt_dev_state *st) {
 *      ...
 *      PT_DEV_MARK_IN(st, PH_LINE_SEARCH);  // a mark in a helper
 *      return t;
 *  }
 *  __global__ void step(float *x, pt_dev_buf buf) {
 *      PT_DEV_BEGIN(buf);
 *      for (int it = 0; it < n; it++) {
 *          gradient(x);                      PT_DEV_MARK(PH_GRADIENT);
 *          float t = line_search(x, PT_DEV_STATE);
 *          update(x, t);                     PT_DEV_MARK(PH_UPDATE);
 *      }
 *      PT_DEV_END(buf);
 *  }
 *  \endcode
 *
 *  What happens:
 *  - PT_DEV_BEGIN(buf) declares the timing state (it is a declaration, so
 *    it comes once per function, before the marks, at block scope). Every
 *    thread reads clock64 and %globaltimer; nothing else, no branch.
 *  - PT_DEV_MARK(phase) charges the cycles since the previous mark (or
 *    BEGIN) to `phase` and counts one hit; a phase marked many times, in a
 *    loop, accumulates. Every thread reads the clock; only the recording
 *    thread's figures are kept. The recording thread is thread (0,0,0) of
 *    the block, or lane 0 of each warp with PT_DEV_PER_WARP. Where the
 *    figures are kept is the mode (PT_DEV_SHARED below): by default under
 *    nvcc and NVRTC, in a __shared__ array PT_DEV_BEGIN declares (16 bytes
 *    per phase + 48; the recording thread alone reads the clock and adds
 *    to it, as the hand-written `if (tid == 0) times[i] += ...` does in
 *    global memory); otherwise in registers on every thread (no branch,
 *    no memory, but registers per phase).
 *  - PT_DEV_STATE is a `pt_dev_state *` to this function's state, for a
 *    `__device__` helper that marks with PT_DEV_MARK_IN(st, phase). Let
 *    the compiler inline the helper (a helper in the same file usually is;
 *    `__forceinline__` makes sure): the state then stays in registers. A
 *    helper that is not inlined takes the state through local memory (a
 *    stack frame of sizeof(pt_dev_state): the last clock and a pointer to
 *    the shared array, or in register mode every accumulator).
 *  - PT_DEV_END(buf) writes the record once, on the recording thread: it
 *    reads clock64 and %globaltimer, storing each at once, copies the
 *    (cycles, hits) pair of the first PT_DEV_PHASES phases one a turn,
 *    writes the rest of the slot header and then adds 1 to DONE (a plain
 *    reduction: the records are read after the kernel; PT_DEV_END_RELEASE
 *    makes it a release one, for a reader during it; a slot two blocks
 *    wrote reads 2, which the fold says and leaves out). `buf` must be
 *    the buffer given to BEGIN. In C++ (nvcc, NVRTC, a C++ host
 *    compiler) BEGIN also declares a guard that runs END when the function leaves BEGIN's
 *    scope by any return, so `if (idx >= n) return;` after BEGIN still
 *    writes the block's record (its time unattributed); an explicit END
 *    before that makes the guard's do nothing. In C every return after
 *    BEGIN must pass END. A block that returns before BEGIN writes no
 *    record: under PT_LAUNCH, whose records hold exactly the grid, the
 *    fold counts it and says so (an error); put BEGIN first.
 *
 *  The slot: PT_DEV_BEGIN(buf) uses the linear block index
 *  (x + gridDim.x * (y + gridDim.y * z)), or with PT_DEV_PER_WARP
 *  block * warps_per_block + warp, where the warp is the linear thread index
 *  / 32. PT_DEV_BEGIN_AT(buf, slot) names the slot instead (persistent
 *  kernels, the CPU). A slot outside [0, buf.nslots) is counted with one
 *  atomic add into data[PT_DEV_H_BAD_SLOT] and kept, the largest as
 *  unsigned, in data[PT_DEV_H_BAD_SLOT_AT] (the fold names it); nothing
 *  else is written. A buffer with data == NULL (what pt_dev_arg(NULL)
 *  gives) is skipped entirely, whatever its shape says. A pt_dev_buf comes
 *  from pt_dev_arg(): its data is 16-byte aligned and its shape below
 *  PT_DEV_SHAPE_MAX.
 *
 *  Phases: PT_DEV_PHASES (a ptgen header sets it to its count) says how
 *  many the marks, BEGIN and END that follow use; each macro reads it where
 *  it stands, so the header may come before or after this one. In shared
 *  memory a mark adds into its phase's pair, a phase computed at run time
 *  as cheaply as a constant one. In register mode a mark of a constant
 *  phase is one add into that phase's registers; a mark of a phase
 *  computed at run time compares it with each of the PT_DEV_PHASES phases
 *  and adds into the one it is (registers still, no local memory).
 *  A phase below 0 or not below PT_DEV_PHASES, or one the buffer does not
 *  have (below min(buf.nphases, PT_DEV_PHASES) is recorded), is never
 *  written out of bounds: its marks are counted in the record's
 *  PT_DEV_S_BAD_PHASE, and its cycles stay unattributed.
 *
 *  Trace mode (buf.mode == PT_DEV_MODE_TRACE) needs trace stores, compiled
 *  in only with PT_DEV_TRACING: the recording thread then also stores
 *  (phase, clock64) at each mark, the clock value the mark itself read,
 *  into its record's event area. Past buf.trace_cap events the marks are
 *  counted in PT_DEV_S_DROPPED. Without PT_DEV_TRACING a mark stores
 *  nothing, and a trace buffer's record says that no event was stored nor
 *  dropped: pt_dev_fold() counts all its marks as dropped events and says
 *  why. Nothing is lost silently. An out-of-range phase is stored as given;
 *  readers check it.
 *
 *  Cost (nvcc 13, sm_90; `make bench-static` measures both modes, against
 *  the hand-written `t1 = clock64(); if (tid == 0) times[i] += t1 - t0;
 *  t0 = t1`, on an SGEMM of 1024-thread blocks (3 phases), an attention
 *  pass (6), a kernel with 5 run-time phases and a solver marking 4 in its
 *  helpers):
 *  - shared memory (the default): the kernel holds the array's address
 *    (which says which thread records), whatever the phases: registers
 *    are at or below the hand-written pattern's on all four (32, 63, 30,
 *    32 against 32, 64, 32, 32; without marks 32, 64, 25, 30), no stack,
 *    so occupancy is the pattern's. A mark is, on the recording thread,
 *    a clock read, a 128-bit and a 64-bit shared load, two 64-bit adds
 *    and the two stores, about 10 instructions where it stands, predicated
 *    or branched around by ptxas (the other threads skip it), as the
 *    pattern's global load, add and store. A run-time phase costs a few
 *    instructions more than a constant one, and no register. END copies
 *    the pairs in a loop, so its code does not grow with the phases:
 *    BEGIN + one mark + END is 101 instructions with 1 phase, 110 with 3,
 *    152 with 16. The array takes 16 * (PT_DEV_PHASES + 3) bytes of
 *    shared memory per BEGIN.
 *  - registers (PT_DEV_SHARED=0): a mark of a constant phase is a clock
 *    read and a 64-bit add, about 3 instructions; each phase a kernel marks
 *    holds 2 to 4 registers (uniform ones where the code is converged) and
 *    END stores its pair unrolled. A run-time phase compares with each
 *    phase, about 5 instructions and registers for every phase: the
 *    run-time kernel goes from 25 to 32 registers and the solver from 30
 *    to 40, so sm_90 holds 51 warps per SM instead of 64 for the solver.
 *  - END's fixed cost, in both: the recording check, the slot and its
 *    bound (a bad slot is one atomic add), the NULL-buffer test,
 *    %globaltimer, clock64 and %smid, the header's stores, and the
 *    increment of DONE (a RED; with PT_DEV_END_RELEASE a release one, on
 *    sm_90 a MEMBAR.ALL.GPU, two error barriers and the RED), about 60
 *    to 90 instructions that the hand-written pattern does not pay,
 *    since it writes no record. So against the pattern ptkit adds more code where a kernel has few
 *    marks: in shared memory 3.8 times the pattern's code on the SGEMM
 *    (+129 against +34 instructions), 3.0 on the attention pass, 4.4 on
 *    the run-time phases (the compiler unrolls that kernel's loop three
 *    times, as it does the pattern's), 3.5 on the solver; in registers
 *    3.1, 2.7, 0.9 and 2.7.
 *  - the clock read is `volatile`, so marks keep their order, but the
 *    compiler may still move independent arithmetic or loads across a
 *    mark; the phases are as exact as clock64() makes them. A mark never
 *    changes what the kernel computes: on the GPU it is one asm statement
 *    (its branch inside), so it splits no basic block and NVVM contracts
 *    the kernel's multiplies and adds into fma exactly as without marks
 *    (docs/cost.md; one exception: register mode's mark of a phase known
 *    only at run time when there are more than 8 phases).
 *  What raises the cost: more mark sites (shared memory) or more phases
 *  (registers: PT_DEV_PHASES, or the default 16 when no ptgen header sets
 *  it), marks of phases computed at run time in register mode (each
 *  compares with every phase), PT_DEV_TRACING (a store per mark), helpers
 *  the compiler does not inline (the state goes to local memory), and -G
 *  builds, which keep the state in local memory (stack) but stay within 64
 *  registers in either mode, so 1024-thread blocks still launch.
 *
 *  Modes (one qualifier, PT_DEV_FN, decides):
 *  - nvcc: the functions are __host__ __device__; on the GPU they read
 *    clock64, %globaltimer and %smid; on the CPU the host clocks below,
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
 *  - PT_DEV_DISABLE: every macro is a void expression that names its
 *    arguments only in sizeof (PT_DEV_STATE is a null pointer); the kernel
 *    compiles exactly as if the macro lines were not there, helpers taking
 *    the state included once inlined, and a parameter only the macros read
 *    is still used (no unused-parameter warning under -Werror).
 *  - PT_DEV_PHASES: the phases the kernels mark, an integer literal (or a
 *    constant expression when no ptgen header follows); default
 *    PT_DEV_MAX_PHASES.
 *  - PT_DEV_MAX_PHASES (default 16): the size of the per-thread arrays, the
 *    highest phase + 1 a mark can record. A ptgen header with more phases
 *    defines it to its count (or stops the build when pt_dev.h came first
 *    with a smaller value).
 *  - PT_DEV_SHARED: 1 keeps the block's figures in a __shared__ array
 *    (the default under nvcc and NVRTC: registers at most the hand-written
 *    pattern's, whatever the phases), 0 in registers (the default of plain
 *    C and of PT_DEV_PER_WARP: fewer instructions per mark, registers per
 *    phase). Per-warp records keep registers, since a shared array for
 *    every warp would need the block size at compile time; defining
 *    PT_DEV_SHARED=1 with PT_DEV_PER_WARP stops the build. -G builds stay
 *    within 64 registers in either mode. The array adds 16 *
 *    (PT_DEV_PHASES + 3) bytes to the kernel's static shared memory: a
 *    kernel that asks for every byte of the SM's shared memory (or whose
 *    occupancy shared memory limits) is better served by PT_DEV_SHARED=0.
 *  - PT_DEV_PER_WARP: one record per warp instead of per block.
 *  - PT_DEV_TRACING: the trace stores, for trace buffers. PT_DEV_NO_TRACE,
 *    their absence, is the default and still accepted. */
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
#ifndef PT_DEV_PHASES
/** The phases the marks that follow may use; a ptgen header sets it to its
 *  count, and it is read where each macro stands. The default is an
 *  enumerator, not a macro, so a `#define PT_DEV_PHASES n` after the
 *  include (or a ptgen header's) replaces it where the macros that follow
 *  stand, with no redefinition to warn of. */
enum { PT_DEV_PHASES = PT_DEV_MAX_PHASES };
/* Says that the value is this default, which a ptgen header replaces. */
#  define PT__DEV_PHASES_DEFAULT 1
#endif
/* Where the accumulators live: shared memory (1) or registers (0). */
#if defined(PT_DEV_SHARED)
#  if (PT_DEV_SHARED + 0) && defined(PT_DEV_PER_WARP)
#    error "PT_DEV_PER_WARP keeps its accumulators in registers: leave PT_DEV_SHARED undefined or 0"
#  endif
#  define PT__DEV_SMEM (PT_DEV_SHARED + 0)
#elif (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && !defined(PT_DEV_PER_WARP)
#  define PT__DEV_SMEM 1
#else
#  define PT__DEV_SMEM 0
#endif
#if defined(PT_DEV_TRACING) && defined(PT_DEV_NO_TRACE)
#  error "PT_DEV_TRACING compiles the trace stores in, PT_DEV_NO_TRACE leaves them out: define one"
#endif

/* One qualifier decides the mode. */
#if defined(__CUDACC_RTC__)
#  define PT_DEV_FN static __forceinline__ __device__
#elif defined(__CUDACC__)
#  define PT_DEV_FN static __forceinline__ __host__ __device__
#else /* plain C: host cycle counter, same semantics */
#  define PT_DEV_FN static inline
#endif

/* The null pointer, spelled so C++ builds with -Wzero-as-null-pointer-constant stay quiet. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#  define PT__DEV_NULL nullptr
#else
#  define PT__DEV_NULL 0
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

/** \brief The timing state of one PT_DEV_BEGIN..PT_DEV_END: what a
 *  `__device__` helper takes (as `pt_dev_state *`) to mark with
 *  PT_DEV_MARK_IN. Its members are internal. */
typedef struct pt_dev_state pt_dev_state;

#if defined(PT_DEV_DISABLE)

/* The arguments are named in sizeof, never evaluated: a parameter only
 * the macros read stays used (no unused-parameter warning under -Werror),
 * a helper's state parameter too, and no code is generated. */
#  define PT_DEV_BEGIN(buf) ((void)sizeof(buf))
#  define PT_DEV_BEGIN_AT(buf, slot) ((void)sizeof(buf), (void)sizeof(slot))
#  define PT_DEV_BEGIN_IF(buf, keep, slot) \
    ((void)sizeof(buf), (void)sizeof(keep), (void)sizeof(slot))
#  define PT_DEV_BEGIN_EVERY(buf, every) ((void)sizeof(buf), (void)sizeof(every))
#  define PT_DEV_BEGIN_ROLE(buf, first_warp, nwarps) \
    ((void)sizeof(buf), (void)sizeof(first_warp), (void)sizeof(nwarps))
#  define PT_DEV_SPAN_BEGIN(kind, id) ((void)sizeof(kind), (void)sizeof(id))
#  define PT_DEV_SPAN_END(kind, id) ((void)sizeof(kind), (void)sizeof(id))
#  define PT_DEV_MARK(phase) ((void)sizeof(phase))
#  define PT_DEV_MARK_IN(st, phase) ((void)sizeof(st), (void)sizeof(phase))
#  define PT_DEV_STATE ((pt_dev_state *)PT__DEV_NULL)
#  define PT_DEV_END(buf) ((void)sizeof(buf))

#else

/* The accumulator array of shared-memory mode: __shared__ where the code
 * runs on the GPU, a local array on the CPU (one thread is the block). */
#  if PT__DEV_SMEM && (defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__))
#    define PT__DEV_ACC_DECL __shared__ __align__(16) long long pt__dev_acc[PT__DEV_ACC_WORDS(PT__DEV_N)];
#    define PT__DEV_ACC pt__dev_acc
#  elif PT__DEV_SMEM
#    define PT__DEV_ACC_DECL long long pt__dev_acc[PT__DEV_ACC_WORDS(PT__DEV_N)];
#    define PT__DEV_ACC pt__dev_acc
#  else
#    define PT__DEV_ACC_DECL
#    define PT__DEV_ACC PT__DEV_NULL
#  endif
#  define PT__DEV_INSIDE 1
#  include <pt/detail/pt_dev_clock.h>
#  include <pt/detail/pt_dev_impl.h>
#  undef PT__DEV_INSIDE

/* The state BEGIN declares, named so that a compiler's "undefined" error
 * where a mark, PT_DEV_STATE or END has no BEGIN before it in its
 * function says the fix. */
#  define PT__DEV_ST PT_DEV_MARK_or_END_needs_PT_DEV_BEGIN_before_it_in_this_function__a_helper_marks_with_PT_DEV_MARK_IN
/* In C++ (nvcc, a C++ host compiler) a phase known at compile time
 * (a literal, an enumerator, a template argument) outside
 * [0, PT_DEV_PHASES) is a compile error; a run-time one is counted as a
 * bad mark. In a static_assert __builtin_constant_p is 0 for a run-time
 * value, whose comparison is then never evaluated; a negative phase is
 * past the count as an unsigned one (one comparison, which no unsigned
 * phase type makes "always false" for -Wtype-limits). C compilers (host
 * mode) fold it only after inlining, and NVRTC has no such builtin, so
 * there the check is at run time. */
#  define PT__DEV_PHASE_BAD(phase) \
    (__builtin_constant_p(phase) && \
     (unsigned long long)(long long)(phase) >= (unsigned long long)PT__DEV_N)
#  define PT__DEV_PHASE_MSG \
    "a constant phase outside [0, PT_DEV_PHASES): define PT_DEV_PHASES (or include the ptgen " \
    "header) with every phase before the mark"
#  if defined(__cplusplus) && __cplusplus >= 201103L && !defined(__CUDACC_RTC__) && \
      (defined(__GNUC__) || defined(__clang__))
#    define PT__DEV_PHASE_CHECK(phase) static_assert(!PT__DEV_PHASE_BAD(phase), PT__DEV_PHASE_MSG)
#  else
#    define PT__DEV_PHASE_CHECK(phase) ((void)0)
#  endif

/** \brief Start timing this block's (or warp's) phases into `buf`, a
 *  pt_dev_buf passed to the kernel by value. Declares the state, so it
 *  comes once per function, before its marks, at block scope. On the CPU
 *  it uses slot 0. */
#  define PT_DEV_BEGIN(buf) PT__DEV_BEGIN_SLOT(buf, PT__DEV_AUTO)
/** \brief As PT_DEV_BEGIN, into record `slot` (an integer) of `buf`; a
 *  slot the buffer does not have (negative, or past its slots; LLONG_MIN
 *  too) is counted as a bad slot and nothing is written. */
#  define PT_DEV_BEGIN_AT(buf, slot) PT__DEV_BEGIN_SLOT(buf, pt__dev_user_slot((long long)(slot)))
#  if defined(__cplusplus)
/* The END that runs on every return after BEGIN (pt_dev_impl.h). */
#    define PT__DEV_GUARD(buf) \
    ; pt__dev_end_guard pt__dev_guard = { &PT__DEV_ST, (buf), pt__dev_slot, PT__DEV_N }; \
    (void)pt__dev_guard
#  else
#    define PT__DEV_GUARD(buf)
#  endif
/** \brief As PT_DEV_BEGIN_AT when `keep` (an integer, evaluated once) is
 *  nonzero; when it is 0 the block (or warp) records nothing at all: no
 *  record, no bad slot, its marks and END do nothing. For a sample of the
 *  grid (a block range, a predicate, chosen warps): records sized for the
 *  kept blocks alone, pt_dev_records_sample() telling the reports. */
#  define PT_DEV_BEGIN_IF(buf, keep, slot) \
    PT__DEV_BEGIN_KEEP(buf, pt__dev_user_slot((long long)(slot)), (keep) != 0)
/** \brief One block (or warp) in `every`: those whose automatic slot k
 *  (PT_DEV_BEGIN's) is a multiple of every record into slot k / every,
 *  the others nothing; records of ceil(slots / every) slots hold them
 *  (PT_LAUNCH sizes them so after pt_dev_records_sample(b, every)). */
#  define PT_DEV_BEGIN_EVERY(buf, every) \
    PT__DEV_BEGIN_KEEP(buf, pt__dev_every_slot((long long)(every)), pt__dev_slot >= 0)
/** \brief A warp role: the warps first_warp .. first_warp + nwarps - 1 of
 *  each block (by linear thread index / 32) record into `buf`, the role's
 *  buffer (its own phases), warp w of block b into slot b * nwarps +
 *  (w - first_warp); every other warp records nothing there. Needs
 *  PT_DEV_PER_WARP (lane 0 of each warp records); fold each role's
 *  buffer with pt_dev_fold_role(). */
#  if defined(PT_DEV_PER_WARP)
#    define PT_DEV_BEGIN_ROLE(buf, first_warp, nwarps) \
    PT__DEV_BEGIN_KEEP(buf, pt__dev_role_slot((long long)(first_warp), (long long)(nwarps)), \
                       pt__dev_slot >= 0)
#  else
#    define PT_DEV_BEGIN_ROLE(buf, first_warp, nwarps) \
    PT_DEV_BEGIN_ROLE_needs_PT_DEV_PER_WARP_defined_before_including_pt_dev_h
#  endif
#  define PT__DEV_BEGIN_SLOT(buf, slot) PT__DEV_BEGIN_KEEP(buf, slot, 1)
#  define PT__DEV_BEGIN_KEEP(buf, slot, keep) \
    PT__DEV_ACC_DECL \
    pt_dev_state PT__DEV_ST; \
    const long long pt__dev_slot = (slot); \
    pt__dev_begin(&PT__DEV_ST, PT__DEV_ACC, PT__DEV_N, (buf), pt__dev_slot, (keep)) \
    PT__DEV_GUARD(buf)
/** \brief Charge the cycles since the previous mark (or BEGIN) to `phase`
 *  (an integer, ideally a constant) and count one hit. */
#  define PT_DEV_MARK(phase) \
    do { PT__DEV_PHASE_CHECK(phase); pt__dev_mark(&PT__DEV_ST, (long long)(phase), PT__DEV_N); } while (0)
/** \brief The state of this function's PT_DEV_BEGIN, a `pt_dev_state *`
 *  to hand to helpers that mark. */
#  define PT_DEV_STATE pt__dev_state_ref(&PT__DEV_ST)
/** \brief PT_DEV_MARK in a helper: `st` is the `pt_dev_state *` the
 *  caller passed down (PT_DEV_STATE where it began). */
#  define PT_DEV_MARK_IN(st, phase) \
    do { PT__DEV_PHASE_CHECK(phase); pt__dev_mark_in((st), (long long)(phase), PT__DEV_N); } while (0)
/** \brief A span of kind `kind` (0 to 65535) and id `id` (32 bits) begins:
 *  a trace event at the clock now, which PT_DEV_SPAN_END(kind, id) closes,
 *  in a later iteration if need be (a load issued at stage k, waited for
 *  at k + 2), several of a kind in flight under different ids. The fold
 *  gives each kind's count, total, p50, p99 and max (pt_dev_records_spans
 *  names the kinds), the trace draws each span. Charges no phase. Needs
 *  a trace buffer and PT_DEV_TRACING (without it, nothing); the recording
 *  thread's spans are stored, so begin and end are on that thread (thread
 *  0 of the block, or lane 0 of each warp with PT_DEV_PER_WARP). */
#  define PT_DEV_SPAN_BEGIN(kind, id) \
    pt__dev_span(&PT__DEV_ST, PT_DEV_EV_SPAN_CODE((kind), (id), 0))
/** \brief Closes the latest open span of `kind` and `id` (PT_DEV_SPAN_BEGIN). */
#  define PT_DEV_SPAN_END(kind, id) \
    pt__dev_span(&PT__DEV_ST, PT_DEV_EV_SPAN_CODE((kind), (id), 1))
/** \brief Write the record: the slot header and the (cycles, hits) of the
 *  first PT_DEV_PHASES phases, then DONE += 1. `buf` is the buffer given to
 *  BEGIN (its record was fixed there; END reads its shape). */
#  define PT_DEV_END(buf) \
    do { pt__dev_end(&PT__DEV_ST, (buf), pt__dev_slot, PT__DEV_N); } while (0)

#endif

#endif
