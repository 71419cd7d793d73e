/* The Chrome Trace Event container (chrome_trace.c), which
 * ui.perfetto.dev and chrome://tracing open:
 *
 *   { "traceEvents": [ ... ], "displayTimeUnit": "ms", "metadata": { ... } }
 *
 * written by pt_export_trace() and by ptreport's flame chart. Not installed. */
#ifndef PT_REPORT_CHROME_TRACE_H
#define PT_REPORT_CHROME_TRACE_H

#include "report/json.h"

typedef struct pt__ctrace {
    pt__json j;
    uint64_t events;          /* written so far */
} pt__ctrace;

/* The document's start, up to the first event. */
PT__HIDDEN void pt__ctrace_begin(pt__ctrace *w, FILE *f);
/* A metadata ("M") event naming a process or thread: what is
 * "process_name" or "thread_name". */
PT__HIDDEN void pt__ctrace_meta(pt__ctrace *w, int pid, long long tid, const char *what,
                                const char *name);
/* A complete ("X") event, ts and dur in microseconds (written to the
 * nanosecond; a negative dur as 0). The event is left open for more
 * members ("args"); pt__ctrace_end_event() closes it. */
PT__HIDDEN void pt__ctrace_complete(pt__ctrace *w, int pid, long long tid, const char *name,
                                    const char *cat, double ts, double dur);
/* A counter ("C") event: name's value at ts. */
PT__HIDDEN void pt__ctrace_counter(pt__ctrace *w, int pid, const char *name, double ts,
                                   double value);
PT__HIDDEN void pt__ctrace_end_event(pt__ctrace *w);
/* After the last event: the document's "metadata" object, left open for
 * its members; pt__ctrace_end() closes it and the document. */
PT__HIDDEN void pt__ctrace_metadata(pt__ctrace *w);
PT__HIDDEN void pt__ctrace_end(pt__ctrace *w);

#endif
