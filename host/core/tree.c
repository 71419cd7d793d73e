/* The section tree: create, start, stop, metrics, lookup, walk, reset.
 *
 * The hot path is pt__start/pt__stop with a title seen before. A parent
 * remembers the child found last and each child remembers the caller's
 * pointer for its title, so a string literal seen before costs a pointer
 * compare and a short strcmp (the strcmp keeps a reused buffer holding a
 * new title from being taken for the old one). Parents with many children
 * also keep a hash table. A section aggregates its occurrences (Welford):
 * memory grows with distinct sections, never with occurrences. */
#include "core/timing.h"

#include <float.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PT__TAB_MIN_CHILDREN 8

const char *pt_version(void)
{
#define PT__STR2(x) #x
#define PT__STR(x) PT__STR2(x)
    return PT__STR(PT_VERSION_MAJOR) "." PT__STR(PT_VERSION_MINOR) "." PT__STR(PT_VERSION_PATCH);
}

static uint64_t hash_title(const char *s, size_t *len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    const char *p = s;
    for (; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 1099511628211ull;
    }
    *len = (size_t)(p - s);
    return h;
}

static char *dup_str(const char *s, size_t len)
{
    char *d = malloc(len + 1);
    if (d)
        memcpy(d, s, len + 1);
    return d;
}

/* ---- life cycle -------------------------------------------------- */

static void root_init(pt_timing *t)
{
    memset(&t->root, 0, sizeof t->root);
    t->root.name = t->name;
    t->root.name_len = strlen(t->name);
    t->root.key = t->name;
}

pt_timing *pt_create(const char *name, unsigned flags)
{
    /* Aligned as its cache-line-aligned members ask. */
    size_t size = (sizeof(pt_timing) + 63) & ~(size_t)63;
    pt_timing *t = aligned_alloc(64, size);
    if (!t)
        return NULL;
    memset(t, 0, size);
    if (!name)
        name = "ptkit";
    t->name = dup_str(name, strlen(name));
    if (!t->name) {
        free(t);
        return NULL;
    }
    t->flags = flags;
    t->enabled = 1;
    root_init(t);
    pt__threads_init(t);
    pt__clock_init(t);
    t->dev_clock.device = -1;
    if (((flags & PT_TRACE) && pt__trace_init(t) < 0) || ((flags & PT_NVTX) && pt__nvtx_init(t) < 0)) {
        pt_destroy(t);
        return NULL;
    }
    return t;
}

static void free_node(pt_section *s)
{
    pt__section_free_children(s);
    if (s->phase)
        free(s->phase->sm_ns);
    free(s->phase);
    free(s->heat);
    free(s->name);
    free(s);
}

void pt__section_free_children(pt_section *s)
{
    pt_section *c = s->child;
    while (c) {
        pt_section *n = c->next;
        free_node(c);
        c = n;
    }
    free(s->tab);
    s->tab = NULL;
    s->tab_cap = 0;
    s->child = s->last_child = s->hot = NULL;
    s->nchildren = 0;
}

static void forget_default(pt_timing *t);

void pt_destroy(pt_timing *t)
{
    if (!t)
        return;
    forget_default(t);
    pt__gpu_free(t);
    pt__memory_free(t);
    pt__trace_free(t);
    pt__nvtx_free(t);
    pt__sched_free(t);
    pt__section_free_children(&t->root);
    pt__threads_free(t);
    free(t->name);
    free(t);
}

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static pt_timing *default_timing;

pt_timing *pt_default(void)
{
    pt_timing *t;
    pthread_mutex_lock(&default_lock);
    if (!default_timing)
        default_timing = pt_create("ptkit", PT_CPU);
    t = default_timing;
    pthread_mutex_unlock(&default_lock);
    return t;
}

/* pt_destroy(pt_default()) must not leave a dangling default, and the
 * default is freed when the program ends so leak checkers stay quiet. */
static void forget_default(pt_timing *t)
{
    pthread_mutex_lock(&default_lock);
    if (default_timing == t)
        default_timing = NULL;
    pthread_mutex_unlock(&default_lock);
}

__attribute__((destructor)) static void default_at_exit(void)
{
    pthread_mutex_lock(&default_lock);
    pt_timing *t = default_timing;
    default_timing = NULL;
    pthread_mutex_unlock(&default_lock);
    pt_destroy(t);
}

