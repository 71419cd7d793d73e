/* The tree view: every section indented under its parent, its calls,
 * time, first occurrence apart from the mean, deviation and extremes of
 * the rest, rates, and under it its transfers, roofline, per-block
 * figures and the SMs a phase's time went to. */
#include "report/views.h"

#include "core/spans.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { C_CALLS, C_TOTAL, C_PPARENT, C_PTOTAL, C_FIRST, C_LATER, C_READ, C_WRITE, C_GFLOPS,
       NCOL };

/* One row's cells, formatted where they are measured or printed. */
static void tree_cells(const pt_section_stats *st, char cell[NCOL][PT__CELL])
{
    snprintf(cell[C_CALLS], PT__CELL, "%" PRIu64, st->count);
    pt__fmt_ms(cell[C_TOTAL], st->total_ms);
    pt__fmt_pct(cell[C_PPARENT], st->pct_parent);
    pt__fmt_pct(cell[C_PTOTAL], st->pct_total);
    pt__fmt_ms(cell[C_FIRST], st->first_ms);
    cell[C_LATER][0] = '\0';
    if (st->count > 2) {
        char m[PT__CELL], sd[PT__CELL], lo[PT__CELL], hi[PT__CELL];
        pt__fmt_ms(m, st->mean_ms);
        pt__fmt_ms(sd, st->stddev_ms);
        pt__fmt_ms(lo, st->min_ms);
        pt__fmt_ms(hi, st->max_ms);
        snprintf(cell[C_LATER], PT__CELL, "%.20s \xC2\xB1 %.20s (%.20s, %.20s)", m, sd, lo, hi);
    } else if (st->count == 2) {
        /* One later call: its time; a deviation, least and most say nothing. */
        pt__fmt_ms(cell[C_LATER], st->mean_ms);
    }
    pt__fmt_rate(cell[C_READ], st->read_gbs);
    pt__fmt_rate(cell[C_WRITE], st->write_gbs);
    pt__fmt_rate(cell[C_GFLOPS], st->gflops);
    /* Declared, but no rate from the CPU's view of a launch: say it is left out. */
    if (st->read_bytes > 0 && !st->read_gbs)
        snprintf(cell[C_READ], PT__CELL, "-");
    if (st->written_bytes > 0 && !st->write_gbs)
        snprintf(cell[C_WRITE], PT__CELL, "-");
    if (st->flops > 0 && !st->gflops)
        snprintf(cell[C_GFLOPS], PT__CELL, "-");
}

/* Where a folded phase's block time went, by SM: how many SMs, their
 * mean, least and most, and the busiest three (one pass over the SMs). */
static void sm_line(pt__lines *k, const pt_section *s, const pt_section_stats *st, size_t indent)
{
    const pt__phase_ext *p = s->phase;
    int top[3] = { -1, -1, -1 };
    char a[PT__CELL], b[PT__CELL], c[PT__CELL];

    for (int i = 0; i < p->nsm; i++) {
        int at = 3;
        if (!(p->sm_ns[i] > 0))
            continue;
        while (at > 0 && (top[at - 1] < 0 || p->sm_ns[top[at - 1]] < p->sm_ns[i]))
            at--;
        if (at < 3) {
            memmove(top + at + 1, top + at, (size_t)(2 - at) * sizeof *top);
            top[at] = i;
        }
    }
    pt__fmt_ms(a, st->sm_mean_ms);
    pt__fmt_ms(b, st->sm_min_ms);
    pt__fmt_ms(c, st->sm_max_ms);
    pt__line_spaces(k, indent + 4);
    pt__line_printf(k, "by SM: %" PRIu64 " SM%s, mean %s ms, min %s ms, max %s ms, imbalance "
                       "%.2f (max/mean); busiest",
                    st->sms, st->sms == 1 ? "" : "s", a, b, c, st->sm_imbalance);
    for (int i = 0; i < 3 && top[i] >= 0; i++) {
        pt__fmt_ms(a, p->sm_ns[top[i]] / 1e6);
        pt__line_printf(k, "%s SM %d %s ms", i ? "," : "", top[i], a);
    }
    pt__line_emit(k);
}

