/* Which SMs a phase's time went to: folded block records on known SMs
 * give each SM's total, the figures over them (pt_section_stats.sms to
 * sm_imbalance, pt_section_sm_get()), and every report shows them: the
 * text tree's "by SM" line, the JSON's "sm_ms", the CSV's sm_ms column
 * and the HTML page's data; ptreport reads them back from the JSON.
 *
 * 2 cycles per ns, as the fold suite sets it: a block's own rate is its
 * clock64 span over its globaltimer span (2,000,000 over 1,000,000 ns). */
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

FAKE_RUN_SUITE(sm, PT_GPU_EVENTS);

#define in_dir(name) test_path(dir, (name))

static void slot(pt_dev_records *b, int s, long long smid, long long c0, long long c1)
{
    test_slot(b, s, smid, 2000000, 0, 1000000, (long long[]){ c0, c1 }, NULL);
}

/* "step" folded `folds` times from device records (flags 0, or PT_DEV_HOST
 * for host mode): phase 0 gets 0.1 ms on SM 0, 0.3 + 0.5 ms on SM 3 and
 * 0.2 ms on SM 5 each fold; phase 1 0.05 ms on SM 3 only. */
static void run_in(int folds, unsigned flags)
{
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, NULL, flags, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    for (int f = 0; f < folds; f++) {
        cr_assert_eq(pt_dev_reset(b, NULL), 0, "%s", pt_last_error(t));
        slot(b, 0, 0, 200000, 0);
        slot(b, 1, 3, 600000, 100000);
        slot(b, 2, 3, 1000000, 0);
        slot(b, 3, 5, 400000, 0);
        pt_start_gpu(t, "step", 0);
        fake.now_ms += 2.0;
        pt_stop_gpu(t, "step", 0);
        cr_assert_eq(pt_dev_fold(t, b, "step"), 0, "%s", pt_last_error(t));
        cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    }
    pt_dev_records_free(b);
}

static void run(int folds)
{
    run_in(folds, 0);
}

static const pt_section *find(const char *path)
{
    const pt_section *s = pt_find(t, path);
    cr_assert_not_null(s, "%s", path);
    return s;
}

Test(sm, each_sms_total_and_the_figures_over_them)
{
    run(2);
    const pt_section *p0 = find("step/phase 0");
    pt_section_stats st;
    double ms[8];
    cr_assert_eq(pt_section_get(t, p0, &st), 0);
    cr_assert_eq(st.sms, 3, "SMs 0, 3 and 5: %llu", (unsigned long long)st.sms);
    cr_assert_eq(st.sm_busiest, 3);
    cr_assert_float_eq(st.sm_min_ms, 0.2, 1e-12, "SM 0, two folds");
    cr_assert_float_eq(st.sm_max_ms, 1.6, 1e-12, "SM 3, two blocks, two folds");
    cr_assert_float_eq(st.sm_mean_ms, 2.2 / 3, 1e-12);
    cr_assert_float_eq(st.sm_imbalance, 1.6 / (2.2 / 3), 1e-12);
    int n = pt_section_sm_get(t, p0, ms, 8);
    cr_assert_eq(n, 6, "up to the highest SM with time: %d", n);
    const double want[6] = { 0.2, 0, 0, 1.6, 0, 0.4 };
    for (int i = 0; i < 6; i++)
        cr_assert_float_eq(ms[i], want[i], 1e-12, "SM %d", i);
    cr_assert_eq(pt_section_sm_get(t, find("step/phase 1"), ms, 2), 4, "phase 1 ran on SM 3 only");
    cr_assert_float_eq(ms[0], 0, 0);
    cr_assert_eq(pt_section_sm_get(t, find("step"), ms, 8), 0, "a launch is no phase");
    cr_assert_eq(pt_section_get(t, find("step"), &st), 0);
    cr_assert_eq(st.sms, 0);
    cr_assert_eq(pt_section_sm_get(t, p0, NULL, 0), 6, "the count alone");
    cr_assert_eq(pt_section_sm_get(t, p0, NULL, 1), PT_EINVAL);
    cr_assert_eq(pt_section_sm_get(t, p0, ms, -1), PT_EINVAL);
    cr_assert_eq(pt_section_sm_get(NULL, p0, ms, 1), PT_EINVAL);
}