/* A schedule (schedule.c) also turns recording off between its active
 * steps; both go through `enabled`, so the hot path tests one word. */
void pt_disable(pt_timing *t)
{
    if (t) {
        t->user_off = 1;
        t->enabled = 0;
    }
}

void pt_enable(pt_timing *t)
{
    if (t) {
        t->user_off = 0;
        t->enabled = pt__sched_records(t);
    }
}

int pt_enabled(const pt_timing *t)
{
    return t ? t->enabled : 0;
}

const char *pt_name(const pt_timing *t)
{
    return t ? t->name : "";
}

void pt_reset(pt_timing *t)
{
    if (!t)
        return;
    pt__gpu_reset(t);
    pt__trace_clear(t);
    pt__nvtx_forget(t);
    pt__section_free_children(&t->root);
    root_init(t);
    pt__threads_reset(t);
    t->errors = 0;
    memset(t->errors_of, 0, sizeof t->errors_of);
    t->last_error[0] = '\0';
    t->gpu_fallback = 0;
    t->dropped = 0;
}

/* ---- children ---------------------------------------------------- */

static int tab_insert(pt_section *p, pt_section *c)
{
    size_t mask = p->tab_cap - 1, i = (size_t)c->hash & mask;
    while (p->tab[i])
        i = (i + 1) & mask;
    p->tab[i] = c;
    return 0;
}

static int tab_grow(pt_section *p)
{
    size_t cap = p->tab_cap ? p->tab_cap * 2 : 32;
    pt_section **tab = calloc(cap, sizeof *tab);
    if (!tab)
        return PT_ENOMEM;
    free(p->tab);
    p->tab = tab;
    p->tab_cap = cap;
    for (pt_section *c = p->child; c; c = c->next)
        tab_insert(p, c);
    return 0;
}

static pt_section *find_by_content(const pt_section *p, const char *title,
                                   uint64_t h, size_t len)
{
    if (p->tab) {
        size_t mask = p->tab_cap - 1;
        for (size_t i = (size_t)h & mask; p->tab[i]; i = (i + 1) & mask) {
            pt_section *c = p->tab[i];
            if (c->hash == h && c->name_len == len && memcmp(c->name, title, len) == 0)
                return c;
        }
        return NULL;
    }
    for (pt_section *c = p->child; c; c = c->next)
        if (c->hash == h && c->name_len == len && memcmp(c->name, title, len) == 0)
            return c;
    return NULL;
}

/* The caller's pointer matches and so does the text. The text is still
 * compared, inline, because a reused buffer may hold a new title. */
