/* A Chrome Trace Event file checked as the viewers read it (Perfetto,
 * chrome://tracing, speedscope): the container, every event's members,
 * and on every track (pid, tid) complete events that nest. Perfetto drops
 * an event that crosses another on its track, catapult nests it under the
 * wrong parent and speedscope stops with "Tried to end X when Y was on
 * top of the stack", so a crossing is a fault here. Also: no tid 0 (some
 * viewers make it a process-wide track), every track and process named.
 * Times are compared as whole nanoseconds (ptkit writes microseconds with
 * three decimals). Header-only, for the suites that read traces. */
#ifndef PT_TEST_TRACE_CHECK_H
#define PT_TEST_TRACE_CHECK_H

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tc_event {
    long long pid, tid, t0, t1;
    const char *name;
} tc_event;

typedef struct tc_track {
    long long pid, tid;
} tc_track;

static int tc_fault(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int tc_fault(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return 1;
}

static int tc_by_track(const void *pa, const void *pb)
{
    const tc_event *a = pa, *b = pb;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->t0 != b->t0)
        return a->t0 < b->t0 ? -1 : 1;
    return a->t1 > b->t1 ? -1 : a->t1 < b->t1;
}

static int tc_has(const tc_track *v, size_t n, long long pid, long long tid)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].pid == pid && v[i].tid == tid)
            return 1;
    return 0;
}

/* 0 when doc is a well-formed trace whose tracks all nest; else 1, and the
 * first fault in why. */
