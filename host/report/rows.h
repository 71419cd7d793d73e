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
/* Cells per row: the most columns a view has (the tree's). */
#define PT__ROW_CELLS 9

typedef struct pt__row {
    const pt_section *s;
    pt_section_stats st;
    char *label;              /* the clean title (tree) or path (table, bottlenecks) */
    char cell[PT__ROW_CELLS][PT__CELL]; /* the printing view's cells, by its column enum */
} pt__row;

typedef struct pt__rows {
    pt__row *v;
    size_t n, cap;
} pt__rows;

PT__HIDDEN void pt__rows_free(pt__rows *r);
/* One more row: s with its figures, labelled by its clean path or title. */
PT__HIDDEN int pt__rows_add(const pt_timing *t, pt__rows *r, const pt_section *s, int paths);
/* The sections under parent to show, depth first, siblings in the order
 * o asks, down to o's depth. 0, or PT_ENOMEM. */
PT__HIDDEN int pt__rows_collect(const pt_timing *t, const pt_section *parent,
                                const pt_log_opts *o, int paths, pt__rows *r);

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
