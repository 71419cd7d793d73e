/* The folded launches' blocks in a Chrome trace.
 *
 * A block spans its BEGIN..END: placed by its %globaltimer, the launch's
 * earliest BEGIN (over all its folds: a graph replay's kernels, a
 * launch's roles) at the launch's start on the host timeline, and as long
 * as its clock64 span at the rate the fold converted it with. Blocks
 * resident on one SM at once overlap in time; a viewer nests events of
 * one track or drops those that cross, so each SM gets as many tracks
 * (lanes) as it had blocks at once: blocks taken in order of start, each
 * on the lowest lane free by then (a heap of free lanes, a heap of busy
 * ones by end), so no lane holds two blocks that overlap.
 *
 * Inside a block, its phases: in trace mode each (phase, clock64) event
 * closes its phase's interval since the previous mark, as it ran; in
 * aggregate mode a block holds only each phase's total, so the phases
 * are drawn one after another from the block's start, each as long as
 * its total, in phase order (the args say so). Either way they are cut
 * to the block's end, so they nest in it. In trace mode a block's spans
 * are async slices on its track; a begin and an end its record leaves
 * alone are paired across the records of each SM as the fold pairs them
 * (gpu/spans.c, and across the roles of one launch: the folds placed at
 * one start), each slice from the begin's track to the end's. All
 * positions are whole nanoseconds (chrome_trace.c).
 *
 * Under the SMs, a track of the launches' tails: for each launch, a slice
 * from its first SM falling idle (the earliest of the SMs' last ENDs, by
 * %globaltimer) to its last END, the tail the reports give (gpu/shape.c),
 * from the blocks the trace kept; then the roles' bubbles (trace_bubbles.c). */
#include "report/trace_blocks.h"

#include "report/trace_bubbles.h"

#include "core/shape.h"
#include "core/spans.h"
#include "core/trace.h"

#include "pt_fold_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct blk {
    long long t0, t1;         /* ns from the origin */
    long long sm;             /* %smid (host mode: the CPU), or -1 when unknown */
    int host;                 /* a host-mode block: sm is a CPU */
    int fold, slot, lane;
    long long tid;            /* its track, once numbered */
    double rate;              /* ns a cycle of its record (pt__slot_rate) */
} blk;

/* Where a block ran, in track order: the GPU's SMs by id, then host
 * mode's CPUs by number, an unknown place last in each. */
static int by_place(const blk *a, const blk *b)
{
    unsigned long long sa = (unsigned long long)a->sm, sb = (unsigned long long)b->sm;
    if (a->host != b->host)
        return a->host ? 1 : -1;
    return sa < sb ? -1 : sa > sb;
}

/* By place, then by start, the longer first. */
static int by_start(const void *pa, const void *pb)
{
    const blk *a = pa, *b = pb;
    int c = by_place(a, b);
    if (c)
        return c;
    if (a->t0 != b->t0)
        return a->t0 < b->t0 ? -1 : 1;
    return a->t1 > b->t1 ? -1 : a->t1 < b->t1;
}

static int by_track(const void *pa, const void *pb)
{
    const blk *a = pa, *b = pb;
    int c = by_place(a, b);
    if (c)
        return c;
    if (a->lane != b->lane)
        return a->lane < b->lane ? -1 : 1;
    return a->t0 < b->t0 ? -1 : a->t0 > b->t0;
}

/* A binary min-heap of (key, lane). */
typedef struct heap {
    long long *key;
    int *lane;
    int n;
} heap;

static void heap_push(heap *h, long long key, int lane)
{
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h->key[p] < key || (h->key[p] == key && h->lane[p] <= lane))
            break;
        h->key[i] = h->key[p];
        h->lane[i] = h->lane[p];
        i = p;
    }
    h->key[i] = key;
    h->lane[i] = lane;
}

static int heap_pop(heap *h)
{
    int top = h->lane[0], i = 0;
    long long key = h->key[--h->n];
    int lane = h->lane[h->n];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && (h->key[c + 1] < h->key[c] ||
                             (h->key[c + 1] == h->key[c] && h->lane[c + 1] < h->lane[c])))
            c++;
        if (key < h->key[c] || (key == h->key[c] && lane <= h->lane[c]))
            break;
        h->key[i] = h->key[c];
        h->lane[i] = h->lane[c];
        i = c;
    }
    h->key[i] = key;
    h->lane[i] = lane;
    return top;
}

