/* GPU benchmarks: what ptkit's instrumentation costs, measured in one run
 * and printed one line per figure, beside its goal and beside the
 * hand-written pattern it replaces (the clock_counter pattern: a raw
 * clock64 read per mark, thread 0 adding the delta into global memory; for
 * launches, a cudaEvent pair per launch).
 *
 *   cycles per mark      a loop of N iterations with two marks, against
 *                        the same loop without: clock64 delta / 2N; in
 *                        shared memory (the default) and in registers,
 *                        constant phases and phases known only at run
 *                        time (3 phases), and the hand-written pattern,
 *                        as tests/kernels/forms.h writes it (times[phase]
 *                        += ...) and as a store of each delta
 *                        (tests/bench/bench_loops.cu); PT_DEV_END's cycles
 *   slowdown             the tiled SGEMM (1024-thread blocks, 3 phases;
 *                        PT_BENCH_GEMM_SIZES=224,256,288 runs it at each
 *                        size and prints the median slowdown too)
 *                        and the attention pass (6 phases, nested loops)
 *                        of tests/kernels/, each with ptkit's marks (in
 *                        shared memory, the default, and in registers)
 *                        and with the hand-written pattern, against the
 *                        kernel without either (medians of interleaved
 *                        runs), on the same pseudo-random inputs: each
 *                        form's output is compared bit for bit with the
 *                        original's
 *   graph replays        a CUDA graph of three marked spins replayed 1,000
 *                        times by pt_graph_launch against bare
 *                        cudaGraphLaunch (medians of 5 interleaved rounds)
 *   launch rate          10,000 short launches each inside
 *                        pt_start_gpu/pt_stop_gpu, against bare launches;
 *                        10,000 PT_LAUNCHes of a marked kernel (records
 *                        reset, launch timed and folded), against bare
 *                        launches of that kernel
 *
 * Two sizes: hardware, and PT_GPU_SCALE=sim for a simulated GPU (GPGPU-Sim,
 * docs/gpu.md): a 256x256 SGEMM, an attention pass of 8 heads of 128, one
 * run of each (the simulator is deterministic), figures in simulated
 * cycles, no launch rate. Without a device it says so and exits 0. */
#include <pt/pt.h>
#include <pt/pt_dev.h>

#include <cuda_runtime.h>

#include "../kernels/inputs.h"
#include "../thread_cpu.h"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

enum { PH_LOAD, PH_SYNC, PH_COMPUTE, PH_COUNT };
static const char *const phase_names[PH_COUNT] = { "load", "sync", "compute" };

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "bench-gpu: %s: %s\n", #call, cudaGetErrorString(e_));     \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* ---- cycles per mark: tests/bench/bench_loops.cu, in both modes ---- */

/* The loops' kinds, 0 (bare) to 4 (by hand, summed): bench_loops.cu. */
enum { NKINDS = 5 };
extern "C" int bench_loop_shared(int kind, int iters, long long *cycles, float *sink,
                                 long long *times, pt_dev_buf buf, cudaStream_t st);
extern "C" int bench_loop_reg(int kind, int iters, long long *cycles, float *sink,
                              long long *times, pt_dev_buf buf, cudaStream_t st);
/* Per-warp records with trace stores: kinds 0, 1 and 5 (spans). */
extern "C" int bench_loop_warp(int kind, int iters, long long *cycles, float *sink,
                               long long *times, pt_dev_buf buf, cudaStream_t st);
extern "C" int bench_end_shared(long long *cycles, pt_dev_buf buf, cudaStream_t st);
extern "C" int bench_end_reg(long long *cycles, pt_dev_buf buf, cudaStream_t st);
extern "C" int bench_end_release(long long *cycles, pt_dev_buf buf, cudaStream_t st);
extern "C" int bench_probe_shared(int what, int iters, long long *cycles, long long *rec,
                                  cudaStream_t st);

/* ---- realistic multi-phase kernels: tests/kernels/ ----------------- */

/* tests/kernels/gemm.cu and attention.cu, each built four times (see
 * forms.h): without instrumentation, with ptkit's macros in their default
 * shared-memory mode and with PT_DEV_SHARED=0 (registers), with the
 * hand-written pattern; only the last parameter differs. */
#define GEMM_ARGS int M, int N, int K, float alpha, const float *A, const float *B, float beta, \
                  float *C
#define ATT_ARGS const float *Q, const float *K, const float *V, int n, float scale, float *l, \
                 float *m, float *O
extern "C" __global__ void gemm_orig(GEMM_ARGS, pt_dev_buf buf);
extern "C" __global__ void gemm_ptkit(GEMM_ARGS, pt_dev_buf buf);
extern "C" __global__ void gemm_reg(GEMM_ARGS, pt_dev_buf buf);
extern "C" __global__ void gemm_hand(GEMM_ARGS, long long *times);
extern "C" __global__ void gemm_release(GEMM_ARGS, pt_dev_buf buf);
extern "C" __global__ void gemm_clock(GEMM_ARGS, pt_dev_buf buf);
extern "C" __global__ void gemm_clockall(GEMM_ARGS, pt_dev_buf buf);
extern "C" __global__ void attention_orig(ATT_ARGS, pt_dev_buf buf);
extern "C" __global__ void attention_ptkit(ATT_ARGS, pt_dev_buf buf);
extern "C" __global__ void attention_reg(ATT_ARGS, pt_dev_buf buf);
extern "C" __global__ void attention_hand(ATT_ARGS, long long *times);
extern "C" __global__ void attention_release(ATT_ARGS, pt_dev_buf buf);
extern "C" __global__ void attention_clock(ATT_ARGS, pt_dev_buf buf);
extern "C" __global__ void attention_clockall(ATT_ARGS, pt_dev_buf buf);

enum { GEMM_PHASES = 3, ATT_PHASES = 6, ATT_D = 64, ATT_BR = 32, ATT_BC = 32 };
static const char *const gemm_names[GEMM_PHASES] = { "load", "mma", "store" };
static const char *const att_names[ATT_PHASES] = { "load_kv", "load_q", "scores",
                                                   "softmax", "pv", "stats" };

