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
 * alone: finding the record once, then a few 128-bit stores and a release
 * store of DONE. Trace stores exist only with PT_DEV_TRACING. */
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
 * clock64 and %globaltimer at BEGIN, the (cycles, hits) pair of each
 * phase, then the pair of the marks of a phase outside [0, n) (their
 * cycles, which no phase is charged with, and their count), then the
 * clock at the last mark (and a spare word: pairs stay 16-byte aligned). */
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

/* Trace mode's part of a mark: the event (phase, now), or one dropped. */
PT_DEV_FN void pt__dev_mark_trace(pt_dev_state *s, long long phase, long long now)
{
#if defined(PT_DEV_TRACING)
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
        pt__dev_count_bad_slot(b.data, pt__dev_opaque_zero());
        return 0;
    }
    *r = pt__dev_record(b, k);
    return 1;
}

/* The slot header, then DONE: clock64 and %globaltimer at BEGIN and END,
 * %smid, the bad marks, the trace events stored and dropped. */
PT_DEV_FN void pt__dev_end_header(const pt_dev_state *s, long long *r, long long clk0,
                                  long long clk1, long long gt0, long long gt1, long long bad)
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
    r[PT_DEV_S_SMID] = where;
#if PT__DEV_SMEM
    /* clk0 and gt0 come from one 128-bit load: four 64-bit stores take
     * them where they are, where two pairs would take four moves. */
    r[PT_DEV_S_CLK0] = clk0;
    r[PT_DEV_S_CLK1] = clk1;
    r[PT_DEV_S_GT0] = gt0;
    r[PT_DEV_S_GT1] = gt1;
#else
    pt__dev_store2(&r[PT_DEV_S_CLK0], clk0, clk1);
    pt__dev_store2(&r[PT_DEV_S_GT0], gt0, gt1);
#endif
    pt__dev_store2(&r[PT_DEV_S_BAD_PHASE], bad, stored);
    pt__dev_store2(&r[PT_DEV_S_DROPPED], dropped, where);
    pt__dev_publish(r);
}

#if PT__DEV_SMEM

/* Shared-memory mode: the recording thread keeps the block's figures in a
 * __shared__ array that PT_DEV_BEGIN declares (a local array on the CPU):
 * pair 0 holds clock64 and %globaltimer at BEGIN, pair 1 + q the (cycles,
 * hits) of phase q, pair 1 + n the (cycles, count) of the marks of a phase
 * outside [0, n), pair 2 + n the clock at the last mark. A mark is the
 * recording thread's alone: it reads the clock and adds the cycles since
 * the last mark to the phase's pair (a 128-bit load and store, and the
 * last clock's load and store), as the hand-written pattern's `if (tid ==
 * 0) times[i] += ...` does in global memory; every other thread of the
 * block skips it (in PTX one branch, where the hand-written pattern has
 * every thread read the clock as well). Nothing of a mark lives in the
 * other threads' registers: not even the last clock, so no copy of it
 * follows the branch. A run-time phase is an index, not a compare per
 * phase, and the kernel holds only the recording flag and the array's
 * address, whatever the phases.
 *
 * The mark is plain C under `if (rec)`, which ptxas predicates (see at,
 * below); predicated inline asm, tried instead, held the array's address
 * in two more registers for the whole kernel (the SGEMM went from 32 to
 * 40). */

/* The marks address the array through at, its shared address plus 16
 * times %tid.x: the recording thread's own (%tid.x is 0 there), and a
 * value ptxas cannot rebuild from constants. It keeps it in one register
 * and predicates the mark's load, adds and store on the recording flag, as
 * it does the hand-written pattern's global ones; with the array's
 * constant address it rebuilt the address at every mark in uniform
 * registers and branched around the update (a reconvergence barrier),
 * some 5 instructions more a mark. Not in -G builds, which keep every
 * value in local memory anyway: there it would cost registers. */
#if PT__DEV_ON_GPU && !defined(__CUDACC_DEBUG__)
#  define PT__DEV_AT 1
#else
#  define PT__DEV_AT 0
#endif

/* The array as the recording thread addresses it (through at on the GPU). */
PT_DEV_FN long long *pt__dev_acc(const pt_dev_state *s)
{
#if PT__DEV_AT
    return (long long *)__cvta_shared_to_generic(s->at);
#else
    return s->acc;
#endif
}

PT_DEV_FN void pt__dev_begin(pt_dev_state *s, long long *acc, int n, pt_dev_buf b, long long slot)
{
    s->n = n;
    s->rec = pt__dev_recording();
    s->acc = acc;
#if PT__DEV_AT
    s->at = (unsigned)__cvta_generic_to_shared(acc) + 16u * pt__dev_opaque_zero();
#else
    s->at = 0;
#endif
    pt__dev_begin_trace(s, b, slot, s->rec);
    if (s->rec) {
        long long *a = pt__dev_acc(s), gt0, clk0;
        for (int q = 0; q <= n; q++)
            pt__dev_store2(&a[2 + 2 * q], 0, 0);
        /* clock64 last, so that the set-up is not charged to the first
         * phase. */
        gt0 = pt__dev_ns();
        clk0 = pt__dev_clock();
        pt__dev_store2(a, clk0, gt0);
        pt__dev_store2(&a[4 + 2 * n], clk0, 0);
    }
}

