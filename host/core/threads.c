/* Threads. A timing belongs to the thread that created it, which records
 * into t->root; each other thread that starts a section gets a recorder
 * with its own stack and tree, found through a small cache in thread
 * local storage (four timings per thread), so start and stop take no lock
 * and share no cache line with another thread. A report pools the trees
 * into t->root by path.
 *
 * A recorder lives until the timing is destroyed. A thread that starts
 * after another has exited may be handed the exited thread's recorder
 * (they share the address of pt__me), which keeps memory bounded by the
 * threads alive at once. */
#define _GNU_SOURCE /* syscall */
#include "core/threads.h"

#include "core/errors.h"
#include "core/merge.h"
#include "core/tree.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

_Thread_local char pt__me __attribute__((tls_model("initial-exec")));
_Thread_local pt__thr_last pt__last __attribute__((tls_model("initial-exec")));

/* The recorders this thread used last, for a few timings at once. */
#define CACHE_WAYS 4
static _Thread_local struct {
    struct {
        const pt_timing *t;
        uint64_t serial;
        pt__thr *r;
    } way[CACHE_WAYS];
    unsigned next;
} cache __attribute__((tls_model("initial-exec")));

static atomic_uint_fast64_t next_serial = 1;

long pt__os_tid(void)
{
    return (long)syscall(SYS_gettid);
}

void pt__threads_init(pt_timing *t)
{
    t->owner = &pt__me;
    t->serial = atomic_fetch_add(&next_serial, 1);
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_init(&t->err_lock, NULL);
    t->main.root = &t->root;
    t->main.self = &pt__me;
    t->main.tid = pt__os_tid();
}

static void thr_free(pt__thr *r)
{
    pt__section_free_children(&r->own_root);
    pt__section_free_children(&r->part_root);
    free(r->tlog.ev);
    free(r->stack);
    free(r);
}

void pt__threads_free(pt_timing *t)
{
    pt__thr *r = t->threads;
    while (r) {
        pt__thr *n = r->next;
        thr_free(r);
        r = n;
    }
    t->threads = NULL;
    pt__section_free_children(&t->merged_root);
    free(t->main.tlog.ev);
    free(t->main.stack);
    pthread_mutex_destroy(&t->lock);
    pthread_mutex_destroy(&t->err_lock);
}

void pt__threads_reset(pt_timing *t)
{
    for (pt__thr *r = t->threads; r; r = r->next) {
        pt__section_free_children(&r->own_root);
        pt__section_free_children(&r->part_root);
        r->depth = 0;
        r->nsections = 0;
        r->next_order = 0;
        r->stops = 0;
        r->changes = r->pooled = 0;
        r->busy_ns = 0;
        atomic_store_explicit(&r->top, NULL, memory_order_release);
    }
    pt__section_free_children(&t->merged_root);
    t->main.depth = 0;
    t->main.nsections = 0;
    t->main.next_order = 0;
    t->main.stops = 0;
    t->main.busy_ns = 0;
    atomic_store_explicit(&t->main.top, NULL, memory_order_release);
}

pt__thr *pt__thr_other(pt_timing *t)
{
    pt__thr *r;

    for (int i = 0; i < CACHE_WAYS; i++)
        if (cache.way[i].t == t && cache.way[i].serial == t->serial) {
            r = cache.way[i].r;
            goto found;
        }
    pthread_mutex_lock(&t->lock);
    for (r = t->threads; r; r = r->next)
        if (r->self == &pt__me)
            break;
    if (!r) {
        /* A cache line of its own, so threads never write to a shared one. */
        size_t size = (sizeof *r + 63) & ~(size_t)63;
        r = aligned_alloc(64, size);
        if (r) {
            memset(r, 0, size);
            pt__thr **at = &t->threads;
            while (*at)
                at = &(*at)->next;
            *at = r;
            r->self = &pt__me;
            r->root = &r->own_root;
            r->own_root.name = t->name;
            r->own_root.name_len = strlen(t->name);
            r->own_root.key = t->name;
            r->part_root.name = r->own_root.name;
            r->part_root.name_len = r->own_root.name_len;
            r->part_root.key = t->name;
            r->index = ++t->nthreads;
        }
    }
    if (r)
        r->tid = pt__os_tid();
    pthread_mutex_unlock(&t->lock);
    if (r) {
        unsigned i = cache.next++ % CACHE_WAYS;
        cache.way[i].t = t;
        cache.way[i].serial = t->serial;
        cache.way[i].r = r;
    }
found:
    if (r)
        pt__last = (pt__thr_last){ t, t->serial, r };
    return r;
}

void pt__threads_merge(pt_timing *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    for (pt__thr *r = t->threads; r; r = r->next) {
        /* Nothing new since the last time: its tree holds only zeros. */
        if (r->changes == r->pooled)
            continue;
        r->pooled = r->changes;
        if (pt__merge_tree(t, &t->root, &r->own_root) < 0)
            pt__fail(t, PT_ENOMEM, "thread %d's sections: out of memory while merging; "
                     "some are missing from the report", r->index);
        if (pt__merge_aside(&r->part_root, &r->own_root) < 0)
            pt__fail(t, PT_ENOMEM, "thread %d's sections: out of memory while keeping its "
                     "part; the per-thread figures miss some", r->index);
        pt__clear_occurrences(&r->own_root);
    }
    pthread_mutex_unlock(&t->lock);
}

