/* CUDA graphs: a step captured once and replayed many times.
 *
 * Under a stream capture PT_LAUNCH (launch.c) puts the records' reset and
 * the kernel into the graph, and notes the kernel here, by stream. After
 * cudaStreamEndCapture, pt_graph_capture_end() takes the kernels noted on
 * that stream. Each pt_graph_launch() then times the replay with CUDA
 * events as the GPU section `title`, replays the graph, and folds each
 * captured kernel's records into a child of that section named as the
 * kernel's PT_LAUNCH: the kernel lasted from its first block's BEGIN to
 * its last block's END (it has no events of its own inside the graph),
 * its phases and "(unattributed)" add up to that. The folds wait behind
 * the replay's events like any launch's: nothing waits for the GPU here.
 * The records come back by the graph's ring (graph_ring.c): where the
 * runtime lets an instantiated graph's kernel node take other arguments,
 * each replay's kernels write a set of their own, copied back a batch of
 * replays at a time beside the next batch. Elsewhere they come back
 * inside the replay: each kernel has a copy node
 * after it that nothing waits for (so it runs beside the kernels that
 * follow, on a copy engine), which each pt_graph_launch() points at a
 * host copy of the records' own for that replay's fold, and back at the
 * records' spare after the launch. The stream then carries nothing
 * between replays but their events, and a replay runs wholly before the
 * next one on its stream: replays never mix their records. Where a node
 * cannot serve (no runtime call for it, an exec that refuses the change,
 * two kernels of the graph writing the same records), the fold copies
 * the records on the stream after the replay, as a launch's. A buffer
 * keeps a few copies in flight (records.h); past them the host waits for
 * the oldest, the only wait. Timed by its kernels' clocks
 * (pt_graph_time_by_kernels), a replay has no events: it lasts its
 * kernels' blocks' span, and an event after every few replays says when
 * they completed (events.c, queue.c), a batch's copies in flight at once.
 *
 * The graph holds no reset of the records (pt__graph_bare(), the rule
 * for all but grids the device reduces): a memset node ahead of each
 * kernel cost every replay on the GPU. The first pt_graph_launch() resets
 * them on the stream, outside the graph, as does the first one after any
 * other reset of them (a PT_LAUNCH of the same records between replays);
 * each replay's fold then takes each slot's DONE (and the bad slots'
 * count) as the difference from the previous replay's copy (fold.c), so a
 * block that did not reach END in a replay, or a replay launched behind
 * ptkit's back, is counted and said as after a reset. Records the device
 * reduces get a reset in the graph, as before. A graph built node by node
 * (pt_graph_add_kernel()) is folded alike. */
#include "gpu/graph.h"

#include "core/errors.h"
#include "core/strv.h"
#include "gpu/fold.h"
#include "gpu/gpu.h"
#include "gpu/queue.h"

#include <stdlib.h>
#include <string.h>

struct pt_graph {
    pt_timing *t;
    size_t n, cap;
    pt__captured *v;
    int solo_known;           /* each kernel's `solo` is set for these n */
    int every;                /* replays timed by their kernels, an event each `every`; 0 by events */
    int since;                /* replays since the last such event */
    pt__ring *ring;           /* the kernels' sets, made at the first replay (graph_ring.c) */
};

/* Appends kernel `title` of records b, on stream s, to the n of *v (room
 * for *cap, doubled as needed): 0, or -1 without memory (nothing added). */
static int push(pt__captured **v, size_t *n, size_t *cap, pt_stream s, const char *title,
                pt_dev_records *b)
{
    char *name;

    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        pt__captured *w = realloc(*v, c * sizeof *w);
        if (!w)
            return -1;
        *v = w;
        *cap = c;
    }
    if (!(name = pt__str_dup(title)))
        return -1;
    (*v)[(*n)++] = (pt__captured){ .stream = s, .title = name, .recs = b,
                                   .bare = pt__graph_bare(b), .base = -1, .solo = -1 };
    return 0;
}

/* Adds to graph, after the n nodes of deps (the kernel), c's copy node:
 * the records into their pinned spare, which each pt_graph_launch()
 * points at the replay's own copy and back. Where the runtime has no such
 * node, the records no spare that holds them, or the node is refused, c
 * keeps none (its replays copy on the stream, as before). */
