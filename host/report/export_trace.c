/* The Chrome Trace Event export (ui.perfetto.dev, chrome://tracing):
 *
 *   { "traceEvents": [ ... ], "displayTimeUnit": "ms", "metadata": { ... } }
 *
 * Process 1 is the host: one track per thread, each occurrence of a
 * section a complete ("X") event, written parents first so that viewers
 * nest them; counters ("C") go there too. Process 2 holds the launches
 * timed by CUDA events, one track per stream. Process 3 holds folded
 * launches' blocks, one track per SM: each block an "X" event spanning
 * its %globaltimer BEGIN..END with its phase times in "args", and in
 * trace mode one event per (phase, clock64) interval inside it.
 *
 * ts and dur are microseconds from the run's origin with three decimals
 * (nanoseconds). A launch's start comes from its start event's distance
 * to a reference event that was synchronized once (gpu/events.c); a
 * fold's blocks are placed by their own globaltimer, the launch's
 * earliest BEGIN at the launch's start, since globaltimer runs on the
 * GPU's own clock. */
#include "core/clock.h"
#include "core/errors.h"
#include "core/schedule.h"
#include "core/timing.h"
#include "core/trace.h"
#include "report/export_file.h"
#include "report/chrome_trace.h"

#include "pt_fold_math.h"

#include <stdlib.h>
#include <string.h>

enum { PID_HOST = 1, PID_GPU = 2, PID_SM = 3 };
/* The SM track of host-mode records, which have no %smid. */
#define TID_HOST_MODE 1000000

/* Parents before children: by thread, start, then the longer first. */
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

static void host_events(pt_timing *t, pt__ctrace *w)
{
    pt__trace *tr = t->trace;
    int last_tid = 0;
    char name[32];

    if (tr->nhost) /* an empty log has no array to sort */
        qsort(tr->host, tr->nhost, sizeof *tr->host, host_cmp);
    pt__ctrace_meta(w, PID_HOST, 0, "process_name", t->name);
    for (size_t i = 0; i < tr->nhost; i++) {
        const pt__thost *e = &tr->host[i];
        if (e->tid != last_tid) {
            snprintf(name, sizeof name, "thread %d", e->tid);
            pt__ctrace_meta(w, PID_HOST, e->tid, "thread_name", name);
            last_tid = e->tid;
        }
        pt__ctrace_complete(w, PID_HOST, e->tid, e->node->name,
                            e->node->kind == PT__K_GPU ? "launch" : "host", pt__trace_us(t, e->t0),
                            (double)(e->t1 - e->t0) * t->ns_per_tick / 1e3);
        pt__ctrace_end_event(w);
    }
    for (size_t i = 0; i < tr->ncounter; i++) {
        const pt__tcounter *c = &tr->counter[i];
        pt__ctrace_counter(w, PID_HOST, c->name, pt__trace_us(t, c->tick), c->value);
    }
}

static void gpu_events(pt_timing *t, pt__ctrace *w)
{
    pt__trace *tr = t->trace;
    pt_stream *streams = NULL;
    size_t nstreams = 0;
    char name[64];

    if (!tr->ngpu)
        return;
    pt__ctrace_meta(w, PID_GPU, 0, "process_name", "GPU launches (CUDA events)");
    streams = malloc(tr->ngpu * sizeof *streams);
    for (size_t i = 0; i < tr->ngpu; i++) {
        const pt__tgpu *e = &tr->gpu[i];
        size_t k = 0;
        /* Streams are numbered in order of first use: a handful, so a
         * scan does. Without memory every launch goes on track 0. */
        if (streams) {
            while (k < nstreams && streams[k] != e->stream)
                k++;
            if (k == nstreams) {
                streams[nstreams++] = e->stream;
                if (e->stream)
                    snprintf(name, sizeof name, "stream %p", (void *)e->stream);
                else
                    snprintf(name, sizeof name, "default stream");
                pt__ctrace_meta(w, PID_GPU, (int)k, "thread_name", name);
            }
        }
        pt__ctrace_complete(w, PID_GPU, (long long)k, e->node->name, "gpu", e->ts_us, e->dur_us);
        pt__ctrace_end_event(w);
    }
    free(streams);
}

