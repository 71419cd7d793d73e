/* How a launch's blocks filled the device (pt_section_stats' shape_folds
 * to straggler_sm, pt_section_slowest_get()): hand-written block records
 * with known BEGIN/END times and SMs give the waves, span, tail, idle
 * share, slowest block and stragglers a hand computation gives; every
 * report shows them, and packs, merges and ptreport keep them.
 *
 * The launch of shaped(): five blocks on two SMs (times in ms from the
 * first BEGIN):
 *
 *   SM 0   block 0 [0, 1]  block 1 [0, 1]  block 2 [1, 2]
 *   SM 1   block 3 [0, 1]  block 4 [1.5, 4]
 *
 * span 4; SM 0 holds two blocks at once (block 2 begins as 0 and 1 end),
 * SM 1 one; SM 0 busy 2 ms, SM 1 3.5 ms (idle from 1 to 1.5); SM 0 falls
 * idle first, at 2, so the tail is 2 ms (50%); SM 1's last END is 2 ms
 * after the median SM's (SM 0's), more than a tenth of the span: a
 * straggler. Block 4 is the slowest: 2.5 ms, 1 ms of phase 0 and 1.5 of
 * phase 1. At 2 cycles per ns (fake_run_setup's calibration). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pt/pt_dev.h>

#include "browser.h"
#include "common.h"
#include "cuda_fake.h"
#include "records_fake.h"

FAKE_RUN_SUITE(shape, PT_GPU_EVENTS);

#define in_dir(name) test_path(dir, (name))
#define MS 1000000LL

/* Block s on sm over [gt0, gt0 + span) ns, its phases c0 and c1 ns. */
static void block(pt_dev_records *b, int s, long long sm, long long gt0, long long span,
                  long long c0, long long c1)
{
    test_slot(b, s, sm, 2 * span, gt0, span, (long long[]){ 2 * c0, 2 * c1 }, NULL);
}

