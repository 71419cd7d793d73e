/* One launch in one call: PT_LAUNCH in its C spelling (cudaLaunchKernel
 * with the arguments by address), against the fake runtime and a
 * cudaLaunchKernel of this file's that runs a "kernel" writing each
 * block's record; PT_HOST_LAUNCH on the CPU. The records follow the grid
 * (grown, or told a smaller count), are reset before each launch, and
 * each launch folds into its own section. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pt/pt_dev.h>

#include "common.h"
#include "cuda_fake.h"
#include "records_fake.h"
#include "cuda_c.h"
#include "gpu/fold_worker.h"
#include "thread_cpu.h"

static test_clock clk;
static pt_timing *t;

/* What the last launch was given. */
static struct {
    int launches;
    const void *func;
    dim3 grid, block;
    size_t smem;
    cudaStream_t stream;
    float *in;
    int n;
    pt_dev_buf buf;
    int fail;                 /* answer this error, running nothing */
    int skip_slot;            /* 1 + the slot whose block returns before END; 0 none */
} got;

/* The launch of `step` (cuda_c.h): every block of the grid (but
 * got.skip_slot's, when not 0: a block that returned before END) writes
 * its record, with phase p taking (p + 1) * 100000 cycles of 400000, as
 * END would leave it (DONE counted up, the rest stored). */
int cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                     cudaStream_t stream)
{
    got.launches++;
    got.func = func;
    got.grid = grid;
    got.block = block;
    got.smem = smem;
    got.stream = stream;
    got.in = *(float **)args[0];
    got.n = *(int *)args[1];
    got.buf = *(pt_dev_buf *)args[2];
    fake.launched.func = func; /* for a captured node's parameters */
    fake.launched.args = args;
    if (got.fail)
        return got.fail;
    for (int s = 0; s < got.buf.nslots; s++) {
        long long *r = got.buf.data + PT_DEV_HDR + s * PT_DEV_SLOT_WORDS(got.buf.nphases, 0);
        if (s + 1 == got.skip_slot)
            continue;
        r[PT_DEV_S_DONE] += 1;
        r[PT_DEV_S_SMID] = r[PT_DEV_S_SMID1] = s % 4;
        r[PT_DEV_S_CLK0] = 1000;
        r[PT_DEV_S_CLK1] = 1000 + 400000;
        r[PT_DEV_S_GT0] = 5000000;
        r[PT_DEV_S_GT1] = 5000000 + 200000;
        for (int p = 0; p < got.buf.nphases; p++) {
            r[PT_DEV_SLOT_HDR + 2 * p] = (p + 1) * 100000;
            r[PT_DEV_SLOT_HDR + 2 * p + 1] = 1;
        }
    }
    fake.now_ms += 0.2;
    return 0;
}

static void setup(void)
{
    fake_install();
    pt__calib_set(-1, 2.0, 1000.0);
    pt__calib_set(0, 2.0, 1000.0);
    memset(&got, 0, sizeof got);
    t = test_timing(&clk, "launch", PT_GPU_EVENTS);
    cr_assert_not_null(t);
}

static void teardown(void)
{
    pt_destroy(t);
    fake_uninstall();
}

TestSuite(launch, .init = setup, .fini = teardown);

static const pt_section *find(const char *path)
{
    const pt_section *s = pt_find(t, path);
    cr_assert_not_null(s, "no section %s", path);
    return s;
}

/* The blocks without END in the heatmap of the section at path: the
 * latest fold's picture. */
static int heat_missing(const char *path)
{
    const pt__heat *h = find(path)->heat;
    int n = 0;
    cr_assert_not_null(h, "%s has a heatmap", path);
    for (int r = 0; r < h->nrows; r++)
        n += h->missing[r];
    return n;
}

static pt_section_stats stats(const char *path)
{
    pt_section_stats st;
    cr_assert_eq(pt_section_get(t, find(path), &st), 0);
    return st;
}

Test(launch, one_call_sizes_resets_times_launches_and_folds)
{
    static const char *const names[] = { "load", "math" };
    pt_dev_records *recs = pt_dev_records_create(t, 0, 2, names, PT_DEV_AGGREGATE, 0);
    cr_assert_not_null(recs, "records sized later: %s", pt_last_error(t));
    float data[4] = { 0 };
    float *in = data;
    int n = 4;
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x42;
    dim3 grid = { 4, 2, 1 }, block = { 128, 1, 1 };

    PT_LAUNCH(t, "step", recs, step, grid, block, 1024, st, &in, &n);
    cr_assert_eq(got.launches, 1);
    cr_assert_eq(got.func, (const void *)step, "the kernel itself is launched");
    cr_assert_eq(got.grid.x * got.grid.y, 8);
    cr_assert_eq(got.block.x, 128);
    cr_assert_eq(got.smem, 1024);
    cr_assert_eq(got.stream, st);
    cr_assert_eq(got.in, data, "the arguments by address, in order");
    cr_assert_eq(got.n, 4);
    cr_assert_eq(got.buf.nslots, 8, "grown to the grid's 8 blocks");
    cr_assert_eq(got.buf.nphases, 2);
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("step").count, 1);
    cr_assert(stats("step").gpu, "timed by the stream's events");
    pt_section_stats m = stats("step/math");
    cr_assert_eq(m.blocks, 8);
    cr_assert_float_eq(m.block_mean_ms, 0.1, 1e-9, "200000 cycles at 2 per ns: %g",
                       m.block_mean_ms);

    /* A smaller grid: the records hold its slots only, none skipped. The
     * stream is asked once, at the launch's begin, whether it is being
     * captured: not again by its end or its events. */
    grid.y = 1;
    long long asks = fake.capture_asks;
    PT_LAUNCH(t, "step", recs, step, grid, block, 0, st, &in, &n);
    cr_assert_eq(fake.capture_asks - asks, 1, "cudaStreamIsCapturing once a launch");
    cr_assert_eq(got.buf.nslots, 4);
    /* A larger one: grown again. */
    grid.x = 16;
    PT_LAUNCH(t, "step", recs, step, grid, block, 0, st, &in, &n);
    cr_assert_eq(got.buf.nslots, 16);
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("step").count, 3);
    cr_assert_eq(stats("step/load").blocks, 8 + 4 + 16, "every launch's blocks, once");
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);
    cr_assert_eq(dc.slots_skipped, 0, "no slot of an earlier, larger grid is read");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_dev_records_free(recs);
}

/* Launches of one grid after the first are not reset (no memset on the
 * stream): each fold counts the ENDs since the one before, so every
 * launch folds its own blocks, a block that missed END in one launch is
 * counted in that launch alone, and a new grid, or any other reset of the
 * records, resets them again. */
Test(launch, later_launches_of_a_grid_fold_without_a_reset)
{
    pt_dev_records *recs = pt_dev_records_create(t, 0, 2, NULL, PT_DEV_AGGREGATE, 0);
    float *in = NULL;
    int n = 0;
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x43;
    dim3 grid = { 8, 1, 1 }, block = { 64, 1, 1 };
    long long memsets = 0;

    for (int i = 0; i < 5; i++) {
        got.skip_slot = i == 2 ? 4 : 0; /* the third launch's slot 3 */
        PT_LAUNCH(t, "step", recs, step, grid, block, 0, st, &in, &n);
        if (i == 0)
            memsets = fake.memsets; /* the records grown, zeroed and reset */
    }
    got.skip_slot = 0;
    cr_assert_eq(fake.memsets, memsets, "a reset for the first launch only: %lld more",
                 fake.memsets - memsets);
    pt_sync(t);
    cr_assert_eq(stats("step").count, 5);
    cr_assert_eq(stats("step/phase 1").blocks, 5 * 8 - 1, "each launch's own blocks");
    cr_assert_eq(pt_error_count_of(t, PT_ESTATE), 1, "the third launch's: %s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "1 of the launch's 8 blocks wrote no record"), "%s",
              pt_last_error(t));
    /* On another stream: not reset either, but after the last fold's copy
     * on the first stream (a wait on the device). */
    long long waits = fake.waits;
    PT_LAUNCH(t, "step", recs, step, grid, block, 0, (cudaStream_t)(uintptr_t)0x44, &in, &n);
    cr_assert_eq(fake.waits, waits + 1, "the launch's stream waits for the copy's");
    cr_assert_eq(fake.memsets, memsets);
    /* Reset by hand between launches: the next launch resets again. */
    cr_assert_eq(pt_dev_reset(recs, (pt_stream)st), 0);
    PT_LAUNCH(t, "step", recs, step, grid, block, 0, st, &in, &n);
    cr_assert_eq(fake.memsets, memsets + 2, "pt_dev_reset's, then the launch's");
    /* A smaller grid: reset, and folded whole. */
    grid.x = 4;
    PT_LAUNCH(t, "step", recs, step, grid, block, 0, st, &in, &n);
    PT_LAUNCH(t, "step", recs, step, grid, block, 0, st, &in, &n);
    cr_assert_eq(fake.memsets, memsets + 3, "the smaller grid's reset alone");
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("step/phase 1").blocks, 7 * 8 - 1 + 2 * 4);
    cr_assert_eq(pt_error_count_of(t, PT_ESTATE), 1, "%s", pt_last_error(t));
    pt_dev_records_free(recs);
}

Test(launch, slots_per_warp)
{
    pt_dev_records *recs = pt_dev_records_create(t, 0, 1, NULL, PT_DEV_WARP_SLOTS, 0);
    float *in = NULL;
    int n = 0;
    dim3 grid = { 3, 1, 1 }, block = { 16, 5, 1 }; /* 80 threads: 3 warps */
    PT_LAUNCH(t, "step", recs, step, grid, block, 0, NULL, &in, &n);
    cr_assert_eq(got.buf.nslots, 9);
    pt_dev_records_free(recs);
}

Test(launch, a_null_timing_still_launches_the_kernel)
{
    float *in = NULL;
    int n = 7;
    dim3 grid = { 2, 1, 1 }, block = { 32, 1, 1 };
    PT_LAUNCH((pt_timing *)NULL, "step", (pt_dev_records *)NULL, step, grid, block, 0, NULL, &in,
              &n);
    cr_assert_eq(got.launches, 1);
    cr_assert_eq(got.n, 7);
    cr_assert_eq(got.buf.nslots, 0, "no slots: the marks skip");
}

Test(launch, host_records_are_refused_and_the_kernel_runs_unmeasured)
{
    pt_dev_records *recs = pt_dev_records_create(t, 4, 1, NULL, PT_DEV_HOST, 0);
    float *in = NULL;
    int n = 0;
    dim3 grid = { 4, 1, 1 }, block = { 32, 1, 1 };
    PT_LAUNCH(t, "step", recs, step, grid, block, 0, NULL, &in, &n);
    cr_assert_eq(got.launches, 1, "launched all the same");
    cr_assert_eq(got.buf.nslots, 0);
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 1);
    cr_assert(strstr(pt_last_error(t), "PT_HOST_LAUNCH"), "%s", pt_last_error(t));
    cr_assert_eq(stats("step").count, 1, "the launch is timed");
    pt_dev_records_free(recs);
}

static void body(int block, const int *work, pt_dev_buf buf);

/* A grid of no blocks: CUDA refuses it, host mode runs nothing; either
 * way no section is opened (no empty [short] row), no stop is unmatched,
 * and the error names the grid. */