static int open_here(const pt__thr *r, const char *title)
{
    const pt_section *s = atomic_load_explicit(&r->top, memory_order_acquire);
    return s && strcmp(s->name, title) == 0;
}

int pt__threads_open_elsewhere(pt_timing *t, const pt__thr *self, const char *title)
{
    int found = -1;

    if (self != &t->main && open_here(&t->main, title))
        return 0;
    pthread_mutex_lock(&t->lock);
    for (const pt__thr *r = t->threads; r && found < 0; r = r->next)
        if (r != self && open_here(r, title))
            found = r->index;
    pthread_mutex_unlock(&t->lock);
    return found;
}

size_t pt__open_count(pt_timing *t)
{
    size_t n = 0;

    pthread_mutex_lock(&t->lock);
    for (const pt__thr *r = &t->main; r; r = r == &t->main ? t->threads : r->next)
        for (size_t i = 0; i < r->depth; i++)
            n += r->stack[i].node != NULL;
    pthread_mutex_unlock(&t->lock);
    return n;
}

int pt__owner_only(pt_timing *t, const char *fn)
{
    if (t->owner == &pt__me)
        return 0;
    return pt__fail(t, PT_ETHREAD,
                    "%s on a thread other than the one that created \"%s\": GPU sections, "
                    "folds and memory tracking belong to the creating thread", fn, t->name);
}

int pt_threads(pt_timing *t)
{
    int n;

    if (!t)
        return 0;
    pthread_mutex_lock(&t->lock);
    n = t->nthreads + 1;
    pthread_mutex_unlock(&t->lock);
    return n;
}

int pt_thread_get(pt_timing *t, int i, pt_thread_info *out)
{
    const pt__thr *r = NULL;

    if (!t || !out || i < 0)
        return PT_EINVAL;
    pthread_mutex_lock(&t->lock);
    if (i == 0) {
        r = &t->main;
    } else {
        for (r = t->threads; r && r->index != i; r = r->next)
            ;
    }
    if (r) {
        out->index = r->index;
        out->tid = r->tid;
        out->occurrences = r->stops;
        out->busy_ms = r->busy_ns / 1e6;
        out->open = r->depth;
    }
    pthread_mutex_unlock(&t->lock);
    return r ? 0 : PT_ENOTFOUND;
}

/* One tree's figures of s's path into out; 0 where the tree lacks it. */
static void part_of(const pt_section *root, const pt_section *s, uint64_t *count, double *ns)
{
    const pt_section *c = pt__counterpart(root, s);

    *count = c ? c->count : 0;
    *ns = c ? c->total_ns : 0;
}

int pt__section_part(pt_timing *t, const pt_section *s, int i, pt_thread_part *out)
{
    uint64_t count = 0;
    double ns = 0;
    int found = 0;

    memset(out, 0, sizeof *out);
    out->thread = i;
    pthread_mutex_lock(&t->lock);
    if (i == PT_THREAD_MERGED) {
        part_of(&t->merged_root, s, &count, &ns);
        found = 1;
    } else if (i == 0) {
        /* The creating thread records into t->root itself: its part is
         * what the others and the merged runs did not bring. */
        uint64_t c;
        double n;
        count = s->count;
        ns = s->total_ns;
        part_of(&t->merged_root, s, &c, &n);
        count -= c < count ? c : count;
        ns -= n;
        for (const pt__thr *r = t->threads; r; r = r->next) {
            part_of(&r->part_root, s, &c, &n);
            count -= c < count ? c : count;
            ns -= n;
        }
        if (count == 0 || ns < 0) /* a sum's rounding, never a time */
            ns = 0;
        found = 1;
    } else {
        for (const pt__thr *r = t->threads; r && !found; r = r->next)
            if (r->index == i) {
                part_of(&r->part_root, s, &count, &ns);
                found = 1;
            }
    }
    pthread_mutex_unlock(&t->lock);
    if (!found)
        return PT_ENOTFOUND;
    out->count = count;
    out->total_ms = ns / 1e6;
    out->mean_ms = count ? out->total_ms / (double)count : 0;
    out->pct_section = s->total_ns > 0 ? 100.0 * ns / s->total_ns : 0;
    return 0;
}

int pt_thread_part_get(pt_timing *t, const pt_section *s, int i, pt_thread_part *out)
{
    if (!out)
        return t ? pt__fail(t, PT_EINVAL, "pt_thread_part_get: NULL out") : PT_EINVAL;
    memset(out, 0, sizeof *out);
    out->thread = i;
    if (!t || !s || !s->parent || i < PT_THREAD_MERGED)
        return t ? pt__fail(t, PT_EINVAL, "pt_thread_part_get: %s",
                            !s || !s->parent ? "no section (NULL or the root)"
                                             : "thread index below PT_THREAD_MERGED")
                 : PT_EINVAL;
    pt__threads_merge(t);
    return pt__section_part(t, s, i, out);
}

/* The previous names, kept for one release (pt.h). */
int pt_thread_stats(pt_timing *t, int i, pt_thread_info *out)
{
    return pt_thread_get(t, i, out);
}

int pt_section_thread(pt_timing *t, const pt_section *s, int i, pt_thread_part *out)
{
    return pt_thread_part_get(t, s, i, out);
}
