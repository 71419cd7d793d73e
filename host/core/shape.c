/* A launch's shape: how its blocks filled the device, pooled over folds
 * (gpu/shape.c measures one fold), merged runs and restored ones. */
#include "core/shape.h"
#include "core/spans.h"
#include "core/strv.h"

#include <stdlib.h>
#include <string.h>

static void free_slow(pt__shape *sh)
{
    pt__strv_free(sh->slow_names, sh->nslow);
    free(sh->slow_ns);
    sh->slow_names = NULL;
    sh->slow_ns = NULL;
    sh->nslow = 0;
}

void pt__shape_free(pt__shape *sh)
{
    if (sh) {
        free_slow(sh);
        pt__spans_free(sh);
        free(sh);
    }
}

pt__shape *pt__shape_of(pt_section *s)
{
    if (!s->shape)
        s->shape = calloc(1, sizeof *s->shape);
    return s->shape;
}

int pt__shape_slowest(pt__shape *sh, double ns, long long block, long long sm, int n,
                      const char *const *names, const double *phase_ns)
{
    char **nm;
    double *v;

    if (sh->nslow + sh->slowest_ns > 0 && !(ns > sh->slowest_ns))
        return 0;
    nm = pt__strv_dup(names, n);
    v = malloc((n > 0 ? (size_t)n : 1) * sizeof *v);
    if (!nm || !v) {
        pt__strv_free(nm, n);
        free(v);
        return PT_ENOMEM;
    }
    if (n > 0)
        memcpy(v, phase_ns, (size_t)n * sizeof *v);
    free_slow(sh);
    sh->slow_names = nm;
    sh->slow_ns = v;
    sh->nslow = n;
    sh->slowest_ns = ns;
    sh->slowest_block = block;
    sh->slowest_sm = sm;
    return 0;
}

int pt__shape_merge(pt_section *dst, const pt__shape *src)
{
    pt__shape *d;

    if (!src || (src->folds == 0 && src->sample_every < 2 && src->nspans == 0 &&
                 src->ovl_folds == 0))
        return 0;
    if (!(d = pt__shape_of(dst)) || pt__spans_merge(d, src) < 0)
        return PT_ENOMEM;
    d->ovl_folds += src->ovl_folds;
    d->busy_ns += src->busy_ns;
    d->overlap_ns += src->overlap_ns;
    d->wait_ns += src->wait_ns;
    d->bubble_ns += src->bubble_ns;
    if (src->sample_every > d->sample_every) {
        d->sample_every = src->sample_every;
        d->sample_slots = src->sample_slots;
    }
    if (src->folds == 0)
        return 0;
    d->folds += src->folds;
    d->on_host |= src->on_host;
    d->waves_sum += src->waves_sum;
    d->span_ns_sum += src->span_ns_sum;
    d->tail_ns_sum += src->tail_ns_sum;
    d->idle_sum += src->idle_sum;
    if (src->resident > d->resident)
        d->resident = src->resident;
    if (src->sms > d->sms)
        d->sms = src->sms;
    if (src->stragglers > d->stragglers || d->folds == src->folds) {
        d->stragglers = src->stragglers;
        d->straggler_sm = src->straggler_sm;
    }
    return pt__shape_slowest(d, src->slowest_ns, src->slowest_block, src->slowest_sm, src->nslow,
                             (const char *const *)src->slow_names, src->slow_ns);
}

void pt__shape_stats(const pt__shape *sh, pt_section_stats *o)
{
    double n;

    if (sh && sh->sample_every > 1) {
        o->sample_every = sh->sample_every;
        o->sample_slots = sh->sample_slots;
    }
    if (sh && sh->ovl_folds > 0) {
        n = (double)sh->ovl_folds;
        o->overlap_folds = sh->ovl_folds;
        o->busy_ms = sh->busy_ns / n / 1e6;
        o->overlap_pct = sh->busy_ns > 0 ? 100.0 * sh->overlap_ns / sh->busy_ns : 0;
        o->wait_ms = sh->wait_ns / n / 1e6;
        o->bubble_ms = sh->bubble_ns / n / 1e6;
    }
    if (!sh || sh->folds == 0)
        return;
    n = (double)sh->folds;
    o->shape_folds = sh->folds;
    o->waves = sh->waves_sum / n;
    o->sm_resident = sh->resident;
    o->device_sms = sh->sms;
    o->span_ms = sh->span_ns_sum / n / 1e6;
    o->tail_ms = sh->tail_ns_sum / n / 1e6;
    o->tail_pct = sh->span_ns_sum > 0 ? 100.0 * sh->tail_ns_sum / sh->span_ns_sum : 0;
    o->sm_idle_pct = 100.0 * sh->idle_sum / n;
    o->slowest_block = sh->slowest_block > 0 ? (uint64_t)sh->slowest_block : 0;
    o->slowest_block_ms = sh->slowest_ns / 1e6;
    o->slowest_block_sm = sh->slowest_sm > 0 ? (uint64_t)sh->slowest_sm : 0;
    o->stragglers = sh->stragglers;
    o->straggler_sm = sh->straggler_sm > 0 ? (uint64_t)sh->straggler_sm : 0;
}
