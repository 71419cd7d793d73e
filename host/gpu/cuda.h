/* The CUDA runtime as ptkit sees it: a table of function pointers, filled
 * by cuda.c from a libcudart found at run time with dlopen.
 *
 * libptkit never links CUDA, so a program builds with `pkg-config --libs
 * ptkit` alone and runs where there is no driver. The table is also the
 * seam the tests use: pt__cuda_set_shim() swaps in a table of their own
 * that simulates a missing library, a missing driver, failing calls or a
 * working GPU whose events report the times a test chooses.
 *
 * No CUDA header is included. The few types needed are declared here as
 * CUDA declares them (opaque handles, an int error code, dim3), which is
 * what makes a table of these pointers call-compatible with libcudart.
 * Not installed. */
#ifndef PT_GPU_CUDA_H
#define PT_GPU_CUDA_H

#include "core/model.h"

#include <stddef.h>

/* cudaError_t: 0 is success. The codes ptkit tells apart: */
typedef int pt__cuerr;
enum {
    PT__CU_SUCCESS = 0,
    PT__CU_INVALID_VALUE = 1,
    PT__CU_MEMORY_ALLOCATION = 2,
    PT__CU_INITIALIZATION = 3,
    PT__CU_INSUFFICIENT_DRIVER = 35,
    PT__CU_NO_DEVICE = 100,
    PT__CU_NOT_READY = 600
};

typedef struct CUevent_st *pt__cuevent;     /* cudaEvent_t */
/* A kernel as cudaLaunchKernel takes it: the host-side address it was
 * registered under (see RegisterFunction below). */
typedef const void *pt__cukernel;
typedef struct pt__dim3 {                   /* dim3 */
    unsigned x, y, z;
} pt__dim3;
/* cudaMemsetParams */
typedef struct pt__cu_memset {
    void *dst;
    size_t pitch;
    unsigned value, element_size;
    size_t width, height;
} pt__cu_memset;
/* cudaKernelNodeParams */
typedef struct pt__cu_kernel_node {
    void *func;
    pt__dim3 grid, block;
    unsigned shared_bytes;
    void **args, **extra;
} pt__cu_kernel_node;

/* Values of CUDA enums and flags that ptkit passes. */
enum {
    PT__CU_MEMCPY_H2D = 1,                  /* cudaMemcpyHostToDevice */
    PT__CU_MEMCPY_D2H = 2,                  /* cudaMemcpyDeviceToHost */
    PT__CU_EVENT_DEFAULT = 0,               /* cudaEventDefault: timing enabled */
    PT__CU_EVENT_DISABLE_TIMING = 2,        /* cudaEventDisableTiming */
    PT__CU_STREAM_NON_BLOCKING = 1,         /* cudaStreamNonBlocking */
    PT__CU_ATTR_MULTIPROCESSORS = 16,       /* cudaDevAttrMultiProcessorCount */
    PT__CU_ATTR_CLOCK_RATE = 13,            /* cudaDevAttrClockRate, kHz */
    PT__CU_ATTR_MEMORY_CLOCK_RATE = 36,     /* cudaDevAttrMemoryClockRate, kHz */
    PT__CU_ATTR_BUS_WIDTH = 37,             /* cudaDevAttrGlobalMemoryBusWidth, bits */
    PT__CU_ATTR_CC_MAJOR = 75,              /* cudaDevAttrComputeCapabilityMajor */
    PT__CU_ATTR_CC_MINOR = 76               /* cudaDevAttrComputeCapabilityMinor */
};

/* cudaGetDeviceProperties() fills a struct cudaDeviceProp whose size
 * changes between CUDA versions (1008 bytes in CUDA 13) but which has
 * always begun with `char name[256]`. ptkit hands it a buffer this large
 * and reads only the name. */
#define PT__CU_PROP_BYTES 8192

