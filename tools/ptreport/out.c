/* What every ptreport command says and writes through: its messages
 * ("ptreport: ..." on stderr) and its output files, written by the
 * library's atomic writer. */
#include "ptreport.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

/* "-" is standard output, as for ptgen: written as it goes, so there no
 * failure can take back what was written. */
static int is_stdout(const char *path)
{
    return strcmp(path, "-") == 0;
}

int pr_out_open(pt__afile *a, const char *path)
{
    char why[320];

    if (is_stdout(path)) {
        *a = (pt__afile){ .f = stdout };
        return 0;
    }
    if (pt__afile_open(a, path, why, sizeof why) != 0)
        return pr_fail("%s: %s", path, why);
    return 0;
}

int pr_out_commit(pt__afile *a, const char *path)
{
    char why[600];

    if (is_stdout(path)) {
        if (fflush(stdout) != 0 || ferror(stdout))
            return pr_fail("standard output: %s", strerror(errno));
        return 0;
    }
    if (pt__afile_commit(a, why, sizeof why) != 0)
        return pr_fail("%s: %s", path, why);
    return 0;
}

void pr_out_abort(pt__afile *a)
{
    if (a->f == stdout && !a->tmp)
        fflush(stdout);
    else
        pt__afile_abort(a);
}

int pr_out_not_an_input(const char *cmd, const char *out, const char *const *in, int n)
{
    struct stat so, si;
    if (is_stdout(out) || stat(out, &so) != 0)
        return 0; /* a new file is no input */
    for (int i = 0; i < n; i++)
        if (stat(in[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
            return pr_fail("%s: -o %s is the input %s itself, which writing it would replace; "
                           "name another file", cmd, out, in[i]);
    return 0;
}

int pr_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("ptreport: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}
