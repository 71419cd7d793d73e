/* What PT_DEV_BEGIN, PT_DEV_MARK and PT_DEV_END expand to. Internal:
 * include <pt/pt_dev.h>, which documents the behaviour and the costs; this
 * file explains how they are kept low.
 *
 * Two modes keep the figures of one BEGIN..END (PT__DEV_SMEM picks one):
 *
 * Shared-memory mode (the default under nvcc and NVRTC; see the comment
 * above its functions): the recording thread adds each mark's cycles into
 * a __shared__ array, so the kernel holds only the last clock and the
 * recording flag, and a run-time phase is an index into the array.
 *
 * Register mode (PT_DEV_SHARED=0, PT_DEV_PER_WARP, plain C): the state is a
 * local struct whose per-phase arrays have a compile-time size and, after
 * inlining, are only ever indexed by constants: a mark with a constant
 * phase touches one element, a mark with a run-time phase tests the phase
 * against each of the n phases in turn (n = PT_DEV_PHASES where the macro
 * stands), and BEGIN and END are loops the compiler unrolls. So every
 * element the kernel marks becomes a register and the others disappear;
 * nothing is indexed at run time, so nothing goes to local memory. Every
 * thread reads the clocks and keeps the accumulators, so BEGIN and the
 * marks never branch (in converged code the compiler may keep them in
 * uniform registers, one copy per warp).
 *
 * In both, all the work on the record is at END, on the recording thread
 * alone: finding the record once, then the header's and pairs' stores
 * and the increment of DONE. Trace stores exist only with PT_DEV_TRACING. */
#if !defined(PT__DEV_INSIDE)
#  error "include <pt/pt_dev.h>"
#elif !defined(PT_DETAIL_PT_DEV_IMPL_H)
#define PT_DETAIL_PT_DEV_IMPL_H

/* The slot argument PT_DEV_BEGIN passes: "the slot this block (or warp)
 * owns". A constant, so the choice between it and an explicit slot is made
 * at compile time. */
#define PT__DEV_AUTO (-0x7fffffffffffffffLL - 1)

/* Phases a mark at this point may use: PT_DEV_PHASES, at most the
 * accumulators there are. The macros pass it where they stand, so a ptgen
 * header included after pt_dev.h still sizes the marks and the END that
 * follow it. */
#define PT__DEV_N \
    ((int)(PT_DEV_PHASES) < PT_DEV_MAX_PHASES ? (int)(PT_DEV_PHASES) : PT_DEV_MAX_PHASES)

/* Words of the accumulator array of shared-memory mode, for n phases:
 * the clock at the last mark (or BEGIN) and clock64 at BEGIN, the
 * (cycles, hits) pair of each phase, then the pair of the marks of a
 * phase outside [0, n) (their cycles, which no phase is charged with, and
 * their count), then %globaltimer at BEGIN (and a spare word: pairs stay
 * 16-byte aligned). The last clock at the array's own address lets a mark
 * address it with no offset. */
#define PT__DEV_ACC_WORDS(n) (6 + 2 * (n))

struct pt_dev_state {
#if PT__DEV_SMEM
    long long *acc;                       /* the block's accumulators (PT__DEV_ACC_WORDS) */
    unsigned at;                          /* acc's shared address on the recording thread */
    int n;                                /* phases acc has pairs for */
    int rec;                              /* 1 on the recording thread */
#else
    long long prev;                       /* clock at the last mark (or BEGIN) */
    long long cyc[PT_DEV_MAX_PHASES];     /* cycles charged to each phase */
    long long hits[PT_DEV_MAX_PHASES];    /* marks of each phase */
    long long bad;                        /* marks of a phase outside [0, n) */
    long long clk0, gt0;                  /* clock64 and %globaltimer at BEGIN */
    int ended;                            /* 1 once END has run */
#endif
#if defined(PT_DEV_TRACING)
    long long *ev;                        /* trace events of this record; NULL unless tracing */
    long long nev;                        /* trace marks seen: the stored ones, then the dropped */
    long long cap;                        /* events the record can store */
#endif
};

/* 1 on the thread that writes the record: thread (0,0,0) of the block, or
 * lane 0 of each warp with PT_DEV_PER_WARP; on the CPU the caller itself. */