static void block_events(pt__ctrace *w, const pt__tfold *f, int s, long long gt_min, char *named, int nnamed)
{
    long long sw = PT_DEV_SLOT_WORDS(f->nphases, f->trace_cap);
    const long long *rec = f->recs + s * sw;
    const long long *ph = rec + PT_DEV_SLOT_HDR, *ev = ph + 2 * f->nphases;
    long long smid = rec[PT_DEV_S_SMID], tid = smid >= 0 ? smid : TID_HOST_MODE;
    long long gt = rec[PT_DEV_S_GT1] - rec[PT_DEV_S_GT0];
    double rate;
    double ts = f->launch_us + (double)(rec[PT_DEV_S_GT0] - gt_min) / 1e3;
    char name[32];

    /* The rate the fold converted this block with. */
    pt__slot_rate(rec, f->tick_ns, f->ns_per_cycle, &rate);
    if (smid >= 0 && smid < nnamed && !named[smid]) {
        named[smid] = 1;
        snprintf(name, sizeof name, "SM %lld", smid);
        pt__ctrace_meta(w, PID_SM, (int)smid, "thread_name", name);
    }
    pt__ctrace_complete(w, PID_SM, tid, f->node->name, "blocks", ts, (double)gt / 1e3);
    pt__json_key(&w->j, "args");
    pt__json_open(&w->j, '{');
    pt__json_k_i64(&w->j, "block", s);
    for (int p = 0; p < f->nphases; p++) {
        pt__json_key(&w->j, f->names[p] ? f->names[p] : "phase");
        pt__json_sig(&w->j, (double)ph[2 * p] * rate / 1e6, 9);
    }
    pt__json_close(&w->j, '}');
    pt__ctrace_end_event(w);
    if (f->trace_cap > 0) {
        long long n = rec[PT_DEV_S_NEVENTS] < f->trace_cap ? rec[PT_DEV_S_NEVENTS] : f->trace_cap;
        long long prev = rec[PT_DEV_S_CLK0];
        /* Each event closes its phase's interval since the previous mark. */
        for (long long k = 0; k < n; k++) {
            long long p = ev[2 * k], at = ev[2 * k + 1];
            const char *pn = p >= 0 && p < f->nphases && f->names[p] ? f->names[p] : "(bad phase)";
            pt__ctrace_complete(w, PID_SM, tid, pn, "phases",
                                ts + (double)(prev - rec[PT_DEV_S_CLK0]) * rate / 1e3,
                                (double)(at - prev) * rate / 1e3);
            pt__ctrace_end_event(w);
            prev = at;
        }
    }
}

static void sm_events(pt_timing *t, pt__ctrace *w)
{
    pt__trace *tr = t->trace;
    char named[1024] = { 0 };
    int host_named = 0;

    (void)t;
    if (!tr->nfolds)
        return;
    pt__ctrace_meta(w, PID_SM, 0, "process_name", "GPU blocks by SM (folded launches)");
    for (int i = 0; i < tr->nfolds; i++) {
        const pt__tfold *f = &tr->folds[i];
        long long sw = PT_DEV_SLOT_WORDS(f->nphases, f->trace_cap), gt_min = 0;
        int any = 0;
        for (int s = 0; s < f->kept; s++) {
            const long long *rec = f->recs + s * sw;
            if (rec[PT_DEV_S_DONE] == 1 && (!any || rec[PT_DEV_S_GT0] < gt_min)) {
                gt_min = rec[PT_DEV_S_GT0];
                any = 1;
            }
        }
        for (int s = 0; s < f->kept; s++) {
            const long long *rec = f->recs + s * sw;
            if (rec[PT_DEV_S_DONE] != 1)
                continue;
            if (rec[PT_DEV_S_SMID] < 0 && !host_named) {
                host_named = 1;
                pt__ctrace_meta(w, PID_SM, TID_HOST_MODE, "thread_name", "host mode");
            }
            block_events(w, f, s, gt_min, named, (int)sizeof named);
        }
    }
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
    pt__json_k_str(j, "clock", pt__clock_name(t));
    pt__json_k_num(j, "ns_per_tick", t->ns_per_tick);
    pt__json_k_u64(j, "capacity", tr->cap);
    pt__json_k_u64(j, "dropped", dropped);
    pt__json_k_u64(j, "dropped_host", tr->dropped_host);
    pt__json_k_u64(j, "dropped_gpu", tr->dropped_gpu);
    pt__json_k_u64(j, "dropped_counter", tr->dropped_counter);
    pt__json_k_u64(j, "dropped_device", t->dropped);
    pt__json_k_u64(j, "fold_launches_cut", tr->launches_cut);
    pt__json_k_u64(j, "fold_blocks_cut", tr->blocks_cut);
    pt__json_k_str(j, "schedule", sched);
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

    (void)ctx;
    pt__settle(t);
    pt__ctrace_begin(&w, f);
    host_events(t, &w);
    gpu_events(t, &w);
    sm_events(t, &w);
    metadata(t, &w);
    return 0;
}

int pt_export_trace(pt_timing *t, const char *path)
{
    if (!t)
        return 0;
    if (!t->trace)
        return pt__fail(t, PT_ESTATE, "pt_export_trace: the timing was created without PT_TRACE");
    return pt__export(t, path, "pt_export_trace", 0, write_trace, NULL);
}
