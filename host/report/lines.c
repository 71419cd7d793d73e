/* The line sink: each line of a text report is built here, piece by
 * piece, then handed whole to a pt_line_fn (the user's, or pt_log()'s
 * writer to a FILE), so every view prints exactly the same lines through
 * either. Text from the run (titles, messages) is cleaned on the way in:
 * control characters become visible escapes ("\n") and bytes that are not
 * UTF-8 become "\xHH", so a title can never split a line or upset a
 * terminal; widths count code points, not bytes, so "±" and UTF-8 titles
 * do not shift the columns. */
#include "report/lines.h"

#include "report/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(pt__lines *k, size_t more)
{
    size_t need = k->len + more + 1, cap;
    char *b;

    if (k->oom)
        return -1;
    if (need <= k->cap)
        return 0;
    cap = k->cap ? k->cap : 256;
    while (cap < need)
        cap *= 2;
    b = realloc(k->buf, cap);
    if (!b) {
        k->oom = 1;
        return -1;
    }
    k->buf = b;
    k->cap = cap;
    return 0;
}

void pt__line_n(pt__lines *k, const char *s, size_t n)
{
    if (reserve(k, n) < 0)
        return;
    memcpy(k->buf + k->len, s, n);
    k->len += n;
    k->buf[k->len] = '\0';
}

void pt__line_str(pt__lines *k, const char *s)
{
    pt__line_n(k, s, strlen(s));
}

void pt__line_spaces(pt__lines *k, size_t n)
{
    if (reserve(k, n) < 0)
        return;
    memset(k->buf + k->len, ' ', n);
    k->len += n;
    k->buf[k->len] = '\0';
}

void pt__line_printf(pt__lines *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pt__line_printf(pt__lines *k, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(k, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(k->buf + k->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    k->len += (size_t)n;
}

/* Hands the line built so far to the sink, without trailing blanks. */
void pt__line_emit(pt__lines *k)
{
    if (k->oom)
        return;
    if (reserve(k, 0) < 0)
        return;
    while (k->len && k->buf[k->len - 1] == ' ')
        k->len--;
    k->buf[k->len] = '\0';
    k->fn(k->ctx, k->buf);
    k->len = 0;
}

/* ---- cleaning and measuring text --------------------------------- */

/* Appends s with control characters and invalid bytes made visible. */
void pt__line_clean(pt__lines *k, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = pt__utf8_seq(p);
        if (n == 1 && *p >= 0x20 && *p != 0x7F) {
            const unsigned char *q = p;
            while (*q >= 0x20 && *q < 0x7F)
                q++;
            pt__line_n(k, (const char *)p, (size_t)(q - p));
            p = q;
            continue;
        }
        if (n > 1) {
            pt__line_n(k, (const char *)p, (size_t)n);
            p += n;
            continue;
        }
        switch (*p) {
        case '\n': pt__line_str(k, "\\n"); break;
        case '\r': pt__line_str(k, "\\r"); break;
        case '\t': pt__line_str(k, "\\t"); break;
        default: pt__line_printf(k, "\\x%02X", *p); break;
        }
        p++;
    }
}

char *pt__clean_dup(const char *s)
{
    pt__lines k = { 0 };
    pt__line_clean(&k, s);
    /* An empty title appends nothing: the buffer is made here, and ends
     * with its NUL like any other. */
    if (!k.oom && reserve(&k, 0) == 0) {
        k.buf[k.len] = '\0';
        return k.buf;
    }
    free(k.buf);
    return NULL;
}

void pt__line_cell(pt__lines *k, const char *s, size_t w, int right)
{
    size_t sw = pt__utf8_width(s), pad = sw < w ? w - sw : 0;
    if (right)
        pt__line_spaces(k, pad);
    pt__line_str(k, s);
    if (!right)
        pt__line_spaces(k, pad);
}

void pt__line_rule(pt__lines *k, char c, size_t n)
{
    if (reserve(k, n) < 0)
        return;
    memset(k->buf + k->len, c, n);
    k->len += n;
    k->buf[k->len] = '\0';
    pt__line_emit(k);
}