static void add_copy(pt__captured *c, void *graph, void *const *deps, size_t n,
                     const pt__cu_kernel_node *kp, int nargs)
{
    pt_dev_records *b = c->recs;
    const pt__cuda_api *cu = b->cu;
    size_t bytes = (size_t)b->words * sizeof(long long);

    c->data = b->data;
    c->bytes = bytes;
    c->copy = NULL;
    /* A kernel whose node takes other arguments writes a ring of sets,
     * copied back a batch at a time, instead (graph_ring.c). */
    if (n == 1 && pt__ring_note(c, cu, deps[0], kp, nargs))
        return;
    /* The spare was made with the records (records.c): nothing is
     * allocated here, during a capture, which an allocation would break. */
    if (!c->bare || !cu || !cu->GraphAddMemcpyNode1D || !cu->GraphExecMemcpyNodeSetParams1D ||
        !b->spare || b->spare_bytes < bytes ||
        cu->GraphAddMemcpyNode1D(&c->copy, graph, deps, n, b->spare, b->data, bytes,
                                 PT__CU_MEMCPY_D2H) != 0)
        c->copy = NULL;
}

void pt__graph_capture_copy(pt_timing *t, pt_stream s, pt_dev_records *b, int nargs)
{
    pt__gpu *g = pt__gpu_of(t);
    const pt__cuda_api *cu = b->cu;
    pt__captured *c = NULL;
    void *graph = NULL;
    void *const *deps = NULL;
    const void *edges = NULL; /* asked, else a query of annotated edges fails */
    size_t n = 0;
    int status = 0;

    for (size_t i = g ? g->ncaptured : 0; i-- > 0 && !c;)
        if (g->captured[i].stream == s && g->captured[i].recs == b && !g->captured[i].data)
            c = &g->captured[i];
    if (!c || !cu || !cu->StreamGetCaptureInfo)
        return;
    /* The nodes the stream's next operation would follow: the kernel
     * just captured. The copy node follows it and leaves the stream's
     * dependencies as they are, so nothing captured later waits for it. */
    if (cu->StreamGetCaptureInfo(s, &status, NULL, &graph, &deps, &edges, &n) != 0 ||
        status != 1 || !graph || !n)
        return;
    add_copy(c, graph, deps, n, NULL, nargs);
}

/* Whether each kernel of gr is the only one writing its records: sorted
 * by records, O(n log n), once a graph. */
static int by_recs(const void *a, const void *b)
{
    const pt__captured *x = *(pt__captured *const *)a, *y = *(pt__captured *const *)b;
    return x->recs < y->recs ? -1 : x->recs > y->recs;
}

static int mark_solo(pt_graph *gr)
{
    pt__captured **p;

    if (gr->solo_known)
        return 0;
    if (!(p = malloc(gr->n * sizeof *p)))
        return -1;
    for (size_t i = 0; i < gr->n; i++)
        p[i] = &gr->v[i];
    qsort(p, gr->n, sizeof *p, by_recs);
    for (size_t i = 0; i < gr->n; i++)
        p[i]->solo = !(i > 0 && p[i - 1]->recs == p[i]->recs) &&
                     !(i + 1 < gr->n && p[i + 1]->recs == p[i]->recs);
    free(p);
    gr->solo_known = 1;
    return 0;
}

int pt__graph_bare(const pt_dev_records *b)
{
    return !b->host && b->nslots < pt__reduce_min_slots;
}

/* What a captured kernel owns: its title and its arguments' copies. */
static void captured_free(pt__captured *c)
{
    free(c->title);
    free(c->argv);
    free(c->kp.args);
}

/* The captures no pt_graph_capture_end() took, freed with the timing's
 * GPU side (gpu.c calls it through g->captured_free, so that gpu.c, which
 * this file calls, calls nothing of this file). */
static void captures_free(pt__gpu *g)
{
    for (size_t i = 0; i < g->ncaptured; i++)
        captured_free(&g->captured[i]);
    free(g->captured);
    g->captured = NULL;
    g->ncaptured = g->captured_cap = 0;
}

int pt__graph_capture_add(pt_timing *t, pt_stream s, const char *title, pt_dev_records *b)
{
    pt__gpu *g = pt__gpu_get(t);

    if (!g || push(&g->captured, &g->ncaptured, &g->captured_cap, s, title, b) < 0)
        return pt__fail(t, PT_ENOMEM, "PT_LAUNCH(\"%s\") under a stream capture: out of memory; "
                        "the kernel is captured unmeasured", title);
    g->captured_free = captures_free;
    return 0;
}

