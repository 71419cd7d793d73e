/* Error codes (one table in pt.h) and errors counted on a timing; notes,
 * the facts of the machine a run should know (no GPU here), counted apart
 * from them. */
#include "core/errors.h"

#include <stdarg.h>
#include <stdio.h>
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
    if (t->error_fn)
        t->error_fn(t->error_ctx, line);
    if (t->flags & PT_VERBOSE)
        fprintf(stderr, "ptkit [%s]: %s\n", t->name, line);
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
