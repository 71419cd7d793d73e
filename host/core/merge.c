/* Merging sections by path: the occurrences of one tree pooled into
 * another, as if they had been recorded there. Threads' trees meet the
 * timing's tree this way, and so do other processes' trees.
 *
 * Other processes' figures are only known to be finite (pack.c checks
 * that much), so every sum and spread saturates at the largest finite
 * double and every count at UINT64_MAX: a merged tree never holds an
 * infinity, a NaN or a count that wrapped, and so it always packs into
 * bytes that pt_unpack_merge() reads back and saves as JSON that reads
 * back. No real run comes near. */
#include "core/merge.h"

#include "core/shape.h"
#include "core/tree.h"
#include "pt_hist.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

static double clamp(double v)
{
    return v > DBL_MAX ? DBL_MAX : v < -DBL_MAX ? -DBL_MAX : v;
}

static double sum(double a, double b)
{
    return clamp(a + b);
}

/* Counts saturate at INT64_MAX, not UINT64_MAX: the largest count every
 * JSON reader (ptreport's among them) takes as an integer, so a merged
 * run saved as JSON always reads back. */
#define COUNT_MAX ((uint64_t)INT64_MAX)

static uint64_t count_sum(uint64_t a, uint64_t b)
{
    a = a < COUNT_MAX ? a : COUNT_MAX;
    b = b < COUNT_MAX ? b : COUNT_MAX;
    return b > COUNT_MAX - a ? COUNT_MAX : a + b;
}

/* Occurrences 2..count of a section as one Welford summary. */
typedef struct rest {
    double n, mean, m2, min, max;
} rest;

static rest rest_of(const pt_section *s)
{
    rest r = { 0, 0, 0, 0, 0 };
    if (s->count > 1)
        r = (rest){ (double)(s->count - 1), s->mean_ns, s->m2_ns, s->min_ns, s->max_ns };
    return r;
}

/* Chan, Golub and LeVeque's pairwise update: a and b as one summary. */
static rest rest_join(rest a, rest b)
{
    double n, d;

    if (b.n == 0)
        return a;
    if (a.n == 0)
        return b;
    /* Clamped step by step, finite inputs give finite results: no
     * infinity is ever added to its opposite. */
    n = a.n + b.n;
    d = clamp(b.mean - a.mean);
    return (rest){ n, sum(a.mean, d * (b.n / n)),
                   sum(sum(a.m2, b.m2), clamp(clamp(d * d) * (a.n * b.n / n))),
                   a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max };
}

static void merge_occurrences(pt_section *dst, const pt_section *src)
{
    rest r;

    if (src->count == 0)
        return;
    if (dst->count == 0) {
        /* src's first occurrence is the first the merged section has. */
        dst->first_ns = src->first_ns;
        r = rest_of(src);
    } else {
        rest one = { 1, src->first_ns, 0, src->first_ns, src->first_ns };
        r = rest_join(rest_join(rest_of(dst), one), rest_of(src));
    }
    dst->count = count_sum(dst->count, src->count);
    dst->total_ns = sum(dst->total_ns, src->total_ns);
    dst->last_ns = src->last_ns;
    dst->mean_ns = r.mean;
    dst->m2_ns = r.m2;
    dst->min_ns = r.min;
    dst->max_ns = r.max;
}

static int merge_phase(pt_section *dst, const pt__phase_ext *src)
{
    pt__phase_ext *p = dst->phase;

    if (!p) {
        p = calloc(1, sizeof *p);
        if (!p)
            return PT_ENOMEM;
        dst->phase = p;
    }
    if (src->nsm > p->nsm) {
        double *v = realloc(p->sm_ns, (size_t)src->nsm * sizeof *v);
        if (!v)
            return PT_ENOMEM;
        memset(v + p->nsm, 0, (size_t)(src->nsm - p->nsm) * sizeof *v);
        p->sm_ns = v;
        p->nsm = src->nsm;
    }
    for (int i = 0; i < src->nsm; i++)
        p->sm_ns[i] = sum(p->sm_ns[i], src->sm_ns[i]);
    if (src->hist) {
        if (!p->hist && !(p->hist = calloc(PT__HIST_BINS, sizeof *p->hist)))
            return PT_ENOMEM;
        for (int k = 0; k < PT__HIST_BINS; k++)
            p->hist[k] = count_sum(p->hist[k], src->hist[k]);
    }
    if (src->blocks) {
        if (!p->blocks || src->block_min_ns < p->block_min_ns)
            p->block_min_ns = src->block_min_ns;
        if (!p->blocks || src->block_max_ns > p->block_max_ns)
            p->block_max_ns = src->block_max_ns;
    }
    p->blocks = count_sum(p->blocks, src->blocks);
    /* Each bin saturates on its own, so where the blocks did too the bins
     * can hold more than the blocks: the slowest are cut back until they
     * add up to no more, as a packed tree must (pack.c refuses more). */
    if (p->hist && p->blocks == COUNT_MAX) {
        uint64_t left = p->blocks;
        for (int k = 0; k < PT__HIST_BINS; k++) {
            p->hist[k] = p->hist[k] < left ? p->hist[k] : left;
            left -= p->hist[k];
        }
    }
    p->hits = sum(p->hits, src->hits);
    p->block_sum_ns = sum(p->block_sum_ns, src->block_sum_ns);
    return 0;
}

