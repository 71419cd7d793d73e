/* Threads (threads.c): each thread's recorder, its stack of open sections,
 * and how the threads' trees are pooled into the timing's. Not installed. */
#ifndef PT_CORE_THREADS_H
#define PT_CORE_THREADS_H

#include "core/model.h"

#include <stddef.h>
#include <stdlib.h>

/* The recorder this thread used last, for a timing it did not create:
 * the one lookup a start or stop on such a thread makes inline. */
typedef struct pt__thr_last {
    const pt_timing *t;
    uint64_t serial;          /* t's, so a new timing at a freed one's address misses */
    pt__thr *r;
} pt__thr_last;
PT__HIDDEN extern _Thread_local pt__thr_last pt__last __attribute__((tls_model("initial-exec")));
/* The calling thread's identity, made if needed, with a reference for the
 * caller; NULL without memory. */
PT__HIDDEN struct pt__id *pt__id_hold(void);
PT__HIDDEN void pt__id_release(struct pt__id *id);
/* The calling thread's recorder for t, created at its first use; NULL
 * without memory. */
PT__HIDDEN pt__thr *pt__thr_other(pt_timing *t);
/* The calling thread's recorder when it is found without a call: the
 * creating thread's, or the one this thread used last; else NULL. */
static inline pt__thr *pt__thr_fast(pt_timing *t)
{
    if (t->owner == pt__id_tls)
        return &t->main;
    if (pt__last.t == t && pt__last.serial == t->serial)
        return pt__last.r;
    return NULL;
}
static inline pt__thr *pt__thr_of(pt_timing *t)
{
    pt__thr *r = pt__thr_fast(t);
    return r ? r : pt__thr_other(t);
}

/* r's innermost open section for other threads to read. */
static inline void pt__thr_publish(pt__thr *r)
{
    atomic_store_explicit(&r->top, r->depth ? r->stack[r->depth - 1].node : NULL,
                          memory_order_release);
}

/* Opens a frame for node (NULL: a ghost, a start made while disabled) on
 * r's stack; its t0 is the caller's to set. 0, or PT_ENOMEM. */
static inline int pt__thr_push(pt__thr *r, pt_section *node)
{
    pt__frame *f;

    if (r->depth == r->stack_cap) {
        size_t cap = r->stack_cap ? r->stack_cap * 2 : 16;
        pt__frame *s = (pt__frame *)realloc(r->stack, cap * sizeof *s);
        if (!s)
            return PT_ENOMEM;
        r->stack = s;
        r->stack_cap = cap;
    }
    f = &r->stack[r->depth++];
    f->node = node;
    f->gpu = 0;
    f->pending = -1;
    if (node)
        node->open++;
    r->changes++;
    pt__thr_publish(r);
    return 0;
}

/* Closes r's innermost frame, node's, which lasted ns; inline, since
 * every stop does it. */
static inline void pt__stop_pop(pt__thr *r, pt_section *node, double ns)
{
    node->open--;
    r->depth--;
    pt__thr_publish(r);
    r->stops++;
    r->changes++;
    if (r->depth == 0)
        r->busy_ns += ns;
}

/* r's innermost real open section, or the root of its tree. */
static inline pt_section *pt__thr_top(const pt__thr *r)
{
    for (size_t i = r->depth; i > 0; i--)
        if (r->stack[i - 1].node)
            return r->stack[i - 1].node;
    return r->root;
}

/* The same for the creating thread. */
static inline pt_section *pt__top(const pt_timing *t)
{
    return pt__thr_top(&t->main);
}

/* The calling thread's OS id (gettid). */
PT__HIDDEN long pt__os_tid(void);

/* 0, or PT_ENOMEM (no identity for the creating thread). */
PT__HIDDEN int pt__threads_init(pt_timing *t);
PT__HIDDEN void pt__threads_free(pt_timing *t);
PT__HIDDEN void pt__threads_reset(pt_timing *t); /* pt_reset: empty every tree */
/* Pool every other thread's occurrences into t->root by path. Called by
 * the reports, when the threads are not timing. */
PT__HIDDEN void pt__threads_merge(pt_timing *t);
/* A thread other than r's that has title as its innermost open section:
 * its index, else -1. */
PT__HIDDEN int pt__threads_open_elsewhere(pt_timing *t, const pt__thr *r, const char *title);
/* pt_thread_part_get() for a timing whose threads are pooled already (a
 * report's, after pt__settle) and arguments known good: s a section of
 * t->root, i >= PT_THREAD_MERGED. */
PT__HIDDEN int pt__section_part(pt_timing *t, const pt_section *s, int i, pt_thread_part *out);
/* Every section's parts in one walk of t->root, depth first (any order
 * of siblings), each counterpart found from its parent's in constant
 * time: linear in the sections and the depth, where pt__section_part()
 * costs the section's depth. Step to each section, parents before
 * children, then read its parts. Threads pooled already, as above. */
typedef struct pt__parts {
    pt_timing *t;
    int ntrees;                   /* the runs merged in, then each thread's part */
    const pt_section **roots;
    const pt_section **cp;        /* counterparts by depth, ntrees a depth */
    const pt_section **here;      /* those of the section stepped to last */
    size_t cap;
} pt__parts;
PT__HIDDEN int pt__parts_init(pt_timing *t, pt__parts *w);
PT__HIDDEN int pt__parts_step(pt__parts *w, const pt_section *s);
PT__HIDDEN int pt__parts_get(pt__parts *w, const pt_section *s, int i, pt_thread_part *out);
PT__HIDDEN void pt__parts_free(pt__parts *w);
/* The open sections of every thread: the creating thread's stack as
 * pt__stack_str() writes it, then "; thread 2: a > b" for each other
 * thread with sections open ("(exited)" for one that ended with them). */
PT__HIDDEN void pt__open_str(pt_timing *t, char *buf, size_t n);
/* Open sections on every thread (frames opened while disabled aside). */
PT__HIDDEN size_t pt__open_count(pt_timing *t);
/* 0 on the creating thread, else PT_ETHREAD counted for the call fn. */
PT__HIDDEN int pt__owner_only(pt_timing *t, const char *fn);

#endif
