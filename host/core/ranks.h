/* Runs merged by rank (ranks.c): each rank's total of every section, for
 * the spread the reports show after pt_mpi_gather(). Not installed. */
#ifndef PT_CORE_RANKS_H
#define PT_CORE_RANKS_H

#include "core/model.h"

/* Before the first rank is merged into t: t's own sections become rank
 * 0's totals, and t counts as one rank. 0, or PT_ENOMEM. */
PT__HIDDEN int pt__ranks_begin(pt_timing *t);
/* After rank's tree (under root) was merged into t: each of its sections'
 * totals kept on the section of t at the same path, and one more rank
 * counted (as empty when its tree is). 0, or PT_ENOMEM. */
PT__HIDDEN int pt__ranks_add(pt_timing *t, const pt_section *root, int rank);
/* Whether rank was merged into t already (by pt_unpack_merge_rank). */
PT__HIDDEN int pt__ranks_seen(const pt_timing *t, int rank);
/* rank merged into t: remembered, so a second merge of it is refused.
 * 0, or PT_ENOMEM. */
PT__HIDDEN int pt__ranks_note(pt_timing *t, int rank);
/* Frees what the ranks' bookkeeping holds on t. */
PT__HIDDEN void pt__ranks_free(pt_timing *t);

#endif
