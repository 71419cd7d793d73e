/* Clock calibration: how many clock64() cycles one %globaltimer nanosecond
 * holds on this GPU, and how coarsely %globaltimer ticks.
 *
 * One thread does everything, on one SM, while nothing else of ptkit runs:
 *   1. reads %globaltimer until it has seen PT__CAL_STEPS steps (or `reads`
 *      reads) and keeps the smallest nonzero step: the tick (32 ns to 1 us
 *      depending on GPU and driver, or the read's own latency where the
 *      timer is finer than that);
 *   2. spins for half the measuring time, so the SM clock has left any idle
 *      state before the measurement starts;
 *   3. waits for a globaltimer edge, reads clock64, spins the measuring
 *      time, waits for the next edge and reads clock64 again. Both ends sit
 *      on tick edges, so the globaltimer span is exact to the edge and the
 *      rate's error is at most a tick (the read's latency) over the span.
 *      The span is PT__CAL_SPAN_TICKS ticks, at least PT__CAL_SPAN_MIN_NS
 *      and at most `spin_ns`: 2 ms where the tick is 1 us, 64 us where it is
 *      32 ns, so the rate is within 5e-4 either way, and a simulated GPU,
 *      whose every cycle costs microseconds of host time, is not kept
 *      spinning for milliseconds of its time.
 * Every wait is bounded in cycles, so a globaltimer that never moves ends
 * the kernel with a zero tick (which the host rejects) instead of hanging.
 *
 * Then it measures what a PT_DEV_MARK costs, as user kernels compile it
 * (pt_dev.h's own macros, a constant phase, aggregate records): marks back
 * to back, four phases in turn so that no phase's sum telescopes into two
 * clock reads, 32 a loop turn. Each mark charges the cycles since the
 * previous one, which with nothing between them is the mark's own cost:
 * its clock read and its bookkeeping. The host takes that many cycles per
 * hit out of every phase a fold reports.
 *
 * out is laid out as device/pt_calibrate.h says. Built into a fatbin and
 * embedded in libptkit (device/device.mk); host/gpu/calibrate.c launches
 * it by name. */
#include "pt_calibrate.h"

#include <pt/pt_dev.h>

/* Loop turns of 32 marks. */
#define PT__CAL_MARK_TURNS 64
/* Globaltimer steps that find the tick, and the measuring span in ticks
 * and its floor (see the top of this file). */
#define PT__CAL_STEPS 256
#define PT__CAL_SPAN_TICKS 2000ULL
#define PT__CAL_SPAN_MIN_NS 20000ULL

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

/* The cycles PT__CAL_MARK_TURNS x 32 marks charged and the marks counted,
 * read back from their record at out + PT__CAL_REC. */
static __device__ void pt__mark_cost(long long *out)
{
    long long *rec = out + PT__CAL_REC;
    pt_dev_buf b;

    for (long long i = 0; i < PT_DEV_BUF_WORDS(1, PT__CAL_MARK_PHASES, 0); i++)
        rec[i] = 0;
    b.data = rec;
    b.nslots = 1;
    b.nphases = PT__CAL_MARK_PHASES;
    b.trace_cap = 0;
    b.mode = PT_DEV_MODE_AGGREGATE;
    {
        PT_DEV_BEGIN_AT(b, 0);
        for (int turn = 0; turn < PT__CAL_MARK_TURNS; turn++) {
#pragma unroll
            for (int k = 0; k < 8; k++)
                PT__CAL_MARKS();
        }
        PT_DEV_END(b);
    }
    pt__cal_marks_read(rec, &out[PT__CAL_MARK_CYCLES], &out[PT__CAL_MARKS]);
}

extern "C" __global__ void pt_calibrate(long long *out, int reads, long long spin_ns)
{
    unsigned long long prev, now, tick = 0, t0, t1, start, span;
    long long c0, c1, guard;
    unsigned smid;
    int steps = 0;

    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    out[PT__CAL_TICK] = out[PT__CAL_CYCLES] = out[PT__CAL_NS] = 0;
    out[PT__CAL_MARK_CYCLES] = out[PT__CAL_MARKS] = 0;
    out[PT__CAL_SMID] = smid;

    prev = pt__gt();
    for (int i = 0; i < reads && steps < PT__CAL_STEPS; i++) {
        now = pt__gt();
        if (now != prev) {
            if (tick == 0 || now - prev < tick)
                tick = now - prev;
            prev = now;
            steps++;
        }
    }
    span = PT__CAL_SPAN_TICKS * tick;
    span = span > PT__CAL_SPAN_MIN_NS ? span : PT__CAL_SPAN_MIN_NS;
    span = span < (unsigned long long)spin_ns ? span : (unsigned long long)spin_ns;

    start = pt__gt();
    guard = clock64();
    while (pt__gt() - start < span / 2)
        if (clock64() - guard > PT__CAL_MAX_WAIT)
            return;

    if ((t0 = pt__edge()) == 0)
        return;
    c0 = clock64();
    while (pt__gt() - t0 < span)
        if (clock64() - c0 > PT__CAL_MAX_WAIT)
            return;
    if ((t1 = pt__edge()) == 0)
        return;
    c1 = clock64();

    out[PT__CAL_TICK] = (long long)tick;
    out[PT__CAL_CYCLES] = c1 - c0;
    out[PT__CAL_NS] = (long long)(t1 - t0);
    pt__mark_cost(out);
}