pt_graph *pt_graph_capture_end(pt_timing *t, pt_stream stream)
{
    pt__gpu *g = t ? pt__gpu_of(t) : NULL;
    pt_graph *gr;
    size_t k = 0, n = 0;

    if (!t)
        return NULL;
    gr = calloc(1, sizeof *gr);
    for (size_t i = 0; g && i < g->ncaptured; i++)
        n += g->captured[i].stream == stream;
    if (gr && n && !(gr->v = malloc(n * sizeof *gr->v))) {
        free(gr);
        gr = NULL;
    }
    if (!gr) {
        pt__fail(t, PT_ENOMEM, "pt_graph_capture_end: out of memory");
        return NULL;
    }
    gr->t = t;
    gr->cap = n;
    /* The stream's kernels move to the graph, in the order captured. */
    for (size_t i = 0; g && i < g->ncaptured; i++) {
        if (g->captured[i].stream == stream)
            gr->v[gr->n++] = g->captured[i];
        else
            g->captured[k++] = g->captured[i];
    }
    if (g)
        g->ncaptured = k;
    return gr;
}

pt_graph *pt_graph_create(pt_timing *t)
{
    pt_graph *gr;

    if (!t)
        return NULL;
    if (!(gr = calloc(1, sizeof *gr))) {
        pt__fail(t, PT_ENOMEM, "pt_graph_create: out of memory");
        return NULL;
    }
    gr->t = t;
    return gr;
}

int pt_graph_add_kernel(pt_graph *gr, void **node, void *graph, void *const *deps, size_t ndeps,
                        const void *params, int nargs, const char *title, pt_dev_records *b)
{
    const pt__cu_kernel_node *kp = params;
    const pt__cuda_api *cu;
    pt__reset_part part;
    void *reset;
    long long blocks, threads, n;
    pt__cuerr e;
    const char *why;

    if (!gr || !node || !graph || !params || !title || !b)
        return gr ? pt__fail(gr->t, PT_EINVAL, "pt_graph_add_kernel: NULL %s",
                             !node ? "node" : !graph ? "graph" : !params ? "params"
                             : !title ? "title" : "records")
                  : PT_EINVAL;
    if (b->t != gr->t || nargs < 0)
        return pt__fail(gr->t, PT_EINVAL, "pt_graph_add_kernel(\"%s\"): %s", title,
                        nargs < 0 ? "a negative count of arguments"
                                  : "the records are another timing's");
    cu = pt__gpu_api(gr->t);
    if (cu->unavailable || !cu->GraphAddKernelNode || !cu->GraphAddMemsetNode)
        return pt__fail(gr->t, PT_ENODEV, "pt_graph_add_kernel(\"%s\"): the CUDA runtime "
                        "has no cudaGraphAddKernelNode and cudaGraphAddMemsetNode; nothing "
                        "added", title);
    blocks = (long long)kp->grid.x * kp->grid.y * kp->grid.z;
    threads = (long long)kp->block.x * kp->block.y * kp->block.z;
    n = pt__launch_slots(b, blocks, threads);
    why = b->host ? "are in host memory (PT_DEV_HOST), which a graph cannot reset"
          : n != b->nslots ? "do not hold the grid's slots, and a graph cannot resize them: "
                             "make them with the grid's slots (or launch once) first" : NULL;
    if (why) {
        e = cu->GraphAddKernelNode(node, graph, deps, ndeps, params);
        if (e)
            return pt__fail(gr->t, PT_ECUDA, "pt_graph_add_kernel(\"%s\"): "
                            "cudaGraphAddKernelNode: %s", title, pt__cuda_errstr(cu, e));
        return pt__fail(gr->t, PT_ESTATE, "pt_graph_add_kernel(\"%s\"): the records (%d "
                        "slots, the grid %lld) %s; the kernel is in the graph, unmeasured",
                        title, b->nslots, n, why);
    }
    if (pt__graph_bare(b)) {
        e = cu->GraphAddKernelNode(node, graph, deps, ndeps, params);
    } else {
        /* pt_dev_reset's memset, in 4-byte elements (a memset node's
         * widest). */
        part = pt__reset_of(b);
        const pt__cu_memset m = { part.dst, 0, 0, 4, part.bytes / 4, 1 };
        e = cu->GraphAddMemsetNode(&reset, graph, deps, ndeps, &m);
        if (!e)
            e = cu->GraphAddKernelNode(node, graph, &reset, 1, params);
    }
    if (e)
        return pt__fail(gr->t, PT_ECUDA, "pt_graph_add_kernel(\"%s\"): %s: %s", title,
                        "adding the reset and the kernel", pt__cuda_errstr(cu, e));
    if (push(&gr->v, &gr->n, &gr->cap, NULL, title, b) < 0)
        return pt__fail(gr->t, PT_ENOMEM, "pt_graph_add_kernel(\"%s\"): out of memory; the "
                        "kernel is in the graph, unmeasured", title);
    gr->solo_known = 0;
    add_copy(&gr->v[gr->n - 1], graph, node, 1, kp, nargs);
    return 0;
}