/* Occurrences of s the CPU clock timed: all of a CPU section's, those of
 * a GPU section that fell back to it. */
static uint64_t cpu_clocked(const pt_section *s)
{
    return s->kind == PT__K_CPU ? s->count : s->kind == PT__K_GPU ? s->cpu_timed : 0;
}

static int merge_node(pt_section *dst, const pt_section *src)
{
    /* A GPU section and a CPU one at the same path (one run timed it with
     * events, the other on the CPU): a GPU section, whose occurrences of
     * the CPU one count as timed by the CPU clock, so the reports still
     * mark it [cpu clock] and leave its rates out. */
    int mixed = dst->count > 0 && src->count > 0 &&
                ((dst->kind == PT__K_CPU && src->kind == PT__K_GPU) ||
                 (dst->kind == PT__K_GPU && src->kind == PT__K_CPU));

    if (mixed) {
        dst->cpu_timed = count_sum(cpu_clocked(dst), cpu_clocked(src));
        dst->kind = PT__K_GPU;
    } else {
        if (dst->count == 0 && !dst->child)
            dst->kind = src->kind;
        dst->cpu_timed = count_sum(dst->cpu_timed, src->cpu_timed);
    }
    merge_occurrences(dst, src);
    dst->read = sum(dst->read, src->read);
    dst->written = sum(dst->written, src->written);
    dst->flops = sum(dst->flops, src->flops);
    for (int i = 0; i < 3; i++)
        dst->xfer[i] = sum(dst->xfer[i], src->xfer[i]);
    if (src->mem_hwm > dst->mem_hwm)
        dst->mem_hwm = src->mem_hwm;
    dst->ran_here |= src->ran_here;
    dst->ovh_ns = sum(dst->ovh_ns, src->ovh_ns);
    if (src->shape && pt__shape_merge(dst, src->shape) < 0)
        return PT_ENOMEM;
    return src->phase ? merge_phase(dst, src->phase) : 0;
}

/* rec makes dst's missing children and counts them. Depth first without
 * recursion, however deep src is: dsts[k] is the section of dst's tree
 * at k levels below dst where the walk stands in src. */
static int merge_in(pt__thr *rec, pt_section *dst, const pt_section *src)
{
    pt_section **dsts = NULL;
    size_t cap = 0;
    int rc = 0;

    if (dst->parent) /* a root has no figures of its own */
        rc = merge_node(dst, src);
    for (const pt_section *c = src->child; c; c = pt__tree_next(c, src)) {
        size_t k = (size_t)(c->depth - src->depth);
        pt_section *d;
        int r;
        if (k >= cap) {
            size_t ncap = cap ? cap * 2 : 64;
            pt_section **v = realloc(dsts, ncap * sizeof *v);
            if (!v) {
                rc = PT_ENOMEM;
                break;
            }
            dsts = v;
            cap = ncap;
            dsts[0] = dst;
        }
        d = pt__child_in(rec, dsts[k - 1], c->name);
        if (!d) {
            rc = PT_ENOMEM;
            break;
        }
        /* src may go away; the key is only a cache of the last title
         * pointer seen, so point it at the section's own copy. */
        d->key = d->name;
        dsts[k] = d;
        r = merge_node(d, c);
        if (r < 0)
            rc = r;
    }
    free(dsts);
    return rc;
}

int pt__merge_tree(pt_timing *t, pt_section *dst, const pt_section *src)
{
    return merge_in(&t->main, dst, src);
}

int pt__merge_aside(pt_section *dst, const pt_section *src)
{
    pt__thr scratch;

    memset(&scratch, 0, sizeof scratch);
    return merge_in(&scratch, dst, src);
}

static void clear_node(pt_section *s)
{
    s->count = 0;
    s->total_ns = s->first_ns = s->last_ns = 0;
    s->mean_ns = s->m2_ns = s->min_ns = s->max_ns = 0;
    s->read = s->written = s->flops = 0;
    memset(s->xfer, 0, sizeof s->xfer);
    s->mem_hwm = 0;
    s->cpu_timed = 0;
    s->ran_here = 0;
    s->ovh_ns = 0;
    free(s->ranks);
    s->ranks = NULL;
    pt__phase_free(s->phase);
    s->phase = NULL;
}

void pt__clear_occurrences(pt_section *s)
{
    /* Without recursion, however deep the tree. */
    for (const pt_section *c = s->child; c; c = pt__tree_next(c, s))
        clear_node((pt_section *)c);
    if (s->parent)
        clear_node(s);
}
