/* The rows of a text report (rows.c): the sections a view shows with
 * their figures, and the pieces of a table the views share (headings,
 * indented names, thread labels). Not installed. */
#ifndef PT_REPORT_ROWS_H
#define PT_REPORT_ROWS_H

#include "report/format.h"
#include "report/lines.h"

#include <stddef.h>

/* Beyond this the tree's name column is cut with an ellipsis; the flat
 * table shows whole paths, since a path is the row's identity there. */
#define PT__NAME_MAX_W 50
#define PT__GAP "  "
/* Indentation grows two columns a level up to this many levels; a deeper
 * row stays there and says its depth before its title ("\xE2\x86\xB3" 57 ...),
 * so a line never grows with the depth of the tree. */
#define PT__INDENT_LEVELS 16
/* A path longer than this many columns is shown as its first and last
 * titles around an ellipsis (the flat table, the bottlenecks), so a line
 * never grows with the depth of the tree either. */
#define PT__PATH_MAX_W 120

/* A row is its section and label only (16 bytes and the label): a view
 * computes the figures (pt__row_stats()) and formats the cells as it
 * prints them, twice where it needs the column widths first (one pass
 * measures, one prints). So a report of n rows holds O(n) small rows,
 * not n rows of formatted cells, and its memory stays near the cache at
 * any size. */
typedef struct pt__row {
    const pt_section *s;
    char *label;              /* the clean title (tree) or path (table, bottlenecks), cut
                               * (PT__INDENT_LEVELS, PT__PATH_MAX_W) */
} pt__row;

typedef struct pt__rows {
    const pt_timing *t;       /* whose sections they are */
    pt__row *v;
    size_t n, cap;
} pt__rows;

PT__HIDDEN void pt__rows_free(pt__rows *r);
/* Row i's figures (pt_section_get()'s), in the time of its children:
 * O(n) over every row. */
PT__HIDDEN void pt__row_stats(const pt__rows *r, size_t i, pt_section_stats *st);
/* Rows for v[0..n) of t's tree, in that order (the bottlenecks), each
 * labelled with its path: the labels made in one walk of the tree, so
 * O(N log n) for N sections at any depth, not a walk up from each row
 * (O(n x depth)). 0, or PT_ENOMEM. */
PT__HIDDEN int pt__rows_add_paths(const pt_timing *t, pt__rows *r, const pt_section *const *v,
                                  size_t n);
/* The sections under parent to show, depth first, siblings in the order
 * o asks, down to o's depth; without recursion, O(n log n) in the
 * sections and linear in the depth. 0, or PT_ENOMEM. */
PT__HIDDEN int pt__rows_collect(const pt_timing *t, const pt_section *parent,
                                const pt_log_opts *o, int paths, pt__rows *r);
/* The columns a row of depth `depth` (1 at the top) is indented by. */
static inline size_t pt__indent(int depth)
{
    int lv = depth - 1 < PT__INDENT_LEVELS ? depth - 1 : PT__INDENT_LEVELS;
    return lv > 0 ? (size_t)lv * 2 : 0;
}

/* A walk's ancestors by depth, for labelling each section with its path
 * in constant time (the chain keeps each depth's columns): set each
 * section as the walk reaches it (parents first), then ask its path. */
typedef struct pt__chain {
    const pt_section **anc;
    size_t *cum;
    size_t cap;
} pt__chain;
PT__HIDDEN int pt__chain_set(pt__chain *c, const pt_section *s);
/* s's clean path, cut to PT__PATH_MAX_W columns as the flat table shows
 * it; malloc'ed, NULL without memory. */
PT__HIDDEN char *pt__chain_path(const pt__chain *c, const pt_section *s);
PT__HIDDEN void pt__chain_free(pt__chain *c);

/* What a row is, after its name: " [gpu]", " [phase]" (with phases set),
 * " [cpu clock]" (a GPU section timed by the CPU clock), " [short]" (too
 * short to time), " [open]"; "" for none. Written into buf, returned. */
#define PT__MARKS 64
PT__HIDDEN const char *pt__marks(const pt_section_stats *st, int phases, char *buf, size_t n);
/* "thread 2 (tid 4242)", and ", creator" for thread 0. */
PT__HIDDEN void pt__thread_label(pt__lines *k, const pt_thread_info *ti);
/* label indented, with marks after it, in a cell of w columns; cut with
 * an ellipsis when it does not fit. */
PT__HIDDEN void pt__name_cell(pt__lines *k, size_t indent, const char *label, const char *marks,
                              size_t w);
/* The heading of a table whose first column is left-aligned and the
 * others right-aligned, between rules (above it only when `above` is a
 * character); returns the table's width. */
PT__HIDDEN size_t pt__head_row(pt__lines *k, const char *first, size_t name_w,
                               const char *const *head, const size_t *w, int ncol, char above);

#endif
