// A kernel library that records phases but never calls the host library:
// it needs ptkit::device (the header) and no libptkit. Its phases come from
// a ptgen list, generated at build time.
#include <pt/pt_dev.h>

#include "phases.h"

__global__ void scale(float *x, int n, pt_dev_buf buf)
{
    PT_DEV_BEGIN(buf);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    PT_DEV_MARK(PH_INDEX);
    if (i < n)
        x[i] *= 2.0f;
    PT_DEV_MARK(PH_SCALE);
    PT_DEV_END(buf);
}
