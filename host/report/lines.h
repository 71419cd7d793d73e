/* The text report's line sink (lines.c): a line is built piece by piece,
 * then handed whole, without its newline, to a pt_line_fn. Titles are
 * cleaned on the way in and measured in code points, so columns line up
 * whatever they hold. Not installed. */
#ifndef PT_REPORT_LINES_H
#define PT_REPORT_LINES_H

#include "core/model.h"
#include "report/utf8.h"

#include <stddef.h>

typedef struct pt__lines {
    pt_line_fn fn;
    void *ctx;
    char *buf;                /* the line being built */
    size_t len, cap;
    int oom;                  /* a piece did not fit: the report is cut short */
} pt__lines;

PT__HIDDEN void pt__line_n(pt__lines *k, const char *s, size_t n);
PT__HIDDEN void pt__line_str(pt__lines *k, const char *s);
PT__HIDDEN void pt__line_spaces(pt__lines *k, size_t n);
PT__HIDDEN void pt__line_printf(pt__lines *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* s with control characters and bytes that are not UTF-8 made visible
 * ("\n", "\xHH"). */
PT__HIDDEN void pt__line_clean(pt__lines *k, const char *s);
/* s in a cell of w columns, padded on the left (right-aligned) or right. */
PT__HIDDEN void pt__line_cell(pt__lines *k, const char *s, size_t w, int right);
/* Hands the line built so far to the sink, without trailing blanks. */
PT__HIDDEN void pt__line_emit(pt__lines *k);
/* A line of n copies of c. */
PT__HIDDEN void pt__line_rule(pt__lines *k, char c, size_t n);

/* s cleaned as pt__line_clean() does, malloc'ed; NULL without memory. */
PT__HIDDEN char *pt__clean_dup(const char *s);

#endif
