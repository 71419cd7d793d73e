/* CUDA graphs (graph.c): the kernels PT_LAUNCH captured into a graph, and
 * its replays timed and folded. pt_graph_* are declared in pt.h. Not
 * installed. */
#ifndef PT_GPU_GRAPH_H
#define PT_GPU_GRAPH_H

#include "gpu/graph_ring.h" /* pt__captured */

/* Whether a graph's kernel writes records b with no reset in the graph:
 * records in device memory that the fold copies back whole (below the
 * device reduction's size, which cannot take differences). Each replay's
 * fold takes each slot's DONE as the difference from the last replay's, so
 * a replay costs the kernel alone, not a memset node ahead of it too. */
PT__HIDDEN int pt__graph_bare(const pt_dev_records *b);

/* Notes a kernel captured on stream s (launch.c); 0 or PT_ENOMEM (counted). */
PT__HIDDEN int pt__graph_capture_add(pt_timing *t, pt_stream s, const char *title,
                                     pt_dev_records *b);
/* After the kernel pt__graph_capture_add() noted is captured on s, with
 * nargs arguments (0: not known), its records the last: its ring
 * (graph_ring.c) or its records' copy node, where the runtime can add one
 * (else the replays copy them on the stream). */
PT__HIDDEN void pt__graph_capture_copy(pt_timing *t, pt_stream s, pt_dev_records *b, int nargs);

#endif
