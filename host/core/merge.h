/* Trees pooled by path (merge.c): how other threads' sections, and other
 * processes', join a timing's tree. Not installed. */
#ifndef PT_CORE_MERGE_H
#define PT_CORE_MERGE_H

#include "core/model.h"

/* src's occurrences, metrics and phase figures pooled into dst, then
 * src's children into dst's children of the same titles (created in
 * t->root's tree when missing). dst and src may be in different trees. */
PT__HIDDEN int pt__merge_tree(pt_timing *t, pt_section *dst, const pt_section *src);
/* The same into a tree outside t->root's (a thread's part, the runs
 * merged in): its sections are made without counting them anywhere. */
PT__HIDDEN int pt__merge_aside(pt_section *dst, const pt_section *src);
/* s's subtree with its occurrences and metrics zeroed, its shape kept. */
PT__HIDDEN void pt__clear_occurrences(pt_section *s);

#endif
