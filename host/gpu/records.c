/* The records of a kernel's phases, on the host side (pt_dev_records):
 * the memory pt_dev.h's macros write, laid out as include/pt/pt_dev_buf.h
 * fixes it. pt_dev_arg() hands the kernel its view of them, pt_dev_buf.
 *
 * A buffer lives in device memory, or in host memory for host mode
 * (PT_DEV_HOST) and wherever there is no device to put it on; that
 * fallback is described once per timing, and such a buffer still folds
 * what the CPU side of pt_dev.h writes into it. The host writes the buffer
 * header once, at creation; pt_dev_reset() zeroes the records (and the bad
 * slot count) before each launch, on the launch's stream, and remembers
 * that stream for the fold's copy back.
 *
 * The fold copies records back into host copies the buffer keeps (up to
 * PT__STAGE_KEEP, PT__STAGE_MAX for a graph's batches of replays; pinned
 * where the runtime allows, so the copy stays asynchronous), one per fold
 * in flight, so a loop that launches and folds never waits for the
 * previous launch. */
#include "gpu/records.h"

#include "core/errors.h"
#include "core/strv.h"
#include "gpu/calibrate.h"
#include "gpu/gpu.h"
#include "gpu/queue.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pt__reduce_min_slots = 65536;

static const char *const unattributed = "(unattributed)";

static int check_names(pt_timing *t, int nphases, const char *const *names)
{
    if (!names)
        return 0;
    for (int p = 0; p < nphases; p++) {
        if (!names[p])
            return pt__fail(t, PT_EINVAL, "pt_dev_records_create: phase %d has a NULL name", p);
        if (strcmp(names[p], unattributed) == 0)
            return pt__fail(t, PT_EINVAL,
                            "pt_dev_records_create: phase %d is named \"%s\", the name of the rest of a launch",
                            p, unattributed);
        for (int q = 0; q < p; q++)
            if (strcmp(names[p], names[q]) == 0)
                return pt__fail(t, PT_EINVAL,
                                "pt_dev_records_create: phases %d and %d are both named \"%s\"", q, p,
                                names[p]);
    }
    return 0;
}

static int copy_names(pt_dev_records *b, const char *const *names)
{
    b->names = calloc((size_t)b->nphases, sizeof *b->names);
    if (!b->names)
        return -1;
    for (int p = 0; p < b->nphases; p++) {
        char tmp[32];
        const char *s = names ? names[p] : tmp;
        if (!names)
            snprintf(tmp, sizeof tmp, "phase %d", p);
        b->names[p] = malloc(strlen(s) + 1);
        if (!b->names[p])
            return -1;
        strcpy(b->names[p], s);
    }
    return 0;
}

static void free_buffer(pt_dev_records *b)
{
    const pt__cuda_api *cu = b->cu;
    for (int i = 0; i < PT__STAGE_MAX; i++) {
        pt__stage *s = &b->stage[i];
        if (s->ev) {
            /* A copy into it may still be under way (a fold dropped by
             * pt_reset): the memory must outlive it. */
            cu->EventSynchronize(s->ev);
            cu->EventDestroy(s->ev);
        }
        if (s->pinned)
            cu->FreeHost(s->host);
        else
            free(s->host);
    }
    if (b->data) {
        if (b->host)
            free(b->data);
        else
            cu->Free(b->data);
    }
    if (b->red_dev)
        cu->Free(b->red_dev);
    for (pt__sum_mem *m = b->sums, *n; m; m = n) {
        n = m->next;
        free(m);
    }
    if (b->spare)
        cu->FreeHost(b->spare);
    if (b->read_mark)
        cu->EventDestroy(b->read_mark);
    if (b->names)
        for (int p = 0; p < b->nphases; p++)
            free(b->names[p]);
    free(b->names);
    pt__strv_free(b->span_names, b->nspan_names);
    free(b->wait);
    free(b->seen.v);
    free(b);
}

/* The timing is being destroyed: the buffer outlives it and stops
 * reporting errors to it. */
static void detach(pt__gpu_dep *d, pt_timing *t)
{
    pt_dev_records *b = (pt_dev_records *)(void *)d;

    b->t = NULL;
    if (b->fold_t == t)
        b->fold_t = NULL;
}

