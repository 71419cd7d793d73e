/* A fold's per-block phase times for the heatmap (heat.h). O(slots x
 * phases). */
#include "gpu/heat.h"

#include "core/tree.h"

#include "pt_fold_math.h"

#include <math.h>
#include <stdlib.h>

pt__heat *pt__heat_figure(const pt_dev_records *b, const long long *d, const double *rate,
                          double mark_cycles)
{
    long long sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap);
    int nrows = b->nslots < PT__HEAT_MAX_ROWS ? b->nslots : PT__HEAT_MAX_ROWS, np = b->nphases;
    size_t cells = (size_t)nrows * (size_t)np;
    pt__heat *h;

    h = malloc(sizeof *h + 2 * cells * sizeof(double) + (size_t)np * sizeof *h->names +
               (cells + (size_t)nrows) * sizeof(int));
    if (!h)
        return NULL;
    h->nslots = b->nslots;
    h->nrows = nrows;
    h->nphases = np;
    h->mean = h->ns + cells;
    h->names = (const char **)(void *)(h->mean + cells);
    h->at = (int *)(void *)(h->names + np);
    h->missing = h->at + cells;
    for (int p = 0; p < np; p++)
        h->names[p] = NULL;
    for (int i = 0, hi = 0; i < nrows; i++) {
        /* A row a slot where there are no more slots than rows: no
         * division a row, as none a slot. */
        int lo = hi, done = 0;
        double *mx = h->ns + (size_t)i * np, *mean = h->mean + (size_t)i * np;
        int *at = h->at + (size_t)i * np;
        hi = nrows == b->nslots ? i + 1 : (int)((long long)(i + 1) * b->nslots / nrows);
        for (int p = 0; p < np; p++) {
            mx[p] = NAN;
            mean[p] = 0;
            at[p] = -1;
        }
        for (int s = lo; s < hi; s++) {
            const long long *rec = d + PT_DEV_HDR + s * sw;
            if (isnan(rate[s]))
                continue;
            done++;
            for (int p = 0; p < np; p++) {
                double ovh, v = pt__phase_ns(rec[PT_DEV_SLOT_HDR + 2 * p],
                                             rec[PT_DEV_SLOT_HDR + 2 * p + 1], mark_cycles,
                                             rate[s], &ovh);
                mean[p] += v;
                if (at[p] < 0 || v > mx[p]) {
                    mx[p] = v;
                    at[p] = s;
                }
            }
        }
        for (int p = 0; p < np && done > 0; p++)
            mean[p] /= done;
        h->missing[i] = hi - lo - done;
    }
    return h;
}

void pt__heat_install(pt_section *node, const pt_dev_records *b, pt__heat *h)
{
    free(node->heat);
    node->heat = h;
    /* The names the phases have as children of the launch, which live as
     * long as the launch does; the buffer's own copies may be freed first. */
    for (int p = 0; h && p < h->nphases; p++) {
        const pt_section *c = pt__child_find(node, b->names[p]);
        if (!c) {
            free(h);
            node->heat = NULL;
            return;
        }
        h->names[p] = c->name;
    }
}
