/* The fold's reduction on the device, for grids too large to copy back
 * cheaply: every slot record is summarized where it lies, and only the
 * summary (device/pt_fold_math.h, a few KiB) crosses PCIe.
 *
 * One thread per slot (grid-stride) runs pt__red_slot(), the same function
 * the host fold runs over copied records, whose additions are atomics
 * here. The host reads the summary exactly as it reads its own, so the two
 * paths differ only in the order of the floating-point sums. Block 0 also
 * copies the buffer header into the summary, so the host can check the
 * buffer's shape as it does for copied records.
 *
 * The shape (nslots, nphases, trace_cap) comes from the host, not from the
 * header, so a corrupted header can never send the kernel out of bounds.
 * Built into a fatbin and embedded in libptkit (device/device.mk); the fold
 * (host/gpu/fold.c) launches it by name on the launch's stream. */
#include "pt_fold_math.h"

extern "C" __global__ void pt_reduce(const long long *buf, pt__rword *res, int nslots,
                                     int nphases, int trace_cap, int nsm, double tick_ns,
                                     double ns_per_cycle, double mark_cycles)
{
    long long sw = PT_DEV_SLOT_WORDS(nphases, trace_cap), lim = pt__count_limit(nslots);
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;

    if (i < PT_DEV_HDR)
        res[i].i = buf[i];
    for (; i < nslots; i += stride)
        pt__red_slot(res, buf + PT_DEV_HDR + i * sw, nphases, nsm, tick_ns, ns_per_cycle,
                     mark_cycles, trace_cap, lim);
}
