/* An export's file (export_file.c): its path expanded, written
 * atomically, its outcome counted on the timing. Not installed. */
#ifndef PT_REPORT_EXPORT_FILE_H
#define PT_REPORT_EXPORT_FILE_H

#include "report/atomic_file.h"

/* An export named fn from start to end: its file opened at path, written
 * by write(t, f, ctx), which returns 0 or an error (a failed write is left
 * on f's error flag), then ended as pt__export_finish() does. */
PT__HIDDEN int pt__export(pt_timing *t, const char *path, const char *fn, int open_written,
                          int (*write)(pt_timing *t, FILE *f, void *ctx), void *ctx);
/* Opens an export's file: path (%r, %p and %% expanded, export_path.c)
 * through a temporary file. 0, or the error counted and described on t
 * as "export to \"PATH\": why". */
PT__HIDDEN int pt__export_open(pt_timing *t, pt__afile *a, const char *path);
/* Ends an export named fn: a negative rc abandons the file and is counted;
 * else the file is committed, and sections still open are counted and
 * returned as PT_EOPEN (the file holds them when open_written, else not). */
PT__HIDDEN int pt__export_finish(pt_timing *t, pt__afile *a, int rc, const char *fn,
                                 const char *path, int open_written);

#endif
