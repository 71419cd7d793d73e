/* Roofline: the machine's peak bandwidth and FLOP/s, from the user or
 * from the CUDA device's attributes, which the GPU side reads when a
 * timing used a device and no peaks were given (gpu/gpu.c, through
 * pt__peaks_resolve).
 *
 * Device peaks are theoretical and FP32:
 *   bandwidth = memory clock (cudaDevAttrMemoryClockRate, kHz) x bus width
 *               (cudaDevAttrGlobalMemoryBusWidth, bits) / 8 x 2 (double data rate)
 *   FLOP/s    = SMs x SM clock (cudaDevAttrClockRate, kHz) x FP32 lanes per SM
 *               x 2 (an FMA is two FLOPs)
 * FP64, tensor-core and sparse peaks differ, so a section doing FP64 or
 * tensor-core work should be read against peaks given with pt_peaks_set().
 * The lanes per SM come from NVIDIA's CUDA C Programming Guide
 * ("Arithmetic Instructions", 32-bit floating-point add, multiply,
 * multiply-add, per clock per SM):
 *   3.x 192; 5.x 128; 6.0 64; 6.1, 6.2 128; 7.x 64; 8.0 64; 8.6, 8.7, 8.9 128;
 *   9.0 128; 10.x, 11.x, 12.x 128.
 * An architecture not in the table gives no device peaks rather than a guess. */
#include "core/roofline.h"

#include "core/errors.h"
#include "core/timing.h"

#include <math.h>

int pt__fp32_lanes(int major, int minor)
{
    switch (major) {
    case 3: return 192;
    case 5: return 128;
    case 6: return minor == 0 ? 64 : 128;
    case 7: return 64;
    case 8: return minor == 0 ? 64 : 128;
    case 9: return 128;
    case 10:
    case 11:
    case 12: return 128;
    default: return 0;
    }
}

int pt_peaks_set(pt_timing *t, double bytes_per_s, double flops_per_s)
{
    if (!t)
        return 0;
    if (bytes_per_s == 0 && flops_per_s == 0) {
        t->peak_bw = t->peak_flops = 0;
        t->peak_src = PT__PEAKS_NONE;
        return 0;
    }
    if (!isfinite(bytes_per_s) || !isfinite(flops_per_s) || !(bytes_per_s > 0) ||
        !(flops_per_s > 0))
        return pt__fail(t, PT_ERANGE,
                        "pt_peaks_set: peaks must be finite and > 0 (bytes/s %g, FLOP/s %g); "
                        "both 0 forgets them", bytes_per_s, flops_per_s);
    t->peak_bw = bytes_per_s;
    t->peak_flops = flops_per_s;
    t->peak_src = PT__PEAKS_USER;
    return 0;
}

int pt_peaks_get(pt_timing *t, pt_peaks *out)
{
    if (!out)
        return t ? pt__fail(t, PT_EINVAL, "pt_peaks_get: NULL out") : PT_EINVAL;
    out->bytes_per_s = out->flops_per_s = 0;
    out->source = "none";
    if (!t)
        return 0;
    pt__peaks_resolve(t);
    if (t->peak_src == PT__PEAKS_USER || t->peak_src == PT__PEAKS_DEVICE) {
        out->bytes_per_s = t->peak_bw;
        out->flops_per_s = t->peak_flops;
        out->source = t->peak_src == PT__PEAKS_USER ? "user" : "device";
    }
    return 0;
}

const char *pt__bound_name(int bound)
{
    return bound == PT_BOUND_MEMORY ? "memory" : bound == PT_BOUND_COMPUTE ? "compute" : "unknown";
}

/* The previous name, kept for one release (pt.h). */
int pt_set_peaks(pt_timing *t, double bytes_per_s, double flops_per_s)
{
    return pt_peaks_set(t, bytes_per_s, flops_per_s);
}