PT_DEV_FN int pt__dev_recording(void)
{
#if PT__DEV_ON_GPU
#  if defined(PT_DEV_PER_WARP)
    /* Warps are made of consecutive linear thread indices, so the lane is
     * the linear index modulo 32, which %laneid gives in one read. */
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane == 0;
#  else
    return (threadIdx.x | threadIdx.y | threadIdx.z) == 0;
#  endif
#else
    return 1;
#endif
}

/* 0 on the recording thread, read so that the compiler cannot know it:
 * %tid.x, or %laneid with PT_DEV_PER_WARP (see pt__dev_count_bad_slot). */
PT_DEV_FN unsigned pt__dev_opaque_zero(void)
{
#if PT__DEV_ON_GPU
    unsigned v;
#  if defined(PT_DEV_PER_WARP)
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(v));
#  else
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v));
#  endif
    return v;
#else
    return 0;
#endif
}

/* A slot BEGIN_AT was given: never the automatic slot's sentinel, which
 * the user's LLONG_MIN would be (it is then -1, a bad slot like it). */
PT_DEV_FN long long pt__dev_user_slot(long long slot)
{
    return slot == PT__DEV_AUTO ? -1 : slot;
}

/* The slot given to BEGIN_AT, or with PT__DEV_AUTO the slot of this block
 * (linear block index), or of this warp (linear block index * warps per
 * block + warp index); slot 0 on the CPU. 1 when it is a slot of the
 * buffer, in *k. */
PT_DEV_FN int pt__dev_slot(pt_dev_buf b, long long slot, unsigned long long *k)
{
    if (slot != PT__DEV_AUTO) {
        /* Unsigned, so a negative slot is one too large. */
        *k = (unsigned long long)slot;
    } else {
#if PT__DEV_ON_GPU
        /* y + gridDim.y * z fits in 32 bits (both are below 2^16); its
         * product with gridDim.x may not, but stays far below 2^63. */
        unsigned yz = blockIdx.y + gridDim.y * blockIdx.z;
        unsigned long long block = (unsigned long long)yz * gridDim.x + blockIdx.x;
#  if defined(PT_DEV_PER_WARP)
        unsigned threads = blockDim.x * blockDim.y * blockDim.z;
        unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        block = block * ((threads + 31u) / 32u) + tid / 32u;
#  endif
        *k = block;
#else
        *k = 0;
#endif
    }
    /* A buffer of no slots (or fewer) has none; nslots is an int, so the
     * bound is a 32-bit value compared with the 64-bit slot unsigned. */
    return *k < (unsigned long long)(unsigned)(b.nslots > 0 ? b.nslots : 0);
}

/* PT_DEV_BEGIN_EVERY's slot: with k this block's (or warp's) automatic
 * slot, k / every when every divides k, else -1, a block that records
 * nothing (every below 1 is 1). One division, at BEGIN only. */
PT_DEV_FN long long pt__dev_every_slot(long long every)
{
    unsigned long long k, e = every > 1 ? (unsigned long long)every : 1ull;
    pt_dev_buf none = { PT__DEV_NULL, 0, 0, 0, 0 };
    (void)pt__dev_slot(none, PT__DEV_AUTO, &k);
    return k % e == 0 ? (long long)(k / e) : -1;
}

/* PT_DEV_BEGIN_ROLE's slot: this warp's, among the role's n warps from
 * warp `first` of the block (warps by linear thread index / 32): block * n
 * + (warp - first), or -1 for a warp of another role. On the CPU the one
 * thread is warp 0 of its block. */
PT_DEV_FN long long pt__dev_role_slot(long long first, long long n)
{
#if PT__DEV_ON_GPU
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned yz = blockIdx.y + gridDim.y * blockIdx.z;
    unsigned long long block = (unsigned long long)yz * gridDim.x + blockIdx.x;
    unsigned long long w = (unsigned long long)(tid / 32u) - (unsigned long long)first;
#else
    unsigned long long block = 0, w = 0ull - (unsigned long long)first;
#endif
    return n > 0 && w < (unsigned long long)n ? (long long)(block * (unsigned long long)n + w) : -1;
}

/* The record of slot k, laid out as pt_dev_buf.h says. k is below nslots,
 * and nphases and trace_cap are below PT_DEV_SHAPE_MAX (pt_dev_records_create
 * makes no other shape), so a record's bytes fit in 32 bits and its
 * address is one 32 x 32 + 64-bit multiply-add. */
