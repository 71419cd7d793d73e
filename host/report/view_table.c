/* The flat table: one row per section by path, its calls, total,
 * mean, min and max over all occurrences, and the total at the foot. */
#include "report/views.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { T_CALLS, T_TOTAL, T_MEAN, T_MIN, T_MAX, TCOL };

/* The table's figures are over all occurrences, the first included,
 * where pt_section_stats keeps the first apart from the rest. */
static void table_cells(pt__row *w)
{
    const pt_section_stats *st = &w->st;
    double lo = st->first_ms, hi = st->first_ms;

    if (st->count > 1) {
        lo = st->min_ms < lo ? st->min_ms : lo;
        hi = st->max_ms > hi ? st->max_ms : hi;
    }
    snprintf(w->cell[T_CALLS], PT__CELL, "%" PRIu64, st->count);
    snprintf(w->cell[T_TOTAL], PT__CELL, "%.3f", st->total_ms);
    snprintf(w->cell[T_MEAN], PT__CELL, "%.3f", st->count ? st->total_ms / (double)st->count : 0);
    snprintf(w->cell[T_MIN], PT__CELL, "%.3f", lo);
    snprintf(w->cell[T_MAX], PT__CELL, "%.3f", hi);
}

void pt__view_table(pt__lines *k, pt__rows *r, const pt_run_stats *rs)
{
    static const char *const head[TCOL] = { "Calls", "Total (ms)", "Mean (ms)", "Min (ms)",
                                            "Max (ms)" };
    size_t w[TCOL], name_w = strlen("Section"), total_w;
    char total[PT__CELL];

    snprintf(total, PT__CELL, "%.3f", rs->total_ms);
    for (int c = 0; c < TCOL; c++)
        w[c] = strlen(head[c]);
    if (strlen(total) > w[T_TOTAL])
        w[T_TOTAL] = strlen(total);
    for (size_t i = 0; i < r->n; i++) {
        pt__row *x = &r->v[i];
        table_cells(x);
        if (pt__utf8_width(x->label) > name_w)
            name_w = pt__utf8_width(x->label);
        for (int c = 0; c < TCOL; c++)
            if (strlen(x->cell[c]) > w[c])
                w[c] = strlen(x->cell[c]);
    }
    total_w = pt__head_row(k, "Section", name_w, head, w, TCOL, '=');
    for (size_t i = 0; i < r->n; i++) {
        pt__row *x = &r->v[i];
        pt__line_cell(k, x->label, name_w, 0);
        for (int c = 0; c < TCOL; c++) {
            pt__line_str(k, PT__GAP);
            pt__line_cell(k, x->cell[c], w[c], 1);
        }
        if (x->st.open)
            pt__line_str(k, PT__GAP "[open]");
        pt__line_emit(k);
    }
    pt__line_rule(k, '-', total_w);
    pt__line_cell(k, "TOTAL", name_w, 0);
    pt__line_str(k, PT__GAP);
    pt__line_spaces(k, w[T_CALLS]);
    pt__line_str(k, PT__GAP);
    pt__line_cell(k, total, w[T_TOTAL], 1);
    pt__line_emit(k);
    pt__line_rule(k, '=', total_w);
}
