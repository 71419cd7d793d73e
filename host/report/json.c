/* JSON strings: any C string as a JSON string that every parser accepts.
 * Bytes that are not UTF-8 become U+FFFD, control characters are
 * escaped, and in HTML mode '<', '>' and '&' too, so the text can sit
 * inside a <script> element without closing it. */
#include "report/json.h"

/* Bytes of the well-formed UTF-8 sequence at p, or, negated, the length
 * of the longest start of one (so a broken sequence becomes one U+FFFD,
 * as Unicode recommends). Overlong forms, surrogates and code points
 * past U+10FFFF are not well formed. */
static int utf8_scan(const unsigned char *p)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xBF;
    int need;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return -1;
    }
    for (int i = 1; i <= need; i++) {
        if (p[i] < lo || p[i] > hi)
            return -i;
        lo = 0x80;
        hi = 0xBF;
    }
    return need + 1;
}

int pt__json_str(FILE *f, const char *s, int html)
{
    const unsigned char *p = (const unsigned char *)s;
    int bad = 0;

#define PUT(b, n) (bad |= (n) && fwrite((b), 1, (n), f) != (size_t)(n))
    PUT("\"", 1);
    while (*p && !bad) {
        const unsigned char *q = p;
        /* Copy the longest run that needs no escaping in one write. */
        while (*q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\' &&
               !(html && (*q == '<' || *q == '>' || *q == '&')))
            q++;
        PUT(p, (size_t)(q - p));
        p = q;
        if (!*p)
            break;
        int n = utf8_scan(p);
        if (n > 1) {
            PUT(p, (size_t)n);
            p += n;
            continue;
        }
        if (n < 0) {
            PUT("\xEF\xBF\xBD", 3); /* U+FFFD REPLACEMENT CHARACTER */
            p += -n;
            continue;
        }
        switch (*p) {
        case '"': PUT("\\\"", 2); break;
        case '\\': PUT("\\\\", 2); break;
        case '\n': PUT("\\n", 2); break;
        case '\r': PUT("\\r", 2); break;
        case '\t': PUT("\\t", 2); break;
        case '\b': PUT("\\b", 2); break;
        case '\f': PUT("\\f", 2); break;
        default: bad |= fprintf(f, "\\u%04X", *p) < 0; break;
        }
        p++;
    }
    PUT("\"", 1);
#undef PUT
    return bad ? -1 : 0;
}