PT_DEV_FN long long *pt__dev_record(pt_dev_buf b, unsigned long long k)
{
    unsigned bytes = 8u * (unsigned)PT_DEV_SLOT_HDR + 16u * ((unsigned)b.nphases + (unsigned)b.trace_cap);
    return (long long *)((char *)(b.data + PT_DEV_HDR) + (unsigned long long)(unsigned)k * bytes);
}

/* Trace mode's part of BEGIN: where the recording thread stores its events. */
PT_DEV_FN void pt__dev_begin_trace(pt_dev_state *s, pt_dev_buf b, long long slot, int rec)
{
#if defined(PT_DEV_TRACING)
    s->ev = PT__DEV_NULL;
    s->nev = 0;
    s->cap = 0;
    if (b.mode == PT_DEV_MODE_TRACE && b.data != PT__DEV_NULL && rec) {
        unsigned long long k;
        if (pt__dev_slot(b, slot, &k)) {
            s->ev = pt__dev_record(b, k) + PT_DEV_SLOT_HDR + 2LL * b.nphases;
            s->cap = b.trace_cap;
        }
    }
#else
    (void)s;
    (void)b;
    (void)slot;
    (void)rec;
#endif
}

/* Trace mode's part of a mark: the event (phase, now), or one dropped.
 * On the GPU without a branch the compiler sees (the store is predicated
 * inside one asm statement, volatile, so it keeps its place among the
 * clock reads and END's release store), so that a mark is no basic-block
 * boundary in any mode: see PT__DEV_AT for why that keeps the kernel's
 * arithmetic as it is. */
PT_DEV_FN void pt__dev_mark_trace(pt_dev_state *s, long long phase, long long now)
{
#if defined(PT_DEV_TRACING) && PT__DEV_ON_GPU
    unsigned store = s->ev != PT__DEV_NULL && s->nev < s->cap;
    unsigned long long at = (unsigned long long)s->ev + 16ull * (unsigned long long)s->nev;
    asm volatile("{\n\t.reg .pred pt_p;\n\t"
                 "setp.ne.u32 pt_p, %0, 0;\n\t"
                 "@pt_p st.v2.u64 [%1], {%2, %3};\n\t}"
                 :
                 : "r"(store), "l"(at), "l"(phase), "l"(now));
    s->nev += s->ev != PT__DEV_NULL;
#elif defined(PT_DEV_TRACING)
    if (s->ev) {
        if (s->nev < s->cap)
            pt__dev_store2(&s->ev[2 * s->nev], phase, now);
        s->nev += 1;
    }
#else
    (void)s;
    (void)phase;
    (void)now;
#endif
}

/* A span's begin or end (PT_DEV_SPAN_BEGIN/END): a trace event of the
 * span's code at the clock now, stored by the recording thread as a
 * mark's is (or dropped past the capacity); no phase is charged, and the
 * phases' clock is left alone. Without trace stores, nothing. */
PT_DEV_FN void pt__dev_span(pt_dev_state *s, long long code)
{
#if defined(PT_DEV_TRACING)
    pt__dev_mark_trace(s, code, pt__dev_clock());
#else
    (void)s;
    (void)code;
#endif
}

/* 1 with the record of this block (or warp) in *r; 0 for a buffer with
 * data == NULL, skipped whatever its shape says (pt_dev_arg(NULL) says
 * nslots 0, a buffer made by hand may not: timing never crashes the
 * kernel), and for a slot the buffer does not have, which is counted in the
 * buffer's header. Called on the recording thread only. */
PT_DEV_FN int pt__dev_end_record(pt_dev_buf b, long long slot, long long **r)
{
    unsigned long long k;
    if (b.data == PT__DEV_NULL)
        return 0;
    if (!pt__dev_slot(b, slot, &k)) {
        pt__dev_count_bad_slot(b.data, pt__dev_opaque_zero(), k);
        return 0;
    }
    *r = pt__dev_record(b, k);
    return 1;
}

/* The rest of the slot header, then DONE: %smid, the bad marks, the trace
 * events stored and dropped (the clocks are the caller's). */
