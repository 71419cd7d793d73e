/* The fold (fold.c): a launch's block records become children of its
 * section. pt_dev_fold() is declared in pt.h. Not installed. */
#ifndef PT_GPU_FOLD_H
#define PT_GPU_FOLD_H

#include "core/model.h"

/* The fold's threshold for reducing on the device instead of copying
 * every record back (tests lower it). */
PT__HIDDEN extern int pt__reduce_min_slots;

#endif
