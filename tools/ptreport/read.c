/* Reading a saved run: jansson parses, then every member the commands use
 * is checked for presence and type before anything is computed, so the
 * commands never meet a missing or mistyped member. A failure names the
 * file, the line and column of the offending value (where.c) and what was
 * expected.
 *
 * Schema 2 lists the sections flat, each with its parent's id: they are
 * read in one pass and linked into the tree the commands walk, however
 * deep. Schema 1 nested them, which jansson reads down to its own depth
 * limit (about a thousand sections), so loading it recurses no deeper.
 * Figures are numbers >= 0 (or null); siblings must differ in title: a
 * file that holds one title twice under a parent is refused, never
 * pooled or shown as one. */
#include "ptreport.h"

#include "members.h"
#include "sections.h"
#include "where.h"

#include "api/tool.h"

#include <errno.h>
#include <math.h>
#include <pt/pt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        return pr_wrong_type(c, key, "a number >= 0 or null");
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
    if (pr_get_string(c, x, "name", &s) || get_bytes(c, x, "bytes", 1) ||
        pr_get_string(c, x, "dtype", &s) || !(shape = pr_member(c, x, "shape")))
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
    tensors = pr_member(c, m, "tensors");
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
    schema = pr_member(c, d, "schema");
    if (!schema)
        return -1;
    if (!json_is_integer(schema) || json_integer_value(schema) < 1 ||
        json_integer_value(schema) > PT_JSON_SCHEMA) {
        pr_enter_key(c, "schema");
        if (json_is_integer(schema))
            pr_fail_at(c, "schema %lld is not supported: ptreport reads schemas 1 to %d",
                    (long long)json_integer_value(schema), PT_JSON_SCHEMA);
        else
            pr_fail_at(c, "\"schema\" must be an integer");
        pr_leave(c);
        return -1;
    }
    if (pr_get_string(c, d, "name", &r->name) || pr_get_object(c, d, "clock", &clock, 0) ||
        pr_get_object(c, d, "stats", &stats, 0) ||
        pr_get_object(c, d, "device_clock", &r->device_clock, 1))
        return -1;
    if (json_object_get(d, "peaks") && pr_get_object(c, d, "peaks", &r->peaks, 1))
        return -1;
    if (json_object_get(d, "errors") && pr_get_object(c, d, "errors", &errors, 0))
        return -1;

    pr_enter_key(c, "clock");
    if (pr_get_string(c, clock, "kind", &r->clock) || !(ghz = pr_member(c, clock, "ghz")) ||
        pr_get_number(c, clock, "ghz", &r->clock_ghz)) {
        pr_leave(c);
        return -1;
    }
    pr_leave(c);

    pr_enter_key(c, "stats");
    if (pr_get_uint(c, stats, "section_count", &r->section_count) ||
        pr_get_number(c, stats, "total_ms", &r->total_ms) ||
        pr_get_uint(c, stats, "error_count", &r->error_count) ||
        pr_get_bool(c, stats, "gpu_timing", &r->gpu_timing) ||
        pr_get_bool(c, stats, "gpu_fallback", &r->gpu_fallback) ||
        pr_get_uint(c, stats, "open_count", &r->open_count) ||
        pr_get_uint(c, stats, "dropped", &r->dropped)) {
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
        if (pr_get_bool(c, dc, "calibrated", &b) || pr_get_number(c, dc, "cycles_per_ns", &x) ||
            pr_get_number(c, dc, "tick_ns", &x) || pr_get_uint(c, dc, "blocks_own", &u) ||
            pr_get_uint(c, dc, "blocks_cal", &u) || pr_get_string(c, dc, "device_name", &s) ||
            !(dev = pr_member(c, dc, "device"))) {
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
        if (pr_get_number(c, r->peaks, "bytes_per_s", &x) ||
            pr_get_number(c, r->peaks, "flops_per_s", &x) || pr_get_string(c, r->peaks, "source", &s)) {
            pr_leave(c);
            return -1;
        }
        pr_leave(c);
    }
    if (errors) {
        pr_enter_key(c, "errors");
        if (json_object_get(errors, "last") && pr_get_string(c, errors, "last", &last)) {
            pr_leave(c);
            return -1;
        }
        pr_leave(c);
    }
    r->errors_last = last;

    r->created = "";
    if (json_object_get(d, "created") && pr_get_string(c, d, "created", &r->created))
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
    if (!pr_member(c, d, "sections"))
        return -1;
    pr_enter_key(c, "sections");
    if (json_integer_value(schema) == 1
            ? pr_load_nested(c, json_object_get(d, "sections"), 1, &r->secs, &r->nsecs)
            : pr_load_flat(c, json_object_get(d, "sections"), r)) {
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
    /* A UTF-8 byte-order mark, as some editors write, is no part of the
     * JSON text (RFC 8259 lets a parser ignore it). */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        text += 3;
        len -= 3;
    }
    r->doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!r->doc) {
        /* Memory that ran out is no fault of the file's. */
        if (json_error_code(&je) == json_error_out_of_memory || !je.text[0]) {
            snprintf(err, errlen, "%s: out of memory reading it (the file is not at fault)",
                     file);
            return -1;
        }
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

/* The most a run file may hold, PTREPORT_MAX_BYTES or 2 GiB: jansson
 * holds a parsed file in about 30 times its size, so a larger one would
 * fail for memory anyway, after having taken it. */
static size_t max_bytes(void)
{
    const char *v = getenv("PTREPORT_MAX_BYTES");
    char *end;
    unsigned long long n;
    if (v && *v) {
        errno = 0;
        n = strtoull(v, &end, 10);
        if (errno == 0 && *end == '\0' && n > 0)
            return (size_t)n;
    }
    return (size_t)2 << 30;
}

/* Line and column (from 1) of byte `at` of text. */
static void line_col(const char *text, size_t at, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < at; i++) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

/* Reads the file whole, but stops at once at a byte no saved run can
 * hold (a NUL: /dev/zero, a binary file) or past max_bytes(), which a
 * regular file's size says before anything is read. */
int pr_run_load(pr_run *r, const char *file, char *err, size_t errlen)
{
    FILE *f = fopen(file, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0, max = max_bytes();
    struct stat st;
    int rc;

    memset(r, 0, sizeof *r);
    if (!f) {
        snprintf(err, errlen, "%s: %s", file, strerror(errno));
        return -1;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max) {
        snprintf(err, errlen, "%s: %jd bytes, more than the %zu a run may hold "
                 "(PTREPORT_MAX_BYTES)", file, (intmax_t)st.st_size, max);
        fclose(f);
        return -1;
    }
    for (;;) {
        size_t got;
        const char *nul;
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
        if ((nul = memchr(text + len, '\0', got)) != NULL) {
            size_t line, col;
            line_col(text, (size_t)(nul - text), &line, &col);
            snprintf(err, errlen, "%s: %zu:%zu: a NUL byte, which no JSON text holds", file, line,
                     col);
            free(text);
            fclose(f);
            return -1;
        }
        len += got;
        if (len > max) {
            snprintf(err, errlen, "%s: more than the %zu bytes a run may hold (PTREPORT_MAX_BYTES)",
                     file, max);
            free(text);
            fclose(f);
            return -1;
        }
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
    pr_secs_free(r->secs, r->nsecs);
    free(r->secs);
    json_decref(r->doc);
    r->secs = NULL;
    r->nsecs = 0;
    r->doc = NULL;
}
