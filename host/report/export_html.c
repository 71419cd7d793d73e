/* The HTML report: one self-contained page that needs no network. The
 * page itself (styles and the script that draws the charts as SVG) is
 * export_html.html beside this file, embedded into the library at build time; this
 * file writes the run's figures into it as one JSON document inside
 *
 *   <script type="application/json" id="pt-data"> ... </script>
 *
 * which the page's script reads with JSON.parse. The JSON writer (json.c)
 * writes it in its HTML mode: '<', '>' and '&' become \u003C, \u003E and
 * \u0026, so no title can close the element (or open a comment) early,
 * and every text is put on the page as text, never as markup. The data:
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
#include "report/export_file.h"
#include "report/format.h"
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

static void heat(pt__json *w, const pt__heat *h)
{
    pt__json_key(w, "heat");
    if (!h) {
        pt__json_null(w);
        return;
    }
    pt__json_open(w, '{');
    pt__json_k_num(w, "nslots", h->nslots);
    pt__json_k_num(w, "nrows", h->nrows);
    pt__json_key(w, "phases");
    pt__json_open(w, '[');
    for (int p = 0; p < h->nphases; p++) {
        pt__json_item(w);
        pt__json_str(w, h->names[p]);
    }
    pt__json_close(w, ']');
    /* A row of numbers a line, so the page stays readable. */
    pt__json_key(w, "ns");
    pt__json_open_lines(w, '[');
    for (int i = 0; i < h->nrows && !w->err; i++) {
        pt__json_item(w);
        pt__json_open(w, '[');
        for (int p = 0; p < h->nphases; p++) {
            pt__json_item(w);
            pt__json_num(w, h->ns[i * h->nphases + p]);
        }
        pt__json_close(w, ']');
    }
    pt__json_close(w, ']');
    pt__json_close(w, '}');
}

/* One section and, after it, its subtree: a flat list the script can
 * walk by "parent". *id is the next section's id. */
static int section(pt_timing *t, pt__json *w, const pt_section *s, int parent, int *next_id)
{
    pt_section_stats st;
    char *path = pt__section_path_dup(s);
    int id = (*next_id)++, rc = 0;

    if (!path)
        return PT_ENOMEM;
    pt__stats_of(t, s, &st);

    pt__json_item(w);
    pt__json_open(w, '{');
    pt__json_k_num(w, "id", id);
    pt__json_k_num(w, "parent", parent);
    pt__json_k_str(w, "name", s->name);
    pt__json_k_str(w, "path", path);
    free(path);
    pt__json_k_num(w, "depth", st.depth);
    pt__json_k_str(w, "kind", pt__kind_name(s->kind));
    pt__json_k_num(w, "open", st.open);
    for (size_t i = 0; i < pt__nfigures; i++) {
        const pt__figure *fig = &pt__figures[i];
        double v = pt__figure_value(&st, fig);
        if (fig->type == PT__FIG_BOUND) /* the page shows no word for "unknown" */
            pt__json_k_str(w, fig->name, (int)v == PT_BOUND_UNKNOWN ? "" : pt__bound_name((int)v));
        else
            pt__json_k_num(w, fig->name, v);
    }
    heat(w, s->heat);
    pt__json_close(w, '}');
    for (const pt_section *c = s->child; c && rc == 0 && !w->err; c = c->next)
        rc = section(t, w, c, id, next_id);
    return rc;
}

/* The machine's peaks, or null when they are not known (a CPU run
 * without pt_set_peaks()): the page then draws no roofs. */
static void roofline(pt_timing *t, pt__json *w)
{
    pt_peaks pk;

    pt__json_key(w, "roofline");
    if (pt_peaks_get(t, &pk) != 0 || pk.bytes_per_s <= 0 || pk.flops_per_s <= 0) {
        pt__json_null(w);
        return;
    }
    pt__json_open(w, '{');
    pt__json_k_num(w, "bytes_per_s", pk.bytes_per_s);
    pt__json_k_num(w, "flops_per_s", pk.flops_per_s);
    pt__json_k_str(w, "source", pk.source ? pk.source : "");
    pt__json_close(w, '}');
}