/* How a folded launch's blocks filled the device (gpu/shape.c): waves,
 * span, tail, idle SMs and stragglers, then its slowest block phase by
 * phase. O(phases). */
static void shape_lines(pt__lines *k, const pt_section *s, const pt_section_stats *st,
                        size_t indent)
{
    const pt__shape *sh = s->shape;
    const char *sm = sh->on_host ? "CPU" : "SM";
    char a[PT__CELL], b[PT__CELL];

    pt__fmt_ms(a, st->span_ms);
    pt__fmt_ms(b, st->tail_ms);
    pt__line_spaces(k, indent + 4);
    pt__line_printf(k, "waves: %.2f (at most %" PRIu64 " block%s per %s at once, %" PRIu64
                       " %s%s); span %s ms, tail %s ms (%.1f%%), %ss idle %.1f%%",
                    st->waves, st->sm_resident, st->sm_resident == 1 ? "" : "s", sm,
                    st->device_sms, sm, st->device_sms == 1 ? "" : "s", a, b, st->tail_pct, sm,
                    st->sm_idle_pct);
    if (st->stragglers > 0)
        pt__line_printf(k, "; %" PRIu64 " straggler %s%s, the last %s %" PRIu64, st->stragglers,
                        sm, st->stragglers == 1 ? "" : "s", sm, st->straggler_sm);
    if (st->shape_folds > 1)
        pt__line_printf(k, " (mean of %" PRIu64 " launches)", st->shape_folds);
    pt__line_emit(k);
    pt__fmt_ms(a, st->slowest_block_ms);
    pt__line_spaces(k, indent + 4);
    pt__line_printf(k, "slowest block: %" PRIu64 " on %s %" PRIu64 ", %s ms", st->slowest_block,
                    sm, st->slowest_block_sm, a);
    for (int i = 0; i < sh->nslow; i++) {
        pt__fmt_ms(a, sh->slow_ns[i] / 1e6);
        pt__line_printf(k, "%s %s %s", i ? "," : ":", sh->slow_names[i], a);
    }
    pt__line_emit(k);
}

/* A launch's spans, a line a kind: count, total, mean, p50, p99, max, and
 * those left unmatched. O(kinds). */
static void span_lines(pt__lines *k, const pt_section *s, size_t indent)
{
    const pt__shape *sh = s->shape;
    char a[PT__CELL], b[PT__CELL], c[PT__CELL], d[PT__CELL], e[PT__CELL];

    for (int i = 0; i < sh->nspans; i++) {
        const pt__span *sp = &sh->spans[i];
        pt__fmt_ms(a, sp->total_ns / 1e6);
        pt__fmt_ms(b, sp->count ? sp->total_ns / (double)sp->count / 1e6 : 0);
        pt__fmt_ms(c, pt__span_quantile(sp, 0.50) / 1e6);
        pt__fmt_ms(d, pt__span_quantile(sp, 0.99) / 1e6);
        pt__fmt_ms(e, sp->max_ns / 1e6);
        pt__line_spaces(k, indent + 4);
        pt__line_printf(k, "span %s: %" PRIu64 ", total %s ms; mean %s, p50 %s, p99 %s, max %s ms",
                        sp->name, sp->count, a, b, c, d, e);
        if (sp->unmatched)
            pt__line_printf(k, "; %" PRIu64 " begin%s or end%s left unmatched", sp->unmatched,
                            sp->unmatched == 1 ? "" : "s", sp->unmatched == 1 ? "" : "s");
        pt__line_emit(k);
    }
}

/* A role's (or a launch's) work beside the other roles and its waits
 * with nothing in flight (core/overlap.c), per SM. */
