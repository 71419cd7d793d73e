/* Spans: begin and end events paired in a record's trace, and each kind's
 * figures over a launch's folds. */
#include "core/spans.h"

#include "core/hist.h"
#include "core/strv.h"

#include "pt_hist.h"

#include <pt/pt_dev_buf.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* scratch as (key, order, clock) triples: key the code without its end
 * bit (kind and id), order the event's place, its sign the end bit. */
static int by_key_order(const void *a, const void *b)
{
    const long long *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return llabs(x[1]) < llabs(y[1]) ? -1 : llabs(x[1]) > llabs(y[1]);
}

uint64_t pt__spans_pair(const long long *ev, long long n, long long *scratch, pt__span_fn fn,
                        void *ctx)
{
    long long m = 0;
    uint64_t unmatched = 0;

    for (long long k = 0; k < n; k++) {
        long long code = ev[2 * k];
        if (code < PT_DEV_EV_SPAN)
            continue;
        scratch[3 * m] = code & ~PT_DEV_EV_SPAN_END;
        /* 1-based, negative for an end: the sign is the kind of event. */
        scratch[3 * m + 1] = code & PT_DEV_EV_SPAN_END ? -(k + 1) : k + 1;
        scratch[3 * m + 2] = ev[2 * k + 1];
        m++;
    }
    if (m == 0)
        return 0;
    qsort(scratch, (size_t)m, 3 * sizeof *scratch, by_key_order);
    /* Within one key, in order, the open begins are a stack (after the
     * triples): an end closes the top. O(m) after the sort. */
    for (long long i = 0, j, *stack = scratch + 3 * m; i < m; i = j) {
        long long top = 0;
        for (j = i; j < m && scratch[3 * j] == scratch[3 * i]; j++) {
            long long b;
            if (scratch[3 * j + 1] > 0) {
                stack[top++] = j;
                continue;
            }
            if (top == 0) {
                unmatched++;
                fn(ctx, (int)((scratch[3 * j] >> 32) & 0xffff),
                   (unsigned)(scratch[3 * j] & 0xffffffff), 0, 0, -1, -scratch[3 * j + 1] - 1);
                continue;
            }
            b = stack[--top];
            fn(ctx, (int)((scratch[3 * j] >> 32) & 0xffff), (unsigned)(scratch[3 * j] & 0xffffffff),
               scratch[3 * b + 2], scratch[3 * j + 2], scratch[3 * b + 1] - 1,
               -scratch[3 * j + 1] - 1);
        }
        unmatched += (uint64_t)top;
        while (top > 0) {
            long long b = stack[--top];
            fn(ctx, (int)((scratch[3 * b] >> 32) & 0xffff), (unsigned)(scratch[3 * b] & 0xffffffff),
               0, 0, scratch[3 * b + 1] - 1, -1);
        }
    }
    return unmatched;
}

int pt__span_evs_add(pt__span_evs *e, const pt__span_ev *ev)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 32;
        pt__span_ev *v = realloc(e->v, cap * sizeof *v);
        if (!v)
            return PT_ENOMEM;
        e->v = v;
        e->cap = cap;
    }
    e->v[e->n++] = *ev;
    return 0;
}

void pt__span_evs_free(pt__span_evs *e)
{
    free(e->v);
    memset(e, 0, sizeof *e);
}

static int by_sm_clock(const void *a, const void *b)
{
    const pt__span_ev *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return x->clk < y->clk ? -1 : x->clk > y->clk;
}

/* pt__spans_pair's callback for one SM's run of e, from base on. */
typedef struct run_ctx {
    pt__span_fn fn;
    void *ctx;
    long long base;
} run_ctx;

static void in_run(void *ctx, int kind, unsigned id, long long clk0, long long clk1, long long k,
                   long long l)
{
    run_ctx *r = ctx;
    r->fn(r->ctx, kind, id, clk0, clk1, k < 0 ? -1 : r->base + k, l < 0 ? -1 : r->base + l);
}

