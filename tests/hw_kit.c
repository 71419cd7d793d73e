/* The hardware kit ($PT_BUILD/hw-kit, tests/hw/hw.mk) without a GPU: it
 * holds what a lease runs, fits the size that travels, runs dry (says
 * there is no device and exits 0, writing nothing), and its summary reads
 * a canned set of logs (tests/hw/canned/) into the table it prints. */
#define _GNU_SOURCE /* setenv, popen, nftw */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

static char kit[512];

static void need_kit(void)
{
    const char *b = getenv("PT_BUILD");
    struct stat sb;
    snprintf(kit, sizeof kit, "%s/hw-kit", b ? b : "build");
    if (stat(test_path(kit, "COMMIT"), &sb) != 0)
        cr_skip_test("no hardware kit in %s: this build has CUDA=0 or HW_KIT=0 (make hw-kit)", kit);
}

TestSuite(hw_kit, .init = need_kit);

/* The output of `cmd` (stdout and stderr) and its exit status. */
static char *run(const char *cmd, int *status)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "%s", cmd);
    size_t cap = 1 << 16, n = 0, got;
    char *out = malloc(cap);
    cr_assert_not_null(out);
    while ((got = fread(out + n, 1, cap - 1 - n, p)) > 0) {
        n += got;
        if (n + 1 == cap) {
            cap *= 2;
            out = realloc(out, cap);
            cr_assert_not_null(out);
        }
    }
    out[n] = '\0';
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

static long long kit_bytes;
static int add_size(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)path, (void)ftw;
    if (type == FTW_F)
        kit_bytes += sb->st_size;
    return 0;
}

Test(hw_kit, holds_what_a_lease_runs_within_the_size_that_travels)
{
    static const char *const need[] = {
        "run", "summary.py", "COMMIT", "bin/ptkit_gpu_tests", "bin/ptkit_gpu_probe",
        "bin/bench_gpu", "bin/bench_graph_host", "samples/quickstart", "samples/transport_step",
        "samples/solver_phases", "samples/gpu_ops", "samples/nvrtc_phases", "samples/warp_roles",
        "samples/python/cupy_phases.py", "samples/python/three_phases.cuh",
        "samples/python/torch_ext/torch_phases.py", "python/ptkit/__init__.py",
        "python/ptkit/_lib/libptkit.so", "python/ptkit/include/pt/pt_dev.h",
        "bench/proton_matmul.py", "libs/libcriterion.so.3",
    };
    struct stat sb;
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        cr_assert_eq(stat(test_path(kit, need[i]), &sb), 0, "the kit lacks %s", need[i]);
    cr_assert(sb.st_size > 0);
    kit_bytes = 0;
    cr_assert_eq(nftw(kit, add_size, 16, FTW_PHYS), 0);
    cr_assert(kit_bytes <= 32LL << 20, "the kit is %.1f MiB, over 32", kit_bytes / 1048576.0);
    /* Never CUDA's own libraries, which the GPU machine has in its version. */
    cr_assert_neq(stat(test_path(kit, "libs/libcudart.so.13"), &sb), 0);
    cr_assert_neq(stat(test_path(kit, "libs/libnvrtc.so.13"), &sb), 0);
    cr_assert_neq(stat(test_path(kit, "libs/libstdc++.so.6"), &sb), 0);
}

Test(hw_kit, runs_dry_without_a_device_and_writes_nothing)
{
    char out[] = "/tmp/ptkit_hw_kit_XXXXXX", cmd[2048];
    cr_assert_not_null(mkdtemp(out));
    /* CUDA_VISIBLE_DEVICES= hides any device this machine has. */
    snprintf(cmd, sizeof cmd, "CUDA_VISIBLE_DEVICES= OUT=%s %s/run 2>&1", out, kit);
    int status;
    char *text = run(cmd, &status);
    cr_assert_eq(status, 0, "%s", text);
    cr_assert(strstr(text, "hw-kit: no CUDA device here ("), "%s", text);
    cr_assert(strstr(text, "nothing run"), "%s", text);
    struct stat sb;
    cr_assert_neq(stat(test_path(out, "summary.md"), &sb), 0, "a dry run wrote a summary");
    cr_assert_neq(stat(test_path(out, "logs.tar.gz"), &sb), 0, "a dry run wrote logs");
    free(text);
    rmdir(out);
}

