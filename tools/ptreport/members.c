/* The typed members of a saved run: each one present and of its type, or
 * a failure said at its line and column (where.c). */
#include "members.h"

#include "api/tool.h"

#include <math.h>
#include <string.h>


/* The member `key` of object o, which must exist; on failure the message
 * points at the object. */
json_t *pr_member(pr_where *c, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        pr_fail_at(c, "missing member \"%s\"", key);
    return v;
}

/* key's value has the wrong type: said at that value, as "must be <want>". */
int pr_wrong_type(pr_where *c, const char *key, const char *want)
{
    int rc;
    pr_enter_key(c, key);
    rc = pr_fail_at(c, "\"%s\" must be %s", key, want);
    pr_leave(c);
    return rc;
}

int pr_get_string(pr_where *c, json_t *o, const char *key, const char **out)
{
    json_t *v = pr_member(c, o, key);
    if (!v)
        return -1;
    if (!json_is_string(v))
        return pr_wrong_type(c, key, "a string");
    *out = json_string_value(v);
    return 0;
}

int pr_get_uint(pr_where *c, json_t *o, const char *key, uint64_t *out)
{
    json_t *v = pr_member(c, o, key);
    if (!v)
        return -1;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return pr_wrong_type(c, key, "an integer >= 0");
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

int pr_get_bool(pr_where *c, json_t *o, const char *key, int *out)
{
    json_t *v = pr_member(c, o, key);
    if (!v)
        return -1;
    if (!json_is_boolean(v))
        return pr_wrong_type(c, key, "true or false");
    *out = json_is_true(v);
    return 0;
}

/* A figure: a number >= 0, or null where the writer met a non-finite
 * value. No figure ptkit writes is negative or a time past
 * PR_FIGURE_MAX_MS; a hand-edited one would otherwise show as a negative
 * time, or a time whose nanoseconds are infinite. Whatever ptkit writes
 * it reads: bytes and FLOPS held at the largest double included. */
int pr_get_number(pr_where *c, json_t *o, const char *key, double *out)
{
    json_t *v = pr_member(c, o, key);
    if (!v)
        return -1;
    if (json_is_null(v)) {
        *out = NAN;
        return 0;
    }
    size_t n = strlen(key);
    int time = n > 3 && strcmp(key + n - 3, "_ms") == 0;
    if (!json_is_number(v) || !(json_number_value(v) >= 0) ||
        (time && json_number_value(v) > PR_FIGURE_MAX_MS))
        return pr_wrong_type(c, key, time ? "a time >= 0 (at most 1.797e302 ms) or null"
                                          : "a number >= 0 or null");
    *out = json_number_value(v);
    return 0;
}

/* "memory", "compute" or "unknown", as enum pt_bound. */
int pr_get_bound(pr_where *c, json_t *o, const char *key, int *out)
{
    static const int bounds[] = { PT_BOUND_UNKNOWN, PT_BOUND_MEMORY, PT_BOUND_COMPUTE };
    const char *s;

    if (pr_get_string(c, o, key, &s))
        return -1;
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
        if (strcmp(s, pt__bound_name(bounds[i])) == 0) {
            *out = bounds[i];
            return 0;
        }
    pr_enter_key(c, key);
    pr_fail_at(c, "unknown bound \"%s\" (memory, compute or unknown)", s);
    pr_leave(c);
    return -1;
}

int pr_get_object(pr_where *c, json_t *o, const char *key, json_t **out, int nullable)
{
    json_t *v = pr_member(c, o, key);
    if (!v)
        return -1;
    if (nullable && json_is_null(v)) {
        *out = NULL;
        return 0;
    }
    if (!json_is_object(v))
        return pr_wrong_type(c, key, nullable ? "an object or null" : "an object");
    *out = v;
    return 0;
}

