/* The compile checks in C++ (nvcc, .cu): templates, a namespace, phases as
 * an enum class, and one record per warp. Kernel names end in marksN as in
 * phases_c.c. */
#define PT_DEV_PER_WARP 1
#include <pt/pt_dev.h>

namespace kern {

enum class step : int { scatter, absorb, emit };

template <int N, typename T>
__device__ T relax(T v)
{
#pragma unroll
    for (int k = 0; k < N; k++)
        v = v * T(0.75) + T(0.125);
    return v;
}

template <typename T>
__global__ void templ_marks3(T *x, int iters, pt_dev_buf buf)
{
    T v = x[threadIdx.x];
    PT_DEV_BEGIN(buf);
#pragma unroll 1
    for (int it = 0; it < iters; it++) {
        v = relax<4>(v);
        PT_DEV_MARK(step::scatter);
        v = relax<2>(v) + T(1);
        PT_DEV_MARK(step::absorb);
        v = v > T(2) ? v - T(1) : v;
        PT_DEV_MARK(step::emit);
    }
    x[threadIdx.x] = v;
    PT_DEV_END(buf);
}

template __global__ void templ_marks3<float>(float *, int, pt_dev_buf);
template __global__ void templ_marks3<double>(double *, int, pt_dev_buf);

} // namespace kern
