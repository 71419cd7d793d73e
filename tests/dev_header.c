/* pt_dev.h in host mode, built as a kernel is by default (no trace
 * stores): the phase macros on CPU loops, writing records into a buffer in
 * host memory exactly as pt_dev_buf.h lays them out. Real clocks only
 * promise ordering and lower bounds, so that is what is asserted. The
 * trace stores are tested in tests/dev_trace.c. Plain C keeps the
 * accumulators in registers; tests/dev_shared.c runs these tests again
 * with shared-memory mode's (suite DEV_SUITE). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include <pt/pt_dev.h>

#include "common.h"
#include "dev_records.h"

#include "kernels/dev_disabled.h"

#ifndef DEV_SUITE
#  define DEV_SUITE dev_header
#endif
TestSuite(DEV_SUITE);

Test(DEV_SUITE, host_clocks_move_forward)
{
    long long a = pt_dev_host_ns();
    spin_ns(1000);
    long long b = pt_dev_host_ns();
    int cpu = pt_dev_host_cpu();
    cr_assert_geq(b - a, 1000, "pt_dev_host_ns advanced %lld ns over a 1 us spin", b - a);
    cr_assert_geq(cpu, -1, "pt_dev_host_cpu() = %d", cpu);
}

Test(DEV_SUITE, phases_of_known_length_in_several_slots)
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

Test(DEV_SUITE, hits_accumulate_and_cycles_add_up)
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

Test(DEV_SUITE, bad_phases_are_counted_never_written)
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

Test(DEV_SUITE, out_of_range_slot_counted_in_the_buffer_header)
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
    {
        /* LLONG_MIN is no slot either, not the automatic one (slot 0 here). */
        PT_DEV_BEGIN_AT(b, LLONG_MIN);
        PT_DEV_MARK(0);
        PT_DEV_END(b);
    }
    cr_assert_eq(b.data[PT_DEV_H_BAD_SLOT], 4, "BAD_SLOT %lld, expected 4",
                 b.data[PT_DEV_H_BAD_SLOT]);
    /* The largest as unsigned: -1 over 2, 10^12 and LLONG_MIN. */
    cr_assert_eq(b.data[PT_DEV_H_BAD_SLOT_AT], -1, "BAD_SLOT_AT %lld, expected -1",
                 b.data[PT_DEV_H_BAD_SLOT_AT]);
    for (long long i = 0; i < words; i++)
        if (i != PT_DEV_H_BAD_SLOT && i != PT_DEV_H_BAD_SLOT_AT)
            cr_assert_eq(b.data[i], before[i], "word %lld changed: %lld", i, b.data[i]);
    free(before);
    free(b.data);
}

/* A block BEGIN_IF leaves out writes nothing at all, not even a bad
 * slot, whatever its slot; a kept one records as BEGIN_AT. BEGIN_EVERY on
 * the CPU (one block, automatic slot 0) keeps slot 0. */
Test(DEV_SUITE, a_sample_records_the_kept_blocks_only)
{
    pt_dev_buf b = make_buf(3, 2, PT_DEV_MODE_AGGREGATE, 0);
    long long words = buf_words(b), *before = snapshot(b);
    for (int blk = 0; blk < 12; blk++) {
        PT_DEV_BEGIN_IF(b, blk % 4 == 0, blk / 4);
        spin_ns(1000);
        PT_DEV_MARK(1);
        PT_DEV_END(b);
    }
    {
        PT_DEV_BEGIN_IF(b, 0, -5); /* left out: no bad slot for it */
        PT_DEV_MARK(0);
        PT_DEV_END(b);
    }
    cr_assert_eq(b.data[PT_DEV_H_BAD_SLOT], 0, "no bad slot: %lld", b.data[PT_DEV_H_BAD_SLOT]);
    for (int slot = 0; slot < 3; slot++) {
        assert_header(b, slot);
        cr_assert_eq(hits(b, slot, 1), 1, "slot %d: one block's mark", slot);
        cr_assert_eq(hits(b, slot, 0), 0, "slot %d: the left-out block's mark is nowhere", slot);
        cr_assert_geq(cycles(b, slot, 1), 1, "slot %d", slot);
    }
    memset(b.data + PT_DEV_HDR, 0, (size_t)(words - PT_DEV_HDR) * sizeof *b.data);
    {
        PT_DEV_BEGIN_EVERY(b, 3);
        PT_DEV_MARK(0);
        PT_DEV_END(b);
    }
    assert_header(b, 0);
    cr_assert_eq(hits(b, 0, 0), 1, "the CPU's one block is slot 0 in any sample");
    cr_assert_eq(rec(b, 1)[PT_DEV_S_DONE], 0);
    for (long long i = 0; i < PT_DEV_HDR; i++)
        cr_assert_eq(b.data[i], before[i], "header word %lld changed", i);
    free(before);
    free(b.data);
}

