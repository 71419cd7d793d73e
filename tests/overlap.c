/* Overlap and bubbles: a producer and a consumer role of one launch, from
 * trace records written by hand, give the work, the share of it beside
 * the other role, the waits and the bubbles a hand computation gives;
 * a launch of no roles with waits named gives its own; every report
 * shows them, packs, merges and ptreport keep them; the interval algebra
 * agrees with a brute force on random intervals.
 *
 * Times in ms from each slot's BEGIN (2,000,000 cycles a ms at
 * fake_run_setup's 2 cycles per ns); W a wait, L/M work, U the time after
 * the last mark (work):
 *
 *   SM 0  producer  L [0,2)  W [2,3)  L [3,4)  U [4,4.5)  span [2.2,2.6)
 *         consumer  W [0,1)  M [1,3)  W [3,5)  M [5,6)
 *                   W [0,4)  M [4,4.5)
 *   SM 1  producer  W [0,1)  L [1,2)
 *         consumer  W [0,2)  M [2,3), twice
 *
 * Producer: work [0,2)+[3,4.5) and [1,2): 4.5 ms; beside the consumers'
 * work [1,2)+[4,4.5): 1.5; waits [2,3) (the consumers working) and
 * [0,1) on SM 1 (nothing in flight): 2 ms, 1 of bubbles. Consumers: work
 * [1,3)+[4,4.5)+[5,6) and [2,3): 4.5 ms, 1.5 beside the producer; waits
 * [0,1)+[3,4)+[4.5,5) and [0,2): 4.5 ms, of which [4.5,5) and SM 1's
 * [0,1) have nothing in flight: 1.5 ms. Per SM (2 SMs): half of each. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include <pt/pt_dev.h>

#include "common.h"
#include "core/overlap.h"
#include "cuda_fake.h"
#include "records_fake.h"
#include "trace_check.h"

FAKE_RUN_SUITE(overlap, PT_TRACE);

#define MS 2000000LL /* cycles */
#define EPS 1e-9
#define WAIT 0
#define WORK 1

static const char *const prod_names[] = { "wait empty", "load" };
static const char *const cons_names[] = { "wait full", "math" };

/* Slot s on sm: n marks (phase, ms), ending at end ms; the phases'
 * totals as the marks give them; and among them, in time order, a span
 * of kind 0 and id 0 begun at span_b ms and ended at span_e ms (either
 * left out when < 0). */
static void slot(pt_dev_records *b, int s, long long sm, const double *ev, int n, double end,
                 double span_b, double span_e)
{
    long long cyc[2] = { 0, 0 }, hits[2] = { 0, 0 }, m = 0;
    double prev = 0, at[16];
    long long code[16];
    for (int k = 0; k < n; k++) {
        cyc[(int)ev[2 * k]] += llround((ev[2 * k + 1] - prev) * MS);
        hits[(int)ev[2 * k]]++;
        prev = ev[2 * k + 1];
    }
    long long *r = test_slot(b, s, sm, llround(end * MS), 0, llround(end * 1e6), cyc, hits);
    long long *e = r + PT_DEV_SLOT_HDR + 2 * 2;
    for (int k = 0; k < n; k++) {
        code[m] = (long long)ev[2 * k];
        at[m++] = ev[2 * k + 1];
    }
    if (span_b >= 0) {
        code[m] = PT_DEV_EV_SPAN_CODE(0, 0, 0);
        at[m++] = span_b;
    }
    if (span_e >= 0) {
        code[m] = PT_DEV_EV_SPAN_CODE(0, 0, 1);
        at[m++] = span_e;
    }
    for (long long i = 0; i < m; i++) { /* by time: the few events as they were written */
        long long j = i;
        for (long long k = i + 1; k < m; k++)
            j = at[k] < at[j] ? k : j;
        long long c = code[i];
        double a = at[i];
        code[i] = code[j], at[i] = at[j];
        code[j] = c, at[j] = a;
        e[2 * i] = code[i];
        e[2 * i + 1] = r[PT_DEV_S_CLK0] + llround(at[i] * MS);
    }
    r[PT_DEV_S_NEVENTS] = m;
}

