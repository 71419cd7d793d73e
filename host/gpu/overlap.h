/* A role's timeline from one fold's records (overlap.c). Not installed. */
#ifndef PT_GPU_OVERLAP_H
#define PT_GPU_OVERLAP_H

#include "core/overlap.h"
#include "gpu/records.h"

/* Reads, in the trace records d (b's, read on the host), when node's
 * slots worked and ran, and their spans, on each SM, and adds that as a
 * role of launch's latest occurrence (core/overlap.c), at the slots'
 * own rates on the whole (pt__slot_rate with tick_ns and ns_per_cycle).
 * node is a role of launch, or launch itself when b names waits
 * (pt_dev_records_waits); otherwise, and without trace records, nothing.
 * Its spans' intervals are flight (pt__spans_fold's, taken over); a
 * role's span events that no record of it paired (left, taken over) wait
 * there for the other roles' (core/overlap.c pairs them). Returns 0 or
 * PT_ENOMEM (counted by the caller). */
/* Whether pt__overlap_fold() figures anything for node of launch from
 * b's records: trace records, of a role or of a launch that names waits. */
PT__HIDDEN int pt__overlap_wanted(const pt_section *launch, const pt_section *node,
                                  const pt_dev_records *b);
PT__HIDDEN int pt__overlap_fold(pt_section *launch, pt_section *node, const pt_dev_records *b,
                                const long long *d, double tick_ns, double ns_per_cycle,
                                pt__span_evs *left, pt__ivs *flight);

#endif
