/* PT_TRACE's log: what the Chrome trace (report/export_trace.c) draws.
 *
 * A section aggregates its occurrences; a timeline needs each of them.
 * With PT_TRACE a stop appends (node, t0, t1), 24 bytes, to its thread's
 * log (pt__tlog_add, inline: a store, no lock, no shared line), which
 * grows by chunks that are never copied or moved, bounded by the trace
 * capacity: past it, occurrences are counted
 * as dropped, never stored, so memory stays bounded however long the run.
 * The reports gather the threads' logs into one list (pt__trace_gather),
 * which the capacity bounds too. Without the flag nothing here runs: the
 * hot path tests t->hooks once.
 *
 * Resolved CUDA-event launches, counter samples and a bounded sample of
 * folded block records are kept beside it. Times stay in ticks of t's
 * clock (host events) or become microseconds from the run's origin
 * (launches, whose time comes from the GPU), the origin being the clock's
 * value at pt_create() or at the latest pt_clock_set() (clock.c). */
#include "core/trace.h"

#include "core/errors.h"
#include "core/strv.h"
#include "core/threads.h"
#include "core/tlog.h"

#include "pt_fold_math.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pt__trace_init(pt_timing *t)
{
    t->trace = calloc(1, sizeof *t->trace);
    if (!t->trace)
        return PT_ENOMEM;
    t->trace->cap = PT__TRACE_DEFAULT_CAP;
    t->hooks |= PT__HOOK_TRACE;
    return 0;
}

static void folds_free(pt__trace *tr)
{
    for (int i = 0; i < tr->nfolds; i++) {
        pt__tfold *f = &tr->folds[i];
        for (int p = 0; p < f->nphases; p++)
            free(f->names[p]);
        free(f->names);
        pt__strv_free(f->span_names, f->nspan_names);
        free(f->wait);
        free(f->recs);
    }
    tr->nfolds = 0;
    tr->fold_words = 0;
}

/* Every thread's recorder, the creating thread's first. */
#define EACH_THREAD(t, r) \
    for (pt__thr *r = &(t)->main; r; r = r == &(t)->main ? (t)->threads : r->next)

void pt__trace_clear(pt_timing *t)
{
    pt__trace *tr = t->trace;
    if (!tr)
        return;
    pthread_mutex_lock(&t->lock);
    EACH_THREAD(t, r)
        pt__tlog_rewind(&r->tlog);
    pthread_mutex_unlock(&t->lock);
    folds_free(tr);
    tr->nhost = tr->ngpu = tr->ncounter = 0;
    tr->dropped_host = tr->dropped_gpu = tr->dropped_counter = 0;
    tr->full = 0;
    tr->launches_cut = tr->blocks_cut = 0;
    tr->launch_node = NULL;
}

void pt__trace_free(pt_timing *t)
{
    pt__trace *tr = t->trace;
    if (!tr)
        return;
    folds_free(tr);
    free(tr->host);
    free(tr->gpu);
    free(tr->counter);
    free(tr);
    t->trace = NULL;
    t->hooks &= ~(unsigned)PT__HOOK_TRACE;
}

int pt_trace_capacity_set(pt_timing *t, size_t n)
{
    if (!t)
        return 0;
    if (n == 0)
        return pt__fail(t, PT_EINVAL, "pt_trace_capacity_set: 0 events");
    if (!t->trace)
        return pt__fail(t, PT_ESTATE, "pt_trace_capacity_set: the timing was created without PT_TRACE");
    t->trace->cap = n;
    return 0;
}

/* Room for one more element of an array that grows by doubling up to
 * cap elements; NULL (and one more dropped) when full or out of memory. */
static void *room(void **arr, size_t *n, size_t *alloc, size_t size, size_t cap, uint64_t *dropped)
{
    if (*n >= cap) {
        (*dropped)++;
        return NULL;
    }
    if (*n == *alloc) {
        size_t a = *alloc ? *alloc * 2 : 1024;
        if (a > cap)
            a = cap;
        void *p = realloc(*arr, a * size);
        if (!p) {
            (*dropped)++;
            return NULL;
        }
        *arr = p;
        *alloc = a;
    }
    return (char *)*arr + (*n)++ * size;
}

/* A full log is a fault like a full device buffer: counted and said
 * once (PT_EFULL), the events it then drops counted in the report. */
static void full(pt_timing *t, const char *what)
{
    pt__trace *tr = t->trace;

    /* Threads' logs fill on their own threads: said once by whichever first. */
    if (atomic_exchange(&tr->full, 1))
        return;
    pt__fail(t, PT_EFULL, "PT_TRACE: the log is full (%zu %s events, pt_trace_capacity_set()); "
             "later ones are counted as dropped, not kept", tr->cap, what);
}

