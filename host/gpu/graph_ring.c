/* A CUDA graph's ring of record sets.
 *
 * A copy node after each kernel brought each replay's records back inside
 * the replay (graph.c); on an H100 three of them cost a 65 us graph some
 * 10 us a replay, their launches more than their 13 KB. The ring takes
 * them out of the graph. An instantiated graph's kernel node can be given
 * other arguments for its next launches (cudaGraphExecKernelNodeSetParams,
 * which leaves launches already queued as they were), so before each
 * replay every kernel noted here is pointed at a set of its own in a ring
 * of device memory, and after the launch back at its records (so a
 * replay launched behind ptkit's back writes no set). After every batch
 * of replays the sets it wrote go to pinned host memory in one transfer,
 * on a stream of the ring's behind the batch's last replay's end event,
 * so it runs beside the next batch: the replays' stream carries no copy.
 * Each fold waits for its set's transfer by that transfer's own event.
 *
 * A ring holds two batches of sets, so the host launches one batch while
 * the GPU runs the other; a set is written again only once the fold that
 * read it is done, the host waiting for it there (the only wait). Sets
 * are never reset: each set's fold takes each slot's DONE as the
 * difference from what that set's last fold read (fold.c), as the
 * records' own copies do, from zeroed sets with their headers. Memory:
 * 2 x batch x the graph's records, pinned and on the device, at most
 * 64 MiB each (fewer sets where they would be more).
 *
 * So a batch's folds begin once its last replay ends: in a drain
 * (pt_sync, a report), with no later launch to hide them, the last
 * batch's all came after the GPU was done (on an H200's host, 24 folds
 * of 12 us). There each set is copied back on its own as its folds come
 * to wait (hasten), behind its replay's end event, on a stream of its
 * own: the folds follow the GPU replay by replay. The next replay waits
 * for the batches' copies, which may still read a set so overtaken. */
#include "gpu/graph_ring.h"

#include "core/errors.h"
#include "gpu/gpu.h"
#include "gpu/queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_MAX_BYTES ((size_t)64 << 20)
#define RING_ALIGN 256
#define ARGS_MAX 256 /* a kernel's parameters ptkit looks through for its records */
#define CAPTURE_UNSUPPORTED 900 /* cudaErrorStreamCaptureUnsupported */

struct pt__ring {
    pt_timing *t;
    const pt__cuda_api *cu;
    int sets, batch, nk;      /* nk: the graph's kernels when it was made */
    size_t set_bytes;
    unsigned char *dev, *host;
    pt__stage *stage;         /* kernel k of set i at i * nk + k */
    pt__cuevent *ev;          /* set i's: recorded after the copy back that began at it */
    int first, unflushed;     /* sets written and not yet copied back, from first on: the
                                 next replay's set is first + unflushed */
    int aimed;                /* the set this replay's kernels were pointed at, or -1 */
    pt_stream stream;         /* the stream they were written on */
    pt_stream side;           /* the copies' own stream, NULL: they go on `stream` */
    pt__cuevent mark;         /* recorded on `stream` for `side` to wait on */
    pt__cuevent last;         /* the latest copy back's event; NULL before */
    pt__cuerr err;            /* the latest failed copy back's error */
    int off;                  /* made without its memory: every kernel keeps its copies */
    /* Set i's replay's end event, recorded on `stream` after it alone
     * (NULL: none, or used); valid while the replay's pair is queued,
     * which its folds' are until they have run. */
    pt__cuevent *end;
    /* The copies back of sets on their own (hasten): their stream (NULL:
     * none), an event a set; overtook: one was made since the last
     * replay, so a batch's copy of its set may still be to run. */
    pt_stream early;
    pt__cuevent *soon;
    int overtook;
};

