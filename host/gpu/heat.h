/* A fold's per-block phase times, kept for the HTML report's heatmap
 * (heat.c). Not installed. */
#ifndef PT_GPU_HEAT_H
#define PT_GPU_HEAT_H

#include "gpu/records.h"

/* Each slot's conversion for one fold, figured once for the passes that
 * read the blocks one by one (the heatmap, the launch's shape): rate[s]
 * the ns per cycle slot s converts at (pt__slot_rate), NaN for a slot
 * the fold leaves out (pt__slot_ok). A division a slot, where each pass
 * made its own, and checked each slot again. NULL without memory. */
PT__HIDDEN double *pt__slot_rates(const pt_dev_records *b, const long long *d, double tick_ns,
                                  double ns_per_cycle);

/* Keeps node's heatmap from this fold of d (b's records) at the slots'
 * rates (pt__slot_rates), each phase net of its hits x mark_cycles, as
 * pt__red_slot() converts: binned as pt__heat (core/model.h) says, one
 * pass over the slots. A failed allocation only loses that picture: the
 * fold's figures are whole without it, so it is not counted. */
PT__HIDDEN void pt__heat_keep(pt_section *node, const pt_dev_records *b, const long long *d,
                              const double *rate, double mark_cycles);

#endif