static pt_dev_records *producer(void)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, prod_names, PT_DEV_HOST | PT_DEV_TRACE, 8);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, NULL), 0, "%s", pt_last_error(t));
    slot(b, 0, 0, (const double[]){ WORK, 2, WAIT, 3, WORK, 4 }, 3, 4.5, 2.2, 2.6);
    slot(b, 1, 1, (const double[]){ WAIT, 1, WORK, 2 }, 2, 2, -1, -1);
    return b;
}

static pt_dev_records *consumer(void)
{
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, cons_names, PT_DEV_HOST | PT_DEV_TRACE, 8);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, NULL), 0, "%s", pt_last_error(t));
    slot(b, 0, 0, (const double[]){ WAIT, 1, WORK, 3, WAIT, 5, WORK, 6 }, 4, 6, -1, -1);
    slot(b, 1, 0, (const double[]){ WAIT, 4, WORK, 4.5 }, 2, 4.5, -1, -1);
    for (int s = 2; s < 4; s++)
        slot(b, s, 1, (const double[]){ WAIT, 2, WORK, 3 }, 2, 3, -1, -1);
    return b;
}

static pt_section_stats get(pt_timing *x, const char *path)
{
    pt_section_stats st;
    const pt_section *s = pt_find(x, path);
    cr_assert_not_null(s, "%s", path);
    cr_assert_eq(pt_section_get(x, s, &st), 0);
    return st;
}

static void launch(void)
{
    pt_start(t, "step");
    clk.now += 6000000;
    pt_stop(t, "step");
}

/* The launch's two roles folded `times` times, the consumers' first when
 * cons_first. */
static void folded(int times, int cons_first)
{
    static const int waits[] = { WAIT };
    for (int i = 0; i < times; i++) {
        pt_dev_records *p = producer(), *c = consumer();
        cr_assert_eq(pt_dev_records_waits(p, 1, waits), 0, "%s", pt_last_error(t));
        cr_assert_eq(pt_dev_records_waits(c, 1, waits), 0);
        launch();
        cr_assert_eq(pt_dev_fold_role(t, cons_first ? c : p, "step",
                                      cons_first ? "consumers" : "producer"), 0, "%s",
                     pt_last_error(t));
        cr_assert_eq(pt_dev_fold_role(t, cons_first ? p : c, "step",
                                      cons_first ? "producer" : "consumers"), 0, "%s",
                     pt_last_error(t));
        pt_dev_records_free(p);
        pt_dev_records_free(c);
    }
}

static void assert_roles(pt_timing *x, uint64_t folds)
{
    pt_section_stats p = get(x, "step/producer"), c = get(x, "step/consumers");
    cr_assert_eq(p.overlap_folds, folds);
    cr_assert_eq(c.overlap_folds, folds);
    cr_assert_float_eq(p.busy_ms, 2.25, EPS, "%g", p.busy_ms);
    cr_assert_float_eq(p.overlap_pct, 100.0 / 3, 1e-6, "%g", p.overlap_pct);
    cr_assert_float_eq(p.wait_ms, 1.0, EPS, "%g", p.wait_ms);
    cr_assert_float_eq(p.bubble_ms, 0.5, EPS, "%g", p.bubble_ms);
    cr_assert_float_eq(c.busy_ms, 2.25, EPS, "%g", c.busy_ms);
    cr_assert_float_eq(c.overlap_pct, 100.0 / 3, 1e-6, "%g", c.overlap_pct);
    cr_assert_float_eq(c.wait_ms, 2.25, EPS, "%g", c.wait_ms);
    cr_assert_float_eq(c.bubble_ms, 0.75, EPS, "%g", c.bubble_ms);
    cr_assert_eq(get(x, "step").overlap_folds, 0, "the launch itself named no waits");
}

Test(overlap, roles_overlap_and_wait_as_a_hand_computation_says)
{
    folded(1, 0);
    assert_roles(t, 1);
    /* The second launch's figures are its own: the means stay. */
    folded(1, 1);
    assert_roles(t, 2);
}