int pt__ring_note(pt__captured *c, const pt__cuda_api *cu, void *node,
                  const pt__cu_kernel_node *kp, int nargs)
{
    size_t off, size, sizes[ARGS_MAX], total = 0, at = 0;
    pt__cu_kernel_node got;
    int n = -1, last = 0, asked = 0, refused = 0;
    const int limit = nargs > 0 ? nargs : ARGS_MAX;
    const char *env = getenv("PT_GRAPH_RING"); /* "0": copy nodes, as before the ring */
    pt__cuerr e;
    char *why = c->recs->ring_off;
    const size_t wn = sizeof c->recs->ring_off;

    c->node = NULL;
    why[0] = '\0';
    if ((env && strcmp(env, "0") == 0) || !c->recs->data || !c->bare)
        return 0;
    if (!cu || !node || !cu->GraphExecKernelNodeSetParams || !cu->FuncGetParamInfo ||
        !cu->PeekAtLastError || !cu->GetLastError || (!kp && !cu->GraphKernelNodeGetParams)) {
        snprintf(why, wn, "the runtime lacks a call (CUDA 12.4 and later have them)");
        return 0;
    }
    if (nargs > ARGS_MAX) {
        snprintf(why, wn, "the kernel has more than %d arguments", ARGS_MAX);
        return 0;
    }
    /* The records' pt_dev_buf is the last argument (PT_LAUNCH passes it
     * so), found by its data pointer among the kernel's nargs. Where nargs
     * is not known, the runtime is asked for the argument after it, which
     * it refuses: an API error compute-sanitizer reports, and one the
     * program's next cudaGetLastError would return. So ptkit asks nothing
     * while the program has an error of its own pending, and clears its
     * own; PT_LAUNCH and pt_graph_add_kernel say nargs, and nothing is
     * refused. */
    if ((e = cu->PeekAtLastError()) != 0) {
        snprintf(why, wn, "the program had an error pending (%d)", (int)e);
        return 0;
    }
    if (!kp) {
        memset(&got, 0, sizeof got);
        if ((e = cu->GraphKernelNodeGetParams(node, &got)) != 0) {
            (void)cu->GetLastError();
            snprintf(why, wn, "cudaGraphKernelNodeGetParams: error %d", (int)e);
            return 0;
        }
        kp = &got;
    }
    if (!kp->args || kp->extra) {
        snprintf(why, wn, "the kernel's arguments are in `extra`");
        return 0;
    }
    for (int i = 0; i < limit && n < 0; i++, asked++) {
        if (cu->FuncGetParamInfo(kp->func, (size_t)i, &off, &size) != 0) {
            refused = 1;
            break;
        }
        sizes[i] = size;
        total += (size + 15) & ~(size_t)15;
        if (size == sizeof(pt_dev_buf) && kp->args[i] &&
            ((const pt_dev_buf *)kp->args[i])->data == c->recs->data)
            n = i + 1;
    }
    if (n > 0 && nargs > 0)
        last = n == nargs;
    else if (n > 0)
        last = refused = cu->FuncGetParamInfo(kp->func, (size_t)n, &off, &size) != 0;
    if (refused)
        (void)cu->GetLastError();
    if (!last) {
        snprintf(why, wn, "cudaFuncGetParamInfo: %s",
                 n > 0 ? "the records are not the last argument"
                 : refused && !asked ? "refused the kernel"
                 : refused && nargs > 0 ? "the kernel has fewer arguments than said"
                 : "no argument of 24 bytes pointing at the records");
        return 0;
    }
    if (!(c->argv = malloc(total)) || !(c->kp.args = malloc((size_t)n * sizeof(void *)))) {
        free(c->argv);
        c->argv = NULL;
        snprintf(why, wn, "out of memory");
        return 0;
    }
    for (int i = 0; i < n; i++) {
        memcpy(c->argv + at, kp->args[i], sizes[i]);
        c->kp.args[i] = c->argv + at;
        at += (sizes[i] + 15) & ~(size_t)15;
    }
    c->kp.func = kp->func;
    c->kp.grid = kp->grid;
    c->kp.block = kp->block;
    c->kp.shared_bytes = kp->shared_bytes;
    c->kp.extra = NULL;
    c->nargs = n;
    memcpy(&c->aimed, c->kp.args[n - 1], sizeof c->aimed);
    c->node = node;
    return 1;
}

/* Whether c writes to a ring: noted, and its records where and as large
 * as when it was captured. */
static int ringed(const pt__captured *c)
{
    return c->node && c->data == c->recs->data && c->aimed.nslots == c->recs->nslots;
}

static pt__cuerr fill(pt__stage *s);
static void hasten(pt__stage *s);

/* Says why the ring serves none of v's kernels, in their records. */
static void say_off(pt__captured *v, size_t n, const char *why, size_t bytes)
{
    for (size_t k = 0; k < n; k++)
        if (ringed(&v[k]))
            snprintf(v[k].recs->ring_off, sizeof v[k].recs->ring_off, "%s (%zu bytes)", why,
                     bytes);
}

