/* nvrtc_phases: an instrumented kernel compiled at run time. The kernel's
 * source is a string handed to NVRTC together with ptkit's device headers
 * (pt_nvrtc_headers()), so `#include <pt/pt_dev.h>` and PT_DEV_MARK work
 * in code that only exists at run time, as in a JIT or a code generator.
 *
 * The phase code is written once, below, as the argument of PHASE_CODE:
 * stringified it is the NVRTC source, expanded it is the host's copy that
 * the CPU runs through pt_dev.h's host mode. So the two cannot drift.
 *
 * On a GPU the PTX is loaded and launched through the driver API
 * (cuModuleLoadData, cuLaunchKernel), which every CUDA version has: the
 * driver library is opened at run time, so nothing links it and the
 * program starts on a machine without a driver too.
 * Without one the program still compiles the source and inspects the PTX,
 * then runs the same phases on the CPU.
 *
 * usage: nvrtc_phases [launches] [output-directory] ("-" keeps the default) */
#include <pt/pt.h>
#include <pt/pt_dev.h>
#include <pt/pt_nvrtc.h>

#include "../sample_reports.h"

#include <cuda_runtime.h>
#include <nvrtc.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One block's work in three phases: stage a tile in shared memory, iterate
 * a logistic-like map on each element, and reduce the tile by halving. */
#define PHASE_CODE(F) F(                                                         \
enum { PH_LOAD, PH_TRANSFORM, PH_REDUCE, PH_COUNT, TILE = 256, ROUNDS = 64 };    \
DEVFN void block_fn(int tid, int nt, int blk, const float *in, float *out,       \
                    float *s, pt_dev_buf buf)                                   \
{                                                                                \
    PT_DEV_BEGIN_AT(buf, blk);                                                   \
    for (int i = tid; i < TILE; i += nt)                                         \
        s[i] = in[blk * TILE + i];                                               \
    SYNC();                                                                      \
    PT_DEV_MARK(PH_LOAD);                                                        \
    for (int i = tid; i < TILE; i += nt) {                                       \
        float v = s[i];                                                          \
        for (int k = 0; k < ROUNDS; k++)                                         \
            v = 3.7f * v * (1.0f - v);                                           \
        s[i] = v;                                                                \
    }                                                                            \
    SYNC();                                                                      \
    PT_DEV_MARK(PH_TRANSFORM);                                                   \
    for (int w = TILE / 2; w > 0; w /= 2) {                                      \
        for (int i = tid; i < w; i += nt)                                        \
            s[i] += s[i + w];                                                    \
        SYNC();                                                                  \
    }                                                                            \
    if (tid == 0)                                                                \
        out[blk] = s[0];                                                         \
    PT_DEV_MARK(PH_REDUCE);                                                      \
    PT_DEV_END(buf);                                                             \
})
#define EXPAND(...) __VA_ARGS__
#define STRINGIFY(...) #__VA_ARGS__

/* The run-time source: the device-side definitions, the phase code, and
 * an unmangled entry point for cuModuleGetFunction. */
static const char kernel_src[] =
    "#include <pt/pt_dev.h>\n"
    "#define DEVFN static __device__\n"
    "#define SYNC() __syncthreads()\n"
    PHASE_CODE(STRINGIFY) "\n"
    "extern \"C\" __global__ void phases(const float *in, float *out, pt_dev_buf buf)\n"
    "{\n"
    "    __shared__ float s[TILE];\n"
    "    block_fn((int)threadIdx.x, (int)blockDim.x, (int)blockIdx.x, in, out, s, buf);\n"
    "}\n";

/* The host's copy: one thread per block, so no barrier is needed. */
#define DEVFN static
#define SYNC() ((void)0)
PHASE_CODE(EXPAND)
#undef DEVFN
#undef SYNC

static const char *const phase_names[PH_COUNT] = { "load", "transform", "reduce" };
enum { BLOCKS = 512, THREADS = 128 };

