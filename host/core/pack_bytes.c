/* The packed format's primitives (pack.h): little-endian integers and
 * IEEE-754 doubles written into a growing buffer, and read back with
 * every length checked against the bytes left. */
#include "core/pack.h"

#include "pt_hist.h"

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


void pt__pk_put_hist(pt__wbuf *w, const uint64_t *hist)
{
    uint32_t nbins = 0;

    for (int k = 0; hist && k < PT__HIST_BINS; k++)
        nbins += hist[k] > 0;
    pt__pk_put_u(w, nbins, 4);
    for (int k = 0; nbins && k < PT__HIST_BINS; k++)
        if (hist[k] > 0) {
            pt__pk_put_u(w, (uint64_t)k, 2);
            pt__pk_put_u(w, hist[k], 8);
        }
}

int pt__pk_get_hist(pt__rbuf *r, uint64_t **hist, uint64_t most, const char *what,
                    const char *too_many)
{
    uint64_t nbins, bin, count, total = 0;
    long long prev = -1;

    if (pt__pk_get_u(r, &nbins, 4, what) < 0)
        return PT_EPARSE;
    if (nbins > PT__HIST_BINS || nbins > (r->n - r->at) / 10)
        return pt__pk_fault(r, "more histogram bins than there are, or than bytes left");
    if (nbins && !*hist && !(*hist = calloc(PT__HIST_BINS, sizeof **hist)))
        return PT_ENOMEM;
    for (uint64_t i = 0; i < nbins; i++) {
        if (pt__pk_get_u(r, &bin, 2, what) < 0 || pt__pk_get_u(r, &count, 8, what) < 0)
            return PT_EPARSE;
        if ((long long)bin <= prev || bin >= PT__HIST_BINS || count == 0)
            return pt__pk_fault(r, "histogram bins out of order, out of range or empty");
        if (count > most - total)
            return pt__pk_fault(r, too_many);
        total += count;
        (*hist)[bin] = count;
        prev = (long long)bin;
    }
    return 0;
}

void pt__pk_put_str(pt__wbuf *w, const char *s)
{
    size_t n = strlen(s);
    pt__pk_put_u(w, n, 4);
    pt__pk_put(w, s, n);
}

int pt__pk_get_str(pt__rbuf *r, char **s, const char *what, const char *bad)
{
    uint64_t len;

    *s = NULL;
    if (pt__pk_get_u(r, &len, 4, what) < 0)
        return PT_EPARSE;
    if (len > r->n - r->at || memchr(r->p + r->at, '\0', (size_t)len))
        return pt__pk_fault(r, bad);
    if (!(*s = malloc((size_t)len + 1)))
        return PT_ENOMEM;
    memcpy(*s, r->p + r->at, (size_t)len);
    (*s)[len] = '\0';
    r->at += (size_t)len;
    return 0;
}
