/* pt_dev.h under nvcc: what the compiler makes of the macros. The PTX,
 * cubins and ptxas reports are built by tests/kernels/kernels.mk into
 * $PT_BUILD/kernels/ before the suite runs; these tests read them (through
 * tests/kernels/kstat.h, which bench-static reads them with too).
 *
 * The rule checked on every kernel: its PTX reads %clock64 exactly
 * (PT_DEV_MARK sites + 2) times, one read per mark site, one at BEGIN (every
 * thread) and one at END (the recording thread); %globaltimer twice, at
 * BEGIN and END; %smid once, at END. The test kernels of phases_c.c and
 * phases.cu say their mark sites in their names (marksN); loops holding
 * marks are kept rolled, since unrolling copies a site. The benchmark
 * kernels are left as written, so there a site may be copied.
 *
 * The benchmark kernels (gemm, attention, dynamic, helper; see forms.h)
 * are checked for what must never regress: no stack and no spill in
 * either mode, in the default shared-memory mode no more registers than
 * the hand-written pattern and one shared array sized by the phases, the
 * GEMM in 32 registers (two 1024-thread blocks per SM) and in 64 with -G
 * (a 1024-thread block still launches), no trace store unless asked for,
 * and with PT_DEV_DISABLE the very PTX of the kernel without ptkit, the
 * helper that takes the timing state included. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pt/pt_dev_buf.h>

#include "common.h"
#include "kernels/kstat.h"

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

/* Checks one kernel's PTX against the rule above. With unrolled, the
 * compiler may have unrolled the loop that holds the marks (the benchmark
 * kernels are left as written): each copy of a site reads the clock once. */
static void check_clocks(const char *file, const char *kname, const char *ptx, size_t len,
                         int marks, int unrolled)
{
    int clocks = kstat_count(ptx, len, "%clock64"), movs = kstat_count(ptx, len, ", %clock64;");
    int gts = kstat_count(ptx, len, "%globaltimer"), smids = kstat_count(ptx, len, "%smid");
    cr_log_info("%s: %s: %d marks, %d %%clock64 reads", file, kname, marks, clocks);
    if (unrolled)
        cr_assert(clocks >= marks + 2 && (clocks - 2) % marks == 0,
                  "%s: %s has %d marks, so %d %%clock64 reads or a multiple of %d more, not %d",
                  file, kname, marks, marks + 2, marks, clocks);
    else
        cr_assert_eq(clocks, marks + 2,
                     "%s: %s has %d marks, so %d %%clock64 reads (marks + BEGIN + END), not %d",
                     file, kname, marks, marks + 2, clocks);
    cr_assert_eq(movs, clocks, "%s: %s: %d of the %d %%clock64 uses are not plain reads", file,
                 kname, clocks - movs, clocks);
    cr_assert_eq(kstat_count(ptx, len, "%clock;"), 0, "%s: %s reads the 32-bit %%clock", file,
                 kname);
    cr_assert_eq(gts, 2, "%s: %s reads %%globaltimer %d times; only BEGIN and END may", file,
                 kname, gts);
    cr_assert_eq(smids, 1, "%s: %s reads %%smid %d times; only END may, once", file, kname,
                 smids);
}

/* Checks every .entry of a PTX file whose kernels say their marks in their
 * names (...marksN); returns how many kernels were checked. */
