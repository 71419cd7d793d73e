/* The model every layer of the library reads: a timing, the tree of its
 * sections, the open sections of each thread, and the slots where the
 * layers above the core keep what they attach to a timing (the GPU side,
 * memory tracking). Data only, and the one update every stop ends in
 * (pt__record); the functions live in the files named beside each part.
 * Not installed. */
#ifndef PT_CORE_MODEL_H
#define PT_CORE_MODEL_H

#include <pt/pt.h>

#include <pthread.h>
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
    uint64_t *hist;           /* per-block times, PT__HIST_BINS counts (device/pt_hist.h);
                                 NULL until a block is folded */
    double *sm_ns;            /* per-SM totals, indexed by %smid; nsm long */
    int nsm;
    int on_host;              /* folded in host mode: sm_ns is by host CPU, not reported */
} pt__phase_ext;

/* One kind of span (PT_DEV_SPAN_BEGIN/END) of a launch, over its folds:
 * the spans closed, their durations, and those left unmatched. */
typedef struct pt__span {
    char *name;               /* owned */
    uint64_t count;           /* spans closed */
    uint64_t unmatched;       /* begins never closed, ends never opened */
    double total_ns, max_ns;
    uint64_t *hist;           /* durations, PT__HIST_BINS counts (device/pt_hist.h) */
} pt__span;

/* How a launch's blocks filled the device (gpu/shape.c), pooled over the
 * folds that read its block records on the host: sums where the report
 * gives a mean, the most where it gives a most. "SM" is the %smid, or in
 * host mode the CPU a block ran on. */
typedef struct pt__shape {
    uint64_t folds;           /* folds with a shape */
    int on_host;              /* host-mode records: the SMs are CPUs */
    double waves_sum;         /* per fold: blocks / (resident * sms) */
    double span_ns_sum;       /* per fold: first BEGIN to last END (globaltimer) */
    double tail_ns_sum;       /* per fold: first SM falling idle to the last END */
    double idle_sum;          /* per fold: the SMs' idle share of the span, 0..1 */
    uint64_t resident;        /* the most blocks one SM held at once */
    uint64_t sms;             /* the device's SMs (else those seen) */
    double slowest_ns;        /* the longest block of any fold */
    long long slowest_block, slowest_sm;
    int nslow;                /* its phases: names (owned) and times */
    char **slow_names;
    double *slow_ns;
    uint64_t stragglers;      /* the most straggler SMs of a fold */
    long long straggler_sm;   /* that fold's SM that finished last */
    uint64_t sample_every;    /* the records held 1 slot in this many (the most of any fold) */
    uint64_t sample_slots;    /* the grid's slots then, before sampling; 0 when unknown */
    int nspans;               /* its spans, by kind (core/spans.c) */
    pt__span *spans;
    /* A role's (or a launch's) work and waits, per SM (core/overlap.c):
     * sums over the folds whose records hold trace events, each fold's
     * figure the mean over the SMs its slots ran on. */
    uint64_t ovl_folds;
    double busy_ns;           /* any of its slots in a phase that is no wait */
    double overlap_ns;        /* of busy_ns, another role of the launch working */
    double wait_ns;           /* running, none of its slots working */
    double bubble_ns;         /* of wait_ns, nothing in flight: no other role working,
                                 no span open */
} pt__shape;

/* One section: a title under a parent, aggregated over its occurrences
 * (tree.c keeps the tree, stats.c reads the figures). */
struct pt_section {
    struct pt_section *parent;
    struct pt_section *child, *last_child, *next; /* in order of first start */
    const char *key;          /* the caller's pointer last seen for this title */
    int key_fixed;            /* key lies in read-only memory: its text cannot change */
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
    int open_else;            /* t->root's: frames of other threads on its counterpart
                               * (set by pt__threads_merge for the reports) */

    /* What makes a figure honest. */
    uint64_t cpu_timed;       /* a GPU section's occurrences timed by the CPU clock */
    int ran_here;             /* a fold of host-mode records showed its work ran inside it */
    double ovh_ns;            /* a phase: the measured cost of its marks, taken out of its time */
    struct pt__ranks *ranks;  /* each rank's total, once runs were merged by rank (merge.c) */

