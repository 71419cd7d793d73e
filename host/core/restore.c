/* A timing rebuilt from a saved run, for the reports.
 *
 * A saved run holds the figures the reports print, not the occurrences
 * behind them, so a node's aggregates are set from those figures the way
 * pt__record() and the fold would have left them: the rest's spread comes
 * back as Welford's sum of squared deviations, a phase's block mean as the
 * sum of its blocks. An open section gets a frame on the stack, which is
 * how the reports (and pt_run_get()) learn that it is open. */
#include "core/restore.h"

#include "core/cost.h"
#include "core/shape.h"
#include "core/spans.h"
#include "pt_hist.h"
#include "core/threads.h"
#include "core/timing.h"
#include "core/tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A figure the file left out (NaN) reads as 0, as it does in the file's
 * own readers. */
static double fig(double v)
{
    return isfinite(v) ? v : 0;
}

static void quiet(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

pt_timing *pt__restore_create(const char *name)
{
    pt_timing *t = pt__create_internal(name, PT_CPU);

    if (!t)
        return NULL;
    /* Reporting open sections counts an error; the saved run's own
     * errors are what the report shows, and nothing is said on stderr. */
    t->error_fn = quiet;
    /* No device is asked for peaks the file does not hold. */
    t->peak_src = PT__PEAKS_TRIED;
    return t;
}

int pt__restore_open(pt_timing *t, pt_section *s)
{
    pt__thr *r = &t->main;

    if (s->open)
        return 0;
    if (pt__thr_push(r, s) < 0)
        return PT_ENOMEM;
    r->stack[r->depth - 1].t0 = 0;
    r->stack[r->depth - 1].gpu = s->kind == PT__K_GPU;
    return 0;
}

/* A launch's shape from its figures: the sums that give back its means. */
static int restore_shape(pt_section *s, const pt__restored *f)
{
    const pt_section_stats *g = f->shape;
    pt__shape *sh = pt__shape_of(s);
    double n = (double)g->shape_folds, *ns;
    int rc;

    if (!sh)
        return PT_ENOMEM;
    sh->folds = g->shape_folds;
    sh->on_host = f->ran_here;
    sh->waves_sum = fig(g->waves) * n;
    sh->span_ns_sum = fig(g->span_ms) * 1e6 * n;
    sh->tail_ns_sum = fig(g->tail_ms) * 1e6 * n;
    sh->idle_sum = fig(g->sm_idle_pct) / 100 * n;
    sh->resident = g->sm_resident;
    sh->sms = g->device_sms;
    sh->stragglers = g->stragglers;
    sh->straggler_sm = (long long)g->straggler_sm;
    sh->sample_every = g->sample_every;
    sh->sample_slots = g->sample_slots;
    /* The overlap's means back to sums; a share of the work back to ns. */
    n = (double)g->overlap_folds;
    sh->ovl_folds = g->overlap_folds;
    sh->busy_ns = fig(g->busy_ms) * 1e6 * n;
    sh->overlap_ns = sh->busy_ns * fmin(fig(g->overlap_pct), 100) / 100;
    sh->wait_ns = fig(g->wait_ms) * 1e6 * n;
    sh->bubble_ns = fmin(fig(g->bubble_ms) * 1e6 * n, sh->wait_ns);
    ns = malloc((f->nslow > 0 ? (size_t)f->nslow : 1) * sizeof *ns);
    if (!ns)
        return PT_ENOMEM;
    for (int i = 0; i < f->nslow; i++)
        ns[i] = fig(f->slow_ms[i]) * 1e6;
    rc = pt__shape_slowest(sh, fig(g->slowest_block_ms) * 1e6, (long long)g->slowest_block,
                           (long long)g->slowest_block_sm, f->nslow, f->slow_names, ns);
    free(ns);
    for (int i = 0; rc == 0 && i < f->nspans; i++) {
        const pt__restored_span *r = &f->spans[i];
        pt__span *sp = pt__span_of(sh, r->name);
        if (!sp || (r->nhist > 0 && !sp->hist &&
                    !(sp->hist = calloc(PT__HIST_BINS, sizeof *sp->hist))))
            return PT_ENOMEM;
        sp->count += r->count;
        sp->unmatched += r->unmatched;
        sp->total_ns += fig(r->total_ns);
        if (fig(r->max_ns) > sp->max_ns)
            sp->max_ns = fig(r->max_ns);
        /* A bin's lower edge is its first time: it falls in the bin. */
        for (int k = 0; k < r->nhist; k++)
            sp->hist[pt__hist_bin(fig(r->hist[2 * k]))] += (uint64_t)fig(r->hist[2 * k + 1]);
    }
    return rc;
}

pt_section *pt__restore_section(pt_timing *t, pt_section *parent, const char *name,
                                const pt__restored *f)
{
    pt_section *s;
    uint64_t rest;

    if (!t || !name || !f)
        return NULL;
    s = pt__child(t, parent ? parent : &t->root, name);
    if (!s)
        return NULL;
    s->kind = f->kind;
    s->count = f->count;
    s->total_ns = fig(f->total_ns);
    s->first_ns = s->last_ns = fig(f->first_ns);
    rest = f->count > 1 ? f->count - 1 : 0;
    if (rest > 0) {
        s->mean_ns = fig(f->mean_ns);
        s->min_ns = fig(f->min_ns);
        s->max_ns = fig(f->max_ns);
    }
    if (rest > 1)
        s->m2_ns = fig(f->sd_ns) * fig(f->sd_ns) * (double)(rest - 1);
    s->read = fig(f->read);
    s->written = fig(f->written);
    s->flops = fig(f->flops);
    for (int i = 0; i < 3; i++)
        s->xfer[i] = fig(f->xfer[i]);
    s->mem_hwm = fig(f->mem_hwm);
    s->cpu_timed = f->cpu_timed;
    s->ran_here = f->ran_here;
    s->ovh_ns = fig(f->ovh_ns);
    if (f->ranks > 0) {
        if (!s->ranks)
            s->ranks = calloc(1, sizeof *s->ranks);
        if (!s->ranks)
            return NULL;
        s->ranks->n = f->ranks;
        s->ranks->min_ns = fig(f->rank_min_ns);
        s->ranks->max_ns = fig(f->rank_max_ns);
        s->ranks->sum_ns = fig(f->rank_mean_ns) * (double)f->ranks;
        s->ranks->slowest = f->rank_slowest;
    }
    if (f->kind == PT__K_PHASE || f->kind == PT__K_UNATTR) {
        if (!s->phase)
            s->phase = calloc(1, sizeof *s->phase);
        if (!s->phase)
            return NULL;
        s->phase->blocks = f->blocks;
        s->phase->hits = fig(f->hits);
        s->phase->block_sum_ns = fig(f->block_mean_ns) * (double)f->blocks;
        s->phase->block_min_ns = fig(f->block_min_ns);
        s->phase->block_max_ns = fig(f->block_max_ns);
        if (f->kind == PT__K_PHASE && f->sm_ms && f->nsm > 0) {
            double *v = realloc(s->phase->sm_ns, (size_t)f->nsm * sizeof *v);
            if (!v)
                return NULL;
            for (int i = 0; i < f->nsm; i++)
                v[i] = fig(f->sm_ms[i]) * 1e6;
            s->phase->sm_ns = v;
            s->phase->nsm = f->nsm;
        }
        if (f->kind == PT__K_PHASE && f->hist && f->nhist > 0) {
            uint64_t *h = s->phase->hist ? s->phase->hist
                                         : calloc(PT__HIST_BINS, sizeof *h);
            if (!h)
                return NULL;
            s->phase->hist = h;
            /* A bin's lower edge is its first time: it falls in the bin. */
            for (int i = 0; i < f->nhist; i++)
                h[pt__hist_bin(fig(f->hist[2 * i]))] += (uint64_t)fig(f->hist[2 * i + 1]);
        }
    }
    if (f->shape && (f->shape->shape_folds > 0 || f->shape->sample_every > 1 || f->nspans > 0 ||
                     f->shape->overlap_folds > 0) &&
        restore_shape(s, f) < 0)
        return NULL;
    if (f->open && pt__restore_open(t, s) < 0)
        return NULL;
    return s;
}

int pt__restore_run(pt_timing *t, const pt__restored_run *r)
{
    int kind;

    if (!t || !r || !r->clock)
        return PT_EINVAL;
    if (strcmp(r->clock, "tsc") == 0)
        kind = PT__CLOCK_TSC;
    else if (strcmp(r->clock, "user") == 0)
        kind = PT__CLOCK_USER;
    else if (strcmp(r->clock, "clock_gettime") == 0)
        kind = PT__CLOCK_MONO;
    else
        return PT_EINVAL;
    if (kind == PT__CLOCK_TSC && !(r->clock_ghz > 0))
        return PT_EINVAL;
    t->clock_kind = kind;
    t->ns_per_tick = kind == PT__CLOCK_TSC ? 1.0 / r->clock_ghz : 1;
    t->main.nsections = r->section_count;
    t->errors = r->errors;
    if (r->errors_of)
        memcpy(t->errors_of, r->errors_of, sizeof t->errors_of);
    snprintf(t->last_error, sizeof t->last_error, "%s", r->last_error ? r->last_error : "");
    if (r->gpu_timing)
        t->flags |= PT_GPU_EVENTS;
    /* Why, as the run said it. */
    t->gpu_fallback = r->gpu_fallback ? PT__FB_DEVICE : 0;
    snprintf(t->fallback_why, sizeof t->fallback_why, "%s",
             r->gpu_fallback_why ? r->gpu_fallback_why : "");
    t->notes = r->notes;
    snprintf(t->last_note, sizeof t->last_note, "%s", r->last_note ? r->last_note : "");
    pt__cost_set(t, r->pair_ns, r->pair_inside_ns);
    t->ranks = r->ranks > 0 ? r->ranks : 0;
    t->ranks_empty = r->ranks_empty > 0 ? r->ranks_empty : 0;
    t->dropped = r->dropped;
    if (r->dev_clock)
        t->dev_clock = *r->dev_clock;
    /* Peaks are both finite and positive, as pt_peaks_set() takes them;
     * a saved run's that are not (a hand-edited 0) are no peaks. */
    if ((r->peak_src == PT__PEAKS_USER || r->peak_src == PT__PEAKS_DEVICE) &&
        isfinite(r->peak_bw) && r->peak_bw > 0 && isfinite(r->peak_flops) && r->peak_flops > 0) {
        t->peak_src = r->peak_src;
        t->peak_bw = r->peak_bw;
        t->peak_flops = r->peak_flops;
    }
    return 0;
}
