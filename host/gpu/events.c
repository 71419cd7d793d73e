/* GPU sections: a section timed by a pair of CUDA events.
 *
 * pt_start_gpu() opens a section on the same stack as pt_start() and
 * records a pooled event (event_pool.c) on the stream; pt_stop_gpu()
 * records a second one and queues the pair with its section (queue.c),
 * which resolves it lazily and in order. Nothing waits for the GPU here,
 * unless PT_SYNC asks.
 *
 * Without PT_GPU_EVENTS, or without a runtime or a device, GPU sections
 * are timed by the CPU clock like pt_start()/pt_stop(), still marked as
 * GPU sections, and the timing records that it fell back (the report says
 * so). A CUDA call that fails is counted and described on the timing, and
 * that occurrence falls back to the CPU clock; the run goes on. */
#include "gpu/event_pool.h"
#include "gpu/gpu.h"
#include "gpu/queue.h"

#include "core/clock.h"
#include "core/errors.h"
#include "core/gate.h"
#include "core/hooks.h"
#include "core/metrics.h"
#include "core/record.h"
#include "core/threads.h"

#include <stdio.h>

/* GPU sections use events when asked to and a device is there: 0, or
 * why not (PT__FB_FLAG, PT__FB_DEVICE). Without a device that is a fact
 * of the machine, said once as a note, not an error. */
static unsigned events_on(pt_timing *t)
{
    if (!(t->flags & PT_GPU_EVENTS))
        return PT__FB_FLAG;
    if (pt__gpu_device(t))
        return 0;
    if (pt__gpu_once(t, PT__ONCE_EVENTS))
        pt__note(t, "%s: GPU sections are timed by the CPU clock", pt__gpu_why(t));
    return PT__FB_DEVICE;
}

/* The section of frame f was timed by the CPU clock this time, for `why`. */
static void fell_back(pt_timing *t, pt_section *node, unsigned why)
{
    if (why == PT__FB_FLAG && !(t->gpu_fallback & PT__FB_FLAG))
        pt__note(t, "GPU sections are timed by the CPU clock: the timing was created without "
                    "PT_GPU_EVENTS");
    if (why == PT__FB_DEVICE && !(t->gpu_fallback & PT__FB_DEVICE))
        snprintf(t->fallback_why, sizeof t->fallback_why, "%s", pt__gpu_why(t));
    t->gpu_fallback |= why;
    node->cpu_timed++;
}

/* The trace's reference: a launch's start is its start event's distance
 * from this one, plus the host clock read when this one completed. The
 * one synchronization bounds the error by its wake-up latency (a few
 * microseconds); work already queued on s only delays the wait. Without
 * it launches stay where the host placed them. */
static void take_reference(pt_timing *t, pt_stream s)
{
    pt__gpu *g = pt__gpu_of(t);
    pt__cuerr err;
    pt__cuevent e;

    g->ref_tried = 1;
    e = pt__event_create(g, &err);
    if (!e)
        return;
    if (g->cu->EventRecord(e, s) || g->cu->EventSynchronize(e)) {
        pt__event_destroy(g, e);
        return;
    }
    g->ref_tick = pt__now(t);
    g->ref = e;
}

/* Takes a pair of events for a section about to open, and the trace's
 * reference first when it needs one: all before the section's clock is
 * read, so that creating events and waiting for the reference are not in
 * it. Returns the pair's index, or -1 when this occurrence falls back to
 * the CPU clock; the reason is counted and its code left in *err. */
static int pair_take(pt_timing *t, const char *title, pt_stream s, int *err, int how)
{
    pt__gpu *g = pt__gpu_of(t);
    int i = pt__pair_new(g);

    if (i < 0) {
        *err = pt__fail(t, PT_ENOMEM, "pt_start_gpu(\"%s\"): out of memory; timed by the CPU clock",
                        title);
        return -1;
    }
    if (how & PT__BY_KERNELS) {
        g->pairs[i].span = 1; /* no event: its kernels' clocks time it */
        return i;
    }
    g->pairs[i].e0 = pt__event_get(t, title);
    if (g->pairs[i].e0)
        g->pairs[i].e1 = pt__event_get(t, title);
    if (!g->pairs[i].e1) {
        *err = PT_ECUDA;
        pt__pair_free(g, i);
        return -1;
    }
    if (t->trace && !g->ref_tried)
        take_reference(t, s);
    return i;
}

