/* The pipeline's bubbles in a Chrome trace.
 *
 * A role's bubbles, as the fold figures them (core/overlap.c): on each
 * SM, the times it waited (its slots' BEGIN to END outside their work)
 * with no other role of the launch working and no span open. Here they
 * are drawn, from the blocks the trace kept of each fold: the roles of
 * one launch are the folds placed at its start (a group), the spans in
 * flight those the trace paired (trace_blocks.c), and each interval of
 * an SM's clock is placed on the timeline by the first block of the role
 * on that SM, at its rate. Each role and SM with bubbles has a track. */
#include "report/trace_bubbles.h"

#include "pt_fold_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int pt__trace_group(const pt__trace *tr, int f)
{
    int g = 0;

    while (g < f && !(tr->folds[g].launch_us == tr->folds[f].launch_us))
        g++;
    return g;
}

/* Fold f's work and run on each SM, from its kept records, normed. */
static int timeline(const pt__tfold *f, pt__ivs *busy, pt__ivs *active)
{
    long long sw = PT_DEV_SLOT_WORDS(f->nphases, f->trace_cap), lim = pt__count_limit(f->nslots);

    for (int s = 0; s < f->kept; s++) {
        const long long *rec = f->recs + s * sw;
        if (!pt__slot_on_sm(rec, f->nphases, f->trace_cap, lim))
            continue;
        if (pt__ovl_slot(f->nphases, f->wait, rec, busy, active) < 0)
            return PT_ENOMEM;
    }
    pt__ivs_norm(busy);
    pt__ivs_norm(active);
    return 0;
}

static const pt__tanchor *anchor_of(const pt__tanchor *an, size_t n, long long key)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (an[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && an[lo].key == key ? &an[lo] : NULL;
}

/* Clock clk of the anchor's SM on the timeline, from 0 to
 * PT__TRACE_SPAN_MAX. */
static long long place(const pt__tanchor *a, long long clk)
{
    double t = (double)a->t0 +
               (double)(long long)((unsigned long long)clk - (unsigned long long)a->clk0) * a->rate;
    return !(t > 0)                           ? 0
           : t >= (double)PT__TRACE_SPAN_MAX ? PT__TRACE_SPAN_MAX
                                               : llround(t);
}

/* Role r's bubbles (of the roles v[0..n) of one group, with the group's
 * spans in flight), drawn from *tid on. */
static int draw_role(pt__ctrace *w, const pt__trace *tr, const int *roles, int n, int r,
                     pt__ivs *busy, pt__ivs *active, const pt__ivs *flight,
                     const pt__tanchor *an, size_t nan, long long *tid)
{
    const pt__tfold *f = &tr->folds[roles[r]];
    pt__ivs others = { 0 }, wait = { 0 }, bubble = { 0 };
    char name[160];
    int rc = pt__ivs_append(&others, flight);

    for (int i = 0; rc == 0 && i < n; i++)
        if (i != r)
            rc = pt__ivs_append(&others, &busy[i]);
    pt__ivs_norm(&others);
    if (rc == 0)
        rc = pt__ivs_minus(&wait, &active[r], &busy[r]);
    if (rc == 0)
        rc = pt__ivs_minus(&bubble, &wait, &others);
    for (size_t i = 0; rc == 0 && i < bubble.n; i++) {
        long long sm = bubble.v[3 * i], t0, t1;
        const pt__tanchor *a = anchor_of(an, nan, pt__trace_key(roles[r], sm));
        if (!a)
            continue;
        if (i == 0 || sm != bubble.v[3 * (i - 1)]) {
            ++*tid;
            snprintf(name, sizeof name, "bubbles: %.100s, %s %lld", f->node->name,
                     f->host ? "host CPU" : "SM", sm);
            pt__ctrace_thread(w, PT__CTRACE_SM, *tid, name, *tid);
        }
        t0 = place(a, bubble.v[3 * i + 1]);
        t1 = place(a, bubble.v[3 * i + 2]);
        pt__ctrace_complete(w, PT__CTRACE_SM, *tid, "bubble", "bubbles", t0, t1);
        pt__json_key(&w->j, "args");
        pt__json_open(&w->j, '{');
        pt__json_k_str(&w->j, "role", f->node->name);
        pt__json_k_str(&w->j, "bubble", "a wait with no other role working and no span open");
        pt__json_close(&w->j, '}');
        pt__ctrace_end_event(w);
    }
    pt__ivs_free(&others);
    pt__ivs_free(&wait);
    pt__ivs_free(&bubble);
    return rc;
}

/* Group g's roles (their folds in roles, n of them): each one's bubbles. */
static int draw_group(pt__ctrace *w, const pt__trace *tr, int g, const int *roles, int n,
                      const pt__ivs *flight, const pt__tanchor *an, size_t nan, long long *tid)
{
    pt__ivs *busy = calloc((size_t)n, sizeof *busy), *active = calloc((size_t)n, sizeof *active);
    pt__ivs mine = { 0 };
    int rc = busy && active ? 0 : PT_ENOMEM;

    for (int i = 0; rc == 0 && i < n; i++)
        rc = timeline(&tr->folds[roles[i]], &busy[i], &active[i]);
    /* The group's spans, on their SMs. */
    for (size_t i = 0; rc == 0 && i < flight->n; i++)
        if (flight->v[3 * i] >> 32 == g)
            rc = pt__ivs_add(&mine, flight->v[3 * i] & 0xffffffffLL, flight->v[3 * i + 1],
                             flight->v[3 * i + 2]);
    pt__ivs_norm(&mine);
    for (int r = 0; rc == 0 && r < n; r++)
        rc = draw_role(w, tr, roles, n, r, busy, active, &mine, an, nan, tid);
    for (int i = 0; busy && active && i < n; i++) {
        pt__ivs_free(&busy[i]);
        pt__ivs_free(&active[i]);
    }
    free(busy);
    free(active);
    pt__ivs_free(&mine);
    return rc;
}

static int by_key(const void *pa, const void *pb)
{
    const pt__tanchor *a = pa, *b = pb;
    return a->key != b->key ? (a->key < b->key ? -1 : 1) : (a->t0 < b->t0 ? -1 : a->t0 > b->t0);
}

long long pt__trace_bubbles(pt__ctrace *w, const pt__trace *tr, pt__ivs *flight,
                            pt__tanchor *an, size_t n, long long tid)
{
    int roles[PT__TRACE_FOLD_LAUNCHES];
    long long first = tid;
    size_t k = 0;

    /* By key, the earliest block first: one anchor a key. */
    qsort(an, n, sizeof *an, by_key);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || an[i].key != an[k - 1].key)
            an[k++] = an[i];
    n = k;
    pt__ivs_norm(flight);

    for (int g = 0; g < tr->nfolds; g++) {
        int nroles = 0;
        if (pt__trace_group(tr, g) != g)
            continue;
        for (int f = g; f < tr->nfolds; f++)
            if (tr->folds[f].overlap && pt__trace_group(tr, f) == g)
                roles[nroles++] = f;
        if (nroles > 0 && draw_group(w, tr, g, roles, nroles, flight, an, n, &tid) < 0)
            break;
    }
    return tid - first;
}
