/* The JSON export: the whole timing as one self-describing document that
 * tools read back (show, diff, merge), so its layout is a format of its
 * own, versioned by "schema" (PT_JSON_SCHEMA):
 *
 *   { "schema": 2, "tool": "ptkit", "version": "0.1.0", "name": "...",
 *     "created": "2025-01-31T12:00:00Z",
 *     "units": { "time": "ms", ... },
 *     "clock": { "kind": "tsc", "ghz": 2.995 },          ghz null unless tsc
 *     "stats": { "section_count", "total_ms", "error_count", "gpu_timing",
 *                "gpu_fallback", "open_count", "dropped", "trace_dropped",
 *                "gpu_fallback_why",       why GPU sections were CPU-timed
 *                "note_count",             facts of the machine, not errors
 *                "pair_ns", "pair_inside_ns", ptkit's measured cost (0: unknown)
 *                "short_count",            sections marked too_short
 *                "ranks", "ranks_empty" }, runs merged by rank (0: none)
 *     "threads": [ { "index", "tid", "occurrences", "busy_ms", "open",
 *                    "parts": [ { "id", "count", "total_ms" } ] } ],
 *                                     the creating thread first (index 0);
 *                                     parts: the sections it ran (by id),
 *                                     in tree order, empty when it is the
 *                                     only one
 *     "schedule": null | { "wait", "warmup", "active", "repeat", "steps",
 *                "recorded" },                        pt_schedule_set()'s figures
 *     "device_clock": null | { "calibrated", "cycles_per_ns", "tick_ns",
 *                "blocks_own", "blocks_cal", "device", "device_name",
 *                "folds", "slots_skipped", "slots_unfinished", "untraced", "mark_cycles" },
 *     "peaks": null | { "bytes_per_s", "flops_per_s", "source" },
 *     "memory": { "tensors": [ { "name", "bytes", "shape": [..], "dtype" } ],
 *                 "total", "peak", "device_free", "device_total",
 *                 "device_used_peak" },       device figures null unless sampled
 *     "errors": { "count", "last", "last_note", "by_code": { "PT_EMISMATCH": 2, ... } },
 *     "sections": [ { "id", "parent", "name", ["name_bytes",] "depth",
 *                     "kind", "open", ["host_mode": true,] "count", every
 *                     figure of the CSV export by the same name } ] }
 *                     host_mode: a launch whose blocks ran on the CPU
 *
 * Sections are one flat list, depth first, siblings in order of first
 * start: "id" is a section's place in the list (0, 1, ...), "parent" its
 * parent's id (-1 at the top), which always comes before it. Schema 1
 * nested each section's "children" inside it and gave each its "path":
 * both grow with the depth of the tree (a path per section is quadratic
 * in it), and no JSON parser reads nesting past a few thousand levels;
 * the flat list is the same size per section at any depth, and each
 * section is one line. Members are never left out: a
 * figure a section does not have is 0, so readers need no defaults.
 * Numbers are written with "%.17g" and read back as the same double; a
 * non-finite number, which the statistics never produce, would be
 * written as null, since JSON has no token for it. Strings are valid
 * UTF-8 whatever the titles hold: bytes that are not UTF-8 become
 * U+FFFD, so every JSON parser accepts the file; a title holding such
 * bytes also has "name_bytes", its bytes in hex, so titles that differ
 * only there stay distinct when read back.
 *
 * ptreport merge writes its pooled run with this writer too, adding its
 * "merged" members (pt__json_more). */
#include "report/export_json.h"

#include "core/roofline.h"
#include "core/stats.h"
#include "core/threads.h"
#include "core/timing.h"
#include "core/tree.h"
#include "report/export_file.h"
#include "report/format.h"
#include "report/json.h"
#include "report/json_run.h"
#include "report/utf8.h"

#include <stdlib.h>
#include <string.h>

/* ---- sections ---------------------------------------------------- */

/* "name_bytes": the title's bytes in hex, for a title that is not UTF-8
 * (its "name" holds U+FFFD where those bytes were). */
