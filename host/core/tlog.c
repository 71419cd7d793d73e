/* PT_TRACE's per-thread log (model.h's pt__tlog): chunks that grow
 * without copying. trace.c appends to it and gathers it. */
#define _DEFAULT_SOURCE 1 /* madvise(MADV_HUGEPAGE) */
#include "core/tlog.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Chunk sizes: the first holds 1024 events, each next twice the last, up
 * to TCHUNK_MAX bytes, allocated on a TCHUNK_MAX boundary and advised as
 * huge pages, so a long trace takes one page fault per 2 MiB instead of
 * one per 4 KiB. */
#define TCHUNK_FIRST 1024
#define TCHUNK_MAX ((size_t)2 << 20)
#define TCHUNK_EVENTS(bytes) (((bytes) - sizeof(pt__tchunk)) / sizeof(pt__tevent))

static pt__tchunk *chunk_new(size_t events)
{
    size_t bytes = sizeof(pt__tchunk) + events * sizeof(pt__tevent);
    pt__tchunk *c;

    if (bytes >= TCHUNK_MAX) {
        bytes = TCHUNK_MAX;
        c = aligned_alloc(TCHUNK_MAX, TCHUNK_MAX);
#ifdef MADV_HUGEPAGE
        if (c)
            (void)madvise(c, TCHUNK_MAX, MADV_HUGEPAGE); /* advice: ignored where refused */
#endif
    } else {
        c = malloc(bytes);
    }
    if (!c)
        return NULL;
    c->next = NULL;
    c->n = 0;
    c->cap = TCHUNK_EVENTS(bytes);
    return c;
}

size_t pt__tlog_bytes(size_t n)
{
    size_t bytes = 0, events = TCHUNK_FIRST;
    while (n > 0) {
        size_t b = sizeof(pt__tchunk) + events * sizeof(pt__tevent), k;
        b = b > TCHUNK_MAX ? TCHUNK_MAX : b;
        k = TCHUNK_EVENTS(b);
        bytes += b;
        n -= n < k ? n : k;
        events *= 2;
    }
    return bytes;
}

int pt__tlog_next(pt__tlog *l, size_t cap)
{
    size_t total = l->kept + l->n;
    pt__tchunk *c;

    if (total >= cap)
        return 0;
    c = l->cur ? l->cur->next : l->first;
    if (!c) {
        c = chunk_new(l->cur ? 2 * l->cur->cap : TCHUNK_FIRST);
        if (!c)
            return -1;
        if (l->cur)
            l->cur->next = c;
        else
            l->first = c;
    }
    if (l->cur) {
        l->cur->n = l->n;
        l->kept = total;
    }
    l->cur = c;
    l->ev = c->ev;
    l->n = 0;
    l->alloc = c->cap < cap - total ? c->cap : cap - total;
    return 1;
}

void pt__tlog_rewind(pt__tlog *l)
{
    l->ev = NULL;
    l->n = l->alloc = 0;
    l->cur = NULL;
    l->kept = 0;
    l->dropped = 0;
}

void pt__tlog_free(pt__tlog *l)
{
    pt__tchunk *c = l->first;
    while (c) {
        pt__tchunk *next = c->next;
        free(c);
        c = next;
    }
    l->first = NULL;
    pt__tlog_rewind(l);
}
