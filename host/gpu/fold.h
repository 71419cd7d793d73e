/* The fold (fold.c): a launch's block records become children of its
 * section. pt_dev_fold() is declared in pt.h. Not installed. */
#ifndef PT_GPU_FOLD_H
#define PT_GPU_FOLD_H

#include "core/model.h"

/* The fold's threshold for reducing on the device instead of copying
 * every record back (tests lower it). */
PT__HIDDEN extern int pt__reduce_min_slots;

/* pt_dev_fold(), and with every_slot the records hold exactly the
 * launch's blocks (PT_LAUNCH sized them to its grid), so a slot without a
 * record is a block that returned early: counted (pt_dev_clock's
 * slots_unfinished) and an error (PT_ESTATE). */
PT__HIDDEN int pt__dev_fold(pt_timing *t, pt_dev_records *b, const char *title, int every_slot);
/* The same into the role `role` of the launch (pt_dev_fold_role()); NULL:
 * into the launch itself. */
PT__HIDDEN int pt__dev_fold_in(pt_timing *t, pt_dev_records *b, const char *title,
                               const char *role, int every_slot);

#endif