/* Lanes for the blocks of one SM, v[0..n) in order of start; returns how many. */
static int pack(blk *v, size_t n, heap *busy, heap *idle)
{
    int lanes = 0;
    busy->n = idle->n = 0;
    for (size_t i = 0; i < n; i++) {
        while (busy->n && busy->key[0] <= v[i].t0) {
            int l = heap_pop(busy);
            heap_push(idle, 0, l);
        }
        v[i].lane = idle->n ? heap_pop(idle) : lanes++;
        heap_push(busy, v[i].t1, v[i].lane);
    }
    return lanes;
}

static const long long *record(const pt__tfold *f, int s)
{
    return f->recs + s * PT_DEV_SLOT_WORDS(f->nphases, f->trace_cap);
}

static const char *phase_name(const pt__tfold *f, long long p)
{
    return p >= 0 && p < f->nphases && f->names[p] ? f->names[p] : "(bad phase)";
}

/* a - b, for a >= b, at most PT__TRACE_SPAN_MAX. */
static long long since(long long a, long long b)
{
    unsigned long long d = (unsigned long long)a - (unsigned long long)b;
    return d > (unsigned long long)PT__TRACE_SPAN_MAX ? PT__TRACE_SPAN_MAX : (long long)d;
}

/* Clock clk of block b's record rec on the trace's timeline, within the
 * block: whatever the words (hostile records included), nothing
 * overflows. */
static long long at_clock(const blk *b, const long long *rec, long long clk, double rate)
{
    long long d = (long long)((unsigned long long)clk - (unsigned long long)rec[PT_DEV_S_CLK0]);
    double at = (double)b->t0 + (double)d * rate;
    return !(at > (double)b->t0) ? b->t0 : at >= (double)b->t1 ? b->t1 : llround(at);
}

/* What drawing the spans needs across blocks: room to pair a record's
 * events (4 words an event), the next async id, unique in the trace, and
 * the events no record paired, to pair across the records of each SM
 * (core/spans.h), keyed by launch: the folds placed at one start, the
 * roles of one launch (their tags index the blocks from base). */
typedef struct spans_draw {
    long long *scratch;
    long long next_id;
    const pt__trace *tr;
    const blk *base;
    pt__span_evs left;
    pt__ivs flight;           /* each span's clocks, by pt__trace_key(group, SM), for the bubbles */
} spans_draw;

/* The async slice of one span, from (b0, clk0) to (b1, clk1), each clock
 * placed in its own block at its rate. */
static void span_draw(pt__ctrace *w, spans_draw *sd, int kind, unsigned id, const blk *b0,
                      long long clk0, double r0, const blk *b1, long long clk1, double r1)
{
    const pt__tfold *f = &sd->tr->folds[b0->fold];
    char buf[32];
    const char *n = pt__span_kind_name(f->span_names, f->nspan_names, kind, buf);
    long long t0 = at_clock(b0, record(f, b0->slot), clk0, r0);
    long long t1 = at_clock(b1, record(&sd->tr->folds[b1->fold], b1->slot), clk1, r1);
    long long sid = sd->next_id++;

    t1 = t1 < t0 ? t0 : t1;
    /* In flight on its SM (pairs are made on one), for the bubbles. */
    if (b0->sm >= 0)
        (void)pt__ivs_add(&sd->flight, pt__trace_key(pt__trace_group(sd->tr, b0->fold), b0->sm),
                          clk0, clk1);
    pt__ctrace_async(w, PT__CTRACE_SM, b0->tid, n, "spans", sid, t0, 1);
    pt__json_key(&w->j, "args");
    pt__json_open(&w->j, '{');
    pt__json_k_i64(&w->j, "id", (long long)id);
    pt__json_k_i64(&w->j, "block", b0->slot);
    if (b1 != b0) {
        /* Begun by one record, ended by another: another warp, or role. */
        pt__json_k_i64(&w->j, "end_block", b1->slot);
        if (b1->fold != b0->fold)
            pt__json_k_str(&w->j, "end_role", sd->tr->folds[b1->fold].node->name);
    }
    pt__json_close(&w->j, '}');
    pt__ctrace_end_event(w);
    pt__ctrace_async(w, PT__CTRACE_SM, b1->tid, n, "spans", sid, t1, 0);
    pt__ctrace_end_event(w);
}

