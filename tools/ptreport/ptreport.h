/* ptreport: a saved run (pt_export_json(), schema 2, or 1 from earlier
 * releases) read back into memory, and the commands that work on it
 * (show, diff, merge, convert).
 *
 * A run is kept as the export wrote it: every figure by the export's own
 * name, read by the library's list of figures, so the CSV conversion
 * writes the same columns as the library's writer, through it. */
#ifndef PT_PTREPORT_H
#define PT_PTREPORT_H

#include "api/tool.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pr_sec pr_sec;
struct pr_sec {
    char *name, *kind;        /* kind: cpu, gpu, phase or unattributed */
    char *path;               /* schema 1's "path"; NULL in schema 2, which has none */
    char *own_name;           /* the title decoded from "name_bytes" (name points here) */
    /* Its name, depth, open mark and figures, read by the library's list
     * of figures (core/stats.h); NaN where the file holds null. */
    pt_section_stats st;
    pr_sec *kids;
    size_t nkids;
    int matched;              /* diff: the base has it too */
    int host_mode;            /* "host_mode": a launch whose blocks ran on the CPU */
    size_t order;             /* position among its siblings in the file */
    json_t *merged;           /* the section's "merged" object, if any (borrowed) */
    double *sm_ms;            /* a folded phase's "sm_ms", by %smid (NULL when absent) */
    int nsm;
    double *hist;             /* its "block_hist": nhist (lower edge ns, count) pairs */
    int nhist;
    const char **slow_names;  /* a launch's "slowest_phases": its slowest block's phases */
    double *slow_ms;          /* (names in the document) and their times */
    int nslow;
    pt__restored_span *spans; /* a launch's "spans" (launch.c) */
    int nspans;
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

/* A depth-first walk of a run's sections without recursion: each
 * section once, parents before children, siblings in the file's order. */
typedef struct pr_walk {
    struct pr_level {
        const pr_sec *v;
        size_t n, i;
    } *st;
    size_t top, cap;
    int oom;                  /* the stack could not grow: the walk ended early */
    char *path;               /* pr_walk_path()'s, by depth: */
    size_t *end, pcap, ecap;  /* where each depth's part ends */
} pr_walk;
void pr_walk_begin(pr_walk *w, const pr_sec *v, size_t n);
/* The next section and its depth (1 at the top), or NULL at the end. */
const pr_sec *pr_walk_next(pr_walk *w, int *depth);
/* The path of s, just returned at depth by pr_walk_next(), as
 * pt_section_path() writes it ('/' and '\\' in titles escaped): schema
 * 1's own, else made from the walk's, each part once. Valid until the
 * next call; NULL without memory. */
const char *pr_walk_path(pr_walk *w, const pr_sec *s, int depth);
void pr_walk_end(pr_walk *w);

/* Reads and checks a run. On failure writes "FILE: LINE:COLUMN: message"
 * (or "FILE: message" when no place applies) into err and returns -1. */
int pr_run_load(pr_run *r, const char *file, char *err, size_t errlen);
/* The same on text in memory; `file` only names it in messages. */
int pr_run_parse(pr_run *r, const char *file, const char *text, size_t len, char *err,
                 size_t errlen);
void pr_run_free(pr_run *r);

/* Output through the library's atomic writer: a temporary file renamed
 * into place on success, nothing left behind on failure; "-" is standard
 * output. Each returns 0, or says "ptreport: OUT: why" and returns 2;
 * pr_out_abort() gives up. */
int pr_out_open(pt__afile *a, const char *path);
int pr_out_commit(pt__afile *a, const char *path);
/* Drops what pr_out_open() opened: the temporary file removed (on
 * standard output, what was written stays). */
void pr_out_abort(pt__afile *a);
/* 2, said, when the output `out` is one of the n input files (the same
 * file, by device and inode: a link or another spelling too); else 0. */
int pr_out_not_an_input(const char *cmd, const char *out, const char *const *in, int n);

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
/* run's sections restored under t's root: 0, or -1 without memory. */
int pr_restore_sections(pt_timing *t, const pr_run *run);
/* run's run-level state for pt__restore_run() (rebuild.c): rr points into
 * dc and by_code, which holds -PT__ERR_LAST counts. */
void pr_run_state(const pr_run *run, pt__restored_run *rr, pt_dev_clock *dc, uint64_t *by_code);

/* Prints "ptreport: " and the message on stderr; returns 2 (usage, input). */
int pr_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
