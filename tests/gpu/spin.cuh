/* The GPU suite's spin kernels, in one mode of pt_dev.h: each kernels_*.cu
 * defines GPU_MODE (the launchers' suffix) and the mode's options, then
 * includes this file. Every phase spins on %globaltimer, so its length is
 * known: a phase of `ns` lasts ns (within one globaltimer tick). */
#include <pt/pt_dev.h>

#include <cuda_runtime.h>

#include "kernels.h"

#define GPU_CAT2(a, b) a##_##b
#define GPU_CAT(a, b) GPU_CAT2(a, b)
#define GPU_FN(name) GPU_CAT(name, GPU_MODE)

/* Each mode's kernels are its own: the same names in another file are
 * other kernels, compiled with other options. */
namespace {

static __device__ __forceinline__ long long gt_now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return (long long)t;
}

/* Spins until `ns` of globaltimer have passed since the call; returns
 * the span it saw (its last read less its first), which the loop's last
 * turn makes a little longer than ns. */
static __device__ __forceinline__ long long spin_ns(long long ns)
{
    long long t0 = gt_now(), t;
    while ((t = gt_now()) - t0 < ns) {
    }
    return t - t0;
}

/* The spins as the recording threads saw them, summed over the recording
 * threads of every launch since gpu_spin_actual() last read them: [p] each
 * phase's spans, [16 + p] its windows. A phase's window runs from a
 * %globaltimer read just before the mark (or BEGIN) that opens it to one
 * just after the mark that closes it, so it holds the phase, marks and
 * all; the spin lies inside the phase. The two bound what a folded phase
 * may read (kernels.h, gpu_spins). */
static __device__ unsigned long long spin_actual[32];

/* Phase p's spin done: its mark between two %globaltimer reads. The
 * window opened at *edge (the read before the mark or BEGIN that began
 * the phase) closes after the mark, and the read before it opens the
 * next phase's. */
#define SPIN_MARK(mark, win, edge) \
    do { \
        long long spin__pre = gt_now(); \
        mark; \
        (win) += gt_now() - (edge); \
        (edge) = spin__pre; \
    } while (0)

/* The thread whose marks the record keeps: thread 0 of the block, or lane
 * 0 of each warp with a record per warp (the suite's blocks are 1-D). */
static __device__ __forceinline__ bool spin_recorder(void)
{
#ifdef PT_DEV_PER_WARP
    return (threadIdx.x & 31) == 0;
#else
    return threadIdx.x == 0;
#endif
}

/* The phases are a template parameter and the loop is unrolled, so every
 * mark names a constant phase, as real kernels do; `rounds` times over.
 * The parameters are read before BEGIN (the early return is never
 * taken): on an H100 their first reads from the constant bank, after
 * BEGIN, were phase 0's, some 100 ns that no spin saw, which made a 10 us
 * phase 0 read 1% long. */
template <int NP>
__global__ void spin_phases(pt_dev_buf buf, long long ns, int rounds)
{
    long long act[NP], win[NP], edge;
    /* Zeroed before BEGIN by statements ptxas keeps in order with BEGIN's
     * clock read: plain zeroes were sunk after it, 27 instructions of
     * phase 0 that no spin saw (with 16 phases; on an H100 whose SMs each
     * held 32 spinning one-warp blocks, some 50 ns of the 236 by which a
     * 10 us phase 0 read long). */
#pragma unroll
    for (int p = 0; p < NP; p++) {
        asm volatile("mov.b64 %0, 0;" : "=l"(act[p]));
        asm volatile("mov.b64 %0, 0;" : "=l"(win[p]));
    }
    if (ns < 0 || rounds < 0)
        return;
    edge = gt_now();
    PT_DEV_BEGIN(buf);
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int p = 0; p < NP; p++) {
            act[p] += spin_ns(ns);
            SPIN_MARK(PT_DEV_MARK(p), win[p], edge);
        }
    }
    PT_DEV_END(buf);
    if (spin_recorder()) {
#pragma unroll
        for (int p = 0; p < NP; p++) {
            atomicAdd(&spin_actual[p], (unsigned long long)act[p]);
            atomicAdd(&spin_actual[16 + p], (unsigned long long)win[p]);
        }
    }
}

/* The same spins, with each phase read from memory (phase[p] == p) and
 * every other one marked in a helper through the timing state. The list
 * is staged in shared memory before BEGIN, so no phase holds a global
 * load's latency, which is the kernel's own time, not the spin's. */
static __device__ long long spin_mark_in(pt_dev_state *st, long long ns, int phase, long long *win,
                                         long long *edge)
{
    long long span = spin_ns(ns);
    SPIN_MARK(PT_DEV_MARK_IN(st, phase), *win, *edge);
    return span;
}