Test(launch, a_grid_of_no_blocks_times_nothing_and_says_so)
{
    pt_dev_records *recs = pt_dev_records_create(t, 0, 1, NULL, 0, 0);
    pt_dev_records *host = pt_dev_records_create(t, 0, 1, NULL, PT_DEV_HOST, 0);
    float *in = NULL;
    int n = 0, work[1] = { 1 };
    dim3 grid = { 0, 1, 1 }, block = { 32, 1, 1 };
    PT_LAUNCH(t, "empty", recs, step, grid, block, 0, NULL, &in, &n);
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 1);
    cr_assert(strstr(pt_last_error(t), "PT_LAUNCH(\"empty\"): a grid of 0 blocks of 32 threads: "
                     "nothing runs (CUDA refuses it"), "%s", pt_last_error(t));
    PT_HOST_LAUNCH(t, "empty host", host, 0, body, work);
    cr_assert_eq(pt_error_count_of(t, PT_ERANGE), 2);
    cr_assert(strstr(pt_last_error(t), "PT_HOST_LAUNCH(\"empty host\"): a grid of 0 blocks"),
              "%s", pt_last_error(t));
    cr_assert_null(pt_find(t, "empty"), "no section");
    cr_assert_null(pt_find(t, "empty host"));
    cr_assert_eq(pt_error_count_of(t, PT_EMISMATCH) + pt_error_count_of(t, PT_ENOSTART), 0,
                 "no stop without its start");
    /* The next launch is timed as usual. */
    dim3 four = { 4, 1, 1 };
    PT_LAUNCH(t, "step", recs, step, four, block, 0, NULL, &in, &n);
    pt_sync(t);
    cr_assert_eq(stats("step").count, 1);
    pt_dev_records_free(recs);
    pt_dev_records_free(host);
}

Test(launch, a_failed_launch_folds_nothing_and_says_so)
{
    pt_dev_records *recs = pt_dev_records_create(t, 0, 1, NULL, 0, 0);
    float *in = NULL;
    int n = 0;
    dim3 grid = { 4, 1, 1 }, block = { 32, 1, 1 };
    got.fail = 98; /* cudaErrorInvalidDeviceFunction */
    PT_LAUNCH(t, "step", recs, step, grid, block, 0, NULL, &in, &n);
    pt_sync(t);
    cr_assert(strstr(pt_last_error(t), "none of the 4 slots has a record"), "%s", pt_last_error(t));
    pt_dev_records_free(recs);
}

Test(launch, without_a_device_the_reason_is_said_once)
{
    pt_destroy(t);
    fake.device_count = 0;
    t = test_timing(&clk, "launch", PT_GPU_EVENTS);
    pt_dev_records *recs = pt_dev_records_create(t, 0, 1, NULL, 0, 0);
    cr_assert_not_null(recs, "%s", pt_last_error(t));
    float *in = NULL;
    int n = 0;
    dim3 grid = { 4, 1, 1 }, block = { 32, 1, 1 };
    got.fail = 100; /* cudaErrorNoDevice */
    for (int i = 0; i < 3; i++)
        PT_LAUNCH(t, "step", recs, step, grid, block, 0, NULL, &in, &n);
    pt_sync(t);
    cr_assert_eq(pt_error_count_of(t, PT_ENODEV), 1, "%s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "no kernel ran (no CUDA device)"), "%s", pt_last_error(t));
    pt_dev_records_free(recs);
}

/* A kernel's body as host mode runs it: one call per block. */
static void body(int block, const int *work, pt_dev_buf buf)
{
    PT_DEV_BEGIN_AT(buf, block);
    volatile long sink = 0;
    for (long i = 0; i < work[block] * 1000L; i++)
        sink += i;
    PT_DEV_MARK(0);
    PT_DEV_END(buf);
}

/* A body that records one block in 4 (PT_DEV_BEGIN_IF, as host mode
 * writes PT_DEV_BEGIN_EVERY's sample). */
static void sampled_body(int block, const int *work, pt_dev_buf buf)
{
    PT_DEV_BEGIN_IF(buf, block % 4 == 0, block / 4);
    volatile long sink = 0;
    for (long i = 0; i < work[block] * 1000L; i++)
        sink += i;
    PT_DEV_MARK(0);
    PT_DEV_END(buf);
}

/* Sampled 1 in 4: the records hold ceil(10 / 4) = 3 slots, each written,
 * none said missing, and the report says the launch was sampled. */
Test(launch, a_sampled_host_launch_keeps_one_block_in_every)
{
    pt_destroy(t);
    t = pt_create("sampled launch", PT_CPU);
    pt_dev_records *recs = pt_dev_records_create(t, 0, 1, NULL, PT_DEV_HOST, 0);
    int work[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    cr_assert_eq(pt_dev_records_sample(recs, 0), PT_EINVAL, "every below 1");
    cr_assert_eq(pt_dev_records_sample(NULL, 4), PT_EINVAL);
    cr_assert_eq(pt_dev_records_sample(recs, 4), 0);
    PT_HOST_LAUNCH(t, "cpu step", recs, 10, sampled_body, work);
    cr_assert_eq(pt_error_count_of(t, PT_ESTATE), 0, "no block said missing: %s",
                 pt_last_error(t));
    cr_assert_eq(pt_dev_arg(recs).nslots, 3, "a slot per kept block");
    cr_assert_eq(stats("cpu step/phase 0").blocks, 3);
    pt_section_stats st = stats("cpu step");
    cr_assert_eq(st.sample_every, 4);
    cr_assert_eq(st.sample_slots, 10);
    char *text = fake_report(t);
    cr_assert(strstr(text, "    sampled: 1 slot in 4 of 10 recorded; the phases are the sampled "
                           "blocks' shares of the launch, the per-block figures the sample's\n"),
              "%s", text);
    free(text);
    /* Packed and merged, and back to every slot. */
    void *buf;
    size_t len;
    cr_assert_eq(pt_pack(t, &buf, &len), 0, "%s", pt_last_error(t));
    pt_timing *u = pt_create("merged", PT_CPU);
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    pt_section_stats got_st;
    cr_assert_eq(pt_section_get(u, pt_find(u, "cpu step"), &got_st), 0);
    cr_assert_eq(got_st.sample_every, 4);
    cr_assert_eq(got_st.sample_slots, 10);
    pt_destroy(u);
    free(buf);
    cr_assert_eq(pt_dev_records_sample(recs, 1), 0);
    PT_HOST_LAUNCH(t, "cpu step", recs, 10, body, work);
    cr_assert_eq(pt_dev_arg(recs).nslots, 10, "every slot again");
    pt_dev_records_free(recs);
}

Test(launch, the_host_launch_runs_the_body_per_block)
{
    pt_destroy(t);
    t = pt_create("host launch", PT_CPU);
    pt_dev_records *recs = pt_dev_records_create(t, 0, 1, NULL, PT_DEV_HOST, 0);
    int work[6] = { 1, 2, 3, 4, 5, 6 };
    PT_HOST_LAUNCH(t, "cpu step", recs, 6, body, work);
    PT_HOST_LAUNCH(t, "cpu step", recs, 3, body, work);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_section_stats st = stats("cpu step/phase 0");
    cr_assert_eq(st.blocks, 6 + 3);
    cr_assert_eq(stats("cpu step").count, 2);
    cr_assert(!stats("cpu step").gpu, "timed by the CPU clock");
    cr_assert_leq(st.total_ms, stats("cpu step").total_ms * 1.0001, "the phase is inside its launch");
    /* Device records are refused: the CPU would write device memory. */
    pt_dev_records *dev = pt_dev_records_create(t, 4, 1, NULL, 0, 0);
    cr_assert_not_null(dev, "%s", pt_last_error(t));
    PT_HOST_LAUNCH(t, "other", dev, 2, body, work);
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 1);
    cr_assert(strstr(pt_last_error(t), "make them with PT_DEV_HOST"), "%s", pt_last_error(t));
    cr_assert_eq(stats("other").count, 1, "the body ran, timed, unmeasured");
    pt_dev_records_free(dev);
    pt_dev_records_free(recs);
}

Test(launch, with_metrics_the_launch_has_its_rates)
{
    pt_dev_records *recs = pt_dev_records_create(t, 0, 1, NULL, 0, 0);
    float *in = NULL;
    int n = 0;
    dim3 grid = { 4, 1, 1 }, block = { 32, 1, 1 };
    PT_LAUNCH_WITH(t, "step", ((pt_metrics){ .read = 4e6, .flops = 2e6 }), recs, step, grid,
                   block, 0, NULL, &in, &n);
    pt_sync(t);
    pt_section_stats st = stats("step");
    cr_assert_float_eq(st.read_bytes, 4e6, 1e-3);
    cr_assert_float_eq(st.flops, 2e6, 1e-3);
    cr_assert_float_eq(st.read_gbs, 4e6 / 0.2e-3 / 1e9, 1e-6, "over the event-timed 0.2 ms: %g",
                       st.read_gbs);
    int work[2] = { 1, 1 };
    pt_dev_records *h = pt_dev_records_create(t, 0, 1, NULL, PT_DEV_HOST, 0);
    PT_HOST_LAUNCH_WITH(t, "cpu", ((pt_metrics){ .written = 8 }), h, 2, body, work);
    cr_assert_float_eq(stats("cpu").written_bytes, 8, 1e-9);
    pt_dev_records_free(h);
    pt_dev_records_free(recs);
}

/* llm.c's first line, `if (idx >= N) return;`, before BEGIN: odd blocks
 * of this body record nothing. */
static void body_returns_early(int block, const int *work, pt_dev_buf buf)
{
    if (block % 2)
        return;
    body(block, work, buf);
}

Test(launch, blocks_that_record_nothing_are_counted_and_said)
{
    /* The records hold exactly the launch's blocks, so a slot without a
     * record is a block that returned early: an error that says where to
     * put BEGIN, a figure of the device clock, a line of the report. */
    pt_destroy(t);
    t = pt_create("early", PT_CPU);
    pt_dev_records *recs = pt_dev_records_create(t, 0, 1, NULL, PT_DEV_HOST, 0);
    int work[6] = { 1, 1, 1, 1, 1, 1 };
    PT_HOST_LAUNCH(t, "step", recs, 6, body_returns_early, work);
    cr_assert_eq(pt_error_count_of(t, PT_ESTATE), 1, "%s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "3 of the launch's 6 blocks wrote no record: they "
                                       "returned before PT_DEV_BEGIN"), "%s", pt_last_error(t));
    pt_dev_clock dc;
    cr_assert_eq(pt_dev_clock_get(t, &dc), 0);
    cr_assert_eq(dc.slots_unfinished, 3);
    cr_assert_eq(dc.slots_skipped, 3);
    cr_assert_eq(stats("step/phase 0").blocks, 3, "the other blocks folded");
    test_text out = { NULL, 0 };
    pt_log_fn(t, test_text_line, &out);
    cr_assert(strstr(out.s, "3 slots without a record (3 of them a launch's blocks that returned "
                            "before PT_DEV_BEGIN or PT_DEV_END: an error)"), "%s", out.s);
    free(out.s);
    /* Records larger than the grid, folded by hand: empty slots are the
     * grid's, no error. */
    pt_dev_records *big = pt_dev_records_create(t, 8, 1, NULL, PT_DEV_HOST, 0);
    pt_start(t, "by hand");
    for (int b = 0; b < 6; b++)
        body(b, work, pt_dev_arg(big));
    pt_stop(t, "by hand");
    cr_assert_eq(pt_dev_fold(t, big, "by hand"), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_error_count_of(t, PT_ESTATE), 1, "no second error");
    pt_dev_records_free(big);
    pt_dev_records_free(recs);
}

/* A kernel's body converted to host mode that kept PT_DEV_BEGIN, which
 * is slot 0 on the CPU: every block records into one slot. */
static void body_one_slot(int block, const int *work, pt_dev_buf buf)
{
    (void)block;
    (void)work;
    PT_DEV_BEGIN(buf);
    PT_DEV_MARK(0);
    PT_DEV_END(buf);
}

