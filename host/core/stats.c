/* Figures of sections and of the whole run, as the reports show them. */
#include "core/stats.h"

#include "core/clock.h"
#include "core/cost.h"
#include "core/errors.h"
#include "core/gate.h"
#include "core/hist.h"
#include "core/threads.h"
#include "core/timing.h"
#include "core/shape.h"
#include "core/spans.h"
#include "core/trace.h"
#include "core/tree.h"
#include "pt_hist.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define F64(name, field) { name, PT__FIG_F64, offsetof(pt_section_stats, field), 0 }
#define U64(name, field) { name, PT__FIG_U64, offsetof(pt_section_stats, field), 0 }
#define LATER(name, field) { name, PT__FIG_F64, offsetof(pt_section_stats, field), 1 }
const pt__figure pt__figures[] = {
    U64("count", count),
    F64("total_ms", total_ms), F64("self_ms", self_ms), F64("first_ms", first_ms),
    F64("mean_ms", mean_ms), F64("stddev_ms", stddev_ms), F64("min_ms", min_ms),
    F64("max_ms", max_ms), F64("pct_parent", pct_parent), F64("pct_total", pct_total),
    F64("read_bytes", read_bytes), F64("written_bytes", written_bytes), F64("flops", flops),
    F64("read_gbs", read_gbs), F64("write_gbs", write_gbs), F64("gflops", gflops),
    F64("h2d_bytes", xfer_bytes[0]), F64("d2h_bytes", xfer_bytes[1]),
    F64("d2d_bytes", xfer_bytes[2]), F64("h2d_gbs", xfer_gbs[0]), F64("d2h_gbs", xfer_gbs[1]),
    F64("d2d_gbs", xfer_gbs[2]),
    U64("blocks", blocks), F64("hits", hits), F64("block_mean_ms", block_mean_ms),
    F64("block_min_ms", block_min_ms), F64("block_max_ms", block_max_ms),
    F64("imbalance", imbalance), F64("block_p50_ms", block_p50_ms),
    F64("block_p90_ms", block_p90_ms), F64("block_p99_ms", block_p99_ms),
    LATER("ai", ai), LATER("pct_peak_bw", pct_peak_bw), LATER("pct_peak_flops", pct_peak_flops),
    { "bound", PT__FIG_BOUND, offsetof(pt_section_stats, bound), 1 },
    LATER("mem_high_water", mem_high_water),
    LATER("overhead_ms", overhead_ms),
    { "too_short", PT__FIG_U64, offsetof(pt_section_stats, too_short), 1 },
    { "cpu_clock", PT__FIG_U64, offsetof(pt_section_stats, cpu_clock), 1 },
    { "ranks", PT__FIG_U64, offsetof(pt_section_stats, ranks), 1 },
    LATER("rank_min_ms", rank_min_ms), LATER("rank_mean_ms", rank_mean_ms),
    LATER("rank_max_ms", rank_max_ms),
    { "rank_slowest", PT__FIG_U64, offsetof(pt_section_stats, rank_slowest), 1 },
    { "sms", PT__FIG_U64, offsetof(pt_section_stats, sms), 1 },
    { "sm_busiest", PT__FIG_U64, offsetof(pt_section_stats, sm_busiest), 1 },
    LATER("sm_mean_ms", sm_mean_ms), LATER("sm_min_ms", sm_min_ms),
    LATER("sm_max_ms", sm_max_ms), LATER("sm_imbalance", sm_imbalance),
    { "shape_folds", PT__FIG_U64, offsetof(pt_section_stats, shape_folds), 1 },
    LATER("waves", waves),
    { "sm_resident", PT__FIG_U64, offsetof(pt_section_stats, sm_resident), 1 },
    { "device_sms", PT__FIG_U64, offsetof(pt_section_stats, device_sms), 1 },
    LATER("span_ms", span_ms), LATER("tail_ms", tail_ms), LATER("tail_pct", tail_pct),
    LATER("sm_idle_pct", sm_idle_pct),
    { "slowest_block", PT__FIG_U64, offsetof(pt_section_stats, slowest_block), 1 },
    LATER("slowest_block_ms", slowest_block_ms),
    { "slowest_block_sm", PT__FIG_U64, offsetof(pt_section_stats, slowest_block_sm), 1 },
    { "stragglers", PT__FIG_U64, offsetof(pt_section_stats, stragglers), 1 },
    { "straggler_sm", PT__FIG_U64, offsetof(pt_section_stats, straggler_sm), 1 },
    { "sample_every", PT__FIG_U64, offsetof(pt_section_stats, sample_every), 1 },
    { "sample_slots", PT__FIG_U64, offsetof(pt_section_stats, sample_slots), 1 },
    { "overlap_folds", PT__FIG_U64, offsetof(pt_section_stats, overlap_folds), 1 },
    LATER("busy_ms", busy_ms), LATER("overlap_pct", overlap_pct), LATER("wait_ms", wait_ms),
    LATER("bubble_ms", bubble_ms),
};
#undef F64
#undef U64
#undef LATER
const size_t pt__nfigures = sizeof pt__figures / sizeof pt__figures[0];

