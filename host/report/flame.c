/* The aggregate flame chart: a timing's figures as a Chrome Trace Event
 * file (the container pt_export_trace() writes, so ui.perfetto.dev,
 * chrome://tracing and speedscope open it).
 *
 * Every section is one complete ("X") event on one track whose duration
 * is its total over all its occurrences. The top-level sections follow
 * one another from 0; a section's children follow one another from its
 * start, in order of first start, so a parent spans its children and its
 * self time is what is left at its end. The time axis is therefore not
 * when anything ran: "metadata" says so.
 *
 * A parent must span its children for viewers to nest them. Where the
 * children's totals add up to more than the parent's (a launch timed by
 * CUDA events under the host section that queued it runs on after the
 * host moved on), the parent's event is as long as its children instead,
 * and its args say so ("drawn_ms", "note"); "metadata" counts them. A
 * difference within rounding (a nanosecond and a billionth) is not
 * widened: the last children are cut to end with their parent.
 *
 * Positions are whole nanoseconds (chrome_trace.c), so a child's printed
 * interval never leaves its parent's and siblings never overlap. Two
 * passes over the sections in depth-first order, without recursion: the
 * drawn widths bottom up (the order reversed), then the positions, each
 * event's path taken in constant time from the walk's chain of ancestors
 * (cut as the text report cuts it), so the file is linear in the
 * sections at any depth. */
#include "report/flame.h"

#include "core/clock.h"
#include "core/roofline.h"
#include "core/stats.h"
#include "core/timing.h"
#include "core/tree.h"
#include "report/chrome_trace.h"
#include "report/rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
    const pt_section *s;
    size_t parent;            /* index, or SIZE_MAX for a top-level section */
    double width;             /* ns drawn */
    double kids;              /* the children's widths, summed */
    double at;                /* where the next child starts (ns) */
    double end;               /* where this one ends (ns) */
} node;

static double own_ns(const pt_section *s)
{
    return isfinite(s->total_ns) && s->total_ns > 0 ? s->total_ns : 0;
}

/* Rounding between a parent's total and its children's sum. */
static double slack(double ns)
{
    return 1.0 + 1e-9 * ns;
}

/* The figures a reader of one event wants: who it is, its count and time
 * always, the spread of the later occurrences when there are any, and
 * every other figure the section has. */
static void args(pt__json *j, const pt_section *s, const pt_section_stats *st, const char *path,
                 double drawn_ns)
{
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

static void metadata(pt__ctrace *c, pt_timing *t, const pt__saved *from, size_t n, double total_ns,
                     double drawn_ns, size_t widened)
{
    pt__json *j = &c->j;

    pt__ctrace_metadata(c);
    pt__json_k_str(j, "tool", "ptkit");
    pt__json_k_str(j, "version", pt_version());
    pt__json_k_str(j, "name", t->name);
    pt__json_k_str(j, "layout", "aggregate");
    pt__json_k_str(j, "note",
                   "aggregate figures, not a timeline: each section is one event as long as its "
                   "total over all its occurrences (count, mean and the other figures in its "
                   "args); children follow one another from their parent's start in order of "
                   "first start, top-level sections from 0, so positions are not times at which "
                   "anything ran");
    if (!from)
        pt__json_k_str(j, "note_trace",
                       "the timing was created without PT_TRACE, which keeps each occurrence: "
                       "this is the aggregate flame chart ptreport convert --to trace writes; "
                       "create the timing with PT_TRACE for a timeline");
    pt__json_k_str(j, "clock", pt__clock_name(t));
    pt__json_k_u64(j, "sections", n);
    pt__json_k_num(j, "total_ms", total_ns / 1e6);
    pt__json_k_num(j, "drawn_ms", drawn_ns / 1e6);
    pt__json_k_u64(j, "widened", widened);
    if (from) {
        pt__json_k_str(j, "from", from->file ? from->file : "");
        if (from->created && *from->created)
            pt__json_k_str(j, "created", from->created);
        if (from->merged > 0)
            pt__json_k_i64(j, "merged_inputs", from->merged);
    }
    pt__ctrace_end(c);
}

int pt__flame_write(pt_timing *t, FILE *f, const pt__saved *from)
{
    pt__ctrace c;
    pt__chain ch = { 0 };
    node *v;
    size_t n = 0, widened = 0, *open;
    double total = 0, drawn = 0, at = 0;
    int rc = 0;

    pt__settle(t);
    for (const pt_section *s = t->root.child; s; s = pt__tree_next(s, &t->root))
        n++;
    v = malloc((n ? n : 1) * sizeof *v);
    /* The index of the latest section seen at each depth: its parent's. */
    open = malloc((n ? n : 1) * sizeof *open);
    if (!v || !open) {
        free(v);
        free(open);
        return PT_ENOMEM;
    }
    n = 0;
    for (const pt_section *s = t->root.child; s; s = pt__tree_next(s, &t->root), n++) {
        v[n] = (node){ .s = s, .parent = s->depth > 1 ? open[s->depth - 2] : SIZE_MAX };
        open[s->depth - 1] = n;
    }
    /* Widths bottom up: every descendant comes after its section. */
    for (size_t i = n; i-- > 0;) {
        double own = own_ns(v[i].s);
        v[i].width = v[i].kids > own + slack(own) ? v[i].kids : own;
        widened += v[i].width > own;
        if (v[i].parent != SIZE_MAX)
            v[v[i].parent].kids += v[i].width;
        else {
            total += own;
            drawn += v[i].width;
        }
    }

    pt__ctrace_begin(&c, f, from ? -1 : t->origin_wall_ns);
    pt__ctrace_process(&c, PT__CTRACE_HOST, t->name, "ptkit, aggregate");
    pt__ctrace_thread(&c, PT__CTRACE_HOST, 1, "sections (aggregate: each as long as its total)", 1);
    for (size_t i = 0; i < n && !c.j.err; i++) {
        node *x = &v[i], *p = x->parent != SIZE_MAX ? &v[x->parent] : NULL;
        double start = p ? p->at : at, end = start + x->width, t0, t1;
        pt_section_stats st;
        char *path;

        if (p) {
            p->at += x->width;
            if (end > p->end)
                end = p->end;
        } else {
            at += x->width;
        }
        x->at = start;
        x->end = end;
        t0 = nearbyint(start);
        t1 = nearbyint(end);
        if (pt__chain_set(&ch, x->s) < 0 || !(path = pt__chain_path(&ch, x->s))) {
            rc = PT_ENOMEM;
            break;
        }
        pt__stats_of(t, x->s, &st);
        pt__ctrace_complete(&c, PT__CTRACE_HOST, 1, x->s->name, category(x->s->kind),
                            (long long)t0, (long long)(t1 < t0 ? t0 : t1));
        args(&c.j, x->s, &st, path, x->width);
        pt__ctrace_end_event(&c);
        free(path);
    }
    if (rc == 0)
        metadata(&c, t, from, n, total, drawn, widened);
    pt__chain_free(&ch);
    free(v);
    free(open);
    return rc;
}