static void launch(pt_dev_records *b)
{
    pt_start_gpu(t, "step", 0);
    fake.now_ms += 4.0;
    pt_stop_gpu(t, "step", 0);
    cr_assert_eq(pt_dev_fold(t, b, "step"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
}

/* The launch above, folded once, from records made with flags, block k
 * in slot slot_of[k]; then with `second`, a launch of two 1 ms blocks
 * side by side on SMs 0 and 1. */
static void shaped_in(unsigned flags, int second, const int slot_of[5])
{
    pt_dev_records *b = pt_dev_records_create(t, 5, 2, NULL, flags, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, NULL), 0, "%s", pt_last_error(t));
    block(b, slot_of[0], 0, 0, 1 * MS, MS / 2, MS / 2);
    block(b, slot_of[1], 0, 0, 1 * MS, MS / 2, MS / 2);
    block(b, slot_of[2], 0, 1 * MS, 1 * MS, MS / 2, MS / 2);
    block(b, slot_of[3], 1, 0, 1 * MS, MS / 2, MS / 2);
    block(b, slot_of[4], 1, 3 * MS / 2, 5 * MS / 2, 1 * MS, 3 * MS / 2);
    launch(b);
    if (second) {
        cr_assert_eq(pt_dev_reset(b, NULL), 0, "%s", pt_last_error(t));
        block(b, 0, 0, 0, 1 * MS, MS / 2, MS / 2);
        block(b, 1, 1, 0, 1 * MS, MS / 2, MS / 2);
        launch(b);
    }
    pt_dev_records_free(b);
}

static void shaped(unsigned flags, int second)
{
    shaped_in(flags, second, (const int[]){ 0, 1, 2, 3, 4 });
}

static pt_section_stats stats_of(pt_timing *x, const char *path)
{
    pt_section_stats st;
    const pt_section *s = pt_find(x, path);
    cr_assert_not_null(s, "%s", path);
    cr_assert_eq(pt_section_get(x, s, &st), 0);
    return st;
}

#define EPS 1e-9

static void assert_one_fold_slowest(pt_timing *x, double sms, int slowest)
{
    pt_section_stats st = stats_of(x, "step");
    cr_assert_eq(st.shape_folds, 1);
    cr_assert_eq(st.sm_resident, 2, "SM 0 held blocks 0 and 1 at once: %llu",
                 (unsigned long long)st.sm_resident);
    cr_assert_float_eq((double)st.device_sms, sms, 0);
    cr_assert_float_eq(st.waves, 5 / (2 * sms), EPS, "%g", st.waves);
    cr_assert_float_eq(st.span_ms, 4.0, EPS, "%g", st.span_ms);
    cr_assert_float_eq(st.tail_ms, 2.0, EPS, "%g", st.tail_ms);
    cr_assert_float_eq(st.tail_pct, 50.0, EPS);
    cr_assert_float_eq(st.sm_idle_pct, 100 * (1 - 5.5 / (4 * sms)), EPS, "%g", st.sm_idle_pct);
    cr_assert_eq(st.slowest_block, slowest);
    cr_assert_eq(st.slowest_block_sm, 1);
    cr_assert_float_eq(st.slowest_block_ms, 2.5, EPS);
    cr_assert_eq(st.stragglers, 1, "SM 1: %llu", (unsigned long long)st.stragglers);
    cr_assert_eq(st.straggler_sm, 1);
    const char *names[4];
    double ms[4];
    int n = pt_section_slowest_get(x, pt_find(x, "step"), names, ms, 4);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(names[0], "phase 0");
    cr_assert_str_eq(names[1], "phase 1");
    cr_assert_float_eq(ms[0], 1.0, EPS);
    cr_assert_float_eq(ms[1], 1.5, EPS);
}

static void assert_one_fold(pt_timing *x, double sms)
{
    assert_one_fold_slowest(x, sms, 4);
}

/* The same launch with its blocks in other slots: the SMs interleaved,
 * SM 0's blocks written latest BEGIN first, SM 1's too. The fold sorts
 * them by SM and BEGIN, whatever order they were written in. */
Test(shape, the_figures_do_not_depend_on_the_order_of_the_slots)
{
    static const int slot_of[][5] = { { 4, 3, 0, 2, 1 }, { 3, 1, 2, 4, 0 }, { 1, 0, 4, 3, 2 } };
    fake.attr[16] = 132; /* cudaDevAttrMultiProcessorCount */
    fake.attr_set[16] = 1;
    for (int i = 0; i < 3; i++) {
        pt_destroy(t);
        t = test_timing(&clk, "shape run", PT_GPU_EVENTS);
        cr_assert_not_null(t);
        shaped_in(0, 0, slot_of[i]);
        assert_one_fold_slowest(t, 132, slot_of[i][4]);
    }
}

/* Five SMs, one block each from 0 to 5, 1, 4, 2 and 3 ms: the median
 * SM's last END is 3 ms, so the SMs ending at 5 and 4 ms are stragglers
 * (past 3 + 5 / 10); the first SM falls idle at 1 ms, a tail of 4. */
Test(shape, the_median_sm_and_the_first_idle_come_from_unordered_ends)
{
    static const long long end_ms[5] = { 5, 1, 4, 2, 3 };
    fake.attr[16] = 5; /* cudaDevAttrMultiProcessorCount */
    fake.attr_set[16] = 1;
    pt_dev_records *b = pt_dev_records_create(t, 5, 2, NULL, 0, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, NULL), 0, "%s", pt_last_error(t));
    for (int k = 0; k < 5; k++)
        block(b, k, k, 0, end_ms[k] * MS, end_ms[k] * MS / 2, end_ms[k] * MS / 2);
    launch(b);
    pt_dev_records_free(b);
    pt_section_stats st = stats_of(t, "step");
    cr_assert_float_eq(st.span_ms, 5.0, EPS, "%g", st.span_ms);
    cr_assert_float_eq(st.tail_ms, 4.0, EPS, "%g", st.tail_ms);
    cr_assert_eq(st.stragglers, 2, "%llu", (unsigned long long)st.stragglers);
    cr_assert_eq(st.straggler_sm, 0);
    cr_assert_float_eq(st.waves, 1.0, EPS, "%g", st.waves);
}