Test(launch, a_slot_that_several_blocks_wrote_is_said_with_the_fix)
{
    pt_destroy(t);
    t = pt_create("one slot", PT_CPU);
    pt_dev_records *recs = pt_dev_records_create(t, 0, 1, NULL, PT_DEV_HOST, 0);
    int work[8] = { 0 };
    test_text said = { NULL, 0 };
    pt_error_fn_set(t, test_text_line, &said);
    PT_HOST_LAUNCH(t, "step", recs, 8, body_one_slot, work);
    pt_error_fn_set(t, NULL, NULL);
    cr_assert(strstr(said.s, "1 slot was written by more than one block"), "%s", said.s);
    cr_assert(strstr(said.s, "use PT_DEV_BEGIN_AT(buf, block), not PT_DEV_BEGIN"), "%s", said.s);
    cr_assert_null(strstr(said.s, "hold what no kernel writes"), "not blamed on memory: %s",
                   said.s);
    cr_assert_null(strstr(said.s, "none of the"), "the one cause, said once: %s", said.s);
    const pt_section *ph = pt_find(t, "step/phase 0");
    pt_section_stats st = { 0 };
    if (ph)
        cr_assert_eq(pt_section_get(t, ph, &st), 0);
    cr_assert_eq(st.blocks, 0, "no mixed figures folded: %llu blocks",
                 (unsigned long long)st.blocks);
    free(said.s);
    pt_dev_records_free(recs);
}

/* ---- CUDA graphs ------------------------------------------------- */

/* What a replay of the fake graph does: each captured kernel writes its
 * records again, as a kernel's END does (DONE += 1, the rest stored), the
 * first taking 0.2 ms and the second, 0.05 ms after it, 0.6 ms of
 * globaltimer, each replay 1 ms after the one before; the replay 1 ms of
 * events. skip_slot, when not -1, is a block of the first kernel that
 * returns before END. */
static pt_dev_buf graph_bufs[2];
static void *graph_nodes[2]; /* their nodes, where the runtime gives them other records */
static int replays, skip_slot = -1, reset_second;
static int vary; /* each block's phases a little shorter by replay and slot */

static void write_records(pt_dev_buf b, long long gt0, long long gt_span, int skip)
{
    for (int s = 0; s < b.nslots; s++) {
        long long *r = b.data + PT_DEV_HDR + s * PT_DEV_SLOT_WORDS(b.nphases, 0);
        if (s == skip)
            continue;
        r[PT_DEV_S_DONE] += 1;
        r[PT_DEV_S_SMID] = r[PT_DEV_S_SMID1] = s % 4;
        r[PT_DEV_S_CLK0] = 1000;
        r[PT_DEV_S_CLK1] = 1000 + 2 * gt_span;
        r[PT_DEV_S_GT0] = gt0;
        r[PT_DEV_S_GT1] = gt0 + gt_span;
        for (int p = 0; p < b.nphases; p++) {
            r[PT_DEV_SLOT_HDR + 2 * p] = 2 * gt_span / (b.nphases + 1) -
                                         (vary ? (replays * 37 + s * 11 + p * 5) % 997 : 0);
            r[PT_DEV_SLOT_HDR + 2 * p + 1] = 1;
        }
    }
}

static void replay(void *exec)
{
    (void)exec;
    replays++;
    pt_dev_buf b0 = graph_bufs[0], b1 = graph_bufs[1];
    b0.data = fake_kernel_data(graph_nodes[0], b0.data);
    b1.data = fake_kernel_data(graph_nodes[1], b1.data);
    /* The reset node ahead of the second kernel, where the graph has one. */
    if (reset_second)
        memset(b1.data + PT_DEV_H_BAD_SLOT, 0,
               (size_t)(PT_DEV_BUF_WORDS(b1.nslots, b1.nphases, 0) - PT_DEV_H_BAD_SLOT) *
                   sizeof(long long));
    long long gt0 = 5000000 + 1000000LL * replays;
    write_records(b0, gt0, 200000, skip_slot);
    write_records(b1, gt0 + 250000, 600000, -1);
    fake.now_ms += 1.0;
}

/* The records of capture_two's two kernels, unnamed: 8 slots of 2 phases
 * and 4 of 3. */
static void two_records(pt_dev_records **r1, pt_dev_records **r2)
{
    *r1 = pt_dev_records_create(t, 8, 2, NULL, PT_DEV_AGGREGATE, 0);
    *r2 = pt_dev_records_create(t, 4, 3, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert(*r1 && *r2, "%s", pt_last_error(t));
}

/* One replay of g in which the first kernel's block `slot` returns
 * before END, resolved. */
static void replay_missing_end(int slot, pt_graph *g, void *exec, cudaStream_t st)
{
    skip_slot = slot;
    cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    skip_slot = -1;
    pt_sync(t);
}

/* Two kernels captured on st by PT_LAUNCH, as titles[0] over 8 blocks
 * with records r1 and titles[1] over 4 with r2, the fake replay writing
 * the records they were given; the graph of them. Nothing is recorded,
 * reset or timed meanwhile. */
static pt_graph *capture_two(cudaStream_t st, const char *const titles[2], pt_dev_records *r1,
                             pt_dev_records *r2)
{
    float data[4] = { 0 };
    float *in = data;
    int n = 4;
    dim3 g8 = { 8, 1, 1 }, g4 = { 4, 1, 1 }, block = { 128, 1, 1 };
    long long events = fake.records, memsets = fake.memsets, mallocs = fake.mallocs,
              mallochosts = fake.mallochosts;

    long long copies = fake.copy_nodes;
    void *after[2];

    fake.capturing = st;
    PT_LAUNCH(t, titles[0], r1, step, g8, block, 0, st, &in, &n);
    cr_assert_eq(got.buf.nslots, 8, "the kernel is captured with its records");
    graph_bufs[0] = got.buf;
    after[0] = graph_nodes[0] = fake.capture_dep;
    PT_LAUNCH(t, titles[1], r2, step, g4, block, 0, st, &in, &n);
    graph_bufs[1] = got.buf;
    after[1] = graph_nodes[1] = fake.capture_dep;
    /* Each kernel's records are copied back by a node of the graph after
     * it (where the runtime adds one): into their pinned spare until a
     * replay points it elsewhere. Where the runtime gives a graph's kernel
     * nodes other arguments, they write a ring instead, and have none. */
    const char *ring_env = getenv("PT_GRAPH_RING");
    int ring = fake.nparams && !fake.last_error && !(ring_env && strcmp(ring_env, "0") == 0);
    cr_assert(fake.copy_nodes == copies + (fake.copy_err || ring ? 0 : 2));
    for (long long i = copies; i < fake.copy_nodes; i++) {
        pt_dev_records *r = i == copies ? r1 : r2;
        cr_assert_eq(fake.copy[i].src, r->data);
        cr_assert_eq(fake.copy[i].dep, after[i - copies], "the copy follows its own kernel");
        cr_assert_eq(fake.copy[i].bytes, (size_t)r->words * sizeof(long long));
        cr_assert(r->spare && fake.copy[i].dst == r->spare);
    }
    cr_assert_eq(fake.records, events, "no event recorded during the capture");
    cr_assert_eq(fake.memsets, memsets, "no reset captured: the graph holds the kernels alone");
    cr_assert(fake.mallocs == mallocs && fake.mallochosts == mallochosts,
              "nothing allocated during the capture, which that would break");
    cr_assert_null(pt_find(t, titles[0]), "no section for a captured launch");
    fake.capturing = NULL;
    pt_graph *g = pt_graph_capture_end(t, st);
    cr_assert_not_null(g, "%s", pt_last_error(t));
    return g;
}

/* n replays of g on st as "step", the GPU running behind them (nothing
 * seen complete, fake.not_ready left set): none of the first `ahead`
 * waits on the host, for `why`. */
static void replays_ahead(pt_graph *g, void *exec, cudaStream_t st, int n, int ahead,
                          const char *why)
{
    long long syncs = fake.syncs;

    fake.graph_replay = replay;
    replays = 0;
    fake.not_ready = 1;
    for (int i = 0; i < n; i++) {
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "replay %d: %s", i,
                     pt_last_error(t));
        if (i == ahead - 1)
            cr_assert_eq(fake.syncs, syncs, "no host sync for %d replays: %s", ahead, why);
    }
}

/* The end of a graph test: `nr` replays' blocks folded once each, no
 * error, and the graph and the records freed. */
static void graph_done(pt_graph *g, pt_dev_records *r1, pt_dev_records *r2, int nr)
{
    cr_assert_eq(stats("step/k1/phase 1").blocks, (uint64_t)nr * 8, "every block once");
    cr_assert_eq(stats("step/k2/phase 2").blocks, (uint64_t)nr * 4);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    fake.graph_replay = NULL;
    pt_graph_free(g);
    pt_dev_records_free(r1);
    pt_dev_records_free(r2);
}

/* Captured once, replayed 100 times: PT_LAUNCH under the capture makes no
 * event, no fold and no reset, only the kernel; the first replay resets
 * the records once, outside the graph; each replay is timed as the
 * section "step", with each captured kernel a child of it lasting its
 * blocks' span, its phases and "(unattributed)" adding up to that; every
 * replay folded by the differences of its DONE counts, none mixed. */
Test(launch, a_graph_replay_times_and_folds_each_captured_kernel)
{
    static const char *const n2[] = { "load", "math" }, *const n3[] = { "a", "b", "c" };
    static const char *const titles[] = { "first kernel", "second kernel" };
    pt_dev_records *r1 = pt_dev_records_create(t, 8, 2, n2, PT_DEV_AGGREGATE, 0);
    pt_dev_records *r2 = pt_dev_records_create(t, 4, 3, n3, PT_DEV_AGGREGATE, 0);
    cr_assert(r1 && r2, "%s", pt_last_error(t));
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x51;
    long long memsets = fake.memsets;
    pt_graph *g = capture_two(st, titles, r1, r2);
    cr_assert_eq(fake.copy_nodes, 2, "a copy node for each kernel");
    long long memcpys = fake.memcpys, aims = fake.aims;
    pt_graph *none = pt_graph_capture_end(t, NULL);
    cr_assert_not_null(none, "another stream: an empty graph");
    pt_graph_free(none);

    void *exec = (void *)(uintptr_t)0xe7;
    /* A buffer keeps 4 copies in flight: up to 4 replays ahead of the GPU
     * nothing waits; past them the oldest copy is waited for. */
    replays_ahead(g, exec, st, 100, 4, "a buffer's 4 copies in flight");
    fake.not_ready = 0;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(fake.memsets, memsets + 2, "each records reset once, ahead of the replays");
    cr_assert_eq(fake.memcpys, memcpys, "no copy on the stream: the graph's nodes copied");
    cr_assert_eq(fake.graph_copies, 2 * 100);
    cr_assert_eq(fake.aims - aims, 100 * 2 * 2, "each node aimed at the replay's copy and back");
    cr_assert(fake.copy[0].dst == r1->spare && fake.copy[1].dst == r2->spare,
              "between replays the nodes write the spares");
    cr_assert(r1->node_reads == 100 && r2->node_reads == 100, "each fold read its node's copy");
    cr_assert_eq(replays, 100);
    cr_assert_eq(fake.graph_exec, exec);
    cr_assert_eq(stats("step").count, 100, "every replay timed");
    cr_assert(stats("step").gpu);
    cr_assert_float_eq(stats("step").first_ms, 1.0, 1e-9);
    cr_assert_eq(stats("step/first kernel").count, 100, "every replay folded");
    cr_assert_float_eq(stats("step/first kernel").mean_ms, 0.2, 1e-9, "its blocks' span");
    cr_assert_float_eq(stats("step/second kernel").total_ms, 100 * 0.6, 1e-6);
    cr_assert_eq(stats("step/first kernel/math").blocks, 100 * 8, "no record lost or mixed");
    cr_assert_eq(stats("step/second kernel/c").blocks, 100 * 4);
    double sum = stats("step/first kernel/load").total_ms + stats("step/first kernel/math").total_ms +
                 stats("step/first kernel/(unattributed)").total_ms;
    cr_assert_float_eq(sum, stats("step/first kernel").total_ms, 1e-6, "its rows add up");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));

    /* A GPU that keeps up: each event is seen complete by a query, and
     * nothing is waited for (each call into the runtime costs the host
     * about as much as a short kernel; 5 waits a replay before). */
    long long syncs = fake.syncs, queries = fake.queries, asks = fake.capture_asks;
    for (int i = 0; i < 20; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_leq(fake.syncs - syncs, 1, "no cudaEventSynchronize but pt_sync's, for the last "
                  "replay: %lld", fake.syncs - syncs);
    cr_assert_leq(fake.queries - queries, 20, "a query for the replay: the copies are in it");
    cr_assert_eq(fake.capture_asks - asks, 20, "one cudaStreamIsCapturing a replay");
    cr_assert_eq(stats("step/second kernel/c").blocks, 120 * 4);

    cr_assert_eq(pt_graph_launch(t, NULL, "step", exec, st), PT_EINVAL);
    cr_assert_eq(pt_graph_launch(t, g, "step", NULL, st), PT_EINVAL);
    cr_assert_eq(pt_graph_launch(NULL, g, "step", exec, st), 0, "a NULL timing replays untimed");
    cr_assert_eq(replays, 121);
    fake.graph_replay = NULL;
    pt_graph_free(g);
    pt_dev_records_free(r1);
    pt_dev_records_free(r2);
}

