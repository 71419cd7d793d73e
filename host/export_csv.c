/* The CSV export: a header row, then one row per section, depth first in
 * order of first start, with its path and every figure.
 *
 * Numbers are written with "%.17g", which reads back as the same double,
 * so a spreadsheet or a test sees exactly the figures pt_section_get()
 * gives. Fields holding a comma, a double quote, CR or LF are quoted as
 * RFC 4180 says (quotes doubled); records end in LF, which every RFC 4180
 * reader accepts. Titles are written byte for byte. */
#include "pt_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char header[] =
    "path,name,depth,kind,open,count,total_ms,self_ms,first_ms,mean_ms,stddev_ms,min_ms,max_ms,"
    "pct_parent,pct_total,read_bytes,written_bytes,flops,read_gbs,write_gbs,gflops,"
    "h2d_bytes,d2h_bytes,d2d_bytes,h2d_gbs,d2h_gbs,d2d_gbs,"
    "blocks,hits,block_mean_ms,block_min_ms,block_max_ms,imbalance,"
    "ai,pct_peak_bw,pct_peak_flops,bound,mem_high_water\n";

/* A write failed: the stream keeps its error flag and errno, which
 * pt__afile_commit() turns into PT_EIO with the reason. */
enum { WRITE_FAILED = 1 };

static const char *kind_name(int kind)
{
    switch (kind) {
    case PT__K_GPU: return "gpu";
    case PT__K_PHASE: return "phase";
    case PT__K_UNATTR: return "unattributed";
    default: return "cpu";
    }
}

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

static int row(pt_timing *t, FILE *f, const pt_section *s)
{
    pt_section_stats st;
    int n = pt_section_path(s, NULL, 0);
    char *path;
    int rc;

    if (n < 0)
        return n;
    path = malloc((size_t)n + 1);
    if (!path)
        return PT_ENOMEM;
    pt_section_path(s, path, (size_t)n + 1);
    pt__stats_of(t, s, &st);

    rc = field(f, path);
    free(path);
    if (rc == 0 && putc(',', f) == EOF)
        rc = WRITE_FAILED;
    if (rc == 0)
        rc = field(f, s->name);
    if (rc == 0 && fprintf(f, ",%d,%s,%d,%" PRIu64, st.depth, kind_name(s->kind), st.open,
                           st.count) < 0)
        rc = WRITE_FAILED;
    const double figs[] = {
        st.total_ms, st.self_ms, st.first_ms, st.mean_ms, st.stddev_ms, st.min_ms, st.max_ms,
        st.pct_parent, st.pct_total, st.read_bytes, st.written_bytes, st.flops,
        st.read_gbs, st.write_gbs, st.gflops,
        st.xfer_bytes[0], st.xfer_bytes[1], st.xfer_bytes[2],
        st.xfer_gbs[0], st.xfer_gbs[1], st.xfer_gbs[2],
    };
    for (size_t i = 0; rc == 0 && i < sizeof figs / sizeof figs[0]; i++)
        rc = num(f, figs[i]);
    if (rc == 0 && fprintf(f, ",%" PRIu64, st.blocks) < 0)
        rc = WRITE_FAILED;
    const double block_figs[] = { st.hits, st.block_mean_ms, st.block_min_ms, st.block_max_ms,
                                  st.imbalance };
    for (size_t i = 0; rc == 0 && i < sizeof block_figs / sizeof block_figs[0]; i++)
        rc = num(f, block_figs[i]);
    const double roof_figs[] = { st.ai, st.pct_peak_bw, st.pct_peak_flops };
    for (size_t i = 0; rc == 0 && i < sizeof roof_figs / sizeof roof_figs[0]; i++)
        rc = num(f, roof_figs[i]);
    if (rc == 0 && fprintf(f, ",%s", pt__bound_name(st.bound)) < 0)
        rc = WRITE_FAILED;
    if (rc == 0)
        rc = num(f, st.mem_high_water);
    if (rc == 0 && putc('\n', f) == EOF)
        rc = WRITE_FAILED;
    return rc;
}

/* Depth first in order of first start, without recursion: the walk
 * climbs back through parent links. */
static int rows(pt_timing *t, FILE *f)
{
    const pt_section *s = t->root.child;
    int rc = 0;

    while (s && rc == 0) {
        rc = row(t, f, s);
        if (s->child) {
            s = s->child;
            continue;
        }
        while (s && !s->next)
            s = s->parent == &t->root ? NULL : s->parent;
        if (s)
            s = s->next;
    }
    return rc;
}

int pt_export_csv(pt_timing *t, const char *path)
{
    pt__afile a;
    int rc;

    if (!t)
        return 0;
    rc = pt__afile_open(t, &a, path);
    if (rc)
        return rc;
    pt__gpu_resolve(t);
    pt__peaks_resolve(t);
    rc = fputs(header, a.f) == EOF ? WRITE_FAILED : rows(t, a.f);
    return pt__afile_finish(t, &a, rc, "pt_export_csv", path, 1);
}
