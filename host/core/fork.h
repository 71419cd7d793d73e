/* fork(2) while threads time (fork.c): the child gets every timing whole,
 * with no lock held by a thread it does not have. Not installed. */
#ifndef PT_CORE_FORK_H
#define PT_CORE_FORK_H

#include "core/model.h"

/* A timing lives: a fork waits until no thread is writing its trees.
 * 0, or PT_ENOMEM. */
PT__HIDDEN int pt__fork_track(pt_timing *t);
/* It is being destroyed. */
PT__HIDDEN void pt__fork_untrack(pt_timing *t);

#endif
