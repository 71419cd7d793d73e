/* pt_dev.h under nvcc: what the compiler makes of the macros. The PTX and
 * ptxas reports are built by tests/kernels/kernels.mk into
 * $PT_BUILD/kernels/ before the suite runs; these tests read them.
 *
 * The rule checked on every kernel: its PTX reads %clock64 exactly
 * (PT_DEV_MARK sites + 2) times, one read per mark site, one at BEGIN (every
 * thread) and one at END (the recording thread), and %globaltimer and
 * %smid exactly twice, at BEGIN and END. A test kernel's name ends in
 * marksN, N being its mark sites; loops holding marks are kept rolled, since
 * unrolling copies a site. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pt/pt_dev_buf.h>

#include "common.h"

static void require_nvcc(void)
{
#if !PT_BUILD_CUDA
    cr_skip_test("built with CUDA=0, so there is no nvcc output to check "
                 "(build with CUDA=1 to compile the test kernels)");
#endif
}

TestSuite(dev_compile, .init = require_nvcc);

static char *kernel_path(const char *name)
{
    const char *build = getenv("PT_BUILD");
    size_t n;
    char *p;
    if (!build || !*build)
        build = "build";
    n = strlen(build) + strlen(name) + sizeof "/kernels/";
    p = malloc(n);
    cr_assert_not_null(p);
    snprintf(p, n, "%s/kernels/%s", build, name);
    return p;
}

/* A file made by the build, whole; a missing one fails with the reason. */
static char *read_kernel_file(const char *name)
{
    char *path = kernel_path(name);
    char *text = test_read_file(path);
    cr_assert_not_null(text, "%s is missing: run the suite with make test, which builds it", path);
    free(path);
    return text;
}

static int count_in(const char *s, const char *end, const char *needle)
{
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = s; (p = strstr(p, needle)) && p < end; p += len)
        n++;
    return n;
}

/* Checks every .entry of a PTX file against the rule above; returns how
 * many kernels were checked. */
static int check_ptx(const char *file)
{
    char *ptx = read_kernel_file(file);
    const char *p = ptx, *end_all = ptx + strlen(ptx);
    int kernels = 0;

    while ((p = strstr(p, ".entry ")) != NULL) {
        const char *name = p + strlen(".entry ");
        const char *next = strstr(name, ".entry ");
        const char *end = next ? next : end_all;
        size_t name_len = strcspn(name, "( \n");
        const char *m = strstr(name, "marks");
        char kname[256];
        int marks, clocks, movs, gts, smids;

        snprintf(kname, sizeof kname, "%.*s", (int)name_len, name);
        cr_assert(m && m < name + name_len && sscanf(m, "marks%d", &marks) == 1,
                  "%s: kernel %s does not say its marks (name ...marksN)", file, kname);
        clocks = count_in(name, end, "%clock64");
        movs = count_in(name, end, ", %clock64;");
        gts = count_in(name, end, "%globaltimer");
        smids = count_in(name, end, "%smid");
        cr_log_info("%s: %s: %d marks, %d %%clock64 reads", file, kname, marks, clocks);
        cr_assert_eq(clocks, marks + 2,
                     "%s: %s has %d marks, so %d %%clock64 reads (marks + BEGIN + END), "
                     "not %d", file, kname, marks, marks + 2, clocks);
        cr_assert_eq(movs, clocks, "%s: %s: %d of the %d %%clock64 uses are not plain reads",
                     file, kname, clocks - movs, clocks);
        cr_assert_eq(count_in(name, end, "%clock;"), 0, "%s: %s reads the 32-bit %%clock",
                     file, kname);
        cr_assert_eq(gts, 2, "%s: %s reads %%globaltimer %d times; only BEGIN and END may",
                     file, kname, gts);
        cr_assert_eq(smids, 2, "%s: %s reads %%smid %d times; only BEGIN and END may", file,
                     kname, smids);
        kernels++;
        p = end;
    }
    free(ptx);
    return kernels;
}

Test(dev_compile, clock64_once_per_mark_sm80)
{
    int n = check_ptx("phases_c.sm_80.ptx");
    cr_assert_eq(n, 3, "phases_c.sm_80.ptx: %d kernels checked, expected 3", n);
}

Test(dev_compile, clock64_once_per_mark_sm90)
{
    int n = check_ptx("phases_c.sm_90.ptx");
    cr_assert_eq(n, 3, "phases_c.sm_90.ptx: %d kernels checked, expected 3", n);
}

Test(dev_compile, cpp_templates_enum_class_and_per_warp)
{
    int n = check_ptx("phases_cpp.sm_90.ptx");
    cr_assert_eq(n, 2, "phases_cpp.sm_90.ptx: %d kernels checked, expected 2 instantiations", n);
}

/* PTX without the lines that name the compiler or the source file, which
 * may differ between two compiles of equal code. */
static char *ptx_code(const char *file)
{
    char *ptx = read_kernel_file(file), *out = malloc(strlen(ptx) + 1), *o = out;
    cr_assert_not_null(out);
    for (char *line = ptx; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        const char *t = line + strspn(line, " \t");
        if (strncmp(t, "//", 2) != 0 && strncmp(t, ".file", 5) != 0) {
            memcpy(o, line, len);
            o += len;
        }
        line += len;
    }
    *o = '\0';
    free(ptx);
    return out;
}

