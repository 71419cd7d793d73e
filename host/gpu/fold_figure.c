/* A fold's figures: what a fold finds in block records read on the host
 * before it changes the tree (fold_apply.h).
 *
 * One pass over the slots finds each one's plausibility and rate, which
 * the summary, the heatmap and the shape all take; a second adds each
 * slot into the summary (device/pt_fold_math.h, as the device reduction
 * does); the heatmap and the shape read the slots once more each. Nothing
 * here reads or writes the timing, its tree or the buffer's state beyond
 * its shape (slots, phases, trace room, host or device): the summary's
 * memory is the figures' own while they are found. So the fold's thread
 * (fold_worker.c) finds a replay's figures while the thread that
 * launches goes on, and fold_apply.c puts them in the tree on that
 * thread. O(slots x phases), and O(slots log slots) at
 * worst for the shape. */
#include "gpu/fold_apply.h"

#include "gpu/heat.h"

#include "pt_fold_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* DONE counts the ENDs that wrote a slot since the buffer was reset, so
 * on records folded before and not reset since (said by pt_dev_fold) a
 * slot each launch wrote reads the number of launches, not a slot
 * several blocks shared: there each written slot counts once, as it did
 * before, its latest END's figures whole. d is ptkit's memory (the host
 * buffer, or the copy of a device one). */
static void stale_done(const pt__fold_src *j, const long long *d)
{
    const pt_dev_records *b = j->buf;
    long long sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap);
    if (!j->stale)
        return;
    for (int s = 0; s < b->nslots; s++) {
        long long *done = (long long *)d + PT_DEV_HDR + s * sw + PT_DEV_S_DONE;
        if (*done > 1)
            *done = 1;
    }
}

/* Without a calibration, the launch's own average rate: its globaltimer
 * spans over its clock64 spans, pooled over the finished slots; 0 when
 * nothing was measured (there is then no time to convert). */
static double pooled_rate(const pt_dev_records *b, const long long *d)
{
    long long sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap);
    long long lim = pt__count_limit(b->nslots);
    double gt = 0, clk = 0;

    for (int s = 0; s < b->nslots; s++) {
        const long long *rec = d + PT_DEV_HDR + s * sw;
        if (pt__slot_ok(rec, b->nphases, b->trace_cap, lim) > 0) {
            clk += (double)(rec[PT_DEV_S_CLK1] - rec[PT_DEV_S_CLK0]);
            gt += (double)(rec[PT_DEV_S_GT1] - rec[PT_DEV_S_GT0]);
        }
    }
    return clk > 0 && gt > 0 ? gt / clk : 0;
}

/* The summary's words for nsm SM columns, zeroed, in f's memory (the
 * buffer's, kept from an earlier fold, grown where it is too small):
 * where the last fold in it had as many SM columns it left the
 * histograms zeroed (pt__fold_fig_free), so only what comes before them
 * is cleared. A replay's fold then allocates no summary (17 KB for three
 * phases on 132 SMs). NULL without memory. */
static pt__rword *summary(const pt_dev_records *b, pt__fold_fig *f, int nsm)
{
    size_t bytes = (size_t)PT__R_WORDS(b->nphases, nsm) * sizeof(pt__rword);
    pt__rword *r;

    if (!f->mem || f->mem->bytes < bytes) {
        pt__sum_mem *m = realloc(f->mem, sizeof *m + bytes);
        if (!m)
            return NULL; /* f->mem, if any, is given back as it was */
        m->bytes = bytes;
        m->nsm = -1;
        f->mem = m;
    }
    r = (pt__rword *)(void *)(f->mem + 1);
    memset(r, 0, f->mem->nsm == nsm ? (size_t)PT__R_HIST(b->nphases, nsm, 0) * sizeof *r
                                    : bytes);
    return r;
}