Test(overlap, a_role_alone_has_no_overlap_and_its_own_spans_keep_it_in_flight)
{
    static const int waits[] = { WAIT };
    pt_dev_records *p = producer();
    cr_assert_eq(pt_dev_records_waits(p, 1, waits), 0);
    launch();
    cr_assert_eq(pt_dev_fold_role(t, p, "step", "producer"), 0, "%s", pt_last_error(t));
    pt_section_stats st = get(t, "step/producer");
    cr_assert_eq(st.overlap_folds, 1);
    cr_assert_float_eq(st.overlap_pct, 0, EPS);
    /* Waits [2,3) with the span in flight over [2.2,2.6), and [0,1). */
    cr_assert_float_eq(st.bubble_ms, (0.6 + 1.0) / 2, EPS, "%g", st.bubble_ms);
    pt_dev_records_free(p);
}

Test(overlap, a_launch_with_waits_named_gives_its_own_and_without_none)
{
    static const int waits[] = { WAIT };
    pt_dev_records *p = producer();
    launch();
    cr_assert_eq(pt_dev_fold(t, p, "step"), 0, "%s", pt_last_error(t));
    cr_assert_eq(get(t, "step").overlap_folds, 0, "no roles, no waits: nothing to say");
    pt_dev_records_free(p);
    p = producer();
    cr_assert_eq(pt_dev_records_waits(p, 1, waits), 0);
    launch();
    cr_assert_eq(pt_dev_fold(t, p, "step"), 0, "%s", pt_last_error(t));
    pt_section_stats st = get(t, "step");
    cr_assert_eq(st.overlap_folds, 1);
    cr_assert_float_eq(st.busy_ms, 2.25, EPS);
    cr_assert_float_eq(st.wait_ms, 1.0, EPS);
    cr_assert_float_eq(st.bubble_ms, 0.8, EPS, "%g", st.bubble_ms);
    /* Bad lists are refused and keep the waits named before. */
    cr_assert_eq(pt_dev_records_waits(p, 1, (const int[]){ 2 }), PT_EINVAL);
    cr_assert(strstr(pt_last_error(t), "phase 2 is not one of the records' 2 (0 to 1)"), "%s",
              pt_last_error(t));
    cr_assert_eq(pt_dev_records_waits(p, -1, waits), PT_EINVAL);
    cr_assert_eq(pt_dev_records_waits(p, 1, NULL), PT_EINVAL);
    cr_assert_eq(pt_dev_records_waits(NULL, 1, waits), PT_EINVAL);
    cr_assert_eq(pt_dev_records_waits(p, 0, NULL), 0, "none named");
    pt_dev_records_free(p);
}

Test(overlap, aggregate_records_say_nothing_of_it)
{
    static const int waits[] = { WAIT };
    pt_dev_records *b = pt_dev_records_create(t, 1, 2, prod_names, PT_DEV_HOST, 0);
    cr_assert_not_null(b);
    cr_assert_eq(pt_dev_records_waits(b, 1, waits), 0);
    test_slot(b, 0, 0, 2 * MS, 0, 1000000, (long long[]){ MS, MS }, NULL);
    launch();
    cr_assert_eq(pt_dev_fold_role(t, b, "step", "producer"), 0, "%s", pt_last_error(t));
    cr_assert_eq(get(t, "step/producer").overlap_folds, 0, "no trace, no timeline");
    pt_dev_records_free(b);
}

static char *line_of(char *text, const char *what)
{
    char *p = strstr(text, what), *e;
    cr_assert_not_null(p, "a %s line in:\n%s", what, text);
    if ((e = strchr(p, '\n')) != NULL)
        *e = '\0';
    return p;
}

static const char prod_line[] = "overlap: working 2.250 ms per CPU, 33.3% of it beside another "
                                "role's work; waiting 1.000 ms, 0.500 ms of it with nothing in "
                                "flight (bubbles)";

