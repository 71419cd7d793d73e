/* Memory tracking: totals, peak, replacement, untracking, each section's
 * high-water mark on a manual clock, device samples through the fake
 * runtime, and the memory table, CSV and JSON read back. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "cuda_fake.h"

static test_clock clk;
static pt_timing *t;

static void setup(void)
{
    t = test_timing(&clk, "mem", PT_CPU);
    cr_assert_not_null(t, "pt_create failed");
}

static void teardown(void)
{
    pt_destroy(t);
    fake_uninstall();
}

TestSuite(memory, .init = setup, .fini = teardown);

static const long long psi_shape[] = { 100, 50, 64, 64 };
static const long long dose_shape[] = { 64, 64 };
#define PSI_BYTES (100.0 * 50 * 64 * 64 * 4)
#define DOSE_BYTES (64.0 * 64 * 4)

static pt_memory_stats mstats(void)
{
    pt_memory_stats m;
    cr_assert_eq(pt_memory_get(t, &m), 0, "pt_memory_get");
    return m;
}

Test(memory, totals_and_peak)
{
    cr_assert_eq(pt_track(t, "psi", (void *)0x1000, PSI_BYTES, psi_shape, 4, "float32"), 0, "%s",
                 pt_last_error(t));
    cr_assert_eq(pt_track(t, "dose", NULL, DOSE_BYTES, dose_shape, 2, "float32"), 0, "track");
    pt_memory_stats m = mstats();
    cr_assert_eq(m.tensors, 2, "two tensors");
    cr_assert_eq(m.total, PSI_BYTES + DOSE_BYTES, "total %.17g", m.total);
    cr_assert_eq(pt_untrack(t, "psi"), 0, "untrack");
    m = mstats();
    cr_assert_eq(m.total, DOSE_BYTES, "psi left the total: %.17g", m.total);
    cr_assert_eq(m.peak, PSI_BYTES + DOSE_BYTES, "the peak stays: %.17g", m.peak);
    cr_assert_eq(m.tensors, 1, "one left");
}

Test(memory, tracking_a_name_again_replaces_it)
{
    pt_track(t, "buf", NULL, 1000, NULL, 0, NULL);
    pt_track(t, "buf", NULL, 300, NULL, 0, "int8");
    pt_memory_stats m = mstats();
    cr_assert_eq(m.tensors, 1, "still one entry");
    cr_assert_eq(m.total, 300.0, "replaced: %g", m.total);
    cr_assert_eq(m.peak, 1000.0, "peak from before: %g", m.peak);
}

Test(memory, bad_calls_are_counted_and_change_nothing)
{
    long long neg[] = { 3, -1 };
    cr_assert_eq(pt_track(t, NULL, NULL, 1, NULL, 0, NULL), PT_EINVAL, "NULL name");
    cr_assert_eq(pt_track(t, "x", NULL, -1, NULL, 0, NULL), PT_ERANGE, "negative bytes");
    cr_assert_eq(pt_track(t, "x", NULL, 1, NULL, 9, NULL), PT_ERANGE, "9 dims");
    cr_assert_eq(pt_track(t, "x", NULL, 1, NULL, 2, NULL), PT_ERANGE, "NULL shape");
    cr_assert_eq(pt_track(t, "x", NULL, 1, neg, 2, NULL), PT_ERANGE, "negative dim");
    cr_assert_eq(pt_untrack(t, "nothing"), PT_ENOTFOUND, "untrack unknown");
    cr_assert(strstr(pt_last_error(t), "pt_untrack(\"nothing\"): not tracked"), "%s", pt_last_error(t));
    cr_assert_eq(pt_error_count(t), 6, "six errors");
    cr_assert_eq(mstats().total, 0.0, "nothing tracked");
    cr_assert_eq(pt_track(NULL, "x", NULL, 1, NULL, 0, NULL), 0, "NULL timing");
    cr_assert_eq(pt_untrack(NULL, "x"), 0, "NULL timing");
}

/* The high-water mark of a section: the largest total while it was open,
 * including what was tracked before it opened. */