/* Allocates b's memory for nslots records of its shape, zeroed, with the
 * buffer header written, and puts it in place of what b had (freed once
 * the new memory is there: a failure leaves b as it was). Returns 0 or
 * the error counted, described as `who`'s. */
static int place(pt_timing *t, pt_dev_records *b, int nslots, const char *who)
{
    long long hdr[PT_DEV_HDR] = { 0 };
    long long slot_words = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap);
    long long words;
    size_t bytes;
    void *p = NULL, *spare = NULL;

    if (nslots > 0 && (slot_words > (LLONG_MAX / 8 - PT_DEV_HDR) / nslots ||
                       (unsigned long long)PT_DEV_BUF_WORDS(nslots, b->nphases, b->trace_cap) >
                           SIZE_MAX / 8))
        return pt__fail(t, PT_ERANGE, "%s: %d slots of %lld words is too large", who, nslots,
                        slot_words);
    words = PT_DEV_BUF_WORDS(nslots, b->nphases, b->trace_cap);
    bytes = (size_t)words * sizeof(long long);
    pt__records_header(b, nslots, hdr);

    if (b->host) {
        p = calloc((size_t)words, sizeof(long long));
        if (!p)
            return pt__fail(t, PT_ENOMEM, "%s: %zu bytes of host memory", who, bytes);
        memcpy(p, hdr, sizeof hdr);
        free(b->data);
    } else {
        const pt__cuda_api *cu = b->cu;
        pt__cuerr e = cu->GetDevice(&b->device);
        const char *what = "cudaGetDevice";
        if (!e) {
            what = "cudaMalloc";
            e = cu->Malloc(&p, bytes);
        }
        if (!e) {
            what = "cudaMemsetAsync";
            e = cu->MemsetAsync(p, 0, bytes, NULL);
        }
        if (!e) {
            /* From pageable memory: the call returns once hdr is staged. */
            what = "cudaMemcpyAsync";
            e = cu->MemcpyAsync(p, hdr, sizeof hdr, PT__CU_MEMCPY_H2D, NULL);
        }
        if (!e) {
            /* The legacy default stream does not order work on the user's
             * non-blocking streams: wait here (not a hot path) so a reset
             * and launch right after can never be overtaken. */
            what = "cudaStreamSynchronize";
            e = cu->StreamSynchronize(NULL);
        }
        if (e) {
            int rc = pt__fail(t, PT_ECUDA, "%s(%d slots, %zu bytes): %s: %s", who, nslots, bytes,
                              what, pt__cuda_errstr(cu, e));
            if (p)
                cu->Free(p);
            return rc;
        }
        if (b->data)
            cu->Free(b->data);
        /* Where a CUDA graph's copy node writes between ptkit's replays
         * (graph.c): made here, outside any stream capture (an allocation
         * during one would break it), once, and kept with the records,
         * since a node may point at it. Records that outgrow it have no
         * copy node in graphs captured since. */
        if (!b->spare && nslots > 0 && nslots < pt__reduce_min_slots &&
            cu->MallocHost(&spare, bytes) == 0) {
            b->spare = spare;
            b->spare_bytes = bytes;
        }
    }
    b->data = p;
    b->nslots = b->cap_slots = nslots;
    b->words = words;
    return 0;
}

int pt_dev_records_spans(pt_dev_records *b, int n, const char *const *names)
{
    char **v;

    if (!b || n < 0 || n > 65536 || (n > 0 && !names))
        return b ? pt__fail(b->t, PT_EINVAL, "pt_dev_records_spans: %d kinds%s; 0 to 65536, "
                            "each named", n, n > 0 && !names ? " and no names" : "")
                 : PT_EINVAL;
    for (int k = 0; k < n; k++)
        if (!names[k])
            return pt__fail(b->t, PT_EINVAL, "pt_dev_records_spans: kind %d has a NULL name", k);
    if (!(v = pt__strv_dup(names, n)))
        return pt__fail(b->t, PT_ENOMEM, "pt_dev_records_spans: out of memory");
    pt__strv_free(b->span_names, b->nspan_names);
    b->span_names = v;
    b->nspan_names = n;
    return 0;
}