/* PTX for compute_<arch>, or NULL with the log printed. */
static char *compile(int arch, size_t *size)
{
    int n;
    const char *const *names, *const *srcs;
    nvrtcProgram prog;
    char opt[64];
    snprintf(opt, sizeof opt, "--gpu-architecture=compute_%d", arch);
    const char *opts[] = { opt, "-std=c++17" };

    pt_nvrtc_headers(&n, &names, &srcs);
    if (nvrtcCreateProgram(&prog, kernel_src, "nvrtc_phases.cu", n, srcs, names) != NVRTC_SUCCESS)
        return NULL;
    nvrtcResult rc = nvrtcCompileProgram(prog, 2, opts);
    char *ptx = NULL;
    if (rc != NVRTC_SUCCESS) {
        size_t ln = 0;
        nvrtcGetProgramLogSize(prog, &ln);
        char *log = (char *)malloc(ln + 1);
        if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            fprintf(stderr, "NVRTC: %s\n%s\n", nvrtcGetErrorString(rc), log);
        free(log);
    } else if (nvrtcGetPTXSize(prog, size) == NVRTC_SUCCESS && (ptx = (char *)malloc(*size))) {
        nvrtcGetPTX(prog, ptx);
    }
    nvrtcDestroyProgram(&prog);
    return ptx;
}

static int count(const char *text, const char *what)
{
    int c = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        c++;
    return c;
}

/* The driver API calls used, as libcuda.so.1 defines them. */
typedef struct drv {
    int (*ModuleLoadData)(void **module, const void *image);
    int (*ModuleGetFunction)(void **fn, void *module, const char *name);
    int (*LaunchKernel)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream, void **args,
                        void **extra);
    int (*ModuleUnload)(void *module);
} drv;

static int drv_open(drv *d)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "nvrtc_phases: %s\n", dlerror());
        return -1;
    }
    *(void **)&d->ModuleLoadData = dlsym(lib, "cuModuleLoadData");
    *(void **)&d->ModuleGetFunction = dlsym(lib, "cuModuleGetFunction");
    *(void **)&d->LaunchKernel = dlsym(lib, "cuLaunchKernel");
    *(void **)&d->ModuleUnload = dlsym(lib, "cuModuleUnload");
    return d->ModuleLoadData && d->ModuleGetFunction && d->LaunchKernel && d->ModuleUnload ? 0 : -1;
}

static int run_gpu(pt_timing *t, const char *ptx, int launches, const float *in_h, float *out_h)
{
    drv d;
    void *mod = NULL, *k = NULL;
    float *in, *out;
    size_t ib = sizeof(float) * BLOCKS * TILE, ob = sizeof(float) * BLOCKS;

    /* cudaMalloc first: the runtime makes the device's primary context
     * current, which the driver calls then use. */
    if (cudaMalloc(&in, ib) != cudaSuccess || cudaMalloc(&out, ob) != cudaSuccess ||
        drv_open(&d) != 0 || d.ModuleLoadData(&mod, ptx) != 0 ||
        d.ModuleGetFunction(&k, mod, "phases") != 0)
        return -1;
    pt_dev_records *buf = pt_dev_records_create(t, BLOCKS, PH_COUNT, phase_names, PT_DEV_AGGREGATE, 0);
    cudaMemcpy(in, in_h, ib, cudaMemcpyHostToDevice);
    for (int l = 0; l < launches; l++) {
        pt_dev_buf arg = pt_dev_arg(buf);
        void *args[] = { &in, &out, &arg };
        pt_dev_reset(buf, 0);
        pt_start_gpu(t, "phases", 0, pt::read((double)ib).written((double)ob));
        d.LaunchKernel(k, BLOCKS, 1, 1, THREADS, 1, 1, 0, NULL, args, NULL);
        pt_stop_gpu(t, "phases", 0);
        pt_dev_fold(t, buf, "phases");
    }
    cudaMemcpy(out_h, out, ob, cudaMemcpyDeviceToHost);
    int rc = cudaGetLastError() == cudaSuccess ? 0 : -1;
    pt_sync(t);
    pt_dev_records_free(buf);
    cudaFree(in);
    cudaFree(out);
    d.ModuleUnload(mod);
    return rc;
}

