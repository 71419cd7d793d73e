/* ptreport convert --to csv: a saved run as CSV, written exactly
 * as pt_export_csv() writes it (host/report/export_csv.c): the same header, the
 * same rows depth first in order of first start, numbers with "%.17g"
 * (which reads back as the same double the JSON held), RFC 4180 quoting,
 * LF line ends. A null figure in the file becomes an empty field, as the
 * library writes a non-finite figure. Titles come from the JSON, where
 * bytes that were not UTF-8 became U+FFFD: only for such titles does the
 * CSV differ from the library's. */
#include "ptreport.h"

#include <inttypes.h>
#include <math.h>
#include <pt/pt.h>
#include <string.h>

static const char csv_header[] =
    "path,name,depth,kind,open,count,total_ms,self_ms,first_ms,mean_ms,stddev_ms,min_ms,max_ms,"
    "pct_parent,pct_total,read_bytes,written_bytes,flops,read_gbs,write_gbs,gflops,"
    "h2d_bytes,d2h_bytes,d2d_bytes,h2d_gbs,d2h_gbs,d2d_gbs,"
    "blocks,hits,block_mean_ms,block_min_ms,block_max_ms,imbalance,"
    "ai,pct_peak_bw,pct_peak_flops,bound,mem_high_water\n";

static void field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    putc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            putc('"', f);
        putc(*s, f);
    }
    putc('"', f);
}

static void num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        putc(',', f);
}

static void rows(const pr_sec *v, size_t n, FILE *f)
{
    for (size_t i = 0; i < n; i++) {
        const pr_sec *s = &v[i];
        field(f, s->path);
        putc(',', f);
        field(f, s->name);
        fprintf(f, ",%d,%s,%d,%" PRIu64, s->depth, s->kind, s->open, s->count);
        for (int k = 0; k < PR_FIGS_BEFORE_BLOCKS; k++)
            num(f, s->fig[k]);
        fprintf(f, ",%" PRIu64, s->blocks);
        for (int k = PR_FIGS_BEFORE_BLOCKS; k < PR_FIGS_BEFORE_BOUND; k++)
            num(f, s->fig[k]);
        fprintf(f, ",%s", s->bound);
        for (int k = PR_FIGS_BEFORE_BOUND; k < NFIG; k++)
            num(f, s->fig[k]);
        putc('\n', f);
        rows(s->kids, s->nkids, f);
    }
}

int pr_write_csv(const pr_run *r, FILE *f)
{
    fputs(csv_header, f);
    rows(r->secs, r->nsecs, f);
    return ferror(f) ? -1 : 0;
}
