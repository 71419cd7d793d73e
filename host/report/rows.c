/* The rows of a text report: the sections a view shows, each with its
 * figures and its label made printable, and the pieces of a table that
 * several views draw the same way. */
#include "report/rows.h"

#include "core/stats.h"
#include "core/tree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pt__rows_free(pt__rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i].label);
    free(r->v);
}

/* ---- labels ------------------------------------------------------ */

/* A title as a path writes it ('/' and '\' escaped), raw; its columns. */
static void put_component(pt__lines *b, const pt_section *s)
{
    for (const char *c = s->name; *c; c++) {
        if (*c == '/' || *c == '\\')
            pt__line_n(b, "\\", 1);
        pt__line_n(b, c, 1);
    }
}

static size_t component_w(const pt_section *s)
{
    size_t n = pt__utf8_width(s->name);
    for (const char *c = s->name; *c; c++)
        n += *c == '/' || *c == '\\';
    return n;
}

/* The clean path of anc[1..d] (anc[i] at depth i), whose columns up to
 * depth i are cum[i] (titles and the '/' between them). A path wider
 * than PT__PATH_MAX_W keeps its first titles (a third of that) and its
 * last ones around an ellipsis, so the label costs the same at any depth.
 * NULL without memory. */
static char *path_label(const pt_section *const *anc, const size_t *cum, size_t d)
{
    pt__lines b = { 0 };
    size_t head = d, tail = d + 1;
    char *clean;

    if (cum[d] > PT__PATH_MAX_W) {
        head = 1;
        while (head + 1 < d && cum[head + 1] <= PT__PATH_MAX_W / 3)
            head++;
        tail = d;
        while (tail - 1 > head + 1 && cum[d] - cum[tail - 2] <= PT__PATH_MAX_W - cum[head] - 2)
            tail--;
    }
    for (size_t i = 1; i <= d; i++) {
        if (i > head && i < tail) {
            pt__line_str(&b, "/\xE2\x80\xA6"); /* U+2026 HORIZONTAL ELLIPSIS */
            i = tail - 1;
            continue;
        }
        if (i > 1)
            pt__line_n(&b, "/", 1);
        put_component(&b, anc[i]);
    }
    pt__line_n(&b, "", 0);
    clean = b.oom || !b.buf ? NULL : pt__clean_dup(b.buf);
    free(b.buf);
    return clean;
}

/* The clean title, after its depth where the indentation stops growing. */
static char *title_label(const pt_section *s)
{
    char *clean = pt__clean_dup(s->name), *out;
    size_t n;

    if (!clean || s->depth - 1 <= PT__INDENT_LEVELS)
        return clean;
    n = strlen(clean) + 32;
    out = malloc(n);
    if (out)
        snprintf(out, n, "\xE2\x86\xB3%d %s", s->depth, clean); /* U+21B3 */
    free(clean);
    return out;
}

int pt__chain_set(pt__chain *c, const pt_section *s)
{
    size_t d = (size_t)s->depth;

    if (d >= c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        while (cap <= d)
            cap *= 2;
        const pt_section **a = realloc(c->anc, cap * sizeof *a);
        if (a)
            c->anc = a;
        size_t *w = a ? realloc(c->cum, cap * sizeof *w) : NULL;
        if (!a || !w)
            return PT_ENOMEM;
        c->cum = w;
        c->cap = cap;
        c->cum[0] = 0;
    }
    c->anc[d] = s;
    c->cum[d] = c->cum[d - 1] + (d > 1) + component_w(s);
    return 0;
}

void pt__row_stats(const pt__rows *r, size_t i, pt_section_stats *st)
{
    pt__stats_of(r->t, r->v[i].s, st);
}

static int add_row(const pt_timing *t, pt__rows *r, const pt_section *s, char *label)
{
    pt__row *w;

    if (!label)
        return PT_ENOMEM;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 32;
        pt__row *v = realloc(r->v, cap * sizeof *v);
        if (!v) {
            free(label);
            return PT_ENOMEM;
        }
        r->v = v;
        r->cap = cap;
    }
    w = &r->v[r->n];
    w->s = s;
    w->label = label;
    r->t = t;
    r->n++;
    return 0;
}

