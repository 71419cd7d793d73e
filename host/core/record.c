/* Recording: pt_start, pt_stop, pt_add and pt_transfer, the calls a timed
 * program makes in its loops.
 *
 * A start finds (or makes) the title's section under the thread's open
 * one and pushes a frame; a stop checks the frame is that section's,
 * adds the occurrence and pops it. pt__start and pt__stop are the fast
 * paths: on a thread whose recorder is found without a call, for a title
 * seen before under the open section (tree.h's pt__same_title), with
 * metrics that add without saturating and no hook but the trace's log,
 * they take no lock and make no call beyond the clock read. Everything
 * else, and every mistake, goes through start() and stop(), which check
 * and describe it on the timing. */
#include "core/record.h"

#include "core/clock.h"
#include "core/errors.h"
#include "core/gate.h"
#include "core/hooks.h"
#include "core/metrics.h"
#include "core/threads.h"
#include "core/trace.h"
#include "core/tree.h"

#include <float.h>
#include <string.h>

static inline int start_in(pt_timing *t, pt__thr *r, const char *title, const pt_metrics *m)
{
    pt_section *node;
    int rc = 0;

    if (!t->enabled) {
        if (pt__thr_push(r, NULL) < 0)
            return pt__fail(t, PT_ENOMEM, "pt_start(\"%s\"): stack", title ? title : "(null)");
        return 0;
    }
    if (!title)
        return pt__fail(t, PT_EINVAL, "pt_start: NULL title");
    node = pt__child_in(r, pt__thr_top(r), title);
    if (!node || pt__thr_push(r, node) < 0)
        return pt__fail(t, PT_ENOMEM, "pt_start(\"%s\"): out of memory", title);
    if (!pt__metrics_empty(m))
        rc = pt__add_metrics(t, node, m, "pt_start");
    node->kind = PT__K_CPU;
    if (t->hooks)
        pt__hooks_start(t, node);
    /* Read the clock last, so the bookkeeping above is not in the section. */
    r->stack[r->depth - 1].t0 = pt__now(t);
    return rc;
}

/* The thread's recorder is written between enter and leave (gate.h), so
 * a report on another thread never reads it half written. */
__attribute__((noinline)) static int start(pt_timing *t, const char *title, const pt_metrics *m)
{
    pt__thr *r = pt__thr_of(t);
    int rc;

    if (!r)
        return pt__fail(t, PT_ENOMEM, "pt_start(\"%s\"): no memory for this thread's sections",
                        title ? title : "(null)");
    pt__defer_begin();
    pt__enter(t, r);
    rc = start_in(t, r, title, m);
    pt__leave(r);
    pt__defer_end();
    return rc;
}

int pt__start(pt_timing *t, const char *title, const pt_metrics *m)
{
    pt_section *parent, *c;
    pt__frame *f;
    pt__thr *r;
    size_t d;

    if (!t)
        return 0;
    r = pt__thr_fast(t);
    if (!r || !t->enabled || (t->hooks & PT__HOOKS_LOCKED))
        return start(t, title, m);
    /* From here the recorder is read and written: a report (or a reset)
     * from another thread waits (gate.h). */
    pt__enter(t, r);
    d = r->depth;
    parent = d ? r->stack[d - 1].node : r->root;
    if (d == r->stack_cap || !parent || !(c = pt__child_fast(parent, title)) ||
        !pt__metrics_add_fast(c, m)) {
        pt__leave(r);
        return start(t, title, m);
    }
    f = &r->stack[d];
    f->node = c;
    f->gpu = 0;
    f->pending = -1;
    r->depth = d + 1;
    c->open++;
    c->kind = PT__K_CPU;
    r->changes++;
    atomic_store_explicit(&r->top, c, memory_order_release);
    f->t0 = pt__now(t);
    pt__leave(r);
    return 0;
}

/* A stop whose title is not open on its own thread: if it is another
 * thread's innermost section, say so (PT_ETHREAD) rather than calling
 * it a stop without a start. */
