/* bench-static: what pt_dev.h's macros compile to, with no GPU. For each
 * benchmark kernel of tests/kernels/ (a tiled SGEMM of 1024-thread blocks,
 * an attention forward pass with nested loops and six phases, a kernel
 * whose phases are known only at run time, a solver that marks in its
 * helper functions), in four forms (the original; with ptkit's macros in
 * their default shared-memory mode and with PT_DEV_SHARED=0, in registers;
 * with the hand-written `t1 = clock64(); times[i] += t1 - t0` pattern):
 * registers (and the warps per SM they allow), stack, code size and the -G
 * build's registers, and the ratio of what each ptkit mode adds to what
 * the hand-written pattern adds, with the goals each mode meets. Then
 * what each macro costs on its own (tests/kernels/cost.cu).
 *
 * Registers and stack come from ptxas -v; code is the instructions in the
 * kernel's .text section of the cubin, the padding after the last one left
 * out. With a disassembler (NVDISASM=path, or nvdisasm on the PATH) it also
 * counts, per kernel, the clock reads, local loads and stores, barriers and
 * memory fences.
 *
 * usage: bench_static BENCH_DIR   (the build's kernels/bench folder) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common.h"
#include "../kernels/corpus.h"
#include "../kernels/kstat.h"

static const char *dir;
static const char *nvdisasm;

typedef struct fig {
    kstat_regs r;  /* -1 when unknown */
    long code;     /* instructions, -1 when unknown */
    int g_regs;    /* the -G build's registers, -1 when unknown */
} fig;

static void path(char *out, size_t n, const char *kernel_file, const char *form, const char *ext)
{
    snprintf(out, n, "%s/%s.%s.%s", dir, kernel_file, form, ext);
}

static int regs_of(const char *report_path, const char *entry, kstat_regs *r)
{
    char *rep = test_read_file(report_path);
    int rc = rep ? kstat_ptxas(rep, entry, r) : -1;
    free(rep);
    return rc;
}

static fig measure(const char *file, const char *entry, const char *form)
{
    char p[1024];
    fig f;
    kstat_regs g;
    memset(&f.r, 0xff, sizeof f.r);
    path(p, sizeof p, file, form, "sm_90.ptxas.txt");
    if (regs_of(p, entry, &f.r) != 0)
        memset(&f.r, 0xff, sizeof f.r);
    path(p, sizeof p, file, form, "sm_90.cubin");
    f.code = kstat_code(p, entry);
    path(p, sizeof p, file, form, "G.sm_90.ptxas.txt");
    f.g_regs = regs_of(p, entry, &g) == 0 ? g.regs : -1;
    return f;
}

/* The opcode of one nvdisasm line (after the address comment and a
 * predicate, if any), or "". */
static const char *opcode(const char *line, char *op, size_t n)
{
    const char *p = strstr(line, "*/");
    size_t len;
    op[0] = '\0';
    if (!p)
        return op;
    p += 2;
    p += strspn(p, " \t");
    if (*p == '@') /* a predicate */
        p += strcspn(p, " \t"), p += strspn(p, " \t");
    len = strcspn(p, " \t;");
    snprintf(op, n, "%.*s", (int)len, p);
    return op;
}

/* With a disassembler: the kernel's clock reads, local loads and stores,
 * barriers, memory fences (sequentially consistent ones) and cache
 * invalidations, into out; "" without one. */