int pt_dev_records_waits(pt_dev_records *b, int n, const int *phases)
{
    unsigned char *w = NULL;

    if (!b || n < 0 || (n > 0 && !phases))
        return b ? pt__fail(b->t, PT_EINVAL, "pt_dev_records_waits: %d phases%s", n,
                            n > 0 && !phases ? " and no list" : "; 0 or more")
                 : PT_EINVAL;
    for (int k = 0; k < n; k++)
        if (phases[k] < 0 || phases[k] >= b->nphases)
            return pt__fail(b->t, PT_EINVAL, "pt_dev_records_waits: phase %d is not one of the "
                            "records' %d (0 to %d)", phases[k], b->nphases, b->nphases - 1);
    if (n > 0 && !(w = calloc((size_t)b->nphases, 1)))
        return pt__fail(b->t, PT_ENOMEM, "pt_dev_records_waits: out of memory");
    for (int k = 0; k < n; k++)
        w[phases[k]] = 1;
    free(b->wait);
    b->wait = w;
    return 0;
}

int pt_dev_records_sample(pt_dev_records *b, int every)
{
    if (!b || every < 1)
        return b ? pt__fail(b->t, PT_EINVAL, "pt_dev_records_sample: every is %d; 1 records "
                            "every slot, n one in n", every)
                 : PT_EINVAL;
    b->sample = every;
    return 0;
}

pt_dev_records *pt_dev_records_create(pt_timing *t, int nslots, int nphases,
                                    const char *const *names, unsigned flags, int trace_cap)
{
    pt_dev_records *b;
    pt__calib cal;

    if (!t)
        return NULL;
    if (flags & ~(unsigned)(PT_DEV_TRACE | PT_DEV_HOST | PT_DEV_WARP_SLOTS)) {
        pt__fail(t, PT_EINVAL, "pt_dev_records_create: unknown flags %#x", flags);
        return NULL;
    }
    if (nslots < 0 || nphases <= 0) {
        pt__fail(t, PT_EINVAL, "pt_dev_records_create: %d slots and %d phases; the slots must "
                 "be >= 0 (0: sized by the first PT_LAUNCH) and the phases > 0", nslots, nphases);
        return NULL;
    }
    if (!(flags & PT_DEV_TRACE)) {
        trace_cap = 0;
    } else if (trace_cap <= 0) {
        pt__fail(t, PT_EINVAL, "pt_dev_records_create: PT_DEV_TRACE with %d events per slot",
                 trace_cap);
        return NULL;
    }
    if (nphases >= PT_DEV_SHAPE_MAX || trace_cap >= PT_DEV_SHAPE_MAX) {
        pt__fail(t, PT_ERANGE,
                 "pt_dev_records_create: %d phases and %d events per slot; each must be below %d",
                 nphases, trace_cap, PT_DEV_SHAPE_MAX);
        return NULL;
    }
    if (check_names(t, nphases, names))
        return NULL;

    b = calloc(1, sizeof *b);
    if (!b) {
        pt__fail(t, PT_ENOMEM, "pt_dev_records_create: out of memory");
        return NULL;
    }
    b->nphases = nphases;
    if (copy_names(b, names) < 0) {
        free_buffer(b);
        pt__fail(t, PT_ENOMEM, "pt_dev_records_create: out of memory");
        return NULL;
    }
    b->t = t;
    b->fold_gen = -1;
    /* Host-mode records need no CUDA runtime: none is loaded for them. */
    b->cu = (flags & PT_DEV_HOST) ? NULL : pt__gpu_api(t);
    b->trace_cap = trace_cap;
    b->mode = (flags & PT_DEV_TRACE) ? PT_DEV_MODE_TRACE : PT_DEV_MODE_AGGREGATE;
    b->flags = flags;
    b->sample = 1;
    b->device = -1;
    b->host = (flags & PT_DEV_HOST) != 0;
    if (!b->host && !pt__gpu_device(t)) {
        /* No device: no kernel can run, so host memory harms nothing and
         * keeps host-mode code (and the fold) working. */
        pt__gpu_note_host_fallback(t, NULL);
        b->host = b->fallback = 1;
        b->flags |= PT_DEV_HOST;
    }
    if (place(t, b, nslots, "pt_dev_records_create") != 0) {
        free_buffer(b);
        return NULL;
    }
    /* Calibrate now, once per device per process, rather than inside a
     * fold the user is timing. A device buffer that fell back to host
     * memory keeps its runtime (the host calibration uses none). */
    pt__calib_get(b->cu, b->device, &cal);
    b->dep.detach = detach;
    if (pt__gpu_link(t, &b->dep) < 0)
        b->t = NULL; /* errors on it are then only returned */
    return b;
}

