/* The HTML report: one self-contained page that needs no network. The
 * page itself (styles and the script that draws the charts as SVG) is
 * host/export_html.html, embedded into the library at build time; this
 * file writes the run's figures into it as one JSON document inside
 *
 *   <script type="application/json" id="pt-data"> ... </script>
 *
 * which the page's script reads with JSON.parse. Strings go through the
 * JSON export's escaper in its HTML mode: '<', '>' and '&' become \u003C,
 * \u003E and \u0026, so no title can close the element (or open a
 * comment) early, and every text is put on the page as text, never as
 * markup. The data:
 *
 *   { "name", "version", "created", "clock": { "kind", "ghz" },
 *     "stats": { as the JSON export },  "device_clock": null | { ... },
 *     "errors": { "count", "last" },
 *     "sections": [ { "id", "parent" (-1 at the top), "name", "path",
 *                     "depth", "kind", "open", every figure of the JSON
 *                     export ("bound" is "memory", "compute" or ""),
 *                     "heat": null | { "nslots", "nrows", "phases": [ names ],
 *                                      "ns": [ [ per phase ] per row ] } } ],
 *                   depth first, in order of first start
 *     "bottlenecks": [ { "id", "self_ms" } ],
 *     "roofline": null | { "bytes_per_s", "flops_per_s", "source" },
 *     "saved": null | { "file", "created", "merged" },  a run rebuilt from
 *                   its JSON by ptreport, which keeps no per-block records
 *                   ("heat" is null)
 *     "memory": null | { "tensors": [ { "name", "bytes", "shape", "dtype" } ],
 *                        "total", "peak", "device_total", "device_free",
 *                        "device_used_peak" } }   device figures null unless sampled
 */
#include "report/export_html.h"

#include "core/errors.h"
#include "core/roofline.h"
#include "core/stats.h"
#include "core/timing.h"
#include "core/tree.h"
#include "gpu/memory.h"
#include "report/atomic_file.h"
#include "report/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Defined in the generated $(BUILD)/gen/pt_html_embed.c. */
extern const int pt__html_embed_count;
extern const char *const pt__html_embed_sources[];

/* Where the data goes in the page. */
static const char data_mark[] = "@PT_DATA@";

/* Rows shown in the page's bottleneck list. */
#define BOTTLENECKS 10

typedef struct hw {
    FILE *f;
    int err;
    int id;                   /* next section id */
} hw;

static void outs(hw *w, const char *s)
{
    if (!w->err && fputs(s, w->f) == EOF)
        w->err = 1;
}

static void outn(hw *w, const char *s, size_t n)
{
    if (!w->err && n && fwrite(s, 1, n, w->f) != n)
        w->err = 1;
}

static void str(hw *w, const char *s)
{
    if (!w->err && pt__json_str(w->f, s, 1) < 0)
        w->err = 1;
}

static void num(hw *w, double v)
{
    if (w->err)
        return;
    if (!isfinite(v))
        outs(w, "null");
    else if (fprintf(w->f, "%.17g", v) < 0)
        w->err = 1;
}

static void k_num(hw *w, const char *k, double v)
{
    outs(w, ",\"");
    outs(w, k);
    outs(w, "\":");
    num(w, v);
}

static void k_str(hw *w, const char *k, const char *v)
{
    outs(w, ",\"");
    outs(w, k);
    outs(w, "\":");
    str(w, v);
}


static void heat(hw *w, const pt__heat *h)
{
    outs(w, ",\"heat\":");
    if (!h) {
        outs(w, "null");
        return;
    }
    outs(w, "{\"nslots\":");
    num(w, h->nslots);
    k_num(w, "nrows", h->nrows);
    outs(w, ",\"phases\":[");
    for (int p = 0; p < h->nphases; p++) {
        if (p)
            outs(w, ",");
        str(w, h->names[p]);
    }
    outs(w, "],\"ns\":[");
    for (int i = 0; i < h->nrows && !w->err; i++) {
        outs(w, i ? ",\n[" : "\n[");
        for (int p = 0; p < h->nphases; p++) {
            if (p)
                outs(w, ",");
            num(w, h->ns[i * h->nphases + p]);
        }
        outs(w, "]");
    }
    outs(w, "]}");
}

