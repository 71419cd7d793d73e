/* The fold's arithmetic on one slot record, and the summary it adds into.
 *
 * One function, pt__red_slot(), turns a slot's cycles into nanoseconds and
 * adds them into a summary: per phase the sum, minimum and maximum over
 * blocks and the hits; for the launch the blocks done, the earliest start,
 * the latest end, the sum and longest of the block spans; per SM per
 * phase the sums; and per phase a histogram of the per-block times. The host fold (host/gpu/fold.c) runs it over the records it
 * copied back; the on-device reduction (device/reduce.cu) runs the same
 * function with one thread per slot, where the additions are atomics. So
 * both paths convert cycles into time with the same code, and the host
 * path is the reference the device path is tested against.
 *
 * Cycles into time, per slot (DESIGN.md, "Cycles into time"): a block
 * whose %globaltimer span is at least 100 measured ticks, with a positive
 * clock64 span, converts at its own rate (globaltimer span / clock64 span,
 * ns per cycle); any other at the calibrated rate.
 *
 * Each phase's cycles are net of the marks' own cost first: hits x the
 * cycles one mark costs, as the calibration measured it on the device
 * (pt__phase_ns), never below zero. Every interval a mark closes holds
 * one mark's clock read and bookkeeping, which the program without the
 * marks would not spend; what is taken out is summed per phase, so the
 * reports can say how much. A mark cost of 0 (not measured) takes out
 * nothing.
 *
 * The summary is an array of 8-byte words (pt__rword), zero-initialized:
 * sums start at 0, maxima are kept as the bits of non-negative values
 * (ordered like the values), minima as the complement of those bits, so
 * that "max of the complement" is the minimum and 0 means "none yet". All
 * of this works with plain memset and 64-bit atomicAdd/atomicMax.
 *
 * Plain C11 (the host library) and CUDA C++ (nvcc). Not installed. */
#ifndef PT_FOLD_MATH_H
#define PT_FOLD_MATH_H

#include <pt/pt_dev_buf.h>

#include "pt_hist.h" /* the per-block time histogram */

#if defined(__CUDACC__)
#  define PT__HD static __host__ __device__ __forceinline__
#else
#  define PT__HD static inline
#endif

/* Blocks whose globaltimer span is at least this many ticks use their own rate. */
#define PT__OWN_RATE_TICKS 100.0
/* Per-SM sums kept by the device reduction (%smid below this). */
#define PT__RED_NSM_DEVICE 1024

typedef union pt__rword {
    long long i;
    unsigned long long u;
    double d;
} pt__rword;

/* Word indices of the summary. The first PT_DEV_HDR words are a copy of
 * the buffer header, so the host can check a reduced buffer's shape. */
enum {
    PT__R_DONE = PT_DEV_HDR, /* slots with DONE == 1 */
    PT__R_UNDONE,            /* slots without */
    PT__R_OWN,               /* done slots converted at their own rate */
    PT__R_CAL,               /* done slots converted at the calibrated rate */
    PT__R_BAD_PHASE,         /* marks with a phase out of range, all slots */
    PT__R_DROPPED,           /* trace events dropped, all slots */
    PT__R_UNTRACED,          /* marks of done slots that stored and dropped no event (trace) */
    PT__R_SM_OVER,           /* done slots whose %smid had no per-SM column */
    PT__R_IMPLAUSIBLE,       /* done slots no kernel writes (pt__slot_ok): left out */
    PT__R_GT0_INV,           /* ~min GT0 */
    PT__R_GT1_MAX,           /* max GT1 */
    PT__R_SPAN_MAX,          /* bits of the longest span (ns) */
    PT__R_SPAN_SUM,          /* double: sum of spans (ns) */
    PT__R_PHASES             /* per phase: 4 words, then per SM per phase */
};
/* Per phase p: */
#define PT__R_PER_PHASE 5
#define PT__R_SUM(p) (PT__R_PHASES + PT__R_PER_PHASE * (p)) /* double: sum over blocks (ns) */
#define PT__R_MIN_INV(p) (PT__R_SUM(p) + 1)       /* ~bits of the minimum */
#define PT__R_MAX(p) (PT__R_SUM(p) + 2)           /* bits of the maximum */
#define PT__R_HITS(p) (PT__R_SUM(p) + 3)          /* marks */
#define PT__R_OVH(p) (PT__R_SUM(p) + 4)           /* double: the marks' cost taken out (ns) */
/* Per SM s and phase p (double, ns): */
#define PT__R_SM(nphases, s, p) (PT__R_PHASES + PT__R_PER_PHASE * (nphases) + (s) * (nphases) + (p))
/* Per phase p, the histogram of its per-block times: PT__HIST_BINS
 * counts (device/pt_hist.h), after the SM columns. */
