/* Helpers shared by the test files: an injected clock that tests move by
 * hand, and temporary paths. */
#ifndef PT_TESTS_COMMON_H
#define PT_TESTS_COMMON_H

#include <pt/pt.h>
#include <stdint.h>

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
        pt_set_clock(t, test_clock_read, c);
    return t;
}

/* Run a section of exactly `ns` nanoseconds on the manual clock. */
#define TEST_SPAN(t, c, title, ns, ...)                                  \
    do {                                                                 \
        pt_start((t), (title));                                          \
        (c)->now += (ns);                                                \
        pt_stop((t), (title), __VA_ARGS__);                              \
    } while (0)

#endif