Test(shape, host_mode_counts_the_cpus_it_saw)
{
    shaped(PT_DEV_HOST, 0);
    assert_one_fold(t, 2);
}

Test(shape, on_a_device_every_sm_counts)
{
    fake.attr[16] = 132; /* cudaDevAttrMultiProcessorCount */
    fake.attr_set[16] = 1;
    shaped(0, 0);
    assert_one_fold(t, 132);
}

/* Blocks whose END reads the BEGIN's %globaltimer (a tick coarser than
 * the block): each is resident at its own BEGIN, so an SM holds at least
 * one and the waves stay finite: 2 blocks on 2 SMs, one wave. */
Test(shape, blocks_of_no_length_are_resident_once)
{
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, NULL, PT_DEV_HOST, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    cr_assert_eq(pt_dev_reset(b, NULL), 0);
    test_slot(b, 0, 0, 2000, 0, 0, (long long[]){ 1000, 1000 }, NULL);
    test_slot(b, 1, 1, 2000, 1 * MS, 0, (long long[]){ 1000, 1000 }, NULL);
    launch(b);
    pt_dev_records_free(b);
    pt_section_stats st = stats_of(t, "step");
    cr_assert_eq(st.sm_resident, 1, "%llu", (unsigned long long)st.sm_resident);
    cr_assert_float_eq(st.waves, 1.0, EPS, "%g", st.waves);
}

Test(shape, a_phase_or_a_section_without_records_has_none)
{
    shaped(PT_DEV_HOST, 0);
    pt_start(t, "cpu");
    clk.now += 1000;
    pt_stop(t, "cpu");
    cr_assert_eq(stats_of(t, "step/phase 0").shape_folds, 0);
    cr_assert_eq(stats_of(t, "cpu").shape_folds, 0);
    cr_assert_float_eq(stats_of(t, "cpu").waves, 0, 0);
    cr_assert_eq(pt_section_slowest_get(t, pt_find(t, "cpu"), NULL, NULL, 0), 0);
    cr_assert_eq(pt_section_slowest_get(t, NULL, NULL, NULL, 0), PT_EINVAL);
    cr_assert_eq(pt_section_slowest_get(t, pt_find(t, "step"), NULL, NULL, -1), PT_EINVAL);
    cr_assert_eq(pt_section_slowest_get(t, pt_find(t, "step"), NULL, NULL, 0), 2, "the count");
}

/* Two launches: the means of the two (the second: 1 wave, no tail, no
 * idle SM over 1 ms), the most of each "most". */
static void assert_two_folds(pt_timing *x, double folds)
{
    pt_section_stats st = stats_of(x, "step");
    cr_assert_float_eq((double)st.shape_folds, folds, 0);
    cr_assert_float_eq(st.waves, (1.25 + 1.0) / 2, EPS, "%g", st.waves);
    cr_assert_float_eq(st.span_ms, 2.5, EPS);
    cr_assert_float_eq(st.tail_ms, 1.0, EPS);
    cr_assert_float_eq(st.tail_pct, 40.0, EPS, "2 ms of tail in 5 ms of span: %g", st.tail_pct);
    cr_assert_float_eq(st.sm_idle_pct, 31.25 / 2, EPS, "%g", st.sm_idle_pct);
    cr_assert_eq(st.sm_resident, 2);
    cr_assert_eq(st.stragglers, 1);
    cr_assert_eq(st.slowest_block, 4, "the first launch's");
    cr_assert_float_eq(st.slowest_block_ms, 2.5, EPS);
}

Test(shape, repeated_launches_give_means)
{
    shaped(PT_DEV_HOST, 1);
    assert_two_folds(t, 2);
}

static char *report(pt_timing *x)
{
    return fake_report(x);
}

/* The line of text that starts with what, cut off at its end. */
static char *line_of(char *text, const char *what)
{
    char *p = strstr(text, what), *e;
    cr_assert_not_null(p, "a %s line in:\n%s", what, text);
    if ((e = strchr(p, '\n')) != NULL)
        *e = '\0';
    return p;
}

