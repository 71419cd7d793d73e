/* The typed members of a saved run (members.c): each getter checks that
 * the member is there and of its type, and otherwise says so at the
 * member's line and column and returns -1. */
#ifndef PT_PTREPORT_MEMBERS_H
#define PT_PTREPORT_MEMBERS_H

#include "where.h"

#include <float.h>
#include <jansson.h>
#include <stdint.h>

/* Past this a time is refused: its milliseconds as nanoseconds stay
 * finite, and the largest ptkit writes (a sum held at the largest double
 * of nanoseconds) is within it. Other figures (bytes, FLOPS, rates) are
 * finite doubles, which ptkit also holds at the largest. */
#define PR_FIGURE_MAX_MS (DBL_MAX / 1e6)

/* The member `key` of o, which must exist (NULL, said, when it does not). */
json_t *pr_member(pr_where *c, json_t *o, const char *key);
/* key's value has the wrong type: said at that value as "must be <want>"; -1. */
int pr_wrong_type(pr_where *c, const char *key, const char *want);
int pr_get_string(pr_where *c, json_t *o, const char *key, const char **out);
int pr_get_uint(pr_where *c, json_t *o, const char *key, uint64_t *out);
int pr_get_bool(pr_where *c, json_t *o, const char *key, int *out);
/* A figure: a number >= 0, or null (NaN); a time (a key ending in "_ms")
 * at most PR_FIGURE_MAX_MS. */
int pr_get_number(pr_where *c, json_t *o, const char *key, double *out);
/* "memory", "compute" or "unknown", as enum pt_bound. */
int pr_get_bound(pr_where *c, json_t *o, const char *key, int *out);
int pr_get_object(pr_where *c, json_t *o, const char *key, json_t **out, int nullable);

#endif
