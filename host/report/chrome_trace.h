/* The Chrome Trace Event container (chrome_trace.c), which
 * ui.perfetto.dev, chrome://tracing and speedscope open:
 *
 *   { "displayTimeUnit": "ms", "baseTimeNanoseconds": N,
 *     "traceEvents": [ ... ], "metadata": { ... } }
 *
 * written by pt_export_trace() and by the aggregate flame chart (flame.c).
 * Times are whole nanoseconds, written as microseconds with three
 * decimals, so an event's end is exactly its start plus its duration and
 * rounding never makes a child cross its parent. Not installed. */
#ifndef PT_REPORT_CHROME_TRACE_H
#define PT_REPORT_CHROME_TRACE_H

#include "report/json.h"

typedef struct pt__ctrace {
    pt__json j;
    uint64_t events;          /* written so far */
} pt__ctrace;

/* The processes of a trace. Their pids are k x PT__CTRACE_PID_STRIDE +
 * the OS process id (Linux keeps that below 4,194,304), so they are never
 * an OS process's id, a CUDA device ordinal (torch.profiler's GPU pids) or
 * Kineto's pids from 5,000,000, and two processes' traces never share
 * one. Sorted in this order, before any process sorting itself by its pid. */
enum { PT__CTRACE_HOST = 1, PT__CTRACE_GPU = 2, PT__CTRACE_SM = 3 };
#define PT__CTRACE_PID_STRIDE 10000000LL
PT__HIDDEN long long pt__ctrace_pid(int k);

/* The document's start, up to the first event; base_ns, the wall clock
 * (ns since the epoch) that ts 0 stands for, is left out when negative. */
PT__HIDDEN void pt__ctrace_begin(pt__ctrace *w, FILE *f, long long base_ns);
/* Metadata ("M") naming a process (k, as above) and giving its sort
 * index; labels (may be NULL) shows beside its name. */
PT__HIDDEN void pt__ctrace_process(pt__ctrace *w, int k, const char *name, const char *labels);
/* Metadata naming a thread (a track) of process k, and its place among
 * the process's tracks (lower first). tid is never 0. */
PT__HIDDEN void pt__ctrace_thread(pt__ctrace *w, int k, long long tid, const char *name,
                                  long long sort_index);
/* A complete ("X") event from t0 to t1 (ns from the trace's origin; t1
 * below t0 is taken as t0). The event is left open for more members
 * ("args"); pt__ctrace_end_event() closes it. */
PT__HIDDEN void pt__ctrace_complete(pt__ctrace *w, int k, long long tid, const char *name,
                                    const char *cat, long long t0, long long t1);
/* An async slice's begin ("b") or end ("e"): the slices of one cat, name
 * and id pair up, and slices that overlap on one track stay apart (a
 * viewer draws them on tracks of their own, not nested). Left open for
 * "args", as a complete event is. */
PT__HIDDEN void pt__ctrace_async(pt__ctrace *w, int k, long long tid, const char *name,
                                 const char *cat, long long id, long long ts, int begin);
/* A counter ("C") event: name's value at ts (ns from the origin). */
PT__HIDDEN void pt__ctrace_counter(pt__ctrace *w, int k, long long tid, const char *name,
                                   long long ts, double value);
PT__HIDDEN void pt__ctrace_end_event(pt__ctrace *w);
/* After the last event: the document's "metadata" object, left open for
 * its members; pt__ctrace_end() closes it and the document. */
PT__HIDDEN void pt__ctrace_metadata(pt__ctrace *w);
PT__HIDDEN void pt__ctrace_end(pt__ctrace *w);

#endif