static const char waves_line[] =
    "waves: 0.02 (at most 2 blocks per SM at once, 132 SMs); span 4.000 ms, tail 2.000 ms "
    "(50.0%), SMs idle 99.0%; 1 straggler SM, the last SM 1";
static const char slowest_line[] =
    "slowest block: 4 on SM 1, 2.500 ms: phase 0 1.000, phase 1 1.500";

Test(shape, the_text_report_says_waves_tail_and_the_slowest_block)
{
    fake.attr[16] = 132;
    fake.attr_set[16] = 1;
    shaped(0, 0);
    char *text = report(t), *again = strdup(text);
    cr_assert_str_eq(line_of(text, "waves:"), waves_line);
    cr_assert_str_eq(line_of(again, "slowest block:"), slowest_line);
    free(text);
    free(again);
    pt_destroy(t);
    t = test_timing(&clk, "shape run", PT_GPU_EVENTS);
    shaped(PT_DEV_HOST, 1);
    text = report(t);
    cr_assert(strstr(text, "at most 2 blocks per CPU at once, 2 CPUs"), "host mode: %s", text);
    cr_assert(strstr(text, "(mean of 2 launches)"), "%s", text);
    free(text);
}

Test(shape, json_csv_and_the_page_carry_it)
{
    shaped(PT_DEV_HOST, 0);
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0, "%s", pt_last_error(t));
    json_error_t je;
    json_t *d = json_load_file(in_dir("run.json"), 0, &je);
    cr_assert_not_null(d, "%s", je.text);
    json_t *step = json_array_get(json_object_get(d, "sections"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(step, "name")), "step");
    cr_assert_float_eq(json_number_value(json_object_get(step, "waves")), 1.25, EPS);
    cr_assert_float_eq(json_number_value(json_object_get(step, "tail_pct")), 50, EPS);
    cr_assert_eq(json_integer_value(json_object_get(step, "slowest_block")), 4);
    json_t *sp = json_object_get(step, "slowest_phases");
    cr_assert(json_is_array(sp) && json_array_size(sp) == 2);
    cr_assert_str_eq(json_string_value(json_array_get(json_array_get(sp, 1), 0)), "phase 1");
    cr_assert_float_eq(json_number_value(json_array_get(json_array_get(sp, 1), 1)), 1.5, EPS);
    json_decref(d);

    cr_assert_eq(pt_export_csv(t, in_dir("run.csv")), 0, "%s", pt_last_error(t));
    char *csv = test_read_file(in_dir("run.csv"));
    cr_assert(strstr(csv, ",shape_folds,waves,sm_resident,device_sms,span_ms,tail_ms,tail_pct,"
                          "sm_idle_pct,slowest_block,slowest_block_ms,slowest_block_sm,"
                          "stragglers,straggler_sm,sample_every,sample_slots,"),
              "the columns: %.300s", csv);
    free(csv);

    cr_assert_eq(pt_export_html(t, in_dir("run.html")), 0, "%s", pt_last_error(t));
    char *h = test_read_file(in_dir("run.html"));
    cr_assert(strstr(h, "\"slowest_phases\":[[\"phase 0\", 1], [\"phase 1\", 1.5]]"),
              "the page's data");
    free(h);
}

