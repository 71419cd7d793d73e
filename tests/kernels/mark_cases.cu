/* Marks under nvcc that must build or must stop the build, compiled once
 * per CASE by tests/kernels/kernels.mk (-Werror all-warnings); tests/
 * dev_header.c reads the outcomes. Case 1: run-time phases (a parameter, a
 * loop's index, an array's value) build. Case 2: a constant phase past
 * PT_DEV_PHASES, defined after the include, stops the build saying so.
 * Case 3: an enumerator as a template argument, marked in a helper, past
 * the count. Case 4: a negative constant. Case 5: a mark with no BEGIN
 * before it, which names BEGIN and PT_DEV_MARK_IN. */
#include <pt/pt_dev.h>

#if CASE == 1
static __device__ __forceinline__ void helper(pt_dev_state *st, int phase)
{
    PT_DEV_MARK_IN(st, phase);
}

/* Host and device: the host compiler's -Wextra sees the check too, on an
 * unsigned enumerator (no "comparison always false"). */
enum uphase : unsigned { U_LOAD, U_STORE };
static __host__ __device__ void both(pt_dev_buf buf, unsigned char small)
{
    PT_DEV_BEGIN_AT(buf, 0);
    PT_DEV_MARK(U_STORE);
    PT_DEV_MARK(small);
    PT_DEV_END(buf);
}

void host_side(pt_dev_buf buf);
void host_side(pt_dev_buf buf)
{
    both(buf, 1);
}

__global__ void runtime_phases(pt_dev_buf buf, const int *which, int n)
{
    PT_DEV_BEGIN(buf);
    for (int i = 0; i < n; i++)
        PT_DEV_MARK(i % 20);
    PT_DEV_MARK(which[threadIdx.x]);
    helper(PT_DEV_STATE, n);
    PT_DEV_MARK(PT_DEV_PHASES - 1);
    PT_DEV_END(buf);
}
#elif CASE == 2
#  define PT_DEV_PHASES 2
__global__ void past_the_count(pt_dev_buf buf)
{
    PT_DEV_BEGIN(buf);
    PT_DEV_MARK(1);
    PT_DEV_MARK(2);
    PT_DEV_END(buf);
}
#elif CASE == 3
enum phase { LOAD, MATH, STORE };
#  define PT_DEV_PHASES 2
template <int P> static __device__ void helper(pt_dev_state *st)
{
    PT_DEV_MARK_IN(st, P);
}

__global__ void template_phase(pt_dev_buf buf)
{
    PT_DEV_BEGIN(buf);
    helper<LOAD>(PT_DEV_STATE);
    helper<STORE>(PT_DEV_STATE);
    PT_DEV_END(buf);
}
#elif CASE == 4
__global__ void negative(pt_dev_buf buf)
{
    PT_DEV_BEGIN(buf);
    PT_DEV_MARK(-1);
    PT_DEV_END(buf);
}
#elif CASE == 5
__global__ void no_begin(float *x)
{
    x[0] = 1;
    PT_DEV_MARK(0);
}
#endif
