/* A timing's life cycle as the core knows it: making and freeing one
 * (pt__create, pt__destroy; the public pt_create, pt_destroy and
 * pt_default compose these with the layers above, in api/timing.c),
 * enable and disable, reset; and the slots where the layers above the
 * core attach what they keep on a timing, which the life cycle (and the
 * reports, through pt__settle) visit in order. */
#include "core/timing.h"

#include "core/clock.h"
#include "core/errors.h"
#include "core/fork.h"
#include "core/gate.h"
#include "core/nvtx.h"
#include "core/ranks.h"
#include "core/schedule.h"
#include "core/threads.h"
#include "core/trace.h"
#include "core/tree.h"

#include <stdlib.h>
#include <string.h>

/* ---- life cycle -------------------------------------------------- */

/* What the layers above ask to do at every pt_create() (pt__ext_on_create). */
static void (*create_hooks[PT__EXT_N])(pt_timing *t);

void pt__ext_on_create(int slot, void (*fn)(pt_timing *t))
{
    create_hooks[slot] = fn;
}

static void root_init(pt_timing *t)
{
    memset(&t->root, 0, sizeof t->root);
    t->root.name = t->name;
    t->root.name_len = strlen(t->name);
    t->root.key = t->name;
}

pt_timing *pt__create(const char *name, unsigned flags)
{
    /* Aligned as its cache-line-aligned members ask. */
    size_t size = (sizeof(pt_timing) + 63) & ~(size_t)63;
    pt_timing *t = aligned_alloc(64, size);

    if (!t)
        return NULL;
    memset(t, 0, size);
    t->name = strdup(name ? name : "ptkit");
    if (!t->name) {
        free(t);
        return NULL;
    }
    t->flags = flags;
    t->enabled = 1;
    root_init(t);
    pt__gate_init();
    if (pt__threads_init(t) < 0 || pt__fork_track(t) < 0) {
        pt__threads_free(t);
        free(t->name);
        free(t);
        return NULL;
    }
    pt__clock_init(t);
    t->dev_clock.device = -1;
    if (((flags & PT_TRACE) && pt__trace_init(t) < 0) || ((flags & PT_NVTX) && pt__nvtx_init(t) < 0)) {
        pt__destroy(t);
        return NULL;
    }
    for (int i = 0; i < PT__EXT_N; i++)
        if (create_hooks[i])
            create_hooks[i](t);
    return t;
}

pt_timing *pt__create_internal(const char *name, unsigned flags)
{
    return pt__create(name, flags);
}

void pt__destroy(pt_timing *t)
{
    if (!t)
        return;
    pt__fork_untrack(t);
    for (int i = 0; i < PT__EXT_N; i++)
        if (t->ext[i].ops && t->ext[i].ops->destroy)
            t->ext[i].ops->destroy(t);
    pt__trace_free(t);
    pt__nvtx_free(t);
    pt__sched_free(t);
    pt__ranks_free(t);
    pt__section_free_children(&t->root);
    pt__threads_free(t);
    free(t->output);
    free(t->name);
    free(t);
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
    if (!t || pt__refused_in_callback(t, PT__CB_LINE, "pt_reset"))
        return;
    /* Every thread's tree is emptied: none may be writing it. */
    pt__read_begin(t);
    for (int i = 0; i < PT__EXT_N; i++)
        if (t->ext[i].ops && t->ext[i].ops->reset)
            t->ext[i].ops->reset(t);
    pt__trace_clear(t);
    pt__nvtx_forget(t);
    pt__section_free_children(&t->root);
    root_init(t);
    pt__threads_reset(t);
    t->errors = 0;
    memset(t->errors_of, 0, sizeof t->errors_of);
    t->last_error[0] = '\0';
    t->notes = 0;
    t->last_note[0] = '\0';
    t->gpu_fallback = 0;
    t->fallback_why[0] = '\0';
    t->dropped = 0;
    t->ranks = t->ranks_empty = 0;
    pt__read_end(t);
}

/* ---- what the layers above attach -------------------------------- */

void pt__ext_attach(pt_timing *t, int slot, const pt__ext_ops *ops, void *state)
{
    t->ext[slot].ops = ops;
    t->ext[slot].state = state;
}

void pt__settle(pt_timing *t)
{
    if (!t)
        return;
    pt__threads_merge(t);
    pt__trace_gather(t);
    for (int i = 0; i < PT__EXT_N; i++)
        if (t->ext[i].ops && t->ext[i].ops->settle)
            t->ext[i].ops->settle(t);
    t->root.total_ns = pt__root_total(&t->root);
}

void pt__peaks_resolve(pt_timing *t)
{
    if (!t || t->peak_src != PT__PEAKS_NONE)
        return;
    for (int i = 0; i < PT__EXT_N && t->peak_src == PT__PEAKS_NONE; i++)
        if (t->ext[i].ops && t->ext[i].ops->peaks)
            t->ext[i].ops->peaks(t);
}