Test(DEV_SUITE, no_buffer_is_skipped_and_no_slot_is_a_bad_slot)
{
    /* pt_dev_arg(NULL): no memory, nothing to write. A buffer of no
     * slots has memory: each record that cannot be written is counted. */
    pt_dev_buf none = { NULL, 0, 0, 0, PT_DEV_MODE_AGGREGATE };
    pt_dev_buf noslots = make_buf(1, 2, PT_DEV_MODE_AGGREGATE, 0);
    long long words = buf_words(noslots), *before = snapshot(noslots);
    noslots.nslots = 0;
    /* Made by hand with a shape but no memory: skipped too, never written
     * through (this would crash). */
    pt_dev_buf shape_only = { NULL, 4, 3, 0, PT_DEV_MODE_AGGREGATE };
    {
        PT_DEV_BEGIN(none);
        PT_DEV_MARK(0);
        PT_DEV_END(none);
    }
    {
        PT_DEV_BEGIN_AT(shape_only, 2);
        PT_DEV_MARK(1);
        PT_DEV_END(shape_only);
    }
    {
        PT_DEV_BEGIN_AT(noslots, 0);
        PT_DEV_MARK(0);
        PT_DEV_END(noslots);
    }
    cr_assert_eq(noslots.data[PT_DEV_H_BAD_SLOT], 1, "BAD_SLOT %lld, expected 1",
                 noslots.data[PT_DEV_H_BAD_SLOT]);
    for (long long i = 0; i < words; i++)
        if (i != PT_DEV_H_BAD_SLOT)
            cr_assert_eq(noslots.data[i], before[i], "word %lld changed in a buffer of 0 slots", i);
    free(before);
    free(noslots.data);
}

Test(DEV_SUITE, a_trace_buffer_without_trace_stores_stores_no_event)
{
    /* Built without PT_DEV_TRACING: the record says no event was stored
     * and none dropped, which on a trace buffer the fold reads as "every
     * mark dropped"; the aggregate figures are whole. */
    pt_dev_buf b = make_buf(1, 2, PT_DEV_MODE_TRACE, 4);
    long long *r = rec(b, 0), *ev = events(b, 0);
    for (int i = 0; i < 2 * 4; i++)
        ev[i] = 55;
    PT_DEV_BEGIN_AT(b, 0);
    for (int i = 0; i < 6; i++)
        PT_DEV_MARK(i % 2);
    PT_DEV_END(b);
    assert_header(b, 0);
    cr_assert_eq(r[PT_DEV_S_NEVENTS], 0, "NEVENTS %lld", r[PT_DEV_S_NEVENTS]);
    cr_assert_eq(r[PT_DEV_S_DROPPED], 0, "DROPPED %lld", r[PT_DEV_S_DROPPED]);
    cr_assert_eq(hits(b, 0, 0) + hits(b, 0, 1), 6, "hits %lld + %lld", hits(b, 0, 0), hits(b, 0, 1));
    for (int i = 0; i < 2 * 4; i++)
        cr_assert_eq(ev[i], 55, "event word %d written: %lld", i, ev[i]);
    free(b.data);
}

