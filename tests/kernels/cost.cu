/* Small kernels that isolate what each macro costs in code, for
 * bench-static: the same rolled loop of dependent arithmetic, bare, with
 * BEGIN and END around it and one mark in it (for several PT_DEV_PHASES,
 * which each macro reads where it stands), with eight marks, with one mark
 * of a phase known only at run time, and with the hand-written pattern.
 *
 *   a mark            (marks8 - marks1) / 7
 *   BEGIN + END (n)   end_n - bare - a mark
 *   a run-time mark   dyn_n6 - end_n6 + a mark - a mark
 *   by hand           (hand8 - hand1) / 7 a mark, hand1 - bare - that the rest */
#include <pt/pt_dev.h>

#define STEP(x) ((x) = (x) * 1.0001f + 0.5f)

extern "C" __global__ void cost_bare(float *y, int iters, pt_dev_buf buf)
{
    float x = y[threadIdx.x];
    (void)buf;
#pragma unroll 1
    for (int i = 0; i < iters; i++)
        STEP(x);
    y[threadIdx.x] = x;
}

/* BEGIN, one mark in the loop, END; PT_DEV_PHASES as each kernel says. */
#define COST_END(name)                                    \
    extern "C" __global__ void name(float *y, int iters, pt_dev_buf buf) \
    {                                                     \
        float x = y[threadIdx.x];                         \
        PT_DEV_BEGIN(buf);                                \
        _Pragma("unroll 1") for (int i = 0; i < iters; i++) { \
            STEP(x);                                      \
            PT_DEV_MARK(0);                               \
        }                                                 \
        y[threadIdx.x] = x;                               \
        PT_DEV_END(buf);                                  \
    }

#undef PT_DEV_PHASES
#define PT_DEV_PHASES 1
COST_END(cost_end_n1)
#undef PT_DEV_PHASES
#define PT_DEV_PHASES 3
COST_END(cost_end_n3)
#undef PT_DEV_PHASES
#define PT_DEV_PHASES 6
COST_END(cost_end_n6)

/* A phase read from memory: the mark tests it against each of the 6. */
extern "C" __global__ void cost_dyn_n6(float *y, const int *ph, int iters, pt_dev_buf buf)
{
    float x = y[threadIdx.x];
    PT_DEV_BEGIN(buf);
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        STEP(x);
        PT_DEV_MARK(ph[i]);
    }
    y[threadIdx.x] = x;
    PT_DEV_END(buf);
}

#undef PT_DEV_PHASES
#define PT_DEV_PHASES 8
COST_END(cost_marks1)

extern "C" __global__ void cost_marks8(float *y, int iters, pt_dev_buf buf)
{
    float x = y[threadIdx.x];
    PT_DEV_BEGIN(buf);
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        STEP(x);
        PT_DEV_MARK(0);
        STEP(x);
        PT_DEV_MARK(1);
        STEP(x);
        PT_DEV_MARK(2);
        STEP(x);
        PT_DEV_MARK(3);
        STEP(x);
        PT_DEV_MARK(4);
        STEP(x);
        PT_DEV_MARK(5);
        STEP(x);
        PT_DEV_MARK(6);
        STEP(x);
        PT_DEV_MARK(7);
    }
    y[threadIdx.x] = x;
    PT_DEV_END(buf);
}

/* pt_dev.h's default: no phase count given, so END writes 16 pairs. */
#undef PT_DEV_PHASES
#define PT_DEV_PHASES PT_DEV_MAX_PHASES
COST_END(cost_end_n16)

/* The hand-written pattern, one clock64 read per mark and thread 0's
 * read-modify-write of times[block * 8 + phase]. */
#define HAND_BEGIN                                                                         \
    float x = y[threadIdx.x];                                                              \
    const int rec = (threadIdx.x | threadIdx.y | threadIdx.z) == 0;                        \
    long long t0 = clock64();                                                              \
    times += (long long)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) * 8
#define HAND_MARK(p)                                      \
    do {                                                  \
        long long t1_ = clock64();                        \
        if (rec)                                          \
            times[p] += t1_ - t0;                         \
        t0 = t1_;                                         \
    } while (0)

extern "C" __global__ void cost_hand1(float *y, int iters, long long *times)
{
    HAND_BEGIN;
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        STEP(x);
        HAND_MARK(0);
    }
    y[threadIdx.x] = x;
}

extern "C" __global__ void cost_hand8(float *y, int iters, long long *times)
{
    HAND_BEGIN;
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        STEP(x);
        HAND_MARK(0);
        STEP(x);
        HAND_MARK(1);
        STEP(x);
        HAND_MARK(2);
        STEP(x);
        HAND_MARK(3);
        STEP(x);
        HAND_MARK(4);
        STEP(x);
        HAND_MARK(5);
        STEP(x);
        HAND_MARK(6);
        STEP(x);
        HAND_MARK(7);
    }
    y[threadIdx.x] = x;
}
