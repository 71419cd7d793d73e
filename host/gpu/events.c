/* GPU sections: CUDA event pairs, pooled, resolved lazily and in order.
 *
 * pt_start_gpu() opens a section on the same stack as pt_start() and
 * records a pooled event on the stream; pt_stop_gpu() records a second one
 * and queues the pair with its section. Nothing waits for the GPU there
 * (unless PT_SYNC). The queue is resolved oldest first, so a section's
 * occurrences reach its statistics in the order they happened and "first"
 * stays the first launch: when a report, an export, pt_stats(),
 * pt_section_get() or pt_sync() needs figures, when more than
 * PT__PENDING_MAX pairs wait (the oldest half is resolved, which bounds
 * the events alive), and, without waiting, whatever has already completed
 * when pt_dev_fold() is called. A fold waits in the queue behind its
 * launch and is resolved with it (host/fold.c).
 *
 * Without PT_GPU_EVENTS, or without a runtime or a device, GPU sections are
 * timed by the CPU clock like pt_start()/pt_stop(), still marked as GPU
 * sections, and the timing records that it fell back (the report says so).
 * A CUDA call that fails is counted and described on the timing, and that
 * occurrence falls back to the CPU clock; the run goes on. While the queue
 * holds anything, even a CPU-timed occurrence waits its turn in it, so the
 * order of occurrences is kept whatever clock timed them. */
#include "gpu/gpu.h"

#include <stdlib.h>
#include <string.h>

#include "core/trace.h"

/* Queued pairs beyond which the oldest half is resolved. */
#define PT__PENDING_MAX 1024


/* One occurrence of a GPU section, from its start to its resolution; or,
 * with node == NULL, a fold whose launch time is already known. */
typedef struct pair {
    pt__cuevent e0, e1;       /* NULL when the time is known without them */
    pt_section *node;
    pt_stream stream;         /* of pt_stop_gpu() */
    double cpu_ns;            /* the CPU clock's view, if the events fail */
    double ns;                /* the occurrence's time once known */
    int known;                /* ns holds it */
    pt__fold_job *folds, *folds_tail; /* folds of this launch, in call order */
    int next_free;            /* free list link; -2 while in use */
} pair;

struct pt__gpu {
    const pt__cuda_api *cu;
    int dev_state;            /* 0 not probed, 1 a device, -1 none */
    char dev_why[256];
    int said_events, said_buffers; /* each fallback described once */
    unsigned said;            /* PT__ONCE_* bits */

    pt__cuevent *pool;        /* created events not in use */
    size_t npool, pool_cap;
    size_t alive;             /* events created and not destroyed */

    pair *pairs;              /* frames and the queue refer to them by index */
    size_t npairs;
    int free_head;

    int *queue;               /* ring of pair indices, in order of stop */
    size_t qcap, qhead, qlen;

    pt_dev_buffer *buffers;   /* made on this timing */

    /* PT_TRACE: the reference placing launches on the host timeline, an
     * event recorded and waited for once, at the first pt_start_gpu(),
     * and the host clock read right after the wait. */
    pt__cuevent ref;
    int64_t ref_tick;
    int ref_tried;
};

/* ---- state ------------------------------------------------------- */

pt__gpu *pt__gpu_get(pt_timing *t)
{
    if (!t->gpu) {
        t->gpu = calloc(1, sizeof *t->gpu);
        if (!t->gpu)
            return NULL;
        t->gpu->cu = pt__cuda();
        t->gpu->free_head = -1;
    }
    return t->gpu;
}

const pt__cuda_api *pt__gpu_api(pt_timing *t)
{
    pt__gpu *g = pt__gpu_get(t);
    return g ? g->cu : pt__cuda();
}

int pt__gpu_device(pt_timing *t)
{
    pt__gpu *g = pt__gpu_get(t);
    const pt__cuda_api *cu;
    int n = 0;
    pt__cuerr e;

    if (!g)
        return 0;
    if (g->dev_state)
        return g->dev_state > 0;
    cu = g->cu;
    g->dev_state = -1;
    if (cu->unavailable) {
        snprintf(g->dev_why, sizeof g->dev_why, "no CUDA runtime: %s", cu->unavailable);
    } else if ((e = cu->GetDeviceCount(&n)) != 0) {
        snprintf(g->dev_why, sizeof g->dev_why, "cudaGetDeviceCount: %s",
                 pt__cuda_errstr(cu, e));
    } else if (n <= 0) {
        snprintf(g->dev_why, sizeof g->dev_why, "no CUDA device");
    } else {
        g->dev_state = 1;
    }
    return g->dev_state > 0;
}

