/* pt_nvrtc_headers() and pt_dev.h under NVRTC: kernels compiled at run time
 * with the headers embedded in libptkit. NVRTC needs no GPU; with CUDA=0
 * it is not linked and those tests skip. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pt/pt.h>
#include <pt/pt_nvrtc.h>

#include "common.h"
#include "kernels/kstat.h"

#if PT_BUILD_CUDA
#  include <nvrtc.h>
#endif

TestSuite(nvrtc);

static char *read_text(const char *path)
{
    char *text = test_read_file(path);
    cr_assert_not_null(text, "cannot read %s", path);
    return text;
}

Test(nvrtc, embedded_headers_are_the_ones_in_include)
{
    int n = -1, seen_dev = 0, seen_buf = 0;
    const char *const *names = NULL, *const *srcs = NULL;
    int rc = pt_nvrtc_headers(&n, &names, &srcs);
    cr_assert_eq(rc, 0, "pt_nvrtc_headers: %s", pt_strerror(rc));
    cr_assert_geq(n, 2, "%d headers", n);
    cr_assert_null(names[n], "names[] does not end with NULL");
    cr_assert_null(srcs[n], "sources[] does not end with NULL");
    for (int i = 0; i < n; i++) {
        char path[512];
        char *text;
        snprintf(path, sizeof path, "include/%s", names[i]);
        text = read_text(path);
        cr_assert_str_eq(srcs[i], text, "the embedded %s differs from %s", names[i], path);
        free(text);
        seen_dev += strcmp(names[i], "pt/pt_dev.h") == 0;
        seen_buf += strcmp(names[i], "pt/pt_dev_buf.h") == 0;
        /* NVRTC has no system headers: nothing embedded may include one. */
        for (const char *p = srcs[i]; (p = strstr(p, "#include")) != NULL; p++) {
            const char *arg = p + strlen("#include");
            arg += strspn(arg, " ");
            cr_assert(strncmp(arg, "<pt/", 4) == 0 || strncmp(arg, "\"pt/", 4) == 0,
                      "%s includes something else than pt/: %.40s", names[i], p);
        }
    }
    cr_assert_eq(seen_dev, 1, "pt/pt_dev.h embedded %d times", seen_dev);
    cr_assert_eq(seen_buf, 1, "pt/pt_dev_buf.h embedded %d times", seen_buf);
}

Test(nvrtc, null_out_pointers_are_rejected)
{
    int n = 0;
    const char *const *names = NULL, *const *srcs = NULL;
    cr_assert_eq(pt_nvrtc_headers(NULL, &names, &srcs), PT_EINVAL);
    cr_assert_eq(pt_nvrtc_headers(&n, NULL, &srcs), PT_EINVAL);
    cr_assert_eq(pt_nvrtc_headers(&n, &names, NULL), PT_EINVAL);
    cr_assert_null(names, "names set on failure");
}

#if PT_BUILD_CUDA

/* Three phases in a loop, from the ptgen header the build made; and a
 * helper that marks through the state its kernel passes down. */
static const char kernel_src[] =
    "#include <pt/pt_dev.h>\n"
    "#include \"pt_test_phases.h\"\n"
    "extern \"C\" __global__ void k_marks3(float *x, int n, pt_dev_buf buf)\n"
    "{\n"
    "    PT_DEV_BEGIN(buf);\n"
    "    float v = x[threadIdx.x];\n"
    "#pragma unroll 1\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        v = v * 1.5f + 1.0f;\n"
    "        PT_DEV_MARK(PH_LOAD);\n"
    "        v = sqrtf(v);\n"
    "        PT_DEV_MARK(PH_COMPUTE);\n"
    "        v -= 0.5f;\n"
    "        PT_DEV_MARK(PH_REDUCE);\n"
    "    }\n"
    "    x[threadIdx.x] = v;\n"
    "    PT_DEV_END(buf);\n"
    "}\n"
    "static __device__ float half_step(float v, pt_dev_state *st)\n"
    "{\n"
    "    v = v * 0.5f;\n"
    "    PT_DEV_MARK_IN(st, PH_STORE);\n"
    "    return v;\n"
    "}\n"
    "extern \"C\" __global__ void k_helper_marks2(float *x, pt_dev_buf buf)\n"
    "{\n"
    "    PT_DEV_BEGIN(buf);\n"
    "    float v = half_step(x[threadIdx.x], PT_DEV_STATE);\n"
    "    PT_DEV_MARK(PH_FLUSH);\n"
    "    x[threadIdx.x] = v;\n"
    "    PT_DEV_END(buf);\n"
    "}\n";

typedef struct compiled {
    nvrtcResult rc;
    char *ptx; /* NULL when the compile failed */
    char *log;
} compiled;

/* Compiles kernel_src for arch with the embedded headers, the test phase
 * header and the given options. */
