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
#include "report/export_path.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- the files, claimed -------------------------------------------- */

/* Every file a live timing's PT_OUTPUT will write, and which timing: two
 * timings never write one file, and at exit the timings never destroyed
 * still write theirs. Under a lock: timings are made on any thread. */
typedef struct claim {
    char *path;               /* as written: templates expanded; NULL for log on stderr */
    char *asked;              /* as PT_OUTPUT named it, expanded (path unless taken) */
    int kind;
    pt_timing *t;
    struct claim *next;
} claim;

static pthread_mutex_t claims_lock = PTHREAD_MUTEX_INITIALIZER;
static claim *claims;

static int claimed(const char *path)
{
    for (const claim *c = claims; c; c = c->next)
        if (c->path && strcmp(c->path, path) == 0)
            return 1;
    return 0;
}

/* path, or when a live timing claimed it already the first free of
 * path-2, path-3, ... (before its extension), malloc'ed. */
static char *free_path(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    size_t stem = dot && (!slash || dot > slash) && dot != path ? (size_t)(dot - path)
                                                                : strlen(path);
    if (!claimed(path))
        return strdup(path);
    for (int k = 2; k < 10000; k++) {
        size_t n = strlen(path) + 16;
        char *p = malloc(n);
        if (!p)
            return NULL;
        snprintf(p, n, "%.*s-%d%s", (int)stem, path, k, path + stem);
        if (!claimed(p))
            return p;
        free(p);
    }
    return NULL;
}

/* What one item of a timing's spec becomes: a claim, or why not (said on
 * stderr and counted). The path's folder must exist, and the path be no
 * folder; one path for two kinds is refused for the second. */
typedef struct plan {
    pt_timing *t;
    claim *mine;              /* this timing's claims so far */
} plan;

/* A problem with the spec, said at once on stderr (a user who set an
 * environment variable reads no error count) and counted on t. */
static void said(pt_timing *t, int code, const char *msg)
{
    fprintf(stderr, "ptkit: %s\n", msg);
    pt__fail(t, code, "%s", msg);
}

static void claim_one(void *ctx, int kind, const char *item, size_t len, const char *path,
                      size_t plen)
{
    plan *pl = ctx;
    pt_timing *t = pl->t;
    char tmpl[4096], msg[600], *exp = NULL, *mine;
    struct stat st;

    if (kind < 0 || (path && plen == 0)) {
        snprintf(msg, sizeof msg, "PT_OUTPUT: \"%.*s\" is no output: each item is log, json, "
                 "csv, html or trace, alone or as KIND=PATH, separated by commas (a path holds "
                 "no comma); the others are written", (int)(len < 100 ? len : 100), item);
        said(t, PT_EINVAL, msg);
        return;
    }
    if (kind == OUT_LOG && !path) {
        claim *c = calloc(1, sizeof *c);
        if (c) {
            c->kind = kind;
            c->t = t;
            c->next = pl->mine;
            pl->mine = c;
        }
        return;
    }
    if (path && plen >= sizeof tmpl) {
        snprintf(msg, sizeof msg, "PT_OUTPUT %s: a path of more than 4 KB: not written",
                 kinds[kind].kind);
        said(t, PT_ERANGE, msg);
        return;
    }
    if (path)
        snprintf(tmpl, sizeof tmpl, "%.*s", (int)plen, path);
    else
        snprintf(tmpl, sizeof tmpl, "%%n%s", kinds[kind].ext);
    if (pt__path_expand(t, tmpl, &exp) != 0)
        return; /* described on t */
    for (const claim *c = claims; c; c = c->next)
        if (c->t == t && c->asked && strcmp(c->asked, exp) == 0) {
            snprintf(msg, sizeof msg, "PT_OUTPUT: %.400s is named for %s and %s; only %s is "
                     "written there", exp, kinds[c->kind].kind, kinds[kind].kind,
                     kinds[c->kind].kind);
            said(t, PT_EINVAL, msg);
            free(exp);
            return;
        }
    if (stat(exp, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(msg, sizeof msg, "PT_OUTPUT %s: %.400s is a folder: name a file in it; not "
                 "written", kinds[kind].kind, exp);
        said(t, PT_EOPEN, msg);
        free(exp);
        return;
    }
    {
        char dir[4096];
        const char *slash = strrchr(exp, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - exp) : 1, slash ? exp : ".");
        if (slash && slash != exp && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
            snprintf(msg, sizeof msg, "PT_OUTPUT %s: no folder %.400s to write %s into; not "
                     "written", kinds[kind].kind, dir, kinds[kind].kind);
            said(t, PT_EOPEN, msg);
            free(exp);
            return;
        }
    }
    mine = free_path(exp);
    if (mine && strcmp(mine, exp) != 0) {
        snprintf(msg, sizeof msg, "PT_OUTPUT %s: %.200s is another timing's file; \"%.64s\" "
                 "writes %.200s", kinds[kind].kind, exp, t->name, mine);
        fprintf(stderr, "ptkit: %s\n", msg);
        pt__note(t, "%s", msg);
    }
    claim *c = mine ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        free(mine);
        free(exp);
        pt__fail(t, PT_ENOMEM, "PT_OUTPUT %s: out of memory: not written", kinds[kind].kind);
        return;
    }
    c->path = mine;
    c->asked = exp;
    c->kind = kind;
    c->t = t;
    /* Claimed at once, so a later item of another timing sees it. */
    c->next = claims;
    claims = c;
}

