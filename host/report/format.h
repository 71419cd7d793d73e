/* Numbers as the reports print them (format.c), each into a cell of
 * PT__CELL bytes, and the time a report is made. Not installed. */
#ifndef PT_REPORT_FORMAT_H
#define PT_REPORT_FORMAT_H

#include "core/model.h"

#include <stddef.h>

#define PT__CELL 96

/* Milliseconds to the microsecond; shorter times keep three digits. */
PT__HIDDEN void pt__fmt_ms(char *b, double v);
/* A rate (GB/s, GFLOP/s); blank when zero, as nothing was declared. */
PT__HIDDEN void pt__fmt_rate(char *b, double v);
/* Bytes in decimal units ("1.5 MB"), to match GB/s being 1e9 bytes per second. */
PT__HIDDEN void pt__fmt_bytes(char *b, double v);
/* A percentage with one decimal ("12.5%"). */
PT__HIDDEN void pt__fmt_pct(char *b, double v);
/* v as snprintf(b, n, "%.*g", ndigits, v) writes it, byte for byte, for
 * 1 <= ndigits <= 17; returns the length. Exact: the digits come from
 * v's binary value in 128-bit integers where it fits (finite, 1e-6 <= |v|
 * < 2^64), from snprintf elsewhere, so "%.17g" still reads back as the
 * same double. b holds at least PT__NUM bytes. */
#define PT__NUM 32
PT__HIDDEN size_t pt__fmt_g(char *b, double v, int ndigits);
/* v as snprintf(b, n, "%.*f", decimals, v) writes it, byte for byte:
 * from v's binary value in 128-bit integers for |v| < 10^15, 0 <= decimals
 * <= 3 and n >= 32, by printf otherwise (cut to n - 1 bytes where it
 * is longer). Returns the length written. */
PT__HIDDEN size_t pt__fmt_fixed(char *b, size_t n, double v, int decimals);
/* Now, UTC, as ISO 8601 ("2025-01-31T12:00:00Z"), the stamp a report
 * carries; "" when the clock cannot be read. n is at least 21. */
PT__HIDDEN void pt__fmt_utc_now(char *b, size_t n);

#endif
