/* A saved run rebuilt as a live timing (host/core/restore.c, the library's
 * hidden restore API), so that show prints it with pt_log() and convert
 * writes its HTML page and its aggregate trace with the library's own
 * writers: a report made now and one made from the file later are laid
 * out by one writer. */
#include "ptreport.h"

#include "api/tool.h"

#include <limits.h>
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
 * order of first start), so the restored order is the saved one; without
 * recursion, a section's parent kept by depth on the way down. */
static int restore_secs(pt_timing *t, const pr_run *run)
{
    pt_section **up = NULL;
    size_t cap = 0;
    const pr_sec *x;
    pr_walk w;
    int depth, rc = 0;

    pr_walk_begin(&w, run->secs, run->nsecs);
    while (rc == 0 && (x = pr_walk_next(&w, &depth))) {
        const pt_section_stats *f = &x->st;
        pt__restored r = {
            .kind = kind_of(x->kind), .open = f->open, .count = f->count,
            .total_ns = f->total_ms * 1e6, .first_ns = f->first_ms * 1e6,
            .mean_ns = f->mean_ms * 1e6, .sd_ns = f->stddev_ms * 1e6,
            .min_ns = f->min_ms * 1e6, .max_ns = f->max_ms * 1e6,
            .read = f->read_bytes, .written = f->written_bytes, .flops = f->flops,
            .xfer = { f->xfer_bytes[0], f->xfer_bytes[1], f->xfer_bytes[2] },
            .blocks = f->blocks, .hits = f->hits, .block_mean_ns = f->block_mean_ms * 1e6,
            .block_min_ns = f->block_min_ms * 1e6, .block_max_ns = f->block_max_ms * 1e6,
            .mem_hwm = f->mem_high_water, .cpu_timed = f->cpu_clock,
            .ovh_ns = f->overhead_ms * 1e6, .ranks = f->ranks,
            .rank_min_ns = f->rank_min_ms * 1e6, .rank_mean_ns = f->rank_mean_ms * 1e6,
            .rank_max_ns = f->rank_max_ms * 1e6, .rank_slowest = (long long)f->rank_slowest,
            .sm_ms = x->sm_ms, .nsm = x->nsm, .hist = x->hist, .nhist = x->nhist,
            .ran_here = x->host_mode, .shape = f, .slow_names = x->slow_names,
            .slow_ms = x->slow_ms, .nslow = x->nslow, .spans = x->spans, .nspans = x->nspans,
        };
        pt_section *s;
        if ((size_t)depth >= cap) {
            size_t ncap = cap ? cap * 2 : 64;
            pt_section **v = realloc(up, ncap * sizeof *v);
            if (!v) {
                rc = -1;
                break;
            }
            up = v;
            cap = ncap;
        }
        s = pt__restore_section(t, depth > 1 ? up[depth - 1] : NULL, x->name, &r);
        if (!s)
            rc = -1;
        up[depth] = s;
    }
    if (w.oom)
        rc = -1;
    pr_walk_end(&w);
    free(up);
    return rc;
}

