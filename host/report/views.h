/* The text report's views, one file each (view_*.c); text.c chooses one
 * and writes the header and footer around it. Not installed. */
#ifndef PT_REPORT_VIEWS_H
#define PT_REPORT_VIEWS_H

#include "report/rows.h"

/* The indented tree with every figure (view_tree.c). */
PT__HIDDEN void pt__view_tree(pt__lines *k, pt__rows *r, const pt_log_opts *o);
/* Under the tree, each thread's part of the sections (view_threads.c). */
PT__HIDDEN int pt__view_threads(pt_timing *t, pt__lines *k, const pt__rows *r, int nthreads);
/* Flat: calls, total, first, mean, min, max per section (view_table.c);
 * with kernels, only GPU launches and their phases (PT_VIEW_KERNELS). */
PT__HIDDEN void pt__view_table(pt__lines *k, pt__rows *r, const pt_run_stats *rs, int kernels);
/* The sections with the most self time (view_bottlenecks.c). */
PT__HIDDEN int pt__view_bottlenecks(pt_timing *t, pt__lines *k, const pt_log_opts *o,
                                    const pt_run_stats *rs);
/* Tracked tensors, totals, device memory, high-water marks (view_memory.c). */
PT__HIDDEN void pt__view_memory(pt_timing *t, pt__lines *k, pt__rows *r);

#endif