static int other_thread(pt_timing *t, const pt__thr *r, const char *title, const char *fn)
{
    int at = pt__threads_open_elsewhere(t, r, title);
    if (at < 0)
        return 0;
    return pt__fail(t, PT_ETHREAD,
                    "%s(\"%s\") on thread %d, but \"%s\" was started on thread %d and is open "
                    "there; a section stops on the thread that started it", fn, title, r->index,
                    title, at);
}

int pt__stop_check(pt_timing *t, pt__thr *r, const char *title, const char *fn, pt__frame **out)
{
    char stack[256];
    pt__frame *f;
    int rc;

    if (r->depth == 0) {
        if (!t->enabled)
            return 1;
        /* Its own section, dropped by a reset from another thread: not
         * one open elsewhere under the same title. */
        if (r->reset_dropped > 0) {
            r->reset_dropped--;
            return pt__fail(t, PT_ENOSTART, "%s(\"%s\") with no section open: pt_reset "
                            "dropped this thread's open sections", fn, title ? title : "(null)");
        }
        if (title && (rc = other_thread(t, r, title, fn)) < 0)
            return rc;
        return pt__fail(t, PT_ENOSTART, "%s(\"%s\") with no section open", fn,
                        title ? title : "(null)");
    }
    f = &r->stack[r->depth - 1];
    if (!f->node) {
        r->depth--;
        pt__thr_publish(r);
        return 1;
    }
    if (!title)
        return pt__fail(t, PT_EINVAL, "%s: NULL title", fn);
    if (strcmp(f->node->name, title) != 0) {
        if (r->reset_dropped > 0)
            r->reset_dropped--;
        else if ((rc = other_thread(t, r, title, fn)) < 0)
            return rc;
        pt__stack_str(r, stack, sizeof stack);
        return pt__fail(t, PT_EMISMATCH, "%s(\"%s\") but the open section is \"%s\" (open: %s)",
                        fn, title, f->node->name, stack);
    }
    *out = f;
    return 0;
}

static inline int stop_in(pt_timing *t, pt__thr *r, int64_t now, const char *title,
                          const pt_metrics *m)
{
    pt__frame *f;
    pt_section *node;
    double ns;
    int rc;

    r = pt__thr_of(t);
    if (!r)
        return pt__fail(t, PT_ENOMEM, "pt_stop(\"%s\"): no memory for this thread's sections",
                        title ? title : "(null)");
    f = r->depth ? &r->stack[r->depth - 1] : NULL;
    if (!f || !f->node || !pt__same_title(f->node, title)) {
        rc = pt__stop_check(t, r, title, "pt_stop", &f);
        if (rc)
            return rc > 0 ? 0 : rc;
    }
    node = f->node;
    if (f->gpu)
        return pt__fail(t, PT_EMISMATCH,
                        "pt_stop(\"%s\"): it was opened by pt_start_gpu; close it with pt_stop_gpu",
                        title);
    ns = pt__span_ns(t, f->t0, now);
    pt__record(node, ns);
    if (t->hooks)
        pt__hooks_stop(t, r, node, f->t0, now < f->t0 ? f->t0 : now, 0);
    pt__stop_pop(r, node, ns);
    rc = now < f->t0 ? pt__clock_back(t, "pt_stop", title, f->t0, now) : 0;
    if (!pt__metrics_empty(m)) {
        int r2 = pt__add_metrics(t, node, m, "pt_stop");
        rc = rc ? rc : r2;
    }
    return rc;
}

/* now: the clock, read first thing by pt__stop. */
__attribute__((noinline)) static int stop(pt_timing *t, const char *title, const pt_metrics *m,
                                          int64_t now)
{
    pt__thr *r = pt__thr_of(t);
    int rc;

    if (!r)
        return pt__fail(t, PT_ENOMEM, "pt_stop(\"%s\"): no memory for this thread's sections",
                        title ? title : "(null)");
    pt__defer_begin();
    pt__enter(t, r);
    rc = stop_in(t, r, now, title, m);
    pt__leave(r);
    pt__defer_end();
    return rc;
}

