/* The GPU suite's kernels in the default shared-memory mode, the plain
 * spin for the event timing, the dispatch to the other modes
 * (kernels_reg.cu, kernels_warp.cu, kernels_trace.cu), and a kernel
 * compiled at run time by NVRTC and launched through the driver API. */
#define GPU_MODE shared
#include "spin.cuh"

#include <pt/pt_nvrtc.h>

#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU_MODE_DECL(m)                                                                     \
    extern "C" int gpu_spin_phases_##m(pt_dev_buf, int, int, int, long long, int, pt_stream); \
    extern "C" int gpu_spin_phases_runtime_##m(pt_dev_buf, int, int, long long, pt_stream); \
    extern "C" int gpu_spin_actual_##m(gpu_spins *);
GPU_MODE_DECL(reg)
GPU_MODE_DECL(warp)
GPU_MODE_DECL(trace)

/* The plain spin's own view of its length; read by gpu_spin_plain_read(). */
static long long *plain_measured;

__global__ void spin_plain(long long ns, long long *measured)
{
    long long t0 = gt_now(), t1;
    while ((t1 = gt_now()) - t0 < ns) {
    }
    if (threadIdx.x == 0)
        *measured = t1 - t0;
}

extern "C" int gpu_available(char *why, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(why, n, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        return 0;
    }
    if (count <= 0) {
        snprintf(why, n, "cudaGetDeviceCount found none");
        return 0;
    }
    return 1;
}

extern "C" const char *gpu_error(int err)
{
    return cudaGetErrorString((cudaError_t)err);
}

extern "C" pt_stream gpu_stream_create(void)
{
    cudaStream_t s = NULL;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return NULL;
    return (pt_stream)s;
}

extern "C" void gpu_stream_destroy(pt_stream s)
{
    if (s)
        cudaStreamDestroy((cudaStream_t)s);
}

extern "C" int gpu_stream_sync(pt_stream s)
{
    return (int)cudaStreamSynchronize((cudaStream_t)s);
}

extern "C" pt_stream gpu_stream_per_thread(void)
{
    return (pt_stream)cudaStreamPerThread;
}

extern "C" int gpu_device_info(char *name, size_t n, int *clock_khz, int *major, int *minor)
{
    cudaDeviceProp p;
    int dev = 0;
    cudaError_t e;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess || (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess)
        return (int)e;
    snprintf(name, n, "%s", p.name);
    *major = p.major;
    *minor = p.minor;
    /* An attribute: CUDA 13's cudaDeviceProp has no clockRate. */
    return (int)cudaDeviceGetAttribute(clock_khz, cudaDevAttrClockRate, dev);
}

extern "C" int gpu_copy_back(void *host, const void *dev, size_t bytes)
{
    return (int)cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
}

extern "C" int gpu_alloc_copy(void **dev, const void *host, size_t bytes)
{
    cudaError_t e = cudaMalloc(dev, bytes);
    if (e == cudaSuccess)
        e = host ? cudaMemcpy(*dev, host, bytes, cudaMemcpyHostToDevice)
                 : cudaMemset(*dev, 0, bytes);
    return (int)e;
}

extern "C" void gpu_free(void *dev)
{
    cudaFree(dev);
}

extern "C" const char *gpu_mode_name(gpu_mode m)
{
    static const char *const names[] = { "shared memory", "registers", "per warp", "tracing" };
    return m >= 0 && m < GPU_NMODES ? names[m] : "?";
}

