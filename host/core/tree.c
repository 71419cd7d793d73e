/* The tree of sections: a parent's child found by its title, or made.
 *
 * The hot path is a start or stop with a title seen before. A parent
 * remembers the child found last and each child remembers the caller's
 * pointer for its title, so a string literal seen before costs a pointer
 * compare. A title elsewhere (a buffer the program may fill again) is
 * also compared by its text, which keeps a reused buffer holding a new
 * title from being taken for the old one; a literal cannot change, so
 * whether the pointer lies in a read-only segment of a loaded object is
 * found once, when the section takes the pointer. Parents with many
 * children also keep a hash table. A section aggregates its occurrences
 * (Welford): memory grows with distinct sections, never with occurrences. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "core/overlap.h"
#include "core/shape.h"
#include "core/tree.h"

#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PT__TAB_MIN_CHILDREN 8

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

/* ---- titles in read-only memory ---------------------------------- */

/* The read-only segments (PT_LOAD without PF_W: code and .rodata, where
 * string literals live) of the main program, sorted. A shared object's
 * are left out: a library can be unloaded (dlclose) and another mapped at
 * the same address, whose literal there says something else, so its
 * titles are compared by text, which costs a few compares. */
#define RO_MAX 64
typedef struct ro_range {
    uintptr_t lo, hi;
} ro_range;
static ro_range ro[RO_MAX];
static int nro;
static pthread_once_t ro_once = PTHREAD_ONCE_INIT;

/* The main program is the first object dl_iterate_phdr reports. */
static int ro_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    (void)ctx;
    for (int i = 0; i < info->dlpi_phnum && nro < RO_MAX; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_W) && ph->p_memsz > 0) {
            uintptr_t lo = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
            ro[nro++] = (ro_range){ lo, lo + (uintptr_t)ph->p_memsz };
        }
    }
    return 1;
}

static int by_lo(const void *a, const void *b)
{
    const ro_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void ro_load(void)
{
    dl_iterate_phdr(ro_object, NULL);
    qsort(ro, (size_t)nro, sizeof *ro, by_lo);
}

/* 1 when title lies in a read-only segment: its text cannot change. */
static int title_fixed(const char *title)
{
    uintptr_t a = (uintptr_t)title;
    int lo = 0, hi;

    pthread_once(&ro_once, ro_load);
    hi = nro;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a < ro[mid].lo)
            hi = mid;
        else if (a >= ro[mid].hi)
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

static void key_set(pt_section *c, const char *title)
{
    c->key = title;
    c->key_fixed = title_fixed(title);
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

pt_section *pt__child_in(pt__thr *r, pt_section *p, const char *title)
{
    pt_section *c = p->hot;
    size_t len;
    uint64_t h;

    if (c && pt__same_title(c, title))
        return c;
    if (!p->tab) {
        for (c = p->child; c; c = c->next)
            if (pt__same_title(c, title))
                goto found;
    }
    h = hash_title(title, &len);
    c = find_by_content(p, title, h, len);
    if (c) {
        key_set(c, title);
        goto found;
    }

    c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->name = malloc(len + 1);
    if (!c->name) {
        free(c);
        return NULL;
    }
    memcpy(c->name, title, len + 1);
    c->name_len = len;
    c->hash = h;
    key_set(c, title);
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

pt_section *pt__child_find(const pt_section *p, const char *title)
{
    size_t len;
    uint64_t h = hash_title(title, &len);
    return find_by_content(p, title, h, len);
}

const pt_section *pt__counterpart(const pt_section *root, const pt_section *s)
{
    const pt_section *small[64], **up = small, *p = root;
    size_t d = 0;

    /* s's ancestors from the top, then down root's tree by title:
     * without recursion, however deep s lies. */
    for (const pt_section *a = s; a->parent; a = a->parent)
        d++;
    if (d > sizeof small / sizeof small[0] && !(up = malloc(d * sizeof *up)))
        return NULL;
    for (const pt_section *a = s; a->parent; a = a->parent)
        up[a->depth - 1] = a;
    for (size_t i = 0; i < d && p; i++)
        p = find_by_content(p, up[i]->name, up[i]->hash, up[i]->name_len);
    if (up != small)
        free(up);
    return p;
}

const pt_section *pt__child_of(const pt_section *parent, const pt_section *like)
{
    return parent ? find_by_content(parent, like->name, like->hash, like->name_len) : NULL;
}

/* ---- freeing ----------------------------------------------------- */

void pt__phase_free(pt__phase_ext *p)
{
    if (p) {
        free(p->sm_ns);
        free(p->hist);
        free(p);
    }
}

static void free_node(pt_section *s)
{
    pt__phase_free(s->phase);
    pt__shape_free(s->shape);
    pt__ovl_free(s->ovl);
    free(s->heat);
    free(s->ranks);
    free(s->tab);
    free(s->name);
    free(s);
}

void pt__section_free_children(pt_section *root)
{
    pt_section *s = root->child;

    /* Without recursion, however deep the tree (a packed tree from another
     * process may be as deep as it allows): down to a leaf, free it, then
     * on to its next sibling or back up to its parent, now a leaf. */
    while (s && s != root) {
        pt_section *up;
        if (s->child) {
            s = s->child;
            continue;
        }
        up = s->parent;
        up->child = s->next;
        free_node(s);
        s = up->child ? up->child : up;
    }
    free(root->tab);
    root->tab = NULL;
    root->tab_cap = 0;
    root->child = root->last_child = root->hot = NULL;
    root->nchildren = 0;
}

/* ---- paths ------------------------------------------------------- */

const pt_section *pt__tree_find(const pt_section *root, const char *path)
{
    const pt_section *s = root;
    char *comp = malloc(strlen(path) + 1);

    if (!comp)
        return NULL;
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
    return s == root ? NULL : s;
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

void *pt__depth_grow(void *v, size_t *cap, size_t d, size_t size)
{
    size_t n = *cap ? *cap : 64;

    if (d < *cap)
        return v;
    while (n <= d)
        n *= 2;
    if (n > SIZE_MAX / size || !(v = realloc(v, n * size)))
        return NULL;
    *cap = n;
    return v;
}
