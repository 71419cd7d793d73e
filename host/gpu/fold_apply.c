/* A fold applied: a launch's block records become children of its
 * section.
 *
 * With L the launch's time, every finished slot's cycles become
 * nanoseconds at its own or the calibrated rate (device/pt_fold_math.h,
 * the arithmetic device/reduce.cu runs too when the grid is summarized on
 * the device) and then:
 *
 *   W    = latest END - earliest BEGIN over the slots (globaltimer); when
 *          that is under 100 ticks, the longest block span
 *   c    = (sum of block spans) / W, at least 1: how many blocks ran at
 *          once on average (blocks that ran one after another, with gaps
 *          between them, do not make a phase longer than their sum)
 *   P_p  = (sum over blocks of phase p's time) / c: phase p's share of W
 *
 * with each block's phase time net of its marks' measured cost (hits x the
 * cycles a mark costs on that device, pt_fold_math.h), and if the P_p add
 * up to more than L (clock noise), they are scaled down to add up to L.
 * The cost taken out stays in the launch: in "(unattributed)", and said
 * per phase (its overhead). Each phase becomes a child section of kind PT__K_PHASE
 * recording P_p, with its per-block figures (blocks, hits, sum, min, max,
 * per-SM sums); the child "(unattributed)" records L - sum P_p. So the
 * children add up to the launch, and repeated launches fold into the same
 * children, which keep first-vs-rest statistics like any section. The
 * launch also keeps each block's phase times from its last fold (at most
 * PT__HEAT_MAX_ROWS blocks, evenly sampled) for the HTML report's heatmap,
 * and how its blocks filled the device (gpu/shape.c: waves, tail, idle
 * SMs, the slowest block, stragglers). */
#include "gpu/fold_apply.h"

#include "core/errors.h"
#include "core/shape.h"
#include "core/trace.h"
#include "core/tree.h"
#include "gpu/calibrate.h"
#include "gpu/gpu.h"
#include "gpu/heat.h"
#include "gpu/overlap.h"
#include "gpu/shape.h"
#include "gpu/spans.h"

#include "pt_fold_math.h"

#include <pt/pt_dev.h> /* PT_DEV_MAX_PHASES, as the kernels see it unless they define it */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const unattributed = "(unattributed)";

/* The device's name, copied a fold: a copy of its fixed size (snprintf's
 * formatting cost as much as a tenth of a fold of 132 blocks). */
static void name_copy(char *dst, const char *src, size_t n)
{
    memcpy(dst, src, n);
    dst[n - 1] = '\0';
}

/* The header the host wrote at creation must still be there: a kernel
 * that overran another buffer, or a buffer of another shape passed in its
 * place, would otherwise fold garbage. */
static int header_ok(pt_timing *t, const pt_dev_records *b, const long long *h, const char *title)
{
    if (h[PT_DEV_H_MAGIC] == PT_DEV_MAGIC && h[PT_DEV_H_LAYOUT] == PT_DEV_LAYOUT &&
        h[PT_DEV_H_NSLOTS] == b->nslots && h[PT_DEV_H_NPHASES] == b->nphases &&
        h[PT_DEV_H_TRACE_CAP] == b->trace_cap && h[PT_DEV_H_MODE] == b->mode)
        return 0;
    return pt__fail(t, PT_EINVAL,
                    "pt_dev_fold(\"%s\"): the buffer header does not match the buffer (magic %#llx, "
                    "layout %lld, %lld slots, %lld phases, trace %lld, mode %lld; expected layout %d, "
                    "%d slots, %d phases, trace %d, mode %d); nothing folded",
                    title, (unsigned long long)h[PT_DEV_H_MAGIC], h[PT_DEV_H_LAYOUT],
                    h[PT_DEV_H_NSLOTS], h[PT_DEV_H_NPHASES], h[PT_DEV_H_TRACE_CAP],
                    h[PT_DEV_H_MODE], PT_DEV_LAYOUT, b->nslots, b->nphases, b->trace_cap, b->mode);
}

