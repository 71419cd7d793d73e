/* GPU sections. Placeholder until the CUDA event pool lands: GPU sections
 * are timed by the CPU clock and the timing says so. */
#include "pt_internal.h"

int pt__stop_check(pt_timing *t, const char *title, const char *fn, pt__frame **out);

int pt__start_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m)
{
    (void)s;
    if (!t)
        return 0;
    t->gpu_fallback = 1;
    int rc = pt__start(t, title, m);
    if (t->depth && t->stack[t->depth - 1].node)
        t->stack[t->depth - 1].node->kind = PT__K_GPU;
    return rc;
}

int pt__stop_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m)
{
    (void)s;
    return pt__stop(t, title, m);
}

int pt_sync(pt_timing *t) { (void)t; return 0; }
int pt__gpu_resolve(pt_timing *t) { (void)t; return 0; }
void pt__gpu_free(pt_timing *t) { (void)t; }
void pt__gpu_reset(pt_timing *t) { (void)t; }