double pt__figure_value(const pt_section_stats *st, const pt__figure *f)
{
    const char *p = (const char *)st + f->off;
    switch (f->type) {
    case PT__FIG_U64: return (double)*(const uint64_t *)(const void *)p;
    case PT__FIG_BOUND: return (double)*(const int *)(const void *)p;
    default: return *(const double *)(const void *)p;
    }
}

const char *pt__kind_name(int kind)
{
    switch (kind) {
    case PT__K_GPU: return "gpu";
    case PT__K_PHASE: return "phase";
    case PT__K_UNATTR: return "unattributed";
    default: return "cpu";
    }
}

/* A section's total; the root's is the whole run's, which pt__settle()
 * computed once for every section of a report to read. */
static double total_of(const pt_section *s)
{
    return s->total_ns;
}

double pt__ratio(double a, double b)
{
    double r;

    if (!(b > 0) || !(a > 0))
        return 0;
    r = a / b;
    return r <= DBL_MAX ? r : DBL_MAX;
}

/* a as a percentage of b, as finite as pt__ratio. */
static double pct_of(double a, double b)
{
    double r = pt__ratio(a, b);
    return r < DBL_MAX / 100 ? 100.0 * r : DBL_MAX;
}

/* Intensity, % of the peaks and the bound. The ridge point is where the
 * two roofs meet (peak FLOP/s over peak bytes/s); at it both limit
 * equally, and it counts as compute-bound. */
static void roofline(const pt_timing *t, pt_section_stats *o, double total_ns)
{
    double bytes = o->read_bytes + o->written_bytes;
    int peaks = t->peak_src == PT__PEAKS_USER || t->peak_src == PT__PEAKS_DEVICE;

    o->ai = pt__ratio(o->flops, bytes);
    if (!peaks)
        return;
    if (total_ns > 0) {
        o->pct_peak_bw = pct_of(pt__ratio(bytes, total_ns * 1e-9), t->peak_bw);
        o->pct_peak_flops = pct_of(pt__ratio(o->flops, total_ns * 1e-9), t->peak_flops);
    }
    if (o->ai > 0)
        o->bound = o->ai < pt__ratio(t->peak_flops, t->peak_bw) ? PT_BOUND_MEMORY : PT_BOUND_COMPUTE;
}

/* A typical occurrence of s: the mean of the later ones, or the only one. */
static double typical_ns(const pt_section *s)
{
    return s->count > 1 ? s->mean_ns : s->first_ns;
}

/* Too short to time: a CPU-clocked occurrence under 10x the measured cost
 * of the pair around it, or a phase whose marks are that close apart (its
 * time per hit per block under 10x a mark's cost). */
