/* Quantiles of the histograms of device/pt_hist.h (hist.c): a phase's
 * per-block times, a span kind's durations. Not installed. */
#ifndef PT_CORE_HIST_H
#define PT_CORE_HIST_H

#include "core/model.h"

/* The q-quantile of the times counted in hist (PT__HIST_BINS counts; ns):
 * the geometric middle of the bin holding the ceil(q * n)-th time (within
 * 3.2% of it), or min for bin 0 (below 1 ns), kept within [min, max], the
 * exact extremes. 0 for NULL or an empty one. O(bins). */
PT__HIDDEN double pt__hist_quantile(const uint64_t *hist, double q, double min, double max);

#endif
