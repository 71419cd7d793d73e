/* The rows of a text report: the sections a view shows, each with its
 * figures and its label made printable, and the pieces of a table that
 * several views draw the same way. */
#include "report/rows.h"

#include "core/stats.h"
#include "core/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pt__rows_free(pt__rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i].label);
    free(r->v);
}

static char *path_dup(const pt_section *s)
{
    char *raw = pt__section_path_dup(s), *clean;

    if (!raw)
        return NULL;
    clean = pt__clean_dup(raw);
    free(raw);
    return clean;
}

int pt__rows_add(const pt_timing *t, pt__rows *r, const pt_section *s, int paths)
{
    pt__row *w;

    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 32;
        pt__row *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return PT_ENOMEM;
        r->v = v;
        r->cap = cap;
    }
    w = &r->v[r->n];
    memset(w->cell, 0, sizeof w->cell);
    w->s = s;
    pt__stats_of(t, s, &w->st);
    w->label = paths ? path_dup(s) : pt__clean_dup(s->name);
    if (!w->label)
        return PT_ENOMEM;
    r->n++;
    return 0;
}

/* When the sorted copy cannot be allocated the siblings are taken in
 * order of first start: a report in the wrong order beats no report. */
int pt__rows_collect(const pt_timing *t, const pt_section *parent, const pt_log_opts *o,
                   int paths, pt__rows *r)
{
    const pt_section **kids = NULL;
    const pt_section *c;
    size_t n, i = 0;
    int rc = 0;

    if (o->max_depth > 0 && parent->depth + 1 > o->max_depth)
        return 0;
    n = pt__sorted_children(parent, o->sort, &kids);
    c = kids ? (n ? kids[0] : NULL) : parent->child;
    while (c && rc == 0) {
        rc = pt__rows_add(t, r, c, paths);
        if (rc == 0)
            rc = pt__rows_collect(t, c, o, paths, r);
        c = kids ? (++i < n ? kids[i] : NULL) : c->next;
    }
    free(kids);
    return rc;
}

const char *pt__marks(const pt_section_stats *st, int phases, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%s%s", st->gpu ? " [gpu]" : "", phases && st->phase ? " [phase]" : "",
             st->cpu_clock ? " [cpu clock]" : "", st->too_short ? " [short]" : "",
             st->open ? " [open]" : "");
    return buf;
}

void pt__thread_label(pt__lines *k, const pt_thread_info *ti)
{
    pt__line_printf(k, "thread %d (tid %ld)%s", ti->index, ti->tid, ti->index == 0 ? ", creator" : "");
}

void pt__name_cell(pt__lines *k, size_t indent, const char *label, const char *marks, size_t w)
{
    size_t lw = pt__utf8_width(label), mw = pt__utf8_width(marks), used;
    size_t avail = w > indent + mw ? w - indent - mw : 0;

    pt__line_spaces(k, indent);
    if (lw <= avail) {
        pt__line_str(k, label);
        used = indent + lw;
    } else {
        /* Keep a few characters of a very deep title rather than none. */
        if (avail < 4)
            avail = 4;
        pt__line_n(k, label, pt__utf8_prefix(label, avail - 1));
        pt__line_str(k, "\xE2\x80\xA6"); /* U+2026 HORIZONTAL ELLIPSIS */
        used = indent + avail;
    }
    pt__line_str(k, marks);
    used += mw;
    if (used < w)
        pt__line_spaces(k, w - used);
}

size_t pt__head_row(pt__lines *k, const char *first, size_t name_w, const char *const *head,
                       const size_t *w, int ncol, char above)
{
    size_t total_w = name_w;

    for (int c = 0; c < ncol; c++)
        total_w += strlen(PT__GAP) + w[c];
    if (above)
        pt__line_rule(k, above, total_w);
    pt__line_cell(k, first, name_w, 0);
    for (int c = 0; c < ncol; c++) {
        pt__line_str(k, PT__GAP);
        pt__line_cell(k, head[c], w[c], 1);
    }
    pt__line_emit(k);
    pt__line_rule(k, '-', total_w);
    return total_w;
}
