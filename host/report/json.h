/* The JSON writer every JSON the library and ptreport write goes through
 * (json.c): the JSON export, the HTML page's data, the Chrome traces.
 * Not installed. */
#ifndef PT_REPORT_JSON_H
#define PT_REPORT_JSON_H

#include "core/model.h"

#include <stdint.h>
#include <stdio.h>

/* How the text is laid out and escaped. */
enum {
    PT__JSON_PRETTY = 1u << 0, /* members and elements on lines of their own, two spaces a level */
    PT__JSON_HTML = 1u << 1    /* strings also without '<', '>' and '&' (inside <script>) */
};

/* A document being written. The first failed write is remembered and
 * nothing more is written; the stream keeps its error flag and errno for
 * the atomic writer's commit to report. */
typedef struct pt__json {
    FILE *f;
    unsigned flags;           /* PT__JSON_* */
    int err;                  /* a write failed */
    int level;                /* containers open */
    int first;                /* nothing written yet in the current container */
    uint64_t lines;           /* bit k: the container at level k+1 puts each element on a new line */
    uint64_t inline_;         /* bit k: the container at level k+1 stays on one line, pretty or not */
    size_t n;                 /* bytes held in buf: each call hands its pieces to the stream */
    char buf[512];            /* in one write when it returns (a key, with the value after it) */
} pt__json;

PT__HIDDEN void pt__json_init(pt__json *w, FILE *f, unsigned flags);

/* Containers: '{' or '['. Compact, pt__json_open_lines() starts each
 * element of the container on a line of its own; pretty,
 * pt__json_open_inline() keeps a short one on one line ("[1, 2]"). A
 * container is a value:
 * after pt__json_key() in an object, after pt__json_item() in an array,
 * or the document itself. */
PT__HIDDEN void pt__json_open(pt__json *w, char brace);
PT__HIDDEN void pt__json_open_lines(pt__json *w, char brace);
PT__HIDDEN void pt__json_open_inline(pt__json *w, char brace);
PT__HIDDEN void pt__json_close(pt__json *w, char brace);
/* What comes before a member (its key and the colon) or an element. */
PT__HIDDEN void pt__json_key(pt__json *w, const char *key);
PT__HIDDEN void pt__json_item(pt__json *w);

/* Values. A number that is not finite is null, JSON having no token for it. */
PT__HIDDEN void pt__json_str(pt__json *w, const char *s);
PT__HIDDEN void pt__json_num(pt__json *w, double v);       /* "%.17g": reads back as the same double */
PT__HIDDEN void pt__json_sig(pt__json *w, double v, int digits);   /* "%.*g": fewer digits */
PT__HIDDEN void pt__json_fixed(pt__json *w, double v, int decimals); /* "%.*f" */
PT__HIDDEN void pt__json_u64(pt__json *w, uint64_t v);
PT__HIDDEN void pt__json_i64(pt__json *w, long long v);
PT__HIDDEN void pt__json_bool(pt__json *w, int v);
PT__HIDDEN void pt__json_null(pt__json *w);
/* Text written as it is (a value the caller formats, a page around the data). */
PT__HIDDEN void pt__json_raw(pt__json *w, const char *s, size_t n);
PT__HIDDEN void pt__json_printf(pt__json *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A member: the key, then the value. */
PT__HIDDEN void pt__json_k_str(pt__json *w, const char *key, const char *v);
PT__HIDDEN void pt__json_k_num(pt__json *w, const char *key, double v);
PT__HIDDEN void pt__json_k_u64(pt__json *w, const char *key, uint64_t v);
PT__HIDDEN void pt__json_k_i64(pt__json *w, const char *key, long long v);
PT__HIDDEN void pt__json_k_bool(pt__json *w, const char *key, int v);

#endif