#define PT__R_HIST(nphases, nsm, p) \
    (PT__R_SM(nphases, nsm, 0) + (long long)(p) * PT__HIST_BINS)
/* Words in a summary of nphases phases and nsm SM columns. */
#define PT__R_WORDS(nphases, nsm) ((long long)PT__R_PHASES + (long long)PT__R_PER_PHASE * (nphases) + \
                                   (long long)(nsm) * (nphases) + \
                                   (long long)(nphases) * PT__HIST_BINS)


PT__HD unsigned long long pt__dbits(double v)
{
#if defined(__CUDA_ARCH__)
    return (unsigned long long)__double_as_longlong(v);
#else
    pt__rword w;
    w.d = v;
    return w.u;
#endif
}

PT__HD double pt__bitsd(unsigned long long u)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)u);
#else
    pt__rword w;
    w.u = u;
    return w.d;
#endif
}

/* A minimum kept as the complement of its bits (above): the value, 0 where
 * none was kept. */
PT__HD double pt__r_min(pt__rword w)
{
    return w.u ? pt__bitsd(~w.u) : 0.0;
}

/* The three ways a summary word changes: atomics on the device, where
 * many slots add at once; plain arithmetic on the host. */
#if defined(__CUDA_ARCH__)
#  define PT__R_ADDI(w, v) atomicAdd(&(w).u, (unsigned long long)(v))
#  define PT__R_ADDD(w, v) atomicAdd(&(w).d, (v))
#  define PT__R_MAXU(w, v) atomicMax(&(w).u, (unsigned long long)(v))
#else
#  define PT__R_ADDI(w, v) ((w).u += (unsigned long long)(v))
#  define PT__R_ADDD(w, v) ((w).d += (v))
#  define PT__R_MAXU(w, v) do { unsigned long long v_ = (v); if (v_ > (w).u) (w).u = v_; } while (0)
#endif

/* The most a count of one slot (hits, bad marks, dropped events) may be,
 * so that the sums over nslots slots stay below 2^62, never wrapping. */
PT__HD long long pt__count_limit(int nslots)
{
    return (1LL << 62) / (nslots > 0 ? nslots : 1);
}

/* A count kept over many folds plus one fold's (n >= 0, below 2^62 by
 * the limit above), held at LLONG_MAX rather than wrapping. */
PT__HD long long pt__count_add(long long total, long long n)
{
    return total > 0x7fffffffffffffffLL - n ? 0x7fffffffffffffffLL : total + n;
}

/* %smid values from here on are garbage, not SMs: pt__slot_on_sm (below)
 * leaves such a slot out. */
#define PT__SM_LIMIT 65536

/* Whether a slot record is one a kernel wrote: 0 when it is not done
 * (DONE is 0), 1 when done once and plausible, -1 when done more than
 * once (several blocks began at the slot: their figures are mixed) or
 * done but holding
 * what no kernel writes (hostile or corrupted memory): a clock going
 * back or a span past 2^62, a negative count or one past `lim`
 * (pt__count_limit), more events than the trace holds, a negative
 * phase, or phases longer in all than the block between BEGIN and END.
 * Such a record is counted and left out whole; nothing of it overflows. */