    pt__phase_ext *phase;     /* PT__K_PHASE only */
    double mem_hwm;           /* peak of the tracked total while open (gpu/memory.c) */
    void *nvtx_str;           /* PT_NVTX: the title's registered string */
    struct pt__heat *heat;    /* a folded launch: its last fold per block (gpu/fold.c) */
    pt__shape *shape;         /* a folded launch: how its blocks filled the device */
    struct pt__ovl *ovl;      /* a launch: its latest occurrence's timelines, which each
                                 role folded into it adds to (core/overlap.c) */
    uint64_t folded;          /* a launch: the occurrence (its count) folded last, 0: none */
};

/* A section's total on each rank that has it, across the ranks merged
 * (pt_unpack_merge_rank, pt_mpi_gather). */
typedef struct pt__ranks {
    uint64_t n;               /* ranks that have the section */
    double min_ns, max_ns, sum_ns;
    long long slowest;        /* the rank of max_ns */
} pt__ranks;

/* ptkit's own cost on this machine (core/cost.c): a start+stop pair as
 * the enclosing section sees it, and the part of it inside the inner
 * section's own time. */
enum { PT__COST_NONE = 0, PT__COST_MEASURED, PT__COST_GIVEN };
typedef struct pt__cost {
    int state;                /* PT__COST_*: given by a saved run or a test */
    double pair_ns, inside_ns;
} pt__cost;

/* Why GPU sections were timed by the CPU clock (t->gpu_fallback bits). */
enum {
    PT__FB_FLAG = 1u << 0,    /* the timing was created without PT_GPU_EVENTS */
    PT__FB_DEVICE = 1u << 1,  /* no CUDA runtime, driver or device */
    PT__FB_CUDA = 1u << 2     /* a CUDA call failed for some occurrences */
};

/* Per-block phase times of a launch's last fold, for the HTML report's
 * heatmap. Bounded: grids larger than PT__HEAT_MAX_ROWS blocks are binned,
 * row i holding slots [i * nslots / nrows, (i + 1) * nslots / nrows), each
 * cell the bin's largest time (and which slot had it) and its mean, so the
 * slowest block of a phase always shows. One allocation, freed with its
 * section. */
#define PT__HEAT_MAX_ROWS 1024
typedef struct pt__heat {
    int nslots;               /* slots in the buffer */
    int nrows, nphases;       /* rows kept; ns, mean and at hold nrows * nphases */
    const char **names;       /* the phases: the names of the launch's children */
    double *mean;             /* row-major: the bin's mean over its slots with END */
    int *at;                  /* row-major: the slot with the largest time, -1 for none */
    int *missing;             /* per row: its slots without END */
    double ns[];              /* row-major: the bin's largest time; NaN when no slot has END */
} pt__heat;

/* One open section. A ghost frame stands for a start made while disabled,
 * so its stop pairs with it and does nothing. */
typedef struct pt__frame {
    pt_section *node;         /* NULL for a ghost */
    int64_t t0;               /* clock value at start (ticks) */
    int gpu;                  /* opened by pt_start_gpu */
    int pending;              /* index of its GPU event pair, or -1 */
} pt__frame;

/* PT_TRACE: one occurrence as a thread's log keeps it (ticks of the
 * timing's clock), and the log, which its thread appends to at every stop
 * without a lock; the reports gather the threads' logs into the trace
 * (core/trace.c). */
typedef struct pt__tevent {
    const struct pt_section *node;
    int64_t t0, t1;
} pt__tevent;
/* The log grows by chunks, never copied: each twice the last, up to
 * 2 MiB (huge pages where the kernel gives them), kept for reuse after
 * the reports gather them. */
typedef struct pt__tchunk {
    struct pt__tchunk *next;
    size_t n, cap;            /* events written (once full or left), room */
    pt__tevent ev[];
} pt__tchunk;
typedef struct pt__tlog {
    pt__tevent *ev;           /* the current chunk's events: the hot path's */
    size_t n, alloc;          /* written there, and room there (within the capacity) */
    pt__tchunk *first, *cur;  /* every chunk in order; cur holds ev (NULL: none yet) */
    size_t kept;              /* events in the chunks before cur */
    uint64_t dropped;         /* past the capacity: counted, not kept */
} pt__tlog;