int pt__gpu_note_host_fallback(pt_timing *t, const char *why)
{
    pt__gpu *g = pt__gpu_get(t);
    if (!g || g->said_buffers)
        return 0;
    g->said_buffers = 1;
    return pt__fail(t, PT_ENODEV, "%s: device record buffers are made in host memory",
                    why ? why : g->dev_why);
}

int pt__gpu_once(pt_timing *t, unsigned what)
{
    pt__gpu *g = pt__gpu_get(t);
    if (!g || (g->said & what))
        return 0;
    g->said |= what;
    return 1;
}

/* GPU sections use events when asked to and a device is there; the
 * first time they cannot, the timing says why. */
static int events_on(pt_timing *t)
{
    pt__gpu *g;

    if (!(t->flags & PT_GPU_EVENTS))
        return 0;
    if (pt__gpu_device(t))
        return 1;
    g = t->gpu;
    if (g && !g->said_events) {
        g->said_events = 1;
        pt__fail(t, PT_ENODEV, "%s: GPU sections are timed by the CPU clock",
                 g->dev_why[0] ? g->dev_why : "out of memory");
    }
    return 0;
}

/* ---- the event pool ---------------------------------------------- */

static pt__cuevent ev_get(pt_timing *t, const char *title)
{
    pt__gpu *g = t->gpu;
    pt__cuevent e = NULL;
    pt__cuerr err;

    if (g->npool)
        return g->pool[--g->npool];
    err = g->cu->EventCreateWithFlags(&e, PT__CU_EVENT_DEFAULT);
    if (err || !e) {
        pt__fail(t, PT_ECUDA, "pt_start_gpu(\"%s\"): cudaEventCreateWithFlags: %s; timed by the CPU clock",
                 title, pt__cuda_errstr(g->cu, err));
        return NULL;
    }
    g->alive++;
    return e;
}

static void ev_destroy(pt__gpu *g, pt__cuevent e)
{
    g->cu->EventDestroy(e);
    g->alive--;
}

/* Back to the pool. An event still in flight may be recorded again: the
 * new record replaces the old one. */
static void ev_put(pt__gpu *g, pt__cuevent e)
{
    if (!e)
        return;
    if (g->npool == g->pool_cap) {
        size_t cap = g->pool_cap ? g->pool_cap * 2 : 64;
        pt__cuevent *p = realloc(g->pool, cap * sizeof *p);
        if (!p) {
            ev_destroy(g, e);
            return;
        }
        g->pool = p;
        g->pool_cap = cap;
    }
    g->pool[g->npool++] = e;
}

/* ---- pairs and the queue ----------------------------------------- */