static compiled compile(const char *arch, const char *opt1, const char *opt2)
{
    int n;
    const char *const *names, *const *srcs;
    const char *hnames[16], *hsrcs[16], *opts[3];
    int nopts = 0;
    char path[512], archopt[64];
    const char *build = getenv("PT_BUILD");
    char *phases;
    nvrtcProgram prog;
    compiled c = { NVRTC_SUCCESS, NULL, NULL };
    size_t size;

    cr_assert_eq(pt_nvrtc_headers(&n, &names, &srcs), 0);
    cr_assert_lt(n, 15, "%d headers", n);
    snprintf(path, sizeof path, "%s/kernels/pt_test_phases.h", build && *build ? build : "build");
    phases = read_text(path);
    for (int i = 0; i < n; i++) {
        hnames[i] = names[i];
        hsrcs[i] = srcs[i];
    }
    hnames[n] = "pt_test_phases.h";
    hsrcs[n] = phases;

    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
    opts[nopts++] = archopt;
    if (opt1)
        opts[nopts++] = opt1;
    if (opt2)
        opts[nopts++] = opt2;

    cr_assert_eq(nvrtcCreateProgram(&prog, kernel_src, "k.cu", n + 1, hsrcs, hnames),
                 NVRTC_SUCCESS, "nvrtcCreateProgram failed");
    c.rc = nvrtcCompileProgram(prog, nopts, opts);
    cr_assert_eq(nvrtcGetProgramLogSize(prog, &size), NVRTC_SUCCESS);
    c.log = malloc(size + 1);
    cr_assert_not_null(c.log);
    cr_assert_eq(nvrtcGetProgramLog(prog, c.log), NVRTC_SUCCESS);
    c.log[size] = '\0';
    if (c.rc == NVRTC_SUCCESS) {
        cr_assert_eq(nvrtcGetPTXSize(prog, &size), NVRTC_SUCCESS);
        c.ptx = malloc(size + 1);
        cr_assert_not_null(c.ptx);
        cr_assert_eq(nvrtcGetPTX(prog, c.ptx), NVRTC_SUCCESS);
        c.ptx[size] = '\0';
    }
    nvrtcDestroyProgram(&prog);
    free(phases);
    return c;
}

static void compiled_free(compiled *c)
{
    free(c->ptx);
    free(c->log);
}

/* One kernel's PTX reads clock64 once per mark, at BEGIN and at END, and
 * %globaltimer at BEGIN and END; returns its 64-bit stores. */
static int check_entry(const compiled *c, const char *entry, int marks)
{
    size_t len;
    const char *e = kstat_ptx_entry(c->ptx, entry, &len);
    cr_assert_not_null(e, "no entry %s in the PTX", entry);
    cr_assert_eq(kstat_count(e, len, "%clock64"), marks + 2,
                 "%s: %d %%clock64 reads for %d marks, expected marks + BEGIN + END", entry,
                 kstat_count(e, len, "%clock64"), marks);
    cr_assert_eq(kstat_count(e, len, "%globaltimer"), 2, "%s: %d %%globaltimer reads", entry,
                 kstat_count(e, len, "%globaltimer"));
    return kstat_ptx_ops(e, len, "st.global.v2.u64") + kstat_ptx_ops(e, len, "st.global.u64") +
           kstat_ptx_ops(e, len, "st.v2.u64") + kstat_ptx_ops(e, len, "st.u64");
}

static void check_arch(const char *arch)
{
    compiled c = compile(arch, NULL, NULL);
    cr_assert_eq(c.rc, NVRTC_SUCCESS, "%s: %s\n%s", arch, nvrtcGetErrorString(c.rc), c.log);
    cr_assert_eq(strlen(c.log), 0, "%s: NVRTC says:\n%s", arch, c.log);
    check_entry(&c, "k_marks3", 3);
    check_entry(&c, "k_helper_marks2", 2);
    compiled_free(&c);
}

Test(nvrtc, compiles_for_compute_80)
{
    check_arch("compute_80");
}

Test(nvrtc, compiles_for_compute_90)
{
    check_arch("compute_90");
}

Test(nvrtc, disabled_by_an_option)
{
    compiled c = compile("compute_90", "-DPT_DEV_DISABLE", NULL);
    cr_assert_eq(c.rc, NVRTC_SUCCESS, "%s\n%s", nvrtcGetErrorString(c.rc), c.log);
    cr_assert_eq(strlen(c.log), 0, "NVRTC says:\n%s", c.log);
    cr_assert_null(strstr(c.ptx, "%clock64"), "PTX reads %%clock64 with PT_DEV_DISABLE");
    cr_assert(strstr(c.ptx, ".entry k_marks3"), "the kernel is missing");
    cr_assert(strstr(c.ptx, ".entry k_helper_marks2"), "the helper's kernel is missing");
    compiled_free(&c);
}

