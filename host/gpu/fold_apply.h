/* A fold applied (fold_apply.c): a launch's block records, or their
 * summary from the device reduction, become children of its section.
 * Not installed. */
#ifndef PT_GPU_FOLD_APPLY_H
#define PT_GPU_FOLD_APPLY_H

#include "gpu/records.h"
#include "gpu/shape.h"

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

/* How a fold's cycles become time. */
typedef struct pt__fold_conv {
    int calibrated;           /* the calibration holds (else: the launch's pooled rate) */
    double tick_ns;           /* globaltimer tick; 0 when not calibrated */
    double ns_per_cycle;      /* the rate for blocks without their own */
    double mark_cycles;       /* one mark's measured cost; 0 when not measured */
    int device;
    char name[96];
} pt__fold_conv;

/* One fold's figures from records read on the host: what the fold finds
 * in them before it changes the tree. pt__fold_figure() reads the records
 * and the buffer's shape alone, so the fold's own thread may find them
 * (fold_worker.c) while the timing's thread goes on; pt__fold_apply()
 * then puts them in the tree, on the timing's thread. */
typedef struct pt__fold_fig {
    pt__fold_conv cv;         /* set before pt__fold_figure (pt__fold_conv_get) */
    int want_heat;            /* draw the heatmap (set before) */
    pt__sum_mem *mem;         /* the summary's memory, taken from the buffer's (set before;
                                 NULL: none kept yet) and given back by pt__fold_fig_free */
    int found;                /* pt__fold_figure ran */
    int err;                  /* 0, or PT_ENOMEM: no memory for the summary, nothing folded */
    void *r;                  /* the summary (device/pt_fold_math.h's pt__rword words) */
    int nsm;                  /* its per-SM columns */
    long long twice;          /* slots written by more than one block */
    struct pt__heat *heat;    /* the heatmap drawn, or NULL */
    pt__shape_fig shape;
} pt__fold_fig;

/* The conversion src's fold takes (the device's calibration), found on
 * the timing's thread before the figures, where an uncalibrated device is
 * said once. */
PT__HIDDEN void pt__fold_conv_get(pt_timing *t, const pt__fold_src *src, pt__fold_conv *cv);
/* Finds f's figures in src's records (src->data, read on the host, not
 * reduced): O(slots x phases). Any thread; writes nothing but f and the
 * records' copy (src->data: a stale slot's count). */
PT__HIDDEN void pt__fold_figure(const pt__fold_src *src, pt__fold_fig *f);
/* The histogram bins phase p's blocks fell in, [lo, hi], read off the
 * summary's least and greatest time of the phase. */
PT__HIDDEN void pt__fold_hist_range(const void *sum, int p, int *lo, int *hi);
/* Takes summary memory for f from b's kept memory (timing's thread). */
PT__HIDDEN void pt__fold_fig_take(pt_dev_records *b, pt__fold_fig *f);
/* What f holds, freed, its summary's memory given back to the buffer's
 * (timing's thread) (after pt__fold_apply, or in its place). */
PT__HIDDEN void pt__fold_fig_free(const pt__fold_src *src, pt__fold_fig *f);

/* Folds src into its launch, whose occurrence lasted launch_ns, from f's
 * figures (found here first where they are not yet; NULL for a reduced
 * src). Returns 0 or the error counted (a fold is recorded whole or not
 * at all). */
PT__HIDDEN int pt__fold_apply(pt_timing *t, const pt__fold_src *src, pt__fold_fig *f,
                              double launch_ns);

#endif
