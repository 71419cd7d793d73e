/* A launch's shape, from one fold's block records: how its blocks filled
 * the device (waves, tail, idle SMs, the slowest block, the stragglers).
 *
 * Each finished block is the interval [GT0, GT1] of %globaltimer, which
 * every SM reads alike (clock64 is each SM's own), on SM %smid. With the
 * span W from the first BEGIN to the last END:
 *
 *   resident    the most blocks one SM held at once: the most intervals of
 *               one SM that overlap (one ending where the next begins do not)
 *   sms         the device's SMs (cudaDevAttrMultiProcessorCount), at least
 *               the highest %smid seen + 1; in host mode, the CPUs seen
 *   waves       blocks / (resident x sms): 1.0 fills every SM once
 *   tail        from the first SM falling idle (the earliest of the SMs'
 *               last ENDs) to the last END
 *   idle        the SMs' time without a block (W less the union of each
 *               SM's intervals; an SM without blocks idles all of W),
 *               as a share of sms x W
 *   slowest     the block with the longest BEGIN..END (its clock64 span at
 *               its rate, as the fold converts phases), with its phases
 *   stragglers  SMs whose last END came more than W / 10 after the median
 *               SM's last END
 *
 * Sorting by SM and BEGIN makes it O(n log n) in the blocks at worst;
 * O(n + SMs) for the common grid whose blocks began in slot order on
 * each SM (sort_blocks, below); the median SM's last END is selected,
 * not sorted for (kth). */
#include "gpu/shape.h"

#include "core/shape.h"
#include "gpu/cuda.h"

#include "pt_fold_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct blk {
    long long gt0, gt1;
    int sm;
} blk;

static int by_sm_begin(const void *a, const void *b)
{
    const blk *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return x->gt0 < y->gt0 ? -1 : x->gt0 > y->gt0;
}

static int by_value(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* Whether v[0..n) is in order already, as a GPU's blocks mostly come:
 * then no qsort is needed. The comparisons are called directly, not
 * through qsort's pointer, so they are inlined. */
static int blocks_sorted(const blk *v, int n)
{
    for (int i = 1; i < n; i++)
        if (by_sm_begin(&v[i - 1], &v[i]) > 0)
            return 0;
    return 1;
}

static int values_sorted(const long long *v, int n)
{
    for (int i = 1; i < n; i++)
        if (by_value(&v[i - 1], &v[i]) > 0)
            return 0;
    return 1;
}

/* v (n blocks, SMs below top_sm) sorted by SM and BEGIN: a counting sort
 * by SM into tmp and back, stable, so each SM's blocks keep their slot
 * order, which on a GPU is mostly their BEGIN order already; an SM whose
 * blocks are not in order is sorted alone. A fold of 132 one-phase
 * blocks spent half its time in a qsort of them. O(n + top_sm), and
 * O(n log n) at worst. Without the memory for the counts, one qsort. */
static void sort_blocks(blk *v, blk *tmp, int n, int top_sm)
{
    int *at;

    if (n < 2 || blocks_sorted(v, n))
        return;
    at = top_sm <= 4 * n + 1024 ? calloc((size_t)top_sm + 1, sizeof *at) : NULL;
    if (!at) {
        qsort(v, (size_t)n, sizeof *v, by_sm_begin);
        return;
    }
    for (int i = 0; i < n; i++)
        at[v[i].sm + 1]++;
    for (int k = 0; k < top_sm; k++)
        at[k + 1] += at[k];
    for (int i = 0; i < n; i++)
        tmp[at[v[i].sm]++] = v[i];
    memcpy(v, tmp, (size_t)n * sizeof *v);
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[j].sm == v[i].sm; j++) {
        }
        if (!blocks_sorted(v + i, j - i))
            qsort(v + i, (size_t)(j - i), sizeof *v, by_sm_begin);
    }
    free(at);
}

/* The k-th smallest of v[0..n) (0-based), v reordered: Hoare's
 * selection, the middle element the pivot; O(n) for the SMs' last ENDs,
 * which come nearly sorted. */
