/* One launch in one call (PT_LAUNCH, PT_HOST_LAUNCH in pt.h): the
 * records follow the grid, are reset on the launch's stream, and the
 * launch is a section whose fold waits for its events like any other.
 * Records in device memory that the fold copies back whole (the rule of
 * a graph's kernels, pt__graph_bare()) are reset for the first launch
 * only, and again after any other reset or a new slot count: each later
 * fold takes the END counts' differences from the one before (fold.c),
 * as a graph's replays do, so a launch costs the GPU no memset ahead of
 * the kernel and the host no call for it.
 * The kernel is launched by the macro, in the program's own translation
 * unit, through the program's own CUDA runtime: the one that registered
 * the kernel, whichever ptkit times with. */
#include "gpu/records.h"

#include "gpu/fold.h"

#include "core/errors.h"
#include "gpu/gpu.h"
#include "gpu/graph.h"
#include "gpu/queue.h"

#include <limits.h>
#include <string.h>

/* The records hold `nslots` slots from now on: grown when they hold
 * fewer, else their header says the smaller count, so the fold reads the
 * launch's slots and no slot of an earlier, larger grid. */
static int fit(pt_timing *t, pt_dev_records *b, int nslots)
{
    long long n = nslots;
    pt__cuerr e;

    if (nslots == b->nslots)
        return 0;
    if (nslots > b->cap_slots)
        return pt__records_grow(t, b, nslots);
    /* Folds in flight read the records at their present shape. */
    if (b->pending && b->fold_t)
        pt__queue_resolve_until(b->fold_t, &b->pending, 0);
    b->nslots = nslots;
    b->words = PT_DEV_BUF_WORDS(nslots, b->nphases, b->trace_cap);
    if (b->host) {
        b->data[PT_DEV_H_NSLOTS] = n;
        return 0;
    }
    /* From pageable memory: returns once n is staged; the wait orders it
     * before the reset on the user's stream. */
    e = b->cu->MemcpyAsync(b->data + PT_DEV_H_NSLOTS, &n, sizeof n, PT__CU_MEMCPY_H2D, NULL);
    if (!e)
        e = b->cu->StreamSynchronize(NULL);
    return e ? pt__fail(t, PT_ECUDA, "PT_LAUNCH: the records' slot count: %s",
                        pt__cuda_errstr(b->cu, e))
             : 0;
}

/* A launch captured into a CUDA graph (pt_graph_capture_end() takes it):
 * the kernel alone, its replays folded by differences (graph.c), or for
 * records the device reduces the kernel after their reset, so every replay
 * resets them. The records cannot be resized during a capture (that
 * writes their header from the host and waits): they must hold the
 * grid's slots already. */
static int capture(pt_timing *t, const char *title, pt_dev_records *b, long long blocks,
                   long long threads, pt_stream stream)
{
    long long n = pt__launch_slots(b, blocks, threads);
    int rc;

    if (b->host)
        return pt__fail(t, PT_EINVAL, "PT_LAUNCH(\"%s\") under a stream capture: the records "
                        "are in host memory (PT_DEV_HOST)", title);
    if (n != b->nslots)
        return pt__fail(t, PT_ESTATE, "PT_LAUNCH(\"%s\") under a stream capture: the records "
                        "hold %d slots and the grid %lld; a capture cannot resize them: make "
                        "them with the grid's slots (or launch once) before capturing; the kernel "
                        "is captured unmeasured", title, b->nslots, n);
    if (!pt__graph_bare(b) && (rc = pt_dev_reset(b, stream)) != 0)
        return rc;
    return pt__graph_capture_add(t, stream, title, b);
}

/* The records ready for this launch's slots, or why not (counted). */
static int ready(pt_timing *t, const char *title, pt_dev_records *b, long long blocks,
                 long long threads, pt_stream stream, int where)
{
    const char *what = where == PT_LAUNCH_HOST ? "PT_HOST_LAUNCH" : "PT_LAUNCH";
    long long n;
    int slots = b->nslots, rc;
    pt__cuerr e;

    if (where == PT_LAUNCH_GPU && b->host && !b->fallback)
        return pt__fail(t, PT_EINVAL, "%s(\"%s\"): the records are in host memory (PT_DEV_HOST), "
                        "which a kernel does not write: run the body with PT_HOST_LAUNCH, or "
                        "make the records without PT_DEV_HOST", what, title);
    if (where == PT_LAUNCH_HOST && !b->host)
        return pt__fail(t, PT_EINVAL, "%s(\"%s\"): the records are in device memory, which the "
                        "CPU does not write: make them with PT_DEV_HOST", what, title);
    if ((n = pt__launch_slots(b, blocks, threads)) < 0)
        return pt__fail(t, PT_ERANGE, "%s(\"%s\"): %lld blocks of %lld threads: no slot count "
                        "from 1 to %d", what, title, blocks, threads, INT_MAX);
    if (fit(t, b, (int)n) != 0)
        return PT_ENOMEM; /* counted */
    b->launch_diff = 0;
    if (where == PT_LAUNCH_GPU && pt__graph_bare(b) && b->nslots == slots &&
        b->launch_base == b->reset_gen + 1) {
        /* Not reset: the launch's fold takes differences, and the
         * launch waits for a fold's read as a reset would have. */
        if ((e = pt__records_await_read(b, stream)) != 0)
            return pt__fail(t, PT_ECUDA, "%s(\"%s\"): waiting for a fold's read of the "
                            "records on another stream: %s", what, title,
                            pt__cuda_errstr(b->cu, e));
        b->stream = stream;
        b->launch_diff = PT__FOLD_DIFF;
        return 0;
    }
    if ((rc = pt_dev_reset(b, stream)) != 0)
        return rc;
    if (where == PT_LAUNCH_GPU && pt__graph_bare(b)) {
        b->launch_base = b->reset_gen + 1;
        b->launch_diff = PT__FOLD_DIFF0;
    }
    return 0;
}