/* One section and, after it, its subtree: a flat list the script can
 * walk by "parent". */
static int section(pt_timing *t, hw *w, const pt_section *s, int parent)
{
    pt_section_stats st;
    char *path = pt__section_path_dup(s);
    int id = w->id++, rc = 0;

    if (!path)
        return PT_ENOMEM;
    pt__stats_of(t, s, &st);

    outs(w, id ? ",\n{\"id\":" : "\n{\"id\":");
    num(w, id);
    k_num(w, "parent", parent);
    k_str(w, "name", s->name);
    k_str(w, "path", path);
    free(path);
    k_num(w, "depth", st.depth);
    k_str(w, "kind", pt__kind_name(s->kind));
    k_num(w, "open", st.open);
    for (size_t i = 0; i < pt__nfigures; i++) {
        const pt__figure *fig = &pt__figures[i];
        double v = pt__figure_value(&st, fig);
        if (fig->type == PT__FIG_BOUND) /* the page shows no word for "unknown" */
            k_str(w, fig->name, (int)v == PT_BOUND_UNKNOWN ? "" : pt__bound_name((int)v));
        else
            k_num(w, fig->name, v);
    }
    heat(w, s->heat);
    outs(w, "}");
    for (const pt_section *c = s->child; c && rc == 0 && !w->err; c = c->next)
        rc = section(t, w, c, id);
    return rc;
}

/* The machine's peaks, or null when they are not known (a CPU run
 * without pt_set_peaks()): the page then draws no roofs. */
static void roofline(pt_timing *t, hw *w)
{
    pt_peaks pk;

    outs(w, ",\"roofline\":");
    if (pt_peaks_get(t, &pk) != 0 || pk.bytes_per_s <= 0 || pk.flops_per_s <= 0) {
        outs(w, "null");
        return;
    }
    outs(w, "{\"bytes_per_s\":");
    num(w, pk.bytes_per_s);
    k_num(w, "flops_per_s", pk.flops_per_s);
    k_str(w, "source", pk.source ? pk.source : "");
    outs(w, "}");
}

/* What pt_track() tracked, or null when nothing was. */
static void memory(const pt_timing *t, hw *w)
{
    pt_memory_stats ms;
    const char *name, *dtype;
    const void *ptr;
    const long long *shape;
    double bytes;
    int nd;

    outs(w, ",\"memory\":");
    if (pt_memory_get(t, &ms) != 0 || (ms.tensors == 0 && ms.peak <= 0 && !ms.device_sampled)) {
        outs(w, "null");
        return;
    }
    outs(w, "{\"tensors\":[");
    for (size_t i = 0; pt__memory_tensor(t, i, &name, &ptr, &bytes, &shape, &nd, &dtype); i++) {
        outs(w, i ? ",{\"name\":" : "{\"name\":");
        str(w, name);
        k_num(w, "bytes", bytes);
        outs(w, ",\"shape\":[");
        for (int d = 0; d < nd; d++) {
            if (d)
                outs(w, ",");
            num(w, (double)shape[d]);
        }
        outs(w, "]");
        k_str(w, "dtype", dtype ? dtype : "");
        outs(w, "}");
    }
    outs(w, "]");
    k_num(w, "total", ms.total);
    k_num(w, "peak", ms.peak);
    k_num(w, "device_total", ms.device_sampled ? ms.device_total : NAN);
    k_num(w, "device_free", ms.device_sampled ? ms.device_free : NAN);
    k_num(w, "device_used_peak", ms.device_sampled ? ms.device_used_peak : NAN);
    outs(w, "}");
}

/* The id a section got in the depth-first walk above. */
static int id_of(const pt_timing *t, const pt_section *want)
{
    int id = 0;
    const pt_section *s = t->root.child;

    while (s) {
        if (s == want)
            return id;
        id++;
        if (s->child) {
            s = s->child;
        } else {
            while (s && !s->next)
                s = s->parent == &t->root ? NULL : s->parent;
            if (s)
                s = s->next;
        }
    }
    return -1;
}

