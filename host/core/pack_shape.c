/* A launch's shape in the packed format (pack.c says where it lies):
 * written whole, and read back checked as a fold could leave it. */
#include "core/pack.h"
#include "core/shape.h"
#include "core/spans.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void pt__pack_put_shape(pt__wbuf *w, const pt__shape *sh)
{
    const uint64_t u[] = { sh->folds, sh->resident, sh->sms, (uint64_t)sh->slowest_block,
                           (uint64_t)sh->slowest_sm, sh->stragglers, (uint64_t)sh->straggler_sm,
                           sh->sample_every, sh->sample_slots };
    const double f[] = { sh->waves_sum, sh->span_ns_sum, sh->tail_ns_sum, sh->idle_sum,
                         sh->slowest_ns };

    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        pt__pk_put_u(w, u[i], 8);
    pt__pk_put_u(w, (uint64_t)(sh->on_host != 0), 1);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        pt__pk_put_f(w, f[i]);
    pt__pk_put_u(w, (uint64_t)sh->nslow, 4);
    for (int i = 0; i < sh->nslow; i++) {
        pt__pk_put_str(w, sh->slow_names[i]);
        pt__pk_put_f(w, sh->slow_ns[i]);
    }
    pt__pk_put_u(w, (uint64_t)sh->nspans, 4);
    for (int i = 0; i < sh->nspans; i++) {
        const pt__span *sp = &sh->spans[i];
        pt__pk_put_str(w, sp->name);
        pt__pk_put_u(w, sp->count, 8);
        pt__pk_put_u(w, sp->unmatched, 8);
        pt__pk_put_f(w, sp->total_ns);
        pt__pk_put_f(w, sp->max_ns);
        pt__pk_put_hist(w, sp->hist);
    }
    pt__pk_put_u(w, sh->ovl_folds, 8);
    pt__pk_put_f(w, sh->busy_ns);
    pt__pk_put_f(w, sh->overlap_ns);
    pt__pk_put_f(w, sh->wait_ns);
    pt__pk_put_f(w, sh->bubble_ns);
}

/* The overlap after the spans (version 5): the overlap within the work,
 * the bubbles within the waits, none without folds. */
static int get_overlap(pt__rbuf *r, pt__shape *sh)
{
    if (r->version < 5)
        return 0;
    if (pt__pk_get_u(r, &sh->ovl_folds, 8, "a launch's overlap") < 0 ||
        pt__pk_get_f(r, &sh->busy_ns, "a launch's overlap") < 0 ||
        pt__pk_get_f(r, &sh->overlap_ns, "a launch's overlap") < 0 ||
        pt__pk_get_f(r, &sh->wait_ns, "a launch's overlap") < 0 ||
        pt__pk_get_f(r, &sh->bubble_ns, "a launch's overlap") < 0)
        return PT_EPARSE;
    if (!pt__pk_at_most(sh->overlap_ns, sh->busy_ns) ||
        !pt__pk_at_most(sh->bubble_ns, sh->wait_ns) ||
        (sh->ovl_folds == 0 && sh->busy_ns + sh->wait_ns > 0))
        return pt__pk_fault(r, "a launch's overlap that no fold gives");
    return 0;
}

/* The span kinds after the shape (version 4): each name once, counts and
 * times >= 0, the histogram's bins rising. */