/* In host mode the blocks ran on host CPUs: no SM figures anywhere. */
Test(sm, none_in_host_mode)
{
    run_in(1, PT_DEV_HOST);
    const pt_section *p0 = find("step/phase 0");
    pt_section_stats st;
    cr_assert_eq(pt_section_get(t, p0, &st), 0);
    cr_assert_eq(st.blocks, 4, "folded");
    cr_assert_eq(st.sms, 0);
    cr_assert_eq(pt_section_sm_get(t, p0, NULL, 0), 0);
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0, "%s", pt_last_error(t));
    char *j = test_read_file(in_dir("run.json"));
    cr_assert_null(strstr(j, "\"sm_ms\""), "no sm_ms in host mode");
    free(j);
    void *buf;
    size_t len;
    cr_assert_eq(pt_pack(t, &buf, &len), 0);
    pt_timing *u = test_timing(&clk, "merged", PT_CPU);
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    cr_assert_eq(pt_section_get(u, pt_find(u, "step/phase 0"), &st), 0);
    cr_assert_eq(st.blocks, 4);
    cr_assert_eq(st.sms, 0, "none after pt_pack either");
    pt_destroy(u);
    free(buf);
}

/* Packed and merged (as pt_mpi_gather does), a GPU run keeps its SMs. */
Test(sm, kept_through_pack_and_merge)
{
    run(1);
    void *buf;
    size_t len;
    pt_section_stats st;
    double ms[6];
    cr_assert_eq(pt_pack(t, &buf, &len), 0);
    pt_timing *u = test_timing(&clk, "merged", PT_CPU);
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    const pt_section *p0 = pt_find(u, "step/phase 0");
    cr_assert_eq(pt_section_get(u, p0, &st), 0);
    cr_assert_eq(st.sms, 3);
    cr_assert_eq(pt_section_sm_get(u, p0, ms, 6), 6);
    cr_assert_float_eq(ms[3], 1.6, 1e-12, "two runs' SM 3");
    pt_destroy(u);
    free(buf);
}

static char *report(pt_timing *x)
{
    return fake_report(x);
}

/* The report's "by SM" line of the phase named. */
/* The line under phase's row that starts with what (cut off there). */
static char *line_under(char *text, const char *phase, const char *what)
{
    char row[64];
    snprintf(row, sizeof row, "\n  %s ", phase); /* its row, not a mention above it */
    char *p = strstr(text, row);
    cr_assert_not_null(p, "%s in:\n%s", phase, text);
    p = strstr(p, what);
    cr_assert_not_null(p, "a %s line under %s:\n%s", what, phase, text);
    char *e = strchr(p, '\n');
    if (e)
        *e = '\0';
    return p;
}

static char *sm_line(char *text, const char *phase)
{
    return line_under(text, phase, "by SM:");
}

Test(sm, the_text_report_names_the_busiest_sms)
{
    run(1);
    char *text = report(t);
    cr_assert_str_eq(sm_line(text, "phase 0"), "by SM: 3 SMs, mean 0.367 ms, min 0.100 ms, "
                                               "max 0.800 ms, imbalance 2.18 (max/mean); busiest "
                                               "SM 3 0.800 ms, SM 5 0.200 ms, SM 0 0.100 ms");
    free(text);
    text = report(t);
    cr_assert_str_eq(sm_line(text, "phase 1"), "by SM: 1 SM, mean 0.050 ms, min 0.050 ms, "
                                               "max 0.050 ms, imbalance 1.00 (max/mean); busiest "
                                               "SM 3 0.050 ms");
    free(text);
}

static json_t *section_named(json_t *arr, const char *name)
{
    size_t i;
    json_t *s;
    json_array_foreach(arr, i, s) {
        json_t *k = json_object_get(s, "children");
        if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0)
            return s;
        if (k && (k = section_named(k, name)))
            return k;
    }
    return NULL;
}