PT_DEV_FN void pt__dev_end_tail(const pt_dev_state *s, long long *r, long long bad)
{
    long long where = pt__dev_where(), stored, dropped;
#if defined(PT_DEV_TRACING)
    stored = s->nev < s->cap ? s->nev : s->cap;
    dropped = s->nev - stored;
#else
    /* Built without trace stores: no event stored, none dropped. On a
     * trace buffer a record with marks says so, since a kernel that traces
     * stores or drops each mark; the fold counts its marks as dropped. */
    (void)s;
    stored = 0;
    dropped = 0;
#endif
    /* One word at a time: a 128-bit store of two takes four registers. */
    r[PT_DEV_S_SMID] = where;
    r[PT_DEV_S_BAD_PHASE] = bad;
    r[PT_DEV_S_NEVENTS] = stored;
    r[PT_DEV_S_DROPPED] = dropped;
    r[PT_DEV_S_SMID1] = where;
    pt__dev_publish(r);
}

#if PT__DEV_SMEM

/* Shared-memory mode: the recording thread keeps the block's figures in a
 * __shared__ array that PT_DEV_BEGIN declares (a local array on the CPU):
 * pair 0 holds the clock at the last mark and clock64 at BEGIN, pair 1 + q
 * the (cycles, hits) of phase q, pair 1 + n the (cycles, count) of the
 * marks of a phase outside [0, n), pair 2 + n %globaltimer at BEGIN. A
 * mark is the recording thread's alone: it reads the clock and adds the
 * cycles since the last mark to the phase's pair (a 128-bit load and
 * store, and the last clock's load and store), as the hand-written
 * pattern's `if (tid == 0) times[i] += ...` does in global memory; every
 * other thread of the block skips it (in PTX one branch, where the
 * hand-written pattern has every thread read the clock as well). Nothing
 * of a mark lives in the other threads' registers: not even the last
 * clock, so no copy of it follows the branch. A run-time phase is an
 * index, not a compare per phase, and the kernel holds only the array's
 * address (which says which thread records), whatever the phases.
 *
 * On the GPU the mark is one asm statement with the branch inside (see
 * PT__DEV_AT, below). Predicated inline asm, tried instead, held the
 * array's address in more registers for the whole kernel (the SGEMM went
 * from 32 to 48 on sm_90); so did a statement that took the addresses of
 * the pair and of the last clock (34), which the compiler kept as loop
 * invariants: it takes the array's address and the pair's offset. */

/* The marks address the array through at, its shared address, and skip
 * on the threads that do not record by a flag, which differs by target:
 *
 *   before sm_90, the flag is rec, which ptxas keeps in a predicate, and
 *   at the array's constant address, which it folds into each load and
 *   store: a mark holds no register across the kernel. Keeping at in a
 *   register as the flag (below) took 40 registers where the attention
 *   kernel of flash-attention-minimal has 32, on sm_80;
 *   from sm_90, a shared address carries the block's place in its cluster
 *   (%cgactaid, above bit 24), which ptxas rebuilds at every mark from two
 *   registers it keeps for it, or from uniform ones where it has them;
 *   there at is the array's address on the recording thread and
 *   PT__DEV_NOT_REC on every other, so one register is both the address
 *   and the flag, and a value ptxas cannot rebuild from constants (26
 *   registers instead of 23 in a Jacobi sweep's, on sm_90).
 *
 * Not in -G builds, which keep every value in local memory anyway: there
 * it would cost registers.
 *
 * On the GPU a mark is one inline asm statement, its skip on the other
 * threads a branch inside it (pt__dev_mark_smem). Written in C, the
 * `if (recording)` split the kernel's code into basic blocks at every
 * mark, and NVVM contracts a multiply and the add that uses it into one
 * fma only within a basic block: `p = a * b; MARK; q = p + c` became a
 * mul and an add, rounded twice, where the kernel without the mark has
 * one fma, rounded once, so marks changed what a kernel computed. One asm
 * statement is no block boundary: the kernel's arithmetic compiles as
 * without the marks (tests/dev_compile.c compares the floating-point
 * instructions of every benchmark kernel with and without them). */