/* The median time (ms) of each form over `runs` interleaved rounds, after
 * `warm` rounds of warm-up (the caches, on a simulator too).
 * prepare(form) sets the form's inputs up, launch(form) launches form 0
 * (bare), 1 (ptkit), 2 (by hand), 3 (ptkit in registers), 4 (bare
 * again: the spread of one form timed twice, against which the forms'
 * differences are read), 5 (ptkit in shared memory, END's DONE a release
 * store: PT_DEV_END_RELEASE), 6 and 7 (the probes of tests/kernels/forms.h:
 * a clock read stored in shared memory on thread 0, the floor of a
 * shared-memory mark; a clock read on every thread, the floor of any mark)
 * on st, and done(form) keeps its output; the events hold the launch
 * alone. */
enum { NFORMS = 8 };
static const char *const form_names[NFORMS] = { "original", "ptkit (shared memory)",
                                                "hand-written pattern", "ptkit (registers)",
                                                "original, again", "ptkit (release DONE)",
                                                "probe: clock, stored", "probe: clock, all" };
template <typename P, typename F, typename D>
static void time_forms(cudaStream_t st, int runs, int warm, P prepare, F launch, D done,
                       double med[NFORMS])
{
    cudaEvent_t e0, e1;
    std::vector<double> ms[NFORMS];
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int r = 0; r < runs + warm; r++) {
        for (int form = 0; form < NFORMS; form++) {
            float t;
            prepare(form);
            CHECK(cudaStreamSynchronize(st));
            CHECK(cudaEventRecord(e0, st));
            launch(form);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e1, st));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            done(form);
            if (r >= warm)
                ms[form].push_back(t);
        }
    }
    for (int form = 0; form < NFORMS; form++)
        med[form] = median(ms[form]);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

/* Deterministic inputs in [-1, 1), so every form computes the same thing
 * from the same bits (tests/kernels/inputs.h). */
static void fill(float *d, size_t n, unsigned seed, cudaStream_t st)
{
    std::vector<float> h = kernel_inputs(n, seed);
    CHECK(cudaMemcpyAsync(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice, st));
    CHECK(cudaStreamSynchronize(st));
}

/* out[form] = the bytes of n floats at d after form ran. */
static void keep(std::vector<float> *out, const float *d, size_t n, cudaStream_t st)
{
    out->resize(n);
    CHECK(cudaMemcpyAsync(out->data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, st));
    CHECK(cudaStreamSynchronize(st));
}

static const char *same_bits(const std::vector<float> &a, const std::vector<float> &b)
{
    return a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0
               ? "bit-identical"
               : "DIFFERENT";
}

__global__ void empty_kernel(int *p)
{
    if (p && threadIdx.x == 1024)
        *p = 0;
}

/* The same with one mark: what PT_LAUNCH launches, timing and folding it. */
__global__ void marked_empty_kernel(int *p, pt_dev_buf buf)
{
    PT_DEV_BEGIN(buf);
    if (p && threadIdx.x == 1024)
        *p = 0;
    PT_DEV_MARK(PH_LOAD);
    PT_DEV_END(buf);
}

/* Spins `ns` of %globaltimer, then one mark: a kernel of a graph step. */
__global__ void marked_spin_kernel(long long ns, pt_dev_buf buf)
{
    PT_DEV_BEGIN(buf);
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while ((long long)(t - t0) < ns);
    PT_DEV_MARK(PH_COMPUTE);
    PT_DEV_END(buf);
}

/* What the runtime calls ptkit makes on a launch's or a replay's path
 * cost this host, in ns a call (the median of 3 rounds of 10,000 after
 * a warm-up): the figures that say where a launch rate goes, and which
 * design is cheaper before it is built. The graph is one copy node of
 * 13 KB (a 132-block buffer's records), aimed at one pinned buffer and
 * then the other, as pt_graph_launch aims a node at each replay's copy;
 * beside it a marked kernel's node, given one set of records and then
 * another, as pt_graph_launch points a kernel at each replay's set of
 * its ring. Prints one line; nothing on a failure but that line's
 * "failed". */
static void runtime_costs(cudaStream_t st)
{
    enum { CALLS = 10000, WHAT = 6 };
    static const char *const names[WHAT] = { "cudaStreamIsCapturing", "cudaEventRecord",
                                             "cudaEventQuery", "cudaEventElapsedTime",
                                             "cudaGraphExecMemcpyNodeSetParams1D",
                                             "cudaGraphExecKernelNodeSetParams" };
    const size_t bytes = 13 * 1024;
    std::vector<double> ns[WHAT];
    cudaEvent_t e0 = NULL, e1 = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaGraphNode_t node = NULL, knode = NULL;
    void *src = NULL, *dst[2] = { NULL, NULL };
    long long kns = 0;
    pt_dev_buf kb[2] = {};
    void *kargs[2] = { &kns, &kb[0] };
    cudaKernelNodeParams kp = {};
    cudaError_t e = cudaEventCreate(&e0);

    if (e == cudaSuccess)
        e = cudaEventCreate(&e1);
    if (e == cudaSuccess)
        e = cudaMalloc(&src, bytes);
    for (int i = 0; i < 2 && e == cudaSuccess; i++)
        e = cudaMallocHost(&dst[i], bytes);
    if (e == cudaSuccess)
        e = cudaGraphCreate(&graph, 0);
    if (e == cudaSuccess)
        e = cudaGraphAddMemcpyNode1D(&node, graph, NULL, 0, dst[0], src, bytes,
                                     cudaMemcpyDeviceToHost);
    kb[0].data = (long long *)src;
    kb[1].data = (long long *)src + 16;
    kp.func = (void *)marked_spin_kernel;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = kargs;
    if (e == cudaSuccess)
        e = cudaGraphAddKernelNode(&knode, graph, NULL, 0, &kp);
    if (e == cudaSuccess)
        e = cudaGraphInstantiateWithFlags(&exec, graph, 0);
    if (e == cudaSuccess) {
        cudaEventRecord(e0, st);
        cudaEventRecord(e1, st);
        e = cudaStreamSynchronize(st);
    }
    for (int r = 0; r < 4 && e == cudaSuccess; r++) {
        for (int w = 0; w < WHAT; w++) {
            cudaStreamCaptureStatus cs;
            float ms;
            double t0 = now_s();
            for (int i = 0; i < CALLS; i++) {
                if (w == 0)
                    cudaStreamIsCapturing(st, &cs);
                else if (w == 1)
                    cudaEventRecord(e1, st);
                else if (w == 2)
                    cudaEventQuery(e1);
                else if (w == 3)
                    cudaEventElapsedTime(&ms, e0, e1);
                else if (w == 4)
                    cudaGraphExecMemcpyNodeSetParams1D(exec, node, dst[i & 1], src, bytes,
                                                       cudaMemcpyDeviceToHost);
                else {
                    kargs[1] = &kb[i & 1];
                    cudaGraphExecKernelNodeSetParams(exec, knode, &kp);
                }
            }
            double t1 = now_s();
            cudaStreamSynchronize(st);
            if (r > 0)
                ns[w].push_back((t1 - t0) * 1e9 / CALLS);
        }
    }
    if (e == cudaSuccess)
        e = cudaGetLastError();
    printf("runtime calls on this host, ns a call:");
    for (int w = 0; w < WHAT && e == cudaSuccess; w++)
        printf(" %s %.0f%s", names[w], median(ns[w]), w + 1 < WHAT ? "," : "\n");
    if (e != cudaSuccess)
        printf(" failed (%s)\n", cudaGetErrorString(e));
    if (exec)
        cudaGraphExecDestroy(exec);
    if (graph)
        cudaGraphDestroy(graph);
    for (int i = 0; i < 2; i++)
        if (dst[i])
            cudaFreeHost(dst[i]);
    if (src)
        cudaFree(src);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
}

