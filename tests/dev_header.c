/* pt_dev.h in host mode: the phase macros on CPU loops, writing records into
 * a buffer in host memory exactly as pt_dev_buf.h lays them out. Real clocks
 * only promise ordering and lower bounds, so that is what is asserted. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pt/pt_dev.h>

#include "common.h"

#include "kernels/dev_disabled.h"

TestSuite(dev_header);

/* A buffer as the host library lays it out, made here so these tests stand
 * on the header alone. */
static pt_dev_buf make_buf(int nslots, int nphases, int mode, int trace_cap)
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

static long long buf_words(pt_dev_buf b)
{
    return PT_DEV_BUF_WORDS(b.nslots, b.nphases, b.trace_cap);
}

static long long *rec(pt_dev_buf b, int slot)
{
    return b.data + PT_DEV_HDR + (long long)slot * PT_DEV_SLOT_WORDS(b.nphases, b.trace_cap);
}

static long long cycles(pt_dev_buf b, int slot, int phase)
{
    return rec(b, slot)[PT_DEV_SLOT_HDR + 2 * phase];
}

static long long hits(pt_dev_buf b, int slot, int phase)
{
    return rec(b, slot)[PT_DEV_SLOT_HDR + 2 * phase + 1];
}

static long long *events(pt_dev_buf b, int slot)
{
    return rec(b, slot) + PT_DEV_SLOT_HDR + 2 * b.nphases;
}

/* Spins for at least ns nanoseconds of CLOCK_MONOTONIC. */
static void spin_ns(long long ns)
{
    long long t0 = pt_dev_host_ns();
    while (pt_dev_host_ns() - t0 < ns)
        ;
}

/* The header is the same on every finished record. */
static void assert_header(pt_dev_buf b, int slot)
{
    long long *r = rec(b, slot);
    cr_assert_eq(r[PT_DEV_S_DONE], 1, "slot %d: DONE is %lld", slot, r[PT_DEV_S_DONE]);
    cr_assert_gt(r[PT_DEV_S_CLK1], r[PT_DEV_S_CLK0], "slot %d: CLK1 %lld not after CLK0 %lld",
                 slot, r[PT_DEV_S_CLK1], r[PT_DEV_S_CLK0]);
    cr_assert_geq(r[PT_DEV_S_GT1], r[PT_DEV_S_GT0], "slot %d: GT1 %lld before GT0 %lld", slot,
                  r[PT_DEV_S_GT1], r[PT_DEV_S_GT0]);
    cr_assert_gt(r[PT_DEV_S_GT0], 0, "slot %d: GT0 is %lld", slot, r[PT_DEV_S_GT0]);
    cr_assert_geq(r[PT_DEV_S_SMID], -1, "slot %d: the CPU is %lld", slot, r[PT_DEV_S_SMID]);
    cr_assert_geq(r[PT_DEV_S_SMID1], -1, "slot %d: the CPU at END is %lld", slot,
                  r[PT_DEV_S_SMID1]);
}

Test(dev_header, host_clocks_move_forward)
{
    long long a = pt_dev_host_ns();
    spin_ns(1000);
    long long b = pt_dev_host_ns();
    int cpu = pt_dev_host_cpu();
    cr_assert_geq(b - a, 1000, "pt_dev_host_ns advanced %lld ns over a 1 us spin", b - a);
    cr_assert_geq(cpu, -1, "pt_dev_host_cpu() = %d", cpu);
}

