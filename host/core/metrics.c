/* Metrics: the bytes read and written and the FLOPS a section declares, on
 * its start, its stop or while it is open. A value that is not finite and
 * >= 0 is refused whole (PT_ERANGE, nothing of that call added), and sums
 * that would pass the largest double are held there and said, so a
 * section's figures, rates and saved runs never hold an infinity. */
#include "core/metrics.h"

#include "core/errors.h"

#include <float.h>
#include <math.h>

int pt__metric_ok(double v)
{
    return isfinite(v) && v >= 0;
}

double pt__sat_add(double a, double b, int *sat)
{
    double v = a + b;
    if (v > DBL_MAX) {
        *sat = 1;
        return DBL_MAX;
    }
    return v;
}

static int check(pt_timing *t, const pt_metrics *m, const char *where)
{
    if (pt__metrics_empty(m))
        return 0;
    if (!pt__metric_ok(m->read) || !pt__metric_ok(m->written) || !pt__metric_ok(m->flops))
        return pt__fail(t, PT_ERANGE,
                        "%s: metrics must be finite and >= 0 (read=%g written=%g flops=%g); ignored",
                        where, m->read, m->written, m->flops);
    return 0;
}

int pt__add_metrics(pt_timing *t, pt_section *s, const pt_metrics *m, const char *where)
{
    int rc, sat = 0;

    if (pt__metrics_empty(m))
        return 0;
    rc = check(t, m, where);
    if (rc)
        return rc;
    s->read = pt__sat_add(s->read, m->read, &sat);
    s->written = pt__sat_add(s->written, m->written, &sat);
    s->flops = pt__sat_add(s->flops, m->flops, &sat);
    if (sat)
        return pt__fail(t, PT_ERANGE,
                        "%s(\"%s\"): its bytes or FLOPS pass the largest double with read=%g "
                        "written=%g flops=%g; held at %g (saturated)",
                        where, s->name, m->read, m->written, m->flops, DBL_MAX);
    return 0;
}
