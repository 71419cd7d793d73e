/* What PT_DEV_BEGIN, PT_DEV_MARK and PT_DEV_END expand to. Internal:
 * include <pt/pt_dev.h>, which documents the behaviour; this file explains
 * how it is made cheap.
 *
 * The state of one BEGIN..END lives in a local struct. Its per-phase arrays
 * have a compile-time size and, after inlining, are only ever indexed by
 * constants (a mark with an enum literal, and the fully unrolled loops in
 * BEGIN and END), so the compiler turns every element into a register and
 * drops the elements no mark touches. A mark is then: one clock read, a
 * subtract, an add and a move (plus the hit increment), and a test of the
 * trace pointer, which is uniform (NULL) outside trace mode. */
#if !defined(PT__DEV_INSIDE)
#  error "include <pt/pt_dev.h>"
#elif !defined(PT_DETAIL_PT_DEV_IMPL_H)
#define PT_DETAIL_PT_DEV_IMPL_H

/* The slot argument PT_DEV_BEGIN passes: "the slot this block (or warp)
 * owns". A constant, so the choice between it and an explicit slot is made
 * at compile time, and the block's slot is recomputed at END from the
 * special registers instead of being held in a register all along. */
#define PT__DEV_AUTO (-0x7fffffffffffffffLL - 1)

/* The null pointer, spelled so C++ builds with -Wzero-as-null-pointer-constant stay quiet. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#  define PT__DEV_NULL nullptr
#else
#  define PT__DEV_NULL 0
#endif

typedef struct pt__dev_state {
    long long prev;                       /* clock at the last mark (or BEGIN) */
    long long cyc[PT_DEV_MAX_PHASES];     /* cycles charged to each phase */
    long long hits[PT_DEV_MAX_PHASES];    /* marks of each phase */
    long long bad;                        /* marks with a phase >= PT_DEV_MAX_PHASES or < 0 */
    long long *ev;                        /* trace events of this record; NULL unless tracing */
    long long nev;                        /* trace marks seen: the stored ones, then the dropped */
    long long cap;                        /* events the record can store */
    long long slot;                       /* PT__DEV_AUTO or the slot given to BEGIN_AT */
    long long clk0, gt0, where0;          /* the record's BEGIN header */
} pt__dev_state;

/* 1 on the thread that writes the record: thread (0,0,0) of the block, or
 * lane 0 of each warp with PT_DEV_PER_WARP; on the CPU the caller itself. */
PT_DEV_FN int pt__dev_recording(void)
{
#if PT__DEV_ON_GPU
#  if defined(PT_DEV_PER_WARP)
    return ((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u) == 0;
#  else
    return (threadIdx.x | threadIdx.y | threadIdx.z) == 0;
#  endif
#else
    return 1;
#endif
}

/* The slot of this block (linear block index), or of this warp (linear
 * block index * warps per block + warp index). Slot 0 on the CPU. */
PT_DEV_FN long long pt__dev_auto_slot(void)
{
#if PT__DEV_ON_GPU
    long long block = (long long)blockIdx.x +
                      (long long)gridDim.x * ((long long)blockIdx.y +
                                              (long long)gridDim.y * (long long)blockIdx.z);
#  if defined(PT_DEV_PER_WARP)
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    return block * (long long)((threads + 31u) / 32u) + (long long)(tid / 32u);
#  else
    return block;
#  endif
#else
    return 0;
#endif
}

/* A buffer the macros leave alone: no memory, no slots, or a shape no host
 * would make. */
PT_DEV_FN int pt__dev_skipped(pt_dev_buf b)
{
    return b.data == PT__DEV_NULL || b.nslots <= 0 || b.nphases < 0 || b.trace_cap < 0;
}

/* The record of slot k, laid out as pt_dev_buf.h says. */
PT_DEV_FN long long *pt__dev_record(pt_dev_buf b, long long k)
{
    return b.data + PT_DEV_HDR + k * PT_DEV_SLOT_WORDS(b.nphases, b.trace_cap);
}

PT_DEV_FN pt__dev_state pt__dev_begin(pt_dev_buf b, long long slot)
{
    pt__dev_state s;
    PT__DEV_UNROLL
    for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
        s.cyc[q] = 0;
        s.hits[q] = 0;
    }
    s.bad = 0;
    s.ev = PT__DEV_NULL;
    s.nev = 0;
    s.cap = 0;
    s.slot = slot;
    s.gt0 = 0;
    s.where0 = 0;
    if (!pt__dev_skipped(b) && pt__dev_recording()) {
        long long k = slot == PT__DEV_AUTO ? pt__dev_auto_slot() : slot;
        if (k < 0 || k >= b.nslots) {
            pt__dev_count_bad_slot(b.data);
        } else {
            s.where0 = pt__dev_where();
            if (b.mode == PT_DEV_MODE_TRACE) {
                /* A non-NULL ev marks the tracing thread. Without trace
                 * support compiled in, the capacity stays 0, so every
                 * event is counted as dropped rather than vanishing. */
                s.ev = pt__dev_record(b, k) + PT_DEV_SLOT_HDR + 2LL * b.nphases;
#if !defined(PT_DEV_NO_TRACE)
                s.cap = b.trace_cap;
#endif
            }
            s.gt0 = pt__dev_ns();
        }
    }
    /* Read last, so the set-up above is not charged to the first phase. */
    s.clk0 = pt__dev_clock();
    s.prev = s.clk0;
    return s;
}

