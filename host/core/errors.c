/* Error codes (one table in pt.h) and errors counted on a timing; notes,
 * the facts of the machine a run should know (no GPU here), counted apart
 * from them. */
#include "core/errors.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pt_strerror(int code)
{
    switch (code) {
    case 0: return "success";
#define PT__ERR_MSG(name, value, msg) case PT_##name: return msg;
    PT_ERRNO_MAP(PT__ERR_MSG)
#undef PT__ERR_MSG
    }
    return "unknown error";
}

const char *pt_err_name(int code)
{
    switch (code) {
    case 0: return "PT_OK";
#define PT__ERR_NAME(name, value, msg) case PT_##name: return "PT_" #name;
    PT_ERRNO_MAP(PT__ERR_NAME)
#undef PT__ERR_NAME
    }
    return "PT_UNKNOWN";
}

void pt__stack_str(const pt__thr *r, char *buf, size_t n)
{
    size_t used = 0;
    if (n == 0)
        return;
    buf[0] = '\0';
    if (r->depth == 0) {
        snprintf(buf, n, "(none)");
        return;
    }
    for (size_t i = 0; i < r->depth && used < n; i++) {
        const pt_section *s = r->stack[i].node;
        int w = snprintf(buf + used, n - used, "%s%s", i ? " > " : "",
                         s ? s->name : "(disabled)");
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* ---- callbacks ----------------------------------------------------- */

/* The callbacks this thread runs, innermost last. */
#define CB_MAX 8
static _Thread_local struct {
    const pt_timing *t;
    int kind;
} cb[CB_MAX];
static _Thread_local int ncb;

/* Errors whose callbacks wait for the end of a deferring region. Past
 * PEND_MAX, the later ones are counted and said in one more call. The
 * queue is allocated on a thread's first such error and freed with the
 * thread: a shared library's static thread-local block is small (a
 * Python process that loads libptkit with dlopen has little of it left). */
#define PEND_MAX 8
typedef struct pend_entry {
    pt_timing *t;
    char line[sizeof ((pt_timing *)0)->last_error];
} pend_entry;
static _Thread_local pend_entry *pend;
static _Thread_local int npend, defer_depth;
static pthread_key_t pend_key;
static pthread_once_t pend_once = PTHREAD_ONCE_INIT;

static void pend_key_make(void)
{
    pthread_key_create(&pend_key, free);
}

/* This thread's queue, or NULL when memory is short. */
static pend_entry *pend_queue(void)
{
    if (!pend) {
        pthread_once(&pend_once, pend_key_make);
        pend = calloc(PEND_MAX, sizeof *pend);
        if (pend)
            pthread_setspecific(pend_key, pend);
    }
    return pend;
}
static _Thread_local pt_timing *more_t;
static _Thread_local uint64_t more;

void pt__callback_enter(const pt_timing *t, int kind)
{
    if (ncb < CB_MAX) {
        cb[ncb].t = t;
        cb[ncb].kind = kind;
    }
    ncb++;
}

void pt__callback_leave(void)
{
    if (ncb > 0)
        ncb--;
}

static int in_callback(const pt_timing *t, int kinds)
{
    for (int i = 0; i < ncb && i < CB_MAX; i++)
        if (cb[i].t == t && (cb[i].kind & kinds))
            return 1;
    return 0;
}

int pt__refused_in_callback(pt_timing *t, int kinds, const char *fn)
{
    if (!t || !in_callback(t, kinds))
        return 0;
    return pt__fail(t, PT_ESTATE,
                    "%s from one of this timing's callbacks (%s): the call that runs the callback "
                    "still uses the sections, which this would free or rebuild; refused",
                    fn, in_callback(t, PT__CB_LINE) ? "a pt_log_fn line" : "its error callback");
}

static void run_error_fn(pt_timing *t, const char *line)
{
    pt_line_fn fn = t->error_fn;
    if (!fn)
        return;
    pt__callback_enter(t, PT__CB_ERROR);
    fn(t->error_ctx, line);
    pt__callback_leave();
}

void pt__defer_begin(void)
{
    defer_depth++;
}

void pt__defer_end(void)
{
    if (--defer_depth > 0)
        return;
    /* Taken off the queue before each call: a callback may fail again. */
    while (npend > 0) {
        char line[sizeof pend[0].line];
        pt_timing *t = pend[0].t;
        memcpy(line, pend[0].line, sizeof line);
        memmove(pend, pend + 1, (size_t)(npend - 1) * sizeof pend[0]);
        npend--;
        run_error_fn(t, line);
    }
    if (more > 0) {
        char line[160];
        pt_timing *t = more_t;
        snprintf(line, sizeof line, "and %llu more errors in the same call (pt_error_count() counts them)",
                 (unsigned long long)more);
        more = 0;
        more_t = NULL;
        run_error_fn(t, line);
    }
}

int pt__fail(pt_timing *t, int code, const char *fmt, ...)
{
    va_list ap;
    char msg[sizeof t->last_error - 16];
    char line[sizeof t->last_error];

    if (!t)
        return code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s: %s", pt_err_name(code), msg);
    /* Any thread may fail; the user's function is called outside the
     * lock, so it may itself call into ptkit. */
    pthread_mutex_lock(&t->err_lock);
    t->errors++;
    if (code < 0 && code > PT__ERR_LAST)
        t->errors_of[-code]++;
    memcpy(t->last_error, line, sizeof line);
    pthread_mutex_unlock(&t->err_lock);
    if (t->flags & PT_VERBOSE)
        fprintf(stderr, "ptkit [%s]: %s\n", t->name, line);
    /* Nothing of t is read after the callback: it may reset, report or
     * leave by longjmp. */
    if (!t->error_fn || in_callback(t, PT__CB_ERROR))
        return code;
    if (defer_depth > 0) {
        if (npend < PEND_MAX && pend_queue()) {
            pend[npend].t = t;
            memcpy(pend[npend].line, line, sizeof line);
            npend++;
        } else {
            more_t = t;
            more++;
        }
        return code;
    }
    run_error_fn(t, line);
    return code;
}

void pt__note(pt_timing *t, const char *fmt, ...)
{
    va_list ap;
    char msg[sizeof t->last_note];

    if (!t)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&t->err_lock);
    t->notes++;
    memcpy(t->last_note, msg, sizeof msg);
    pthread_mutex_unlock(&t->err_lock);
    if (t->flags & PT_VERBOSE)
        fprintf(stderr, "ptkit [%s]: note: %s\n", t->name, msg);
}

uint64_t pt_note_count(const pt_timing *t)
{
    return t ? t->notes : 0;
}

const char *pt_last_note(const pt_timing *t)
{
    return t ? t->last_note : "";
}

uint64_t pt_error_count(const pt_timing *t)
{
    return t ? t->errors : 0;
}

uint64_t pt_error_count_of(const pt_timing *t, int code)
{
    if (!t || code >= 0 || code <= PT__ERR_LAST)
        return 0;
    return t->errors_of[-code];
}

const char *pt_last_error(const pt_timing *t)
{
    return t ? t->last_error : "";
}

void pt_error_fn_set(pt_timing *t, pt_line_fn fn, void *ctx)
{
    if (!t)
        return;
    t->error_fn = fn;
    t->error_ctx = ctx;
}

/* pt__fail for the header-only helpers (pt_mpi.h), which are compiled
 * into the user's program and so reach only exported symbols. */
int pt__error(pt_timing *t, int code, const char *msg)
{
    return pt__fail(t, code, "%s", msg ? msg : pt_strerror(code));
}

/* The previous name, kept for one release (pt.h). */
void pt_set_error_fn(pt_timing *t, pt_line_fn fn, void *ctx)
{
    pt_error_fn_set(t, fn, ctx);
}
