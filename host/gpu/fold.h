/* The fold (fold.c): a launch's block records become children of its
 * section. pt_dev_fold() is declared in pt.h. Not installed. */
#ifndef PT_GPU_FOLD_H
#define PT_GPU_FOLD_H

#include "core/model.h"

/* pt_dev_fold(), and with every_slot the records hold exactly the
 * launch's blocks (PT_LAUNCH sized them to its grid), so a slot without a
 * record is a block that returned early: counted (pt_dev_clock's
 * slots_unfinished) and an error (PT_ESTATE). */
PT__HIDDEN int pt__dev_fold(pt_timing *t, pt_dev_records *b, const char *title, int every_slot);
/* Where pt__dev_fold_in() folds: into the launch, into a role of it
 * (pt_dev_fold_role()), or into a kernel of it, a CUDA graph's replay,
 * timed by its blocks' span (graph.c). With DIFF, records not reset
 * since their last fold, whose counts are taken as differences from that
 * fold's (a graph's replays, PT_LAUNCH's launches after the first); with
 * DIFF0, the first fold after a reset of such records. */
enum {
    PT__FOLD_LAUNCH = 0,
    PT__FOLD_ROLE = 1,
    PT__FOLD_KERNEL = 2,
    PT__FOLD_WHERE = 3,       /* the bits above */
    PT__FOLD_DIFF = 4,
    PT__FOLD_DIFF0 = 8,
};
/* The same into the child `role` of the launch, as mode says (NULL for
 * PT__FOLD_LAUNCH). */
PT__HIDDEN int pt__dev_fold_in(pt_timing *t, pt_dev_records *b, const char *title,
                               const char *role, int mode, int every_slot);

#endif
