/* A role's timeline from one fold's trace records, for the overlap of a
 * launch's roles (core/overlap.c figures it).
 *
 * Each finished slot ran from its BEGIN clock to its END clock on its SM;
 * in trace mode each mark's event (phase, clock64) closes that phase's
 * interval since the previous mark (span events leave the phases' clock
 * alone), and the time after the last mark up to END is the slot's too
 * (unattributed: work, as no wait was named there). A phase named by
 * pt_dev_records_waits() is a wait, every other one work. A slot whose
 * events outran the trace is known up to its last stored event only:
 * its run ends there (core/overlap.c's pt__ovl_slot reads a slot, for
 * the trace's bubbles too). O(n log n) in the events. */
#include "gpu/overlap.h"

#include "core/overlap.h"
#include "core/strv.h"

#include "pt_fold_math.h"

#include <stdlib.h>
#include <string.h>

int pt__overlap_wanted(const pt_section *launch, const pt_section *node, const pt_dev_records *b)
{
    return b->mode == PT_DEV_MODE_TRACE && b->trace_cap > 0 && (node != launch || b->wait);
}

int pt__overlap_fold(pt_section *launch, pt_section *node, const pt_dev_records *b,
                     const long long *d, double tick_ns, double ns_per_cycle, pt__span_evs *left,
                     pt__ivs *flight)
{
    double cyc = 0, ns = 0, rate;
    long long sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap), lim = pt__count_limit(b->nslots);
    pt__ovl_role r = { node, { 0 }, { 0 }, *flight, ns_per_cycle, *left, NULL, 0, { 0 } };
    int rc = 0;

    memset(left, 0, sizeof *left);
    memset(flight, 0, sizeof *flight);
    /* Only a role's events wait for the other roles. */
    if (node == launch)
        pt__span_evs_free(&r.left);
    if (!pt__overlap_wanted(launch, node, b) || !(ns_per_cycle > 0))
        rc = 1;
    else if (b->nspan_names > 0 &&
             !(r.names = pt__strv_dup((const char *const *)b->span_names, b->nspan_names)))
        rc = PT_ENOMEM;
    r.nnames = r.names ? b->nspan_names : 0;
    for (int s = 0; s < b->nslots && rc == 0; s++) {
        const long long *rec = d + PT_DEV_HDR + s * sw;
        if (!pt__slot_on_sm(rec, b->nphases, b->trace_cap, lim))
            continue;
        rc = pt__ovl_slot(b->nphases, b->wait, rec, &r.busy, &r.active);
        /* The slots' cycles at their own rates, as the phases take them. */
        pt__slot_rate(rec, tick_ns, ns_per_cycle, &rate);
        cyc += (double)(rec[PT_DEV_S_CLK1] - rec[PT_DEV_S_CLK0]);
        ns += (double)(rec[PT_DEV_S_CLK1] - rec[PT_DEV_S_CLK0]) * rate;
    }
    if (cyc > 0)
        r.ns_per_cycle = ns / cyc;
    if (rc == 0 && r.active.n == 0)
        rc = 1; /* no slot ran: nothing to figure */
    if (rc != 0) {
        pt__ivs_free(&r.busy);
        pt__ivs_free(&r.active);
        pt__ivs_free(&r.spans);
        pt__span_evs_free(&r.left);
        pt__strv_free(r.names, r.nnames);
        return rc < 0 ? rc : 0;
    }
    pt__ivs_norm(&r.busy);
    pt__ivs_norm(&r.active);
    pt__ivs_norm(&r.spans);
    return pt__ovl_add(launch, launch->count, &r);
}
