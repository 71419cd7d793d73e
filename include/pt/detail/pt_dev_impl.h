/* What PT_DEV_BEGIN, PT_DEV_MARK and PT_DEV_END expand to. Internal:
 * include <pt/pt_dev.h>, which documents the behaviour and the costs; this
 * file explains how they are kept low.
 *
 * The state of one BEGIN..END is a local struct (pt_dev_state). Its
 * per-phase arrays have a compile-time size and, after inlining, are only
 * ever indexed by constants: a mark with a constant phase touches one
 * element, a mark with a run-time phase tests the phase against each of the
 * n phases in turn (n = PT_DEV_PHASES where the macro stands), and BEGIN
 * and END are loops the compiler unrolls. So every element the kernel marks
 * becomes a register and the others disappear; nothing is indexed at run
 * time, so nothing goes to local memory.
 *
 * Every thread reads the clocks and keeps the accumulators, so BEGIN and
 * the marks never branch (in converged code the compiler may keep them in
 * uniform registers, one copy per warp). All the work on the record is at
 * END, on the recording thread alone: finding the record once, then a few
 * 128-bit stores and a release store of DONE. Trace stores exist only with
 * PT_DEV_TRACING. */
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

struct pt_dev_state {
    long long prev;                       /* clock at the last mark (or BEGIN) */
    long long cyc[PT_DEV_MAX_PHASES];     /* cycles charged to each phase */
    long long hits[PT_DEV_MAX_PHASES];    /* marks of each phase */
    long long bad;                        /* marks of a phase outside [0, n) */
    long long clk0, gt0;                  /* clock64 and %globaltimer at BEGIN */
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

/* The slot given to BEGIN_AT, or with PT__DEV_AUTO the slot of this block
 * (linear block index), or of this warp (linear block index * warps per
 * block + warp index); slot 0 on the CPU. 1 when it is a slot of the
 * buffer, in *k. */
PT_DEV_FN int pt__dev_slot(pt_dev_buf b, long long slot, unsigned long long *k)
{
    if (slot != PT__DEV_AUTO) {
        /* Unsigned, so a negative slot is one too large; a buffer of no
         * slots (or fewer) has none. */
        *k = (unsigned long long)slot;
        return *k < (unsigned long long)(b.nslots > 0 ? b.nslots : 0);
    }
#if PT__DEV_ON_GPU
    {
        /* y + gridDim.y * z fits in 32 bits (both are below 2^16); its
         * product with gridDim.x may not, but stays far below 2^63, so a
         * signed compare with nslots serves, whatever nslots holds. */
        unsigned yz = blockIdx.y + gridDim.y * blockIdx.z;
        unsigned long long block = (unsigned long long)yz * gridDim.x + blockIdx.x;
#  if defined(PT_DEV_PER_WARP)
        unsigned threads = blockDim.x * blockDim.y * blockDim.z;
        unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        block = block * ((threads + 31u) / 32u) + tid / 32u;
#  endif
        *k = block;
    }
#else
    *k = 0;
#endif
    return (long long)*k < (long long)b.nslots;
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

PT_DEV_FN void pt__dev_begin(pt_dev_state *s, pt_dev_buf b, long long slot)
{
    PT__DEV_UNROLL
    for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
        s->cyc[q] = 0;
        s->hits[q] = 0;
    }
    s->bad = 0;
#if defined(PT_DEV_TRACING)
    s->ev = PT__DEV_NULL;
    s->nev = 0;
    s->cap = 0;
    if (b.mode == PT_DEV_MODE_TRACE && b.data != PT__DEV_NULL && pt__dev_recording()) {
        unsigned long long k;
        if (pt__dev_slot(b, slot, &k)) {
            s->ev = pt__dev_record(b, k) + PT_DEV_SLOT_HDR + 2LL * b.nphases;
            s->cap = b.trace_cap;
        }
    }
#else
    (void)b;
    (void)slot;
#endif
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
#if defined(PT_DEV_TRACING)
    if (s->ev) {
        if (s->nev < s->cap)
            pt__dev_store2(&s->ev[2 * s->nev], phase, now);
        s->nev += 1;
    }
#endif
}

PT_DEV_FN void pt__dev_end(const pt_dev_state *s, pt_dev_buf b, long long slot, int n)
{
    unsigned long long k;
    long long *r, clk1, gt1, where, bad, stored, dropped;
    if (b.data == PT__DEV_NULL || !pt__dev_recording())
        return;
    if (!pt__dev_slot(b, slot, &k)) {
        pt__dev_count_bad_slot(b.data, pt__dev_opaque_zero());
        return;
    }
    r = pt__dev_record(b, k);
    clk1 = pt__dev_clock();
    gt1 = pt__dev_ns();
    where = pt__dev_where();
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
#if defined(PT_DEV_TRACING)
    stored = s->nev < s->cap ? s->nev : s->cap;
    dropped = s->nev - stored;
#else
    /* Built without trace stores: no event stored, none dropped. On a
     * trace buffer a record with marks says so, since a kernel that traces
     * stores or drops each mark; the fold counts its marks as dropped. */
    stored = 0;
    dropped = 0;
#endif
    r[PT_DEV_S_SMID] = where;
    pt__dev_store2(&r[PT_DEV_S_CLK0], s->clk0, clk1);
    pt__dev_store2(&r[PT_DEV_S_GT0], s->gt0, gt1);
    pt__dev_store2(&r[PT_DEV_S_BAD_PHASE], bad, stored);
    pt__dev_store2(&r[PT_DEV_S_DROPPED], dropped, where);
    pt__dev_publish(r);
}

#endif
