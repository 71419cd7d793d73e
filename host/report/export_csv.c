/* The CSV export: a header row, then one row per section, depth first in
 * order of first start, with its path, every figure, its id and its
 * parent's id.
 *
 * The ids are the JSON export's (0, 1, ... depth first; parent -1 at the
 * top), so a row of any depth names its parent in constant space. A path
 * of up to PT__CSV_PATH_WHOLE (8) titles is written whole, as
 * pt_section_path() writes it ("a/b/c", '/' and '\' in titles escaped);
 * a deeper one keeps its first title and its last six around "…" (U+2026)
 * ("a/…/s94/s95/s96/s97/s98/s99"), the depth column saying how many
 * were left out. So a row's size does not grow with its depth: a chain
 * 10,000 deep is as many bytes per row as a shallow tree, linear in the
 * sections.
 *
 * Numbers are written as "%.17g" writes them (pt__fmt_g()), which reads
 * back as the same double, so a spreadsheet or a test sees exactly the
 * figures pt_section_get() gives. The column sm_ms lists a folded phase's
 * time by SM ("3:1.5 7:0.25": SM 3 1.5 ms, SM 7 0.25 ms). Fields holding
 * a comma, a double quote, CR or LF are quoted as RFC 4180 says (quotes
 * doubled); records end in LF, which every RFC 4180 reader accepts.
 * Titles are written byte for byte. */
#include "core/roofline.h"
#include "core/stats.h"
#include "core/timing.h"
#include "core/tree.h"
#include "report/export_csv.h"
#include "report/export_file.h"
#include "report/format.h"
#include "report/lines.h"

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
    char b[PT__NUM + 1] = ",";

    if (!isfinite(v))
        return putc(',', f) == EOF ? WRITE_FAILED : 0;
    pt__fmt_g(b + 1, v, 17);
    return fputs(b, f) == EOF ? WRITE_FAILED : 0;
}

int pt__csv_header(FILE *f)
{
    if (fputs("path,name,depth,kind,open", f) == EOF)
        return WRITE_FAILED;
    for (size_t i = 0; i < pt__nfigures; i++)
        if (fprintf(f, ",%s", pt__figures[i].name) < 0)
            return WRITE_FAILED;
    return fputs(",sm_ms,id,parent\n", f) == EOF ? WRITE_FAILED : 0;
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
        char b[PT__NUM];
        pt__fmt_g(b, sm[i] / per_ms, 17);
        if (fprintf(f, "%s%d:%s", sep, i, b) < 0)
            return WRITE_FAILED;
        sep = " ";
    }
    return 0;
}

/* A title as a path writes it: '/' and '\' escaped. */
static void put_title(pt__lines *b, const char *s)
{
    for (const char *c = s; *c; c++) {
        if (*c == '/' || *c == '\\')
            pt__line_n(b, "\\", 1);
        pt__line_n(b, c, 1);
    }
}

/* st's path from the walk's titles, cut past PT__CSV_PATH_WHOLE; O(1) in
 * the depth. Its id and its parent's into *id and *parent. */
static int csv_path(pt__csv_walk *w, const pt_section_stats *st, pt__lines *b, uint64_t *id,
                    long long *parent)
{
    size_t d = st->depth > 0 ? (size_t)st->depth : 1;
    struct pt__csv_anc *a = pt__depth_grow(w->anc, &w->cap, d, sizeof *a);

    if (!a)
        return PT_ENOMEM;
    w->anc = a;
    b->len = 0;
    w->anc[d].name = st->name ? st->name : "";
    w->anc[d].id = *id = w->next++;
    *parent = d > 1 ? (long long)w->anc[d - 1].id : -1;
    for (size_t i = 1; i <= d; i++) {
        if (d > PT__CSV_PATH_WHOLE && i == 2) {
            pt__line_str(b, "/\xE2\x80\xA6"); /* U+2026 HORIZONTAL ELLIPSIS */
            i = d - PT__CSV_PATH_LAST;
            continue;
        }
        if (i > 1)
            pt__line_n(b, "/", 1);
        put_title(b, w->anc[i].name);
    }
    pt__line_n(b, "", 0);
    return b->oom ? PT_ENOMEM : 0;
}

void pt__csv_walk_end(pt__csv_walk *w)
{
    free(w->anc);
    free(w->path.buf);
    memset(w, 0, sizeof *w);
}

int pt__csv_row(FILE *f, pt__csv_walk *w, const char *kind, const pt_section_stats *st,
                const double *sm, int nsm, double per_ms)
{
    uint64_t id;
    long long parent;
    int rc = csv_path(w, st, &w->path, &id, &parent);

    if (rc == 0)
        rc = field(f, w->path.buf);
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
    if (rc == 0 && fprintf(f, ",%" PRIu64 ",%lld\n", id, parent) < 0)
        rc = WRITE_FAILED;
    return rc;
}

static int row(pt_timing *t, FILE *f, pt__csv_walk *w, const pt_section *s)
{
    pt_section_stats st;

    pt__stats_of(t, s, &st);
    return pt__csv_row(f, w, pt__kind_name(s->kind), &st, s->phase ? s->phase->sm_ns : NULL,
                       pt__sm_count(s), 1e6);
}

/* Depth first in order of first start, without recursion. */
static int rows(pt_timing *t, FILE *f)
{
    pt__csv_walk w = { 0 };
    int rc = 0;

    for (const pt_section *s = t->root.child; s && rc == 0; s = pt__tree_next(s, &t->root))
        rc = row(t, f, &w, s);
    pt__csv_walk_end(&w);
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
