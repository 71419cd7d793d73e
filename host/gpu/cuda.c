/* The CUDA runtime, loaded at run time.
 *
 * libptkit does not link libcudart: a CPU-only program links ptkit alone,
 * and a machine without the CUDA runtime or a driver runs it all the same,
 * with GPU sections timed by the CPU clock. The first GPU call loads
 * libcudart with dlopen and fills a table of entry points; a failure is
 * remembered and described once per timing by the caller. The library is
 * never unloaded: the runtime tears itself down at exit. */
#include "gpu/cuda.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef PT_CUDA_HOME
#  define PT_CUDA_HOME "/usr/local/cuda"
#endif

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pt__cuda_api real;
static char load_error[384];
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

static void load(void)
{
    static const char *const names[] = {
        "libcudart.so.13", "libcudart.so", PT_CUDA_HOME "/lib64/libcudart.so.13",
    };
    void *lib = NULL;
    size_t used = 0;

    load_error[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char *e = dlerror();
            int w = snprintf(load_error + used, sizeof load_error - used, "%s%s",
                             used ? "; " : "", e ? e : names[i]);
            if (w > 0 && (size_t)w < sizeof load_error - used)
                used += (size_t)w;
        }
    }
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
        OPT(LibraryLoadData, "cudaLibraryLoadData") ||
        OPT(LibraryGetKernel, "cudaLibraryGetKernel") ||
        OPT(LaunchKernel, "cudaLaunchKernel") || OPT(MemGetInfo, "cudaMemGetInfo")) {
        /* A runtime missing a basic entry point is not one ptkit can use;
         * keep it loaded (other code of the process may use it) but unused. */
        real.unavailable = load_error;
        return;
    }
#undef REQ
#undef OPT
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

const char *pt__cuda_errstr(const pt__cuda_api *cu, pt__cuerr err)
{
    const char *s = NULL;
    if (cu && !cu->unavailable && cu->GetErrorString)
        s = cu->GetErrorString(err);
    return s ? s : "unknown CUDA error";
}
