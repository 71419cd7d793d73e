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
/* The user's callbacks and ptkit's own state.
 *
 * An error callback is never run while ptkit is in the middle of
 * changing or reading a timing: an error raised between
 * pt__defer_begin() and the matching pt__defer_end() (a start or stop
 * writing its thread's tree, a report reading every tree) is counted and
 * described at once, and its callback runs at pt__defer_end(), when
 * ptkit holds nothing. So a callback may do anything a program may,
 * reset or report included, and may even leave by longjmp. While one of
 * a timing's callbacks runs (an error callback, a pt_log_fn line) a
 * further error on it runs no callback (no recursion), and what would
 * free the tree the callback's caller still walks is refused
 * (pt__refused_in_callback). Nests; per thread. */
PT__HIDDEN void pt__defer_begin(void);
PT__HIDDEN void pt__defer_end(void);
enum { PT__CB_ERROR = 1, PT__CB_LINE = 2 };
PT__HIDDEN void pt__callback_enter(const pt_timing *t, int kind);
PT__HIDDEN void pt__callback_leave(void);
/* PT_ESTATE, counted and described, when the calling thread is running
 * one of t's callbacks of the kinds given (PT__CB_*); else 0. */
PT__HIDDEN int pt__refused_in_callback(pt_timing *t, int kinds, const char *fn);
/* Writes "a > b > c", r's open stack, into buf ("(none)" when empty). */
PT__HIDDEN void pt__stack_str(const pt__thr *r, char *buf, size_t n);

#endif
