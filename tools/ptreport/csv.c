/* ptreport convert --to csv: a saved run as CSV, written by the library's
 * CSV writer (host/report/export_csv.c) from the figures the file holds:
 * the same header, the same rows depth first in order of first start,
 * numbers with "%.17g" (which reads back as the same double the JSON
 * held), RFC 4180 quoting, LF line ends. A null figure in the file becomes
 * an empty field, as the library writes a non-finite figure. Titles come
 * from the JSON, where bytes that were not UTF-8 became U+FFFD: only for
 * such titles does the CSV differ from the library's. */
#include "ptreport.h"

#include "api/tool.h"

/* Each section's row, depth first without recursion. */
static int rows(const pr_run *r, FILE *f)
{
    const pr_sec *x;
    pr_walk w;
    pt__csv_walk cw = { 0 };
    int depth, rc = 0;

    pr_walk_begin(&w, r->secs, r->nsecs);
    while (rc == 0 && (x = pr_walk_next(&w, &depth)))
        rc = pt__csv_row(f, &cw, x->kind, &x->st, x->sm_ms, x->nsm, 1.0);
    if (w.oom)
        rc = -1;
    pr_walk_end(&w);
    pt__csv_walk_end(&cw);
    return rc;
}

int pr_write_csv(const pr_run *r, FILE *f)
{
    if (pt__csv_header(f) != 0 || rows(r, f) != 0)
        return -1;
    return ferror(f) ? -1 : 0;
}
