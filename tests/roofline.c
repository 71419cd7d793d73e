/* Roofline: peaks given by the user or read from a (fake) device,
 * arithmetic intensity, % of peak, the bound at and around the ridge
 * point, and how the report, CSV and JSON show them. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "cuda_fake.h"
#include "core/roofline.h"

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    t = test_timing(&clk, "roof", PT_CPU);
    cr_assert_not_null(t, "pt_create failed");
}

static void teardown(void)
{
    pt_destroy(t);
    fake_uninstall();
}

TestSuite(roofline, .init = setup, .fini = teardown);

#define MS 1000000 /* ns */

static pt_section_stats stats(const char *path)
{
    pt_section_stats st;
    const pt_section *s = pt_find(t, path);
    cr_assert_not_null(s, "no section %s", path);
    cr_assert_eq(pt_section_get(t, s, &st), 0, "pt_section_get");
    return st;
}

Test(roofline, no_peaks_no_percentages_but_intensity)
{
    pt_peaks p;
    TEST_SPAN(t, &clk, "k", 1 * MS, .read = 1e6, .written = 1e6, .flops = 8e6);
    pt_section_stats st = stats("k");
    cr_assert_eq(st.ai, 4.0, "AI = 8e6 / 2e6 = 4, got %g", st.ai);
    cr_assert_eq(st.pct_peak_bw, 0.0, "no peaks: no %% of peak");
    cr_assert_eq(st.bound, PT_BOUND_UNKNOWN, "no peaks: unknown bound");
    cr_assert_eq(pt_peaks_get(t, &p), 0, "pt_peaks_get");
    cr_assert_str_eq(p.source, "none", "a CPU run has no peaks");
}

/* Peaks 1e12 B/s and 1e13 FLOP/s: the ridge is at 10 FLOP/B. 2 MB moved
 * in 1 ms is 2e9 B/s, 0.2 % of the bandwidth. */
Test(roofline, user_peaks_give_percentages_and_bound)
{
    cr_assert_eq(pt_peaks_set(t, 1e12, 1e13), 0, "pt_peaks_set: %s", pt_last_error(t));
    TEST_SPAN(t, &clk, "k", 1 * MS, .read = 1e6, .written = 1e6, .flops = 8e6);
    pt_section_stats st = stats("k");
    cr_assert_float_eq(st.pct_peak_bw, 0.2, 1e-12, "%% of peak bandwidth %.17g", st.pct_peak_bw);
    cr_assert_float_eq(st.pct_peak_flops, 0.08, 1e-12, "8e9 FLOP/s of 1e13: %.17g",
                       st.pct_peak_flops);
    cr_assert_eq(st.bound, PT_BOUND_MEMORY, "AI 4 < ridge 10");
}

Test(roofline, bound_at_and_around_the_ridge)
{
    pt_peaks_set(t, 1e12, 1e13);
    TEST_SPAN(t, &clk, "below", MS, .read = 1e6, .flops = 9.999e6);
    TEST_SPAN(t, &clk, "at", MS, .read = 1e6, .flops = 10e6);
    TEST_SPAN(t, &clk, "above", MS, .read = 1e6, .flops = 10.001e6);
    TEST_SPAN(t, &clk, "bytes only", MS, .read = 1e6);
    TEST_SPAN(t, &clk, "flops only", MS, .flops = 1e6);
    cr_assert_eq(stats("below").bound, PT_BOUND_MEMORY, "AI 9.999: memory-bound");
    cr_assert_eq(stats("at").bound, PT_BOUND_COMPUTE, "AI 10 = ridge: compute-bound");
    cr_assert_eq(stats("above").bound, PT_BOUND_COMPUTE, "AI 10.001: compute-bound");
    cr_assert_eq(stats("bytes only").bound, PT_BOUND_UNKNOWN, "no FLOPS: unknown");
    cr_assert_eq(stats("flops only").bound, PT_BOUND_UNKNOWN, "no bytes: unknown");
    cr_assert_eq(stats("bytes only").ai, 0.0, "no AI without FLOPS");
}

Test(roofline, bad_peaks_are_erange_and_zeros_forget)
{
    cr_assert_eq(pt_peaks_set(t, -1, 1e12), PT_ERANGE, "negative");
    cr_assert_eq(pt_peaks_set(t, 1e12, NAN), PT_ERANGE, "NaN");
    cr_assert_eq(pt_peaks_set(t, 1e12, 0), PT_ERANGE, "one of them 0");
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 3, "counted");
    cr_assert_eq(pt_peaks_set(t, 1e12, 1e13), 0, "set");
    cr_assert_eq(pt_peaks_set(t, 0, 0), 0, "forget");
    TEST_SPAN(t, &clk, "k", MS, .read = 1e6, .flops = 1e6);
    cr_assert_eq(stats("k").bound, PT_BOUND_UNKNOWN, "forgotten peaks");
    cr_assert_eq(pt_peaks_set(NULL, -1, -1), 0, "NULL timing: no-op");
}