/* r's stream and events for a drain's copies of sets on their own;
 * r->early stays NULL without them (the events made are left in r->soon
 * for pt__ring_free). */
static void make_early(pt__ring *r)
{
    const pt__cuda_api *cu = r->cu;

    if (!(r->soon = calloc((size_t)r->sets, sizeof *r->soon)))
        return;
    for (int i = 0; i < r->sets; i++)
        if (cu->EventCreateWithFlags(&r->soon[i], PT__CU_EVENT_DISABLE_TIMING) != 0) {
            r->soon[i] = NULL;
            return;
        }
    if (cu->StreamCreateWithFlags(&r->early, PT__CU_STREAM_NON_BLOCKING) != 0)
        r->early = NULL;
}

/* The ring for v's kernels: sets of every ringed one's records, its host
 * copies' stages, zeroed sets with their headers sent to the device on
 * s. Without memory (or a kernel to ring) it is made off, said. */
static pt__ring *make(pt_timing *t, pt__captured *v, size_t n, pt_stream s, int batch)
{
    const pt__cuda_api *cu = pt__gpu_api(t);
    pt__ring *r = calloc(1, sizeof *r);
    size_t bytes = 0;
    long long hdr[PT_DEV_HDR];

    if (!r)
        return NULL;
    r->t = t;
    r->cu = cu;
    r->off = 1;
    r->aimed = -1;
    r->nk = (int)n;
    for (size_t k = 0; k < n; k++) {
        if (!ringed(&v[k]))
            continue;
        v[k].part = bytes;
        bytes += (v[k].bytes + RING_ALIGN - 1) & ~(size_t)(RING_ALIGN - 1);
    }
    batch = batch < 1 ? 1 : batch > PT__RING_BATCH_MAX ? PT__RING_BATCH_MAX : batch;
    while (batch > 1 && bytes && 2 * (size_t)batch * bytes > RING_MAX_BYTES)
        batch /= 2;
    if (!bytes || 2 * bytes > RING_MAX_BYTES) {
        say_off(v, n, "the graph's records are more than the ring holds", 2 * bytes);
        return r;
    }
    r->batch = batch;
    r->sets = 2 * batch;
    r->set_bytes = bytes;
    if (!(r->stage = calloc((size_t)r->sets * n, sizeof *r->stage)) ||
        !(r->ev = calloc((size_t)r->sets, sizeof *r->ev)) ||
        !(r->end = calloc((size_t)r->sets, sizeof *r->end)) ||
        cu->MallocHost((void **)&r->host, (size_t)r->sets * bytes) != 0 || !r->host ||
        cu->Malloc((void **)&r->dev, (size_t)r->sets * bytes) != 0 || !r->dev) {
        say_off(v, n, "no memory for the ring", (size_t)r->sets * bytes);
        return r;
    }
    for (int i = 0; i < r->sets; i++)
        if (cu->EventCreateWithFlags(&r->ev[i], PT__CU_EVENT_DISABLE_TIMING) != 0) {
            r->ev[i] = NULL;
            say_off(v, n, "no event for the ring", (size_t)r->sets * bytes);
            return r;
        }
    memset(r->host, 0, (size_t)r->sets * bytes);
    for (int i = 0; i < r->sets; i++)
        for (size_t k = 0; k < n; k++) {
            pt__stage *st = &r->stage[(size_t)i * n + k];
            if (!ringed(&v[k]))
                continue;
            st->host = (long long *)(void *)(r->host + (size_t)i * bytes + v[k].part);
            st->bytes = v[k].bytes;
            st->pinned = 1;
            st->ring = r;
            st->fill = fill;
            st->hasten = hasten;
            pt__records_header(v[k].recs, v[k].aimed.nslots, hdr);
            memcpy(st->host, hdr, sizeof hdr);
        }
    if (cu->MemcpyAsync(r->dev, r->host, (size_t)r->sets * bytes, PT__CU_MEMCPY_H2D, s) != 0 ||
        cu->EventRecord(r->ev[0], s) != 0) {
        say_off(v, n, "the ring's first copy to the device failed", (size_t)r->sets * bytes);
        return r;
    }
    r->last = r->ev[0];
    r->stream = s;
    r->off = 0;
    /* The copies back run beside the next batch's replays, on a stream
     * of their own behind an event of the replays' (a mark where none
     * was recorded); without one, on the replays' stream between them. */
    if (cu->StreamWaitEvent && cu->StreamCreateWithFlags(&r->side, PT__CU_STREAM_NON_BLOCKING))
        r->side = NULL;
    if (r->side && cu->EventCreateWithFlags(&r->mark, PT__CU_EVENT_DISABLE_TIMING)) {
        cu->StreamDestroy(r->side);
        r->side = NULL;
        r->mark = NULL;
    }
    /* And a drain's copies of sets on their own, on another, made here
     * as the others are, on the device the replays run on (without it,
     * the events made wait for pt__ring_free). */
    if (r->side)
        make_early(r);
    return r;
}

