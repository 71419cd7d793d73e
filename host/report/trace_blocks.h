/* The folded launches' blocks in a Chrome trace (trace_blocks.c), packed
 * into lanes per SM. Not installed. */
#ifndef PT_REPORT_TRACE_BLOCKS_H
#define PT_REPORT_TRACE_BLOCKS_H

#include "report/chrome_trace.h"

/* Every block PT_TRACE kept of t's folds, on process PT__CTRACE_SM: one
 * track (a lane) per SM for each block resident on it at once, so no two
 * blocks on a track overlap; each block one complete event, its phases
 * complete events inside it. Blocks of host-mode records (no %smid) go on
 * "host mode" lanes. Writes nothing without folds. O(n log n) in the
 * blocks kept. Returns 0 or PT_ENOMEM (nothing written then). */
PT__HIDDEN int pt__trace_blocks(pt_timing *t, pt__ctrace *w);

#endif