void pt__fold_conv_get(pt_timing *t, const pt__fold_src *j, pt__fold_conv *cv)
{
    const pt_dev_records *b = j->buf;
    pt__calib cal;

    pt__calib_get(b->cu, b->device, &cal);
    memset(cv, 0, sizeof *cv);
    cv->device = b->host ? -1 : b->device;
    _Static_assert(sizeof cv->name == sizeof cal.name, "a device's name, as calibrate.h keeps it");
    if (b->host)
        snprintf(cv->name, sizeof cv->name, "host");
    else
        name_copy(cv->name, cal.name, sizeof cv->name);
    if (cal.ok && cal.cycles_per_ns > 0) {
        cv->calibrated = 1;
        cv->tick_ns = cal.tick_ns;
        cv->ns_per_cycle = 1.0 / cal.cycles_per_ns;
        cv->mark_cycles = cal.mark_cycles;
        return;
    }
    /* The figures pool the launch's own rate (fold_figure.c). */
    if (pt__gpu_once(t, PT__ONCE_UNCALIBRATED))
        pt__fail(t, PT_ECUDA, "pt_dev_fold(\"%s\"): the device clock is not calibrated (%s); "
                              "blocks are converted at their launch's average rate",
                 j->node->name, cal.why[0] ? cal.why : "unknown reason");
}

/* ---- the arithmetic after the summary ---------------------------- */

static int grow_sm(pt__phase_ext *x, int nsm)
{
    double *v;
    if (nsm <= x->nsm)
        return 0;
    v = realloc(x->sm_ns, (size_t)nsm * sizeof *v);
    if (!v)
        return PT_ENOMEM;
    memset(v + x->nsm, 0, (size_t)(nsm - x->nsm) * sizeof *v);
    x->sm_ns = v;
    x->nsm = nsm;
    return 0;
}

/* The out-of-range phases the marks named, as " (phase 7, 9 ...)" in
 * out: trace events keep the index a mark was given; aggregate records
 * only count such marks, and out says how to see them. At most 4 named,
 * one pass over the events. */
static void bad_phases_seen(const pt__fold_src *j, char *out, size_t n)
{
    const pt_dev_records *b = j->buf;
    long long sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap), seen[4];
    int k = 0, more = 0;
    size_t at;

    if (j->reduced || b->mode != PT_DEV_MODE_TRACE) {
        snprintf(out, n, " (trace records, PT_DEV_TRACE, name them)");
        return;
    }
    for (int s = 0; s < b->nslots; s++) {
        const long long *rec = j->data + PT_DEV_HDR + s * sw, *ev;
        long long m = rec[PT_DEV_S_NEVENTS];
        if (rec[PT_DEV_S_DONE] == 0 || m <= 0 || m > b->trace_cap)
            continue;
        ev = rec + PT_DEV_SLOT_HDR + 2LL * b->nphases;
        for (long long e = 0; e < m; e++) {
            long long p = ev[2 * e];
            int dup = 0;
            if (p >= PT_DEV_EV_SPAN || (p >= 0 && p < b->nphases))
                continue;
            for (int i = 0; i < k; i++)
                dup |= seen[i] == p;
            if (!dup && k < 4)
                seen[k++] = p;
            else if (!dup)
                more = 1;
        }
    }
    if (k == 0) {
        out[0] = '\0';
        return;
    }
    at = (size_t)snprintf(out, n, " (phase%s", k > 1 ? "s" : "");
    for (int i = 0; i < k && at < n; i++)
        at += (size_t)snprintf(out + at, n - at, "%s %lld", i ? "," : "", seen[i]);
    if (at < n)
        snprintf(out + at, n - at, "%s)", more ? " ..." : "");
}