/* Adds to the graph st is capturing a copy node of bytes from device src
 * to host dst after what the stream's next operation would follow (the
 * kernel just captured), which nothing captured later waits for: the
 * node ptkit adds after a captured PT_LAUNCH (host/gpu/graph.c). */
static cudaError_t copy_node_after(cudaStream_t st, void *dst, const void *src, size_t bytes)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t g;
    const cudaGraphNode_t *deps;
    size_t n;
    cudaGraphNode_t node;
#if CUDART_VERSION >= 13000
    const cudaGraphEdgeData *edges;
    cudaError_t e = cudaStreamGetCaptureInfo(st, &status, NULL, &g, &deps, &edges, &n);
#elif CUDART_VERSION >= 12030
    const cudaGraphEdgeData *edges;
    cudaError_t e = cudaStreamGetCaptureInfo_v3(st, &status, NULL, &g, &deps, &edges, &n);
#else
    cudaError_t e = cudaStreamGetCaptureInfo_v2(st, &status, NULL, &g, &deps, &n);
#endif
    if (e == cudaSuccess && status != cudaStreamCaptureStatusActive)
        e = cudaErrorIllegalState;
    if (e == cudaSuccess)
        e = cudaGraphAddMemcpyNode1D(&node, g, deps, n, dst, src, bytes, cudaMemcpyDeviceToHost);
    return e;
}

/* A CUDA graph of three marked spins (132 blocks of 64 threads, `ns`
 * each), replayed `replays` times: bare (cudaGraphLaunch, captured
 * without records) against ptkit's (captured by PT_LAUNCH with records,
 * each replay by pt_graph_launch: events, replay, three folds), the
 * medians of 5 interleaved rounds after a warm-up, in ms for all the
 * replays and their folds. A third form, the bare graph between
 * pt_start_gpu and pt_stop_gpu (events, no records), and the host's time
 * to issue each form's replays (before the wait for the last) say where
 * ptkit's cost lies: the events, the records' copies on the GPU, or the
 * host's folds. Two more, the bare graph with one CUDA event recorded
 * after each replay (timed, as a replay's end event; untimed, as a mark
 * that a replay's copies landed), say what a replay timed by one event,
 * or folded behind one, would cost. The last, the same kernels captured
 * on another timing and replayed by pt_graph_launch timed by their own
 * clocks (pt_graph_time_by_kernels, an event each 8 replays, and each
 * 1 and 32), says what a replay costs without its two events, beside the
 * replay's time by each. And ptkit's once more, its records brought back
 * by copy nodes in each replay (PT_GRAPH_RING=0) rather than by the ring
 * of sets copied back a batch at a time; and twice more by the ring,
 * its folds never on the fold's own thread (PT_FOLD_THREAD=0) and on it
 * whenever their copies have landed (=1), beside the default, which uses
 * it as the host needs it, with that thread's CPU time a replay (it is
 * named "ptkit fold"). Returns ptkit's (with events) over bare, or 0 on
 * a failure (said). */
