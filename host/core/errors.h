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
/* Writes "a > b > c", r's open stack, into buf ("(none)" when empty). */
PT__HIDDEN void pt__stack_str(const pt__thr *r, char *buf, size_t n);

#endif
