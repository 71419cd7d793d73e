/* CUDA graphs (graph.c): the kernels PT_LAUNCH captured into a graph, and
 * its replays timed and folded. pt_graph_* are declared in pt.h. Not
 * installed. */
#ifndef PT_GPU_GRAPH_H
#define PT_GPU_GRAPH_H

#include "gpu/records.h"

/* One kernel PT_LAUNCH captured: on which stream, its title, its records. */
typedef struct pt__captured {
    pt_stream stream;
    char *title;
    pt_dev_records *recs;
} pt__captured;

/* Notes a kernel captured on stream s (launch.c); 0 or PT_ENOMEM (counted). */
PT__HIDDEN int pt__graph_capture_add(pt_timing *t, pt_stream s, const char *title,
                                     pt_dev_records *b);


#endif
