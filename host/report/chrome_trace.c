/* The Chrome Trace Event container: events one a line, through the JSON
 * writer (json.c).
 *
 * Times are microseconds on a binary grid: whole nanoseconds are rounded
 * to multiples of 1/1024 us (0.977 ns), printed exactly (at most 10
 * decimals). A viewer adds and subtracts the doubles it reads (speedscope
 * ends an event at ts + dur after taking each track's first start from
 * every ts); with three decimals of microseconds those sums round, and an
 * event could end a fraction of a nanosecond after the next one starts or
 * after its parent, which speedscope refuses. On the grid every such sum
 * and difference is exact below 2^43 us (100 days), so what nests in
 * nanoseconds nests in every viewer, ends meeting starts exactly. */
#include "report/chrome_trace.h"

#include <unistd.h>

long long pt__ctrace_pid(int k)
{
    return (long long)k * PT__CTRACE_PID_STRIDE + (long long)getpid();
}

void pt__ctrace_begin(pt__ctrace *w, FILE *f, long long base_ns)
{
    pt__json_init(&w->j, f, 0);
    w->events = 0;
    pt__json_open_lines(&w->j, '{');
    /* Before the events, so a streaming reader has the time base first. */
    pt__json_k_str(&w->j, "displayTimeUnit", "ms");
    if (base_ns >= 0)
        pt__json_k_i64(&w->j, "baseTimeNanoseconds", base_ns);
    pt__json_key(&w->j, "traceEvents");
    pt__json_open_lines(&w->j, '[');
}

static void event(pt__ctrace *w, const char *ph, int k)
{
    pt__json_item(&w->j);
    pt__json_open(&w->j, '{');
    pt__json_k_str(&w->j, "ph", ph);
    pt__json_k_i64(&w->j, "pid", pt__ctrace_pid(k));
    w->events++;
}

/* ns on the grid: 1024ths of a microsecond, to the nearest; past 2^55 ns
 * (1.1 years, which no timeline reaches but hostile clocks) at 2^55. */
static long long grid(long long ns)
{
    const long long lim = 1LL << 55;
    ns = ns > lim ? lim : ns < -lim ? -lim : ns;
    return ns >= 0 ? (ns * 128 + 62) / 125 : -((-ns * 128 + 62) / 125);
}

/* k 1024ths of a microsecond, exactly: whole microseconds, then the
 * fraction's decimals (k mod 1024 times 10^10 / 1024) without trailing
 * zeros. */
static void micros_grid(pt__json *j, const char *key, long long k)
{
    unsigned long long a = k < 0 ? 0ULL - (unsigned long long)k : (unsigned long long)k;
    unsigned long long frac = (a % 1024) * 9765625ULL;
    int digits = 10;

    pt__json_key(j, key);
    if (!frac) {
        pt__json_printf(j, "%s%llu", k < 0 ? "-" : "", a / 1024);
        return;
    }
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    pt__json_printf(j, "%s%llu.%0*llu", k < 0 ? "-" : "", a / 1024, digits, frac);
}

static void micros(pt__json *j, const char *key, long long ns)
{
    micros_grid(j, key, grid(ns));
}

/* One metadata event: what ("process_name", "thread_sort_index", ...) of
 * process k (tid 0: the process itself, written without a tid). */
static void meta(pt__ctrace *w, int k, long long tid, const char *what, const char *key,
                 const char *s, long long v)
{
    event(w, "M", k);
    if (tid)
        pt__json_k_i64(&w->j, "tid", tid);
    pt__json_k_str(&w->j, "name", what);
    pt__json_key(&w->j, "args");
    pt__json_open(&w->j, '{');
    if (s)
        pt__json_k_str(&w->j, key, s);
    else
        pt__json_k_i64(&w->j, key, v);
    pt__json_close(&w->j, '}');
    pt__json_close(&w->j, '}');
}

void pt__ctrace_process(pt__ctrace *w, int k, const char *name, const char *labels)
{
    meta(w, k, 0, "process_name", "name", name, 0);
    meta(w, k, 0, "process_sort_index", "sort_index", NULL, k);
    if (labels)
        meta(w, k, 0, "process_labels", "labels", labels, 0);
}

void pt__ctrace_thread(pt__ctrace *w, int k, long long tid, const char *name, long long sort_index)
{
    meta(w, k, tid, "thread_name", "name", name, 0);
    meta(w, k, tid, "thread_sort_index", "sort_index", NULL, sort_index);
}

void pt__ctrace_complete(pt__ctrace *w, int k, long long tid, const char *name, const char *cat,
                         long long t0, long long t1)
{
    event(w, "X", k);
    pt__json_k_i64(&w->j, "tid", tid);
    pt__json_k_str(&w->j, "name", name);
    pt__json_k_str(&w->j, "cat", cat);
    micros(&w->j, "ts", t0);
    /* The difference of the two ends on the grid: ts + dur is the end. */
    micros_grid(&w->j, "dur", t1 > t0 ? grid(t1) - grid(t0) : 0);
}

void pt__ctrace_async(pt__ctrace *w, int k, long long tid, const char *name, const char *cat,
                      long long id, long long ts, int begin)
{
    event(w, begin ? "b" : "e", k);
    pt__json_k_i64(&w->j, "tid", tid);
    pt__json_k_str(&w->j, "name", name);
    pt__json_k_str(&w->j, "cat", cat);
    pt__json_k_i64(&w->j, "id", id);
    micros(&w->j, "ts", ts);
}

void pt__ctrace_counter(pt__ctrace *w, int k, long long tid, const char *name, long long ts,
                        double value)
{
    event(w, "C", k);
    pt__json_k_i64(&w->j, "tid", tid);
    pt__json_k_str(&w->j, "name", name);
    micros(&w->j, "ts", ts);
    pt__json_key(&w->j, "args");
    pt__json_open(&w->j, '{');
    pt__json_k_num(&w->j, name, value);
    pt__json_close(&w->j, '}');
    pt__json_close(&w->j, '}');
}

void pt__ctrace_end_event(pt__ctrace *w)
{
    pt__json_close(&w->j, '}');
}

void pt__ctrace_metadata(pt__ctrace *w)
{
    pt__json_close(&w->j, ']');
    pt__json_key(&w->j, "metadata");
    pt__json_open(&w->j, '{');
}

void pt__ctrace_end(pt__ctrace *w)
{
    pt__json_close(&w->j, '}');
    pt__json_close(&w->j, '}');
    pt__json_printf(&w->j, "\n");
}
