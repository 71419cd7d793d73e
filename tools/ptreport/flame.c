/* The aggregate flame chart: a timing's figures as a Chrome Trace Event
 * file (the container pt_export_trace() writes, so ui.perfetto.dev and
 * chrome://tracing open it), for runs that kept aggregates and not
 * occurrences, such as a saved run rebuilt by ptreport.
 *
 *   { "traceEvents": [ ... ], "displayTimeUnit": "ms", "metadata": { ... } }
 *
 * Every section is one complete ("X") event on one track (process 1,
 * thread 1) whose duration is its total over all its occurrences. The
 * top-level sections follow one another from 0; a section's children
 * follow one another from its start, in order of first start, so a parent
 * spans its children and its self time is what is left at its end. The
 * time axis is therefore not when anything ran: "metadata" says so.
 *
 * A parent must span its children for viewers to nest them. Where the
 * children's totals add up to more than the parent's (a launch timed by
 * CUDA events under the host section that queued it runs on after the
 * host moved on), the parent's event is as long as its children instead,
 * and its args say so ("drawn_ms", "note"); "metadata" counts them. A
 * difference within rounding (a nanosecond and a billionth) is not
 * widened: the last children are cut to end with their parent.
 *
 * ts and dur are microseconds with three decimals. Positions are rounded
 * to whole nanoseconds before they are written and a duration is the
 * difference of two rounded ends, so a child's printed interval never
 * leaves its parent's and siblings never overlap. */
#include "ptreport.h"

#include "core/restore.h"

#include "core/clock.h"
#include "core/roofline.h"
#include "core/stats.h"
#include "core/timing.h"
#include "core/tree.h"
#include "report/chrome_trace.h"
#include "report/rows.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fw {
    pt_timing *t;
    pt__ctrace c;             /* the container, over the library's JSON writer */
    double *width;            /* ns drawn per section, in depth-first order */
    size_t widened;           /* sections drawn longer than their total */
} fw;

static double own_ns(const pt_section *s)
{
    return isfinite(s->total_ns) && s->total_ns > 0 ? s->total_ns : 0;
}

/* Rounding between a parent's total and its children's sum. */
static double slack(double ns)
{
    return 1.0 + 1e-9 * ns;
}

/* Each section's drawn length, bottom up: its total, or its children's
 * when they need more. Indexed by depth-first order: children come after
 * their parent, so one pass from the last section back adds each to its
 * parent's sum before the parent is reached. No recursion. */
static void widths(fw *w, const pt_section *const *node, const size_t *parent, size_t n,
                   double *kids)
{
    for (size_t i = n; i-- > 0;) {
        double own = own_ns(node[i]);
        w->width[i] = kids[i] > own + slack(own) ? kids[i] : own;
        if (w->width[i] > own)
            w->widened++;
        if (parent[i] != (size_t)-1)
            kids[parent[i]] += w->width[i];
    }
}

/* The figures a reader of one event wants: who it is, its count and time
 * always, the spread of the later occurrences when there are any, and
 * every other figure the section has. */
static void args(fw *w, const pt_section *s, const pt_section_stats *st, const char *path,
                 double drawn_ns)
{
    pt__json *j = &w->c.j;

    pt__json_key(j, "args");
    pt__json_open(j, '{');
    pt__json_k_str(j, "path", path);
    pt__json_k_str(j, "kind", pt__kind_name(s->kind));
    if (st->open)
        pt__json_k_bool(j, "open", 1);
    for (size_t i = 0; i < pt__nfigures; i++) {
        const pt__figure *fig = &pt__figures[i];
        double v = pt__figure_value(st, fig);
        const char *n = fig->name;
        int always = strcmp(n, "count") == 0 || strcmp(n, "total_ms") == 0 ||
                     strcmp(n, "self_ms") == 0 || strcmp(n, "first_ms") == 0 ||
                     strcmp(n, "pct_parent") == 0 || strcmp(n, "pct_total") == 0;
        int later = strcmp(n, "mean_ms") == 0 || strcmp(n, "stddev_ms") == 0 ||
                    strcmp(n, "min_ms") == 0 || strcmp(n, "max_ms") == 0;

        if (!(always || (later && st->count > 1) || v != 0))
            continue;
        if (fig->type == PT__FIG_U64)
            pt__json_k_u64(j, n, pt__figure_u64(st, fig));
        else if (fig->type == PT__FIG_BOUND)
            pt__json_k_str(j, n, pt__bound_name((int)v));
        else
            pt__json_k_num(j, n, v);
    }
    if (drawn_ns > own_ns(s)) {
        pt__json_k_num(j, "drawn_ms", drawn_ns / 1e6);
        pt__json_k_str(j, "note", "drawn as long as its children, whose totals add up to more "
                                  "than its own");
    }
    pt__json_close(j, '}');
}

static const char *category(int kind)
{
    switch (kind) {
    case PT__K_GPU: return "launch";
    case PT__K_PHASE: return "phase";
    case PT__K_UNATTR: return "unattributed";
    default: return "host";
    }
}

/* Section i from `start` (ns), ending no later than `limit`; its
 * children then follow one another from its start (cursor[i]). */