/* Where a rebuilt timing's figures came from, or null for a live run. */
static void saved(hw *w, const pt__saved *from)
{
    outs(w, ",\"saved\":");
    if (!from) {
        outs(w, "null");
        return;
    }
    outs(w, "{\"file\":");
    str(w, from->file ? from->file : "");
    k_str(w, "created", from->created ? from->created : "");
    k_num(w, "merged", (double)from->merged);
    outs(w, "}");
}

static int data(pt_timing *t, hw *w, const pt__saved *from)
{
    pt_run_stats rs = pt_stats(t);
    const pt_dev_clock *dc = &t->dev_clock;
    const pt_section *top[BOTTLENECKS];
    char created[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    size_t nb;
    int rc = 0;

    if (gmtime_r(&now, &tm))
        strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    outs(w, "{\"tool\":\"ptkit\"");
    k_str(w, "version", pt_version());
    k_str(w, "name", t->name);
    k_str(w, "created", created);
    outs(w, ",\"clock\":{\"kind\":");
    str(w, rs.clock);
    outs(w, ",\"ghz\":");
    num(w, strcmp(rs.clock, "tsc") == 0 ? rs.clock_ghz : NAN);
    outs(w, "},\"stats\":{\"section_count\":");
    num(w, (double)rs.section_count);
    k_num(w, "total_ms", rs.total_ms);
    k_num(w, "error_count", (double)rs.error_count);
    k_num(w, "gpu_timing", rs.gpu_timing);
    k_num(w, "gpu_fallback", rs.gpu_fallback);
    k_num(w, "open_count", (double)rs.open_count);
    k_num(w, "dropped", (double)rs.dropped);
    outs(w, "},\"device_clock\":");
    if (dc->calibrated || dc->folds) {
        outs(w, "{\"calibrated\":");
        num(w, dc->calibrated);
        k_num(w, "cycles_per_ns", dc->cycles_per_ns);
        k_num(w, "tick_ns", dc->tick_ns);
        k_num(w, "blocks_own", (double)dc->blocks_own);
        k_num(w, "blocks_cal", (double)dc->blocks_cal);
        k_num(w, "device", dc->device);
        k_str(w, "device_name", dc->device_name);
        k_num(w, "folds", (double)dc->folds);
        k_num(w, "slots_skipped", (double)dc->slots_skipped);
        outs(w, "}");
    } else {
        outs(w, "null");
    }
    outs(w, ",\"errors\":{\"count\":");
    num(w, (double)pt_error_count(t));
    k_str(w, "last", pt_last_error(t));
    outs(w, "},\"sections\":[");
    w->id = 0;
    for (const pt_section *c = t->root.child; c && rc == 0 && !w->err; c = c->next)
        rc = section(t, w, c, -1);
    outs(w, "],\"bottlenecks\":[");
    nb = pt_bottlenecks(t, BOTTLENECKS, top);
    for (size_t i = 0; i < nb; i++) {
        pt_section_stats st;
        pt__stats_of(t, top[i], &st);
        outs(w, i ? ",{\"id\":" : "{\"id\":");
        num(w, id_of(t, top[i]));
        k_num(w, "self_ms", st.self_ms);
        outs(w, "}");
    }
    outs(w, "]");
    roofline(t, w);
    memory(t, w);
    saved(w, from);
    outs(w, "}");
    return rc;
}

int pt__export_html_saved(pt_timing *t, const char *path, const pt__saved *from)
{
    const char *page = pt__html_embed_count > 0 ? pt__html_embed_sources[0] : NULL;
    const char *mark = page ? strstr(page, data_mark) : NULL;
    pt__afile a;
    hw w = { 0 };
    int rc;

    if (!t)
        return 0;
    /* The build always embeds the page; a missing mark is our bug. */
    if (!mark)
        return pt__fail(t, PT_ESTATE, "pt_export_html: the embedded page has no data mark");
    rc = pt__afile_open(t, &a, path);
    if (rc)
        return rc;
    pt__settle(t);
    w.f = a.f;
    outn(&w, page, (size_t)(mark - page));
    rc = data(t, &w, from);
    outs(&w, mark + strlen(data_mark));
    return pt__afile_finish(t, &a, rc, "pt_export_html", path, 1);
}

int pt_export_html(pt_timing *t, const char *path)
{
    return pt__export_html_saved(t, path, NULL);
}
