/* The HTML report: one self-contained page that needs no network. The
 * page itself (styles and the script that draws the charts as SVG) is
 * export_html.html beside this file, embedded into the library at build
 * time; this file writes the run's figures into it as one JSON document
 * inside
 *
 *   <script type="application/json" id="pt-data"> ... </script>
 *
 * which the page's script reads with JSON.parse. The JSON writer (json.c)
 * writes it in its HTML mode: '<', '>' and '&' become \u003C, \u003E and
 * \u0026, so no title can close the element (or open a comment) early,
 * and every text is put on the page as text, never as markup. The data:
 *
 *   { "name", "version", "created", "clock", "stats", "device_clock" and
 *     "errors" as the JSON export writes them (json_run.c),
 *     "sections": [ { "id", "parent" (-1 at the top), "name",
 *                     "depth", "kind", "open", ["host_mode": true,] every figure of the JSON
 *                     export ("bound" is "memory", "compute" or ""),
 *                     "heat": null | { "nslots", "nrows", "phases": [ names ],
 *                                      "ns": [ [ per phase ] per row ],  the largest
 *                                      time of the row's blocks (null: none has END),
 *                                      "mean": the same rows' mean, "at": the block
 *                                      with the largest (-1: none), "missing": [ per
 *                                      row, its blocks without END ] }; row i holds
 *                                      blocks i * nslots / nrows up to the next row's } ],
 *                   depth first, in order of first start; the page
 *                   makes a section's path from its parents, so the
 *                   data is the same size per section at any depth
 *     "bottlenecks": [ { "id", "self_ms" } ],
 *     "roofline": null | the JSON export's "peaks",
 *     "saved": null | { "file", "created", "merged" },  a run rebuilt from
 *                   its JSON by ptreport, which keeps no per-block records
 *                   ("heat" is null)
 *     "memory": null | as the JSON export, when anything was tracked }
 */
#include "report/export_html.h"

#include "core/errors.h"
#include "core/stats.h"
#include "core/timing.h"
#include "core/tree.h"
#include "report/export_file.h"
#include "report/format.h"
#include "report/json.h"
#include "report/json_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Defined in the generated $(BUILD)/gen/pt_html_embed.c. */
extern const int pt__html_embed_count;
extern const char *const pt__html_embed_sources[];

/* Where the data goes in the page. */
static const char data_mark[] = "@PT_DATA@";

/* Rows shown in the page's bottleneck list. */
#define BOTTLENECKS 10

/* "key": [ [ per phase ] per row ], a row a line so the page stays
 * readable; v is row-major doubles, or NULL for iv's ints. */
static void heat_rows(pt__json *w, const char *key, const pt__heat *h, const double *v,
                      const int *iv)
{
    pt__json_key(w, key);
    pt__json_open_lines(w, '[');
    for (int i = 0; i < h->nrows && !w->err; i++) {
        pt__json_item(w);
        pt__json_open_inline(w, '[');
        for (int p = 0; p < h->nphases; p++) {
            size_t k = (size_t)i * (size_t)h->nphases + (size_t)p;
            pt__json_item(w);
            pt__json_num(w, v ? v[k] : (double)iv[k]);
        }
        pt__json_close(w, ']');
    }
    pt__json_close(w, ']');
}

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
    heat_rows(w, "ns", h, h->ns, NULL);
    heat_rows(w, "mean", h, h->mean, NULL);
    heat_rows(w, "at", h, NULL, h->at);
    pt__json_key(w, "missing");
    pt__json_open_inline(w, '[');
    for (int i = 0; i < h->nrows; i++) {
        pt__json_item(w);
        pt__json_num(w, h->missing[i]);
    }
    pt__json_close(w, ']');
    pt__json_close(w, '}');
}

/* One section of the flat list the script walks by "parent". */
static void section(pt_timing *t, pt__json *w, const pt_section *s, long long id, long long parent)
{
    pt_section_stats st;

    pt__stats_of(t, s, &st);
    pt__json_item(w);
    pt__json_open(w, '{');
    pt__json_k_i64(w, "id", id);
    pt__json_k_i64(w, "parent", parent);
    pt__json_k_str(w, "name", s->name);
    pt__json_k_num(w, "depth", st.depth);
    pt__json_k_str(w, "kind", pt__kind_name(s->kind));
    pt__json_k_num(w, "open", st.open);
    /* A launch (or role) whose blocks ran on the CPU: its "SMs" are CPUs. */
    if (s->ran_here)
        pt__json_k_bool(w, "host_mode", 1);
    /* The page shows no word for an unknown bound. */
    pt__json_figures(w, &st, "");
    pt__json_phase(w, s);
    heat(w, s->heat);
    pt__json_close(w, '}');
}

/* Every section depth first, without recursion; ids by depth on the way
 * down give each its parent's. */
static int sections(pt_timing *t, pt__json *w)
{
    long long *up = NULL, id = 0;
    size_t cap = 0;

    for (const pt_section *s = t->root.child; s && !w->err; s = pt__tree_next(s, &t->root), id++) {
        size_t d = (size_t)s->depth;
        if (d >= cap) {
            size_t ncap = cap ? cap * 2 : 64;
            while (ncap <= d)
                ncap *= 2;
            long long *v = realloc(up, ncap * sizeof *v);
            if (!v) {
                free(up);
                return PT_ENOMEM;
            }
            up = v;
            cap = ncap;
        }
        up[d] = id;
        section(t, w, s, id, d > 1 ? up[d - 1] : -1);
    }
    free(up);
    return 0;
}

/* The id a section got in the depth-first walk above. */
static int id_of(const pt_timing *t, const pt_section *want)
{
    int id = 0;

    for (const pt_section *s = t->root.child; s; s = pt__tree_next(s, &t->root), id++)
        if (s == want)
            return id;
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
    pt_run_stats rs;
    pt_memory_stats ms;
    const pt_section *top[BOTTLENECKS];
    char created[32];
    size_t nb;
    int rc;

    pt_run_get(t, &rs);
    pt__fmt_utc_now(created, sizeof created);
    pt__json_open(w, '{');
    pt__json_k_str(w, "tool", "ptkit");
    pt__json_k_str(w, "version", pt_version());
    pt__json_k_str(w, "name", t->name);
    pt__json_k_str(w, "created", created);
    pt__json_key(w, "clock");
    pt__json_clock(w, &rs);
    pt__json_key(w, "stats");
    pt__json_stats(w, &rs);
    pt__json_key(w, "device_clock");
    pt__json_dev_clock(w, &t->dev_clock);
    pt__json_key(w, "errors");
    pt__json_errors(w, t);
    pt__json_key(w, "sections");
    pt__json_open_lines(w, '[');
    rc = sections(t, w);
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
    /* The machine's peaks, or null when they are not known (a CPU run
     * without pt_peaks_set()): the page then draws no roofs. */
    pt__json_key(w, "roofline");
    pt__json_peaks(w, t);
    /* What pt_track() tracked, or null when nothing was. */
    pt__json_key(w, "memory");
    if (pt_memory_get(t, &ms) != 0 || (ms.tensors == 0 && ms.peak <= 0 && !ms.device_sampled))
        pt__json_null(w);
    else
        pt__json_memory(w, t);
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

static int write_html(pt_timing *t, FILE *f, void *from)
{
    return pt__html_write(t, f, from);
}

int pt_export_html(pt_timing *t, const char *path)
{
    const char *mark;

    if (!t)
        return 0;
    if (!page_of(t, &mark))
        return PT_ESTATE;
    return pt__export(t, path, "pt_export_html", 1, write_html, NULL);
}