Test(roofline, fp32_lane_table)
{
    cr_assert_eq(pt__fp32_lanes(9, 0), 128, "H100");
    cr_assert_eq(pt__fp32_lanes(8, 0), 64, "A100");
    cr_assert_eq(pt__fp32_lanes(8, 6), 128, "GA10x");
    cr_assert_eq(pt__fp32_lanes(7, 0), 64, "V100");
    cr_assert_eq(pt__fp32_lanes(6, 0), 64, "P100");
    cr_assert_eq(pt__fp32_lanes(6, 1), 128, "GP10x");
    cr_assert_eq(pt__fp32_lanes(2, 0), 0, "unknown: no guess");
}

/* An H100 SXM as its attributes give it: 132 SMs at 1980 MHz, HBM3 at
 * 2619 MHz on a 5120-bit bus, compute capability 9.0. */
static void fake_h100(void)
{
    fake_install();
    int set[][2] = { { PT__CU_ATTR_MULTIPROCESSORS, 132 }, { PT__CU_ATTR_CLOCK_RATE, 1980000 },
                     { PT__CU_ATTR_MEMORY_CLOCK_RATE, 2619000 }, { PT__CU_ATTR_BUS_WIDTH, 5120 },
                     { PT__CU_ATTR_CC_MAJOR, 9 }, { PT__CU_ATTR_CC_MINOR, 0 } };
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        fake.attr[set[i][0]] = set[i][1];
        fake.attr_set[set[i][0]] = 1;
    }
}

Test(roofline, device_peaks_from_attributes)
{
    pt_timing *g;
    pt_peaks p;

    fake_h100();
    g = pt_create("gpu", PT_GPU_EVENTS);
    pt_start_gpu(g, "k", 0);
    fake.now_ms += 1;
    pt_stop_gpu(g, "k", 0, .read = 1e9, .flops = 1e9);
    cr_assert_eq(pt_peaks_get(g, &p), 0, "pt_peaks_get");
    cr_assert_str_eq(p.source, "device", "source");
    cr_assert_eq(p.bytes_per_s, 2619000e3 * 640 * 2, "bandwidth %.17g", p.bytes_per_s);
    cr_assert_eq(p.flops_per_s, 132 * 1980000e3 * 128 * 2, "FLOP/s %.17g", p.flops_per_s);
    pt_section_stats st;
    pt_section_get(g, pt_find(g, "k"), &st);
    cr_assert_float_eq(st.pct_peak_bw, 100.0 * 1e12 / p.bytes_per_s, 1e-9, "%% bw %g",
                       st.pct_peak_bw);
    cr_assert_eq(st.bound, PT_BOUND_MEMORY, "AI 1 on an H100 is memory-bound");
    /* The user's peaks win over the device's. */
    pt_peaks_set(g, 1e9, 1e9);
    pt_peaks_get(g, &p);
    cr_assert_str_eq(p.source, "user", "user wins");
    pt_destroy(g);
}

Test(roofline, unknown_architecture_gives_no_device_peaks)
{
    pt_timing *g;
    pt_peaks p;

    fake_install(); /* every attribute 4: compute capability 4.4 */
    g = pt_create("gpu", PT_GPU_EVENTS);
    pt_start_gpu(g, "k", 0);
    pt_stop_gpu(g, "k", 0);
    pt_peaks_get(g, &p);
    cr_assert_str_eq(p.source, "none", "no guess for an unknown architecture");
    pt_destroy(g);
}

Test(roofline, report_shows_peaks_and_a_roofline_line_only_when_known)
{
    test_text b = { 0 };
    TEST_SPAN(t, &clk, "k", 1 * MS, .read = 1e6, .written = 1e6, .flops = 8e6);
    pt_log_fn(t, test_text_line, &b);
    cr_assert_null(strstr(b.s, "roofline:"), "no peaks, no roofline line:\n%s", b.s);
    free(b.s);
    b.s = NULL;
    b.n = 0;
    pt_peaks_set(t, 1e12, 1e13);
    pt_log_fn(t, test_text_line, &b);
    cr_assert(strstr(b.s, "peaks: 1000.0 GB/s, 10000.0 GFLOP/s (given); ridge point 10 FLOP/B"),
              "peaks line:\n%s", b.s);
    cr_assert(strstr(b.s, "roofline: AI 4 FLOP/B, 0.2% of peak bandwidth, 0.1% of peak FLOP/s, "
                          "memory-bound"), "roofline line:\n%s", b.s);
    free(b.s);
}

