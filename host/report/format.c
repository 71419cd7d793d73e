/* Numbers as the reports print them: times in milliseconds, rates, byte
 * counts in decimal units, percentages; and the time a report is made. */
#include "report/format.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* One rule for every figure of the text reports: a fixed number of
 * decimals where they show the value, and outside that range (too small
 * to show in them, or 10^15 and beyond) three significant digits in
 * exponent form, trailing zeros kept, so a column reads alike:
 * 0.012, 1.00e-05, 7.56e-05, 1.80e+302. */
static void sci(char *b, double v)
{
    snprintf(b, PT__CELL, "%.2e", v);
}

void pt__fmt_ms(char *b, double v)
{
    double a = fabs(v);
    if (v == 0 || (a >= 0.0005 && a < 1e15))
        pt__fmt_fixed(b, PT__CELL, v, 3);
    else
        sci(b, v);
}

void pt__fmt_rate(char *b, double v)
{
    if (v == 0)
        b[0] = '\0';
    else if (v >= 100 && v < 1e15)
        pt__fmt_fixed(b, PT__CELL, v, 1);
    else if (v >= 0.01 && v < 1e15)
        pt__fmt_fixed(b, PT__CELL, v, 2);
    else
        sci(b, v);
}

void pt__fmt_bytes(char *b, double v)
{
    static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
    int u = 0;
    while (v >= 1000 && u < 5) {
        v /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(b, PT__CELL, "%.0f B", v);
    else
        snprintf(b, PT__CELL, "%.1f %s", v, unit[u]);
}

void pt__fmt_pct(char *b, double v)
{
    size_t n;
    if (fabs(v) < 1e15) {
        n = pt__fmt_fixed(b, PT__CELL - 1, v, 1);
    } else {
        sci(b, v);
        n = strlen(b);
    }
    b[n] = '%';
    b[n + 1] = '\0';
}

/* ---- "%.*g" without printf -------------------------------------- */

__extension__ typedef unsigned __int128 u128;

#define P19 10000000000000000000ULL
static const u128 pow10_u128[23] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, P19, (u128)P19 * 10, (u128)P19 * 100, (u128)P19 * 1000,
};

/* Bits of a positive finite double: a = m * 2^-sh. */
static void split(double a, uint64_t *m, int *sh, int *e)
{
    uint64_t bits;

    memcpy(&bits, &a, sizeof bits);
    *e = (int)(bits >> 52);
    *m = bits & (((uint64_t)1 << 52) - 1);
    if (*e)
        *m |= (uint64_t)1 << 52;
    *sh = 1075 - (*e ? *e : 1);
}

/* m * 10^s / 2^sh rounded to nearest, ties to even, as printf rounds;
 * the truncated quotient first, so callers can check its digits.
 * 0 <= sh <= 127, s <= 22, m < 2^53. */
static u128 scaled(uint64_t m, int sh, int s, u128 *rest)
{
    u128 p = (u128)m * pow10_u128[s], d = p >> sh;
    *rest = p - (d << sh);
    return d;
}

static u128 round_even(u128 d, u128 rest, int sh)
{
    u128 half;

    if (sh == 0)
        return d;
    half = (u128)1 << (sh - 1);
    return d + (rest > half || (rest == half && (d & 1)));
}

size_t pt__fmt_fixed(char *b, size_t n, double v, int decimals)
{
    char dg[40], *p = b, *end = dg + sizeof dg;
    double a = fabs(v);
    uint64_t m, q;
    int sh, e, len;

    /* Below 10^15 with up to 3 decimals, the rounded value * 10^decimals
     * fits 64 bits; else printf. */
    if (!(a < 1e15) || decimals < 0 || decimals > 3 || n < 32)
        goto slow;
    split(a, &m, &sh, &e);
    if (sh > 127) {
        q = 0;                              /* below 2^-74: rounds to 0 */
    } else {
        u128 rest, d = scaled(m, sh, decimals, &rest);
        q = (uint64_t)round_even(d, rest, sh);
    }
    if (signbit(v))
        *p++ = '-';
    for (int i = 0; i < decimals; i++, q /= 10)
        *--end = (char)('0' + q % 10);
    if (decimals)
        *--end = '.';
    do {
        *--end = (char)('0' + q % 10);
        q /= 10;
    } while (q);
    len = (int)(dg + sizeof dg - end);
    memcpy(p, end, (size_t)len);
    p += len;
    *p = '\0';
    return (size_t)(p - b);
slow:
    /* What was written: a value too long for b is cut, and a caller that
     * appends (pt__fmt_pct) must not be told the length it would have had. */
    len = snprintf(b, n, "%.*f", decimals, v);
    return len <= 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1;
}

