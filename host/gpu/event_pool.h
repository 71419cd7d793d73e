/* The pool of CUDA events a timing reuses for its GPU sections
 * (event_pool.c). Not installed. */
#ifndef PT_GPU_EVENT_POOL_H
#define PT_GPU_EVENT_POOL_H

#include "gpu/state.h"

/* A new timing event, counted alive; NULL when the runtime refuses, its
 * error in *err. */
PT__HIDDEN pt__cuevent pt__event_create(pt__gpu *g, pt__cuerr *err);
/* An event from the pool, or a new one; NULL when none can be made, which
 * is counted on t as the failure of pt_start_gpu(title). */
PT__HIDDEN pt__cuevent pt__event_get(pt_timing *t, const char *title);
/* Back to the pool. An event still in flight may be recorded again: the
 * new record replaces the old one. NULL is a no-op. */
PT__HIDDEN void pt__event_put(pt__gpu *g, pt__cuevent e);
PT__HIDDEN void pt__event_destroy(pt__gpu *g, pt__cuevent e);
/* Destroys the pooled events and frees the pool. */
PT__HIDDEN void pt__event_pool_free(pt__gpu *g);
/* Tests: events created and not destroyed. */
PT__HIDDEN size_t pt__events_alive(const pt_timing *t);

#endif
