/* Reading a saved run: jansson parses, then every member the commands use
 * is checked for presence and type before anything is computed, so the
 * commands never meet a missing or mistyped member. A failure names the
 * file, the line and column of the offending value (where.c) and what was
 * expected. */
#include "ptreport.h"

#include "where.h"

#include "core/roofline.h"

#include <errno.h>
#include <math.h>
#include <pt/pt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- typed members --------------------------------------------------- */

/* The member `key` of object o, which must exist; on failure the message
 * points at the object. */
static json_t *member(pr_where *c, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        pr_fail_at(c, "missing member \"%s\"", key);
    return v;
}

/* key's value has the wrong type: said at that value, as "must be <want>". */
static int wrong_type(pr_where *c, const char *key, const char *want)
{
    int rc;
    pr_enter_key(c, key);
    rc = pr_fail_at(c, "\"%s\" must be %s", key, want);
    pr_leave(c);
    return rc;
}

static int get_string(pr_where *c, json_t *o, const char *key, const char **out)
{
    json_t *v = member(c, o, key);
    if (!v)
        return -1;
    if (!json_is_string(v))
        return wrong_type(c, key, "a string");
    *out = json_string_value(v);
    return 0;
}

static int get_uint(pr_where *c, json_t *o, const char *key, uint64_t *out)
{
    json_t *v = member(c, o, key);
    if (!v)
        return -1;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return wrong_type(c, key, "an integer >= 0");
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int get_bool(pr_where *c, json_t *o, const char *key, int *out)
{
    json_t *v = member(c, o, key);
    if (!v)
        return -1;
    if (!json_is_boolean(v))
        return wrong_type(c, key, "true or false");
    *out = json_is_true(v);
    return 0;
}

/* A figure: a number, or null where the writer met a non-finite value. */
static int get_number(pr_where *c, json_t *o, const char *key, double *out)
{
    json_t *v = member(c, o, key);
    if (!v)
        return -1;
    if (json_is_null(v)) {
        *out = NAN;
        return 0;
    }
    if (!json_is_number(v))
        return wrong_type(c, key, "a number");
    *out = json_number_value(v);
    return 0;
}

/* "memory", "compute" or "unknown", as enum pt_bound. */
static int get_bound(pr_where *c, json_t *o, const char *key, int *out)
{
    static const int bounds[] = { PT_BOUND_UNKNOWN, PT_BOUND_MEMORY, PT_BOUND_COMPUTE };
    const char *s;

    if (get_string(c, o, key, &s))
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

static int get_object(pr_where *c, json_t *o, const char *key, json_t **out, int nullable)
{
    json_t *v = member(c, o, key);
    if (!v)
        return -1;
    if (nullable && json_is_null(v)) {
        *out = NULL;
        return 0;
    }
    if (!json_is_object(v))
        return wrong_type(c, key, nullable ? "an object or null" : "an object");
    *out = v;
    return 0;
}

/* ---- sections -------------------------------------------------------- */

static void sec_free(pr_sec *s)
{
    for (size_t i = 0; i < s->nkids; i++)
        sec_free(&s->kids[i]);
    free(s->kids);
    free(s->sm_ms);
}

/* A folded phase's time by SM: an array of numbers >= 0 by %smid, as
 * long as the fold allows SMs (65536); absent for other sections. */
static int get_sm(pr_where *c, json_t *o, pr_sec *s)
{
    json_t *v = json_object_get(o, "sm_ms"), *x;
    size_t i, n;

    if (!v)
        return 0;
    if (!json_is_array(v) || json_array_size(v) > 65536)
        return wrong_type(c, "sm_ms", "an array of at most 65536 numbers");
    n = json_array_size(v);
    s->sm_ms = calloc(n ? n : 1, sizeof *s->sm_ms);
    if (!s->sm_ms)
        return pr_fail_at(c, "out of memory");
    json_array_foreach(v, i, x) {
        if (!json_is_number(x) || !(json_number_value(x) >= 0)) {
            pr_enter_key(c, "sm_ms");
            pr_enter_index(c, i);
            pr_fail_at(c, "an SM's time must be a number >= 0");
            pr_leave(c);
            pr_leave(c);
            return -1;
        }
        s->sm_ms[i] = json_number_value(x);
    }
    s->nsm = (int)n;
    return 0;
}

static int load_sections(pr_where *c, json_t *arr, int depth, pr_sec **out, size_t *nout);

static int load_section(pr_where *c, json_t *o, int depth, pr_sec *s)
{
    static const char *const kinds[] = { "cpu", "gpu", "phase", "unattributed" };
    uint64_t d;
    json_t *kids, *merged;
    int ok = 0;

    if (!json_is_object(o))
        return pr_fail_at(c, "a section must be an object");
    if (get_string(c, o, "name", (const char **)&s->name) ||
        get_string(c, o, "path", (const char **)&s->path) || get_uint(c, o, "depth", &d) ||
        get_string(c, o, "kind", (const char **)&s->kind) || get_bool(c, o, "open", &s->st.open))
        return -1;
    s->st.name = s->name;
    if (d != (uint64_t)depth) {
        pr_enter_key(c, "depth");
        pr_fail_at(c, "depth %llu where the nesting gives %d", (unsigned long long)d, depth);
        pr_leave(c);
        return -1;
    }
    s->st.depth = depth;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        ok |= strcmp(s->kind, kinds[i]) == 0;
    if (!ok) {
        pr_enter_key(c, "kind");
        pr_fail_at(c, "unknown kind \"%s\" (cpu, gpu, phase or unattributed)", s->kind);
        pr_leave(c);
        return -1;
    }
    /* Every figure by the library's list; those that came later within
     * schema 1 may be missing from older runs, and read as 0. */
    for (size_t i = 0; i < pt__nfigures; i++) {
        const pt__figure *f = &pt__figures[i];
        void *at = pt__figure_at(&s->st, f);
        int bad;
        if (f->later && !json_object_get(o, f->name))
            continue;
        switch (f->type) {
        case PT__FIG_U64: bad = get_uint(c, o, f->name, (uint64_t *)at); break;
        case PT__FIG_F64: bad = get_number(c, o, f->name, (double *)at); break;
        default: bad = get_bound(c, o, f->name, (int *)at); break;
        }
        if (bad)
            return -1;
    }
    if (get_sm(c, o, s))
        return -1;
    merged = json_object_get(o, "merged");
    if (merged && !json_is_object(merged)) {
        pr_enter_key(c, "merged");
        pr_fail_at(c, "\"merged\" must be an object");
        pr_leave(c);
        return -1;
    }
    s->merged = merged;
    kids = member(c, o, "children");
    if (!kids)
        return -1;
    if (pr_enter_key(c, "children"))
        return -1;
    if (load_sections(c, kids, depth + 1, &s->kids, &s->nkids)) {
        pr_leave(c);
        return -1;
    }
    pr_leave(c);
    return 0;
}

static int load_sections(pr_where *c, json_t *arr, int depth, pr_sec **out, size_t *nout)
{
    size_t n;
    pr_sec *v;

    *out = NULL;
    *nout = 0;
    if (!json_is_array(arr))
        return pr_fail_at(c, "sections must be an array");
    n = json_array_size(arr);
    if (n == 0)
        return 0;
    v = calloc(n, sizeof *v);
    if (!v)
        return pr_fail_at(c, "out of memory");
    *out = v;
    for (size_t i = 0; i < n; i++) {
        if (pr_enter_index(c, i))
            return -1;
        v[i].order = i;
        /* Counted before loading, so a failure part way frees what was made. */
        *nout = i + 1;
        if (load_section(c, json_array_get(arr, i), depth, &v[i])) {
            pr_leave(c);
            return -1;
        }
        pr_leave(c);
    }
    return 0;
}

/* ---- tracked memory -------------------------------------------------- */

/* A size in bytes: a number >= 0, or null. Required, or else it may be
 * missing (the device's figures, which a hand-written file may leave out). */
static int get_bytes(pr_where *c, json_t *o, const char *key, int required)
{
    json_t *v = json_object_get(o, key);

    if (!v) {
        if (required)
            pr_fail_at(c, "missing member \"%s\"", key);
        return required ? -1 : 0;
    }
    if (!json_is_null(v) && !(json_is_number(v) && json_number_value(v) >= 0))
        return wrong_type(c, key, "a number >= 0 or null");
    return 0;
}

/* One tracked tensor: { "name", "bytes", "shape": [ sizes ], "dtype" }. */
static int load_tensor(pr_where *c, json_t *x)
{
    const char *s;
    json_t *shape, *d;
    size_t k;
    int rc = 0;

    if (!json_is_object(x))
        return pr_fail_at(c, "a tensor must be an object");
    if (get_string(c, x, "name", &s) || get_bytes(c, x, "bytes", 1) ||
        get_string(c, x, "dtype", &s) || !(shape = member(c, x, "shape")))
        return -1;
    if (pr_enter_key(c, "shape"))
        return -1;
    if (!json_is_array(shape) || json_array_size(shape) > PT_TRACK_MAX_DIMS) {
        rc = pr_fail_at(c, "\"shape\" must be an array of at most %d integers", PT_TRACK_MAX_DIMS);
    } else {
        json_array_foreach(shape, k, d) {
            if (!json_is_integer(d) || json_integer_value(d) < 0) {
                if (pr_enter_index(c, k) == 0) {
                    pr_fail_at(c, "a dimension must be an integer >= 0");
                    pr_leave(c);
                }
                rc = -1;
                break;
            }
        }
    }
    pr_leave(c);
    return rc;
}

/* The run's "memory" object, which runs saved before it existed lack:
 * what pt_track() tracked, for the conversions that draw it. */
static int load_memory(pr_where *c, json_t *m)
{
    json_t *tensors, *x;
    size_t i;
    int rc = 0;

    if (!json_is_object(m))
        return pr_fail_at(c, "\"memory\" must be an object or null");
    if (get_bytes(c, m, "total", 1) || get_bytes(c, m, "peak", 1) ||
        get_bytes(c, m, "device_free", 0) || get_bytes(c, m, "device_total", 0) ||
        get_bytes(c, m, "device_used_peak", 0))
        return -1;
    tensors = member(c, m, "tensors");
    if (!tensors)
        return -1;
    if (pr_enter_key(c, "tensors"))
        return -1;
    if (!json_is_array(tensors)) {
        rc = pr_fail_at(c, "\"tensors\" must be an array");
    } else {
        json_array_foreach(tensors, i, x) {
            if (pr_enter_index(c, i)) {
                rc = -1;
                break;
            }
            rc = load_tensor(c, x);
            pr_leave(c);
            if (rc)
                break;
        }
    }
    pr_leave(c);
    return rc;
}

/* ---- the document ---------------------------------------------------- */

static int load_doc(pr_where *c, pr_run *r)
{
    json_t *d = r->doc, *schema, *clock, *stats, *errors = NULL, *ghz;
    const char *last = "";

    if (!json_is_object(d))
        return pr_fail_at(c, "a run must be a JSON object");
    schema = member(c, d, "schema");
    if (!schema)
        return -1;
    if (!json_is_integer(schema) || json_integer_value(schema) != 1) {
        pr_enter_key(c, "schema");
        if (json_is_integer(schema))
            pr_fail_at(c, "schema %lld is not supported: ptreport reads schema 1",
                    (long long)json_integer_value(schema));
        else
            pr_fail_at(c, "\"schema\" must be an integer");
        pr_leave(c);
        return -1;
    }
    if (get_string(c, d, "name", &r->name) || get_object(c, d, "clock", &clock, 0) ||
        get_object(c, d, "stats", &stats, 0) ||
        get_object(c, d, "device_clock", &r->device_clock, 1))
        return -1;
    if (json_object_get(d, "peaks") && get_object(c, d, "peaks", &r->peaks, 1))
        return -1;
    if (json_object_get(d, "errors") && get_object(c, d, "errors", &errors, 0))
        return -1;

    pr_enter_key(c, "clock");
    if (get_string(c, clock, "kind", &r->clock) || !(ghz = member(c, clock, "ghz")) ||
        get_number(c, clock, "ghz", &r->clock_ghz)) {
        pr_leave(c);
        return -1;
    }
    pr_leave(c);

    pr_enter_key(c, "stats");
    if (get_uint(c, stats, "section_count", &r->section_count) ||
        get_number(c, stats, "total_ms", &r->total_ms) ||
        get_uint(c, stats, "error_count", &r->error_count) ||
        get_bool(c, stats, "gpu_timing", &r->gpu_timing) ||
        get_bool(c, stats, "gpu_fallback", &r->gpu_fallback) ||
        get_uint(c, stats, "open_count", &r->open_count) ||
        get_uint(c, stats, "dropped", &r->dropped)) {
        pr_leave(c);
        return -1;
    }
    pr_leave(c);

    if (r->device_clock) {
        json_t *dc = r->device_clock;
        double x;
        int b;
        const char *s;
        uint64_t u;
        json_t *dev;
        pr_enter_key(c, "device_clock");
        if (get_bool(c, dc, "calibrated", &b) || get_number(c, dc, "cycles_per_ns", &x) ||
            get_number(c, dc, "tick_ns", &x) || get_uint(c, dc, "blocks_own", &u) ||
            get_uint(c, dc, "blocks_cal", &u) || get_string(c, dc, "device_name", &s) ||
            !(dev = member(c, dc, "device"))) {
            pr_leave(c);
            return -1;
        }
        if (!json_is_integer(dev)) {
            pr_enter_key(c, "device");
            pr_fail_at(c, "\"device\" must be an integer");
            pr_leave(c);
            pr_leave(c);
            return -1;
        }
        pr_leave(c);
    }
    if (r->peaks) {
        double x;
        const char *s;
        pr_enter_key(c, "peaks");
        if (get_number(c, r->peaks, "bytes_per_s", &x) ||
            get_number(c, r->peaks, "flops_per_s", &x) || get_string(c, r->peaks, "source", &s)) {
            pr_leave(c);
            return -1;
        }
        pr_leave(c);
    }
    if (errors) {
        pr_enter_key(c, "errors");
        if (json_object_get(errors, "last") && get_string(c, errors, "last", &last)) {
            pr_leave(c);
            return -1;
        }
        pr_leave(c);
    }
    r->errors_last = last;

    r->created = "";
    if (json_object_get(d, "created") && get_string(c, d, "created", &r->created))
        return -1;
    r->memory = json_object_get(d, "memory");
    if (json_is_null(r->memory)) {
        r->memory = NULL;
    } else if (r->memory) {
        pr_enter_key(c, "memory");
        if (load_memory(c, r->memory)) {
            pr_leave(c);
            return -1;
        }
        pr_leave(c);
    }

    r->merged = json_object_get(d, "merged");
    if (r->merged && !json_is_object(r->merged)) {
        pr_enter_key(c, "merged");
        pr_fail_at(c, "\"merged\" must be an object");
        pr_leave(c);
        return -1;
    }
    if (!member(c, d, "sections"))
        return -1;
    pr_enter_key(c, "sections");
    if (load_sections(c, json_object_get(d, "sections"), 1, &r->secs, &r->nsecs)) {
        pr_leave(c);
        return -1;
    }
    pr_leave(c);
    return 0;
}

int pr_run_parse(pr_run *r, const char *file, const char *text, size_t len, char *err,
                 size_t errlen)
{
    json_error_t je;
    pr_where *c;
    int rc;

    memset(r, 0, sizeof *r);
    r->file = file;
    r->doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!r->doc) {
        /* jansson counts lines from 1 and columns from 1; column 0 or -1
         * means the error is about the input as a whole (such as an empty
         * file), reported at its end. */
        snprintf(err, errlen, "%s: %d:%d: %s", file, je.line > 0 ? je.line : 1,
                 je.column > 0 ? je.column : 1, je.text);
        return -1;
    }
    c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "%s: out of memory", file);
        pr_run_free(r);
        return -1;
    }
    c->file = file;
    c->text = text;
    c->len = len;
    c->err = err;
    c->errlen = errlen;
    rc = load_doc(c, r);
    free(c);
    if (rc)
        pr_run_free(r);
    return rc;
}

int pr_run_load(pr_run *r, const char *file, char *err, size_t errlen)
{
    FILE *f = fopen(file, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0;
    int rc;

    memset(r, 0, sizeof *r);
    if (!f) {
        snprintf(err, errlen, "%s: %s", file, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;
        if (cap - len < 65536) {
            char *p = realloc(text, cap ? cap * 2 : 65536);
            if (!p) {
                free(text);
                fclose(f);
                snprintf(err, errlen, "%s: out of memory", file);
                return -1;
            }
            text = p;
            cap = cap ? cap * 2 : 65536;
        }
        got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: %s", file, strerror(errno ? errno : EIO));
        free(text);
        fclose(f);
        return -1;
    }
    fclose(f);
    rc = pr_run_parse(r, file, text, len, err, errlen);
    free(text);
    return rc;
}

void pr_run_free(pr_run *r)
{
    for (size_t i = 0; i < r->nsecs; i++)
        sec_free(&r->secs[i]);
    free(r->secs);
    json_decref(r->doc);
    r->secs = NULL;
    r->nsecs = 0;
    r->doc = NULL;
}