Test(shape, packed_and_merged_it_adds_up)
{
    shaped(PT_DEV_HOST, 0);
    void *buf;
    size_t len;
    cr_assert_eq(pt_pack(t, &buf, &len), 0);
    pt_timing *u = test_timing(&clk, "merged", PT_CPU);
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    assert_one_fold(u, 2);
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    pt_section_stats st = stats_of(u, "step");
    cr_assert_eq(st.shape_folds, 2);
    cr_assert_float_eq(st.waves, 1.25, EPS);
    cr_assert_float_eq(st.tail_pct, 50, EPS);
    pt_destroy(u);
    /* A shape no fold gives is refused whole: more stragglers than SMs.
     * After the title: the count, 14 figures, cpu_timed and the marks'
     * cost (136 bytes), then the shape, its stragglers 40 bytes in. */
    unsigned char *p = buf;
    size_t at = 0;
    for (size_t i = 0; i + 4 < len && !at; i++)
        if (memcmp(p + i, "step", 4) == 0)
            at = i;
    cr_assert_gt(at, 0);
    cr_assert(p[at - 5] & 4, "flag bit 2 says a shape follows: %#x", p[at - 5]);
    cr_assert_eq(p[at + 4 + 136 + 40], 1, "the stragglers' low byte");
    p[at + 4 + 136 + 40] = 3;
    u = test_timing(&clk, "bad", PT_CPU);
    cr_assert_eq(pt_unpack_merge(u, buf, len), PT_EPARSE);
    cr_assert(strstr(pt_last_error(u), "a launch's shape that no fold gives"), "%s",
              pt_last_error(u));
    cr_assert_null(pt_find(u, "step"), "nothing merged");
    free(buf);
    pt_destroy(u);
}

static int ptreport(const char *args)
{
    return fake_ptreport(dir, args);
}

Test(shape, ptreport_shows_and_merges_it)
{
    char args[512];
    fake.attr[16] = 132;
    fake.attr_set[16] = 1;
    shaped(0, 0);
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0, "%s", pt_last_error(t));
    snprintf(args, sizeof args, "show '%s'", in_dir("run.json"));
    cr_assert_eq(ptreport(args), 0);
    char *shown = test_read_file(in_dir("out.txt")), *again = strdup(shown);
    cr_assert_str_eq(line_of(shown, "waves:"), waves_line);
    cr_assert_str_eq(line_of(again, "slowest block:"), slowest_line);
    free(shown);
    free(again);

    snprintf(args, sizeof args, "cp '%s' '%s'", in_dir("run.json"), in_dir("run2.json"));
    cr_assert_eq(system(args), 0, "%s", args);
    snprintf(args, sizeof args, "merge '%s' '%s' -o '%s'", in_dir("run.json"), in_dir("run2.json"),
             in_dir("both.json"));
    cr_assert_eq(ptreport(args), 0);
    snprintf(args, sizeof args, "show '%s'", in_dir("both.json"));
    cr_assert_eq(ptreport(args), 0);
    shown = test_read_file(in_dir("out.txt"));
    cr_assert(strstr(shown, "(50.0%), SMs idle 99.0%; 1 straggler SM, the last SM 1 (mean of 2 "
                            "launches)"), "%s", shown);
    free(shown);

    /* A phase of the slowest block must be [name, ms >= 0]. */
    char *j = test_read_file(in_dir("run.json"));
    char *p = strstr(j, "[\"phase 1\", ");
    cr_assert_not_null(p, "%s", j);
    p += strlen("[\"phase 1\", ");
    FILE *f = fopen(in_dir("bad.json"), "w");
    cr_assert_not_null(f);
    fprintf(f, "%.*s-%s", (int)(p - j), j, p);
    fclose(f);
    free(j);
    snprintf(args, sizeof args, "show '%s'", in_dir("bad.json"));
    cr_assert_eq(ptreport(args), 2);
    char *err = test_read_file(in_dir("err.txt"));
    cr_assert(strstr(err, "a phase of the slowest block must be [name, ms >= 0]"), "%s", err);
    free(err);
}

/* The trace's "launch tails" track: each launch's slice from its first SM
 * falling idle to its last END, as long as the report's tail, ending
 * where the launch's last block ends. */
