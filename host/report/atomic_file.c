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
 * followed, as rename(2) does.
 *
 * The library's exports (export_file.c) and ptreport's outputs both write
 * this way; each says a failure in its own words around the reason given
 * here. */
#include "report/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        dir = strdup(".");
    } else if (slash == path) {
        dir = strdup("/");
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

/* The temporary name beside path, malloc'ed; NULL without memory. */
static char *tmp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0, len = strlen(path);
    char *tmp = malloc(len + sizeof ".XXXXXX" + sizeof ".pt");

    if (!tmp)
        return NULL;
    if (len - dir + sizeof ".XXXXXX" - 1 <= NAME_MAX) {
        memcpy(tmp, path, len);
        memcpy(tmp + len, ".XXXXXX", sizeof ".XXXXXX");
    } else {
        /* The name beside it would pass NAME_MAX: a short one in the same
         * directory, so the rename stays within one file system. */
        memcpy(tmp, path, dir);
        memcpy(tmp + dir, ".pt.XXXXXX", sizeof ".pt.XXXXXX");
    }
    return tmp;
}

static void afile_clear(pt__afile *a)
{
    free(a->tmp);
    free(a->path);
    a->f = NULL;
    a->tmp = a->path = NULL;
}

/* The reason for a failure into why, as printf formats it; returns code. */
static int say(char *why, size_t n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int say(char *why, size_t n, int code, const char *fmt, ...)
{
    va_list ap;

    if (why && n) {
        va_start(ap, fmt);
        vsnprintf(why, n, fmt, ap);
        va_end(ap);
    }
    return code;
}

int pt__afile_open(pt__afile *a, const char *path, char *why, size_t n)
{
    struct stat st;
    mode_t mode;
    int fd, err, rc;

    a->f = NULL;
    a->tmp = NULL;
    if (!*path)
        return say(why, n, PT_EIO, "an empty file name");
    a->path = strdup(path);
    if (!a->path)
        return say(why, n, PT_ENOMEM, "out of memory");

    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            rc = say(why, n, PT_EIO,
                     "not a regular file; a report is written to a temporary file and renamed "
                     "over its target, which a device, FIFO or directory cannot take");
            afile_clear(a);
            return rc;
        }
        /* Nobody may write it: the rename would replace it all the same
         * (even when not root), so it is refused as an open would be. */
        if ((st.st_mode & 0222) == 0) {
            rc = say(why, n, PT_EIO, "a read-only file (mode %04o); make it writable to replace it",
                     (unsigned)(st.st_mode & 07777));
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

    a->tmp = tmp_name(path);
    if (!a->tmp) {
        afile_clear(a);
        return say(why, n, PT_ENOMEM, "out of memory");
    }

    fd = mkstemp(a->tmp);
    if (fd < 0) {
        err = errno;
        afile_clear(a);
        return say(why, n, PT_EIO, "cannot create a temporary file beside it: %s", strerror(err));
    }
    if (fchmod(fd, mode) != 0 || !(a->f = fdopen(fd, "w"))) {
        err = errno;
        close(fd);
        unlink(a->tmp);
        afile_clear(a);
        return say(why, n, PT_EIO, "cannot open a temporary file: %s", strerror(err));
    }
    return 0;
}

int pt__afile_commit(pt__afile *a, char *why, size_t n)
{
    const char *step = NULL;
    int err = 0, fd;

    if (!a->f) {
        afile_clear(a);
        return say(why, n, PT_EINVAL, "commit without an open file");
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
        /* Memory that ran out under a write (stdio's buffer) is said as
         * such, not as a failing disk. */
        int code = err == ENOMEM ? PT_ENOMEM : PT_EIO;
        unlink(a->tmp);
        say(why, n, code, "%s %s failed: %s", step, a->tmp, strerror(err));
        afile_clear(a);
        return code;
    }
    sync_dir_of(a->path);
    afile_clear(a);
    return 0;
}

void pt__afile_abort(pt__afile *a)
{
    if (a->f)
        fclose(a->f);
    if (a->tmp)
        unlink(a->tmp);
    afile_clear(a);
}