/* Turns the summary r of one launch (L ns) into the launch's children. */
static int finish(pt_timing *t, const pt__fold_src *j, const pt__rword *r, int nsm, double L,
                  const pt__fold_conv *cv, long long twice)
{
    pt_dev_records *b = j->buf;
    pt_section *node = j->node, *un, **kids;
    const char *title = node->name;
    int np = b->nphases, rc = 0, sm_top = 0;
    long long done = r[PT__R_DONE].i, bad_phase = r[PT__R_BAD_PHASE].i;
    long long bad_slot = r[PT_DEV_H_BAD_SLOT].i, dropped = r[PT__R_DROPPED].i;
    double conc = 1, sum = 0, scale = 1, rest, wall = 0;
    pt_dev_clock *dc = &t->dev_clock;

    /* A mark records a phase below both the buffer's count and the
     * kernel's own, which the host cannot see (PT_DEV_PHASES where the
     * mark stands: a ptgen list's count, else PT_DEV_MAX_PHASES, 16
     * unless defined): the message names both limits. */
    if (bad_phase > 0) {
        char seen[96];
        bad_phases_seen(j, seen, sizeof seen);
        rc = pt__fail(t, PT_ERANGE,
                      "pt_dev_fold(\"%s\"): %lld mark%s with a phase index out of range%s: only "
                      "a phase below the buffer's %d and below the kernel's PT_DEV_PHASES (its "
                      "ptgen list's count, else %d) is recorded; their time is unattributed",
                      title, bad_phase, bad_phase == 1 ? "" : "s", seen, np, PT_DEV_MAX_PHASES);
    }
    if (bad_slot > 0) {
        /* The device keeps the largest bad index as unsigned: a negative
         * one where there is one, else the largest. */
        long long at = r[PT_DEV_H_BAD_SLOT_AT].i;
        rc = pt__fail(t, PT_ERANGE,
                      "pt_dev_fold(\"%s\"): %lld block%s began at a slot out of range [0, %d) "
                      "(PT_DEV_BEGIN_AT's slot): %sslot %lld%s; nothing of %s was recorded",
                      title, bad_slot, bad_slot == 1 ? "" : "s", b->nslots,
                      bad_slot > 1 && at >= 0 ? "the largest " : "", at,
                      bad_slot > 1 && at < 0 ? " among them" : "", bad_slot == 1 ? "it" : "them");
    }
    /* Slots that several blocks wrote (known where the records are read
     * here, not after the device reduction, which counts them below); in
     * a graph's replay, or by replays ptkit did not launch. */
    if (twice > 0)
        rc = pt__fail(t, PT_ESTATE,
                      "pt_dev_fold(\"%s\"): %lld slot%s written by more than one block, whose "
                      "figures are mixed: left out. %s", title, twice, twice == 1 ? " was" : "s were",
                      j->delta ? "Since the previous replay's fold: was the graph launched "
                      "without pt_graph_launch, or do blocks share a slot?"
                      : "Every block began at the same slot: in a host-mode body (or another "
                      "function called per block) use PT_DEV_BEGIN_AT(buf, block), not "
                      "PT_DEV_BEGIN, which is slot 0 on the CPU; on the GPU give "
                      "PT_DEV_BEGIN_AT a slot of each block's own");
    if (r[PT__R_IMPLAUSIBLE].i > twice)
        rc = pt__fail(t, PT_ERANGE,
                      "pt_dev_fold(\"%s\"): %lld block records hold what no kernel writes (a "
                      "clock going back, a negative or overflowing count, more events than the "
                      "trace holds, phases longer than their block, or a slot written by more "
                      "than one block): left out, and their time unattributed", title,
                      r[PT__R_IMPLAUSIBLE].i - twice);
    if (b->mode == PT_DEV_MODE_TRACE && r[PT__R_UNTRACED].i > 0) {
        /* The kernel stored no events at all: built without trace stores. */
        long long untraced = r[PT__R_UNTRACED].i;
        t->dev_clock.untraced = pt__count_add(t->dev_clock.untraced, untraced);
        rc = pt__fail(t, PT_EFULL,
                      "pt_dev_fold(\"%s\"): %lld trace events dropped: a trace buffer, but the "
                      "kernel was built without trace stores (define PT_DEV_TRACING before "
                      "including pt_dev.h)",
                      title, untraced);
    }
    if (dropped > 0) {
        t->dropped = t->dropped > UINT64_MAX - (uint64_t)dropped ? UINT64_MAX
                                                                  : t->dropped + (uint64_t)dropped;
        rc = pt__fail(t, PT_EFULL,
                      "pt_dev_fold(\"%s\"): %lld trace events dropped; the buffer holds %d per slot",
                      title, dropped, b->trace_cap);
    }

    /* Every child first, so a fold is recorded whole or not at all. */
    kids = malloc((size_t)np * sizeof *kids);
    if (!kids)
        return pt__fail(t, PT_ENOMEM, "pt_dev_fold(\"%s\"): out of memory", title);
    for (int p = 0; p < np; p++) {
        kids[p] = pt__child(t, node, b->names[p]);
        if (kids[p] && !kids[p]->phase)
            kids[p]->phase = calloc(1, sizeof *kids[p]->phase);
        if (!kids[p] || !kids[p]->phase) {
            free(kids);
            return pt__fail(t, PT_ENOMEM, "pt_dev_fold(\"%s\"): out of memory", title);
        }
    }
    un = pt__child(t, node, unattributed);
    if (!un) {
        free(kids);
        return pt__fail(t, PT_ENOMEM, "pt_dev_fold(\"%s\"): out of memory", title);
    }

    if (done > 0) {
        double span_sum = r[PT__R_SPAN_SUM].d, W = 0;
        long long gt1 = r[PT__R_GT1_MAX].i;
        if (r[PT__R_GT0_INV].u) {
            long long gt0 = (long long)~r[PT__R_GT0_INV].u;
            W = gt1 > gt0 ? (double)(gt1 - gt0) : 0;
        }
        /* A wall shorter than 100 ticks says little; the longest block
         * (converted at its rate) is then the better measure of it. */
        if (W <= 0 || (cv->calibrated && W < PT__OWN_RATE_TICKS * cv->tick_ns))
            W = pt__bitsd(r[PT__R_SPAN_MAX].u);
        if (W > 0 && span_sum > W)
            conc = span_sum / W;
        wall = W;
    }
    /* A kernel of a graph replay has no events of its own: it lasted from
     * its first block's BEGIN to its last block's END. */
    if (j->devtime) {
        L = wall;
        pt__record(node, L);
    }
    for (int p = 0; p < np; p++)
        sum += r[PT__R_SUM(p)].d / conc;
    if (sum > L)
        scale = L > 0 ? L / sum : 0;

    for (int s = nsm; s-- > 0 && !sm_top;)
        for (int p = 0; p < np; p++)
            if (r[PT__R_SM(np, s, p)].d != 0) {
                sm_top = s + 1;
                break;
            }

    rest = L;
    for (int p = 0; p < np; p++) {
        pt_section *c = kids[p];
        pt__phase_ext *x = c->phase;
        double share = r[PT__R_SUM(p)].d / conc * scale;
        c->kind = PT__K_PHASE;
        pt__record(c, share);
        c->ovh_ns += r[PT__R_OVH(p)].d / conc * scale;
        rest -= share;
        x->hits += (double)r[PT__R_HITS(p)].i;
        x->on_host |= cv->device < 0;
        if (done > 0) {
            double mn = pt__r_min(r[PT__R_MIN_INV(p)]), mx = pt__bitsd(r[PT__R_MAX(p)].u);
            if (x->blocks == 0 || mn < x->block_min_ns)
                x->block_min_ns = mn;
            if (x->blocks == 0 || mx > x->block_max_ns)
                x->block_max_ns = mx;
            x->blocks += (uint64_t)done;
            x->block_sum_ns += r[PT__R_SUM(p)].d;
            int lo, hi;
            pt__fold_hist_range(r, p, &lo, &hi);
            if (x->hist || (x->hist = calloc(PT__HIST_BINS, sizeof *x->hist)) != NULL)
                for (int k = lo; k <= hi; k++)
                    x->hist[k] += r[PT__R_HIST(np, nsm, p) + k].u;
        }
        if (sm_top && grow_sm(x, sm_top) == 0)
            for (int s = 0; s < sm_top; s++)
                x->sm_ns[s] += r[PT__R_SM(np, s, p)].d;
    }
    un->kind = PT__K_UNATTR;
    pt__record(un, rest > 0 ? rest : 0);
    free(kids);

    /* Host-mode records run on the CPU inside the launch's own interval:
     * its CPU-clock time is then the work's, and its rates hold. */
    if (b->host && done > 0)
        node->ran_here = 1;
    dc->calibrated = cv->calibrated;
    dc->cycles_per_ns = cv->ns_per_cycle > 0 ? 1.0 / cv->ns_per_cycle : 0;
    dc->tick_ns = cv->tick_ns;
    dc->mark_cycles = cv->mark_cycles;
    dc->blocks_own = pt__count_add(dc->blocks_own, r[PT__R_OWN].i);
    dc->blocks_cal = pt__count_add(dc->blocks_cal, r[PT__R_CAL].i);
    dc->device = cv->device;
    _Static_assert(sizeof dc->device_name == sizeof cv->name, "a device's name, as pt.h keeps it");
    name_copy(dc->device_name, cv->name, sizeof dc->device_name);
    dc->folds++;
    dc->slots_skipped = pt__count_add(dc->slots_skipped, r[PT__R_UNDONE].i);
    /* The records hold exactly the launch's blocks (PT_LAUNCH sized them):
     * a slot without a record is a block that returned before BEGIN, or,
     * built as C (no scope guard), before END. */
    if (j->every_slot && r[PT__R_UNDONE].i > 0 && done > 0) {
        long long u = r[PT__R_UNDONE].i;
        dc->slots_unfinished = pt__count_add(dc->slots_unfinished, u);
        rc = pt__fail(t, PT_ESTATE,
                      "pt_dev_fold(\"%s\"): %lld of the launch's %d %s wrote no record: %s "
                      "before PT_DEV_BEGIN (put it first in the kernel, before any return), or, "
                      "in C, before PT_DEV_END (in C++ BEGIN's guard writes END on every return "
                      "after it); %s time is in (unattributed)",
                      title, u, b->nslots, b->flags & PT_DEV_WARP_SLOTS ? "warps" : "blocks",
                      u == 1 ? "it returned" : "they returned", u == 1 ? "its" : "their");
    }

    /* Without a device no kernel wrote these records: that is the reason,
     * said once per timing (every later such fold returns PT_ENODEV). */
    if (done == 0 && b->fallback && r[PT__R_IMPLAUSIBLE].i == 0)
        rc = pt__gpu_once(t, PT__ONCE_NO_KERNEL)
             ? pt__fail(t, PT_ENODEV, "pt_dev_fold(\"%s\"): no kernel ran (%s), so no record was "
                        "written; the launch is unattributed", title, pt__gpu_why(t))
             : PT_ENODEV;
    else if (done == 0 && twice == 0)
        rc = pt__fail(t, PT_ESTATE,
                      "pt_dev_fold(\"%s\"): none of the %d slots has a record: was the buffer "
                      "passed to the kernel (pt_dev_arg), reset before it (pt_dev_reset), and "
                      "does every block reach PT_DEV_END (in C; in C++ BEGIN's guard writes it "
                      "on any return)? The launch is unattributed", title, b->nslots);
    return rc;
}

