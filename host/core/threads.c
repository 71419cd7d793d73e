/* Threads. A timing belongs to the thread that created it, which records
 * into t->root; each other thread that starts a section gets a recorder
 * with its own stack and tree, found through a small cache in thread
 * local storage (four timings per thread), so start and stop take no lock
 * and share no cache line with another thread. A report pools the trees
 * into t->root by path.
 *
 * A recorder lives until the timing is destroyed, so each thread's part
 * stays its own. Past KEEP_THREADS recorders, a thread that starts after
 * another has exited is handed the exited thread's recorder, which keeps
 * memory bounded by the threads alive at once (their parts then pooled);
 * but only one left with no section open, and only once the exit is
 * known: threads are told apart by an identity that outlives them, never
 * by an address a new thread may get again, so a thread's open sections
 * end with it and stay in the report as open, never under a new
 * thread's work. */
#define _GNU_SOURCE /* syscall */
#include "core/threads.h"

#include "core/errors.h"
#include "core/gate.h"
#include "core/merge.h"
#include "core/tlog.h"
#include "core/tree.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

_Thread_local pt__thr_last pt__last __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

void pt__id_release(struct pt__id *id)
{
    if (id && atomic_fetch_sub(&id->refs, 1) == 1)
        free(id);
}

/* The thread is exiting: its identity is dead, and its own reference goes. */
static void thread_exit(void *p)
{
    struct pt__id *id = p;
    atomic_store(&id->dead, 1);
    pt__id_tls = NULL;
    pt__id_release(id);
}

static void exit_key_make(void)
{
    (void)pthread_key_create(&exit_key, thread_exit);
}

struct pt__id *pt__id_hold(void)
{
    struct pt__id *id = pt__id_tls;

    if (!id) {
        pthread_once(&exit_once, exit_key_make);
        id = calloc(1, sizeof *id);
        if (!id)
            return NULL;
        atomic_init(&id->refs, 1); /* the thread's own, until it exits */
        atomic_init(&id->dead, 0);
        if (pthread_setspecific(exit_key, id) != 0) {
            free(id);
            return NULL;
        }
        pt__id_tls = id;
    }
    atomic_fetch_add(&id->refs, 1);
    return id;
}

#define KEEP_THREADS 64

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

int pt__threads_init(pt_timing *t)
{
    pthread_mutexattr_t rec;

    t->owner = pt__id_hold();
    t->main.self = t->owner ? pt__id_hold() : NULL;
    t->serial = atomic_fetch_add(&next_serial, 1);
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_init(&t->err_lock, NULL);
    pthread_mutexattr_init(&rec);
    pthread_mutexattr_settype(&rec, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&t->gate_lock, &rec);
    pthread_mutexattr_destroy(&rec);
    t->main.root = &t->root;
    t->main.tid = pt__os_tid();
    return t->owner && t->main.self ? 0 : PT_ENOMEM;
}

static void thr_free(pt__thr *r)
{
    pt__id_release(r->self);
    pt__section_free_children(&r->own_root);
    pt__section_free_children(&r->part_root);
    pt__tlog_free(&r->tlog);
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
    free(t->marked);
    t->marked = NULL;
    pt__section_free_children(&t->merged_root);
    pt__tlog_free(&t->main.tlog);
    free(t->main.stack);
    pt__id_release(t->main.self);
    pt__id_release(t->owner);
    pthread_mutex_destroy(&t->lock);
    pthread_mutex_destroy(&t->err_lock);
    pthread_mutex_destroy(&t->gate_lock);
}

void pt__threads_reset(pt_timing *t)
{
    /* Under t->lock too: a thread's first start may meanwhile take over an
     * exited thread's recorder, reading its depth (pt__thr_other). */
    pthread_mutex_lock(&t->lock);
    for (pt__thr *r = t->threads; r; r = r->next) {
        pt__section_free_children(&r->own_root);
        pt__section_free_children(&r->part_root);
        r->reset_dropped += r->depth;
        r->depth = 0;
        r->nsections = 0;
        r->next_order = 0;
        r->stops = 0;
        r->changes = r->pooled = 0;
        r->busy_ns = 0;
        atomic_store_explicit(&r->top, NULL, memory_order_release);
    }
    pt__section_free_children(&t->merged_root);
    t->nmarked = 0; /* the sections are gone */
    t->main.reset_dropped += t->main.depth;
    t->main.depth = 0;
    t->main.nsections = 0;
    t->main.next_order = 0;
    t->main.stops = 0;
    t->main.busy_ns = 0;
    atomic_store_explicit(&t->main.top, NULL, memory_order_release);
    pthread_mutex_unlock(&t->lock);
}