int pt__span_evs_pair(pt__span_evs *e, pt__span_fn fn, void *ctx)
{
    long long *ev, *scratch;

    if (e->n == 0)
        return 0;
    ev = malloc(2 * e->n * sizeof *ev);
    scratch = malloc(4 * e->n * sizeof *scratch);
    if (!ev || !scratch) {
        free(ev);
        free(scratch);
        return PT_ENOMEM;
    }
    qsort(e->v, e->n, sizeof *e->v, by_sm_clock);
    for (size_t i = 0, j; i < e->n; i = j) {
        run_ctx r = { fn, ctx, (long long)i };
        for (j = i; j < e->n && e->v[j].sm == e->v[i].sm; j++) {
            ev[2 * (j - i)] = e->v[j].code;
            ev[2 * (j - i) + 1] = e->v[j].clk;
        }
        pt__spans_pair(ev, (long long)(j - i), scratch, in_run, &r);
    }
    free(ev);
    free(scratch);
    return 0;
}

const char *pt__span_kind_name(char *const *names, int n, int kind, char *buf)
{
    if (kind < n)
        return names[kind];
    snprintf(buf, 32, "span %d", kind);
    return buf;
}

pt__span *pt__span_of(pt__shape *sh, const char *name)
{
    pt__span *v;

    for (int i = 0; i < sh->nspans; i++)
        if (strcmp(sh->spans[i].name, name) == 0)
            return &sh->spans[i];
    v = realloc(sh->spans, (size_t)(sh->nspans + 1) * sizeof *v);
    if (!v)
        return NULL;
    sh->spans = v;
    v = &sh->spans[sh->nspans];
    memset(v, 0, sizeof *v);
    if (!(v->name = pt__str_dup(name)))
        return NULL;
    sh->nspans++;
    return v;
}

pt__span *pt__span_of_kind(pt__shape *sh, char *const *names, int n, int kind)
{
    char buf[32];

    return pt__span_of(sh, pt__span_kind_name(names, n, kind, buf));
}

void pt__span_drop_empty(pt__shape *sh, pt__span *sp)
{
    if (sp->count > 0 || sp->unmatched > 0)
        return;
    free(sp->name);
    free(sp->hist);
    memmove(sp, sp + 1, (size_t)(sh->spans + sh->nspans - (sp + 1)) * sizeof *sp);
    sh->nspans--;
}

int pt__span_add(pt__span *sp, double ns)
{
    sp->count++;
    sp->total_ns += ns;
    if (ns > sp->max_ns)
        sp->max_ns = ns;
    if (!sp->hist && !(sp->hist = calloc(PT__HIST_BINS, sizeof *sp->hist)))
        return PT_ENOMEM;
    sp->hist[pt__hist_bin(ns)]++;
    return 0;
}

int pt__spans_merge(pt__shape *dst, const pt__shape *src)
{
    for (int i = 0; i < src->nspans; i++) {
        const pt__span *s = &src->spans[i];
        pt__span *d = pt__span_of(dst, s->name);
        if (!d)
            return PT_ENOMEM;
        d->count += s->count;
        d->unmatched += s->unmatched;
        d->total_ns += s->total_ns;
        if (s->max_ns > d->max_ns)
            d->max_ns = s->max_ns;
        if (s->hist) {
            if (!d->hist && !(d->hist = calloc(PT__HIST_BINS, sizeof *d->hist)))
                return PT_ENOMEM;
            for (int k = 0; k < PT__HIST_BINS; k++)
                d->hist[k] += s->hist[k];
        }
    }
    return 0;
}

void pt__spans_free(pt__shape *sh)
{
    for (int i = 0; i < sh->nspans; i++) {
        free(sh->spans[i].name);
        free(sh->spans[i].hist);
    }
    free(sh->spans);
    sh->spans = NULL;
    sh->nspans = 0;
}

double pt__span_quantile(const pt__span *sp, double q)
{
    return pt__hist_quantile(sp->hist, q, 0, sp->max_ns);
}