typedef struct span_ctx {
    pt__ctrace *w;
    const pt__tfold *f;
    const blk *b;
    const long long *rec;
    double rate;
    spans_draw *sd;
} span_ctx;

/* One span paired in a block's trace: an async slice on the block's track,
 * placed as its phases are and cut to the block; an event left alone
 * waits to be paired across records (without memory it is not drawn; the
 * reports count it). */
static void span_slice(void *ctx, int kind, unsigned id, long long clk0, long long clk1,
                       long long k, long long l)
{
    span_ctx *c = ctx;
    const pt__tfold *f = c->f;

    if (k < 0 || l < 0) {
        const long long *ev = c->rec + PT_DEV_SLOT_HDR + 2LL * f->nphases;
        long long at = k < 0 ? l : k;
        pt__span_ev e = { pt__trace_key(pt__trace_group(c->sd->tr, c->b->fold), c->b->sm),
                          ev[2 * at], ev[2 * at + 1], c->b - c->sd->base, c->rate };
        if (c->b->sm >= 0)
            (void)pt__span_evs_add(&c->sd->left, &e);
        return;
    }
    span_draw(c->w, c->sd, kind, id, c->b, clk0, c->rate, c->b, clk1, c->rate);
}

/* A span paired across records: drawn from its begin's block to its end's. */
typedef struct across_ctx {
    pt__ctrace *w;
    spans_draw *sd;
} across_ctx;

static void across_slice(void *ctx, int kind, unsigned id, long long clk0, long long clk1,
                         long long k, long long l)
{
    across_ctx *c = ctx;
    const pt__span_ev *a, *z;

    if (k < 0 || l < 0)
        return; /* alone in every record: not drawn, the reports count it */
    a = &c->sd->left.v[k];
    z = &c->sd->left.v[l];
    span_draw(c->w, c->sd, kind, id, &c->sd->base[a->tag], clk0, a->rate, &c->sd->base[z->tag],
              clk1, z->rate);
}

/* The block's phases inside [b->t0, b->t1], and in trace mode its spans. */
static void phases(pt__ctrace *w, const pt__tfold *f, const blk *b, long long tid, double rate,
                   spans_draw *sd)
{
    const long long *rec = record(f, b->slot), *ph = rec + PT_DEV_SLOT_HDR;
    const long long *ev = ph + 2 * f->nphases;
    long long n = f->trace_cap > 0 ? rec[PT_DEV_S_NEVENTS] : 0;

    if (n > f->trace_cap)
        n = f->trace_cap;
    if (n > 0) {
        /* As it ran: each event ends its phase's interval since the last mark. */
        long long at = b->t0;
        span_ctx sc = { w, f, b, rec, rate, sd };
        for (long long k = 0; k < n; k++) {
            long long end = at_clock(b, rec, ev[2 * k + 1], rate);
            if (ev[2 * k] >= PT_DEV_EV_SPAN)
                continue; /* a span's begin or end, no phase's */
            if (end < at)
                end = at;
            pt__ctrace_complete(w, PT__CTRACE_SM, tid, phase_name(f, ev[2 * k]), "phases", at, end);
            pt__ctrace_end_event(w);
            at = end;
        }
        if (sd->scratch)
            pt__spans_pair(ev, n, sd->scratch, span_slice, &sc);
        return;
    }
    /* Aggregate: each phase's total, one after another. */
    long long at = b->t0;
    for (int p = 0; p < f->nphases && at < b->t1; p++) {
        long long end;
        if (ph[2 * p] <= 0)
            continue;
        double e = (double)at + (double)ph[2 * p] * rate;
        end = e >= (double)b->t1 ? b->t1 : llround(e);
        pt__ctrace_complete(w, PT__CTRACE_SM, tid, phase_name(f, p), "phases (aggregate)", at, end);
        pt__json_key(&w->j, "args");
        pt__json_open(&w->j, '{');
        pt__json_k_i64(&w->j, "marks", ph[2 * p + 1]);
        pt__json_k_str(&w->j, "drawn", "the phase's total in this block, after the phases "
                                       "before it: not when it ran (a trace buffer records that)");
        pt__json_close(&w->j, '}');
        pt__ctrace_end_event(w);
        at = end;
    }
}