pt__thr *pt__thr_other(pt_timing *t)
{
    struct pt__id *me;
    pt__thr *r;

    for (int i = 0; i < CACHE_WAYS; i++)
        if (cache.way[i].t == t && cache.way[i].serial == t->serial) {
            r = cache.way[i].r;
            goto found;
        }
    if (!(me = pt__id_hold()))
        return NULL;
    pthread_mutex_lock(&t->lock);
    for (r = t->threads; r; r = r->next)
        if (r->self == me)
            break;
    /* An exited thread's recorder with nothing open, else a new one. */
    for (pt__thr *d = t->threads; !r && t->nthreads >= KEEP_THREADS && d; d = d->next)
        if (atomic_load(&d->self->dead) && d->depth == 0) {
            pt__id_release(d->self);
            /* The dead thread's sections a reset dropped are not this one's. */
            d->reset_dropped = 0;
            d->self = me;
            me = NULL;
            r = d;
        }
    if (!r) {
        /* A cache line of its own, so threads never write to a shared one. */
        size_t size = (sizeof *r + 63) & ~(size_t)63;
        r = aligned_alloc(64, size);
        if (r) {
            memset(r, 0, size);
            _Atomic(pt__thr *) *at = &t->threads;
            while (*at)
                at = &(*at)->next;
            r->self = me;
            me = NULL;
            r->root = &r->own_root;
            r->own_root.name = t->name;
            r->own_root.name_len = strlen(t->name);
            r->own_root.key = t->name;
            r->part_root.name = r->own_root.name;
            r->part_root.name_len = r->own_root.name_len;
            r->part_root.key = t->name;
            r->index = t->nthreads + 1;
            /* Whole before it is linked, and linked before it is counted:
             * a walk that read the count finds as many in the list. */
            atomic_store_explicit(at, r, memory_order_release);
            atomic_store_explicit(&t->nthreads, r->index, memory_order_release);
        }
    }
    if (r)
        r->tid = pt__os_tid();
    pthread_mutex_unlock(&t->lock);
    pt__id_release(me); /* not kept: found, or no memory */
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

/* Marks t->root's counterparts of r's open frames open (open_else), so a
 * section open on another thread is marked in every report. The frames
 * are a chain down r's tree: each counterpart is found from the one
 * before, hashed. Under t->lock. */
static void mark_open(pt_timing *t, const pt__thr *r)
{
    const pt_section *at = &t->root;

    for (size_t i = 0; i < r->depth && at; i++) {
        const pt_section *s = r->stack[i].node;
        if (!s)
            continue;
        at = pt__child_of(at, s);
        if (!at)
            break;
        if (t->nmarked == t->marked_cap) {
            size_t cap = t->marked_cap ? t->marked_cap * 2 : 16;
            pt_section **v = realloc(t->marked, cap * sizeof *v);
            if (!v)
                return; /* the mark is lost, the figures are whole */
            t->marked = v;
            t->marked_cap = cap;
        }
        t->marked[t->nmarked++] = (pt_section *)at;
        ((pt_section *)at)->open_else++;
    }
}

void pt__threads_merge(pt_timing *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    while (t->nmarked > 0)
        t->marked[--t->nmarked]->open_else--;
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
    for (const pt__thr *r = t->threads; r; r = r->next)
        mark_open(t, r);
    pthread_mutex_unlock(&t->lock);
}

void pt__open_str(pt_timing *t, char *buf, size_t n)
{
    size_t used;

    pt__stack_str(&t->main, buf, n);
    used = t->main.depth ? strlen(buf) : 0; /* "(none)" only when no thread has any */
    pthread_mutex_lock(&t->lock);
    for (const pt__thr *r = t->threads; r && used + 1 < n; r = r->next) {
        char one[256];
        int w;
        if (r->depth == 0)
            continue;
        pt__stack_str(r, one, sizeof one);
        w = snprintf(buf + used, n - used, "%sthread %d%s: %s", used ? "; " : "", r->index,
                     atomic_load(&r->self->dead) ? " (exited)" : "", one);
        used = w < 0 ? n : used + (size_t)w;
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
    if (t->owner == pt__id_tls)
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
    pt__read_begin(t);
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
    pt__read_end(t);
    return r ? 0 : PT_ENOTFOUND;
}

/* A counterpart's figures; 0 where the tree lacks the section. */
static void figures_of(const pt_section *c, uint64_t *count, double *ns)
{
    *count = c ? c->count : 0;
    *ns = c ? c->total_ns : 0;
}

/* Thread i's part of s from the counterparts of s: cp[0] in the runs
 * merged in, cp[k] in the part of the k-th thread of the list, k < ncp (a
 * thread that arrived after cp was made has no part in it). */
static int part_from(pt_timing *t, const pt_section *s, int i, const pt_section *const *cp,
                     int ncp, pt_thread_part *out)
{
    uint64_t count = 0, c;
    double ns = 0, n;
    int found = 0, k = 1;

    memset(out, 0, sizeof *out);
    out->thread = i;
    if (i == PT_THREAD_MERGED) {
        figures_of(cp[0], &count, &ns);
        found = 1;
    } else if (i == 0) {
        /* The creating thread records into t->root itself: its part is
         * what the others and the merged runs did not bring. */
        count = s->count;
        ns = s->total_ns;
        figures_of(cp[0], &c, &n);
        count -= c < count ? c : count;
        ns -= n;
        for (const pt__thr *r = t->threads; r && k < ncp; r = r->next, k++) {
            figures_of(cp[k], &c, &n);
            count -= c < count ? c : count;
            ns -= n;
        }
        if (count == 0 || ns < 0) /* a sum's rounding, never a time */
            ns = 0;
        found = 1;
    } else {
        for (const pt__thr *r = t->threads; r && !found && k < ncp; r = r->next, k++)
            if (r->index == i) {
                figures_of(cp[k], &count, &ns);
                found = 1;
            }
    }
    if (!found)
        return PT_ENOTFOUND;
    out->count = count;
    out->total_ms = ns / 1e6;
    out->mean_ms = count ? out->total_ms / (double)count : 0;
    out->pct_section = s->total_ns > 0 ? 100.0 * ns / s->total_ns : 0;
    return 0;
}

/* The trees a part is read from: the runs merged in, then each thread's. */
static int part_trees(pt_timing *t)
{
    return t->nthreads + 1;
}

static const pt_section *part_root(pt_timing *t, int k)
{
    const pt__thr *r = t->threads;
    if (k == 0)
        return &t->merged_root;
    while (--k > 0)
        r = r->next;
    return &r->part_root;
}

int pt__section_part(pt_timing *t, const pt_section *s, int i, pt_thread_part *out)
{
    const pt_section *small[16] = { 0 }, **cp = small;
    int n, rc;

    pthread_mutex_lock(&t->lock);
    n = part_trees(t);
    if (n > 16 && !(cp = malloc((size_t)n * sizeof *cp))) {
        pthread_mutex_unlock(&t->lock);
        return PT_ENOMEM;
    }
    for (int k = 0; k < n; k++)
        cp[k] = pt__counterpart(part_root(t, k), s);
    rc = part_from(t, s, i, cp, n, out);
    pthread_mutex_unlock(&t->lock);
    if (cp != small)
        free(cp);
    return rc;
}

/* ---- every section's parts, in one walk -------------------------- */

int pt__parts_init(pt_timing *t, pt__parts *w)
{
    memset(w, 0, sizeof *w);
    w->t = t;
    /* A thread's first start may append to the list meanwhile: the count
     * is read first, and the list holds at least that many (threads.c's
     * append). One arriving later has nothing pooled yet, so no part of
     * this report. */
    w->ntrees = part_trees(t);
    w->roots = malloc((size_t)w->ntrees * sizeof *w->roots);
    w->here = malloc((size_t)w->ntrees * sizeof *w->here);
    if (!w->roots || !w->here) {
        pt__parts_free(w);
        return PT_ENOMEM;
    }
    for (int k = 0; k < w->ntrees; k++)
        w->roots[k] = part_root(t, k);
    return 0;
}

void pt__parts_free(pt__parts *w)
{
    free(w->roots);
    free(w->here);
    free(w->cp);
    memset(w, 0, sizeof *w);
}

int pt__parts_step(pt__parts *w, const pt_section *s)
{
    size_t d = (size_t)s->depth, nt = (size_t)w->ntrees;

    if (d >= w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        while (cap <= d)
            cap *= 2;
        const pt_section **v = realloc(w->cp, cap * nt * sizeof *v);
        if (!v)
            return PT_ENOMEM;
        w->cp = v;
        w->cap = cap;
        for (size_t k = 0; k < nt; k++)
            w->cp[k] = w->roots[k]; /* depth 0: the roots */
    }
    for (size_t k = 0; k < nt; k++) {
        w->cp[d * nt + k] = pt__child_of(w->cp[(d - 1) * nt + k], s);
        w->here[k] = w->cp[d * nt + k];
    }
    return 0;
}

int pt__parts_get(pt__parts *w, const pt_section *s, int i, pt_thread_part *out)
{
    return part_from(w->t, s, i, w->here, w->ntrees, out);
}

int pt_thread_part_get(pt_timing *t, const pt_section *s, int i, pt_thread_part *out)
{
    int rc;

    if (!out)
        return t ? pt__fail(t, PT_EINVAL, "pt_thread_part_get: NULL out") : PT_EINVAL;
    memset(out, 0, sizeof *out);
    out->thread = i;
    if (!t || !s || !s->parent || i < PT_THREAD_MERGED)
        return t ? pt__fail(t, PT_EINVAL, "pt_thread_part_get: %s",
                            !s || !s->parent ? "no section (NULL or the root)"
                                             : "thread index below PT_THREAD_MERGED")
                 : PT_EINVAL;
    pt__read_begin(t);
    pt__threads_merge(t);
    rc = pt__section_part(t, s, i, out);
    pt__read_end(t);
    return rc;
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
