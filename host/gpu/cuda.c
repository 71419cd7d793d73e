/* The CUDA runtime, loaded at run time.
 *
 * libptkit does not link libcudart: a CPU-only program links ptkit alone,
 * and a machine without the CUDA runtime or a driver runs it all the same,
 * with GPU sections timed by the CPU clock. The first GPU call loads
 * libcudart with dlopen and fills a table of entry points; a failure is
 * remembered and described once per timing by the caller. The library is
 * never unloaded: the runtime tears itself down at exit. */
#define _GNU_SOURCE /* dl_iterate_phdr, dladdr, RTLD_DEFAULT */
#include "gpu/cuda.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PT_CUDA_HOME
#  define PT_CUDA_HOME "/usr/local/cuda"
#endif

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pt__cuda_api real;
static char load_error[512];
static char origin[PATH_MAX + 64];     /* which runtime, and how it was found */
static char origin_path[PATH_MAX];
static const pt__cuda_api *shim;
static atomic_uint generation;

/* Looks up one entry point; a required one missing makes the runtime
 * unusable, an optional one is left NULL. */
static int bind_sym(void *lib, void *slot, const char *name, int required)
{
    void *p = dlsym(lib, name);
    /* POSIX guarantees that a data pointer holds a function pointer. */
    memcpy(slot, &p, sizeof p);
    if (!p && required) {
        snprintf(load_error, sizeof load_error, "the CUDA runtime lacks %s", name);
        return -1;
    }
    return 0;
}

/* The first loaded object whose file name starts with "libcudart": a
 * shared runtime the program linked or loaded before ptkit needed one. */
static int find_cudart(struct dl_phdr_info *info, size_t size, void *ctx)
{
    const char *name = info->dlpi_name, *base;
    (void)size;
    if (!name || !name[0])
        return 0;
    base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, "libcudart", 9) != 0)
        return 0;
    snprintf(ctx, sizeof origin_path, "%s", name);
    return 1;
}

/* Appends to load_error what dlopen said of name. */
static void load_failed(const char *name)
{
    size_t used = strlen(load_error);
    const char *e = dlerror();
    if (used < sizeof load_error)
        snprintf(load_error + used, sizeof load_error - used, "%s%s", used ? "; " : "",
                 e ? e : name);
}

/* The process's CUDA runtime, never a second one: the one PT_CUDART names
 * (a path or a file name for dlopen), else one the process has loaded
 * already (by file name, or any object whose symbols the process sees),
 * else the first of the usual names that loads. */
static void *open_runtime(void)
{
    static const char *const names[] = {
        "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so",
        PT_CUDA_HOME "/lib64/libcudart.so",
    };
    const char *named = getenv("PT_CUDART");
    void *lib, *sym;
    Dl_info where;

    if (named && named[0]) {
        lib = dlopen(named, RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            load_failed(named);
        snprintf(origin, sizeof origin, "%s, named by PT_CUDART", named);
        return lib;
    }
    origin_path[0] = '\0';
    if (dl_iterate_phdr(find_cudart, origin_path) &&
        (lib = dlopen(origin_path, RTLD_NOW | RTLD_NOLOAD))) {
        snprintf(origin, sizeof origin, "%s, already loaded by the program", origin_path);
        return lib;
    }
    sym = dlsym(RTLD_DEFAULT, "cudaEventRecord");
    if (sym && dladdr(sym, &where) && where.dli_fname &&
        (lib = dlopen(where.dli_fname, RTLD_NOW | RTLD_NOLOAD))) {
        snprintf(origin, sizeof origin, "%s, already loaded by the program", where.dli_fname);
        return lib;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            snprintf(origin, sizeof origin, "%s, loaded by ptkit", names[i]);
            return lib;
        }
        load_failed(names[i]);
    }
    return NULL;
}

