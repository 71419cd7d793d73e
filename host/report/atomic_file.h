/* Report files written through a temporary file and renamed
 * (atomic_file.c). Not installed. */
#ifndef PT_REPORT_ATOMIC_FILE_H
#define PT_REPORT_ATOMIC_FILE_H

#include "core/model.h"

#include <stdio.h>

typedef struct pt__afile {
    FILE *f;
    char *tmp, *path;
} pt__afile;
PT__HIDDEN int pt__afile_open(pt_timing *t, pt__afile *a, const char *path);
PT__HIDDEN int pt__afile_commit(pt_timing *t, pt__afile *a); /* closes; renames or removes */
PT__HIDDEN void pt__afile_abort(pt__afile *a);
/* Ends an export named fn: a negative rc abandons the file and is counted;
 * else the file is committed, and sections still open are counted and
 * returned as PT_EOPEN (the file holds them when open_written, else not). */
PT__HIDDEN int pt__afile_finish(pt_timing *t, pt__afile *a, int rc, const char *fn,
                                const char *path, int open_written);

#endif
