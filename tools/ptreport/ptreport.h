/* ptreport: a saved run (pt_export_json(), schema 1) read back into
 * memory, and the commands that work on it (show, diff, merge, convert).
 *
 * A run is kept as the export wrote it: every figure by the export's own
 * name, so the CSV conversion and the merge's output are the same columns
 * in the same order as the library's writers. */
#ifndef PT_PTREPORT_H
#define PT_PTREPORT_H

#include "core/restore.h"
#include "report/atomic_file.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The figures of a section, in the order host/report/export_csv.c writes them;
 * "blocks", an integer, sits between d2d_gbs and hits there. */
#define PR_FIGURES(X)                                                                       \
    X(TOTAL, "total_ms") X(SELF, "self_ms") X(FIRST, "first_ms") X(MEAN, "mean_ms")           \
    X(STDDEV, "stddev_ms") X(MIN, "min_ms") X(MAX, "max_ms") X(PPARENT, "pct_parent")         \
    X(PTOTAL, "pct_total") X(READ, "read_bytes") X(WRITTEN, "written_bytes")                 \
    X(FLOPS, "flops") X(READ_GBS, "read_gbs") X(WRITE_GBS, "write_gbs") X(GFLOPS, "gflops")    \
    X(H2D, "h2d_bytes") X(D2H, "d2h_bytes") X(D2D, "d2d_bytes") X(H2D_GBS, "h2d_gbs")        \
    X(D2H_GBS, "d2h_gbs") X(D2D_GBS, "d2d_gbs") X(HITS, "hits")                             \
    X(BLOCK_MEAN, "block_mean_ms") X(BLOCK_MIN, "block_min_ms") X(BLOCK_MAX, "block_max_ms") \
    X(IMBALANCE, "imbalance") X(AI, "ai") X(PCT_PEAK_BW, "pct_peak_bw")                       \
    X(PCT_PEAK_FLOPS, "pct_peak_flops") X(MEM_HIGH_WATER, "mem_high_water")

enum {
#define PR_FIG_ENUM(id, name) F_##id,
    PR_FIGURES(PR_FIG_ENUM)
#undef PR_FIG_ENUM
    NFIG
};
/* The figures before "blocks" in the CSV's column order; "bound", a
 * string, sits before mem_high_water. */
#define PR_FIGS_BEFORE_BLOCKS F_HITS
#define PR_FIGS_BEFORE_BOUND F_MEM_HIGH_WATER
/* The first figure a file may leave out: the roofline and memory figures
 * came later within schema 1, so older files lack them (read as 0). */
#define PR_FIGS_OPTIONAL F_AI

extern const char *const pr_fig_name[NFIG];

typedef struct pr_sec pr_sec;
struct pr_sec {
    char *name, *path, *kind; /* kind: cpu, gpu, phase or unattributed */
    const char *bound;        /* memory, compute or unknown */
    int depth, open;
    uint64_t count, blocks;
    double fig[NFIG];         /* NaN where the file holds null */
    pr_sec *kids;
    size_t nkids;
    size_t order;             /* position among its siblings in the file */
    json_t *merged;           /* the section's "merged" object, if any (borrowed) */
};

typedef struct pr_run {
    const char *file;         /* as named on the command line */
    json_t *doc;              /* the whole document; strings below point into it */
    const char *name, *clock, *errors_last;
    double clock_ghz;         /* NaN unless the file gives one */
    double total_ms;
    uint64_t section_count, error_count, open_count, dropped;
    int gpu_timing, gpu_fallback;
    json_t *device_clock;     /* NULL or an object (borrowed) */
    json_t *peaks;            /* NULL or an object (borrowed) */
    json_t *merged;           /* NULL or the run's "merged" object (borrowed) */
    const char *created;      /* "" unless the file gives one */
    json_t *memory;           /* NULL or the checked "memory" object (borrowed) */
    pr_sec *secs;             /* the top-level sections */
    size_t nsecs;
} pr_run;

/* Reads and checks a run. On failure writes "FILE: LINE:COLUMN: message"
 * (or "FILE: message" when no place applies) into err and returns -1. */
int pr_run_load(pr_run *r, const char *file, char *err, size_t errlen);
/* The same on text in memory; `file` only names it in messages. */
int pr_run_parse(pr_run *r, const char *file, const char *text, size_t len, char *err,
                 size_t errlen);
void pr_run_free(pr_run *r);

/* Output through the library's atomic writer: a temporary file renamed
 * into place on success, nothing left behind on failure. Each returns 0,
 * or says "ptreport: OUT: why" and returns 2; pt__afile_abort() gives up. */
int pr_out_open(pt__afile *a, const char *path);
int pr_out_commit(pt__afile *a, const char *path);

/* The commands; each returns the process's exit status. */
int pr_show(int argc, char **argv);
int pr_diff(int argc, char **argv);
int pr_merge(int argc, char **argv);
int pr_convert(int argc, char **argv);

/* Writes the CSV of a run, exactly the columns of pt_export_csv(). 0 or -1. */
int pr_write_csv(const pr_run *r, FILE *f);

/* The run rebuilt as a timing (host/core/restore.c), so the library's own
 * writers report it: every section with its figures, the run's clock,
 * errors, device clock, peaks and tracked memory. On failure prints
 * "ptreport: CMD: ..." and returns 2 with *out NULL; else 0. */
int pr_rebuild(const pr_run *run, const char *cmd, pt_timing **out);

/* A Chrome Trace Event file of the aggregate figures on f (flame.c):
 * every section one complete ("X") event as long as its total over all
 * its occurrences, a section's children laid one after another from its
 * start in order of first start, the top-level sections one after another
 * from 0. One track, so viewers draw the tree as a flame chart; each
 * event's "args" hold the section's figures and "metadata" says the layout
 * is aggregate. Where children's totals add up to more than their
 * parent's (a CUDA-event-timed launch still running after the host
 * section that queued it ended; rounding aside), the parent is drawn as
 * long as its children and its args say so. `from` may be NULL. Returns
 * 0 or PT_ENOMEM; a failed write is left on f's error flag. */
int pr_write_flame(pt_timing *t, FILE *f, const pt__saved *from);

/* Prints "ptreport: " and the message on stderr; returns 2 (usage, input). */
int pr_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