PT_DEV_FN void pt__dev_mark(pt__dev_state *s, long long phase)
{
    long long now = pt__dev_clock();
    long long d = now - s->prev;
    s->prev = now;
    /* One unsigned compare catches negative phases too; with a constant
     * phase it is decided at compile time. Phases between the buffer's
     * nphases and PT_DEV_MAX_PHASES are accumulated like any other and
     * counted as bad at END, which keeps buf.nphases out of the mark. */
    if ((unsigned long long)phase < (unsigned long long)PT_DEV_MAX_PHASES) {
        s->cyc[phase] += d;
        s->hits[phase] += 1;
    } else {
        s->bad += 1;
    }
    if (s->ev) {
#if !defined(PT_DEV_NO_TRACE)
        if (s->nev < s->cap) {
            s->ev[2 * s->nev] = phase;
            s->ev[2 * s->nev + 1] = now;
        }
#endif
        s->nev += 1;
    }
}

PT_DEV_FN void pt__dev_end(const pt__dev_state *s, pt_dev_buf b)
{
    long long k, clk1, gt1, where1, np, bad, stored, *r;
    if (pt__dev_skipped(b) || !pt__dev_recording())
        return;
    k = s->slot == PT__DEV_AUTO ? pt__dev_auto_slot() : s->slot;
    if (k < 0 || k >= b.nslots)
        return; /* counted at BEGIN */
    clk1 = pt__dev_clock();
    gt1 = pt__dev_ns();
    where1 = pt__dev_where();
    r = pt__dev_record(b, k);
    np = b.nphases;
    bad = s->bad;
    /* Every phase the accumulators hold is written, marked or not, so a
     * reused record never shows an earlier launch's figures. Phases of the
     * buffer from PT_DEV_MAX_PHASES up cannot be marked and are not written:
     * they keep the host's zeros. */
    PT__DEV_UNROLL
    for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
        if (q < np) {
            r[PT_DEV_SLOT_HDR + 2 * q] = s->cyc[q];
            r[PT_DEV_SLOT_HDR + 2 * q + 1] = s->hits[q];
        } else {
            bad += s->hits[q];
        }
    }
    stored = s->nev < s->cap ? s->nev : s->cap;
    r[PT_DEV_S_SMID] = s->where0;
    r[PT_DEV_S_CLK0] = s->clk0;
    r[PT_DEV_S_CLK1] = clk1;
    r[PT_DEV_S_GT0] = s->gt0;
    r[PT_DEV_S_GT1] = gt1;
    r[PT_DEV_S_BAD_PHASE] = bad;
    r[PT_DEV_S_NEVENTS] = stored;
    r[PT_DEV_S_DROPPED] = s->nev - stored;
    r[PT_DEV_S_SMID1] = where1;
    pt__dev_publish(r);
}

#endif
