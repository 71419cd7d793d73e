/* The threads view: under the tree, each thread's part of the sections
 * it ran. */
#include "report/views.h"

#include "core/threads.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_CALLS, P_TOTAL, P_MEAN, P_PCT, PCOL };

/* One part's cells, formatted where they are measured or printed. */
static void part_cells(const pt_thread_part *p, char cell[PCOL][PT__CELL])
{
    snprintf(cell[P_CALLS], PT__CELL, "%" PRIu64, p->count);
    pt__fmt_ms(cell[P_TOTAL], p->total_ms);
    pt__fmt_ms(cell[P_MEAN], p->mean_ms);
    pt__fmt_pct(cell[P_PCT], p->pct_section);
}

/* The tree's sections again, under each thread that ran them: that
 * thread's calls, time, mean and share of the pooled section. Threads
 * that ran nothing are left out, and so are the sections a thread never
 * ran. Rows are the tree view's, so the order and depth limit hold.
 * The parts are kept (one per row and group), the cells formatted twice:
 * for the widths, then for the lines. */
int pt__view_threads(pt_timing *t, pt__lines *k, const pt__rows *r, int nthreads)
{
    static const char *const head[PCOL] = { "Calls", "Total ms", "ms per call", "% of section" };
    pt_thread_part *part;
    pt__parts pw;
    size_t w[PCOL], name_w = strlen("Section by thread"), cells;
    char cell[PCOL][PT__CELL];
    int ngroups = nthreads + 1; /* the merged runs, then threads 0.. */

    if (r->n == 0)
        return 0;
    cells = (size_t)ngroups * r->n;
    part = calloc(cells, sizeof *part);
    if (!part || pt__parts_init(t, &pw) < 0) {
        free(part);
        return PT_ENOMEM;
    }
    for (int c = 0; c < PCOL; c++)
        w[c] = strlen(head[c]);
    /* The rows are depth first: one walk finds every part. */
    for (size_t i = 0; i < r->n; i++) {
        if (pt__parts_step(&pw, r->v[i].s) < 0) {
            pt__parts_free(&pw);
            free(part);
            return PT_ENOMEM;
        }
        for (int g = 0; g < ngroups; g++) {
            size_t at = (size_t)g * r->n + i;
            pt_thread_part *p = &part[at];
            if (pt__parts_get(&pw, r->v[i].s, g - 1, p) < 0 || p->count == 0)
                continue;
            part_cells(p, cell);
            for (int c = 0; c < PCOL; c++)
                if (strlen(cell[c]) > w[c])
                    w[c] = strlen(cell[c]);
            size_t nw = pt__indent(r->v[i].s->depth) + 2 + pt__utf8_width(r->v[i].label);
            if (nw > name_w)
                name_w = nw;
        }
    }
    pt__parts_free(&pw);
    if (name_w > PT__NAME_MAX_W)
        name_w = PT__NAME_MAX_W;
    pt__line_emit(k);
    pt__head_row(k, "Section by thread", name_w, head, w, PCOL, 0);
    /* Threads in order, the runs merged in last. */
    for (int n = 0; n < ngroups; n++) {
        int g = n + 1 < ngroups ? n + 1 : 0, any = 0;
        for (size_t i = 0; i < r->n && !any; i++)
            any = part[(size_t)g * r->n + i].count > 0;
        if (!any)
            continue;
        if (g == 0) {
            pt__line_str(k, "merged from other runs (pt_unpack_merge)");
        } else {
            pt_thread_info ti;
            if (pt_thread_get(t, g - 1, &ti) == 0)
                pt__thread_label(k, &ti);
            else
                pt__line_printf(k, "thread %d", g - 1);
        }
        pt__line_emit(k);
        for (size_t i = 0; i < r->n; i++) {
            size_t at = (size_t)g * r->n + i;
            if (part[at].count == 0)
                continue;
            part_cells(&part[at], cell);
            pt__name_cell(k, pt__indent(r->v[i].s->depth) + 2, r->v[i].label, "", name_w);
            for (int c = 0; c < PCOL; c++) {
                pt__line_str(k, PT__GAP);
                pt__line_cell(k, cell[c], w[c], 1);
            }
            pt__line_emit(k);
        }
    }
    free(part);
    return 0;
}