static void block(pt__ctrace *w, const pt__trace *tr, const blk *b, long long tid, spans_draw *sd)
{
    const pt__tfold *f = &tr->folds[b->fold];
    const long long *rec = record(f, b->slot), *ph = rec + PT_DEV_SLOT_HDR;

    pt__ctrace_complete(w, PT__CTRACE_SM, tid, f->node->name, "blocks", b->t0, b->t1);
    pt__json_key(&w->j, "args");
    pt__json_open(&w->j, '{');
    pt__json_k_i64(&w->j, "block", b->slot);
    if (b->sm >= 0)
        pt__json_k_i64(&w->j, "sm", b->sm);
    pt__json_k_i64(&w->j, "launch", b->fold);
    for (int p = 0; p < f->nphases; p++) {
        pt__json_key(&w->j, phase_name(f, p));
        pt__json_sig(&w->j, (double)ph[2 * p] * b->rate / 1e6, 9);
    }
    pt__json_close(&w->j, '}');
    pt__ctrace_end_event(w);
    phases(w, f, b, tid, b->rate, sd);
}

/* The blocks of every kept fold that reached END, placed on the timeline
 * from their launch's earliest BEGIN (pt__trace_origin). */
static size_t collect(const pt__trace *tr, blk *v)
{
    size_t n = 0;
    for (int i = 0; i < tr->nfolds; i++) {
        const pt__tfold *f = &tr->folds[i];
        long long gt_min = 0, launch = llround(f->launch_us * 1e3);
        long long lim = pt__count_limit(f->nslots);
        pt__trace_origin(tr, i, &gt_min);
        for (int s = 0; s < f->kept; s++) {
            const long long *rec = record(f, s);
            long long clk, gt;
            double span;
            blk *b = &v[n];
            /* A record no kernel writes is not drawn (nor its clocks read:
             * such words overflow any arithmetic). */
            if (pt__slot_ok(rec, f->nphases, f->trace_cap, lim) <= 0)
                continue;
            clk = rec[PT_DEV_S_CLK1] - rec[PT_DEV_S_CLK0];
            gt = rec[PT_DEV_S_GT1] - rec[PT_DEV_S_GT0];
            pt__slot_rate(rec, f->tick_ns, f->ns_per_cycle, &b->rate);
            span = clk > 0 && b->rate > 0 ? (double)clk * b->rate : gt > 0 ? (double)gt : 0;
            b->t0 = launch + since(rec[PT_DEV_S_GT0], gt_min);
            b->t1 = b->t0 + (span < (double)PT__TRACE_SPAN_MAX ? llround(span)
                                                                : PT__TRACE_SPAN_MAX);
            b->sm = rec[PT_DEV_S_SMID] >= 0 ? rec[PT_DEV_S_SMID] : -1;
            b->host = f->host;
            b->fold = i;
            b->slot = s;
            n++;
        }
    }
    return n;
}

static int by_sm_end(const void *pa, const void *pb)
{
    const long long *a = pa, *b = pb;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : a[1] > b[1]);
}

/* A role's (or a launch's) work and waits (core/overlap.c) as the
 * reports give them: the means over its launches, not this one's alone. */
static void overlap_args(pt__ctrace *w, const pt_section *node)
{
    pt_section_stats st;

    memset(&st, 0, sizeof st);
    pt__shape_stats(node->shape, &st);
    if (st.overlap_folds == 0)
        return;
    pt__json_k_str(&w->j, "overlap", "the section's mean over its launches, per SM");
    pt__json_k_num(&w->j, "working_ms", st.busy_ms);
    pt__json_k_num(&w->j, "beside_others_pct", st.overlap_pct);
    pt__json_k_num(&w->j, "waiting_ms", st.wait_ms);
    pt__json_k_num(&w->j, "bubble_ms", st.bubble_ms);
}

/* One kept launch's tail, on the host timeline (ns). */
typedef struct tail {
    long long t0, t1, span;
    int fold, sms, lane;
} tail;