/* The recording thread alone reads the clock and adds the cycles since
 * the last mark (kept in the array too, so nothing of the mark lives in
 * the other threads' registers) to the phase's pair. */
PT_DEV_FN void pt__dev_mark(pt_dev_state *s, long long phase, int n)
{
    if (s->rec) {
        long long now = pt__dev_clock(), *a = pt__dev_acc(s), *last = &a[4 + 2 * s->n], *p;
        int m = n < s->n ? n : s->n;
        /* One unsigned compare catches negative phases too; a phase
         * outside [0, m) goes to the pair after the phases'. */
        int q = (unsigned long long)phase < (unsigned long long)m ? (int)phase : s->n;
        p = &a[2 + 2 * q];
        pt__dev_store2(p, p[0] + (now - *last), p[1] + 1);
        *last = now;
        pt__dev_mark_trace(s, phase, now);
    }
}

PT_DEV_FN void pt__dev_end(const pt_dev_state *s, pt_dev_buf b, long long slot, int n)
{
    const long long *acc = pt__dev_acc(s);
    long long *r, clk1, gt1, bad;
    int m, q;
    if (!s->rec || !pt__dev_end_record(b, slot, &r))
        return;
    clk1 = pt__dev_clock();
    gt1 = pt__dev_ns();
    /* The first min(n, nphases) pairs are written, marked or not, so a
     * reused record never shows an earlier launch's figures; the buffer's
     * pairs past them keep what pt_dev_reset() left there. The marks of a
     * phase the buffer does not have, or beyond this n (a helper's mark
     * under a larger PT_DEV_PHASES), are counted as bad. Four pairs are
     * loaded before their stores: the loads then wait on shared memory
     * once for four, not once a pair (the compiler may not move a load of
     * the generic pointer above a store through another), which took END
     * from 938 to about 450 simulated cycles with 16 phases, holding 16
     * registers, not 64, at its widest. */
    m = n < s->n ? n : s->n;
    bad = acc[3 + 2 * s->n];
    PT__DEV_NO_UNROLL
    for (q = 0; q < m; q += 4) {
        long long pv[8];
        PT__DEV_UNROLL
        for (int k = 0; k < 4; k++)
            if (q + k < m) {
                pv[2 * k] = acc[2 + 2 * (q + k)];
                pv[2 * k + 1] = acc[3 + 2 * (q + k)];
            }
        PT__DEV_UNROLL
        for (int k = 0; k < 4; k++)
            if (q + k < m) {
                if (q + k < b.nphases)
                    pt__dev_store2(&r[PT_DEV_SLOT_HDR + 2 * (q + k)], pv[2 * k], pv[2 * k + 1]);
                else
                    bad += pv[2 * k + 1];
            }
    }
    /* Pairs past this n (a helper's marks under a larger PT_DEV_PHASES). */
    PT__DEV_NO_UNROLL
    for (q = m; q < s->n; q++)
        bad += acc[3 + 2 * q];
    pt__dev_end_header(s, r, acc[0], clk1, acc[1], gt1, bad);
}

#else

/* Register mode: the state is a local struct whose per-phase arrays have a
 * compile-time size and, after inlining, are only ever indexed by
 * constants (see the top of this file). */

PT_DEV_FN void pt__dev_begin(pt_dev_state *s, long long *acc, int n, pt_dev_buf b, long long slot)
{
    (void)acc;
    (void)n;
    PT__DEV_UNROLL
    for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
        s->cyc[q] = 0;
        s->hits[q] = 0;
    }
    s->bad = 0;
    pt__dev_begin_trace(s, b, slot, pt__dev_recording());
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
     * a constant phase leaves one add. */
    PT__DEV_UNROLL
    for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
        if (q < n && ok && (int)phase == q) {
            s->cyc[q] += d;
            s->hits[q] += 1;
        }
    }
#else
    if (ok) {
        s->cyc[phase] += d;
        s->hits[phase] += 1;
    }
#endif
    if (!ok)
        s->bad += 1;
    pt__dev_mark_trace(s, phase, now);
}

PT_DEV_FN void pt__dev_end(const pt_dev_state *s, pt_dev_buf b, long long slot, int n)
{
    long long *r, clk1, gt1, bad;
    if (!pt__dev_recording() || !pt__dev_end_record(b, slot, &r))
        return;
    clk1 = pt__dev_clock();
    gt1 = pt__dev_ns();
    /* The first n pairs are written, marked or not, so a reused record
     * never shows an earlier launch's figures; the buffer's pairs from n up
     * keep what pt_dev_reset() left there. The marks of a phase the buffer
     * does not have (nphases < n), or beyond this n (a helper's mark under
     * a larger PT_DEV_PHASES), are counted as bad. */
    bad = s->bad;
    PT__DEV_UNROLL
    for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
        if (q < n && q < b.nphases)
            pt__dev_store2(&r[PT_DEV_SLOT_HDR + 2 * q], s->cyc[q], s->hits[q]);
        else
            bad += s->hits[q];
    }
    pt__dev_end_header(s, r, s->clk0, clk1, s->gt0, gt1, bad);
}

#endif

#endif