typedef struct wanted {
    const pt_section *s;
    size_t at;                /* its place in the caller's order */
} wanted;

static int by_address(const void *pa, const void *pb)
{
    uintptr_t a = (uintptr_t)((const wanted *)pa)->s, b = (uintptr_t)((const wanted *)pb)->s;
    return a < b ? -1 : a > b;
}

int pt__rows_add_paths(const pt_timing *t, pt__rows *r, const pt_section *const *v, size_t n)
{
    wanted *w = malloc((n ? n : 1) * sizeof *w), key, *hit;
    char **label = calloc(n ? n : 1, sizeof *label);
    pt__chain c = { 0 };
    size_t found = 0;
    int rc = 0;

    if (!w || !label) {
        free(w);
        free(label);
        return PT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        w[i] = (wanted){ v[i], i };
    qsort(w, n, sizeof *w, by_address);
    /* Depth first, the chain of ancestors kept by depth on the way. */
    for (const pt_section *s = t->root.child; s && found < n && rc == 0;
         s = pt__tree_next(s, &t->root)) {
        rc = pt__chain_set(&c, s);
        key.s = s;
        if (rc == 0 && (hit = bsearch(&key, w, n, sizeof *w, by_address)) != NULL) {
            label[hit->at] = pt__chain_path(&c, s);
            found++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = add_row(t, r, v[i], label[i] ? label[i] : title_label(v[i]));
        else
            free(label[i]);
    }
    pt__chain_free(&c);
    free(w);
    free(label);
    return rc;
}

/* One level of the walk: the siblings in the order asked, or, when the
 * sorted copy cannot be allocated, in order of first start (a report in
 * the wrong order beats no report). */
typedef struct level {
    const pt_section **kids;
    size_t n, i;
    const pt_section *next;   /* without kids: the next sibling to show */
} level;

static const pt_section *level_next(level *l)
{
    const pt_section *c;

    if (l->kids)
        return l->i < l->n ? l->kids[l->i++] : NULL;
    c = l->next;
    l->next = c ? c->next : NULL;
    return c;
}

int pt__rows_collect(const pt_timing *t, const pt_section *parent, const pt_log_opts *o,
                     int paths, pt__rows *r)
{
    level *st = NULL;
    size_t top = 0, cap = 0;
    pt__chain ch = { 0 };
    int rc = 0;

    /* Levels opened below parent, one per depth, freed as they end. */
    for (const pt_section *p = parent;;) {
        const pt_section *c;
        if (p && !(o->max_depth > 0 && p->depth + 1 > o->max_depth) && p->child) {
            if (top == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                level *v = realloc(st, ncap * sizeof *v);
                if (!v) {
                    rc = PT_ENOMEM;
                    break;
                }
                st = v;
                cap = ncap;
            }
            level *l = &st[top++];
            l->i = 0;
            l->n = pt__sorted_children(p, o->sort, &l->kids);
            l->next = l->kids ? NULL : p->child;
        }
        if (top == 0)
            break;
        c = level_next(&st[top - 1]);
        if (!c) {
            free(st[--top].kids);
            p = NULL;
            continue;
        }
        if (paths) {
            rc = pt__chain_set(&ch, c);
            if (rc == 0)
                rc = add_row(t, r, c, path_label(ch.anc, ch.cum, (size_t)c->depth));
        } else {
            rc = add_row(t, r, c, title_label(c));
        }
        if (rc)
            break;
        p = c;
    }
    while (top > 0)
        free(st[--top].kids);
    free(st);
    pt__chain_free(&ch);
    return rc;
}

char *pt__chain_path(const pt__chain *c, const pt_section *s)
{
    return path_label(c->anc, c->cum, (size_t)s->depth);
}

void pt__chain_free(pt__chain *c)
{
    free(c->anc);
    free(c->cum);
    memset(c, 0, sizeof *c);
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
