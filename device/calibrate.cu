/* Clock calibration: how many clock64() cycles one %globaltimer nanosecond
 * holds on this GPU, and how coarsely %globaltimer ticks.
 *
 * One thread does everything, on one SM, while nothing else of ptkit runs:
 *   1. reads %globaltimer `reads` times and keeps the smallest nonzero step
 *      it sees: the tick (32 ns to 1 us depending on GPU and driver);
 *   2. spins for half the measuring time, so the SM clock has left any idle
 *      state before the measurement starts;
 *   3. waits for a globaltimer edge, reads clock64, spins `spin_ns`, waits
 *      for the next edge and reads clock64 again. Both ends sit on tick
 *      edges, so the globaltimer span is exact to the edge and the rate's
 *      error is the clock read's latency over the span, not the tick.
 * Every wait is bounded in cycles, so a globaltimer that never moves ends
 * the kernel with a zero tick (which the host rejects) instead of hanging.
 *
 * out[0] tick (ns), out[1] clock64 cycles, out[2] globaltimer ns of the
 * timed spin, out[3] %smid. Built into a fatbin and embedded in libptkit
 * (device/device.mk); host/gpu/calibrate.c launches it by name. */

/* About 5 s at 2 GHz: far beyond any tick, short of a hung kernel. */
#define PT__CAL_MAX_WAIT (10LL * 1000 * 1000 * 1000)

static __device__ __forceinline__ unsigned long long pt__gt(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Waits for the next globaltimer edge; returns the new value, or 0 when
 * it never came. */
static __device__ unsigned long long pt__edge(void)
{
    unsigned long long prev = pt__gt(), now;
    long long c0 = clock64();
    while ((now = pt__gt()) == prev)
        if (clock64() - c0 > PT__CAL_MAX_WAIT)
            return 0;
    return now;
}

extern "C" __global__ void pt_calibrate(long long *out, int reads, long long spin_ns)
{
    unsigned long long prev, now, tick = 0, t0, t1, start;
    long long c0, c1, guard;
    unsigned smid;

    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    out[0] = out[1] = out[2] = 0;
    out[3] = smid;

    prev = pt__gt();
    for (int i = 0; i < reads; i++) {
        now = pt__gt();
        if (now != prev) {
            if (tick == 0 || now - prev < tick)
                tick = now - prev;
            prev = now;
        }
    }

    start = pt__gt();
    guard = clock64();
    while (pt__gt() - start < (unsigned long long)spin_ns / 2)
        if (clock64() - guard > PT__CAL_MAX_WAIT)
            return;

    if ((t0 = pt__edge()) == 0)
        return;
    c0 = clock64();
    while (pt__gt() - t0 < (unsigned long long)spin_ns)
        if (clock64() - c0 > PT__CAL_MAX_WAIT)
            return;
    if ((t1 = pt__edge()) == 0)
        return;
    c1 = clock64();

    out[0] = (long long)tick;
    out[1] = c1 - c0;
    out[2] = (long long)(t1 - t0);
}