static long long kth(long long *v, int n, int k)
{
    int lo = 0, hi = n - 1;

    while (lo < hi) {
        long long pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                long long x = v[i];
                v[i++] = v[j];
                v[j--] = x;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

/* The device's SMs, asked once per buffer; 0 when unknown. */
static int device_sms(pt_dev_records *b)
{
    int n = 0;

    if (b->sms == 0) {
        b->sms = -1;
        if (!b->host && b->cu && !b->cu->unavailable && b->cu->DeviceGetAttribute &&
            b->cu->DeviceGetAttribute(&n, PT__CU_ATTR_MULTIPROCESSORS, b->device) == 0 && n > 0)
            b->sms = n;
    }
    return b->sms > 0 ? b->sms : 0;
}

/* Over the n blocks sorted by SM and BEGIN: per SM its busy time, most
 * resident blocks and last END. ends and lasts have room for n. */
static void per_sm(const blk *v, int n, long long *ends, long long *lasts, int *ngroups,
                   double *busy, uint64_t *resident, long long *last_sm)
{
    long long latest = 0;
    int g = 0;

    *busy = 0;
    *resident = 0;
    for (int i = 0, j; i < n; i = j) {
        long long s = v[i].gt0, e = v[i].gt1;
        int k = 0;
        for (j = i; j < n && v[j].sm == v[i].sm; j++) {
            ends[j - i] = v[j].gt1;
            if (v[j].gt0 > e) { /* a gap: the union's piece so far ends */
                *busy += (double)(e - s);
                s = v[j].gt0;
            }
            if (v[j].gt1 > e)
                e = v[j].gt1;
        }
        *busy += (double)(e - s);
        if (!values_sorted(ends, j - i))
            qsort(ends, (size_t)(j - i), sizeof *ends, by_value);
        /* Blocks begun by the m-th BEGIN less those ended by then. */
        for (int m = i; m < j; m++) {
            while (k < j - i && ends[k] <= v[m].gt0)
                k++;
            if ((uint64_t)(m - i + 1 - k) > *resident)
                *resident = (uint64_t)(m - i + 1 - k);
        }
        lasts[g++] = ends[j - i - 1];
        if (g == 1 || ends[j - i - 1] > latest) {
            latest = ends[j - i - 1];
            *last_sm = v[i].sm;
        }
    }
    *ngroups = g;
}

void pt__shape_figure(const pt_dev_records *b, const long long *d, const double *rate,
                      double mark_cycles, pt__shape_fig *f)
{
    long long sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap);
    long long s0 = 0, s1 = 0, *ends, *lasts;
    double slow_rate = 0;
    size_t ns = (size_t)(b->nslots > 0 ? b->nslots : 1);
    blk *v;

    memset(f, 0, sizeof *f);
    f->slow_ns = -1;
    f->slow_at = -1;
    /* One allocation: the blocks twice (the sort's room), their ENDs and
     * the SMs' last ENDs; and the slowest block's phases, kept. */
    v = malloc(ns * 2 * sizeof *v + ns * 2 * sizeof *ends);
    f->ph = malloc((size_t)(b->nphases > 0 ? b->nphases : 1) * sizeof *f->ph);
    if (!v || !f->ph)
        goto out;
    ends = (long long *)(void *)(v + 2 * ns);
    lasts = ends + b->nslots;
    for (int s = 0; s < b->nslots; s++) {
        const long long *rec = d + PT_DEV_HDR + s * sw;
        long long sm = rec[PT_DEV_S_SMID], gt0 = rec[PT_DEV_S_GT0], gt1 = rec[PT_DEV_S_GT1];
        double span;
        /* On an SM, as pt__slot_on_sm says: a slot the fold keeps, its
         * %smid an SM's. */
        if (isnan(rate[s]) || !pt__smid_ok(sm) || gt0 < 0 || gt1 < gt0)
            continue;
        v[f->n++] = (blk){ gt0, gt1, (int)sm };
        if (f->n == 1 || gt0 < s0)
            s0 = gt0;
        if (f->n == 1 || gt1 > s1)
            s1 = gt1;
        if (sm >= f->top_sm)
            f->top_sm = (int)sm + 1;
        span = (double)(rec[PT_DEV_S_CLK1] - rec[PT_DEV_S_CLK0]) * rate[s];
        if (span > f->slow_ns) {
            f->slow_ns = span;
            f->slow_at = s;
            slow_rate = rate[s];
        }
    }
    if (f->n == 0 || s1 <= s0)
        goto out;
    f->span = (double)(s1 - s0);
    sort_blocks(v, v + b->nslots, f->n, f->top_sm);
    per_sm(v, f->n, ends, lasts, &f->g, &f->busy, &f->resident, &f->straggler_sm);
    /* A block is resident at its own BEGIN, whatever its END says (a
     * record whose END equals its BEGIN left the count at 0). */
    if (f->resident == 0)
        f->resident = 1;
    {
        long long first_idle = lasts[0], median;
        double tenth = f->span / 10;
        for (int i = 1; i < f->g; i++)
            if (lasts[i] < first_idle)
                first_idle = lasts[i];
        median = kth(lasts, f->g, (f->g - 1) / 2);
        f->tail = (double)(s1 - first_idle);
        for (int i = 0; i < f->g; i++)
            f->stragglers += (double)(lasts[i] - median) > tenth;
    }
    f->slow_sm = d[PT_DEV_HDR + f->slow_at * sw + PT_DEV_S_SMID];
    for (int p = 0; p < b->nphases; p++) {
        const long long *rec = d + PT_DEV_HDR + f->slow_at * sw;
        double ovh;
        f->ph[p] = pt__phase_ns(rec[PT_DEV_SLOT_HDR + 2 * p], rec[PT_DEV_SLOT_HDR + 2 * p + 1],
                                mark_cycles, slow_rate, &ovh);
    }
    f->ok = 1;
out:
    free(v);
}

void pt__shape_add(pt_section *node, pt_dev_records *b, pt__shape_fig *f)
{
    pt__shape *sh;
    uint64_t sms;
    double waves, idle;

    if (!f->ok)
        return;
    sms = (uint64_t)(b->host ? f->g : f->top_sm);
    if (!b->host && (uint64_t)device_sms(b) > sms)
        sms = (uint64_t)device_sms(b);
    waves = (double)f->n / ((double)f->resident * (double)sms);
    idle = 1.0 - f->busy / ((double)sms * f->span);
    if (idle < 0)
        idle = 0;
    if (!(sh = pt__shape_of(node)) ||
        pt__shape_slowest(sh, f->slow_ns, f->slow_at, f->slow_sm, b->nphases,
                          (const char *const *)b->names, f->ph) < 0)
        return;
    sh->folds++;
    sh->on_host |= b->host;
    sh->waves_sum += waves;
    sh->span_ns_sum += f->span;
    sh->tail_ns_sum += f->tail;
    sh->idle_sum += idle;
    if (f->resident > sh->resident)
        sh->resident = f->resident;
    if (sms > sh->sms)
        sh->sms = sms;
    if (f->stragglers >= sh->stragglers) {
        sh->stragglers = f->stragglers;
        sh->straggler_sm = f->straggler_sm;
    }
}

void pt__shape_fig_free(pt__shape_fig *f)
{
    free(f->ph);
    f->ph = NULL;
    f->ok = 0;
}
