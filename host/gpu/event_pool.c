/* The event pool: a timing's CUDA events, created on demand and reused,
 * so a GPU section costs two cudaEventRecord calls and no creation once
 * the loop is warm. The pool grows to the most events in use at once,
 * which the queue bounds (queue.c resolves the oldest half past
 * PT__PENDING_MAX pairs). */
#include "gpu/event_pool.h"

#include "core/errors.h"

#include <stdlib.h>

pt__cuevent pt__event_create(pt__gpu *g, pt__cuerr *err)
{
    pt__cuevent e = NULL;

    *err = g->cu->EventCreateWithFlags(&e, PT__CU_EVENT_DEFAULT);
    if (*err || !e)
        return NULL;
    g->alive++;
    return e;
}

pt__cuevent pt__event_get(pt_timing *t, const char *title)
{
    pt__gpu *g = pt__gpu_of(t);
    pt__cuevent e;
    pt__cuerr err;

    if (g->npool)
        return g->pool[--g->npool];
    e = pt__event_create(g, &err);
    if (!e)
        pt__fail(t, PT_ECUDA, "pt_start_gpu(\"%s\"): cudaEventCreateWithFlags: %s; timed by the CPU clock",
                 title, pt__cuda_errstr(g->cu, err));
    return e;
}

void pt__event_destroy(pt__gpu *g, pt__cuevent e)
{
    g->cu->EventDestroy(e);
    g->alive--;
}

void pt__event_put(pt__gpu *g, pt__cuevent e)
{
    if (!e)
        return;
    if (g->npool == g->pool_cap) {
        size_t cap = g->pool_cap ? g->pool_cap * 2 : 64;
        pt__cuevent *p = realloc(g->pool, cap * sizeof *p);
        if (!p) {
            pt__event_destroy(g, e);
            return;
        }
        g->pool = p;
        g->pool_cap = cap;
    }
    g->pool[g->npool++] = e;
}

void pt__event_pool_free(pt__gpu *g)
{
    while (g->npool)
        pt__event_destroy(g, g->pool[--g->npool]);
    free(g->pool);
    g->pool = NULL;
    g->pool_cap = 0;
}

size_t pt__events_alive(const pt_timing *t)
{
    const pt__gpu *g = t ? pt__gpu_of(t) : NULL;
    return g ? g->alive : 0;
}