Test(dev_header, phases_of_known_length_in_several_slots)
{
    enum { NSLOTS = 3, MS = 1000000 };
    pt_dev_buf b = make_buf(NSLOTS, 2, PT_DEV_MODE_AGGREGATE, 0);
    for (int s = 0; s < NSLOTS; s++) {
        PT_DEV_BEGIN_AT(b, s);
        spin_ns(2 * MS);
        PT_DEV_MARK(0);
        spin_ns(1 * MS);
        PT_DEV_MARK(1);
        PT_DEV_END(b);
    }
    for (int s = 0; s < NSLOTS; s++) {
        long long *r = rec(b, s);
        long long clk = r[PT_DEV_S_CLK1] - r[PT_DEV_S_CLK0];
        long long gt = r[PT_DEV_S_GT1] - r[PT_DEV_S_GT0];
        /* The slot's own rate turns its cycles into nanoseconds, as the
         * fold does; the TSC and CLOCK_MONOTONIC read a few ns apart. */
        double ns_per_cycle = (double)gt / (double)clk;
        double ns0 = (double)cycles(b, s, 0) * ns_per_cycle;
        double ns1 = (double)cycles(b, s, 1) * ns_per_cycle;

        assert_header(b, s);
        cr_assert_eq(hits(b, s, 0), 1, "slot %d: phase 0 hits %lld", s, hits(b, s, 0));
        cr_assert_eq(hits(b, s, 1), 1, "slot %d: phase 1 hits %lld", s, hits(b, s, 1));
        cr_assert_geq(gt, 3 * MS, "slot %d: GT span %lld ns for 3 ms of spinning", s, gt);
        cr_assert_geq(ns0, 0.95 * 2 * MS, "slot %d: phase 0 %.0f ns, spun 2 ms", s, ns0);
        cr_assert_geq(ns1, 0.95 * 1 * MS, "slot %d: phase 1 %.0f ns, spun 1 ms", s, ns1);
        cr_assert_leq(cycles(b, s, 0) + cycles(b, s, 1), clk,
                      "slot %d: phases %lld + %lld cycles exceed the slot's span %lld", s,
                      cycles(b, s, 0), cycles(b, s, 1), clk);
        cr_assert_eq(r[PT_DEV_S_BAD_PHASE], 0, "slot %d: %lld bad phases", s,
                     r[PT_DEV_S_BAD_PHASE]);
        cr_assert_eq(r[PT_DEV_S_NEVENTS] + r[PT_DEV_S_DROPPED], 0,
                     "slot %d: trace figures in aggregate mode", s);
        if (s > 0)
            cr_assert_geq(r[PT_DEV_S_GT0], rec(b, s - 1)[PT_DEV_S_GT1],
                          "slot %d began before slot %d ended", s, s - 1);
    }
    cr_assert_eq(b.data[PT_DEV_H_BAD_SLOT], 0, "bad slots: %lld", b.data[PT_DEV_H_BAD_SLOT]);
    free(b.data);
}

Test(dev_header, hits_accumulate_and_cycles_add_up)
{
    pt_dev_buf b = make_buf(1, 3, PT_DEV_MODE_AGGREGATE, 0);
    volatile double x = 1.0;
    PT_DEV_BEGIN(b); /* slot 0 on the host */
    for (int i = 0; i < 1000; i++) {
        x = x * 1.000001 + 0.5;
        PT_DEV_MARK(0);
        x = x / 1.5;
        PT_DEV_MARK(2);
    }
    PT_DEV_END(b);

    long long *r = rec(b, 0);
    assert_header(b, 0);
    cr_assert_eq(hits(b, 0, 0), 1000, "phase 0 hits %lld", hits(b, 0, 0));
    cr_assert_eq(hits(b, 0, 1), 0, "phase 1 was never marked, hits %lld", hits(b, 0, 1));
    cr_assert_eq(cycles(b, 0, 1), 0, "phase 1 was never marked, cycles %lld", cycles(b, 0, 1));
    cr_assert_eq(hits(b, 0, 2), 1000, "phase 2 hits %lld", hits(b, 0, 2));
    cr_assert_gt(cycles(b, 0, 0), 0, "phase 0 cycles %lld", cycles(b, 0, 0));
    cr_assert_leq(cycles(b, 0, 0) + cycles(b, 0, 2), r[PT_DEV_S_CLK1] - r[PT_DEV_S_CLK0],
                  "the phases hold more cycles than the span");
    free(b.data);
}