static inline int same_title(const pt_section *c, const char *title)
{
    const char *a = c->name, *b = title;
    if (c->key != title)
        return 0;
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

pt_section *pt__child_in(pt__thr *r, pt_section *p, const char *title)
{
    pt_section *c = p->hot;
    size_t len;
    uint64_t h;

    if (c && same_title(c, title))
        return c;
    if (!p->tab) {
        for (c = p->child; c; c = c->next)
            if (same_title(c, title))
                goto found;
    }
    h = hash_title(title, &len);
    c = find_by_content(p, title, h, len);
    if (c) {
        c->key = title;
        goto found;
    }

    c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->name = dup_str(title, len);
    if (!c->name) {
        free(c);
        return NULL;
    }
    c->name_len = len;
    c->hash = h;
    c->key = title;
    c->parent = p;
    c->depth = p->depth + 1;
    c->order = r->next_order++;
    if (p->last_child)
        p->last_child->next = c;
    else
        p->child = c;
    p->last_child = c;
    p->nchildren++;
    r->nsections++;
    if (p->tab && p->nchildren * 2 <= p->tab_cap)
        tab_insert(p, c);
    else if (p->nchildren > PT__TAB_MIN_CHILDREN)
        tab_grow(p); /* on failure the list scan still finds every child */
found:
    p->hot = c;
    return c;
}

pt_section *pt__child(pt_timing *t, pt_section *p, const char *title)
{
    return pt__child_in(&t->main, p, title);
}

static pt_section *top_of(const pt__thr *r)
{
    for (size_t i = r->depth; i > 0; i--)
        if (r->stack[i - 1].node)
            return r->stack[i - 1].node;
    return r->root;
}

pt_section *pt__top(const pt_timing *t)
{
    return top_of(&t->main);
}

const pt_section *pt__counterpart(const pt_section *root, const pt_section *s)
{
    const pt_section *p;

    if (!s->parent)
        return root;
    p = pt__counterpart(root, s->parent);
    return p ? find_by_content(p, s->name, s->hash, s->name_len) : NULL;
}

/* ---- occurrences and metrics ------------------------------------- */

static inline int metrics_empty(const pt_metrics *m)
{
    return !m || (m->read == 0 && m->written == 0 && m->flops == 0);
}

static int metric_ok(double v)
{
    return isfinite(v) && v >= 0;
}

int pt__check_metrics(pt_timing *t, const pt_metrics *m, const char *where)
{
    if (metrics_empty(m))
        return 0;
    if (!metric_ok(m->read) || !metric_ok(m->written) || !metric_ok(m->flops))
        return pt__fail(t, PT_ERANGE,
                        "%s: metrics must be finite and >= 0 (read=%g written=%g flops=%g); ignored",
                        where, m->read, m->written, m->flops);
    return 0;
}

/* a + b held at the largest double: *sat set when it had to be. */
static double sat_add(double a, double b, int *sat)
{
    double v = a + b;
    if (v > DBL_MAX) {
        *sat = 1;
        return DBL_MAX;
    }
    return v;
}

int pt__add_metrics(pt_timing *t, pt_section *s, const pt_metrics *m, const char *where)
{
    int rc, sat = 0;

    if (metrics_empty(m))
        return 0;
    rc = pt__check_metrics(t, m, where);
    if (rc)
        return rc;
    s->read = sat_add(s->read, m->read, &sat);
    s->written = sat_add(s->written, m->written, &sat);
    s->flops = sat_add(s->flops, m->flops, &sat);
    if (sat)
        return pt__fail(t, PT_ERANGE,
                        "%s(\"%s\"): its bytes or FLOPS pass the largest double with read=%g "
                        "written=%g flops=%g; held at %g (saturated)",
                        where, s->name, m->read, m->written, m->flops, DBL_MAX);
    return 0;
}

/* ---- start / stop ------------------------------------------------ */

static inline void publish_top(pt__thr *r)
{
    atomic_store_explicit(&r->top, r->depth ? r->stack[r->depth - 1].node : NULL,
                          memory_order_release);
}

static inline int push(pt__thr *r, pt_section *node)
{
    if (r->depth == r->stack_cap) {
        size_t cap = r->stack_cap ? r->stack_cap * 2 : 16;
        pt__frame *s = realloc(r->stack, cap * sizeof *s);
        if (!s)
            return PT_ENOMEM;
        r->stack = s;
        r->stack_cap = cap;
    }
    pt__frame *f = &r->stack[r->depth++];
    f->node = node;
    f->gpu = 0;
    f->pending = -1;
    if (node)
        node->open++;
    r->changes++;
    publish_top(r);
    return 0;
}

static inline void pop(pt__thr *r)
{
    r->depth--;
    publish_top(r);
}

/* pt__start and pt__stop test for NULL before anything else, so a NULL
 * timing costs a call and a branch, not the body's register saves. */
__attribute__((noinline)) static int start(pt_timing *t, const char *title, const pt_metrics *m)
{
    pt_section *node;
    pt__thr *r;
    int rc = 0;

    r = pt__thr_of(t);
    if (!r)
        return pt__fail(t, PT_ENOMEM, "pt_start(\"%s\"): no memory for this thread's sections",
                        title ? title : "(null)");
    if (!t->enabled) {
        if (push(r, NULL) < 0)
            return pt__fail(t, PT_ENOMEM, "pt_start(\"%s\"): stack", title ? title : "(null)");
        return 0;
    }
    if (!title)
        return pt__fail(t, PT_EINVAL, "pt_start: NULL title");
    node = pt__child_in(r, top_of(r), title);
    if (!node || push(r, node) < 0)
        return pt__fail(t, PT_ENOMEM, "pt_start(\"%s\"): out of memory", title);
    if (!metrics_empty(m)) /* the common case costs no call */
        rc = pt__add_metrics(t, node, m, "pt_start");
    node->kind = PT__K_CPU;
    if (t->hooks)
        pt__hooks_start(t, node);
    /* Read the clock last, so the bookkeeping above is not in the section. */
    r->stack[r->depth - 1].t0 = pt__now(t);
    return rc;
}

int pt__start(pt_timing *t, const char *title, const pt_metrics *m)
{
    return t ? start(t, title, m) : 0;
}

/* A stop whose title is not open on its own thread: if it is another
 * thread's innermost section, say so (PT_ETHREAD) rather than calling
 * it a stop without a start. */
static int other_thread(pt_timing *t, const pt__thr *r, const char *title, const char *fn)
{
    int at = pt__threads_open_elsewhere(t, r, title);
    if (at < 0)
        return 0;
    return pt__fail(t, PT_ETHREAD,
                    "%s(\"%s\") on thread %d, but \"%s\" was started on thread %d and is open "
                    "there; a section stops on the thread that started it", fn, title, r->index,
                    title, at);
}

/* Checks that r's open frame may be closed by a stop of `title`. Returns
 * 0 and the frame, 1 for a ghost frame to pop silently, or an error. */
int pt__stop_check(pt_timing *t, pt__thr *r, const char *title, const char *fn, pt__frame **out)
{
    char stack[256];
    pt__frame *f;
    int rc;

    if (r->depth == 0) {
        if (!t->enabled)
            return 1;
        if (title && (rc = other_thread(t, r, title, fn)) < 0)
            return rc;
        return pt__fail(t, PT_ENOSTART, "%s(\"%s\") with no section open", fn,
                        title ? title : "(null)");
    }
    f = &r->stack[r->depth - 1];
    if (!f->node) {
        pop(r);
        return 1;
    }
    if (!title)
        return pt__fail(t, PT_EINVAL, "%s: NULL title", fn);
    if (strcmp(f->node->name, title) != 0) {
        if ((rc = other_thread(t, r, title, fn)) < 0)
            return rc;
        pt__stack_str(r, stack, sizeof stack);
        return pt__fail(t, PT_EMISMATCH, "%s(\"%s\") but the open section is \"%s\" (open: %s)",
                        fn, title, f->node->name, stack);
    }
    *out = f;
    return 0;
}


__attribute__((noinline)) static int stop(pt_timing *t, const char *title, const pt_metrics *m)
{
    int64_t now;
    pt__frame *f;
    pt_section *node;
    pt__thr *r;
    double ns;
    int rc;

    now = pt__now(t);
    r = pt__thr_of(t);
    if (!r)
        return pt__fail(t, PT_ENOMEM, "pt_stop(\"%s\"): no memory for this thread's sections",
                        title ? title : "(null)");
    /* The common case first: the open section, stopped by the same
     * pointer that started it. Everything else goes through the checks. */
    f = r->depth ? &r->stack[r->depth - 1] : NULL;
    if (!f || !f->node || !same_title(f->node, title)) {
        rc = pt__stop_check(t, r, title, "pt_stop", &f);
        if (rc)
            return rc > 0 ? 0 : rc;
    }
    node = f->node;
    if (f->gpu)
        return pt__fail(t, PT_EMISMATCH,
                        "pt_stop(\"%s\"): it was opened by pt_start_gpu; close it with pt_stop_gpu",
                        title);
    ns = (double)(now - f->t0) * t->ns_per_tick;
    pt__record(node, ns);
    if (t->hooks)
        pt__hooks_stop(t, node, f->t0, now, 0);
    pt__stop_pop(r, node, ns);
    return metrics_empty(m) ? 0 : pt__add_metrics(t, node, m, "pt_stop");
}

int pt__stop(pt_timing *t, const char *title, const pt_metrics *m)
{
    return t ? stop(t, title, m) : 0;
}

/* The calling thread's innermost open section; NULL with none, or inside
 * a start made while disabled (*ghost set). */
static pt_section *open_node(pt_timing *t, int *ghost)
{
    pt__thr *r = pt__thr_of(t);
    *ghost = 0;
    if (!r || !r->depth)
        return NULL;
    *ghost = r->stack[r->depth - 1].node == NULL;
    r->changes++; /* metrics are about to be added */
    return r->stack[r->depth - 1].node;
}

int pt__add(pt_timing *t, const pt_metrics *m)
{
    pt_section *node;
    int ghost;

    if (!t)
        return 0;
    node = open_node(t, &ghost);
    if (ghost)
        return 0; /* inside a start made while disabled */
    if (!node)
        return t->enabled ? pt__fail(t, PT_ENOSTART, "pt_add with no section open") : 0;
    return pt__add_metrics(t, node, m, "pt_add");
}

int pt_transfer(pt_timing *t, double bytes, unsigned dir)
{
    pt_section *node;
    int i, ghost, sat = 0;

    if (!t)
        return 0;
    switch (dir) {
    case PT_H2D: i = 0; break;
    case PT_D2H: i = 1; break;
    case PT_D2D: i = 2; break;
    default:
        return pt__fail(t, PT_EINVAL,
                        "pt_transfer: direction %#x is not exactly one of PT_H2D, PT_D2H, PT_D2D", dir);
    }
    if (!metric_ok(bytes))
        return pt__fail(t, PT_ERANGE, "pt_transfer: bytes must be finite and >= 0 (%g); ignored",
                        bytes);
    node = open_node(t, &ghost);
    if (ghost)
        return 0;
    if (!node)
        return t->enabled ? pt__fail(t, PT_ENOSTART, "pt_transfer with no section open") : 0;
    node->xfer[i] = sat_add(node->xfer[i], bytes, &sat);
    if (sat)
        return pt__fail(t, PT_ERANGE, "pt_transfer(%g bytes) in \"%s\": the bytes pass the largest "
                        "double; held at %g (saturated)", bytes, node->name, DBL_MAX);
    return 0;
}

/* ---- walking and lookup ------------------------------------------ */

/* The walkers take a const timing, but the sections other threads timed
 * join its tree first, as for every report. */
const pt_section *pt_root(const pt_timing *t)
{
    if (!t)
        return NULL;
    pt__threads_merge((pt_timing *)t);
    return &t->root;
}

const pt_section *pt_section_child(const pt_section *s)
{
    return s ? s->child : NULL;
}

const pt_section *pt_section_next(const pt_section *s)
{
    return s ? s->next : NULL;
}

const pt_section *pt_section_parent(const pt_section *s)
{
    return s ? s->parent : NULL;
}

const char *pt_section_name(const pt_section *s)
{
    return s ? s->name : "";
}

const pt_section *pt_find(const pt_timing *t, const char *path)
{
    const pt_section *s;
    char *comp;

    if (!t || !path)
        return NULL;
    pt__threads_merge((pt_timing *)t);
    comp = malloc(strlen(path) + 1);
    if (!comp)
        return NULL;
    s = &t->root;
    while (s && *path) {
        size_t n = 0, len;
        while (*path && *path != '/') {
            if (*path == '\\' && (path[1] == '/' || path[1] == '\\'))
                path++;
            comp[n++] = *path++;
        }
        comp[n] = '\0';
        if (*path == '/')
            path++;
        uint64_t h = hash_title(comp, &len);
        s = find_by_content(s, comp, h, len);
    }
    free(comp);
    return s == &t->root ? NULL : s;
}

static size_t escaped_len(const pt_section *s)
{
    size_t n = s->name_len;
    for (const char *c = s->name; *c; c++)
        n += (*c == '/' || *c == '\\');
    return n;
}

int pt_section_path(const pt_section *s, char *buf, size_t n)
{
    size_t len = 0, at;

    if (!s || (!buf && n))
        return PT_EINVAL;
    for (const pt_section *p = s; p->parent; p = p->parent)
        len += escaped_len(p) + (p->parent->parent != NULL);
    if (len > (size_t)INT32_MAX)
        return PT_ERANGE;
    if (n == 0)
        return (int)len;
    /* Fill from the end, where the section's own title goes; whatever
     * lies past n-1 is cut, as snprintf does. */
    at = len;
    for (const pt_section *p = s; p->parent; p = p->parent) {
        for (size_t i = p->name_len; i-- > 0;) {
            char c = p->name[i];
            if (--at < n - 1)
                buf[at] = c;
            if (c == '/' || c == '\\') {
                if (--at < n - 1)
                    buf[at] = '\\';
            }
        }
        if (p->parent->parent) {
            if (--at < n - 1)
                buf[at] = '/';
        }
    }
    buf[len < n ? len : n - 1] = '\0';
    return (int)len;
}

char *pt__section_path_dup(const pt_section *s)
{
    int n = pt_section_path(s, NULL, 0);
    char *path;

    if (n < 0)
        return NULL;
    path = malloc((size_t)n + 1);
    if (path)
        pt_section_path(s, path, (size_t)n + 1);
    return path;
}
