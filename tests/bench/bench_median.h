/* The median the benchmarks report (the machine is shared: one slow round
 * must not move a figure). Sorts v. */
#ifndef PT_BENCH_MEDIAN_H
#define PT_BENCH_MEDIAN_H

#include <stdlib.h>

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