Test(dev_compile, disabled_ptx_is_the_uninstrumented_ptx)
{
    char *off = ptx_code("phases_c.disabled.sm_90.ptx");
    char *bare = ptx_code("phases_c.stripped.sm_90.ptx");
    size_t i = 0;
    cr_assert(strstr(off, ".entry "), "the disabled PTX holds no kernel");
    while (off[i] && off[i] == bare[i])
        i++;
    cr_assert(off[i] == bare[i],
              "PTX with PT_DEV_DISABLE differs from the kernel without the macro lines, "
              "at byte %zu: \"%.60s\" vs \"%.60s\"", i, off + i, bare + i);
    cr_assert_null(strstr(off, "%clock64"), "disabled PTX reads %%clock64");
    cr_assert_null(strstr(off, "%globaltimer"), "disabled PTX reads %%globaltimer");
    free(off);
    free(bare);
}

/* Checks ptxas -v's report: no spills and no stack for kernels with
 * constant phases; prints each kernel's registers. */
static void check_ptxas(const char *file)
{
    char *txt = read_kernel_file(file);
    const char *p = txt;
    int kernels = 0;

    while ((p = strstr(p, "Compiling entry function '")) != NULL) {
        char kname[256];
        int stack = -1, stores = -1, loads = -1, regs = -1;
        const char *props, *used;
        p += strlen("Compiling entry function '");
        snprintf(kname, sizeof kname, "%.*s", (int)strcspn(p, "'"), p);
        props = strstr(p, "bytes stack frame");
        used = strstr(p, "Used ");
        cr_assert(props && used, "%s: no properties for %s", file, kname);
        while (props > p && props[-1] != '\n')
            props--;
        cr_assert_eq(sscanf(props, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
                            &stack, &stores, &loads), 3, "%s: unreadable properties of %s", file,
                     kname);
        cr_assert_eq(sscanf(used, "Used %d registers", &regs), 1, "%s: no register count for %s",
                     file, kname);
        /* Printed on every run: the register cost is worth seeing. */
        fprintf(stderr, "[info] %s: %s: %d registers, %d bytes stack, %d/%d bytes spilled\n",
                file, kname, regs, stack, stores, loads);
        if (strstr(kname, "dynamic")) {
            /* A phase known only at run time indexes the accumulators, so
             * they may live in local memory: allowed and documented. */
        } else {
            cr_assert_eq(stores, 0, "%s: %s spills %d bytes", file, kname, stores);
            cr_assert_eq(loads, 0, "%s: %s reloads %d spilled bytes", file, kname, loads);
            cr_assert_eq(stack, 0, "%s: %s has a %d-byte stack frame", file, kname, stack);
        }
        kernels++;
    }
    cr_assert_gt(kernels, 0, "%s: no kernel in the ptxas report", file);
    free(txt);
}

Test(dev_compile, no_spills_no_stack_sm80)
{
    check_ptxas("phases_c.sm_80.ptxas.txt");
}

Test(dev_compile, no_spills_no_stack_sm90)
{
    check_ptxas("phases_c.sm_90.ptxas.txt");
    check_ptxas("phases_cpp.sm_90.ptxas.txt");
}

Test(dev_compile, host_device_function_runs_on_the_cpu)
{
    enum { NSLOTS = 2, NPHASES = 3, MS = 1000000 };
    long long words = PT_DEV_BUF_WORDS(NSLOTS, NPHASES, 0);
    long long data[PT_DEV_BUF_WORDS(NSLOTS, NPHASES, 0)];
    char *path = kernel_path("hostdev");
    FILE *f = popen(path, "r");
    long long n = 0;
    cr_assert_not_null(f, "cannot run %s", path);
    while (n < words && fscanf(f, "%lld", &data[n]) == 1)
        n++;
    cr_assert_eq(pclose(f), 0, "%s failed", path);
    cr_assert_eq(n, words, "%s printed %lld words, expected %lld", path, n, words);

    long long *r0 = data + PT_DEV_HDR, *r1 = r0 + PT_DEV_SLOT_WORDS(NPHASES, 0);
    double ns_per_cycle = (double)(r0[PT_DEV_S_GT1] - r0[PT_DEV_S_GT0]) /
                          (double)(r0[PT_DEV_S_CLK1] - r0[PT_DEV_S_CLK0]);
    double ns0 = (double)r0[PT_DEV_SLOT_HDR] * ns_per_cycle;
    double ns1 = (double)r0[PT_DEV_SLOT_HDR + 2] * ns_per_cycle;
    cr_assert_eq(data[PT_DEV_H_MAGIC], PT_DEV_MAGIC, "buffer header overwritten");
    cr_assert_eq(r0[PT_DEV_S_DONE], 1, "slot 0 not done");
    cr_assert_eq(r0[PT_DEV_SLOT_HDR + 1], 2, "slot 0 phase 0 hits %lld", r0[PT_DEV_SLOT_HDR + 1]);
    cr_assert_eq(r0[PT_DEV_SLOT_HDR + 3], 2, "slot 0 phase 1 hits %lld", r0[PT_DEV_SLOT_HDR + 3]);
    cr_assert_geq(ns0, 0.95 * 4 * MS, "phase 0: %.0f ns, spun 2 x 2 ms", ns0);
    cr_assert_geq(ns1, 0.95 * 2 * MS, "phase 1: %.0f ns, spun 2 x 1 ms", ns1);
    cr_assert_eq(r1[PT_DEV_S_DONE], 1, "slot 1 not done");
    cr_assert_eq(r1[PT_DEV_SLOT_HDR + 5], 1000, "slot 1 phase 2 hits %lld", r1[PT_DEV_SLOT_HDR + 5]);
    cr_assert_eq(r1[PT_DEV_S_BAD_PHASE], 1, "slot 1 BAD_PHASE %lld", r1[PT_DEV_S_BAD_PHASE]);
    free(path);
}