/* The first n of the sets written since the last copy back, copied back
 * now behind their replays (behind `after`, an event recorded after
 * them, or a mark of the ring's own; two transfers where they wrap
 * round), and their event recorded after: 0, or the error, left for the
 * folds of those sets to say. No replay waits for the copy: a set is
 * written again only once the fold that read it is done, which waited
 * for it. */
static pt__cuerr flush_n(pt__ring *r, int n, pt__cuevent after)
{
    const pt__cuda_api *cu = r->cu;
    int a = r->first, run = n < r->sets - a ? n : r->sets - a;
    size_t at = (size_t)a * r->set_bytes;
    pt_stream cs = r->side ? r->side : r->stream;
    pt__cuerr e = 0;
    long no;

    if (!n)
        return 0;
    /* A stream being captured again would take the mark into its graph. */
    if (pt__gpu_capturing(r->t, r->stream))
        e = CAPTURE_UNSUPPORTED;
    if (!e && r->side && !after)
        e = cu->EventRecord(after = r->mark, r->stream);
    if (!e && r->side)
        e = cu->StreamWaitEvent(r->side, after, 0);
    if (!e)
        e = cu->MemcpyAsync(r->host + at, r->dev + at, (size_t)run * r->set_bytes,
                            PT__CU_MEMCPY_D2H, cs);
    if (!e && n > run)
        e = cu->MemcpyAsync(r->host, r->dev, (size_t)(n - run) * r->set_bytes,
                            PT__CU_MEMCPY_D2H, cs);
    if (!e)
        e = cu->EventRecord(r->ev[a], cs);
    r->first = (a + n) % r->sets;
    r->unflushed -= n;
    r->err = e;
    if (e)
        return e;
    r->last = r->ev[a];
    no = ++pt__gpu_of(r->t)->copies;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < r->nk; k++) {
            pt__stage *st = &r->stage[(size_t)((a + i) % r->sets) * (size_t)r->nk + (size_t)k];
            if (st->unfilled) {
                st->unfilled = 0;
                st->ev = r->ev[a];
                st->copying = 1;
                st->copy_no = no;
            }
        }
    return 0;
}

static pt__cuerr flush(pt__ring *r, pt__cuevent after)
{
    return flush_n(r, r->unflushed, after);
}

/* A fold's set not yet copied back: its batch is copied now. */
static pt__cuerr fill(pt__stage *s)
{
    pt__ring *r = s->ring;
    pt__cuerr e = r->unflushed ? flush(r, NULL) : 0;

    if (s->unfilled) {
        s->unfilled = 0; /* said once, by the fold that met it */
        return e ? e : r->err ? r->err : PT__CU_INVALID_VALUE;
    }
    return e;
}

/* In a drain, the set of s, whose folds come to wait for its copy back:
 * copied back on its own behind its replay's end event, if it has one.
 * Where its batch's copy is not made yet, the set is the oldest still to
 * copy (folds come in order), copied alone, unless the newest such set's
 * replay has ended too (then one copy of them all, fill's, serves).
 * Where its batch's copy is made and has not landed, a second copy goes
 * on the early stream, and the set's stages wait for that one; the
 * batch's still writes the same bytes, and the next replay waits for it
 * (pt__ring_aim). Where a call fails the batch's copy serves. */