Test(sm, json_and_csv_list_each_sms_time)
{
    run(1);
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0, "%s", pt_last_error(t));
    json_error_t je;
    json_t *d = json_load_file(in_dir("run.json"), 0, &je);
    cr_assert_not_null(d, "%s", je.text);
    json_t *secs = json_object_get(d, "sections");
    json_t *v = json_object_get(section_named(secs, "phase 0"), "sm_ms");
    cr_assert(json_is_array(v) && json_array_size(v) == 6, "SMs 0 to 5");
    const double want[6] = { 0.1, 0, 0, 0.8, 0, 0.2 };
    for (size_t i = 0; i < 6; i++)
        cr_assert_float_eq(json_number_value(json_array_get(v, i)), want[i], 1e-15, "SM %zu", i);
    cr_assert_null(json_object_get(section_named(secs, "step"), "sm_ms"), "only phases have it");
    cr_assert_float_eq(json_number_value(json_object_get(section_named(secs, "phase 0"), "sms")),
                       3, 0);
    json_decref(d);

    cr_assert_eq(pt_export_csv(t, in_dir("run.csv")), 0, "%s", pt_last_error(t));
    char *csv = test_read_file(in_dir("run.csv")), *row = strstr(csv, "\nstep/phase 0,");
    cr_assert(strstr(csv, ",bubble_ms,sm_ms,id,parent\n"), "the last columns");
    cr_assert_not_null(row);
    *strchr(row + 1, '\n') = '\0';
    for (int k = 0; k < 2; k++) /* id and parent after sm_ms */
        *strrchr(row, ',') = '\0';
    char *last = strrchr(row, ',') + 1, *end;
    int sm[3];
    double ms[3];
    for (int i = 0; i < 3; i++) {
        sm[i] = (int)strtol(last, &end, 10);
        cr_assert_eq(*end, ':', "SM:ms pairs: %s", row);
        ms[i] = strtod(end + 1, &last);
    }
    cr_assert_eq(*last, '\0', "three SMs with time: %s", row);
    cr_assert(sm[0] == 0 && sm[1] == 3 && sm[2] == 5, "%s", row);
    cr_assert(ms[0] == 0.1 && ms[1] == 0.8 && ms[2] == 0.2, "exact: %s", row);
    free(csv);
}

Test(sm, the_html_data_has_them)
{
    run(1);
    cr_assert_eq(pt_export_html(t, in_dir("run.html")), 0, "%s", pt_last_error(t));
    char *h = test_read_file(in_dir("run.html"));
    char *a = strstr(h, "id=\"pt-data\">"), *b = a ? strstr(a, "</script>") : NULL;
    cr_assert(a && b, "the page's data element");
    a += strlen("id=\"pt-data\">");
    json_error_t je;
    json_t *d = json_loadb(a, (size_t)(b - a), 0, &je), *s, *p0 = NULL;
    cr_assert_not_null(d, "%s", je.text);
    size_t i;
    json_array_foreach(json_object_get(d, "sections"), i, s)
        if (strcmp(json_string_value(json_object_get(s, "name")), "phase 0") == 0)
            p0 = s;
    cr_assert_not_null(p0);
    json_t *v = json_object_get(p0, "sm_ms");
    cr_assert(json_is_array(v) && json_array_size(v) == 6, "SMs 0 to 5");
    cr_assert_float_eq(json_number_value(json_array_get(v, 3)), 0.8, 1e-15);
    json_decref(d);
    free(h);
}

/* The page draws a cell per SM for each phase with SM figures, up to its
 * last SM with time (0 to 5 for phase 0, 0 to 3 for phase 1), and names
 * the busiest. */