Test(overlap, every_report_says_it_and_ptreport_keeps_it)
{
    char args[512];
    folded(1, 0);
    char *text = fake_report(t);
    cr_assert_str_eq(line_of(strstr(text, "producer"), "overlap:"), prod_line);
    free(text);
    cr_assert_eq(pt_export_json(t, test_path(dir, "run.json")), 0, "%s", pt_last_error(t));
    json_error_t je;
    json_t *d = json_load_file(test_path(dir, "run.json"), 0, &je), *s;
    cr_assert_not_null(d, "%s", je.text);
    size_t i, found = 0;
    json_array_foreach(json_object_get(d, "sections"), i, s) {
        if (strcmp(json_string_value(json_object_get(s, "name")), "consumers") != 0)
            continue;
        found++;
        cr_assert_float_eq(json_number_value(json_object_get(s, "bubble_ms")), 0.75, 1e-9);
        cr_assert_float_eq(json_number_value(json_object_get(s, "overlap_pct")), 100.0 / 3, 1e-6);
    }
    cr_assert_eq(found, 1);
    json_decref(d);
    cr_assert_eq(pt_export_csv(t, test_path(dir, "run.csv")), 0, "%s", pt_last_error(t));
    char *csv = test_read_file(test_path(dir, "run.csv"));
    cr_assert(strstr(csv, "bubble_ms"), "the CSV's header names it");
    free(csv);
    cr_assert_eq(pt_export_trace(t, test_path(dir, "run.trace.json")), 0, "%s", pt_last_error(t));
    d = json_load_file(test_path(dir, "run.trace.json"), 0, &je);
    cr_assert_not_null(d, "%s", je.text);
    char why[256] = "";
    cr_assert_eq(trace_check(d, why, sizeof why), 0, "%s", why);
    found = 0;
    json_array_foreach(json_object_get(d, "traceEvents"), i, s) {
        json_t *a = json_object_get(s, "args");
        if (json_object_get(a, "bubble_ms"))
            found += json_number_value(json_object_get(a, "bubble_ms")) > 0;
    }
    cr_assert_eq(found, 2, "each role's tail slice carries its figures");
    json_decref(d);
    snprintf(args, sizeof args, "show '%s'", test_path(dir, "run.json"));
    cr_assert_eq(fake_ptreport(dir, args), 0);
    char *shown = test_read_file(test_path(dir, "out.txt"));
    cr_assert_str_eq(line_of(strstr(shown, "producer"), "overlap:"), prod_line);
    free(shown);
    /* Merged with itself: the means stay, the launches double. */
    snprintf(args, sizeof args, "cp '%s' '%s'", test_path(dir, "run.json"),
             test_path(dir, "run2.json"));
    cr_assert_eq(system(args), 0);
    snprintf(args, sizeof args, "merge '%s' '%s' -o '%s'", test_path(dir, "run.json"),
             test_path(dir, "run2.json"), test_path(dir, "both.json"));
    cr_assert_eq(fake_ptreport(dir, args), 0);
    snprintf(args, sizeof args, "show '%s'", test_path(dir, "both.json"));
    cr_assert_eq(fake_ptreport(dir, args), 0);
    shown = test_read_file(test_path(dir, "out.txt"));
    cr_assert(strstr(line_of(strstr(shown, "producer"), "overlap:"), "2.250 ms per CPU, 33.3%") &&
              strstr(shown, "(mean of 2 launches)"), "%s", shown);
    free(shown);
}

static void roles_times(pt_timing *u, int times)
{
    assert_roles(u, (uint64_t)times);
}

Test(overlap, packed_and_merged_it_adds_up)
{
    folded(1, 0);
    fake_pack_twice(t, &clk, roles_times, 40);
}

/* The trace draws each role's bubbles where the fold found them, on a
 * track per role and SM: the producer's [0, 1) on SM 1, the consumers'
 * [4.5, 5) on SM 0 and [0, 1) on SM 1 (ms from BEGIN; each slot begins
 * where the launch does), 2.5 ms in all; the producer's span on SM 0
 * (2.2 to 2.6) lies where the consumers worked anyway. */