Test(dev_header, bad_phases_are_counted_never_written)
{
    /* Two phases, so a mark of phase 5 (below PT_DEV_MAX_PHASES) would land
     * in slot 1's record if it were written. */
    pt_dev_buf b = make_buf(2, 2, PT_DEV_MODE_AGGREGATE, 0);
    volatile int runtime_bad = 7, runtime_ok = 1;
    PT_DEV_BEGIN_AT(b, 0);
    PT_DEV_MARK(0);
    PT_DEV_MARK(-1);
    PT_DEV_MARK(5);
    PT_DEV_MARK(5);
    PT_DEV_MARK(PT_DEV_MAX_PHASES);
    PT_DEV_MARK(runtime_bad);
    PT_DEV_MARK(runtime_ok);
    PT_DEV_END(b);

    long long *r = rec(b, 0);
    assert_header(b, 0);
    cr_assert_eq(r[PT_DEV_S_BAD_PHASE], 5, "BAD_PHASE %lld, expected 5", r[PT_DEV_S_BAD_PHASE]);
    cr_assert_eq(hits(b, 0, 0), 1, "phase 0 hits %lld", hits(b, 0, 0));
    cr_assert_eq(hits(b, 0, 1), 1, "phase 1 hits %lld", hits(b, 0, 1));
    for (long long i = 0; i < PT_DEV_SLOT_WORDS(2, 0); i++)
        cr_assert_eq(rec(b, 1)[i], 0, "slot 1 word %lld written: %lld", i, rec(b, 1)[i]);
    free(b.data);
}

Test(dev_header, out_of_range_slot_counted_in_the_buffer_header)
{
    pt_dev_buf b = make_buf(2, 2, PT_DEV_MODE_TRACE, 4);
    long long words = buf_words(b);
    long long *before = malloc((size_t)words * sizeof *before);
    cr_assert_not_null(before);
    memcpy(before, b.data, (size_t)words * sizeof *before);
    for (int s = -1; s <= 2; s += 3) { /* slots -1 and 2 */
        PT_DEV_BEGIN_AT(b, s);
        PT_DEV_MARK(0);
        PT_DEV_MARK(1);
        PT_DEV_END(b);
    }
    {
        PT_DEV_BEGIN_AT(b, 1000000000000LL);
        PT_DEV_MARK(0);
        PT_DEV_END(b);
    }
    cr_assert_eq(b.data[PT_DEV_H_BAD_SLOT], 3, "BAD_SLOT %lld, expected 3",
                 b.data[PT_DEV_H_BAD_SLOT]);
    for (long long i = 0; i < words; i++)
        if (i != PT_DEV_H_BAD_SLOT)
            cr_assert_eq(b.data[i], before[i], "word %lld changed: %lld", i, b.data[i]);
    free(before);
    free(b.data);
}

Test(dev_header, empty_buffers_are_skipped)
{
    pt_dev_buf none = { NULL, 4, 2, 0, PT_DEV_MODE_AGGREGATE };
    pt_dev_buf noslots = make_buf(1, 2, PT_DEV_MODE_AGGREGATE, 0);
    long long words = buf_words(noslots);
    long long *before = malloc((size_t)words * sizeof *before);
    cr_assert_not_null(before);
    noslots.nslots = 0;
    memcpy(before, noslots.data, (size_t)words * sizeof *before);
    {
        PT_DEV_BEGIN(none);
        PT_DEV_MARK(0);
        PT_DEV_END(none);
    }
    {
        PT_DEV_BEGIN_AT(noslots, 0);
        PT_DEV_MARK(0);
        PT_DEV_END(noslots);
    }
    for (long long i = 0; i < words; i++)
        cr_assert_eq(noslots.data[i], before[i], "word %lld changed in a buffer of 0 slots", i);
    free(before);
    free(noslots.data);
}

