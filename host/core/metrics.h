/* The bytes and FLOPS a section carries (metrics.c): checked, then added
 * with every sum held at the largest double. Not installed. */
#ifndef PT_CORE_METRICS_H
#define PT_CORE_METRICS_H

#include "core/model.h"

#include <float.h>

/* No metric given: the common call, which costs no call. */
static inline int pt__metrics_empty(const pt_metrics *m)
{
    return !m || (m->read == 0 && m->written == 0 && m->flops == 0);
}

/* The hot path's add: m into s when every value is finite and >= 0 and
 * no sum passes the largest double (no metric at all included); else 0,
 * nothing added, and the caller takes the checked way. */
static inline int pt__metrics_add_fast(pt_section *s, const pt_metrics *m)
{
    double r, w, f;

    if (pt__metrics_empty(m))
        return 1;
    r = s->read + m->read;
    w = s->written + m->written;
    f = s->flops + m->flops;
    /* NaN fails every compare; an infinity or an overflow fails the last three. */
    if (!(m->read >= 0 && m->written >= 0 && m->flops >= 0 && r <= DBL_MAX && w <= DBL_MAX &&
          f <= DBL_MAX))
        return 0;
    s->read = r;
    s->written = w;
    s->flops = f;
    return 1;
}

/* 1 when v may be a metric: finite and >= 0. */
PT__HIDDEN int pt__metric_ok(double v);
/* a + b held at the largest double; *sat set when it had to be. */
PT__HIDDEN double pt__sat_add(double a, double b, int *sat);
/* m added to s, each sum held at the largest double. A metric that is not
 * finite and >= 0 refuses the whole call (nothing added); it, or a sum
 * held, is PT_ERANGE, described as the call `where`. */
PT__HIDDEN int pt__add_metrics(pt_timing *t, pt_section *s, const pt_metrics *m,
                               const char *where);

#endif
