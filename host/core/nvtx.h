/* PT_NVTX's ranges (nvtx.c); no-ops when built without CUDA's headers.
 * Not installed. */
#ifndef PT_CORE_NVTX_H
#define PT_CORE_NVTX_H

#include "core/model.h"

PT__HIDDEN int pt__nvtx_init(pt_timing *t);
PT__HIDDEN void pt__nvtx_free(pt_timing *t);
PT__HIDDEN void pt__nvtx_forget(pt_timing *t);    /* pt_reset: the nodes are gone */
PT__HIDDEN void pt__nvtx_push(pt_timing *t, pt_section *node);
PT__HIDDEN void pt__nvtx_pop(pt_timing *t);

#endif