/* Puts f's figures of the records in d (found, fold_figure.c) in the
 * tree: the launch's children, its heatmap and shape, its spans. */
static int fold_records(pt_timing *t, const pt__fold_src *j, pt__fold_fig *f, double L)
{
    pt_dev_records *b = j->buf;
    const char *title = j->node->name;
    const long long *d = j->data;
    double tick = f->cv.calibrated ? f->cv.tick_ns : INFINITY;
    pt__span_evs left = { 0 };
    pt__ivs flight = { 0 };
    pt_section *launch;
    int rc, wanted;

    if (f->err)
        return pt__fail(t, f->err, "pt_dev_fold(\"%s\"): out of memory", title);
    rc = finish(t, j, f->r, f->nsm, L, &f->cv, f->twice);
    /* The heatmap is the latest fold's, so one of a fold queued before
     * another of the same records into the same section was not drawn
     * (fold.c): the one before stays until that one replaces it. */
    if (f->want_heat) {
        pt__heat_install(j->node, b, f->heat);
        f->heat = NULL;
    }
    pt__shape_add(j->node, b, &f->shape);
    /* A graph's kernel is a launch of its own, whose roles none are. The
     * spans' leftovers and intervals only where the overlap reads them. */
    launch = j->devtime ? j->node : j->launch;
    wanted = pt__overlap_wanted(launch, j->node, b);
    if (pt__spans_fold(j->node, b, d, tick, f->cv.ns_per_cycle,
                       wanted ? &left : NULL, wanted ? &flight : NULL) < 0 &&
        !rc)
        rc = pt__fail(t, PT_ENOMEM, "pt_dev_fold(\"%s\"): out of memory pairing the spans; "
                      "some are left out", title);
    if (wanted &&
        pt__overlap_fold(launch, j->node, b, d, tick,
                         f->cv.ns_per_cycle, &left, &flight) < 0 &&
        !rc)
        rc = pt__fail(t, PT_ENOMEM, "pt_dev_fold(\"%s\"): out of memory figuring the overlap; "
                      "it is left out", title);
    if (t->trace) {
        pt__fold_shape shape = { b->nslots, b->nphases, b->trace_cap, b->names, b->host,
                                 b->span_names, b->nspan_names, b->wait, wanted };
        pt__trace_fold(t, &shape, j->node, j->launch, d, tick,
                       f->cv.ns_per_cycle);
    }
    return rc;
}

