/* The work done at every real start and stop while t->hooks is not zero
 * (hooks.c): the trace log, NVTX ranges, and the boundary of each layer
 * attached to the timing. Not installed. */
#ifndef PT_CORE_HOOKS_H
#define PT_CORE_HOOKS_H

#include "core/model.h"

/* The hooks of a real start of node (none for the trace, which logs at stops). */
PT__HIDDEN void pt__hooks_start(pt_timing *t, pt_section *node);
/* The hooks of a real stop of node, opened at t0 and closed at t1 by r's
 * thread; gpu for pt_stop_gpu. */
PT__HIDDEN void pt__hooks_stop(pt_timing *t, pt__thr *r, pt_section *node, int64_t t0, int64_t t1,
                               int gpu);

#endif
