/* CUDA graphs (graph.c): the kernels PT_LAUNCH captured into a graph, and
 * its replays timed and folded. pt_graph_* are declared in pt.h. Not
 * installed. */
#ifndef PT_GPU_GRAPH_H
#define PT_GPU_GRAPH_H

#include "gpu/records.h"

/* One kernel PT_LAUNCH captured: on which stream, its title, its
 * records; whether the graph resets them (a reset node ahead of the
 * kernel) or not (bare: its replays are folded by differences), and for
 * bare ones the records' reset_gen after the last reset ptkit put ahead
 * of a replay (-1: none yet) and whether that replay is still to fold. */
typedef struct pt__captured {
    pt_stream stream;
    char *title;
    pt_dev_records *recs;
    int bare, fresh;
    long base;
    /* Bare records' copy node, after the kernel and before nothing: each
     * replay copies them back beside the kernels that follow, into the
     * host copy its fold reads (`stage`, the replay's); NULL where the
     * stream copies them after the replay instead. `data` and `bytes`:
     * what it copies (set once the node was tried, made or not: NULL
     * before). `solo`: 0 where another kernel of the graph writes
     * the same records (a copy node would read them mid-write), 1 not,
     * -1 not yet looked at. */
    void *copy;
    long long *data;
    size_t bytes;
    pt__stage *stage;
    int solo;
} pt__captured;

/* Whether a graph's kernel writes records b with no reset in the graph:
 * records in device memory that the fold copies back whole (below the
 * device reduction's size, which cannot take differences). Each replay's
 * fold takes each slot's DONE as the difference from the last replay's, so
 * a replay costs the kernel alone, not a memset node ahead of it too. */
PT__HIDDEN int pt__graph_bare(const pt_dev_records *b);

/* Notes a kernel captured on stream s (launch.c); 0 or PT_ENOMEM (counted). */
PT__HIDDEN int pt__graph_capture_add(pt_timing *t, pt_stream s, const char *title,
                                     pt_dev_records *b);
/* After the kernel pt__graph_capture_add() noted is captured on s: its
 * records' copy node, where the runtime can add one (else the replays
 * copy them on the stream). */
PT__HIDDEN void pt__graph_capture_copy(pt_timing *t, pt_stream s, pt_dev_records *b);

#endif
