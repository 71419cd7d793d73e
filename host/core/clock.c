/* The host clock. Where the CPU has an invariant TSC (x86-64, CPUID
 * 0x80000007 EDX bit 8), sections read it directly: a read costs about a
 * third of clock_gettime(CLOCK_MONOTONIC). It is calibrated once per
 * process against CLOCK_MONOTONIC. Elsewhere, and with PT_NO_TSC,
 * clock_gettime is the clock. A user clock (pt_clock_set) overrides both.
 *
 * A PT_TRACE timing also keeps the run's origin, the clock's value when it
 * was made or last given a clock: the trace's times count from it. Every
 * timing keeps the wall clock of that moment. */
#include "core/clock.h"
#include "core/threads.h"

#include "core/errors.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if PT__HAVE_TSC
#  include <cpuid.h>
#endif

int64_t pt__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t pt__now_other(const pt_timing *t)
{
    if (t->clock_kind == PT__CLOCK_USER)
        return t->clock_fn(t->clock_ctx);
    return pt__mono_ns();
}

static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;
static double tsc_ns_per_tick; /* 0: no usable TSC */

#if PT__HAVE_TSC
static int tsc_invariant(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __cpuid(0x80000007u, a, b, c, d);
    return (d >> 8) & 1;
}

/* One TSC/monotonic pair, taken where the two reads are closest together,
 * so a preemption between them cannot skew the calibration. */
static void tsc_pair(uint64_t *tsc, int64_t *ns)
{
    uint64_t best = UINT64_MAX;
    *tsc = 0;
    *ns = 0;
    for (int i = 0; i < 5; i++) {
        uint64_t a = __rdtsc();
        int64_t m = pt__mono_ns();
        uint64_t b = __rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = m;
        }
    }
}

static void tsc_calibrate(void)
{
    const char *env = getenv("PT_NO_TSC");
    uint64_t c0 = 0, c1 = 0;
    int64_t n0 = 0, n1 = 0;

    if ((env && *env && strcmp(env, "0") != 0) || !tsc_invariant())
        return;
    /* 2 ms against a clock read of ~30 ns: an error near 3e-5. */
    tsc_pair(&c0, &n0);
    do
        tsc_pair(&c1, &n1);
    while (n1 - n0 < 2000000);
    if (c1 > c0)
        tsc_ns_per_tick = (double)(n1 - n0) / (double)(c1 - c0);
}
#else
static void tsc_calibrate(void) {}
#endif

double pt__tsc_ns_per_tick(void)
{
    pthread_once(&tsc_once, tsc_calibrate);
    return tsc_ns_per_tick;
}

/* Only a traced run reads its clock here: a user clock is called by the
 * starts and stops it times, and by nothing else. The wall clock is read
 * beside it, so a trace's times can be put beside another tool's
 * (baseTimeNanoseconds). */
static void mark_origin(pt_timing *t)
{
    struct timespec ts;

    if (t->flags & PT_TRACE)
        t->origin = pt__now(t);
    clock_gettime(CLOCK_REALTIME, &ts);
    t->origin_wall_ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void pt__clock_init(pt_timing *t)
{
    t->clock_fn = NULL;
    t->clock_ctx = NULL;
    t->clock_kind = PT__CLOCK_MONO;
    t->ns_per_tick = 1.0;
    if (!(t->flags & PT_NO_TSC)) {
        pthread_once(&tsc_once, tsc_calibrate);
        if (tsc_ns_per_tick > 0) {
            t->clock_kind = PT__CLOCK_TSC;
            t->ns_per_tick = tsc_ns_per_tick;
        }
    }
    mark_origin(t);
}

const char *pt__clock_name(const pt_timing *t)
{
    switch (t->clock_kind) {
    case PT__CLOCK_TSC: return "tsc";
    case PT__CLOCK_USER: return "user";
    default: return "clock_gettime";
    }
}

int pt_clock_set(pt_timing *t, pt_clock_fn fn, void *ctx)
{
    if (!t)
        return 0;
    /* Sections open on any thread, not only this one: one opened on the
     * old clock and closed on the new would last whatever the two
     * clocks' readings differ by (146 years, or 0 with "the clock went
     * back"). */
    size_t open = pt__open_count(t);
    if (open > 0) {
        char stack[256];
        pt__open_str(t, stack, sizeof stack);
        return pt__fail(t, PT_ESTATE, "pt_clock_set: refused while %zu section%s %s open (%s): "
                        "set the clock before timing, or after every thread has stopped", open,
                        open == 1 ? "" : "s", open == 1 ? "is" : "are", stack);
    }
    if (!fn) {
        pt__clock_init(t);
        return 0;
    }
    t->clock_fn = fn;
    t->clock_ctx = ctx;
    t->clock_kind = PT__CLOCK_USER;
    t->ns_per_tick = 1.0;
    /* The trace's times are from the run's start on this clock. */
    mark_origin(t);
    return 0;
}

int pt__clock_back(pt_timing *t, const char *fn, const char *title, int64_t t0, int64_t t1)
{
    return pt__fail(t, PT_ERANGE, "%s(\"%s\"): the %s clock went back by %.17g ticks (from %lld "
                    "to %lld); the occurrence counts as 0 ns", fn, title, pt__clock_name(t),
                    (double)((uint64_t)t0 - (uint64_t)t1), (long long)t0, (long long)t1);
}

/* The previous name, kept for one release (pt.h). */
int pt_set_clock(pt_timing *t, pt_clock_fn fn, void *ctx)
{
    return pt_clock_set(t, fn, ctx);
}
