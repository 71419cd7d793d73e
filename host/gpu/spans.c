/* Spans from one fold's trace records.
 *
 * A span's begin and end are paired first within their record (an end
 * closes the latest open begin of its kind and id there, at the record's
 * rate); the events left alone are then paired across the records of
 * each SM in clock order (a load issued by one warp, waited for by
 * another of its block; clock64 counts alike for every warp on an SM),
 * at the fold's rate. Where an SM held several blocks at once, their
 * warps' events meet there too: ids unique per block keep them apart.
 * O(n log n) in the events. */
#include "gpu/spans.h"

#include "core/shape.h"

#include "pt_fold_math.h"

#include <stdlib.h>

typedef struct span_ctx {
    pt__shape *sh;
    const pt_dev_records *b;
    const long long *ev;      /* the record's events, in the first pass */
    long long sm;
    double rate;              /* ns per cycle of the record */
    pt__span_evs alone;       /* left alone in their records */
    pt__span_evs *left;       /* left alone across them too, for the caller */
    pt__ivs *flight;          /* each span's interval, for the caller */
    int err;
} span_ctx;

static pt__span *kind_of(span_ctx *c, int kind)
{
    pt__span *sp = pt__span_of_kind(c->sh, c->b->span_names, c->b->nspan_names, kind);
    if (!sp)
        c->err = PT_ENOMEM;
    return sp;
}

/* Within a record: a pair is a span; an end before its begin is counted
 * unmatched; an event alone waits for the second pass. */
static void in_record(void *ctx, int kind, unsigned id, long long clk0, long long clk1, long long k,
                      long long l)
{
    span_ctx *c = ctx;
    pt__span *sp;

    (void)id;
    if (k < 0 || l < 0) {
        long long at = k < 0 ? l : k;
        pt__span_ev e = { c->sm, c->ev[2 * at], c->ev[2 * at + 1], 0, c->rate };
        if (pt__span_evs_add(&c->alone, &e) < 0)
            c->err = PT_ENOMEM;
        return;
    }
    if (!(sp = kind_of(c, kind)))
        return;
    if (clk1 < clk0)
        sp->unmatched++;
    else if (pt__span_add(sp, pt__cycles(clk0, clk1) * c->rate) < 0 ||
             (c->flight && pt__ivs_add(c->flight, c->sm, clk0, clk1) < 0))
        c->err = PT_ENOMEM;
}

/* Across the records of an SM: a pair is a span, an event alone is
 * unmatched (and handed on). */
static void across(void *ctx, int kind, unsigned id, long long clk0, long long clk1, long long k,
                   long long l)
{
    span_ctx *c = ctx;
    pt__span *sp = kind_of(c, kind);

    (void)id;
    if (!sp)
        return;
    if (k >= 0 && l >= 0) {
        if (pt__span_add(sp, pt__cycles(clk0, clk1) * c->alone.v[k].rate) < 0 ||
            (c->flight && pt__ivs_add(c->flight, c->alone.v[k].sm, clk0, clk1) < 0))
            c->err = PT_ENOMEM;
        return;
    }
    sp->unmatched++;
    if (c->left && pt__span_evs_add(c->left, &c->alone.v[k < 0 ? l : k]) < 0)
        c->err = PT_ENOMEM;
}

int pt__spans_fold(pt_section *node, pt_dev_records *b, const long long *d, double tick_ns,
                   double ns_per_cycle, pt__span_evs *left, pt__ivs *flight)
{
    long long sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap), lim = pt__count_limit(b->nslots);
    long long *scratch;
    span_ctx c = { NULL, b, NULL, 0, 0, { 0 }, left, flight, 0 };

    if (b->mode != PT_DEV_MODE_TRACE || b->trace_cap <= 0)
        return 0;
    if (!(scratch = malloc(4 * (size_t)b->trace_cap * sizeof *scratch)))
        return PT_ENOMEM;
    for (int s = 0; s < b->nslots && !c.err; s++) {
        const long long *rec = d + PT_DEV_HDR + s * sw;
        long long n = rec[PT_DEV_S_NEVENTS];
        if (pt__slot_ok(rec, b->nphases, b->trace_cap, lim) <= 0 || n <= 0)
            continue;
        if (!c.sh && !(c.sh = pt__shape_of(node))) {
            c.err = PT_ENOMEM;
            break;
        }
        c.ev = rec + PT_DEV_SLOT_HDR + 2LL * b->nphases;
        c.sm = rec[PT_DEV_S_SMID];
        pt__slot_rate(rec, tick_ns, ns_per_cycle, &c.rate);
        pt__spans_pair(c.ev, n, scratch, in_record, &c);
    }
    free(scratch);
    if (!c.err && pt__span_evs_pair(&c.alone, across, &c) < 0)
        c.err = PT_ENOMEM;
    pt__span_evs_free(&c.alone);
    return c.err;
}