static int get_spans(pt__rbuf *r, pt__shape *sh)
{
    uint64_t n;
    int rc;

    if (pt__pk_get_u(r, &n, 4, "a launch's spans") < 0)
        return PT_EPARSE;
    if (n > (r->n - r->at) / 40)
        return pt__pk_fault(r, "more span kinds than bytes left");
    for (uint64_t i = 0; i < n; i++) {
        pt__span *sp;
        char *name;
        if ((rc = pt__pk_get_str(r, &name, "a span kind's name",
                                 "a span kind's name longer than the bytes left, or with a NUL")) < 0)
            return rc;
        for (int k = 0; k < sh->nspans; k++)
            if (strcmp(sh->spans[k].name, name) == 0) {
                free(name);
                return pt__pk_fault(r, "a span kind named twice");
            }
        sp = pt__span_of(sh, name);
        free(name);
        if (!sp)
            return PT_ENOMEM;
        if (pt__pk_get_u(r, &sp->count, 8, "a span kind") < 0 ||
            pt__pk_get_u(r, &sp->unmatched, 8, "a span kind") < 0 ||
            pt__pk_get_f(r, &sp->total_ns, "a span kind") < 0 ||
            pt__pk_get_f(r, &sp->max_ns, "a span kind") < 0)
            return PT_EPARSE;
        if ((rc = pt__pk_get_hist(r, &sp->hist, sp->count, "a span histogram",
                                  "more spans in the histogram than closed")) < 0)
            return rc;
    }
    return 0;
}

/* A launch's shape (version 4): every figure as a fold could leave it. */
int pt__pack_get_shape(pt__rbuf *r, pt_section *s)
{
    pt__shape *sh = pt__shape_of(s);
    uint64_t u[9], host, nslow;
    double f[5], *ns = NULL;
    char **names = NULL;
    int rc = 0;

    if (!sh)
        return PT_ENOMEM;
    for (size_t i = 0; i < 9; i++)
        if (pt__pk_get_u(r, &u[i], 8, "a launch's shape") < 0)
            return PT_EPARSE;
    if (pt__pk_get_u(r, &host, 1, "a launch's shape") < 0)
        return PT_EPARSE;
    for (size_t i = 0; i < 5; i++)
        if (pt__pk_get_f(r, &f[i], "a launch's shape") < 0)
            return PT_EPARSE;
    if (pt__pk_get_u(r, &nslow, 4, "a launch's shape") < 0)
        return PT_EPARSE;
    /* Folds with resident and SMs at least 1 (none: a sample's or spans'
     * alone); slots and SMs ints; the tail within the span, the idle share
     * at most 1 a fold. */
    if ((u[0] > 0 && (u[1] == 0 || u[2] == 0)) || u[3] > INT32_MAX ||
        u[4] > INT32_MAX || u[5] > u[2] || u[6] > INT32_MAX || host > 1 ||
        !pt__pk_at_most(f[2], f[1]) || !pt__pk_at_most(f[3], (double)u[0]))
        return pt__pk_fault(r, "a launch's shape that no fold gives");
    if (nslow > (r->n - r->at) / 12 || nslow > INT32_MAX)
        return pt__pk_fault(r, "more phases of the slowest block than bytes left");
    *sh = (pt__shape){ .folds = u[0], .on_host = (int)host, .waves_sum = f[0],
                       .span_ns_sum = f[1], .tail_ns_sum = f[2], .idle_sum = f[3],
                       .resident = u[1], .sms = u[2], .stragglers = u[5],
                       .straggler_sm = (long long)u[6], .sample_every = u[7],
                       .sample_slots = u[8] };
    names = calloc(nslow ? (size_t)nslow : 1, sizeof *names);
    ns = malloc((nslow ? (size_t)nslow : 1) * sizeof *ns);
    if (!names || !ns)
        rc = PT_ENOMEM;
    for (uint64_t i = 0; rc == 0 && i < nslow; i++)
        if ((rc = pt__pk_get_str(r, &names[i], "the slowest block's phases",
                                 "a phase of the slowest block longer than the bytes left, or "
                                 "with a NUL")) == 0)
            rc = pt__pk_get_f(r, &ns[i], "the slowest block's phases");
    if (rc == 0)
        rc = pt__shape_slowest(sh, f[4], (long long)u[3], (long long)u[4], (int)nslow,
                               (const char *const *)names, ns);
    for (uint64_t i = 0; names && i < nslow; i++)
        free(names[i]);
    free(names);
    free(ns);
    if (rc == 0)
        rc = get_spans(r, sh);
    return rc ? rc : get_overlap(r, sh);
}