/* What summary.py prints for the logs in dir; it must exit 0. */
static char *summary_of(const char *dir)
{
    char cmd[2048];
    int status;
    snprintf(cmd, sizeof cmd, "python3 %s/summary.py %s 2>&1", kit, dir);
    char *text = run(cmd, &status);
    cr_assert_eq(status, 0, "%s", text);
    return text;
}

/* Every one of the NULL-terminated rows is in text. */
static void expect_rows(const char *text, const char *const *rows)
{
    for (; *rows; rows++)
        cr_assert(strstr(text, *rows), "no \"%s\" in:\n%s", *rows, text);
}

Test(hw_kit, the_summary_reads_a_canned_log_into_its_table)
{
    static const char *const rows[] = {
        "| GPU suite, hardware size | 24 of 26 passed, 2 failed",
        "fail: gpu::event_time_of_a_known_kernel",
        "fail: gpu::a_tma_wgmma_pipeline_multiplies_exactly_and_pairs_its_async_spans |  | "
        "tests/gpu/gpu.c:571: Unexpected signal caught below this line!; CRASH!",
        "cycles per span event | met (<= a phase mark's)",
        "SGEMM 4096x4096 slowdown | **NOT met**",
        "outputs DIFFERENT",
        "compute-sanitizer racecheck | **NOT met**",
        "report: 1 note; 4 slots skipped",
        "compute-sanitizer synccheck | skipped",
        "|   graph replay, the host's work alone | ok, 0.4 s | 14.02 us a replay of 3 kernels",
        "|   graph replay, records out of the caches | ok, 0.4 s | 19.06 us a replay against "
        "14.43 with them in the caches",
        "|   graph replays on a paced fake GPU | ok, 0.4 s | at 64, 32, 16 and 12 us a replay: "
        "1.0008, 1.0021, 1.0068 and 1.2704 of its pace with the fold's own thread as needed "
        "(the default), 1.0018, 1.0019, 1.0169 and 1.3246 with it always, 1.0008, 1.0021, "
        "1.0986 and 1.2866 without",
        "|   the fold's own thread's CPU | ok, 0.4 s | 0.00, 0.26, 13.16 and 15.01 us a replay as "
        "needed, 9.68, 13.38, 14.52 and 15.61 us always",
        "|   pt_sync after the paced GPU's last replay | ok, 0.4 s | at 64 us a replay: 104 us as "
        "needed, 228 us always, 96 us never",
        "the fold's own thread as needed (the default) 1.0850, always 1.0790, never 1.1920 of "
        "bare (its CPU 9.85 us a replay as needed, 38.40 always; pt_sync after the GPU's last "
        "replay 310 us as needed, 290 always, 520 never)",
        NULL,
    };
    char *text = summary_of("tests/hw/canned");
    char *want = test_read_file("tests/hw/canned/summary.expected");
    cr_assert_not_null(want, "tests/hw/canned/summary.expected");
    cr_assert_str_eq(text, want);
    /* What the table must say of the canned run, whatever its layout. */
    expect_rows(text, rows);
    free(text);
    free(want);
}

Test(hw_kit, the_summary_of_an_empty_folder_says_what_is_missing)
{
    static const char *const rows[] = {
        "| card | no log |",
        "| GPU suite, hardware size | not run | no log |",
        "| compute-sanitizer memcheck | not run | no log |",
        NULL,
    };
    char dir[] = "/tmp/ptkit_hw_sum_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *text = summary_of(dir);
    expect_rows(text, rows);
    free(text);
    rmdir(dir);
}

