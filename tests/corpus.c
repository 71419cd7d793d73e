/* The marks on kernels nobody here wrote: tests/kernels/corpus/ rebuilds
 * kernels of public projects in their shape (corpus.h says which), and
 * each is compiled bare and with ptkit's marks in the default mode, for
 * sm_80 and sm_90 (tests/kernels/kernels.mk). With the marks a kernel
 * takes no stack and spills nothing it did not, and an SM holds as many
 * of its warps as without them (registers and shared memory, at the block
 * size its project launches), and its registers stay within the kernel's
 * own count rounded up to the allocation unit, but where over_unit says.
 * bench-static prints every figure, the register mode's too. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "kernels/corpus.h"
#include "kernels/kstat.h"

static kstat_regs figures(const corpus_kernel *k, const char *form, int arch)
{
    const char *b = getenv("PT_BUILD");
    char path[1024], sm[16];
    kstat_regs r;
    snprintf(path, sizeof path, "%s/kernels/corpus/%s.%s.ptxas.txt", b ? b : "build", k->file,
             form);
    char *rep = test_read_file(path);
    if (!rep)
        cr_skip_test("no %s: the corpus is built with CUDA (make CORPUS=1)", path);
    snprintf(sm, sizeof sm, "sm_%d", arch);
    cr_assert_eq(kstat_ptxas_arch(rep, k->entry, sm, &r), 0, "%s: no figures for %s on %s", path,
                 k->entry, sm);
    free(rep);
    return r;
}

Test(corpus, marks_keep_every_kernels_occupancy_and_add_no_stack)
{
    for (int i = 0; i < CORPUS_N; i++) {
        const corpus_kernel *k = &corpus[i];
        for (int arch = 80; arch <= 90; arch += 10) {
            kstat_regs o = figures(k, "orig", arch), p = figures(k, "ptkit", arch);
            int wo = corpus_warps(o.regs, k->threads, o.smem + k->dyn_smem, arch);
            int wp = corpus_warps(p.regs, k->threads, p.smem + k->dyn_smem, arch);
            cr_assert_leq(p.stack, o.stack, "%s on sm_%d: %d bytes of stack with marks, %d without",
                          k->entry, arch, p.stack, o.stack);
            cr_assert_leq(p.spill_stores, o.spill_stores, "%s on sm_%d: spills %d bytes with marks",
                          k->entry, arch, p.spill_stores);
            cr_assert_geq(wp, wo, "%s on sm_%d (after %s): %d warps an SM with marks, %d without "
                          "(registers %d -> %d, shared memory %d -> %d bytes)", k->entry, arch,
                          k->after, wp, wo, o.regs, p.regs, o.smem + k->dyn_smem,
                          p.smem + k->dyn_smem);
            cr_assert_gt(wo, 0, "%s: occupancy read", k->entry);
        }
    }
}

/* Where the marks still take registers past the allocation unit, what
 * they may take at most, and why (docs/cost.md, "On kernels written
 * elsewhere"): on sm_90 the 8x8 SGEMM's loop holds exactly 112 registers,
 * and what the marks or END keep across it (the array's address) takes it
 * to 114, as the hand-written pattern's state does; no occupancy is lost
 * (the test above). A kernel not listed here stays within its own count
 * rounded up to 8. */
static const struct {
    const char *entry;
    int arch, most;
} over_unit[] = {
    { "corpus_sgemm_8x8", 90, 114 },
};

Test(corpus, marks_keep_every_kernels_registers_to_its_allocation_unit)
{
    for (int i = 0; i < CORPUS_N; i++) {
        const corpus_kernel *k = &corpus[i];
        for (int arch = 80; arch <= 90; arch += 10) {
            kstat_regs o = figures(k, "orig", arch), p = figures(k, "ptkit", arch);
            int most = corpus_alloc(o.regs);
            for (size_t j = 0; j < sizeof over_unit / sizeof over_unit[0]; j++)
                if (strcmp(over_unit[j].entry, k->entry) == 0 && over_unit[j].arch == arch)
                    most = over_unit[j].most;
            cr_assert_leq(p.regs, most, "%s on sm_%d (after %s): %d registers with marks, %d "
                          "without: at most %d", k->entry, arch, k->after, p.regs, o.regs, most);
        }
    }
}

Test(corpus, occupancy_follows_registers_blocks_and_shared_memory)
{
    /* corpus_warps() itself, on cases worked by hand: 32 registers let
     * 2,048 threads run, 33 (allocated as 40) 1,536, so 1024-thread blocks
     * drop from 2 to 1; shared memory of 100 KB fits twice in 228 KB,
     * once in 164 KB. */
    cr_assert_eq(corpus_warps(32, 1024, 0, 90), 64);
    cr_assert_eq(corpus_warps(33, 1024, 0, 90), 32);
    cr_assert_eq(corpus_warps(112, 256, 0, 90), 16);
    cr_assert_eq(corpus_warps(114, 256, 0, 90), 16);
    cr_assert_eq(corpus_warps(32, 128, 100 * 1024, 90), 8);
    cr_assert_eq(corpus_warps(32, 128, 100 * 1024, 80), 4);
    cr_assert_eq(corpus_warps(24, 32, 0, 90), 32);
}
