/* ptreport convert: a saved run to another format. CSV is written exactly
 * as pt_export_csv() writes it (host/export_csv.c): the same header, the
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

static const char convert_usage[] =
    "usage: ptreport convert RUN.json --to csv -o OUT.csv\n";

int pr_convert(int argc, char **argv)
{
    const char *file = NULL, *to = NULL, *outp = NULL;
    char err[1024];
    pr_run run;
    pr_out o;
    int rc;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--to") == 0 && i + 1 < argc)
            to = argv[++i];
        else if (strcmp(a, "-o") == 0 && i + 1 < argc)
            outp = argv[++i];
        else if (a[0] == '-' && a[1])
            return pr_fail("convert: unknown option or missing value: %s\n%s", a, convert_usage);
        else if (!file)
            file = a;
        else
            return pr_fail("convert: one run at a time\n%s", convert_usage);
    }
    if (!file || !to || !outp)
        return pr_fail("convert: %s\n%s", !file ? "no run given" : !to ? "no --to given"
                                                                       : "no -o given",
                       convert_usage);
    /* The trace and HTML writers work on a live timing; a saved run holds
     * aggregates only, which is not what they draw. */
    if (strcmp(to, "trace") == 0 || strcmp(to, "html") == 0)
        return pr_fail("convert: --to %s is not supported yet: only csv", to);
    if (strcmp(to, "csv") != 0)
        return pr_fail("convert: unknown format '%s' (csv)", to);
    if (pr_run_load(&run, file, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (pr_out_open(&o, outp)) {
        pr_run_free(&run);
        return 2;
    }
    rc = pr_write_csv(&run, o.f);
    pr_run_free(&run);
    if (rc) {
        pr_out_abort(&o);
        return pr_fail("convert: writing %s failed", outp);
    }
    return pr_out_commit(&o) ? 2 : 0;
}
