/* ptreport: reads runs saved by pt_export_json() (schema 1).
 *
 *   ptreport show RUN.json [--sort time|flops|name|order] [--depth N] [--percentages]
 *   ptreport diff BASE.json NEW.json [--threshold 5%]
 *   ptreport merge A.json B.json ... -o ALL.json
 *   ptreport convert RUN.json --to csv|html|trace -o OUT
 *
 * Exit status: 0 success; 1 when diff finds a regression; 2 for a usage
 * error or an input that cannot be read (the message says where). */
#include "ptreport.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: ptreport show RUN.json [--sort time|flops|name|order] [--depth N] [--percentages]\n"
    "       ptreport diff BASE.json NEW.json [--threshold 5%]\n"
    "       ptreport merge A.json B.json ... -o ALL.json\n"
    "       ptreport convert RUN.json --to csv|html|trace -o OUT\n"
    "\n"
    "Reads runs saved by pt_export_json() (schema 1). Exit status: 0; 1 when diff\n"
    "finds a regression; 2 for a usage error or an unreadable input.\n";

int main(int argc, char **argv)
{
    if (argc < 2)
        return fputs(usage, stderr), 2;
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
        return fputs(usage, stdout), 0;
    if (strcmp(argv[1], "show") == 0)
        return pr_show(argc - 2, argv + 2);
    if (strcmp(argv[1], "diff") == 0)
        return pr_diff(argc - 2, argv + 2);
    if (strcmp(argv[1], "merge") == 0)
        return pr_merge(argc - 2, argv + 2);
    if (strcmp(argv[1], "convert") == 0)
        return pr_convert(argc - 2, argv + 2);
    fprintf(stderr, "ptreport: unknown command '%s'\n\n%s", argv[1], usage);
    return 2;
}

/* ---- output ---------------------------------------------------------- */

int pr_out_open(pr_out *o, const char *path)
{
    size_t n = strlen(path);
    int fd;

    memset(o, 0, sizeof *o);
    o->final = strdup(path);
    o->tmp = malloc(n + sizeof ".tmp.XXXXXX");
    if (!o->final || !o->tmp) {
        pr_out_abort(o);
        return -1;
    }
    memcpy(o->tmp, path, n);
    memcpy(o->tmp + n, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    fd = mkstemp(o->tmp);
    if (fd < 0) {
        pr_fail("%s: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        pr_out_abort(o);
        return -1;
    }
    /* mkstemp makes the file 0600; the result should get the mode any
     * new file gets here, as the library's exports do. */
    {
        mode_t mask = umask(0);
        umask(mask);
        if (fchmod(fd, 0666 & ~mask) != 0) {
            close(fd);
            pr_out_abort(o);
            return -1;
        }
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        pr_out_abort(o);
        return -1;
    }
    return 0;
}

void pr_out_abort(pr_out *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->final);
    memset(o, 0, sizeof *o);
}

int pr_out_commit(pr_out *o)
{
    int bad = ferror(o->f) != 0;
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (!bad && rename(o->tmp, o->final) == 0) {
        free(o->tmp);
        free(o->final);
        memset(o, 0, sizeof *o);
        return 0;
    }
    pr_fail("%s: %s", o->final, strerror(errno ? errno : EIO));
    pr_out_abort(o);
    return -1;
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