static void sass_counts(const char *cubin, const char *entry, char *out, size_t n)
{
    char tmp[] = "/tmp/pt_bench_static_XXXXXX", cmd[2048], line[512], op[64];
    int clock = 0, ldl = 0, stl = 0, bar = 0, membar = 0, sc = 0, cctl = 0;
    size_t len = 0;
    unsigned char *text;
    FILE *f, *p;
    int fd;

    out[0] = '\0';
    if (!nvdisasm || !(text = kstat_text(cubin, entry, &len)))
        return;
    fd = mkstemp(tmp);
    f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f || fwrite(text, 1, len, f) != len) {
        if (f)
            fclose(f);
        free(text);
        unlink(tmp);
        return;
    }
    fclose(f);
    free(text);
    snprintf(cmd, sizeof cmd, "'%s' -b SM90 '%s' 2>/dev/null", nvdisasm, tmp);
    if ((p = popen(cmd, "r")) != NULL) {
        while (fgets(line, sizeof line, p)) {
            opcode(line, op, sizeof op);
            clock += strstr(line, "SR_CLOCKLO") != NULL;
            ldl += strncmp(op, "LDL", 3) == 0;
            stl += strncmp(op, "STL", 3) == 0;
            bar += strncmp(op, "BAR", 3) == 0;
            membar += strncmp(op, "MEMBAR", 6) == 0;
            sc += strncmp(op, "MEMBAR.SC", 9) == 0;
            cctl += strncmp(op, "CCTL", 4) == 0;
        }
        if (pclose(p) == 0)
            snprintf(out, n, "  clock %d, LDL %d, STL %d, BAR %d, MEMBAR %d (.SC %d), CCTL %d",
                     clock, ldl, stl, bar, membar, sc, cctl);
    }
    unlink(tmp);
}

/* The warps an SM of sm_90 can hold as far as registers go: 65,536
 * registers, given to a warp in units of 256 (8 a thread), at most 64
 * warps; -1 when unknown. Blocks round it down further, by whole blocks. */
static int reg_warps(int regs)
{
    int per_warp = 32 * ((regs + 7) / 8 * 8);
    if (regs <= 0)
        return -1;
    return 65536 / per_warp < 64 ? 65536 / per_warp : 64;
}

static void show(const char *label, const char *form_name, fig f, const char *file,
                 const char *entry, const char *form)
{
    char cubin[1024], extra[256];
    path(cubin, sizeof cubin, file, form, "sm_90.cubin");
    sass_counts(cubin, entry, extra, sizeof extra);
    printf("%-10s %-9s %5d %6d %6d %6ld %8d%s\n", label, form_name, f.r.regs, reg_warps(f.r.regs),
           f.r.stack, f.code, f.g_regs, extra);
}

static int goals_failed;

static void goal(int ok, const char *what)
{
    printf("  goal: %-68s %s\n", what, ok ? "met" : "NOT MET");
    goals_failed += !ok;
}

static void ratio(const char *what, long ptkit, long hand)
{
    if (hand > 0)
        printf(" %s ptkit %+ld, by hand %+ld: %.2fx;", what, ptkit, hand, (double)ptkit / (double)hand);
    else
        printf(" %s ptkit %+ld, by hand %+ld;", what, ptkit, hand);
}

/* The goals of one instrumented form against the original and the hand
 * pattern; big_blocks: the kernel may run 1024-thread blocks, which a -G
 * build must still launch (the attention kernel's blocks have 32 threads). */
static void form_goals(const char *mode, fig o, fig k, fig h, int big_blocks)
{
    char what[128];
    printf("  %s added:", mode);
    ratio("registers", (long)k.r.regs - o.r.regs, (long)h.r.regs - o.r.regs);
    ratio("code", k.code - o.code, h.code - o.code);
    printf("\n");
    snprintf(what, sizeof what, "%s adds at most 2x the code the hand pattern adds", mode);
    goal(k.code - o.code <= 2 * (h.code - o.code), what);
    snprintf(what, sizeof what, "%s: no stack, no spills", mode);
    goal(k.r.stack == 0 && k.r.spill_stores == 0, what);
    snprintf(what, sizeof what, "%s: occupancy kept (warps per SM the registers allow)", mode);
    goal(reg_warps(k.r.regs) >= reg_warps(o.r.regs), what);
    snprintf(what, sizeof what, "%s: registers at most the hand pattern's", mode);
    goal(k.r.regs <= h.r.regs, what);
    if (big_blocks) {
        snprintf(what, sizeof what, "%s: -G build at most 64 registers (1024 threads launch)", mode);
        goal(k.g_regs >= 0 && k.g_regs <= 64, what);
    }
}

/* The kernel in its four forms: the original, ptkit's default (the
 * accumulators in shared memory), ptkit with PT_DEV_SHARED=0 (in
 * registers), the hand-written pattern. */