Test(dev_header, trace_events_in_order_and_dropped_past_capacity)
{
    enum { CAP = 5 };
    static const int seq[] = { 0, 1, 0, 2, 1, 2, 0, 1 }; /* 8 marks, 3 past CAP */
    pt_dev_buf b = make_buf(2, 3, PT_DEV_MODE_TRACE, CAP);
    PT_DEV_BEGIN_AT(b, 1);
    for (unsigned i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        spin_ns(1000);
        PT_DEV_MARK(seq[i]);
    }
    PT_DEV_END(b);

    long long *r = rec(b, 1), *ev = events(b, 1);
    assert_header(b, 1);
    cr_assert_eq(r[PT_DEV_S_NEVENTS], CAP, "NEVENTS %lld, capacity %d", r[PT_DEV_S_NEVENTS], CAP);
    cr_assert_eq(r[PT_DEV_S_DROPPED], 3, "DROPPED %lld, expected 3", r[PT_DEV_S_DROPPED]);
    long long prev = r[PT_DEV_S_CLK0];
    for (int i = 0; i < CAP; i++) {
        cr_assert_eq(ev[2 * i], seq[i], "event %d: phase %lld, expected %d", i, ev[2 * i], seq[i]);
        cr_assert_geq(ev[2 * i + 1], prev, "event %d at %lld, before the one before (%lld)", i,
                      ev[2 * i + 1], prev);
        prev = ev[2 * i + 1];
    }
    cr_assert_leq(prev, r[PT_DEV_S_CLK1], "the last event is after END");
    /* The aggregate figures count every mark, stored or dropped. */
    cr_assert_eq(hits(b, 1, 0) + hits(b, 1, 1) + hits(b, 1, 2), 8, "hits do not add up to 8");
    cr_assert_eq(hits(b, 1, 0), 3, "phase 0 hits %lld", hits(b, 1, 0));
    /* Slot 0 was not used. */
    cr_assert_eq(rec(b, 0)[PT_DEV_S_DONE], 0, "slot 0 written");
    free(b.data);
}

Test(dev_header, trace_events_match_the_aggregate_cycles)
{
    /* With room for every event, the events are the marks' own clock
     * reads: each phase's cycles are the sum of its events' intervals. */
    pt_dev_buf b = make_buf(1, 2, PT_DEV_MODE_TRACE, 16);
    long long sum[2] = { 0, 0 };
    PT_DEV_BEGIN_AT(b, 0);
    for (int i = 0; i < 6; i++) {
        spin_ns(500);
        PT_DEV_MARK(i % 2);
    }
    PT_DEV_END(b);

    long long *r = rec(b, 0), *ev = events(b, 0), prev = r[PT_DEV_S_CLK0];
    cr_assert_eq(r[PT_DEV_S_NEVENTS], 6, "NEVENTS %lld", r[PT_DEV_S_NEVENTS]);
    cr_assert_eq(r[PT_DEV_S_DROPPED], 0, "DROPPED %lld", r[PT_DEV_S_DROPPED]);
    for (int i = 0; i < 6; i++) {
        sum[ev[2 * i]] += ev[2 * i + 1] - prev;
        prev = ev[2 * i + 1];
    }
    cr_assert_eq(sum[0], cycles(b, 0, 0), "phase 0: events give %lld, the record %lld", sum[0],
                 cycles(b, 0, 0));
    cr_assert_eq(sum[1], cycles(b, 0, 1), "phase 1: events give %lld, the record %lld", sum[1],
                 cycles(b, 0, 1));
    cr_assert_eq(ev[2 * 6], 0, "an event past NEVENTS was written");
    free(b.data);
}

Test(dev_header, trace_stores_a_bad_phase_as_given)
{
    /* A timeline needs every interval, so a bad mark is an event too, with
     * the phase as given for the reader to check. */
    pt_dev_buf b = make_buf(1, 2, PT_DEV_MODE_TRACE, 4);
    PT_DEV_BEGIN_AT(b, 0);
    PT_DEV_MARK(0);
    PT_DEV_MARK(9);
    PT_DEV_MARK(1);
    PT_DEV_END(b);
    long long *r = rec(b, 0), *ev = events(b, 0);
    cr_assert_eq(r[PT_DEV_S_NEVENTS], 3, "NEVENTS %lld", r[PT_DEV_S_NEVENTS]);
    cr_assert_eq(ev[2], 9, "event 1 phase %lld", ev[2]);
    cr_assert_eq(r[PT_DEV_S_BAD_PHASE], 1, "BAD_PHASE %lld", r[PT_DEV_S_BAD_PHASE]);
    free(b.data);
}

