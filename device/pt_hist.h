/* The histogram of a folded phase's per-block times (the host's
 * statistics and the device reduction share it; device code includes
 * nothing of host/): 16 bins per octave
 * from 1 ns to 2^36 ns (69 s), each 1/16 of its octave wide, so a time's
 * bin is read off its double's bits (the exponent and 4 mantissa bits),
 * alike on the host and in the device reduction (device/pt_fold_math.h),
 * and a bin's geometric middle is within 3.2% of any time in it. Below
 * 1 ns is bin 0; from 2^36 ns the last. Plain C11 and CUDA C++. Not
 * installed. */
#ifndef PT_DEVICE_HIST_H
#define PT_DEVICE_HIST_H

#define PT__HIST_OCTAVES 36
#define PT__HIST_SUB 16
#define PT__HIST_BINS (PT__HIST_OCTAVES * PT__HIST_SUB)

#if defined(__CUDACC__)
#  define PT__HIST_FN static __host__ __device__ __forceinline__
#else
#  define PT__HIST_FN static inline
#endif

/* The bits of 1.0 shifted to the exponent and the top 4 mantissa bits. */
#define PT__HIST_ONE (1023LL << 4)

PT__HIST_FN unsigned long long pt__hist_bits(double v)
{
#if defined(__CUDA_ARCH__)
    return (unsigned long long)__double_as_longlong(v);
#else
    union { double d; unsigned long long u; } w;
    w.d = v;
    return w.u;
#endif
}

/* The bin of a time of ns >= 0 nanoseconds. */
PT__HIST_FN int pt__hist_bin(double ns)
{
    long long k = (long long)(pt__hist_bits(ns) >> 48) - PT__HIST_ONE;
    return k < 0 ? 0 : k >= PT__HIST_BINS ? PT__HIST_BINS - 1 : (int)k;
}

/* The times bin k holds: [lo, hi) nanoseconds. */
PT__HIST_FN void pt__hist_edges(int k, double *lo, double *hi)
{
    union { double d; unsigned long long u; } a, b;
    a.u = (unsigned long long)(PT__HIST_ONE + k) << 48;
    b.u = (unsigned long long)(PT__HIST_ONE + k + 1) << 48;
    *lo = a.d;
    *hi = b.d;
}

#endif
