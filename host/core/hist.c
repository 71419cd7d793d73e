/* Quantiles of device/pt_hist.h's histograms. */
#include "core/hist.h"

#include "pt_hist.h"

#include <math.h>

double pt__hist_quantile(const uint64_t *hist, double q, double min, double max)
{
    uint64_t n = 0, at, seen = 0;
    double lo, hi, v;

    if (!hist)
        return 0;
    for (int k = 0; k < PT__HIST_BINS; k++)
        n += hist[k];
    if (n == 0)
        return 0;
    at = (uint64_t)ceil(q * (double)n);
    if (at < 1)
        at = 1;
    for (int k = 0; k < PT__HIST_BINS; k++) {
        seen += hist[k];
        if (seen >= at) {
            pt__hist_edges(k, &lo, &hi);
            v = k == 0 ? min : sqrt(lo * hi);
            return v < min ? min : v > max ? max : v;
        }
    }
    return max;
}
