/* The queue of pending GPU work (queue.c): occurrences of GPU sections
 * whose events have not been read yet, and the work waiting behind them
 * (folds). Not installed. */
#ifndef PT_GPU_QUEUE_H
#define PT_GPU_QUEUE_H

#include "gpu/state.h"

/* Queued pairs beyond which the oldest half is resolved. */
#define PT__PENDING_MAX 1024

/* Work that waits for a launch (a fold: gpu/fold.c), run when the
 * launch's time is known, in the order it was queued. The queue sees only
 * this; the owner embeds it first in its own job. */
typedef struct pt__waiter pt__waiter;
typedef struct pt__waiter_ops {
    /* 1 when it can run without waiting (its copy has landed). */
    int (*ready)(const pt__waiter *w);
    /* Runs with the launch's time and frees w; 0 or the error counted. */
    int (*run)(pt_timing *t, pt__waiter *w, double launch_ns);
    /* Frees w unrun (reset, destroy). */
    void (*drop)(pt__waiter *w);
    /* For a launch timed by its kernels: the first BEGIN and last END, on
     * %globaltimer, of the blocks that ended in it; 1, or 0 when it knows
     * none. Called once the launch completed, before run; may be NULL. */
    int (*span)(const pt__waiter *w, long long *gt0, long long *gt1);
    /* Starts what it can before its launch is resolved (a fold hands its
     * figures to the fold's thread once its copy has landed): 1, or 0
     * where it cannot yet, so nothing queued after it is started. May be
     * NULL. */
    int (*prepare)(pt_timing *t, pt__waiter *w);
    /* Waits for what prepare waits for (a fold's copy), before its launch
     * is resolved by a wait. May be NULL. */
    void (*land)(pt_timing *t, pt__waiter *w);
} pt__waiter_ops;
struct pt__waiter {
    pt__waiter *next;
    const pt__waiter_ops *ops;
};

/* One occurrence of a GPU section, from its start to its resolution; or,
 * with node == NULL, waiters whose launch time is already known. One
 * timed by its kernels (span: a graph's replay, pt__start_gpu_kernels)
 * has no e0; its time is its waiters' span, and its e1, when it has one,
 * only says when it completed: where it has none, a later event recorded
 * on its stream says so, or one is recorded when the queue must know. */
typedef struct pt__pair {
    pt__cuevent e0, e1;       /* NULL when the time is known without them */
    int span;                 /* timed by its waiters' spans, not by e0 and e1 */
    int filling;              /* a span pair whose waiters are still being attached */
    int64_t t0;               /* a span pair's start on the host clock (PT_TRACE places it) */
    pt_section *node;
    pt_stream stream;         /* of pt_stop_gpu() */
    double cpu_ns;            /* the CPU clock's view, if the events fail */
    double ns;                /* the occurrence's time once known */
    int known;                /* ns holds it */
    int ended;                /* a query saw e1 complete: no wait for it is needed */
    pt__waiter *waiters, *waiters_tail; /* in call order */
    int next_free;            /* free list link; -2 while in use */
} pt__pair;

/* A pair in use, zeroed; its index, or -1 without memory. */
PT__HIDDEN int pt__pair_new(pt__gpu *g);
/* Back to the free list, its events to the pool. */
PT__HIDDEN void pt__pair_free(pt__gpu *g, int i);
/* Queue pair i behind the others: 0, or PT_ENOMEM. */
PT__HIDDEN int pt__queue_push(pt__gpu *g, int i);

/* Resolve queued work from the oldest: all of it, the n oldest, what has
 * completed without waiting (harvest), or until *pending (a buffer's
 * folds in flight) is at most keep. Each returns the first error met, or 0;
 * all are safe on a timing without GPU state. */
PT__HIDDEN int pt__queue_resolve(pt_timing *t);
PT__HIDDEN int pt__queue_resolve_n(pt_timing *t, size_t n);
PT__HIDDEN int pt__queue_harvest(pt_timing *t);
PT__HIDDEN int pt__queue_resolve_until(pt_timing *t, const int *pending, int keep);

/* Attach w (NULL: only look) to the latest queued occurrence of node.
 * Returns 1 and that launch's stream, or 0 when node has nothing queued. */
PT__HIDDEN int pt__queue_attach(pt_timing *t, pt_section *node, pt__waiter *w, pt_stream *stream);
/* 1 when the latest queued occurrence of node has work waiting on it (a
 * fold), else 0. */
/* Occurrences of node still waiting in the queue (O(queue)). */
PT__HIDDEN uint64_t pt__queue_pending_of(pt_timing *t, const pt_section *node);
PT__HIDDEN int pt__queue_waited(pt_timing *t, const pt_section *node);
/* Queue w, whose launch time is known, behind the pending work (t has GPU
 * state). 0, or PT_ENOMEM with w dropped. */
PT__HIDDEN int pt__queue_enqueue(pt_timing *t, pt__waiter *w, double launch_ns);
/* An occurrence of node whose time is known: behind the pending ones, or
 * recorded at once when nothing is pending. */
PT__HIDDEN void pt__queue_record(pt_timing *t, pt_section *node, double ns);

/* The span pair last queued has all its waiters (its folds): from now
 * on it may resolve when it is ready (before, it never resolves unasked,
 * as it would without its span). */
PT__HIDDEN void pt__queue_filled(pt_timing *t);
/* Every pair in use dropped, queued or not, its waiters unrun. */
PT__HIDDEN void pt__queue_reset(pt__gpu *g);
/* Frees the queue's arrays (after pt__queue_reset). */
PT__HIDDEN void pt__queue_free(pt__gpu *g);
/* Tests: queued occurrences and waiters. */
PT__HIDDEN size_t pt__queue_pending(const pt_timing *t);

#endif
