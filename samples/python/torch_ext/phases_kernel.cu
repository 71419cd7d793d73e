/* The torch sample's kernel (the samples' shared three_phases.cuh) and
 * its launcher, in plain C types so they build without torch. */
#include "../three_phases.cuh"

#include "phases_kernel.h"

#include <string.h>

static_assert(PHASES_TILE == THREE_PHASES_TILE, "the binding sizes y by PHASES_TILE");

static __global__ void phases_step(const float *x, float *y, int n, int rounds, pt_dev_buf buf)
{
    three_phases(x, y, n, rounds, buf);
}

extern "C" int phases_arg_from_bytes(const void *bytes, size_t n, pt_dev_buf *out)
{
    pt_dev_buf b;
    if (!bytes || !out || n != sizeof b)
        return -1;
    memcpy(&b, bytes, sizeof b);
    /* A buffer for other phases would record into the wrong rows. */
    if (b.data && b.nphases != PH_COUNT)
        return -1;
    *out = b;
    return 0;
}

extern "C" int phases_launch(const float *x, float *y, int n, int rounds, pt_dev_buf buf,
                             void *stream)
{
    int blocks = (n + THREE_PHASES_TILE - 1) / THREE_PHASES_TILE;
    phases_step<<<blocks, THREE_PHASES_TILE, 0, (cudaStream_t)stream>>>(x, y, n, rounds, buf);
    return (int)cudaGetLastError();
}
