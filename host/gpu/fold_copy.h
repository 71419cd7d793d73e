/* Bringing a launch's records back for its fold (fold_copy.c). Not
 * installed. */
#ifndef PT_GPU_FOLD_COPY_H
#define PT_GPU_FOLD_COPY_H

#include "gpu/fold_apply.h"

/* Copies b's records (or, for a grid of pt__reduce_min_slots slots and
 * more whose counts need no difference taken, their summary reduced on
 * the device) into a host copy of b's, on stream s behind the launch,
 * and points src (its data, and a summary's conversion) and *stage at
 * it. Returns 0, or the error counted (nothing folded). */
PT__HIDDEN int pt__fold_copy_back(pt_timing *t, pt_dev_records *b, pt__fold_src *src,
                                  pt__stage **stage, pt_stream s, const char *title);

#endif
