/* The packed format's bytes (pack.c says the format): the buffers and
 * the primitives that write and check them (pack_bytes.c), which pack.c
 * and the launch shape's part (pack_shape.c) use. Not installed. */
#ifndef PT_CORE_PACK_H
#define PT_CORE_PACK_H

#include "core/model.h"

#include <stddef.h>

typedef struct pt__wbuf {
    unsigned char *p;
    size_t n, cap;
    int oom;
} pt__wbuf;

typedef struct pt__rbuf {
    const unsigned char *p;
    size_t n, at;
    uint64_t version;         /* of the bytes, once the header is read */
    const char *why;          /* the first fault, or NULL */
    size_t why_at;
    int cut;                  /* why names what the bytes end inside of */
} pt__rbuf;

PT__HIDDEN void pt__pk_put(pt__wbuf *w, const void *src, size_t n);
/* v's low `bytes` bytes, little-endian. */
PT__HIDDEN void pt__pk_put_u(pt__wbuf *w, uint64_t v, int bytes);
PT__HIDDEN void pt__pk_put_f(pt__wbuf *w, double d);
/* Notes the first fault and where; returns PT_EPARSE. */
PT__HIDDEN int pt__pk_fault(pt__rbuf *r, const char *why);
/* 0, or PT_EPARSE when the bytes end first (what names them). */
PT__HIDDEN int pt__pk_get_u(pt__rbuf *r, uint64_t *v, int bytes, const char *what);
/* As pt__pk_get_u, and a figure must be finite and >= 0. */
PT__HIDDEN int pt__pk_get_f(pt__rbuf *r, double *d, const char *what);
/* a <= b, but for the last bits of rounding. */
PT__HIDDEN int pt__pk_at_most(double a, double b);

/* A string as u32 length and its bytes (no NUL among them), read into
 * *s (malloc'ed, NUL-terminated): 0, PT_EPARSE (the fault bad when it
 * is longer than the bytes left or holds a NUL) or PT_ENOMEM. */
PT__HIDDEN void pt__pk_put_str(pt__wbuf *w, const char *s);
PT__HIDDEN int pt__pk_get_str(pt__rbuf *r, char **s, const char *what, const char *bad);
/* A histogram (device/pt_hist.h; NULL: empty) as u32 nbins, then (u16
 * bin, u64 count) pairs, bins rising, counts > 0. */
PT__HIDDEN void pt__pk_put_hist(pt__wbuf *w, const uint64_t *hist);
/* Reads one into *hist (made when it has a bin), its counts adding up to
 * at most `most` (else the fault too_many); what names it where the bytes
 * end. 0, PT_EPARSE or PT_ENOMEM. */
PT__HIDDEN int pt__pk_get_hist(pt__rbuf *r, uint64_t **hist, uint64_t most, const char *what,
                               const char *too_many);

/* A launch's shape (format version 4), written and read back whole. */
PT__HIDDEN void pt__pack_put_shape(pt__wbuf *w, const pt__shape *sh);
PT__HIDDEN int pt__pack_get_shape(pt__rbuf *r, pt_section *s);

#endif