__global__ void spin_phases_runtime(pt_dev_buf buf, long long ns, const int *phase_g, int np)
{
    __shared__ int phase[16];
    __shared__ long long act[16], win[16];
    long long edge;
    if (threadIdx.x < 16) {
        phase[threadIdx.x] = phase_g[threadIdx.x];
        act[threadIdx.x] = 0;
        win[threadIdx.x] = 0;
    }
    __syncthreads();
    if (ns < 0 || np < 0)
        return;
    edge = gt_now();
    PT_DEV_BEGIN(buf);
#pragma unroll 1
    for (int p = 0; p < np; p++) {
        long long span, w = 0;
        if (p % 2) {
            span = spin_mark_in(PT_DEV_STATE, ns, phase[p], &w, &edge);
        } else {
            span = spin_ns(ns);
            SPIN_MARK(PT_DEV_MARK(phase[p]), w, edge);
        }
        if (spin_recorder()) {
            act[phase[p]] += span;
            win[phase[p]] += w;
        }
    }
    PT_DEV_END(buf);
    if (spin_recorder())
        for (int q = 0; q < 16; q++) {
            atomicAdd(&spin_actual[q], (unsigned long long)act[q]);
            atomicAdd(&spin_actual[16 + q], (unsigned long long)win[q]);
        }
}

/* Phases of `ns`, the last block of the grid beginning at slot `bad_slot`
 * instead of its own, and every block marking phase `bad_phase` once more
 * after its good ones. */
__global__ void spin_bad(pt_dev_buf buf, long long ns, int np, long long bad_slot, int bad_phase)
{
    long long linear = blockIdx.x;
    long long slot = linear == gridDim.x - 1 ? bad_slot : linear;
    PT_DEV_BEGIN_AT(buf, slot);
#pragma unroll 1
    for (int p = 0; p < np; p++) {
        spin_ns(ns);
        PT_DEV_MARK(p);
    }
    spin_ns(ns);
    PT_DEV_MARK(bad_phase);
    PT_DEV_END(buf);
}

/* spin_phases<4> with the records last, as PT_LAUNCH passes them (and
 * a CUDA graph's kernels, captured or added as nodes): its spins and
 * windows summed into spin_actual as spin_phases' are. */
__global__ void spin4_records_last(long long ns, int rounds, pt_dev_buf buf)
{
    long long act[4], win[4], edge;
#pragma unroll
    for (int p = 0; p < 4; p++) {
        asm volatile("mov.b64 %0, 0;" : "=l"(act[p]));
        asm volatile("mov.b64 %0, 0;" : "=l"(win[p]));
    }
    if (ns < 0 || rounds < 0)
        return;
    edge = gt_now();
    PT_DEV_BEGIN(buf);
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int p = 0; p < 4; p++) {
            act[p] += spin_ns(ns);
            SPIN_MARK(PT_DEV_MARK(p), win[p], edge);
        }
    }
    PT_DEV_END(buf);
    if (spin_recorder()) {
#pragma unroll
        for (int p = 0; p < 4; p++) {
            atomicAdd(&spin_actual[p], (unsigned long long)act[p]);
            atomicAdd(&spin_actual[16 + p], (unsigned long long)win[p]);
        }
    }
}

/* spin4_records_last, one block in `every` recording (PT_DEV_BEGIN_EVERY). */
__global__ void spin4_every(long long ns, int every, pt_dev_buf buf)
{
    PT_DEV_BEGIN_EVERY(buf, every);
#pragma unroll
    for (int p = 0; p < 4; p++) {
        spin_ns(ns);
        PT_DEV_MARK(p);
    }
    PT_DEV_END(buf);
}

#if defined(PT_DEV_PER_WARP)
/* Warp roles: warp 0 of each block the producer (2 phases of ns into
 * `producer`), warps 1 and 2 the consumers (3 phases of ns into `consumer`). */
__global__ void spin_roles(long long ns, pt_dev_buf producer, pt_dev_buf consumer)
{
    if (threadIdx.x / 32 == 0) {
        PT_DEV_BEGIN_ROLE(producer, 0, 1);
        for (int p = 0; p < 2; p++) {
            spin_ns(ns);
            PT_DEV_MARK(p);
        }
        PT_DEV_END(producer);
    } else {
        PT_DEV_BEGIN_ROLE(consumer, 1, 2);
        for (int p = 0; p < 3; p++) {
            spin_ns(ns);
            PT_DEV_MARK(p);
        }
        PT_DEV_END(consumer);
    }
}
#endif

} // namespace

#if defined(PT_DEV_PER_WARP)
extern "C" int GPU_FN(gpu_spin_roles)(pt_dev_buf producer, pt_dev_buf consumer, int blocks,
                                     long long ns, pt_stream s)
{
    spin_roles<<<blocks, 96, 0, (cudaStream_t)s>>>(ns, producer, consumer);
    return (int)cudaGetLastError();
}
#endif

/* Three kernels of spin4_records_last ("k0", "k1", "k2", records
 * recs[0..2] of `blocks` slots) in a graph, each after the one before:
 * PT_LAUNCHes captured on a new stream, or (by_nodes) kernel nodes added
 * by pt_graph_add_kernel (which puts each one's reset ahead of it); then
 * `replays` replays of it by pt_graph_launch as "graph". Returns a CUDA
 * error, or a ptkit one (negative). */