PT__HD int pt__slot_ok(const long long *rec, int nphases, int trace_cap, long long lim)
{
    const long long *ph = rec + PT_DEV_SLOT_HDR;
    unsigned long long span, sum = 0;
    if (rec[PT_DEV_S_DONE] == 0)
        return 0;
    if (rec[PT_DEV_S_DONE] != 1)
        return -1;
    if (rec[PT_DEV_S_CLK1] < rec[PT_DEV_S_CLK0] || rec[PT_DEV_S_GT1] < rec[PT_DEV_S_GT0])
        return -1;
    span = (unsigned long long)rec[PT_DEV_S_CLK1] - (unsigned long long)rec[PT_DEV_S_CLK0];
    if (span > (1ULL << 62) ||
        (unsigned long long)rec[PT_DEV_S_GT1] - (unsigned long long)rec[PT_DEV_S_GT0] > (1ULL << 62))
        return -1;
    if (rec[PT_DEV_S_BAD_PHASE] < 0 || rec[PT_DEV_S_BAD_PHASE] > lim ||
        rec[PT_DEV_S_DROPPED] < 0 || rec[PT_DEV_S_DROPPED] > lim ||
        rec[PT_DEV_S_NEVENTS] < 0 || rec[PT_DEV_S_NEVENTS] > (long long)trace_cap)
        return -1;
    for (int p = 0; p < nphases; p++) {
        if (ph[2 * p] < 0 || ph[2 * p + 1] < 0 || ph[2 * p + 1] > lim)
            return -1;
        sum += (unsigned long long)ph[2 * p];
        if (sum > span)
            return -1;
    }
    return 1;
}

/* Whether a %smid is an SM's (below PT__SM_LIMIT). */
PT__HD int pt__smid_ok(long long smid)
{
    return smid >= 0 && smid < PT__SM_LIMIT;
}

/* A slot placed on its SM: one a kernel wrote (pt__slot_ok) whose %smid
 * is an SM's (pt__smid_ok). The fold's SM count, the launch's shape, the
 * overlap and the trace's bubbles read only these. */
PT__HD int pt__slot_on_sm(const long long *rec, int nphases, int trace_cap, long long lim)
{
    return pt__slot_ok(rec, nphases, trace_cap, lim) > 0 && pt__smid_ok(rec[PT_DEV_S_SMID]);
}

/* A slot's conversion: 1 when it uses its own rate, which goes in *rate. */
PT__HD int pt__slot_rate(const long long *rec, double tick_ns, double cal_ns_per_cycle,
                         double *rate)
{
    long long clk = rec[PT_DEV_S_CLK1] - rec[PT_DEV_S_CLK0];
    long long gt = rec[PT_DEV_S_GT1] - rec[PT_DEV_S_GT0];
    if (clk > 0 && gt > 0 && (double)gt >= PT__OWN_RATE_TICKS * tick_ns) {
        *rate = (double)gt / (double)clk;
        return 1;
    }
    *rate = cal_ns_per_cycle;
    return 0;
}

/* A phase's cycles in one slot as nanoseconds at rate, net of its hits x
 * mark_cycles (never below 0); the nanoseconds taken out go in *ovh. */
PT__HD double pt__phase_ns(long long cyc, long long hits, double mark_cycles, double rate,
                           double *ovh)
{
    double c = cyc > 0 ? (double)cyc : 0.0, net = c;
    if (hits > 0 && mark_cycles > 0) {
        net = c - (double)hits * mark_cycles;
        if (net < 0)
            net = 0;
    }
    *ovh = (c - net) * rate;
    return net * rate;
}

/* Adds one slot record into the summary r, its plausibility `ok` (as
 * pt__slot_ok says) and, where ok > 0, its conversion (`own`, `rate`, as
 * pt__slot_rate gives them) known. nsm: the per-SM columns r has;
 * mark_cycles: one mark's cost on the device (0: unknown); trace_cap and
 * lim as pt__slot_ok() takes them. */
