/* The queue of pending GPU work, resolved lazily and in order.
 *
 * pt_stop_gpu() queues the occurrence's event pair with its section
 * (events.c); nothing waits for the GPU there (unless PT_SYNC). The queue
 * is resolved oldest first, so a section's occurrences reach its
 * statistics in the order they happened and "first" stays the first
 * launch: when a report, an export, pt_run_get(), pt_section_get() or
 * pt_sync() needs figures, when more than PT__PENDING_MAX pairs wait (the
 * oldest half is resolved, which bounds the events alive), and, without
 * waiting, whatever has already completed when pt_dev_fold() is called.
 * A fold waits in the queue behind its launch and is resolved with it.
 * While the queue holds anything, even a CPU-timed occurrence waits its
 * turn in it, so the order of occurrences is kept whatever clock timed
 * them. */
#include "gpu/queue.h"

#include "core/errors.h"
#include "core/trace.h"
#include "gpu/event_pool.h"

#include <stdlib.h>
#include <string.h>

/* ---- pairs ------------------------------------------------------- */

int pt__pair_new(pt__gpu *g)
{
    int i;
    if (g->free_head < 0) {
        size_t n = g->npairs ? g->npairs * 2 : 64;
        pt__pair *p = realloc(g->pairs, n * sizeof *p);
        if (!p)
            return -1;
        g->pairs = p;
        /* New slots go on the free list lowest first. */
        for (size_t k = n; k-- > g->npairs;) {
            p[k].next_free = g->free_head;
            g->free_head = (int)k;
        }
        g->npairs = n;
    }
    i = g->free_head;
    g->free_head = g->pairs[i].next_free;
    memset(&g->pairs[i], 0, sizeof g->pairs[i]);
    g->pairs[i].next_free = -2;
    return i;
}

void pt__pair_free(pt__gpu *g, int i)
{
    pt__pair *p = &g->pairs[i];
    pt__event_put(g, p->e0);
    pt__event_put(g, p->e1);
    p->e0 = p->e1 = NULL;
    p->next_free = g->free_head;
    g->free_head = i;
}

static void drop_waiters(pt__pair *p)
{
    pt__waiter *w = p->waiters;
    while (w) {
        pt__waiter *n = w->next;
        w->ops->drop(w);
        w = n;
    }
    p->waiters = p->waiters_tail = NULL;
}

static void add_waiter(pt__pair *p, pt__waiter *w)
{
    w->next = NULL;
    if (p->waiters_tail)
        p->waiters_tail->next = w;
    else
        p->waiters = w;
    p->waiters_tail = w;
}

/* ---- the ring ---------------------------------------------------- */

int pt__queue_push(pt__gpu *g, int i)
{
    if (g->qlen == g->qcap) {
        size_t cap = g->qcap ? g->qcap * 2 : 256;
        int *q = malloc(cap * sizeof *q);
        if (!q)
            return PT_ENOMEM;
        for (size_t k = 0; k < g->qlen; k++)
            q[k] = g->queue[(g->qhead + k) % g->qcap];
        free(g->queue);
        g->queue = q;
        g->qcap = cap;
        g->qhead = 0;
    }
    g->queue[(g->qhead + g->qlen) % g->qcap] = i;
    g->qlen++;
    return 0;
}

static int queue_at(const pt__gpu *g, size_t k)
{
    return g->queue[(g->qhead + k) % g->qcap];
}

/* ---- occurrences timed by their kernels --------------------------- */

/* The queue position, from k on, of the first occurrence on stream s with
 * an end event: recorded after every occurrence queued before it on s, it
 * completes after them (a stream runs in order). -1 when there is none.
 * O(queue). */
static long closer_at(const pt__gpu *g, size_t k, pt_stream s)
{
    for (; k < g->qlen; k++) {
        const pt__pair *q = &g->pairs[queue_at(g, k)];
        if (q->e1 && !q->known && q->stream == s)
            return (long)k;
    }
    return -1;
}

