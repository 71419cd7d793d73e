/* The bottlenecks: the sections with the most self time, largest first,
 * each marked as the table marks it (GPU launch, phase, CPU clock, too
 * short to time, open). */
#include "report/views.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B_RANK, B_SECTION, B_SELF, B_PCT, B_CALLS, BCOL };

int pt__view_bottlenecks(pt_timing *t, pt__lines *k, const pt_log_opts *o, const pt_run_stats *rs)
{
    size_t top = o->top > 0 ? (size_t)o->top : 10, n;
    const pt_section **v;
    pt__rows r = { 0 };
    int rc = 0;

    /* A generous .top must not become a huge allocation. */
    if (top > t->main.nsections)
        top = t->main.nsections ? t->main.nsections : 1;
    v = malloc(top * sizeof *v);
    if (!v)
        return PT_ENOMEM;
    n = pt_bottlenecks(t, top, v);
    rc = pt__rows_add_paths(t, &r, v, n);
    free(v);
    if (rc == 0) {
        static const char *const head[BCOL] = { "Rank", "Section", "Self ms", "% of whole",
                                            "Calls" };
        size_t w[BCOL], total_w = 0;
        char marks[PT__MARKS], cell[BCOL][PT__CELL];
        pt_section_stats st;
        for (int c = 0; c < BCOL; c++)
            w[c] = strlen(head[c]);
        /* Two passes, as the tree: widths, then lines. */
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                for (int c = 0; c < BCOL; c++) {
                    if (c)
                        pt__line_str(k, PT__GAP);
                    pt__line_cell(k, head[c], w[c], c != B_SECTION);
                }
                pt__line_emit(k);
                for (int c = 0; c < BCOL; c++)
                    total_w += w[c] + (c ? strlen(PT__GAP) : 0);
                pt__line_rule(k, '-', total_w);
            }
            for (size_t i = 0; i < r.n; i++) {
                pt__row *x = &r.v[i];
                pt__row_stats(&r, i, &st);
                double pct = rs->total_ms > 0 ? 100.0 * st.self_ms / rs->total_ms : 0;
                snprintf(cell[B_RANK], PT__CELL, "%zu", i + 1);
                pt__fmt_ms(cell[B_SELF], st.self_ms);
                pt__fmt_pct(cell[B_PCT], pct);
                snprintf(cell[B_CALLS], PT__CELL, "%" PRIu64, st.count);
                for (int c = 0; c < BCOL; c++) {
                    const char *txt = c == B_SECTION ? x->label : cell[c];
                    size_t cw = c == B_SECTION ? pt__utf8_width(txt) : strlen(txt);
                    if (pass == 0) {
                        if (cw > w[c])
                            w[c] = cw;
                        continue;
                    }
                    if (c)
                        pt__line_str(k, PT__GAP);
                    pt__line_cell(k, txt, w[c], c != B_SECTION);
                }
                if (pass == 1) {
                    pt__line_str(k, pt__marks(&st, 1, marks, sizeof marks));
                    pt__line_emit(k);
                }
            }
        }
    }
    pt__rows_free(&r);
    return rc;
}