static void name_bytes(pt__json *w, const pt_section *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s->name;
    char b[64];
    size_t n = 0;
    int ok = 1;

    for (int k; *p && ok; p += k > 0 ? k : 1)
        ok = (k = pt__utf8_seq(p)) > 0;
    if (ok)
        return;
    pt__json_key(w, "name_bytes");
    pt__json_raw(w, "\"", 1);
    for (p = (const unsigned char *)s->name; *p; p++) {
        b[n++] = hex[*p >> 4];
        b[n++] = hex[*p & 15];
        if (n == sizeof b) {
            pt__json_raw(w, b, n);
            n = 0;
        }
    }
    pt__json_raw(w, b, n);
    pt__json_raw(w, "\"", 1);
}

static void section(pt_timing *t, pt__json *w, const pt_section *s, uint64_t id, long long parent,
                    const pt__json_more *more)
{
    pt_section_stats st;

    pt__stats_of(t, s, &st);
    pt__json_item(w);
    pt__json_open_inline(w, '{');
    pt__json_k_u64(w, "id", id);
    pt__json_k_i64(w, "parent", parent);
    pt__json_k_str(w, "name", s->name);
    name_bytes(w, s);
    pt__json_k_u64(w, "depth", (uint64_t)st.depth);
    pt__json_k_str(w, "kind", pt__kind_name(s->kind));
    pt__json_k_bool(w, "open", st.open);
    if (s->ran_here)
        pt__json_k_bool(w, "host_mode", 1);
    pt__json_figures(w, &st, pt__bound_name(PT_BOUND_UNKNOWN));
    pt__json_phase(w, s);
    if (more && more->section)
        more->section(more->ctx, w, s);
    pt__json_close(w, '}');
}

/* Ids by depth on the way down: ids[d] is the id of the section at depth
 * d where the walk stands. */
typedef struct ids {
    uint64_t *v;
    size_t cap;
} ids;

static int ids_set(ids *x, const pt_section *s, uint64_t id)
{
    size_t d = (size_t)s->depth;
    uint64_t *v = pt__depth_grow(x->v, &x->cap, d, sizeof *v);

    if (!v)
        return PT_ENOMEM;
    x->v = v;
    x->v[d] = id;
    return 0;
}

/* Every section, depth first without recursion: linear in the sections
 * and the depth. */
static int sections(pt_timing *t, pt__json *w, const pt__json_more *more)
{
    ids x = { 0 };
    uint64_t id = 0;
    int rc = 0;

    pt__json_key(w, "sections");
    pt__json_open(w, '[');
    for (const pt_section *s = t->root.child; s && !w->err; s = pt__tree_next(s, &t->root), id++) {
        if ((rc = ids_set(&x, s, id)) < 0)
            break;
        section(t, w, s, id, s->depth > 1 ? (long long)x.v[s->depth - 1] : -1, more);
    }
    pt__json_close(w, ']');
    free(x.v);
    return rc;
}

/* ---- each thread's part ------------------------------------------ */

/* Thread i's part of every section it ran, by the section's id. */
static int parts(pt_timing *t, pt__json *w, int thread)
{
    pt__parts pw;
    uint64_t id = 0;
    int rc = pt__parts_init(t, &pw);

    for (const pt_section *s = t->root.child; s && rc == 0 && !w->err;
         s = pt__tree_next(s, &t->root), id++) {
        pt_thread_part p;
        if ((rc = pt__parts_step(&pw, s)) < 0)
            break;
        if (pt__parts_get(&pw, s, thread, &p) == 0 && p.count > 0) {
            pt__json_item(w);
            pt__json_open_inline(w, '{');
            pt__json_k_u64(w, "id", id);
            pt__json_k_u64(w, "count", p.count);
            pt__json_k_num(w, "total_ms", p.total_ms);
            pt__json_close(w, '}');
        }
    }
    pt__parts_free(&pw);
    return rc;
}

/* ---- the document ------------------------------------------------ */

