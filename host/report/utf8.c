/* UTF-8: the one place that knows which byte sequences are well-formed.
 * The JSON writer turns the rest into U+FFFD; the text report shows them
 * as "\xHH"; both measure text in code points. */
#include "report/utf8.h"

int pt__utf8_seq(const unsigned char *p)
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
    /* A NUL ends the text and is never a continuation byte, so nothing
     * past it is read. */
    for (int i = 1; i <= need; i++) {
        if (p[i] < lo || p[i] > hi)
            return -i;
        lo = 0x80;
        hi = 0xBF;
    }
    return need + 1;
}

size_t pt__utf8_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

size_t pt__utf8_count(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

size_t pt__utf8_prefix(const char *s, size_t cols)
{
    size_t i = 0;
    while (s[i] && cols) {
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        cols--;
    }
    return i;
}
