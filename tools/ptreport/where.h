/* Where a value of a saved run is (where.c): the path from the document
 * to the member being checked, and a failure said at that member's line
 * and column in the file's text. */
#ifndef PT_PTREPORT_WHERE_H
#define PT_PTREPORT_WHERE_H

#include <stddef.h>

/* Nesting is bounded by jansson's own depth limit (2048), which the path
 * matches. */
#define PR_MAX_STEPS 2100

typedef struct pr_step {
    const char *key;          /* NULL: an array index */
    size_t index;
} pr_step;

typedef struct pr_where {
    const char *file, *text;  /* the file's name, for messages, and its text */
    size_t len;
    pr_step path[PR_MAX_STEPS];
    int depth;
    char *err;                /* where the message goes */
    size_t errlen;
} pr_where;

/* One step down, to a member or to an element: 0, or -1 (said) when the
 * path is full. */
int pr_enter_key(pr_where *c, const char *key);
int pr_enter_index(pr_where *c, size_t index);
void pr_leave(pr_where *c);
/* Writes "FILE: LINE:COLUMN: message" into c->err, at the value at the end
 * of c->path (or the deepest value on the way that could be found).
 * Returns -1. */
int pr_fail_at(pr_where *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