static int too_short(const pt_timing *t, const pt_section *s)
{
    const pt__cost *c = pt__cost_of(t);
    const pt_dev_clock *dc = &t->dev_clock;

    if (!s->parent || s->count == 0)
        return 0;
    if (s->kind == PT__K_CPU || (s->kind == PT__K_GPU && s->cpu_timed > 0))
        return c && typical_ns(s) < PT__SHORT_FACTOR * c->pair_ns;
    if (s->kind == PT__K_PHASE && s->phase && s->phase->hits > 0 && dc->mark_cycles > 0 &&
        dc->cycles_per_ns > 0)
        return s->phase->block_sum_ns / s->phase->hits <
               PT__SHORT_FACTOR * dc->mark_cycles / dc->cycles_per_ns;
    return 0;
}

/* s's own time net of ptkit's pairs, and what was taken out (ns). */
static double self_net(const pt_timing *t, const pt_section *s, double *ovh)
{
    double total = total_of(s), children = 0, self, o;

    for (const pt_section *c = s->child; c; c = c->next)
        children += c->total_ns;
    self = total > children ? total - children : 0;
    o = pt__cost_children(t, s);
    if (o > self)
        o = self;
    *ovh = o;
    return self - o;
}

/* Each rank's total of s, once runs were merged by rank. */
static void rank_figures(const pt_section *s, pt_section_stats *o)
{
    const pt__ranks *k = s->ranks;

    if (!k || k->n == 0)
        return;
    o->ranks = k->n;
    o->rank_min_ms = k->min_ns / 1e6;
    o->rank_max_ms = k->max_ns / 1e6;
    o->rank_mean_ms = k->sum_ns / (double)k->n / 1e6;
    o->rank_slowest = (uint64_t)k->slowest;
}

/* Over the SMs the phase's blocks spent time on: how many, the busiest,
 * the mean, least and most. */
static void sm_figures(const pt__phase_ext *p, pt_section_stats *o)
{
    double sum = 0;

    for (int i = 0; i < pt__sm_count_of(p); i++) {
        double v = p->sm_ns[i];
        if (!(v > 0))
            continue;
        if (o->sms == 0 || v < o->sm_min_ms)
            o->sm_min_ms = v;
        if (o->sms == 0 || v > o->sm_max_ms) {
            o->sm_max_ms = v;
            o->sm_busiest = (uint64_t)i;
        }
        sum += v;
        o->sms++;
    }
    if (o->sms == 0)
        return;
    o->sm_mean_ms = sum / (double)o->sms / 1e6;
    o->sm_min_ms /= 1e6;
    o->sm_max_ms /= 1e6;
    o->sm_imbalance = pt__ratio(o->sm_max_ms, o->sm_mean_ms);
}