static void overlap_line(pt__lines *k, const pt_section *s, const pt_section_stats *st,
                         size_t indent)
{
    const char *sm = s->shape && s->shape->on_host ? "CPU" : "SM";
    char a[PT__CELL], b[PT__CELL], c[PT__CELL];

    pt__fmt_ms(a, st->busy_ms);
    pt__fmt_ms(b, st->wait_ms);
    pt__fmt_ms(c, st->bubble_ms);
    pt__line_spaces(k, indent + 4);
    pt__line_printf(k, "overlap: working %s ms per %s, %.1f%% of it beside another role's work; "
                       "waiting %s ms, %s ms of it with nothing in flight (bubbles)",
                    a, sm, st->overlap_pct, b, c);
    if (st->overlap_folds > 1)
        pt__line_printf(k, " (mean of %" PRIu64 " launches)", st->overlap_folds);
    pt__line_emit(k);
}

/* The lines under a row: transfers per direction, and for a folded
 * phase the per-block figures that show how evenly the grid worked. */
static void tree_extra(pt__lines *k, const pt_section *s, const pt_section_stats *st,
                       size_t indent)
{
    static const char *const dir[3] = { "H2D", "D2H", "D2D" };
    char a[PT__CELL], b[PT__CELL], c[PT__CELL];

    for (int i = 0; i < 3; i++) {
        if (st->xfer_bytes[i] <= 0)
            continue;
        pt__fmt_bytes(b, st->xfer_bytes[i]);
        pt__line_spaces(k, indent + 4);
        if (st->xfer_gbs[i] > 0) {
            pt__fmt_rate(a, st->xfer_gbs[i]);
            pt__line_printf(k, "%s %s GB/s (%s)", dir[i], a, b);
        } else {
            pt__line_printf(k, "%s (%s, no time)", dir[i], b);
        }
        pt__line_emit(k);
    }
    /* The roofline line only where peaks are known and something was declared. */
    if (st->pct_peak_bw > 0 || st->pct_peak_flops > 0 || st->bound) {
        pt__line_spaces(k, indent + 4);
        pt__line_str(k, "roofline:");
        if (st->ai > 0)
            pt__line_printf(k, " AI %.3g FLOP/B,", st->ai);
        pt__line_printf(k, " %.1f%% of peak bandwidth, %.1f%% of peak FLOP/s", st->pct_peak_bw,
            st->pct_peak_flops);
        if (st->bound)
            pt__line_printf(k, ", %s", st->bound == PT_BOUND_MEMORY ? "memory-bound" : "compute-bound");
        pt__line_emit(k);
    }
    /* ptkit's own cost, where it is a visible part of the row: what its
     * children's pairs put into the self time, or what a phase's marks
     * cost; the exports always give it (overhead_ms). */
    if (st->overhead_ms > 0 && st->overhead_ms >= 0.01 * st->total_ms) {
        pt__fmt_ms(a, st->overhead_ms);
        pt__line_spaces(k, indent + 4);
        if (st->phase)
            pt__line_printf(k, "marks' own cost taken out: %s ms", a);
        else
            pt__line_printf(k, "ptkit's own cost taken out of the self time: %s ms (its "
                               "children's start+stop pairs)", a);
        pt__line_emit(k);
    }
    if (st->ranks > 0) {
        pt__fmt_ms(a, st->rank_min_ms);
        pt__fmt_ms(b, st->rank_mean_ms);
        pt__fmt_ms(c, st->rank_max_ms);
        pt__line_spaces(k, indent + 4);
        pt__line_printf(k, "ranks: %" PRIu64 " with it; each rank's total min %s, mean %s, max %s "
                           "ms; slowest rank %" PRIu64, st->ranks, a, b, c, st->rank_slowest);
        pt__line_emit(k);
    }
    if (st->sample_every > 1) {
        pt__line_spaces(k, indent + 4);
        pt__line_printf(k, "sampled: 1 slot in %" PRIu64, st->sample_every);
        if (st->sample_slots > 0)
            pt__line_printf(k, " of %" PRIu64, st->sample_slots);
        pt__line_str(k, " recorded; the phases are the sampled blocks' shares of the launch, "
                        "the per-block figures the sample's");
        pt__line_emit(k);
    }
    if (s->shape && st->shape_folds > 0)
        shape_lines(k, s, st, indent);
    if (s->shape && s->shape->nspans > 0)
        span_lines(k, s, indent);
    if (st->overlap_folds > 0)
        overlap_line(k, s, st, indent);
    if (st->phase && st->blocks > 0) {
        char p50[PT__CELL], p90[PT__CELL], p99[PT__CELL];
        pt__fmt_ms(a, st->block_mean_ms);
        pt__fmt_ms(b, st->block_min_ms);
        pt__fmt_ms(c, st->block_max_ms);
        pt__fmt_ms(p50, st->block_p50_ms);
        pt__fmt_ms(p90, st->block_p90_ms);
        pt__fmt_ms(p99, st->block_p99_ms);
        pt__line_spaces(k, indent + 4);
        pt__line_printf(k, "per block: mean %s ms; min %s, p50 %s, p90 %s, p99 %s, max %s ms; "
               "imbalance %.2f (max/mean); %" PRIu64 " block%s, %.17g hits",
            a, b, p50, p90, p99, c, st->imbalance, st->blocks, st->blocks == 1 ? "" : "s",
            st->hits);
        /* A CPU thread runs host mode's blocks: the OS's preemption and
         * other processes are in their times, and in the spread. */
        if (s->parent && s->parent->ran_here)
            pt__line_str(k, " (host mode: the spread includes the OS preempting the thread)");
        pt__line_emit(k);
    }
    if (st->phase && st->sms > 0)
        sm_line(k, s, st, indent);
}