Test(memory, high_water_per_section)
{
    pt_section_stats a, b, c;

    pt_track(t, "base", NULL, 100, NULL, 0, NULL);
    pt_start(t, "outer");
    pt_start(t, "inner");
    pt_track(t, "tmp", NULL, 900, NULL, 0, NULL);  /* total 1000 */
    clk.now += 10;
    pt_untrack(t, "tmp");                            /* total 100 */
    pt_stop(t, "inner");
    pt_track(t, "more", NULL, 400, NULL, 0, NULL);  /* total 500 */
    pt_stop(t, "outer");
    pt_track(t, "late", NULL, 5000, NULL, 0, NULL); /* after both closed */
    pt_start(t, "after");
    clk.now += 10;
    pt_stop(t, "after");
    pt_section_get(t, pt_find(t, "outer"), &a);
    pt_section_get(t, pt_find(t, "outer/inner"), &b);
    pt_section_get(t, pt_find(t, "after"), &c);
    cr_assert_eq(a.mem_high_water, 1000.0, "outer saw 1000: %g", a.mem_high_water);
    cr_assert_eq(b.mem_high_water, 1000.0, "inner saw 1000: %g", b.mem_high_water);
    cr_assert_eq(mstats().peak, 5500.0, "peak %g", mstats().peak);
    cr_assert_eq(c.mem_high_water, 5500.0, "after opened with 5500 tracked: %g",
                 c.mem_high_water);
}

Test(memory, device_memory_through_the_fake_runtime)
{
    pt_timing *g;
    pt_memory_stats m;

    fake_install();
    fake.mem_total = 80000000000ull;
    fake.mem_free = 60000000000ull;
    g = pt_create("gpu", PT_GPU_EVENTS);
    cr_assert_eq(pt_memory_sampling_set(g, 1), 0, "sampling: %s", pt_last_error(g));
    cr_assert_eq(fake.meminfos, 1, "one sample at once");
    pt_memory_get(g, &m);
    cr_assert_eq(m.device_sampled, 1, "sampled");
    cr_assert_eq(m.device_free, 60e9, "free %g", m.device_free);
    cr_assert_eq(m.device_total, 80e9, "total %g", m.device_total);
    cr_assert_eq(m.device_used_peak, 20e9, "used %g", m.device_used_peak);
    fake.mem_free = 50000000000ull;
    pt_memory_sampling_set(g, 1);
    pt_memory_get(g, &m);
    cr_assert_eq(m.device_used_peak, 30e9, "peak used rises: %g", m.device_used_peak);
    fake.mem_free = 70000000000ull;
    pt_memory_sampling_set(g, 1);
    pt_memory_get(g, &m);
    cr_assert_eq(m.device_used_peak, 30e9, "and stays: %g", m.device_used_peak);
    cr_assert_eq(m.device_free, 70e9, "latest free %g", m.device_free);
    fake.meminfo_err = 2;
    cr_assert_eq(pt_memory_sampling_set(g, 1), PT_ECUDA, "a failing cudaMemGetInfo");
    pt_destroy(g);
}

Test(memory, sampling_without_a_device_is_enodev)
{
    pt__cuda_set_shim(&fake_missing_api);
    cr_assert_eq(pt_memory_sampling_set(t, 1), PT_ENODEV, "no runtime");
    cr_assert_eq(pt_memory_sampling_set(t, 0), 0, "turning it off always works");
}

Test(memory, the_memory_table)
{
    static const long long esc[] = { 5 };
    test_text b = { 0 };

    pt_track(t, "psi", NULL, PSI_BYTES, psi_shape, 4, "float32");
    pt_track(t, "dose", NULL, DOSE_BYTES, dose_shape, 2, "float32");
    pt_track(t, "escapes", NULL, 40, esc, 1, "float64");
    pt_start(t, "step");
    pt_track(t, "tmp", NULL, 1e6, NULL, 0, "float32");
    pt_untrack(t, "tmp");
    pt_stop(t, "step");
    cr_assert_eq(pt_log_fn(t, test_text_line, &b, .view = PT_VIEW_MEMORY), 0, "%s",
                 pt_last_error(t));
    cr_assert(strstr(b.s, "Tensor   Shape              Dtype    Size (MB)\n"), "head:\n%s", b.s);
    cr_assert(strstr(b.s, "psi      (100, 50, 64, 64)  float32     81.920\n"), "psi:\n%s", b.s);
    cr_assert(strstr(b.s, "dose     (64, 64)           float32      0.016\n"), "dose:\n%s", b.s);
    cr_assert(strstr(b.s, "escapes  (5,)               float64      0.000\n"), "esc:\n%s", b.s);
    cr_assert(strstr(b.s, "TOTAL TRACKED                           81.936\n"), "total:\n%s", b.s);
    cr_assert(strstr(b.s, "PEAK TRACKED                            82.936\n"), "peak:\n%s", b.s);
    cr_assert(strstr(b.s, "Section high-water (MB)\n  step  82.936\n"), "hwm:\n%s", b.s);
    cr_assert_null(strstr(b.s, "Device memory"), "not sampled: no device line");
    free(b.s);
}

