/* Atomic report files. An export is written to a temporary file beside its
 * target and renamed over it only once every byte is known to be on disk,
 * so a reader sees the old file or the new one, never half of either, and
 * a failed export leaves nothing behind.
 *
 * Because the last step is a rename, the target must be a regular file or
 * not exist yet. A device (/dev/full, /dev/stdout), a FIFO or a directory
 * cannot be replaced by a rename, and writing into one directly would give
 * up the guarantee above, so such targets are refused with PT_EIO and a
 * message that says why. A symbolic link is replaced by the new file, not
 * followed, as rename(2) does. */
#include "report/atomic_file.h"

#include "core/errors.h"
#include "report/export_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* mkstemp() creates its file with mode 0600, which would make every report
 * private whatever the user's umask says. The umask cannot be read without
 * changing it (and changing it races with other threads creating files),
 * so read it from /proc where Linux shows it, else assume the common 022. */
static mode_t current_umask(void)
{
    unsigned m = 022;
    char line[128];
    FILE *f = fopen("/proc/self/status", "r");

    if (!f)
        return (mode_t)m;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &m) == 1)
            break;
    fclose(f);
    return (mode_t)(m & 0777);
}

/* The directory entry made by rename() is only durable once the directory
 * itself is synced. Failing here does not undo a completed rename, so the
 * result is deliberately ignored. */
static void sync_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int fd;

    if (!slash) {
        dir = dup_str(".");
    } else if (slash == path) {
        dir = dup_str("/");
    } else {
        dir = malloc((size_t)(slash - path) + 1);
        if (dir) {
            memcpy(dir, path, (size_t)(slash - path));
            dir[slash - path] = '\0';
        }
    }
    if (!dir)
        return;
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

static void afile_clear(pt__afile *a)
{
    free(a->tmp);
    free(a->path);
    a->f = NULL;
    a->tmp = a->path = NULL;
}

int pt__afile_open(pt_timing *t, pt__afile *a, const char *path)
{
    struct stat st;
    mode_t mode;
    int fd, err, rc;

    if (!a)
        return pt__fail(t, PT_EINVAL, "export: NULL file handle");
    a->f = NULL;
    a->tmp = a->path = NULL;
    if (!path || !*path)
        return pt__fail(t, PT_EINVAL, "export: %s path", path ? "empty" : "NULL");
    /* %r, %p and %% (export_path.c); from here on the path is the expanded one. */
    rc = pt__path_expand(t, path, &a->path);
    if (rc)
        return rc;
    path = a->path;

    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            rc = pt__fail(t, PT_EIO,
                          "export to \"%s\": not a regular file; a report is written to a "
                          "temporary file and renamed over its target, which a device, FIFO "
                          "or directory cannot take", path);
            afile_clear(a);
            return rc;
        }
        mode = st.st_mode & 07777;
    } else {
        /* A missing target, or a path that cannot exist (a missing
         * directory, a file used as a directory): mkstemp() below fails
         * for the latter and its errno says which. */
        mode = 0666 & ~current_umask();
    }

    a->tmp = malloc(strlen(path) + sizeof ".XXXXXX");
    if (!a->tmp) {
        rc = pt__fail(t, PT_ENOMEM, "export to \"%s\": out of memory", path);
        afile_clear(a);
        return rc;
    }
    strcpy(a->tmp, path);
    strcat(a->tmp, ".XXXXXX");

    fd = mkstemp(a->tmp);
    if (fd < 0) {
        err = errno;
        rc = pt__fail(t, PT_EIO, "export to \"%s\": cannot create a temporary file beside it: %s",
                      path, strerror(err));
        afile_clear(a);
        return rc;
    }
    if (fchmod(fd, mode) != 0 || !(a->f = fdopen(fd, "w"))) {
        err = errno;
        close(fd);
        unlink(a->tmp);
        rc = pt__fail(t, PT_EIO, "export to \"%s\": cannot open a temporary file: %s", path,
                      strerror(err));
        afile_clear(a);
        return rc;
    }
    return 0;
}

int pt__afile_commit(pt_timing *t, pt__afile *a)
{
    const char *step = NULL;
    int err = 0, fd;

    if (!a || !a->f) {
        if (a)
            afile_clear(a);
        return pt__fail(t, PT_EINVAL, "export: commit without an open file");
    }
    /* The stream's error flag is sticky: a write that failed earlier (and
     * made the writer stop) is caught here, with the errno it left. */
    if (ferror(a->f)) {
        err = errno ? errno : EIO;
        step = "writing";
    } else if (fflush(a->f) != 0) {
        err = errno;
        step = "flushing";
    } else if ((fd = fileno(a->f)) >= 0 && fsync(fd) != 0) {
        err = errno;
        step = "syncing";
    }
    if (fclose(a->f) != 0 && !err) {
        err = errno;
        step = "closing";
    }
    a->f = NULL;
    if (!err && rename(a->tmp, a->path) != 0) {
        err = errno;
        step = "renaming";
    }
    if (err) {
        unlink(a->tmp);
        pt__fail(t, PT_EIO, "export to \"%s\": %s %s failed: %s", a->path, step, a->tmp,
                 strerror(err));
        afile_clear(a);
        return PT_EIO;
    }
    sync_dir_of(a->path);
    afile_clear(a);
    return 0;
}

void pt__afile_abort(pt__afile *a)
{
    if (!a)
        return;
    if (a->f)
        fclose(a->f);
    if (a->tmp)
        unlink(a->tmp);
    afile_clear(a);
}

int pt__afile_finish(pt_timing *t, pt__afile *a, int rc, const char *fn, const char *path,
                     int open_written)
{
    char stack[256];
    size_t open;

    if (rc < 0) {
        pt__afile_abort(a);
        return pt__fail(t, rc, "%s(\"%s\"): %s", fn, path, pt_strerror(rc));
    }
    rc = pt__afile_commit(t, a);
    if (rc)
        return rc;
    open = pt_stats(t).open_count;
    if (!open)
        return 0;
    pt__stack_str(&t->main, stack, sizeof stack);
    return pt__fail(t, PT_EOPEN, "%s(\"%s\"): written %s %zu open section%s (open: %s)", fn, path,
                    open_written ? "with its" : "without its", open, open == 1 ? "" : "s", stack);
}