Test(dev_header, end_rewrites_every_pair_of_a_reused_record)
{
    /* A record holding an earlier launch's figures: END writes every pair
     * the accumulators hold, marked or not. The buffer has more phases than
     * PT_DEV_MAX_PHASES; those no mark can reach are left alone. */
    enum { NP = PT_DEV_MAX_PHASES + 2 };
    pt_dev_buf b = make_buf(1, NP, PT_DEV_MODE_AGGREGATE, 0);
    long long *r = rec(b, 0);
    for (long long i = 0; i < PT_DEV_SLOT_WORDS(NP, 0); i++)
        r[i] = 77;
    PT_DEV_BEGIN_AT(b, 0);
    PT_DEV_MARK(1);
    PT_DEV_MARK(NP - 1); /* a phase of the buffer, but beyond the accumulators */
    PT_DEV_END(b);
    assert_header(b, 0);
    cr_assert_eq(r[PT_DEV_S_BAD_PHASE], 1, "BAD_PHASE %lld", r[PT_DEV_S_BAD_PHASE]);
    cr_assert_eq(r[PT_DEV_S_NEVENTS], 0, "NEVENTS %lld", r[PT_DEV_S_NEVENTS]);
    cr_assert_eq(r[PT_DEV_S_DROPPED], 0, "DROPPED %lld", r[PT_DEV_S_DROPPED]);
    for (int q = 0; q < PT_DEV_MAX_PHASES; q++) {
        cr_assert_eq(hits(b, 0, q), q == 1, "phase %d hits %lld", q, hits(b, 0, q));
        if (q != 1)
            cr_assert_eq(cycles(b, 0, q), 0, "phase %d cycles %lld", q, cycles(b, 0, q));
    }
    for (int q = PT_DEV_MAX_PHASES; q < NP; q++)
        cr_assert(cycles(b, 0, q) == 77 && hits(b, 0, q) == 77,
                  "phase %d, beyond the accumulators, was written", q);
    free(b.data);
}

Test(dev_header, disabled_build_writes_nothing)
{
    pt_dev_buf b = make_buf(2, 2, PT_DEV_MODE_TRACE, 4);
    long long words = buf_words(b);
    long long *before = malloc((size_t)words * sizeof *before);
    cr_assert_not_null(before);
    memcpy(before, b.data, (size_t)words * sizeof *before);
    pt_test_disabled_run(b);
    pt_test_disabled_run_default(b);
    b.nslots = 0; /* the disabled macros do not even look */
    pt_test_disabled_run(b);
    for (long long i = 0; i < words; i++)
        cr_assert_eq(b.data[i], before[i], "word %lld written with PT_DEV_DISABLE", i);
    free(before);
    free(b.data);
}

/* The build compiled tests/kernels/header_cases.c once per case; returns
 * case c's exit status and its diagnostics. */
static int header_case(int c, char **log)
{
    const char *build = getenv("PT_BUILD");
    char path[512], line[64];
    int rc = -1, k, r;
    FILE *f;

    snprintf(path, sizeof path, "%s/kernels/header_cases.txt", build && *build ? build : "build");
    f = fopen(path, "r");
    cr_assert_not_null(f, "%s is missing: run the suite with make test, which builds it", path);
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%d %d", &k, &r) == 2 && k == c)
            rc = r;
    fclose(f);
    cr_assert_neq(rc, -1, "case %d not in %s", c, path);
    snprintf(path, sizeof path, "%s/kernels/header_cases.%d.log", build && *build ? build : "build",
             c);
    *log = test_read_file(path);
    cr_assert_not_null(*log, "%s is missing", path);
    return rc;
}

Test(dev_header, detail_headers_refuse_direct_inclusion)
{
    for (int c = 6; c <= 7; c++) {
        char *log;
        int rc = header_case(c, &log);
        cr_assert_neq(rc, 0, "case %d: a detail header compiled on its own", c);
        cr_assert(strstr(log, "include <pt/pt_dev.h>"), "case %d: expected the #error, got:\n%s",
                  c, log);
        free(log);
    }
}
