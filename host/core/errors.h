/* Errors counted and described on the timing they happened to (errors.c).
 * The codes themselves are the table in pt.h. Not installed. */
#ifndef PT_CORE_ERRORS_H
#define PT_CORE_ERRORS_H

#include "core/model.h"

#include <stddef.h>

/* Count code on t and describe it (the message is formatted as printf
 * does, prefixed with the code's name); returns code. NULL t: only returns. */
PT__HIDDEN int pt__fail(pt_timing *t, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A note on t: a fact of the machine said once (no device, so GPU
 * sections are timed by the CPU clock), counted and kept as the last
 * note, printed with PT_VERBOSE; not an error. */
PT__HIDDEN void pt__note(pt_timing *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes "a > b > c", r's open stack, into buf ("(none)" when empty). */
PT__HIDDEN void pt__stack_str(const pt__thr *r, char *buf, size_t n);

#endif