void pt__stats_of(const pt_timing *t, const pt_section *s, pt_section_stats *o)
{
    double total = total_of(s), whole = t->root.total_ns, ovh;
    uint64_t rest;

    memset(o, 0, sizeof *o);
    o->name = s->name;
    o->depth = s->depth;
    o->open = s->open > 0 || s->open_else > 0;
    o->gpu = s->kind == PT__K_GPU;
    o->phase = s->kind == PT__K_PHASE || s->kind == PT__K_UNATTR;
    o->count = s->parent ? s->count : (s->child != NULL);
    o->total_ms = total / 1e6;
    o->self_ms = self_net(t, s, &ovh) / 1e6;
    /* A phase's own time is already net of its marks' cost. */
    o->overhead_ms = (s->kind == PT__K_PHASE ? s->ovh_ns : ovh) / 1e6;
    o->too_short = (uint64_t)too_short(t, s);
    o->cpu_clock = s->kind == PT__K_GPU ? s->cpu_timed : 0;
    o->first_ms = s->parent ? s->first_ns / 1e6 : total / 1e6;
    rest = s->count > 1 ? s->count - 1 : 0;
    if (rest > 0) {
        o->mean_ms = s->mean_ns / 1e6;
        o->min_ms = s->min_ns / 1e6;
        o->max_ms = s->max_ns / 1e6;
    }
    if (rest > 1)
        o->stddev_ms = sqrt(s->m2_ns / (double)(rest - 1)) / 1e6;
    if (s->parent) {
        double pt = total_of(s->parent);
        o->pct_parent = pct_of(total, pt);
    } else {
        o->pct_parent = total > 0 ? 100.0 : 0;
    }
    o->pct_total = pct_of(total, whole);
    o->read_bytes = s->read;
    o->written_bytes = s->written;
    o->flops = s->flops;
    /* bytes per ns is GB/s; flops per ns is GFLOP/s. A GPU section the
     * CPU clock timed saw its launch (which may have failed, or run on
     * after the stop), not the kernel: no rate from that, unless host-mode
     * records showed the work ran inside it. */
    if (o->cpu_clock > 0 && !s->ran_here)
        total = 0;
    o->read_gbs = pt__ratio(s->read, total);
    o->write_gbs = pt__ratio(s->written, total);
    o->gflops = pt__ratio(s->flops, total);
    for (int i = 0; i < 3; i++) {
        o->xfer_bytes[i] = s->xfer[i];
        o->xfer_gbs[i] = pt__ratio(s->xfer[i], total);
    }
    if (s->phase) {
        const pt__phase_ext *p = s->phase;
        o->blocks = p->blocks;
        o->hits = p->hits;
        if (p->blocks) {
            double lo = p->block_min_ns, hi = p->block_max_ns;
            o->block_mean_ms = p->block_sum_ns / (double)p->blocks / 1e6;
            o->block_min_ms = p->block_min_ns / 1e6;
            o->block_max_ms = p->block_max_ns / 1e6;
            o->imbalance = pt__ratio(o->block_max_ms, o->block_mean_ms);
            o->block_p50_ms = pt__hist_quantile(p->hist, 0.50, lo, hi) / 1e6;
            o->block_p90_ms = pt__hist_quantile(p->hist, 0.90, lo, hi) / 1e6;
            o->block_p99_ms = pt__hist_quantile(p->hist, 0.99, lo, hi) / 1e6;
        }
        sm_figures(p, o);
    }
    pt__shape_stats(s->shape, o);
    roofline(t, o, total);
    o->mem_high_water = s->mem_hwm;
    rank_figures(s, o);
}

int pt_section_get(pt_timing *t, const pt_section *s, pt_section_stats *out)
{
    if (!t || !s || !out)
        return PT_EINVAL;
    pt__read_begin(t);
    pt__settle(t);
    pt__peaks_resolve(t);
    pt__stats_of(t, s, out);
    pt__read_end(t);
    return 0;
}

int pt__sm_count_of(const pt__phase_ext *p)
{
    int n = p && !p->on_host ? p->nsm : 0;

    while (n > 0 && !(p->sm_ns[n - 1] > 0))
        n--;
    return n;
}

int pt__sm_count(const pt_section *s)
{
    return s->kind == PT__K_PHASE ? pt__sm_count_of(s->phase) : 0;
}

int pt_section_sm_get(pt_timing *t, const pt_section *s, double *ms, int n)
{
    int nsm;

    if (!t || !s || n < 0 || (!ms && n > 0))
        return PT_EINVAL;
    pt__settle(t);
    nsm = pt__sm_count(s);
    for (int i = 0; i < n && i < nsm; i++)
        ms[i] = s->phase->sm_ns[i] > 0 ? s->phase->sm_ns[i] / 1e6 : 0;
    return nsm;
}

