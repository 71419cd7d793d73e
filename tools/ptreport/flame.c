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

static size_t count_nodes(const pt_section *s)
{
    size_t n = 0;
    for (const pt_section *c = s->child; c; c = c->next)
        n += 1 + count_nodes(c);
    return n;
}

/* Each section's drawn length, bottom up: its total, or its children's
 * when they need more. Indexed by the depth-first order place() walks. */
static double widths(fw *w, const pt_section *s, size_t *id)
{
    size_t me = (*id)++;
    double own = own_ns(s), kids = 0;

    for (const pt_section *c = s->child; c; c = c->next)
        kids += widths(w, c, id);
    w->width[me] = kids > own + slack(own) ? kids : own;
    if (w->width[me] > own)
        w->widened++;
    return w->width[me];
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

/* One section from `start` (ns), ending no later than `limit`, then its
 * children one after another from its start. */
static int place(fw *w, const pt_section *s, size_t *id, double start, double limit)
{
    size_t me = (*id)++;
    double end = start + w->width[me], at = start, t0, t1;
    pt_section_stats st;
    char *path;
    int rc = 0;

    if (end > limit)
        end = limit;
    t0 = nearbyint(start);
    t1 = nearbyint(end);
    if (t1 < t0)
        t1 = t0;
    path = pt__section_path_dup(s);
    if (!path)
        return PT_ENOMEM;
    pt__stats_of(w->t, s, &st);
    /* Whole nanoseconds as microseconds with three decimals, exactly. */
    pt__ctrace_complete(&w->c, 1, 1, s->name, category(s->kind), t0 / 1e3, (t1 - t0) / 1e3);
    args(w, s, &st, path, w->width[me]);
    pt__ctrace_end_event(&w->c);
    free(path);
    for (const pt_section *c = s->child; c && rc == 0 && !w->c.j.err; c = c->next) {
        double cw = w->width[*id];
        rc = place(w, c, id, at, end);
        at += cw;
    }
    return rc;
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
    size_t n, id = 0;
    double total = 0, drawn = 0, at = 0;
    int rc = 0;

    pt__settle(t);
    n = count_nodes(&t->root);
    w.t = t;
    w.width = malloc((n ? n : 1) * sizeof *w.width);
    if (!w.width)
        return PT_ENOMEM;
    for (const pt_section *c = t->root.child; c; c = c->next) {
        total += own_ns(c);
        drawn += widths(&w, c, &id);
    }
    pt__ctrace_begin(&w.c, f);
    pt__ctrace_meta(&w.c, 1, 0, "process_name", t->name);
    pt__ctrace_meta(&w.c, 1, 1, "thread_name", "sections (aggregate: each as long as its total)");
    id = 0;
    for (const pt_section *c = t->root.child; c && rc == 0 && !w.c.j.err; c = c->next) {
        double cw = w.width[id];
        rc = place(&w, c, &id, at, INFINITY);
        at += cw;
    }
    metadata(&w, from, n, total, drawn);
    free(w.width);
    return rc;
}
