/* Numbers as the reports print them: times in milliseconds, rates, byte
 * counts in decimal units, percentages; and the time a report is made. */
#include "report/format.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

void pt__fmt_ms(char *b, double v)
{
    if (v == 0 || fabs(v) >= 0.0005)
        snprintf(b, PT__CELL, "%.3f", v);
    else
        snprintf(b, PT__CELL, "%.3g", v);
}

void pt__fmt_rate(char *b, double v)
{
    if (v == 0)
        b[0] = '\0';
    else if (v >= 100)
        snprintf(b, PT__CELL, "%.1f", v);
    else if (v >= 0.01)
        snprintf(b, PT__CELL, "%.2f", v);
    else
        snprintf(b, PT__CELL, "%.3g", v);
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
    snprintf(b, PT__CELL, "%.1f%%", v);
}

void pt__fmt_utc_now(char *b, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;

    b[0] = '\0';
    if (gmtime_r(&now, &tm))
        strftime(b, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