double pt__trace_us(const pt_timing *t, int64_t tick)
{
    /* The difference wraps rather than overflows at any two values. */
    return (double)(int64_t)((uint64_t)tick - (uint64_t)t->origin) * t->ns_per_tick / 1e3;
}

int pt__tlog_grow(pt_timing *t, pt__thr *r)
{
    pt__tlog *l = &r->tlog;
    size_t cap = t->trace ? t->trace->cap : 0;
    int rc = pt__tlog_next(l, cap);

    if (rc == 0 && !l->dropped++ && cap)
        full(t, "host");
    else if (rc < 0)
        l->dropped++;
    return rc > 0;
}

void pt__trace_gather(pt_timing *t)
{
    pt__trace *tr = t ? t->trace : NULL;
    int filled;

    if (!tr)
        return;
    pthread_mutex_lock(&t->lock);
    EACH_THREAD(t, r) {
        pt__tlog *l = &r->tlog;
        if (l->cur)
            l->cur->n = l->n;
        for (pt__tchunk *c = l->cur ? l->first : NULL; c; c = c == l->cur ? NULL : c->next)
            for (size_t i = 0; i < c->n; i++) {
                const pt__tevent *s = &c->ev[i];
                pt__thost *e = room((void **)&tr->host, &tr->nhost, &tr->host_alloc, sizeof *e,
                                    tr->cap, &tr->dropped_host);
                if (e)
                    *e = (pt__thost){ s->node, s->t0, s->t1, r->index + 1, (int)r->tid };
            }
        tr->dropped_host += l->dropped;
        pt__tlog_rewind(l);
    }
    filled = tr->nhost >= tr->cap && tr->dropped_host > 0;
    pthread_mutex_unlock(&t->lock);
    /* The threads' logs together passed the capacity (each said its own
     * when it filled); outside t->lock, since an error callback may time. */
    if (filled)
        full(t, "host");
}

void pt__trace_host(pt_timing *t, const pt_section *node, int64_t t0, int64_t t1, int gpu)
{
    pt__trace *tr = t->trace;

    pt__tlog_add(t, &t->main, node, t0, t1);
    /* Until its events resolve, a launch starts where the host says (and
     * stays there when it is timed by the CPU clock). */
    if (gpu) {
        tr->launch_node = node;
        tr->launch_us = pt__trace_us(t, t0);
    }
}

void pt__trace_gpu(pt_timing *t, const pt_section *node, pt_stream stream, int64_t ref_tick,
                   double from_ref_ns, double dur_ns)
{
    pt__trace *tr = t->trace;
    pt__tgpu *e;

    if (!tr)
        return;
    tr->launch_node = node;
    tr->launch_us = pt__trace_us(t, ref_tick) + from_ref_ns / 1e3;
    e = room((void **)&tr->gpu, &tr->ngpu, &tr->gpu_alloc, sizeof *e, tr->cap, &tr->dropped_gpu);
    if (!e && tr->ngpu >= tr->cap)
        full(t, "GPU");
    if (!e)
        return;
    e->node = node;
    e->stream = stream;
    e->ts_us = tr->launch_us;
    e->dur_us = dur_ns / 1e3;
}

void pt__trace_launch_host(pt_timing *t, const pt_section *node, int64_t t0)
{
    pt__trace *tr = t ? t->trace : NULL;

    if (!tr)
        return;
    tr->launch_node = node;
    tr->launch_us = pt__trace_us(t, t0);
}

void pt__trace_counter(pt_timing *t, const char *name, int64_t ts_tick, double value)
{
    pt__trace *tr;
    pt__tcounter *e;

    if (!t || !(tr = t->trace) || !name)
        return;
    e = room((void **)&tr->counter, &tr->ncounter, &tr->counter_alloc, sizeof *e, tr->cap,
             &tr->dropped_counter);
    if (!e && tr->ncounter >= tr->cap)
        full(t, "counter");
    if (!e)
        return;
    snprintf(e->name, sizeof e->name, "%s", name);
    e->tick = ts_tick;
    e->value = value;
}

/* Where the launch being folded started on the host timeline: its GPU
 * start when its events placed it, else the host's view of its latest
 * occurrence (a CPU-timed launch, host mode), else the origin. */
