/* A launch's shape from one fold's block records (shape.c). Not installed. */
#ifndef PT_GPU_SHAPE_H
#define PT_GPU_SHAPE_H

#include "gpu/records.h"

#include <stdint.h>

/* One fold's shape (pt__shape_figure), before it is pooled into its
 * launch's (pt__shape_add). */
typedef struct pt__shape_fig {
    int ok;                   /* a shape was found: blocks on SMs, over more than one tick */
    int n, g, top_sm;         /* blocks on SMs; the SMs they ran on; the highest %smid + 1 */
    double span, busy, tail;  /* ns: first BEGIN to last END; the SMs' busy time; the tail */
    uint64_t resident, stragglers;
    long long straggler_sm;
    double slow_ns;           /* the slowest block: its span, slot, SM and phases */
    long long slow_at, slow_sm;
    double *ph;               /* b->nphases, owned */
} pt__shape_fig;

/* Measures how the finished blocks in d (b's records, read on the host)
 * filled the device, with the slowest block's phases at the rates the
 * fold converts with (rate[s] slot s's, NaN for one the fold leaves out,
 * as gpu/heat.h says), net of mark_cycles a hit. Reads b's shape and d
 * alone, so any thread may find it (the fold's own, fold_worker.c). A
 * fold with no block on an SM, or all of it inside one globaltimer
 * value, has no shape; without memory the fold keeps none either (the
 * fold's figures are whole without it). O(n log n) in the slots. */
PT__HIDDEN void pt__shape_figure(const pt_dev_records *b, const long long *d, const double *rate,
                                 double mark_cycles, pt__shape_fig *f);
/* Pools f into node's shape, on the timing's thread: the device's SMs
 * (asked once per buffer) count in its waves and idle time. */
PT__HIDDEN void pt__shape_add(pt_section *node, pt_dev_records *b, pt__shape_fig *f);
PT__HIDDEN void pt__shape_fig_free(pt__shape_fig *f);

#endif
