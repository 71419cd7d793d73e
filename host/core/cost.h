/* ptkit's own cost on the running machine (cost.c): what a start+stop
 * pair costs, measured once per process and clock, and what it means for
 * a section's figures. Not installed. */
#ifndef PT_CORE_COST_H
#define PT_CORE_COST_H

#include "core/model.h"

/* Below this many times the measured cost, an occurrence is too short to
 * time: the clock reads and the bookkeeping are a tenth of it or more. */
#define PT__SHORT_FACTOR 10.0

/* Measure (once per process, clock and PT_TRACE, on a timing of its own
 * made by pt__create) and keep on t the cost of a pair: pt_create() calls
 * it before any section starts. */
PT__HIDDEN void pt__cost_measure(pt_timing *t);
/* t's cost when it holds for t's clock: measured on the clock t reads
 * now (not a user clock), or given; NULL otherwise. */
PT__HIDDEN const pt__cost *pt__cost_of(const pt_timing *t);
/* Give t's cost (a saved run's, a test's); pair_ns <= 0 forgets it. */
PT__HIDDEN void pt__cost_set(pt_timing *t, double pair_ns, double inside_ns);
/* What ptkit's pairs put into s's own time (ns): each occurrence of a CPU
 * child cost pair - inside outside that child's own time. 0 for the root,
 * for a section that is not timed by the CPU clock, or without a cost. */
PT__HIDDEN double pt__cost_children(const pt_timing *t, const pt_section *s);

#endif