Test(hw_kit, the_summary_reads_the_last_hardware_record)
{
    /* The logs an H200 gave (docs/hardware/2026-11-28-h200/run5): the
     * parser must still read what the kit really writes, the graph's ring
     * and its copy nodes among it. That kit had no bench_graph_host: its
     * row says so. */
    static const char *const rows[] = {
        "| card | NVIDIA H200, driver 580.159.04, CUDA 13.0 |",
        "| GPU suite, hardware size | 41 of 41 passed, 0 failed, 0 crashed |",
        "|   phases against their spins and windows | met | worst phase off by 0.156% over 20 "
        "checks",
        "|   phases against their spins alone | **NOT met** (<= 1%) | most beside its spin: phase 1 "
        "of 16 phases x 10000 ns x 10000 records, 544 ns (5.424%); 19 of 20 cases within 1% |",
        "SM 1.9795 GHz (rated 1.9800), globaltimer tick 32 ns",
        "ptkit (registers) +1.88 %",
        "| compute-sanitizer memcheck | met (0 errors in ptkit's code) | 35 tests ran",
        "1 errors, 0 of them in ptkit's code, 1 in the suite's own kernels",
        "| sample torch | ok, 17.9 s, on the GPU | report: no warning |",
        "|   graph replays, pt_graph_launch | **NOT met** (<= 1.01 of bare) | 1.3058 of bare "
        "over 1000 replays; a replay bare 63.7 us, ptkit 83.2 us; the bare graph between "
        "pt_start_gpu/pt_stop_gpu 1.0504 of bare;",
        "records back by the ring 1.3058, by copy nodes 1.2773 of bare |",
        "|   graph replays, timed by its kernels | **NOT met** (<= 1.01 of bare) | 1.3730 of bare",
        "|   graph replay, the host's work alone | not run | no log |",
        NULL,
    };
    char *text = summary_of("docs/hardware/2026-11-28-h200/run5");
    expect_rows(text, rows);
    free(text);
}

Test(hw_kit, a_sanitizer_error_counts_against_the_marks_unless_it_lies_wholly_in_a_kernel)
{
    /* The goal is that the marks add no error: a report whose every site
     * is a kernel's own file is that kernel's, and said so; one with a
     * site in ptkit's headers, or with no site at all, is ptkit's. */
    static const char *const head = "========= COMPUTE-SANITIZER\n";
    static const char *const kernel =
        "========= Error: Race reported between Write access at copy(void *)+0x10 in ring.cuh:70\n"
        "=========     and Read access at consume(float *)+0x20 in pipeline.cu:63 [12 hazards]\n"
        "=========\n";
    static const char *const marks =
        "========= Error: Race reported between Write access at k(pt_dev_buf)+0x30 in "
        "include/pt/detail/pt_dev_impl.h:414\n"
        "=========     and Read access at k(pt_dev_buf)+0x40 in pipeline.cu:63 [1 hazard]\n"
        "=========\n";
    char dir[] = "/tmp/ptkit_hw_san_XXXXXX", log[2048];
    cr_assert_not_null(mkdtemp(dir));

    snprintf(log, sizeof log, "%s%s========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 "
             "warnings)\n", head, kernel);
    cr_assert_eq(test_write_file(test_path(dir, "sanitizer_racecheck.log"), log), 0);
    char *text = summary_of(dir);
    cr_assert(strstr(text, "| compute-sanitizer racecheck | met (0 errors in ptkit's code) |"),
              "%s", text);
    cr_assert(strstr(text, "1 errors, 0 of them in ptkit's code, 1 in the suite's own kernels"),
              "%s", text);
    free(text);

    snprintf(log, sizeof log, "%s%s%s========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, "
             "0 warnings)\n", head, kernel, marks);
    cr_assert_eq(test_write_file(test_path(dir, "sanitizer_racecheck.log"), log), 0);
    text = summary_of(dir);
    cr_assert(strstr(text, "| compute-sanitizer racecheck | **NOT met** (0 errors in ptkit's code) |"),
              "%s", text);
    cr_assert(strstr(text, "2 errors, 1 of them in ptkit's code, 1 in the suite's own kernels"),
              "%s", text);
    free(text);

    cr_assert_eq(unlink(test_path(dir, "sanitizer_racecheck.log")), 0);
    cr_assert_eq(rmdir(dir), 0);
}