/* The occurrences on s queued at positions 0..last have completed. */
static void mark_ended(pt__gpu *g, long last, pt_stream s)
{
    for (long k = 0; k <= last && (size_t)k < g->qlen; k++) {
        pt__pair *q = &g->pairs[queue_at(g, (size_t)k)];
        if (q->stream == s)
            q->ended = 1;
    }
}

/* Whether span pair p (at the queue's head) has completed, asked without
 * waiting: 1 when it has (or a query failed, which its resolution meets
 * again and says), 0 when not yet or when nothing recorded after it says. */
static int span_query(pt__gpu *g, pt__pair *p)
{
    long k = p->e1 ? 0 : closer_at(g, 0, p->stream);
    pt__pair *q = p->e1 ? p : k >= 0 ? &g->pairs[queue_at(g, (size_t)k)] : NULL;
    pt__cuerr e;

    if (!q)
        return 0;
    if (!q->ended) {
        if ((e = g->cu->EventQuery(q->e1)) == PT__CU_NOT_READY)
            return 0;
        if (e)
            return 1;
    }
    p->ended = 1;
    mark_ended(g, k, p->stream);
    return 1;
}

/* Waits until span pair p, just taken off the queue's head, has
 * completed: for the first end event after it on its stream, or one
 * recorded now when there is none yet, kept by the newest occurrence on
 * that stream (p itself when it is the last), and the stream's own
 * synchronization when even that is refused. Returns 0, the CUDA error,
 * or SPAN_CAPTURED: the stream is being captured now, where a record or
 * a wait would break the user's capture. */
enum { SPAN_CAPTURED = -1 };
static pt__cuerr span_wait(pt_timing *t, pt__gpu *g, pt__pair *p)
{
    long k = p->e1 ? -1 : closer_at(g, 0, p->stream), last = k;
    pt__cuevent e1 = p->e1;
    pt__cuerr e;
    int status = 0;

    if (p->ended)
        return 0;
    if (!e1 && k >= 0)
        e1 = g->pairs[queue_at(g, (size_t)k)].e1;
    if (!e1 && g->cu->StreamIsCapturing && g->cu->StreamIsCapturing(p->stream, &status) == 0 &&
        status != 0)
        return SPAN_CAPTURED;
    if (!e1 && (e1 = pt__event_get(t, p->node ? p->node->name : "(fold)")) != NULL) {
        pt__pair *owner = p;
        for (size_t j = 0; j < g->qlen; j++) {
            pt__pair *q = &g->pairs[queue_at(g, j)];
            if (q->stream == p->stream && !q->known) {
                owner = q;
                last = (long)j;
            }
        }
        if (g->cu->EventRecord(e1, p->stream) == 0) {
            owner->e1 = e1;
        } else {
            pt__event_put(g, e1);
            e1 = NULL;
        }
    }
    e = e1 ? g->cu->EventSynchronize(e1) : g->cu->StreamSynchronize(p->stream);
    if (!e) {
        p->ended = 1;
        mark_ended(g, e1 ? last : (long)g->qlen - 1, p->stream);
    }
    return e;
}

/* The time of span pair p, from the first BEGIN to the last END of the
 * blocks its waiters saw end, on %globaltimer; 0, and *any 0, when none
 * says. */
static double span_ns(const pt__pair *p, int *any)
{
    long long a = 0, b = 0, x, y;

    *any = 0;
    for (const pt__waiter *w = p->waiters; w; w = w->next) {
        if (!w->ops->span || !w->ops->span(w, &x, &y))
            continue;
        if (!*any || x < a)
            a = x;
        if (!*any || y > b)
            b = y;
        *any = 1;
    }
    return *any && b > a ? (double)(b - a) : 0;
}

/* Resolves span pair p, taken off the queue: its time, once it completed.
 * Where that cannot be known, its time is the CPU clock's and its folds
 * are dropped, as their copies may not have landed. */