extern "C" int gpu_spin_phases(gpu_mode m, pt_dev_buf buf, int nphases, int blocks, int threads,
                               long long ns, int rounds, pt_stream s)
{
    switch (m) {
    case GPU_SHARED: return gpu_spin_phases_shared(buf, nphases, blocks, threads, ns, rounds, s);
    case GPU_REG: return gpu_spin_phases_reg(buf, nphases, blocks, threads, ns, rounds, s);
    case GPU_WARP: return gpu_spin_phases_warp(buf, nphases, blocks, threads, ns, rounds, s);
    case GPU_TRACE: return gpu_spin_phases_trace(buf, nphases, blocks, threads, ns, rounds, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int gpu_spin_phases_runtime(gpu_mode m, pt_dev_buf buf, int nphases, int blocks,
                                       long long ns, pt_stream s)
{
    switch (m) {
    case GPU_SHARED: return gpu_spin_phases_runtime_shared(buf, nphases, blocks, ns, s);
    case GPU_REG: return gpu_spin_phases_runtime_reg(buf, nphases, blocks, ns, s);
    case GPU_WARP: return gpu_spin_phases_runtime_warp(buf, nphases, blocks, ns, s);
    case GPU_TRACE: return gpu_spin_phases_runtime_trace(buf, nphases, blocks, ns, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int gpu_spin_actual(gpu_mode m, gpu_spins *actual)
{
    switch (m) {
    case GPU_SHARED: return gpu_spin_actual_shared(actual);
    case GPU_REG: return gpu_spin_actual_reg(actual);
    case GPU_WARP: return gpu_spin_actual_warp(actual);
    case GPU_TRACE: return gpu_spin_actual_trace(actual);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int gpu_spin_bad(pt_dev_buf buf, int nphases, int blocks, long long ns,
                            long long bad_slot, int bad_phase, pt_stream s)
{
    return gpu_spin_bad_shared(buf, nphases, blocks, ns, bad_slot, bad_phase, s);
}

extern "C" int gpu_spin_plain(long long ns, pt_stream s)
{
    cudaError_t e;
    if (!plain_measured && (e = cudaMalloc(&plain_measured, sizeof *plain_measured)) != cudaSuccess)
        return (int)e;
    spin_plain<<<1, 32, 0, (cudaStream_t)s>>>(ns, plain_measured);
    return (int)cudaGetLastError();
}

extern "C" int gpu_spin_plain_read(long long *measured, pt_stream s)
{
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)s);
    if (e != cudaSuccess)
        return (int)e;
    return (int)cudaMemcpy(measured, plain_measured, sizeof *measured, cudaMemcpyDeviceToHost);
}

/* ---- a kernel compiled at run time, launched by the driver API ---- */

/* The spin kernel as a program would hand it to NVRTC: phases read from a
 * parameter, so one compile serves every phase count. */
static const char nvrtc_src[] =
    "#include <pt/pt_dev.h>\n"
    "extern \"C\" __global__ void nvrtc_spin(pt_dev_buf buf, long long ns, int np)\n"
    "{\n"
    "    PT_DEV_BEGIN(buf);\n"
    "    for (int p = 0; p < np; p++) {\n"
    "        unsigned long long t0, t;\n"
    "        asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
    "        do\n"
    "            asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
    "        while ((long long)(t - t0) < ns);\n"
    "        PT_DEV_MARK(p);\n"
    "    }\n"
    "    PT_DEV_END(buf);\n"
    "}\n";

/* The driver API calls used, as libcuda.so.1 defines them. */
typedef struct drv_api {
    int (*ModuleLoadData)(void **module, const void *image);
    int (*ModuleGetFunction)(void **fn, void *module, const char *name);
    int (*LaunchKernel)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream, void **args,
                        void **extra);
} drv_api;

extern "C" int gpu_nvrtc_spin(pt_dev_buf buf, int nphases, int blocks, long long ns, pt_stream s,
                              char *why, size_t n)
{
    static void *fn;
    static drv_api d;
    if (!fn) {
        int nh, major = 0, minor = 0, dev = 0;
        const char *const *names, *const *srcs;
        char arch[64];
        nvrtcProgram prog;
        nvrtcResult rc;
        size_t size = 0;
        void *lib, *mod = NULL;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
        snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
        const char *opts[] = { arch, "-std=c++17" };
        pt_nvrtc_headers(&nh, &names, &srcs);
        if ((rc = nvrtcCreateProgram(&prog, nvrtc_src, "nvrtc_spin.cu", nh, srcs, names)) !=
            NVRTC_SUCCESS) {
            snprintf(why, n, "nvrtcCreateProgram: %s", nvrtcGetErrorString(rc));
            return -1;
        }
        if ((rc = nvrtcCompileProgram(prog, 2, opts)) != NVRTC_SUCCESS) {
            size_t ln = 0;
            nvrtcGetProgramLogSize(prog, &ln);
            char *log = (char *)calloc(1, ln + 1);
            if (log)
                nvrtcGetProgramLog(prog, log);
            snprintf(why, n, "nvrtcCompileProgram: %s: %s", nvrtcGetErrorString(rc),
                     log ? log : "");
            free(log);
            nvrtcDestroyProgram(&prog);
            return -1;
        }
        nvrtcGetPTXSize(prog, &size);
        char *ptx = (char *)malloc(size);
        nvrtcGetPTX(prog, ptx);
        nvrtcDestroyProgram(&prog);
        /* The runtime made the device's primary context current (cudaGetDevice
         * and the suite's stream), which the driver calls use. */
        lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            snprintf(why, n, "%s", dlerror());
            free(ptx);
            return -1;
        }
        *(void **)&d.ModuleLoadData = dlsym(lib, "cuModuleLoadData");
        *(void **)&d.ModuleGetFunction = dlsym(lib, "cuModuleGetFunction");
        *(void **)&d.LaunchKernel = dlsym(lib, "cuLaunchKernel");
        int e = !d.ModuleLoadData || !d.ModuleGetFunction || !d.LaunchKernel ? -1
                : d.ModuleLoadData(&mod, ptx);
        if (e == 0)
            e = d.ModuleGetFunction(&fn, mod, "nvrtc_spin");
        free(ptx);
        if (e != 0) {
            fn = NULL;
            snprintf(why, n, "the driver API refused the PTX (CUresult %d)", e);
            return -1;
        }
    }
    void *args[] = { &buf, &ns, &nphases };
    int e = d.LaunchKernel(fn, (unsigned)blocks, 1, 1, 32, 1, 1, 0, s, args, NULL);
    if (e != 0) {
        snprintf(why, n, "cuLaunchKernel: CUresult %d", e);
        return -1;
    }
    return 0;
}
