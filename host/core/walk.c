/* The walk API: the tree as the user reads it, from pt_root() or a path.
 * The walkers take a const timing, but the sections other threads timed
 * join its tree first, as for every report. */
#include "core/gate.h"
#include "core/threads.h"
#include "core/tree.h"

const pt_section *pt_root(const pt_timing *t)
{
    if (!t)
        return NULL;
    pt__read_begin((pt_timing *)t);
    pt__threads_merge((pt_timing *)t);
    pt__read_end((pt_timing *)t);
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

    if (!t || !path)
        return NULL;
    pt__read_begin((pt_timing *)t);
    pt__threads_merge((pt_timing *)t);
    s = pt__tree_find(&t->root, path);
    pt__read_end((pt_timing *)t);
    return s;
}