/* v's ndigits significant digits, rounded to nearest (ties to even) as
 * printf rounds v's exact binary value: *q in [10^(nd-1), 10^nd) and the
 * decimal exponent of its first digit in *x. v = m * 2^-sh, m < 2^53,
 * 0 < sh <= 127. 0 when the product does not fit 128 bits. */
static int sig_digits(uint64_t m, int sh, int nd, int x, uint64_t *q, int *xo)
{
    for (int tries = 0; tries < 3; tries++) {
        int s = nd - 1 - x;                 /* v * 10^s has nd digits before the point */
        u128 lo = pow10_u128[nd - 1], hi = lo * 10, r, d;
        if (s < 0 || s > 22)                /* m * 10^s < 2^53 * 2^74 */
            return 0;
        d = scaled(m, sh, s, &r);
        if (d >= hi) {
            x++;
            continue;
        }
        if (d < lo) {
            x--;
            continue;
        }
        d = round_even(d, r, sh);
        if (d == hi) {                      /* 9.99..5 rounded up a digit */
            d = lo;
            x++;
        }
        *q = (uint64_t)d;
        *xo = x;
        return 1;
    }
    return 0;
}

size_t pt__fmt_g(char *b, double v, int ndigits)
{
    char dg[24], *p = b;
    uint64_t m, q;
    int e, sh, x, n;
    double a = fabs(v);

    if (v == 0 && ndigits >= 1)
        return (size_t)(stpcpy(b, signbit(v) ? "-0" : "0") - b);
    /* Finite and in the range the 128-bit product covers; else printf. */
    if (!(a >= 1e-6 && a < 18446744073709551616.0) || ndigits < 1 || ndigits > 17)
        goto slow;
    split(a, &m, &sh, &e);
    if (e == 0 || sh <= 0 || sh > 127)
        goto slow;
    /* log10(a) from the binary exponent: right, or one below (then the
     * digits tell and sig_digits() steps up). */
    x = (int)floor((e - 1023) * 0.30102999566398120);
    if (!sig_digits(m, sh, ndigits, x, &q, &x))
        goto slow;
    for (n = ndigits; n > 0; n--, q /= 10)
        dg[n - 1] = (char)('0' + q % 10);
    n = ndigits;
    while (n > 1 && dg[n - 1] == '0')       /* %g drops trailing zeros */
        n--;
    if (v < 0)
        *p++ = '-';
    if (x < -4 || x >= ndigits) {           /* d.ddde-05 */
        *p++ = dg[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, dg + 1, (size_t)n - 1);
            p += n - 1;
        }
        *p++ = 'e';
        *p++ = x < 0 ? '-' : '+';
        x = x < 0 ? -x : x;
        if (x >= 100)
            *p++ = (char)('0' + x / 100);
        *p++ = (char)('0' + x / 10 % 10);
        *p++ = (char)('0' + x % 10);
    } else if (x < 0) {                     /* 0.000ddd */
        *p++ = '0';
        *p++ = '.';
        for (int i = -1; i > x; i--)
            *p++ = '0';
        memcpy(p, dg, (size_t)n);
        p += n;
    } else {                                /* ddd.ddd */
        int whole = x + 1 < n ? x + 1 : n;  /* digits before the point */
        memcpy(p, dg, (size_t)whole);
        p += whole;
        for (int i = n; i < x + 1; i++)
            *p++ = '0';
        if (n > x + 1) {
            *p++ = '.';
            memcpy(p, dg + x + 1, (size_t)(n - x - 1));
            p += n - x - 1;
        }
    }
    *p = '\0';
    return (size_t)(p - b);
slow:
    n = snprintf(b, PT__NUM, "%.*g", ndigits, v);
    return n > 0 ? (size_t)n : 0;
}

void pt__fmt_utc_now(char *b, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;

    b[0] = '\0';
    if (gmtime_r(&now, &tm))
        strftime(b, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
