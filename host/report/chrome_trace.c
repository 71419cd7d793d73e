/* The Chrome Trace Event container: events one a line, through the JSON
 * writer (json.c). Times are microseconds with three decimals, so
 * nanoseconds survive. */
#include "report/chrome_trace.h"

void pt__ctrace_begin(pt__ctrace *w, FILE *f)
{
    pt__json_init(&w->j, f, 0);
    w->events = 0;
    pt__json_open_lines(&w->j, '{');
    pt__json_key(&w->j, "traceEvents");
    pt__json_open_lines(&w->j, '[');
}

static void event(pt__ctrace *w, const char *ph)
{
    pt__json_item(&w->j);
    pt__json_open(&w->j, '{');
    pt__json_k_str(&w->j, "ph", ph);
    w->events++;
}

void pt__ctrace_meta(pt__ctrace *w, int pid, long long tid, const char *what, const char *name)
{
    event(w, "M");
    pt__json_k_i64(&w->j, "pid", pid);
    pt__json_k_i64(&w->j, "tid", tid);
    pt__json_k_str(&w->j, "name", what);
    pt__json_key(&w->j, "args");
    pt__json_open(&w->j, '{');
    pt__json_k_str(&w->j, "name", name);
    pt__json_close(&w->j, '}');
    pt__json_close(&w->j, '}');
}

void pt__ctrace_complete(pt__ctrace *w, int pid, long long tid, const char *name, const char *cat,
                         double ts, double dur)
{
    event(w, "X");
    pt__json_k_str(&w->j, "name", name);
    pt__json_k_str(&w->j, "cat", cat);
    pt__json_k_i64(&w->j, "pid", pid);
    pt__json_k_i64(&w->j, "tid", tid);
    pt__json_key(&w->j, "ts");
    pt__json_fixed(&w->j, ts, 3);
    pt__json_key(&w->j, "dur");
    pt__json_fixed(&w->j, dur < 0 ? 0 : dur, 3);
}

void pt__ctrace_counter(pt__ctrace *w, int pid, const char *name, double ts, double value)
{
    event(w, "C");
    pt__json_k_str(&w->j, "name", name);
    pt__json_k_i64(&w->j, "pid", pid);
    pt__json_k_i64(&w->j, "tid", 0);
    pt__json_key(&w->j, "ts");
    pt__json_fixed(&w->j, ts, 3);
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
    pt__json_k_str(&w->j, "displayTimeUnit", "ms");
    pt__json_key(&w->j, "metadata");
    pt__json_open(&w->j, '{');
}

void pt__ctrace_end(pt__ctrace *w)
{
    pt__json_close(&w->j, '}');
    pt__json_close(&w->j, '}');
    pt__json_printf(&w->j, "\n");
}