/* No replay resets the records, so each fold takes the differences of
 * the DONE counts from the last replay's: a block that returned before END
 * in one replay is counted in that replay alone; a replay launched behind
 * ptkit's back shows as every slot written twice, said and left out; a
 * PT_LAUNCH of the same records between replays resets them, and the next
 * replay resets them again and counts from there; a replay on another
 * stream waits for the copies still queued on the first. */
Test(launch, a_graph_replay_counts_its_own_ends)
{
    static const char *const titles[] = { "k1", "k2" };
    pt_dev_records *r1, *r2;
    two_records(&r1, &r2);
    float data[4] = { 0 };
    float *in = data;
    int n = 4;
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x53;
    dim3 g8 = { 8, 1, 1 }, block = { 64, 1, 1 };
    void *exec = (void *)(uintptr_t)0xe9;
    pt_dev_clock dc;
    pt_graph *g = capture_two(st, titles, r1, r2);
    fake.graph_replay = replay;

    for (int i = 0; i < 3; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("step/k1/phase 1").blocks, 3 * 8, "each replay's 8 blocks, once");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));

    /* Block 5 returns before END in the fourth replay only. */
    replay_missing_end(5, g, exec, st);
    cr_assert_eq(pt_error_count(t), 1, "the missing END: %s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "1 of the launch's 8 blocks wrote no record"), "%s",
              pt_last_error(t));
    cr_assert_eq(pt_dev_clock_get(t, &dc), 0);
    cr_assert_eq(dc.slots_unfinished, 1);
    cr_assert_eq(stats("step/k1/phase 1").blocks, 3 * 8 + 7);
    cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "the fifth: %s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_error_count(t), 1, "%s", pt_last_error(t));
    cr_assert_eq(stats("step/k1/phase 1").blocks, 4 * 8 + 7, "block 5 counted once again");
    cr_assert_eq(stats("step/k2/phase 2").blocks, 5 * 4);

    /* A replay ptkit did not launch: the next one reads every slot twice. */
    int errors = pt_error_count(t);
    replay(exec);
    cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    pt_sync(t);
    cr_assert_eq(pt_error_count(t), errors + 2, "said, for each kernel: %s", pt_last_error(t));
    cr_assert(strstr(pt_last_error(t), "4 slots were written by more than one block") &&
              strstr(pt_last_error(t), "without pt_graph_launch"), "%s", pt_last_error(t));
    cr_assert_eq(stats("step/k1/phase 1").blocks, 4 * 8 + 7, "left out, not mixed");

    /* The records launched alone between replays: reset by PT_LAUNCH, and
     * again by the next replay, which counts from 0. */
    long long memsets = fake.memsets;
    fake.graph_replay = NULL;
    PT_LAUNCH(t, "alone", r1, step, g8, block, 0, st, &in, &n);
    cr_assert_eq(fake.memsets, memsets + 1);
    fake.graph_replay = replay;
    errors = pt_error_count(t);
    cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_eq(fake.memsets, memsets + 2, "the replay reset r1 again, and r2 not");
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_error_count(t), errors, "%s", pt_last_error(t));
    cr_assert_eq(stats("step/k1/phase 1").blocks, 5 * 8 + 7);
    cr_assert_eq(stats("alone/phase 1").blocks, 8);

    /* Replayed on another stream, unreset: it waits on the device for
     * each records' last copy, queued on the first stream. */
    long long waits = fake.waits, records = fake.records;
    cr_assert_eq(pt_graph_launch(t, g, "step", exec, (cudaStream_t)(uintptr_t)0x54), 0, "%s",
                 pt_last_error(t));
    cr_assert_eq(fake.waits, waits + 2, "a wait for each records' copy");
    cr_assert_eq(fake.records, records + 2 + 2, "the replay's two events, and each records' "
                 "read marked on the first stream, behind the replay whose copy nodes read "
                 "them (they have no event of their own)");
    cr_assert_eq(fake.waited_ev, r2->read_mark);
    cr_assert_eq(fake.memsets, memsets + 2, "and no reset");
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("step/k1/phase 1").blocks, 6 * 8 + 7);

    fake.graph_replay = NULL;
    pt_graph_free(g);
    pt_dev_records_free(r1);
    pt_dev_records_free(r2);
}

/* Replays nr times on st and checks that each replay's records were
 * copied on the stream (where want_stream), not by the graph's nodes, and
 * that every replay's blocks were folded once. */
static void replay_copied(pt_graph *g, cudaStream_t st, int nr, int want_stream,
                          const char *why)
{
    long long memcpys = fake.memcpys, blocks = 0;
    const pt_section *k1 = pt_find(t, "step/k1/phase 1");
    pt_section_stats s1;

    if (k1 && pt_section_get(t, k1, &s1) == 0)
        blocks = s1.blocks;
    for (int i = 0; i < nr; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", (void *)(uintptr_t)0xea, st), 0, "%s: %s",
                     why, pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s: %s", why, pt_last_error(t));
    cr_assert_eq(fake.memcpys - memcpys, want_stream ? 2 * nr : 0, "%s", why);
    cr_assert_eq(stats("step/k1/phase 1").blocks, blocks + 8 * nr, "%s: every block folded",
                 why);
}

/* Where the graph's copy nodes cannot serve, each replay's records are
 * copied on the stream after it, as before them, and folded alike: an
 * exec that refuses to aim them (instantiated from another graph), a
 * runtime that refuses the node, no pinned memory for the copies; and
 * two kernels of one graph writing the same records, whose nodes would
 * read them while the other writes. */
Test(launch, a_graph_replay_copies_on_the_stream_where_its_nodes_cannot)
{
    static const char *const titles[] = { "k1", "k2" };
    pt_dev_records *r1, *r2;
    two_records(&r1, &r2);
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x55;
    pt_graph *g = capture_two(st, titles, r1, r2);
    fake.graph_replay = replay;

    replay_copied(g, st, 3, 0, "by the nodes");
    fake.aim_err = 801; /* cudaErrorNotSupported */
    replay_copied(g, st, 3, 1, "an exec that refuses");
    fake.aim_err = 0;
    replay_copied(g, st, 3, 0, "by the nodes again");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    /* Disabled, nothing is folded, and no node is aimed. */
    long long aimed = fake.aims, memcpys = fake.memcpys;
    pt_disable(t);
    cr_assert_eq(pt_graph_launch(t, g, "step", (void *)(uintptr_t)0xea, st), 0);
    pt_enable(t);
    cr_assert(fake.aims == aimed && fake.memcpys == memcpys, "nothing aimed or copied");
    pt_graph_free(g);

    fake.copy_err = 801;
    g = capture_two(st, titles, r1, r2);
    fake.copy_err = 0;
    replay_copied(g, st, 3, 1, "no copy nodes");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_graph_free(g);

    /* r1 written by both kernels: each replay's two folds read it. */
    long long aims = fake.aims, copies = fake.copy_nodes;
    float *in = NULL;
    int n = 0;
    dim3 g8 = { 8, 1, 1 }, block = { 32, 1, 1 };
    fake.capturing = st;
    PT_LAUNCH(t, "k1", r1, step, g8, block, 0, st, &in, &n);
    PT_LAUNCH(t, "k2", r1, step, g8, block, 0, st, &in, &n);
    fake.capturing = NULL;
    cr_assert_eq(fake.copy_nodes, copies + 2, "a node after each kernel, as ever");
    g = pt_graph_capture_end(t, st);
    fake.graph_replay = NULL;
    memcpys = fake.memcpys;
    cr_assert_eq(pt_graph_launch(t, g, "shared", (void *)(uintptr_t)0xeb, st), 0, "%s",
                 pt_last_error(t));
    pt_sync(t);
    cr_assert_eq(fake.aims, aims, "no node aimed");
    cr_assert_eq(fake.memcpys - memcpys, 2, "copied on the stream");
    pt_graph_free(g);
    pt_dev_records_free(r1);
    pt_dev_records_free(r2);

    /* No pinned memory: no spare, no node. (The graphs above are gone,
     * their nodes with them.) */
    fake.copy_nodes = 0;
    fake.mallochost_err = 2;
    r1 = pt_dev_records_create(t, 8, 2, NULL, PT_DEV_AGGREGATE, 0);
    r2 = pt_dev_records_create(t, 4, 3, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert(r1 && r2, "%s", pt_last_error(t));
    copies = fake.copy_nodes;
    fake.copy_err = 2; /* for capture_two's count; the spare fails first */
    g = capture_two(st, titles, r1, r2);
    fake.copy_err = 0;
    cr_assert_eq(fake.copy_nodes, copies);
    cr_assert_null(r1->spare);
    fake.graph_replay = replay;
    replay_copied(g, st, 2, 1, "no pinned memory");
    fake.graph_replay = NULL;
    pt_graph_free(g);
    pt_dev_records_free(r1);
    pt_dev_records_free(r2);
}

/* A runtime that gives a graph's kernel nodes other arguments (CUDA 12.4
 * on): ring_setup() remakes the timing on it, the fake's kernels taking
 * step's three parameters. */
static void ring_setup(void)
{
    static const size_t step_params[] = { sizeof(float *), sizeof(int), sizeof(pt_dev_buf) };
    pt_destroy(t);
    fake_install_ring(3, step_params);
    pt__calib_set(-1, 2.0, 1000.0);
    pt__calib_set(0, 2.0, 1000.0);
    t = test_timing(&clk, "launch", PT_GPU_EVENTS);
    cr_assert_not_null(t);
}

/* Replayed where the runtime lets an instantiated graph's kernel take
 * other arguments, no copy node is put in the graph: before each replay
 * each kernel is pointed at a set of its own in a ring (two batches of 8),
 * after it back at its records, and the sets written are copied back in
 * one transfer a batch, on the stream, outside the replays' events. Every
 * replay folded as by copy nodes; the host waits only once the ring's 16
 * sets are all in flight; a report copies back the sets of a batch not yet
 * complete; each set counts its own ENDs; a replay behind ptkit's back
 * writes the records, never a set. */
Test(launch, a_graph_replay_writes_a_ring_copied_back_a_batch_at_a_time)
{
    static const char *const titles[] = { "k1", "k2" };
    pt_dev_records *r1, *r2;
    ring_setup();
    two_records(&r1, &r2);
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x5a;
    void *exec = (void *)(uintptr_t)0xee;
    long long nodes = fake.copy_nodes;
    pt_graph *g = capture_two(st, titles, r1, r2);
    cr_assert_eq(fake.copy_nodes, nodes, "no copy node in the graph");
    cr_assert_eq(fake.api_errors, 0, "PT_LAUNCH said its count of arguments: nothing asked "
                 "past the last, no call refused");
    cr_assert_eq(fake.last_error, 0);

    long long memcpys = fake.memcpys, aims = fake.kernel_aims, records = fake.records;
    replays_ahead(g, exec, st, 100, 16, "the ring's 16 sets");
    cr_assert_eq(fake_kernel_data(graph_nodes[0], NULL), r1->data,
                 "between replays the kernel writes its records");
    cr_assert_eq(fake.memcpys - memcpys, 1 + 100 / 8, "the ring sent once, then a copy back "
                 "a batch: %lld", fake.memcpys - memcpys);
    cr_assert_eq(fake.records - records, 2 * 100 + 1 + 100 / 8,
                 "the replays' own events, and for each transfer an event after it (it "
                 "waits for its last replay's end event, with no mark of its own)");
    cr_assert_eq(fake.copied_stream, (pt_stream)(uintptr_t)0x5,
                 "the transfers on a stream of their own, beside the next batch");
    cr_assert_eq(fake.waited_stream, (pt_stream)(uintptr_t)0x5, "behind the last replay");
    fake.not_ready = 0;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(fake.memcpys - memcpys, 1 + 100 / 8 + 1, "and the last 4 sets at pt_sync");
    cr_assert_eq(heat_missing("step/k1"), 0, "the last replay's heatmap, drawn though each "
                 "fold with another queued behind it drew none");
    cr_assert_eq(fake.graph_copies, 0);
    cr_assert_eq(fake.kernel_aims - aims, 100 * 2 * 2, "each kernel at its set and back");
    cr_assert(r1->ring_reads == 100 && r2->ring_reads == 100 && r1->node_reads == 0,
              "each fold read its set");
    cr_assert_eq(stats("step").count, 100, "every replay timed");
    cr_assert_float_eq(stats("step").mean_ms, 1.0, 1e-9);
    cr_assert_eq(stats("step/k1").count, 100, "every replay folded");
    cr_assert_float_eq(stats("step/k1").mean_ms, 0.2, 1e-9, "its blocks' span");
    cr_assert_float_eq(stats("step/k2").max_ms, 0.6, 1e-9);
    cr_assert_eq(stats("step/k1/phase 1").blocks, 100 * 8, "no record lost or mixed");
    cr_assert_eq(stats("step/k2/phase 2").blocks, 100 * 4);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));

    /* A block that missed END in one replay: that replay's alone, its set
     * counting on from there 16 replays later. */
    replay_missing_end(5, g, exec, st);
    cr_assert_eq(pt_error_count(t), 1, "the missing END: %s", pt_last_error(t));
    cr_assert_eq(heat_missing("step/k1"), 1, "the heatmap that replay's");
    for (int i = 0; i < 20; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    /* Behind ptkit's back the replay writes the records, not a set. */
    replay(exec);
    cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_error_count(t), 1, "%s", pt_last_error(t));
    cr_assert_eq(heat_missing("step/k1"), 0, "and then the last one's again");
    cr_assert_eq(stats("step/k1/phase 1").blocks, 100 * 8 + 7 + 21 * 8);
    cr_assert_eq(stats("step/k2/phase 2").blocks, 122 * 4);

    /* Timed by its kernels, the batch's copy back waits for its event. */
    pt_graph_time_by_kernels(g, 8);
    records = fake.records;
    memcpys = fake.memcpys;
    for (int i = 0; i < 16; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(fake.records - records, 2 + 2, "an event a batch, and its copy's: its "
                 "transfer waits for the batch's own event, no mark");
    cr_assert_eq(fake.waited_stream, (pt_stream)(uintptr_t)0x5);
    cr_assert_eq(fake.memcpys - memcpys, 2, "a copy back a batch");
    cr_assert_float_eq(stats("step").min_ms, 0.85, 1e-9, "every replay its kernels' span");
    cr_assert_eq(stats("step/k2/phase 2").blocks, 138 * 4);
    pt_graph_time_by_kernels(g, 0);

    /* On another stream, the sets written on the first go back there
     * first, and the new stream waits for that copy before writing any. */
    long long waits = fake.waits;
    for (int i = 0; i < 3; i++)
        pt_graph_launch(t, g, "step", exec, st);
    memcpys = fake.memcpys;
    cr_assert_eq(pt_graph_launch(t, g, "step", exec, (cudaStream_t)(uintptr_t)0x5b), 0, "%s",
                 pt_last_error(t));
    cr_assert_eq(fake.memcpys - memcpys, 1, "the first stream's 3 sets copied back");
    cr_assert_geq(fake.waits - waits, 1, "the second stream waited for it");
    cr_assert_eq(fake.waited_stream, (cudaStream_t)(uintptr_t)0x5b);

    /* An exec that refuses the arguments: its kernels' records are copied
     * on the stream from then on, every replay folded all the same. */
    fake.kaim_err = 801; /* cudaErrorNotSupported */
    memcpys = fake.memcpys;
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(fake.last_error, 0, "the refusal cleared");
    cr_assert_str_eq(r1->ring_off, "cudaGraphExecKernelNodeSetParams: error 801");
    cr_assert_eq(fake.memcpys - memcpys, 1 + 2 * 2, "the ring's last set, then each records "
                 "each replay: %lld", fake.memcpys - memcpys);
    cr_assert_eq(stats("step/k2/phase 2").blocks, 144 * 4);
    cr_assert_eq(pt_error_count(t), 1, "%s", pt_last_error(t));
    fake.kaim_err = 0;
    fake.graph_replay = NULL;
    pt_graph_free(g);

    /* Freed with replays still to fold: they are folded first. */
    g = capture_two(st, titles, r1, r2);
    fake.graph_replay = replay;
    fake.not_ready = 1;
    for (int i = 0; i < 5; i++)
        pt_graph_launch(t, g, "again", exec, st);
    fake.not_ready = 0;
    pt_graph_free(g);
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("again/k1/phase 1").blocks, 5 * 8);
    fake.graph_replay = NULL;

    /* PT_GRAPH_RING=0 at the capture: copy nodes, as before the ring. */
    setenv("PT_GRAPH_RING", "0", 1);
    fake.copy_nodes = 0;
    g = capture_two(st, titles, r1, r2);
    unsetenv("PT_GRAPH_RING");
    cr_assert_eq(fake.copy_nodes, 2, "a copy node each");
    pt_graph_free(g);

    /* A program's own error pending at the capture: nothing is asked that
     * would add one, and the kernels get their copy nodes as before. */
    fake.last_error = 700; /* cudaErrorIllegalAddress */
    nodes = fake.copy_nodes;
    fake.copy_nodes = 0;
    g = capture_two(st, titles, r1, r2);
    cr_assert_eq(fake.copy_nodes, 2, "a copy node each");
    cr_assert_eq(fake.last_error, 700, "the program's error left for it");
    cr_assert_str_eq(r1->ring_off, "the program had an error pending (700)");
    pt_graph_free(g);
    pt_dev_records_free(r1);
    pt_dev_records_free(r2);
}