/* A sampled kernel's launch says so in every report (core/shape.c). */
static int note_sample(pt_timing *t, const pt__fold_src *j)
{
    const pt_dev_records *b = j->buf;
    pt__shape *sh;

    if (b->sample < 2)
        return 0;
    if (!(sh = pt__shape_of(j->node)))
        return pt__fail(t, PT_ENOMEM, "pt_dev_fold(\"%s\"): out of memory", j->node->name);
    if ((uint64_t)b->sample >= sh->sample_every) {
        sh->sample_every = (uint64_t)b->sample;
        sh->sample_slots = b->grid_slots > 0 ? (uint64_t)b->grid_slots : 0;
    }
    return 0;
}

int pt__fold_apply(pt_timing *t, const pt__fold_src *j, pt__fold_fig *f, double launch_ns)
{
    const char *title = j->node->name;
    pt__calib cal;
    pt__fold_conv cv;
    int rc;

    /* Records that do not match the buffer fold nothing, and the launch
     * may still be folded from good ones. */
    if ((rc = header_ok(t, j->buf, j->data, title)) != 0) {
        j->node->folded = 0;
        /* Nothing was taken from these records: folding them again (once
         * the kernel has written them) is no refold. */
        if (j->buf->fold_gen == j->gen)
            j->buf->fold_gen = -1;
        return rc;
    }
    /* The launch's occurrence is recorded (the queue records it before
     * its waiters run): it is folded now, and only now. A role lasts the
     * launch, as the roles ran at once. */
    j->node->folded = j->launch->count;
    if (j->node != j->launch && !j->devtime)
        pt__record(j->node, launch_ns);
    if ((rc = note_sample(t, j)) != 0)
        return rc;
    if (!j->reduced) {
        if (!f->found)
            pt__fold_figure(j, f);
        return fold_records(t, j, f, launch_ns);
    }
    memset(&cv, 0, sizeof cv);
    cv.calibrated = j->calibrated;
    cv.tick_ns = j->tick_ns;
    cv.ns_per_cycle = j->ns_per_cycle;
    cv.mark_cycles = j->mark_cycles;
    cv.device = j->buf->device;
    pt__calib_get(j->buf->cu, j->buf->device, &cal);
    name_copy(cv.name, cal.name, sizeof cv.name);
    rc = finish(t, j, (const pt__rword *)(const void *)j->data, j->nsm, launch_ns, &cv, 0);
    /* Only the summary came back: no per-block picture of this fold. */
    free(j->node->heat);
    j->node->heat = NULL;
    return rc;
}
