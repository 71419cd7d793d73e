/* PT_TRACE's log, kept by core/trace.c and written by
 * report/export_trace.c. Not installed. */
#ifndef PT_CORE_TRACE_H
#define PT_CORE_TRACE_H

#include "core/model.h"

#include <stddef.h>

#define PT__TRACE_DEFAULT_CAP ((size_t)1 << 20)
/* Folded launches whose block records are kept, blocks kept per launch,
 * and int64 words kept in all (64 MiB). */
#define PT__TRACE_FOLD_LAUNCHES 64
#define PT__TRACE_FOLD_BLOCKS 4096
#define PT__TRACE_FOLD_WORDS (8LL << 20)
/* Past this many events in all, the trace notes that viewers slow down. */
#define PT__TRACE_LARGE 1000000

/* One occurrence of a host section (GPU sections included, as the host
 * saw them), in ticks of t's clock, gathered from its thread's log, and
 * the thread that timed it: its number (1 for the creating thread, then
 * 2, 3, ...) and its OS id. */
typedef struct pt__thost {
    const pt_section *node;
    int64_t t0, t1;
    int tid;
    int os_tid;
} pt__thost;

/* One launch timed by CUDA events, on the host timeline. */
typedef struct pt__tgpu {
    const pt_section *node;
    pt_stream stream;
    double ts_us, dur_us;
} pt__tgpu;

typedef struct pt__tcounter {
    char name[48];
    int64_t tick;
    double value;
} pt__tcounter;

/* The latest anything of a folded launch is drawn (2^53 ns, 104 days):
 * clocks of hostile records never overflow the timeline. */
#define PT__TRACE_SPAN_MAX (1LL << 53)

/* The first blocks of one folded launch, as the device wrote them. */
typedef struct pt__tfold {
    const pt_section *node;   /* the launch */
    int nphases, trace_cap, nslots, kept;
    char **names;             /* nphases copies */
    long long *recs;          /* kept slot records */
    double tick_ns;           /* globaltimer tick (INFINITY: unknown) */
    double ns_per_cycle;      /* for blocks without a rate of their own */
    double launch_us;         /* the launch's start on the host timeline */
    const pt_section *launch; /* the launch section, and which occurrence of it: its
                                 kept folds are drawn from their earliest BEGIN */
    uint64_t occurrence;
    long long gt_first;       /* the earliest BEGIN of its kept blocks that ended, */
    int began;                /* where it has one */
    int host;                 /* host mode: SMID is the CPU the block ran on */
    char **span_names;        /* nspan_names copies */
    int nspan_names;
    unsigned char *wait;      /* nphases flags (a copy), or NULL: no phase is a wait */
    int overlap;              /* its overlap is figured: the trace draws its bubbles */
} pt__tfold;

typedef struct pt__trace {
    size_t cap;
    pt__thost *host;
    size_t nhost, host_alloc;
    pt__tgpu *gpu;
    size_t ngpu, gpu_alloc;
    pt__tcounter *counter;
    size_t ncounter, counter_alloc;
    uint64_t dropped_host, dropped_gpu, dropped_counter;
    _Atomic int full;         /* a log filled: counted as an error once */
    pt__tfold folds[PT__TRACE_FOLD_LAUNCHES];
    int nfolds;
    long long fold_words;
    uint64_t launches_cut, blocks_cut;
    const pt_section *launch_node; /* the latest launch placed, and where */
    double launch_us;
} pt__trace;

PT__HIDDEN int pt__trace_init(pt_timing *t);      /* at pt_create with PT_TRACE */
PT__HIDDEN void pt__trace_free(pt_timing *t);
PT__HIDDEN void pt__trace_clear(pt_timing *t);    /* pt_reset: the nodes are gone */
/* Events the log could not keep (host, GPU and fold samples); 0 without PT_TRACE. */
PT__HIDDEN uint64_t pt__trace_dropped(const pt_timing *t);
/* Microseconds from the run's origin to tick. */
PT__HIDDEN double pt__trace_us(const pt_timing *t, int64_t tick);
/* One occurrence of a launch (pt_stop_gpu) from t0 to t1 on t's clock,
 * by the creating thread: it starts there until its events place it. */
PT__HIDDEN void pt__trace_host(pt_timing *t, const pt_section *node, int64_t t0, int64_t t1,
                               int gpu);
/* Room for one more event in r's log: its next chunk, reused or made, up
 * to the capacity; 0 when full or out of memory (the event is then
 * counted as dropped). */
PT__HIDDEN int pt__tlog_grow(pt_timing *t, pt__thr *r);

/* One occurrence of node from t0 to t1 in r's log: a store, without a
 * lock or a call while the log has room (every stop of a PT_TRACE timing). */
static inline void pt__tlog_add(pt_timing *t, pt__thr *r, const pt_section *node, int64_t t0,
                                int64_t t1)
{
    pt__tlog *l = &r->tlog;
    pt__tevent *e;

    if (l->n == l->alloc && !pt__tlog_grow(t, r))
        return;
    e = &l->ev[l->n++];
    e->node = node;
    e->t0 = t0;
    e->t1 = t1;
}
/* Every thread's log moved into the trace (the reports, when no other
 * thread is timing: pt__settle). */
PT__HIDDEN void pt__trace_gather(pt_timing *t);
/* A launch resolved by its events: from_ref_ns after the reference event,
 * which the host clock read as ref_tick, lasting dur_ns. */
PT__HIDDEN void pt__trace_gpu(pt_timing *t, const pt_section *node, pt_stream stream,
                              int64_t ref_tick, double from_ref_ns, double dur_ns);
/* A counter sample ("C" event) at ts_tick on t's clock, for tracks such as
 * device memory in use. A no-op without PT_TRACE. */
PT__HIDDEN void pt__trace_counter(pt_timing *t, const char *name, int64_t ts_tick, double value);

/* The shape of a fold's records (include/pt/pt_dev_buf.h) and its phases'
 * names, nphases of them (NULL entries read "phase"). */
typedef struct pt__fold_shape {
    int nslots, nphases, trace_cap;
    char *const *names;
    int host;                 /* host mode: the records' SMID is a CPU */
    char *const *span_names;  /* the span kinds' names (NULL: "span K") */
    int nspan_names;
    const unsigned char *wait; /* nphases flags, the phases that are waits, or NULL */
    int overlap;              /* its overlap is figured (gpu/overlap.c's pt__overlap_wanted) */
} pt__fold_shape;
/* Keep the first blocks of a fold's records d into node, of the launch
 * `launch` (node itself, or its role or graph kernel). */
PT__HIDDEN void pt__trace_fold(pt_timing *t, const pt__fold_shape *b, const pt_section *node,
                               const pt_section *launch, const long long *d, double tick_ns,
                               double ns_per_cycle);
/* The earliest BEGIN of the ended blocks kept of kept fold i's launch
 * occurrence, its own and the other folds' (a graph replay's other
 * kernels, the launch's other roles), in *gt: drawn from there, they sit
 * at their offsets from one another, as they ran. 1, or 0 (*gt as it
 * was) when it has none. O(folds kept), at most PT__TRACE_FOLD_LAUNCHES. */
PT__HIDDEN int pt__trace_origin(const pt__trace *tr, int i, long long *gt);
/* A launch no event placed (a graph replay timed by its kernels) starts
 * where the host launched it, at t0. */
PT__HIDDEN void pt__trace_launch_host(pt_timing *t, const pt_section *node, int64_t t0);

#endif
