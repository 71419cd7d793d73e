/* Report files written through a temporary file and renamed
 * (atomic_file.c): a reader sees the old file or the new one, never half
 * of either, and a failure leaves nothing behind. Not installed. */
#ifndef PT_REPORT_ATOMIC_FILE_H
#define PT_REPORT_ATOMIC_FILE_H

#include "core/model.h"

#include <stddef.h>
#include <stdio.h>

typedef struct pt__afile {
    FILE *f;                  /* write here */
    char *tmp, *path;
} pt__afile;

/* Opens a temporary file beside path (taken as it is) for writing. 0, or
 * PT_EIO or PT_ENOMEM with the reason in why ("not a regular file; ...",
 * "cannot create a temporary file beside it: No such file or
 * directory"); nothing is left behind then. */
PT__HIDDEN int pt__afile_open(pt__afile *a, const char *path, char *why, size_t n);
/* Closes the file and renames it over the target: 0, or PT_EIO with the
 * reason in why (a write that failed on the way, or a failing flush,
 * sync, close or rename; PT_ENOMEM where that failure was ENOMEM), the
 * temporary file removed. */
PT__HIDDEN int pt__afile_commit(pt__afile *a, char *why, size_t n);
/* Closes and removes the temporary file. */
PT__HIDDEN void pt__afile_abort(pt__afile *a);

#endif
