/* The packed format's primitives (pack.h): little-endian integers and
 * IEEE-754 doubles written into a growing buffer, and read back with
 * every length checked against the bytes left. */
#include "core/pack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pt__pk_put(pt__wbuf *w, const void *src, size_t n)
{
    if (w->oom)
        return;
    if (w->cap - w->n < n) {
        size_t cap = w->cap ? w->cap : 256;
        unsigned char *q;
        while (cap - w->n < n)
            cap *= 2;
        q = realloc(w->p, cap);
        if (!q) {
            w->oom = 1;
            return;
        }
        w->p = q;
        w->cap = cap;
    }
    memcpy(w->p + w->n, src, n);
    w->n += n;
}

void pt__pk_put_u(pt__wbuf *w, uint64_t v, int bytes)
{
    unsigned char b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    pt__pk_put(w, b, (size_t)bytes);
}

void pt__pk_put_f(pt__wbuf *w, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    pt__pk_put_u(w, v, 8);
}

/* Notes the first fault and where; returns PT_EPARSE. */
int pt__pk_fault(pt__rbuf *r, const char *why)
{
    if (!r->why) {
        r->why = why;
        r->why_at = r->at;
    }
    return PT_EPARSE;
}

int pt__pk_get_u(pt__rbuf *r, uint64_t *v, int bytes, const char *what)
{
    if (r->n - r->at < (size_t)bytes) {
        r->cut = !r->why;
        return pt__pk_fault(r, what);
    }
    *v = 0;
    for (int i = 0; i < bytes; i++)
        *v |= (uint64_t)r->p[r->at + (size_t)i] << (8 * i);
    r->at += (size_t)bytes;
    return 0;
}

int pt__pk_get_f(pt__rbuf *r, double *d, const char *what)
{
    uint64_t v;
    if (pt__pk_get_u(r, &v, 8, what) < 0)
        return PT_EPARSE;
    memcpy(d, &v, sizeof *d);
    if (!isfinite(*d))
        return pt__pk_fault(r, "a figure that is not a finite number");
    if (*d < 0)
        return pt__pk_fault(r, "a negative figure (times, spreads, bytes and FLOPS are >= 0)");
    return 0;
}

/* a <= b, but for the last bits of rounding: sums and Welford's mean are
 * rounded once per occurrence merged or recorded. */
int pt__pk_at_most(double a, double b)
{
    return a <= b + fabs(b) * 1e-9;
}