/* Replays timed by their kernels' clocks: no event opens or closes a
 * replay; it lasts from its first block's BEGIN to its last block's END
 * (0.85 ms here, of the 1 ms between events), and one event after every
 * 8 replays says when a batch completed. The host waits only once a
 * buffer's 12 copies (8 + 4) are all in flight; the last replays, in no
 * batch yet, get an event when pt_sync must know. Every replay and block
 * folded as with events. */
Test(launch, a_graph_timed_by_its_kernels_takes_an_event_a_batch)
{
    static const char *const titles[] = { "k1", "k2" };
    pt_dev_records *r1, *r2;
    two_records(&r1, &r2);
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x58;
    void *exec = (void *)(uintptr_t)0xec;
    pt_graph *g = capture_two(st, titles, r1, r2);

    cr_assert_eq(pt_graph_time_by_kernels(g, -1), PT_EINVAL);
    cr_assert_eq(pt_graph_time_by_kernels(NULL, 8), PT_EINVAL);
    cr_assert_eq(pt_error_count(t), 1, "the negative count said: %s", pt_last_error(t));
    cr_assert_eq(pt_graph_time_by_kernels(g, 8), 0);
    long long records = fake.records, syncs = fake.syncs, ssyncs = fake.stream_syncs;
    replays_ahead(g, exec, st, 100, 12, "a buffer's 12 copies in flight");
    cr_assert_eq(fake.records - records, 100 / 8, "an event a batch of 8, none a replay");
    cr_assert_leq(fake.syncs - syncs, (100 - 12) / 8 + 1, "a wait a batch, past 12 in flight");
    fake.not_ready = 0;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(fake.records - records, 100 / 8 + 1, "and one for the last 4 replays");
    cr_assert_eq(fake.stream_syncs, ssyncs, "no stream synchronized");
    cr_assert_eq(stats("step").count, 100, "every replay timed");
    cr_assert(stats("step").gpu);
    cr_assert_float_eq(stats("step").mean_ms, 0.85, 1e-9, "first BEGIN to last END");
    cr_assert_float_eq(stats("step").max_ms, 0.85, 1e-9, "each replay its own span");
    cr_assert_eq(stats("step/k1").count, 100, "every replay folded");
    cr_assert_float_eq(stats("step/k1").mean_ms, 0.2, 1e-9, "its blocks' span");
    cr_assert_float_eq(stats("step/k2").mean_ms, 0.6, 1e-9);
    cr_assert_eq(stats("step/k1/phase 1").blocks, 100 * 8, "no record lost or mixed");
    cr_assert_eq(stats("step/k2/phase 2").blocks, 100 * 4);
    cr_assert(r1->node_reads == 100 && r2->node_reads == 100, "each by its node's copy");
    cr_assert_eq(pt_error_count(t), 1, "%s", pt_last_error(t));

    /* A block that missed END in a replay is left out of its span as of
     * its fold; here the first kernel's block 5, whose slot still holds
     * the previous replay's stamps. */
    replay_missing_end(5, g, exec, st);
    cr_assert_eq(pt_error_count(t), 2, "the missing END said: %s", pt_last_error(t));
    cr_assert_float_eq(stats("step").max_ms, 0.85, 1e-9, "the stale stamps left out");

    /* A later event on the stream (another section's) tells when the
     * replays before it completed: the queue records none of its own. */
    pt_graph_time_by_kernels(g, 1000);
    for (int i = 0; i < 3; i++)
        pt_graph_launch(t, g, "step", exec, st);
    pt_start_gpu(t, "after", st);
    pt_stop_gpu(t, "after", st);
    records = fake.records;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(fake.records, records, "nothing recorded to close them");
    cr_assert_eq(stats("step").count, 104);
    /* Refused an event, the stream's synchronization says it. */
    pt_graph_launch(t, g, "step", exec, st);
    fake.record_err = 2;
    fake.records_before_err = -1;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    fake.record_err = 0;
    cr_assert_eq(fake.stream_syncs, ssyncs + 1);
    cr_assert_eq(stats("step").count, 105);
    cr_assert_float_eq(stats("step").max_ms, 0.85, 1e-9);

    /* An event after each replay, on a GPU that keeps up: the folds a
     * replay's first fold looks for (finished work, taken in without a
     * wait) do not take in the replay itself before its folds are all
     * there, its span's parts. And with PT_SYNC each replay is waited
     * for whole, once folded. */
    pt_graph_time_by_kernels(g, 1);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("step").count, 110);
    cr_assert_float_eq(stats("step").min_ms, 0.85, 1e-9, "no replay without its span");
    t->flags |= PT_SYNC;
    cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    t->flags &= ~PT_SYNC;
    cr_assert_eq(pt__queue_pending(t), 0, "resolved at once");
    cr_assert_eq(stats("step").count, 111);
    cr_assert_float_eq(stats("step").min_ms, 0.85, 1e-9);
    cr_assert_eq(pt_error_count(t), 2, "%s", pt_last_error(t));
    pt_graph_time_by_kernels(g, 1000);

    /* A report while the stream is being captured again: nothing may be
     * recorded on it or wait for it, so the replay no event closed is
     * said, timed by the CPU clock, and its kernels not folded. */
    long long blocks = stats("step/k1/phase 1").blocks;
    pt_graph_launch(t, g, "step", exec, st);
    fake.capturing = st;
    records = fake.records;
    cr_assert_eq(pt_sync(t), PT_ECUDA);
    fake.capturing = NULL;
    cr_assert(strstr(pt_last_error(t), "being captured") &&
              strstr(pt_last_error(t), "not folded"), "%s", pt_last_error(t));
    cr_assert(fake.records == records && fake.stream_syncs == ssyncs + 1, "nothing on it");
    cr_assert_eq(stats("step").count, 112);
    cr_assert_eq(stats("step/k1/phase 1").blocks, blocks, "no copy read that may not be there");
    cr_assert_eq(pt_error_count(t), 3, "%s", pt_last_error(t));

    /* Back to events: two a replay, timing the replay whole (1 ms). */
    cr_assert_eq(pt_graph_time_by_kernels(g, 0), 0);
    records = fake.records;
    pt_graph_launch(t, g, "step", exec, st);
    cr_assert_eq(fake.records - records, 2);
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_float_eq(stats("step").max_ms, 1.0, 1e-9);
    cr_assert_eq(stats("step/k1/phase 1").blocks, blocks + 8, "counted from the last fold");
    cr_assert_eq(pt_error_count(t), 3, "%s", pt_last_error(t));
    /* pt_reset drops the replays not yet folded the same way: the next
     * replay resets the records and counts its own ENDs alone. */
    fake.not_ready = 1;
    for (int i = 0; i < 3; i++)
        pt_graph_launch(t, g, "step", exec, st);
    fake.not_ready = 0;
    pt_reset(t);
    pt_graph_launch(t, g, "step", exec, st);
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("step/k1/phase 1").blocks, 8, "%s", pt_last_error(t));
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    fake.graph_replay = NULL;
    pt_graph_free(g);
    pt_dev_records_free(r1);
    pt_dev_records_free(r2);
}