pt__reset_part pt__reset_at(long long *data, size_t bytes)
{
    /* The bad slots' count and the largest of them end the header. */
    return (pt__reset_part){ data + PT_DEV_H_BAD_SLOT,
                             bytes - PT_DEV_H_BAD_SLOT * sizeof(long long) };
}

pt__reset_part pt__reset_of(const pt_dev_records *b)
{
    return pt__reset_at(b->data, (size_t)b->words * sizeof(long long));
}

long long pt__launch_slots(pt_dev_records *b, long long blocks, long long threads)
{
    long long n = blocks;

    if (b->flags & PT_DEV_WARP_SLOTS)
        n = threads > 0 && blocks <= LLONG_MAX / ((threads + 31) / 32)
            ? blocks * ((threads + 31) / 32) : -1;
    if (blocks <= 0 || threads <= 0 || n <= 0 || n > INT_MAX)
        return -1;
    /* A sampled kernel writes the slots of one block (or warp) in sample. */
    b->grid_slots = n;
    return b->sample > 1 ? (n + b->sample - 1) / b->sample : n;
}

int pt__records_grow(pt_timing *t, pt_dev_records *b, int nslots)
{
    if (nslots <= b->cap_slots)
        return 0;
    /* A fold in flight reads the records at their present size. */
    if (b->pending && b->fold_t)
        pt__queue_resolve_until(b->fold_t, &b->pending, 0);
    return place(t, b, nslots, "PT_LAUNCH: growing the records");
}

pt_dev_buf pt_dev_arg(const pt_dev_records *b)
{
    pt_dev_buf a;
    memset(&a, 0, sizeof a);
    if (!b)
        return a;
    a.data = b->data;
    a.nslots = b->nslots;
    a.nphases = b->nphases;
    a.trace_cap = b->trace_cap;
    a.mode = b->mode;
    return a;
}

pt__cuerr pt__records_await_read(pt_dev_records *b, pt_stream stream)
{
    pt__cuevent ev = b->read_ev;
    pt__cuerr e;
    int capturing = 0;

    if (!(ev || b->read_in_graph) || b->read_stream == stream)
        return 0;
    if (b->cu->StreamIsCapturing && b->cu->StreamIsCapturing(stream, &capturing) != 0)
        capturing = 0;
    if (capturing)
        return 0;
    if (!ev) {
        /* A graph's replay read them, with no event of its own: mark the
         * read's stream now, behind the replay. */
        if (!b->read_mark &&
            (e = b->cu->EventCreateWithFlags(&b->read_mark, PT__CU_EVENT_DISABLE_TIMING)) != 0) {
            b->read_mark = NULL;
            return e;
        }
        if ((e = b->cu->EventRecord(b->read_mark, b->read_stream)) != 0)
            return e;
        ev = b->read_ev = b->read_mark;
        b->read_in_graph = 0;
    }
    return b->cu->StreamWaitEvent ? b->cu->StreamWaitEvent(stream, ev, 0)
                                  : b->cu->EventSynchronize(ev);
}

int pt_dev_reset(pt_dev_records *b, pt_stream stream)
{
    pt__reset_part part;
    pt__cuerr e;

    if (!b)
        return 0;
    part = pt__reset_of(b);
    b->stream = stream;
    b->reset_gen++;
    if (b->host) {
        /* Folds waiting for a launch read their own copy, so the records
         * may be cleared under them. */
        memset(part.dst, 0, part.bytes);
        return 0;
    }
    if ((e = pt__records_await_read(b, stream)) != 0)
        return pt__fail(b->t, PT_ECUDA, "pt_dev_reset: waiting for a fold's read of the "
                        "records on another stream: %s; nothing reset",
                        pt__cuda_errstr(b->cu, e));
    e = b->cu->MemsetAsync(part.dst, 0, part.bytes, stream);
    if (e)
        return pt__fail(b->t, PT_ECUDA, "pt_dev_reset: cudaMemsetAsync: %s",
                        pt__cuda_errstr(b->cu, e));
    return 0;
}

