/* What a warp role's marks and a span's begin and end cost in code, for
 * bench-static and tests/dev_compile.c, against a phase mark in the same
 * mode: per-warp records with trace stores (PT_DEV_PER_WARP,
 * PT_DEV_TRACING, as gpu.mk builds pipeline kernels), the same rolled loop
 * of dependent arithmetic as tests/kernels/cost.cu.
 *
 *   a phase mark          (marks8 - marks1) / 7
 *   a role's phase mark   (role8 - role1) / 7
 *   a span begin or end   (spans8 - marks1) / 8: one mark and four spans
 *                         begun and ended an iteration */
#define PT_DEV_PER_WARP
#define PT_DEV_TRACING
#define PT_DEV_PHASES 8
#include <pt/pt_dev.h>

#define STEP(x) ((x) = (x) * 1.0001f + 0.5f)
#define MARKS8(x)                                                                          \
    STEP(x);                                                                               \
    PT_DEV_MARK(0);                                                                        \
    STEP(x);                                                                               \
    PT_DEV_MARK(1);                                                                        \
    STEP(x);                                                                               \
    PT_DEV_MARK(2);                                                                        \
    STEP(x);                                                                               \
    PT_DEV_MARK(3);                                                                        \
    STEP(x);                                                                               \
    PT_DEV_MARK(4);                                                                        \
    STEP(x);                                                                               \
    PT_DEV_MARK(5);                                                                        \
    STEP(x);                                                                               \
    PT_DEV_MARK(6);                                                                        \
    STEP(x);                                                                               \
    PT_DEV_MARK(7)

/* BEGIN as `begin` says, then `body` a turn of a rolled loop, END. */
#define COST_WARP(name, begin, body)                                       \
    extern "C" __global__ void name(float *y, int iters, pt_dev_buf buf)   \
    {                                                                      \
        float x = y[threadIdx.x];                                          \
        begin;                                                             \
        _Pragma("unroll 1") for (int i = 0; i < iters; i++) { body; }      \
        y[threadIdx.x] = x;                                                \
        PT_DEV_END(buf);                                                   \
    }

COST_WARP(costw_marks1, PT_DEV_BEGIN(buf), STEP(x); PT_DEV_MARK(0))
COST_WARP(costw_marks8, PT_DEV_BEGIN(buf), MARKS8(x))
COST_WARP(costw_role1, PT_DEV_BEGIN_ROLE(buf, 1, 2), STEP(x); PT_DEV_MARK(0))
COST_WARP(costw_role8, PT_DEV_BEGIN_ROLE(buf, 1, 2), MARKS8(x))
COST_WARP(costw_spans8, PT_DEV_BEGIN(buf),
          STEP(x); PT_DEV_MARK(0); PT_DEV_SPAN_BEGIN(0, i); PT_DEV_SPAN_BEGIN(1, i);
          PT_DEV_SPAN_BEGIN(2, i); PT_DEV_SPAN_BEGIN(3, i); PT_DEV_SPAN_END(0, i);
          PT_DEV_SPAN_END(1, i); PT_DEV_SPAN_END(2, i); PT_DEV_SPAN_END(3, i))
