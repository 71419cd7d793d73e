/* Spans (PT_DEV_SPAN_BEGIN/END) as the fold reads them: trace records
 * written by hand with span events among the marks give each kind's
 * count, total, p50, p99, max and unmatched events as a hand computation
 * does; every report shows them, packs, merges and ptreport keep them, and
 * the trace draws each as an async slice.
 *
 * At 2 cycles per ns (fake_run_setup's calibration). Slot 0: "tma" 0 and 1
 * begin at 0 and 200,000 cycles, a mark at 400,000, they end at 1,000,000
 * and 1,200,000 (0.5 ms each), a "span 1" begins at 1,300,000 and never
 * ends, a "tma" 9 ends at 1,400,000 that never began. Slot 1: "tma" 0
 * from 0 to 4,000,000 (2 ms). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include <pt/pt_dev.h>

#include "common.h"
#include "cuda_fake.h"
#include "records_fake.h"
#include "trace_check.h"

FAKE_RUN_SUITE(spans, PT_TRACE);

#define EPS 1e-9
#define B(kind, id) PT_DEV_EV_SPAN_CODE(kind, id, 0)
#define E(kind, id) PT_DEV_EV_SPAN_CODE(kind, id, 1)

static void events(pt_dev_records *b, int s, const long long *ev, int n)
{
    pt_dev_buf a = pt_dev_arg(b);
    long long *r = a.data + PT_DEV_HDR + s * PT_DEV_SLOT_WORDS(a.nphases, a.trace_cap);
    long long *e = r + PT_DEV_SLOT_HDR + 2 * a.nphases;
    for (int i = 0; i < n; i++) {
        e[2 * i] = ev[2 * i];
        e[2 * i + 1] = r[PT_DEV_S_CLK0] + ev[2 * i + 1];
    }
    r[PT_DEV_S_NEVENTS] = n;
}

static void folded(void)
{
    static const char *const kinds[] = { "tma" };
    pt_dev_records *b = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_HOST | PT_DEV_TRACE, 16);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_records_spans(b, 1, kinds), 0);
    cr_assert_eq(pt_dev_records_spans(b, -1, kinds), PT_EINVAL);
    cr_assert_eq(pt_dev_records_spans(b, 1, (const char *const[]){ NULL }), PT_EINVAL);
    for (int s = 0; s < 2; s++)
        test_slot(b, s, s, 8000000, 0, 4000000, (long long[]){ 400000 }, NULL);
    events(b, 0, (const long long[]){ B(0, 0), 0, B(0, 1), 200000, 0, 400000, E(0, 0), 1000000,
                                      E(0, 1), 1200000, B(1, 3), 1300000, E(0, 9), 1400000 },
           7);
    events(b, 1, (const long long[]){ B(0, 0), 0, 0, 400000, E(0, 0), 4000000 }, 3);
    pt_start(t, "step");
    clk.now += 5000000;
    pt_stop(t, "step");
    cr_assert_eq(pt_dev_fold(t, b, "step"), 0, "%s", pt_last_error(t));
    pt_dev_records_free(b);
}

static void assert_spans(pt_timing *x, double times)
{
    pt_span_stats sp[4];
    int n = pt_section_spans_get(x, pt_find(x, "step"), sp, 4);
    cr_assert_eq(n, 2, "two kinds: %d", n);
    cr_assert_str_eq(sp[0].name, "tma");
    cr_assert_float_eq((double)sp[0].count, 3 * times, 0);
    cr_assert_float_eq((double)sp[0].unmatched, 1 * times, 0, "the end that never began");
    cr_assert_float_eq(sp[0].total_ms, 3.0 * times, EPS, "0.5 + 0.5 + 2 ms: %g", sp[0].total_ms);
    cr_assert_float_eq(sp[0].mean_ms, 1.0, EPS);
    cr_assert_float_eq(sp[0].max_ms, 2.0, EPS);
    cr_assert(fabs(sp[0].p50_ms - 0.5) <= 0.032 * 0.5, "p50 %g", sp[0].p50_ms);
    cr_assert(fabs(sp[0].p99_ms - 2.0) <= 0.032 * 2.0, "p99 %g", sp[0].p99_ms);
    cr_assert_str_eq(sp[1].name, "span 1", "a kind without a name");
    cr_assert_eq(sp[1].count, 0);
    cr_assert_float_eq((double)sp[1].unmatched, 1 * times, 0, "the begin never closed");
}

Test(spans, each_kind_is_counted_and_timed)
{
    folded();
    assert_spans(t, 1);
    /* The phase is the marks' alone: the spans charge nothing. */
    pt_section_stats ph;
    cr_assert_eq(pt_section_get(t, pt_find(t, "step/phase 0"), &ph), 0);
    cr_assert_float_eq(ph.block_mean_ms, 0.2, EPS, "400,000 cycles a block");
    cr_assert_eq(pt_section_spans_get(t, pt_find(t, "step/phase 0"), NULL, 0), 0);
    cr_assert_eq(pt_section_spans_get(t, NULL, NULL, 0), PT_EINVAL);
    cr_assert_eq(pt_section_spans_get(t, pt_find(t, "step"), NULL, 1), PT_EINVAL);
}

