/* Overlap of a launch's roles, from their timelines on each SM.
 *
 * For a role R of one occurrence, on each SM, with O the union of the
 * other roles' work and S the union of every role's open spans:
 *
 *   busy     R's work: when any of its slots was in a phase that is no wait
 *   overlap  busy inside O: R worked while another role worked
 *   wait     R's run (its slots' BEGIN to END) outside its work
 *   bubble   wait outside O and S: nothing was in flight
 *
 * each summed over the SMs, then divided by the SMs R ran on: a figure
 * per SM, comparable to the launch's time. clock64 counts on each SM
 * alike for every block on it, so an SM's intervals compare; where an SM
 * held several blocks at once, their roles count on its one timeline. */
#include "core/overlap.h"

#include "core/shape.h"
#include "core/strv.h"

#include <pt/pt_dev_buf.h>

#include <stdlib.h>
#include <string.h>

int pt__ivs_add(pt__ivs *s, long long sm, long long a, long long b)
{
    if (b <= a)
        return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        long long *v = realloc(s->v, 3 * cap * sizeof *v);
        if (!v)
            return PT_ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[3 * s->n] = sm;
    s->v[3 * s->n + 1] = a;
    s->v[3 * s->n + 2] = b;
    s->n++;
    return 0;
}

static int by_sm_start(const void *x, const void *y)
{
    const long long *a = x, *b = y;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

void pt__ivs_norm(pt__ivs *s)
{
    size_t m = 0;

    if (s->n == 0)
        return;
    qsort(s->v, s->n, 3 * sizeof *s->v, by_sm_start);
    for (size_t i = 1; i < s->n; i++) {
        long long *last = s->v + 3 * m, *cur = s->v + 3 * i;
        if (cur[0] == last[0] && cur[1] <= last[2]) {
            if (cur[2] > last[2])
                last[2] = cur[2];
            continue;
        }
        m++;
        memmove(s->v + 3 * m, cur, 3 * sizeof *cur);
    }
    s->n = m + 1;
}

void pt__ivs_free(pt__ivs *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

double pt__ivs_len(const pt__ivs *s)
{
    double n = 0;

    for (size_t i = 0; i < s->n; i++)
        n += pt__cycles(s->v[3 * i + 1], s->v[3 * i + 2]);
    return n;
}

double pt__ivs_inter_len(const pt__ivs *a, const pt__ivs *b)
{
    size_t i = 0, j = 0;
    double n = 0;

    while (i < a->n && j < b->n) {
        const long long *x = a->v + 3 * i, *y = b->v + 3 * j;
        long long lo, hi;
        if (x[0] != y[0]) {
            x[0] < y[0] ? i++ : j++;
            continue;
        }
        lo = x[1] > y[1] ? x[1] : y[1];
        hi = x[2] < y[2] ? x[2] : y[2];
        if (hi > lo)
            n += pt__cycles(lo, hi);
        x[2] < y[2] ? i++ : j++;
    }
    return n;
}

long long pt__ivs_sms(const pt__ivs *s)
{
    long long n = 0;

    for (size_t i = 0; i < s->n; i++)
        n += i == 0 || s->v[3 * i] != s->v[3 * (i - 1)];
    return n;
}

int pt__ivs_append(pt__ivs *dst, const pt__ivs *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (pt__ivs_add(dst, b->v[3 * i], b->v[3 * i + 1], b->v[3 * i + 2]) < 0)
            return PT_ENOMEM;
    return 0;
}

int pt__ivs_minus(pt__ivs *dst, const pt__ivs *a, const pt__ivs *b)
{
    size_t j = 0;

    for (size_t i = 0; i < a->n; i++) {
        long long sm = a->v[3 * i], lo = a->v[3 * i + 1], hi = a->v[3 * i + 2];
        while (j < b->n && (b->v[3 * j] < sm || (b->v[3 * j] == sm && b->v[3 * j + 2] <= lo)))
            j++;
        for (size_t k = j; k < b->n && b->v[3 * k] == sm && b->v[3 * k + 1] < hi; k++) {
            if (b->v[3 * k + 1] > lo && pt__ivs_add(dst, sm, lo, b->v[3 * k + 1]) < 0)
                return PT_ENOMEM;
            if (b->v[3 * k + 2] > lo)
                lo = b->v[3 * k + 2];
        }
        if (pt__ivs_add(dst, sm, lo, hi) < 0)
            return PT_ENOMEM;
    }
    return 0;
}

int pt__ovl_slot(int nphases, const unsigned char *wait, const long long *rec, pt__ivs *busy,
                 pt__ivs *active)
{
    const long long *ev = rec + PT_DEV_SLOT_HDR + 2LL * nphases;
    long long n = rec[PT_DEV_S_NEVENTS], sm = rec[PT_DEV_S_SMID];
    long long prev = rec[PT_DEV_S_CLK0], end = rec[PT_DEV_S_CLK1];

    for (long long k = 0, at = prev; k < n; k++)
        if (ev[2 * k] < PT_DEV_EV_SPAN && (ev[2 * k + 1] < at || (at = ev[2 * k + 1]) > end))
            return 0;
    for (long long k = 0; k < n; k++) {
        long long code = ev[2 * k], at = ev[2 * k + 1];
        if (code >= PT_DEV_EV_SPAN)
            continue;
        if ((code < 0 || code >= nphases || !wait || !wait[code]) &&
            pt__ivs_add(busy, sm, prev, at) < 0)
            return PT_ENOMEM;
        prev = at;
    }
    if (rec[PT_DEV_S_DROPPED] > 0)
        end = prev;
    else if (pt__ivs_add(busy, sm, prev, end) < 0)
        return PT_ENOMEM;
    return pt__ivs_add(active, sm, rec[PT_DEV_S_CLK0], end);
}

/* Role r's four figures of the occurrence, against the other roles of o,
 * in ns per SM: busy, overlap, wait, bubble. */
static int figure(const pt__ovl *o, const pt__ovl_role *r, double out[4])
{
    pt__ivs others = { 0 }, flight = { 0 }, wait = { 0 };
    long long sms = pt__ivs_sms(&r->active);
    double k = sms > 0 ? r->ns_per_cycle / (double)sms : 0;
    int rc = 0;

    for (int i = 0; rc == 0 && i < o->n; i++)
        if (&o->roles[i] != r)
            rc = pt__ivs_append(&others, &o->roles[i].busy);
    pt__ivs_norm(&others);
    for (int i = 0; rc == 0 && i < o->n; i++)
        rc = pt__ivs_append(&flight, &o->roles[i].spans);
    if (rc == 0)
        rc = pt__ivs_append(&flight, &others);
    pt__ivs_norm(&flight);
    if (rc == 0)
        rc = pt__ivs_minus(&wait, &r->active, &r->busy);
    if (rc == 0) {
        double w = pt__ivs_len(&wait);
        out[0] = k * pt__ivs_len(&r->busy);
        out[1] = k * pt__ivs_inter_len(&r->busy, &others);
        out[2] = k * w;
        out[3] = k * (w - pt__ivs_inter_len(&wait, &flight));
    }
    pt__ivs_free(&others);
    pt__ivs_free(&flight);
    pt__ivs_free(&wait);
    return rc;
}

static void role_free(pt__ovl_role *r)
{
    pt__ivs_free(&r->busy);
    pt__ivs_free(&r->active);
    pt__ivs_free(&r->spans);
    pt__span_evs_free(&r->left);
    pt__strv_free(r->names, r->nnames);
    r->names = NULL;
    r->nnames = 0;
}

/* ---- spans across roles ------------------------------------------ */

typedef struct cross_ctx {
    pt_section *launch;
    pt__ovl *o;
    pt__span_evs all;         /* every role's events, tagged role << 32 | its place there */
    unsigned char **used;     /* per role, its events paired now */
    int err;
} cross_ctx;

/* One less unmatched event of kind in role r's section. */
static void matched(const pt__ovl_role *r, int kind)
{
    pt__span *sp;

    if (!r->node->shape)
        return;
    sp = pt__span_of_kind(r->node->shape, r->names, r->nnames, kind);
    if (sp && sp->unmatched > 0)
        sp->unmatched--;
    /* A kind all of whose events went to the launch's spans says nothing. */
    if (sp)
        pt__span_drop_empty(r->node->shape, sp);
}

static void cross_one(void *ctx, int kind, unsigned id, long long clk0, long long clk1, long long k,
                      long long l)
{
    cross_ctx *c = ctx;
    long long tb, te;
    pt__ovl_role *rb, *re;
    pt__shape *sh;
    pt__span *sp;

    (void)id;
    if (k < 0 || l < 0 || c->err)
        return;
    tb = c->all.v[k].tag;
    te = c->all.v[l].tag;
    /* Pairs within one role were its own to make: left as they are. */
    if (tb >> 32 == te >> 32)
        return;
    rb = &c->o->roles[tb >> 32];
    re = &c->o->roles[te >> 32];
    if (!(sh = pt__shape_of(c->launch)) ||
        !(sp = pt__span_of_kind(sh, rb->names, rb->nnames, kind)) ||
        pt__span_add(sp, pt__cycles(clk0, clk1) * c->all.v[k].rate) < 0) {
        c->err = PT_ENOMEM;
        return;
    }
    /* In flight on the SM from the begin to the end. */
    if (pt__ivs_add(&rb->spans, c->all.v[k].sm, clk0, clk1) < 0) {
        c->err = PT_ENOMEM;
        return;
    }
    matched(rb, kind);
    matched(re, kind);
    c->used[tb >> 32][tb & 0xffffffff] = 1;
    c->used[te >> 32][te & 0xffffffff] = 1;
}

/* Pairs the roles' events left alone across the roles, and keeps in each
 * role the events still alone. O(n log n) in the events. */
static int cross(pt_section *launch, pt__ovl *o)
{
    cross_ctx c = { launch, o, { 0 }, NULL, 0 };
    size_t n = 0;

    for (int i = 0; i < o->n; i++)
        n += o->roles[i].left.n;
    if (n == 0 || o->n < 2)
        return 0;
    if (!(c.used = calloc((size_t)o->n, sizeof *c.used)))
        return PT_ENOMEM;
    for (int i = 0; !c.err && i < o->n; i++) {
        const pt__span_evs *e = &o->roles[i].left;
        if (e->n && !(c.used[i] = calloc(e->n, 1)))
            c.err = PT_ENOMEM;
        for (size_t k = 0; !c.err && k < e->n; k++) {
            pt__span_ev ev = e->v[k];
            ev.tag = (long long)i << 32 | (long long)k;
            if (pt__span_evs_add(&c.all, &ev) < 0)
                c.err = PT_ENOMEM;
        }
    }
    if (!c.err && pt__span_evs_pair(&c.all, cross_one, &c) < 0)
        c.err = PT_ENOMEM;
    for (int i = 0; i < o->n; i++)
        pt__ivs_norm(&o->roles[i].spans);
    for (int i = 0; !c.err && i < o->n; i++) {
        pt__span_evs *e = &o->roles[i].left;
        size_t m = 0;
        for (size_t k = 0; k < e->n; k++)
            if (!c.used[i][k])
                e->v[m++] = e->v[k];
        e->n = m;
    }
    for (int i = 0; i < o->n; i++)
        free(c.used[i]);
    free(c.used);
    pt__span_evs_free(&c.all);
    return c.err;
}

void pt__ovl_free(pt__ovl *o)
{
    if (!o)
        return;
    for (int i = 0; i < o->n; i++)
        role_free(&o->roles[i]);
    free(o->roles);
    free(o);
}

/* Replaces what r added to its shape for this occurrence by f. */
static void readd(pt__ovl_role *r, const double f[4])
{
    pt__shape *sh = r->node->shape;
    double *sum[4] = { &sh->busy_ns, &sh->overlap_ns, &sh->wait_ns, &sh->bubble_ns };

    for (int i = 0; i < 4; i++) {
        *sum[i] += f[i] - r->added[i];
        /* What was added and taken back leaves no rounding below 0. */
        if (*sum[i] < 0)
            *sum[i] = 0;
        r->added[i] = f[i];
    }
}

int pt__ovl_add(pt_section *launch, uint64_t occurrence, pt__ovl_role *r)
{
    pt__shape *rs = pt__shape_of(r->node);
    pt__ovl *o = launch->ovl;
    pt__ovl_role *v;

    if (!rs)
        goto fail;
    if (o && o->occurrence != occurrence) {
        pt__ovl_free(o);
        launch->ovl = o = NULL;
    }
    if (!o && !(o = launch->ovl = calloc(1, sizeof *o)))
        goto fail;
    o->occurrence = occurrence;
    if (!(v = realloc(o->roles, (size_t)(o->n + 1) * sizeof *v)))
        goto fail;
    o->roles = v;
    memset(r->added, 0, sizeof r->added);
    o->roles[o->n++] = *r;
    rs->ovl_folds++;
    /* Spans across the roles, in flight for the bubbles; then every role
     * of the occurrence against the others, the new one too. */
    if (cross(launch, o) < 0)
        return PT_ENOMEM;
    for (int i = 0; i < o->n; i++) {
        double f[4];
        if (figure(o, &o->roles[i], f) < 0)
            return PT_ENOMEM;
        readd(&o->roles[i], f);
    }
    return 0;
fail:
    role_free(r);
    return PT_ENOMEM;
}
