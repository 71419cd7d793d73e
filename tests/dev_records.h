/* Helpers of the host-mode suites of pt_dev.h (tests/dev_header.c without
 * trace stores, tests/dev_trace.c with them): a buffer laid out as the host
 * library lays it out, made here so the tests stand on the header alone,
 * and accessors for its records. Include after <pt/pt_dev.h>. */
#ifndef PT_TESTS_DEV_RECORDS_H
#define PT_TESTS_DEV_RECORDS_H

#include <criterion/criterion.h>
#include <stdlib.h>

static inline pt_dev_buf make_buf(int nslots, int nphases, int mode, int trace_cap)
{
    long long words = PT_DEV_BUF_WORDS(nslots, nphases, trace_cap);
    long long *d = calloc((size_t)words, sizeof *d);
    pt_dev_buf b = { d, nslots, nphases, trace_cap, mode };
    cr_assert_not_null(d, "calloc of %lld words failed", words);
    d[PT_DEV_H_MAGIC] = PT_DEV_MAGIC;
    d[PT_DEV_H_LAYOUT] = PT_DEV_LAYOUT;
    d[PT_DEV_H_NSLOTS] = nslots;
    d[PT_DEV_H_NPHASES] = nphases;
    d[PT_DEV_H_TRACE_CAP] = trace_cap;
    d[PT_DEV_H_MODE] = mode;
    return b;
}

static inline long long buf_words(pt_dev_buf b)
{
    return PT_DEV_BUF_WORDS(b.nslots, b.nphases, b.trace_cap);
}

static inline long long *rec(pt_dev_buf b, int slot)
{
    return b.data + PT_DEV_HDR + (long long)slot * PT_DEV_SLOT_WORDS(b.nphases, b.trace_cap);
}

static inline long long cycles(pt_dev_buf b, int slot, int phase)
{
    return rec(b, slot)[PT_DEV_SLOT_HDR + 2 * phase];
}

static inline long long hits(pt_dev_buf b, int slot, int phase)
{
    return rec(b, slot)[PT_DEV_SLOT_HDR + 2 * phase + 1];
}

static inline long long *events(pt_dev_buf b, int slot)
{
    return rec(b, slot) + PT_DEV_SLOT_HDR + 2 * b.nphases;
}

/* A copy of the whole buffer, to compare with afterwards. */
static inline long long *snapshot(pt_dev_buf b)
{
    long long words = buf_words(b);
    long long *copy = malloc((size_t)words * sizeof *copy);
    cr_assert_not_null(copy);
    memcpy(copy, b.data, (size_t)words * sizeof *copy);
    return copy;
}

/* Spins for at least ns nanoseconds of CLOCK_MONOTONIC. */
static inline void spin_ns(long long ns)
{
    long long t0 = pt_dev_host_ns();
    while (pt_dev_host_ns() - t0 < ns)
        ;
}

/* The header is the same on every finished record. */
static inline void assert_header(pt_dev_buf b, int slot)
{
    long long *r = rec(b, slot);
    cr_assert_eq(r[PT_DEV_S_DONE], 1, "slot %d: DONE is %lld", slot, r[PT_DEV_S_DONE]);
    cr_assert_gt(r[PT_DEV_S_CLK1], r[PT_DEV_S_CLK0], "slot %d: CLK1 %lld not after CLK0 %lld",
                 slot, r[PT_DEV_S_CLK1], r[PT_DEV_S_CLK0]);
    cr_assert_geq(r[PT_DEV_S_GT1], r[PT_DEV_S_GT0], "slot %d: GT1 %lld before GT0 %lld", slot,
                  r[PT_DEV_S_GT1], r[PT_DEV_S_GT0]);
    cr_assert_gt(r[PT_DEV_S_GT0], 0, "slot %d: GT0 is %lld", slot, r[PT_DEV_S_GT0]);
    cr_assert_geq(r[PT_DEV_S_SMID], -1, "slot %d: the CPU is %lld", slot, r[PT_DEV_S_SMID]);
    cr_assert_eq(r[PT_DEV_S_SMID1], r[PT_DEV_S_SMID], "slot %d: the CPU at END is %lld, not %lld",
                 slot, r[PT_DEV_S_SMID1], r[PT_DEV_S_SMID]);
}

#endif