static int check_ptx(const char *file)
{
    char *ptx = read_kernel_file(file);
    const char *p = ptx;
    int kernels = 0;

    while ((p = strstr(p, ".entry ")) != NULL) {
        const char *name = p + strlen(".entry ");
        size_t name_len = strcspn(name, "( \n"), len;
        const char *m = strstr(name, "marks"), *entry;
        char kname[256];
        int marks;

        snprintf(kname, sizeof kname, "%.*s", (int)name_len, name);
        cr_assert(m && m < name + name_len && sscanf(m, "marks%d", &marks) == 1,
                  "%s: kernel %s does not say its marks (name ...marksN)", file, kname);
        entry = kstat_ptx_entry(ptx, kname, &len);
        cr_assert_not_null(entry, "%s: no entry %s", file, kname);
        check_clocks(file, kname, entry, len, marks, 0);
        kernels++;
        p = entry + len;
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

/* The PTX of two files, compared without the lines that name the compiler
 * or the source. */
static void assert_same_ptx(const char *file_a, const char *file_b)
{
    char *a_raw = read_kernel_file(file_a), *b_raw = read_kernel_file(file_b);
    char *a = kstat_ptx_code(a_raw), *b = kstat_ptx_code(b_raw);
    size_t i = 0;
    cr_assert(a && b);
    cr_assert(strstr(a, ".entry "), "%s holds no kernel", file_a);
    while (a[i] && a[i] == b[i])
        i++;
    cr_assert(a[i] == b[i], "%s differs from %s at byte %zu: \"%.60s\" vs \"%.60s\"", file_a,
              file_b, i, a + i, b + i);
    cr_assert_null(strstr(a, "%clock64"), "%s reads %%clock64", file_a);
    cr_assert_null(strstr(a, "%globaltimer"), "%s reads %%globaltimer", file_a);
    free(a);
    free(b);
    free(a_raw);
    free(b_raw);
}

Test(dev_compile, disabled_ptx_is_the_uninstrumented_ptx)
{
    assert_same_ptx("phases_c.disabled.sm_90.ptx", "phases_c.stripped.sm_90.ptx");
}

/* The benchmark kernels: source file, entry name, mark sites, phases
 * (PT_DEV_PHASES where END stands). */
static const struct bench_kernel {
    const char *file, *entry;
    int marks, phases;
} bench[] = {
    { "gemm", "gemm", 3, 3 },
    { "attention", "attention", 6, 6 },
    { "dynamic", "dynamic", 1, 5 },
    { "helper", "solve", 4, 4 }, /* two marks in the kernel, one in each helper */
};
#define NBENCH (sizeof bench / sizeof bench[0])

static kstat_regs bench_regs(const struct bench_kernel *k, const char *form, const char *arch)
{
    char name[256], *rep;
    kstat_regs r;
    snprintf(name, sizeof name, "bench/%s.%s.%s.ptxas.txt", k->file, form, arch);
    rep = read_kernel_file(name);
    cr_assert_eq(kstat_ptxas(rep, k->entry, &r), 0, "%s: no figures for %s", name, k->entry);
    free(rep);
    cr_log_info("%s: %d registers, %d bytes stack, %d/%d bytes spilled", name, r.regs, r.stack,
                r.spill_stores, r.spill_loads);
    return r;
}

/* Checks ptxas -v's report: no spills and no stack for any kernel, phases
 * known at run time included (make bench-static prints the registers). */
static void check_ptxas(const char *file)
{
    char *txt = read_kernel_file(file), kname[256];
    size_t pos = 0;
    int kernels = 0;

    while (kstat_ptxas_next(txt, &pos, kname, sizeof kname)) {
        kstat_regs r;
        cr_assert_eq(kstat_ptxas(txt, kname, &r), 0, "%s: no properties for %s", file, kname);
        cr_assert_eq(r.spill_stores, 0, "%s: %s spills %d bytes", file, kname, r.spill_stores);
        cr_assert_eq(r.spill_loads, 0, "%s: %s reloads %d spilled bytes", file, kname,
                     r.spill_loads);
        cr_assert_eq(r.stack, 0, "%s: %s has a %d-byte stack frame", file, kname, r.stack);
        kernels++;
    }
    cr_assert_gt(kernels, 0, "%s: no kernel in the ptxas report", file);
    free(txt);
}

Test(dev_compile, no_spills_no_stack_sm80)
{
    check_ptxas("phases_c.sm_80.ptxas.txt");
    for (size_t i = 0; i < NBENCH; i++) {
        char name[256];
        snprintf(name, sizeof name, "bench/%s.ptkit.sm_80.ptxas.txt", bench[i].file);
        check_ptxas(name);
    }
}

Test(dev_compile, no_spills_no_stack_sm90)
{
    check_ptxas("phases_c.sm_90.ptxas.txt");
    check_ptxas("phases_cpp.sm_90.ptxas.txt");
    check_ptxas("roles.sm_90.ptxas.txt"); /* a buffer per warp role */
    for (size_t i = 0; i < NBENCH; i++) {
        char name[256];
        snprintf(name, sizeof name, "bench/%s.ptkit.sm_90.ptxas.txt", bench[i].file);
        check_ptxas(name);
    }
}

Test(dev_compile, shared_mode_takes_no_more_registers_than_the_hand_pattern)
{
    /* The default mode keeps the block's figures in shared memory: every
     * benchmark kernel, the one with run-time phases and the one marking
     * in helpers included, holds at most the registers of the same kernel
     * with the hand-written `times[i] += clock64() - t0`, and no stack.
     * Register mode is checked for no stack only: its accumulators cost
     * registers per phase (bench-static shows how many). */
    for (size_t i = 0; i < NBENCH; i++) {
        kstat_regs k = bench_regs(&bench[i], "ptkit", "sm_90");
        kstat_regs h = bench_regs(&bench[i], "hand", "sm_90");
        kstat_regs r = bench_regs(&bench[i], "reg", "sm_90");
        cr_assert_leq(k.regs, h.regs, "%s: %d registers with ptkit, %d by hand", bench[i].file,
                      k.regs, h.regs);
        cr_assert_eq(k.stack + k.spill_stores, 0, "%s: stack or spills in shared-memory mode",
                     bench[i].file);
        cr_assert_eq(r.stack + r.spill_stores, 0, "%s: stack or spills in register mode",
                     bench[i].file);
    }
}

/* Instructions and registers of kernel `entry` of tests/kernels/cost_warp.cu. */
static long warp_cost(const char *entry, int *regs)
{
    char *rep = read_kernel_file("bench/cost_warp.sm_90.ptxas.txt"), *cubin;
    kstat_regs r;
    long code;
    cr_assert_eq(kstat_ptxas(rep, entry, &r), 0, "cost_warp: no figures for %s", entry);
    free(rep);
    cubin = kernel_path("bench/cost_warp.sm_90.cubin");
    code = kstat_code(cubin, entry);
    cr_assert_gt(code, 0, "%s: no code for %s", cubin, entry);
    free(cubin);
    *regs = r.regs;
    return code;
}

Test(dev_compile, a_roles_mark_and_a_span_event_cost_no_more_than_a_phase_mark)
{
    /* Per-warp records with trace stores, where roles and spans live: a
     * mark under PT_DEV_BEGIN_ROLE adds no more code than one under
     * PT_DEV_BEGIN, a span's begin or end no more than a phase mark, and
     * neither more registers (the loops of tests/kernels/cost_warp.cu;
     * bench-static prints the figures). */
    int r1, r8, o1, o8, rs;
    long m1 = warp_cost("costw_marks1", &r1), m8 = warp_cost("costw_marks8", &r8);
    long role1 = warp_cost("costw_role1", &o1), role8 = warp_cost("costw_role8", &o8);
    long sp = warp_cost("costw_spans8", &rs);
    cr_log_info("a phase mark %.1f instructions, a role's %.1f, a span event %.1f; registers "
                "%d (8 marks), %d (8 under a role), %d (4 spans, 1 mark)",
                (double)(m8 - m1) / 7, (double)(role8 - role1) / 7, (double)(sp - m1) / 8, r8,
                o8, rs);
    cr_assert_leq(role8 - role1, m8 - m1, "7 marks under a role: %ld instructions, %ld without",
                  role8 - role1, m8 - m1);
    cr_assert_leq(o8, r8, "8 marks under a role: %d registers, %d without", o8, r8);
    cr_assert_leq(7 * (sp - m1), 8 * (m8 - m1),
                  "8 span events: %ld instructions, against %ld for 7 phase marks", sp - m1,
                  m8 - m1);
    cr_assert_leq(rs, r8, "4 spans and a mark: %d registers, 8 marks %d", rs, r8);
}

Test(dev_compile, shared_mode_array_is_sized_by_the_phases)
{
    /* PT_DEV_BEGIN declares one 16-byte-aligned __shared__ array of
     * PT_DEV_PHASES + 3 pairs (BEGIN's clocks, a pair per phase, the bad
     * marks', the last mark's clock); register mode declares none. */
    for (size_t i = 0; i < NBENCH; i++) {
        char name[256], decl[128], *ptx;
        snprintf(name, sizeof name, "bench/%s.ptkit.sm_90.ptx", bench[i].file);
        ptx = read_kernel_file(name);
        snprintf(decl, sizeof decl, "pt__dev_acc[%d];", 16 * (bench[i].phases + 3));
        cr_assert_not_null(strstr(ptx, decl), "%s: no shared array of %d bytes", name,
                           16 * (bench[i].phases + 3));
        cr_assert_eq(kstat_count(ptx, strlen(ptx), "pt__dev_acc["), 1, "%s: more than one array",
                     name);
        cr_assert_not_null(strstr(ptx, ".shared .align 16 .b8 "), "%s: array not 16-byte aligned",
                           name);
        free(ptx);
        snprintf(name, sizeof name, "bench/%s.reg.sm_90.ptx", bench[i].file);
        ptx = read_kernel_file(name);
        cr_assert_null(strstr(ptx, "pt__dev_acc"), "%s: register mode declares the array", name);
        free(ptx);
    }
}

Test(dev_compile, gemm_keeps_two_blocks_of_1024_threads_per_sm)
{
    /* 65536 registers per SM: 32 per thread lets two 1024-thread blocks
     * run at once, as the kernel without ptkit does. */
    kstat_regs orig = bench_regs(&bench[0], "orig", "sm_90");
    kstat_regs k90 = bench_regs(&bench[0], "ptkit", "sm_90");
    kstat_regs k80 = bench_regs(&bench[0], "ptkit", "sm_80");
    cr_assert_leq(orig.regs, 32, "the GEMM itself takes %d registers; the test assumes <= 32",
                  orig.regs);
    cr_assert_leq(k90.regs, 32, "the GEMM with marks takes %d registers on sm_90, above 32",
                  k90.regs);
    cr_assert_leq(k80.regs, 32, "the GEMM with marks takes %d registers on sm_80, above 32",
                  k80.regs);
    k90 = bench_regs(&bench[0], "reg", "sm_90");
    cr_assert_leq(k90.regs, 32, "the GEMM with marks in registers takes %d registers on sm_90",
                  k90.regs);
}

Test(dev_compile, debug_build_of_a_1024_thread_kernel_launches)
{
    /* nvcc -G: a 1024-thread block needs at most 64 registers a thread,
     * in either mode. */
    kstat_regs g = bench_regs(&bench[0], "ptkit", "G.sm_90");
    kstat_regs gr = bench_regs(&bench[0], "reg", "G.sm_90");
    cr_assert_leq(g.regs, 64, "the GEMM with marks built with -G takes %d registers: a "
                  "1024-thread block would not launch", g.regs);
    cr_assert_leq(gr.regs, 64, "the GEMM with marks in registers built with -G takes %d "
                  "registers: a 1024-thread block would not launch", gr.regs);
}

Test(dev_compile, disabled_ptx_is_the_original_ptx)
{
    /* forms.h: the ptkit form with PT_DEV_DISABLE against the kernel as
     * written without ptkit; the helper kernel passes the state down. */
    for (size_t i = 0; i < NBENCH; i++) {
        char off[256], orig[256];
        snprintf(off, sizeof off, "bench/%s.off.sm_90.ptx", bench[i].file);
        snprintf(orig, sizeof orig, "bench/%s.orig.sm_90.ptx", bench[i].file);
        assert_same_ptx(off, orig);
    }
}

/* 64-bit stores in an entry's PTX: ptkit's only (the kernels store floats). */
static int stores64(const char *ptx, size_t len)
{
    return kstat_ptx_ops(ptx, len, "st.global.u64") + kstat_ptx_ops(ptx, len, "st.global.v2.u64") +
           kstat_ptx_ops(ptx, len, "st.u64") + kstat_ptx_ops(ptx, len, "st.v2.u64") +
           kstat_ptx_ops(ptx, len, "st.release.");
}

/* 32-bit integer stores: END's copy of the pairs, in halves. */
static int stores32(const char *ptx, size_t len)
{
    return kstat_ptx_ops(ptx, len, "st.global.u32") + kstat_ptx_ops(ptx, len, "st.u32");
}

/* The 64-bit stores of kernel k's entry in its `form` PTX, and in *halves
 * (when given) its 32-bit integer ones; with check_marks, its clock reads
 * are checked against the rule too. */
static int entry_stores64(const struct bench_kernel *k, const char *form, int check_marks,
                          int *halves)
{
    char name[256], *ptx;
    const char *e;
    size_t len;
    int n;
    snprintf(name, sizeof name, "bench/%s.%s.sm_90.ptx", k->file, form);
    ptx = read_kernel_file(name);
    e = kstat_ptx_entry(ptx, k->entry, &len);
    cr_assert_not_null(e, "%s: no entry %s", name, k->entry);
    n = stores64(e, len);
    if (halves)
        *halves = stores32(e, len);
    if (check_marks)
        check_clocks(name, k->entry, e, len, k->marks, 1);
    free(ptx);
    return n;
}

Test(dev_compile, no_trace_store_unless_asked)
{
    /* Without PT_DEV_TRACING the only stores are END's. In shared-memory
     * mode (the default): the four clocks, one by one as END reads or
     * loads them, %smid, the bad marks, the trace counts and %smid again
     * one word at a time (a 128-bit store takes four registers), DONE (an
     * increment, no store), and the loop over the phases, which moves the
     * pairs as 32-bit halves, two a turn (one store more for an odd turn
     * NVVM cannot rule out), however many phases and marks there are. In
     * register mode: the clocks as two 128-bit pairs, the same five words
     * and DONE, and a 128-bit pair per phase. With PT_DEV_TRACING every
     * mark site gets its trace store. */
    for (size_t i = 0; i < NBENCH; i++) {
        const struct bench_kernel *k = &bench[i];
        int orig_halves, halves;
        int orig = entry_stores64(k, "orig", 0, &orig_halves),
            agg = entry_stores64(k, "ptkit", 1, &halves),
            reg = entry_stores64(k, "reg", 1, NULL), trace = entry_stores64(k, "trace", 1, NULL);
        cr_assert_eq(orig, 0, "%s: the kernel itself stores 64-bit values; the test assumes not",
                     k->file);
        cr_assert_eq(orig_halves, 0,
                     "%s: the kernel itself stores 32-bit integers; the test assumes not", k->file);
        cr_assert_eq(agg, 9,
                     "%s: %d 64-bit stores without trace stores, expected END's 9 (the header; "
                     "DONE is an increment, the pairs move in halves)", k->file, agg);
        cr_assert(halves >= 2 && halves <= 3,
                  "%s: %d 32-bit stores in END's copy of the pairs, expected 2 (two halves a "
                  "turn) and at most one more (an odd turn)", k->file, halves);
        cr_assert_eq(reg, 7 + k->phases,
                     "%s: %d 64-bit stores in register mode, expected END's %d "
                     "(7 for the header, one per phase)",
                     k->file, reg, 7 + k->phases);
        cr_assert_geq(trace, agg + k->marks,
                      "%s: %d 64-bit stores with PT_DEV_TRACING, expected at least %d "
                      "(one more per mark site)",
                      k->file, trace, agg + k->marks);
    }
}

/* The floating-point instructions of entry `kernel` in a built PTX file,
 * in order; the test fails when there are none (nothing would be compared). */
static char *float_ops(const char *name, const char *kernel)
{
    char *ptx = read_kernel_file(name), *ops;
    size_t len;
    const char *e = kstat_ptx_entry(ptx, kernel, &len);
    cr_assert_not_null(e, "%s: no entry %s", name, kernel);
    ops = kstat_ptx_float_ops(e, len);
    cr_assert_not_null(ops);
    cr_assert_neq(strlen(ops), 0, "%s: no floating-point instruction in %s", name, kernel);
    free(ptx);
    return ops;
}

/* The first line where two lists of instructions part, for the message. */
static void first_difference(const char *a, const char *b, char *out, size_t n)
{
    int line = 1;
    while (*a && *a == *b) {
        line += *a == '\n';
        a++, b++;
    }
    snprintf(out, n, "line %d: \"%.*s\" against \"%.*s\"", line, (int)strcspn(a, "\n"), a,
             (int)strcspn(b, "\n"), b);
}

Test(dev_compile, marks_leave_the_arithmetic_alone)
{
    /* A mark between a multiply and the add that uses it (contract.cu),
     * in every mode: the same floating-point instructions in the same
     * order as without marks, fma where there was fma. A mark that split
     * the code into basic blocks left a mul and an add, rounded twice.
     * Then the benchmark kernels in the default mode and with trace
     * stores, against the kernel without ptkit; the GEMM and the attention
     * pass in register mode too (the other two unroll differently there,
     * so their instructions come in another order). */
    static const char *const modes[] = { "smem", "reg", "smem_trace", "reg_trace", "warp" };
    char *off = float_ops("contract.off.sm_90.ptx", "contract"), why[256];

    cr_assert(strstr(off, "fma.rn.f32"), "contract.cu has fma without marks:\n%s", off);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        char name[64], *ops;
        snprintf(name, sizeof name, "contract.%s.sm_90.ptx", modes[i]);
        ops = float_ops(name, "contract");
        first_difference(ops, off, why, sizeof why);
        cr_assert_str_eq(ops, off, "%s: other arithmetic than without marks (%s)", name, why);
        free(ops);
    }
    free(off);
    for (size_t i = 0; i < NBENCH; i++) {
        static const char *const forms[] = { "ptkit", "trace", "reg" };
        char name[256], *orig, *ops;
        snprintf(name, sizeof name, "bench/%s.orig.sm_90.ptx", bench[i].file);
        orig = float_ops(name, bench[i].entry);
        for (size_t f = 0; f < (i < 2 ? 3u : 2u); f++) {
            snprintf(name, sizeof name, "bench/%s.%s.sm_90.ptx", bench[i].file, forms[f]);
            ops = float_ops(name, bench[i].entry);
            first_difference(ops, orig, why, sizeof why);
            cr_assert_str_eq(ops, orig, "%s: other arithmetic than the original (%s)", name, why);
            free(ops);
        }
        free(orig);
    }
}

Test(dev_compile, publish_is_a_plain_increment_or_a_release_one_when_asked)
{
    /* DONE is incremented (a slot two blocks wrote reads 2) by a plain
     * reduction: the records are read after the kernel. With
     * PT_DEV_END_RELEASE the reduction has release semantics, ordering the
     * record's stores before it. Either way no sequentially consistent
     * fence (membar.gl / fence.sc.gpu, which invalidates the SM's L1). */
    static const char *const form[2] = { "ptkit", "release" };
    for (size_t i = 0; i < NBENCH; i++) {
        for (int f = 0; f < 2; f++) {
            char name[256], *ptx;
            size_t len;
            const char *e;
            snprintf(name, sizeof name, "bench/%s.%s.sm_90.ptx", bench[i].file, form[f]);
            ptx = read_kernel_file(name);
            e = kstat_ptx_entry(ptx, bench[i].entry, &len);
            cr_assert_not_null(e, "%s", name);
            cr_assert_eq(kstat_ptx_ops(e, len, "red.release.gpu.global.add.u64"), f,
                         "%s: %d release increments of DONE", name, f);
            /* And the bad slot's count, a plain increment in both. */
            cr_assert_eq(kstat_ptx_ops(e, len, "red.global.add.u64"), 2 - f,
                         "%s: %d plain increments (DONE's, and a bad slot's)", name, 2 - f);
            cr_assert_eq(kstat_count(e, len, "membar.gl") + kstat_count(e, len, "fence.sc"), 0,
                         "%s: a sequentially consistent fence is left", name);
            free(ptx);
        }
    }
}

Test(dev_compile, constant_phases_out_of_range_and_marks_without_begin_stop_the_build)
{
    /* tests/kernels/mark_cases.cu, once per case under nvcc: 1 builds,
     * 2-4 stop at the phase check, 5 at the state's name. */
    char *list = read_kernel_file("mark_cases.txt");
    for (int c = 1; c <= 5; c++) {
        char name[64], *log;
        const char *at = list;
        int k, r, rc = -1;
        for (; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL)
            if (sscanf(at, "%d %d", &k, &r) == 2 && k == c)
                rc = r;
        cr_assert_neq(rc, -1, "case %d missing from mark_cases.txt", c);
        snprintf(name, sizeof name, "mark_cases.%d.log", c);
        log = read_kernel_file(name);
        if (c == 1)
            cr_assert_eq(rc, 0, "run-time phases did not build:\n%s", log);
        else
            cr_assert_neq(rc, 0, "case %d built", c);
        if (c >= 2 && c <= 4)
            cr_assert(strstr(log, "a constant phase outside [0, PT_DEV_PHASES)"),
                      "case %d: no word of the phase's range:\n%s", c, log);
        if (c == 5)
            cr_assert(strstr(log, "needs_PT_DEV_BEGIN_before_it"),
                      "a mark without BEGIN does not name BEGIN:\n%s", log);
        free(log);
    }
    free(list);
}

Test(dev_compile, host_device_function_runs_on_the_cpu)
{
    enum { NSLOTS = 3, NPHASES = 3, MS = 1000000 };
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
    /* Slot 2 returned before PT_DEV_END: BEGIN's guard wrote its record,
     * once, with the mark it made. */
    long long *r2 = r1 + PT_DEV_SLOT_WORDS(NPHASES, 0);
    cr_assert_eq(r2[PT_DEV_S_DONE], 1, "slot 2, which returned before END, has no record");
    cr_assert_eq(r2[PT_DEV_SLOT_HDR + 3], 1, "slot 2 phase 1 hits %lld", r2[PT_DEV_SLOT_HDR + 3]);
    cr_assert_eq(r2[PT_DEV_SLOT_HDR + 1], 0, "slot 2 phase 0 hits %lld", r2[PT_DEV_SLOT_HDR + 1]);
    cr_assert_geq(r2[PT_DEV_S_CLK1], r2[PT_DEV_S_CLK0], "slot 2's clocks");
    free(path);
}