int pt_section_slowest_get(pt_timing *t, const pt_section *s, const char **names, double *ms,
                           int n)
{
    const pt__shape *sh;

    if (!t || !s || n < 0)
        return PT_EINVAL;
    pt__settle(t);
    sh = s->shape;
    if (!sh || sh->folds == 0)
        return 0;
    for (int i = 0; i < n && i < sh->nslow; i++) {
        if (names)
            names[i] = sh->slow_names[i];
        if (ms)
            ms[i] = sh->slow_ns[i] / 1e6;
    }
    return sh->nslow;
}

int pt_section_spans_get(pt_timing *t, const pt_section *s, pt_span_stats *out, int n)
{
    const pt__shape *sh;

    if (!t || !s || n < 0 || (!out && n > 0))
        return PT_EINVAL;
    pt__settle(t);
    sh = s->shape;
    if (!sh)
        return 0;
    for (int i = 0; i < n && i < sh->nspans; i++) {
        const pt__span *sp = &sh->spans[i];
        out[i] = (pt_span_stats){
            .name = sp->name, .count = sp->count, .unmatched = sp->unmatched,
            .total_ms = sp->total_ns / 1e6,
            .mean_ms = sp->count ? sp->total_ns / (double)sp->count / 1e6 : 0,
            .p50_ms = pt__span_quantile(sp, 0.50) / 1e6,
            .p99_ms = pt__span_quantile(sp, 0.99) / 1e6, .max_ms = sp->max_ns / 1e6,
        };
    }
    return sh->nspans;
}