Test(overlap, the_trace_draws_each_roles_bubbles)
{
    json_error_t je;
    json_t *d, *e;
    size_t i;
    char why[256] = "";
    double ts0 = -1, prod_us = 0, cons_us = 0, late = -1;
    int slices = 0, tracks = 0;

    folded(1, 0);
    cr_assert_eq(pt_export_trace(t, test_path(dir, "b.trace.json")), 0, "%s", pt_last_error(t));
    d = json_load_file(test_path(dir, "b.trace.json"), 0, &je);
    cr_assert_not_null(d, "%s", je.text);
    cr_assert_eq(trace_check(d, why, sizeof why), 0, "%s", why);
    json_array_foreach(json_object_get(d, "traceEvents"), i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *nm = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
        double ts = json_number_value(json_object_get(e, "ts"));
        if (strcmp(ph, "X") == 0 && cat && strcmp(cat, "blocks") == 0 && (ts0 < 0 || ts < ts0))
            ts0 = ts;
        if (strcmp(ph, "M") == 0 && nm && strncmp(nm, "bubbles: ", 9) == 0)
            tracks++;
        if (strcmp(ph, "X") != 0 || !cat || strcmp(cat, "bubbles") != 0)
            continue;
        const char *role = json_string_value(json_object_get(json_object_get(e, "args"), "role"));
        double dur = json_number_value(json_object_get(e, "dur"));
        slices++;
        *(strcmp(role, "producer") == 0 ? &prod_us : &cons_us) += dur;
        if (dur > 499 && dur < 501)
            late = ts;
    }
    cr_assert_eq(slices, 3, "%d bubbles drawn", slices);
    cr_assert_eq(tracks, 3, "a track per role and SM with bubbles: %d", tracks);
    cr_assert_float_eq(prod_us, 1000.0, 0.01, "%g", prod_us);
    cr_assert_float_eq(cons_us, 1500.0, 0.01, "%g", cons_us);
    cr_assert_float_eq(late - ts0, 4500.0, 0.01, "the consumers' on SM 0 at 4.5 ms: %g",
                       late - ts0);
    json_decref(d);
}

/* The spans the trace draws: their count in *n, and of the last (spans
 * paired across records are drawn after the others) its length (us),
 * whether it ends on another track than it begins, and the role it ends
 * in ("" when its own); the checker accepts the document. */
static void traced_spans(int *n, double *us, int *moved, char *end_role, size_t cap)
{
    json_error_t je;
    json_t *d, *e, *b = NULL;
    size_t i;
    char why[256] = "";

    cr_assert_eq(pt_export_trace(t, test_path(dir, "spans.trace.json")), 0, "%s",
                 pt_last_error(t));
    d = json_load_file(test_path(dir, "spans.trace.json"), 0, &je);
    cr_assert_not_null(d, "%s", je.text);
    cr_assert_eq(trace_check(d, why, sizeof why), 0, "%s", why);
    *n = 0;
    json_array_foreach(json_object_get(d, "traceEvents"), i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (strcmp(ph, "b") == 0 && ++*n)
            b = e;
        else if (strcmp(ph, "e") == 0 && b &&
                 json_equal(json_object_get(e, "id"), json_object_get(b, "id"))) {
            const char *r = json_string_value(json_object_get(json_object_get(b, "args"),
                                                              "end_role"));
            *us = json_number_value(json_object_get(e, "ts")) -
                  json_number_value(json_object_get(b, "ts"));
            *moved = !json_equal(json_object_get(e, "tid"), json_object_get(b, "tid"));
            snprintf(end_role, cap, "%s", r ? r : "");
        }
    }
    json_decref(d);
}

/* The bubbles the last trace written (traced_spans) draws for role, in us. */
static double traced_bubbles_us(const char *role)
{
    json_error_t je;
    json_t *d = json_load_file(test_path(dir, "spans.trace.json"), 0, &je), *e;
    size_t i;
    double us = 0;

    cr_assert_not_null(d, "%s", je.text);
    json_array_foreach(json_object_get(d, "traceEvents"), i, e) {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *r = json_string_value(json_object_get(json_object_get(e, "args"), "role"));
        if (cat && strcmp(cat, "bubbles") == 0 && r && strcmp(r, role) == 0)
            us += json_number_value(json_object_get(e, "dur"));
    }
    json_decref(d);
    return us;
}

/* A span begun by one warp and ended by another of its block: the
 * records of one buffer pair on their SM (slots 0 and 1 on SM 0), those
 * on another SM do not (slot 2's end on SM 1 stays alone). */
