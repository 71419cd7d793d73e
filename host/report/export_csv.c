/* The CSV export: a header row, then one row per section, depth first in
 * order of first start, with its path and every figure.
 *
 * Numbers are written with "%.17g", which reads back as the same double,
 * so a spreadsheet or a test sees exactly the figures pt_section_get()
 * gives. The last column, sm_ms, lists a folded phase's time by SM
 * ("3:1.5 7:0.25": SM 3 1.5 ms, SM 7 0.25 ms). Fields holding a comma, a double quote, CR or LF are quoted as
 * RFC 4180 says (quotes doubled); records end in LF, which every RFC 4180
 * reader accepts. Titles are written byte for byte. */
#include "core/roofline.h"
#include "core/stats.h"
#include "core/timing.h"
#include "core/tree.h"
#include "report/export_csv.h"
#include "report/export_file.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* A write failed: the stream keeps its error flag and errno, which
 * the atomic writer's commit turns into PT_EIO with the reason. */
enum { WRITE_FAILED = 1 };


/* Writing stops at the first failure. */
static int field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n"))
        return fputs(s, f) == EOF ? WRITE_FAILED : 0;
    if (putc('"', f) == EOF)
        return WRITE_FAILED;
    for (; *s; s++) {
        if (*s == '"' && putc('"', f) == EOF)
            return WRITE_FAILED;
        if (putc(*s, f) == EOF)
            return WRITE_FAILED;
    }
    return putc('"', f) == EOF ? WRITE_FAILED : 0;
}

/* A figure, round-trippable. The statistics are never NaN or infinite;
 * should one ever be, an empty field says "no value" without a token
 * that some readers reject. */
static int num(FILE *f, double v)
{
    if (!isfinite(v))
        return putc(',', f) == EOF ? WRITE_FAILED : 0;
    return fprintf(f, ",%.17g", v) < 0 ? WRITE_FAILED : 0;
}

int pt__csv_header(FILE *f)
{
    if (fputs("path,name,depth,kind,open", f) == EOF)
        return WRITE_FAILED;
    for (size_t i = 0; i < pt__nfigures; i++)
        if (fprintf(f, ",%s", pt__figures[i].name) < 0)
            return WRITE_FAILED;
    return fputs(",sm_ms\n", f) == EOF ? WRITE_FAILED : 0;
}

/* ",3:1.5 7:0.25": each SM with time and its milliseconds, round-trippable. */
static int sm_field(FILE *f, const double *sm, int nsm, double per_ms)
{
    const char *sep = "";

    if (putc(',', f) == EOF)
        return WRITE_FAILED;
    for (int i = 0; i < nsm; i++) {
        if (!(sm[i] > 0))
            continue;
        if (fprintf(f, "%s%d:%.17g", sep, i, sm[i] / per_ms) < 0)
            return WRITE_FAILED;
        sep = " ";
    }
    return 0;
}

int pt__csv_row(FILE *f, const char *path, const char *kind, const pt_section_stats *st,
                const double *sm, int nsm, double per_ms)
{
    int rc = field(f, path);

    if (rc == 0 && putc(',', f) == EOF)
        rc = WRITE_FAILED;
    if (rc == 0)
        rc = field(f, st->name);
    if (rc == 0 && fprintf(f, ",%d,%s,%d", st->depth, kind, st->open) < 0)
        rc = WRITE_FAILED;
    for (size_t i = 0; rc == 0 && i < pt__nfigures; i++) {
        const pt__figure *fig = &pt__figures[i];
        double v = pt__figure_value(st, fig);
        if (fig->type == PT__FIG_F64)
            rc = num(f, v);
        else if (fig->type == PT__FIG_U64)
            rc = fprintf(f, ",%" PRIu64, pt__figure_u64(st, fig)) < 0 ? WRITE_FAILED : 0;
        else
            rc = fprintf(f, ",%s", pt__bound_name((int)v)) < 0 ? WRITE_FAILED : 0;
    }
    if (rc == 0)
        rc = sm_field(f, sm, nsm, per_ms);
    if (rc == 0 && putc('\n', f) == EOF)
        rc = WRITE_FAILED;
    return rc;
}

static int row(pt_timing *t, FILE *f, const pt_section *s)
{
    pt_section_stats st;
    char *path = pt__section_path_dup(s);
    int rc;

    if (!path)
        return PT_ENOMEM;
    pt__stats_of(t, s, &st);
    rc = pt__csv_row(f, path, pt__kind_name(s->kind), &st, s->phase ? s->phase->sm_ns : NULL,
                     pt__sm_count(s), 1e6);
    free(path);
    return rc;
}

/* Depth first in order of first start, without recursion. */
static int rows(pt_timing *t, FILE *f)
{
    int rc = 0;

    for (const pt_section *s = t->root.child; s && rc == 0; s = pt__tree_next(s, &t->root))
        rc = row(t, f, s);
    return rc;
}

static int write_csv(pt_timing *t, FILE *f, void *ctx)
{
    int rc;

    (void)ctx;
    pt__settle(t);
    pt__peaks_resolve(t);
    rc = pt__csv_header(f);
    return rc == 0 ? rows(t, f) : rc;
}

int pt_export_csv(pt_timing *t, const char *path)
{
    return t ? pt__export(t, path, "pt_export_csv", 1, write_csv, NULL) : 0;
}
