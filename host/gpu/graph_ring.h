/* A CUDA graph's ring of record sets (graph_ring.c): each replay's kernels
 * write a set of their own, copied back a batch at a time, in place of a
 * copy node in every replay. Not installed. */
#ifndef PT_GPU_GRAPH_RING_H
#define PT_GPU_GRAPH_RING_H

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
    /* The kernel's node and its arguments, copied when it was captured
     * (graph_ring.c): each replay points the last of them, the records'
     * pt_dev_buf, at the replay's set of the graph's ring, and back after
     * the launch. node NULL where the runtime cannot (the kernel then
     * has its copy node). kp.args holds nargs pointers into argv, the
     * last one at `aimed`; `part` is where its records lie in a set. */
    void *node;
    pt__cu_kernel_node kp;
    unsigned char *argv;
    int nargs;
    pt_dev_buf aimed;
    size_t part;
} pt__captured;

typedef struct pt__ring pt__ring;

/* A replay batch when the graph's replays are timed by events, and the
 * most a ring's batch may be (pt_graph_time_by_kernels asks its own). */
#define PT__RING_BATCH 8
#define PT__RING_BATCH_MAX 64

/* For c, just captured as `node` with parameters kp (or added so), nargs
 * of them (0: not known): copies its arguments and keeps the node where
 * the runtime can give an instantiated graph's node other arguments, kp's
 * last argument is the pt_dev_buf of c's records, and each of its
 * arguments' size is known. Returns 1 then, else 0 (c->node NULL: the
 * kernel gets a copy node). */
PT__HIDDEN int pt__ring_note(pt__captured *c, const pt__cuda_api *cu, void *node,
                             const pt__cu_kernel_node *kp, int nargs);

/* Before a replay of exec on stream s: makes *r for the n kernels of v
 * (sets for two batches of `batch` replays) if there is none, then points
 * each noted kernel's node at the replay's set and hands its host copy
 * in c->stage (busy, to be filled). A kernel the ring cannot serve keeps
 * c->stage NULL. */
PT__HIDDEN void pt__ring_aim(pt_timing *t, pt__ring **r, pt__captured *v, size_t n, void *exec,
                             pt_stream s, int batch);
/* After the launch: the nodes aim_ring pointed at a set, back at the
 * records (so a replay launched behind ptkit's back writes no set). */
PT__HIDDEN void pt__ring_unaim(pt_timing *t, pt__ring *r, pt__captured *v, size_t n, void *exec,
                               const char *title);
/* After the launch (launched: it ran): the sets written since the last
 * copy back are copied now, in one transfer, when a batch of them is
 * written or `now`, behind event `after` where it was just recorded on
 * the replays' stream (else behind a mark of the ring's own). `end`: an
 * event recorded after this replay alone, whose pair its folds wait on
 * (NULL: none), for a drain's copy of its set on its own. */
PT__HIDDEN void pt__ring_after(pt__ring *r, int launched, int now, pt__cuevent after,
                               pt__cuevent end);
/* Waits for the folds that read r's sets, frees r. */
PT__HIDDEN void pt__ring_free(pt__ring *r, pt__captured *v, size_t n);

#endif