/* Replays timed by their kernels on two streams in turn, with event-timed
 * sections between them: an event on one stream says nothing of the
 * other's replays, each of which still gets its span, once, and every
 * block is folded once; what no event closed when pt_sync must know gets
 * one on its own stream. */
Test(launch, replays_timed_by_their_kernels_on_two_streams_each_close_on_their_own)
{
    static const char *const titles[] = { "k1", "k2" };
    pt_dev_records *r1, *r2;
    two_records(&r1, &r2);
    cudaStream_t a = (cudaStream_t)(uintptr_t)0x5a, b = (cudaStream_t)(uintptr_t)0x5b;
    void *exec = (void *)(uintptr_t)0xee;
    pt_graph *g = capture_two(a, titles, r1, r2);
    fake.graph_replay = replay;
    replays = 0;
    cr_assert_eq(pt_graph_time_by_kernels(g, 3), 0);
    fake.not_ready = 1;
    for (int i = 0; i < 40; i++) {
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, i % 2 ? b : a), 0, "replay %d: %s", i,
                     pt_last_error(t));
        if (i % 7 == 6) {
            pt_start_gpu(t, "between", i % 2 ? a : b);
            pt_stop_gpu(t, "between", i % 2 ? a : b);
        }
    }
    fake.not_ready = 0;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("step").count, 40, "every replay timed");
    cr_assert_float_eq(stats("step").min_ms, 0.85, 1e-9, "each its own span");
    cr_assert_float_eq(stats("step").max_ms, 0.85, 1e-9);
    cr_assert_eq(stats("between").count, 5);
    graph_done(g, r1, r2, 40);
}

/* The earliest start (us) of a block event of kernel `name` in t's
 * trace at `from` or later, or -1. */
static double block_ts(const char *name, double from)
{
    char path[64];
    json_error_t err;
    json_t *j, *e;
    size_t i;
    double ts = -1;

    snprintf(path, sizeof path, "/tmp/pt_launch_trace_%d.json", (int)getpid());
    cr_assert_eq(pt_export_trace(t, path), 0, "%s", pt_last_error(t));
    j = json_load_file(path, 0, &err);
    unlink(path);
    cr_assert_not_null(j, "%s", err.text);
    json_array_foreach(json_object_get(j, "traceEvents"), i, e) {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        double at = json_number_value(json_object_get(e, "ts"));
        if (cat && strcmp(cat, "blocks") == 0 &&
            strcmp(json_string_value(json_object_get(e, "name")), name) == 0 && at >= from &&
            (ts < 0 || at < ts))
            ts = at;
    }
    json_decref(j);
    return ts;
}

/* PT_TRACE: a replay's kernels' blocks sit at their offsets from the
 * replay's earliest BEGIN, one kernel after the other as they ran (each
 * was drawn from the replay's start before); a replay timed by its
 * kernels, which no event places, from where the host launched it. */
Test(launch, a_traced_graph_replay_draws_its_kernels_one_after_another)
{
    static const char *const titles[] = { "k1", "k2" };
    pt_destroy(t);
    t = test_timing(&clk, "launch", PT_GPU_EVENTS | PT_TRACE);
    pt_dev_records *r1, *r2;
    two_records(&r1, &r2);
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x59;
    void *exec = (void *)(uintptr_t)0xed;
    pt_graph *g = capture_two(st, titles, r1, r2);
    fake.graph_replay = replay;
    replays = 0;

    cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    double a = block_ts("k1", 0), b = block_ts("k2", 0);
    cr_assert(a >= 0 && b >= 0, "the blocks are drawn: %g, %g", a, b);
    cr_assert_float_eq(b - a, 250.0, 1e-6, "k2 began 250 us after k1: %g", b - a);

    pt_graph_time_by_kernels(g, 8);
    clk.now = 7000000;
    cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    clk.now += 5000;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_float_eq(block_ts("k1", 1000), 7000.0, 1e-6, "where the host launched it: %g",
                       block_ts("k1", 1000));
    cr_assert_float_eq(block_ts("k2", 1000), 7250.0, 1e-6, "%g", block_ts("k2", 1000));
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    fake.graph_replay = NULL;
    pt_graph_free(g);
    pt_dev_records_free(r1);
    pt_dev_records_free(r2);
}

/* PT_LAUNCH's end takes its begin's answer to whether the stream is
 * being captured; an end that follows no begin of its own (another
 * title, or a second end) asks the runtime, as the begin would. */
Test(launch, an_end_without_its_begin_asks_whether_the_stream_is_captured)
{
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x57;
    float *in = NULL;
    int n = 0;
    dim3 grid = { 2, 1, 1 }, block = { 32, 1, 1 };
    long long asks = fake.capture_asks;

    PT_LAUNCH(t, "k", NULL, step, grid, block, 0, st, &in, &n);
    cr_assert_eq(fake.capture_asks - asks, 1);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    asks = fake.capture_asks;
    cr_assert_eq(pt_dev_launch_end(t, "k", NULL, st, PT_LAUNCH_GPU), PT_ENOSTART);
    cr_assert_eq(fake.capture_asks - asks, 1, "a second end asks");
    /* Captured: the end knows it from the begin, and stops nothing. */
    fake.capturing = st;
    asks = fake.capture_asks;
    PT_LAUNCH(t, "c", NULL, step, grid, block, 0, st, &in, &n);
    cr_assert_eq(fake.capture_asks - asks, 1);
    fake.capturing = NULL;
    cr_assert_eq(pt_error_count(t), 1, "only the second end: %s", pt_last_error(t));
    cr_assert_null(pt_find(t, "c"));
    pt_graph_free(pt_graph_capture_end(t, st));
}

/* Records that do not hold the grid's slots cannot be resized during a
 * capture: said, and the kernel is captured unmeasured. */
Test(launch, a_capture_does_not_resize_the_records)
{
    pt_dev_records *recs = pt_dev_records_create(t, 2, 2, NULL, PT_DEV_AGGREGATE, 0);
    float *in = NULL;
    int n = 0;
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x52;
    dim3 grid = { 8, 1, 1 }, block = { 32, 1, 1 };
    fake.capturing = st;
    PT_LAUNCH(t, "k", recs, step, grid, block, 0, st, &in, &n);
    fake.capturing = NULL;
    cr_assert_eq(got.launches, 1, "the kernel is still launched (captured)");
    cr_assert_eq(got.buf.nslots, 0, "with no slots");
    cr_assert(strstr(pt_last_error(t), "hold 2 slots and the grid 8"), "%s", pt_last_error(t));
    pt_graph *g = pt_graph_capture_end(t, st);
    cr_assert_not_null(g);
    pt_graph_free(g);
    pt_dev_records_free(recs);
}

/* A capture never taken by pt_graph_capture_end is freed with the timing
 * (the sanitizer builds would say a leak); another stream's capture stays
 * apart from it. */
Test(launch, captures_not_taken_are_freed_with_the_timing)
{
    pt_dev_records *recs = pt_dev_records_create(t, 4, 1, NULL, PT_DEV_AGGREGATE, 0);
    float *in = NULL;
    int n = 0;
    cudaStream_t a = (cudaStream_t)(uintptr_t)0x61, b = (cudaStream_t)(uintptr_t)0x62;
    dim3 grid = { 4, 1, 1 }, block = { 32, 1, 1 };
    fake.capturing = a;
    PT_LAUNCH(t, "on a", recs, step, grid, block, 0, a, &in, &n);
    fake.capturing = b;
    PT_LAUNCH(t, "on b", recs, step, grid, block, 0, b, &in, &n);
    fake.capturing = NULL;
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_graph *g = pt_graph_capture_end(t, b);
    cr_assert_not_null(g);
    pt_graph_free(g);
    pt_destroy(t); /* "on a" is still noted */
    t = NULL;
    pt_dev_records_free(recs);
}

/* A graph built node by node: each instrumented kernel goes in after the
 * given dependencies, alone; records the device would reduce (a grid of
 * pt__reduce_min_slots slots or more, here lowered to 4) go in after
 * their reset (one memset node: the bad-slot words that end the header,
 * and the slots after them); every replay folds it as a captured one.
 * Records of another size go in alone, unmeasured, and say so. */
