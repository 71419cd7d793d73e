/* Export paths as templates (export_path.c). Not installed. */
#ifndef PT_REPORT_EXPORT_PATH_H
#define PT_REPORT_EXPORT_PATH_H

#include "core/model.h"

/* An export path with %r (the rank), %p (the process id) and %%
 * expanded, malloc'ed into *out. 0; PT_EINVAL described on t for another
 * conversion or a rank variable that is not a non-negative integer;
 * PT_ENOMEM. */
PT__HIDDEN int pt__path_expand(pt_timing *t, const char *path, char **out);

#endif