Test(DEV_SUITE, end_rewrites_every_pair_of_a_reused_record)
{
    /* A record holding an earlier launch's figures: END writes every pair
     * the accumulators hold, marked or not. The buffer has more phases than
     * PT_DEV_MAX_PHASES; those no mark can reach are left alone. */
    enum { NP = PT_DEV_MAX_PHASES + 2 };
    pt_dev_buf b = make_buf(1, NP, PT_DEV_MODE_AGGREGATE, 0);
    long long *r = rec(b, 0);
    for (long long i = 0; i < PT_DEV_SLOT_WORDS(NP, 0); i++)
        r[i] = 77;
    r[PT_DEV_S_DONE] = 0; /* as pt_dev_reset leaves it: END counts itself there */
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

Test(DEV_SUITE, disabled_build_writes_nothing)
{
    pt_dev_buf b = make_buf(2, 2, PT_DEV_MODE_TRACE, 4);
    long long words = buf_words(b);
    long long *before = snapshot(b);
    pt_test_disabled_run(b);
    pt_test_disabled_run_default(b);
    pt_test_disabled_run_sampled(b, 0);
    pt_test_disabled_run_every(b);
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

Test(DEV_SUITE, default_phase_count_and_trace_options)
{
    char *log;
    int rc = header_case(12, &log);
    cr_assert_eq(rc, 0, "without a list PT_DEV_PHASES is not PT_DEV_MAX_PHASES:\n%s", log);
    free(log);
    rc = header_case(13, &log);
    cr_assert_neq(rc, 0, "PT_DEV_TRACING with PT_DEV_NO_TRACE compiled");
    cr_assert(strstr(log, "define one"), "expected the #error, got:\n%s", log);
    free(log);
}

Test(DEV_SUITE, a_mark_without_begin_names_begin_and_phases_may_follow_the_include)
{
    char *log;
    int rc = header_case(14, &log);
    cr_assert_neq(rc, 0, "a mark with no PT_DEV_BEGIN before it compiled");
    cr_assert(strstr(log, "needs_PT_DEV_BEGIN_before_it") && strstr(log, "PT_DEV_MARK_IN"),
              "the error does not name BEGIN and PT_DEV_MARK_IN:\n%s", log);
    free(log);
    rc = header_case(15, &log);
    cr_assert_eq(rc, 0, "PT_DEV_PHASES defined after the include, under -Werror:\n%s", log);
    free(log);
}

Test(DEV_SUITE, detail_headers_refuse_direct_inclusion)
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

/* A helper that marks through the state its caller passes down. */
static void helper_phase(pt_dev_state *st, int phase, int times)
{
    for (int i = 0; i < times; i++) {
        spin_ns(1000);
        PT_DEV_MARK_IN(st, phase);
    }
}

Test(DEV_SUITE, helpers_mark_through_the_state)
{
    pt_dev_buf b = make_buf(1, 3, PT_DEV_MODE_AGGREGATE, 0);
    PT_DEV_BEGIN_AT(b, 0);
    helper_phase(PT_DEV_STATE, 1, 3);
    spin_ns(1000);
    PT_DEV_MARK(0);
    helper_phase(PT_DEV_STATE, 2, 2);
    helper_phase(PT_DEV_STATE, 7, 1); /* out of range, in a helper too */
    PT_DEV_END(b);

    long long *r = rec(b, 0);
    assert_header(b, 0);
    cr_assert_eq(hits(b, 0, 0), 1, "phase 0 hits %lld", hits(b, 0, 0));
    cr_assert_eq(hits(b, 0, 1), 3, "phase 1 hits %lld", hits(b, 0, 1));
    cr_assert_eq(hits(b, 0, 2), 2, "phase 2 hits %lld", hits(b, 0, 2));
    cr_assert_eq(r[PT_DEV_S_BAD_PHASE], 1, "BAD_PHASE %lld", r[PT_DEV_S_BAD_PHASE]);
    for (int q = 0; q < 3; q++)
        cr_assert_gt(cycles(b, 0, q), 0, "phase %d: no cycles", q);
    cr_assert_leq(cycles(b, 0, 0) + cycles(b, 0, 1) + cycles(b, 0, 2),
                  r[PT_DEV_S_CLK1] - r[PT_DEV_S_CLK0], "the phases hold more than the span");
    free(b.data);
}

Test(DEV_SUITE, phases_the_buffer_lacks_are_counted_bad)
{
    /* The default PT_DEV_PHASES (16) marks phases the 2-phase buffer does
     * not have: their marks are bad, the others recorded, and the
     * buffer's next record untouched. */
    pt_dev_buf b = make_buf(2, 2, PT_DEV_MODE_AGGREGATE, 0);
    long long *before = snapshot(b);
    PT_DEV_BEGIN_AT(b, 0);
    PT_DEV_MARK(0);
    PT_DEV_MARK(1);
    PT_DEV_MARK(2);
    PT_DEV_MARK(3);
    PT_DEV_MARK(3);
    PT_DEV_END(b);
    assert_header(b, 0);
    cr_assert_eq(hits(b, 0, 0), 1, "phase 0 hits %lld", hits(b, 0, 0));
    cr_assert_eq(hits(b, 0, 1), 1, "phase 1 hits %lld", hits(b, 0, 1));
    cr_assert_eq(rec(b, 0)[PT_DEV_S_BAD_PHASE], 3, "BAD_PHASE %lld", rec(b, 0)[PT_DEV_S_BAD_PHASE]);
    for (long long i = 0; i < PT_DEV_SLOT_WORDS(2, 0); i++)
        cr_assert_eq(rec(b, 1)[i], before[rec(b, 1) - b.data + i], "slot 1 word %lld written", i);
    free(before);
    free(b.data);
}

/* From here on the marks and ENDs of this file use 2 phases, as they would
 * after a ptgen header of 2; helper_phase above still marks under 16. */
#undef PT_DEV_PHASES
#define PT_DEV_PHASES 2

Test(DEV_SUITE, phase_count_is_read_where_each_macro_stands)
{
    /* END writes 2 pairs of a 4-phase buffer; the other two keep what the
     * host put there. Phase 3, marked here, is bad; marked in a helper
     * compiled for 16 phases it is recorded there, and END counts it bad. */
    pt_dev_buf b = make_buf(1, 4, PT_DEV_MODE_AGGREGATE, 0);
    long long *r = rec(b, 0);
    for (int q = 0; q < 4; q++)
        r[PT_DEV_SLOT_HDR + 2 * q] = r[PT_DEV_SLOT_HDR + 2 * q + 1] = 77;
    PT_DEV_BEGIN_AT(b, 0);
    PT_DEV_MARK(0);
    PT_DEV_MARK(3);
    helper_phase(PT_DEV_STATE, 3, 2);
    helper_phase(PT_DEV_STATE, 1, 1);
    PT_DEV_END(b);
    assert_header(b, 0);
    cr_assert_eq(hits(b, 0, 0), 1, "phase 0 hits %lld", hits(b, 0, 0));
    cr_assert_eq(hits(b, 0, 1), 1, "phase 1 hits %lld", hits(b, 0, 1));
    cr_assert_eq(r[PT_DEV_S_BAD_PHASE], 3, "BAD_PHASE %lld, expected 3", r[PT_DEV_S_BAD_PHASE]);
    for (int q = 2; q < 4; q++)
        cr_assert(cycles(b, 0, q) == 77 && hits(b, 0, q) == 77,
                  "phase %d, past PT_DEV_PHASES, was written", q);
    free(b.data);
}