Test(memory, an_empty_tensor_name_is_a_name)
{
    /* The cleaned copy of "" ends with its NUL like any other (the view
     * read past it once: ASan, valgrind). */
    test_text b = { 0 };

    cr_assert_eq(pt_track(t, "", NULL, 2e6, NULL, 0, ""), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_log_fn(t, test_text_line, &b, .view = PT_VIEW_MEMORY), 0, "%s",
                 pt_last_error(t));
    cr_assert(strstr(b.s, "\n        ()  "), "the empty name, its row whole:\n%s", b.s);
    cr_assert(strstr(b.s, "2.000\n"), "its size:\n%s", b.s);
    free(b.s);
}

Test(memory, csv_and_json_read_back)
{
    char dir[] = "/tmp/ptkit-mem-XXXXXX", path[128], line[2048];
    json_error_t je;
    json_t *root, *mem, *ten, *sec;
    FILE *f;

    cr_assert_not_null(mkdtemp(dir), "mkdtemp");
    pt_track(t, "psi", NULL, PSI_BYTES, psi_shape, 4, "float32");
    pt_start(t, "step");
    pt_track(t, "tmp", NULL, 1000, NULL, 0, NULL);
    pt_untrack(t, "tmp");
    pt_stop(t, "step");

    snprintf(path, sizeof path, "%s/m.csv", dir);
    cr_assert_eq(pt_export_csv(t, path), 0, "csv: %s", pt_last_error(t));
    f = fopen(path, "r");
    cr_assert_not_null(fgets(line, sizeof line, f), "header");
    cr_assert_not_null(fgets(line, sizeof line, f), "row");
    cr_assert(strstr(line, ",unknown,81921000,"), "mem_high_water after the bound: %s", line);
    fclose(f);
    unlink(path);

    snprintf(path, sizeof path, "%s/m.json", dir);
    cr_assert_eq(pt_export_json(t, path), 0, "json: %s", pt_last_error(t));
    root = json_load_file(path, 0, &je);
    cr_assert_not_null(root, "json: %s", je.text);
    mem = json_object_get(root, "memory");
    cr_assert_not_null(mem, "a memory object");
    cr_assert_eq(json_number_value(json_object_get(mem, "total")), PSI_BYTES, "total");
    cr_assert_eq(json_number_value(json_object_get(mem, "peak")), PSI_BYTES + 1000, "peak");
    cr_assert(json_is_null(json_object_get(mem, "device_free")), "not sampled: null");
    ten = json_array_get(json_object_get(mem, "tensors"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(ten, "name")), "psi", "name");
    cr_assert_str_eq(json_string_value(json_object_get(ten, "dtype")), "float32", "dtype");
    cr_assert_eq(json_array_size(json_object_get(ten, "shape")), 4, "shape");
    cr_assert_eq(json_integer_value(json_array_get(json_object_get(ten, "shape"), 3)), 64, "dim");
    sec = json_array_get(json_object_get(root, "sections"), 0);
    cr_assert_eq(json_number_value(json_object_get(sec, "mem_high_water")), PSI_BYTES + 1000,
                 "section high-water");
    json_decref(root);
    unlink(path);
    rmdir(dir);
}