void pt_dev_records_free(pt_dev_records *b)
{
    if (!b)
        return;
    if (b->pending && b->fold_t)
        pt__queue_resolve_until(b->fold_t, &b->pending, 0);
    pt__gpu_unlink(b->t, &b->dep);
    free_buffer(b);
}

void pt__records_header(const pt_dev_records *b, long long nslots, long long hdr[PT_DEV_HDR])
{
    memset(hdr, 0, PT_DEV_HDR * sizeof *hdr);
    hdr[PT_DEV_H_MAGIC] = PT_DEV_MAGIC;
    hdr[PT_DEV_H_LAYOUT] = PT_DEV_LAYOUT;
    hdr[PT_DEV_H_NSLOTS] = nslots;
    hdr[PT_DEV_H_NPHASES] = b->nphases;
    hdr[PT_DEV_H_TRACE_CAP] = b->trace_cap;
    hdr[PT_DEV_H_MODE] = b->mode;
}

/* ---- host copies for folds --------------------------------------- */

static int stage_alloc(pt_dev_records *b, pt__stage *s, size_t bytes)
{
    void *p = NULL;

    if (s->bytes >= bytes)
        return 0;
    if (s->pinned)
        b->cu->FreeHost(s->host);
    else
        free(s->host);
    s->host = NULL;
    s->bytes = 0;
    s->pinned = 0;
    /* Pinned memory keeps a device-to-host copy asynchronous; pageable
     * memory still works, the copy then returns when it is done. */
    if (!b->host && b->cu->MallocHost(&p, bytes) == 0 && p) {
        s->pinned = 1;
    } else {
        p = malloc(bytes);
        if (!p)
            return PT_ENOMEM;
    }
    s->host = p;
    s->bytes = bytes;
    return 0;
}

int pt__stage_get(pt_timing *t, pt_dev_records *b, size_t bytes, pt__stage **out)
{
    pt__stage *s = NULL;
    int n = b->stages > 0 && b->stages <= PT__STAGE_MAX ? b->stages : PT__STAGE_KEEP;

    *out = NULL;
    for (int pass = 0; pass < 2 && !s; pass++) {
        for (int i = 0; i < n; i++) {
            if (!b->stage[i].busy && (!s || b->stage[i].bytes > s->bytes))
                s = &b->stage[i];
        }
        /* All copies are in use by folds in flight: resolve the oldest. */
        if (!s && b->fold_t)
            pt__queue_resolve_until(b->fold_t, &b->pending, n - 1);
    }
    if (!s)
        return pt__fail(t, PT_ESTATE, "pt_dev_fold: every host copy of the buffer is in use");
    if (s->ev && s->copying)
        b->cu->EventSynchronize(s->ev);
    s->copying = 0;
    if (stage_alloc(b, s, bytes) < 0)
        return pt__fail(t, PT_ENOMEM, "pt_dev_fold: %zu bytes for the copy of the records", bytes);
    if (!b->host && !s->ev) {
        pt__cuerr e = b->cu->EventCreateWithFlags(&s->ev, PT__CU_EVENT_DISABLE_TIMING);
        if (e) {
            s->ev = NULL;
            return pt__fail(t, PT_ECUDA, "pt_dev_fold: cudaEventCreateWithFlags: %s",
                            pt__cuda_errstr(b->cu, e));
        }
    }
    s->busy = 1;
    *out = s;
    return 0;
}

/* The previous names, kept for one release (pt.h). */
pt_dev_records *pt_dev_buffer_create(pt_timing *t, int nslots, int nphases,
                                     const char *const *names, unsigned flags, int trace_cap)
{
    return pt_dev_records_create(t, nslots, nphases, names, flags, trace_cap);
}

void pt_dev_buffer_free(pt_dev_records *b)
{
    pt_dev_records_free(b);
}