#if PT__DEV_ON_GPU && !defined(__CUDACC_DEBUG__)
#  define PT__DEV_AT 1
#else
#  define PT__DEV_AT 0
#endif
/* at on the threads that do not record: no shared address is that high. */
#define PT__DEV_NOT_REC 0xfffffff0u
/* 1 where at is the recording flag as well (sm_90 and later, above). */
#if PT__DEV_AT && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#  define PT__DEV_AT_REC 1
#else
#  define PT__DEV_AT_REC 0
#endif

/* Waits for the thread's stores so far (the zeroing of the array): a
 * fence at the block's scope, which ptxas moves no store across. */
PT_DEV_FN void pt__dev_drain(void)
{
#if PT__DEV_ON_GPU
    asm volatile("fence.acq_rel.cta;" : : : "memory");
#endif
}

/* The array as the recording thread addresses it (through at on the GPU). */
PT_DEV_FN long long *pt__dev_acc(const pt_dev_state *s)
{
#if PT__DEV_AT
    return (long long *)__cvta_shared_to_generic(s->at);
#else
    return s->acc;
#endif
}

PT_DEV_FN void pt__dev_begin(pt_dev_state *s, long long *acc, int n, pt_dev_buf b, long long slot,
                            int keep)
{
    s->n = n;
    /* A block BEGIN_IF leaves out records nothing: no thread of it is the
     * recording one (keep is the constant 1 for every other BEGIN). */
    s->rec = pt__dev_recording() & keep;
    s->acc = acc;
#if PT__DEV_AT
    s->at = (unsigned)__cvta_generic_to_shared(acc);
    s->at = PT__DEV_AT_REC && !s->rec ? PT__DEV_NOT_REC : s->at;
#else
    s->at = 0;
#endif
    pt__dev_begin_trace(s, b, slot, s->rec);
    if (s->rec) {
        long long *a = pt__dev_acc(s), gt0, clk0;
        /* The pairs, the bad marks' and %globaltimer's (its spare word
         * zeroed here, so the timer below is one 64-bit store). */
        for (int q = 0; q <= n + 1; q++)
            pt__dev_store2(&a[2 + 2 * q], 0, 0);
        /* clock64 last, so that the set-up is not charged to the first
         * phase, and once the zeroing stores are done: behind them in the
         * SM's queue, the two stores after the clock read waited, on an
         * H100 with 32 blocks an SM some 470 ns with 16 phases, all of it
         * in phase 0. */
        pt__dev_drain();
        gt0 = pt__dev_ns();
        clk0 = pt__dev_clock();
        /* Word by word: a 128-bit store of (gt0, 0) beside the clock's
         * held four registers more at once, the count of a reduction of
         * 13 registers (19 instead of 17 on sm_90). */
        a[4 + 2 * n] = gt0;
        a[0] = clk0;
        a[1] = clk0;
    }
}

#if PT__DEV_AT
/* A mark on the GPU as one statement: on the recording thread (flag is
 * not the skip value: rec not 0, or at not PT__DEV_NOT_REC, as above) it
 * reads the clock, keeps it as the last mark's (at the array's own
 * address) and adds the cycles since the last mark and one hit to the
 * pair at byte offset pair of the array (an offset, so that no pair's
 * address is a loop invariant the compiler keeps in a register), one word
 * at a time, each a 64-bit load, add and store (the pair's 128-bit load
 * and store held more registers at once, which set the register count of
 * small kernels), the three loads first so that their round trips to
 * shared memory overlap (each loaded after the store before it, a mark
 * took 96.5 simulated cycles in a loop, not 50.5, in the same registers);
 * every other thread branches over it,
 * inside the statement (its label made unique by %=: ptxas scopes labels
 * by braces, but not every reader of PTX does). No "memory" clobber: the
 * array is ptkit's alone, and the kernel's own loads and stores may move
 * across a mark as its arithmetic may. The clock read comes out for the
 * trace (on the other threads it is never set, and the trace stores
 * nothing there); without PT_DEV_TRACING nothing reads it after the mark. */