static char *line_of(char *text, const char *what)
{
    char *p = strstr(text, what), *e;
    cr_assert_not_null(p, "a %s line in:\n%s", what, text);
    if ((e = strchr(p, '\n')) != NULL)
        *e = '\0';
    return p;
}

static const char tma_line[] = "span tma: 3, total 3.000 ms; mean 1.000, p50 0.500, p99 1.999, "
                               "max 2.000 ms; 1 begin or end left unmatched";

Test(spans, the_text_json_and_ptreport_say_them)
{
    char args[512];
    folded();
    char *text = fake_report(t);
    cr_assert_str_eq(line_of(text, "span tma:"), tma_line);
    free(text);
    cr_assert_eq(pt_export_json(t, test_path(dir, "run.json")), 0, "%s", pt_last_error(t));
    json_error_t je;
    json_t *d = json_load_file(test_path(dir, "run.json"), 0, &je);
    cr_assert_not_null(d, "%s", je.text);
    json_t *sp = json_object_get(json_array_get(json_object_get(d, "sections"), 0), "spans");
    cr_assert(json_is_array(sp) && json_array_size(sp) == 2);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(sp, 0), "count")), 3);
    cr_assert_eq(json_array_size(json_object_get(json_array_get(sp, 0), "hist")), 2,
                 "two bins: 0.5 ms twice, 2 ms once");
    json_decref(d);
    snprintf(args, sizeof args, "show '%s'", test_path(dir, "run.json"));
    cr_assert_eq(fake_ptreport(dir, args), 0);
    char *shown = test_read_file(test_path(dir, "out.txt"));
    cr_assert_str_eq(line_of(shown, "span tma:"), tma_line);
    free(shown);
    snprintf(args, sizeof args, "cp '%s' '%s'", test_path(dir, "run.json"),
             test_path(dir, "run2.json"));
    cr_assert_eq(system(args), 0);
    snprintf(args, sizeof args, "merge '%s' '%s' -o '%s'", test_path(dir, "run.json"),
             test_path(dir, "run2.json"), test_path(dir, "both.json"));
    cr_assert_eq(fake_ptreport(dir, args), 0);
    snprintf(args, sizeof args, "show '%s'", test_path(dir, "both.json"));
    cr_assert_eq(fake_ptreport(dir, args), 0);
    shown = test_read_file(test_path(dir, "out.txt"));
    cr_assert_str_eq(line_of(shown, "span tma:"), "span tma: 6, total 6.000 ms; mean 1.000, "
                     "p50 0.500, p99 1.999, max 2.000 ms; 2 begins or ends left unmatched");
    free(shown);
}

static void spans_times(pt_timing *u, int times)
{
    assert_spans(u, times);
}

Test(spans, packed_and_merged_they_add_up)
{
    folded();
    fake_pack_twice(t, &clk, spans_times, 60);
}

/* The trace: each span an async slice ("b" and "e" of one id) on its
 * block's track, 3 in all (an event left alone is not drawn), as long as
 * the span; the checker accepts the document. */
Test(spans, the_trace_draws_each_span)
{
    folded();
    cr_assert_eq(pt_export_trace(t, test_path(dir, "run.trace.json")), 0, "%s", pt_last_error(t));
    json_error_t je;
    json_t *d = json_load_file(test_path(dir, "run.trace.json"), 0, &je), *e;
    cr_assert_not_null(d, "%s", je.text);
    char why[256] = "";
    cr_assert_eq(trace_check(d, why, sizeof why), 0, "%s", why);
    size_t i, begins = 0;
    double total_us = 0;
    json_array_foreach(json_object_get(d, "traceEvents"), i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        double ts = json_number_value(json_object_get(e, "ts"));
        if (strcmp(ph, "b") == 0) {
            begins++;
            cr_assert_str_eq(json_string_value(json_object_get(e, "name")), "tma");
            total_us -= ts;
        } else if (strcmp(ph, "e") == 0) {
            total_us += ts;
        }
    }
    cr_assert_eq(begins, 3);
    cr_assert_float_eq(total_us, 3000.0, 0.01, "3 ms of spans: %g us", total_us);
    json_decref(d);
}
