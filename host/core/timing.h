/* ptkit's internal model, shared by the files of host/. Not installed. */
#ifndef PT_INTERNAL_H
#define PT_INTERNAL_H

#include <pt/pt.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#  include <x86intrin.h>
#  define PT__HAVE_TSC 1
#else
#  define PT__HAVE_TSC 0
#endif

#define PT__HIDDEN __attribute__((visibility("hidden")))

/* What kind of section a node is; decides how the report reads it. */
enum pt__kind {
    PT__K_CPU = 0,    /* timed by the host clock */
    PT__K_GPU,        /* timed by CUDA events (or their CPU fallback) */
    PT__K_PHASE,      /* a phase folded from device records */
    PT__K_UNATTR      /* the "(unattributed)" rest of a folded launch */
};

/* Per-block figures of a folded phase, pooled over every fold. */
typedef struct pt__phase_ext {
    uint64_t blocks;          /* block records folded */
    double hits;              /* marks */
    double block_sum_ns;      /* sum of per-block times */
    double block_min_ns, block_max_ns;
    double *sm_ns;            /* per-SM totals, indexed by %smid; nsm long */
    int nsm;
} pt__phase_ext;

struct pt_section {
    struct pt_section *parent;
    struct pt_section *child, *last_child, *next; /* in order of first start */
    const char *key;          /* the caller's pointer last seen for this title */
    char *name;               /* owned copy of the title */
    size_t name_len;
    uint64_t hash;
    int depth;                /* 0 for the root */
    int kind;                 /* enum pt__kind */
    uint64_t order;           /* creation order, for PT_SORT_ORDER */

    /* Children lookup: the last child found, then a scan, then a hash
     * table once there are many. */
    struct pt_section *hot;
    struct pt_section **tab;  /* open addressing, tab_cap a power of two */
    size_t tab_cap, nchildren;

    /* Occurrences, in nanoseconds. Welford over the ones after the first. */
    uint64_t count;
    double total_ns;
    double first_ns;
    double last_ns;           /* the latest occurrence (a fold's launch time) */
    double mean_ns, m2_ns;    /* of occurrences 2..count */
    double min_ns, max_ns;
    double read, written, flops;
    double xfer[3];           /* H2D, D2H, D2D bytes */
    int open;                 /* frames on the stack that are this node */

    pt__phase_ext *phase;     /* PT__K_PHASE only */
    double mem_hwm;           /* peak of the tracked total while open (memory.c) */
    void *nvtx_str;           /* PT_NVTX: the title's registered string */
    struct pt__heat *heat;    /* a folded launch: its last fold per block (fold.c) */
};

/* Per-block phase times of a launch's last fold, for the HTML report's
 * heatmap. Bounded: grids larger than PT__HEAT_MAX_ROWS blocks keep an
 * evenly spaced sample, row i being slot i * nslots / nrows. One
 * allocation, freed with its section. */
#define PT__HEAT_MAX_ROWS 1024
typedef struct pt__heat {
    int nslots;               /* slots in the buffer */
    int nrows, nphases;       /* rows kept; ns holds nrows * nphases */
    const char **names;       /* the phases: the names of the launch's children */
    double ns[];              /* row-major; NaN for a slot without END */
} pt__heat;

/* One open section. A ghost frame stands for a start made while disabled,
 * so its stop pairs with it and does nothing. */
typedef struct pt__frame {
    pt_section *node;         /* NULL for a ghost */
    int64_t t0;               /* clock value at start (ticks) */
    int gpu;                  /* opened by pt_start_gpu */
    int pending;              /* index of its GPU event pair, or -1 */
} pt__frame;

/* One thread's recording: its open sections and the tree they go into.
 * The thread that created a timing records straight into t->root through
 * t->main; any other thread gets one of these with a tree of its own
 * (thread.c), so start and stop take no lock. A report pools the other
 * trees into t->root by path (pt__threads_merge). */