PT__HD void pt__red_slot_as(pt__rword *r, const long long *rec, int ok, int own, double rate,
                            int nphases, int nsm, double mark_cycles, int trace_cap,
                            long long lim)
{
    const long long *ph = rec + PT_DEV_SLOT_HDR;
    long long clk, smid;
    double span;

    if (ok < 0) {
        PT__R_ADDI(r[PT__R_IMPLAUSIBLE], 1);
        return;
    }
    if (ok == 0) {
        PT__R_ADDI(r[PT__R_UNDONE], 1);
        return;
    }
    if (rec[PT_DEV_S_BAD_PHASE] > 0)
        PT__R_ADDI(r[PT__R_BAD_PHASE], rec[PT_DEV_S_BAD_PHASE]);
    if (rec[PT_DEV_S_DROPPED] > 0)
        PT__R_ADDI(r[PT__R_DROPPED], rec[PT_DEV_S_DROPPED]);
    clk = rec[PT_DEV_S_CLK1] - rec[PT_DEV_S_CLK0];
    span = clk > 0 ? (double)clk * rate : 0.0;
    PT__R_ADDI(r[PT__R_DONE], 1);
    PT__R_ADDI(r[own ? PT__R_OWN : PT__R_CAL], 1);
    if (rec[PT_DEV_S_GT0] >= 0)
        PT__R_MAXU(r[PT__R_GT0_INV], ~(unsigned long long)rec[PT_DEV_S_GT0]);
    if (rec[PT_DEV_S_GT1] > 0)
        PT__R_MAXU(r[PT__R_GT1_MAX], (unsigned long long)rec[PT_DEV_S_GT1]);
    PT__R_ADDD(r[PT__R_SPAN_SUM], span);
    PT__R_MAXU(r[PT__R_SPAN_MAX], pt__dbits(span));
    smid = rec[PT_DEV_S_SMID];
    if (smid >= nsm)
        PT__R_ADDI(r[PT__R_SM_OVER], 1);
    /* A kernel built without trace stores (pt_dev.h without
     * PT_DEV_TRACING) leaves NEVENTS and DROPPED at 0, where a tracing one
     * stores or drops every mark; on a trace buffer (the only one with
     * room for events) the host counts such marks as dropped. */
    if (trace_cap > 0 && rec[PT_DEV_S_NEVENTS] == 0 && rec[PT_DEV_S_DROPPED] == 0) {
        /* Held at lim, as each count is (pt__slot_ok), so that the sum
         * over the slots stays below 2^62: a slot's phases together may
         * hold nphases + 1 counts of lim. */
        long long marks = rec[PT_DEV_S_BAD_PHASE] > 0 ? rec[PT_DEV_S_BAD_PHASE] : 0;
        for (int p = 0; p < nphases; p++) {
            long long hits = ph[2 * p + 1] > 0 ? ph[2 * p + 1] : 0;
            marks = hits > lim - marks ? lim : marks + hits;
        }
        if (marks > 0)
            PT__R_ADDI(r[PT__R_UNTRACED], marks);
    }
    for (int p = 0; p < nphases; p++) {
        long long hits = ph[2 * p + 1];
        double ovh, ns = pt__phase_ns(ph[2 * p], hits, mark_cycles, rate, &ovh);
        PT__R_ADDD(r[PT__R_SUM(p)], ns);
        if (ovh > 0)
            PT__R_ADDD(r[PT__R_OVH(p)], ovh);
        PT__R_MAXU(r[PT__R_MIN_INV(p)], ~pt__dbits(ns));
        PT__R_MAXU(r[PT__R_MAX(p)], pt__dbits(ns));
        if (hits > 0)
            PT__R_ADDI(r[PT__R_HITS(p)], hits);
        if (smid >= 0 && smid < nsm)
            PT__R_ADDD(r[PT__R_SM(nphases, smid, p)], ns);
        PT__R_ADDI(r[PT__R_HIST(nphases, nsm, p) + pt__hist_bin(ns)], 1);
    }
}

/* Adds one slot record into the summary r: pt__red_slot_as() with its
 * plausibility and conversion found here. tick_ns, cal_ns_per_cycle as
 * pt__slot_rate takes them; trace_cap and lim as pt__slot_ok() does. */
PT__HD void pt__red_slot(pt__rword *r, const long long *rec, int nphases, int nsm,
                         double tick_ns, double cal_ns_per_cycle, double mark_cycles,
                         int trace_cap, long long lim)
{
    double rate = 0;
    int own = 0, ok = pt__slot_ok(rec, nphases, trace_cap, lim);

    if (ok > 0)
        own = pt__slot_rate(rec, tick_ns, cal_ns_per_cycle, &rate);
    pt__red_slot_as(r, rec, ok, own, rate, nphases, nsm, mark_cycles, trace_cap, lim);
}

#endif
