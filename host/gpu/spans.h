/* A launch's spans from one fold's trace records (spans.c). Not
 * installed. */
#ifndef PT_GPU_SPANS_H
#define PT_GPU_SPANS_H

#include "core/overlap.h"
#include "core/spans.h"
#include "gpu/records.h"

/* Pairs the span events of each finished record in d (a trace buffer's,
 * read on the host), then those left alone across the records of each
 * SM, and adds each kind's spans to node's at the rate of the record
 * they began in (its own measured one, else ns_per_cycle). The events still alone are counted
 * unmatched, and appended to left when it is not NULL (for pairing across
 * roles); each span's interval on its SM is added to flight when it is
 * not NULL (what was in flight, for the bubbles). Returns 0 or PT_ENOMEM
 * (counted by the caller). */
PT__HIDDEN int pt__spans_fold(pt_section *node, pt_dev_records *b, const long long *d,
                              double tick_ns, double ns_per_cycle, pt__span_evs *left,
                              pt__ivs *flight);

#endif