static int by_tail_start(const void *pa, const void *pb)
{
    const tail *a = pa, *b = pb;
    return a->t0 < b->t0 ? -1 : a->t0 > b->t0;
}

/* Kept fold i's tail in *o, from its launch's earliest BEGIN where it
 * has one (pt__trace_origin): 0, or -1 when no block of it finished. e
 * has room for 2 x its kept blocks. */
static int tail_of(const pt__trace *tr, int i, long long *e, tail *o)
{
    const pt__tfold *f = &tr->folds[i];
    long long lim = pt__count_limit(f->nslots), first = 0, last = 0, gt_min = 0, origin;
    long long launch = llround(f->launch_us * 1e3);
    int n = 0, sms = 0, has = pt__trace_origin(tr, i, &origin);

    for (int s = 0; s < f->kept; s++) {
        const long long *rec = record(f, s);
        if (!pt__slot_on_sm(rec, f->nphases, f->trace_cap, lim))
            continue;
        e[2 * n] = rec[PT_DEV_S_SMID];
        e[2 * n + 1] = rec[PT_DEV_S_GT1];
        if (n == 0 || rec[PT_DEV_S_GT0] < gt_min)
            gt_min = rec[PT_DEV_S_GT0];
        n++;
    }
    if (n == 0)
        return -1;
    if (has && origin <= gt_min)
        gt_min = origin;
    /* By SM, then END: an SM's last END ends its run. */
    qsort(e, (size_t)n, 2 * sizeof *e, by_sm_end);
    for (int k = 0; k < n; k++)
        if (k == n - 1 || e[2 * k + 2] != e[2 * k]) {
            if (sms++ == 0 || e[2 * k + 1] < first)
                first = e[2 * k + 1];
            if (e[2 * k + 1] > last)
                last = e[2 * k + 1];
        }
    *o = (tail){ launch + since(first, gt_min), launch + since(last, gt_min), since(last, gt_min),
                 0, sms, 0 };
    return 0;
}

/* Each kept launch's tail on tracks from tid: launches that ran at once
 * (the roles of one, kernels on two streams) on lanes of their own, each
 * tail on the first lane free by its start; returns the lanes. Without
 * memory, none. O(n log n) in the blocks, O(folds^2) for the lanes. */
static int tails(pt__ctrace *w, const pt__trace *tr, long long tid, size_t cap)
{
    long long *e = malloc(2 * cap * sizeof *e), lane_end[PT__TRACE_FOLD_LAUNCHES];
    tail *v = malloc((size_t)(tr->nfolds > 0 ? tr->nfolds : 1) * sizeof *v);
    int n = 0, lanes = 0;
    char name[96];

    for (int i = 0; e && v && i < tr->nfolds; i++)
        if (tail_of(tr, i, e, &v[n]) == 0)
            v[n++].fold = i;
    qsort(v, (size_t)n, sizeof *v, by_tail_start);
    for (int k = 0; k < n; k++) {
        int l = 0;
        while (l < lanes && lane_end[l] > v[k].t0)
            l++;
        if (l == lanes) {
            if (l == 0)
                snprintf(name, sizeof name, "launch tails (first SM idle to last END)");
            else
                snprintf(name, sizeof name, "launch tails, lane %d (launches at once)", l + 1);
            pt__ctrace_thread(w, PT__CTRACE_SM, tid + l, name, tid + l);
            lanes++;
        }
        lane_end[l] = v[k].t1;
        v[k].lane = l;
    }
    for (int k = 0; k < n; k++) {
        const pt__tfold *f = &tr->folds[v[k].fold];
        pt__ctrace_complete(w, PT__CTRACE_SM, tid + v[k].lane, "tail", "tail", v[k].t0, v[k].t1);
        pt__json_key(&w->j, "args");
        pt__json_open(&w->j, '{');
        pt__json_k_str(&w->j, "section", f->node->name);
        pt__json_k_i64(&w->j, "launch", v[k].fold);
        pt__json_k_num(&w->j, "tail_ms", (double)(v[k].t1 - v[k].t0) / 1e6);
        pt__json_k_num(&w->j, "span_ms", (double)v[k].span / 1e6);
        pt__json_k_i64(&w->j, f->host ? "cpus" : "sms", v[k].sms);
        overlap_args(w, f->node);
        pt__json_close(&w->j, '}');
        pt__ctrace_end_event(w);
    }
    free(e);
    free(v);
    return lanes;
}

