/* A timing's GPU state: what the GPU side attaches to a timing
 * (model.h's PT__EXT_GPU), shared by the files that each keep a part of
 * it: the runtime and the device (gpu.c), the event pool (event_pool.c),
 * the queue of pending work (queue.c), the trace's reference event
 * (events.c). Data only. Not installed. */
#ifndef PT_GPU_STATE_H
#define PT_GPU_STATE_H

#include "core/timing.h"
#include "gpu/cuda.h"

#include <stddef.h>

/* Something made on a timing's GPU side that outlives it, such as a
 * record buffer: told when the timing is destroyed (gpu.c). */
typedef struct pt__gpu_dep {
    struct pt__gpu_dep *next;
    void (*detach)(struct pt__gpu_dep *d, pt_timing *t);
} pt__gpu_dep;

struct pt__pair;

typedef struct pt__gpu {
    const pt__cuda_api *cu;
    int dev_state;            /* 0 not probed, 1 a device, -1 none */
    char dev_why[256];
    unsigned said;            /* PT__ONCE_* bits (gpu.h): faults described once */

    pt__cuevent *pool;        /* created events not in use */
    size_t npool, pool_cap;
    size_t alive;             /* events created and not destroyed */

    struct pt__pair *pairs;   /* frames and the queue refer to them by index */
    size_t npairs;
    int free_head;

    int *queue;               /* ring of pair indices, in order of stop */
    size_t qcap, qhead, qlen;

    pt__gpu_dep *deps;        /* made on this timing */

    /* PT_TRACE: the reference placing launches on the host timeline, an
     * event recorded and waited for once, at the first pt_start_gpu(),
     * and the host clock read right after the wait. */
    pt__cuevent ref;
    int64_t ref_tick;
    int ref_tried;

    /* Kernels PT_LAUNCH captured into CUDA graphs, not yet taken by
     * pt_graph_capture_end() (graph.c). */
    struct pt__captured *captured;
    size_t ncaptured, captured_cap;
    /* A stream a ptkit call has just asked and found not capturing: the
     * calls it makes next (pt_start_gpu's, pt_stop_gpu's) need not ask
     * again (pt__gpu_capturing). Set for the span of one ptkit call. */
    pt_stream uncaptured;
    int uncaptured_set;
    void (*captured_free)(struct pt__gpu *g); /* set by graph.c with the first */
    /* The end event the last pt_stop_gpu recorded (events.c): a pair's,
     * or the one a batch of replays timed by their kernels closed with;
     * for a wait on it made at once (graph_ring.c's copy back, which
     * then records no event of its own), or while its pair is queued.
     * NULL when taken. The pool may record it again later. */
    pt__cuevent closed;
    /* pt__queue_resolve under way: the queue is emptied before anything
     * more is launched, so no later replay hides a fold's wait for its
     * copy, and a ring's set is copied back on its own (graph_ring.c). */
    int draining;
    /* The fold's own thread (fold_worker.c), started with the first fold
     * that hands it work; worker_tried once asked for. */
    struct pt__worker *worker;
    int worker_tried;
    /* Whether folds go to that thread now (pt__fold_judge): how, as
     * PT_FOLD_THREAD says (fold_mode, read once; 0 before), the answer
     * (hand_over); the time this thread has waited for folds' copies
     * (waited, ns), and at the last judgement the time, that wait and
     * the fold thread's busy time. */
    int fold_mode, hand_over;
    long copies, judged;      /* copies back made (pt__stage's copy_no), the last judged */
    int64_t waited, judged_at, waited_at, busy_at;
} pt__gpu;

/* t's GPU state, or NULL before the first GPU call. */
static inline pt__gpu *pt__gpu_of(const pt_timing *t)
{
    return (pt__gpu *)pt__ext_state(t, PT__EXT_GPU);
}

#endif
