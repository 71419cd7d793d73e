/* UTF-8, as the writers need it (utf8.c): telling well-formed text from
 * bytes that are not, and measuring text in code points. Not installed. */
#ifndef PT_REPORT_UTF8_H
#define PT_REPORT_UTF8_H

#include "core/model.h"

#include <stddef.h>

/* The sequence at p (NUL-terminated text): its length in bytes when it is
 * well-formed UTF-8 (1 for ASCII, NUL included), else, negated, the length
 * of the longest start of one, at least 1 (so a broken sequence reads as
 * one unit, as Unicode recommends for U+FFFD). Overlong forms, surrogates
 * and code points past U+10FFFF are not well-formed. */
PT__HIDDEN int pt__utf8_seq(const unsigned char *p);
/* Code points in s: the columns clean UTF-8 text takes, one per code point. */
PT__HIDDEN size_t pt__utf8_width(const char *s);
/* Code points in the first n bytes of UTF-8 text (continuation bytes do
 * not count): the columns the text takes, one per code point. */
PT__HIDDEN size_t pt__utf8_count(const char *s, size_t n);
/* Bytes of the first `cols` code points of s (all of s when it has fewer). */
PT__HIDDEN size_t pt__utf8_prefix(const char *s, size_t cols);

#endif
