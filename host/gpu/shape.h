/* A launch's shape from one fold's block records (shape.c). Not installed. */
#ifndef PT_GPU_SHAPE_H
#define PT_GPU_SHAPE_H

#include "gpu/records.h"

/* Measures how the finished blocks in d (b's records, read on the host)
 * filled the device and pools it into node's shape, with the slowest
 * block's phases at the rates the fold converts with (rate[s] slot s's,
 * NaN for one the fold leaves out, as gpu/heat.h says), net of
 * mark_cycles a hit. A fold with no block on an SM, or all of it inside
 * one globaltimer value, has no shape; without memory the fold keeps
 * none either (the fold's figures are whole without it). O(n log n) in
 * the slots. */
PT__HIDDEN void pt__shape_fold(pt_section *node, pt_dev_records *b, const long long *d,
                               const double *rate, double mark_cycles);

#endif
