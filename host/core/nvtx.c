/* PT_NVTX: every real section is also an NVTX range in the domain
 * "ptkit", so Nsight Systems shows the tree on its timeline. Titles are
 * registered once per section (the handle is cached on the node), so a
 * push passes a handle, not a string to hash.
 *
 * NVTX 3 is header-only: without a tool attached (NVTX_INJECTION64_PATH
 * or Nsight) each call costs one indirect call to a stub. Built without
 * CUDA (PT_BUILD_CUDA=0), or where CUDA's include folder lacks nvtx3/,
 * every function here is a no-op; the flag is then accepted and does nothing. */
#include "core/nvtx.h"

#include "core/tree.h"

#include <stdlib.h>

#if PT_BUILD_CUDA && defined(__has_include)
#  if __has_include(<nvtx3/nvToolsExt.h>)
#    define PT__NVTX 1
#  endif
#endif
#ifndef PT__NVTX
#  define PT__NVTX 0
#endif

#if PT__NVTX
/* NVTX's headers are not written for our warning set (old-style
 * declarations, #if on undefined macros); they are silenced here only. */
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wstrict-prototypes"
#  pragma GCC diagnostic ignored "-Wundef"
#  pragma GCC diagnostic ignored "-Wmissing-prototypes"
#  pragma GCC diagnostic ignored "-Wshadow"
#  pragma GCC diagnostic ignored "-Wpedantic"
#  pragma GCC diagnostic ignored "-Wunused-parameter"
#  pragma GCC diagnostic ignored "-Wunused-function"
#  pragma GCC diagnostic ignored "-Wcast-function-type"
#  include <nvtx3/nvToolsExt.h>
#  pragma GCC diagnostic pop

typedef struct pt__nvtx {
    nvtxDomainHandle_t domain;
} pt__nvtx;

int pt__nvtx_init(pt_timing *t)
{
    t->nvtx = calloc(1, sizeof *t->nvtx);
    if (!t->nvtx)
        return PT_ENOMEM;
    t->nvtx->domain = nvtxDomainCreateA("ptkit");
    t->hooks |= PT__HOOK_NVTX;
    return 0;
}

/* Every section, depth first without recursion, however deep the tree. */
static void forget(pt_section *root)
{
    root->nvtx_str = NULL;
    for (pt_section *s = root->child; s; s = (pt_section *)pt__tree_next(s, root))
        s->nvtx_str = NULL;
}

void pt__nvtx_forget(pt_timing *t)
{
    /* Registered strings live as long as the domain; the nodes that
     * cached them are about to go. */
    if (t->nvtx)
        forget(&t->root);
}

void pt__nvtx_free(pt_timing *t)
{
    if (!t->nvtx)
        return;
    nvtxDomainDestroy(t->nvtx->domain);
    free(t->nvtx);
    t->nvtx = NULL;
    t->hooks &= ~(unsigned)PT__HOOK_NVTX;
}

void pt__nvtx_push(pt_timing *t, pt_section *node)
{
    nvtxEventAttributes_t a = { 0 };

    if (!node->nvtx_str)
        node->nvtx_str = (void *)nvtxDomainRegisterStringA(t->nvtx->domain, node->name);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    if (node->nvtx_str) {
        a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        a.message.registered = (nvtxStringHandle_t)node->nvtx_str;
    } else {
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = node->name;
    }
    nvtxDomainRangePushEx(t->nvtx->domain, &a);
}

void pt__nvtx_pop(pt_timing *t)
{
    nvtxDomainRangePop(t->nvtx->domain);
}

#else /* no NVTX headers */

int pt__nvtx_init(pt_timing *t)
{
    (void)t;
    return 0;
}

void pt__nvtx_forget(pt_timing *t)
{
    (void)t;
}

void pt__nvtx_free(pt_timing *t)
{
    (void)t;
}

void pt__nvtx_push(pt_timing *t, pt_section *node)
{
    (void)t;
    (void)node;
}

void pt__nvtx_pop(pt_timing *t)
{
    (void)t;
}
#endif