Test(nvrtc, per_warp_and_tracing_options)
{
    /* The trace stores come only with PT_DEV_TRACING: one per mark. */
    compiled plain = compile("compute_90", "-DPT_DEV_PER_WARP", NULL);
    compiled traced = compile("compute_90", "-DPT_DEV_PER_WARP", "-DPT_DEV_TRACING");
    int s_plain, s_traced;
    cr_assert_eq(plain.rc, NVRTC_SUCCESS, "%s\n%s", nvrtcGetErrorString(plain.rc), plain.log);
    cr_assert_eq(traced.rc, NVRTC_SUCCESS, "%s\n%s", nvrtcGetErrorString(traced.rc), traced.log);
    s_plain = check_entry(&plain, "k_marks3", 3);
    s_traced = check_entry(&traced, "k_marks3", 3);
    cr_assert_geq(s_traced, s_plain + 3, "%d 64-bit stores with trace stores, %d without: "
                  "expected one more per mark", s_traced, s_plain);
    check_entry(&traced, "k_helper_marks2", 2);
    compiled_free(&plain);
    compiled_free(&traced);
}

Test(nvrtc, shared_memory_by_default_registers_as_an_option)
{
    /* By default each kernel's BEGIN declares its __shared__ array (the
     * test header's 5 phases: 7 pairs of 16 bytes), -G builds included;
     * PT_DEV_SHARED=0 keeps the figures in registers, and per-warp records
     * cannot share one. */
    compiled smem = compile("compute_90", NULL, NULL);
    compiled traced = compile("compute_90", "-DPT_DEV_TRACING", NULL);
    compiled reg = compile("compute_90", "-DPT_DEV_SHARED=0", NULL);
    compiled warp = compile("compute_90", "-DPT_DEV_SHARED=1", "-DPT_DEV_PER_WARP");
    compiled debug = compile("compute_90", "--device-debug", NULL);
    cr_assert_eq(smem.rc, NVRTC_SUCCESS, "%s\n%s", nvrtcGetErrorString(smem.rc), smem.log);
    cr_assert_eq(traced.rc, NVRTC_SUCCESS, "%s\n%s", nvrtcGetErrorString(traced.rc), traced.log);
    cr_assert_eq(reg.rc, NVRTC_SUCCESS, "%s\n%s", nvrtcGetErrorString(reg.rc), reg.log);
    cr_assert_eq(debug.rc, NVRTC_SUCCESS, "-G: %s\n%s", nvrtcGetErrorString(debug.rc), debug.log);
    cr_assert_eq(kstat_count(debug.ptx, strlen(debug.ptx), "pt__dev_acc["), 2,
                 "-G: not one shared array per kernel");
    cr_assert_eq(kstat_count(smem.ptx, strlen(smem.ptx), ".shared .align 16 .b8 "), 2,
                 "not one 16-byte-aligned shared array per kernel:\n%s", smem.ptx);
    cr_assert_eq(kstat_count(smem.ptx, strlen(smem.ptx), "pt__dev_acc[128];"), 2,
                 "the arrays are not 8 pairs long");
    cr_assert_null(strstr(reg.ptx, "pt__dev_acc"), "register mode declares the array");
    cr_assert_geq(check_entry(&traced, "k_marks3", 3), check_entry(&smem, "k_marks3", 3) + 3,
                  "no trace store per mark in shared-memory mode");
    check_entry(&smem, "k_helper_marks2", 2);
    check_entry(&reg, "k_marks3", 3);
    cr_assert_neq(warp.rc, NVRTC_SUCCESS, "PT_DEV_SHARED=1 compiled with PT_DEV_PER_WARP");
    cr_assert(strstr(warp.log, "PT_DEV_PER_WARP keeps its accumulators in registers"),
              "the log does not say why:\n%s", warp.log);
    compiled_free(&smem);
    compiled_free(&traced);
    compiled_free(&reg);
    compiled_free(&warp);
    compiled_free(&debug);
}

Test(nvrtc, too_small_a_maximum_stops_the_compile)
{
    /* The ptgen header has 5 phases; a maximum of 2 could not record them. */
    compiled c = compile("compute_90", "-DPT_DEV_MAX_PHASES=2", NULL);
    cr_assert_neq(c.rc, NVRTC_SUCCESS, "compiled with 5 phases over PT_DEV_MAX_PHASES=2");
    cr_assert(strstr(c.log, "define PT_DEV_MAX_PHASES to at least 5"),
              "the log does not say why:\n%s", c.log);
    compiled_free(&c);
}

#else

Test(nvrtc, compiles_at_run_time)
{
    cr_skip_test("built with CUDA=0, so NVRTC is not linked (build with CUDA=1 to test it)");
}

#endif