/* A thread's identity: made at its first use of ptkit, marked dead when
 * the thread exits (a thread-specific key's destructor), freed when the
 * last timing referring to it lets go. Unlike an address in thread-local
 * storage, it is never reused by a later thread while anything refers to
 * it, so a new thread never takes over a dead one's open sections. */
struct pt__id {
    atomic_int refs;
    atomic_int dead;
};
PT__HIDDEN extern _Thread_local struct pt__id *pt__id_tls __attribute__((tls_model("initial-exec")));
/* The calling thread's identity, or NULL before its first use. */
static inline struct pt__id *pt__id_self(void)
{
    return pt__id_tls;
}
/* One thread's recording: its open sections and the tree they go into.
 * The thread that created a timing records straight into t->root through
 * t->main; any other thread gets one of these with a tree of its own
 * (threads.c), so start and stop take no lock. A report pools the other
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
    size_t reset_dropped;     /* its open sections a pt_reset dropped, not yet stopped */
    uint64_t changes;         /* starts, stops and metrics added to its tree */
    uint64_t pooled;          /* changes when it was last pooled into t->root */
    double busy_ns;           /* time in its outermost sections */
    /* 1 while the thread is inside a call that writes its tree (gate.h):
     * a report waits for 0 before it reads the tree. */
    _Atomic int busy;
    struct pt__id *self;      /* the thread's identity (threads.c); a reference */
    pt__tlog tlog;            /* PT_TRACE: its occurrences not yet gathered */
    /* Appended under t->lock, read without it by the walks of a report or
     * reset: published whole, by an atomic store (threads.c). */
    _Atomic(struct pt__thr *) next;
    pt_section own_root;
    /* Every occurrence of own_root's pooled into t->root so far: this
     * thread's part of the report (pt_thread_part_get). Off the hot path:
     * only pt__threads_merge writes it. */
    pt_section part_root;
} pt__thr;

/* What a layer above the core attaches to a timing (timing.c calls it at
 * the points named; any member may be NULL). The core never calls up into
 * those layers otherwise: they register here instead. */
typedef struct pt__ext_ops {
    /* Before figures are read (reports, exports, getters): finish
     * pending work, such as GPU events not yet resolved. */
    void (*settle)(pt_timing *t);
    /* No peaks were given: find the machine's, if this layer knows them. */
    void (*peaks)(pt_timing *t);
    /* A real start (stop 0) or stop (stop 1) of node, under t->lock,
     * while t->hooks has PT__HOOK_EXT. */
    void (*boundary)(pt_timing *t, pt_section *node, int stop);
    /* pt_reset: forget what refers to the sections, which are about to go. */
    void (*reset)(pt_timing *t);
    /* pt_destroy: free the attached state. */
    void (*destroy)(pt_timing *t);
} pt__ext_ops;

/* The slots, in the order pt_destroy() and pt_reset() visit them. */
enum { PT__EXT_GPU = 0, PT__EXT_MEMORY, PT__EXT_N };

typedef struct pt__ext {
    const pt__ext_ops *ops;   /* NULL when nothing is attached */
    void *state;              /* the layer's own, opaque here */
} pt__ext;

struct pt_timing {
    char *name;
    unsigned flags;
    _Atomic int enabled;      /* read by every thread's start and stop */
    _Atomic int gate;         /* a report is reading the trees (gate.h); read beside enabled */

    /* Written by the creating thread at every start and stop: on cache
     * lines of their own, apart from what the other threads read. */
    _Alignas(64) pt_section root;
    pt__thr main;             /* the creating thread; its tree is root */