static double launch_start(const pt_timing *t, const pt_section *node)
{
    const pt__trace *tr = t->trace;
    const pt__tlog *l = &t->main.tlog;
    size_t n = l->n, stop = n > 65536 ? n - 65536 : 0;

    if (tr->launch_node == node)
        return tr->launch_us;
    /* Launches are the creating thread's: its log, then what was gathered. */
    while (n-- > stop)
        if (l->ev[n].node == node)
            return pt__trace_us(t, l->ev[n].t0);
    n = tr->nhost;
    stop = n > 65536 ? n - 65536 : 0;
    while (n-- > stop)
        if (tr->host[n].node == node)
            return pt__trace_us(t, tr->host[n].t0);
    return 0;
}

int pt__trace_origin(const pt__trace *tr, int i, long long *gt)
{
    const pt__tfold *f = &tr->folds[i];

    if (!f->began)
        return 0;
    *gt = f->gt_first;
    for (int k = 0; k < tr->nfolds; k++)
        if (tr->folds[k].began && tr->folds[k].gt_first < *gt && tr->folds[k].launch == f->launch &&
            tr->folds[k].occurrence == f->occurrence)
            *gt = tr->folds[k].gt_first;
    return 1;
}

void pt__trace_fold(pt_timing *t, const pt__fold_shape *b, const pt_section *node,
                    const pt_section *launch, const long long *d, double tick_ns,
                    double ns_per_cycle)
{
    pt__trace *tr = t->trace;
    pt__tfold *f;
    long long sw;
    int keep;

    if (!tr)
        return;
    sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap);
    keep = b->nslots < PT__TRACE_FOLD_BLOCKS ? b->nslots : PT__TRACE_FOLD_BLOCKS;
    if (tr->nfolds == PT__TRACE_FOLD_LAUNCHES || tr->fold_words + keep * sw > PT__TRACE_FOLD_WORDS) {
        tr->launches_cut++;
        tr->blocks_cut += (uint64_t)b->nslots;
        return;
    }
    f = &tr->folds[tr->nfolds];
    memset(f, 0, sizeof *f);
    f->recs = malloc((size_t)(keep * sw) * sizeof *f->recs);
    f->names = calloc((size_t)b->nphases + 1, sizeof *f->names);
    if (!f->recs || !f->names) {
        free(f->recs);
        free(f->names);
        tr->launches_cut++;
        tr->blocks_cut += (uint64_t)b->nslots;
        return;
    }
    for (int p = 0; p < b->nphases; p++) {
        const char *n = b->names && b->names[p] ? b->names[p] : "phase";
        f->names[p] = malloc(strlen(n) + 1);
        if (f->names[p])
            strcpy(f->names[p], n);
        f->nphases = p + 1;
    }
    /* The span kinds' names: without memory, a kind is "span K". */
    if ((f->span_names = pt__strv_dup((const char *const *)b->span_names, b->nspan_names)))
        f->nspan_names = b->nspan_names;
    /* The waits: without memory, none, and no bubbles drawn. */
    if (b->wait && (f->wait = malloc((size_t)b->nphases)))
        memcpy(f->wait, b->wait, (size_t)b->nphases);
    f->overlap = b->overlap && (f->wait || !b->wait);
    memcpy(f->recs, d + PT_DEV_HDR, (size_t)(keep * sw) * sizeof *f->recs);
    f->node = node;
    f->nphases = b->nphases;
    f->trace_cap = b->trace_cap;
    f->nslots = b->nslots;
    f->kept = keep;
    f->tick_ns = tick_ns;
    f->ns_per_cycle = ns_per_cycle;
    f->launch_us = launch_start(t, launch);
    f->launch = launch;
    f->occurrence = launch->count;
    for (int s = 0; s < keep; s++) {
        const long long *rec = f->recs + s * sw;
        if (pt__slot_ok(rec, f->nphases, f->trace_cap, pt__count_limit(f->nslots)) > 0 &&
            (!f->began || rec[PT_DEV_S_GT0] < f->gt_first)) {
            f->gt_first = rec[PT_DEV_S_GT0];
            f->began = 1;
        }
    }
    f->host = b->host;
    tr->blocks_cut += (uint64_t)(b->nslots - keep);
    tr->fold_words += keep * sw;
    tr->nfolds++;
}

uint64_t pt__trace_dropped(const pt_timing *t)
{
    const pt__trace *tr = t ? t->trace : NULL;
    return tr ? tr->dropped_host + tr->dropped_gpu + tr->dropped_counter : 0;
}

/* The previous name, kept for one release (pt.h). */
int pt_set_trace_capacity(pt_timing *t, size_t n)
{
    return pt_trace_capacity_set(t, n);
}