typedef struct pt__thr {
    pt__frame *stack;
    size_t depth, stack_cap;
    pt_section *root;         /* &t->root for the creating thread, else &own_root */
    uint64_t next_order;      /* creation order of the next section in root's tree */
    size_t nsections;
    /* The innermost open section, for other threads to read when a stop
     * finds no start on its own thread (PT_ETHREAD). */
    _Atomic(const pt_section *) top;
    int index;                /* 0 for the creating thread, then 1, 2, ... */
    long tid;                 /* the OS thread id */
    uint64_t stops;           /* occurrences recorded by this thread */
    uint64_t changes;         /* starts, stops and metrics added to its tree */
    uint64_t pooled;          /* changes when it was last pooled into t->root */
    double busy_ns;           /* time in its outermost sections */
    const void *self;         /* the thread's pt__me */
    struct pt__thr *next;
    pt_section own_root;
    /* Every occurrence of own_root's pooled into t->root so far: this
     * thread's part of the report (pt_section_thread). Off the hot path:
     * only pt__threads_merge writes it. */
    pt_section part_root;
} pt__thr;

/* The GPU side keeps its state behind this pointer (host/events.c). */
typedef struct pt__gpu pt__gpu;

struct pt_timing {
    char *name;
    unsigned flags;
    _Atomic int enabled;      /* read by every thread's start and stop */

    /* Written by the creating thread at every start and stop: on cache
     * lines of their own, apart from what the other threads read. */
    _Alignas(64) pt_section root;
    pt__thr main;             /* the creating thread; its tree is root */

    /* Threads: the creating thread's pt__me, the others' recorders. */
    _Alignas(64) const void *owner;
    uint64_t serial;          /* unique per timing, for the threads' caches */
    pthread_mutex_t lock;     /* the list below, and hooks shared by threads */
    pthread_mutex_t err_lock; /* the error counts and message */
    pt__thr *threads;
    int nthreads;             /* in the list */
    /* What pt_unpack_merge pooled into t->root from other runs, so that
     * the creating thread's part (t->root less every other part) is its
     * own. */
    pt_section merged_root;

    /* The clock: a user function, the TSC, or clock_gettime. */
    pt_clock_fn clock_fn;
    void *clock_ctx;
    int clock_kind;           /* PT__CLOCK_* */
    double ns_per_tick;       /* 1 except for the TSC */

    /* Errors: counted, the last one described. */
    uint64_t errors;
    uint64_t errors_of[-PT__ERR_LAST];
    char last_error[512];
    pt_line_fn error_fn;
    void *error_ctx;

    pt__gpu *gpu;             /* NULL until the first GPU call */
    int gpu_fallback;         /* GPU sections timed by the CPU clock */
    uint64_t dropped;         /* device trace events dropped */
    pt_dev_clock dev_clock;

    /* Roofline peaks (roofline.c): the user's, else the device's, found
     * lazily at the first report after a GPU was used. */
    double peak_bw, peak_flops;
    int peak_src;             /* PT__PEAKS_* */
    struct pt__memory *mem;   /* tracked tensors (memory.c); NULL until pt_track */

    /* Work done on every real start and stop when a PT__HOOK_* bit is
     * set: one word, so the hot path pays one branch for all of them. */
    unsigned hooks;
    struct pt__trace *trace;  /* PT_TRACE's event log (trace.c) */
    struct pt__nvtx *nvtx;    /* PT_NVTX's cached strings (nvtx.c) */
    struct pt__sched *sched;  /* pt_schedule()'s state (schedule.c) */
    int user_off;             /* pt_disable(); enabled = !user_off && the schedule's step records */
};

enum { PT__HOOK_TRACE = 1u << 0, PT__HOOK_NVTX = 1u << 1, PT__HOOK_MEMORY = 1u << 2 };


enum { PT__CLOCK_USER = 0, PT__CLOCK_TSC, PT__CLOCK_MONO };