PT_DEV_FN long long pt__dev_mark_smem(unsigned flag, unsigned at, unsigned pair)
{
    long long now;
    asm volatile("{\n\t.reg .pred pt_p;\n\t.reg .b64 pt_l, pt_v, pt_h;\n\t"
                 ".reg .b32 pt_q;\n\t"
                 "setp.eq.u32 pt_p, %1, %4;\n\t"
                 "@pt_p bra PT_DEV_MARK_SKIP%=;\n\t"
                 "mov.u64 %0, %%clock64;\n\t"
                 "add.u32 pt_q, %2, %3;\n\t"
                 "ld.shared.u64 pt_l, [%2];\n\t"
                 "ld.shared.u64 pt_v, [pt_q];\n\t"
                 "ld.shared.u64 pt_h, [pt_q+8];\n\t"
                 "st.shared.u64 [%2], %0;\n\t"
                 "sub.s64 pt_l, %0, pt_l;\n\t"
                 "add.s64 pt_v, pt_v, pt_l;\n\t"
                 "add.s64 pt_h, pt_h, 1;\n\t"
                 "st.shared.u64 [pt_q], pt_v;\n\t"
                 "st.shared.u64 [pt_q+8], pt_h;\n"
                 "PT_DEV_MARK_SKIP%=:\n\t}"
                 : "=l"(now)
                 : "r"(flag), "r"(at), "r"(pair), "n"(PT__DEV_AT_REC ? PT__DEV_NOT_REC : 0u));
    return now;
}
#endif

/* The recording thread alone reads the clock and adds the cycles since
 * the last mark (kept in the array too, so nothing of the mark lives in
 * the other threads' registers) to the phase's pair. */
PT_DEV_FN void pt__dev_mark(pt_dev_state *s, long long phase, int n)
{
    int m = n < s->n ? n : s->n;
    /* One unsigned compare catches negative phases too; a phase outside
     * [0, m) goes to the pair after the phases'. */
    int q = (unsigned long long)phase < (unsigned long long)m ? (int)phase : s->n;
#if PT__DEV_AT
    unsigned flag = PT__DEV_AT_REC ? s->at : (unsigned)s->rec;
    long long now = pt__dev_mark_smem(flag, s->at, 16u + 16u * (unsigned)q);
    pt__dev_mark_trace(s, phase, now);
#else
    if (s->rec) {
        long long now = pt__dev_clock(), *a = pt__dev_acc(s), *last = &a[0];
        long long *p = &a[2 + 2 * q];
        pt__dev_store2(p, p[0] + (now - *last), p[1] + 1);
        *last = now;
        pt__dev_mark_trace(s, phase, now);
    }
#endif
}

PT_DEV_FN void pt__dev_end(pt_dev_state *s, pt_dev_buf b, long long slot, int n)
{
    const long long *acc = pt__dev_acc(s);
    long long *r, bad;
    int m, k, q;
    /* Once: an END after END (the scope guard's, after an explicit one)
     * does nothing, nor does a mark after it. */
    int rec = s->rec;
    s->rec = 0;
#if PT__DEV_AT_REC
    s->at = PT__DEV_NOT_REC;
#endif
    if (!rec || !pt__dev_end_record(b, slot, &r))
        return;
    /* The clocks first, each stored as it is read, so that no register
     * holds them through the copy below: END's register peak is the
     * kernel's in small kernels, whose count it would otherwise raise. */
    r[PT_DEV_S_CLK1] = pt__dev_clock();
    r[PT_DEV_S_GT1] = pt__dev_ns();
    r[PT_DEV_S_CLK0] = acc[1];
    r[PT_DEV_S_GT0] = acc[4 + 2 * s->n];
    /* The first min(n, nphases) pairs are written, marked or not, so a
     * reused record never shows an earlier launch's figures; the buffer's
     * pairs past them keep what pt_dev_reset() left there. The marks of a
     * phase the buffer does not have, or beyond this n (a helper's mark
     * under a larger PT_DEV_PHASES), are counted as bad. */
    m = n < s->n ? n : s->n;
    k = m < b.nphases ? m : b.nphases;
#if PT__DEV_ON_GPU && (defined(__GNUC__) || defined(__clang__) || defined(__CUDACC_RTC__))
    {
        /* On the GPU in 32-bit halves, two a turn (where the compiler
         * knows may_alias; a word a turn elsewhere). END's copy is the
         * register peak of small kernels, and a 64-bit word a turn held an
         * aligned pair of registers: a reduction with early returns took
         * 17 on sm_90 against its own 13, one over the allocation unit;
         * two halves in flight take any two registers (16, and 15 on
         * sm_80), as one half a turn does; the two halves of a pair
         * loaded together, or a turn of exactly two halves, took 17 again.
         * Simulated cycles of END with 16 phases: a word a turn 2,078, a
         * half 3,581, two halves 2,231, four halves 1,454 but 25 registers
         * in that reduction (four pairs a turn, earlier: 29).
         * Read and written as words that may alias the pairs, so that no
         * type rule lets the compiler move a load. */
        typedef unsigned __attribute__((may_alias)) pt__dev_half;
        pt__dev_half *to = (pt__dev_half *)&r[PT_DEV_SLOT_HDR];
        const pt__dev_half *from = (const pt__dev_half *)&acc[2];
        PT__DEV_UNROLL2
        for (q = 0; q < 4 * k; q++)
            to[q] = from[q];
    }
#else
    PT__DEV_NO_UNROLL
    for (q = 0; q < 2 * k; q++)
        r[PT_DEV_SLOT_HDR + q] = acc[2 + q];
#endif
    /* The marks of the phases the buffer lacks, of those past this n (a
     * helper's marks under a larger PT_DEV_PHASES), and of phases out of
     * range (the pair after the phases'). */
    bad = acc[3 + 2 * s->n];
    PT__DEV_NO_UNROLL
    for (q = k; q < s->n; q++)
        bad += acc[3 + 2 * q];
    pt__dev_end_tail(s, r, bad);
}