    /* Threads: the creating thread's identity (a reference), the others'
     * recorders. */
    _Alignas(64) struct pt__id *owner;
    uint64_t serial;          /* unique per timing, for the threads' caches */
    pthread_mutex_t lock;     /* the list below, and hooks shared by threads */
    pthread_mutex_t err_lock; /* the error counts and message */
    pthread_mutex_t gate_lock; /* held by the report reading (gate.c); recursive */
    int gate_depth;           /* its nesting, under gate_lock */
    const struct pt__id *gate_owner; /* the reporting thread, under gate_lock */
    _Atomic(pt__thr *) threads; /* as next above */
    _Atomic int nthreads;     /* in the list; raised after the link */
    pt_section **marked;      /* t->root's sections marked open_else, to clear */
    size_t nmarked, marked_cap;
    /* What pt_unpack_merge pooled into t->root from other runs, so that
     * the creating thread's part (t->root less every other part) is its
     * own. */
    pt_section merged_root;

    /* The clock: a user function, the TSC, or clock_gettime (clock.c). */
    pt_clock_fn clock_fn;
    void *clock_ctx;
    int clock_kind;           /* PT__CLOCK_* */
    double ns_per_tick;       /* 1 except for the TSC */
    int64_t origin;           /* PT_TRACE: the clock at the run's start */
    long long origin_wall_ns; /* the wall clock (CLOCK_REALTIME, ns since the epoch) beside it */

    /* Errors: counted, the last one described (errors.c). */
    uint64_t errors;
    uint64_t errors_of[-PT__ERR_LAST];
    char last_error[512];
    pt_line_fn error_fn;
    void *error_ctx;
    /* Notes: facts of the machine, said and counted, not errors (errors.c). */
    uint64_t notes;
    char last_note[256];

    pt__cost cost;            /* core/cost.c */
    unsigned gpu_fallback;    /* PT__FB_*: why GPU sections were timed by the CPU clock */
    char fallback_why[192];   /* PT__FB_DEVICE: what the runtime said */
    int ranks, ranks_empty;   /* runs merged by rank, this one included; ranks that sent nothing */
    int *rank_ids;            /* the ranks merged so far, ascending (ranks.c) */
    size_t nrank_ids, rank_ids_cap;
    uint64_t dropped;         /* device trace events dropped */
    pt_dev_clock dev_clock;   /* how folds turned cycles into time */

    /* Roofline peaks (roofline.c): the user's, else the device's, found
     * lazily at the first report after a GPU was used. */
    double peak_bw, peak_flops;
    int peak_src;             /* PT__PEAKS_* */

    /* Work done on every real start and stop when a PT__HOOK_* bit is
     * set: one word, so the hot path pays one branch for all of them. */
    unsigned hooks;
    struct pt__trace *trace;  /* PT_TRACE's event log (trace.c) */
    struct pt__nvtx *nvtx;    /* PT_NVTX's cached strings (nvtx.c) */
    struct pt__sched *sched;  /* pt_schedule_set()'s state (schedule.c) */
    int user_off;             /* pt_disable(); enabled = !user_off && the schedule's step records */

    pt__ext ext[PT__EXT_N];   /* what the layers above attached (timing.c) */
    char *output;             /* PT_OUTPUT as read at pt_create() (report/output.c), or NULL */
    long output_pid;          /* the process that read it: a forked child writes nothing */
};

enum { PT__HOOK_TRACE = 1u << 0, PT__HOOK_NVTX = 1u << 1, PT__HOOK_EXT = 1u << 2 };
/* The hooks that run under t->lock (the trace log is per thread). */
#define PT__HOOKS_LOCKED (PT__HOOK_NVTX | PT__HOOK_EXT)

enum { PT__CLOCK_USER = 0, PT__CLOCK_TSC, PT__CLOCK_MONO };

enum { PT__PEAKS_NONE = 0, PT__PEAKS_USER, PT__PEAKS_DEVICE, PT__PEAKS_TRIED };

/* Add one occurrence of ns to s: the first is kept apart, the rest go
 * through Welford's update (mean and sum of squared deviations). Inline,
 * since every stop ends here. */
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
    /* 1/n does not wait for the previous mean, so the divide leaves the
     * chain of updates of a section stopped in a tight loop. */
    s->mean_ns += d * (1.0 / (double)n);
    s->m2_ns += d * (ns - s->mean_ns);
    if (ns < s->min_ns)
        s->min_ns = ns;
    if (ns > s->max_ns)
        s->max_ns = ns;
}

#endif
