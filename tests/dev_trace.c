/* pt_dev.h in host mode with trace stores compiled in (PT_DEV_TRACING):
 * the marks store (phase, clock) events into a trace buffer's records,
 * count those past the capacity as dropped, and leave an aggregate
 * buffer's records as a build without them would. In register mode, as
 * plain C builds; tests/dev_trace_shared.c runs them in shared-memory
 * mode (suite DEV_TRACE_SUITE). */
#define PT_DEV_TRACING 1
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <pt/pt_dev.h>

#include "common.h"
#include "dev_records.h"

#ifndef DEV_TRACE_SUITE
#  define DEV_TRACE_SUITE dev_trace
#endif
TestSuite(DEV_TRACE_SUITE);

Test(DEV_TRACE_SUITE, trace_events_in_order_and_dropped_past_capacity)
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

Test(DEV_TRACE_SUITE, trace_events_match_the_aggregate_cycles)
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

Test(DEV_TRACE_SUITE, trace_stores_a_bad_phase_as_given)
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

Test(DEV_TRACE_SUITE, an_aggregate_buffer_gets_no_event)
{
    pt_dev_buf b = make_buf(2, 2, PT_DEV_MODE_AGGREGATE, 0);
    long long *before = snapshot(b);
    PT_DEV_BEGIN_AT(b, 0);
    for (int i = 0; i < 5; i++)
        PT_DEV_MARK(i % 2);
    PT_DEV_END(b);
    assert_header(b, 0);
    cr_assert_eq(rec(b, 0)[PT_DEV_S_NEVENTS], 0, "NEVENTS %lld", rec(b, 0)[PT_DEV_S_NEVENTS]);
    cr_assert_eq(rec(b, 0)[PT_DEV_S_DROPPED], 0, "DROPPED %lld", rec(b, 0)[PT_DEV_S_DROPPED]);
    cr_assert_eq(hits(b, 0, 0) + hits(b, 0, 1), 5, "hits %lld + %lld", hits(b, 0, 0),
                 hits(b, 0, 1));
    for (long long i = 0; i < PT_DEV_SLOT_WORDS(2, 0); i++)
        cr_assert_eq(rec(b, 1)[i], before[rec(b, 1) - b.data + i], "slot 1 word %lld written", i);
    free(before);
    free(b.data);
}

Test(DEV_TRACE_SUITE, helpers_trace_too)
{
    pt_dev_buf b = make_buf(1, 2, PT_DEV_MODE_TRACE, 8);
    long long *r = rec(b, 0), *ev = events(b, 0);
    pt_dev_state *st;
    PT_DEV_BEGIN_AT(b, 0);
    st = PT_DEV_STATE;
    PT_DEV_MARK_IN(st, 1);
    PT_DEV_MARK(0);
    PT_DEV_MARK_IN(st, 1);
    PT_DEV_END(b);
    cr_assert_eq(r[PT_DEV_S_NEVENTS], 3, "NEVENTS %lld", r[PT_DEV_S_NEVENTS]);
    cr_assert(ev[0] == 1 && ev[2] == 0 && ev[4] == 1, "events' phases %lld %lld %lld", ev[0],
              ev[2], ev[4]);
    free(b.data);
}

/* Spans: a begin and an end are events of their own code (kind, id, end
 * bit), at the clock then, in order among the marks; they charge no phase
 * (the phases' cycles are those of the marks alone) and a later span may
 * close in another iteration, several in flight. */
Test(DEV_TRACE_SUITE, spans_are_events_of_their_own_and_charge_no_phase)
{
    pt_dev_buf b = make_buf(1, 2, PT_DEV_MODE_TRACE, 16);
    PT_DEV_BEGIN_AT(b, 0);
    for (int it = 0; it < 3; it++) {
        PT_DEV_SPAN_BEGIN(5, it);     /* issued at it */
        spin_ns(1000);
        PT_DEV_MARK(0);
        if (it >= 1)
            PT_DEV_SPAN_END(5, it - 1); /* waited for one iteration later */
    }
    PT_DEV_SPAN_END(5, 2);
    PT_DEV_MARK(1);
    PT_DEV_END(b);

    long long *r = rec(b, 0), *ev = events(b, 0);
    static const long long want[] = {
        PT_DEV_EV_SPAN_CODE(5, 0, 0), 0, PT_DEV_EV_SPAN_CODE(5, 1, 0), 0,
        PT_DEV_EV_SPAN_CODE(5, 0, 1), PT_DEV_EV_SPAN_CODE(5, 2, 0), 0, PT_DEV_EV_SPAN_CODE(5, 1, 1),
        PT_DEV_EV_SPAN_CODE(5, 2, 1), 1,
    };
    cr_assert_eq(r[PT_DEV_S_NEVENTS], 10, "6 span events and 4 marks: %lld", r[PT_DEV_S_NEVENTS]);
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(ev[2 * i], want[i], "event %d: %#llx, expected %#llx", i,
                     (unsigned long long)ev[2 * i], (unsigned long long)want[i]);
        if (i)
            cr_assert_geq(ev[2 * i + 1], ev[2 * i - 1], "event %d's clock goes back", i);
    }
    cr_assert_eq(hits(b, 0, 0), 3);
    cr_assert_eq(hits(b, 0, 1), 1);
    cr_assert(PT_DEV_EV_SPAN_CODE(65535, 0xffffffffu, 1) > PT_DEV_EV_SPAN &&
                  PT_DEV_EV_SPAN_CODE(0, 0, 0) == PT_DEV_EV_SPAN,
              "the codes stay above every phase");
    free(b.data);
}