/* Records the pair's first event, the section being open: 0, or -1 with
 * the pair freed and the failure counted in *err. */
static int pair_record(pt_timing *t, int i, const char *title, pt_stream s, int *err)
{
    pt__gpu *g = pt__gpu_of(t);
    pt__cuerr e = g->pairs[i].span ? 0 : g->cu->EventRecord(g->pairs[i].e0, s);

    if (e) {
        *err = pt__fail(t, PT_ECUDA, "pt_start_gpu(\"%s\"): cudaEventRecord: %s; timed by the CPU clock",
                        title, pt__cuda_errstr(g->cu, e));
        pt__pair_free(g, i);
        return -1;
    }
    g->pairs[i].stream = s;
    return 0;
}

static int start_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m, int how)
{
    size_t depth;
    pt__frame *f;
    unsigned why = 0;
    int rc, i = -1, err = 0;

    if (!t)
        return 0;
    if ((rc = pt__owner_only(t, "pt_start_gpu")) < 0)
        return rc;
    if (t->enabled && title && (t->flags & PT_GPU_EVENTS) && pt__gpu_capturing(t, s))
        return pt__fail(t, PT_ESTATE,
                        "pt_start_gpu(\"%s\"): the stream is being captured into a CUDA graph, "
                        "where an event would time the capture, not a replay: not opened, and "
                        "nothing of ptkit's is captured (its pt_stop_gpu is refused alike); "
                        "time the replays with pt_graph_launch", title);
    if (t->enabled && title) {
        why = events_on(t);
        if (!why && (i = pair_take(t, title, s, &err, how)) < 0)
            why = PT__FB_CUDA;
    }
    depth = t->main.depth;
    rc = pt__start(t, title, m);
    f = t->main.depth > depth ? &t->main.stack[t->main.depth - 1] : NULL;
    if (!f || !f->node) {
        /* Nothing was opened (a NULL title, no memory), or it was opened
         * while disabled, and its stop pairs with it silently. */
        if (i >= 0)
            pt__pair_free(pt__gpu_of(t), i);
        return rc;
    }
    f->gpu = 1;
    f->node->kind = PT__K_GPU;
    if (i >= 0 && pair_record(t, i, title, s, &err) < 0) {
        i = -1;
        why = PT__FB_CUDA;
    }
    if (i < 0) {
        fell_back(t, f->node, why);
        if (!rc)
            rc = err;
    } else {
        pt__gpu_of(t)->pairs[i].node = f->node;
    }
    f->pending = i;
    return rc;
}

/* An occurrence timed by its kernels' clocks (a graph's replay, graph.c)
 * takes an event after it now and then, which tells when it and those
 * before it on s have completed (queue.c). Without one (the runtime
 * refused it), a later event on s tells, or the queue records one when it
 * needs to know: said, nothing lost. */
static void close_span(pt_timing *t, pt__pair *p, const char *title, pt_stream s)
{
    pt__gpu *g = pt__gpu_of(t);
    pt__cuevent e = pt__event_get(t, title); /* a failure counted */
    pt__cuerr r;

    if (!e)
        return;
    if ((r = g->cu->EventRecord(e, s)) != 0) {
        pt__fail(t, PT_ECUDA, "pt_stop_gpu(\"%s\"): cudaEventRecord: %s; a later event tells "
                 "when the occurrence completed", title, pt__cuda_errstr(g->cu, r));
        pt__event_put(g, e);
        return;
    }
    p->e1 = e;
    g->closed = e;
}

