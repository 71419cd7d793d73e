/* What every ptreport command says and writes through: its messages
 * ("ptreport: ..." on stderr) and its output files, written by the
 * library's atomic writer. */
#include "ptreport.h"

#include <stdarg.h>

int pr_out_open(pt__afile *a, const char *path)
{
    char why[320];

    if (pt__afile_open(a, path, why, sizeof why) != 0)
        return pr_fail("%s: %s", path, why);
    return 0;
}

int pr_out_commit(pt__afile *a, const char *path)
{
    char why[600];

    if (pt__afile_commit(a, why, sizeof why) != 0)
        return pr_fail("%s: %s", path, why);
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
