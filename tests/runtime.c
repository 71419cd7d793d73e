/* One CUDA runtime per process: libptkit uses the runtime the program
 * already loaded (whatever its file name), or the one PT_CUDART names,
 * and never loads a second. The runtime here is tests/runtime/
 * fake_cudart.c, built as libcudart.so.11.0: a CUDA 11 runtime as far as
 * ptkit can tell. Each test runs in a process of its own, so each starts
 * with no runtime loaded. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gpu/cuda.h"

static char fake_path[1024];
static pt_timing *t;

static void setup(void)
{
    const char *build = getenv("PT_BUILD");
    snprintf(fake_path, sizeof fake_path, "%s/tests/runtime/libcudart.so.11.0",
             build ? build : "build");
    t = NULL;
}

static void teardown(void)
{
    pt_destroy(t);
}

TestSuite(runtime, .init = setup, .fini = teardown);

/* The loaded objects whose file name starts with "libcudart": the
 * process's CUDA runtimes. */
static int count_one(struct dl_phdr_info *info, size_t size, void *ctx)
{
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    (void)size;
    base = base ? base + 1 : info->dlpi_name;
    if (base && strncmp(base, "libcudart", 9) == 0)
        ++*(int *)ctx;
    return 0;
}

static int runtimes_loaded(void)
{
    int n = 0;
    dl_iterate_phdr(count_one, &n);
    return n;
}

static long long fake_calls(void *lib)
{
    long long *calls = dlsym(lib, "fake_cudart_calls");
    cr_assert_not_null(calls, "the fake runtime's counter");
    return *calls;
}

/* A GPU section timed with the events of whichever runtime ptkit took. */
static pt_section_stats gpu_section(void)
{
    pt_section_stats st;
    t = pt_create("runtime", PT_GPU_EVENTS);
    cr_assert_not_null(t);
    cr_assert_eq(pt_start_gpu(t, "k", NULL), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_stop_gpu(t, "k", NULL), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_section_get(t, pt_find(t, "k"), &st), 0, "%s", pt_last_error(t));
    return st;
}

Test(runtime, the_runtime_the_program_loaded_is_the_one_used)
{
    void *lib = dlopen(fake_path, RTLD_NOW | RTLD_GLOBAL);
    cr_assert_not_null(lib, "%s: %s", fake_path, dlerror());
    cr_assert_eq(runtimes_loaded(), 1);
    pt_section_stats st = gpu_section();
    cr_assert_eq(run_stats(t).gpu_timing, 1, "timed by the fake runtime's events: %s",
                 run_stats(t).gpu_fallback_why);
    cr_assert_eq(st.cpu_clock, 0, "no [cpu clock] fallback");
    cr_assert_gt(fake_calls(lib), 0, "the calls went to the program's runtime");
    cr_assert_eq(runtimes_loaded(), 1, "no second runtime was loaded");
    cr_assert(strstr(pt__cuda_origin(), "libcudart.so.11.0, already loaded by the program"),
              "%s", pt__cuda_origin());
    cr_assert(strstr(pt__cuda_origin(), "CUDA runtime 11.8"), "%s", pt__cuda_origin());
    /* The report says which runtime timed the launches. */
    test_text out = { NULL, 0 };
    pt_log_fn(t, test_text_line, &out);
    cr_assert(out.s && strstr(out.s, "  CUDA runtime: "), "%s", out.s);
    cr_assert(strstr(out.s, "libcudart.so.11.0, already loaded by the program; CUDA runtime 11.8"),
              "%s", out.s);
    free(out.s);
}

Test(runtime, a_runtime_loaded_with_local_symbols_is_found_by_its_name)
{
    /* As Python's ctypes or a plugin loads one: its symbols are not in the
     * global scope, but it is in the process all the same. */
    void *lib = dlopen(fake_path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "%s: %s", fake_path, dlerror());
    gpu_section();
    cr_assert_eq(run_stats(t).gpu_timing, 1, "%s", run_stats(t).gpu_fallback_why);
    cr_assert_gt(fake_calls(lib), 0);
    cr_assert_eq(runtimes_loaded(), 1, "no second runtime was loaded");
}

Test(runtime, PT_CUDART_names_the_runtime)
{
    setenv("PT_CUDART", fake_path, 1);
    gpu_section();
    cr_assert_eq(run_stats(t).gpu_timing, 1, "%s", run_stats(t).gpu_fallback_why);
    cr_assert(strstr(pt__cuda_origin(), "named by PT_CUDART"), "%s", pt__cuda_origin());
    cr_assert_eq(runtimes_loaded(), 1, "the named one alone");
    void *lib = dlopen(fake_path, RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(lib, "the named runtime is the loaded one");
    cr_assert_gt(fake_calls(lib), 0);
}

Test(runtime, a_PT_CUDART_that_does_not_load_is_said_and_nothing_else_is_tried)
{
    setenv("PT_CUDART", "/nonexistent/libcudart.so.12", 1);
    pt_section_stats st = gpu_section();
    pt_run_stats r = run_stats(t);
    cr_assert_eq(r.gpu_timing, 0);
    cr_assert_eq(st.cpu_clock, 1, "timed by the CPU clock instead");
    cr_assert(strstr(r.gpu_fallback_why, "/nonexistent/libcudart.so.12"), "%s",
              r.gpu_fallback_why);
    cr_assert(strstr(r.gpu_fallback_why, "no CUDA runtime"), "%s", r.gpu_fallback_why);
    cr_assert_eq(runtimes_loaded(), 0, "no other runtime was loaded in its place");
    cr_assert_eq(pt_error_count(t), 0, "a machine's fact, not an error: %s", pt_last_error(t));
}

Test(runtime, a_PT_CUDART_that_is_not_a_runtime_says_what_it_lacks)
{
    setenv("PT_CUDART", "libm.so.6", 1);
    gpu_section();
    pt_run_stats r = run_stats(t);
    cr_assert_eq(r.gpu_timing, 0);
    cr_assert(strstr(r.gpu_fallback_why, "lacks cudaGetDeviceCount"), "%s", r.gpu_fallback_why);
    cr_assert_eq(runtimes_loaded(), 0);
}

Test(runtime, a_cpu_only_timing_loads_no_runtime)
{
    t = pt_create("runtime", PT_CPU);
    pt_start(t, "a");
    pt_stop(t, "a");
    pt_start_gpu(t, "k", NULL);
    pt_stop_gpu(t, "k", NULL);
    cr_assert_eq(runtimes_loaded(), 0, "a timing without PT_GPU_EVENTS needs no CUDA");
}

Test(runtime, host_mode_records_load_no_runtime)
{
    /* The CPU path of a kernel: records in host memory, folded on the
     * host; no CUDA runtime is loaded for it (one used to be, and its
     * initializer crashed under an allocation failure). */
    t = pt_create("runtime", PT_CPU);
    pt_dev_records *b = pt_dev_records_create(t, 4, 2, NULL, PT_DEV_HOST, 0);
    cr_assert_not_null(b, "%s", pt_last_error(t));
    pt_start(t, "step");
    pt_stop(t, "step");
    pt_dev_fold(t, b, "step");
    pt_dev_records_free(b);
    cr_assert_eq(runtimes_loaded(), 0);
}