static int by_time(const void *a, const void *b)
{
    const pt_section *x = *(const pt_section *const *)a, *y = *(const pt_section *const *)b;
    if (x->total_ns != y->total_ns)
        return x->total_ns < y->total_ns ? 1 : -1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int by_flops(const void *a, const void *b)
{
    const pt_section *x = *(const pt_section *const *)a, *y = *(const pt_section *const *)b;
    if (x->flops != y->flops)
        return x->flops < y->flops ? 1 : -1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int by_name(const void *a, const void *b)
{
    const pt_section *x = *(const pt_section *const *)a, *y = *(const pt_section *const *)b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

size_t pt__sorted_children(const pt_section *parent, int sort, const pt_section ***out)
{
    size_t n = 0;
    const pt_section **v;

    *out = NULL;
    if (!parent->nchildren)
        return 0;
    v = malloc(parent->nchildren * sizeof *v);
    if (!v)
        return 0;
    for (const pt_section *c = parent->child; c; c = c->next)
        v[n++] = c;
    switch (sort) {
    case PT_SORT_TIME: qsort(v, n, sizeof *v, by_time); break;
    case PT_SORT_FLOPS: qsort(v, n, sizeof *v, by_flops); break;
    case PT_SORT_NAME: qsort(v, n, sizeof *v, by_name); break;
    default: break; /* the list is already in order of first start */
    }
    *out = v;
    return n;
}

static double self_ns(const pt_timing *t, const pt_section *s)
{
    double ovh;
    return self_net(t, s, &ovh);
}

/* A candidate of pt_bottlenecks: its self time, computed once, and its
 * place in the walk, which breaks ties (the earlier first). */
typedef struct bneck {
    double v;
    size_t at;
    const pt_section *s;
} bneck;

/* a ranks below b: less self time, or as much and later in the walk. */
static int bneck_below(const bneck *a, const bneck *b)
{
    return a->v < b->v || (a->v == b->v && a->at > b->at);
}

static int bneck_order(const void *pa, const void *pb)
{
    const bneck *a = pa, *b = pb;
    return bneck_below(a, b) ? 1 : bneck_below(b, a) ? -1 : 0;
}

/* Restores the min-heap h[0..k) (lowest-ranked at the root) from i down. */
static void bneck_sift(bneck *h, size_t k, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < k && bneck_below(&h[l], &h[m]))
            m = l;
        if (l + 1 < k && bneck_below(&h[l + 1], &h[m]))
            m = l + 1;
        if (m == i)
            return;
        bneck x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

size_t pt_bottlenecks(pt_timing *t, size_t n, const pt_section **out)
{
    size_t k = 0, at = 0;
    const pt_section *s;
    bneck *h;

    if (!t || !out || n == 0)
        return 0;
    pt__read_begin(t);
    pt__settle(t);
    /* No more candidates than sections: a generous n costs nothing. */
    if (n > t->main.nsections)
        n = t->main.nsections ? t->main.nsections : 1;
    h = malloc(n * sizeof *h);
    if (!h) {
        pt__read_end(t);
        pt__fail(t, PT_ENOMEM, "pt_bottlenecks: out of memory");
        return 0;
    }
    /* Depth-first walk keeping the n highest in a min-heap, each self
     * time computed once: O(N log n) for N sections, then the n sorted. */
    for (s = t->root.child; s; s = pt__tree_next(s, &t->root), at++) {
        bneck c = { self_ns(t, s), at, s };
        if (k < n) {
            size_t i = k++;
            h[i] = c;
            while (i > 0 && bneck_below(&h[i], &h[(i - 1) / 2])) {
                bneck x = h[i];
                h[i] = h[(i - 1) / 2];
                h[(i - 1) / 2] = x;
                i = (i - 1) / 2;
            }
        } else if (bneck_below(&h[0], &c)) {
            h[0] = c;
            bneck_sift(h, k, 0);
        }
    }
    qsort(h, k, sizeof *h, bneck_order);
    for (size_t i = 0; i < k; i++)
        out[i] = h[i].s;
    free(h);
    pt__read_end(t);
    return k;
}

int pt_run_get(pt_timing *t, pt_run_stats *r)
{
    if (!r)
        return t ? pt__fail(t, PT_EINVAL, "pt_run_get: NULL out") : PT_EINVAL;
    memset(r, 0, sizeof *r);
    r->clock = "";
    if (!t)
        return 0;
    pt__read_begin(t);
    pt__settle(t);
    pt__peaks_resolve(t);
    r->section_count = t->main.nsections;
    r->total_ms = t->root.total_ns / 1e6;
    r->error_count = t->errors;
    r->gpu_timing = (t->flags & PT_GPU_EVENTS) && !(t->gpu_fallback & ~PT__FB_CUDA);
    r->gpu_fallback = t->gpu_fallback != 0;
    r->gpu_fallback_why = pt__fallback_why(t);
    r->note_count = t->notes;
    if (pt__cost_of(t)) {
        r->pair_ns = t->cost.pair_ns;
        r->pair_inside_ns = t->cost.inside_ns;
    }
    for (const pt_section *s = t->root.child; s; s = pt__tree_next(s, &t->root))
        r->short_count += (size_t)too_short(t, s);
    r->ranks = t->ranks;
    r->ranks_empty = t->ranks_empty;
    r->open_count = pt__open_count(t);
    r->threads = pt_threads(t);
    r->dropped = t->dropped;
    r->trace_dropped = pt__trace_dropped(t);
    r->clock = pt__clock_name(t);
    r->clock_ghz = t->clock_kind == PT__CLOCK_TSC ? 1.0 / t->ns_per_tick : 0;
    pt__read_end(t);
    return 0;
}

const char *pt__fallback_why(const pt_timing *t)
{
    if (t->gpu_fallback & PT__FB_FLAG)
        return "the timing was created without PT_GPU_EVENTS: the CPU clock sees the launch, "
               "not the kernel";
    if (t->gpu_fallback & PT__FB_DEVICE)
        return t->fallback_why[0] ? t->fallback_why : "no CUDA device or driver";
    if (t->gpu_fallback & PT__FB_CUDA)
        return "a CUDA call failed: those occurrences (marked) are the CPU's view of the launch";
    return "";
}

/* The previous name, kept for one release. */
pt_run_stats pt_stats(pt_timing *t)
{
    pt_run_stats r;
    pt_run_get(t, &r);
    return r;
}