static double graph_replays(cudaStream_t st, long long ns, int replays, double *bare_ms)
{
    enum { KERNELS = 3, BLOCKS = 132 };
    static const char *const titles[KERNELS] = { "k0", "k1", "k2" };
    pt_timing *gt = pt_create("graph", PT_GPU_EVENTS), *et = pt_create("events", PT_GPU_EVENTS);
    pt_timing *kt = pt_create("kernels", PT_GPU_EVENTS), *ct = pt_create("nodes", PT_GPU_EVENTS);
    pt_timing *ot = pt_create("one thread", PT_GPU_EVENTS);
    pt_timing *at = pt_create("always", PT_GPU_EVENTS);
    pt_dev_records *recs[KERNELS], *krecs[KERNELS], *crecs[KERNELS], *orecs[KERNELS];
    pt_dev_records *arecs[KERNELS];
    enum { GRAPHS = 8, FORMS = 13, EVENTS = 64, BATCH = 8 };
    /* Forms 7, 8, 9: timed by the kernels, an event each 8, 1 and 32. */
    static const int batch[3] = { BATCH, 1, 32 };
    cudaGraph_t graph[GRAPHS] = {};
    cudaGraphExec_t exec[GRAPHS] = {};
    const size_t rec_bytes = (size_t)PT_DEV_BUF_WORDS(BLOCKS, PH_COUNT, 0) * sizeof(long long);
    void *copies[KERNELS] = {}, *srcs[KERNELS] = {};
    cudaError_t copy_e = cudaSuccess;
    std::vector<double> ms[FORMS], issue[FORMS], fold_us[FORMS], tail_us[FORMS];
    cudaEvent_t ev[2][EVENTS] = {};
    pt_graph *pg = NULL, *pk = NULL, *pc = NULL, *po = NULL, *pa = NULL;
    cudaError_t e = cudaSuccess;

    for (int i = 0; i < EVENTS && e == cudaSuccess; i++) {
        e = cudaEventCreateWithFlags(&ev[0][i], cudaEventDefault);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&ev[1][i], cudaEventDisableTiming);
    }

    for (int k = 0; k < KERNELS; k++) {
        recs[k] = pt_dev_records_create(gt, BLOCKS, PH_COUNT, phase_names, 0, 0);
        krecs[k] = pt_dev_records_create(kt, BLOCKS, PH_COUNT, phase_names, 0, 0);
        crecs[k] = pt_dev_records_create(ct, BLOCKS, PH_COUNT, phase_names, 0, 0);
        orecs[k] = pt_dev_records_create(ot, BLOCKS, PH_COUNT, phase_names, 0, 0);
        arecs[k] = pt_dev_records_create(at, BLOCKS, PH_COUNT, phase_names, 0, 0);
        if (e == cudaSuccess)
            e = cudaMallocHost(&copies[k], rec_bytes);
        if (e == cudaSuccess)
            e = cudaMalloc(&srcs[k], rec_bytes);
    }
    /* Graph 0 bare, 1 ptkit's, 4 ptkit's on kt (timed by its kernels), 5
     * ptkit's on ct with copy nodes in place of the ring (PT_GRAPH_RING=0
     * while it is captured), 6 ptkit's on ot, whose folds stay on the
     * launching thread (form 11), 7 ptkit's on at, whose folds go to the
     * fold's own thread whenever their copies have landed (form 12);
     * gt's use that thread as the host needs it (the default). */
    for (int form = 0; form < GRAPHS && e == cudaSuccess; form += form == 1 ? 3 : 1) {
        pt_timing *ft = form == 1 ? gt : form == 4 ? kt : form == 5 ? ct : form == 6 ? ot : at;
        pt_dev_records **fr = form == 1   ? recs
                              : form == 4 ? krecs
                              : form == 5 ? crecs
                              : form == 6 ? orecs
                                          : arecs;
        if (form == 5)
            setenv("PT_GRAPH_RING", "0", 1);
        e = cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
        for (int k = 0; k < KERNELS && e == cudaSuccess; k++) {
            if (form == 0)
                marked_spin_kernel<<<BLOCKS, 64, 0, st>>>(ns, pt_dev_arg(NULL));
            else
                PT_LAUNCH(ft, titles[k], fr[k], marked_spin_kernel, BLOCKS, 64, 0,
                          (pt_stream)st, ns);
            e = cudaGetLastError();
        }
        unsetenv("PT_GRAPH_RING");
        if (e == cudaSuccess)
            e = cudaStreamEndCapture(st, &graph[form]);
        if (e == cudaSuccess)
            e = cudaGraphInstantiateWithFlags(&exec[form], graph[form], 0);
    }
    /* The bare graph with a copy node of a buffer of the records' size
     * after each kernel (graph 2), or after the last only (graph 3), as
     * ptkit's copy nodes are, without ptkit: what the nodes cost. */
    for (int form = 2; form < 4 && e == cudaSuccess && copy_e == cudaSuccess; form++) {
        cudaGraph_t g;
        copy_e = cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
        for (int k = 0; k < KERNELS && copy_e == cudaSuccess; k++) {
            marked_spin_kernel<<<BLOCKS, 64, 0, st>>>(ns, pt_dev_arg(NULL));
            copy_e = cudaGetLastError();
            if (copy_e == cudaSuccess && (form == 2 || k == KERNELS - 1))
                copy_e = copy_node_after(st, copies[k], srcs[k], rec_bytes);
        }
        cudaError_t end = cudaStreamEndCapture(st, &g);
        if (copy_e == cudaSuccess)
            copy_e = end;
        graph[form] = end == cudaSuccess ? g : NULL;
        if (copy_e == cudaSuccess)
            copy_e = cudaGraphInstantiateWithFlags(&exec[form], graph[form], 0);
    }
    cudaGetLastError();
    if (e == cudaSuccess) {
        pg = pt_graph_capture_end(gt, (pt_stream)st);
        pk = pt_graph_capture_end(kt, (pt_stream)st);
        pc = pt_graph_capture_end(ct, (pt_stream)st);
        po = pt_graph_capture_end(ot, (pt_stream)st);
        pa = pt_graph_capture_end(at, (pt_stream)st);
        pt_graph_time_by_kernels(pk, BATCH);
    }
    for (int r = 0; r < 6 && e == cudaSuccess && pg && pk && pc && po && pa; r++) {
        for (int form = 0; form < FORMS; form++) {
            double t0, t1;
            long long f0 = threads_cpu_ns("ptkit fold", NULL);
            if (form >= 7 && form <= 9)
                pt_graph_time_by_kernels(pk, batch[form - 7]);
            /* Read by ot and at with their first folds, in their first
             * round. */
            if (form == 11 || form == 12)
                setenv("PT_FOLD_THREAD", form == 11 ? "0" : "1", 1);
            t0 = now_s();
            for (int i = 0; i < replays; i++) {
                if (form == 0) {
                    cudaGraphLaunch(exec[0], st);
                } else if (form == 1) {
                    pt_graph_launch(gt, pg, "step", exec[1], (pt_stream)st);
                } else if (form == 2) {
                    pt_start_gpu(et, "step", (pt_stream)st);
                    cudaGraphLaunch(exec[0], st);
                    pt_stop_gpu(et, "step", (pt_stream)st);
                } else if (form < 5) {
                    cudaGraphLaunch(exec[0], st);
                    cudaEventRecord(ev[form - 3][i % EVENTS], st);
                } else if (form == 11) {
                    pt_graph_launch(ot, po, "step", exec[6], (pt_stream)st);
                } else if (form == 12) {
                    pt_graph_launch(at, pa, "step", exec[7], (pt_stream)st);
                } else if (form == 10) {
                    pt_graph_launch(ct, pc, "step", exec[5], (pt_stream)st);
                } else if (form >= 7) {
                    pt_graph_launch(kt, pk, "step", exec[4], (pt_stream)st);
                } else if (copy_e == cudaSuccess) {
                    cudaGraphLaunch(exec[form - 3], st);
                }
            }
            t1 = now_s();
            e = cudaStreamSynchronize(st);
            double t2 = now_s();
            pt_sync(form == 1    ? gt
                    : form == 10 ? ct
                    : form == 11 ? ot
                    : form == 12 ? at
                    : form >= 7  ? kt
                                 : et);
            unsetenv("PT_FOLD_THREAD");
            if (r > 0) { /* the first round warms up */
                ms[form].push_back((now_s() - t0) * 1e3);
                issue[form].push_back((t1 - t0) * 1e6 / replays);
                fold_us[form].push_back(
                    (double)(threads_cpu_ns("ptkit fold", NULL) - f0) * 1e-3 / replays);
                tail_us[form].push_back((now_s() - t2) * 1e6);
            }
        }
    }
    pt_run_stats rs, ks;
    if (e != cudaSuccess || !pg || !pk || (pt_run_get(gt, &rs) == 0 && rs.error_count > 0) ||
        (pt_run_get(kt, &ks) == 0 && ks.error_count > 0))
        printf("graph replays: %s%s %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "",
               e == cudaSuccess ? pt_last_error(gt) : "", e == cudaSuccess ? pt_last_error(kt) : "");
    double ratio = e == cudaSuccess && pg && pk && ms[0].size() ? median(ms[1]) / median(ms[0]) : 0;
    *bare_ms = ms[0].size() ? median(ms[0]) : 0;
    if (ratio > 0) {
        pt_section_stats s0, k0;
        if (pt_section_get(gt, pt_find(gt, "step"), &s0) == 0 &&
            pt_section_get(gt, pt_find(gt, "step/k0"), &k0) == 0)
            printf("graph replays: %llu timed, %llu folds of k0 (%.4f ms a replay, k0 %.4f ms)\n",
                   (unsigned long long)s0.count, (unsigned long long)k0.count, s0.mean_ms,
                   k0.mean_ms);
        printf("graph replays, a replay: bare %.1f us (issued in %.1f), events alone %.1f us "
               "(%.1f), pt_graph_launch %.1f us (%.1f); events alone %.4f of bare\n",
               median(ms[0]) * 1e3 / replays, median(issue[0]), median(ms[2]) * 1e3 / replays,
               median(issue[2]), median(ms[1]) * 1e3 / replays, median(issue[1]),
               median(ms[2]) / median(ms[0]));
        printf("graph replays, one event after each: timed %.4f of bare, untimed %.4f of bare\n",
               median(ms[3]) / median(ms[0]), median(ms[4]) / median(ms[0]));
        pt_section_stats sk;
        if (pt_section_get(kt, pt_find(kt, "step"), &sk) == 0 &&
            pt_section_get(gt, pt_find(gt, "step"), &s0) == 0)
            printf("graph replays, timed by their kernels (an event each %d): %.4f of bare, "
                   "%.1f us a replay (issued in %.1f); %llu timed, a replay %.4f ms by its "
                   "kernels, %.4f ms by events\n", BATCH, median(ms[7]) / median(ms[0]),
                   median(ms[7]) * 1e3 / replays, median(issue[7]),
                   (unsigned long long)sk.count, sk.mean_ms, s0.mean_ms);
        printf("graph replays, timed by their kernels, an event each %d, %d, %d replays: %.4f, "
               "%.4f, %.4f of bare\n", batch[1], batch[0], batch[2], median(ms[8]) / median(ms[0]),
               median(ms[7]) / median(ms[0]), median(ms[9]) / median(ms[0]));
        printf("graph replays, pt_graph_launch, records back by the ring: %.4f of bare; by "
               "copy nodes (PT_GRAPH_RING=0): %.4f of bare\n", median(ms[1]) / median(ms[0]),
               median(ms[10]) / median(ms[0]));
        printf("graph replays, pt_graph_launch by the ring, the fold's own thread as needed (the "
               "default): %.4f of bare; always (PT_FOLD_THREAD=1): %.4f; never, the folds on the "
               "launching thread alone (PT_FOLD_THREAD=0): %.4f; the fold's thread's CPU a "
               "replay: %.2f us as needed, %.2f us always; pt_sync after the GPU's last "
               "replay: %.0f us as needed, %.0f us always, %.0f us never\n",
               median(ms[1]) / median(ms[0]), median(ms[12]) / median(ms[0]),
               median(ms[11]) / median(ms[0]), median(fold_us[1]), median(fold_us[12]),
               median(tail_us[1]), median(tail_us[12]), median(tail_us[11]));
        if (copy_e == cudaSuccess)
            printf("graph replays, copy nodes of %zu bytes alone: after each kernel %.4f of "
                   "bare, after the last only %.4f of bare\n", rec_bytes,
                   median(ms[5]) / median(ms[0]), median(ms[6]) / median(ms[0]));
        else
            printf("graph replays, copy nodes alone: not built (%s)\n",
                   cudaGetErrorString(copy_e));
    }
    for (int i = 0; i < 2 * EVENTS; i++)
        if (ev[i / EVENTS][i % EVENTS])
            cudaEventDestroy(ev[i / EVENTS][i % EVENTS]);
    pt_graph_free(pg);
    pt_graph_free(pk);
    pt_graph_free(pc);
    pt_graph_free(po);
    pt_graph_free(pa);
    for (int k = 0; k < KERNELS; k++) {
        if (copies[k])
            cudaFreeHost(copies[k]);
        if (srcs[k])
            cudaFree(srcs[k]);
    }
    for (int form = 0; form < GRAPHS; form++) {
        if (exec[form])
            cudaGraphExecDestroy(exec[form]);
        if (graph[form])
            cudaGraphDestroy(graph[form]);
    }
    for (int k = 0; k < KERNELS; k++) {
        pt_dev_records_free(recs[k]);
        pt_dev_records_free(krecs[k]);
        pt_dev_records_free(crecs[k]);
        pt_dev_records_free(orecs[k]);
        pt_dev_records_free(arecs[k]);
    }
    pt_destroy(gt);
    pt_destroy(et);
    pt_destroy(kt);
    pt_destroy(ct);
    pt_destroy(ot);
    pt_destroy(at);
    return ratio;
}