extern "C" int GPU_FN(gpu_graph_spin3)(pt_timing *t, pt_dev_records *const recs[3], int blocks,
                                      long long ns, int replays, int how)
{
    const int by_nodes = how & GPU_GRAPH_NODES;
    static const char *const titles[3] = { "k0", "k1", "k2" };
    cudaStream_t st;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaGraphNode_t node[3];
    pt_graph *g = by_nodes ? pt_graph_create(t) : NULL;
    cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    int rc = 0, rounds = 1;

    if (e == cudaSuccess)
        e = by_nodes ? cudaGraphCreate(&graph, 0)
                     : cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
    for (int k = 0; e == cudaSuccess && rc == 0 && k < 3; k++) {
        pt_dev_buf arg = pt_dev_arg(recs[k]);
        void *args[] = { &ns, &rounds, &arg };
        cudaKernelNodeParams p = {};
        if (!by_nodes) {
            PT_LAUNCH(t, titles[k], recs[k], spin4_records_last, blocks, 64, 0, st, ns, 1);
            e = cudaGetLastError();
            continue;
        }
        p.func = (void *)spin4_records_last;
        p.gridDim = dim3(blocks);
        p.blockDim = dim3(64);
        p.kernelParams = args;
        rc = pt_graph_add_kernel(g, (void **)&node[k], graph, k ? (void *const *)&node[k - 1] : NULL,
                                 k ? 1 : 0, &p, 3, titles[k], recs[k]);
    }
    if (e == cudaSuccess && !by_nodes)
        e = cudaStreamEndCapture(st, &graph);
    if (!by_nodes)
        g = pt_graph_capture_end(t, (pt_stream)st);
    if (e == cudaSuccess && rc == 0)
        e = cudaGraphInstantiateWithFlags(&exec, graph, 0); /* CUDA 11.4 and later, one signature */
    if (rc == 0 && (how & GPU_GRAPH_KERNELS))
        rc = pt_graph_time_by_kernels(g, 8);
    for (int i = 0; e == cudaSuccess && rc == 0 && i < replays; i++)
        rc = pt_graph_launch(t, g, "graph", exec, (pt_stream)st);
    if (e == cudaSuccess && rc == 0)
        rc = pt_sync(t);
    pt_graph_free(g);
    if (exec)
        cudaGraphExecDestroy(exec);
    if (graph)
        cudaGraphDestroy(graph);
    cudaStreamDestroy(st);
    return e != cudaSuccess ? (int)e : rc;
}

extern "C" int GPU_FN(gpu_launch_spin4_every)(pt_timing *t, pt_dev_records *b, int blocks,
                                             int threads, long long ns, int every, int runs,
                                             pt_stream s)
{
    cudaStream_t st = (cudaStream_t)s;
    int rc = pt_dev_records_sample(b, every);
    if (rc != 0)
        return rc;
    for (int i = 0; i < runs; i++) {
        PT_LAUNCH(t, "spin", b, spin4_every, blocks, threads, 0, st, ns, every);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
    }
    return 0;
}

extern "C" int GPU_FN(gpu_launch_spin4)(pt_timing *t, pt_dev_records *b, int blocks, int threads,
                                       long long ns, int runs, pt_stream s)
{
    cudaStream_t st = (cudaStream_t)s;
    for (int i = 0; i < runs; i++) {
        PT_LAUNCH(t, "spin", b, spin4_records_last, blocks, threads, 0, st, ns, 1);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
    }
    return 0;
}

extern "C" int GPU_FN(gpu_spin_phases)(pt_dev_buf buf, int nphases, int blocks, int threads,
                                      long long ns, int rounds, pt_stream s)
{
    cudaStream_t st = (cudaStream_t)s;
    switch (nphases) {
    case 1: spin_phases<1><<<blocks, threads, 0, st>>>(buf, ns, rounds); break;
    case 3: spin_phases<3><<<blocks, threads, 0, st>>>(buf, ns, rounds); break;
    case 4: spin_phases<4><<<blocks, threads, 0, st>>>(buf, ns, rounds); break;
    case 16: spin_phases<16><<<blocks, threads, 0, st>>>(buf, ns, rounds); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

extern "C" int GPU_FN(gpu_spin_phases_runtime)(pt_dev_buf buf, int nphases, int blocks,
                                              long long ns, pt_stream s)
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

extern "C" int GPU_FN(gpu_spin_actual)(gpu_spins *actual)
{
    static const unsigned long long zero[32] = { 0 };
    unsigned long long h[32];
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaMemcpyFromSymbol(h, spin_actual, sizeof h);
    if (e == cudaSuccess)
        e = cudaMemcpyToSymbol(spin_actual, zero, sizeof zero);
    for (int p = 0; e == cudaSuccess && actual && p < 16; p++) {
        actual->spin[p] = (long long)h[p];
        actual->window[p] = (long long)h[16 + p];
    }
    return (int)e;
}

extern "C" int GPU_FN(gpu_spin_bad)(pt_dev_buf buf, int nphases, int blocks, long long ns,
                                   long long bad_slot, int bad_phase, pt_stream s)
{
    spin_bad<<<blocks, 32, 0, (cudaStream_t)s>>>(buf, ns, nphases, bad_slot, bad_phase);
    return (int)cudaGetLastError();
}
