/* Overlap: how the roles of one launch worked beside each other, and the
 * time each waited with nothing in flight, from timelines the fold reads
 * in trace records (gpu/overlap.c) and pools into each role's shape
 * (model.h's pt__shape, busy_ns .. bubble_ns). Not installed. */
#ifndef PT_CORE_OVERLAP_H
#define PT_CORE_OVERLAP_H

#include "core/model.h"
#include "core/spans.h"

#include <stddef.h>

/* Intervals [a, b) of clock on SMs: n triples (sm, a, b) in v. Made with
 * pt__ivs_add, then pt__ivs_norm: sorted by SM and start, and on each SM
 * disjoint and apart (touching ones joined). */
typedef struct pt__ivs {
    long long *v;
    size_t n, cap;
} pt__ivs;

/* Appends [a, b) on sm (nothing when b <= a): 0 or PT_ENOMEM. */
PT__HIDDEN int pt__ivs_add(pt__ivs *s, long long sm, long long a, long long b);
/* Sorts and joins s's intervals. O(n log n). */
PT__HIDDEN void pt__ivs_norm(pt__ivs *s);
PT__HIDDEN void pt__ivs_free(pt__ivs *s);
/* The length of normed s, and of the part of normed a inside normed b,
 * as doubles (records from hostile memory sum past 2^63 whole):
 * O(|a| + |b|). */
PT__HIDDEN double pt__ivs_len(const pt__ivs *s);
PT__HIDDEN double pt__ivs_inter_len(const pt__ivs *a, const pt__ivs *b);
/* The SMs normed s has intervals on. */
PT__HIDDEN long long pt__ivs_sms(const pt__ivs *s);

/* a less b (both normed), normed, into dst (empty): 0 or PT_ENOMEM.
 * O(|a| + |b|). */
PT__HIDDEN int pt__ivs_minus(pt__ivs *dst, const pt__ivs *a, const pt__ivs *b);
/* Appends normed b's intervals to dst (then unnormed): 0 or PT_ENOMEM. */
PT__HIDDEN int pt__ivs_append(pt__ivs *dst, const pt__ivs *b);

/* One finished slot's record rec (of nphases phases, the waits among them
 * flagged in wait, or none when NULL): when it worked (a phase that is no
 * wait, and after its last mark up to END) into busy, and when it ran
 * (BEGIN to END, or to its last stored event when its trace dropped some)
 * into active, on its SM, in clock cycles. A slot whose marks' clocks no
 * kernel gives (going back, past END) adds nothing. 0 or PT_ENOMEM. */
PT__HIDDEN int pt__ovl_slot(int nphases, const unsigned char *wait, const long long *rec,
                            pt__ivs *busy, pt__ivs *active);

/* What one role (or a launch of no roles) did in one occurrence of the
 * launch, in clock cycles of each SM: when any of its slots worked (a
 * phase that is no wait), when it ran (its slots' BEGIN to END), and its
 * spans (begin to end), each normed; and the ns a cycle. */
typedef struct pt__ovl_role {
    pt_section *node;
    pt__ivs busy, active, spans;
    double ns_per_cycle;
    pt__span_evs left;        /* its span events no record of its own pairs */
    char **names;             /* its span kinds' names (pt_dev_records_spans) */
    int nnames;
    double added[4];          /* the busy, overlap, wait and bubble ns it last added to
                                 node's shape for this occurrence */
} pt__ovl_role;

/* A launch's latest occurrence: its roles so far. */
typedef struct pt__ovl {
    uint64_t occurrence;
    int n;
    pt__ovl_role *roles;
} pt__ovl;

/* Adds r (taken over whole, ivs and all, even on failure) as a role of
 * `launch`'s occurrence `occurrence` (a new occurrence forgets the last
 * one's timelines) and figures every role of the occurrence again against
 * the others: each role's shape then holds, for this occurrence, its work,
 * the part of it beside another role's work on the same SM, its waits and
 * the part of them with no other role working and no span open. Then the
 * span events no role paired are paired across the roles on each SM: a
 * begin of one role and an end of another make a span of the launch
 * (named as the begin's role names its kind), no longer unmatched in
 * either role. Returns 0 or PT_ENOMEM (the role's figures of this
 * occurrence are left out). O(R^2 n log n) for R roles of n intervals. */
PT__HIDDEN int pt__ovl_add(pt_section *launch, uint64_t occurrence, pt__ovl_role *r);
PT__HIDDEN void pt__ovl_free(pt__ovl *o);

#endif
