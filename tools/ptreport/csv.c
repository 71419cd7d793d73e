/* ptreport convert --to csv: a saved run as CSV, written by the library's
 * CSV writer (host/report/export_csv.c) from the figures the file holds:
 * the same header, the same rows depth first in order of first start,
 * numbers with "%.17g" (which reads back as the same double the JSON
 * held), RFC 4180 quoting, LF line ends. A null figure in the file becomes
 * an empty field, as the library writes a non-finite figure. Titles come
 * from the JSON, where bytes that were not UTF-8 became U+FFFD: only for
 * such titles does the CSV differ from the library's. */
#include "ptreport.h"

#include "report/export_csv.h"

static int rows(const pr_sec *v, size_t n, FILE *f)
{
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = pt__csv_row(f, v[i].path, v[i].kind, &v[i].st, v[i].sm_ms, v[i].nsm, 1.0);
        if (rc == 0)
            rc = rows(v[i].kids, v[i].nkids, f);
    }
    return rc;
}

int pr_write_csv(const pr_run *r, FILE *f)
{
    if (pt__csv_header(f) != 0 || rows(r->secs, r->nsecs, f) != 0)
        return -1;
    return ferror(f) ? -1 : 0;
}