void pt__output_init(pt_timing *t, const char *spec)
{
    plan pl = { t, NULL };

    if (!spec)
        return;
    t->output_pid = (long)getpid();
    pthread_mutex_lock(&claims_lock);
    each_item(spec, claim_one, &pl);
    /* The log on stderr is no file: kept with the rest, first. */
    while (pl.mine) {
        claim *c = pl.mine;
        pl.mine = c->next;
        c->next = claims;
        claims = c;
    }
    pthread_mutex_unlock(&claims_lock);
    t->output = strdup(spec); /* says that t has outputs to write */
}

static void write_one(pt_timing *t, int kind, const char *file)
{
    int rc;
    char esc[8200];
    size_t n = 0;

    /* The file is final: its '%' must stay, not be expanded again. */
    for (const char *p = file; p && *p && n + 2 < sizeof esc; p++) {
        if (*p == '%')
            esc[n++] = '%';
        esc[n++] = *p;
    }
    esc[n] = '\0';
    switch (kind) {
    case OUT_LOG: rc = file ? pt_export_text(t, esc) : pt_log(t, stderr); break;
    case OUT_JSON: rc = pt_export_json(t, esc); break;
    case OUT_CSV: rc = pt_export_csv(t, esc); break;
    case OUT_HTML: rc = pt_export_html(t, esc); break;
    default: rc = pt_export_trace(t, esc); break;
    }
    if (rc)
        fprintf(stderr, "ptkit: PT_OUTPUT %s: %s\n", kinds[kind].kind, pt_last_error(t));
}

/* t's claims, taken out of the list (in the order they were made). */
static claim *take(pt_timing *t)
{
    claim *out = NULL, **pp = &claims;
    while (*pp) {
        claim *c = *pp;
        if (c->t == t) {
            *pp = c->next;
            c->next = out;
            out = c;
        } else {
            pp = &c->next;
        }
    }
    return out;
}

void pt__output_write(pt_timing *t)
{
    claim *mine;

    if (!t->output)
        return;
    pthread_mutex_lock(&claims_lock);
    mine = take(t);
    pthread_mutex_unlock(&claims_lock);
    free(t->output);
    t->output = NULL;
    /* A forked child has its parent's timings, whose files are the
     * parent's: it writes none of them. */
    int here = t->output_pid == (long)getpid();
    while (mine) {
        claim *c = mine;
        mine = c->next;
        if (here)
            write_one(t, c->kind, c->path);
        free(c->path);
        free(c->asked);
        free(c);
    }
}

void pt__output_drop(pt_timing *t)
{
    claim *mine;
    pthread_mutex_lock(&claims_lock);
    mine = take(t);
    pthread_mutex_unlock(&claims_lock);
    while (mine) {
        claim *c = mine;
        mine = c->next;
        free(c->path);
        free(c->asked);
        free(c);
    }
    free(t->output);
    t->output = NULL;
}

void pt__output_write_all(void)
{
    for (;;) {
        pt_timing *t = NULL;
        pthread_mutex_lock(&claims_lock);
        for (claim *c = claims; c && !t; c = c->next)
            if (c->t->output_pid == (long)getpid())
                t = c->t;
        pthread_mutex_unlock(&claims_lock);
        if (!t)
            return;
        pt__output_write(t);
    }
}