static void place(fw *w, const pt_section *s, const char *path, size_t i, double start,
                  double limit, double *cursor, double *end)
{
    double e = start + w->width[i], t0, t1;
    pt_section_stats st;

    if (e > limit)
        e = limit;
    t0 = nearbyint(start);
    t1 = nearbyint(e);
    if (t1 < t0)
        t1 = t0;
    pt__stats_of(w->t, s, &st);
    /* Whole nanoseconds as microseconds with three decimals, exactly. */
    pt__ctrace_complete(&w->c, 1, 1, s->name, category(s->kind), t0 / 1e3, (t1 - t0) / 1e3);
    args(w, s, &st, path, w->width[i]);
    pt__ctrace_end_event(&w->c);
    cursor[i] = start;
    end[i] = e;
}

static void metadata(fw *w, const pt__saved *from, size_t n, double total_ns, double drawn_ns)
{
    pt__json *j = &w->c.j;

    pt__ctrace_metadata(&w->c);
    pt__json_k_str(j, "tool", "ptkit");
    pt__json_k_str(j, "version", pt_version());
    pt__json_k_str(j, "name", w->t->name);
    pt__json_k_str(j, "layout", "aggregate");
    pt__json_k_str(j, "note",
                   "aggregate figures, not a timeline: each section is one event as long as its "
                   "total over all its occurrences (count, mean and the other figures in its "
                   "args); children follow one another from their parent's start in order of "
                   "first start, top-level sections from 0, so positions are not times at which "
                   "anything ran");
    pt__json_k_str(j, "clock", pt__clock_name(w->t));
    pt__json_k_u64(j, "sections", n);
    pt__json_k_num(j, "total_ms", total_ns / 1e6);
    pt__json_k_num(j, "drawn_ms", drawn_ns / 1e6);
    pt__json_k_u64(j, "widened", w->widened);
    if (from) {
        pt__json_k_str(j, "from", from->file ? from->file : "");
        if (from->created && *from->created)
            pt__json_k_str(j, "created", from->created);
        if (from->merged > 0)
            pt__json_k_i64(j, "merged_inputs", from->merged);
    }
    pt__ctrace_end(&w->c);
}

int pr_write_flame(pt_timing *t, FILE *f, const pt__saved *from)
{
    fw w = { 0 };
    size_t n = 0, i, *parent = NULL, *up = NULL, ucap = 0;
    const pt_section **node = NULL, *s;
    double total = 0, drawn = 0, at = 0, *kids = NULL, *cursor = NULL, *end = NULL;
    pt__chain ch = { 0 };
    int rc = 0;

    pt__settle(t);
    for (s = t->root.child; s; s = pt__tree_next(s, &t->root))
        n++;
    w.t = t;
    w.width = malloc((n ? n : 1) * sizeof *w.width);
    node = malloc((n ? n : 1) * sizeof *node);
    parent = malloc((n ? n : 1) * sizeof *parent);
    kids = calloc(n ? n : 1, sizeof *kids);
    cursor = malloc((n ? n : 1) * sizeof *cursor);
    end = malloc((n ? n : 1) * sizeof *end);
    if (!w.width || !node || !parent || !kids || !cursor || !end) {
        rc = PT_ENOMEM;
        goto done;
    }
    /* Depth first: each section's place and its parent's, by the ids of
     * the sections on the way down. */
    for (i = 0, s = t->root.child; s; s = pt__tree_next(s, &t->root), i++) {
        size_t d = (size_t)s->depth;
        if (d >= ucap) {
            size_t cap = ucap ? ucap * 2 : 64;
            size_t *v = realloc(up, cap * sizeof *v);
            if (!v) {
                rc = PT_ENOMEM;
                goto done;
            }
            up = v;
            ucap = cap;
        }
        up[d] = i;
        node[i] = s;
        parent[i] = d > 1 ? up[d - 1] : (size_t)-1;
    }
    widths(&w, node, parent, n, kids);
    for (i = 0; i < n; i++)
        if (parent[i] == (size_t)-1) {
            total += own_ns(node[i]);
            drawn += w.width[i];
        }
    pt__ctrace_begin(&w.c, f);
    pt__ctrace_meta(&w.c, 1, 0, "process_name", t->name);
    pt__ctrace_meta(&w.c, 1, 1, "thread_name", "sections (aggregate: each as long as its total)");
    for (i = 0; i < n && rc == 0 && !w.c.j.err; i++) {
        size_t p = parent[i];
        double start = p == (size_t)-1 ? at : cursor[p];
        char *path;
        if ((rc = pt__chain_set(&ch, node[i])) < 0 || !(path = pt__chain_path(&ch, node[i]))) {
            rc = PT_ENOMEM;
            break;
        }
        place(&w, node[i], path, i, start, p == (size_t)-1 ? INFINITY : end[p], cursor, end);
        free(path);
        if (p == (size_t)-1)
            at += w.width[i];
        else
            cursor[p] = start + w.width[i];
    }
    metadata(&w, from, n, total, drawn);
done:
    pt__chain_free(&ch);
    free(w.width);
    free(node);
    free(parent);
    free(kids);
    free(cursor);
    free(end);
    free(up);
    return rc;
}
