/* The GPU suite's kernels: spins of known length on %globaltimer, in
 * phases marked with pt_dev.h, and a plain spin for the event timing. */
#include <pt/pt_dev.h>

#include <cuda_runtime.h>
#include <stdio.h>

#include "kernels.h"

static __device__ __forceinline__ long long gt_now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return (long long)t;
}

/* Spins until `ns` of globaltimer have passed since the call. */
static __device__ __forceinline__ void spin_ns(long long ns)
{
    long long t0 = gt_now();
    while (gt_now() - t0 < ns) {
    }
}

/* The phases are a template parameter and the loop is unrolled, so every
 * mark names a constant phase, as real kernels do. */
template <int NP>
__global__ void spin_phases(pt_dev_buf buf, long long ns)
{
    PT_DEV_BEGIN(buf);
#pragma unroll
    for (int p = 0; p < NP; p++) {
        spin_ns(ns);
        PT_DEV_MARK(p);
    }
    PT_DEV_END(buf);
}

/* The same spins, with each phase read from memory (phase[p] == p) and
 * every other one marked in a helper through the timing state. */
static __device__ void spin_mark_in(pt_dev_state *st, long long ns, int phase)
{
    spin_ns(ns);
    PT_DEV_MARK_IN(st, phase);
}

__global__ void spin_phases_runtime(pt_dev_buf buf, long long ns, const int *phase, int np)
{
    PT_DEV_BEGIN(buf);
#pragma unroll 1
    for (int p = 0; p < np; p++) {
        if (p % 2) {
            spin_mark_in(PT_DEV_STATE, ns, phase[p]);
        } else {
            spin_ns(ns);
            PT_DEV_MARK(phase[p]);
        }
    }
    PT_DEV_END(buf);
}

/* The plain spin's own view of its length; read by gpu_spin_plain_read(). */
static __device__ long long plain_measured;

__global__ void spin_plain(long long ns)
{
    long long t0 = gt_now(), t1;
    while ((t1 = gt_now()) - t0 < ns) {
    }
    if (threadIdx.x == 0)
        plain_measured = t1 - t0;
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

extern "C" int gpu_spin_phases(pt_dev_buf buf, int nphases, int blocks, long long ns, pt_stream s)
{
    cudaStream_t st = (cudaStream_t)s;
    switch (nphases) {
    case 1: spin_phases<1><<<blocks, 32, 0, st>>>(buf, ns); break;
    case 4: spin_phases<4><<<blocks, 32, 0, st>>>(buf, ns); break;
    case 16: spin_phases<16><<<blocks, 32, 0, st>>>(buf, ns); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

extern "C" int gpu_spin_phases_runtime(pt_dev_buf buf, int nphases, int blocks, long long ns,
                                       pt_stream s)
{
    static int *phase;
    int host[16];
    cudaError_t e;
    if (nphases < 1 || nphases > 16)
        return (int)cudaErrorInvalidValue;
    if (!phase) {
        for (int p = 0; p < 16; p++)
            host[p] = p;
        if ((e = cudaMalloc(&phase, sizeof host)) != cudaSuccess ||
            (e = cudaMemcpy(phase, host, sizeof host, cudaMemcpyHostToDevice)) != cudaSuccess)
            return (int)e;
    }
    spin_phases_runtime<<<blocks, 32, 0, (cudaStream_t)s>>>(buf, ns, phase, nphases);
    return (int)cudaGetLastError();
}

extern "C" int gpu_spin_plain(long long ns, pt_stream s)
{
    spin_plain<<<1, 32, 0, (cudaStream_t)s>>>(ns);
    return (int)cudaGetLastError();
}

extern "C" int gpu_spin_plain_read(long long *measured)
{
    return (int)cudaMemcpyFromSymbol(measured, plain_measured, sizeof *measured);
}
