/* The work done at every real start and stop while t->hooks is not zero
 * (hooks.c): the trace log, NVTX ranges, and the boundary of each layer
 * attached to the timing. Not installed. */
#ifndef PT_CORE_HOOKS_H
#define PT_CORE_HOOKS_H

#include "core/model.h"

PT__HIDDEN void pt__hooks_start(pt_timing *t, pt_section *node);
PT__HIDDEN void pt__hooks_stop(pt_timing *t, pt_section *node, int64_t t0, int64_t t1, int gpu);

#endif
