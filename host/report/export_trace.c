/* The Chrome Trace Event export (ui.perfetto.dev, chrome://tracing,
 * speedscope):
 *
 *   { "displayTimeUnit": "ms", "baseTimeNanoseconds": N,
 *     "traceEvents": [ ... ], "metadata": { ... } }
 *
 * A timing made with PT_TRACE gives a timeline in three processes (pids
 * and order: chrome_trace.h). The host: one track per thread (tid: its OS
 * id), each occurrence of a section a complete ("X") event, parents
 * written first so that viewers nest them; counters ("C") too. The GPU
 * launches timed by CUDA events: one track per stream (tid 1, 2, ... in
 * order of first use). The folded launches' blocks: lanes per SM
 * (trace_blocks.c). Times are whole nanoseconds from the run's origin,
 * which baseTimeNanoseconds places on the wall clock. A launch's start
 * comes from its start event's distance to a reference event that was
 * synchronized once (gpu/events.c); a fold's blocks are placed by their
 * own globaltimer, the launch's earliest BEGIN at the launch's start,
 * since globaltimer runs on the GPU's own clock.
 *
 * A timing without PT_TRACE kept no occurrences: it gets the aggregate
 * flame chart (flame.c), as ptreport convert --to trace writes it. */
#include "core/clock.h"
#include "core/errors.h"
#include "core/schedule.h"
#include "core/timing.h"
#include "core/trace.h"
#include "report/chrome_trace.h"
#include "report/export_file.h"
#include "report/flame.h"
#include "report/trace_blocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Host events by thread, then start, the longer (the parent) first. */
static int host_cmp(const void *pa, const void *pb)
{
    const pt__thost *a = pa, *b = pb;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->t0 != b->t0)
        return a->t0 < b->t0 ? -1 : 1;
    if (a->t1 != b->t1)
        return a->t1 > b->t1 ? -1 : 1;
    return a->node->depth < b->node->depth ? -1 : a->node->depth > b->node->depth;
}

/* A tick of t's clock as whole ns from the origin. Rounding is monotonic,
 * so a child's ends stay inside its parent's. */
static long long host_ns(const pt_timing *t, int64_t tick)
{
    return llround((double)(tick - t->origin) * t->ns_per_tick);
}

static void host_events(pt_timing *t, pt__ctrace *w)
{
    pt__trace *tr = t->trace;
    char name[64], labels[64];
    int last = 0;

    if (tr->nhost) /* an empty log has no array to sort */
        qsort(tr->host, tr->nhost, sizeof *tr->host, host_cmp);
    snprintf(labels, sizeof labels, "ptkit host sections, pid %ld", (long)getpid());
    pt__ctrace_process(w, PT__CTRACE_HOST, t->name, labels);
    for (size_t i = 0; i < tr->nhost; i++) {
        const pt__thost *e = &tr->host[i];
        if (e->tid != last) {
            /* The viewers show the OS tid beside the name themselves. */
            snprintf(name, sizeof name, "thread %d", e->tid);
            pt__ctrace_thread(w, PT__CTRACE_HOST, e->os_tid, name, e->tid);
            last = e->tid;
        }
        pt__ctrace_complete(w, PT__CTRACE_HOST, e->os_tid, e->node->name,
                            e->node->kind == PT__K_GPU ? "launch" : "host", host_ns(t, e->t0),
                            host_ns(t, e->t1));
        pt__ctrace_end_event(w);
    }
    for (size_t i = 0; i < tr->ncounter; i++) {
        const pt__tcounter *c = &tr->counter[i];
        pt__ctrace_counter(w, PT__CTRACE_HOST, t->main.tid, c->name, host_ns(t, c->tick), c->value);
    }
}

/* Launches by stream (the order of first use), then start, the longer first. */
typedef struct launch {
    const pt__tgpu *e;
    int stream;
    long long t0, t1;
} launch;

static int launch_cmp(const void *pa, const void *pb)
{
    const launch *a = pa, *b = pb;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    if (a->t0 != b->t0)
        return a->t0 < b->t0 ? -1 : 1;
    return a->t1 > b->t1 ? -1 : a->t1 < b->t1;
}

