/* The loops bench-gpu times a mark with, in one mode of pt_dev.h: built
 * twice (tests/gpu/gpu.mk), as is for the default shared-memory mode and
 * with PT_DEV_SHARED=0 for registers; BENCH_MODE names the launchers.
 *
 *   bench_loop_<mode>(kind, ...)  a loop of `iters` turns of the same
 *                                 dependent arithmetic: kind 0 bare, 1 with
 *                                 two marks of constant phases a turn, 2 of
 *                                 phases known at run time, 3 the
 *                                 clock_counter pattern (a clock64 read
 *                                 and, on thread 0, a global store of the
 *                                 delta per mark), 4 the hand-written
 *                                 pattern of tests/kernels/forms.h (the
 *                                 same read, thread 0 adding the delta to
 *                                 its phase's total in global memory),
 *                                 5 a span begun and ended a turn (two
 *                                 trace events: the warp mode's, below);
 *                                 *cycles gets the loop's clock64 span
 *   bench_end_<mode>(...)         the cycles PT_DEV_END takes on the
 *                                 recording thread, against two clock64
 *                                 reads with nothing between them
 *   bench_probe_<mode>(what, ...) what END is made of, each in a loop of
 *                                 `iters` turns that waits for its result
 *                                 (what 0: a %globaltimer read, 1: a
 *                                 clock64 read, 2: a record's stores then
 *                                 a release store of DONE, as END's
 *                                 publish, 3: the same with a plain store)
 *
 * A third build, BENCH_MODE=warp, has per-warp records with trace stores
 * (PT_DEV_PER_WARP, PT_DEV_TRACING), where warp roles and spans live: its
 * kinds 1 and 5 give a phase mark's cycles and a span event's there.
 *
 * The marks use 3 phases, bench_gpu.cu's records' (as a ptgen header of
 * 3 phases would set PT_DEV_PHASES), so BEGIN, END and register mode's
 * run-time phases are sized as in a kernel built with its phase list. */
#define PT_DEV_PHASES 3
#include <pt/pt_dev.h>

#include <cuda_runtime.h>

#define BENCH_CAT2(a, b) a##_##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)
#define BENCH_FN(name) BENCH_CAT(name, BENCH_MODE)

namespace {

__global__ void loop_bare(int iters, float seed, long long *cycles, float *sink)
{
    float x = seed + threadIdx.x;
    long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        x = x * 1.0001f + 0.5f;
        x = x * 0.9999f - 0.25f;
    }
    long long c1 = clock64();
    if (threadIdx.x == 0)
        *cycles = c1 - c0;
    if (x == 1234.5f)
        *sink = x;
}

/* A phase known at compile time; an int is one known at run time. */
template <int P>
struct phase_const {
    __device__ operator long long() const { return P; }
};

/* Two marks a turn; with SPANS instead a span of kind 0 begun and ended
 * under the turn's id, as a pipeline's issue and wait. */
template <typename P0, typename P1, bool SPANS = false>
__global__ void loop_marks(int iters, float seed, long long *cycles, float *sink, P0 p0, P1 p1,
                           pt_dev_buf buf)
{
    float x = seed + threadIdx.x;
    PT_DEV_BEGIN(buf);
    long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        x = x * 1.0001f + 0.5f;
        if (SPANS)
            PT_DEV_SPAN_BEGIN(0, i);
        else
            PT_DEV_MARK(p0);
        x = x * 0.9999f - 0.25f;
        if (SPANS)
            PT_DEV_SPAN_END(0, i);
        else
            PT_DEV_MARK(p1);
    }
    long long c1 = clock64();
    PT_DEV_END(buf);
    if (threadIdx.x == 0)
        *cycles = c1 - c0;
    if (x == 1234.5f)
        *sink = x;
}

/* The hand-written patterns: a clock64 read per mark and, on thread 0,
 * with SUM `times[phase] += t1 - t0` (tests/kernels/forms.h's), else a
 * store of each delta (the clock_counter pattern). The totals are
 * volatile so that the adds stay in memory, as a barrier or the kernel's
 * own stores keep them in a real kernel (the SGEMM's do), where this loop
 * would let the compiler keep them in registers. */
