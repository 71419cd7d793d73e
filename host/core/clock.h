/* The host clock a timing reads at every start and stop (clock.c).
 * Not installed. */
#ifndef PT_CORE_CLOCK_H
#define PT_CORE_CLOCK_H

#include "core/model.h"

/* The built-in clock for t: the TSC where it is invariant and PT_NO_TSC
 * is not asked, else CLOCK_MONOTONIC; with PT_TRACE, the run's origin. */
PT__HIDDEN void pt__clock_init(pt_timing *t);
PT__HIDDEN int64_t pt__mono_ns(void);                /* CLOCK_MONOTONIC */
PT__HIDDEN const char *pt__clock_name(const pt_timing *t);
/* ns per TSC tick as calibrated for this process; 0 without a usable TSC. */
PT__HIDDEN double pt__tsc_ns_per_tick(void);

/* The clock when it is not the TSC: a user clock or clock_gettime. */
PT__HIDDEN int64_t pt__now_other(const pt_timing *t);
/* The clock in ticks: inline, since every start and stop reads it; the
 * TSC without a call, the others through one. */
static inline int64_t pt__now(const pt_timing *t)
{
#if PT__HAVE_TSC
    if (__builtin_expect(t->clock_kind == PT__CLOCK_TSC, 1))
        return (int64_t)__rdtsc();
#endif
    return pt__now_other(t);
}

/* ns from t0 to t1 (ticks), computed without overflow at any values; a
 * clock that went back (t1 < t0: a user clock can) gives 0. Inline, for
 * every stop. */
static inline double pt__span_ns(const pt_timing *t, int64_t t0, int64_t t1)
{
    return t1 >= t0 ? (double)((uint64_t)t1 - (uint64_t)t0) * t->ns_per_tick : 0;
}
/* Counts and describes a clock that went back from t0 to t1 for fn's
 * title; returns PT_ERANGE. */
PT__HIDDEN int pt__clock_back(pt_timing *t, const char *fn, const char *title, int64_t t0,
                              int64_t t1);

#endif
