/* Spans (PT_DEV_SPAN_BEGIN/END): their events paired in a record's trace,
 * and each kind's figures kept on the launch (model.h's pt__span), which
 * the fold (gpu/fold_apply.c), the trace (report/trace_blocks.c), merges,
 * packs and restores share. Not installed. */
#ifndef PT_CORE_SPANS_H
#define PT_CORE_SPANS_H

#include "core/model.h"

/* The cycles from clock `from` to clock `to` (to >= from), whatever they
 * are: no subtraction of two records' clocks overflows. */
static inline double pt__cycles(long long from, long long to)
{
    return (double)((unsigned long long)to - (unsigned long long)from);
}

/* One span paired: its kind, id, and the clocks of its begin and end
 * (the k-th and the l-th event of the record); or an event left alone, a
 * begin never closed (l is -1) or an end never opened (k is -1), whose
 * clocks are then 0. */
typedef void (*pt__span_fn)(void *ctx, int kind, unsigned id, long long clk0, long long clk1,
                            long long k, long long l);
/* Pairs the span events among the n (phase or code, clock) events of ev:
 * each end closes the latest open begin of its kind and id. Calls fn for
 * each pair and each event left alone, in no given order; returns the
 * events left alone.
 * scratch holds 4 * n words. O(n log n). */
PT__HIDDEN uint64_t pt__spans_pair(const long long *ev, long long n, long long *scratch,
                                   pt__span_fn fn, void *ctx);
/* Span events left alone in their records, to pair across records (the
 * warps of a block, the roles of a launch): each one's SM, code
 * (PT_DEV_EV_SPAN_CODE, its end bit and all), clock, its record's ns per
 * cycle, and the caller's tag. A span across records lasts its cycles at
 * its begin's rate. */
typedef struct pt__span_ev {
    long long sm, code, clk, tag;
    double rate;
} pt__span_ev;
typedef struct pt__span_evs {
    pt__span_ev *v;
    size_t n, cap;
} pt__span_evs;
PT__HIDDEN int pt__span_evs_add(pt__span_evs *e, const pt__span_ev *ev);
PT__HIDDEN void pt__span_evs_free(pt__span_evs *e);
/* Sorts e by SM and clock, and on each SM pairs its events as
 * pt__spans_pair() pairs a record's, in clock order: fn's k and l are
 * indices into the sorted e. Returns 0 or PT_ENOMEM (nothing paired).
 * O(n log n). */
PT__HIDDEN int pt__span_evs_pair(pt__span_evs *e, pt__span_fn fn, void *ctx);
/* The name of span kind `kind` among n names: names[kind], or "span K"
 * written in buf (32 bytes). */
PT__HIDDEN const char *pt__span_kind_name(char *const *names, int n, int kind, char *buf);
/* The span kind `name` of sh, added when new; NULL without memory. */
PT__HIDDEN pt__span *pt__span_of(pt__shape *sh, const char *name);
/* The same for kind `kind` as n names name the kinds (pt__span_kind_name). */
PT__HIDDEN pt__span *pt__span_of_kind(pt__shape *sh, char *const *names, int n, int kind);
/* Takes kind sp out of sh when it holds nothing (no span, none left
 * unmatched): what pairing across records leaves of a kind. */
PT__HIDDEN void pt__span_drop_empty(pt__shape *sh, pt__span *sp);
/* One span of ns. Returns 0, or PT_ENOMEM (its histogram only is lost). */
PT__HIDDEN int pt__span_add(pt__span *sp, double ns);
/* Pools src's spans into dst's: 0 or PT_ENOMEM. */
PT__HIDDEN int pt__spans_merge(pt__shape *dst, const pt__shape *src);
PT__HIDDEN void pt__spans_free(pt__shape *sh);
/* The q-quantile of a kind's durations (ns), from its histogram: within
 * 3.2%, and within [0, max]. */
PT__HIDDEN double pt__span_quantile(const pt__span *sp, double q);

#endif
