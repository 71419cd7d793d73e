/* Reports while other threads time (gate.c). Starts and stops take no
 * lock: a thread marks itself busy (one plain store) while it writes its
 * tree, and checks the timing's gate. A report closes the gate, makes
 * sure every thread has either seen it closed or is seen busy (Linux's
 * membarrier(2) makes the threads' plain stores visible, so they need no
 * fence of their own), and waits until none is busy; it then reads every
 * tree while the threads that come to write wait at the gate. So a report
 * may come at any moment, from any thread, and its counts are exact.
 * Not installed. */
#ifndef PT_CORE_GATE_H
#define PT_CORE_GATE_H

#include "core/model.h"

/* ThreadSanitizer knows neither fences nor membarrier(2): built for it,
 * the busy marks and the gate are sequentially consistent accesses
 * instead, which give the same order and which it follows. */
#if defined(__SANITIZE_THREAD__)
#  define PT__GATE_ORDER memory_order_seq_cst
#  define PT__GATE_LOAD memory_order_seq_cst
#  define PT__GATE_FENCE() ((void)0)
#else
#  define PT__GATE_ORDER memory_order_relaxed
#  define PT__GATE_LOAD memory_order_acquire
#  define PT__GATE_FENCE() atomic_thread_fence(memory_order_seq_cst)
#endif

/* 1 where membarrier(2) is not available: each entry then fences. */
PT__HIDDEN extern int pt__gate_fenced;
/* Once per process, before the first timing is made. */
PT__HIDDEN void pt__gate_init(void);
PT__HIDDEN void pt__enter_slow(pt_timing *t, pt__thr *r);

/* r's thread is about to write its tree (or the timing's, for the
 * creating thread): inline, since every start and stop does it. */
static inline void pt__enter(pt_timing *t, pt__thr *r)
{
    atomic_store_explicit(&r->busy, 1, PT__GATE_ORDER);
    if (pt__gate_fenced)
        PT__GATE_FENCE();
    else
        atomic_signal_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&t->gate, PT__GATE_LOAD))
        pt__enter_slow(t, r);
}

/* Done writing: what it wrote is visible to the next report. */
static inline void pt__leave(pt__thr *r)
{
    atomic_store_explicit(&r->busy, 0, memory_order_release);
}

/* A report (or anything that reads or changes every thread's tree) from
 * begin to end: the trees hold still. Nests on one thread. */
PT__HIDDEN void pt__read_begin(pt_timing *t);
PT__HIDDEN void pt__read_end(pt_timing *t);

#endif