/* The launch this thread's last pt_dev_launch_begin() began, for its
 * pt_dev_launch_end(), which follows it on the same thread with the same
 * timing and the title's pointer as given: whether the begin refused to
 * time it (a grid of no blocks: the end stops nothing), and whether it
 * found the stream being captured (`asked`), so that the end need not ask
 * the runtime again (a call that costs the host about as much as the
 * launch). The end of another launch, or a second end, finds none here
 * and asks. */
static _Thread_local struct {
    const void *t, *title;
    pt_stream stream;
    int refused, asked, captured;
} begun;

pt_dev_buf pt_dev_launch_begin(pt_timing *t, const char *title, const pt_metrics *m,
                               pt_dev_records *b, long long blocks, long long threads,
                               pt_stream stream, int where)
{
    pt_metrics none;
    pt_dev_buf arg = pt_dev_arg(NULL);

    begun.t = NULL;
    if (!t)
        return arg;
    begun.t = t;
    begun.title = title;
    begun.stream = stream;
    /* Nothing runs: CUDA refuses the launch (an invalid configuration),
     * host mode loops no block. No section. */
    begun.refused = blocks <= 0 || threads <= 0;
    begun.asked = where == PT_LAUNCH_GPU && t->enabled && !begun.refused;
    begun.captured = begun.asked && pt__gpu_capturing(t, stream);
    if (!title)
        title = "(null)";
    if (begun.refused) {
        pt__fail(t, PT_ERANGE, "%s(\"%s\"): a grid of %lld block%s of %lld thread%s: nothing "
                 "runs (%s), nothing is timed", where == PT_LAUNCH_HOST ? "PT_HOST_LAUNCH"
                 : "PT_LAUNCH", title, blocks, blocks == 1 ? "" : "s", threads,
                 threads == 1 ? "" : "s", where == PT_LAUNCH_HOST ? "no block to run"
                 : "CUDA refuses it: cudaErrorInvalidConfiguration");
        return arg;
    }
    if (begun.captured) {
        /* Captured: the reset and the kernel go into the graph, timed and
         * folded at each replay (pt_graph_launch()); no event, no fold now.
         * Records that cannot be captured leave the kernel unmeasured. */
        if (b && capture(t, title, b, blocks, threads, stream) == 0)
            arg = pt_dev_arg(b);
        return arg;
    }
    if (b && ready(t, title, b, blocks, threads, stream, where) == 0)
        arg = pt_dev_arg(b);
    memset(&none, 0, sizeof none);
    if (!m)
        m = &none;
    if (where == PT_LAUNCH_HOST) {
        pt__start(t, title, m);
    } else {
        /* Asked above (when enabled): pt_start_gpu need not ask again. */
        if (t->enabled)
            pt__gpu_uncaptured(t, stream);
        pt__start_gpu(t, title, stream, m);
        pt__gpu_uncaptured_end(t);
    }
    return arg;
}

int pt_dev_launch_end(pt_timing *t, const char *title, pt_dev_records *b, pt_stream stream,
                      int where)
{
    return pt__dev_launch_end_n(t, title, b, stream, where, 0);
}

int pt__dev_launch_end_n(pt_timing *t, const char *title, pt_dev_records *b, pt_stream stream,
                         int where, int nargs)
{
    pt_metrics none;
    int rc, mine, captured;

    if (!t)
        return 0;
    mine = begun.t == t && begun.title == (const void *)title;
    begun.t = NULL;
    if (mine && begun.refused)
        return PT_ERANGE; /* said at the begin */
    captured = where == PT_LAUNCH_GPU && t->enabled &&
               (mine && begun.asked && begun.stream == stream ? begun.captured
                                                              : pt__gpu_capturing(t, stream));
    if (captured) {
        /* Captured: timed and folded at each replay (graph.c), the
         * records copied back by a node after the kernel. */
        if (b)
            pt__graph_capture_copy(t, stream, b, nargs);
        return 0;
    }
    memset(&none, 0, sizeof none);
    if (where == PT_LAUNCH_GPU && t->enabled)
        pt__gpu_uncaptured(t, stream); /* asked just above */
    rc = where == PT_LAUNCH_HOST ? pt__stop(t, title, &none)
                                 : pt__stop_gpu(t, title, stream, &none);
    pt__gpu_uncaptured_end(t);
    if (b && rc == 0)
        rc = pt__dev_fold_in(t, b, title, NULL, PT__FOLD_LAUNCH | b->launch_diff, 1);
    return rc;
}
