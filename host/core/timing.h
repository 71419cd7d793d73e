/* A timing's life cycle (timing.c), and what the layers above the core
 * attach to it: their state, and the points where the core calls them
 * (model.h's pt__ext_ops). Not installed. */
#ifndef PT_CORE_TIMING_H
#define PT_CORE_TIMING_H

#include "core/model.h"

/* Attach a layer's state and operations to t in slot (PT__EXT_*), where
 * nothing is attached yet; pt_destroy() calls ops->destroy. */
PT__HIDDEN void pt__ext_attach(pt_timing *t, int slot, const pt__ext_ops *ops, void *state);
/* Have fn called at the end of every pt_create() (a layer's constructor
 * asks, once): for what must be done before any section starts, such as
 * loading the CUDA runtime, whose first load would otherwise lie inside
 * the first GPU section and its parents. */
PT__HIDDEN void pt__ext_on_create(int slot, void (*fn)(pt_timing *t));
/* The state attached in slot, or NULL. */
static inline void *pt__ext_state(const pt_timing *t, int slot)
{
    return t->ext[slot].state;
}
/* What every report, export and getter does first: pool the threads'
 * trees, and let each attached layer finish its pending work. */
PT__HIDDEN void pt__settle(pt_timing *t);
/* The machine's peaks, when none were given: asked once of the attached
 * layers (the GPU side knows a device's). */
PT__HIDDEN void pt__peaks_resolve(pt_timing *t);

/* A timing as the core makes it, with the layers' create hooks run and
 * no PT_OUTPUT read (api/timing.c's pt_create adds that); NULL on
 * failure. */
PT__HIDDEN pt_timing *pt__create(const char *name, unsigned flags);
/* pt__create() for ptkit's own timings (its cost measurement, a saved
 * run rebuilt): the same, by the name the tools know. */
PT__HIDDEN pt_timing *pt__create_internal(const char *name, unsigned flags);
/* Frees t and all it holds, each attached layer's state first (NULL: no
 * op); writes nothing. */
PT__HIDDEN void pt__destroy(pt_timing *t);

#endif