/* Points each copy node of exec at a host copy of its records for this
 * replay (c->stage), where it may: a kernel alone in writing its records,
 * still at the memory captured, a pinned copy, and an exec that takes the
 * change (one instantiated from another graph refuses it). The others'
 * records are copied on the stream after the replay. */
static void aim_copies(pt_timing *t, pt_graph *gr, void *exec)
{
    const pt__cuda_api *cu = pt__gpu_api(t);
    int known = mark_solo(gr) == 0;

    for (size_t i = 0; i < gr->n; i++) {
        pt__captured *c = &gr->v[i];
        pt__stage *st;
        if (c->stage || !known || !c->copy || c->solo != 1 || c->data != c->recs->data ||
            pt__stage_get(t, c->recs, c->bytes, &st) != 0)
            continue;
        if (st->pinned && cu->GraphExecMemcpyNodeSetParams1D(exec, c->copy, st->host, c->data,
                                                             c->bytes, PT__CU_MEMCPY_D2H) == 0)
            c->stage = st;
        else
            st->busy = 0;
    }
}

/* After the replay: each copy node aimed by aim_copies() back at its
 * records' spare, so that a replay launched behind ptkit's back writes
 * no copy a fold reads. */
static void unaim_copies(pt_timing *t, pt_graph *gr, void *exec, const char *title)
{
    const pt__cuda_api *cu = pt__gpu_api(t);
    pt__cuerr e;

    for (size_t i = 0; i < gr->n; i++) {
        pt__captured *c = &gr->v[i];
        if (c->stage && c->copy && !c->stage->ring &&
            (e = cu->GraphExecMemcpyNodeSetParams1D(exec, c->copy, c->recs->spare, c->data,
                                                    c->bytes, PT__CU_MEMCPY_D2H)) != 0)
            pt__fail(t, PT_ECUDA, "pt_graph_launch(\"%s\"): pointing the copy node of \"%s\" "
                     "back at its spare: %s; a replay launched without pt_graph_launch would "
                     "write over this replay's copy", title, c->title, pt__cuda_errstr(cu, e));
    }
}

int pt_graph_time_by_kernels(pt_graph *gr, int every)
{
    if (!gr)
        return PT_EINVAL;
    if (every < 0)
        return pt__fail(gr->t, PT_EINVAL, "pt_graph_time_by_kernels(%d): a count of replays, "
                        "or 0 for CUDA events; unchanged", every);
    gr->every = every;
    gr->since = 0;
    return 0;
}

/* The replay between its section's start and stop: two CUDA events, or
 * none where its kernels' clocks time it, then an event after every
 * `every` replays (or as the stage ring needs one: queue.c), each
 * batch's copies in flight at once. */
static pt__cuerr replay(pt_timing *t, pt_graph *gr, const char *title, void *exec,
                        pt_stream stream)
{
    const pt__cuda_api *cu = pt__gpu_api(t);
    int by = gr->every && gr->n, close = 0;
    pt__cuevent end;
    pt__gpu *g;
    pt__cuerr e;

    for (size_t i = 0; by && i < gr->n; i++) {
        int want = gr->every + PT__STAGE_KEEP;
        pt_dev_records *b = gr->v[i].recs;
        want = want < PT__STAGE_MAX ? want : PT__STAGE_MAX;
        if (b->stages < want)
            b->stages = want;
    }
    pt__start_gpu_as(t, title, stream, by ? PT__BY_KERNELS : 0);
    e = cu->GraphLaunch(exec, stream);
    if (by && (close = ++gr->since >= gr->every))
        gr->since = 0;
    if ((g = pt__gpu_of(t)) != NULL)
        g->closed = NULL;
    pt__stop_gpu_as(t, title, stream,
                    PT__HOLD | (by ? PT__BY_KERNELS : 0) | (close ? PT__CLOSE : 0));
    /* A batch's copy back waits for the end event just recorded: the
     * replay's, or (timed by its kernels) the one that closed the batch,
     * where no replay but the batch's last has one of its own. */
    end = g ? g->closed : NULL;
    pt__ring_after(gr->ring, !e, close, end, by ? NULL : end);
    if (g)
        g->closed = NULL;
    return e;
}