static int span_resolve(pt_timing *t, pt__gpu *g, pt__pair *p)
{
    const char *name = p->node ? p->node->name : "(fold)";
    pt__cuerr e = span_wait(t, g, p);
    int any, rc = 0;

    if (e) {
        rc = pt__fail(t, PT_ECUDA, "\"%s\": waiting for it to complete: %s; this occurrence "
                      "is timed by the CPU clock and its kernels are not folded", name,
                      e == SPAN_CAPTURED ? "its stream is being captured into a CUDA graph, "
                                           "where nothing of ptkit's may wait"
                                         : pt__cuda_errstr(g->cu, e));
        drop_waiters(p);
        t->gpu_fallback |= PT__FB_CUDA;
        if (p->node)
            p->node->cpu_timed++;
        p->ns = p->cpu_ns;
    } else {
        p->ns = span_ns(p, &any);
        if (!any)
            rc = pt__fail(t, PT_ESTATE, "\"%s\": timed by its kernels' clocks, but no block "
                          "of them ended: it is recorded as lasting 0", name);
    }
    p->known = 1;
    return rc;
}

/* ---- resolving --------------------------------------------------- */

/* Starts what the waiters of the oldest queued items can do before they
 * run (their folds' figures, on the fold's thread), oldest first, up to
 * the first that cannot yet (one query of a copy's event) or
 * PREPARE_AHEAD items. O(PREPARE_AHEAD + their waiters). */
#define PREPARE_AHEAD 256
static void prepare(pt_timing *t, pt__gpu *g)
{
    if (!g)
        return;
    for (size_t k = 0; k < g->qlen && k < PREPARE_AHEAD; k++)
        for (pt__waiter *w = g->pairs[queue_at(g, k)].waiters; w; w = w->next)
            if (w->ops->prepare && !w->ops->prepare(t, w))
                return;
}

/* Before the oldest is resolved by a wait: its waiters' copies waited
 * for, and what has landed started (prepare), so that the fold's thread
 * finds the figures of the folds queued after it while this thread
 * resolves it (or helps: fold_worker.c). */
static void land_head(pt_timing *t, pt__gpu *g)
{
    for (pt__waiter *w = g->pairs[queue_at(g, 0)].waiters; w; w = w->next)
        if (w->ops->land)
            w->ops->land(t, w);
    prepare(t, g);
}

/* Whether the oldest queued item can be resolved without waiting. */
static int head_ready(pt__gpu *g)
{
    pt__pair *p = &g->pairs[queue_at(g, 0)];
    if (p->filling)
        return 0;
    if (!p->known && !p->ended && p->span) {
        if (!span_query(g, p))
            return 0;
    } else if (!p->known && !p->ended) {
        pt__cuerr e = g->cu->EventQuery(p->e1);
        if (e == PT__CU_NOT_READY)
            return 0;
        p->ended = e == 0;
    }
    for (const pt__waiter *w = p->waiters; w; w = w->next)
        if (w->ops->ready && !w->ops->ready(w))
            return 0;
    return 1;
}

/* Resolves the oldest queued item: waits for its events, records the
 * occurrence, runs the waiters. Returns 0 or the error met. */
