/* A fold applied (fold_apply.c): a launch's block records, or their
 * summary from the device reduction, become children of its section.
 * Not installed. */
#ifndef PT_GPU_FOLD_APPLY_H
#define PT_GPU_FOLD_APPLY_H

#include "gpu/records.h"

/* What one fold reads, and where it goes. */
typedef struct pt__fold_src {
    pt_dev_records *buf;
    pt_section *node;         /* where the phases go: the launch section, or its role */
    pt_section *launch;       /* the launch section */
    const long long *data;    /* the records (or the reduction's result) to read */
    int reduced;              /* data is a reduction result (device/pt_fold_math.h) */
    int nsm;                  /* the result's per-SM width when reduced */
    double tick_ns, ns_per_cycle; /* the calibration the reduction used */
    double mark_cycles;       /* and the mark's cost it took out */
    int calibrated;
    long gen;                 /* buf->reset_gen when the fold was asked for */
    int every_slot;           /* the records hold exactly the launch's slots (PT_LAUNCH) */
    int stale;                /* folded before and not reset since: DONE counts more launches */
    int devtime;              /* node is a kernel captured into a CUDA graph: its time is its
                                 blocks' span (first BEGIN to last END), not the launch's */
    int delta;                /* a graph's replay not reset: DONE and the bad slots count
                                 since the last fold's (1) or since a reset (2); fold.c
                                 takes the differences before the fold reads them */
} pt__fold_src;

/* Folds src into its launch, whose occurrence lasted launch_ns. Returns 0
 * or the error counted (a fold is recorded whole or not at all). */
PT__HIDDEN int pt__fold_apply(pt_timing *t, const pt__fold_src *src, double launch_ns);

#endif