/* What pt_track() tracked, or null when nothing was. */
static void memory(const pt_timing *t, pt__json *w)
{
    pt_memory_stats ms;
    const char *name, *dtype;
    const void *ptr;
    const long long *shape;
    double bytes;
    int nd;

    pt__json_key(w, "memory");
    if (pt_memory_get(t, &ms) != 0 || (ms.tensors == 0 && ms.peak <= 0 && !ms.device_sampled)) {
        pt__json_null(w);
        return;
    }
    pt__json_open(w, '{');
    pt__json_key(w, "tensors");
    pt__json_open(w, '[');
    for (size_t i = 0; pt__memory_tensor(t, i, &name, &ptr, &bytes, &shape, &nd, &dtype); i++) {
        pt__json_item(w);
        pt__json_open(w, '{');
        pt__json_k_str(w, "name", name);
        pt__json_k_num(w, "bytes", bytes);
        pt__json_key(w, "shape");
        pt__json_open(w, '[');
        for (int d = 0; d < nd; d++) {
            pt__json_item(w);
            pt__json_num(w, (double)shape[d]);
        }
        pt__json_close(w, ']');
        pt__json_k_str(w, "dtype", dtype ? dtype : "");
        pt__json_close(w, '}');
    }
    pt__json_close(w, ']');
    pt__json_k_num(w, "total", ms.total);
    pt__json_k_num(w, "peak", ms.peak);
    pt__json_k_num(w, "device_total", ms.device_sampled ? ms.device_total : NAN);
    pt__json_k_num(w, "device_free", ms.device_sampled ? ms.device_free : NAN);
    pt__json_k_num(w, "device_used_peak", ms.device_sampled ? ms.device_used_peak : NAN);
    pt__json_close(w, '}');
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
static void saved(pt__json *w, const pt__saved *from)
{
    pt__json_key(w, "saved");
    if (!from) {
        pt__json_null(w);
        return;
    }
    pt__json_open(w, '{');
    pt__json_k_str(w, "file", from->file ? from->file : "");
    pt__json_k_str(w, "created", from->created ? from->created : "");
    pt__json_k_num(w, "merged", (double)from->merged);
    pt__json_close(w, '}');
}

static int data(pt_timing *t, pt__json *w, const pt__saved *from)
{
    pt_run_stats rs = pt_stats(t);
    const pt_dev_clock *dc = &t->dev_clock;
    const pt_section *top[BOTTLENECKS];
    char created[32];
    size_t nb;
    int rc = 0, next_id = 0;

    pt__fmt_utc_now(created, sizeof created);
    pt__json_open(w, '{');
    pt__json_k_str(w, "tool", "ptkit");
    pt__json_k_str(w, "version", pt_version());
    pt__json_k_str(w, "name", t->name);
    pt__json_k_str(w, "created", created);
    pt__json_key(w, "clock");
    pt__json_open(w, '{');
    pt__json_k_str(w, "kind", rs.clock);
    pt__json_k_num(w, "ghz", strcmp(rs.clock, "tsc") == 0 ? rs.clock_ghz : NAN);
    pt__json_close(w, '}');
    pt__json_key(w, "stats");
    pt__json_open(w, '{');
    pt__json_k_num(w, "section_count", (double)rs.section_count);
    pt__json_k_num(w, "total_ms", rs.total_ms);
    pt__json_k_num(w, "error_count", (double)rs.error_count);
    pt__json_k_num(w, "gpu_timing", rs.gpu_timing);
    pt__json_k_num(w, "gpu_fallback", rs.gpu_fallback);
    pt__json_k_num(w, "open_count", (double)rs.open_count);
    pt__json_k_num(w, "dropped", (double)rs.dropped);
    pt__json_close(w, '}');
    pt__json_key(w, "device_clock");
    if (dc->calibrated || dc->folds) {
        pt__json_open(w, '{');
        pt__json_k_num(w, "calibrated", dc->calibrated);
        pt__json_k_num(w, "cycles_per_ns", dc->cycles_per_ns);
        pt__json_k_num(w, "tick_ns", dc->tick_ns);
        pt__json_k_num(w, "blocks_own", (double)dc->blocks_own);
        pt__json_k_num(w, "blocks_cal", (double)dc->blocks_cal);
        pt__json_k_num(w, "device", dc->device);
        pt__json_k_str(w, "device_name", dc->device_name);
        pt__json_k_num(w, "folds", (double)dc->folds);
        pt__json_k_num(w, "slots_skipped", (double)dc->slots_skipped);
        pt__json_close(w, '}');
    } else {
        pt__json_null(w);
    }
    pt__json_key(w, "errors");
    pt__json_open(w, '{');
    pt__json_k_num(w, "count", (double)pt_error_count(t));
    pt__json_k_str(w, "last", pt_last_error(t));
    pt__json_close(w, '}');
    pt__json_key(w, "sections");
    pt__json_open_lines(w, '[');
    for (const pt_section *c = t->root.child; c && rc == 0 && !w->err; c = c->next)
        rc = section(t, w, c, -1, &next_id);
    pt__json_close(w, ']');
    pt__json_key(w, "bottlenecks");
    pt__json_open(w, '[');
    nb = pt_bottlenecks(t, BOTTLENECKS, top);
    for (size_t i = 0; i < nb; i++) {
        pt_section_stats st;
        pt__stats_of(t, top[i], &st);
        pt__json_item(w);
        pt__json_open(w, '{');
        pt__json_k_num(w, "id", id_of(t, top[i]));
        pt__json_k_num(w, "self_ms", st.self_ms);
        pt__json_close(w, '}');
    }
    pt__json_close(w, ']');
    roofline(t, w);
    memory(t, w);
    saved(w, from);
    pt__json_close(w, '}');
    return rc;
}

/* The embedded page, or NULL (with t told) when it has no data mark. */
static const char *page_of(pt_timing *t, const char **mark)
{
    const char *page = pt__html_embed_count > 0 ? pt__html_embed_sources[0] : NULL;

    *mark = page ? strstr(page, data_mark) : NULL;
    /* The build always embeds the page; a missing mark is our bug. */
    if (!*mark) {
        pt__fail(t, PT_ESTATE, "pt_export_html: the embedded page has no data mark");
        return NULL;
    }
    return page;
}

int pt__html_write(pt_timing *t, FILE *f, const pt__saved *from)
{
    const char *mark, *page = page_of(t, &mark);
    pt__json w;
    int rc;

    if (!page)
        return PT_ESTATE;
    pt__settle(t);
    pt__json_init(&w, f, PT__JSON_HTML);
    pt__json_raw(&w, page, (size_t)(mark - page));
    rc = data(t, &w, from);
    pt__json_raw(&w, mark + strlen(data_mark), strlen(mark + strlen(data_mark)));
    return rc;
}

int pt_export_html(pt_timing *t, const char *path)
{
    const char *mark;
    pt__afile a;
    int rc;

    if (!t)
        return 0;
    if (!page_of(t, &mark))
        return PT_ESTATE;
    rc = pt__export_open(t, &a, path);
    if (rc)
        return rc;
    rc = pt__html_write(t, a.f, NULL);
    return pt__export_finish(t, &a, rc, "pt_export_html", path, 1);
}