Test(overlap, a_span_across_two_warps_of_a_block_is_paired)
{
    static const char *const kinds[] = { "tma" };
    pt_dev_records *b = pt_dev_records_create(t, 3, 2, cons_names, PT_DEV_HOST | PT_DEV_TRACE, 8);
    cr_assert_not_null(b);
    cr_assert_eq(pt_dev_records_spans(b, 1, kinds), 0);
    cr_assert_eq(pt_dev_reset(b, NULL), 0);
    slot(b, 0, 0, (const double[]){ WAIT, 1, WORK, 3 }, 2, 3, 0.5, -1);
    slot(b, 1, 0, (const double[]){ WAIT, 2, WORK, 3 }, 2, 3, -1, 1.75);
    slot(b, 2, 1, (const double[]){ WAIT, 2, WORK, 3 }, 2, 3, -1, 1.0);
    launch();
    cr_assert_eq(pt_dev_fold(t, b, "step"), 0, "%s", pt_last_error(t));
    pt_span_stats sp[2];
    cr_assert_eq(pt_section_spans_get(t, pt_find(t, "step"), sp, 2), 1);
    cr_assert_eq(sp[0].count, 1, "the begin of slot 0 and the end of slot 1");
    cr_assert_float_eq(sp[0].total_ms, 1.25, EPS, "%g", sp[0].total_ms);
    cr_assert_eq(sp[0].unmatched, 1, "the end on SM 1 began nowhere there");
    /* The trace draws it from slot 0's track to slot 1's; not the end alone. */
    int n = 0, moved = 0;
    double us = 0;
    char role[64];
    traced_spans(&n, &us, &moved, role, sizeof role);
    cr_assert_eq(n, 1, "one span drawn: %d", n);
    cr_assert_float_eq(us, 1250.0, 0.01, "%g us", us);
    cr_assert(moved, "it ends on the other warp's track");
    cr_assert_str_eq(role, "", "within one role");
    pt_dev_records_free(b);
}

/* A load the producer issued (a begin on SM 1 at 0.2 ms) that a consumer
 * waited for (its end at 0.8 ms): a span of the launch, no longer
 * unmatched in either role, and in flight for both roles' waits there
 * (SM 1's bubbles shrink from 1 ms to 0.4 each), whichever role folds
 * first. */
