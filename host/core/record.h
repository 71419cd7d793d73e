/* Starts and stops (record.c): the hot path, and the checks a stop makes.
 * pt__start, pt__stop and pt__add are declared in pt.h. Not installed. */
#ifndef PT_CORE_RECORD_H
#define PT_CORE_RECORD_H

#include "core/model.h"

/* Checks that r's innermost frame may be closed by a stop of title (fn
 * names the call). Returns 0 and the frame, 1 for a frame opened while
 * disabled (popped: the stop does nothing), or an error counted on t. */
PT__HIDDEN int pt__stop_check(pt_timing *t, pt__thr *r, const char *title, const char *fn,
                              pt__frame **out);

#endif
