/* Hooks: what a start or stop does beyond timing, for the features that
 * ask (each sets its bit in t->hooks, so without any the hot path pays
 * one branch): PT_TRACE's log, PT_NVTX's ranges, and the boundary of each
 * layer attached to the timing (memory tracking raises the open sections'
 * high-water marks and samples the device there).
 *
 * The trace log is the thread's own (trace.h), so it takes no lock; the
 * other hooks' state is shared by the threads that time into t, so they
 * run under t's lock. */
#include "core/hooks.h"

#include "core/nvtx.h"
#include "core/trace.h"

static void boundaries(pt_timing *t, pt_section *node, int stop)
{
    for (int i = 0; i < PT__EXT_N; i++)
        if (t->ext[i].ops && t->ext[i].ops->boundary)
            t->ext[i].ops->boundary(t, node, stop);
}

void pt__hooks_start(pt_timing *t, pt_section *node)
{
    if (!(t->hooks & PT__HOOKS_LOCKED))
        return;
    pthread_mutex_lock(&t->lock);
    if (t->hooks & PT__HOOK_NVTX)
        pt__nvtx_push(t, node);
    if (t->hooks & PT__HOOK_EXT)
        boundaries(t, node, 0);
    pthread_mutex_unlock(&t->lock);
}

void pt__hooks_stop(pt_timing *t, pt__thr *r, pt_section *node, int64_t t0, int64_t t1, int gpu)
{
    if (t->hooks & PT__HOOK_TRACE) {
        if (gpu)
            pt__trace_host(t, node, t0, t1, 1);
        else
            pt__tlog_add(t, r, node, t0, t1);
    }
    if (!(t->hooks & PT__HOOKS_LOCKED))
        return;
    pthread_mutex_lock(&t->lock);
    if (t->hooks & PT__HOOK_NVTX)
        pt__nvtx_pop(t);
    if (t->hooks & PT__HOOK_EXT)
        boundaries(t, node, 1);
    pthread_mutex_unlock(&t->lock);
}
