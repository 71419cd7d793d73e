/* Helpers shared by the test files: an injected clock that tests move by
 * hand, and temporary paths. */
#ifndef PT_TESTS_COMMON_H
#define PT_TESTS_COMMON_H

#include <pt/pt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A manual clock: tests set `now` (ns) and ptkit reads it. */
typedef struct test_clock {
    int64_t now;
} test_clock;

static inline int64_t test_clock_read(void *ctx)
{
    return ((test_clock *)ctx)->now;
}

/* A timing on a manual clock starting at 0. */
static inline pt_timing *test_timing(test_clock *c, const char *name, unsigned flags)
{
    pt_timing *t = pt_create(name, flags);
    c->now = 0;
    if (t)
        pt_clock_set(t, test_clock_read, c);
    return t;
}

/* pt_run_get() as a value, for assertions on one figure. */
static inline pt_run_stats run_stats(pt_timing *t)
{
    pt_run_stats r;
    pt_run_get(t, &r);
    return r;
}

/* Run a section of exactly `ns` nanoseconds on the manual clock. */
#define TEST_SPAN(t, c, title, ns, ...)                                  \
    do {                                                                 \
        pt_start((t), (title));                                          \
        (c)->now += (ns);                                                \
        pt_stop((t), (title), __VA_ARGS__);                              \
    } while (0)

/* A report gathered by pt_log_fn() into one string, a line per row. */
typedef struct test_text {
    char *s;
    size_t n;
} test_text;

static inline void test_text_line(void *ctx, const char *line)
{
    test_text *b = (test_text *)ctx;
    size_t l = strlen(line);
    char *grown = (char *)realloc(b->s, b->n + l + 2);
    if (!grown)
        return;
    b->s = grown;
    memcpy(b->s + b->n, line, l);
    b->n += l;
    b->s[b->n++] = '\n';
    b->s[b->n] = '\0';
}

/* A whole file as a NUL-terminated string (malloc'ed), or NULL when it
 * cannot be opened or read. */
static inline char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) != NULL) {
        if (fread(text, 1, (size_t)n, f) == (size_t)n) {
            text[n] = '\0';
        } else {
            free(text);
            text = NULL;
        }
    }
    fclose(f);
    return text;
}

/* text written whole as the file at path: 0, or -1 (errno says why). */
static inline int test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    int rc;

    if (!f)
        return -1;
    rc = fputs(text, f) < 0 ? -1 : 0;
    return fclose(f) != 0 ? -1 : rc;
}

/* d/name in one of 8 buffers used in turn, so the few paths one call
 * takes stay valid together. */
static inline const char *test_path(const char *d, const char *name)
{
    static char buf[8][1024];
    static unsigned next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", d, name);
    return b;
}

#endif