/* Two passes over the rows, each formatting a row's cells into the same
 * stack buffer: the widths, then the lines. O(n) in the rows, with O(1)
 * memory beyond them. */
void pt__view_tree(pt__lines *k, pt__rows *r, const pt_log_opts *o)
{
    static const char *const head[NCOL] = { "Calls", "Total ms", "% parent", "% total",
                                            "First ms", "Later: mean \xC2\xB1 sd (min, max)",
                                            "Read GB/s", "Write GB/s", "GFLOP/s" };
    size_t w[NCOL], name_w = strlen("Section"), total_w;
    int show[NCOL];
    char marks[PT__MARKS], cell[NCOL][PT__CELL];
    pt_section_stats st;

    for (int c = 0; c < NCOL; c++) {
        show[c] = o->percentages || (c != C_PPARENT && c != C_PTOTAL);
        w[c] = pt__utf8_width(head[c]);
    }
    for (size_t i = 0; i < r->n; i++) {
        pt__row_stats(r, i, &st);
        size_t nw = pt__indent(st.depth) + pt__utf8_width(r->v[i].label) +
                    pt__utf8_width(pt__marks(&st, 0, marks, sizeof marks));
        tree_cells(&st, cell);
        if (nw > name_w)
            name_w = nw;
        for (int c = 0; c < NCOL; c++)
            if (pt__utf8_width(cell[c]) > w[c])
                w[c] = pt__utf8_width(cell[c]);
    }
    if (name_w > PT__NAME_MAX_W)
        name_w = PT__NAME_MAX_W;

    total_w = name_w;
    pt__line_cell(k, "Section", name_w, 0);
    for (int c = 0; c < NCOL; c++) {
        if (!show[c])
            continue;
        pt__line_str(k, PT__GAP);
        pt__line_cell(k, head[c], w[c], c != C_LATER);
        total_w += strlen(PT__GAP) + w[c];
    }
    pt__line_emit(k);
    pt__line_rule(k, '-', total_w);

    for (size_t i = 0; i < r->n; i++) {
        size_t indent;
        pt__row_stats(r, i, &st);
        indent = pt__indent(st.depth);
        tree_cells(&st, cell);
        pt__name_cell(k, indent, r->v[i].label, pt__marks(&st, 0, marks, sizeof marks), name_w);
        for (int c = 0; c < NCOL; c++) {
            if (!show[c])
                continue;
            pt__line_str(k, PT__GAP);
            pt__line_cell(k, cell[c], w[c], c != C_LATER);
        }
        pt__line_emit(k);
        tree_extra(k, r->v[i].s, &st, indent);
    }
}
