/* Export paths as templates. Every export opens its file through
 * pt__export_open() (export_file.c), which expands these conversions first, so a program
 * run as many processes (MPI ranks, Slurm tasks) writes one file per
 * process from one line of code:
 *
 *   %r  the process's rank: OMPI_COMM_WORLD_RANK (Open MPI), else PMI_RANK
 *       (MPICH, Intel MPI), else SLURM_PROCID (srun); the first of them
 *       that is set and not empty decides. It must then be a non-negative
 *       decimal integer, or the export fails with PT_EINVAL: a malformed
 *       rank would otherwise make every process write the same file. With
 *       none of them set the rank is 0, so a single process run by hand
 *       writes what rank 0 of a parallel run would.
 *   %p  the process id
 *   %n  the timing's name as a file name: its first 64 bytes, each one
 *       outside [A-Za-z0-9._-] made '_' ("ptkit" for an empty name), so
 *       that PT_OUTPUT's one setting gives every timing its own files
 *   %%  a literal %
 *
 * Any other character after a %, or a % ending the path, is refused with
 * PT_EINVAL, so that a later conversion never changes the meaning of a
 * path that works today. The variables are read only when the path holds
 * a %r. */
#include "report/export_path.h"

#include "core/errors.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };

/* The rank as decimal text into buf (at least 12 bytes). 0, or PT_EINVAL
 * described on t for a malformed value. */
static int rank_text(pt_timing *t, const char *path, char *buf)
{
    for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
        const char *v = getenv(rank_vars[i]);
        long long r = 0;
        const char *p;

        if (!v || !*v)
            continue;
        for (p = v; *p >= '0' && *p <= '9' && r <= INT_MAX; p++)
            r = r * 10 + (*p - '0');
        if (*p || r > INT_MAX)
            return pt__fail(t, PT_EINVAL,
                            "export path \"%s\": %s=\"%.64s\" is not a rank (a non-negative "
                            "decimal integer at most %d)", path, rank_vars[i], v, INT_MAX);
        snprintf(buf, 12, "%d", (int)r);
        return 0;
    }
    strcpy(buf, "0");
    return 0;
}

/* The timing's name as a file name, into buf (at least 65 bytes). */
static void name_text(const pt_timing *t, char *buf)
{
    size_t i;
    for (i = 0; i < 64 && t->name[i]; i++) {
        char c = t->name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        buf[i] = ok ? c : '_';
    }
    buf[i] = '\0';
    if (i == 0)
        strcpy(buf, "ptkit");
}

int pt__path_expand(pt_timing *t, const char *path, char **out)
{
    char rank[12] = "", pid[24] = "", name[65] = "";
    size_t n = 0, i;
    char *o;
    int rc;

    *out = NULL;
    /* First pass: check every conversion and measure. */
    for (i = 0; path[i]; i++) {
        if (path[i] != '%') {
            n++;
            continue;
        }
        switch (path[++i]) {
        case '%':
            n++;
            break;
        case 'r':
            if (!*rank && (rc = rank_text(t, path, rank)) < 0)
                return rc;
            n += strlen(rank);
            break;
        case 'p':
            if (!*pid)
                snprintf(pid, sizeof pid, "%ld", (long)getpid());
            n += strlen(pid);
            break;
        case 'n':
            if (!*name)
                name_text(t, name);
            n += strlen(name);
            break;
        case '\0':
            return pt__fail(t, PT_EINVAL,
                            "export path \"%s\" ends with a lone %%: write %%%% for a %% "
                            "(%%r is the rank, %%p the process id, %%n the timing's name)", path);
        default:
            return pt__fail(t, PT_EINVAL,
                            "export path \"%s\": unknown conversion %%%c at offset %zu: write "
                            "%%%% for a %% (%%r is the rank, %%p the process id, %%n the "
                            "timing's name)",
                            path, path[i], i - 1);
        }
    }
    o = malloc(n + 1);
    if (!o)
        return pt__fail(t, PT_ENOMEM, "export to \"%s\": out of memory", path);
    *out = o;
    for (i = 0; path[i]; i++) {
        const char *s;
        if (path[i] != '%') {
            *o++ = path[i];
            continue;
        }
        i++;
        s = path[i] == 'r' ? rank : path[i] == 'p' ? pid : path[i] == 'n' ? name : "%";
        memcpy(o, s, strlen(s));
        o += strlen(s);
    }
    *o = '\0';
    return 0;
}
