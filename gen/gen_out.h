/* Output helpers shared by the build tools (ptgen, ptembed): a growable
 * text buffer, and writing it to a file through a temporary and a rename,
 * so a failed run never leaves a partial file behind for make to trust. */
#ifndef PT_GEN_OUT_H
#define PT_GEN_OUT_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct gen_buf {
    char *p;
    size_t len, cap;
    int oom; /* set once an allocation failed; the text is then incomplete */
} gen_buf;

static void gen_putn(gen_buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        char *p;
        while (cap < b->len + n + 1)
            cap *= 2;
        p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void gen_puts(gen_buf *b, const char *s)
{
    gen_putn(b, s, strlen(s));
}

static void gen_printf(gen_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gen_printf(gen_buf *b, const char *fmt, ...)
{
    char tmp[512], *big;
    va_list ap, again;
    int n;
    va_start(ap, fmt);
    va_copy(again, ap);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1; /* an encoding error: the text would be incomplete */
    } else if ((size_t)n < sizeof tmp) {
        gen_putn(b, tmp, (size_t)n);
    } else if ((big = malloc((size_t)n + 1)) == NULL) {
        b->oom = 1;
    } else {
        vsnprintf(big, (size_t)n + 1, fmt, again);
        gen_putn(b, big, (size_t)n);
        free(big);
    }
    va_end(again);
}

/* Writes b to path ("-": stdout) via path.tmp.XXXXXX and rename(2).
 * Returns 0, or -1 after describing the failure on stderr. */
static int gen_write(const gen_buf *b, const char *prog, const char *path)
{
    struct stat st;
    const char *slash;
    char *tmp;
    size_t n, dir;
    int fd;
    mode_t mask;
    FILE *f;

    if (b->oom) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return -1;
    }
    if (strcmp(path, "-") == 0) {
        if (fwrite(b->p, 1, b->len, stdout) != b->len || fflush(stdout) != 0) {
            fprintf(stderr, "%s: writing stdout: %s\n", prog, strerror(errno));
            return -1;
        }
        return 0;
    }
    /* The rename replaces a regular file only: a device or FIFO (as root,
     * -o /dev/null) would become a plain file, and a read-only file is
     * not to be replaced. */
    if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || (st.st_mode & 0222) == 0)) {
        fprintf(stderr, "%s: %s: %s\n", prog, path,
                !S_ISREG(st.st_mode) ? "not a regular file; the output is written to a temporary "
                                       "file and renamed over it, which a device, FIFO or "
                                       "directory cannot take"
                                     : "a read-only file; make it writable to replace it");
        return -1;
    }
    slash = strrchr(path, '/');
    dir = slash ? (size_t)(slash - path) + 1 : 0;
    n = strlen(path) + sizeof ".tmp.XXXXXX";
    tmp = malloc(n);
    if (!tmp) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return -1;
    }
    /* Beside the target, under a short name where its own plus the suffix
     * would pass NAME_MAX. */
    if (strlen(path + dir) + sizeof ".tmp.XXXXXX" - 1 <= NAME_MAX)
        snprintf(tmp, n, "%s.tmp.XXXXXX", path);
    else
        snprintf(tmp, n, "%.*s.tmp.XXXXXX", (int)dir, path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes the file 0600; give it the mode a plain fopen would. */
    mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    f = fdopen(fd, "w");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    if (fwrite(b->p, 1, b->len, f) != b->len || fflush(f) != 0 || ferror(f)) {
        fprintf(stderr, "%s: writing %s: %s\n", prog, tmp, strerror(errno));
        fclose(f);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* Reads a whole file ("-": stdin). Returns a NUL-terminated copy (which may
 * hold NUL bytes before *len), or NULL after describing the failure. */
/* A whole text file (or stdin for "-"), NUL-terminated, at most max
 * bytes: it stops at the first NUL byte, which no text these tools read
 * holds, and past max, each said with the file's name; so an endless
 * input (/dev/zero, a device, a huge sparse file) costs a chunk, never
 * memory without bound. */
static char *gen_read(const char *prog, const char *path, size_t max, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    gen_buf b = { 0 };
    char chunk[8192];
    size_t n;

    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return NULL;
    }
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        const char *nul = memchr(chunk, '\0', n);
        if (nul || b.len + n > max) {
            if (nul) {
                size_t line = 1;
                for (size_t i = 0; i < b.len; i++)
                    line += b.p[i] == '\n';
                for (const char *c = chunk; c < nul; c++)
                    line += *c == '\n';
                fprintf(stderr, "%s:%zu: NUL byte: not a text file\n",
                        strcmp(path, "-") == 0 ? "<stdin>" : path, line);
            } else

                fprintf(stderr, "%s: %s: more than %zu bytes, the most it reads\n", prog, path, max);
            if (f != stdin)
                fclose(f);
            free(b.p);
            return NULL;
        }
        gen_putn(&b, chunk, n);
    }
    if (ferror(f) || b.oom) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, b.oom ? "out of memory" : strerror(errno));
        if (f != stdin)
            fclose(f);
        free(b.p);
        return NULL;
    }
    if (f != stdin)
        fclose(f);
    if (!b.p) {
        b.p = malloc(1);
        if (!b.p) {
            fprintf(stderr, "%s: out of memory\n", prog);
            return NULL;
        }
        b.p[0] = '\0';
    }
    *len = b.len;
    return b.p;
}

#endif