Test(memory, device_sampled_at_section_boundaries)
{
    pt_timing *g;
    pt_memory_stats m;

    fake_install();
    fake.mem_total = 1000;
    fake.mem_free = 900;
    g = pt_create("gpu", PT_GPU_EVENTS);
    cr_assert_eq(pt_memory_sampling_set(g, 1), 0, "sampling: %s", pt_last_error(g));
    pt_start(g, "a");
    fake.mem_free = 400; /* 600 used by the time "a" stops */
    pt_stop(g, "a");
    cr_assert_eq(fake.meminfos, 3, "one sample at once, one per boundary: %lld", fake.meminfos);
    pt_memory_get(g, &m);
    cr_assert_eq(m.device_used_peak, 600.0, "peak used %g", m.device_used_peak);
    pt_memory_sampling_set(g, 0);
    pt_start(g, "b");
    pt_stop(g, "b");
    cr_assert_eq(fake.meminfos, 3, "off: no more samples");
    pt_destroy(g);
}

Test(memory, changes_are_counter_samples_in_the_trace)
{
    char dir[] = "/tmp/ptkit-memtr-XXXXXX", path[128];
    pt_timing *tr = test_timing(&clk, "traced", PT_TRACE);
    FILE *f;
    char *text = NULL;
    size_t n = 0;

    cr_assert_not_null(mkdtemp(dir), "mkdtemp");
    pt_start(tr, "a");
    clk.now += 1000;
    pt_track(tr, "psi", NULL, 4096, NULL, 0, "float32");
    clk.now += 1000;
    pt_stop(tr, "a");
    snprintf(path, sizeof path, "%s/t.json", dir);
    cr_assert_eq(pt_export_trace(tr, path), 0, "pt_export_trace: %s", pt_last_error(tr));
    f = fopen(path, "r");
    cr_assert_not_null(f, "open trace");
    text = calloc(1, 1 << 20);
    n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    cr_assert_gt(n, 0, "a trace");
    cr_assert_not_null(strstr(text, "tracked memory (B)"), "the counter track:\n%s", text);
    cr_assert_not_null(strstr(text, "4096"), "its value:\n%s", text);
    free(text);
    unlink(path);
    rmdir(dir);
    pt_destroy(tr);
}

/* A saved run's memory (ptreport's rebuild): the figures kept exactly as
 * given, the total and peak not recomputed from the tensors; a figure
 * pt_track() would refuse is refused and the timing keeps what it had. */
Test(memory, restored_as_saved)
{
    static const long long shape[] = { 2, 3 };
    pt__restored_tensor v[] = { { "a", 100, shape, 2, "float32" }, { "b", 0.5, NULL, 0, NULL } };
    pt__restored_memory r = { v, 2, 100.25, 4096, 1, 7e9, 8e9, 2.5e9 };
    pt_memory_stats m;
    const char *name, *dtype;
    const void *ptr;
    const long long *sh;
    double bytes;
    int nd;

    cr_assert_eq(pt_track(t, "gone", NULL, 1, NULL, 0, NULL), 0);
    cr_assert_eq(pt__restore_memory(t, &r), 0);
    m = mstats();
    cr_assert(m.tensors == 2 && m.total == 100.25 && m.peak == 4096, "%zu, %g, %g", m.tensors,
              m.total, m.peak);
    cr_assert(m.device_sampled && m.device_free == 7e9 && m.device_total == 8e9 &&
              m.device_used_peak == 2.5e9, "the device's figures");
    size_t at = 0;
    cr_assert_eq(pt__memory_tensor(t, &at, &name, &ptr, &bytes, &sh, &nd, &dtype), 1);
    cr_assert(strcmp(name, "a") == 0 && bytes == 100 && nd == 2 && sh[1] == 3 &&
              strcmp(dtype, "float32") == 0 && !ptr, "the first tensor");
    cr_assert_eq(pt__memory_tensor(t, &at, &name, &ptr, &bytes, &sh, &nd, &dtype), 1);
    cr_assert(strcmp(name, "b") == 0 && nd == 0 && strcmp(dtype, "") == 0, "the second");
    cr_assert_eq(pt__memory_tensor(t, &at, &name, &ptr, &bytes, &sh, &nd, &dtype), 0);

    v[1].bytes = -1;
    cr_assert_eq(pt__restore_memory(t, &r), PT_ERANGE, "negative bytes");
    v[1].bytes = 0.5;
    r.device_free = NAN;
    cr_assert_eq(pt__restore_memory(t, &r), PT_ERANGE, "a sampled figure that is not a number");
    r.device_sampled = 0;
    r.peak = 1;
    v[0].ndims = PT_TRACK_MAX_DIMS + 1;
    cr_assert_eq(pt__restore_memory(t, &r), PT_ERANGE, "too many dimensions");
    cr_assert_eq(mstats().peak, 4096, "each refusal left the restored memory alone");
    v[0].ndims = 2;
    cr_assert_eq(pt__restore_memory(t, &r), 0);
    m = mstats();
    cr_assert(!m.device_sampled && m.device_free == 0 && m.peak == 1, "not sampled");
    cr_assert_eq(pt__restore_memory(t, NULL), PT_EINVAL);
}