static void hasten(pt__stage *s)
{
    pt__ring *r = s->ring;
    const pt__cuda_api *cu = r->cu;
    int set = (int)((size_t)(s - r->stage) / (size_t)r->nk);
    size_t at = (size_t)set * r->set_bytes;
    pt__cuevent end;

    if (r->off || !(end = r->end[set]))
        return;
    if (s->unfilled) {
        /* Where the newest set's replay has ended too, one copy of them
         * all (fill's, behind replays all ended) serves as well: none of
         * them is to be copied on its own then. */
        pt__cuevent newest = r->end[(r->first + r->unflushed - 1) % r->sets];
        if (set != r->first || !r->side)
            return;
        if (newest && cu->EventQuery(newest) != PT__CU_NOT_READY) {
            for (int i = 0; i < r->unflushed; i++)
                r->end[(r->first + i) % r->sets] = NULL;
            return;
        }
        r->end[set] = NULL;
        (void)flush_n(r, 1, end); /* an error: said by the set's folds (fill) */
        return;
    }
    r->end[set] = NULL;
    if (!s->copying || !r->early || cu->StreamWaitEvent(r->early, end, 0) != 0 ||
        cu->MemcpyAsync(r->host + at, r->dev + at, r->set_bytes, PT__CU_MEMCPY_D2H,
                        r->early) != 0 ||
        cu->EventRecord(r->soon[set], r->early) != 0)
        return;
    for (int k = 0; k < r->nk; k++) {
        pt__stage *st = &r->stage[(size_t)set * (size_t)r->nk + (size_t)k];
        if (st->copying)
            st->ev = r->soon[set];
    }
    r->overtook = 1;
}

/* Waits, resolving b's oldest folds, until stage st is free: 1, or 0
 * where it is still read (the kernel then keeps its records). */
static int free_stage(pt__stage *st, pt_dev_records *b)
{
    while (st->busy && b->fold_t && b->pending > 0) {
        int before = b->pending;
        pt__queue_resolve_until(b->fold_t, &b->pending, before - 1);
        if (b->pending >= before)
            break;
    }
    return !st->busy;
}

void pt__ring_aim(pt_timing *t, pt__ring **rp, pt__captured *v, size_t n, void *exec,
                  pt_stream s, int batch)
{
    const pt__cuda_api *cu = pt__gpu_api(t);
    pt__ring *r = *rp;
    pt__cuerr e;
    int set;

    for (size_t k = 0; k < n; k++)
        v[k].stage = NULL;
    if (!r && !(r = *rp = make(t, v, n, s, batch)))
        return;
    if (r->off || (size_t)r->nk != n)
        return;
    if (s != r->stream) {
        /* The sets written on the other stream go back there; this one
         * writes none before that copy (and the ones before it) has read
         * them. */
        flush(r, NULL);
        if (r->last && cu->StreamWaitEvent)
            cu->StreamWaitEvent(s, r->last, 0);
        else if (r->last)
            cu->EventSynchronize(r->last);
        r->stream = s;
    }
    r->aimed = -1;
    if (r->unflushed == r->sets) /* no batch copied back, for a batch of a ring's size */
        flush(r, NULL);
    /* A set copied back on its own may be written again while its
     * batch's copy still reads it (and writes what it read over the
     * host copy): the replays wait for the batches' copies first. */
    if (r->overtook && r->last && cu->StreamWaitEvent)
        cu->StreamWaitEvent(s, r->last, 0);
    r->overtook = 0;
    /* A batch cut short (a report wanted its folds) leaves the rest of
     * its sets unused, so that each batch's sets stay in one run. */
    if (!r->unflushed && r->first % r->batch)
        r->first = (r->first + r->batch - 1) / r->batch * r->batch % r->sets;
    /* The set's last folds done first. Resolving them may copy back the
     * sets before it, which leaves first + unflushed where it is. */
    set = (r->first + r->unflushed) % r->sets;
    for (size_t k = 0; k < n; k++)
        if (ringed(&v[k]) && r->stage[(size_t)set * n + k].ring)
            free_stage(&r->stage[(size_t)set * n + k], v[k].recs);
    for (size_t k = 0; k < n; k++) {
        pt__captured *c = &v[k];
        pt__stage *st = &r->stage[(size_t)set * n + k];
        if (!ringed(c) || !st->ring || st->busy)
            continue;
        c->aimed.data = (long long *)(void *)(r->dev + (size_t)set * r->set_bytes + c->part);
        if (st->dropped) {
            /* Its last fold was dropped (pt_reset): zeroed as a reset
             * zeroes records, its header kept, and counted from 0. */
            pt__reset_part part = pt__reset_at(c->aimed.data, c->bytes);
            if ((e = cu->MemsetAsync(part.dst, 0, part.bytes, s)) != 0)
                pt__fail(t, PT_ECUDA, "pt_graph_launch(\"%s\"): zeroing a set of the ring whose "
                         "fold was dropped: %s; its next fold may find slots written twice",
                         c->title, pt__cuda_errstr(cu, e));
            if (st->seen.v)
                memset(st->seen.v, 0, (size_t)st->seen.n * sizeof *st->seen.v);
            st->seen.bad = 0;
            st->dropped = 0;
        }
        c->kp.args[c->nargs - 1] = &c->aimed;
        if ((e = cu->GraphExecKernelNodeSetParams(exec, c->node, &c->kp)) != 0) {
            snprintf(c->recs->ring_off, sizeof c->recs->ring_off,
                     "cudaGraphExecKernelNodeSetParams: error %d", (int)e);
            /* An exec instantiated from another graph refuses: the
             * kernel writes its records, copied on the stream from now
             * on, and counted from a reset (a replay behind ptkit's back
             * may have written them meanwhile). */
            c->node = NULL;
            (void)cu->GetLastError();
            if (pt_dev_reset(c->recs, s) == 0) {
                c->base = c->recs->reset_gen;
                c->fresh = 1;
            }
            continue;
        }
        st->busy = 1;
        st->unfilled = 1;
        st->copying = 0;
        c->stage = st;
        r->aimed = set;
        r->end[set] = NULL;
    }
}

