/* PT_OUTPUT: a run's reports chosen without recompiling, as Caliper's
 * CALI_CONFIG chooses its own. Read at pt_create() (so a trace asked for
 * is recorded from the first section on), written at pt_destroy():
 *
 *   PT_OUTPUT=log,html=run.html,trace=run.trace.json
 *
 * a comma-separated list of outputs, each a kind alone or KIND=PATH:
 *
 *   log     the text report: on stderr alone, or into PATH
 *   json    pt_export_json()     default path %n.json
 *   csv     pt_export_csv()      default path %n.csv
 *   html    pt_export_html()     default path %n.html
 *   trace   pt_export_trace()    default path %n.trace.json; turns PT_TRACE on
 *
 * Paths are export templates (%n the timing's name, %r the rank, %p the
 * process id; export_path.c). A kind not in the list is counted on the
 * timing (PT_EINVAL) and the others still apply. What fails at
 * pt_destroy() is said on stderr, the timing being gone with its error
 * count. ptkit's own timings (its cost measurement, ptreport's) read no
 * PT_OUTPUT. The default timing (pt_default()) writes its outputs at exit. */
#include "report/output.h"

#include "core/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OUT_LOG, OUT_JSON, OUT_CSV, OUT_HTML, OUT_TRACE, OUT_N };

static const struct {
    const char *kind, *ext;
} kinds[OUT_N] = {
    { "log", NULL }, { "json", ".json" }, { "csv", ".csv" }, { "html", ".html" },
    { "trace", ".trace.json" },
};

/* The kind an item of the list names (its text up to '=' or its end), or -1. */
static int kind_of(const char *item, size_t len)
{
    for (int k = 0; k < OUT_N; k++)
        if (strlen(kinds[k].kind) == len && memcmp(item, kinds[k].kind, len) == 0)
            return k;
    return -1;
}

/* Calls fn for each item of spec: its kind (or -1), text and length, the
 * path after '=' (NULL without one) and its length. O(length). */
static void each_item(const char *spec, void (*fn)(void *ctx, int kind, const char *item,
                                                   size_t len, const char *path, size_t plen),
                      void *ctx)
{
    const char *p = spec;

    while (*p) {
        const char *end = strchr(p, ','), *eq;
        size_t len;
        if (!end)
            end = p + strlen(p);
        len = (size_t)(end - p);
        eq = memchr(p, '=', len);
        if (len > 0)
            fn(ctx, kind_of(p, eq ? (size_t)(eq - p) : len), p, len, eq ? eq + 1 : NULL,
               eq ? (size_t)(end - eq - 1) : 0);
        p = *end ? end + 1 : end;
    }
}

typedef struct scan {
    unsigned flags;
    char bad[160];
} scan;

static void check(void *ctx, int kind, const char *item, size_t len, const char *path,
                  size_t plen)
{
    scan *s = ctx;

    if (kind < 0 || (path && plen == 0)) {
        if (!s->bad[0])
            snprintf(s->bad, sizeof s->bad, "%.*s", (int)(len < 100 ? len : 100), item);
        return;
    }
    if (kind == OUT_TRACE)
        s->flags |= PT_TRACE;
}

unsigned pt__output_flags(const char **spec)
{
    const char *v = getenv("PT_OUTPUT");
    scan s = { 0, "" };

    *spec = v && *v ? v : NULL;
    if (*spec)
        each_item(*spec, check, &s);
    return s.flags;
}

void pt__output_init(pt_timing *t, const char *spec)
{
    scan s = { 0, "" };

    if (!spec)
        return;
    t->output = strdup(spec);
    if (!t->output) {
        pt__fail(t, PT_ENOMEM, "PT_OUTPUT: out of memory: no output will be written");
        return;
    }
    each_item(spec, check, &s);
    if (s.bad[0])
        pt__fail(t, PT_EINVAL, "PT_OUTPUT: \"%s\" is no output (log, json, csv, html or "
                 "trace, each alone or as KIND=PATH); the others are written at pt_destroy()",
                 s.bad);
}

static void write_one(void *ctx, int kind, const char *item, size_t len, const char *path,
                      size_t plen)
{
    pt_timing *t = ctx;
    char file[4096];
    int rc;

    (void)item;
    (void)len;
    if (kind < 0 || (path && plen == 0))
        return;
    if (path && plen >= sizeof file) {
        fprintf(stderr, "ptkit: PT_OUTPUT %s: a path of %zu bytes is too long\n",
                kinds[kind].kind, plen);
        return;
    }
    if (path)
        snprintf(file, sizeof file, "%.*s", (int)plen, path);
    else if (kind != OUT_LOG)
        snprintf(file, sizeof file, "%%n%s", kinds[kind].ext);
    switch (kind) {
    case OUT_LOG: rc = path ? pt_export_text(t, file) : pt_log(t, stderr); break;
    case OUT_JSON: rc = pt_export_json(t, file); break;
    case OUT_CSV: rc = pt_export_csv(t, file); break;
    case OUT_HTML: rc = pt_export_html(t, file); break;
    default: rc = pt_export_trace(t, file); break;
    }
    if (rc)
        fprintf(stderr, "ptkit: PT_OUTPUT %s: %s\n", kinds[kind].kind, pt_last_error(t));
}

void pt__output_write(pt_timing *t)
{
    if (!t->output)
        return;
    each_item(t->output, write_one, t);
    free(t->output);
    t->output = NULL;
}
