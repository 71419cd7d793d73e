/* PT_TRACE's log, shared by host/trace.c (recording) and
 * host/export_trace.c (writing). Not installed. */
#ifndef PT_TRACE_H
#define PT_TRACE_H

#include "gpu/gpu.h"

#define PT__TRACE_DEFAULT_CAP ((size_t)1 << 20)
/* Folded launches whose block records are kept, blocks kept per launch,
 * and int64 words kept in all (64 MiB). */
#define PT__TRACE_FOLD_LAUNCHES 64
#define PT__TRACE_FOLD_BLOCKS 4096
#define PT__TRACE_FOLD_WORDS (8LL << 20)
/* Past this many events in all, the trace notes that viewers slow down. */
#define PT__TRACE_LARGE 1000000

/* One occurrence of a host section (GPU sections included, as the host
 * saw them), in ticks of t's clock. */
typedef struct pt__thost {
    const pt_section *node;
    int64_t t0, t1;
    int tid;
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

/* The first blocks of one folded launch, as the device wrote them. */
typedef struct pt__tfold {
    const pt_section *node;   /* the launch */
    int nphases, trace_cap, nslots, kept;
    char **names;             /* nphases copies */
    long long *recs;          /* kept slot records */
    double tick_ns;           /* globaltimer tick (INFINITY: unknown) */
    double ns_per_cycle;      /* for blocks without a rate of their own */
    double launch_us;         /* the launch's start on the host timeline */
} pt__tfold;

typedef struct pt__trace {
    int64_t origin;           /* t's clock at the run's start */
    size_t cap;
    pt__thost *host;
    size_t nhost, host_alloc;
    pt__tgpu *gpu;
    size_t ngpu, gpu_alloc;
    pt__tcounter *counter;
    size_t ncounter, counter_alloc;
    uint64_t dropped_host, dropped_gpu, dropped_counter;
    pt__tfold folds[PT__TRACE_FOLD_LAUNCHES];
    int nfolds;
    long long fold_words;
    uint64_t launches_cut, blocks_cut;
    const pt_section *launch_node; /* the latest launch placed, and where */
    double launch_us;
} pt__trace;

/* Microseconds from the run's origin to tick. */
PT__HIDDEN double pt__trace_us(const pt_timing *t, int64_t tick);
/* A launch resolved by its events: from_ref_ns after the reference event,
 * which the host clock read as ref_tick, lasting dur_ns. */
PT__HIDDEN void pt__trace_gpu(pt_timing *t, const pt_section *node, pt_stream stream,
                              int64_t ref_tick, double from_ref_ns, double dur_ns);
/* Keep the first blocks of a fold's records d (buffer b, launch node). */
PT__HIDDEN void pt__trace_fold(pt_timing *t, const pt_dev_buffer *b, const pt_section *node,
                               const long long *d, double tick_ns, double ns_per_cycle);

#endif