Test(launch, kernel_nodes_added_by_hand_fold_as_captured_ones)
{
    static const char *const n2[] = { "load", "math" }, *const n3[] = { "a", "b", "c" };
    pt_dev_records *r1 = pt_dev_records_create(t, 8, 2, n2, PT_DEV_AGGREGATE, 0);
    pt_dev_records *r2 = pt_dev_records_create(t, 4, 3, n3, PT_DEV_AGGREGATE, 0);
    pt_dev_records *small = pt_dev_records_create(t, 2, 1, NULL, PT_DEV_AGGREGATE, 0);
    cr_assert(r1 && r2 && small, "%s", pt_last_error(t));
    void *graph = (void *)(uintptr_t)0x6a, *k1, *k2, *k3;
    pt__cu_kernel_node p1 = { (void *)step, { 8, 1, 1 }, { 128, 1, 1 }, 0, NULL, NULL };
    pt__cu_kernel_node p2 = { (void *)step, { 2, 2, 1 }, { 64, 1, 1 }, 0, NULL, NULL };
    pt_graph *g = pt_graph_create(t);
    int min_slots = pt__reduce_min_slots;
    cr_assert_not_null(g);

    cr_assert_eq(pt_graph_add_kernel(g, &k1, graph, NULL, 0, &p1, 0, "first kernel", r1), 0, "%s",
                 pt_last_error(t));
    cr_assert_eq(fake.memset_nodes, 0, "no reset in the graph");
    cr_assert_eq(fake.kernel_params, &p1, "the user's kernel parameters as given");
    cr_assert_eq(fake.ndeps, 0, "after what the user gave: nothing");
    cr_assert_eq(k1, (void *)(uintptr_t)1);
    cr_assert_eq(fake.copy_nodes, 1, "its records' copy node");
    cr_assert_eq(fake.copy[0].dep, k1, "after the kernel");
    cr_assert_eq(fake.copy[0].src, r1->data);
    /* The second after the first, its records as the device reduces. */
    pt__reduce_min_slots = 4;
    cr_assert_eq(pt_graph_add_kernel(g, &k2, graph, &k1, 1, &p2, 0, "second kernel", r2), 0, "%s",
                 pt_last_error(t));
    pt__reduce_min_slots = min_slots;
    cr_assert_eq(fake.memset_nodes, 1, "the reset: one memset");
    pt_dev_buf a1 = pt_dev_arg(r1), a2 = pt_dev_arg(r2);
    cr_assert_eq(fake.memset_params[0].dst, a2.data + PT_DEV_H_BAD_SLOT,
                 "from the bad slots' count and largest index");
    cr_assert_eq(PT_DEV_H_BAD_SLOT_AT + 1, PT_DEV_HDR, "which end the header");
    cr_assert_eq(fake.memset_params[0].width * fake.memset_params[0].element_size,
                 (PT_DEV_BUF_WORDS(4, 3, 0) - PT_DEV_H_BAD_SLOT) * sizeof(long long),
                 "to the last slot's last word");
    cr_assert_eq(fake.memset_params[0].value, 0);
    cr_assert_eq(fake.ndeps, 1, "the kernel after the reset");
    cr_assert_eq(fake.deps[0], (void *)(uintptr_t)3, "(node 2: the first one's copy)");
    cr_assert_eq(k2, (void *)(uintptr_t)4);
    cr_assert_eq(fake.copy_nodes, 1, "records the device reduces are reduced, not copied");
    /* Records of 2 slots for a grid of 8: in the graph, unmeasured. */
    cr_assert_eq(pt_graph_add_kernel(g, &k3, graph, &k2, 1, &p1, 0, "third", small), PT_ESTATE);
    cr_assert(strstr(pt_last_error(t), "(2 slots, the grid 8) do not hold the grid's slots"),
              "%s", pt_last_error(t));
    cr_assert_eq(fake.kernel_nodes, 3, "the kernel is still in the graph");
    cr_assert_eq(fake.memset_nodes, 1, "with no reset");
    cr_assert_eq(fake.ndeps, 1);
    cr_assert_eq(fake.deps[0], k2, "after what the user gave");
    /* Bad arguments. */
    cr_assert_eq(pt_graph_add_kernel(g, NULL, graph, NULL, 0, &p1, 0, "x", r1), PT_EINVAL);
    cr_assert_eq(pt_graph_add_kernel(g, &k3, NULL, NULL, 0, &p1, 0, "x", r1), PT_EINVAL);
    cr_assert_eq(pt_graph_add_kernel(g, &k3, graph, NULL, 0, NULL, 0, "x", r1), PT_EINVAL);
    cr_assert_eq(pt_graph_add_kernel(NULL, &k3, graph, NULL, 0, &p1, 0, "x", r1), PT_EINVAL);
    cr_assert_eq(pt_graph_add_kernel(g, &k3, graph, NULL, 0, &p1, -1, "x", r1), PT_EINVAL);
    cr_assert(strstr(pt_last_error(t), "a negative count of arguments"), "%s", pt_last_error(t));
    cr_assert_null(pt_graph_create(NULL));

    int errors = pt_error_count(t);
    graph_bufs[0] = a1;
    graph_bufs[1] = a2;
    void *exec = (void *)(uintptr_t)0xe8;
    fake.graph_replay = replay;
    replays = 0;
    reset_second = 1;
    for (int i = 0; i < 10; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, NULL), 0, "replay %d: %s", i,
                     pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(stats("step").count, 10);
    cr_assert_eq(stats("step/first kernel").count, 10, "every replay folded");
    cr_assert_float_eq(stats("step/first kernel").mean_ms, 0.2, 1e-9, "its blocks' span");
    cr_assert_eq(stats("step/first kernel/math").blocks, 10 * 8);
    cr_assert_eq(stats("step/second kernel/c").blocks, 10 * 4);
    cr_assert_null(pt_find(t, "step/third"), "unmeasured");
    cr_assert_eq(pt_error_count(t), errors, "%s", pt_last_error(t));
    fake.graph_replay = NULL;
    reset_second = 0;
    pt_graph_free(g);
    pt_dev_records_free(r1);
    pt_dev_records_free(r2);
    pt_dev_records_free(small);
}

/* Added node by node where the runtime gives a graph's kernel nodes other
 * arguments: a kernel whose last argument is its records' pt_dev_buf
 * writes a set of the ring, as a captured one; one whose records come
 * elsewhere among its arguments keeps a copy node. */