static void run_cpu(pt_timing *t, int launches, const float *in, float *out)
{
    pt_dev_records *buf = pt_dev_records_create(t, BLOCKS, PH_COUNT, phase_names, PT_DEV_HOST, 0);
    static float s[TILE];

    for (int l = 0; l < launches; l++) {
        pt_dev_reset(buf, 0);
        pt_start(t, "phases", pt::read(sizeof(float) * BLOCKS * TILE).written(sizeof(float) * BLOCKS));
        for (int b = 0; b < BLOCKS; b++)
            block_fn(0, 1, b, in, out, s, pt_dev_arg(buf));
        pt_stop(t, "phases");
        pt_dev_fold(t, buf, "phases");
    }
    pt_dev_records_free(buf);
}

int main(int argc, char **argv)
{
    int launches = argc > 1 && strcmp(argv[1], "-") != 0 ? atoi(argv[1]) : 0;
    const char *dir = argc > 2 ? argv[2] : ".";
    int ndev = 0, arch = 80, on_gpu = 0;
    float *in = (float *)malloc(sizeof(float) * BLOCKS * TILE);
    float *out = (float *)calloc(BLOCKS, sizeof(float));

    if (launches < 0 || !in || !out) {
        fprintf(stderr, "usage: nvrtc_phases [launches >= 1] [output-directory]\n");
        return 2;
    }
    for (int i = 0; i < BLOCKS * TILE; i++)
        in[i] = 0.05f + 0.9f * (float)(i % 997) / 997.0f;
    cudaError_t err = cudaGetDeviceCount(&ndev);
    int gpu = err == cudaSuccess && ndev > 0;
    if (gpu) {
        int major = 0, minor = 0;
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
        arch = major * 10 + minor;
        printf("GPU: compiling the kernel with NVRTC for compute_%d, launched from the PTX\n", arch);
    } else {
        printf("no CUDA device (%s): compiling with NVRTC anyway, then the phases run on the CPU\n",
               cudaGetErrorString(err == cudaSuccess ? cudaErrorNoDevice : err));
    }

    pt_timing *t = pt_create("nvrtc_phases (run-time compiled kernel)", PT_GPU_EVENTS | PT_TRACE);
    size_t ptx_size = 0;
    pt_start(t, "nvrtc_compile");
    char *ptx = compile(arch, &ptx_size);
    pt_stop(t, "nvrtc_compile");
    if (!ptx) {
        fprintf(stderr, "nvrtc_phases: NVRTC could not compile the kernel\n");
        return 1;
    }
    printf("PTX for compute_%d: %zu bytes, %d %%clock64 reads (the marks, BEGIN and END)\n", arch,
           ptx_size, count(ptx, "%clock64"));
    if (gpu) {
        launches = launches ? launches : 10;
        on_gpu = run_gpu(t, ptx, launches, in, out) == 0;
        if (!on_gpu)
            printf("the GPU run failed; running on the CPU instead\n");
    } else {
        printf("no GPU to load it on: the same phase code runs on the CPU through host mode\n");
    }
    if (!on_gpu) {
        launches = launches ? launches : 4;
        run_cpu(t, launches, in, out);
    }
    double sum = 0;
    for (int b = 0; b < BLOCKS; b++)
        sum += out[b];
    printf("%d launches of %d blocks; sum of the block results %.6g\n\n", launches, BLOCKS, sum);

    pt_log(t, stdout, pt::log_opts().percentages(1));
    sample_write_reports(t, dir, "nvrtc_phases");
    pt_destroy(t);
    free(ptx);
    free(in);
    free(out);
    return 0;
}