static int resolve_head(pt_timing *t)
{
    pt__gpu *g = pt__gpu_of(t);
    int i = queue_at(g, 0), rc = 0;
    pt__pair *p = &g->pairs[i];
    pt_section *node = p->node;
    pt__waiter *w;
    double ns;

    g->qhead = (g->qhead + 1) % g->qcap;
    g->qlen--;
    if (!p->known && p->span)
        rc = span_resolve(t, g, p);
    if (!p->known) {
        float ms = 0;
        /* Each call into the runtime costs the host a microsecond or more,
         * as much as a short kernel: none for an event seen complete. */
        pt__cuerr e = p->ended ? 0 : g->cu->EventSynchronize(p->e1);
        const char *what = "cudaEventSynchronize";
        if (!e) {
            e = g->cu->EventElapsedTime(&ms, p->e0, p->e1);
            what = "cudaEventElapsedTime";
        }
        if (e) {
            rc = pt__fail(t, PT_ECUDA, "\"%s\": %s: %s; this occurrence is timed by the CPU clock",
                          node ? node->name : "(fold)", what, pt__cuda_errstr(g->cu, e));
            t->gpu_fallback |= PT__FB_CUDA;
            if (node)
                node->cpu_timed++;
            p->ns = p->cpu_ns;
        } else {
            p->ns = (double)ms * 1e6;
            if (t->trace && g->ref && node && !g->cu->EventElapsedTime(&ms, g->ref, p->e0))
                pt__trace_gpu(t, node, p->stream, g->ref_tick, (double)ms * 1e6, p->ns);
        }
        p->known = 1;
    }
    /* PT_TRACE: a replay no event placed is drawn where the host
     * launched it. */
    if (t->trace && node && p->span)
        pt__trace_launch_host(t, node, p->t0);
    ns = p->ns;
    w = p->waiters;
    p->waiters = p->waiters_tail = NULL;
    pt__pair_free(g, i);
    if (node)
        pt__record(node, ns);
    while (w) {
        pt__waiter *n = w->next;
        int r = w->ops->run(t, w, ns);
        if (r && !rc)
            rc = r;
        w = n;
    }
    return rc;
}

/* Before resolving the n oldest: where the end events still to wait for
 * were all recorded on one stream, one wait for the newest of them, which
 * a stream completes after the older ones, stands for all of them, each
 * then resolved as seen complete (resolve_head). A wait a pair cost the
 * host a runtime call each, as much as the launch it timed. The run stops
 * before the first pair with a fold that waits for its copy: that one is
 * resolved alone, so that it folds while the GPU runs what comes after
 * it (a wait for the newest first left every fold of a pt_sync until the
 * GPU was done). Returns how many of the oldest need no settling again:
 * the run settled, 0 where the oldest is such a fold, n where the events
 * are on two streams (each pair waits for itself). O(the run). */
static size_t settle(pt__gpu *g, size_t n)
{
    size_t last = 0, k;
    int any = 0, have = 0;
    pt_stream s = NULL;

    if (n > g->qlen)
        n = g->qlen;
    for (k = 0; k < n; k++) {
        const pt__pair *p = &g->pairs[queue_at(g, k)];
        if (p->waiters && p->waiters->ops->land)
            break;
        if (p->known || p->ended)
            continue;
        if (any && p->stream != s)
            return n;
        s = p->stream;
        any = 1;
        if (p->e1) { /* a span pair without one waits behind the next that has one */
            last = k;
            have = 1;
        }
    }
    if (!have || g->cu->EventSynchronize(g->pairs[queue_at(g, last)].e1) != 0)
        return k; /* a failed wait is met again, and said, by the pair's own */
    for (size_t i = 0; i <= last; i++)
        g->pairs[queue_at(g, i)].ended = 1;
    return k;
}

int pt__queue_resolve_n(pt_timing *t, size_t n)
{
    pt__gpu *g = t ? pt__gpu_of(t) : NULL;
    size_t settled = 0;
    int rc = 0;

    while (g && n > 0 && g->qlen) {
        int r;
        if (!settled && n > 1)
            settled = settle(g, n);
        land_head(t, g);
        r = resolve_head(t);
        if (r && !rc)
            rc = r;
        n--;
        if (settled)
            settled--;
    }
    return rc;
}

int pt__queue_resolve(pt_timing *t)
{
    pt__gpu *g = t ? pt__gpu_of(t) : NULL;
    int rc, was;

    if (!g)
        return 0;
    was = g->draining;
    g->draining = 1;
    rc = pt__queue_resolve_n(t, g->qlen);
    g->draining = was;
    return rc;
}