Test(launch, kernel_nodes_added_by_hand_write_the_ring_where_their_records_come_last)
{
    pt_dev_records *r1, *r2;
    ring_setup();
    two_records(&r1, &r2);
    float *in = NULL;
    int n = 0;
    pt_dev_buf a1 = pt_dev_arg(r1), a2 = pt_dev_arg(r2);
    void *last[] = { &in, &n, &a1 }, *middle[] = { &in, &a2, &n };
    /* A kernel (float *, pt_dev_buf, int): the records in the middle. */
    fake.odd_func = (const void *)write_records;
    fake.odd_nparams = 3;
    fake.odd_size[0] = sizeof in;
    fake.odd_size[1] = sizeof a2;
    fake.odd_size[2] = sizeof n;
    pt__cu_kernel_node p1 = { (void *)step, { 8, 1, 1 }, { 128, 1, 1 }, 0, last, NULL };
    pt__cu_kernel_node p2 = { (void *)write_records, { 4, 1, 1 }, { 128, 1, 1 }, 0, middle,
                              NULL };
    void *graph = (void *)(uintptr_t)0x6b, *k0, *k1, *k2;
    pt_graph *g = pt_graph_create(t);

    /* Its count of arguments not said, the runtime is asked for the one
     * after the records, which it refuses: an API error (and the
     * cudaGetLastError that clears it) compute-sanitizer lists. */
    pt_dev_records *r0 = pt_dev_records_create(t, 8, 2, NULL, PT_DEV_AGGREGATE, 0);
    pt_dev_buf a0 = pt_dev_arg(r0);
    void *unsaid[] = { &in, &n, &a0 };
    pt__cu_kernel_node p0 = { (void *)step, { 8, 1, 1 }, { 128, 1, 1 }, 0, unsaid, NULL };
    pt_graph *g0 = pt_graph_create(t);
    cr_assert_eq(pt_graph_add_kernel(g0, &k0, graph, NULL, 0, &p0, 0, "k0", r0), 0, "%s",
                 pt_last_error(t));
    cr_assert(fake.copy_nodes == 0 && !r0->ring_off[0], "the ring's: %s", r0->ring_off);
    cr_assert_eq(fake.api_errors, 2, "one argument asked past the last, its error cleared");
    cr_assert_eq(fake.last_error, 0, "the program sees none");
    pt_graph_free(g0);
    pt_dev_records_free(r0);

    /* Said, nothing is asked past the last argument. */
    fake.api_errors = 0;
    cr_assert_eq(pt_graph_add_kernel(g, &k1, graph, NULL, 0, &p1, 3, "k1", r1), 0, "%s",
                 pt_last_error(t));
    cr_assert_eq(fake.copy_nodes, 0, "the ring's: no copy node");
    cr_assert_eq(pt_graph_add_kernel(g, &k2, graph, &k1, 1, &p2, 3, "k2", r2), 0, "%s",
                 pt_last_error(t));
    cr_assert_eq(fake.copy_nodes, 1, "records not last: a copy node");
    cr_assert_str_eq(r2->ring_off, "cudaFuncGetParamInfo: the records are not the last "
                     "argument", "said where a test can log it");
    cr_assert_str_eq(r1->ring_off, "");
    cr_assert_eq(fake.api_errors, 0, "no call refused");
    cr_assert_eq(fake.last_error, 0);
    graph_bufs[0] = a1;
    graph_bufs[1] = a2;
    graph_nodes[0] = k1;
    graph_nodes[1] = k2;
    fake.graph_replay = replay;
    for (int i = 0; i < 10; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", (void *)(uintptr_t)0xef, NULL), 0, "%s",
                     pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    cr_assert(r1->ring_reads == 10 && r2->node_reads == 10, "%lld by the ring, %lld by the node",
              r1->ring_reads, r2->node_reads);
    graph_done(g, r1, r2, 10);
}

/* ---- the fold's own thread ---------------------------------------- */

static const char *const fold_paths[] = {
    "step",         "step/k1",         "step/k1/phase 0", "step/k1/phase 1", "step/k1/(unattributed)",
    "step/k2",      "step/k2/phase 0", "step/k2/phase 1", "step/k2/phase 2", "step/k2/(unattributed)",
};
enum { FOLD_PATHS = sizeof fold_paths / sizeof *fold_paths, FOLD_REPLAYS = 60 };

/* A timing on the runtime with the ring (ring_setup), capture_two's
 * graph of "k1" and "k2" on st with new records, replayed by `replay`. */
static pt_graph *ring_graph(cudaStream_t st, pt_dev_records **r1, pt_dev_records **r2)
{
    static const char *const titles[] = { "k1", "k2" };

    ring_setup();
    two_records(r1, r2);
    pt_graph *g = capture_two(st, titles, *r1, *r2);
    fake.graph_replay = replay;
    return g;
}

/* A graph of capture_two's kernels replayed FOLD_REPLAYS times, each
 * block's phases different by replay and slot, with the fold's own
 * thread on ("1"), off ("0"), in turn off and on every 20 replays
 * ("mixed", as the host's need for it may come and go) or as needed
 * (NULL: PT_FOLD_THREAD unset), on the fake GPU paced at pace_us a
 * replay (0: each replay done at once). With "1" at once, its time to
 * find what it was handed before pt_sync. The sections' figures, k2's
 * heatmap (4 blocks of 3 phases), the tasks the thread ran, and the
 * threads named as it is; those handed to it (run there or by a wait)
 * in fold_handed. Returns the wall time a replay of the launches and
 * pt_sync, us. */
static long fold_handed;

static double fold_thread_run(const char *thread, double pace_us, pt_section_stats *out,
                              double *heat, long *on_thread, int *named)
{
    int mixed = thread && strcmp(thread, "mixed") == 0;
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x5a;
    void *exec = (void *)(uintptr_t)0xee;
    pt_dev_records *r1, *r2;
    long on_caller = 0;
    int64_t busy;
    double us, t0;
    pt__gpu *gpu;

    if (thread)
        setenv("PT_FOLD_THREAD", mixed ? "1" : thread, 1);
    else
        unsetenv("PT_FOLD_THREAD");
    pt_graph *g = ring_graph(st, &r1, &r2);
    replays = 0;
    vary = 1;
    fake.pace_us = pace_us;
    t0 = fake_wall_us();
    for (int i = 0; i < FOLD_REPLAYS; i++) {
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
        if (mixed) /* a phase outlasts the ring's 16 sets: each folds some */
            pt__gpu_of(t)->fold_mode = i / 20 % 2 ? PT__FOLD_ALWAYS : PT__FOLD_NEVER;
    }
    us = fake_wall_us() - t0;
    gpu = pt__gpu_of(t);
    *on_thread = 0;
    for (int i = 0; i < 5000 && thread && !mixed && !pace_us && gpu->worker && *on_thread == 0;
         i++) {
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
        pt__worker_counts(gpu->worker, on_thread, &on_caller, &busy);
    }
    t0 = fake_wall_us();
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    us = (us + fake_wall_us() - t0) / FOLD_REPLAYS;
    fake.pace_us = 0;
    pt__worker_counts(gpu->worker, on_thread, &on_caller, &busy);
    fold_handed = *on_thread + on_caller;
    cr_assert_geq(threads_cpu_ns(PT__FOLD_THREAD_NAME, named), 0, "/proc/self/task read");
    for (size_t k = 0; k < FOLD_PATHS; k++) {
        cr_assert_eq(pt_section_get(t, find(fold_paths[k]), &out[k]), 0);
        out[k].name = NULL;
    }
    const pt__heat *h = find("step/k2")->heat;
    cr_assert(h && h->nrows == 4 && h->nphases == 3);
    memcpy(heat, h->ns, 12 * sizeof *heat);
    vary = 0;
    graph_done(g, r1, r2, FOLD_REPLAYS);
    unsetenv("PT_FOLD_THREAD");
    return us;
}

/* Each replay's figures, found on the fold's own thread once its set has
 * landed (fold_worker.c) while the launching thread goes on, make the
 * same tree, figure for figure, as where every fold is the launching
 * thread's (PT_FOLD_THREAD=0): its phases, their blocks, histograms and
 * SMs, the launch's shape, the heatmap; and so does the thread taken up
 * and left in turn, as the host's need for it comes and goes (the
 * replays' counts taken in order however the folds go). The thread is
 * one, by its name (what top -H and a debugger show, and the benchmarks
 * look for). */
Test(launch, the_fold_thread_finds_what_the_launching_thread_would)
{
    pt_section_stats one[FOLD_PATHS], two[FOLD_PATHS], three[FOLD_PATHS];
    double h1[12], h2[12], h3[12];
    long n1, n2, n3;
    int named1, named2, named3;

    fold_thread_run("0", 0, one, h1, &n1, &named1);
    fold_thread_run("1", 0, two, h2, &n2, &named2);
    fold_thread_run("mixed", 0, three, h3, &n3, &named3);
    cr_assert(fold_handed > 0 && fold_handed < 2 * FOLD_REPLAYS,
              "taken up and left: %ld of %d folds handed over", fold_handed, 2 * FOLD_REPLAYS);
    cr_assert_eq(n1, 0, "no thread where PT_FOLD_THREAD=0");
    cr_assert_eq(named1, 0, "no thread named \"%s\" where PT_FOLD_THREAD=0",
                 PT__FOLD_THREAD_NAME);
    cr_assert_gt(n2, 0, "the thread found replays' figures");
    cr_assert_eq(named2, 1, "one thread named \"%s\", not %d", PT__FOLD_THREAD_NAME, named2);
    cr_assert_eq(one[3].blocks, FOLD_REPLAYS * 8, "every block of every replay");
    cr_assert_gt(one[3].block_max_ms, one[3].block_min_ms, "blocks that differ");
    for (size_t k = 0; k < FOLD_PATHS; k++) {
        cr_assert(memcmp(&one[k], &two[k], sizeof one[k]) == 0, "%s: the same figures",
                  fold_paths[k]);
        cr_assert(memcmp(&one[k], &three[k], sizeof one[k]) == 0, "%s: the same figures, the "
                  "thread taken up and left", fold_paths[k]);
    }
    cr_assert(memcmp(h1, h2, sizeof h1) == 0, "the same heatmap");
    cr_assert(memcmp(h1, h3, sizeof h1) == 0, "the same heatmap, the thread taken up and left");
}

/* fold_thread_run with the fold's own thread as needed at pace_us: the
 * wall time a replay, us, and the folds handed to the thread. */
static double as_needed_run(double pace_us, long *handed)
{
    pt_section_stats out[FOLD_PATHS];
    double heat[12], us;
    long on_thread;
    int named;

    us = fold_thread_run(NULL, pace_us, out, heat, &on_thread, &named);
    *handed = fold_handed;
    return us;
}

/* By default the folds go to the fold's own thread only as the host
 * needs it: where each copy has landed before the launching thread
 * meets it (a GPU ahead of the host: here, one done at once) they go
 * there; where the launching thread waits for the GPU most of the time
 * (paced at 30 times the host's own work a replay, as measured here,
 * so under a sanitizer too) they stay on it, the final pt_sync's too:
 * a drain keeps the judgement the launches made (its copies, a set's at
 * a time, found landed one after another, read as a host behind, and
 * handed over a batch or two). */
Test(launch, the_fold_thread_is_used_as_the_host_needs_it)
{
    long fast, slow, folds = 2 * FOLD_REPLAYS;
    double host_us = as_needed_run(0, &fast);

    cr_assert_geq(fast, folds * 3 / 4, "a GPU ahead of the host: %ld of %ld folds handed over",
                  fast, folds);
    as_needed_run(host_us * 30 > 200 ? host_us * 30 : 200, &slow);
    cr_assert_leq(slow, folds / 10, "a host with time to spare: %ld of %ld folds handed over",
                  slow, folds);
}

/* A drain (pt_sync, a report) launches nothing: it keeps the judgement
 * the launches made. Where the host had time to spare and pt_sync comes
 * once the GPU is done, the drain finds every copy landed, one after
 * another with no wait between them: judged there, that read as a host
 * busy all the time, and the folds went to the thread. */
Test(launch, a_drain_keeps_the_judgement_its_launches_made)
{
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x5a;
    pt_dev_records *r1, *r2;
    long handed, on_thread = 0, on_caller = 0;
    int64_t busy;
    double host_us = as_needed_run(0, &handed);

    unsetenv("PT_FOLD_THREAD");
    pt_graph *g = ring_graph(st, &r1, &r2);
    replays = 0;
    fake.pace_us = host_us * 30 > 200 ? host_us * 30 : 200;
    for (int i = 0; i < 40; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", (void *)(uintptr_t)0xee, st), 0, "%s",
                     pt_last_error(t));
    fake_wait_until(fake.busy_until_us);
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    fake.pace_us = 0;
    if (pt__gpu_of(t)->worker)
        pt__worker_counts(pt__gpu_of(t)->worker, &on_thread, &on_caller, &busy);
    cr_assert_eq(on_thread + on_caller, 0, "%ld of the drain's folds handed over",
                 on_thread + on_caller);
    graph_done(g, r1, r2, 40);
}

/* The folds k1's section had when the host began its wait for the GPU's
 * last replay (read from the section itself: a wait is inside ptkit),
 * and when that replay ends (fake.busy_until_us then). */
static const pt_section *k1_node;
static uint64_t folded_at_end;
static double end_us;

static void note_end_wait(double until_us)
{
    if (until_us >= end_us && folded_at_end == UINT64_MAX)
        folded_at_end = k1_node->count;
}

/* pt_sync after n replays, the folds on the launching thread, once the
 * GPU has `left` and a half of them still to run (0: at once): the folds
 * k1's section had when it came to wait for the last replay; in
 * waited_after, whether the replay after it waited for the ring's
 * copies. The GPU's pace is 50 times the host's work a replay, as
 * measured here (so under a sanitizer too), for its queue to hold the
 * ring's 16. Where no_early, the ring's second stream cannot be made. */
static int waited_after;

static uint64_t folded_before_last(int n, int left, double host_us, int no_early)
{
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x5a;
    pt_dev_records *r1, *r2;

    setenv("PT_FOLD_THREAD", "0", 1);
    pt_graph *g = ring_graph(st, &r1, &r2);
    replays = 0;
    fake.pace_us = host_us * 50 > 1000 ? host_us * 50 : 1000;
    fake.stream_err = no_early ? 2 : 0; /* cudaErrorMemoryAllocation */
    fake.streams_before_err = 1;          /* the copies' first stream made */
    for (int i = 0; i < n; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", (void *)(uintptr_t)0xee, st), 0, "%s",
                     pt_last_error(t));
    fake.stream_err = 0;
    k1_node = find("step/k1");
    end_us = fake.busy_until_us;
    if (left > 0)
        fake_wait_until(end_us - (left + 0.5) * fake.pace_us);
    folded_at_end = UINT64_MAX;
    fake.on_wait = note_end_wait;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    fake.on_wait = NULL;
    fake.pace_us = 0;
    unsetenv("PT_FOLD_THREAD");
    cr_assert_neq(folded_at_end, UINT64_MAX, "pt_sync waited for the last replay");
    fake.waited_stream = NULL;
    cr_assert_eq(pt_graph_launch(t, g, "step", (void *)(uintptr_t)0xee, st), 0, "%s",
                 pt_last_error(t));
    waited_after = fake.waited_stream == st;
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    graph_done(g, r1, r2, n + 1);
    return folded_at_end;
}

/* pt_sync after replays still on the GPU folds each replay as it ends,
 * while the GPU runs the ones after it: when it comes to wait for the
 * last replay, every replay before it is folded. Each set is copied back
 * on its own behind its replay, where its batch's copy waited for the
 * batch's last replay (the last batch's folds all came after the GPU was
 * done; before that, a wait for the newest replay came first, and every
 * fold after it). The last batch whole (24 replays), its copy already on
 * its way; cut short (21), its copy not yet made; and whole with half
 * its replays done when pt_sync comes. The replay after the drain waits
 * for the batches' copies, which may still read a set copied back on
 * its own. Without a stream for those copies, the batches' copies
 * serve, as before: every replay folded, the last batch's after the
 * GPU is done. */
Test(launch, a_sync_folds_each_replay_while_the_gpu_runs_the_later_ones)
{
    static const int n[] = { 24, 21, 24 }, left[] = { 0, 0, 4 };
    long handed;
    double host_us = as_needed_run(0, &handed);
    uint64_t folded;

    for (int k = 0; k < 3; k++) {
        folded = folded_before_last(n[k], left[k], host_us, 0);
        cr_assert_eq(folded, (uint64_t)n[k] - 1, "%llu of %d replays folded before the wait "
                     "for the last (%d left to run)", (unsigned long long)folded, n[k], left[k]);
        cr_assert(waited_after, "the replay after the drain waits for the batches' copies");
    }
    folded = folded_before_last(24, 0, host_us, 1);
    cr_assert_eq(folded, 24 - 8, "without the copies' second stream, %llu of 24 replays "
                 "folded before the wait for the last", (unsigned long long)folded);
    cr_assert_not(waited_after, "no set copied on its own, so no wait");
}

/* Folds handed to the fold's thread and dropped unrun by pt_reset are
 * taken back (or waited for where it has begun one): nothing leaks
 * (the suite runs under ASan in CI), and the replays after the reset
 * fold whole. */
Test(launch, a_reset_takes_back_what_the_fold_thread_holds)
{
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x5a;
    void *exec = (void *)(uintptr_t)0xee;
    pt_dev_records *r1, *r2;
    long on_thread, on_caller;
    int64_t busy;

    unsetenv("PT_FOLD_THREAD");
    pt_graph *g = ring_graph(st, &r1, &r2);
    for (int i = 0; i < 40; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_not_null(pt__gpu_of(t)->worker, "the thread was handed the landed sets");
    pt__worker_counts(pt__gpu_of(t)->worker, &on_thread, &on_caller, &busy);
    long before = on_caller;
    pt_reset(t);
    pt__worker_counts(pt__gpu_of(t)->worker, &on_thread, &on_caller, &busy);
    cr_assert_eq(on_caller, before, "nothing dropped was run here to be dropped");
    for (int i = 0; i < 16; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    graph_done(g, r1, r2, 16);
}

/* A child forked while the fold's thread holds folds has no such thread:
 * it folds what the thread had not begun itself, says the one it was in
 * the middle of lost (at most one), and never waits for the thread; the
 * parent folds every replay. */
Test(launch, a_forked_child_folds_without_the_parents_fold_thread)
{
    cudaStream_t st = (cudaStream_t)(uintptr_t)0x5a;
    void *exec = (void *)(uintptr_t)0xee;
    pt_dev_records *r1, *r2;
    int status = 0;
    pid_t pid;

    unsetenv("PT_FOLD_THREAD");
    pt_graph *g = ring_graph(st, &r1, &r2);
    for (int i = 0; i < FOLD_REPLAYS; i++)
        cr_assert_eq(pt_graph_launch(t, g, "step", exec, st), 0, "%s", pt_last_error(t));
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        pt_section_stats a, b;
        alarm(20); /* a wait for the parent's thread would never end */
        pt_sync(t);
        if (pt_section_get(t, pt_find(t, "step/k1/phase 1"), &a) ||
            pt_section_get(t, pt_find(t, "step/k2/phase 2"), &b))
            _exit(2);
        long lost = (FOLD_REPLAYS * 8 - (long)a.blocks) / 8 + (FOLD_REPLAYS * 4 - (long)b.blocks) / 4;
        _exit(lost <= 1 && (long)a.blocks % 8 == 0 && (long)b.blocks % 4 == 0 ? 0 : 3);
    }
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child folded what it held "
              "(status %d)", status);
    cr_assert_eq(pt_sync(t), 0, "%s", pt_last_error(t));
    graph_done(g, r1, r2, FOLD_REPLAYS);
}
