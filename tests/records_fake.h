/* Block records written by hand, as pt_dev.h's END leaves them, for the
 * suites that fold without a kernel. Header-only. */
#ifndef PT_TEST_RECORDS_FAKE_H
#define PT_TEST_RECORDS_FAKE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <pt/pt_dev.h>

#include "common.h"
#include "cuda_fake.h"
#include "gpu/calibrate.h"

/* Slot s of b done (once more) on SM smid: clock64 from 1000000007 for clk_span
 * cycles, globaltimer from 5 s + gt0 for gt_span ns, each phase's cycles
 * and hits (one each when hits is NULL). Returns the record. */
static inline long long *test_slot(pt_dev_records *b, int s, long long smid, long long clk_span,
                                   long long gt0, long long gt_span, const long long *cycles,
                                   const long long *hits)
{
    pt_dev_buf a = pt_dev_arg(b);
    long long *r = a.data + PT_DEV_HDR + s * PT_DEV_SLOT_WORDS(a.nphases, a.trace_cap);
    r[PT_DEV_S_DONE] += 1; /* END counts the ENDs that wrote the slot since a reset */
    r[PT_DEV_S_SMID] = r[PT_DEV_S_SMID1] = smid;
    r[PT_DEV_S_CLK0] = 1000000007LL;
    r[PT_DEV_S_CLK1] = r[PT_DEV_S_CLK0] + clk_span;
    r[PT_DEV_S_GT0] = 5000000000LL + gt0;
    r[PT_DEV_S_GT1] = r[PT_DEV_S_GT0] + gt_span;
    for (int p = 0; p < a.nphases; p++) {
        r[PT_DEV_SLOT_HDR + 2 * p] = cycles[p];
        r[PT_DEV_SLOT_HDR + 2 * p + 1] = hits ? hits[p] : 1;
    }
    return r;
}

/* The fake CUDA runtime installed, host and device 0 calibrated at 2
 * cycles per ns with a 1000 ns tick, and a fresh folder
 * /tmp/ptkit-<tag>-XXXXXX in dir: the set-up of the suites that fold
 * fake records and write what they give. */
static inline void fake_run_setup(char *dir, size_t n, const char *tag)
{
    fake_install();
    pt__calib_set(-1, 2.0, 1000.0);
    pt__calib_set(0, 2.0, 1000.0);
    snprintf(dir, n, "/tmp/ptkit-%s-XXXXXX", tag);
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

/* The fixture of a suite of such tests: a timing `t` named "<suite> run"
 * with `flags` on the manual clock `clk`, the fake runtime and the folder
 * `dir` set up before each test and undone after it. */
#define FAKE_RUN_SUITE(suite, flags)                                                        \
    static test_clock clk;                                                                  \
    static pt_timing *t;                                                                    \
    static char dir[64];                                                                    \
    static void suite##_setup(void)                                                         \
    {                                                                                       \
        fake_run_setup(dir, sizeof dir, #suite);                                            \
        t = test_timing(&clk, #suite " run", (flags));                                      \
        cr_assert_not_null(t);                                                              \
    }                                                                                       \
    static void suite##_teardown(void)                                                      \
    {                                                                                       \
        pt_destroy(t);                                                                      \
        fake_run_teardown(dir);                                                             \
    }                                                                                       \
    TestSuite(suite, .init = suite##_setup, .fini = suite##_teardown)

/* ptreport ARGS (from $PT_BUILD, else build/), its stdout in dir/out.txt
 * and its stderr in dir/err.txt; its exit status. */
static inline int fake_ptreport(const char *dir, const char *args)
{
    const char *b = getenv("PT_BUILD");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/bin/ptreport %s > '%s/out.txt' 2> '%s/err.txt'",
             b && *b ? b : "build", args, dir, dir);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s", cmd);
    return WEXITSTATUS(st);
}

/* The text report of x, malloc'ed. */
static inline char *fake_report(pt_timing *x)
{
    test_text b = { 0 };
    cr_assert_eq(pt_log_fn(x, test_text_line, &b), 0);
    cr_assert_not_null(b.s);
    return b.s;
}

/* x packed, merged into a fresh timing once and twice (check(u, 1), then
 * check(u, 2)), and cut at each of its last `cuts` bytes (every 5th):
 * refused, nothing merged. */
static inline void fake_pack_twice(pt_timing *x, test_clock *clk,
                                   void (*check)(pt_timing *u, int times), size_t cuts)
{
    void *buf;
    size_t len;
    cr_assert_eq(pt_pack(x, &buf, &len), 0, "%s", pt_last_error(x));
    pt_timing *u = test_timing(clk, "merged", PT_CPU);
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    check(u, 1);
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    check(u, 2);
    pt_timing *v = test_timing(clk, "cut", PT_CPU);
    for (size_t cut = len - 1; cut + cuts > len && cut > 0; cut -= 5) {
        cr_assert_eq(pt_unpack_merge(v, buf, cut), PT_EPARSE, "cut at %zu", cut);
        cr_assert_null(pt_section_child(pt_root(v)), "cut at %zu: nothing merged", cut);
    }
    pt_destroy(v);
    pt_destroy(u);
    free(buf);
}

/* Undoes fake_run_setup(): the runtime removed, the folder deleted. */
static inline void fake_run_teardown(const char *dir)
{
    char cmd[128];
    fake_uninstall();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0, "removing %s", dir);
}

#endif