template <bool SUM>
__global__ void loop_by_hand(int iters, float seed, long long *cycles, float *sink,
                             long long *times)
{
    volatile long long *totals = times;
    float x = seed + threadIdx.x;
    long long c0 = clock64(), s = c0, e;
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        x = x * 1.0001f + 0.5f;
        e = clock64();
        if (threadIdx.x == 0) {
            if (SUM)
                totals[0] += e - s;
            else
                times[i] = e - s;
        }
        s = e;
        x = x * 0.9999f - 0.25f;
        e = clock64();
        if (threadIdx.x == 0) {
            if (SUM)
                totals[2] += e - s;
            else
                times[iters + i] = e - s;
        }
        s = e;
    }
    long long c1 = clock64();
    if (threadIdx.x == 0)
        *cycles = c1 - c0;
    if (x == 1234.5f)
        *sink = x;
}

/* END between two clock reads, and the two reads alone. */
__global__ void end_cost(long long *cycles, pt_dev_buf buf)
{
    PT_DEV_BEGIN(buf);
    PT_DEV_MARK(0);
    long long c0 = clock64();
    PT_DEV_END(buf);
    long long c1 = clock64();
    long long c2 = clock64();
    if (threadIdx.x == 0) {
        cycles[0] = c1 - c0;
        cycles[1] = c2 - c1;
    }
}

/* The probes: each turn's result decides a branch, so the loop waits for
 * it (latency, not throughput). */
template <int WHAT>
__global__ void probe(int iters, long long *cycles, long long *rec)
{
    long long acc = 0;
    long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        unsigned long long t;
        if (WHAT == 0) {
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        } else if (WHAT == 1) {
            t = (unsigned long long)clock64();
        } else {
            longlong2 v;
            v.x = i;
            v.y = acc;
            *(longlong2 *)&rec[2] = v;
            *(longlong2 *)&rec[4] = v;
            if (WHAT == 2)
                asm volatile("st.release.gpu.b64 [%0], %1;" : : "l"(&rec[0]), "l"(1LL) : "memory");
            else
                asm volatile("st.volatile.global.b64 [%0], %1;" : : "l"(&rec[0]), "l"(1LL) : "memory");
            t = (unsigned long long)clock64();
        }
        acc += (long long)t;
        if (acc == 42)
            break;
    }
    long long c1 = clock64();
    if (threadIdx.x == 0)
        cycles[0] = c1 - c0;
    if (acc == 43)
        rec[1] = acc;
}

} // namespace

extern "C" int BENCH_FN(bench_probe)(int what, int iters, long long *cycles, long long *rec,
                                     cudaStream_t st)
{
    switch (what) {
    case 0: probe<0><<<1, 32, 0, st>>>(iters, cycles, rec); break;
    case 1: probe<1><<<1, 32, 0, st>>>(iters, cycles, rec); break;
    case 2: probe<2><<<1, 32, 0, st>>>(iters, cycles, rec); break;
    default: probe<3><<<1, 32, 0, st>>>(iters, cycles, rec); break;
    }
    return (int)cudaGetLastError();
}

extern "C" int BENCH_FN(bench_loop)(int kind, int iters, long long *cycles, float *sink,
                                    long long *times, pt_dev_buf buf, cudaStream_t st)
{
    switch (kind) {
    case 0: loop_bare<<<1, 32, 0, st>>>(iters, 1.0f, cycles, sink); break;
    case 1:
        loop_marks<<<1, 32, 0, st>>>(iters, 1.0f, cycles, sink, phase_const<0>(),
                                     phase_const<2>(), buf);
        break;
    case 2: loop_marks<<<1, 32, 0, st>>>(iters, 1.0f, cycles, sink, 0, 2, buf); break;
    case 3: loop_by_hand<false><<<1, 32, 0, st>>>(iters, 1.0f, cycles, sink, times); break;
    case 4: loop_by_hand<true><<<1, 32, 0, st>>>(iters, 1.0f, cycles, sink, times); break;
    default:
        loop_marks<phase_const<0>, phase_const<2>, true>
            <<<1, 32, 0, st>>>(iters, 1.0f, cycles, sink, phase_const<0>(), phase_const<2>(), buf);
        break;
    }
    return (int)cudaGetLastError();
}

extern "C" int BENCH_FN(bench_end)(long long *cycles, pt_dev_buf buf, cudaStream_t st)
{
    end_cost<<<1, 32, 0, st>>>(cycles, buf);
    return (int)cudaGetLastError();
}
