/* What the libFuzzer targets that drive a timing share: a clock moved by
 * hand, a sink for error lines, the invariant check (a broken invariant
 * aborts, which libFuzzer reports as a crash) and the round trip every
 * packed tree must make. Define FUZZ_NAME, the target's name for the
 * messages, before including it. */
#ifndef PT_TEST_FUZZ_COMMON_H
#define PT_TEST_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pt/pt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int64_t now_ns;

static int64_t clock_read(void *ctx)
{
    (void)ctx;
    return now_ns;
}

static void quiet(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, FUZZ_NAME ": broken invariant: %s\n", what);
        abort();
    }
}

/* Bytes pt_pack() wrote merge into an empty timing (pack.c's reader
 * refuses figures that disagree, so this holds every tree they came from
 * to figures that agree) and pack to the same bytes again. */
static void check_round_trip(const void *packed, size_t n)
{
    pt_timing *copy = pt_create("copy", PT_CPU);
    void *again;
    size_t nagain;
    int rc;

    check(copy != NULL, "pt_create");
    pt_error_fn_set(copy, quiet, NULL);
    rc = pt_unpack_merge(copy, packed, n);
    if (rc != 0)
        fprintf(stderr, FUZZ_NAME ": %s\n", pt_last_error(copy));
    check(rc == 0, "a packed tree merges");
    check(pt_pack(copy, &again, &nagain) == 0, "the copy packs");
    check(nagain == n && memcmp(again, packed, n) == 0, "the copy packs to the same bytes");
    free(again);
    pt_destroy(copy);
}

#endif
