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
 * Each fold copies the records back on the replay's stream, behind the
 * replay and ahead of the next one, whose reset (in the graph) comes after
 * the copy: so replays on one stream never mix their records. A buffer
 * keeps a few copies in flight (records.h); past them the host waits for
 * the oldest copy, the only wait. */
#include "gpu/graph.h"

#include "core/errors.h"
#include "core/strv.h"
#include "gpu/fold.h"
#include "gpu/gpu.h"

#include <stdlib.h>
#include <string.h>

struct pt_graph {
    pt_timing *t;
    size_t n;
    pt__captured *v;
};

/* The captures no pt_graph_capture_end() took, freed with the timing's
 * GPU side (gpu.c calls it through g->captured_free, so that gpu.c, which
 * this file calls, calls nothing of this file). */
static void captures_free(pt__gpu *g)
{
    for (size_t i = 0; i < g->ncaptured; i++)
        free(g->captured[i].title);
    free(g->captured);
    g->captured = NULL;
    g->ncaptured = g->captured_cap = 0;
}

int pt__graph_capture_add(pt_timing *t, pt_stream s, const char *title, pt_dev_records *b)
{
    pt__gpu *g = pt__gpu_get(t);
    pt__captured *v;

    if (g && g->ncaptured == g->captured_cap) {
        size_t cap = g->captured_cap ? 2 * g->captured_cap : 8;
        v = realloc(g->captured, cap * sizeof *v);
        if (v) {
            g->captured = v;
            g->captured_cap = cap;
        }
    }
    if (!g || g->ncaptured == g->captured_cap)
        return pt__fail(t, PT_ENOMEM, "PT_LAUNCH(\"%s\") under a stream capture: out of memory; "
                        "the kernel is captured unmeasured", title);
    v = &g->captured[g->ncaptured];
    if (!(v->title = pt__str_dup(title)))
        return pt__fail(t, PT_ENOMEM, "PT_LAUNCH(\"%s\") under a stream capture: out of memory; "
                        "the kernel is captured unmeasured", title);
    v->stream = s;
    v->recs = b;
    g->ncaptured++;
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

int pt_graph_launch(pt_timing *t, pt_graph *gr, const char *title, void *exec, pt_stream stream)
{
    const pt__cuda_api *cu;
    pt_metrics none;
    pt__cuerr e;
    int rc = 0, r;

    memset(&none, 0, sizeof none);
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
    pt__start_gpu(t, title, stream, &none);
    e = cu->GraphLaunch(exec, stream);
    pt__stop_gpu(t, title, stream, &none);
    if (e)
        return pt__fail(t, PT_ECUDA, "pt_graph_launch(\"%s\"): cudaGraphLaunch: %s; nothing "
                        "folded", title, pt__cuda_errstr(cu, e));
    for (size_t i = 0; i < gr->n; i++) {
        pt_dev_records *b = gr->v[i].recs;
        /* The replay reset the records (the graph's memset), on stream. */
        b->reset_gen++;
        b->stream = stream;
        r = pt__dev_fold_in(t, b, title, gr->v[i].title, PT__FOLD_KERNEL, 1);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

void pt_graph_free(pt_graph *gr)
{
    if (!gr)
        return;
    for (size_t i = 0; i < gr->n; i++)
        free(gr->v[i].title);
    free(gr->v);
    free(gr);
}