/* The runtime entry points ptkit uses, with CUDA's own signatures. */
typedef struct pt__cuda_api {
    /* Non-NULL when there is no usable runtime: why (the loader's message).
     * A test sets it to simulate a machine without libcudart. */
    const char *unavailable;

    pt__cuerr (*GetDeviceCount)(int *count);
    pt__cuerr (*GetDevice)(int *device);
    pt__cuerr (*GetDeviceProperties)(void *prop, int device);
    pt__cuerr (*DeviceGetAttribute)(int *value, int attr, int device);
    const char *(*GetErrorString)(pt__cuerr err);

    pt__cuerr (*EventCreateWithFlags)(pt__cuevent *ev, unsigned flags);
    pt__cuerr (*EventRecord)(pt__cuevent ev, pt_stream s);
    pt__cuerr (*EventQuery)(pt__cuevent ev);
    pt__cuerr (*EventSynchronize)(pt__cuevent ev);
    pt__cuerr (*EventElapsedTime)(float *ms, pt__cuevent start, pt__cuevent end);
    pt__cuerr (*EventDestroy)(pt__cuevent ev);

    pt__cuerr (*Malloc)(void **p, size_t bytes);
    pt__cuerr (*Free)(void *p);
    pt__cuerr (*MallocHost)(void **p, size_t bytes);
    pt__cuerr (*FreeHost)(void *p);
    pt__cuerr (*MemsetAsync)(void *p, int value, size_t bytes, pt_stream s);
    pt__cuerr (*MemcpyAsync)(void *dst, const void *src, size_t bytes, int kind, pt_stream s);

    pt__cuerr (*StreamCreateWithFlags)(pt_stream *s, unsigned flags);
    pt__cuerr (*StreamSynchronize)(pt_stream s);
    pt__cuerr (*StreamDestroy)(pt_stream s);
    /* Optional: NULL where missing, and then a wait is a synchronize. */
    pt__cuerr (*StreamWaitEvent)(pt_stream s, pt__cuevent ev, unsigned flags);
    /* Optional: whether a stream is being captured into a CUDA graph
     * (status 0: no; 1: active; 2: invalidated). */
    pt__cuerr (*StreamIsCapturing)(pt_stream s, int *status);
    /* Optional: replay an instantiated CUDA graph (cudaGraphExec_t) on s. */
    pt__cuerr (*GraphLaunch)(void *exec, pt_stream s);
    /* Optional: add a memset node (cudaMemsetParams) or a kernel node
     * (cudaKernelNodeParams) to a graph (cudaGraph_t) after n nodes. */
    pt__cuerr (*GraphAddMemsetNode)(void **node, void *graph, void *const *deps, size_t n,
                                    const struct pt__cu_memset *p);
    pt__cuerr (*GraphAddKernelNode)(void **node, void *graph, void *const *deps, size_t n,
                                    const void *params);
    /* Optional: the graph a stream is capturing into and the nodes its
     * next operation will follow (cudaStreamGetCaptureInfo of CUDA 13,
     * cudaStreamGetCaptureInfo_v3 of CUDA 12.3 on: edges is
     * cudaGraphEdgeData, unused). */
    pt__cuerr (*StreamGetCaptureInfo)(pt_stream s, int *status, unsigned long long *id,
                                      void **graph, void *const **deps, const void **edges,
                                      size_t *n);
    /* Optional: a one-dimensional copy node, and an instantiated graph's
     * copy node pointed at other memory for its next replays. */
    pt__cuerr (*GraphAddMemcpyNode1D)(void **node, void *graph, void *const *deps, size_t n,
                                      void *dst, const void *src, size_t bytes, int kind);
    pt__cuerr (*GraphExecMemcpyNodeSetParams1D)(void *exec, void *node, void *dst,
                                                const void *src, size_t bytes, int kind);
    /* Optional: a kernel node's parameters (cudaKernelNodeParams, whose
     * argument values the node owns), an instantiated graph's kernel node
     * given other arguments for its next replays, and where a kernel's
     * argument i lies in its parameters and how long it is (CUDA 12.4 on);
     * the three together give a graph's kernel its records' ring
     * (graph_ring.c). */
    pt__cuerr (*GraphKernelNodeGetParams)(void *node, pt__cu_kernel_node *p);
    pt__cuerr (*GraphExecKernelNodeSetParams)(void *exec, void *node,
                                              const pt__cu_kernel_node *p);
    pt__cuerr (*FuncGetParamInfo)(const void *func, size_t i, size_t *offset, size_t *size);
    /* Optional: the calling thread's last runtime error, left as it is
     * (Peek) or cleared (Get): a probe of ptkit's that fails clears its
     * own, and probes nothing while the program has one pending. */
    pt__cuerr (*PeekAtLastError)(void);
    pt__cuerr (*GetLastError)(void);

    /* ptkit's own kernels (calibration, reduction) are registered as the
     * code nvcc generates registers a program's: a fatbin, then each
     * kernel under a host-side address, which cudaLaunchKernel takes.
     * Every runtime has these (CUDA 11, 12 and 13 alike); where one is
     * missing (a runtime that is not CUDA's), NULL, and those kernels are
     * unavailable. __cudaRegisterFatBinaryEnd exists from CUDA 10.1 on. */
    void **(*RegisterFatBinary)(void *wrapper);
    void (*RegisterFatBinaryEnd)(void **handle);
    void (*RegisterFunction)(void **handle, const char *host_fn, char *device_fn,
                             const char *device_name, int thread_limit, void *tid, void *bid,
                             void *block, void *grid, int *warp_size);
    pt__cuerr (*LaunchKernel)(pt__cukernel func, pt__dim3 grid, pt__dim3 block, void **args,
                              size_t shared, pt_stream s);
    /* Optional: the runtime's version, 11080 for 11.8. */
    pt__cuerr (*RuntimeGetVersion)(int *version);

    /* Optional: device memory free and total (pt_memory_sampling_set()). */
    pt__cuerr (*MemGetInfo)(size_t *free_bytes, size_t *total_bytes);
} pt__cuda_api;

/* The table in use: the test's shim when one is set, else the runtime
 * loaded on first use. Never NULL; check `unavailable` before calling. */
PT__HIDDEN const pt__cuda_api *pt__cuda(void);
/* Replace the table (tests only; NULL restores the real runtime). What
 * was made with the old one (calibrations, loaded kernels) is forgotten by
 * its owner when it sees the generation change. Not thread-safe: call it
 * between runs. */
PT__HIDDEN void pt__cuda_set_shim(const pt__cuda_api *api);
/* Counts the changes of table: what belongs to a runtime remembers the
 * generation it was made in. */
PT__HIDDEN unsigned pt__cuda_generation(void);
/* Which runtime the table is, and how it was found ("libcudart.so.12,
 * already loaded by the program"); "" for a test's table or none. */
PT__HIDDEN const char *pt__cuda_origin(void);
/* The runtime's description of err, never NULL. */
PT__HIDDEN const char *pt__cuda_errstr(const pt__cuda_api *cu, pt__cuerr err);

#endif