Test(sm, the_page_draws_each_phases_sms, .timeout = 120)
{
    char url[128];
    run(1);
    cr_assert_eq(pt_export_html(t, in_dir("run.html")), 0, "%s", pt_last_error(t));
    snprintf(url, sizeof url, "file://%s", in_dir("run.html"));
    test_browse(dir, url, "--dump-dom", in_dir("dom.html"));
    char *h = test_read_file(in_dir("dom.html"));
    size_t n = 0;
    for (const char *p = h; (p = strstr(p, "class=\"pt-sm-cell\"")) != NULL; p++)
        n++;
    cr_assert_eq(n, 6 + 4, "phase 0 on SMs 0 to 5, phase 1 on 0 to 3: %zu", n);
    cr_assert(strstr(h, "3 SMs, busiest SM 3, max/mean 2.18"), "phase 0's figures");
    free(h);
}

static int ptreport(const char *args)
{
    return fake_ptreport(dir, args);
}

Test(sm, ptreport_reads_them_back)
{
    char args[512], *live, *shown, *csv, *again;
    run(2);
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_export_csv(t, in_dir("live.csv")), 0, "%s", pt_last_error(t));
    snprintf(args, sizeof args, "show '%s'", in_dir("run.json"));
    cr_assert_eq(ptreport(args), 0);
    live = report(t);
    shown = test_read_file(in_dir("out.txt"));
    char *live2 = strdup(live), *shown2 = strdup(shown);
    cr_assert_str_eq(sm_line(shown, "phase 0"), sm_line(live, "phase 0"));
    /* The percentiles come back from the JSON's histogram. */
    cr_assert_str_eq(line_under(shown2, "phase 0", "per block:"),
                     line_under(live2, "phase 0", "per block:"));
    cr_assert(strstr(live2, "p50 "), "%s", live2);
    free(live2);
    free(shown2);
    free(live);
    free(shown);
    snprintf(args, sizeof args, "convert '%s' --to csv -o '%s'", in_dir("run.json"),
             in_dir("saved.csv"));
    cr_assert_eq(ptreport(args), 0);
    csv = test_read_file(in_dir("live.csv"));
    again = test_read_file(in_dir("saved.csv"));
    char *a = strstr(csv, "\nstep/phase 0,"), *b = strstr(again, "\nstep/phase 0,");
    cr_assert(a && b);
    *strchr(a + 1, '\n') = *strchr(b + 1, '\n') = '\0';
    cr_assert_str_eq(strrchr(b, ','), strrchr(a, ','), "the same SMs and times");
    free(csv);
    free(again);

    /* Merged with a copy of itself (one file twice is refused), each
     * SM's time doubles. */
    snprintf(args, sizeof args, "cp '%s' '%s'", in_dir("run.json"), in_dir("run2.json"));
    cr_assert_eq(system(args), 0, "%s", args);
    snprintf(args, sizeof args, "merge '%s' '%s' -o '%s'", in_dir("run.json"), in_dir("run2.json"),
             in_dir("both.json"));
    cr_assert_eq(ptreport(args), 0);
    snprintf(args, sizeof args, "show '%s'", in_dir("both.json"));
    cr_assert_eq(ptreport(args), 0);
    shown = test_read_file(in_dir("out.txt"));
    cr_assert(strstr(shown, "busiest SM 3 3.200 ms, SM 5 0.800 ms, SM 0 0.400 ms"),
              "two runs of two folds: %s", shown);
    free(shown);

    /* An SM's time must be a number >= 0. */
    char *j = test_read_file(in_dir("run.json"));
    char *p = strstr(j, "\"sm_ms\": [");
    cr_assert_not_null(p, "%s", j);
    p += strlen("\"sm_ms\": [");
    FILE *f = fopen(in_dir("bad.json"), "w");
    cr_assert_not_null(f);
    fprintf(f, "%.*s-%s", (int)(p - j), j, p);
    fclose(f);
    free(j);
    snprintf(args, sizeof args, "show '%s'", in_dir("bad.json"));
    cr_assert_eq(ptreport(args), 2);
    char *err = test_read_file(in_dir("err.txt"));
    cr_assert(strstr(err, "an SM's time must be a number >= 0"), "%s", err);
    free(err);
}
