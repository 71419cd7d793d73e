/* An export's file: every pt_export_*() opens its path through here, so
 * each expands %r, %p and %% the same way, writes atomically, and counts
 * and describes its failure, or the sections still open, the same way. */
#include "report/export_file.h"

#include "core/errors.h"
#include "core/gate.h"
#include "core/threads.h"
#include "report/export_path.h"

#include <stdlib.h>
#include <string.h>

int pt__export_open(pt_timing *t, pt__afile *a, const char *path)
{
    char why[320], *expanded;
    int rc;

    a->f = NULL;
    a->tmp = a->path = NULL;
    if (!path || !*path)
        return pt__fail(t, PT_EINVAL, "export: %s path", path ? "empty" : "NULL");
    rc = pt__path_expand(t, path, &expanded);
    if (rc)
        return rc;
    rc = pt__afile_open(a, expanded, why, sizeof why);
    if (rc)
        pt__fail(t, rc, "export to \"%s\": %s", expanded, why);
    free(expanded);
    return rc;
}

int pt__export(pt_timing *t, const char *path, const char *fn, int open_written,
               int (*write)(pt_timing *t, FILE *f, void *ctx), void *ctx)
{
    pt__afile a;
    int rc = pt__refused_in_callback(t, PT__CB_LINE, fn);

    if (rc || (rc = pt__export_open(t, &a, path)) != 0)
        return rc;
    /* Every thread's tree holds still while the export reads it. */
    pt__read_begin(t);
    rc = write(t, a.f, ctx);
    rc = pt__export_finish(t, &a, rc, fn, path, open_written);
    pt__read_end(t);
    return rc;
}

int pt__export_finish(pt_timing *t, pt__afile *a, int rc, const char *fn, const char *path,
                      int open_written)
{
    char why[600], stack[256], *dest;
    pt_run_stats rs;

    /* A write that failed (a full disk, a file size limit) is the
     * commit's to say, with the reason the stream kept; other failures
     * (memory) are said here. */
    if (rc < 0 && !(rc == PT_EIO && a->f && ferror(a->f))) {
        pt__afile_abort(a);
        return pt__fail(t, rc, "%s(\"%s\"): %s", fn, path, pt_strerror(rc));
    }
    /* The expanded path, for the message: the commit frees its own. */
    dest = strdup(a->path ? a->path : path);
    rc = pt__afile_commit(a, why, sizeof why);
    if (rc)
        pt__fail(t, rc, "export to \"%s\": %s", dest ? dest : path, why);
    free(dest);
    if (rc)
        return rc;
    pt_run_get(t, &rs);
    if (!rs.open_count)
        return 0;
    pt__open_str(t, stack, sizeof stack);
    return pt__fail(t, PT_EOPEN, "%s(\"%s\"): written %s %zu open section%s (open: %s)", fn, path,
                    open_written ? "with its" : "without its", rs.open_count,
                    rs.open_count == 1 ? "" : "s", stack);
}