static void kernel_row(const char *file, const char *entry, const char *label, int big_blocks)
{
    fig o = measure(file, entry, "orig"), k = measure(file, entry, "ptkit"),
        r = measure(file, entry, "reg"), h = measure(file, entry, "hand");
    show(label, "original", o, file, entry, "orig");
    show("", "shared", k, file, entry, "ptkit");
    show("", "registers", r, file, entry, "reg");
    show("", "by hand", h, file, entry, "hand");
    form_goals("shared", o, k, h, big_blocks);
    form_goals("registers", o, r, h, big_blocks);
}

/* The corpus (tests/kernels/corpus/, corpus.h): each kernel bare, with
 * ptkit in shared memory (the default) and in registers, on sm_80 and
 * sm_90: registers, stack, static shared memory and the warps an SM holds
 * at the block size its project launches; the default mode held to the
 * kernel's registers rounded up to the allocation unit, its occupancy and
 * its stack. Read from BENCH_DIR/../corpus. */
static void corpus_rows(void)
{
    static const char *const forms[3] = { "orig", "ptkit", "reg" };
    static const char *const names[3] = { "original", "shared", "registers" };
    printf("\nthe corpus: kernels of public projects rebuilt in their shape "
           "(tests/kernels/corpus/)\n%-18s %-6s %-9s %5s %6s %6s %6s\n", "kernel", "arch",
           "form", "regs", "stack", "smem", "warps");
    for (int i = 0; i < CORPUS_N; i++) {
        const corpus_kernel *k = &corpus[i];
        for (int arch = 80; arch <= 90; arch += 10) {
            kstat_regs r[3];
            char p[1024], sm[16];
            snprintf(sm, sizeof sm, "sm_%d", arch);
            for (int f = 0; f < 3; f++) {
                snprintf(p, sizeof p, "%s/../corpus/%s.%s.ptxas.txt", dir, k->file, forms[f]);
                char *rep = test_read_file(p);
                if (!rep || kstat_ptxas_arch(rep, k->entry, sm, &r[f]) != 0)
                    memset(&r[f], 0xff, sizeof r[f]);
                free(rep);
                printf("%-18s %-6s %-9s %5d %6d %6d %6d\n", f ? "" : k->entry, f ? "" : sm,
                       names[f], r[f].regs, r[f].stack, r[f].smem + k->dyn_smem,
                       corpus_warps(r[f].regs, k->threads, r[f].smem + k->dyn_smem, arch));
            }
            char what[160];
            snprintf(what, sizeof what, "%s, %s: shared: registers at most %d (its own rounded "
                     "to 8)", k->entry, sm, corpus_alloc(r[0].regs));
            goal(r[1].regs >= 0 && r[1].regs <= corpus_alloc(r[0].regs), what);
            snprintf(what, sizeof what, "%s, %s: shared: occupancy and stack kept", k->entry, sm);
            goal(r[1].regs >= 0 && r[1].stack <= r[0].stack &&
                     corpus_warps(r[1].regs, k->threads, r[1].smem + k->dyn_smem, arch) >=
                         corpus_warps(r[0].regs, k->threads, r[0].smem + k->dyn_smem, arch),
                 what);
        }
    }
}

/* The instructions and registers of kernel `entry` of tests/kernels/<file>.cu. */
static long cost_in(const char *file, const char *entry, int *regs)
{
    char p[1024];
    kstat_regs r;
    snprintf(p, sizeof p, "%s/%s.sm_90.ptxas.txt", dir, file);
    *regs = regs_of(p, entry, &r) == 0 ? r.regs : -1;
    snprintf(p, sizeof p, "%s/%s.sm_90.cubin", dir, file);
    return kstat_code(p, entry);
}

static long cost(const char *entry, int *regs)
{
    return cost_in("cost", entry, regs);
}

/* A role's marks and a span's begin and end beside a phase mark, per-warp
 * records with trace stores (tests/kernels/cost_warp.cu). */