#else

/* Register mode: the state is a local struct whose per-phase arrays have a
 * compile-time size and, after inlining, are only ever indexed by
 * constants (see the top of this file). */

/* The most phases a run-time phase's mark tests without a branch. */
#define PT__DEV_SELECT_MAX 8

PT_DEV_FN void pt__dev_begin(pt_dev_state *s, long long *acc, int n, pt_dev_buf b, long long slot,
                            int keep)
{
    (void)acc;
    (void)n;
    PT__DEV_UNROLL
    for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
        s->cyc[q] = 0;
        s->hits[q] = 0;
    }
    s->bad = 0;
    /* A block BEGIN_IF leaves out is as if ended: END writes nothing (keep
     * is the constant 1 for every other BEGIN). */
    s->ended = !keep;
    pt__dev_begin_trace(s, b, slot, pt__dev_recording() & keep);
    /* Every thread reads both clocks, so BEGIN never branches; clock64
     * last, so that the set-up is not charged to the first phase. */
    s->gt0 = pt__dev_ns();
    s->clk0 = pt__dev_clock();
    s->prev = s->clk0;
}

PT_DEV_FN void pt__dev_mark(pt_dev_state *s, long long phase, int n)
{
    long long now = pt__dev_clock();
    long long d = now - s->prev;
    /* One unsigned compare catches negative phases too; with a constant
     * phase it is decided at compile time. */
    int ok = (unsigned long long)phase < (unsigned long long)n;
    s->prev = now;
#if PT__DEV_ON_GPU
    /* Each accumulator is tested against the phase, so a run-time phase
     * selects its registers instead of indexing an array in local memory;
     * a constant phase leaves one add. Up to PT__DEV_SELECT_MAX phases the
     * test is arithmetic (selects), with no branch: a branch splits the
     * kernel's code into basic blocks, which changes its arithmetic (see
     * PT__DEV_AT). With more phases that costs more than the branches the
     * compiler makes of an if (5 instructions a phase; 16 phases took 420
     * simulated cycles a mark, against 130), so there the test is an if,
     * and a run-time phase's mark may change how the kernel's multiplies
     * and adds around it contract (docs/cost.md). */
#  if !defined(__CUDACC_DEBUG__)
    /* (-G builds compile both forms, unoptimised: only the if, whose
     * registers a 1024-thread -G kernel can afford.) */
    if (n <= PT__DEV_SELECT_MAX) {
        /* -1 when out of range: tested against ok in every update, the
         * optimizer branched around them all when it is 0. */
        int ph = ok ? (int)phase : -1;
        PT__DEV_UNROLL
        for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
            long long hit = (q < n) & (ph == q);
            s->cyc[q] += d * hit;
            s->hits[q] += hit;
        }
    } else
#  endif
    {
        PT__DEV_UNROLL
        for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
            if (q < n && ok && (int)phase == q) {
                s->cyc[q] += d;
                s->hits[q] += 1;
            }
        }
    }
#else
    if (ok) {
        s->cyc[phase] += d;
        s->hits[phase] += 1;
    }