Test(overlap, a_span_from_one_role_to_another_is_the_launchs)
{
    static const char *const kinds[] = { "tma" };
    static const int waits[] = { WAIT };
    for (int order = 0; order < 2; order++) {
        pt_reset(t);
        pt_dev_records *p = producer(), *c = consumer();
        cr_assert_eq(pt_dev_records_spans(p, 1, kinds), 0);
        pt_dev_records_waits(p, 1, waits);
        pt_dev_records_waits(c, 1, waits);
        slot(p, 1, 1, (const double[]){ WAIT, 1, WORK, 2 }, 2, 2, 0.2, -1);
        slot(c, 2, 1, (const double[]){ WAIT, 2, WORK, 3 }, 2, 3, -1, 0.8);
        /* slot() counts DONE again: once is the truth. */
        for (int k = 0; k < 2; k++) {
            pt_dev_buf a = pt_dev_arg(k ? c : p);
            a.data[PT_DEV_HDR + (k ? 2 : 1) * PT_DEV_SLOT_WORDS(2, 8) + PT_DEV_S_DONE] = 1;
        }
        launch();
        cr_assert_eq(pt_dev_fold_role(t, order ? c : p, "step", order ? "consumers" : "producer"),
                     0, "%s", pt_last_error(t));
        cr_assert_eq(pt_dev_fold_role(t, order ? p : c, "step", order ? "producer" : "consumers"),
                     0, "%s", pt_last_error(t));
        pt_span_stats sp[2];
        cr_assert_eq(pt_section_spans_get(t, pt_find(t, "step"), sp, 2), 1, "order %d", order);
        cr_assert_str_eq(sp[0].name, "tma", "named as the begin's role names it");
        cr_assert_eq(sp[0].count, 1);
        cr_assert_float_eq(sp[0].total_ms, 0.6, EPS, "%g", sp[0].total_ms);
        int n = pt_section_spans_get(t, pt_find(t, "step/producer"), sp, 2);
        for (int i = 0; i < n; i++)
            cr_assert_eq(sp[i].unmatched, 0, "producer's %s", sp[i].name);
        n = pt_section_spans_get(t, pt_find(t, "step/consumers"), sp, 2);
        cr_assert_eq(n, 0, "the consumers' one end went to the launch: no empty kind stays");
        cr_assert_float_eq(get(t, "step/producer").bubble_ms, (0 + 0.4) / 2, EPS, "%g",
                           get(t, "step/producer").bubble_ms);
        cr_assert_float_eq(get(t, "step/consumers").bubble_ms, (0.5 + 0.4) / 2, EPS, "%g",
                           get(t, "step/consumers").bubble_ms);
        /* Drawn from the producer's block to the consumer's. */
        int drawn = 0, moved = 0;
        double us = 0;
        char role[64];
        traced_spans(&drawn, &us, &moved, role, sizeof role);
        cr_assert_eq(drawn, 2, "order %d: the producer's own and this: %d", order, drawn);
        cr_assert_float_eq(us, 600.0, 0.01, "%g us", us);
        cr_assert(moved);
        cr_assert_str_eq(role, "consumers", "ends in the consumers' record");
        /* And the span shortens both roles' drawn bubbles on SM 1, as the
         * figures: the producer's to 0.4 ms, the consumers' to 0.5 + 0.4. */
        cr_assert_float_eq(traced_bubbles_us("producer"), 400.0, 0.01, "%g",
                           traced_bubbles_us("producer"));
        cr_assert_float_eq(traced_bubbles_us("consumers"), 900.0, 0.01, "%g",
                           traced_bubbles_us("consumers"));
        pt_dev_records_free(p);
        pt_dev_records_free(c);
    }
}

/* Random intervals on 3 SMs over [0, 64): lengths, intersections and the
 * SMs counted against a bitmap of every cycle. */
Test(overlap, the_interval_algebra_agrees_with_a_brute_force)
{
    srand(7);
    for (int round = 0; round < 200; round++) {
        pt__ivs a = { 0 }, b = { 0 };
        unsigned char in_a[3][64] = { { 0 } }, in_b[3][64] = { { 0 } };
        for (int k = rand() % 12; k > 0; k--) {
            int sm = rand() % 3, lo = rand() % 64, hi = lo + rand() % 16;
            hi = hi > 64 ? 64 : hi;
            cr_assert_eq(pt__ivs_add(&a, sm, lo, hi), 0);
            for (int x = lo; x < hi; x++)
                in_a[sm][x] = 1;
        }
        for (int k = rand() % 12; k > 0; k--) {
            int sm = rand() % 3, lo = rand() % 64, hi = lo + rand() % 16;
            hi = hi > 64 ? 64 : hi;
            cr_assert_eq(pt__ivs_add(&b, sm, lo, hi), 0);
            for (int x = lo; x < hi; x++)
                in_b[sm][x] = 1;
        }
        pt__ivs_norm(&a);
        pt__ivs_norm(&b);
        long long la = 0, both = 0, sms = 0;
        for (int sm = 0; sm < 3; sm++) {
            int any = 0;
            for (int x = 0; x < 64; x++) {
                la += in_a[sm][x];
                both += in_a[sm][x] && in_b[sm][x];
                any |= in_a[sm][x];
            }
            sms += any;
        }
        for (size_t i = 1; i < a.n; i++)
            cr_assert(a.v[3 * i] > a.v[3 * i - 3] || a.v[3 * i + 1] > a.v[3 * i - 1],
                      "normed: sorted, apart");
        cr_assert_eq(pt__ivs_len(&a), la, "round %d", round);
        cr_assert_eq(pt__ivs_inter_len(&a, &b), both, "round %d", round);
        cr_assert_eq(pt__ivs_inter_len(&b, &a), both, "round %d", round);
        cr_assert_eq(pt__ivs_sms(&a), sms, "round %d", round);
        pt__ivs_free(&a);
        pt__ivs_free(&b);
    }
}