void pt__fold_figure(const pt__fold_src *j, pt__fold_fig *f)
{
    pt_dev_records *b = j->buf;
    const long long *d = j->data;
    long long sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap), lim = pt__count_limit(b->nslots);
    int nsm = 0;
    pt__rword *r;
    double *rates, tick;
    signed char *how = NULL;

    f->found = 1;
    f->err = 0;
    f->r = NULL;
    f->nsm = 0;
    f->twice = 0;
    f->heat = NULL;
    memset(&f->shape, 0, sizeof f->shape);
    stale_done(j, d);
    if (!f->cv.calibrated)
        f->cv.ns_per_cycle = pooled_rate(b, d);
    tick = f->cv.calibrated ? f->cv.tick_ns : INFINITY;
    /* Per slot, pt__slot_ok's answer (2 where it is 1 and the slot has
     * its own rate) and the rate (NaN for a slot the fold leaves out).
     * Without memory for them, the summary finds its own, and neither
     * picture is kept. With no tick known no block's span counts as long,
     * so every block takes the launch's pooled rate. */
    if ((rates = malloc((size_t)(b->nslots > 0 ? b->nslots : 1) * (sizeof *rates + 1))))
        how = (signed char *)(void *)(rates + (b->nslots > 0 ? b->nslots : 1));
    for (int s = 0; s < b->nslots; s++) {
        const long long *rec = d + PT_DEV_HDR + s * sw;
        long long smid = rec[PT_DEV_S_SMID];
        int ok = pt__slot_ok(rec, b->nphases, b->trace_cap, lim), own = 0;
        double rate = NAN;
        f->twice += rec[PT_DEV_S_DONE] > 1;
        if (ok > 0) {
            own = pt__slot_rate(rec, tick, f->cv.ns_per_cycle, &rate);
            if (pt__smid_ok(smid) && smid >= nsm) /* on its SM, as pt__slot_on_sm says */
                nsm = (int)smid + 1;
        }
        if (rates) {
            rates[s] = rate;
            how[s] = (signed char)(ok > 0 ? 1 + own : ok);
        }
    }
    if (!(r = summary(b, f, nsm))) {
        f->err = PT_ENOMEM;
        free(rates);
        return;
    }
    for (int k = 0; k < PT_DEV_HDR; k++)
        r[k].i = d[k];
    for (int s = 0; s < b->nslots; s++) {
        const long long *rec = d + PT_DEV_HDR + s * sw;
        if (rates)
            pt__red_slot_as(r, rec, how[s] > 1 ? 1 : how[s], how[s] == 2, rates[s], b->nphases,
                            nsm, f->cv.mark_cycles, b->trace_cap, lim);
        else
            pt__red_slot(r, rec, b->nphases, nsm, tick, f->cv.ns_per_cycle, f->cv.mark_cycles,
                         b->trace_cap, lim);
    }
    f->r = r;
    f->nsm = nsm;
    /* The heatmap and the shape are pictures the fold's figures do not
     * need: none without the rates. */
    if (!rates) {
        f->want_heat = 0;
        return;
    }
    if (f->want_heat)
        f->heat = pt__heat_figure(b, d, rates, f->cv.mark_cycles);
    pt__shape_figure(b, d, rates, f->cv.mark_cycles, &f->shape);
    free(rates);
}

/* The bins phase p's blocks fell in lie between those of its least and
 * its greatest time: the summary keeps both as the bits of the time,
 * which order the bins (pt_hist.h). So a fold reads (and clears) a few of
 * a phase's 576 bins, not all. */
void pt__fold_hist_range(const void *sum, int p, int *lo, int *hi)
{
    const pt__rword *r = sum;

    *lo = pt__hist_bin(pt__r_min(r[PT__R_MIN_INV(p)]));
    *hi = pt__hist_bin(pt__bitsd(r[PT__R_MAX(p)].u));
}

void pt__fold_fig_take(pt_dev_records *b, pt__fold_fig *f)
{
    if ((f->mem = b->sums) != NULL)
        b->sums = f->mem->next;
}

void pt__fold_fig_free(const pt__fold_src *j, pt__fold_fig *f)
{
    pt_dev_records *b = j->buf;
    pt__rword *r = f->r;

    if (r) {
        /* The histograms left zeroed for the next fold in this memory. */
        for (int p = 0, lo, hi; p < b->nphases; p++) {
            pt__fold_hist_range(r, p, &lo, &hi);
            if (hi >= lo)
                memset(&r[PT__R_HIST(b->nphases, f->nsm, p) + lo], 0,
                       (size_t)(hi - lo + 1) * sizeof *r);
        }
        f->mem->nsm = f->nsm;
    }
    if (f->mem) {
        f->mem->next = b->sums;
        b->sums = f->mem;
        f->mem = NULL;
    }
    f->r = NULL;
    free(f->heat);
    f->heat = NULL;
    pt__shape_fig_free(&f->shape);
    f->found = 0;
}