static int trace_check(json_t *doc, char *why, size_t n)
{
    json_t *evs = json_object_get(doc, "traceEvents"), *e, *base, *unit;
    size_t i, nx = 0, nthreads = 0, nprocs = 0, cap;
    tc_event *x;
    tc_track *threads, *procs;
    int rc = 0;

    if (!json_is_object(doc) || !json_is_array(evs))
        return tc_fault(why, n, "not an object with a traceEvents array");
    base = json_object_get(doc, "baseTimeNanoseconds");
    if (base && (!json_is_integer(base) || json_integer_value(base) < 0))
        return tc_fault(why, n, "baseTimeNanoseconds is not a non-negative integer");
    unit = json_object_get(doc, "displayTimeUnit");
    if (unit && (!json_is_string(unit) || (strcmp(json_string_value(unit), "ms") != 0 &&
                                           strcmp(json_string_value(unit), "ns") != 0)))
        return tc_fault(why, n, "displayTimeUnit is neither \"ms\" nor \"ns\"");
    cap = json_array_size(evs) + 1;
    x = calloc(cap, sizeof *x);
    threads = calloc(cap, sizeof *threads);
    procs = calloc(cap, sizeof *procs);
    if (!x || !threads || !procs) {
        free(x);
        free(threads);
        free(procs);
        return tc_fault(why, n, "out of memory");
    }
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *pid = json_object_get(e, "pid"), *tid = json_object_get(e, "tid");
        json_t *args = json_object_get(e, "args");

        if (!json_is_object(e) || !ph || !name || !json_is_integer(pid)) {
            rc = tc_fault(why, n, "event %zu: no ph, name or integer pid", i);
            break;
        }
        if (tid && !json_is_integer(tid)) {
            rc = tc_fault(why, n, "event %zu (%s): tid is not an integer", i, name);
            break;
        }
        if (tid && json_integer_value(tid) == 0) {
            rc = tc_fault(why, n, "event %zu (%s): tid 0", i, name);
            break;
        }
        if (strcmp(ph, "M") == 0) {
            int thread = strncmp(name, "thread_", 7) == 0;
            if (strcmp(name, "process_name") != 0 && strcmp(name, "process_labels") != 0 &&
                strcmp(name, "process_sort_index") != 0 && strcmp(name, "thread_name") != 0 &&
                strcmp(name, "thread_sort_index") != 0) {
                rc = tc_fault(why, n, "event %zu: unknown metadata \"%s\"", i, name);
                break;
            }
            if (!json_is_object(args) || (thread && !tid)) {
                rc = tc_fault(why, n, "event %zu: metadata %s without args or tid", i, name);
                break;
            }
            if (strcmp(name, "thread_name") == 0) {
                threads[nthreads].pid = json_integer_value(pid);
                threads[nthreads++].tid = json_integer_value(tid);
            } else if (strcmp(name, "process_name") == 0) {
                procs[nprocs++].pid = json_integer_value(pid);
            }
            continue;
        }
        if (!tid) {
            rc = tc_fault(why, n, "event %zu (%s): no tid", i, name);
            break;
        }
        json_t *ts = json_object_get(e, "ts");
        if (!json_is_number(ts) || !isfinite(json_number_value(ts))) {
            rc = tc_fault(why, n, "event %zu (%s): ts is not a finite number", i, name);
            break;
        }
        if (strcmp(ph, "C") == 0) {
            if (!json_is_object(args) || json_object_size(args) == 0) {
                rc = tc_fault(why, n, "event %zu (%s): a counter without values", i, name);
                break;
            }
            continue;
        }
        if (strcmp(ph, "b") == 0 || strcmp(ph, "e") == 0) {
            /* An async slice's end: the begin of its cat, name and id, before it. */
            json_t *id = json_object_get(e, "id"), *cat = json_object_get(e, "cat"), *o;
            size_t k, found = 0;
            if (!json_is_integer(id) || !json_is_string(cat)) {
                rc = tc_fault(why, n, "event %zu (%s): an async event without an integer id "
                              "and a cat", i, name);
                break;
            }
            json_array_foreach(evs, k, o) {
                const char *ph2 = json_string_value(json_object_get(o, "ph"));
                if (k == i || !ph2 || strcmp(ph2, ph[0] == 'b' ? "e" : "b") != 0 ||
                    !json_equal(json_object_get(o, "id"), id) ||
                    !json_equal(json_object_get(o, "cat"), cat) ||
                    !json_equal(json_object_get(o, "name"), json_object_get(e, "name")))
                    continue;
                double t2 = json_number_value(json_object_get(o, "ts"));
                found += ph[0] == 'b' ? t2 >= json_number_value(ts) : t2 <= json_number_value(ts);
            }
            if (found != 1) {
                rc = tc_fault(why, n, "event %zu (%s): async %s id %lld has %zu %s", i, name,
                              ph[0] == 'b' ? "begin" : "end", (long long)json_integer_value(id),
                              found, ph[0] == 'b' ? "ends after it" : "begins before it");
                break;
            }
            continue;
        }
        if (strcmp(ph, "X") != 0) {
            rc = tc_fault(why, n, "event %zu (%s): phase \"%s\" (ptkit writes X, b, e, C and M)",
                          i, name, ph);
            break;
        }
        json_t *dur = json_object_get(e, "dur");
        if (!json_is_number(dur) || !(json_number_value(dur) >= 0)) {
            rc = tc_fault(why, n, "event %zu (%s): dur is not a number >= 0", i, name);
            break;
        }
        x[nx].pid = json_integer_value(pid);
        x[nx].tid = json_integer_value(tid);
        /* In picoseconds, the end from the sum a viewer makes: ptkit's
         * times lie on a grid of 1024ths of a microsecond, where it is exact. */
        x[nx].t0 = llround(json_number_value(ts) * 1e6);
        x[nx].t1 = llround((json_number_value(ts) + json_number_value(dur)) * 1e6);
        x[nx++].name = name;
    }
    if (!rc) {
        /* Per track, in order of start (the longer first): each event ends
         * inside every event still open when it starts. */
        tc_event **stack = malloc(cap * sizeof *stack);
        size_t depth = 0;
        qsort(x, nx, sizeof *x, tc_by_track);
        for (i = 0; i < nx && !rc && stack; i++) {
            if (i && (x[i].pid != x[i - 1].pid || x[i].tid != x[i - 1].tid))
                depth = 0;
            if (!tc_has(threads, nthreads, x[i].pid, x[i].tid))
                rc = tc_fault(why, n, "track pid %lld tid %lld has no thread_name", x[i].pid,
                              x[i].tid);
            else if (!tc_has(procs, nprocs, x[i].pid, 0))
                rc = tc_fault(why, n, "process %lld has no process_name", x[i].pid);
            while (!rc && depth && stack[depth - 1]->t1 <= x[i].t0)
                depth--;
            if (!rc && depth && x[i].t1 > stack[depth - 1]->t1)
                rc = tc_fault(why, n,
                              "on track pid %lld tid %lld, \"%s\" [%lld, %lld] ps crosses \"%s\" "
                              "[%lld, %lld] ps",
                              x[i].pid, x[i].tid, x[i].name, x[i].t0, x[i].t1,
                              stack[depth - 1]->name, stack[depth - 1]->t0, stack[depth - 1]->t1);
            stack[depth++] = &x[i];
        }
        if (!stack)
            rc = tc_fault(why, n, "out of memory");
        free(stack);
    }
    free(x);
    free(threads);
    free(procs);
    return rc;
}

#endif
