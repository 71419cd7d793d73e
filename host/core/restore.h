/* A timing rebuilt from a saved run (restore.c), so the report a run
 * printed can be printed again by the one writer: ptreport's show,
 * convert and merge are built on it. Only the figures the reports read
 * are restored; such a timing is for reporting, merging and destroying,
 * never for timing. The run's tracked memory is restored by
 * gpu/memory.h's pt__restore_memory(). Not installed. */
#ifndef PT_CORE_RESTORE_H
#define PT_CORE_RESTORE_H

#include "core/model.h"

#include <stddef.h>

/* One section's figures as a saved run holds them. */
typedef struct pt__restored {
    int kind;                 /* enum pt__kind */
    int open;                 /* open at save time: a frame goes on the stack */
    uint64_t count;
    double total_ns, first_ns;
    double mean_ns, sd_ns, min_ns, max_ns; /* of occurrences 2..count */
    double read, written, flops;
    double xfer[3];           /* H2D, D2H, D2D bytes */
    uint64_t blocks;          /* PT__K_PHASE and PT__K_UNATTR */
    double hits, block_mean_ns, block_min_ns, block_max_ns;
    double mem_hwm;
    uint64_t cpu_timed;       /* a GPU section's occurrences timed by the CPU clock */
    int ran_here;             /* a launch whose host-mode blocks ran inside it */
    double ovh_ns;            /* a phase's marks' cost taken out */
    uint64_t ranks;           /* ranks with the section (0: not merged by rank) */
    double rank_min_ns, rank_mean_ns, rank_max_ns;
    long long rank_slowest;
    const double *sm_ms;      /* PT__K_PHASE: its time by %smid, ms; NULL for none */
    int nsm;
    const double *hist;       /* PT__K_PHASE: nhist (bin's lower edge ns, count) pairs */
    int nhist;
    /* A launch's shape, as pt_section_stats gives it (shape_folds 0: none),
     * and its slowest block's phases: nslow names and times (ms). */
    const pt_section_stats *shape;
    const char *const *slow_names;
    const double *slow_ms;
    int nslow;
    const struct pt__restored_span *spans; /* a launch's span kinds */
    int nspans;
} pt__restored;

/* One kind of a launch's spans, as the JSON export gives it. */
typedef struct pt__restored_span {
    const char *name;
    uint64_t count, unmatched;
    double total_ns, max_ns;
    const double *hist;       /* nhist (bin's lower edge ns, count) pairs */
    int nhist;
} pt__restored_span;

/* The run-level figures the reports print. */
typedef struct pt__restored_run {
    const char *clock;        /* "tsc", "user" or "clock_gettime" */
    double clock_ghz;         /* for "tsc" */
    size_t section_count;
    uint64_t errors;
    const uint64_t *errors_of; /* NULL, or the count of each code: [-PT_EINVAL] and on */
    const char *last_error;
    int gpu_timing;           /* CUDA events were in use (the timing gets PT_GPU_EVENTS) */
    int gpu_fallback;
    const char *gpu_fallback_why; /* NULL or "" when not said */
    uint64_t notes;
    const char *last_note;
    double pair_ns, pair_inside_ns; /* ptkit's cost on the saved run's machine; 0: unknown */
    int ranks, ranks_empty;
    uint64_t dropped;
    const pt_dev_clock *dev_clock; /* NULL: no device clock was used */
    int peak_src;             /* PT__PEAKS_USER, PT__PEAKS_DEVICE, else none */
    double peak_bw, peak_flops;
} pt__restored_run;

/* Where a rebuilt timing came from, for the writers that say so. */
typedef struct pt__saved {
    const char *file;         /* the saved run, as it was named to ptreport */
    const char *created;      /* its "created" stamp; NULL or "" when unknown */
    long long merged;         /* runs pooled into it by ptreport merge; 0 for one run */
} pt__saved;

/* A timing named name holding no sections, with its errors kept silent
 * (a report of open sections counts one). NULL without memory. */
PT__HIDDEN pt_timing *pt__restore_create(const char *name);
/* A child of parent (NULL: the root) holding the figures f exactly;
 * siblings are kept in the order they are added. NULL without memory. */
PT__HIDDEN pt_section *pt__restore_section(pt_timing *t, pt_section *parent, const char *name,
                                           const pt__restored *f);
/* s, a section of t, open at save time: a frame goes on the stack, once.
 * 0, or PT_ENOMEM. */
PT__HIDDEN int pt__restore_open(pt_timing *t, pt_section *s);
/* The run-level state the reports print. 0, or PT_EINVAL for a clock
 * this build cannot stand for. */
PT__HIDDEN int pt__restore_run(pt_timing *t, const pt__restored_run *r);

#endif