int pt_graph_launch(pt_timing *t, pt_graph *gr, const char *title, void *exec, pt_stream stream)
{
    const pt__cuda_api *cu;
    pt__cuerr e;
    int rc = 0, r;

    if (!t) {
        cu = pt__cuda();
        return cu->unavailable || !cu->GraphLaunch ? PT_ENODEV : cu->GraphLaunch(exec, stream);
    }
    if (!gr || !title || !exec)
        return pt__fail(t, PT_EINVAL, "pt_graph_launch: NULL %s",
                        !gr ? "graph" : !title ? "title" : "graph exec");
    if (gr->t != t)
        return pt__fail(t, PT_EINVAL, "pt_graph_launch(\"%s\"): the graph's kernels were "
                        "captured on another timing", title);
    cu = pt__gpu_api(t);
    if (cu->unavailable || !cu->GraphLaunch)
        return pt__fail(t, PT_ENODEV, "pt_graph_launch(\"%s\"): the CUDA runtime has no "
                        "cudaGraphLaunch; nothing replayed", title);
    /* Bare records reset once ahead of the replays, and again after any
     * other reset of them (their counts then start from 0); unreset, the
     * replay waits for a fold's read on another stream, as a reset would
     * have (a PT_LAUNCH of the same records elsewhere, or the same graph
     * replayed on two streams). */
    for (size_t i = 0; i < gr->n; i++) {
        pt__captured *c = &gr->v[i];
        if (!c->bare)
            continue;
        if (c->base != c->recs->reset_gen) {
            if ((r = pt_dev_reset(c->recs, stream)) != 0)
                return r; /* counted */
            c->base = c->recs->reset_gen;
            c->fresh = 1;
        } else if ((e = pt__records_await_read(c->recs, stream)) != 0) {
            return pt__fail(t, PT_ECUDA, "pt_graph_launch(\"%s\"): waiting for a fold's read "
                            "of the records of \"%s\" on another stream: %s; nothing replayed",
                            title, c->title, pt__cuda_errstr(cu, e));
        }
    }
    /* Asked once for the replay's events (each asks, as pt_start_gpu
     * does; on a capturing stream they refuse, said). */
    if (!pt__gpu_capturing(t, stream))
        pt__gpu_uncaptured(t, stream);
    if (t->enabled) { /* disabled, nothing folds them */
        pt__ring_aim(t, &gr->ring, gr->v, gr->n, exec, stream,
                     gr->every ? gr->every : PT__RING_BATCH);
        aim_copies(t, gr, exec);
    }
    e = replay(t, gr, title, exec, stream);
    pt__gpu_uncaptured_end(t);
    pt__ring_unaim(t, gr->ring, gr->v, gr->n, exec, title);
    unaim_copies(t, gr, exec, title);
    for (size_t i = 0; i < gr->n; i++) {
        pt__captured *c = &gr->v[i];
        pt_dev_records *b = c->recs;
        /* A ring's set keeps its own counts, whatever reset the records. */
        int mode = PT__FOLD_KERNEL | (c->stage && c->stage->ring ? PT__FOLD_DIFF
                                      : c->bare ? c->fresh ? PT__FOLD_DIFF0 : PT__FOLD_DIFF : 0);
        if (!e) {
            if (c->bare)
                c->fresh = 0;
            else
                b->reset_gen++; /* the replay reset the records (the graph's memset) */
            b->stream = stream;
            b->graph_stage = c->stage; /* the fold's copy, made in the replay */
            r = pt__dev_fold_in(t, b, title, c->title, mode, 1);
            if (r && !rc)
                rc = r;
        }
        if (c->stage && (e || b->graph_stage == c->stage))
            c->stage->busy = 0; /* not taken by a fold */
        b->graph_stage = NULL;
        c->stage = NULL;
    }
    /* The replay was held for its folds (its span's parts, and where
     * PT_TRACE draws them from); with PT_SYNC it is waited for now. */
    pt__queue_filled(t);
    if ((t->flags & PT_SYNC) && (r = pt_sync(t)) != 0 && !rc)
        rc = r;
    if (e)
        return pt__fail(t, PT_ECUDA, "pt_graph_launch(\"%s\"): cudaGraphLaunch: %s; nothing "
                        "folded", title, pt__cuda_errstr(cu, e));
    return rc;
}

void pt_graph_free(pt_graph *gr)
{
    if (!gr)
        return;
    pt__ring_free(gr->ring, gr->v, gr->n);
    for (size_t i = 0; i < gr->n; i++)
        captured_free(&gr->v[i]);
    free(gr->v);
    free(gr);
}
