/* A saved launch's own members, beside its figures: its slowest block's
 * phases ("slowest_phases": [ [ name, ms ] ]) and its spans ("spans": [ {
 * "name", "count", "unmatched", "total_ms", "max_ms", "hist" } ]), and
 * the histograms ptreport reads ([ [ lower edge ns, count ] ]). */
#include "members.h"
#include "sections.h"

#include "pt_hist.h"

#include <stdlib.h>

int pr_load_hist(pr_where *c, json_t *o, const char *key, double **out, int *n)
{
    json_t *v = json_object_get(o, key), *x;
    double prev = -1;
    size_t i;

    if (!v)
        return 0;
    if (!json_is_array(v) || json_array_size(v) > PT__HIST_BINS)
        return pr_wrong_type(c, key, "an array of at most 576 [edge, count] pairs");
    if (!(*out = calloc(json_array_size(v) ? 2 * json_array_size(v) : 1, sizeof **out)))
        return pr_fail_at(c, "out of memory");
    json_array_foreach(v, i, x) {
        json_t *e = json_array_get(x, 0), *k = json_array_get(x, 1);
        if (!json_is_array(x) || json_array_size(x) != 2 || !json_is_number(e) ||
            !json_is_integer(k) || !(json_number_value(e) > prev) || json_integer_value(k) <= 0) {
            pr_enter_key(c, key);
            pr_enter_index(c, i);
            pr_fail_at(c, "a bin must be [its lower edge in ns, rising, and a count > 0]");
            pr_leave(c);
            pr_leave(c);
            return -1;
        }
        prev = json_number_value(e);
        (*out)[2 * i] = prev;
        (*out)[2 * i + 1] = (double)json_integer_value(k);
    }
    *n = (int)json_array_size(v);
    return 0;
}

static int load_slowest(pr_where *c, json_t *o, pr_sec *s)
{
    json_t *v = json_object_get(o, "slowest_phases"), *x;
    size_t i, n = json_array_size(v);

    if (v && (!json_is_array(v) || n > 1 << 26))
        return pr_wrong_type(c, "slowest_phases", "an array of [name, ms] pairs");
    if (n == 0)
        return 0;
    if (!(s->slow_names = calloc(n, sizeof *s->slow_names)) ||
        !(s->slow_ms = calloc(n, sizeof *s->slow_ms)))
        return pr_fail_at(c, "out of memory");
    json_array_foreach(v, i, x) {
        json_t *name = json_array_get(x, 0), *ms = json_array_get(x, 1);
        if (json_array_size(x) != 2 || !json_is_string(name) || !(json_number_value(ms) >= 0)) {
            pr_enter_key(c, "slowest_phases");
            pr_enter_index(c, i);
            return pr_fail_at(c, "a phase of the slowest block must be [name, ms >= 0]");
        }
        s->slow_names[i] = json_string_value(name);
        s->slow_ms[i] = json_number_value(ms);
    }
    s->nslow = (int)n;
    return 0;
}

/* A count the file holds: an integer >= 0, else -1. */
static long long count_of(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (long long)json_integer_value(v) : -1;
}

static int load_spans(pr_where *c, json_t *o, pr_sec *s)
{
    json_t *v = json_object_get(o, "spans"), *x;
    size_t i, n = json_array_size(v);

    if (v && (!json_is_array(v) || n > 65536))
        return pr_wrong_type(c, "spans", "an array of at most 65536 span kinds");
    if (n == 0)
        return 0;
    if (!(s->spans = calloc(n, sizeof *s->spans)))
        return pr_fail_at(c, "out of memory");
    json_array_foreach(v, i, x) {
        pt__restored_span *sp = &s->spans[i];
        double total = json_number_value(json_object_get(x, "total_ms"));
        double max = json_number_value(json_object_get(x, "max_ms"));
        long long count = count_of(x, "count"), unmatched = count_of(x, "unmatched");
        int rc;
        s->nspans = (int)i + 1;
        pr_enter_key(c, "spans");
        pr_enter_index(c, i);
        if (!json_is_string(json_object_get(x, "name")) || count < 0 || unmatched < 0 ||
            !(total >= 0) || !(max >= 0))
            return pr_fail_at(c, "a span kind must have a name, a count and unmatched >= 0, and "
                                 "total_ms and max_ms >= 0");
        sp->name = json_string_value(json_object_get(x, "name"));
        sp->count = (uint64_t)count;
        sp->unmatched = (uint64_t)unmatched;
        sp->total_ns = total * 1e6;
        sp->max_ns = max * 1e6;
        double *hist = NULL;
        if ((rc = pr_load_hist(c, x, "hist", &hist, &sp->nhist)) < 0)
            return rc;
        sp->hist = hist;
        pr_leave(c);
        pr_leave(c);
    }
    return 0;
}

int pr_load_launch(pr_where *c, json_t *o, pr_sec *s)
{
    return load_slowest(c, o, s) < 0 ? -1 : load_spans(c, o, s);
}

void pr_launch_free(pr_sec *s)
{
    free(s->slow_names);
    free(s->slow_ms);
    for (int i = 0; i < s->nspans; i++)
        free((void *)s->spans[i].hist);
    free(s->spans);
}
