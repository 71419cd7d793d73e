/* The tree of sections (tree.c): a title's child under a parent, found or
 * made; paths of titles; freeing. Not installed. */
#ifndef PT_CORE_TREE_H
#define PT_CORE_TREE_H

#include "core/model.h"

#include <stddef.h>

/* parent's child of that title, created if missing, in the tree r records
 * into (its creation order and section count are r's); NULL without memory. */
/* Frees a phase's figures (NULL is a no-op). */
PT__HIDDEN void pt__phase_free(pt__phase_ext *p);
PT__HIDDEN pt_section *pt__child_in(pt__thr *r, pt_section *parent, const char *title);
/* The same in t->root's tree (the creating thread's). */
PT__HIDDEN pt_section *pt__child(pt_timing *t, pt_section *parent, const char *title);
/* parent's child whose title is title's text; NULL when it has none. */
PT__HIDDEN pt_section *pt__child_find(const pt_section *parent, const char *title);
/* The section of s's path in the tree under root (another thread's, say);
 * NULL where that tree lacks it. */
PT__HIDDEN const pt_section *pt__counterpart(const pt_section *root, const pt_section *s);
/* parent's child of like's title (like in another tree); NULL when it
 * has none or parent is NULL. Hashed: a walk of two trees side by side
 * finds each counterpart in constant time. */
PT__HIDDEN const pt_section *pt__child_of(const pt_section *parent, const pt_section *like);
/* The section at path ("a/b", '/' in a title written "\/") under root;
 * NULL when there is none or without memory. The root itself is never
 * returned: an empty path names nothing. */
PT__HIDDEN const pt_section *pt__tree_find(const pt_section *root, const char *path);
/* The section after s in depth-first order (order of first start) in
 * root's tree, root itself left out; NULL after the last. Walks without
 * recursion, however deep the tree: start from root->child. */
static inline const pt_section *pt__tree_next(const pt_section *s, const pt_section *root)
{
    if (s->child)
        return s->child;
    while (s && !s->next)
        s = s->parent == root ? NULL : s->parent;
    return s ? s->next : NULL;
}
/* v, an array of *cap elements of size bytes indexed by depth as a walk
 * goes down, grown (doubling, from 64) to hold index d: the array to use,
 * or NULL without memory (v and *cap then stay as they were). Amortised
 * O(1) a step, O(depth) memory. */
PT__HIDDEN void *pt__depth_grow(void *v, size_t *cap, size_t d, size_t size);
/* The whole run's total: the top-level sections' totals added, held at
 * the largest double. pt__settle() keeps it in root->total_ns (a root has
 * no occurrences of its own), so a report reads it once, not per section. */
static inline double pt__root_total(const pt_section *root)
{
    double ns = 0;
    for (const pt_section *c = root->child; c; c = c->next)
        ns += c->total_ns;
    return ns > 1.7976931348623157e308 ? 1.7976931348623157e308 : ns;
}
/* Frees s's subtree (not s), leaving s without children. */
PT__HIDDEN void pt__section_free_children(pt_section *s);

/* c's title is title's text. A pointer keyed in the main program's
 * read-only memory (a string literal there, which no dlclose can unmap
 * and no write can change) is trusted without reading it; any other
 * pointer, a buffer reused or built each call (snprintf, std::string,
 * Python) included, is compared by text, inline: a title of known text
 * takes the fast path whatever its address. Every start and stop of a
 * title seen before comes here first. */
static inline int pt__same_title(const pt_section *c, const char *title)
{
    const char *a = c->name, *b = title;
    if (c->key == title && c->key_fixed)
        return 1;
    if (!b)
        return 0;
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

/* parent's child of that title when it is found without a call: the
 * child found last, or the one after it (siblings started in turn, in a
 * loop, wrapping to the first); else NULL. The hot path's lookup. */
static inline pt_section *pt__child_fast(pt_section *parent, const char *title)
{
    pt_section *c = parent->hot;

    if (c && !pt__same_title(c, title)) {
        c = c->next ? c->next : parent->child;
        if (!pt__same_title(c, title))
            return NULL;
        parent->hot = c;
    }
    return c;
}

#endif