static void warp_costs(void)
{
    int r1, r8, rr1, rr8, rs;
    long m1 = cost_in("cost_warp", "costw_marks1", &r1);
    long m8 = cost_in("cost_warp", "costw_marks8", &r8);
    long o1 = cost_in("cost_warp", "costw_role1", &rr1);
    long o8 = cost_in("cost_warp", "costw_role8", &rr8);
    long sp = cost_in("cost_warp", "costw_spans8", &rs);
    double mark = (double)(m8 - m1) / 7, role = (double)(o8 - o1) / 7;
    double span = (double)(sp - m1) / 8;
    int known = m1 > 0 && m8 > 0 && o1 > 0 && o8 > 0 && sp > 0;

    printf("\nper-warp records with trace stores (a phase mark, a role's, a span's begin or end):\n");
    printf("  a phase mark %.1f instructions, a role's phase mark %.1f, a span begin or end %.1f; "
           "registers with 8 phases marked %d, under a role %d; 4 spans and a mark %d\n",
           mark, role, span, r8, rr8, rs);
    goal(known && role <= mark && rr8 <= r8, "a role's mark costs no more than a phase mark");
    goal(known && span <= mark && rs <= r8,
         "a span's begin or end costs no more than a phase mark");
}

int main(int argc, char **argv)
{
    int rb, r1, r3, r6, r16, rm1, rm8, rd, rh1, rh8;
    long bare, n1, n3, n6, n16, m1, m8, dyn, h1, h8;
    fig g;

    if (argc != 2) {
        fprintf(stderr, "usage: bench_static BENCH_DIR\n");
        return 2;
    }
    dir = argv[1];
    nvdisasm = getenv("NVDISASM");
    if (!nvdisasm || !*nvdisasm)
        nvdisasm = system("command -v nvdisasm >/dev/null 2>&1") == 0 ? "nvdisasm" : NULL;

    printf("ptkit bench-static: the device macros, compiled for sm_90 (no GPU needed)\n"
           "registers and stack from ptxas -v; warps: per SM, as far as registers allow (of "
           "64); code in instructions of the kernel's .text section%s\n\n",
           nvdisasm ? "; counts from nvdisasm" : "");
    printf("%-10s %-9s %5s %6s %6s %6s %8s\n", "kernel", "form", "regs", "warps", "stack", "code",
           "-G regs");
    kernel_row("gemm", "gemm", "gemm", 1);
    g = measure("gemm", "gemm", "ptkit");
    goal(g.r.regs >= 0 && g.r.regs <= 32, "shared: GEMM at most 32 registers (2 blocks per SM)");
    g = measure("gemm", "gemm", "reg");
    goal(g.r.regs >= 0 && g.r.regs <= 32, "registers: GEMM at most 32 registers (2 blocks per SM)");
    kernel_row("attention", "attention", "attention", 0); /* 32-thread blocks */
    kernel_row("dynamic", "dynamic", "dynamic", 1);
    kernel_row("helper", "solve", "helper", 1);
    corpus_rows();

    bare = cost("cost_bare", &rb);
    n1 = cost("cost_end_n1", &r1);
    n3 = cost("cost_end_n3", &r3);
    n6 = cost("cost_end_n6", &r6);
    n16 = cost("cost_end_n16", &r16);
    m1 = cost("cost_marks1", &rm1);
    m8 = cost("cost_marks8", &rm8);
    dyn = cost("cost_dyn_n6", &rd);
    h1 = cost("cost_hand1", &rh1);
    h8 = cost("cost_hand8", &rh8);
    printf("\nwhat each macro adds to a loop of arithmetic (%ld instructions, %d registers):\n", bare,
           rb);
    printf("  BEGIN + one mark + END, PT_DEV_PHASES 1 / 3 / 6 / 16 (default): "
           "%ld / %ld / %ld / %ld instructions, %d / %d / %d / %d registers\n",
           n1 - bare, n3 - bare, n6 - bare, n16 - bare, r1, r3, r6, r16);
    printf("  each further phase marked (8 phases, 1 -> 8 marks): %.1f instructions, %.1f "
           "registers\n",
           (double)(m8 - m1) / 7, (double)(rm8 - rm1) / 7);
    printf("  a phase known at run time (6 phases), over a constant one: %+ld instructions, "
           "%+d registers\n",
           dyn - n6, rd - r6);
    printf("  by hand: the first mark and its set-up %ld instructions, each further one %.1f\n",
           h1 - bare, (double)(h8 - h1) / 7);
    warp_costs();
    printf("\n%s\n", goals_failed ? "some goals not met (see above)" : "every goal met");
    return 0;
}