#endif
    s->bad += !ok;
    pt__dev_mark_trace(s, phase, now);
}

PT_DEV_FN void pt__dev_end(pt_dev_state *s, pt_dev_buf b, long long slot, int n)
{
    long long *r, clk1, gt1, bad;
    int ended = s->ended;
    /* Once, as in shared-memory mode. */
    s->ended = 1;
    if (ended || !pt__dev_recording() || !pt__dev_end_record(b, slot, &r))
        return;
    clk1 = pt__dev_clock();
    gt1 = pt__dev_ns();
    /* The first n pairs are written, marked or not, so a reused record
     * never shows an earlier launch's figures; the buffer's pairs from n up
     * keep what pt_dev_reset() left there. The marks of a phase the buffer
     * does not have (nphases < n), or beyond this n (a helper's mark under
     * a larger PT_DEV_PHASES), are counted as bad. */
    pt__dev_store2(&r[PT_DEV_S_CLK0], s->clk0, clk1);
    pt__dev_store2(&r[PT_DEV_S_GT0], s->gt0, gt1);
    bad = s->bad;
    PT__DEV_UNROLL
    for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
        if (q < n && q < b.nphases)
            pt__dev_store2(&r[PT_DEV_SLOT_HDR + 2 * q], s->cyc[q], s->hits[q]);
        else
            bad += s->hits[q];
    }
    pt__dev_end_tail(s, r, bad);
}

#endif

#if PT__DEV_SMEM
#  if PT__DEV_AT && !defined(PT_DEV_TRACING)
#    define PT__DEV_STATE_VALUE 1
#  endif
#endif

/* What PT_DEV_STATE hands a helper. On the GPU without trace stores, the
 * state as a value dressed as a pointer (the array's address on the
 * recording thread, or PT__DEV_NOT_REC, and its phases above it), which
 * PT_DEV_MARK_IN takes apart: a helper the compiler does not inline then
 * needs no copy of the state in local memory (a stack frame of 24 bytes
 * on sm_90, as a pointer to the state took). It is never dereferenced.
 * Elsewhere (the CPU, -G builds, trace stores, whose state holds more)
 * the state's address. */
#if defined(PT__DEV_STATE_VALUE)
PT_DEV_FN pt_dev_state *pt__dev_state_ref(pt_dev_state *s)
{
    unsigned at = s->rec ? s->at : PT__DEV_NOT_REC;
    return (pt_dev_state *)(((unsigned long long)(unsigned)s->n << 32) | at);
}
PT_DEV_FN void pt__dev_mark_in(pt_dev_state *st, long long phase, int n)
{
    unsigned long long v = (unsigned long long)st;
    pt_dev_state s;
    s.at = (unsigned)v;
    s.n = (int)(v >> 32);
    s.rec = s.at != PT__DEV_NOT_REC;
    s.acc = (long long *)PT__DEV_NULL;
    pt__dev_mark(&s, phase, n);
}
#else
PT_DEV_FN pt_dev_state *pt__dev_state_ref(pt_dev_state *s)
{
    return s;
}
PT_DEV_FN void pt__dev_mark_in(pt_dev_state *st, long long phase, int n)
{
    pt__dev_mark(st, phase, n);
}
#endif

/* C++ (nvcc, NVRTC, a C++ host compiler): BEGIN also declares a guard
 * whose destructor runs END when the function leaves BEGIN's scope, by
 * any return: `if (idx >= n) return;` after BEGIN writes the block's
 * record, its time unattributed, instead of leaving its slot empty. An
 * explicit PT_DEV_END before it makes the guard's END do nothing (END runs
 * once). The guard holds copies of what END takes; after inlining they
 * are the values END would read anyway (the buffer a kernel parameter,
 * the slot a constant), so it costs no register where END is reached. */
#if defined(__cplusplus)
struct pt__dev_end_guard {
    pt_dev_state *s;
    pt_dev_buf b;
    long long slot;
    int n;
#  if defined(__CUDACC_RTC__)
    __forceinline__ __device__
#  elif defined(__CUDACC__)
    __forceinline__ __host__ __device__
#  else
    inline
#  endif
    ~pt__dev_end_guard() { pt__dev_end(s, b, slot, n); }
};
#endif

#endif