static int pair_new(pt__gpu *g)
{
    int i;
    if (g->free_head < 0) {
        size_t n = g->npairs ? g->npairs * 2 : 64;
        pair *p = realloc(g->pairs, n * sizeof *p);
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

static void pair_free(pt__gpu *g, int i)
{
    pair *p = &g->pairs[i];
    ev_put(g, p->e0);
    ev_put(g, p->e1);
    p->e0 = p->e1 = NULL;
    p->next_free = g->free_head;
    g->free_head = i;
}

static void pair_drop_folds(pair *p)
{
    pt__fold_job *j = p->folds;
    while (j) {
        pt__fold_job *n = j->next;
        pt__fold_drop(j);
        j = n;
    }
    p->folds = p->folds_tail = NULL;
}

static int queue_push(pt__gpu *g, int i)
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

/* Whether the oldest queued item can be resolved without waiting. */
static int head_ready(pt__gpu *g)
{
    pair *p = &g->pairs[queue_at(g, 0)];
    if (!p->known && g->cu->EventQuery(p->e1) == PT__CU_NOT_READY)
        return 0;
    for (pt__fold_job *j = p->folds; j; j = j->next)
        if (j->stage && j->stage->ev && j->buf->cu->EventQuery(j->stage->ev) == PT__CU_NOT_READY)
            return 0;
    return 1;
}

/* Resolves the oldest queued item: waits for its events, records the
 * occurrence, runs the folds waiting on it. Returns 0 or the error met. */
static int resolve_head(pt_timing *t)
{
    pt__gpu *g = t->gpu;
    int i = queue_at(g, 0), rc = 0;
    pair *p = &g->pairs[i];
    pt_section *node = p->node;
    pt__fold_job *j;
    double ns;

    g->qhead = (g->qhead + 1) % g->qcap;
    g->qlen--;
    if (!p->known) {
        float ms = 0;
        pt__cuerr e = g->cu->EventSynchronize(p->e1);
        const char *what = "cudaEventSynchronize";
        if (!e) {
            e = g->cu->EventElapsedTime(&ms, p->e0, p->e1);
            what = "cudaEventElapsedTime";
        }
        if (e) {
            rc = pt__fail(t, PT_ECUDA, "\"%s\": %s: %s; this occurrence is timed by the CPU clock",
                          node ? node->name : "(fold)", what, pt__cuda_errstr(g->cu, e));
            t->gpu_fallback = 1;
            p->ns = p->cpu_ns;
        } else {
            p->ns = (double)ms * 1e6;
            if (t->trace && g->ref && node && !g->cu->EventElapsedTime(&ms, g->ref, p->e0))
                pt__trace_gpu(t, node, p->stream, g->ref_tick, (double)ms * 1e6, p->ns);
        }
        p->known = 1;
    }
    ns = p->ns;
    j = p->folds;
    p->folds = p->folds_tail = NULL;
    pair_free(g, i);
    if (node)
        pt__record(node, ns);
    while (j) {
        pt__fold_job *n = j->next;
        int r = pt__fold_run(t, j, node ? ns : j->launch_ns);
        if (r && !rc)
            rc = r;
        j = n;
    }
    return rc;
}

static int resolve_n(pt_timing *t, size_t n)
{
    int rc = 0;
    while (n-- > 0 && t->gpu->qlen) {
        int r = resolve_head(t);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

int pt__gpu_resolve(pt_timing *t)
{
    if (!t || !t->gpu)
        return 0;
    return resolve_n(t, t->gpu->qlen);
}

int pt__gpu_harvest(pt_timing *t)
{
    int rc = 0;
    if (!t || !t->gpu)
        return 0;
    while (t->gpu->qlen && head_ready(t->gpu)) {
        int r = resolve_head(t);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

int pt__gpu_resolve_buffer(pt_timing *t, const pt_dev_buffer *b, int keep)
{
    int rc = 0;
    if (!t || !t->gpu)
        return 0;
    while (b->pending > keep && t->gpu->qlen) {
        int r = resolve_head(t);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

int pt_sync(pt_timing *t)
{
    return t ? pt__gpu_resolve(t) : 0;
}

/* ---- folds in the queue ------------------------------------------ */

static int latest_of(const pt__gpu *g, const pt_section *node)
{
    for (size_t k = g->qlen; k-- > 0;) {
        int i = queue_at(g, k);
        if (g->pairs[i].node == node)
            return i;
    }
    return -1;
}

int pt__gpu_fold_attach(pt_timing *t, pt_section *node, pt__fold_job *job, pt_stream *stream)
{
    pt__gpu *g = t->gpu;
    int i = g ? latest_of(g, node) : -1;
    pair *p;

    if (i < 0)
        return 0;
    p = &g->pairs[i];
    if (stream)
        *stream = p->stream;
    if (job) {
        job->next = NULL;
        if (p->folds_tail)
            p->folds_tail->next = job;
        else
            p->folds = job;
        p->folds_tail = job;
    }
    return 1;
}

int pt__gpu_fold_enqueue(pt_timing *t, pt__fold_job *job)
{
    pt__gpu *g = pt__gpu_get(t);
    int i;

    if (!g || (i = pair_new(g)) < 0) {
        pt__fold_drop(job);
        return pt__fail(t, PT_ENOMEM, "pt_dev_fold: out of memory");
    }
    g->pairs[i].known = 1;
    g->pairs[i].ns = job->launch_ns;
    job->next = NULL;
    g->pairs[i].folds = g->pairs[i].folds_tail = job;
    if (queue_push(g, i) < 0) {
        g->pairs[i].folds = g->pairs[i].folds_tail = NULL;
        pair_free(g, i);
        pt__fold_drop(job);
        return pt__fail(t, PT_ENOMEM, "pt_dev_fold: out of memory");
    }
    return 0;
}

/* ---- start and stop ---------------------------------------------- */

/* The trace's reference: a launch's start is its start event's distance
 * from this one, plus the host clock read when this one completed. The
 * one synchronization bounds the error by its wake-up latency (a few
 * microseconds); work already queued on s only delays the wait. Without
 * it launches stay where the host placed them. */
static void take_reference(pt_timing *t, pt_stream s)
{
    pt__gpu *g = t->gpu;
    pt__cuevent e = NULL;

    g->ref_tried = 1;
    if (g->cu->EventCreateWithFlags(&e, PT__CU_EVENT_DEFAULT) || !e)
        return;
    g->alive++;
    if (g->cu->EventRecord(e, s) || g->cu->EventSynchronize(e)) {
        ev_destroy(g, e);
        return;
    }
    g->ref_tick = pt__now(t);
    g->ref = e;
}

/* Takes a pair for the frame just opened and records its first event.
 * Returns the pair's index, or -1 when this occurrence falls back to the
 * CPU clock; the reason is counted and its code left in *err. */
static int pair_open(pt_timing *t, const char *title, pt_stream s, int *err)
{
    pt__gpu *g = t->gpu;
    pt__cuerr e;
    int i = pair_new(g);

    if (i < 0) {
        *err = pt__fail(t, PT_ENOMEM, "pt_start_gpu(\"%s\"): out of memory; timed by the CPU clock",
                        title);
        return -1;
    }
    g->pairs[i].e0 = ev_get(t, title);
    if (g->pairs[i].e0)
        g->pairs[i].e1 = ev_get(t, title);
    if (!g->pairs[i].e1) {
        *err = PT_ECUDA;
        pair_free(g, i);
        return -1;
    }
    if (t->trace && !g->ref_tried)
        take_reference(t, s);
    e = g->cu->EventRecord(g->pairs[i].e0, s);
    if (e) {
        *err = pt__fail(t, PT_ECUDA, "pt_start_gpu(\"%s\"): cudaEventRecord: %s; timed by the CPU clock",
                        title, pt__cuda_errstr(g->cu, e));
        pair_free(g, i);
        return -1;
    }
    g->pairs[i].stream = s;
    return i;
}

int pt__start_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m)
{
    size_t depth;
    pt__frame *f;
    int rc, i, err = 0;

    if (!t)
        return 0;
    if ((rc = pt__owner_only(t, "pt_start_gpu")) < 0)
        return rc;
    depth = t->main.depth;
    rc = pt__start(t, title, m);
    if (t->main.depth == depth)
        return rc; /* nothing was opened: a NULL title, or no memory */
    f = &t->main.stack[t->main.depth - 1];
    if (!f->node)
        return rc; /* opened while disabled: its stop pairs with it silently */
    f->gpu = 1;
    f->node->kind = PT__K_GPU;
    if (!events_on(t)) {
        t->gpu_fallback = 1;
        return rc;
    }
    i = pair_open(t, title, s, &err);
    if (i < 0) {
        t->gpu_fallback = 1;
        if (!rc)
            rc = err;
    } else {
        t->gpu->pairs[i].node = f->node;
    }
    f->pending = i;
    return rc;
}

/* Puts an occurrence whose time is known behind the pending ones, or
 * records it at once when nothing is pending. */
static void record_in_order(pt_timing *t, pt_section *node, double ns)
{
    pt__gpu *g = t->gpu;
    int i;

    if (g && g->qlen && (i = pair_new(g)) >= 0) {
        g->pairs[i].node = node;
        g->pairs[i].known = 1;
        g->pairs[i].ns = ns;
        if (queue_push(g, i) == 0)
            return;
        pair_free(g, i);
    }
    /* Nothing pending (or no memory to queue): record it now. */
    pt__record(node, ns);
}

int pt__stop_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m)
{
    int64_t now;
    pt__frame *f;
    pt_section *node;
    double cpu_ns;
    int rc, i, err = 0;

    if (!t)
        return 0;
    now = pt__now(t);
    if ((rc = pt__owner_only(t, "pt_stop_gpu")) < 0)
        return rc;
    rc = pt__stop_check(t, &t->main, title, "pt_stop_gpu", &f);
    if (rc)
        return rc > 0 ? 0 : rc;
    if (!f->gpu)
        return pt__fail(t, PT_EMISMATCH,
                        "pt_stop_gpu(\"%s\"): it was opened by pt_start; close it with pt_stop",
                        title);
    node = f->node;
    i = f->pending;
    cpu_ns = (double)(now - f->t0) * t->ns_per_tick;
    if (t->hooks)
        pt__hooks_stop(t, node, f->t0, now, 1);
    pt__stop_pop(&t->main, node, cpu_ns);

    if (i >= 0) {
        pt__gpu *g = t->gpu;
        pair *p = &g->pairs[i];
        pt__cuerr e = g->cu->EventRecord(p->e1, s);
        p->stream = s;
        p->cpu_ns = cpu_ns;
        if (e) {
            err = pt__fail(t, PT_ECUDA, "pt_stop_gpu(\"%s\"): cudaEventRecord: %s; timed by the CPU clock",
                           title, pt__cuda_errstr(g->cu, e));
            t->gpu_fallback = 1;
            ev_put(g, p->e0);
            ev_put(g, p->e1);
            p->e0 = p->e1 = NULL;
            p->known = 1;
            p->ns = cpu_ns;
        }
        if (queue_push(g, i) < 0) {
            /* No room to wait: resolve what is pending, then this one. */
            err = pt__fail(t, PT_ENOMEM, "pt_stop_gpu(\"%s\"): out of memory; resolved at once", title);
            pt__gpu_resolve(t);
            if (queue_push(g, i) < 0) {
                pair_free(g, i);
                pt__record(node, cpu_ns);
            }
        }
    } else {
        record_in_order(t, node, cpu_ns);
    }

    rc = pt__add_metrics(t, node, m, "pt_stop_gpu");
    if (t->gpu && t->gpu->qlen) {
        int r = 0;
        if (t->flags & PT_SYNC)
            r = pt__gpu_resolve(t);
        else if (t->gpu->qlen > PT__PENDING_MAX)
            r = resolve_n(t, t->gpu->qlen / 2);
        if (r && !err)
            err = r;
    }
    return rc ? rc : err;
}

/* ---- buffers ----------------------------------------------------- */

void pt__gpu_buffer_link(pt_timing *t, pt_dev_buffer *b)
{
    pt__gpu *g = pt__gpu_get(t);
    if (!g) {
        b->t = NULL; /* errors on it are then only returned */
        return;
    }
    b->next_of_t = g->buffers;
    g->buffers = b;
}

void pt__gpu_buffer_unlink(pt_timing *t, pt_dev_buffer *b)
{
    if (!t || !t->gpu)
        return;
    for (pt_dev_buffer **p = &t->gpu->buffers; *p; p = &(*p)->next_of_t) {
        if (*p == b) {
            *p = b->next_of_t;
            break;
        }
    }
    b->next_of_t = NULL;
}

/* ---- reset and free ---------------------------------------------- */

void pt__gpu_reset(pt_timing *t)
{
    pt__gpu *g;

    if (!t || !(g = t->gpu))
        return;
    /* Every pair in use: queued ones and those of open frames. Their
     * events go back to the pool without being waited for. */
    for (size_t i = 0; i < g->npairs; i++) {
        if (g->pairs[i].next_free == -2) {
            pair_drop_folds(&g->pairs[i]);
            pair_free(g, (int)i);
        }
    }
    g->qhead = g->qlen = 0;
    /* Errors are forgotten with the rest, so the fallbacks are described
     * again when they happen again. */
    g->dev_state = 0;
    g->dev_why[0] = '\0';
    g->said_events = g->said_buffers = 0;
    g->said = 0;
}

void pt__gpu_free(pt_timing *t)
{
    pt__gpu *g;

    if (!t || !(g = t->gpu))
        return;
    pt__gpu_reset(t);
    while (g->npool)
        ev_destroy(g, g->pool[--g->npool]);
    if (g->ref)
        ev_destroy(g, g->ref);
    /* Buffers outlive their timing; they stop reporting errors to it. */
    for (pt_dev_buffer *b = g->buffers, *n; b; b = n) {
        n = b->next_of_t;
        b->t = NULL;
        b->next_of_t = NULL;
        if (b->fold_t == t)
            b->fold_t = NULL;
    }
    free(g->pool);
    free(g->pairs);
    free(g->queue);
    free(g);
    t->gpu = NULL;
}

size_t pt__gpu_pending(const pt_timing *t)
{
    return t && t->gpu ? t->gpu->qlen : 0;
}

size_t pt__gpu_events_alive(const pt_timing *t)
{
    return t && t->gpu ? t->gpu->alive : 0;
}