/* One size of the SGEMM: its forms' median times and outputs. */
struct gemm_result {
    int n;
    double ms[NFORMS];
    std::vector<float> out[NFORMS];
};

/* The SGEMM's sizes: PT_BENCH_GEMM_SIZES, a comma-separated list of
 * multiples of 32 (on a simulator, several sizes: one size's total moves
 * with the code's layout by as much as the forms differ), else `dflt`.
 * Empty, with a message, when the list is not such. */
static std::vector<int> gemm_sizes(int dflt)
{
    const char *list = getenv("PT_BENCH_GEMM_SIZES"), *s = list;
    std::vector<int> v;
    if (!s || !*s)
        return { dflt };
    while (*s) {
        char *end;
        long n = strtol(s, &end, 10);
        if (end == s || n < 32 || n > 32768 || n % 32 || (*end && *end != ',')) {
            fprintf(stderr, "bench-gpu: PT_BENCH_GEMM_SIZES=%s: give multiples of 32 from 32 to "
                    "32768, separated by commas\n", list);
            return {};
        }
        v.push_back((int)n);
        s = *end ? end + 1 : end;
    }
    return v;
}

int main(void)
{
    /* The size: hardware, or a simulated GPU (PT_GPU_SCALE=sim), where a
     * cycle costs microseconds of host time and every run is the same. */
    const char *scale = getenv("PT_GPU_SCALE");
    const bool simulated = scale && strcmp(scale, "sim") == 0;
    const std::vector<int> sizes = gemm_sizes(simulated ? 256 : 2048);
    if (sizes.empty())
        return 2;
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("bench-gpu: no CUDA device (%s); nothing measured\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 0;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    pt_timing *t = pt_create("bench-gpu", PT_GPU_EVENTS);

    /* ---- cycles per mark, and END's ---- */
    const int iters = simulated ? 2000 : 100000, reps = simulated ? 1 : 5;
    long long *d_cycles, *d_times, cyc[2];
    float *d_sink;
    CHECK(cudaMalloc(&d_cycles, 2 * sizeof(long long)));
    CHECK(cudaMalloc(&d_sink, sizeof(float)));
    CHECK(cudaMalloc(&d_times, 2 * sizeof(long long) * iters));
    pt_dev_records *lb = pt_dev_records_create(t, 1, PH_COUNT, phase_names, PT_DEV_AGGREGATE, 0);
    auto cycles_of = [&](int err) {
        CHECK((cudaError_t)err);
        CHECK(cudaMemcpyAsync(cyc, d_cycles, sizeof cyc, cudaMemcpyDeviceToHost, st));
        CHECK(cudaStreamSynchronize(st));
        return (double)cyc[0];
    };
    /* [mode][kind]: mode 0 shared memory, 1 registers; kind as bench_loops.cu. */
    std::vector<double> loop[2][NKINDS];
    double end_cycles[3] = { 0, 0, 0 }, clock_pair = 0;
    for (int r = 0; r < reps; r++) {
        for (int mode = 0; mode < 2; mode++) {
            auto run = mode ? bench_loop_reg : bench_loop_shared;
            for (int kind = 0; kind < NKINDS; kind++) {
                pt_dev_reset(lb, (pt_stream)st);
                loop[mode][kind].push_back(cycles_of(run(kind, iters, d_cycles, d_sink, d_times,
                                                         pt_dev_arg(lb), st)));
            }
            pt_dev_reset(lb, (pt_stream)st);
            end_cycles[mode] = cycles_of((mode ? bench_end_reg : bench_end_shared)(
                d_cycles, pt_dev_arg(lb), st));
            clock_pair = (double)cyc[1];
        }
        pt_dev_reset(lb, (pt_stream)st);
        end_cycles[2] = cycles_of(bench_end_release(d_cycles, pt_dev_arg(lb), st));
    }
    /* Per-warp records with trace stores (roles and spans live there): a
     * phase mark against a span's begin or end, two a turn each, every
     * event kept (the trace holds them all). */
    pt_dev_records *wb =
        pt_dev_records_create(t, 1, PH_COUNT, phase_names, PT_DEV_TRACE, 2 * iters + 2);
    std::vector<double> warp_loop[3];
    static const int warp_kinds[3] = { 0, 1, 5 };
    for (int r = 0; r < reps && wb; r++)
        for (int k = 0; k < 3; k++) {
            pt_dev_reset(wb, (pt_stream)st);
            warp_loop[k].push_back(cycles_of(bench_loop_warp(warp_kinds[k], iters, d_cycles,
                                                             d_sink, d_times, pt_dev_arg(wb), st)));
        }
    double warp_mark = wb ? (median(warp_loop[1]) - median(warp_loop[0])) / (2.0 * iters) : -1;
    double warp_span = wb ? (median(warp_loop[2]) - median(warp_loop[0])) / (2.0 * iters) : -1;
    pt_dev_records_free(wb);
    /* What END is made of: a %globaltimer read, a clock64 read, a record's
     * stores then DONE with a release store or a plain one (cycles a turn). */
    const int probe_iters = simulated ? 200 : 10000;
    double probe_cycles[4];
    for (int what = 0; what < 4; what++)
        probe_cycles[what] =
            cycles_of(bench_probe_shared(what, probe_iters, d_cycles, d_times, st)) / probe_iters;
    double per_mark[2][NKINDS];
    for (int mode = 0; mode < 2; mode++)
        for (int kind = 1; kind < NKINDS; kind++)
            per_mark[mode][kind] = (median(loop[mode][kind]) - median(loop[mode][0])) / (2.0 * iters);

    /* ---- slowdown of the tiled SGEMM, at one size or several ---- */
    const int runs = simulated ? 1 : 21, warm = 1, tile = 32;
    pt_dev_buf none = pt_dev_arg(NULL);
    std::vector<gemm_result> gemms;
    for (int n : sizes) {
        const int gemm_blocks = (n / tile) * (n / tile);
        const bool fold = gemms.empty(); /* the first size's launch is folded, below */
        float *A, *B, *C;
        long long *g_times;
        CHECK(cudaMalloc(&A, sizeof(float) * n * n));
        CHECK(cudaMalloc(&B, sizeof(float) * n * n));
        CHECK(cudaMalloc(&C, sizeof(float) * n * n));
        CHECK(cudaMalloc(&g_times, sizeof(long long) * GEMM_PHASES * gemm_blocks));
        CHECK(cudaMemsetAsync(g_times, 0, sizeof(long long) * GEMM_PHASES * gemm_blocks, st));
        fill(A, (size_t)n * n, 1, st);
        fill(B, (size_t)n * n, 2, st);
        dim3 ggrid(n / tile, n / tile);
        pt_dev_records *gb =
            pt_dev_records_create(t, gemm_blocks, GEMM_PHASES, gemm_names, PT_DEV_AGGREGATE, 0);
        /* C is read and written (beta = 0.5): the same C for every form. */
        auto gemm_inputs = [&](int) { fill(C, (size_t)n * n, 3, st); };
        auto gemm = [&](int form) {
            if (form == 0 || form == 4)
                gemm_orig<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, none);
            else if (form == 1)
                gemm_ptkit<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, pt_dev_arg(gb));
            else if (form == 3)
                gemm_reg<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, pt_dev_arg(gb));
            else if (form == 5)
                gemm_release<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, pt_dev_arg(gb));
            else if (form == 6)
                gemm_clock<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, pt_dev_arg(gb));
            else if (form == 7)
                gemm_clockall<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, pt_dev_arg(gb));
            else
                gemm_hand<<<ggrid, 1024, 0, st>>>(n, n, n, 1.0f, A, B, 0.5f, C, g_times);
        };
        gemm_result g;
        g.n = n;
        time_forms(st, runs, warm, gemm_inputs, gemm,
                   [&](int form) { keep(&g.out[form], C, (size_t)n * n, st); }, g.ms);
        if (fold) {
            /* One instrumented launch folded, to show what the marks say. */
            gemm_inputs(1);
            pt_dev_reset(gb, (pt_stream)st);
            pt_start_gpu(t, "gemm", (pt_stream)st);
            gemm(1);
            pt_stop_gpu(t, "gemm", (pt_stream)st, pt::flops(2.0 * n * n * n));
            pt_dev_fold(t, gb, "gemm");
            pt_sync(t);
        }
        gemms.push_back(g);
        pt_dev_records_free(gb);
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
        cudaFree(g_times);
    }

    /* ---- slowdown of the attention pass ---- */
    const int batch = simulated ? 1 : 8, heads = simulated ? 8 : 16, seq = simulated ? 128 : 512;
    const size_t qkv = (size_t)batch * heads * seq * ATT_D, lm = (size_t)batch * heads * seq;
    const size_t smem = sizeof(float) * ((ATT_BR + 2 * ATT_BC) * ATT_D + ATT_BR * ATT_BC);
    float *Q, *Kt, *V, *O, *l, *m;
    long long *a_times;
    CHECK(cudaMalloc(&Q, sizeof(float) * qkv));
    CHECK(cudaMalloc(&Kt, sizeof(float) * qkv));
    CHECK(cudaMalloc(&V, sizeof(float) * qkv));
    CHECK(cudaMalloc(&O, sizeof(float) * qkv));
    CHECK(cudaMalloc(&l, sizeof(float) * lm));
    CHECK(cudaMalloc(&m, sizeof(float) * lm));
    CHECK(cudaMalloc(&a_times, sizeof(long long) * ATT_PHASES * batch * heads));
    CHECK(cudaMemsetAsync(a_times, 0, sizeof(long long) * ATT_PHASES * batch * heads, st));
    fill(Q, qkv, 4, st);
    fill(Kt, qkv, 5, st);
    fill(V, qkv, 6, st);
    dim3 agrid(batch, heads);
    pt_dev_records *ab =
        pt_dev_records_create(t, batch * heads, ATT_PHASES, att_names, PT_DEV_AGGREGATE, 0);
    std::vector<float> att_out[NFORMS];
    /* O, l, m start at 0, 0, 0 each time: the same work in every form. */
    auto att_inputs = [&](int) {
        CHECK(cudaMemsetAsync(O, 0, sizeof(float) * qkv, st));
        CHECK(cudaMemsetAsync(l, 0, sizeof(float) * lm, st));
        CHECK(cudaMemsetAsync(m, 0, sizeof(float) * lm, st));
    };
    auto attention = [&](int form) {
        if (form == 0 || form == 4)
            attention_orig<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O, none);
        else if (form == 1)
            attention_ptkit<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O,
                                                         pt_dev_arg(ab));
        else if (form == 3)
            attention_reg<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O,
                                                       pt_dev_arg(ab));
        else if (form == 5)
            attention_release<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O,
                                                           pt_dev_arg(ab));
        else if (form == 6)
            attention_clock<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O,
                                                         pt_dev_arg(ab));
        else if (form == 7)
            attention_clockall<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O,
                                                            pt_dev_arg(ab));
        else
            attention_hand<<<agrid, ATT_BR, smem, st>>>(Q, Kt, V, seq, 0.125f, l, m, O, a_times);
    };
    double att_ms[NFORMS];
    time_forms(st, runs, warm, att_inputs, attention,
               [&](int form) { keep(&att_out[form], O, qkv, st); }, att_ms);

    /* One instrumented launch folded, to show what the marks say. */
    att_inputs(1);
    pt_dev_reset(ab, (pt_stream)st);
    pt_start_gpu(t, "attention", (pt_stream)st);
    attention(1);
    pt_stop_gpu(t, "attention", (pt_stream)st, pt::flops(4.0 * batch * heads * seq * seq * ATT_D));
    pt_dev_fold(t, ab, "attention");
    pt_sync(t);

    /* ---- launch rate: the host's cost, meaningless on a simulator ---- */
    /* Modes: 0 bare, 1 pt_start_gpu/pt_stop_gpu around it, 2 a hand-written
     * event pair around it, 3 PT_LAUNCH of the marked kernel, 4 that
     * kernel launched bare. The best rate of 3 rounds after a warm-up. */
    enum { NLAUNCH = 5 };
    const int launches = 10000;
    double best[NLAUNCH] = { 0 };
    if (!simulated) {
        pt_timing *lt = pt_create("launches", PT_GPU_EVENTS);
        pt_dev_records *lr = pt_dev_records_create(lt, 0, PH_COUNT, phase_names, 0, 0);
        std::vector<cudaEvent_t> evs(2 * launches);
        for (auto &ev : evs)
            CHECK(cudaEventCreate(&ev));
        for (int r = 0; r < 4; r++) {
            for (int mode = 0; mode < NLAUNCH; mode++) {
                double t0 = now_s();
                for (int i = 0; i < launches; i++) {
                    if (mode == 1)
                        pt_start_gpu(lt, "launch", (pt_stream)st);
                    else if (mode == 2)
                        cudaEventRecord(evs[2 * i], st);
                    if (mode == 3)
                        PT_LAUNCH(lt, "marked", lr, marked_empty_kernel, 1, 32, 0, (pt_stream)st,
                                  (int *)NULL);
                    else if (mode == 4)
                        marked_empty_kernel<<<1, 32, 0, st>>>(NULL, none);
                    else
                        empty_kernel<<<1, 32, 0, st>>>(NULL);
                    if (mode == 1)
                        pt_stop_gpu(lt, "launch", (pt_stream)st);
                    else if (mode == 2)
                        cudaEventRecord(evs[2 * i + 1], st);
                }
                CHECK(cudaStreamSynchronize(st));
                if (mode == 1 || mode == 3) {
                    pt_sync(lt);
                } else if (mode == 2) {
                    float ms, sum = 0;
                    for (int i = 0; i < launches; i++) {
                        cudaEventElapsedTime(&ms, evs[2 * i], evs[2 * i + 1]);
                        sum += ms;
                    }
                    if (sum < 0)
                        printf("(impossible)\n");
                }
                double rate = launches / (now_s() - t0);
                if (r > 0 && rate > best[mode]) /* the first round warms up */
                    best[mode] = rate;
            }
        }
        pt_run_stats rs;
        if (pt_run_get(lt, &rs) == 0 && rs.error_count > 0)
            printf("launch rate: %llu errors on the timing; last: %s\n",
                   (unsigned long long)rs.error_count, pt_last_error(lt));
        pt_dev_records_free(lr);
        pt_destroy(lt);
        for (auto &ev : evs)
            cudaEventDestroy(ev);
    }
    /* ---- a CUDA graph's replays, bare and timed by ptkit ------------- */
    double graph_bare_ms = 0, graph_ratio = 0;
    const int graph_n = simulated ? 3 : 1000;
    graph_ratio = graph_replays(st, simulated ? 5000 : 20000, graph_n, &graph_bare_ms);
    if (!simulated)
        runtime_costs(st);
    pt_dev_clock dc;
    pt_dev_clock_get(t, &dc);

    /* Cycles of a kernel: its event time at the calibrated SM clock. */
    const double ghz = dc.cycles_per_ns;
    printf("ptkit bench-gpu: %s (sm_%d%d), SM clock %.3f GHz%s, globaltimer tick %.0f ns%s\n",
           prop.name, prop.major, prop.minor, ghz,
           dc.calibrated ? " (calibrated)" : " (not calibrated)", dc.tick_ns,
           simulated ? "; SIMULATED, simulation size" : "");
    printf("cycles per mark (3 phases), constant phase:  shared memory %6.1f, registers %6.1f  "
           "(goal <= 20)\n", per_mark[0][1], per_mark[1][1]);
    printf("cycles per mark (3 phases), run-time phase:  shared memory %6.1f, registers %6.1f\n",
           per_mark[0][2], per_mark[1][2]);
    printf("cycles per mark by hand: times[phase] += t1 - t0 in global memory %6.1f, "
           "a global store of each delta %6.1f\n", per_mark[0][4], per_mark[0][3]);
    printf("cycles per event, per-warp records with trace stores: a phase mark %6.1f, a span "
           "begin or end %6.1f  (goal: a span's <= a mark's)\n", warp_mark, warp_span);
    printf("cycles of PT_DEV_END (3 phases) on the recording thread: shared memory %.0f, "
           "registers %.0f (two clock reads alone: %.0f); shared memory with a release DONE %.0f\n",
           end_cycles[0], end_cycles[1], clock_pair, end_cycles[2]);
    printf("cycles of END's parts, each waited for: a %%globaltimer read %.1f, a clock64 read %.1f, "
           "two 128-bit stores then a release store %.1f, then a plain store %.1f\n",
           probe_cycles[0], probe_cycles[1], probe_cycles[2], probe_cycles[3]);
    auto forms = [&](const char *what, const double ms[NFORMS], const std::vector<float> *out) {
        printf("%s: %s %.0f cycles (%.4f ms)\n", what, form_names[0], ms[0] * 1e6 * ghz, ms[0]);
        for (int f : { 4, 1, 5, 3, 2, 6, 7 })
            printf("    %-22s %10.0f cycles  %+6.2f %%  output %s\n", form_names[f],
                   ms[f] * 1e6 * ghz, 100.0 * (ms[f] / ms[0] - 1.0), same_bits(out[0], out[f]));
    };
    char what[160];
    for (const gemm_result &g : gemms) {
        snprintf(what, sizeof what, "SGEMM %dx%d, %d blocks of 1024 threads, 3 phases (goal: "
                 "shared memory <= +1 %%, never above the hand-written pattern)", g.n, g.n,
                 (g.n / tile) * (g.n / tile));
        forms(what, g.ms, g.out);
    }
    if (gemms.size() > 1) {
        /* A simulator's total moves with code layout and block timing by
         * as much as two forms differ, one size at a time: the median over
         * sizes is the figure to compare. */
        printf("SGEMM, median slowdown over %zu sizes:", gemms.size());
        for (int f : { 1, 5, 3, 2, 6, 7 }) {
            std::vector<double> r;
            for (const gemm_result &g : gemms)
                r.push_back(100.0 * (g.ms[f] / g.ms[0] - 1.0));
            printf("  %s %+.2f %% (%+.2f to %+.2f)", form_names[f], median(r),
                   *std::min_element(r.begin(), r.end()), *std::max_element(r.begin(), r.end()));
        }
        printf("\n");
    }
    snprintf(what, sizeof what, "attention %dx%dx%d, D=%d, 32 threads a block, 6 phases (goal: "
             "<= +1 %%)", batch, heads, seq, (int)ATT_D);
    forms(what, att_ms, att_out);
    if (simulated)
        printf("launch rate: not measured on a simulator (it is the host's cost)\n");
    else
        printf("launch rate, pt_start_gpu/pt_stop_gpu around each of %d launches: %.3f of bare  "
               "(goal >= 0.9)   hand-written event pair: %.3f  (bare %.0f launches/s)\n"
               "launch rate, PT_LAUNCH of a marked kernel (reset, events, launch, fold): %.3f of "
               "the bare <<< >>> of that kernel  (bare %.0f launches/s)\n",
               launches, best[1] / best[0], best[2] / best[0], best[0], best[3] / best[4], best[4]);
    printf("graph of 3 marked 20 us spins, %d replays: pt_graph_launch (events, replay, 3 "
           "folds) %.4f of the bare cudaGraphLaunch  (goal <= 1.01; bare %.3f ms)\n", graph_n,
           graph_ratio, graph_bare_ms);
    pt_log(t, stdout);

    pt_dev_records_free(lb);
    pt_dev_records_free(ab);
    pt_destroy(t);
    cudaFree(Q);
    cudaFree(Kt);
    cudaFree(V);
    cudaFree(O);
    cudaFree(l);
    cudaFree(m);
    cudaFree(a_times);
    cudaFree(d_cycles);
    cudaFree(d_sink);
    cudaFree(d_times);
    cudaStreamDestroy(st);
    return 0;
}