static int gpu_events(pt_timing *t, pt__ctrace *w)
{
    pt__trace *tr = t->trace;
    pt_stream *streams;
    launch *v;
    int nstreams = 0;
    char name[64];

    if (!tr->ngpu)
        return 0;
    streams = malloc(tr->ngpu * sizeof *streams);
    v = malloc(tr->ngpu * sizeof *v);
    if (!streams || !v) {
        free(streams);
        free(v);
        return PT_ENOMEM;
    }
    pt__ctrace_process(w, PT__CTRACE_GPU, "GPU launches (CUDA events)",
                       "ptkit: one track per stream");
    for (size_t i = 0; i < tr->ngpu; i++) {
        const pt__tgpu *e = &tr->gpu[i];
        int k = 0;
        /* Streams are numbered in order of first use: a handful, so a scan does. */
        while (k < nstreams && streams[k] != e->stream)
            k++;
        if (k == nstreams) {
            streams[nstreams++] = e->stream;
            if (e->stream)
                snprintf(name, sizeof name, "stream %p", (void *)e->stream);
            else
                snprintf(name, sizeof name, "default stream");
            pt__ctrace_thread(w, PT__CTRACE_GPU, k + 1, name, k + 1);
        }
        v[i] = (launch){ e, k + 1, llround(e->ts_us * 1e3), llround((e->ts_us + e->dur_us) * 1e3) };
    }
    qsort(v, tr->ngpu, sizeof *v, launch_cmp);
    for (size_t i = 0; i < tr->ngpu; i++) {
        pt__ctrace_complete(w, PT__CTRACE_GPU, v[i].stream, v[i].e->node->name, "gpu", v[i].t0,
                            v[i].t1);
        pt__ctrace_end_event(w);
    }
    free(streams);
    free(v);
    return 0;
}

static void metadata(pt_timing *t, pt__ctrace *w)
{
    pt__trace *tr = t->trace;
    pt__json *j = &w->j;
    char sched[160];
    uint64_t dropped = pt__trace_dropped(t);

    pt__sched_describe(t, sched, sizeof sched);
    pt__ctrace_metadata(w);
    pt__json_k_str(j, "tool", "ptkit");
    pt__json_k_str(j, "version", pt_version());
    pt__json_k_str(j, "name", t->name);
    pt__json_k_str(j, "layout", "timeline");
    pt__json_k_str(j, "clock", pt__clock_name(t));
    pt__json_k_num(j, "ns_per_tick", t->ns_per_tick);
    pt__json_k_i64(j, "process_id", (long long)getpid());
    pt__json_key(j, "pids");
    pt__json_open(j, '{');
    pt__json_k_i64(j, "host", pt__ctrace_pid(PT__CTRACE_HOST));
    pt__json_k_i64(j, "gpu_launches", pt__ctrace_pid(PT__CTRACE_GPU));
    pt__json_k_i64(j, "gpu_blocks", pt__ctrace_pid(PT__CTRACE_SM));
    pt__json_close(j, '}');
    pt__json_k_str(j, "note_time", "ts are microseconds after baseTimeNanoseconds (the wall "
                                   "clock at pt_create() or the latest pt_clock_set()), on "
                                   "ptkit's clock");
    pt__json_k_u64(j, "capacity", tr->cap);
    pt__json_k_u64(j, "dropped", dropped);
    pt__json_k_u64(j, "dropped_host", tr->dropped_host);
    pt__json_k_u64(j, "dropped_gpu", tr->dropped_gpu);
    pt__json_k_u64(j, "dropped_counter", tr->dropped_counter);
    pt__json_k_u64(j, "dropped_device", t->dropped);
    pt__json_k_u64(j, "fold_launches_cut", tr->launches_cut);
    pt__json_k_u64(j, "fold_blocks_cut", tr->blocks_cut);
    pt__json_k_str(j, "schedule", sched);
    if (tr->nfolds)
        pt__json_k_str(j, "note_blocks",
                       "each SM has one track per block resident on it at once (lanes), so "
                       "blocks on a track never overlap; a block's phases are drawn inside it: "
                       "as they ran from a trace buffer, else each phase's total one after "
                       "another in phase order (\"phases (aggregate)\")");
    /* Each kind of drop names its own knob: the trace's capacity for what
     * the host kept, a record buffer's trace_cap for what the device kept. */
    if (dropped)
        pt__json_k_str(j, "note_dropped",
                       "events were dropped past the capacity: raise it with "
                       "pt_trace_capacity_set(), or record fewer steps with pt_schedule_set()");
    if (t->dropped)
        pt__json_k_str(j, "note_dropped_device",
                       "device trace events were dropped past a record buffer's trace_cap: "
                       "raise it in pt_dev_records_create(), or record fewer launches");
    if (w->events > PT__TRACE_LARGE)
        pt__json_k_str(j, "note_size", "more than a million events: viewers may be slow; "
                                       "pt_trace_capacity_set() caps them");
    pt__ctrace_end(w);
}

static int write_trace(pt_timing *t, FILE *f, void *ctx)
{
    pt__ctrace w;
    int rc;

    (void)ctx;
    if (!t->trace)
        return pt__flame_write(t, f, NULL);
    pt__settle(t);
    pt__ctrace_begin(&w, f, t->origin_wall_ns);
    host_events(t, &w);
    rc = gpu_events(t, &w);
    if (rc == 0)
        rc = pt__trace_blocks(t, &w);
    if (rc == 0)
        metadata(t, &w);
    return rc;
}

int pt_export_trace(pt_timing *t, const char *path)
{
    if (!t)
        return 0;
    /* The flame chart holds open sections (marked); the timeline has no
     * end for them. */
    return pt__export(t, path, "pt_export_trace", !t->trace, write_trace, NULL);
}
