/* The flat table: one row per section by path, its calls, total, the
 * first call, and the mean, min and max of the later calls, what each
 * row is (GPU launch, phase, timed by the CPU clock, too short to time,
 * open), and the total at the foot. The kernel table (PT_VIEW_KERNELS,
 * seed 002's KernelTimer) is the same restricted to GPU launches and the
 * phases folded under them.
 *
 * "Mean" means what it means in the tree and in every export: the mean
 * of the calls after the first, which is shown apart because it carries
 * the warm-up (allocation, JIT, caches) the later ones do not. A section
 * called once has only its first call. The table says so under itself. */
#include "report/views.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { T_CALLS, T_TOTAL, T_FIRST, T_MEAN, T_MIN, T_MAX, TCOL };

/* One row's cells, formatted where they are measured or printed. */
static void table_cells(const pt_section_stats *st, char cell[TCOL][PT__CELL])
{
    snprintf(cell[T_CALLS], PT__CELL, "%" PRIu64, st->count);
    pt__fmt_ms(cell[T_TOTAL], st->total_ms);
    pt__fmt_ms(cell[T_FIRST], st->first_ms);
    if (st->count > 1) {
        pt__fmt_ms(cell[T_MEAN], st->mean_ms);
        pt__fmt_ms(cell[T_MIN], st->min_ms);
        pt__fmt_ms(cell[T_MAX], st->max_ms);
    } else {
        for (int c = T_MEAN; c <= T_MAX; c++)
            snprintf(cell[c], PT__CELL, "-");
    }
}

/* A GPU launch, or a phase (or "(unattributed)") folded under one. */
static int kernel_row(const pt_section *s)
{
    return s->kind == PT__K_GPU ||
           ((s->kind == PT__K_PHASE || s->kind == PT__K_UNATTR) && s->parent &&
            s->parent->kind == PT__K_GPU);
}

/* A launch no other launch encloses: the kernel table's total adds these. */
static int outer_kernel(const pt_section *s)
{
    if (s->kind != PT__K_GPU)
        return 0;
    for (const pt_section *p = s->parent; p; p = p->parent)
        if (p->kind == PT__K_GPU)
            return 0;
    return 1;
}

/* Two passes over the rows, as the tree does: widths, then lines; O(n). */
void pt__view_table(pt__lines *k, pt__rows *r, const pt_run_stats *rs, int kernels)
{
    static const char *const head[TCOL] = { "Calls", "Total ms", "First ms", "Mean ms",
                                            "Min ms", "Max ms" };
    size_t w[TCOL], name_w = strlen(kernels ? "Kernel / phase" : "Section"), total_w, shown = 0;
    char total[PT__CELL], marks[PT__MARKS], cell[TCOL][PT__CELL];
    pt_section_stats st;
    double kernels_ms = 0;

    for (int c = 0; c < TCOL; c++)
        w[c] = strlen(head[c]);
    for (size_t i = 0; i < r->n; i++) {
        pt__row *x = &r->v[i];
        if (kernels && !kernel_row(x->s))
            continue;
        pt__row_stats(r, i, &st);
        if (kernels && outer_kernel(x->s))
            kernels_ms += st.total_ms;
        table_cells(&st, cell);
        if (pt__utf8_width(x->label) > name_w)
            name_w = pt__utf8_width(x->label);
        for (int c = 0; c < TCOL; c++)
            if (strlen(cell[c]) > w[c])
                w[c] = strlen(cell[c]);
    }
    pt__fmt_ms(total, kernels ? kernels_ms : rs->total_ms);
    if (strlen(total) > w[T_TOTAL])
        w[T_TOTAL] = strlen(total);
    total_w = pt__head_row(k, kernels ? "Kernel / phase" : "Section", name_w, head, w, TCOL, '=');
    for (size_t i = 0; i < r->n; i++) {
        pt__row *x = &r->v[i];
        if (kernels && !kernel_row(x->s))
            continue;
        shown++;
        pt__row_stats(r, i, &st);
        table_cells(&st, cell);
        pt__line_cell(k, x->label, name_w, 0);
        for (int c = 0; c < TCOL; c++) {
            pt__line_str(k, PT__GAP);
            pt__line_cell(k, cell[c], w[c], 1);
        }
        pt__line_str(k, pt__marks(&st, 1, marks, sizeof marks));
        pt__line_emit(k);
    }
    if (kernels && shown == 0) {
        pt__line_str(k, "(no GPU launches)");
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
    pt__line_str(k, "Mean, min and max are of the calls after the first, which is apart (as in "
                    "the tree and the exports); a section called once has only its first.");
    pt__line_emit(k);
}
