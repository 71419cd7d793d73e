/* ptreport show: the text report of a saved run. The run is rebuilt as a
 * live timing (host/restore.c) and printed by pt_log() itself, so a report
 * made now and one made from the file later are laid out by one writer. */
#include "ptreport.h"

#include "pt_internal.h"

#include <stdlib.h>
#include <string.h>

static int kind_of(const char *kind)
{
    if (strcmp(kind, "gpu") == 0)
        return PT__K_GPU;
    if (strcmp(kind, "phase") == 0)
        return PT__K_PHASE;
    if (strcmp(kind, "unattributed") == 0)
        return PT__K_UNATTR;
    return PT__K_CPU;
}

/* The sections depth first, each sibling list in the file's order (the
 * order of first start), so the restored order is the saved one. */
static int restore_secs(pt_timing *t, pt_section *parent, const pr_sec *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const double *f = v[i].fig;
        pt__restored r = {
            .kind = kind_of(v[i].kind), .open = v[i].open, .count = v[i].count,
            .total_ns = f[F_TOTAL] * 1e6, .first_ns = f[F_FIRST] * 1e6,
            .mean_ns = f[F_MEAN] * 1e6, .sd_ns = f[F_STDDEV] * 1e6,
            .min_ns = f[F_MIN] * 1e6, .max_ns = f[F_MAX] * 1e6,
            .read = f[F_READ], .written = f[F_WRITTEN], .flops = f[F_FLOPS],
            .xfer = { f[F_H2D], f[F_D2H], f[F_D2D] },
            .blocks = v[i].blocks, .hits = f[F_HITS], .block_mean_ns = f[F_BLOCK_MEAN] * 1e6,
            .block_min_ns = f[F_BLOCK_MIN] * 1e6, .block_max_ns = f[F_BLOCK_MAX] * 1e6,
            .mem_hwm = f[F_MEM_HIGH_WATER],
        };
        pt_section *s = pt__restore_section(t, parent, v[i].name, &r);
        if (!s || restore_secs(t, s, v[i].kids, v[i].nkids) < 0)
            return -1;
    }
    return 0;
}

static long long int_of(json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

/* The run-level state: 0, or -1 for a clock no timing can stand for. */
static int restore_run(pt_timing *t, const pr_run *run)
{
    pt_dev_clock dc;
    pt__restored_run rr = {
        .clock = run->clock, .clock_ghz = run->clock_ghz,
        .section_count = (size_t)run->section_count, .errors = run->error_count,
        .last_error = run->errors_last, .gpu_fallback = run->gpu_fallback,
        .dropped = run->dropped,
    };

    if (run->device_clock) {
        json_t *o = run->device_clock;
        const char *name = json_string_value(json_object_get(o, "device_name"));
        memset(&dc, 0, sizeof dc);
        dc.calibrated = json_is_true(json_object_get(o, "calibrated"));
        dc.cycles_per_ns = json_number_value(json_object_get(o, "cycles_per_ns"));
        dc.tick_ns = json_number_value(json_object_get(o, "tick_ns"));
        dc.blocks_own = int_of(o, "blocks_own");
        dc.blocks_cal = int_of(o, "blocks_cal");
        dc.device = (int)int_of(o, "device");
        dc.folds = int_of(o, "folds");
        dc.slots_skipped = int_of(o, "slots_skipped");
        snprintf(dc.device_name, sizeof dc.device_name, "%s", name ? name : "");
        rr.dev_clock = &dc;
    }
    if (run->peaks) {
        const char *src = json_string_value(json_object_get(run->peaks, "source"));
        rr.peak_src = src && strcmp(src, "user") == 0 ? PT__PEAKS_USER : PT__PEAKS_DEVICE;
        rr.peak_bw = json_number_value(json_object_get(run->peaks, "bytes_per_s"));
        rr.peak_flops = json_number_value(json_object_get(run->peaks, "flops_per_s"));
    }
    return pt__restore_run(t, &rr) == 0 ? 0 : -1;
}

/* Writes pt_log()'s lines to stdout; a merged run's origin, which only a
 * file can have, goes under the first line, the report's title. */
typedef struct out {
    const pr_run *run;
    size_t lines;
} out;

static void out_line(void *ctx, const char *line)
{
    out *o = ctx;

    fputs(line, stdout);
    fputc('\n', stdout);
    if (o->lines++ == 0 && o->run->merged) {
        json_t *n = json_object_get(o->run->merged, "inputs");
        printf("  merged from %lld runs: per section, count and figures pooled over them\n",
               json_is_integer(n) ? (long long)json_integer_value(n) : 0LL);
    }
}

static const char show_usage[] =
    "usage: ptreport show RUN.json [--sort time|flops|name|order] [--depth N] [--percentages]\n";

int pr_show(int argc, char **argv)
{
    const char *file = NULL;
    int depth = 0, pct = 0;
    char err[1024];
    pr_run run;
    int sort = PT_SORT_ORDER, rc;
    pt_timing *t;
    out o;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--percentages") == 0) {
            pct = 1;
        } else if (strcmp(a, "--sort") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "time") == 0)
                sort = PT_SORT_TIME;
            else if (strcmp(s, "flops") == 0)
                sort = PT_SORT_FLOPS;
            else if (strcmp(s, "name") == 0)
                sort = PT_SORT_NAME;
            else if (strcmp(s, "order") == 0)
                sort = PT_SORT_ORDER;
            else
                return pr_fail("show: unknown sort '%s' (time, flops, name, order)\n%s", s,
                               show_usage);
        } else if (strcmp(a, "--depth") == 0 && i + 1 < argc) {
            char *end;
            long d = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || d < 0 || d > 100000)
                return pr_fail("show: --depth wants a whole number >= 0 (0: all), not '%s'",
                               argv[i]);
            depth = (int)d;
        } else if (a[0] == '-' && a[1]) {
            return pr_fail("show: unknown option or missing value: %s\n%s", a, show_usage);
        } else if (!file) {
            file = a;
        } else {
            return pr_fail("show: one run at a time\n%s", show_usage);
        }
    }
    if (!file)
        return pr_fail("show: no run given\n%s", show_usage);
    if (pr_run_load(&run, file, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    t = pt__restore_create(run.name);
    if (!t || restore_secs(t, NULL, run.secs, run.nsecs) < 0) {
        pt_destroy(t);
        pr_run_free(&run);
        return pr_fail("show: out of memory");
    }
    if (restore_run(t, &run) < 0) {
        rc = pr_fail("show: %s: clock '%s' (at %g GHz) cannot be shown", file, run.clock,
                     run.clock_ghz);
        pt_destroy(t);
        pr_run_free(&run);
        return rc;
    }
    o.run = &run;
    o.lines = 0;
    /* Open sections make pt_log() return PT_EOPEN after the whole report;
     * the report says so itself, as it did when the run was live. */
    rc = pt_log_fn(t, out_line, &o, .sort = sort, .max_depth = depth, .percentages = pct);
    pt_destroy(t);
    pr_run_free(&run);
    if (rc == PT_ENOMEM)
        return pr_fail("show: out of memory");
    if (fflush(stdout) != 0 || ferror(stdout))
        return pr_fail("show: writing the report failed");
    return 0;
}
