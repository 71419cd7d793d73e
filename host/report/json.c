/* The JSON writer. One writer for every JSON ptkit writes, so each
 * document is escaped, laid out and checked the same way:
 *
 *  - strings are valid UTF-8 whatever the titles hold: bytes that are not
 *    UTF-8 become U+FFFD (utf8.c), control characters are escaped, and in
 *    HTML mode '<', '>' and '&' too (as \u003C and so on), so the text can
 *    sit inside a <script> element without closing it or opening a
 *    comment;
 *  - numbers are written as "%.17g" writes them, which reads back as the
 *    same double (whole numbers, most figures, as integers, the others by
 *    pt__fmt_g(), without printf where it can), and a number that is not
 *    finite as null;
 *  - writes go to the stream unlocked: a document is written by one
 *    thread, and a lock per piece cost more than the piece; the pieces
 *    of one call (a member's comma, indentation, key and value) are
 *    gathered first and written at once when it returns, so the stream
 *    is always up to date between calls (the page writes around the
 *    JSON) and sees one write per member, not one per piece;
 *  - pretty documents put each member and element on a line of its own;
 *    compact ones may put each element of a long list on its own line;
 *  - the first failed write stops the writing: the stream keeps its error,
 *    which the atomic writer's commit turns into PT_EIO with the reason. */
#define _GNU_SOURCE /* fwrite_unlocked */
#include "report/json.h"

#include "report/format.h"
#include "report/utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

void pt__json_init(pt__json *w, FILE *f, unsigned flags)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->flags = flags;
    w->first = 1;
}

static void flush(pt__json *w)
{
    if (w->n && !w->err && fwrite_unlocked(w->buf, 1, w->n, w->f) != w->n)
        w->err = 1;
    w->n = 0;
}

/* A piece, gathered; every exported call but pt__json_key() and
 * pt__json_item() (a value always follows them) flushes before it
 * returns. */
static void put(pt__json *w, const char *s, size_t n)
{
    if (w->err || !n)
        return;
    if (n > sizeof w->buf - w->n) {
        flush(w);
        if (n > sizeof w->buf) {
            if (fwrite_unlocked(s, 1, n, w->f) != n)
                w->err = 1;
            return;
        }
    }
    memcpy(w->buf + w->n, s, n);
    w->n += n;
}

void pt__json_raw(pt__json *w, const char *s, size_t n)
{
    put(w, s, n);
    flush(w);
}

static void outs(pt__json *w, const char *s)
{
    put(w, s, strlen(s));
}

void pt__json_printf(pt__json *w, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    int n;

    if (w->err)
        return;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        w->err = 1;
    } else if ((size_t)n < sizeof small) {
        put(w, small, (size_t)n);
        flush(w);
    } else {
        flush(w);
        va_start(ap, fmt);
        if (!w->err && vfprintf(w->f, fmt, ap) < 0)
            w->err = 1;
        va_end(ap);
    }
}

