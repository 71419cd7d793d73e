/* A fold's per-block phase times, kept for the HTML report's heatmap
 * (heat.c). Not installed. */
#ifndef PT_GPU_HEAT_H
#define PT_GPU_HEAT_H

#include "gpu/records.h"

/* A heatmap of this fold of d (b's records) at the slots' rates (rate[s]
 * the ns per cycle slot s converts at, pt__slot_rate; NaN for a slot the
 * fold leaves out, pt__slot_ok: found once a fold, in the fold's pass
 * over the slots, fold_figure.c), each phase net of its hits x
 * mark_cycles, as pt__red_slot() converts: binned as pt__heat
 * (core/model.h) says, one pass over the slots. Reads b's shape and d
 * alone, so any thread may draw it (the fold's own, fold_worker.c); its
 * phases are named when it is installed. NULL without memory. */
PT__HIDDEN struct pt__heat *pt__heat_figure(const pt_dev_records *b, const long long *d,
                                            const double *rate, double mark_cycles);
/* Makes h (NULL: none) node's heatmap in place of the last, on the
 * timing's thread, its phases named by node's children. A failed
 * allocation only loses that picture: the fold's figures are whole
 * without it, so it is not counted. */
PT__HIDDEN void pt__heat_install(pt_section *node, const pt_dev_records *b, struct pt__heat *h);

#endif
