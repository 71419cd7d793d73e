/* A saved run rebuilt as a live timing (host/restore.c, the library's
 * hidden restore API), so that show prints it with pt_log() and convert
 * writes its HTML page and its aggregate trace with the library's own
 * writers: a report made now and one made from the file later are laid
 * out by one writer. */
#include "ptreport.h"

#include "pt_internal.h"

#include <math.h>
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

static int tracked(json_t *tensors, const char *name)
{
    json_t *x;
    size_t i;

    json_array_foreach(tensors, i, x)
        if (strcmp(json_string_value(json_object_get(x, "name")), name) == 0)
            return 1;
    return 0;
}

/* The tracked tensors, through pt_track() as the run tracked them, and
 * the peak: tensors untracked before the save raised it above what is
 * tracked at the end, so a stand-in for the difference is tracked and
 * untracked again. Nothing is open yet, so no section's high-water mark
 * moves (those come from the file). The device's samples are not
 * restored: no call sets them. */
static void restore_memory(pt_timing *t, json_t *m)
{
    json_t *tensors, *x, *d;
    pt_memory_stats ms;
    size_t i, k;
    double peak;
    char filler[64] = "\x01ptreport: peak";

    if (!m)
        return;
    tensors = json_object_get(m, "tensors");
    json_array_foreach(tensors, i, x) {
        long long shape[PT_TRACK_MAX_DIMS];
        const char *dtype = json_string_value(json_object_get(x, "dtype"));
        json_array_foreach(json_object_get(x, "shape"), k, d)
            shape[k] = (long long)json_integer_value(d);
        pt_track(t, json_string_value(json_object_get(x, "name")), NULL,
                 json_number_value(json_object_get(x, "bytes")), shape, (int)k,
                 dtype && *dtype ? dtype : NULL);
    }
    peak = json_number_value(json_object_get(m, "peak"));
    while (tracked(tensors, filler) && strlen(filler) + 1 < sizeof filler)
        strcat(filler, "+");
    if (pt_memory_get(t, &ms) == 0 && isfinite(peak) && peak > ms.total &&
        pt_track(t, filler, NULL, peak - ms.total, NULL, 0, NULL) == 0)
        pt_untrack(t, filler);
}

int pr_rebuild(const pr_run *run, const char *cmd, pt_timing **out)
{
    pt_timing *t = pt__restore_create(run->name);

    *out = NULL;
    if (!t)
        return pr_fail("%s: out of memory", cmd);
    /* Memory first, while no restored section is open. */
    restore_memory(t, run->memory);
    if (restore_secs(t, NULL, run->secs, run->nsecs) < 0) {
        pt_destroy(t);
        return pr_fail("%s: out of memory", cmd);
    }
    /* Last, so the run's own errors are the ones the reports show. */
    if (restore_run(t, run) < 0) {
        pt_destroy(t);
        return pr_fail("%s: %s: clock '%s' (at %g GHz) cannot be shown", cmd, run->file,
                       run->clock, run->clock_ghz);
    }
    *out = t;
    return 0;
}
