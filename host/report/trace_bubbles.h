/* The pipeline's bubbles in a Chrome trace (trace_bubbles.c): for each
 * role of a launch (or a launch that names waits) whose overlap the fold
 * figured, the times it waited with nothing in flight, as drawn slices.
 * Not installed. */
#ifndef PT_REPORT_TRACE_BUBBLES_H
#define PT_REPORT_TRACE_BUBBLES_H

#include "core/overlap.h"
#include "core/trace.h"
#include "report/chrome_trace.h"

/* Where clock cycles of fold f on SM s sit on the trace's timeline: key
 * pt__trace_key(f, s), and the first block of it there, placed at t0 (ns), its
 * BEGIN at clock clk0, at rate ns a cycle. */
typedef struct pt__tanchor {
    long long key, t0, clk0;
    double rate;
} pt__tanchor;

/* The key of SM sm (below 2^32) under hi (a fold, or a group of them):
 * hi << 32 | sm, as the anchors, the spans in flight and the events to
 * pair across records are keyed. */
static inline long long pt__trace_key(long long hi, long long sm)
{
    return hi << 32 | (sm & 0xffffffffLL);
}
/* The group of fold f: the first fold placed at its start (the roles of
 * one launch are placed at the launch's start), so that folds of one
 * launch share it. O(f). */
PT__HIDDEN int pt__trace_group(const pt__trace *tr, int f);
/* Draws the bubbles of every role of tr's kept folds that has its
 * overlap figured, from the records the trace kept: per group, a role's
 * waits (BEGIN to END outside its work) less the other roles' work and
 * the group's spans in flight (flight: intervals keyed by
 * pt__trace_key(group, SM), normed here), one track per role and SM with any, after track tid, each
 * interval placed by the earliest of the anchors an (n of them, in any
 * order: sorted here) of its fold and SM. Returns the tracks written;
 * without memory, fewer (none drawn is no error). O(R^2 n log n) for R
 * roles of n intervals, as the fold's. */
PT__HIDDEN long long pt__trace_bubbles(pt__ctrace *w, const pt__trace *tr, pt__ivs *flight,
                                       pt__tanchor *an, size_t n, long long tid);

#endif
