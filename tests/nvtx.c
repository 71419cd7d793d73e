/* PT_NVTX: sections become NVTX ranges named by their titles, in the
 * domain "ptkit", with each title registered once.
 *
 * The ranges are observed through NVTX's own injection mechanism: this
 * file defines InitializeInjectionNvtx2_fnptr, the statically linked form
 * of what NVTX_INJECTION64_PATH loads from a shared library, so NVTX's
 * first call hands our callbacks its function table exactly as it would
 * hand a tool's. They count pushes and pops with the registered names.
 * Built without NVTX's headers (CUDA=0) only the no-op is tested. */
#include <criterion/criterion.h>
#include <string.h>

#include "common.h"

#if PT_BUILD_CUDA && defined(__has_include)
#  if __has_include(<nvtx3/nvToolsExt.h>)
#    define HAVE_NVTX 1
#  endif
#endif

static test_clock clk;
static pt_timing *t;

static void teardown(void)
{
    pt_destroy(t);
    t = NULL;
}

TestSuite(nvtx, .fini = teardown);

#ifdef HAVE_NVTX
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wstrict-prototypes"
#  pragma GCC diagnostic ignored "-Wundef"
#  pragma GCC diagnostic ignored "-Wmissing-prototypes"
#  pragma GCC diagnostic ignored "-Wshadow"
#  pragma GCC diagnostic ignored "-Wunused-parameter"
#  define NVTX_NO_IMPL
#  include <nvtx3/nvToolsExt.h>
#  pragma GCC diagnostic pop

/* What the tool saw. */
static struct {
    int domains, registered, pushes, pops, depth, max_depth;
    char domain[32];
    char names[64][64];       /* registered strings, by handle - 1 */
    char pushed[256][64];     /* names of the pushes, in order */
    int other_domain;         /* a push or pop outside "ptkit" */
} seen;

static struct nvtxDomainRegistration_st *const the_domain = (void *)(uintptr_t)0x1234;

static nvtxDomainHandle_t NVTX_API cb_domain_create(const char *name)
{
    seen.domains++;
    snprintf(seen.domain, sizeof seen.domain, "%s", name);
    return the_domain;
}

static void NVTX_API cb_domain_destroy(nvtxDomainHandle_t d)
{
    (void)d;
}

static nvtxStringHandle_t NVTX_API cb_register(nvtxDomainHandle_t d, const char *s)
{
    if (d != the_domain)
        seen.other_domain++;
    if (seen.registered == 64)
        return NULL;
    snprintf(seen.names[seen.registered], sizeof seen.names[0], "%s", s);
    return (nvtxStringHandle_t)(uintptr_t)++seen.registered;
}

static int NVTX_API cb_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    const char *n = "(?)";
    if (d != the_domain)
        seen.other_domain++;
    if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED)
        n = seen.names[(uintptr_t)a->message.registered - 1];
    else if (a->messageType == NVTX_MESSAGE_TYPE_ASCII)
        n = a->message.ascii;
    if (seen.pushes < 256)
        snprintf(seen.pushed[seen.pushes], sizeof seen.pushed[0], "%s", n);
    seen.pushes++;
    if (++seen.depth > seen.max_depth)
        seen.max_depth = seen.depth;
    return seen.depth - 1;
}

static int NVTX_API cb_pop(nvtxDomainHandle_t d)
{
    if (d != the_domain)
        seen.other_domain++;
    seen.pops++;
    return --seen.depth;
}

static int NVTX_API inject(NvtxGetExportTableFunc_t get)
{
    const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable table;
    unsigned size;
    if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) ||
        size <= NVTX_CBID_CORE2_DomainDestroy)
        return 0;
    *table[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)cb_domain_create;
    *table[NVTX_CBID_CORE2_DomainDestroy] = (NvtxFunctionPointer)cb_domain_destroy;
    *table[NVTX_CBID_CORE2_DomainRegisterStringA] = (NvtxFunctionPointer)cb_register;
    *table[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)cb_push;
    *table[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)cb_pop;
    return 1;
}

/* NVTX looks this up at its first call (nvtxInit.h, static injection). */
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = inject;

Test(nvtx, sections_are_ranges_named_by_their_titles)
{
    t = test_timing(&clk, "run", PT_NVTX);
    pt_start(t, "frame");
    TEST_SPAN(t, &clk, "solve", 10);
    TEST_SPAN(t, &clk, "solve", 10);
    pt_stop(t, "frame");
    cr_assert_eq(seen.domains, 1, "one domain");
    cr_assert_str_eq(seen.domain, "ptkit");
    cr_assert_eq(seen.pushes, 3, "pushes: %d", seen.pushes);
    cr_assert_eq(seen.pops, 3, "pops: %d", seen.pops);
    cr_assert_eq(seen.max_depth, 2, "nested");
    cr_assert_str_eq(seen.pushed[0], "frame");
    cr_assert_str_eq(seen.pushed[1], "solve");
    cr_assert_str_eq(seen.pushed[2], "solve");
    cr_assert_eq(seen.registered, 2, "each title registered once: %d", seen.registered);
    cr_assert_eq(seen.other_domain, 0);
}

Test(nvtx, gpu_sections_and_ghosts)
{
    t = test_timing(&clk, "run", PT_NVTX);
    pt_start_gpu(t, "launch", 0);
    pt_stop_gpu(t, "launch", 0);
    pt_disable(t);
    TEST_SPAN(t, &clk, "ghost", 5);
    pt_enable(t);
    cr_assert_eq(seen.pushes, 1, "the ghost pushes nothing");
    cr_assert_eq(seen.pops, 1);
    cr_assert_str_eq(seen.pushed[0], "launch");
}

Test(nvtx, a_mismatched_stop_pops_nothing)
{
    t = test_timing(&clk, "run", PT_NVTX);
    pt_start(t, "a");
    cr_assert_eq(pt_stop(t, "b"), PT_EMISMATCH);
    cr_assert_eq(seen.pops, 0);
    pt_stop(t, "a");
    cr_assert_eq(seen.pops, 1);
    cr_assert_eq(seen.depth, 0);
}

Test(nvtx, without_the_flag_nothing_is_emitted)
{
    t = test_timing(&clk, "run", PT_CPU);
    TEST_SPAN(t, &clk, "a", 5);
    cr_assert_eq(seen.pushes, 0);
    cr_assert_eq(seen.domains, 0);
}

Test(nvtx, reset_registers_again)
{
    t = test_timing(&clk, "run", PT_NVTX);
    TEST_SPAN(t, &clk, "a", 5);
    pt_reset(t);
    TEST_SPAN(t, &clk, "a", 5);
    cr_assert_eq(seen.pushes, 2);
    cr_assert_str_eq(seen.pushed[1], "a");
}
#else
Test(nvtx, the_flag_is_accepted_without_nvtx)
{
    t = test_timing(&clk, "run", PT_NVTX | PT_TRACE);
    TEST_SPAN(t, &clk, "a", 5);
    pt_section_stats st;
    cr_assert_eq(pt_section_get(t, pt_find(t, "a"), &st), 0);
    cr_assert_eq(st.count, 1, "recorded as without the flag");
    cr_assert_eq(pt_error_count(t), 0);
}
#endif