int pt__queue_harvest(pt_timing *t)
{
    pt__gpu *g = t ? pt__gpu_of(t) : NULL;
    int rc = 0;

    prepare(t, g);
    while (g && g->qlen && head_ready(g)) {
        int r = resolve_head(t);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

int pt__queue_resolve_until(pt_timing *t, const int *pending, int keep)
{
    pt__gpu *g = t ? pt__gpu_of(t) : NULL;
    int rc = 0;

    while (g && *pending > keep && g->qlen) {
        int r;
        land_head(t, g);
        r = resolve_head(t);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

/* ---- waiters ----------------------------------------------------- */

static int latest_of(const pt__gpu *g, const pt_section *node)
{
    for (size_t k = g->qlen; k-- > 0;) {
        int i = queue_at(g, k);
        if (g->pairs[i].node == node)
            return i;
    }
    return -1;
}

int pt__queue_attach(pt_timing *t, pt_section *node, pt__waiter *w, pt_stream *stream)
{
    pt__gpu *g = pt__gpu_of(t);
    int i = g ? latest_of(g, node) : -1;
    pt__pair *p;

    if (i < 0)
        return 0;
    p = &g->pairs[i];
    if (stream)
        *stream = p->stream;
    if (w)
        add_waiter(p, w);
    return 1;
}

uint64_t pt__queue_pending_of(pt_timing *t, const pt_section *node)
{
    pt__gpu *g = pt__gpu_of(t);
    uint64_t n = 0;

    for (size_t k = 0; g && k < g->qlen; k++)
        n += g->pairs[queue_at(g, k)].node == node;
    return n;
}

int pt__queue_waited(pt_timing *t, const pt_section *node)
{
    pt__gpu *g = pt__gpu_of(t);
    int i = g ? latest_of(g, node) : -1;

    return i >= 0 && g->pairs[i].waiters != NULL;
}

int pt__queue_enqueue(pt_timing *t, pt__waiter *w, double launch_ns)
{
    pt__gpu *g = pt__gpu_of(t);
    int i;

    if (!g || (i = pt__pair_new(g)) < 0) {
        w->ops->drop(w);
        return PT_ENOMEM;
    }
    g->pairs[i].known = 1;
    g->pairs[i].ns = launch_ns;
    add_waiter(&g->pairs[i], w);
    if (pt__queue_push(g, i) < 0) {
        g->pairs[i].waiters = g->pairs[i].waiters_tail = NULL;
        pt__pair_free(g, i);
        w->ops->drop(w);
        return PT_ENOMEM;
    }
    return 0;
}

void pt__queue_record(pt_timing *t, pt_section *node, double ns)
{
    pt__gpu *g = pt__gpu_of(t);
    int i;

    if (g && g->qlen && (i = pt__pair_new(g)) >= 0) {
        g->pairs[i].node = node;
        g->pairs[i].known = 1;
        g->pairs[i].ns = ns;
        if (pt__queue_push(g, i) == 0)
            return;
        pt__pair_free(g, i);
    }
    /* Nothing pending (or no memory to queue): record it now. */
    pt__record(node, ns);
}

void pt__queue_filled(pt_timing *t)
{
    pt__gpu *g = t ? pt__gpu_of(t) : NULL;

    for (size_t k = g ? g->qlen : 0; k-- > 0;) {
        pt__pair *p = &g->pairs[queue_at(g, k)];
        if (p->filling) {
            p->filling = 0;
            return;
        }
    }
}

/* ---- reset and free ---------------------------------------------- */

void pt__queue_reset(pt__gpu *g)
{
    /* Every pair in use: queued ones and those of open frames. Their
     * events go back to the pool without being waited for. */
    for (size_t i = 0; i < g->npairs; i++) {
        if (g->pairs[i].next_free == -2) {
            drop_waiters(&g->pairs[i]);
            pt__pair_free(g, (int)i);
        }
    }
    g->qhead = g->qlen = 0;
}

void pt__queue_free(pt__gpu *g)
{
    free(g->pairs);
    free(g->queue);
    g->pairs = NULL;
    g->queue = NULL;
    g->npairs = g->qcap = 0;
    g->free_head = -1;
}

size_t pt__queue_pending(const pt_timing *t)
{
    const pt__gpu *g = t ? pt__gpu_of(t) : NULL;
    return g ? g->qlen : 0;
}
