/* Where a value of a saved run is. jansson keeps no positions for the
 * values it returns, so a member found wrong after parsing is located by
 * walking the (already valid) text again along the member's path.
 * Duplicate keys are refused while parsing, which keeps that walk
 * unambiguous. */
#include "where.h"

#include "api/tool.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* Past the string that starts at s[i] (a '"'). */
static size_t skip_string(const char *s, size_t n, size_t i)
{
    for (i++; i < n && s[i] != '"'; i++)
        if (s[i] == '\\')
            i++;
    return i < n ? i + 1 : n;
}

/* Past the value that starts at s[i]. */
static size_t skip_value(const char *s, size_t n, size_t i)
{
    int nest = 0;

    if (i >= n)
        return n;
    if (s[i] == '"')
        return skip_string(s, n, i);
    if (s[i] != '{' && s[i] != '[') {
        while (i < n && !strchr(",]} \t\r\n", s[i]))
            i++;
        return i;
    }
    for (; i < n; i++) {
        if (s[i] == '"') {
            i = skip_string(s, n, i) - 1;
        } else if (s[i] == '{' || s[i] == '[') {
            nest++;
        } else if (s[i] == '}' || s[i] == ']') {
            if (--nest == 0)
                return i + 1;
        }
    }
    return n;
}

/* Whether the JSON string at s[i] reads as `key`; only the escapes that
 * stand for one ASCII character are decoded, which is all our keys use. */
static int key_is(const char *s, size_t n, size_t i, const char *key)
{
    size_t k = 0;
    for (i++; i < n && s[i] != '"'; i++, k++) {
        char c = s[i];
        if (c == '\\') {
            if (++i >= n)
                return 0;
            switch (s[i]) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': return 0;
            default: c = s[i]; break;
            }
        }
        if (key[k] != c)
            return 0;
    }
    return key[k] == '\0';
}

/* Offset of the value at the end of c->path, or of the deepest value on
 * the way that could be found. */
static size_t locate(const pr_where *c)
{
    const char *s = c->text;
    size_t n = c->len, i = skip_ws(s, n, 0);

    for (int d = 0; d < c->depth && i < n; d++) {
        const pr_step *st = &c->path[d];
        size_t at = i, idx = 0;
        int found = 0;

        if (s[i] != (st->key ? '{' : '['))
            return at;
        i = skip_ws(s, n, i + 1);
        while (i < n && s[i] != '}' && s[i] != ']') {
            if (st->key) {
                int match = key_is(s, n, i, st->key);
                i = skip_ws(s, n, skip_string(s, n, i));
                i = skip_ws(s, n, i + 1); /* the ':' */
                if (match) {
                    found = 1;
                    break;
                }
            } else if (idx++ == st->index) {
                found = 1;
                break;
            }
            i = skip_ws(s, n, skip_value(s, n, i));
            if (i < n && s[i] == ',')
                i = skip_ws(s, n, i + 1);
        }
        if (!found)
            return at;
    }
    return i < n ? i : n;
}

int pr_fail_at(pr_where *c, const char *fmt, ...)
{
    size_t off = locate(c), line = 1, bol = 0, col;
    int k;
    va_list ap;

    if (off > c->len)
        off = c->len;
    for (size_t i = 0; i < off; i++) {
        if (c->text[i] == '\n') {
            line++;
            bol = i + 1;
        }
    }
    /* Columns count characters, as jansson's own do. */
    col = 1 + pt__utf8_count(c->text + bol, off - bol);
    k = snprintf(c->err, c->errlen, "%s: %zu:%zu: ", c->file, line, col);
    if (k < 0 || (size_t)k >= c->errlen)
        return -1;
    va_start(ap, fmt);
    vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

int pr_enter_key(pr_where *c, const char *key)
{
    if (c->depth == PR_MAX_STEPS)
        return pr_fail_at(c, "nested too deeply");
    c->path[c->depth].key = key;
    c->path[c->depth].index = 0;
    c->depth++;
    return 0;
}

int pr_enter_index(pr_where *c, size_t index)
{
    if (c->depth == PR_MAX_STEPS)
        return pr_fail_at(c, "nested too deeply");
    c->path[c->depth].key = NULL;
    c->path[c->depth].index = index;
    c->depth++;
    return 0;
}

void pr_leave(pr_where *c)
{
    c->depth--;
}