Test(shape, the_trace_draws_each_launchs_tail)
{
    pt_destroy(t);
    t = test_timing(&clk, "shape run", PT_TRACE | PT_GPU_EVENTS);
    shaped(PT_DEV_HOST, 1);
    cr_assert_eq(pt_export_trace(t, in_dir("run.trace.json")), 0, "%s", pt_last_error(t));
    json_error_t je;
    json_t *d = json_load_file(in_dir("run.trace.json"), 0, &je), *e;
    cr_assert_not_null(d, "%s", je.text);
    size_t i, tails = 0;
    double ends_max = 0, tail_end = 0;
    json_array_foreach(json_object_get(d, "traceEvents"), i, e) {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        json_t *args = json_object_get(e, "args");
        double ts = json_number_value(json_object_get(e, "ts"));
        double dur = json_number_value(json_object_get(e, "dur"));
        if (!cat)
            continue;
        if (strcmp(cat, "blocks") == 0 && json_integer_value(json_object_get(args, "launch")) == 0 &&
            ts + dur > ends_max)
            ends_max = ts + dur;
        if (strcmp(cat, "tail") != 0)
            continue;
        long long launch = json_integer_value(json_object_get(args, "launch"));
        double want = launch == 0 ? 2.0 : 0.0; /* the first launch's 2 ms; none in the second */
        cr_assert_float_eq(dur / 1e3, want, 1e-9, "launch %lld: %g us", launch, dur);
        cr_assert_float_eq(json_number_value(json_object_get(args, "tail_ms")), want, 1e-12);
        cr_assert_eq(json_integer_value(json_object_get(args, "cpus")), 2);
        if (launch == 0)
            tail_end = ts + dur;
        tails++;
    }
    cr_assert_eq(tails, 2, "one slice a launch");
    cr_assert_float_eq(tail_end, ends_max, 1e-6, "the tail ends with the last block");
    pt_section_stats st = stats_of(t, "step");
    cr_assert_float_eq(st.tail_ms, (2.0 + 0.0) / 2, EPS, "the report's mean of the two");
    json_decref(d);
}

/* The page's "Launches" table: one row for the launch, its waves, tail and
 * slowest block's phases; its tip says them in words. */
Test(shape, the_page_shows_the_launches_table, .timeout = 120)
{
    char url[128];
    shaped(PT_DEV_HOST, 0);
    cr_assert_eq(pt_export_html(t, in_dir("run.html")), 0, "%s", pt_last_error(t));
    snprintf(url, sizeof url, "file://%s", in_dir("run.html"));
    test_browse(dir, url, "--dump-dom", in_dir("dom.html"));
    char *h = test_read_file(in_dir("dom.html"));
    char *tab = strstr(h, "id=\"pt-stats-launches\"");
    cr_assert_not_null(tab, "the Launches table");
    cr_assert(strstr(tab, "<td>1.25</td>"), "the waves: %.2000s", tab);
    cr_assert(strstr(tab, "50.0%"), "the tail's share");
    cr_assert(strstr(tab, "phase 0 1.000, phase 1 1.500"), "the slowest block's phases");
    free(h);
}

/* A sampled launch (pt_dev_records_sample) says so in the text and the
 * JSON, and ptreport reads it back; without PT_LAUNCH the grid is not
 * known, so no "of N". */
Test(shape, a_sample_is_said_and_read_back)
{
    char args[512];
    pt_dev_records *b = pt_dev_records_create(t, 2, 2, NULL, PT_DEV_HOST, 0);
    cr_assert_eq(pt_dev_records_sample(b, 8), 0);
    cr_assert_eq(pt_dev_reset(b, NULL), 0, "%s", pt_last_error(t));
    block(b, 0, 0, 0, 1 * MS, MS / 2, MS / 2);
    block(b, 1, 1, 0, 1 * MS, MS / 2, MS / 2);
    launch(b);
    pt_dev_records_free(b);
    pt_section_stats st = stats_of(t, "step");
    cr_assert_eq(st.sample_every, 8);
    cr_assert_eq(st.sample_slots, 0, "no PT_LAUNCH: the grid is not known");
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0, "%s", pt_last_error(t));
    snprintf(args, sizeof args, "show '%s'", in_dir("run.json"));
    cr_assert_eq(ptreport(args), 0);
    char *shown = test_read_file(in_dir("out.txt")), *live = report(t);
    cr_assert_str_eq(line_of(shown, "sampled:"), "sampled: 1 slot in 8 recorded; the phases are "
                     "the sampled blocks' shares of the launch, the per-block figures the "
                     "sample's");
    cr_assert_str_eq(line_of(live, "sampled:"), line_of(shown, "sampled:"));
    free(shown);
    free(live);
}