int pt__trace_blocks(pt_timing *t, pt__ctrace *w)
{
    const pt__trace *tr = t->trace;
    size_t cap = 0, n, i, j;
    long long tid = 0;
    blk *v;
    heap busy, idle;
    char name[64];
    size_t trace_cap = 0, nan = 0;
    pt__tanchor *an;
    /* Without room to pair them, spans are not drawn (the reports count them). */
    spans_draw sd = { NULL, 1, tr, NULL, { 0 }, { 0 } };

    for (int k = 0; k < tr->nfolds; k++) {
        cap += (size_t)tr->folds[k].kept;
        if ((size_t)tr->folds[k].trace_cap > trace_cap)
            trace_cap = (size_t)tr->folds[k].trace_cap;
    }
    if (!cap)
        return 0;
    v = malloc(cap * sizeof *v);
    busy.key = malloc(cap * sizeof *busy.key);
    busy.lane = malloc(cap * sizeof *busy.lane);
    idle.key = malloc(cap * sizeof *idle.key);
    idle.lane = malloc(cap * sizeof *idle.lane);
    if (!v || !busy.key || !busy.lane || !idle.key || !idle.lane) {
        free(v);
        free(busy.key);
        free(busy.lane);
        free(idle.key);
        free(idle.lane);
        return PT_ENOMEM;
    }
    if (trace_cap > 0)
        sd.scratch = malloc(4 * trace_cap * sizeof *sd.scratch);
    an = malloc(cap * sizeof *an); /* without it, no bubbles drawn */
    n = collect(tr, v);
    qsort(v, n, sizeof *v, by_start);
    for (i = 0; i < n; i = j) {
        for (j = i; j < n && by_place(&v[j], &v[i]) == 0; j++)
            ;
        pack(v + i, j - i, &busy, &idle);
    }
    qsort(v, n, sizeof *v, by_track);
    sd.base = v;
    /* Sorted by place, GPU blocks first: the first and last say which
     * kinds there are. */
    if (n)
        pt__ctrace_process(w, PT__CTRACE_SM,
                           !v[n - 1].host ? "GPU blocks by SM (folded launches)"
                           : v[0].host    ? "Host-mode blocks by CPU (folded launches)"
                                          : "Blocks by GPU SM and host CPU (folded launches)",
                           "ptkit: one track per block resident at once on an SM (host mode: "
                           "running at once on a CPU)");
    /* Tracks numbered from 1 in (place, lane) order, which is also their sort order. */
    for (i = 0; i < n; i++) {
        if (i == 0 || by_place(&v[i], &v[i - 1]) || v[i].lane != v[i - 1].lane) {
            tid++;
            if (v[i].sm >= 0)
                snprintf(name, sizeof name, "%s %lld, lane %d", v[i].host ? "host CPU" : "SM",
                         v[i].sm, v[i].lane);
            else
                snprintf(name, sizeof name, "%s, lane %d",
                         v[i].host ? "host mode, CPU unknown" : "SM unknown", v[i].lane);
            pt__ctrace_thread(w, PT__CTRACE_SM, tid, name, tid);
        }
        v[i].tid = tid;
        block(w, tr, &v[i], tid, &sd);
        /* Where its fold's clock on its SM sits, for the bubbles. */
        if (an && tr->folds[v[i].fold].overlap && v[i].sm >= 0)
            an[nan++] = (pt__tanchor){ pt__trace_key(v[i].fold, v[i].sm), v[i].t0,
                                       record(&tr->folds[v[i].fold], v[i].slot)[PT_DEV_S_CLK0],
                                       v[i].rate };
    }
    across_ctx ac = { w, &sd };
    (void)pt__span_evs_pair(&sd.left, across_slice, &ac);
    pt__span_evs_free(&sd.left);
    free(sd.scratch);
    tid += tails(w, tr, tid + 1, cap);
    if (an)
        (void)pt__trace_bubbles(w, tr, &sd.flight, an, nan, tid);
    pt__ivs_free(&sd.flight);
    free(an);
    free(v);
    free(busy.key);
    free(busy.lane);
    free(idle.key);
    free(idle.lane);
    return 0;
}