static long long int_of(json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

/* A count the file may leave out: 0 then, or when it is not a count. */
static uint64_t uint_of(json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v > 0 && v <= INT_MAX ? (uint64_t)v : 0;
}

/* A figure the file holds as null (NaN), or leaves out, reads as 0, as
 * restore.c reads the sections' figures. */
static double num(json_t *o, const char *key)
{
    double v = json_number_value(json_object_get(o, key));
    return isfinite(v) ? v : 0;
}

void pr_run_state(const pr_run *run, pt__restored_run *rr, pt_dev_clock *dc, uint64_t *by_code)
{
    json_t *codes = json_object_get(json_object_get(run->doc, "errors"), "by_code");
    json_t *st = json_object_get(run->doc, "stats");

    *rr = (pt__restored_run){
        .clock = run->clock, .clock_ghz = run->clock_ghz,
        .section_count = (size_t)run->section_count, .errors = run->error_count,
        .errors_of = by_code, .last_error = run->errors_last, .gpu_timing = run->gpu_timing,
        .gpu_fallback = run->gpu_fallback, .dropped = run->dropped,
        /* Written by later versions of schema 1: absent, they are 0 or "". */
        .gpu_fallback_why = json_string_value(json_object_get(st, "gpu_fallback_why")),
        .notes = uint_of(st, "note_count"),
        .last_note = json_string_value(json_object_get(json_object_get(run->doc, "errors"),
                                                       "last_note")),
        .pair_ns = num(st, "pair_ns"), .pair_inside_ns = num(st, "pair_inside_ns"),
        .ranks = (int)uint_of(st, "ranks"), .ranks_empty = (int)uint_of(st, "ranks_empty"),
    };
    /* The codes by name, as the export writes them; a name this build
     * does not know is left out. */
    for (int code = -1; code > PT__ERR_LAST; code--) {
        json_t *n = json_object_get(codes, pt_err_name(code));
        by_code[-code] = json_is_integer(n) && json_integer_value(n) > 0
                             ? (uint64_t)json_integer_value(n) : 0;
    }
    by_code[0] = 0;
    if (run->device_clock) {
        json_t *o = run->device_clock;
        const char *name = json_string_value(json_object_get(o, "device_name"));
        memset(dc, 0, sizeof *dc);
        dc->calibrated = json_is_true(json_object_get(o, "calibrated"));
        dc->cycles_per_ns = json_number_value(json_object_get(o, "cycles_per_ns"));
        dc->tick_ns = json_number_value(json_object_get(o, "tick_ns"));
        dc->blocks_own = int_of(o, "blocks_own");
        dc->blocks_cal = int_of(o, "blocks_cal");
        dc->device = (int)int_of(o, "device");
        dc->folds = int_of(o, "folds");
        dc->slots_skipped = int_of(o, "slots_skipped");
        dc->slots_unfinished = int_of(o, "slots_unfinished");
        dc->untraced = int_of(o, "untraced");
        dc->mark_cycles = num(o, "mark_cycles");
        snprintf(dc->device_name, sizeof dc->device_name, "%s", name ? name : "");
        rr->dev_clock = dc;
    }
    if (run->peaks) {
        const char *src = json_string_value(json_object_get(run->peaks, "source"));
        rr->peak_src = src && strcmp(src, "user") == 0 ? PT__PEAKS_USER : PT__PEAKS_DEVICE;
        rr->peak_bw = json_number_value(json_object_get(run->peaks, "bytes_per_s"));
        rr->peak_flops = json_number_value(json_object_get(run->peaks, "flops_per_s"));
    }
}

int pr_restore_sections(pt_timing *t, const pr_run *run)
{
    return restore_secs(t, run);
}

/* The run-level state: 0, or -1 for a clock no timing can stand for. */
static int restore_run(pt_timing *t, const pr_run *run)
{
    uint64_t by_code[-PT__ERR_LAST];
    pt__restored_run rr;
    pt_dev_clock dc;

    pr_run_state(run, &rr, &dc, by_code);
    return pt__restore_run(t, &rr) == 0 ? 0 : -1;
}

/* The tracked memory as the export wrote it: the tensors in the order
 * tracked, the total and the peak (which tensors untracked before the save
 * may have raised above what is tracked at the end), and the device's
 * figures when the run sampled them (numbers, not null). The reader has
 * checked the types. 0, or a PT_E... code from pt__restore_memory(). */
static int restore_memory(pt_timing *t, json_t *m)
{
    json_t *tensors, *x, *d;
    pt__restored_memory rm;
    pt__restored_tensor *v;
    long long(*shapes)[PT_TRACK_MAX_DIMS];
    size_t i, k, n;
    int rc;

    if (!m)
        return 0;
    tensors = json_object_get(m, "tensors");
    n = json_array_size(tensors);
    v = calloc(n ? n : 1, sizeof *v);
    shapes = calloc(n ? n : 1, sizeof *shapes);
    if (!v || !shapes) {
        free(v);
        free(shapes);
        return PT_ENOMEM;
    }
    json_array_foreach(tensors, i, x) {
        json_array_foreach(json_object_get(x, "shape"), k, d)
            shapes[i][k] = (long long)json_integer_value(d);
        v[i] = (pt__restored_tensor){ .name = json_string_value(json_object_get(x, "name")),
                                      .bytes = num(x, "bytes"), .shape = shapes[i],
                                      .ndims = (int)k,
                                      .dtype = json_string_value(json_object_get(x, "dtype")) };
    }
    rm = (pt__restored_memory){
        .tensors = v, .ntensors = n, .total = num(m, "total"), .peak = num(m, "peak"),
        .device_sampled = json_is_number(json_object_get(m, "device_free")) &&
                          json_is_number(json_object_get(m, "device_total")) &&
                          json_is_number(json_object_get(m, "device_used_peak")),
        .device_free = num(m, "device_free"), .device_total = num(m, "device_total"),
        .device_used_peak = num(m, "device_used_peak"),
    };
    rc = pt__restore_memory(t, &rm);
    free(v);
    free(shapes);
    return rc;
}

int pr_rebuild(const pr_run *run, const char *cmd, pt_timing **out)
{
    pt_timing *t = pt__restore_create(run->name);
    int rc;

    *out = NULL;
    if (!t)
        return pr_fail("%s: out of memory", cmd);
    rc = restore_memory(t, run->memory);
    if (rc < 0) {
        pt_destroy(t);
        return rc == PT_ENOMEM ? pr_fail("%s: out of memory", cmd)
                               : pr_fail("%s: %s: the tracked memory cannot be shown (%s)", cmd,
                                         run->file, pt_strerror(rc));
    }
    if (pr_restore_sections(t, run) < 0) {
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