Test(roofline, csv_and_json_carry_the_figures)
{
    char dir[] = "/tmp/ptkit-roof-XXXXXX", path[128], line[2048];
    FILE *f;
    json_error_t je;
    json_t *root, *sec;

    cr_assert_not_null(mkdtemp(dir), "mkdtemp");
    pt_peaks_set(t, 1e12, 1e13);
    TEST_SPAN(t, &clk, "k", 1 * MS, .read = 1e6, .written = 1e6, .flops = 8e6);

    snprintf(path, sizeof path, "%s/r.csv", dir);
    cr_assert_eq(pt_export_csv(t, path), 0, "csv: %s", pt_last_error(t));
    f = fopen(path, "r");
    cr_assert_not_null(f, "open csv");
    cr_assert_not_null(fgets(line, sizeof line, f), "header");
    cr_assert(strstr(line, ",imbalance,block_p50_ms,block_p90_ms,block_p99_ms,ai,pct_peak_bw,pct_peak_flops,bound,mem_high_water,"),
              "the roofline columns, in order: %s", line);
    /* The five fields ai, pct_peak_bw, pct_peak_flops, bound and
     * mem_high_water, found where the header has them. */
    int at = 0;
    for (char *c = line; c < strstr(line, ",ai,"); c++)
        at += *c == ',';
    char row[2048], *fld[5], *p;
    cr_assert_not_null(fgets(row, sizeof row, f), "row");
    p = row;
    for (int i = 0; i <= at; i++)
        p = strchr(p, ',') + 1;
    for (int i = 0; i < 5; i++) {
        fld[i] = p;
        p = strchr(p, ',');
        *p++ = '\0';
    }
    cr_assert_eq(strtod(fld[0], NULL), 4.0, "ai: %s", fld[0]);
    cr_assert_float_eq(strtod(fld[1], NULL), 0.2, 1e-12, "pct_peak_bw: %s", fld[1]);
    cr_assert_float_eq(strtod(fld[2], NULL), 0.08, 1e-12, "pct_peak_flops: %s", fld[2]);
    cr_assert_str_eq(fld[3], "memory", "bound");
    cr_assert_eq(strtod(fld[4], NULL), 0.0, "mem_high_water: %s", fld[4]);
    fclose(f);
    unlink(path);

    snprintf(path, sizeof path, "%s/r.json", dir);
    cr_assert_eq(pt_export_json(t, path), 0, "json: %s", pt_last_error(t));
    root = json_load_file(path, 0, &je);
    cr_assert_not_null(root, "json: %s", je.text);
    cr_assert_eq(json_number_value(json_object_get(json_object_get(root, "peaks"), "bytes_per_s")),
                 1e12, "peaks.bytes_per_s");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(root, "peaks"), "source")),
                     "user", "peaks.source");
    sec = json_array_get(json_object_get(root, "sections"), 0);
    cr_assert_eq(json_number_value(json_object_get(sec, "ai")), 4.0, "ai");
    cr_assert_float_eq(json_number_value(json_object_get(sec, "pct_peak_bw")), 0.2, 1e-15, "bw");
    cr_assert_str_eq(json_string_value(json_object_get(sec, "bound")), "memory", "bound");
    json_decref(root);
    unlink(path);
    rmdir(dir);
}

/* Accepted but extreme figures (the smallest peaks, the largest metrics,
 * the shortest section) give finite figures everywhere; they used to be
 * inf% of peak and an infinite ridge point. */
Test(roofline, extreme_figures_stay_finite)
{
    cr_assert_eq(pt_peaks_set(t, 5e-324, 5e-324), 0);
    TEST_SPAN(t, &clk, "k", 1, .read = DBL_MAX, .written = DBL_MAX, .flops = DBL_MAX);
    pt_section_stats st = stats("k");
    double v[] = { st.ai, st.pct_peak_bw, st.pct_peak_flops, st.read_gbs, st.write_gbs, st.gflops };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        cr_assert(isfinite(v[i]), "figure %zu: %g", i, v[i]);
    test_text out = { NULL, 0 };
    pt_log_fn(t, test_text_line, &out);
    cr_assert_null(strstr(out.s, "inf"), "%s", out.s);
    cr_assert_null(strstr(out.s, "nan"), "%s", out.s);
    cr_assert(strstr(out.s, "ridge point 1 FLOP/B"), "%s", out.s);
    free(out.s);
    char path[64];
    snprintf(path, sizeof path, "/tmp/pt_roof_%d.json", (int)getpid());
    cr_assert_eq(pt_export_json(t, path), 0, "%s", pt_last_error(t));
    char *json = test_read_file(path);
    cr_assert_null(strstr(json, "inf"), "%s", json);
    free(json);
    unlink(path);
}