void pt__ring_unaim(pt_timing *t, pt__ring *r, pt__captured *v, size_t n, void *exec,
                    const char *title)
{
    const pt__cuda_api *cu = pt__gpu_api(t);
    pt__cuerr e;

    for (size_t k = 0; r && k < n; k++) {
        pt__captured *c = &v[k];
        if (!c->stage || !c->stage->ring)
            continue;
        c->aimed.data = c->recs->data;
        if ((e = cu->GraphExecKernelNodeSetParams(exec, c->node, &c->kp)) != 0)
            pt__fail(t, PT_ECUDA, "pt_graph_launch(\"%s\"): pointing the kernel \"%s\" back at "
                     "its records: %s; a replay launched without pt_graph_launch would write "
                     "over a set of the ring a fold reads", title, c->title,
                     pt__cuda_errstr(cu, e));
    }
}

void pt__ring_after(pt__ring *r, int launched, int now, pt__cuevent after, pt__cuevent end)
{
    if (!r || r->off)
        return;
    /* A copy back meanwhile (a fold read early) took the sets before the
     * aimed one alone: it is still first + unflushed. */
    if (r->aimed >= 0 && launched) {
        r->unflushed++;
        r->end[r->aimed] = end;
    } else if (r->aimed >= 0) {
        /* Not launched: its set holds nothing a fold will read. */
        for (int k = 0; k < r->nk; k++)
            r->stage[(size_t)r->aimed * (size_t)r->nk + (size_t)k].unfilled = 0;
    }
    r->aimed = -1;
    if (r->unflushed >= r->batch || (now && r->unflushed))
        flush(r, after);
}

void pt__ring_free(pt__ring *r, pt__captured *v, size_t n)
{
    if (!r)
        return;
    /* The folds that read the sets run (or are dropped) first. */
    for (size_t k = 0; k < n; k++) {
        pt_dev_records *b = v[k].recs;
        if (b->fold_t)
            pt__queue_resolve_until(b->fold_t, &b->pending, 0);
    }
    if (r->stream && r->cu && !r->off)
        r->cu->StreamSynchronize(r->stream);
    if (r->side) {
        r->cu->StreamSynchronize(r->side);
        r->cu->StreamDestroy(r->side);
    }
    if (r->early) {
        r->cu->StreamSynchronize(r->early);
        r->cu->StreamDestroy(r->early);
    }
    for (int i = 0; r->soon && i < r->sets; i++)
        if (r->soon[i])
            r->cu->EventDestroy(r->soon[i]);
    free(r->soon);
    free(r->end);
    if (r->mark)
        r->cu->EventDestroy(r->mark);
    for (int i = 0; r->ev && i < r->sets; i++)
        if (r->ev[i])
            r->cu->EventDestroy(r->ev[i]);
    for (size_t i = 0; r->stage && i < (size_t)r->sets * (size_t)r->nk; i++)
        free(r->stage[i].seen.v);
    if (r->dev)
        r->cu->Free(r->dev);
    if (r->host)
        r->cu->FreeHost(r->host);
    free(r->ev);
    free(r->stage);
    free(r);
}