static void load(void)
{
    void *lib;
    int version = 0;

    load_error[0] = '\0';
    origin[0] = '\0';
    lib = open_runtime();
    if (!lib) {
        real.unavailable = load_error;
        return;
    }
#define REQ(field, sym) bind_sym(lib, &real.field, sym, 1)
#define OPT(field, sym) bind_sym(lib, &real.field, sym, 0)
    if (REQ(GetDeviceCount, "cudaGetDeviceCount") || REQ(GetDevice, "cudaGetDevice") ||
        REQ(GetDeviceProperties, "cudaGetDeviceProperties") ||
        REQ(DeviceGetAttribute, "cudaDeviceGetAttribute") ||
        REQ(GetErrorString, "cudaGetErrorString") ||
        REQ(EventCreateWithFlags, "cudaEventCreateWithFlags") ||
        REQ(EventRecord, "cudaEventRecord") || REQ(EventQuery, "cudaEventQuery") ||
        REQ(EventSynchronize, "cudaEventSynchronize") ||
        REQ(EventElapsedTime, "cudaEventElapsedTime") ||
        REQ(EventDestroy, "cudaEventDestroy") || REQ(Malloc, "cudaMalloc") ||
        REQ(Free, "cudaFree") || REQ(MallocHost, "cudaMallocHost") ||
        REQ(FreeHost, "cudaFreeHost") || REQ(MemsetAsync, "cudaMemsetAsync") ||
        REQ(MemcpyAsync, "cudaMemcpyAsync") ||
        REQ(StreamCreateWithFlags, "cudaStreamCreateWithFlags") ||
        REQ(StreamSynchronize, "cudaStreamSynchronize") ||
        REQ(StreamDestroy, "cudaStreamDestroy") ||
        OPT(RegisterFatBinary, "__cudaRegisterFatBinary") ||
        OPT(RegisterFatBinaryEnd, "__cudaRegisterFatBinaryEnd") ||
        OPT(RegisterFunction, "__cudaRegisterFunction") ||
        OPT(LaunchKernel, "cudaLaunchKernel") || OPT(MemGetInfo, "cudaMemGetInfo") ||
        OPT(StreamWaitEvent, "cudaStreamWaitEvent") ||
        OPT(StreamIsCapturing, "cudaStreamIsCapturing") ||
        OPT(GraphLaunch, "cudaGraphLaunch") ||
        OPT(GraphAddMemsetNode, "cudaGraphAddMemsetNode") ||
        OPT(GraphAddKernelNode, "cudaGraphAddKernelNode") ||
        OPT(GraphAddMemcpyNode1D, "cudaGraphAddMemcpyNode1D") ||
        OPT(GraphExecMemcpyNodeSetParams1D, "cudaGraphExecMemcpyNodeSetParams1D") ||
        OPT(StreamGetCaptureInfo, "cudaStreamGetCaptureInfo_v3") ||
        OPT(GraphKernelNodeGetParams, "cudaGraphKernelNodeGetParams") ||
        OPT(GraphExecKernelNodeSetParams, "cudaGraphExecKernelNodeSetParams") ||
        OPT(FuncGetParamInfo, "cudaFuncGetParamInfo") ||
        OPT(PeekAtLastError, "cudaPeekAtLastError") || OPT(GetLastError, "cudaGetLastError") ||
        OPT(RuntimeGetVersion, "cudaRuntimeGetVersion")) {
        /* A runtime missing a basic entry point is not one ptkit can use;
         * keep it loaded (other code of the process may use it) but unused. */
        real.unavailable = load_error;
        return;
    }
#undef REQ
#undef OPT
    if (real.RuntimeGetVersion && real.RuntimeGetVersion(&version) != 0)
        version = 0;
    /* CUDA 13 gave the name without _v3 the same seven arguments (12's
     * takes six); before 12.3 there is neither, and no copy nodes. */
    if (!real.StreamGetCaptureInfo && version >= 13000)
        bind_sym(lib, &real.StreamGetCaptureInfo, "cudaStreamGetCaptureInfo", 0);
    if (version > 0) {
        size_t used = strlen(origin);
        snprintf(origin + used, sizeof origin - used, "; CUDA runtime %d.%d", version / 1000,
                 version % 1000 / 10);
    }
    real.unavailable = NULL;
}

const pt__cuda_api *pt__cuda(void)
{
    if (shim)
        return shim;
    pthread_once(&load_once, load);
    return &real;
}

void pt__cuda_set_shim(const pt__cuda_api *api)
{
    shim = api;
    atomic_fetch_add(&generation, 1);
}

unsigned pt__cuda_generation(void)
{
    return atomic_load(&generation);
}

const char *pt__cuda_origin(void)
{
    const pt__cuda_api *cu = pt__cuda();
    return cu == &real && !cu->unavailable ? origin : "";
}

const char *pt__cuda_errstr(const pt__cuda_api *cu, pt__cuerr err)
{
    const char *s = NULL;
    if (cu && !cu->unavailable && cu->GetErrorString)
        s = cu->GetErrorString(err);
    return s ? s : "unknown CUDA error";
}