/* clock.c */
PT__HIDDEN void pt__clock_init(pt_timing *t);
PT__HIDDEN int64_t pt__mono_ns(void);                /* CLOCK_MONOTONIC */
PT__HIDDEN const char *pt__clock_name(const pt_timing *t);
/* ns per TSC tick as calibrated for this process; 0 without a usable TSC. */
PT__HIDDEN double pt__tsc_ns_per_tick(void);

/* errors.c: count and describe an error on t; returns code. */
PT__HIDDEN int pt__fail(pt_timing *t, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Writes "a > b > c" (r's open stack) into buf. */
PT__HIDDEN void pt__stack_str(const pt__thr *r, char *buf, size_t n);

/* tree.c */
/* parent's child of that title, created if missing, in the tree of r. */
PT__HIDDEN pt_section *pt__child_in(pt__thr *r, pt_section *parent, const char *title);
/* The same in t->root's tree (the creating thread's). */
PT__HIDDEN pt_section *pt__child(pt_timing *t, pt_section *parent, const char *title);
PT__HIDDEN pt_section *pt__top(const pt_timing *t);  /* open section or root */
/* The section of s's path in the tree under root (another thread's, say);
 * NULL where that tree lacks it. */
PT__HIDDEN const pt_section *pt__counterpart(const pt_section *root, const pt_section *s);
/* Checks that r's innermost frame may be closed by a stop of title (fn
 * names the call). Returns 0 and the frame, 1 for a frame opened while
 * disabled (popped: the stop does nothing), or an error counted on t. */
PT__HIDDEN int pt__stop_check(pt_timing *t, pt__thr *r, const char *title, const char *fn,
                              pt__frame **out);

/* thread.c: every thread has a distinct address here. */
PT__HIDDEN extern _Thread_local char pt__me __attribute__((tls_model("initial-exec")));
/* The calling thread's recorder for t, created at its first use; NULL
 * without memory. */
PT__HIDDEN pt__thr *pt__thr_other(pt_timing *t);
static inline pt__thr *pt__thr_of(pt_timing *t)
{
    return t->owner == &pt__me ? &t->main : pt__thr_other(t);
}
/* Closes r's innermost frame, node's, which lasted ns; inline, since
 * every stop does it. */
static inline void pt__stop_pop(pt__thr *r, pt_section *node, double ns)
{
    node->open--;
    r->depth--;
    atomic_store_explicit(&r->top, r->depth ? r->stack[r->depth - 1].node : NULL,
                          memory_order_release);
    r->stops++;
    r->changes++;
    if (r->depth == 0)
        r->busy_ns += ns;
}
PT__HIDDEN void pt__threads_init(pt_timing *t);
PT__HIDDEN void pt__threads_free(pt_timing *t);
PT__HIDDEN void pt__threads_reset(pt_timing *t); /* pt_reset: empty every tree */
/* Pool every other thread's occurrences into t->root by path. Called by
 * the reports, when the threads are not timing. */
PT__HIDDEN void pt__threads_merge(pt_timing *t);
/* A thread other than r's that has title as its innermost open section:
 * its index, else -1. */
PT__HIDDEN int pt__threads_open_elsewhere(pt_timing *t, const pt__thr *r, const char *title);
/* pt_section_thread() for a timing whose threads are pooled already (a
 * report's, after pt__settle) and arguments known good: s a section of
 * t->root, i >= PT_THREAD_MERGED. */
PT__HIDDEN int pt__section_part(pt_timing *t, const pt_section *s, int i, pt_thread_part *out);
/* What every report does first: pool the threads, resolve GPU work. */
PT__HIDDEN void pt__settle(pt_timing *t);
/* Open sections on every thread (frames opened while disabled aside). */
PT__HIDDEN size_t pt__open_count(pt_timing *t);
/* 0 on the creating thread, else PT_ETHREAD counted for the call fn. */
PT__HIDDEN int pt__owner_only(pt_timing *t, const char *fn);

/* merge.c: src's occurrences, metrics and phase figures pooled into dst,
 * then src's children into dst's children of the same titles (created in
 * t->root's tree when missing). dst and src may be in different trees. */
PT__HIDDEN int pt__merge_tree(pt_timing *t, pt_section *dst, const pt_section *src);
/* The same into a tree outside t->root's (a thread's part, the runs
 * merged in): its sections are made without counting them anywhere. */
PT__HIDDEN int pt__merge_aside(pt_section *dst, const pt_section *src);
/* s's subtree with its occurrences and metrics zeroed, its shape kept. */
PT__HIDDEN void pt__clear_occurrences(pt_section *s);
/* s's path as pt_section_path() writes it, malloc'ed; NULL without memory. */
PT__HIDDEN char *pt__section_path_dup(const pt_section *s);
PT__HIDDEN int pt__check_metrics(pt_timing *t, const pt_metrics *m, const char *where);
/* m checked (pt__check_metrics) and added to s, each sum held at the
 * largest double; a rejected or saturated metric is PT_ERANGE, described
 * as the call `where`. */
PT__HIDDEN int pt__add_metrics(pt_timing *t, pt_section *s, const pt_metrics *m,
                               const char *where);
PT__HIDDEN void pt__section_free_children(pt_section *s);

/* The clock in ticks: inline, since every start and stop reads it. */
static inline int64_t pt__now(const pt_timing *t)
{
#if PT__HAVE_TSC
    if (t->clock_kind == PT__CLOCK_TSC)
        return (int64_t)__rdtsc();
#endif
    if (t->clock_kind == PT__CLOCK_USER)
        return t->clock_fn(t->clock_ctx);
    return pt__mono_ns();
}

/* Add one occurrence of ns to s: the first is kept apart, the rest go
 * through Welford's update (mean and sum of squared deviations). */
static inline void pt__record(pt_section *s, double ns)
{
    uint64_t n;
    double d;

    s->count++;
    s->total_ns += ns;
    s->last_ns = ns;
    if (s->count == 1) {
        s->first_ns = ns;
        return;
    }
    n = s->count - 1;
    if (n == 1) {
        s->mean_ns = s->min_ns = s->max_ns = ns;
        s->m2_ns = 0;
        return;
    }
    d = ns - s->mean_ns;
    s->mean_ns += d / (double)n;
    s->m2_ns += d * (ns - s->mean_ns);
    if (ns < s->min_ns)
        s->min_ns = ns;
    if (ns > s->max_ns)
        s->max_ns = ns;
}

/* flops.c: the einsum parser, pure (no allocation, bounded loops) for fuzzing. */
typedef struct pt__einsum {
    int nops;
    double space;             /* product of every distinct letter's size */
    double out_size;          /* product of the output letters' sizes */
    double flops;             /* space * (nops - 1) + (space - out_size) */
} pt__einsum;
PT__HIDDEN int pt__einsum_parse(const char *sub, int nops, const long long *const *shapes,
                                const int *ndims, pt__einsum *res, char *why, size_t why_len);

/* roofline.c */
enum { PT__PEAKS_NONE = 0, PT__PEAKS_USER, PT__PEAKS_DEVICE, PT__PEAKS_TRIED };
/* Fill the device's peaks when the user set none and a GPU was used. */
PT__HIDDEN void pt__peaks_resolve(pt_timing *t);
/* FP32 FMA lanes per SM for compute capability major.minor; 0 if unknown. */
PT__HIDDEN int pt__fp32_lanes(int major, int minor);
/* "unknown", "memory" or "compute" for the writers. */
PT__HIDDEN const char *pt__bound_name(int bound);

/* memory.c */
PT__HIDDEN void pt__memory_free(pt_timing *t);
/* A section boundary while memory hooks are on: raise node's high-water
 * mark to the tracked total, sample the device when asked. */
PT__HIDDEN void pt__memory_hook(pt_timing *t, pt_section *node, int stop);
/* The i-th tracked tensor for the writers: 1 and its fields, 0 past the end. */
PT__HIDDEN int pt__memory_tensor(const pt_timing *t, size_t i, const char **name,
                                 const void **ptr, double *bytes, const long long **shape,
                                 int *ndims, const char **dtype);

/* trace.c: PT_TRACE's bounded log of occurrences, read by export_trace.c. */
PT__HIDDEN int pt__trace_init(pt_timing *t);      /* at pt_create with PT_TRACE */
PT__HIDDEN void pt__trace_free(pt_timing *t);
PT__HIDDEN void pt__trace_clear(pt_timing *t);    /* pt_reset: the nodes are gone */
PT__HIDDEN void pt__trace_origin(pt_timing *t);   /* the run's origin: now, on t's clock */
/* Called on every real start and stop while t->hooks is nonzero. */
PT__HIDDEN void pt__hooks_start(pt_timing *t, pt_section *node);
PT__HIDDEN void pt__hooks_stop(pt_timing *t, pt_section *node, int64_t t0, int64_t t1, int gpu);
/* Events the log could not keep (host, GPU and fold samples); 0 without PT_TRACE. */
PT__HIDDEN uint64_t pt__trace_dropped(const pt_timing *t);
/* A counter sample ("C" event) at ts_tick on t's clock, for tracks such as
 * device memory in use. A no-op without PT_TRACE. */
PT__HIDDEN void pt__trace_counter(pt_timing *t, const char *name, int64_t ts_tick, double value);

/* nvtx.c: PT_NVTX's ranges; no-ops when built without CUDA's headers. */
PT__HIDDEN int pt__nvtx_init(pt_timing *t);
PT__HIDDEN void pt__nvtx_free(pt_timing *t);
PT__HIDDEN void pt__nvtx_forget(pt_timing *t);    /* pt_reset: the nodes are gone */
PT__HIDDEN void pt__nvtx_push(pt_timing *t, pt_section *node);
PT__HIDDEN void pt__nvtx_pop(pt_timing *t);

/* schedule.c */
PT__HIDDEN void pt__sched_free(pt_timing *t);
/* 1 when the schedule's current step records (always without a schedule). */
PT__HIDDEN int pt__sched_records(const pt_timing *t);
/* One line about the schedule ("" without one), for the reports. */
PT__HIDDEN void pt__sched_describe(const pt_timing *t, char *buf, size_t n);

/* export_json.c: s as a JSON string on f, escaped and valid UTF-8 (with
 * html, also without '<', '>' and '&'). Returns 0, or -1 when a write failed. */
PT__HIDDEN int pt__json_str(FILE *f, const char *s, int html);

/* stats.c: every figure of a section after its identity (name, path,
 * depth, kind, open), by the names all exports use and in their order,
 * so CSV, JSON and HTML write one list. */
enum { PT__FIG_F64, PT__FIG_U64, PT__FIG_BOUND };
typedef struct pt__figure {
    const char *name;
    int type;                 /* PT__FIG_*: double, uint64_t, or int bound */
    size_t off;               /* in pt_section_stats */
} pt__figure;
PT__HIDDEN extern const pt__figure pt__figures[];
PT__HIDDEN extern const size_t pt__nfigures;
/* A figure's value as a double (the bound as its enum value). */
PT__HIDDEN double pt__figure_value(const pt_section_stats *st, const pt__figure *f);
/* "cpu", "gpu", "phase" or "unattributed" for enum pt__kind. */
PT__HIDDEN const char *pt__kind_name(int kind);

/* stats.c: fill figures (pending GPU work must be resolved first). */
PT__HIDDEN void pt__stats_of(const pt_timing *t, const pt_section *s, pt_section_stats *o);
/* Siblings of parent's children in the order asked; returns count, *out malloc'ed. */
PT__HIDDEN size_t pt__sorted_children(const pt_section *parent, int sort,
                                      const pt_section ***out);

/* events.c: the GPU side. All safe to call with t->gpu == NULL. */
PT__HIDDEN int pt__gpu_resolve(pt_timing *t);  /* resolve all pending work */
PT__HIDDEN void pt__gpu_free(pt_timing *t);
PT__HIDDEN void pt__gpu_reset(pt_timing *t);

/* restore.c: a timing rebuilt from a saved run (pt_export_json()), so the
 * report a run printed can be printed again by the one writer. Only the
 * figures the reports read are restored; such a timing is for reporting
 * and destroying, never for timing. */
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
} pt__restored;

typedef struct pt__restored_run {
    const char *clock;        /* "tsc", "user" or "clock_gettime" */
    double clock_ghz;         /* for "tsc" */
    size_t section_count;
    uint64_t errors;
    const char *last_error;
    int gpu_fallback;
    uint64_t dropped;
    const pt_dev_clock *dev_clock; /* NULL: no device clock was used */
    int peak_src;             /* PT__PEAKS_USER, PT__PEAKS_DEVICE, else none */
    double peak_bw, peak_flops;
} pt__restored_run;

/* A timing named name holding no sections, with its errors kept silent
 * (a report of open sections counts one). NULL without memory. */
PT__HIDDEN pt_timing *pt__restore_create(const char *name);
/* A child of parent (NULL: the root) holding the figures f exactly;
 * siblings are kept in the order they are added. NULL without memory. */
PT__HIDDEN pt_section *pt__restore_section(pt_timing *t, pt_section *parent, const char *name,
                                           const pt__restored *f);
/* The run-level state the reports print. 0, or PT_EINVAL for a clock
 * this build cannot stand for. */
PT__HIDDEN int pt__restore_run(pt_timing *t, const pt__restored_run *r);

/* memory.c: a saved run's tracked memory, as the JSON export's "memory"
 * object holds it. */
typedef struct pt__restored_tensor {
    const char *name;
    double bytes;
    const long long *shape;   /* ndims sizes */
    int ndims;
    const char *dtype;        /* NULL or "" for none */
} pt__restored_tensor;

typedef struct pt__restored_memory {
    const pt__restored_tensor *tensors; /* in the order tracked */
    size_t ntensors;
    double total, peak;
    int device_sampled;       /* the export's device figures are numbers, not null */
    double device_free, device_total, device_used_peak;
} pt__restored_memory;

/* Replaces what t tracks with m, figures exactly as given (the total and
 * peak are not recomputed; no section's high-water mark moves). 0;
 * PT_EINVAL for a NULL t, m or name; PT_ERANGE for a figure that is not
 * finite and >= 0, or a shape pt_track() refuses; PT_ENOMEM (t unchanged). */
PT__HIDDEN int pt__restore_memory(pt_timing *t, const pt__restored_memory *m);

/* atomic_file.c: write through a temporary file and rename. */
typedef struct pt__afile {
    FILE *f;
    char *tmp, *path;
} pt__afile;
PT__HIDDEN int pt__afile_open(pt_timing *t, pt__afile *a, const char *path);
PT__HIDDEN int pt__afile_commit(pt_timing *t, pt__afile *a); /* closes; renames or removes */
PT__HIDDEN void pt__afile_abort(pt__afile *a);
/* Ends an export named fn: a negative rc abandons the file and is counted;
 * else the file is committed, and sections still open are counted and
 * returned as PT_EOPEN (the file holds them when open_written, else not). */
PT__HIDDEN int pt__afile_finish(pt_timing *t, pt__afile *a, int rc, const char *fn,
                                const char *path, int open_written);

/* path.c: an export path with %r (the rank), %p (the process id) and %%
 * expanded, malloc'ed into *out. 0; PT_EINVAL described on t for another
 * conversion or a rank variable that is not a non-negative integer;
 * PT_ENOMEM. */
PT__HIDDEN int pt__path_expand(pt_timing *t, const char *path, char **out);

#endif