static int stop_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m, int how)
{
    int64_t now, t0;
    pt__frame *f;
    pt_section *node;
    pt__gpu *g;
    double cpu_ns;
    int rc, i, err = 0;

    if (!t)
        return 0;
    now = pt__now(t);
    if ((rc = pt__owner_only(t, "pt_stop_gpu")) < 0)
        return rc;
    if (t->enabled && title && (t->flags & PT_GPU_EVENTS) && pt__gpu_capturing(t, s))
        return pt__fail(t, PT_ESTATE,
                        "pt_stop_gpu(\"%s\"): the stream is being captured into a CUDA graph: "
                        "not closed (a section opened during the capture was not opened)",
                        title ? title : "(null)");
    rc = pt__stop_check(t, &t->main, title, "pt_stop_gpu", &f);
    if (rc)
        return rc > 0 ? 0 : rc;
    if (!f->gpu)
        return pt__fail(t, PT_EMISMATCH,
                        "pt_stop_gpu(\"%s\"): it was opened by pt_start; close it with pt_stop",
                        title);
    node = f->node;
    i = f->pending;
    t0 = f->t0;
    cpu_ns = pt__span_ns(t, f->t0, now);
    if (now < f->t0)
        err = pt__clock_back(t, "pt_stop_gpu", title, f->t0, now);
    if (t->hooks)
        pt__hooks_stop(t, &t->main, node, f->t0, now < f->t0 ? f->t0 : now, 1);
    pt__stop_pop(&t->main, node, cpu_ns);

    g = pt__gpu_of(t);
    if (i >= 0) {
        pt__pair *p = &g->pairs[i];
        pt__cuerr e = p->span ? 0 : g->cu->EventRecord(p->e1, s);
        if (!p->span && !e)
            g->closed = p->e1;
        p->stream = s;
        p->cpu_ns = cpu_ns;
        if (p->span && (how & PT__CLOSE))
            close_span(t, p, title, s);
        p->filling = (how & PT__HOLD) != 0; /* until its folds are attached (pt__queue_filled) */
        p->t0 = t0;
        if (e) {
            err = pt__fail(t, PT_ECUDA, "pt_stop_gpu(\"%s\"): cudaEventRecord: %s; timed by the CPU clock",
                           title, pt__cuda_errstr(g->cu, e));
            fell_back(t, node, PT__FB_CUDA);
            pt__event_put(g, p->e0);
            pt__event_put(g, p->e1);
            p->e0 = p->e1 = NULL;
            p->known = 1;
            p->ns = cpu_ns;
        }
        if (pt__queue_push(g, i) < 0) {
            /* No room to wait: resolve what is pending, then this one. */
            err = pt__fail(t, PT_ENOMEM, "pt_stop_gpu(\"%s\"): out of memory; resolved at once", title);
            pt__queue_resolve(t);
            if (pt__queue_push(g, i) < 0) {
                pt__pair_free(g, i);
                pt__record(node, cpu_ns);
                fell_back(t, node, PT__FB_CUDA);
            }
        }
    } else {
        pt__queue_record(t, node, cpu_ns);
    }

    rc = pt__add_metrics(t, node, m, "pt_stop_gpu");
    if (g && g->qlen) {
        int r = 0;
        if ((t->flags & PT_SYNC) && !(how & PT__HOLD)) /* its caller's, once filled */
            r = pt__queue_resolve(t);
        else if (g->qlen > PT__PENDING_MAX)
            r = pt__queue_resolve_n(t, g->qlen / 2);
        if (r && !err)
            err = r;
    }
    return rc ? rc : err;
}

/* The creating thread writes t->root here: a report on another thread
 * waits for it, and it for the report (core/gate.h). */
static int start_as(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m, int how)
{
    int rc;

    if (!t || t->owner != pt__id_self())
        return start_gpu(t, title, s, m, how); /* says it is not the creating thread */
    pt__defer_begin();
    pt__enter(t, &t->main);
    rc = start_gpu(t, title, s, m, how);
    pt__leave(&t->main);
    pt__defer_end();
    return rc;
}

static int stop_as(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m, int how)
{
    int rc;

    if (!t || t->owner != pt__id_self())
        return stop_gpu(t, title, s, m, how);
    pt__defer_begin();
    pt__enter(t, &t->main);
    rc = stop_gpu(t, title, s, m, how);
    pt__leave(&t->main);
    pt__defer_end();
    return rc;
}

int pt__start_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m)
{
    return start_as(t, title, s, m, 0);
}

int pt__stop_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m)
{
    return stop_as(t, title, s, m, 0);
}

static const pt_metrics no_metrics;

int pt__start_gpu_as(pt_timing *t, const char *title, pt_stream s, int how)
{
    return start_as(t, title, s, &no_metrics, how);
}

int pt__stop_gpu_as(pt_timing *t, const char *title, pt_stream s, int how)
{
    return stop_as(t, title, s, &no_metrics, how);
}

int pt_sync(pt_timing *t)
{
    return t ? pt__queue_resolve(t) : 0;
}