/* v's decimal digits, written backwards from end; returns where they start. */
static char *digits(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

/* ---- layout ------------------------------------------------------ */

static int bit_here(const pt__json *w, uint64_t bits)
{
    return w->level > 0 && w->level <= 64 && (bits >> (w->level - 1) & 1);
}

static int lines_here(const pt__json *w)
{
    return bit_here(w, w->lines);
}

static int pretty_here(const pt__json *w)
{
    return (w->flags & PT__JSON_PRETTY) && !bit_here(w, w->inline_);
}

static void newline(pt__json *w)
{
    static const char spaces[] = "                                ";
    int n = 2 * w->level;

    outs(w, "\n");
    for (; n > 0; n -= (int)(sizeof spaces - 1))
        put(w, spaces, n < (int)(sizeof spaces - 1) ? (size_t)n : sizeof spaces - 1);
}

/* Before a member or an element: the comma after the previous one, and
 * the line it starts on. */
static void next(pt__json *w)
{
    if (!w->first)
        outs(w, pretty_here(w) || !bit_here(w, w->inline_) ? "," : ", ");
    if (pretty_here(w))
        newline(w);
    else if (lines_here(w))
        outs(w, "\n");
    w->first = 0;
}

enum { ONE_LINE_EACH = 1, ALL_ON_ONE = 2 };

static void open_(pt__json *w, char brace, int how)
{
    char b[2] = { brace, '\0' };

    outs(w, b);
    w->level++;
    w->first = 1;
    if (w->level <= 64) {
        uint64_t bit = (uint64_t)1 << (w->level - 1);
        w->lines = how == ONE_LINE_EACH ? w->lines | bit : w->lines & ~bit;
        w->inline_ = how == ALL_ON_ONE ? w->inline_ | bit : w->inline_ & ~bit;
    }
    flush(w);
}

void pt__json_open(pt__json *w, char brace)
{
    open_(w, brace, 0);
}

void pt__json_open_lines(pt__json *w, char brace)
{
    open_(w, brace, ONE_LINE_EACH);
}

void pt__json_open_inline(pt__json *w, char brace)
{
    open_(w, brace, ALL_ON_ONE);
}

void pt__json_close(pt__json *w, char brace)
{
    char b[2] = { brace == '{' ? '}' : brace == '[' ? ']' : brace, '\0' };
    int had = !w->first, pretty = pretty_here(w);

    if (had && lines_here(w) && !(w->flags & PT__JSON_PRETTY))
        outs(w, "\n");
    w->level--;
    if (had && pretty)
        newline(w);
    outs(w, b);
    w->first = 0;
    flush(w);
}

static void str_(pt__json *w, const char *s);

/* The key, gathered with its comma and indentation: the value's call
 * writes them together. */
void pt__json_key(pt__json *w, const char *key)
{
    next(w);
    str_(w, key);
    outs(w, w->flags & PT__JSON_PRETTY ? ": " : ":");
}

void pt__json_item(pt__json *w)
{
    next(w);
}

/* ---- values ------------------------------------------------------ */

static void str_(pt__json *w, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    int html = (w->flags & PT__JSON_HTML) != 0;

    outs(w, "\"");
    while (*p && !w->err) {
        const unsigned char *q = p;
        int n;
        /* Copy the longest run that needs no escaping in one write. */
        while (*q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\' &&
               !(html && (*q == '<' || *q == '>' || *q == '&')))
            q++;
        put(w, (const char *)p, (size_t)(q - p));
        p = q;
        if (!*p)
            break;
        n = pt__utf8_seq(p);
        if (n > 1) {
            put(w, (const char *)p, (size_t)n);
            p += n;
            continue;
        }
        if (n < 0) {
            outs(w, "\xEF\xBF\xBD"); /* U+FFFD REPLACEMENT CHARACTER */
            p += -n;
            continue;
        }
        switch (*p) {
        case '"': outs(w, "\\\""); break;
        case '\\': outs(w, "\\\\"); break;
        case '\n': outs(w, "\\n"); break;
        case '\r': outs(w, "\\r"); break;
        case '\t': outs(w, "\\t"); break;
        case '\b': outs(w, "\\b"); break;
        case '\f': outs(w, "\\f"); break;
        default: pt__json_printf(w, "\\u%04X", *p); break;
        }
        p++;
    }
    outs(w, "\"");
}

void pt__json_str(pt__json *w, const char *s)
{
    str_(w, s);
    flush(w);
}

void pt__json_num(pt__json *w, double v)
{
    pt__json_sig(w, v, 17);
}

static double pow10_of(int n)
{
    double p = 1;
    while (n-- > 0)
        p *= 10;
    return p;
}

void pt__json_sig(pt__json *w, double v, int ndigits)
{
    char b[32], *p;

    if (!isfinite(v)) {
        pt__json_null(w);
        return;
    }
    /* A whole number below 2^53 is exact as an integer, and "%.*g" would
     * write it the same way (up to its digits): most figures are such
     * (counts, bytes, zeros), and need no printf. */
    if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v &&
        (ndigits >= 16 || fabs(v) < pow10_of(ndigits))) {
        p = digits(b + sizeof b, (uint64_t)(v < 0 ? -v : v));
        if (v < 0)
            *--p = '-';
        pt__json_raw(w, p, (size_t)(b + sizeof b - p));
        return;
    }
    pt__json_raw(w, b, pt__fmt_g(b, v, ndigits));
}

void pt__json_fixed(pt__json *w, double v, int decimals)
{
    if (isfinite(v))
        pt__json_printf(w, "%.*f", decimals, v);
    else
        pt__json_null(w);
}

void pt__json_u64(pt__json *w, uint64_t v)
{
    char b[24], *p = digits(b + sizeof b, v);
    pt__json_raw(w, p, (size_t)(b + sizeof b - p));
}

void pt__json_i64(pt__json *w, long long v)
{
    char b[24], *p = digits(b + sizeof b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    if (v < 0)
        *--p = '-';
    pt__json_raw(w, p, (size_t)(b + sizeof b - p));
}

void pt__json_bool(pt__json *w, int v)
{
    outs(w, v ? "true" : "false");
    flush(w);
}

void pt__json_null(pt__json *w)
{
    outs(w, "null");
    flush(w);
}

/* ---- members ----------------------------------------------------- */

void pt__json_k_str(pt__json *w, const char *key, const char *v)
{
    pt__json_key(w, key);
    pt__json_str(w, v);
}

void pt__json_k_num(pt__json *w, const char *key, double v)
{
    pt__json_key(w, key);
    pt__json_num(w, v);
}

void pt__json_k_u64(pt__json *w, const char *key, uint64_t v)
{
    pt__json_key(w, key);
    pt__json_u64(w, v);
}

void pt__json_k_i64(pt__json *w, const char *key, long long v)
{
    pt__json_key(w, key);
    pt__json_i64(w, v);
}

void pt__json_k_bool(pt__json *w, const char *key, int v)
{
    pt__json_key(w, key);
    pt__json_bool(w, v);
}