int pt__stop(pt_timing *t, const char *title, const pt_metrics *m)
{
    int64_t now;
    pt_section *node;
    pt__frame *f;
    pt__thr *r;
    double ns;
    size_t d;

    if (!t)
        return 0;
    now = pt__now(t);
    r = pt__thr_fast(t);
    if (!r || (t->hooks & PT__HOOKS_LOCKED))
        return stop(t, title, m, now);
    /* From here the recorder is read and written: a report (which may
     * re-key the sections it pools into) or a reset from another thread
     * waits (gate.h). A clock that went back is counted by stop(). */
    pt__enter(t, r);
    d = r->depth;
    f = d ? &r->stack[d - 1] : NULL;
    node = f ? f->node : NULL;
    if (!node || f->gpu || !pt__same_title(node, title) || now < f->t0 ||
        !pt__metrics_add_fast(node, m)) {
        pt__leave(r);
        return stop(t, title, m, now);
    }
    ns = pt__span_ns(t, f->t0, now);
    pt__record(node, ns);
    if (t->hooks)
        pt__tlog_add(t, r, node, f->t0, now);
    pt__stop_pop(r, node, ns);
    pt__leave(r);
    return 0;
}

/* The calling thread's innermost open section; NULL with none, or inside
 * a start made while disabled (*ghost set). The caller leaves *rp. */
static pt_section *open_node(pt_timing *t, int *ghost, pt__thr **rp)
{
    pt__thr *r = *rp = pt__thr_of(t);
    *ghost = 0;
    if (r)
        pt__enter(t, r);
    if (!r || !r->depth)
        return NULL;
    *ghost = r->stack[r->depth - 1].node == NULL;
    r->changes++; /* metrics are about to be added */
    return r->stack[r->depth - 1].node;
}

int pt__add(pt_timing *t, const pt_metrics *m)
{
    pt_section *node;
    pt__thr *r;
    int ghost, rc;

    if (!t)
        return 0;
    pt__defer_begin();
    node = open_node(t, &ghost, &r);
    if (ghost)
        rc = 0; /* inside a start made while disabled */
    else if (!node)
        rc = t->enabled ? pt__fail(t, PT_ENOSTART, "pt_add with no section open") : 0;
    else
        rc = pt__add_metrics(t, node, m, "pt_add");
    if (r)
        pt__leave(r);
    pt__defer_end();
    return rc;
}

int pt_transfer(pt_timing *t, double bytes, unsigned dir)
{
    pt_section *node;
    pt__thr *r;
    int i, ghost, sat = 0;

    if (!t)
        return 0;
    switch (dir) {
    case PT_H2D: i = 0; break;
    case PT_D2H: i = 1; break;
    case PT_D2D: i = 2; break;
    default:
        return pt__fail(t, PT_EINVAL,
                        "pt_transfer: direction %#x is not exactly one of PT_H2D, PT_D2H, PT_D2D", dir);
    }
    if (!pt__metric_ok(bytes))
        return pt__fail(t, PT_ERANGE, "pt_transfer: bytes must be finite and >= 0 (%g); ignored",
                        bytes);
    node = open_node(t, &ghost, &r);
    if (node && !ghost)
        node->xfer[i] = pt__sat_add(node->xfer[i], bytes, &sat);
    if (r)
        pt__leave(r);
    if (ghost)
        return 0;
    if (!node)
        return t->enabled ? pt__fail(t, PT_ENOSTART, "pt_transfer with no section open") : 0;
    if (sat)
        return pt__fail(t, PT_ERANGE, "pt_transfer(%g bytes) in \"%s\": the bytes pass the largest "
                        "double; held at %g (saturated)", bytes, node->name, DBL_MAX);
    return 0;
}