static int document(pt_timing *t, pt__json *w, const pt__json_more *more)
{
    pt_run_stats rs;
    char created[32];
    int rc = 0;

    pt_run_get(t, &rs);
    pt__fmt_utc_now(created, sizeof created);

    pt__json_open(w, '{');
    pt__json_k_u64(w, "schema", PT_JSON_SCHEMA);
    pt__json_k_str(w, "tool", "ptkit");
    pt__json_k_str(w, "version", pt_version());
    pt__json_k_str(w, "name", t->name);
    pt__json_k_str(w, "created", created);

    pt__json_key(w, "units");
    pt__json_open(w, '{');
    pt__json_k_str(w, "time", "ms");
    pt__json_k_str(w, "bytes", "B");
    pt__json_k_str(w, "bandwidth", "GB/s (1e9 B/s)");
    pt__json_k_str(w, "compute", "GFLOP/s (1e9 FLOP/s)");
    pt__json_k_str(w, "percent", "%");
    pt__json_close(w, '}');

    pt__json_key(w, "clock");
    pt__json_clock(w, &rs);
    pt__json_key(w, "stats");
    pt__json_stats(w, &rs);

    /* A run rebuilt from saved ones has no threads of its own to show. */
    pt__json_key(w, "threads");
    pt__json_open(w, '[');
    for (int i = 0; i < rs.threads && !(more && more->saved); i++) {
        pt_thread_info ti;
        if (pt_thread_get(t, i, &ti) < 0)
            continue;
        pt__json_item(w);
        pt__json_open(w, '{');
        pt__json_k_u64(w, "index", (uint64_t)ti.index);
        pt__json_k_u64(w, "tid", (uint64_t)ti.tid);
        pt__json_k_u64(w, "occurrences", ti.occurrences);
        pt__json_k_num(w, "busy_ms", ti.busy_ms);
        pt__json_k_u64(w, "open", ti.open);
        pt__json_key(w, "parts");
        pt__json_open(w, '[');
        if (rs.threads > 1 && (rc = parts(t, w, i)) < 0)
            return rc;
        pt__json_close(w, ']');
        pt__json_close(w, '}');
    }
    pt__json_close(w, ']');

    pt_schedule_info si;
    pt_schedule_get(t, &si);
    pt__json_key(w, "schedule");
    if (!si.on) {
        pt__json_null(w);
    } else {
        pt__json_open(w, '{');
        pt__json_k_u64(w, "wait", si.wait);
        pt__json_k_u64(w, "warmup", si.warmup);
        pt__json_k_u64(w, "active", si.active);
        pt__json_k_u64(w, "repeat", si.repeat);
        pt__json_k_u64(w, "steps", si.steps);
        pt__json_k_u64(w, "recorded", si.recorded);
        pt__json_close(w, '}');
    }

    pt__json_key(w, "device_clock");
    pt__json_dev_clock(w, &t->dev_clock);
    pt__json_key(w, "peaks");
    pt__json_peaks(w, t);
    /* Tensors of several runs do not add up to one list. */
    pt__json_key(w, "memory");
    if (more && more->saved)
        pt__json_null(w);
    else
        pt__json_memory(w, t);
    pt__json_key(w, "errors");
    pt__json_errors(w, t);
    if (more && more->document)
        more->document(more->ctx, w);

    rc = sections(t, w, more);
    pt__json_close(w, '}');
    pt__json_printf(w, "\n");
    return rc;
}

int pt__json_export_write(pt_timing *t, FILE *f, const pt__json_more *more)
{
    pt__json w;

    pt__settle(t);
    pt__json_init(&w, f, PT__JSON_PRETTY);
    return document(t, &w, more);
}

static int write_json(pt_timing *t, FILE *f, void *more)
{
    return pt__json_export_write(t, f, more);
}

int pt_export_json(pt_timing *t, const char *path)
{
    return t ? pt__export(t, path, "pt_export_json", 1, write_json, NULL) : 0;
}