/* Untracked tensors leave holes that compactions close: the rest keep
 * the order they were tracked in, are found by name, and the totals are
 * exact throughout. */
Test(memory, many_tensors_tracked_and_untracked_keep_order_and_totals)
{
    enum { N = 5000 };
    char name[32];
    double total = 0;
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "t%d", i);
        cr_assert_eq(pt_track(t, name, NULL, (double)i, NULL, 0, NULL), 0);
        total += i;
    }
    /* Every third one goes, then every other of the first half comes back
     * with a new size (appended: tracked again after its untrack). */
    for (int i = 0; i < N; i += 3) {
        snprintf(name, sizeof name, "t%d", i);
        cr_assert_eq(pt_untrack(t, name), 0, "%s", pt_last_error(t));
        total -= i;
    }
    for (int i = 0; i < N / 2; i += 6) {
        snprintf(name, sizeof name, "t%d", i);
        cr_assert_eq(pt_track(t, name, NULL, 1.0, NULL, 0, NULL), 0);
        total += 1;
    }
    snprintf(name, sizeof name, "t%d", 3);
    cr_assert_eq(pt_untrack(t, name), PT_ENOTFOUND, "untracked already");
    pt_memory_stats m = mstats();
    size_t want = N - (N + 2) / 3 + (N / 2 + 5) / 6;
    cr_assert_eq(m.tensors, want, "%zu tensors, want %zu", m.tensors, want);
    cr_assert_float_eq(m.total, total, 0, "%g, want %g", m.total, total);
    /* The writers' walk: the survivors in order, then those tracked again. */
    const char *nm, *dt;
    const void *ptr;
    const long long *sh;
    double bytes, sum = 0;
    int nd, prev = -1, n = 0, again = 0;
    for (size_t at = 0; pt__memory_tensor(t, &at, &nm, &ptr, &bytes, &sh, &nd, &dt);) {
        int i = atoi(nm + 1);
        if (i % 3 == 0) {
            again++;
            cr_assert_float_eq(bytes, 1.0, 0);
        } else {
            cr_assert_eq(again, 0, "%s after those tracked again", nm);
            cr_assert_gt(i, prev, "%s out of order", nm);
            prev = i;
        }
        sum += bytes;
        n++;
    }
    cr_assert_eq((size_t)n, want);
    cr_assert_float_eq(sum, total, 0);
}

Test(memory, a_total_past_the_largest_double_is_held_and_recovers)
{
    cr_assert_eq(pt_track(t, "a", NULL, DBL_MAX, NULL, 0, NULL), 0);
    cr_assert_eq(pt_track(t, "b", NULL, DBL_MAX, NULL, 0, NULL), PT_ERANGE, "said");
    pt_memory_stats m = mstats();
    cr_assert(isfinite(m.total) && m.total == DBL_MAX, "held: %g", m.total);
    cr_assert(isfinite(m.peak) && m.peak == DBL_MAX, "%g", m.peak);
    cr_assert(strstr(pt_last_error(t), "saturated"), "%s", pt_last_error(t));
    cr_assert_eq(pt_untrack(t, "a"), 0);
    m = mstats();
    cr_assert_eq(m.total, DBL_MAX, "b alone: %g", m.total);
    cr_assert_eq(pt_track(t, "b", NULL, 5, NULL, 0, NULL), 0);
    cr_assert_eq(mstats().total, 5, "summed again once below: %g", mstats().total);
    /* Every report is finite. */
    test_text out = { NULL, 0 };
    cr_assert_eq(pt_log_fn(t, test_text_line, &out, .view = PT_VIEW_MEMORY), 0);
    cr_assert_null(strstr(out.s, "inf"), "%s", out.s);
    cr_assert_null(strstr(out.s, "nan"), "%s", out.s);
    free(out.s);
}
